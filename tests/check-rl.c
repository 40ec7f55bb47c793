/* check-rl.c: the reinforcement-learning environment (sim-rl-env.h).
 *
 * An agent that starts the head of the queue with first-fit when it can,
 * and waits otherwise, is FIFO/first-fit and must give its report byte for
 * byte; one that starts the first job that fits is a greedy order's pass.
 * A random agent following the mask never has an action refused, never
 * breaks the simulation's state, and its rewards add up to minus the time
 * integral of the jobs in the system, which the report gives as the sum of
 * the completion times.  The slowdown reward matches its closed form on a
 * three-job run worked by hand; the scenario's [rl] section chooses the
 * reward and sizes unless the arguments do, and its errors name the file,
 * line and key.  Node actions put a job on the node of the slot chosen and
 * are masked where it does not fit.  The link loads appended to the
 * observation are 0 without a network and, on a fabric, follow a 2-node
 * ring's flows as worked by hand.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include <string.h>
#include <unistd.h>

#define BASE_TEXT \
  "[scenario]\nname = rl\nseed = 3\n" \
  "[pool a]\nmodel = DGX-A100\ncount = 2\n" \
  "[pool b]\nmodel = DGX-H100\ncount = 1\n" \
  "[workload]\nrate = 5/h\njobs = 250\ngpus = 1:0.4, 2:0.2, 4:0.2, 8:0.1, 16:0.1\n" \
  "duration = exponential(mean=1h)\n" \
  "[policy]\nqueue = %s\nplacement = %s\n"

/* Writes the scenario to a temporary file; returns its path. */
static char *
write_scenario (const char *queue, const char *placement)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strdup_printf (BASE_TEXT, queue, placement);
  char *path = NULL;
  int fd = g_file_open_tmp ("check-rl-XXXXXX.ini", &path, &error);

  ck_assert_msg (fd >= 0, "%s", error ? error->message : "");
  close (fd);
  ck_assert (g_file_set_contents (path, text, -1, &error));
  return path;
}

static SimReport *
run_policy (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (path, NULL, &error);
  SimSimulation *sim;
  SimReport *report;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert (sim != NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  report = g_boxed_copy (SIM_TYPE_REPORT, sim_simulation_get_report (sim));
  g_object_unref (sim);
  return report;
}

static double
metric (const SimReport *report, const char *name)
{
  double v = 0;
  ck_assert_msg (sim_report_get_value (report, name, &v), "no metric %s", name);
  return v;
}

/* Steps to the end with AGENT; returns the number of steps. */
typedef guint (*Agent) (SimRlEnv *env, GRand *rand);

static guint64
rollout (SimRlEnv *env, Agent agent, GRand *rand, gboolean check_state)
{
  g_autoptr(GError) error = NULL;
  gboolean terminated = FALSE, truncated = FALSE;
  double sum = 0;
  guint64 steps = 0;

  while (!terminated && !truncated)
    {
      double reward;
      guint action = agent (env, rand);
      ck_assert_msg (sim_rl_env_step (env, action, &reward, &terminated, &truncated, &error),
                     "step %" G_GUINT64_FORMAT ", action %u: %s", steps, action,
                     error ? error->message : "");
      sum += reward;
      steps++;
      if (check_state)
        ck_assert_msg (sim__kernel_check_state (sim_rl_env_get_simulation (env), &error),
                       "%s", error ? error->message : "");
    }
  ck_assert (terminated && !truncated);
  ck_assert (sim_rl_env_is_done (env));
  ck_assert_double_eq_tol (sum, sim_rl_env_get_total_reward (env), 1e-9 * MAX (1, fabs (sum)));
  ck_assert_uint_eq (steps, sim_rl_env_get_steps (env));
  return steps;
}

/* The head of the window with first-fit, else wait. */
static guint
head_agent (SimRlEnv *env, GRand *rand)
{
  gsize n;
  const guint8 *mask = sim_rl_env_get_action_mask (env, &n);
  return mask[0] ? 0 : sim_rl_env_get_wait_action (env);
}

/* The first window job first-fit can start, else wait. */
static guint
greedy_agent (SimRlEnv *env, GRand *rand)
{
  gsize n, obs_n;
  const guint8 *mask = sim_rl_env_get_action_mask (env, &n);
  const float *obs = sim_rl_env_get_observation (env, &obs_n);
  guint p = sim_rl_env_get_n_placements (env), w = sim_rl_env_get_window (env);

  /* The whole queue must be in the window for the agent to see what the
   * policy's pass sees. */
  ck_assert_float_le (obs[w * SIM_RL_JOB_FEATURES
                          + sim_rl_env_get_node_slots (env) * SIM_RL_SLOT_FEATURES + 2],
                      (float) w);
  for (guint k = 0; k < w; k++)
    if (mask[k * p])
      return k * p;
  return sim_rl_env_get_wait_action (env);
}

/* Any allowed action, uniformly. */
static guint
random_agent (SimRlEnv *env, GRand *rand)
{
  gsize n;
  const guint8 *mask = sim_rl_env_get_action_mask (env, &n);
  guint allowed[256], m = 0;

  ck_assert_uint_le (n, G_N_ELEMENTS (allowed));

  for (guint a = 0; a < n; a++)
    if (mask[a])
      allowed[m++] = a;
  ck_assert_uint_gt (m, 0);
  return allowed[g_rand_int_range (rand, 0, (gint32) m)];
}

static char *
report_json (SimRlEnv *env)
{
  SimReport *report = sim_simulation_get_report (sim_rl_env_get_simulation (env));
  ck_assert_ptr_nonnull (report);
  return sim_report_to_json (report, FALSE);
}

/* The head agent is FIFO/first-fit: the same report, byte for byte. */
START_TEST (test_head_agent_is_fifo)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_scenario ("fifo", "first-fit");
  g_autoptr(SimReport) expected = run_policy (path);
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 4, 8, NULL, SIM_RL_REWARD_JOBS, &error);
  g_autofree char *want = sim_report_to_json (expected, FALSE), *got = NULL;

  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert (sim_rl_env_reset (env, &error));
  ck_assert_uint_gt (rollout (env, head_agent, NULL, FALSE), 250);
  got = report_json (env);
  ck_assert_str_eq (got, want);
  /* Without skipping forced waits, every decision is a step: more steps,
   * the same run. */
  sim_rl_env_set_skip_forced (env, FALSE);
  ck_assert (sim_rl_env_reset (env, &error));
  rollout (env, head_agent, NULL, FALSE);
  g_free (got);
  got = report_json (env);
  ck_assert_str_eq (got, want);
  g_unlink (path);
}
END_TEST

/* Placements are set up as the scenario's policy is: with fgd (which
 * weighs the workload's task classes) and topology-aware (which needs the
 * scenario's network), the head agent is still the scenario's policy. */
START_TEST (test_head_agent_setup)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *synthetic = write_scenario ("fifo", "fgd");
  const char *fabric = SIM_TOP_SRCDIR "/scenarios/fabric-rail-vs-fat-tree.ini";
  const char *path = _i == 0 ? synthetic : fabric;
  const char *overrides[] = { "scenario.horizon=3d", NULL };
  const char *fgd[] = { "fgd", NULL }, *topo[] = { "topology-aware", NULL };
  g_autoptr(SimScenario) sc = sim_scenario_load (path, _i == 0 ? NULL : overrides, &error);
  g_autoptr(SimSimulation) sim = sc ? sim_simulation_new (sc, &error) : NULL;
  g_autoptr(SimRlEnv) env = NULL;
  g_autofree char *want = NULL, *got = NULL;
  gboolean term = FALSE, trunc = FALSE;
  double reward;

  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert (sim_simulation_run (sim, &error));
  want = sim_report_to_json (sim_simulation_get_report (sim), FALSE);
  env = sim_rl_env_new (path, _i == 0 ? NULL : overrides, 4, 8, _i == 0 ? fgd : topo,
                        SIM_RL_REWARD_JOBS, &error);
  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert (sim_rl_env_reset (env, &error));
  while (!term && !trunc)
    ck_assert_msg (sim_rl_env_step (env, head_agent (env, NULL), &reward, &term, &trunc, &error),
                   "%s", error ? error->message : "");
  ck_assert (_i == 0 ? term : trunc);
  got = report_json (env);
  ck_assert_str_eq (got, want);
  g_unlink (synthetic);
}
END_TEST

/* The greedy agent is a greedy order's pass (sjf: a job that does not fit
 * lets later ones run), the window being the queue in that order. */
START_TEST (test_greedy_agent_is_greedy_order)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_scenario ("sjf", "first-fit");
  g_autoptr(SimReport) expected = run_policy (path);
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 64, 8, NULL, SIM_RL_REWARD_JOBS, &error);
  g_autofree char *want = sim_report_to_json (expected, FALSE), *got = NULL;

  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert (sim_rl_env_reset (env, &error));
  rollout (env, greedy_agent, NULL, FALSE);
  got = report_json (env);
  ck_assert_str_eq (got, want);
  g_unlink (path);
}
END_TEST

