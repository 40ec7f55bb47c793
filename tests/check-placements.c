/* check-placements.c: the placements of sim-placements.c and the FGD
 * fragmentation measure.
 *
 * What it checks: on small clusters built by hand, the GPUs each placement
 * (worst-fit, random, packing, clustering, dot-product, fgd) chooses, with
 * the reasoning written beside the expected answer; GPU-model and host
 * CPU/memory constraints; that random is deterministic per seed and close
 * to uniform; the fragmentation F_n(M) of the FGD paper computed by hand;
 * a sequence where FGD keeps a whole GPU free for a whole-GPU task while
 * best-fit breaks it; and, on random clusters and job sequences, that no
 * placement ever returns GPUs without room (sim_cluster_allocate() accepts
 * every placement) and that each placement finds a place exactly when
 * first-fit does; and that best-fit through the cluster's buckets of
 * nodes by free GPUs chooses what a scan of every node chooses, on random
 * clusters with mixed node sizes, GPU models, host limits, drained nodes
 * and partitions; and that first-fit and best-fit through the cluster's
 * indexes (nodes by free GPUs, shared GPUs by room) choose exactly the
 * GPUs that passes over every node and GPU choose, for fractional jobs,
 * jobs in one node and jobs spanning nodes, on random clusters of mixed
 * pools with host limits, GPU-model restrictions, drained nodes and MIG
 * instances, jobs finishing in between, and that the cluster's search for
 * a node with free GPUs, room on a GPU and host CPU and memory answers as
 * a pass over the nodes does, also in a copy of the cluster; that a
 * node's leaf and pod (sim_topology_get_node_group()) are what the links of
 * a two- and a three-tier fat-tree say; and that topology-aware placement,
 * through the free GPUs the cluster keeps per leaf and per pod, chooses
 * exactly the GPUs a plain pass over every node of every group chooses, on
 * a three-tier fat-tree filled and emptied at random, with drained nodes
 * and host limits, in the cluster, in its copy and in a cluster built
 * alike.
 * What it does not check: scheduling over time (check-sched does), the
 * openb experiment, or how good the placements are on real traces.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <sim.h>
#include <string.h>

static SimCatalogue *catalogue;

static const char * const all_placements[] = {
  "worst-fit", "random", "packing", "clustering", "dot-product", "fgd", "consolidate",
};

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

/* NODES nodes of PER GPUs each, of catalogue node MODEL. */
static SimCluster *
make_cluster (const char *model, guint nodes, guint per)
{
  SimCluster *c = sim_cluster_new ();
  const SimNodeModel *m = sim_catalogue_lookup_node (catalogue, model);
  g_autoptr(GError) error = NULL;

  ck_assert_ptr_nonnull (m);
  ck_assert (sim_cluster_add_pool (c, model, m, NULL, per, nodes, &error));
  return c;
}

static SimJob
job_of (guint gpus, guint milli)
{
  static guint64 next_id = 1;
  SimJob j = { 0 };

  j.spec.id = next_id++;
  j.spec.gpus = gpus;
  j.spec.gpu_milli = milli;
  return j;
}

static SimPolicy *
policy_full (const char *placement, guint64 seed, const SimTaskClass *classes, guint n,
             SimPolicyParams *params)
{
  SimPolicySetup setup = { 0 };
  g_autoptr(GError) error = NULL;
  SimPolicy *p;

  setup.seed = seed;
  setup.task_classes = classes;
  setup.n_task_classes = n;
  setup.params = params;
  p = sim_policy_new ("fifo", placement, &setup, &error);
  ck_assert_msg (p != NULL, "%s: %s", placement, error ? error->message : "");
  return p;
}

static SimPolicy *
policy (const char *placement)
{
  return policy_full (placement, 1, NULL, 0, NULL);
}

/* Places JOB; returns the first GPU chosen, or -1 if it does not fit. */
static gint64
place_first (SimPolicy *p, const SimCluster *c, const SimJob *job, guint32 *gpus)
{
  SimPlacement pl = { gpus, 0, 0, -1 };

  if (!sim_policy_place (p, c, job, &pl))
    return -1;
  ck_assert_uint_eq (pl.n_gpus, MAX (job->spec.gpus, 1));
  return gpus[0];
}

static void
take (SimCluster *c, guint32 gpu, guint milli)
{
  g_autoptr(GError) error = NULL;
  ck_assert_msg (sim_cluster_allocate (c, &gpu, 1, milli, &error), "%s", error ? error->message : "");
}

/* Allocates PL for JOB, host share included. */
static void
commit (SimCluster *c, const SimJob *job, const SimPlacement *pl)
{
  g_autoptr(GError) error = NULL;
  guint counts[256] = { 0 };

  ck_assert_msg (sim_cluster_allocate (c, pl->gpus, pl->n_gpus, pl->milli, &error), "%s",
                 error ? error->message : "");
  for (guint i = 0; i < pl->n_gpus; i++)
    counts[sim_cluster_get_gpu (c, pl->gpus[i])->node]++;
  for (guint n = 0; n < sim_cluster_get_n_nodes (c) && n < 256; n++)
    if (counts[n] > 0)
      {
        guint64 cpu, mem;
        sim_job_host_share (job, counts[n], &cpu, &mem);
        ck_assert_msg (sim_cluster_reserve_host (c, n, cpu, mem, &error), "%s",
                       error ? error->message : "");
      }
}

/* Places JOB with P and commits it; returns the first GPU, or -1. */
static gint64
place_commit (SimPolicy *p, SimCluster *c, const SimJob *job)
{
  guint32 gpus[64];
  SimPlacement pl = { gpus, 0, 0, -1 };

  if (!sim_policy_place (p, c, job, &pl))
    return -1;
  commit (c, job, &pl);
  return gpus[0];
}

START_TEST (test_registered)
{
  g_autoptr(GPtrArray) names = sim_policy_list_placements ();

  for (guint i = 0; i < G_N_ELEMENTS (all_placements); i++)
    {
      gboolean found = FALSE;
      for (guint k = 0; k < names->len; k++)
        found |= strcmp (names->pdata[k], all_placements[i]) == 0;
      ck_assert_msg (found, "%s is not registered", all_placements[i]);
      ck_assert_ptr_nonnull (sim_policy_describe_builtin (all_placements[i]));
    }
}
END_TEST

START_TEST (test_worst_fit)
{
  /* Three nodes of 4 GPUs: node 0 has 2 free (GPUs 2, 3), node 1 has 3 free
   * (5, 6, 7), node 2 has 1 free (11). */
  g_autoptr(SimCluster) c = make_cluster ("PCIe-8GPU", 3, 4);
  g_autoptr(SimPolicy) p = policy ("worst-fit");
  guint32 gpus[8];
  SimJob j;

  take (c, 0, 1000);
  take (c, 1, 1000);
  take (c, 4, 1000);
  take (c, 8, 1000);
  take (c, 9, 1000);
  take (c, 10, 1000);
  /* One GPU: node 1 has the most free; its first free GPU is 5. */
  j = job_of (1, 1000);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 5);
  /* Two GPUs: node 1 again, GPUs 5 and 6. */
  j = job_of (2, 1000);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 5);
  ck_assert_uint_eq (gpus[1], 6);
  /* Three GPUs: only node 1 can. */
  j = job_of (3, 1000);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 5);
  /* Four: nobody. */
  j = job_of (4, 1000);
  ck_assert_int_eq (place_first (p, c, &j, gpus), -1);
  /* Fractional: GPU 2 has 300 used (room 700), every free GPU has 1000:
   * the most room is 1000, first at GPU 3. */
  take (c, 2, 300);
  j = job_of (1, 500);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 3);
}
END_TEST

/* A policy's own GPU list, checked by sim_placement_set_gpus(): accepted
 * as given when every GPU has room, refused with what is wrong (and the
 * placement untouched) otherwise. */
