/* check-mig.c: MIG layouts and MIG instances in the cluster.
 *
 * What it checks: for every GPU model of the catalogue with MIG, every
 * layout reachable by adding instances (all profiles, all allowed starts,
 * exhaustively) is valid and agrees with an independent recomputation of
 * the rules; random add/remove sequences keep the layout valid; each
 * profile alone reaches its max_instances; the counts of models/SOURCES.md A2
 * for A100-80GB and H100 (7 x 1g.10gb, 4 x 1g.20gb, 3 x 2g.20gb, 2 x
 * 3g.40gb, 1 x 4g.40gb, 1 x 7g.80gb) and the mixed 4g + 2g + 1g layout;
 * impossible layouts (4g + 4g, 3g + four 1g, 7g + anything, two +me) are
 * refused; the cluster keeps MIG GPUs away from whole and fractional jobs.
 * What it does not check: whether the catalogue's profile data match
 * NVIDIA's (check-catalogue reads the files), or MIG jobs in a simulation.
 */
#include "config.h"

#include <check.h>
#include <sim.h>
#include <string.h>

static SimCatalogue *catalogue;

static void
setup (void)
{
  g_autoptr(GError) error = NULL;
  catalogue = sim_catalogue_new_default (NULL, &error);
  ck_assert_msg (catalogue != NULL, "%s", error ? error->message : "");
}

static void
teardown (void)
{
  g_clear_pointer (&catalogue, sim_catalogue_free);
}

static GPtrArray *
mig_gpus (void)
{
  g_autoptr(GPtrArray) all = sim_catalogue_get_gpus (catalogue);
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < all->len; i++)
    if (((const SimGpuModel *) all->pdata[i])->mig_slices > 0)
      g_ptr_array_add (out, all->pdata[i]);
  return out;
}

static int
profile (const SimGpuModel *gpu, const char *name)
{
  int p = sim_mig_lookup_profile (gpu, name);
  ck_assert_msg (p >= 0, "%s has no profile %s", gpu->name, name);
  return p;
}

/* The rules again, written differently: slice by slice. */
static gboolean
reference_valid (const SimGpuModel *gpu, const SimMigLayout *l)
{
  int compute[16], memory[16];
  guint counts[64] = { 0 };

  memset (compute, 0, sizeof compute);
  memset (memory, 0, sizeof memory);
  for (guint i = 0; i < l->n_instances; i++)
    {
      const SimMigProfile *p = &gpu->mig_profiles[l->instances[i].profile];
      guint s = l->instances[i].start;
      gboolean allowed = FALSE;
      for (guint k = 0; k < p->n_placements; k++)
        allowed |= p->placements[k] == s;
      if (!allowed || s + p->compute_slices > gpu->mig_slices || s + p->memory_slices > 8)
        return FALSE;
      for (guint k = s; k < s + p->compute_slices; k++)
        if (compute[k]++)
          return FALSE;
      for (guint k = s; k < s + p->memory_slices; k++)
        if (memory[k]++)
          return FALSE;
      if (++counts[l->instances[i].profile] > p->max_instances)
        return FALSE;
    }
  return TRUE;
}

/* Depth-first over every layout reachable by adds; returns how many distinct. */
static void
explore (const SimGpuModel *gpu, const SimMigLayout *l, GHashTable *seen, guint *n)
{
  if (!g_hash_table_add (seen, sim_mig_layout_describe (gpu, l)))
    return;
  (*n)++;
  for (guint p = 0; p < gpu->n_mig_profiles; p++)
    {
      const SimMigProfile *prof = &gpu->mig_profiles[p];
      int first = sim_mig_find_slot (gpu, l, p);
      gboolean any = FALSE;

      for (guint k = 0; k < prof->n_placements; k++)
        {
          SimMigLayout next = *l;
          g_autoptr(GError) error = NULL;
          SimMigInstance extra = { (guint8) p, (guint8) prof->placements[k] };
          SimMigLayout probe = *l;
          gboolean ok = sim_mig_layout_add (gpu, &next, p, (int) prof->placements[k], &error) >= 0;

          /* The reference says whether adding it gives a valid layout (no
           * GPU has room for more than 7 instances, so there is a slot). */
          ck_assert_uint_lt (probe.n_instances, SIM_MIG_MAX_INSTANCES);
          probe.instances[probe.n_instances++] = extra;
          ck_assert_msg (ok == reference_valid (gpu, &probe), "%s: %s at %u", gpu->name, prof->name,
                         prof->placements[k]);
          if (!ok)
            {
              ck_assert_ptr_nonnull (error);
              continue;
            }
          if (!any)
            ck_assert_int_eq (first, (int) prof->placements[k]); /* first fit */
          any = TRUE;
          ck_assert (sim_mig_layout_validate (gpu, &next, NULL));
          ck_assert (reference_valid (gpu, &next));
          ck_assert_uint_le (sim_mig_layout_compute_slices (&next), gpu->mig_slices);
          explore (gpu, &next, seen, n);
        }
      if (!any)
        ck_assert_int_eq (first, -1);
    }
}

