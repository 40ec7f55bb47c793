/* sim-topology.c: the network of a cluster, built as a graph.
 *
 * Numbering.  Vertex i < n_gpus is GPU i of the cluster, so a GPU's vertex
 * is its index.  Then come, node by node, each node's other vertices
 * (NVSwitch, PCIe switches, CPU root, NICs), then the network switches.
 * Links are kept in build order in one array; link l gives the directed
 * resources 2l (a to b) and 2l + 1 (b to a).  After building, adjacency is
 * packed into compressed rows (for every vertex, the links that touch it).
 *
 * This file builds the graph (inside nodes, then the network, whole nodes
 * to a leaf as sim-topology.h says) and answers questions about its parts;
 * routes are found in sim-topology-routing.c and the figures of the whole
 * (diameter, bisection, counts) worked out in sim-topology-metrics.c, over
 * the structure of sim-topology-private.h.
 */
#include "config.h"

#include "sim-topology-private.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "fabric/sim-topology-private.h"

#include <igraph.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Building blocks */

static guint32
add_vertex (SimTopology *t, SimVertexKind kind, SimTime latency, guint32 node)
{
  guint8 k = (guint8) kind;

  g_array_append_val (t->kinds, k);
  g_array_append_val (t->latency, latency);
  g_array_append_val (t->node_of, node);
  return t->kinds->len - 1;
}

static void
add_link (SimTopology *t, guint32 a, guint32 b, double bandwidth, const SimLinkModel *m,
          SimLinkTier tier, gboolean optical)
{
  SimLink l = {
    .a = a, .b = b, .bandwidth = bandwidth,
    .efficiency = m != NULL && m->efficiency > 0 ? m->efficiency : 1.0,
    .latency = m != NULL ? m->latency_ns : 0,
    .tier = tier,
    .model = m != NULL ? g_intern_string (m->name) : NULL,
  };
  guint8 o = optical ? 1 : 0;

  g_array_append_val (t->links, l);
  g_array_append_val (t->optical, o);
}

/* ------------------------------------------------------------------------ */
/* Inside nodes */

/* The link model joining a node's GPUs: the node's intra_link, else the
 * GPU's scale-up link ("PCIe Gen4" is looked up as "PCIe-Gen4"). */
static const SimLinkModel *
intra_link_model (const SimNode *node, const SimCatalogue *catalogue)
{
  g_autofree char *name = NULL;

  if (node->model->intra_link != NULL)
    return node->model->intra_link;
  if (node->model->intra_link_name != NULL)
    return sim_catalogue_lookup_link (catalogue, node->model->intra_link_name);
  if (node->gpu_model == NULL || node->gpu_model->scaleup_link == NULL)
    return NULL;
  name = g_strdelimit (g_strdup (node->gpu_model->scaleup_link), " ", '-');
  return sim_catalogue_lookup_link (catalogue, name);
}

static const SimLinkModel *
pcie_link_model (const SimNode *node, const SimCatalogue *catalogue)
{
  if (node->model->pcie_link != NULL)
    return node->model->pcie_link;
  return sim_catalogue_lookup_link (catalogue, node->model->pcie_link_name);
}

/* Builds the inside of @node; appends the vertex of each of its NICs to
 * @nics (and the node's index to @nic_nodes). */
static gboolean
build_node (SimTopology *t, const SimNode *node, const SimCatalogue *catalogue,
            gboolean want_nics, GArray *nics, GArray *nic_nodes, GError **error)
{
  const SimNodeModel *m = node->model;
  const char *kind = m->intra_node != NULL ? m->intra_node : "pcie";
  guint g = node->n_gpus, k = want_nics ? m->nics : 0;
  const SimLinkModel *intra = intra_link_model (node, catalogue);
  const SimLinkModel *pcie = pcie_link_model (node, catalogue);
  NodeSpan *span = &t->spans[node->index];
  guint32 gpu0 = node->first_gpu;
  gboolean is_pcie = strcmp (kind, "pcie") == 0;

  span->first_gpu = gpu0;
  span->n_gpus = g;
  span->first_extra = n_vertices (t);

  if (g > 1 && intra == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "node model \"%s\" (%s) has no intra-node link: expected an intra_link key "
                   "naming a [link] model such as \"NVLink4\"", m->name, m->source_file);
      return FALSE;
    }
  if ((k > 0 || (is_pcie && g > 1)) && pcie == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "node model \"%s\" (%s) has no PCIe link: expected a pcie_link key naming a "
                   "[link] model such as \"PCIe-Gen5\"", m->name, m->source_file);
      return FALSE;
    }

  if (is_pcie)
    {
      /* One PCIe switch per NIC when the GPUs divide evenly among them in
       * groups of at most four, else one per four GPUs. */
      guint n_sw = k > 0 && g % k == 0 && g / k <= 4 ? k : MAX (1u, (g + 3) / 4);
      guint32 sw0 = n_vertices (t), root = NO_NODE;

      for (guint i = 0; i < n_sw; i++)
        add_vertex (t, SIM_VERTEX_PCIE_SWITCH, 0, node->index);
      if (n_sw > 1)
        {
          root = add_vertex (t, SIM_VERTEX_CPU, 0, node->index);
          for (guint i = 0; i < n_sw; i++)
            add_link (t, sw0 + i, root, pcie->bandwidth, pcie, SIM_TIER_INTRA, FALSE);
        }
      for (guint i = 0; i < g; i++)
        {
          const SimLinkModel *lm = intra != NULL ? intra : pcie;
          add_link (t, gpu0 + i, sw0 + (guint32) ((guint64) i * n_sw / g), lm->bandwidth, lm,
                    SIM_TIER_INTRA, FALSE);
        }
      for (guint j = 0; j < k; j++)
        {
          guint32 nic = add_vertex (t, SIM_VERTEX_NIC, 0, node->index);
          add_link (t, nic, sw0 + j % n_sw, pcie->bandwidth, pcie, SIM_TIER_INTRA, FALSE);
          g_array_append_val (nics, nic);
          g_array_append_val (nic_nodes, node->index);
        }
    }
  else
    {
      if (strcmp (kind, "nvswitch") == 0 && g > 1)
        {
          SimTime lat = m->nvswitch != NULL ? m->nvswitch->latency_ns : 0;
          guint32 nvs = add_vertex (t, SIM_VERTEX_NVSWITCH, lat, node->index);
          for (guint i = 0; i < g; i++)
            add_link (t, gpu0 + i, nvs, intra->bandwidth, intra, SIM_TIER_INTRA, FALSE);
        }
      else if (g > 1)
        {
          /* nvlink-mesh and infinity-fabric: a full mesh. */
          double share = intra->bandwidth / (g - 1);
          for (guint i = 0; i < g; i++)
            for (guint j = i + 1; j < g; j++)
              add_link (t, gpu0 + i, gpu0 + j, share, intra, SIM_TIER_INTRA, FALSE);
        }
      for (guint j = 0; j < k; j++)
        {
          guint32 nic = add_vertex (t, SIM_VERTEX_NIC, 0, node->index);
          g_array_append_val (nics, nic);
          g_array_append_val (nic_nodes, node->index);
          if (k >= g)
            add_link (t, gpu0 + j % g, nic, pcie->bandwidth, pcie, SIM_TIER_INTRA, FALSE);
        }
      if (k > 0 && k < g)
        for (guint i = 0; i < g; i++)
          {
            guint32 nic = g_array_index (nics, guint32, nics->len - k + (guint) ((guint64) i * k / g));
            add_link (t, gpu0 + i, nic, pcie->bandwidth, pcie, SIM_TIER_INTRA, FALSE);
          }
    }
  span->n_extra = n_vertices (t) - span->first_extra;
  t->nvswitch_chips += m->nvswitches;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Between nodes */

