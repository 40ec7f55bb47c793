/* check-elastic.c: bursting into a cloud pool and serverless GPU functions
 * (power/sim-elastic.h).
 *
 * What it checks, on a tiny hand-made trace whose schedule is worked out by
 * hand below: the autoscaler scales up exactly when the queue or the
 * oldest wait crosses its threshold (not before), the requested nodes take
 * jobs exactly the start-up latency after the request and are out of
 * service until then, an idle node is released exactly the scale-down
 * delay after its last job, and the bill equals the node-seconds from
 * request to release times the price (per started second, at least the
 * minimum billing, the catalogue's on-demand price, what is held at a
 * horizon); the defaults are the published ones (the cluster autoscaler's
 * 10 min, EC2's 60 s minimum); the wait with bursting is no longer than with the
 * burst off (max_nodes = 0), on the trace and on a synthetic mix over
 * several seeds; serverless functions: cold starts and warm starts within
 * the keep-warm window counted by hand, the bill equal to a hand sum of
 * GPU-seconds and invocation fees, JCT including the cold start, jobs.csv
 * saying where each job ran; every key moves its figure in the expected
 * direction; bad keys are errors with the file, line and key; a scenario
 * without the sections reports no elastic figure and writes jobs.csv as
 * before.
 * What it does not check: cloud prices against the providers' (the
 * catalogue's sources do that).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include <string.h>
#include "check-tree.h"

static char *tmpdir;

/* One DGX H100 of our own and two in the cloud.  Job 1 holds our node from
 * 0 to 3600 s; job 2 (100 s) and job 3 (200 s) ask for a whole node each,
 * for 1000 s.  With scale_up_queue = 2 the queue reaches 2 only at 200 s:
 * one node is requested then, takes jobs at 500 s (start-up 300 s), runs
 * job 2 from 500 to 1500 s and job 3 from 1500 to 2500 s, and is released
 * idle at 3100 s (scale-down delay 600 s): 2900 node-seconds billed. */
static const char *trace =
  "id,submit,duration,gpus,gpu_milli\n"
  "1,0,3600,8,1000\n"
  "2,100,1000,8,1000\n"
  "3,200,1000,8,1000\n";

static const char *base =
  "[scenario]\n"               /* 1 */
  "name = elastic\n"           /* 2 */
  "[pool own]\n"               /* 3 */
  "model = DGX-H100\n"         /* 4 */
  "count = 1\n"                /* 5 */
  "[pool cloud]\n"             /* 6 */
  "model = DGX-H100\n"         /* 7 */
  "count = 2\n"                /* 8 */
  "[workload]\n"               /* 9 */
  "source = native\n"          /* 10 */
  "trace = tiny.csv\n"         /* 11 */
  "[output]\n"                 /* 12 */
  "timeseries = false\n";      /* 13 */

static const char *elastic =
  "[elastic]\n"                /* 14 */
  "pool = cloud\n"             /* 15 */
  "scale_up_queue = 2\n"       /* 16 */
  "startup = 300s\n"           /* 17 */
  "scale_down_delay = 600s\n"  /* 18 */
  "price_per_node_hour = 98.32\n" /* 19 */
  "min_billing = 60s\n";       /* 20 */

#define PRICE 98.32

static void
setup (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  tmpdir = g_dir_make_tmp ("check-elastic-XXXXXX", &error);
  ck_assert_msg (tmpdir != NULL, "%s", error ? error->message : "");
  path = g_build_filename (tmpdir, "tiny.csv", NULL);
  ck_assert (g_file_set_contents (path, trace, -1, &error));
}

static void
teardown (void)
{
  check_remove_tree (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static SimScenario *
load (const char *text, const char * const *sets, GError **error)
{
  return sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir, sets, error);
}

static SimSimulation *
new_sim (const char *text, const char * const *sets)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = load (text, sets, &error);
  SimSimulation *sim;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  return sim;
}

static double
metric (SimSimulation *sim, const char *name)
{
  double v = NAN;

  ck_assert_msg (sim_report_get_value (sim_simulation_get_report (sim), name, &v),
                 "no metric %s", name);
  return v;
}

/* The whole run's figure NAME, with SETS on top of TEXT. */
static double
run_metric (const char *text, const char * const *sets, const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSimulation) sim = new_sim (text, sets);

  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  return metric (sim, name);
}

/* Start times by job id, as observed. */
static void
record_start (SimSimulation *sim, const SimJob *job, gpointer data)
{
  GHashTable *starts = data;

  if (job->state == SIM_JOB_RUNNING)
    g_hash_table_insert (starts, GSIZE_TO_POINTER (job->spec.id),
                         GSIZE_TO_POINTER ((gsize) (job->start / SIM_MILLISECOND)));
}

static double
start_of (GHashTable *starts, guint64 id)
{
  gpointer v;

  ck_assert (g_hash_table_lookup_extended (starts, GSIZE_TO_POINTER (id), NULL, &v));
  return GPOINTER_TO_SIZE (v) / 1000.0;
}

static gboolean
cloud_node_up (SimSimulation *sim, guint k)
{
  /* The own pool's one node is node 0; the cloud's are 1 and 2. */
  return sim_cluster_get_node (sim_simulation_get_cluster (sim), 1 + k)->available;
}

