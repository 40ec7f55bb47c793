/* check-kernel.c: what the kernel offers modules (kernel/sim-kernel.h), seen
 * from a module written here.
 *
 * What it checks, on tiny hand-made traces whose schedules are worked out
 * by hand in each test: every job hook is called once per job and in the
 * order of a job's life (arrived, placed, started, stopping, stopped,
 * finished), the state hooks after the kernel's own part; a gate that
 * refuses every start until a time holds every job until then and is told
 * what it held; a claim takes jobs out of the cluster, which end through
 * sim__kernel_finish_outside(); a start factor of 2 halves a job's run time
 * and a capacity factor of 1/2 doubles it (the sharing model's min(1, s /
 * a) with a = 1); a capacity factor changed in the middle of a job moves
 * its end to the closed form once its GPUs are re-rated; timers fire at
 * their time and a cancelled one never does; hold and release shift a
 * job's end by the time it was held plus what it owes; an extension lives
 * as long as the simulation; hooks cannot be connected once the run has
 * started; a job's node list given to STOPPING matches the cluster's.
 *
 * What it does not check: the modules themselves (check-power,
 * check-failures, check-elastic and check-cost do), nor that results are
 * unchanged by the kernel's split (tests/test-golden.sh does).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include <string.h>

#include "kernel/sim-kernel.h"

static char *tmpdir;

/* Two DGX H100 (16 GPUs); jobs given by a native trace. */
static const char *scenario =
  "[scenario]\n"
  "name = kernel\n"
  "[pool h100]\n"
  "model = DGX-H100\n"
  "count = 2\n"
  "[workload]\n"
  "source = native\n"
  "trace = jobs.csv\n"
  "[output]\n"
  "timeseries = false\n";

static SimSimulation *
new_sim (const char *trace)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "jobs.csv", NULL);
  g_autoptr(SimScenario) sc = NULL;
  SimSimulation *sim;

  ck_assert (g_file_set_contents (path, trace, -1, &error));
  sc = sim_scenario_load_from_data (scenario, -1, "kernel.ini", tmpdir, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  return sim;
}

static void
run (SimSimulation *sim)
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

static void
setup (void)
{
  g_autoptr(GError) error = NULL;

  tmpdir = g_dir_make_tmp ("check-kernel-XXXXXX", &error);
  ck_assert_msg (tmpdir != NULL, "%s", error ? error->message : "");
}

static void
teardown (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "jobs.csv", NULL);

  g_unlink (path);
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

/* ------------------------------------------------------------------------- */
/* A module that records what it is told.                                    */

#define MAX_JOBS 16
enum { ARRIVED, PLACED, STARTED, STOPPING, STOPPED, FINISHED, N_STEPS };

typedef struct {
  SimSimulation *sim;
  /* Per job id: the order in which each step came (1, 2, ...), 0 if not. */
  guint    step[MAX_JOBS][N_STEPS];
  guint    count[MAX_JOBS][N_STEPS];
  guint    next[MAX_JOBS];
  SimTime  start[MAX_JOBS], end[MAX_JOBS];
  guint    state_notes, state_changes, pass_ends, run_starts, reports;
  gboolean state_after_kernel; /* every note saw the kernel's part already filled */
  gboolean nodes_right;        /* STOPPING's nodes were the cluster's */
  guint    slot;               /* a job slot of its own: the job's last start */
  gboolean slot_right;         /* the slot kept its value from start to finish */
} Recorder;

static void
mark (Recorder *r, const SimJob *job, guint step)
{
  guint id = (guint) job->spec.id;

  ck_assert_uint_lt (id, MAX_JOBS);
  r->count[id][step]++;
  if (r->step[id][step] == 0)
    r->step[id][step] = ++r->next[id];
}

static void
on_arrived (gpointer data, SimJob *job, SimTime now)
{
  mark (data, job, ARRIVED);
}

