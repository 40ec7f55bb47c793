/* check-cluster.c: allocation state of nodes and GPUs, and placements.
 *
 * What it checks: pools number nodes and GPUs densely; allocation refuses
 * to give a GPU out twice (or beyond 1000/1000) and changes nothing when it
 * refuses; release restores the state; the free-GPU histogram answers the
 * same as a scan of the nodes (random operations against a reference);
 * fragmentation by hand; first-fit and best-fit choices by hand; a
 * fractional GPU shared by several tenants; the index of free GPUs and
 * first-fit through it against scans of every node; the free GPUs kept per
 * group of nodes against counts over the nodes.
 * What it does not check: scheduling over time (check-sched does).
 */
#include "config.h"

#include <check.h>
#include <sim.h>
#include "cluster/sim-cluster.h"
#include "cluster/sim-cluster-private.h"
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

/* NODES nodes of PER GPUs each, of the generic PCIe server. */
static SimCluster *
make_cluster (guint nodes, guint per)
{
  SimCluster *c = sim_cluster_new ();
  const SimNodeModel *m = sim_catalogue_lookup_node (catalogue, "PCIe-8GPU");
  g_autoptr(GError) error = NULL;

  ck_assert_ptr_nonnull (m);
  ck_assert (sim_cluster_add_pool (c, "p", m, NULL, per, nodes, &error));
  return c;
}

static SimJob
job_of (guint gpus, guint milli)
{
  SimJob j = { 0 };
  j.spec.gpus = gpus;
  j.spec.gpu_milli = milli;
  return j;
}

/* An unavailable node counts none of its GPUs as free, whoever holds them:
 * two nodes of 4 GPUs, node 0 holding GPUs 0-1 whole and half of GPU 2.
 * Down, the free count falls from 5 to 4 (node 1 only) while the allocated
 * thousandths stay 2,500; every GPU of node 0 refuses an allocation; a
 * job's GPU given back there stays held, refusing a share of it too; back up, node 0 has its 2 free
 * GPUs plus the one given back. */
START_TEST (test_node_availability)
{
  g_autoptr(SimCluster) c = make_cluster (2, 4);
  g_autoptr(GError) error = NULL;
  guint32 whole[2] = { 0, 1 }, half[1] = { 2 }, one[1] = { 3 };

  ck_assert (sim_cluster_allocate (c, whole, 2, 1000, &error));
  ck_assert (sim_cluster_allocate (c, half, 1, 500, &error));
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 5);
  ck_assert (sim_cluster_get_node (c, 0)->available);
  ck_assert (sim_cluster_set_node_available (c, 0, FALSE));
  ck_assert (!sim_cluster_set_node_available (c, 0, FALSE));
  ck_assert (!sim_cluster_get_node (c, 0)->available);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 4);
  ck_assert_uint_eq (sim_cluster_get_node (c, 0)->free_gpus, 0);
  ck_assert_uint_eq (sim_cluster_get_allocated_milli (c), 2500);
  ck_assert_uint_eq (sim_cluster_count_nodes_with_free (c, 1), 1);
  for (guint32 g = 0; g < 4; g++)
    {
      guint32 gpu[1] = { g };
      ck_assert (!sim_cluster_allocate (c, gpu, 1, 100, &error));
      g_clear_error (&error);
    }
  ck_assert (!sim_cluster_allocate (c, one, 1, 1000, &error));
  g_clear_error (&error);
  /* A job on node 0 ends: its GPU stays held, whole, and takes no share
   * of a GPU either (it had nothing free when the node went down). */
  sim_cluster_release (c, whole, 1, 1000);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 4);
  ck_assert_uint_eq (sim_cluster_get_allocated_milli (c), 1500);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 0)->used_milli, 1000);
  ck_assert (!sim_cluster_allocate (c, whole, 1, 100, &error));
  g_clear_error (&error);
  ck_assert (sim_cluster_set_node_available (c, 0, TRUE));
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 4 + 2);
  ck_assert_uint_eq (sim_cluster_get_node (c, 0)->free_gpus, 2);
  ck_assert_uint_eq (sim_cluster_get_allocated_milli (c), 1500);
  ck_assert (sim_cluster_allocate (c, one, 1, 1000, &error));
  ck_assert (sim_cluster_allocate (c, half, 1, 500, &error));
  ck_assert (!sim_cluster_allocate (c, half, 1, 1, &error));
}
END_TEST

