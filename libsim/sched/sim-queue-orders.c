/* sim-queue-orders.c: queue orders beyond FIFO.
 *
 *  sjf         shortest job first, greedy
 *  priority    priority classes, FIFO within a class, greedy; optionally a
 *              waiting job preempts lower-priority running ones
 *  easy        FIFO with EASY backfilling (Lifka 1995; Mu'alem and
 *              Feitelson 2001)
 *  las         Tiresias' discretized two-dimensional least attained service
 *              (Gu et al., NSDI'19), with preemption between queues
 *  fair-share  tenants by GPU usage over weight, FIFO within a tenant, with
 *              per-tenant GPU quotas in the manner of Kubernetes'
 *              ResourceQuota
 *
 * Each order reads its [policy] keys once, in create(), with the typed
 * getters, so that a bad value is reported at its line in the scenario.
 * Scheduling passes run at decision points only and never change the queue
 * array they are handed (the simulation removes started jobs and re-queues
 * preempted ones after the pass).
 *
 * Preemption (priority, las) follows Kubernetes' choice of victims: the
 * running jobs the waiting job outranks are given up least important first
 * (lowest rank, then latest submitted) on a copy of the cluster until the
 * job fits; then each victim, most important first, is given back if the
 * job still fits without it, so that no job is stopped needlessly.  Only a
 * job that will then start preempts anything.  A preempted job must redo
 * checkpoint_cost + restore_cost of work when it runs again: the GPUs are
 * freed at once and the checkpoint's cost is charged on resumption, which
 * keeps the cluster state simple while charging the same total time.
 */
#include "config.h"

#include "sched/sim-queue-orders.h"
#include "cluster/sim-mig.h"
#include "sched/sim-policy-private.h"
#include "core/sim-error.h"

#include <math.h>
#include <string.h>

/* The default cost of writing a checkpoint, and of reading it back on
 * resumption.  A round figure of the order of saving or loading a large
 * model's state to shared storage, not a measurement: set checkpoint_cost
 * and restore_cost for the system being modelled. */
#define DEFAULT_CHECKPOINT_COST (30 * SIM_SECOND)
#define DEFAULT_RESTORE_COST    (30 * SIM_SECOND)

/* ------------------------------------------------------------------------- */
/* Parsing helpers: keys with values the typed getters do not cover.         */

static gboolean
param_failed (SimPolicyParams *params, const char *key)
{
  if (params != NULL)
    sim__policy_params_fail (params, key);
  return FALSE;
}

/* One of CHOICES (NULL-terminated), case-insensitive; *out is its index. */
static gboolean
get_choice (SimPolicyParams *params, const char *key, const char * const *choices, guint def,
            guint *out, GError **error)
{
  const char *text = NULL;
  g_autofree char *list = NULL;

  *out = def;
  if (!sim_policy_params_get_string (params, key, NULL, &text, error))
    return param_failed (params, key);
  if (text == NULL)
    return TRUE;
  for (guint i = 0; choices[i] != NULL; i++)
    if (g_ascii_strcasecmp (text, choices[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  list = g_strjoinv (" or ", (char **) choices);
  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "expected %s, not \"%s\"", list, text);
  return param_failed (params, key);
}

static gboolean
get_boolean (SimPolicyParams *params, const char *key, gboolean def, gboolean *out,
             GError **error)
{
  static const char * const yes[] = { "true", "yes", "on", "1", NULL };
  static const char * const no[] = { "false", "no", "off", "0", NULL };
  const char *text = NULL;

  *out = def;
  if (!sim_policy_params_get_string (params, key, NULL, &text, error))
    return param_failed (params, key);
  if (text == NULL)
    return TRUE;
  for (guint i = 0; yes[i] != NULL; i++)
    if (g_ascii_strcasecmp (text, yes[i]) == 0 || g_ascii_strcasecmp (text, no[i]) == 0)
      {
        *out = g_ascii_strcasecmp (text, yes[i]) == 0;
        return TRUE;
      }
  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "expected true or false, not \"%s\"", text);
  return param_failed (params, key);
}

typedef struct {
  guint32 tenant;
  double  value;
} TenantValue;

static int
compare_tenant_values (gconstpointer a, gconstpointer b)
{
  guint32 x = ((const TenantValue *) a)->tenant, y = ((const TenantValue *) b)->tenant;
  return x < y ? -1 : x > y;
}

/* A list "TENANT:VALUE, ..." with VALUE in [min, max]; sorted by tenant.
 * Absent: an empty array. */
static gboolean
get_tenant_map (SimPolicyParams *params, const char *key, const char *example, double min,
                double max, GArray **out, GError **error)
{
  const char *text = NULL;
  g_auto(GStrv) items = NULL;
  g_autoptr(GArray) map = g_array_new (FALSE, FALSE, sizeof (TenantValue));

  *out = NULL;
  if (!sim_policy_params_get_string (params, key, NULL, &text, error))
    return param_failed (params, key);
  if (text != NULL)
    {
      items = g_strsplit (text, ",", -1);
      for (guint i = 0; items[i] != NULL; i++)
        {
          char *item = g_strstrip (items[i]);
          char *colon = strchr (item, ':');
          TenantValue tv;
          gint64 tenant;

          if (colon == NULL)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                           "item %u \"%s\": expected TENANT:VALUE, such as %s", i + 1, item,
                           example);
              return param_failed (params, key);
            }
          *colon = '\0';
          if (!sim_parse_integer (g_strstrip (item), 0, G_MAXUINT32, &tenant, error) ||
              !sim_parse_number (g_strstrip (colon + 1), min, max, &tv.value, error))
            {
              g_prefix_error (error, "item %u: ", i + 1);
              return param_failed (params, key);
            }
          tv.tenant = (guint32) tenant;
          for (guint k = 0; k < map->len; k++)
            if (g_array_index (map, TenantValue, k).tenant == tv.tenant)
              {
                g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                             "item %u: tenant %u is listed twice", i + 1, tv.tenant);
                return param_failed (params, key);
              }
          g_array_append_val (map, tv);
        }
      g_array_sort (map, compare_tenant_values);
    }
  *out = g_steal_pointer (&map);
  return TRUE;
}

