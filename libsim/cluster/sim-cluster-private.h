/* sim-cluster-private.h: what the placements and the simulation need of a
 * cluster beyond its public accessors (not installed).  See sim-cluster.h
 * for the model. */
#pragma once

#include "cluster/sim-cluster.h"

G_BEGIN_DECLS

/* @cluster's nodes and pools take their models from @catalogue: the
 * cluster holds a reference to it for as long as it lives, and copies of
 * its nodes and pools one each (sim_node_copy()). */
void sim__cluster_hold_catalogue (SimCluster *cluster, SimCatalogue *catalogue);

/* The nodes of every partition but @partition, in increasing order, in
 * *@n_nodes of them (internal, for placing inside partitions: kept until a
 * node changes partition or nodes are added; the array is the cluster's). */
const guint32 *sim__cluster_get_nodes_outside (SimCluster *cluster, guint partition,
                                               guint *n_nodes);

/* The node of GPU @gpu, found from the pools' layout without reading the
 * GPU's record (G_MAXUINT if out of range); internal. */
guint sim__cluster_node_of (const SimCluster *cluster, guint gpu);
/* Asks the processor to bring the records of @gpu and of its @node into
 * cache (internal: a hint, it changes nothing).  On a large cluster the
 * records of a job ending were last touched long before; asked for
 * together, their misses overlap rather than come one after another. */
void  sim__cluster_prefetch (const SimCluster *cluster, guint gpu, guint node);
/* The records of every GPU, GPU i at [i] (internal): for loops over a
 * job's GPUs, which sim_cluster_get_gpu() would check one by one. */
const SimGpu *sim__cluster_gpus (const SimCluster *cluster);

/* A grouping of a cluster's nodes (internal, for placements that choose a
 * group of nodes before the nodes in it, such as the nodes under one
 * switch): each node's group, below @n_groups.  Reference-counted. */
typedef struct _SimNodeGrouping SimNodeGrouping;

SimNodeGrouping *sim__node_grouping_new   (const guint32 *group_of, guint n_nodes,
                                           guint n_groups);
SimNodeGrouping *sim__node_grouping_ref   (SimNodeGrouping *grouping);
void             sim__node_grouping_unref (SimNodeGrouping *grouping);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimNodeGrouping, sim__node_grouping_unref)

/* Keeps the free GPUs of each group of @grouping (made for this cluster's
 * nodes) from now on, as the nodes' free counts change, in O(1) per
 * change; copies of @cluster keep them too.  Asking again changes nothing.
 * Nodes added later belong to no group. */
void sim__cluster_watch_grouping (SimCluster *cluster, SimNodeGrouping *grouping);
/* Stops keeping them (in @cluster; its copies keep theirs). */
void sim__cluster_unwatch_grouping (SimCluster *cluster, SimNodeGrouping *grouping);
/* The free GPUs of each group of @grouping, or NULL if @cluster does not
 * keep them (the array is the cluster's, valid until it changes). */
const guint32 *sim__cluster_get_group_free (const SimCluster *cluster,
                                            const SimNodeGrouping *grouping);

G_END_DECLS