START_TEST (test_pools_numbering)
{
  g_autoptr(SimCluster) c = sim_cluster_new ();
  const SimNodeModel *dgx = sim_catalogue_lookup_node (catalogue, "DGX-H100");
  const SimNodeModel *pcie = sim_catalogue_lookup_node (catalogue, "PCIe-8GPU");
  const SimGpuModel *t4 = sim_catalogue_lookup_gpu (catalogue, "T4");
  g_autoptr(GError) error = NULL;
  g_autofree char *desc = NULL;

  ck_assert (sim_cluster_add_pool (c, "a", dgx, NULL, 0, 3, &error));
  ck_assert (sim_cluster_add_pool (c, "b", pcie, t4, 2, 4, &error));
  ck_assert_uint_eq (sim_cluster_get_n_nodes (c), 7);
  ck_assert_uint_eq (sim_cluster_get_n_gpus (c), 3 * 8 + 4 * 2);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 32);
  ck_assert_uint_eq (sim_cluster_get_max_gpus_per_node (c), 8);
  ck_assert_uint_eq (sim_cluster_get_node (c, 3)->first_gpu, 24);
  ck_assert_uint_eq (sim_cluster_get_node (c, 6)->first_gpu, 30);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 31)->node, 6);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 31)->local_index, 1);
  ck_assert_str_eq (sim_cluster_get_node (c, 4)->gpu_model->name, "T4");
  ck_assert_str_eq (sim_cluster_get_node (c, 0)->gpu_model->name, "H100-SXM");
  desc = sim_cluster_describe (c);
  ck_assert_str_eq (desc, "3 x DGX-H100 (24 x H100-SXM), 4 x PCIe-8GPU (8 x T4)");
  ck_assert (!sim_cluster_add_pool (c, "c", pcie, NULL, 65, 1, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
}
END_TEST

START_TEST (test_no_double_allocation)
{
  g_autoptr(SimCluster) c = make_cluster (2, 4);
  g_autoptr(GError) error = NULL;
  guint32 a[] = { 0, 1 }, b[] = { 2, 1 }, bad[] = { 3, 99 }, dup[] = { 5, 5 };

  ck_assert (sim_cluster_allocate (c, a, 2, 1000, &error));
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 6);
  /* GPU 1 is taken: refused, and GPU 2 stays free. */
  ck_assert (!sim_cluster_allocate (c, b, 2, 1000, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  ck_assert (strstr (error->message, "allocated twice") != NULL);
  g_clear_error (&error);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 2)->used_milli, 0);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 6);
  ck_assert (!sim_cluster_allocate (c, bad, 2, 1000, &error));
  g_clear_error (&error);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 3)->used_milli, 0);
  ck_assert (!sim_cluster_allocate (c, dup, 2, 1000, &error));
  g_clear_error (&error);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 5)->used_milli, 0);
  ck_assert (!sim_cluster_allocate (c, a, 2, 0, &error));
  g_clear_error (&error);
  ck_assert (!sim_cluster_allocate (c, a, 2, 1001, &error));
  g_clear_error (&error);
  sim_cluster_release (c, a, 2, 1000);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 8);
  ck_assert_uint_eq (sim_cluster_get_allocated_milli (c), 0);
}
END_TEST

