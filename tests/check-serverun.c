/* check-serverun: serving inside ordinary runs (serve/sim-serve-module.h).
 *
 * What it checks:
 * - a run whose replicas hold their GPUs from time 0 to the end gives the
 *   request figures `gpusim serve` gives for the deployment alone
 *   (sim__serve_run(): the file read again, the replica model and the
 *   requests built again, one loop run to the end without a kernel),
 *   alone and beside a stream of training jobs on other GPUs;
 * - replicas never share a GPU with another job, and each replica's GPUs
 *   are on one node (every start and stop followed, GPU by GPU), and the
 *   kernel's incremental state matches the running jobs at the end;
 * - with whole_nodes a replica's job holds its node's every GPU, and a
 *   training job that would have shared the node goes to another; the
 *   requests are answered the same, the GPU-hours are the node's;
 * - a GPU failure takes its node, and the replica on it, out: the
 *   replica's requests go to the other replica and every request is still
 *   answered, later than without the failure; the replica comes back when
 *   its job is placed again;
 * - the autoscaler's timeline worked by hand: one replica at 0; 100 long
 *   requests at 5 s; three more replicas at the first look (10 s); the
 *   load gone by the first look after the batch's last completion (taken
 *   from the deployment alone on one replica), one replica dropped every
 *   scale_down_delay from there to the minimum; the last replica leaves at
 *   the first look after the last request;
 * - with [elastic], a replica that finds the owned GPUs full waits for a
 *   cloud node and serves from it, its GPU-hours all the cloud's; of
 *   higher priority it takes the owned GPUs and the training job bursts;
 * - with [power], the replicas' GPUs are busy as their requests keep them
 *   (a third of the time at a light load, nearly all of it at a heavy
 *   one), and their energy is the idle draw over the GPU-hours held plus
 *   the dynamic draw over the busy ones, per million tokens the same over
 *   the tokens answered;
 * - the deployment's cost is its GPU-hours at the run's own owning cost
 *   (the node's catalogue price amortized) plus its GPUs' energy at the
 *   run's price, and renting is its GPU-hours at the cloud's price;
 * - every new key moves its figure the right way (replicas, load_time,
 *   priority under the priority queue), and a training job waits for a
 *   service of higher priority; so does each autoscaler key in a run
 *   (target_outstanding, scale_down_delay, max_replicas, min_replicas,
 *   autoscale_interval);
 * - two deployments in one run each answer as alone; a horizon cuts a
 *   stream, the requests answered and unfinished adding to its count;
 * - the same seed gives the same report, to the byte;
 * - a scenario with [serving] and no [workload] runs; without either it
 *   is an error; bad keys are errors naming the file, line and key.
 * What it does not check: the request model itself (check-serve).
 */
#include "config.h"

#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sim.h>

#include "core/sim-error.h"
#include "kernel/sim-kernel.h"
#include "serve/sim-serve-module.h"

static char *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("check-serverun-XXXXXX", NULL);
  ck_assert (tmpdir != NULL);
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

static char *
write_file (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static SimSimulation *
new_sim (const char *text, const char * const *sets)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_file ("run.ini", text);
  g_autoptr(SimScenario) sc = sim_scenario_load (path, sets, &error);
  SimSimulation *sim;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  return sim;
}

static void
run_sim (SimSimulation *sim)
{
  g_autoptr(GError) error = NULL;

  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
}

static double
metric (SimSimulation *sim, const char *name)
{
  double v = NAN;

  ck_assert_msg (sim_report_get_value (sim_simulation_get_report (sim), name, &v),
                 "no metric %s", name);
  return v;
}

static double
run_metric (const char *text, const char * const *sets, const char *name)
{
  g_autoptr(SimSimulation) sim = new_sim (text, sets);

  run_sim (sim);
  return metric (sim, name);
}

/* One DGX H100; Llama 3 8B on one GPU per replica; 3,000 requests. */
static const char *alone_text =
  "[scenario]\nname = alone\nseed = 7\n"
  "[pool h100]\nmodel = DGX-H100\ncount = 1\n"
  "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicas = 3\n"
  "[requests q]\nrate = 40/s\ncount = 3000\ninput_tokens = 800\n"
  "input_distribution = exponential\noutput_tokens = 150\n"
  "output_distribution = exponential\n";

/* The same deployment on the first node of two, training jobs of 8 GPUs
 * beside it (the replicas, submitted first, take the first GPUs). */
static const char *beside_text =
  "[scenario]\nname = beside\nseed = 7\n"
  "[pool h100]\nmodel = DGX-H100\ncount = 2\n"
  "[workload]\nsource = synthetic\nrate = 30/h\njobs = 10\ngpus = 8\n"
  "duration = lognormal(median=20min, sigma=0.5)\n"
  "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicas = 3\n"
  "[requests q]\nrate = 40/s\ncount = 3000\ninput_tokens = 800\n"
  "input_distribution = exponential\noutput_tokens = 150\n"
  "output_distribution = exponential\n";