static gboolean
get_overhead (SimPolicyParams *params, SimTime *overhead, GError **error)
{
  SimTime checkpoint, restore;

  if (!sim_policy_params_get_duration (params, "checkpoint_cost", DEFAULT_CHECKPOINT_COST,
                                       &checkpoint, error) ||
      !sim_policy_params_get_duration (params, "restore_cost", DEFAULT_RESTORE_COST, &restore,
                                       error))
    return FALSE;
  *overhead = checkpoint + restore;
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Pass helpers.                                                             */

/* A placement with room for a job's GPUs: on the stack for up to 64. */
typedef struct {
  SimPlacement p;
  guint32      stack[64];
  guint32     *heap;
} PlaceBuf;

static SimPlacement *
place_buf_init (PlaceBuf *b, const SimJob *job)
{
  b->heap = NULL;
  if (job->spec.gpus <= G_N_ELEMENTS (b->stack))
    b->p.gpus = b->stack;
  else
    b->p.gpus = b->heap = g_new (guint32, job->spec.gpus);
  b->p.n_gpus = job->spec.gpus;
  b->p.milli = job->spec.gpu_milli;
  return &b->p;
}

static void
place_buf_clear (PlaceBuf *b)
{
  g_clear_pointer (&b->heap, g_free);
}

/* Keeps the first failure for the simulation to report, as
 * sim_policy_schedule_in_order() does. */
static void
keep_error (SimPolicy *policy, SimSchedContext *ctx, GError *error)
{
  g_prefix_error (&error, "policy %s: ", sim_policy_get_name (policy));
  if (ctx->error == NULL)
    ctx->error = error;
  else
    g_error_free (error);
}

/* Starts JOB on P; FALSE (with ctx->error set) if the cluster refuses.  A
 * start held back for now (SIM_ERROR_HELD) is FALSE with no error, as a
 * job that does not fit; ctx->held says which it was. */
static gboolean
start_on (SimPolicy *policy, SimSchedContext *ctx, SimJob *job, const SimPlacement *p,
          GPtrArray *started)
{
  GError *error = NULL;

  if (!sim_sched_context_start (ctx, job, p, &error))
    {
      if (g_error_matches (error, SIM_ERROR, SIM_ERROR_HELD))
        g_error_free (error);
      else
        keep_error (policy, ctx, error);
      return FALSE;
    }
  if (started != NULL)
    g_ptr_array_add (started, job);
  return TRUE;
}

/* Places and starts JOB if it fits now.  Returns whether it started. */
static gboolean
try_start (SimPolicy *policy, SimSchedContext *ctx, SimJob *job, GPtrArray *started)
{
  PlaceBuf b;
  SimPlacement *p;
  gboolean ok = FALSE;

  if (sim_job_takes_whole_gpus (job) && sim_cluster_get_n_free_gpus (ctx->cluster) < sim_job_get_min_gpus (job))
    return FALSE;
  p = place_buf_init (&b, job);
  if (sim_policy_place (policy, ctx->cluster, job, p))
    ok = start_on (policy, ctx, job, p, started);
  place_buf_clear (&b);
  return ok;
}

static int
compare_guint32 (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return x < y ? -1 : x > y;
}

/* Reserves (or releases) on CLUSTER the host CPU and memory JOB takes on
 * the nodes of GPUS, as the simulation does.  A node's GPUs are numbered
 * consecutively and nodes in order, so sorting the GPU indices groups them
 * by node.  A refused reservation is undone whole. */
static gboolean
apply_host (SimCluster *cluster, const SimJob *job, const guint32 *gpus, guint n, gboolean reserve)
{
  g_autofree guint32 *sorted = NULL;
  guint i = 0;

  if (job->spec.cpu_milli == 0 && job->spec.memory_bytes == 0)
    return TRUE;
  sorted = g_memdup2 (gpus, n * sizeof (guint32));
  qsort (sorted, n, sizeof (guint32), compare_guint32);
  while (i < n)
    {
      guint node = sim_cluster_get_gpu (cluster, sorted[i])->node, here = 0;
      guint64 cpu, mem;
      while (i + here < n && sim_cluster_get_gpu (cluster, sorted[i + here])->node == node)
        here++;
      sim_job_host_share (job, here, &cpu, &mem);
      if (!reserve)
        sim_cluster_release_host (cluster, node, cpu, mem);
      else if (!sim_cluster_reserve_host (cluster, node, cpu, mem, NULL))
        {
          apply_host (cluster, job, sorted, i, FALSE);
          return FALSE;
        }
      i += here;
    }
  return TRUE;
}

/* The index of a MIG job's profile on the model of GPU. */
static int
mig_profile_of (const SimCluster *cluster, const SimJob *job, guint gpu)
{
  const SimNode *node = sim_cluster_get_node (cluster, sim_cluster_get_gpu (cluster, gpu)->node);
  return sim_mig_lookup_profile (node->gpu_model, job->spec.mig_profile);
}

/* On a what-if copy of the cluster: takes (or gives back) what JOB holds or
 * would hold on GPUS (for a MIG job, its instance starting at MIG_START). */
static gboolean
copy_take (SimCluster *copy, const SimJob *job, const guint32 *gpus, guint n, gint32 mig_start)
{
  if (job->spec.mig_profile != NULL)
    {
      int profile = n == 1 ? mig_profile_of (copy, job, gpus[0]) : -1;
      if (profile < 0 || sim_cluster_mig_allocate (copy, gpus[0], (guint) profile, mig_start,
                                                   NULL) < 0)
        return FALSE;
    }
  else if (!sim_cluster_allocate (copy, gpus, n, job->spec.gpu_milli, NULL))
    return FALSE;
  if (!apply_host (copy, job, gpus, n, TRUE))
    {
      if (job->spec.mig_profile != NULL)
        sim_cluster_mig_release (copy, gpus[0], (guint) mig_profile_of (copy, job, gpus[0]),
                                 (guint) mig_start);
      else
        sim_cluster_release (copy, gpus, n, job->spec.gpu_milli);
      return FALSE;
    }
  return TRUE;
}

static void
copy_give_back (SimCluster *copy, const SimJob *job, const guint32 *gpus, guint n,
                gint32 mig_start)
{
  if (job->spec.mig_profile != NULL)
    sim_cluster_mig_release (copy, gpus[0], (guint) mig_profile_of (copy, job, gpus[0]),
                             (guint) mig_start);
  else
    sim_cluster_release (copy, gpus, n, job->spec.gpu_milli);
  apply_host (copy, job, gpus, n, FALSE);
}

/* ------------------------------------------------------------------------- */
/* Preemptive greedy pass, shared by "priority" and "las".                   */

/* A job's rank: lower is more important.  A job may preempt running jobs
 * of strictly higher rank only, so jobs of one rank never preempt each
 * other (no thrashing between equals). */
typedef gint64 (*RankFunc) (gpointer state, const SimJob *job);

typedef struct {
  RankFunc rank;
  gpointer state;
} RankCtx;

/* Victim order: least important first (highest rank, then latest
 * submitted, then latest queued). */
static int
compare_victims (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const RankCtx *rc = data;
  const SimJob *a = *(SimJob * const *) pa, *b = *(SimJob * const *) pb;
  gint64 ra = rc->rank (rc->state, a), rb = rc->rank (rc->state, b);

  if (ra != rb)
    return ra > rb ? -1 : 1;
  if (a->spec.submit != b->spec.submit)
    return a->spec.submit > b->spec.submit ? -1 : 1;
  return a->queue_seq > b->queue_seq ? -1 : a->queue_seq < b->queue_seq;
}

/* Chooses victims among CANDIDATES (least important first) so that JOB
 * fits; fills VICTIMS and returns TRUE, or FALSE if even all of them do
 * not make room.  Time complexity: O(nodes + GPUs) for the copy, plus a
 * placement per candidate, twice. */
static gboolean
choose_victims (SimPolicy *policy, const SimCluster *cluster, const SimJob *job,
                GPtrArray *candidates, GPtrArray *victims)
{
  g_autoptr(SimCluster) copy = NULL;
  PlaceBuf b;
  SimPlacement *p;
  guint used = 0;
  gboolean fits = FALSE;

  g_ptr_array_set_size (victims, 0);
  if (candidates->len == 0)
    return FALSE;
  copy = sim_cluster_copy (cluster);
  p = place_buf_init (&b, job);
  while (used < candidates->len && !fits)
    {
      const SimJob *v = candidates->pdata[used++];
      copy_give_back (copy, v, v->gpus, v->n_gpus, v->mig_start);
      fits = sim_policy_place (policy, copy, job, p);
    }
  if (fits)
    {
      /* Reprieve, most important first: keep a victim if the job fits
       * without taking its GPUs. */
      for (guint i = used; i-- > 0;)
        {
          SimJob *v = candidates->pdata[i];
          if (copy_take (copy, v, v->gpus, v->n_gpus, v->mig_start))
            {
              if (sim_policy_place (policy, copy, job, p))
                continue;
              copy_give_back (copy, v, v->gpus, v->n_gpus, v->mig_start);
            }
          g_ptr_array_add (victims, v);
        }
    }
  place_buf_clear (&b);
  return fits;
}

/* Whether JOB is simple enough for the "a no larger job of this rank
 * failed" shortcut to be exact: whole GPUs (no shares, no MIG instance),
 * any model, no host share. */
static gboolean
is_plain (const SimJob *job)
{
  return sim_job_takes_whole_gpus (job) && job->spec.gpu_models == NULL &&
         job->spec.cpu_milli == 0 && job->spec.memory_bytes == 0 && job->spec.gpus_min == 0;
}

/* Plain requests (rank, GPUs) that failed since the cluster last changed
 * in this pass.  A placement is a function of the cluster and the request,
 * so an identical request fails again as long as nothing started or
 * stopped: skipping it changes no decision.  (A larger request may fit
 * where a smaller one does not, e.g. on several whole small nodes, so only
 * identical ones are skipped.)  Few distinct sizes fail, so a linear scan
 * will do. */
typedef struct {
  gint64  rank;
  guint32 gpus;
} Unfit;

static gboolean
unfit_known (GArray *unfit, const SimJob *job, gint64 rank)
{
  if (!is_plain (job))
    return FALSE;
  for (guint i = 0; i < unfit->len; i++)
    if (g_array_index (unfit, Unfit, i).rank == rank &&
        g_array_index (unfit, Unfit, i).gpus == job->spec.gpus)
      return TRUE;
  return FALSE;
}

static void
unfit_add (GArray *unfit, const SimJob *job, gint64 rank)
{
  Unfit u = { rank, job->spec.gpus };

  if (is_plain (job))
    g_array_append_val (unfit, u);
}

/* Walks the queue in order, starting every job that fits (greedy); a job
 * that does not fit preempts running jobs of higher rank if that makes
 * room.  Jobs started in this pass come earlier in the order, so they never
 * rank below a later job and are never victims.
 *
 * Cost per pass: the running jobs sorted once; a placement per queued job,
 * as the greedy default; for a blocked job, a walk over the victims it
 * outranks with a count check first, then a cluster copy and up to two
 * placements per candidate.  Identical plain requests that failed are not
 * tried again until the cluster changes (see Unfit). */
static void
preemptive_pass (SimPolicy *policy, SimSchedContext *ctx, RankFunc rank, gpointer state,
                 SimTime overhead, GPtrArray *started)
{
  guint n = 0, n_running = 0;
  SimJob * const *queue = sim_sched_context_get_queue (ctx, &n);
  SimJob * const *running = sim_sched_context_get_running (ctx, &n_running);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  g_autoptr(GPtrArray) candidates = g_ptr_array_new ();
  g_autoptr(GPtrArray) victims = g_ptr_array_new ();
  g_autofree gint64 *ranks = NULL;
  g_autoptr(GArray) unfit = g_array_new (FALSE, FALSE, sizeof (Unfit));
  RankCtx rc = { rank, state };

  for (guint i = 0; i < n_running; i++)
    g_ptr_array_add (order, running[i]);
  g_ptr_array_sort_with_data (order, compare_victims, &rc);
  ranks = g_new (gint64, MAX (order->len, 1));
  for (guint k = 0; k < order->len; k++)
    ranks[k] = rank (state, order->pdata[k]);

  for (guint i = 0; i < n && ctx->error == NULL; i++)
    {
      SimJob *job = queue[i];
      gint64 r;
      guint64 room;

      if (job->state != SIM_JOB_QUEUED)
        continue;
      r = rank (state, job);
      if (unfit_known (unfit, job, r))
        continue;
      ctx->held = FALSE;
      if (try_start (policy, ctx, job, started))
        {
          g_array_set_size (unfit, 0);
          continue;
        }
      if (ctx->error != NULL)
        break;
      /* It fits but is held back for power: preempting others would not
       * make room for it. */
      if (ctx->held)
        continue;

      /* Candidates: running jobs it outranks, least important first (a
       * prefix of the victim order). */
      g_ptr_array_set_size (candidates, 0);
      room = sim_cluster_get_n_free_gpus (ctx->cluster);
      for (guint k = 0; k < order->len && ranks[k] > r; k++)
        {
          SimJob *v = order->pdata[k];
          if (v->state == SIM_JOB_RUNNING)
            {
              g_ptr_array_add (candidates, v);
              room += v->n_gpus;
            }
        }
      if ((sim_job_takes_whole_gpus (job) && room < sim_job_get_min_gpus (job)) ||
          !choose_victims (policy, ctx->cluster, job, candidates, victims))
        {
          unfit_add (unfit, job, r);
          continue;
        }
      g_array_set_size (unfit, 0);
      for (guint k = 0; k < victims->len && ctx->error == NULL; k++)
        {
          GError *error = NULL;
          if (!sim_sched_context_preempt (ctx, victims->pdata[k], overhead, &error))
            keep_error (policy, ctx, error);
        }
      if (ctx->error == NULL)
        try_start (policy, ctx, job, started);
    }
}

/* ------------------------------------------------------------------------- */
/* sjf: shortest job first.
 *
 * Non-preemptive and greedy: the queue is sorted by the job's length
 * (exact: spec.duration, known only to an oracle; requested: the user's
 * estimate spec.requested, or the duration where the workload gives none),
 * ties in arrival order, and a job that does not fit lets later ones run.
 * Greedy because SJF aims at the mean wait, which head-of-line blocking
 * defeats: a short job needing many GPUs would hold every smaller job
 * behind it, and the GPU-cluster studies that use SJF as a baseline
 * (Tiresias among them) schedule it greedily.  Like any SJF it can starve
 * long jobs; that is the trade-off it stands for. */

typedef enum {
  ESTIMATE_EXACT,
  ESTIMATE_REQUESTED,
} Estimate;

static const char * const estimate_names[] = { "exact", "requested", NULL };

typedef struct {
  Estimate estimate;
} Sjf;

static SimTime
job_length (Estimate estimate, const SimJob *job)
{
  if (estimate == ESTIMATE_REQUESTED && job->spec.requested > 0)
    return job->spec.requested;
  return job->spec.duration;
}

static gpointer
sjf_create (const SimPolicySetup *setup, GError **error)
{
  Sjf *self = g_new0 (Sjf, 1);
  guint e;

  if (!get_choice (setup->params, "sjf_estimate", estimate_names, ESTIMATE_EXACT, &e, error))
    {
      g_free (self);
      return NULL;
    }
  self->estimate = e;
  return self;
}

static int
sjf_compare (gpointer state, const SimJob *a, const SimJob *b)
{
  const Sjf *self = state;
  SimTime la = job_length (self->estimate, a), lb = job_length (self->estimate, b);

  return la < lb ? -1 : la > lb;
}

/* ------------------------------------------------------------------------- */
/* priority: classes by spec.priority, higher first, FIFO within a class.
 *
 * Greedy, as Kubernetes' scheduler is: a job that does not fit lets later
 * jobs run.  With priority_preempt, a job that does not fit preempts
 * running jobs of strictly lower priority, as Kubernetes' preemption does
 * (least important victims first, then the unneeded ones reprieved). */

typedef struct {
  gboolean preempt;
  SimTime  overhead;
} Priority;

static gpointer
priority_create (const SimPolicySetup *setup, GError **error)
{
  g_autofree Priority *self = g_new0 (Priority, 1);

  if (!get_boolean (setup->params, "priority_preempt", FALSE, &self->preempt, error) ||
      !get_overhead (setup->params, &self->overhead, error))
    return NULL;
  return g_steal_pointer (&self);
}

static int
priority_compare (gpointer state, const SimJob *a, const SimJob *b)
{
  return a->spec.priority > b->spec.priority ? -1 : a->spec.priority < b->spec.priority;
}

static gint64
priority_rank (gpointer state, const SimJob *job)
{
  return -(gint64) job->spec.priority;
}

static void
priority_schedule (gpointer state, SimPolicy *policy, SimSchedContext *ctx)
{
  Priority *self = state;

  if (!self->preempt)
    sim_policy_schedule_in_order (policy, ctx, TRUE);
  else
    preemptive_pass (policy, ctx, priority_rank, self, self->overhead, NULL);
}

/* ------------------------------------------------------------------------- */
/* easy: FIFO with EASY backfilling.
 *
 * Each pass starts jobs in FIFO order while they fit.  The first job that
 * does not (the head) gets a reservation: the earliest time it fits once
 * running jobs end, found by giving back, on a copy of the cluster, the
 * GPUs of running jobs in order of estimated end (ties by arrival) until
 * the placement fits it there.  A later job then starts now only if it fits
 * now and either ends, by its estimate, no later than the reservation, or
 * leaves the head room at the reservation: its GPUs are taken on the copy
 * (the cluster as it will be at the reservation) and the head placed again;
 * if the head still fits, the job takes only "extra" GPUs and stays on the
 * copy.  This is EASY with the placement's own notion of fitting, so node
 * boundaries, fractional GPUs and host resources count as they will when
 * the head starts.
 *
 * Estimates (easy_estimate): "requested" (the default, as EASY uses the
 * user's estimate) is spec.requested, or the duration where the workload
 * gives none; a running job ends by estimate at its start + that.
 * "exact" uses the remaining work (at the running job's current rate; at
 * reference speed for a waiting job), so estimates are the true ends as
 * long as rates do not change.  A running job that outlives its estimate
 * (traces have jobs that overrun their request) is taken to end now: the
 * reservation is then as early as possible, and backfilling as cautious.
 * With exact estimates the head never starts later than its first
 * reservation (the reservation only moves earlier); check-policies tests
 * this over random workloads.
 *
 * Cost per pass.  A pass runs at nearly every event, and on a full
 * cluster with a long queue (a month of Philly on 64 nodes: thousands
 * waiting, hundreds running) nearly every pass has a blocked head, so
 * what a blocked pass does is kept from growing with the running jobs and
 * the cluster:
 *  - the running jobs and their estimated ends come from the profile of
 *    the jobs this policy started (Tracked), kept in order of end from
 *    pass to pass and checked in one lean walk (easy_profile_check()),
 *    rather than asked for and sorted.  Asking brings their progress up to
 *    date, which rounds; the pass asks, as the plain scan does, whenever
 *    not asking could change a time (rates other than 1, shares, MIG,
 *    "exact" estimates) or the profile misses a job (started outside the
 *    policy, a drained node);
 *  - the reservation is worked out only when a later job fits now and
 *    ends after a lower bound counted from GPU numbers (see Backfill), and
 *    then on the mirror, a copy of the cluster kept from pass to pass as it
 *    will be at some time and moved from there to the reservation by the
 *    few jobs in between (easy_mirror_reserve()), rather than on a fresh
 *    copy given back every job up to it.  The mirror is used for first-fit,
 *    best-fit and worst-fit and a head of whole GPUs; otherwise a copy is
 *    made, as before;
 *  - a placement per queued job that passes a test of its GPU count (kept
 *    in its policy_data), except identical requests that did not fit, or
 *    that fit but left the head no room, since nothing started (Unfit).
 * The decisions are those of the plain scan, which sim__easy_set_eager()
 * restores (the running jobs asked for and sorted, a copy of the cluster
 * given them back until the head fits, in every blocked pass) and against
 * which check-easy compares every job's start, end and GPUs.
 * Deterministic: every order has a tie-break.  Rejected:
 * conservative backfilling (a reservation for every job): more predictable
 * waits but a profile per decision, costlier by a factor of the queue
 * length. */

/* A running job the policy started, in the profile of estimated ends:
 * END is its start + its requested length (not clamped to the present),
 * START tells a later start of the same job from this one. */
typedef struct {
  SimTime  end;
  guint64  seq;
  SimTime  start;
  SimJob  *job;    /* a reference */
  guint32 *gpus;   /* its GPUs, kept: a job stopped early lets go of its own */
  guint32  n_gpus;
  gboolean whole;  /* it takes whole GPUs, not a share or a MIG instance */
} Tracked;

typedef struct {
  Estimate estimate;
  gboolean eager;
  gboolean have_reservation;
  guint64  head_id;
  SimTime  reservation;
  /* The profile: every job this policy started that may still run, in
   * the order of (END, SEQ), kept from pass to pass. */
  GArray     *profile;
  gboolean    profile_broken; /* a job could not be kept (not the simulation's) */
  guint       n_shared;       /* jobs of the profile that do not take whole GPUs */
  SimCluster *last_cluster;   /* the cluster of the last pass: another run resets */
  SimTime     last_now;
  /* The cluster as it will be at MIRROR_AT, by the profile: a copy of the
   * cluster holding the profile's jobs that end after MIRROR_AT and no
   * others (RELEASED GPUs are those of the jobs ending by then).  Moved
   * from one time to another by giving back or taking jobs, from pass to
   * pass; NULL while the profile is not to be trusted. */
  SimCluster *mirror;
  SimTime     mirror_at;
  guint64     released;
  /* Blocked passes of this run that asked for the running jobs, that
   * found them in the profile, and reservations found on the mirror. */
  guint64     n_asked;
  guint64     n_profiled;
  guint64     n_mirrored;
  /* A pass's own lists, kept (emptied) from one pass to the next: a pass
   * runs at nearly every event. */
  GPtrArray  *started;
  GPtrArray  *backfilled;
  GPtrArray  *taken;
  GArray     *unfit;
  int         repeats;        /* easy_placement_repeats(), once known; -1 before */
} Easy;

static GQuark
easy_quark (void)
{
  static GQuark q;

  if (q == 0)
    q = g_quark_from_static_string ("sim-easy-state");
  return q;
}

static GQuark
easy_eager_quark (void)
{
  static GQuark q;

  if (q == 0)
    q = g_quark_from_static_string ("sim-easy-eager");
  return q;
}

static gpointer
easy_create (const SimPolicySetup *setup, GError **error)
{
  Easy *self = g_new0 (Easy, 1);
  guint e;

  if (!get_choice (setup->params, "easy_estimate", estimate_names, ESTIMATE_REQUESTED, &e, error))
    {
      g_free (self);
      return NULL;
    }
  self->estimate = e;
  self->profile = g_array_new (FALSE, FALSE, sizeof (Tracked));
  self->started = g_ptr_array_new ();
  self->backfilled = g_ptr_array_new ();
  self->taken = g_ptr_array_new ();
  self->unfit = g_array_new (FALSE, FALSE, sizeof (Unfit));
  self->repeats = -1;
  return self;
}

static void
easy_mirror_drop (Easy *self)
{
  g_clear_pointer (&self->mirror, sim_cluster_free);
  self->released = 0;
}

static void
easy_profile_clear (Easy *self)
{
  for (guint i = 0; i < self->profile->len; i++)
    {
      Tracked *t = &g_array_index (self->profile, Tracked, i);
      sim_job_unref (t->job);
      g_free (t->gpus);
    }
  g_array_set_size (self->profile, 0);
  self->profile_broken = FALSE;
  self->n_shared = 0;
  easy_mirror_drop (self);
}

static void
easy_destroy (gpointer state)
{
  Easy *self = state;

  easy_profile_clear (self);
  g_array_unref (self->profile);
  g_ptr_array_unref (self->started);
  g_ptr_array_unref (self->backfilled);
  g_ptr_array_unref (self->taken);
  g_array_unref (self->unfit);
  g_free (self);
}

typedef struct {
  SimTime end;
  SimJob *job;
} EstimatedEnd;

static int
compare_ends (gconstpointer pa, gconstpointer pb)
{
  const EstimatedEnd *a = pa, *b = pb;

  if (a->end != b->end)
    return a->end < b->end ? -1 : 1;
  return a->job->queue_seq < b->job->queue_seq ? -1 : a->job->queue_seq > b->job->queue_seq;
}

/* When a running job ends, by estimate, never before NOW. */
static SimTime
easy_running_end (const Easy *self, const SimJob *job, SimTime now)
{
  SimTime end;

  if (self->estimate == ESTIMATE_EXACT && job->rate <= 0)
    end = SIM_TIME_NEVER; /* paused: not known to end */
  else if (self->estimate == ESTIMATE_EXACT)
    end = job->last_update + (SimTime) ceil ((double) job->work_left / job->rate);
  else
    end = job->start + job_length (ESTIMATE_REQUESTED, job);
  return MAX (end, now);
}

/* How long a waiting job will run, by estimate. */
static SimTime
easy_waiting_length (const Easy *self, const SimJob *job)
{
  return self->estimate == ESTIMATE_EXACT ? job->work_left
                                          : job_length (ESTIMATE_REQUESTED, job);
}

/* The running jobs (those of the context and those STARTED in this pass)
 * in the order they end by estimate. */
static GArray *
easy_ends (Easy *self, SimSchedContext *ctx, GPtrArray *started)
{
  guint n_running = 0;
  SimJob * const *running = sim_sched_context_get_running (ctx, &n_running);
  GArray *ends = g_array_sized_new (FALSE, FALSE, sizeof (EstimatedEnd), n_running + started->len);

  for (guint i = 0; i < n_running + started->len; i++)
    {
      SimJob *job = i < n_running ? running[i] : started->pdata[i - n_running];
      EstimatedEnd e = { easy_running_end (self, job, ctx->now), job };
      if (job->state == SIM_JOB_RUNNING)
        g_array_append_val (ends, e);
    }
  g_array_sort (ends, compare_ends);
  return ends;
}

/* The whole GPUs that must be free before HEAD can fit: a head of whole
 * GPUs does not fit while fewer are free, as in try_start(). */
static guint
easy_need (const SimJob *head)
{
  return sim_job_takes_whole_gpus (head) ? sim_job_get_min_gpus (head) : 0;
}

static int
compare_tracked (const Tracked *a, const Tracked *b)
{
  if (a->end != b->end)
    return a->end < b->end ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Takes (or gives back) T's GPUs on the mirror; a refusal means the
 * mirror no longer matches the cluster, and it is dropped. */
static void
easy_mirror_move (Easy *self, const Tracked *t, gboolean take)
{
  if (self->mirror == NULL)
    return;
  if (take && !copy_take (self->mirror, t->job, t->gpus, t->n_gpus, -1))
    easy_mirror_drop (self);
  else if (!take)
    copy_give_back (self->mirror, t->job, t->gpus, t->n_gpus, -1);
}

/* A job enters or leaves the profile: the mirror follows if the job ends
 * after its time (unless ON_MIRROR says it is already there), and counts
 * its GPUs as released otherwise. */
static void
easy_mirror_enter (Easy *self, const Tracked *t, gboolean on_mirror)
{
  if (self->mirror == NULL)
    return;
  if (t->end > self->mirror_at)
    {
      if (!on_mirror)
        easy_mirror_move (self, t, TRUE);
    }
  else
    self->released += t->n_gpus;
}

static void
easy_mirror_leave (Easy *self, const Tracked *t)
{
  if (self->mirror == NULL)
    return;
  if (t->end > self->mirror_at)
    easy_mirror_move (self, t, FALSE);
  else
    self->released -= t->n_gpus;
}

/* The mirror's time moves past T's end, forward (T's GPUs are given
 * back, released) or back (taken again). */
static void
easy_mirror_pass (Easy *self, const Tracked *t, gboolean forward)
{
  if (self->mirror == NULL)
    return;
  easy_mirror_move (self, t, !forward);
  if (forward)
    self->released += t->n_gpus;
  else
    self->released -= t->n_gpus;
}

/* Enters JOB, which this policy has just started, in the profile.  A job
 * the simulation does not own (one a caller made on its stack) cannot be
 * kept past the pass: the profile is then given up for the run. */
static void
easy_track (Easy *self, SimJob *job, gboolean on_mirror)
{
  Tracked t;
  SimJob *ref;
  guint lo = 0, hi = self->profile->len;

  if (self->estimate != ESTIMATE_REQUESTED || self->profile_broken ||
      job->state != SIM_JOB_RUNNING)
    return;
  ref = sim_job_ref (job);
  if (ref != job)
    {
      sim_job_unref (ref);
      easy_profile_clear (self);
      self->profile_broken = TRUE;
      return;
    }
  t.end = job->start + job_length (ESTIMATE_REQUESTED, job);
  t.seq = job->queue_seq;
  t.start = job->start;
  t.job = job;
  t.gpus = g_memdup2 (job->gpus, MAX (job->n_gpus, 1) * sizeof (guint32));
  t.n_gpus = job->n_gpus;
  t.whole = job->spec.gpu_milli >= SIM_GPU_WHOLE && job->spec.mig_profile == NULL;
  self->n_shared += !t.whole;
  /* Jobs mostly start in the order of their estimated ends' neighbours:
   * a binary search, then one move of the tail. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (compare_tracked (&g_array_index (self->profile, Tracked, mid), &t) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_array_insert_val (self->profile, lo, t);
  easy_mirror_enter (self, &t, on_mirror);
}

/* Drops from the profile the jobs that no longer run as they were
 * started, and says whether the profile is all the pass needs to know of
 * the running jobs, so that it need not ask for them: it is when the
 * estimates are the requested times (which need no progress), every job
 * it holds takes whole GPUs at a rate of exactly 1 (its progress is then
 * counted in whole nanoseconds however often it is brought up to date, so
 * not asking changes no time), and its jobs hold every GPU that is not
 * free (no job runs that this policy did not start).  A job started twice
 * at one instant would be counted twice, which the last test catches. */
static gboolean
easy_profile_check (Easy *self, SimSchedContext *ctx)
{
  Tracked *all = (Tracked *) (gpointer) self->profile->data;
  guint w = 0, len = self->profile->len;
  guint64 held = 0;
  gboolean slowed = FALSE;

  if (self->estimate != ESTIMATE_REQUESTED || self->profile_broken)
    return FALSE;
  /* This runs in every blocked pass over every running job: kept lean. */
  for (guint i = 0; i < len; i++)
    {
      Tracked *t = &all[i];
      const SimJob *job = t->job;
      if (G_UNLIKELY (job->state != SIM_JOB_RUNNING || job->start != t->start))
        {
          easy_mirror_leave (self, t);
          self->n_shared -= !t->whole;
          sim_job_unref (t->job);
          g_free (t->gpus);
          continue;
        }
      slowed |= job->rate != 1.0;
      held += t->n_gpus;
      if (w != i)
        all[w] = *t;
      w++;
    }
  g_array_set_size (self->profile, w);
  if (slowed || self->n_shared > 0 || held + sim_cluster_get_n_free_gpus (ctx->cluster) !=
                sim_cluster_get_n_gpus (ctx->cluster))
    {
      easy_mirror_drop (self);
      return FALSE;
    }
  /* The mirror holds the profile's jobs that end after its time: as many
   * GPUs free as the cluster, plus those of the jobs ending by then. */
  if (self->mirror != NULL &&
      (sim_cluster_get_n_gpus (self->mirror) != sim_cluster_get_n_gpus (ctx->cluster) ||
       sim_cluster_get_n_free_gpus (self->mirror) !=
       sim_cluster_get_n_free_gpus (ctx->cluster) + self->released))
    easy_mirror_drop (self);
  return TRUE;
}

/* easy_earliest() on the profile, with ends clamped to NOW. */
static SimTime
easy_profile_earliest (Easy *self, SimTime now, guint free, guint need)
{
  guint64 room = free;

  for (guint i = 0; i < self->profile->len; i++)
    {
      const Tracked *t = &g_array_index (self->profile, Tracked, i);
      SimTime end = MAX (t->end, now);
      room += t->n_gpus;
      if (i + 1 < self->profile->len &&
          MAX (g_array_index (self->profile, Tracked, i + 1).end, now) == end)
        continue;
      if (room >= need)
        return end;
    }
  return SIM_TIME_NEVER;
}

/* The first job of the profile that ends after T. */
static guint
easy_profile_after (Easy *self, SimTime t)
{
  guint lo = 0, hi = self->profile->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (self->profile, Tracked, mid).end <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The reservation easy_shadow() finds, on the mirror, which it leaves as
 * the cluster will be then.  easy_shadow() gives back the running jobs in
 * order of their ends (clamped to NOW) and stops at the first end at which
 * HEAD fits; for a placement whose "fits" only grows as GPUs are given back
 * (first-fit, best-fit and worst-fit, for a head of whole GPUs) that end is also the first at which HEAD fits on
 * the cluster without the jobs ending by then, wherever the search starts.
 * So the mirror moves from where the last pass left it: back in time (the
 * jobs of the last end taken again) while HEAD still fits, or on (the jobs
 * of the next end given back) until it fits, one group of jobs ending
 * together at a time, as easy_shadow() groups them.  A pass usually moves
 * it by a few jobs, where easy_shadow() copies the cluster and gives back
 * every job up to the reservation. */
static gboolean
easy_mirror_reserve (Easy *self, SimPolicy *policy, const SimJob *head, SimTime now,
                     SimTime *reservation)
{
  GArray *pr = self->profile;
  SimCluster *m = self->mirror;
  guint need = easy_need (head), k, j;
  PlaceBuf b;
  SimPlacement *p = place_buf_init (&b, head);
  SimTime at = SIM_TIME_NEVER;

#define TEND(i) MAX (g_array_index (pr, Tracked, (i)).end, now)
#define FITS() (sim_cluster_get_n_free_gpus (m) >= need && sim_policy_place (policy, m, head, p))
  k = easy_profile_after (self, self->mirror_at);
  /* Jobs due by now end now, together. */
  if (self->mirror_at < now)
    {
      for (; k < pr->len && g_array_index (pr, Tracked, k).end <= now; k++)
        easy_mirror_pass (self, &g_array_index (pr, Tracked, k), TRUE);
      self->mirror_at = now;
    }
  /* With no job given back the mirror is the cluster, where the head did
   * not fit (or fits but is held back): easy_shadow() never asks there. */
  if (k > 0 && FITS ())
    {
      self->mirror_at = TEND (k - 1);
      for (;;)
        {
          for (j = k; j > 0 && TEND (j - 1) == self->mirror_at; j--)
            ;
          /* Taking back the first group would give the cluster as it is. */
          if (j == 0)
            break;
          self->mirror_at = TEND (j - 1);
          for (guint i = j; i < k; i++)
            easy_mirror_pass (self, &g_array_index (pr, Tracked, i), FALSE);
          if (self->mirror == NULL)
            {
              place_buf_clear (&b);
              return FALSE;
            }
          if (FITS ())
            {
              k = j;
              continue;
            }
          /* It no longer fits: the group ends by the reservation. */
          for (guint i = j; i < k; i++)
            easy_mirror_pass (self, &g_array_index (pr, Tracked, i), TRUE);
          self->mirror_at = TEND (k - 1);
          break;
        }
      at = self->mirror_at;
    }
  else
    while (k < pr->len)
      {
        SimTime end = TEND (k);
        for (; k < pr->len && TEND (k) == end; k++)
          easy_mirror_pass (self, &g_array_index (pr, Tracked, k), TRUE);
        self->mirror_at = end;
        if (FITS ())
          {
            at = end;
            break;
          }
      }
#undef FITS
#undef TEND
  place_buf_clear (&b);
  *reservation = at;
  return TRUE;
}

/* The running jobs in the order they end by estimate, from the profile:
 * as easy_ends() orders them, since ends clamped to NOW (jobs that
 * outlived their estimates) come first and tie, by arrival. */
static GArray *
easy_profile_ends (Easy *self, SimTime now)
{
  GArray *ends = g_array_sized_new (FALSE, FALSE, sizeof (EstimatedEnd), self->profile->len);
  guint late = 0;

  g_array_set_size (ends, self->profile->len);
  for (guint i = 0; i < self->profile->len; i++)
    {
      const Tracked *t = &g_array_index (self->profile, Tracked, i);
      EstimatedEnd *e = &g_array_index (ends, EstimatedEnd, i);
      e->end = MAX (t->end, now);
      e->job = t->job;
      late += t->end <= now;
    }
  if (late > 1)
    qsort (ends->data, late, sizeof (EstimatedEnd), compare_ends);
  return ends;
}

/* A time no later than the reservation easy_shadow() would find, without
 * touching a cluster: the first end (of jobs ending together) by which
 * FREE free GPUs plus every GPU of the jobs ended so far reach NEED.  A job
 * gives back at most its GPUs whole (fewer if it shared them), and the
 * head is placed only at such ends and only once NEED are free. */
static SimTime
easy_earliest (GArray *ends, guint free, guint need)
{
  guint64 room = free;

  for (guint i = 0; i < ends->len; i++)
    {
      const EstimatedEnd *e = &g_array_index (ends, EstimatedEnd, i);
      room += e->job->n_gpus;
      if (i + 1 < ends->len && g_array_index (ends, EstimatedEnd, i + 1).end == e->end)
        continue;
      if (room >= need)
        return e->end;
    }
  return SIM_TIME_NEVER;
}

/* Turns SHADOW (a copy of the cluster when the pass's backfilling began)
 * into the cluster as it will be when HEAD fits, giving back the jobs of
 * ENDS in order, and returns that time, or SIM_TIME_NEVER if it never
 * fits. */
static SimTime
easy_shadow (SimPolicy *policy, const SimJob *head, GArray *ends, SimCluster *shadow)
{
  PlaceBuf b;
  SimPlacement *p = place_buf_init (&b, head);
  SimTime at = SIM_TIME_NEVER;
  guint need = easy_need (head);

  for (guint i = 0; i < ends->len; i++)
    {
      const EstimatedEnd *e = &g_array_index (ends, EstimatedEnd, i);
      copy_give_back (shadow, e->job, e->job->gpus, e->job->n_gpus, e->job->mig_start);
      /* Jobs ending together free their GPUs together. */
      if (i + 1 < ends->len && g_array_index (ends, EstimatedEnd, i + 1).end == e->end)
        continue;
      if (sim_cluster_get_n_free_gpus (shadow) >= need && sim_policy_place (policy, shadow, head, p))
        {
          at = e->end;
          break;
        }
    }
  place_buf_clear (&b);
  return at;
}

/* What a backfill pass knows of the head's reservation.  The copy of the
 * cluster and the order of ends are made when a later job first fits now,
 * before anything is backfilled, so that they are what a reservation made
 * at once would have seen; the reservation itself (the give-backs and
 * placements on the copy) waits for a job that ends after the lower bound
 * EARLIEST, since a job ending by then ends by the reservation too. */
typedef enum {
  ENDS_RUNNING,  /* the running jobs asked for and sorted; a copy of the cluster */
  ENDS_PROFILE,  /* the profile; a copy of the cluster */
  ENDS_MIRROR,   /* the profile; the mirror, moved to the reservation */
} EndsFrom;

typedef struct {
  gboolean    begun;
  EndsFrom    from;
  SimCluster *shadow;  /* a copy, or the mirror once the reservation is known */
  GArray     *ends;
  SimTime     earliest;
  gboolean    known;   /* AT is the reservation */
  SimTime     at;
} Backfill;

static void
backfill_begin (Easy *self, SimSchedContext *ctx, const SimJob *head, GPtrArray *started,
                EndsFrom from, Backfill *bf)
{
  guint free_gpus = sim_cluster_get_n_free_gpus (ctx->cluster);

  bf->begun = TRUE;
  bf->from = from;
  if (from == ENDS_MIRROR)
    {
      /* Made when first needed: the cluster holds every job of the
       * profile, which is the mirror at the beginning of time. */
      if (self->mirror == NULL)
        {
          self->mirror = sim_cluster_copy (ctx->cluster);
          self->mirror_at = G_MININT64;
          self->released = 0;
        }
      bf->earliest = easy_profile_earliest (self, ctx->now, free_gpus, easy_need (head));
    }
  else
    {
      bf->shadow = sim_cluster_copy (ctx->cluster);
      bf->ends = from == ENDS_PROFILE ? easy_profile_ends (self, ctx->now)
                                      : easy_ends (self, ctx, started);
      bf->earliest = easy_earliest (bf->ends, free_gpus, easy_need (head));
    }
  /* Never even by the bound: never at all. */
  bf->known = bf->earliest == SIM_TIME_NEVER;
  bf->at = SIM_TIME_NEVER;
}

static void
backfill_reserve (Easy *self, SimPolicy *policy, SimSchedContext *ctx, const SimJob *head,
                  GPtrArray *backfilled, Backfill *bf)
{
  if (!bf->known && bf->from == ENDS_MIRROR)
    {
      if (easy_mirror_reserve (self, policy, head, ctx->now, &bf->at))
        {
          bf->shadow = self->mirror;
          self->n_mirrored++;
        }
      else
        {
          /* The mirror went out of step with the cluster (and is gone):
           * the cluster as the pass found it, from the cluster now without
           * the jobs backfilled since. */
          bf->from = ENDS_PROFILE;
          bf->shadow = sim_cluster_copy (ctx->cluster);
          for (guint k = 0; k < backfilled->len; k++)
            {
              const SimJob *job = backfilled->pdata[k];
              copy_give_back (bf->shadow, job, job->gpus, job->n_gpus, job->mig_start);
            }
          bf->ends = easy_profile_ends (self, ctx->now);
        }
    }
  if (!bf->known && bf->from != ENDS_MIRROR)
    bf->at = easy_shadow (policy, head, bf->ends, bf->shadow);
  bf->known = TRUE;
  self->have_reservation = TRUE;
  self->head_id = head->spec.id;
  self->reservation = bf->at;
}

/* Whether the placement puts identical requests in identical places on
 * identical clusters (no draw): only then may a request that fits now but
 * would take the head's GPUs at its reservation be skipped when an
 * identical one was just turned away for that. */
static gboolean
easy_placement_repeats (SimPolicy *policy)
{
  static const char * const same[] = { "/first-fit", "/best-fit", "/worst-fit" };
  const char *name = sim_policy_get_name (policy);

  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (same); i++)
    if (g_str_has_suffix (name, same[i]))
      return TRUE;
  return FALSE;
}

/* The whole GPUs that must be free before a waiting JOB can fit now (0 for
 * a share of a GPU or a MIG instance), kept in its policy_data with a
 * mark in the upper half, so that the walk over a long queue reads one
 * field per job.  A job whose policy_data holds anything else (or whose
 * count does not fit the lower half) is worked out afresh. */
#define EASY_NEED_MARK 0xea5e0000u

static guint
easy_job_need (SimJob *job)
{
  guint32 v = (guint32) GPOINTER_TO_UINT (job->policy_data);
  guint need;

  if ((v & 0xffff0000u) == EASY_NEED_MARK)
    return v & 0xffffu;
  need = job->spec.gpu_milli >= SIM_GPU_WHOLE && job->spec.mig_profile == NULL
         ? (job->spec.gpus_min > 0 && job->spec.gpus_min < job->spec.gpus ? job->spec.gpus_min
                                                                          : job->spec.gpus)
         : 0;
  if (need <= 0xffffu && job->policy_data == NULL)
    job->policy_data = GUINT_TO_POINTER (EASY_NEED_MARK | need);
  return need;
}

/* Unfit ranks: a request that does not fit now, and one that fits now but
 * outlives the reservation and leaves the head no room at it. */
#define EASY_UNFIT_NOW  0
#define EASY_UNFIT_HEAD 1

static void
easy_schedule (gpointer state, SimPolicy *policy, SimSchedContext *ctx)
{
  Easy *self = state;
  guint n = 0, i;
  SimJob * const *queue = sim_sched_context_get_queue (ctx, &n);
  GPtrArray *started = self->started, *backfilled = self->backfilled, *taken = self->taken;
  GArray *unfit = self->unfit;
  Backfill bf = { FALSE, ENDS_RUNNING, NULL, NULL, 0, FALSE, SIM_TIME_NEVER };
  EndsFrom from = ENDS_RUNNING;
  SimJob *head;
  guint free_gpus, n_running;
  gboolean repeats;

  g_ptr_array_set_size (started, 0);
  g_ptr_array_set_size (backfilled, 0);
  g_ptr_array_set_size (taken, 0);
  g_array_set_size (unfit, 0);

  /* Lets tests read the reservation (sim__easy_get_reservation()). */
  if (g_object_get_qdata (G_OBJECT (policy), easy_quark ()) != self)
    g_object_set_qdata (G_OBJECT (policy), easy_quark (), self);
  self->have_reservation = FALSE;
  self->eager = g_object_get_qdata (G_OBJECT (policy), easy_eager_quark ()) != NULL;
  /* A policy reused for another run starts its profile afresh. */
  if (ctx->cluster != self->last_cluster || ctx->now < self->last_now)
    {
      easy_profile_clear (self);
      self->n_asked = self->n_profiled = self->n_mirrored = 0;
    }
  self->last_cluster = ctx->cluster;
  self->last_now = ctx->now;

  for (i = 0; i < n && ctx->error == NULL; i++)
    if (queue[i]->state == SIM_JOB_QUEUED && !try_start (policy, ctx, queue[i], started))
      break;
  for (guint k = 0; k < started->len; k++)
    easy_track (self, started->pdata[k], FALSE);
  if (i >= n || ctx->error != NULL || ctx->no_backfill)
    return;
  head = queue[i];
  /* Asking for the running jobs brings their progress up to date, which
   * rounds: the reservation made at once asks in every blocked pass, and
   * so does this one unless the profile makes asking needless (see
   * easy_profile_check()), so that both leave the jobs' progress as the
   * other does. */
  if (self->repeats < 0)
    self->repeats = easy_placement_repeats (policy);
  repeats = self->repeats;
  if (self->eager)
    {
      (void) sim_sched_context_get_running (ctx, &n_running);
      self->n_asked++;
      backfill_begin (self, ctx, head, started, ENDS_RUNNING, &bf);
      backfill_reserve (self, policy, ctx, head, backfilled, &bf);
    }
  else if (easy_profile_check (self, ctx))
    {
      from = repeats && is_plain (head) ? ENDS_MIRROR : ENDS_PROFILE;
      self->n_profiled++;
    }
  else
    {
      (void) sim_sched_context_get_running (ctx, &n_running);
      self->n_asked++;
    }
  free_gpus = sim_cluster_get_n_free_gpus (ctx->cluster);

  for (i++; i < n && ctx->error == NULL; i++)
    {
      SimJob *job = queue[i];
      PlaceBuf b, hb;
      SimPlacement *p;
      SimTime end;

      /* This test turns away most of a long queue on a full cluster. */
      if (free_gpus < easy_job_need (job) || job->state != SIM_JOB_QUEUED)
        continue;
      if (unfit_known (unfit, job, EASY_UNFIT_NOW))
        continue;
      end = ctx->now + easy_waiting_length (self, job);
      /* An identical request was placed where the head then did not fit
       * at its reservation, and nothing has started since: it would be
       * placed there again and turned away again. */
      if (repeats && bf.known && bf.at != SIM_TIME_NEVER && end > bf.at &&
          unfit_known (unfit, job, EASY_UNFIT_HEAD))
        continue;
      p = place_buf_init (&b, job);
      if (!sim_policy_place (policy, ctx->cluster, job, p))
        {
          unfit_add (unfit, job, EASY_UNFIT_NOW);
          place_buf_clear (&b);
          continue;
        }
      if (!bf.begun)
        backfill_begin (self, ctx, head, started, from, &bf);
      if (!bf.known && end > bf.earliest)
        backfill_reserve (self, policy, ctx, head, backfilled, &bf);
      if ((!bf.known && end <= bf.earliest) || bf.at == SIM_TIME_NEVER || end <= bf.at)
        {
          if (start_on (policy, ctx, job, p, backfilled))
            g_array_set_size (unfit, 0);
          free_gpus = sim_cluster_get_n_free_gpus (ctx->cluster);
        }
      else if (copy_take (bf.shadow, job, p->gpus, p->n_gpus, p->mig_start))
        {
          /* Outlives the reservation: only on GPUs the head can spare. */
          SimPlacement *hp = place_buf_init (&hb, head);
          gboolean head_fits = sim_policy_place (policy, bf.shadow, head, hp);
          if (head_fits && start_on (policy, ctx, job, p, taken))
            g_array_set_size (unfit, 0);
          else
            {
              copy_give_back (bf.shadow, job, p->gpus, p->n_gpus, p->mig_start);
              if (!head_fits)
                unfit_add (unfit, job, EASY_UNFIT_HEAD);
            }
          free_gpus = sim_cluster_get_n_free_gpus (ctx->cluster);
          place_buf_clear (&hb);
        }
      else
        unfit_add (unfit, job, EASY_UNFIT_HEAD);
      place_buf_clear (&b);
    }
  /* Jobs backfilled in this pass join the profile now, not while the
   * reservation is still being worked out from the jobs that ran before. */
  for (guint k = 0; k < backfilled->len; k++)
    easy_track (self, backfilled->pdata[k], FALSE);
  for (guint k = 0; k < taken->len; k++)
    easy_track (self, taken->pdata[k], bf.from == ENDS_MIRROR);
  if (bf.known && !self->have_reservation)
    {
      self->have_reservation = TRUE;
      self->head_id = head->spec.id;
      self->reservation = bf.at;
    }
  if (bf.from != ENDS_MIRROR)
    g_clear_pointer (&bf.shadow, sim_cluster_free);
  g_clear_pointer (&bf.ends, g_array_unref);
}

void
sim__easy_set_eager (SimPolicy *policy, gboolean eager)
{
  g_return_if_fail (SIM_IS_POLICY (policy));
  g_object_set_qdata (G_OBJECT (policy), easy_eager_quark (), eager ? GINT_TO_POINTER (1) : NULL);
}

gboolean
sim__easy_get_paths (SimPolicy *policy, guint64 *asked, guint64 *profiled, guint64 *mirrored)
{
  const Easy *self;

  g_return_val_if_fail (SIM_IS_POLICY (policy), FALSE);
  self = g_object_get_qdata (G_OBJECT (policy), easy_quark ());
  if (self == NULL)
    return FALSE;
  if (asked != NULL)
    *asked = self->n_asked;
  if (profiled != NULL)
    *profiled = self->n_profiled;
  if (mirrored != NULL)
    *mirrored = self->n_mirrored;
  return TRUE;
}

gboolean
sim__easy_get_reservation (SimPolicy *policy, guint64 *job_id, SimTime *time)
{
  const Easy *self;

  g_return_val_if_fail (SIM_IS_POLICY (policy), FALSE);
  self = g_object_get_qdata (G_OBJECT (policy), easy_quark ());
  if (self == NULL || !self->have_reservation)
    return FALSE;
  if (job_id != NULL)
    *job_id = self->head_id;
  if (time != NULL)
    *time = self->reservation;
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* las: Tiresias' discretized two-dimensional least attained service.
 *
 * A job's attained service is the GPU-time it has received (GPUs x
 * seconds, x the share of each GPU).  Thresholds T1 < ... < T(K-1) split
 * jobs into K queues: queue 0 holds jobs with less than T1, queue k those
 * with at least Tk.  Queues are served in order, each FIFO by submission
 * as in the paper; a job moves down when its service crosses a threshold.
 * Each pass walks the jobs in that order and starts those that fit; a job
 * that does not fit preempts running jobs of lower queues (never of its own)
 * if that makes room.  Within a queue nobody is preempted, which also rules
 * out thrashing between equals.
 *
 * Only running jobs gain service, and the pass reads their levels afresh
 * (the context brings their service up to date before each decision).  A
 * waiting job's service, hence its place, does not change while it waits,
 * and a preempted job is inserted at its place when it rejoins the queue:
 * the queue stays sorted without SIM_POLICY_TIME_DEPENDENT_ORDER, whose
 * re-sort at every decision would cost O(queue log queue) for nothing (it
 * would be needed by a starvation guard, which ages waiting jobs).  The
 * pass asks for a wake-up at the first moment a running job will cross its
 * next threshold, (threshold - attained) / (GPUs x share) from now, when
 * that crossing can matter: when some job waits in a queue at or above the
 * running job's.
 * A job within 1e-6 GPU-seconds (plus 1e-12 of the threshold, for
 * rounding) of a threshold has crossed it.
 *
 * Left out: Tiresias' starvation guard (PROMOTEKNOB: promoting a job to
 * queue 0 after it waited some multiple of its last run) and the
 * Gittins-index variant, which needs the distribution of durations. */

#define LAS_EPSILON 1e-6

typedef struct {
  double  *thresholds; /* GPU-seconds, increasing */
  guint    n_thresholds;
  SimTime  overhead;
  SimTime  wake;       /* the last wake-up asked for */
  SimTime  last_now;
} Las;

static void
las_destroy (gpointer state)
{
  Las *self = state;

  g_free (self->thresholds);
  g_free (self);
}

static gpointer
las_create (const SimPolicySetup *setup, GError **error)
{
  Las *self = g_new0 (Las, 1);
  g_autofree SimTime *times = NULL;
  guint n = 0;

  self->wake = SIM_TIME_NEVER;
  if (!sim_policy_params_get_durations (setup->params, "las_thresholds", &times, &n, error) ||
      !get_overhead (setup->params, &self->overhead, error))
    {
      las_destroy (self);
      return NULL;
    }
  if (times == NULL)
    {
      /* 1 and 10 GPU-hours: three queues. */
      n = 2;
      times = g_new (SimTime, 2);
      times[0] = 3600 * SIM_SECOND;
      times[1] = 36000 * SIM_SECOND;
    }
  self->thresholds = g_new (double, n);
  self->n_thresholds = n;
  for (guint i = 0; i < n; i++)
    {
      self->thresholds[i] = sim_time_to_seconds (times[i]);
      if (times[i] <= 0 || (i > 0 && times[i] <= times[i - 1]))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "item %u: thresholds must be positive and increasing (GPU-time, "
                       "such as \"1h, 10h\")", i + 1);
          param_failed (setup->params, "las_thresholds");
          las_destroy (self);
          return NULL;
        }
    }
  return self;
}