START_TEST (test_fractional_sharing)
{
  g_autoptr(SimCluster) c = make_cluster (1, 2);
  g_autoptr(GError) error = NULL;
  guint32 g0[] = { 0 };
  guint32 buf[1];
  SimPlacement p = { buf, 1, 0, -1 };
  SimJob j = job_of (1, 300);

  ck_assert (sim_cluster_allocate (c, g0, 1, 500, &error));
  ck_assert (sim_cluster_allocate (c, g0, 1, 500, &error));
  ck_assert (!sim_cluster_allocate (c, g0, 1, 1, &error));
  g_clear_error (&error);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 0)->n_tenants, 2);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 1);
  ck_assert_uint_eq (sim_cluster_get_allocated_milli (c), 1000);
  sim_cluster_release (c, g0, 1, 500);
  /* GPU 0 has 500 left, GPU 1 all 1000: best-fit takes the fuller GPU 0,
   * first-fit too (it is first). */
  ck_assert (sim_place_best_fit (c, &j, &p));
  ck_assert_uint_eq (buf[0], 0);
  buf[0] = G_MAXUINT32;
  ck_assert (sim_place_first_fit (c, &j, &p));
  ck_assert_uint_eq (buf[0], 0);
  /* 600 fits only the free GPU 1, by either rule. */
  j = job_of (1, 600);
  ck_assert (sim_place_best_fit (c, &j, &p));
  ck_assert_uint_eq (buf[0], 1);
  ck_assert (sim_place_first_fit (c, &j, &p));
  ck_assert_uint_eq (buf[0], 1);
  sim_cluster_release (c, g0, 1, 500);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), 2);
}
END_TEST

/* Free GPUs per node 3, 1, 4, 2 (nodes of 4).  A request of 2 GPUs cannot
 * use node 1's single free GPU: 1 fragmented.  A request of 4 can use only
 * node 2: 3 + 1 + 2 = 6 fragmented.  A request of 1 leaves nothing
 * fragmented.  A request of 8 (more than a node) needs whole nodes: the
 * same as 4. */
START_TEST (test_fragmentation_by_hand)
{
  g_autoptr(SimCluster) c = make_cluster (4, 4);
  g_autoptr(GError) error = NULL;
  guint32 n0[] = { 0 }, n1[] = { 4, 5, 6 }, n3[] = { 12, 13 };

  ck_assert (sim_cluster_allocate (c, n0, 1, 1000, &error));
  ck_assert (sim_cluster_allocate (c, n1, 3, 1000, &error));
  ck_assert (sim_cluster_allocate (c, n3, 2, 1000, &error));
  ck_assert_uint_eq (sim_cluster_fragmented_gpus (c, 1), 0);
  ck_assert_uint_eq (sim_cluster_fragmented_gpus (c, 2), 1);
  ck_assert_uint_eq (sim_cluster_fragmented_gpus (c, 3), 1 + 2);
  ck_assert_uint_eq (sim_cluster_fragmented_gpus (c, 4), 3 + 1 + 2);
  ck_assert_uint_eq (sim_cluster_fragmented_gpus (c, 8), 3 + 1 + 2);
  ck_assert_uint_eq (sim_cluster_count_nodes_with_free (c, 3), 2);
  ck_assert_uint_eq (sim_cluster_count_nodes_with_free (c, 0), 4);
}
END_TEST

/* First-fit takes the lowest node that fits, best-fit the fullest. */
START_TEST (test_placements_by_hand)
{
  g_autoptr(SimCluster) c = make_cluster (3, 4);
  g_autoptr(GError) error = NULL;
  guint32 n0[] = { 0, 1 }, n1[] = { 4, 5, 6 };
  guint32 buf[12];
  SimPlacement p = { buf, 0, 0, -1 };
  SimJob j = job_of (1, 1000);

  ck_assert (sim_cluster_allocate (c, n0, 2, 1000, &error));
  ck_assert (sim_cluster_allocate (c, n1, 3, 1000, &error));
  /* Free: node 0 GPUs 2,3; node 1 GPU 7; node 2 all. */
  ck_assert (sim_place_first_fit (c, &j, &p));
  ck_assert_uint_eq (buf[0], 2);
  ck_assert (sim_place_best_fit (c, &j, &p));
  ck_assert_uint_eq (buf[0], 7);
  j = job_of (2, 1000);
  ck_assert (sim_place_first_fit (c, &j, &p));
  ck_assert_uint_eq (buf[0], 2);
  ck_assert_uint_eq (buf[1], 3);
  j = job_of (3, 1000);
  ck_assert (sim_place_best_fit (c, &j, &p));
  ck_assert_uint_eq (buf[0], 8);
  /* 6 GPUs: whole node 2, then 2 more on the first (or fullest) node with 2. */
  j = job_of (6, 1000);
  ck_assert (sim_place_first_fit (c, &j, &p));
  ck_assert_uint_eq (p.n_gpus, 6);
  ck_assert_uint_eq (buf[0], 8);
  ck_assert_uint_eq (buf[4], 2);
  /* 8 GPUs: only one whole node is free. */
  j = job_of (8, 1000);
  ck_assert (!sim_place_first_fit (c, &j, &p));
  ck_assert (!sim_place_best_fit (c, &j, &p));
}
END_TEST

