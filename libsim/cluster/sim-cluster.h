/* sim-cluster.h: nodes, GPUs and their allocation state.
 *
 * A cluster is a list of pools, each a number of identical nodes of one
 * catalogue model; nodes and GPUs are numbered densely, pool by pool, so
 * that a placement is a list of GPU indices.  Every GPU records how much of
 * it is allocated in thousandths (1000 = whole) and which MIG compute
 * slices are taken, so that whole-GPU, fractional and MIG allocation share
 * one state.  Allocation checks that no GPU is given out beyond its
 * capacity: a policy that tries is refused with SIM_ERROR_STATE.
 *
 * For fragmentation, the cluster keeps a histogram of nodes by (GPUs per
 * node, free whole GPUs), so the free GPUs that cannot host a request of g
 * GPUs are counted in O(GPUs per node) rather than O(nodes).
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "cluster/sim-catalogue.h"
#include "cluster/sim-mig.h"

G_BEGIN_DECLS

/**
 * SIM_GPU_WHOLE:
 *
 * A whole GPU in thousandths.
 */
#define SIM_GPU_WHOLE 1000u
/**
 * SIM_CLUSTER_MAX_GPUS_PER_NODE:
 *
 * The most GPUs one node may hold.
 */
#define SIM_CLUSTER_MAX_GPUS_PER_NODE 64u

/**
 * SIM_CLUSTER_MAX_GPUS:
 *
 * The most GPUs a cluster may hold (2^24, about 16.8 million).
 */
#define SIM_CLUSTER_MAX_GPUS (1u << 24)

/**
 * SimNode:
 * @index: its number in the cluster
 * @pool: the pool it belongs to
 * @first_gpu: index of its first GPU; its GPUs are consecutive
 * @n_gpus: GPUs it holds
 * @free_gpus: GPUs with nothing allocated on them
 * @model: (transfer none): its catalogue model
 * @gpu_model: (transfer none): its GPUs' model
 * @cpu_milli: host CPU in thousandths of a core; 0 if not modelled
 * @free_cpu_milli: host CPU not reserved
 * @memory_bytes: host memory; 0 if not modelled
 * @free_memory_bytes: host memory not reserved
 * @available: it takes jobs; an unavailable node (down, or drained) counts
 *   none of its GPUs as free (sim_cluster_set_node_available())
 */
typedef struct {
  guint32 index;
  guint32 pool;
  guint32 first_gpu;
  guint32 n_gpus;
  guint32 free_gpus;
  const SimNodeModel *model;
  const SimGpuModel  *gpu_model;
  guint64 cpu_milli;
  guint64 free_cpu_milli;
  guint64 memory_bytes;
  guint64 free_memory_bytes;
  gboolean available;
  /*< private >*/
  SimCatalogue *catalogue; /* its models' catalogue: borrowed in the cluster,
                            * a reference in a copy (sim_node_copy()) */
} SimNode;

/**
 * SIM_TYPE_NODE:
 *
 * The boxed type of #SimNode.  A copy is a snapshot of the node (its free
 * GPUs and host resources as they were) that holds a reference to the
 * catalogue its models are in, so that they stay valid after the cluster
 * is gone: what a binding gets from sim_cluster_get_node().
 */
#define SIM_TYPE_NODE (sim_node_get_type ())
GType sim_node_get_type (void) G_GNUC_CONST;
/**
 * sim_node_copy:
 * @node: a node
 *
 * Returns: (transfer full): a snapshot of @node; free with sim_node_free().
 */
SimNode *sim_node_copy (const SimNode *node);
/**
 * sim_node_free:
 * @node: (transfer full) (nullable): a snapshot from sim_node_copy()
 */
void     sim_node_free (SimNode *node);

/**
 * SimGpu:
 * @node: the node it is in
 * @local_index: its position in the node
 * @used_milli: thousandths allocated (1000: fully)
 * @mig_used: bit i set when MIG compute slice i is taken
 * @n_tenants: allocations sharing it
 */
typedef struct {
  guint32 node;
  guint32 local_index;
  guint32 used_milli;
  guint32 mig_used;
  guint32 n_tenants;
} SimGpu;

/**
 * SIM_TYPE_GPU:
 *
 * The boxed type of #SimGpu; a copy is a snapshot of the GPU's allocation.
 */
#define SIM_TYPE_GPU (sim_gpu_get_type ())
GType sim_gpu_get_type (void) G_GNUC_CONST;