typedef struct {
  SimTopology         *t;
  const SimFabricConfig *config;
  GArray              *nics;       /* guint32 vertex per NIC, in node order */
  GArray              *nic_nodes;  /* guint32 node per NIC */
  const SimLinkModel **nic_link;   /* per node */
  const SimLinkModel  *trunk;      /* the link model of switch-to-switch links */
  const SimSwitchModel *sw;        /* nullable */
  guint                radix;
  double               port_bw;    /* bytes/s per switch port */
  double               nic_share;  /* the fastest NIC port's bandwidth over port_bw (at
                                    * most 1): what a switch port taken by a NIC carries */
  SimTime              sw_latency;
  double               oversub;
} Fabric;

static guint32
add_switch (Fabric *f, SimVertexKind kind)
{
  return add_vertex (f->t, kind, f->sw_latency, NO_NODE);
}

/* Joins NIC @i to switch @sw. */
static void
attach_nic (Fabric *f, guint i, guint32 sw)
{
  guint32 nic = g_array_index (f->nics, guint32, i);
  guint32 node = g_array_index (f->nic_nodes, guint32, i);
  const SimLinkModel *m = f->nic_link[node];

  add_link (f->t, nic, sw, MIN (m->bandwidth, f->port_bw), m, SIM_TIER_ACCESS,
            m->access_optical);
}

static void
add_trunk (Fabric *f, guint32 lower, guint32 upper, SimLinkTier tier, gboolean electrical)
{
  add_link (f->t, lower, upper, f->port_bw, f->trunk, tier, f->trunk->optical && !electrical);
}

/* The down:up bandwidth of a switch of @down NIC ports and @up uplinks:
 * a NIC port carries the NIC's bandwidth (nic_share of a switch port's:
 * 400 Gb/s NICs on the 800 Gb/s ports of a Quantum-X800 carry half), an
 * uplink the switch port's. */
static double
bandwidth_ratio (const Fabric *f, guint down, guint up)
{
  return (double) down * f->nic_share / up;
}

/* How far a leaf of @down NIC ports and @up uplinks is from the asked
 * ratio r of bandwidths, on a log scale, so that 2.5:1 and 1.6:1 are as
 * far from 2:1 as 1:1 and 4:1 are, each a factor away. */
static double
ratio_error (const Fabric *f, guint down, guint up, double r)
{
  return fabs (log (bandwidth_ratio (f, down, up) / r));
}

/* The uplinks of a switch with @down NIC ports out of @ports: the whole
 * number nearest @down x nic_share / r (floor or ceiling, whichever gives
 * the ratio nearer r; the ceiling on a tie, the less oversubscribed), at
 * least one and at most the ports left; 0 if no port is left. */
static guint
uplinks_for (const Fabric *f, guint down, guint ports)
{
  double want = down * f->nic_share / f->oversub;
  guint room = ports > down ? ports - down : 0;
  guint lo = MIN (room, MAX (1u, (guint) floor (want + 1e-9)));
  guint hi = MIN (room, MAX (1u, (guint) ceil (want - 1e-9)));

  if (room == 0)
    return 0;
  return ratio_error (f, down, hi, f->oversub) <= ratio_error (f, down, lo, f->oversub) + 1e-12
           ? hi : lo;
}

/* Whole nodes per switch.  A switch of @ports ports (for NICs and
 * uplinks) takes n whole nodes of @k NICs each, n x k NIC ports, and
 * uplinks_for() of them; the plan is the n whose down:up ratio is nearest
 * the one asked (exactly it when any n gives it), and of those the
 * largest, for the fewest switches.  The ratio of a full switch is then
 * what the [fabric] section asked for, or the nearest that whole nodes
 * allow; the builder reports the second (see check_oversubscription()).
 * The search tries every n up to @ports / @k: O(radix). */
typedef struct {
  guint nodes;  /* whole nodes per switch */
  guint down;   /* their NIC ports */
  guint up;     /* uplinks of a full switch */
} LeafPlan;

static gboolean
plan_leaves (const Fabric *f, guint k, guint ports, const char *what, LeafPlan *plan,
             GError **error)
{
  double best = INFINITY;

  memset (plan, 0, sizeof *plan);
  for (guint n = ports / MAX (1u, k); n >= 1; n--)
    {
      guint down = n * k, up = uplinks_for (f, down, ports);
      double e;

      if (up == 0)
        continue;
      e = ratio_error (f, down, up, f->oversub);
      if (e < best - 1e-12)
        {
          best = e;
          plan->nodes = n;
          plan->down = down;
          plan->up = up;
        }
    }
  if (plan->nodes == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: a node's %u NICs and one uplink need %u ports, but a %s "
                   "has %u for them: expected a larger radix (no node's NICs are split across "
                   "switches)", k, k + 1, what, ports);
      return FALSE;
    }
  return TRUE;
}

/* The most NICs a node of the fabric has. */
static guint
max_node_nics (const Fabric *f)
{
  guint best = 0, run = 0;

  for (guint i = 0; i < f->nics->len; i++)
    {
      if (i > 0 && g_array_index (f->nic_nodes, guint32, i)
                   != g_array_index (f->nic_nodes, guint32, i - 1))
        run = 0;
      run++;
      best = MAX (best, run);
    }
  return best;
}

/* How many upper switches take @n_lower switches' uplinks, @ups[i] of them
 * from lower switch i, spread round-robin (uplink j to upper switch
 * j mod n): the fewest n, from the port count's lower bound up, such that
 * no upper switch needs more than @radix ports.  0 if none will do. */
static guint
spread_count (const guint *ups, guint n_lower, guint radix)
{
  guint64 total = 0;
  guint max_up = 0;

  for (guint i = 0; i < n_lower; i++)
    {
      total += ups[i];
      max_up = MAX (max_up, ups[i]);
    }
  for (guint n = MAX (1u, (guint) ((total + radix - 1) / radix)); n <= MAX (1u, max_up); n++)
    {
      guint64 ports = 0;
      for (guint i = 0; i < n_lower; i++)
        ports += (ups[i] + n - 1) / n;
      if (ports <= radix)
        return n;
    }
  return 0;
}

static gboolean
build_single_switch (Fabric *f, GError **error)
{
  guint32 sw;

  if (f->nics->len > f->radix)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u NICs do not fit on one switch of %u ports: expected "
                   "a larger radix, or topology = fat-tree", f->nics->len, f->radix);
      return FALSE;
    }
  sw = add_switch (f, SIM_VERTEX_LEAF);
  for (guint i = 0; i < f->nics->len; i++)
    attach_nic (f, i, sw);
  return TRUE;
}