/* Random allocations and releases; after each, the histogram-based counts
 * equal a direct scan of the nodes. */
START_TEST (test_histogram_against_scan)
{
  g_autoptr(SimCluster) c = sim_cluster_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  const SimNodeModel *m = sim_catalogue_lookup_node (catalogue, "PCIe-8GPU");
  GPtrArray *held = g_ptr_array_new_with_free_func (g_free);

  ck_assert (sim_cluster_add_pool (c, "a", m, NULL, 8, 20, &error));
  ck_assert (sim_cluster_add_pool (c, "b", m, NULL, 4, 10, &error));
  for (guint step = 0; step < 5000; step++)
    {
      if (held->len > 0 && g_rand_boolean (rand))
        {
          guint32 *h = g_ptr_array_steal_index (held, g_rand_int_range (rand, 0, (gint) held->len));
          sim_cluster_release (c, h + 1, h[0], 1000);
          g_free (h);
        }
      else
        {
          SimJob j = job_of ((guint) g_rand_int_range (rand, 1, 13), 1000);
          guint32 *h = g_new (guint32, j.spec.gpus + 1);
          SimPlacement p = { h + 1, 0, 0, -1 };
          gboolean ok = g_rand_boolean (rand) ? sim_place_first_fit (c, &j, &p)
                                              : sim_place_best_fit (c, &j, &p);
          if (ok)
            {
              h[0] = p.n_gpus;
              ck_assert (sim_cluster_allocate (c, h + 1, p.n_gpus, 1000, &error));
              g_ptr_array_add (held, h);
            }
          else
            g_free (h);
        }
      for (guint want = 1; want <= 12; want += 3)
        {
          guint frag = 0, count = 0, free_total = 0;
          for (guint n = 0; n < sim_cluster_get_n_nodes (c); n++)
            {
              const SimNode *node = sim_cluster_get_node (c, n);
              guint free = 0;
              for (guint g = 0; g < node->n_gpus; g++)
                free += sim_cluster_get_gpu (c, node->first_gpu + g)->n_tenants == 0;
              ck_assert_uint_eq (free, node->free_gpus);
              free_total += free;
              if (free < MIN (want, node->n_gpus))
                frag += free;
              if (free >= want)
                count++;
            }
          ck_assert_uint_eq (sim_cluster_fragmented_gpus (c, want), frag);
          ck_assert_uint_eq (sim_cluster_count_nodes_with_free (c, want), count);
          ck_assert_uint_eq (sim_cluster_get_n_free_gpus (c), free_total);
          /* The index of free GPUs: the first node from `from` with `want`
           * free, as a scan finds it. */
          for (guint from = 0; from <= sim_cluster_get_n_nodes (c); from += 7)
            {
              guint first = G_MAXUINT;
              for (guint n = from; n < sim_cluster_get_n_nodes (c) && first == G_MAXUINT; n++)
                if (sim_cluster_get_node (c, n)->free_gpus >= want)
                  first = n;
              ck_assert_uint_eq (sim_cluster_find_node_with_free (c, from, want), first);
            }
        }
    }
  g_ptr_array_unref (held);
}
END_TEST

/* First-fit as a scan of every node (the reference): whole free nodes in
 * order while a node's worth remains, then the first node with room for the
 * rest, each node only if it admits the job. */
