/* check-failures.c: failures, checkpoints, repair and hot spares
 * (failures/sim-failures.h).
 *
 * What it checks: the count of exponential failures over a long run falls
 * inside the Poisson interval of rate x time x components, and a Weibull
 * process's inside the same interval around time / mean (the renewal
 * theorem; Weibull with shape > 1 varies less than Poisson); the Llama 3
 * scenario gives a count of unexpected interruptions inside the 95 %
 * Poisson interval of the paper's 419, GPUs first and GPUs with HBM more
 * than half, and more than 90 % effective training time, as published;
 * one failure replayed from a log costs a job exactly what a hand
 * calculation says (work since its last checkpoint, the restart, the
 * detection and the spare's swap; its end time, lost GPU-hours, checkpoint
 * GPU-hours, ETTR, the `ettr` column of jobs.csv); Daly's interval loses
 * less time than fixed intervals of a quarter, half, twice and four times
 * it; avoiding recently repaired nodes spares jobs infant-mortality
 * failures; no job starts on, or keeps running on, a failed GPU or a node out
 * of service for a fault of its own; the same seed gives the same
 * figures; every key moves its figure the expected way; seed_offset draws
 * other failures for the same jobs; each type's Weibull shape below 1
 * gives more failures and above 1 fewer than the exponential, within
 * bounds from the first failure's law and the renewal function; bad input is an
 * error naming the file, line and key; a scenario without [failures]
 * reports no failure figure.
 * What it does not check: the rates against other clusters than Llama 3's
 * (the profile is derived from one table), the assumed repair times.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <sim.h>
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include <string.h>

#include "failures/sim-failures.h"
#include "check-tree.h"

static char *tmpdir;

static void
setup (void)
{
  g_autoptr(GError) error = NULL;

  tmpdir = g_dir_make_tmp ("check-failures-XXXXXX", &error);
  ck_assert_msg (tmpdir != NULL, "%s", error ? error->message : "");
}

static void
teardown (void)
{
  check_remove_tree (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static void
write_file (const char *name, const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);

  ck_assert (g_file_set_contents (path, text, -1, &error));
}

static SimSimulation *
new_sim (const char *text, const char * const *sets)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir, sets,
                                                           &error);
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

static SimSimulation *
run (const char *text, const char * const *sets)
{
  g_autoptr(GError) error = NULL;
  SimSimulation *sim = new_sim (text, sets);

  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  return sim;
}

static double
run_metric (const char *text, const char * const *sets, const char *name)
{
  g_autoptr(SimSimulation) sim = run (text, sets);
  return metric (sim, name);
}

/* The central interval of a Poisson law of mean MU holding at least
 * 1 - ALPHA of it. */
static void
poisson_interval (double mu, double alpha, double *lo, double *hi)
{
  unsigned k = 0;

  while (gsl_cdf_poisson_P (k, mu) < alpha / 2)
    k++;
  *lo = k;
  while (gsl_cdf_poisson_Q (k, mu) > alpha / 2)
    k++;
  *hi = k;
}

/* ------------------------------------------------------------------------- */

/* 16 DGX H100 (128 GPUs) for a year, a light synthetic load; only GPUs
 * fail, every 1000 h on average, repaired at once. */
static const char *poisson_text =
  "[scenario]\nname = poisson\nseed = 3\nhorizon = 365d\n"
  "[pool h100]\nmodel = DGX-H100\ncount = 16\n"
  "[workload]\nsource = synthetic\nrate = 1/h\n"
  "[class small]\nshare = 1\ngpus = 8\nduration = exponential(mean=2h)\n"
  "[output]\ntimeseries = false\n"
  "[failures]\nprofile = none\ngpu_mtbf = 1000h\ngpu_repair = 0s\ndetect_time = 0s\n";

START_TEST (test_poisson_count)
{
  double expected = 128 * 365 * 24 / 1000.0, lo, hi, n;
  const char *weibull[] = { "failures.gpu_shape=2", NULL };
  const char *seed[] = { "scenario.seed=4", NULL };

  poisson_interval (expected, 0.01, &lo, &hi);
  n = run_metric (poisson_text, NULL, "failures_gpu");
  ck_assert_msg (n >= lo && n <= hi, "%g exponential failures, expected %g (99 %%: %g to %g)",
                 n, expected, lo, hi);
  ck_assert_double_eq (run_metric (poisson_text, NULL, "failures"), n);
  /* Another seed, another draw, still inside. */
  n = run_metric (poisson_text, seed, "failures_gpu");
  ck_assert_msg (n >= lo && n <= hi, "seed 4: %g", n);
  /* Weibull with the same mean life: the renewal theorem's count. */
  n = run_metric (poisson_text, weibull, "failures_gpu");
  ck_assert_msg (n >= lo && n <= hi, "%g Weibull failures, expected about %g", n, expected);
}
END_TEST