static void
run_until (SimSimulation *sim, double seconds)
{
  g_autoptr(GError) error = NULL;

  ck_assert_msg (sim_simulation_run_until (sim, sim_time_from_seconds (seconds), &error), "%s",
                 error ? error->message : "");
}

START_TEST (test_queue_trigger_schedule_and_bill)
{
  g_autofree char *text = g_strconcat (base, elastic, NULL);
  g_autoptr(SimSimulation) sim = new_sim (text, NULL);
  g_autoptr(GHashTable) starts = g_hash_table_new (NULL, NULL);
  g_autoptr(GError) error = NULL;

  sim_simulation_set_job_observer (sim, record_start, starts, NULL);
  /* Out of service until brought up. */
  ck_assert (!cloud_node_up (sim, 0) && !cloud_node_up (sim, 1));
  run_until (sim, 499.999);
  ck_assert (!cloud_node_up (sim, 0) && !cloud_node_up (sim, 1));
  run_until (sim, 500);
  ck_assert (cloud_node_up (sim, 0) && !cloud_node_up (sim, 1));
  run_until (sim, 3099.999);
  ck_assert (cloud_node_up (sim, 0));
  run_until (sim, 3100);
  ck_assert (!cloud_node_up (sim, 0) && !cloud_node_up (sim, 1));
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");

  /* Requested at 200 s, when the queue reached 2 (at 100 s it held one:
   * a request then would have started job 2 at 400 s). */
  ck_assert_double_eq (start_of (starts, 1), 0);
  ck_assert_double_eq (start_of (starts, 2), 500);
  ck_assert_double_eq (start_of (starts, 3), 1500);
  ck_assert_double_eq (metric (sim, "burst_scale_ups"), 1);
  ck_assert_double_eq (metric (sim, "burst_nodes_requested"), 1);
  ck_assert_double_eq (metric (sim, "burst_nodes_peak"), 1);
  /* 200 s to 3100 s. */
  ck_assert_double_eq_tol (metric (sim, "burst_node_hours"), 2900.0 / 3600, 1e-12);
  ck_assert_double_eq_tol (metric (sim, "burst_gpu_hours"), 8 * 2900.0 / 3600, 1e-12);
  ck_assert_double_eq_tol (metric (sim, "burst_cost"), 2900.0 / 3600 * PRICE, 1e-9);
  /* Jobs 2 and 3 on the cloud node, 1000 s each on 8 GPUs. */
  ck_assert_double_eq_tol (metric (sim, "burst_gpu_hours_used"), 8 * 2000.0 / 3600, 1e-12);
  ck_assert_double_eq (metric (sim, "burst_jobs"), 2);
  ck_assert_double_eq (metric (sim, "burst_price_per_node_hour"), PRICE);
  /* Our node busy all along (job 1, 0 to 3600 s); the three nodes 16/24
   * of the time: (8 x 3600 + 8 x 2000) / (24 x 3600). */
  ck_assert_double_eq_tol (metric (sim, "own_gpu_utilization"), 1.0, 1e-12);
  ck_assert_double_eq_tol (metric (sim, "gpu_utilization"), (8.0 * 3600 + 8 * 2000) / (24 * 3600),
                           1e-12);
  /* Waits 0, 400 and 1300 s. */
  ck_assert_double_eq_tol (metric (sim, "wait_mean"), 1700.0 / 3, 1e-9);
}
END_TEST

START_TEST (test_wait_trigger)
{
  /* No queue trigger; the oldest job (2, at 100 s) has waited 10 min at
   * 700 s: a node is requested then and takes job 2 at 1000 s.  Job 3
   * waits from 200 s; at 1000 s it has waited 800 s, past the threshold,
   * and a second node is requested (1000 s), up at 1300 s. */
  g_autofree char *text = g_strconcat (base, elastic, NULL);
  const char *sets[] = { "elastic.scale_up_queue=0", "elastic.scale_up_wait=10min", NULL };
  g_autoptr(SimSimulation) sim = new_sim (text, sets);
  g_autoptr(GHashTable) starts = g_hash_table_new (NULL, NULL);
  g_autoptr(GError) error = NULL;

  sim_simulation_set_job_observer (sim, record_start, starts, NULL);
  run_until (sim, 999.999);
  ck_assert (!cloud_node_up (sim, 0));
  run_until (sim, 1000);
  ck_assert (cloud_node_up (sim, 0) && !cloud_node_up (sim, 1));
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_double_eq (start_of (starts, 2), 1000);
  ck_assert_double_eq (start_of (starts, 3), 1300);
  ck_assert_double_eq (metric (sim, "burst_scale_ups"), 2);
  ck_assert_double_eq (metric (sim, "burst_nodes_peak"), 2);
  /* Node 1: 700 s to 2000 + 600 s; node 2: 1000 s to 2300 + 600 s. */
  ck_assert_double_eq_tol (metric (sim, "burst_cost"), (1900.0 + 1900.0) / 3600 * PRICE, 1e-9);
}
END_TEST