static guint
las_level (const Las *self, const SimJob *job)
{
  guint level = 0;

  while (level < self->n_thresholds &&
         job->attained >= self->thresholds[level] * (1 - 1e-12) - LAS_EPSILON)
    level++;
  return level;
}

static int
las_compare (gpointer state, const SimJob *a, const SimJob *b)
{
  const Las *self = state;
  guint la = las_level (self, a), lb = las_level (self, b);

  if (la != lb)
    return la < lb ? -1 : 1;
  return a->spec.submit < b->spec.submit ? -1 : a->spec.submit > b->spec.submit;
}

static gint64
las_rank (gpointer state, const SimJob *job)
{
  return las_level (state, job);
}

/* Asks for a decision when the first running job whose crossing matters
 * crosses its next threshold. */
static void
las_request_wake (Las *self, SimSchedContext *ctx, GPtrArray *started)
{
  guint n = 0, n_running = 0;
  SimJob * const *queue = sim_sched_context_get_queue (ctx, &n);
  SimJob * const *running = sim_sched_context_get_running (ctx, &n_running);
  guint min_waiting = G_MAXUINT;
  SimTime first = SIM_TIME_NEVER;

  /* Jobs still waiting, and those preempted in this pass (no longer running). */
  for (guint i = 0; i < n; i++)
    if (queue[i]->state == SIM_JOB_QUEUED)
      min_waiting = MIN (min_waiting, las_level (self, queue[i]));
  for (guint i = 0; i < n_running; i++)
    if (running[i]->state == SIM_JOB_QUEUED)
      min_waiting = MIN (min_waiting, las_level (self, running[i]));
  if (min_waiting == G_MAXUINT)
    return;

  for (guint i = 0; i < n_running + started->len; i++)
    {
      const SimJob *job = i < n_running ? running[i] : started->pdata[i - n_running];
      guint level;
      double rate, seconds;
      SimTime at;

      if (job->state != SIM_JOB_RUNNING)
        continue;
      level = las_level (self, job);
      /* Crossing into queue level + 1 matters if someone waits above it. */
      if (level >= self->n_thresholds || level < min_waiting)
        continue;
      rate = job->n_gpus * (job->spec.gpu_milli / 1000.0);
      if (rate <= 0)
        continue;
      seconds = (self->thresholds[level] - job->attained) / rate;
      at = ctx->now + MAX ((SimTime) ceil (seconds * SIM_SECOND), 1);
      first = MIN (first, at);
    }
  if (first == SIM_TIME_NEVER)
    return;
  /* One wake-up per crossing, not one per decision before it. */
  if (self->wake <= ctx->now || first < self->wake)
    {
      sim_sched_context_wake_at (ctx, first);
      self->wake = first;
    }
}

