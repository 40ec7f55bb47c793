/* check-engine.c: the discrete-event engine.
 *
 * What this suite asserts: events are dispatched in (time, scheduling
 * order); an event scheduled at the current time by a handler runs after
 * those already pending at that time; cancelled events never run, and
 * sim_engine_cancel() says TRUE exactly once per pending event, never for a
 * stale id; the pending and dispatched counts; how sim_engine_run() stops
 * (time limit, stop request, no events) and where it leaves the clock;
 * sim_engine_step(); that scheduling with an unknown kind is refused with a
 * critical warning, and an event before now or at the end of time with a
 * GError that fails the run (SIM_RUN_FAILED); and, over 100,000 random operations, that
 * the dispatch order equals an independent sort of the events that were not
 * cancelled, identically from one run to the next.
 *
 * What it does not assert: the values of event ids or sequence numbers
 * (only that sequence numbers increase in scheduling order), how the pool
 * grows, or speed (bench/bench-engine measures that).
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim-error.h"
#include "core/sim-units.h"
#include "core/sim-engine.h"

/* ---- A recording handler ------------------------------------------------ */

typedef struct {
  SimTime  time;
  guint64  seq;
  gint64   arg;
  guint32  kind;
  guint32  tag;
  gpointer target;
} Rec;

/* What the recording handler does besides recording, keyed by the @arg of
 * the event it is handling. */
typedef struct {
  GArray    *log;             /* of Rec */
  SimEngine *engine;
  guint32    kind;
  gint64     stop_at;         /* call sim_engine_stop() */
  gint64     spawn_at;        /* schedule @spawn_arg at now + @spawn_delay */
  gint64     spawn_arg;
  SimTime    spawn_delay;
  gint64     cancel_at;       /* cancel @cancel_id, result in @cancel_result */
  SimEventId cancel_id;
  gboolean   cancel_result;
} Ctx;

static void
record (SimEngine *engine, const SimEvent *event, gpointer user_data)
{
  Ctx *ctx = user_data;
  Rec r = { event->time, event->seq, event->arg, event->kind, event->tag, event->target };

  ck_assert_int_eq (sim_engine_now (engine), event->time);
  g_array_append_val (ctx->log, r);
  if (event->arg == ctx->stop_at)
    sim_engine_stop (engine);
  if (event->arg == ctx->spawn_at)
    sim_engine_schedule (engine, event->time + ctx->spawn_delay, ctx->kind, 0, NULL,
                         ctx->spawn_arg);
  if (event->arg == ctx->cancel_at)
    ctx->cancel_result = sim_engine_cancel (engine, ctx->cancel_id);
}

static void
ctx_init (Ctx *ctx)
{
  memset (ctx, 0, sizeof *ctx);
  ctx->engine = sim_engine_new ();
  ctx->log = g_array_new (FALSE, FALSE, sizeof (Rec));
  ctx->kind = sim_engine_register (ctx->engine, record, ctx);
  ctx->stop_at = ctx->spawn_at = ctx->cancel_at = -1;
}

static void
ctx_clear (Ctx *ctx)
{
  sim_engine_free (ctx->engine);
  g_array_unref (ctx->log);
}

static SimEventId
at (Ctx *ctx, SimTime time, gint64 arg)
{
  SimEventId id = sim_engine_schedule (ctx->engine, time, ctx->kind, 0, NULL, arg);

  ck_assert_uint_ne (id, 0);
  return id;
}

static const Rec *
rec (Ctx *ctx, guint i)
{
  ck_assert_uint_lt (i, ctx->log->len);
  return &g_array_index (ctx->log, Rec, i);
}

/* Asserts that the events ran with these args, in this order. */
static void
assert_args (Ctx *ctx, const gint64 *args, guint n)
{
  ck_assert_uint_eq (ctx->log->len, n);
  for (guint i = 0; i < n; i++)
    ck_assert_msg (rec (ctx, i)->arg == args[i], "event %u: arg %" G_GINT64_FORMAT
                   ", expected %" G_GINT64_FORMAT, i, rec (ctx, i)->arg, args[i]);
}

/* ---- Order -------------------------------------------------------------- */

