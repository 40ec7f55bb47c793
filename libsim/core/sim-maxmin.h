/* sim-maxmin.h: max-min fair sharing of bandwidth among flows.
 *
 * The problem.  A system holds resources r, each with a capacity C_r
 * (bytes/s), and flows f, each crossing a set of resources R(f) and carrying
 * a weight w_f > 0 and an optional cap u_f (the most it can use, e.g. what
 * its sender can produce).  An allocation x gives each flow a rate with
 *
 *     sum over f crossing r of x_f <= C_r      for every resource r,
 *     0 <= x_f <= u_f                          for every flow f.
 *
 * It is weighted max-min fair when no flow's normalized rate x_f / w_f can
 * be raised without lowering that of a flow whose normalized rate is already
 * no larger.  Equivalently, every flow is bottlenecked: it is at its cap, or
 * it crosses a saturated resource on which its normalized rate is the
 * largest.  That allocation exists and is unique.  It is the fluid model of
 * how TCP-like and credit-based transports share links: not exact at the
 * packet level, but within a few percent for long transfers on
 * datacentre fabrics, at a tiny fraction of the cost of a packet simulator.
 *
 * Progressive filling (water-filling) computes it.  Raise a level L from 0,
 * giving every unfixed flow the rate w_f L.  A resource saturates at
 *
 *     L_r = (C_r - sum of the rates of its fixed flows)
 *           / (sum of the weights of its unfixed flows),
 *
 * and a capped flow reaches its cap at L_f = u_f / w_f.  Take the smallest of
 * these: if it is a resource, it is a bottleneck and every unfixed flow
 * crossing it is fixed at w_f L_r; if it is a cap, that flow is fixed at
 * u_f.  Fixing flows lowers the remaining capacity and weight of the other
 * resources they cross, which raises (never lowers) those resources' L_r.
 * Repeat until every flow is fixed.  A flow that crosses no resource gets
 * its cap, or +infinity if it has none.
 *
 * Implementation.  Resources wait in a binary heap keyed by (L_r, index);
 * capped flows sit in an array sorted by (u_f / w_f, index).  Each step
 * takes the smaller head.  Since fixing flows only raises the levels of
 * the other resources, their heap keys are left stale (lower bounds) and
 * refreshed lazily: an entry that reaches the top with a stale key goes
 * back with its current level, and the first entry found current is the
 * true minimum.  This makes fixing a flow O(its resources) instead of
 * O(its resources x log R).  Ties are broken by index, so the order of
 * operations, and hence the rounding, depends only on the solved flows.
 *
 * Shortcuts.  In a network most resources carry one flow (a GPU's link, a
 * NIC's; sim_maxmin_add_flows() makes identical flows one entry), and
 * such a resource keeps its starting level until its flow is fixed, after
 * which it has nothing to fix.  Of a flow's resources crossed by it alone,
 * only the first by (level, index) goes into the heap, and none does when
 * a resource it shares has a capacity lower by more than rounding; the
 * filling stops once every flow is fixed.  On the first simulated day at
 * 10,240 GPUs with the network, 6.4 million resources go into the heap
 * and 4.4 million are popped, where 30.8 million went in and 26.1 million
 * were popped (86 % of them with nothing left to fix).  The resources left
 * out could only be popped with nothing left to
 * fix, so every rate is the one progressive filling gives with them in, to
 * the last bit; tests/check-maxmin.c holds the two to each other.
 *
 * Solves confined to what changed.  Adding or removing a flow, changing
 * a cap or a capacity marks what it touched; nothing is computed then, and
 * sim_maxmin_solve() returns at once when nothing is marked.  Otherwise it
 * re-solves a region: at first the flows added and those whose cap
 * changed, with the resources of the flows removed.  Every other flow is
 * held at its rate (frozen), and progressive filling runs over the
 * region's flows alone, each resource they cross starting with its
 * capacity less the frozen flows' rates.  The answer is then checked
 * against the condition that makes max-min unique (every flow at its cap
 * or on a saturated resource where its normalized rate is the highest),
 * which needs only the region's resources to be looked at, since nothing
 * else moved; each solve keeps, for every flow, the resource that fixed it
 * (its bottleneck):
 *
 *   - a region flow fixed by a resource has it saturated, and the highest
 *     rate among the region's flows on it; if a frozen flow on it is
 *     faster, that flow joins the region;
 *   - a frozen flow whose bottleneck lies outside the region keeps it
 *     untouched; one whose bottleneck is in the region joins the region
 *     unless that resource is still saturated and no region flow on it is
 *     faster than it.
 *
 * The filling runs again over the grown region until no flow joins.  Then
 * every flow is bottlenecked, so the rates are the max-min allocation,
 * the one a solve from scratch gives: the same to within rounding, which
 * the order of operations changes (a frozen flow's rate is subtracted
 * where a solve from scratch subtracts it while filling), well within
 * SIM_MAXMIN_TOLERANCE (1e-9 relative).  The checks decide only whether
 * the region grows, with a slack of 1e-13 relative: a check that fails by
 * rounding costs a larger region, never a wrong rate.  A change
 * propagates along chains of shared bottlenecks (a flow that slows frees
 * capacity on its other resources, where other flows speed up, and so
 * on), which is why the region grows by these conditions rather than
 * being the flows next to the change; and most changes move few rates,
 * which is why it is usually much smaller than the connected component.
 * A region that grows past a quarter of the system's flows, or for more
 * than 12 rounds, gives way to the solve by components below (counted in
 * SimMaxminStats.fallbacks), and so, uncounted, does every solve after a
 * capacity change (which can overload a resource held by frozen flows
 * alone) or after sim_maxmin_invalidate().
 *
 * The solve by components gathers the connected components of what
 * changed (flows and resources linked through shared resources, found by
 * a breadth-first search) and re-runs progressive filling on those
 * components from zero: the allocation in a component depends on nothing
 * outside it, so the rest of the system keeps its rates.  It is also what
 * sim_maxmin_invalidate() asks for (a solve from scratch of everything).
 * Flows whose rate changed are listed (sim_maxmin_get_changed()), so a
 * simulation reschedules only the jobs that own them.
 *
 * Measured on bench-maxmin's three-tier fat-tree of 32,768 GPUs with
 * 10,000 flows between random GPUs, where most flows share one component:
 * an arrival or a departure re-solves 1.4 to 1.7 flows on average against
 * about 3,800 by components, and takes about a microsecond against 2.5 to
 * 5.7 ms (docs/performance.md gives the table).
 *
 * Time complexity of a solve by components: O((E + R) log R + F log F),
 * where F, R and E are the flows, resources and flow-resource incidences
 * of the touched components; of a region solve, the same per round over
 * the region's flows and resources, E counting every flow on each of its
 * resources (frozen ones are summed).  Memory: O(flows + resources +
 * incidences), plus 40 bytes per resource for the region's sums and 4 per
 * flow for its bottleneck.  Flows and
 * resources are recycled through free lists and their incidence arrays are
 * kept, so once the system has reached its largest size a solve allocates
 * nothing.  The constant factor matters because a solve of one large
 * component is what a simulation with the network spends its time on: the
 * scratch of a solve (the component's resources and flows, the heap, the
 * capped flows) lives in plain arrays sized once per solve to the number of
 * slots, so the search and the heap append without a call or a bounds
 * check, and the capped flows are ordered by a merge sort with the
 * comparison inlined rather than by qsort().  The order of every operation,
 * and so every rate to the last bit, is the one a generic sort and growable
 * arrays give: (level, index) is a total order on the capped flows.  On
 * the first 1,500 jobs of bench-scale's 1,024-GPU case, valgrind counts
 * 0.71 billion instructions in the solver against 1.08 before (-35 %).
 *
 * Memory layout.  On a fabric of ten thousand GPUs, the flows and
 * resources of a component lie scattered over megabytes, and most of a
 * solve's loads of them miss the first-level cache, so the layout aims at
 * touching few cache lines per incidence.  Each resource and each flow is split:
 * what progressive filling reads or writes for every incidence (a
 * resource's remaining capacity, unfixed weight and count and its list of
 * flows; a flow's weight, rate, list of resources, fixed bit and new bit)
 * sits in a 32-byte record, two to a cache line, in arrays aligned on
 * lines; capacities, caps, generations, free-list links and dirty bits
 * sit in parallel arrays read once per object; the visit epochs of the
 * search have arrays of their own, and the rates before the solve go to
 * an array in the order of the component's flows.  The search itself
 * resets the resources it reaches and sums their flows' weights, in the
 * order the filling needs, instead of a second pass over the same
 * incidences, and asks for the next flow's and the next resource's list
 * one iteration ahead (a prefetch).  Adding a flow checks and links each
 * of its resources in one pass: a resource is repeated when the last flow
 * on its list is the new flow's slot (a free slot is on no list), and a
 * bad one unlinks what came before it and gives the slot back, so that
 * the system, its free lists and its dirty lists are as if the call had
 * not been made.  On a simulation of 1,024 GPUs with the network,
 * cachegrind counts 23.4 million first-level data read misses in the
 * solver against 38.0 million before (-38 %), for 2 % more instructions
 * (the prefetches); bench-maxmin's full solve of 100,000 flows takes
 * about a quarter less time.  At 10,240 GPUs, where a solve covers a
 * hundred flows or so, the gain in CPU time is within the noise of a
 * shared machine.
 *
 * Demand caps.  A cap is how a flow that does not send all the time asks
 * for only what it needs: sim-job-comm.h caps a training job's flows at
 * their average demand (bytes per iteration over the iteration time), so
 * that a flow never takes more than it asks and the capacity it leaves
 * goes to the others, and iterates those caps to a fixed point: each round
 * is one incremental solve (the cost above, over the components whose caps
 * moved); a job's iteration time only grows within an update, so the
 * rounds converge, in one stretch on a single shared bottleneck and a few
 * on chains of them, and stop at a relative tolerance of 1e-6 or after 32
 * rounds (its header gives the details).  Changing a cap marks the flow's component like any change;
 * setting the cap a flow already has marks nothing.
 *
 * Ids.  A flow or resource id packs its slot and a generation counter that
 * changes each time the slot is freed: a stale id is detected and refused
 * rather than silently naming a newer object.  0 is never a valid id.
 *
 * Alternatives rejected.  Linear programming finds one optimum of a
 * single objective, not the lexicographic max-min vector, and would need
 * one program per bottleneck level.  SimGrid's
 * lmm scans every active constraint at every level, O(levels x R), which
 * is quadratic on a large fabric where nearly every link is its own
 * level; the heap makes each level O(log R).  Proportional fairness
 * (maximizing the sum of log-rates) models some congestion controls more
 * closely but needs an iterative convex solver with tolerances, and loses
 * the exactness that makes the incremental solution equal a solve from
 * scratch.  Re-solving only flows adjacent to the change would be cheaper
 * but is wrong: a change propagates along chains of shared bottlenecks.
 * Keeping every resource's usage as a running sum, so that a region need
 * not add up its frozen flows, would drift by rounding over millions of
 * changes; the sums are made afresh, over the region's resources only.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * SimMaxmin:
 *
 * A system of resources and flows sharing them max-min fairly.  Not
 * thread-safe; not a GObject (it sits on the hot path).
 */