START_TEST (test_llama3)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (SIM_TOP_SRCDIR "/scenarios/failures-llama3.ini",
                                                 NULL, &error);
  g_autoptr(SimSimulation) sim = NULL;
  const char *types[] = { "hbm", "nvswitch", "nic", "cable", "node", "software", "leaf",
                          "spine", "core" };
  double lo, hi, n, gpu, hbm;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  poisson_interval (419, 0.05, &lo, &hi);
  n = metric (sim, "interruptions");
  ck_assert_msg (n >= lo && n <= hi, "%g interruptions, Llama 3 had 419 (95 %%: %g to %g)", n,
                 lo, hi);
  gpu = metric (sim, "interruptions_gpu");
  hbm = metric (sim, "interruptions_hbm");
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autofree char *name = g_strdup_printf ("interruptions_%s", types[i]);
      ck_assert_msg (gpu > metric (sim, name), "GPU %g not first: %s %g", gpu, name,
                     metric (sim, name));
    }
  ck_assert_msg (gpu + hbm > n / 2, "GPU and HBM %g of %g", gpu + hbm, n);
  ck_assert_msg (metric (sim, "ettr") > 0.90, "ETTR %g", metric (sim, "ettr"));
  ck_assert (metric (sim, "ettr") < 1.0);
  /* Every fault on a host in service was replaced by a spare. */
  ck_assert (metric (sim, "spares_used") > 0);
}
END_TEST

/* ------------------------------------------------------------------------- */

/* One job of 10 h on one DGX H100 (8 GPUs), a hot spare beside it; one
 * GPU fails at 9000 s (the log). */
static const char *replay_text =
  "[scenario]\nname = replay\n"                    /* 1, 2 */
  "[pool h100]\nmodel = DGX-H100\ncount = 2\n"     /* 3-5 */
  "[workload]\nsource = native\ntrace = tiny.csv\n" /* 6-8 */
  "[output]\ntimeseries = false\n"                 /* 9, 10 */
  "[failures]\n"                                   /* 11 */
  "profile = none\n"                               /* 12 */
  "log = faults.csv\n"                             /* 13 */
  "spares = 1\n"                                   /* 14 */
  "detect_time = 60s\n"                            /* 15 */
  "swap_time = 120s\n"                             /* 16 */
  "restart_time = 300s\n"                          /* 17 */
  "checkpoint_interval = 1h\n"                     /* 18 */
  "checkpoint_size = 10GB\n"                       /* 19 */
  "storage_bandwidth = 1GB/s\n"                    /* 20 */
  "gpu_repair = 1h\n"                              /* 21 */
  "repair_distribution = fixed\n";                 /* 22 */

/* Job ends, by id. */
static void
record_end (SimSimulation *sim, const SimJob *job, gpointer data)
{
  if (job->state == SIM_JOB_DONE)
    *(double *) data = sim_time_to_seconds (job->end);
}

START_TEST (test_replay_by_hand)
{
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GError) error = NULL;
  double end = -1;

  write_file ("tiny.csv", "id,submit,duration,gpus,gpu_milli\n1,0,36000,8,1000\n");
  write_file ("faults.csv", "time,type,index\n9000,gpu,3\n");
  sim = new_sim (replay_text, NULL);
  sim_simulation_set_job_observer (sim, record_end, &end, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  /* A checkpoint costs 8 x 10 GB / 1 GB/s = 80 s; 36000 s of work write
   * ceil(36000 / 3600) - 1 = 9 of them.  Work is 3600 s then a checkpoint,
   * periods of 3680 s: at 9000 s two checkpoints are written and 9000 -
   * 2 x 3680 = 1640 s are lost.  The job waits for the detection (60 s)
   * and the spare (120 s more), restarts at 9180 s, and owes 36720 - 9000
   * + 1640 lost + 300 restart + 80 reading the checkpoint back = 29740 s:
   * it ends at 38920 s. */
  ck_assert_double_eq_tol (end, 38920, 1e-6);
  ck_assert_double_eq (metric (sim, "interruptions"), 1);
  ck_assert_double_eq (metric (sim, "interruptions_gpu"), 1);
  ck_assert_double_eq (metric (sim, "failures"), 1);
  ck_assert_double_eq (metric (sim, "spares_used"), 1);
  ck_assert_double_eq_tol (metric (sim, "lost_gpu_hours"), 1640 * 8 / 3600.0, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "checkpoint_gpu_hours"), 9 * 80 * 8 / 3600.0, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "restart_gpu_hours"), 380 * 8 / 3600.0, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "ettr"), 36000 / 38920.0, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "checkpoint_interval_s"), 3600, 1e-9);
  /* GPU 3 down from 9000 s to its repair at 9060 + 3600 s, of 16 GPUs. */
  ck_assert_double_eq_tol (metric (sim, "availability_gpu"),
                           1 - (12660 - 9000) / (16 * 38920.0), 1e-9);
  ck_assert_double_eq (metric (sim, "availability_node"), 1);
}
END_TEST