/* A random agent, following the mask, on four seeds and both rewards:
 * every action it takes succeeds, the state stays consistent, the mask
 * rules out what would fail, and the rewards add up to the integrals the
 * report gives. */
START_TEST (test_random_agent)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_scenario ("fifo", "first-fit");
  const char *placements[] = { "first-fit", "best-fit", "worst-fit", NULL };
  SimRlReward kind = _i < 4 ? SIM_RL_REWARD_JOBS : SIM_RL_REWARD_UTILIZATION;
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 6, 2, placements, kind, &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (17 + _i);
  SimReport *report;
  double total;

  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_rl_env_get_n_actions (env), 6 * 3 + 1);
  ck_assert_uint_eq (sim_rl_env_get_observation_size (env),
                     6 * SIM_RL_JOB_FEATURES + 2 * SIM_RL_SLOT_FEATURES + SIM_RL_GLOBAL_FEATURES
                       + 2 * SIM_RL_SLOT_LINK_FEATURES + SIM_RL_LINK_FEATURES
                       + 2 * SIM_RL_SLOT_POWER_FEATURES + SIM_RL_POWER_FEATURES);
  ck_assert (sim_rl_env_reset_with_seed (env, 100 + _i, &error));
  rollout (env, random_agent, rand, TRUE);
  report = sim_simulation_get_report (sim_rl_env_get_simulation (env));
  total = sim_rl_env_get_total_reward (env);
  if (kind == SIM_RL_REWARD_JOBS)
    {
      double jct_sum = metric (report, "jct_mean") * metric (report, "jobs_completed");
      ck_assert_double_eq (metric (report, "jobs_completed"), 250);
      ck_assert_double_eq_tol (-total * 3600, jct_sum, 1e-9 * jct_sum);
    }
  else
    {
      double gpu_s = metric (report, "allocated_gpu_seconds");
      ck_assert_double_eq_tol (total * 3600 * 24, gpu_s, 1e-9 * gpu_s);
    }
  g_unlink (path);
}
END_TEST

/* Every allowed start succeeds and every ruled-out action is refused with
 * nothing changed, checked at each decision of an episode by trying all of
 * them on a twin environment brought to the same point. */
START_TEST (test_mask_is_exact)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_scenario ("fifo", "best-fit");
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 3, 3, NULL, SIM_RL_REWARD_JOBS, &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  GArray *history = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_actions = sim_rl_env_get_n_actions (env), tried = 0, refused = 0;

  ck_assert (sim_rl_env_reset (env, &error));
  for (guint step = 0; step < 60 && !sim_rl_env_is_done (env); step++)
    {
      gsize n;
      const guint8 *current = sim_rl_env_get_action_mask (env, &n);
      g_autofree guint8 *mask = g_memdup2 (current, n);
      double reward;
      gboolean term, trunc;
      guint chosen;

      for (guint a = 0; a < n_actions; a++)
        {
          g_autoptr(SimRlEnv) twin = sim_rl_env_new (path, NULL, 3, 3, NULL, SIM_RL_REWARD_JOBS,
                                                     &error);
          gsize m;
          ck_assert (sim_rl_env_reset (twin, &error));
          for (guint i = 0; i < history->len; i++)
            ck_assert (sim_rl_env_step (twin, g_array_index (history, guint, i), &reward, &term,
                                        &trunc, &error));
          ck_assert (memcmp (sim_rl_env_get_action_mask (twin, &m), mask, n) == 0);
          if (mask[a])
            {
              ck_assert_msg (sim_rl_env_step (twin, a, &reward, &term, &trunc, &error), "%s",
                             error ? error->message : "");
              tried++;
            }
          else
            {
              g_autofree float *before = NULL;
              gsize k;
              const float *now = sim_rl_env_get_observation (twin, &k);
              before = g_memdup2 (now, k * sizeof (float));
              ck_assert (!sim_rl_env_step (twin, a, &reward, &term, &trunc, &error));
              ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
              ck_assert (strstr (error->message, "not possible now") != NULL);
              g_clear_error (&error);
              ck_assert (memcmp (before, sim_rl_env_get_observation (twin, &k),
                                 k * sizeof (float)) == 0);
              ck_assert (sim__kernel_check_state (sim_rl_env_get_simulation (twin), &error));
              refused++;
            }
        }
      chosen = random_agent (env, rand);
      ck_assert (sim_rl_env_step (env, chosen, &reward, &term, &trunc, &error));
      g_array_append_val (history, chosen);
    }
  ck_assert_uint_gt (tried, 60);
  ck_assert_uint_gt (refused, 60);
  g_array_unref (history);
  g_unlink (path);
}
END_TEST

/* Same seed, same episode; another seed, another; the scenario's seed by
 * default. */
START_TEST (test_reset_determinism)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_scenario ("fifo", "first-fit");
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 8, 4, NULL, SIM_RL_REWARD_JOBS, &error);
  double totals[3];
  guint64 seeds[3] = { 7, 7, 8 };

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GRand) rand = g_rand_new_with_seed (1);
      ck_assert (sim_rl_env_reset_with_seed (env, seeds[i], &error));
      rollout (env, random_agent, rand, FALSE);
      totals[i] = sim_rl_env_get_total_reward (env);
    }
  ck_assert (totals[0] == totals[1]);
  ck_assert (totals[0] != totals[2]);
  g_unlink (path);
}
END_TEST

/* The observation's layout on a known state: the first decision of a run
 * whose first job is known, on a cluster of three nodes. */
START_TEST (test_observation_layout)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_scenario ("fifo", "first-fit");
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 2, 4, NULL, SIM_RL_REWARD_JOBS, &error);
  SimSchedContext *ctx;
  SimJob * const *queue;
  guint n_queue;
  gsize n, nh;
  const float *obs, *high;
  const float *slots, *global;

  ck_assert (sim_rl_env_reset (env, &error));
  obs = sim_rl_env_get_observation (env, &n);
  high = sim_rl_env_get_observation_high (env, &nh);
  ck_assert_uint_eq (n, nh);
  for (gsize i = 0; i < n; i++)
    ck_assert (obs[i] >= 0 && obs[i] <= high[i]);
  ctx = sim_simulation_get_decision (sim_rl_env_get_simulation (env));
  queue = sim_sched_context_get_queue (ctx, &n_queue);
  ck_assert_uint_eq (n_queue, 1);
  ck_assert_float_eq (obs[0], 1);
  ck_assert_float_eq (obs[1], (float) queue[0]->spec.gpus);
  ck_assert_float_eq (obs[2], 1);
  ck_assert_float_eq (obs[3], 0);
  ck_assert_float_eq (obs[4], 0);
  for (guint f = 0; f < SIM_RL_JOB_FEATURES; f++)
    ck_assert_float_eq (obs[SIM_RL_JOB_FEATURES + f], 0);   /* padding */
  slots = obs + 2 * SIM_RL_JOB_FEATURES;
  for (guint s = 0; s < 3; s++)
    {
      ck_assert_float_eq (slots[s * SIM_RL_SLOT_FEATURES], 1);
      ck_assert_float_eq (slots[s * SIM_RL_SLOT_FEATURES + 1], 1);
    }
  ck_assert_float_eq (slots[3 * SIM_RL_SLOT_FEATURES], 0);
  global = slots + 4 * SIM_RL_SLOT_FEATURES;
  ck_assert_uint_eq (global + SIM_RL_GLOBAL_FEATURES + 4 * SIM_RL_SLOT_LINK_FEATURES
                     + SIM_RL_LINK_FEATURES + 4 * SIM_RL_SLOT_POWER_FEATURES
                     + SIM_RL_POWER_FEATURES - obs, n);
  /* No [fabric], no [power]: every link load and power entry is 0. */
  for (const float *l = global + SIM_RL_GLOBAL_FEATURES; l < obs + n; l++)
    ck_assert_float_eq (*l, 0);
  ck_assert_float_eq (global[0], 1);
  ck_assert_float_eq (global[2], 1);
  ck_assert_float_eq (global[3], 0);
  ck_assert_float_eq (global[4], 0);
  /* Start it: without skipping, the decision stays open, the reward is 0
   * and the node it went to (first-fit: node 0 first) has fewer free GPUs. */
  {
    double reward = -1;
    gboolean term, trunc;
    guint gpus = queue[0]->spec.gpus;

    sim_rl_env_set_skip_forced (env, FALSE);
    ck_assert (sim_rl_env_reset (env, &error));
    ck_assert (sim_rl_env_step (env, 0, &reward, &term, &trunc, &error));
    ck_assert (!term && !trunc);
    ck_assert_double_eq (reward, 0);
    obs = sim_rl_env_get_observation (env, &n);
    slots = obs + 2 * SIM_RL_JOB_FEATURES;
    global = slots + 4 * SIM_RL_SLOT_FEATURES;
    ck_assert_float_eq (obs[0], 0);
    ck_assert_float_eq (slots[1], gpus >= 8 ? 0 : (float) (8 - gpus) / 8.0f);
    ck_assert_float_eq (global[0], (float) (24 - gpus) / 24.0f);
    ck_assert_float_eq (global[2], 0);
    ck_assert_float_eq (global[3], 1);
    ck_assert_float_eq (global[4], (float) gpus / 24.0f);
    /* Only wait is possible. */
    {
      const guint8 *mask = sim_rl_env_get_action_mask (env, &n);
      ck_assert (mask[n - 1] == 1);
      for (gsize a = 0; a + 1 < n; a++)
        ck_assert (mask[a] == 0);
    }
  }
  g_unlink (path);
}
END_TEST

