/* check-power-policy.c: power policies: the consolidating placement, the
 * DCGM-style cap manager and the facility power limit.
 *
 * What it checks:
 *  - consolidate: on small clusters built by hand, the GPUs it chooses,
 *    with the reasoning beside the expected answer (a node in use before an
 *    idle one whatever their sizes, the busiest node in use first, the
 *    smallest idle node, the fewest nodes woken for a job spanning nodes,
 *    shared GPUs first for fractional jobs, ties to the lowest number);
 *    over whole runs, counted by the test itself from the jobs' starts and
 *    ends (not from the library's metrics), that it keeps more node-hours
 *    wholly idle than first-fit on the same workload, that no GPU is given
 *    beyond its capacity nor twice to one job, and that a seed gives the
 *    same placements;
 *  - the cap manager, against figures worked out by hand from the power
 *    model's formulas (power/sim-power.h) and the catalogue: the GPU-hours
 *    capped after the hold, the energy a light job's GPU saves under the
 *    low cap (its draw idle + (P_max - P_idle) f^3 busy, busy = a / f, and
 *    the fans following the dynamic power, behind the power supplies), the
 *    completion time a job loses when the cap is lifted only after
 *    raise_after; the baseline's figures against a second run made by the
 *    test; every key moving its result the expected way;
 *  - the facility limit: in cap mode the cap found equals the closed form
 *    for GPUs that draw their cap (F linear in it); the limit is never
 *    exceeded, no GPU draws over its cap and no node over its rated
 *    maximum, at every change of state of runs under load, in both modes
 *    and under every queue order; in hold mode a job waits exactly until
 *    the one ahead ends; a held start is SIM_ERROR_HELD and leaves the job
 *    queued; every key moves its result the expected way;
 *  - bad keys are errors naming the file, line and key.
 * What it does not check: the power model itself (check-power does), the
 * energy a sleeping node saves, queueing delay under consolidation.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <sim.h>
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include <string.h>

#include "power/sim-power.h"

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

static void
add_pool (SimCluster *c, const char *model, guint nodes, guint per)
{
  g_autoptr(GError) error = NULL;
  const SimNodeModel *m = sim_catalogue_lookup_node (catalogue, model);

  ck_assert_ptr_nonnull (m);
  ck_assert_msg (sim_cluster_add_pool (c, model, m, NULL, per, nodes, &error), "%s",
                 error ? error->message : "");
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
policy (const char *placement)
{
  g_autoptr(GError) error = NULL;
  SimPolicy *p = sim_policy_new_builtin ("fifo", placement, &error);

  ck_assert_msg (p != NULL, "%s: %s", placement, error ? error->message : "");
  return p;
}

static void
take (SimCluster *c, guint32 gpu, guint milli)
{
  g_autoptr(GError) error = NULL;
  ck_assert_msg (sim_cluster_allocate (c, &gpu, 1, milli, &error), "%s",
                 error ? error->message : "");
}

/* Places a job of GPUS x MILLI with P on C, commits it, and writes the
 * GPUs chosen as "a,b,c" (or "none"). */
static char *
place_str (SimPolicy *p, SimCluster *c, guint gpus, guint milli)
{
  g_autoptr(GError) error = NULL;
  guint32 buf[64];
  SimPlacement pl = { buf, gpus, milli, -1 };
  SimJob job = job_of (gpus, milli);
  GString *s = g_string_new (NULL);

  if (!sim_policy_place (p, c, &job, &pl))
    {
      g_string_free (s, TRUE);
      return g_strdup ("none");
    }
  for (guint i = 0; i < pl.n_gpus; i++)
    g_string_append_printf (s, "%s%u", i ? "," : "", pl.gpus[i]);
  ck_assert_msg (sim_cluster_allocate (c, pl.gpus, pl.n_gpus, pl.milli, &error), "%s",
                 error ? error->message : "");
  return g_string_free (s, FALSE);
}

#define ck_assert_place(p, c, gpus, milli, expected)                                        \
  do {                                                                                      \
    g_autofree char *got_ = place_str ((p), (c), (gpus), (milli));                          \
    ck_assert_msg (strcmp (got_, (expected)) == 0, "%u x %u: got %s, expected %s",          \
                   (guint) (gpus), (guint) (milli), got_, (expected));                      \
  } while (0)

START_TEST (test_consolidate_registered)
{
  g_autoptr(GPtrArray) names = sim_policy_list_placements ();
  gboolean found = FALSE;

  for (guint i = 0; i < names->len; i++)
    found |= strcmp (names->pdata[i], "consolidate") == 0;
  ck_assert (found);
  ck_assert_ptr_nonnull (sim_policy_describe_builtin ("consolidate"));
}
END_TEST

/* Nodes 0 and 1 have 4 GPUs (GPUs 0-3, 4-7), node 2 has 8 (GPUs 8-15). */
static SimCluster *
mixed_cluster (void)
{
  SimCluster *c = sim_cluster_new ();

  add_pool (c, "DGX-A100", 2, 4);
  add_pool (c, "DGX-A100", 1, 8);
  return c;
}

START_TEST (test_consolidate_in_use_first)
{
  g_autoptr(SimPolicy) con = policy ("consolidate");
  g_autoptr(SimPolicy) best = policy ("best-fit");
  SimCluster *a = mixed_cluster (), *b = mixed_cluster ();

  /* Node 2 runs a 2-GPU job: 6 free there, 4 on each idle small node. */
  take (a, 8, 1000);
  take (a, 9, 1000);
  take (b, 8, 1000);
  take (b, 9, 1000);
  /* Best-fit takes the fewest free GPUs, an idle 4-GPU node, and wakes
   * it; consolidate puts the job on node 2, already in use. */
  ck_assert_place (best, b, 4, 1000, "0,1,2,3");
  ck_assert_place (con, a, 4, 1000, "10,11,12,13");
  /* Node 2 has 2 free now: a 2-GPU job fills it rather than wake a node. */
  ck_assert_place (con, a, 2, 1000, "14,15");
  /* Nothing in use has room: the smallest idle node, the lowest first. */
  ck_assert_place (con, a, 3, 1000, "0,1,2");
  /* Node 0 has one free and is in use: a 1-GPU job goes there. */
  ck_assert_place (con, a, 1, 1000, "3");
  sim_cluster_free (a);
  sim_cluster_free (b);
}
END_TEST

