/* sim-queue-orders.h: the queue orders beyond FIFO (SJF, priority, EASY
 * backfilling, Tiresias' discretized 2D-LAS, fair share with quotas).
 * Private: not installed. */
#pragma once

#include "sched/sim-policy.h"

G_BEGIN_DECLS

/* Registers "sjf", "priority", "easy", "las" and "fair-share"; called once
 * from sim__policy_register_builtins(). */
void sim__register_queue_orders (void);

/* For tests: the reservation the "easy" order made at its last pass over
 * @policy's queue: the blocked job at the head (its id) and the time it is
 * guaranteed to start by (%SIM_TIME_NEVER if it fits nowhere even on an
 * idle cluster).  Returns %FALSE if @policy is not an "easy" policy that
 * has run, or if its last pass left nothing blocked or needed no
 * reservation (no later job fitted now), unless sim__easy_set_eager(). */
/* For tests: with @eager, the "easy" order on @policy makes the head's
 * reservation at once in every pass where a job is blocked, as a plain
 * scan does, rather than when a later job first fits now.  Decisions are
 * the same either way; check-easy holds them so. */
void sim__easy_set_eager (SimPolicy *policy, gboolean eager);

gboolean sim__easy_get_reservation (SimPolicy *policy, guint64 *job_id, SimTime *time);

/* For tests: how the "easy" order on @policy learnt the running jobs in
 * the blocked passes of its last run: how many passes asked the context
 * for them (sim_sched_context_get_running(), which brings their progress up
 * to date), how many took them from the profile it keeps of the jobs it
 * started, and how many reservations it found by moving its mirror of the
 * cluster rather than on a copy.  Returns %FALSE if @policy is not an
 * "easy" policy that has run. */
gboolean sim__easy_get_paths (SimPolicy *policy, guint64 *asked, guint64 *profiled,
                              guint64 *mirrored);

G_END_DECLS