static void
check_same_as_serve (const char *text)
{
  g_auto(SimServeReport) alone = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_file ("alone.ini", text);
  g_autoptr(SimSimulation) sim = new_sim (text, NULL);
  static const char *stat[] = { "mean", "p50", "p95", "p99" };

  ck_assert_msg (sim__serve_run (path, NULL, NULL, &alone, &error), "%s",
                 error ? error->message : "");
  run_sim (sim);
  for (guint k = 0; k < 4; k++)
    {
      g_autofree char *a = g_strdup_printf ("serving.chat.ttft_%s", stat[k]);
      g_autofree char *b = g_strdup_printf ("serving.chat.tpot_%s", stat[k]);
      g_autofree char *c = g_strdup_printf ("serving.chat.e2e_%s", stat[k]);
      ck_assert_double_eq_tol (metric (sim, a), alone.result.ttft[k], 1e-12);
      ck_assert_double_eq_tol (metric (sim, b), alone.result.tpot[k], 1e-12);
      ck_assert_double_eq_tol (metric (sim, c), alone.result.e2e[k], 1e-12);
    }
  ck_assert_double_eq (metric (sim, "serving.chat.requests"), 3000);
  ck_assert_double_eq (metric (sim, "serving.chat.requests_unfinished"), 0);
  ck_assert_double_eq (metric (sim, "serving.chat.rerouted"), 0);
  ck_assert_double_eq_tol (metric (sim, "serving.chat.goodput"), alone.result.goodput, 1e-9);
  ck_assert_double_eq_tol (metric (sim, "serving.chat.output_tokens_per_second"),
                           alone.result.output_tokens_per_second, 1e-6);
  ck_assert_double_eq (metric (sim, "serving.chat.preemptions"), alone.result.preemptions);
  ck_assert_double_eq (metric (sim, "serving.chat.replicas_peak"), 3);
  /* The replicas hold their GPUs from 0 until the first look (every 10 s)
   * after the last completion. */
  {
    double end = ceil (alone.result.makespan / 10) * 10;
    ck_assert_double_eq_tol (metric (sim, "serving.chat.gpu_hours"), 3 * end / 3600, 1e-9);
  }
}

START_TEST (test_same_as_serve_alone)
{
  check_same_as_serve (alone_text);
}
END_TEST

START_TEST (test_same_as_serve_beside_training)
{
  check_same_as_serve (beside_text);
}
END_TEST

/* ------------------------------------------------------------------------- */

typedef struct {
  SimCluster *cluster;
  GHashTable *owner;     /* GPU -> job id */
  guint       starts;
  guint       replica_starts;
  gboolean    ok;
  char       *why;
} Watch;

static gboolean
is_replica (const SimJob *job)
{
  return job->spec.id >= G_GUINT64_CONSTANT (1000000000000);
}

static void
watch_started (gpointer data, SimJob *job, SimTime now)
{
  Watch *w = data;
  guint node = G_MAXUINT;

  w->starts++;
  if (is_replica (job))
    w->replica_starts++;
  for (guint g = 0; g < job->n_gpus; g++)
    {
      guint gn = sim_cluster_get_gpu (w->cluster, job->gpus[g])->node;
      if (g_hash_table_contains (w->owner, GUINT_TO_POINTER (job->gpus[g] + 1)) && w->ok)
        {
          w->ok = FALSE;
          w->why = g_strdup_printf ("job %" G_GUINT64_FORMAT " starts on GPU %u, taken",
                                    job->spec.id, job->gpus[g]);
        }
      g_hash_table_insert (w->owner, GUINT_TO_POINTER (job->gpus[g] + 1), job);
      if (is_replica (job) && node != G_MAXUINT && gn != node && w->ok)
        {
          w->ok = FALSE;
          w->why = g_strdup_printf ("replica %" G_GUINT64_FORMAT " spans nodes", job->spec.id);
        }
      node = gn;
    }
}

static void
watch_stopped (gpointer data, SimJob *job, SimTime now)
{
  Watch *w = data;

  for (guint g = 0; g < job->n_gpus; g++)
    g_hash_table_remove (w->owner, GUINT_TO_POINTER (job->gpus[g] + 1));
}

START_TEST (test_no_overlap)
{
  /* Two nodes, replicas of 4 GPUs with the autoscaler, training jobs of 2
   * to 8 GPUs at a rate that keeps the cluster full at times. */
  const char *text =
    "[scenario]\nname = overlap\nseed = 11\n"
    "[pool h100]\nmodel = DGX-H100\ncount = 2\n"
    "[workload]\nsource = synthetic\nrate = 40/h\njobs = 30\ngpus = 2:1, 4:1, 8:1\n"
    "duration = lognormal(median=10min, sigma=1)\n"
    "[policy]\nqueue = priority\npriority_preempt = true\n"
    "[serving chat]\nmodel = llama3-8b\nrequests = q\ntp = 4\nreplicas = 1\n"
    "priority = 1\nautoscale = true\nmax_replicas = 3\ntarget_outstanding = 8\n"
    "scale_down_delay = 1min\n"
    "[requests q]\nrate = 30/s\ncount = 20000\ninput_tokens = 1000\n"
    "input_distribution = exponential\noutput_tokens = 300\n"
    "output_distribution = exponential\nburst_start = 2min\nburst_duration = 2min\n"
    "burst_factor = 4\n";
  g_autoptr(SimSimulation) sim = new_sim (text, NULL);
  g_autoptr(GError) error = NULL;
  Watch w = { 0 };

  w.cluster = sim__kernel_get_cluster (sim);
  w.owner = g_hash_table_new (g_direct_hash, g_direct_equal);
  w.ok = TRUE;
  sim__kernel_connect (sim, SIM_HOOK_JOB_STARTED, G_CALLBACK (watch_started), &w);
  sim__kernel_connect (sim, SIM_HOOK_JOB_STOPPED, G_CALLBACK (watch_stopped), &w);
  run_sim (sim);
  ck_assert_msg (w.ok, "%s", w.why);
  /* The test saw replicas come and go among the training jobs. */
  ck_assert_uint_gt (w.replica_starts, 1);
  ck_assert_uint_gt (w.starts, w.replica_starts);
  ck_assert (metric (sim, "serving.chat.scale_ups") >= 1);
  ck_assert_double_eq (metric (sim, "serving.chat.requests"), 20000);
  ck_assert_msg (sim__kernel_check_state (sim, &error), "%s", error ? error->message : "");
  g_hash_table_unref (w.owner);
  g_free (w.why);
}
END_TEST

