/* bench-flows-gen.h: the transfers of bench-flows, drawn once, so that
 * bench-flows-simgrid runs exactly the same ones on SimGrid.
 *
 * N_FLOWS transfers between random pairs of distinct hosts (uniform,
 * GRand seeded 42), sizes uniform in [1, 100) MB, all at time 0 or
 * arriving as a Poisson process of 10 per microsecond (exponential gaps
 * of mean 100 ns).  The draws come in the order src, dst, bytes, gap per
 * transfer, so that both programs see the same sequence. */
#pragma once

#include <glib.h>
#include <math.h>

#define N_FLOWS   10000
#define HOST_BW   50e9      /* bytes/s per host and per link */
#define LINK_NS   1000      /* latency of each link */

typedef struct {
  guint  src, dst;
  double bytes;
  double start_ns;
} BenchFlow;

/* The N_FLOWS transfers on @n_hosts hosts; free with g_free(). */
static inline BenchFlow *
bench_flows_draw (guint n_hosts, gboolean staggered)
{
  GRand *rand = g_rand_new_with_seed (42);
  BenchFlow *flows = g_new (BenchFlow, N_FLOWS);
  double arrival = 0;

  for (guint i = 0; i < N_FLOWS; i++)
    {
      guint src = (guint) g_rand_int_range (rand, 0, (gint32) n_hosts);
      guint dst = (guint) g_rand_int_range (rand, 0, (gint32) n_hosts - 1);
      double bytes = g_rand_double_range (rand, 1e6, 100e6);

      if (dst >= src)
        dst++;
      if (staggered)
        arrival += -log (1.0 - g_rand_double (rand)) * 100.0;  /* mean 100 ns */
      flows[i] = (BenchFlow) { src, dst, bytes, arrival };
    }
  g_rand_free (rand);
  return flows;
}
