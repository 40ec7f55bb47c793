/* check-sched.c: scheduling, end to end through the simulation.
 *
 * What it checks:
 *  - FIFO with first-fit and with best-fit on a tiny trace whose start
 *    times, waits, fragmentation and utilization are worked out by hand
 *    below;
 *  - an M/M/c queue (Poisson arrivals, exponential durations, one-GPU jobs,
 *    c one-GPU nodes, FIFO): the mean wait falls within a batch-means
 *    confidence interval around the Erlang C value at loads 0.5, 0.7, 0.9;
 *  - conservation on a random mixed workload: no GPU is ever allocated to
 *    two jobs at once, and the GPU-seconds the jobs used equal the
 *    allocated GPU-seconds the metrics integrated;
 *  - pausing at each scheduling decision gives the same result as a run
 *    straight to the end;
 *  - a policy that reports a failure (sim_policy_fail()), or asks for a
 *    wake-up in the past, stops the run where it did, and a function the
 *    run calls stops it with sim_simulation_fail().
 * What it does not check: policies other than FIFO (they come with their
 * own suites), or the speed of anything.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include <gsl/gsl_cdf.h>
#include <stdio.h>
#include <string.h>

static char *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("check-sched-XXXXXX", NULL);
  ck_assert_ptr_nonnull (tmpdir);
}

static void
teardown (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

/* One SWF job line: number, submit (s), run time (s), processors. */
static void
swf_line (GString *s, int id, int submit, int run, int procs)
{
  g_string_append_printf (s, "%d %d -1 %d %d -1 -1 %d -1 -1 1 1 -1 -1 -1 -1 -1 -1\n", id, submit,
                          run, procs, procs);
}

static SimScenario *
trace_scenario (const char *trace_text, const char *placement, const char *extra)
{
  g_autofree char *trace = g_build_filename (tmpdir, "jobs.swf", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  SimScenario *sc;

  ck_assert (g_file_set_contents (trace, trace_text, -1, NULL));
  text = g_strdup_printf ("[scenario]\nname = tiny\n"
                          "[pool p]\nmodel = PCIe-8GPU\ngpus_per_node = 4\ncount = 2\n"
                          "[workload]\nsource = swf\ntrace = %s\nprocessors_per_gpu = 1\n"
                          "[policy]\nqueue = fifo\nplacement = %s\n%s",
                          trace, placement, extra ? extra : "");
  sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  return sc;
}

typedef struct {
  SimTime start[16];
  guint32 first_gpu[16];
  guint32 nodes[16];
} Starts;

static void
record_start (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Starts *s = data;

  if (job->state == SIM_JOB_RUNNING && job->spec.id < 16)
    {
      s->start[job->spec.id] = job->start;
      s->first_gpu[job->spec.id] = job->gpus[0];
      s->nodes[job->spec.id] = job->n_nodes;
    }
}

static double
metric (SimSimulation *sim, const char *name)
{
  double v = NAN;
  ck_assert_msg (sim_report_get_value (sim_simulation_get_report (sim), name, &v), "%s", name);
  return v;
}

/* The hand-worked case.  Two nodes of 4 GPUs (GPUs 0-3 on node 0, 4-7 on
 * node 1).  Jobs (submit s, GPUs, run s): 1 (0, 2, 100), 2 (0, 3, 100),
 * 3 (10, 1, 500), 4 (20, 2, 30).
 *
 * First-fit: 1 -> node 0 (2 free left), 2 -> node 1 (1 left), 3 -> node 0
 * (1 left).  Job 4 needs 2 GPUs on one node and waits until jobs 1 and 2
 * end at 100, then starts on node 0 and ends at 130.  From 20 to 100 the
 * head job (2 GPUs) cannot use the 1 + 1 free GPUs: 2 GPUs fragmented for
 * 80 s.  The run ends at 510 (job 3).  GPU-seconds: 200 + 300 + 500 + 60 =
 * 1060 of 8 x 510 = 4080.
 *
 * Best-fit: 1 -> node 0 (tie, lowest), 2 -> node 1, 3 -> node 1 (the
 * fuller node that fits), so job 4 starts at once on node 0 at 20.  Nothing
 * is ever fragmented.  Same GPU-seconds over the same 510 s. */
START_TEST (test_fifo_first_fit_by_hand)
{
  g_autoptr(GString) trace = g_string_new ("; tiny\n");
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GError) error = NULL;
  Starts s = { 0 };

  swf_line (trace, 1, 0, 100, 2);
  swf_line (trace, 2, 0, 100, 3);
  swf_line (trace, 3, 10, 500, 1);
  swf_line (trace, 4, 20, 30, 2);
  sc = trace_scenario (trace->str, "first-fit", NULL);
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim_simulation_set_job_observer (sim, record_start, &s, NULL);
  ck_assert (sim_simulation_run (sim, &error));

  ck_assert_int_eq (s.start[1], 0);
  ck_assert_int_eq (s.start[2], 0);
  ck_assert_int_eq (s.start[3], 10 * SIM_SECOND);
  ck_assert_int_eq (s.start[4], 100 * SIM_SECOND);
  ck_assert_uint_eq (s.first_gpu[1], 0);
  ck_assert_uint_eq (s.first_gpu[2], 4);
  ck_assert_uint_eq (s.first_gpu[3], 2);
  ck_assert_uint_eq (s.first_gpu[4], 0);
  ck_assert_double_eq_tol (metric (sim, "wait_mean"), 80.0 / 4, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "wait_max"), 80.0, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "makespan"), 510.0, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "simulated_time"), 510.0, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "fragmented_gpus_mean"), 2.0 * 80 / 510, 1e-12);
  ck_assert_double_eq_tol (metric (sim, "gpu_utilization"), 1060.0 / 4080, 1e-12);
  ck_assert_double_eq_tol (metric (sim, "allocated_gpu_seconds"), 1060.0, 1e-9);
  /* Queue: job 4 waits alone from 20 to 100. */
  ck_assert_double_eq_tol (metric (sim, "queue_length_mean"), 80.0 / 510, 1e-12);
  ck_assert_double_eq (metric (sim, "queue_length_max"), 1.0);
  /* JCTs 100, 100, 500, 110: mean 202.5. */
  ck_assert_double_eq_tol (metric (sim, "jct_mean"), 202.5, 1e-9);
  /* Bounded slowdowns: 1, 1, 1 and 110 / 30 for job 4. */
  ck_assert_double_eq_tol (metric (sim, "bounded_slowdown_mean"), (3 + 110.0 / 30) / 4, 1e-9);
}
END_TEST

START_TEST (test_fifo_best_fit_by_hand)
{
  g_autoptr(GString) trace = g_string_new ("; tiny\n");
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GError) error = NULL;
  Starts s = { 0 };

  swf_line (trace, 1, 0, 100, 2);
  swf_line (trace, 2, 0, 100, 3);
  swf_line (trace, 3, 10, 500, 1);
  swf_line (trace, 4, 20, 30, 2);
  sc = trace_scenario (trace->str, "best-fit", NULL);
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim_simulation_set_job_observer (sim, record_start, &s, NULL);
  ck_assert (sim_simulation_run (sim, &error));

  ck_assert_int_eq (s.start[4], 20 * SIM_SECOND);
  ck_assert_uint_eq (s.first_gpu[3], 7);
  ck_assert_uint_eq (s.first_gpu[4], 2);
  ck_assert_double_eq_tol (metric (sim, "wait_mean"), 0, 1e-12);
  ck_assert_double_eq_tol (metric (sim, "fragmented_gpus_mean"), 0, 1e-12);
  ck_assert_double_eq_tol (metric (sim, "gpu_utilization"), 1060.0 / 4080, 1e-12);
}
END_TEST