static void
las_schedule (gpointer state, SimPolicy *policy, SimSchedContext *ctx)
{
  Las *self = state;
  g_autoptr(GPtrArray) started = g_ptr_array_new ();

  /* A policy reused for a new run starts again from time 0. */
  if (ctx->now < self->last_now)
    self->wake = SIM_TIME_NEVER;
  self->last_now = ctx->now;
  preemptive_pass (policy, ctx, las_rank, self, self->overhead, started);
  if (ctx->error == NULL)
    las_request_wake (self, ctx, started);
}

/* ------------------------------------------------------------------------- */
/* fair-share: tenants by usage, with quotas.
 *
 * Each pass repeatedly takes the next waiting job (FIFO) of the tenant
 * with the lowest GPU usage over weight (ties to the lower tenant number),
 * counting the GPUs of its running jobs and of those started in the pass.
 * A job that would take its tenant past its quota is skipped, as a
 * Kubernetes ResourceQuota refuses a pod over a namespace's limit; a job
 * that does not fit is skipped too; either way the pass goes on (greedy).
 * Usage is what tenants hold now, not what they held in the past.  A job
 * larger than its tenant's whole quota never starts: it stays queued and
 * the report counts it as unfinished.
 *
 * Keys: quota = TENANT:GPUS, ... (fractional GPUs allowed; tenants not
 * listed get default_quota, unlimited if that is absent); tenant_weights =
 * TENANT:WEIGHT, ... (weight > 0, default 1).
 *
 * Cost per pass: O(jobs x tenants with waiting jobs) for the choice, plus a
 * placement per job; the per-pass tables are allocated per pass. */

