/* check-policies.c: the queue orders, on tiny workloads worked out by hand.
 *
 * What it checks:
 *  - FIFO, SJF (exact and requested estimates), EASY backfilling (a job
 *    backfilled because it ends before the reservation, one refused because
 *    it would delay the head, one backfilled on GPUs the head does not need,
 *    estimates that forbid a backfill) and Tiresias' LAS (a threshold
 *    crossing, the preemption it causes with checkpoint and restore costs,
 *    no preemption within a queue) through the whole simulation on SWF
 *    traces, with exact start and end times;
 *  - priority (without and with preemption, and the reprieve of victims not
 *    needed) and fair share (quotas, usage over weight) by driving the
 *    policy through a decision point built by hand, since SWF carries no
 *    priority or tenant.  The hand-built driver is checked against the
 *    simulation on every trace case above, so it follows the same rules;
 *  - the invariant of EASY: with exact estimates, no job starts later than
 *    the reservation it got when it first became the blocked head, over
 *    random workloads on a mixed cluster, with both placements;
 *  - bad [policy] values are reported at their line;
 *  - lifetimes: the cluster, a node snapshot, a job and a decision's
 *    context kept past the simulation stay readable (a read of freed
 *    memory fails the suite under AddressSanitizer), and the context
 *    refuses to start a job once its decision is over.
 * What it does not check: placements (check-sched and their own suites),
 * fractional GPUs or host resources under these orders, or speed.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sim.h>
#include "sched/sim-policy-private.h"
#include "sched/sim-queue-orders.h"

#define S SIM_SECOND
#define MAX_JOBS 32

static char *tmpdir;
static SimCatalogue *catalogue;

static void
setup (void)
{
  g_autoptr(GError) error = NULL;

  tmpdir = g_dir_make_tmp ("check-policies-XXXXXX", NULL);
  ck_assert_ptr_nonnull (tmpdir);
  catalogue = sim_catalogue_new_default (NULL, &error);
  ck_assert_msg (catalogue != NULL, "%s", error ? error->message : "");
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
  g_clear_pointer (&catalogue, sim_catalogue_free);
}

/* A job of a tiny workload: times in seconds; req 0 means no estimate. */
typedef struct {
  int     id, submit, run, gpus, req;
  int     priority;
  guint   tenant;
} J;

/* What happened to each job, by id. */
typedef struct {
  SimTime first_start[MAX_JOBS];
  SimTime last_start[MAX_JOBS];
  SimTime end[MAX_JOBS];
  guint   preemptions[MAX_JOBS];
  guint32 first_gpu[MAX_JOBS];
} Record;

static void
record_init (Record *r)
{
  memset (r, 0, sizeof *r);
  for (guint i = 0; i < MAX_JOBS; i++)
    r->first_start[i] = r->last_start[i] = r->end[i] = -1;
}

static void
note (Record *r, const SimJob *job)
{
  guint id = (guint) job->spec.id;

  ck_assert_uint_lt (id, MAX_JOBS);
  if (job->state == SIM_JOB_RUNNING)
    {
      if (r->first_start[id] < 0)
        {
          r->first_start[id] = job->start;
          r->first_gpu[id] = job->gpus[0];
        }
      r->last_start[id] = job->start;
    }
  else if (job->state == SIM_JOB_QUEUED)
    r->preemptions[id]++;
  else
    r->end[id] = job->end;
}

static void
observe (SimSimulation *sim, const SimJob *job, gpointer data)
{
  note (data, job);
}

/* ------------------------------------------------------------------------- */
/* Through the simulation, on an SWF trace.                                  */

static void
swf_job (GString *s, const J *j)
{
  /* Fields: number, submit, wait, run, processors, CPU, memory, requested
   * processors, requested time, requested memory, status, user, group,
   * executable, queue, partition, preceding job, think time. */
  g_string_append_printf (s, "%d %d -1 %d %d -1 -1 %d %d -1 1 1 -1 -1 -1 -1 -1 -1\n", j->id,
                          j->submit, j->run, j->gpus, j->gpus, j->req > 0 ? j->req : -1);
}

/* KV: NULL-terminated key, value pairs for [policy]. */
static char *
policy_lines (const char * const *kv)
{
  GString *s = g_string_new ("");

  for (guint i = 0; kv != NULL && kv[i] != NULL; i += 2)
    g_string_append_printf (s, "%s = %s\n", kv[i], kv[i + 1]);
  return g_string_free (s, FALSE);
}

