/* sim-failures.c: failure processes, detection, repair, hot spares and
 * checkpoints (see sim-failures.h for the model). */
#include "config.h"

#include "failures/sim-failures-private.h"
#include "kernel/sim-kernel.h"
#include "outputs/sim-run-outputs.h"
#include "core/sim-rng.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "core/sim-read.h"
#include "report/sim-timeline.h"
#include "scenario/sim-scenario-private.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

/* What the module's heap holds. */
typedef enum {
  EV_FAIL,        /* arg: a component */
  EV_DETECT,      /* arg: a fault */
  EV_SWAPPED,     /* arg: a spare node now in service */
  EV_REPAIRED,    /* arg: a fault */
  EV_QUARANTINED, /* arg: a node whose quarantine ends */
} EvKind;

typedef struct {
  SimTime when;
  guint64 seq;    /* ties in insertion order: determinism */
  guint32 kind;
  guint32 arg;
} Ev;

/* A fault, from its failure to its repair. */
typedef struct {
  guint32    comp;
  guint32    type;
  SimTime    at;
  SimTime    detected;  /* -1 until detected */
  gboolean   repaired;
  GPtrArray *held;   /* jobs interrupted, waiting for the detection */
} Fault;

typedef enum { ROLE_SERVICE, ROLE_SPARE, ROLE_SWAPPING } Role;

/* A job's checkpoints and what the failures cost it, in reference ns of
 * work (the units of SimJob.work_left). */
typedef struct {
  double  tau, cost, restart;   /* interval of useful work, a checkpoint, a restart */
  SimTime seg_left;             /* work left when its current run began */
  SimTime seg_off;              /* restart owed at that start (before the first period) */
  SimTime pending_off;          /* the restart it owes at its next start */
  gboolean open;                /* a run is under way */
  double  useful, ckpt, lost, restarted; /* over its runs so far */
  double  ettr;                 /* once ended, else -1 */
} JobRec;

struct _SimFailures {
  SimAccumulator    parent;
  SimSimulation    *sim;
  const SimCluster *cluster;
  SimFailureParams  p;
  SimRng           *rng_fail, *rng_repair;
  guint             n_nodes, n_gpus;
  guint             first[SIM_FAILURE_N_TYPES + 1]; /* component ids by type */
  double            scale[SIM_FAILURE_N_TYPES];     /* Weibull scale giving the mean */

  Ev               *heap;
  guint             heap_len, heap_cap;
  guint64           seq;
  guint64           timer;
  SimTime           timer_at;

  GPtrArray        *faults;     /* Fault*, by id */
  guint            *down;       /* per node: outstanding faults taking it out */
  guint            *hard;       /* per node: those of them not of one GPU (its GPUs all fail) */
  guint8           *role;       /* per node: Role */
  gboolean         *replaced;   /* per node: a spare took its place */
  gboolean         *taken;      /* per node: the module holds it out of service */
  gboolean         *restore;    /* per node: whether it was in service when taken */
  SimTime          *quarantine_until;
  gboolean         *soft;       /* per node: its quarantine ends as soon as a job waits */
  guint             n_soft;     /* nodes held so */
  guint64           release_timer;
  GQueue            spare_pool; /* free spares (node + 1) */
  GQueue            waiting;    /* nodes out of service waiting for a spare (node + 1) */
  SimTime          *down_since; /* per component: -1 up */

  guint64           failures[SIM_FAILURE_N_TYPES];
  guint64           interruptions[SIM_FAILURE_N_TYPES];
  double            down_s[SIM_FAILURE_N_TYPES];
  guint64           swaps, migrations;
  double            lost_gpu_s, ckpt_gpu_s, restart_gpu_s;
  double            useful_gpu_s, span_gpu_s;
  double            interval_sum;
  guint64           interval_n;
  GPtrArray        *recs;       /* JobRec*, every one allocated (a job's slot points here) */
  guint             slot;       /* the job slot of its JobRec (sim__kernel_claim_job_slots()) */
  GPtrArray        *free_recs;  /* those of finished jobs, for reuse */
  const SimJob     *interrupting;
  const char       *interrupting_cause;
  char              column[32];
};

/* ------------------------------------------------------------------------- */
/* Components.                                                               */

static guint
type_count (SimFailures *f, SimFailureType t)
{
  switch (t)
    {
    case SIM_FAILURE_GPU:
    case SIM_FAILURE_HBM:
      return f->n_gpus;
    case SIM_FAILURE_NVSWITCH:
      return f->n_nodes * f->p.nvswitches_per_node;
    case SIM_FAILURE_NIC:
    case SIM_FAILURE_CABLE:
      return f->n_nodes * f->p.nics_per_node;
    case SIM_FAILURE_NODE:
    case SIM_FAILURE_SOFTWARE:
      return f->n_nodes;
    case SIM_FAILURE_LEAF:
      return (f->n_nodes + f->p.nodes_per_leaf - 1) / f->p.nodes_per_leaf;
    case SIM_FAILURE_SPINE:
      return f->p.spines;
    case SIM_FAILURE_CORE:
      return f->p.cores;
    default:
      g_assert_not_reached ();
    }
}

static SimFailureType
type_of (SimFailures *f, guint comp)
{
  guint t = 0;

  while (comp >= f->first[t + 1])
    t++;
  return (SimFailureType) t;
}

/* The node a component sits in, or G_MAXUINT for switches. */
static guint
node_of (SimFailures *f, guint comp)
{
  SimFailureType t = type_of (f, comp);
  guint i = comp - f->first[t];

  switch (t)
    {
    case SIM_FAILURE_GPU:
    case SIM_FAILURE_HBM:
      return sim_cluster_get_gpu (f->cluster, i)->node;
    case SIM_FAILURE_NVSWITCH:
      return i / f->p.nvswitches_per_node;
    case SIM_FAILURE_NIC:
    case SIM_FAILURE_CABLE:
      return i / f->p.nics_per_node;
    case SIM_FAILURE_NODE:
    case SIM_FAILURE_SOFTWARE:
      return i;
    default:
      return G_MAXUINT;
    }
}

static guint
leaf_of (SimFailures *f, guint node)
{
  return node / f->p.nodes_per_leaf;
}

/* Whether a fault of this type takes nodes out of service. */
static gboolean
takes_nodes (SimFailureType t)
{
  return t != SIM_FAILURE_SOFTWARE && t != SIM_FAILURE_SPINE && t != SIM_FAILURE_CORE;
}

/* The nodes a fault of COMP takes out: [*lo, *hi). */
static void
nodes_out (SimFailures *f, guint comp, guint *lo, guint *hi)
{
  SimFailureType t = type_of (f, comp);

  if (t == SIM_FAILURE_LEAF)
    {
      guint l = comp - f->first[t];
      *lo = l * f->p.nodes_per_leaf;
      *hi = MIN (f->n_nodes, *lo + f->p.nodes_per_leaf);
    }
  else if (takes_nodes (t))
    {
      *lo = node_of (f, comp);
      *hi = *lo + 1;
    }
  else
    *lo = *hi = 0;
}

