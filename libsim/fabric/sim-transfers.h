/* sim-transfers.h: point-to-point transfers over a topology.
 *
 * A transfer moves a number of bytes from one endpoint of a topology (a
 * GPU, or a host of sim_topology_new_hosts()) to another, starting at a
 * given time.  It is a fluid flow on its route (sim_topology_route()):
 * while it sends, it shares every directed link it crosses with the other
 * flows there, max-min fairly (sim-maxmin.h), and its rate changes only
 * when a transfer starts or finishes sending.  The route's latency is paid
 * once per transfer, after its last byte is sent:
 *
 *     completion = time its last byte leaves + route latency.
 *
 * So a transfer alone on its path takes latency + bytes / bandwidth, where
 * bandwidth is the smallest usable capacity on the path.
 *
 * The event loop keeps three queues (binary heaps keyed by time, ties by
 * transfer id): starts, ends of sending, and completions, each holding a
 * transfer at most once (a rate change moves its end of sending in place),
 * so that memory stays proportional to the transfers.  At each instant
 * it handles the completions (callbacks), then the flows that finished
 * sending (removed from the solver), then the starts (routed and added);
 * then it solves incrementally (only the components touched, see
 * sim-maxmin.h) and reschedules the end of sending of only the flows whose
 * rate changed.  Time complexity per event: O(log T) for the queues plus
 * the incremental solve.
 *
 * Simplifications: no slow start or congestion-control dynamics (each
 * flow gets its max-min share at once); latency does not delay the start
 * of sending, so a transfer's bandwidth share is taken from its start
 * time; zero-byte transfers complete at start + latency.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "core/sim-units.h"
#include "fabric/sim-topology.h"

G_BEGIN_DECLS

#define SIM_TYPE_TRANSFERS (sim_transfers_get_type ())
G_DECLARE_FINAL_TYPE (SimTransfers, sim_transfers, SIM, TRANSFERS, GObject)

/**
 * SimTransferFunc:
 * @transfers: the simulator
 * @id: the transfer's id (what sim_transfers_add() returned)
 * @completion: when it completed (ns): its last byte sent, plus its
 *   route's latency
 * @user_data: the data given to sim_transfers_add()
 *
 * Called once per transfer, in order of completion time, while
 * sim_transfers_run() runs.  It may add transfers that start at
 * @completion or later.  One that cannot do its work stops the run with
 * sim_transfers_fail().
 */
typedef void (*SimTransferFunc) (SimTransfers *transfers, guint id, SimTime completion,
                                 gpointer user_data);

/**
 * SimTransfersProgressFunc:
 * @transfers: the simulator
 * @done: transfers completed
 * @total: transfers added
 * @user_data: the data given to sim_transfers_set_progress_func()
 *
 * Called by sim_transfers_run() after each instant at which transfers
 * completed.  It may stop the run with sim_transfers_fail().
 */
typedef void (*SimTransfersProgressFunc) (SimTransfers *transfers, guint done, guint total,
                                          gpointer user_data);

/**
 * sim_transfers_new: (skip)
 * @topology: (transfer none): the network; it must outlive the simulator
 *
 * Returns: (transfer full): a simulator with no transfers, at time 0.
 */
SimTransfers *sim_transfers_new (SimTopology *topology);

/**
 * sim_transfers_new_hosts:
 * @n_hosts: the hosts, at least 2
 * @host_bandwidth: bytes/s of each host's NIC in each direction
 * @kind: single-switch, fat-tree or fat-tree-3
 * @radix: ports per switch (0 for a single switch: @n_hosts)
 * @oversubscription: down:up ports at the leaves (0 or 1: non-blocking)
 * @link_latency: ns per network link
 * @error: return location for a #GError
 *
 * A simulator on its own sim_topology_new_hosts() network (which it owns).
 *
 * Returns: (transfer full) (nullable): the simulator, or %NULL with
 *   @error set as sim_topology_new_hosts() says.
 */
SimTransfers *sim_transfers_new_hosts (guint n_hosts, double host_bandwidth, SimFabricKind kind,
                                       guint radix, double oversubscription,
                                       SimTime link_latency, GError **error);

/**
 * sim_transfers_get_topology: (skip)
 *
 * Returns: (transfer none): the network.
 */
SimTopology *sim_transfers_get_topology (SimTransfers *self);

/**
 * sim_transfers_get_n_endpoints:
 *
 * Returns: the endpoints transfers can name (GPUs or hosts).
 */
guint sim_transfers_get_n_endpoints (SimTransfers *self);

/**
 * sim_transfers_add:
 * @self: a simulator
 * @src: the sending endpoint (GPU or host index)
 * @dst: the receiving endpoint, not @src
 * @bytes: how much to move, >= 0 and finite
 * @start: when it starts (ns), >= 0, and not before the current time
 *   (sim_transfers_get_now(): where a callback is called, or where the
 *   last sim_transfers_run() stopped)
 * @func: (nullable) (scope notified) (closure user_data) (destroy destroy):
 *   called at completion
 * @user_data: (nullable): passed to @func
 * @destroy: (nullable): frees @user_data once the transfer has completed
 *   (or with the simulator)
 * @error: return location for a #GError
 *
 * Adds a transfer; it runs in sim_transfers_run().  Its route is taken
 * when it starts.
 *
 * Errors: SIM_ERROR_INVALID naming the bad argument: an endpoint that does
 * not exist, @src equal to @dst, negative or non-finite @bytes, a negative
 * @start or one in the past, or endpoints the network does not connect.
 *
 * Returns: the transfer's id (ids count from 1), or 0 on error.
 */
