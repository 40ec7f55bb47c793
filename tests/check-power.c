/* check-power.c: GPU and node power, caps, cooling and energy, end to end.
 *
 * What it checks:
 *  - the cap curve (power/sim-power.h): a GPU capped at P_cap runs at the
 *    clock f = ((P_cap - P_idle) / (P_max - P_idle))^(1/3) and draws at
 *    most its cap; compute-bound work slows by 1/f, memory-bound work
 *    less (s = 1 / ((1 - m) / f + m));
 *  - the power seam the power policies use: a cap set by a timer halfway
 *    through a job slows the rest of it exactly per the curve; activity
 *    and power read per GPU and node; the watch is called after changes;
 *  - bad caps are errors.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include <string.h>

#include "power/sim-power.h"

/* H100 SXM: 700 W TDP, 69 W idle (models/gpus/h100-sxm.ini). */
#define H100_MAX 700.0
#define H100_IDLE 69.0

START_TEST (test_cap_curve)
{
  SimGpuPower h100 = { H100_IDLE, H100_MAX };
  double f = sim_power_clock (&h100, 400, 1.0, 3.0);

  /* Dynamic power at clock f goes as f^3: the cap is met exactly. */
  ck_assert_double_eq_tol (f, cbrt ((400 - H100_IDLE) / (H100_MAX - H100_IDLE)), 1e-12);
  ck_assert_double_eq_tol (sim_power_gpu_draw (&h100, 1.0, f, 3.0), 400, 1e-9);
  /* No cap, a cap at or above the TDP: full clock. */
  ck_assert_double_eq (sim_power_clock (&h100, 0, 1.0, 3.0), 1.0);
  ck_assert_double_eq (sim_power_clock (&h100, 800, 1.0, 3.0), 1.0);
  /* A clock limit wins when lower. */
  ck_assert_double_eq (sim_power_clock (&h100, 0, 0.7, 3.0), 0.7);
  ck_assert_double_eq (sim_power_clock (&h100, 400, 0.5, 3.0), 0.5);
  /* Compute-bound work runs at the clock, memory-bound work not slower. */
  ck_assert_double_eq (sim_power_speed (0.8, 0), 0.8);
  ck_assert_double_eq (sim_power_speed (0.8, 1), 1.0);
  ck_assert_double_eq_tol (sim_power_speed (0.8, 0.5), 1 / (0.5 / 0.8 + 0.5), 1e-15);
  /* Idle and half-busy draws. */
  ck_assert_double_eq (sim_power_gpu_draw (&h100, 0, 1, 3.0), H100_IDLE);
  ck_assert_double_eq_tol (sim_power_gpu_draw (&h100, 0.5, 1, 3.0),
                           H100_IDLE + 0.5 * (H100_MAX - H100_IDLE), 1e-12);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Runs.                                                                     */

/* One DGX H100 and JOBS jobs of 8 GPUs, 1 h each, arriving together; then
 * EXTRA (which may open sections; keys before any go to [class c]). */
static SimScenario *
scenario (guint jobs, const char *extra)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text =
    g_strdup_printf ("[scenario]\nname = power\nseed = 1\n"
                     "[pool a]\nmodel = DGX-H100\ncount = 1\n"
                     "[workload]\nsource = synthetic\nrate = 3600000/h\njobs = %u\n"
                     "[policy]\nqueue = fifo\nplacement = first-fit\n"
                     "[class c]\ngpus = 8\nduration = constant(1h)\n%s\n",
                     jobs, extra);
  SimScenario *sc = sim_scenario_load_from_data (text, -1, "power.ini", NULL, NULL, &error);

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  return sc;
}

static SimSimulation *
simulation (guint jobs, const char *extra)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = scenario (jobs, extra);
  SimSimulation *sim = sim_simulation_new (sc, &error);

  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  return sim;
}

static double
metric (SimSimulation *sim, const char *name)
{
  double v = NAN;

  ck_assert_msg (sim_report_get_value (sim_simulation_get_report (sim), name, &v), "%s", name);
  return v;
}

/* The (one) job's start and end. */
static void
record (SimSimulation *sim, const SimJob *job, gpointer data)
{
  SimTime *t = data;

  if (job->state == SIM_JOB_RUNNING)
    t[0] = job->start;
  else
    t[1] = job->end;
}

/* The end of a 1 h job started at START and slowed to speed S from
 * 1800 s on: the work left then, at S, rounded up as the engine does. */
static SimTime
slowed_end (SimTime start, double s)
{
  SimTime left = SIM_HOUR - (1800 * SIM_SECOND - start);
  return 1800 * SIM_SECOND + (SimTime) ceil ((double) left / s);
}

typedef struct {
  double cap;
  guint  watched;
  double activity, node_w, gpu_w, it_w, facility_w;
  gboolean have_power;
} Seam;