static SimTime
on_placed (gpointer data, SimJob *job, const SimPlacement *placement, SimTime now)
{
  /* The GPUs are held, the speed not set yet. */
  ck_assert_uint_eq (job->n_gpus, placement->n_gpus);
  ck_assert_int_eq (job->state, SIM_JOB_RUNNING);
  mark (data, job, PLACED);
  return 0;
}

static void
on_started (gpointer data, SimJob *job, SimTime now)
{
  Recorder *r = data;

  mark (r, job, STARTED);
  r->start[job->spec.id] = now;
  job->ext[r->slot].t = now;
}

static void
on_stopping (gpointer data, SimJob *job, const guint *nodes)
{
  Recorder *r = data;
  const SimCluster *cluster = sim_simulation_get_cluster (r->sim);
  guint last = G_MAXUINT;

  mark (r, job, STOPPING);
  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint node = sim_cluster_get_gpu (cluster, job->gpus[i])->node;
      if (nodes[i] != (node == last ? G_MAXUINT : node))
        r->nodes_right = FALSE;
      last = node;
    }
}

static void
on_stopped (gpointer data, SimJob *job, SimTime now)
{
  mark (data, job, STOPPED);
}

static void
on_finished (gpointer data, SimJob *job, SimTime now)
{
  Recorder *r = data;

  mark (r, job, FINISHED);
  r->end[job->spec.id] = now;
  if (job->ext[r->slot].t != r->start[job->spec.id])
    r->slot_right = FALSE;
}

static void
on_state_note (gpointer data, SimState *state, SimTime now)
{
  Recorder *r = data;

  r->state_notes++;
  /* The kernel fills its part first: what is allocated is known. */
  if (state->allocated_milli != sim_cluster_get_allocated_milli (sim_simulation_get_cluster (r->sim)))
    r->state_after_kernel = FALSE;
}

static void
on_state_changed (SimSimulation *sim, SimTime now, gpointer data)
{
  ((Recorder *) data)->state_changes++;
}

static void
on_pass_end (SimSimulation *sim, SimTime now, gpointer data)
{
  ((Recorder *) data)->pass_ends++;
}

static void
on_run_start (SimSimulation *sim, SimTime now, gpointer data)
{
  ck_assert_int_eq (now, 0);
  ((Recorder *) data)->run_starts++;
}

static void
on_report (gpointer data, SimReport *report, const SimReportInfo *info)
{
  ((Recorder *) data)->reports++;
}

static Recorder *
attach_recorder (SimSimulation *sim)
{
  Recorder *r = g_new0 (Recorder, 1);

  r->sim = sim;
  r->state_after_kernel = TRUE;
  r->nodes_right = TRUE;
  r->slot_right = TRUE;
  r->slot = sim__kernel_claim_job_slots (sim, 1);
  for (guint i = 0; i < MAX_JOBS; i++)
    r->start[i] = r->end[i] = -1;
  sim__kernel_connect (sim, SIM_HOOK_JOB_ARRIVED, G_CALLBACK (on_arrived), r);
  sim__kernel_connect (sim, SIM_HOOK_JOB_PLACED, G_CALLBACK (on_placed), r);
  sim__kernel_connect (sim, SIM_HOOK_JOB_STARTED, G_CALLBACK (on_started), r);
  sim__kernel_connect (sim, SIM_HOOK_JOB_STOPPING, G_CALLBACK (on_stopping), r);
  sim__kernel_connect (sim, SIM_HOOK_JOB_STOPPED, G_CALLBACK (on_stopped), r);
  sim__kernel_connect (sim, SIM_HOOK_JOB_FINISHED, G_CALLBACK (on_finished), r);
  sim__kernel_connect (sim, SIM_HOOK_STATE_NOTE, G_CALLBACK (on_state_note), r);
  sim__kernel_connect (sim, SIM_HOOK_STATE_CHANGED, G_CALLBACK (on_state_changed), r);
  sim__kernel_connect (sim, SIM_HOOK_PASS_END, G_CALLBACK (on_pass_end), r);
  sim__kernel_connect (sim, SIM_HOOK_RUN_START, G_CALLBACK (on_run_start), r);
  sim__kernel_connect (sim, SIM_HOOK_REPORT, G_CALLBACK (on_report), r);
  /* The simulation frees it: the extension's own lifetime. */
  sim__kernel_set_extension (sim, attach_recorder, r, g_free);
  return r;
}

