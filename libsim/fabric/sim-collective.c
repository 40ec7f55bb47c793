/* sim-collective.c: collectives as phases of flows on the topology, with
 * NCCL's latency constants.  The model is described in sim-collective.h. */
#include "config.h"

#include "sim-collective.h"
#include "core/sim-error.h"
#include "core/sim-maxmin.h"
#include "core/sim-maxmin-private.h"
#include "fabric/sim-topology-private.h"
#include "fabric/sim-collective-private.h"

#include <math.h>
#include <string.h>

#define MAX_PHASES 3
#define N_PROTOS   3

/* NCCL's cost model (NVIDIA/nccl src/graph/tuning.cc at 5067397, v2.30.7;
 * models/SOURCES.md B3), microseconds, by protocol (LL, LL128, Simple). */
static const double ring_base[N_PROTOS]  = { 6.6, 14.0, 8.4 };
static const double ring_nvl[N_PROTOS]   = { 0.6, 1.9, 3.4 };
static const double ring_pcie[N_PROTOS]  = { 1.0, 2.5, 5.7 };
static const double ring_net[N_PROTOS]   = { 2.7, 4.0, 14.0 };
static const double tree_base[N_PROTOS]  = { 6.8, 14.0, 8.4 };
static const double tree_nvl[N_PROTOS]   = { 0.6, 1.25, 4.0 };
static const double tree_pcie[N_PROTOS]  = { 1.0, 1.9, 4.0 };
static const double tree_net[N_PROTOS]   = { 5.0, 8.5, 14.0 };
static const double nvls_nvl = 25.0, nvls_net = 18.0;
/* Multi-node all-reduce with Simple: latency x 1.4 (compute capability >= 8.0). */
#define RING_SIMPLE_MULTINODE 1.4
#define SIMPLE_PROTO SIM_COLLECTIVE_PROTO_SIMPLE
/* Bandwidth of each protocol relative to Simple: LL moves 8 bytes of data
 * per 16 (busBw x 0.5), LL128 120 of 128 (busBw x 0.92); on a tree, LL is
 * busBw / 3.8 (tuning.cc). */
static const double proto_bw[N_PROTOS] = { 0.5, 0.92, 1.0 };
static const double tree_proto_bw[N_PROTOS] = { 1.0 / 3.8, 0.92, 1.0 };
/* The tree pattern multiplies busBw by 0.85 (models/SOURCES.md B3). */
#define TREE_EFFICIENCY 0.85
/* NVLS efficiency, nvls.cc: Hopper 0.85, Blackwell 0.74. */
#define NVLS_EFFICIENCY_HOPPER    0.85
#define NVLS_EFFICIENCY_BLACKWELL 0.74

/* A flow of a plan, in half a cache line: a plan's flows are written when
 * a job starts and read again when it is timed, capped and removed, by
 * then from memory at a hundred thousand GPUs.  Its shares, alike for
 * most flows of a plan, are the plan's (PlanFixed), by number. */
typedef struct {
  guint32     src, dst;
  guint32     first;               /* once routed for the solver (plan_group()): the
                                    * first flow of the plan with its resources and
                                    * shares, whose solver entry stands for both */
  guint32     path_start;          /* its resources in Plan.paths ... */
  SimMaxminId flow;
  guint16     path_len;            /* ... and how many */
  guint16     count;               /* the flows it stands for: 1, or once routed, the
                                    * channels between its two GPUs with its route and
                                    * shares (plan_route()) */
  guint16     channel;
  guint16     share;               /* its shares: Plan.fx->shares[share] */
} PlanFlow;

G_STATIC_ASSERT (sizeof (PlanFlow) == 32);

/* What a plan's builder decides from its shape alone, read by its copies
 * (Plan.own_fixed tells which plan frees it): NCCL's latency terms, and
 * the distinct shares of its flows (bytes per byte of message, in each
 * phase), in the order its flows first have them.  A copy's own struct
 * then holds only what its routes and registration set, in half the
 * lines: a plan is copied at every job start into a struct that has come
 * back cold. */
typedef struct {
  double   sw_latency[N_PROTOS];   /* seconds: NCCL's software constants; < 0: protocol
                                    * not used */
  double   net_terms[N_PROTOS];    /* how many times the route's latency is paid */
  double   intra_terms[N_PROTOS];  /* steps inside a node */
  double   intra_ref;      /* seconds: the route latency NCCL's intra-node step
                            * constants already hold (their LL step) */
  double   bw_factor[N_PROTOS];
  /* A ring in which every GPU sends from the first step (all-reduce,
   * all-gather, reduce-scatter) is pipelined: a step's latency hides
   * behind the bytes of the step before, so each step takes the longer of
   * the two (sim-collective.h).  Per protocol: what is paid once (NCCL's
   * base), NCCL's constant per step inside a node and across, and how
   * often a step pays the route's latency (the Simple multi-node factor
   * included); the steps of each kind. */
  gboolean pipelined;
  double   fixed[N_PROTOS];
  double   sw_intra[N_PROTOS], sw_inter[N_PROTOS];
  double   route_x_intra[N_PROTOS], route_x_inter[N_PROTOS];
  double   n_intra, n_inter;
  guint    n_shares;
  double   shares[][MAX_PHASES];
} PlanFixed;

/* A flow's shares. */
#define FLOW_SHARE(p, f) ((p)->fx->shares[(f)->share])

/* The flows of the plan being built, by (src, dst, channel): open
 * addressing with linear probing over a power-of-two table.  A plan is
 * built at every job start, with up to thousands of flows, so the table is
 * the model's and kept between plans: a slot is in use only if its stamp is
 * the current epoch, and moving to the next epoch empties it for the next
 * plan at no cost. */
typedef struct {
  guint64 key;
  guint32 stamp;
  guint32 index;                   /* in Plan.flows */
} FlowSlot;

typedef struct {
  FlowSlot *slots;
  guint32   mask;                  /* slots - 1 */
  guint     shift;                 /* 64 - log2 (slots) */
  guint32   epoch;
  GArray   *shares;                /* double[MAX_PHASES] per flow of the plan being
                                    * built, summed by plan_add() */
} FlowIndex;

typedef struct _Plan {
  /* What removing a registered plan reads, first (in its first line or
   * two): a job's plans are cold by the time it ends. */
  GArray           *flows;         /* PlanFlow */
  PlanFixed        *fx;            /* its shape's terms and its flows' shares (written
                                    * only while it is built) */
  /* Its solver entries, in the order registered: removing them reads
   * these eight bytes apiece, where reading them off the flows cost a
   * miss a flow at a hundred thousand GPUs (a plan is cold by the time
   * its job ends).  The plan's own: a copy starts without. */
  SimMaxminId      *entries;
  GArray           *paths;         /* guint32 resources of every flow, kept under
                                    * adaptive routing (to unload them) and for
                                    * sim__comm_model_time_alone() */
  guint32           n_entries, entries_alloc;
  gboolean          registered;
  guint             id;            /* once registered */
  gboolean          pruned;        /* registered without its private resources
                                    * (sim__comm_model_set_prune()) */
  /* Pruned, the flows left with no resource (every one of theirs private)
   * stay out of the solver (flow SIM_MAXMIN_NO_ID): max-min gives a flow
   * on no resource its cap, and the cap is the demand's (demand_cap()),
   * so their rates are known without it (flow_rate()). */
  guint             n_zero;        /* such flows (first of their groups) */
  gboolean          zero_new;      /* not solved since registered: their rates 0 */
  gboolean          zero_listed;   /* in SimCommModel.zero_plans */
  SimCollectiveOp   op;
  SimCollectiveAlgo algo;
  guint             n_gpus;
  FlowIndex        *index;         /* the flows while the plan is built, then NULL */
  double            latency[N_PROTOS];   /* seconds; < 0: protocol not used.  Set when
                                          * the plan is registered: fx->sw_latency plus
                                          * fx->net_terms times net_latency */
  double            net_latency;   /* seconds: the slowest route between two nodes */
  /* A pipelined ring's steps' full latency (PlanFixed), set when the plan
   * is registered. */
  double            step_intra[N_PROTOS], step_inter[N_PROTOS];
  gboolean          routed;        /* paths and latencies hold its routes */
  gboolean          routes_fixed;  /* and each depends on its GPUs alone, not on
                                    * the seed or the load */
  double            demand;        /* sim_comm_model_set_demand()'s message rate;
                                    * +infinity: uncapped */
  double            zero_demand;   /* the demand at the last model_solve() */
  guint             touched_epoch; /* SimCommModel.touch_epoch while in its touched list */
  gpointer          shape;         /* the ShapeEntry it was copied from, or NULL */
  /* Built merged (plan_build()): its flows those of the shape's merged
   * plan, as routing would merge them, until routing finds a route that
   * depends on more than its two GPUs and puts them back apart
   * (plan_unmerge()) from the shape's plan and the GPUs. */
  const struct _Plan *unmerged;    /* the shape's plan, its flows apart, or NULL */
  guint32          *gpus;          /* while unmerged is set: GPU i of the shape's plan */
  guint             n_premerged;   /* flows merged when built */
  /* AUTO: NCCL's table of the communicator and the algorithm it chose,
   * whose protocol for each size is NCCL's (timing_fill()); NULL for an
   * algorithm the caller named. */
  const SimNcclTable *nccl;
  SimNcclAlgo       nccl_algo;
  guint32           flows_room;    /* flows it has room for, at least (0: not known;
                                    * copy_renamed()) */
  gpointer          owner;         /* sim__comm_model_set_owner() */
  gboolean          own_fixed;     /* fx is this plan's to free: it was built, or
                                    * copied from a plan built and not kept; a copy of
                                    * a kept shape's plan reads its shape's */
} Plan;

/* sim__comm_model_choose()'s last choice, and what it was for: @model
 * NULL after a choice across nodes. */
typedef struct {
  const SimNodeModel   *model;
  guint                 n;
  SimCollectiveOp       op;
  guint64               bytes;
  SimCollectiveAlgo     algo;
  SimNcclAlgo           nccl;
  SimCollectiveProtocol protocol;
} InsideChoice;

/* The GPUs of a collective grouped by node, nodes in the order of their
 * first GPU in the caller's list. */
typedef struct {
  guint32 *gpus;     /* the node's GPUs, in the caller's order */
  guint    n;
  const SimNodeModel *model;
} NodeGroup;

typedef struct {
  NodeGroup *nodes;
  guint      n_nodes;
  guint      n_gpus;
  const guint32 *gpus;   /* all n_gpus, node after node: nodes[k].gpus point into it */
  guint      max_ppn, min_ppn;
  guint      channels;   /* rings across nodes: a node's NIC count */
  gboolean   pcie;       /* GPUs inside a node talk over PCIe */
  gboolean   nvls;       /* every node has an NVSwitch that reduces */
  double     nvls_efficiency;
} Layout;

/* What layout_init() works in, the model's and kept between collectives:
 * sized to the cluster's GPUs and nodes, so that finding a GPU listed twice
 * and a node's slot is an array look-up.  A GPU or node is marked for the
 * current layout only if its stamp is the current one. */
typedef struct {
  guint      n_gpus, n_nodes;    /* the cluster's, when sized */
  guint32    stamp;
  guint32   *gpu_stamp;          /* per GPU of the cluster */
  guint32   *node_stamp;         /* per node of the cluster */
  guint     *node_slot;          /* per node: its index in Layout.nodes */
  guint     *gpu_slot;           /* per GPU of the layout: its node's index */
  NodeGroup *nodes;              /* Layout.nodes */
  guint32   *storage;            /* Layout.gpus */
  NodeGroup *shape_nodes;        /* plan_build()'s layout of the same shape */
  guint32   *iota;               /* 0, 1, 2 ...: that layout's GPUs */
} LayoutScratch;

/* Plans built, by the shape of their layout (plan_build()).  The key's
 * words: the operation, the algorithm, what the builders read of the
 * nodes' hardware, the node count, and each node's GPU count in order. */
typedef struct {
  guint    hash;
  guint    len;
  guint32 *words;
} ShapeKey;

typedef struct {
  ShapeKey key;                  /* first: the table looks entries up by key */
  Plan    *plan;                 /* its GPUs numbered 0 to n - 1, node after node */
  Plan    *merged;               /* the same, its flows merged as plan_route() would
                                  * merge them on routes fixed by their GPUs (made
                                  * when first asked), or NULL */
} ShapeEntry;

/* A slot of plan_route()'s table of the routes that depend only on their
 * two GPUs: the first flow between them, and its route's latency. */
typedef struct {
  guint64 key;
  SimTime latency;
  guint32 stamp;
  guint32 index;
} RouteSlot;

/* A route kept by its two GPUs across plans (plan_route()): one cache
 * line, direct-mapped, 16 slots a GPU up to 65,536 of them (4 MB).  Only
 * routes that depend on their GPUs alone, of at most KEPT_ROUTE_LEN
 * resources, are kept, and only on clusters of KEPT_ROUTE_MIN_GPUS to
 * KEPT_ROUTE_MAX_GPUS GPUs.  Measured on bench-scale's week: at 10,240
 * GPUs 56 % of the routes are found kept and the week runs 6 % faster;
 * at 1,024 GPUs, 87 % are, but routing there hits the caches anyway and a
 * look-up's miss costs more than it saves (5 % slower); at 100,000 GPUs
 * jobs seldom come back to the same pairs (11 %). */
/* Plans removed kept with their arrays for the next built (each job start
 * builds a few and each end removes them; a job of 128 GPUs has two dozen,
 * and at a hundred thousand GPUs sixty-four spares freed and allocated
 * again some 3 % of the run's time in the allocator). */
#define SPARE_PLANS 1024

#define KEPT_ROUTE_LEN      11
#define KEPT_ROUTE_MIN_GPUS 4096
#define KEPT_ROUTE_MAX_GPUS 32768

typedef struct {
  guint64 key;                     /* (src << 32 | dst) + 1; 0: empty */
  SimTime latency;
  guint32 len;
  guint32 res[KEPT_ROUTE_LEN];
} KeptRoute;

G_STATIC_ASSERT (sizeof (KeptRoute) == 64);

/* Registering and removing a plan's solver entries asks for the lines the
 * next few will read (sim__maxmin_prefetch_at(), _remove()) only on
 * fabrics of at least this many resources.  Below, the solver's arrays
 * stay in the caches and the asking is only work: at 1,024 GPUs (7,168
 * resources) it was 2.5 % of a run's instructions.  At 10,240 GPUs
 * (81,920) and beyond the lines come from memory and the prefetches
 * pay. */
#define PREFETCH_MIN_RES    65536

/* The registered plans by id, in front of SimCommModel.plans: a slot per
 * id modulo PLAN_SLOTS, holding the plan of the last id added there while
 * it lives.  The ids are handed out in order, so the plans that live
 * together seldom share a slot, and a look-up is one read where the hash
 * table's is some seventy instructions (a collective's plan is looked up
 * about ten times).  The table stays: it is what the load sample walks,
 * in its order. */
#define PLAN_SLOTS 16384

typedef struct {
  guint        id;   /* 0: empty */
  struct _Plan *plan;
} PlanSlot;

/* At most this many flows are kept in plans of the cache (32 bytes each);
 * once full, plans of new shapes are built and not kept. */
#define SHAPE_CACHE_FLOWS (1u << 18)

/* auto_choose()'s last choices, by table, size and mask (direct-mapped:
 * a job's collectives repeat a few sizes on a few shapes). */
typedef struct {
  const void           *table;   /* SimNcclTable, or NULL: empty */
  guint64               bytes;
  guint                 mask;
  SimNcclAlgo           algo;
  SimCollectiveProtocol protocol;
} ChoiceSlot;

#define CHOICE_SLOTS 64

/* A route of a batch timed alone without the solver (alone_direct()). */
typedef struct {
  const guint32 *res;     /* its resources */
  guint          len;
  guint          flows;   /* the batch's flows on it */
  double         x;       /* their rate */
  guint32        local;   /* where its resources' local numbers start in
                           * SimCommModel.direct_hops */
} DirectPath;

/* A resource a batch timed alone meets, by its local number
 * (alone_direct()): its capacity, its flows' weight and then its level,
 * and the lowest rate on it. */
typedef struct {
  double lvl, low, capacity;
} DirectRes;


/* SimCommModel.res_flags: the resource is private (sim__comm_model_set_prune());
 * alone_unshared() has met it in the batch it is timing (set only while it
 * runs); its capacity is cap_values[flags & RES_CAP_OTHER], or capacity[]
 * for RES_CAP_OTHER. */
#define RES_PRIVATE   0x80
#define RES_MET       0x40
#define RES_CAP_OTHER 0x3f

/* nccl_shape()'s reading of a node model's names (its GPU's generation,
 * its NVSwitch, its CPU's maker), kept for the model last read: a
 * cluster's nodes are mostly of one model, and every collective
 * registered reads them. */
typedef struct {
  const SimNodeModel *model;
  SimNcclArch         arch;
  gboolean            nvswitch, amd, arm;
} NodeTraits;

struct _SimCommModel {
  NodeTraits        traits;
  SimTopology      *topology;
  const SimCluster *cluster;
  SimMaxmin        *sys;
  GArray           *touched;      /* guint: registered collectives whose flows changed
                                   * rate since sim_comm_model_update() last asked */
  guint             touch_epoch;  /* a plan is in touched when its touched_epoch is this */
  /* Per resource of the topology, whose solver slot is its number (the
   * model makes the solver's resources first, in order): its solver id,
   * and one byte of flags: RES_PRIVATE when it lies in a node marked
   * private (res_nodes()), which registering a flow reads for every
   * resource of its route, and below it its capacity's place in
   * cap_values (RES_CAP_OTHER: read capacity), which timing the job's
   * batch alone reads next, on the same lines.  At a hundred thousand
   * GPUs the network has a million and a half resources: these 1.6 MB
   * stay in the caches, where a line of 64 bytes a resource missed them
   * at every hop. */
  SimMaxminId      *res_id;
  guint8           *res_flags;
  double           *cap_values;
  guint             n_res;
  GArray           *route;         /* guint32 topology resources */
  GArray           *ids;           /* SimMaxminId */
  guint32          *slots;         /* plan_register_entries()'s solver slots of a plan's
                                    * flows, ... */
  guint             slots_alloc;
  guint32          *slot_start;    /* ... each flow's from here (and one more) */
  guint             slot_start_alloc;
  GHashTable       *plans;         /* id -> Plan */
  guint             next_id;
  guint32          *load;          /* adaptive routing: flows registered per resource */
  guint32          *bound_seen;    /* per resource: 1 + its place in bound_res, or 0 */
  double           *capacity;      /* per resource: its capacity (they do not change) */
  guint32          *bound_res;     /* the resources a batch timed alone meets (a plain
                                    * array of n_res: each at most once) ... */
  guint             n_bound_res;   /* ... how many */
  FlowIndex         flow_index;    /* plan_add()'s, for the plan being built */
  LayoutScratch     layout;        /* layout_init()'s */
  GHashTable       *shapes;        /* ShapeEntry, by key: plans built */
  guint             shape_flows;   /* the flows of their plans */
  GArray           *shape_words;   /* guint32: the key being looked up */
  guint32          *gpu_node;      /* per GPU: its node */
  KeptRoute        *kept_routes;   /* plan_route()'s routes across plans, or NULL until
                                    * the first (or on a cluster too large) */
  guint             kept_shift;    /* 64 - log2 of its slots */
  gint              keep_routes;   /* sim__comm_model_set_keep_routes(): 1 on, 0 off,
                                    * -1 by the cluster's size */
  guint             n_gpus;        /* the cluster's */
  GPtrArray        *spare;         /* Plan: removed, their arrays kept for the next
                                    * (plan_build()), at most SPARE_PLANS */
  guint64           kept_hits;     /* routes found there */
  RouteSlot        *routes;        /* plan_route()'s table ... */
  guint32           routes_alloc;  /* ... its slots ... */
  guint32           routes_stamp;  /* ... in use when their stamp is this */
  guint32          *group_seen;    /* plan_group()'s lists by route: stamp, first ... */
  guint32           group_seen_alloc;  /* ... their places ... */
  guint32           group_stamp;   /* ... in use when their stamp is this */
  guint32          *group_next;    /* per flow of the plan grouped: the next group's
                                    * first flow on its route, or G_MAXUINT32 */
  guint32          *group_count;   /* per flow of the plan grouped: its group's size */
  guint32           group_count_alloc;
  /* sim__comm_model_time_alone()'s solver of one batch, its resources
   * numbered in the order of the network's, and scratch. */
  SimMaxmin        *alone_sys;
  GArray           *alone_res;     /* SimMaxminId, by local number */
  GArray           *alone_flows;   /* SimMaxminId, in the order added */
  guint32          *alone_sort;    /* room to sort the batch's resources */
  gboolean          no_direct;     /* sim__comm_model_set_alone_direct (FALSE) */
  gboolean          prefetch;      /* the solver outgrows the caches (PREFETCH_MIN_RES) */
  gboolean          skip_inside;   /* sim__comm_model_inside_private() may say yes: where
                                    * the network outgrows the caches (a collective left
                                    * unregistered spares misses, but one timed alone is
                                    * then built again), or as set */
  PlanSlot         *plan_slots;    /* PLAN_SLOTS: the plans by id, direct-mapped (plan_of()) */
  gboolean          prune;         /* sim__comm_model_set_prune() */
  gboolean          no_merge;      /* sim__comm_model_set_merge (FALSE) */
  gboolean          premerge;      /* plans built merged (plan_build()), unless ... */
  gboolean          no_premerge;   /* ... sim__comm_model_set_premerge (FALSE) */
  guint64           merged;        /* flows merged into others so far */
  guint64           unmerged;      /* plans built merged put back apart */
  ChoiceSlot        choices[CHOICE_SLOTS];
  gboolean          res_nodes_set; /* res_nodes() has run (when first pruning) */
  gboolean          sys_filled;    /* sys holds the network's resources (model_resources()) */
  guint8           *private_node;  /* per node: sim__comm_model_set_node_private() */
  guint32          *node_run_start; /* per node, and one more: where its runs of
                                    * resources ... */
  guint32          *node_runs;     /* ... start here, each a first and an end (res_nodes()) */
  guint             n_nodes;
  double           *pruned_use;    /* per resource: the pruned flows' rates on it ... */
  gboolean          pruned_stale;  /* ... to be summed again */
  Plan            **pruned_walk;   /* pruned_usage(): the plans in the table's order */
  guint             pruned_walk_alloc;
  guint             n_pruned;      /* plans registered pruned */
  guint             n_zero;        /* flows out of the solver (Plan.n_zero) */
  GPtrArray        *zero_plans;    /* Plan: with flows out of the solver (Plan.n_zero),
                                    * new or with a demand set since the last solve */
  DirectPath       *direct_paths;  /* alone_direct()'s routes of the batch ... */
  guint32          *direct_of;     /* ... and each flow's (G_MAXUINT32: none) */
  guint             direct_alloc;
  guint32          *direct_seen;   /* per place in a plan's paths: stamp, route */
  guint32           direct_seen_alloc, direct_stamp;
  guint32          *direct_hops;   /* the routes' resources by local number, ... */
  guint32          *direct_met;    /* ... the resources met, in order, ... */
  guint32          *direct_index;  /* ... by resource, direct_epoch if met, on a network of
                                    * up to DIRECT_INDEX_MAX (numbered by resource), or ... */
  guint32           direct_epoch;
  gboolean          alone_table;   /* sim__comm_model_set_alone_table() */
  guint32          *direct_keys;   /* ... given by a table of resource + 1 (0: empty) ... */
  guint32          *direct_vals;   /* ... to local number, ... */
  DirectRes        *direct_res;    /* ... their DirectRes (by number), ... */
  guint32           direct_hops_alloc, direct_table_alloc;  /* ... their lengths, */
  guint32           direct_table_len;  /* ... and the table's in use (a power of 2) ... */
  guint32           direct_table_shift; /* ... 32 less its bits */
  guint64           direct;        /* batches alone_direct() solved */
  guint64           direct_tried;  /* batches it was asked to */
  guint64           direct_unshared; /* of the first, by alone_unshared() */
  GHashTable       *nccl_tables;   /* SimNcclTable, by SimNcclShape: NCCL's tuning of
                                    * each communicator shape met */
  GHashTable       *alone_kept;    /* AloneEntry, by AloneKey: batches timed alone
                                    * (sim__comm_model_time_alone()), kept by their
                                    * pattern (alone_key(), tree_key()) ... */
  GHashTable       *alone_exact;   /* ... and by their GPUs' numbers (exact_key()) */
  GArray           *alone_words;   /* guint32: the key being looked up */
  guint32          *leaf_stamp;    /* tree_key(): per node, == leaf_now if met in the
                                    * batch ... */
  guint32          *leaf_ord;      /* ... and then its number in the batch */
  guint32          *leaf_nodes;    /* the batch's nodes, by number */
  guint32           leaf_now;
  gboolean          no_apart;      /* sim__comm_model_set_alone_apart (FALSE) */
  InsideChoice      inside_choice; /* sim__comm_model_choose() */
  guint32          *apart_seen;    /* alone_apart(): per node, the stamp of the last
                                    * collective met there ... */
  guint8           *apart_mark;    /* ... and its APART_ marks */
  guint32           apart_now;
  GArray           *apart_node;    /* guint32: each collective's node, or NO_NODE */
  GArray           *apart_calls;   /* SimCollectiveCall: a part of the batch ... */
  GArray           *apart_pos;     /* guint32: ... each one's place in the batch ... */
  GArray           *apart_times;   /* double: ... and their times */
  guint64           apart_batches; /* batches timed in parts */
};

/* NCCL's tuning model (sim-collective-private.h).  The constants are
 * those of NVIDIA/nccl v2.30.7 (commit 5067397), src/graph/tuning.cc,
 * ncclTunerConstantsDefaults; indices: algorithm in NCCL's order (tree,
 * ring, CollNet direct, CollNet chain, NVLS, NVLS tree, PAT), protocol
 * (LL, LL128, Simple). */
