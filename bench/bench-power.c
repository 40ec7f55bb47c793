/* bench-power: what the power model costs a replay.  The October 2017
 * month of Microsoft Philly jobs (47,192 jobs) on 2,048 GPUs (256 DGX A100
 * nodes), replayed without power, with [power] (GPU, node and per-job
 * power, the energy accumulator), with [power] and an air-cooled hall
 * whose outdoor temperature steps every hour, and with idle nodes asleep
 * after 15 minutes as well.  Each replay runs seven times; the fastest
 * counts.  Prints the wall times, the overhead against the replay without
 * power (the limit is +25 %), and the energy figures.  It never fails on
 * time; it exits 0 with a note if the trace is absent.
 *
 *   bench-power [TRACE.csv]   (default: $GPUSIM_TRACE_DIR/philly/philly-2017-10.csv,
 *                              then the shared traces next to the source tree)
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>

#define RUNS 7

#define BASE \
  "[scenario]\nname = philly-2017-10\nseed = 1\n" \
  "[pool a100]\nmodel = DGX-A100\ncount = 256\n" \
  "[workload]\nsource = philly\ntrace = %s\n" \
  "[policy]\nplacement = first-fit\n"

static const struct {
  const char *name;
  const char *sections;
} cases[] = {
  { "no power", "" },
  { "[power]", "[power]\n" },
  { "+ [cooling] hourly", "[power]\n[cooling]\ntype = air\noutdoor_temperature = 15\n"
                          "seasonal_swing = 9\ndaily_swing = 5\n" },
  { "+ sleep after 15min", "[power]\nsleep_after = 15min\nwake_time = 2min\n"
                           "[cooling]\ntype = air\noutdoor_temperature = 15\n"
                           "seasonal_swing = 9\ndaily_swing = 5\n" },
};

static gboolean
replay (const char *text, double *wall, SimReport **report, GError **error)
{
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "bench-power", NULL, NULL,
                                                           error);
  *wall = G_MAXDOUBLE;
  if (sc == NULL)
    return FALSE;
  for (guint run = 0; run < RUNS; run++)
    {
      g_autoptr(SimSimulation) sim = sim_simulation_new (sc, error);
      gint64 t0;
      if (sim == NULL)
        return FALSE;
      t0 = g_get_monotonic_time ();
      if (!sim_simulation_run (sim, error))
        return FALSE;
      *wall = MIN (*wall, (g_get_monotonic_time () - t0) / 1e6);
      if (run == 0)
        *report = sim_report_ref (sim_simulation_get_report (sim));
    }
  return TRUE;
}

static double
value (SimReport *r, const char *name)
{
  double v = 0;
  sim_report_get_value (r, name, &v);
  return v;
}

int
main (int argc, char **argv)
{
  g_autofree char *trace = NULL;
  const char *env = g_getenv ("GPUSIM_TRACE_DIR");
  double w0 = 0;

  if (argc > 1)
    trace = g_strdup (argv[1]);
  else if (env != NULL)
    trace = g_build_filename (env, "philly", "philly-2017-10.csv", NULL);
  else
    trace = g_strdup (SIM_TRACEDIR "/philly/philly-2017-10.csv");
  if (!g_file_test (trace, G_FILE_TEST_EXISTS))
    {
      printf ("bench-power: %s not found: nothing to replay (set GPUSIM_TRACE_DIR)\n", trace);
      return 0;
    }
  printf ("bench-power: Philly, October 2017, on 256 x DGX-A100 (2,048 GPUs); fastest of %d\n\n", RUNS);
  printf ("%-21s %8s %9s %8s %9s %10s %10s %6s %9s\n", "model", "jobs", "events", "wall s",
          "overhead", "IT kW", "fac. kW", "PUE", "JCT mean");
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *text = g_strdup_printf (BASE "%s", trace, cases[c].sections);
      g_autoptr(GError) error = NULL;
      g_autoptr(SimReport) r = NULL;
      double w;

      if (!replay (text, &w, &r, &error))
        {
          fprintf (stderr, "bench-power: %s\n", error->message);
          return 1;
        }
      if (c == 0)
        w0 = w;
      printf ("%-21s %8.0f %9.0f %8.3f %+8.1f%% %10.1f %10.1f %6.3f %8.0fs\n", cases[c].name,
              value (r, "jobs_completed"), value (r, "events"), w, 100 * (w / w0 - 1),
              value (r, "power_it_avg") / 1e3, value (r, "power_facility_avg") / 1e3,
              value (r, "pue"), value (r, "jct_mean"));
    }
  printf ("\nThe issue's limit: power and cost add at most 25 %% to the replay's time.\n");
  return 0;
}