/**
 * SimPool:
 * @name: the pool's name in the scenario
 * @model: its node model
 * @gpu_model: its GPU model (the node's, or an override)
 * @gpus_per_node: GPUs in each node
 * @first_node: index of its first node
 * @n_nodes: its number of nodes
 */
typedef struct {
  char   *name;
  const SimNodeModel *model;
  const SimGpuModel  *gpu_model;
  guint32 gpus_per_node;
  guint32 first_node;
  guint32 n_nodes;
  /*< private >*/
  SimCatalogue *catalogue; /* as #SimNode's */
} SimPool;

/**
 * SIM_TYPE_POOL:
 *
 * The boxed type of #SimPool; a copy has its own name and, like a
 * #SimNode's, holds a reference to its models' catalogue.
 */
#define SIM_TYPE_POOL (sim_pool_get_type ())
GType sim_pool_get_type (void) G_GNUC_CONST;

typedef struct _SimCluster SimCluster;

/**
 * SIM_TYPE_CLUSTER:
 *
 * The boxed type of #SimCluster: reference-counted, a copy is a new
 * reference.  A simulation holds one on its cluster, and so does whatever
 * a binding keeps of it (sim_simulation_get_cluster(), a policy's
 * argument), so that the cluster outlives the simulation as long as it is
 * kept; a cluster built from a catalogue holds a reference to it.
 */
#define SIM_TYPE_CLUSTER (sim_cluster_get_type ())
GType sim_cluster_get_type (void) G_GNUC_CONST;

/**
 * sim_cluster_new: (skip)
 * Returns: (transfer full): an empty cluster.
 */
SimCluster *sim_cluster_new (void);
/**
 * sim_cluster_ref:
 * @cluster: a cluster
 *
 * Returns: (transfer full): @cluster, with one more reference.
 */
SimCluster *sim_cluster_ref (SimCluster *cluster);
/**
 * sim_cluster_unref:
 * @cluster: (transfer full) (nullable): a cluster
 *
 * Drops a reference; the last one frees the cluster.
 */
void        sim_cluster_unref (SimCluster *cluster);
/**
 * sim_cluster_free: (skip)
 *
 * The same as sim_cluster_unref().
 */
void        sim_cluster_free (SimCluster *cluster);

/**
 * sim_cluster_add_pool:
 * @cluster: a cluster with nothing allocated
 * @name: the pool's name
 * @model: its node model (must outlive the cluster)
 * @gpu_model: (nullable): a GPU model replacing the node's, or %NULL
 * @gpus_per_node: GPUs per node, or 0 for the model's count
 * @n_nodes: number of nodes, at least 1
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_INVALID if a count is out of range.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_cluster_add_pool (SimCluster *cluster, const char *name, const SimNodeModel *model,
                               const SimGpuModel *gpu_model, guint gpus_per_node, guint n_nodes,
                               GError **error);

/**
 * sim_cluster_set_pool_host:
 * @cluster: a cluster with nothing allocated
 * @pool: a pool index
 * @cpu_milli: CPU of each of its nodes, thousandths of a core (0: not modelled)
 * @memory_bytes: memory of each of its nodes (0: not modelled)
 *
 * Sets the host resources of a pool's nodes, replacing the node model's
 * cores and memory (used for traces that list nodes, such as openb).
 */
void sim_cluster_set_pool_host (SimCluster *cluster, guint pool, guint64 cpu_milli,
                                guint64 memory_bytes);

/**
 * sim_cluster_set_node_host:
 * @cluster: a cluster with nothing reserved on @node
 * @node: a node index
 * @cpu_milli: its CPU, thousandths of a core (0: not modelled)
 * @memory_bytes: its memory (0: not modelled)
 *
 * Sets one node's host resources (trace node lists give them per node).
 */
void sim_cluster_set_node_host (SimCluster *cluster, guint node, guint64 cpu_milli,
                                guint64 memory_bytes);

/**
 * sim_cluster_copy: (skip)
 * Returns: (transfer full): an independent copy of @cluster and its
 *   allocation state (for what-if placement, e.g. backfilling).
 *   Time complexity: O(nodes + GPUs).
 */
SimCluster *sim_cluster_copy (const SimCluster *cluster);

guint sim_cluster_get_n_pools (const SimCluster *cluster);
guint sim_cluster_get_n_nodes (const SimCluster *cluster);
guint sim_cluster_get_n_gpus (const SimCluster *cluster);
/**
 * sim_cluster_get_n_free_gpus:
 *
 * Returns: GPUs with nothing allocated.
 */
