/* bench-rl.c: the cost of the reinforcement-learning environment in C.
 *
 * On the quick-start scenario (16 x DGX H100, a year unless a horizon
 * is given as argv[1]), it times: the run straight through; the run
 * stopped at every decision and committed by the policy (the stepping
 * itself); the environment stepped by an agent that starts the head of the
 * queue with first-fit (FIFO/first-fit, the same run); and by a random agent
 * following the mask; then the head-of-queue agent again with the power
 * model on ([power], and [cost] at a flat price) and the cost reward, which
 * reads the power for every observation and integrates the energy's cost.
 * It prints steps per second and the cost per step.
 * It never fails on time.
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-args.h"

#define USAGE \
  "usage: bench-rl [HORIZON]\n" \
  "  the cost of the reinforcement-learning environment on the quick-start scenario\n" \
  "  HORIZON: simulated time, such as 30d (default 365d)\n"

static const char *path = SIM_TOP_SRCDIR "/scenarios/quickstart.ini";

static double
now_s (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

static void
print (const char *what, guint64 steps, double seconds)
{
  printf ("%-44s %9" G_GUINT64_FORMAT " steps %8.3f s %10.0f steps/s %7.2f us/step\n", what,
          steps, seconds, steps / seconds, 1e6 * seconds / MAX (steps, 1));
}

static SimSimulation *
new_sim (const char * const *overrides)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (path, overrides, &error);
  SimSimulation *sim = sc ? sim_simulation_new (sc, &error) : NULL;

  if (sim == NULL)
    {
      fprintf (stderr, "bench-rl: %s\n", error->message);
      exit (1);
    }
  return sim;
}

static void
bench_env (const char *what, const char * const *overrides, gboolean random, SimRlReward kind)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimRlEnv) env = sim_rl_env_new (path, overrides, 16, 16, NULL, kind, &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (1);
  gboolean term = FALSE, trunc = FALSE;
  double t0, reward;
  guint64 steps = 0;

  if (env == NULL || !sim_rl_env_reset (env, &error))
    {
      fprintf (stderr, "bench-rl: %s\n", error->message);
      exit (1);
    }
  t0 = now_s ();
  while (!term && !trunc)
    {
      gsize n;
      const guint8 *mask = sim_rl_env_get_action_mask (env, &n);
      guint action = (guint) n - 1;

      if (random)
        {
          guint allowed = 0, pick;
          for (gsize a = 0; a < n; a++)
            allowed += mask[a];
          pick = g_rand_int_range (rand, 0, (gint32) allowed);
          for (gsize a = 0; a < n; a++)
            if (mask[a] && pick-- == 0)
              {
                action = a;
                break;
              }
        }
      else if (mask[0])
        action = 0;
      if (!sim_rl_env_step (env, action, &reward, &term, &trunc, &error))
        {
          fprintf (stderr, "bench-rl: %s\n", error->message);
          exit (1);
        }
      steps++;
    }
  print (what, steps, now_s () - t0);
}

int
main (int argc, char **argv)
{
  bench_args (argc, argv, USAGE, NULL, 1);

  g_autofree char *horizon = g_strdup_printf ("scenario.horizon=%s", argc > 1 ? argv[1] : "365d");
  const char *overrides[] = { horizon, NULL };
  const char *power[] = { horizon, "power.enable=true", "cost.energy_price=0.1", NULL };
  g_autoptr(GError) error = NULL;
  double t0;
  guint64 decisions = 0;

  printf ("quickstart.ini, %s; window 16, 16 node slots, first-fit and best-fit\n", horizon);
  {
    g_autoptr(SimSimulation) sim = new_sim (overrides);
    t0 = now_s ();
    while (sim_simulation_run_to_decision (sim, &error))
      {
        decisions++;
        if (!sim_simulation_decide (sim, TRUE, &error))
          break;
      }
    if (error != NULL)
      {
        fprintf (stderr, "bench-rl: %s\n", error->message);
        return 1;
      }
    print ("decisions, stopped at and made by the policy", decisions, now_s () - t0);
  }
  {
    g_autoptr(SimSimulation) sim = new_sim (overrides);
    t0 = now_s ();
    if (!sim_simulation_run (sim, &error))
      {
        fprintf (stderr, "bench-rl: %s\n", error->message);
        return 1;
      }
    print ("the same run straight through (per decision)", decisions, now_s () - t0);
  }
  bench_env ("env, head-of-queue agent (= fifo/first-fit)", overrides, FALSE, SIM_RL_REWARD_JOBS);
  bench_env ("env, random agent following the mask", overrides, TRUE, SIM_RL_REWARD_JOBS);
  bench_env ("env, head-of-queue, [power], cost reward", power, FALSE, SIM_RL_REWARD_COST);
  return 0;
}
