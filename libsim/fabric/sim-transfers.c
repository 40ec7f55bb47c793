/* sim-transfers.c: point-to-point transfers as max-min fair flows.
 *
 * Times inside the loop are doubles in nanoseconds (a flow's end of
 * sending falls between nanoseconds); completions are rounded to the
 * nearest nanosecond.  Rates are kept in bytes per nanosecond.
 */
#include "config.h"

#include "sim-transfers.h"
#include "core/sim-maxmin.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "workload/sim-trace-util.h"
#include "fabric/sim-transfers-private.h"

#include <math.h>
#include <stdio.h>

/* Two ends of sending closer than this (ns) are handled as one instant. */
#define SAME_INSTANT 1e-3

typedef enum {
  STATE_WAITING,   /* before its start */
  STATE_SENDING,
  STATE_IN_FLIGHT, /* last byte sent, latency running */
  STATE_DONE,
} State;

typedef struct {
  guint32        src, dst;
  double         bytes;
  SimTime        start;
  SimTime        latency;
  SimTime        completion;   /* -1 until done */
  guint32        first_res;    /* its route in self->routes */
  guint32        n_res;
  SimTransferFunc func;
  gpointer       user_data;
  GDestroyNotify destroy;
  SimMaxminId    flow;
  double         remaining;    /* bytes, as of @last */
  double         last;         /* ns */
  double         rate;         /* bytes/ns */
  double         send_time;    /* ns: its end of sending at its rate, while in sends */
  guint32        send_pos;     /* its place in sends, NO_POS when not there */
  guint8         state;
} Transfer;

typedef struct {
  double  time;
  guint32 id;
} Entry;

#define NO_POS G_MAXUINT32

typedef struct {
  GArray *a;  /* Entry, a binary min-heap by (time, id) */
} Heap;

struct _SimTransfers {
  GObject      parent_instance;
  SimTopology *topology;
  SimTopology *owned;         /* nullable: freed with the simulator */
  SimMaxmin   *maxmin;
  SimMaxminId *res_map;       /* per topology resource: its solver resource, or 0 */
  guint        n_res_map;
  GArray      *transfers;     /* Transfer; id = index + 1 */
  GArray      *routes;        /* guint32 topology resources, all routes end to end */
  Heap         starts, completions;
  GArray      *sends;         /* guint32 ids: the ends of sending (sends_*()) */
  double       now;           /* ns */
  guint64      events;
  gboolean     running;
  guint32      overflow;      /* a transfer whose completion is past SimTime, or 0 */
  guint        n_done;
  SimTransfersProgressFunc progress;
  gpointer     progress_data;
  GDestroyNotify progress_destroy;
  GError      *failure;       /* nullable: what sim_transfers_fail() was given */
};

G_DEFINE_FINAL_TYPE (SimTransfers, sim_transfers, G_TYPE_OBJECT)

/* ------------------------------------------------------------------------ */
/* Heaps */

static inline gboolean
entry_less (const Entry *x, const Entry *y)
{
  return x->time < y->time || (x->time == y->time && x->id < y->id);
}

static void
heap_push (Heap *h, double time, guint32 id)
{
  Entry e = { time, id };
  Entry *a;
  guint i;

  g_array_append_val (h->a, e);
  a = (Entry *) (gpointer) h->a->data;
  i = h->a->len - 1;
  while (i > 0)
    {
      guint p = (i - 1) / 2;
      if (!entry_less (&e, &a[p]))
        break;
      a[i] = a[p];
      i = p;
    }
  a[i] = e;
}

static Entry
heap_pop (Heap *h)
{
  Entry *a = (Entry *) (gpointer) h->a->data;
  Entry top = a[0], last = a[h->a->len - 1];
  guint n = h->a->len - 1, i = 0;

  g_array_set_size (h->a, n);
  if (n == 0)
    return top;
  for (;;)
    {
      guint c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && entry_less (&a[c + 1], &a[c]))
        c++;
      if (!entry_less (&a[c], &last))
        break;
      a[i] = a[c];
      i = c;
    }
  a[i] = last;
  return top;
}