guint sim_cluster_get_n_free_gpus (const SimCluster *cluster);
/**
 * sim_cluster_get_allocated_milli:
 *
 * Returns: thousandths of GPUs allocated, summed.
 */
guint64 sim_cluster_get_allocated_milli (const SimCluster *cluster);
/**
 * sim_cluster_get_max_gpus_per_node:
 *
 * Returns: the largest node's GPU count.
 */
guint sim_cluster_get_max_gpus_per_node (const SimCluster *cluster);
/**
 * sim_cluster_get_pool:
 *
 * Returns: (transfer none): pool @i.
 */
const SimPool *sim_cluster_get_pool (const SimCluster *cluster, guint i);
/**
 * sim_cluster_get_node:
 *
 * Returns: (transfer none): node @i.
 */
const SimNode *sim_cluster_get_node (const SimCluster *cluster, guint i);
/**
 * sim_cluster_get_gpu:
 *
 * Returns: (transfer none): GPU @i.
 */
const SimGpu  *sim_cluster_get_gpu (const SimCluster *cluster, guint i);

/**
 * sim_cluster_allocate:
 * @cluster: a cluster
 * @gpus: (array length=n): GPU indices, each at most once
 * @n: their number
 * @milli: thousandths of each GPU to take (1000 for whole GPUs)
 * @error: return location for a #GError
 *
 * Takes @milli of each listed GPU, or nothing if any of them lacks room.
 *
 * Errors: SIM_ERROR_STATE if an index is out of range, repeated, or the
 * GPU has less than @milli free (a GPU would be allocated twice).
 *
 * Returns: %TRUE on success.
 */
gboolean sim_cluster_allocate (SimCluster *cluster, const guint32 *gpus, guint n, guint milli,
                               GError **error);

/**
 * sim_cluster_release:
 *
 * Gives back what sim_cluster_allocate() took.  Releasing more than is
 * allocated is a programming error.
 */
void sim_cluster_release (SimCluster *cluster, const guint32 *gpus, guint n, guint milli);

/**
 * sim_cluster_node_fits_host:
 * @cluster: a cluster
 * @node: a node index
 * @cpu_milli: CPU wanted there
 * @memory_bytes: memory wanted there
 *
 * Returns: whether @node has that much CPU and memory unreserved (always
 *   %TRUE for a resource the node does not model).
 */
gboolean sim_cluster_node_fits_host (const SimCluster *cluster, guint node, guint64 cpu_milli,
                                     guint64 memory_bytes);

/**
 * sim_cluster_reserve_host:
 *
 * Reserves CPU and memory on @node, or nothing if it lacks room.
 *
 * Errors: SIM_ERROR_STATE if it lacks room.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_cluster_reserve_host (SimCluster *cluster, guint node, guint64 cpu_milli,
                                   guint64 memory_bytes, GError **error);

/**
 * sim_cluster_release_host:
 *
 * Gives back what sim_cluster_reserve_host() took.
 */
void sim_cluster_release_host (SimCluster *cluster, guint node, guint64 cpu_milli,
                               guint64 memory_bytes);

/**
 * sim_cluster_node_allows:
 * @cluster: a cluster
 * @node: a node index
 * @gpu_models: (nullable): an interned '|'-separated list of GPU model
 *   names, as in #SimJobSpec, or %NULL for any
 *
 * Returns: whether @node's GPU model is in the list (case-insensitive).
 *   Answers are cached per list, so the cost is O(1) after the first call.
 */
gboolean sim_cluster_node_allows (const SimCluster *cluster, guint node, const char *gpu_models);

/**
 * sim_cluster_count_nodes_with_free:
 * @cluster: a cluster
 * @min_free: whole free GPUs wanted
 *
 * Time complexity: O(GPUs per node).
 *
 * Returns: the number of nodes with at least @min_free whole free GPUs.
 */
guint sim_cluster_count_nodes_with_free (const SimCluster *cluster, guint min_free);

/**
 * sim_cluster_find_node_with_free:
 * @cluster: a cluster
 * @from: the first node index to consider
 * @min_free: whole free GPUs wanted
 *
 * The lowest-numbered node, from @from on, with at least @min_free whole
 * free GPUs (nodes that are unavailable have none free).  The cluster keeps
 * an index of its nodes' free GPUs for this, so that placements need not
 * look at every node.
 *
 * Time complexity: O(log nodes).
 *
 * Returns: that node's index, or %G_MAXUINT if there is none.
 */