/* Leaves in node order, each with as many whole nodes as fit in
 * @plan->down NIC ports (nodes with fewer NICs than the plan's pack more
 * to a leaf); every NIC of a node on its one leaf.  Their vertices are
 * appended to @leaves. */
static void
build_leaves (Fabric *f, const LeafPlan *plan, GArray *leaves)
{
  guint used = 0;

  for (guint i = 0; i < f->nics->len;)
    {
      guint32 node = g_array_index (f->nic_nodes, guint32, i);
      guint k = 0;
      guint32 leaf;

      while (i + k < f->nics->len && g_array_index (f->nic_nodes, guint32, i + k) == node)
        k++;
      if (leaves->len == 0 || used + k > plan->down)
        {
          leaf = add_switch (f, SIM_VERTEX_LEAF);
          g_array_append_val (leaves, leaf);
          used = 0;
        }
      leaf = g_array_index (leaves, guint32, leaves->len - 1);
      for (guint j = 0; j < k; j++)
        attach_nic (f, i + j, leaf);
      used += k;
      i += k;
    }
}

/* The NICs on each leaf, from the access links (in @leaves' order). */
static guint *
leaf_loads (const Fabric *f, GArray *leaves)
{
  guint *load = g_new0 (guint, MAX (1u, leaves->len));
  g_autoptr(GHashTable) index = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint i = 0; i < leaves->len; i++)
    g_hash_table_insert (index, GUINT_TO_POINTER (g_array_index (leaves, guint32, i) + 1),
                         GUINT_TO_POINTER (i + 1));
  for (guint l = 0; l < f->t->links->len; l++)
    {
      const SimLink *k = &g_array_index (f->t->links, SimLink, l);
      guint i = GPOINTER_TO_UINT (g_hash_table_lookup (index, GUINT_TO_POINTER (k->b + 1)));
      if (k->tier == SIM_TIER_ACCESS && i > 0)
        load[i - 1]++;
    }
  return load;
}

/* Joins @leaves, each with uplinks_for() its NICs, to as few spines as
 * their ports allow; leaf uplink j goes to spine j mod n. */
static gboolean
build_spines (Fabric *f, GArray *leaves, const char *three_tiers, GError **error)
{
  g_autofree guint *ups = NULL;
  g_autofree guint *load = NULL;
  guint n_spines;
  guint32 spine0;

  if (leaves->len <= 1)
    return TRUE;  /* one leaf needs no spine */
  load = leaf_loads (f, leaves);
  ups = g_new (guint, leaves->len);
  for (guint i = 0; i < leaves->len; i++)
    ups[i] = MAX (1u, uplinks_for (f, load[i], f->radix));
  n_spines = spread_count (ups, leaves->len, f->radix);
  if (n_spines == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u leaves need more ports than a spine of %u ports has: "
                   "expected at most %u leaves in two tiers (a larger radix, more "
                   "oversubscription, or %s)", leaves->len, f->radix, f->radix, three_tiers);
      return FALSE;
    }
  spine0 = n_vertices (f->t);
  for (guint s = 0; s < n_spines; s++)
    add_switch (f, SIM_VERTEX_SPINE);
  for (guint l = 0; l < leaves->len; l++)
    for (guint j = 0; j < ups[l]; j++)
      add_trunk (f, g_array_index (leaves, guint32, l), spine0 + j % n_spines,
                 SIM_TIER_AGGREGATION, FALSE);
  return TRUE;
}

static gboolean
build_fat_tree (Fabric *f, GError **error)
{
  g_autoptr(GArray) leaves = g_array_new (FALSE, FALSE, sizeof (guint32));
  LeafPlan plan;

  if (!plan_leaves (f, max_node_nics (f), f->radix, "leaf", &plan, error))
    return FALSE;
  build_leaves (f, &plan, leaves);
  return build_spines (f, leaves, "topology = fat-tree-3", error);
}

/* The tiers above @leaves in a three-tier tree: pods of leaves, leaf
 * i in pod @pod_of[i] (pods numbered from 0 in the leaves' order, each
 * at most radix/2 leaves), each leaf with one uplink to each of its pod's
 * first spines (as many as its uplinks); spine j of a pod has as many
 * uplinks as downlinks (non-blocking), spread round-robin over core group
 * j, which has as few cores as its ports allow. */
static gboolean
build_pods (Fabric *f, GArray *leaves, const guint *pod_of, guint n_pods, GError **error)
{
  guint up = 0;
  g_autofree guint32 *spines = NULL;
  g_autofree guint *spine_down = NULL;
  g_autofree guint *load = NULL;
  g_autofree guint *leaf_up = NULL;
  g_autofree guint *group_ups = NULL;

  if (leaves->len <= 1)
    return TRUE;  /* one leaf needs no spine */
  load = leaf_loads (f, leaves);
  leaf_up = g_new (guint, leaves->len);
  for (guint l = 0; l < leaves->len; l++)
    {
      leaf_up[l] = MAX (1u, uplinks_for (f, load[l], f->radix));
      up = MAX (up, leaf_up[l]);
    }
  spines = g_new0 (guint32, (gsize) n_pods * up);
  spine_down = g_new0 (guint, (gsize) n_pods * up);
  for (guint leaf = 0; leaf < leaves->len; leaf++)
    {
      guint p = pod_of[leaf];
      for (guint j = 0; j < leaf_up[leaf]; j++)
        {
          guint32 *spine = &spines[p * up + j];
          if (*spine == 0)
            *spine = add_switch (f, SIM_VERTEX_SPINE);
          add_trunk (f, g_array_index (leaves, guint32, leaf), *spine, SIM_TIER_AGGREGATION,
                     FALSE);
          spine_down[p * up + j]++;
        }
    }
  if (n_pods <= 1)
    return TRUE;  /* one pod needs no core */

  group_ups = g_new0 (guint, n_pods);
  for (guint j = 0; j < up; j++)
    {
      guint n_cores, n_members = 0;
      guint32 core0;

      for (guint p = 0; p < n_pods; p++)
        if (spine_down[p * up + j] > 0)
          group_ups[n_members++] = spine_down[p * up + j];
      if (n_members < 2)
        continue;  /* spine j exists in one pod only: nothing to join */
      n_cores = spread_count (group_ups, n_members, f->radix);
      if (n_cores == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "radix too small: %u pods need more ports than a core switch of %u "
                       "ports has: expected at most %u pods (a larger radix)", n_pods,
                       f->radix, f->radix);
          return FALSE;
        }
      core0 = n_vertices (f->t);
      for (guint c = 0; c < n_cores; c++)
        add_switch (f, SIM_VERTEX_CORE);
      for (guint p = 0; p < n_pods; p++)
        for (guint x = 0; x < spine_down[p * up + j]; x++)
          add_trunk (f, spines[p * up + j], core0 + x % n_cores, SIM_TIER_CORE, FALSE);
    }
  return TRUE;
}

/* Three tiers need a spine's ports halved between leaves and cores. */
static gboolean
check_three_tier_radix (const Fabric *f, GError **error)
{
  if (f->radix / 2 == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u ports: expected at least 2 for three tiers", f->radix);
      return FALSE;
    }
  return TRUE;
}

/* Three tiers: leaves of whole nodes as in two, in pods of radix/2
 * consecutive leaves (build_pods()). */
