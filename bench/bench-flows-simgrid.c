/* bench-flows-simgrid.c: bench-flows's transfers on SimGrid, to set the two
 * side by side.
 *
 * The same 10,000 transfers (bench-flows-gen.h: the same pairs, sizes and
 * arrival times) on the same fabrics: two-tier non-blocking fat-trees of
 * 1,024 hosts (64-port switches: 32 hosts a leaf, 32 spines) and 8,192
 * hosts (128-port switches: 64 hosts a leaf, 64 spines), 50 GB/s and 1 us
 * per link, each direction of a link its own resource (SPLITDUPLEX), as in
 * gpusim.  SimGrid's network model is CM02, its plain max-min model (no
 * TCP window bound: network/TCP-gamma 0), solved by its LMM solver with
 * lazy updates.  One difference remains in the allocation, not in the
 * work: CM02 weighs each flow by its route's latency (flows on longer
 * routes get smaller shares, like TCP), where gpusim shares equally; the
 * makespans printed differ a little for that reason.
 *
 * Each transfer is a pair of SimGrid actors: the receiver posts a get on
 * its own mailbox at time 0, the sender sleeps until the arrival time and
 * puts the bytes.  Each case runs in a child process (SimGrid runs one
 * simulation per process); the line gives the wall time of simgrid_run()
 * (platform and actors created before), transfers per second, and the
 * simulated makespan.  It prints figures and never fails on time.
 *
 * Built when configure finds SimGrid (Debian: libsimgrid-dev); `make
 * bench-simgrid` runs it next to bench-flows.
 */
#include "config.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/version.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-flows-gen.h"

typedef struct {
  const BenchFlow *flow;
  char             mailbox[16];
} Transfer;

static void
receiver (int argc, char **argv)
{
  Transfer *x = sg_actor_self_get_data ();

  (void) argc;
  (void) argv;
  sg_mailbox_get (sg_mailbox_by_name (x->mailbox));
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
 * ports per level; parallel links), written to a temporary file. */
static char *
write_platform (guint n_hosts, guint radix)
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
                         n_hosts - 1, HOST_BW, LINK_NS, down, leaves, down);
  if (write (fd, xml, strlen (xml)) != (ssize_t) strlen (xml))
    {
      perror ("bench-flows-simgrid: write");
      exit (1);
    }
  close (fd);
  g_free (xml);
  return path;
}

static void
run_case (guint n_hosts, guint radix, gboolean staggered)
{
  char *args[] = {
    "bench-flows-simgrid", "--cfg=network/model:CM02", "--cfg=network/TCP-gamma:0",
    "--cfg=contexts/stack-size:64", "--log=root.thresh:critical", NULL
  };
  int argc = G_N_ELEMENTS (args) - 1;
  BenchFlow *flows = bench_flows_draw (n_hosts, staggered);
  Transfer *x = g_new0 (Transfer, N_FLOWS);
  char *platform = write_platform (n_hosts, radix);
  gint64 t0, t1;

  simgrid_init (&argc, args);
  simgrid_load_platform (platform);
  g_unlink (platform);
  for (guint i = 0; i < N_FLOWS; i++)
    {
      char src[16], dst[16];
      sg_actor_t a;

      x[i].flow = &flows[i];
      g_snprintf (x[i].mailbox, sizeof x[i].mailbox, "t%u", i);
      g_snprintf (src, sizeof src, "h%u", flows[i].src);
      g_snprintf (dst, sizeof dst, "h%u", flows[i].dst);
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
  printf ("%6u hosts  %-9s  SimGrid CM02  run %7.3f s  %9.0f flows/s  makespan %.3f ms\n",
          n_hosts, staggered ? "staggered" : "at once", (t1 - t0) / 1e6,
          N_FLOWS / ((t1 - t0) / 1e6), simgrid_get_clock () * 1e3);
  fflush (stdout);
  g_free (platform);
}

static int
fork_case (guint n_hosts, guint radix, gboolean staggered)
{
  int status = 0;
  pid_t pid;

  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    {
      perror ("bench-flows-simgrid: fork");
      return 1;
    }
  if (pid == 0)
    {
      run_case (n_hosts, radix, staggered);
      _exit (0);
    }
  if (waitpid (pid, &status, 0) < 0 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "bench-flows-simgrid: the %u-host case failed\n", n_hosts);
      return 1;
    }
  return 0;
}

int
main (void)
{
  int rc = 0;

  printf ("bench-flows-simgrid: the %u transfers of bench-flows on SimGrid %d.%d "
          "(CM02 max-min, split-duplex links)\n", N_FLOWS, SIMGRID_VERSION_MAJOR,
          SIMGRID_VERSION_MINOR);
  rc |= fork_case (1024, 64, FALSE);
  rc |= fork_case (1024, 64, TRUE);
  rc |= fork_case (8192, 128, FALSE);
  rc |= fork_case (8192, 128, TRUE);
  return rc;
}
