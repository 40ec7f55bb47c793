/* sim-diagram.c: the network of a cluster as a Graphviz graph. */
#include "config.h"

#include "report/sim-diagram.h"
#include "sim-error.h"
#include "sim-util.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <stdio.h>
#include <string.h>

static const char *
switch_label (SimVertexKind kind)
{
  switch (kind)
    {
    case SIM_VERTEX_LEAF:
      return "leaf";
    case SIM_VERTEX_SPINE:
      return "spine";
    case SIM_VERTEX_CORE:
      return "core";
    case SIM_VERTEX_ROUTER:
      return "router";
    default:
      return NULL;
    }
}

static const char *
switch_colour (SimVertexKind kind)
{
  switch (kind)
    {
    case SIM_VERTEX_LEAF:
      return "lightblue";
    case SIM_VERTEX_SPINE:
      return "lightgoldenrod";
    case SIM_VERTEX_CORE:
      return "salmon";
    default:
      return "palegreen";
    }
}

typedef struct {
  Agedge_t *edge;
  guint     links;
  double    bandwidth;
} EdgeInfo;

/* Builds the graph: one vertex per cluster node and per network switch,
 * one edge per pair of them that links join. */
static Agraph_t *
build_graph (const SimTopology *t, const SimCluster *cluster)
{
  Agraph_t *g = agopen ((char *) "network", Agundirected, NULL);
  guint nv = sim_topology_get_n_vertices (t);
  g_autofree Agnode_t **vertex = g_new0 (Agnode_t *, MAX (nv, 1));
  g_autofree Agnode_t **node = g_new0 (Agnode_t *, MAX (sim_cluster_get_n_nodes (cluster), 1));
  g_autoptr(GHashTable) pairs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  guint count[8] = { 0 };

  agattr (g, AGRAPH, (char *) "rankdir", (char *) "BT");
  agattr (g, AGNODE, (char *) "shape", (char *) "box");
  agattr (g, AGNODE, (char *) "style", (char *) "filled");
  agattr (g, AGNODE, (char *) "fillcolor", (char *) "white");
  agattr (g, AGNODE, (char *) "label", (char *) "");
  agattr (g, AGEDGE, (char *) "label", (char *) "");
  for (guint n = 0; n < sim_cluster_get_n_nodes (cluster); n++)
    {
      const SimNode *sn = sim_cluster_get_node (cluster, n);
      g_autofree char *name = g_strdup_printf ("n%u", n);
      g_autofree char *label = g_strdup_printf ("node %u\n%u x %s", n, sn->n_gpus,
                                                sn->gpu_model ? sn->gpu_model->name : "GPU");
      node[n] = agnode (g, name, 1);
      agset (node[n], (char *) "label", label);
    }
  for (guint v = 0; v < nv; v++)
    {
      SimVertexKind kind = sim_topology_get_vertex_kind (t, v);
      const char *label = switch_label (kind);
      if (label == NULL || sim_topology_get_vertex_node (t, v) >= 0)
        continue;
      {
        g_autofree char *name = g_strdup_printf ("s%u", v);
        g_autofree char *text = g_strdup_printf ("%s %u", label, count[kind]++);
        vertex[v] = agnode (g, name, 1);
        agset (vertex[v], (char *) "label", text);
        agset (vertex[v], (char *) "shape", (char *) "ellipse");
        agset (vertex[v], (char *) "fillcolor", (char *) switch_colour (kind));
      }
    }
  /* Links outside nodes, counted per pair of drawn vertices. */
  for (guint l = 0; l < sim_topology_get_n_links (t); l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      guint32 ends[2] = { k->a, k->b };
      gint64 id[2];
      gint64 key;
      gpointer old;
      if (k->tier == SIM_TIER_INTRA)
        continue;
      for (guint e = 0; e < 2; e++)
        {
          gint nn = sim_topology_get_vertex_node (t, ends[e]);
          id[e] = nn >= 0 ? -1 - (gint64) nn : (gint64) ends[e];
        }
      if (id[0] == id[1] || (id[0] >= 0 && vertex[id[0]] == NULL) ||
          (id[1] >= 0 && vertex[id[1]] == NULL))
        continue;
      /* Key: the pair (ordered), and the link's speed in Mb/s. */
      key = (MIN (id[0], id[1]) + 1000000) * 2000003 + (MAX (id[0], id[1]) + 1000000);
      key = key * 8191 + (gint64) (k->bandwidth * 8 / 1e6);
      old = g_hash_table_lookup (pairs, &key);
      if (old == NULL)
        {
          gint64 *kk = g_new (gint64, 1);
          EdgeInfo *info = g_new0 (EdgeInfo, 1);
          Agnode_t *a = id[0] < 0 ? node[-1 - id[0]] : vertex[id[0]];
          Agnode_t *b = id[1] < 0 ? node[-1 - id[1]] : vertex[id[1]];
          info->edge = agedge (g, a, b, NULL, 1);
          info->bandwidth = k->bandwidth;
          *kk = key;
          g_hash_table_insert (pairs, kk, info);
          old = info;
        }
      ((EdgeInfo *) old)->links++;
    }
  {
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init (&it, pairs);
    while (g_hash_table_iter_next (&it, NULL, &value))
      {
        EdgeInfo *info = value;
        g_autofree char *label = g_strdup_printf ("%u x %.0f Gb/s", info->links,
                                                  info->bandwidth * 8 / 1e9);
        agset (info->edge, (char *) "label", label);
      }
  }
  return g;
}