/* The nodes replica and other jobs start on (a bit per node). */
typedef struct {
  SimCluster *cluster;
  guint replica_nodes, other_nodes;
} Nodes;

static void
record_nodes (gpointer data, SimJob *job, SimTime now)
{
  Nodes *w = data;

  for (guint g = 0; g < job->n_gpus; g++)
    {
      guint node = sim_cluster_get_gpu (w->cluster, job->gpus[g])->node;
      if (is_replica (job))
        w->replica_nodes |= 1u << node;
      else
        w->other_nodes |= 1u << node;
    }
}

START_TEST (test_whole_nodes)
{
  /* Two DGX H100; a replica of 2 GPUs, submitted first, and a training job
   * of 6 at 0.  On GPUs, first-fit puts both on the first node; with
   * whole_nodes the replica's job holds all 8 GPUs of its node and the
   * training job goes to the other.  The replica answers the same
   * requests the same way; its GPU-hours are the whole node's. */
  const char *text =
    "[scenario]\nname = whole\nseed = 3\n"
    "[pool h100]\nmodel = DGX-H100\ncount = 2\n"
    "[workload]\nsource = native\ntrace = train.csv\n"
    "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicas = 1\ntp = 2\n"
    "[requests q]\nrate = 10/s\ncount = 1000\ninput_tokens = 500\noutput_tokens = 100\n";
  const char *whole[] = { "serving.chat.whole_nodes=true", NULL };
  g_autofree char *train = write_file ("train.csv",
                                       "id,submit,duration,gpus,gpu_milli\n1,0,600,6,1000\n");
  g_autoptr(SimSimulation) gpus = new_sim (text, NULL);
  g_autoptr(SimSimulation) node = new_sim (text, whole);
  Nodes a = { sim__kernel_get_cluster (gpus), 0, 0 };
  Nodes b = { sim__kernel_get_cluster (node), 0, 0 };
  const SimServeStep *steps;
  guint n;
  double held;

  sim__kernel_connect (gpus, SIM_HOOK_JOB_STARTED, G_CALLBACK (record_nodes), &a);
  sim__kernel_connect (node, SIM_HOOK_JOB_STARTED, G_CALLBACK (record_nodes), &b);
  run_sim (gpus);
  run_sim (node);
  ck_assert_uint_eq (a.replica_nodes, 1);
  ck_assert_uint_eq (a.other_nodes, 1);
  ck_assert_uint_eq (b.replica_nodes, 1);
  ck_assert_uint_eq (b.other_nodes, 2);
  ck_assert_double_eq (metric (node, "serving.chat.ttft_p99"),
                       metric (gpus, "serving.chat.ttft_p99"));
  ck_assert_double_eq (metric (node, "serving.chat.e2e_mean"),
                       metric (gpus, "serving.chat.e2e_mean"));
  steps = sim__serve_module_timeline (node, "chat", &n);
  ck_assert_uint_eq (n, 2);
  held = steps[1].time - steps[0].time;
  ck_assert_double_eq_tol (metric (node, "serving.chat.gpu_hours"), 8 * held / 3600, 1e-12);
  ck_assert_double_eq_tol (metric (gpus, "serving.chat.gpu_hours"), 2 * held / 3600, 1e-12);
  /* The six GPUs beyond tp idle: at most a quarter of the node is busy
   * after the first look. */
  ck_assert (metric (node, "serving.chat.busy_gpu_hours")
             < metric (gpus, "serving.chat.busy_gpu_hours") + 8 * 10.0 / 3600);
}
END_TEST

/* ------------------------------------------------------------------------- */

/* Two DGX H100, a replica of 8 GPUs on each; GPU 3 (node 0) fails at
 * 20 s (the log), its node out for an hour. */
static const char *failure_text =
  "[scenario]\nname = failure\nseed = 5\n"
  "[pool h100]\nmodel = DGX-H100\ncount = 2\n"
  "[serving chat]\nmodel = llama3-8b\nrequests = q\ntp = 8\nreplicas = 2\n"
  "[requests q]\nrate = 60/s\ncount = 6000\ninput_tokens = 1000\n"
  "input_distribution = exponential\noutput_tokens = 300\n"
  "output_distribution = exponential\n"
  "[failures]\nprofile = none\nlog = faults.csv\ndetect_time = 60s\n"
  "restart_time = 0s\ngpu_repair = 1h\nrepair_distribution = fixed\n";