START_TEST (test_consolidate_busiest)
{
  g_autoptr(SimPolicy) con = policy ("consolidate");
  SimCluster *c = sim_cluster_new ();

  add_pool (c, "DGX-H100", 4, 8);
  /* Node 0: 3 used (5 free); node 1: 5 used (3 free); node 2: 6 used
   * (2 free); node 3 idle. */
  for (guint g = 0; g < 3; g++)
    take (c, g, 1000);
  for (guint g = 8; g < 13; g++)
    take (c, g, 1000);
  for (guint g = 16; g < 22; g++)
    take (c, g, 1000);
  /* 3 GPUs: node 2 has too few; node 1 (3 free) is busier than node 0. */
  ck_assert_place (con, c, 3, 1000, "13,14,15");
  /* 2 GPUs: node 2 is the busiest that fits. */
  ck_assert_place (con, c, 2, 1000, "22,23");
  /* 5 GPUs: only node 0 in use has room; node 3 stays idle. */
  ck_assert_place (con, c, 5, 1000, "3,4,5,6,7");
  /* Now only node 3 has room. */
  ck_assert_place (con, c, 1, 1000, "24");
  /* No node has 8 free any more. */
  ck_assert_place (con, c, 8, 1000, "none");
  sim_cluster_free (c);

  /* Ties between nodes in use with as many free GPUs go to the lowest. */
  c = sim_cluster_new ();
  add_pool (c, "DGX-H100", 3, 8);
  take (c, 0, 1000);
  take (c, 8, 1000);
  ck_assert_place (con, c, 7, 1000, "1,2,3,4,5,6,7");
  ck_assert_place (con, c, 7, 1000, "9,10,11,12,13,14,15");
  sim_cluster_free (c);
}
END_TEST

START_TEST (test_consolidate_span)
{
  g_autoptr(SimPolicy) con = policy ("consolidate");
  g_autoptr(SimPolicy) ff = policy ("first-fit");
  SimCluster *a = mixed_cluster (), *b = mixed_cluster ();

  /* 12 GPUs on an idle cluster of 4 + 4 + 8: consolidate takes the 8-GPU
   * node and one 4-GPU node (two nodes woken); first-fit takes the nodes
   * in order, 4 + 4, and the remaining 4 on node 2 (three woken). */
  ck_assert_place (con, a, 12, 1000, "8,9,10,11,12,13,14,15,0,1,2,3");
  ck_assert_place (ff, b, 12, 1000, "0,1,2,3,4,5,6,7,8,9,10,11");
  sim_cluster_free (a);
  sim_cluster_free (b);

  /* 10 GPUs with node 2 partly used (2 taken, 6 free): whole idle nodes
   * (4 + 4), and the remaining 2 on node 2, already in use. */
  a = mixed_cluster ();
  take (a, 8, 1000);
  take (a, 9, 1000);
  ck_assert_place (con, a, 10, 1000, "0,1,2,3,4,5,6,7,10,11");
  sim_cluster_free (a);
}
END_TEST

START_TEST (test_consolidate_fraction)
{
  g_autoptr(SimPolicy) con = policy ("consolidate");
  SimCluster *c = sim_cluster_new ();

  add_pool (c, "DGX-A100", 3, 4);
  /* GPU 1 (node 0) has 300 free, GPU 5 (node 1) 600; node 2 idle. */
  take (c, 1, 700);
  take (c, 5, 400);
  take (c, 4, 1000);
  /* A shared GPU with the least room that fits. */
  ck_assert_place (con, c, 1, 250, "1");
  ck_assert_place (con, c, 1, 500, "5");
  /* No shared GPU has 500 left (GPU 5 has 100, GPU 1 50): a free GPU on
   * a node in use, the busiest (node 1: 2 free; node 0: 3 free). */
  ck_assert_place (con, c, 1, 500, "6");
  ck_assert_place (con, c, 1, 900, "7");
  /* Node 1 is full: node 0 (in use) before idle node 2. */
  ck_assert_place (con, c, 1, 900, "0");
  sim_cluster_free (c);
}
END_TEST

/* Whether a node is asleep, for the tests: the nodes set in the mask. */
static gboolean
asleep_in_mask (gpointer data, guint node)
{
  return (GPOINTER_TO_UINT (data) >> node) & 1;
}

START_TEST (test_consolidate_awake_first)
{
  /* Three idle DGX H100 (GPUs 0-7, 8-15, 16-23) and a fourth with 4 GPUs
   * (24-27); node 0 asleep.  An idle node awake goes before one asleep,
   * and the largest before smaller ones. */
  SimPolicySetup setup = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPolicy) con = NULL;
  SimCluster *c = sim_cluster_new ();

  add_pool (c, "DGX-H100", 3, 8);
  add_pool (c, "DGX-H100", 1, 4);
  setup.node_asleep = asleep_in_mask;
  setup.node_asleep_data = GUINT_TO_POINTER (1u << 0);
  con = sim_policy_new ("fifo", "consolidate", &setup, &error);
  ck_assert_msg (con != NULL, "%s", error ? error->message : "");
  /* 2 GPUs: node 1, the first awake node of the largest size (the 4-GPU
   * node would fit them with fewer GPUs idle beside them). */
  ck_assert_place (con, c, 2, 1000, "8,9");
  /* 16 GPUs: whole idle nodes, the largest first, an awake one before one
   * asleep: node 2, then node 0 (asleep, but one node of 8 rather than the
   * 4-GPU node and a share of another). */
  ck_assert_place (con, c, 16, 1000, "16,17,18,19,20,21,22,23,0,1,2,3,4,5,6,7");
  sim_cluster_free (c);

  /* Without the function nobody sleeps: node 0, the lowest, first. */
  c = sim_cluster_new ();
  add_pool (c, "DGX-H100", 3, 8);
  {
    g_autoptr(SimPolicy) plain = policy ("consolidate");
    ck_assert_place (plain, c, 2, 1000, "0,1");
  }
  sim_cluster_free (c);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Whole runs. */

/* What a run looked like, from the jobs' starts and ends alone. */
typedef struct {
  const SimCluster *cluster;
  guint    *node_jobs;    /* per node: jobs holding some of its GPUs */
  guint    *gpu_milli;    /* per GPU: thousandths held, by our own count */
  GHashTable *held;       /* job id -> GArray of its GPUs (with their node) */
  SimTime   last;
  guint     idle_nodes;   /* nodes with no job now */
  double    idle_node_s;  /* integral of idle_nodes over time */
  guint64   starts;
  GString  *log;          /* "id:gpu,gpu;" per start, for determinism */
  gboolean  bad;
  char     *why;
} Tally;

static void
tally_init (Tally *t, SimSimulation *sim)
{
  memset (t, 0, sizeof *t);
  t->cluster = sim_simulation_get_cluster (sim);
  t->node_jobs = g_new0 (guint, sim_cluster_get_n_nodes (t->cluster));
  t->gpu_milli = g_new0 (guint, sim_cluster_get_n_gpus (t->cluster));
  t->held = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                   (GDestroyNotify) g_array_unref);
  t->idle_nodes = sim_cluster_get_n_nodes (t->cluster);
  t->log = g_string_new (NULL);
}

static void
tally_clear (Tally *t)
{
  g_free (t->node_jobs);
  g_free (t->gpu_milli);
  g_hash_table_unref (t->held);
  g_string_free (t->log, TRUE);
  g_free (t->why);
}

static void
tally_bad (Tally *t, char *why)
{
  if (!t->bad)
    t->why = why;
  else
    g_free (why);
  t->bad = TRUE;
}

static void
tally_advance (Tally *t, SimTime now)
{
  t->idle_node_s += t->idle_nodes * sim_time_to_seconds (now - t->last);
  t->last = now;
}