/* Bad arguments and misuse are errors that say what is wrong. */
/* Three PCIe-8GPU nodes (two 100G Ethernet NICs each) on one switch, and
 * 16-GPU data-parallel jobs: first-fit puts the first on nodes 0 and 1,
 * and its ring all-reduce crosses between them twice, once each way. */
#define LINK_TEXT \
  "[scenario]\nname = rl-links\nseed = 1\n" \
  "[pool p]\nmodel = PCIe-8GPU\ncount = 3\n" \
  "[fabric]\ntopology = single-switch\nswitch = Spectrum-SN2700\nsharing = %s\n" \
  "[workload]\nsource = synthetic\nrate = 60/h\njobs = 3\n" \
  "[class ring]\nshare = 1\ngpus = 16:1\nduration = exponential(mean=10h)\n" \
  "iteration = 500ms\ngradient = 1GB\n" \
  "[policy]\nqueue = fifo\nplacement = first-fit\n"

/* The link loads appended to the observation: 0 before any job
 * communicates and while the start is still in the open decision, then
 * what the ring's flows give by hand. */
START_TEST (test_link_load)
{
  g_autoptr(GError) error = NULL;
  const char *sharing = _i == 0 ? "always-on" : "demand";
  g_autofree char *text = g_strdup_printf (LINK_TEXT, sharing);
  g_autofree char *path = NULL;
  g_autoptr(SimRlEnv) env = NULL;
  int fd = g_file_open_tmp ("check-rl-XXXXXX.ini", &path, &error);
  const guint window = 2, slots = 4;
  const gsize links_at = window * SIM_RL_JOB_FEATURES + slots * SIM_RL_SLOT_FEATURES
                         + SIM_RL_GLOBAL_FEATURES;
  const gsize links_end = links_at + slots * SIM_RL_SLOT_LINK_FEATURES + SIM_RL_LINK_FEATURES;
  const float *obs, *high, *links;
  double reward;
  gboolean term, trunc;
  gsize n, nh;

  ck_assert_msg (fd >= 0, "%s", error ? error->message : "");
  close (fd);
  ck_assert (g_file_set_contents (path, text, -1, &error));
  env = sim_rl_env_new (path, NULL, window, slots, NULL, SIM_RL_REWARD_JOBS, &error);
  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_rl_env_get_observation_size (env),
                     links_end + slots * SIM_RL_SLOT_POWER_FEATURES + SIM_RL_POWER_FEATURES);
  sim_rl_env_set_skip_forced (env, FALSE);
  ck_assert_msg (sim_rl_env_reset (env, &error), "%s", error ? error->message : "");
  obs = sim_rl_env_get_observation (env, &n);
  high = sim_rl_env_get_observation_high (env, &nh);
  ck_assert_uint_eq (n, nh);
  for (gsize i = links_at; i < links_end; i++)
    {
      ck_assert_float_eq (high[i], 1);
      ck_assert_float_eq (obs[i], 0);
    }
  /* Start the first job: counted from the next step. */
  ck_assert (sim_rl_env_step (env, 0, &reward, &term, &trunc, &error));
  obs = sim_rl_env_get_observation (env, &n);
  for (gsize i = links_at; i < links_end; i++)
    ck_assert_float_eq (obs[i], 0);
  ck_assert (sim_rl_env_step (env, sim_rl_env_get_wait_action (env), &reward, &term, &trunc,
                              &error));
  ck_assert (!term && !trunc);
  obs = sim_rl_env_get_observation (env, &n);
  links = obs + links_at;
  ck_assert_float_eq (obs[window * SIM_RL_JOB_FEATURES + slots * SIM_RL_SLOT_FEATURES + 3], 1);
  for (gsize i = links_at; i < links_end; i++)
    ck_assert (obs[i] >= 0 && obs[i] <= high[i]);
  /* Nodes 0 and 1 send and receive through both their NICs: the job's
   * all-reduce is a ring (NCCL's choice for this shape) of two channels,
   * each crossing between the nodes twice, three of the four crossings
   * of a node on one of its NICs (in and out) and one on the other; node 2
   * is idle and slot 3 holds no node.  The network has six links (a NIC
   * each to the switch), four of them in use. */
  ck_assert_float_gt (links[0], 0);
  ck_assert_float_eq_tol (links[1], links[0], 1e-6);
  ck_assert_float_eq (links[2], 0);
  ck_assert_float_eq (links[3], 0);
  ck_assert_float_eq_tol (links[4], links[0], 1e-6);
  if (_i == 0)
    {
      /* Always-on: each crossing flow is uncapped and alone on its NIC's
       * direction, and the NIC (100 Gb/s x 0.976 = 12.2 GB/s) is slower
       * than the PCIe Gen4 links (31.5 GB/s x 0.9 = 28.35 GB/s) on its
       * way: it fills the NIC, whose load is 1. */
      ck_assert_float_eq_tol (links[4], 1, 1e-6);
      ck_assert_float_eq_tol (links[5], 4.0f / 6, 1e-6);
    }
  else
    {
      /* Demand-aware: the job alone asks what its iterations need on
       * average, less than the NIC carries; the NIC with two crossings in
       * one direction carries twice what the other does, so the four
       * links hold 1 + 1/2 + 1 + 1/2 of the busiest one's load. */
      ck_assert_float_lt (links[4], 1);
      ck_assert_float_eq_tol (links[5], links[4] * 3 / 6, 1e-6);
    }
  g_unlink (path);
}
END_TEST

