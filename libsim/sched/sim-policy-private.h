/* sim-policy-private.h: the decision-point object, as the simulation fills it. */
#pragma once

#include "sched/sim-policy.h"

G_BEGIN_DECLS

typedef gboolean (*SimStartFunc) (gpointer owner, SimJob *job, const SimPlacement *placement,
                                  GError **error);
typedef gboolean (*SimPreemptFunc) (gpointer owner, SimJob *job, SimTime overhead,
                                    GError **error);
typedef void (*SimWakeFunc) (gpointer owner, SimTime time);
typedef void (*SimRunningFunc) (gpointer owner, GPtrArray *running);
/* Whether JOB may start on PLACEMENT now; FALSE holds it back (a start
 * refused with SIM_ERROR_HELD), with the reason in ERROR. */
typedef gboolean (*SimAdmitFunc) (gpointer data, const SimJob *job, const SimPlacement *placement,
                                  GError **error);

struct _SimSchedContext {
  SimTime        now;
  SimCluster    *cluster;
  GPtrArray     *queue;      /* SimJob*, in the policy's order */
  GPtrArray     *running;    /* SimJob*, in start order; filled on first request */
  SimRunningFunc fill_running;
  SimStartFunc   start;
  SimPreemptFunc preempt;
  SimWakeFunc    wake;
  gpointer       owner;
  guint          n_started;
  guint          n_preempted;
  GError        *error;      /* the pass's first failure (a start the cluster
                              * refused, a wake-up in the past), kept for the
                              * caller; the passes stop at it */
  gboolean       no_backfill; /* a scheduling cycle's main pass, not its backfill pass:
                               * backfilling orders start jobs in order only */
  SimAdmitFunc   admit;      /* (nullable) asked before every start */
  gpointer       admit_data;
  guint          n_held;     /* starts it refused in this pass */
  gboolean       held;       /* the last start asked for was held back */
  GObject       *keep;       /* (nullable) what holds this context, kept alive by a
                              * binding's copy (SIM_TYPE_SCHED_CONTEXT) */
  gboolean       closed;     /* the decision is over: starts, preemptions and
                              * wake-ups are refused */
  SimPolicy     *policy;     /* (nullable) the policy deciding, named in errors */
};

/* POLICY's name for an error message: its type's if it gives none. */
const char *sim__policy_name (SimPolicy *policy);
/* Whether POLICY holds a failure it reported (sim_policy_fail()) that no
 * simulation has taken yet.  O(1). */
gboolean sim__policy_has_failure (SimPolicy *policy);
/* The failure POLICY reported, which it no longer holds; NULL if none. */
GError *sim__policy_take_failure (SimPolicy *policy);

/* Registers every queue order and placement defined in libsim/sched/, once
 * (sim-policy-registry.c lists them). */
void sim__policy_register_builtins (void);
/* Registers "fifo", "first-fit" and "best-fit" (sim-policy-builtin.c). */
void sim__register_builtin_policies (void);
/* Whether the built-in QUEUE order or PLACEMENT reads the [policy] KEY. */
gboolean sim__policy_reads_key (const char *queue, const char *placement, const char *key);
/* The [policy] keys the built-in queue orders and placements read, with
 * which reads each. */
GPtrArray *sim__policy_param_readers (void);
/* Registers "topology-aware" (sim-placement-topo.c). */
void sim__register_topology_placement (void);
/* Registers "consolidate" (sim-placement-consolidate.c). */
void sim__register_consolidate_placement (void);
/* The tables of registered names (sim-policy-table.c), as they are: the
 * registry's public functions register the built-ins before they read. */
GPtrArray  *sim__policy_table_list_queue_orders (void);
gboolean    sim__policy_table_reads_key (const char *queue, const char *placement,
                                         const char *key);
GPtrArray  *sim__policy_table_param_readers (void);
GPtrArray  *sim__policy_table_list_placements (void);
const char *sim__policy_table_describe (const char *name);
const SimQueueOrderInfo *sim__policy_table_find_queue_order (const char *name, GError **error);
const SimPlacementInfo  *sim__policy_table_find_placement (const char *name, GError **error);
/* Records KEY as the key of the last failure. */
void sim__policy_params_fail (SimPolicyParams *params, const char *key);

G_END_DECLS