static void
observe (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Tally *t = data;
  SimTime now = sim_simulation_get_now (sim);
  gint64 id = (gint64) job->spec.id;

  tally_advance (t, now);
  if (job->state == SIM_JOB_RUNNING)
    {
      GArray *gpus = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autoptr(GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);

      t->starts++;
      g_string_append_printf (t->log, "%" G_GINT64_FORMAT ":", id);
      for (guint i = 0; i < job->n_gpus; i++)
        {
          guint32 g = job->gpus[i];
          if (g_hash_table_contains (seen, GUINT_TO_POINTER (g + 1)))
            tally_bad (t, g_strdup_printf ("job %" G_GINT64_FORMAT " holds GPU %u twice", id, g));
          g_hash_table_add (seen, GUINT_TO_POINTER (g + 1));
          t->gpu_milli[g] += job->spec.gpu_milli;
          if (t->gpu_milli[g] > 1000)
            tally_bad (t, g_strdup_printf ("GPU %u given %u/1000", g, t->gpu_milli[g]));
          g_array_append_val (gpus, g);
          g_string_append_printf (t->log, "%u,", g);
        }
      g_string_append_c (t->log, ';');
      /* Nodes: count each node once per job. */
      for (guint i = 0; i < gpus->len; i++)
        {
          guint node = sim_cluster_get_gpu (t->cluster, g_array_index (gpus, guint32, i))->node;
          gboolean first = TRUE;
          for (guint k = 0; k < i; k++)
            first &= sim_cluster_get_gpu (t->cluster, g_array_index (gpus, guint32, k))->node != node;
          if (first && t->node_jobs[node]++ == 0)
            t->idle_nodes--;
        }
      g_hash_table_insert (t->held, g_memdup2 (&id, sizeof id), gpus);
    }
  else
    {
      GArray *gpus = g_hash_table_lookup (t->held, &id);
      if (gpus == NULL)
        return;
      for (guint i = 0; i < gpus->len; i++)
        {
          guint32 g = g_array_index (gpus, guint32, i);
          guint node = sim_cluster_get_gpu (t->cluster, g)->node;
          gboolean first = TRUE;
          t->gpu_milli[g] -= job->spec.gpu_milli;
          for (guint k = 0; k < i; k++)
            first &= sim_cluster_get_gpu (t->cluster, g_array_index (gpus, guint32, k))->node != node;
          if (first && --t->node_jobs[node] == 0)
            t->idle_nodes++;
        }
      g_hash_table_remove (t->held, &id);
    }
}

/* Twelve DGX H100 at about half load: small jobs of 1 to 4 GPUs and
 * node-sized ones, of spread durations, so that jobs end out of order and
 * leave holes that a placement either fills or spreads into. */
static const char consolidate_scenario[] =
  "[scenario]\n"
  "name = consolidate\n"
  "seed = 7\n"
  "horizon = 4d\n"
  "[pool h]\n"
  "model = DGX-H100\n"
  "count = 12\n"

  "[workload]\n"
  "source = synthetic\n"
  "rate = 6/h\n"
  "[class small]\n"
  "share = 0.8\n"
  "gpus = 1:0.4, 2:0.3, 4:0.3\n"
  "duration = lognormal(median=1h, sigma=1.2)\n"
  "[class node]\n"
  "share = 0.2\n"
  "gpus = 8\n"
  "duration = lognormal(median=2h, sigma=0.8)\n"
  "[policy]\n"
  "queue = fifo\n"
  "placement = first-fit\n";

/* Runs the scenario above with PLACEMENT; fills T. */
static SimSimulation *
run_tallied (const char *placement, guint64 seed, Tally *t)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *set_placement = g_strdup_printf ("policy.placement=%s", placement);
  g_autofree char *set_seed = g_strdup_printf ("scenario.seed=%" G_GUINT64_FORMAT, seed);
  const char *overrides[] = { set_placement, set_seed, NULL };
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (consolidate_scenario, -1,
                                                           "consolidate.ini", NULL, overrides,
                                                           &error);
  SimSimulation *sim;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  tally_init (t, sim);
  sim_simulation_set_job_observer (sim, observe, t, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  tally_advance (t, sim_simulation_get_now (sim));
  ck_assert_msg (!t->bad, "%s: %s", placement, t->why);
  return sim;
}

START_TEST (test_consolidate_keeps_nodes_idle)
{
  /* Over six seeds, consolidate keeps more node-hours wholly idle than
   * first-fit on the same jobs (measured: 2834 against 2778 node-hours,
   * +2.0 %): first-fit puts a job on the lowest-numbered node with room,
   * which may be an idle one while a node in use further on has room;
   * consolidate wakes a node only when no node in use has room.  Not
   * every seed gains (first-fit's fixed order also lets the last nodes
   * drain), so the test is on the sum. */
  double ff_total = 0, con_total = 0;

  for (guint64 seed = 1; seed <= 6; seed++)
    {
      Tally ff, con;
      g_autoptr(SimSimulation) a = run_tallied ("first-fit", seed, &ff);
      g_autoptr(SimSimulation) b = run_tallied ("consolidate", seed, &con);

      ff_total += ff.idle_node_s / 3600;
      con_total += con.idle_node_s / 3600;
      tally_clear (&ff);
      tally_clear (&con);
    }
  ck_assert_msg (con_total > ff_total * 1.01, "idle node-hours: consolidate %.1f, first-fit %.1f",
                 con_total, ff_total);
}
END_TEST

START_TEST (test_consolidate_deterministic)
{
  Tally x, y;
  g_autoptr(SimSimulation) a = run_tallied ("consolidate", 5, &x);
  g_autoptr(SimSimulation) b = run_tallied ("consolidate", 5, &y);

  ck_assert_str_eq (x.log->str, y.log->str);
  ck_assert (x.idle_node_s == y.idle_node_s);
  tally_clear (&x);
  tally_clear (&y);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The cap manager and the facility limit.                                   */

/* A100 SXM 40GB and DGX A100 (models/gpus/a100-sxm-40gb.ini,
 * models/nodes/dgx-a100.ini): the GPU's figures the hand computations
 * below use; the node's fans and power supplies are read from the
 * catalogue (dgxa()). */
#define A100_MAX 400.0
#define A100_IDLE 50.0

static const SimNodeModel *
dgxa (void)
{
  static SimCatalogue *cat = NULL;
  g_autoptr(GError) error = NULL;

  if (cat == NULL)
    cat = sim_catalogue_new_default (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  ck_assert_double_eq (sim_catalogue_lookup_gpu (cat, "A100-SXM-40GB")->tdp_w, A100_MAX);
  ck_assert_double_eq (sim_catalogue_lookup_gpu (cat, "A100-SXM-40GB")->idle_w, A100_IDLE);
  return sim_catalogue_lookup_node (cat, "DGX-A100");
}

/* NODES DGX A100 and JOBS jobs of class c (GPUS GPUs, activity ACTIVITY,
 * DURATION), arriving within milliseconds of 0; then EXTRA. */
static char *
policy_text (guint nodes, guint jobs, guint gpus, double activity, const char *duration,
             const char *extra)
{
  return g_strdup_printf ("[scenario]\nname = power-policy\nseed = 1\n"
                          "[pool a]\nmodel = DGX-A100\ncount = %u\n"
                          "[workload]\nsource = synthetic\nrate = 3600000/h\njobs = %u\n"
                          "[policy]\nqueue = fifo\nplacement = first-fit\n"
                          "[class c]\ngpus = %u\nduration = %s\nactivity = %g\n"
                          "[power]\n%s\n",
                          nodes, jobs, gpus, duration, activity, extra);
}

static SimSimulation *
policy_sim (const char *text, const char * const *overrides)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "policy.ini", NULL,
                                                           overrides, &error);
  SimSimulation *sim;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  return sim;
}