START_TEST (test_jobs_csv_column)
{
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = g_build_filename (tmpdir, "out", NULL);
  g_autofree char *path = g_build_filename (out, "jobs.csv", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  write_file ("tiny.csv", "id,submit,duration,gpus,gpu_milli\n1,0,36000,8,1000\n");
  write_file ("faults.csv", "time,type,index\n9000,gpu,3\n");
  sim = new_sim (replay_text, NULL);
  ck_assert_msg (sim_simulation_set_output_dir (sim, out, &error), "%s", error->message);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (g_file_get_contents (path, &text, NULL, &error));
  lines = g_strsplit (text, "\n", -1);
  ck_assert_msg (g_str_has_suffix (lines[0], ",preemptions,ettr"), "%s", lines[0]);
  /* The job's ETTR, as in test_replay_by_hand: 36000 / 38920. */
  /* (preemptions 1: an interruption counts as one.) */
  ck_assert_msg (g_str_has_suffix (lines[1], ",1,0.924974"), "%s", lines[1]);
  {
    const char *names[] = { "jobs.csv", "summary.json", "timeseries.csv" };
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *p = g_build_filename (out, names[i], NULL);
        g_unlink (p);
      }
    g_rmdir (out);
  }
}
END_TEST

START_TEST (test_checkpoint_keeps_work)
{
  /* A failure right after a checkpoint loses nothing but the restart; one
   * without checkpoints loses all the work done. */
  const char *none[] = { "failures.checkpoint_interval=none", NULL };
  g_autoptr(SimSimulation) sim = NULL;
  double end = -1;
  g_autoptr(GError) error = NULL;

  write_file ("tiny.csv", "id,submit,duration,gpus,gpu_milli\n1,0,36000,8,1000\n");
  write_file ("faults.csv", "7360,gpu,0\n");
  sim = new_sim (replay_text, NULL);
  sim_simulation_set_job_observer (sim, record_end, &end, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_double_eq_tol (metric (sim, "lost_gpu_hours"), 0, 1e-9);
  /* 36720 + 180 waiting + 380 restart. */
  ck_assert_double_eq_tol (end, 36720 + 180 + 380, 1e-6);
  g_clear_object (&sim);
  sim = new_sim (replay_text, none);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_double_eq_tol (metric (sim, "lost_gpu_hours"), 7360 * 8 / 3600.0, 1e-9);
  ck_assert_double_eq (metric (sim, "checkpoint_gpu_hours"), 0);
}
END_TEST

/* ------------------------------------------------------------------------- */

/* One node-sized job of 1000 h; software fails on each node every 10 h
 * (the host comes back once detected); checkpoints of 60 s. */
static const char *daly_text =
  "[scenario]\nname = daly\nseed = 7\n"
  "[pool h100]\nmodel = DGX-H100\ncount = 1\n"
  "[workload]\nsource = native\ntrace = tiny.csv\n"
  "[output]\ntimeseries = false\n"
  "[failures]\nprofile = none\nsoftware_mtbf = 10h\nsoftware_repair = 0s\n"
  "detect_time = 60s\nrestart_time = 120s\ncheckpoint_size = 7.5GB\n"
  "storage_bandwidth = 1GB/s\ncheckpoint_interval = young-daly\n";

START_TEST (test_young_daly_minimises_loss)
{
  g_autoptr(SimSimulation) sim = NULL;
  double tau, best, factors[] = { 0.25, 0.5, 2, 4 };

  write_file ("tiny.csv", "id,submit,duration,gpus,gpu_milli\n1,0,3600000,8,1000\n");
  sim = run (daly_text, NULL);
  tau = metric (sim, "checkpoint_interval_s");
  /* Daly: sqrt(2 x 60 x 36000) = 2078 s, less a little. */
  ck_assert_msg (tau > 1900 && tau < 2200, "interval %g", tau);
  best = metric (sim, "makespan");
  for (guint i = 0; i < G_N_ELEMENTS (factors); i++)
    {
      g_autofree char *set = g_strdup_printf ("failures.checkpoint_interval=%.0fs",
                                              tau * factors[i]);
      const char *sets[] = { set, NULL };
      double span = run_metric (daly_text, sets, "makespan");
      ck_assert_msg (span > best, "interval %.0f s: %g s, Daly's %.0f s: %g s",
                     tau * factors[i], span, tau, best);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */

/* A mixed workload on 8 nodes, with failures often. */
static const char *mixed_text =
  "[scenario]\nname = mixed\nseed = 2\nhorizon = 30d\n"
  "[pool h100]\nmodel = DGX-H100\ncount = 8\n"
  "[workload]\nsource = synthetic\nrate = 6/h\n"
  "[class small]\nshare = 0.9\ngpus = 1:0.5, 2:0.3, 4:0.2\nduration = exponential(mean=3h)\n"
  "[class big]\nshare = 0.1\ngpus = 16\nduration = exponential(mean=12h)\n"
  "[output]\ntimeseries = false\n"
  "[failures]\nprofile = none\ngpu_mtbf = 1000h\nnode_mtbf = 1000h\nsoftware_mtbf = 4000h\n"
  "nic_mtbf = 20000h\nleaf_mtbf = 2000h\nnodes_per_leaf = 4\n"
  "gpu_repair = 12h\nnode_repair = 12h\nleaf_repair = 2h\nnic_repair = 4h\n"
  "checkpoint_interval = 1h\ncheckpoint_size = 2GB\nstorage_bandwidth = 10GB/s\n";

/* Checks that no running job holds a failed GPU, or one of a node, leaf
 * or part of a node that failed. */
static void
check_running (SimSimulation *sim)
{
  SimFailures *f = sim__failures_get (sim);

  for (GList *l = sim__kernel_get_running (sim)->head; l != NULL; l = l->next)
    {
      const SimJob *job = l->data;
      for (guint i = 0; i < job->n_gpus; i++)
        ck_assert_msg (!sim__failures_gpu_is_failed (f, job->gpus[i]),
                       "job %" G_GUINT64_FORMAT " runs on failed GPU %u", job->spec.id,
                       job->gpus[i]);
    }
}

/* A job starts only on nodes in service. */
static void
check_start (SimSimulation *sim, const SimJob *job, gpointer data)
{
  const SimCluster *cluster = sim_simulation_get_cluster (sim);

  if (job->state == SIM_JOB_RUNNING)
    {
      for (guint i = 0; i < job->n_gpus; i++)
        ck_assert (sim_cluster_get_node (cluster,
                                         sim_cluster_get_gpu (cluster, job->gpus[i])->node)
                     ->available);
      check_running (sim);
      (*(guint *) data)++;
    }
}

START_TEST (test_no_job_on_failed_node)
{
  g_autoptr(SimSimulation) sim = new_sim (mixed_text, NULL);
  g_autoptr(GError) error = NULL;
  guint starts = 0;

  sim_simulation_set_job_observer (sim, check_start, &starts, NULL);
  for (double t = 60; t < 30 * 86400; t += 600)
    {
      ck_assert_msg (sim_simulation_run_until (sim, sim_time_from_seconds (t), &error), "%s",
                     error ? error->message : "");
      check_running (sim);
    }
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (starts > 100);
  ck_assert (metric (sim, "interruptions") > 10);
  ck_assert (metric (sim, "migrations") > 0);
}
END_TEST

/* 16 nodes under a light load; GPUs fail with a decreasing hazard
 * (Weibull shape 0.5: infant mortality), so a GPU just repaired is the
 * likeliest to fail again. */
static const char *infant_text =
  "[scenario]\nname = infant\nhorizon = 60d\n"
  "[pool h100]\nmodel = DGX-H100\ncount = 16\n"
  "[workload]\nsource = synthetic\nrate = 1/h\n"
  "[class node]\nshare = 1\ngpus = 8\nduration = exponential(mean=6h)\n"
  "[output]\ntimeseries = false\n"
  "[failures]\nprofile = none\ngpu_mtbf = 3000h\ngpu_shape = 0.5\ngpu_repair = 2h\n"
  "repair_distribution = fixed\ncheckpoint_interval = 1h\ncheckpoint_size = 1GB\n"
  "storage_bandwidth = 10GB/s\n";

START_TEST (test_avoid_recent_faults)
{
  double base = 0, avoid = 0, wait = 0;

  /* Avoiding the nodes repaired in the last week while others are free
   * spares jobs the young GPUs' failures, and costs (almost) no wait. */
  for (guint seed = 1; seed <= 5; seed++)
    {
      g_autofree char *s = g_strdup_printf ("scenario.seed=%u", seed);
      const char *plain[] = { s, NULL };
      const char *with[] = { s, "failures.avoid_recent=7d", NULL };
      g_autoptr(SimSimulation) a = run (infant_text, plain);
      g_autoptr(SimSimulation) b = run (infant_text, with);
      ck_assert_double_eq (metric (a, "failures_gpu"), metric (b, "failures_gpu"));
      base += metric (a, "interruptions_gpu");
      avoid += metric (b, "interruptions_gpu");
      wait += metric (b, "wait_mean") / 5;
    }
  ck_assert_msg (avoid < 0.95 * base, "interruptions %g avoiding, %g not", avoid, base);
  ck_assert_msg (wait < 60, "mean wait %g s", wait);
}
END_TEST

START_TEST (test_deterministic)
{
  g_autoptr(SimSimulation) a = run (mixed_text, NULL);
  g_autoptr(SimSimulation) b = run (mixed_text, NULL);
  const char *names[] = { "failures", "interruptions", "lost_gpu_hours", "ettr",
                          "availability_gpu", "wait_mean" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    ck_assert_double_eq (metric (a, names[i]), metric (b, names[i]));
}
END_TEST

typedef struct {
  const char *set;
  const char *metric;
  int         sign;   /* +1: the figure grows, -1: it falls */
  const char *base;   /* NULL, or sets (space-separated) of both runs */
} KeyCase;

START_TEST (test_keys_move_figures)
{
  /* mixed_text has profile = none: a component type without an MTBF
   * never fails, so an MTBF from nothing raises its count from 0; a
   * longer repair of a type that fails lowers that type's availability
   * (the failure draws are the same: repairs come from a stream of their
   * own). */
  static const KeyCase cases[] = {
    { "failures.gpu_mtbf=500h", "failures_gpu", +1, NULL },
    { "failures.gpu_repair=96h", "availability_gpu", -1, NULL },
    { "failures.node_repair=96h", "availability_node", -1, NULL },
    { "failures.detect_time=2h", "ettr", -1, NULL },
    { "failures.restart_time=1h", "restart_gpu_hours", +1, NULL },
    { "failures.checkpoint_size=20GB", "checkpoint_gpu_hours", +1, NULL },
    { "failures.storage_bandwidth=1GB/s", "checkpoint_gpu_hours", +1, NULL },
    { "failures.checkpoint_interval=6h", "lost_gpu_hours", +1, NULL },
    { "failures.drain=kill", "migrations", -1, NULL },
    { "failures.mode=manual", "ettr", -1, NULL },
    { "failures.spares=2", "spares_used", +1, NULL },
    { "failures.quarantine=3d", "wait_mean", +1, NULL },
    { "failures.nodes_per_leaf=1", "failures_leaf", +1, NULL },
    { "failures.spines=4", "failures_spine", +1, "failures.spine_mtbf=500h" },
    { "failures.nics_per_node=16", "failures_nic", +1, NULL },
    { "failures.nvswitches_per_node=8", "failures_nvswitch", +1, "failures.nvswitch_mtbf=500h" },
    { "failures.software_mtbf=never", "failures_software", -1, NULL },
    { "failures.hbm_mtbf=500h", "failures_hbm", +1, NULL },
    { "failures.cable_mtbf=2000h", "failures_cable", +1, NULL },
    { "failures.core_mtbf=500h", "failures_core", +1, "failures.cores=8" },
    { "failures.cores=8", "failures_core", +1, "failures.core_mtbf=500h" },
    { "failures.hbm_repair=96h", "availability_hbm", -1,
      "failures.hbm_mtbf=500h failures.hbm_repair=12h" },
    { "failures.nvswitch_repair=96h", "availability_nvswitch", -1,
      "failures.nvswitch_mtbf=500h failures.nvswitch_repair=12h" },
    { "failures.cable_repair=96h", "availability_cable", -1,
      "failures.cable_mtbf=2000h failures.cable_repair=4h" },
    { "failures.spine_repair=96h", "availability_spine", -1,
      "failures.spines=4 failures.spine_mtbf=500h failures.spine_repair=4h" },
    { "failures.core_repair=96h", "availability_core", -1,
      "failures.cores=4 failures.core_mtbf=500h failures.core_repair=4h" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(GStrv) base = g_strsplit (cases[i].base ? cases[i].base : "", " ", -1);
      guint n = g_strv_length (base);
      g_autofree const char **base_sets = g_new0 (const char *, n + 1);
      g_autofree const char **sets = g_new0 (const char *, n + 2);
      double before, after;

      for (guint k = 0; k < n; k++)
        if (*base[k] != '\0')
          base_sets[k] = sets[k] = base[k];
      /* The case's own key comes last, so it wins over the base's. */
      sets[cases[i].base ? n : 0] = cases[i].set;
      before = run_metric (mixed_text, base_sets, cases[i].metric);
      after = run_metric (mixed_text, sets, cases[i].metric);
      ck_assert_msg (cases[i].sign > 0 ? after > before : after < before,
                     "%s: %s went from %g to %g", cases[i].set, cases[i].metric, before, after);
    }
}
END_TEST

/* Every job's spec as it was first seen, by id. */
static void
record_spec (SimSimulation *sim, const SimJob *job, gpointer data)
{
  GHashTable *specs = data;
  guint64 id = job->spec.id;

  if (!g_hash_table_contains (specs, &id))
    g_hash_table_insert (specs, g_memdup2 (&id, sizeof id),
                         g_memdup2 (&job->spec, sizeof job->spec));
}

/* seed_offset draws other failures from the same scenario seed and keeps
 * the workload: the jobs submitted are the same, id by id, while the
 * failure figures differ; an offset of 0 is the default, to the bit. */
START_TEST (test_seed_offset)
{
  const char *other[] = { "failures.seed_offset=1", NULL };
  const char *zero[] = { "failures.seed_offset=0", NULL };
  const char *names[] = { "failures_gpu", "failures_node", "failures_software", "failures_leaf",
                          "lost_gpu_hours", "availability_gpu" };
  g_autoptr(GHashTable) a_specs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                         g_free);
  g_autoptr(GHashTable) b_specs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                         g_free);
  g_autoptr(SimSimulation) a = new_sim (mixed_text, NULL);
  g_autoptr(SimSimulation) b = new_sim (mixed_text, other);
  g_autoptr(SimSimulation) c = run (mixed_text, zero);
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  gpointer key, value;
  guint same = 0, common = 0;

  sim_simulation_set_job_observer (a, record_spec, a_specs, NULL);
  sim_simulation_set_job_observer (b, record_spec, b_specs, NULL);
  ck_assert_msg (sim_simulation_run (a, &error), "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (b, &error), "%s", error ? error->message : "");
  ck_assert_double_eq (metric (a, "jobs_submitted"), metric (b, "jobs_submitted"));
  g_hash_table_iter_init (&iter, a_specs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const SimJobSpec *x = value, *y = g_hash_table_lookup (b_specs, key);
      if (y == NULL)
        continue;
      common++;
      ck_assert_int_eq (x->submit, y->submit);
      ck_assert_int_eq (x->duration, y->duration);
      ck_assert_uint_eq (x->gpus, y->gpus);
    }
  ck_assert_uint_gt (common, 100);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      same += metric (a, names[i]) == metric (b, names[i]);
      ck_assert_double_eq (metric (a, names[i]), metric (c, names[i]));
    }
  ck_assert_msg (same < G_N_ELEMENTS (names), "seed_offset=1 drew the same failures");
}
END_TEST

/* 64 nodes for 30 days under a light load; failures repaired at once, so
 * each component is a renewal process started new at 0.  Leaves of one
 * node, 64 spines and 64 cores, so every type has at least 64 units. */
static const char *shape_text =
  "[scenario]\nname = shape\nseed = 5\nhorizon = 30d\n"
  "[pool h100]\nmodel = DGX-H100\ncount = 64\n"
  "[workload]\nsource = synthetic\nrate = 1/h\n"
  "[class small]\nshare = 1\ngpus = 8\nduration = exponential(mean=2h)\n"
  "[output]\ntimeseries = false\n"
  "[failures]\nprofile = none\ndetect_time = 0s\nnodes_per_leaf = 1\nspines = 64\n"
  "cores = 64\nnics_per_node = 8\nnvswitches_per_node = 4\n";

/* The Weibull shape of each type, at a mean life ten times the horizon T:
 * a unit's first failure comes before T with probability
 * F(T) = 1 - exp(-(T Gamma(1 + 1/k) / MTBF)^k), 0.36 at k = 0.5 against
 * 0.0078 at k = 2 (0.095 for the exponential), so a shape below 1 (early
 * failures) gives more failures than the exponential, and a shape above 1
 * (wear-out) fewer.  Bounds: at k = 0.5 the failures are at least the
 * units that failed once, Binomial(n, F(T)), so above its 0.1 % quantile;
 * at k = 2 a unit's expected failures, the renewal function M(T), are at
 * most F(T) / (1 - F(T)) (the n-fold convolution is at most F(T)^n), so
 * the count stays under the 99.9 % Poisson quantile of that mean; at
 * k = 1 the count is Poisson of mean n T / MTBF, inside its 99.8 %
 * interval. */
START_TEST (test_shapes)
{
  static const struct { const char *type; guint units; } types[] = {
    { "hbm", 512 }, { "nvswitch", 256 }, { "nic", 512 }, { "cable", 512 }, { "node", 64 },
    { "software", 64 }, { "leaf", 64 }, { "spine", 64 }, { "core", 64 },
  };
  const double horizon_h = 720, mtbf_h = 7200, shapes[] = { 0.5, 1, 2 };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autofree char *name = g_strdup_printf ("failures_%s", types[i].type);
      g_autofree char *mtbf = g_strdup_printf ("failures.%s_mtbf=%gh", types[i].type, mtbf_h);
      g_autofree char *repair = g_strdup_printf ("failures.%s_repair=0s", types[i].type);
      double n[G_N_ELEMENTS (shapes)], F[G_N_ELEMENTS (shapes)], lo, hi;

      for (guint k = 0; k < G_N_ELEMENTS (shapes); k++)
        {
          g_autofree char *shape = g_strdup_printf ("failures.%s_shape=%g", types[i].type,
                                                    shapes[k]);
          const char *sets[] = { mtbf, repair, shape, NULL };
          double x = horizon_h * tgamma (1 + 1 / shapes[k]) / mtbf_h;
          n[k] = run_metric (shape_text, sets, name);
          F[k] = 1 - exp (-pow (x, shapes[k]));
        }
      lo = 0;
      while (gsl_cdf_binomial_P (lo, F[0], types[i].units) < 0.001)
        lo++;
      ck_assert_msg (n[0] >= lo, "%s, shape 0.5: %g failures, at least %g expected",
                     types[i].type, n[0], lo);
      poisson_interval (types[i].units * F[2] / (1 - F[2]), 0.002, &lo, &hi);
      ck_assert_msg (n[2] <= hi, "%s, shape 2: %g failures, at most %g expected", types[i].type,
                     n[2], hi);
      poisson_interval (types[i].units * horizon_h / mtbf_h, 0.002, &lo, &hi);
      ck_assert_msg (n[1] >= lo && n[1] <= hi, "%s, exponential: %g failures, expected %g to %g",
                     types[i].type, n[1], lo, hi);
      ck_assert_msg (n[0] > n[1] && n[1] > n[2], "%s: %g, %g and %g failures at shapes 0.5, 1 "
                     "and 2", types[i].type, n[0], n[1], n[2]);
    }
}
END_TEST

START_TEST (test_bad_input)
{
  static const struct { const char *line; const char *expect; } cases[] = {
    { "bogus = 1\n", "tiny.ini:3: [failures] bogus" },
    { "gpu_mtbf = soon\n", "tiny.ini:3: [failures] gpu_mtbf" },
    { "mode = lazy\n", "tiny.ini:3: [failures] mode" },
    { "gpu_shape = 0\n", "tiny.ini:3: [failures] gpu_shape" },
    { "drain = maybe\n", "tiny.ini:3: [failures] drain" },
    { "checkpoint_interval = 0s\n", "tiny.ini:3: [failures] checkpoint_interval" },
    { "log = missing.csv\n", "tiny.ini:3: [failures] log" },
  };
  const char *head = "[scenario]\nname = bad\n[failures]\n";
  const char *rest = "[pool h100]\nmodel = DGX-H100\ncount = 2\n"
                     "[workload]\nsource = synthetic\nrate = 1/h\njobs = 3\ngpus = 8\n"
                     "duration = exponential(mean=1h)\n";

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = g_strdup_printf ("[scenario]\nname = bad\n%s%s%s",
                                               "[failures]\n", cases[i].line, rest);
      g_autoptr(SimScenario) sc = NULL;
      (void) head;
      /* The key sits on line 4, after the section on line 3. */
      sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir, NULL, &error);
      ck_assert_msg (sc == NULL, "accepted %s", cases[i].line);
      ck_assert_msg (strstr (error->message, "tiny.ini:4: [failures]") != NULL &&
                       strstr (error->message, cases[i].expect + strlen ("tiny.ini:3: ")) != NULL,
                     "%s: %s", cases[i].line, error->message);
    }
  /* Found when the simulation is built: the profile, spares, the log. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *text = g_strdup_printf ("[scenario]\nname = bad\n[failures]\n"
                                             "profile = nosuch\n%s", rest);
    g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir,
                                                             NULL, &error);
    g_autoptr(SimSimulation) sim = NULL;
    ck_assert (sc != NULL);
    sim = sim_simulation_new (sc, &error);
    ck_assert (sim == NULL);
    ck_assert_msg (strstr (error->message, "tiny.ini:4: [failures] profile") != NULL &&
                     strstr (error->message, "nosuch") != NULL, "%s", error->message);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *text = g_strdup_printf ("[scenario]\nname = bad\n[failures]\n"
                                             "spares = 2\n%s", rest);
    g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir,
                                                             NULL, &error);
    g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
    ck_assert (sim == NULL);
    ck_assert_msg (strstr (error->message, "tiny.ini:4: [failures] spares") != NULL, "%s",
                   error->message);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *text = g_strdup_printf ("[scenario]\nname = bad\n[failures]\n"
                                             "log = faults.csv\n%s", rest);
    g_autoptr(SimScenario) sc = NULL;
    g_autoptr(SimSimulation) sim = NULL;
    write_file ("faults.csv", "time,type,index\n10,gpu,0\n20,fan,0\n");
    sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir, NULL, &error);
    ck_assert (sc != NULL);
    sim = sim_simulation_new (sc, &error);
    ck_assert (sim == NULL);
    ck_assert_msg (strstr (error->message, "faults.csv:3: type") != NULL &&
                     strstr (error->message, "fan") != NULL, "%s", error->message);
    g_clear_error (&error);
    g_clear_pointer (&sc, sim_scenario_unref);
    write_file ("faults.csv", "10,gpu,16\n");
    sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir, NULL, &error);
    sim = sim_simulation_new (sc, &error);
    ck_assert (sim == NULL);
    ck_assert_msg (strstr (error->message, "faults.csv:1: index") != NULL, "%s",
                   error->message);
  }
}
END_TEST

START_TEST (test_without_section)
{
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  double v;
  const char *text = "[scenario]\nname = plain\nhorizon = 2d\n"
                     "[pool h100]\nmodel = DGX-H100\ncount = 2\n"
                     "[workload]\nsource = synthetic\nrate = 1/h\ngpus = 8\n"
                     "duration = exponential(mean=1h)\n";

  sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir, NULL, &error);
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (!sim_report_get_value (sim_simulation_get_report (sim), "failures", &v));
  ck_assert (!sim_report_get_value (sim_simulation_get_report (sim), "ettr", &v));
}
END_TEST

static Suite *
failures_suite (void)
{
  Suite *s = suite_create ("failures");
  TCase *tc = tcase_create ("core");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_poisson_count);
  tcase_add_test (tc, test_llama3);
  tcase_add_test (tc, test_replay_by_hand);
  tcase_add_test (tc, test_checkpoint_keeps_work);
  tcase_add_test (tc, test_jobs_csv_column);
  tcase_add_test (tc, test_young_daly_minimises_loss);
  tcase_add_test (tc, test_no_job_on_failed_node);
  tcase_add_test (tc, test_avoid_recent_faults);
  tcase_add_test (tc, test_deterministic);
  tcase_add_test (tc, test_keys_move_figures);
  tcase_add_test (tc, test_seed_offset);
  tcase_add_test (tc, test_shapes);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_without_section);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (failures_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