START_TEST (test_set_gpus)
{
  g_autoptr(SimCluster) c = make_cluster ("PCIe-8GPU", 2, 4);
  guint32 gpus[8] = { 99, 99, 99, 99 };
  SimPlacement pl = { gpus, 2, 0, -1 }, fresh = { NULL, 0, 0, -1 };
  SimJob two = job_of (2, 1000), half = job_of (1, 500), moldable = job_of (4, 1000);
  static const struct { guint32 gpus[2]; guint n; const char *says; } bad[] = {
    { { 1 }, 1, "takes 2 GPUs; 1 given" },
    { { 2, 8 }, 2, "GPU 8 does not exist" },
    { { 3, 3 }, 2, "GPU 3 is listed twice" },
    { { 0, 2 }, 2, "GPU 0 has 0/1000 free" },
    { { 5, 6 }, 2, "node 1, which is down" },
  };
  const guint32 ok[2] = { 6 - 4, 3 };

  take (c, 0, 1000);
  take (c, 1, 400);
  ck_assert (sim_cluster_set_node_available (c, 1, FALSE));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      ck_assert (!sim_placement_set_gpus (&pl, c, &two, bad[i].gpus, bad[i].n, &error));
      ck_assert_msg (error != NULL && strstr (error->message, bad[i].says) != NULL,
                     "case %u: %s", i, error ? error->message : "no error");
      ck_assert_uint_eq (gpus[0], 99);
      ck_assert_uint_eq (pl.n_gpus, 2);
    }
  {
    g_autoptr(GError) error = NULL;
    ck_assert (!sim_placement_set_gpus (&fresh, c, &two, ok, 2, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  }
  ck_assert (sim_placement_set_gpus (&pl, c, &two, ok, 2, NULL));
  ck_assert_uint_eq (gpus[0], 2);
  ck_assert_uint_eq (gpus[1], 3);
  ck_assert_uint_eq (pl.milli, 1000);
  ck_assert_int_eq (pl.mig_start, -1);

  /* A half GPU fits beside 400/1000 on GPU 1, not beside a whole job on GPU 0. */
  pl.n_gpus = 1;
  ck_assert (sim_placement_set_gpus (&pl, c, &half, (const guint32[]) { 1 }, 1, NULL));
  ck_assert_uint_eq (pl.milli, 500);
  ck_assert (!sim_placement_set_gpus (&pl, c, &half, (const guint32[]) { 0 }, 1, NULL));

  /* A moldable job takes from its minimum to its count. */
  moldable.spec.gpus_min = 2;
  pl.n_gpus = 4;
  ck_assert (sim_placement_set_gpus (&pl, c, &moldable, ok, 2, NULL));
  ck_assert_uint_eq (pl.n_gpus, 2);
  pl.n_gpus = 4;
  ck_assert (!sim_placement_set_gpus (&pl, c, &moldable, ok, 1, NULL));
}
END_TEST

/* A MIG instance a policy chose itself, checked by sim_placement_set_mig()
 * against the GPU's layout without allocating anything. */
START_TEST (test_set_mig)
{
  g_autoptr(SimCluster) c = make_cluster ("DGX-A100", 1, 8);
  guint32 gpus[1] = { 99 };
  SimPlacement pl = { gpus, 1, 0, -1 };
  SimJob small = job_of (1, 1000), large = job_of (1, 1000), whole = job_of (1, 1000);
  static const struct { guint gpu; int start; const char *says; } bad[] = {
    { 8, -1, "GPU 8 does not exist" },
    { 1, -1, "holds whole or fractional jobs" },
    { 0, 5, "GPU 0:" },
  };

  small.spec.mig_profile = (char *) "1g.5gb";
  large.spec.mig_profile = (char *) "3g.20gb";
  take (c, 1, 500);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      ck_assert (!sim_placement_set_mig (&pl, c, &large, bad[i].gpu, bad[i].start, &error));
      ck_assert_msg (error != NULL && strstr (error->message, bad[i].says) != NULL,
                     "case %u: %s", i, error ? error->message : "no error");
      ck_assert_uint_eq (gpus[0], 99);
    }
  {
    g_autoptr(GError) error = NULL;
    ck_assert (!sim_placement_set_mig (&pl, c, &whole, 0, -1, &error));
    ck_assert (strstr (error->message, "no MIG profile") != NULL);
  }
  /* 3g.20gb may start at slice 4; nothing is allocated by the check. */
  ck_assert (sim_placement_set_mig (&pl, c, &large, 0, 4, NULL));
  ck_assert_uint_eq (gpus[0], 0);
  ck_assert_int_eq (pl.mig_start, 4);
  ck_assert_uint_eq (sim_cluster_get_gpu (c, 0)->mig_used, 0);
  /* The first free start, -1: slice 0 for a 1g.5gb on an empty GPU. */
  ck_assert (sim_placement_set_mig (&pl, c, &small, 2, -1, NULL));
  ck_assert_uint_eq (gpus[0], 2);
  ck_assert_int_eq (pl.mig_start, 0);
}
END_TEST

START_TEST (test_random_deterministic_uniform)
{
  g_autoptr(SimCluster) c = make_cluster ("PCIe-8GPU", 4, 4);
  g_autoptr(SimPolicy) a = policy_full ("random", 7, NULL, 0, NULL);
  g_autoptr(SimPolicy) b = policy_full ("random", 7, NULL, 0, NULL);
  g_autoptr(SimPolicy) other = policy_full ("random", 8, NULL, 0, NULL);
  guint node_counts[4] = { 0 }, gpu_counts[16] = { 0 };
  guint differ = 0;
  guint32 ga[1], gb[1], go[1];
  SimJob whole = job_of (1, 1000), frac = job_of (1, 250);

  /* Same seed, same choices; another seed, other choices somewhere. */
  for (guint i = 0; i < 4000; i++)
    {
      gint64 x = place_first (a, c, &whole, ga);
      ck_assert_int_eq (x, place_first (b, c, &whole, gb));
      differ += x != place_first (other, c, &whole, go);
      ck_assert (x >= 0 && x % 4 == 0); /* the node's first GPU */
      node_counts[x / 4]++;
    }
  ck_assert_uint_gt (differ, 0);
  /* 4000 draws over 4 nodes: 1000 expected each, standard deviation about
   * 27; 150 away would be more than 5 sigma. */
  for (guint n = 0; n < 4; n++)
    ck_assert_msg (node_counts[n] > 850 && node_counts[n] < 1150, "node %u: %u", n,
                   node_counts[n]);
  /* Fractional: uniformly over the 16 GPUs (250 expected, sd about 15). */
  for (guint i = 0; i < 4000; i++)
    gpu_counts[place_first (a, c, &frac, ga)]++;
  for (guint g = 0; g < 16; g++)
    ck_assert_msg (gpu_counts[g] > 170 && gpu_counts[g] < 330, "GPU %u: %u", g, gpu_counts[g]);
  /* Only nodes that fit: with nodes 0, 1, 3 full, every draw is node 2. */
  for (guint g = 0; g < 16; g++)
    if (g / 4 != 2)
      take (c, g, 1000);
  for (guint i = 0; i < 50; i++)
    ck_assert_int_eq (place_first (a, c, &whole, ga), 8);
}
END_TEST

START_TEST (test_packing)
{
  /* Node 0 idle; node 1 holds a whole-GPU job on GPU 4; node 2 shares GPU 8
   * (500 used, room 500) and GPU 9 (800 used, room 200). */
  g_autoptr(SimCluster) c = make_cluster ("PCIe-8GPU", 3, 4);
  g_autoptr(SimPolicy) p = policy ("packing");
  guint32 gpus[8];
  SimJob j;

  take (c, 4, 1000);
  take (c, 8, 500);
  take (c, 9, 800);
  /* 200: a shared GPU first, the one with the least room: GPU 9. */
  j = job_of (1, 200);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 9);
  /* 300: GPU 9 lacks room; GPU 8 is the only shared one that fits. */
  j = job_of (1, 300);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 8);
  /* 600: no shared GPU fits: a free GPU on a used node.  Node 1 has 3000
   * thousandths free, node 2 has 500 + 200 + 2000 = 2700: node 2 is more
   * allocated, and its first free GPU is 10. */
  j = job_of (1, 600);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 10);
  /* One whole GPU: the same reasoning, GPU 10. */
  j = job_of (1, 1000);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 10);
  /* Three whole GPUs: node 2 has only 2 whole free; node 1 (used) comes
   * before the idle node 0: GPUs 5, 6, 7. */
  j = job_of (3, 1000);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 5);
  /* Four: only the idle node 0. */
  j = job_of (4, 1000);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 0);
}
END_TEST

START_TEST (test_clustering)
{
  /* The paper's types: a fractional task is of the sharing type, a
   * whole-GPU task of the whole-GPU type, whatever its share or GPU count.
   * Node 0: GPU 0 holds two 250 tasks (sharing only).  Node 1: GPU 4 holds
   * one 500 task, GPU 5 a whole-GPU task (both types).  Node 2 idle. */
  g_autoptr(SimCluster) c = make_cluster ("PCIe-8GPU", 3, 4);
  g_autoptr(SimPolicy) p = policy ("clustering");
  guint32 gpus[8];
  SimJob j;

  take (c, 0, 250);
  take (c, 0, 250);
  take (c, 4, 500);
  take (c, 5, 1000);
  /* 250: node 0 holds only sharing tasks (best band); within it the GPU
   * with the least room that fits, GPU 0 (500 left). */
  j = job_of (1, 250);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 0);
  /* 500: the same type as the 250s, so node 0 again, before node 1 (the
   * type among others), and GPU 0, which has exactly 500 left.  (When the
   * share itself was the type, node 1 won: it holds a 500.) */
  j = job_of (1, 500);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 0);
  /* A whole GPU: node 1 holds a whole-GPU task among others: second band,
   * before idle node 2 and node 0 (only sharing tasks, last); its first
   * free GPU is 6. */
  j = job_of (1, 1000);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 6);
  /* 700: still node 0 (only sharing tasks); GPU 0 has too little room, so
   * the best fit there is its first free GPU, 1.  (When the share was the
   * type, no node held 700s and idle node 2 won.) */
  j = job_of (1, 700);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 1);
  /* Node 0 full of sharing tasks but for GPU 0's room: a 600 goes to
   * node 1, which holds sharing tasks among others, on GPU 6 (GPU 4 has
   * only 500 left). */
  take (c, 1, 1000 - 250);
  take (c, 2, 1000 - 250);
  take (c, 3, 1000 - 250);
  j = job_of (1, 600);
  ck_assert_int_eq (place_first (p, c, &j, gpus), 6);
}
END_TEST