guint sim_transfers_add (SimTransfers *self, guint src, guint dst, double bytes, SimTime start,
                         SimTransferFunc func, gpointer user_data, GDestroyNotify destroy,
                         GError **error);

/**
 * sim_transfers_add_from_file:
 * @self: a simulator
 * @path: a CSV file
 * @n_added: (out) (optional): how many transfers it added (their ids follow
 *   the ids before, in the order of the rows)
 * @error: return location for a #GError
 *
 * Adds a transfer for each row of @path, a CSV file whose header names the
 * columns `src`, `dst`, `bytes` and, optionally, `start` (any order, any
 * case):
 *
 * - `src`, `dst`: endpoints (GPU or host indices, from 0), not equal;
 * - `bytes`: a size, whole bytes ("1000000", "1e9") or with a unit ("100MB",
 *   "1GiB", "64K");
 * - `start`: when it starts, a duration with a unit ("250us", "1.5ms") or
 *   a plain number of seconds; 0 when the column is absent.
 *
 * Blank lines are skipped.  Every row is checked before any is added.
 *
 * Errors: SIM_ERROR_IO if @path cannot be read; SIM_ERROR_TRACE naming the
 * file, line and column and what was expected, for a missing or unknown
 * column, a bad value, an endpoint that does not exist, a start before
 * the simulator's time; SIM_ERROR_INVALID naming the line for endpoints
 * the network does not connect (found as transfers are added: the rows
 * before it are then already added).
 *
 * Returns: (skip): %TRUE on success.
 */
gboolean sim_transfers_add_from_file (SimTransfers *self, const char *path, guint *n_added,
                                      GError **error);

/**
 * sim_transfers_set_progress_func:
 * @self: a simulator
 * @func: (nullable) (scope notified) (closure user_data) (destroy destroy): called
 *   as transfers complete, or %NULL for none
 * @user_data: (nullable): passed to @func
 * @destroy: (nullable): frees @user_data when replaced or with the simulator
 */
void sim_transfers_set_progress_func (SimTransfers *self, SimTransfersProgressFunc func,
                                      gpointer user_data, GDestroyNotify destroy);

/**
 * sim_transfers_get_n_transfers:
 *
 * Returns: the transfers added (ids 1 to this).
 */
guint sim_transfers_get_n_transfers (SimTransfers *self);

/**
 * sim_transfers_get_transfer:
 * @self: a simulator
 * @id: a transfer id
 * @src: (out) (optional): its source endpoint
 * @dst: (out) (optional): its destination endpoint
 * @bytes: (out) (optional): its size
 * @start: (out) (optional): when it starts (ns)
 *
 * Returns: %FALSE if there is no transfer @id.
 */
gboolean sim_transfers_get_transfer (SimTransfers *self, guint id, guint *src, guint *dst,
                                     double *bytes, SimTime *start);

/**
 * sim_transfers_write_csv:
 * @self: a simulator
 * @path: the file to write (replaced whole, or left as it was on error)
 * @error: return location for a #GError
 *
 * Writes one row per transfer, in id order: `id,src,dst,bytes,start_s,
 * end_s,duration_s,gbytes_per_s` (end, duration and bytes per second
 * empty for a transfer not completed; seconds to the nanosecond).
 *
 * Errors: SIM_ERROR_IO naming @path.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_transfers_write_csv (SimTransfers *self, const char *path, GError **error);

/**
 * sim_transfers_run:
 * @self: a simulator
 * @error: return location for a #GError
 *
 * Runs until every transfer added (including those added by callbacks) has
 * completed.  May be called again after adding more transfers; time goes
 * on from where it stopped.
 *
 * Errors: SIM_ERROR_STATE if called from a callback; SIM_ERROR_INVALID
 * for a transfer that would end past the range of simulated time; the
 * error given to sim_transfers_fail(), as it was given.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_transfers_run (SimTransfers *self, GError **error);

/**
 * sim_transfers_fail:
 * @self: a simulator
 * @error: (transfer none): what went wrong (copied)
 *
 * Stops the run with an error: the way for a callback (a #SimTransferFunc
 * or a #SimTransfersProgressFunc, which return nothing) that cannot do its
 * work, for instance one written in another language that raised, to
 * stop the run rather than let it go on without the transfers it would
 * have added.  sim_transfers_run() stops as soon as the callback returns
 * (the transfers completing at the same instant whose callbacks have not
 * run yet stay incomplete) and returns %FALSE with a copy of @error (its
 * domain, code and message); so does every later run, as the transfers'
 * times would depend on what the callback left undone.  Called outside a
 * run, the next run fails at its start.  The first error stands.
 * Time complexity: O(1).
 *
 * Returns: %TRUE if the run now fails with @error; %FALSE if it had
 *   already failed (the earlier error is kept).
 */
gboolean sim_transfers_fail (SimTransfers *self, const GError *error);

/**
 * sim_transfers_get_completion:
 * @self: a simulator
 * @id: a transfer id
 *
 * Returns: when transfer @id completed (ns), or -1 if it has not (or
 *   there is no such transfer).
 */
SimTime sim_transfers_get_completion (SimTransfers *self, guint id);

/**
 * sim_transfers_get_now:
 *
 * Returns: the simulated time reached (ns).
 */
SimTime sim_transfers_get_now (SimTransfers *self);

/**
 * sim_transfers_get_n_solves:
 *
 * Returns: the bandwidth solves that did work (sim_maxmin_get_stats()).
 */
guint64 sim_transfers_get_n_solves (SimTransfers *self);

/**
 * sim_transfers_get_n_events:
 *
 * Returns: the instants the event loop has handled.
 */
guint64 sim_transfers_get_n_events (SimTransfers *self);

G_END_DECLS
