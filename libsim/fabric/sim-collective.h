/* sim-collective.h: the time of collective operations on a topology.
 *
 * The model.  Each algorithm becomes a set of flows on real paths of the
 * topology (sim_topology_route()), grouped in phases that run one after
 * the other.  Every flow carries a known share of the message in each
 * phase: in a ring all-reduce over n GPUs split over K channels, each ring
 * edge carries 2(n-1)/n x S / K bytes.  The flows' rates come from the
 * max-min fair solver (core/sim-maxmin.h) over the topology's directed
 * resources, together with the flows of any other collective registered
 * in the same model, so that jobs that share links slow each other down.
 * The flows of one phase move in lockstep (a ring or a tree advances at the
 * pace of its slowest edge), so a phase lasts as long as its slowest flow
 * needs; the bandwidth term of the time is
 *
 *     S x sum over phases of max over flows of (share / rate).
 *
 * To it comes a latency term in NCCL's alpha-beta form (NVIDIA/nccl
 * src/graph/tuning.cc; the constants are in models/SOURCES.md B3): a base
 * latency plus a latency per step, 2(n-1) steps for a ring all-reduce,
 * n-1 for all-gather and reduce-scatter, 2 log2(nodes) network steps and
 * 2(GPUs per node - 1) inside the nodes for the tree, by protocol (LL,
 * LL128, Simple).  LL moves half the bandwidth (a flag per 8 bytes), LL128
 * 92 %, Simple all of it.
 *
 * Which algorithm and protocol.  As NCCL does: from its tuning model
 * (tuning.cc's ncclTopoTuneModel() and ncclTopoGetAlgoTime(), v2.30.7;
 * sim-collective-private.h), evaluated on the communicator's shape alone
 * (operation, GPUs, nodes, GPU generation, NVLink or PCIe and their
 * bandwidth, the NICs', NVLS), tuned once per shape and kept, never on the
 * load of other collectives, which NCCL does not see.  "auto" takes the
 * algorithm and protocol of least predicted time among ring, tree and,
 * inside one node, NVLS (not NVLS tree, PAT or CollNet: see
 * sim-collective.c); a named ring, tree or NVLS takes the protocol NCCL
 * predicts fastest for it, as with NCCL_ALGO; hierarchical and direct,
 * which NCCL has no model for, the protocol fastest here.  Then the flows
 * of the algorithm chosen share the network with everyone's.
 *
 * How the latency is split.  NCCL's base latency and its per-step
 * constants for NVLink and PCIe steps are kept as they are: they are the
 * GPU's and the proxy's software (kernel launch, flags, the proxy thread
 * posting work) together with the hardware of an NVLink or PCIe hop (the
 * catalogue's NVLink hop latency was derived from NCCL's LL step).  A
 * step inside a node pays more only where the node's slowest route between
 * two of the collective's GPUs is slower than NCCL's LL step for that
 * interconnect (0.6 us over NVLink, 1.0 us over PCIe): a slower NVLink or
 * NVSwitch model, or PCIe peers that talk through the CPU's root complex.
 * A step that crosses the network pays NCCL's network constant (the
 * software part, as tuning.cc's own model has it before a network's
 * latency is added) plus the one-way latency of the real route between
 * the two GPUs, from the topology: the PCIe hops from GPU to NIC, every
 * cable's per-hop latency and its propagation (5 ns per metre of the
 * [fabric] cable lengths), every switch's port-to-port latency, and the
 * transport's own per-message overhead (verbs about 0.7 us, kernel TCP
 * about 20 us; see the link models).  This is how tuning.cc adds a
 * network's latency ("latencyInter") to each network step, twice with
 * Simple (the receiver's flush); NCCL's plugins report none for
 * InfiniBand, which is why its model alone predicts 12-17 us where
 * nccl-tests measure 19-20 us for 8 B between two A100 nodes on HDR
 * (models/SOURCES.md B1, nccl-tests #150); with the route the model gives
 * 19.9 us.  A collective's steps move in lockstep, so each network step
 * pays the slowest route any of its flows between two nodes takes; the
 * routes are those its flows are registered on, so the latency is found
 * once when a collective is registered.  With one GPU per node, tuning.cc
 * takes the tree's network constant for the ring too (nothing hides the
 * network), and so does the model.
 *
 * Pipelined rings.  In a ring all-reduce, all-gather or reduce-scatter
 * every GPU sends from the first step, and NCCL moves each step's data in
 * slices, several in flight: a GPU starts step s as soon as it has sent
 * its data of step s-1 and the first slice of step s's data has come in.
 * Step s therefore takes the longer of its bytes' time and its latency,
 * not their sum, and the ring's time is
 *
 *     base + sum over steps of max (bytes of the step / bandwidth, latency of the step),
 *
 * the bytes split evenly over the 2(n-1) (or n-1) steps, as a ring's steps
 * are.  Small messages are latency-bound at every step (the same time as
 * the alpha-beta sum: 8 B as above); large ones bandwidth-bound, so a
 * 1 GiB ring keeps its bandwidth as it grows (379 GB/s busbw on two DGX
 * H100 and 348 on 64, on a 1:1 fat-tree; models/SOURCES.md B1 gives
 * 370-390 GB/s over 8 x NDR), where adding 2(n-1) step latencies to the
 * bytes' time would lose a third of it at 64 nodes, which real rings do
 * not.  A broadcast chain, the tree and the hierarchical and NVLS
 * schedules keep the sum: their data must first travel the chain's or the
 * tree's depth, whose latency nothing hides.
 *
 * Algorithms:
 * - ring: K rings (channels), K = 1 inside one node and the NIC count of a
 *   node across nodes; ring c visits the GPUs node by node, each node's
 *   GPUs rotated by c and run through in alternate directions node by
 *   node, so that every edge between two nodes joins GPUs of one local
 *   index and so (GPU i on NIC i) NIC x to NIC x, one rail, as NCCL's rings
 *   do; the channels' edges leave each node by different NICs.  All-reduce,
 *   all-gather, reduce-scatter, broadcast (a chain).
 * - tree: NCCL's double binary tree between nodes, a chain inside each
 *   node, each tree carrying half the data, up (reduce) and down
 *   (broadcast) pipelined together; all-reduce only.  NCCL's tree pattern
 *   factor 0.85 applies to its bandwidth.
 * - hierarchical: reduce-scatter inside each node (ring), all-reduce of each
 *   GPU's shard across nodes between GPUs of the same local index (one
 *   ring per rail), all-gather inside each node; all-reduce only, with the
 *   same GPU count on every node.
 * - nvls: in-switch reduction on an NVSwitch whose model has
 *   in_network_reduction (NVLink SHARP).  Each GPU sends S (n+1)/n bytes up
 *   and receives as much (the switch reads every shard for the reduction,
 *   then multicasts the reduced shards); NCCL's NVLS efficiency (0.85 on
 *   Hopper, 0.74 on Blackwell) scales the bandwidth.  Across nodes, NVLS
 *   does the intra-node phases of the hierarchical algorithm.
 * - direct: all-to-all (every GPU sends S/n to every other) and send/recv
 *   (GPU i sends S to GPU i+1, as nccl-tests' sendrecv does).
 *
 * Bus bandwidth follows nccl-tests (doc/PERFORMANCE.md): algbw = S / t and
 * busbw = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather,
 * reduce-scatter and all-to-all, x 1 for broadcast and send/recv.  The
 * all-reduce factor is used for NVLS too, as nccl-tests prints it.
 *
 * Not modelled in the flows and their times: SHARP in InfiniBand switches
 * (CollNet), NVLS tree and PAT, the LL protocol's bandwidth cap, NCCL's
 * per-channel bandwidth limits, rings over NVLink meshes beyond the one
 * ordering (a mesh ring uses one link per GPU), NVLS's own latency beyond
 * NCCL's NVLS constants, NCCL's size-dependent plateau factor (the Simple
 * multiplier applies at every size) and its per-step network post
 * overhead on the intra-node steps of inter-node rings.  NCCL's tuning
 * model, which chooses the algorithm and protocol, has all of these.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "cluster/sim-cluster.h"
#include "fabric/sim-topology.h"

G_BEGIN_DECLS

/**
 * SimCollectiveOp:
 * @SIM_COLLECTIVE_ALL_REDUCE: every GPU ends with the sum of all buffers
 * @SIM_COLLECTIVE_ALL_GATHER: every GPU ends with every GPU's shard
 * @SIM_COLLECTIVE_REDUCE_SCATTER: every GPU ends with one shard of the sum
 * @SIM_COLLECTIVE_ALL_TO_ALL: every GPU sends a distinct shard to every other
 * @SIM_COLLECTIVE_BROADCAST: the first GPU's buffer goes to all
 * @SIM_COLLECTIVE_SEND_RECV: GPU i sends its buffer to GPU i+1 (mod n)
 */