typedef struct {
  GArray *quota;         /* TenantValue, GPUs */
  GArray *weights;       /* TenantValue */
  double  default_quota; /* GPUs; INFINITY if unlimited */
} FairShare;

typedef struct {
  guint32    tenant;
  double     weight;
  double     quota_milli;
  guint64    usage_milli;
  GPtrArray *jobs;       /* waiting jobs, FIFO */
  guint      next;
} Tenant;

static void
fair_destroy (gpointer state)
{
  FairShare *self = state;

  if (self->quota != NULL)
    g_array_unref (self->quota);
  if (self->weights != NULL)
    g_array_unref (self->weights);
  g_free (self);
}

static gpointer
fair_create (const SimPolicySetup *setup, GError **error)
{
  FairShare *self = g_new0 (FairShare, 1);

  if (!get_tenant_map (setup->params, "quota", "0:64, 1:32", 0, G_MAXDOUBLE, &self->quota, error) ||
      !get_tenant_map (setup->params, "tenant_weights", "0:2, 1:1", 1e-9, 1e9, &self->weights,
                       error) ||
      !sim_policy_params_get_number (setup->params, "default_quota", INFINITY, 0, G_MAXDOUBLE,
                                     &self->default_quota, error))
    {
      fair_destroy (self);
      return NULL;
    }
  return self;
}

