/* sim-maxmin-private.h: the solver's switches for the tests (not
 * installed).  See sim-maxmin.h for the algorithm. */
#pragma once

#include "core/sim-maxmin.h"

G_BEGIN_DECLS

/* Progressive filling as written, without its shortcuts (internal, for
 * the tests): every resource of a component goes into the heap, and the
 * filling runs until the heap and the capped flows are spent, where
 * sim_maxmin_solve() leaves out the resources that cannot be the first of
 * their flows to saturate and stops once every flow is fixed.  The rates
 * are the same, to the last bit. */
void sim__maxmin_set_plain (SimMaxmin *system, gboolean plain);

/* Every solve by connected components, as sim_maxmin_solve() did before
 * it confined solves to what changed (internal, for the tests and the
 * benchmarks): the reference the region solve is checked against, and
 * the cost it is measured against. */
void sim__maxmin_set_full (SimMaxmin *system, gboolean full);

/* The same for every system made from then on (for a benchmark that
 * measures a whole simulation before and after; not thread-safe, to be
 * called before any system is made). */
void sim__maxmin_set_full_default (gboolean full);

/* A flow's rate (as of the last solve) and cap in one look-up (internal):
 * FALSE, and nothing set, if @id names no flow. */
gboolean sim__maxmin_get_rate_cap (const SimMaxmin *system, SimMaxminId id, double *rate,
                                   double *cap);

/* The largest of 1 and cap / rate over the @n flows @ids that have a
 * finite cap, as of the last solve, a flow with no rate counting as
 * infinitely short, and so does an id that names no flow (internal: the
 * shortfall of a caller's group of flows in one call). */
double sim__maxmin_worst_shortfall (const SimMaxmin *system, const SimMaxminId *ids, guint n);

/* Whether a flow's rate moved from @before to @after by more than
 * rounding, as sim_maxmin_solve() decides which flows changed (internal:
 * for rates the caller keeps out of the solver). */
gboolean sim__maxmin_rate_changed (double before, double after);

/* sim_maxmin_add_flows() on resources named by their slots rather than
 * their ids (internal: for a caller that made every resource of the
 * system and keeps their slots, sim__maxmin_resource_slot(), in arrays
 * denser than the ids).  A slot out of range or free is refused as a
 * stale id is. */
SimMaxminId sim__maxmin_add_flows_at (SimMaxmin *system, const guint32 *slots, guint n,
                                      double weight, double cap, guint count,
                                      gpointer user_data);

/* Asks for the lines that sim__maxmin_add_flows_at() on @slots will
 * write (each resource's own, and where its list's next entry goes), so
 * that their misses overlap the work before: a hint, which changes
 * nothing. */
void sim__maxmin_prefetch_at (const SimMaxmin *system, const guint32 *slots, guint n);

/* Asks for where sim__maxmin_add_flows_at() on @slots will append to
 * those of their lists that sit apart from the resources (lists longer
 * than fit beside them): the second stage after sim__maxmin_prefetch_at(),
 * once the resources' lines are in.  A hint, which changes nothing. */
void sim__maxmin_prefetch_lists_at (const SimMaxmin *system, const guint32 *slots, guint n);

/* Asks for what sim_maxmin_remove_flow() on flow @id will read: with
 * @deep FALSE the flow's own lines, with @deep TRUE (once those are in)
 * its resources' lines.  A hint, which changes nothing. */
void sim__maxmin_prefetch_remove (const SimMaxmin *system, SimMaxminId id, gboolean deep);

/* Asks for the entries of flow @id in those of its resources' lists that
 * sit apart from the resources (lists longer than fit beside them), at
 * the places the flow's entries name: the third stage after
 * sim__maxmin_prefetch_remove() with @deep FALSE and TRUE, once the
 * resources' lines are in.  A hint, which changes nothing. */
void sim__maxmin_prefetch_remove_lists (const SimMaxmin *system, SimMaxminId id);

/* Room made at once for @n resources in all (internal: for a caller
 * that adds a known number, which then grow no array one doubling after
 * another).  Changes nothing else. */
void sim__maxmin_reserve_resources (SimMaxmin *system, guint n);

/* The slot of the resource of id @id, for sim__maxmin_add_flows_at(). */
guint32 sim__maxmin_resource_slot (SimMaxminId id);

/* sim_maxmin_get_usage() of the @n resources of slots @slots (or of
 * slots 0 to @n - 1 if @slots is NULL), in @usage (-1 for a slot out of
 * range or free), in one pass (internal: for a caller that samples the
 * load of many resources it made). */
void sim__maxmin_get_usages (const SimMaxmin *system, const guint32 *slots, guint32 n,
                             double *usage);

G_END_DECLS
