/* check-transfers.c: transfers over a host network, against closed forms.
 *
 * What it checks: a transfer alone takes latency + bytes / bandwidth; two
 * transfers sharing a NIC each get half until the first finishes; a
 * staggered start; flows crossing an oversubscribed leaf uplink of a
 * fat-tree next to a flow inside the leaf (max-min solved by hand beside
 * the case); zero-byte transfers; a transfer added from a callback;
 * callbacks in completion order; many random flows each no faster than
 * alone and, together, within every NIC's and every leaf's uplink
 * capacity over their span; the errors for bad arguments; transfers
 * read from a CSV file (times by hand, the CSV written back, progress) and
 * the errors for bad files, naming line and column; a callback that
 * stops the run with sim_transfers_fail().  What
 * it does not check: speed (bench/bench-flows does).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <sim.h>
#include "fabric/sim-transfers-private.h"

/* 1 byte/ns, 1 us per network link: a route through one switch has 2 us
 * of latency, through a spine 4 us. */
#define BW 1e9
#define LINK 1000
#define ONE_HOP (2 * LINK)
#define TWO_HOPS (4 * LINK)

typedef struct {
  guint   ids[16];
  SimTime times[16];
  guint   n;
} Log;

static void
record (SimTransfers *transfers, guint id, SimTime completion, gpointer user_data)
{
  Log *log = user_data;

  (void) transfers;
  ck_assert_uint_lt (log->n, G_N_ELEMENTS (log->ids));
  log->ids[log->n] = id;
  log->times[log->n] = completion;
  log->n++;
}

static SimTransfers *
hosts (guint n, SimFabricKind kind, guint radix, double oversub)
{
  g_autoptr(GError) error = NULL;
  SimTransfers *t = sim_transfers_new_hosts (n, BW, kind, radix, oversub, LINK, &error);

  ck_assert_msg (t != NULL, "%s", error != NULL ? error->message : "");
  return t;
}

static guint
add (SimTransfers *t, guint src, guint dst, double bytes, SimTime start, Log *log)
{
  g_autoptr(GError) error = NULL;
  guint id = sim_transfers_add (t, src, dst, bytes, start, log != NULL ? record : NULL, log,
                                NULL, &error);

  ck_assert_msg (id != 0, "%s", error != NULL ? error->message : "");
  return id;
}

static void
run (SimTransfers *t)
{
  g_autoptr(GError) error = NULL;

  ck_assert_msg (sim_transfers_run (t, &error), "%s", error != NULL ? error->message : "");
}

/* One transfer alone: latency + bytes / bandwidth. */
START_TEST (test_alone)
{
  g_autoptr(SimTransfers) t = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
  Log log = { 0 };
  guint id = add (t, 0, 3, 1e6, 0, &log);

  run (t);
  ck_assert_uint_eq (log.n, 1);
  ck_assert_uint_eq (log.ids[0], id);
  ck_assert_int_eq (log.times[0], 1000000 + ONE_HOP);
  ck_assert_int_eq (sim_transfers_get_completion (t, id), 1000000 + ONE_HOP);
  /* Starting later shifts it. */
  id = add (t, 1, 2, 5e5, 2000000, &log);
  run (t);
  ck_assert_int_eq (sim_transfers_get_completion (t, id), 2000000 + 500000 + ONE_HOP);
}
END_TEST

/* Two transfers out of host 0 (1 MB and 3 MB): each sends at 0.5 B/ns
 * until the first has sent its 1 MB at 2 ms; the second has 2 MB left,
 * alone at 1 B/ns: done sending at 4 ms (4 MB through one NIC at 1 B/ns). */
START_TEST (test_shared_nic)
{
  g_autoptr(SimTransfers) t = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
  Log log = { 0 };
  guint a = add (t, 0, 1, 1e6, 0, &log);
  guint b = add (t, 0, 2, 3e6, 0, &log);

  run (t);
  ck_assert_uint_eq (log.n, 2);
  ck_assert_int_eq (sim_transfers_get_completion (t, a), 2000000 + ONE_HOP);
  ck_assert_int_eq (sim_transfers_get_completion (t, b), 4000000 + ONE_HOP);
  ck_assert_uint_eq (log.ids[0], a);
  ck_assert_uint_eq (log.ids[1], b);
}
END_TEST

