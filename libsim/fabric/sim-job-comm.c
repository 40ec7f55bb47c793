/* sim-job-comm.c: the communication of running jobs; the model is in
 * sim-job-comm.h. */
#include "config.h"

#include "fabric/sim-job-comm.h"
#include "core/sim-error.h"
#include "fabric/sim-collective-private.h"
#include "cluster/sim-cluster-private.h"

#include <math.h>

struct _SimJobComm {
  SimTopology      *topology;
  const SimCluster *cluster;
  SimCommModel     *model;
  SimCommModel     *idle;     /* an empty copy, for speed-up curves (made when asked) */
  guint             n_owned;  /* collectives registered by jobs (each one's owner the
                               * job: sim__comm_model_set_owner()) */
  gboolean          dirty;    /* collectives came or went since the last update */
  SimFabricSharing  sharing;
  /* Demand-aware sharing: jobs to look at in the next round of the fixed
   * point (new, reset or whose flows changed rate), and the jobs slowed
   * beyond their time alone (reset to it at each update). */
  GPtrArray        *pending;  /* SimJob */
  GPtrArray        *slowed;   /* SimJob */
  guint             last_rounds;
  /* Phases: the registered jobs, in order of registration. */
  GPtrArray        *jobs;     /* SimJob */
  guint             last_events;
  /* Jobs marked touched and not yet taken (sim__job_comm_take_changed()),
   * and those it last handed out. */
  GPtrArray        *touched;  /* SimJob */
  GPtrArray        *taken;    /* SimJob */
  gboolean          no_prune; /* sim__job_comm_set_prune (FALSE) */
  guint32          *node_count; /* mark_private()'s count per node, zero between calls */
  /* sim__job_comm_register()'s collectives to time alone, and their GPUs
   * (kept from one job to the next). */
  GArray           *alone_calls;  /* SimCollectiveCall */
  GArray           *alone_gpus;   /* guint32 */
  /* sim__job_comm_get_fabric_load()'s sample (sample_resources()): its
   * resources, in pairs, each pair's node or -1, and their loads. */
  guint32          *sample_res;
  gint32           *sample_node;
  guint             n_sample;
  double           *loads;
};

/* A collective a running job has registered. */
typedef struct {
  guint64 bytes;    /* per iteration */
  guint   id;       /* on the network's model */
  guint8  phase;    /* 0 data, 1 tensor, 2 pipeline */
} JobColl;

/* What a running job has registered, by phase: data-parallel
 * all-reduces, tensor-parallel all-reduces, pipeline sends. */
typedef struct {
  JobColl *coll;    /* n_coll of them, in the order registered */
  guint    n_coll, coll_alloc;
  gboolean touched; /* its shares may have changed: re-estimated after the update;
                     * in SimJobComm.touched */
  /* Demand-aware sharing: the phases' times alone on the network, and
   * the iteration time its flows' demands are set from (seconds). */
  double   alone[3];
  double   iteration;
  double   stretch;  /* iteration over its time alone, when last updated */
  gboolean pending;  /* in SimJobComm.pending */
  gboolean slowed;   /* in SimJobComm.slowed */
  /* Phases: where the job is in its iteration (carried from one update to
   * the next), the time of one communication phase at the current shares
   * (seconds), and what the last run of the phases counted. */
  gboolean in_comm;
  double   left;       /* computing: seconds; communicating: share of the phase */
  double   phase_time; /* communicating: the phase's time at the current rates */
  gboolean stale;      /* phase_time to be measured again */
  guint    done;       /* iterations completed in this run */
  double   first, last; /* when the warm-up ended and the last one completed */
  /* Demand-aware sharing: the nodes it holds whole, marked private on the
   * network while it runs (sim__comm_model_set_prune()). */
  GArray  *private_nodes; /* guint32, or NULL */
} JobState;

#define N_PHASES 3

static void
job_state_free (JobState *js)
{
  g_free (js->coll);
  if (js->private_nodes != NULL)
    g_array_unref (js->private_nodes);
  g_free (js);
}

/* sim__job_comm_set_prune_default(), and the collectives registered
 * pruned (sim__job_comm_get_pruned_total()). */
static gboolean no_prune_default;
static guint64 pruned_total, unpruned_total, skipped_total, skipped_after_all;

void
sim__job_comm_set_prune_default (gboolean prune)
{
  no_prune_default = !prune;
}

/* sim__job_comm_set_skip_default(): -1 as the model decides. */
static int skip_default = -1;

void
sim__job_comm_set_skip_default (int skip)
{
  skip_default = skip;
}

guint64
sim__job_comm_get_skipped_total (guint64 *after_all)
{
  if (after_all != NULL)
    *after_all = skipped_after_all;
  return skipped_total;
}

guint64
sim__job_comm_get_pruned_total (guint64 *undone)
{
  if (undone != NULL)
    *undone = unpruned_total;
  return pruned_total;
}

SimJobComm *
sim__job_comm_new (SimTopology *topology, const SimCluster *cluster)
{
  SimJobComm *comm = g_new0 (SimJobComm, 1);

  comm->no_prune = no_prune_default;
  comm->topology = topology;
  comm->cluster = cluster;
  comm->model = sim_comm_model_new (topology, cluster);
  if (skip_default >= 0)
    sim__comm_model_set_skip_inside (comm->model, skip_default > 0);
  comm->pending = g_ptr_array_new ();
  comm->slowed = g_ptr_array_new ();
  comm->jobs = g_ptr_array_new ();
  comm->touched = g_ptr_array_new ();
  comm->taken = g_ptr_array_new ();
  return comm;
}