static const char *no_failure_text =
  "[scenario]\nname = failure\nseed = 5\n"
  "[pool h100]\nmodel = DGX-H100\ncount = 2\n"
  "[serving chat]\nmodel = llama3-8b\nrequests = q\ntp = 8\nreplicas = 2\n"
  "[requests q]\nrate = 60/s\ncount = 6000\ninput_tokens = 1000\n"
  "input_distribution = exponential\noutput_tokens = 300\n"
  "output_distribution = exponential\n";

START_TEST (test_failure_reroutes)
{
  g_autofree char *faults = write_file ("faults.csv", "time,type,index\n20,gpu,3\n");
  g_autoptr(SimSimulation) sim = new_sim (failure_text, NULL);
  const SimServeStep *steps;
  guint n;

  run_sim (sim);
  /* Every request answered, some of them by the other replica after
   * their own stopped under them. */
  ck_assert_double_eq (metric (sim, "serving.chat.requests"), 6000);
  ck_assert_double_eq (metric (sim, "serving.chat.requests_unfinished"), 0);
  ck_assert (metric (sim, "serving.chat.rerouted") > 0);
  ck_assert (metric (sim, "serving.chat.ttft_p99")
             > run_metric (no_failure_text, NULL, "serving.chat.ttft_p99"));
  /* Two replicas from 0, one from the failure at 20 s. */
  steps = sim__serve_module_timeline (sim, "chat", &n);
  ck_assert_uint_ge (n, 2);
  ck_assert_double_eq (steps[0].time, 0);
  ck_assert_uint_eq (steps[0].replicas, 2);
  ck_assert_double_eq (steps[1].time, 20);
  ck_assert_uint_eq (steps[1].replicas, 1);
}
END_TEST

/* ------------------------------------------------------------------------- */

START_TEST (test_autoscaler_timeline)
{
  /* One short request at 0, 100 long ones at 5 s, one more at 300 s. */
  g_autoptr(GString) trace = g_string_new ("TIMESTAMP,ContextTokens,GeneratedTokens\n0,100,5\n");
  g_auto(SimServeReport) batch = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *trace_path = NULL, *alone_path = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  const SimServeStep *steps;
  const char *opts[] = { "requests.count=101", NULL };
  guint n;
  double ta, tend;
  const char *text =
    "[scenario]\nname = scale\nseed = 1\n"
    "[pool h100]\nmodel = DGX-H100\ncount = 1\n"
    "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicas = 1\n"
    "autoscale = true\nmin_replicas = 1\nmax_replicas = 4\ntarget_outstanding = 25\n"
    "autoscale_interval = 10s\nscale_down_delay = 30s\n"
    "[requests q]\narrival = trace\ntrace = azure.csv\n";

  for (guint i = 0; i < 100; i++)
    g_string_append (trace, "5,100,2000\n");
  g_string_append (trace, "300,100,5\n");
  trace_path = write_file ("azure.csv", trace->str);
  /* The batch alone on one replica: when its last request completes. */
  alone_path = write_file ("alone.ini",
                           "[scenario]\nname = alone\nseed = 1\n"
                           "[pool h100]\nmodel = DGX-H100\ncount = 1\n"
                           "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicas = 1\n"
                           "[requests q]\narrival = trace\ntrace = azure.csv\n");
  ck_assert_msg (sim__serve_run (alone_path, NULL, opts, &batch, &error), "%s",
                 error ? error->message : "");
  ck_assert (batch.result.makespan > 10 && batch.result.makespan < 200);
  ta = ceil (batch.result.makespan / 10) * 10;

  sim = new_sim (text, NULL);
  run_sim (sim);
  steps = sim__serve_module_timeline (sim, "chat", &n);
  ck_assert_uint_eq (n, 6);
  ck_assert_double_eq (steps[0].time, 0);
  ck_assert_uint_eq (steps[0].replicas, 1);
  /* 100 requests in the system at 10 s: 100 / 25 = 4 replicas. */
  ck_assert_double_eq (steps[1].time, 10);
  ck_assert_uint_eq (steps[1].replicas, 4);
  /* No load from ta on: a replica goes every 30 s, down to one. */
  ck_assert_double_eq_tol (steps[2].time, ta + 30, 1e-9);
  ck_assert_uint_eq (steps[2].replicas, 3);
  ck_assert_double_eq_tol (steps[3].time, ta + 60, 1e-9);
  ck_assert_uint_eq (steps[3].replicas, 2);
  ck_assert_double_eq_tol (steps[4].time, ta + 90, 1e-9);
  ck_assert_uint_eq (steps[4].replicas, 1);
  /* The request at 300 s takes well under 10 s: the look at 310 s finds
   * every request answered. */
  ck_assert_double_eq (steps[5].time, 310);
  ck_assert_uint_eq (steps[5].replicas, 0);
  ck_assert_double_eq (metric (sim, "serving.chat.scale_ups"), 3);
  ck_assert_double_eq (metric (sim, "serving.chat.scale_downs"), 3);
  ck_assert_double_eq (metric (sim, "serving.chat.replicas_peak"), 4);
  tend = 310;
  ck_assert_double_eq_tol (metric (sim, "serving.chat.gpu_hours"),
                           (tend + (ta + 30 - 10) + (ta + 60 - 10) + (ta + 90 - 10)) / 3600,
                           1e-9);
}
END_TEST