static gboolean
first_fit_scan (const SimCluster *c, const SimJob *job, guint32 *out)
{
  guint want = job->spec.gpus, got = 0, n = sim_cluster_get_n_nodes (c);
  g_autofree guint8 *taken = g_new0 (guint8, n);

  if (want > sim_cluster_get_n_free_gpus (c))
    return FALSE;
  if (want > sim_cluster_get_max_gpus_per_node (c))
    for (guint i = 0; i < n && got < want; i++)
      {
        const SimNode *node = sim_cluster_get_node (c, i);
        if (node->free_gpus == node->n_gpus && node->n_gpus <= want - got &&
            sim_place_node_admits (c, i, job, node->n_gpus))
          {
            for (guint g = 0; g < node->n_gpus; g++)
              out[got++] = node->first_gpu + g;
            taken[i] = 1;
          }
      }
  for (guint i = 0; i < n && got < want; i++)
    {
      const SimNode *node = sim_cluster_get_node (c, i);
      guint k = 0;
      if (taken[i] || node->free_gpus < want - got ||
          !sim_place_node_admits (c, i, job, want - got))
        continue;
      for (guint g = 0; g < node->n_gpus && got < want && k < want; g++)
        if (sim_cluster_get_gpu (c, node->first_gpu + g)->n_tenants == 0)
          out[got++] = node->first_gpu + g, k++;
    }
  return got == want;
}

/* First-fit through the index of free GPUs chooses the GPUs a scan of every
 * node chooses: random jobs of 1 to 40 GPUs, half of them asking for an
 * eighth of a node's host memory per GPU, on a cluster where every third
 * node has a quarter of its memory left (it refuses more than 2 of their
 * GPUs however many it has free) and nodes go down and up. */
START_TEST (test_first_fit_against_scan)
{
  g_autoptr(SimCluster) c = sim_cluster_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  const SimNodeModel *m = sim_catalogue_lookup_node (catalogue, "PCIe-8GPU");
  GPtrArray *held = g_ptr_array_new_with_free_func (g_free);
  guint placed = 0, refused = 0;

  guint64 memory;

  ck_assert (sim_cluster_add_pool (c, "a", m, NULL, 8, 37, &error));
  sim_cluster_set_pool_host (c, 0, 0, 1ull << 40);
  memory = sim_cluster_get_node (c, 0)->memory_bytes;
  ck_assert_uint_eq (memory, 1ull << 40);
  /* Every third node has a quarter of its host memory left. */
  for (guint n = 0; n < 37; n += 3)
    ck_assert (sim_cluster_reserve_host (c, n, 0, memory / 4 * 3, &error));
  for (guint step = 0; step < 4000; step++)
    {
      guint r = (guint) g_rand_int_range (rand, 0, 20);
      if (r == 0)
        {
          guint node = (guint) g_rand_int_range (rand, 0, 37);
          sim_cluster_set_node_available (c, node, !sim_cluster_get_node (c, node)->available);
        }
      else if (held->len > 0 && r < 9)
        {
          guint32 *h = g_ptr_array_steal_index (held, g_rand_int_range (rand, 0, (gint) held->len));
          sim_cluster_release (c, h + 1, h[0], 1000);
          g_free (h);
        }
      else
        {
          SimJob j = job_of ((guint) g_rand_int_range (rand, 1, 41), 1000);
          guint32 a[64], b[64];
          SimPlacement p = { a, 0, 0, -1 };
          gboolean ok, ok_scan;
          if (g_rand_int_range (rand, 0, 2) == 0)
            j.spec.memory_bytes = memory / 8 * j.spec.gpus;
          ok = sim_place_first_fit (c, &j, &p);
          ok_scan = first_fit_scan (c, &j, b);
          ck_assert_int_eq (ok, ok_scan);
          if (!ok)
            {
              refused++;
              continue;
            }
          placed++;
          ck_assert_uint_eq (p.n_gpus, j.spec.gpus);
          ck_assert_mem_eq (a, b, p.n_gpus * sizeof (guint32));
          {
            guint32 *h = g_new (guint32, p.n_gpus + 1);
            h[0] = p.n_gpus;
            memcpy (h + 1, a, p.n_gpus * sizeof (guint32));
            ck_assert (sim_cluster_allocate (c, h + 1, p.n_gpus, 1000, &error));
            g_ptr_array_add (held, h);
          }
        }
    }
  /* Both outcomes were exercised. */
  ck_assert_uint_gt (placed, 500);
  ck_assert_uint_gt (refused, 100);
  g_ptr_array_unref (held);
}
END_TEST