START_TEST (test_time_order)
{
  static const SimTime times[] = { 50, 10, 30, 20, 40, 0, 1000000 };
  static const gint64 expected[] = { 5, 1, 3, 2, 4, 0, 6 };
  Ctx ctx;

  ctx_init (&ctx);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 0);
  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    at (&ctx, times[i], i);
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), G_N_ELEMENTS (times));
  ck_assert_int_eq (sim_engine_next_time (ctx.engine), 0);
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  assert_args (&ctx, expected, G_N_ELEMENTS (expected));
  for (guint i = 1; i < ctx.log->len; i++)
    ck_assert_int_lt (rec (&ctx, i - 1)->time, rec (&ctx, i)->time);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 1000000);
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 0);
  ck_assert_uint_eq (sim_engine_dispatched (ctx.engine), G_N_ELEMENTS (times));
  ck_assert_int_eq (sim_engine_next_time (ctx.engine), SIM_TIME_NEVER);
  ctx_clear (&ctx);
}
END_TEST

START_TEST (test_ties_in_scheduling_order)
{
  Ctx ctx;

  ctx_init (&ctx);
  /* 300 events at three instants, interleaved; more than the initial heap
   * capacity, so ties survive growth and deep sifting. */
  for (gint64 i = 0; i < 300; i++)
    at (&ctx, (2 - i % 3) * SIM_SECOND, i);
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert_uint_eq (ctx.log->len, 300);
  for (guint i = 1; i < 300; i++)
    {
      const Rec *a = rec (&ctx, i - 1), *b = rec (&ctx, i);
      ck_assert_int_le (a->time, b->time);
      if (a->time == b->time)
        {
          ck_assert_int_lt (a->arg, b->arg);
          ck_assert_uint_lt (a->seq, b->seq);
        }
    }
  ck_assert_int_eq (rec (&ctx, 0)->arg, 2);     /* first scheduled at time 0 */
  ck_assert_int_eq (rec (&ctx, 299)->arg, 297); /* last scheduled at time 2 s */
  ctx_clear (&ctx);
}
END_TEST

START_TEST (test_schedule_now_runs_after_pending)
{
  static const gint64 expected[] = { 1, 2, 3, 10, 4 };
  Ctx ctx;

  ctx_init (&ctx);
  at (&ctx, 10, 1);
  at (&ctx, 10, 2);
  at (&ctx, 10, 3);
  at (&ctx, 11, 4);
  /* When 1 runs at time 10, it schedules 10 at time 10: after 2 and 3,
   * which were already pending at that time, and before 4. */
  ctx.spawn_at = 1;
  ctx.spawn_arg = 10;
  ctx.spawn_delay = 0;
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  assert_args (&ctx, expected, G_N_ELEMENTS (expected));
  ck_assert_int_eq (rec (&ctx, 3)->time, 10);
  ctx_clear (&ctx);
}
END_TEST

/* The last pending event schedules one at the current time: the run goes on. */
START_TEST (test_schedule_now_from_last_event)
{
  static const gint64 expected[] = { 1, 2 };
  Ctx ctx;

  ctx_init (&ctx);
  at (&ctx, 5, 1);
  ctx.spawn_at = 1;
  ctx.spawn_arg = 2;
  ck_assert_int_ne (sim_engine_run (ctx.engine, 5), SIM_RUN_STOPPED);
  assert_args (&ctx, expected, G_N_ELEMENTS (expected));
  ck_assert_int_eq (sim_engine_now (ctx.engine), 5);
  ctx_clear (&ctx);
}
END_TEST

/* ---- Handlers and payload ----------------------------------------------- */

typedef struct {
  int      calls;
  guint32  kind_seen;
  guint32  tag_seen;
  gpointer target_seen;
  gint64   arg_seen;
} Counter;

static void
count (SimEngine *engine, const SimEvent *event, gpointer user_data)
{
  Counter *c = user_data;

  c->calls++;
  c->kind_seen = event->kind;
  c->tag_seen = event->tag;
  c->target_seen = event->target;
  c->arg_seen = event->arg;
}