static void
run_ok (SimSimulation *sim)
{
  g_autoptr(GError) error = NULL;
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
}

static double
metric (SimSimulation *sim, const char *name)
{
  double v = NAN;

  ck_assert_msg (sim_report_get_value (sim_simulation_get_report (sim), name, &v), "%s", name);
  return v;
}

static gboolean
has_metric (SimSimulation *sim, const char *name)
{
  double v;
  return sim_report_get_value (sim_simulation_get_report (sim), name, &v);
}

/* Jobs' first start and end, by id (ids from 1). */
typedef struct {
  SimTime start[16], end[16];
} Times;

static void
record_times (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Times *t = data;

  if (job->spec.id >= 16)
    return;
  if (job->state == SIM_JOB_RUNNING)
    t->start[job->spec.id] = job->start;
  else if (job->state == SIM_JOB_DONE)
    t->end[job->spec.id] = job->end;
}

/* What the test sees at every change of state: the facility energy by its
 * own integral, and any reading over the limit or a cap. */
typedef struct {
  double   limit_w;
  SimTime  last;
  double   facility, energy_j, peak_w;
  guint    changes;
  char    *bad;
} Watcher;

static void
watcher_bad (Watcher *w, char *why)
{
  if (w->bad == NULL)
    w->bad = why;
  else
    g_free (why);
}

static void
watch_all (SimSimulation *sim, SimTime now, gpointer data)
{
  Watcher *w = data;
  const SimCluster *c = sim_simulation_get_cluster (sim);
  double it, facility;

  w->energy_j += w->facility * sim_time_to_seconds (now - w->last);
  w->last = now;
  sim__kernel_get_power (sim, &it, &facility);
  w->facility = facility;
  w->peak_w = MAX (w->peak_w, facility);
  w->changes++;
  if (w->limit_w > 0 && facility > w->limit_w * (1 + 1e-9))
    watcher_bad (w, g_strdup_printf ("at %.3f s the facility draws %.6f W, over %.0f W",
                                     sim_time_to_seconds (now), facility, w->limit_w));
  for (guint g = 0; g < sim_cluster_get_n_gpus (c); g++)
    {
      double cap = sim__power_module_get_gpu_cap (sim, g), draw = sim__kernel_get_gpu_power (sim, g);
      if (cap > 0 && draw > cap * (1 + 1e-12))
        watcher_bad (w, g_strdup_printf ("at %.3f s GPU %u draws %.6f W over its cap %.6f W",
                                         sim_time_to_seconds (now), g, draw, cap));
    }
  for (guint n = 0; n < sim_cluster_get_n_nodes (c); n++)
    if (sim__kernel_get_node_power (sim, n) > dgxa ()->max_power_w)
      watcher_bad (w, g_strdup_printf ("at %.3f s node %u draws %.1f W, over its rating",
                                       sim_time_to_seconds (now), n,
                                       sim__kernel_get_node_power (sim, n)));
}

/* Starts W on SIM, which has not started: the idle draw holds from 0. */
static void
watcher_start (Watcher *w, SimSimulation *sim, double limit_w)
{
  double it;

  memset (w, 0, sizeof *w);
  w->limit_w = limit_w;
  sim__kernel_get_power (sim, &it, &w->facility);
  w->peak_w = w->facility;
  sim__kernel_connect (sim, SIM_HOOK_STATE_CHANGED, G_CALLBACK (watch_all), w);
}

static void
watcher_finish (Watcher *w, SimSimulation *sim)
{
  SimTime end = sim_simulation_get_now (sim);

  w->energy_j += w->facility * sim_time_to_seconds (end - w->last);
  w->last = end;
}

/* The dynamic share f^3 of an A100 capped at CAP. */
static double
a100_dyn (double cap)
{
  return (cap - A100_IDLE) / (A100_MAX - A100_IDLE);
}

/* What the facility draws more when one GPU of a DGX A100 draws DGPU more:
 * the node's fans follow the GPUs' dynamic power, all behind its power
 * supplies, then the facility's power distribution (no [cooling]). */
static double
dgxa_wall (double dgpu)
{
  const SimNodeModel *m = dgxa ();

  return (dgpu + (m->fan_max_power_w - m->fan_idle_power_w) * dgpu /
                   (8 * (A100_MAX - A100_IDLE))) /
         m->psu_efficiency / SIM_POWER_ELECTRICAL_EFFICIENCY_DEFAULT;
}

START_TEST (test_manager_hand)
{
  /* One light job (1 GPU, activity 0.3, 1 h) on a DGX A100: after the
   * 10 min hold every GPU is capped at 150 W, the job's too (0.3 < 50 %).
   * Under the cap its clock is f = (100/350)^(1/3); it needs 0.3 / f of
   * the GPU's time (< 1, so it is not slowed) and draws
   * 50 + 350 f^3 0.3 / f W instead of 50 + 350 x 0.3.  Idle GPUs draw
   * their idle power either way. */
  g_autofree char *text = policy_text (1, 1, 1, 0.3, "constant(1h)",
                                       "[power_manager]\nthreshold = 50%\nlow_cap = 150W\n"
                                       "hold = 10min\n");
  g_autoptr(SimSimulation) sim = policy_sim (text, NULL);
  Times t = { { 0 }, { 0 } };
  Watcher w = { 0 };
  double f3 = a100_dyn (150), f = cbrt (f3), end_s, saved_w;

  sim_simulation_set_job_observer (sim, record_times, &t, NULL);
  watcher_start (&w, sim, 0);
  run_ok (sim);
  watcher_finish (&w, sim);
  ck_assert_msg (w.bad == NULL, "%s", w.bad);
  /* Not slowed: a light job under a cap it keeps up with. */
  ck_assert_int_eq (t.end[1] - t.start[1], SIM_HOUR);
  end_s = sim_time_to_seconds (t.end[1]);
  ck_assert_double_eq_tol (metric (sim, "power_manager_capped_gpu_hours"),
                           8 * (end_s - 600) / 3600, 1e-9);
  ck_assert_double_eq (metric (sim, "power_manager_cap_lowerings"), 8);
  ck_assert_double_eq (metric (sim, "power_manager_cap_raises"), 0);
  /* Energy saved: the job's GPU's draw, from 600 s to the end. */
  saved_w = dgxa_wall ((A100_IDLE + 350 * 0.3) - (A100_IDLE + 350 * f3 * 0.3 / f));
  ck_assert_double_eq_tol (metric (sim, "power_manager_energy_saved"),
                           saved_w * (end_s - 600) / 3.6e6, 1e-9);
  ck_assert_double_eq (metric (sim, "power_manager_jct_change"), 0);
  /* The baseline's energy against the test's own integral of this run. */
  ck_assert_double_eq_tol (metric (sim, "power_manager_baseline_energy") -
                             metric (sim, "power_manager_energy_saved"),
                           w.energy_j / 3.6e6, 1e-9);
}
END_TEST