static const double nccl_base_lat[SIM_NCCL_N_ALGOS][N_PROTOS] = {
  { 6.8, 14.0, 8.4 }, { 6.6, 14.0, 8.4 }, { 0, 0, 0 }, { 0, 0, 0 },
  { 0, 0, 0 }, { 0, 0, 0 }, { 8.0, 8.0, 8.0 },
};
/* Hardware latency per step: NVLink, PCIe, network. */
enum { NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET };
static const double nccl_hw_lat[3][SIM_NCCL_N_ALGOS][N_PROTOS] = {
  { { 0.6, 1.25, 4.0 }, { 0.6, 1.9, 3.4 }, { 0, 0, 3.7 }, { 0, 0, 2.8 },
    { 0, 0, 25 }, { 0, 0, 25 }, { 0, 0, 4.0 } },
  { { 1.0, 1.9, 4.0 }, { 1.0, 2.5, 5.7 }, { 0, 0, 3.7 }, { 0, 0, 2.8 },
    { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 4.0 } },
  { { 5.0, 8.5, 14 }, { 2.7, 4.0, 14.0 }, { 0, 0, 31 }, { 0, 0, 30 },
    { 0, 0, 18 }, { 0, 0, 20.9 }, { 0, 0, 14 } },
};
/* By GPU generation (Volta, Ampere, Hopper, Blackwell) and node count
 * (1, 2, more): the LL bandwidth limits (one node: by GPU; several: by
 * CPU, Intel or AMD, in the first two columns) and the per-channel limits
 * of ring LL128, tree LL128, tree and NVLS tree, GB/s. */
static const double nccl_ll_max_bw[4][3] = {
  { 39.0, 39.0, 20.4 }, { 87.7, 22.5, 19.0 }, { 141.0, 45.0, 35.0 }, { 282.0, 90.0, 70.0 },
};
static const double nccl_ring_ll128_bw[4][3] = {
  { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 }, { 36.7, 36.7, 36.7 }, { 40.0, 40.0, 40.0 },
};
static const double nccl_tree_ll128_bw[4][3] = {
  { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 }, { 36.7, 36.7, 29.0 }, { 55.6, 31.67, 20.0 },
};
static const double nccl_tree_bw[4][3] = {
  { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 }, { 38.7, 41.4, 36.0 }, { 70.0, 42.8, 24.0 },
};
static const double nccl_nvls_tree_bw[4][3] = {
  { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 }, { 0.0, 57.7, 45.5 }, { 0.0, 96.0, 80.0 },
};
/* NVLS efficiency by generation (tuning.cc, nvlsEfficiency). */
static const double nccl_nvls_eff[4] = { 0.0, 0.0, 0.85, 0.74 };
/* The tree's correction for medium sizes, by protocol and log2 of the
 * size over 64 bytes (tuning.cc, treeCorrectionFactor). */
static const double nccl_tree_correction[N_PROTOS][24] = {
  { 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
    1.0, 1.0, 1.0 },
  { 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0,
    1.0, 1.0 },
  { .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9,
    .9 },
};
/* NCCL_MAX_DIRECT_ARITY + 1: CollNet takes at most 8 GPUs per node. */
#define NCCL_COLLNET_MAX_LOCAL 8

static const char * const nccl_algo_names[] = {
  "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat",
};

const char *
sim__nccl_algo_to_string (SimNcclAlgo algo)
{
  return (guint) algo < SIM_NCCL_N_ALGOS ? nccl_algo_names[algo] : "unknown";
}

/* NCCL's log2i(): the floor of log2 @n, -1 for 0. */
static int
nccl_log2i (guint64 n)
{
  int l = -1;
  while (n != 0)
    {
      n >>= 1;
      l++;
    }
  return l;
}

void
sim__nccl_tune (const SimNcclShape *s, SimNcclTable *t)
{
  guint N = s->n_nodes, n = s->n_ranks, K = MAX (s->channels, 1u);
  guint arch = s->arch, i2 = N <= 2 ? N - 1 : 2;
  double ppn = (double) n / N;
  double ll_max = nccl_ll_max_bw[N == 1 ? arch : s->amd_cpu ? 1 : 0][i2];
  gboolean ar = s->op == SIM_COLLECTIVE_ALL_REDUCE;
  gboolean ag_rs = s->op == SIM_COLLECTIVE_ALL_GATHER || s->op == SIM_COLLECTIVE_REDUCE_SCATTER;
  guint intra_hw = s->nvlink ? NCCL_HW_NVLINK : NCCL_HW_PCI;
  guint hw = N == 1 ? intra_hw : NCCL_HW_NET;
  double nsteps = ar ? 2.0 * (n - 1) : ag_rs ? n - 1.0 : n;
  /* Each channel's bandwidth, as NCCL's graphs give it (bwIntra,
   * bwInter).  The search gives a graph that crosses the network one
   * speed for both, what the slower of NVLink and the NICs carries; an
   * NVLS graph has its own channels, NVLink inside and the NICs across. */
  double bw_intra = (N == 1 ? s->bw_intra : MIN (s->bw_intra, s->bw_inter)) / K;
  double bw_inter = bw_intra;
  guint KN = MAX (s->nvls_channels, 1u);
  double nvls_intra = s->bw_intra / KN, nvls_inter = (N == 1 ? s->bw_intra : s->bw_inter) / KN;

  g_return_if_fail (N >= 1 && n >= N && s->op <= SIM_COLLECTIVE_BROADCAST
                    && s->op != SIM_COLLECTIVE_ALL_TO_ALL);
  memset (t, 0, sizeof *t);
  t->op = s->op;
  t->n_ranks = n;
  t->n_nodes = N;
  t->channels = K;
  t->arch = s->arch;
  t->arm_cpu = s->arm_cpu;
  for (guint a = 0; a < SIM_NCCL_N_ALGOS; a++)
    {
      gboolean collnet = a == SIM_NCCL_COLLNET_DIRECT || a == SIM_NCCL_COLLNET_CHAIN;
      gboolean nvls = a == SIM_NCCL_NVLS || a == SIM_NCCL_NVLS_TREE;

      /* Which algorithms each operation has (tuning.cc's loop). */
      if (s->op == SIM_COLLECTIVE_BROADCAST && a != SIM_NCCL_RING)
        continue;
      if (ag_rs && a != SIM_NCCL_PAT && a != SIM_NCCL_RING && a != SIM_NCCL_NVLS
          && a != SIM_NCCL_COLLNET_DIRECT)
        continue;
      if (ar && a == SIM_NCCL_PAT)
        continue;
      /* What the hardware and NCCL's defaults enable: NVLS needs an NVSwitch
       * that reduces, NVLS tree several nodes; CollNet (and NVLS across
       * nodes, which rides on it) needs SHARP with NCCL_COLLNET_ENABLE=1,
       * CollNet direct an NVSwitch, and both at most 8 GPUs a node
       * (tuning.cc, enqueue.cc's updateCollCostTable()); PAT one GPU per
       * node. */
      if (nvls && (!s->nvls || nccl_nvls_eff[arch] <= 0))
        continue;
      if (a == SIM_NCCL_NVLS_TREE && N == 1)
        continue;
      if ((collnet || (a == SIM_NCCL_NVLS && N > 1)) && !s->collnet)
        continue;
      if (a == SIM_NCCL_COLLNET_DIRECT && !s->nvswitch)
        continue;
      if (collnet && ppn > NCCL_COLLNET_MAX_LOCAL)
        continue;
      if (a == SIM_NCCL_PAT && N != n)
        continue;
      for (guint p = 0; p < N_PROTOS; p++)
        {
          double bw = N <= 2 || collnet ? bw_intra : bw_inter, bus, lat, intra_lat, inter_lat;

          if ((nvls || a == SIM_NCCL_PAT || collnet) && p != SIMPLE_PROTO)
            continue;
          /* LL128 is on by default over NVLink (paths up to NVB), for
           * Volta and later: off over PCIe. */
          if (p == SIM_COLLECTIVE_PROTO_LL128 && !s->nvlink)
            continue;
          if (nvls)
            {
              double intra, inter;
              if (KN < 2)
                continue;
              intra = nvls_intra * nccl_nvls_eff[arch] * (KN - 1) / KN;
              /* All-reduce pipelines two operations. */
              intra *= ar ? 2.0 : (ppn - 1) / ppn;
              inter = nvls_inter * (N <= 2 && a == SIM_NCCL_NVLS_TREE ? 2 : 1);
              bw = MIN (intra, inter);
              if (a == SIM_NCCL_NVLS_TREE)
                bw = MIN (bw, nccl_nvls_tree_bw[arch][i2]);
            }
          bus = (nvls ? KN : K) * bw;
          if (a == SIM_NCCL_RING && p == SIM_COLLECTIVE_PROTO_LL)
            bus = MIN (ll_max, bus * 0.5);
          if (a == SIM_NCCL_RING && p == SIM_COLLECTIVE_PROTO_LL128)
            bus = MIN (bus * 0.92, K * nccl_ring_ll128_bw[arch][i2]);
          if (a == SIM_NCCL_TREE && ar)
            bus = MIN (bus * 0.92, K * nccl_tree_bw[arch][i2]);
          if (a == SIM_NCCL_TREE && p == SIM_COLLECTIVE_PROTO_LL)
            bus = MIN (bus / 3.8, ll_max);
          if (a == SIM_NCCL_TREE && p == SIM_COLLECTIVE_PROTO_LL128)
            bus = MIN (bus * (N == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                       K * nccl_tree_ll128_bw[arch][i2]);
          /* Trees are searched with the balanced pattern, which the
           * fabrics here always allow: no 0.85. */
          if (a == SIM_NCCL_PAT)
            bus *= 0.75;
          if (a == SIM_NCCL_COLLNET_DIRECT)
            {
              if (ag_rs)
                bus = ppn * MIN (bw_intra, bw_inter * 0.9);
              else
                {
                  /* Full speed only with a NIC per GPU. */
                  double factor = ppn / K;
                  factor -= (factor - 1) / 2;
                  bus /= factor;
                  if (arch >= SIM_NCCL_HOPPER)
                    bus *= 0.85;
                }
            }
          /* Across nodes, NVLS and CollNet direct gather and scatter only
           * with one GPU per SHARP head (a NIC). */
          if ((a == SIM_NCCL_NVLS || a == SIM_NCCL_COLLNET_DIRECT) && ag_rs && N > 1
              && (!s->collnet || ppn > K / 2.0))
            bus = 0;
          if (!(a != SIM_NCCL_RING && ag_rs))
            bus *= a == SIM_NCCL_RING || nvls ? n / nsteps : 0.5;
          if (bus <= 0)
            continue;

          lat = nccl_base_lat[a][p];
          intra_lat = nccl_hw_lat[intra_hw][a][p];
          /* With one GPU per node nothing hides the network: the tree's
           * constant.  The network plugins report no latency of their own
           * (graphs' latencyInter is 0 for InfiniBand and RoCE). */
          inter_lat = nccl_hw_lat[NCCL_HW_NET][ppn == 1 ? SIM_NCCL_TREE : a][p];
          switch (a)
            {
            case SIM_NCCL_RING:
              if (s->op == SIM_COLLECTIVE_BROADCAST)
                {
                  /* The rings' channels differ (each rotated,
                   * build_ring()), so a chunk's latency per step; Simple
                   * takes the tree's. */
                  double step = nccl_hw_lat[hw][p == SIMPLE_PROTO ? SIM_NCCL_TREE : a][p];
                  lat += nsteps * step;
                }
              else
                {
                  /* Inter-node rings post every step on the network. */
                  double overhead = N > 1 ? (s->amd_cpu ? 2.0 : 1.0) * (p == SIMPLE_PROTO ? 3 : 1)
                                          : 0;
                  double inter_steps = N == 1 ? 0 : ar ? 2.0 * (N - 1) : N - 1.0;
                  intra_lat = MAX (intra_lat, overhead);
                  lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
                }
              break;
            case SIM_NCCL_TREE:
              lat += 2 * ((n / N - 1) * intra_lat + nccl_log2i (N) * inter_lat);
              break;
            case SIM_NCCL_COLLNET_DIRECT:
              lat += 2 * (MIN (1u, n / N - 1) * intra_lat + (n / N - 1) * 0.4) + inter_lat;
              break;
            case SIM_NCCL_COLLNET_CHAIN:
              lat += 2 * (n / N - 1) * intra_lat + inter_lat;
              break;
            case SIM_NCCL_NVLS:
              lat = intra_lat + (N > 1 ? inter_lat : 0);
              break;
            case SIM_NCCL_NVLS_TREE:
              lat += intra_lat + 2 * nccl_log2i (N) * inter_lat;
              break;
            case SIM_NCCL_PAT:
            default:
              lat += nccl_log2i (N) * (inter_lat / 3.5) + n * 2.8;
              break;
            }
          t->latency[a][p] = lat;
          t->bandwidth[a][p] = bus;
        }
    }
}

double
sim__nccl_time (const SimNcclTable *t, SimNcclAlgo a, SimCollectiveProtocol p, guint64 bytes)
{
  double bw, lat;
  int log_size;

  g_return_val_if_fail ((guint) a < SIM_NCCL_N_ALGOS && (guint) p < N_PROTOS, -1);
  bw = t->bandwidth[a][p];
  lat = t->latency[a][p];
  if (bw <= 0)
    return -1;
  log_size = nccl_log2i (bytes >> 6);
  if (a == SIM_NCCL_TREE && t->op == SIM_COLLECTIVE_ALL_REDUCE && log_size >= 0 && log_size < 23)
    bw *= nccl_tree_correction[p][log_size];
  if (a == SIM_NCCL_NVLS_TREE && t->op == SIM_COLLECTIVE_ALL_REDUCE && log_size >= 0
      && log_size < 24 && t->arch >= SIM_NCCL_BLACKWELL && !t->arm_cpu)
    bw *= nccl_tree_correction[p][log_size];
  /* The plateau of multi-node rings (Simple, all-reduce). */
  if (a == SIM_NCCL_RING && p == SIMPLE_PROTO && t->n_nodes > 1 && t->op == SIM_COLLECTIVE_ALL_REDUCE
      && bytes / ((guint64) t->channels * t->n_ranks) >= 64)
    lat *= t->arch < SIM_NCCL_AMPERE ? 1.9 : 1.4;
  return lat + (double) bytes / (1000 * bw);
}

gboolean
sim__nccl_choose (const SimNcclTable *t, guint64 bytes, guint mask, SimNcclAlgo *algo,
                  SimCollectiveProtocol *protocol, double *time_us)
{
  double best = INFINITY;
  gboolean any = FALSE;

  for (guint a = 0; a < SIM_NCCL_N_ALGOS; a++)
    {
      if (!(mask & (1u << a)))
        continue;
      for (guint p = 0; p < N_PROTOS; p++)
        {
          double time = sim__nccl_time (t, (SimNcclAlgo) a, (SimCollectiveProtocol) p, bytes);
          if (time >= 0 && time < best)
            {
              best = time;
              any = TRUE;
              if (algo != NULL)
                *algo = (SimNcclAlgo) a;
              if (protocol != NULL)
                *protocol = (SimCollectiveProtocol) p;
            }
        }
    }
  if (time_us != NULL)
    *time_us = any ? best : -1;
  return any;
}

static const char * const op_names[] = {
  "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv",
};
static const char * const algo_names[] = {
  "auto", "ring", "tree", "hierarchical", "nvls", "direct",
};
static const char * const proto_names[] = { "LL", "LL128", "Simple" };

const char *
sim_collective_op_to_string (SimCollectiveOp op)
{
  g_return_val_if_fail ((guint) op < G_N_ELEMENTS (op_names), "?");
  return op_names[op];
}

const char *
sim_collective_algo_to_string (SimCollectiveAlgo algo)
{
  g_return_val_if_fail ((guint) algo < G_N_ELEMENTS (algo_names), "?");
  return algo_names[algo];
}

const char *
sim_collective_protocol_to_string (SimCollectiveProtocol protocol)
{
  g_return_val_if_fail ((guint) protocol < G_N_ELEMENTS (proto_names), "?");
  return proto_names[protocol];
}

gboolean
sim_collective_op_from_string (const char *text, SimCollectiveOp *op, GError **error)
{
  g_autofree char *t = NULL;

  g_return_val_if_fail (text != NULL && op != NULL, FALSE);
  t = g_strdelimit (g_ascii_strdown (text, -1), "-", '_');
  for (guint i = 0; i < G_N_ELEMENTS (op_names); i++)
    if (strcmp (t, op_names[i]) == 0)
      {
        *op = (SimCollectiveOp) i;
        return TRUE;
      }
  if (strcmp (t, "alltoall") == 0 || strcmp (t, "sendrecv") == 0
      || strcmp (t, "allreduce") == 0 || strcmp (t, "allgather") == 0
      || strcmp (t, "reducescatter") == 0)
    {
      *op = t[0] == 's' ? SIM_COLLECTIVE_SEND_RECV
            : t[0] == 'r' ? SIM_COLLECTIVE_REDUCE_SCATTER
            : strcmp (t, "alltoall") == 0 ? SIM_COLLECTIVE_ALL_TO_ALL
            : strcmp (t, "allreduce") == 0 ? SIM_COLLECTIVE_ALL_REDUCE
            : SIM_COLLECTIVE_ALL_GATHER;
      return TRUE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
               "unknown collective \"%s\": expected all_reduce, all_gather, reduce_scatter, "
               "all_to_all, broadcast or send_recv", text);
  return FALSE;
}

gboolean
sim_collective_algo_from_string (const char *text, SimCollectiveAlgo *algo, GError **error)
{
  g_return_val_if_fail (text != NULL && algo != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (algo_names); i++)
    if (g_ascii_strcasecmp (text, algo_names[i]) == 0)
      {
        *algo = (SimCollectiveAlgo) i;
        return TRUE;
      }
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
               "unknown algorithm \"%s\": expected auto, ring, tree, hierarchical, nvls or "
               "direct", text);
  return FALSE;
}

double
sim_collective_busbw_factor (SimCollectiveOp op, guint n)
{
  g_return_val_if_fail (n > 0, 0);
  switch (op)
    {
    case SIM_COLLECTIVE_ALL_REDUCE:
      return 2.0 * (n - 1) / n;
    case SIM_COLLECTIVE_ALL_GATHER:
    case SIM_COLLECTIVE_REDUCE_SCATTER:
    case SIM_COLLECTIVE_ALL_TO_ALL:
      return (double) (n - 1) / n;
    case SIM_COLLECTIVE_BROADCAST:
    case SIM_COLLECTIVE_SEND_RECV:
    default:
      return 1.0;
    }
}

/* The model */

static void plan_free (Plan *p);

/* The solver's resources, one for each of the network's, made when first
 * needed: a model that only times batches alone (sim-job-comm.c's idle
 * copy) never registers a flow, and at a hundred thousand GPUs the
 * network has over a million resources. */
static void
model_resources (SimCommModel *m)
{
  if (m->sys_filled)
    return;
  m->sys_filled = TRUE;
  sim__maxmin_reserve_resources (m->sys, m->n_res);
  for (guint i = 0; i < m->n_res; i++)
    {
      m->res_id[i] = sim_maxmin_add_resource (m->sys, m->capacity[i]);
      /* (A fresh solver numbers its resources' slots from 0.) */
      g_assert (sim__maxmin_resource_slot (m->res_id[i]) == i);
    }
}

SimCommModel *
sim_comm_model_new (SimTopology *topology, const SimCluster *cluster)
{
  SimCommModel *m;

  g_return_val_if_fail (topology != NULL && cluster != NULL, NULL);
  m = g_new0 (SimCommModel, 1);
  m->topology = topology;
  m->cluster = cluster;
  m->sys = sim_maxmin_new ();
  m->touched = g_array_new (FALSE, FALSE, sizeof (guint));
  m->touch_epoch = 1;
  m->n_res = sim_topology_get_n_resources (topology);
  m->prefetch = m->n_res >= PREFETCH_MIN_RES;
  m->skip_inside = m->prefetch;
  m->res_id = g_new (SimMaxminId, MAX (m->n_res, 1));
  m->res_flags = g_new0 (guint8, MAX (m->n_res, 1));
  m->capacity = g_new (double, MAX (m->n_res, 1));
  {
    /* Each capacity once, by value (a few: one a kind of link). */
    GHashTable *seen = g_hash_table_new (g_double_hash, g_double_equal);
    GArray *values = g_array_new (FALSE, FALSE, sizeof (double));
    for (guint i = 0; i < m->n_res; i++)
      {
        gpointer at;
        m->capacity[i] = MAX (0.0, sim_topology_resource_capacity (topology, i));
        if (!g_hash_table_lookup_extended (seen, &m->capacity[i], NULL, &at))
          {
            at = GUINT_TO_POINTER (values->len);
            g_array_append_val (values, m->capacity[i]);
            g_hash_table_insert (seen, &m->capacity[i], at);
          }
        m->res_flags[i] = (guint8) MIN (GPOINTER_TO_UINT (at), RES_CAP_OTHER);
      }
    g_hash_table_unref (seen);
    m->cap_values = (double *) (gpointer) g_array_free (values, FALSE);
  }
  m->route = g_array_new (FALSE, FALSE, sizeof (guint32));
  m->ids = g_array_new (FALSE, FALSE, sizeof (SimMaxminId));
  m->plans = g_hash_table_new (g_direct_hash, g_direct_equal);
  m->plan_slots = g_new0 (PlanSlot, PLAN_SLOTS);
  m->zero_plans = g_ptr_array_new ();
  m->spare = g_ptr_array_new_with_free_func ((GDestroyNotify) plan_free);
  m->gpu_node = g_new (guint32, MAX (sim_cluster_get_n_gpus (cluster), 1));
  for (guint32 g = 0; g < sim_cluster_get_n_gpus (cluster); g++)
    m->gpu_node[g] = sim_cluster_get_gpu (cluster, g)->node;
  m->next_id = 1;
  m->n_nodes = sim_cluster_get_n_nodes (cluster);
  m->n_gpus = sim_cluster_get_n_gpus (cluster);
  m->keep_routes = -1;
  m->private_node = g_new0 (guint8, MAX (m->n_nodes, 1));
  if (sim_topology_get_routing (topology) == SIM_ROUTING_ADAPTIVE)
    m->load = g_new0 (guint32, MAX (m->n_res, 1));
  m->premerge = sim_topology_get_routing (topology) == SIM_ROUTING_DMODK
                || sim_topology_get_routing (topology) == SIM_ROUTING_SPRAY;
  return m;
}

/* Frees @p's fx if it is its own; it reads none after. */
static void
plan_drop_fixed (Plan *p)
{
  if (p->own_fixed)
    g_free (p->fx);
  p->fx = NULL;
  p->own_fixed = FALSE;
}

/* Frees @p, or keeps it with its arrays for plan_build() to fill. */
static void
plan_recycle (SimCommModel *m, Plan *p)
{
  if (m->spare->len >= SPARE_PLANS || p->paths == NULL)
    {
      plan_free (p);
      return;
    }
  g_clear_pointer (&p->gpus, g_free);
  plan_drop_fixed (p);
  g_array_set_size (p->flows, 0);
  g_array_set_size (p->paths, 0);
  g_ptr_array_add (m->spare, p);
}

static void
plan_free (Plan *p)
{
  if (p == NULL)
    return;
  plan_drop_fixed (p);
  g_array_unref (p->flows);
  if (p->paths != NULL)
    g_array_unref (p->paths);
  g_free (p->gpus);
  g_free (p->entries);
  g_free (p);
}

void
sim_comm_model_free (SimCommModel *m)
{
  GHashTableIter it;
  gpointer value;

  if (m == NULL)
    return;
  g_hash_table_iter_init (&it, m->plans);
  while (g_hash_table_iter_next (&it, NULL, &value))
    plan_free (value);
  g_hash_table_unref (m->plans);
  g_free (m->plan_slots);
  g_ptr_array_unref (m->zero_plans);
  g_ptr_array_unref (m->spare);
  sim_maxmin_free (m->sys);
  g_array_unref (m->touched);
  g_free (m->res_id);
  g_free (m->res_flags);
  g_free (m->node_runs);
  g_free (m->node_run_start);
  g_free (m->cap_values);
  g_array_unref (m->route);
  g_array_unref (m->ids);
  g_free (m->slots);
  g_free (m->slot_start);
  g_free (m->load);
  g_free (m->group_seen);
  g_free (m->group_next);
  g_free (m->group_count);
  g_free (m->routes);
  g_aligned_free (m->kept_routes);
  g_free (m->bound_seen);
  g_free (m->bound_res);
  g_free (m->capacity);
  g_free (m->flow_index.slots);
  if (m->flow_index.shares != NULL)
    g_array_unref (m->flow_index.shares);
  g_free (m->layout.gpu_stamp);
  g_free (m->layout.node_stamp);
  g_free (m->layout.node_slot);
  g_free (m->layout.gpu_slot);
  g_free (m->layout.nodes);
  g_free (m->layout.storage);
  g_free (m->layout.shape_nodes);
  g_free (m->layout.iota);
  if (m->shapes != NULL)
    g_hash_table_unref (m->shapes);
  if (m->shape_words != NULL)
    g_array_unref (m->shape_words);
  g_free (m->gpu_node);
  if (m->alone_sys != NULL)
    sim_maxmin_free (m->alone_sys);
  if (m->alone_res != NULL)
    g_array_unref (m->alone_res);
  if (m->alone_flows != NULL)
    g_array_unref (m->alone_flows);
  g_free (m->alone_sort);
  g_free (m->direct_paths);
  g_free (m->private_node);
  g_free (m->pruned_use);
  g_free (m->pruned_walk);
  g_free (m->direct_of);
  g_free (m->direct_seen);
  g_free (m->direct_hops);
  g_free (m->direct_keys);
  g_free (m->direct_vals);
  g_free (m->direct_res);
  g_free (m->direct_met);
  g_free (m->direct_index);
  if (m->nccl_tables != NULL)
    g_hash_table_unref (m->nccl_tables);
  if (m->alone_kept != NULL)
    g_hash_table_unref (m->alone_kept);
  if (m->alone_exact != NULL)
    g_hash_table_unref (m->alone_exact);
  if (m->alone_words != NULL)
    g_array_unref (m->alone_words);
  g_free (m->leaf_stamp);
  g_free (m->leaf_ord);
  g_free (m->apart_seen);
  g_free (m->apart_mark);
  g_clear_pointer (&m->apart_node, g_array_unref);
  g_clear_pointer (&m->apart_calls, g_array_unref);
  g_clear_pointer (&m->apart_pos, g_array_unref);
  g_clear_pointer (&m->apart_times, g_array_unref);
  g_free (m->leaf_nodes);
  g_free (m);
}

