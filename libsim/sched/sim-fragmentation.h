/* sim-fragmentation.h: GPU fragmentation as the FGD paper measures it.
 *
 * Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads
 * with Fragmentation Gradient Descent", USENIX ATC'23, define the
 * fragmentation of a node n against a task m, F_n(m), as the free GPU
 * capacity of n that m cannot use, and against a workload M (task types m
 * with popularity p_m) as the expectation
 *
 *   F_n(M) = sum_{m in M} p_m F_n(m).
 *
 * F_n(m) is all of n's free GPU capacity when m cannot run on n at all:
 * its GPU model is not one m accepts, n lacks the host CPU or memory m
 * needs, no GPU has the room a fractional m asks, or fewer whole GPUs are
 * free than a whole-GPU m asks.  Otherwise it is the free part of the GPUs
 * m cannot use: for a fractional m (one GPU, d_m < 1), the GPUs with less
 * room than d_m; for a whole-GPU m, every partly used GPU.  The cluster's
 * fragmentation is the sum over its nodes.  Fragmentation gradient descent
 * places each task where it increases F_n(M) least.
 *
 * Conventions here: a GPU in MIG mode has no free capacity (it takes no
 * whole or fractional task); a task type asking for more GPUs than a node
 * holds can use the node only whole (F_n(m) = 0 when every GPU is free,
 * all of it otherwise), with the host share of sim_job_host_share(); task
 * types asking for no GPU contribute nothing.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "cluster/sim-cluster.h"
#include "sched/sim-policy.h"

G_BEGIN_DECLS

/**
 * sim_fgd_node_fragmentation:
 * @cluster: a cluster
 * @node: a node index
 * @classes: (array length=n): the task types; their @weight need not sum to 1
 * @n: their number
 *
 * Returns: F_n(M), in GPUs (0 if the weights sum to 0).
 *   Time complexity: O(@n x GPUs of the node).
 */
double sim_fgd_node_fragmentation (const SimCluster *cluster, guint node,
                                   const SimTaskClass *classes, guint n);

/**
 * sim_fgd_cluster_fragmentation:
 * @cluster: a cluster
 * @classes: (array length=n): the task types; their @weight need not sum to 1
 * @n: their number
 *
 * The sum of F_n(M) over the nodes, with the weights normalised to sum to 1.
 * Divide by the GPU count for a share of capacity.
 * Time complexity: O(@n x GPUs).
 *
 * Returns: the expected free GPU capacity that the workload cannot use, in GPUs.
 */
double sim_fgd_cluster_fragmentation (const SimCluster *cluster, const SimTaskClass *classes,
                                      guint n);

G_END_DECLS