void
sim__job_comm_free (SimJobComm *comm)
{
  if (comm == NULL)
    return;
  g_clear_pointer (&comm->idle, sim_comm_model_free);
  sim_comm_model_free (comm->model);
  g_ptr_array_unref (comm->pending);
  g_ptr_array_unref (comm->slowed);
  g_ptr_array_unref (comm->jobs);
  g_ptr_array_unref (comm->touched);
  g_ptr_array_unref (comm->taken);
  g_free (comm->node_count);
  g_free (comm->loads);
  g_free (comm->sample_res);
  g_free (comm->sample_node);
  if (comm->alone_calls != NULL)
    g_array_unref (comm->alone_calls);
  if (comm->alone_gpus != NULL)
    g_array_unref (comm->alone_gpus);
  g_free (comm);
}

typedef gboolean (*CollectiveFunc) (gpointer data, SimCollectiveOp op, guint8 phase,
                                    guint64 bytes, const guint32 *gpus, guint n, GError **error);

/* Calls @func for every collective of @c on @gpus (the layout of
 * sim-job-comm.h), in a fixed order: data-parallel groups, then
 * tensor-parallel groups, then pipeline pairs; with @first_only, the first
 * group of each kind.  Groups of fewer than two GPUs, and collectives of
 * no bytes, are left out. */
static gboolean
foreach_collective (const SimCommProfile *c, const guint32 *gpus, guint n, gboolean first_only,
                    CollectiveFunc func, gpointer data, GError **error)
{
  guint tp = MAX (1, MIN (c->tp, n));
  guint pp = MAX (1, MIN (c->pp, n / tp));
  guint dp = n / (tp * pp);
  guint32 room[64];
  g_autofree guint32 *heap = MAX (tp, dp) > G_N_ELEMENTS (room)
                             ? g_new (guint32, MAX (tp, dp)) : NULL;
  guint32 *group = heap != NULL ? heap : room;
  guint64 dp_bytes = c->dp_bytes / (tp * pp);
  gboolean more = dp >= 2 && dp_bytes > 0;

  for (guint p = 0; more && p < pp; p++)
    for (guint t = 0; more && t < tp; t++)
      {
        for (guint d = 0; d < dp; d++)
          group[d] = gpus[t + tp * (d + dp * p)];
        if (!func (data, SIM_COLLECTIVE_ALL_REDUCE, 0, dp_bytes, group, dp, error))
          return FALSE;
        more = !first_only;
      }
  more = tp >= 2 && c->tp_bytes > 0;
  for (guint p = 0; more && p < pp; p++)
    for (guint d = 0; more && d < dp; d++)
      {
        if (!func (data, SIM_COLLECTIVE_ALL_REDUCE, 1, c->tp_bytes, gpus + tp * (d + dp * p), tp,
                   error))
          return FALSE;
        more = !first_only;
      }
  more = pp >= 2 && c->pp_bytes > 0;
  for (guint p = 0; more && p + 1 < pp; p++)
    for (guint d = 0; more && d < dp; d++)
      for (guint t = 0; more && t < tp; t++)
        {
          group[0] = gpus[t + tp * (d + dp * p)];
          group[1] = gpus[t + tp * (d + dp * (p + 1))];
          if (!func (data, SIM_COLLECTIVE_SEND_RECV, 2, c->pp_bytes, group, 2, error))
            return FALSE;
          more = !first_only;
        }
  return TRUE;
}

/* A collective register_one() left unregistered: its operation, its
 * place in JobState.coll, the id taken for it, and where its GPUs start in
 * Registering.alone_gpus. */
typedef struct {
  SimCollectiveOp op;
  guint           coll;
  guint           id;
  guint           gpus;
} Skipped;

typedef struct {
  SimJobComm *comm;
  SimJob     *job;
  JobState   *state;
  GArray     *skipped;    /* Skipped, or NULL */
  /* Demand-aware sharing and phases: the same collectives, with the
   * algorithms chosen on the network, to be timed on the idle copy. */
  GArray     *alone;      /* SimCollectiveCall, gpus into alone_gpus */
  GArray     *alone_gpus; /* guint32 */
} Registering;