static gboolean
build_fat_tree_3 (Fabric *f, GError **error)
{
  g_autoptr(GArray) leaves = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint per_pod = f->radix / 2;
  LeafPlan plan;
  g_autofree guint *pod_of = NULL;

  if (!check_three_tier_radix (f, error)
      || !plan_leaves (f, max_node_nics (f), f->radix, "leaf", &plan, error))
    return FALSE;
  build_leaves (f, &plan, leaves);
  pod_of = g_new (guint, MAX (1u, leaves->len));
  for (guint l = 0; l < leaves->len; l++)
    pod_of[l] = l / per_pod;
  return build_pods (f, leaves, pod_of, (leaves->len + per_pod - 1) / per_pod, error);
}

/* Rail leaves: NIC i of every node of a rail group on rail leaf i of that
 * group.  A rail leaf takes one NIC of each node of its group, so the
 * group has as many nodes as the plan for nodes of one NIC puts on a
 * leaf.  The leaves are appended to @leaves group by group (the NICs come
 * node by node), and each one's group to @groups. */
static gboolean
build_rail_leaves (Fabric *f, GArray *leaves, GArray *groups, GError **error)
{
  g_autoptr(GHashTable) leaf_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint first = 0;
  LeafPlan plan;

  if (!plan_leaves (f, 1, f->radix, "rail leaf", &plan, error))
    return FALSE;
  for (guint i = 0; i < f->nics->len; i++)
    {
      guint32 node = g_array_index (f->nic_nodes, guint32, i);
      guint rail, group;
      gpointer key, value;

      if (i == 0 || node != g_array_index (f->nic_nodes, guint32, i - 1))
        first = i;
      rail = i - first;
      group = node / plan.nodes;
      key = GUINT_TO_POINTER (((guint64) group << 16 | rail) + 1);
      if (rail >= 1u << 16)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%u NICs in one node: expected fewer than 65536 rails", rail + 1);
          return FALSE;
        }
      if (!g_hash_table_lookup_extended (leaf_of, key, NULL, &value))
        {
          guint32 leaf = add_switch (f, SIM_VERTEX_LEAF);
          g_array_append_val (leaves, leaf);
          g_array_append_val (groups, group);
          value = GUINT_TO_POINTER (leaf);
          g_hash_table_insert (leaf_of, key, value);
        }
      attach_nic (f, i, GPOINTER_TO_UINT (value));
    }
  return TRUE;
}

/* Two tiers of rails: every rail leaf joined by spines. */
static gboolean
build_rail_optimized (Fabric *f, GError **error)
{
  g_autoptr(GArray) leaves = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) groups = g_array_new (FALSE, FALSE, sizeof (guint));

  if (!build_rail_leaves (f, leaves, groups, error))
    return FALSE;
  return build_spines (f, leaves, "topology = rail-optimized-3", error);
}

/* Three tiers of rails: the rail leaves in pods of whole rail groups, as
 * many groups as radix/2 leaves hold (a group's rails share its pod's
 * spines, so traffic from one rail to another stays in the pod), then
 * spines and cores as in a three-tier fat-tree.  A group of more rails
 * than radix/2 fills pods of radix/2 leaves. */
static gboolean
build_rail_optimized_3 (Fabric *f, GError **error)
{
  g_autoptr(GArray) leaves = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) groups = g_array_new (FALSE, FALSE, sizeof (guint));
  guint per_pod = f->radix / 2, n_pods = 0, in_pod = 0;
  g_autofree guint *pod_of = NULL;

  if (!check_three_tier_radix (f, error) || !build_rail_leaves (f, leaves, groups, error))
    return FALSE;
  pod_of = g_new (guint, MAX (1u, leaves->len));
  for (guint l = 0; l < leaves->len;)
    {
      guint group = g_array_index (groups, guint, l), n = 0;

      while (l + n < leaves->len && g_array_index (groups, guint, l + n) == group)
        n++;
      for (guint i = 0; i < n; i++)
        {
          /* A new pod when the group does not fit whole in this one, or
           * (a group larger than a pod) when this one is full. */
          if (n_pods == 0 || (n <= per_pod ? i == 0 && in_pod + n > per_pod
                                            : in_pod == per_pod))
            {
              n_pods++;
              in_pod = 0;
            }
          pod_of[l + i] = n_pods - 1;
          in_pod++;
        }
      l += n;
    }
  return build_pods (f, leaves, pod_of, n_pods, error);
}

/* Groups of routers joined all-to-all inside a group (electrical) and by
 * global links between groups (optical), "consecutive" allocation of global
 * ports: group g's ports are taken in order, router by router.  Every NIC
 * of a node is on one router, m whole nodes to a router, spread evenly over
 * the routers the nodes need.  With an oversubscription asked (and no
 * global_links), a router's global links are chosen as a leaf's uplinks
 * are, for its NIC ports. */
static gboolean
build_dragonfly (Fabric *f, GError **error)
{
  const SimFabricConfig *c = f->config;
  guint n = f->nics->len, k = max_node_nics (f), n_nodes = 0;
  guint a = c->dragonfly_routers_per_group ? c->dragonfly_routers_per_group
                                            : MAX (2u, f->radix / 2);
  gboolean by_ratio = c->oversubscription != 0 && c->dragonfly_global_links == 0;
  guint h = c->dragonfly_global_links ? c->dragonfly_global_links : MAX (1u, f->radix / 4);
  guint groups, m, m_max, per_pair;
  g_autofree guint *next_port = NULL;
  guint32 router0;

  for (guint i = 0; i < n; i++)
    n_nodes = MAX (n_nodes, g_array_index (f->nic_nodes, guint32, i) + 1);
  if (a - 1 + (by_ratio ? 1 : h) >= f->radix)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u routers per group and %u global links leave no port of "
                   "%u for NICs: expected routers_per_group - 1 + global_links < radix", a,
                   by_ratio ? 1 : h, f->radix);
      return FALSE;
    }
  if (by_ratio)
    {
      LeafPlan plan;
      if (!plan_leaves (f, k, f->radix - (a - 1), "dragonfly router", &plan, error))
        return FALSE;
      m_max = plan.nodes;
    }
  else
    m_max = (f->radix - (a - 1) - h) / k;
  if (m_max == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: a node's %u NICs need %u ports on one router, but %u "
                   "routers per group and %u global links leave %u of %u: expected a larger "
                   "radix, fewer routers_per_group or global_links (no node's NICs are split "
                   "across routers)", k, k, a, h, f->radix - (a - 1) - h, f->radix);
      return FALSE;
    }
  if (c->dragonfly_groups > 0)
    groups = c->dragonfly_groups;
  else
    groups = MAX (1u, (n_nodes + a * m_max - 1) / (a * m_max));
  m = MAX (1u, (n_nodes + groups * a - 1) / (groups * a));
  if (by_ratio)
    h = uplinks_for (f, m * k, f->radix - (a - 1));
  if (m * k + (a - 1) + h > f->radix)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u nodes over %u groups of %u routers put %u nodes of %u "
                   "NICs on a router, which with %u group ports and %u global ports need "
                   "more than %u: expected more groups or a larger radix", n_nodes, groups, a,
                   m, k, a - 1, h, f->radix);
      return FALSE;
    }
  if (groups > 1 && groups - 1 > a * h)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u groups need %u global links from each group, but %u routers of %u "
                   "global links have %u: expected at most %u groups", groups, groups - 1, a,
                   h, a * h, a * h + 1);
      return FALSE;
    }

  f->t->dfly_groups = groups;
  f->t->dfly_a = a;
  router0 = n_vertices (f->t);
  for (guint r = 0; r < groups * a; r++)
    add_switch (f, SIM_VERTEX_ROUTER);
  for (guint i = 0; i < n; i++)
    attach_nic (f, i, router0 + g_array_index (f->nic_nodes, guint32, i) / m);
  for (guint g = 0; g < groups; g++)
    for (guint r = 0; r < a; r++)
      for (guint s = r + 1; s < a; s++)
        add_trunk (f, router0 + g * a + r, router0 + g * a + s, SIM_TIER_AGGREGATION, TRUE);
  if (groups < 2)
    return TRUE;
  per_pair = a * h / (groups - 1);
  next_port = g_new0 (guint, groups);
  for (guint g1 = 0; g1 < groups; g1++)
    for (guint g2 = g1 + 1; g2 < groups; g2++)
      for (guint k2 = 0; k2 < per_pair; k2++)
        {
          guint32 r1 = router0 + g1 * a + next_port[g1]++ / h;
          guint32 r2 = router0 + g2 * a + next_port[g2]++ / h;
          add_trunk (f, r1, r2, SIM_TIER_CORE, FALSE);
        }
  return TRUE;
}

