/* sim-engine.c: binary min-heap of events with a payload pool.
 * The algorithm and the alternatives are described in sim-engine.h. */
#include "config.h"

#include "sim-engine.h"
#include "core/sim-error.h"

typedef struct {
  SimTime time;
  guint64 seq;
  guint32 slot;
} HeapEntry;

/* A pool slot is 32 bytes, so that it never straddles a cache line.  A free
 * slot has seq 0 and keeps the next free slot in @arg; a cancelled one has
 * the kind KIND_CANCELLED until it is popped. */
typedef struct {
  guint64  seq;
  gpointer target;
  gint64   arg;
  guint32  kind;
  guint32  tag;
} Slot;

G_STATIC_ASSERT (sizeof (Slot) == 32 || sizeof (gpointer) != 8);

typedef struct {
  SimEventHandler handler;
  gpointer        user_data;
} Kind;

#define NO_SLOT G_MAXUINT32
#define KIND_CANCELLED G_MAXUINT32

/* Asks the processor to fetch the payload of the next event while the
 * handler of the current one runs: past a few thousand pending events the
 * slot is rarely in cache otherwise. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr) __builtin_prefetch ((addr), 1)
#else
#define PREFETCH(addr) ((void) (addr))
#endif

struct _SimEngine {
  HeapEntry *heap;
  gsize      n_heap, heap_cap;
  Slot      *slots;
  guint32    n_slots, slots_cap, free_slot;
  Kind      *kinds;
  guint32    n_kinds;
  SimTime    now;
  guint64    next_seq;
  guint64    dispatched;
  gsize      n_cancelled;
  gboolean   stop;
  GError    *failure;   /* the first refused event */
};

SimEngine *
sim_engine_new (void)
{
  SimEngine *e = g_new0 (SimEngine, 1);

  e->free_slot = NO_SLOT;
  e->next_seq = 1;
  return e;
}

void
sim_engine_free (SimEngine *engine)
{
  if (engine == NULL)
    return;
  g_free (engine->heap);
  g_free (engine->slots);
  g_free (engine->kinds);
  g_clear_error (&engine->failure);
  g_free (engine);
}

guint32
sim_engine_register (SimEngine *engine, SimEventHandler handler, gpointer user_data)
{
  g_return_val_if_fail (engine != NULL && handler != NULL, 0);
  engine->kinds = g_renew (Kind, engine->kinds, engine->n_kinds + 1);
  engine->kinds[engine->n_kinds].handler = handler;
  engine->kinds[engine->n_kinds].user_data = user_data;
  return engine->n_kinds++;
}