/* ------------------------------------------------------------------------- */

START_TEST (test_keys_move)
{
  const char *r1[] = { "serving.chat.replicas=1", NULL };
  const char *r4[] = { "serving.chat.replicas=4", NULL };
  const char *l0[] = { "serving.chat.load_time=0s", NULL };
  const char *l60[] = { "serving.chat.load_time=1min", NULL };

  /* More replicas: a lower p99 time to first token. */
  ck_assert (run_metric (alone_text, r4, "serving.chat.ttft_p99")
             < run_metric (alone_text, r1, "serving.chat.ttft_p99"));
  /* Loading the weights for a minute: the first minute's requests wait. */
  ck_assert (run_metric (alone_text, l60, "serving.chat.ttft_mean")
             > run_metric (alone_text, l0, "serving.chat.ttft_mean") + 1);
}
END_TEST

START_TEST (test_autoscale_keys)
{
  /* From one replica, up to six, against a five-fold burst from 5 to
   * 10 min: each key of the autoscaler moves the run its way. */
  const char *text =
    "[scenario]\nname = as\nseed = 3\n"
    "[pool h100]\nmodel = DGX-H100\ncount = 1\n"
    "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicas = 1\nautoscale = true\n"
    "max_replicas = 6\ntarget_outstanding = 8\nscale_down_delay = 1min\n"
    "autoscale_interval = 10s\n"
    "[requests q]\nrate = 10/s\ncount = 12000\ninput_tokens = 1000\n"
    "input_distribution = exponential\noutput_tokens = 300\n"
    "output_distribution = exponential\nburst_start = 5min\nburst_duration = 5min\n"
    "burst_factor = 5\n";
  const char *t4[] = { "serving.chat.target_outstanding=4", NULL };
  const char *t32[] = { "serving.chat.target_outstanding=32", NULL };
  const char *d10[] = { "serving.chat.scale_down_delay=10s", NULL };
  const char *d300[] = { "serving.chat.scale_down_delay=5min", NULL };
  const char *max2[] = { "serving.chat.max_replicas=2", NULL };
  const char *i5[] = { "serving.chat.autoscale_interval=5s", NULL };
  const char *i60[] = { "serving.chat.autoscale_interval=60s", NULL };
  const char *min3[] = { "serving.chat.replicas=3", "serving.chat.min_replicas=3", NULL };
  g_autoptr(SimSimulation) base = new_sim (text, NULL);
  g_autoptr(SimSimulation) floor3 = new_sim (text, min3);
  const SimServeStep *steps;
  guint n;

  run_sim (base);
  ck_assert (metric (base, "serving.chat.scale_ups") > 0);
  ck_assert (metric (base, "serving.chat.scale_downs") > 0);
  /* A lower target per replica: more replicas, more GPU-hours. */
  ck_assert (run_metric (text, t4, "serving.chat.gpu_hours")
             > metric (base, "serving.chat.gpu_hours"));
  ck_assert (metric (base, "serving.chat.gpu_hours")
             > run_metric (text, t32, "serving.chat.gpu_hours"));
  /* A longer scale-down delay: replicas kept longer. */
  ck_assert (run_metric (text, d300, "serving.chat.gpu_hours")
             > metric (base, "serving.chat.gpu_hours"));
  ck_assert (metric (base, "serving.chat.gpu_hours")
             > run_metric (text, d10, "serving.chat.gpu_hours"));
  /* At most two: the burst queues. */
  ck_assert_double_eq (run_metric (text, max2, "serving.chat.replicas_peak"), 2);
  ck_assert (run_metric (text, max2, "serving.chat.ttft_p99")
             > 10 * metric (base, "serving.chat.ttft_p99"));
  /* A slower look: fewer replicas on average, later, and a worse tail. */
  ck_assert (run_metric (text, i60, "serving.chat.replicas_mean")
             < run_metric (text, i5, "serving.chat.replicas_mean"));
  ck_assert (run_metric (text, i60, "serving.chat.ttft_p99")
             > run_metric (text, i5, "serving.chat.ttft_p99"));
  /* Never fewer than min_replicas until every request is answered. */
  run_sim (floor3);
  steps = sim__serve_module_timeline (floor3, "chat", &n);
  ck_assert_uint_ge (n, 3);
  for (guint i = 0; i + 1 < n; i++)
    ck_assert_uint_ge (steps[i].replicas, 3);
  ck_assert_uint_eq (steps[n - 1].replicas, 0);
}
END_TEST