typedef enum {
  SIM_COLLECTIVE_ALL_REDUCE,
  SIM_COLLECTIVE_ALL_GATHER,
  SIM_COLLECTIVE_REDUCE_SCATTER,
  SIM_COLLECTIVE_ALL_TO_ALL,
  SIM_COLLECTIVE_BROADCAST,
  SIM_COLLECTIVE_SEND_RECV,
} SimCollectiveOp;

/**
 * SimCollectiveAlgo:
 * @SIM_COLLECTIVE_ALGO_AUTO: the algorithm NCCL's tuning model chooses
 * @SIM_COLLECTIVE_ALGO_RING: rings (channels) through every GPU
 * @SIM_COLLECTIVE_ALGO_TREE: double binary tree across nodes
 * @SIM_COLLECTIVE_ALGO_HIERARCHICAL: inside nodes, across, inside again
 * @SIM_COLLECTIVE_ALGO_NVLS: in-switch reduction on NVSwitch
 * @SIM_COLLECTIVE_ALGO_DIRECT: point-to-point (all-to-all, send/recv)
 */
typedef enum {
  SIM_COLLECTIVE_ALGO_AUTO,
  SIM_COLLECTIVE_ALGO_RING,
  SIM_COLLECTIVE_ALGO_TREE,
  SIM_COLLECTIVE_ALGO_HIERARCHICAL,
  SIM_COLLECTIVE_ALGO_NVLS,
  SIM_COLLECTIVE_ALGO_DIRECT,
} SimCollectiveAlgo;

