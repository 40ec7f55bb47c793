/* sim-serve-sim.c: one deployment's requests, simulated on the event
 * engine.
 *
 * Two kinds of events: a request arrives (and is routed to a replica), and
 * a replica's iteration ends.  A replica that is idle when work reaches it
 * starts an iteration at once; at the end of one it starts the next while
 * it has sequences.  What an iteration holds follows the engines:
 *
 * - without chunked prefill (vLLM's default scheduler), waiting prompts go
 *   first: an iteration prefills whole prompts, as many as the token
 *   budget, the batch size and the free KV cache allow; only when none can
 *   be admitted does it decode every running sequence;
 * - with chunked prefill (Sarathi-Serve, vLLM's chunked prefill), an
 *   iteration decodes every running sequence and fills the rest of its
 *   token budget with prompt chunks.
 *
 * The KV cache is paged: a sequence holds ceil(tokens / kv_block) pages.
 * When a decode needs a page and none is free, the most recently admitted
 * running sequence is preempted: its pages are freed and it goes back to
 * the head of the queue, to prefill its prompt and what it had generated
 * again when admitted (recompute preemption).
 *
 * Shared prefixes are cached in the pages (vLLM's automatic prefix
 * caching): when a request's prefill ends, the whole pages of its prefix
 * become the replica's, kept while any running sequence uses them and
 * after, until the pages are wanted, the least recently used first.  A
 * request admitted where its prefix is cached skips those tokens'
 * prefill.  The kv_aware router sends a request where the pages it would
 * have to prefill plus the pages already taken or queued there are
 * fewest, as llm-d's and Dynamo's KV routers balance cached overlap
 * against load.
 *
 * With disaggregation (Splitwise, DistServe), requests go to prefill
 * replicas, which only prefill; at the end of a prefill, the request's KV
 * cache crosses to the decode replica with the fewest requests, over
 * NVLink inside a node or the NICs between nodes, one transfer at a time
 * on each replica's links, and it decodes there.  Its first token counts
 * when its cache has arrived.
 */
#include "config.h"

#include "serve/sim-serve-private.h"
#include "core/sim-engine.h"
#include "core/sim-error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double   arrival;
  double   first_token;   /* s; < 0 until the first token */
  guint    input;
  guint    output;
  guint    target;        /* tokens in the cache when the current prefill ends */
  guint    prefilled;     /* of them */
  guint    generated;
  guint    cached;        /* tokens in the KV cache */
  guint    blocks;        /* pages of its own */
  guint    shared;        /* pages of a cached prefix it uses */
  guint    queued_blocks; /* pages counted in its replica's queue */
  guint    prefix;        /* 1 + its prefix's index; 0: none */
  guint    prefix_tokens;
  gboolean pending;       /* routed with its prefix, not yet prefilled */
  gboolean admitted;      /* once admitted (its queueing wait is counted) */
} Req;

/* A prefix cached in a replica's pages. */
typedef struct {
  guint    blocks;        /* 0: not cached */
  guint    refs;          /* running sequences using it */
  guint    pending;       /* requests routed here with it, not yet prefilled */
  double   last_use;
} PrefixEntry;

typedef struct {
  guint32 req;
  guint32 chunk;          /* prompt tokens prefilled; 0: a decode step */
} Slot;

/* A double-ended queue of request indices (preempted requests go back to
 * the head). */
typedef struct {
  guint32 *items;
  guint    cap, head, len;
} Deque;

static void
deque_grow (Deque *d)
{
  guint cap = MAX (16u, d->cap * 2);
  guint32 *items = g_new (guint32, cap);

  for (guint i = 0; i < d->len; i++)
    items[i] = d->items[(d->head + i) % d->cap];
  g_free (d->items);
  d->items = items;
  d->cap = cap;
  d->head = 0;
}

static void
deque_push_back (Deque *d, guint32 v)
{
  if (d->len == d->cap)
    deque_grow (d);
  d->items[(d->head + d->len++) % d->cap] = v;
}

static void
deque_push_front (Deque *d, guint32 v)
{
  if (d->len == d->cap)
    deque_grow (d);
  d->head = (d->head + d->cap - 1) % d->cap;
  d->items[d->head] = v;
  d->len++;
}

static guint32
deque_peek (const Deque *d)
{
  return d->items[d->head];
}

static void
deque_pop (Deque *d)
{
  d->head = (d->head + 1) % d->cap;
  d->len--;
}

/* A replica's life under the autoscaler (without it, every replica is
 * running from time 0). */
typedef enum {
  REPLICA_OFF,
  REPLICA_STARTING,
  REPLICA_RUNNING,
  REPLICA_DRAINING,     /* takes no new request; stops when its last completes */
} ReplicaState;

typedef enum {
  ROLE_COLOCATED,       /* prefills and decodes */
  ROLE_PREFILL,
  ROLE_DECODE,
} ReplicaRole;

typedef struct {
  ReplicaState state;
  ReplicaRole role;
  const SimServeReplica *model;
  guint    total_blocks;
  Deque    waiting;
  GArray  *running;       /* guint32, in order of admission */
  GArray  *batch;         /* Slot: the iteration under way */
  gboolean busy;
  guint    outstanding;   /* routed, not completed */
  guint    free_blocks;
  double   busy_time;
  double   kv_area;       /* pages in use times time */
  double   decode_slots;
  guint64  iterations;
  GHashTable *prefixes;   /* prefix -> PrefixEntry, created on first use */
  guint    idle_cached;   /* pages of cached prefixes no sequence uses */
  guint    waiting_blocks;/* pages the queued prompts will take */
  double   link_free;     /* s: when its links finish the KV transfers under way */
  guint32  epoch;         /* counts the replica's stops: an iteration of an
                           * earlier life ends in nothing */
} Replica;