START_TEST (test_priority)
{
  /* One node; a training job of all 8 GPUs at 0 for 10 min; a replica of
   * one GPU.  Under the priority queue the replica starts first when its
   * priority is higher (the training job then waits for 8 free GPUs),
   * after the training job when it is lower. */
  const char *text =
    "[scenario]\nname = prio\nseed = 1\n"
    "[pool h100]\nmodel = DGX-H100\ncount = 1\n"
    "[workload]\nsource = native\ntrace = train.csv\n"
    "[policy]\nqueue = priority\n"
    "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicas = 1\n"
    "[requests q]\nrate = 5/s\ncount = 500\ninput_tokens = 200\noutput_tokens = 50\n";
  const char *high[] = { "serving.chat.priority=1", NULL };
  const char *low[] = { "serving.chat.priority=-1", NULL };
  g_autofree char *train = write_file ("train.csv",
                                       "id,submit,duration,gpus,gpu_milli\n1,0,600,8,1000\n");
  g_autoptr(SimSimulation) hi = new_sim (text, high);
  g_autoptr(SimSimulation) lo = new_sim (text, low);

  run_sim (hi);
  run_sim (lo);
  /* Low: the replica waits the training job's 600 s. */
  ck_assert (metric (lo, "serving.chat.ttft_p50") > 400);
  ck_assert (metric (hi, "serving.chat.ttft_p50") < 1);
  /* High: the training job waits for the service to end (its 500
   * requests take about 100 s). */
  ck_assert (metric (hi, "jct_mean") > 600 + 90);
  ck_assert_double_eq_tol (metric (lo, "jct_mean"), 600, 1e-9);
}
END_TEST

START_TEST (test_cloud_when_full)
{
  /* One owned DGX H100 and a cloud pool of two ([elastic], 5 min to bring
   * a node up).  A training job takes the 8 owned GPUs for an hour at 0;
   * the replica, of lower priority, waits, the wait brings a cloud node
   * up, and the replica serves from there from 5 min on: every GPU-hour it
   * used was the cloud's.  Of higher priority, it takes an owned GPU at 0
   * and the training job goes to the cloud instead. */
  const char *text =
    "[scenario]\nname = burst\nseed = 1\n"
    "[pool own]\nmodel = DGX-H100\ncount = 1\n"
    "[pool cloud]\nmodel = DGX-H100\ncount = 2\n"
    "[elastic]\npool = cloud\ncloud = AWS-p5.48xlarge\nstartup = 5min\nscale_up_queue = 1\n"
    "[workload]\nsource = native\ntrace = train.csv\n"
    "[policy]\nqueue = priority\n"
    "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicas = 1\n"
    "[requests q]\nrate = 5/s\ncount = 3000\ninput_tokens = 200\noutput_tokens = 50\n";
  const char *low[] = { "serving.chat.priority=-1", NULL };
  const char *high[] = { "serving.chat.priority=1", NULL };
  g_autofree char *train = write_file ("train.csv",
                                       "id,submit,duration,gpus,gpu_milli\n1,0,3600,8,1000\n");
  g_autoptr(SimSimulation) lo = new_sim (text, low);
  g_autoptr(SimSimulation) hi = new_sim (text, high);
  const SimServeStep *steps;
  guint n;

  run_sim (lo);
  run_sim (hi);
  steps = sim__serve_module_timeline (lo, "chat", &n);
  ck_assert_uint_ge (n, 1);
  ck_assert_double_eq (steps[0].time, 300);
  ck_assert (metric (lo, "serving.chat.gpu_hours") > 0);
  ck_assert_double_eq_tol (metric (lo, "serving.chat.gpu_hours_cloud"),
                           metric (lo, "serving.chat.gpu_hours"), 1e-12);
  ck_assert_double_eq (metric (lo, "burst_scale_ups"), 1);
  /* The first requests waited for the cloud node. */
  ck_assert (metric (lo, "serving.chat.ttft_p50") > 1);
  ck_assert_double_eq (metric (hi, "serving.chat.gpu_hours_cloud"), 0);
  ck_assert (metric (hi, "serving.chat.ttft_p50") < 0.1);
  ck_assert_double_eq (metric (hi, "burst_jobs"), 1);
}
END_TEST

START_TEST (test_two_deployments_and_horizon)
{
  /* Two deployments on one node, both placed at 0: each answers as it
   * does alone.  The horizon at 60 s cuts the first one's stream of 100 s:
   * what was answered by then is counted, the rest is unfinished; the
   * second, done at about 41 s, gives its GPUs back at the next look. */
  const char *text =
    "[scenario]\nname = two\nseed = 2\nhorizon = 60s\n"
    "[pool h100]\nmodel = DGX-H100\ncount = 1\n"
    "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicas = 2\n"
    "[serving code]\nmodel = llama3-8b\nrequests = r\nreplicas = 1\ntp = 2\n"
    "[requests q]\nrate = 20/s\ncount = 2000\ninput_tokens = 500\noutput_tokens = 100\n"
    "[requests r]\nrate = 10/s\ncount = 400\ninput_tokens = 1500\noutput_tokens = 300\n";
  g_auto(SimServeReport) code = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_file ("two.ini", text);
  g_autoptr(SimSimulation) sim = new_sim (text, NULL);
  double done, left, end;

  ck_assert_msg (sim__serve_run (path, "code", NULL, &code, &error), "%s",
                 error ? error->message : "");
  run_sim (sim);
  ck_assert_double_eq_tol (metric (sim, "serving.code.ttft_p99"), code.result.ttft[3], 1e-12);
  ck_assert_double_eq_tol (metric (sim, "serving.code.e2e_mean"), code.result.e2e[0], 1e-12);
  ck_assert_double_eq (metric (sim, "serving.code.requests_unfinished"), 0);
  end = ceil (code.result.makespan / 10) * 10;
  ck_assert (end < 60);
  ck_assert_double_eq_tol (metric (sim, "serving.code.gpu_hours"), 2 * end / 3600, 1e-12);
  done = metric (sim, "serving.chat.requests");
  left = metric (sim, "serving.chat.requests_unfinished");
  ck_assert_double_eq (done + left, 2000);
  /* About 20 requests a second for 60 s, less those still in flight. */
  ck_assert (done > 1000 && done < 1250);
  /* The chat replicas run to the horizon. */
  ck_assert_double_eq_tol (metric (sim, "serving.chat.gpu_hours"), 2 * 60.0 / 3600, 1e-12);
}
END_TEST