START_TEST (test_errors)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_scenario ("fifo", "first-fit");
  const char *bad[] = { "first-fit", "frist-fit", NULL };
  const char *none[] = { NULL };
  g_autoptr(SimRlEnv) env = NULL;
  double reward;
  gboolean term, trunc;

  ck_assert_ptr_null (sim_rl_env_new (path, NULL, SIM_RL_MAX_WINDOW + 1, 4, NULL,
                                      SIM_RL_REWARD_JOBS, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "window") != NULL);
  g_clear_error (&error);
  ck_assert_ptr_null (sim_rl_env_new (path, NULL, 4, SIM_RL_MAX_SLOTS + 1, NULL,
                                      SIM_RL_REWARD_JOBS, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  g_clear_error (&error);
  ck_assert_ptr_null (sim_rl_env_new (path, NULL, 4, 4, none, SIM_RL_REWARD_JOBS, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  g_clear_error (&error);
  ck_assert_ptr_null (sim_rl_env_new (path, NULL, 4, 4, bad, SIM_RL_REWARD_JOBS, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
  ck_assert_msg (strstr (error->message, "placement 1") != NULL &&
                 strstr (error->message, "frist-fit") != NULL, "%s", error->message);
  g_clear_error (&error);
  ck_assert_ptr_null (sim_rl_env_new ("/nonexistent/s.ini", NULL, 4, 4, NULL,
                                      SIM_RL_REWARD_JOBS, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
  g_clear_error (&error);

  env = sim_rl_env_new (path, NULL, 4, 4, NULL, SIM_RL_REWARD_JOBS, &error);
  ck_assert (env != NULL);
  ck_assert (!sim_rl_env_step (env, 0, &reward, &term, &trunc, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  ck_assert (strstr (error->message, "reset") != NULL);
  g_clear_error (&error);
  ck_assert (sim_rl_env_reset (env, &error));
  ck_assert (!sim_rl_env_step (env, 9, &reward, &term, &trunc, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "out of range") != NULL);
  g_clear_error (&error);
  /* Window slot 3 is empty at the first decision (one job waits). */
  ck_assert (!sim_rl_env_step (env, 6, &reward, &term, &trunc, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert_msg (strstr (error->message, "slot is empty") != NULL, "%s", error->message);
  g_clear_error (&error);
  rollout (env, head_agent, NULL, FALSE);
  ck_assert (!sim_rl_env_step (env, 8, &reward, &term, &trunc, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  ck_assert (strstr (error->message, "has ended") != NULL);
  g_unlink (path);
}
END_TEST

/* A horizon that cuts the run short truncates the episode. */
START_TEST (test_truncated_by_horizon)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_scenario ("fifo", "first-fit");
  const char *overrides[] = { "scenario.horizon=20h", NULL };
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, overrides, 4, 4, NULL, SIM_RL_REWARD_JOBS,
                                            &error);
  gboolean term = FALSE, trunc = FALSE;
  double reward;

  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert (sim_rl_env_reset (env, &error));
  while (!term && !trunc)
    ck_assert (sim_rl_env_step (env, head_agent (env, NULL), &reward, &term, &trunc, &error));
  ck_assert (trunc && !term);
  g_unlink (path);
}
END_TEST

/* A one-node scenario (8 GPUs) over a native trace of 8-GPU jobs, all
 * submitted at 0, which run one after another in trace order. */
static char *
write_tiny (const char *dir, const char *trace, const char *rl)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *trace_path = g_build_filename (dir, "tiny.csv", NULL);
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = tiny\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
    "[workload]\nsource = native\ntrace = tiny.csv\n%s", rl);
  char *path = g_build_filename (dir, "tiny.ini", NULL);

  ck_assert (g_file_set_contents (trace_path, trace, -1, &error));
  ck_assert (g_file_set_contents (path, text, -1, &error));
  return path;
}

/* The head agent's episode return. */
static double
head_return (const char *path, const char * const *overrides, SimRlReward reward)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, overrides, 0, 0, NULL, reward, &error);

  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_rl_env_reset (env, &error), "%s", error ? error->message : "");
  rollout (env, head_agent, NULL, FALSE);
  return sim_rl_env_get_total_reward (env);
}

#define LONG_FIRST "id,submit,duration,gpus\n1,0,3600,8\n2,0,1800,8\n3,0,5,8\n"
#define SHORT_FIRST "id,submit,duration,gpus\n1,0,1800,8\n2,0,3600,8\n"

/* The slowdown reward's closed form, worked by hand: FIFO runs the jobs
 * one after another, each as long as its duration. */
START_TEST (test_slowdown_closed_form)
{
  g_autofree char *dir = g_dir_make_tmp ("check-rl-XXXXXX", NULL);
  g_autofree char *path = write_tiny (dir, LONG_FIRST, "");
  g_autofree char *path2 = NULL;
  double r;

  /* JCTs 3600 s, 5400 s and 5405 s over d = 3600 s, 1800 s and the 10 s
   * bound (the 5 s job): 1 + 3 + 540.5. */
  r = head_return (path, NULL, SIM_RL_REWARD_SLOWDOWN);
  ck_assert_double_eq_tol (r, -(1.0 + 3.0 + 540.5), 1e-9);
  /* The same run by the other rewards: 1 + 1.5 + 5405/3600 job-hours, and
   * the node busy for all of its 5405 s. */
  r = head_return (path, NULL, SIM_RL_REWARD_JOBS);
  ck_assert_double_eq_tol (r, -(1.0 + 1.5 + 5405.0 / 3600), 1e-9);
  r = head_return (path, NULL, SIM_RL_REWARD_UTILIZATION);
  ck_assert_double_eq_tol (r, 5405.0 / 3600, 1e-9);

  /* The short job first: 1 + 5400 / 3600 rather than 3 + 1. */
  path2 = write_tiny (dir, SHORT_FIRST, "");
  r = head_return (path2, NULL, SIM_RL_REWARD_SLOWDOWN);
  ck_assert_double_eq_tol (r, -2.5, 1e-9);
  g_unlink (path);
  g_unlink (path2);
  {
    g_autofree char *trace = g_build_filename (dir, "tiny.csv", NULL);
    g_unlink (trace);
  }
  g_rmdir (dir);
}
END_TEST

/* [rl] sets up the environment; explicit arguments win over it. */
START_TEST (test_rl_section)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("check-rl-XXXXXX", NULL);
  g_autofree char *path = write_tiny (dir, LONG_FIRST,
                                      "[rl]\nreward = slowdown\nwindow = 3\nnode_slots = 2\n"
                                      "placements = best-fit\n");
  const char *jobs[] = { "rl.reward=jobs", NULL };
  const char *util[] = { "rl.reward=utilization", NULL };
  const char *first[] = { "first-fit", "packing", NULL };
  g_autoptr(SimRlEnv) env = NULL;
  g_autofree char *trace = g_build_filename (dir, "tiny.csv", NULL);

  /* The scenario's reward, and another through an override. */
  ck_assert_double_eq_tol (head_return (path, NULL, SIM_RL_REWARD_SCENARIO), -544.5, 1e-9);
  ck_assert_double_eq_tol (head_return (path, jobs, SIM_RL_REWARD_SCENARIO),
                           -(2.5 + 5405.0 / 3600), 1e-9);
  ck_assert_double_eq_tol (head_return (path, util, SIM_RL_REWARD_SCENARIO), 5405.0 / 3600,
                           1e-9);
  /* An explicit reward wins over the scenario's. */
  ck_assert_double_eq_tol (head_return (path, NULL, SIM_RL_REWARD_JOBS),
                           -(2.5 + 5405.0 / 3600), 1e-9);

  env = sim_rl_env_new (path, NULL, 0, 0, NULL, SIM_RL_REWARD_SCENARIO, &error);
  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_rl_env_get_window (env), 3);
  ck_assert_uint_eq (sim_rl_env_get_node_slots (env), 2);
  ck_assert_uint_eq (sim_rl_env_get_n_placements (env), 1);
  ck_assert_str_eq (sim_rl_env_get_placement_name (env, 0), "best-fit");
  ck_assert_uint_eq (sim_rl_env_get_n_actions (env), 3 * 1 + 1);
  g_clear_object (&env);
  env = sim_rl_env_new (path, NULL, 5, 4, first, SIM_RL_REWARD_SCENARIO, &error);
  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_rl_env_get_window (env), 5);
  ck_assert_uint_eq (sim_rl_env_get_node_slots (env), 4);
  ck_assert_uint_eq (sim_rl_env_get_n_actions (env), 5 * 2 + 1);
  g_clear_object (&env);
  g_unlink (path);
  g_free (path);

  /* Without [rl]: the defaults. */
  path = write_tiny (dir, LONG_FIRST, "");
  env = sim_rl_env_new (path, NULL, 0, 0, NULL, SIM_RL_REWARD_SCENARIO, &error);
  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_rl_env_get_window (env), SIM_RL_DEFAULT_WINDOW);
  ck_assert_uint_eq (sim_rl_env_get_node_slots (env), SIM_RL_DEFAULT_SLOTS);
  ck_assert_uint_eq (sim_rl_env_get_n_placements (env), 2);
  ck_assert_double_eq_tol (head_return (path, NULL, SIM_RL_REWARD_SCENARIO),
                           -(2.5 + 5405.0 / 3600), 1e-9);
  g_unlink (path);
  g_unlink (trace);
  g_rmdir (dir);
}
END_TEST

/* Bad [rl] keys and values: the file, the line, the key, what is expected. */
START_TEST (test_rl_section_errors)
{
  static const struct {
    const char *rl;
    const char *want[4];
  } cases[] = {
    { "reward = slowdwn\n", { "tiny.ini:10: [rl] reward:", "did you mean \"slowdown\"",
                              "jobs, slowdown, utilization, energy or cost", NULL } },
    { "reward = energy\n", { "tiny.ini:10: [rl] reward:", "power model", NULL } },
    { "windw = 4\n", { "tiny.ini:10: [rl] windw:", "did you mean \"window\"", "node_slots",
                       NULL } },
    { "window = 0\n", { "tiny.ini:10: [rl] window:", NULL } },
    { "node_actions = maybe\n", { "tiny.ini:10: [rl] node_actions:", "true or false", NULL } },
    { "placements = first-fit, frist-fit\n",
      { "tiny.ini:10: [rl] placements:", "placement 1", "frist-fit", NULL } },
  };
  g_autofree char *dir = g_dir_make_tmp ("check-rl-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "tiny.csv", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *rl = g_strdup_printf ("[rl]\n%s", cases[i].rl);
      g_autofree char *path = write_tiny (dir, LONG_FIRST, rl);
      g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 0, 0, NULL, SIM_RL_REWARD_SCENARIO,
                                                &error);
      ck_assert_ptr_null (env);
      ck_assert (error != NULL);
      for (guint w = 0; cases[i].want[w] != NULL; w++)
        ck_assert_msg (strstr (error->message, cases[i].want[w]) != NULL,
                       "case %u: \"%s\" not in: %s", i, cases[i].want[w], error->message);
      g_unlink (path);
    }
  g_unlink (trace);
  g_rmdir (dir);
}
END_TEST

/* The window slot holding a job asking for GPUS GPUs of SHARE each, or -1. */
static int
find_window_job (SimRlEnv *env, float gpus, float share)
{
  gsize n;
  const float *obs = sim_rl_env_get_observation (env, &n);

  for (guint k = 0; k < sim_rl_env_get_window (env); k++)
    if (obs[k * SIM_RL_JOB_FEATURES] == 1 && obs[k * SIM_RL_JOB_FEATURES + 1] == gpus &&
        obs[k * SIM_RL_JOB_FEATURES + 2] == share)
      return (int) k;
  return -1;
}

/* Node actions put a job on the node of the slot chosen, and the mask
 * rules them out where it does not fit. */
START_TEST (test_node_actions)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("check-rl-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "tiny.csv", NULL);
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  const char *first_fit[] = { "first-fit", NULL };
  g_autoptr(SimRlEnv) env = NULL;
  const SimCluster *cluster;
  const guint8 *mask;
  gsize n;
  double reward;
  gboolean term = FALSE, trunc = FALSE;
  int k4, k8, kf;
  guint node_base, w = 3, s_count = 2;

  text = g_strdup_printf ("[scenario]\nname = tiny\n[pool a]\nmodel = DGX-A100\ncount = 2\n"
                          "[workload]\nsource = native\ntrace = tiny.csv\n"
                          "[rl]\nnode_actions = true\n");
  path = g_build_filename (dir, "tiny.ini", NULL);
  ck_assert (g_file_set_contents (path, text, -1, &error));
  ck_assert (g_file_set_contents (trace, "id,submit,duration,gpus,gpu_milli\n"
                                  "1,0,3600,4,1000\n2,0,3600,8,1000\n3,0,3600,1,500\n", -1,
                                  &error));
  env = sim_rl_env_new (path, NULL, w, s_count, first_fit, SIM_RL_REWARD_JOBS, &error);
  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert (sim_rl_env_get_node_actions (env));
  node_base = sim_rl_env_get_first_node_action (env);
  ck_assert_uint_eq (node_base, w * 1);
  ck_assert_uint_eq (sim_rl_env_get_n_actions (env), w * 1 + w * s_count + 1);
  ck_assert_uint_eq (sim_rl_env_get_wait_action (env), w + w * s_count);
  ck_assert_msg (sim_rl_env_reset (env, &error), "%s", error ? error->message : "");
  k4 = find_window_job (env, 4, 1);
  k8 = find_window_job (env, 8, 1);
  kf = find_window_job (env, 1, 0.5f);
  ck_assert (k4 >= 0 && k8 >= 0 && kf >= 0);
  mask = sim_rl_env_get_action_mask (env, &n);
  /* Every job fits either node; the fractional job takes no node action. */
  for (guint s = 0; s < s_count; s++)
    {
      ck_assert_uint_eq (mask[node_base + k4 * s_count + s], 1);
      ck_assert_uint_eq (mask[node_base + k8 * s_count + s], 1);
      ck_assert_uint_eq (mask[node_base + kf * s_count + s], 0);
    }
  ck_assert_uint_eq (mask[kf], 1);  /* first-fit places it */
  {
    g_autofree char *what = sim_rl_env_describe_action (env, node_base + k4 * s_count + 1);
    ck_assert_msg (strstr (what, "at node slot 1") != NULL, "%s", what);
  }
  ck_assert (!sim_rl_env_step (env, node_base + kf * s_count, &reward, &term, &trunc, &error));
  ck_assert_msg (strstr (error->message, "whole-GPU jobs only") != NULL, "%s", error->message);
  g_clear_error (&error);

  /* The 4-GPU job on node 1 (slot 1): node 1's GPUs 0 to 3. */
  ck_assert (sim_rl_env_step (env, node_base + k4 * s_count + 1, &reward, &term, &trunc,
                              &error));
  cluster = sim_simulation_get_cluster (sim_rl_env_get_simulation (env));
  ck_assert_uint_eq (sim_cluster_get_node (cluster, 0)->free_gpus, 8);
  ck_assert_uint_eq (sim_cluster_get_node (cluster, 1)->free_gpus, 4);
  for (guint g = 0; g < 8; g++)
    ck_assert_uint_eq (sim_cluster_get_gpu (cluster, 8 + g)->n_tenants, g < 4 ? 1 : 0);
  {
    gsize on;
    const float *obs = sim_rl_env_get_observation (env, &on);
    const float *slots = obs + w * SIM_RL_JOB_FEATURES;
    ck_assert_float_eq (slots[1], 1.0f);
    ck_assert_float_eq (slots[SIM_RL_SLOT_FEATURES + 1], 0.5f);
  }

  /* The 8-GPU job no longer fits node 1: masked, refused; node 0 takes it. */
  k8 = find_window_job (env, 8, 1);
  ck_assert (k8 >= 0);
  mask = sim_rl_env_get_action_mask (env, &n);
  ck_assert_uint_eq (mask[node_base + k8 * s_count + 1], 0);
  ck_assert_uint_eq (mask[node_base + k8 * s_count + 0], 1);
  ck_assert (!sim_rl_env_step (env, node_base + k8 * s_count + 1, &reward, &term, &trunc,
                               &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert_msg (strstr (error->message, "no node of that slot has room") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
  ck_assert (sim_rl_env_step (env, node_base + k8 * s_count, &reward, &term, &trunc, &error));
  ck_assert_uint_eq (sim_cluster_get_node (cluster, 0)->free_gpus, 0);
  ck_assert_uint_eq (sim_cluster_get_node (cluster, 1)->free_gpus, 4);
  ck_assert_msg (sim__kernel_check_state (sim_rl_env_get_simulation (env), &error), "%s",
                 error ? error->message : "");
  /* The rest of the episode runs as usual. */
  while (!term && !trunc)
    ck_assert (sim_rl_env_step (env, head_agent (env, NULL), &reward, &term, &trunc, &error));
  ck_assert (term);
  g_clear_object (&env);

  /* Off by default; an override turns them on. */
  g_free (text);
  text = g_strdup_printf ("[scenario]\nname = tiny\n[pool a]\nmodel = DGX-A100\ncount = 2\n"
                          "[workload]\nsource = native\ntrace = tiny.csv\n");
  ck_assert (g_file_set_contents (path, text, -1, &error));
  env = sim_rl_env_new (path, NULL, w, s_count, first_fit, SIM_RL_REWARD_JOBS, &error);
  ck_assert (!sim_rl_env_get_node_actions (env));
  ck_assert_uint_eq (sim_rl_env_get_n_actions (env), w + 1);
  g_clear_object (&env);
  {
    const char *on[] = { "rl.node_actions=true", NULL };
    env = sim_rl_env_new (path, on, w, s_count, first_fit, SIM_RL_REWARD_JOBS, &error);
    ck_assert (sim_rl_env_get_node_actions (env));
    ck_assert_uint_eq (sim_rl_env_get_n_actions (env), w + w * s_count + 1);
  }
  g_unlink (path);
  g_unlink (trace);
  g_rmdir (dir);
}
END_TEST

/* A random agent over node actions too keeps the simulation's state sound
 * and its rewards add up to the report's completion times. */
START_TEST (test_node_actions_random)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_scenario ("fifo", "first-fit");
  const char *on[] = { "rl.node_actions=true", NULL };
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, on, 4, 3, NULL, SIM_RL_REWARD_JOBS, &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  guint64 node_starts = 0;
  gboolean term = FALSE, trunc = FALSE;
  double reward, sum = 0;

  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert (sim_rl_env_reset (env, &error));
  while (!term && !trunc)
    {
      gsize n;
      const guint8 *mask = sim_rl_env_get_action_mask (env, &n);
      g_autofree guint *allowed = g_new (guint, n);
      guint m = 0, action;
      for (guint a = 0; a < n; a++)
        if (mask[a])
          allowed[m++] = a;
      ck_assert_uint_gt (m, 0);
      action = allowed[g_rand_int_range (rand, 0, (gint32) m)];
      node_starts += action >= sim_rl_env_get_first_node_action (env) &&
                     action != sim_rl_env_get_wait_action (env);
      ck_assert_msg (sim_rl_env_step (env, action, &reward, &term, &trunc, &error),
                     "action %u: %s", action, error ? error->message : "");
      sum += reward;
      ck_assert_msg (sim__kernel_check_state (sim_rl_env_get_simulation (env), &error),
                     "%s", error ? error->message : "");
    }
  ck_assert (term);
  ck_assert_uint_gt (node_starts, 10);
  ck_assert_double_eq_tol (-sum * 3600,
                           metric (sim_simulation_get_report (sim_rl_env_get_simulation (env)),
                                   "jct_mean")
                             * metric (sim_simulation_get_report (sim_rl_env_get_simulation (env)),
                                       "jobs_completed"),
                           1e-6 * fabs (sum * 3600));
  g_unlink (path);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Energy and cost rewards, power in the observation.                        */

/* DGX-A100 at the wall (models/nodes/dgx-a100.ini, models/gpus/
 * a100-sxm-40gb.ini): memory 149 W, 8 NICs of 20 W, other parts 710 W
 * (the NVSwitch-gen2 model has no power of its own), CPUs 145 to 450 W, fans
 * 24 to 878 W, GPUs 50 to 400 W, behind power supplies of 0.94.  At full
 * load (every GPU busy at full clock, CPUs and fans at their maximum) and
 * idle, W: */
#define A100_FULL_W ((8 * 400.0 + 149 + 8 * 20 + 710 + 450 + 878) / 0.94)
#define A100_IDLE_W ((8 * 50.0 + 149 + 8 * 20 + 710 + 145 + 24) / 0.94)
/* The same for DGX-H100 (GPUs 69 to 700 W, memory 297 W, other 590 W, CPUs
 * 225 to 700 W, fans 37 to 1380 W). */
#define H100_FULL_W ((8 * 700.0 + 297 + 8 * 20 + 590 + 700 + 1380) / 0.94)
#define H100_IDLE_W ((8 * 69.0 + 297 + 8 * 20 + 590 + 225 + 37) / 0.94)
/* [power] electrical_efficiency's default: facility = IT / 0.95 without
 * [cooling]. */
#define ELECTRICAL 0.95
/* Straight-line over the default 5 years of 365.25 days, h. */
#define AMORTIZATION_H (5 * 365.25 * 24)

/* The base scenario (two DGX A100, one DGX H100, 250 jobs) with EXTRA
 * sections. */
static char *
write_power_scenario (const char *dir, const char *extra)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *base = g_strdup_printf (BASE_TEXT, "fifo", "first-fit");
  g_autofree char *text = g_strconcat (base, extra, NULL);
  char *path = g_build_filename (dir, "power.ini", NULL);

  ck_assert (g_file_set_contents (path, text, -1, &error));
  return path;
}

/* Energy, cost and jobs rewards in lockstep, with the same random agent:
 * the same run whatever the reward; the energy rewards add up to minus the
 * report's facility energy, the cost rewards to minus its TCO (energy cost,
 * amortized capex, maintenance); with a flat price each step's cost is its
 * energy at the price plus the fixed cost per hour over its time.  _i = 1:
 * with air cooling (facility power above IT / 0.95) and a time-of-use price
 * that changes every 90 minutes, mostly between events. */
START_TEST (test_energy_cost_rewards)
{
  static const SimRlReward kinds[3] = { SIM_RL_REWARD_ENERGY, SIM_RL_REWARD_COST,
                                        SIM_RL_REWARD_JOBS };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("check-rl-XXXXXX", NULL);
  g_autofree char *prices = g_build_filename (dir, "prices.csv", NULL);
  g_autofree char *path = NULL;
  g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, 3 * sizeof (double));
  g_autoptr(SimReport) fifo = NULL;
  g_autofree char *want = NULL;
  SimRlEnv *envs[3];
  GRand *rands[3];
  double sums[3] = { 0 }, fixed_h, price = 0.12, t0 = 0;
  gboolean done = FALSE;

  ck_assert (g_file_set_contents (prices, "hour,usd_per_kwh\n0,0.08\n1.5,0.21\n3,0.13\n"
                                  "4.5,0.3\n6,0.05\n", -1, &error));
  path = write_power_scenario (dir, _i == 0
                                 ? "[power]\n[cost]\nenergy_price = 0.12\nmaintenance = 4%\n"
                                 : "[power]\n[cooling]\ntype = air\noutdoor_temperature = 25\n"
                                   "[cost]\nenergy_price_file = prices.csv\n"
                                   "maintenance = 4%\nstart_hour = 2\n");
  for (guint k = 0; k < 3; k++)
    {
      envs[k] = sim_rl_env_new (path, NULL, 6, 2, NULL, kinds[k], &error);
      ck_assert_msg (envs[k] != NULL, "%s", error ? error->message : "");
      ck_assert_int_eq (sim_rl_env_get_reward (envs[k]), kinds[k]);
      ck_assert (sim_rl_env_reset_with_seed (envs[k], 41 + _i, &error));
      rands[k] = g_rand_new_with_seed (23);
    }
  while (!done)
    {
      double r[3], row[3], t1;
      for (guint k = 0; k < 3; k++)
        {
          gboolean term, trunc;
          guint action = random_agent (envs[k], rands[k]);
          ck_assert_msg (sim_rl_env_step (envs[k], action, &r[k], &term, &trunc, &error), "%s",
                         error ? error->message : "");
          sums[k] += r[k];
          if (k == 0)
            done = term || trunc;
          else
            ck_assert (done == (term || trunc));
        }
      row[0] = r[0];
      row[1] = r[1];
      /* A step covers the time since the last (the first, since 0). */
      t1 = sim_time_to_seconds (sim_simulation_get_now (sim_rl_env_get_simulation (envs[0])));
      row[2] = t1 - t0;
      t0 = t1;
      g_array_append_val (steps, row);
      /* Energy is drawn whenever time passes; a start takes none. */
      ck_assert (row[2] > 0 ? r[0] < 0 && r[1] < 0 : r[0] == 0 && r[1] == 0);
    }
  {
    g_autofree char *a = report_json (envs[0]), *b = report_json (envs[1]),
                    *c = report_json (envs[2]);
    SimReport *report = sim_simulation_get_report (sim_rl_env_get_simulation (envs[0]));
    double kwh = metric (report, "energy_facility_kwh"), tco = metric (report, "cost_tco");

    ck_assert_str_eq (a, b);
    ck_assert_str_eq (a, c);
    ck_assert_double_eq_tol (-sums[0], kwh, 1e-9 * kwh);
    ck_assert_double_eq_tol (-sums[1], tco, 1e-9 * tco);
    ck_assert_double_eq_tol (tco, metric (report, "cost_energy")
                                  + metric (report, "cost_amortized_capex")
                                  + metric (report, "cost_maintenance"), 1e-9 * tco);
    ck_assert_double_eq_tol (sums[0], sim_rl_env_get_total_reward (envs[0]), 1e-9 * kwh);
    /* The facility draws more than its IT equipment: with cooling, more
     * than the distribution losses alone. */
    ck_assert (_i == 0 ? fabs (kwh - metric (report, "energy_it_kwh") / ELECTRICAL) < 1e-9 * kwh
                       : kwh > metric (report, "energy_it_kwh") / ELECTRICAL * 1.01);
    fixed_h = metric (report, "cost_owning_fixed_per_hour");
    /* Capex: two DGX A100 at 199,000 and a DGX H100 at 270,000 USD; 4 % of
     * it a year for maintenance. */
    ck_assert_double_eq_tol (fixed_h, (2 * 199000.0 + 270000) / AMORTIZATION_H
                                        + (2 * 199000.0 + 270000) * 0.04 / (365.25 * 24),
                             1e-9 * fixed_h);
    if (_i == 0)
      for (guint s = 0; s < steps->len; s++)
        {
          const double *row = &g_array_index (steps, double, 3 * s);
          double want_cost = row[0] * price - fixed_h * row[2] / 3600;
          ck_assert_msg (fabs (row[1] - want_cost) <= 1e-9 * MAX (1e-6, fabs (want_cost)),
                         "step %u: cost %.15g, energy %.15g x %g - %.15g USD/h x %g s = %.15g",
                         s, row[1], row[0], price, fixed_h, row[2], want_cost);
        }
    else
      {
        /* Time of use: the mean price paid is one of the schedule's
         * averages, not the flat 0.12 nor any single price. */
        static const double singles[] = { 0.08, 0.21, 0.13, 0.3, 0.05 };
        double mean = metric (report, "cost_energy") / metric (report, "cost_energy_kwh");
        ck_assert (mean > 0.05 && mean < 0.3 && fabs (mean - 0.12) > 1e-3);
        for (guint p = 0; p < G_N_ELEMENTS (singles); p++)
          ck_assert_msg (fabs (mean - singles[p]) > 1e-3, "mean price %g: the price of one row",
                         mean);
      }
  }
  /* The head agent on the power and cost scenario is still FIFO/first-fit:
   * reading the power for the observation leaves the run as it was. */
  fifo = run_policy (path);
  want = sim_report_to_json (fifo, FALSE);
  {
    g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 4, 8, NULL, SIM_RL_REWARD_COST,
                                              &error);
    g_autofree char *got = NULL;
    ck_assert (env != NULL);
    ck_assert (sim_rl_env_reset (env, &error));
    rollout (env, head_agent, NULL, FALSE);
    got = report_json (env);
    ck_assert_str_eq (got, want);
  }
  for (guint k = 0; k < 3; k++)
    {
      g_object_unref (envs[k]);
      g_rand_free (rands[k]);
    }
  g_unlink (path);
  g_unlink (prices);
  g_rmdir (dir);
}
END_TEST

/* The energy and cost rewards on the three-job run worked by hand: the
 * node busy at full load for all of its 5405 s (whole GPUs, compute-bound
 * jobs alone on them), at a flat price and at a daily price that changes
 * at 00:30, inside the first step. */
START_TEST (test_energy_cost_closed_form)
{
  g_autofree char *dir = g_dir_make_tmp ("check-rl-XXXXXX", NULL);
  g_autofree char *prices = g_build_filename (dir, "prices.csv", NULL);
  g_autofree char *trace = g_build_filename (dir, "tiny.csv", NULL);
  g_autofree char *path = write_tiny (dir, LONG_FIRST, "[power]\n[cost]\nenergy_price = 0.1\n");
  const double facility_w = A100_FULL_W / ELECTRICAL;
  const double kwh = facility_w * 5405 / 3.6e6;
  const double fixed = 199000.0 / AMORTIZATION_H * 5405 / 3600;
  double r;

  r = head_return (path, NULL, SIM_RL_REWARD_ENERGY);
  ck_assert_msg (fabs (r + kwh) < 1e-9 * kwh, "%.15g, want %.15g", r, -kwh);
  r = head_return (path, NULL, SIM_RL_REWARD_COST);
  ck_assert_msg (fabs (r + (0.1 * kwh + fixed)) < 1e-9 * kwh, "%.15g", r);
  /* The jobs reward is unchanged by the power model. */
  ck_assert_double_eq_tol (head_return (path, NULL, SIM_RL_REWARD_JOBS),
                           -(1.0 + 1.5 + 5405.0 / 3600), 1e-9);

  /* Time of use: 0.10 until 00:30, then 0.30. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *text = NULL;
    g_autoptr(SimRlEnv) env = NULL;
    double first = 0;
    gboolean term = FALSE, trunc = FALSE;

    ck_assert (g_file_set_contents (prices, "hour,usd_per_kwh\n0,0.10\n0.5,0.30\n", -1, &error));
    text = g_strdup_printf ("[scenario]\nname = tiny\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                            "[workload]\nsource = native\ntrace = tiny.csv\n[power]\n[cost]\n"
                            "energy_price_file = prices.csv\n");
    ck_assert (g_file_set_contents (path, text, -1, &error));
    env = sim_rl_env_new (path, NULL, 0, 0, NULL, SIM_RL_REWARD_COST, &error);
    ck_assert_msg (env != NULL, "%s", error ? error->message : "");
    ck_assert (sim_rl_env_reset (env, &error));
    /* The first step that takes time covers [0, 3600 s]: half an hour at
     * each price. */
    while (first == 0)
      {
        ck_assert (sim_rl_env_step (env, head_agent (env, NULL), &first, &term, &trunc, &error));
        ck_assert (!term);
      }
    ck_assert_uint_eq (sim_simulation_get_now (sim_rl_env_get_simulation (env)),
                       3600 * SIM_SECOND);
    r = -(facility_w * 1800 * (0.10 + 0.30) / 3.6e6 + 199000.0 / AMORTIZATION_H);
    ck_assert_msg (fabs (first - r) < 1e-9 * fabs (r), "%.15g, want %.15g", first, r);
    while (!term && !trunc)
      ck_assert (sim_rl_env_step (env, head_agent (env, NULL), &first, &term, &trunc, &error));
    ck_assert (term);
    r = -(facility_w * (1800 * 0.10 + 3605 * 0.30) / 3.6e6 + fixed);
    ck_assert_msg (fabs (sim_rl_env_get_total_reward (env) - r) < 1e-9 * fabs (r),
                   "%.15g, want %.15g", sim_rl_env_get_total_reward (env), r);
  }
  g_unlink (path);
  g_unlink (prices);
  g_unlink (trace);
  g_rmdir (dir);
}
END_TEST