/**
 * SimCollectiveProtocol:
 * @SIM_COLLECTIVE_PROTO_LL: low latency, half the bandwidth
 * @SIM_COLLECTIVE_PROTO_LL128: 128-byte lines, 92 % of the bandwidth
 * @SIM_COLLECTIVE_PROTO_SIMPLE: full bandwidth, highest latency
 */
typedef enum {
  SIM_COLLECTIVE_PROTO_LL,
  SIM_COLLECTIVE_PROTO_LL128,
  SIM_COLLECTIVE_PROTO_SIMPLE,
} SimCollectiveProtocol;

const char *sim_collective_op_to_string (SimCollectiveOp op);
const char *sim_collective_algo_to_string (SimCollectiveAlgo algo);
const char *sim_collective_protocol_to_string (SimCollectiveProtocol protocol);

/**
 * sim_collective_op_from_string:
 * @text: "all_reduce", "all_gather", "reduce_scatter", "all_to_all" (or
 *   "alltoall"), "broadcast", "send_recv" (or "sendrecv"); '-' may stand
 *   for '_'
 * @op: (out): the operation
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_INVALID, naming the known operations.
 */
gboolean sim_collective_op_from_string (const char *text, SimCollectiveOp *op, GError **error);

/**
 * sim_collective_algo_from_string:
 * @text: "auto", "ring", "tree", "hierarchical", "nvls" or "direct"
 *
 * Errors: SIM_ERROR_INVALID, naming the known algorithms.
 */
gboolean sim_collective_algo_from_string (const char *text, SimCollectiveAlgo *algo,
                                          GError **error);

/**
 * sim_collective_busbw_factor:
 * @op: an operation
 * @n: GPUs taking part
 *
 * Returns: busbw / algbw as nccl-tests defines it: 2(n-1)/n for
 *   all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1
 *   for broadcast and send/recv.
 */
double sim_collective_busbw_factor (SimCollectiveOp op, guint n);

/**
 * SimCollectiveTiming:
 * @op: the operation
 * @algo: the algorithm used (never AUTO)
 * @protocol: the protocol used
 * @bytes: the message size S (bytes per GPU, as nccl-tests counts it)
 * @time: seconds
 * @latency: seconds of @time that do not depend on the size (for a
 *   pipelined ring, the sum of its step latencies: what a small message
 *   takes; large ones hide them, see above)
 * @bandwidth: what large messages approach, bytes/s (S over the bytes'
 *   time)
 * @algbw: S / @time, bytes/s
 * @busbw: @algbw times sim_collective_busbw_factor(), bytes/s
 */
