/* bench-failures: what the failure model costs in wall time.
 *
 * 1. scenarios/failures-llama3.ini: 16,384 H100s (2,080 DGX H100 with
 *    the spares) and one job for 54 days under Llama 3's failure rates,
 *    about 400 interruptions, each one a re-placement of 16,384 GPUs.
 * 2. The October 2017 month of Microsoft Philly jobs (47,192 jobs) on 256
 *    DGX A100 (2,048 GPUs), without and with [failures] (the same
 *    realistic rates, self-healing, 4 hot spares, hourly checkpoints of
 *    1 GB per GPU at 100 GB/s): the overhead, against a limit of +20 %.
 * Each run is timed three times and the fastest kept.  It prints figures
 * and never fails on time; without the Philly trace it says so and skips
 * the second part.
 *
 *   bench-failures [TRACE.csv]  (default: $GPUSIM_TRACE_DIR/philly/philly-2017-10.csv,
 *                               then data/traces in the source tree)
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>

#include "bench-util.h"
#include "bench-args.h"

#define PHILLY \
  "[scenario]\nname = philly-2017-10\nseed = 1\n" \
  "[pool a100]\nmodel = DGX-A100\ncount = 256\n" \
  "[workload]\nsource = philly\ntrace = %s\n" \
  "[output]\ntimeseries = false\n"

#define FAILURES \
  "[failures]\nprofile = llama3-h100\ncheckpoint_interval = 1h\n" \
  "checkpoint_size = 1GB\nstorage_bandwidth = 100GB/s\n"

#define REPEAT 7

#define USAGE \
  "usage: bench-failures [TRACE.csv]\n" \
  "  failures on the Llama 3 job, and on a replay of the Philly month\n" \
  "  TRACE.csv: the Philly month's jobs; by default philly/philly-2017-10.csv under\n" \
  "  $GPUSIM_TRACE_DIR, else under data/traces in the source tree\n"

int
main (int argc, char **argv)
{
  g_autofree char *trace = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimReport) llama = NULL, plain = NULL, failing = NULL;
  double w, w0, w1;

  bench_args (argc, argv, USAGE, NULL, 1);
  if (!bench_replay (SIM_TOP_SRCDIR "/scenarios/failures-llama3.ini", TRUE, REPEAT, &w, &llama,
                     &error))
    {
      fprintf (stderr, "bench-failures: %s\n", error->message);
      return 1;
    }
  printf ("bench-failures\n\n54 days of one job on 16,384 H100s (scenarios/failures-llama3.ini)\n");
  printf ("  wall %.3f s; %.0f failures, %.0f interruptions (Llama 3: 419), ETTR %.1f %% "
          "(Llama 3: > 90 %%), %.0f events\n\n", w, bench_value (llama, "failures"),
          bench_value (llama, "interruptions"), 100 * bench_value (llama, "ettr"),
          bench_value (llama, "events"));

  trace = bench_philly_trace (argc, argv, "bench-failures: Philly month");
  if (trace == NULL)
    return 0;
  {
    g_autofree char *without = g_strdup_printf (PHILLY, trace);
    g_autofree char *with = g_strdup_printf (PHILLY FAILURES, trace);

    if (!bench_replay (without, FALSE, REPEAT, &w0, &plain, &error) ||
        !bench_replay (with, FALSE, REPEAT, &w1, &failing, &error))
      {
        fprintf (stderr, "bench-failures: %s\n", error->message);
        return 1;
      }
  }
  printf ("Philly, October 2017, on 256 x DGX-A100 (2,048 GPUs), fastest of %d\n", REPEAT);
  printf ("  %-16s %8s %9s %9s %13s %8s\n", "", "jobs", "events", "wall s", "interruptions",
          "ETTR");
  printf ("  %-16s %8.0f %9.0f %9.3f %13s %8s\n", "no failures", bench_value (plain, "jobs_completed"),
          bench_value (plain, "events"), w0, "-", "-");
  printf ("  %-16s %8.0f %9.0f %9.3f %13.0f %7.2f%%\n", "with failures",
          bench_value (failing, "jobs_completed"), bench_value (failing, "events"), w1,
          bench_value (failing, "interruptions"), 100 * bench_value (failing, "ettr"));
  printf ("  overhead %+.1f %% (limit +20 %%)\n", 100 * (w1 / w0 - 1));
  return 0;
}