typedef struct {
  const SimServeReplica *model;
  const SimServeConfig  *config;
  GArray   *requests;     /* SimServeRequest */
  Req      *reqs;
  Replica  *replicas;
  guint     total_blocks;
  SimEngine *engine;
  guint32   kind_arrival, kind_done, kind_tick, kind_started, kind_dispatch;
  Deque     pending;        /* requests that arrived, or lost their replica, while none ran */
  guint64   rerouted;       /* requests whose replica stopped under them */
  guint     n_slots;        /* replicas that may exist: max_replicas with the autoscaler */
  guint     n_on;           /* running, starting or draining: what is paid for */
  guint     n_running;
  guint     n_starting;
  double    surplus_since;  /* s: since when more replicas run than the load needs; < 0: not */
  double    replica_area;   /* n_on over time */
  double    last_replica_change;
  guint     peak;
  guint64   scale_ups, scale_downs;
  guint     next_rr;
  guint     in_system;
  double    last_change;
  double    area_in_system;
  guint64   completed;
  guint64   preemptions;
  double    last_completion;
  double   *ttft, *tpot, *e2e;
  guint64   n_tpot;
  double    wait_sum;       /* arrival to the first prefill, summed */
  guint64   met_slo;        /* requests that met both objectives */
  guint     n_front;        /* the replicas requests are routed to: prefill ones, or all */
  guint32   kind_transfer;
  guint64   prefix_hits, prefix_lookups, prefix_requests;
  double    prefix_hit_tokens;
  guint64   transfers;
  double    transfer_sum;
} Sim;

static double
now_s (Sim *s)
{
  return sim_time_to_seconds (sim_engine_now (s->engine));
}

static void
count_in_system (Sim *s, int delta)
{
  double t = now_s (s);

  s->area_in_system += s->in_system * (t - s->last_change);
  s->last_change = t;
  s->in_system += delta;
}

static void
count_replicas (Sim *s, int delta)
{
  double t = now_s (s);

  s->replica_area += s->n_on * (t - s->last_replica_change);
  s->last_replica_change = t;
  s->n_on += delta;
  s->peak = MAX (s->peak, s->n_on);
}

static guint
blocks_for (const Sim *s, guint tokens)
{
  return (tokens + s->config->kv_block - 1) / s->config->kv_block;
}

static PrefixEntry *
prefix_entry (Replica *rep, guint prefix, gboolean create)
{
  PrefixEntry *e;

  if (prefix == 0)
    return NULL;
  if (rep->prefixes == NULL)
    {
      if (!create)
        return NULL;
      rep->prefixes = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    }
  e = g_hash_table_lookup (rep->prefixes, GUINT_TO_POINTER (prefix));
  if (e == NULL && create)
    {
      e = g_new0 (PrefixEntry, 1);
      g_hash_table_insert (rep->prefixes, GUINT_TO_POINTER (prefix), e);
    }
  return e;
}

/* The pages of Q's prefix cached at REP, 0 if none. */
static guint
prefix_hit_blocks (Replica *rep, const Req *q)
{
  PrefixEntry *e = prefix_entry (rep, q->prefix, FALSE);

  return e != NULL ? e->blocks : 0;
}

/* Frees cached prefixes no sequence uses, the least recently used first,
 * until NEED pages are free or none is left; returns whether they are. */
static gboolean
evict (Replica *rep, guint need)
{
  while (rep->free_blocks < need && rep->idle_cached > 0)
    {
      GHashTableIter it;
      gpointer key, value, victim = NULL;
      PrefixEntry *lru = NULL;

      g_hash_table_iter_init (&it, rep->prefixes);
      while (g_hash_table_iter_next (&it, &key, &value))
        {
          PrefixEntry *e = value;
          if (e->blocks > 0 && e->refs == 0
              && (lru == NULL || e->last_use < lru->last_use
                  || (e->last_use == lru->last_use
                      && GPOINTER_TO_UINT (key) < GPOINTER_TO_UINT (victim))))
            {
              lru = e;
              victim = key;
            }
        }
      if (lru == NULL)
        break;
      rep->free_blocks += lru->blocks;
      rep->idle_cached -= lru->blocks;
      lru->blocks = 0;
    }
  return rep->free_blocks >= need;
}

/* Frees Q's own pages and lets go of its cached prefix. */
static void
release (Sim *s, Replica *rep, Req *q)
{
  rep->free_blocks += q->blocks;
  q->blocks = 0;
  if (q->shared > 0)
    {
      PrefixEntry *e = prefix_entry (rep, q->prefix, FALSE);
      if (--e->refs == 0)
        rep->idle_cached += e->blocks;
      e->last_use = now_s (s);
      q->shared = 0;
    }
}

/* Puts request IDX in REP's queue, at the head for a preempted one. */
static void
enqueue (Sim *s, Replica *rep, guint32 idx, gboolean front)
{
  Req *q = &s->reqs[idx];

  q->queued_blocks = blocks_for (s, q->target);
  rep->waiting_blocks += q->queued_blocks;
  if (front)
    deque_push_front (&rep->waiting, idx);
  else
    deque_push_back (&rep->waiting, idx);
}

/* Frees the pages of the most recently admitted running sequence and puts
 * it back at the head of the queue. */
static void
preempt_newest (Sim *s, Replica *rep)
{
  guint32 victim = g_array_index (rep->running, guint32, rep->running->len - 1);
  Req *q = &s->reqs[victim];

  g_array_set_size (rep->running, rep->running->len - 1);
  release (s, rep, q);
  q->cached = 0;
  q->prefilled = 0;
  q->target = q->input + q->generated;
  enqueue (s, rep, victim, TRUE);
  s->preemptions++;
}

/* Adds the decode step of every running sequence that has finished its
 * prefill, preempting when the cache is full; returns the tokens. */
