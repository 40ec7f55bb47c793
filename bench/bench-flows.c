/* bench-flows.c: the transfer simulator on large host fat-trees.
 *
 * 10,000 transfers between random pairs of hosts (uniform, seeded), sizes
 * drawn uniformly from 1 to 100 MB, on two-tier fat-trees of 1,024 hosts
 * (radix 64) and 8,192 hosts (radix 128), non-blocking, 400 Gb/s (50 GB/s)
 * per host and 1 us per link.  Two arrival patterns: all at time 0, and
 * staggered (a Poisson process of 10 arrivals per microsecond).  For
 * each case it prints the time to build the topology, the wall time of
 * sim_transfers_add() and sim_transfers_run(), flows simulated per second
 * of wall time, the incremental solves and events of the run, and the
 * simulated makespan.  It prints figures and never fails on time.
 */
#include "config.h"

#include <sim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-flows-gen.h"

static void
one_case (guint n_hosts, guint radix, gboolean staggered)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimTransfers) t = NULL;
  g_autofree BenchFlow *flows = bench_flows_draw (n_hosts, staggered);
  gint64 t0 = g_get_monotonic_time (), t1, t2, t3;

  t = sim_transfers_new_hosts (n_hosts, HOST_BW, SIM_FABRIC_FAT_TREE, radix, 1, LINK_NS, &error);
  if (t == NULL)
    {
      fprintf (stderr, "bench-flows: %s\n", error->message);
      exit (1);
    }
  t1 = g_get_monotonic_time ();
  for (guint i = 0; i < N_FLOWS; i++)
    if (sim_transfers_add (t, flows[i].src, flows[i].dst, flows[i].bytes,
                           (SimTime) flows[i].start_ns, NULL, NULL, NULL, &error) == 0)
      {
        fprintf (stderr, "bench-flows: %s\n", error->message);
        exit (1);
      }
  t2 = g_get_monotonic_time ();
  if (!sim_transfers_run (t, &error))
    {
      fprintf (stderr, "bench-flows: %s\n", error->message);
      exit (1);
    }
  t3 = g_get_monotonic_time ();
  printf ("%6u hosts  %-9s  build %7.3f s  add %6.3f s  run %7.3f s  %9.0f flows/s  "
          "%6" G_GUINT64_FORMAT " solves  %6" G_GUINT64_FORMAT " events  makespan %.3f ms\n",
          n_hosts, staggered ? "staggered" : "at once", (t1 - t0) / 1e6, (t2 - t1) / 1e6,
          (t3 - t2) / 1e6, N_FLOWS / ((t3 - t1) / 1e6), sim_transfers_get_n_solves (t),
          sim_transfers_get_n_events (t), sim_transfers_get_now (t) / 1e6);
}

int
main (void)
{
  printf ("bench-flows: %u transfers, 1-100 MB, random pairs, non-blocking two-tier fat-tree, "
          "50 GB/s hosts, 1 us links\n", N_FLOWS);
  one_case (1024, 64, FALSE);
  one_case (1024, 64, TRUE);
  one_case (8192, 128, FALSE);
  one_case (8192, 128, TRUE);
  return 0;
}