/* ------------------------------------------------------------------------- */
/* The timeline (report/sim-timeline.h), with `gpusim run --timeline`: a    */
/* failure as an instant on its component's track, the outage as a slice    */
/* from the failure to the repair holding its detection and its repair, a   */
/* spare's swap on the spare's node track; on the job's track, its restart, */
/* its checkpoints and, once interrupted, its wait for the detection.       */

static SimTimeline *
timeline (SimFailures *f)
{
  return sim__outputs_get_timeline (f->sim);
}

/* COMP's track: returns its node (-1: the fabric), its number and name. */
static gint
part_track (SimFailures *f, guint comp, guint *track, char **name)
{
  SimFailureType t = type_of (f, comp);
  guint i = comp - f->first[t], node = node_of (f, comp), local;

  switch (t)
    {
    case SIM_FAILURE_GPU:
    case SIM_FAILURE_HBM:
      local = i - sim_cluster_get_node (f->cluster, node)->first_gpu;
      *name = g_strdup_printf (t == SIM_FAILURE_GPU ? "GPU %u faults" : "GPU %u HBM", local);
      break;
    case SIM_FAILURE_NVSWITCH:
      local = i % f->p.nvswitches_per_node;
      *name = g_strdup_printf ("NVSwitch %u", local);
      break;
    case SIM_FAILURE_NIC:
    case SIM_FAILURE_CABLE:
      local = i % f->p.nics_per_node;
      *name = g_strdup_printf (t == SIM_FAILURE_NIC ? "NIC %u" : "NIC %u cable", local);
      break;
    case SIM_FAILURE_NODE:
    case SIM_FAILURE_SOFTWARE:
      local = 0;
      *name = g_strdup (t == SIM_FAILURE_NODE ? "host" : "software");
      break;
    default:
      *track = comp;
      *name = g_strdup_printf ("%s %u", sim__failure_type_name (t), i);
      return -1;
    }
  *track = (guint) t << 12 | local;
  return (gint) node;
}

/* The members of a fault's events: its component and the nodes it takes
 * out. */
static char *
fault_args (SimFailures *f, const Fault *fault, guint id)
{
  guint i = fault->comp - f->first[fault->type], node = node_of (f, fault->comp), lo, hi;
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "\"fault\": %u, \"type\": \"%s\", \"index\": %u", id,
                          sim__failure_type_name (fault->type), i);
  if (node != G_MAXUINT)
    g_string_append_printf (s, ", \"node\": %u", node);
  nodes_out (f, fault->comp, &lo, &hi);
  if (hi > lo)
    g_string_append_printf (s, ", \"nodes_out\": [%u, %u]", lo, hi - 1);
  return g_string_free (s, FALSE);
}

/* The instant of fault ID, which interrupted N_JOBS jobs. */
static void
timeline_failure (SimFailures *f, guint id, guint n_jobs)
{
  SimTimeline *tl = timeline (f);
  Fault *fault = f->faults->pdata[id];
  g_autofree char *track_name = NULL, *args = NULL, *all = NULL, *name = NULL;
  guint track;
  gint node;

  if (tl == NULL)
    return;
  node = part_track (f, fault->comp, &track, &track_name);
  args = fault_args (f, fault, id);
  all = g_strdup_printf ("%s, \"jobs_interrupted\": %u", args, n_jobs);
  name = g_strdup_printf ("%s failure", sim__failure_type_name (fault->type));
  sim_timeline_add_part_instant (tl, node, track, track_name, "failure", name, fault->at, all);
}

/* The outage of fault ID up to END, with its detection and its repair
 * (REPAIRED FALSE: still down when the run ended). */
static void
timeline_outage (SimFailures *f, guint id, SimTime end, gboolean repaired)
{
  SimTimeline *tl = timeline (f);
  Fault *fault = f->faults->pdata[id];
  g_autofree char *track_name = NULL, *args = NULL, *all = NULL, *name = NULL;
  SimTime detected = fault->detected >= 0 ? MIN (fault->detected, end) : end;
  char b1[32], b2[32];
  guint track;
  gint node;

  if (tl == NULL)
    return;
  node = part_track (f, fault->comp, &track, &track_name);
  args = fault_args (f, fault, id);
  all = g_strdup_printf ("%s, \"detection_s\": %s, \"repair_s\": %s, \"repaired\": %s", args,
                         sim__format_seconds (detected - fault->at, b1),
                         sim__format_seconds (end - detected, b2), repaired ? "true" : "false");
  name = g_strdup_printf ("%s down", sim__failure_type_name (fault->type));
  sim_timeline_add_part_slice (tl, node, track, track_name, "outage", name, fault->at, end, all);
  sim_timeline_add_part_slice (tl, node, track, track_name, "detection", "detection", fault->at,
                               detected, args);
  if (fault->detected >= 0)
    sim_timeline_add_part_slice (tl, node, track, track_name, "repair", "repair", detected, end,
                                 args);
}

/* The wait of the jobs fault ID interrupted, from the failure to END (its
 * detection, or the end of the run), on each job's track after the run it
 * ended. */
static void
timeline_waits (SimFailures *f, guint id, SimTime end)
{
  SimTimeline *tl = timeline (f);
  Fault *fault = f->faults->pdata[id];

  if (tl == NULL)
    return;
  for (guint i = 0; i < fault->held->len; i++)
    {
      const SimJob *job = fault->held->pdata[i];
      g_autofree char *args = NULL;
      if (job->n_preemptions == 0)
        continue;
      args = g_strdup_printf ("\"job\": %" G_GUINT64_FORMAT ", \"run\": %u, \"fault\": %u, "
                              "\"cause\": \"%s\"", job->spec.id, job->n_preemptions - 1, id,
                              sim__failure_type_name (fault->type));
      sim_timeline_add_job_phase (tl, job->spec.id, job->n_preemptions - 1, "detection",
                                  "interrupted: awaiting detection", fault->at, end, args);
    }
}

static void periods (const JobRec *r, double x, double *k, double *rest);

/* The restart and the checkpoints of JOB's run RUN, which did W of work
 * from its start to now, on the job's track, each where the run's mean
 * rate puts it; a checkpoint cut by a failure is not drawn. */
static void
timeline_phases (SimFailures *f, const JobRec *r, const SimJob *job, guint run, double w,
                 gboolean interrupted)
{
  SimTimeline *tl = timeline (f);
  SimTime now = sim__kernel_now (f->sim), start = job->start;
  double per, k, rest, period = r->tau + r->cost, x = w - (double) r->seg_off;
  g_autofree char *args = NULL;

  if (tl == NULL || w <= 0 || now <= start)
    return;
  per = (double) (now - start) / w;
#define AT(work) MIN (now, start + (SimTime) llround ((work) * per))
  args = g_strdup_printf ("\"job\": %" G_GUINT64_FORMAT ", \"run\": %u", job->spec.id, run);
  if (r->seg_off > 0)
    sim_timeline_add_job_phase (tl, job->spec.id, run, "restart", "restart", start,
                                AT (MIN (w, (double) r->seg_off)), args);
  periods (r, x, &k, &rest);
  for (double i = 0; i < k; i++)
    {
      double b = (double) r->seg_off + i * period + r->tau;
      sim_timeline_add_job_phase (tl, job->spec.id, run, "checkpoint", "checkpoint", AT (b),
                                  AT (b + r->cost), args);
    }
  if (!interrupted && r->tau > 0 && rest > r->tau)
    sim_timeline_add_job_phase (tl, job->spec.id, run, "checkpoint", "checkpoint",
                                AT ((double) r->seg_off + k * period + r->tau), now, args);
#undef AT
}