START_TEST (test_energy)
{
  /* With [power], a replica's GPUs are busy the share of each look's
   * interval it spent iterating, and draw the H100 SXM's idle 69 W plus
   * that share of the 631 W more to its 700 W TDP (models/gpus/h100-sxm.ini,
   * the power model's linear draw): the energy is 0.069 kW x the GPU-hours
   * held plus 0.631 kW x the busy GPU-hours.  At 40 requests/s the three
   * replicas are busy nearly all the time, at 1/s about a third of it (a
   * request's 150 tokens take about 1 s; each replica gets one every 3 s):
   * the busy share follows gpu_busy, the loop's own measure. */
  g_autofree char *text = g_strconcat (alone_text, "[power]\n", NULL);
  const char *quiet[] = { "requests.q.rate=1/s", NULL };
  g_autoptr(SimSimulation) busy = new_sim (text, NULL);
  g_autoptr(SimSimulation) idle = new_sim (text, quiet);
  SimSimulation *runs[] = { busy, idle };

  run_sim (busy);
  run_sim (idle);
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      double hours = metric (runs[i], "serving.chat.gpu_hours");
      double busy_hours = metric (runs[i], "serving.chat.busy_gpu_hours");
      double kwh = 0.069 * hours + 0.631 * busy_hours;
      double tokens = metric (runs[i], "serving.chat.tokens_per_second")
                      * metric (runs[i], "serving.chat.requests")
                      / metric (runs[i], "serving.chat.goodput")
                      * metric (runs[i], "serving.chat.slo_attainment");

      ck_assert (hours > 0 && busy_hours <= hours);
      ck_assert_double_eq_tol (metric (runs[i], "serving.chat.energy_kwh"), kwh, 1e-6 * kwh);
      ck_assert_double_eq_tol (metric (runs[i], "serving.chat.kwh_per_million_tokens"),
                               kwh / tokens * 1e6, 1e-6 * kwh / tokens * 1e6);
      ck_assert_double_eq_tol (busy_hours / hours, metric (runs[i], "serving.chat.gpu_busy"),
                               0.05);
    }
  ck_assert (metric (busy, "serving.chat.busy_gpu_hours")
             > 0.9 * metric (busy, "serving.chat.gpu_hours"));
  ck_assert (metric (idle, "serving.chat.busy_gpu_hours")
             < 0.4 * metric (idle, "serving.chat.gpu_hours"));
  /* The run's activity metric counts the same busy GPUs. */
  ck_assert (metric (idle, "gpu_activity") < metric (idle, "gpu_utilization") * 0.5);
  /* Without [power], no energy figure. */
  {
    g_autoptr(SimSimulation) plain = new_sim (alone_text, NULL);
    double v;
    run_sim (plain);
    ck_assert (!sim_report_get_value (sim_simulation_get_report (plain),
                                      "serving.chat.energy_kwh", &v));
  }
}
END_TEST

START_TEST (test_cost_from_run)
{
  /* The deployment's cost from the run's own accounting: one DGX H100 at
   * its catalogue price of $270,000 (models/nodes/dgx-h100.ini), amortized
   * over 5 years of 365.25 days, no maintenance, no network: $6.1602 an hour
   * for 8 GPUs; its GPUs' energy at $0.10/kWh; renting at the on-demand
   * price of an AWS p5.48xlarge, $98.32 an hour for 8 H100
   * (models/clouds/aws-p5-48xlarge.ini). */
  g_autofree char *text = g_strconcat (alone_text, "[power]\n[cost]\namortization = 5y\n"
                                       "energy_price = 0.10\ncloud = AWS-p5.48xlarge\n", NULL);
  g_autoptr(SimSimulation) sim = new_sim (text, NULL);
  double hours, kwh, usd, tokens;

  run_sim (sim);
  hours = metric (sim, "serving.chat.gpu_hours");
  kwh = metric (sim, "serving.chat.energy_kwh");
  ck_assert_double_eq_tol (metric (sim, "cost_owning_fixed_per_hour"), 270000.0 / (5 * 8766),
                           1e-9);
  usd = hours * 270000.0 / (5 * 8766) / 8 + kwh * 0.10;
  ck_assert_double_eq_tol (metric (sim, "serving.chat.usd"), usd, 1e-9 * usd);
  tokens = metric (sim, "serving.chat.tokens_per_second") * metric (sim, "serving.chat.requests")
           / metric (sim, "serving.chat.goodput") * metric (sim, "serving.chat.slo_attainment");
  ck_assert_double_eq_tol (metric (sim, "serving.chat.usd_per_million_tokens_owned"),
                           usd / tokens * 1e6, 1e-9 * usd / tokens * 1e6);
  ck_assert_double_eq_tol (metric (sim, "serving.chat.usd_per_million_tokens_cloud"),
                           hours * 98.32 / 8 / tokens * 1e6, 1e-9 * hours * 98.32 / tokens * 1e6);
}
END_TEST