static inline gboolean
entry_less (const HeapEntry *a, const HeapEntry *b)
{
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static inline void
sift_up (HeapEntry *heap, gsize i)
{
  HeapEntry x = heap[i];

  while (i > 0)
    {
      gsize parent = (i - 1) / 2;
      if (!entry_less (&x, &heap[parent]))
        break;
      heap[i] = heap[parent];
      i = parent;
    }
  heap[i] = x;
}

static inline void
sift_down (HeapEntry *heap, gsize n, gsize i)
{
  HeapEntry x = heap[i];

  for (;;)
    {
      gsize child = 2 * i + 1;
      if (child >= n)
        break;
      if (child + 1 < n && entry_less (&heap[child + 1], &heap[child]))
        child++;
      if (!entry_less (&heap[child], &x))
        break;
      heap[i] = heap[child];
      i = child;
    }
  heap[i] = x;
}

static guint32
slot_alloc (SimEngine *e)
{
  guint32 s;

  if (e->free_slot != NO_SLOT)
    {
      s = e->free_slot;
      e->free_slot = (guint32) e->slots[s].arg;
      return s;
    }
  if (e->n_slots == e->slots_cap)
    {
      e->slots_cap = e->slots_cap ? e->slots_cap * 2 : 256;
      e->slots = g_renew (Slot, e->slots, e->slots_cap);
    }
  return e->n_slots++;
}

static inline void
slot_release (SimEngine *e, guint32 s)
{
  e->slots[s].seq = 0;
  e->slots[s].arg = e->free_slot;
  e->free_slot = s;
}

/* An id packs the slot (high 32 bits) with the low 32 bits of the sequence
 * number, so that an id whose slot has been reused no longer matches. */
static inline SimEventId
make_id (guint32 slot, guint64 seq)
{
  return ((guint64) (slot + 1) << 32) | (seq & 0xffffffffu);
}

SimEventId
sim_engine_schedule (SimEngine *engine, SimTime time, guint32 kind, guint32 tag,
                     gpointer target, gint64 arg)
{
  SimEngine *e = engine;
  guint32 s;
  Slot *slot;

  g_return_val_if_fail (e != NULL, 0);
  g_return_val_if_fail (kind < e->n_kinds && kind != KIND_CANCELLED, 0);
  if (G_UNLIKELY (time < e->now || time == SIM_TIME_NEVER))
    {
      if (e->failure == NULL)
        {
          if (time == SIM_TIME_NEVER)
            e->failure = g_error_new (SIM_ERROR, SIM_ERROR_INVALID,
                                      "an event is due at the end of simulated time (%"
                                      G_GINT64_FORMAT " ns, about 292 years): a time computed "
                                      "past what 64-bit nanoseconds hold", time);
          else
            e->failure = g_error_new (SIM_ERROR, SIM_ERROR_INVALID,
                                      "an event is due at %" G_GINT64_FORMAT " ns, before "
                                      "the current time (%" G_GINT64_FORMAT " ns)", time, e->now);
        }
      e->stop = TRUE;
      return 0;
    }

  s = slot_alloc (e);
  slot = &e->slots[s];
  slot->seq = e->next_seq++;
  slot->target = target;
  slot->arg = arg;
  slot->kind = kind;
  slot->tag = tag;

  if (e->n_heap == e->heap_cap)
    {
      e->heap_cap = e->heap_cap ? e->heap_cap * 2 : 256;
      e->heap = g_renew (HeapEntry, e->heap, e->heap_cap);
    }
  e->heap[e->n_heap].time = time;
  e->heap[e->n_heap].seq = slot->seq;
  e->heap[e->n_heap].slot = s;
  sift_up (e->heap, e->n_heap++);
  return make_id (s, slot->seq);
}

gboolean
sim_engine_cancel (SimEngine *engine, SimEventId id)
{
  guint32 s;

  g_return_val_if_fail (engine != NULL, FALSE);
  if (id == 0)
    return FALSE;
  s = (guint32) (id >> 32) - 1;
  if (s >= engine->n_slots)
    return FALSE;
  if (engine->slots[s].seq == 0 || engine->slots[s].kind == KIND_CANCELLED ||
      (engine->slots[s].seq & 0xffffffffu) != (id & 0xffffffffu))
    return FALSE;
  engine->slots[s].kind = KIND_CANCELLED;
  engine->n_cancelled++;
  return TRUE;
}

SimTime
sim_engine_now (const SimEngine *engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->now;
}

gsize
sim_engine_pending (const SimEngine *engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->n_heap - engine->n_cancelled;
}

guint64
sim_engine_dispatched (const SimEngine *engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->dispatched;
}

static inline void
pop_top (SimEngine *e)
{
  e->heap[0] = e->heap[--e->n_heap];
  if (e->n_heap > 1)
    sift_down (e->heap, e->n_heap, 0);
}

/* Drops cancelled events from the top of the heap. */
static inline void
skip_cancelled (SimEngine *e)
{
  while (e->n_heap > 0 && e->slots[e->heap[0].slot].kind == KIND_CANCELLED)
    {
      guint32 s = e->heap[0].slot;
      pop_top (e);
      slot_release (e, s);
      e->n_cancelled--;
    }
}

SimTime
sim_engine_next_time (SimEngine *engine)
{
  g_return_val_if_fail (engine != NULL, SIM_TIME_NEVER);
  skip_cancelled (engine);
  return engine->n_heap > 0 ? engine->heap[0].time : SIM_TIME_NEVER;
}

/* Pops and dispatches the top event; the heap must hold a live top. */
static inline void
dispatch_top (SimEngine *e)
{
  HeapEntry top = e->heap[0];
  Slot *slot = &e->slots[top.slot];
  SimEvent ev;

  ev.time = top.time;
  ev.seq = top.seq;
  ev.kind = slot->kind;
  ev.tag = slot->tag;
  ev.target = slot->target;
  ev.arg = slot->arg;
  pop_top (e);
  slot_release (e, top.slot);
  if (e->n_heap > 0)
    PREFETCH (&e->slots[e->heap[0].slot]);
  e->now = top.time;
  e->dispatched++;
  e->kinds[ev.kind].handler (e, &ev, e->kinds[ev.kind].user_data);
}

gboolean
sim_engine_step (SimEngine *engine)
{
  g_return_val_if_fail (engine != NULL, FALSE);
  skip_cancelled (engine);
  if (engine->n_heap == 0 || engine->failure != NULL)
    return FALSE;
  dispatch_top (engine);
  return TRUE;
}

SimRunStatus
sim_engine_run (SimEngine *engine, SimTime until)
{
  SimEngine *e = engine;

  g_return_val_if_fail (e != NULL, SIM_RUN_EMPTY);
  e->stop = FALSE;
  for (;;)
    {
      if (e->failure != NULL)
        return SIM_RUN_FAILED;
      skip_cancelled (e);
      if (e->n_heap == 0)
        {
          if (until != SIM_TIME_NEVER && until > e->now)
            {
              e->now = until;
              return SIM_RUN_TIME_REACHED;
            }
          return SIM_RUN_EMPTY;
        }
      if (e->heap[0].time > until)
        {
          if (until > e->now)
            e->now = until;
          return SIM_RUN_TIME_REACHED;
        }
      dispatch_top (e);
      if (e->failure != NULL)
        return SIM_RUN_FAILED;
      if (e->stop)
        {
          e->stop = FALSE;
          return SIM_RUN_STOPPED;
        }
    }
}

const GError *
sim_engine_get_error (const SimEngine *engine)
{
  g_return_val_if_fail (engine != NULL, NULL);
  return engine->failure;
}

void
sim_engine_stop (SimEngine *engine)
{
  g_return_if_fail (engine != NULL);
  engine->stop = TRUE;
}
