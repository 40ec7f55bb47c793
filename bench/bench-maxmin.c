/* bench-maxmin.c: re-solve time of the max-min solver on a large fabric.
 *
 * The fabric is a three-tier fat-tree of 32,768 GPUs, each with its own
 * NIC: a k = 64 fat-tree (64-port switches) with 32 of its 64 pods
 * populated.  A pod holds k/2 = 32 leaf switches and 32 aggregation
 * switches; each leaf has 32 GPUs below it and one link to each of the
 * pod's aggregation switches; aggregation switch a of every pod has one
 * link to each core switch of group a (core switches a*32 .. a*32+31), so
 * there are (k/2)^2 = 1,024 core switches.  Every link is full duplex and
 * gives two directed resources of 50 GB/s (400 Gb/s).
 *
 * Routing is up-down with ECMP by hash: a flow between GPUs under the same
 * leaf goes GPU -> leaf -> GPU; within a pod it climbs to aggregation
 * switch (hash mod 32); between pods it climbs to aggregation switch a =
 * hash mod 32, then core switch a*32 + (hash / 32) mod 32, and descends
 * through aggregation switch a of the destination pod.
 *
 * Two traffic patterns:
 *   uniform: each flow joins two GPUs drawn at random anywhere, the worst
 *     case for incremental solving (flows soon share core links and form
 *     one large component);
 *   jobs:    flows are the ring edges of 64-GPU jobs placed on consecutive
 *     GPUs (GPU i sends to i+1 within its job), as a scheduler that packs
 *     jobs produces; most traffic stays under one leaf or one pod.
 *
 * Each pattern runs at 1:1 and at 2:1 (every leaf's up links at half the
 * bandwidth, as an oversubscribed leaf tier has), and each case twice on
 * the same flows and the same changes: with solves by connected
 * components ("components", how the solver worked before it confined
 * solves to what changed) and as sim_maxmin_solve() now does ("region").
 * For each count of flows it prints the time of a full solve, the median
 * time of a re-solve after adding one flow and after removing one, and
 * how many flows those re-solves recomputed on average, which is the
 * cost of one arrival or departure.  It prints figures and never fails on
 * time.
 */
#include "config.h"

#include <sim.h>
#include "core/sim-maxmin.h"
#include "core/sim-maxmin-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-args.h"

#define USAGE \
  "usage: bench-maxmin\n" \
  "  re-solve time of the max-min solver on a fat-tree of 32,768 GPUs\n"

#define K        64
#define HALF     (K / 2)
#define PODS     32
#define GPUS     (PODS * HALF * HALF)          /* 32,768 */
#define LINK_BW  50e9                          /* 400 Gb/s */

typedef struct {
  SimMaxmin   *sys;
  SimMaxminId *host_up, *host_down;            /* [GPUS] */
  SimMaxminId *leaf_up, *leaf_down;            /* [pod][leaf][agg] */
  SimMaxminId *agg_up, *agg_down;              /* [pod][agg][j] to core agg*32+j */
} FatTree;

static void
fat_tree_init (FatTree *ft, double oversub)
{
  gsize nl = (gsize) PODS * HALF * HALF;

  ft->sys = sim_maxmin_new ();
  ft->host_up = g_new (SimMaxminId, GPUS);
  ft->host_down = g_new (SimMaxminId, GPUS);
  ft->leaf_up = g_new (SimMaxminId, nl);
  ft->leaf_down = g_new (SimMaxminId, nl);
  ft->agg_up = g_new (SimMaxminId, nl);
  ft->agg_down = g_new (SimMaxminId, nl);
  for (gsize i = 0; i < GPUS; i++)
    {
      ft->host_up[i] = sim_maxmin_add_resource (ft->sys, LINK_BW);
      ft->host_down[i] = sim_maxmin_add_resource (ft->sys, LINK_BW);
    }
  for (gsize i = 0; i < nl; i++)
    {
      ft->leaf_up[i] = sim_maxmin_add_resource (ft->sys, LINK_BW / oversub);
      ft->leaf_down[i] = sim_maxmin_add_resource (ft->sys, LINK_BW / oversub);
      ft->agg_up[i] = sim_maxmin_add_resource (ft->sys, LINK_BW);
      ft->agg_down[i] = sim_maxmin_add_resource (ft->sys, LINK_BW);
    }
}

static void
fat_tree_clear (FatTree *ft)
{
  sim_maxmin_free (ft->sys);
  g_free (ft->host_up);
  g_free (ft->host_down);
  g_free (ft->leaf_up);
  g_free (ft->leaf_down);
  g_free (ft->agg_up);
  g_free (ft->agg_down);
}

/* The directed resources from GPU @s to GPU @d; returns their number. */
static guint
route (const FatTree *ft, guint s, guint d, guint64 hash, SimMaxminId *out)
{
  guint sleaf = s / HALF, dleaf = d / HALF;          /* global leaf index */
  guint spod = sleaf / HALF, dpod = dleaf / HALF;
  guint a = (guint) (hash % HALF), j = (guint) ((hash / HALF) % HALF);
  guint n = 0;

  out[n++] = ft->host_up[s];
  if (sleaf != dleaf)
    {
      out[n++] = ft->leaf_up[(gsize) sleaf * HALF + a];
      if (spod != dpod)
        {
          out[n++] = ft->agg_up[((gsize) spod * HALF + a) * HALF + j];
          out[n++] = ft->agg_down[((gsize) dpod * HALF + a) * HALF + j];
        }
      out[n++] = ft->leaf_down[(gsize) dleaf * HALF + a];
    }
  out[n++] = ft->host_down[d];
  return n;
}