static gboolean
register_one (gpointer data, SimCollectiveOp op, guint8 phase, guint64 bytes,
              const guint32 *gpus, guint n, GError **error)
{
  Registering *r = data;
  SimCollectiveAlgo algo = SIM_COLLECTIVE_ALGO_AUTO;
  gboolean skip = r->state->private_nodes != NULL && r->alone != NULL
                  && sim__comm_model_inside_private (r->comm->model, gpus, n);
  guint id;

  /* A collective inside one node the job holds whole is not registered
   * (sim__comm_model_inside_private()): it keeps the id it would have
   * had, with its place among the job's collectives, as 0 until it must
   * be registered after all (sim__job_comm_register()). */
  if (skip)
    {
      if (!sim__comm_model_choose (r->comm->model, op, bytes, gpus, n, &algo, NULL, NULL, error))
        return FALSE;
      id = sim__comm_model_take_id (r->comm->model);
    }
  else
    {
      id = sim_comm_model_add (r->comm->model, op, SIM_COLLECTIVE_ALGO_AUTO, bytes, gpus, n,
                               error);
      if (id == 0)
        return FALSE;
      sim__comm_model_set_owner (r->comm->model, id, r->job);
      r->comm->n_owned++;
      algo = sim_comm_model_get_algo (r->comm->model, id);
    }
  if (r->state->n_coll == r->state->coll_alloc)
    {
      r->state->coll_alloc = MAX (4, 2 * r->state->coll_alloc);
      r->state->coll = g_renew (JobColl, r->state->coll, r->state->coll_alloc);
    }
  r->state->coll[r->state->n_coll++] = (JobColl) { bytes, skip ? 0 : id, phase };
  if (skip)
    {
      if (r->skipped == NULL)
        r->skipped = g_array_new (FALSE, FALSE, sizeof (Skipped));
      g_array_append_val (r->skipped, ((Skipped) { op, r->state->n_coll - 1, id,
                                                   r->alone_gpus->len }));
      skipped_total++;
    }
  if (r->alone != NULL)
    {
      SimCollectiveCall call = { op, algo, bytes, NULL, n, r->comm->model, skip ? 0 : id };
      /* Where its GPUs will be: the pointers are set once all are in. */
      call.gpus = GUINT_TO_POINTER (r->alone_gpus->len);
      g_array_append_vals (r->alone_gpus, gpus, n);
      g_array_append_val (r->alone, call);
    }
  return TRUE;
}

/* The iteration time of a job that computes for @compute seconds and
 * communicates for @phase[0] (data-parallel gradients, of which @overlap
 * hides behind compute), @phase[1] and @phase[2] (tensor-parallel
 * all-reduces and pipeline sends, which compute waits for). */
static double
iteration_time (double compute, const double *phase, double overlap)
{
  return compute + phase[0] + phase[1] + phase[2] - MIN (overlap * phase[0], compute);
}

/* The iteration time of @job alone on the network (seconds). */
static double
alone_iteration (const SimJob *job, const JobState *js)
{
  return iteration_time (sim_time_to_seconds (job->spec.comm.iteration) / job->speed, js->alone,
                         job->spec.comm.overlap);
}

/* Caps @js's flows at the average demand of an iteration of
 * js->iteration seconds: each collective's bytes once per iteration. */
static void
set_demands (SimJobComm *comm, const JobState *js)
{
  for (guint i = 0; i < js->n_coll; i++)
    sim_comm_model_set_demand (comm->model, js->coll[i].id,
                               (double) js->coll[i].bytes / js->iteration);
}

static void
queue_job (SimJobComm *comm, SimJob *job)
{
  JobState *js = job->comm_state;

  if (js != NULL && !js->pending)
    {
      js->pending = TRUE;
      g_ptr_array_add (comm->pending, job);
    }
}

/* Marks @job's shares as possibly changed, for sim__job_comm_take_changed(). */
static void
touch_job (SimJobComm *comm, SimJob *job)
{
  JobState *js = job->comm_state;

  if (!js->touched)
    {
      js->touched = TRUE;
      g_ptr_array_add (comm->touched, job);
    }
}

/* Times @r's collectives together on the idle copy, the job alone on the
 * network: per phase, the slowest, as sim__job_comm_rate() does on the
 * network. */