/* Plans */

static gboolean
node_has_nvls (const SimNodeModel *model, double *efficiency)
{
  const char *gpu = model->gpu_name ? model->gpu_name : "";

  if (model->intra_node == NULL || strcmp (model->intra_node, "nvswitch") != 0)
    return FALSE;
  *efficiency = g_str_has_prefix (gpu, "B") || g_str_has_prefix (gpu, "GB")
                ? NVLS_EFFICIENCY_BLACKWELL : NVLS_EFFICIENCY_HOPPER;
  if (model->nvswitch != NULL)
    return model->nvswitch->in_network_reduction;
  /* Without a switch model, NVSwitch nodes of the Hopper and Blackwell
   * generations have NVLS. */
  return g_str_has_prefix (gpu, "H100") || g_str_has_prefix (gpu, "H200")
         || g_str_has_prefix (gpu, "H800") || g_str_has_prefix (gpu, "B200")
         || g_str_has_prefix (gpu, "GB200");
}

/* Sizes @x to @cluster (whose pools may have grown since the last
 * collective) and moves to a new stamp, which unmarks every GPU and node. */
static void
layout_scratch_begin (LayoutScratch *x, const SimCluster *cluster)
{
  guint n_gpus = sim_cluster_get_n_gpus (cluster), n_nodes = sim_cluster_get_n_nodes (cluster);

  if (x->gpu_stamp == NULL || n_gpus != x->n_gpus || n_nodes != x->n_nodes)
    {
      x->n_gpus = n_gpus;
      x->n_nodes = n_nodes;
      g_free (x->gpu_stamp);
      g_free (x->node_stamp);
      g_free (x->node_slot);
      g_free (x->gpu_slot);
      g_free (x->nodes);
      g_free (x->storage);
      g_free (x->shape_nodes);
      g_free (x->iota);
      x->gpu_stamp = g_new0 (guint32, MAX (n_gpus, 1));
      x->node_stamp = g_new0 (guint32, MAX (n_nodes, 1));
      x->node_slot = g_new (guint, MAX (n_nodes, 1));
      x->gpu_slot = g_new (guint, MAX (n_gpus, 1));
      x->nodes = g_new (NodeGroup, MAX (n_gpus, 1));
      x->storage = g_new (guint32, MAX (n_gpus, 1));
      x->shape_nodes = g_new (NodeGroup, MAX (n_gpus, 1));
      x->iota = g_new (guint32, MAX (n_gpus, 1));
      for (guint i = 0; i < n_gpus; i++)
        x->iota[i] = i;
      x->stamp = 0;
    }
  if (++x->stamp == 0)
    {
      /* The stamps went round: none may look current. */
      memset (x->gpu_stamp, 0, (gsize) MAX (n_gpus, 1) * sizeof (guint32));
      memset (x->node_stamp, 0, (gsize) MAX (n_nodes, 1) * sizeof (guint32));
      x->stamp = 1;
    }
}

/* Groups @gpus by node into @l, whose arrays are @m's until the next call. */
static gboolean
layout_init (SimCommModel *m, Layout *l, const guint32 *gpus, guint n, GError **error)
{
  const SimCluster *cluster = m->cluster;
  LayoutScratch *x = &m->layout;
  guint total = sim_cluster_get_n_gpus (cluster);

  memset (l, 0, sizeof *l);
  if (n < 2)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "a collective needs at least 2 GPUs, got %u", n);
      return FALSE;
    }
  layout_scratch_begin (x, cluster);
  for (guint i = 0; i < n; i++)
    {
      if (gpus[i] >= total)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "GPU %u does not exist: the cluster has %u GPUs", gpus[i], total);
          return FALSE;
        }
      if (x->gpu_stamp[gpus[i]] == x->stamp)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "GPU %u is listed twice", gpus[i]);
          return FALSE;
        }
      x->gpu_stamp[gpus[i]] = x->stamp;
    }
  /* Group by node, nodes in order of first appearance; a node's GPUs in
   * the caller's order.  No more GPUs than the cluster's are listed, so
   * the scratch arrays hold them. */
  l->nodes = x->nodes;
  for (guint i = 0; i < n; i++)
    {
      guint node = m->gpu_node[gpus[i]];
      if (x->node_stamp[node] != x->stamp)
        {
          x->node_stamp[node] = x->stamp;
          x->node_slot[node] = l->n_nodes;
          l->nodes[l->n_nodes].n = 0;
          l->nodes[l->n_nodes].model = sim_cluster_get_node (cluster, node)->model;
          l->n_nodes++;
        }
      x->gpu_slot[i] = x->node_slot[node];
      l->nodes[x->gpu_slot[i]].n++;
    }
  l->n_gpus = n;
  l->gpus = x->storage;
  l->min_ppn = G_MAXUINT;
  l->nvls = TRUE;
  l->nvls_efficiency = 1;
  l->channels = 1;
  for (guint k = 0, off = 0; k < l->n_nodes; k++)
    {
      l->nodes[k].gpus = x->storage + off;
      off += l->nodes[k].n;
      l->max_ppn = MAX (l->max_ppn, l->nodes[k].n);
      l->min_ppn = MIN (l->min_ppn, l->nodes[k].n);
      l->nodes[k].n = 0;
    }
  for (guint i = 0; i < n; i++)
    {
      NodeGroup *g = &l->nodes[x->gpu_slot[i]];
      g->gpus[g->n++] = gpus[i];
    }
  for (guint k = 0; k < l->n_nodes; k++)
    {
      const SimNodeModel *model = l->nodes[k].model;
      double eff = 1;
      /* Nodes of a pool share their model: the same one again changes
       * nothing. */
      if (k > 0 && model == l->nodes[k - 1].model)
        continue;
      if (model->intra_node != NULL && strcmp (model->intra_node, "pcie") == 0)
        l->pcie = TRUE;
      if (!node_has_nvls (model, &eff))
        l->nvls = FALSE;
      else
        l->nvls_efficiency = MIN (l->nvls_efficiency, eff);
      if (l->n_nodes > 1)
        l->channels = MAX (l->channels, MIN (model->nics, 16u));
    }
  return TRUE;
}

static Plan *
plan_new (SimCollectiveOp op, SimCollectiveAlgo algo, guint n)
{
  Plan *p = g_new0 (Plan, 1);
  p->op = op;
  p->algo = algo;
  p->n_gpus = n;
  p->fx = g_new0 (PlanFixed, 1);
  p->own_fixed = TRUE;
  p->flows = g_array_new (FALSE, FALSE, sizeof (PlanFlow));
  for (guint k = 0; k < N_PROTOS; k++)
    {
      p->latency[k] = -1;
      p->fx->sw_latency[k] = -1;
      p->fx->bw_factor[k] = proto_bw[k];
    }
  return p;
}

static inline guint64
flow_key (guint32 src, guint32 dst, guint32 channel)
{
  return ((guint64) src << 40) | ((guint64) dst << 16) | channel;
}

/* Empties @x for the next plan. */
static void
flow_index_reset (FlowIndex *x)
{
  if (x->slots == NULL)
    {
      x->mask = 255;
      x->shift = 64 - 8;
      x->slots = g_new0 (FlowSlot, x->mask + 1);
      x->shares = g_array_new (FALSE, FALSE, sizeof (double) * MAX_PHASES);
    }
  g_array_set_size (x->shares, 0);
  if (++x->epoch == 0)
    {
      /* The stamps went round: none may look current. */
      memset (x->slots, 0, (gsize) (x->mask + 1) * sizeof (FlowSlot));
      x->epoch = 1;
    }
}

/* Where @key is in @x, or the empty slot where it goes. */
static inline FlowSlot *
flow_index_slot (const FlowIndex *x, guint64 key)
{
  guint32 i = (guint32) ((key * 0x9e3779b97f4a7c15ull) >> x->shift);

  for (;; i = (i + 1) & x->mask)
    {
      FlowSlot *s = &x->slots[i];
      if (s->stamp != x->epoch || s->key == key)
        return s;
    }
}

/* Doubles @x's table, with @flows (the plan's, all in it) moved over. */
static void
flow_index_grow (FlowIndex *x, const GArray *flows)
{
  g_free (x->slots);
  x->mask = x->mask * 2 + 1;
  x->shift--;
  x->slots = g_new0 (FlowSlot, (gsize) x->mask + 1);
  x->epoch = 1;
  for (guint i = 0; i < flows->len; i++)
    {
      const PlanFlow *f = &g_array_index (flows, PlanFlow, i);
      guint64 key = flow_key (f->src, f->dst, f->channel);
      FlowSlot *s = flow_index_slot (x, key);
      s->key = key;
      s->stamp = x->epoch;
      s->index = i;
    }
}

/* Adds @share bytes per message byte from @src to @dst in @phase, on
 * channel @channel; the same (src, dst, channel) in several phases, or
 * added twice, is one flow.  Flows stay in the order they first appear:
 * the solver meets them in that order. */
static void
plan_add (Plan *p, guint32 src, guint32 dst, guint32 channel, guint phase, double share)
{
  FlowIndex *x = p->index;
  guint64 key = flow_key (src, dst, channel);
  FlowSlot *s;

  g_assert (phase < MAX_PHASES);
  g_assert (src < (1u << 24) && dst < (1u << 24) && channel < (1u << 16));
  if (src == dst || share <= 0)
    return;
  s = flow_index_slot (x, key);
  if (s->stamp != x->epoch)
    {
      PlanFlow nf = { src, dst, 0, 0, SIM_MAXMIN_NO_ID, 0, 1, (guint16) channel, 0 };
      double none[MAX_PHASES] = { 0 };
      /* At most half full, so that probes stay short. */
      if (2 * ((gsize) p->flows->len + 1) > (gsize) x->mask + 1)
        {
          flow_index_grow (x, p->flows);
          s = flow_index_slot (x, key);
        }
      s->key = key;
      s->stamp = x->epoch;
      s->index = p->flows->len;
      g_array_append_val (p->flows, nf);
      g_array_append_val (x->shares, none);
    }
  ((double *) (gpointer) x->shares->data)[(gsize) s->index * MAX_PHASES + phase] += share;
}

static guint
share_hash (gconstpointer key)
{
  const guint32 *w = key;
  guint h = 2166136261u;

  for (guint i = 0; i < 2 * MAX_PHASES; i++)
    h = (h ^ w[i]) * 16777619u;
  return h;
}

static gboolean
share_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (double) * MAX_PHASES) == 0;
}

/* Gives @p, built, its table of the shares summed in @x, each distinct
 * set once (equal to the bit), in the order first met, and each flow the
 * number of its own. */
static void
plan_seal_shares (Plan *p, const FlowIndex *x)
{
  const double (*sums)[MAX_PHASES] = (const double (*)[MAX_PHASES]) (gpointer) x->shares->data;
  g_autoptr(GHashTable) seen = g_hash_table_new (share_hash, share_equal);
  g_autofree guint16 *of = g_new (guint16, MAX (p->flows->len, 1));
  PlanFixed *t;
  guint n = 0;

  for (guint i = 0; i < p->flows->len; i++)
    {
      gpointer at;
      if (!g_hash_table_lookup_extended (seen, sums[i], NULL, &at))
        {
          /* (A builder's flows take a few shares: its formulas' values.) */
          g_assert (n <= G_MAXUINT16);
          at = GUINT_TO_POINTER (n++);
          g_hash_table_insert (seen, (gpointer) sums[i], at);
        }
      of[i] = (guint16) GPOINTER_TO_UINT (at);
    }
  g_assert (p->own_fixed);
  t = p->fx = g_realloc (p->fx, sizeof (PlanFixed) + MAX (n, 1) * sizeof p->fx->shares[0]);
  t->n_shares = n;
  for (guint i = 0; i < p->flows->len; i++)
    {
      PlanFlow *f = &g_array_index (p->flows, PlanFlow, i);
      f->share = of[i];
      memcpy (t->shares[of[i]], sums[i], sizeof t->shares[0]);
    }
}

/* Sets protocol @k's latency: @sw microseconds of NCCL's constants, plus
 * @net_steps steps that each pay the route's latency between nodes (twice
 * with Simple, whose receiver flushes: tuning.cc adds latencyInter twice). */
static void
set_latency (Plan *p, guint k, double sw, double net_steps)
{
  p->fx->sw_latency[k] = sw * 1e-6;
  p->fx->net_terms[k] = net_steps * (k == SIMPLE_PROTO ? 2.0 : 1.0);
}

/* @steps steps inside a node, whose constant (@ll_step microseconds with
 * LL, the least any protocol pays) holds a route that fast. */
static void
set_intra_steps (Plan *p, double steps, double ll_step)
{
  for (guint k = 0; k < N_PROTOS; k++)
    p->fx->intra_terms[k] = steps;
  p->fx->intra_ref = ll_step * 1e-6;
}

/* Latency of a ring-like schedule: @steps steps of which @inter cross the
 * network.  With one GPU per node every step crosses the network with
 * nothing to hide it, and tuning.cc then takes the tree's network step.
 * @pipelined: every GPU sends from the first step (not a broadcast chain),
 * so the steps' latencies hide behind their bytes (timing_fill()). */
static void
set_ring_latency (Plan *p, const Layout *l, double steps, double inter, gboolean multinode_x,
                  gboolean pipelined)
{
  const double *intra = l->pcie ? ring_pcie : ring_nvl;
  const double *net = l->n_nodes > 1 && l->n_gpus == l->n_nodes ? tree_net : ring_net;

  set_intra_steps (p, steps - inter, intra[SIM_COLLECTIVE_PROTO_LL]);
  p->fx->pipelined = pipelined;
  p->fx->n_intra = steps - inter;
  p->fx->n_inter = inter;
  for (guint k = 0; k < N_PROTOS; k++)
    {
      double lat = ring_base[k] + (steps - inter) * intra[k] + inter * net[k];
      double x = multinode_x && k == SIMPLE_PROTO && l->n_nodes > 1 ? RING_SIMPLE_MULTINODE : 1;
      set_latency (p, k, lat, inter);
      p->fx->sw_latency[k] *= x;
      p->fx->net_terms[k] *= x;
      p->fx->intra_terms[k] *= x;
      p->fx->fixed[k] = x * ring_base[k] * 1e-6;
      p->fx->sw_intra[k] = x * intra[k] * 1e-6;
      p->fx->sw_inter[k] = x * net[k] * 1e-6;
      p->fx->route_x_intra[k] = x;
      p->fx->route_x_inter[k] = x * (k == SIMPLE_PROTO ? 2.0 : 1.0);
    }
}

/* GPU @k (mod its count) of node @m, rotated by @rot. */
static inline guint32
node_gpu (const Layout *l, guint m, guint k)
{
  return l->nodes[m].gpus[k % l->nodes[m].n];
}

/* Ring order @c: nodes in turn, each node's GPUs rotated by @c, in
 * alternate directions: node 0 from its GPU c forwards, node 1 backwards
 * from the GPU where node 0 ended, and so on.  The edge from one node to
 * the next then joins GPUs of the same local index, so (with GPU i on
 * NIC i) it leaves by NIC x and enters by NIC x: each inter-node hop stays
 * on one rail, as NCCL's rings do on multi-NIC nodes (NCCL_CROSS_NIC keeps
 * a ring's traffic off other rails; NCCL 2.20 added rings that alternate
 * so, release notes of v2.20.3).  On a rail-optimized fabric these hops
 * stay under one rail leaf, and D-mod-K routes them, a shift permutation,
 * on distinct links of a non-blocking tree.  Only with an odd node count
 * does the edge that closes the ring change rail. */
static void
ring_order (const Layout *l, guint c, guint32 *order)
{
  guint i = 0;
  for (guint m = 0; m < l->n_nodes; m++)
    {
      guint p = l->nodes[m].n;
      for (guint k = 0; k < p; k++)
        order[i++] = node_gpu (l, m, m % 2 == 0 ? c + k : c + p - 1 - k + p);
    }
}

static void
build_ring (Plan *p, const Layout *l)
{
  guint n = l->n_gpus, K = l->channels, N = l->n_nodes;
  g_autofree guint32 *order = g_new (guint32, n);
  double share, steps, inter;
  gboolean chain = p->op == SIM_COLLECTIVE_BROADCAST;

  switch (p->op)
    {
    case SIM_COLLECTIVE_ALL_REDUCE:
      share = 2.0 * (n - 1) / n;
      steps = 2.0 * (n - 1);
      inter = 2.0 * (N - 1);
      break;
    case SIM_COLLECTIVE_BROADCAST:
      share = 1.0;
      steps = n - 1;
      inter = N - 1;
      break;
    default:
      share = (double) (n - 1) / n;
      steps = n - 1;
      inter = N - 1;
      break;
    }
  for (guint c = 0; c < K; c++)
    {
      ring_order (l, c, order);
      if (chain)
        {
          /* Broadcast from the first GPU of the caller's list: the chain
           * starts there. */
          guint start = 0;
          while (order[start] != l->nodes[0].gpus[0])
            start++;
          for (guint i = 0; i + 1 < n; i++)
            plan_add (p, order[(start + i) % n], order[(start + i + 1) % n], c, 0, share / K);
        }
      else
        for (guint i = 0; i < n; i++)
          plan_add (p, order[i], order[(i + 1) % n], c, 0, share / K);
    }
  set_ring_latency (p, l, steps, inter, p->op == SIM_COLLECTIVE_ALL_REDUCE, !chain);
}

/* NCCL's double binary tree over @N nodes: tree 0 is heap-shaped (the
 * parent of m is (m - 1) / 2), tree 1 its mirror image (node m plays the
 * role of N - 1 - m), so that the inner nodes of one are leaves of the
 * other. */
static gint
tree_parent (guint N, guint t, guint m)
{
  guint v = t == 0 ? m : N - 1 - m;
  if (v == 0)
    return -1;
  v = (v - 1) / 2;
  return (gint) (t == 0 ? v : N - 1 - v);
}

static void
build_tree (Plan *p, const Layout *l)
{
  guint K = l->channels, N = l->n_nodes;
  double share = 1.0 / (2.0 * K);   /* each of 2 trees per channel carries S / 2K */
  const double *intra = l->pcie ? tree_pcie : tree_nvl;

  for (guint c = 0; c < K; c++)
    for (guint t = 0; t < 2; t++)
      for (guint m = 0; m < N; m++)
        {
          guint ppn = l->nodes[m].n;
          gint parent = tree_parent (N, t, m);
          /* Chain inside the node towards its endpoint, GPU c. */
          for (guint k = 0; k + 1 < ppn; k++)
            {
              guint32 a = node_gpu (l, m, c + k + 1), b = node_gpu (l, m, c + k);
              plan_add (p, a, b, c, 0, share);   /* reduce, up */
              plan_add (p, b, a, c, 0, share);   /* broadcast, down */
            }
          if (parent >= 0)
            {
              guint32 a = node_gpu (l, m, c), b = node_gpu (l, (guint) parent, c);
              plan_add (p, a, b, c, 0, share);
              plan_add (p, b, a, c, 0, share);
            }
        }
  set_intra_steps (p, 2.0 * (l->max_ppn - 1), intra[SIM_COLLECTIVE_PROTO_LL]);
  for (guint k = 0; k < N_PROTOS; k++)
    {
      double log2n = N > 1 ? log2 ((double) N) : 0;
      set_latency (p, k, tree_base[k] + 2 * ((l->max_ppn - 1) * intra[k] + log2n * tree_net[k]),
                   2 * log2n);
      p->fx->bw_factor[k] = tree_proto_bw[k] * TREE_EFFICIENCY;
    }
}

/* Hierarchical all-reduce, or with @nvls its NVLS variant. */
static void
build_hierarchical (Plan *p, const Layout *l, gboolean nvls)
{
  guint N = l->n_nodes, ppn = l->min_ppn;
  double intra_share = nvls ? 1.0 / l->nvls_efficiency : (double) (ppn - 1) / ppn;

  for (guint m = 0; m < N && ppn > 1; m++)
    for (guint k = 0; k < ppn; k++)
      {
        guint32 a = node_gpu (l, m, k), b = node_gpu (l, m, k + 1);
        plan_add (p, a, b, 0, 0, intra_share);   /* reduce-scatter */
        plan_add (p, a, b, 0, 2, intra_share);   /* all-gather */
      }
  for (guint k = 0; k < ppn && N > 1; k++)
    for (guint m = 0; m < N; m++)
      plan_add (p, node_gpu (l, m, k), node_gpu (l, (m + 1) % N, k), 1, 1,
                2.0 * (N - 1) / N / ppn);
  if (nvls)
    {
      for (guint k = 0; k < N_PROTOS; k++)
        p->fx->sw_latency[k] = -1;
      set_latency (p, SIMPLE_PROTO, nvls_nvl + 2.0 * (N - 1) * nvls_net, 2.0 * (N - 1));
    }
  else
    set_ring_latency (p, l, 2.0 * (ppn - 1) + 2.0 * (N - 1), 2.0 * (N - 1), TRUE, FALSE);
}

static void
build_nvls_single (Plan *p, const Layout *l)
{
  guint n = l->n_gpus;
  const NodeGroup *g = &l->nodes[0];

  /* One flow per GPU to its neighbour: it loads the GPU's link to the
   * switch and the neighbour's link from it, each with S (n+1)/n. */
  for (guint k = 0; k < g->n; k++)
    plan_add (p, g->gpus[k], g->gpus[(k + 1) % g->n], 0, 0,
              (double) (n + 1) / n / l->nvls_efficiency);
  for (guint k = 0; k < N_PROTOS; k++)
    p->fx->sw_latency[k] = -1;
  set_latency (p, SIMPLE_PROTO, nvls_nvl, 0);
}

static void
build_direct (Plan *p, const Layout *l, const guint32 *gpus)
{
  guint n = l->n_gpus;
  const double *hop = l->n_nodes > 1 ? ring_net : l->pcie ? ring_pcie : ring_nvl;

  if (p->op == SIM_COLLECTIVE_ALL_TO_ALL)
    {
      for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
          plan_add (p, gpus[i], gpus[j], 0, 0, 1.0 / n);
    }
  else
    for (guint i = 0; i < n; i++)
      plan_add (p, gpus[i], gpus[(i + 1) % n], 0, 0, 1.0);
  if (l->n_nodes == 1)
    set_intra_steps (p, 1, hop[SIM_COLLECTIVE_PROTO_LL]);
  for (guint k = 0; k < N_PROTOS; k++)
    set_latency (p, k, ring_base[k] + hop[k], l->n_nodes > 1 ? 1 : 0);
}

/* Checks that @algo suits @op and the hardware; AUTO is not passed here. */
static gboolean
algo_allowed (SimCollectiveOp op, SimCollectiveAlgo algo, const Layout *l, GError **error)
{
  const char *why = NULL;

  switch (algo)
    {
    case SIM_COLLECTIVE_ALGO_RING:
      if (op == SIM_COLLECTIVE_ALL_TO_ALL || op == SIM_COLLECTIVE_SEND_RECV)
        why = "is point-to-point: use the direct algorithm";
      break;
    case SIM_COLLECTIVE_ALGO_TREE:
    case SIM_COLLECTIVE_ALGO_HIERARCHICAL:
      if (op != SIM_COLLECTIVE_ALL_REDUCE)
        why = algo == SIM_COLLECTIVE_ALGO_TREE
              ? "cannot use the tree algorithm, which is for all_reduce only"
              : "cannot use the hierarchical algorithm, which is for all_reduce only";
      else if (algo == SIM_COLLECTIVE_ALGO_HIERARCHICAL && l->min_ppn != l->max_ppn)
        why = "needs the same number of GPUs on every node for the hierarchical algorithm";
      break;
    case SIM_COLLECTIVE_ALGO_NVLS:
      if (op != SIM_COLLECTIVE_ALL_REDUCE)
        why = "cannot use NVLS, which is for all_reduce only";
      else if (!l->nvls)
        why = "cannot use NVLS: not every node has an NVSwitch with in-network reduction";
      else if (l->min_ppn < 2 || l->min_ppn != l->max_ppn)
        why = "needs at least 2 GPUs, and the same number, on every node for NVLS";
      break;
    case SIM_COLLECTIVE_ALGO_DIRECT:
      if (op != SIM_COLLECTIVE_ALL_TO_ALL && op != SIM_COLLECTIVE_SEND_RECV)
        why = "is not point-to-point: use ring, tree, hierarchical or nvls";
      break;
    case SIM_COLLECTIVE_ALGO_AUTO:
    default:
      break;
    }
  if (why != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s %s",
                   sim_collective_op_to_string (op), why);
      return FALSE;
    }
  return TRUE;
}

/* Builds the plan of @algo for @op on @l; @gpus: the caller's list. */
static Plan *
plan_build_on (SimCommModel *m, SimCollectiveOp op, SimCollectiveAlgo algo, const Layout *l,
               const guint32 *gpus)
{
  Plan *p = plan_new (op, algo, l->n_gpus);

  flow_index_reset (&m->flow_index);
  p->index = &m->flow_index;

  switch (algo)
    {
    case SIM_COLLECTIVE_ALGO_RING:
      build_ring (p, l);
      break;
    case SIM_COLLECTIVE_ALGO_TREE:
      build_tree (p, l);
      break;
    case SIM_COLLECTIVE_ALGO_HIERARCHICAL:
      build_hierarchical (p, l, FALSE);
      break;
    case SIM_COLLECTIVE_ALGO_NVLS:
      if (l->n_nodes == 1)
        build_nvls_single (p, l);
      else
        build_hierarchical (p, l, TRUE);
      break;
    case SIM_COLLECTIVE_ALGO_DIRECT:
    default:
      build_direct (p, l, gpus);
      break;
    }
  plan_seal_shares (p, &m->flow_index);
  p->index = NULL;
  return p;
}