static guint
add_decodes (Sim *s, Replica *rep, double *context)
{
  guint n = 0;

  for (guint i = 0; i < rep->running->len; i++)
    {
      guint32 idx = g_array_index (rep->running, guint32, i);
      Req *q = &s->reqs[idx];
      guint need;

      if (q->prefilled < q->target)
        continue;
      need = blocks_for (s, q->cached + 1) - q->blocks - q->shared;
      if (need > rep->free_blocks && rep->idle_cached > 0)
        evict (rep, need);
      while (need > rep->free_blocks)
        {
          guint32 last = g_array_index (rep->running, guint32, rep->running->len - 1);
          preempt_newest (s, rep);
          if (last == idx)
            break;
        }
      /* The victims were at the end: if this sequence was one, every
       * sequence after it was too. */
      if (i >= rep->running->len)
        break;
      rep->free_blocks -= need;
      q->blocks += need;
    }
  /* Preemptions only remove sequences at the end, so what is left is the
   * batch. */
  g_array_set_size (rep->batch, 0);
  for (guint i = 0; i < rep->running->len; i++)
    {
      guint32 idx = g_array_index (rep->running, guint32, i);
      Req *q = &s->reqs[idx];
      Slot slot = { idx, 0 };

      if (q->prefilled < q->target)
        continue;
      *context += q->cached;
      g_array_append_val (rep->batch, slot);
      n++;
    }
  return n;
}

/* Adds a prefill chunk of at most BUDGET tokens of Q (running, its
 * prompt's pages reserved); returns its tokens. */
static guint
add_chunk (Sim *s, Replica *rep, guint32 idx, guint budget, double *context)
{
  Req *q = &s->reqs[idx];
  guint chunk = MIN (budget, q->target - q->prefilled);
  Slot slot = { idx, 0 };

  if (chunk == 0)
    return 0;
  if (!q->admitted)
    {
      q->admitted = TRUE;
      s->wait_sum += now_s (s) - q->arrival;
    }
  slot.chunk = chunk;
  *context += (double) chunk * q->cached + (double) chunk * (chunk + 1) / 2;
  g_array_append_val (rep->batch, slot);
  return chunk;
}

/* Admits the request at the head of REP's queue if the free pages hold its
 * whole prompt, and reserves them: a prompt under way can then always go
 * on, chunk after chunk, and only decodes ever need a page that is not
 * there (vLLM reserves a prompt's pages the same way). */
static gboolean
admit (Sim *s, Replica *rep)
{
  guint32 idx = deque_peek (&rep->waiting);
  Req *q = &s->reqs[idx];
  guint hit = q->prefilled < q->target ? prefix_hit_blocks (rep, q) : 0;
  guint need = blocks_for (s, q->target) - hit;

  if (need > rep->free_blocks && (rep->idle_cached == 0 || !evict (rep, need)))
    return FALSE;
  deque_pop (&rep->waiting);
  rep->waiting_blocks -= q->queued_blocks;
  rep->free_blocks -= need;
  q->blocks = need;
  if (q->prefix > 0 && q->prefilled < q->target)
    {
      s->prefix_lookups++;
      if (hit > 0)
        {
          PrefixEntry *e = prefix_entry (rep, q->prefix, FALSE);
          if (e->refs++ == 0)
            rep->idle_cached -= e->blocks;
          e->last_use = now_s (s);
          q->shared = hit;
          q->prefilled = q->cached = hit * s->config->kv_block;
          s->prefix_hits++;
          s->prefix_hit_tokens += q->prefilled;
        }
    }
  g_array_append_val (rep->running, idx);
  return TRUE;
}

/* The prompt tokens Q would prefill at REP: what its cached prefix there
 * leaves. */
static guint
prefill_todo (Replica *rep, const Req *q, guint kv_block)
{
  guint done = MAX (q->prefilled, q->prefilled < q->target
                                  ? prefix_hit_blocks (rep, q) * kv_block : 0);
  return q->target - MIN (done, q->target);
}

static void
start_iteration (Sim *s, guint r)
{
  const SimServeConfig *c = s->config;
  Replica *rep = &s->replicas[r];
  double pctx = 0, dctx = 0, t;
  SimTime dt;
  guint prefill = 0, decode = 0;

  if (rep->busy)
    return;
  g_array_set_size (rep->batch, 0);
  if (!c->chunked_prefill)
    {
      /* Whole prompts first, while they fit. */
      while (rep->waiting.len > 0 && rep->running->len < c->max_batch)
        {
          guint32 idx = deque_peek (&rep->waiting);
          Req *q = &s->reqs[idx];
          guint budget = prefill == 0 ? G_MAXUINT : c->max_batch_tokens - prefill;
          guint got;

          if (prefill_todo (rep, q, c->kv_block) > budget || !admit (s, rep))
            break;
          got = add_chunk (s, rep, idx, q->target, &pctx);
          prefill += got;
          if (prefill >= c->max_batch_tokens)
            break;
        }
      if (prefill == 0)
        decode = add_decodes (s, rep, &dctx);
    }
  else
    {
      guint budget;

      decode = add_decodes (s, rep, &dctx);
      budget = c->max_batch_tokens > decode ? c->max_batch_tokens - decode : 0;
      /* Prompts under way, then new ones. */
      for (guint i = 0; i < rep->running->len && budget > 0; i++)
        {
          guint32 idx = g_array_index (rep->running, guint32, i);
          if (s->reqs[idx].prefilled < s->reqs[idx].target)
            {
              guint got = add_chunk (s, rep, idx, budget, &pctx);
              prefill += got;
              budget -= got;
            }
        }
      while (budget > 0 && rep->waiting.len > 0 && rep->running->len < c->max_batch)
        {
          guint32 idx = deque_peek (&rep->waiting);
          guint got;
          if (!admit (s, rep))
            break;
          got = add_chunk (s, rep, idx, budget, &pctx);
          prefill += got;
          budget -= got;
        }
    }
  if (rep->batch->len == 0)
    return;
  t = sim__serve_iteration_time_split (rep->model, prefill, pctx, decode, dctx,
                                       rep->batch->len);
  /* The iteration holds the replica for the clock's whole ticks it is
   * scheduled over; its busy time and cache use count those, so that a
   * replica busy throughout is busy for the run's length, not a rounding
   * above it. */
  dt = MAX (1, sim_time_from_seconds (t));
  t = sim_time_to_seconds (dt);
  rep->busy = TRUE;
  rep->kv_area += (double) (rep->total_blocks - rep->free_blocks) * t;
  rep->busy_time += t;
  rep->decode_slots += decode;
  rep->iterations++;
  sim_engine_schedule (s->engine, sim_engine_now (s->engine) + dt, s->kind_done, rep->epoch, rep,
                       r);
}