/* Three jobs on 16 GPUs: 1 and 2 (8 GPUs each) at 0 for 100 s and 200 s,
 * 3 (16 GPUs) at 10 s for 50 s, which waits for both: it starts at 200 s
 * and ends at 250 s. */
static const char *three_jobs =
  "id,submit,duration,gpus,gpu_milli\n"
  "1,0,100,8,1000\n"
  "2,0,200,8,1000\n"
  "3,10,50,16,1000\n";

START_TEST (test_hooks_order)
{
  g_autoptr(SimSimulation) sim = new_sim (three_jobs);
  Recorder *r = attach_recorder (sim);

  ck_assert_ptr_eq (sim__kernel_get_extension (sim, attach_recorder), r);
  run (sim);
  for (guint id = 1; id <= 3; id++)
    for (guint s = 0; s < N_STEPS; s++)
      ck_assert_msg (r->step[id][s] == s + 1 && r->count[id][s] == 1,
                     "job %u: step %u came %u-th, %u times", id, s, r->step[id][s],
                     r->count[id][s]);
  ck_assert_int_eq (r->start[3], 200 * SIM_SECOND);
  ck_assert_int_eq (r->end[3], 250 * SIM_SECOND);
  ck_assert_int_eq (r->end[1], 100 * SIM_SECOND);
  ck_assert (r->nodes_right);
  ck_assert (r->slot_right);
  /* Without [power] or [failures] no module claimed a slot before. */
  ck_assert_uint_eq (r->slot, 0);
  ck_assert (r->state_after_kernel);
  ck_assert_uint_eq (r->run_starts, 1);
  ck_assert_uint_eq (r->reports, 1);
  /* A pass at 0 (jobs 1, 2), at 10 (3 waits), 100 and 200: the state is
   * noted and watched at least once per pass, and once at the start. */
  ck_assert_uint_ge (r->pass_ends, 4);
  ck_assert_uint_ge (r->state_notes, r->pass_ends + 1);
  ck_assert_uint_ge (r->state_changes, r->pass_ends);
  ck_assert_double_eq (metric (sim, "jobs_completed"), 3);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Gates and claims.                                                         */

typedef struct {
  SimTime until;   /* starts refused before this */
  guint   held;    /* summed over passes */
  guint   asked;
} Gate;

static gboolean
admit (gpointer data, const SimJob *job, const SimPlacement *placement, GError **error)
{
  ((Gate *) data)->asked++;
  return TRUE;
}

static SimSimulation *gate_sim;

static gboolean
admit_after (gpointer data, const SimJob *job, const SimPlacement *placement, GError **error)
{
  Gate *g = data;

  g->asked++;
  if (sim__kernel_now (gate_sim) < g->until)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_HELD, "held by the test's gate");
      return FALSE;
    }
  return TRUE;
}

static void
gate_pass_end (gpointer data, guint n_held, SimTime now)
{
  ((Gate *) data)->held += n_held;
}

static void
reopen (SimSimulation *sim, SimTime now, gpointer data)
{
  sim__kernel_request_decision (sim);
}