static inline const Entry *
heap_top (const Heap *h)
{
  return h->a->len > 0 ? &g_array_index (h->a, Entry, 0) : NULL;
}

/* ------------------------------------------------------------------------ */
/* The object */

static inline Transfer *
transfer (SimTransfers *self, guint32 id)
{
  return &g_array_index (self->transfers, Transfer, id - 1);
}

/* The ends of sending: a binary min-heap of transfer ids by (send_time,
 * id), the order the heaps above keep, each sending transfer at most once
 * with its place in Transfer.send_pos.  A rate change moves its entry in
 * place: when thousands of flows share one component, every solve changes
 * every rate, and an entry per change would grow the heap by that many
 * at every event. */
static inline gboolean
sends_less (SimTransfers *self, guint32 a, guint32 b)
{
  const Transfer *x = transfer (self, a), *y = transfer (self, b);
  return x->send_time < y->send_time || (x->send_time == y->send_time && a < b);
}

static inline void
sends_place (SimTransfers *self, guint32 pos, guint32 id)
{
  g_array_index (self->sends, guint32, pos) = id;
  transfer (self, id)->send_pos = pos;
}

static void
sends_sift (SimTransfers *self, guint32 pos)
{
  guint32 *a = (guint32 *) (gpointer) self->sends->data, n = self->sends->len, id = a[pos];

  while (pos > 0 && sends_less (self, id, a[(pos - 1) / 2]))
    {
      sends_place (self, pos, a[(pos - 1) / 2]);
      pos = (pos - 1) / 2;
    }
  for (;;)
    {
      guint32 c = 2 * pos + 1;
      if (c >= n)
        break;
      if (c + 1 < n && sends_less (self, a[c + 1], a[c]))
        c++;
      if (!sends_less (self, a[c], id))
        break;
      sends_place (self, pos, a[c]);
      pos = c;
    }
  sends_place (self, pos, id);
}

/* Puts @id's end of sending at @time, in the heap or moved within it. */
static void
sends_set (SimTransfers *self, guint32 id, double time)
{
  Transfer *x = transfer (self, id);

  x->send_time = time;
  if (x->send_pos == NO_POS)
    {
      g_array_append_val (self->sends, id);
      x->send_pos = self->sends->len - 1;
    }
  sends_sift (self, x->send_pos);
}

static void
sends_remove (SimTransfers *self, guint32 id)
{
  Transfer *x = transfer (self, id);
  guint32 pos = x->send_pos, last;

  if (pos == NO_POS)
    return;
  x->send_pos = NO_POS;
  last = g_array_index (self->sends, guint32, self->sends->len - 1);
  g_array_set_size (self->sends, self->sends->len - 1);
  if (last != id)
    {
      sends_place (self, pos, last);
      sends_sift (self, pos);
    }
}

/* The transfer whose sending ends first, or 0. */
static inline guint32
sends_top (SimTransfers *self)
{
  return self->sends->len > 0 ? g_array_index (self->sends, guint32, 0) : 0;
}

static void
sim_transfers_finalize (GObject *object)
{
  SimTransfers *self = SIM_TRANSFERS (object);

  for (guint i = 0; i < self->transfers->len; i++)
    {
      Transfer *x = &g_array_index (self->transfers, Transfer, i);
      if (x->destroy != NULL)
        x->destroy (x->user_data);
    }
  if (self->progress_destroy != NULL)
    self->progress_destroy (self->progress_data);
  g_clear_error (&self->failure);
  g_array_unref (self->transfers);
  g_array_unref (self->routes);
  g_array_unref (self->starts.a);
  g_array_unref (self->sends);
  g_array_unref (self->completions.a);
  sim_maxmin_free (self->maxmin);
  g_free (self->res_map);
  sim_topology_free (self->owned);
  G_OBJECT_CLASS (sim_transfers_parent_class)->finalize (object);
}

static void
sim_transfers_class_init (SimTransfersClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_transfers_finalize;
}

