/* sim-cabling.c: the fabric as a list of cables and a bill of materials.
 *
 * Everything here reads a built topology through its public accessors:
 * the cables are its links outside nodes, in build order (each node's NICs
 * to their leaf, then leaves to spines, spines to cores, or a dragonfly's
 * links inside and between groups), so the list is deterministic and a
 * switch's ports are numbered in the order its cables were laid: a leaf's
 * NICs first, then its uplinks.  The counts are those of
 * sim_topology_get_counts(), by construction: the same links, the same
 * optical flags.
 */
#include "config.h"

#include "sim-topology.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <math.h>
#include <string.h>

/* The upper bounds of the length classes, in metres, and their names.
 * They follow the reaches that cables and optics are sold by: passive
 * copper (DAC) to about 3 m and active copper to about 5 m at 400 Gb/s;
 * active optical cables for a row, to about 30 m; then the IEEE 802.3
 * reaches of 400G optics (802.3bs/cm): SR over multimode fibre 100 m, DR
 * 500 m, FR 2 km, LR 10 km. */
static const struct {
  double      metres;
  const char *name;
} length_classes[] = {
  { 3, "<=3m" }, { 5, "<=5m" }, { 30, "<=30m" }, { 100, "<=100m" }, { 500, "<=500m" },
  { 2000, "<=2km" }, { 10000, "<=10km" },
};

const char *
sim_cable_length_class (double metres)
{
  if (!(metres > 0))
    return "unspecified";
  for (guint i = 0; i < G_N_ELEMENTS (length_classes); i++)
    if (metres <= length_classes[i].metres + 1e-9)
      return length_classes[i].name;
  return ">10km";
}

static const char *
tier_name (SimLinkTier tier)
{
  switch (tier)
    {
    case SIM_TIER_ACCESS:
      return "access";
    case SIM_TIER_AGGREGATION:
      return "aggregation";
    case SIM_TIER_CORE:
      return "core";
    case SIM_TIER_INTRA:
    default:
      return "intra";
    }
}

static const char *
kind_name (SimVertexKind kind)
{
  switch (kind)
    {
    case SIM_VERTEX_GPU:
      return "gpu";
    case SIM_VERTEX_NVSWITCH:
      return "nvswitch";
    case SIM_VERTEX_PCIE_SWITCH:
      return "pcie-switch";
    case SIM_VERTEX_NIC:
      return "nic";
    case SIM_VERTEX_LEAF:
      return "leaf";
    case SIM_VERTEX_SPINE:
      return "spine";
    case SIM_VERTEX_CORE:
      return "core";
    case SIM_VERTEX_ROUTER:
      return "router";
    case SIM_VERTEX_CPU:
    default:
      return "cpu";
    }
}

const char *
sim_vertex_kind_to_string (SimVertexKind kind)
{
  return kind_name (kind);
}

/* Per vertex, its number among the vertices of its kind: within its node
 * for a node's parts (a node's vertices other than its GPUs are numbered
 * together, node by node), over the fabric for switches.  GPUs are named
 * from their node's first GPU instead. */
static guint32 *
ordinals (const SimTopology *t)
{
  guint nv = sim_topology_get_n_vertices (t);
  guint32 *ord = g_new0 (guint32, MAX (1u, nv));
  guint32 global[SIM_VERTEX_CPU + 1] = { 0 }, local[SIM_VERTEX_CPU + 1] = { 0 };
  gint node = -1;

  for (guint v = 0; v < nv; v++)
    {
      SimVertexKind k = sim_topology_get_vertex_kind (t, v);
      gint n = sim_topology_get_vertex_node (t, v);

      if (n < 0)
        ord[v] = global[k]++;
      else if (k != SIM_VERTEX_GPU)
        {
          if (n != node)
            {
              memset (local, 0, sizeof local);
              node = n;
            }
          ord[v] = local[k]++;
        }
    }
  return ord;
}

/* GPUs are numbered over the cluster; within a node, GPU i is its i-th. */
static char *
device_name (const SimTopology *t, const guint32 *ord, const guint32 *gpu0, guint32 v)
{
  SimVertexKind k = sim_topology_get_vertex_kind (t, v);
  gint node = sim_topology_get_vertex_node (t, v);

  if (node < 0)
    return g_strdup_printf ("%s%u", kind_name (k), ord[v]);
  if (k == SIM_VERTEX_GPU)
    return g_strdup_printf ("node%d/gpu%u", node, v - gpu0[node]);
  return g_strdup_printf ("node%d/%s%u", node, kind_name (k), ord[v]);
}