/* A job larger than a node takes whole free nodes, then the rest on one
 * more node; a job larger than the cluster is rejected, not queued forever.
 * Jobs: 1 (0 s, 6 GPUs, 50 s) -> node 0 whole + 2 GPUs of node 1;
 * 2 (0 s, 3 GPUs, 50 s) waits (node 1 has 2 free) until 50;
 * 3 (5 s, 9 GPUs) is rejected. */
START_TEST (test_multi_node_and_rejection)
{
  g_autoptr(GString) trace = g_string_new ("");
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GError) error = NULL;
  Starts s = { 0 };

  swf_line (trace, 1, 0, 50, 6);
  swf_line (trace, 2, 0, 50, 3);
  swf_line (trace, 3, 5, 50, 9);
  sc = trace_scenario (trace->str, "first-fit", NULL);
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim_simulation_set_job_observer (sim, record_start, &s, NULL);
  ck_assert (sim_simulation_run (sim, &error));
  ck_assert_uint_eq (s.nodes[1], 2);
  ck_assert_uint_eq (s.first_gpu[1], 0);
  ck_assert_int_eq (s.start[2], 50 * SIM_SECOND);
  ck_assert_double_eq (metric (sim, "jobs_rejected"), 1);
  ck_assert_double_eq (metric (sim, "jobs_completed"), 2);
  ck_assert_double_eq (metric (sim, "jobs_unfinished"), 0);
}
END_TEST

/* GPU speed: durations are run times on the reference GPU.  A 100 s job
 * measured on an H100 (989 dense BF16 TFLOPS, models/SOURCES.md A1) runs on
 * an A10 (125) for 100 x 989 / 125 s; with the A10 itself as the reference
 * (the default: the first pool's GPU) it takes 100 s. */
START_TEST (test_gpu_speed)
{
  g_autoptr(GString) trace = g_string_new ("");
  g_autofree char *path = g_build_filename (tmpdir, "speed.swf", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  const char *refs[] = { "workload.reference_gpu=H100-SXM", NULL };

  swf_line (trace, 1, 0, 100, 1);
  ck_assert (g_file_set_contents (path, trace->str, -1, NULL));
  text = g_strdup_printf ("[scenario]\nname = speed\n[pool p]\nmodel = PCIe-8GPU\ncount = 1\n"
                          "[workload]\nsource = swf\ntrace = %s\n", path);
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "speed.ini", tmpdir,
                                                               k ? refs : NULL, &error);
      g_autoptr(SimSimulation) sim = NULL;
      Starts st = { 0 };
      double expected = k ? 100.0 * 989 / 125 : 100.0;
      ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
      sim = sim_simulation_new (sc, &error);
      ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
      sim_simulation_set_job_observer (sim, record_start, &st, NULL);
      ck_assert (sim_simulation_run (sim, &error));
      ck_assert_double_eq_tol (metric (sim, "makespan"), expected, 1e-6);
      /* The slow GPU computes all the time it holds: utilization counts
       * time, not reference work. */
      ck_assert_double_eq_tol (metric (sim, "gpu_compute_utilization"),
                               metric (sim, "gpu_utilization"), 1e-12);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* M/M/c against Erlang C.                                                   */

/* Erlang C: the probability that an arrival waits, for c servers at
 * offered load a = lambda/mu (a < c), from the Erlang B recursion
 * B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)), C = c B / (c - a (1 - B)). */
static double
erlang_c (int c, double a)
{
  double b = 1;
  for (int k = 1; k <= c; k++)
    b = a * b / (k + a * b);
  return c * b / (c - a * (1 - b));
}

typedef struct {
  GArray *waits; /* seconds, by job id order */
} Waits;

static void
record_wait (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Waits *w = data;
  if (job->state == SIM_JOB_DONE)
    {
      double wait = sim_time_to_seconds (job->start - job->spec.submit);
      guint idx = (guint) job->spec.id - 1;
      if (w->waits->len <= idx)
        g_array_set_size (w->waits, idx + 1);
      g_array_index (w->waits, double, idx) = wait;
    }
}

static void
check_mmc (int c, double rho, guint64 jobs, guint64 seed)
{
  double mu_per_h = 1.0, lambda_per_h = rho * c * mu_per_h;
  double a = lambda_per_h / mu_per_h;
  double expected = erlang_c (c, a) / (c * mu_per_h - lambda_per_h) * 3600; /* seconds */
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = mmc\nseed = %" G_GUINT64_FORMAT "\n"
    "[pool p]\nmodel = PCIe-8GPU\ngpus_per_node = 1\ncount = %d\n"
    "[workload]\nrate = %.17g/h\njobs = %" G_GUINT64_FORMAT "\ngpus = 1\n"
    "duration = exponential(mean=1h)\n",
    seed, c, lambda_per_h, jobs);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "mmc.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) sim = NULL;
  Waits w = { g_array_new (FALSE, TRUE, sizeof (double)) };
  const guint batches = 30;
  guint warmup, per_batch;
  double means[30], grand = 0, var = 0, half;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim_simulation_set_job_observer (sim, record_wait, &w, NULL);
  ck_assert (sim_simulation_run (sim, &error));
  ck_assert_uint_eq (w.waits->len, jobs);

  /* Batch means over the jobs in arrival order, after a 5 % warm-up. */
  warmup = (guint) (jobs / 20);
  per_batch = (guint) ((jobs - warmup) / batches);
  for (guint b = 0; b < batches; b++)
    {
      double sum = 0;
      for (guint i = 0; i < per_batch; i++)
        sum += g_array_index (w.waits, double, warmup + b * per_batch + i);
      means[b] = sum / per_batch;
      grand += means[b] / batches;
    }
  for (guint b = 0; b < batches; b++)
    var += (means[b] - grand) * (means[b] - grand) / (batches - 1);
  /* A 99 % interval: t quantile with batches - 1 degrees of freedom. */
  half = gsl_cdf_tdist_Pinv (0.995, batches - 1) * sqrt (var / batches);
  ck_assert_msg (fabs (grand - expected) <= half,
                 "M/M/%d at rho %.2f: mean wait %.1f s, Erlang C %.1f s, 99%% half-width %.1f s",
                 c, rho, grand, expected, half);
  g_array_unref (w.waits);
}

START_TEST (test_mmc_erlang_c)
{
  static const double loads[] = { 0.5, 0.7, 0.9 };
  const double rho = loads[_i];
  /* More jobs at higher load, where waits are long-range correlated. */
  check_mmc (4, rho, rho < 0.8 ? 100000 : 300000, 11);
  check_mmc (16, rho, rho < 0.8 ? 100000 : 300000, 12);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Conservation.                                                             */

typedef struct {
  guint64 *owner;    /* job id + 1 on each GPU, 0 if free */
  guint    n_gpus;
  guint    violations;
  guint    max_busy, busy;
  double   gpu_seconds;
} Ledger;

static void
check_ledger (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Ledger *l = data;

  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint g = job->gpus[i];
      ck_assert_uint_lt (g, l->n_gpus);
      if (job->state == SIM_JOB_RUNNING)
        {
          if (l->owner[g] != 0)
            l->violations++;
          l->owner[g] = job->spec.id + 1;
          l->busy++;
        }
      else
        {
          if (l->owner[g] != job->spec.id + 1)
            l->violations++;
          l->owner[g] = 0;
          l->busy--;
        }
    }
  l->max_busy = MAX (l->max_busy, l->busy);
  if (job->state == SIM_JOB_DONE)
    l->gpu_seconds += sim_time_to_seconds (job->end - job->start) * job->n_gpus;
}