/* A: 2 MB from host 0 to 1 at 0; B: 0.5 MB from host 2 to 1 at 1 ms,
 * sharing host 1's downlink.  A alone sends 1 MB by 1 ms; then both at
 * 0.5 B/ns: B ends sending at 2 ms, when A has 0.5 MB left, sent alone
 * by 2.5 ms.  B completes first. */
START_TEST (test_staggered)
{
  g_autoptr(SimTransfers) t = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
  Log log = { 0 };
  guint a = add (t, 0, 1, 2e6, 0, &log);
  guint b = add (t, 2, 1, 5e5, 1000000, &log);

  run (t);
  ck_assert_uint_eq (log.n, 2);
  ck_assert_uint_eq (log.ids[0], b);
  ck_assert_int_eq (log.times[0], 2000000 + ONE_HOP);
  ck_assert_uint_eq (log.ids[1], a);
  ck_assert_int_eq (log.times[1], 2500000 + ONE_HOP);
  ck_assert_int_eq (sim_transfers_get_now (t), 2500000 + ONE_HOP);
}
END_TEST

/* Radix 4, 3:1 oversubscription: leaves of 3 hosts with 1 uplink each,
 * hosts 0-2 on leaf 0, 3-5 on leaf 1, one spine; every link 1 B/ns.
 * A, B, C (0->3, 1->4, 2->5, 3 MB each) cross leaf 0's uplink; D (0->1,
 * 3 MB) stays in leaf 0 and shares host 0's NIC with A.  Max-min: the
 * uplink is the tightest, 1/3 each for A, B, C; D takes the rest of host
 * 0's NIC, 2/3.  D ends sending at 3 MB / (2/3) = 4.5 ms; A, B, C have
 * 1.5 MB left each, still at 1/3 (the uplink): 4.5 ms more, to 9 ms. */
START_TEST (test_oversubscribed)
{
  g_autoptr(SimTransfers) t = hosts (6, SIM_FABRIC_FAT_TREE, 4, 3);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  Log log = { 0 };
  guint a = add (t, 0, 3, 3e6, 0, &log);
  guint b = add (t, 1, 4, 3e6, 0, &log);
  guint c = add (t, 2, 5, 3e6, 0, &log);
  guint d = add (t, 0, 1, 3e6, 0, &log);
  SimTime latency = 0;

  ck_assert (sim_topology_route (sim_transfers_get_topology (t), 0, 3, 1, path, &latency));
  ck_assert_int_eq (latency, TWO_HOPS);
  ck_assert (sim_topology_route (sim_transfers_get_topology (t), 0, 1, 1, path, &latency));
  ck_assert_int_eq (latency, ONE_HOP);

  run (t);
  ck_assert_uint_eq (log.n, 4);
  ck_assert_uint_eq (log.ids[0], d);
  ck_assert_int_eq (sim_transfers_get_completion (t, d), 4500000 + ONE_HOP);
  ck_assert_int_eq (sim_transfers_get_completion (t, a), 9000000 + TWO_HOPS);
  ck_assert_int_eq (sim_transfers_get_completion (t, b), 9000000 + TWO_HOPS);
  ck_assert_int_eq (sim_transfers_get_completion (t, c), 9000000 + TWO_HOPS);
}
END_TEST

/* Without oversubscription (radix 4: leaves of 2 hosts with 2 uplinks),
 * the same four flows: A and D share host 0's NIC (1/2 each), B and C run
 * at 1: B, C end sending at 3 ms; A and D at 6 ms.  D (0->1) stays on
 * leaf 0; the others cross a spine. */
START_TEST (test_non_blocking)
{
  g_autoptr(SimTransfers) t = hosts (6, SIM_FABRIC_FAT_TREE, 4, 1);
  guint a = add (t, 0, 3, 3e6, 0, NULL);
  guint b = add (t, 1, 4, 3e6, 0, NULL);
  guint c = add (t, 2, 5, 3e6, 0, NULL);
  guint d = add (t, 0, 1, 3e6, 0, NULL);

  ck_assert_int_eq (sim_transfers_get_completion (t, a), -1);
  run (t);
  ck_assert_int_eq (sim_transfers_get_completion (t, b), 3000000 + TWO_HOPS);
  ck_assert_int_eq (sim_transfers_get_completion (t, c), 3000000 + TWO_HOPS);
  ck_assert_int_eq (sim_transfers_get_completion (t, a), 6000000 + TWO_HOPS);
  ck_assert_int_eq (sim_transfers_get_completion (t, d), 6000000 + ONE_HOP);
}
END_TEST

