/* bench-workload: a month of synthetic jobs on a 1,024-GPU cluster.
 *
 * 128 DGX H100 nodes; about 140 jobs an hour for 30 days (just over
 * 100,000 jobs) at roughly 80 % load; FIFO with first-fit and with
 * best-fit placement.  Prints jobs and events simulated per second of wall
 * time.  It never fails on time; it fails only if a run fails.
 *
 *   bench-workload [--quick]      --quick: 3 days instead of 30
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>
#include <string.h>

#include "bench-args.h"

#define USAGE \
  "usage: bench-workload [--quick]\n" \
  "  30 days of synthetic jobs on 128 DGX-H100 (1,024 GPUs), first-fit and best-fit\n" \
  "  --quick: 3 days instead of 30\n"

#define SCENARIO_TEXT \
  "[scenario]\n" \
  "name = month-1024\n" \
  "seed = 2024\n" \
  "horizon = %s\n" \
  "[pool h100]\n" \
  "model = DGX-H100\n" \
  "count = 128\n" \
  "[workload]\n" \
  "rate = 140/h\n" \
  "[class small]\n" \
  "share = 0.8\n" \
  "gpus = 1:0.5, 2:0.25, 4:0.25\n" \
  "duration = lognormal(median=30min, sigma=1.2)\n" \
  "[class large]\n" \
  "share = 0.2\n" \
  "gpus = 8:0.6, 16:0.3, 32:0.1\n" \
  "duration = lognormal(median=1h, sigma=1.0)\n" \
  "[policy]\n" \
  "placement = %s\n"

int
main (int argc, char **argv)
{
  static const char *const bench_flags[] = { "--quick", NULL };

  bench_args (argc, argv, USAGE, bench_flags, 0);

  gboolean quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  const char *placements[] = { "first-fit", "best-fit" };

  printf ("bench-workload: %s of synthetic jobs on 128 x DGX-H100 (1,024 GPUs)\n\n",
          quick ? "3 days" : "30 days");
  printf ("%-10s %9s %10s %9s %12s %12s %8s\n", "placement", "jobs", "events", "wall s",
          "jobs/s", "events/s", "util");
  for (guint i = 0; i < G_N_ELEMENTS (placements); i++)
    {
      g_autofree char *text = g_strdup_printf (SCENARIO_TEXT, quick ? "3d" : "30d", placements[i]);
      g_autoptr(GError) error = NULL;
      g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "month-1024", NULL, NULL,
                                                               &error);
      g_autoptr(SimSimulation) sim = NULL;
      double jobs = 0, events = 0, util = 0, wall;
      gint64 t0;

      if (sc == NULL || (sim = sim_simulation_new (sc, &error)) == NULL)
        {
          fprintf (stderr, "bench-workload: %s\n", error->message);
          return 1;
        }
      t0 = g_get_monotonic_time ();
      if (!sim_simulation_run (sim, &error))
        {
          fprintf (stderr, "bench-workload: %s\n", error->message);
          return 1;
        }
      wall = (g_get_monotonic_time () - t0) / 1e6;
      sim_report_get_value (sim_simulation_get_report (sim), "jobs_submitted", &jobs);
      sim_report_get_value (sim_simulation_get_report (sim), "events", &events);
      sim_report_get_value (sim_simulation_get_report (sim), "gpu_utilization", &util);
      printf ("%-10s %9.0f %10.0f %9.3f %12.0f %12.0f %7.1f%%\n", placements[i], jobs, events, wall,
              jobs / wall, events / wall, 100 * util);
    }
  return 0;
}
