/* sim-maxmin.c: progressive filling over a heap of resources, re-run only on
 * the flows a change can move (a region grown by the max-min conditions),
 * or on the connected components touched since the last solve.  The
 * mathematics, the complexity and the alternatives are described in
 * sim-maxmin.h. */
#include "config.h"

#include "sim-maxmin.h"
#include "core/sim-maxmin-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An entry of a resource's list of flows: the flow's slot, and where in
 * that flow's list of resources this resource sits. */
typedef struct {
  guint32 flow;
  guint32 pos;
} ResEntry;

/* An entry of a flow's list of resources: the resource, and where in its
 * list the flow was put, a hint that removal checks.  Removal swaps the
 * entry with the list's last; the moved entry's hint is rewritten (in
 * the moved flow's line, a miss of its own) only in a list longer than
 * HINT_LIST, since a short list is searched in the line just read for its
 * last entry.  At a hundred thousand GPUs, demand-aware sharing leaves
 * nearly every resource in the solver with at most four flows, and the
 * rewrite was the third and last miss of every incidence removed. */
typedef struct {
  guint32 res;
  guint32 pos;
} FlowEntry;

#define HINT_LIST 8

/* A resource's first RES_INLINE entries sit in an array by slot beside
 * the resources (SimMaxmin.res_inline), its list moving to an array of
 * its own only when it outgrows them.  A list read through a pointer in
 * the resource's line waited for that line before its own miss could
 * start; one at an address known from the slot alone (its place is
 * guessed before the line arrives) is fetched alongside it.  Most
 * resources keep a few flows (at a hundred thousand GPUs nearly all at
 * most four), and one whose list empties goes back inline. */
#define RES_INLINE 4

/* A resource is split by use.  What adding or removing a flow reads and
 * writes (the list, its room, the caps' sums, the dirty mark, the
 * generation that checks an id) and what a solve confined to what changed
 * reads of each resource it meets (its visit mark, its capacity, the caps'
 * sums) sit in a 64-byte Resource, one cache line: a flow added and solved
 * under its cap touches that line alone of each of its resources, where
 * its capacity and mark in arrays apart were two lines more.  What
 * progressive filling writes as it fills (the level's terms, the unfixed
 * count) sits in a parallel ResFill array.  At a hundred thousand GPUs the resources
 * and flows are scattered over tens of megabytes, and most loads of them
 * miss the caches: adding a flow then misses once per resource, where
 * with the bookkeeping apart it missed twice, and jobs come and go far
 * more often than their flows are solved. */
typedef struct {
  double    capacity;
  double    cap_sum;     /* the caps of the entries crossing it with one, each times
                          * its count ... */
  ResEntry *flows;       /* its list when longer than RES_INLINE, else NULL */
  guint32   n_uncapped;  /* ... and the entries without */
  guint32   n_flows;
  guint32   alloc;       /* of flows, or RES_INLINE: the list inline */
  guint32   n_bneck;     /* flows whose rate it fixed in the solve that last set them */
  guint32   gen;
  guint32   last_flow;   /* the flow last appended to flows, NONE once it goes: adding
                          * a flow sees a repeated resource here, in the line it reads
                          * anyway, where reading the list's last entry waited for a
                          * second miss before the entry could be written */
  guint32   visit;       /* epoch of the solve that last visited it */
  guint32   next_free;   /* its place in the free list */
  guint8    in_use, dirty;
} Resource;

G_STATIC_ASSERT (sizeof (Resource) == 64);

/* What progressive filling keeps of a resource while it fills: the
 * capacity left to its unfixed flows, their weight, and their number. */
typedef struct {
  double    remaining;
  double    weight;
  guint32   unfixed;
} ResFill;

/* A flow, split the same way: Flow holds what fixing it reads and
 * writes (and is_new, which the end of a solve reads with the rate),
 * FlowCold what a solve reads once per flow or never.  A flow on at most
 * FLOW_INLINE resources keeps their entries in its own cache line (res
 * points at inline): removing a flow moves another's entry in a
 * resource's list and rewrites that flow's entry, one miss where an
 * array apart cost two. */
#define FLOW_INLINE 4

typedef struct {
  double     weight, rate;   /* of each of the count flows it stands for */
  FlowEntry *res;            /* inline, or an array of its own */
  guint32    n_res;
  guint8     fixed, is_new;
  guint16    count;
  FlowEntry  inline_res[FLOW_INLINE];
} Flow;

G_STATIC_ASSERT (sizeof (Flow) == 64);

typedef struct {
  double     cap;
  gpointer   data;
  guint32    alloc;       /* of Flow.res */
  guint32    gen;
  guint32    next_free;
  guint8     in_use, dirty;
} FlowCold;

#define NONE G_MAXUINT32

/* The search and the filling jump from list to list (a resource's flows,
 * then each flow's resources), so the next list's address is known an
 * iteration before it is read: asking for it then overlaps the misses
 * with the work on the current one.  A prefetch changes no result. */
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch (p)
#else
#define PREFETCH(p) ((void) 0)
#endif

/* A region solve asks for what the dirty flows a few on will read, and
 * adding a flow for the free slot the next will take, on systems of at
 * least this many resources (below, they stay in the caches): at a
 * hundred thousand GPUs, a region's visit marks, its resources' lines and
 * their capacities (which the capped test reads) came from memory one
 * after another, 80 % of a solve's time. */
#define REGION_PREFETCH_MIN 65536

/* An entry of the heap of resources: a level at which the resource was
 * last known to saturate, and the resource.  Levels only rise as flows are
 * fixed, so an entry's key is a lower bound of the resource's true level;
 * it is refreshed lazily when it reaches the top (see sim_maxmin_solve). */
typedef struct {
  double  key;
  guint32 res;
} HeapEntry;

/* A capped flow waiting for the level to reach its cap. */
typedef struct {
  double  level;   /* cap / weight */
  guint32 flow;
} CapEvent;

/* What a region solve (see region_solve()) knows of a resource of the
 * region besides what progressive filling keeps in Resource: the rates
 * of the flows held at their previous rate (the frozen flows), the
 * highest normalized rate among them, and the lowest among those whose
 * bottleneck it was; after the filling, its usage and the highest
 * normalized rate of the region's flows on it. */
typedef struct {
  double frozen, max_frozen, min_bneck, use, max_region;
} RegionRes;

/* A list of slots.  Every flow added or removed appends its resources
 * here: an append inline, rather than a call to g_array_append_val() and
 * its size check, is a tenth of the instructions. */
typedef struct {
  guint32 *v;
  guint32  len, alloc;
} SlotList;

static inline void
slot_list_push (SlotList *l, guint32 x)
{
  if (G_UNLIKELY (l->len == l->alloc))
    {
      l->alloc = MAX (64, 2 * l->alloc);
      l->v = g_renew (guint32, l->v, l->alloc);
    }
  l->v[l->len++] = x;
}

struct _SimMaxmin {
  /* Parallel arrays indexed by slot, res_alloc and flow_alloc long. */
  Resource *res;
  ResEntry *res_inline;     /* RES_INLINE a slot: the lists that fit */
  ResFill  *res_fill;       /* by slot: what a filling keeps of each */
  guint32   n_res_slots, res_alloc, res_free, n_resources;
  Flow     *flows;
  FlowCold *fc;
  guint32  *flow_visit;
  guint32   n_flow_slots, flow_alloc, flow_free, n_flows;

  SlotList  dirty_res;      /* deduplicated by Resource.dirty */
  SlotList  dirty_flows;    /* deduplicated by FlowCold.dirty */
  guint32   epoch;
  guint32  *bneck;          /* by flow slot: the resource that fixed it in the
                             * solve that last set its rate, NONE if its cap
                             * (or its having no resource) did */
  gboolean  need_full;      /* a capacity changed: the next solve is by components */
  gboolean  full;           /* sim__maxmin_set_full() */
  RegionRes *reg;           /* by resource slot, comp_res_alloc long: the
                             * bookkeeping of a region solve */