START_TEST (test_minimum_billing_and_seconds)
{
  /* One 10.5 s job on a cloud node requested at once (start-up 0), released
   * at once: 10.5 s is billed as 11 started seconds, or as the minimum. */
  static const char *short_trace = "id,submit,duration,gpus,gpu_milli\n"
                                   "1,0,3600,8,1000\n2,0,10.5,8,1000\n";
  g_autofree char *path = g_build_filename (tmpdir, "tiny.csv", NULL);
  g_autofree char *text = g_strconcat (base, elastic, NULL);
  const char *no_min[] = { "elastic.scale_up_queue=1", "elastic.startup=0s",
                           "elastic.scale_down_delay=0s", "elastic.min_billing=0s", NULL };
  const char *min[] = { "elastic.scale_up_queue=1", "elastic.startup=0s",
                        "elastic.scale_down_delay=0s", "elastic.min_billing=60s", NULL };

  ck_assert (g_file_set_contents (path, short_trace, -1, NULL));
  ck_assert_double_eq_tol (run_metric (text, no_min, "burst_node_hours"), 11.0 / 3600, 1e-15);
  ck_assert_double_eq_tol (run_metric (text, min, "burst_node_hours"), 60.0 / 3600, 1e-15);
  ck_assert_double_eq_tol (run_metric (text, min, "burst_cost"), 60.0 / 3600 * PRICE, 1e-12);
  ck_assert (g_file_set_contents (path, trace, -1, NULL));
}
END_TEST

START_TEST (test_burst_off_and_wait)
{
  g_autofree char *text = g_strconcat (base, elastic, NULL);
  const char *off[] = { "elastic.max_nodes=0", NULL };
  g_autoptr(SimSimulation) sim = new_sim (text, off);
  g_autoptr(GError) error = NULL;
  double wait_on = run_metric (text, NULL, "wait_mean");

  /* Burst off: jobs 2 and 3 wait for our node (3600 s, 4600 s). */
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_double_eq_tol (metric (sim, "wait_mean"), (3500.0 + 4400.0) / 3, 1e-9);
  ck_assert_double_eq (metric (sim, "burst_cost"), 0);
  ck_assert_double_eq (metric (sim, "burst_scale_ups"), 0);
  ck_assert (wait_on <= metric (sim, "wait_mean"));
}
END_TEST

/* The cloud pool is rented, not owned: with the power and cost models on,
 * its nodes draw nothing in our facility and cost nothing to buy.  Truth:
 * the capex of the same scenario without the cloud pool at all (one DGX
 * H100 and the [cost] per-kW prices), and our one node's rated 10.2 kW
 * (models/nodes/dgx-h100.ini) as a bound on the IT power, which the three
 * nodes together would pass while bursting (jobs 2 and 3 run on a cloud
 * node beside job 1 from 500 s). */
START_TEST (test_cloud_not_owned)
{
  static const char *power_cost =
    "[power]\n[cost]\ncloud = none\nenergy_price = 0.1\n"
    "cooling_usd_per_kw = 1000\nelectrical_usd_per_kw = 2000\n";
  g_autofree char *text = g_strconcat (base, elastic, power_cost, NULL);
  g_autofree char *own_only = g_strconcat (
    "[scenario]\nname = elastic\n[pool own]\nmodel = DGX-H100\ncount = 1\n"
    "[workload]\nsource = native\ntrace = tiny.csv\n[output]\ntimeseries = false\n",
    power_cost, NULL);
  g_autoptr(SimSimulation) sim = new_sim (text, NULL);
  g_autoptr(GError) error = NULL;

  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (metric (sim, "burst_scale_ups") == 1);
  ck_assert_double_eq_tol (metric (sim, "cost_capex"), run_metric (own_only, NULL, "cost_capex"),
                           1e-6);
  ck_assert_double_eq_tol (metric (sim, "cost_capex"), 270000 + 10.2 * 3000, 1e-6);
  ck_assert (metric (sim, "power_it_peak") <= 10200);
  ck_assert (metric (sim, "power_it_peak") > 0);
  /* Delivered GPU-hours owned: job 1 alone on our node (8 GPUs x 1 h). */
  ck_assert_double_eq_tol (metric (sim, "cost_delivered_gpu_hours"), 8.0, 1e-9);
}
END_TEST

/* A job runs on our nodes or on the cloud's, never across both: every
 * started job's GPUs lie in one partition, over seeds of a mix of jobs
 * spanning up to 3 nodes (so that spanning both would often fit), while
 * some jobs do run in the cloud. */
typedef struct {
  guint jobs, cloud, mixed;
} Spans;

static void
check_span (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Spans *sp = data;
  const SimCluster *cluster = sim_simulation_get_cluster (sim);
  guint in_cloud = 0;

  if (job->state != SIM_JOB_RUNNING)
    return;
  /* The truth: the pool of each GPU's node (pool 1 is the cloud). */
  for (guint i = 0; i < job->n_gpus; i++)
    in_cloud += sim_cluster_get_node (cluster,
                                      sim_cluster_get_gpu (cluster, job->gpus[i])->node)->pool == 1;
  sp->jobs++;
  sp->cloud += in_cloud == job->n_gpus;
  sp->mixed += in_cloud > 0 && in_cloud < job->n_gpus;
}