/* The power part of the observation: 0 without [power]; with it, each
 * slot's draw over its full load and the cluster's, as the power model
 * gives them and as the catalogue's figures give them by hand. */
START_TEST (test_power_observation)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("check-rl-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "tiny.csv", NULL);
  g_autofree char *path = NULL;
  g_autoptr(SimRlEnv) env = NULL;
  const guint w = 2, s_count = 4;
  const gsize power_at = w * SIM_RL_JOB_FEATURES + s_count * SIM_RL_SLOT_FEATURES
                         + SIM_RL_GLOBAL_FEATURES + s_count * SIM_RL_SLOT_LINK_FEATURES
                         + SIM_RL_LINK_FEATURES;
  const double full = 2 * A100_FULL_W + H100_FULL_W;
  const float *obs, *high, *slot, *glob;
  SimSimulation *sim;
  double reward, it_w, facility_w, sum;
  gboolean term, trunc;
  gsize n, nh;

  /* Nodes 0 and 1 are DGX A100, node 2 a DGX H100; slot 3 is padding. */
  ck_assert (g_file_set_contents (trace, "id,submit,duration,gpus\n1,0,3600,8\n2,0,3600,4\n"
                                  "3,1800,600,1\n", -1, &error));
  path = g_build_filename (dir, "power.ini", NULL);
  ck_assert (g_file_set_contents (path, "[scenario]\nname = power\n"
                                  "[pool a]\nmodel = DGX-A100\ncount = 2\n"
                                  "[pool b]\nmodel = DGX-H100\ncount = 1\n"
                                  "[workload]\nsource = native\ntrace = tiny.csv\n", -1,
                                  &error));

  /* Without [power]: all 0, at the end of an observation of the same size. */
  env = sim_rl_env_new (path, NULL, w, s_count, NULL, SIM_RL_REWARD_JOBS, &error);
  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_rl_env_get_observation_size (env),
                     power_at + s_count * SIM_RL_SLOT_POWER_FEATURES + SIM_RL_POWER_FEATURES);
  ck_assert (sim_rl_env_reset (env, &error));
  do
    {
      obs = sim_rl_env_get_observation (env, &n);
      for (gsize i = power_at; i < n; i++)
        ck_assert_float_eq (obs[i], 0);
      ck_assert (sim_rl_env_step (env, head_agent (env, NULL), &reward, &term, &trunc, &error));
    }
  while (!term && !trunc);
  g_clear_object (&env);

  /* With [power]. */
  {
    const char *on[] = { "power.enable=true", NULL };
    env = sim_rl_env_new (path, on, w, s_count, NULL, SIM_RL_REWARD_ENERGY, &error);
  }
  ck_assert_msg (env != NULL, "%s", error ? error->message : "");
  sim_rl_env_set_skip_forced (env, FALSE);
  ck_assert (sim_rl_env_reset (env, &error));
  sim = sim_rl_env_get_simulation (env);
  obs = sim_rl_env_get_observation (env, &n);
  high = sim_rl_env_get_observation_high (env, &nh);
  ck_assert_uint_eq (n, nh);
  slot = obs + power_at;
  glob = slot + s_count * SIM_RL_SLOT_POWER_FEATURES;
  ck_assert_uint_eq (glob + SIM_RL_POWER_FEATURES - obs, n);
  for (guint s = 0; s < s_count; s++)
    ck_assert_float_eq (high[power_at + s], 1);
  ck_assert_float_eq (high[n - 3], 1);
  ck_assert_float_eq (high[n - 2], G_MAXFLOAT);
  ck_assert_float_eq (high[n - 1], G_MAXFLOAT);
  for (gsize i = 0; i < n; i++)
    ck_assert (obs[i] >= 0 && obs[i] <= high[i]);
  /* Idle: each node at its idle draw over its full load, by hand and as
   * the power model says. */
  ck_assert_float_eq_tol (slot[0], A100_IDLE_W / A100_FULL_W, 1e-6);
  ck_assert_float_eq_tol (slot[1], A100_IDLE_W / A100_FULL_W, 1e-6);
  ck_assert_float_eq_tol (slot[2], H100_IDLE_W / H100_FULL_W, 1e-6);
  ck_assert_float_eq (slot[3], 0);
  for (guint node = 0; node < 3; node++)
    ck_assert_float_eq_tol (slot[node], sim__kernel_get_node_power (sim, node)
                                          / (node < 2 ? A100_FULL_W : H100_FULL_W), 1e-6);
  ck_assert (sim__kernel_get_power (sim, &it_w, &facility_w));
  ck_assert_double_eq_tol (it_w, 2 * A100_IDLE_W + H100_IDLE_W, 1e-6);
  ck_assert_float_eq_tol (glob[0], (2 * A100_IDLE_W + H100_IDLE_W) / full, 1e-6);
  ck_assert_float_eq_tol (glob[1], (2 * A100_IDLE_W + H100_IDLE_W) / ELECTRICAL / full, 1e-6);
  ck_assert_float_eq_tol (glob[2], 1 / ELECTRICAL, 1e-6);

  /* Start the 8-GPU job with first-fit (node 0): it draws at once. */
  ck_assert_float_eq (obs[1], 8);
  ck_assert (sim_rl_env_step (env, 0, &reward, &term, &trunc, &error));
  ck_assert_double_eq (reward, 0);
  obs = sim_rl_env_get_observation (env, &n);
  slot = obs + power_at;
  glob = slot + s_count * SIM_RL_SLOT_POWER_FEATURES;
  /* Whole GPUs kept busy by compute-bound work: node 0 at full load. */
  ck_assert_float_eq_tol (slot[0], 1, 1e-6);
  ck_assert_float_eq_tol (slot[1], A100_IDLE_W / A100_FULL_W, 1e-6);
  ck_assert_float_gt (slot[0], slot[1]);
  sum = A100_FULL_W + A100_IDLE_W + H100_IDLE_W;
  ck_assert_float_eq_tol (glob[0], sum / full, 1e-6);
  ck_assert_float_eq_tol (glob[1], sum / ELECTRICAL / full, 1e-6);
  /* The 4-GPU job on node 1 too, then wait: half of node 1's GPUs busy. */
  ck_assert_float_eq (obs[1], 4);
  ck_assert (sim_rl_env_step (env, 0, &reward, &term, &trunc, &error));
  ck_assert (sim_rl_env_step (env, sim_rl_env_get_wait_action (env), &reward, &term, &trunc,
                              &error));
  ck_assert (!term && !trunc);
  ck_assert_uint_eq (sim_simulation_get_now (sim), 1800 * SIM_SECOND);
  obs = sim_rl_env_get_observation (env, &n);
  slot = obs + power_at;
  glob = slot + s_count * SIM_RL_SLOT_POWER_FEATURES;
  for (gsize i = 0; i < n; i++)
    ck_assert (obs[i] >= 0 && obs[i] <= high[i]);
  ck_assert_float_eq_tol (slot[0], 1, 1e-6);
  ck_assert_float_gt (slot[1], A100_IDLE_W / A100_FULL_W + 0.1);
  ck_assert_float_lt (slot[1], 1);
  ck_assert_float_eq_tol (slot[1], sim__kernel_get_node_power (sim, 1) / A100_FULL_W, 1e-6);
  ck_assert_float_eq_tol (slot[2], H100_IDLE_W / H100_FULL_W, 1e-6);
  ck_assert (sim__kernel_get_power (sim, &it_w, &facility_w));
  ck_assert_float_eq_tol (glob[0], it_w / full, 1e-6);
  ck_assert_float_eq_tol (glob[1], facility_w / full, 1e-6);
  ck_assert_float_eq_tol (glob[2], facility_w / it_w, 1e-6);
  ck_assert_double_eq_tol (it_w, sim__kernel_get_node_power (sim, 0)
                                 + sim__kernel_get_node_power (sim, 1)
                                 + sim__kernel_get_node_power (sim, 2), 1e-6);
  /* The energy of the step: the three nodes idle but node 0 at full load
   * from 0 to 1800 s, node 1 with its four busy GPUs. */
  ck_assert_double_eq_tol (-reward, (A100_FULL_W + sim__kernel_get_node_power (sim, 1)
                                     + H100_IDLE_W) / ELECTRICAL * 1800 / 3.6e6, 1e-9);
  g_clear_object (&env);

  /* Nodes grouped two to a slot: the slot's draw over the slot's full load. */
  {
    const char *on[] = { "power.enable=true", NULL };
    env = sim_rl_env_new (path, on, w, 2, NULL, SIM_RL_REWARD_ENERGY, &error);
    ck_assert (env != NULL);
    ck_assert (sim_rl_env_reset (env, &error));
    obs = sim_rl_env_get_observation (env, &n);
    slot = obs + n - SIM_RL_POWER_FEATURES - 2 * SIM_RL_SLOT_POWER_FEATURES;
    ck_assert_float_eq_tol (slot[0], A100_IDLE_W / A100_FULL_W, 1e-6);
    ck_assert_float_eq_tol (slot[1], H100_IDLE_W / H100_FULL_W, 1e-6);
  }
  g_unlink (path);
  g_unlink (trace);
  g_rmdir (dir);
}
END_TEST