  /* Scratch of a solve, kept between solves so that they do not allocate.
   * Plain arrays sized once per solve to the number of slots (a component
   * holds each resource and flow at most once, and the heap never holds
   * more entries than the component has resources), so that the inner
   * loops append without a bounds check or a call. */
  guint32  *comp_res, *comp_flows;
  double   *old_rate;       /* the rate of comp_flows[i] before the solve */
  guint32   n_comp_res, n_comp_flows;
  guint32   comp_res_alloc, comp_flows_alloc;
  HeapEntry *heap;         /* as long as comp_res */
  guint32   heap_len;
  guint32  *res_keep;       /* as long as comp_res: the epoch of the solve in which a
                             * resource crossed by one entry goes into the heap */
  guint32   n_unfixed;      /* flows of the component not fixed yet */
  gboolean  plain;          /* sim__maxmin_set_plain() */
  CapEvent *capped, *capped_tmp;   /* as long as comp_flows */
  GArray   *changed;        /* SimMaxminId */

  SimMaxminStats stats;
};

/* The list of the resource in slot @rs. */
static inline ResEntry *
res_list (const SimMaxmin *s, guint32 rs)
{
  return G_LIKELY (s->res[rs].alloc <= RES_INLINE)
         ? &s->res_inline[(gsize) rs * RES_INLINE] : s->res[rs].flows;
}

static inline SimMaxminId
make_id (guint32 slot, guint32 gen)
{
  return ((guint64) gen << 32) | slot;
}

static inline guint32
next_gen (guint32 gen)
{
  return gen == G_MAXUINT32 ? 1 : gen + 1;
}

/* The id's slot if @id names a resource in use, else NONE. */
static inline guint32
lookup_res (const SimMaxmin *s, SimMaxminId id)
{
  guint32 slot = (guint32) id, gen = (guint32) (id >> 32);
  if (slot >= s->n_res_slots || !s->res[slot].in_use || s->res[slot].gen != gen)
    return NONE;
  return slot;
}

static inline guint32
lookup_flow (const SimMaxmin *s, SimMaxminId id)
{
  guint32 slot = (guint32) id, gen = (guint32) (id >> 32);
  if (slot >= s->n_flow_slots || !s->fc[slot].in_use || s->fc[slot].gen != gen)
    return NONE;
  return slot;
}

/* Grows an array of Resource or Flow from @n to @alloc elements of @size
 * bytes.  It is aligned on a cache line, so that no 32-byte element spans
 * two (malloc() aligns on 16 bytes, which splits every other one). */
static gpointer
renew_aligned (gpointer p, gsize n, gsize alloc, gsize size)
{
  gpointer q = g_aligned_alloc (alloc, size, 64);

  if (n > 0)
    memcpy (q, p, n * size);
  g_aligned_free (p);
  return q;
}

static inline void
mark_res_dirty (SimMaxmin *s, guint32 r)
{
  if (!s->res[r].dirty)
    {
      s->res[r].dirty = 1;
      slot_list_push (&s->dirty_res, r);
    }
}

static inline void
mark_flow_dirty (SimMaxmin *s, guint32 f)
{
  if (!s->fc[f].dirty)
    {
      s->fc[f].dirty = 1;
      slot_list_push (&s->dirty_flows, f);
    }
}

/* Makes @b (a resource slot, or NONE for a cap or no resource) the
 * bottleneck of flow @fs, counting each resource's. */
static inline void
set_bneck (SimMaxmin *s, guint32 fs, guint32 b)
{
  guint32 old = s->bneck[fs];

  if (old == b)
    return;
  if (old != NONE)
    s->res[old].n_bneck--;
  if (b != NONE)
    s->res[b].n_bneck++;
  s->bneck[fs] = b;
}

/* Adds (@sign 1) or takes off (-1) the cap of flow @fs on each of its
 * resources (their sums decide whether a region solve can skip the
 * filling: region_solve()).  A resource left with no flow starts its sums
 * again from zero (sim_maxmin_remove_flow()), so that rounding does not
 * pile up. */
static inline void
cap_step (Resource *c, double cap, guint count, int sign)
{
  if (isfinite (cap))
    c->cap_sum += sign * cap * count;
  else
    c->n_uncapped += sign;
}

static inline void
cap_account (SimMaxmin *s, guint32 fs, int sign)
{
  const Flow *f = &s->flows[fs];

  for (guint32 i = 0; i < f->n_res; i++)
    cap_step (&s->res[f->res[i].res], s->fc[fs].cap, f->count, sign);
}

/* sim__maxmin_set_full_default(): what new systems start with.  Set by a
 * benchmark before it builds anything, read by sim_maxmin_new() only. */
static gboolean full_default;

void
sim__maxmin_set_full_default (gboolean full)
{
  full_default = full;
}

SimMaxmin *
sim_maxmin_new (void)
{
  SimMaxmin *s = g_new0 (SimMaxmin, 1);
  s->full = full_default;
  s->res_free = NONE;
  s->flow_free = NONE;
  s->changed = g_array_new (FALSE, FALSE, sizeof (SimMaxminId));
  return s;
}

void
sim_maxmin_free (SimMaxmin *s)
{
  if (s == NULL)
    return;
  for (guint32 i = 0; i < s->n_res_slots; i++)
    g_free (s->res[i].flows);
  for (guint32 i = 0; i < s->n_flow_slots; i++)
    if (s->flows[i].res != s->flows[i].inline_res)
      g_free (s->flows[i].res);
  g_aligned_free (s->res);
  g_free (s->res_inline);
  g_free (s->res_fill);
  g_aligned_free (s->flows);
  g_free (s->fc);
  g_free (s->flow_visit);
  g_free (s->bneck);
  g_free (s->reg);
  g_free (s->dirty_res.v);
  g_free (s->dirty_flows.v);
  g_free (s->comp_res);
  g_free (s->comp_flows);
  g_free (s->old_rate);
  g_free (s->heap);
  g_free (s->res_keep);
  g_free (s->capped);
  g_free (s->capped_tmp);
  g_array_unref (s->changed);
  g_free (s);
}

/* Resources */

/* Room for @alloc resource slots (more than res_alloc). */
static void
res_grow (SimMaxmin *s, guint32 alloc)
{
  s->res_alloc = alloc;
  s->res = renew_aligned (s->res, s->n_res_slots, s->res_alloc, sizeof (Resource));
  s->res_inline = g_renew (ResEntry, s->res_inline, (gsize) s->res_alloc * RES_INLINE);
  s->res_fill = g_renew (ResFill, s->res_fill, s->res_alloc);
}

void
sim__maxmin_reserve_resources (SimMaxmin *s, guint n)
{
  g_return_if_fail (s != NULL);
  if (n > s->res_alloc)
    res_grow (s, n);
}

SimMaxminId
sim_maxmin_add_resource (SimMaxmin *s, double capacity)
{
  guint32 slot;

  g_return_val_if_fail (s != NULL, SIM_MAXMIN_NO_ID);
  g_return_val_if_fail (capacity >= 0, SIM_MAXMIN_NO_ID);

  if (s->res_free != NONE)
    {
      slot = s->res_free;
      s->res_free = s->res[slot].next_free;
    }
  else
    {
      if (s->n_res_slots == s->res_alloc)
        res_grow (s, MAX (16, s->res_alloc * 2));
      slot = s->n_res_slots++;
      memset (&s->res[slot], 0, sizeof (Resource));
      memset (&s->res_fill[slot], 0, sizeof (ResFill));
      s->res[slot].gen = 1;
      s->res[slot].alloc = RES_INLINE;
    }
  s->res[slot].capacity = capacity;
  s->res[slot].n_flows = 0;
  s->res[slot].last_flow = NONE;
  s->res[slot].in_use = 1;
  s->res[slot].dirty = 0;
  s->res[slot].next_free = NONE;
  s->n_resources++;
  return make_id (slot, s->res[slot].gen);
}

gboolean
sim_maxmin_remove_resource (SimMaxmin *s, SimMaxminId id)
{
  guint32 slot;

  g_return_val_if_fail (s != NULL, FALSE);
  slot = lookup_res (s, id);
  if (slot == NONE || s->res[slot].n_flows > 0)
    return FALSE;
  s->res[slot].in_use = 0;
  s->res[slot].dirty = 0;
  s->res[slot].gen = next_gen (s->res[slot].gen);
  s->res[slot].next_free = s->res_free;
  s->res_free = slot;
  s->n_resources--;
  return TRUE;
}