static double
lookup_tenant (GArray *map, guint32 tenant, double def)
{
  TenantValue key = { tenant, 0 };
  guint index;

  if (map->len > 0 && g_array_binary_search (map, &key, compare_tenant_values, &index))
    return g_array_index (map, TenantValue, index).value;
  return def;
}

static void
tenant_free (gpointer data)
{
  Tenant *t = data;

  g_ptr_array_unref (t->jobs);
  g_free (t);
}

static Tenant *
tenant_get (FairShare *self, GHashTable *by_id, GPtrArray *list, guint32 id)
{
  Tenant *t = g_hash_table_lookup (by_id, GUINT_TO_POINTER (id));

  if (t == NULL)
    {
      t = g_new0 (Tenant, 1);
      t->tenant = id;
      t->weight = lookup_tenant (self->weights, id, 1.0);
      t->quota_milli = lookup_tenant (self->quota, id, self->default_quota) * SIM_GPU_WHOLE;
      t->jobs = g_ptr_array_new ();
      g_hash_table_insert (by_id, GUINT_TO_POINTER (id), t);
      g_ptr_array_add (list, t);
    }
  return t;
}

/* Whether tenant A goes before tenant B: lower usage over weight. */
static gboolean
tenant_before (const Tenant *a, const Tenant *b)
{
  double x = a->usage_milli * b->weight, y = b->usage_milli * a->weight;

  if (x != y)
    return x < y;
  return a->tenant < b->tenant;
}