static gboolean
measure_alone (Registering *r, GError **error)
{
  JobState *js = r->state;
  guint n = r->alone->len;
  g_autofree double *times = g_new (double, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      SimCollectiveCall *c = &g_array_index (r->alone, SimCollectiveCall, i);
      c->gpus = &g_array_index (r->alone_gpus, guint32, GPOINTER_TO_UINT (c->gpus));
    }
  if (!sim__comm_model_time_alone (r->comm->idle, (const SimCollectiveCall *) (gpointer)
                                   r->alone->data, n, times, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      guint8 ph = js->coll[i].phase;
      js->alone[ph] = MAX (js->alone[ph], times[i]);
    }
  return TRUE;
}

/* Phases: the compute phase of @js's iteration, what the overlap does not
 * hide (seconds): its iteration alone less its communication alone. */
static double
phase_compute (const SimJob *job, const JobState *js)
{
  return alone_iteration (job, js) - (js->alone[0] + js->alone[1] + js->alone[2]);
}

/* Phases: where a new job's iterations start against its neighbours',
 * which the model does not know: a share of an iteration in [0, 1), spread
 * evenly over the jobs by id (the fractional parts of id x the golden
 * ratio). */
static double
phase_offset (guint64 id)
{
  double x = (double) id * 0.6180339887498949;
  return x - floor (x);
}

/* Phases: switches @js's flows on (uncapped) or off (capped at a rate
 * nothing notices: SIM_JOB_COMM_OFF_RATE). */
static void
set_flows (SimJobComm *comm, JobState *js, gboolean on)
{
  for (guint i = 0; i < js->n_coll; i++)
    sim_comm_model_set_demand (comm->model, js->coll[i].id,
                               on ? INFINITY : SIM_JOB_COMM_OFF_RATE);
  js->stale = TRUE;
}

void
sim__job_comm_set_sharing (SimJobComm *comm, SimFabricSharing sharing)
{
  g_return_if_fail (comm != NULL && comm->n_owned == 0);
  comm->sharing = sharing;
}

SimFabricSharing
sim__job_comm_get_sharing (const SimJobComm *comm)
{
  return comm->sharing;
}

guint
sim__job_comm_get_last_rounds (const SimJobComm *comm)
{
  return comm->last_rounds;
}

double
sim__job_comm_get_iteration (const SimJob *job)
{
  const JobState *js = job->comm_state;

  if (js == NULL)
    return 0;
  return alone_iteration (job, js) * js->stretch;
}

void
sim__job_comm_set_prune (SimJobComm *comm, gboolean prune)
{
  g_return_if_fail (comm != NULL);
  comm->no_prune = !prune;
}

/* Marks @js->private_nodes private on the network (@on) or not, asking
 * for each node's records in three steps, three nodes, two and one ahead
 * (sim__comm_model_prefetch_node()): a job of 128 GPUs holds 16 nodes,
 * each of whose records came from memory one after another. */
static void
set_private (SimJobComm *comm, JobState *js, gboolean on)
{
  const guint32 *nodes;
  guint n;

  if (js->private_nodes == NULL)
    return;
  nodes = (const guint32 *) (gpointer) js->private_nodes->data;
  n = js->private_nodes->len;
  for (guint i = 0; i < n; i++)
    {
      for (guint stage = 0; stage < 3; stage++)
        {
          guint ahead = 3 - stage;
          /* (The first nodes' steps all at once, before the first.) */
          for (guint j = i == 0 ? 0 : i + ahead; j <= i + ahead && j < n; j++)
            sim__comm_model_prefetch_node (comm->model, nodes[j], stage);
        }
      sim__comm_model_set_node_private (comm->model, nodes[i], on);
    }
}

/* Demand-aware sharing: marks private on the network the nodes @job holds
 * whole (every GPU of the node its own, fully and alone), listed in
 * @js->private_nodes.  No other job can take a GPU of them while it runs,
 * and its flows are capped at its demand, which its time alone on the
 * network fits: the resources of those nodes then never hold a flow back
 * (sim__comm_model_set_prune()). */
static void
mark_private (SimJobComm *comm, SimJob *job, JobState *js)
{
  guint32 *count;
  const SimGpu *gpus = sim__cluster_gpus (comm->cluster);

  if (comm->node_count == NULL)
    comm->node_count = g_new0 (guint32, MAX (sim_cluster_get_n_nodes (comm->cluster), 1));
  count = comm->node_count;
  /* Its GPUs on each node, in the order its nodes first appear. */
  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint32 node = gpus[job->gpus[i]].node;
      if (count[node]++ == 0)
        {
          if (js->private_nodes == NULL)
            js->private_nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_array_append_val (js->private_nodes, node);
        }
    }
  for (guint i = js->private_nodes != NULL ? js->private_nodes->len : 0; i-- > 0;)
    {
      guint32 node = g_array_index (js->private_nodes, guint32, i);
      const SimNode *nd = sim_cluster_get_node (comm->cluster, node);
      gboolean whole = count[node] == nd->n_gpus;
      count[node] = 0;
      for (guint32 g = nd->first_gpu; whole && g < nd->first_gpu + nd->n_gpus; g++)
        {
          const SimGpu *x = &gpus[g];
          whole = x->used_milli >= 1000 && x->n_tenants == 1 && x->mig_used == 0;
        }
      if (!whole)
        g_array_remove_index (js->private_nodes, i);
    }
  if (js->private_nodes != NULL && js->private_nodes->len == 0)
    g_clear_pointer (&js->private_nodes, g_array_unref);
  set_private (comm, js, TRUE);
}

/* Takes @js's nodes off the private list. */
static void
unmark_private (SimJobComm *comm, JobState *js)
{
  set_private (comm, js, FALSE);
  g_clear_pointer (&js->private_nodes, g_array_unref);
}

/* The collectives register_one() left unregistered, registered after all
 * (under the ids taken for them, in their order) where another of the
 * job's is not pruned: each will then be registered whole with the rest
 * (sim__comm_model_unprune()), as it would have been.  Where all are
 * pruned, nothing is done. */
static gboolean
register_skipped (Registering *r, GError **error)
{
  JobState *js = r->state;
  gboolean all = TRUE;

  if (r->skipped == NULL)
    return TRUE;
  for (guint i = 0; i < js->n_coll && all; i++)
    all = js->coll[i].id == 0 || sim__comm_model_is_pruned (r->comm->model, js->coll[i].id);
  if (all)
    return TRUE;
  for (guint k = 0; k < r->skipped->len; k++)
    {
      const Skipped *x = &g_array_index (r->skipped, Skipped, k);
      SimCollectiveCall *call = &g_array_index (r->alone, SimCollectiveCall, x->coll);
      JobColl *c = &js->coll[x->coll];
      guint id = sim__comm_model_add_as (r->comm->model, x->id, x->op, SIM_COLLECTIVE_ALGO_AUTO,
                                         c->bytes,
                                         &g_array_index (r->alone_gpus, guint32, x->gpus),
                                         call->n_gpus, error);
      if (id == 0)
        return FALSE;
      sim__comm_model_set_owner (r->comm->model, id, r->job);
      r->comm->n_owned++;
      c->id = id;
      call->id = id;
      skipped_after_all++;
    }
  return TRUE;
}

