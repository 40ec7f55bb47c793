/* sim-policy-private.h: the decision-point object, as the simulation fills it. */
#pragma once

#include "sched/sim-policy.h"

G_BEGIN_DECLS

typedef gboolean (*SimStartFunc) (gpointer owner, SimJob *job, const SimPlacement *placement,
                                  GError **error);

struct _SimSchedContext {
  SimTime      now;
  SimCluster  *cluster;
  GPtrArray   *queue;      /* SimJob*, in the policy's order */
  SimStartFunc start;
  gpointer     owner;
  guint        n_started;
  GError      *error;      /* the first failure of a start, kept for the caller */
};

/* Registers the built-in queue orders and placements once. */
void sim__policy_register_builtins (void);

G_END_DECLS