START_TEST (test_conservation)
{
  const char *placement = _i == 0 ? "first-fit" : "best-fit";
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = conservation\nseed = 5\n"
    "[pool a]\nmodel = DGX-H100\ncount = 6\n"
    "[pool b]\nmodel = PCIe-8GPU\ngpus_per_node = 4\ncount = 5\n"
    "[workload]\nrate = 5/h\njobs = 20000\n"
    "[class small]\nshare = 3\ngpus = 1:0.4, 2:0.3, 3:0.1, 4:0.2\n"
    "duration = lognormal(median=20min, sigma=1.5)\n"
    "[class big]\nshare = 1\ngpus = 8:0.5, 12:0.2, 16:0.2, 40:0.1\n"
    "duration = empirical(30min:1, 2h:2, 9h:1)\n"
    "[policy]\nplacement = %s\n", placement);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "c.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) sim = NULL;
  Ledger l = { 0 };
  double alloc, jobs_gs;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  l.n_gpus = sim_cluster_get_n_gpus (sim_simulation_get_cluster (sim));
  ck_assert_uint_eq (l.n_gpus, 6 * 8 + 5 * 4);
  l.owner = g_new0 (guint64, l.n_gpus);
  sim_simulation_set_job_observer (sim, check_ledger, &l, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");

  ck_assert_uint_eq (l.violations, 0);
  ck_assert_uint_le (l.max_busy, l.n_gpus);
  ck_assert_uint_eq (l.busy, 0);
  alloc = metric (sim, "allocated_gpu_seconds");
  jobs_gs = metric (sim, "job_gpu_seconds");
  ck_assert_double_eq_tol (jobs_gs, l.gpu_seconds, 1e-9 * l.gpu_seconds);
  ck_assert_msg (fabs (alloc - jobs_gs) <= 1e-9 * jobs_gs, "allocated %.6f, jobs %.6f", alloc,
                 jobs_gs);
  ck_assert_double_eq (metric (sim, "jobs_completed") + metric (sim, "jobs_rejected"), 20000);
  ck_assert_double_le (metric (sim, "gpu_utilization"), 1.0);
  g_free (l.owner);
}
END_TEST

/* Every queue order with every placement, on a mixed workload (MIG
 * instances, single-node and multi-node jobs that communicate over a 2:1
 * fat-tree, two tenants and priorities): no GLib warning or critical (a
 * failed assertion inside the library aborts the test), and GPU time is
 * conserved (job GPU-seconds equal allocated GPU-seconds). */
START_TEST (test_all_policies_mixed)
{
  static const char *queues[] = { "fifo", "sjf", "priority", "easy", "las", "fair-share" };
  static const char *placements[] = { "first-fit", "best-fit", "worst-fit", "random", "packing",
                                      "clustering", "dot-product", "fgd", "topology-aware" };
  const char *text =
    "[scenario]\nname = mixed\nseed = 8\nhorizon = 18h\n"
    "[pool a]\nmodel = DGX-H100\ncount = 6\n"
    "[fabric]\ntopology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 24\n"
    "oversubscription = 2\n"
    "[workload]\nrate = 14/h\nestimate_factor = 1.5\n"
    "[class infer]\nshare = 3\ngpus = 1\nmig = 1g.10gb\ntenant = 1\n"
    "duration = lognormal(median=20min, sigma=1)\n"
    "[class half]\nshare = 1\ngpus = 1\nmig = 3g.40gb\ntenant = 1\npriority = 2\n"
    "duration = exponential(mean=1h)\n"
    "[class train]\nshare = 2\ngpus = 2:0.3, 8:0.4, 16:0.2, 24:0.1\ntenant = 0\npriority = 1\n"
    "duration = lognormal(median=1h, sigma=1)\niteration = 500ms\ngradient = 2GB\n"
    "overlap = 0.3\n";
  GLogLevelFlags old = g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);

  for (guint q = 0; q < G_N_ELEMENTS (queues); q++)
    for (guint p = 0; p < G_N_ELEMENTS (placements); p++)
      {
        g_autofree char *sq = g_strdup_printf ("policy.queue=%s", queues[q]);
        g_autofree char *sp = g_strdup_printf ("policy.placement=%s", placements[p]);
        const char *sets[] = { sq, sp, NULL };
        g_autoptr(GError) error = NULL;
        g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "mixed.ini", NULL,
                                                                 sets, &error);
        g_autoptr(SimSimulation) sim = NULL;
        double alloc, jobs_gs;

        ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
        sim = sim_simulation_new (sc, &error);
        ck_assert_msg (sim != NULL, "%s/%s: %s", queues[q], placements[p],
                       error ? error->message : "");
        ck_assert_msg (sim_simulation_run (sim, &error), "%s/%s: %s", queues[q], placements[p],
                       error ? error->message : "");
        alloc = metric (sim, "allocated_gpu_seconds");
        jobs_gs = metric (sim, "job_gpu_seconds");
        ck_assert_msg (fabs (alloc - jobs_gs) <= 1e-6 * MAX (alloc, 1.0),
                       "%s/%s: allocated %.6f GPU-s, jobs %.6f", queues[q], placements[p], alloc,
                       jobs_gs);
        ck_assert_double_gt (metric (sim, "jobs_completed"), 50);
      }
  /* Fractional GPUs and host CPU and memory: the openb excerpt replayed on
   * four 2-GPU nodes, every policy. */
  for (guint q = 0; q < G_N_ELEMENTS (queues); q++)
    for (guint p = 0; p < G_N_ELEMENTS (placements) - 1; p++)
      {
        g_autofree char *frac = g_strdup_printf (
          "[scenario]\nname = frac\n[pool t4]\nmodel = PCIe-8GPU\ngpu = T4\ngpus_per_node = 2\n"
          "count = 4\n[workload]\nsource = openb\ntrace = %s/openb-pods.csv\n"
          "[policy]\nqueue = %s\nplacement = %s\n", SIM_TEST_DATADIR, queues[q], placements[p]);
        g_autoptr(GError) error = NULL;
        g_autoptr(SimScenario) sc = sim_scenario_load_from_data (frac, -1, "frac.ini", NULL, NULL,
                                                                 &error);
        g_autoptr(SimSimulation) sim = NULL;
        double alloc, jobs_gs;

        ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
        sim = sim_simulation_new (sc, &error);
        ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
        ck_assert_msg (sim_simulation_run (sim, &error), "%s/%s: %s", queues[q], placements[p],
                       error ? error->message : "");
        alloc = metric (sim, "allocated_gpu_seconds");
        jobs_gs = metric (sim, "job_gpu_seconds");
        ck_assert_msg (fabs (alloc - jobs_gs) <= 1e-6 * MAX (alloc, 1.0),
                       "openb %s/%s: allocated %.6f GPU-s, jobs %.6f", queues[q], placements[p],
                       alloc, jobs_gs);
        ck_assert_double_gt (metric (sim, "jobs_completed"), 10);
      }
  g_log_set_always_fatal (old);
}
END_TEST