gboolean
sim_maxmin_set_capacity (SimMaxmin *s, SimMaxminId id, double capacity)
{
  guint32 slot;

  g_return_val_if_fail (s != NULL, FALSE);
  g_return_val_if_fail (capacity >= 0, FALSE);
  slot = lookup_res (s, id);
  if (slot == NONE)
    return FALSE;
  if (s->res[slot].capacity != capacity)
    {
      s->res[slot].capacity = capacity;
      if (s->res[slot].n_flows > 0)
        {
          mark_res_dirty (s, slot);
          s->need_full = TRUE;
        }
    }
  return TRUE;
}

double
sim_maxmin_get_capacity (const SimMaxmin *s, SimMaxminId id)
{
  guint32 slot;

  g_return_val_if_fail (s != NULL, -1);
  slot = lookup_res (s, id);
  return slot != NONE ? s->res[slot].capacity : -1;
}

double
sim_maxmin_get_usage (const SimMaxmin *s, SimMaxminId id)
{
  const Resource *r;
  const ResEntry *list;
  guint32 slot;
  double sum = 0;

  g_return_val_if_fail (s != NULL, -1);
  slot = lookup_res (s, id);
  if (slot == NONE)
    return -1;
  r = &s->res[slot];
  list = res_list (s, slot);
  for (guint32 i = 0; i < r->n_flows; i++)
    {
      const Flow *f = &s->flows[list[i].flow];
      for (guint16 k = 0; k < f->count; k++)
        sum += f->rate;
    }
  return sum;
}

void
sim__maxmin_get_usages (const SimMaxmin *s, const guint32 *slots, guint32 n, double *usage)
{
  g_return_if_fail (s != NULL && (usage != NULL || n == 0));
  /* Each resource's flows in the order of its list, as
   * sim_maxmin_get_usage() sums them; the lists a few resources on, and
   * the flows of the next, asked for ahead. */
  for (guint32 i = 0; i < n; i++)
    {
      guint32 slot = slots != NULL ? slots[i] : i;
      const Resource *r;
      const ResEntry *list;
      double sum = 0;
      if (i + 4 < n)
        {
          guint32 ahead = slots != NULL ? slots[i + 4] : i + 4;
          if (ahead < s->n_res_slots)
            PREFETCH (res_list (s, ahead));
        }
      if (i + 1 < n)
        {
          guint32 next = slots != NULL ? slots[i + 1] : i + 1;
          if (next < s->n_res_slots)
            for (guint32 j = 0; j < s->res[next].n_flows && j < 8; j++)
              PREFETCH (&s->flows[res_list (s, next)[j].flow]);
        }
      if (slot >= s->n_res_slots || !s->res[slot].in_use)
        {
          usage[i] = -1;
          continue;
        }
      r = &s->res[slot];
      list = res_list (s, slot);
      for (guint32 j = 0; j < r->n_flows; j++)
        {
          const Flow *f = &s->flows[list[j].flow];
          for (guint16 k = 0; k < f->count; k++)
            sum += f->rate;
        }
      usage[i] = sum;
    }
}

/* Flows */

/* The slot of the @i-th resource of a flow being added: from its id
 * (NONE if the id is stale), or given (NONE if out of range or free). */
static inline guint32
add_slot (const SimMaxmin *s, const SimMaxminId *ids, const guint32 *slots, guint i)
{
  guint32 rs;

  if (ids != NULL)
    return lookup_res (s, ids[i]);
  rs = slots[i];
  return rs < s->n_res_slots && s->res[rs].in_use ? rs : NONE;
}

/* Takes back what add_flows() did before it met a bad resource at index
 * @n: the entries appended to the first @n resources (the last of each
 * list, since they were appended last), the resources marked dirty since
 * dirty_res had @n_dirty entries, and the slot, which goes back to where
 * it came from so that the next flow gets the same slot as if the call
 * had not happened. */
static void
add_flow_undo (SimMaxmin *s, const SimMaxminId *ids, const guint32 *slots, guint n,
               guint32 slot, gboolean fresh, guint n_dirty)
{
  for (guint i = 0; i < n; i++)
    {
      Resource *r = &s->res[ids != NULL ? (guint32) ids[i] : slots[i]];
      r->n_flows--;
      r->last_flow = NONE;
    }
  for (guint i = n_dirty; i < s->dirty_res.len; i++)
    s->res[s->dirty_res.v[i]].dirty = 0;
  s->dirty_res.len = n_dirty;
  if (fresh)
    {
      /* The slot is made again from zero next time: free its array, if
       * it has one of its own. */
      if (s->flows[slot].res != s->flows[slot].inline_res)
        g_free (s->flows[slot].res);
      s->flows[slot].res = NULL;
      s->n_flow_slots--;
    }
  else
    s->flow_free = slot;
}

SimMaxminId
sim_maxmin_add_flow (SimMaxmin *s, const SimMaxminId *resources, guint n, double weight,
                     double cap, gpointer user_data)
{
  return sim_maxmin_add_flows (s, resources, n, weight, cap, 1, user_data);
}

/* sim_maxmin_add_flows() on the resources of ids @ids, or of slots
 * @slots (sim__maxmin_add_flows_at()). */
static SimMaxminId
add_flows (SimMaxmin *s, const SimMaxminId *ids, const guint32 *slots, guint n, double weight,
           double cap, guint count, gpointer user_data)
{
  guint32 slot, next_free = NONE;
  gboolean fresh = FALSE;
  guint n_dirty;
  Flow *f;
  FlowCold *c;

  g_return_val_if_fail (s != NULL, SIM_MAXMIN_NO_ID);
  g_return_val_if_fail (n == 0 || ids != NULL || slots != NULL, SIM_MAXMIN_NO_ID);
  g_return_val_if_fail (weight > 0 && isfinite (weight), SIM_MAXMIN_NO_ID);
  g_return_val_if_fail (cap > 0, SIM_MAXMIN_NO_ID);
  g_return_val_if_fail (count >= 1 && count <= G_MAXUINT16, SIM_MAXMIN_NO_ID);

  if (s->flow_free != NONE)
    {
      slot = s->flow_free;
      next_free = s->fc[slot].next_free;
      s->flow_free = next_free;
      /* The slot the next flow will take, asked for now (its link in
       * the free list is the first thing that flow reads). */
      if (next_free != NONE && s->n_res_slots >= REGION_PREFETCH_MIN)
        {
          PREFETCH (&s->fc[next_free]);
          PREFETCH (&s->flows[next_free]);
        }
    }
  else
    {
      if (s->n_flow_slots == s->flow_alloc)
        {
          s->flow_alloc = MAX (16, s->flow_alloc * 2);
          s->flows = renew_aligned (s->flows, s->n_flow_slots, s->flow_alloc, sizeof (Flow));
          /* The entries kept inline moved with their flows (a flow's own
           * array is always longer than FLOW_INLINE). */
          for (guint32 i = 0; i < s->n_flow_slots; i++)
            if (s->fc[i].alloc == FLOW_INLINE)
              s->flows[i].res = s->flows[i].inline_res;
          s->fc = g_renew (FlowCold, s->fc, s->flow_alloc);
          s->flow_visit = g_renew (guint32, s->flow_visit, s->flow_alloc);
          s->bneck = g_renew (guint32, s->bneck, s->flow_alloc);
        }
      slot = s->n_flow_slots++;
      memset (&s->flows[slot], 0, sizeof (Flow));
      memset (&s->fc[slot], 0, sizeof (FlowCold));
      s->flows[slot].res = s->flows[slot].inline_res;
      s->fc[slot].alloc = FLOW_INLINE;
      s->flow_visit[slot] = 0;
      s->fc[slot].gen = 1;
      fresh = TRUE;
    }
  s->bneck[slot] = NONE;
  f = &s->flows[slot];
  c = &s->fc[slot];
  if (c->alloc < n)
    {
      c->alloc = n;
      if (f->res == f->inline_res)
        f->res = g_new (FlowEntry, n);
      else
        f->res = g_renew (FlowEntry, f->res, n);
    }

  /* One pass checks each resource and links it.  A resource is valid if
   * its id is current; it is repeated if the flow last appended to it is
   * this one (Resource.last_flow), since the slot, being free, was on no
   * list before this call.  A bad resource undoes the entries made so
   * far. */
  n_dirty = s->dirty_res.len;
  for (guint i = 0; i < n; i++)
    {
      guint32 rs = add_slot (s, ids, slots, i);
      Resource *r = rs != NONE ? &s->res[rs] : NULL;
      gboolean repeated = r != NULL && r->last_flow == slot;

      if (G_UNLIKELY (r == NULL || repeated))
        {
          add_flow_undo (s, ids, slots, i, slot, fresh, n_dirty);
          g_return_val_if_fail (r != NULL, SIM_MAXMIN_NO_ID);
          g_return_val_if_fail (!repeated, SIM_MAXMIN_NO_ID);
          return SIM_MAXMIN_NO_ID;
        }
      if (G_UNLIKELY (r->n_flows == r->alloc))
        {
          if (r->alloc == RES_INLINE)
            r->flows = g_memdup2 (res_list (s, rs), RES_INLINE * sizeof (ResEntry));
          r->alloc *= 2;
          r->flows = g_renew (ResEntry, r->flows, r->alloc);
        }
      res_list (s, rs)[r->n_flows] = (ResEntry) { slot, i };
      f->res[i] = (FlowEntry) { rs, r->n_flows };
      r->n_flows++;
      r->last_flow = slot;
      mark_res_dirty (s, rs);
    }

  f->weight = weight;
  f->rate = 0;
  f->fixed = 0;
  f->count = (guint16) count;
  f->n_res = n;
  c->cap = cap;
  c->data = user_data;
  c->in_use = 1;
  c->dirty = 0;
  f->is_new = 1;
  c->next_free = NONE;
  cap_account (s, slot, 1);
  /* A region solve starts from the new flow itself. */
  mark_flow_dirty (s, slot);
  s->n_flows++;
  return make_id (slot, c->gen);
}