START_TEST (test_manager_baseline_is_a_run)
{
  /* The baseline is the same scenario without the manager: its figures
   * are those of a second run the test makes itself. */
  g_autofree char *text = policy_text (2, 12, 2, 0.4, "lognormal(median=30min, sigma=1)",
                                       "[power_manager]\nhold = 2min\nraise_after = 1min\n");
  const char *off[] = { "power_manager.enable=false", NULL };
  g_autoptr(SimSimulation) on = policy_sim (text, NULL);
  g_autoptr(SimSimulation) plain = policy_sim (text, off);
  Watcher w = { 0 };

  run_ok (on);
  watcher_start (&w, plain, 0);
  run_ok (plain);
  watcher_finish (&w, plain);
  /* Off, the manager reports that it did nothing, against itself. */
  ck_assert_double_eq (metric (plain, "power_manager_capped_gpu_hours"), 0);
  ck_assert_double_eq (metric (plain, "power_manager_energy_saved"), 0);
  ck_assert_double_eq_tol (metric (plain, "power_manager_baseline_energy"), w.energy_j / 3.6e6,
                           1e-9);
  ck_assert_double_eq_tol (metric (on, "power_manager_baseline_energy"), w.energy_j / 3.6e6,
                           1e-9);
  ck_assert_double_eq_tol (metric (on, "power_manager_jct_change"),
                           metric (on, "jct_mean") - metric (plain, "jct_mean"), 1e-9);
  ck_assert (metric (on, "power_manager_energy_saved") > 0);
}
END_TEST

START_TEST (test_manager_raise_after)
{
  /* A compute-bound job (activity 1) arrives on GPUs capped since 0
   * (hold 0): the cap is lifted raise_after after it starts, so its first
   * R s run at the capped clock f: it ends R (1 - f) s late. */
  const SimTime raise[] = { 0, 5 * SIM_MINUTE, 20 * SIM_MINUTE };
  double f = cbrt (a100_dyn (150));

  for (guint k = 0; k < G_N_ELEMENTS (raise); k++)
    {
      g_autofree char *extra = g_strdup_printf ("[power_manager]\nhold = 0s\nraise_after = %"
                                                G_GINT64_FORMAT "s\nbaseline = false\n",
                                                raise[k] / SIM_SECOND);
      g_autofree char *text = policy_text (1, 1, 8, 1.0, "constant(1h)", extra);
      g_autoptr(SimSimulation) sim = policy_sim (text, NULL);
      Times t = { { 0 }, { 0 } };
      double late;

      sim_simulation_set_job_observer (sim, record_times, &t, NULL);
      run_ok (sim);
      late = sim_time_to_seconds (t.end[1] - t.start[1]) - 3600;
      ck_assert_msg (fabs (late - sim_time_to_seconds (raise[k]) * (1 - f)) < 1e-6,
                     "raise_after %" G_GINT64_FORMAT " s: %.9f s late, expected %.9f",
                     raise[k] / SIM_SECOND, late, sim_time_to_seconds (raise[k]) * (1 - f));
      ck_assert (!has_metric (sim, "power_manager_energy_saved"));
    }
}
END_TEST

/* Runs TEXT with OVERRIDE and returns METRIC. */
static double
metric_with (const char *text, const char *override, const char *name)
{
  const char *o[] = { override, NULL };
  g_autoptr(SimSimulation) sim = policy_sim (text, override != NULL ? o : NULL);

  run_ok (sim);
  return metric (sim, name);
}

START_TEST (test_manager_keys)
{
  /* A mix of light (0.3) and heavy jobs: each key moves its figure. */
  g_autofree char *text =
    policy_text (2, 24, 2, 0.3, "lognormal(median=40min, sigma=0.8)",
                 "[class heavy]\ngpus = 4\nduration = constant(30min)\nactivity = 0.9\n"
                 "[power_manager]\nthreshold = 50%\nlow_cap = 150W\nhold = 5min\n");
  const char *cap_h = "power_manager_capped_gpu_hours", *saved = "power_manager_energy_saved";

  /* threshold: under 20 % only idle GPUs are capped, not the light jobs'. */
  ck_assert (metric_with (text, "power_manager.threshold=20%", cap_h) <
             metric_with (text, NULL, cap_h));
  ck_assert (metric_with (text, "power_manager.threshold=20%", saved) <
             metric_with (text, NULL, saved));
  /* low_cap: a lower cap saves more. */
  ck_assert (metric_with (text, "power_manager.low_cap=130W", saved) >
             metric_with (text, NULL, saved));
  ck_assert (metric_with (text, "power_manager.low_cap=300W", saved) <
             metric_with (text, NULL, saved));
  /* hold: a longer hold caps less. */
  ck_assert (metric_with (text, "power_manager.hold=30min", cap_h) <
             metric_with (text, NULL, cap_h));
  /* raise_after: keeping caps longer caps more GPU-hours and costs time. */
  ck_assert (metric_with (text, "power_manager.raise_after=10min", cap_h) >
             metric_with (text, NULL, cap_h));
  ck_assert (metric_with (text, "power_manager.raise_after=10min", "power_manager_jct_change") >
             metric_with (text, NULL, "power_manager_jct_change"));
  /* enable = false: nothing capped, and the same jobs' times as without
   * the section. */
  {
    const char *o[] = { "power_manager.enable=false", NULL };
    g_autoptr(SimSimulation) sim = policy_sim (text, o);
    g_autofree char *bare = g_strndup (text, strstr (text, "[power_manager]") - text);
    g_autoptr(SimSimulation) none = policy_sim (bare, NULL);
    run_ok (sim);
    run_ok (none);
    ck_assert_double_eq (metric (sim, cap_h), 0);
    ck_assert_double_eq (metric (sim, "power_manager_cap_lowerings"), 0);
    ck_assert (!has_metric (none, cap_h));
    ck_assert_double_eq (metric (sim, "jct_mean"), metric (none, "jct_mean"));
  }
}
END_TEST

