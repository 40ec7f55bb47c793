/* sim-sources.c: the registry of workload sources (sim-sources.h). */
#include "config.h"

#include "scenario/sim-sources.h"
#include "workload/sim-openb.h"
#include "workload/sim-traces.h"
#include "workload/sim-trace-formats.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "workload/sim-variation.h"
#include "workload/sim-workload-private.h"

#include <string.h>

static gboolean
next_none (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  return FALSE;
}

static void
finalize_none (SimWorkload *workload)
{
}

static const SimWorkloadVTable none_vtable = { next_none, finalize_none, NULL };

static SimWorkload *
open_synthetic (const SimScenario *sc, const SimSourceContext *ctx, GError **error)
{
  /* No classes: a scenario without [workload] that only serves models. */
  if (sc->generator.n_classes == 0)
    {
      SimWorkload *none = g_new0 (SimWorkload, 1);
      sim__workload_init (none, &none_vtable, "none");
      return none;
    }
  return sim_workload_new_generator (&sc->generator, sc->seed, error);
}

/* A trace's reader, varied by the seed as [workload] variation says
 * (sim-variation.h): the reader itself without it. */
static SimWorkload *
vary (const SimScenario *sc, SimWorkload *reader)
{
  return sim__variation_wrap (reader, sc->variation, sc->variation_time, sc->seed);
}

static SimWorkload *
open_swf (const SimScenario *sc, const SimSourceContext *ctx, GError **error)
{
  return vary (sc, sim_workload_new_swf (sc->trace_path, &sc->swf, error));
}

static SimWorkload *
open_philly (const SimScenario *sc, const SimSourceContext *ctx, GError **error)
{
  return vary (sc, sim_workload_new_philly (sc->trace_path, &sc->philly, error));
}

static SimWorkload *
open_helios (const SimScenario *sc, const SimSourceContext *ctx, GError **error)
{
  return vary (sc, sim_workload_new_helios (sc->trace_path, &sc->trace, error));
}

static SimWorkload *
open_slurm (const SimScenario *sc, const SimSourceContext *ctx, GError **error)
{
  return vary (sc, sim_workload_new_slurm (sc->trace_path, &sc->trace, error));
}

static SimWorkload *
open_openb (const SimScenario *sc, const SimSourceContext *ctx, GError **error)
{
  SimOpenbConfig oc = { sc->trace.max_jobs, sc->trace.skip_invalid, sc->trace.rebase_time };

  return vary (sc, sim_workload_new_openb (sc->trace_path, &oc, error));
}

static SimWorkload *
open_pai (const SimScenario *sc, const SimSourceContext *ctx, GError **error)
{
  return vary (sc, sim_workload_new_pai (sc->trace_path, sc->task_path, &sc->trace,
                                         sc->pai_tasks, error));
}

static SimWorkload *
open_native (const SimScenario *sc, const SimSourceContext *ctx, GError **error)
{
  SimWorkload *w = sim_workload_new_native (sc->trace_path, &sc->trace, error);

  if (w != NULL && ctx->gpu_models != NULL)
    sim__workload_native_set_names (w, ctx->gpu_models, ctx->mig_profiles);
  return vary (sc, w);
}

/* A Gavel trace: each job type's steps per second on the reference GPU,
 * from its class's throughput table (the simulation resolves them). */
static SimWorkload *
open_gavel (const SimScenario *sc, const SimSourceContext *ctx, GError **error)
{
  g_autofree SimGavelRate *rates = g_new0 (SimGavelRate, MAX (sc->generator.n_classes, 1));

  g_return_val_if_fail (ctx != NULL && ctx->class_rates != NULL, NULL);
  for (guint c = 0; c < sc->generator.n_classes; c++)
    {
      rates[c].job_type = sc->generator.classes[c].name;
      rates[c].steps_per_second = ctx->class_rates[c];
      rates[c].scaling = &sc->generator.classes[c].scaling;
    }
  return vary (sc, sim_workload_new_gavel (sc->trace_path, &sc->trace, rates,
                                           sc->generator.n_classes, error));
}

static char *
describe_synthetic (const SimScenario *sc, const SimWorkload *w)
{
  if (sc->generator.n_classes == 0)
    return g_strdup ("no jobs beside the [serving] deployments");
  return g_strdup_printf ("%s, %u class(es), %.4g jobs/h", w->description,
                          sim_workload_get_n_classes (w), sc->generator.rate * 3600);
}

static char *
describe_vcs (const SimScenario *sc, const SimWorkload *w)
{
  return g_strdup_printf ("%s, %u virtual cluster(s)", w->description,
                          sim_workload_get_n_classes (w));
}

static char *
describe_accounts (const SimScenario *sc, const SimWorkload *w)
{
  return g_strdup_printf ("%s, %u account(s)", w->description, sim_workload_get_n_classes (w));
}

static char *
describe_classes (const SimScenario *sc, const SimWorkload *w)
{
  return g_strdup_printf ("%s, %u class(es)", w->description, sim_workload_get_n_classes (w));
}

static char *
describe_swf (const SimScenario *sc, const SimWorkload *w)
{
  return g_strdup_printf ("%s, %u processor(s) per GPU", w->description,
                          (guint) sc->swf.processors_per_gpu);
}

static char *
describe_plain (const SimScenario *sc, const SimWorkload *w)
{
  return g_strdup (w->description);
}

/* In the order of #SimWorkloadSource. */
static const SimSourceInfo sources[] = {
  { SIM_SOURCE_SYNTHETIC, TRUE, FALSE, open_synthetic, describe_synthetic },
  { SIM_SOURCE_SWF, FALSE, TRUE, open_swf, describe_swf },
  { SIM_SOURCE_PHILLY, FALSE, TRUE, open_philly, describe_vcs },
  { SIM_SOURCE_HELIOS, FALSE, TRUE, open_helios, describe_vcs },
  { SIM_SOURCE_SLURM, FALSE, TRUE, open_slurm, describe_accounts },
  { SIM_SOURCE_OPENB, FALSE, TRUE, open_openb, describe_plain },
  { SIM_SOURCE_PAI, FALSE, TRUE, open_pai, describe_classes },
  { SIM_SOURCE_GAVEL, TRUE, TRUE, open_gavel, describe_classes },
  { SIM_SOURCE_NATIVE, FALSE, TRUE, open_native, describe_classes },
};

const SimSourceInfo *
sim__source_info (SimWorkloadSource source)
{
  g_return_val_if_fail ((guint) source < G_N_ELEMENTS (sources), &sources[0]);
  g_assert (sources[source].source == source);
  return &sources[source];
}

guint64
sim__source_job_limit (const SimScenario *sc)
{
  return sc->source == SIM_SOURCE_SYNTHETIC ? sc->generator.max_jobs : 0;
}

guint64
sim__source_expected_jobs (const SimScenario *sc)
{
  double jobs;

  if (sc->source != SIM_SOURCE_SYNTHETIC)
    return 0;
  jobs = sc->horizon != SIM_TIME_NEVER ? sc->generator.rate * sim_time_to_seconds (sc->horizon)
                                       : (double) sc->generator.max_jobs;
  if (sc->generator.max_jobs > 0)
    jobs = MIN (jobs, (double) sc->generator.max_jobs);
  return (guint64) MIN (jobs, 1e19);
}