static guint
shape_hash (gconstpointer key)
{
  return ((const ShapeKey *) key)->hash;
}

static gboolean
shape_equal (gconstpointer a, gconstpointer b)
{
  const ShapeKey *x = a, *y = b;
  return x->hash == y->hash && x->len == y->len
         && memcmp (x->words, y->words, x->len * sizeof (guint32)) == 0;
}

static void
shape_entry_free (gpointer data)
{
  ShapeEntry *e = data;
  g_free (e->key.words);
  plan_free (e->plan);
  plan_free (e->merged);
  g_free (e);
}

/* A copy of a plan (its struct's bytes) starts with no solver entries of
 * its own: those it shares with what it was copied from are not its. */
static inline void
plan_no_entries (Plan *p)
{
  p->entries = NULL;
  p->n_entries = p->entries_alloc = 0;
}

/* @p's flows := the flows @from of a shape's plan, GPU i renamed
 * @gpus[i].  An array with too little room is replaced, not grown:
 * growing would copy all it held, every byte of which is written over
 * here. */
static void
copy_renamed (Plan *p, const GArray *from, const guint32 *gpus)
{
  if (MAX (p->flows_room, p->flows->len) < from->len)
    {
      g_array_unref (p->flows);
      p->flows = g_array_sized_new (FALSE, FALSE, sizeof (PlanFlow), from->len);
      p->flows_room = from->len;
    }
  g_array_set_size (p->flows, from->len);
  for (guint i = 0; i < from->len; i++)
    {
      PlanFlow *f = &g_array_index (p->flows, PlanFlow, i);
      *f = g_array_index (from, PlanFlow, i);
      f->src = gpus[f->src];
      f->dst = gpus[f->dst];
    }
}

/* A copy of the shape's plan @t with its flows merged as plan_route()
 * merges them when every route depends on its two GPUs alone: each flow
 * whose GPUs an earlier flow had first joins that one (its count added)
 * if their shares are the same and the count stays within G_MAXUINT16;
 * the others keep their order.  In *@n_merged, the flows merged. */
static Plan *
premerge (const Plan *t, guint *n_merged)
{
  Plan *p = g_memdup2 (t, sizeof *t);
  g_autoptr(GHashTable) first = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  /* (Its flows are @t's, merged: it reads @t's shares.) */
  p->own_fixed = FALSE;
  *n_merged = 0;
  p->flows = g_array_sized_new (FALSE, FALSE, sizeof (PlanFlow), t->flows->len);
  p->paths = NULL;
  plan_no_entries (p);
  for (guint i = 0; i < t->flows->len; i++)
    {
      const PlanFlow *f = &g_array_index (t->flows, PlanFlow, i);
      gint64 key = ((gint64) f->src << 32) | f->dst;
      gpointer at;
      if (g_hash_table_lookup_extended (first, &key, NULL, &at))
        {
          PlanFlow *g = &g_array_index (p->flows, PlanFlow, GPOINTER_TO_UINT (at));
          if (g->share == f->share && (guint64) g->count + f->count <= G_MAXUINT16)
            {
              g->count += f->count;
              (*n_merged)++;
              continue;
            }
        }
      else
        g_hash_table_insert (first, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (p->flows->len));
      g_array_append_val (p->flows, *f);
    }
  return p;
}

/* The plan of @algo for @op on @l.  Apart from direct, which follows the
 * caller's order of GPUs, a builder sees a layout only through its shape
 * (the nodes' GPU counts in order, and their hardware) and through which
 * GPU sits where: built on a layout of the same shape whose GPUs are
 * numbered 0 to n - 1 node after node, a plan becomes @l's by renaming GPU
 * i as the i-th of l->gpus.  The renaming is one to one, so the same flows
 * merge, in the same order, with the same shares summed in the same order:
 * the plan is the one built on @l, bit for bit.  Job starts see few
 * shapes, so such plans are kept, and a plan is mostly a copy. */
static Plan *
plan_build (SimCommModel *m, SimCollectiveOp op, SimCollectiveAlgo algo, const Layout *l,
            const guint32 *gpus, gboolean merge)
{
  LayoutScratch *x = &m->layout;
  ShapeKey key;
  ShapeEntry *e;
  const Plan *t;
  Plan *built = NULL, *p;
  guint32 *w;
  guint64 eff;

  if (algo == SIM_COLLECTIVE_ALGO_DIRECT)
    return plan_build_on (m, op, algo, l, gpus);
  if (m->shapes == NULL)
    {
      m->shapes = g_hash_table_new_full (shape_hash, shape_equal, NULL, shape_entry_free);
      m->shape_words = g_array_new (FALSE, FALSE, sizeof (guint32));
    }
  g_array_set_size (m->shape_words, 8 + l->n_nodes);
  w = (guint32 *) (gpointer) m->shape_words->data;
  memcpy (&eff, &l->nvls_efficiency, sizeof eff);
  w[0] = op;
  w[1] = algo;
  w[2] = l->channels;
  w[3] = l->pcie;
  w[4] = l->nvls;
  w[5] = (guint32) eff;
  w[6] = (guint32) (eff >> 32);
  w[7] = l->n_nodes;
  for (guint k = 0; k < l->n_nodes; k++)
    w[8 + k] = l->nodes[k].n;
  key.len = m->shape_words->len;
  key.words = w;
  key.hash = 2166136261u;
  for (guint i = 0; i < key.len; i++)
    key.hash = (key.hash ^ w[i]) * 16777619u;
  e = g_hash_table_lookup (m->shapes, &key);
  if (e != NULL)
    t = e->plan;
  else
    {
      Layout shape = *l;
      for (guint k = 0; k < l->n_nodes; k++)
        {
          x->shape_nodes[k] = l->nodes[k];
          x->shape_nodes[k].gpus = x->iota + (l->nodes[k].gpus - l->gpus);
        }
      shape.nodes = x->shape_nodes;
      shape.gpus = x->iota;
      t = built = plan_build_on (m, op, algo, &shape, NULL);
      if (m->shape_flows + built->flows->len <= SHAPE_CACHE_FLOWS)
        {
          e = g_new0 (ShapeEntry, 1);
          e->key = key;
          e->key.words = g_memdup2 (w, key.len * sizeof (guint32));
          e->plan = built;
          g_hash_table_add (m->shapes, e);
          m->shape_flows += built->flows->len;
          built = NULL;
        }
    }
  /* Merged as routing would merge it (plan_route()), with what it needs
   * to be put back apart. */
  merge = merge && built == NULL;
  if (merge)
    {
      if (e->merged == NULL)
        {
          guint n_merged;
          e->merged = premerge (e->plan, &n_merged);
          e->merged->n_premerged = n_merged;
          m->shape_flows += e->merged->flows->len;
        }
      t = e->merged;
    }
  /* The plan kept was never registered: a copy is a plan just built (into
   * a spare one's arrays, if any). */
  if (m->spare->len > 0)
    {
      GArray *flows, *paths;
      SimMaxminId *entries;
      guint32 entries_alloc, flows_room;
      p = g_ptr_array_steal_index_fast (m->spare, m->spare->len - 1);
      flows = p->flows;
      flows_room = p->flows_room;
      paths = p->paths;
      entries = p->entries;
      entries_alloc = p->entries_alloc;
      *p = *t;
      p->flows = flows;
      p->flows_room = flows_room;
      p->paths = paths;
      p->entries = entries;
      p->entries_alloc = entries_alloc;
      p->n_entries = 0;
    }
  else
    {
      p = g_memdup2 (t, sizeof *t);
      p->flows = g_array_sized_new (FALSE, FALSE, sizeof (PlanFlow), t->flows->len);
      p->paths = NULL;
      plan_no_entries (p);
    }
  /* A kept plan's shares stay its shape's; a plan built and not kept
   * hands its own over. */
  p->own_fixed = built != NULL;
  if (built != NULL)
    built->own_fixed = FALSE;
  p->shape = built == NULL ? e : NULL;
  if (merge)
    {
      p->unmerged = e->plan;
      p->gpus = g_memdup2 (l->gpus, l->n_gpus * sizeof (guint32));
    }
  copy_renamed (p, t->flows, l->gpus);
  plan_free (built);
  return p;
}

/* Puts the flows of @p, built merged, back apart: the shape's plan's,
 * renamed as when built. */
static void
plan_unmerge (Plan *p)
{
  copy_renamed (p, p->unmerged->flows, p->gpus);
  p->unmerged = NULL;
  g_clear_pointer (&p->gpus, g_free);
  p->n_premerged = 0;
}

/* Adds @delta to the load of every resource of @p's first @n_flows flows
 * (PLAN_ALL_FLOWS: all of them), under adaptive routing only: elsewhere
 * not even the flows' array is read (a job's plans are cold by the time
 * it ends). */
#define PLAN_ALL_FLOWS G_MAXUINT

static void
plan_load (SimCommModel *m, Plan *p, guint n_flows, gint delta)
{
  if (m->load == NULL || p->paths == NULL)
    return;
  n_flows = MIN (n_flows, p->flows->len);
  for (guint i = 0; i < n_flows; i++)
    {
      const PlanFlow *f = &g_array_index (p->flows, PlanFlow, i);
      for (guint k = 0; k < f->path_len; k++)
        m->load[g_array_index (p->paths, guint32, f->path_start + k)] += (guint32) delta;
    }
}

/* Sets @p's latencies from its slowest routes between nodes and inside one. */
static void
plan_set_latency (Plan *p, SimTime slowest, SimTime slowest_intra)
{
  double intra_excess;

  p->net_latency = sim_time_to_seconds (slowest);
  intra_excess = MAX (0.0, sim_time_to_seconds (slowest_intra) - p->fx->intra_ref);
  for (guint k = 0; k < N_PROTOS; k++)
    {
      p->latency[k] = p->fx->sw_latency[k] < 0 ? -1
                      : p->fx->sw_latency[k] + p->fx->net_terms[k] * p->net_latency
                        + p->fx->intra_terms[k] * intra_excess;
      p->step_intra[k] = p->fx->sw_intra[k] + p->fx->route_x_intra[k] * intra_excess;
      p->step_inter[k] = p->fx->sw_inter[k] + p->fx->route_x_inter[k] * p->net_latency;
    }
}

static gboolean plan_route (SimCommModel *m, Plan *p, guint64 seed, GError **error);

/* Makes the open-addressing table *@table (of @elem-byte slots, each in
 * use only when its stamp is *@stamp, zero-filled slots being free) ready
 * for @n entries: at least twice as many slots, a power of two, all free
 * by a new stamp.  Returns the mask of its slots. */
static guint32
stamped_table (gpointer table, guint32 *alloc, guint32 *stamp, gsize elem, guint n)
{
  gpointer *t = table;
  guint32 size = 16;

  while (size < 2 * n)
    size *= 2;
  if (*alloc < size)
    {
      g_free (*t);
      *t = g_malloc0 (size * elem);
      *alloc = size;
      *stamp = 0;
    }
  if (++*stamp == 0)
    {
      memset (*t, 0, *alloc * elem);
      *stamp = 1;
    }
  return size - 1;
}

/* Whether two flows of a plan are routed the same (plan_route() points
 * the flows after the first between two GPUs at the first one's route,
 * when it depends on them alone) with the same shares. */
static gboolean
same_route (const PlanFlow *a, const PlanFlow *b)
{
  return a->path_start == b->path_start && a->path_len == b->path_len
         && a->share == b->share;
}

/* Groups @p's routed flows that share a route (same_route()) and their
 * shares: each flow's first is the first flow of its group, and
 * m->group_count[i] the size of the group of which flow i is the first.
 * A ring's channels share most of their hops inside a node, so a ring over
 * eight GPUs per node has about a quarter as many groups as flows.  The
 * flows of a group are registered as one solver entry (plan_register()):
 * they are routed the same, start unfixed and have no cap or the same, so
 * max-min gives them one rate, and sim_maxmin_add_flows() gives it to the
 * last bit, every flow of the model having weight 1. */
static void
plan_group (SimCommModel *m, const Plan *p)
{
  guint n = p->flows->len, places = p->paths != NULL ? p->paths->len + 1 : 1;
  guint32 *seen;

  if (m->group_count_alloc < n)
    {
      m->group_count_alloc = MAX (n, 2 * m->group_count_alloc);
      m->group_count = g_renew (guint32, m->group_count, m->group_count_alloc);
      m->group_next = g_renew (guint32, m->group_next, m->group_count_alloc);
    }
  /* The groups' first flows, listed by where their route starts in the
   * plan's paths (each place: a stamp and the first of its list; flows
   * between the same two GPUs point at one route, plan_route()). */
  if (m->group_seen_alloc < places)
    {
      g_free (m->group_seen);
      m->group_seen_alloc = MAX (places, 2 * m->group_seen_alloc);
      m->group_seen = g_new0 (guint32, 2 * (gsize) m->group_seen_alloc);
      m->group_stamp = 0;
    }
  if (++m->group_stamp == 0)
    {
      memset (m->group_seen, 0, 2 * (gsize) m->group_seen_alloc * sizeof (guint32));
      m->group_stamp = 1;
    }
  seen = m->group_seen;
  for (guint i = 0; i < n; i++)
    {
      PlanFlow *f = &g_array_index (p->flows, PlanFlow, i);
      guint32 *place = &seen[2 * f->path_start], *link;

      f->first = i;
      m->group_count[i] = f->count;
      m->group_next[i] = G_MAXUINT32;
      if (place[0] != m->group_stamp)
        {
          place[0] = m->group_stamp;
          place[1] = i;
          continue;
        }
      for (link = &place[1];; link = &m->group_next[*link])
        {
          guint32 g = *link;
          if (same_route (&g_array_index (p->flows, PlanFlow, g), f))
            {
              /* A solver entry stands for at most G_MAXUINT16 flows: past
               * that, this flow starts the group's next entry, in its
               * place. */
              if (m->group_count[g] + f->count > G_MAXUINT16)
                {
                  m->group_next[i] = m->group_next[g];
                  *link = i;
                }
              else
                {
                  f->first = g;
                  m->group_count[g] += f->count;
                }
              break;
            }
          if (m->group_next[g] == G_MAXUINT32)
            {
              m->group_next[g] = i;
              break;
            }
        }
    }
}

/* Sets RES_PRIVATE on each resource in @node (@on), or clears it. */
static void
node_res_mark (SimCommModel *m, guint32 node, gboolean on)
{
  const guint64 all = G_GUINT64_CONSTANT (0x0101010101010101) * RES_PRIVATE;
  guint8 set = on ? RES_PRIVATE : 0;

  for (guint32 i = m->node_run_start[node]; i < m->node_run_start[node + 1]; i++)
    {
      guint32 r = m->node_runs[2 * i], end = m->node_runs[2 * i + 1];
      /* (Eight flags at a time, then the rest one by one.) */
      for (; r + 8 <= end; r += 8)
        {
          guint64 w;
          memcpy (&w, &m->res_flags[r], sizeof w);
          w = on ? w | all : w & ~all;
          memcpy (&m->res_flags[r], &w, sizeof w);
        }
      for (; r < end; r++)
        m->res_flags[r] = (m->res_flags[r] & (guint8) ~RES_PRIVATE) | set;
    }
}

/* Lists each node's resources (once), in runs of consecutive numbers,
 * and marks those of the nodes private now: each resource of a link with
 * an end in a node (the links inside it, and its NICs' links to their
 * switches) lies in that node; the others (between switches, and
 * spraying's pools) in none. */
static void
res_nodes (SimCommModel *m)
{
  guint n_links = sim_topology_get_n_links (m->topology);
  guint32 *node_of;

  if (m->res_nodes_set)
    return;
  m->res_nodes_set = TRUE;
  node_of = g_new (guint32, MAX (m->n_res, 1));
  m->node_run_start = g_new0 (guint32, m->n_nodes + 2);
  for (guint r = 0; r < m->n_res; r++)
    {
      gint node = -1;
      if (r < 2 * n_links)
        {
          const SimLink *l = sim_topology_get_link (m->topology, r / 2);
          node = sim_topology_get_vertex_node (m->topology, l->a);
          if (node < 0)
            node = sim_topology_get_vertex_node (m->topology, l->b);
        }
      node_of[r] = node >= 0 && (guint) node < m->n_nodes ? (guint32) node : G_MAXUINT32;
      /* (A run starts where the node changes; counted one place on.) */
      if (node_of[r] != G_MAXUINT32 && (r == 0 || node_of[r - 1] != node_of[r]))
        m->node_run_start[node_of[r] + 2]++;
    }
  /* (Summed, each node's start one place on, which filling moves back to
   * where it belongs.) */
  for (guint n = 0; n < m->n_nodes; n++)
    m->node_run_start[n + 2] += m->node_run_start[n + 1];
  m->node_runs = g_new (guint32, 2 * MAX (m->node_run_start[m->n_nodes + 1], 1));
  for (guint r = 0; r < m->n_res; r++)
    if (node_of[r] != G_MAXUINT32)
      {
        guint32 *at = &m->node_run_start[node_of[r] + 1];
        if (r == 0 || node_of[r - 1] != node_of[r])
          {
            m->node_runs[2 * *at] = r;
            (*at)++;
          }
        m->node_runs[2 * (*at - 1) + 1] = r + 1;
      }
  g_free (node_of);
  for (guint n = 0; n < m->n_nodes; n++)
    if (m->private_node[n])
      node_res_mark (m, n, TRUE);
}

/* Whether resource @r lies in a node marked private (once res_nodes() has
 * run). */
static inline gboolean
is_private (const SimCommModel *m, guint32 r)
{
  return (m->res_flags[r] & RES_PRIVATE) != 0;
}

/* The cap of @f under a demand of @message_rate messages a second
 * (sim_comm_model_set_demand()): its bytes per message at that rate. */
static double
demand_cap (const Plan *p, const PlanFlow *f, double message_rate)
{
  double share = 0;

  for (guint ph = 0; ph < MAX_PHASES; ph++)
    share += FLOW_SHARE (p, f)[ph];
  return message_rate > 0 && isfinite (message_rate) && share > 0 ? share * message_rate
                                                                  : INFINITY;
}

/* @f's rate as of the last solve, as the solver gives it, for a flow of
 * @p's kept out of it (Plan.n_zero) too: its cap then, or 0 if not yet
 * solved. */
static inline double
flow_rate (const SimCommModel *m, const Plan *p, const PlanFlow *f)
{
  if (f->flow != SIM_MAXMIN_NO_ID)
    return sim_maxmin_get_rate (m->sys, f->flow);
  return p->zero_new ? 0 : demand_cap (p, f, p->zero_demand);
}

/* The plan registered as @id, or NULL (PlanSlot). */
static inline Plan *
plan_of (const SimCommModel *m, guint id)
{
  const PlanSlot *s = &m->plan_slots[id % PLAN_SLOTS];

  /* (Id 0 is never registered: a job's collective left out holds it.) */
  if (id == 0)
    return NULL;
  if (s->id == id)
    return s->plan;
  return g_hash_table_lookup (m->plans, GUINT_TO_POINTER (id));
}

/* Lists @p, with flows out of the solver, for the next model_solve(). */
static void
zero_list (SimCommModel *m, Plan *p)
{
  if (!p->zero_listed)
    {
      p->zero_listed = TRUE;
      g_ptr_array_add (m->zero_plans, p);
    }
}

/* How many flows ahead plan_register_entries() asks for the solver's
 * lines a flow will write. */
#define REGISTER_AHEAD 4

/* Registers the routed and grouped @p's entries on the solver (with
 * m->group_count the size of each group), leaving out its private
 * resources when the model prunes.  Each first flow of a group's
 * resources in the solver are gathered once, in one pass (m->slots, from
 * m->slot_start[i]), which the asking ahead and the adding then read: a
 * flow's resources, tested one by one, were walked three times. */
static void
plan_register_entries (SimCommModel *m, Plan *p)
{
  gboolean prune = m->prune && p->routes_fixed && m->load == NULL;
  guint n_flows = p->flows->len;
  const PlanFlow *flows = (const PlanFlow *) (gpointer) p->flows->data;
  const guint32 *paths = (const guint32 *) (gpointer) p->paths->data;
  guint32 *start;
  guint32 *slots;
  guint32 n_slots = 0;

  model_resources (m);
  if (prune)
    res_nodes (m);
  p->pruned = prune;
  m->n_pruned += prune;
  m->pruned_stale = TRUE;
  p->n_entries = 0;
  if (p->entries_alloc < n_flows)
    {
      p->entries_alloc = MAX (n_flows, 2 * p->entries_alloc);
      p->entries = g_renew (SimMaxminId, p->entries, p->entries_alloc);
    }
  if (m->slot_start_alloc < n_flows + 1)
    {
      m->slot_start_alloc = MAX (n_flows + 1, 2 * m->slot_start_alloc);
      m->slot_start = g_renew (guint32, m->slot_start, m->slot_start_alloc);
    }
  start = m->slot_start;
  slots = m->slots;
  /* (Its private resources left out: see sim__comm_model_set_prune().)
   * A resource's solver slot is its number. */
  for (guint i = 0; i < n_flows; i++)
    {
      const PlanFlow *f = &flows[i];
      const guint32 *path = paths + f->path_start;
      start[i] = n_slots;
      if (f->first != i)
        continue;
      /* (Groups with different shares may share a route: room for each.) */
      if (m->slots_alloc < n_slots + f->path_len)
        {
          m->slots_alloc = MAX (n_slots + f->path_len, 2 * m->slots_alloc);
          m->slots = g_renew (guint32, m->slots, m->slots_alloc);
        }
      slots = m->slots;
      if (!prune)
        {
          memcpy (slots + n_slots, path, f->path_len * sizeof (guint32));
          n_slots += f->path_len;
        }
      else
        for (guint k = 0; k < f->path_len; k++)
          {
            slots[n_slots] = path[k];
            n_slots += !is_private (m, path[k]);
          }
    }
  start[n_flows] = n_slots;
  /* The first flows' lines asked for before the first is added. */
  for (guint j = 0; m->prefetch && j < REGISTER_AHEAD && j < n_flows; j++)
    if (start[j + 1] > start[j])
      sim__maxmin_prefetch_at (m->sys, slots + start[j], start[j + 1] - start[j]);
  for (guint i = 0; i < n_flows; i++)
    {
      PlanFlow *f = &g_array_index (p->flows, PlanFlow, i);
      guint n = start[i + 1] - start[i];
      /* The resources' lines REGISTER_AHEAD flows on, asked for now: their
       * misses overlap this flow's (a hint, which changes nothing); half as
       * far on, once those lines are in, where the lists kept apart from
       * them (an oversubscribed uplink's) take their next entry. */
      if (m->prefetch)
        {
          /* (Most flows of a job holding its nodes whole have no
           * resource in the solver: nothing to ask for.) */
          guint j = i + REGISTER_AHEAD, h = i + REGISTER_AHEAD / 2;
          if (j < n_flows && start[j + 1] > start[j])
            sim__maxmin_prefetch_at (m->sys, slots + start[j], start[j + 1] - start[j]);
          if (h < n_flows && start[h + 1] > start[h])
            sim__maxmin_prefetch_lists_at (m->sys, slots + start[h], start[h + 1] - start[h]);
        }
      if (m->load != NULL)
        {
          const guint32 *path = paths + f->path_start;
          for (guint k = 0; k < f->path_len; k++)
            m->load[path[k]]++;
        }
      if (f->first != i)
        {
          f->flow = g_array_index (p->flows, PlanFlow, f->first).flow;
          continue;
        }
      /* With none left, it stays out of the solver (Plan.n_zero). */
      if (prune && n == 0)
        {
          f->flow = SIM_MAXMIN_NO_ID;
          p->n_zero++;
          m->n_zero++;
          continue;
        }
      f->flow = sim__maxmin_add_flows_at (m->sys, slots + start[i], n, 1.0, INFINITY,
                                          m->group_count[i], p);
      if (f->flow != SIM_MAXMIN_NO_ID)
        p->entries[p->n_entries++] = f->flow;
    }
  /* Uncapped, as the solver's entries start, and new to the next solve. */
  p->demand = INFINITY;
  if (p->n_zero > 0)
    {
      p->zero_new = TRUE;
      zero_list (m, p);
    }
  p->registered = TRUE;
}

/* Registers @p's flows on their routes (plan_route(), which sets its
 * latency from the slowest route between two nodes, a ring or a tree
 * moving in lockstep so that its slowest hop sets the pace of every step,
 * and from the slowest route inside a node where it is slower than NCCL's
 * intra-node step holds). */
static gboolean
plan_register (SimCommModel *m, Plan *p, guint64 hash_seed, GError **error)
{
  /* Each route is taken on the load with the flows before it on (under
   * adaptive routing), as it is registered. */
  if (!plan_route (m, p, hash_seed, error))
    return FALSE;
  plan_load (m, p, PLAN_ALL_FLOWS, -1);
  plan_group (m, p);
  plan_register_entries (m, p);
  return TRUE;
}

/* sim__comm_model_time_alone()'s arrays per resource (the resources a
 * batch meets), made when first needed. */
static void
bound_arrays (SimCommModel *m)
{
  if (m->bound_seen != NULL)
    return;
  m->bound_seen = g_new0 (guint32, MAX (m->n_res, 1));
  m->bound_res = g_new (guint32, MAX (m->n_res, 1));
  m->n_bound_res = 0;
}