gboolean
sim__job_comm_register (SimJobComm *comm, SimJob *job, GError **error)
{
  Registering r = { comm, job, NULL, NULL, NULL, NULL };
  GArray *alone = NULL;

  g_return_val_if_fail (comm != NULL && job != NULL && job->comm_state == NULL, FALSE);
  if (job->spec.comm.iteration == 0 || job->n_gpus < 2)
    return TRUE;
  r.state = g_new0 (JobState, 1);
  job->comm_state = r.state;
  touch_job (comm, job);
  comm->dirty = TRUE;
  if (comm->sharing != SIM_FABRIC_SHARING_ALWAYS_ON)
    {
      if (comm->idle == NULL)
        comm->idle = sim_comm_model_new (comm->topology, comm->cluster);
      if (comm->alone_calls == NULL)
        {
          comm->alone_calls = g_array_new (FALSE, FALSE, sizeof (SimCollectiveCall));
          comm->alone_gpus = g_array_new (FALSE, FALSE, sizeof (guint32));
        }
      g_array_set_size (comm->alone_calls, 0);
      g_array_set_size (comm->alone_gpus, 0);
      r.alone = alone = comm->alone_calls;
      r.alone_gpus = comm->alone_gpus;
    }
  /* Demand-aware sharing leaves the resources of the nodes the job holds
   * whole out of the solver (sim__comm_model_set_prune()). */
  sim__comm_model_set_prune (comm->model, comm->sharing == SIM_FABRIC_SHARING_DEMAND
                                          && !comm->no_prune);
  if (comm->sharing == SIM_FABRIC_SHARING_DEMAND && !comm->no_prune)
    mark_private (comm, job, r.state);
  if (!foreach_collective (&job->spec.comm, job->gpus, job->n_gpus, FALSE, register_one, &r,
                           error)
      || !register_skipped (&r, error)
      || (alone != NULL && !measure_alone (&r, error)))
    {
      /* Nothing stays registered. */
      g_clear_pointer (&r.skipped, g_array_unref);
      sim__job_comm_release (comm, job);
      return FALSE;
    }
  g_clear_pointer (&r.skipped, g_array_unref);
  if (r.state->private_nodes != NULL)
    {
      /* A collective whose routes are not fixed by its GPUs was registered
       * whole, and its time alone was not taken on the routes it has: the
       * job's caps may not fit its nodes, so none of it stays pruned.  (A
       * collective left unregistered would have been registered pruned.) */
      gboolean all = TRUE;
      for (guint i = 0; i < r.state->n_coll && all; i++)
        all = r.state->coll[i].id == 0
              || sim__comm_model_is_pruned (comm->model, r.state->coll[i].id);
      if (!all)
        {
          for (guint i = 0; i < r.state->n_coll; i++)
            unpruned_total += sim__comm_model_unprune (comm->model,
                                                       r.state->coll[i].id);
          unmark_private (comm, r.state);
        }
      else
        pruned_total += r.state->n_coll;
    }
  if (alone != NULL)
    {
      r.state->stretch = 1;
      if (comm->sharing == SIM_FABRIC_SHARING_DEMAND)
        queue_job (comm, job);
      else
        {
          /* Phases: it starts with the compute of its first iteration,
           * its flows off. */
          r.state->in_comm = FALSE;
          r.state->left = phase_compute (job, r.state) + phase_offset (job->spec.id)
                                                         * alone_iteration (job, r.state);
          set_flows (comm, r.state, FALSE);
          g_ptr_array_add (comm->jobs, job);
        }
    }
  return TRUE;
}

void
sim__job_comm_release (SimJobComm *comm, SimJob *job)
{
  JobState *js;

  g_return_if_fail (comm != NULL && job != NULL);
  js = job->comm_state;
  if (js == NULL)
    return;
  for (guint i = 0; i < js->n_coll; i++)
    {
      guint id = js->coll[i].id;
      /* The plans a few on asked for while this one goes (a job of 128
       * GPUs has two dozen). */
      if (i == 0 && js->n_coll > 1)
        sim__comm_model_prefetch_remove (comm->model, js->coll[1].id, FALSE);
      if (i + 2 < js->n_coll)
        sim__comm_model_prefetch_remove (comm->model, js->coll[i + 2].id, FALSE);
      if (i + 1 < js->n_coll)
        sim__comm_model_prefetch_remove (comm->model, js->coll[i + 1].id, TRUE);
      if (sim_comm_model_remove (comm->model, id))
        comm->n_owned--;
    }
  unmark_private (comm, js);
  if (js->pending)
    g_ptr_array_remove_fast (comm->pending, job);
  if (js->slowed)
    g_ptr_array_remove_fast (comm->slowed, job);
  if (js->touched)
    g_ptr_array_remove_fast (comm->touched, job);
  if (comm->sharing == SIM_FABRIC_SHARING_PHASES)
    g_ptr_array_remove (comm->jobs, job);
  job_state_free (js);
  job->comm_state = NULL;
  comm->dirty = TRUE;
}

