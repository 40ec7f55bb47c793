/* bench-philly: the October 2017 month of Microsoft Philly jobs (47,192
 * jobs) replayed on 2,048 GPUs (256 DGX A100 nodes), twice: without a
 * network model, and with a 2:1 fat-tree of HDR InfiniBand switches and
 * every job given a data-parallel communication profile from a mix, so
 * that jobs spread over nodes share uplinks and slow each other down.
 * Prints the wall time of each replay and their ratio, with the figures
 * that differ.  It never fails on time; it exits 0 with a note if the
 * trace is absent.
 *
 *   bench-philly [TRACE.csv]   (default: $GPUSIM_TRACE_DIR/philly/philly-2017-10.csv,
 *                               then data/traces in the source tree)
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>

#include "bench-util.h"
#include "bench-args.h"

#define BASE \
  "[scenario]\nname = philly-2017-10\nseed = 1\n" \
  "[pool a100]\nmodel = DGX-A100\ncount = 256\n" \
  "[workload]\nsource = philly\ntrace = %s\n" \
  "[policy]\nplacement = %s\n"

/* Profiles: a convolutional network with 100 MB of gradients per 300 ms
 * step, and a BERT-large-sized model (340 M parameters in FP32, 1.36 GB)
 * per 1 s step, half of its communication overlapped. */
#define COMM \
  "[fabric]\ntopology = fat-tree-3\nswitch = Quantum-QM8700\noversubscription = 2\n" \
  "[comm cnn]\nshare = 0.6\niteration = 300ms\ngradient = 100MB\noverlap = 0.5\n" \
  "[comm bert]\nshare = 0.4\niteration = 1s\ngradient = 1360MB\noverlap = 0.5\n"

#define USAGE \
  "usage: bench-philly [TRACE.csv]\n" \
  "  a replay of the Philly month, with and without the network\n" \
  "  TRACE.csv: the Philly month's jobs; by default philly/philly-2017-10.csv under\n" \
  "  $GPUSIM_TRACE_DIR, else under data/traces in the source tree\n"

int
main (int argc, char **argv)
{
  g_autofree char *trace = NULL;
  const char *placements[] = { "first-fit", "topology-aware" };

  bench_args (argc, argv, USAGE, NULL, 1);
  trace = bench_philly_trace (argc, argv, "bench-philly");
  if (trace == NULL)
    return 0;
  printf ("bench-philly: Philly, October 2017, on 256 x DGX-A100 (2,048 GPUs)\n\n");
  printf ("%-15s %-22s %8s %9s %8s %10s %10s %8s\n", "placement", "model", "jobs", "events",
          "wall s", "ratio", "JCT mean", "compute");
  {
    g_autofree char *plain = g_strdup_printf (BASE, trace, "first-fit");
    g_autoptr(GError) error = NULL;
    g_autoptr(SimReport) r0 = NULL;
    double w0;

    if (!bench_replay (plain, FALSE, 1, &w0, &r0, &error))
      {
        fprintf (stderr, "bench-philly: %s\n", error->message);
        return 1;
      }
    printf ("%-15s %-22s %8.0f %9.0f %8.3f %10s %9.0fs %7.1f%%\n", "first-fit", "no network",
            bench_value (r0, "jobs_completed"), bench_value (r0, "events"), w0, "1.00",
            bench_value (r0, "jct_mean"), 100 * bench_value (r0, "gpu_compute_utilization"));
    for (guint p = 0; p < G_N_ELEMENTS (placements); p++)
      {
        g_autofree char *with = g_strdup_printf (BASE COMM, trace, placements[p]);
        g_autoptr(SimReport) r1 = NULL;
        double w1;

        if (!bench_replay (with, FALSE, 1, &w1, &r1, &error))
          {
            fprintf (stderr, "bench-philly: %s\n", error->message);
            return 1;
          }
        printf ("%-15s %-22s %8.0f %9.0f %8.3f %9.2fx %9.0fs %7.1f%%\n", placements[p],
                "2:1 3-tier + comm", bench_value (r1, "jobs_completed"), bench_value (r1, "events"), w1,
                w1 / w0, bench_value (r1, "jct_mean"), 100 * bench_value (r1, "gpu_compute_utilization"));
      }
  }
  return 0;
}