/* ------------------------------------------------------------------------- */
/* The heap.                                                                 */

static gboolean
ev_before (const Ev *a, const Ev *b)
{
  return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static void on_timer (SimSimulation *sim, SimTime now, gpointer data);

/* Keeps the simulation's timer on the heap's earliest event. */
static void
arm (SimFailures *f)
{
  SimTime now = sim__kernel_now (f->sim);

  if (f->heap_len == 0)
    return;
  if (f->timer != 0 && f->timer_at <= f->heap[0].when)
    return;
  if (f->timer != 0)
    sim__kernel_cancel_timer (f->sim, f->timer);
  f->timer_at = MAX (now, f->heap[0].when);
  f->timer = sim__kernel_add_timer (f->sim, f->timer_at, on_timer, f);
}

static void
push (SimFailures *f, SimTime when, EvKind kind, guint arg)
{
  guint i;

  if (f->heap_len == f->heap_cap)
    {
      f->heap_cap = MAX (64, 2 * f->heap_cap);
      f->heap = g_renew (Ev, f->heap, f->heap_cap);
    }
  i = f->heap_len++;
  f->heap[i] = (Ev) { when, f->seq++, kind, arg };
  while (i > 0 && ev_before (&f->heap[i], &f->heap[(i - 1) / 2]))
    {
      Ev tmp = f->heap[i];
      f->heap[i] = f->heap[(i - 1) / 2];
      f->heap[(i - 1) / 2] = tmp;
      i = (i - 1) / 2;
    }
}

/* NOW + D, or SIM_TIME_NEVER when that is past the end of simulated time
 * (a repair of 15000 weeks): such an event never comes, where the sum
 * would have wrapped to a time in the past. */
static SimTime
later (SimTime now, SimTime d)
{
  SimTime t;

  return sim__time_add_checked (now, d, &t) ? t : SIM_TIME_NEVER;
}

static Ev
pop (SimFailures *f)
{
  Ev top = f->heap[0];
  guint i = 0;

  f->heap[0] = f->heap[--f->heap_len];
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < f->heap_len && ev_before (&f->heap[l], &f->heap[m]))
        m = l;
      if (r < f->heap_len && ev_before (&f->heap[r], &f->heap[m]))
        m = r;
      if (m == i)
        break;
      Ev tmp = f->heap[i];
      f->heap[i] = f->heap[m];
      f->heap[m] = tmp;
      i = m;
    }
  return top;
}

/* ------------------------------------------------------------------------- */
/* Draws.                                                                    */

/* The time to a component's next failure, from a new component. */
static SimTime
draw_life (SimFailures *f, SimFailureType t)
{
  double s;

  if (f->p.mtbf_s[t] <= 0)
    return SIM_TIME_NEVER;
  if (f->p.shape[t] == 1.0)
    s = sim_rng_exponential (f->rng_fail, f->p.mtbf_s[t]);
  else
    s = gsl_ran_weibull (sim_rng_gsl (f->rng_fail), f->scale[t], f->p.shape[t]);
  {
    /* Never at the same instant; a draw past the end of simulated time
     * (a rate near zero) is never. */
    SimTime life = sim_time_from_seconds (s);
    return life >= SIM_TIME_NEVER - 1 ? SIM_TIME_NEVER : life + 1;
  }
}

static SimTime
draw_repair (SimFailures *f, SimFailureType t)
{
  double mean = sim_time_to_seconds (f->p.repair[t]);

  if (mean <= 0)
    return 0;
  switch (f->p.repair_dist)
    {
    case SIM_REPAIR_EXPONENTIAL:
      return sim_time_from_seconds (sim_rng_exponential (f->rng_repair, mean));
    case SIM_REPAIR_LOGNORMAL:
      {
        double sigma = f->p.repair_sigma;
        return sim_time_from_seconds (sim_rng_lognormal (f->rng_repair,
                                                         log (mean) - sigma * sigma / 2, sigma));
      }
    case SIM_REPAIR_FIXED:
    default:
      return f->p.repair[t];
    }
}

static void
schedule_life (SimFailures *f, guint comp, SimTime from)
{
  SimTime life;

  if (f->p.log != NULL)
    return; /* the log lists every failure */
  life = draw_life (f, type_of (f, comp));
  if (life != SIM_TIME_NEVER && from <= SIM_TIME_NEVER - life)
    push (f, from + life, EV_FAIL, comp);
}

/* ------------------------------------------------------------------------- */
/* Nodes in and out of service.                                             */

/* Puts node N out of service while it is down, a spare in reserve, in its
 * swap or quarantined, and back when none holds.  The module only gives
 * back what it took: a node another part of the simulation had put out
 * of service (a cloud pool's, power/sim-elastic.h) stays out; while the
 * module holds a node, whoever switches it last wins. */
static void
refresh (SimFailures *f, guint n, SimTime now)
{
  gboolean want = f->down[n] == 0 && f->role[n] == ROLE_SERVICE && now >= f->quarantine_until[n];

  if (!want && !f->taken[n])
    {
      f->taken[n] = TRUE;
      f->restore[n] = sim_cluster_get_node (f->cluster, n)->available;
      sim_simulation_set_node_available (f->sim, n, FALSE, NULL);
    }
  else if (want && f->taken[n])
    {
      f->taken[n] = FALSE;
      if (f->restore[n])
        sim_simulation_set_node_available (f->sim, n, TRUE, NULL);
    }
}

/* Node N was taken out: a free spare, if any, takes its place. */
static void
call_spare (SimFailures *f, guint n, SimTime now)
{
  GList *l;
  guint s;

  if (f->p.spares == 0 || f->role[n] != ROLE_SERVICE || f->replaced[n] || f->down[n] == 0)
    return;
  /* The first free spare that is not itself down. */
  for (l = f->spare_pool.head; l != NULL; l = l->next)
    if (f->down[GPOINTER_TO_UINT (l->data) - 1] == 0)
      break;
  if (l == NULL)
    {
      if (g_queue_find (&f->waiting, GUINT_TO_POINTER (n + 1)) == NULL)
        g_queue_push_tail (&f->waiting, GUINT_TO_POINTER (n + 1));
      return;
    }
  s = GPOINTER_TO_UINT (l->data) - 1;
  g_queue_delete_link (&f->spare_pool, l);
  f->replaced[n] = TRUE;
  f->role[s] = ROLE_SWAPPING;
  f->swaps++;
  push (f, later (now, f->p.swap), EV_SWAPPED, s);
  if (timeline (f) != NULL)
    {
      g_autofree char *name = g_strdup_printf ("spare swapped in for node %u", n);
      g_autofree char *args = g_strdup_printf ("\"spare\": %u, \"replaces\": %u", s, n);
      sim_timeline_add_slice (timeline (f), -1, s, 0, "spare", name, now, later (now, f->p.swap), args);
    }
}