static void
sim_transfers_init (SimTransfers *self)
{
  self->transfers = g_array_new (FALSE, FALSE, sizeof (Transfer));
  self->routes = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->starts.a = g_array_new (FALSE, FALSE, sizeof (Entry));
  self->sends = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->completions.a = g_array_new (FALSE, FALSE, sizeof (Entry));
  self->maxmin = sim_maxmin_new ();
}

SimTransfers *
sim_transfers_new (SimTopology *topology)
{
  SimTransfers *self;

  g_return_val_if_fail (topology != NULL, NULL);

  self = g_object_new (SIM_TYPE_TRANSFERS, NULL);
  self->topology = topology;
  self->n_res_map = sim_topology_get_n_resources (topology);
  self->res_map = g_new0 (SimMaxminId, MAX (1u, self->n_res_map));
  return self;
}

SimTransfers *
sim_transfers_new_hosts (guint n_hosts, double host_bandwidth, SimFabricKind kind, guint radix,
                         double oversubscription, SimTime link_latency, GError **error)
{
  SimTopology *t = sim_topology_new_hosts (n_hosts, host_bandwidth, kind, radix,
                                           oversubscription, link_latency, error);
  SimTransfers *self;

  if (t == NULL)
    return NULL;
  self = sim_transfers_new (t);
  self->owned = t;
  return self;
}

SimTopology *
sim_transfers_get_topology (SimTransfers *self)
{
  g_return_val_if_fail (SIM_IS_TRANSFERS (self), NULL);
  return self->topology;
}

guint
sim_transfers_get_n_endpoints (SimTransfers *self)
{
  g_return_val_if_fail (SIM_IS_TRANSFERS (self), 0);
  return sim_topology_get_n_gpus (self->topology);
}

guint
sim_transfers_add (SimTransfers *self, guint src, guint dst, double bytes, SimTime start,
                   SimTransferFunc func, gpointer user_data, GDestroyNotify destroy,
                   GError **error)
{
  g_autoptr(GArray) path = NULL;
  Transfer x = { 0 };
  SimTime earliest;
  guint32 id;
  guint n;

  g_return_val_if_fail (SIM_IS_TRANSFERS (self), 0);

  n = sim_topology_get_n_gpus (self->topology);
  earliest = (SimTime) ceil (self->now);

  if (src >= n || dst >= n)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s endpoint %u does not exist: expected 0 to %u", src >= n ? "source"
                   : "destination", src >= n ? src : dst, n - 1);
      return 0;
    }
  if (src == dst)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "source and destination are both endpoint %u: expected two endpoints", src);
      return 0;
    }
  if (!(bytes >= 0) || isinf (bytes))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%g bytes: expected a finite number of bytes, at least 0", bytes);
      return 0;
    }
  /* Not before now, whether from a callback or between runs: a start
   * already past would otherwise be moved silently to where the last run
   * stopped, its duration and end with it. */
  if (start < 0 || start < earliest)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "start time %" G_GINT64_FORMAT " ns: expected at least %" G_GINT64_FORMAT
                   " ns (%s)", start, start < 0 ? (SimTime) 0 : earliest,
                   start < 0 ? "times are not negative" : "the simulated time now");
      return 0;
    }
  if (self->transfers->len >= G_MAXUINT32 - 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "too many transfers");
      return 0;
    }

  path = g_array_new (FALSE, FALSE, sizeof (guint32));
  id = self->transfers->len + 1;
  if (!sim_topology_route (self->topology, src, dst, id, path, &x.latency))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "endpoints %u and %u are not connected by the network", src, dst);
      return 0;
    }
  /* Resources of unbounded capacity (a host's link to its own NIC)
   * never constrain a flow: leave them out of the solver. */
  x.first_res = self->routes->len;
  for (guint i = 0; i < path->len; i++)
    {
      guint32 r = g_array_index (path, guint32, i);
      if (isfinite (sim_topology_resource_capacity (self->topology, r)))
        g_array_append_val (self->routes, r);
    }
  x.n_res = self->routes->len - x.first_res;
  x.src = src;
  x.dst = dst;
  x.bytes = bytes;
  x.start = MAX (start, earliest);
  x.completion = -1;
  x.send_pos = NO_POS;
  x.func = func;
  x.user_data = user_data;
  x.destroy = destroy;
  x.state = STATE_WAITING;
  g_array_append_val (self->transfers, x);
  heap_push (&self->starts, (double) x.start, id);
  return id;
}