/* Routes @p's flows with @seed (under adaptive routing, each flow's route
 * taken on the load with the flows before it on), without registering
 * them: their resources in p->paths, its latencies set from those routes,
 * and marked routed.  Under adaptive routing the flows stay on the load
 * (plan_load() takes them off); on failure none does. */
/* Whether @m keeps routes across plans (KeptRoute), its table made when
 * first asked. */
static gboolean
kept_routes_on (SimCommModel *m)
{
  guint bits = 10;

  if (m->kept_routes != NULL)
    return TRUE;
  if (m->load != NULL || m->keep_routes == 0
      || (m->keep_routes < 0
          && (m->n_gpus < KEPT_ROUTE_MIN_GPUS || m->n_gpus > KEPT_ROUTE_MAX_GPUS)))
    return FALSE;
  while (bits < 16 && (1u << bits) < 16 * m->n_gpus)
    bits++;
  m->kept_routes = g_aligned_alloc0 (1u << bits, sizeof (KeptRoute), 64);
  m->kept_shift = 64 - bits;
  return TRUE;
}

/* The slot of the route between the GPUs of @key (src << 32 | dst). */
static inline KeptRoute *
kept_slot (const SimCommModel *m, guint64 key)
{
  return &m->kept_routes[(key * 0x9e3779b97f4a7c15ull) >> m->kept_shift];
}

/* Room for @need resources in @paths past its first @used: the array is
 * sized ahead (its length then runs past what is used, until the routes
 * are all in), so that a route is written where it belongs. */
static inline guint32 *
paths_room (GArray *paths, guint used, guint need)
{
  if (paths->len < used + need)
    g_array_set_size (paths, MAX (used + need, 2 * paths->len));
  return &g_array_index (paths, guint32, used);
}

/* Room for a route, written in place; a longer one is asked for again. */
#define ROUTE_ROOM 32

/* The stages of sim__topology_prefetch_route(), and how many flows ahead
 * plan_route() runs each: two flows apart, so that what one asks for is
 * in before the next reads it. */
#define ROUTE_STAGES 4
static const guint route_ahead[ROUTE_STAGES] = { 7, 5, 3, 2 };
#define ROUTE_AHEAD_ALL 64

static gboolean
plan_route (SimCommModel *m, Plan *p, guint64 seed, GError **error)
{
  SimTime slowest = 0, slowest_intra = 0;
  guint32 mask;
  guint merged = 0, used;
  gboolean ahead, keep;
  guint64 cross = ~G_GUINT64_CONSTANT (0);   /* flows that leave their node (of the first 64) */
  guint32 nics[2 * ROUTE_AHEAD_ALL];         /* their NICs, for the last stage */

  if (p->paths == NULL)
    /* (Room for a few resources a flow: most plans never grow it.) */
    p->paths = g_array_sized_new (FALSE, FALSE, sizeof (guint32), 8 * MAX (p->flows->len, 1));
again:
  g_array_set_size (p->paths, 0);
  used = 0;
  p->routed = FALSE;
  p->routes_fixed = TRUE;
  /* A route that depends only on its two GPUs (a ring's channels share
   * most of theirs inside a node) is found once: the flows after the first
   * between the same GPUs point at the first one's resources. */
  mask = stamped_table (&m->routes, &m->routes_alloc, &m->routes_stamp, sizeof (RouteSlot),
                        p->flows->len);
  /* On a network beyond the caches, with no routes kept across plans,
   * what each route reads is asked for ahead, by stages, up to seven flows
   * on (sim__topology_prefetch_route()). */
  keep = kept_routes_on (m);
  ahead = m->prefetch && m->load == NULL && !keep;
  for (guint i = 0; i < p->flows->len; i++)
    {
      PlanFlow *f = &g_array_index (p->flows, PlanFlow, i);
      guint64 key = ((guint64) f->src << 32) | f->dst;
      SimTime lat = 0;
      gboolean fixed = FALSE;
      RouteSlot *slot = NULL;

      /* The first stages of every flow at once, before the first: a
       * plan's GPUs are few, and mostly side by side (which flows leave
       * their node, from the second stage: only those have a last one). */
      for (guint stage = 0; ahead && i == 0 && stage + 1 < ROUTE_STAGES; stage++)
        {
          guint64 c = sim__topology_prefetch_routes (m->topology, &f->src,
                                                     sizeof (PlanFlow) / sizeof (guint32),
                                                     MIN (p->flows->len, ROUTE_AHEAD_ALL),
                                                     stage, nics);
          if (stage == 1)
            cross = c;
        }
      if (ahead)
        {
          /* (The first stages of the first ROUTE_AHEAD_ALL flows were
           * asked for above: most plans have no more.) */
          guint n_flows = p->flows->len, j;
          for (guint stage = 0; n_flows > ROUTE_AHEAD_ALL && stage + 1 < ROUTE_STAGES; stage++)
            if ((j = i + route_ahead[stage]) >= ROUTE_AHEAD_ALL && j < n_flows)
              sim__topology_prefetch_route (m->topology,
                                            g_array_index (p->flows, PlanFlow, j).src,
                                            g_array_index (p->flows, PlanFlow, j).dst, stage);
          j = i + route_ahead[ROUTE_STAGES - 1];
          if (j < n_flows && j >= ROUTE_AHEAD_ALL)
            sim__topology_prefetch_route (m->topology, g_array_index (p->flows, PlanFlow, j).src,
                                          g_array_index (p->flows, PlanFlow, j).dst,
                                          ROUTE_STAGES - 1);
          else if (j < n_flows && (cross >> j & 1))
            /* (From the NICs the second stage found.) */
            sim__topology_prefetch_up (m->topology, nics[2 * j], nics[2 * j + 1]);
        }

      /* The next flow's kept route, asked for now: its miss overlaps this
       * flow's work (a prefetch changes no result). */
      if (m->kept_routes != NULL && i + 1 < p->flows->len)
        {
          const PlanFlow *g = &g_array_index (p->flows, PlanFlow, i + 1);
          guint64 next = ((guint64) g->src << 32) | g->dst;
          __builtin_prefetch (kept_slot (m, next));
        }

      for (guint32 k = (guint32) (key * 0x9e3779b97f4a7c15ull >> 40) & mask;;
           k = (k + 1) & mask)
        {
          slot = &m->routes[k];
          if (slot->stamp != m->routes_stamp || slot->key == key)
            break;
        }
      if (slot->stamp == m->routes_stamp)
        {
          PlanFlow *first = &g_array_index (p->flows, PlanFlow, slot->index);
          f->path_start = first->path_start;
          f->path_len = first->path_len;
          lat = slot->latency;
          /* The same route and shares: the first flow stands for it too
           * (max-min gives both one rate, and every use of a flow weighs
           * it by its count), unless the load counts flows one by one. */
          if (m->load == NULL && !m->no_merge
              && first->share == f->share
              && (guint64) first->count + f->count <= G_MAXUINT16)
            {
              first->count += f->count;
              f->count = 0;
              merged++;
            }
          /* (Its latency is the first's: the slowest ones do not move.) */
          if (m->load == NULL)
            continue;
        }
      else
        {
          guint64 hash = seed * 0x9e3779b97f4a7c15ull ^ ((guint64) f->src << 32)
                         ^ ((guint64) f->dst << 8) ^ f->channel;
          /* A route fixed by its GPUs, as routed for an earlier plan. */
          KeptRoute *kept = keep ? kept_slot (m, key) : NULL;
          guint len;
          f->path_start = used;
          if (kept != NULL && kept->key == key + 1)
            {
              memcpy (paths_room (p->paths, used, kept->len), kept->res,
                      kept->len * sizeof (guint32));
              used += kept->len;
              f->path_len = kept->len;
              lat = kept->latency;
              m->kept_hits++;
              *slot = (RouteSlot) { key, lat, m->routes_stamp, i };
              goto routed;
            }
          if (!sim__topology_route_into (m->topology, f->src, f->src, f->dst, hash, m->load,
                                         paths_room (p->paths, used, ROUTE_ROOM), ROUTE_ROOM,
                                         &len, &lat, &fixed)
              || (len > ROUTE_ROOM
                  && !sim__topology_route_into (m->topology, f->src, f->src, f->dst, hash,
                                                m->load, paths_room (p->paths, used, len), len,
                                                &len, &lat, &fixed)))
            {
              g_array_set_size (p->paths, used);
              plan_load (m, p, i, -1);
              g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                           "GPUs %u and %u are not connected in this topology", f->src, f->dst);
              return FALSE;
            }
          if (len > G_MAXUINT16)
            {
              g_array_set_size (p->paths, used);
              plan_load (m, p, i, -1);
              g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                           "the route from GPU %u to GPU %u crosses %u links, more than %u",
                           f->src, f->dst, len, G_MAXUINT16);
              return FALSE;
            }
          f->path_len = (guint16) len;
          used += len;
          if (fixed && kept != NULL && f->path_len <= KEPT_ROUTE_LEN)
            {
              kept->key = key + 1;
              kept->latency = lat;
              kept->len = f->path_len;
              memcpy (kept->res, &g_array_index (p->paths, guint32, f->path_start),
                      f->path_len * sizeof (guint32));
            }
          if (fixed)
            *slot = (RouteSlot) { key, lat, m->routes_stamp, i };
          else if (p->unmerged != NULL && f->count > 1)
            {
              /* Built merged on routes fixed by their GPUs, which this
               * one is not: apart again, and routed from the start. */
              plan_unmerge (p);
              m->unmerged++;
              slowest = slowest_intra = 0;
              merged = 0;
              goto again;
            }
          else
            p->routes_fixed = FALSE;
        }
    routed:
      if (m->load != NULL)
        for (guint k = 0; k < f->path_len; k++)
          m->load[g_array_index (p->paths, guint32, f->path_start + k)]++;
      if (m->gpu_node[f->src] != m->gpu_node[f->dst])
        slowest = MAX (slowest, lat);
      else
        slowest_intra = MAX (slowest_intra, lat);
    }
  g_array_set_size (p->paths, used);
  /* Built merged, its routes as it assumed: no longer to be put apart. */
  if (p->unmerged != NULL)
    {
      m->merged += p->n_premerged;
      p->unmerged = NULL;
      g_clear_pointer (&p->gpus, g_free);
    }
  m->merged += merged;
  if (merged > 0)
    {
      /* The flows merged into earlier ones go, the others keep their
       * order. */
      guint kept = 0;
      for (guint i = 0; i < p->flows->len; i++)
        if (g_array_index (p->flows, PlanFlow, i).count > 0)
          g_array_index (p->flows, PlanFlow, kept++) = g_array_index (p->flows, PlanFlow, i);
      g_array_set_size (p->flows, kept);
    }
  plan_set_latency (p, slowest, slowest_intra);
  p->routed = TRUE;
  return TRUE;
}

static void
plan_unregister (SimCommModel *m, Plan *p)
{
  if (!p->registered)
    return;
  /* What the entries a few on will read, asked for in three stages: a
   * flow's own line eight entries ahead, then (four entries later) its
   * resources', then (two later) where it sits in those resources' lists
   * kept apart (on an oversubscribed fabric, an uplink's); the first ones'
   * all at once, before the first goes. */
  for (guint i = 0; m->prefetch && i < 8 && i < p->n_entries; i++)
    sim__maxmin_prefetch_remove (m->sys, p->entries[i], FALSE);
  for (guint i = 0; m->prefetch && i < 4 && i < p->n_entries; i++)
    sim__maxmin_prefetch_remove (m->sys, p->entries[i], TRUE);
  for (guint i = 0; m->prefetch && i < 2 && i < p->n_entries; i++)
    sim__maxmin_prefetch_remove_lists (m->sys, p->entries[i]);
  for (guint i = 0; i < p->n_entries; i++)
    {
      if (m->prefetch && i + 8 < p->n_entries)
        sim__maxmin_prefetch_remove (m->sys, p->entries[i + 8], FALSE);
      if (m->prefetch && i + 4 < p->n_entries)
        sim__maxmin_prefetch_remove (m->sys, p->entries[i + 4], TRUE);
      if (m->prefetch && i + 2 < p->n_entries)
        sim__maxmin_prefetch_remove_lists (m->sys, p->entries[i + 2]);
      sim_maxmin_remove_flow (m->sys, p->entries[i]);
    }
  p->n_entries = 0;
  if (p->zero_listed)
    {
      g_ptr_array_remove_fast (m->zero_plans, p);
      p->zero_listed = FALSE;
    }
  m->n_zero -= p->n_zero;
  p->n_zero = 0;
  p->zero_new = FALSE;
  plan_load (m, p, PLAN_ALL_FLOWS, -1);
  p->registered = FALSE;
  m->n_pruned -= p->pruned;
  p->pruned = FALSE;
  m->pruned_stale = TRUE;
}

/* Seconds per byte of message of @p's bandwidth term (Simple), as the
 * solver's current rates give; +infinity if a flow gets nothing. */
/* Solves the touched part of the network and remembers which registered
 * collectives saw a flow change rate (every solve, including those inside
 * sim_comm_model_add() for AUTO), for sim_comm_model_update(). */
/* Lists @p (a plan, or NULL) as touched since sim_comm_model_update(). */
static inline void
model_touch (SimCommModel *m, Plan *p)
{
  if (p != NULL && p->registered && p->id != 0 && p->touched_epoch != m->touch_epoch)
    {
      p->touched_epoch = m->touch_epoch;
      g_array_append_val (m->touched, p->id);
    }
}

static void
model_solve (SimCommModel *m)
{
  const SimMaxminId *changed;
  guint n = 0;

  sim_maxmin_solve (m->sys);
  changed = sim_maxmin_get_changed (m->sys, &n);
  if (n > 0)
    m->pruned_stale = TRUE;
  for (guint i = 0; i < n; i++)
    model_touch (m, sim_maxmin_get_flow_data (m->sys, changed[i]));
  /* The flows out of the solver take their new caps, and are changed
   * where the solver would have said so: new, or moved by more than
   * rounding. */
  for (guint i = 0; i < m->zero_plans->len; i++)
    {
      Plan *p = m->zero_plans->pdata[i];
      gboolean moved = p->zero_new;
      for (guint j = 0; j < p->flows->len && !moved; j++)
        {
          const PlanFlow *f = &g_array_index (p->flows, PlanFlow, j);
          moved = f->first == j && f->flow == SIM_MAXMIN_NO_ID
                  && sim__maxmin_rate_changed (demand_cap (p, f, p->zero_demand),
                                               demand_cap (p, f, p->demand));
        }
      p->zero_new = FALSE;
      p->zero_demand = p->demand;
      p->zero_listed = FALSE;
      if (moved)
        {
          m->pruned_stale = TRUE;
          model_touch (m, p);
        }
    }
  g_ptr_array_set_size (m->zero_plans, 0);
}

static double
plan_seconds_per_byte (SimCommModel *m, const Plan *p)
{
  double worst[MAX_PHASES] = { 0 };

  model_solve (m);
  for (guint i = 0; i < p->flows->len; i++)
    {
      const PlanFlow *f = &g_array_index (p->flows, PlanFlow, i);
      double rate;
      /* A flow grouped with an earlier one (plan_group()) has its route,
       * shares and rate: it changes nothing here. */
      if (f->first != i)
        continue;
      rate = flow_rate (m, p, f);
      for (guint ph = 0; ph < MAX_PHASES; ph++)
        if (FLOW_SHARE (p, f)[ph] > 0)
          worst[ph] = MAX (worst[ph], rate > 0 ? FLOW_SHARE (p, f)[ph] / rate : INFINITY);
    }
  return worst[0] + worst[1] + worst[2];
}

static void
timing_fill (const Plan *p, double spb, guint64 bytes, SimCollectiveTiming *t)
{
  double best = INFINITY;
  gint only = -1;
  SimCollectiveProtocol nccl_proto;

  /* AUTO runs the protocol NCCL chooses for the size; a named algorithm
   * the fastest of its protocols here. */
  if (p->nccl != NULL
      && sim__nccl_choose (p->nccl, MAX (bytes, 1), 1u << p->nccl_algo, NULL, &nccl_proto, NULL)
      && p->latency[nccl_proto] >= 0)
    only = nccl_proto;
  memset (t, 0, sizeof *t);
  t->op = p->op;
  t->algo = p->algo;
  t->bytes = bytes;
  t->protocol = SIM_COLLECTIVE_PROTO_SIMPLE;
  for (guint k = 0; k < N_PROTOS; k++)
    {
      double time, transfer;
      if (p->latency[k] < 0 || (only >= 0 && (gint) k != only))
        continue;
      transfer = (double) bytes * spb / p->fx->bw_factor[k];
      if (p->fx->pipelined && p->fx->n_intra + p->fx->n_inter > 0)
        {
          /* Each step takes its bytes' time or its latency, the longer. */
          double step = transfer / (p->fx->n_intra + p->fx->n_inter);
          time = p->fx->fixed[k] + p->fx->n_intra * MAX (step, p->step_intra[k])
                 + p->fx->n_inter * MAX (step, p->step_inter[k]);
        }
      else
        time = p->latency[k] + transfer;
      if (time < best)
        {
          best = time;
          t->protocol = (SimCollectiveProtocol) k;
          t->latency = p->latency[k];
        }
    }
  t->time = best;
  t->bandwidth = spb > 0 ? p->fx->bw_factor[t->protocol] / spb : INFINITY;
  t->algbw = best > 0 ? (double) bytes / best : 0;
  t->busbw = t->algbw * sim_collective_busbw_factor (p->op, p->n_gpus);
}

/* NCCL's GPU generation from a GPU model's name: V100 Volta, A100 and
 * the other Ampere and Ada parts (compute capability 8.x) Ampere, H100,
 * H200, H800, H20 and GH200 Hopper, B200, B300 and GB200 Blackwell; other
 * GPUs (NVIDIA's older, other vendors') take Ampere's constants. */
static SimNcclArch
nccl_arch (const char *gpu)
{
  if (gpu == NULL)
    return SIM_NCCL_AMPERE;
  if (g_str_has_prefix (gpu, "V100"))
    return SIM_NCCL_VOLTA;
  if (g_str_has_prefix (gpu, "H1") || g_str_has_prefix (gpu, "H2") || g_str_has_prefix (gpu, "H8")
      || g_str_has_prefix (gpu, "GH"))
    return SIM_NCCL_HOPPER;
  if ((gpu[0] == 'B' && g_ascii_isdigit (gpu[1])) || g_str_has_prefix (gpu, "GB"))
    return SIM_NCCL_BLACKWELL;
  return SIM_NCCL_AMPERE;
}

/* Bytes/s a link model carries, its efficiency counted. */
static double
link_rate (const SimLinkModel *link)
{
  return link->bandwidth * (link->efficiency > 0 ? link->efficiency : 1);
}

/* What NCCL's tuning reads of the communicator of @op on @l (its slowest
 * node for each figure):
 * - bw_intra: a GPU's bandwidth to its node's other GPUs, the node's
 *   intra-node link model (NVLink, or PCIe) or else the GPU's scale-up
 *   bandwidth;
 * - bw_inter: a node's NICs, as many as it has GPUs in the collective at
 *   most (each GPU's rings leave by the NIC nearest to it);
 * - channels: two per NIC used across nodes (NCCL duplicates a searched
 *   graph's channels when each keeps enough bandwidth), 16 inside one
 *   NVLink node, 2 over PCIe; NVLS 16 on Hopper, 24 on one and 32 on
 *   several Blackwell nodes (src/transport/nvls.cc);
 * - collnet: off, as NCCL_COLLNET_ENABLE is by default (CollNet needs it
 *   and the SHARP plugin, whatever the switches can do); NVLS across
 *   nodes then becomes NCCL's NVLS tree. */
static const NodeTraits *
node_traits (SimCommModel *m, const SimNodeModel *model)
{
  NodeTraits *t = &m->traits;

  if (t->model != model)
    {
      const char *cpu = model->cpu != NULL ? model->cpu : "";
      t->model = model;
      t->arch = nccl_arch (model->gpu_name);
      t->nvswitch = model->intra_node != NULL && strcmp (model->intra_node, "nvswitch") == 0;
      t->amd = strstr (cpu, "AMD") != NULL || strstr (cpu, "EPYC") != NULL;
      t->arm = strstr (cpu, "Grace") != NULL || strstr (cpu, "Arm") != NULL
               || strstr (cpu, "Neoverse") != NULL;
    }
  return t;
}

static void
nccl_shape (SimCommModel *m, const Layout *l, SimCollectiveOp op, SimNcclShape *s)
{
  double intra = INFINITY, inter = INFINITY;
  guint nics = G_MAXUINT;
  SimNcclArch arch = SIM_NCCL_BLACKWELL;
  gboolean nvswitch = TRUE, amd = FALSE, arm = FALSE;

  memset (s, 0, sizeof *s);
  for (guint k = 0; k < l->n_nodes; k++)
    {
      const SimNodeModel *model = l->nodes[k].model;
      const SimLinkModel *link = l->pcie ? model->pcie_link : model->intra_link;
      const NodeTraits *tr;
      double gpu_rate;
      if (k > 0 && model == l->nodes[k - 1].model && l->nodes[k].n == l->nodes[k - 1].n)
        continue;
      tr = node_traits (m, model);
      arch = MIN (arch, tr->arch);
      nvswitch = nvswitch && tr->nvswitch;
      amd = amd || tr->amd;
      arm = arm || tr->arm;
      gpu_rate = link != NULL ? link_rate (link)
                 : model->gpu != NULL ? model->gpu->scaleup_bandwidth : 0;
      if (gpu_rate > 0)
        intra = MIN (intra, gpu_rate);
      if (l->n_nodes > 1)
        {
          guint used = MIN (model->nics, l->nodes[k].n);
          double nic = model->nic_link != NULL ? link_rate (model->nic_link) : model->nic_bandwidth;
          inter = MIN (inter, MAX (used, 1u) * nic);
          nics = MIN (nics, MAX (used, 1u));
        }
    }
  if (!(intra < INFINITY))
    intra = inter < INFINITY ? inter : 1e9;
  s->op = op;
  s->n_ranks = l->n_gpus;
  s->n_nodes = l->n_nodes;
  s->arch = arch;
  s->nvlink = !l->pcie;
  s->nvswitch = nvswitch;
  s->nvls = l->nvls && l->min_ppn >= 2 && l->min_ppn == l->max_ppn;
  s->collnet = FALSE;
  s->amd_cpu = amd;
  s->arm_cpu = arm;
  s->channels = l->n_nodes > 1 ? CLAMP (2 * nics, 2u, 32u) : l->pcie ? 2 : 16;
  s->nvls_channels = arch >= SIM_NCCL_BLACKWELL ? (l->n_nodes > 1 ? 32 : 24) : 16;
  s->bw_intra = intra / 1e9;
  s->bw_inter = l->n_nodes > 1 ? inter / 1e9 : s->bw_intra;
}

static guint
nccl_shape_hash (gconstpointer key)
{
  /* FNV-1a over the shape's 32-bit words (it is made of them, padding
   * zeroed), a fourth of the steps of going byte by byte. */
  const guint8 *b = key;
  guint h = 2166136261u;
  G_STATIC_ASSERT (sizeof (SimNcclShape) % sizeof (guint32) == 0);
  for (gsize i = 0; i < sizeof (SimNcclShape); i += sizeof (guint32))
    {
      guint32 w;
      memcpy (&w, b + i, sizeof w);
      h = (h ^ w) * 16777619u;
    }
  return h ^ (h >> 15);
}

static gboolean
nccl_shape_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (SimNcclShape)) == 0;
}

/* NCCL's table for @op on @l, tuned once per communicator shape and kept
 * (the shape, whose padding nccl_shape() zeroes, is the key: operation,
 * GPU and node counts, generation, interconnect, NVLS, CPUs, channels and
 * bandwidths), as NCCL tunes once per communicator. */
static const SimNcclTable *
nccl_table (SimCommModel *m, const Layout *l, SimCollectiveOp op)
{
  SimNcclShape shape;
  SimNcclTable *t;
  SimNcclShape *key;

  nccl_shape (m, l, op, &shape);
  if (m->nccl_tables == NULL)
    m->nccl_tables = g_hash_table_new_full (nccl_shape_hash, nccl_shape_equal, g_free, g_free);
  t = g_hash_table_lookup (m->nccl_tables, &shape);
  if (t != NULL)
    return t;
  t = g_new (SimNcclTable, 1);
  sim__nccl_tune (&shape, t);
  key = g_memdup2 (&shape, sizeof shape);
  g_hash_table_insert (m->nccl_tables, key, t);
  return t;
}

/* The algorithms of NCCL's that AUTO may choose: those a plan of this
 * model runs as NCCL does.  Ring and tree; NVLS inside one node.  Not
 * NVLS tree: the plan NVLS has across nodes (build_hierarchical()) runs
 * its in-switch reduction, the nodes' exchange and the multicast one
 * after the other, where NCCL's NVLS tree pipelines them and joins the
 * nodes by trees, so AUTO chooses across nodes as NCCL does with NVLS
 * tree disabled (NCCL_ALGO=^NVLSTree).  Not PAT either (all-gather and
 * reduce-scatter with one GPU per node), which has no plan here.  CollNet
 * is never enabled (nccl_shape()). */
static guint
nccl_mask (SimCollectiveOp op, const Layout *l)
{
  guint mask = 1u << SIM_NCCL_RING;

  if (op == SIM_COLLECTIVE_ALL_REDUCE)
    {
      mask |= 1u << SIM_NCCL_TREE;
      if (l->n_nodes == 1 && algo_allowed (op, SIM_COLLECTIVE_ALGO_NVLS, l, NULL))
        mask |= 1u << SIM_NCCL_NVLS;
    }
  return mask;
}

/* NCCL's algorithm behind a plan of @algo on @l, whose protocol NCCL's
 * tuning chooses by size (as it does when NCCL_ALGO names the algorithm),
 * or SIM_NCCL_N_ALGOS for the plans NCCL has no such algorithm for
 * (hierarchical, direct), which take their fastest protocol. */
