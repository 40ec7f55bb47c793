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
 *                              then data/traces in the source tree)
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>

#include "bench-util.h"
#include "bench-args.h"

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

#define USAGE \
  "usage: bench-power [TRACE.csv]\n" \
  "  what the power models add to a replay of the Philly month\n" \
  "  TRACE.csv: the Philly month's jobs; by default philly/philly-2017-10.csv under\n" \
  "  $GPUSIM_TRACE_DIR, else under data/traces in the source tree\n"

int
main (int argc, char **argv)
{
  g_autofree char *trace = NULL;
  double w0 = 0;

  bench_args (argc, argv, USAGE, NULL, 1);
  trace = bench_philly_trace (argc, argv, "bench-power");
  if (trace == NULL)
    return 0;
  printf ("bench-power: Philly, October 2017, on 256 x DGX-A100 (2,048 GPUs); fastest of %d\n\n", RUNS);
  printf ("%-21s %8s %9s %8s %9s %10s %10s %6s %9s\n", "model", "jobs", "events", "wall s",
          "overhead", "IT kW", "fac. kW", "PUE", "JCT mean");
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *text = g_strdup_printf (BASE "%s", trace, cases[c].sections);
      g_autoptr(GError) error = NULL;
      g_autoptr(SimReport) r = NULL;
      double w;

      if (!bench_replay (text, FALSE, RUNS, &w, &r, &error))
        {
          fprintf (stderr, "bench-power: %s\n", error->message);
          return 1;
        }
      if (c == 0)
        w0 = w;
      printf ("%-21s %8.0f %9.0f %8.3f %+8.1f%% %10.1f %10.1f %6.3f %8.0fs\n", cases[c].name,
              bench_value (r, "jobs_completed"), bench_value (r, "events"), w, 100 * (w / w0 - 1),
              bench_value (r, "power_it_avg") / 1e3, bench_value (r, "power_facility_avg") / 1e3,
              bench_value (r, "pue"), bench_value (r, "jct_mean"));
    }
  printf ("\nThe issue's limit: power and cost add at most 25 %% to the replay's time.\n");
  return 0;
}