typedef struct _SimMaxmin SimMaxmin;

/**
 * SimMaxminId:
 *
 * The id of a flow or of a resource: a slot and a generation.  0 is never
 * a valid id.
 */
typedef guint64 SimMaxminId;

/**
 * SIM_MAXMIN_NO_ID:
 *
 * An id that names nothing.
 */
#define SIM_MAXMIN_NO_ID ((SimMaxminId) 0)

/**
 * SimMaxminStats:
 * @n_flows: flows in the system
 * @n_resources: resources in the system
 * @solves: calls to sim_maxmin_solve() that did some work
 * @last_flows_solved: flows whose rate the last solve recomputed
 * @last_resources_solved: resources the last solve visited
 * @last_changed: flows whose rate the last solve changed
 * @total_flows_solved: flows recomputed, summed over all solves
 * @region_solves: solves confined to a region of what changed
 * @fallbacks: solves whose region outgrew its bounds and that were done
 *   by components instead
 * @capped_solves: region solves that gave every flow of the region its cap
 *   at once, no resource it crosses able to fill (their caps sum below its
 *   capacity, and none holds a flow back)
 */
typedef struct {
  guint   n_flows;
  guint   n_resources;
  guint64 solves;
  guint   last_flows_solved;
  guint   last_resources_solved;
  guint   last_changed;
  guint64 total_flows_solved;
  guint64 region_solves;
  guint64 fallbacks;
  guint64 capped_solves;
} SimMaxminStats;