/* The solver resource of topology resource @r, made on first use. */
static SimMaxminId
solver_resource (SimTransfers *self, guint32 r)
{
  if (self->res_map[r] == SIM_MAXMIN_NO_ID)
    self->res_map[r] = sim_maxmin_add_resource (self->maxmin,
                                                sim_topology_resource_capacity (self->topology,
                                                                                r));
  return self->res_map[r];
}

/* @id has sent its last byte at @when (ns): its completion comes after
 * its route's latency. */
static void
finish_sending (SimTransfers *self, guint32 id, double when)
{
  Transfer *x = transfer (self, id);
  SimTime completion;

  /* A slow link (0.1 B/s) can put the end past the 292 years a SimTime
   * holds: the run stops there with an error rather than wrap around. */
  if (!sim__time_from_ns_checked (when, &completion) ||
      !sim__time_add_checked (completion, x->latency, &completion) ||
      completion == SIM_TIME_NEVER)
    {
      if (self->overflow == 0)
        self->overflow = id;
      completion = SIM_TIME_NEVER;
    }
  x->state = STATE_IN_FLIGHT;
  x->completion = completion;
  heap_push (&self->completions, (double) completion, id);
}

static void
start_transfer (SimTransfers *self, guint32 id, GArray *scratch)
{
  Transfer *x = transfer (self, id);

  if (x->bytes == 0 || x->n_res == 0)
    {
      /* Nothing to send, or nothing that limits it: done at once. */
      finish_sending (self, id, self->now);
      return;
    }
  g_array_set_size (scratch, x->n_res);
  for (guint i = 0; i < x->n_res; i++)
    g_array_index (scratch, SimMaxminId, i)
      = solver_resource (self, g_array_index (self->routes, guint32, x->first_res + i));
  x = transfer (self, id);
  x->flow = sim_maxmin_add_flow (self->maxmin, (const SimMaxminId *) (gpointer) scratch->data,
                                 x->n_res, 1.0, INFINITY, GUINT_TO_POINTER (id));
  x->state = STATE_SENDING;
  x->remaining = x->bytes;
  x->last = self->now;
  x->rate = 0;
}

/* Brings the changed flows' rates in and moves their ends of sending. */
static void
resolve (SimTransfers *self)
{
  const SimMaxminId *changed;
  guint n;

  sim_maxmin_solve (self->maxmin);
  changed = sim_maxmin_get_changed (self->maxmin, &n);
  for (guint i = 0; i < n; i++)
    {
      guint32 id = GPOINTER_TO_UINT (sim_maxmin_get_flow_data (self->maxmin, changed[i]));
      Transfer *x;
      double rate;

      if (id == 0)
        continue;
      x = transfer (self, id);
      rate = sim_maxmin_get_rate (self->maxmin, changed[i]) * 1e-9;
      x->remaining = MAX (0.0, x->remaining - x->rate * (self->now - x->last));
      x->last = self->now;
      x->rate = rate;
      if (rate > 0)
        sends_set (self, id, isinf (rate) ? self->now : self->now + x->remaining / rate);
      else
        sends_remove (self, id);
    }
}