START_TEST (test_no_job_spans_cloud_and_own)
{
  static const char *mix =
    "[scenario]\nname = mix\nhorizon = 3d\n"
    "[pool own]\nmodel = DGX-A100\ncount = 4\n"
    "[pool cloud]\nmodel = DGX-A100\ncount = 4\n"
    "[workload]\nrate = 3/h\n"
    "[class s]\nshare = 2\ngpus = 1:0.5, 4:0.5\nduration = lognormal(median=30min, sigma=1)\n"
    "[class l]\nshare = 1\ngpus = 12:0.5, 24:0.5\nduration = exponential(mean=2h)\n"
    "[elastic]\npool = cloud\nscale_up_wait = 10min\nscale_up_queue = 0\nstartup = 4min\n"
    "step = 1\nprice_per_node_hour = 32.77\n"
    "[output]\ntimeseries = false\n";

  for (guint seed = 1; seed <= 4; seed++)
    {
      g_autofree char *s = g_strdup_printf ("scenario.seed=%u", seed);
      const char *sets[] = { s, NULL };
      g_autoptr(SimSimulation) sim = new_sim (mix, sets);
      g_autoptr(GError) error = NULL;
      Spans sp = { 0 };

      sim_simulation_set_job_observer (sim, check_span, &sp, NULL);
      ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
      ck_assert_msg (sp.mixed == 0, "seed %u: %u of %u jobs span our nodes and the cloud's",
                     seed, sp.mixed, sp.jobs);
      ck_assert_msg (sp.cloud > 0, "seed %u: no job ran in the cloud", seed);
    }
}
END_TEST

/* A synthetic mix on 4 nodes of our own and 4 in the cloud, over seeds:
 * the wait with bursting is never longer than without. */
START_TEST (test_burst_never_waits_longer)
{
  static const char *mix =
    "[scenario]\nname = mix\nhorizon = 2d\n"
    "[pool own]\nmodel = DGX-A100\ncount = 4\n"
    "[pool cloud]\nmodel = DGX-A100\ncount = 4\n"
    "[workload]\nrate = 4/h\n"
    "[class s]\nshare = 3\ngpus = 1:0.5, 2:0.2, 4:0.3\nduration = lognormal(median=30min, sigma=1)\n"
    "[class l]\nshare = 1\ngpus = 8\nduration = exponential(mean=2h)\n"
    "[elastic]\npool = cloud\nscale_up_wait = 15min\nscale_up_queue = 0\nstartup = 4min\n"
    "price_per_node_hour = 32.77\n"
    "[output]\ntimeseries = false\n";

  for (guint seed = 1; seed <= 4; seed++)
    {
      g_autofree char *s = g_strdup_printf ("scenario.seed=%u", seed);
      const char *on[] = { s, NULL };
      const char *off[] = { s, "elastic.max_nodes=0", NULL };
      double w_on = run_metric (mix, on, "wait_mean");
      double w_off = run_metric (mix, off, "wait_mean");
      ck_assert_msg (w_on <= w_off, "seed %u: %g s with bursting, %g s without", seed, w_on,
                     w_off);
      ck_assert (run_metric (mix, on, "burst_cost") > 0);
    }
}
END_TEST

/* Serverless: jobs of at most 1 GPU run as functions.  Function (class 0,
 * 1 GPU): job 11 at 0 s starts cold (20 s), runs 100 s, ends at 120 s;
 * job 12 at 150 s finds that instance warm (idle 30 s, within 60 s) and
 * runs 100 s; job 13 at 500 s finds it idle for 250 s: cold again.  Job 14
 * (2 GPUs, at 0 s) is a function of its own when max_gpus = 2. */
static const char *sless_trace =
  "id,submit,duration,gpus,gpu_milli\n"
  "11,0,100,1,1000\n"
  "14,0,30,2,1000\n"
  "12,150,100,1,1000\n"
  "13,500,100,1,1000\n";

static const char *sless =
  "[serverless]\n"             /* 14 */
  "cold_start = 20s\n"         /* 15 */
  "keep_warm = 60s\n"          /* 16 */
  "price_per_gpu_second = 0.001097\n" /* 17 */
  "invocation_fee = 0.0002\n"  /* 18 */
  "max_gpus = 1\n";            /* 19 */

START_TEST (test_serverless_bill)
{
  g_autofree char *path = g_build_filename (tmpdir, "tiny.csv", NULL);
  g_autofree char *text = g_strconcat (base, sless, NULL);
  g_autofree char *out = g_build_filename (tmpdir, "out", NULL);
  g_autofree char *jobs_path = g_build_filename (out, "jobs.csv", NULL);
  g_autofree char *jobs = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GError) error = NULL;
  double gpu_s;

  ck_assert (g_file_set_contents (path, sless_trace, -1, NULL));
  sim = new_sim (text, NULL);
  ck_assert (sim_simulation_set_output_dir (sim, out, &error));
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_double_eq (metric (sim, "serverless_executions"), 3);
  ck_assert_double_eq (metric (sim, "serverless_cold_starts"), 2);
  /* Billed with their cold starts: 120 + 100 + 120 GPU-seconds. */
  gpu_s = 120 + 100 + 120;
  ck_assert_double_eq (metric (sim, "serverless_gpu_seconds"), gpu_s);
  ck_assert_double_eq_tol (metric (sim, "serverless_cost"), gpu_s * 0.001097 + 3 * 0.0002, 1e-12);
  /* JCT with the cold start: 120, 100, 120 s; job 14 on the cluster, 30 s. */
  ck_assert_double_eq_tol (metric (sim, "jct_mean"), (120.0 + 100 + 120 + 30) / 4, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "wait_mean"), 40.0 / 4, 1e-9);
  ck_assert (g_file_get_contents (jobs_path, &jobs, NULL, &error));
  ck_assert (g_str_has_prefix (jobs, "id,class,submit_s,start_s,end_s,wait_s,jct_s,run_s,"
                                     "bounded_slowdown,gpus,gpu_milli,nodes,preemptions,where\n"));
  ck_assert (strstr (jobs, "\n11,default,0.000000000,20.000000000,120.000000000,20.000000000,"
                           "120.000000000,100.000000000,") != NULL);
  ck_assert (strstr (jobs, ",1,1000,0,0,serverless\n") != NULL);
  ck_assert (strstr (jobs, ",2,1000,1,0,cluster\n") != NULL);
  ck_assert (strstr (jobs, "\n12,default,150.000000000,150.000000000,250.000000000,") != NULL);

  {
    /* Without billing the cold starts: 100 GPU-seconds each. */
    const char *sets[] = { "serverless.bill_cold_start=false", NULL };
    ck_assert_double_eq (run_metric (text, sets, "serverless_gpu_seconds"), 300);
  }
  {
    /* Job 14 too: 2 GPUs x (20 + 30) s, cold. */
    const char *sets[] = { "serverless.max_gpus=2", NULL };
    ck_assert_double_eq (run_metric (text, sets, "serverless_gpu_seconds"), gpu_s + 100);
    ck_assert_double_eq (run_metric (text, sets, "serverless_cold_starts"), 3);
  }
  g_autofree char *csv = g_build_filename (out, "summary.json", NULL);
  g_unlink (csv);
  g_unlink (jobs_path);
  g_rmdir (out);
  ck_assert (g_file_set_contents (path, trace, -1, NULL));
}
END_TEST