static void
chain (SimTransfers *transfers, guint id, SimTime completion, gpointer user_data)
{
  Log *log = user_data;

  record (transfers, id, completion, user_data);
  if (log->n == 1)
    ck_assert_uint_ne (sim_transfers_add (transfers, 1, 0, 1e6, completion, record, log, NULL,
                                          NULL), 0);
  /* The past is refused. */
  ck_assert_uint_eq (sim_transfers_add (transfers, 1, 0, 1e6, completion - 1, NULL, NULL, NULL,
                                        NULL), 0);
}

START_TEST (test_zero_and_chained)
{
  g_autoptr(SimTransfers) t = hosts (2, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
  Log log = { 0 };
  guint z = add (t, 0, 1, 0, 500, NULL);
  g_autoptr(GError) error = NULL;

  ck_assert_uint_ne (sim_transfers_add (t, 0, 1, 1e6, 0, chain, &log, NULL, &error), 0);
  run (t);
  ck_assert_int_eq (sim_transfers_get_completion (t, z), 500 + ONE_HOP);
  ck_assert_uint_eq (log.n, 2);
  ck_assert_int_eq (log.times[0], 1000000 + ONE_HOP);
  ck_assert_int_eq (log.times[1], 2 * (1000000 + ONE_HOP));
}
END_TEST

static void
count_destroy (gpointer data)
{
  (*(int *) data)++;
}

START_TEST (test_destroy)
{
  int destroyed = 0;
  SimTransfers *t = hosts (2, SIM_FABRIC_SINGLE_SWITCH, 0, 0);

  ck_assert_uint_ne (sim_transfers_add (t, 0, 1, 10, 0, NULL, &destroyed, count_destroy, NULL), 0);
  ck_assert_uint_ne (sim_transfers_add (t, 1, 0, 10, 0, NULL, &destroyed, count_destroy, NULL), 0);
  run (t);
  ck_assert_int_eq (destroyed, 2);
  ck_assert_uint_ne (sim_transfers_add (t, 1, 0, 10, sim_transfers_get_now (t), NULL, &destroyed,
                                        count_destroy, NULL), 0);
  g_object_unref (t);
  ck_assert_int_eq (destroyed, 3);
}
END_TEST

static void
expect_add_error (SimTransfers *t, guint src, guint dst, double bytes, SimTime start,
                  const char *word)
{
  g_autoptr(GError) error = NULL;

  ck_assert_uint_eq (sim_transfers_add (t, src, dst, bytes, start, NULL, NULL, NULL, &error), 0);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert_msg (strstr (error->message, word) != NULL, "\"%s\" lacks \"%s\"", error->message,
                 word);
}

static void
expect_hosts_error (guint n, double bw, SimFabricKind kind, guint radix, double oversub,
                    SimTime latency, const char *word)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimTransfers) t = sim_transfers_new_hosts (n, bw, kind, radix, oversub, latency,
                                                       &error);

  ck_assert (t == NULL);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert_msg (strstr (error->message, word) != NULL, "\"%s\" lacks \"%s\"", error->message,
                 word);
}