START_TEST (test_exhaustive_layouts)
{
  g_autoptr(GPtrArray) gpus = mig_gpus ();

  ck_assert_uint_ge (gpus->len, 4);
  for (guint i = 0; i < gpus->len; i++)
    {
      const SimGpuModel *gpu = gpus->pdata[i];
      g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      SimMigLayout empty;
      guint n = 0;

      sim_mig_layout_init (&empty);
      explore (gpu, &empty, seen, &n);
      /* At least every profile alone, and the empty layout. */
      ck_assert_uint_gt (n, gpu->n_mig_profiles);
    }
}
END_TEST

START_TEST (test_random_sequences)
{
  g_autoptr(GPtrArray) gpus = mig_gpus ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);

  for (guint i = 0; i < gpus->len; i++)
    {
      const SimGpuModel *gpu = gpus->pdata[i];
      SimMigLayout l;

      sim_mig_layout_init (&l);
      for (guint step = 0; step < 5000; step++)
        {
          if (l.n_instances > 0 && g_rand_boolean (rand))
            {
              SimMigInstance in = l.instances[g_rand_int_range (rand, 0, l.n_instances)];
              ck_assert (sim_mig_layout_remove (gpu, &l, in.profile, in.start));
              ck_assert (!sim_mig_layout_remove (gpu, &l, in.profile, in.start));
            }
          else
            {
              guint p = g_rand_int_range (rand, 0, gpu->n_mig_profiles);
              int start = g_rand_boolean (rand) ? -1 : g_rand_int_range (rand, 0, 8);
              sim_mig_layout_add (gpu, &l, p, start, NULL);
            }
          ck_assert (sim_mig_layout_validate (gpu, &l, NULL));
          ck_assert (reference_valid (gpu, &l));
          for (guint k = 1; k < l.n_instances; k++)
            ck_assert_uint_lt (l.instances[k - 1].start, l.instances[k].start);
        }
    }
}
END_TEST

START_TEST (test_max_instances_each_profile)
{
  g_autoptr(GPtrArray) gpus = mig_gpus ();

  for (guint i = 0; i < gpus->len; i++)
    {
      const SimGpuModel *gpu = gpus->pdata[i];
      for (guint p = 0; p < gpu->n_mig_profiles; p++)
        {
          SimMigLayout l;
          guint n = 0;
          sim_mig_layout_init (&l);
          while (sim_mig_layout_add (gpu, &l, p, -1, NULL) >= 0)
            n++;
          ck_assert_msg (n == gpu->mig_profiles[p].max_instances, "%s %s: %u of %u", gpu->name,
                         gpu->mig_profiles[p].name, n, gpu->mig_profiles[p].max_instances);
        }
    }
}
END_TEST

/* Adds COUNT instances of NAME with first fit, then checks one more is refused. */
static void
fill (const SimGpuModel *gpu, const char *name, guint count)
{
  SimMigLayout l;
  int p = profile (gpu, name);
  g_autoptr(GError) error = NULL;

  sim_mig_layout_init (&l);
  for (guint i = 0; i < count; i++)
    ck_assert_msg (sim_mig_layout_add (gpu, &l, p, -1, NULL) >= 0, "%s: %s number %u", gpu->name,
                   name, i + 1);
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, p, -1, &error), -1);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
}

