/* sim-engine.h: the discrete-event engine.
 *
 * One pending-event set, a binary min-heap ordered by (time, sequence
 * number).  The sequence number is assigned when an event is scheduled, so
 * events at the same instant run in the order they were scheduled and a run
 * is reproducible bit for bit.  Heap entries hold the 16-byte key and a pool
 * index inline, so sifting touches only the heap array; the payload (kind,
 * target, argument) lives in a pool slot that is recycled through a free
 * list.  Nothing is allocated per event once the pool has grown to the
 * largest number of pending events.
 *
 * Cancellation is lazy: sim_engine_cancel() marks the slot, and the event is
 * dropped when it reaches the top of the heap.  Models may also cancel
 * lazily themselves by carrying a version number in the event's @tag and
 * ignoring events whose version is stale (jobs do this when their rate
 * changes).
 *
 * Events are dispatched by kind through a table of handlers registered with
 * sim_engine_register().  A handler may schedule and cancel events and may
 * call sim_engine_stop() to return control to the caller after it returns;
 * this is how a simulation pauses at its next scheduling decision.
 *
 * Alternatives rejected: a calendar queue (faster at some sizes but its
 * tie-breaking and resizing make determinism and worst cases harder); a
 * pairing heap (pointer-chasing, and no better than an implicit binary
 * heap at the sizes a cluster simulation holds).
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "sim-units.h"

G_BEGIN_DECLS

typedef struct _SimEngine SimEngine;

/**
 * SimEvent:
 * @time: when the event fires
 * @seq: its sequence number, unique within the engine
 * @kind: the handler it is dispatched to
 * @tag: a small model-defined value (often a version for lazy cancellation)
 * @target: a model-defined object (not owned)
 * @arg: a model-defined integer
 *
 * An event as its handler sees it.
 */
typedef struct {
  SimTime  time;
  guint64  seq;
  guint32  kind;
  guint32  tag;
  gpointer target;
  gint64   arg;
} SimEvent;

/**
 * SimEventId:
 *
 * Names a scheduled event, for sim_engine_cancel().  0 names no event.
 */
typedef guint64 SimEventId;

typedef void (*SimEventHandler) (SimEngine *engine, const SimEvent *event, gpointer user_data);

/**
 * SimRunStatus:
 * @SIM_RUN_EMPTY: no events are left
 * @SIM_RUN_TIME_REACHED: the time limit was reached
 * @SIM_RUN_STOPPED: a handler called sim_engine_stop()
 * @SIM_RUN_FAILED: an event was refused (sim_engine_get_error() says why);
 *   the engine dispatches nothing more
 */
typedef enum {
  SIM_RUN_EMPTY,
  SIM_RUN_TIME_REACHED,
  SIM_RUN_STOPPED,
  SIM_RUN_FAILED,
} SimRunStatus;

/**
 * sim_engine_new: (skip)
 */
SimEngine *sim_engine_new (void);
/**
 * sim_engine_free: (skip)
 */
void       sim_engine_free (SimEngine *engine);

/**
 * sim_engine_register: (skip)
 * @engine: an engine
 * @handler: the function that handles events of the new kind
 * @user_data: passed to @handler
 *
 * Returns: the kind number to pass to sim_engine_schedule().
 */
guint32 sim_engine_register (SimEngine *engine, SimEventHandler handler, gpointer user_data);

/**
 * sim_engine_schedule:
 * @engine: an engine
 * @time: when the event fires; not earlier than sim_engine_now(), and
 *   before %SIM_TIME_NEVER (the end of simulated time)
 * @kind: a kind returned by sim_engine_register()
 * @tag: model-defined
 * @target: model-defined, not owned
 * @arg: model-defined
 *
 * An event before now, or at or after the end of time, is a model's error
 * (a time computed past what 64-bit nanoseconds hold, say), not a
 * programming error: it is refused, the engine keeps a SIM_ERROR_INVALID
 * error saying when the event was due and when it is now (the first such
 * error only), and sim_engine_run() returns %SIM_RUN_FAILED after the
 * current event without dispatching anything more.
 *
 * Time complexity: O(log n) in the number of pending events.
 *
 * Returns: an id for sim_engine_cancel(), or 0 if the event was refused.
 */
SimEventId sim_engine_schedule (SimEngine *engine, SimTime time, guint32 kind, guint32 tag,
                                gpointer target, gint64 arg);

/**
 * sim_engine_cancel:
 * @engine: an engine
 * @id: an id from sim_engine_schedule()
 *
 * Cancels a pending event.  Cancelling an event that already fired, or was
 * already cancelled, does nothing.  O(1).
 *
 * Returns: %TRUE if a pending event was cancelled.
 */
gboolean sim_engine_cancel (SimEngine *engine, SimEventId id);

/**
 * sim_engine_now:
 *
 * Returns: the current simulated time.
 */
SimTime sim_engine_now (const SimEngine *engine);

/**
 * sim_engine_pending:
 *
 * Returns: the number of pending, uncancelled events.
 */
gsize sim_engine_pending (const SimEngine *engine);

/**
 * sim_engine_dispatched:
 *
 * Returns: how many events have been dispatched.
 */
guint64 sim_engine_dispatched (const SimEngine *engine);

/**
 * sim_engine_next_time:
 *
 * Returns: the time of the earliest pending event, or %SIM_TIME_NEVER.
 */
SimTime sim_engine_next_time (SimEngine *engine);

/**
 * sim_engine_get_error: (skip)
 *
 * Returns: (nullable) (transfer none): why an event was refused, or %NULL.
 */
const GError *sim_engine_get_error (const SimEngine *engine);

/**
 * sim_engine_run:
 * @engine: an engine
 * @until: dispatch events whose time is at most this (%SIM_TIME_NEVER: all)
 *
 * Dispatches events in (time, sequence) order until none are left, the next
 * one is later than @until (the clock then advances to @until), a
 * handler calls sim_engine_stop(), or an event was refused (see
 * sim_engine_schedule(): then nothing is dispatched and the clock stays).
 *
 * Returns: why the run returned.
 */
SimRunStatus sim_engine_run (SimEngine *engine, SimTime until);

/**
 * sim_engine_step:
 *
 * Dispatches the next pending event, if any, unless an event was refused.
 *
 * Returns: %TRUE if an event was dispatched.
 */
gboolean sim_engine_step (SimEngine *engine);

/**
 * sim_engine_stop:
 *
 * Asks sim_engine_run() to return after the current event.
 */
void sim_engine_stop (SimEngine *engine);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimEngine, sim_engine_free)

G_END_DECLS
