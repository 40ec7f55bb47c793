/* bench-failures: what the failure model costs in wall time.
 *
 * 1. scenarios/failures-llama3.ini: 16,384 H100s (2,080 DGX H100 with
 *    the spares) and one job for 54 days under Llama 3's failure rates,
 *    about 400 interruptions, each one a re-placement of 16,384 GPUs.
 * 2. The October 2017 month of Microsoft Philly jobs (47,192 jobs) on 256
 *    DGX A100 (2,048 GPUs), without and with [failures] (the same
 *    realistic rates, self-healing, 4 hot spares, hourly checkpoints of
 *    1 GB per GPU at 100 GB/s): the overhead, against the limit of
 *    +20 %.
 * Each run is timed three times and the fastest kept.  It prints figures
 * and never fails on time; without the Philly trace it says so and skips
 * the second part.
 *
 *   bench-failures [TRACE.csv]  (default: $GPUSIM_TRACE_DIR/philly/philly-2017-10.csv,
 *                               then the shared traces next to the source tree)
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>

#define PHILLY \
  "[scenario]\nname = philly-2017-10\nseed = 1\n" \
  "[pool a100]\nmodel = DGX-A100\ncount = 256\n" \
  "[workload]\nsource = philly\ntrace = %s\n" \
  "[output]\ntimeseries = false\n"

#define FAILURES \
  "[failures]\nprofile = llama3-h100\ncheckpoint_interval = 1h\n" \
  "checkpoint_size = 1GB\nstorage_bandwidth = 100GB/s\n"

#define REPEAT 7

/* Runs SCENARIO (a file if FROM_FILE, else text) REPEAT times; the fastest
 * wall time and the last report. */
static gboolean
time_run (const char *scenario, gboolean from_file, double *wall, SimReport **report,
          GError **error)
{
  *wall = G_MAXDOUBLE;
  for (guint k = 0; k < REPEAT; k++)
    {
      g_autoptr(SimScenario) sc = from_file
                                    ? sim_scenario_load (scenario, NULL, error)
                                    : sim_scenario_load_from_data (scenario, -1, "bench-failures",
                                                                   NULL, NULL, error);
      g_autoptr(SimSimulation) sim = NULL;
      gint64 t0;

      if (sc == NULL || (sim = sim_simulation_new (sc, error)) == NULL)
        return FALSE;
      t0 = g_get_monotonic_time ();
      if (!sim_simulation_run (sim, error))
        return FALSE;
      *wall = MIN (*wall, (g_get_monotonic_time () - t0) / 1e6);
      g_clear_pointer (report, sim_report_unref);
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
  g_autoptr(GError) error = NULL;
  g_autoptr(SimReport) llama = NULL, plain = NULL, failing = NULL;
  double w, w0, w1;

  if (!time_run (SIM_TOP_SRCDIR "/scenarios/failures-llama3.ini", TRUE, &w, &llama, &error))
    {
      fprintf (stderr, "bench-failures: %s\n", error->message);
      return 1;
    }
  printf ("bench-failures\n\n54 days of one job on 16,384 H100s (scenarios/failures-llama3.ini)\n");
  printf ("  wall %.3f s; %.0f failures, %.0f interruptions (Llama 3: 419), ETTR %.1f %% "
          "(Llama 3: > 90 %%), %.0f events\n\n", w, value (llama, "failures"),
          value (llama, "interruptions"), 100 * value (llama, "ettr"), value (llama, "events"));

  if (argc > 1)
    trace = g_strdup (argv[1]);
  else if (env != NULL)
    trace = g_build_filename (env, "philly", "philly-2017-10.csv", NULL);
  else
    trace = g_strdup (SIM_TRACEDIR "/philly/philly-2017-10.csv");
  if (!g_file_test (trace, G_FILE_TEST_EXISTS))
    {
      printf ("Philly month: %s not found: skipped (set GPUSIM_TRACE_DIR)\n", trace);
      return 0;
    }
  {
    g_autofree char *without = g_strdup_printf (PHILLY, trace);
    g_autofree char *with = g_strdup_printf (PHILLY FAILURES, trace);

    if (!time_run (without, FALSE, &w0, &plain, &error) ||
        !time_run (with, FALSE, &w1, &failing, &error))
      {
        fprintf (stderr, "bench-failures: %s\n", error->message);
        return 1;
      }
  }
  printf ("Philly, October 2017, on 256 x DGX-A100 (2,048 GPUs), fastest of %d\n", REPEAT);
  printf ("  %-16s %8s %9s %9s %13s %8s\n", "", "jobs", "events", "wall s", "interruptions",
          "ETTR");
  printf ("  %-16s %8.0f %9.0f %9.3f %13s %8s\n", "no failures", value (plain, "jobs_completed"),
          value (plain, "events"), w0, "-", "-");
  printf ("  %-16s %8.0f %9.0f %9.3f %13.0f %7.2f%%\n", "with failures",
          value (failing, "jobs_completed"), value (failing, "events"), w1,
          value (failing, "interruptions"), 100 * value (failing, "ettr"));
  printf ("  overhead %+.1f %% (limit +20 %%)\n", 100 * (w1 / w0 - 1));
  return 0;
}