static void
fair_schedule (gpointer state, SimPolicy *policy, SimSchedContext *ctx)
{
  FairShare *self = state;
  guint n = 0, n_running = 0;
  SimJob * const *queue = sim_sched_context_get_queue (ctx, &n);
  SimJob * const *running = sim_sched_context_get_running (ctx, &n_running);
  g_autoptr(GHashTable) by_id = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr(GPtrArray) tenants = g_ptr_array_new_with_free_func (tenant_free);

  for (guint i = 0; i < n_running; i++)
    if (running[i]->state == SIM_JOB_RUNNING)
      tenant_get (self, by_id, tenants, running[i]->spec.tenant)->usage_milli +=
        (guint64) running[i]->n_gpus * running[i]->spec.gpu_milli;
  for (guint i = 0; i < n; i++)
    if (queue[i]->state == SIM_JOB_QUEUED)
      g_ptr_array_add (tenant_get (self, by_id, tenants, queue[i]->spec.tenant)->jobs, queue[i]);

  while (ctx->error == NULL)
    {
      Tenant *best = NULL;
      SimJob *job;
      guint64 need;

      for (guint k = 0; k < tenants->len; k++)
        {
          Tenant *t = tenants->pdata[k];
          if (t->next < t->jobs->len && (best == NULL || tenant_before (t, best)))
            best = t;
        }
      if (best == NULL)
        break;
      job = best->jobs->pdata[best->next++];
      need = (guint64) job->spec.gpus * job->spec.gpu_milli;
      if ((double) (best->usage_milli + need) > best->quota_milli)
        continue;
      if (try_start (policy, ctx, job, NULL))
        /* A moldable job is charged for the GPUs it got; the quota check
         * above took its full request. */
        best->usage_milli += job->spec.gpus_min > 0 ? (guint64) job->n_gpus * job->spec.gpu_milli
                                                    : need;
    }
}