/* The links of the network (from @first on): the [fabric] link_latency
 * in place of the link model's per-hop latency, plus the propagation
 * along the cable lengths the [fabric] section gives. */
static void
set_network_link_latency (SimTopology *t, const SimFabricConfig *config, guint first)
{
  for (guint l = first; l < t->links->len; l++)
    {
      SimLink *k = &g_array_index (t->links, SimLink, l);
      double metres;

      if (k->tier == SIM_TIER_INTRA)
        continue;
      if (config->set_link_latency)
        k->latency = config->link_latency;
      metres = k->tier == SIM_TIER_ACCESS ? config->access_cable_length : config->cable_length;
      k->latency += (SimTime) llround (metres * SIM_CABLE_NS_PER_METRE);
    }
}

/* Adds a warning to @t: something built otherwise than asked. */
static void G_GNUC_PRINTF (2, 3)
add_warning (SimTopology *t, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  g_ptr_array_index (t->warnings, t->warnings->len - 1) = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_ptr_array_add (t->warnings, NULL);
}

/* "2:1", "3.08:1". */
static char *
ratio_string (double r)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf ("%s:1", g_ascii_formatd (buf, sizeof buf, "%.3g", r));
}

static gint
compare_shapes (gconstpointer a, gconstpointer b)
{
  const guint *x = a, *y = b;  /* { down, up, count } */
  if (x[2] != y[2])
    return x[2] > y[2] ? -1 : 1;
  return x[0] != y[0] ? (x[0] > y[0] ? -1 : 1) : (x[1] > y[1] ? -1 : x[1] < y[1]);
}

/* Checks the built leaves (rail leaves, dragonfly routers) from @first_switch
 * on against the oversubscription asked: every one with uplinks should
 * have its NIC ports' bandwidth over its uplinks' equal to it.  Where
 * whole nodes do not allow it, the builder took the nearest ratio; this
 * says which it built, leaf shape by leaf shape, as a warning.  A dragonfly with no ratio asked is
 * not checked (its global links come from global_links). */
static void
check_oversubscription (Fabric *f, guint32 first_switch, guint first_link)
{
  SimTopology *t = f->t;
  guint n_sw = n_vertices (t) - first_switch;
  g_autofree guint *down = g_new0 (guint, MAX (1u, n_sw));
  g_autofree guint *up = g_new0 (guint, MAX (1u, n_sw));
  g_autoptr(GArray) shapes = g_array_new (FALSE, FALSE, 3 * sizeof (guint));
  g_autoptr(GString) built = g_string_new (NULL);
  g_autofree char *asked = NULL;
  gboolean off = FALSE;
  const char *what, *whats;
  gboolean rails;

  if (f->config->kind == SIM_FABRIC_DRAGONFLY && f->config->oversubscription == 0)
    return;
  for (guint l = first_link; l < t->links->len; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      SimVertexKind ka = vertex_kind (t, k->a), kb = vertex_kind (t, k->b);

      if (k->tier == SIM_TIER_ACCESS)
        down[k->b - first_switch]++;
      else if (ka == SIM_VERTEX_LEAF && kb == SIM_VERTEX_SPINE)
        up[k->a - first_switch]++;
      else if (ka == SIM_VERTEX_ROUTER && k->tier == SIM_TIER_CORE)
        {
          up[k->a - first_switch]++;
          up[k->b - first_switch]++;
        }
    }
  for (guint s = 0; s < n_sw; s++)
    {
      guint i;

      if (up[s] == 0 || down[s] == 0)
        continue;
      if (fabs (bandwidth_ratio (f, down[s], up[s]) / f->oversub - 1) > 1e-9)
        off = TRUE;
      for (i = 0; i < shapes->len; i++)
        {
          guint *sh = &g_array_index (shapes, guint, 3 * i);
          if (sh[0] == down[s] && sh[1] == up[s])
            {
              sh[2]++;
              break;
            }
        }
      if (i == shapes->len)
        {
          guint sh[3] = { down[s], up[s], 1 };
          g_array_append_vals (shapes, sh, 1);
        }
    }
  if (!off)
    return;
  g_array_sort (shapes, compare_shapes);
  rails = f->config->kind == SIM_FABRIC_RAIL_OPTIMIZED
          || f->config->kind == SIM_FABRIC_RAIL_OPTIMIZED_3;
  what = f->config->kind == SIM_FABRIC_DRAGONFLY ? "router" : rails ? "rail leaf" : "leaf";
  whats = f->config->kind == SIM_FABRIC_DRAGONFLY ? "routers" : rails ? "rail leaves" : "leaves";
  for (guint i = 0; i < shapes->len; i++)
    {
      const guint *sh = &g_array_index (shapes, guint, 3 * i);
      g_autofree char *r = ratio_string (bandwidth_ratio (f, sh[0], sh[1]));
      g_string_append_printf (built, "%s%u %s of %u NIC ports and %u %s (%s)",
                              i > 0 ? ", " : "", sh[2], sh[2] == 1 ? what : whats, sh[0], sh[1],
                              f->config->kind == SIM_FABRIC_DRAGONFLY ? "global links"
                                                                      : "uplinks", r);
    }
  asked = ratio_string (f->oversub);
  add_warning (t, "oversubscription %s asked, but not every %s can have it with whole nodes "
               "of up to %u NICs on %u-port switches: built %s", asked, what,
               max_node_nics (f), f->radix, built->str);
}

static gboolean build_network (Fabric *f, GError **error);