static void
cap_all (SimSimulation *sim, SimTime now, gpointer data)
{
  Seam *seam = data;
  g_autoptr(GError) error = NULL;

  ck_assert_int_eq (now, 1800 * SIM_SECOND);
  /* Readings before the change: one job on all 8 GPUs at full speed. */
  seam->activity = sim__simulation_get_gpu_activity (sim, 3);
  seam->node_w = sim__simulation_get_node_power (sim, 0);
  seam->gpu_w = sim__simulation_get_gpu_power (sim, 3);
  seam->have_power = sim__simulation_get_power (sim, &seam->it_w, &seam->facility_w);
  for (guint g = 0; g < 8; g++)
    ck_assert_msg (sim__simulation_set_gpu_cap (sim, g, seam->cap, &error), "%s",
                   error ? error->message : "");
  ck_assert_double_eq (sim__simulation_get_gpu_cap (sim, 5), seam->cap);
  /* A capped GPU draws at most its cap. */
  ck_assert (sim__simulation_get_gpu_power (sim, 3) <= seam->cap + 1e-9);
}

static void
watch (SimSimulation *sim, SimTime now, gpointer data)
{
  ((Seam *) data)->watched++;
}

START_TEST (test_seam_cap_midway)
{
  /* A compute-bound job (memory_bound 0) on 8 H100s, capped at 400 W
   * after 30 min: the second half-hour of work takes 1800 / f s. */
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSimulation) sim = simulation (1, "[power]\n");
  SimGpuPower h100 = { H100_IDLE, H100_MAX };
  double f = sim_power_clock (&h100, 400, 1.0, 3.0);
  Seam seam = { .cap = 400 };
  SimTime t[2] = { -1, -1 };

  ck_assert_uint_ne (sim__simulation_add_timer (sim, 1800 * SIM_SECOND, cap_all, &seam), 0);
  sim__simulation_add_power_watch (sim, watch, &seam);
  sim_simulation_set_job_observer (sim, record, t, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_int_eq (t[1], slowed_end (t[0], f));
  ck_assert_double_eq (seam.activity, 1.0);
  ck_assert_double_eq_tol (seam.gpu_w, H100_MAX, 1e-9);
  ck_assert (seam.have_power);
  ck_assert (seam.node_w > 8 * H100_MAX && seam.it_w >= seam.node_w);
  ck_assert (seam.facility_w >= seam.it_w);
  ck_assert_uint_gt (seam.watched, 2);
  /* After the run, nothing holds the GPUs. */
  ck_assert_double_eq (sim__simulation_get_gpu_activity (sim, 3), 0);
}
END_TEST

START_TEST (test_seam_memory_bound_slows_less)
{
  /* Half memory-bound: s = 1 / (0.5 / f + 0.5). */
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSimulation) sim = simulation (1, "memory_bound = 0.5\n[power]\n");
  SimGpuPower h100 = { H100_IDLE, H100_MAX };
  double s = sim_power_speed (sim_power_clock (&h100, 400, 1.0, 3.0), 0.5);
  Seam seam = { .cap = 400 };
  SimTime t[2] = { -1, -1 };

  sim__simulation_add_timer (sim, 1800 * SIM_SECOND, cap_all, &seam);
  sim_simulation_set_job_observer (sim, record, t, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_int_eq (t[1], slowed_end (t[0], s));
}
END_TEST

START_TEST (test_seam_errors)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSimulation) sim = simulation (1, "[power]\n");

  /* At or below idle, negative, or a GPU that does not exist. */
  ck_assert (!sim__simulation_set_gpu_cap (sim, 0, H100_IDLE, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "idle") != NULL);
  g_clear_error (&error);
  ck_assert (!sim__simulation_set_gpu_cap (sim, 0, -5, &error));
  g_clear_error (&error);
  ck_assert (!sim__simulation_set_gpu_cap (sim, 8, 300, &error));
  ck_assert (strstr (error->message, "GPU 8") != NULL);
  g_clear_error (&error);
  /* Without a [power] section the draws read 0 but caps still work. */
  {
    g_autoptr(SimSimulation) plain = simulation (1, "");
    double it = -1, fac = -1;
    ck_assert (!sim__simulation_get_power (plain, &it, &fac));
    ck_assert_double_eq (it, 0);
    ck_assert (sim__simulation_set_gpu_cap (plain, 0, 300, &error));
    ck_assert_double_eq (sim__simulation_get_gpu_cap (plain, 0), 300);
  }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("power");
  TCase *tc = tcase_create ("power");
  SRunner *sr;
  int failed;

  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_cap_curve);
  tcase_add_test (tc, test_seam_cap_midway);
  tcase_add_test (tc, test_seam_memory_bound_slows_less);
  tcase_add_test (tc, test_seam_errors);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