/**
 * SIM_MAXMIN_TOLERANCE:
 *
 * The relative difference within which every rate a solve gives equals
 * the rate a solve of the whole system from scratch gives (see
 * "Solves confined to what changed" above).
 */
#define SIM_MAXMIN_TOLERANCE 1e-9

/**
 * sim_maxmin_new: (skip)
 *
 * Returns: (transfer full): an empty system.
 */
SimMaxmin *sim_maxmin_new (void);

/**
 * sim_maxmin_free: (skip)
 * @system: (nullable): a system
 *
 * Frees the system with its flows and resources.
 */
void sim_maxmin_free (SimMaxmin *system);

/**
 * sim_maxmin_add_resource:
 * @system: a system
 * @capacity: bytes/s, >= 0; +infinity for a resource that never saturates
 *
 * Time complexity: O(1) amortized.
 *
 * Returns: the new resource's id.
 */
SimMaxminId sim_maxmin_add_resource (SimMaxmin *system, double capacity);

/**
 * sim_maxmin_remove_resource:
 * @system: a system
 * @resource: a resource that no flow crosses
 *
 * Returns: %FALSE if @resource is stale or still crossed by a flow (it is
 *   then kept).
 */
gboolean sim_maxmin_remove_resource (SimMaxmin *system, SimMaxminId resource);