/* Energy and cost rewards without what they need: errors naming [rl]
 * reward and the section to add, at the scenario's line when it chose. */
START_TEST (test_energy_cost_errors)
{
  static const struct {
    const char *sections;
    SimRlReward reward;
    int code;
    const char *want[4];
  } cases[] = {
    { "[rl]\nreward = energy\n", SIM_RL_REWARD_SCENARIO, SIM_ERROR_MISSING,
      { "tiny.ini:10: [rl] reward:", "energy reward", "add a [power] section", NULL } },
    { "", SIM_RL_REWARD_ENERGY, SIM_ERROR_MISSING,
      { "[rl] reward = energy", "add a [power] section", NULL } },
    { "[cost]\nenergy_price = 0.1\n", SIM_RL_REWARD_COST, SIM_ERROR_MISSING,
      { "[rl] reward = cost", "add a [power] section", "fixed owning cost", NULL } },
    { "[rl]\nreward = cost\n", SIM_RL_REWARD_SCENARIO, SIM_ERROR_MISSING,
      { "tiny.ini:10: [rl] reward:", "[power] section", "and a [cost] section", NULL } },
    { "[power]\n", SIM_RL_REWARD_COST, SIM_ERROR_MISSING,
      { "[rl] reward = cost", "add a [cost] section", NULL } },
    { "[power]\nenable = false\n[rl]\nreward = energy\n", SIM_RL_REWARD_SCENARIO,
      SIM_ERROR_MISSING, { "[rl] reward:", "[power]", NULL } },
    { "[power]\n[cost]\ncapacity_basis = peak\n", SIM_RL_REWARD_COST, SIM_ERROR_INVALID,
      { "tiny.ini:11: [cost] capacity_basis:", "expected capacity_basis = rated", NULL } },
  };
  g_autofree char *dir = g_dir_make_tmp ("check-rl-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "tiny.csv", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *path = write_tiny (dir, LONG_FIRST, cases[i].sections);
      g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 0, 0, NULL, cases[i].reward, &error);
      ck_assert_ptr_null (env);
      ck_assert_msg (g_error_matches (error, SIM_ERROR, cases[i].code), "case %u: %s", i,
                     error ? error->message : "");
      for (guint w = 0; cases[i].want[w] != NULL; w++)
        ck_assert_msg (strstr (error->message, cases[i].want[w]) != NULL,
                       "case %u: \"%s\" not in: %s", i, cases[i].want[w], error->message);
      g_unlink (path);
    }
  /* The energy reward with [power] but without [cost], and out of range. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *path = write_tiny (dir, LONG_FIRST, "[power]\n[rl]\nreward = energy\n");
    g_autoptr(SimRlEnv) env = sim_rl_env_new (path, NULL, 0, 0, NULL, SIM_RL_REWARD_SCENARIO,
                                              &error);
    ck_assert_msg (env != NULL, "%s", error ? error->message : "");
    ck_assert_int_eq (sim_rl_env_get_reward (env), SIM_RL_REWARD_ENERGY);
    ck_assert_ptr_null (sim_rl_env_new (path, NULL, 0, 0, NULL, SIM_RL_REWARD_COST + 1, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
    ck_assert_msg (strstr (error->message, "(cost)") != NULL, "%s", error->message);
    g_unlink (path);
  }
  g_unlink (trace);
  g_rmdir (dir);
}
END_TEST

static Suite *
rl_suite (void)
{
  Suite *s = suite_create ("rl");
  TCase *tc = tcase_create ("env");

  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_head_agent_is_fifo);
  tcase_add_test (tc, test_greedy_agent_is_greedy_order);
  tcase_add_loop_test (tc, test_head_agent_setup, 0, 2);
  tcase_add_loop_test (tc, test_random_agent, 0, 6);
  tcase_add_test (tc, test_mask_is_exact);
  tcase_add_test (tc, test_reset_determinism);
  tcase_add_test (tc, test_observation_layout);
  tcase_add_loop_test (tc, test_link_load, 0, 2);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_truncated_by_horizon);
  tcase_add_test (tc, test_slowdown_closed_form);
  tcase_add_test (tc, test_rl_section);
  tcase_add_test (tc, test_rl_section_errors);
  tcase_add_test (tc, test_node_actions);
  tcase_add_test (tc, test_node_actions_random);
  tcase_add_loop_test (tc, test_energy_cost_rewards, 0, 2);
  tcase_add_test (tc, test_energy_cost_closed_form);
  tcase_add_test (tc, test_power_observation);
  tcase_add_test (tc, test_energy_cost_errors);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (rl_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
