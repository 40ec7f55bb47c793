/* bench-flows.c: the transfer simulator on large host fat-trees.
 *
 * 10,000 transfers between random pairs of hosts (uniform, seeded), sizes
 * drawn uniformly from 1 to 100 MB, on two-tier fat-trees of 1,024 hosts
 * (radix 64) and 8,192 hosts (radix 128), non-blocking, 400 Gb/s (50 GB/s)
 * per host and 1 us per link.  Two arrival patterns: all at time 0, and
 * staggered (a Poisson process of 10 arrivals per microsecond).  For
 * each case it prints the time to build the topology, the wall time of
 * sim_transfers_add() and sim_transfers_run(), flows simulated per second
 * of wall time, the incremental solves and events of the run, the
 * simulated makespan, the mean flow completion time (completion minus
 * start) and the case's peak memory (each case runs in a child process).
 * It prints figures and never fails on time.
 *
 *     bench-flows [--hosts N --radix R [--staggered | --flows FILE]] [--per-flow]
 *
 * runs one case instead: N hosts on R-port switches, with the drawn
 * transfers or those of FILE ("src dst bytes start_ns" a line), and with
 * --per-flow prints each transfer's completion time.
 */
#include "config.h"

#include <sim.h>

#include "bench-flows-gen.h"
#include "bench-flows-gpusim.h"

static gboolean opt_per_flow;

static int
one_case (BenchCase *c)
{
  BenchRun run;
  double makespan, mean_fct;

  if (!bench_flows_fork (c, bench_flows_gpusim, GINT_TO_POINTER (1), &run))
    {
      fprintf (stderr, "\nbench-flows: the %u-host case failed\n", c->n_hosts);
      return 1;
    }
  bench_flows_summary (c, &run, &makespan, &mean_fct);
  printf ("  makespan %.3f ms  mean FCT %.3f ms  peak %.0f MB\n", makespan, mean_fct,
          run.peak_mb);
  if (opt_per_flow)
    for (guint i = 0; i < c->n_flows; i++)
      printf ("  flow %u  %u -> %u  %.0f bytes  start %.0f ns  completion %.1f ns  FCT %.1f ns\n",
              i, c->flows[i].src, c->flows[i].dst, c->flows[i].bytes, c->flows[i].start_ns,
              run.completion[i], run.completion[i] - c->flows[i].start_ns);
  g_free (run.completion);
  return 0;
}

static int
drawn_case (guint n_hosts, guint radix, gboolean staggered)
{
  BenchCase c = { n_hosts, radix, staggered, staggered ? "staggered" : "at once",
                  bench_flows_draw (n_hosts, staggered), N_FLOWS };
  int rc = one_case (&c);

  g_free (c.flows);
  return rc;
}

int
main (int argc, char **argv)
{
  guint n_hosts = 0, radix = 0;
  gboolean staggered = FALSE;
  g_autofree char *flows_file = NULL;
  g_autoptr(GError) error = NULL;
  GOptionEntry entries[] = {
    { "hosts", 0, 0, G_OPTION_ARG_INT, &n_hosts, "Hosts of the one case to run", "N" },
    { "radix", 0, 0, G_OPTION_ARG_INT, &radix, "Ports per switch", "R" },
    { "staggered", 0, 0, G_OPTION_ARG_NONE, &staggered, "Poisson arrivals, not all at once", NULL },
    { "flows", 0, 0, G_OPTION_ARG_FILENAME, &flows_file, "Transfers from FILE", "FILE" },
    { "per-flow", 0, 0, G_OPTION_ARG_NONE, &opt_per_flow, "Print every transfer's completion", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("- gpusim's transfers on fat-trees");

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc > 1
      || (n_hosts == 0) != (radix == 0) || (flows_file != NULL && n_hosts == 0))
    {
      fprintf (stderr, "bench-flows: %s\n", error != NULL ? error->message
               : "--hosts and --radix go together, and --flows needs them");
      return 2;
    }
  if (n_hosts > 0 && !bench_flows_check_shape ("bench-flows", n_hosts, radix))
    return 2;
  if (n_hosts > 0)
    {
      BenchCase c = { n_hosts, radix, staggered, staggered ? "staggered" : "at once", NULL, 0 };
      int rc;

      if (flows_file != NULL)
        {
          c.label = flows_file;
          c.flows = bench_flows_read (flows_file, n_hosts, &c.n_flows);
        }
      else
        {
          c.flows = bench_flows_draw (n_hosts, staggered);
          c.n_flows = N_FLOWS;
        }
      rc = one_case (&c);
      g_free (c.flows);
      return rc;
    }
  printf ("bench-flows: %u transfers, 1-100 MB, random pairs, non-blocking two-tier fat-tree, "
          "50 GB/s hosts, 1 us links\n", N_FLOWS);
  return drawn_case (1024, 64, FALSE) | drawn_case (1024, 64, TRUE)
         | drawn_case (8192, 128, FALSE) | drawn_case (8192, 128, TRUE);
}