/**
 * sim_maxmin_set_capacity:
 * @system: a system
 * @resource: a resource
 * @capacity: its new capacity, bytes/s, >= 0
 *
 * Marks the resource's component for the next solve if the capacity
 * differs.
 *
 * Returns: %FALSE if @resource is stale.
 */
gboolean sim_maxmin_set_capacity (SimMaxmin *system, SimMaxminId resource, double capacity);

/**
 * sim_maxmin_get_capacity:
 * Returns: the capacity of @resource, or -1 if it is stale.
 */
double sim_maxmin_get_capacity (const SimMaxmin *system, SimMaxminId resource);

/**
 * sim_maxmin_get_usage:
 * @system: a system
 * @resource: a resource
 *
 * Time complexity: O(flows crossing @resource).
 *
 * Returns: the sum of the rates of the flows crossing @resource as of the
 *   last solve (bytes/s), or -1 if @resource is stale.
 */
double sim_maxmin_get_usage (const SimMaxmin *system, SimMaxminId resource);

/**
 * sim_maxmin_add_flow:
 * @system: a system
 * @resources: (array length=n_resources) (nullable): the resources it
 *   crosses, each at most once
 * @n_resources: their number; 0 for a flow limited only by its cap
 * @weight: its weight, > 0 (1 for plain fair sharing): on a shared
 *   bottleneck, rates are proportional to weights
 * @cap: the most it may get, bytes/s, > 0; +infinity (INFINITY) for none
 * @user_data: (nullable): a pointer kept with the flow (the job owning it)
 *
 * The flow's rate is 0 until the next sim_maxmin_solve().  Passing a stale
 * or repeated resource is a programming error: nothing is added and
 * %SIM_MAXMIN_NO_ID is returned.
 *
 * Time complexity: O(@n_resources) amortized.
 *
 * Returns: the new flow's id.
 */
SimMaxminId sim_maxmin_add_flow (SimMaxmin *system, const SimMaxminId *resources,
                                 guint n_resources, double weight, double cap,
                                 gpointer user_data);

/**
 * sim_maxmin_add_flows:
 * @system: a system
 * @resources: (array length=n_resources) (nullable): the resources they
 *   cross, each at most once
 * @n_resources: their number
 * @weight: the weight of each, > 0
 * @cap: the cap of each, > 0, or INFINITY
 * @count: how many flows, 1 to 65,535
 * @user_data: (nullable): a pointer kept with them
 *
 * Adds @count flows that cross the same resources with the same weight
 * and cap, kept as one entry: max-min fairness gives them equal rates, so
 * the solver fixes them together, and sim_maxmin_get_rate() gives the rate
 * of each (sim_maxmin_get_usage() counts every one).  A solve takes each
 * one's weight and rate off a resource in turn, so when every flow of the
 * system has the same weight the rates are those @count separate calls to
 * sim_maxmin_add_flow() give: to the last bit when the solves are by
 * components (the flows fixed at one level then all take the same amount
 * off a resource, and the order in which they do does not matter), within
 * SIM_MAXMIN_TOLERANCE when confined to what changed (the two systems may
 * grow their regions differently); the cost of a solve, of adding and of
 * removing is that of one flow.
 *
 * Returns: the id of the entry, removed as one by sim_maxmin_remove_flow().
 */