/* The first GPU vertex of each node. */
static guint32 *
first_gpus (const SimTopology *t)
{
  guint nv = sim_topology_get_n_vertices (t);
  guint n_nodes = 0;
  guint32 *gpu0;

  for (guint v = 0; v < nv; v++)
    n_nodes = MAX (n_nodes, (guint) (sim_topology_get_vertex_node (t, v) + 1));
  gpu0 = g_new (guint32, MAX (1u, n_nodes));
  for (guint i = 0; i < n_nodes; i++)
    gpu0[i] = G_MAXUINT32;
  for (guint v = 0; v < nv; v++)
    if (sim_topology_get_vertex_kind (t, v) == SIM_VERTEX_GPU)
      {
        gint n = sim_topology_get_vertex_node (t, v);
        gpu0[n] = MIN (gpu0[n], v);
      }
  return gpu0;
}

char *
sim_topology_dup_device_name (const SimTopology *topology, guint32 vertex)
{
  g_autofree guint32 *ord = NULL;
  g_autofree guint32 *gpu0 = NULL;

  g_return_val_if_fail (topology != NULL, NULL);
  g_return_val_if_fail (vertex < sim_topology_get_n_vertices (topology), NULL);
  ord = ordinals (topology);
  gpu0 = first_gpus (topology);
  return device_name (topology, ord, gpu0, vertex);
}

char **
sim_topology_dup_device_names (const SimTopology *topology)
{
  g_autofree guint32 *ord = NULL;
  g_autofree guint32 *gpu0 = NULL;
  guint nv;
  char **names;

  g_return_val_if_fail (topology != NULL, NULL);
  nv = sim_topology_get_n_vertices (topology);
  ord = ordinals (topology);
  gpu0 = first_gpus (topology);
  names = g_new0 (char *, nv + 1);
  for (guint v = 0; v < nv; v++)
    names[v] = device_name (topology, ord, gpu0, v);
  return names;
}

GArray *
sim_topology_get_cables (const SimTopology *topology, const SimFabricConfig *config)
{
  const SimTopology *t = topology;
  GArray *cables;
  g_autofree guint *port = NULL;

  g_return_val_if_fail (topology != NULL, NULL);
  g_return_val_if_fail (config != NULL, NULL);
  cables = g_array_new (FALSE, FALSE, sizeof (SimCable));
  port = g_new0 (guint, MAX (1u, sim_topology_get_n_vertices (t)));
  for (guint l = 0; l < sim_topology_get_n_links (t); l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      SimCable c = { 0 };

      if (k->tier == SIM_TIER_INTRA)
        continue;
      c.link = l;
      c.from = k->a;
      c.to = k->b;
      c.from_port = ++port[k->a];
      c.to_port = ++port[k->b];
      c.tier = k->tier;
      c.bandwidth = k->bandwidth;
      c.optical = sim_topology_get_link_optical (t, l);
      c.transceivers = c.optical ? 2 : 0;
      c.length_m = k->tier == SIM_TIER_ACCESS ? config->access_cable_length
                                              : config->cable_length;
      c.model = k->model;
      g_array_append_val (cables, c);
    }
  return cables;
}

/* "400", "12.5": a link's line rate in Gb/s. */
static char *
gbps_text (double bandwidth)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", bandwidth * 8 / 1e9));
}

