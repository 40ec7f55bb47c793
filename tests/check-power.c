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
 *  - the energy integral of a small schedule (two jobs on a DGX A100, 4 then
 *    6 GPUs busy) equals the one worked out by hand from the catalogue's
 *    figures, for IT, GPUs, jobs, cooling and facility, and the PUE;
 *  - a DGX H100 at full load within 10 % of its 10.2 kW rating, and at 70-82 %
 *    of it under typical training (Newkirk et al., arXiv 2506.14551: 76 %;
 *    typical training taken as Llama 3's 43 % model-FLOPs utilization, the
 *    rest memory-bound); a DGX A100 at full load within 10 % of 6.5 kW;
 *  - each cooling type's default PUE (at its rated outdoor temperature) in
 *    the published range its catalogue file cites; chillers' COP 6 at the
 *    rating; direct liquid cooling cuts the facility's non-IT power and
 *    its total at least as much as the Vertiv/NVIDIA retrofit measured
 *    (18.1 % and 10.2 %), immersion cuts server power 5-15 %
 *    (Microsoft/Wiwynn);
 *  - GPUs draw idle plus dynamic power times their busy GPU-seconds, so a
 *    job waiting on the network draws less;
 *  - a capped GPU never draws above its cap in a busy run; capped,
 *    clock-limited and woken jobs take the time worked out by hand; capped
 *    typical training is at most 10 % slower for 10-25 % less energy
 *    (McDonald et al., arXiv 2205.09646: about 15 % less for a marginal
 *    slowdown);
 *  - the network draws its switches' power and its transceivers' (per
 *    the builder's count) exactly;
 *  - every [power] and [cooling] key moves the result the expected way;
 *  - bad caps, bad keys and bad CSV rows are errors naming file, line and
 *    key.
 * What it does not check: the catalogue's node figures themselves (their
 * sources are in models/SOURCES.md D), nor cooling plants beyond the
 * published PUE figures.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include <string.h>

#include "power/sim-power.h"
#include "power/sim-cooling.h"

#include <unistd.h>

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

/* The clock a cap of CAP_W allows a GPU of IDLE_W idle and MAX_W maximum
 * power, by the closed form of the curve (dynamic power as the cube of the
 * clock, the default clock_exponent): the oracle of the runs below, which
 * test_cap_curve holds sim_power_clock() to. */
static double
capped_clock (double idle_w, double max_w, double cap_w)
{
  return cbrt ((cap_w - idle_w) / (max_w - idle_w));
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
  seam->activity = sim__power_module_get_gpu_activity (sim, 3);
  seam->node_w = sim__kernel_get_node_power (sim, 0);
  seam->gpu_w = sim__kernel_get_gpu_power (sim, 3);
  seam->have_power = sim__kernel_get_power (sim, &seam->it_w, &seam->facility_w);
  for (guint g = 0; g < 8; g++)
    ck_assert_msg (sim__power_module_set_gpu_cap (sim, g, seam->cap, &error), "%s",
                   error ? error->message : "");
  ck_assert_double_eq (sim__power_module_get_gpu_cap (sim, 5), seam->cap);
  /* A capped GPU draws at most its cap. */
  ck_assert (sim__kernel_get_gpu_power (sim, 3) <= seam->cap + 1e-9);
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
  double f = capped_clock (H100_IDLE, H100_MAX, 400);
  Seam seam = { .cap = 400 };
  SimTime t[2] = { -1, -1 };

  ck_assert_uint_ne (sim__kernel_add_timer (sim, 1800 * SIM_SECOND, cap_all, &seam), 0);
  sim__kernel_connect (sim, SIM_HOOK_STATE_CHANGED, G_CALLBACK (watch), &seam);
  sim_simulation_set_job_observer (sim, record, t, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  /* To the nanosecond: the closed form's cube root and the model's pow()
   * may differ in the last bit, which can move the rounding by one. */
  ck_assert_int_le (llabs (t[1] - slowed_end (t[0], f)), 1);
  ck_assert_double_eq (seam.activity, 1.0);
  ck_assert_double_eq_tol (seam.gpu_w, H100_MAX, 1e-9);
  ck_assert (seam.have_power);
  ck_assert (seam.node_w > 8 * H100_MAX && seam.it_w >= seam.node_w * (1 - 1e-12));
  ck_assert (seam.facility_w >= seam.it_w);
  ck_assert_uint_gt (seam.watched, 2);
  /* After the run, nothing holds the GPUs. */
  ck_assert_double_eq (sim__power_module_get_gpu_activity (sim, 3), 0);
}
END_TEST

START_TEST (test_seam_memory_bound_slows_less)
{
  /* Half memory-bound: s = 1 / (0.5 / f + 0.5). */
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSimulation) sim = simulation (1, "memory_bound = 0.5\n[power]\n");
  double s = 1 / (0.5 / capped_clock (H100_IDLE, H100_MAX, 400) + 0.5);
  Seam seam = { .cap = 400 };
  SimTime t[2] = { -1, -1 };

  sim__kernel_add_timer (sim, 1800 * SIM_SECOND, cap_all, &seam);
  sim_simulation_set_job_observer (sim, record, t, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_int_le (llabs (t[1] - slowed_end (t[0], s)), 1);
}
END_TEST

START_TEST (test_seam_errors)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSimulation) sim = simulation (1, "[power]\n");

  /* At or below idle, negative, or a GPU that does not exist. */
  ck_assert (!sim__power_module_set_gpu_cap (sim, 0, H100_IDLE, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "idle") != NULL);
  g_clear_error (&error);
  ck_assert (!sim__power_module_set_gpu_cap (sim, 0, -5, &error));
  g_clear_error (&error);
  ck_assert (!sim__power_module_set_gpu_cap (sim, 8, 300, &error));
  ck_assert (strstr (error->message, "GPU 8") != NULL);
  g_clear_error (&error);
  /* A GPU without power figures in the catalogue cannot be capped. */
  {
    g_autoptr(GError) e = NULL;
    g_autoptr(SimScenario) sc =
      sim_scenario_load_from_data ("[scenario]\nname = b\n[pool a]\nmodel = HGX-B200\ncount = 1\n"
                                   "[workload]\nsource = synthetic\nrate = 1/h\njobs = 1\n"
                                   "gpus = 1\nduration = constant(1h)\n", -1, "b.ini", NULL, NULL,
                                   &e);
    g_autoptr(SimSimulation) b200 = sim_simulation_new (sc, &e);
    ck_assert_msg (b200 != NULL, "%s", e ? e->message : "");
    ck_assert (!sim__power_module_set_gpu_cap (b200, 0, 500, &e));
    ck_assert_msg (strstr (e->message, "B200") != NULL && strstr (e->message, "idle_power"),
                   "%s", e->message);
  }
  /* Without a [power] section the draws read 0 but caps still work. */
  {
    g_autoptr(SimSimulation) plain = simulation (1, "");
    double it = -1, fac = -1;
    ck_assert (!sim__kernel_get_power (plain, &it, &fac));
    ck_assert_double_eq (it, 0);
    ck_assert (sim__power_module_set_gpu_cap (plain, 0, 300, &error));
    ck_assert_double_eq (sim__power_module_get_gpu_cap (plain, 0), 300);
  }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Energy by hand.                                                           */

