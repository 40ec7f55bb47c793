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
 * communicating job's rate depends on.
 *
 * Cost: the cluster keeps each group's free GPUs as nodes' counts change
 * (sim__cluster_watch_grouping()), and each group lists its nodes, so a
 * placement reads every group's count once per tier and walks only the
 * nodes of the groups with room enough: O(groups + nodes of those groups),
 * and O(nodes) only when no pod has room (the walk over every node).  At
 * 100,000 GPUs under 915 leaves that is under a thousand counts and a few
 * dozen nodes a job, where a scan of every node per group took millions.
 */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "sched/sim-placements.h"
#include "fabric/sim-topology.h"
#include "cluster/sim-cluster-private.h"
#include "core/sim-error.h"

#include <string.h>

typedef struct {
  SimCluster      *cluster;      /* a reference: the one that keeps the groups' free GPUs */
  guint            n_nodes;
  guint32         *group[2];     /* per node: its leaf and its pod, as dense numbers */
  guint            n_groups[2];
  SimNodeGrouping *grouping[2];  /* the same, as the cluster keeps their free GPUs */
  guint32         *start[2];     /* per group g: its nodes at members[start[g]] up to
                                  * members[start[g + 1]], in increasing order */
  guint32         *members[2];
  guint32         *count;        /* scratch: the groups' free GPUs, counted for a
                                  * cluster that does not keep them */
  guint32         *taken;        /* per node: == stamp if place_in_group() took it whole */
  guint32          stamp;
} TopoState;

static void
topo_destroy (gpointer data)
{
  TopoState *s = data;

  for (guint t = 0; t < 2; t++)
    {
      g_free (s->group[t]);
      g_free (s->start[t]);
      g_free (s->members[t]);
      if (s->grouping[t] != NULL)
        sim__cluster_unwatch_grouping (s->cluster, s->grouping[t]);
      sim__node_grouping_unref (s->grouping[t]);
    }
  sim_cluster_unref (s->cluster);
  g_free (s->count);
  g_free (s->taken);
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
  /* The cluster keeps the groups' free GPUs while the policy lives (what
   * it keeps, not what it holds: hence the cast). */
  s->cluster = sim_cluster_ref ((SimCluster *) setup->cluster);
  s->n_nodes = sim_cluster_get_n_nodes (setup->cluster);
  s->taken = g_new0 (guint32, MAX (s->n_nodes, 1));
  for (guint t = 0; t < 2; t++)
    {
      g_autoptr(GHashTable) dense = g_hash_table_new (g_direct_hash, g_direct_equal);
      guint32 *fill;
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
      /* Each group's nodes, in increasing order. */
      s->start[t] = g_new0 (guint32, s->n_groups[t] + 1);
      s->members[t] = g_new (guint32, MAX (s->n_nodes, 1));
      for (guint n = 0; n < s->n_nodes; n++)
        s->start[t][s->group[t][n] + 1]++;
      for (guint g = 0; g < s->n_groups[t]; g++)
        s->start[t][g + 1] += s->start[t][g];
      fill = g_memdup2 (s->start[t], sizeof (guint32) * (s->n_groups[t] + 1));
      for (guint n = 0; n < s->n_nodes; n++)
        s->members[t][fill[s->group[t][n]]++] = n;
      g_free (fill);
      s->grouping[t] = sim__node_grouping_new (s->group[t], s->n_nodes, s->n_groups[t]);
      sim__cluster_watch_grouping (s->cluster, s->grouping[t]);
    }
  s->count = g_new (guint32, MAX (MAX (s->n_groups[0], s->n_groups[1]), 1));
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
place_in_group (TopoState *s, const SimCluster *cluster, const SimJob *job, guint tier,
                guint32 group, guint32 *out)
{
  guint want = job->spec.gpus, got = 0;
  const SimNode *rest = NULL;
  const guint32 *list = tier < 2 ? s->members[tier] + s->start[tier][group] : NULL;
  guint len = tier < 2 ? s->start[tier][group + 1] - s->start[tier][group] : s->n_nodes;

  if (++s->stamp == 0)
    {
      memset (s->taken, 0, sizeof (guint32) * MAX (s->n_nodes, 1));
      s->stamp = 1;
    }
  for (guint i = 0; i < len && got < want; i++)
    {
      guint n = list != NULL ? list[i] : i;
      const SimNode *node = sim_cluster_get_node (cluster, n);
      if (node->free_gpus == node->n_gpus && node->n_gpus <= want - got &&
          sim_place_node_admits (cluster, n, job, node->n_gpus))
        {
          if (out != NULL)
            take_free (cluster, node, node->n_gpus, out + got);
          got += node->n_gpus;
          s->taken[n] = s->stamp;
        }
    }
  if (got < want)
    {
      for (guint i = 0; i < len; i++)
        {
          guint n = list != NULL ? list[i] : i;
          const SimNode *node = sim_cluster_get_node (cluster, n);
          if (s->taken[n] == s->stamp || node->free_gpus < want - got ||
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
  TopoState *s = state;

  if (job->spec.gpu_milli < SIM_GPU_WHOLE ||
      job->spec.gpus <= sim_cluster_get_max_gpus_per_node (cluster))
    return sim_place_best_fit (cluster, job, placement);
  if (job->spec.gpus > sim_cluster_get_n_free_gpus (cluster))
    return FALSE;
  g_return_val_if_fail (sim_cluster_get_n_nodes (cluster) == s->n_nodes, FALSE);
  placement->n_gpus = job->spec.gpus;
  placement->milli = SIM_GPU_WHOLE;
  for (guint tier = 0; tier < 2; tier++)
    {
      const guint32 *free_in = sim__cluster_get_group_free (cluster, s->grouping[tier]);
      gint64 best = -1;

      if (free_in == NULL)
        {
          /* (A cluster that does not keep them: counted.) */
          memset (s->count, 0, sizeof (guint32) * s->n_groups[tier]);
          for (guint n = 0; n < s->n_nodes; n++)
            s->count[s->group[tier][n]] += sim_cluster_get_node (cluster, n)->free_gpus;
          free_in = s->count;
        }
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
