/* sim-class-scaling.c: the synthetic classes' speeds, ready for a run. */
#include "config.h"

#include "kernel/sim-class-scaling.h"
#include "scenario/sim-scenario-private.h"
#include "cluster/sim-cluster-private.h"
#include "scenario/sim-sources.h"
#include "cluster/sim-mig.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <string.h>

/* A class's scaling, ready for the hot path: its speed-up cached for
 * every GPU count its jobs can hold, its throughput table resolved to
 * catalogue models, and, for a moldable class, the most GPUs the
 * efficiency rule lets a job ask for. */
typedef struct {
  const SimJobClassConfig *config;
  double  *speedup;           /* [n] for n = 0 .. max_n; [0] unused */
  guint    max_n;
  const SimGpuModel *thr_models[SIM_THROUGHPUT_MAX_MODELS];
  double   thr_reference;     /* throughput on the reference model; 0: no table */
  guint32  moldable_cap;      /* 0: not moldable */
} ClassScaling;

struct _SimClassScaling {
  const SimCluster  *cluster;
  double             reference_tflops; /* the reference GPU's; 0: every GPU runs at speed 1 */
  const SimGpuModel *reference_model;  /* (nullable) the reference GPU */
  ClassScaling      *classes;          /* per synthetic class; NULL for traces */
  guint              n_classes;
  guint              n_cluster_gpus;
  SimIdleIterationFunc idle;
  gpointer           idle_data;
  gboolean           uniform;          /* no classes, and every GPU at the reference's speed:
                                        * every job runs at 1 */
};

void
sim__unknown_model (const SimScenario *sc, const SimCatalogue *catalogue, const char *group,
                    const char *key, const char *what, const char *name, GError **error)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
               "no %s model \"%s\" in the catalogue%s (see `gpusim models`)", what, name,
               sim__did_you_mean (sim_catalogue_suggest (catalogue, name)));
  sim__scenario_locate (sc, group, key, error);
}

void
sim__class_scaling_free (SimClassScaling *cs)
{
  if (cs == NULL)
    return;
  for (guint c = 0; c < cs->n_classes; c++)
    g_free (cs->classes[c].speedup);
  g_free (cs->classes);
  g_free (cs);
}

/* JOB's class's scaling, or NULL (trace jobs, which have no curve). */
static const ClassScaling *
class_of (const SimClassScaling *cs, const SimJob *job)
{
  if (job->spec.job_class >= cs->n_classes)
    return NULL;
  return &cs->classes[job->spec.job_class];
}

static double
cached_speedup (const ClassScaling *c, guint n)
{
  return n <= c->max_n ? c->speedup[n] : sim_scaling_speedup (&c->config->scaling, n);
}

gboolean
sim__class_scaling_measured (const SimClassScaling *cs, const SimJob *job)
{
  const ClassScaling *c = class_of (cs, job);

  return c != NULL && (c->config->scaling.kind == SIM_SCALING_AMDAHL ||
                       c->config->scaling.kind == SIM_SCALING_TABLE);
}

/* The GPU count JOB's duration is measured at: the class's reference_gpus,
 * else the most GPUs a job of a moldable class may take, else what the
 * job asks for. */
static guint
reference_count (const ClassScaling *c, const SimJob *job)
{
  if (c->config->reference_gpus > 0)
    return c->config->reference_gpus;
  if (c->config->gpus_min > 0)
    return c->config->gpu_values[0];
  return job->spec.gpus;
}

/* The scaling factor of a job that runs on its GPUs: S(N) / S(N_ref), with
 * N the GPUs it holds (sim-scaling.h).  A rigid job measured at its own
 * count runs at 1, as it always did.  For scaling = comm (and linear) this
 * is the compute part, N / N_ref; the communication model then adds what
 * the collectives cost (sim__job_comm_rate()). */
static double
scaling_factor (const SimClassScaling *cs, const SimJob *job)
{
  const ClassScaling *c = class_of (cs, job);
  guint ref;

  if (c == NULL || job->spec.mig_profile != NULL)
    return 1.0;
  ref = reference_count (c, job);
  if (job->n_gpus == ref)
    return 1.0;
  return cached_speedup (c, job->n_gpus) / cached_speedup (c, ref);
}

/* The speed of JOB on one GPU of MODEL against the reference GPU: its
 * class's measured throughput ratio when its table lists MODEL, else the
 * ratio of dense FP16 TFLOPS.  A GPU whose speed is not in the catalogue
 * counts as the reference's. */
static double
model_speed (const SimClassScaling *cs, const SimJob *job, const SimGpuModel *model)
{
  const ClassScaling *c = class_of (cs, job);
  double t;

  if (c != NULL && c->thr_reference > 0 && model != NULL)
    for (guint k = 0; k < c->config->throughput.n_models; k++)
      if (c->thr_models[k] == model)
        return c->config->throughput.throughput[k] / c->thr_reference;
  t = model != NULL ? model->fp16_tflops : 0;
  return t > 0 ? t / cs->reference_tflops : 1.0;
}