static void
run_sim (const J *jobs, guint n, guint nodes, const char *queue, const char * const *kv,
         Record *r)
{
  g_autoptr(GString) trace = g_string_new ("; tiny\n");
  g_autofree char *path = g_build_filename (tmpdir, "jobs.swf", NULL);
  g_autofree char *extra = policy_lines (kv);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;

  for (guint i = 0; i < n; i++)
    swf_job (trace, &jobs[i]);
  ck_assert (g_file_set_contents (path, trace->str, -1, NULL));
  text = g_strdup_printf ("[scenario]\nname = tiny\n"
                          "[pool p]\nmodel = PCIe-8GPU\ngpus_per_node = 4\ncount = %u\n"
                          "[workload]\nsource = swf\ntrace = %s\nprocessors_per_gpu = 1\n"
                          "[policy]\nqueue = %s\nplacement = first-fit\n%s",
                          nodes, path, queue, extra);
  sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  record_init (r);
  sim_simulation_set_job_observer (sim, observe, r, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
}

/* ------------------------------------------------------------------------- */
/* By hand: a decision point driven without the simulation.
 *
 * The same rules as the simulation: at each time, completions first, then
 * each arrival followed by a decision (or one decision for completions and
 * wake-ups); jobs preempted in a pass rejoin the queue after it and a new
 * decision follows at the same instant; running jobs' work and attained
 * service are brought up to date before each decision.  Rates are 1. */

typedef struct {
  SimCluster *cluster;
  SimPolicy  *policy;
  GPtrArray  *jobs;     /* SimJob*, owned, in submission order */
  GPtrArray  *queue;
  GPtrArray  *running;  /* in start order */
  GPtrArray  *requeue;
  GArray     *wakes;    /* SimTime */
  SimTime     now;
  guint64     seq;
  Record     *record;
} Bench;

static gboolean
bench_start (gpointer owner, SimJob *job, const SimPlacement *p, GError **error)
{
  Bench *b = owner;

  if (!sim_cluster_allocate (b->cluster, p->gpus, p->n_gpus, p->milli, error))
    return FALSE;
  job->gpus = g_memdup2 (p->gpus, p->n_gpus * sizeof (guint32));
  job->n_gpus = p->n_gpus;
  job->state = SIM_JOB_RUNNING;
  job->start = b->now;
  if (job->first_start < 0)
    job->first_start = b->now;
  job->last_update = b->now;
  job->rate = 1.0;
  g_ptr_array_add (b->running, job);
  note (b->record, job);
  return TRUE;
}

static void
bench_stop (Bench *b, SimJob *job)
{
  sim_cluster_release (b->cluster, job->gpus, job->n_gpus, job->spec.gpu_milli);
  g_clear_pointer (&job->gpus, g_free);
  job->n_gpus = 0;
  ck_assert (g_ptr_array_remove (b->running, job));
}

static gboolean
bench_preempt (gpointer owner, SimJob *job, SimTime overhead, GError **error)
{
  Bench *b = owner;

  bench_stop (b, job);
  job->state = SIM_JOB_QUEUED;
  job->work_left += overhead;
  job->n_preemptions++;
  note (b->record, job);
  g_ptr_array_add (b->requeue, job);
  return TRUE;
}

static void
bench_wake (gpointer owner, SimTime time)
{
  Bench *b = owner;

  ck_assert_int_ge (time, b->now);
  g_array_append_val (b->wakes, time);
}

static int
bench_compare (gconstpointer a, gconstpointer c, gpointer policy)
{
  return sim_policy_compare (policy, *(SimJob * const *) a, *(SimJob * const *) c);
}

static void
bench_decide (Bench *b)
{
  for (;;)
    {
      g_autoptr(GPtrArray) running = g_ptr_array_copy (b->running, NULL, NULL);
      SimSchedContext ctx = { 0 };
      guint w = 0;

      g_ptr_array_sort_with_data (b->queue, bench_compare, b->policy);
      ctx.now = b->now;
      ctx.cluster = b->cluster;
      ctx.queue = b->queue;
      ctx.running = running;
      ctx.start = bench_start;
      ctx.preempt = bench_preempt;
      ctx.wake = bench_wake;
      ctx.owner = b;
      if (b->queue->len > 0 || running->len > 0)
        sim_policy_schedule (b->policy, &ctx);
      ck_assert_msg (ctx.error == NULL, "%s", ctx.error ? ctx.error->message : "");
      for (guint i = 0; i < b->queue->len; i++)
        if (((SimJob *) b->queue->pdata[i])->state == SIM_JOB_QUEUED)
          b->queue->pdata[w++] = b->queue->pdata[i];
      g_ptr_array_set_size (b->queue, w);
      if (b->requeue->len == 0)
        return;
      g_ptr_array_extend_and_steal (b->queue, g_steal_pointer (&b->requeue));
      b->requeue = g_ptr_array_new ();
    }
}

static void
run_bench (const J *jobs, guint n, guint nodes, const char *queue, const char * const *kv,
           Record *r)
{
  const SimNodeModel *model = sim_catalogue_lookup_node (catalogue, "PCIe-8GPU");
  g_autoptr(SimPolicyParams) params = sim_policy_params_new ();
  g_autoptr(GError) error = NULL;
  SimPolicySetup setup = { 0 };
  Bench b = { 0 };
  guint next = 0;

  ck_assert_ptr_nonnull (model);
  b.cluster = sim_cluster_new ();
  ck_assert (sim_cluster_add_pool (b.cluster, "p", model, NULL, 4, nodes, &error));
  for (guint i = 0; kv != NULL && kv[i] != NULL; i += 2)
    sim_policy_params_set (params, kv[i], kv[i + 1]);
  setup.cluster = b.cluster;
  setup.params = params;
  b.policy = sim_policy_new (queue, "first-fit", &setup, &error);
  ck_assert_msg (b.policy != NULL, "%s", error ? error->message : "");
  b.jobs = g_ptr_array_new ();
  b.queue = g_ptr_array_new ();
  b.running = g_ptr_array_new ();
  b.requeue = g_ptr_array_new ();
  b.wakes = g_array_new (FALSE, FALSE, sizeof (SimTime));
  record_init (r);
  b.record = r;
  for (guint i = 0; i < n; i++)
    {
      SimJob *job = g_new0 (SimJob, 1);
      job->spec.id = jobs[i].id;
      job->spec.submit = jobs[i].submit * S;
      job->spec.duration = jobs[i].run * S;
      job->spec.requested = jobs[i].req * S;
      job->spec.gpus = jobs[i].gpus;
      job->spec.gpu_milli = SIM_GPU_WHOLE;
      job->spec.user = -1;
      job->spec.priority = jobs[i].priority;
      job->spec.tenant = jobs[i].tenant;
      job->start = job->end = job->first_start = -1;
      job->work_left = job->spec.duration;
      job->rate = 1.0;
      g_ptr_array_add (b.jobs, job);
    }

  for (;;)
    {
      SimTime t = SIM_TIME_NEVER;
      gboolean arrived = FALSE, woken = FALSE, ended = FALSE;
      guint w = 0;

      if (next < n)
        t = ((SimJob *) b.jobs->pdata[next])->spec.submit;
      for (guint i = 0; i < b.running->len; i++)
        {
          SimJob *job = b.running->pdata[i];
          t = MIN (t, job->last_update + job->work_left);
        }
      for (guint i = 0; i < b.wakes->len; i++)
        t = MIN (t, g_array_index (b.wakes, SimTime, i));
      if (t == SIM_TIME_NEVER)
        break;
      ck_assert_int_ge (t, b.now);
      b.now = t;
      for (guint i = 0; i < b.running->len; i++)
        {
          SimJob *job = b.running->pdata[i];
          SimTime dt = t - job->last_update;
          job->work_left -= dt;
          job->executed += dt;
          job->attained += sim_time_to_seconds (dt) * job->n_gpus * (job->spec.gpu_milli / 1000.0);
          job->last_update = t;
        }
      for (guint i = 0; i < b.running->len;)
        {
          SimJob *job = b.running->pdata[i];
          if (job->work_left > 0)
            {
              i++;
              continue;
            }
          bench_stop (&b, job);
          job->state = SIM_JOB_DONE;
          job->end = t;
          note (r, job);
          ended = TRUE;
        }
      for (guint i = 0; i < b.wakes->len; i++)
        if (g_array_index (b.wakes, SimTime, i) > t)
          g_array_index (b.wakes, SimTime, w++) = g_array_index (b.wakes, SimTime, i);
        else
          woken = TRUE;
      g_array_set_size (b.wakes, w);
      while (next < n && ((SimJob *) b.jobs->pdata[next])->spec.submit == t)
        {
          SimJob *job = b.jobs->pdata[next++];
          job->state = SIM_JOB_QUEUED;
          job->queue_seq = b.seq++;
          g_ptr_array_add (b.queue, job);
          bench_decide (&b);
          arrived = TRUE;
        }
      if (!arrived && (ended || woken))
        bench_decide (&b);
    }

  for (guint i = 0; i < n; i++)
    {
      SimJob *job = b.jobs->pdata[i];
      g_free (job->gpus);
      g_free (job);
    }
  g_ptr_array_unref (b.jobs);
  g_ptr_array_unref (b.queue);
  g_ptr_array_unref (b.running);
  g_ptr_array_unref (b.requeue);
  g_array_unref (b.wakes);
  g_object_unref (b.policy);
  sim_cluster_free (b.cluster);
}

/* Runs a trace case both ways; they must agree to the nanosecond. */
static void
run_both (const J *jobs, guint n, guint nodes, const char *queue, const char * const *kv,
          Record *r)
{
  Record by_hand;

  run_sim (jobs, n, nodes, queue, kv, r);
  run_bench (jobs, n, nodes, queue, kv, &by_hand);
  for (guint i = 0; i < n; i++)
    {
      guint id = (guint) jobs[i].id;
      ck_assert_int_eq (by_hand.first_start[id], r->first_start[id]);
      ck_assert_int_eq (by_hand.last_start[id], r->last_start[id]);
      ck_assert_int_eq (by_hand.end[id], r->end[id]);
      ck_assert_uint_eq (by_hand.preemptions[id], r->preemptions[id]);
      ck_assert_uint_eq (by_hand.first_gpu[id], r->first_gpu[id]);
    }
}

/* ------------------------------------------------------------------------- */
/* FIFO and SJF.                                                             */

/* One node of 4 GPUs throughout these cases.  Jobs (submit, run, GPUs):
 * 1 (0, 100, 4) fills the node until 100; 2 (10, 1000, 1), 3 (20, 30, 3),
 * 4 (30, 5, 4), 5 (40, 60, 2) wait for it. */
static const J sjf_jobs[] = {
  { 1, 0, 100, 4, 0, 0, 0 },
  { 2, 10, 1000, 1, 0, 0, 0 },
  { 3, 20, 30, 3, 0, 0, 0 },
  { 4, 30, 5, 4, 0, 0, 0 },
  { 5, 40, 60, 2, 0, 0, 0 },
};

/* FIFO, head-of-line blocking: at 100, 2 (1 GPU) and 3 (3 GPUs) start; 4
 * needs the whole node and blocks 5 behind it.  3 ends at 130, 2 at 1100;
 * then 4 runs 1100-1105 and 5 starts at 1105. */
START_TEST (test_fifo)
{
  Record r;

  run_both (sjf_jobs, G_N_ELEMENTS (sjf_jobs), 1, "fifo", NULL, &r);
  ck_assert_int_eq (r.first_start[2], 100 * S);
  ck_assert_int_eq (r.first_start[3], 100 * S);
  ck_assert_int_eq (r.first_start[4], 1100 * S);
  ck_assert_int_eq (r.first_start[5], 1105 * S);
  ck_assert_int_eq (r.end[5], 1165 * S);
}
END_TEST

/* SJF on exact run times: at 100 the order is 4 (5 s), 3 (30), 5 (60),
 * 2 (1000).  4 takes the node until 105.  At 105: 3 starts (3 GPUs); 5
 * (2 GPUs) does not fit in the 1 left and is skipped, so 2 (1 GPU) starts
 * too (greedy).  At 135, 3 ends and 5 starts; 2 ends at 1105. */
START_TEST (test_sjf_exact)
{
  Record r;

  run_both (sjf_jobs, G_N_ELEMENTS (sjf_jobs), 1, "sjf", NULL, &r);
  ck_assert_int_eq (r.first_start[4], 100 * S);
  ck_assert_int_eq (r.first_start[3], 105 * S);
  ck_assert_int_eq (r.first_start[2], 105 * S);
  ck_assert_int_eq (r.first_start[5], 135 * S);
  ck_assert_int_eq (r.end[5], 195 * S);
  ck_assert_int_eq (r.end[2], 1105 * S);
}
END_TEST

/* SJF on requested times: job 2 claims 1 s (it runs 1000); the others ask
 * for their run time.  At 100 the order is 2 (1), 4 (5), 3 (30), 5 (60):
 * 2 starts (1 GPU), 4 does not fit, 3 starts (3 GPUs), 5 does not fit.
 * At 130, 3 ends: 4 still does not fit beside 2, 5 starts (2 GPUs) and
 * ends at 190.  4 waits for 2, which ends at 1100; 4 ends at 1105.  The
 * same run with sjf_estimate = exact follows test_sjf_exact. */
START_TEST (test_sjf_requested)
{
  J jobs[G_N_ELEMENTS (sjf_jobs)];
  const char * const requested[] = { "sjf_estimate", "requested", NULL };
  const char * const exact[] = { "sjf_estimate", "exact", NULL };
  Record r;

  memcpy (jobs, sjf_jobs, sizeof jobs);
  for (guint i = 0; i < G_N_ELEMENTS (jobs); i++)
    jobs[i].req = jobs[i].run;
  jobs[1].req = 1;
  run_both (jobs, G_N_ELEMENTS (jobs), 1, "sjf", requested, &r);
  ck_assert_int_eq (r.first_start[2], 100 * S);
  ck_assert_int_eq (r.first_start[3], 100 * S);
  ck_assert_int_eq (r.first_start[5], 130 * S);
  ck_assert_int_eq (r.first_start[4], 1100 * S);
  ck_assert_int_eq (r.end[4], 1105 * S);

  run_both (jobs, G_N_ELEMENTS (jobs), 1, "sjf", exact, &r);
  ck_assert_int_eq (r.first_start[4], 100 * S);
  ck_assert_int_eq (r.first_start[2], 105 * S);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* EASY.                                                                     */

/* One node.  1 (0, run 100, 3 GPUs) leaves 1 GPU; 2 (10, 50, 4) is the
 * blocked head: its reservation is 100, when 1 ends.  3 (20, 50, 1) fits
 * in the free GPU and ends at 70 <= 100: backfilled at 20.  2 runs
 * 100-150.  Under FIFO, 3 would wait for 2 (150). */
START_TEST (test_easy_backfill)
{
  static const J jobs[] = {
    { 1, 0, 100, 3, 100, 0, 0 },
    { 2, 10, 50, 4, 50, 0, 0 },
    { 3, 20, 50, 1, 50, 0, 0 },
  };
  Record r;

  run_both (jobs, G_N_ELEMENTS (jobs), 1, "easy", NULL, &r);
  ck_assert_int_eq (r.first_start[3], 20 * S);
  ck_assert_int_eq (r.first_start[2], 100 * S);
  ck_assert_int_eq (r.end[2], 150 * S);
  run_both (jobs, G_N_ELEMENTS (jobs), 1, "fifo", NULL, &r);
  ck_assert_int_eq (r.first_start[3], 150 * S);
}
END_TEST

/* The same, but 3 runs 200 s: it would end at 220, after the reservation
 * (100), and the head needs all 4 GPUs then, including the one 3 would
 * hold.  Not backfilled: 2 starts at 100 as reserved, 3 at 150. */
START_TEST (test_easy_no_delay)
{
  static const J jobs[] = {
    { 1, 0, 100, 3, 100, 0, 0 },
    { 2, 10, 50, 4, 50, 0, 0 },
    { 3, 20, 200, 1, 200, 0, 0 },
  };
  Record r;

  run_both (jobs, G_N_ELEMENTS (jobs), 1, "easy", NULL, &r);
  ck_assert_int_eq (r.first_start[2], 100 * S);
  ck_assert_int_eq (r.first_start[3], 150 * S);
}
END_TEST

/* Two nodes of 4 (GPUs 0-3, 4-7).  1 (0, 100, 4) fills node 0; 2 (5, 300,
 * 2) goes to node 1.  3 (10, 50, 4) is the head: it needs a whole node;
 * its reservation is 100 (node 0, once 1 ends).  4 (20, 500, 2) ends long
 * after 100, but it fits on node 1's 2 free GPUs, which the head does not
 * need at 100: backfilled at 20 on GPUs 6-7.  The head starts at 100 on
 * node 0, as reserved. */
START_TEST (test_easy_extra_gpus)
{
  static const J jobs[] = {
    { 1, 0, 100, 4, 100, 0, 0 },
    { 2, 5, 300, 2, 300, 0, 0 },
    { 3, 10, 50, 4, 50, 0, 0 },
    { 4, 20, 500, 2, 500, 0, 0 },
  };
  Record r;

  run_both (jobs, G_N_ELEMENTS (jobs), 2, "easy", NULL, &r);
  ck_assert_int_eq (r.first_start[2], 5 * S);
  ck_assert_uint_eq (r.first_gpu[2], 4);
  ck_assert_int_eq (r.first_start[4], 20 * S);
  ck_assert_uint_eq (r.first_gpu[4], 6);
  ck_assert_int_eq (r.first_start[3], 100 * S);
  ck_assert_uint_eq (r.first_gpu[3], 0);
}
END_TEST

/* Estimates decide.  As test_easy_backfill, but 3 asks for 200 s while it
 * runs 50.  With requested estimates (the default) it would end at 220 by
 * its estimate and take a GPU the head needs: not backfilled, it starts
 * after the head, at 150.  With exact estimates it ends at 70: backfilled
 * at 20. */
START_TEST (test_easy_estimates)
{
  static const J jobs[] = {
    { 1, 0, 100, 3, 100, 0, 0 },
    { 2, 10, 50, 4, 50, 0, 0 },
    { 3, 20, 50, 1, 200, 0, 0 },
  };
  const char * const exact[] = { "easy_estimate", "exact", NULL };
  Record r;

  run_both (jobs, G_N_ELEMENTS (jobs), 1, "easy", NULL, &r);
  ck_assert_int_eq (r.first_start[3], 150 * S);
  run_both (jobs, G_N_ELEMENTS (jobs), 1, "easy", exact, &r);
  ck_assert_int_eq (r.first_start[3], 20 * S);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* LAS.                                                                      */

/* One node of 4; one threshold at 100 GPU-seconds (two queues); checkpoint
 * 4 s + restore 6 s = 10 s of work redone after a preemption.
 *
 * 1 (0, 200 s, 4 GPUs) starts at 0 and gains 4 GPU-s per second.  2 (10,
 * 50 s, 4 GPUs) arrives in the same queue (1 has 40 GPU-s): no preemption
 * within a queue; a wake-up is asked for when 1 crosses 100 GPU-s, at
 * 10 + 60 / 4 = 25.  At 25, 1 drops to the lower queue and 2 preempts it
 * (1 has 175 s left, + 10).  3 (30, 20 s, 1 GPU) arrives in the top queue,
 * where 2 still is (20 GPU-s): 2 is not preempted, and a wake-up is asked
 * for its crossing, at 30 + 80 / 4 = 50.  At 50, 2 drops to the lower
 * queue and 3 preempts it (2 has 25 s left, + 10); 3 runs 50-70.  At 70,
 * 1 and 2 are both in the lower queue: 1, submitted first, resumes and
 * runs 70-255; 2 waits (no preemption within a queue) and runs 255-290. */
START_TEST (test_las)
{
  static const J jobs[] = {
    { 1, 0, 200, 4, 0, 0, 0 },
    { 2, 10, 50, 4, 0, 0, 0 },
    { 3, 30, 20, 1, 0, 0, 0 },
  };
  const char * const kv[] = { "las_thresholds", "100s", "checkpoint_cost", "4s",
                              "restore_cost", "6s", NULL };
  Record r;

  run_both (jobs, G_N_ELEMENTS (jobs), 1, "las", kv, &r);
  ck_assert_int_eq (r.first_start[1], 0);
  ck_assert_uint_eq (r.preemptions[1], 1);
  ck_assert_int_eq (r.last_start[1], 70 * S);
  ck_assert_int_eq (r.end[1], 255 * S);
  ck_assert_int_eq (r.first_start[2], 25 * S);
  ck_assert_uint_eq (r.preemptions[2], 1);
  ck_assert_int_eq (r.last_start[2], 255 * S);
  ck_assert_int_eq (r.end[2], 290 * S);
  ck_assert_int_eq (r.first_start[3], 50 * S);
  ck_assert_uint_eq (r.preemptions[3], 0);
  ck_assert_int_eq (r.end[3], 70 * S);
}
END_TEST

/* Three queues (thresholds 40 and 400 GPU-s), two nodes of 4.  1 (0, 500 s,
 * 4 GPUs) on node 0; 2 (1, 300 s, 4 GPUs) on node 1.  3 (100, 10 s,
 * 8 GPUs) needs both nodes.  At 100, 1 has 400 GPU-s (bottom queue, 2),
 * 2 has 396 (queue 1).  3 (queue 0) outranks both; releasing 1 first
 * (lowest queue) is not enough, so 2 goes too: 2 preemptions at 100 with
 * the default 30 s + 30 s overhead.  3 runs 100-110.  Then 2 (queue 1)
 * comes before 1 (queue 2): both restart at 110 as the cluster is free:
 * 2 has 201 + 60 s left (ends 371), 1 has 400 + 60 (ends 570).
 * 2 crosses 400 GPU-s at 111, in the bottom queue with 1: no preemption. */
START_TEST (test_las_two_victims)
{
  static const J jobs[] = {
    { 1, 0, 500, 4, 0, 0, 0 },
    { 2, 1, 300, 4, 0, 0, 0 },
    { 3, 100, 10, 8, 0, 0, 0 },
  };
  const char * const kv[] = { "las_thresholds", "40s, 400s", NULL };
  Record r;

  run_both (jobs, G_N_ELEMENTS (jobs), 2, "las", kv, &r);
  ck_assert_uint_eq (r.preemptions[1], 1);
  ck_assert_uint_eq (r.preemptions[2], 1);
  ck_assert_int_eq (r.first_start[3], 100 * S);
  ck_assert_int_eq (r.last_start[1], 110 * S);
  ck_assert_int_eq (r.last_start[2], 110 * S);
  ck_assert_int_eq (r.end[2], 371 * S);
  ck_assert_int_eq (r.end[1], 570 * S);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Priority (by hand: SWF has no priority).                                  */

/* One node of 4.  1 (0, 100 s, 4 GPUs, priority 0); 2 (10, 50 s, 4, 0);
 * 3 (20, 50 s, 4, 5).  Without preemption, 3 jumps the queue: it runs
 * 100-150, then 2 150-200.  With priority_preempt, 3 preempts 1 at 20
 * (1 has 80 s left + 4 + 6 s of checkpoint and restore = 90 s) and runs
 * 20-70; then 1 (priority 0, first in its class) runs 70-160, then 2
 * 160-210.  2 never preempts 1: same priority. */
START_TEST (test_priority)
{
  static const J jobs[] = {
    { 1, 0, 100, 4, 0, 0, 0 },
    { 2, 10, 50, 4, 0, 0, 0 },
    { 3, 20, 50, 4, 0, 5, 0 },
  };
  const char * const preempt[] = { "priority_preempt", "true", "checkpoint_cost", "4s",
                                   "restore_cost", "6s", NULL };
  Record r;

  run_bench (jobs, G_N_ELEMENTS (jobs), 1, "priority", NULL, &r);
  ck_assert_int_eq (r.first_start[3], 100 * S);
  ck_assert_int_eq (r.first_start[2], 150 * S);
  ck_assert_uint_eq (r.preemptions[1], 0);

  run_bench (jobs, G_N_ELEMENTS (jobs), 1, "priority", preempt, &r);
  ck_assert_int_eq (r.first_start[3], 20 * S);
  ck_assert_int_eq (r.end[3], 70 * S);
  ck_assert_uint_eq (r.preemptions[1], 1);
  ck_assert_int_eq (r.last_start[1], 70 * S);
  ck_assert_int_eq (r.end[1], 160 * S);
  ck_assert_int_eq (r.first_start[2], 160 * S);
  ck_assert_int_eq (r.end[2], 210 * S);
}
END_TEST

/* Victims are chosen least important first, then the unneeded ones are
 * reprieved.  One node of 4: 1 (0, 100 s, 1 GPU, priority 0) and 2 (1,
 * 100 s, 3 GPUs, priority 1) fill it.  3 (10, 10 s, 3 GPUs, priority 5):
 * giving up 1 frees 1 GPU, not enough; giving up 2 too frees 4.  Then 2 is
 * given back first (more important): without it 3 no longer fits, so 2 is
 * a victim; then 1 is given back: 3 still fits on 2's 3 GPUs, so 1 is
 * reprieved.  Only 2 is preempted; 3 runs 10-20, 2 resumes at 20 with 91
 * + 60 s (default costs) and ends at 171. */
START_TEST (test_priority_reprieve)
{
  static const J jobs[] = {
    { 1, 0, 100, 1, 0, 0, 0 },
    { 2, 1, 100, 3, 0, 1, 0 },
    { 3, 10, 10, 3, 0, 5, 0 },
  };
  const char * const preempt[] = { "priority_preempt", "yes", NULL };
  Record r;

  run_bench (jobs, G_N_ELEMENTS (jobs), 1, "priority", preempt, &r);
  ck_assert_uint_eq (r.preemptions[1], 0);
  ck_assert_uint_eq (r.preemptions[2], 1);
  ck_assert_int_eq (r.first_start[3], 10 * S);
  ck_assert_int_eq (r.last_start[2], 20 * S);
  ck_assert_int_eq (r.end[2], 171 * S);
  ck_assert_int_eq (r.end[1], 100 * S);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Fair share (by hand: SWF has no tenant).                                  */

/* Quotas.  Two nodes (8 GPUs); quota = 0:2.  Tenant 0: 1 (0, 100 s,
 * 1 GPU), 2 (1, 100 s, 1 GPU), 3 (2, 100 s, 1 GPU).  Tenant 1: 4 (3,
 * 100 s, 1 GPU).  1 and 2 start; 3 would take tenant 0 to 3 GPUs: it waits
 * with 6 GPUs free, while 4 (tenant 1, unlimited) starts at 3.  At 100 1
 * ends, and 3 starts. */
START_TEST (test_fair_quota)
{
  static const J jobs[] = {
    { 1, 0, 100, 1, 0, 0, 0 },
    { 2, 1, 100, 1, 0, 0, 0 },
    { 3, 2, 100, 1, 0, 0, 0 },
    { 4, 3, 100, 1, 0, 0, 1 },
  };
  const char * const kv[] = { "quota", "0:2", NULL };
  const char * const defaults[] = { "quota", "1:8", "default_quota", "2", NULL };
  Record r;

  run_bench (jobs, G_N_ELEMENTS (jobs), 2, "fair-share", kv, &r);
  ck_assert_int_eq (r.first_start[1], 0);
  ck_assert_int_eq (r.first_start[2], 1 * S);
  ck_assert_int_eq (r.first_start[4], 3 * S);
  ck_assert_int_eq (r.first_start[3], 100 * S);

  /* The same through default_quota: tenant 0 is not listed. */
  run_bench (jobs, G_N_ELEMENTS (jobs), 2, "fair-share", defaults, &r);
  ck_assert_int_eq (r.first_start[4], 3 * S);
  ck_assert_int_eq (r.first_start[3], 100 * S);
}
END_TEST

/* Usage over weight.  One node of 4.  Tenant 0: 1 (0, 100 s, 2 GPUs).
 * Tenant 1: 2 (1, 1000 s, 1 GPU), 3 (2, 50 s, 1 GPU).  The node is full.
 * Then 4 (tenant 0, 10, 1 GPU) and 5 (tenant 1, 20, 1 GPU) wait.  At 52, 3
 * ends: tenant 0 holds 2 GPUs, tenant 1 holds 1.  With equal weights,
 * tenant 1 is served first although its job came later: 5 starts at 52,
 * 4 at 100.  With tenant_weights = 0:4, 1:1, tenant 0's usage counts for
 * 2/4 = 0.5 against 1/1: 4 starts at 52, 5 at 100. */
START_TEST (test_fair_weights)
{
  static const J jobs[] = {
    { 1, 0, 100, 2, 0, 0, 0 },
    { 2, 1, 1000, 1, 0, 0, 1 },
    { 3, 2, 50, 1, 0, 0, 1 },
    { 4, 10, 100, 1, 0, 0, 0 },
    { 5, 20, 100, 1, 0, 0, 1 },
  };
  const char * const weights[] = { "tenant_weights", "0:4, 1:1", NULL };
  Record r;

  run_bench (jobs, G_N_ELEMENTS (jobs), 1, "fair-share", NULL, &r);
  ck_assert_int_eq (r.first_start[5], 52 * S);
  ck_assert_int_eq (r.first_start[4], 100 * S);
  run_bench (jobs, G_N_ELEMENTS (jobs), 1, "fair-share", weights, &r);
  ck_assert_int_eq (r.first_start[4], 52 * S);
  ck_assert_int_eq (r.first_start[5], 100 * S);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The EASY invariant.                                                       */

typedef struct {
  GHashTable *reserved;  /* job id -> first reservation (SimTime*) */
  GArray     *started;   /* ids started during the current decision */
  guint       checked, backfilled;
} Invariant;

static void
check_start (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Invariant *inv = data;
  const SimTime *at;

  if (job->state != SIM_JOB_RUNNING)
    return;
  g_array_append_val (inv->started, job->spec.id);
  at = g_hash_table_lookup (inv->reserved, &job->spec.id);
  if (at != NULL)
    {
      ck_assert_msg (job->start <= *at, "job %" G_GUINT64_FORMAT " starts at %.3f s, after its "
                     "reservation %.3f s", job->spec.id, sim_time_to_seconds (job->start),
                     sim_time_to_seconds (*at));
      inv->checked++;
    }
}

START_TEST (test_easy_invariant)
{
  const char *placement = (_i % 2) == 0 ? "first-fit" : "best-fit";
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = easy\nseed = %d\n"
    "[pool a]\nmodel = PCIe-8GPU\ngpus_per_node = 4\ncount = 3\n"
    "[pool b]\nmodel = PCIe-8GPU\ngpus_per_node = 8\ncount = 2\n"
    "[workload]\nrate = 10/h\njobs = 800\ngpus = 1:0.35, 2:0.2, 4:0.2, 8:0.15, 12:0.05, 16:0.05\n"
    "duration = lognormal(median=20min, sigma=1.3)\n"
    "[policy]\nqueue = easy\nplacement = %s\neasy_estimate = exact\n",
    17 + _i, placement);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "e.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) sim = NULL;
  Invariant inv = { 0 };

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  inv.reserved = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  inv.started = g_array_new (FALSE, FALSE, sizeof (guint64));
  sim_simulation_set_job_observer (sim, check_start, &inv, NULL);
  while (sim_simulation_run_to_decision (sim, &error))
    {
      guint64 head;
      SimTime at;

      ck_assert (sim_simulation_decide (sim, TRUE, &error));

      if (sim__easy_get_reservation (sim_simulation_get_policy (sim), &head, &at))
        {
          /* Jobs that started in this pass while an earlier one stays
           * blocked were backfilled. */
          for (guint i = 0; i < inv.started->len; i++)
            if (g_array_index (inv.started, guint64, i) > head)
              inv.backfilled++;
          ck_assert_int_ne (at, SIM_TIME_NEVER);
          ck_assert_int_ge (at, sim_simulation_get_now (sim));
          if (!g_hash_table_contains (inv.reserved, &head))
            g_hash_table_insert (inv.reserved, g_memdup2 (&head, sizeof head),
                                 g_memdup2 (&at, sizeof at));
        }
      g_array_set_size (inv.started, 0);
    }
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert (sim_simulation_is_finished (sim));
  /* Not vacuous: many heads were reserved for and many jobs backfilled. */
  ck_assert_uint_ge (inv.checked, 50);
  ck_assert_uint_ge (inv.backfilled, 50);
  g_hash_table_unref (inv.reserved);
  g_array_unref (inv.started);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Registration and keys.                                                    */

START_TEST (test_registered)
{
  static const char * const names[] = { "fifo", "sjf", "priority", "easy", "las", "fair-share" };
  g_autoptr(GPtrArray) orders = sim_policy_list_queue_orders ();

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      gboolean found = FALSE;
      for (guint k = 0; k < orders->len; k++)
        found |= g_strcmp0 (orders->pdata[k], names[i]) == 0;
      ck_assert_msg (found, "%s is not registered", names[i]);
      ck_assert_ptr_nonnull (sim_policy_describe_builtin (names[i]));
    }
}
END_TEST

/* A bad value is reported at its line, naming the key. */
static void
expect_bad (const char *queue, const char *lines, guint line, const char *key, const char *part)
{
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = bad\n"                               /* lines 1-2 */
    "[pool p]\nmodel = PCIe-8GPU\ngpus_per_node = 4\ncount = 1\n" /* 3-6 */
    "[workload]\nrate = 1/h\njobs = 1\ngpus = 1\nduration = constant(1h)\n" /* 7-11 */
    "[policy]\nqueue = %s\n%s",                              /* 12-13, then 14 */
    queue, lines);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "bad.ini", NULL, NULL, &error);
  g_autoptr(SimSimulation) sim = NULL;
  g_autofree char *where = g_strdup_printf ("bad.ini:%u: [policy] %s: ", line, key);

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_ptr_null (sim);
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (g_str_has_prefix (error->message, where), "%s", error->message);
  ck_assert_msg (strstr (error->message, part) != NULL, "%s", error->message);
}

START_TEST (test_bad_keys)
{
  expect_bad ("sjf", "sjf_estimate = guess\n", 14, "sjf_estimate", "exact or requested");
  expect_bad ("easy", "easy_estimate = exact\neasy_estimate2 = 1\n", 15, "easy_estimate2",
              "did you mean \"easy_estimate\"");
  expect_bad ("priority", "priority_preempt = maybe\n", 14, "priority_preempt",
              "true or false");
  expect_bad ("priority", "checkpoint_cost = 5 parsecs\n", 14, "checkpoint_cost",
              "unknown unit \"parsecs\"");
  expect_bad ("las", "checkpoint_cost = 1s\nlas_thresholds = 10h, 1h\n", 15, "las_thresholds",
              "increasing");
  expect_bad ("las", "las_thresholds = 1h, soon\n", 14, "las_thresholds", "item 2");
  expect_bad ("fair-share", "quota = 0:64, 1-32\n", 14, "quota", "TENANT:VALUE");
  expect_bad ("fair-share", "quota = 0:64, 0:32\n", 14, "quota", "twice");
  expect_bad ("fair-share", "tenant_weights = 0:0\n", 14, "tenant_weights", "item 1");
  expect_bad ("fair-share", "default_quota = -1\n", 14, "default_quota", "out of range");
}
END_TEST

/* What a binding keeps of a simulation outlives it: the cluster by
 * reference (with the catalogue its nodes' models are in), a node as a
 * snapshot, the simulation's job by reference, the decision's context by
 * keeping its simulation.  Every read below is of memory the simulation
 * used to free with itself. */
START_TEST (test_lifetimes)
{
  const char *overrides[] = { "scenario.horizon=1d", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) scenario = sim_scenario_load (SIM_TOP_SRCDIR "/scenarios/quickstart.ini",
                                                       overrides, &error);
  SimSimulation *sim;
  SimCluster *cluster;
  SimNode *node;
  SimSchedContext *context;
  SimJob * const *queue;
  SimJob *job;
  SimPlacement placement = { 0 };
  guint32 gpus[8];
  guint n = 0;
  guint64 id;
  SimTime first_decision;

  ck_assert_msg (scenario != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (scenario, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  cluster = sim_cluster_ref ((SimCluster *) sim_simulation_get_cluster (sim));
  node = g_boxed_copy (SIM_TYPE_NODE, sim_cluster_get_node (cluster, 3));
  ck_assert (sim_simulation_run_to_decision (sim, &error));
  first_decision = sim_simulation_get_now (sim);
  context = g_boxed_copy (SIM_TYPE_SCHED_CONTEXT, sim_simulation_get_decision (sim));
  queue = sim_sched_context_get_queue (context, &n);
  ck_assert_uint_ge (n, 1);
  job = g_boxed_copy (SIM_TYPE_JOB, queue[0]);
  ck_assert_ptr_eq (job, queue[0]);   /* the simulation's job, not a copy */
  id = job->spec.id;
  ck_assert (sim_simulation_decide (sim, TRUE, &error));
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  g_object_unref (sim);

  /* The context kept its simulation, but its decision is over. */
  placement.gpus = gpus;
  placement.n_gpus = job->spec.gpus;
  placement.milli = job->spec.gpu_milli;
  ck_assert (!sim_sched_context_start (context, job, &placement, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  ck_assert_msg (strstr (error->message, "is over") != NULL, "%s", error->message);
  g_boxed_free (SIM_TYPE_SCHED_CONTEXT, context);

  /* 16 DGX H100 nodes of 8 GPUs (scenarios/quickstart.ini). */
  ck_assert_uint_eq (sim_cluster_get_n_gpus (cluster), 128);
  ck_assert_str_eq (sim_cluster_get_node (cluster, 15)->model->name, "DGX-H100");
  ck_assert_uint_eq (node->index, 3);
  ck_assert_uint_eq (node->first_gpu, 24);
  ck_assert_str_eq (node->model->name, "DGX-H100");
  ck_assert_str_eq (node->gpu_model->name, "H100-SXM");
  /* The first job queued started in the first decision (FIFO, an empty
   * cluster): at the time of that decision, its own arrival. */
  ck_assert_uint_eq (job->spec.id, id);
  ck_assert_int_eq (job->spec.submit, first_decision);
  ck_assert_int_eq (job->start, first_decision);
  sim_job_unref (job);
  sim_cluster_unref (cluster);
  g_boxed_free (SIM_TYPE_NODE, node);
}
END_TEST

static Suite *
policies_suite (void)
{
  Suite *s = suite_create ("policies");
  TCase *tc = tcase_create ("by-hand");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_fifo);
  tcase_add_test (tc, test_sjf_exact);
  tcase_add_test (tc, test_sjf_requested);
  tcase_add_test (tc, test_easy_backfill);
  tcase_add_test (tc, test_easy_no_delay);
  tcase_add_test (tc, test_easy_extra_gpus);
  tcase_add_test (tc, test_easy_estimates);
  tcase_add_test (tc, test_las);
  tcase_add_test (tc, test_las_two_victims);
  tcase_add_test (tc, test_priority);
  tcase_add_test (tc, test_priority_reprieve);
  tcase_add_test (tc, test_fair_quota);
  tcase_add_test (tc, test_fair_weights);
  tcase_add_test (tc, test_registered);
  tcase_add_test (tc, test_bad_keys);
  suite_add_tcase (s, tc);

  tc = tcase_create ("lifetimes");
  tcase_add_test (tc, test_lifetimes);
  suite_add_tcase (s, tc);

  tc = tcase_create ("invariants");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_easy_invariant, 0, 4);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (policies_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