void
sim__job_comm_forget (SimJob *job)
{
  g_clear_pointer (&job->comm_state, job_state_free);
}

static gint
compare_jobs (gconstpointer a, gconstpointer b)
{
  const SimJob *x = *(SimJob * const *) a, *y = *(SimJob * const *) b;

  return x->spec.id < y->spec.id ? -1 : x->spec.id > y->spec.id;
}

/* Demand-aware sharing: the fixed point of sim-job-comm.h. */
static void
update_demand (SimJobComm *comm)
{
  g_autofree double *worst = NULL;
  guint round;

  /* Every slowed job starts again from its time alone: a job that left
   * may have freed what it was slowed by. */
  for (guint i = 0; i < comm->slowed->len; i++)
    {
      SimJob *job = comm->slowed->pdata[i];
      ((JobState *) job->comm_state)->slowed = FALSE;
      queue_job (comm, job);
    }
  g_ptr_array_set_size (comm->slowed, 0);
  /* New jobs and reset ones ask for the demand of their time alone (with
   * their speed as it is now). */
  for (guint j = 0; j < comm->pending->len; j++)
    {
      SimJob *job = comm->pending->pdata[j];
      JobState *js = job->comm_state;
      js->iteration = alone_iteration (job, js);
      js->stretch = 1;
      set_demands (comm, js);
    }
  for (round = 1;; round++)
    {
      g_autoptr(GArray) changed = sim_comm_model_update (comm->model);
      gboolean moved = FALSE;

      for (guint i = 0; i < changed->len; i++)
        {
          SimJob *owner = sim__comm_model_get_owner (comm->model,
                                                     g_array_index (changed, guint, i));
          if (owner != NULL)
            queue_job (comm, owner);
        }
      if (comm->pending->len == 0)
        break;
      /* One round: every shortfall under the same solve, then the new
       * demands (a job's order does not matter; sorted for the record). */
      g_ptr_array_sort (comm->pending, compare_jobs);
      worst = g_renew (double, worst, comm->pending->len);
      for (guint j = 0; j < comm->pending->len; j++)
        {
          const JobState *js = ((SimJob *) comm->pending->pdata[j])->comm_state;
          worst[j] = 1;
          for (guint i = 0; i < js->n_coll; i++)
            worst[j] = MAX (worst[j],
                            sim_comm_model_get_shortfall (comm->model,
                                                          js->coll[i].id));
        }
      for (guint j = 0; j < comm->pending->len; j++)
        {
          SimJob *job = comm->pending->pdata[j];
          JobState *js = job->comm_state;
          js->pending = FALSE;
          touch_job (comm, job);
          if (worst[j] <= 1 + SIM_JOB_COMM_TOLERANCE)
            continue;
          /* Its flows cannot all get what it asks: it iterates as slowly
           * as its most shortchanged flow lets it, and asks that much. */
          js->iteration *= worst[j];
          js->stretch = js->iteration / alone_iteration (job, js);
          if (isfinite (js->iteration))
            set_demands (comm, js);
          if (!js->slowed)
            {
              js->slowed = TRUE;
              g_ptr_array_add (comm->slowed, job);
            }
          moved = TRUE;
        }
      g_ptr_array_set_size (comm->pending, 0);
      if (!moved || round >= SIM_JOB_COMM_MAX_ROUNDS)
        break;
    }
  comm->last_rounds = round;
}

/* Phases: the time of @js's communication phase at the current rates, the
 * phases' slowest collectives one after the other (sim-job-comm.h). */
static double
measure_phase (SimJobComm *comm, const JobState *js)
{
  double t[N_PHASES] = { 0, 0, 0 };

  for (guint i = 0; i < js->n_coll; i++)
    {
      SimCollectiveTiming timing;
      guint8 ph = js->coll[i].phase;
      if (sim_comm_model_estimate (comm->model, js->coll[i].id,
                                   js->coll[i].bytes, &timing))
        t[ph] = MAX (t[ph], timing.time);
    }
  return t[0] + t[1] + t[2];
}

/* Phases: the event-driven run of sim-job-comm.h, from where every job is
 * in its iteration, until every job has completed
 * SIM_JOB_COMM_PHASE_WARMUP + SIM_JOB_COMM_PHASE_ITERATIONS iterations (or
 * the run has taken SIM_JOB_COMM_PHASE_MAX_EVENTS events per job). */