START_TEST (test_dispatch_by_kind)
{
  g_autoptr(SimEngine) e = sim_engine_new ();
  Counter a = { 0 }, b = { 0 };
  guint32 ka = sim_engine_register (e, count, &a);
  guint32 kb = sim_engine_register (e, count, &b);
  int target;

  ck_assert_uint_ne (ka, kb);
  sim_engine_schedule (e, 1, ka, 7, &target, -42);
  sim_engine_schedule (e, 2, kb, G_MAXUINT32, NULL, G_MAXINT64);
  sim_engine_schedule (e, 3, kb, 0, NULL, 0);
  ck_assert (sim_engine_step (e));
  ck_assert_int_eq (a.calls, 1);
  ck_assert_int_eq (b.calls, 0);
  ck_assert_uint_eq (a.kind_seen, ka);
  ck_assert_uint_eq (a.tag_seen, 7);
  ck_assert_ptr_eq (a.target_seen, &target);
  ck_assert_int_eq (a.arg_seen, -42);
  ck_assert (sim_engine_step (e));
  ck_assert_int_eq (b.calls, 1);
  ck_assert_uint_eq (b.kind_seen, kb);
  ck_assert_uint_eq (b.tag_seen, G_MAXUINT32);
  ck_assert_ptr_null (b.target_seen);
  ck_assert_int_eq (b.arg_seen, G_MAXINT64);
  ck_assert (sim_engine_step (e));
  ck_assert_int_eq (b.calls, 2);
  ck_assert (!sim_engine_step (e));
  ck_assert_uint_eq (sim_engine_dispatched (e), 3);
}
END_TEST

/* ---- Cancellation ------------------------------------------------------- */

START_TEST (test_cancel)
{
  static const gint64 expected[] = { 1, 3, 5, 7, 9 };
  SimEventId ids[10];
  Ctx ctx;

  ctx_init (&ctx);
  for (gint64 i = 0; i < 10; i++)
    ids[i] = at (&ctx, 100 - i, 9 - i);   /* arg 9 - i at time 100 - i */
  for (gint64 i = 0; i < 10; i++)
    if ((9 - i) % 2 == 0)
      ck_assert (sim_engine_cancel (ctx.engine, ids[i]));
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 5);
  /* Twice: nothing left to cancel. */
  ck_assert (!sim_engine_cancel (ctx.engine, ids[9]));
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 5);
  /* The earliest event (arg 0 at time 91) is cancelled: next_time skips it. */
  ck_assert_int_eq (sim_engine_next_time (ctx.engine), 92);
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  assert_args (&ctx, expected, G_N_ELEMENTS (expected));
  /* After firing. */
  ck_assert (!sim_engine_cancel (ctx.engine, ids[0]));
  ck_assert (!sim_engine_cancel (ctx.engine, ids[8]));
  /* Ids that were never handed out. */
  ck_assert (!sim_engine_cancel (ctx.engine, 0));
  ck_assert (!sim_engine_cancel (ctx.engine, G_MAXUINT64));
  ck_assert (!sim_engine_cancel (ctx.engine, ids[0] + (G_GUINT64_CONSTANT (1000) << 32)));
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 0);
  ck_assert_uint_eq (sim_engine_dispatched (ctx.engine), 5);
  ctx_clear (&ctx);
}
END_TEST

START_TEST (test_cancel_everything)
{
  SimEventId ids[1000];
  Ctx ctx;

  ctx_init (&ctx);
  for (gint64 i = 0; i < 1000; i++)
    ids[i] = at (&ctx, i % 17, i);
  for (gint64 i = 999; i >= 0; i--)
    ck_assert (sim_engine_cancel (ctx.engine, ids[i]));
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 0);
  ck_assert_int_eq (sim_engine_next_time (ctx.engine), SIM_TIME_NEVER);
  ck_assert (!sim_engine_step (ctx.engine));
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert_uint_eq (ctx.log->len, 0);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 0);
  ctx_clear (&ctx);
}
END_TEST

/* An id outlives its event; the pool slot behind it is then reused.  The
 * old id must not cancel the new event. */