START_TEST (test_errors)
{
  g_autoptr(SimTransfers) t = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);

  expect_add_error (t, 4, 0, 1, 0, "source endpoint 4");
  expect_add_error (t, 0, 9, 1, 0, "destination endpoint 9");
  expect_add_error (t, 2, 2, 1, 0, "both endpoint 2");
  expect_add_error (t, 0, 1, -1, 0, "-1 bytes");
  expect_add_error (t, 0, 1, NAN, 0, "bytes");
  expect_add_error (t, 0, 1, INFINITY, 0, "bytes");
  expect_add_error (t, 0, 1, 1, -5, "start time -5");
  ck_assert_int_eq (sim_transfers_get_completion (t, 1), -1);
  ck_assert_int_eq (sim_transfers_get_completion (t, 0), -1);

  /* After a run, a start before where it stopped is refused: it was moved
   * to that time without a word (1 MB asked at 0 after a run to 1.002 ms
   * "started" at 1.002 ms).  At that time exactly it is taken, and takes
   * latency + bytes / bandwidth from there. */
  {
    Log log = { 0 };
    SimTime stopped;
    guint id;

    add (t, 0, 1, 1e6, 0, &log);
    run (t);
    stopped = sim_transfers_get_now (t);
    ck_assert_int_eq (stopped, 1000000 + ONE_HOP);
    expect_add_error (t, 2, 3, 1e6, 0, "start time 0 ns: expected at least 1002000 ns");
    expect_add_error (t, 2, 3, 1e6, stopped - 1, "start time 1001999 ns");
    id = add (t, 2, 3, 1e6, stopped, &log);
    run (t);
    ck_assert_int_eq (sim_transfers_get_completion (t, id), stopped + 1000000 + ONE_HOP);
    ck_assert_uint_eq (log.n, 2);
  }

  expect_hosts_error (1, BW, SIM_FABRIC_SINGLE_SWITCH, 0, 0, 0, "1 hosts");
  expect_hosts_error (4, 0, SIM_FABRIC_SINGLE_SWITCH, 0, 0, 0, "bandwidth");
  expect_hosts_error (4, -BW, SIM_FABRIC_FAT_TREE, 4, 0, 0, "bandwidth");
  expect_hosts_error (4, BW, SIM_FABRIC_DRAGONFLY, 4, 0, 0, "dragonfly");
  expect_hosts_error (4, BW, SIM_FABRIC_FAT_TREE, 4, 0.5, 0, "oversubscription");
  expect_hosts_error (4, BW, SIM_FABRIC_FAT_TREE, 4, 0, -1, "latency");
  expect_hosts_error (8, BW, SIM_FABRIC_SINGLE_SWITCH, 4, 0, 0, "radix");
  expect_hosts_error (100, BW, SIM_FABRIC_FAT_TREE, 4, 0, 0, "radix");
}
END_TEST

/* At each completion, the queues hold no more entries than there are
 * transfers (each transfer at most once in each, and in one at a time). */
static void
check_queued (SimTransfers *t, guint done, guint total, gpointer data)
{
  guint *most = data;

  ck_assert_uint_le (sim__transfers_get_queued (t), total);
  *most = MAX (*most, sim__transfers_get_queued (t));
}

/* The leaf switch of host @h: the far end of its access link. */
static guint32
host_leaf (SimTopology *topology, guint h)
{
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimTime latency;

  ck_assert (sim_topology_route (topology, h, h == 0 ? 1 : 0, 0, path, &latency));
  for (guint i = 0; i < path->len; i++)
    {
      guint32 r = g_array_index (path, guint32, i);
      const SimLink *l = sim_topology_get_link (topology, r / 2);

      if (l->tier == SIM_TIER_ACCESS)
        return r % 2 == 0 ? l->b : l->a;
    }
  ck_assert_msg (FALSE, "host %u has no access link", h);
  return 0;
}

/* Whether the bytes of the flows that @member picks, each sending
 * between its start and its completion less @latency (no route of those
 * flows is shorter), fit through @capacity bytes/ns over the window from
 * the earliest start among them to the latest end of sending (1 byte of
 * rounding a flow aside); returns the share of that window the bytes
 * need at @capacity, or -1 when no flow is picked. */
static double
assert_fits (SimTransfers *t, const guint *ids, const double *bytes, const SimTime *starts,
             const gboolean *member, guint n_flows, SimTime latency, double capacity,
             const char *what)
{
  double sum = 0;
  SimTime first = G_MAXINT64, end = 0;
  guint n = 0;

  for (guint i = 0; i < n_flows; i++)
    if (member[i])
      {
        sum += bytes[i];
        first = MIN (first, starts[i]);
        end = MAX (end, sim_transfers_get_completion (t, ids[i]) - latency);
        n++;
      }
  if (n == 0)
    return -1;
  ck_assert_msg (sum <= (double) (end - first) * capacity + n,
                 "%s: %.0f bytes in %" G_GINT64_FORMAT " ns at %g B/ns", what, sum, end - first,
                 capacity);
  return sum / ((double) (end - first) * capacity);
}