char *
sim_topology_format_cabling (const SimTopology *topology, const SimFabricConfig *config)
{
  g_autoptr(GArray) cables = NULL;
  g_autofree guint32 *ord = NULL;
  g_autofree guint32 *gpu0 = NULL;
  GString *out;

  g_return_val_if_fail (topology != NULL, NULL);
  g_return_val_if_fail (config != NULL, NULL);
  cables = sim_topology_get_cables (topology, config);
  ord = ordinals (topology);
  gpu0 = first_gpus (topology);
  out = g_string_new ("cable,from_device,from_port,to_device,to_port,tier,speed_gbps,medium,"
                      "length_m,length_class,transceivers,link_model\n");
  for (guint i = 0; i < cables->len; i++)
    {
      const SimCable *c = &g_array_index (cables, SimCable, i);
      g_autofree char *from = device_name (topology, ord, gpu0, c->from);
      g_autofree char *to = device_name (topology, ord, gpu0, c->to);
      g_autofree char *speed = gbps_text (c->bandwidth);
      char len[G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append_printf (out, "%u,", i + 1);
      sim__csv_append_field (out, from);
      g_string_append_printf (out, ",%u,", c->from_port);
      sim__csv_append_field (out, to);
      g_string_append_printf (out, ",%u,%s,%s,%s,%s,%s,%u,", c->to_port, tier_name (c->tier),
                              speed, c->optical ? "optical" : "copper",
                              c->length_m > 0 ? g_ascii_formatd (len, sizeof len, "%.6g",
                                                                 c->length_m) : "",
                              sim_cable_length_class (c->length_m), c->transceivers);
      sim__csv_append_field (out, c->model != NULL ? c->model : "");
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

gboolean
sim_topology_write_cabling (const SimTopology *topology, const SimFabricConfig *config,
                            const char *path, GError **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (topology != NULL, FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  text = sim_topology_format_cabling (topology, config);
  return sim__write_file_atomic (path, text, -1, error);
}

static void
bom_line_clear (gpointer p)
{
  SimBomLine *b = p;
  g_free (b->description);
}

/* Adds @count to the line of @kind and @description, appending it if new
 * (lines keep the order they were first met in). */
static void
bom_add (GArray *bom, SimBomKind kind, const char *description, guint count, double price)
{
  SimBomLine line = { kind, NULL, 0, price };

  for (guint i = 0; i < bom->len; i++)
    {
      SimBomLine *b = &g_array_index (bom, SimBomLine, i);
      if (b->kind == kind && strcmp (b->description, description) == 0)
        {
          b->count += count;
          return;
        }
    }
  line.description = g_strdup (description);
  line.count = count;
  g_array_append_val (bom, line);
}

GArray *
sim_topology_get_bom (const SimTopology *topology, const SimFabricConfig *config,
                      const SimBomPrices *prices)
{
  const SimTopology *t = topology;
  SimBomPrices none = { 0 };
  g_autoptr(GArray) cables = NULL;
  GArray *bom;
  const char *sw = config != NULL && config->switch_model != NULL ? config->switch_model
                                                                  : "switch";

  g_return_val_if_fail (topology != NULL, NULL);
  g_return_val_if_fail (config != NULL, NULL);
  if (prices == NULL)
    prices = &none;
  bom = g_array_new (FALSE, FALSE, sizeof (SimBomLine));
  g_array_set_clear_func (bom, bom_line_clear);

  for (guint v = 0; v < sim_topology_get_n_vertices (t); v++)
    {
      SimVertexKind k = sim_topology_get_vertex_kind (t, v);
      if (k == SIM_VERTEX_LEAF || k == SIM_VERTEX_SPINE || k == SIM_VERTEX_CORE
          || k == SIM_VERTEX_ROUTER)
        {
          g_autofree char *d = g_strdup_printf ("%s, %s", sw, kind_name (k));
          bom_add (bom, SIM_BOM_SWITCH, d, 1, prices->switch_usd);
        }
    }
  /* Then cables, transceivers and NICs, each in the order first met. */
  cables = sim_topology_get_cables (t, config);
  for (guint kind = SIM_BOM_CABLE; kind <= SIM_BOM_NIC; kind++)
    for (guint i = 0; i < cables->len; i++)
      {
        const SimCable *c = &g_array_index (cables, SimCable, i);
        g_autofree char *speed = gbps_text (c->bandwidth);
        g_autofree char *d = NULL;

        if (kind == SIM_BOM_CABLE)
          {
            d = g_strdup_printf ("%s %s Gb/s, %s", c->optical ? "optical" : "copper", speed,
                                 sim_cable_length_class (c->length_m));
            bom_add (bom, SIM_BOM_CABLE, d, 1, prices->cable_usd);
          }
        else if (kind == SIM_BOM_TRANSCEIVER && c->transceivers > 0)
          {
            d = g_strdup_printf ("%s Gb/s", speed);
            bom_add (bom, SIM_BOM_TRANSCEIVER, d, c->transceivers, prices->transceiver_usd);
          }
        else if (kind == SIM_BOM_NIC && sim_topology_get_vertex_kind (t, c->from)
                                        == SIM_VERTEX_NIC)
          {
            /* NICs come with their nodes: the catalogue prices nodes whole. */
            d = g_strdup_printf ("%s %s Gb/s", c->model != NULL ? c->model : "NIC", speed);
            bom_add (bom, SIM_BOM_NIC, d, 1, 0);
          }
      }
  return bom;
}

const char *
sim_bom_kind_to_string (SimBomKind kind)
{
  static const char * const names[] = { "switch", "cable", "transceiver", "nic" };
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (names), "?");
  return names[kind];
}