static void
complete (Sim *s, guint32 idx, double t)
{
  Req *q = &s->reqs[idx];
  guint64 n = s->completed++;
  double tpot = q->output > 1 ? (t - q->first_token) / (q->output - 1) : 0;

  s->ttft[n] = q->first_token - q->arrival;
  s->e2e[n] = t - q->arrival;
  if (q->output > 1)
    s->tpot[s->n_tpot++] = tpot;
  if (s->ttft[n] <= s->config->slo_ttft && tpot <= s->config->slo_tpot)
    s->met_slo++;
  s->last_completion = t;
  count_in_system (s, -1);
}

/* At the end of Q's prefill at REP: the whole pages of its prefix become
 * the replica's cache, unless another request's already are. */
static void
cache_prefix (Sim *s, Replica *rep, Req *q)
{
  PrefixEntry *e = prefix_entry (rep, q->prefix, TRUE);
  guint pb = q->prefix_tokens / s->config->kv_block;

  if (q->pending)
    {
      e->pending--;
      q->pending = FALSE;
    }
  if (e->blocks > 0 || q->shared > 0 || pb == 0 || q->blocks < pb)
    return;
  q->blocks -= pb;
  q->shared = pb;
  e->blocks = pb;
  e->refs = 1;
  e->last_use = now_s (s);
}

/* The decode replica with the fewest requests. */
static guint
route_decode (Sim *s)
{
  guint best = s->n_front;

  for (guint r = s->n_front + 1; r < s->n_slots; r++)
    if (s->replicas[r].outstanding < s->replicas[best].outstanding)
      best = r;
  return best;
}

/* Sends request IDX's KV cache from prefill replica R to a decode
 * replica: it starts when both replicas' links are free. */
static void
send_kv (Sim *s, guint r, guint32 idx)
{
  Req *q = &s->reqs[idx];
  guint d = route_decode (s);
  Replica *from = &s->replicas[r], *to = &s->replicas[d];
  const SimServeReplica *m = s->model;
  double t = now_s (s);
  double start = MAX (t, MAX (from->link_free, to->link_free));
  double end = start + sim__serve_kv_transfer_time (m, q->cached,
                                                    m->node_of[r] == m->node_of[d]);

  from->link_free = to->link_free = end;
  to->outstanding++;
  s->transfers++;
  s->transfer_sum += end - t;
  sim_engine_schedule (s->engine, MAX (sim_engine_now (s->engine) + 1,
                                       sim_time_from_seconds (end)),
                       s->kind_transfer, 0, NULL, ((guint64) d << 32) | idx);
}

/* A KV cache has reached its decode replica: the request's first token
 * is out, and it waits there to decode. */
static void
on_transfer (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  Sim *s = data;
  guint d = (guint) (ev->arg >> 32);
  guint32 idx = (guint32) (ev->arg & 0xffffffffu);
  Req *q = &s->reqs[idx];

  (void) engine;
  q->first_token = now_s (s);
  q->target = q->prefilled = q->cached;
  enqueue (s, &s->replicas[d], idx, FALSE);
  start_iteration (s, d);
}

static void
on_done (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  Sim *s = data;
  guint r = (guint) ev->arg;
  Replica *rep = &s->replicas[r];
  double t = now_s (s);
  guint keep = 0;

  (void) engine;
  if (ev->tag != rep->epoch)
    return;
  rep->busy = FALSE;
  for (guint i = 0; i < rep->batch->len; i++)
    {
      const Slot *slot = &g_array_index (rep->batch, Slot, i);
      Req *q = &s->reqs[slot->req];

      if (slot->chunk > 0)
        {
          q->prefilled += slot->chunk;
          q->cached += slot->chunk;
          if (q->prefilled < q->target)
            continue;
          if (q->prefix > 0)
            cache_prefix (s, rep, q);
          /* On a prefill replica the first token counts once the cache
           * has reached its decode replica. */
          if (q->first_token < 0 && (rep->role != ROLE_PREFILL || q->output == 1))
            q->first_token = t;
          q->generated++;
        }
      else
        {
          q->cached++;
          q->generated++;
        }
    }
  /* Sequences that are done leave, keeping the others' order. */
  for (guint i = 0; i < rep->running->len; i++)
    {
      guint32 idx = g_array_index (rep->running, guint32, i);
      Req *q = &s->reqs[idx];

      if (rep->role == ROLE_PREFILL && q->generated < q->output && q->prefilled >= q->target)
        {
          release (s, rep, q);
          rep->outstanding--;
          send_kv (s, r, idx);
          continue;
        }
      if (q->generated >= q->output)
        {
          release (s, rep, q);
          rep->outstanding--;
          complete (s, idx, t);
          if (rep->outstanding == 0 && rep->state == REPLICA_DRAINING)
            {
              rep->state = REPLICA_OFF;
              count_replicas (s, -1);
              s->scale_downs++;
            }
        }
      else
        g_array_index (rep->running, guint32, keep++) = idx;
    }
  g_array_set_size (rep->running, keep);
  start_iteration (s, r);
}

/* The kv_aware router's cost of sending Q to REP, in pages: those its
 * prefill would write beyond its cached prefix (or one routed there and
 * soon cached), and those taken or queued there already. */