static SimNcclAlgo
nccl_of (SimCollectiveAlgo algo, const Layout *l)
{
  switch (algo)
    {
    case SIM_COLLECTIVE_ALGO_RING:
      return SIM_NCCL_RING;
    case SIM_COLLECTIVE_ALGO_TREE:
      return SIM_NCCL_TREE;
    case SIM_COLLECTIVE_ALGO_NVLS:
      return l->n_nodes == 1 ? SIM_NCCL_NVLS : SIM_NCCL_NVLS_TREE;
    case SIM_COLLECTIVE_ALGO_AUTO:
    case SIM_COLLECTIVE_ALGO_HIERARCHICAL:
    case SIM_COLLECTIVE_ALGO_DIRECT:
    default:
      return SIM_NCCL_N_ALGOS;
    }
}

static SimCollectiveAlgo
nccl_to_algo (SimNcclAlgo a)
{
  switch (a)
    {
    case SIM_NCCL_TREE:
      return SIM_COLLECTIVE_ALGO_TREE;
    case SIM_NCCL_NVLS:
    case SIM_NCCL_NVLS_TREE:
      return SIM_COLLECTIVE_ALGO_NVLS;
    case SIM_NCCL_RING:
    case SIM_NCCL_PAT:
    case SIM_NCCL_COLLNET_DIRECT:
    case SIM_NCCL_COLLNET_CHAIN:
    case SIM_NCCL_N_ALGOS:
    default:
      return SIM_COLLECTIVE_ALGO_RING;
    }
}

/* AUTO's choice for @op of @bytes on @l: NCCL's, from its tuning of the
 * communicator's shape, among the algorithms it has plans for; the
 * point-to-point operations are direct (NCCL's send and receive).
 * @table and @nccl (nullable) receive NCCL's table and algorithm, NULL
 * for direct. */
static SimCollectiveAlgo
auto_choose (SimCommModel *m, const Layout *l, SimCollectiveOp op, guint64 bytes,
             const SimNcclTable **table, SimNcclAlgo *nccl, SimCollectiveProtocol *protocol)
{
  const SimNcclTable *t;
  SimNcclAlgo a = SIM_NCCL_RING;
  SimCollectiveProtocol p = SIM_COLLECTIVE_PROTO_SIMPLE;

  if (table != NULL)
    *table = NULL;
  if (op == SIM_COLLECTIVE_ALL_TO_ALL || op == SIM_COLLECTIVE_SEND_RECV)
    {
      if (nccl != NULL)
        *nccl = SIM_NCCL_N_ALGOS;
      if (protocol != NULL)
        *protocol = p;
      return SIM_COLLECTIVE_ALGO_DIRECT;
    }
  t = nccl_table (m, l, op);
  {
    /* The ring is always there: NCCL never finds nothing.  The choice is
     * a function of the table, the size and the mask: kept. */
    guint mask = nccl_mask (op, l);
    guint64 b = MAX (bytes, 1);
    ChoiceSlot *c = &m->choices[(((guint64) GPOINTER_TO_SIZE (t) >> 4) ^ b ^ ((guint64) mask << 7))
                                * 0x9e3779b97f4a7c15ull >> 58];
    if (c->table == t && c->bytes == b && c->mask == mask)
      {
        a = c->algo;
        p = c->protocol;
      }
    else
      {
        sim__nccl_choose (t, b, mask, &a, &p, NULL);
        *c = (ChoiceSlot) { t, b, mask, a, p };
      }
  }
  if (table != NULL)
    *table = t;
  if (nccl != NULL)
    *nccl = a;
  if (protocol != NULL)
    *protocol = p;
  return nccl_to_algo (a);
}

/* The model of the node that holds all @n GPUs of @gpus, each once, or
 * NULL (GPUs of several nodes, one out of range or listed twice, or more
 * than INSIDE_CHOICE_GPUS of them). */
#define INSIDE_CHOICE_GPUS 16

static const SimNodeModel *
inside_model (const SimCommModel *m, const guint32 *gpus, guint n)
{
  guint total = sim_cluster_get_n_gpus (m->cluster);
  guint32 node;

  if (n < 2 || n > INSIDE_CHOICE_GPUS || gpus[0] >= total)
    return NULL;
  node = m->gpu_node[gpus[0]];
  for (guint i = 1; i < n; i++)
    {
      if (gpus[i] >= total || m->gpu_node[gpus[i]] != node)
        return NULL;
      for (guint j = 0; j < i; j++)
        if (gpus[j] == gpus[i])
          return NULL;
    }
  return sim_cluster_get_node (m->cluster, node)->model;
}

gboolean
sim__comm_model_choose (SimCommModel *m, SimCollectiveOp op, guint64 bytes, const guint32 *gpus,
                        guint n, SimCollectiveAlgo *algo, SimNcclAlgo *nccl,
                        SimCollectiveProtocol *protocol, GError **error)
{
  InsideChoice *c = &m->inside_choice;
  const SimNodeModel *inside;
  Layout l;

  g_return_val_if_fail (m != NULL, FALSE);
  g_return_val_if_fail (gpus != NULL || n == 0, FALSE);
  /* Inside one node, NCCL's choice depends on the node's model, the GPU
   * count, the operation and the size alone (nccl_shape(), nccl_mask()):
   * the choice before, where those are the same (the groups of a job, and
   * jobs of a node after one another), is taken again. */
  inside = inside_model (m, gpus, n);
  if (inside == NULL || c->model != inside || c->n != n || c->op != op || c->bytes != bytes)
    {
      if (!layout_init (m, &l, gpus, n, error))
        return FALSE;
      c->algo = auto_choose (m, &l, op, bytes, NULL, &c->nccl, &c->protocol);
      c->model = inside;
      c->n = n;
      c->op = op;
      c->bytes = bytes;
    }
  if (algo != NULL)
    *algo = c->algo;
  if (nccl != NULL)
    *nccl = c->nccl;
  if (protocol != NULL)
    *protocol = c->protocol;
  return TRUE;
}

guint64
sim__comm_model_get_solves (const SimCommModel *m)
{
  SimMaxminStats st;
  guint64 n;

  g_return_val_if_fail (m != NULL, 0);
  sim_maxmin_get_stats (m->sys, &st);
  n = st.solves + m->direct;
  if (m->alone_sys != NULL)
    {
      sim_maxmin_get_stats (m->alone_sys, &st);
      n += st.solves;
    }
  return n;
}

void
sim__comm_model_set_merge (SimCommModel *m, gboolean merge)
{
  g_return_if_fail (m != NULL);
  m->no_merge = !merge;
}

void
sim__comm_model_set_keep_routes (SimCommModel *m, gboolean keep)
{
  g_return_if_fail (m != NULL);
  m->keep_routes = keep ? 1 : 0;
}

void
sim__comm_model_set_prefetch (SimCommModel *m, gboolean prefetch)
{
  g_return_if_fail (m != NULL);
  m->prefetch = prefetch != FALSE;
}

guint64
sim__comm_model_get_kept_hits (const SimCommModel *m)
{
  g_return_val_if_fail (m != NULL, 0);
  return m->kept_hits;
}

void
sim__comm_model_set_premerge (SimCommModel *m, gboolean premerge)
{
  g_return_if_fail (m != NULL);
  m->no_premerge = !premerge;
}

guint64
sim__comm_model_get_unmerged (const SimCommModel *m)
{
  g_return_val_if_fail (m != NULL, 0);
  return m->unmerged;
}

guint64
sim__comm_model_get_merged (const SimCommModel *m)
{
  g_return_val_if_fail (m != NULL, 0);
  return m->merged;
}

void
sim__comm_model_set_prune (SimCommModel *m, gboolean prune)
{
  g_return_if_fail (m != NULL);
  m->prune = prune;
}

void
sim__comm_model_set_node_private (SimCommModel *m, guint32 node, gboolean is_private)
{
  g_return_if_fail (m != NULL && node < m->n_nodes);
  if (m->res_nodes_set && (m->private_node[node] != 0) != (is_private != FALSE))
    node_res_mark (m, node, is_private);
  m->private_node[node] = is_private != FALSE;
}

gboolean
sim__comm_model_is_pruned (SimCommModel *m, guint id)
{
  const Plan *p;

  g_return_val_if_fail (m != NULL, FALSE);
  p = plan_of (m, id);
  return p != NULL && p->pruned;
}

gboolean
sim__comm_model_unprune (SimCommModel *m, guint id)
{
  Plan *p;
  gboolean prune;

  g_return_val_if_fail (m != NULL, FALSE);
  p = plan_of (m, id);
  if (p == NULL || !p->pruned)
    return FALSE;
  /* Registered again on its whole routes, under its id (its routes are
   * fixed: the same ones). */
  plan_unregister (m, p);
  prune = m->prune;
  m->prune = FALSE;
  if (!plan_register (m, p, id, NULL))
    g_assert_not_reached ();
  m->prune = prune;
  return TRUE;
}

guint
sim__comm_model_get_kept_out (const SimCommModel *m)
{
  g_return_val_if_fail (m != NULL, 0);
  return m->n_zero;
}

void
sim__comm_model_set_alone_direct (SimCommModel *m, gboolean direct)
{
  g_return_if_fail (m != NULL);
  m->no_direct = !direct;
}

void
sim__comm_model_set_alone_table (SimCommModel *m, gboolean table)
{
  g_return_if_fail (m != NULL);
  m->alone_table = table;
  /* (Numbered afresh from the next batch on.) */
  g_clear_pointer (&m->direct_index, g_free);
  g_clear_pointer (&m->direct_res, g_free);
  m->direct_hops_alloc = 0;
}

void
sim__comm_model_set_alone_apart (SimCommModel *m, gboolean apart)
{
  g_return_if_fail (m != NULL);
  m->no_apart = !apart;
}

guint64
sim__comm_model_get_alone_apart (const SimCommModel *m)
{
  g_return_val_if_fail (m != NULL, 0);
  return m->apart_batches;
}

guint64
sim__comm_model_get_alone_direct (const SimCommModel *m, guint64 *tried)
{
  g_return_val_if_fail (m != NULL, 0);
  if (tried != NULL)
    *tried = m->direct_tried;
  return m->direct;
}

guint64
sim__comm_model_get_alone_unshared (const SimCommModel *m)
{
  g_return_val_if_fail (m != NULL, 0);
  return m->direct_unshared;
}

/* Builds the plan of @algo, or for AUTO of NCCL's choice for @bytes;
 * NULL on error. */
static Plan *
plan_for (SimCommModel *m, SimCollectiveOp op, SimCollectiveAlgo algo, guint64 bytes,
          const guint32 *gpus, guint n, GError **error)
{
  Layout l;
  Plan *p;
  const SimNcclTable *table = NULL;
  SimNcclAlgo nccl = SIM_NCCL_N_ALGOS;

  if (!layout_init (m, &l, gpus, n, error))
    return NULL;
  if (algo != SIM_COLLECTIVE_ALGO_AUTO)
    {
      if (!algo_allowed (op, algo, &l, error))
        return NULL;
      nccl = nccl_of (algo, &l);
      if (nccl != SIM_NCCL_N_ALGOS)
        table = nccl_table (m, &l, op);
    }
  else
    algo = auto_choose (m, &l, op, bytes, &table, &nccl, NULL);
  /* Merged when built where routes are likely fixed by their GPUs (D-mod-K
   * and spraying; plan_route() puts a plan back apart where one is not). */
  p = plan_build (m, op, algo, &l, gpus,
                  m->premerge && !m->no_premerge && !m->no_merge && m->load == NULL);
  p->nccl = table;
  p->nccl_algo = nccl;
  return p;
}

/* @p's seconds per byte against the registered load, @p registered (with
 * a seed past the ids in use) for the solve and taken off again. */
static gboolean
plan_evaluate (SimCommModel *m, Plan *p, guint64 seed, double *spb, GError **error)
{
  if (!plan_register (m, p, seed, error))
    return FALSE;
  *spb = plan_seconds_per_byte (m, p);
  plan_unregister (m, p);
  return TRUE;
}

/* The next id of a collective: never 0, which plan_of() finds nothing
 * under (past 2^32 collectives the ids wrap). */
static guint
take_id (SimCommModel *m)
{
  if (G_UNLIKELY (m->next_id == 0))
    m->next_id = 1;
  return m->next_id++;
}

/* sim_comm_model_add() under @id, or under the next id if @id is 0. */
static guint
model_add (SimCommModel *m, guint id, SimCollectiveOp op, SimCollectiveAlgo algo,
           guint64 bytes, const guint32 *gpus, guint n, GError **error)
{
  Plan *chosen;

  /* AUTO is NCCL's choice from the communicator's shape (auto_choose()):
   * one plan, registered; nothing is solved here. */
  chosen = plan_for (m, op, algo, bytes, gpus, n, error);
  if (chosen == NULL)
    return 0;
  if (id == 0)
    id = take_id (m);
  if (!plan_register (m, chosen, id, error))
    {
      plan_free (chosen);
      return 0;
    }
  chosen->id = id;
  g_hash_table_insert (m->plans, GUINT_TO_POINTER (id), chosen);
  m->plan_slots[id % PLAN_SLOTS] = (PlanSlot) { id, chosen };
  return id;
}

guint
sim_comm_model_add (SimCommModel *m, SimCollectiveOp op, SimCollectiveAlgo algo, guint64 bytes,
                    const guint32 *gpus, guint n, GError **error)
{
  g_return_val_if_fail (m != NULL, 0);
  g_return_val_if_fail (gpus != NULL || n == 0, 0);
  return model_add (m, 0, op, algo, bytes, gpus, n, error);
}

guint
sim__comm_model_add_as (SimCommModel *m, guint id, SimCollectiveOp op, SimCollectiveAlgo algo,
                        guint64 bytes, const guint32 *gpus, guint n, GError **error)
{
  g_return_val_if_fail (m != NULL, 0);
  g_return_val_if_fail (gpus != NULL || n == 0, 0);
  g_return_val_if_fail (id != 0 && id < m->next_id && plan_of (m, id) == NULL, 0);
  return model_add (m, id, op, algo, bytes, gpus, n, error);
}

void
sim__comm_model_set_skip_inside (SimCommModel *m, gboolean skip)
{
  g_return_if_fail (m != NULL);
  m->skip_inside = skip != FALSE;
}

guint
sim__comm_model_take_id (SimCommModel *m)
{
  g_return_val_if_fail (m != NULL, 0);
  return take_id (m);
}

gboolean
sim__comm_model_inside_private (SimCommModel *m, const guint32 *gpus, guint n)
{
  guint32 node;

  g_return_val_if_fail (m != NULL && (gpus != NULL || n == 0), FALSE);
  /* (Routes taken on the load, under adaptive routing, are not fixed.) */
  if (!m->skip_inside || !m->prune || m->load != NULL || n < 2 || gpus[0] >= m->n_gpus)
    return FALSE;
  node = m->gpu_node[gpus[0]];
  for (guint i = 1; i < n; i++)
    if (gpus[i] >= m->n_gpus || m->gpu_node[gpus[i]] != node)
      return FALSE;
  return node < m->n_nodes && m->topology->n_nodes == m->n_nodes && m->private_node[node]
         && sim__topology_node_routes_fixed (m->topology, node);
}

gboolean
sim_comm_model_remove (SimCommModel *m, guint id)
{
  Plan *p;

  g_return_val_if_fail (m != NULL, FALSE);
  p = plan_of (m, id);
  if (p == NULL)
    return FALSE;
  plan_unregister (m, p);
  g_hash_table_remove (m->plans, GUINT_TO_POINTER (id));
  if (m->plan_slots[id % PLAN_SLOTS].id == id)
    m->plan_slots[id % PLAN_SLOTS] = (PlanSlot) { 0, NULL };
  plan_recycle (m, p);
  return TRUE;
}

void
sim__comm_model_set_owner (SimCommModel *m, guint id, gpointer owner)
{
  Plan *p;

  g_return_if_fail (m != NULL);
  p = plan_of (m, id);
  g_return_if_fail (p != NULL);
  p->owner = owner;
}

gpointer
sim__comm_model_get_owner (const SimCommModel *m, guint id)
{
  const Plan *p;

  g_return_val_if_fail (m != NULL, NULL);
  p = plan_of (m, id);
  return p != NULL ? p->owner : NULL;
}

void
sim__comm_model_prefetch_node (const SimCommModel *m, guint32 node, guint stage)
{
  if (!m->prefetch || !m->res_nodes_set || node >= m->n_nodes)
    return;
  if (stage == 0)
    {
      __builtin_prefetch (&m->node_run_start[node]);
      __builtin_prefetch (&m->private_node[node]);
    }
  else if (stage == 1)
    __builtin_prefetch (&m->node_runs[2 * m->node_run_start[node]]);
  else
    for (guint32 i = m->node_run_start[node]; i < m->node_run_start[node + 1]; i++)
      {
        __builtin_prefetch (&m->res_flags[m->node_runs[2 * i]], 1);
        __builtin_prefetch (&m->res_flags[m->node_runs[2 * i + 1] - 1], 1);
      }
}

void
sim__comm_model_prefetch_remove (const SimCommModel *m, guint id, gboolean deep)
{
  const PlanSlot *s;

  if (!m->prefetch)
    return;
  s = &m->plan_slots[id % PLAN_SLOTS];
  if (!deep)
    __builtin_prefetch (s);
  else if (s->id == id && id != 0)
    __builtin_prefetch (s->plan);
}

GArray *
sim_comm_model_update (SimCommModel *m)
{
  GArray *ids;

  g_return_val_if_fail (m != NULL, NULL);
  model_solve (m);
  ids = m->touched;
  m->touched = g_array_new (FALSE, FALSE, sizeof (guint));
  /* A new epoch empties the list's membership at once; when the counter
   * wraps, every plan is cleared so that none looks listed. */
  if (++m->touch_epoch == 0)
    {
      GHashTableIter it;
      gpointer value;
      g_hash_table_iter_init (&it, m->plans);
      while (g_hash_table_iter_next (&it, NULL, &value))
        ((Plan *) value)->touched_epoch = 0;
      m->touch_epoch = 1;
    }
  return ids;
}

gboolean
sim_comm_model_estimate (SimCommModel *m, guint id, guint64 bytes, SimCollectiveTiming *timing)
{
  Plan *p;

  g_return_val_if_fail (m != NULL && timing != NULL, FALSE);
  p = plan_of (m, id);
  if (p == NULL)
    return FALSE;
  timing_fill (p, plan_seconds_per_byte (m, p), bytes, timing);
  return TRUE;
}

/* Batches timed alone (sim__comm_model_time_alone()).
 *
 * On a network with nothing else registered, the rates the solver gives a
 * batch's flows depend only on each flow's resources, in order; their
 * capacities; the order in which the flows are added (which orders each
 * resource's list of flows, and so the order in which fixing a level takes
 * rates off the resources); and, where two resources reach the same level,
 * on which has the lower number (the solver's heap breaks ties by number).
 * Every flow has weight 1 and no cap, so no order of summing weights
 * matters, and the order in which the solver first meets the resources
 * changes nothing: its heap yields levels in the order of (level,
 * number), whatever its layout.  So the batch is solved on a solver of its
 * own that holds only the resources it meets, numbered in the order of
 * their numbers on the network, its flows added in the same order: the
 * same rates, to the last bit, where the network's solver would walk
 * arrays that span the whole fabric.  That solver is emptied after each
 * batch, its flows and resources removed last first, so that the next
 * batch's take their slots in increasing order again.  (The order of a
 * resource's list matters less than that: the flows fixed at one level
 * all take the same rate off it, weights being 1; which is also why a
 * plan's flows with the same route are one entry, plan_group(), here as
 * on the network.)  A collective registered on the network whose routes
 * depend on its GPUs alone brings its plan and routes, which building and
 * routing it again would give.  Under adaptive routing a route depends on
 * the load of the flows routed before it: batches are then registered on
 * the network's solver as before. */

/* Sorts @a (@n resource numbers) in increasing order, by bytes from the
 * lowest (four passes of counting, @tmp as room for @n more). */
static void
sort_resources (guint32 *a, guint32 *tmp, guint n)
{
  for (guint shift = 0; shift < 32; shift += 8)
    {
      guint count[257] = { 0 };
      for (guint i = 0; i < n; i++)
        count[((a[i] >> shift) & 0xff) + 1]++;
      if (count[((a[0] >> shift) & 0xff) + 1] == n)
        continue;   /* one value of this byte: nothing moves */
      for (guint d = 0; d < 256; d++)
        count[d + 1] += count[d];
      for (guint i = 0; i < n; i++)
        tmp[count[(a[i] >> shift) & 0xff]++] = a[i];
      memcpy (a, tmp, n * sizeof (guint32));
    }
}

/* The batch as sim_comm_model_add(), update and estimate do it (adaptive
 * routing). */
static gboolean
alone_registered (SimCommModel *m, const SimCollectiveCall *calls, guint n, double *times,
                  GError **error)
{
  g_autofree guint *ids = g_new0 (guint, MAX (n, 1));
  gboolean ok = TRUE;

  for (guint i = 0; i < n && ok; i++)
    {
      ids[i] = sim_comm_model_add (m, calls[i].op, calls[i].algo, calls[i].bytes, calls[i].gpus,
                                   calls[i].n_gpus, error);
      ok = ids[i] != 0;
    }
  if (ok)
    {
      g_autoptr(GArray) changed = sim_comm_model_update (m);
      for (guint i = 0; i < n; i++)
        {
          SimCollectiveTiming t;
          gboolean found = sim_comm_model_estimate (m, ids[i], calls[i].bytes, &t);
          g_assert (found);
          times[i] = t.time;
        }
    }
  for (guint i = 0; i < n; i++)
    if (ids[i] != 0)
      sim_comm_model_remove (m, ids[i]);
  return ok;
}

/* The number of resource @r in alone_direct()'s numbering, given one if
 * it has none (its DirectRes made from @info's capacity): on a network
 * of up to DIRECT_INDEX_MAX resources, its own, its DirectRes in an
 * array by resource, which stays in the cache; on a larger one, the next
 * local number, from a table as long as the batch needs, where that
 * array would miss it at every resource. */
#define DIRECT_INDEX_MAX 262144

/* The capacity of resource @r, as @info keeps it. */
static inline double
direct_capacity (const SimCommModel *info, guint32 r)
{
  return (info->res_flags[r] & RES_CAP_OTHER) != RES_CAP_OTHER
         ? info->cap_values[info->res_flags[r] & RES_CAP_OTHER]
         : info->capacity[r];
}

/* Where resource @r sits in alone_direct()'s table (on a network too
 * large for an array by resource): TRUE and its slot in *@slot if it is
 * there, else FALSE and the free slot it would take. */
static inline gboolean
direct_find (const SimCommModel *m, guint32 r, guint32 *slot)
{
  guint32 mask = m->direct_table_len - 1;
  /* (The product's top bits: its low ones see only r's low ones, and a
   * route's resources are numbered in strides.) */
  guint32 h = (r * 0x9E3779B1u) >> m->direct_table_shift;

  while (m->direct_keys[h] != 0)
    {
      if (m->direct_keys[h] == r + 1)
        {
          *slot = h;
          return TRUE;
        }
      h = (h + 1) & mask;
    }
  *slot = h;
  return FALSE;
}

static inline guint32
direct_local (SimCommModel *m, const SimCommModel *info, guint32 r, guint *n_met)
{
  guint32 at;

  if (m->direct_index != NULL)
    {
      if (m->direct_index[r] == m->direct_epoch)
        return r;
      m->direct_index[r] = m->direct_epoch;
      at = r;
    }
  else
    {
      guint32 h;
      if (direct_find (m, r, &h))
        return m->direct_vals[h];
      m->direct_keys[h] = r + 1;
      m->direct_vals[h] = at = *n_met;
    }
  m->direct_met[(*n_met)++] = r;
  m->direct_res[at] = (DirectRes) { 0, INFINITY, direct_capacity (info, r) };
  return at;
}

/* Empties alone_direct()'s numbering of resources for a batch of @n_hops
 * resources met (some perhaps more than once). */
static void
direct_reset (SimCommModel *m, guint n_hops)
{
  if (m->direct_index != NULL && ++m->direct_epoch == 0)
    {
      memset (m->direct_index, 0, m->n_res * sizeof (guint32));
      m->direct_epoch = 1;
    }
  if (m->direct_index == NULL)
    {
      /* (The table as long as this batch needs, so that emptying it costs
       * what the batch does.) */
      m->direct_table_len = 64;
      m->direct_table_shift = 26;
      while (m->direct_table_len < 2 * n_hops)
        {
          m->direct_table_len *= 2;
          m->direct_table_shift--;
        }
      if (m->direct_table_alloc < m->direct_table_len)
        {
          m->direct_table_alloc = m->direct_table_len;
          g_free (m->direct_keys);
          g_free (m->direct_vals);
          m->direct_keys = g_new (guint32, m->direct_table_alloc);
          m->direct_vals = g_new (guint32, m->direct_table_alloc);
        }
      memset (m->direct_keys, 0, m->direct_table_len * sizeof (guint32));
    }
}

/* alone_direct() where no resource is met twice (at a hundred thousand
 * GPUs nearly every batch: 86 routes of 342 resources on average, each
 * resource its route's alone): each resource's level is its capacity over
 * its route's flows, each route's rate the lowest level on it, and the
 * test of the general case (every other resource of the route clearly
 * above that rate, or at it) is made route by route, all without
 * numbering the resources or keeping anything per resource.  The rates,
 * in each route's x, are those of the general case to the bit: FALSE at
 * the first resource met twice or failing the test, the numbering then to
 * be emptied (direct_reset()) for the general case. */