/* A DGX A100 (models/nodes/dgx-a100.ini, models/gpus/a100-sxm-40gb.ini):
 * GPUs 50..400 W, CPUs 145..450 W, memory 149 W, 8 NICs of 20 W, other
 * parts 710 W, fans 24..878 W, power supplies 94 % efficient.  With k of
 * its 8 GPUs busy (compute-bound jobs: intensity 1), CPU load k/8: */
static double
dgx_a100_w (int k)
{
  double gpus = 8 * 50.0 + k * 350.0;
  double cpus = 145 + (450 - 145) * k / 8.0;
  double fans = 24 + (878 - 24) * (k * 350.0) / (8 * 350.0);

  return (gpus + cpus + 149 + 8 * 20 + 710 + fans) / 0.94;
}

/* What a compute-bound job on n of the node's GPUs is charged with. */
static double
dgx_a100_job_w (int n)
{
  return (n * 50.0 + n * 350.0 * (1 + (878 - 24) / (8 * 350.0)) +
          n / 8.0 * (149 + 8 * 20 + 710 + 450 + 24)) / 0.94;
}

static char *
write_trace (const char *rows)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("gpusim-power-XXXXXX.csv", &path, &error);

  ck_assert_msg (fd >= 0, "%s", error ? error->message : "");
  close (fd);
  ck_assert (g_file_set_contents (path, rows, -1, &error));
  return path;
}

/* Two jobs on one DGX A100: 4 GPUs from 0 to 3600 s, 2 more from 1800 s
 * to 3600 s; EXTRA adds sections. */
static SimSimulation *
small_schedule (const char *extra, char **trace_out)
{
  g_autoptr(GError) error = NULL;
  char *trace = write_trace ("id,submit,duration,gpus\n1,0,3600,4\n2,1800,1800,2\n");
  g_autofree char *text =
    g_strdup_printf ("[scenario]\nname = energy\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                     "[workload]\nsource = native\ntrace = %s\n%s\n", trace, extra);
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "energy.ini", NULL, NULL,
                                                           &error);
  SimSimulation *sim;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  *trace_out = trace;
  return sim;
}

#define ck_assert_rel(a, b, tol) \
  ck_assert_msg (fabs ((a) - (b)) <= (tol) * fabs (b), "%s = %.12g, expected %.12g", #a, \
                 (double) (a), (double) (b))

START_TEST (test_energy_by_hand)
{
  g_autofree char *trace = NULL;
  g_autoptr(SimSimulation) sim = small_schedule ("[power]\n", &trace);
  double it_j = 1800 * dgx_a100_w (4) + 1800 * dgx_a100_w (6);
  double gpu_j = 1800 * (400 + 4 * 350.0) + 1800 * (400 + 6 * 350.0);
  double jobs_j = 3600 * dgx_a100_job_w (4) + 1800 * dgx_a100_job_w (2);

  ck_assert_rel (metric (sim, "energy_it_kwh"), it_j / 3.6e6, 1e-12);
  ck_assert_rel (metric (sim, "energy_gpu_kwh"), gpu_j / 3.6e6, 1e-12);
  ck_assert_rel (metric (sim, "energy_jobs_kwh"), jobs_j / 3.6e6, 1e-12);
  /* No cooling: the facility is IT behind 95 % efficient distribution. */
  ck_assert_double_eq (metric (sim, "energy_cooling_kwh"), 0);
  ck_assert_rel (metric (sim, "energy_facility_kwh"), it_j / 0.95 / 3.6e6, 1e-12);
  ck_assert_rel (metric (sim, "pue"), 1 / 0.95, 1e-12);
  ck_assert_rel (metric (sim, "power_it_peak"), dgx_a100_w (6), 1e-12);
  ck_assert_rel (metric (sim, "power_it_avg"), it_j / 3600, 1e-12);
  /* 6 GPU-hours delivered. */
  ck_assert_rel (metric (sim, "energy_per_gpu_hour"), it_j / 0.95 / 3.6e6 / 5.0, 1e-12);
  g_unlink (trace);
}
END_TEST