/* Spare S is free again: the first node still waiting for one gets it. */
static void
spare_free (SimFailures *f, guint s, SimTime now)
{
  f->role[s] = ROLE_SPARE;
  g_queue_push_tail (&f->spare_pool, GUINT_TO_POINTER (s + 1));
  refresh (f, s, now);
  /* A healthy spare goes to the first node still waiting for one
   * (call_spare() takes the first healthy spare of the pool). */
  while (f->down[s] == 0 && !g_queue_is_empty (&f->waiting))
    {
      guint n = GPOINTER_TO_UINT (g_queue_pop_head (&f->waiting)) - 1;
      if (f->role[n] == ROLE_SERVICE && !f->replaced[n] && f->down[n] > 0)
        {
          call_spare (f, n, now);
          break;
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Jobs.                                                                     */

static JobRec *
job_rec (SimFailures *f, const SimJob *job)
{
  return job->ext[f->slot].p;
}

/* A record for JOB, from the pool: no allocation once jobs finish. */
static JobRec *
new_rec (SimFailures *f, SimJob *job)
{
  JobRec *r;

  if (f->free_recs->len > 0)
    {
      r = g_ptr_array_steal_index_fast (f->free_recs, f->free_recs->len - 1);
      memset (r, 0, sizeof *r);
    }
  else
    {
      r = g_new0 (JobRec, 1);
      g_ptr_array_add (f->recs, r);
    }
  r->ettr = -1;
  job->ext[f->slot].p = r;
  return r;
}

/* Splits X of work done past a run's restart into checkpoint periods:
 * K whole periods (useful work then a checkpoint), R into the next. */
static void
periods (const JobRec *r, double x, double *k, double *rest)
{
  double period = r->tau + r->cost;

  if (r->tau <= 0 || x <= 0)
    {
      *k = 0;
      *rest = MAX (0, x);
      return;
    }
  *k = floor (x / period);
  *rest = x - *k * period;
}

/* The GPUs JOB holds, or asks for while it waits (fractions counted). */
static double
job_gpus (const SimJob *job)
{
  guint n = job->n_gpus > 0 ? job->n_gpus : job->spec.gpus;

  return n * (job->spec.gpu_milli > 0 ? job->spec.gpu_milli / 1000.0 : 1.0);
}

/* The GPU-seconds of work W (reference ns) for JOB at its speed. */
static double
gpu_seconds (const SimJob *job, double w)
{
  double speed = job->speed > 0 ? job->speed : 1.0;

  return w / speed / 1e9 * job_gpus (job);
}

/* Closes JOB's run RUN with its work left now: it ran to its end or to the
 * end of the simulation (INTERRUPTED FALSE: the work past its last
 * checkpoint counts), or a failure stopped it (TRUE: returns the work
 * lost). */
static double
close_run (SimFailures *f, JobRec *r, const SimJob *job, guint run, gboolean interrupted)
{
  /* (After a policy's preemption the work left includes its overhead:
   * never less than nothing done.) */
  double w = MAX (0.0, (double) (r->seg_left - job->work_left));
  double x = w - (double) r->seg_off, k, rest, lost = 0, useful, ckpt;

  if (!r->open)
    return 0;
  r->open = FALSE;
  timeline_phases (f, r, job, run, w, interrupted);
  r->restarted += MIN (w, (double) r->seg_off);
  f->restart_gpu_s += gpu_seconds (job, MIN (w, (double) r->seg_off));
  periods (r, x, &k, &rest);
  useful = k * r->tau;
  ckpt = k * r->cost;
  if (interrupted)
    lost = rest;
  else if (r->tau > 0)
    {
      useful += MIN (rest, r->tau);
      ckpt += MAX (0, rest - r->tau);
    }
  else
    useful += rest;
  r->useful += useful;
  r->ckpt += ckpt;
  r->lost += lost;
  f->ckpt_gpu_s += gpu_seconds (job, ckpt);
  f->lost_gpu_s += gpu_seconds (job, lost);
  return lost;
}

/* The job's ETTR once it ended at NOW. */
static void
end_job (SimFailures *f, JobRec *r, const SimJob *job, SimTime now)
{
  double span, useful;

  if (job->first_start < 0 || r->ettr >= 0)
    return;
  span = sim_time_to_seconds (now - job->first_start);
  useful = gpu_seconds (job, r->useful) / job_gpus (job);
  r->ettr = span > 0 ? MIN (1.0, useful / span) : 1.0;
  f->useful_gpu_s += gpu_seconds (job, r->useful);
  f->span_gpu_s += span * job_gpus (job);
}

/* The mean time between failures of a job spanning N_GPUS GPUs, s
 * (G_MAXDOUBLE if nothing it spans fails). */
static double
job_mtbf (SimFailures *f, guint n_gpus)
{
  const SimNode *node0 = sim_cluster_get_node (f->cluster, 0);
  guint per = MAX (1, node0->n_gpus);
  guint nodes = (n_gpus + per - 1) / per;
  guint leaves = (nodes + f->p.nodes_per_leaf - 1) / f->p.nodes_per_leaf;
  double rate = 0;

  for (guint t = 0; t < SIM_FAILURE_N_TYPES; t++)
    {
      double n;
      if (f->p.mtbf_s[t] <= 0)
        continue;
      switch (t)
        {
        case SIM_FAILURE_GPU:
        case SIM_FAILURE_HBM:
          n = n_gpus;
          break;
        case SIM_FAILURE_NVSWITCH:
          n = (double) nodes * f->p.nvswitches_per_node;
          break;
        case SIM_FAILURE_NIC:
        case SIM_FAILURE_CABLE:
          n = (double) nodes * f->p.nics_per_node;
          break;
        case SIM_FAILURE_LEAF:
          n = leaves;
          break;
        case SIM_FAILURE_SPINE:
          n = leaves > 1 ? f->p.spines : 0;
          break;
        case SIM_FAILURE_CORE:
          n = leaves > 1 ? f->p.cores : 0;
          break;
        default:
          n = nodes;
        }
      rate += n / f->p.mtbf_s[t];
    }
  return rate > 0 ? 1.0 / rate : G_MAXDOUBLE;
}

double
sim__failures_interval_for (SimFailures *f, guint n_gpus, double *cost_s, double *mtbf_s)
{
  double c = 0, m = job_mtbf (f, n_gpus), tau = 0;

  if (f->p.storage_bw > 0)
    c = f->p.ckpt_bytes_per_gpu * n_gpus / f->p.storage_bw;
  if (f->p.young_daly && c > 0)
    {
      /* Daly (2006), the higher-order estimate of the optimum interval of
       * useful work between checkpoints; M for a job that never fails is
       * taken as infinite: no checkpoint. */
      if (m >= G_MAXDOUBLE)
        tau = 0;
      else if (c < 2 * m)
        tau = sqrt (2 * c * m) * (1 + sqrt (c / (2 * m)) / 3 + c / (18 * m)) - c;
      else
        tau = m;
    }
  else
    tau = sim_time_to_seconds (f->p.interval);
  if (cost_s != NULL)
    *cost_s = c;
  if (mtbf_s != NULL)
    *mtbf_s = m;
  return tau;
}

void
sim__failures_job_arrived (SimFailures *f, SimJob *job)
{
  JobRec *r = new_rec (f, job);
  double cost_s, tau_s = sim__failures_interval_for (f, MAX (1, job->spec.gpus), &cost_s, NULL);
  double w = (double) job->work_left;

  r->restart = (double) f->p.restart + cost_s * 1e9; /* and reading the checkpoint back */
  if (tau_s > 0)
    {
      double n;
      r->tau = tau_s * 1e9;
      r->cost = cost_s * 1e9;
      n = MAX (0, ceil (w / r->tau) - 1);
      /* Held below a quarter of simulated time's range, so that no start
       * plus this work can overflow: a job with more work cannot finish in
       * any run (sim__failures_attach() refuses checkpoints that cost more
       * than MAX_CKPT_RATIO times the work between them). */
      if (n * r->cost < (double) (SIM_TIME_NEVER / 4) - w)
        job->work_left += (SimTime) llround (n * r->cost);
      else
        job->work_left = SIM_TIME_NEVER / 4;
      f->interval_sum += tau_s;
      f->interval_n++;
    }
}

/* Interrupts running JOB at NOW by fault FAULT (lost work) or moves it off
 * a drained node (FAULT NULL: it checkpoints first and loses nothing). */
static void
interrupt (SimFailures *f, SimJob *job, Fault *fault, SimTime now)
{
  JobRec *r = job_rec (f, job);
  double lost = 0, overhead;

  sim__kernel_sync_job (f->sim, job);
  if (r == NULL)
    {
      /* A job the module did not see arrive (none today): no checkpoints. */
      r = new_rec (f, job);
      r->restart = (double) f->p.restart;
      r->seg_left = job->work_left;
      r->open = TRUE;
    }
  if (fault != NULL)
    {
      double x = (double) (r->seg_left - job->work_left) - (double) r->seg_off;
      lost = close_run (f, r, job, job->n_preemptions, TRUE);
      overhead = r->restart;
      /* Work left becomes what it was when the run began, less what its
       * checkpoints saved, plus a new restart; a failure during the
       * restart itself (x < 0) leaves the rest of that restart owed. */
      if (x < 0)
        lost = MAX (x, -overhead);
      f->interruptions[fault->type]++;
      sim__kernel_note_interruption (f->sim);
    }
  else
    {
      /* Migration: a checkpoint now, then a restart elsewhere. */
      close_run (f, r, job, job->n_preemptions, FALSE);
      overhead = r->restart + r->cost;
      f->migrations++;
    }
  r->pending_off = (SimTime) llround (overhead);
  f->interrupting = job;
  f->interrupting_cause = fault != NULL ? sim__failure_type_name (fault->type) : NULL;
  sim__kernel_hold_job (f->sim, job, (SimTime) llround (overhead), (SimTime) llround (lost));
  f->interrupting = NULL;
  if (fault != NULL)
    g_ptr_array_add (fault->held, job);
  else
    sim__kernel_release_job (f->sim, job);
}

/* Whether running JOB is hit by a failure of COMP (takes nodes LO..HI). */
static gboolean
job_hit (SimFailures *f, const SimJob *job, guint comp, guint lo, guint hi)
{
  SimFailureType t = type_of (f, comp);

  if (t == SIM_FAILURE_SPINE || t == SIM_FAILURE_CORE)
    {
      guint first = G_MAXUINT;
      for (guint i = 0; i < job->n_gpus; i++)
        {
          guint l = leaf_of (f, sim_cluster_get_gpu (f->cluster, job->gpus[i])->node);
          if (first == G_MAXUINT)
            first = l;
          else if (l != first)
            return TRUE;
        }
      return FALSE;
    }
  if ((t == SIM_FAILURE_GPU || t == SIM_FAILURE_HBM) && f->p.drain == 1)
    {
      /* Only the jobs on the GPU itself; the others migrate at detection. */
      for (guint i = 0; i < job->n_gpus; i++)
        if (job->gpus[i] == comp - f->first[t])
          return TRUE;
      return FALSE;
    }
  if (t == SIM_FAILURE_SOFTWARE)
    lo = node_of (f, comp), hi = lo + 1;
  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint n = sim_cluster_get_gpu (f->cluster, job->gpus[i])->node;
      if (n >= lo && n < hi)
        return TRUE;
    }
  return FALSE;
}

static void
fail_component (SimFailures *f, guint comp, SimTime now)
{
  SimFailureType t = type_of (f, comp);
  Fault *fault = g_new0 (Fault, 1);
  g_autoptr(GPtrArray) hit = g_ptr_array_new ();
  guint lo, hi;

  f->failures[t]++;
  fault->comp = comp;
  fault->type = t;
  fault->at = now;
  fault->detected = -1;
  fault->held = g_ptr_array_new ();
  g_ptr_array_add (f->faults, fault);
  if (f->down_since[comp] < 0)
    f->down_since[comp] = now;
  nodes_out (f, comp, &lo, &hi);
  if (t == SIM_FAILURE_SOFTWARE)
    lo = node_of (f, comp), hi = lo + 1;
  for (GList *l = sim__kernel_get_running (f->sim)->head; l != NULL; l = l->next)
    if (job_hit (f, l->data, comp, lo, hi))
      g_ptr_array_add (hit, l->data);
  timeline_failure (f, f->faults->len - 1, hit->len);
  for (guint i = 0; i < hit->len; i++)
    interrupt (f, hit->pdata[i], fault, now);
  if (takes_nodes (t))
    for (guint n = lo; n < hi; n++)
      {
        f->down[n]++;
        f->hard[n] += t != SIM_FAILURE_GPU && t != SIM_FAILURE_HBM;
        refresh (f, n, now);
      }
  push (f, later (now, f->p.detect), EV_DETECT, f->faults->len - 1);
}

static void
detect (SimFailures *f, guint id, SimTime now)
{
  Fault *fault = f->faults->pdata[id];
  guint lo, hi;

  fault->detected = now;
  timeline_waits (f, id, now);
  for (guint i = 0; i < fault->held->len; i++)
    sim__kernel_release_job (f->sim, fault->held->pdata[i]);
  g_ptr_array_set_size (fault->held, 0);
  nodes_out (f, fault->comp, &lo, &hi);
  if (takes_nodes (fault->type))
    {
      /* Drain: the jobs still on the nodes move off them. */
      g_autoptr(GPtrArray) moving = g_ptr_array_new ();
      for (GList *l = sim__kernel_get_running (f->sim)->head; l != NULL; l = l->next)
        {
          const SimJob *job = l->data;
          for (guint i = 0; i < job->n_gpus; i++)
            {
              guint n = sim_cluster_get_gpu (f->cluster, job->gpus[i])->node;
              if (n >= lo && n < hi)
                {
                  g_ptr_array_add (moving, l->data);
                  break;
                }
            }
        }
      for (guint i = 0; i < moving->len; i++)
        interrupt (f, moving->pdata[i], NULL, now);
      for (guint n = lo; n < hi; n++)
        call_spare (f, n, now);
    }
  push (f, later (now, draw_repair (f, fault->type)), EV_REPAIRED, id);
}

static void
repaired (SimFailures *f, guint id, SimTime now)
{
  Fault *fault = f->faults->pdata[id];
  guint lo, hi;

  fault->repaired = TRUE;
  timeline_outage (f, id, now, TRUE);
  f->down_s[fault->type] += sim_time_to_seconds (now - f->down_since[fault->comp]);
  f->down_since[fault->comp] = -1;
  nodes_out (f, fault->comp, &lo, &hi);
  if (takes_nodes (fault->type))
    for (guint n = lo; n < hi; n++)
      {
        f->down[n]--;
        f->hard[n] -= fault->type != SIM_FAILURE_GPU && fault->type != SIM_FAILURE_HBM;
        if (f->down[n] > 0)
          continue;
        g_queue_remove (&f->waiting, GUINT_TO_POINTER (n + 1));
        if (f->replaced[n])
          {
            /* Its spare took its place: it becomes a spare. */
            f->replaced[n] = FALSE;
            spare_free (f, n, now);
            continue;
          }
        if (f->role[n] == ROLE_SPARE)
          {
            /* A spare repaired in the pool: a node waiting may take it. */
            g_queue_remove (&f->spare_pool, GUINT_TO_POINTER (n + 1));
            spare_free (f, n, now);
            continue;
          }
        if (f->role[n] == ROLE_SERVICE && (f->p.quarantine > 0 || f->p.avoid > 0))
          {
            /* Held out for burn-in: for good (quarantine), or while no
             * job waits (avoid_recent: see release_soft()). */
            f->quarantine_until[n] = later (now, f->p.quarantine > 0 ? f->p.quarantine : f->p.avoid);
            if (f->p.quarantine == 0 && !f->soft[n])
              {
                f->soft[n] = TRUE;
                f->n_soft++;
              }
            push (f, f->quarantine_until[n], EV_QUARANTINED, n);
          }
        refresh (f, n, now);
      }
  schedule_life (f, fault->comp, now);
}

static void
on_timer (SimSimulation *sim, SimTime now, gpointer data)
{
  SimFailures *f = data;

  f->timer = 0;
  while (f->heap_len > 0 && f->heap[0].when <= now)
    {
      Ev ev = pop (f);
      switch (ev.kind)
        {
        case EV_FAIL:
          fail_component (f, ev.arg, now);
          break;
        case EV_DETECT:
          detect (f, ev.arg, now);
          break;
        case EV_SWAPPED:
          f->role[ev.arg] = ROLE_SERVICE;
          refresh (f, ev.arg, now);
          break;
        case EV_REPAIRED:
          repaired (f, ev.arg, now);
          break;
        case EV_QUARANTINED:
          if (f->soft[ev.arg] && now >= f->quarantine_until[ev.arg])
            {
              f->soft[ev.arg] = FALSE;
              f->n_soft--;
            }
          refresh (f, ev.arg, now);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  arm (f);
}

gboolean
sim__failures_gpu_is_failed (SimFailures *f, guint gpu)
{
  guint node;

  g_return_val_if_fail (gpu < f->n_gpus, FALSE);
  node = sim_cluster_get_gpu (f->cluster, gpu)->node;
  return f->down_since[f->first[SIM_FAILURE_GPU] + gpu] >= 0 ||
         f->down_since[f->first[SIM_FAILURE_HBM] + gpu] >= 0 || f->hard[node] > 0;
}

const char *
sim__failures_interruption (SimFailures *f, const SimJob *job)
{
  return f != NULL && job == f->interrupting ? (f->interrupting_cause != NULL
                                                ? f->interrupting_cause : "migration") : NULL;
}

gboolean
sim__failures_node_is_down (SimFailures *f, guint node)
{
  g_return_val_if_fail (node < f->n_nodes, FALSE);
  return f->down[node] > 0;
}

/* ------------------------------------------------------------------------- */
/* The accumulator.                                                          */

/* Jobs wait: the nodes held back for a recent fault (avoid_recent) go
 * back to service, since others could not serve. */
static void
release_soft (SimSimulation *sim, SimTime now, gpointer data)
{
  SimFailures *f = data;

  f->release_timer = 0;
  for (guint n = 0; n < f->n_nodes && f->n_soft > 0; n++)
    if (f->soft[n])
      {
        f->soft[n] = FALSE;
        f->n_soft--;
        f->quarantine_until[n] = now;
        refresh (f, n, now);
      }
}

/* Nothing integrates over time (availability is kept per component from
 * its failure to its repair); a queue that held since the last change
 * releases the nodes avoided (a timer now: the state may not change
 * here). */
static void
acc_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  SimFailures *f = (SimFailures *) acc;

  if (held->queued > 0 && f->n_soft > 0 && f->release_timer == 0)
    f->release_timer = sim__kernel_add_timer (f->sim, now, release_soft, f);
}

static void
acc_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
               const char *class_name, SimTime now)
{
  SimFailures *f = (SimFailures *) acc;
  JobRec *r = job_rec (f, job);

  if (r == NULL)
    return;
  switch (event)
    {
    case SIM_JOB_STARTED:
      r->seg_left = job->work_left;
      r->seg_off = r->pending_off;
      r->pending_off = 0;
      r->open = TRUE;
      break;
    case SIM_JOB_PREEMPTED:
      if (job != f->interrupting)
        {
          /* A policy's preemption: its overhead already saved the state. */
          close_run (f, r, job, job->n_preemptions - 1, FALSE);
        }
      break;
    case SIM_JOB_FINISHED:
      close_run (f, r, job, job->n_preemptions, FALSE);
      end_job (f, r, job, now);
      ((SimJob *) job)->ext[f->slot].p = NULL;
      g_ptr_array_add (f->free_recs, r);
      break;
    case SIM_JOB_UNFINISHED:
      close_run (f, r, job, job->n_preemptions, FALSE);
      end_job (f, r, job, now);
      break;
    default:
      break;
    }
}

/* The `ettr` column of jobs.csv, for JOB as it finishes. */
static const char *
job_column (const SimJob *job, gpointer data)
{
  SimFailures *f = data;
  JobRec *r = job_rec (f, job);

  if (r == NULL)
    return "";
  if (r->ettr < 0)
    {
      close_run (f, r, job, job->n_preemptions, FALSE);
      end_job (f, r, job, job->end);
    }
  g_snprintf (f->column, sizeof f->column, "%.6f", r->ettr);
  return f->column;
}

static void
acc_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  SimFailures *f = (SimFailures *) acc;
  guint64 total = 0, interrupted = 0;
  double end_s = sim_time_to_seconds (info->end);

  for (guint i = 0; i < f->faults->len; i++)
    {
      Fault *fault = f->faults->pdata[i];
      if (fault->repaired)
        continue;
      timeline_outage (f, i, MAX (info->end, fault->at), FALSE);
      if (fault->detected < 0)
        timeline_waits (f, i, MAX (info->end, fault->at));
    }
  for (guint t = 0; t < SIM_FAILURE_N_TYPES; t++)
    {
      total += f->failures[t];
      interrupted += f->interruptions[t];
    }
  sim__report_add (report, "failures", (double) total, "count");
  sim__report_add (report, "interruptions", (double) interrupted, "count");
  for (guint t = 0; t < SIM_FAILURE_N_TYPES; t++)
    {
      g_autofree char *fn = g_strdup_printf ("failures_%s", sim__failure_type_name (t));
      g_autofree char *in = g_strdup_printf ("interruptions_%s", sim__failure_type_name (t));
      sim__report_add (report, fn, (double) f->failures[t], "count");
      sim__report_add (report, in, (double) f->interruptions[t], "count");
    }
  for (guint t = 0; t < SIM_FAILURE_N_TYPES; t++)
    {
      g_autofree char *an = g_strdup_printf ("availability_%s", sim__failure_type_name (t));
      guint n = f->first[t + 1] - f->first[t];
      double down = f->down_s[t];
      for (guint c = f->first[t]; c < f->first[t + 1]; c++)
        if (f->down_since[c] >= 0 && f->down_since[c] < info->end)
          down += sim_time_to_seconds (info->end - f->down_since[c]);
      sim__report_add (report, an, n > 0 && end_s > 0 ? 1.0 - down / (n * end_s) : 1.0,
                       "ratio");
    }
  sim__report_add (report, "migrations", (double) f->migrations, "count");
  sim__report_add (report, "lost_gpu_hours", f->lost_gpu_s / 3600, "GPU-h");
  sim__report_add (report, "checkpoint_gpu_hours", f->ckpt_gpu_s / 3600, "GPU-h");
  sim__report_add (report, "restart_gpu_hours", f->restart_gpu_s / 3600, "GPU-h");
  sim__report_add (report, "ettr", f->span_gpu_s > 0 ? f->useful_gpu_s / f->span_gpu_s : 1.0,
                   "ratio");
  sim__report_add (report, "spares_used", (double) f->swaps, "count");
  sim__report_add (report, "checkpoint_interval_s",
                   f->interval_n > 0 ? f->interval_sum / f->interval_n : 0, "s");
}

static void
acc_free (SimAccumulator *acc)
{
  SimFailures *f = (SimFailures *) acc;

  for (guint i = 0; i < f->faults->len; i++)
    {
      Fault *fault = f->faults->pdata[i];
      g_ptr_array_unref (fault->held);
      g_free (fault);
    }
  g_ptr_array_unref (f->faults);
  g_ptr_array_unref (f->recs);
  g_ptr_array_unref (f->free_recs);
  g_queue_clear (&f->spare_pool);
  g_queue_clear (&f->waiting);
  g_free (f->heap);
  g_free (f->down);
  g_free (f->hard);
  g_free (f->role);
  g_free (f->replaced);
  g_free (f->taken);
  g_free (f->restore);
  g_free (f->quarantine_until);
  g_free (f->soft);
  g_free (f->down_since);
  sim_rng_free (f->rng_fail);
  sim_rng_free (f->rng_repair);
  sim__failure_params_clear (&f->p);
  g_free (f);
}

static const SimAccumulatorVTable failures_vtable = {
  acc_advance, acc_job_event, acc_report, acc_free,
};

/* ------------------------------------------------------------------------- */
/* The failure log.                                                          */

/* Reads the log: rows `time,type[,index]`, time in seconds or with a unit
 * ("36h"), index the component within its type (0 if absent); a header
 * row starting with "time" and lines starting with # are skipped. */
static gboolean
read_log (SimFailures *f, const char *path, GError **error)
{
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;

  data = sim__read_file (path, SIM_READ_TEXT, NULL, error);
  if (data == NULL)
    return FALSE;
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) cols = NULL;
      char *line = g_strstrip (lines[i]);
      guint n;
      int t;
      SimTime at;
      gint64 index = 0;
      double secs;
      g_autoptr(GError) local = NULL;

      if (*line == '\0' || *line == '#' || (i == 0 && g_str_has_prefix (line, "time")))
        continue;
      cols = g_strsplit (line, ",", -1);
      n = g_strv_length (cols);
      if (n < 2 || n > 3)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: expected time,type[,index], "
                       "found %u fields", path, i + 1, n);
          return FALSE;
        }
      g_strstrip (cols[0]);
      g_strstrip (cols[1]);
      if (sim_parse_number (cols[0], 0, 1e12, &secs, NULL))
        at = sim_time_from_seconds (secs);
      else if (!sim_parse_duration (cols[0], &at, &local))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: time: %s", path, i + 1,
                       local->message);
          return FALSE;
        }
      t = sim__failure_type_lookup (cols[1]);
      if (t < 0)
        {
          g_autofree char *list = g_strjoinv (", ", (char **) (const char *[]) {
            "gpu", "hbm", "nvswitch", "nic", "cable", "node", "software", "leaf", "spine", "core",
            NULL });
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: type: unknown \"%s\" "
                       "(known: %s)", path, i + 1, cols[1], list);
          return FALSE;
        }
      if (n == 3 && !sim_parse_integer (g_strstrip (cols[2]), 0, G_MAXUINT32, &index, &local))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: index: %s", path, i + 1,
                       local->message);
          return FALSE;
        }
      if ((guint64) index >= f->first[t + 1] - f->first[t])
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s:%u: index: %s %" G_GINT64_FORMAT
                       " does not exist (the cluster has %u)", path, i + 1, cols[1], index,
                       f->first[t + 1] - f->first[t]);
          return FALSE;
        }
      push (f, at, EV_FAIL, f->first[t] + (guint) index);
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */

/* Rates and costs no system has, which would make a run never end or
 * overflow its times.  A cluster whose components fail together more than
 * once a simulated second (gpu_mtbf = 1s: every GPU failing every second,
 * repaired at once, interrupts its job before it can finish) is refused;
 * so is a run whose horizon would see more than MAX_FAULTS faults (each
 * kept for the report), and a checkpoint of the whole cluster that costs
 * more than MAX_CKPT_RATIO times the useful work between two of them or
 * more than a year (a 1 us interval, a checkpoint of 4 EB).  The largest
 * published rates are far inside: Llama 3's 16,384 GPUs saw 419
 * interruptions in 54 days, one every three hours. */
#define MAX_FAILURES_PER_S 1.0
#define MAX_FAULTS         1e7
#define MAX_CKPT_RATIO     1000.0

static gboolean
check_limits (SimFailures *f, const SimScenario *sc, GError **error)
{
  double rate = 0, worst = 0, tau, cost;
  int worst_type = -1;

  for (guint t = 0; f->p.log == NULL && t < SIM_FAILURE_N_TYPES; t++)
    {
      guint n = f->first[t + 1] - f->first[t];
      if (f->p.mtbf_s[t] > 0 && n > 0)
        {
          double r = n / f->p.mtbf_s[t];
          rate += r;
          if (r > worst)
            worst = r, worst_type = (int) t;
        }
    }
  if (worst_type >= 0 &&
      (rate > MAX_FAILURES_PER_S ||
       (sc->horizon != SIM_TIME_NEVER && rate * sim_time_to_seconds (sc->horizon) > MAX_FAULTS)))
    {
      g_autofree char *key = g_strdup_printf ("%s_mtbf", sim__failure_type_name (worst_type));
      guint n = f->first[worst_type + 1] - f->first[worst_type];

      if (rate > MAX_FAILURES_PER_S)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%u components of the cluster fail "
                     "on average every %.3g s together (%u of type %s every %.3g s each): "
                     "expected at most one failure a simulated second across the cluster",
                     f->first[SIM_FAILURE_N_TYPES], 1 / rate, n, sim__failure_type_name (worst_type),
                     f->p.mtbf_s[worst_type]);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "about %.3g failures over the "
                     "horizon: expected at most %.0f (a longer %s, or a shorter horizon)",
                     rate * sim_time_to_seconds (sc->horizon), MAX_FAULTS, key);
      sim__scenario_locate (sc, "failures", key, error);
      return FALSE;
    }
  tau = sim__failures_interval_for (f, MAX (1, f->n_gpus), &cost, NULL);
  if (tau > 0 && cost > 0 && (cost / tau > MAX_CKPT_RATIO || cost > 365 * 86400.0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "a checkpoint of the whole cluster "
                   "(%u GPUs) takes %.3g s for %.3g s of work between two: expected at most "
                   "%.0f times the work and a year (a smaller checkpoint_size, a faster "
                   "storage_bandwidth or a longer checkpoint_interval)", f->n_gpus, cost, tau,
                   MAX_CKPT_RATIO);
      sim__scenario_locate (sc, "failures", f->p.young_daly ? "checkpoint_size"
                                                            : "checkpoint_interval", error);
      return FALSE;
    }
  return TRUE;
}