START_TEST (test_gate_holds_starts)
{
  g_autoptr(SimSimulation) sim = new_sim (three_jobs);
  Gate all = { 0, 0, 0 }, late = { 500 * SIM_SECOND, 0, 0 };
  Recorder *r = attach_recorder (sim);

  /* Two gates: one that admits all, one that holds every start until
   * 500 s, when a timer asks for a decision.  Both must admit: jobs 1 and
   * 2 start at 500 s (ending at 600 and 700 s), job 3 at 700 s. */
  gate_sim = sim;
  sim__kernel_add_gate (sim, admit, NULL, &all);
  sim__kernel_add_gate (sim, admit_after, gate_pass_end, &late);
  ck_assert (sim__kernel_add_timer (sim, 500 * SIM_SECOND, reopen, NULL) != 0);
  run (sim);
  ck_assert_int_eq (r->start[1], 500 * SIM_SECOND);
  ck_assert_int_eq (r->start[2], 500 * SIM_SECOND);
  ck_assert_int_eq (r->start[3], 700 * SIM_SECOND);
  ck_assert_int_eq (r->end[3], 750 * SIM_SECOND);
  ck_assert_uint_gt (late.held, 0);
  /* The second gate is asked only for what the first admitted. */
  ck_assert_uint_eq (all.asked, late.asked);
}
END_TEST

typedef struct {
  SimSimulation *sim;
  GPtrArray     *taken;
} Claim;

static void
finish_taken (SimSimulation *sim, SimTime now, gpointer data)
{
  Claim *c = data;

  for (guint i = 0; i < c->taken->len; i++)
    sim__kernel_finish_outside (sim, c->taken->pdata[i]);
  g_ptr_array_set_size (c->taken, 0);
}

static gboolean
claim_even (gpointer data, SimJob *job, SimTime now)
{
  Claim *c = data;

  if (job->spec.id % 2 != 0)
    return FALSE;
  g_ptr_array_add (c->taken, job);
  sim__kernel_add_timer (c->sim, now + 30 * SIM_SECOND, finish_taken, c);
  return TRUE;
}