SimMaxminId
sim_maxmin_add_flows (SimMaxmin *s, const SimMaxminId *resources, guint n, double weight,
                      double cap, guint count, gpointer user_data)
{
  g_return_val_if_fail (n == 0 || resources != NULL, SIM_MAXMIN_NO_ID);
  return add_flows (s, n > 0 ? resources : NULL, NULL, n, weight, cap, count, user_data);
}

SimMaxminId
sim__maxmin_add_flows_at (SimMaxmin *s, const guint32 *slots, guint n, double weight,
                          double cap, guint count, gpointer user_data)
{
  g_return_val_if_fail (n == 0 || slots != NULL, SIM_MAXMIN_NO_ID);
  return add_flows (s, NULL, slots, n, weight, cap, count, user_data);
}

void
sim__maxmin_prefetch_at (const SimMaxmin *s, const guint32 *slots, guint n)
{
  for (guint i = 0; i < n; i++)
    if (slots[i] < s->n_res_slots)
      {
        PREFETCH (&s->res[slots[i]]);
        PREFETCH (&s->res_inline[(gsize) slots[i] * RES_INLINE]);
      }
}

void
sim__maxmin_prefetch_lists_at (const SimMaxmin *s, const guint32 *slots, guint n)
{
  for (guint i = 0; i < n; i++)
    if (slots[i] < s->n_res_slots)
      {
        const Resource *r = &s->res[slots[i]];
        if (r->flows != NULL && r->n_flows < r->alloc)
          PREFETCH (&r->flows[r->n_flows]);
      }
}

void
sim__maxmin_prefetch_remove (const SimMaxmin *s, SimMaxminId id, gboolean deep)
{
  guint32 slot = (guint32) id;
  const Flow *f;

  if (slot >= s->n_flow_slots)
    return;
  f = &s->flows[slot];
  if (!deep)
    {
      PREFETCH (f);
      PREFETCH (&s->fc[slot]);
      PREFETCH (&s->bneck[slot]);
      return;
    }
  /* (A slot freed since holds no resource: nothing is asked for.) */
  for (guint32 i = 0; i < f->n_res && i < 8; i++)
    {
      guint32 rs = f->res[i].res;
      PREFETCH (&s->res[rs]);
      PREFETCH (&s->res_inline[(gsize) rs * RES_INLINE]);
    }
}

void
sim__maxmin_prefetch_remove_lists (const SimMaxmin *s, SimMaxminId id)
{
  guint32 slot = (guint32) id;
  const Flow *f;

  if (slot >= s->n_flow_slots)
    return;
  f = &s->flows[slot];
  for (guint32 i = 0; i < f->n_res && i < 8; i++)
    {
      const Resource *r = &s->res[f->res[i].res];
      if (r->flows != NULL && f->res[i].pos < r->alloc)
        PREFETCH (&r->flows[f->res[i].pos]);
    }
}

guint32
sim__maxmin_resource_slot (SimMaxminId id)
{
  return (guint32) id;
}

gboolean
sim_maxmin_remove_flow (SimMaxmin *s, SimMaxminId id)
{
  Flow *f;
  FlowCold *c;
  guint32 slot;

  g_return_val_if_fail (s != NULL, FALSE);
  slot = lookup_flow (s, id);
  if (slot == NONE)
    return FALSE;
  f = &s->flows[slot];
  c = &s->fc[slot];
  cap_account (s, slot, -1);
  for (guint32 i = 0; i < f->n_res; i++)
    {
      guint32 rs = f->res[i].res;
      Resource *r = &s->res[rs];
      guint32 pos = f->res[i].pos;
      ResEntry last, *list = res_list (s, rs);
      /* (A flow is on a resource's list once: the entry that names it is
       * its own.) */
      if (pos >= r->n_flows || list[pos].flow != slot)
        for (pos = 0; list[pos].flow != slot; pos++)
          ;
      last = list[--r->n_flows];
      if (pos != r->n_flows)
        {
          list[pos] = last;
          if (r->n_flows > HINT_LIST)
            s->flows[last.flow].res[last.pos].pos = pos;
        }
      else if (r->n_flows == 0 && r->alloc > RES_INLINE && r->alloc <= 4 * RES_INLINE)
        {
          /* Emptied, and not a list long lists come back to: inline
           * again. */
          g_clear_pointer (&r->flows, g_free);
          r->alloc = RES_INLINE;
        }
      if (r->last_flow == slot)
        r->last_flow = NONE;
      if (r->n_flows == 0)
        {
          s->res[rs].cap_sum = 0;
          s->res[rs].n_uncapped = 0;
        }
      mark_res_dirty (s, rs);
    }
  set_bneck (s, slot, NONE);
  f->n_res = 0;
  c->in_use = 0;
  c->dirty = 0;
  c->data = NULL;
  c->gen = next_gen (c->gen);
  c->next_free = s->flow_free;
  s->flow_free = slot;
  s->n_flows--;
  return TRUE;
}

gboolean
sim_maxmin_set_flow_cap (SimMaxmin *s, SimMaxminId id, double cap)
{
  guint32 slot;

  g_return_val_if_fail (s != NULL, FALSE);
  g_return_val_if_fail (cap > 0, FALSE);
  slot = lookup_flow (s, id);
  if (slot == NONE)
    return FALSE;
  if (s->fc[slot].cap != cap)
    {
      /* cap_account() of -1 with the old cap then of 1 with the new, in
       * one pass: each resource's sum takes the same two steps. */
      const Flow *f = &s->flows[slot];
      double old = s->fc[slot].cap;
      for (guint32 i = 0; i < f->n_res; i++)
        {
          Resource *c = &s->res[f->res[i].res];
          cap_step (c, old, f->count, -1);
          cap_step (c, cap, f->count, 1);
        }
      s->fc[slot].cap = cap;
      mark_flow_dirty (s, slot);
    }
  return TRUE;
}

gboolean
sim_maxmin_flow_is_valid (const SimMaxmin *s, SimMaxminId id)
{
  g_return_val_if_fail (s != NULL, FALSE);
  return lookup_flow (s, id) != NONE;
}