SimMaxminId sim_maxmin_add_flows (SimMaxmin *system, const SimMaxminId *resources,
                                  guint n_resources, double weight, double cap, guint count,
                                  gpointer user_data);

/**
 * sim_maxmin_remove_flow:
 * @system: a system
 * @flow: a flow
 *
 * Time complexity: O(resources it crosses).
 *
 * Returns: %FALSE if @flow is stale.
 */
gboolean sim_maxmin_remove_flow (SimMaxmin *system, SimMaxminId flow);

/**
 * sim_maxmin_set_flow_cap:
 * @system: a system
 * @flow: a flow
 * @cap: its new cap, bytes/s, > 0, or INFINITY
 *
 * Returns: %FALSE if @flow is stale.
 */
gboolean sim_maxmin_set_flow_cap (SimMaxmin *system, SimMaxminId flow, double cap);

/**
 * sim_maxmin_get_flow_cap:
 * Returns: the cap of @flow (bytes/s, INFINITY for none), or -1 if @flow
 *   is stale.
 */
double sim_maxmin_get_flow_cap (const SimMaxmin *system, SimMaxminId flow);

/**
 * sim_maxmin_flow_is_valid:
 * Returns: whether @flow names a flow of @system.
 */
gboolean sim_maxmin_flow_is_valid (const SimMaxmin *system, SimMaxminId flow);

/**
 * sim_maxmin_get_rate:
 * Returns: the rate of @flow (bytes/s) as of the last solve, possibly
 *   +infinity for a flow without resources or cap; -1 if @flow is stale.
 */
double sim_maxmin_get_rate (const SimMaxmin *system, SimMaxminId flow);

/**
 * sim_maxmin_get_flow_data:
 * Returns: (transfer none) (nullable): the user data of @flow, %NULL if stale.
 */
gpointer sim_maxmin_get_flow_data (const SimMaxmin *system, SimMaxminId flow);

/**
 * sim_maxmin_solve:
 * @system: a system
 *
 * Brings every rate up to date.  Returns at once if nothing changed since
 * the last solve; otherwise re-solves the flows whose rate the changes can
 * move, found as the top of this file says, or, failing that, the
 * connected components that contain a changed flow, resource or capacity.
 * Every rate is then that of a solve from scratch within
 * SIM_MAXMIN_TOLERANCE.
 *
 * Time complexity: O((E + R) log R + F log F) per round over the region
 *   (E counting every flow of each of its resources), at worst that over
 *   the touched components.
 *
 * Returns: the number of flows whose rate changed, which
 *   sim_maxmin_get_changed() lists.
 */
guint sim_maxmin_solve (SimMaxmin *system);

/**
 * sim_maxmin_get_changed:
 * @system: a system
 * @n_changed: (out): the length of the array
 *
 * The flows whose rate the last sim_maxmin_solve() changed (including
 * flows added since the solve before it), in no particular order.  A
 * solve that had nothing to do leaves the list empty.  The array is valid
 * until the system is next modified or solved.
 *
 * Returns: (array length=n_changed): their ids, owned by @system.
 */
const SimMaxminId *sim_maxmin_get_changed (const SimMaxmin *system, guint *n_changed);

/**
 * sim_maxmin_invalidate:
 * @system: a system
 *
 * Marks every resource and flow for the next solve, which then recomputes
 * the whole system from scratch (for tests and benchmarks).
 *
 * Time complexity: O(flows + resources).
 */
void sim_maxmin_invalidate (SimMaxmin *system);

/**
 * sim_maxmin_get_stats:
 * @system: a system
 * @stats: (out caller-allocates): filled
 */
void sim_maxmin_get_stats (const SimMaxmin *system, SimMaxminStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimMaxmin, sim_maxmin_free)

G_END_DECLS