START_TEST (test_energy_cooling_by_hand)
{
  /* Air cooling at its rated 25 C: CRAH fans 0.2 W per W, chillers at
   * COP 6 on the heat plus the fans' (1.2 W per W), pumps and towers 0.05
   * of that, other loads 0.03: 0.49 W per W of IT.  At 5 C, below the
   * economizer's 10 C, the chillers stop: 0.29 W per W. */
  static const struct { const char *extra; double per_w, economizer_h; } cases[] = {
    { "[power]\n[cooling]\ntype = air\n", 0.2 + 1.2 / 6 + 0.05 * 1.2 + 0.03, 0 },
    { "[power]\n[cooling]\ntype = air\noutdoor_temperature = 5\n", 0.2 + 0.05 * 1.2 + 0.03, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *trace = NULL;
      g_autoptr(SimSimulation) sim = small_schedule (cases[i].extra, &trace);
      double it_j = 1800 * dgx_a100_w (4) + 1800 * dgx_a100_w (6);
      ck_assert_rel (metric (sim, "energy_cooling_kwh"), it_j * cases[i].per_w / 3.6e6, 1e-12);
      ck_assert_rel (metric (sim, "energy_facility_kwh"),
                     it_j * (1 + cases[i].per_w) / 0.95 / 3.6e6, 1e-12);
      ck_assert_rel (metric (sim, "pue"), (1 + cases[i].per_w) / 0.95, 1e-12);
      ck_assert_rel (metric (sim, "economizer_hours"), cases[i].economizer_h, 1e-12);
      g_unlink (trace);
    }
}
END_TEST

START_TEST (test_outdoor_steps_by_hand)
{
  /* Hourly steps from a CSV: 30 C for the first half-hour, 5 C after:
   * the chillers run (COP 6 x 18 / 23 at 30 C) then stop. */
  g_autofree char *csv = write_trace ("time_s,temperature_c\n0,30\n1800,5\n");
  g_autofree char *extra = g_strdup_printf ("[power]\n[cooling]\ntype = air\noutdoor_csv = %s\n",
                                            csv);
  g_autofree char *trace = NULL;
  g_autoptr(SimSimulation) sim = small_schedule (extra, &trace);
  double hot = 0.2 + 1.2 / (6.0 * 18 / 23) + 0.05 * 1.2 + 0.03;
  double cold = 0.2 + 0.05 * 1.2 + 0.03;
  double cooling_j = 1800 * dgx_a100_w (4) * hot + 1800 * dgx_a100_w (6) * cold;

  ck_assert_rel (metric (sim, "energy_cooling_kwh"), cooling_j / 3.6e6, 1e-12);
  ck_assert_rel (metric (sim, "economizer_hours"), 0.5, 1e-12);
  g_unlink (trace);
  g_unlink (csv);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Published figures.                                                        */

/* The mean IT power of one node of MODEL running one job on all its GPUs
 * for an hour, with EXTRA keys in [class c]. */
static double
node_w_power (const char *model, const char *extra, const char *power)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text =
    g_strdup_printf ("[scenario]\nname = node\nhorizon = 1h\n[pool a]\nmodel = %s\ncount = 1\n"
                     "[workload]\nsource = synthetic\nrate = 3600000000/h\njobs = 1\n"
                     "[class c]\ngpus = 8\nduration = constant(2h)\n%s\n[power]\n%s", model,
                     extra, power);
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "node.ini", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  return metric (sim, "power_it_peak");
}

static double
node_w (const char *model, const char *extra)
{
  return node_w_power (model, extra, "");
}

/* A job's GPUs taken, released or made busier all at once
 * (sim__power_add_busy_gpus(), which counts a node's load once its GPUs
 * in a row are in) leave every GPU's, node's and the total power the same
 * to the bit as taking them one GPU at a time: 400 random steps on three
 * DGX H100 and a DGX A100, jobs of 1 to 20 GPUs over several nodes
 * in a random order, whole and shared. */
START_TEST (test_busy_all_at_once)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) catalogue = sim_catalogue_new_default (NULL, &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  SimCluster *cluster = sim_cluster_new ();
  SimPowerConfig config;
  SimPower *one, *all;
  guint32 held[64][20];
  guint n_held[64], milli[64], n_jobs = 0, total;
  double share[64];

  ck_assert (catalogue != NULL);
  ck_assert (sim_cluster_add_pool (cluster, "a", sim_catalogue_lookup_node (catalogue, "DGX-H100"),
                                   NULL, 0, 3, &error));
  ck_assert (sim_cluster_add_pool (cluster, "b", sim_catalogue_lookup_node (catalogue,
                                                                            "DGX-A100"),
                                   NULL, 0, 1, &error));
  total = sim_cluster_get_n_gpus (cluster);
  sim_power_config_init (&config);
  config.enabled = TRUE;
  one = sim__power_new (cluster, &config, NULL, &error);
  ck_assert_msg (one != NULL, "%s", error ? error->message : "?");
  all = sim__power_new (cluster, &config, NULL, &error);
  ck_assert (all != NULL);
  for (guint step = 0; step < 400; step++)
    {
      guint j, act = (guint) g_rand_int_range (rand, 0, 3);
      double intensity = g_rand_double_range (rand, 0.4, 1);
      if (n_jobs == 0 || (act == 0 && n_jobs < G_N_ELEMENTS (held)))
        {
          /* A new job: distinct GPUs anywhere, whole or a share. */
          j = n_jobs++;
          n_held[j] = 1 + (guint) g_rand_int_range (rand, 0, 20);
          for (guint i = 0; i < n_held[j]; i++)
            {
              gboolean dup;
              do
                {
                  held[j][i] = (guint32) g_rand_int_range (rand, 0, (gint32) total);
                  dup = FALSE;
                  for (guint k = 0; k < i; k++)
                    dup = dup || held[j][k] == held[j][i];
                }
              while (dup);
            }
          milli[j] = g_rand_boolean (rand) ? SIM_GPU_WHOLE : 250;
          share[j] = g_rand_double_range (rand, 0.1, 1) * milli[j] / SIM_GPU_WHOLE;
          for (guint i = 0; i < n_held[j]; i++)
            sim__power_add_busy (one, held[j][i], share[j], intensity, 1, milli[j]);
          sim__power_add_busy_gpus (all, held[j], n_held[j], share[j], intensity, 1, milli[j]);
        }
      else if (act == 1)
        {
          /* A job's busy share changes. */
          double d = g_rand_double_range (rand, -0.05, 0.05);
          j = (guint) g_rand_int_range (rand, 0, (gint32) n_jobs);
          for (guint i = 0; i < n_held[j]; i++)
            sim__power_add_busy (one, held[j][i], d, intensity, 0, milli[j]);
          sim__power_add_busy_gpus (all, held[j], n_held[j], d, intensity, 0, milli[j]);
        }
      else
        {
          /* A job stops. */
          j = (guint) g_rand_int_range (rand, 0, (gint32) n_jobs);
          for (guint i = 0; i < n_held[j]; i++)
            sim__power_add_busy (one, held[j][i], -share[j], intensity, -1, milli[j]);
          sim__power_add_busy_gpus (all, held[j], n_held[j], -share[j], intensity, -1,
                                    milli[j]);
          n_jobs--;
          memcpy (held[j], held[n_jobs], sizeof held[j]);
          n_held[j] = n_held[n_jobs];
          milli[j] = milli[n_jobs];
          share[j] = share[n_jobs];
        }
      for (guint g = 0; g < total; g++)
        ck_assert_msg (sim__power_gpu_w (one, g) == sim__power_gpu_w (all, g),
                       "step %u: GPU %u: %.17g W one by one, %.17g W at once", step, g,
                       sim__power_gpu_w (one, g), sim__power_gpu_w (all, g));
      for (guint n = 0; n < sim_cluster_get_n_nodes (cluster); n++)
        ck_assert_msg (sim__power_node_w (one, n) == sim__power_node_w (all, n),
                       "step %u: node %u: %.17g W one by one, %.17g W at once", step, n,
                       sim__power_node_w (one, n), sim__power_node_w (all, n));
      ck_assert (sim__power_it_w (one) == sim__power_it_w (all));
    }
  /* (The nodes' loads moved: some node drew more than idle.) */
  ck_assert (sim__power_it_w (one) > 0);
  sim__power_free (one);
  sim__power_free (all);
  sim_cluster_free (cluster);
}
END_TEST