guint sim_cluster_find_node_with_free (const SimCluster *cluster, guint from, guint min_free);

/**
 * sim_cluster_find_node_with_free_exactly:
 * @cluster: a cluster
 * @from: the first node index to consider
 * @n_free: whole free GPUs, at least 1
 *
 * The lowest-numbered node, from @from on, with exactly @n_free whole free
 * GPUs.  The cluster keeps its nodes in buckets by free GPUs for this, so
 * that best-fit (the node with the fewest free that still fits) need not
 * look at every node.
 *
 * Time complexity: O(log nodes).
 *
 * Returns: that node's index, or %G_MAXUINT if there is none.
 */
guint sim_cluster_find_node_with_free_exactly (const SimCluster *cluster, guint from,
                                               guint n_free);

/**
 * sim_cluster_find_node_fitting:
 * @cluster: a cluster
 * @from: the first node index to consider
 * @min_free: whole free GPUs wanted (0: any)
 * @min_room: thousandths of one GPU wanted on a GPU not in MIG mode, free
 *   or shared (0: any)
 * @cpu_milli: host CPU wanted, in thousandths of a core
 * @memory_bytes: host memory wanted
 *
 * The lowest-numbered node, from @from on, with at least @min_free whole
 * free GPUs, a GPU with at least @min_room thousandths of room, and for
 * which sim_cluster_node_fits_host() is true for @cpu_milli and
 * @memory_bytes.  The cluster keeps the most free GPUs, room on one GPU,
 * free CPU and free memory of a node over ranges of nodes for this, so
 * that placements pass over the nodes that cannot take a job without
 * looking at them.
 *
 * Time complexity: O(log nodes) when the node with the most of one
 * quantity in a range has enough of the others; more when they part ways.
 *
 * Returns: that node's index, or %G_MAXUINT if there is none.
 */
guint sim_cluster_find_node_fitting (const SimCluster *cluster, guint from, guint min_free,
                                     guint min_room, guint64 cpu_milli, guint64 memory_bytes);

/**
 * sim_cluster_find_shared_gpu:
 * @cluster: a cluster
 * @pool: a pool index
 * @room: thousandths of room
 * @from: a GPU index
 *
 * Among the GPUs of @pool that have tenants and room left and are not in
 * MIG mode (shared by fractional jobs; or, with 1000 thousandths of room,
 * on an unavailable node where a whole-GPU job ended), ordered by their
 * room, then index, the first at or after (@room, @from): with @from 0,
 * the shared GPU with the least room of at least @room, ties to the lowest
 * number; with the room and index of a GPU plus one, the one after it.
 * Free GPUs (without tenant) are not among them.
 *
 * Time complexity: O(log GPUs) expected.
 *
 * Returns: that GPU's index, or %G_MAXUINT if there is none.
 */
guint sim_cluster_find_shared_gpu (const SimCluster *cluster, guint pool, guint room,
                                   guint from);

/**
 * sim_cluster_fragmented_gpus:
 * @cluster: a cluster
 * @gpus: the size of a request (the job at the head of the queue)
 *
 * The free whole GPUs that cannot host a request of @gpus GPUs: those on
 * nodes with fewer than min(@gpus, GPUs per node) free, the measure of the
 * FGD paper (Weng et al., ATC'23) for whole-GPU requests.  Time
 * complexity: O(GPUs per node squared), independent of the node count.
 *
 * Returns: the number of such GPUs.
 */
guint sim_cluster_fragmented_gpus (const SimCluster *cluster, guint gpus);

/**
 * sim_cluster_describe:
 * Returns: (transfer full): a one-line description, e.g.
 *   "16 x DGX-H100 (128 x H100-SXM)".
 */
char *sim_cluster_describe (const SimCluster *cluster);

/* ------------------------------------------------------------------------- */
/* MIG instances.
 *
 * A GPU is in MIG mode while it holds at least one instance.  Then its
 * @mig_used has the bits of the compute slices taken, @n_tenants counts
 * its instances, and @used_milli is the sum of its instances' shares,
 * each floor(1000 x compute slices / 7) (sim_mig_instance_milli(), the
 * share a MIG job is charged, so GPU time adds up exactly; seven 1g
 * instances count 994).  A GPU in MIG
 * mode is not free (it leaves @free_gpus), and sim_cluster_allocate()
 * refuses it, so whole-GPU and fractional jobs never share a GPU with MIG
 * instances; MIG instances go only on a GPU that is free or already in MIG
 * mode.  When its last instance is released the GPU is free again. */