static double
kv_cost (Sim *s, Replica *rep, const Req *q)
{
  PrefixEntry *e = prefix_entry (rep, q->prefix, FALSE);
  guint cached = e == NULL ? 0
                 : e->blocks > 0 ? e->blocks
                 : e->pending > 0 ? q->prefix_tokens / s->config->kv_block : 0;

  return (double) blocks_for (s, q->input) - cached
         + (rep->total_blocks - rep->free_blocks - rep->idle_cached) + rep->waiting_blocks;
}

/* The running replica a new request goes to. */
static guint
route (Sim *s, const Req *q)
{
  guint n = s->n_front, best = G_MAXUINT;

  if (s->config->router == SIM_SERVE_ROUTER_KV_AWARE)
    {
      double best_cost = 0;
      for (guint r = 0; r < n; r++)
        {
          double cost;
          if (s->replicas[r].state != REPLICA_RUNNING)
            continue;
          cost = kv_cost (s, &s->replicas[r], q);
          if (best == G_MAXUINT || cost < best_cost
              || (cost == best_cost
                  && s->replicas[r].outstanding < s->replicas[best].outstanding))
            {
              best = r;
              best_cost = cost;
            }
        }
      return best;
    }
  if (s->config->router == SIM_SERVE_ROUTER_ROUND_ROBIN)
    {
      while (s->replicas[s->next_rr].state != REPLICA_RUNNING)
        s->next_rr = (s->next_rr + 1) % n;
      best = s->next_rr;
      s->next_rr = (s->next_rr + 1) % n;
      return best;
    }
  for (guint r = 0; r < n; r++)
    if (s->replicas[r].state == REPLICA_RUNNING
        && (best == G_MAXUINT || s->replicas[r].outstanding < s->replicas[best].outstanding))
      best = r;
  return best;
}

/* The autoscaler's look at the load, as a horizontal autoscaler does it:
 * the replicas wanted are the requests routed and not completed over
 * target_outstanding, within min_replicas and max_replicas.  Fewer running
 * or starting than wanted: draining replicas are taken back, then new ones
 * start, serving after startup.  More than wanted for scale_down_delay
 * together: the running replica with the fewest requests drains (it takes
 * no new request and stops when its last completes), then another after
 * scale_down_delay more if the surplus lasts.
 * Requests already queued at a replica stay there: only new ones go to a
 * new replica. */
static void
on_tick (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  Sim *s = data;
  const SimServeConfig *c = s->config;
  double t = now_s (s), outstanding = 0, want;
  guint max = c->max_replicas > 0 ? c->max_replicas : c->replicas;
  guint active;

  (void) engine;
  (void) ev;
  if (s->completed == s->requests->len)
    return;
  for (guint r = 0; r < s->n_slots; r++)
    outstanding += s->replicas[r].outstanding;
  want = ceil (outstanding / c->target_outstanding);
  want = MAX ((double) c->min_replicas, MIN ((double) max, want));
  for (guint r = 0; r < s->n_slots && s->n_running + s->n_starting < want; r++)
    if (s->replicas[r].state == REPLICA_DRAINING)
      {
        s->replicas[r].state = REPLICA_RUNNING;
        s->n_running++;
      }
  for (guint r = 0; r < s->n_slots && s->n_running + s->n_starting < want; r++)
    if (s->replicas[r].state == REPLICA_OFF)
      {
        s->replicas[r].state = REPLICA_STARTING;
        s->n_starting++;
        count_replicas (s, +1);
        s->scale_ups++;
        sim_engine_schedule (s->engine, sim_engine_now (s->engine)
                                          + sim_time_from_seconds (c->startup),
                             s->kind_started, 0, NULL, r);
      }
  active = s->n_running + s->n_starting;
  if (active <= want || s->n_running <= c->min_replicas)
    s->surplus_since = -1;
  else if (s->surplus_since < 0)
    s->surplus_since = t;
  else if (t - s->surplus_since >= c->scale_down_delay)
    {
      guint victim = G_MAXUINT;
      for (guint r = 0; r < s->n_slots; r++)
        if (s->replicas[r].state == REPLICA_RUNNING
            && (victim == G_MAXUINT
                || s->replicas[r].outstanding < s->replicas[victim].outstanding))
          victim = r;
      s->replicas[victim].state = REPLICA_DRAINING;
      s->n_running--;
      if (s->replicas[victim].outstanding == 0)
        {
          s->replicas[victim].state = REPLICA_OFF;
          count_replicas (s, -1);
          s->scale_downs++;
        }
      /* The next one waits for another look at the load. */
      s->surplus_since = t;
    }
  sim_engine_schedule (s->engine, sim_engine_now (s->engine)
                                    + MAX (1, sim_time_from_seconds (c->autoscale_interval)),
                       s->kind_tick, 0, NULL, 0);
}

/* Request IDX goes to a running replica, or waits for one. */
static void
dispatch (Sim *s, guint32 idx)
{
  guint r;

  if (s->n_running == 0)
    {
      deque_push_back (&s->pending, idx);
      return;
    }
  r = route (s, &s->reqs[idx]);
  s->replicas[r].outstanding++;
  if (s->reqs[idx].prefix > 0)
    {
      prefix_entry (&s->replicas[r], s->reqs[idx].prefix, TRUE)->pending++;
      s->reqs[idx].pending = TRUE;
    }
  enqueue (s, &s->replicas[r], idx, FALSE);
  start_iteration (s, r);
}

/* The requests that waited for a replica go to the running ones, in
 * their order (an event of its own, so that replicas that come up at the
 * same instant all take their share). */
static void
on_dispatch (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  Sim *s = data;

  (void) engine;
  (void) ev;
  while (s->pending.len > 0 && s->n_running > 0)
    {
      guint32 idx = deque_peek (&s->pending);
      deque_pop (&s->pending);
      dispatch (s, idx);
    }
}

