/* bench-engine.c: event throughput of the engine on the classic "hold" model.
 *
 * The hold model keeps n events pending: each step pops the earliest event,
 * at time t, and schedules one at t + X with X exponential of mean 1 s.  It
 * measures the cost of one pop plus one push at a steady heap size n, which
 * is what a simulation's event loop pays per event.
 *
 * The same model runs twice, on the same pre-generated increments so that
 * both do identical work (the popped times are checked to agree):
 *
 *   - on a bare binary min-heap of (time, seq) keys written below, with no
 *     payload, no cancellation and no handler call: the floor any event
 *     queue of this kind can reach;
 *   - through the gpusim engine: sim_engine_schedule(), sim_engine_run()
 *     and a handler that schedules the next event, as a model would.
 *
 * Each measurement fills the heap with n events first (not timed), then
 * times enough hold steps to take about half a second; the best of a few
 * repetitions is kept, bare and engine interleaved so that both see the
 * same machine.  The figures are printed, never judged: this program only
 * fails if the two runs disagree on the order of events.
 *
 *   bench-engine [--quick]
 */
#include "config.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/sim-error.h"
#include "core/sim-units.h"
#include "core/sim-rng.h"
#include "core/sim-engine.h"

/* Increments are drawn once and read cyclically by both implementations. */
#define N_INCREMENTS (1u << 21)
#define INCREMENT_MASK (N_INCREMENTS - 1)

typedef struct {
  SimTime *inc;
  guint64  next;      /* index of the next increment */
  guint64  left;      /* hold steps still to do */
  guint64  checksum;  /* sum of popped times, wrapping */
} Hold;

/* ---- The bare heap ------------------------------------------------------ */

typedef struct {
  SimTime time;
  guint64 seq;
} Key;

typedef struct {
  Key    *a;
  gsize   n;
  guint64 next_seq;
} BareHeap;

static inline gboolean
key_less (Key x, Key y)
{
  return x.time < y.time || (x.time == y.time && x.seq < y.seq);
}

static inline void
bare_push (BareHeap *h, SimTime time)
{
  Key x = { time, h->next_seq++ };
  gsize i = h->n++;

  while (i > 0)
    {
      gsize parent = (i - 1) / 2;
      if (!key_less (x, h->a[parent]))
        break;
      h->a[i] = h->a[parent];
      i = parent;
    }
  h->a[i] = x;
}

static inline Key
bare_pop (BareHeap *h)
{
  Key top = h->a[0];
  Key x = h->a[--h->n];
  gsize n = h->n, i = 0;

  for (;;)
    {
      gsize child = 2 * i + 1;
      if (child >= n)
        break;
      if (child + 1 < n && key_less (h->a[child + 1], h->a[child]))
        child++;
      if (!key_less (h->a[child], x))
        break;
      h->a[i] = h->a[child];
      i = child;
    }
  if (n > 0)
    h->a[i] = x;
  return top;
}

/* Returns the elapsed time in microseconds. */
static gint64
run_bare (gsize pending, Hold *hold)
{
  BareHeap h = { g_new (Key, pending + 1), 0, 0 };
  gint64 t0, t1;

  for (gsize i = 0; i < pending; i++)
    bare_push (&h, hold->inc[hold->next++ & INCREMENT_MASK]);

  t0 = g_get_monotonic_time ();
  for (guint64 k = hold->left; k > 0; k--)
    {
      Key top = bare_pop (&h);
      hold->checksum += (guint64) top.time;
      bare_push (&h, top.time + hold->inc[hold->next++ & INCREMENT_MASK]);
    }
  t1 = g_get_monotonic_time ();

  g_free (h.a);
  return t1 - t0;
}

/* ---- The engine --------------------------------------------------------- */

typedef struct {
  Hold   *hold;
  guint32 kind;
} EngineHold;

static void
hold_handler (SimEngine *engine, const SimEvent *event, gpointer user_data)
{
  EngineHold *eh = user_data;
  Hold *hold = eh->hold;

  hold->checksum += (guint64) event->time;
  sim_engine_schedule (engine, event->time + hold->inc[hold->next++ & INCREMENT_MASK],
                       eh->kind, 0, NULL, 0);
  if (--hold->left == 0)
    sim_engine_stop (engine);
}