START_TEST (test_dot_product)
{
  /* Two nodes of 4 GPUs, 32 cores and 128 GiB each.  Node 0 runs a job of
   * 2 GPUs, 16 cores and 64 GiB. */
  g_autoptr(SimCluster) c = make_cluster ("PCIe-8GPU", 2, 4);
  g_autoptr(SimPolicyParams) params = sim_policy_params_new ();
  g_autoptr(SimPolicy) max = NULL;
  g_autoptr(SimPolicy) min = NULL;
  g_autoptr(GError) error = NULL;
  guint32 gpus[8];
  guint32 two[] = { 0, 1 };
  SimJob j = job_of (1, 1000);

  sim_cluster_set_pool_host (c, 0, 32000, 128 * (guint64) 1 << 30);
  ck_assert (sim_cluster_allocate (c, two, 2, 1000, &error));
  ck_assert (sim_cluster_reserve_host (c, 0, 16000, 64 * (guint64) 1 << 30, &error));
  /* Job: 1 GPU, 4 cores, 16 GiB.  Node 0: 4/32 x 16/32 + 16/128 x 64/128
   * + 1/4 x 2/4 = 0.0625 + 0.0625 + 0.125 = 0.25.  Node 1: 0.125 + 0.125
   * + 0.25 = 0.5.  The largest (Tetris) is node 1, GPU 4; the smallest,
   * node 0, GPU 2. */
  j.spec.cpu_milli = 4000;
  j.spec.memory_bytes = 16 * (guint64) 1 << 30;
  max = policy ("dot-product");
  ck_assert_int_eq (place_first (max, c, &j, gpus), 4);
  sim_policy_params_set (params, "dot_product", "min");
  min = policy_full ("dot-product", 1, NULL, 0, params);
  ck_assert_int_eq (place_first (min, c, &j, gpus), 2);
  /* A bad value is refused. */
  sim_policy_params_set (params, "dot_product", "median");
  {
    SimPolicySetup setup = { 0 };
    setup.params = params;
    ck_assert_ptr_null (sim_policy_new ("fifo", "dot-product", &setup, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  }
}
END_TEST

START_TEST (test_constraints)
{
  /* Pool 0: one A10 node (GPUs 0-3, 16 cores); pool 1: one H100 node
   * (GPUs 4-7, 64 cores).  A job that asks for H100, and a job that needs
   * 20 cores, can go only to the H100 node, whatever the placement. */
  g_autoptr(SimCluster) c = sim_cluster_new ();
  g_autoptr(GError) error = NULL;
  guint32 gpus[8];

  ck_assert (sim_cluster_add_pool (c, "a", sim_catalogue_lookup_node (catalogue, "PCIe-8GPU"), NULL,
                                   4, 1, &error));
  ck_assert (sim_cluster_add_pool (c, "h", sim_catalogue_lookup_node (catalogue, "DGX-H100"), NULL,
                                   4, 1, &error));
  sim_cluster_set_pool_host (c, 0, 16000, 0);
  sim_cluster_set_pool_host (c, 1, 64000, 0);
  for (guint i = 0; i < G_N_ELEMENTS (all_placements); i++)
    {
      g_autoptr(SimPolicy) p = policy (all_placements[i]);
      SimJob model = job_of (1, 1000), frac = job_of (1, 300), cpu = job_of (2, 1000);
      gint64 g;

      model.spec.gpu_models = g_intern_string ("H100-SXM");
      frac.spec.gpu_models = model.spec.gpu_models;
      cpu.spec.cpu_milli = 20000;
      g = place_first (p, c, &model, gpus);
      ck_assert_msg (g >= 4 && g < 8, "%s: %" G_GINT64_FORMAT, all_placements[i], g);
      g = place_first (p, c, &frac, gpus);
      ck_assert_msg (g >= 4 && g < 8, "%s: %" G_GINT64_FORMAT, all_placements[i], g);
      g = place_first (p, c, &cpu, gpus);
      ck_assert_msg (g >= 4 && g < 8, "%s: %" G_GINT64_FORMAT, all_placements[i], g);
      cpu.spec.cpu_milli = 70000;
      ck_assert_int_eq (place_first (p, c, &cpu, gpus), -1);
    }
}
END_TEST

/* The cluster of the fragmentation test: three nodes of 4 GPUs, 8 cores
 * each.  Node 0: GPU 0 has 300 used (700 free), GPU 1 full, GPUs 2 and 3
 * free.  Node 1: GPUs 4-6 full, GPU 7 has 600 used (400 free).  Node 2
 * idle. */
static SimCluster *
fragmentation_cluster (void)
{
  SimCluster *c = make_cluster ("PCIe-8GPU", 3, 4);

  sim_cluster_set_pool_host (c, 0, 8000, 0);
  take (c, 0, 300);
  take (c, 1, 1000);
  take (c, 4, 1000);
  take (c, 5, 1000);
  take (c, 6, 1000);
  take (c, 7, 600);
  return c;
}

START_TEST (test_fragmentation_by_hand)
{
  g_autoptr(SimCluster) c = fragmentation_cluster ();
  /* A: 1 GPU x 500, weight 2.  B: 2 whole GPUs, weight 1.  C: 1 whole GPU
   * and 9 cores (more than a node has), weight 1.  D: 1 whole H100, which
   * this cluster does not have, weight 4.  E: 16 whole GPUs (more than a
   * node), weight 1. */
  SimTaskClass cls[5] = {
    { 1, 500, 0, 0, NULL, 2 },
    { 2, 1000, 0, 0, NULL, 1 },
    { 1, 1000, 9000, 0, NULL, 1 },
    { 1, 1000, 0, 0, NULL, 4 },
    { 16, 1000, 0, 0, NULL, 1 },
  };

  cls[3].gpu_models = g_intern_string ("H100-SXM");
  /* With A, B, C (weights 2, 1, 1; sum 4), in thousandths:
   * node 0: free 700 + 0 + 1000 + 1000 = 2700.  A fits (a GPU has 1000
   *   room) and cannot use GPU 1 (0 free): 0.  B fits (2 whole free) and
   *   cannot use the partly used GPU 0: 700.  C cannot run: 2700.
   *   F = (2 x 0 + 700 + 2700) / 4 = 850.
   * node 1: free 400.  A: no GPU has 500: 400.  B: no whole GPU: 400.
   *   C: 400.  F = (800 + 400 + 400) / 4 = 400.
   * node 2: free 4000.  A: 0.  B: 0.  C: 4000.  F = 4000 / 4 = 1000.
   * Cluster: 2250 thousandths = 2.25 GPUs. */
  ck_assert_double_eq_tol (sim_fgd_node_fragmentation (c, 0, cls, 3), 0.85, 1e-12);
  ck_assert_double_eq_tol (sim_fgd_node_fragmentation (c, 1, cls, 3), 0.4, 1e-12);
  ck_assert_double_eq_tol (sim_fgd_node_fragmentation (c, 2, cls, 3), 1.0, 1e-12);
  ck_assert_double_eq_tol (sim_fgd_cluster_fragmentation (c, cls, 3), 2.25, 1e-12);
  /* Adding D (weight 4; sum 8): D can use nothing anywhere.
   * node 0: (3400 + 4 x 2700) / 8 = 1775; node 1: (1600 + 4 x 400) / 8 =
   * 400; node 2: (4000 + 4 x 4000) / 8 = 2500.  Sum 4.675 GPUs. */
  ck_assert_double_eq_tol (sim_fgd_cluster_fragmentation (c, cls, 4), 4.675, 1e-12);
  /* E alone: it can use a node only whole.  Node 0 is partly used: 2700;
   * node 1: 400; idle node 2: 0.  3.1 GPUs. */
  ck_assert_double_eq_tol (sim_fgd_cluster_fragmentation (c, cls + 4, 1), 3.1, 1e-12);
  /* No task types, or zero weights: nothing to measure against. */
  ck_assert_double_eq (sim_fgd_cluster_fragmentation (c, NULL, 0), 0);
  /* A full cluster has no fragment. */
  for (guint g = 0; g < 12; g++)
    {
      guint room = SIM_GPU_WHOLE - sim_cluster_get_gpu (c, g)->used_milli;
      if (room > 0)
        take (c, g, room);
    }
  ck_assert_double_eq (sim_fgd_cluster_fragmentation (c, cls, 5), 0);
}
END_TEST

START_TEST (test_fgd_keeps_whole_gpu)
{
  /* Three one-GPU nodes with 600, 900 and 1000 thousandths free.  The
   * workload is half 0.5-GPU tasks, half whole-GPU tasks.  Tasks of 0.4,
   * 0.5 and 0.5 GPU arrive, then a whole-GPU task.
   *
   * Best-fit takes the least room each time: 0.4 on GPU 0 (200 left), 0.5
   * on GPU 1 (400 left), and the second 0.5 must break GPU 2 (500 left):
   * the whole-GPU task then finds no GPU.
   *
   * FGD, for 0.4 (F per node in thousandths, p = 0.5 each type):
   *   GPU 0: 600 -> 200: F 300 -> 200 (whole 100 + half 100), -100
   *   GPU 1: 900 -> 500: F 450 -> 250 (whole only), -200
   *   GPU 2: 1000 -> 600: F 0 -> 300, +300
   * so GPU 1 (500 left, still usable by a 0.5 task).  Then 0.5: GPU 1 to
   * 0 (-250) beats GPU 0 to 100 (-200) and GPU 2 (+250); then 0.5 on GPU 0
   * (-200).  GPU 2 stays whole, and the whole-GPU task runs there. */
  SimTaskClass cls[2] = { { 1, 500, 0, 0, NULL, 1 }, { 1, 1000, 0, 0, NULL, 1 } };
  g_autoptr(SimCluster) bf = make_cluster ("PCIe-8GPU", 3, 1);
  g_autoptr(SimCluster) fg = make_cluster ("PCIe-8GPU", 3, 1);
  g_autoptr(SimPolicy) best = policy ("best-fit");
  g_autoptr(SimPolicy) fgd = policy_full ("fgd", 1, cls, 2, NULL);
  const guint sizes[4] = { 400, 500, 500, 1000 };
  const gint64 want_bf[4] = { 0, 1, 2, -1 };
  const gint64 want_fgd[4] = { 1, 1, 0, 2 };

  take (bf, 0, 400);
  take (bf, 1, 100);
  take (fg, 0, 400);
  take (fg, 1, 100);
  ck_assert_double_eq_tol (sim_fgd_cluster_fragmentation (fg, cls, 2), 0.75, 1e-12);
  for (guint i = 0; i < 4; i++)
    {
      SimJob j = job_of (1, sizes[i]);
      ck_assert_int_eq (place_commit (best, bf, &j), want_bf[i]);
      ck_assert_int_eq (place_commit (fgd, fg, &j), want_fgd[i]);
      if (i == 2)
        {
          /* Best-fit: 200, 400, 500 free: (100 + 100) + (200 + 200) +
           * (250 + 0) = 850.  FGD: 100, 0, 1000: 50 + 50 = 100. */
          ck_assert_double_eq_tol (sim_fgd_cluster_fragmentation (bf, cls, 2), 0.85, 1e-12);
          ck_assert_double_eq_tol (sim_fgd_cluster_fragmentation (fg, cls, 2), 0.1, 1e-12);
        }
    }
}
END_TEST

START_TEST (test_fgd_whole_and_learning)
{
  /* Two nodes of 4 GPUs: node 0 has GPU 0 used (3 free), node 1 GPUs 4
   * and 5 (2 free).  For a 1-GPU task, best-fit takes node 1 (fewest free),
   * leaving single GPUs on both nodes.  Against a workload of 2-GPU tasks,
   * FGD sees node 0 going from 3 free to 2 (still usable: +0) and node 1
   * from 2 to 1 (unusable: +1000), and takes node 0, GPU 1. */
  SimTaskClass two = { 2, 1000, 0, 0, NULL, 1 };
  g_autoptr(SimCluster) c = make_cluster ("PCIe-8GPU", 2, 4);
  g_autoptr(SimPolicy) fgd = policy_full ("fgd", 1, &two, 1, NULL);
  g_autoptr(SimPolicy) learner = policy ("fgd");
  guint32 gpus[8];
  SimJob one = job_of (1, 1000), pair = job_of (2, 1000);

  take (c, 0, 1000);
  take (c, 4, 1000);
  take (c, 5, 1000);
  ck_assert (sim_place_best_fit (c, &one, &(SimPlacement){ gpus, 0, 0, -1 }));
  ck_assert_uint_eq (gpus[0], 6);
  ck_assert_int_eq (place_first (fgd, c, &one, gpus), 1);
  /* Without classes, FGD learns from the jobs it sees.  First a 2-GPU job:
   * the workload is {2 GPUs}; node 0 would keep 1 free (+1000), node 1
   * none (+0): node 1, GPUs 6, 7. */
  ck_assert_int_eq (place_first (learner, c, &pair, gpus), 6);
  /* Then a 1-GPU job: the workload is {2 GPUs: 1, 1 GPU: 1}.  Node 0: 3 ->
   * 2 free, both types still fit: +0.  Node 1: 2 -> 1 free, the 2-GPU type
   * no longer fits: +1000.  Node 0, GPU 1.  Asking again for the same job
   * does not count it twice. */
  ck_assert_int_eq (place_first (learner, c, &one, gpus), 1);
  ck_assert_int_eq (place_first (learner, c, &one, gpus), 1);
}
END_TEST

START_TEST (test_multi_node)
{
  /* Four nodes of 4 GPUs; node 1 has GPU 4 used.  A 10-GPU job takes
   * whole free nodes in order while a node's worth remains: node 0 (4),
   * node 2 (4), then node 3 would be too many, so the remaining 2 go on
   * node 1 or node 3, as the placement prefers.  16 GPUs never fit (15
   * are free). */
  g_autoptr(SimCluster) c = make_cluster ("PCIe-8GPU", 4, 4);
  guint32 gpus[16];

  take (c, 4, 1000);
  for (guint i = 0; i < G_N_ELEMENTS (all_placements); i++)
    {
      g_autoptr(SimPolicy) p = policy (all_placements[i]);
      SimPlacement pl = { gpus, 0, 0, -1 };
      SimJob j = job_of (10, 1000);
      guint on_node[4] = { 0 };

      ck_assert (sim_policy_place (p, c, &j, &pl));
      ck_assert_uint_eq (pl.n_gpus, 10);
      for (guint k = 0; k < 10; k++)
        on_node[gpus[k] / 4]++;
      ck_assert_uint_eq (on_node[0], 4);
      ck_assert_uint_eq (on_node[2], 4);
      ck_assert_uint_eq (on_node[1] + on_node[3], 2);
      j = job_of (16, 1000);
      ck_assert (!sim_policy_place (p, c, &j, &pl));
    }
}
END_TEST

typedef struct {
  SimJob  job;
  guint32 gpus[16];
  SimPlacement pl;
} Running;

/* Random clusters and jobs: every placement agrees with first-fit on
 * whether a job fits, and what it returns is always accepted. */
START_TEST (test_random_invariant)
{
  for (guint pi = 0; pi < G_N_ELEMENTS (all_placements); pi++)
    for (guint64 seed = 1; seed <= 3; seed++)
      {
        g_autoptr(SimCluster) c = sim_cluster_new ();
        g_autoptr(GError) error = NULL;
        g_autoptr(GRand) rand = g_rand_new_with_seed ((guint32) (seed * 31 + pi));
        g_autoptr(SimPolicy) p = policy_full (all_placements[pi], seed, NULL, 0, NULL);
        GArray *running = g_array_new (FALSE, FALSE, sizeof (Running));
        const char *h100 = g_intern_string ("H100-SXM");
        const char *a100 = g_intern_string ("A100-SXM-40GB|A10");
        guint fits = 0;

        ck_assert (sim_cluster_add_pool (c, "a", sim_catalogue_lookup_node (catalogue, "PCIe-8GPU"),
                                         NULL, 4, 4, &error));
        ck_assert (sim_cluster_add_pool (c, "h", sim_catalogue_lookup_node (catalogue, "DGX-H100"),
                                         NULL, 8, 3, &error));
        ck_assert (sim_cluster_add_pool (c, "m", sim_catalogue_lookup_node (catalogue, "DGX-A100"),
                                         NULL, 2, 2, &error));
        sim_cluster_set_pool_host (c, 0, 16000, 64 * (guint64) 1 << 30);
        sim_cluster_set_pool_host (c, 1, 64000, 256 * (guint64) 1 << 30);
        /* GPU 40 (pool m) in MIG mode: no placement may return it. */
        ck_assert_int_ge (sim_cluster_mig_allocate (c, 40, 0, -1, &error), 0);

        for (guint step = 0; step < 400; step++)
          {
            if (running->len > 0 && g_rand_int_range (rand, 0, 3) == 0)
              {
                guint k = g_rand_int_range (rand, 0, running->len);
                Running *r = &g_array_index (running, Running, k);
                guint counts[16] = { 0 };
                /* The array moves its elements: use the copy's own buffer. */
                sim_cluster_release (c, r->gpus, r->pl.n_gpus, r->pl.milli);
                for (guint i = 0; i < r->pl.n_gpus; i++)
                  counts[sim_cluster_get_gpu (c, r->gpus[i])->node]++;
                for (guint n = 0; n < 16; n++)
                  if (counts[n] > 0)
                    {
                      guint64 cpu, mem;
                      sim_job_host_share (&r->job, counts[n], &cpu, &mem);
                      sim_cluster_release_host (c, n, cpu, mem);
                    }
                g_array_remove_index_fast (running, k);
                continue;
              }
            {
              static const guint sizes[] = { 1, 1, 1, 2, 4, 8, 12 };
              Running r = { 0 };
              guint32 ff[16];
              SimPlacement ffp = { ff, 0, 0, -1 };
              gboolean ok, ok_ff;
              guint x = g_rand_int_range (rand, 0, 10);

              r.job = x < 4 ? job_of (1, 100 * g_rand_int_range (rand, 1, 10))
                            : job_of (sizes[g_rand_int_range (rand, 0, G_N_ELEMENTS (sizes))],
                                      1000);
              r.job.spec.cpu_milli = 1000 * g_rand_int_range (rand, 0, 9);
              r.job.spec.memory_bytes = (guint64) g_rand_int_range (rand, 0, 32) << 30;
              if (x == 8)
                r.job.spec.gpu_models = h100;
              else if (x == 9)
                r.job.spec.gpu_models = a100;
              r.pl.gpus = r.gpus;
              ok = sim_policy_place (p, c, &r.job, &r.pl);
              ok_ff = sim_place_first_fit (c, &r.job, &ffp);
              ck_assert_msg (ok == ok_ff, "%s, step %u: %s where first-fit %s", all_placements[pi],
                             step, ok ? "placed" : "refused", ok_ff ? "placed" : "refused");
              if (!ok)
                continue;
              fits++;
              ck_assert_uint_eq (r.pl.n_gpus, r.job.spec.gpus);
              ck_assert_uint_eq (r.pl.milli, r.job.spec.gpu_milli);
              for (guint i = 0; i < r.pl.n_gpus; i++)
                {
                  const SimGpu *g = sim_cluster_get_gpu (c, r.pl.gpus[i]);
                  ck_assert_uint_eq (g->mig_used, 0);
                  ck_assert (sim_cluster_node_allows (c, g->node, r.job.spec.gpu_models));
                }
              commit (c, &r.job, &r.pl);
              g_array_append_val (running, r);
            }
          }
        ck_assert_uint_gt (fits, 50);
        g_array_unref (running);
      }
}
END_TEST

/* Best-fit by brute force: over the nodes of partition @part (all nodes
 * if @part is negative) that are in service, the one with the fewest free
 * GPUs, at least @want, that admits JOB, ties to the lowest number;
 * G_MAXUINT if none.  What choose_node() did before best-fit had an
 * index. */
static guint
best_fit_reference (const SimCluster *c, const SimJob *job, guint want, gint part)
{
  guint chosen = G_MAXUINT;

  for (guint i = 0; i < sim_cluster_get_n_nodes (c); i++)
    {
      const SimNode *node = sim_cluster_get_node (c, i);
      if (!node->available || node->free_gpus < want ||
          (part >= 0 && sim_cluster_get_node_partition (c, i) != (guint) part) ||
          !sim_place_node_admits (c, i, job, want))
        continue;
      if (chosen == G_MAXUINT || node->free_gpus < sim_cluster_get_node (c, chosen)->free_gpus)
        chosen = i;
    }
  return chosen;
}

/* The buckets of nodes by free GPUs against a scan, from every start. */
static void
check_buckets (const SimCluster *c, GRand *rand)
{
  guint n = sim_cluster_get_n_nodes (c);

  for (guint k = 0; k < 8; k++)
    {
      guint f = g_rand_int_range (rand, 1, sim_cluster_get_max_gpus_per_node (c) + 2);
      guint from = g_rand_int_range (rand, 0, n + 2);
      guint want = G_MAXUINT;

      for (guint i = from; i < n && want == G_MAXUINT; i++)
        if (sim_cluster_get_node (c, i)->free_gpus == f)
          want = i;
      ck_assert_uint_eq (sim_cluster_find_node_with_free_exactly (c, from, f), want);
    }
}

/* Best-fit through the cluster's buckets chooses, on random clusters of
 * mixed node sizes and GPU models with host limits, drained nodes and
 * partitions, exactly the node (and GPUs) the scan it replaced chose. */
START_TEST (test_best_fit_index)
{
  static const char * const models[] = { "PCIe-8GPU", "DGX-H100", "DGX-A100" };
  static const guint node_sizes[] = { 1, 2, 3, 4, 6, 8, 16 };
  const char *h100 = g_intern_string ("H100-SXM");
  const char *a100 = g_intern_string ("A100-SXM-40GB|A10");

  for (guint64 seed = 1; seed <= 12; seed++)
    {
      g_autoptr(SimCluster) c = sim_cluster_new ();
      g_autoptr(GRand) rand = g_rand_new_with_seed ((guint32) seed);
      g_autoptr(SimPolicy) p = policy ("best-fit");
      GArray *running = g_array_new (FALSE, FALSE, sizeof (Running));
      guint n_pools = g_rand_int_range (rand, 1, 5), n_nodes, compared = 0;
      gboolean parts = seed % 3 == 0;

      for (guint pool = 0; pool < n_pools; pool++)
        {
          g_autoptr(GError) error = NULL;
          guint size = node_sizes[g_rand_int_range (rand, 0, G_N_ELEMENTS (node_sizes))];
          /* Seed 1 has over 4,096 nodes: three levels of buckets. */
          guint count = seed == 1 && pool == 0 ? 4200 : g_rand_int_range (rand, 1, 90);

          ck_assert (sim_cluster_add_pool (c, "p", sim_catalogue_lookup_node (
                                             catalogue, models[g_rand_int_range (rand, 0, 3)]),
                                           NULL, size, count, &error));
          if (g_rand_boolean (rand))
            sim_cluster_set_pool_host (c, pool, 1000 * g_rand_int_range (rand, 8, 65),
                                       (guint64) g_rand_int_range (rand, 32, 257) << 30);
        }
      n_nodes = sim_cluster_get_n_nodes (c);
      if (parts)
        for (guint i = 0; i < n_nodes; i++)
          sim_cluster_set_node_partition (c, i, (guint8) g_rand_int_range (rand, 0, 3));

      for (guint step = 0; step < 600; step++)
        {
          guint x = g_rand_int_range (rand, 0, 12);

          if (x == 0)
            {
              /* Drain a node, or put it back. */
              guint i = g_rand_int_range (rand, 0, n_nodes);
              sim_cluster_set_node_available (c, i, !sim_cluster_get_node (c, i)->available);
            }
          else if (running->len > 0 && x < 4)
            {
              guint k = g_rand_int_range (rand, 0, running->len);
              Running *r = &g_array_index (running, Running, k);
              guint node = sim_cluster_get_gpu (c, r->gpus[0])->node;
              guint64 cpu, mem;

              sim_cluster_release (c, r->gpus, r->pl.n_gpus, r->pl.milli);
              sim_job_host_share (&r->job, r->pl.n_gpus, &cpu, &mem);
              sim_cluster_release_host (c, node, cpu, mem);
              g_array_remove_index_fast (running, k);
            }
          else
            {
              Running r = { 0 };
              guint max = sim_cluster_get_max_gpus_per_node (c);
              guint want_node = G_MAXUINT, got_node;
              gboolean ok;

              r.job = x == 4 ? job_of (1, 100 * g_rand_int_range (rand, 1, 10))
                             : job_of (g_rand_int_range (rand, 1, max + 1), 1000);
              r.job.spec.cpu_milli = 1000 * g_rand_int_range (rand, 0, 12);
              r.job.spec.memory_bytes = (guint64) g_rand_int_range (rand, 0, 48) << 30;
              if (x == 10)
                r.job.spec.gpu_models = h100;
              else if (x == 11)
                r.job.spec.gpu_models = a100;
              r.pl.gpus = r.gpus;
              if (r.job.spec.gpu_milli == 1000)
                {
                  guint want = r.job.spec.gpus;
                  if (parts && want > 1)
                    for (guint part = 0; part < sim_cluster_get_n_partitions (c) &&
                                         want_node == G_MAXUINT; part++)
                      want_node = best_fit_reference (c, &r.job, want, (gint) part);
                  else
                    want_node = best_fit_reference (c, &r.job, want, -1);
                }
              ok = sim_policy_place (p, c, &r.job, &r.pl);
              if (r.job.spec.gpu_milli == 1000)
                {
                  got_node = ok ? sim_cluster_get_gpu (c, r.gpus[0])->node : G_MAXUINT;
                  ck_assert_msg (got_node == want_node, "seed %" G_GUINT64_FORMAT ", step %u: "
                                 "%u GPUs on node %u, the scan chose %u", seed, step,
                                 r.job.spec.gpus, got_node, want_node);
                  if (ok)
                    {
                      const SimNode *node = sim_cluster_get_node (c, got_node);
                      guint t = 0;

                      /* The lowest-numbered free GPUs of that node. */
                      for (guint g = 0; g < node->n_gpus && t < r.pl.n_gpus; g++)
                        if (sim_cluster_get_gpu (c, node->first_gpu + g)->n_tenants == 0)
                          ck_assert_uint_eq (r.gpus[t++], node->first_gpu + g);
                      ck_assert_uint_eq (t, r.job.spec.gpus);
                    }
                  compared++;
                }
              if (ok)
                {
                  commit (c, &r.job, &r.pl);
                  g_array_append_val (running, r);
                }
            }
          check_buckets (c, rand);
        }
      {
        g_autoptr(SimCluster) copy = sim_cluster_copy (c);
        check_buckets (copy, rand);
      }
      ck_assert_uint_gt (compared, 300);
      g_array_unref (running);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* First-fit and best-fit against the passes over every node and GPU they
 * replaced, written out here. */

/* The node for WANT GPUs of JOB by a pass over the nodes, skipping those
 * marked in SKIP: the first that fits and admits the job, or (BEST) the
 * one with the fewest free GPUs, ties to the lowest number. */
static const SimNode *
pass_choose_node (const SimCluster *c, const SimJob *job, guint want, guint mode,
                  const guint8 *skip)
{
  const SimNode *chosen = NULL;

  for (guint i = 0; i < sim_cluster_get_n_nodes (c); i++)
    {
      const SimNode *node = sim_cluster_get_node (c, i);
      if (node->free_gpus < want || skip[i] || !sim_place_node_admits (c, i, job, want))
        continue;
      if (mode == 0)
        return node;
      if (chosen == NULL || (mode == 1 && node->free_gpus < chosen->free_gpus) ||
          (mode == 2 && node->free_gpus > chosen->free_gpus))
        chosen = node;
    }
  return chosen;
}

static guint
pass_take (const SimCluster *c, const SimNode *node, guint want, guint32 *out)
{
  guint got = 0;

  for (guint g = 0; g < node->n_gpus && got < want; g++)
    if (sim_cluster_get_gpu (c, node->first_gpu + g)->n_tenants == 0)
      out[got++] = node->first_gpu + g;
  return got;
}

/* First-fit (MODE 0), best-fit (1) or worst-fit (2) of JOB by passes over
 * every node and GPU; the GPUs chosen in OUT, their number returned (0:
 * refused). */
static guint
pass_place (const SimCluster *c, const SimJob *job, guint mode, guint32 *out)
{
  guint want = job->spec.gpus, milli = job->spec.gpu_milli, got = 0;
  g_autofree guint8 *skip = g_new0 (guint8, sim_cluster_get_n_nodes (c));
  const SimNode *node;

  if (milli < 1000)
    {
      gint64 chosen = -1;
      guint chosen_room = G_MAXUINT;

      if (want != 1)
        return 0;
      for (guint i = 0; i < sim_cluster_get_n_gpus (c); i++)
        {
          const SimGpu *g = sim_cluster_get_gpu (c, i);
          guint room = 1000 - g->used_milli;
          if (room < milli || g->mig_used != 0 || !sim_place_node_admits (c, g->node, job, 1))
            continue;
          if (chosen < 0 || (mode == 1 && room < chosen_room) ||
              (mode == 2 && room > chosen_room))
            {
              chosen = i;
              chosen_room = room;
            }
          if (mode == 0)
            break;
        }
      if (chosen < 0)
        return 0;
      out[0] = (guint32) chosen;
      return 1;
    }
  if (want > sim_cluster_get_max_gpus_per_node (c))
    for (guint i = 0; i < sim_cluster_get_n_nodes (c) && got < want; i++)
      {
        node = sim_cluster_get_node (c, i);
        if (node->free_gpus == node->n_gpus && node->n_gpus <= want - got &&
            sim_place_node_admits (c, i, job, node->n_gpus))
          {
            got += pass_take (c, node, node->n_gpus, out + got);
            skip[i] = 1;
          }
      }
  if (got < want)
    {
      node = pass_choose_node (c, job, want - got, mode, skip);
      if (node == NULL)
        return 0;
      got += pass_take (c, node, want - got, out + got);
    }
  return got;
}

typedef struct {
  SimJob  job;
  guint32 gpus[64];
  guint   n_gpus;
  guint   milli;
} Held;

/* Reserves or releases (@on) JOB's host share on the nodes of GPUS. */
static void
held_host (SimCluster *c, const SimJob *job, const guint32 *gpus, guint n, gboolean on)
{
  for (guint i = 0; i < n; i++)
    {
      guint node = sim_cluster_get_gpu (c, gpus[i])->node, here = 0;
      gboolean first = TRUE;
      guint64 cpu, mem;

      for (guint k = 0; k < n; k++)
        if (sim_cluster_get_gpu (c, gpus[k])->node == node)
          {
            first &= k >= i;
            here++;
          }
      if (!first)
        continue;
      sim_job_host_share (job, here, &cpu, &mem);
      if (on)
        ck_assert (sim_cluster_reserve_host (c, node, cpu, mem, NULL));
      else
        sim_cluster_release_host (c, node, cpu, mem);
    }
}

/* The cluster's search for a fitting node (free GPUs, room on one GPU,
 * host CPU and memory) against a pass over the nodes and their GPUs, from
 * random starts and for random needs. */
static void
check_fitting (const SimCluster *c, GRand *rand)
{
  guint n = sim_cluster_get_n_nodes (c);

  for (guint k = 0; k < 12; k++)
    {
      guint free = g_rand_int_range (rand, 0, 4) == 0 ? g_rand_int_range (rand, 0, 10) : 0;
      guint room = g_rand_boolean (rand) ? g_rand_int_range (rand, 0, 1001) : 0;
      guint64 cpu = g_rand_boolean (rand) ? 1000 * (guint64) g_rand_int_range (rand, 0, 40) : 0;
      guint64 mem = g_rand_boolean (rand) ? (guint64) g_rand_int_range (rand, 0, 200) << 30 : 0;
      guint from = g_rand_int_range (rand, 0, n + 2);
      guint want = G_MAXUINT;

      for (guint i = from; i < n && want == G_MAXUINT; i++)
        {
          const SimNode *node = sim_cluster_get_node (c, i);
          guint most = 0;

          for (guint g = node->first_gpu; g < node->first_gpu + node->n_gpus; g++)
            {
              const SimGpu *gpu = sim_cluster_get_gpu (c, g);
              if (gpu->mig_used == 0)
                most = MAX (most, 1000 - gpu->used_milli);
            }
          if (node->free_gpus >= free && most >= room &&
              sim_cluster_node_fits_host (c, i, cpu, mem))
            want = i;
        }
      ck_assert_uint_eq (sim_cluster_find_node_fitting (c, from, free, room, cpu, mem), want);
    }
}

/* Many random jobs (whole, spanning nodes, fractional; with host CPU and
 * memory, and GPU models that some pools lack) on random clusters of mixed
 * pools, with jobs finishing, nodes drained and put back and MIG instances
 * made and removed in between: first-fit, best-fit and worst-fit through
 * the cluster's indexes choose exactly the GPUs the passes choose. */
START_TEST (test_indexed_against_passes)
{
  static const char * const models[] = { "PCIe-8GPU", "DGX-H100", "DGX-A100" };
  static const guint node_sizes[] = { 1, 2, 4, 8, 8, 16 };
  const char *h100 = g_intern_string ("H100-SXM");
  const char *a100 = g_intern_string ("A100-SXM-40GB|A10");
  guint compared[3][3] = { { 0 } }, refused = 0;
  g_autoptr(SimPolicy) worst = policy ("worst-fit");

  for (guint64 seed = 1; seed <= 10; seed++)
    {
      g_autoptr(SimCluster) c = sim_cluster_new ();
      g_autoptr(GRand) rand = g_rand_new_with_seed ((guint32) (seed * 7919));
      GArray *running = g_array_new (FALSE, FALSE, sizeof (Held));
      GArray *migs = g_array_new (FALSE, FALSE, sizeof (guint32) * 3);
      guint n_pools = g_rand_int_range (rand, 1, 5), n_nodes, n_gpus, max;
      /* Half the seeds have nodes of one size (each pool the same). */
      guint one_size = seed % 2 == 0 ? node_sizes[g_rand_int_range (rand, 0, 6)] : 0;

      for (guint pool = 0; pool < n_pools; pool++)
        {
          g_autoptr(GError) error = NULL;
          guint size = one_size ? one_size : node_sizes[g_rand_int_range (rand, 0, 6)];

          ck_assert (sim_cluster_add_pool (c, "p", sim_catalogue_lookup_node (
                                             catalogue, models[g_rand_int_range (rand, 0, 3)]),
                                           NULL, size, g_rand_int_range (rand, 1, 60), &error));
          if (g_rand_int_range (rand, 0, 3) != 0)
            sim_cluster_set_pool_host (c, pool, 1000 * g_rand_int_range (rand, 8, 65),
                                       (guint64) g_rand_int_range (rand, 32, 257) << 30);
        }
      n_nodes = sim_cluster_get_n_nodes (c);
      n_gpus = sim_cluster_get_n_gpus (c);
      max = sim_cluster_get_max_gpus_per_node (c);

      for (guint step = 0; step < 1500; step++)
        {
          guint x = g_rand_int_range (rand, 0, 40);

          if (x == 0)
            {
              guint i = g_rand_int_range (rand, 0, n_nodes);
              sim_cluster_set_node_available (c, i, !sim_cluster_get_node (c, i)->available);
            }
          else if (x == 1)
            {
              /* A MIG instance on a free GPU or one in MIG mode (where the
               * model has MIG), or one removed. */
              guint32 m[3];
              m[0] = g_rand_int_range (rand, 0, n_gpus);
              m[1] = 0;
              if (migs->len > 0 && g_rand_boolean (rand))
                {
                  guint k = g_rand_int_range (rand, 0, migs->len);
                  memcpy (m, &g_array_index (migs, guint32, 3 * k), sizeof m);
                  ck_assert (sim_cluster_mig_release (c, m[0], m[1], m[2]));
                  g_array_remove_index_fast (migs, k);
                }
              else
                {
                  int at = sim_cluster_mig_allocate (c, m[0], m[1], -1, NULL);
                  if (at >= 0)
                    {
                      m[2] = (guint32) at;
                      g_array_append_val (migs, m);
                    }
                }
            }
          else if (running->len > 0 && x < 14)
            {
              guint k = g_rand_int_range (rand, 0, running->len);
              Held *h = &g_array_index (running, Held, k);

              sim_cluster_release (c, h->gpus, h->n_gpus, h->milli);
              held_host (c, &h->job, h->gpus, h->n_gpus, FALSE);
              g_array_remove_index_fast (running, k);
            }
          else
            {
              Held h = { 0 };
              static const char * const names[] = { "first-fit", "best-fit", "worst-fit" };
              guint32 want[3][64], got[3][64];
              guint n_want[3], shape;
              gboolean ok[3];

              /* 0: fractional, 1: whole in one node, 2: spanning nodes. */
              shape = x < 26 ? 0 : x < 35 ? 1 : 2;
              if (shape == 0)
                h.job = job_of (1, g_rand_int_range (rand, 0, 4) == 0
                                     ? 100 * g_rand_int_range (rand, 1, 10)
                                     : g_rand_int_range (rand, 1, 1000));
              else if (shape == 1)
                h.job = job_of (g_rand_int_range (rand, 1, max + 1), 1000);
              else
                h.job = job_of (g_rand_int_range (rand, max + 1, MIN (3 * max, 64) + 1), 1000);
              if (g_rand_boolean (rand))
                {
                  h.job.spec.cpu_milli = 1000 * g_rand_int_range (rand, 0, 24);
                  h.job.spec.memory_bytes = (guint64) g_rand_int_range (rand, 0, 96) << 30;
                }
              if (g_rand_int_range (rand, 0, 5) == 0)
                h.job.spec.gpu_models = g_rand_boolean (rand) ? h100 : a100;
              for (guint b = 0; b < 3; b++)
                {
                  SimPlacement pl = { got[b], 64, 0, -1 };

                  n_want[b] = pass_place (c, &h.job, b, want[b]);
                  ok[b] = b == 2 ? sim_policy_place (worst, c, &h.job, &pl)
                          : b ? sim_place_best_fit (c, &h.job, &pl)
                              : sim_place_first_fit (c, &h.job, &pl);
                  ck_assert_msg (ok[b] == (n_want[b] > 0), "seed %" G_GUINT64_FORMAT
                                 ", step %u, %s: %s where the pass %s", seed, step,
                                 names[b], ok[b] ? "placed" : "refused",
                                 n_want[b] > 0 ? "placed" : "refused");
                  if (!ok[b])
                    {
                      refused++;
                      continue;
                    }
                  ck_assert_uint_eq (pl.n_gpus, n_want[b]);
                  ck_assert_uint_eq (pl.milli, h.job.spec.gpu_milli);
                  for (guint i = 0; i < n_want[b]; i++)
                    ck_assert_msg (got[b][i] == want[b][i], "seed %" G_GUINT64_FORMAT
                                   ", step %u, %s of %u x %u/1000: GPU %u where the pass "
                                   "chose %u", seed, step, names[b],
                                   h.job.spec.gpus, h.job.spec.gpu_milli, got[b][i],
                                   want[b][i]);
                  compared[b][shape]++;
                }
              if (ok[0])
                {
                  /* Commit one of the three choices. */
                  guint b = g_rand_int_range (rand, 0, 3);
                  h.n_gpus = n_want[b];
                  h.milli = h.job.spec.gpu_milli;
                  memcpy (h.gpus, want[b], sizeof (guint32) * h.n_gpus);
                  ck_assert (sim_cluster_allocate (c, h.gpus, h.n_gpus, h.milli, NULL));
                  held_host (c, &h.job, h.gpus, h.n_gpus, TRUE);
                  g_array_append_val (running, h);
                }
            }
          check_fitting (c, rand);
        }
      {
        g_autoptr(SimCluster) copy = sim_cluster_copy (c);
        check_fitting (copy, rand);
      }
      g_array_unref (running);
      g_array_unref (migs);
    }
  for (guint b = 0; b < 3; b++)
    for (guint shape = 0; shape < 3; shape++)
      ck_assert_uint_gt (compared[b][shape], 500);
  ck_assert_uint_gt (refused, 100);
}
END_TEST

/* A fabric of @n DGX H100 nodes described by @lines ("key=value"), and the
 * cluster it was built for in *@cluster. */
static SimTopology *
make_fabric (guint n, const char * const *lines, SimCluster **cluster)
{
  g_auto(SimFabricConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  SimTopology *t;

  *cluster = make_cluster ("DGX-H100", n, 8);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (lines[i], "=", 2);
      ck_assert_msg (sim_fabric_config_set (&config, kv[0], kv[1], &error), "%s: %s", lines[i],
                     error ? error->message : "");
    }
  t = sim_topology_new (*cluster, catalogue, &config, &error);
  ck_assert_msg (t != NULL, "%s", error ? error->message : "");
  return t;
}

static gboolean
is_switch (SimVertexKind k)
{
  return k == SIM_VERTEX_LEAF || k == SIM_VERTEX_SPINE || k == SIM_VERTEX_CORE;
}

/* The switches linked to vertex @v, in a set (vertex + 1 as keys), or
 * only those of a higher tier than @v's with @above. */
static GHashTable *
switches_next_to (const SimTopology *t, guint32 v, gboolean above)
{
  GHashTable *set = g_hash_table_new (g_direct_hash, g_direct_equal);
  SimVertexKind kv = sim_topology_get_vertex_kind (t, v);

  for (guint l = 0; l < sim_topology_get_n_links (t); l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      guint32 w = k->a == v ? k->b : k->b == v ? k->a : G_MAXUINT32;
      SimVertexKind kw;
      if (w == G_MAXUINT32)
        continue;
      kw = sim_topology_get_vertex_kind (t, w);
      if (is_switch (kw) && (!above || kw > kv))
        g_hash_table_add (set, GUINT_TO_POINTER (w + 1));
    }
  return set;
}

static gboolean
same_set (GHashTable *a, GHashTable *b)
{
  GHashTableIter it;
  gpointer k;

  if (g_hash_table_size (a) != g_hash_table_size (b))
    return FALSE;
  g_hash_table_iter_init (&it, a);
  while (g_hash_table_iter_next (&it, &k, NULL))
    if (!g_hash_table_contains (b, k))
      return FALSE;
  return TRUE;
}

/* sim_topology_get_node_group() against the links themselves, on a
 * two-tier and a three-tier fat-tree: a node's group at the access tier is
 * the one switch every NIC of the node is linked to (the builders keep a
 * node's NICs under one leaf); at the aggregation tier, two nodes are in
 * one group exactly when their leaves lead up to the same spines (a pod of
 * a three-tier tree; every leaf of a two-tier tree reaches every spine),
 * and the group is one of those spines. */
START_TEST (test_topology_node_groups)
{
  static const char * const two[] = { "topology=fat-tree", "switch=Quantum-2-QM9700",
                                      "radix=32", "oversubscription=2", NULL };
  static const char * const three[] = { "topology=fat-tree-3", "switch=Quantum-2-QM9700",
                                        "radix=32", "oversubscription=2", NULL };
  const char * const *fabrics[] = { two, three };

  for (guint f = 0; f < G_N_ELEMENTS (fabrics); f++)
    {
      g_autoptr(SimCluster) c = NULL;
      SimTopology *t = make_fabric (40, fabrics[f], &c);
      guint n_nodes = sim_cluster_get_n_nodes (c);
      g_autofree guint32 *leaf = g_new (guint32, n_nodes);
      GPtrArray *ups = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
      g_autoptr(GHashTable) leaves = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_autoptr(GHashTable) pods = g_hash_table_new (g_direct_hash, g_direct_equal);

      for (guint n = 0; n < n_nodes; n++)
        {
          g_autoptr(GHashTable) linked = g_hash_table_new (g_direct_hash, g_direct_equal);
          for (guint32 v = 0; v < sim_topology_get_n_vertices (t); v++)
            if (sim_topology_get_vertex_node (t, v) == (gint) n
                && sim_topology_get_vertex_kind (t, v) == SIM_VERTEX_NIC)
              {
                g_autoptr(GHashTable) sw = switches_next_to (t, v, FALSE);
                GHashTableIter it;
                gpointer k;
                g_hash_table_iter_init (&it, sw);
                while (g_hash_table_iter_next (&it, &k, NULL))
                  g_hash_table_add (linked, k);
              }
          ck_assert_uint_eq (g_hash_table_size (linked), 1);
          {
            g_autofree gpointer *keys = g_hash_table_get_keys_as_array (linked, NULL);
            leaf[n] = GPOINTER_TO_UINT (keys[0]) - 1;
          }
          ck_assert_uint_eq (sim_topology_get_node_group (t, n, SIM_TIER_ACCESS), leaf[n]);
          ck_assert_uint_eq (sim_topology_get_node_group (t, n, SIM_TIER_INTRA), n);
          g_ptr_array_add (ups, switches_next_to (t, leaf[n], TRUE));
          ck_assert (g_hash_table_contains (ups->pdata[n], GUINT_TO_POINTER (
                       sim_topology_get_node_group (t, n, SIM_TIER_AGGREGATION) + 1)));
          g_hash_table_add (leaves, GUINT_TO_POINTER (leaf[n] + 1));
          g_hash_table_add (pods, GUINT_TO_POINTER (
                              sim_topology_get_node_group (t, n, SIM_TIER_AGGREGATION) + 1));
        }
      for (guint a = 0; a < n_nodes; a++)
        for (guint b = 0; b < n_nodes; b++)
          ck_assert_int_eq (same_set (ups->pdata[a], ups->pdata[b]),
                            sim_topology_get_node_group (t, a, SIM_TIER_AGGREGATION)
                            == sim_topology_get_node_group (t, b, SIM_TIER_AGGREGATION));
      /* Several leaves; in three tiers several pods, in two one. */
      ck_assert_uint_gt (g_hash_table_size (leaves), 5);
      if (f == 0)
        ck_assert_uint_eq (g_hash_table_size (pods), 1);
      else
        ck_assert_uint_gt (g_hash_table_size (pods), 1);
      g_ptr_array_unref (ups);
      sim_topology_free (t);
    }
}
END_TEST

/* Topology-aware placement as its description states it, by a plain pass
 * over every node for every group (how the placement worked before the
 * cluster kept each group's free GPUs): a job that fits in one node is
 * left to best-fit; a larger one goes under one leaf if one has room
 * (the group with the fewest free GPUs that fits, ties to the group whose
 * first node comes first), else under one pod, else anywhere; in a group,
 * whole free nodes in order, then the remainder on the fullest node that
 * fits (ties to the lowest node). */
static guint
ref_in_group (const SimCluster *c, const guint32 *group_of, guint32 group, const SimJob *job,
              guint32 *out)
{
  guint n_nodes = sim_cluster_get_n_nodes (c), want = job->spec.gpus, got = 0;
  g_autofree gboolean *whole = g_new0 (gboolean, n_nodes);
  gint best = -1;

  for (guint n = 0; n < n_nodes && got < want; n++)
    {
      const SimNode *node = sim_cluster_get_node (c, n);
      if ((group_of != NULL && group_of[n] != group) || node->free_gpus != node->n_gpus
          || node->n_gpus > want - got || !sim_place_node_admits (c, n, job, node->n_gpus))
        continue;
      for (guint g = 0; out != NULL && g < node->n_gpus; g++)
        out[got + g] = node->first_gpu + g;
      got += node->n_gpus;
      whole[n] = TRUE;
    }
  if (got == want)
    return got;
  for (guint n = 0; n < n_nodes; n++)
    {
      const SimNode *node = sim_cluster_get_node (c, n);
      if ((group_of != NULL && group_of[n] != group) || whole[n]
          || node->free_gpus < want - got || !sim_place_node_admits (c, n, job, want - got))
        continue;
      if (best < 0 || node->free_gpus < sim_cluster_get_node (c, best)->free_gpus)
        best = (gint) n;
    }
  if (best < 0)
    return 0;
  for (guint g = 0, k = got; out != NULL && k < want; g++)
    {
      guint32 gpu = sim_cluster_get_node (c, best)->first_gpu + g;
      if (sim_cluster_get_gpu (c, gpu)->n_tenants == 0)
        out[k++] = gpu;
    }
  return want;
}

static gboolean
ref_topology_place (const SimCluster *c, const SimTopology *t, const SimJob *job, guint32 *out)
{
  guint n_nodes = sim_cluster_get_n_nodes (c);
  const SimLinkTier tiers[2] = { SIM_TIER_ACCESS, SIM_TIER_AGGREGATION };

  if (job->spec.gpus > sim_cluster_get_n_free_gpus (c))
    return FALSE;
  for (guint tier = 0; tier < 2; tier++)
    {
      g_autofree guint32 *group_of = g_new (guint32, n_nodes);
      g_autofree guint *free_in = g_new0 (guint, n_nodes);
      guint n_groups = 0;
      gint best = -1;
      /* Groups numbered by their first node. */
      for (guint n = 0; n < n_nodes; n++)
        {
          guint32 id = sim_topology_get_node_group (t, n, tiers[tier]);
          group_of[n] = n_groups;
          for (guint m = 0; m < n; m++)
            if (sim_topology_get_node_group (t, m, tiers[tier]) == id)
              {
                group_of[n] = group_of[m];
                break;
              }
          if (group_of[n] == n_groups)
            n_groups++;
          free_in[group_of[n]] += sim_cluster_get_node (c, n)->free_gpus;
        }
      for (guint g = 0; g < n_groups; g++)
        if (free_in[g] >= job->spec.gpus && (best < 0 || free_in[g] < free_in[best])
            && ref_in_group (c, group_of, g, job, NULL) == job->spec.gpus)
          best = (gint) g;
      if (best >= 0)
        return ref_in_group (c, group_of, (guint32) best, job, out) == job->spec.gpus;
    }
  return ref_in_group (c, NULL, 0, job, out) == job->spec.gpus;
}

/* Topology-aware placement chooses exactly the GPUs the plain pass above
 * chooses, on a three-tier fat-tree of 40 DGX H100 (20 leaves, several
 * pods) filled at random by its own placements, with jobs ending in
 * between, nodes drained and brought back, and a node short of host memory;
 * in the cluster the policy was made for (whose groups' free GPUs the
 * cluster keeps), in a copy of it (which keeps them too) and in a cluster
 * built alike with the same GPUs taken (which does not: counted). */
START_TEST (test_topology_aware_against_scan)
{
  static const char * const three[] = { "topology=fat-tree-3", "switch=Quantum-2-QM9700",
                                        "radix=32", "oversubscription=2", NULL };
  static const guint sizes[] = { 1, 4, 8, 9, 12, 16, 16, 24, 32, 40, 64, 96, 128 };
  guint compared = 0, spanned[2] = { 0 }, refused = 0;

  for (guint64 seed = 1; seed <= 10; seed++)
    {
      g_autoptr(SimCluster) c = NULL;
      SimTopology *t = make_fabric (40, three, &c);
      g_autoptr(GRand) rand = g_rand_new_with_seed ((guint32) (seed * 104729));
      SimPolicySetup setup = { 0 };
      g_autoptr(GError) error = NULL;
      g_autoptr(SimPolicy) p = NULL;
      GPtrArray *running = g_ptr_array_new_with_free_func (g_free);

      setup.cluster = c;
      setup.topology = t;
      setup.seed = seed;
      p = sim_policy_new ("fifo", "topology-aware", &setup, &error);
      ck_assert_msg (p != NULL, "%s", error ? error->message : "");
      if (seed % 2 == 0)
        sim_cluster_set_node_host (c, 7, 96000, 1ull << 30);
      for (guint step = 0; step < 400; step++)
        {
          SimJob job = job_of (sizes[g_rand_int_range (rand, 0, G_N_ELEMENTS (sizes))], 1000);
          guint32 got[128], want[128];
          SimPlacement pl = { got, 0, 0, -1 };
          gboolean fits, ref;

          job.spec.memory_bytes = g_rand_int_range (rand, 0, 4) == 0 ? 8ull << 30 : 0;
          if (g_rand_int_range (rand, 0, 25) == 0)
            {
              guint n = g_rand_int_range (rand, 0, 40);
              sim_cluster_set_node_available (c, n, !sim_cluster_get_node (c, n)->available);
            }
          fits = sim_policy_place (p, c, &job, &pl);
          if (job.spec.gpus > 8)
            {
              g_autoptr(SimCluster) copy = sim_cluster_copy (c);
              g_autoptr(SimCluster) alike = make_cluster ("DGX-H100", 40, 8);
              guint32 in_copy[128];
              SimPlacement pc = { in_copy, 0, 0, -1 };
              ref = ref_topology_place (c, t, &job, want);
              ck_assert_int_eq (fits, ref);
              if (fits)
                {
                  ck_assert_mem_eq (got, want, job.spec.gpus * sizeof (guint32));
                  compared++;
                  for (guint k = 0; k < 2; k++)
                    spanned[k] += sim_topology_get_node_group (
                                    t, sim_cluster_get_gpu (c, got[0])->node, SIM_TIER_ACCESS + k)
                                  != sim_topology_get_node_group (
                                    t, sim_cluster_get_gpu (c, got[job.spec.gpus - 1])->node,
                                    SIM_TIER_ACCESS + k);
                }
              else
                refused++;
              ck_assert_int_eq (sim_policy_place (p, copy, &job, &pc), fits);
              if (fits)
                ck_assert_mem_eq (in_copy, got, job.spec.gpus * sizeof (guint32));
              /* Alike: the same GPUs taken and nodes drained, host
               * shares left out (and so the same node short of memory). */
              for (guint n = 0; n < 40; n++)
                {
                  const SimNode *node = sim_cluster_get_node (c, n);
                  for (guint g = node->first_gpu; g < node->first_gpu + node->n_gpus; g++)
                    if (sim_cluster_get_gpu (c, g)->n_tenants > 0)
                      {
                        guint32 x = g;
                        ck_assert (sim_cluster_allocate (alike, &x, 1, 1000, NULL));
                      }
                  sim_cluster_set_node_available (alike, n, node->available);
                  sim_cluster_set_node_host (alike, n, node->cpu_milli, node->memory_bytes);
                  if (node->memory_bytes > 0)
                    ck_assert (sim_cluster_reserve_host (alike, n, node->cpu_milli
                                                                   - node->free_cpu_milli,
                                                         node->memory_bytes
                                                         - node->free_memory_bytes, NULL));
                }
              pc.n_gpus = 0;
              ck_assert_int_eq (sim_policy_place (p, alike, &job, &pc), fits);
              if (fits)
                ck_assert_mem_eq (in_copy, got, job.spec.gpus * sizeof (guint32));
            }
          if (fits)
            {
              guint32 *held = g_new (guint32, job.spec.gpus + 1);
              commit (c, &job, &pl);
              held[0] = job.spec.gpus;
              memcpy (held + 1, got, job.spec.gpus * sizeof (guint32));
              g_ptr_array_add (running, held);
            }
          /* Jobs end at random, the fuller the cluster the more. */
          while (running->len > 0
                 && g_rand_int_range (rand, 0, 320) >= (gint) sim_cluster_get_n_free_gpus (c))
            {
              guint k = g_rand_int_range (rand, 0, running->len);
              const guint32 *held = running->pdata[k];
              SimJob gone = job_of (held[0], 1000);
              sim_cluster_release (c, held + 1, held[0], 1000);
              for (guint i = 0; i < held[0]; i++)
                {
                  guint n = sim_cluster_get_gpu (c, held[1 + i])->node;
                  if (i == 0 || sim_cluster_get_gpu (c, held[i])->node != n)
                    {
                      guint here = 0;
                      guint64 cpu, mem;
                      for (guint j = 0; j < held[0]; j++)
                        here += sim_cluster_get_gpu (c, held[1 + j])->node == n;
                      sim_job_host_share (&gone, here, &cpu, &mem);
                      sim_cluster_release_host (c, n, cpu, mem);
                    }
                }
              g_ptr_array_remove_index_fast (running, k);
            }
        }
      g_ptr_array_unref (running);
      sim_topology_free (t);
    }
  /* Enough of each outcome to mean something: placed, across leaves,
   * across pods, refused. */
  ck_assert_uint_gt (compared, 2000);
  ck_assert_uint_gt (spanned[0], 1000);
  ck_assert_uint_gt (spanned[1], 60);
  ck_assert_uint_gt (refused, 40);
}
END_TEST

static Suite *
placements_suite (void)
{
  Suite *s = suite_create ("placements");
  TCase *tc = tcase_create ("core");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_registered);
  tcase_add_test (tc, test_worst_fit);
  tcase_add_test (tc, test_set_gpus);
  tcase_add_test (tc, test_set_mig);
  tcase_add_test (tc, test_random_deterministic_uniform);
  tcase_add_test (tc, test_packing);
  tcase_add_test (tc, test_clustering);
  tcase_add_test (tc, test_dot_product);
  tcase_add_test (tc, test_constraints);
  tcase_add_test (tc, test_fragmentation_by_hand);
  tcase_add_test (tc, test_fgd_keeps_whole_gpu);
  tcase_add_test (tc, test_fgd_whole_and_learning);
  tcase_add_test (tc, test_multi_node);
  tcase_add_test (tc, test_random_invariant);
  tcase_add_test (tc, test_best_fit_index);
  tcase_add_test (tc, test_indexed_against_passes);
  tcase_add_test (tc, test_topology_node_groups);
  tcase_add_test (tc, test_topology_aware_against_scan);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (placements_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
