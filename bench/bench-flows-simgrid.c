/* bench-flows-simgrid.c: bench-flows's transfers on gpusim and on SimGrid,
 * side by side.
 *
 * The same 10,000 transfers (bench-flows-gen.h: the same pairs, sizes and
 * arrival times) on the same fabrics: two-tier non-blocking fat-trees of
 * 1,024 hosts (64-port switches: 32 hosts a leaf, 32 spines) and 8,192
 * hosts (128-port switches: 64 hosts a leaf, 64 spines), 50 GB/s and 1 us
 * per link, each direction of a link its own resource (SPLITDUPLEX), as in
 * gpusim.  Both route by D-mod-K: SimGrid's FAT_TREE cluster climbs to
 * spine (destination mod spines), and sim_topology_new_hosts() takes the
 * same digit, so the same transfers share the same links on both sides.
 *
 * SimGrid's network model is CM02, its max-min model, solved by its LMM
 * solver with lazy updates, configured to model what gpusim models:
 *
 * - no TCP window bound (network/TCP-gamma:0; a bound of 0 is none);
 * - no cross-traffic (network/crosstraffic:0).  SimGrid's default makes
 *   every transfer also take 0.05 of its rate on each link of its reverse
 *   route (the acknowledgements), so a host sending and receiving at once
 *   has less than its bandwidth for either;
 * - equal shares.  CM02 divides each flow's share by its route's latency
 *   (its "sharing penalty"), so a flow within a leaf (2 links) gets twice
 *   the share of one through a spine (4 links) on a link they share.  The
 *   platform's links therefore have no latency (every flow then has the
 *   penalty 1), and each transfer's route latency (1 us per link of the
 *   route SimGrid gives) is added to its completion afterwards, which is
 *   gpusim's model: sending from the start, the latency paid once.
 *
 * --crosstraffic and --latency-weights put SimGrid's defaults back, one
 * each, as bench-simgrid ran before (docs/performance.md: the mean flow
 * completion times then differ by 8 %).
 *
 * Each transfer is a pair of SimGrid actors: the receiver posts a get on
 * its own mailbox at time 0 and notes the clock when it returns, the
 * sender sleeps until the arrival time and puts the bytes.  Each case runs
 * in a child process on each side (bench-flows-gen.h); the table gives the
 * wall time (gpusim: sim_transfers_add() and sim_transfers_run(); SimGrid:
 * simgrid_run(), the platform and actors created before), the peak memory
 * of the child, the makespan, the mean flow completion time and how far
 * the transfers' completion times lie apart one by one.  It prints figures
 * and never fails on time.
 *
 *     bench-flows-simgrid [--hosts N --radix R [--staggered | --flows FILE]] [--per-flow]
 *                         [--crosstraffic] [--latency-weights]
 *
 * runs one case instead (as bench-flows does); --per-flow prints each
 * transfer's completion time on both sides.
 *
 * Built when configure finds SimGrid (Debian: libsimgrid-dev); `make
 * bench-simgrid` runs it.
 */
#include "config.h"

#include <sim.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/version.h>
#include <xbt/dynar.h>

#include <glib/gstdio.h>

#include "bench-flows-gen.h"
#include "bench-flows-gpusim.h"

static gboolean opt_crosstraffic, opt_latency_weights, opt_per_flow;

typedef struct {
  const BenchFlow *flow;
  double          *completion;   /* s on SimGrid's clock */
  char             mailbox[16];
} Transfer;

static void
receiver (int argc, char **argv)
{
  Transfer *x = sg_actor_self_get_data ();

  (void) argc;
  (void) argv;
  sg_mailbox_get (sg_mailbox_by_name (x->mailbox));
  *x->completion = simgrid_get_clock ();
}

static void
sender (int argc, char **argv)
{
  Transfer *x = sg_actor_self_get_data ();

  (void) argc;
  (void) argv;
  if (x->flow->start_ns > 0)
    sg_actor_sleep_until (x->flow->start_ns * 1e-9);
  /* (SimGrid refuses a NULL payload: the transfer itself goes.) */
  sg_mailbox_put (sg_mailbox_by_name (x->mailbox), x, (long) x->flow->bytes);
}