START_TEST (test_calibration_counts)
{
  /* models/SOURCES.md A2, A100-80GB and H100-80GB. */
  const char *names[] = { "A100-SXM-80GB", "H100-SXM" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const SimGpuModel *gpu = sim_catalogue_lookup_gpu (catalogue, names[i]);
      SimMigLayout l;
      g_autofree char *desc = NULL;

      ck_assert_ptr_nonnull (gpu);
      ck_assert_uint_eq (gpu->mig_slices, 7);
      fill (gpu, "1g.10gb", 7);
      fill (gpu, "1g.20gb", 4);
      fill (gpu, "2g.20gb", 3);
      fill (gpu, "3g.40gb", 2);
      fill (gpu, "4g.40gb", 1);
      fill (gpu, "7g.80gb", 1);
      fill (gpu, "1g.10gb+me", 1);
      /* Mixed: 4g at 0, 2g at 4, 1g at 6: all 7 compute slices. */
      sim_mig_layout_init (&l);
      ck_assert_int_eq (sim_mig_layout_add (gpu, &l, profile (gpu, "4g.40gb"), -1, NULL), 0);
      ck_assert_int_eq (sim_mig_layout_add (gpu, &l, profile (gpu, "2g.20gb"), -1, NULL), 4);
      ck_assert_int_eq (sim_mig_layout_add (gpu, &l, profile (gpu, "1g.10gb"), -1, NULL), 6);
      ck_assert_uint_eq (sim_mig_layout_compute_slices (&l), 7);
      ck_assert_int_eq (sim_mig_find_slot (gpu, &l, profile (gpu, "1g.10gb")), -1);
      desc = sim_mig_layout_describe (gpu, &l);
      ck_assert_str_eq (desc, "4g.40gb@0 2g.20gb@4 1g.10gb@6");
    }
  /* A100-40GB and H200 have the same counts under other names. */
  fill (sim_catalogue_lookup_gpu (catalogue, "A100-SXM-40GB"), "1g.5gb", 7);
  fill (sim_catalogue_lookup_gpu (catalogue, "A100-SXM-40GB"), "3g.20gb", 2);
  fill (sim_catalogue_lookup_gpu (catalogue, "H200-SXM"), "1g.18gb", 7);
  fill (sim_catalogue_lookup_gpu (catalogue, "H200-SXM"), "7g.141gb", 1);
}
END_TEST