static gboolean
alone_unshared_marked (SimCommModel *m, const SimCommModel *info, guint n_paths, guint *done)
{
  guint8 *flags = info->res_flags;

  for (guint d = 0; d < n_paths; d++)
    {
      DirectPath *dp = &m->direct_paths[d];
      double x, flows = dp->flows, low = INFINITY, next = INFINITY;
      /* (Its marks go with the others', whatever happens below.) */
      *done = d + 1;
      for (guint h = 0; h < dp->len; h++)
        {
          guint32 r = dp->res[h];
          double c = direct_capacity (info, r);
          if (m->direct_index != NULL)
            {
              if (m->direct_index[r] == m->direct_epoch)
                return FALSE;
              m->direct_index[r] = m->direct_epoch;
            }
          else
            {
              /* Marked in the flags read for the capacity, the line in
               * hand: a table of the resources met cost twice the
               * instructions, and emptying it as many again. */
              if (flags[r] & RES_MET)
                return FALSE;
              flags[r] |= RES_MET;
            }
          /* The lowest capacity and the next above it. */
          if (c < low)
            {
              next = low;
              low = c;
            }
          else if (c > low && c < next)
            next = c;
        }
      /* Division by the same count keeps the order of the capacities, so
       * the lowest level is the lowest capacity's, and the level nearest
       * above it the next capacity's: every other resource's level is at
       * least that one's.  Only where two capacities give one level is
       * each resource tested in turn. */
      x = low / flows;
      if (!(x > 0 && isfinite (x)))
        return FALSE;
      if (next < INFINITY)
        {
          double lvl = next / flows;
          if (lvl == x)
            {
              for (guint h = 0; h < dp->len; h++)
                {
                  lvl = direct_capacity (info, dp->res[h]) / flows;
                  if (lvl != x && !(lvl > x * (1 + 1e-9)))
                    return FALSE;
                }
            }
          else if (!(lvl > x * (1 + 1e-9)))
            return FALSE;
        }
      dp->x = x;
    }
  return TRUE;
}

static gboolean
alone_unshared (SimCommModel *m, const SimCommModel *info, guint n_paths)
{
  guint done = 0;
  gboolean ok = alone_unshared_marked (m, info, n_paths, &done);

  /* The marks off again, on every route looked at. */
  if (m->direct_index == NULL)
    for (guint d = 0; d < done; d++)
      {
        const DirectPath *dp = &m->direct_paths[d];
        for (guint h = 0; h < dp->len; h++)
          info->res_flags[dp->res[h]] &= (guint8) ~RES_MET;
      }
  return ok;
}

/* The max-min rates of a batch alone without a solver, where its flows'
 * bottlenecks do not cascade (most batches: a ring's flows each limited
 * by a NIC, or all of them by a shared uplink).  Each resource r met by
 * n_r of the batch's flows (a route crossing it twice counting twice)
 * offers the level c_r / n_r; each flow f is given x_f, the lowest level
 * on its route.  A resource all of whose flows were given its own level
 * is full at that level: call it even.  The allocation is max-min fair
 * when every flow crosses an even resource at its x_f (where it has the
 * largest rate, and which it fills), and it is what progressive filling
 * gives when, besides, every resource of the flow that is not even
 * offers a level above x_f by more than rounding: such a resource fills
 * only at a level of at least c_r / n_r (flows fixed on it before took
 * less than the level at which it fills), so it fixes none of the flow's
 * rate, while the even one fixes it at exactly c_r / n_r, as no resource
 * fills below its own c / n.  Otherwise (a flow held below a level by one
 * resource leaves more for others elsewhere) FALSE, and the batch goes to
 * the solver.  The rates are those of progressive filling to rounding:
 * where two even resources share flows, the solver takes the second's
 * level as what is left over what is still unfixed, which can differ
 * from c / n in the last bit.  @rates: each flow's, in order, as
 * alone_solve() sets them. */
static gboolean
alone_direct (SimCommModel *m, const SimCommModel *info, Plan **plans, guint n, double *rates)
{
  guint n_met = 0, n_flows = 0, n_paths = 0, max_path = 0, k = 0, n_hops = 0;
  gboolean ok = TRUE;
  DirectRes *dr;

  for (guint i = 0; i < n; i++)
    {
      n_flows += plans[i]->flows->len;
      max_path = MAX (max_path, plans[i]->paths->len);
    }
  if (m->direct_alloc < n_flows)
    {
      m->direct_alloc = MAX (n_flows, 2 * m->direct_alloc);
      m->direct_paths = g_renew (DirectPath, m->direct_paths, m->direct_alloc);
      m->direct_of = g_renew (guint32, m->direct_of, m->direct_alloc);
    }
  if (m->direct_seen_alloc < max_path)
    {
      g_free (m->direct_seen);
      m->direct_seen_alloc = MAX (max_path, 2 * m->direct_seen_alloc);
      m->direct_seen = g_new0 (guint32, 2 * m->direct_seen_alloc);
      m->direct_stamp = 0;
    }
  /* The batch's distinct routes, each once with the count of its flows:
   * plan_route() points the flows between the same two GPUs at one route,
   * which its start in the plan's paths names. */
  for (guint i = 0; i < n; i++)
    {
      const Plan *p = plans[i];
      const guint32 *paths = (const guint32 *) (gpointer) p->paths->data;
      guint32 *seen = m->direct_seen;   /* pairs: stamp, route's number */
      if (++m->direct_stamp == 0)
        {
          memset (seen, 0, 2 * m->direct_seen_alloc * sizeof (guint32));
          m->direct_stamp = 1;
        }
      for (guint j = 0; j < p->flows->len; j++)
        {
          const PlanFlow *f = &g_array_index (p->flows, PlanFlow, j);
          guint32 *e = &seen[2 * f->path_start];
          if (f->path_len == 0)
            {
              m->direct_of[k++] = G_MAXUINT32;
              continue;
            }
          if (e[0] != m->direct_stamp)
            {
              e[0] = m->direct_stamp;
              e[1] = n_paths;
              m->direct_paths[n_paths++] = (DirectPath) { paths + f->path_start, f->path_len,
                                                          0, 0, n_hops };
              n_hops += f->path_len;
            }
          m->direct_paths[e[1]].flows += f->count;
          m->direct_of[k++] = e[1];
        }
    }
  /* The resources met, numbered (direct_local()). */
  if (m->direct_hops_alloc < n_hops)
    {
      m->direct_hops_alloc = MAX (n_hops, 2 * m->direct_hops_alloc);
      m->direct_hops = g_renew (guint32, m->direct_hops, m->direct_hops_alloc);
      m->direct_met = g_renew (guint32, m->direct_met, m->direct_hops_alloc);
      if (m->direct_index == NULL)
        m->direct_res = g_renew (DirectRes, m->direct_res, m->direct_hops_alloc);
    }
  if (m->direct_index == NULL && m->n_res <= DIRECT_INDEX_MAX && !m->alone_table)
    {
      m->direct_index = g_new0 (guint32, MAX (m->n_res, 1));
      g_free (m->direct_res);
      m->direct_res = g_new (DirectRes, MAX (m->n_res, 1));
      m->direct_epoch = 0;
    }
  /* (Only the array by resource needs a new epoch: the flags' marks are
   * off between batches.) */
  if (m->direct_index != NULL)
    direct_reset (m, n_hops);
  if (alone_unshared (m, info, n_paths))
    {
      m->direct_tried++;
      m->direct_unshared++;
      goto rated;
    }
  direct_reset (m, n_hops);
  dr = m->direct_res;
  /* Each resource's flows, as the solver sums their weights (1 each). */
  for (guint d = 0; d < n_paths; d++)
    {
      const DirectPath *dp = &m->direct_paths[d];
      guint32 *hops = m->direct_hops + dp->local;
      for (guint h = 0; h < dp->len; h++)
        {
          guint32 at = direct_local (m, info, dp->res[h], &n_met);
          if (m->direct_index == NULL)
            hops[h] = at;
          dr[at].lvl += dp->flows;
        }
    }
  /* Each resource's level, as the solver's level_of() gives it before
   * anything is fixed. */
  for (guint i = 0; i < n_met; i++)
    {
      DirectRes *x = &dr[m->direct_index != NULL ? m->direct_met[i] : i];
      x->lvl = x->capacity / x->lvl;
    }
  /* Each route's lowest level, and each resource's lowest route. */
  for (guint d = 0; d < n_paths && ok; d++)
    {
      DirectPath *dp = &m->direct_paths[d];
      const guint32 *hops = m->direct_index != NULL ? dp->res : m->direct_hops + dp->local;
      double x = INFINITY;
      for (guint h = 0; h < dp->len; h++)
        x = MIN (x, dr[hops[h]].lvl);
      /* (One held to nothing goes to the solver.) */
      ok = x > 0 && isfinite (x);
      for (guint h = 0; h < dp->len; h++)
        dr[hops[h]].low = MIN (dr[hops[h]].low, x);
      dp->x = x;
    }
  /* Every route crosses an even resource at its rate, and every other
   * resource of it is clearly above that rate. */
  for (guint d = 0; d < n_paths && ok; d++)
    {
      const DirectPath *dp = &m->direct_paths[d];
      const guint32 *hops = m->direct_index != NULL ? dp->res : m->direct_hops + dp->local;
      gboolean held = FALSE;
      for (guint h = 0; h < dp->len && ok; h++)
        {
          const DirectRes *x = &dr[hops[h]];
          if (x->low == x->lvl)
            held = held || x->lvl == dp->x;
          else
            ok = x->lvl > dp->x * (1 + 1e-9);
        }
      ok = ok && held;
    }
  m->direct_tried++;
  if (!ok)
    return FALSE;
rated:
  /* A flow on no resource takes its cap, +infinity, as in the solver. */
  for (guint i = 0; i < n_flows; i++)
    rates[i] = m->direct_of[i] == G_MAXUINT32 ? INFINITY : m->direct_paths[m->direct_of[i]].x;
  m->direct++;
  return TRUE;
}

/* Solves the routed @plans on the batch's own solver and sets each flow's
 * rate in @rates, in order; empties that solver again. */
static void
alone_solve (SimCommModel *m, Plan **plans, guint n, double *rates)
{
  SimMaxmin *sys;
  SimMaxminId *flows;
  guint n_local, k = 0, n_flows = 0;

  bound_arrays (m);
  if (m->alone_sys == NULL)
    {
      m->alone_sys = sim_maxmin_new ();
      sim__maxmin_set_full (m->alone_sys, TRUE);
      m->alone_res = g_array_new (FALSE, FALSE, sizeof (SimMaxminId));
      m->alone_flows = g_array_new (FALSE, FALSE, sizeof (SimMaxminId));
      m->alone_sort = g_new (guint32, MAX (m->n_res, 1));
    }
  sys = m->alone_sys;
  /* The resources met, in the order of their numbers. */
  m->n_bound_res = 0;
  for (guint i = 0; i < n; i++)
    {
      const guint32 *path = (const guint32 *) (gpointer) plans[i]->paths->data;
      for (guint j = 0; j < plans[i]->paths->len; j++)
        if (!m->bound_seen[path[j]])
          {
            m->bound_seen[path[j]] = 1;
            m->bound_res[m->n_bound_res++] = path[j];
          }
    }
  n_local = m->n_bound_res;
  m->n_bound_res = 0;
  if (n_local > 0)
    sort_resources (m->bound_res, m->alone_sort, n_local);
  g_array_set_size (m->alone_res, n_local);
  for (guint r = 0; r < n_local; r++)
    {
      guint32 global = m->bound_res[r];
      m->bound_seen[global] = r + 1;   /* its local number, + 1 */
      g_array_index (m->alone_res, SimMaxminId, r) =
        sim_maxmin_add_resource (sys, m->capacity[global]);
    }
  /* The flows, in the order sim_comm_model_add() registers them. */
  for (guint i = 0; i < n; i++)
    n_flows += plans[i]->flows->len;
  g_array_set_size (m->alone_flows, n_flows);
  flows = (SimMaxminId *) (gpointer) m->alone_flows->data;
  for (guint i = 0; i < n; i++)
    {
      const Plan *p = plans[i];
      plan_group (m, p);
      for (guint j = 0; j < p->flows->len; j++)
        {
          const PlanFlow *f = &g_array_index (p->flows, PlanFlow, j);
          if (f->first != j)
            {
              flows[k + j] = flows[k + f->first];
              continue;
            }
          g_array_set_size (m->ids, f->path_len);
          for (guint h = 0; h < f->path_len; h++)
            g_array_index (m->ids, SimMaxminId, h) =
              g_array_index (m->alone_res, SimMaxminId,
                             m->bound_seen[g_array_index (p->paths, guint32, f->path_start + h)]
                             - 1);
          flows[k + j] = sim_maxmin_add_flows (sys, (const SimMaxminId *) (gpointer) m->ids->data,
                                               f->path_len, 1.0, INFINITY, m->group_count[j],
                                               NULL);
        }
      k += p->flows->len;
    }
  for (guint r = 0; r < n_local; r++)
    m->bound_seen[m->bound_res[r]] = 0;
  sim_maxmin_solve (sys);
  for (guint i = 0; i < n_flows; i++)
    rates[i] = sim_maxmin_get_rate (sys, flows[i]);
  /* Emptied last first: the slots come back in increasing order.  A flow
   * after the first of its group holds the first's entry: each entry is
   * removed where its first flow stands. */
  for (guint i = n, j = m->alone_flows->len; i-- > 0;)
    for (guint f = plans[i]->flows->len; f-- > 0;)
      {
        j--;
        if (g_array_index (plans[i]->flows, PlanFlow, f).first == f)
          sim_maxmin_remove_flow (sys, g_array_index (m->alone_flows, SimMaxminId, j));
      }
  for (guint r = n_local; r-- > 0;)
    sim_maxmin_remove_resource (sys, g_array_index (m->alone_res, SimMaxminId, r));
}

/* Batches kept by sim__comm_model_time_alone(): the key's words, then
 * the batch's times. */
typedef struct {
  ShapeKey key;                  /* first: the table looks entries up by key */
  double  *times;
  gboolean direct;               /* the rates from alone_direct() */
} AloneEntry;

static void
alone_entry_free (gpointer data)
{
  AloneEntry *e = data;
  g_free (e->key.words);
  g_free (e->times);
  g_free (e);
}

/* Makes @key the LEN words written in @m->alone_words, with their hash
 * (FNV-1a over the words). */
static void
alone_key_seal (SimCommModel *m, guint len, ShapeKey *key)
{
  key->len = len;
  key->words = (guint32 *) (gpointer) m->alone_words->data;
  key->hash = 2166136261u;
  for (guint i = 0; i < key->len; i++)
    key->hash = (key->hash ^ key->words[i]) * 16777619u;
}

/* Room for a key of @len words in @m->alone_words, to be sealed by
 * alone_key_seal(). */
static guint32 *
alone_key_room (SimCommModel *m, guint len)
{
  if (m->alone_words == NULL)
    m->alone_words = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_set_size (m->alone_words, len);
  return (guint32 *) (gpointer) m->alone_words->data;
}

/* A key's words for collective @c before its GPUs' (its operation,
 * algorithm, size and GPU count) at @w; returns where the GPUs' go. */
static guint32 *
alone_key_call (guint32 *w, const SimCollectiveCall *c)
{
  *w++ = c->op;
  *w++ = c->algo;
  *w++ = (guint32) c->bytes;
  *w++ = (guint32) (c->bytes >> 32);
  *w++ = c->n_gpus;
  return w;
}

/* The key of a batch whose GPUs all sit in one node, in @m->alone_words,
 * or FALSE for any other batch.  Such a batch's flows stay inside the
 * node, on the links the topology builds from the node's model and its
 * GPUs' model alone, in the same order for every node (so the solver's
 * ties fall the same way), with the same latencies; its plans name GPUs
 * by their index in the node.  So its times depend only on those models,
 * on each collective's operation, algorithm and size, and on which local
 * GPUs it joins in which order: the key's words.  Across nodes the routes
 * depend on more than the nodes' spread over the fabric (ECMP hashes the
 * GPUs' numbers, D-mod-K the destination's place under its leaf, adaptive
 * routing the load), so such batches are timed every time. */
static gboolean
alone_key (SimCommModel *m, const SimCollectiveCall *calls, guint n, ShapeKey *key)
{
  const SimCluster *cluster = m->cluster;
  guint32 node = G_MAXUINT32, *w;
  guint64 model, gpu_model, len = 5;
  guint total = sim_cluster_get_n_gpus (cluster);
  const SimNode *nd;

  if (n == 0)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      len += 5 + calls[i].n_gpus;
      for (guint j = 0; j < calls[i].n_gpus; j++)
        {
          if (calls[i].gpus[j] >= total)
            return FALSE;
          if (node == G_MAXUINT32)
            node = m->gpu_node[calls[i].gpus[j]];
          else if (m->gpu_node[calls[i].gpus[j]] != node)
            return FALSE;
        }
    }
  if (node == G_MAXUINT32 || len > G_MAXUINT32)
    return FALSE;
  nd = sim_cluster_get_node (cluster, node);
  model = (guint64) GPOINTER_TO_SIZE (nd->model);
  gpu_model = (guint64) GPOINTER_TO_SIZE (nd->gpu_model);
  w = alone_key_room (m, (guint) len);
  *w++ = (guint32) model;
  *w++ = (guint32) (model >> 32);
  *w++ = (guint32) gpu_model;
  *w++ = (guint32) (gpu_model >> 32);
  *w++ = n;
  for (guint i = 0; i < n; i++)
    {
      w = alone_key_call (w, &calls[i]);
      for (guint j = 0; j < calls[i].n_gpus; j++)
        *w++ = sim_cluster_get_gpu (cluster, calls[i].gpus[j])->local_index;
    }
  alone_key_seal (m, (guint) len, key);
  return TRUE;
}

static gboolean time_alone (SimCommModel *m, const SimCollectiveCall *calls, guint n,
                            double *times, gboolean *fixed, const guint32 *pos,
                            gboolean *direct, GError **error);

/* Switches a batch's key by its leaves (tree_key()) tells apart at most. */
#define TREE_KEY_LEAVES 64

/* The key of a batch across nodes whose NICs each hang under one switch
 * (sim__topology_node_switch()), in @m->alone_words, or FALSE for any
 * other batch.  It begins with a marker no other key begins with, then
 * each collective's operation, algorithm and size, and its GPUs, each as
 * the number of its node in the batch (in order of first appearance) and
 * its index in that node.
 *
 * Nodes all under one switch: then each node's kind.  The batch's flows
 * cross only links of its own nodes, inside them and from their NICs to
 * the switch, so two batches with one key differ by a renaming of nodes
 * that maps each to one of its kind, with the same capacities and
 * latencies on the links they cross: their plans are alike flow for flow,
 * and so are their rates alone.  At 2:1 on switches of 144 ports a leaf
 * holds twelve DGX nodes.
 *
 * Otherwise, on a tree routed by D-mod-K, nodes under leaves whose
 * uplinks lead, in order, to the same switches (the leaves of one pod):
 * then for each node its kind, the number of its leaf in the batch, its
 * leaf's kind of uplinks, and its first NIC's number modulo the leaf's
 * uplinks (sim__topology_node_uplinks()), less the first node's when
 * every uplink is alike (UPLINKS_ALIKE).  A flow to NIC d of another
 * leaf goes up its source leaf's uplink d mod n_up and down the
 * destination leaf's of that number, which the key's words decide (d's
 * place in its node is the node's kind's); which flows meet on which link,
 * and each link's capacity and latency, are then the same in two batches
 * of one key.  First-fit spreads a job's nodes over leaves, but seldom
 * over pods: at 100k GPUs this keys nearly every batch. */
static gboolean
tree_key (SimCommModel *m, const SimCollectiveCall *calls, guint n, ShapeKey *key)
{
  SimTopology *t = m->topology;
  guint32 sw = NO_NODE, n_nodes = 0, n_leaves = 0, leaves[TREE_KEY_LEAVES], spines = NO_NODE;
  guint32 spines0 = NO_NODE;   /* the first node's, as the nodes are met */
  guint32 *w, n_up0 = 0;
  gboolean one_switch = TRUE, alike = TRUE;
  guint64 len = 4;

  if (n == 0 || m->load != NULL || t->n_nodes != m->n_nodes)
    return FALSE;
  if (m->leaf_stamp == NULL)
    {
      m->leaf_stamp = g_new0 (guint32, MAX (m->n_nodes, 1));
      m->leaf_ord = g_new (guint32, MAX (m->n_nodes, 1));
      m->leaf_nodes = g_new (guint32, MAX (m->n_nodes, 1));
    }
  if (++m->leaf_now == 0)
    {
      memset (m->leaf_stamp, 0, m->n_nodes * sizeof (guint32));
      m->leaf_now = 1;
    }
  for (guint i = 0; i < n; i++)
    {
      len += 5 + calls[i].n_gpus;
      for (guint j = 0; j < calls[i].n_gpus; j++)
        {
          guint32 g = calls[i].gpus[j], node, at;
          if (g >= t->n_gpus)
            return FALSE;
          node = m->gpu_node[g];
          if (m->leaf_stamp[node] == m->leaf_now)
            continue;
          at = sim__topology_node_switch (t, node, NULL);
          if (at == NO_NODE || t->spans[node].n_gpus > G_MAXUINT16 || n_nodes >= G_MAXUINT16)
            return FALSE;
          /* Nodes under leaves of different spines (in different pods, at
           * a hundred thousand GPUs a third of the jobs across nodes) are
           * under different switches, which the loop below refuses when
           * their spines differ: refused here, before the key is written. */
          if (sw == NO_NODE)
            spines0 = t->node_spines[node];
          else if (t->node_spines[node] != spines0)
            return FALSE;
          if (sw == NO_NODE)
            sw = at;
          one_switch = one_switch && at == sw;
          m->leaf_stamp[node] = m->leaf_now;
          m->leaf_ord[node] = n_nodes;
          m->leaf_nodes[n_nodes++] = node;
        }
    }
  /* (One node is alone_key()'s.) */
  len += (one_switch ? 1 : 4) * (guint64) n_nodes;
  if (n_nodes < 2 || len > G_MAXUINT32)
    return FALSE;
  w = alone_key_room (m, (guint) len);
  *w++ = G_MAXUINT32;
  *w++ = one_switch ? G_MAXUINT32 - 1 : G_MAXUINT32 - 2;
  *w++ = n;
  for (guint i = 0; i < n; i++)
    {
      w = alone_key_call (w, &calls[i]);
      for (guint j = 0; j < calls[i].n_gpus; j++)
        {
          guint32 g = calls[i].gpus[j], node = m->gpu_node[g];
          *w++ = m->leaf_ord[node] << 16 | (g - t->spans[node].first_gpu);
        }
    }
  *w++ = n_nodes;
  for (guint32 i = 0; i < n_nodes; i++)
    {
      guint32 node = m->leaf_nodes[i], at = t->node_switch[node], nic0, n_up, up_kind, sp, leaf;
      *w++ = t->node_kind[node];
      if (one_switch)
        continue;
      if (!sim__topology_node_uplinks (t, node, &nic0, &n_up, &up_kind, &sp)
          || (spines != NO_NODE && sp != spines))
        return FALSE;
      spines = sp;
      for (leaf = 0; leaf < n_leaves && leaves[leaf] != at; leaf++)
        ;
      if (leaf == n_leaves)
        {
          if (n_leaves == TREE_KEY_LEAVES)
            return FALSE;
          leaves[n_leaves++] = at;
        }
      *w++ = leaf;
      *w++ = up_kind;
      *w++ = nic0 % n_up;
      if (i == 0)
        n_up0 = n_up;
      alike = alike && (up_kind & UPLINKS_ALIKE) != 0 && n_up == n_up0;
    }
  /* Every uplink of the batch's leaves alike: a flow to NIC d climbs
   * uplink d mod n_up of its leaf and comes down that of the destination's
   * (the same spine), so adding one c to every NIC's number moves each
   * flow to uplink (d + c) mod n_up on both sides, a renumbering of the
   * uplinks that changes no capacity, latency, or which flows meet where.
   * So the places are counted from the first node's (the last word of
   * each node's four). */
  if (!one_switch && alike)
    {
      guint32 *place = w - 4 * (n_nodes - 1) - 1, first = *place;
      for (guint32 i = 0; i < n_nodes; i++, place += 4)
        *place = (*place + n_up0 - first) % n_up0;
    }
  alone_key_seal (m, (guint) len, key);
  return TRUE;
}

/* Batches across nodes kept by their GPUs' numbers at most (a few MB). */
#define ALONE_EXACT_MAX 16384
/* Batches kept by their pattern at most (at 100k GPUs a key of a job of 128
 * GPUs is under 2 kB, so some tens of MB at worst). */
#define ALONE_KEPT_MAX 32768

/* The key of any batch by its GPUs' numbers, in @m->alone_words: two
 * marker words no node key begins with (a model's address is aligned),
 * then each collective's operation, algorithm, size and GPUs.  Its times
 * are kept only when every route it took depended on its GPUs alone
 * (time_alone()'s *fixed), for then the same GPUs take the same routes on
 * the same idle links whatever the plans' numbers. */
static gboolean
exact_key (SimCommModel *m, const SimCollectiveCall *calls, guint n, ShapeKey *key)
{
  guint64 len = 3;
  guint32 *w;

  if (n == 0)
    return FALSE;
  for (guint i = 0; i < n; i++)
    len += 5 + calls[i].n_gpus;
  if (len > G_MAXUINT32)
    return FALSE;
  w = alone_key_room (m, (guint) len);
  *w++ = G_MAXUINT32;
  *w++ = G_MAXUINT32;
  *w++ = n;
  for (guint i = 0; i < n; i++)
    {
      w = alone_key_call (w, &calls[i]);
      memcpy (w, calls[i].gpus, calls[i].n_gpus * sizeof (guint32));
      w += calls[i].n_gpus;
    }
  alone_key_seal (m, (guint) len, key);
  return TRUE;
}

/* The table of @key's batches: an exact key starts with two marker words,
 * a tree key with one. */
static GHashTable **
alone_table (SimCommModel *m, const ShapeKey *key)
{
  GHashTable **table = key->words[0] == G_MAXUINT32 && key->words[1] == G_MAXUINT32
                       ? &m->alone_exact : &m->alone_kept;

  if (*table == NULL)
    *table = g_hash_table_new_full (shape_hash, shape_equal, NULL, alone_entry_free);
  return table;
}