START_TEST (test_cancel_stale_id)
{
  SimEventId a, b, c, d;
  Ctx ctx;

  ctx_init (&ctx);
  /* Fired, then reused. */
  a = at (&ctx, 1, 1);
  ck_assert (sim_engine_step (ctx.engine));
  b = at (&ctx, 2, 2);
  ck_assert_uint_ne (a, b);
  ck_assert (!sim_engine_cancel (ctx.engine, a));
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 1);
  ck_assert (sim_engine_step (ctx.engine));
  ck_assert_int_eq (rec (&ctx, 1)->arg, 2);

  /* Cancelled, dropped from the heap, then reused. */
  c = at (&ctx, 3, 3);
  ck_assert (sim_engine_cancel (ctx.engine, c));
  ck_assert_int_eq (sim_engine_next_time (ctx.engine), SIM_TIME_NEVER);
  d = at (&ctx, 4, 4);
  ck_assert (!sim_engine_cancel (ctx.engine, c));
  ck_assert (!sim_engine_cancel (ctx.engine, a));
  ck_assert (!sim_engine_cancel (ctx.engine, b));
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 1);
  ck_assert (sim_engine_step (ctx.engine));
  ck_assert_int_eq (rec (&ctx, 2)->arg, 4);
  ck_assert (!sim_engine_cancel (ctx.engine, d));
  ck_assert_uint_eq (ctx.log->len, 3);
  ctx_clear (&ctx);
}
END_TEST

START_TEST (test_cancel_from_handler)
{
  static const gint64 expected[] = { 1, 3 };
  Ctx ctx;

  ctx_init (&ctx);
  at (&ctx, 10, 1);
  ctx.cancel_id = at (&ctx, 10, 2);   /* same time, pending when 1 runs */
  at (&ctx, 20, 3);
  ctx.cancel_at = 1;
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert (ctx.cancel_result);
  assert_args (&ctx, expected, G_N_ELEMENTS (expected));
  ctx_clear (&ctx);
}
END_TEST

/* An event being handled has already left the pending set. */
START_TEST (test_cancel_self_from_handler)
{
  Ctx ctx;

  ctx_init (&ctx);
  ctx.cancel_id = at (&ctx, 10, 1);
  ctx.cancel_at = 1;
  ctx.cancel_result = TRUE;
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert (!ctx.cancel_result);
  ck_assert_uint_eq (ctx.log->len, 1);
  ctx_clear (&ctx);
}
END_TEST

/* ---- Counts, run, step, stop -------------------------------------------- */

START_TEST (test_pending)
{
  SimEventId ids[5];
  Ctx ctx;

  ctx_init (&ctx);
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 0);
  for (gint64 i = 0; i < 5; i++)
    {
      ids[i] = at (&ctx, 10 * (i + 1), i);
      ck_assert_uint_eq (sim_engine_pending (ctx.engine), i + 1);
    }
  ck_assert (sim_engine_cancel (ctx.engine, ids[2]));
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 4);
  ck_assert (sim_engine_step (ctx.engine));
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 3);
  ck_assert_uint_eq (sim_engine_dispatched (ctx.engine), 1);
  ck_assert_int_eq (sim_engine_run (ctx.engine, 25), SIM_RUN_TIME_REACHED);
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 2);
  /* The cancelled event at 30 is the earliest left in the heap. */
  ck_assert_int_eq (sim_engine_next_time (ctx.engine), 40);
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 2);
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 0);
  ck_assert_uint_eq (sim_engine_dispatched (ctx.engine), 4);
  ctx_clear (&ctx);
}
END_TEST

START_TEST (test_run_until)
{
  Ctx ctx;

  ctx_init (&ctx);
  at (&ctx, 10, 1);
  at (&ctx, 20, 2);
  at (&ctx, 30, 3);

  /* Stops before later events; the clock advances to the limit. */
  ck_assert_int_eq (sim_engine_run (ctx.engine, 15), SIM_RUN_TIME_REACHED);
  ck_assert_uint_eq (ctx.log->len, 1);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 15);
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 2);

  /* The limit is inclusive. */
  ck_assert_int_eq (sim_engine_run (ctx.engine, 20), SIM_RUN_TIME_REACHED);
  ck_assert_uint_eq (ctx.log->len, 2);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 20);

  /* A limit in the past does nothing and does not move the clock back. */
  ck_assert_int_eq (sim_engine_run (ctx.engine, 5), SIM_RUN_TIME_REACHED);
  ck_assert_uint_eq (ctx.log->len, 2);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 20);

  /* Running out of events before the limit still brings the clock to it. */
  ck_assert_int_eq (sim_engine_run (ctx.engine, 1000), SIM_RUN_TIME_REACHED);
  ck_assert_uint_eq (ctx.log->len, 3);
  ck_assert_int_eq (rec (&ctx, 2)->time, 30);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 1000);

  /* Nothing left, no limit. */
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 1000);

  /* Events can still be scheduled from the new clock on. */
  at (&ctx, 1000, 4);
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert_uint_eq (ctx.log->len, 4);
  ctx_clear (&ctx);
}
END_TEST

