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
 * has run, or if its last pass left nothing blocked. */
gboolean sim__easy_get_reservation (SimPolicy *policy, guint64 *job_id, SimTime *time);

G_END_DECLS