START_TEST (test_published_node_power)
{
  /* DGX H100 rated 10.2 kW, DGX A100 6.5 kW (NVIDIA; SOURCES.md A3). */
  double h100_full = node_w ("DGX-H100", "");
  double h100_training = node_w ("DGX-H100", "memory_bound = 0.57");
  double a100_full = node_w ("DGX-A100", "");

  ck_assert_msg (fabs (h100_full / 10200 - 1) <= 0.10, "DGX H100 at full load: %.0f W", h100_full);
  ck_assert_msg (fabs (a100_full / 6500 - 1) <= 0.10, "DGX A100 at full load: %.0f W", a100_full);
  /* Newkirk et al. (arXiv 2506.14551): 76 % of the rating under intensive
   * training; Latif et al. (arXiv 2412.08602): 8.4 kW at most. */
  ck_assert_msg (h100_training / 10200 >= 0.70 && h100_training / 10200 <= 0.82,
                 "DGX H100 training: %.0f W, %.1f %% of 10.2 kW", h100_training,
                 100 * h100_training / 10200);
  ck_assert (h100_training <= 8400 * 1.05);
}
END_TEST

START_TEST (test_communication_draws_less)
{
  /* A data-parallel job on two DGX H100 that waits on the network part of
   * each iteration keeps its GPUs busy less, and they draw
   * 16 x 69 W + 631 W x its busy GPU-seconds (compute-bound work). */
  g_autoptr(GError) error = NULL;
  double energy[2], busy[2], seconds[2];

  for (guint comm = 0; comm < 2; comm++)
    {
      g_autofree char *text =
        g_strdup_printf ("[scenario]\nname = comm\nhorizon = 1h\n[pool a]\nmodel = DGX-H100\n"
                         "count = 2\n[workload]\nsource = synthetic\nrate = 3600000000/h\n"
                         "jobs = 1\n[class c]\ngpus = 16\nduration = constant(2h)\n%s"
                         "[fabric]\ntopology = single-switch\nswitch = Quantum-2-QM9700\n"
                         "[power]\n",
                         comm ? "iteration = 300ms\ngradient = 4GB\noverlap = 0\n" : "");
      g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "comm.ini", NULL, NULL,
                                                               &error);
      g_autoptr(SimSimulation) sim = NULL;
      ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
      sim = sim_simulation_new (sc, &error);
      ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
      ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
      energy[comm] = metric (sim, "energy_gpu_kwh") * 3.6e6;
      busy[comm] = metric (sim, "active_gpu_seconds");
      seconds[comm] = metric (sim, "simulated_time");
      ck_assert_rel (energy[comm], 16 * 69.0 * seconds[comm] + 631 * busy[comm], 1e-9);
    }
  ck_assert_msg (busy[1] < 0.95 * busy[0], "busy %.0f GPU-s communicating, %.0f not", busy[1],
                 busy[0]);
  ck_assert (energy[1] < energy[0]);
}
END_TEST