static void
schedule_dispatch (Sim *s)
{
  if (s->pending.len > 0)
    sim_engine_schedule (s->engine, sim_engine_now (s->engine), s->kind_dispatch, 0, NULL, 0);
}

static void
on_started (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  Sim *s = data;
  Replica *rep = &s->replicas[ev->arg];

  (void) engine;
  rep->state = REPLICA_RUNNING;
  s->n_running++;
  s->n_starting--;
  schedule_dispatch (s);
}

static void
on_arrival (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  Sim *s = data;
  guint32 idx = (guint32) ev->arg;

  (void) engine;
  count_in_system (s, +1);
  if (idx + 1 < s->requests->len)
    sim_engine_schedule (s->engine,
                         sim_time_from_seconds (g_array_index (s->requests, SimServeRequest,
                                                               idx + 1).arrival),
                         s->kind_arrival, 0, NULL, idx + 1);
  dispatch (s, idx);
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Mean, p50, p95, p99 and max of V (sorted in place); nearest rank. */
static void
summarize (double *v, guint64 n, double out[5])
{
  static const double ps[] = { 0.50, 0.95, 0.99 };
  double sum = 0;

  memset (out, 0, 5 * sizeof (double));
  if (n == 0)
    return;
  for (guint64 i = 0; i < n; i++)
    sum += v[i];
  qsort (v, n, sizeof (double), compare_double);
  out[0] = sum / n;
  for (guint i = 0; i < 3; i++)
    out[i + 1] = v[(guint64) MAX (0.0, ceil (ps[i] * n) - 1)];
  out[4] = v[n - 1];
}

/* Sets S up for REQUESTS on N_SLOTS replicas of MODEL, the first RUNNING
 * of them running from time 0; schedules the first arrival. */
static gboolean
sim_setup (Sim *s, const SimServeReplica *model, const SimServeConfig *c, GArray *requests,
          guint n_slots, guint running, GError **error)
{
  guint64 n = requests->len;
  guint decode_blocks = 0;

  memset (s, 0, sizeof *s);
  s->model = model;
  s->config = c;
  s->requests = requests;
  s->total_blocks = (guint) MIN (model->kv_capacity / c->kv_block, (double) G_MAXUINT32);
  if (c->disaggregated)
    {
      if (model->decode == NULL || model->node_of == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "disaggregated: expected the decode replicas' model as well");
          return FALSE;
        }
      decode_blocks = (guint) MIN (model->decode->kv_capacity / c->kv_block,
                                   (double) G_MAXUINT32);
    }
  for (guint64 i = 0; i < n; i++)
    {
      const SimServeRequest *q = &g_array_index (requests, SimServeRequest, i);
      /* A server refuses a prompt and answer longer than the model's
       * context window (vLLM's max_model_len): timing it would answer for
       * a request no deployment of the model runs. */
      if (model->context > 0 && (guint64) q->input + q->output > model->context)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "request %" G_GUINT64_FORMAT " has %u prompt and %u output tokens, %"
                       G_GUINT64_FORMAT " in all: expected at most the model's context window of "
                       "%u tokens (its key context): cap the requests with input_max and "
                       "output_max",
                       i + 1, q->input, q->output, (guint64) q->input + q->output,
                       model->context);
          return FALSE;
        }
      if (c->disaggregated && (blocks_for (s, q->input + q->output) > decode_blocks
                               || blocks_for (s, q->input + 1) > s->total_blocks))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                       "request %" G_GUINT64_FORMAT " needs %u tokens of KV cache, more than a "
                       "decode replica's %u or a prefill replica's %u: expected shorter "
                       "requests, a larger tp or fp8", i + 1, q->input + q->output,
                       decode_blocks * c->kv_block, s->total_blocks * c->kv_block);
          return FALSE;
        }
      if (!c->disaggregated && blocks_for (s, q->input + q->output) > s->total_blocks)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                       "request %" G_GUINT64_FORMAT " needs %u tokens of KV cache, more than a "
                       "replica's %u: expected shorter requests, a larger tp or fp8", i + 1,
                       q->input + q->output, s->total_blocks * c->kv_block);
          return FALSE;
        }
    }
  s->reqs = g_new0 (Req, n);
  for (guint64 i = 0; i < n; i++)
    {
      const SimServeRequest *q = &g_array_index (requests, SimServeRequest, i);
      s->reqs[i].arrival = sim_time_to_seconds (sim_time_from_seconds (q->arrival));
      s->reqs[i].input = q->input;
      s->reqs[i].output = q->output;
      s->reqs[i].target = q->input;
      s->reqs[i].first_token = -1;
      s->reqs[i].prefix = q->prefix;
      s->reqs[i].prefix_tokens = q->prefix_tokens;
      if (q->prefix > 0)
        s->prefix_requests++;
    }
  s->n_slots = n_slots;
  s->n_front = c->disaggregated ? c->prefill_replicas : s->n_slots;
  s->replicas = g_new0 (Replica, s->n_slots);
  for (guint r = 0; r < s->n_slots; r++)
    {
      Replica *rep = &s->replicas[r];
      rep->running = g_array_new (FALSE, FALSE, sizeof (guint32));
      rep->batch = g_array_new (FALSE, FALSE, sizeof (Slot));
      rep->role = !c->disaggregated ? ROLE_COLOCATED : r < s->n_front ? ROLE_PREFILL
                  : ROLE_DECODE;
      rep->model = rep->role == ROLE_DECODE ? model->decode : model;
      rep->total_blocks = rep->role == ROLE_DECODE ? decode_blocks : s->total_blocks;
      rep->free_blocks = rep->total_blocks;
      rep->state = r < running ? REPLICA_RUNNING : REPLICA_OFF;
    }
  s->n_on = s->n_running = s->peak = running;
  s->surplus_since = -1;
  s->ttft = g_new (double, MAX (1, n));
  s->tpot = g_new (double, MAX (1, n));
  s->e2e = g_new (double, MAX (1, n));
  s->engine = sim_engine_new ();
  s->kind_arrival = sim_engine_register (s->engine, on_arrival, s);
  s->kind_done = sim_engine_register (s->engine, on_done, s);
  s->kind_tick = sim_engine_register (s->engine, on_tick, s);
  s->kind_started = sim_engine_register (s->engine, on_started, s);
  s->kind_dispatch = sim_engine_register (s->engine, on_dispatch, s);
  s->kind_transfer = sim_engine_register (s->engine, on_transfer, s);
  return TRUE;
}