START_TEST (test_stop)
{
  static const gint64 expected[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
  Ctx ctx;

  ctx_init (&ctx);
  for (gint64 i = 0; i < 8; i++)
    at (&ctx, 10 * i, i);
  ctx.stop_at = 2;
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_STOPPED);
  ck_assert_uint_eq (ctx.log->len, 3);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 20);
  ck_assert_uint_eq (sim_engine_pending (ctx.engine), 5);

  /* A stop takes precedence over the time limit, and the clock stays at
   * the event that asked for it. */
  ctx.stop_at = 4;
  ck_assert_int_eq (sim_engine_run (ctx.engine, 1000), SIM_RUN_STOPPED);
  ck_assert_uint_eq (ctx.log->len, 5);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 40);

  /* A later run continues where the last one stopped. */
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  assert_args (&ctx, expected, G_N_ELEMENTS (expected));
  ctx_clear (&ctx);
}
END_TEST

START_TEST (test_step)
{
  SimEventId id;
  Ctx ctx;

  ctx_init (&ctx);
  ck_assert (!sim_engine_step (ctx.engine));
  at (&ctx, 7, 1);
  id = at (&ctx, 8, 2);
  at (&ctx, 9, 3);
  ck_assert (sim_engine_cancel (ctx.engine, id));
  ck_assert (sim_engine_step (ctx.engine));
  ck_assert_int_eq (sim_engine_now (ctx.engine), 7);
  ck_assert (sim_engine_step (ctx.engine));   /* skips the cancelled event */
  ck_assert_int_eq (sim_engine_now (ctx.engine), 9);
  ck_assert_int_eq (rec (&ctx, 1)->arg, 3);
  ck_assert (!sim_engine_step (ctx.engine));
  ck_assert_int_eq (sim_engine_now (ctx.engine), 9);
  ck_assert_uint_eq (sim_engine_dispatched (ctx.engine), 2);
  ctx_clear (&ctx);
}
END_TEST

/* ---- Refused calls ------------------------------------------------------ */

static int n_criticals;

static void
count_criticals (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  if (level & G_LOG_LEVEL_CRITICAL)
    n_criticals++;
}

START_TEST (test_refused)
{
  GLogFunc old_handler;
  gpointer old_data = NULL;
  GLogLevelFlags old_fatal;
  Ctx ctx;

  old_fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
  old_handler = g_log_set_default_handler (count_criticals, NULL);
  n_criticals = 0;

  ctx_init (&ctx);
  at (&ctx, 100, 1);
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert_int_eq (sim_engine_now (ctx.engine), 100);

  /* A kind that was never registered is a programming error. */
  ck_assert_uint_eq (sim_engine_schedule (ctx.engine, 200, ctx.kind + 1, 0, NULL, 2), 0);
  ck_assert_int_eq (n_criticals, 1);
  ck_assert_ptr_null (sim_engine_get_error (ctx.engine));

  /* At the current time is fine. */
  at (&ctx, 100, 3);
  ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert_uint_eq (ctx.log->len, 2);
  ck_assert_int_eq (rec (&ctx, 1)->arg, 3);
  ctx_clear (&ctx);
  ck_assert_int_eq (n_criticals, 1);

  g_log_set_default_handler (old_handler, old_data);
  g_log_set_always_fatal (old_fatal);
}
END_TEST

/* An event before now, or at the end of time (a time computed past what
 * 64-bit nanoseconds hold), is a model's error: refused without a critical
 * warning, kept as a GError, and the run fails without dispatching the
 * events still pending. */