static gboolean
build_fabric (SimTopology *t, const SimCluster *cluster, const SimCatalogue *catalogue,
              const SimFabricConfig *config, GArray *nics, GArray *nic_nodes, GError **error)
{
  g_autofree const SimLinkModel **nic_link = g_new0 (const SimLinkModel *, t->n_nodes);
  const SimLinkModel *forced = NULL;
  Fabric f = { .t = t, .config = config, .nics = nics, .nic_nodes = nic_nodes,
               .nic_link = nic_link };

  if (config->link_model != NULL)
    {
      forced = sim_catalogue_lookup_link (catalogue, config->link_model);
      if (forced == NULL)
        {
          const char *guess = sim_catalogue_suggest_link (catalogue, config->link_model);
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                       "no link model \"%s\" in the catalogue%s (see `gpusim models`)",
                       config->link_model, sim__did_you_mean (guess));
          return FALSE;
        }
    }
  if (config->switch_model != NULL)
    {
      f.sw = sim_catalogue_lookup_switch (catalogue, config->switch_model);
      if (f.sw == NULL)
        {
          const char *guess = sim_catalogue_suggest_switch (catalogue, config->switch_model);
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                       "no switch model \"%s\" in the catalogue%s (see `gpusim models`)",
                       config->switch_model, sim__did_you_mean (guess));
          return FALSE;
        }
    }
  if (config->oversubscription != 0 && !(config->oversubscription >= 1))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "oversubscription %g: expected at least 1 (1:1 is non-blocking)",
                   config->oversubscription);
      return FALSE;
    }
  f.oversub = config->oversubscription != 0 ? config->oversubscription : 1.0;

  for (guint i = 0; i < t->n_nodes; i++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, i);
      const SimNodeModel *m = node->model;

      nic_link[i] = forced;
      if (nic_link[i] == NULL)
        nic_link[i] = m->nic_link != NULL ? m->nic_link
                                          : sim_catalogue_lookup_link (catalogue, m->nic_link_name);
      if (m->nics == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "node model \"%s\" has no NICs: expected nics > 0 to join a %s fabric "
                       "(or topology = none)", m->name, sim_fabric_kind_to_string (config->kind));
          return FALSE;
        }
      if (nic_link[i] == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "node model \"%s\" (%s) has no NIC link: expected a nic_link key in the "
                       "model, or a link key in [fabric], naming a [link] model such as "
                       "\"IB-NDR\"", m->name, m->source_file);
          return FALSE;
        }
    }
  f.trunk = nic_link[0];
  t->trunk_kind = f.trunk->kind != NULL ? g_intern_string (f.trunk->kind) : NULL;
  if (config->routing == SIM_ROUTING_SPRAY
      && (config->kind == SIM_FABRIC_DRAGONFLY))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "routing spray needs a tree fabric: expected topology single-switch, "
                   "fat-tree, fat-tree-3, rail-optimized or rail-optimized-3 (a dragonfly routes minimally over "
                   "one path: use dmodk, ecmp or adaptive)");
      return FALSE;
    }
  f.radix = config->radix != 0 ? config->radix : f.sw != NULL ? f.sw->radix : 0;
  if (f.radix == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "no switch: expected a switch model ([fabric] switch) or a radix");
      return FALSE;
    }
  f.port_bw = f.sw != NULL ? f.sw->port_bandwidth : f.trunk->bandwidth;
  f.sw_latency = config->set_switch_latency ? config->switch_latency
                 : f.sw != NULL ? f.sw->latency_ns : 0;
  return build_network (&f, error);
}

/* The switches and their links, once @f is resolved (its link models,
 * radix, port bandwidth, switch latency and oversubscription); shared by
 * the cluster builder and sim_topology_new_hosts(). */
static gboolean
build_network (Fabric *f, GError **error)
{
  SimTopology *t = f->t;
  const SimFabricConfig *config = f->config;
  GArray *nics = f->nics, *nic_nodes = f->nic_nodes;
  const SimLinkModel **nic_link = f->nic_link;

  /* A NIC's vertex carries half its link's per-message transport latency
   * (or half the [fabric] transport_latency that replaces it). */
  for (guint i = 0; i < nics->len; i++)
    {
      const SimLinkModel *m = nic_link[g_array_index (nic_nodes, guint32, i)];
      SimTime transport = config->set_transport_latency ? config->transport_latency
                                                        : m->transport_latency_ns;
      g_array_index (t->latency, SimTime, g_array_index (nics, guint32, i)) = transport / 2;
      /* (The fastest NIC's share of a switch port: attach_nic() caps a NIC's
       * link at the port's bandwidth.) */
      f->nic_share = MAX (f->nic_share, MIN (m->bandwidth, f->port_bw) / f->port_bw);
    }
  if (!(f->nic_share > 0))
    f->nic_share = 1;

  {
    guint first_link = t->links->len;
    guint32 first_switch = n_vertices (t);
    gboolean ok;

    switch (config->kind)
      {
      case SIM_FABRIC_SINGLE_SWITCH:
        ok = build_single_switch (f, error);
        break;
      case SIM_FABRIC_FAT_TREE:
        ok = build_fat_tree (f, error);
        break;
      case SIM_FABRIC_FAT_TREE_3:
        ok = build_fat_tree_3 (f, error);
        break;
      case SIM_FABRIC_RAIL_OPTIMIZED:
        ok = build_rail_optimized (f, error);
        break;
      case SIM_FABRIC_RAIL_OPTIMIZED_3:
        ok = build_rail_optimized_3 (f, error);
        break;
      case SIM_FABRIC_DRAGONFLY:
        ok = build_dragonfly (f, error);
        break;
      case SIM_FABRIC_NONE:
      default:
        ok = TRUE;
        break;
      }
    if (ok)
      {
        set_network_link_latency (t, config, first_link);
        check_oversubscription (f, first_switch, first_link);
      }
    return ok;
  }
}

/* ------------------------------------------------------------------------ */
/* The topology */

static void
dist_table_free (gpointer p)
{
  DistTable *d = p;
  g_free (d->dist);
  g_free (d);
}

static guint32 switch_above (const SimTopology *t, guint32 v, guint32 not_this);

static void
build_adjacency (SimTopology *t)
{
  guint nv = n_vertices (t), nl = t->links->len;
  g_autofree guint32 *fill = g_new0 (guint32, nv + 1);

  t->adj_start = g_new0 (guint32, nv + 1);
  t->adj_link = g_new (guint32, (gsize) 2 * nl + 1);
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      t->adj_start[k->a + 1]++;
      t->adj_start[k->b + 1]++;
    }
  for (guint v = 0; v < nv; v++)
    t->adj_start[v + 1] += t->adj_start[v];
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      t->adj_link[t->adj_start[k->a] + fill[k->a]++] = l;
      t->adj_link[t->adj_start[k->b] + fill[k->b]++] = l;
    }
  t->bfs_queue = g_new (guint32, nv + 1);
  /* Each node's leaf: the switch above its first NIC that has one
   * (sim_topology_get_node_group()), in one pass over the vertices. */
  t->node_leaf = g_new (guint32, MAX (1u, t->n_nodes));
  for (guint32 i = 0; i < t->n_nodes; i++)
    t->node_leaf[i] = NO_NODE;
  for (guint32 v = 0; v < nv; v++)
    {
      guint32 node = g_array_index (t->node_of, guint32, v);
      if (node < t->n_nodes && t->node_leaf[node] == NO_NODE
          && vertex_kind (t, v) == SIM_VERTEX_NIC)
        t->node_leaf[node] = switch_above (t, v, NO_NODE);
    }
}