static void
schedule_first_arrival (Sim *s)
{
  if (s->requests->len > 0)
    sim_engine_schedule (s->engine, s->reqs[0].arrival > 0
                                      ? sim_time_from_seconds (s->reqs[0].arrival) : 0,
                         s->kind_arrival, 0, NULL, 0);
}

/* The figures of the requests completed so far, over the time to the last
 * completion. */
static void
sim_result (Sim *s, SimServeResult *res)
{
  const SimServeConfig *c = s->config;
  guint64 n = s->completed;
  double in_tokens = 0, out_tokens = 0, busy = 0, kv = 0, decode_slots = 0, iterations = 0;
  double span = s->last_completion, kv_share = 0;

  memset (res, 0, sizeof *res);
  for (guint64 i = 0; i < s->requests->len; i++)
    if (s->reqs[i].generated >= s->reqs[i].output)
      {
        in_tokens += s->reqs[i].input;
        out_tokens += s->reqs[i].output;
      }
  res->requests = n;
  res->preemptions = s->preemptions;
  res->makespan = span;
  /* What the replicas running or starting cost, to the last completion
   * (the autoscaler's changes all come before it). */
  res->replica_seconds = s->replica_area
                         + s->n_on * (MAX (span, s->last_replica_change) - s->last_replica_change);
  res->peak_replicas = s->peak;
  res->scale_ups = s->scale_ups;
  res->scale_downs = s->scale_downs;
  for (guint r = 0; r < s->n_slots; r++)
    {
      busy += s->replicas[r].busy_time;
      kv += s->replicas[r].kv_area;
      decode_slots += s->replicas[r].decode_slots;
      iterations += s->replicas[r].iterations;
      if (c->disaggregated)
        /* Each side's share of its own pages. */
        kv_share += s->replicas[r].kv_area / s->replicas[r].total_blocks;
    }
  if (c->disaggregated)
    {
      res->gpus = c->prefill_replicas * s->model->gpus
                  + c->decode_replicas * s->model->decode->gpus;
      res->gpu_seconds = res->gpus * span;
    }
  else
    {
      res->gpus = c->replicas * s->model->gpus;
      res->gpu_seconds = res->replica_seconds * s->model->gpus;
    }
  res->prefix_requests = s->prefix_requests;
  res->prefix_hits = s->prefix_hits;
  res->prefix_lookups = s->prefix_lookups;
  res->prefix_hit_tokens = s->prefix_hit_tokens;
  res->kv_transfers = s->transfers;
  res->kv_transfer_mean = s->transfers > 0 ? s->transfer_sum / s->transfers : 0;
  res->input_tokens = in_tokens;
  res->output_tokens = out_tokens;
  if (span > 0)
    {
      res->output_tokens_per_second = out_tokens / span;
      res->tokens_per_second = (in_tokens + out_tokens) / span;
      res->mean_in_system = s->area_in_system / span;
      res->arrival_rate = n / span;
      if (res->replica_seconds > 0)
        {
          res->kv_utilization = c->disaggregated ? kv_share / res->replica_seconds
                                : kv / ((double) s->total_blocks * res->replica_seconds);
          res->gpu_busy = busy / res->replica_seconds;
        }
      res->goodput = s->met_slo / span;
    }
  res->slo_attainment = n > 0 ? (double) s->met_slo / n : 0;
  res->queue_wait_mean = n > 0 ? s->wait_sum / n : 0;
  res->kv_capacity_tokens = (double) s->total_blocks * c->kv_block;
  res->iterations = iterations;
  res->mean_batch = iterations > 0 ? decode_slots / iterations : 0;
  summarize (s->e2e, n, res->e2e);
  summarize (s->tpot, s->n_tpot, res->tpot);
  summarize (s->ttft, n, res->ttft);
}

static void
sim_teardown (Sim *s)
{
  for (guint r = 0; r < s->n_slots; r++)
    {
      g_array_unref (s->replicas[r].running);
      g_array_unref (s->replicas[r].batch);
      g_free (s->replicas[r].waiting.items);
      g_clear_pointer (&s->replicas[r].prefixes, g_hash_table_unref);
    }
  g_free (s->pending.items);
  g_free (s->replicas);
  g_free (s->reqs);
  g_free (s->ttft);
  g_free (s->tpot);
  g_free (s->e2e);
  g_clear_pointer (&s->engine, sim_engine_free);
}

gboolean
sim__serve_simulate (const SimServeReplica *model, const SimServeConfig *c, GArray *requests,
                     SimServeResult *res, GError **error)
{
  Sim s;
  guint64 n = requests->len;
  gboolean ok = TRUE;
  SimRunStatus status;

  memset (res, 0, sizeof *res);
  if (!sim_setup (&s, model, c, requests,
                 c->autoscale ? MAX (c->replicas, c->max_replicas)
                 : c->disaggregated ? c->prefill_replicas + c->decode_replicas : c->replicas,
                 c->disaggregated ? c->prefill_replicas + c->decode_replicas : c->replicas,
                 error))
    return FALSE;
  if (c->autoscale && n > 0)
    sim_engine_schedule (s.engine, MAX (1, sim_time_from_seconds (c->autoscale_interval)),
                         s.kind_tick, 0, NULL, 0);
  schedule_first_arrival (&s);
  status = sim_engine_run (s.engine, SIM_TIME_NEVER);
  if (status == SIM_RUN_FAILED)
    {
      g_propagate_error (error, g_error_copy (sim_engine_get_error (s.engine)));
      ok = FALSE;
    }
  else if (s.completed != n)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " requests completed",
                   s.completed, n);
      ok = FALSE;
    }
  if (ok)
    sim_result (&s, res);
  sim_teardown (&s);
  return ok;
}