static gint64
run_engine (gsize pending, Hold *hold)
{
  g_autoptr(SimEngine) engine = sim_engine_new ();
  EngineHold eh = { hold, 0 };
  SimRunStatus status;
  gint64 t0, t1;

  eh.kind = sim_engine_register (engine, hold_handler, &eh);
  for (gsize i = 0; i < pending; i++)
    sim_engine_schedule (engine, hold->inc[hold->next++ & INCREMENT_MASK], eh.kind, 0, NULL, 0);

  t0 = g_get_monotonic_time ();
  status = sim_engine_run (engine, SIM_TIME_NEVER);
  t1 = g_get_monotonic_time ();

  if (status != SIM_RUN_STOPPED || sim_engine_pending (engine) != pending)
    {
      fprintf (stderr, "bench-engine: the engine run ended unexpectedly\n");
      exit (EXIT_FAILURE);
    }
  return t1 - t0;
}

/* ---- Driver ------------------------------------------------------------- */

typedef gint64 (*RunFunc) (gsize pending, Hold *hold);

/* Runs @steps hold steps at @pending events; returns the elapsed time in
 * microseconds and the checksum of the popped times. */
static gint64
measure (RunFunc run, SimTime *inc, gsize pending, guint64 steps, guint64 *checksum)
{
  Hold hold = { inc, 0, steps, 0 };
  gint64 us = run (pending, &hold);

  *checksum = hold.checksum;
  return MAX (us, 1);
}

int
main (int argc, char **argv)
{
  static const gsize sizes[] = { 1000, 100000, 1000000 };
  gboolean quick = FALSE;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimRng) rng = NULL;
  g_autofree SimTime *inc = NULL;
  GOptionEntry entries[] = {
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick, "Small counts, for a smoke test", NULL },
    G_OPTION_ENTRY_NULL
  };
  double target_s;
  int reps;
  gboolean all_agree = TRUE;

  context = g_option_context_new ("- event throughput of the engine on the hold model");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-engine: %s\n", error->message);
      return EXIT_FAILURE;
    }
  target_s = quick ? 0.02 : 0.5;
  reps = quick ? 1 : 3;

  sim_init ();
  rng = sim_rng_new (1, "bench-engine");
  inc = g_new (SimTime, N_INCREMENTS);
  for (guint i = 0; i < N_INCREMENTS; i++)
    inc[i] = sim_time_from_seconds (sim_rng_exponential (rng, 1.0));

  printf ("Hold model: pop the earliest event, schedule one at t + Exp(mean 1 s).\n");
  printf ("Best of %d; each measurement about %.2f s.\n\n", reps, target_s);
  printf ("%15s %12s %20s %20s %8s\n", "pending events", "hold steps", "bare heap M ev/s",
          "gpusim engine M ev/s", "ratio");

  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      gsize pending = sizes[s];
      guint64 probe = quick ? 50000 : 500000, steps, sum_bare, sum_engine;
      gint64 us;
      double best_bare = 0, best_engine = 0;

      /* A short probe on the bare heap sets the number of steps. */
      us = measure (run_bare, inc, pending, probe, &sum_bare);
      steps = (guint64) (target_s * 1e6 * (double) probe / (double) us);
      steps = MAX (steps, probe / 10);

      for (int r = 0; r < reps; r++)
        {
          us = measure (run_bare, inc, pending, steps, &sum_bare);
          best_bare = MAX (best_bare, (double) steps / (double) us);
          us = measure (run_engine, inc, pending, steps, &sum_engine);
          best_engine = MAX (best_engine, (double) steps / (double) us);
          if (sum_bare != sum_engine)
            all_agree = FALSE;
        }
      printf ("%15" G_GSIZE_FORMAT " %12" G_GUINT64_FORMAT " %20.2f %20.2f %8.2f\n",
              pending, steps, best_bare, best_engine, best_engine / best_bare);
      fflush (stdout);
    }

  if (!all_agree)
    {
      fprintf (stderr, "bench-engine: the engine and the bare heap popped different events\n");
      return EXIT_FAILURE;
    }
  return EXIT_SUCCESS;
}
