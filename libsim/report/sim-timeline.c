/* sim-timeline.c: Chrome trace-event JSON (see sim-timeline.h). */
#include "config.h"

#include "report/sim-timeline.h"

#include <string.h>

/* Lanes per GPU: a bit set, so a GPU shared by at most 64 jobs at once
 * (more than sharing allows) needs no allocation. */
struct _SimTimeline {
  FILE             *out;
  const SimCluster *cluster;
  guint64          *lanes_used;   /* per GPU, lanes held now */
  guint64          *lanes_named;  /* per GPU, lanes whose thread is named */
  gboolean          node_named_any;
  guint8           *node_named;   /* per node, its node track is named */
  GHashTable       *parts_named;  /* pid << 32 | tid of the part tracks named */
  gboolean          fabric_named;
  gboolean          first;
  gboolean          finished;
};

/* Thread ids: 0 for the node track, 1 + local GPU x 64 + lane for a GPU,
 * PART_TID + track for a part of the node. */
#define PART_TID (1u << 20)

static guint
gpu_tid (const SimTimeline *self, guint gpu, guint lane)
{
  const SimGpu *g = sim_cluster_get_gpu (self->cluster, gpu);
  const SimNode *n = sim_cluster_get_node (self->cluster, g->node);
  return 1 + (gpu - n->first_gpu) * 64 + lane;
}

/* Microseconds with three decimals, from ns. */
static void
put_us (FILE *out, SimTime t)
{
  if (t < 0)
    {
      fputc ('-', out);
      t = -t;
    }
  fprintf (out, "%" G_GINT64_FORMAT ".%03d", t / 1000, (int) (t % 1000));
}

static void
put_string (FILE *out, const char *s)
{
  fputc ('"', out);
  for (; *s != '\0'; s++)
    {
      unsigned char c = (unsigned char) *s;
      if (c == '"' || c == '\\')
        fprintf (out, "\\%c", c);
      else if (c < 0x20)
        fprintf (out, "\\u%04x", c);
      else
        fputc (c, out);
    }
  fputc ('"', out);
}

static void
begin_event (SimTimeline *self)
{
  fputs (self->first ? "\n" : ",\n", self->out);
  self->first = FALSE;
}

static void
name_thread (SimTimeline *self, guint pid, guint tid, const char *name, guint sort)
{
  begin_event (self);
  fprintf (self->out, "{\"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"name\": \"thread_name\", "
           "\"args\": {\"name\": ", pid, tid);
  put_string (self->out, name);
  fputs ("}}", self->out);
  begin_event (self);
  fprintf (self->out, "{\"ph\": \"M\", \"pid\": %u, \"tid\": %u, "
           "\"name\": \"thread_sort_index\", \"args\": {\"sort_index\": %u}}", pid, tid, sort);
}

SimTimeline *
sim_timeline_new (FILE *out, const SimCluster *cluster)
{
  SimTimeline *self;
  guint nn;

  g_return_val_if_fail (out != NULL && cluster != NULL, NULL);
  self = g_new0 (SimTimeline, 1);
  self->out = out;
  self->cluster = cluster;
  self->lanes_used = g_new0 (guint64, MAX (sim_cluster_get_n_gpus (cluster), 1));
  self->lanes_named = g_new0 (guint64, MAX (sim_cluster_get_n_gpus (cluster), 1));
  nn = sim_cluster_get_n_nodes (cluster);
  self->node_named = g_new0 (guint8, MAX (nn, 1));
  self->parts_named = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->first = TRUE;
  fputs ("{\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"generator\": \"gpusim\", "
         "\"time_unit\": \"us of simulated time\"},\n\"traceEvents\": [", out);
  begin_event (self);
  fputs ("{\"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"name\": \"process_name\", "
         "\"args\": {\"name\": \"jobs\"}}", out);
  for (guint n = 0; n < nn; n++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, n);
      g_autofree char *name = g_strdup_printf ("node %u (%s)", n, node->model->name);
      begin_event (self);
      fprintf (out, "{\"ph\": \"M\", \"pid\": %u, \"tid\": 0, \"name\": \"process_name\", "
               "\"args\": {\"name\": ", n + 1);
      put_string (out, name);
      fputs ("}}", out);
      begin_event (self);
      fprintf (out, "{\"ph\": \"M\", \"pid\": %u, \"tid\": 0, "
               "\"name\": \"process_sort_index\", \"args\": {\"sort_index\": %u}}", n + 1, n + 1);
    }
  return self;
}