/* ------------------------------------------------------------------------- */
/* A deployment driven from outside (serving in ordinary runs).              */

struct _SimServeLoop {
  Sim s;
};

SimServeLoop *
sim__serve_loop_new (const SimServeReplica *model, const SimServeConfig *config,
                     GArray *requests, guint n_slots, GError **error)
{
  SimServeLoop *loop = g_new0 (SimServeLoop, 1);

  if (!sim_setup (&loop->s, model, config, requests, n_slots, 0, error))
    {
      sim_teardown (&loop->s);
      g_free (loop);
      return NULL;
    }
  schedule_first_arrival (&loop->s);
  return loop;
}

void
sim__serve_loop_free (SimServeLoop *loop)
{
  if (loop == NULL)
    return;
  sim_teardown (&loop->s);
  g_free (loop);
}

gboolean
sim__serve_loop_advance (SimServeLoop *loop, SimTime t, gboolean inclusive, GError **error)
{
  SimTime until = inclusive ? t : t - 1;

  if (until <= sim_engine_now (loop->s.engine))
    return TRUE;
  if (sim_engine_run (loop->s.engine, until) == SIM_RUN_FAILED)
    {
      g_propagate_error (error, g_error_copy (sim_engine_get_error (loop->s.engine)));
      return FALSE;
    }
  return TRUE;
}

void
sim__serve_loop_replica_up (SimServeLoop *loop, guint r)
{
  Sim *s = &loop->s;
  Replica *rep = &s->replicas[r];

  g_return_if_fail (r < s->n_slots);
  if (rep->state == REPLICA_RUNNING)
    return;
  if (rep->state == REPLICA_OFF)
    count_replicas (s, +1);
  rep->state = REPLICA_RUNNING;
  s->n_running++;
  schedule_dispatch (s);
}

guint
sim__serve_loop_replica_down (SimServeLoop *loop, guint r)
{
  Sim *s = &loop->s;
  Replica *rep = &s->replicas[r];
  guint lost = 0;

  g_return_val_if_fail (r < s->n_slots, 0);
  if (rep->state == REPLICA_OFF)
    return 0;
  if (rep->state == REPLICA_RUNNING)
    s->n_running--;
  rep->state = REPLICA_OFF;
  count_replicas (s, -1);
  /* Its requests lose their KV cache, as a preempted sequence does, and go
   * back to the deployment's queue: what they generated was sent, the rest
   * is computed again elsewhere. */
  for (guint i = 0; i < rep->running->len; i++)
    {
      guint32 idx = g_array_index (rep->running, guint32, i);
      Req *q = &s->reqs[idx];

      q->blocks = 0;
      q->shared = 0;
      q->pending = FALSE;
      q->cached = 0;
      q->prefilled = 0;
      q->target = q->input + q->generated;
      deque_push_back (&s->pending, idx);
      lost++;
    }
  while (rep->waiting.len > 0)
    {
      guint32 idx = deque_peek (&rep->waiting);
      s->reqs[idx].pending = FALSE;
      s->reqs[idx].queued_blocks = 0;
      deque_push_back (&s->pending, idx);
      deque_pop (&rep->waiting);
      lost++;
    }
  g_array_set_size (rep->running, 0);
  g_array_set_size (rep->batch, 0);
  /* Its cached prefixes go with its memory. */
  g_clear_pointer (&rep->prefixes, g_hash_table_unref);
  rep->idle_cached = 0;
  rep->waiting_blocks = 0;
  rep->free_blocks = rep->total_blocks;
  rep->outstanding = 0;
  rep->busy = FALSE;
  rep->epoch++;
  s->rerouted += lost;
  schedule_dispatch (s);
  return lost;
}

gboolean
sim__serve_loop_replica_drain (SimServeLoop *loop, guint r)
{
  Sim *s = &loop->s;
  Replica *rep = &s->replicas[r];

  g_return_val_if_fail (r < s->n_slots && rep->state == REPLICA_RUNNING, FALSE);
  rep->state = REPLICA_DRAINING;
  s->n_running--;
  if (rep->outstanding > 0)
    return FALSE;
  rep->state = REPLICA_OFF;
  count_replicas (s, -1);
  s->scale_downs++;
  return TRUE;
}

SimServeReplicaState
sim__serve_loop_replica_state (const SimServeLoop *loop, guint r)
{
  switch (loop->s.replicas[r].state)
    {
    case REPLICA_RUNNING:
      return SIM_SERVE_REPLICA_SERVING;
    case REPLICA_DRAINING:
      return SIM_SERVE_REPLICA_DRAINING;
    case REPLICA_OFF:
    case REPLICA_STARTING:
    default:
      return SIM_SERVE_REPLICA_OFF;
    }
}

guint
sim__serve_loop_outstanding (const SimServeLoop *loop)
{
  return loop->s.in_system;
}

guint
sim__serve_loop_replica_outstanding (const SimServeLoop *loop, guint r)
{
  return loop->s.replicas[r].outstanding;
}

gboolean
sim__serve_loop_done (const SimServeLoop *loop)
{
  return loop->s.completed == loop->s.requests->len;
}

double
sim__serve_loop_replica_busy (const SimServeLoop *loop, guint r)
{
  return loop->s.replicas[r].busy_time;
}

guint64
sim__serve_loop_rerouted (const SimServeLoop *loop)
{
  return loop->s.rerouted;
}

void
sim__serve_loop_summarise (SimServeLoop *loop, SimServeResult *result)
{
  sim_result (&loop->s, result);
}