START_TEST (test_facility_cap_hand)
{
  /* One 8-GPU compute-bound job on a DGX A100: capped alike at c, each GPU
   * draws c, and the facility F(c) = F(400) - B (400 - c) with B = 8 x
   * what a watt more on one GPU draws at the facility (dgxa_wall (1): the
   * fans follow the GPUs' dynamic power).  A limit of F(400) - 100 B gives
   * c = 300 W. */
  g_autofree char *text = policy_text (1, 1, 8, 1.0, "constant(1h)", "");
  double full, b = 8 * dgxa_wall (1);
  double limit;
  g_autofree char *set = NULL;
  const char *o[2];
  Watcher w = { 0 };

  {
    g_autoptr(SimSimulation) sim = policy_sim (text, NULL);
    watcher_start (&w, sim, 0);
    run_ok (sim);
    full = w.peak_w;
  }
  limit = full - 100 * b;
  set = g_strdup_printf ("facility.max_power=%.6fW", limit);
  o[0] = set;
  o[1] = NULL;
  {
    g_autofree char *text2 = policy_text (1, 1, 8, 1.0, "constant(1h)",
                                          "[facility]\nmax_power = 1MW\nbaseline = false\n");
    g_autoptr(SimSimulation) sim = policy_sim (text2, o);
    Times t = { { 0 }, { 0 } };
    double f = cbrt (a100_dyn (300));
    Watcher w2 = { 0 };

    watcher_start (&w2, sim, limit);
    sim_simulation_set_job_observer (sim, record_times, &t, NULL);
    run_ok (sim);
    ck_assert_msg (w2.bad == NULL, "%s", w2.bad);
    /* The whole hour at 300 W: f = (250/350)^(1/3), so 3600 / f s. */
    ck_assert_msg (fabs (sim_time_to_seconds (t.end[1] - t.start[1]) - 3600 / f) < 1e-3,
                   "ran %.6f s, expected %.6f", sim_time_to_seconds (t.end[1] - t.start[1]),
                   3600 / f);
    ck_assert_double_eq_tol (metric (sim, "facility_limit_lowest_cap"), 75, 1e-4);
    ck_assert_double_eq_tol (metric (sim, "power_facility_peak"), limit, 1e-3);
    ck_assert_double_eq (metric (sim, "facility_time_over_limit"), 0);
    ck_assert_double_eq_tol (metric (sim, "facility_limit_time"),
                             sim_time_to_seconds (t.end[1] - t.start[1]), 1e-6);
  }
}
END_TEST

START_TEST (test_facility_hold_hand)
{
  /* Two 8-GPU jobs on two DGX A100 with a limit between one running and
   * two: the second waits exactly until the first ends. */
  g_autofree char *text = policy_text (2, 2, 8, 1.0, "constant(1h)", "");
  double one = 0;
  Watcher w = { 0 };

  {
    const char *o[] = { "workload.jobs=1", NULL };
    g_autoptr(SimSimulation) sim = policy_sim (text, o);
    watcher_start (&w, sim, 0);
    run_ok (sim);
    one = w.peak_w;
  }
  {
    g_autofree char *set = g_strdup_printf ("facility.max_power=%.3fW", one + 1000);
    const char *o[] = { set, "facility.limit_mode=hold", NULL };
    g_autofree char *text2 = policy_text (2, 2, 8, 1.0, "constant(1h)",
                                          "[facility]\nmax_power = 1MW\nbaseline = false\n");
    g_autoptr(SimSimulation) sim = policy_sim (text2, o);
    Times t = { { 0 }, { 0 } };
    Watcher w2 = { 0 };

    watcher_start (&w2, sim, one + 1000);
    sim_simulation_set_job_observer (sim, record_times, &t, NULL);
    run_ok (sim);
    ck_assert_msg (w2.bad == NULL, "%s", w2.bad);
    ck_assert_int_eq (t.start[2], t.end[1]);
    ck_assert_int_eq (t.end[2] - t.start[2], SIM_HOUR);
    ck_assert (metric (sim, "facility_limit_held_starts") >= 1);
    /* Held from the second job's arrival, milliseconds in, to the end of
     * the first. */
    ck_assert_double_eq_tol (metric (sim, "facility_limit_time"),
                             sim_time_to_seconds (t.end[1] - t.start[1]), 0.01);
    ck_assert_double_eq (metric (sim, "facility_time_over_limit"), 0);
  }
}
END_TEST

/* A loaded mix on four DGX A100, for the limit under way. */
static char *
loaded_text (const char *extra)
{
  g_autofree char *more = g_strdup_printf ("[class light]\ngpus = 1\nduration = "
                                           "lognormal(median=50min, sigma=0.7)\nactivity = 0.3\n"
                                           "%s", extra);
  return policy_text (4, 60, 4, 0.95, "lognormal(median=40min, sigma=0.8)", more);
}

START_TEST (test_facility_never_exceeded)
{
  /* Every queue order, both modes, with and without the manager: at every
   * change of state the facility is at or under its limit, no GPU over
   * its cap, no node over its rating. */
  static const char *queues[] = { "fifo", "sjf", "priority", "easy", "las", "fair-share" };
  static const char *modes[] = { "cap", "hold" };

  for (guint q = 0; q < G_N_ELEMENTS (queues); q++)
    for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
      for (guint mgr = 0; mgr < 2; mgr++)
        {
          g_autofree char *text = loaded_text ("[facility]\nmax_power = 14kW\nbaseline = false\n"
                                               "[power_manager]\nbaseline = false\n");
          g_autofree char *queue = g_strdup_printf ("policy.queue=%s", queues[q]);
          g_autofree char *mode = g_strdup_printf ("facility.limit_mode=%s", modes[m]);
          const char *o[] = { queue, mode, mgr ? "power_manager.enable=true"
                                               : "power_manager.enable=false", NULL };
          g_autoptr(SimSimulation) sim = policy_sim (text, o);
          Watcher w = { 0 };

          watcher_start (&w, sim, 14000);
          run_ok (sim);
          ck_assert_msg (w.bad == NULL, "%s/%s/%u: %s", queues[q], modes[m], mgr, w.bad);
          ck_assert_msg (w.changes > 50, "%u changes", w.changes);
          /* The limit did bind. */
          ck_assert (metric (sim, "facility_limit_time") > 0);
          ck_assert_double_eq (metric (sim, "facility_time_over_limit"), 0);
          ck_assert_double_eq (metric (sim, "jobs_completed"), 60);
        }
}
END_TEST

START_TEST (test_facility_keys)
{
  g_autofree char *text = loaded_text ("[facility]\nmax_power = 16kW\n");
  const char *jct = "facility_limit_jct_change", *t = "facility_limit_time";

  /* max_power: a lower limit binds longer and costs more time. */
  ck_assert (metric_with (text, "facility.max_power=13kW", t) > metric_with (text, NULL, t));
  ck_assert (metric_with (text, "facility.max_power=13kW", jct) > metric_with (text, NULL, jct));
  /* A limit the cluster never reaches does nothing. */
  ck_assert_double_eq (metric_with (text, "facility.max_power=1MW", t), 0);
  ck_assert_double_eq (metric_with (text, "facility.max_power=1MW", jct), 0);
  /* limit_mode: hold holds starts and caps nothing; cap holds none. */
  {
    const char *o[] = { "facility.limit_mode=hold", NULL };
    g_autoptr(SimSimulation) sim = policy_sim (text, o);
    run_ok (sim);
    ck_assert (metric (sim, "facility_limit_held_starts") > 0);
    ck_assert (!has_metric (sim, "facility_limit_lowest_cap"));
    ck_assert (metric (sim, "facility_limit_wait_change") > 0);
  }
  {
    g_autoptr(SimSimulation) sim = policy_sim (text, NULL);
    run_ok (sim);
    ck_assert (metric (sim, "facility_limit_lowest_cap") < 100);
    ck_assert (!has_metric (sim, "facility_limit_held_starts"));
  }
  /* min_cap: the caps never go below it; too high a floor cannot keep
   * the limit, and the time over it shows. */
  /* Under the default floor (30 %) this limit takes some cap below 60 %,
   * so a floor of 60 % has something to hold: the lowest cap is then the
   * floor itself. */
  ck_assert (metric_with (text, NULL, "facility_limit_lowest_cap") < 60);
  ck_assert_double_eq_tol (metric_with (text, "facility.min_cap=60%", "facility_limit_lowest_cap"),
                           60, 1e-9);
  ck_assert (metric_with (text, "facility.max_power=12kW", "facility_time_over_limit") == 0);
  {
    const char *o[] = { "facility.max_power=12kW", "facility.min_cap=90%", NULL };
    g_autoptr(SimSimulation) sim = policy_sim (text, o);
    run_ok (sim);
    ck_assert (metric (sim, "facility_time_over_limit") > 0);
    ck_assert_double_eq_tol (metric (sim, "facility_limit_lowest_cap"), 90, 1e-9);
  }
  /* baseline = false: no comparison. */
  ck_assert (metric_with (text, "facility.baseline=false", t) > 0);
  {
    const char *o[] = { "facility.baseline=false", NULL };
    g_autoptr(SimSimulation) sim = policy_sim (text, o);
    run_ok (sim);
    ck_assert (!has_metric (sim, jct));
  }
}
END_TEST

