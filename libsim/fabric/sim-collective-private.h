/* sim-collective-private.h: collectives timed alone and NCCL's tuning
 * model, for sim-job-comm.c, gpusim and the tests (not installed).  See
 * sim-collective.h for the model. */
#pragma once

#include "fabric/sim-collective.h"

G_BEGIN_DECLS

/* One collective of a batch timed alone (internal).  @network and @id
 * (optional): the same collective registered there with the algorithm
 * @algo, whose routes are taken where they depend on its GPUs alone
 * (the same as routing it again, for less). */
typedef struct {
  SimCollectiveOp     op;
  SimCollectiveAlgo   algo;     /* not AUTO */
  guint64             bytes;
  const guint32      *gpus;
  guint               n_gpus;
  const SimCommModel *network;
  guint               id;
} SimCollectiveCall;

/* The time (seconds) of each of @calls when they, and nothing else, share
 * @model's network (which must have nothing registered): what registering
 * them in order with sim_comm_model_add(), then sim_comm_model_update()
 * and sim_comm_model_estimate() of each, would give, to the last bit;
 * @model is left as it was, but for its ids, which move on as they would
 * (internal: the idle copy of sim-job-comm.c).  Errors as
 * sim_comm_model_add(). */
gboolean sim__comm_model_time_alone (SimCommModel *model, const SimCollectiveCall *calls,
                                     guint n_calls, double *times, GError **error);

/* NCCL's tuning model (NVIDIA/nccl v2.30.7, src/graph/tuning.cc,
 * ncclTopoTuneModel() and ncclTopoGetAlgoTime(); src/enqueue.cc,
 * topoGetAlgoInfo()), by which AUTO chooses an algorithm and a protocol
 * from a communicator's shape alone, as NCCL does, without seeing the load
 * of other jobs.  The algorithms in NCCL's order, which breaks ties. */
typedef enum {
  SIM_NCCL_TREE,
  SIM_NCCL_RING,
  SIM_NCCL_COLLNET_DIRECT,
  SIM_NCCL_COLLNET_CHAIN,
  SIM_NCCL_NVLS,
  SIM_NCCL_NVLS_TREE,
  SIM_NCCL_PAT,
  SIM_NCCL_N_ALGOS
} SimNcclAlgo;

/* The GPU generation: NCCL's compute-capability index. */
typedef enum {
  SIM_NCCL_VOLTA,
  SIM_NCCL_AMPERE,
  SIM_NCCL_HOPPER,
  SIM_NCCL_BLACKWELL
} SimNcclArch;

/* What the model reads of a communicator (internal).  Bandwidths in GB/s
 * (10^9 bytes/s), as NCCL's graphs give them. */
typedef struct {
  SimCollectiveOp op;        /* all_reduce, all_gather, reduce_scatter or broadcast */
  guint       n_ranks;       /* GPUs, >= 2 */
  guint       n_nodes;       /* >= 1, <= n_ranks */
  SimNcclArch arch;
  gboolean    nvlink;        /* the GPUs of a node talk over NVLink (else PCIe) */
  gboolean    nvswitch;      /* the nodes have NVSwitch (CollNet Direct needs one) */
  gboolean    nvls;          /* and it reduces (NVLink SHARP): NVLS and NVLS tree */
  gboolean    collnet;       /* SHARP in the fabric and NCCL_COLLNET_ENABLE=1 */
  gboolean    amd_cpu;       /* the hosts' CPUs are AMD (LL bandwidth, post overhead) */
  gboolean    arm_cpu;       /* not x86 (no NVLS tree correction on Blackwell) */
  guint       channels;      /* NCCL's channels of rings and trees, >= 1 */
  guint       nvls_channels; /* of NVLS (src/transport/nvls.cc: 16 on Hopper) */
  double      bw_intra;      /* all channels together, inside a node */
  double      bw_inter;      /* all channels together, across nodes (n_nodes > 1) */
} SimNcclShape;

/* NCCL's table for one communicator and operation: latency (us) and
 * algorithm bandwidth (GB/s, 0: not available) by algorithm and protocol
 * (LL, LL128, Simple), what ncclTopoTuneModel() fills in comm->latencies
 * and comm->bandwidths. */
typedef struct {
  SimCollectiveOp op;
  guint       n_ranks, n_nodes, channels;
  SimNcclArch arch;
  gboolean    arm_cpu;
  double      latency[SIM_NCCL_N_ALGOS][3];
  double      bandwidth[SIM_NCCL_N_ALGOS][3];
} SimNcclTable;