/* A horizon that cuts the run bills what is held until then: the cloud
 * node requested at 200 s is still up at 1000 s (800 s), and job 12,
 * started warm at 150 s, has run 50 s of its 100 s at 200 s. */
START_TEST (test_horizon_bills)
{
  g_autofree char *path = g_build_filename (tmpdir, "tiny.csv", NULL);
  g_autofree char *text = g_strconcat (base, elastic, NULL);
  g_autofree char *stext = g_strconcat (base, sless, NULL);
  const char *at1000[] = { "scenario.horizon=1000s", NULL };
  const char *at200[] = { "scenario.horizon=200s", NULL };

  ck_assert_double_eq_tol (run_metric (text, at1000, "burst_node_hours"), 800.0 / 3600, 1e-15);
  ck_assert_double_eq_tol (run_metric (text, at1000, "burst_cost"), 800.0 / 3600 * PRICE, 1e-9);
  ck_assert (g_file_set_contents (path, sless_trace, -1, NULL));
  ck_assert_double_eq (run_metric (stext, at200, "serverless_executions"), 2);
  ck_assert_double_eq (run_metric (stext, at200, "serverless_gpu_seconds"), 120 + 50);
  ck_assert_double_eq_tol (run_metric (stext, at200, "serverless_cost"),
                           170 * 0.001097 + 2 * 0.0002, 1e-12);
  ck_assert_double_eq (run_metric (stext, at200, "jobs_unfinished"), 1);
  ck_assert (g_file_set_contents (path, trace, -1, NULL));
}
END_TEST

/* A [class] marked serverless: all its jobs run as functions, the others
 * on the cluster. */
START_TEST (test_serverless_class)
{
  static const char *mix =
    "[scenario]\nname = mix\nhorizon = 1d\n"
    "[pool own]\nmodel = DGX-A100\ncount = 2\n"
    "[workload]\nrate = 6/h\n"
    "[class fn]\nshare = 1\ngpus = 1\nduration = constant(5min)\nserverless = true\n"
    "[class train]\nshare = 1\ngpus = 8\nduration = constant(1h)\n"
    "[serverless]\ncold_start = 15s\nprice_per_gpu_second = 0.0005\n"
    "[output]\ntimeseries = false\n";
  g_autoptr(SimSimulation) sim = new_sim (mix, NULL);
  g_autoptr(GError) error = NULL;
  double n;

  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  n = metric (sim, "serverless_executions");
  ck_assert (n > 0 && n < metric (sim, "jobs_submitted"));
  /* No keep-warm window: every start is cold, each billed 315 s. */
  ck_assert_double_eq (metric (sim, "serverless_cold_starts"), n);
  ck_assert_double_eq (metric (sim, "serverless_gpu_seconds"), 315 * n);
  ck_assert_double_eq_tol (metric (sim, "serverless_cost"), 315 * n * 0.0005, 1e-9);
}
END_TEST