/* The default PUE of cooling model NAME at its rated outdoor temperature,
 * for a DGX H100 under typical training (as test_published_node_power),
 * and the run's IT and non-IT power. */
static double
cooling_pue (const char *name, double *it_w, double *cooling_w)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text =
    g_strdup_printf ("[scenario]\nname = cool\nhorizon = 1h\n[pool a]\nmodel = DGX-H100\n"
                     "count = 1\n[workload]\nsource = synthetic\nrate = 3600000000/h\njobs = 1\n"
                     "[class c]\ngpus = 8\nduration = constant(2h)\nmemory_bound = 0.57\n"
                     "[power]\n[cooling]\ntype = %s\n", name);
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "cool.ini", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  if (it_w != NULL)
    *it_w = metric (sim, "power_it_avg");
  if (cooling_w != NULL)
    *cooling_w = metric (sim, "power_facility_avg") - metric (sim, "power_it_avg");
  return metric (sim, "pue");
}

START_TEST (test_published_pue)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) catalogue = sim_catalogue_new_default (NULL, &error);
  static const char *names[] = { "air", "liquid", "immersion" };
  double it[3], overhead[3];

  ck_assert_msg (catalogue != NULL, "%s", error ? error->message : "");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const SimCoolingModel *m = sim_catalogue_lookup_cooling (catalogue, names[i]);
      double pue = cooling_pue (names[i], &it[i], &overhead[i]);
      ck_assert_ptr_nonnull (m);
      ck_assert_msg (pue >= m->pue_low && pue <= m->pue_high, "%s: PUE %.3f outside %.2f-%.2f",
                     names[i], pue, m->pue_low, m->pue_high);
      /* Chillers: 0.58-0.59 kW/ton, COP 6 at their rating. */
      ck_assert_double_eq_tol (sim_cooling_cop (m, m->rated_outdoor_c), 6.0, 1e-12);
    }
  /* The Uptime Institute's industry average, 1.55-1.59, for air. */
  ck_assert (sim_catalogue_lookup_cooling (catalogue, "air")->pue_low == 1.55);
  ck_assert (sim_catalogue_lookup_cooling (catalogue, "air")->pue_high == 1.59);
  /* Vertiv/NVIDIA: 75 % direct liquid cooling cut the facility's non-IT
   * power by 18.1 % and the total by 10.2 % in a retrofit that kept its
   * air plant's fixed overheads; here the air handlers follow the air's
   * share of the heat, so the cuts are at least those, and the PUE falls
   * as well (by more than the study's 3.3 %). */
  ck_assert_msg (1 - overhead[1] / overhead[0] >= 0.181 && 1 - overhead[1] / overhead[0] <= 0.6,
                 "non-IT power cut by %.1f %%", 100 * (1 - overhead[1] / overhead[0]));
  ck_assert (1 - (it[1] + overhead[1]) / (it[0] + overhead[0]) >= 0.102);
  /* Microsoft/Wiwynn: immersion (no fans) cuts server power 5-15 %. */
  ck_assert_msg (1 - it[2] / it[0] >= 0.05 && 1 - it[2] / it[0] <= 0.15,
                 "immersion cut IT power by %.1f %%", 100 * (1 - it[2] / it[0]));
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Caps in a busy run.                                                       */

typedef struct {
  double cap;
  double highest;
  guint  checks;
} CapCheck;

static void
check_caps (SimSimulation *sim, SimTime now, gpointer data)
{
  CapCheck *c = data;

  for (guint g = 0; g < sim_cluster_get_n_gpus (sim_simulation_get_cluster (sim)); g++)
    {
      double w = sim__kernel_get_gpu_power (sim, g);
      c->highest = MAX (c->highest, w);
      ck_assert_msg (w <= c->cap * (1 + 1e-12), "GPU %u draws %.3f W over its %.0f W cap", g, w,
                     c->cap);
      c->checks++;
    }
}

START_TEST (test_cap_never_exceeded)
{
  /* Two DGX A100, a mixed load (whole, fractional and MIG jobs), every
   * GPU capped at 250 W: no GPU ever draws more. */
  g_autoptr(GError) error = NULL;
  static const char text[] =
    "[scenario]\nname = caps\nseed = 7\nhorizon = 6h\n"
    "[pool a]\nmodel = DGX-A100\ncount = 2\n"
    "[workload]\nsource = synthetic\nrate = 40/h\n"
    "[class big]\nshare = 0.5\ngpus = 1:0.5, 4:0.3, 8:0.2\nduration = exponential(1h)\n"
    "[class small]\nshare = 0.3\ngpus = 1\ngpu_share = 0.5\nactivity = 0.4\n"
    "duration = exponential(30min)\n"
    "[class mig]\nshare = 0.2\ngpus = 1\nmig = 2g.10gb\nduration = exponential(20min)\n"
    "[power]\ngpu_cap = 250W\n";
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "caps.ini", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;
  CapCheck c = { 250, 0, 0 };

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim__kernel_connect (sim, SIM_HOOK_STATE_CHANGED, G_CALLBACK (check_caps), &c);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_uint_gt (c.checks, 1000);
  /* Busy GPUs reached the cap. */
  ck_assert_double_eq_tol (c.highest, 250, 1e-6);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Every key, in its direction.                                              */

/* Two DGX A100 under a mixed load for 12 h, air-cooled at 20 C, with
 * OVERRIDES ("section.key=value", NULL-terminated); returns METRIC. */
static double
keyed (const char * const *overrides, const char *metric_name, gboolean fabric)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text =
    g_strdup_printf ("[scenario]\nname = keys\nseed = 5\nhorizon = 12h\n"
                     "[pool a]\nmodel = DGX-A100\ncount = 2\n"
                     "[workload]\nsource = synthetic\nrate = 3/h\n"
                     "[class c]\ngpus = 1:0.5, 8:0.5\nduration = exponential(2h)\n"
                     "memory_bound = 0.3\n"
                     "%s[power]\n[cooling]\ntype = air\noutdoor_temperature = 20\n",
                     fabric ? "[fabric]\ntopology = fat-tree\nswitch = Quantum-QM8700\n" : "");
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "keys.ini", NULL,
                                                           overrides, &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  return metric (sim, metric_name);
}