static SimFailures *
failures_new (SimSimulation *sim, const SimScenario *sc, GError **error)
{
  SimFailures *f = g_new0 (SimFailures, 1);
  guint n;

  f->parent.vtable = &failures_vtable;
  f->sim = sim;
  f->cluster = sim__kernel_get_cluster (sim);
  f->faults = g_ptr_array_new ();
  f->recs = g_ptr_array_new_with_free_func (g_free);
  f->free_recs = g_ptr_array_new ();
  g_queue_init (&f->spare_pool);
  g_queue_init (&f->waiting);
  f->rng_fail = sim_rng_new (sc->seed, "failures");
  f->rng_repair = sim_rng_new (sc->seed, "repairs");
  if (!sim__failure_params_resolve (&f->p, sc, error))
    goto fail;
  if (f->p.seed_offset > 0)
    {
      sim_rng_free (f->rng_fail);
      sim_rng_free (f->rng_repair);
      f->rng_fail = sim_rng_new (sc->seed + f->p.seed_offset, "failures");
      f->rng_repair = sim_rng_new (sc->seed + f->p.seed_offset, "repairs");
    }
  f->n_nodes = n = sim_cluster_get_n_nodes (f->cluster);
  f->n_gpus = sim_cluster_get_n_gpus (f->cluster);
  if (f->p.spares >= n)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%u spares, but the cluster has %u "
                   "nodes (spares are taken from its last nodes)", f->p.spares, n);
      sim__scenario_locate (sc, "failures", "spares", error);
      goto fail;
    }
  f->first[0] = 0;
  for (guint t = 0; t < SIM_FAILURE_N_TYPES; t++)
    {
      f->first[t + 1] = f->first[t] + type_count (f, t);
      f->scale[t] = f->p.mtbf_s[t] / tgamma (1.0 + 1.0 / f->p.shape[t]);
    }
  if (!check_limits (f, sc, error))
    goto fail;
  f->down = g_new0 (guint, n);
  f->hard = g_new0 (guint, n);
  f->role = g_new0 (guint8, n);
  f->replaced = g_new0 (gboolean, n);
  f->taken = g_new0 (gboolean, n);
  f->restore = g_new0 (gboolean, n);
  f->quarantine_until = g_new0 (SimTime, n);
  f->soft = g_new0 (gboolean, n);
  f->down_since = g_new (SimTime, f->first[SIM_FAILURE_N_TYPES]);
  for (guint c = 0; c < f->first[SIM_FAILURE_N_TYPES]; c++)
    f->down_since[c] = -1;
  for (guint i = n - f->p.spares; i < n; i++)
    {
      f->role[i] = ROLE_SPARE;
      g_queue_push_tail (&f->spare_pool, GUINT_TO_POINTER (i + 1));
      refresh (f, i, 0);
    }
  if (f->p.log != NULL)
    {
      if (!read_log (f, f->p.log, error))
        goto fail;
    }
  else
    for (guint c = 0; c < f->first[SIM_FAILURE_N_TYPES]; c++)
      schedule_life (f, c, 0);
  arm (f);
  return f;