/* A policy that starts what it can and preempts it again in the same pass
 * would decide forever at one instant: the run stops with an error naming
 * the policy. */
#define TEST_TYPE_THRASH (test_thrash_get_type ())
G_DECLARE_FINAL_TYPE (TestThrash, test_thrash, TEST, THRASH, GObject)
struct _TestThrash { GObject parent_instance; };

static gboolean
thrash_place (SimPolicy *policy, const SimCluster *cluster, const SimJob *job, SimPlacement *p)
{
  return sim_place_first_fit (cluster, job, p);
}

static void
thrash_schedule (SimPolicy *policy, SimSchedContext *ctx)
{
  guint n = 0;
  SimJob * const *running;

  sim_policy_schedule_in_order (policy, ctx, TRUE);
  running = sim_sched_context_get_running (ctx, &n);
  for (guint i = 0; i < n; i++)
    sim_sched_context_preempt (ctx, running[i], 0, NULL);
}

static const char *
thrash_name (SimPolicy *policy)
{
  return "thrash";
}

static void
test_thrash_iface_init (SimPolicyInterface *iface)
{
  iface->abi_version = SIM_POLICY_ABI_VERSION;
  iface->get_name = thrash_name;
  iface->place = thrash_place;
  iface->schedule = thrash_schedule;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestThrash, test_thrash, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SIM_TYPE_POLICY, test_thrash_iface_init))
static void test_thrash_class_init (TestThrashClass *klass) {}
static void test_thrash_init (TestThrash *self) {}