/* ------------------------------------------------------------------------- */

void
sim__register_queue_orders (void)
{
  static const char * const sjf_keys[] = { "sjf_estimate", NULL };
  static const char * const priority_keys[] = { "priority_preempt", "checkpoint_cost",
                                                "restore_cost", NULL };
  static const char * const easy_keys[] = { "easy_estimate", NULL };
  static const char * const las_keys[] = { "las_thresholds", "checkpoint_cost", "restore_cost",
                                           NULL };
  static const char * const fair_keys[] = { "quota", "default_quota", "tenant_weights", NULL };
  static const SimQueueOrderInfo orders[] = {
    {
      .name = "sjf",
      .description = "shortest job first (exact or requested run time), greedy",
      .keys = sjf_keys,
      .flags = SIM_POLICY_SKIP_BLOCKED,
      .create = sjf_create,
      .destroy = g_free,
      .compare = sjf_compare,
    },
    {
      .name = "priority",
      .description = "higher priority first, FIFO within a class, greedy; optional preemption",
      .keys = priority_keys,
      .flags = SIM_POLICY_SKIP_BLOCKED,
      .create = priority_create,
      .destroy = g_free,
      .compare = priority_compare,
      .schedule = priority_schedule,
    },
    {
      .name = "easy",
      .description = "FIFO with EASY backfilling: later jobs run if they do not delay the head",
      .keys = easy_keys,
      .create = easy_create,
      .destroy = easy_destroy,
      .schedule = easy_schedule,
    },
    {
      .name = "las",
      .description = "Tiresias' discretized 2D least attained service, with preemption",
      .keys = las_keys,
      .flags = SIM_POLICY_SKIP_BLOCKED,
      .create = las_create,
      .destroy = las_destroy,
      .compare = las_compare,
      .schedule = las_schedule,
    },
    {
      .name = "fair-share",
      .description = "least-served tenant first (usage over weight), with per-tenant GPU quotas",
      .keys = fair_keys,
      .flags = SIM_POLICY_SKIP_BLOCKED,
      .create = fair_create,
      .destroy = fair_destroy,
      .schedule = fair_schedule,
    },
  };

  for (guint i = 0; i < G_N_ELEMENTS (orders); i++)
    sim_policy_register_queue_order (&orders[i]);
}