gboolean
sim_transfers_run (SimTransfers *self, GError **error)
{
  g_autoptr(GArray) scratch = g_array_new (FALSE, FALSE, sizeof (SimMaxminId));

  g_return_val_if_fail (SIM_IS_TRANSFERS (self), FALSE);

  if (self->running)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "sim_transfers_run() called from a transfer's callback: expected it to "
                   "return first");
      return FALSE;
    }
  if (self->failure != NULL)
    {
      g_propagate_error (error, g_error_copy (self->failure));
      return FALSE;
    }
  self->running = TRUE;
  for (;;)
    {
      const Entry *s, *c;
      guint32 e;
      double t = INFINITY;
      gboolean touched = FALSE, completed = FALSE;

      s = heap_top (&self->starts);
      c = heap_top (&self->completions);
      e = sends_top (self);
      if (s != NULL)
        t = MIN (t, s->time);
      if (e != 0)
        t = MIN (t, transfer (self, e)->send_time);
      if (c != NULL)
        t = MIN (t, c->time);
      if (isinf (t))
        break;
      if (self->overflow != 0 || t >= (double) SIM_TIME_NEVER)
        {
          guint32 id = self->overflow != 0 ? self->overflow : e != 0 ? e : s != NULL ? s->id : c->id;
          const Transfer *x = transfer (self, id);

          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "transfer %u (%u to %u, %.17g "
                       "bytes) would end more than 292 years after the start, past the "
                       "simulated time's range: expected a faster network (--bandwidth, "
                       "[fabric]) or fewer bytes", id, x->src, x->dst, x->bytes);
          self->running = FALSE;
          return FALSE;
        }
      self->now = MAX (self->now, t);
      self->events++;

      /* Completions: their callbacks may add transfers. */
      while ((c = heap_top (&self->completions)) != NULL && c->time <= self->now)
        {
          Entry done = heap_pop (&self->completions);
          Transfer *x = transfer (self, done.id);
          SimTransferFunc func = x->func;
          gpointer data = x->user_data;
          GDestroyNotify destroy = x->destroy;
          SimTime when = x->completion;

          x->state = STATE_DONE;
          self->n_done++;
          completed = TRUE;
          x->func = NULL;
          x->destroy = NULL;
          if (func != NULL)
            func (self, done.id, when, data);
          if (destroy != NULL)
            destroy (data);
          if (self->failure != NULL)
            break;
        }

      if (completed && self->progress != NULL && self->failure == NULL)
        self->progress (self, self->n_done, self->transfers->len, self->progress_data);
      if (self->failure != NULL)
        {
          /* A callback stopped the run (sim_transfers_fail()). */
          self->running = FALSE;
          g_propagate_error (error, g_error_copy (self->failure));
          return FALSE;
        }

      /* Ends of sending at this instant. */
      while ((e = sends_top (self)) != 0
             && transfer (self, e)->send_time <= self->now + SAME_INSTANT)
        {
          Transfer *x = transfer (self, e);
          double when = x->send_time;

          sends_remove (self, e);
          sim_maxmin_remove_flow (self->maxmin, x->flow);
          x->flow = SIM_MAXMIN_NO_ID;
          x->remaining = 0;
          finish_sending (self, e, when);
          touched = TRUE;
        }

      /* Starts. */
      while ((s = heap_top (&self->starts)) != NULL && s->time <= self->now)
        {
          Entry go = heap_pop (&self->starts);
          start_transfer (self, go.id, scratch);
          touched = TRUE;
        }

      if (touched)
        resolve (self);
    }
  self->running = FALSE;
  return TRUE;
}

gboolean
sim_transfers_fail (SimTransfers *self, const GError *error)
{
  g_return_val_if_fail (SIM_IS_TRANSFERS (self), FALSE);
  g_return_val_if_fail (error != NULL, FALSE);
  if (self->failure != NULL)
    return FALSE;
  self->failure = g_error_copy (error);
  return TRUE;
}

SimTime
sim_transfers_get_completion (SimTransfers *self, guint id)
{
  g_return_val_if_fail (SIM_IS_TRANSFERS (self), -1);
  if (id == 0 || id > self->transfers->len)
    return -1;
  return transfer (self, id)->state == STATE_DONE ? transfer (self, id)->completion : -1;
}

SimTime
sim_transfers_get_now (SimTransfers *self)
{
  g_return_val_if_fail (SIM_IS_TRANSFERS (self), 0);
  return (SimTime) llround (self->now);
}