typedef struct {
  SimCollectiveOp       op;
  SimCollectiveAlgo     algo;
  SimCollectiveProtocol protocol;
  guint64 bytes;
  double  time;
  double  latency;
  double  bandwidth;
  double  algbw;
  double  busbw;
} SimCollectiveTiming;

/**
 * SimCollectiveRow:
 *
 * One row of an nccl-tests-like table.  @count is in elements of type
 * float (4 bytes): of the whole buffer for all-reduce, broadcast and
 * send/recv, per GPU for all-gather, reduce-scatter and all-to-all.
 */
typedef struct {
  guint64 bytes;
  guint64 count;
  double  time_us;
  double  algbw_gbs;          /* GB/s, 10^9 bytes/s */
  double  busbw_gbs;
  SimCollectiveAlgo     algo;
  SimCollectiveProtocol protocol;
} SimCollectiveRow;

/**
 * SimCommModel:
 *
 * The communication of a cluster: a max-min solver over the directed
 * resources of a topology, and the collectives registered in it.
 */
typedef struct _SimCommModel SimCommModel;

/**
 * sim_comm_model_new: (skip)
 * @topology: (transfer none): a topology, which must outlive the model
 * @cluster: (transfer none): the cluster @topology was built from
 *
 * Time complexity: O(links).
 *
 * Returns: (transfer full): a model with no collective registered.
 */
SimCommModel *sim_comm_model_new (SimTopology *topology, const SimCluster *cluster);
/**
 * sim_comm_model_free: (skip)
 */
void          sim_comm_model_free (SimCommModel *model);

/**
 * sim_comm_model_add:
 * @model: a model
 * @op: the operation
 * @algo: its algorithm; AUTO takes NCCL's choice for @bytes on the
 *   collective's shape (see above), whatever the load
 * @bytes: the typical message size (only used to resolve AUTO)
 * @gpus: (array length=n_gpus): the GPUs (cluster indices), each once
 * @n_gpus: at least 2
 * @error: return location for a #GError
 *
 * Registers a collective that runs continuously (a training job's
 * gradient exchange, say): its flows stay in the solver, and share links
 * with every other registered collective, until sim_comm_model_remove().
 *
 * Errors: SIM_ERROR_INVALID for a bad GPU list or an algorithm the
 * operation or the hardware does not allow (NVLS without an NVSwitch that
 * reduces, hierarchical with unequal GPUs per node); SIM_ERROR_UNSATISFIABLE
 * if two GPUs are not connected.
 *
 * Time complexity: O(flows x path length); nothing is solved (the next
 * sim_comm_model_update() or estimate does).
 *
 * Returns: an id (> 0), or 0 on error.
 */
guint sim_comm_model_add (SimCommModel *model, SimCollectiveOp op, SimCollectiveAlgo algo,
                          guint64 bytes, const guint32 *gpus, guint n_gpus, GError **error);

/**
 * sim_comm_model_remove:
 * Returns: %FALSE if @id names no registered collective.
 */
gboolean sim_comm_model_remove (SimCommModel *model, guint id);

/**
 * sim_comm_model_update: (skip)
 * @model: a model
 *
 * Re-solves the part of the network that changed since the last solve
 * and says which registered collectives it touched.
 *
 * Returns: (transfer full) (element-type guint): the ids of the registered
 *   collectives any of whose flows changed rate, each once; a collective
 *   registered since the last solve is among them.
 */
GArray *sim_comm_model_update (SimCommModel *model);

/**
 * sim_comm_model_estimate:
 * @model: a model
 * @id: a registered collective
 * @bytes: the message size
 * @timing: (out caller-allocates): filled
 *
 * The time of one operation of @bytes under the current shares of every
 * registered collective.  Re-solves the touched part of the network first.
 *
 * Returns: %FALSE if @id names no registered collective.
 */
gboolean sim_comm_model_estimate (SimCommModel *model, guint id, guint64 bytes,
                                  SimCollectiveTiming *timing);

