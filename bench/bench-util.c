/* bench-util.c: what the replay benchmarks share (bench-util.h). */
#include "config.h"

#include <stdio.h>

#include "bench-util.h"
#include "bench-args.h"

char *
bench_philly_trace (int argc, char **argv, const char *prog)
{
  g_autofree char *tried = NULL;
  char *trace;

  if (argc > 1)
    {
      /* A trace asked for by name must be there. */
      if (g_file_test (argv[1], G_FILE_TEST_IS_REGULAR))
        return g_strdup (argv[1]);
      fprintf (stderr, "%s: %s: no such file\n", prog, argv[1]);
      exit (1);
    }
  trace = bench_trace_file ("philly", "philly-2017-10.csv", &tried);
  if (trace == NULL)
    printf ("%s: philly/philly-2017-10.csv not found (looked at %s): nothing to replay "
            "(set GPUSIM_TRACE_DIR)\n", prog, tried);
  return trace;
}

gboolean
bench_replay (const char *scenario, gboolean from_file, guint runs, double *wall,
              SimReport **report, GError **error)
{
  g_autoptr(SimScenario) sc = from_file
                                ? sim_scenario_load (scenario, NULL, error)
                                : sim_scenario_load_from_data (scenario, -1, "bench", NULL, NULL,
                                                               error);

  *wall = G_MAXDOUBLE;
  if (sc == NULL)
    return FALSE;
  for (guint run = 0; run < MAX (runs, 1); run++)
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

double
bench_value (SimReport *r, const char *name)
{
  double v = 0;

  sim_report_get_value (r, name, &v);
  return v;
}