guint64
sim_transfers_get_n_solves (SimTransfers *self)
{
  SimMaxminStats stats;

  g_return_val_if_fail (SIM_IS_TRANSFERS (self), 0);
  sim_maxmin_get_stats (self->maxmin, &stats);
  return stats.solves;
}

guint64
sim_transfers_get_n_events (SimTransfers *self)
{
  g_return_val_if_fail (SIM_IS_TRANSFERS (self), 0);
  return self->events;
}

/* ------------------------------------------------------------------------ */
/* Files */

enum { COL_SRC, COL_DST, COL_BYTES, COL_START, N_COLS };
static const char *const transfer_columns[] = { "src", "dst", "bytes", "start", NULL };

typedef struct {
  guint   src, dst;
  double  bytes;
  SimTime start;
  guint64 line;
} Row;

/* An endpoint of column @col: a plain index below @n. */
static gboolean
parse_endpoint (SimTraceTable *table, guint col, guint n, guint *out, GError **error)
{
  const char *text = sim__trace_table_get (table, col);
  gint64 v;

  if (!sim_parse_integer (text, 0, G_MAXUINT32, &v, NULL))
    return sim__trace_table_field_error (table, col, error,
                                         "\"%s\": expected an endpoint index, a whole number "
                                         "from 0", text);
  if (v >= n)
    return sim__trace_table_field_error (table, col, error,
                                         "endpoint %" G_GINT64_FORMAT " does not exist: "
                                         "expected 0 to %u", v, n - 1);
  *out = (guint) v;
  return TRUE;
}

/* A start: a duration with a unit, or plain seconds. */
static gboolean
parse_start (SimTraceTable *table, SimTime earliest, SimTime *out, GError **error)
{
  const char *text = sim__trace_table_get (table, COL_START);
  double seconds;

  if (text == NULL || *text == '\0')
    *out = 0;
  else if (sim_parse_number (text, 0, 1e9, &seconds, NULL))
    *out = sim_time_from_seconds (seconds);
  else if (!sim_parse_duration (text, out, NULL))
    return sim__trace_table_field_error (table, COL_START, error,
                                         "\"%s\": expected a time from 0, with a unit "
                                         "(\"250us\", \"1.5ms\") or in seconds", text);
  if (*out < earliest)
    return sim__trace_table_field_error (table, COL_START, error,
                                         "\"%s\" is before the simulated time now, "
                                         "%" G_GINT64_FORMAT " ns: expected a later start",
                                         text, earliest);
  return TRUE;
}

gboolean
sim_transfers_add_from_file (SimTransfers *self, const char *path, guint *n_added,
                             GError **error)
{
  g_auto(SimTraceTable) table = { 0 };
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (Row));
  static const guint required[] = { COL_SRC, COL_DST, COL_BYTES };
  guint n = sim_topology_get_n_gpus (self->topology);
  SimTime earliest = (SimTime) ceil (self->now);
  g_autoptr(GError) failed = NULL;
  GError **err = &failed;
  gboolean ok = TRUE;

  g_return_val_if_fail (SIM_IS_TRANSFERS (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  if (n_added != NULL)
    *n_added = 0;
  if (!sim__trace_table_open (&table, path, ',', TRUE, transfer_columns, N_COLS, error) ||
      !sim__trace_table_refuse_unknown (&table, error) ||
      !sim__trace_table_require (&table, required, G_N_ELEMENTS (required), error))
    return FALSE;
  /* Rows are read into @failed, which the end of the table leaves unset. */
  while (ok && sim__trace_table_next (&table, err))
    {
      Row row = { .line = table.line_no };
      const char *text = sim__trace_table_get (&table, COL_BYTES);
      guint64 bytes;

      ok = parse_endpoint (&table, COL_SRC, n, &row.src, err) &&
           parse_endpoint (&table, COL_DST, n, &row.dst, err);
      if (ok && row.src == row.dst)
        ok = sim__trace_table_field_error (&table, COL_DST, err,
                                           "%u is the source too: expected another endpoint",
                                           row.dst);
      if (ok && sim_parse_number (text, 0, 9007199254740992.0, &row.bytes, NULL))
        {
          /* Plain bytes ("1000000", "1e9"): whole. */
          if (row.bytes != floor (row.bytes))
            ok = sim__trace_table_field_error (&table, COL_BYTES, err,
                                               "\"%s\": expected whole bytes", text);
        }
      else if (ok && sim_parse_size (text, &bytes, NULL))
        row.bytes = (double) bytes;
      else if (ok)
        ok = sim__trace_table_field_error (&table, COL_BYTES, err,
                                           "\"%s\": expected a size, whole bytes (\"1000000\", "
                                           "\"100MB\", \"1GiB\")", text);
      ok = ok && parse_start (&table, earliest, &row.start, err);
      if (ok)
        g_array_append_val (rows, row);
    }
  if (failed != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&failed));
      return FALSE;
    }
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *row = &g_array_index (rows, Row, i);
      g_autoptr(GError) local = NULL;

      if (sim_transfers_add (self, row->src, row->dst, row->bytes, row->start, NULL, NULL, NULL,
                             &local) == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s:%" G_GUINT64_FORMAT ": %s",
                       table.display, row->line, local->message);
          return FALSE;
        }
      if (n_added != NULL)
        (*n_added)++;
    }
  return TRUE;
}