/* Each key moves its figure the way it should. */
START_TEST (test_every_key_moves)
{
  g_autofree char *text = g_strconcat (base, elastic, NULL);
  g_autofree char *stext = g_strconcat (base, sless, NULL);
  g_autofree char *path = g_build_filename (tmpdir, "tiny.csv", NULL);
#define SETS(...) ((const char *[]) { __VA_ARGS__, NULL })
  /* scale_up_queue: a lower threshold scales up sooner (job 2 at 400 s). */
  ck_assert (run_metric (text, SETS ("elastic.scale_up_queue=1"), "wait_mean") <
             run_metric (text, NULL, "wait_mean"));
  ck_assert (run_metric (text, SETS ("elastic.scale_up_queue=3"), "burst_scale_ups") == 0);
  /* scale_up_wait: a longer wait scales up later. */
  ck_assert (run_metric (text, SETS ("elastic.scale_up_queue=0", "elastic.scale_up_wait=5min"),
                         "wait_mean") <
             run_metric (text, SETS ("elastic.scale_up_queue=0", "elastic.scale_up_wait=20min"),
                         "wait_mean"));
  /* startup: slower nodes, longer waits. */
  ck_assert (run_metric (text, SETS ("elastic.startup=1min"), "wait_mean") <
             run_metric (text, SETS ("elastic.startup=10min"), "wait_mean"));
  /* scale_down_delay: idle nodes kept longer cost more. */
  ck_assert (run_metric (text, SETS ("elastic.scale_down_delay=1min"), "burst_cost") <
             run_metric (text, SETS ("elastic.scale_down_delay=1h"), "burst_cost"));
  /* max_nodes: one node at most against two. */
  ck_assert (run_metric (text, SETS ("elastic.scale_up_queue=1", "elastic.max_nodes=1"),
                         "burst_nodes_peak") == 1);
  ck_assert (run_metric (text, SETS ("elastic.scale_up_queue=1", "elastic.max_nodes=2"),
                         "burst_nodes_peak") == 2);
  ck_assert (run_metric (text, SETS ("elastic.scale_up_queue=1", "elastic.max_nodes=1"),
                         "wait_mean") >
             run_metric (text, SETS ("elastic.scale_up_queue=1", "elastic.max_nodes=2"),
                         "wait_mean"));
  /* step: two nodes per scale-up. */
  ck_assert (run_metric (text, SETS ("elastic.step=2"), "burst_nodes_requested") == 2);
  ck_assert (run_metric (text, SETS ("elastic.step=2"), "burst_scale_ups") == 1);
  /* price_per_node_hour: the bill in proportion. */
  ck_assert_double_eq_tol (run_metric (text, SETS ("elastic.price_per_node_hour=10"),
                                       "burst_cost"), 2900.0 / 3600 * 10, 1e-9);
  /* min_billing: a minimum longer than the use is what is billed. */
  ck_assert_double_eq_tol (run_metric (text, SETS ("elastic.min_billing=2h"), "burst_node_hours"),
                           2, 1e-12);
  /* max_nodes = 0: bursting off (the pool key's errors: test_bad_keys). */
  ck_assert (run_metric (text, SETS ("elastic.max_nodes=0"), "burst_node_hours") == 0);

  ck_assert (g_file_set_contents (path, sless_trace, -1, NULL));
  /* cold_start: longer completion times. */
  ck_assert (run_metric (stext, SETS ("serverless.cold_start=5s"), "jct_mean") <
             run_metric (stext, SETS ("serverless.cold_start=50s"), "jct_mean"));
  /* keep_warm: a longer window, fewer cold starts; none, all cold. */
  ck_assert_double_eq (run_metric (stext, SETS ("serverless.keep_warm=0s"),
                                   "serverless_cold_starts"), 3);
  ck_assert_double_eq (run_metric (stext, SETS ("serverless.keep_warm=1h"),
                                   "serverless_cold_starts"), 1);
  /* price_per_gpu_second and invocation_fee: the bill. */
  ck_assert (run_metric (stext, SETS ("serverless.price_per_gpu_second=0.002"),
                         "serverless_cost") >
             run_metric (stext, NULL, "serverless_cost"));
  ck_assert_double_eq_tol (run_metric (stext, SETS ("serverless.invocation_fee=1"),
                                       "serverless_cost") -
                           run_metric (stext, NULL, "serverless_cost"), 3 * (1 - 0.0002), 1e-9);
  /* bill_cold_start: fewer GPU-seconds without. */
  ck_assert (run_metric (stext, SETS ("serverless.bill_cold_start=false"),
                         "serverless_gpu_seconds") <
             run_metric (stext, NULL, "serverless_gpu_seconds"));
  /* max_gpus and max_duration: which jobs are functions. */
  ck_assert_double_eq (run_metric (stext, SETS ("serverless.max_gpus=2"),
                                   "serverless_executions"), 4);
  ck_assert_double_eq (run_metric (stext, SETS ("serverless.max_gpus=0",
                                                "serverless.max_duration=30s"),
                                   "serverless_executions"), 1);
  ck_assert_double_eq (run_metric (stext, SETS ("serverless.max_gpus=0",
                                                "serverless.max_duration=100s"),
                                   "serverless_executions"), 4);
  ck_assert (g_file_set_contents (path, trace, -1, NULL));
#undef SETS
}
END_TEST

/* TEXT fails to load with a message containing WANT1 and WANT2. */
static void
expect_error (const char *text, const char * const *sets, const char *want1, const char *want2)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = load (text, sets, &error);

  ck_assert_msg (sc == NULL, "loaded, expected an error with \"%s\"", want1);
  ck_assert_msg (strstr (error->message, want1) != NULL, "\"%s\" lacks \"%s\"", error->message,
                 want1);
  ck_assert_msg (want2 == NULL || strstr (error->message, want2) != NULL, "\"%s\" lacks \"%s\"",
                 error->message, want2);
}

static void
expect_error_owned (char *text, const char * const *sets, const char *want1, const char *want2)
{
  expect_error (text, sets, want1, want2);
  g_free (text);
}