fail:
  acc_free (&f->parent);
  return NULL;
}

/* The module's key among the simulation's extensions. */
static const char module_key = 0;

static void
on_arrived (gpointer data, SimJob *job, SimTime now)
{
  sim__failures_job_arrived (data, job);
}

static const char *
cause (gpointer data, const SimJob *job)
{
  return sim__failures_interruption (data, job);
}

gboolean
sim__failures_attach (SimSimulation *sim, guint flags, GError **error)
{
  const SimScenario *sc = sim__kernel_get_scenario (sim);
  SimFailures *f;

  if (sc->failures == NULL)
    return TRUE;
  f = failures_new (sim, sc, error);
  if (f == NULL)
    return FALSE;
  /* The simulation owns it as an accumulator; the extension only finds it. */
  f->slot = sim__kernel_claim_job_slots (sim, 1);
  sim__kernel_add_accumulator (sim, &f->parent);
  sim__kernel_set_extension (sim, &module_key, f, NULL);
  sim__kernel_set_job_column (sim, "ettr", job_column, f);
  sim__kernel_connect (sim, SIM_HOOK_JOB_ARRIVED, G_CALLBACK (on_arrived), f);
  sim__kernel_set_cause_func (sim, cause, f);
  sim__kernel_count_interruptions (sim);
  return TRUE;
}

SimFailures *
sim__failures_get (SimSimulation *sim)
{
  return sim__kernel_get_extension (sim, &module_key);
}