void
sim_transfers_set_progress_func (SimTransfers *self, SimTransfersProgressFunc func,
                                 gpointer user_data, GDestroyNotify destroy)
{
  g_return_if_fail (SIM_IS_TRANSFERS (self));
  if (self->progress_destroy != NULL)
    self->progress_destroy (self->progress_data);
  self->progress = func;
  self->progress_data = user_data;
  self->progress_destroy = destroy;
}

guint
sim_transfers_get_n_transfers (SimTransfers *self)
{
  g_return_val_if_fail (SIM_IS_TRANSFERS (self), 0);
  return self->transfers->len;
}

gboolean
sim_transfers_get_transfer (SimTransfers *self, guint id, guint *src, guint *dst, double *bytes,
                            SimTime *start)
{
  const Transfer *x;

  g_return_val_if_fail (SIM_IS_TRANSFERS (self), FALSE);
  if (id == 0 || id > self->transfers->len)
    return FALSE;
  x = transfer (self, id);
  if (src != NULL)
    *src = x->src;
  if (dst != NULL)
    *dst = x->dst;
  if (bytes != NULL)
    *bytes = x->bytes;
  if (start != NULL)
    *start = x->start;
  return TRUE;
}

gboolean
sim_transfers_write_csv (SimTransfers *self, const char *path, GError **error)
{
  g_autoptr(SimAtomicFile) file = NULL;
  FILE *fp;

  g_return_val_if_fail (SIM_IS_TRANSFERS (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  file = sim__atomic_file_new (path, error);
  if (file == NULL)
    return FALSE;
  fp = sim__atomic_file_stream (file);
  fputs ("id,src,dst,bytes,start_s,end_s,duration_s,gbytes_per_s\n", fp);
  for (guint id = 1; id <= self->transfers->len; id++)
    {
      const Transfer *x = transfer (self, id);
      fprintf (fp, "%u,%u,%u,%.0f,%.9f", id, x->src, x->dst, x->bytes,
               sim_time_to_seconds (x->start));
      if (x->state == STATE_DONE)
        {
          double duration = sim_time_to_seconds (x->completion - x->start);
          fprintf (fp, ",%.9f,%.9f,", sim_time_to_seconds (x->completion), duration);
          if (duration > 0)
            fprintf (fp, "%.6f", x->bytes / duration / 1e9);
          fputc ('\n', fp);
        }
      else
        fputs (",,,\n", fp);
    }
  return sim__atomic_file_commit (file, error);
}

guint
sim__transfers_get_queued (SimTransfers *self)
{
  g_return_val_if_fail (SIM_IS_TRANSFERS (self), 0);
  return self->starts.a->len + self->sends->len + self->completions.a->len;
}