static SimMaxminId
add_flow (FatTree *ft, GRand *rand, gboolean jobs, guint index)
{
  SimMaxminId path[6];
  guint s, d, n;

  if (jobs)
    {
      /* Edge @index of the rings of 64-GPU jobs, jobs laid end to end. */
      guint g = index % GPUS, job = g / 64, local = g % 64;
      s = g;
      d = job * 64 + (local + 1) % 64;
    }
  else
    {
      s = (guint) g_rand_int_range (rand, 0, GPUS);
      do
        d = (guint) g_rand_int_range (rand, 0, GPUS);
      while (d == s);
    }
  n = route (ft, s, d, g_rand_int (rand), path);
  return sim_maxmin_add_flow (ft->sys, path, n, 1.0, INFINITY, NULL);
}

/* The steps the last run by components took. */
static guint last_reps;


static double
median (double *v, guint n)
{
  qsort (v, n, sizeof (double), bench_compare_doubles);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
run (gboolean jobs, guint n_flows, double oversub, gboolean by_components)
{
  FatTree ft;
  g_autoptr(GRand) rand = g_rand_new_with_seed (n_flows + jobs);
  g_autofree SimMaxminId *flows = g_new (SimMaxminId, n_flows);
  double t0, full_ms, add_ms[400], rem_ms[400];
  guint reps = 0, job_index;
  guint64 solved = 0;
  SimMaxminStats st;
  double budget_end;

  fat_tree_init (&ft, oversub);
  sim__maxmin_set_full (ft.sys, by_components);
  /* For the jobs pattern, use the edges of randomly chosen whole jobs, so
   * that the flows are those of complete rings. */
  job_index = 0;
  for (guint i = 0; i < n_flows; i++)
    {
      if (jobs)
        {
          if (i % 64 == 0)
            job_index = (guint) g_rand_int_range (rand, 0, GPUS / 64) * 64;
          flows[i] = add_flow (&ft, rand, TRUE, job_index + i % 64);
        }
      else
        flows[i] = add_flow (&ft, rand, FALSE, i);
    }
  sim_maxmin_solve (ft.sys);

  sim_maxmin_invalidate (ft.sys);
  t0 = g_get_monotonic_time ();
  sim_maxmin_solve (ft.sys);
  full_ms = (g_get_monotonic_time () - t0) / 1e3;

  /* The solves by components take as many steps as fit in the budget;
   * the region solves then take the same steps, so that both see the
   * same changes (the same random draws). */
  budget_end = g_get_monotonic_time () + 1.5e6;
  while (by_components
         ? reps < G_N_ELEMENTS (add_ms) && (reps < 5 || g_get_monotonic_time () < budget_end)
         : reps < last_reps)
    {
      guint victim = (guint) g_rand_int_range (rand, 0, (gint32) n_flows);
      SimMaxminId f;

      /* Remove one flow, re-solve; add one, re-solve. */
      sim_maxmin_remove_flow (ft.sys, flows[victim]);
      t0 = g_get_monotonic_time ();
      sim_maxmin_solve (ft.sys);
      rem_ms[reps] = (g_get_monotonic_time () - t0) / 1e3;
      sim_maxmin_get_stats (ft.sys, &st);
      solved += st.last_flows_solved;

      f = add_flow (&ft, rand, jobs, jobs ? (guint) g_rand_int_range (rand, 0, GPUS) : 0);
      t0 = g_get_monotonic_time ();
      sim_maxmin_solve (ft.sys);
      add_ms[reps] = (g_get_monotonic_time () - t0) / 1e3;
      sim_maxmin_get_stats (ft.sys, &st);
      solved += st.last_flows_solved;
      flows[victim] = f;
      reps++;
    }
  if (by_components)
    last_reps = reps;
  printf ("| %-7s | %g:1 | %-10s | %7u | %9.2f | %11.3f | %14.3f | %12.1f | %4u |\n",
          jobs ? "jobs" : "uniform", oversub, by_components ? "components" : "region",
          n_flows, full_ms, median (add_ms, reps), median (rem_ms, reps),
          (double) solved / (2.0 * reps), reps);
  fat_tree_clear (&ft);
}

int
main (int argc, char **argv)
{
  bench_args (argc, argv, USAGE, NULL, 0);

  static const guint counts[] = { 1000, 10000, 100000 };

  printf ("Max-min re-solve on a three-tier fat-tree (k = 64, 32 pods, %u GPUs, "
          "%u directed links)\n\n", GPUS, 2 * GPUS + 4 * PODS * HALF * HALF);
  printf ("| pattern | leaves | solves by | flows | full (ms) | add+re-solve (ms, median) | "
          "remove+re-solve (ms, median) | flows re-solved per step | reps |\n");
  printf ("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (guint p = 0; p < 2; p++)
    for (guint o = 1; o <= 2; o++)
      for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
        {
          run (p == 1, counts[i], o, TRUE);
          run (p == 1, counts[i], o, FALSE);
        }
  return 0;
}