/* One job of 8 GPUs and 1 h on a DGX A100, submitted at 1 h, compute-bound
 * (or, with KIND "memory_bound", typical training: 0.57 memory-bound);
 * its completion time, s, with POWER in [power], and (nullable) the
 * energy charged to it, kWh. */
static double
single_jct_m (const char *power, const char *kind, double *energy)
{
  g_autofree char *trace = NULL;
  g_autofree char *extra = g_strdup_printf ("[power]\n%s", power);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;

  if (kind == NULL)
    {
      trace = write_trace ("id,submit,duration,gpus\n1,3600,3600,8\n");
      text = g_strdup_printf ("[scenario]\nname = one\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                              "[workload]\nsource = native\ntrace = %s\nrebase_time = false\n"
                              "%s\n", trace, extra);
    }
  else
    text = g_strdup_printf ("[scenario]\nname = one\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                            "[workload]\nsource = synthetic\nrate = 3600000000/h\njobs = 1\n"
                            "gpus = 8\nduration = constant(1h)\nmemory_bound = 0.57\n%s\n",
                            extra);
  sc = sim_scenario_load_from_data (text, -1, "one.ini", NULL, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  if (trace != NULL)
    g_unlink (trace);
  if (energy != NULL)
    *energy = metric (sim, "energy_jobs_kwh");
  return metric (sim, "jct_mean");
}

static double
single_jct (const char *power)
{
  return single_jct_m (power, NULL, NULL);
}

/* 40 DGX A100 on a two-level fat tree of 40-port HDR switches, idle for an
 * hour: the IT energy (kWh), and the transceivers the builder counted. */
static double network_switches;

static double
network_energy (const char *power, double *transceivers)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text =
    g_strdup_printf ("[scenario]\nname = net\nhorizon = 1h\n[pool a]\nmodel = DGX-A100\n"
                     "count = 40\n[workload]\nsource = synthetic\nrate = 1/d\njobs = 1\n"
                     "gpus = 1\nduration = constant(1min)\n"
                     "%s[power]\n%s",
                     power != NULL ? "[fabric]\ntopology = fat-tree\nswitch = Quantum-QM8700\n" : "",
                     power != NULL ? power : "");
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "net.ini", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  if (transceivers != NULL)
    {
      *transceivers = metric (sim, "network_transceivers");
      network_switches = metric (sim, "network_switches");
    }
  return metric (sim, "energy_it_kwh");
}