/* Keeps the @n @times of the batch of @key (in @m->alone_words) in
 * *@table.  Placements across nodes rarely repeat exactly, so those
 * entries are bounded apart: past ALONE_EXACT_MAX their table starts
 * again, without the patterns, which repeat (at 100k GPUs a table of both
 * started again every 16,000 batches timed, and took the patterns with
 * it).  Past ALONE_KEPT_MAX, the patterns' starts again too. */
static AloneEntry *
alone_keep (SimCommModel *m, GHashTable **table, const ShapeKey *key, const double *times,
            guint n, gboolean direct)
{
  AloneEntry *e;

  if (g_hash_table_size (*table) >= (table == &m->alone_exact ? ALONE_EXACT_MAX
                                                              : ALONE_KEPT_MAX))
    g_hash_table_remove_all (*table);
  e = g_new (AloneEntry, 1);
  e->key = *key;
  e->key.words = g_memdup2 (key->words, key->len * sizeof (guint32));
  e->times = g_memdup2 (times, n * sizeof (double));
  e->direct = direct;
  g_hash_table_add (*table, e);
  return e;
}

/* Per node, in alone_apart(): a collective of the batch has all its GPUs
 * there, and another has two or more of its GPUs there. */
#define APART_INSIDE 1
#define APART_SHARED 2

/* The times of @calls from parts timed alone apart, when the batch has
 * collectives whose GPUs all sit in one node that no other collective of
 * the batch has two GPUs in, on a tree where flows inside such a node and
 * flows leaving or reaching it meet on no link
 * (sim__topology_node_apart()): those of a large job's tensor-parallel
 * groups, whose flows never meet its data-parallel ones.  With no link in
 * common, each flow's rate alone is the same in the parts as in the whole
 * batch where alone_direct() gives them, as it does for nearly every
 * batch: each level and each test it makes is a resource's, or a route's
 * over its own resources.  So the collectives of each such node are timed
 * as a batch of their own, kept by alone_key() (every node of a large job
 * has the same one), and the others as one batch, kept by its own key,
 * their plans with the ids the whole batch would give them.  Every part
 * must have had its rates from alone_direct(): otherwise *@done stays
 * FALSE, and the batch is timed whole, as the solver would take it (the
 * same when @m leaves alone_direct() out).  The ids move on as timing the
 * whole batch would move them. */
static gboolean
alone_apart (SimCommModel *m, const SimCollectiveCall *calls, guint n, double *times,
             gboolean *done, GError **error)
{
  SimTopology *t = m->topology;
  guint32 *node, base = m->next_id;
  guint n_apart = 0, n_rest = 0;
  SimCollectiveCall *part;
  guint32 *pos;
  double *part_times;
  ShapeKey key;

  *done = FALSE;
  if (m->no_direct || m->no_apart || n < 2 || t->n_nodes != m->n_nodes)
    return TRUE;
  if (m->apart_seen == NULL)
    {
      m->apart_seen = g_new0 (guint32, MAX (m->n_nodes, 1));
      m->apart_mark = g_new0 (guint8, MAX (m->n_nodes, 1));
      m->apart_node = g_array_new (FALSE, FALSE, sizeof (guint32));
      m->apart_calls = g_array_new (FALSE, FALSE, sizeof (SimCollectiveCall));
      m->apart_pos = g_array_new (FALSE, FALSE, sizeof (guint32));
      m->apart_times = g_array_new (FALSE, FALSE, sizeof (double));
    }
  g_array_set_size (m->apart_node, n);
  node = (guint32 *) (gpointer) m->apart_node->data;
  /* Each collective's node if it has one, and the marks of the nodes:
   * apart_seen[] holds a stamp per collective (the nodes it has met). */
  if (m->apart_now > G_MAXUINT32 - n - 1)
    {
      memset (m->apart_seen, 0, m->n_nodes * sizeof (guint32));
      memset (m->apart_mark, 0, m->n_nodes);
      m->apart_now = 0;
    }
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < calls[i].n_gpus; j++)
      if (calls[i].gpus[j] >= t->n_gpus)
        return TRUE;
  for (guint i = 0; i < n; i++)
    {
      guint32 now = ++m->apart_now, first;
      node[i] = NO_NODE;
      if (calls[i].n_gpus == 0)
        continue;
      first = m->gpu_node[calls[i].gpus[0]];
      node[i] = first;
      for (guint j = 1; j < calls[i].n_gpus && node[i] != NO_NODE; j++)
        if (m->gpu_node[calls[i].gpus[j]] != first)
          node[i] = NO_NODE;
      if (node[i] != NO_NODE)
        continue;
      for (guint j = 0; j < calls[i].n_gpus; j++)
        {
          guint32 u = m->gpu_node[calls[i].gpus[j]];
          if (m->apart_seen[u] == now)
            m->apart_mark[u] |= APART_SHARED;
          m->apart_seen[u] = now;
        }
    }
  for (guint i = 0; i < n; i++)
    if (node[i] != NO_NODE)
      m->apart_mark[node[i]] |= APART_INSIDE;
  for (guint i = 0; i < n; i++)
    {
      guint32 v = node[i];
      if (v != NO_NODE && !(m->apart_mark[v] & APART_SHARED) && sim__topology_node_apart (t, v))
        n_apart++;
      else
        node[i] = NO_NODE;
    }
  /* (The marks are wiped for the next batch.) */
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < calls[i].n_gpus; j++)
      m->apart_mark[m->gpu_node[calls[i].gpus[j]]] = 0;
  if (n_apart == 0)
    return TRUE;

  g_array_set_size (m->apart_calls, n);
  g_array_set_size (m->apart_pos, n);
  g_array_set_size (m->apart_times, n);
  part = (SimCollectiveCall *) (gpointer) m->apart_calls->data;
  pos = (guint32 *) (gpointer) m->apart_pos->data;
  part_times = (double *) (gpointer) m->apart_times->data;
  /* Node by node, in the order the batch names them. */
  for (guint i = 0; i < n; i++)
    {
      guint32 v = node[i];
      guint k = 0;
      AloneEntry *e;
      if (v == NO_NODE || v == NO_NODE - 1)
        continue;
      for (guint j = i; j < n; j++)
        if (node[j] == v)
          {
            part[k] = calls[j];
            pos[k++] = j;
            node[j] = NO_NODE - 1;   /* done */
          }
      if (!alone_key (m, part, k, &key))
        goto whole;
      e = g_hash_table_lookup (*alone_table (m, &key), &key);
      if (e == NULL)
        {
          gboolean direct = FALSE;
          m->next_id = base;
          if (!time_alone (m, part, k, part_times, NULL, NULL, &direct, error))
            return FALSE;
          /* (Its key is still in alone_words: time_alone() writes none.) */
          e = alone_keep (m, alone_table (m, &key), &key, part_times, k, direct);
        }
      if (!e->direct)
        goto whole;
      for (guint j = 0; j < k; j++)
        times[pos[j]] = e->times[j];
    }
  /* The rest, as one batch. */
  for (guint i = 0; i < n; i++)
    if (node[i] == NO_NODE)
      {
        part[n_rest] = calls[i];
        pos[n_rest++] = i;
      }
  if (n_rest > 0)
    {
      AloneEntry *e = NULL;
      GHashTable **table = NULL;
      gboolean keyed = tree_key (m, part, n_rest, &key) || exact_key (m, part, n_rest, &key);
      if (keyed)
        {
          table = alone_table (m, &key);
          e = g_hash_table_lookup (*table, &key);
        }
      if (e == NULL)
        {
          gboolean direct = FALSE, fixed = TRUE;
          m->next_id = base;
          if (!time_alone (m, part, n_rest, part_times, &fixed, pos, &direct, error))
            return FALSE;
          if (!direct)
            goto whole;
          for (guint j = 0; j < n_rest; j++)
            times[pos[j]] = part_times[j];
          if (keyed && (key.words[0] != G_MAXUINT32 || fixed))
            alone_keep (m, table, &key, part_times, n_rest, direct);
        }
      else if (!e->direct)
        goto whole;
      else
        for (guint j = 0; j < n_rest; j++)
          times[pos[j]] = e->times[j];
    }
  m->next_id = base + n;
  m->apart_batches++;
  *done = TRUE;
  return TRUE;

whole:
  /* (Timed whole from the same ids.) */
  m->next_id = base;
  return TRUE;
}

/* A batch inside one node is timed once per key (alone_key()) and kept:
 * every job of 8 GPUs or fewer on a DGX is one such batch.  A batch across
 * nodes is kept by its GPUs' numbers (exact_key()) when its routes are
 * fixed, as D-mod-K and single paths are: a job placed again on the GPUs
 * of an earlier one is not timed again. */
gboolean
sim__comm_model_time_alone (SimCommModel *m, const SimCollectiveCall *calls, guint n,
                            double *times, GError **error)
{
  ShapeKey key;
  AloneEntry *e;
  GHashTable **table;
  gboolean fixed = TRUE, direct = FALSE;

  g_return_val_if_fail (m != NULL && (calls != NULL || n == 0) && times != NULL, FALSE);
  g_return_val_if_fail (g_hash_table_size (m->plans) == 0, FALSE);
  for (guint i = 0; i < n; i++)
    g_return_val_if_fail (calls[i].algo != SIM_COLLECTIVE_ALGO_AUTO, FALSE);
  if (m->load != NULL)
    return time_alone (m, calls, n, times, NULL, NULL, NULL, error);
  if (!alone_key (m, calls, n, &key))
    {
      gboolean done = FALSE;
      if (!alone_apart (m, calls, n, times, &done, error))
        return FALSE;
      if (done)
        return TRUE;
      if (!tree_key (m, calls, n, &key) && !exact_key (m, calls, n, &key))
        return time_alone (m, calls, n, times, NULL, NULL, NULL, error);
    }
  table = alone_table (m, &key);
  e = g_hash_table_lookup (*table, &key);
  if (e != NULL)
    {
      /* The ids move on as timing the batch would move them. */
      memcpy (times, e->times, n * sizeof (double));
      m->next_id += n;
      return TRUE;
    }
  if (!time_alone (m, calls, n, times, &fixed, NULL, &direct, error))
    return FALSE;
  /* (Across nodes, only where every route depends on the GPUs alone.) */
  if (key.words[0] == G_MAXUINT32 && !fixed)
    return TRUE;
  alone_keep (m, table, &key, times, n, direct);
  return TRUE;
}

/* A copy of @same, a plan of the network, for the idle copy's solver. */
static Plan *
alone_copy (const Plan *same)
{
  Plan *p = g_memdup2 (same, sizeof *same);

  p->own_fixed = FALSE;
  p->flows = g_array_copy (same->flows);
  p->paths = g_array_copy (same->paths);
  plan_no_entries (p);
  p->registered = FALSE;
  p->n_zero = 0;
  p->zero_listed = FALSE;
  p->shape = NULL;
  return p;
}

/* @pos (nullable): each call's place in a batch @calls are part of, the
 * ids of their plans then those of that batch's (so that their routes are
 * as routing the whole batch would take them); *@direct (nullable): TRUE
 * when alone_direct() gave the rates. */
static gboolean
time_alone (SimCommModel *m, const SimCollectiveCall *calls, guint n, double *times,
            gboolean *fixed, const guint32 *pos, gboolean *direct, GError **error)
{
  guint base = m->next_id;
  g_autofree Plan **plans = NULL;
  g_autofree gboolean *borrowed = NULL;
  g_autofree double *rates = NULL;
  guint n_rates = 0, r = 0;
  gboolean ok = TRUE;

  g_return_val_if_fail (m != NULL && (calls != NULL || n == 0) && times != NULL, FALSE);
  g_return_val_if_fail (g_hash_table_size (m->plans) == 0, FALSE);
  for (guint i = 0; i < n; i++)
    g_return_val_if_fail (calls[i].algo != SIM_COLLECTIVE_ALGO_AUTO, FALSE);
  if (m->load != NULL)
    return alone_registered (m, calls, n, times, error);

  plans = g_new0 (Plan *, MAX (n, 1));
  borrowed = g_new0 (gboolean, MAX (n, 1));
  for (guint i = 0; i < n && ok; i++)
    {
      const Plan *same = calls[i].network != NULL
                         ? plan_of (calls[i].network, calls[i].id)
                         : NULL;
      guint64 id = (guint) (base + (pos != NULL ? pos[i] : i));

      /* The plan registered on the network, with routes that depend on
       * their GPUs alone, is the one built and routed here: a copy. */
      if (same != NULL && same->routed && same->routes_fixed && same->algo == calls[i].algo
          && same->op == calls[i].op && calls[i].network->topology == m->topology)
        {
          /* Read only, unless the solver needs it (alone_copy()). */
          plans[i] = (Plan *) same;
          borrowed[i] = TRUE;
          m->next_id++;
          n_rates += same->flows->len;
          continue;
        }
      plans[i] = plan_for (m, calls[i].op, calls[i].algo, calls[i].bytes, calls[i].gpus,
                           calls[i].n_gpus, error);
      ok = plans[i] != NULL;
      if (!ok)
        break;
      m->next_id++;
      ok = plan_route (m, plans[i], id, error);
      n_rates += plans[i]->flows->len;
    }
  if (ok && fixed != NULL)
    for (guint i = 0; i < n; i++)
      *fixed = *fixed && plans[i]->routes_fixed;
  if (ok)
    {
      rates = g_new (double, MAX (n_rates, 1));
      /* The capacities from the network's res_flags when the batch is the
       * network's (the same topology, so the same capacities), which
       * registering the batch has just read. */
      const SimCommModel *info = n > 0 && calls[0].network != NULL
                                 && calls[0].network->topology == m->topology
                                 ? calls[0].network : m;
      gboolean by_direct = !m->no_direct && alone_direct (m, info, plans, n, rates);
      if (direct != NULL)
        *direct = by_direct;
      if (!by_direct)
        {
          /* The solver groups the plans' flows (plan_group()): a plan
           * of the network's is copied first. */
          for (guint i = 0; i < n; i++)
            if (borrowed[i])
              {
                plans[i] = alone_copy (plans[i]);
                borrowed[i] = FALSE;
              }
          alone_solve (m, plans, n, rates);
        }
      /* Each collective's time from its flows' rates, as
       * plan_seconds_per_byte() and sim_comm_model_estimate() give it. */
      for (guint i = 0; i < n; i++)
        {
          const Plan *p = plans[i];
          double worst[MAX_PHASES] = { 0 };
          SimCollectiveTiming t;

          for (guint j = 0; j < p->flows->len; j++)
            {
              const PlanFlow *f = &g_array_index (p->flows, PlanFlow, j);
              double rate = rates[r++];
              for (guint ph = 0; ph < MAX_PHASES; ph++)
                if (FLOW_SHARE (p, f)[ph] > 0)
                  worst[ph] = MAX (worst[ph], rate > 0 ? FLOW_SHARE (p, f)[ph] / rate
                                                       : INFINITY);
            }
          timing_fill (p, worst[0] + worst[1] + worst[2], calls[i].bytes, &t);
          times[i] = t.time;
        }
    }
  for (guint i = 0; i < n; i++)
    if (!borrowed[i])
      plan_free (plans[i]);
  return ok;
}

gboolean
sim_collective_time (SimCommModel *m, SimCollectiveOp op, SimCollectiveAlgo algo, guint64 bytes,
                     const guint32 *gpus, guint n, SimCollectiveTiming *timing, GError **error)
{
  Plan *p;
  double spb;
  gboolean ok;

  g_return_val_if_fail (m != NULL && timing != NULL, FALSE);
  p = plan_for (m, op, algo, bytes, gpus, n, error);
  if (p == NULL)
    return FALSE;
  ok = plan_evaluate (m, p, m->next_id, &spb, error);
  if (ok)
    timing_fill (p, spb, bytes, timing);
  plan_free (p);
  return ok;
}

GArray *
sim_collective_sweep (SimCommModel *m, SimCollectiveOp op, SimCollectiveAlgo algo,
                      const guint32 *gpus, guint n, guint64 min_bytes, guint64 max_bytes,
                      GError **error)
{
  g_autoptr(GPtrArray) plans = NULL;
  g_autoptr(GArray) sizes = NULL;
  g_autoptr(GArray) picks = NULL;    /* SimNcclAlgo per size (AUTO) */
  g_autofree double *spb = NULL;
  gboolean nccl = FALSE;
  GArray *rows;
  guint64 unit;

  g_return_val_if_fail (m != NULL, NULL);
  if (min_bytes == 0 || max_bytes < min_bytes)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "bad size range %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                   " bytes: expected 1 <= min <= max", min_bytes, max_bytes);
      return NULL;
    }
  unit = op == SIM_COLLECTIVE_ALL_GATHER || op == SIM_COLLECTIVE_REDUCE_SCATTER
         || op == SIM_COLLECTIVE_ALL_TO_ALL ? 4ull * n : 4ull;
  sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint64 size = min_bytes; size <= max_bytes; )
    {
      guint64 bytes = size / unit * unit;
      if (bytes > 0)
        g_array_append_val (sizes, bytes);
      if (size > G_MAXUINT64 / 2)
        break;
      size *= 2;
    }
  plans = g_ptr_array_new_with_free_func ((GDestroyNotify) plan_free);
  if (algo == SIM_COLLECTIVE_ALGO_AUTO && op != SIM_COLLECTIVE_ALL_TO_ALL
      && op != SIM_COLLECTIVE_SEND_RECV)
    {
      /* NCCL's choice at each size; a plan for each algorithm chosen. */
      SimCollectiveAlgo chosen[8];
      guint n_chosen = 0;
      Layout l;

      if (!layout_init (m, &l, gpus, n, error))
        return NULL;
      picks = g_array_new (FALSE, FALSE, sizeof (SimNcclAlgo));
      for (guint i = 0; i < sizes->len; i++)
        {
          SimNcclAlgo pick;
          SimCollectiveAlgo a = auto_choose (m, &l, op, g_array_index (sizes, guint64, i), NULL,
                                             &pick, NULL);
          guint c = 0;
          while (c < n_chosen && chosen[c] != a)
            c++;
          if (c == n_chosen)
            chosen[n_chosen++] = a;
          g_array_append_val (picks, pick);
        }
      /* A plan for each algorithm chosen (with its shape's NCCL table),
       * told below NCCL's algorithm of each size. */
      for (guint c = 0; c < n_chosen; c++)
        {
          Plan *p = plan_for (m, op, chosen[c], 0, gpus, n, error);
          if (p == NULL)
            return NULL;
          g_ptr_array_add (plans, p);
        }
      nccl = TRUE;
    }
  else
    {
      Plan *p = plan_for (m, op, algo, min_bytes, gpus, n, error);
      if (p == NULL)
        return NULL;
      g_ptr_array_add (plans, p);
    }
  spb = g_new (double, plans->len);
  for (guint c = 0; c < plans->len; c++)
    if (!plan_evaluate (m, plans->pdata[c], m->next_id + 0x51ed270bull * c, &spb[c], error))
      return NULL;

  rows = g_array_new (FALSE, FALSE, sizeof (SimCollectiveRow));
  for (guint i = 0; i < sizes->len; i++)
    {
      guint64 bytes = g_array_index (sizes, guint64, i);
      SimCollectiveTiming t;
      SimCollectiveRow row;
      guint c = 0;
      if (nccl)
        {
          SimNcclAlgo pick = g_array_index (picks, SimNcclAlgo, i);
          Plan *p;
          while (((Plan *) plans->pdata[c])->algo != nccl_to_algo (pick))
            c++;
          p = plans->pdata[c];
          p->nccl_algo = pick;
        }
      timing_fill (plans->pdata[c], spb[c], bytes, &t);
      row.bytes = bytes;
      row.count = bytes / unit;
      row.time_us = t.time * 1e6;
      row.algbw_gbs = t.algbw / 1e9;
      row.busbw_gbs = t.busbw / 1e9;
      row.algo = t.algo;
      row.protocol = t.protocol;
      g_array_append_val (rows, row);
    }
  return rows;
}

SimCollectiveAlgo
sim_comm_model_get_algo (SimCommModel *m, guint id)
{
  const Plan *p;

  g_return_val_if_fail (m != NULL, SIM_COLLECTIVE_ALGO_AUTO);
  p = plan_of (m, id);
  return p != NULL ? p->algo : SIM_COLLECTIVE_ALGO_AUTO;
}

gboolean
sim_comm_model_set_demand (SimCommModel *m, guint id, double message_rate)
{
  Plan *p;

  g_return_val_if_fail (m != NULL, FALSE);
  p = plan_of (m, id);
  if (p == NULL)
    return FALSE;
  for (guint i = 0; i < p->flows->len; i++)
    {
      const PlanFlow *f = &g_array_index (p->flows, PlanFlow, i);
      /* A flow grouped with an earlier one is the same solver entry with
       * the same shares (plan_group()): its cap is set already.  One out
       * of the solver takes it at the next solve (model_solve()). */
      if (f->first != i || f->flow == SIM_MAXMIN_NO_ID)
        continue;
      sim_maxmin_set_flow_cap (m->sys, f->flow, demand_cap (p, f, message_rate));
    }
  p->demand = message_rate;
  if (p->n_zero > 0)
    zero_list (m, p);
  return TRUE;
}

double
sim_comm_model_get_shortfall (SimCommModel *m, guint id)
{
  const Plan *p;

  g_return_val_if_fail (m != NULL, 1);
  p = plan_of (m, id);
  if (p == NULL)
    return 1;
  model_solve (m);
  /* The plan's solver entries, one for each first flow of a group that
   * is in the solver (plan_register_entries()): the flows after the first
   * of a group have its rate and cap, and a flow out of the solver its
   * cap, just solved. */
  return sim__maxmin_worst_shortfall (m->sys, p->entries, p->n_entries);
}

/* The rates of the flows registered without @resource (pruned plans')
 * on it, from the last solve as sim_maxmin_get_usage() gives the others',
 * all of them summed again after any change. */
static double
pruned_usage (SimCommModel *m, guint32 resource)
{
  if (m->pruned_use == NULL)
    {
      m->pruned_use = g_new0 (double, MAX (m->n_res, 1));
      m->pruned_stale = TRUE;
    }
  if (m->pruned_stale)
    {
      GHashTableIter it;
      gpointer value;
      guint n = 0, n_plans = g_hash_table_size (m->plans);

      memset (m->pruned_use, 0, m->n_res * sizeof (double));
      /* The plans listed first, in the table's order (the order of the
       * sums), so that each plan's lines are asked for a few plans ahead:
       * at a hundred thousand GPUs a plan, its arrays and their contents
       * came from memory one after the other. */
      if (m->pruned_walk_alloc < n_plans)
        {
          m->pruned_walk_alloc = MAX (n_plans, 2 * m->pruned_walk_alloc);
          m->pruned_walk = g_renew (Plan *, m->pruned_walk, m->pruned_walk_alloc);
        }
      g_hash_table_iter_init (&it, m->plans);
      while (g_hash_table_iter_next (&it, NULL, &value))
        m->pruned_walk[n++] = value;
      for (guint j = 0; j < n; j++)
        {
          const Plan *p = m->pruned_walk[j];
          if (m->prefetch)
            {
              if (j + 6 < n)
                __builtin_prefetch (m->pruned_walk[j + 6]);
              if (j + 4 < n && m->pruned_walk[j + 4]->pruned)
                {
                  __builtin_prefetch (m->pruned_walk[j + 4]->flows);
                  __builtin_prefetch (m->pruned_walk[j + 4]->paths);
                }
              if (j + 2 < n && m->pruned_walk[j + 2]->pruned)
                {
                  __builtin_prefetch (m->pruned_walk[j + 2]->flows->data);
                  __builtin_prefetch (m->pruned_walk[j + 2]->paths->data);
                }
            }
          if (!p->pruned)
            continue;
          for (guint i = 0; i < p->flows->len; i++)
            {
              const PlanFlow *f = &g_array_index (p->flows, PlanFlow, i);
              const guint32 *path = &g_array_index (p->paths, guint32, f->path_start);
              double rate = flow_rate (m, p, f) * f->count;
              for (guint k = 0; k < f->path_len; k++)
                if (is_private (m, path[k]))
                  m->pruned_use[path[k]] += rate;
            }
        }
      m->pruned_stale = FALSE;
    }
  return m->pruned_use[resource];
}

void
sim__comm_model_get_loads (SimCommModel *m, const guint32 *resources, guint n, double *load)
{
  g_return_if_fail (m != NULL && (load != NULL || n == 0));
  g_return_if_fail (resources != NULL || n <= m->n_res);
  model_resources (m);
  /* (A resource's solver slot is its number.) */
  sim__maxmin_get_usages (m->sys, resources, n, load);
  for (guint i = 0; i < n; i++)
    {
      guint32 r = resources != NULL ? resources[i] : i;
      double usage = load[i];
      g_return_if_fail (r < m->n_res);
      if (!(m->capacity[r] > 0))
        {
          load[i] = 0;
          continue;
        }
      if (m->n_pruned > 0 && m->res_nodes_set && is_private (m, r))
        usage += pruned_usage (m, r);
      load[i] = CLAMP (usage / m->capacity[r], 0.0, 1.0);
    }
}

/* The load of one directed resource, from the rates of the last solve. */
double
sim_comm_model_get_load (SimCommModel *m, guint32 resource)
{
  double capacity, usage;

  g_return_val_if_fail (m != NULL, 0);
  g_return_val_if_fail (resource < m->n_res, 0);
  model_resources (m);
  capacity = sim_maxmin_get_capacity (m->sys, m->res_id[resource]);
  if (!(capacity > 0))
    return 0;
  usage = sim_maxmin_get_usage (m->sys, m->res_id[resource]);
  if (m->n_pruned > 0 && m->res_nodes_set && is_private (m, resource))
    usage += pruned_usage (m, resource);
  return CLAMP (usage / capacity, 0.0, 1.0);
}
