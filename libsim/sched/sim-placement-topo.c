/* sim-placement-topo.c: topology-aware placement.
 *
 * A job that fits in one node goes on one node (best fit).  A larger job
 * goes, if it can, on nodes under one leaf switch; otherwise under one pod
 * (the spines of a three-tier fat-tree); otherwise anywhere.  At each tier
 * the group chosen is the one that fits with the fewest free GPUs (best fit
 * between groups, keeping emptier groups whole for later large jobs), ties
 * to the lowest-numbered group.  Within a group, whole free nodes are taken
 * in order and the remainder goes on the fullest node that fits.  Fewer
 * tiers spanned means fewer shared uplinks crossed, which is what a
 * communicating job's rate depends on.  Cost: O(nodes) per tier.
 */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "sched/sim-placements.h"
#include "fabric/sim-topology.h"
#include "core/sim-error.h"

typedef struct {
  guint   n_nodes;
  guint32 *group[2];   /* per node: its leaf and its pod, as dense numbers */
  guint   n_groups[2];
} TopoState;

static void
topo_destroy (gpointer data)
{
  TopoState *s = data;

  g_free (s->group[0]);
  g_free (s->group[1]);
  g_free (s);
}

static gpointer
topo_create (const SimPolicySetup *setup, GError **error)
{
  TopoState *s;
  const SimLinkTier tiers[2] = { SIM_TIER_ACCESS, SIM_TIER_AGGREGATION };

  if (setup->topology == NULL || setup->cluster == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "topology-aware placement needs the cluster's network: add a [fabric] "
                   "section");
      return NULL;
    }
  s = g_new0 (TopoState, 1);
  s->n_nodes = sim_cluster_get_n_nodes (setup->cluster);
  for (guint t = 0; t < 2; t++)
    {
      g_autoptr(GHashTable) dense = g_hash_table_new (g_direct_hash, g_direct_equal);
      s->group[t] = g_new (guint32, MAX (s->n_nodes, 1));
      for (guint n = 0; n < s->n_nodes; n++)
        {
          guint32 id = sim_topology_get_node_group (setup->topology, n, tiers[t]);
          gpointer d;
          /* Nodes without a switch form their own group each. */
          if (id == G_MAXUINT32)
            id = G_MAXUINT32 - 1 - n;
          if (!g_hash_table_lookup_extended (dense, GUINT_TO_POINTER (id), NULL, &d))
            {
              d = GUINT_TO_POINTER (g_hash_table_size (dense));
              g_hash_table_insert (dense, GUINT_TO_POINTER (id), d);
            }
          s->group[t][n] = GPOINTER_TO_UINT (d);
        }
      s->n_groups[t] = g_hash_table_size (dense);
    }
  return s;
}

static guint
take_free (const SimCluster *cluster, const SimNode *node, guint want, guint32 *out)
{
  guint got = 0;

  for (guint g = 0; g < node->n_gpus && got < want; g++)
    if (sim_cluster_get_gpu (cluster, node->first_gpu + g)->n_tenants == 0)
      out[got++] = node->first_gpu + g;
  return got;
}

/* Places JOB on nodes whose group at TIER is GROUP (all nodes if TIER is
 * 2).  Returns the GPUs taken, or 0 if it does not fit there.  With OUT
 * NULL it only checks. */
static guint
place_in_group (const TopoState *s, const SimCluster *cluster, const SimJob *job, guint tier,
                guint32 group, guint32 *out)
{
  guint want = job->spec.gpus, got = 0;
  const SimNode *rest = NULL;
  g_autofree guint8 *used = g_new0 (guint8, MAX (s->n_nodes, 1));

  for (guint n = 0; n < s->n_nodes && got < want; n++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, n);
      if (tier < 2 && s->group[tier][n] != group)
        continue;
      if (node->free_gpus == node->n_gpus && node->n_gpus <= want - got &&
          sim_place_node_admits (cluster, n, job, node->n_gpus))
        {
          if (out != NULL)
            take_free (cluster, node, node->n_gpus, out + got);
          got += node->n_gpus;
          used[n] = 1;
        }
    }
  if (got < want)
    {
      for (guint n = 0; n < s->n_nodes; n++)
        {
          const SimNode *node = sim_cluster_get_node (cluster, n);
          if ((tier < 2 && s->group[tier][n] != group) || used[n] ||
              node->free_gpus < want - got ||
              !sim_place_node_admits (cluster, n, job, want - got))
            continue;
          if (rest == NULL || node->free_gpus < rest->free_gpus)
            rest = node;
        }
      if (rest == NULL)
        return 0;
      if (out != NULL)
        take_free (cluster, rest, want - got, out + got);
      got = want;
    }
  return got;
}

static gboolean
topo_place (gpointer state, const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  const TopoState *s = state;

  if (job->spec.gpu_milli < SIM_GPU_WHOLE ||
      job->spec.gpus <= sim_cluster_get_max_gpus_per_node (cluster))
    return sim_place_best_fit (cluster, job, placement);
  if (job->spec.gpus > sim_cluster_get_n_free_gpus (cluster))
    return FALSE;
  placement->n_gpus = job->spec.gpus;
  placement->milli = SIM_GPU_WHOLE;
  for (guint tier = 0; tier < 2; tier++)
    {
      g_autofree guint *free_in = g_new0 (guint, MAX (s->n_groups[tier], 1));
      gint64 best = -1;

      for (guint n = 0; n < s->n_nodes; n++)
        free_in[s->group[tier][n]] += sim_cluster_get_node (cluster, n)->free_gpus;
      for (guint g = 0; g < s->n_groups[tier]; g++)
        if (free_in[g] >= job->spec.gpus && (best < 0 || free_in[g] < free_in[best]) &&
            place_in_group (s, cluster, job, tier, g, NULL) == job->spec.gpus)
          best = g;
      if (best >= 0)
        return place_in_group (s, cluster, job, tier, (guint32) best, placement->gpus) ==
               job->spec.gpus;
    }
  return place_in_group (s, cluster, job, 2, 0, placement->gpus) == job->spec.gpus;
}

void
sim__register_topology_placement (void)
{
  static const SimPlacementInfo info = {
    .name = "topology-aware",
    .description = "span as few tiers as possible: one node, then one leaf, then one pod",
    .create = topo_create,
    .destroy = topo_destroy,
    .place = topo_place,
  };
  sim_policy_register_placement (&info);
}