/* Writes the common head of an event on a GPU's or a node's track. */
static void
event_head (SimTimeline *self, gint gpu, guint node, guint lane, const char *ph,
            const char *category, const char *name, SimTime t)
{
  guint pid, tid;

  if (gpu >= 0)
    {
      const SimGpu *g = sim_cluster_get_gpu (self->cluster, (guint) gpu);
      pid = g->node + 1;
      tid = gpu_tid (self, (guint) gpu, lane);
      if (lane < 64 && !(self->lanes_named[gpu] & (G_GUINT64_CONSTANT (1) << lane)))
        {
          const SimNode *n = sim_cluster_get_node (self->cluster, g->node);
          g_autofree char *tn = lane == 0 ? g_strdup_printf ("GPU %u", gpu - n->first_gpu)
                                          : g_strdup_printf ("GPU %u / lane %u",
                                                             gpu - n->first_gpu, lane);
          self->lanes_named[gpu] |= G_GUINT64_CONSTANT (1) << lane;
          name_thread (self, pid, tid, tn, tid);
        }
    }
  else
    {
      g_return_if_fail (node < sim_cluster_get_n_nodes (self->cluster));
      pid = node + 1;
      tid = 0;
      if (!self->node_named[node])
        {
          self->node_named[node] = 1;
          name_thread (self, pid, 0, "node", 0);
        }
    }
  begin_event (self);
  fprintf (self->out, "{\"ph\": \"%s\", \"pid\": %u, \"tid\": %u, \"cat\": ", ph, pid, tid);
  put_string (self->out, category);
  fputs (", \"name\": ", self->out);
  put_string (self->out, name);
  fputs (", \"ts\": ", self->out);
  put_us (self->out, t);
}

/* The same on a part's track (sim_timeline_add_part_slice()). */
static void
part_head (SimTimeline *self, gint node, guint track, const char *track_name, const char *ph,
           const char *category, const char *name, SimTime t)
{
  guint nn = sim_cluster_get_n_nodes (self->cluster);
  guint pid = node >= 0 ? (guint) node + 1 : nn + 1;
  guint tid = node >= 0 ? PART_TID + track : track;
  gint64 key = (gint64) pid << 32 | tid;

  if (node < 0 && !self->fabric_named)
    {
      self->fabric_named = TRUE;
      begin_event (self);
      fprintf (self->out, "{\"ph\": \"M\", \"pid\": %u, \"tid\": 0, \"name\": \"process_name\", "
               "\"args\": {\"name\": \"fabric\"}}", pid);
      begin_event (self);
      fprintf (self->out, "{\"ph\": \"M\", \"pid\": %u, \"tid\": 0, "
               "\"name\": \"process_sort_index\", \"args\": {\"sort_index\": %u}}", pid, pid);
    }
  if (!g_hash_table_contains (self->parts_named, &key))
    {
      g_hash_table_add (self->parts_named, g_memdup2 (&key, sizeof key));
      name_thread (self, pid, tid, track_name, tid);
    }
  begin_event (self);
  fprintf (self->out, "{\"ph\": \"%s\", \"pid\": %u, \"tid\": %u, \"cat\": ", ph, pid, tid);
  put_string (self->out, category);
  fputs (", \"name\": ", self->out);
  put_string (self->out, name);
  fputs (", \"ts\": ", self->out);
  put_us (self->out, t);
}

static void
event_args (SimTimeline *self, const char *args)
{
  if (args != NULL)
    fprintf (self->out, ", \"args\": {%s}", args);
  fputc ('}', self->out);
}

void
sim_timeline_add_slice (SimTimeline *self, gint gpu, guint node, guint lane, const char *category,
                        const char *name, SimTime start, SimTime end, const char *args)
{
  g_return_if_fail (self != NULL && !self->finished && category != NULL && name != NULL);
  g_return_if_fail (end >= start);
  event_head (self, gpu, node, lane, "X", category, name, start);
  fputs (", \"dur\": ", self->out);
  put_us (self->out, end - start);
  event_args (self, args);
}

void
sim_timeline_add_instant (SimTimeline *self, gint gpu, guint node, guint lane,
                          const char *category, const char *name, SimTime t, const char *args)
{
  g_return_if_fail (self != NULL && !self->finished && category != NULL && name != NULL);
  event_head (self, gpu, node, lane, "i", category, name, t);
  fputs (", \"s\": \"t\"", self->out);
  event_args (self, args);
}

