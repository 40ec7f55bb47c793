/* sim-policy-registry.c: the one place that lists the queue orders and
 * placements defined in their own files, so that each is registered by
 * name exactly once, at first use (as GStreamer registers elements from
 * one plugin-init function). */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "sched/sim-queue-orders.h"
#include "sched/sim-placements.h"

void
sim__policy_register_more (void)
{
  sim__register_queue_orders ();
  sim__register_placements ();
  sim__register_topology_placement ();
  sim__register_consolidate_placement ();
}