double
sim_maxmin_get_rate (const SimMaxmin *s, SimMaxminId id)
{
  guint32 slot;

  g_return_val_if_fail (s != NULL, -1);
  slot = lookup_flow (s, id);
  return slot != NONE ? s->flows[slot].rate : -1;
}

gboolean
sim__maxmin_get_rate_cap (const SimMaxmin *s, SimMaxminId id, double *rate, double *cap)
{
  guint32 slot;

  g_return_val_if_fail (s != NULL && rate != NULL && cap != NULL, FALSE);
  slot = lookup_flow (s, id);
  if (slot == NONE)
    return FALSE;
  *rate = s->flows[slot].rate;
  *cap = s->fc[slot].cap;
  return TRUE;
}

double
sim__maxmin_worst_shortfall (const SimMaxmin *s, const SimMaxminId *ids, guint n)
{
  double worst = 1;

  g_return_val_if_fail (s != NULL && (ids != NULL || n == 0), 1);
  for (guint i = 0; i < n; i++)
    {
      guint32 slot = lookup_flow (s, ids[i]);
      double rate, cap;
      if (slot == NONE)
        {
          worst = INFINITY;
          continue;
        }
      rate = s->flows[slot].rate;
      cap = s->fc[slot].cap;
      if (isfinite (cap))
        worst = MAX (worst, rate > 0 ? cap / rate : INFINITY);
    }
  return worst;
}

double
sim_maxmin_get_flow_cap (const SimMaxmin *s, SimMaxminId id)
{
  guint32 slot;

  g_return_val_if_fail (s != NULL, -1);
  slot = lookup_flow (s, id);
  return slot != NONE ? s->fc[slot].cap : -1;
}

gpointer
sim_maxmin_get_flow_data (const SimMaxmin *s, SimMaxminId id)
{
  guint32 slot;

  g_return_val_if_fail (s != NULL, NULL);
  slot = lookup_flow (s, id);
  return slot != NONE ? s->fc[slot].data : NULL;
}

void
sim_maxmin_invalidate (SimMaxmin *s)
{
  g_return_if_fail (s != NULL);
  for (guint32 i = 0; i < s->n_res_slots; i++)
    if (s->res[i].in_use && s->res[i].n_flows > 0)
      mark_res_dirty (s, i);
  for (guint32 i = 0; i < s->n_flow_slots; i++)
    if (s->fc[i].in_use && s->flows[i].n_res == 0)
      mark_flow_dirty (s, i);
  s->need_full = TRUE;
}

void
sim_maxmin_get_stats (const SimMaxmin *s, SimMaxminStats *stats)
{
  g_return_if_fail (s != NULL && stats != NULL);
  *stats = s->stats;
  stats->n_flows = s->n_flows;
  stats->n_resources = s->n_resources;
}

const SimMaxminId *
sim_maxmin_get_changed (const SimMaxmin *s, guint *n_changed)
{
  g_return_val_if_fail (s != NULL && n_changed != NULL, NULL);
  *n_changed = s->changed->len;
  return (const SimMaxminId *) (gpointer) s->changed->data;
}

/* The heap of resources, ordered by (key, slot), so that ties are broken
 * the same way whatever else the heap holds. */

static inline gboolean
entry_less (const HeapEntry *a, const HeapEntry *b)
{
  if (a->key != b->key)
    return a->key < b->key;
  return a->res < b->res;
}

static inline void
heap_push (SimMaxmin *s, double key, guint32 res)
{
  HeapEntry *h = s->heap, x = { key, res };
  guint32 i = s->heap_len++;

  while (i > 0)
    {
      guint32 parent = (i - 1) / 2;
      if (!entry_less (&x, &h[parent]))
        break;
      h[i] = h[parent];
      i = parent;
    }
  h[i] = x;
}

static inline HeapEntry
heap_pop (SimMaxmin *s)
{
  HeapEntry *h = s->heap;
  HeapEntry top = h[0], x = h[s->heap_len - 1];
  guint32 n = --s->heap_len, i = 0;

  if (n == 0)
    return top;
  for (;;)
    {
      guint32 c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && entry_less (&h[c + 1], &h[c]))
        c++;
      if (!entry_less (&h[c], &x))
        break;
      h[i] = h[c];
      i = c;
    }
  h[i] = x;
  return top;
}

static inline double
level_of (const ResFill *r)
{
  double rem = r->remaining > 0 ? r->remaining : 0;
  return r->weight > 0 ? rem / r->weight : rem > 0 ? INFINITY : 0;
}

/* Takes @rate and weight @w of each of the @count flows a newly fixed
 * entry stands for off resource @r, one flow at a time: the operations
 * @count separate flows would cost (sim_maxmin_add_flows()).  Its heap
 * entry is left as it is: its key is now a lower bound. */
static inline void
consume (SimMaxmin *s, guint32 r, double rate, double w, guint count)
{
  ResFill *res = &s->res_fill[r];

  for (guint k = 0; k < count; k++)
    {
      res->remaining -= rate;
      res->weight -= w;
    }
  res->unfixed--;
}

static void
fix_flow (SimMaxmin *s, guint32 fs, double rate, guint32 skip)
{
  Flow *f = &s->flows[fs];

  f->rate = rate;
  f->fixed = 1;
  set_bneck (s, fs, skip);
  s->n_unfixed--;
  for (guint32 i = 0; i < f->n_res; i++)
    if (f->res[i].res != skip)
      consume (s, f->res[i].res, rate, f->weight, f->count);
}

static inline gboolean
cap_event_less (const CapEvent *a, const CapEvent *b)
{
  if (a->level != b->level)
    return a->level < b->level;
  return a->flow < b->flow;
}

/* Sorts @n cap events by (level, flow), with @tmp as room for @n more.  No
 * two events are equal (a flow has one), so the order is the one any sort
 * gives; a merge sort with the comparison inlined costs a fraction of
 * qsort()'s call per comparison. */
static void
sort_cap_events (CapEvent *a, CapEvent *tmp, guint32 n)
{
  CapEvent *src = a, *dst = tmp;

  /* Runs of 8 by insertion, then merges of doubling width. */
  for (guint32 lo = 0; lo < n; lo += 8)
    {
      guint32 hi = MIN (lo + 8, n);
      for (guint32 i = lo + 1; i < hi; i++)
        {
          CapEvent x = a[i];
          guint32 j = i;
          while (j > lo && cap_event_less (&x, &a[j - 1]))
            {
              a[j] = a[j - 1];
              j--;
            }
          a[j] = x;
        }
    }
  for (guint32 width = 8; width < n; width *= 2)
    {
      for (guint32 lo = 0; lo < n; lo += 2 * width)
        {
          guint32 mid = MIN (lo + width, n), hi = MIN (lo + 2 * width, n);
          guint32 i = lo, j = mid, k = lo;
          while (i < mid && j < hi)
            dst[k++] = cap_event_less (&src[j], &src[i]) ? src[j++] : src[i++];
          while (i < mid)
            dst[k++] = src[i++];
          while (j < hi)
            dst[k++] = src[j++];
        }
      CapEvent *t = src;
      src = dst;
      dst = t;
    }
  if (src != a)
    memcpy (a, src, n * sizeof (CapEvent));
}

/* A resource the search reaches for the first time: at full capacity,
 * no weight yet, every flow unfixed. */
static inline void
visit_res (SimMaxmin *s, guint32 r)
{
  ResFill *res = &s->res_fill[r];

  s->res[r].visit = s->epoch;
  s->comp_res[s->n_comp_res++] = r;
  res->remaining = s->res[r].capacity;
  res->weight = 0;
  res->unfixed = s->res[r].n_flows;
}

/* Sizes the scratch of a solve to the number of slots and starts a new
 * epoch of visit marks. */