void
sim_timeline_add_run (SimTimeline *self, guint64 id, guint run, const char *name, SimTime start,
                      SimTime end, const char *args)
{
  g_return_if_fail (self != NULL && !self->finished && name != NULL && end >= start);
  for (int k = 0; k < 2; k++)
    {
      begin_event (self);
      fprintf (self->out, "{\"ph\": \"%s\", \"pid\": 0, \"tid\": 0, \"cat\": \"run\", "
               "\"id\": \"%" G_GUINT64_FORMAT ".%u\", \"name\": ", k == 0 ? "b" : "e", id, run);
      put_string (self->out, name);
      fputs (", \"ts\": ", self->out);
      put_us (self->out, k == 0 ? start : end);
      event_args (self, k == 0 ? args : NULL);
    }
}

void
sim_timeline_add_part_slice (SimTimeline *self, gint node, guint track, const char *track_name,
                             const char *category, const char *name, SimTime start, SimTime end,
                             const char *args)
{
  g_return_if_fail (self != NULL && !self->finished && track_name != NULL && category != NULL &&
                    name != NULL);
  g_return_if_fail (end >= start);
  g_return_if_fail (node < 0 || (guint) node < sim_cluster_get_n_nodes (self->cluster));
  part_head (self, node, track, track_name, "X", category, name, start);
  fputs (", \"dur\": ", self->out);
  put_us (self->out, end - start);
  event_args (self, args);
}

void
sim_timeline_add_part_instant (SimTimeline *self, gint node, guint track,
                               const char *track_name, const char *category, const char *name,
                               SimTime t, const char *args)
{
  g_return_if_fail (self != NULL && !self->finished && track_name != NULL && category != NULL &&
                    name != NULL);
  g_return_if_fail (node < 0 || (guint) node < sim_cluster_get_n_nodes (self->cluster));
  part_head (self, node, track, track_name, "i", category, name, t);
  fputs (", \"s\": \"t\"", self->out);
  event_args (self, args);
}

void
sim_timeline_add_job_phase (SimTimeline *self, guint64 id, guint run, const char *category,
                            const char *name, SimTime start, SimTime end, const char *args)
{
  g_return_if_fail (self != NULL && !self->finished && category != NULL && name != NULL);
  g_return_if_fail (end >= start);
  for (int k = 0; k < 2; k++)
    {
      begin_event (self);
      fprintf (self->out, "{\"ph\": \"%s\", \"pid\": 0, \"tid\": 0, \"cat\": ",
               k == 0 ? "b" : "e");
      put_string (self->out, category);
      fprintf (self->out, ", \"id\": \"%" G_GUINT64_FORMAT ".%u\", \"name\": ", id, run);
      put_string (self->out, name);
      fputs (", \"ts\": ", self->out);
      put_us (self->out, k == 0 ? start : end);
      event_args (self, k == 0 ? args : NULL);
    }
}

guint
sim_timeline_take_lane (SimTimeline *self, guint gpu)
{
  guint64 used;
  guint lane = 0;

  g_return_val_if_fail (self != NULL && gpu < sim_cluster_get_n_gpus (self->cluster), 0);
  used = self->lanes_used[gpu];
  while (lane < 63 && (used & (G_GUINT64_CONSTANT (1) << lane)))
    lane++;
  self->lanes_used[gpu] |= G_GUINT64_CONSTANT (1) << lane;
  return lane;
}

void
sim_timeline_release_lane (SimTimeline *self, guint gpu, guint lane)
{
  g_return_if_fail (self != NULL && gpu < sim_cluster_get_n_gpus (self->cluster) && lane < 64);
  self->lanes_used[gpu] &= ~(G_GUINT64_CONSTANT (1) << lane);
}

void
sim_timeline_finish (SimTimeline *self)
{
  g_return_if_fail (self != NULL && !self->finished);
  fputs ("\n]}\n", self->out);
  self->finished = TRUE;
}

void
sim_timeline_free (SimTimeline *self)
{
  if (self == NULL)
    return;
  g_free (self->lanes_used);
  g_free (self->lanes_named);
  g_free (self->node_named);
  g_hash_table_unref (self->parts_named);
  g_free (self);
}