static const char *
format_of (const char *path)
{
  const char *dot = strrchr (path, '.');
  return dot != NULL ? dot + 1 : "";
}

gboolean
sim_topology_render (const SimTopology *topology, const SimCluster *cluster, const char *format,
                     char **data, gsize *length, GError **error)
{
  static const char *formats[] = { "dot", "svg", "png", "pdf", NULL };
  Agraph_t *g;
  gboolean known = FALSE;

  g_return_val_if_fail (topology != NULL && cluster != NULL && format != NULL, FALSE);
  g_return_val_if_fail (data != NULL && length != NULL, FALSE);
  for (guint i = 0; formats[i] != NULL; i++)
    known |= g_ascii_strcasecmp (formats[i], format) == 0;
  if (!known)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "diagram format \"%s\": expected dot, svg, png or pdf", format);
      return FALSE;
    }
  g = build_graph (topology, cluster);
  if (g_ascii_strcasecmp (format, "dot") == 0)
    {
      char *buf = NULL;
      size_t len = 0;
      FILE *fp = open_memstream (&buf, &len);
      gboolean ok = fp != NULL && agwrite (g, fp) == 0;
      if (fp != NULL)
        ok &= fclose (fp) == 0;
      agclose (g);
      if (!ok)
        {
          free (buf);
          g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot write the DOT text");
          return FALSE;
        }
      *data = g_strndup (buf, len);
      *length = len;
      free (buf);
      return TRUE;
    }
  {
    GVC_t *gvc = gvContext ();
    char *buf = NULL;
    unsigned int len = 0;
    g_autofree char *lower = g_ascii_strdown (format, -1);
    gboolean ok = gvLayout (gvc, g, "dot") == 0;
    if (ok)
      ok = gvRenderData (gvc, g, lower, &buf, &len) == 0;
    if (ok)
      {
        *data = g_memdup2 (buf, len);
        *length = len;
      }
    if (buf != NULL)
      gvFreeRenderData (buf);
    gvFreeLayout (gvc, g);
    agclose (g);
    gvFreeContext (gvc);
    if (!ok)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_IO,
                     "Graphviz could not lay out or render the diagram as %s (is the "
                     "graphviz plugin set installed?)", format);
        return FALSE;
      }
    return TRUE;
  }
}

gboolean
sim_topology_write_diagram (const SimTopology *topology, const SimCluster *cluster,
                            const char *path, const char *format, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, FALSE);
  if (!sim_topology_render (topology, cluster, format ? format : format_of (path), &data, &len,
                            error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  return sim__write_file_atomic (path, data, (gssize) len, error);
}