static void
scratch_prepare (SimMaxmin *s)
{
  if (++s->epoch == 0)
    {
      for (guint32 r = 0; r < s->n_res_slots; r++)
        s->res[r].visit = 0;
      memset (s->flow_visit, 0, s->n_flow_slots * sizeof (guint32));
      if (s->res_keep != NULL)
        memset (s->res_keep, 0, s->comp_res_alloc * sizeof (guint32));
      s->epoch = 1;
    }
  if (s->comp_res_alloc < s->n_res_slots)
    {
      s->comp_res_alloc = MAX (s->n_res_slots, 2 * s->comp_res_alloc);
      s->comp_res = g_renew (guint32, s->comp_res, s->comp_res_alloc);
      s->heap = g_renew (HeapEntry, s->heap, s->comp_res_alloc);
      s->res_keep = g_renew (guint32, s->res_keep, s->comp_res_alloc);
      memset (s->res_keep, 0, s->comp_res_alloc * sizeof (guint32));
      s->reg = g_renew (RegionRes, s->reg, s->comp_res_alloc);
    }
  if (s->comp_flows_alloc < s->n_flow_slots)
    {
      s->comp_flows_alloc = MAX (s->n_flow_slots, 2 * s->comp_flows_alloc);
      s->comp_flows = g_renew (guint32, s->comp_flows, s->comp_flows_alloc);
      s->old_rate = g_renew (double, s->old_rate, s->comp_flows_alloc);
      s->capped = g_renew (CapEvent, s->capped, s->comp_flows_alloc);
      s->capped_tmp = g_renew (CapEvent, s->capped_tmp, s->comp_flows_alloc);
    }
  s->n_comp_res = 0;
  s->n_comp_flows = 0;
}

/* Gathers the components of the dirty resources and flows into comp_res
 * and comp_flows, breadth first, and sets up progressive filling on the
 * way: the search walks each flow's resources once, in the order of
 * comp_flows, which is the order in which the weights of a resource's
 * flows are to be summed, so it sums them there rather than in a second
 * pass over the same incidences.  A resource is reset when first reached,
 * before any flow adds to it.  Returns the number of capped flows listed
 * in capped, in the order of comp_flows. */
static guint32
gather (SimMaxmin *s)
{
  guint32 ri = 0, fi = 0, n_capped = 0;

  scratch_prepare (s);
  for (guint i = 0; i < s->dirty_res.len; i++)
    {
      guint32 r = s->dirty_res.v[i];
      s->res[r].dirty = 0;
      if (s->res[r].in_use && s->res[r].visit != s->epoch)
        visit_res (s, r);
    }
  for (guint i = 0; i < s->dirty_flows.len; i++)
    {
      guint32 f = s->dirty_flows.v[i];
      s->fc[f].dirty = 0;
      if (s->fc[f].in_use && s->flow_visit[f] != s->epoch)
        {
          s->flow_visit[f] = s->epoch;
          s->comp_flows[s->n_comp_flows++] = f;
        }
    }
  s->dirty_res.len = 0;
  s->dirty_flows.len = 0;

  while (ri < s->n_comp_res || fi < s->n_comp_flows)
    {
      for (; ri < s->n_comp_res; ri++)
        {
          const Resource *r = &s->res[s->comp_res[ri]];
          const ResEntry *list = res_list (s, s->comp_res[ri]);
          if (ri + 1 < s->n_comp_res)
            PREFETCH (res_list (s, s->comp_res[ri + 1]));
          for (guint32 k = 0; k < r->n_flows; k++)
            {
              guint32 f = list[k].flow;
              if (s->flow_visit[f] != s->epoch)
                {
                  s->flow_visit[f] = s->epoch;
                  s->comp_flows[s->n_comp_flows++] = f;
                }
            }
        }
      for (; fi < s->n_comp_flows; fi++)
        {
          guint32 fs = s->comp_flows[fi];
          Flow *f = &s->flows[fs];
          FlowCold *c = &s->fc[fs];

          if (fi + 2 < s->n_comp_flows)
            {
              PREFETCH (&s->flows[s->comp_flows[fi + 2]]);
              PREFETCH (&s->fc[s->comp_flows[fi + 2]]);
            }
          if (fi + 1 < s->n_comp_flows)
            PREFETCH (s->flows[s->comp_flows[fi + 1]].res);
          s->old_rate[fi] = f->rate;
          f->fixed = 0;
          for (guint32 k = 0; k < f->n_res; k++)
            {
              guint32 r = f->res[k].res;
              if (s->res[r].visit != s->epoch)
                visit_res (s, r);
              for (guint16 n = 0; n < f->count; n++)
                s->res_fill[r].weight += f->weight;
            }
          if (f->n_res == 0)
            {
              f->rate = c->cap;  /* +infinity when uncapped */
              f->fixed = 1;
            }
          else if (isfinite (c->cap))
            {
              s->capped[n_capped++] = (CapEvent) { c->cap / f->weight, fs };
            }
        }
    }
  return n_capped;
}

/* Rates closer than this relative difference are not reported as changed:
 * re-solving a component whose flows were merely reordered may move a rate
 * by a rounding error, which must not reschedule a job. */
#define CHANGE_TOLERANCE 1e-12

static gboolean
rate_changed (double before, double after)
{
  if (before == after)
    return FALSE;
  if (isinf (before) || isinf (after))
    return TRUE;
  return fabs (after - before) > CHANGE_TOLERANCE * MAX (fabs (before), fabs (after));
}

gboolean
sim__maxmin_rate_changed (double before, double after)
{
  return rate_changed (before, after);
}

void
sim__maxmin_set_plain (SimMaxmin *s, gboolean plain)
{
  g_return_if_fail (s != NULL);
  s->plain = plain;
}

void
sim__maxmin_set_full (SimMaxmin *s, gboolean full)
{
  g_return_if_fail (s != NULL);
  s->full = full;
}

/* Progressive filling of the flows of comp_flows over the resources of
 * comp_res, set up by gather() or region_setup(): every flow to solve
 * unfixed, every other flow fixed, each resource's remaining capacity,
 * weight and count of unfixed flows those of the flows to solve; the
 * first @n_capped entries of capped list the capped flows to solve. */
static void
fill (SimMaxmin *s, guint32 n_capped)
{
  const guint32 *cf = s->comp_flows;
  guint32 nf = s->n_comp_flows, ci = 0;
  const CapEvent *capped;
  double level = 0;

  s->heap_len = 0;
  if (n_capped > 1)
    sort_cap_events (s->capped, s->capped_tmp, n_capped);
  capped = s->capped;
  /* A resource crossed by one entry only (most are: a GPU's link, a NIC's)
   * keeps the level it starts with until that entry's flow is fixed, and
   * then has nothing left to fix.  It can be the first of the flow's
   * resources to saturate only if no other resource of the flow has a
   * level below its own for certain: of the flow's resources crossed by
   * it alone, only the first by (level, number), which the heap would
   * pop first, goes into the heap, and none does if a resource it shares
   * with other flows has a capacity lower by more than rounding (whose
   * level, at most that capacity over the flow's weight, is then lower).
   * Those left out would only ever be popped with nothing to fix, so
   * the order of every operation that fixes a flow, and every rate, is
   * the one with them in.  Meanwhile the flows are counted, and the
   * filling stops when none is left unfixed (the rest of the heap would
   * pop with nothing to do). */
  s->n_unfixed = 0;
  for (guint32 i = 0; i < nf; i++)
    {
      const Flow *f = &s->flows[cf[i]];
      guint32 best = NONE;
      double best_key = INFINITY, tight = INFINITY;

      if (f->fixed)
        continue;
      s->n_unfixed++;
      for (guint32 k = 0; k < f->n_res; k++)
        {
          guint32 r = f->res[k].res;
          const Resource *res = &s->res[r];
          if (res->n_flows == 1)
            {
              double key = level_of (&s->res_fill[r]);
              if (best == NONE || key < best_key || (key == best_key && r < best))
                {
                  best = r;
                  best_key = key;
                }
            }
        }
      if (best == NONE)
        continue;
      /* (The capacities are read apart: where flows share every resource,
       * as random pairs on a fabric do, there is no such resource.) */
      for (guint32 k = 0; k < f->n_res; k++)
        if (s->res[f->res[k].res].n_flows > 1)
          tight = MIN (tight, s->res[f->res[k].res].capacity);
      if (!(tight < s->res[best].capacity * (1 - 1e-9)))
        s->res_keep[best] = s->epoch;
    }
  for (guint32 i = 0; i < s->n_comp_res; i++)
    {
      guint32 r = s->comp_res[i];
      if (s->res_fill[r].unfixed > 0
          && (s->res[r].n_flows > 1 || s->res_keep[r] == s->epoch || s->plain))
        heap_push (s, level_of (&s->res_fill[r]), r);
    }
  if (s->plain)
    s->n_unfixed = G_MAXUINT32;   /* (never reached: fixing counts down) */

  /* Progressive filling: the next event is the lowest resource level or
   * the lowest cap level, whichever comes first (caps first on a tie).  A
   * resource whose entry reaches the top with a stale key goes back with
   * its current level; as keys only rise, the first entry found current is
   * the true minimum. */
  while (s->n_unfixed > 0)
    {
      double cap_level = INFINITY, now;
      HeapEntry top;
      const Resource *r;
      ResFill *x;
      const ResEntry *list;

      while (ci < n_capped && s->flows[capped[ci].flow].fixed)
        ci++;
      if (ci < n_capped)
        cap_level = capped[ci].level;
      if (s->heap_len == 0 && ci == n_capped)
        break;
      if (ci < n_capped
          && (s->heap_len == 0 || cap_level <= s->heap[0].key))
        {
          level = MAX (level, cap_level);
          fix_flow (s, capped[ci].flow, s->fc[capped[ci].flow].cap, NONE);
          ci++;
          continue;
        }
      top = heap_pop (s);
      r = &s->res[top.res];
      x = &s->res_fill[top.res];
      if (x->unfixed == 0)
        continue;
      now = level_of (x);
      if (now > top.key)
        {
          heap_push (s, now, top.res);
          continue;
        }
      level = MAX (level, now);
      /* Fixing flows reorders no resource's list of flows. */
      list = res_list (s, top.res);
      for (guint32 k = 0; k < r->n_flows; k++)
        {
          guint32 f = list[k].flow;
          if (k + 2 < r->n_flows)
            PREFETCH (&s->flows[list[k + 2].flow]);
          if (k + 1 < r->n_flows)
            PREFETCH (s->flows[list[k + 1].flow].res);
          if (!s->flows[f].fixed)
            fix_flow (s, f, s->flows[f].weight * level, top.res);
        }
      x->unfixed = 0;
    }
}