/* Fills @table from @shape. */
void        sim__nccl_tune (const SimNcclShape *shape, SimNcclTable *table);
/* ncclTopoGetAlgoTime() for one operation of @bytes (NCCL's nBytes: the
 * whole buffer, as nccl-tests counts the size): microseconds, or -1 when
 * @algo with @protocol is not available. */
double      sim__nccl_time (const SimNcclTable *table, SimNcclAlgo algo,
                            SimCollectiveProtocol protocol, guint64 bytes);
/* topoGetAlgoInfo(): the algorithm and protocol of least time among those
 * whose bit (1 << algo) is in @mask, ties to the first in NCCL's order.
 * Returns FALSE when none is available. */
gboolean    sim__nccl_choose (const SimNcclTable *table, guint64 bytes, guint mask,
                              SimNcclAlgo *algo, SimCollectiveProtocol *protocol,
                              double *time_us);
const char *sim__nccl_algo_to_string (SimNcclAlgo algo);

/* What sim_comm_model_add() with AUTO would choose for @op and @bytes on
 * @gpus, and NCCL's algorithm behind it (internal, for the tests and
 * `gpusim collective`).  Nothing is registered or solved.  Errors as
 * sim_comm_model_add(). */
gboolean    sim__comm_model_choose (SimCommModel *model, SimCollectiveOp op, guint64 bytes,
                                    const guint32 *gpus, guint n_gpus, SimCollectiveAlgo *algo,
                                    SimNcclAlgo *nccl, SimCollectiveProtocol *protocol,
                                    GError **error);

/* The solves @model made so far (every call of the max-min solver that
 * did some work, and every batch timed alone without it), for the tests'
 * counts of solves per collective. */
guint64     sim__comm_model_get_solves (const SimCommModel *model);

/* Whether routing a plan merges the flows between the same two GPUs that
 * take one route with the same shares (a ring's channels) into one flow
 * that counts them (the default; every rate and time the same to the
 * bit).  FALSE: every flow stays, for the tests' comparisons. */
void        sim__comm_model_set_merge (SimCommModel *model, gboolean merge);
/* The flows merged into others so far. */
guint64     sim__comm_model_get_merged (const SimCommModel *model);
/* Where routes depend on their two GPUs alone (D-mod-K, spraying), plans
 * are built merged, from a merged copy of their shape's plan kept with it,
 * and put back apart when routing meets a route that depends on more (the
 * default; every rate and time the same to the bit).  FALSE: merged only
 * when routed, for the tests' comparisons.  get_unmerged: the plans built
 * merged and put back apart so far. */
void        sim__comm_model_set_premerge (SimCommModel *model, gboolean premerge);
guint64     sim__comm_model_get_unmerged (const SimCommModel *model);

/* Routes that depend on their two GPUs alone are kept across plans by
 * their GPUs (a direct-mapped table of the model's), on clusters of
 * 4,096 to 32,768 GPUs unless set (every route the same to the bit).
 * get_kept_hits: the routes found kept so far. */
void        sim__comm_model_set_keep_routes (SimCommModel *model, gboolean keep);
guint64     sim__comm_model_get_kept_hits (const SimCommModel *model);

/* Whether @model asks for memory ahead of its use (the solver's lines, the
 * lines each route reads): on by default where the network has 65,536
 * resources or more, whose arrays outgrow the caches; a hint, which
 * changes no rate or route (set, for the tests' comparisons). */
void        sim__comm_model_set_prefetch (SimCommModel *model, gboolean prefetch);

/* Pruning (demand-aware sharing, internal).  With @prune, a collective
 * registered afterwards whose routes are fixed by its GPUs leaves out of
 * the solver the resources of its flows that lie in a node marked
 * private (the links inside the node and those of its NICs to their
 * switches).  The caller marks a node private only while every GPU of it
 * belongs, whole, to one job whose every flow has a cap no higher than
 * its rate with the job alone on the network (demand-aware sharing's
 * caps): no other job's flow crosses such a resource (a fixed route
 * between two nodes crosses no third), and the job's own caps fit on it,
 * so it never holds a flow back and the rates are those of the solver
 * with it.  sim_comm_model_get_load() adds the left-out flows' rates.
 * is_pruned: whether collective @id was so registered; unprune:
 * registers it again on its whole routes (FALSE if it was not pruned). */
void        sim__comm_model_set_prune (SimCommModel *model, gboolean prune);
void        sim__comm_model_set_node_private (SimCommModel *model, guint32 node,
                                              gboolean is_private);