/* The platform: one FAT_TREE cluster (levels; down ports per level; up
 * ports per level; parallel links), written to a temporary file; its links
 * have @link_ns of latency. */
static char *
write_platform (guint n_hosts, guint radix, int link_ns)
{
  guint down = radix / 2, leaves = n_hosts / down;
  GError *error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("bench-flows-XXXXXX.xml", &path, &error);
  char *xml;

  if (fd < 0)
    {
      fprintf (stderr, "bench-flows-simgrid: %s\n", error->message);
      exit (1);
    }
  xml = g_strdup_printf ("<?xml version='1.0'?>\n"
                         "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                         "<platform version=\"4.1\">\n"
                         "  <cluster id=\"ft\" prefix=\"h\" suffix=\"\" radical=\"0-%u\" "
                         "speed=\"1Gf\" bw=\"%.0fBps\" lat=\"%dns\" sharing_policy=\"SPLITDUPLEX\" "
                         "topology=\"FAT_TREE\" topo_parameters=\"2;%u,%u;1,%u;1,1\"/>\n"
                         "</platform>\n",
                         n_hosts - 1, HOST_BW, link_ns, down, leaves, down);
  if (write (fd, xml, strlen (xml)) != (ssize_t) strlen (xml))
    {
      perror ("bench-flows-simgrid: write");
      exit (1);
    }
  close (fd);
  g_free (xml);
  return path;
}

/* Runs @c on SimGrid in this (child) process; fills @completion (ns). */
static double
simgrid_case (const BenchCase *c, double *completion, gpointer data)
{
  char *args[] = {
    "bench-flows-simgrid", "--cfg=network/model:CM02", "--cfg=network/TCP-gamma:0",
    opt_crosstraffic ? "--cfg=network/crosstraffic:1" : "--cfg=network/crosstraffic:0",
    "--cfg=contexts/stack-size:64", "--log=root.thresh:critical", NULL
  };
  int argc = G_N_ELEMENTS (args) - 1;
  Transfer *x = g_new0 (Transfer, c->n_flows);
  double *clock_s = g_new0 (double, c->n_flows);
  char *platform = write_platform (c->n_hosts, c->radix, opt_latency_weights ? LINK_NS : 0);
  gint64 t0, t1;

  (void) data;
  simgrid_init (&argc, args);
  simgrid_load_platform (platform);
  g_unlink (platform);
  for (guint i = 0; i < c->n_flows; i++)
    {
      char src[16], dst[16];
      sg_actor_t a;

      x[i].flow = &c->flows[i];
      x[i].completion = &clock_s[i];
      g_snprintf (x[i].mailbox, sizeof x[i].mailbox, "t%u", i);
      g_snprintf (src, sizeof src, "h%u", c->flows[i].src);
      g_snprintf (dst, sizeof dst, "h%u", c->flows[i].dst);
      a = sg_actor_init ("recv", sg_host_by_name (dst));
      sg_actor_set_data (a, &x[i]);
      sg_actor_start_ (a, receiver, 0, NULL);
      a = sg_actor_init ("send", sg_host_by_name (src));
      sg_actor_set_data (a, &x[i]);
      sg_actor_start_ (a, sender, 0, NULL);
    }
  t0 = g_get_monotonic_time ();
  simgrid_run ();
  t1 = g_get_monotonic_time ();
  for (guint i = 0; i < c->n_flows; i++)
    {
      completion[i] = clock_s[i] * 1e9;
      if (!opt_latency_weights)
        {
          /* The latency the links did not carry: 1 us per link of the route. */
          xbt_dynar_t links = xbt_dynar_new (sizeof (sg_link_t), NULL);
          char src[16], dst[16];

          g_snprintf (src, sizeof src, "h%u", c->flows[i].src);
          g_snprintf (dst, sizeof dst, "h%u", c->flows[i].dst);
          sg_host_get_route (sg_host_by_name (src), sg_host_by_name (dst), links);
          completion[i] += (double) xbt_dynar_length (links) * LINK_NS;
          xbt_dynar_free (&links);
        }
    }
  g_free (platform);
  return (t1 - t0) / 1e6;
}

