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
  GError        *error;      /* the first failure of a start, kept for the caller */
  gboolean       no_backfill; /* a scheduling cycle's main pass, not its backfill pass:
                               * backfilling orders start jobs in order only */
  SimAdmitFunc   admit;      /* (nullable) asked before every start */
  gpointer       admit_data;
  guint          n_held;     /* starts it refused in this pass */
  gboolean       held;       /* the last start asked for was held back */
};

/* Registers the built-in queue orders and placements once. */
void sim__policy_register_builtins (void);
gboolean sim__policy_reads_key (const char *queue, const char *placement, const char *key);
GPtrArray *sim__policy_param_readers (void);
/* Registers the queue orders and placements defined outside
 * sim-policy-builtin.c (sim-policy-registry.c lists them). */
void sim__policy_register_more (void);
/* Registers "topology-aware" (sim-placement-topo.c). */
void sim__register_topology_placement (void);
/* Registers "consolidate" (sim-placement-consolidate.c). */
void sim__register_consolidate_placement (void);
/* Records KEY as the key of the last failure. */
void sim__policy_params_fail (SimPolicyParams *params, const char *key);

G_END_DECLS