static void
update_phases (SimJobComm *comm)
{
  const guint want = SIM_JOB_COMM_PHASE_WARMUP + SIM_JOB_COMM_PHASE_ITERATIONS;
  guint n = comm->jobs->len, events = 0, behind = n;
  double now = 0;

  for (guint j = 0; j < n; j++)
    {
      JobState *js = ((SimJob *) comm->jobs->pdata[j])->comm_state;
      js->done = 0;
      js->first = js->last = 0;
      js->stale = TRUE;
    }
  while (behind > 0 && events < SIM_JOB_COMM_PHASE_MAX_EVENTS * n)
    {
      g_autoptr(GArray) changed = sim_comm_model_update (comm->model);
      double step = INFINITY;

      for (guint i = 0; i < changed->len; i++)
        {
          SimJob *owner = sim__comm_model_get_owner (comm->model,
                                                     g_array_index (changed, guint, i));
          if (owner != NULL)
            ((JobState *) owner->comm_state)->stale = TRUE;
        }
      /* The next phase to end anywhere, at the current rates. */
      for (guint j = 0; j < n; j++)
        {
          JobState *js = ((SimJob *) comm->jobs->pdata[j])->comm_state;
          if (js->in_comm && js->stale)
            {
              js->phase_time = measure_phase (comm, js);
              js->stale = FALSE;
            }
          step = MIN (step, js->in_comm ? js->left * js->phase_time : js->left);
        }
      if (!isfinite (step))
        break;
      now += step;
      events++;
      /* Progress at those rates, then the phases that end switch. */
      for (guint j = 0; j < n; j++)
        {
          SimJob *job = comm->jobs->pdata[j];
          JobState *js = job->comm_state;
          double end = js->in_comm ? js->left * js->phase_time : js->left;
          if (end > step * (1 + 1e-12) + 1e-15)
            {
              js->left -= js->in_comm ? step / js->phase_time : step;
              continue;
            }
          if (!js->in_comm)
            {
              js->in_comm = TRUE;
              js->left = 1;
              set_flows (comm, js, TRUE);
              continue;
            }
          /* An iteration completes. */
          js->done++;
          if (js->done == SIM_JOB_COMM_PHASE_WARMUP)
            js->first = now;
          js->last = now;
          if (js->done == want)
            behind--;
          js->left = phase_compute (job, js);
          if (js->left > 0)
            {
              js->in_comm = FALSE;
              set_flows (comm, js, FALSE);
            }
          else
            js->left = 1;
        }
    }
  comm->last_events = events;
  /* Each job runs at its mean iteration after the warm-up; one that
   * completed too few (iterations far longer than its neighbours') at its
   * time so far over its iterations, at least its time alone. */
  for (guint j = 0; j < n; j++)
    {
      SimJob *job = comm->jobs->pdata[j];
      JobState *js = job->comm_state;
      double alone = alone_iteration (job, js), mean;
      if (js->done > SIM_JOB_COMM_PHASE_WARMUP)
        mean = (js->last - js->first) / (js->done - SIM_JOB_COMM_PHASE_WARMUP);
      else
        mean = js->done > 0 ? now / js->done : alone;
      if (mean <= alone * (1 + SIM_JOB_COMM_TOLERANCE))
        mean = alone;
      js->iteration = mean;
      js->stretch = mean / alone;
      touch_job (comm, job);
    }
}

guint
sim__job_comm_get_last_events (const SimJobComm *comm)
{
  return comm->last_events;
}

gboolean
sim__job_comm_update (SimJobComm *comm)
{
  g_autoptr(GArray) changed = NULL;

  g_return_val_if_fail (comm != NULL, FALSE);
  if (!comm->dirty)
    return FALSE;
  comm->dirty = FALSE;
  if (comm->sharing == SIM_FABRIC_SHARING_DEMAND)
    {
      update_demand (comm);
      return TRUE;
    }
  if (comm->sharing == SIM_FABRIC_SHARING_PHASES)
    {
      update_phases (comm);
      return TRUE;
    }
  changed = sim_comm_model_update (comm->model);
  for (guint i = 0; i < changed->len; i++)
    {
      SimJob *owner = sim__comm_model_get_owner (comm->model, g_array_index (changed, guint, i));
      if (owner != NULL && owner->comm_state != NULL)
        touch_job (comm, owner);
    }
  return TRUE;
}

static gint
compare_run_seq (gconstpointer a, gconstpointer b)
{
  const SimJob *x = *(SimJob * const *) a, *y = *(SimJob * const *) b;

  return x->run_seq < y->run_seq ? -1 : x->run_seq > y->run_seq;
}

GPtrArray *
sim__job_comm_take_changed (SimJobComm *comm)
{
  GPtrArray *taken;

  g_return_val_if_fail (comm != NULL, NULL);
  /* The array handed out last time is done with: it collects the next. */
  taken = comm->touched;
  comm->touched = comm->taken;
  comm->taken = taken;
  g_ptr_array_set_size (comm->touched, 0);
  for (guint i = 0; i < taken->len; i++)
    ((JobState *) ((SimJob *) taken->pdata[i])->comm_state)->touched = FALSE;
  g_ptr_array_sort (taken, compare_run_seq);
  return taken;
}


double
sim__job_comm_rate (SimJobComm *comm, const SimJob *job)
{
  const JobState *js = job->comm_state;
  double phase_time[N_PHASES] = { 0, 0, 0 };
  double reference = sim_time_to_seconds (job->spec.comm.iteration);

  g_return_val_if_fail (comm != NULL && js != NULL, job->speed);
  if (comm->sharing != SIM_FABRIC_SHARING_ALWAYS_ON)
    return reference / (alone_iteration (job, js) * js->stretch);
  for (guint i = 0; i < js->n_coll; i++)
    {
      SimCollectiveTiming timing;
      guint8 ph = js->coll[i].phase;
      if (sim_comm_model_estimate (comm->model, js->coll[i].id,
                                   js->coll[i].bytes, &timing))
        phase_time[ph] = MAX (phase_time[ph], timing.time);
    }
  /* Reference compute done per second: the iteration's reference compute
   * over its time here. */
  return reference / iteration_time (reference / job->speed, phase_time, job->spec.comm.overlap);
}