/* Many flows between random pairs: every one completes, no sooner than
 * it could alone, and the run ends when the last does; the queues never
 * hold more entries than transfers, though rates change at every event.
 * No link carries more than its capacity: the flows out of (into) a host
 * share its NIC's one link of 1 B/ns, and those leaving a leaf for
 * another share the leaf's uplinks (4 of 1 B/ns on a full leaf of radix
 * 16 at 3:1, counted from the topology), so their bytes must fit in the
 * window from their earliest start to their latest end of sending at
 * that rate.  About 8 flows of 0.5 MB leave each host within 1 ms of
 * starts, and 3/4 of a leaf's flows leave it: the uplinks are the
 * bottleneck, busy for most of their window (the bytes need at least
 * 75 % of it on the busiest leaf: ECMP leaves some uplinks idle while
 * others queue), so shares a third above a link's capacity break the
 * bound. */
START_TEST (test_many)
{
  enum { HOSTS = 64, FLOWS = 500 };
  g_autoptr(SimTransfers) t = hosts (HOSTS, SIM_FABRIC_FAT_TREE, 16, 3);
  SimTopology *topology = sim_transfers_get_topology (t);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  guint ids[FLOWS], from[FLOWS], to[FLOWS];
  guint32 leaf[HOSTS];
  gboolean member[FLOWS];
  double bytes[FLOWS];
  SimTime starts[FLOWS], last = 0;
  guint most = 0;
  double busiest = 0;

  for (guint i = 0; i < FLOWS; i++)
    {
      guint src = g_rand_int_range (rand, 0, HOSTS), dst = g_rand_int_range (rand, 0, HOSTS - 1);
      if (dst >= src)
        dst++;
      from[i] = src;
      to[i] = dst;
      bytes[i] = g_rand_double_range (rand, 0, 1e6);
      starts[i] = g_rand_int_range (rand, 0, 1000000);
      ids[i] = add (t, src, dst, bytes[i], starts[i], NULL);
    }
  sim_transfers_set_progress_func (t, check_queued, &most, NULL);
  run (t);
  ck_assert_uint_gt (most, 0);
  for (guint i = 0; i < FLOWS; i++)
    {
      SimTime c = sim_transfers_get_completion (t, ids[i]);
      ck_assert_int_ge (c, starts[i] + (SimTime) floor (bytes[i]) + ONE_HOP);
      last = MAX (last, c);
    }
  ck_assert_int_eq (last, sim_transfers_get_now (t));
  ck_assert_uint_gt (sim_transfers_get_n_solves (t), 0);

  /* Each host's NIC, out and in. */
  for (guint h = 0; h < HOSTS; h++)
    {
      g_autofree char *out = g_strdup_printf ("out of host %u", h);
      g_autofree char *in = g_strdup_printf ("into host %u", h);

      for (guint i = 0; i < FLOWS; i++)
        member[i] = from[i] == h;
      assert_fits (t, ids, bytes, starts, member, FLOWS, ONE_HOP, BW * 1e-9, out);
      for (guint i = 0; i < FLOWS; i++)
        member[i] = to[i] == h;
      assert_fits (t, ids, bytes, starts, member, FLOWS, ONE_HOP, BW * 1e-9, in);
    }
  /* Each leaf's uplinks, for the flows that leave it. */
  for (guint h = 0; h < HOSTS; h++)
    leaf[h] = host_leaf (topology, h);
  for (guint h = 0; h < HOSTS; h++)
    {
      double up = 0;
      g_autofree char *what = g_strdup_printf ("out of leaf %u", leaf[h]);

      if (h > 0 && leaf[h] == leaf[h - 1])
        continue;
      for (guint l = 0; l < sim_topology_get_n_links (topology); l++)
        {
          const SimLink *k = sim_topology_get_link (topology, l);
          if (k->tier == SIM_TIER_AGGREGATION && (k->a == leaf[h] || k->b == leaf[h]))
            up += sim_topology_resource_capacity (topology, 2 * l) * 1e-9;
        }
      ck_assert_double_gt (up, 0);
      for (guint i = 0; i < FLOWS; i++)
        member[i] = leaf[from[i]] == leaf[h] && leaf[to[i]] != leaf[h];
      busiest = MAX (busiest, assert_fits (t, ids, bytes, starts, member, FLOWS, TWO_HOPS, up,
                                           what));
    }
  ck_assert_double_ge (busiest, 0.75);
}
END_TEST