START_TEST (test_bad_keys)
{
  g_autofree char *text = g_strconcat (base, elastic, NULL);
  g_autofree char *stext = g_strconcat (base, sless, NULL);
  g_autofree char *typo = g_strconcat (base, elastic, "scale_up_quue = 3\n", NULL);
  g_autofree char *nopool = g_strconcat (base, "[elastic]\nstartup = 1min\n"
                                         "price_per_node_hour = 1\n", NULL);
  g_autofree char *noprice = g_strconcat (base, "[elastic]\npool = cloud\nstartup = 1min\n", NULL);
  g_autofree char *nostart = g_strconcat (base, "[elastic]\npool = cloud\n"
                                          "price_per_node_hour = 1\n", NULL);
  g_autofree char *class_only = g_strconcat (
    "[scenario]\nname = c\nhorizon = 1d\n[pool own]\nmodel = DGX-H100\ncount = 1\n[workload]\nrate = 1/h\n"
    "[class fn]\nshare = 1\ngpus = 1\nduration = constant(1min)\nserverless = true\n", NULL);

  expect_error (text, (const char *[]) { "elastic.startup=300", NULL }, "tiny.ini: --set "
                "elastic.startup", NULL);
  expect_error_owned (g_strconcat (base, "[elastic]\npool = cloud\nstartup = 300\n", NULL), NULL,
                "tiny.ini:16: [elastic] startup: ", "duration");
  expect_error (typo, NULL, "tiny.ini:21: [elastic] scale_up_quue: ",
                "did you mean \"scale_up_queue\"");
  expect_error (text, (const char *[]) { "elastic.pool=clod", NULL }, "--set elastic.pool: ",
                "did you mean \"cloud\"");
  expect_error (text, (const char *[]) { "elastic.max_nodes=3", NULL }, "--set elastic.max_nodes: ",
                "has 2");
  expect_error (text, (const char *[]) { "elastic.step=0", NULL }, "--set elastic.step: ", NULL);
  expect_error (text, (const char *[]) { "elastic.price_per_node_hour=-1", NULL },
                "--set elastic.price_per_node_hour: ", "US dollars");
  expect_error (text, (const char *[]) { "elastic.scale_up_queue=0", NULL },
                "--set elastic.scale_up_queue: ", "no scale-up trigger");
  expect_error (nopool, NULL, "tiny.ini:14: [elastic]: ", "missing key pool");
  expect_error (noprice, NULL, "tiny.ini:14: [elastic]: ", "price_per_node_hour");
  expect_error (nostart, NULL, "tiny.ini:14: [elastic]: ", "startup");
  expect_error (stext, (const char *[]) { "serverless.keep_warm=soon", NULL },
                "--set serverless.keep_warm: ", NULL);
  expect_error_owned (g_strconcat (base, "[serverless]\nprice_per_gpu_second = 0.001\nmax_gpus = 1\n",
                             NULL), NULL, "tiny.ini:14: [serverless]: ", "cold_start");
  expect_error_owned (g_strconcat (base, "[serverless]\ncold_start = 1s\nmax_gpus = 1\n", NULL), NULL,
                "tiny.ini:14: [serverless]: ", "price_per_gpu_second");
  expect_error_owned (g_strconcat (base, sless, "bill_cold_start = perhaps\n", NULL), NULL,
                "tiny.ini:20: [serverless] bill_cold_start: ", "boolean");
  expect_error (class_only, NULL, "tiny.ini:13: [class fn] serverless: ", "[serverless]");
  expect_error_owned (g_strconcat (class_only, "[serverless]\ncold_start = 1s\n"
                             "price_per_gpu_second = 1\n", NULL),
                (const char *[]) { "class fn.serverless=maybe", NULL }, "class fn.serverless",
                "boolean");
}
END_TEST

/* [elastic] cloud: the catalogue's on-demand price per instance-hour is the
 * price per node-hour (AWS p5.48xlarge at launch, $98.32: SOURCES.md E),
 * unless price_per_node_hour is given; an instance unlike the pool's
 * nodes, or unknown, is an error at the key. */
START_TEST (test_cloud_price)
{
  g_autofree char *text = g_strconcat (base, "[elastic]\npool = cloud\nscale_up_queue = 2\n"
                                       "startup = 300s\nscale_down_delay = 600s\n"
                                       "cloud = AWS-p5.48xlarge\n", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) catalogue = sim_catalogue_new_default (NULL, &error);
  const SimCloudModel *p5;

  ck_assert_msg (catalogue != NULL, "%s", error ? error->message : "");
  p5 = sim_catalogue_lookup_cloud (catalogue, "AWS-p5.48xlarge");
  ck_assert (p5 != NULL);
  ck_assert_double_eq (p5->on_demand_usd_per_hour, 98.32);
  ck_assert_double_eq (run_metric (text, NULL, "burst_price_per_node_hour"),
                       p5->on_demand_usd_per_hour);
  ck_assert_double_eq_tol (run_metric (text, NULL, "burst_cost"),
                           2900.0 / 3600 * p5->on_demand_usd_per_hour, 1e-9);
  ck_assert_double_eq (run_metric (text, (const char *[]) { "elastic.price_per_node_hour=50",
                                                            NULL },
                                   "burst_price_per_node_hour"), 50);
  {
    g_autoptr(SimScenario) sc = load (text, (const char *[]) { "elastic.cloud=AWS-p4d.24xlarge",
                                                               NULL }, &error);
    g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
    ck_assert (sim == NULL);
    ck_assert_msg (strstr (error->message, "--set elastic.cloud: ") != NULL &&
                   strstr (error->message, "A100") != NULL, "%s", error->message);
    g_clear_error (&error);
  }
  {
    g_autoptr(SimScenario) sc = load (text, NULL, &error);
    g_autoptr(SimSimulation) sim = NULL;
    g_autofree char *typo = g_strdup (text);
    /* "AWS-p5.48xlarg" */
    strstr (typo, "xlarge\n")[5] = '\n';
    g_clear_pointer (&sc, sim_scenario_unref);
    sc = load (typo, NULL, &error);
    sim = sim_simulation_new (sc, &error);
    ck_assert (sim == NULL);
    ck_assert_msg (strstr (error->message, "tiny.ini:19: [elastic] cloud: ") != NULL &&
                   strstr (error->message, "did you mean \"AWS-p5.48xlarge\"") != NULL, "%s",
                   error->message);
  }
}
END_TEST