START_TEST (test_held_start)
{
  /* Through the decision API: a start the limit holds back is
   * SIM_ERROR_HELD, and the job stays queued; the policy then goes on. */
  g_autofree char *text = policy_text (2, 2, 8, 1.0, "constant(1h)",
                                       "[facility]\nmax_power = 1MW\nlimit_mode = hold\n"
                                       "baseline = false\n");
  g_autoptr(GError) error = NULL;
  double one;
  Watcher w = { 0 };

  {
    const char *o[] = { "workload.jobs=1", "facility.max_power=none", NULL };
    g_autoptr(SimSimulation) sim = policy_sim (text, o);
    watcher_start (&w, sim, 0);
    run_ok (sim);
    one = w.peak_w;
  }
  {
    g_autofree char *set = g_strdup_printf ("facility.max_power=%.3fW", one + 1000);
    const char *o[] = { set, NULL };
    g_autoptr(SimSimulation) sim = policy_sim (text, o);
    guint32 gpus[8];
    SimPlacement p = { gpus, 8, 1000, -1 };
    SimSchedContext *ctx;
    SimJob * const *queue;
    guint n = 0;

    /* First decision: both jobs queued; start them by hand. */
    ck_assert (sim_simulation_run_to_decision (sim, &error));
    ctx = sim_simulation_get_decision (sim);
    queue = sim_sched_context_get_queue (ctx, &n);
    while (n < 2)
      {
        ck_assert (sim_simulation_decide (sim, FALSE, &error));
        ck_assert (sim_simulation_run_to_decision (sim, &error));
        ctx = sim_simulation_get_decision (sim);
        queue = sim_sched_context_get_queue (ctx, &n);
      }
    ck_assert (sim_place_first_fit (sim_sched_context_get_cluster (ctx), queue[0], &p));
    ck_assert_msg (sim_sched_context_start (ctx, queue[0], &p, &error), "%s",
                   error ? error->message : "");
    p.n_gpus = 8;
    ck_assert (sim_place_first_fit (sim_sched_context_get_cluster (ctx), queue[1], &p));
    ck_assert (!sim_sched_context_start (ctx, queue[1], &p, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_HELD));
    ck_assert (strstr (error->message, "limit") != NULL);
    ck_assert_int_eq (queue[1]->state, SIM_JOB_QUEUED);
    g_clear_error (&error);
    /* The policy's own pass then finds it held too, without an error. */
    ck_assert_msg (sim_simulation_decide (sim, TRUE, &error), "%s", error ? error->message : "");
    ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
    ck_assert_double_eq (metric (sim, "jobs_completed"), 2);
  }
}
END_TEST

START_TEST (test_both_policies)
{
  /* The manager and the limit together, nodes asleep when idle: each
   * one's baseline is the run with the other alone, made here by the
   * test, and neither baseline runs baselines of its own. */
  g_autofree char *text = loaded_text ("[facility]\nmax_power = 14kW\n[power_manager]\n");
  const char *on[] = { "power.sleep_after=15min", "power.wake_time=1min", NULL };
  const char *mgr_only[] = { "power.sleep_after=15min", "power.wake_time=1min",
                             "facility.max_power=none", NULL };
  const char *fac_only[] = { "power.sleep_after=15min", "power.wake_time=1min",
                             "power_manager.enable=false", NULL };
  g_autoptr(SimSimulation) both = policy_sim (text, on);
  g_autoptr(SimSimulation) m = policy_sim (text, mgr_only);
  g_autoptr(SimSimulation) f = policy_sim (text, fac_only);

  run_ok (both);
  run_ok (m);
  run_ok (f);
  ck_assert_double_eq_tol (metric (both, "facility_limit_baseline_energy"),
                           metric (m, "energy_facility_kwh"), 1e-9);
  ck_assert_double_eq_tol (metric (both, "power_manager_baseline_energy"),
                           metric (f, "energy_facility_kwh"), 1e-9);
  ck_assert_double_eq_tol (metric (both, "facility_limit_jct_change"),
                           metric (both, "jct_mean") - metric (m, "jct_mean"), 1e-9);
  ck_assert_double_eq (metric (both, "facility_time_over_limit"), 0);
}
END_TEST

/* A scenario with the manager and a limit, and LINE ("key = value") in
 * [SECTION] (power_manager or facility), where the error must point. */
static char *
bad_text (const char *section, const char *line)
{
  gboolean pm = strcmp (section, "power_manager") == 0;
  g_autofree char *extra = g_strdup_printf ("[power_manager]\n%s%s\n"
                                            "[facility]\n%s\n%s\n",
                                            pm && g_str_has_prefix (line, "low_cap") ? ""
                                                                                     : "low_cap = 150W\n",
                                            pm ? line : "",
                                            !pm && g_str_has_prefix (line, "max_power") ? ""
                                                                                      : "max_power = 20kW",
                                            pm ? "" : line);
  return policy_text (1, 1, 1, 0.3, "constant(1h)", extra);
}

/* The message of the error loading TEXT (and building it, if BUILD) gives. */
static char *
load_error (const char *text, gboolean build)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "policy.ini", NULL, NULL,
                                                           &error);

  if (sc != NULL && build)
    {
      g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
      ck_assert (sim == NULL);
    }
  ck_assert_msg (error != NULL, "no error for:\n%s", text);
  return g_strdup (error->message);
}

/* LINE in [SECTION] is an error that names the file, the line, the
 * section and key, and says NEEDLE (what was expected). */