/* The relative slack of the region solve's checks.  A resource counts as
 * saturated when its usage is within this of its capacity, and a frozen
 * flow as no faster than the flows a resource bottlenecks when its
 * normalized rate exceeds theirs by at most this.  Both only decide
 * whether the region grows: a check that fails for rounding alone costs
 * a larger region, never a wrong rate, while one that passes wrongly can
 * leave a rate off by this much times the flows sharing the resource;
 * so the slack is a little above the rounding of a sum of a resource's
 * rates, far below SIM_MAXMIN_TOLERANCE. */
#define REGION_SLACK 1e-13

/* Past this many rounds of growth, or past this share of the system's
 * flows, a region solve gives way to the solve by components, which then
 * costs little more than the region already did. */
#define REGION_MAX_ROUNDS 12

/* How far below its capacity the caps on a resource must sum for a region
 * solve to give the region's flows their caps without the filling
 * (region_solve()): far above the rounding of a sum kept through a
 * million additions and subtractions (each at most an ulp). */
#define CAP_SUM_MARGIN 1e-7
#define REGION_MAX_SHARE  0.25

/* Adds flow @f to the region (comp_flows), with its rate before the solve
 * and its resources (comp_res). */
static inline void
region_add_flow (SimMaxmin *s, guint32 f)
{
  const Flow *fl = &s->flows[f];

  s->flow_visit[f] = s->epoch;
  s->old_rate[s->n_comp_flows] = fl->rate;
  s->comp_flows[s->n_comp_flows++] = f;
  for (guint32 k = 0; k < fl->n_res; k++)
    {
      guint32 r = fl->res[k].res;
      if (s->res[r].visit != s->epoch)
        {
          s->res[r].visit = s->epoch;
          s->comp_res[s->n_comp_res++] = r;
        }
    }
}


/* For the @i-th dirty flow's loop: the lines of the flow four on, and the
 * resources of the flow two on (their visit marks and capacities in the
 * same line; the flow's line asked for two iterations before; a slot freed
 * since holds no resource).  A prefetch changes no result. */
static inline void
region_prefetch (const SimMaxmin *s, guint i)
{
  for (guint j = 0; i == 0 && j < 4 && j < s->dirty_flows.len; j++)
    {
      PREFETCH (&s->flows[s->dirty_flows.v[j]]);
      PREFETCH (&s->flow_visit[s->dirty_flows.v[j]]);
    }
  if (i + 4 < s->dirty_flows.len)
    {
      guint32 f = s->dirty_flows.v[i + 4];
      PREFETCH (&s->flows[f]);
      PREFETCH (&s->fc[f]);
      PREFETCH (&s->flow_visit[f]);
    }
  if (i + 2 < s->dirty_flows.len)
    {
      const Flow *fl = &s->flows[s->dirty_flows.v[i + 2]];
      for (guint32 k = 0; k < fl->n_res && k < 8; k++)
        {
          PREFETCH (&s->res[fl->res[k].res]);
        }
    }
}

static inline double
norm_rate (const Flow *f)
{
  return f->rate / f->weight;
}

/* Sets up progressive filling of the region's flows, the others held at
 * their rates: each resource of the region starts with its capacity less
 * the rates of the frozen flows crossing it.  Returns the number of
 * capped flows listed in capped. */
static guint32
region_setup (SimMaxmin *s)
{
  guint32 n_capped = 0;

  for (guint32 i = 0; i < s->n_comp_res; i++)
    {
      guint32 rs = s->comp_res[i];
      const Resource *r = &s->res[rs];
      ResFill *x = &s->res_fill[rs];
      RegionRes *g = &s->reg[rs];

      const ResEntry *list = res_list (s, rs);

      if (i + 1 < s->n_comp_res)
        PREFETCH (res_list (s, s->comp_res[i + 1]));
      g->frozen = 0;
      g->max_frozen = 0;
      g->min_bneck = INFINITY;
      x->weight = 0;
      x->unfixed = 0;
      for (guint32 k = 0; k < r->n_flows; k++)
        {
          guint32 fs = list[k].flow;
          const Flow *f = &s->flows[fs];
          /* (A product where the solve by components adds one flow of
           * an entry at a time: the rounding may differ, within the
           * tolerance, and the loop cost a tenth of the solve.) */
          if (s->flow_visit[fs] == s->epoch)
            {
              x->weight += f->weight * f->count;
              x->unfixed++;
            }
          else
            {
              double v = norm_rate (f);
              g->frozen += f->rate * f->count;
              g->max_frozen = MAX (g->max_frozen, v);
              if (s->bneck[fs] == rs)
                g->min_bneck = MIN (g->min_bneck, v);
            }
        }
      x->remaining = r->capacity - g->frozen;
    }
  for (guint32 i = 0; i < s->n_comp_flows; i++)
    {
      guint32 fs = s->comp_flows[i];
      Flow *f = &s->flows[fs];
      double cap = s->fc[fs].cap;

      if (f->n_res == 0)
        {
          f->rate = cap;
          f->fixed = 1;
          set_bneck (s, fs, NONE);
          continue;
        }
      f->fixed = 0;
      if (isfinite (cap))
        s->capped[n_capped++] = (CapEvent) { cap / f->weight, fs };
    }
  return n_capped;
}

/* After the filling of a region, grows it by every frozen flow whose rate
 * the region's new rates may have made wrong.  The allocation is max-min
 * fair, and so the unique answer, when every flow is at its cap or
 * crosses a saturated resource on which its normalized rate is the
 * highest.  A region flow fixed by a resource has that resource saturated
 * (the filling leaves it no capacity) and the highest rate of the region
 * on it, so it is bottlenecked unless a frozen flow on the resource is
 * faster: that flow joins.  A frozen flow whose bottleneck lies outside
 * the region still has it, untouched; one whose bottleneck is in the
 * region joins unless the resource is still saturated and no region flow
 * on it is faster.  Returns the number of flows that joined. */