static SimTopology *
topology_alloc (guint32 n_gpus, guint32 n_nodes)
{
  SimTopology *t = g_new0 (SimTopology, 1);

  t->kinds = g_array_new (FALSE, FALSE, sizeof (guint8));
  t->latency = g_array_new (FALSE, FALSE, sizeof (SimTime));
  t->node_of = g_array_new (FALSE, FALSE, sizeof (guint32));
  t->links = g_array_new (FALSE, FALSE, sizeof (SimLink));
  t->optical = g_array_new (FALSE, FALSE, sizeof (guint8));
  t->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (t->warnings, NULL);
  t->global_cache = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, dist_table_free);
  t->intra_cache = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, dist_table_free);
  g_queue_init (&t->cache_order);
  t->n_gpus = n_gpus;
  t->n_nodes = n_nodes;
  t->spans = g_new0 (NodeSpan, MAX (1u, n_nodes));
  return t;
}

/* Refuses a topology whose numbering would overflow. */
static gboolean
check_size (SimTopology *t, GError **error)
{
  if (n_vertices (t) >= G_MAXUINT32 / 2 || t->links->len >= G_MAXUINT32 / 4)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the topology is too large: %u vertices, %u links", n_vertices (t),
                   t->links->len);
      return FALSE;
    }
  return TRUE;
}

SimTopology *
sim_topology_new (const SimCluster *cluster, const SimCatalogue *catalogue,
                  const SimFabricConfig *config, GError **error)
{
  g_autoptr(SimTopology) t = NULL;
  g_autoptr(GArray) nics = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) nic_nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimFabricConfig none = { 0 };

  g_return_val_if_fail (cluster != NULL, NULL);
  g_return_val_if_fail (catalogue != NULL, NULL);

  sim_init ();
  if (config == NULL)
    config = &none;
  if ((guint) config->kind > SIM_FABRIC_RAIL_OPTIMIZED_3)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "unknown fabric kind %d",
                   (int) config->kind);
      return NULL;
    }

  t = topology_alloc (sim_cluster_get_n_gpus (cluster), sim_cluster_get_n_nodes (cluster));

  for (guint32 i = 0; i < t->n_gpus; i++)
    add_vertex (t, SIM_VERTEX_GPU, 0, sim_cluster_get_gpu (cluster, i)->node);
  for (guint i = 0; i < t->n_nodes; i++)
    if (!build_node (t, sim_cluster_get_node (cluster, i), catalogue,
                     config->kind != SIM_FABRIC_NONE, nics, nic_nodes, error))
      return NULL;
  if (config->kind != SIM_FABRIC_NONE && t->n_nodes > 0
      && !build_fabric (t, cluster, catalogue, config, nics, nic_nodes, error))
    return NULL;
  if (!check_size (t, error))
    return NULL;
  build_adjacency (t);
  sim__topology_build_routing (t, config, nics);
  return g_steal_pointer (&t);
}

SimTopology *
sim_topology_new_hosts (guint n_hosts, double host_bandwidth, SimFabricKind kind, guint radix,
                        double oversubscription, SimTime link_latency, GError **error)
{
  g_autoptr(SimTopology) t = NULL;
  g_autoptr(GArray) nics = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) nic_nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree const SimLinkModel **nic_link = NULL;
  SimLinkModel host_link = {
    .name = (char *) "host", .kind = (char *) "ethernet", .transport = (char *) "rdma",
    .bandwidth = host_bandwidth, .efficiency = 1.0, .latency_ns = link_latency,
  };
  SimFabricConfig config = {
    .kind = kind, .radix = radix, .oversubscription = oversubscription,
    .set_link_latency = TRUE, .link_latency = link_latency,
    .set_switch_latency = TRUE, .set_transport_latency = TRUE,
    .routing = SIM_ROUTING_DMODK,
  };
  Fabric f = { .config = &config, .nics = nics, .nic_nodes = nic_nodes,
               .trunk = &host_link, .port_bw = host_bandwidth };

  sim_init ();
  if (n_hosts < 2)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u hosts: expected at least 2 to make a network", n_hosts);
      return NULL;
    }
  if (n_hosts >= G_MAXUINT32 / 8)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%u hosts: too many", n_hosts);
      return NULL;
    }
  if (!(host_bandwidth > 0) || isinf (host_bandwidth))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "host bandwidth %g bytes/s: expected a positive, finite number",
                   host_bandwidth);
      return NULL;
    }
  if (kind != SIM_FABRIC_SINGLE_SWITCH && kind != SIM_FABRIC_FAT_TREE
      && kind != SIM_FABRIC_FAT_TREE_3)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "topology %s: expected single-switch, fat-tree or fat-tree-3 for hosts",
                   sim_fabric_kind_to_string (kind));
      return NULL;
    }
  if (oversubscription != 0 && !(oversubscription >= 1 && isfinite (oversubscription)))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "oversubscription %g: expected at least 1 (1:1 is non-blocking)",
                   oversubscription);
      return NULL;
    }
  if (link_latency < 0 || link_latency > SIM_FABRIC_MAX_LATENCY)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "link latency %" G_GINT64_FORMAT " ns: expected 0 to 1 s", link_latency);
      return NULL;
    }
  if (radix == 0 && kind == SIM_FABRIC_SINGLE_SWITCH)
    radix = n_hosts;
  if (radix < 2)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix %u: expected at least 2 ports per switch", radix);
      return NULL;
    }

  t = topology_alloc (n_hosts, n_hosts);
  f.t = t;
  f.radix = radix;
  f.oversub = oversubscription != 0 ? oversubscription : 1.0;
  nic_link = g_new (const SimLinkModel *, n_hosts);
  f.nic_link = nic_link;
  /* Hosts first (the "GPU" vertices, one per node), then one NIC each,
   * joined by a host link of unbounded capacity that no route is
   * limited by. */
  for (guint32 h = 0; h < n_hosts; h++)
    add_vertex (t, SIM_VERTEX_GPU, 0, h);
  for (guint32 h = 0; h < n_hosts; h++)
    {
      NodeSpan *span = &t->spans[h];
      guint32 nic;

      span->first_gpu = h;
      span->n_gpus = 1;
      span->first_extra = n_vertices (t);
      nic = add_vertex (t, SIM_VERTEX_NIC, 0, h);
      span->n_extra = 1;
      add_link (t, h, nic, INFINITY, NULL, SIM_TIER_INTRA, FALSE);
      g_array_append_val (nics, nic);
      g_array_append_val (nic_nodes, h);
      nic_link[h] = &host_link;
    }
  t->trunk_kind = g_intern_string (host_link.kind);
  if (!build_network (&f, error) || !check_size (t, error))
    return NULL;
  /* The link model lives on this stack: keep only its interned name. */
  build_adjacency (t);
  sim__topology_build_routing (t, &config, nics);
  return g_steal_pointer (&t);
}