START_TEST (test_every_key)
{
  double capped = single_jct ("gpu_cap = 250W\n");

  /* Caps, clock limits and waking nodes slow a job, per the curve: an
   * A100 SXM 40GB idles at 50 W and peaks at 400 W
   * (models/gpus/a100-sxm-40gb.ini). */
  ck_assert_double_eq_tol (single_jct (""), 3600, 1e-9);
  ck_assert_double_eq_tol (capped, 3600 / capped_clock (50, 400, 250), 1e-6);
  ck_assert (single_jct ("gpu_cap = 250W\nclock_exponent = 5\n") < capped);
  ck_assert_double_eq_tol (single_jct ("gpu_cap_share = 0.625\n"), capped, 1e-9);
  ck_assert_double_eq_tol (single_jct ("clock_limit = 0.7\n"), 3600 / 0.7, 1e-6);
  ck_assert_double_eq_tol (single_jct ("sleep_after = 10min\nwake_time = 10min\n"), 4200, 1e-6);
  ck_assert_double_eq_tol (single_jct ("sleep_after = 2h\nwake_time = 10min\n"), 3600, 1e-6);

  static const struct {
    const char *base[3];
    const char *set[4];
    const char *metric;
    int         direction;   /* +1: larger than with base only; -1: smaller */
  } cases[] = {
    { { NULL }, { "power.memory_power=0.9", NULL }, "energy_it_kwh", 1 },
    { { NULL }, { "power.sleep_after=10min", NULL }, "energy_it_kwh", -1 },
    { { "power.sleep_after=10min", NULL },
      { "power.sleep_after=10min", "power.sleep_power=400W", NULL }, "energy_it_kwh", 1 },
    { { NULL }, { "power.psu_efficiency=0.8", NULL }, "energy_it_kwh", 1 },
    { { NULL }, { "power.electrical_efficiency=0.85", NULL }, "energy_facility_kwh", 1 },
    { { NULL }, { "cooling.type=liquid", NULL }, "energy_cooling_kwh", -1 },
    { { NULL }, { "cooling.type=immersion", NULL }, "energy_cooling_kwh", -1 },
    { { NULL }, { "cooling.type=immersion", NULL }, "energy_it_kwh", -1 },
    { { NULL }, { "cooling.crah_fan=0.3", NULL }, "energy_cooling_kwh", 1 },
    { { NULL }, { "cooling.chiller_cop=8", NULL }, "energy_cooling_kwh", -1 },
    { { NULL }, { "cooling.economizer_below=25", NULL }, "energy_cooling_kwh", -1 },
    { { NULL }, { "cooling.economizer_below=25", NULL }, "economizer_hours", 1 },
    { { NULL }, { "cooling.liquid_share=0.5", NULL }, "energy_cooling_kwh", -1 },
    { { "cooling.type=liquid", NULL }, { "cooling.type=liquid", "cooling.liquid_pumps=0.1", NULL },
      "energy_cooling_kwh", 1 },
    { { "cooling.type=immersion", NULL },
      { "cooling.type=immersion", "cooling.dry_cooler=0.1", NULL }, "energy_cooling_kwh", 1 },
    { { NULL }, { "cooling.server_fans=0.5", NULL }, "energy_it_kwh", -1 },
    { { NULL }, { "cooling.misc=0.1", NULL }, "energy_cooling_kwh", 1 },
    { { NULL }, { "cooling.outdoor_temperature=30", NULL }, "energy_cooling_kwh", 1 },
    /* 12 C on average; on 1 January the seasonal curve is near its
     * coldest (warmest on day 200), below the economizer's 10 C. */
    { { "cooling.outdoor_temperature=12", NULL },
      { "cooling.outdoor_temperature=12", "cooling.seasonal_swing=10", NULL },
      "economizer_hours", 1 },
    { { "cooling.outdoor_temperature=12", "cooling.seasonal_swing=10", NULL },
      { "cooling.outdoor_temperature=12", "cooling.seasonal_swing=10", "cooling.warmest_day=0",
        NULL }, "economizer_hours", -1 },
    { { "cooling.outdoor_temperature=12", NULL },
      { "cooling.outdoor_temperature=12", "cooling.daily_swing=8", NULL }, "economizer_hours", 1 },
    /* Held over 12 h, the curve sits at its value at 6:00, below 10 C. */
    { { "cooling.outdoor_temperature=12", "cooling.daily_swing=8", NULL },
      { "cooling.outdoor_temperature=12", "cooling.daily_swing=8", "cooling.step=12h", NULL },
      "economizer_hours", 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double base = keyed (cases[i].base, cases[i].metric, FALSE);
      double set = keyed (cases[i].set, cases[i].metric, FALSE);
      ck_assert_msg (cases[i].direction > 0 ? set > base : set < base,
                     "%s: %s %.6g with it, %.6g without", cases[i].set[0], cases[i].metric, set,
                     base);
    }
  /* McDonald et al. (arXiv 2205.09646): capping GPUs cut the energy of
   * training a transformer by about 15 % for a marginal increase of its run
   * time.  Typical training (memory_bound 0.57) on a DGX A100 capped at
   * 250 W: at most 10 % slower, 10-25 % less energy for the same work. */
  {
    double e0, e1;
    double t0 = single_jct_m ("", "memory_bound", &e0);
    double t1 = single_jct_m ("gpu_cap = 250W\n", "memory_bound", &e1);
    ck_assert_msg (t1 / t0 > 1.0 && t1 / t0 <= 1.10, "capped training %.1f %% slower",
                   100 * (t1 / t0 - 1));
    ck_assert_msg (e1 / e0 >= 0.75 && e1 / e0 <= 0.90, "capped training uses %.1f %% less energy",
                   100 * (1 - e1 / e0));
  }
  /* A node's draw falls under a cap or a clock limit. */
  ck_assert (node_w_power ("DGX-A100", "", "gpu_cap = 250W\n") < node_w ("DGX-A100", ""));
  ck_assert (node_w_power ("DGX-A100", "", "gpu_cap = 250W\n") >
             node_w_power ("DGX-A100", "", "gpu_cap = 200W\n"));
  ck_assert (node_w_power ("DGX-A100", "", "clock_limit = 0.7\n") < node_w ("DGX-A100", ""));
  /* Optics: the network's transceivers draw what the link model (IB-HDR:
   * 4.25 W) or the [power] key says, exactly, for the count the fabric
   * builder reports. */
  {
    double transceivers, e_hdr, e_20;
    e_hdr = network_energy ("", &transceivers);
    e_20 = network_energy ("transceiver_power = 20W\n", NULL);
    ck_assert (transceivers > 0);
    ck_assert_rel (e_20 - e_hdr, transceivers * (20 - 4.25) / 1e3, 1e-9);
    /* Against the same hour without a network: its switches (250 W each,
     * models/switches/quantum-qm8700.ini) and optics. */
    ck_assert_rel (e_hdr - network_energy (NULL, NULL),
                   (network_switches * 250 + transceivers * 4.25) / 1e3, 1e-9);
  }
  /* enable = false: no power model, no power metrics. */
  {
    g_autoptr(GError) error = NULL;
    const char *off[] = { "power.enable=false", NULL };
    g_autoptr(SimScenario) sc =
      sim_scenario_load_from_data ("[scenario]\nname = off\n[pool a]\nmodel = DGX-A100\n"
                                   "count = 1\n[workload]\nsource = synthetic\nrate = 1/h\n"
                                   "jobs = 1\ngpus = 1\nduration = constant(1h)\n[power]\n", -1,
                                   "off.ini", NULL, off,
                                   &error);
    g_autoptr(SimSimulation) sim = NULL;
    double v;
    ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
    sim = sim_simulation_new (sc, &error);
    ck_assert (sim_simulation_run (sim, &error));
    ck_assert (!sim_report_get_value (sim_simulation_get_report (sim), "pue", &v));
  }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Bad input.                                                                */

START_TEST (test_bad_input)
{
  static const struct {
    const char *text;
    const char *expect[3];
  } cases[] = {
    { "[power]\ngpu_cap = lots\n", { "bad.ini:15: [power] gpu_cap", "lots", "\"300W\"" } },
    { "[power]\nclock_limit = 1.5\n", { "bad.ini:15: [power] clock_limit", "1.5", "at most 1" } },
    { "[power]\nclock_exponent = 0.1\n", { "[power] clock_exponent", "0.5 to 10", NULL } },
    { "[power]\nwake_time = 1min\n", { "[power] wake_time", "sleep_after", NULL } },
    { "[power]\nsleep_power = 20W\n", { "[power] sleep_power", "sleep_after", NULL } },
    { "[power]\npsu_efficency = 0.9\n", { "[power] psu_efficency", "psu_efficiency", NULL } },
    { "[power]\nelectrical_efficiency = 0\n", { "[power] electrical_efficiency", "above 0", NULL } },
    { "[cooling]\ntype = air\n", { "[cooling]", "[power]", NULL } },
    { "[power]\n[cooling]\noutdoor_temperature = hot\n",
      { "bad.ini:16: [cooling] outdoor_temperature", "degrees C", NULL } },
    { "[power]\n[cooling]\nchiller_cop = 0\n", { "[cooling] chiller_cop", "above 0", NULL } },
    { "[power]\n[cooling]\nliquid_share = 2\n", { "[cooling] liquid_share", "2", NULL } },
    { "[power]\n[cooling]\ndaily_swing = 5\noutdoor_csv = t.csv\n",
      { "[cooling] outdoor_csv", "remove", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text =
        g_strdup_printf ("[scenario]\nname = bad\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                         "[workload]\nsource = synthetic\nrate = 1/h\njobs = 1\ngpus = 1\n"
                         "duration = constant(1h)\n[policy]\nqueue = fifo\n%s", cases[i].text);
      g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "bad.ini", NULL, NULL,
                                                               &error);
      ck_assert_msg (sc == NULL, "case %u accepted", i);
      for (guint k = 0; k < G_N_ELEMENTS (cases[i].expect) && cases[i].expect[k]; k++)
        ck_assert_msg (strstr (error->message, cases[i].expect[k]) != NULL,
                       "case %u: \"%s\" not in: %s", i, cases[i].expect[k], error->message);
    }
}
END_TEST

START_TEST (test_bad_csv)
{
  static const struct {
    const char *rows;
    const char *expect[2];
  } cases[] = {
    { "time,temperature\n0,20\n3600,warm\n", { ":3: ", "degrees C" } },
    { "0,20\n3600\n", { ":2: ", "1 fields" } },
    { "0,20\n3600,21\n1800,22\n", { ":3: ", "increasing time" } },
    { "# nothing\n", { "no rows", NULL } },
    { "0,20\n-5,21\n", { ":2: ", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *csv = write_trace (cases[i].rows);
      g_autofree char *text =
        g_strdup_printf ("[scenario]\nname = csv\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                         "[workload]\nsource = synthetic\nrate = 1/h\njobs = 1\ngpus = 1\n"
                         "duration = constant(1h)\n[power]\n[cooling]\noutdoor_csv = %s\n", csv);
      g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "csv.ini", NULL, NULL,
                                                               &error);
      g_autoptr(SimSimulation) sim = NULL;
      ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
      sim = sim_simulation_new (sc, &error);
      ck_assert_msg (sim == NULL, "CSV case %u accepted", i);
      ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_PARSE));
      ck_assert_msg (strstr (error->message, csv) != NULL, "%s", error->message);
      ck_assert_msg (strstr (error->message, "[cooling] outdoor_csv") != NULL, "%s",
                     error->message);
      for (guint k = 0; k < G_N_ELEMENTS (cases[i].expect) && cases[i].expect[k]; k++)
        ck_assert_msg (strstr (error->message, cases[i].expect[k]) != NULL,
                       "CSV case %u: \"%s\" not in: %s", i, cases[i].expect[k], error->message);
      g_unlink (csv);
    }
  /* A node model without the power of its parts cannot be powered. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) sc =
      sim_scenario_load_from_data ("[scenario]\nname = b\n[pool a]\nmodel = HGX-B200\ncount = 1\n"
                                   "[workload]\nsource = synthetic\nrate = 1/h\njobs = 1\n"
                                   "gpus = 1\nduration = constant(1h)\n[power]\n", -1, "b.ini",
                                   NULL, NULL, &error);
    g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
    ck_assert (sim == NULL);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_MISSING));
    ck_assert_msg (strstr (error->message, "b.ini:12: [power]") != NULL &&
                   strstr (error->message, "B200") != NULL, "%s", error->message);
  }
  /* An unknown cooling type names the ones there are. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) sc =
      sim_scenario_load_from_data ("[scenario]\nname = t\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                                   "[workload]\nsource = synthetic\nrate = 1/h\njobs = 1\n"
                                   "gpus = 1\nduration = constant(1h)\n[power]\n[cooling]\n"
                                   "type = water\n", -1, "t.ini", NULL, NULL,
                                   &error);
    g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
    ck_assert (sim == NULL);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
    ck_assert_msg (strstr (error->message, "t.ini:14: [cooling] type") != NULL &&
                   strstr (error->message, "air, immersion, liquid") != NULL, "%s",
                   error->message);
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
  tcase_add_test (tc, test_energy_by_hand);
  tcase_add_test (tc, test_energy_cooling_by_hand);
  tcase_add_test (tc, test_outdoor_steps_by_hand);
  tcase_add_test (tc, test_published_node_power);
  tcase_add_test (tc, test_busy_all_at_once);
  tcase_add_test (tc, test_published_pue);
  tcase_add_test (tc, test_communication_draws_less);
  tcase_add_test (tc, test_cap_never_exceeded);
  tcase_add_test (tc, test_every_key);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_bad_csv);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