void
sim__class_scaling_mold (const SimClassScaling *cs, SimJob *job)
{
  const ClassScaling *c = class_of (cs, job);

  if (c != NULL && c->moldable_cap > 0)
    job->spec.gpus = MAX (job->spec.gpus_min, MIN (job->spec.gpus, c->moldable_cap));
}

/* The speed of JOB's GPUs against the reference GPU: the slowest of them
 * sets the pace of a synchronous job.  GPUs whose speed is not in the
 * catalogue count as the reference's. */
static double
gpu_speed (const SimClassScaling *cs, const SimJob *job)
{
  double slowest = G_MAXDOUBLE;
  guint last = G_MAXUINT;
  const SimGpuModel *last_model = NULL;
  const SimGpu *gpus;

  if (cs->reference_tflops <= 0)
    return 1.0;
  gpus = sim__cluster_gpus (cs->cluster);
  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint n = gpus[job->gpus[i]].node;
      const SimNode *node;
      /* (A node's GPUs come together, and a node's model is one: each
       * model's speed is taken once in a row.) */
      if (n == last)
        continue;
      last = n;
      node = sim_cluster_get_node (cs->cluster, n);
      if (i > 0 && node->gpu_model == last_model)
        continue;
      last_model = node->gpu_model;
      slowest = MIN (slowest, model_speed (cs, job, node->gpu_model));
    }
  return slowest == G_MAXDOUBLE ? 1.0 : slowest;
}

double
sim__class_scaling_speed (gpointer data, const SimJob *job)
{
  const SimClassScaling *cs = data;

  if (cs->uniform)
    return 1.0;
  return gpu_speed (cs, job) * scaling_factor (cs, job);
}

/* The section a class's keys are in, for messages. */
static char *
class_group (const SimScenario *sc, const SimJobClassConfig *cls)
{
  if (sc->generator.n_classes == 1 && strcmp (cls->name, "default") == 0)
    return g_strdup ("workload");
  return g_strdup_printf ("class %s", cls->name);
}

/* A communicating class's speed-up on N GPUs, on an idle copy of the
 * fabric (see sim_simulation_get_class_speedup()).  Its iteration is the
 * compute time at its reference count N_ref, so one GPU computes for
 * iteration x N_ref and N GPUs for iteration x N_ref / N, plus the
 * collectives a job starts (sim-job-comm.h), less what overlaps compute. */
static gboolean
comm_speedup (const SimClassScaling *cs, const SimJobClassConfig *cls, guint n, double *out,
              GError **error)
{
  const SimCommProfile *c = &cls->comm;
  guint ref = cls->reference_gpus;
  double compute1, compute, iteration = 0;

  for (guint g = 0; ref == 0 && g < cls->n_gpu_values; g++)
    ref = MAX (ref, cls->gpu_values[g]);
  compute1 = sim_time_to_seconds (c->iteration) * MAX (ref, 1);
  if (n <= 1)
    {
      *out = 1.0;
      return TRUE;
    }
  if (n > cs->n_cluster_gpus)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "class %s on %u GPUs: the cluster has %u", cls->name, n, cs->n_cluster_gpus);
      return FALSE;
    }
  compute = compute1 / n;
  if (!cs->idle (cs->idle_data, c, n, compute, &iteration, error))
    return FALSE;
  *out = compute1 / iteration;
  return TRUE;
}

static gboolean
class_speedup (const SimClassScaling *cs, const SimJobClassConfig *cls, guint n, double *out,
               GError **error)
{
  if (cls->comm.iteration > 0 && cs->idle != NULL &&
      (cls->scaling.kind == SIM_SCALING_COMM || cls->scaling.kind == SIM_SCALING_LINEAR))
    return comm_speedup (cs, cls, n, out, error);
  *out = sim_scaling_speedup (&cls->scaling, n);
  return TRUE;
}

/* Readies one class: speed-ups cached for the GPU counts its jobs can
 * hold, its throughput table checked against the catalogue, and the
 * efficiency cap of a moldable class. */