/* The nodes outside each partition (what placing inside partitions masks)
 * against a scan of every node's partition: after partitions are set,
 * after a node moves, and after a pool is added (its nodes in partition
 * 0). */
static void
check_outside (SimCluster *c)
{
  for (guint p = 0; p < sim_cluster_get_n_partitions (c) + 1; p++)
    {
      guint n = 0, k = 0;
      const guint32 *outside = sim__cluster_get_nodes_outside (c, p, &n);
      if (p == sim_cluster_get_n_partitions (c))
        {
          ck_assert_uint_eq (n, 0);
          continue;
        }
      for (guint32 i = 0; i < sim_cluster_get_n_nodes (c); i++)
        if (sim_cluster_get_node_partition (c, i) != p)
          {
            ck_assert_uint_lt (k, n);
            ck_assert_uint_eq (outside[k], i);
            k++;
          }
      ck_assert_uint_eq (k, n);
    }
}

START_TEST (test_nodes_outside_partitions)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCluster) c = sim_cluster_new ();
  const SimNodeModel *m = sim_catalogue_lookup_node (catalogue, "DGX-H100");

  ck_assert (sim_cluster_add_pool (c, "own", m, NULL, 0, 6, &error));
  check_outside (c);
  sim_cluster_set_node_partition (c, 4, 1);
  sim_cluster_set_node_partition (c, 5, 1);
  sim_cluster_set_node_partition (c, 1, 2);
  check_outside (c);
  sim_cluster_set_node_partition (c, 1, 0);
  check_outside (c);
  ck_assert (sim_cluster_add_pool (c, "more", m, NULL, 0, 3, &error));
  ck_assert_uint_eq (sim_cluster_get_n_nodes (c), 9);
  ck_assert_uint_eq (sim_cluster_get_node_partition (c, 8), 0);
  check_outside (c);
}
END_TEST


/* The node of a GPU found from the pools' layout (what a job's stop asks
 * the processor to fetch ahead) is the node its record names, over pools
 * of 8, 2, 3 and 1 GPUs per node; out of range is G_MAXUINT. */
START_TEST (test_node_of_from_pools)
{
  g_autoptr(GError) error = NULL;
  const SimNodeModel *dgx = sim_catalogue_lookup_node (catalogue, "DGX-H100");
  const SimNodeModel *pcie = sim_catalogue_lookup_node (catalogue, "PCIe-8GPU");
  SimCluster *c = sim_cluster_new ();
  static const guint per[] = { 0, 2, 3, 1, 8 }, count[] = { 3, 4, 5, 7, 1 };

  for (guint p = 0; p < G_N_ELEMENTS (per); p++)
    {
      g_autofree char *name = g_strdup_printf ("p%u", p);
      ck_assert (sim_cluster_add_pool (c, name, p == 0 ? dgx : pcie, NULL, per[p], count[p],
                                       &error));
    }
  for (guint g = 0; g < sim_cluster_get_n_gpus (c); g++)
    {
      ck_assert_uint_eq (sim__cluster_node_of (c, g), sim_cluster_get_gpu (c, g)->node);
      sim__cluster_prefetch (c, g, sim__cluster_node_of (c, g));
    }
  ck_assert_uint_eq (sim__cluster_node_of (c, sim_cluster_get_n_gpus (c)), G_MAXUINT);
  sim__cluster_prefetch (c, G_MAXUINT, G_MAXUINT);   /* out of range: nothing asked */
  sim_cluster_free (c);
}
END_TEST