/**
 * sim_comm_model_get_algo:
 * @model: a model
 * @id: a registered collective
 *
 * Returns: the algorithm @id runs (never AUTO), or AUTO if @id names no
 *   registered collective.
 */
SimCollectiveAlgo sim_comm_model_get_algo (SimCommModel *model, guint id);

/**
 * sim_comm_model_set_demand:
 * @model: a model
 * @id: a registered collective
 * @message_rate: bytes of message per second the collective needs on
 *   average (its message size over the time between two of its
 *   operations); 0 or INFINITY for no limit (a collective that runs all
 *   the time)
 *
 * Caps each of the collective's flows at what that rate asks of it (the
 * flow's bytes per byte of message, summed over the phases, times
 * @message_rate): on a link, the collective then takes no more than its
 * average need and leaves the rest to the others (demand-aware sharing,
 * sim-job-comm.h).  Nothing is solved now.
 *
 * Returns: %FALSE if @id names no registered collective.
 */
gboolean sim_comm_model_set_demand (SimCommModel *model, guint id, double message_rate);

/**
 * sim_comm_model_get_shortfall:
 * @model: a model
 * @id: a registered collective
 *
 * Re-solves the touched part of the network first.
 *
 * Returns: the largest ratio, over the collective's capped flows, of
 *   what a flow asks (its cap) to what it gets (its rate): 1 when every
 *   flow gets its demand (or none is capped), more when the network cannot
 *   carry the collective's average demand (+infinity if a flow gets
 *   nothing); 1 if @id names no registered collective.
 */
double sim_comm_model_get_shortfall (SimCommModel *model, guint id);

/**
 * sim_comm_model_get_load: (skip)
 * @model: a model
 * @resource: a directed resource of the topology
 *   (< sim_topology_get_n_resources())
 *
 * The load of @resource as of the last solve: the rates of the flows
 * crossing it over its capacity, in [0, 1] (0 for a resource of no
 * capacity).  Nothing is solved now, so the collectives a later
 * sim_comm_model_update() reports are not disturbed.  Time complexity:
 * O(flows crossing @resource).
 *
 * Returns: the load.
 */
double sim_comm_model_get_load (SimCommModel *model, guint32 resource);

/**
 * sim_collective_time:
 * @model: a model (its registered collectives load the network)
 * @op: the operation
 * @algo: an algorithm, or AUTO for NCCL's choice
 * @bytes: the message size S
 * @gpus: (array length=n_gpus): the GPUs
 * @n_gpus: at least 2
 * @timing: (out caller-allocates): filled
 * @error: return location for a #GError
 *
 * The time of one collective, given what is registered in @model; the
 * collective itself is not left registered.  Errors as
 * sim_comm_model_add().
 *
 * Returns: %TRUE on success.
 */
gboolean sim_collective_time (SimCommModel *model, SimCollectiveOp op, SimCollectiveAlgo algo,
                              guint64 bytes, const guint32 *gpus, guint n_gpus,
                              SimCollectiveTiming *timing, GError **error);

/**
 * sim_collective_sweep:
 * @model: a model
 * @op: the operation
 * @algo: an algorithm, or AUTO for NCCL's choice at each size
 * @gpus: (array length=n_gpus): the GPUs
 * @n_gpus: at least 2
 * @min_bytes: the first size (>= 1)
 * @max_bytes: the last size (>= @min_bytes); sizes double from @min_bytes
 * @error: return location for a #GError
 *
 * The rows nccl-tests would print for a sweep from @min_bytes to
 * @max_bytes, doubling.  Sizes are rounded down to whole floats (times
 * the GPU count for all-gather, reduce-scatter and all-to-all, as
 * nccl-tests does); a size that rounds to 0 is skipped.  Errors as
 * sim_comm_model_add(), and SIM_ERROR_INVALID for bad sizes.
 *
 * Returns: (transfer full) (element-type SimCollectiveRow) (nullable): the
 *   rows, or %NULL on error.
 */
GArray *sim_collective_sweep (SimCommModel *model, SimCollectiveOp op, SimCollectiveAlgo algo,
                              const guint32 *gpus, guint n_gpus, guint64 min_bytes,
                              guint64 max_bytes, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimCommModel, sim_comm_model_free)

G_END_DECLS