START_TEST (test_deterministic)
{
  g_autoptr(SimSimulation) a = new_sim (beside_text, NULL);
  g_autoptr(SimSimulation) b = new_sim (beside_text, NULL);
  g_autofree char *ja = NULL, *jb = NULL;

  run_sim (a);
  run_sim (b);
  ja = sim_report_to_json (sim_simulation_get_report (a), FALSE);
  jb = sim_report_to_json (sim_simulation_get_report (b), FALSE);
  ck_assert_str_eq (ja, jb);
  ck_assert_ptr_nonnull (strstr (ja, "serving.chat.ttft_p99"));
}
END_TEST

/* ------------------------------------------------------------------------- */

static void
check_bad (const char *text, const char * const *needles)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_file ("bad.ini", text);
  g_autoptr(SimScenario) sc = sim_scenario_load (path, NULL, &error);
  g_autoptr(SimSimulation) sim = NULL;

  if (sc != NULL)
    sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim == NULL && error != NULL, "accepted: %s", text);
  ck_assert (error->domain == SIM_ERROR);
  for (guint i = 0; needles[i] != NULL; i++)
    ck_assert_msg (strstr (error->message, needles[i]) != NULL, "\"%s\" lacks \"%s\"",
                   error->message, needles[i]);
}

#define HEAD "[scenario]\nname = bad\n[pool h100]\nmodel = DGX-H100\ncount = 1\n"  /* 1-5 */
#define REQUESTS "[requests q]\nrate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n"

START_TEST (test_bad_input)
{
  {
    const char *n[] = { "bad.ini:9: [serving chat] load_time", "duration", NULL };
    check_bad (HEAD "[serving chat]\nmodel = llama3-8b\nrequests = q\nload_time = soon\n"
               REQUESTS, n);
  }
  {
    const char *n[] = { "bad.ini:9: [serving chat] priority", NULL };
    check_bad (HEAD "[serving chat]\nmodel = llama3-8b\nrequests = q\npriority = 5000000\n"
               REQUESTS, n);
  }
  {
    const char *n[] = { "bad.ini:9: [serving chat] load_time", "-5s", "non-negative", NULL };
    check_bad (HEAD "[serving chat]\nmodel = llama3-8b\nrequests = q\nload_time = -5s\n"
               REQUESTS, n);
  }
  {
    const char *n[] = { "bad.ini:9", "[serving chat]", "replicsa", "replicas", NULL };
    check_bad (HEAD "[serving chat]\nmodel = llama3-8b\nrequests = q\nreplicsa = 2\n"
               REQUESTS, n);
  }
  {
    const char *n[] = { "[serving chat] tp", "16", "8 GPUs of a node", NULL };
    check_bad (HEAD "[serving chat]\nmodel = llama3-8b\nrequests = q\ntp = 16\n" REQUESTS, n);
  }
  {
    /* The replicas run on the first pool's GPU model: its nodes of 4 GPUs
     * cannot hold tp = 8, whatever the other pool's hold. */
    const char *n[] = { "[serving chat] tp", "4 GPUs of a node of H100-SXM", NULL };
    check_bad ("[scenario]\nname = bad\n[pool h100]\nmodel = DGX-H100\ncount = 1\n"
               "gpus_per_node = 4\n[pool a100]\nmodel = DGX-A100\ncount = 1\n"
               "[serving chat]\nmodel = llama3-8b\nrequests = q\ntp = 8\n" REQUESTS, n);
  }
  {
    const char *n[] = { "[serving chat] model", "no-such-model", NULL };
    check_bad (HEAD "[serving chat]\nmodel = no-such-model\nrequests = q\n" REQUESTS, n);
  }
  {
    const char *n[] = { "missing section [workload]", "[serving NAME]", NULL };
    check_bad (HEAD, n);
  }
}
END_TEST

START_TEST (test_serving_only)
{
  g_autoptr(SimSimulation) sim = new_sim (alone_text, NULL);

  run_sim (sim);
  ck_assert_double_eq (metric (sim, "jobs_completed"), 0);
  ck_assert_double_eq (metric (sim, "serving.chat.requests"), 3000);
}
END_TEST

static Suite *
serverun_suite (void)
{
  Suite *s = suite_create ("serverun");
  TCase *tc = tcase_create ("core");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_same_as_serve_alone);
  tcase_add_test (tc, test_same_as_serve_beside_training);
  tcase_add_test (tc, test_no_overlap);
  tcase_add_test (tc, test_whole_nodes);
  tcase_add_test (tc, test_failure_reroutes);
  tcase_add_test (tc, test_autoscaler_timeline);
  tcase_add_test (tc, test_keys_move);
  tcase_add_test (tc, test_autoscale_keys);
  tcase_add_test (tc, test_priority);
  tcase_add_test (tc, test_cloud_when_full);
  tcase_add_test (tc, test_two_deployments_and_horizon);
  tcase_add_test (tc, test_energy);
  tcase_add_test (tc, test_cost_from_run);
  tcase_add_test (tc, test_deterministic);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_serving_only);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (serverun_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