/* The free GPUs the cluster keeps per group of a grouping of its nodes
 * (sim__cluster_watch_grouping()) equal a count over the nodes after every
 * step of random allocations (whole and fractional GPUs), releases and
 * nodes drained and brought back, on nodes of 2, 3 and 8 GPUs in 5 groups;
 * a copy of the cluster keeps equal counts; watching again keeps the same
 * counts; and once unwatched the cluster keeps none. */
START_TEST (test_group_free_counts)
{
  const SimNodeModel *pcie = sim_catalogue_lookup_node (catalogue, "PCIe-8GPU");
  g_autoptr(SimCluster) c = sim_cluster_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimNodeGrouping) grouping = NULL;
  static const guint per[] = { 2, 3, 8 };
  guint32 group_of[36];
  const guint32 *kept;
  guint changed = 0;
  g_autoptr(GArray) held = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);  /* gpu, milli */

  for (guint p = 0; p < G_N_ELEMENTS (per); p++)
    ck_assert (sim_cluster_add_pool (c, "p", pcie, NULL, per[p], 12, &error));
  for (guint n = 0; n < 36; n++)
    group_of[n] = g_rand_int_range (rand, 0, 5);
  grouping = sim__node_grouping_new (group_of, 36, 5);
  sim__cluster_watch_grouping (c, grouping);
  kept = sim__cluster_get_group_free (c, grouping);
  ck_assert_ptr_nonnull (kept);
  for (guint step = 0; step < 3000; step++)
    {
      guint gpu = g_rand_int_range (rand, 0, sim_cluster_get_n_gpus (c));
      guint milli = g_rand_boolean (rand) ? 1000 : 250;
      guint32 g32 = gpu, count[5] = { 0 };
      guint before = sim_cluster_get_n_free_gpus (c);
      switch (g_rand_int_range (rand, 0, 10))
        {
        case 0:
          {
            guint n = g_rand_int_range (rand, 0, 36);
            sim_cluster_set_node_available (c, n, !sim_cluster_get_node (c, n)->available);
          }
          break;
        case 1: case 2: case 3: case 4:
          if (held->len > 0)
            {
              guint k = g_rand_int_range (rand, 0, held->len);
              guint32 *x = &g_array_index (held, guint32, 2 * k);
              sim_cluster_release (c, &x[0], 1, x[1]);
              g_array_remove_index_fast (held, k);
            }
          break;
        default:
          if (sim_cluster_allocate (c, &g32, 1, milli, NULL))
            {
              guint32 x[2] = { g32, milli };
              g_array_append_vals (held, x, 1);
            }
          break;
        }
      changed += sim_cluster_get_n_free_gpus (c) != before;
      for (guint n = 0; n < 36; n++)
        count[group_of[n]] += sim_cluster_get_node (c, n)->free_gpus;
      ck_assert_ptr_eq (sim__cluster_get_group_free (c, grouping), kept);
      ck_assert_mem_eq (kept, count, sizeof count);
      if (step % 500 == 0)
        {
          g_autoptr(SimCluster) copy = sim_cluster_copy (c);
          ck_assert_mem_eq (sim__cluster_get_group_free (copy, grouping), count, sizeof count);
        }
    }
  /* The steps changed the free count often enough to mean something. */
  ck_assert_uint_gt (changed, 1000);
  sim__cluster_watch_grouping (c, grouping);
  ck_assert_ptr_eq (sim__cluster_get_group_free (c, grouping), kept);
  sim__cluster_unwatch_grouping (c, grouping);
  ck_assert_ptr_null (sim__cluster_get_group_free (c, grouping));
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("cluster");
  TCase *tc = tcase_create ("allocation");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_pools_numbering);
  tcase_add_test (tc, test_node_availability);
  tcase_add_test (tc, test_no_double_allocation);
  tcase_add_test (tc, test_fractional_sharing);
  tcase_add_test (tc, test_fragmentation_by_hand);
  tcase_add_test (tc, test_placements_by_hand);
  tcase_add_test (tc, test_histogram_against_scan);
  tcase_add_test (tc, test_first_fit_against_scan);
  tcase_add_test (tc, test_nodes_outside_partitions);
  tcase_add_test (tc, test_node_of_from_pools);
  tcase_add_test (tc, test_group_free_counts);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