/* The defaults are the published ones: Kubernetes' cluster autoscaler
 * releases a node unneeded for 10 min (--scale-down-unneeded-time), EC2
 * bills per second with a 60 s minimum (AWS, 2017-10-02); any waiting job
 * triggers a scale-up; the whole pool may be used. */
START_TEST (test_defaults)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strconcat (base, "[elastic]\npool = cloud\nstartup = 300s\n"
                                       "price_per_node_hour = 98.32\n", NULL);
  g_autoptr(SimScenario) sc = load (text, NULL, &error);

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq (sc->elastic.scale_down_delay, 10 * SIM_MINUTE);
  ck_assert_int_eq (sc->elastic.min_billing, 60 * SIM_SECOND);
  ck_assert_uint_eq (sc->elastic.scale_up_queue, 1);
  ck_assert_int_eq (sc->elastic.scale_up_wait, 0);
  ck_assert_int_eq (sc->elastic.max_nodes, 2);
  ck_assert_uint_eq (sc->elastic.step, 1);
  /* With those: node 1 requested at 100 s (job 2 waits), up at 400 s,
   * job 2 until 1400 s; node 2 requested at 400 s (job 3 waits), up at
   * 700 s, job 3 until 1700 s; each released 600 s after its job. */
  ck_assert_double_eq_tol (run_metric (text, NULL, "burst_node_hours"),
                           ((2000.0 - 100) + (2300.0 - 400)) / 3600, 1e-12);
}
END_TEST

/* Without the sections nothing changes: no elastic figure, jobs.csv as
 * before, every cloud node in service. */
START_TEST (test_without_sections)
{
  g_autoptr(SimSimulation) sim = new_sim (base, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = g_build_filename (tmpdir, "plain", NULL);
  g_autofree char *jobs_path = g_build_filename (out, "jobs.csv", NULL);
  g_autofree char *summary = g_build_filename (out, "summary.json", NULL);
  g_autofree char *jobs = NULL;
  double v;

  ck_assert (cloud_node_up (sim, 0) && cloud_node_up (sim, 1));
  ck_assert (sim_simulation_set_output_dir (sim, out, &error));
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (!sim_report_get_value (sim_simulation_get_report (sim), "burst_cost", &v));
  ck_assert (!sim_report_get_value (sim_simulation_get_report (sim), "serverless_cost", &v));
  ck_assert (g_file_get_contents (jobs_path, &jobs, NULL, &error));
  ck_assert (g_str_has_prefix (jobs, "id,class,submit_s,start_s,end_s,wait_s,jct_s,run_s,"
                                     "bounded_slowdown,gpus,gpu_milli,nodes,preemptions\n"));
  /* All three start at once on the three nodes. */
  ck_assert_double_eq (metric (sim, "wait_mean"), 0);
  g_unlink (jobs_path);
  g_unlink (summary);
  g_rmdir (out);
}
END_TEST

START_TEST (test_determinism)
{
  g_autofree char *text = g_strconcat (base, elastic, sless, NULL);
  g_autofree char *a = NULL, *b = NULL;

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(SimSimulation) sim = new_sim (text, (const char *[]) {
                                                "elastic.scale_up_queue=1", NULL });
      g_autoptr(GError) error = NULL;
      ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
      *(i == 0 ? &a : &b) = sim_report_to_json (sim_simulation_get_report (sim), TRUE);
    }
  ck_assert_str_eq (a, b);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("elastic");
  TCase *tc = tcase_create ("elastic");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_queue_trigger_schedule_and_bill);
  tcase_add_test (tc, test_wait_trigger);
  tcase_add_test (tc, test_minimum_billing_and_seconds);
  tcase_add_test (tc, test_burst_off_and_wait);
  tcase_add_test (tc, test_burst_never_waits_longer);
  tcase_add_test (tc, test_serverless_bill);
  tcase_add_test (tc, test_serverless_class);
  tcase_add_test (tc, test_horizon_bills);
  tcase_add_test (tc, test_every_key_moves);
  tcase_add_test (tc, test_bad_keys);
  tcase_add_test (tc, test_cloud_price);
  tcase_add_test (tc, test_defaults);
  tcase_add_test (tc, test_without_sections);
  tcase_add_test (tc, test_determinism);
  tcase_add_test (tc, test_cloud_not_owned);
  tcase_add_test (tc, test_no_job_spans_cloud_and_own);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