/**
 * sim_cluster_mig_allocate:
 * @cluster: a cluster
 * @gpu: a GPU index
 * @profile: index of a profile of the GPU's model (see sim_mig_lookup_profile())
 * @start: the start slice, or -1 for the first allowed one that is free
 * @error: return location for a #GError
 *
 * Creates a MIG instance on @gpu.  Nothing changes on failure.
 *
 * Errors: SIM_ERROR_INVALID if the GPU's model has no MIG, no such
 * profile, or @start is not an allowed start; SIM_ERROR_STATE if the GPU
 * holds whole-GPU or fractional allocations, or the instance does not fit
 * in its layout.
 *
 * Returns: the start slice of the new instance, or -1 on failure.
 */
int sim_cluster_mig_allocate (SimCluster *cluster, guint gpu, guint profile, int start,
                              GError **error);

/**
 * sim_cluster_mig_release:
 * @cluster: a cluster
 * @gpu: a GPU index
 * @profile: the instance's profile
 * @start: its start slice
 *
 * Destroys a MIG instance made by sim_cluster_mig_allocate().
 *
 * Returns: %TRUE if there was such an instance.
 */
gboolean sim_cluster_mig_release (SimCluster *cluster, guint gpu, guint profile, guint start);

/**
 * sim_cluster_get_mig_layout:
 * @cluster: a cluster
 * @gpu: a GPU index
 *
 * Returns: (transfer none) (nullable): the GPU's MIG layout, or %NULL if it
 *   is not in MIG mode.  Valid until the next change of the cluster.
 */
const SimMigLayout *sim_cluster_get_mig_layout (const SimCluster *cluster, guint gpu);

/**
 * sim_cluster_mig_find:
 * @cluster: a cluster
 * @profile_name: a MIG profile name, e.g. "1g.10gb"
 * @gpu_models: (nullable): allowed GPU models, as in #SimJobSpec
 * @gpu: (out): the GPU chosen
 * @start: (out): the start slice there
 *
 * First fit for a MIG instance: the lowest-numbered GPU, among those
 * already in MIG mode and then those free, whose model has the profile and
 * whose layout has room for it.  GPUs already in MIG mode come first so
 * that free GPUs stay whole.  Time complexity: O(GPUs).
 *
 * Returns: %TRUE if a place was found.
 */
gboolean sim_cluster_mig_find (const SimCluster *cluster, const char *profile_name,
                               const char *gpu_models, guint *gpu, guint *start);

/**
 * sim_cluster_set_node_available:
 * @cluster: a cluster
 * @node: a node index
 * @available: whether it takes jobs
 *
 * Takes a node out of service (down after a failure, or drained) or puts
 * it back.  While unavailable, none of its GPUs counts as free: whatever is
 * free on them, and whatever its running jobs give back when they end, is
 * held by the node itself, so every placement sees its GPUs taken and no
 * placement needs to know of availability.  Held GPUs are not counted as
 * allocated.  Jobs already running on it are the caller's to let finish
 * or to evict.
 *
 * Returns: %TRUE if the node's availability changed.
 */
gboolean sim_cluster_set_node_available (SimCluster *cluster, guint node, gboolean available);

/**
 * sim_cluster_set_node_partition:
 * @cluster: a cluster
 * @node: a node index
 * @partition: its partition, 0 (the default) to 255
 *
 * Puts a node in a partition: nodes that one job may not span together
 * with nodes of another partition, such as a cloud pool beside the
 * owner's nodes (power/sim-elastic.h).  sim_policy_place() places a job
 * inside one partition, trying them in order.
 */
void sim_cluster_set_node_partition (SimCluster *cluster, guint node, guint8 partition);

/**
 * sim_cluster_get_node_partition:
 * @cluster: a cluster
 * @node: a node index
 *
 * Returns: the node's partition (0 unless set).
 */
guint8 sim_cluster_get_node_partition (const SimCluster *cluster, guint node);

/**
 * sim_cluster_get_n_partitions:
 * @cluster: a cluster
 *
 * Returns: one more than the largest partition of a node (1 when none was
 *   set).
 */
guint sim_cluster_get_n_partitions (const SimCluster *cluster);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimCluster, sim_cluster_free)

G_END_DECLS