START_TEST (test_refused_time)
{
  static const struct {
    SimTime     time;
    const char *needle;
  } cases[] = {
    { 99, "an event is due at 99 ns, before the current time (100 ns)" },
    { -1, "an event is due at -1 ns, before the current time (100 ns)" },
    { G_MININT64, "before the current time" },
    { SIM_TIME_NEVER, "an event is due at the end of simulated time" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Ctx ctx;
      const GError *error;

      ctx_init (&ctx);
      at (&ctx, 100, 1);
      at (&ctx, 500, 2);
      ck_assert_int_eq (sim_engine_run (ctx.engine, 100), SIM_RUN_TIME_REACHED);
      ck_assert_uint_eq (ctx.log->len, 1);
      ck_assert_ptr_null (sim_engine_get_error (ctx.engine));

      ck_assert_uint_eq (sim_engine_schedule (ctx.engine, cases[i].time, ctx.kind, 0, NULL, 9),
                         0);
      error = sim_engine_get_error (ctx.engine);
      ck_assert_ptr_nonnull (error);
      ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
      ck_assert_msg (strstr (error->message, cases[i].needle) != NULL, "%s", error->message);
      /* Only the first refusal is kept. */
      ck_assert_uint_eq (sim_engine_schedule (ctx.engine, 0, ctx.kind, 0, NULL, 9), 0);
      ck_assert_ptr_eq (sim_engine_get_error (ctx.engine), error);

      /* The event at 500 is never dispatched, by run or by step. */
      ck_assert_int_eq (sim_engine_run (ctx.engine, SIM_TIME_NEVER), SIM_RUN_FAILED);
      ck_assert (!sim_engine_step (ctx.engine));
      ck_assert_uint_eq (ctx.log->len, 1);
      ck_assert_int_eq (sim_engine_now (ctx.engine), 100);
      ctx_clear (&ctx);
    }

  /* Before the first event, times before 0 are in the past too. */
  {
    g_autoptr(SimEngine) e = sim_engine_new ();
    Counter c = { 0 };
    guint32 k = sim_engine_register (e, count, &c);
    ck_assert_uint_eq (sim_engine_schedule (e, -5, k, 0, NULL, 0), 0);
    ck_assert_int_eq (sim_engine_run (e, SIM_TIME_NEVER), SIM_RUN_FAILED);
    ck_assert_int_eq (c.calls, 0);
  }
}
END_TEST

/* ---- Randomized stress against a reference ------------------------------ */

/* Check reports every passing assertion to the parent process; the hot
 * loops below check with this instead, which only calls Check on failure. */
#define CHECK(cond) \
  do { \
    if (G_UNLIKELY (!(cond))) \
      ck_abort_msg ("%s:%d: %s", __FILE__, __LINE__, #cond); \
  } while (0)

enum { PENDING, FIRED, CANCELLED };

/* Every event the stress test schedules is numbered in scheduling order;
 * the engine carries the number in @arg. */
typedef struct {
  SimTime    time;
  SimEventId id;
  guint64    seq;     /* as dispatched */
  int        state;
} Ref;

typedef struct {
  SimEngine *engine;
  guint32    kind;
  GRand     *rand;
  GArray    *refs;     /* of Ref, by number */
  GArray    *order;    /* numbers, in dispatch order */
  GArray    *trace;    /* (time, seq, arg) per dispatch, for determinism */
  gsize      n_pending;
  gsize      max_pending;
  gboolean   stopped;
} Stress;

static SimTime
random_delay (Stress *s)
{
  /* A quarter of the events at the current time, the rest on a grid of
   * 1000 instants ahead: plenty of ties.  All times stay multiples of 100. */
  if (g_rand_int_range (s->rand, 0, 4) == 0)
    return 0;
  return 100 * g_rand_int_range (s->rand, 0, 1000);
}

static void
stress_schedule (Stress *s)
{
  Ref r = { 0 };
  guint number = s->refs->len;

  r.time = sim_engine_now (s->engine) + random_delay (s);
  r.state = PENDING;
  r.id = sim_engine_schedule (s->engine, r.time, s->kind, number & 0xffff, s, number);
  CHECK (r.id != 0);
  g_array_append_val (s->refs, r);
  s->n_pending++;
  s->max_pending = MAX (s->max_pending, s->n_pending);
}

static void
stress_cancel (Stress *s)
{
  Ref *r;
  gboolean ok;
  guint i;

  if (s->refs->len == 0)
    return;
  /* Half the time one of the last 64 events scheduled, which are likely
   * still pending; otherwise any event, which has likely fired. */
  if (g_rand_boolean (s->rand))
    i = s->refs->len - 1 - g_rand_int_range (s->rand, 0, MIN (s->refs->len, 64));
  else
    i = g_rand_int_range (s->rand, 0, s->refs->len);
  r = &g_array_index (s->refs, Ref, i);
  ok = sim_engine_cancel (s->engine, r->id);
  CHECK (ok == (r->state == PENDING));
  if (ok)
    {
      r->state = CANCELLED;
      s->n_pending--;
    }
}

static void
stress_handler (SimEngine *engine, const SimEvent *event, gpointer user_data)
{
  Stress *s = user_data;
  guint number = (guint) event->arg;
  Ref *r;
  SimTime trace[3] = { event->time, (SimTime) event->seq, event->arg };
  int action;

  CHECK (event->target == s);
  CHECK (number < s->refs->len);
  CHECK (event->tag == (number & 0xffff));
  r = &g_array_index (s->refs, Ref, number);
  CHECK (r->state == PENDING);
  CHECK (r->time == event->time);
  r->state = FIRED;
  r->seq = event->seq;
  s->n_pending--;
  g_array_append_val (s->order, number);
  g_array_append_vals (s->trace, trace, 3);

  action = g_rand_int_range (s->rand, 0, 100);
  if (action < 30)
    stress_schedule (s);
  else if (action < 40)
    stress_cancel (s);
  else if (action == 40)
    {
      sim_engine_stop (engine);
      s->stopped = TRUE;
    }
}

static gint
compare_by_time_then_number (gconstpointer a, gconstpointer b, gpointer user_data)
{
  GArray *refs = user_data;
  guint na = *(const guint *) a, nb = *(const guint *) b;
  SimTime ta = g_array_index (refs, Ref, na).time, tb = g_array_index (refs, Ref, nb).time;

  if (ta != tb)
    return ta < tb ? -1 : 1;
  return na < nb ? -1 : na > nb;
}

/* Runs @n_ops random operations and checks everything against the
 * reference.  Returns the dispatch trace. */
static GArray *
run_stress (guint32 seed, guint n_ops)
{
  Stress s = { 0 };
  g_autoptr(GArray) expected = g_array_new (FALSE, FALSE, sizeof (guint));
  guint64 last_seq = 0;
  SimRunStatus status;

  s.engine = sim_engine_new ();
  s.kind = sim_engine_register (s.engine, stress_handler, &s);
  s.rand = g_rand_new_with_seed (seed);
  s.refs = g_array_new (FALSE, FALSE, sizeof (Ref));
  s.order = g_array_new (FALSE, FALSE, sizeof (guint));
  s.trace = g_array_new (FALSE, FALSE, sizeof (SimTime));

  /* Start with a deep heap; short runs then bring it down to about a
   * thousand pending events. */
  for (guint i = 0; i < 10000; i++)
    stress_schedule (&s);
  CHECK (s.max_pending == 10000);

  for (guint op = 0; op < n_ops; op++)
    {
      int r = g_rand_int_range (s.rand, 0, 100);
      SimTime now = sim_engine_now (s.engine);

      if (r < 50)
        stress_schedule (&s);
      else if (r < 70)
        stress_cancel (&s);
      else if (r < 85)
        {
          gboolean had = s.n_pending > 0;
          s.stopped = FALSE;
          CHECK (sim_engine_step (s.engine) == had);
        }
      else
        {
          /* Short runs, so that about a thousand events stay pending. */
          SimTime until = now + 100 * g_rand_int_range (s.rand, 0, 3);

          s.stopped = FALSE;
          status = sim_engine_run (s.engine, until);
          if (s.stopped)
            {
              CHECK (status == SIM_RUN_STOPPED);
              CHECK (sim_engine_now (s.engine) <= until);
            }
          else
            {
              CHECK (status != SIM_RUN_STOPPED);
              CHECK (sim_engine_now (s.engine) == until);
              CHECK (sim_engine_next_time (s.engine) > until);
            }
        }
      CHECK (sim_engine_now (s.engine) >= now);
      CHECK (sim_engine_pending (s.engine) == s.n_pending);
    }
  /* Drain, through the stops that handlers still ask for. */
  while ((status = sim_engine_run (s.engine, SIM_TIME_NEVER)) == SIM_RUN_STOPPED)
    ;
  CHECK (status == SIM_RUN_EMPTY);
  CHECK (sim_engine_pending (s.engine) == 0);
  CHECK (s.n_pending == 0);
  CHECK (sim_engine_dispatched (s.engine) == s.order->len);

  /* The reference: every event that was not cancelled, sorted by (time,
   * scheduling order).  Whatever was scheduled from a handler came later
   * in both keys than the event being handled, so the whole dispatch
   * sequence must be this one sort. */
  for (guint i = 0; i < s.refs->len; i++)
    {
      const Ref *r = &g_array_index (s.refs, Ref, i);
      CHECK (r->state != PENDING);
      if (r->state == FIRED)
        {
          g_array_append_val (expected, i);
          /* Sequence numbers follow scheduling order. */
          CHECK (r->seq > last_seq);
          last_seq = r->seq;
        }
    }
  g_array_sort_with_data (expected, compare_by_time_then_number, s.refs);
  CHECK (expected->len == s.order->len);
  for (guint i = 0; i < expected->len; i++)
    if (g_array_index (expected, guint, i) != g_array_index (s.order, guint, i))
      ck_abort_msg ("dispatch %u: event %u, expected %u", i, g_array_index (s.order, guint, i),
                    g_array_index (expected, guint, i));
  /* Enough happened to mean something. */
  CHECK (s.order->len > n_ops / 4);
  CHECK (s.refs->len - s.order->len > n_ops / 20);
  CHECK (s.max_pending >= 10000);

  sim_engine_free (s.engine);
  g_rand_free (s.rand);
  g_array_unref (s.refs);
  g_array_unref (s.order);
  return s.trace;
}

START_TEST (test_stress)
{
  g_autoptr(GArray) trace = run_stress (20240601 + _i, 100000);

  ck_assert_uint_gt (trace->len, 0);
}
END_TEST

START_TEST (test_determinism)
{
  g_autoptr(GArray) a = run_stress (7, 20000);
  g_autoptr(GArray) b = run_stress (7, 20000);
  g_autoptr(GArray) c = run_stress (8, 20000);

  ck_assert_uint_eq (a->len, b->len);
  ck_assert (memcmp (a->data, b->data, a->len * sizeof (SimTime)) == 0);
  ck_assert (a->len != c->len || memcmp (a->data, c->data, a->len * sizeof (SimTime)) != 0);
}
END_TEST

/* ---- Suite -------------------------------------------------------------- */

static Suite *
engine_suite (void)
{
  Suite *s = suite_create ("engine");
  TCase *tc;

  tc = tcase_create ("order");
  tcase_add_test (tc, test_time_order);
  tcase_add_test (tc, test_ties_in_scheduling_order);
  tcase_add_test (tc, test_schedule_now_runs_after_pending);
  tcase_add_test (tc, test_schedule_now_from_last_event);
  tcase_add_test (tc, test_dispatch_by_kind);
  suite_add_tcase (s, tc);

  tc = tcase_create ("cancel");
  tcase_add_test (tc, test_cancel);
  tcase_add_test (tc, test_cancel_everything);
  tcase_add_test (tc, test_cancel_stale_id);
  tcase_add_test (tc, test_cancel_from_handler);
  tcase_add_test (tc, test_cancel_self_from_handler);
  suite_add_tcase (s, tc);

  tc = tcase_create ("run");
  tcase_add_test (tc, test_pending);
  tcase_add_test (tc, test_run_until);
  tcase_add_test (tc, test_stop);
  tcase_add_test (tc, test_step);
  tcase_add_test (tc, test_refused);
  tcase_add_test (tc, test_refused_time);
  suite_add_tcase (s, tc);

  tc = tcase_create ("random");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_stress, 0, 2);
  tcase_add_test (tc, test_determinism);
  suite_add_tcase (s, tc);

  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (engine_suite ());
  int failed;

  sim_init ();
  srunner_run_all (sr, CK_ENV);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