typedef struct {
  SimCommModel *model;
  double        seconds;
  double        phase[N_PHASES];
} Timing;

static gboolean
time_one (gpointer data, SimCollectiveOp op, guint8 phase, guint64 bytes, const guint32 *gpus,
          guint n, GError **error)
{
  Timing *t = data;
  SimCollectiveTiming timing;

  if (!sim_collective_time (t->model, op, SIM_COLLECTIVE_ALGO_AUTO, bytes, gpus, n, &timing,
                            error))
    return FALSE;
  t->seconds += timing.time;
  t->phase[phase] += timing.time;
  return TRUE;
}

/* Times PROFILE's collectives on N GPUs 0..N-1 of the idle copy of the
 * network into T. */
static gboolean
time_idle (SimJobComm *comm, const SimCommProfile *profile, guint n, Timing *t, GError **error)
{
  g_autofree guint32 *gpus = NULL;

  if (comm->idle == NULL)
    comm->idle = sim_comm_model_new (comm->topology, comm->cluster);
  gpus = g_new (guint32, MAX (n, 2));
  for (guint i = 0; i < n; i++)
    gpus[i] = i;
  t->model = comm->idle;
  return foreach_collective (profile, gpus, n, TRUE, time_one, t, error);
}

gboolean
sim__job_comm_idle_time (SimJobComm *comm, const SimCommProfile *profile, guint n,
                         double *seconds, GError **error)
{
  Timing t = { NULL, 0, { 0, 0, 0 } };

  g_return_val_if_fail (comm != NULL && profile != NULL && seconds != NULL, FALSE);
  if (!time_idle (comm, profile, n, &t, error))
    return FALSE;
  *seconds = t.seconds;
  return TRUE;
}

gboolean
sim__job_comm_idle_iteration (SimJobComm *comm, const SimCommProfile *profile, guint n,
                              double compute, double *seconds, GError **error)
{
  Timing t = { NULL, 0, { 0, 0, 0 } };

  g_return_val_if_fail (comm != NULL && profile != NULL && seconds != NULL, FALSE);
  if (!time_idle (comm, profile, n, &t, error))
    return FALSE;
  *seconds = iteration_time (compute, t.phase, profile->overlap);
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The load of the network (sim__job_comm_get_fabric_load()).                */

/* The resources the load of the network is sampled on, in order: both
 * directions of each link between a node and a switch or between
 * switches, then spraying's pools (an up and a down resource each); and
 * for each pair, the node of a link of a node's NIC, or -1. */
static void
sample_resources (SimJobComm *comm)
{
  SimTopology *t = comm->topology;
  guint n_links = sim_topology_get_n_links (t), n_res = sim_topology_get_n_resources (t);
  GArray *res = g_array_new (FALSE, FALSE, sizeof (guint32));
  GArray *node = g_array_new (FALSE, FALSE, sizeof (gint32));

  for (guint32 l = 0; l < n_links; l++)
    {
      const SimLink *link = sim_topology_get_link (t, l);
      guint32 pair[2] = { 2 * l, 2 * l + 1 };
      gint32 where = -1;
      if (link->tier == SIM_TIER_INTRA)
        continue;
      if (link->tier == SIM_TIER_ACCESS)
        {
          where = sim_topology_get_vertex_node (t, link->a);
          if (where < 0)
            where = sim_topology_get_vertex_node (t, link->b);
        }
      g_array_append_vals (res, pair, 2);
      g_array_append_val (node, where);
    }
  for (guint32 r = 2 * n_links; r + 1 < n_res; r += 2)
    {
      guint32 pair[2] = { r, r + 1 };
      gint32 where = -1;
      g_array_append_vals (res, pair, 2);
      g_array_append_val (node, where);
    }
  comm->n_sample = node->len;
  comm->sample_res = (guint32 *) (gpointer) g_array_free (res, FALSE);
  comm->sample_node = (gint32 *) (gpointer) g_array_free (node, FALSE);
  comm->loads = g_new (double, MAX (2 * comm->n_sample, 1));
}

void
sim__job_comm_get_fabric_load (SimJobComm *comm, double *max, double *mean, double *node_load,
                               guint n_nodes)
{
  double top = 0, sum = 0;

  g_return_if_fail (comm != NULL && max != NULL && mean != NULL);
  g_return_if_fail (node_load != NULL || n_nodes == 0);
  if (comm->sample_res == NULL)
    sample_resources (comm);
  for (guint n = 0; n < n_nodes; n++)
    node_load[n] = 0;
  /* Only the links the sample reads, in one pass (at 100k GPUs the
   * links inside nodes are four in five of the network's resources). */
  sim__comm_model_get_loads (comm->model, comm->sample_res, 2 * comm->n_sample, comm->loads);
  for (guint i = 0; i < comm->n_sample; i++)
    {
      double load = MAX (comm->loads[2 * i], comm->loads[2 * i + 1]);
      gint32 node = comm->sample_node[i];
      top = MAX (top, load);
      sum += load;
      if (node >= 0 && (guint) node < n_nodes)
        node_load[node] = MAX (node_load[node], load);
    }
  *max = top;
  *mean = comm->n_sample > 0 ? sum / comm->n_sample : 0;
}