static gboolean
setup_class (SimClassScaling *cs, const SimScenario *sc, const SimCatalogue *catalogue,
             guint k, GError **error)
{
  const SimJobClassConfig *cls = &sc->generator.classes[k];
  ClassScaling *c = &cs->classes[k];
  const SimThroughputTable *thr = &cls->throughput;

  c->config = cls;
  c->max_n = MAX (cls->reference_gpus, 1);
  for (guint g = 0; g < cls->n_gpu_values; g++)
    c->max_n = MAX (c->max_n, cls->gpu_values[g]);
  c->speedup = g_new0 (double, c->max_n + 1);
  for (guint n = 1; n <= c->max_n; n++)
    c->speedup[n] = sim_scaling_speedup (&cls->scaling, n);

  for (guint m = 0; m < thr->n_models; m++)
    {
      c->thr_models[m] = sim_catalogue_lookup_gpu (catalogue, thr->models[m]);
      if (c->thr_models[m] == NULL)
        {
          g_autofree char *group = class_group (sc, cls);
          sim__unknown_model (sc, catalogue, group, "throughput", "GPU",
                                       thr->models[m], error);
          return FALSE;
        }
      if (c->thr_models[m] == cs->reference_model)
        c->thr_reference = thr->throughput[m];
    }
  if (thr->n_models > 0 && c->thr_reference == 0)
    {
      g_autofree char *group = class_group (sc, cls);
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "the throughput table does not list the reference GPU %s, on which "
                   "durations are measured: add it (or set [workload] reference_gpu)",
                   cs->reference_model != NULL ? cs->reference_model->name : "(none)");
      sim__scenario_locate (sc, group, "throughput", error);
      return FALSE;
    }

  if (cls->gpus_min > 0 && sc->moldable_efficiency > 0)
    {
      guint max = cls->gpu_values[0];
      c->moldable_cap = cls->gpus_min;
      for (guint n = MIN (max, cs->n_cluster_gpus); n > cls->gpus_min; n--)
        {
          double v;
          if (!class_speedup (cs, cls, n, &v, error))
            return FALSE;
          if (v / n >= sc->moldable_efficiency - 1e-12)
            {
              c->moldable_cap = n;
              break;
            }
        }
    }
  return TRUE;
}

SimClassScaling *
sim__class_scaling_new (const SimScenario *sc, const SimCatalogue *catalogue,
                        const SimCluster *cluster, SimIdleIterationFunc idle, gpointer idle_data,
                        GError **error)
{
  SimClassScaling *cs = g_new0 (SimClassScaling, 1);
  const SimGpuModel *ref;

  cs->cluster = cluster;
  cs->n_cluster_gpus = sim_cluster_get_n_gpus (cluster);
  cs->idle = idle;
  cs->idle_data = idle_data;
  /* Durations are run times on the reference GPU; jobs on other GPUs
   * progress at the ratio of dense FP16/BF16 throughput.  A homogeneous
   * cluster runs at speed 1. */
  if (sc->reference_gpu != NULL)
    {
      ref = sim_catalogue_lookup_gpu (catalogue, sc->reference_gpu);
      if (ref == NULL)
        {
          sim__unknown_model (sc, catalogue, "workload", "reference_gpu", "GPU",
                                       sc->reference_gpu, error);
          sim__class_scaling_free (cs);
          return NULL;
        }
    }
  else
    ref = sim_cluster_get_pool (cluster, 0)->gpu_model;
  cs->reference_tflops = ref != NULL ? ref->fp16_tflops : 0;
  cs->reference_model = ref;

  /* A Gavel trace's job types are classes with throughput tables too. */
  if (!sim__source_info (sc->source)->has_classes)
    {
      /* Without classes a job's speed is its slowest GPU's TFLOPS over the
       * reference's (1 for a GPU without the figure), times 1: exactly 1
       * when every pool's GPU has the reference's figure or none. */
      cs->uniform = TRUE;
      for (guint p = 0; p < sim_cluster_get_n_pools (cluster); p++)
        {
          const SimGpuModel *gpu = sim_cluster_get_pool (cluster, p)->gpu_model;
          double t = gpu != NULL ? gpu->fp16_tflops : 0;
          cs->uniform &= cs->reference_tflops <= 0 || t <= 0 || t == cs->reference_tflops;
        }
      return cs;
    }
  cs->classes = g_new0 (ClassScaling, sc->generator.n_classes);
  cs->n_classes = sc->generator.n_classes;
  for (guint k = 0; k < sc->generator.n_classes; k++)
    if (!setup_class (cs, sc, catalogue, k, error))
      {
        sim__class_scaling_free (cs);
        return NULL;
      }
  return cs;
}

guint
sim__class_scaling_get_n_classes (const SimClassScaling *cs)
{
  return cs != NULL ? cs->n_classes : 0;
}

const char *
sim__class_scaling_get_name (const SimClassScaling *cs, guint job_class)
{
  if (cs == NULL || job_class >= cs->n_classes)
    return NULL;
  return cs->classes[job_class].config->name;
}

gboolean
sim__class_scaling_speedup (const SimClassScaling *cs, guint job_class, guint n, double *out,
                            GError **error)
{
  if (job_class >= sim__class_scaling_get_n_classes (cs))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "no job class %u: the workload has %u synthetic class(es)", job_class,
                   sim__class_scaling_get_n_classes (cs));
      return FALSE;
    }
  if (n == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "a speed-up needs at least one GPU");
      return FALSE;
    }
  return class_speedup (cs, cs->classes[job_class].config, n, out, error);
}

double *
sim__class_scaling_dup_rates (const SimClassScaling *cs)
{
  double *rates;

  if (cs == NULL || cs->classes == NULL)
    return NULL;
  rates = g_new (double, cs->n_classes);
  for (guint c = 0; c < cs->n_classes; c++)
    rates[c] = cs->classes[c].thr_reference;
  return rates;
}