void
sim_topology_free (SimTopology *topology)
{
  if (topology == NULL)
    return;
  g_array_unref (topology->kinds);
  g_array_unref (topology->latency);
  g_array_unref (topology->node_of);
  g_array_unref (topology->links);
  g_array_unref (topology->optical);
  g_ptr_array_unref (topology->warnings);
  g_free (topology->spans);
  g_free (topology->adj_start);
  g_free (topology->node_leaf);
  g_free (topology->adj_link);
  g_free (topology->bfs_queue);
  g_free (topology->nic_vertex);
  g_free (topology->nic_access);
  g_free (topology->gpu_nic_start);
  g_free (topology->gpu_nic);
  g_free (topology->up_start);
  g_free (topology->up_link);
  g_free (topology->bundle_of);
  g_free (topology->bundle_capacity);
  for (guint32 i = 0; topology->anc_rows != NULL && i < topology->anc_width; i++)
    g_free (topology->anc_rows[i]);
  g_free (topology->anc_rows);
  g_free (topology->anc_scratch);
  g_free (topology->anc_queue);
  g_free (topology->up_to);
  g_free (topology->adj_to);
  g_free (topology->cand);
  g_aligned_free (topology->nic_way);
  g_aligned_free (topology->walk_kept);
  g_free (topology->up_hop);
  g_free (topology->up_latency);
  if (topology->route_spill != NULL)
    g_array_unref (topology->route_spill);
  g_free (topology->sw_start);
  g_free (topology->sw_link);
  g_free (topology->sw_to);
  g_free (topology->gl_start);
  g_free (topology->gl_to);
  g_free (topology->gl_sig);
  g_free (topology->gl_mark);
  g_free (topology->gl_gmark);
  if (topology->shapes != NULL)
    g_ptr_array_unref (topology->shapes);
  g_free (topology->node_shape);
  g_free (topology->node_link0);
  g_free (topology->node_switch);
  g_free (topology->node_kind);
  g_free (topology->node_nic0);
  g_free (topology->node_up);
  g_free (topology->node_spines);
  g_hash_table_unref (topology->global_cache);
  g_hash_table_unref (topology->intra_cache);
  g_queue_clear (&topology->cache_order);
  g_free (topology);
}

const char * const *
sim_topology_get_warnings (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, NULL);
  return (const char * const *) topology->warnings->pdata;
}

guint
sim_topology_get_n_vertices (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, 0);
  return n_vertices (topology);
}

guint
sim_topology_get_n_gpus (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, 0);
  return topology->n_gpus;
}

SimVertexKind
sim_topology_get_vertex_kind (const SimTopology *topology, guint32 vertex)
{
  g_return_val_if_fail (topology != NULL, SIM_VERTEX_GPU);
  g_return_val_if_fail (vertex < n_vertices (topology), SIM_VERTEX_GPU);
  return vertex_kind (topology, vertex);
}

SimTime
sim_topology_get_vertex_latency (const SimTopology *topology, guint32 vertex)
{
  g_return_val_if_fail (topology != NULL, 0);
  g_return_val_if_fail (vertex < n_vertices (topology), 0);
  return g_array_index (topology->latency, SimTime, vertex);
}

gint
sim_topology_get_vertex_node (const SimTopology *topology, guint32 vertex)
{
  guint32 node;

  g_return_val_if_fail (topology != NULL, -1);
  g_return_val_if_fail (vertex < n_vertices (topology), -1);
  node = g_array_index (topology->node_of, guint32, vertex);
  return node == NO_NODE ? -1 : (gint) node;
}

/* The first neighbour of V whose kind is a network switch, or NO_NODE. */
static guint32
switch_above (const SimTopology *t, guint32 v, guint32 not_this)
{
  for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
    {
      const SimLink *l = &g_array_index (t->links, SimLink, t->adj_link[e]);
      guint32 w = l->a == v ? l->b : l->a;
      SimVertexKind k = vertex_kind (t, w);
      if (w != not_this && g_array_index (t->node_of, guint32, w) == NO_NODE &&
          (k == SIM_VERTEX_LEAF || k == SIM_VERTEX_SPINE || k == SIM_VERTEX_CORE ||
           k == SIM_VERTEX_ROUTER))
        return w;
    }
  return NO_NODE;
}

const char *
sim__fabric_bad_model_key (const SimFabricConfig *config, const SimCatalogue *catalogue)
{
  g_return_val_if_fail (config != NULL && catalogue != NULL, NULL);
  if (config->link_model != NULL && sim_catalogue_lookup_link (catalogue, config->link_model) == NULL)
    return "link";
  if (config->switch_model != NULL
      && sim_catalogue_lookup_switch (catalogue, config->switch_model) == NULL)
    return "switch";
  return NULL;
}

guint32
sim_topology_get_node_group (const SimTopology *topology, guint node, SimLinkTier tier)
{
  guint32 leaf;

  g_return_val_if_fail (topology != NULL, G_MAXUINT32);
  g_return_val_if_fail (node < topology->n_nodes, G_MAXUINT32);
  leaf = topology->node_leaf[node];
  if (leaf == NO_NODE || tier <= SIM_TIER_INTRA)
    return tier <= SIM_TIER_INTRA ? node : G_MAXUINT32;
  if (tier == SIM_TIER_ACCESS)
    return leaf;
  if (tier == SIM_TIER_AGGREGATION)
    {
      /* The first switch above the leaf: in a three-tier fat-tree the
       * spines are a pod's own, so this names the pod; in two tiers every
       * leaf reaches the same first spine. */
      guint32 up = NO_NODE;
      for (guint32 e = topology->adj_start[leaf]; e < topology->adj_start[leaf + 1] && up == NO_NODE; e++)
        {
          const SimLink *l = &g_array_index (topology->links, SimLink, topology->adj_link[e]);
          guint32 w = l->a == leaf ? l->b : l->a;
          if (g_array_index (topology->node_of, guint32, w) == NO_NODE &&
              vertex_rank (vertex_kind (topology, w)) > vertex_rank (vertex_kind (topology, leaf)))
            up = w;
        }
      return up == NO_NODE ? leaf : up;
    }
  return 0;
}

guint
sim_topology_get_n_links (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, 0);
  return topology->links->len;
}

const SimLink *
sim_topology_get_link (const SimTopology *topology, guint32 link)
{
  g_return_val_if_fail (topology != NULL, NULL);
  g_return_val_if_fail (link < topology->links->len, NULL);
  return &g_array_index (topology->links, SimLink, link);
}

gboolean
sim_topology_get_link_optical (const SimTopology *topology, guint32 link)
{
  g_return_val_if_fail (topology != NULL, FALSE);
  g_return_val_if_fail (link < topology->links->len, FALSE);
  return g_array_index (topology->optical, guint8, link) != 0;
}

guint32
sim_topology_get_gpu_vertex (const SimTopology *topology, guint32 gpu)
{
  g_return_val_if_fail (topology != NULL, 0);
  g_return_val_if_fail (gpu < topology->n_gpus, 0);
  return gpu;
}

double
sim_topology_resource_capacity (const SimTopology *topology, guint32 resource)
{
  const SimLink *l;

  g_return_val_if_fail (topology != NULL, 0);
  g_return_val_if_fail (resource < sim_topology_get_n_resources (topology), 0);
  if (resource >= 2 * topology->links->len)
    return topology->bundle_capacity[(resource - 2 * topology->links->len) / 2];
  l = &g_array_index (topology->links, SimLink, resource / 2);
  return l->bandwidth * l->efficiency;
}