gboolean    sim__comm_model_is_pruned (SimCommModel *model, guint id);
gboolean    sim__comm_model_unprune (SimCommModel *model, guint id);
/* A collective inside one node marked private, on routes its GPUs alone
 * fix, with the model pruning, would be registered with every flow out
 * of the solver: nothing it does reaches another flow, the solver or a
 * link the load is sampled on, and its time is its time alone.  Such a
 * collective need not be registered at all: inside_private says whether
 * @gpus make one; take_id takes the id its registration would have taken
 * (the ids seed routing's hashes, so the ones after it stay as they
 * were); add_as registers a collective under an id taken so (0 and the
 * error if it cannot be).  inside_private says no on a network that fits
 * in the caches (under 65,536 resources: there a collective left out spares
 * no miss, and one timed alone is built again), unless set_skip_inside
 * says otherwise. */
gboolean    sim__comm_model_inside_private (SimCommModel *model, const guint32 *gpus,
                                            guint n);
void        sim__comm_model_set_skip_inside (SimCommModel *model, gboolean skip);
guint       sim__comm_model_take_id (SimCommModel *model);
guint       sim__comm_model_add_as (SimCommModel *model, guint id, SimCollectiveOp op,
                                    SimCollectiveAlgo algo, guint64 bytes,
                                    const guint32 *gpus, guint n, GError **error);
/* The owner of collective @id (a caller's pointer, NULL until set): kept
 * with the collective, where a table of the caller's would cost a look-up
 * of its own at every registration, removal and change.  Getting it for
 * an id not registered gives NULL. */
void        sim__comm_model_set_owner (SimCommModel *model, guint id, gpointer owner);
gpointer    sim__comm_model_get_owner (const SimCommModel *model, guint id);
/* Asks for what removing collective @id will read (a caller removing
 * several, one after another): with @deep FALSE, where its plan is
 * found; with @deep TRUE (a step later), the plan.  Only on fabrics where
 * that pays; changes no result. */
void        sim__comm_model_prefetch_remove (const SimCommModel *model, guint id,
                                             gboolean deep);
/* Asks for what marking @node private or not will read (a caller marking
 * several nodes, one after another), in three stages, @stage 0 first and
 * each a step after the one before: where its resources are listed, the
 * list, the resources' flags.  Only on fabrics where that pays; changes no
 * result. */
void        sim__comm_model_prefetch_node (const SimCommModel *model, guint32 node,
                                           guint stage);
/* sim_comm_model_get_load() of the @n resources @resources (of
 * resources 0 to @n - 1 if NULL), in @load, in one pass over the
 * solver's: the same values, for a sample of the whole network. */
void        sim__comm_model_get_loads (SimCommModel *model, const guint32 *resources, guint n,
                                       double *load);
/* A pruned flow left with no resource stays out of the solver: its rate
 * is its cap (sim_comm_model_set_demand()), as the solver would give it,
 * and sim_comm_model_update() lists its collective where the solver would
 * have (new, or its rate moved by more than rounding).  The flows (solver
 * entries: merged and grouped flows count once) now so kept. */
guint       sim__comm_model_get_kept_out (const SimCommModel *model);

/* Whether sim__comm_model_time_alone() may give a batch the rates of its
 * levels without the solver where no bottleneck cascades (the default;
 * FALSE: every batch goes to the solver, for the tests' and benchmarks'
 * comparisons).  get: the batches so given, and in *@tried those for
 * which it was tried. */
void        sim__comm_model_set_alone_direct (SimCommModel *model, gboolean direct);
guint64     sim__comm_model_get_alone_direct (const SimCommModel *model, guint64 *tried);
/* Whether sim__comm_model_time_alone() may time a batch in parts whose
 * flows meet on no link (alone_apart() in sim-collective.c; on by
 * default), and how many batches it has so timed. */
void        sim__comm_model_set_alone_apart (SimCommModel *model, gboolean apart);
guint64     sim__comm_model_get_alone_apart (const SimCommModel *model);
/* Of the batches sim__comm_model_get_alone_direct() counts, those none of
 * whose resources two of its routes cross, rated route by route without
 * numbering their resources (internal, for the tests). */
guint64     sim__comm_model_get_alone_unshared (const SimCommModel *model);
/* Whether alone_direct() numbers a batch's resources by a table as long
 * as the batch needs even on a network small enough for an array by
 * resource (internal, for the tests: the table is otherwise used only
 * above 262,144 resources).  The rates are the same to the bit. */
void        sim__comm_model_set_alone_table (SimCommModel *model, gboolean table);

G_END_DECLS