START_TEST (test_claim)
{
  g_autoptr(SimSimulation) sim = new_sim (three_jobs);
  g_autoptr(GPtrArray) taken = g_ptr_array_new ();
  Claim c = { sim, taken };
  Recorder *r = attach_recorder (sim);

  /* Job 2 is taken out at 0 and ends at 30 s outside the cluster: it never
   * arrives nor starts there, and job 3 starts when job 1 ends, at 100 s. */
  sim__kernel_add_claim (sim, claim_even, &c);
  run (sim);
  ck_assert_uint_eq (r->step[2][ARRIVED], 0);
  ck_assert_uint_eq (r->step[2][STARTED], 0);
  ck_assert_uint_eq (r->step[2][FINISHED], 1);
  ck_assert_int_eq (r->end[2], 30 * SIM_SECOND);
  ck_assert_int_eq (r->start[3], 100 * SIM_SECOND);
  ck_assert_double_eq (metric (sim, "jobs_completed"), 3);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Speed factors and re-rating.                                              */

static double
twice (gpointer data, const SimJob *job)
{
  return 2.0;
}

static double
capacity (gpointer data, const SimJob *job)
{
  return *(double *) data;
}

static const char *one_job =
  "id,submit,duration,gpus,gpu_milli\n"
  "1,0,1000,8,1000\n";

static SimTime
end_of_one_job (double start_factor, double capacity_factor)
{
  g_autoptr(SimSimulation) sim = new_sim (one_job);
  Recorder *r = attach_recorder (sim);
  double *cap = g_new (double, 1);

  *cap = capacity_factor;
  sim__kernel_set_extension (sim, cap, cap, g_free);
  if (start_factor != 1)
    sim__kernel_add_start_factor (sim, twice, NULL);
  sim__kernel_add_capacity_factor (sim, capacity, cap);
  run (sim);
  return r->end[1];
}

START_TEST (test_speed_factors)
{
  /* Alone on its GPUs, a job of 1000 s runs 1000 s; at twice the speed
   * 500 s; on GPUs left half their capacity, with activity a = 1, at
   * min(1, s / a) = 1/2 of its speed: 2000 s; both: 1000 s. */
  ck_assert_int_eq (end_of_one_job (1, 1), 1000 * SIM_SECOND);
  ck_assert_int_eq (end_of_one_job (2, 1), 500 * SIM_SECOND);
  ck_assert_int_eq (end_of_one_job (1, 0.5), 2000 * SIM_SECOND);
  ck_assert_int_eq (end_of_one_job (2, 0.5), 1000 * SIM_SECOND);
}
END_TEST

typedef struct {
  double s;
  guint8 *changed;
} Clock;

static void
slow_down (SimSimulation *sim, SimTime now, gpointer data)
{
  Clock *c = data;

  sim__kernel_change_begin (sim, now);
  c->s = 0.25;
  sim__kernel_rerate_gpus (sim, c->changed, now);
  sim__kernel_change_end (sim);
}

START_TEST (test_rerate)
{
  g_autoptr(SimSimulation) sim = new_sim (one_job);
  Recorder *r = attach_recorder (sim);
  Clock clock = { 1.0, g_new0 (guint8, 16) };

  /* At 400 s the job's GPUs fall to a quarter of their speed: it has 600 s
   * of work left, done at 1/4: it ends at 400 + 2400 = 2800 s. */
  for (guint g = 0; g < 8; g++)
    clock.changed[g] = 1;
  sim__kernel_add_capacity_factor (sim, capacity, &clock.s);
  sim__kernel_add_timer (sim, 400 * SIM_SECOND, slow_down, &clock);
  run (sim);
  ck_assert_int_eq (r->end[1], 2800 * SIM_SECOND);
  g_free (clock.changed);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Timers and holding.                                                       */

static void
count_fire (SimSimulation *sim, SimTime now, gpointer data)
{
  GArray *fired = data;

  g_array_append_val (fired, now);
}

START_TEST (test_timers)
{
  g_autoptr(SimSimulation) sim = new_sim (three_jobs);
  g_autoptr(GArray) fired = g_array_new (FALSE, FALSE, sizeof (SimTime));
  guint64 t1, t2;

  t1 = sim__kernel_add_timer (sim, 50 * SIM_SECOND, count_fire, fired);
  t2 = sim__kernel_add_timer (sim, 60 * SIM_SECOND, count_fire, fired);
  ck_assert (t1 != 0 && t2 != 0 && t1 != t2);
  ck_assert (sim__kernel_cancel_timer (sim, t2));
  ck_assert (!sim__kernel_cancel_timer (sim, t2));
  /* Past the end of simulated time: refused. */
  ck_assert (sim__kernel_add_timer (sim, SIM_TIME_NEVER, count_fire, fired) == 0);
  run (sim);
  ck_assert_uint_eq (fired->len, 1);
  ck_assert_int_eq (g_array_index (fired, SimTime, 0), 50 * SIM_SECOND);
}
END_TEST

typedef struct {
  SimJob *job;
} Held;

static void
hold_job (SimSimulation *sim, SimTime now, gpointer data)
{
  Held *h = data;
  GQueue *running = sim__kernel_get_running (sim);

  ck_assert_uint_eq (running->length, 1);
  h->job = running->head->data;
  /* It owes 10 s more (restoring its state), and loses nothing. */
  sim__kernel_hold_job (sim, h->job, 10 * SIM_SECOND, 0);
}

static void
release_job (SimSimulation *sim, SimTime now, gpointer data)
{
  sim__kernel_release_job (sim, ((Held *) data)->job);
}

START_TEST (test_hold_release)
{
  g_autoptr(SimSimulation) sim = new_sim (one_job);
  Recorder *r = attach_recorder (sim);
  Held h = { NULL };

  /* Held at 300 s with 700 s left, released at 500 s: it restarts at once
   * and runs 700 + 10 s more, to 1210 s. */
  sim__kernel_add_timer (sim, 300 * SIM_SECOND, hold_job, &h);
  sim__kernel_add_timer (sim, 500 * SIM_SECOND, release_job, &h);
  run (sim);
  ck_assert_int_eq (r->end[1], 1210 * SIM_SECOND);
  ck_assert_int_eq (r->start[1], 500 * SIM_SECOND);
  ck_assert_double_eq (metric (sim, "preemptions"), 1);
  /* It arrived and finished once, and ran twice. */
  ck_assert_uint_eq (r->count[1][ARRIVED], 1);
  ck_assert_uint_eq (r->count[1][FINISHED], 1);
  for (guint step = PLACED; step <= STOPPED; step++)
    ck_assert_uint_eq (r->count[1][step], 2);
}
END_TEST

static int n_criticals;

static void
count_criticals (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  if (level & G_LOG_LEVEL_CRITICAL)
    n_criticals++;
}

static void
must_not_run (gpointer data, SimJob *job, SimTime now)
{
  *(gboolean *) data = TRUE;
}

START_TEST (test_no_connect_after_start)
{
  g_autoptr(SimSimulation) sim = new_sim (three_jobs);
  g_autoptr(GError) error = NULL;
  GLogLevelFlags old_fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
  GLogFunc old_handler = g_log_set_default_handler (count_criticals, NULL);
  gboolean called = FALSE;

  /* Job 3 arrives at 10 s, after the hook was (not) connected at 5 s: a
   * programming error, refused with a critical, and nothing connected. */
  ck_assert (sim_simulation_run_until (sim, 5 * SIM_SECOND, &error));
  ck_assert (sim__kernel_has_started (sim) && sim__kernel_is_live (sim));
  n_criticals = 0;
  sim__kernel_connect (sim, SIM_HOOK_JOB_ARRIVED, G_CALLBACK (must_not_run), &called);
  g_log_set_default_handler (old_handler, NULL);
  g_log_set_always_fatal (old_fatal);
  ck_assert_int_eq (n_criticals, 1);
  run (sim);
  ck_assert (!called);
  ck_assert (!sim__kernel_is_live (sim));
}
END_TEST

/* Without a horizon, a run stepped by sim_simulation_run_until() ends when
 * nothing is left to happen: the three jobs' last ends at 250 s (job 3
 * waits for both nodes until job 2 ends at 200 s, then runs 50 s), so
 * steps of a minute finish the run at the fifth step, not one step a
 * minute to the end of simulated time. */
START_TEST (test_run_until_ends)
{
  g_autoptr(SimSimulation) sim = new_sim (three_jobs);
  g_autoptr(GError) error = NULL;
  guint steps = 0;
  double makespan = -1;

  while (!sim_simulation_is_finished (sim) && steps < 100)
    {
      ck_assert_msg (sim_simulation_run_until (sim, sim_simulation_get_now (sim) + 60 * SIM_SECOND,
                                               &error), "%s", error ? error->message : "");
      steps++;
    }
  ck_assert_msg (sim_simulation_is_finished (sim), "not finished after %u steps, at %g s", steps,
                 sim_time_to_seconds (sim_simulation_get_now (sim)));
  ck_assert_uint_eq (steps, 5);
  ck_assert (sim_report_get_value (sim_simulation_get_report (sim), "makespan", &makespan));
  ck_assert_double_eq_tol (makespan, 250, 1e-9);
}
END_TEST

static Suite *
kernel_suite (void)
{
  Suite *s = suite_create ("kernel");
  TCase *tc = tcase_create ("hooks");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_hooks_order);
  tcase_add_test (tc, test_gate_holds_starts);
  tcase_add_test (tc, test_claim);
  tcase_add_test (tc, test_speed_factors);
  tcase_add_test (tc, test_rerate);
  tcase_add_test (tc, test_timers);
  tcase_add_test (tc, test_hold_release);
  tcase_add_test (tc, test_no_connect_after_start);
  tcase_add_test (tc, test_run_until_ends);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (kernel_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