/* Writes @text to a temporary file; returns its path. */
static char *
temp_file (const char *text)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("check-transfers-XXXXXX.csv", &path, &error);

  ck_assert_msg (fd >= 0, "%s", error != NULL ? error->message : "");
  close (fd);
  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
count_progress (SimTransfers *t, guint done, guint total, gpointer data)
{
  guint *calls = data;

  (void) t;
  ck_assert_uint_le (done, total);
  calls[0]++;
  calls[1] = done;
  calls[2] = total;
}

/* Transfers from a file, as sim_transfers_add() gives them: two sharing
 * host 3's NIC (half the bandwidth each until both end), one alone from
 * 1 ms (plain seconds, a unit, plain bytes, an exponent and a size); the
 * CSV written holds what was read and the times worked out by hand; the
 * progress function sees every completion. */
START_TEST (test_from_file)
{
  g_autoptr(SimTransfers) t = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
  g_autofree char *in = temp_file ("SRC,dst,bytes,start\n"
                                   "0,3,1e6,0\n\n"
                                   "1,3,1000000,0s\n"
                                   "2,0,1MB,0.001\n");
  g_autofree char *out = temp_file ("");
  g_autofree char *written = NULL;
  g_autoptr(GError) error = NULL;
  guint n = 0, src, dst, calls[3] = { 0 };
  double bytes;
  SimTime start;

  sim_transfers_set_progress_func (t, count_progress, calls, NULL);
  ck_assert_msg (sim_transfers_add_from_file (t, in, &n, &error), "%s",
                 error != NULL ? error->message : "");
  ck_assert_uint_eq (n, 3);
  ck_assert_uint_eq (sim_transfers_get_n_transfers (t), 3);
  ck_assert (sim_transfers_get_transfer (t, 3, &src, &dst, &bytes, &start));
  ck_assert_uint_eq (src, 2);
  ck_assert_uint_eq (dst, 0);
  ck_assert (bytes == 1e6);
  ck_assert_int_eq (start, 1000000);
  ck_assert (!sim_transfers_get_transfer (t, 4, NULL, NULL, NULL, NULL));
  run (t);
  /* 1e6 bytes at 0.5 byte/ns: 2 ms, plus two links; alone at 1 byte/ns: 1 ms. */
  ck_assert_int_eq (sim_transfers_get_completion (t, 1), 2000000 + ONE_HOP);
  ck_assert_int_eq (sim_transfers_get_completion (t, 2), 2000000 + ONE_HOP);
  ck_assert_int_eq (sim_transfers_get_completion (t, 3), 1000000 + 1000000 + ONE_HOP);
  ck_assert_uint_ge (calls[0], 1);
  ck_assert_uint_eq (calls[1], 3);
  ck_assert_uint_eq (calls[2], 3);
  ck_assert_msg (sim_transfers_write_csv (t, out, &error), "%s",
                 error != NULL ? error->message : "");
  ck_assert (g_file_get_contents (out, &written, NULL, NULL));
  ck_assert_str_eq (written,
                    "id,src,dst,bytes,start_s,end_s,duration_s,gbytes_per_s\n"
                    "1,0,3,1000000,0.000000000,0.002002000,0.002002000,0.499500\n"
                    "2,1,3,1000000,0.000000000,0.002002000,0.002002000,0.499500\n"
                    "3,2,0,1000000,0.001000000,0.002002000,0.001002000,0.998004\n");
  g_unlink (in);
  g_unlink (out);
}
END_TEST

/* A bad file adds nothing and names the file, line, column and what was
 * expected. */