static guint32
region_grow (SimMaxmin *s)
{
  guint32 n0 = s->n_comp_flows, nres = s->n_comp_res, nflows = s->n_comp_flows;

  for (guint32 i = 0; i < nres; i++)
    {
      RegionRes *g = &s->reg[s->comp_res[i]];
      g->use = g->frozen;
      g->max_region = 0;
    }
  for (guint32 i = 0; i < nflows; i++)
    {
      const Flow *f = &s->flows[s->comp_flows[i]];
      double x = norm_rate (f);
      for (guint32 k = 0; k < f->n_res; k++)
        {
          RegionRes *g = &s->reg[f->res[k].res];
          g->use += f->rate * f->count;
          g->max_region = MAX (g->max_region, x);
        }
    }
  /* Frozen flows faster than a region flow on the resource that fixed it. */
  for (guint32 i = 0; i < nflows; i++)
    {
      guint32 fs = s->comp_flows[i], b = s->bneck[fs];
      double lim;

      if (b == NONE)
        continue;
      lim = norm_rate (&s->flows[fs]) * (1 + REGION_SLACK);
      if (!(s->reg[b].max_frozen > lim))
        continue;
      for (guint32 k = 0; k < s->res[b].n_flows; k++)
        {
          guint32 gs = res_list (s, b)[k].flow;
          if (s->flow_visit[gs] != s->epoch && norm_rate (&s->flows[gs]) > lim)
            region_add_flow (s, gs);
        }
      s->reg[b].max_frozen = 0;   /* (all of them have joined) */
    }
  /* Frozen flows whose bottleneck in the region may have let go. */
  for (guint32 i = 0; i < nres; i++)
    {
      guint32 rs = s->comp_res[i];
      const RegionRes *g = &s->reg[rs];
      double cap = s->res[rs].capacity;
      gboolean saturated = isfinite (cap) && g->use >= cap * (1 - REGION_SLACK);

      if (!isfinite (g->min_bneck)
          || (saturated && !(g->max_region > g->min_bneck * (1 + REGION_SLACK))))
        continue;
      for (guint32 k = 0; k < s->res[rs].n_flows; k++)
        {
          guint32 gs = res_list (s, rs)[k].flow;
          if (s->flow_visit[gs] != s->epoch && s->bneck[gs] == rs
              && (!saturated
                  || g->max_region > norm_rate (&s->flows[gs]) * (1 + REGION_SLACK)))
            region_add_flow (s, gs);
        }
    }
  return s->n_comp_flows - n0;
}

/* Re-solves only the flows whose rate the changes since the last solve
 * can move (see sim-maxmin.h): it starts from the flows added or whose
 * cap changed, with the resources of the flows removed, fills them with
 * every other flow held at its rate, and grows the region by the flows
 * that leaves wrong until none is.  Returns FALSE, with every rate as it
 * was, when the region outgrows its bounds; the solve by components then
 * takes over from the same changes. */
static gboolean
region_solve (SimMaxmin *s)
{
  guint32 limit = MAX (64, (guint32) (s->n_flows * REGION_MAX_SHARE));
  guint32 holding = 0;   /* resources a departure changed that hold flows back */

  scratch_prepare (s);
  for (guint i = 0; i < s->dirty_flows.len; i++)
    {
      guint32 f = s->dirty_flows.v[i];
      if (s->n_res_slots >= REGION_PREFETCH_MIN)
        region_prefetch (s, i);
      if (s->fc[f].in_use && s->flow_visit[f] != s->epoch)
        region_add_flow (s, f);
    }
  /* A resource changed by a flow's leaving matters only to the flows it
   * held back: one that holds none back (under demand caps, most) is
   * crossed by no flow of the region, which brings in its resources
   * itself, so it would take no part in the filling, fix nothing, and
   * let no frozen flow go. */
  for (guint i = 0; i < s->dirty_res.len; i++)
    {
      guint32 r = s->dirty_res.v[i];
      if (s->res[r].in_use && s->res[r].n_bneck > 0 && s->res[r].visit != s->epoch)
        {
          s->res[r].visit = s->epoch;
          s->comp_res[s->n_comp_res++] = r;
          holding++;
        }
    }
  /* Where every flow of the region has a cap, and every resource it
   * crosses holds no flow back and carries caps that sum clearly below
   * its capacity, no resource can fill: the filling would fix each flow
   * of the region at its cap, in the order of the caps, every resource's
   * level staying at least the mean of the caps left on it, and let no
   * frozen flow go (none is held back there).  So each takes its cap at
   * once.  (The margin is far above the rounding of the sums.) */
  if (holding == 0)
    {
      gboolean capped = TRUE;
      for (guint32 i = 0; i < s->n_comp_flows && capped; i++)
        {
          guint32 fs = s->comp_flows[i];
          const Flow *f = &s->flows[fs];
          capped = isfinite (s->fc[fs].cap);
          for (guint32 k = 0; k < f->n_res && capped; k++)
            {
              guint32 rk = f->res[k].res;
              const Resource *c = &s->res[rk];
              capped = c->n_uncapped == 0 && c->n_bneck == 0
                       && c->cap_sum <= c->capacity * (1 - CAP_SUM_MARGIN);
            }
        }
      if (capped)
        {
          for (guint32 i = 0; i < s->n_comp_flows; i++)
            {
              guint32 fs = s->comp_flows[i];
              s->flows[fs].rate = s->fc[fs].cap;
              s->flows[fs].fixed = 1;
              set_bneck (s, fs, NONE);
            }
          s->stats.capped_solves++;
          goto solved;
        }
    }
  for (guint round = 0;; round++)
    {
      fill (s, region_setup (s));
      if (region_grow (s) == 0)
        break;
      if (round + 1 >= REGION_MAX_ROUNDS || s->n_comp_flows > limit)
        {
          for (guint32 i = 0; i < s->n_comp_flows; i++)
            s->flows[s->comp_flows[i]].rate = s->old_rate[i];
          /* The rates go back, so that the solve by components sees, and
           * reports changes against, the rates of before.  The region's
           * flows keep the bottlenecks this attempt gave them, but they
           * all lie in the components of the same changes, which that
           * solve sets again. */
          return FALSE;
        }
    }
solved:
  for (guint i = 0; i < s->dirty_res.len; i++)
    s->res[s->dirty_res.v[i]].dirty = 0;
  for (guint i = 0; i < s->dirty_flows.len; i++)
    s->fc[s->dirty_flows.v[i]].dirty = 0;
  s->dirty_res.len = 0;
  s->dirty_flows.len = 0;
  return TRUE;
}

guint
sim_maxmin_solve (SimMaxmin *s)
{
  const guint32 *cf;
  guint32 nf;

  g_return_val_if_fail (s != NULL, 0);

  g_array_set_size (s->changed, 0);
  s->stats.last_flows_solved = 0;
  s->stats.last_resources_solved = 0;
  s->stats.last_changed = 0;
  if (s->dirty_res.len == 0 && s->dirty_flows.len == 0)
    return 0;

  if (s->need_full || s->full || s->plain || !region_solve (s))
    {
      /* Start: every flow unfixed, every resource at full capacity. */
      if (!s->need_full && !s->full && !s->plain)
        s->stats.fallbacks++;
      s->need_full = FALSE;
      fill (s, gather (s));
    }
  else
    s->stats.region_solves++;

  cf = s->comp_flows;
  nf = s->n_comp_flows;
  {
    /* Room for every flow solved, then cut to those changed (an append
     * call per changed flow was 1 % of a run's instructions). */
    guint base = s->changed->len, k = base;
    SimMaxminId *out;
    g_array_set_size (s->changed, base + nf);
    out = (SimMaxminId *) (gpointer) s->changed->data;
    for (guint32 i = 0; i < nf; i++)
      {
        Flow *f = &s->flows[cf[i]];
        if (f->is_new || rate_changed (s->old_rate[i], f->rate))
          {
            f->is_new = 0;
            out[k++] = make_id (cf[i], s->fc[cf[i]].gen);
          }
      }
    g_array_set_size (s->changed, k);
  }
  s->stats.solves++;
  s->stats.last_flows_solved = nf;
  s->stats.last_resources_solved = s->n_comp_res;
  s->stats.last_changed = s->changed->len;
  s->stats.total_flows_solved += nf;
  return s->changed->len;
}