START_TEST (test_impossible_layouts)
{
  const SimGpuModel *gpu = sim_catalogue_lookup_gpu (catalogue, "H100-SXM");
  int g1 = profile (gpu, "1g.10gb"), g1me = profile (gpu, "1g.10gb+me"), g3 = profile (gpu, "3g.40gb");
  int g4 = profile (gpu, "4g.40gb"), g7 = profile (gpu, "7g.80gb"), g2 = profile (gpu, "2g.20gb");
  g_autoptr(GError) error = NULL;
  SimMigLayout l;

  /* 4g + 4g: one instance at most, and only at slice 0. */
  sim_mig_layout_init (&l);
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g4, -1, NULL), 0);
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g4, -1, &error), -1);
  g_clear_error (&error);
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g4, 3, &error), -1);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  g_clear_error (&error);
  /* 3g at 0 takes memory slices 0-3: slice 3 has compute but no memory,
   * so only three 1g fit beside it (at 4, 5, 6). */
  sim_mig_layout_init (&l);
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g3, 0, NULL), 0);
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g1, 3, &error), -1);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  g_clear_error (&error);
  for (guint i = 0; i < 3; i++)
    ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g1, -1, NULL), 4 + (int) i);
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g1, -1, NULL), -1);
  /* 7g with anything. */
  sim_mig_layout_init (&l);
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g7, -1, NULL), 0);
  for (guint p = 0; p < gpu->n_mig_profiles; p++)
    ck_assert_int_eq (sim_mig_find_slot (gpu, &l, p), -1);
  /* Two +me instances. */
  sim_mig_layout_init (&l);
  ck_assert_int_ge (sim_mig_layout_add (gpu, &l, g1me, -1, NULL), 0);
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g1me, -1, NULL), -1);
  /* 2g cannot start at an odd slice. */
  ck_assert_int_eq (sim_mig_layout_add (gpu, &l, g2, 1, NULL), -1);
  /* Hand-written layouts. */
  sim_mig_layout_init (&l);
  l.n_instances = 2;
  l.instances[0] = (SimMigInstance){ (guint8) g4, 0 };
  l.instances[1] = (SimMigInstance){ (guint8) g4, 0 };
  ck_assert (!sim_mig_layout_validate (gpu, &l, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  g_clear_error (&error);
  l.instances[1] = (SimMigInstance){ (guint8) g2, 2 }; /* overlaps 4g's slices 0-3 */
  ck_assert (!sim_mig_layout_validate (gpu, &l, NULL));
  l.instances[1] = (SimMigInstance){ (guint8) g2, 4 };
  ck_assert (sim_mig_layout_validate (gpu, &l, NULL));
  l.instances[1] = (SimMigInstance){ (guint8) g2, 5 }; /* not an allowed start */
  ck_assert (!sim_mig_layout_validate (gpu, &l, NULL));
  l.instances[1] = (SimMigInstance){ 200, 4 }; /* no such profile */
  ck_assert (!sim_mig_layout_validate (gpu, &l, NULL));
  /* A GPU without MIG takes no layout. */
  l.n_instances = 1;
  ck_assert (!sim_mig_layout_validate (sim_catalogue_lookup_gpu (catalogue, "A10"), &l, NULL));
  ck_assert_int_eq (sim_mig_lookup_profile (gpu, "9g.1tb"), -1);
}
END_TEST

START_TEST (test_reconfigure_cost)
{
  const SimGpuModel *gpu = sim_catalogue_lookup_gpu (catalogue, "H100-SXM");
  SimMigLayout a, b;

  sim_mig_layout_init (&a);
  sim_mig_layout_init (&b);
  ck_assert_int_eq (sim_mig_reconfigure_cost (&a, &b, SIM_MIG_RECONFIGURE_TIME_DEFAULT), 0);
  sim_mig_layout_add (gpu, &a, profile (gpu, "3g.40gb"), -1, NULL);
  ck_assert_int_eq (sim_mig_reconfigure_cost (&a, &b, SIM_MIG_RECONFIGURE_TIME_DEFAULT),
                    SIM_MIG_RECONFIGURE_TIME_DEFAULT);
  /* Added in another order, the same instances: no change. */
  sim_mig_layout_add (gpu, &a, profile (gpu, "2g.20gb"), 4, NULL);
  sim_mig_layout_add (gpu, &b, profile (gpu, "2g.20gb"), 4, NULL);
  sim_mig_layout_add (gpu, &b, profile (gpu, "3g.40gb"), 0, NULL);
  ck_assert_int_eq (sim_mig_reconfigure_cost (&a, &b, 5 * SIM_SECOND), 0);
}
END_TEST

START_TEST (test_cluster_mig)
{
  /* One DGX-H100 with 2 GPUs (0, 1) and one PCIe-8GPU (A10, no MIG) with 1. */
  g_autoptr(SimCluster) c = sim_cluster_new ();
  g_autoptr(SimCluster) copy = NULL;
  g_autoptr(GError) error = NULL;
  const SimGpuModel *h100 = sim_catalogue_lookup_gpu (catalogue, "H100-SXM");
  int g3 = profile (h100, "3g.40gb"), g1 = profile (h100, "1g.10gb");
  guint32 buf[2], zero = 0, one = 1;
  SimPlacement pl = { buf, 0, 0, -1 };
  SimJob whole = { 0 }, frac = { 0 };
  guint gpu, start;

  whole.spec.gpus = 1;
  whole.spec.gpu_milli = 1000;
  frac.spec.gpus = 1;
  frac.spec.gpu_milli = 100;
  ck_assert (sim_cluster_add_pool (c, "h", sim_catalogue_lookup_node (catalogue, "DGX-H100"), NULL,
                                   2, 1, &error));
  ck_assert (sim_cluster_add_pool (c, "a", sim_catalogue_lookup_node (catalogue, "PCIe-8GPU"), NULL,
                                   1, 1, &error));
  ck_assert_int_eq (sim_cluster_mig_allocate (c, 2, 0, -1, &error), -1);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  g_clear_error (&error);

  /* Two 3g on GPU 0: 6 of 7 slices, each instance counting floor(3000 / 7)
   * = 428 thousandths, 856 in all; the GPU is no longer free. */
  ck_assert_int_eq (sim_cluster_mig_allocate (c, 0, g3, -1, &error), 0);
  ck_assert_int_eq (sim_cluster_mig_allocate (c, 0, g3, -1, &error), 4);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 0)->used_milli, 856);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 0)->mig_used, 0x77);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 0)->n_tenants, 2);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 2);
  ck_assert_uint_eq (sim_cluster_get_allocated_milli (c), 856);
  ck_assert_uint_eq (sim_cluster_get_mig_layout (c, 0)->n_instances, 2);
  ck_assert_ptr_null (sim_cluster_get_mig_layout (c, 1));
  /* Whole and fractional jobs stay off GPU 0; allocating it is refused. */
  ck_assert (!sim_cluster_allocate (c, &zero, 1, 100, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  g_clear_error (&error);
  ck_assert (sim_place_first_fit (c, &whole, &pl));
  ck_assert_uint_eq (buf[0], 1);
  ck_assert (sim_place_first_fit (c, &frac, &pl));
  ck_assert_uint_eq (buf[0], 1);
  /* A GPU with a fractional job takes no MIG instance. */
  ck_assert (sim_cluster_allocate (c, &one, 1, 100, &error));
  ck_assert_int_eq (sim_cluster_mig_allocate (c, 1, g1, -1, &error), -1);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  g_clear_error (&error);
  /* First fit for a 1g: no room left on GPU 0 (slice 3 has no memory),
   * GPU 1 is busy, GPU 2 has no MIG. */
  ck_assert (!sim_cluster_mig_find (c, "1g.10gb", NULL, &gpu, &start));
  sim_cluster_release (c, &one, 1, 100);
  ck_assert (sim_cluster_mig_find (c, "1g.10gb", NULL, &gpu, &start));
  ck_assert_uint_eq (gpu, 1);
  ck_assert_uint_eq (start, 0);
  /* A copy keeps the layouts. */
  copy = sim_cluster_copy (c);
  ck_assert_uint_eq (sim_cluster_get_mig_layout (copy, 0)->n_instances, 2);
  /* Releasing both makes GPU 0 free and whole again. */
  ck_assert (!sim_cluster_mig_release (c, 0, g1, 0));
  ck_assert (sim_cluster_mig_release (c, 0, g3, 4));
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 0)->used_milli, 428);
  ck_assert (sim_cluster_mig_release (c, 0, g3, 0));
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 0)->used_milli, 0);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 0)->mig_used, 0);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 3);
  ck_assert_uint_eq (sim_cluster_get_allocated_milli (c), 0);
  ck_assert_ptr_null (sim_cluster_get_mig_layout (c, 0));
  ck_assert (sim_cluster_allocate (c, &zero, 1, 1000, &error));
  /* The copy is unchanged. */
  ck_assert_uint_eq (sim_cluster_get_gpu (copy, 0)->used_milli, 856);
  /* Seven 1g fill a GPU's slices: each counts floor(1000 / 7) = 142, 994 in all. */
  for (guint i = 0; i < 7; i++)
    ck_assert_int_eq (sim_cluster_mig_allocate (c, 1, g1, -1, &error), (int) i);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 1)->used_milli, 994);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 1)->mig_used, 0x7f);
}
END_TEST

static Suite *
mig_suite (void)
{
  Suite *s = suite_create ("mig");
  TCase *tc = tcase_create ("core");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_exhaustive_layouts);
  tcase_add_test (tc, test_random_sequences);
  tcase_add_test (tc, test_max_instances_each_profile);
  tcase_add_test (tc, test_calibration_counts);
  tcase_add_test (tc, test_impossible_layouts);
  tcase_add_test (tc, test_reconfigure_cost);
  tcase_add_test (tc, test_cluster_mig);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (mig_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