/* Runs @c on both sides and prints its row; 1 if a side failed. */
static int
one_case (BenchCase *c)
{
  BenchRun g, s;
  double g_makespan, g_fct, s_makespan, s_fct, worst = 0;
  guint within = 0;

  if (!bench_flows_fork (c, bench_flows_gpusim, NULL, &g)
      || !bench_flows_fork (c, simgrid_case, NULL, &s))
    {
      fprintf (stderr, "bench-flows-simgrid: the %u-host case failed\n", c->n_hosts);
      return 1;
    }
  bench_flows_summary (c, &g, &g_makespan, &g_fct);
  bench_flows_summary (c, &s, &s_makespan, &s_fct);
  for (guint i = 0; i < c->n_flows; i++)
    {
      double fg = g.completion[i] - c->flows[i].start_ns;
      double fs = s.completion[i] - c->flows[i].start_ns;
      double d = fabs (fg - fs) / fs;

      worst = MAX (worst, d);
      within += d <= 1e-3;
    }
  printf ("%6u  %-9s  %8.2f %8.2f  %6.1f x  %6.0f %7.0f  %8.3f %8.3f  %+6.2f %%  "
          "%8.3f %8.3f  %+6.2f %%  %6.2f %%  %7.3f %%\n",
          c->n_hosts, c->label, g.wall_s, s.wall_s, s.wall_s / g.wall_s, g.peak_mb, s.peak_mb,
          g_makespan, s_makespan, 100 * (g_makespan / s_makespan - 1), g_fct, s_fct,
          100 * (g_fct / s_fct - 1), 100.0 * within / c->n_flows, 100 * worst);
  if (opt_per_flow)
    for (guint i = 0; i < c->n_flows; i++)
      printf ("  flow %u  %u -> %u  %.0f bytes  start %.0f ns  FCT gpusim %.1f ns  "
              "SimGrid %.1f ns\n", i, c->flows[i].src, c->flows[i].dst, c->flows[i].bytes,
              c->flows[i].start_ns, g.completion[i] - c->flows[i].start_ns,
              s.completion[i] - c->flows[i].start_ns);
  fflush (stdout);
  g_free (g.completion);
  g_free (s.completion);
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
    { "crosstraffic", 0, 0, G_OPTION_ARG_NONE, &opt_crosstraffic,
      "SimGrid's default cross-traffic (0.05 of each flow on its reverse route)", NULL },
    { "latency-weights", 0, 0, G_OPTION_ARG_NONE, &opt_latency_weights,
      "Latency on SimGrid's links, so that CM02 weighs shares by route latency", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("- gpusim and SimGrid side by side");
  int rc = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc > 1
      || (n_hosts == 0) != (radix == 0) || (flows_file != NULL && n_hosts == 0))
    {
      fprintf (stderr, "bench-flows-simgrid: %s\n", error != NULL ? error->message
               : "--hosts and --radix go together, and --flows needs them");
      return 2;
    }
  if (n_hosts > 0 && !bench_flows_check_shape ("bench-flows-simgrid", n_hosts, radix))
    return 2;
  printf ("bench-flows-simgrid: gpusim beside SimGrid %d.%d (CM02 max-min, split-duplex links, "
          "D-mod-K; cross-traffic %s, shares %s)\n", SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR,
          opt_crosstraffic ? "on" : "off",
          opt_latency_weights ? "weighed by route latency" : "equal");
  printf ("%6s  %-9s  %8s %8s  %8s  %6s %7s  %8s %8s  %8s  %8s %8s  %8s  %8s  %9s\n",
          "hosts", "arrivals", "wall s", "SimGrid", "faster", "MB", "SimGrid", "makespan",
          "SimGrid", "diff", "mean FCT", "SimGrid", "diff", "<=0.1 %", "worst");
  if (n_hosts > 0)
    {
      BenchCase c = { n_hosts, radix, staggered, staggered ? "staggered" : "at once", NULL, 0 };

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
  rc |= drawn_case (1024, 64, FALSE);
  rc |= drawn_case (1024, 64, TRUE);
  rc |= drawn_case (8192, 128, FALSE);
  rc |= drawn_case (8192, 128, TRUE);
  return rc;
}