static void
expect_file_error (const char *text, GQuark domain, gint code, const char *words)
{
  g_autoptr(SimTransfers) t = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
  g_autofree char *path = temp_file (text);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *where = g_strdup_printf ("%s:%s", base, words);
  g_autoptr(GError) error = NULL;
  guint n = 7;

  ck_assert (!sim_transfers_add_from_file (t, path, &n, &error));
  ck_assert_uint_eq (n, 0);
  ck_assert_uint_eq (sim_transfers_get_n_transfers (t), 0);
  ck_assert_msg (g_error_matches (error, domain, code), "%s", error->message);
  ck_assert_msg (strstr (error->message, where) != NULL, "\"%s\" lacks \"%s\"", error->message,
                 where);
  g_unlink (path);
}

START_TEST (test_file_errors)
{
  g_autoptr(SimTransfers) t = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
  g_autoptr(GError) error = NULL;

  expect_file_error ("src,dst,bytes\n0,1,1MB\n0,4,1MB\n", SIM_ERROR, SIM_ERROR_TRACE,
                     "3:3: dst: endpoint 4 does not exist: expected 0 to 3");
  expect_file_error ("src,dst,bytes\n1,1,1MB\n", SIM_ERROR, SIM_ERROR_TRACE,
                     "2:3: dst: 1 is the source too");
  expect_file_error ("src,dst,bytes\n-1,1,1MB\n", SIM_ERROR, SIM_ERROR_TRACE,
                     "2:1: src: \"-1\": expected an endpoint index");
  expect_file_error ("src,dst,bytes\n0,1,2.5\n", SIM_ERROR, SIM_ERROR_TRACE,
                     "2:5: bytes: \"2.5\": expected whole bytes");
  expect_file_error ("src,dst,bytes\n0,1,lots\n", SIM_ERROR, SIM_ERROR_TRACE,
                     "2:5: bytes: \"lots\": expected a size");
  expect_file_error ("src,dst,bytes,start\n0,1,1MB,-2ms\n", SIM_ERROR, SIM_ERROR_TRACE,
                     "2:9: start: \"-2ms\": expected a time");
  expect_file_error ("src,dst\n0,1\n", SIM_ERROR, SIM_ERROR_TRACE, "1: ");
  expect_file_error ("src,dst,bytes,size\n0,1,1,1\n", SIM_ERROR, SIM_ERROR_TRACE,
                     "1: column 4 of the header, \"size\"");
  expect_file_error ("src,dst,bytes\n0,1\n", SIM_ERROR, SIM_ERROR_TRACE, "2: expected 3 fields");
  ck_assert (!sim_transfers_add_from_file (t, "/nonexistent/x.csv", NULL, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
}
END_TEST

/* A callback that gives up when transfer FAIL_ID completes, before adding
 * the transfer it would have added; or a progress function that gives up
 * at its first call. */
typedef struct {
  Log   log;
  guint fail_id;
} Giving;

static void
give_up (SimTransfers *transfers, guint id, SimTime completion, gpointer user_data)
{
  Giving *g = user_data;

  record (transfers, id, completion, &g->log);
  if (id == g->fail_id)
    {
      g_autoptr(GError) error = g_error_new (G_FILE_ERROR, G_FILE_ERROR_PIPE,
                                             "transfer %u: the log is gone", id);
      ck_assert (sim_transfers_fail (transfers, error));
      ck_assert (!sim_transfers_fail (transfers, error));
      return;
    }
  ck_assert_uint_ne (sim_transfers_add (transfers, 1, 0, 1e6, completion, give_up, g, NULL,
                                        NULL), 0);
}

static void
give_up_progress (SimTransfers *transfers, guint done, guint total, gpointer user_data)
{
  g_autoptr(GError) error = g_error_new_literal (SIM_ERROR, SIM_ERROR_IO, "no terminal");

  (*(guint *) user_data)++;
  sim_transfers_fail (transfers, error);
}

/* sim_transfers_fail() from a callback stops the run as the callback
 * returns, with the error as given; what the callback did not add never
 * runs, and later runs fail the same way.  Truth: each transfer of the
 * chain (1 MB on one switch, the next starting at the previous one's
 * completion) completes at k x (1 ms + 2 us); the one whose callback fails
 * is the second, so two complete and no third is added.  A transfer
 * completing at the same instant as the failing one is left incomplete;
 * a progress function that fails stops the run after its first call. */
START_TEST (test_callback_fails)
{
  g_autoptr(SimTransfers) t = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
  g_autoptr(GError) error = NULL;
  Giving g = { .fail_id = 2 };

  ck_assert_uint_eq (sim_transfers_add (t, 0, 1, 1e6, 0, give_up, &g, NULL, &error), 1);
  ck_assert (!sim_transfers_run (t, &error));
  ck_assert (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_PIPE));
  ck_assert_str_eq (error->message, "transfer 2: the log is gone");
  ck_assert_uint_eq (g.log.n, 2);
  ck_assert_int_eq (g.log.times[1], 2 * (1000000 + ONE_HOP));
  ck_assert_uint_eq (sim_transfers_get_n_transfers (t), 2);
  g_clear_error (&error);
  /* Adding more does not make it go on. */
  add (t, 2, 3, 1e6, sim_transfers_get_now (t), NULL);
  ck_assert (!sim_transfers_run (t, &error));
  ck_assert (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_PIPE));
  ck_assert_int_eq (sim_transfers_get_completion (t, 3), -1);
  g_clear_error (&error);

  {
    /* Two transfers complete at one instant; the first one's callback
     * fails: the second stays incomplete. */
    g_autoptr(SimTransfers) u = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
    Giving h = { .fail_id = 1 };
    guint calls = 0;

    ck_assert_uint_eq (sim_transfers_add (u, 0, 1, 1e6, 0, give_up, &h, NULL, NULL), 1);
    ck_assert_uint_eq (sim_transfers_add (u, 2, 3, 1e6, 0, give_up, &h, NULL, NULL), 2);
    sim_transfers_set_progress_func (u, give_up_progress, &calls, NULL);
    ck_assert (!sim_transfers_run (u, &error));
    ck_assert_str_eq (error->message, "transfer 1: the log is gone");
    ck_assert_uint_eq (h.log.n, 1);
    ck_assert_int_eq (sim_transfers_get_completion (u, 2), -1);
    ck_assert_uint_eq (calls, 0);
    g_clear_error (&error);
  }
  {
    /* The progress function fails at its first call, after the first
     * instant: the later transfer never completes. */
    g_autoptr(SimTransfers) u = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
    guint calls = 0;

    add (u, 0, 1, 1e6, 0, NULL);
    add (u, 2, 3, 1e6, 5000000, NULL);
    sim_transfers_set_progress_func (u, give_up_progress, &calls, NULL);
    ck_assert (!sim_transfers_run (u, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
    ck_assert_uint_eq (calls, 1);
    ck_assert_int_eq (sim_transfers_get_completion (u, 1), 1000000 + ONE_HOP);
    ck_assert_int_eq (sim_transfers_get_completion (u, 2), -1);
    g_clear_error (&error);
  }
  {
    /* A failure reported before the run: it fails at its start. */
    g_autoptr(SimTransfers) u = hosts (4, SIM_FABRIC_SINGLE_SWITCH, 0, 0);
    g_autoptr(GError) before = g_error_new_literal (SIM_ERROR, SIM_ERROR_STATE, "not now");

    add (u, 0, 1, 1e6, 0, NULL);
    ck_assert (sim_transfers_fail (u, before));
    ck_assert (!sim_transfers_run (u, &error));
    ck_assert_str_eq (error->message, "not now");
    ck_assert_int_eq (sim_transfers_get_completion (u, 1), -1);
  }
}
END_TEST

static Suite *
transfers_suite (void)
{
  Suite *s = suite_create ("transfers");
  TCase *tc = tcase_create ("closed forms");

  tcase_add_test (tc, test_alone);
  tcase_add_test (tc, test_shared_nic);
  tcase_add_test (tc, test_staggered);
  tcase_add_test (tc, test_oversubscribed);
  tcase_add_test (tc, test_non_blocking);
  tcase_add_test (tc, test_zero_and_chained);
  tcase_add_test (tc, test_destroy);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_many);
  tcase_add_test (tc, test_from_file);
  tcase_add_test (tc, test_file_errors);
  tcase_add_test (tc, test_callback_fails);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (transfers_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