START_TEST (test_livelock_stopped)
{
  const char *text = "[scenario]\nname = thrash\nhorizon = 1h\n"
                     "[pool a]\nmodel = DGX-H100\ncount = 1\n"
                     "[workload]\nrate = 10/h\ngpus = 1\nduration = constant(10min)\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "t.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
  g_autoptr(SimPolicy) thrash = g_object_new (TEST_TYPE_THRASH, NULL);

  ck_assert (sim != NULL);
  ck_assert (sim_simulation_set_policy (sim, thrash, &error));
  ck_assert (!sim_simulation_run (sim, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  ck_assert_msg (strstr (error->message, "policy thrash") != NULL &&
                 strstr (error->message, "without time moving on") != NULL, "%s", error->message);
}
END_TEST

/* A policy whose place() says every job fits but writes nothing: the start
 * is refused with an error saying the placement was not filled, rather
 * than the job starting on whatever the caller's buffer held (a stack's
 * leftovers: GPUs that may exist, or a GPU "3597976382" that does not). */
#define TEST_TYPE_LAZY (test_lazy_get_type ())
G_DECLARE_FINAL_TYPE (TestLazy, test_lazy, TEST, LAZY, GObject)
struct _TestLazy { GObject parent_instance; };

static gboolean
lazy_place (SimPolicy *policy, const SimCluster *cluster, const SimJob *job, SimPlacement *p)
{
  return TRUE;
}

static const char *
lazy_name (SimPolicy *policy)
{
  return "lazy";
}

static void
test_lazy_iface_init (SimPolicyInterface *iface)
{
  iface->abi_version = SIM_POLICY_ABI_VERSION;
  iface->get_name = lazy_name;
  iface->place = lazy_place;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestLazy, test_lazy, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SIM_TYPE_POLICY, test_lazy_iface_init))

static void test_lazy_class_init (TestLazyClass *klass) {}
static void test_lazy_init (TestLazy *self) {}

START_TEST (test_unfilled_placement_refused)
{
  const char *text = "[scenario]\nname = lazy\nhorizon = 1h\n"
                     "[pool a]\nmodel = DGX-H100\ncount = 1\n"
                     "[workload]\nrate = 10/h\ngpus = 2\nduration = constant(10min)\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "t.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
  g_autoptr(SimPolicy) lazy = g_object_new (TEST_TYPE_LAZY, NULL);
  guint32 gpus[2] = { 0, 1 };   /* what a caller's buffer may hold: GPUs that exist */
  SimPlacement placement = { gpus, 2, 1000, -1 };
  SimJob job = { 0 };

  ck_assert (sim != NULL);
  /* The GPUs are marked unchosen before place() runs... */
  job.spec.id = 1;
  job.spec.gpus = 2;
  job.spec.gpu_milli = 1000;
  job.state = SIM_JOB_QUEUED;
  ck_assert (sim_policy_place (lazy, sim_simulation_get_cluster (sim), &job, &placement));
  ck_assert_uint_eq (gpus[0], G_MAXUINT32);
  ck_assert_uint_eq (gpus[1], G_MAXUINT32);
  /* ... and a run with it stops at the first start, naming the policy. */
  ck_assert (sim_simulation_set_policy (sim, lazy, &error));
  ck_assert (!sim_simulation_run (sim, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  ck_assert_msg (strstr (error->message, "policy lazy: job 1: the placement's GPU 1 of 2 was "
                                         "never chosen") != NULL, "%s", error->message);
}
END_TEST

/* The submission time of each job (by id) from a run, and which jobs
 * another run has started so far. */
typedef struct {
  SimTime  submit[301];
  gboolean started[301];
} Seen;

static void
note_submit (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Seen *seen = data;

  ck_assert_uint_le (job->spec.id, 300);
  seen->submit[job->spec.id] = job->spec.submit;
}

static void
note_started (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Seen *seen = data;

  if (job->state == SIM_JOB_RUNNING)
    seen->started[job->spec.id] = TRUE;
}

/* Pausing at every decision changes nothing: stopping before each pass and
 * committing it (sim_simulation_decide()) gives the same report as a run
 * straight through; between the two the decision's context shows the queue
 * in order and the time; committing twice, or with none pending, is an
 * error; a decision left pending is made by the next run call.  The queue
 * is checked against what the jobs' own times say: at a pause it holds
 * exactly the jobs submitted by then (times from the run straight
 * through, the same jobs) that have not started, all queued, in FIFO's
 * order (by submission, then id). */
START_TEST (test_run_to_decision)
{
  const char *text =
    "[scenario]\nname = steps\nseed = 3\n"
    "[pool a]\nmodel = DGX-A100\ncount = 2\n"
    "[workload]\nrate = 6/h\njobs = 300\ngpus = 1:0.5, 4:0.3, 8:0.2\n"
    "duration = exponential(mean=1h)\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "s.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) a = sim_simulation_new (sc, &error);
  g_autoptr(SimSimulation) b = sim_simulation_new (sc, &error);
  g_autofree char *ja = NULL, *jb = NULL;
  g_autofree Seen *seen = g_new0 (Seen, 1);
  guint pauses = 0, longest = 0;
  SimTime last = 0;

  ck_assert (a != NULL && b != NULL);
  sim_simulation_set_job_observer (a, note_submit, seen, NULL);
  sim_simulation_set_job_observer (b, note_started, seen, NULL);
  ck_assert (sim_simulation_run (a, &error));
  ck_assert_ptr_null (sim_simulation_get_decision (b));
  ck_assert (!sim_simulation_decide (b, TRUE, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  g_clear_error (&error);
  while (sim_simulation_run_to_decision (b, &error))
    {
      SimSchedContext *ctx = sim_simulation_get_decision (b);
      SimJob * const *queue;
      guint n, waiting = 0;
      SimTime now = sim_simulation_get_now (b);
      ck_assert_ptr_nonnull (ctx);
      ck_assert_int_eq (sim_sched_context_get_now (ctx), now);
      queue = sim_sched_context_get_queue (ctx, &n);
      for (guint64 id = 1; id <= 300; id++)
        waiting += seen->submit[id] <= now && !seen->started[id];
      ck_assert_uint_eq (n, waiting);
      for (guint i = 0; i < n; i++)
        {
          const SimJob *job = queue[i];
          ck_assert_int_eq (job->state, SIM_JOB_QUEUED);
          ck_assert_uint_le (job->spec.id, 300);
          ck_assert (!seen->started[job->spec.id]);
          ck_assert_int_eq (job->spec.submit, seen->submit[job->spec.id]);
          ck_assert_int_le (job->spec.submit, now);
          if (i > 0)
            ck_assert (queue[i - 1]->spec.submit < job->spec.submit
                       || (queue[i - 1]->spec.submit == job->spec.submit
                           && queue[i - 1]->spec.id < job->spec.id));
        }
      longest = MAX (longest, n);
      ck_assert_int_ge (sim_simulation_get_now (b), last);
      last = sim_simulation_get_now (b);
      pauses++;
      /* Every other decision is left pending for the next call to make. */
      if (pauses % 2 == 0)
        {
          ck_assert (sim_simulation_decide (b, TRUE, &error));
          ck_assert_ptr_null (sim_simulation_get_decision (b));
        }
    }
  ck_assert_ptr_null (error);
  ck_assert (sim_simulation_is_finished (b));
  ck_assert_uint_ge (pauses, 300);
  /* Not vacuous: jobs queued behind others (6 jobs/h x 1 h x 3.3 GPUs a
   * job on average is 19.8 GPUs asked of 16: the queue grows). */
  ck_assert_uint_ge (longest, 3);
  ja = sim_report_to_json (sim_simulation_get_report (a), FALSE);
  jb = sim_report_to_json (sim_simulation_get_report (b), FALSE);
  ck_assert_str_eq (ja, jb);
}
END_TEST

/* A start the cluster refuses leaves everything as it was, so a caller
 * (a policy, or an agent acting on a pending decision) may carry on: a MIG
 * job whose host CPU cannot be reserved is refused after its instance was
 * created, and the instance, the GPU's share and the job are all back as
 * before; the run then goes on to the same report as a run never
 * disturbed. */
START_TEST (test_refused_start_rolls_back)
{
  const char *text =
    "[scenario]\nname = rollback\nseed = 5\n"
    "[pool a]\nmodel = DGX-A100\ncount = 1\n"
    "[workload]\nrate = 20/h\njobs = 40\n"
    "[class inf]\ngpus = 1\nmig = 3g.20gb\nduration = exponential(mean=20min)\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "r.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) a = sim_simulation_new (sc, &error);
  g_autoptr(SimSimulation) b = sim_simulation_new (sc, &error);
  g_autofree char *ja = NULL, *jb = NULL;
  SimSchedContext *ctx;
  SimJob * const *queue;
  SimJob *job;
  guint n, free_before;
  guint64 allocated_before;
  guint32 gpu = 0, milli_before;
  SimPlacement placement = { &gpu, 1, 0, -1 };
  const SimCluster *cluster;

  ck_assert (a != NULL && b != NULL);
  ck_assert (sim_simulation_run (a, &error));
  ck_assert (sim_simulation_run_to_decision (b, &error));
  ctx = sim_simulation_get_decision (b);
  queue = sim_sched_context_get_queue (ctx, &n);
  ck_assert_uint_ge (n, 1);
  job = queue[0];
  cluster = sim_sched_context_get_cluster (ctx);
  free_before = sim_cluster_get_n_free_gpus (cluster);
  allocated_before = sim_cluster_get_allocated_milli (cluster);
  milli_before = job->spec.gpu_milli;
  placement.milli = job->spec.gpu_milli;
  ck_assert (sim_place_mig (cluster, job, &placement));
  job->spec.cpu_milli = 1000000000;   /* a million cores: no node has them */
  ck_assert (!sim_sched_context_start (ctx, job, &placement, &error));
  ck_assert_msg (strstr (error->message, "CPU") != NULL, "%s", error->message);
  g_clear_error (&error);
  ck_assert_int_eq (job->state, SIM_JOB_QUEUED);
  ck_assert_uint_eq (job->spec.gpu_milli, milli_before);
  ck_assert_ptr_null (job->gpus);
  ck_assert_uint_eq (sim_cluster_get_n_free_gpus (cluster), free_before);
  ck_assert_uint_eq (sim_cluster_get_allocated_milli (cluster), allocated_before);
  ck_assert_ptr_null (sim_cluster_get_mig_layout (cluster, gpu));
  /* Carry on as if nothing happened. */
  job->spec.cpu_milli = 0;
  ck_assert (sim_simulation_decide (b, TRUE, &error));
  ck_assert (sim_simulation_run (b, &error));
  ja = sim_report_to_json (sim_simulation_get_report (a), FALSE);
  jb = sim_report_to_json (sim_simulation_get_report (b), FALSE);
  ck_assert_str_eq (ja, jb);
}
END_TEST

/* State kept incrementally equals the same recomputed from the running
 * jobs, at every decision of a run that changes rates in every way:
 * time-sharing jobs joining and leaving GPUs, MIG instances, and
 * communicating jobs whose shares move on a 2:1 fat-tree. */
START_TEST (test_derived_state)
{
  const char *text =
    "[scenario]\nname = derived\nseed = 11\nhorizon = 2d\n"
    "[pool a]\nmodel = DGX-A100\ncount = 4\n"
    "[fabric]\ntopology = fat-tree\nswitch = Quantum-QM8700\nradix = 12\noversubscription = 2\n"
    "[workload]\nrate = 12/h\n"
    "[class shared]\nshare = 2\ngpus = 1\ngpu_share = 50%\nactivity = 0.8\n"
    "duration = exponential(mean=1h)\n"
    "[class mig]\nshare = 1\ngpus = 1\nmig = 2g.10gb\nduration = exponential(mean=1h)\n"
    "[class train]\nshare = 1\ngpus = 8:0.5, 16:0.5\nduration = exponential(mean=2h)\n"
    "iteration = 300ms\ngradient = 2GB\noverlap = 0.3\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "d.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) sim = NULL;
  guint decisions = 0;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  while (sim_simulation_run_to_decision (sim, &error))
    {
      ck_assert_msg (sim__kernel_check_state (sim, &error), "%s", error->message);
      ck_assert (sim_simulation_decide (sim, TRUE, &error));
      ck_assert_msg (sim__kernel_check_state (sim, &error), "%s", error->message);
      decisions++;
    }
  ck_assert_msg (error == NULL, "%s", error->message);
  ck_assert_uint_gt (decisions, 200);
}
END_TEST

/* A drained node takes no new job, whatever the kind of job (whole GPUs,
 * MIG instances), while what runs there goes on to its end; put back, it
 * takes jobs again.  Two DGX A100 under best-fit, node 0 drained from the
 * 20th decision to the 120th: the jobs running on it when it is drained
 * (there are some) each finish, none preempted, and no job starts on it
 * until it is back. */
typedef struct {
  SimSimulation *sim;
  gboolean       drained;
  guint          started_on_0, started_on_1;
  GHashTable    *on_0;        /* ids of the jobs running on node 0 */
  GHashTable    *held;        /* those running there when it was drained */
  guint          held_done, held_preempted;
} DrainWatch;

static void
watch_starts (SimSimulation *sim, const SimJob *job, gpointer data)
{
  DrainWatch *w = data;
  gpointer id = GUINT_TO_POINTER ((guint) job->spec.id);
  guint node;

  if (job->state != SIM_JOB_RUNNING)
    {
      if (g_hash_table_contains (w->held, id))
        {
          if (job->state == SIM_JOB_DONE)
            w->held_done++;
          else
            w->held_preempted++;
        }
      g_hash_table_remove (w->on_0, id);
      return;
    }
  node = sim_cluster_get_gpu (sim_simulation_get_cluster (sim), job->gpus[0])->node;
  ck_assert_msg (!(w->drained && node == 0), "job %" G_GUINT64_FORMAT " started on a drained "
                 "node", job->spec.id);
  if (node == 0)
    {
      w->started_on_0++;
      g_hash_table_add (w->on_0, id);
    }
  else
    w->started_on_1++;
}

START_TEST (test_drained_node)
{
  const char *text =
    "[scenario]\nname = drain\nseed = 2\n"
    "[pool a]\nmodel = DGX-A100\ncount = 2\n"
    "[workload]\nrate = 30/h\njobs = 400\n"
    "[class whole]\nshare = 2\ngpus = 1:0.5, 2:0.3, 4:0.2\nduration = exponential(mean=20min)\n"
    "[class mig]\nshare = 1\ngpus = 1\nmig = 1g.5gb\nduration = exponential(mean=20min)\n"
    "[policy]\nplacement = best-fit\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "d.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
  g_autoptr(GHashTable) on_0 = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr(GHashTable) held = g_hash_table_new (g_direct_hash, g_direct_equal);
  DrainWatch w = { NULL, FALSE, 0, 0, on_0, held, 0, 0 };
  guint decisions = 0, on_0_at_drain = 0, on_0_at_return = 0;

  ck_assert (sim != NULL);
  sim_simulation_set_job_observer (sim, watch_starts, &w, NULL);
  ck_assert (!sim_simulation_set_node_available (sim, 7, FALSE, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  g_clear_error (&error);
  while (sim_simulation_run_to_decision (sim, &error))
    {
      if (decisions == 20)
        {
          GHashTableIter it;
          gpointer id;
          g_hash_table_iter_init (&it, on_0);
          while (g_hash_table_iter_next (&it, &id, NULL))
            g_hash_table_add (held, id);
          on_0_at_drain = w.started_on_0;
          ck_assert (sim_simulation_set_node_available (sim, 0, FALSE, &error));
          w.drained = TRUE;
        }
      if (decisions == 120)
        {
          ck_assert (sim_simulation_set_node_available (sim, 0, TRUE, &error));
          w.drained = FALSE;
          on_0_at_return = w.started_on_0;
        }
      ck_assert (sim_simulation_decide (sim, TRUE, &error));
      ck_assert_msg (sim__kernel_check_state (sim, &error), "%s", error->message);
      decisions++;
    }
  ck_assert_msg (error == NULL, "%s", error->message);
  ck_assert_uint_gt (decisions, 120);
  /* Nothing started on node 0 while it was drained ... */
  ck_assert_uint_eq (on_0_at_return, on_0_at_drain);
  /* ... and what ran there went on, to its end. */
  ck_assert_uint_gt (g_hash_table_size (held), 0);
  ck_assert_uint_eq (w.held_preempted, 0);
  ck_assert_uint_eq (w.held_done, g_hash_table_size (held));
  /* Back in service, node 0 takes jobs again. */
  ck_assert_uint_gt (w.started_on_0, on_0_at_return);
  ck_assert_uint_gt (w.started_on_1, 0);
  {
    double completed;
    ck_assert (sim_report_get_value (sim_simulation_get_report (sim), "jobs_completed",
                                     &completed));
    ck_assert_double_eq (completed, 400);
  }
}
END_TEST

/* A policy that gives up (sim_policy_fail()), FIFO with first fit
 * otherwise: in place() when asked to place job AT_JOB, in compare() when
 * asked to order it, or whose pass asks for a wake-up in the past (or at
 * its own time) at the first decision that sees job AT_JOB queued. */
typedef enum {
  GIVE_UP_NEVER,
  GIVE_UP_IN_PLACE,
  GIVE_UP_IN_COMPARE,
  GIVE_UP_WAKE_PAST,
  GIVE_UP_WAKE_NOW,
} GiveUpMode;

#define TEST_TYPE_GIVE_UP (test_give_up_get_type ())
G_DECLARE_FINAL_TYPE (TestGiveUp, test_give_up, TEST, GIVE_UP, GObject)
struct _TestGiveUp {
  GObject    parent_instance;
  GiveUpMode mode;
  guint64    at_job;
  guint      passes;
  gboolean   saw_job;
};

static gboolean
give_up_place (SimPolicy *policy, const SimCluster *cluster, const SimJob *job, SimPlacement *p)
{
  TestGiveUp *self = TEST_GIVE_UP (policy);

  if (self->mode == GIVE_UP_IN_PLACE && job->spec.id == self->at_job)
    {
      g_autoptr(GError) error = g_error_new (G_FILE_ERROR, G_FILE_ERROR_NOENT,
                                             "no model for job %" G_GUINT64_FORMAT,
                                             job->spec.id);
      ck_assert (sim_policy_fail (policy, error));
      return FALSE;
    }
  return sim_place_first_fit (cluster, job, p);
}

static int
give_up_compare (SimPolicy *policy, const SimJob *a, const SimJob *b)
{
  TestGiveUp *self = TEST_GIVE_UP (policy);

  if (self->mode == GIVE_UP_IN_COMPARE && (a->spec.id == self->at_job || b->spec.id == self->at_job))
    {
      g_autoptr(GError) error = g_error_new (SIM_ERROR, SIM_ERROR_INVALID,
                                             "cannot order job %" G_GUINT64_FORMAT, self->at_job);
      sim_policy_fail (policy, error);
    }
  return 0;
}

static void
give_up_schedule (SimPolicy *policy, SimSchedContext *ctx)
{
  TestGiveUp *self = TEST_GIVE_UP (policy);
  guint n = 0;
  SimJob * const *queue = sim_sched_context_get_queue (ctx, &n);
  SimTime now = sim_sched_context_get_now (ctx);

  self->passes++;
  for (guint i = 0; i < n && !self->saw_job; i++)
    if (queue[i]->spec.id == self->at_job)
      {
        self->saw_job = TRUE;
        if (self->mode == GIVE_UP_WAKE_PAST)
          sim_sched_context_wake_at (ctx, now - SIM_SECOND);
        else if (self->mode == GIVE_UP_WAKE_NOW)
          sim_sched_context_wake_at (ctx, now);
      }
  sim_policy_schedule_in_order (policy, ctx, FALSE);
}

static const char *
give_up_name (SimPolicy *policy)
{
  return "give-up";
}

static void
test_give_up_iface_init (SimPolicyInterface *iface)
{
  iface->abi_version = SIM_POLICY_ABI_VERSION;
  iface->get_name = give_up_name;
  iface->compare = give_up_compare;
  iface->place = give_up_place;
  iface->schedule = give_up_schedule;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestGiveUp, test_give_up, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SIM_TYPE_POLICY, test_give_up_iface_init))
static void test_give_up_class_init (TestGiveUpClass *klass) {}
static void test_give_up_init (TestGiveUp *self) {}

static TestGiveUp *
give_up_new (GiveUpMode mode, guint64 at_job)
{
  TestGiveUp *self = g_object_new (TEST_TYPE_GIVE_UP, NULL);

  self->mode = mode;
  self->at_job = at_job;
  return self;
}

/* Whole-node jobs on one node, arriving faster than they finish: one job
 * runs at a time, in FIFO order, and a queue builds up.  A job is placed
 * exactly when it starts (a free GPU means a free node). */
#define GIVE_UP_JOBS 40
static const char give_up_scenario[] =
  "[scenario]\nname = give-up\nseed = 5\n"
  "[pool a]\nmodel = DGX-H100\ncount = 1\n"
  "[workload]\nrate = 2/h\njobs = 40\ngpus = 8\nduration = constant(40min)\n";

/* What a run did to each job (by id, from 1), as its observer saw it. */
typedef struct {
  SimTime  submit[GIVE_UP_JOBS + 1];
  SimTime  start[GIVE_UP_JOBS + 1];
  SimTime  end[GIVE_UP_JOBS + 1];
  gboolean started[GIVE_UP_JOBS + 1];
  guint    done;
  guint64  fail_after_done;   /* sim_simulation_fail() when this many are done; 0: never */
} Lives;

static void
note_life (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Lives *l = data;

  ck_assert_uint_le (job->spec.id, GIVE_UP_JOBS);
  l->submit[job->spec.id] = job->spec.submit;
  if (job->state == SIM_JOB_RUNNING)
    {
      l->started[job->spec.id] = TRUE;
      l->start[job->spec.id] = job->start;
    }
  else if (job->state == SIM_JOB_DONE)
    {
      l->end[job->spec.id] = job->end;
      l->done++;
      if (l->fail_after_done != 0 && l->done == l->fail_after_done)
        {
          g_autoptr(GError) error = g_error_new (G_FILE_ERROR, G_FILE_ERROR_NOSPC,
                                                 "the observer's disk is full");
          ck_assert (sim_simulation_fail (sim, error));
          /* The first error stands. */
          ck_assert (!sim_simulation_fail (sim, error));
        }
    }
}

/* A run of the scenario with POLICY (or its own fifo/first-fit if NULL),
 * its jobs' lives in LIVES; returns whether it succeeded. */
static gboolean
give_up_run (SimPolicy *policy, Lives *lives, SimSimulation **out, GError **error)
{
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (give_up_scenario, -1, "g.ini", NULL,
                                                           NULL, NULL);
  SimSimulation *sim;
  gboolean ok;

  ck_assert (sc != NULL);
  sim = sim_simulation_new (sc, NULL);
  ck_assert (sim != NULL);
  if (policy != NULL)
    ck_assert (sim_simulation_set_policy (sim, policy, NULL));
  sim_simulation_set_job_observer (sim, note_life, lives, NULL);
  ok = sim_simulation_run (sim, error);
  *out = sim;
  return ok;
}

/* The time in "... failed at T s: ..." (seconds). */
static double
failed_at (const char *message)
{
  const char *at = strstr (message, " failed at ");
  double t = -1;

  ck_assert_msg (at != NULL, "%s", message);
  ck_assert_int_eq (sscanf (at, " failed at %lf s:", &t), 1);
  return t;
}

/* A policy that reports a failure stops the run where it did, with the
 * error naming it, the time and what it said; every later call fails the
 * same way.  The truth is a run of the same policy that never gives up:
 * the place() that fails is the one at job 10's start there (a job is
 * placed only when the node is free), so the failed run stops at that
 * time, having finished exactly the jobs that ended by then and started
 * none from job 10 on.  A failure in compare() comes at job 10's arrival
 * or later, and before its start.  A failure reported before any run is
 * taken by the next run, which fails at its start; the policy is then
 * free of it and runs a new simulation to the end.  What it does not
 * check: the metrics of the runs (other suites do). */
START_TEST (test_policy_failure_stops_run)
{
  Lives full = { 0 };
  g_autoptr(SimSimulation) full_sim = NULL;
  g_autoptr(TestGiveUp) never = give_up_new (GIVE_UP_NEVER, 10);
  g_autoptr(GError) error = NULL;
  double t10;

  ck_assert (give_up_run (SIM_POLICY (never), &full, &full_sim, &error));
  ck_assert_uint_eq (full.done, GIVE_UP_JOBS);
  ck_assert_uint_eq (metric (full_sim, "jobs_completed"), GIVE_UP_JOBS);
  /* Job 10 waited: the queue was not empty (the case the test is about). */
  ck_assert_int_gt (full.start[10], full.submit[10]);
  t10 = sim_time_to_seconds (full.start[10]);

  {
    Lives lives = { 0 };
    g_autoptr(SimSimulation) sim = NULL;
    g_autoptr(TestGiveUp) p = give_up_new (GIVE_UP_IN_PLACE, 10);
    g_autofree char *want = g_strdup_printf ("policy give-up failed at %.3f s: no model for job 10",
                                             t10);
    guint ended_by_then = 0;

    ck_assert (!give_up_run (SIM_POLICY (p), &lives, &sim, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
    ck_assert_str_eq (error->message, want);
    for (guint id = 1; id <= GIVE_UP_JOBS; id++)
      {
        if (full.end[id] <= full.start[10])
          ended_by_then++;
        if (id >= 10)
          ck_assert_msg (!lives.started[id], "job %u started", id);
      }
    ck_assert_uint_eq (lives.done, ended_by_then);
    ck_assert_uint_lt (lives.done, full.done);
    ck_assert_ptr_null (sim_simulation_get_report (sim));
    ck_assert (!sim_simulation_is_finished (sim));
    /* Every later call fails the same way, and the run does not move. */
    g_clear_error (&error);
    ck_assert (!sim_simulation_run (sim, &error));
    ck_assert_str_eq (error->message, want);
    g_clear_error (&error);
    ck_assert (!sim_simulation_run_to_decision (sim, &error));
    ck_assert_str_eq (error->message, want);
    g_clear_error (&error);
    ck_assert (!sim_simulation_run_until (sim, SIM_TIME_NEVER - 1, &error));
    ck_assert_str_eq (error->message, want);
    ck_assert_uint_eq (lives.done, ended_by_then);
    g_clear_error (&error);
  }

  {
    Lives lives = { 0 };
    g_autoptr(SimSimulation) sim = NULL;
    g_autoptr(TestGiveUp) p = give_up_new (GIVE_UP_IN_COMPARE, 10);
    double t;

    ck_assert (!give_up_run (SIM_POLICY (p), &lives, &sim, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
    ck_assert_msg (g_str_has_prefix (error->message, "policy give-up failed at ") &&
                   g_str_has_suffix (error->message, ": cannot order job 10"), "%s",
                   error->message);
    t = failed_at (error->message);
    ck_assert_double_ge (t, sim_time_to_seconds (full.submit[10]) - 0.0005);
    ck_assert_double_le (t, t10 + 0.0005);
    for (guint id = 10; id <= GIVE_UP_JOBS; id++)
      ck_assert_msg (!lives.started[id], "job %u started", id);
    ck_assert_uint_lt (lives.done, full.done);
    g_clear_error (&error);
  }

  {
    Lives lives = { 0 }, again = { 0 };
    g_autoptr(SimSimulation) sim = NULL;
    g_autoptr(SimSimulation) next = NULL;
    g_autoptr(TestGiveUp) p = give_up_new (GIVE_UP_NEVER, 10);
    g_autoptr(GError) stale = g_error_new_literal (SIM_ERROR, SIM_ERROR_IO, "cannot read my table");
    g_autoptr(GError) later = g_error_new_literal (SIM_ERROR, SIM_ERROR_IO, "later");

    ck_assert (sim_policy_fail (SIM_POLICY (p), stale));
    ck_assert (!sim_policy_fail (SIM_POLICY (p), later));
    ck_assert (!give_up_run (SIM_POLICY (p), &lives, &sim, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
    ck_assert_str_eq (error->message, "policy give-up failed at 0.000 s: cannot read my table");
    ck_assert_uint_eq (p->passes, 0);
    for (guint id = 1; id <= GIVE_UP_JOBS; id++)
      ck_assert (!lives.started[id]);
    g_clear_error (&error);
    /* The simulation took it: the policy runs the next one to the end. */
    ck_assert (give_up_run (SIM_POLICY (p), &again, &next, &error));
    ck_assert_uint_eq (again.done, GIVE_UP_JOBS);
  }
}
END_TEST

/* sim_sched_context_wake_at() before the decision's time stops the run at
 * that decision, naming both times; at the decision's own time it is
 * accepted and makes one more pass, which changes nothing here.  Truth:
 * the first decision whose queue holds job 10 comes at job 10's arrival,
 * its submission time in a run that never asks. */
START_TEST (test_wake_in_the_past_stops_run)
{
  Lives full = { 0 };
  g_autoptr(SimSimulation) full_sim = NULL;
  g_autoptr(TestGiveUp) never = give_up_new (GIVE_UP_NEVER, 10);
  g_autoptr(GError) error = NULL;

  ck_assert (give_up_run (SIM_POLICY (never), &full, &full_sim, &error));
  ck_assert (never->saw_job);

  {
    Lives lives = { 0 };
    g_autoptr(SimSimulation) sim = NULL;
    g_autoptr(TestGiveUp) p = give_up_new (GIVE_UP_WAKE_PAST, 10);
    double t = sim_time_to_seconds (full.submit[10]);
    g_autofree char *want = g_strdup_printf ("policy give-up: sim_sched_context_wake_at() asked "
                                             "for a decision at %.9f s, before the decision's "
                                             "time, %.9f s", t - 1, t);

    ck_assert (!give_up_run (SIM_POLICY (p), &lives, &sim, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
    ck_assert_msg (g_str_has_prefix (error->message, want), "%s\nwant %s", error->message, want);
    for (guint id = 10; id <= GIVE_UP_JOBS; id++)
      ck_assert_msg (!lives.started[id], "job %u started", id);
    ck_assert_uint_lt (lives.done, full.done);
    ck_assert_ptr_null (sim_simulation_get_report (sim));
    g_clear_error (&error);
    ck_assert (!sim_simulation_run (sim, &error));
    ck_assert (g_str_has_prefix (error->message, want));
    g_clear_error (&error);
  }

  {
    Lives lives = { 0 };
    g_autoptr(SimSimulation) sim = NULL;
    g_autoptr(TestGiveUp) p = give_up_new (GIVE_UP_WAKE_NOW, 10);

    ck_assert_msg (give_up_run (SIM_POLICY (p), &lives, &sim, &error), "%s", error->message);
    ck_assert_uint_eq (p->passes, never->passes + 1);
    ck_assert_uint_eq (lives.done, full.done);
    ck_assert_double_eq (metric (sim, "wait_mean"), metric (full_sim, "wait_mean"));
  }
}
END_TEST

static void
fail_at_end (SimSimulation *sim, double fraction, SimTime now, guint64 jobs_done, gpointer data)
{
  if (fraction == 1.0)
    {
      g_autoptr(GError) error = g_error_new_literal (G_FILE_ERROR, G_FILE_ERROR_IO,
                                                     "progress bar broke");
      ck_assert (sim_simulation_fail (sim, error));
    }
}

/* A function the run calls stops it with sim_simulation_fail(): the run
 * returns the error as given (domain, code, message) and stops after the
 * event in progress: the observer that fails when the fifth job is done
 * sees five jobs done (one job runs at a time), where the full run has
 * forty.  The last progress call, at the end, can still fail the run,
 * which then has no report; a run that ended is not failed afterwards. */
START_TEST (test_simulation_fail)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) late = g_error_new_literal (SIM_ERROR, SIM_ERROR_STATE, "too late");

  {
    Lives lives = { .fail_after_done = 5 };
    g_autoptr(SimSimulation) sim = NULL;

    ck_assert (!give_up_run (NULL, &lives, &sim, &error));
    ck_assert (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC));
    ck_assert_str_eq (error->message, "the observer's disk is full");
    ck_assert_uint_eq (lives.done, 5);
    ck_assert_ptr_null (sim_simulation_get_report (sim));
    g_clear_error (&error);
    ck_assert (!sim_simulation_run (sim, &error));
    ck_assert (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC));
    ck_assert_uint_eq (lives.done, 5);
    g_clear_error (&error);
  }
  {
    Lives lives = { 0 };
    g_autoptr(SimScenario) sc = sim_scenario_load_from_data (give_up_scenario, -1, "g.ini", NULL,
                                                             NULL, NULL);
    g_autoptr(SimSimulation) sim = sim_simulation_new (sc, NULL);

    sim_simulation_set_job_observer (sim, note_life, &lives, NULL);
    sim_simulation_set_progress_func (sim, fail_at_end, NULL, NULL);
    ck_assert (!sim_simulation_run (sim, &error));
    ck_assert (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_IO));
    ck_assert_str_eq (error->message, "progress bar broke");
    ck_assert_uint_eq (lives.done, GIVE_UP_JOBS);
    ck_assert_ptr_null (sim_simulation_get_report (sim));
    ck_assert (!sim_simulation_is_finished (sim));
    g_clear_error (&error);
  }
  {
    Lives lives = { 0 };
    g_autoptr(SimSimulation) sim = NULL;

    ck_assert (give_up_run (NULL, &lives, &sim, &error));
    ck_assert (!sim_simulation_fail (sim, late));
    ck_assert (sim_simulation_run (sim, &error));
    ck_assert_ptr_nonnull (sim_simulation_get_report (sim));
  }
}
END_TEST

static Suite *
sched_suite (void)
{
  Suite *s = suite_create ("sched");
  TCase *tc = tcase_create ("by-hand");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_fifo_first_fit_by_hand);
  tcase_add_test (tc, test_fifo_best_fit_by_hand);
  tcase_add_test (tc, test_multi_node_and_rejection);
  tcase_add_test (tc, test_gpu_speed);
  suite_add_tcase (s, tc);

  tc = tcase_create ("queueing");
  tcase_set_timeout (tc, 300);
  tcase_add_loop_test (tc, test_mmc_erlang_c, 0, 3);
  tcase_add_loop_test (tc, test_conservation, 0, 2);
  tcase_add_test (tc, test_run_to_decision);
  tcase_add_test (tc, test_refused_start_rolls_back);
  tcase_add_test (tc, test_derived_state);
  tcase_add_test (tc, test_drained_node);
  tcase_add_test (tc, test_all_policies_mixed);
  tcase_add_test (tc, test_livelock_stopped);
  tcase_add_test (tc, test_unfilled_placement_refused);
  tcase_add_test (tc, test_policy_failure_stops_run);
  tcase_add_test (tc, test_wake_in_the_past_stops_run);
  tcase_add_test (tc, test_simulation_fail);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (sched_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