static void
assert_bad (const char *section, const char *line, gboolean build, const char *needle)
{
  g_autofree char *text = bad_text (section, line);
  g_autofree char *msg = load_error (text, build);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autofree char *key = g_strndup (line, strcspn (line, " ="));
  g_autofree char *where = NULL;
  guint at = 0;

  for (guint k = 0; lines[k] != NULL; k++)
    if (strcmp (lines[k], line) == 0)
      at = k + 1;
  where = g_strdup_printf ("policy.ini:%u: [%s] %s: ", at, section, key);
  ck_assert_msg (strstr (msg, where) != NULL, "\"%s\" lacks \"%s\"", msg, where);
  ck_assert_msg (strstr (msg, needle) != NULL, "\"%s\" lacks \"%s\"", msg, needle);
}

START_TEST (test_bad_keys)
{
  /* Parse errors. */
  assert_bad ("power_manager", "threshold = 150%", FALSE, "at most 1");
  assert_bad ("power_manager", "threshold = 100%", FALSE, "below 1");
  assert_bad ("power_manager", "threshold = 0", FALSE, "above 0");
  assert_bad ("power_manager", "low_cap = 150", FALSE, "150W");
  assert_bad ("power_manager", "low_cap = 0.5W", FALSE, "at least 1 W");
  assert_bad ("power_manager", "hold = 5", FALSE, "5");
  assert_bad ("power_manager", "raise_after = soon", FALSE, "soon");
  assert_bad ("power_manager", "enable = maybe", FALSE, "true or false");
  assert_bad ("power_manager", "baseline = perhaps", FALSE, "true or false");
  assert_bad ("facility", "max_power = fast", FALSE, "1.2MW");
  assert_bad ("facility", "limit_mode = throttle", FALSE, "cap");
  assert_bad ("facility", "min_cap = 0", FALSE, "above 0");
  assert_bad ("facility", "min_cap = 150%", FALSE, "at most 1");
  assert_bad ("facility", "baseline = 2", FALSE, "true or false");
  /* Found when the simulation is built, against the cluster. */
  assert_bad ("power_manager", "low_cap = 40W", TRUE, "idle power");
  assert_bad ("power_manager", "low_cap = 500W", TRUE, "TDP");
  assert_bad ("facility", "min_cap = 10%", TRUE, "idle power");
  assert_bad ("facility", "max_power = 1kW", TRUE, "nothing running");
  /* A key misspelt gets a suggestion; a missing limit is named. */
  {
    g_autofree char *text = bad_text ("power_manager", "treshold = 0.5");
    g_autofree char *msg = load_error (text, FALSE);
    ck_assert_msg (strstr (msg, "treshold") && strstr (msg, "threshold"), "%s", msg);
  }
  {
    g_autofree char *text = policy_text (1, 1, 1, 0.3, "constant(1h)",
                                         "[facility]\nlimit_mode = cap\n");
    g_autofree char *msg = load_error (text, FALSE);
    ck_assert_msg (strstr (msg, "[facility] max_power") && strstr (msg, "missing"), "%s", msg);
  }
  /* A policy without the power model. */
  {
    const char *text = "[scenario]\nname = x\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                       "[workload]\nsource = synthetic\nrate = 1/h\njobs = 1\n[class c]\n"
                       "gpus = 1\nduration = constant(1h)\n[power_manager]\nlow_cap = 150W\n";
    g_autofree char *msg = load_error (text, TRUE);
    ck_assert_msg (strstr (msg, "policy.ini:") && strstr (msg, "[power_manager]") &&
                   strstr (msg, "[power]"), "%s", msg);
  }
}
END_TEST

/* A mixed cluster at low load with nodes that sleep: where the placement
 * decides how many nodes stay awake. */
static const char mixed_sleep_scenario[] =
  "[scenario]\nname = consolidate\nseed = 1\nhorizon = 7d\n"
  "[pool big]\nmodel = DGX-A100\ncount = 16\n"
  "[pool small]\nmodel = DGX-A100\ngpus_per_node = 4\ncount = 16\n"
  "[workload]\nsource = synthetic\nrate = 6/h\n"
  "[class training]\nshare = 0.3\ngpus = 4:0.5, 8:0.5\n"
  "duration = lognormal(median=2h, sigma=0.9)\nactivity = 0.95\n"
  "[class inference]\nshare = 0.3\ngpus = 1:0.6, 2:0.4\n"
  "duration = lognormal(median=8h, sigma=0.5)\nactivity = 0.3\n"
  "[class notebook]\nshare = 0.4\ngpus = 1\nduration = lognormal(median=3h, sigma=0.7)\n"
  "activity = 0.1\n"
  "[policy]\nqueue = fifo\nplacement = first-fit\n"
  "[power]\nsleep_after = 15min\nwake_time = 2min\n";

START_TEST (test_consolidate_energy)
{
  /* The facility energy over seeds 1-3 (the power model's own integral):
   * consolidate draws less than first-fit and far less than best-fit,
   * which wakes the smallest idle node (sim-placement-consolidate.c). */
  const char *placements[] = { "first-fit", "best-fit", "consolidate" };
  double total[3] = { 0, 0, 0 };

  for (guint p = 0; p < 3; p++)
    for (guint seed = 1; seed <= 3; seed++)
      {
        g_autofree char *set_p = g_strdup_printf ("policy.placement=%s", placements[p]);
        g_autofree char *set_s = g_strdup_printf ("scenario.seed=%u", seed);
        const char *o[] = { set_p, set_s, NULL };
        g_autoptr(SimSimulation) sim = policy_sim (mixed_sleep_scenario, o);
        run_ok (sim);
        total[p] += metric (sim, "energy_facility_kwh");
      }
  ck_assert_msg (total[2] < total[0] && total[2] < 0.85 * total[1],
                 "kWh: first-fit %.1f, best-fit %.1f, consolidate %.1f", total[0], total[1],
                 total[2]);
}
END_TEST

static Suite *
power_policy_suite (void)
{
  Suite *s = suite_create ("power-policy");
  TCase *tc = tcase_create ("consolidate");
  TCase *pm = tcase_create ("manager");
  TCase *fl = tcase_create ("facility");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_consolidate_registered);
  tcase_add_test (tc, test_consolidate_in_use_first);
  tcase_add_test (tc, test_consolidate_busiest);
  tcase_add_test (tc, test_consolidate_span);
  tcase_add_test (tc, test_consolidate_fraction);
  tcase_add_test (tc, test_consolidate_awake_first);
  tcase_add_test (tc, test_consolidate_keeps_nodes_idle);
  tcase_add_test (tc, test_consolidate_deterministic);
  tcase_add_test (tc, test_consolidate_energy);
  suite_add_tcase (s, tc);
  tcase_set_timeout (pm, 120);
  tcase_add_test (pm, test_manager_hand);
  tcase_add_test (pm, test_manager_baseline_is_a_run);
  tcase_add_test (pm, test_manager_raise_after);
  tcase_add_test (pm, test_manager_keys);
  tcase_add_test (pm, test_bad_keys);
  suite_add_tcase (s, pm);
  tcase_set_timeout (fl, 300);
  tcase_add_test (fl, test_facility_cap_hand);
  tcase_add_test (fl, test_facility_hold_hand);
  tcase_add_test (fl, test_facility_never_exceeded);
  tcase_add_test (fl, test_facility_keys);
  tcase_add_test (fl, test_held_start);
  tcase_add_test (fl, test_both_policies);
  suite_add_tcase (s, fl);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (power_policy_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
