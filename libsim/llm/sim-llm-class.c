/* sim-llm-class.c: a job class described as planners describe training (a
 * model, a layout and a token budget) turned into what the simulation runs:
 * a GPU count, a duration and a communication profile (sim-workload.h's
 * SimCommProfile, timed on the fabric by fabric/sim-job-comm.h while the
 * jobs run, under the scenario's sharing mode).
 *
 * The step is split in two.  Its compute (the slowest stage's forward and
 * backward passes of every micro-batch, the pipeline's bubble and the
 * optimizer) comes from the training model with collectives left out:
 * that is the profile's iteration, and the budget's steps times it the
 * job's duration (which counts compute only).  Its traffic becomes the
 * profile's bytes: the gradient exchange (ZeRO 1 and 2 reduce-scatter FP32
 * gradients and gather BF16 weights, as much traffic as an all-reduce of
 * 3 bytes per parameter; ZeRO 0 all-reduces 4; ZeRO 3 does it for every
 * micro-batch), the tensor-parallel all-reduces of every layer and
 * micro-batch, and the pipeline's activations and their gradients.  The
 * run then times these on the GPUs the job was given, with its
 * neighbours' traffic.  The profile hides gradient traffic behind compute
 * up to the share the layout allows: the last micro-batch's backward pass
 * over the exchange's time on the nodes' NICs, idle.  What the profile
 * cannot say: context-parallel and expert all-to-all traffic (counted in
 * `gpusim llm`, not in the run), and the tensor-parallel overlap.
 */
#include "config.h"

#include "llm/sim-llm-private.h"
#include "core/sim-error.h"
#include "kernel/sim-simulation.h"
#include "workload/sim-workload.h"
#include "scenario/sim-scenario-private.h"

#include <math.h>
#include <string.h>

/* The training model of a class's jobs: a catalogue model, or an
 * [llm NAME] section of the scenario. */
static SimLlmModel *
class_model (GKeyFile *kf, const char *name, const SimScenario *sc, GError **error)
{
  g_autofree char *group = g_strdup_printf ("llm %s", name);

  if (g_key_file_has_group (kf, group))
    return sim__llm_model_read (kf, group, sc->path ? sc->path : "scenario", NULL, name, error);
  return sim_llm_model_load (name, (const char * const *) sc->model_dirs, error);
}

/* The node model the class's jobs run on: the first pool whose GPU model
 * the class allows. */
static const SimNodeModel *
class_node (const SimCatalogue *cat, const SimScenario *sc, const SimJobClassConfig *cls,
            const SimGpuModel **gpu, GError **error)
{
  for (guint i = 0; i < sc->n_pools; i++)
    {
      const SimPoolConfig *p = &sc->pools[i];
      const SimNodeModel *node;
      const SimGpuModel *g;
      if (p->node_model == NULL)
        continue;
      node = sim_catalogue_lookup_node (cat, p->node_model);
      if (node == NULL)
        continue;
      g = p->gpu_model ? sim_catalogue_lookup_gpu (cat, p->gpu_model) : node->gpu;
      if (g == NULL)
        continue;
      if (cls->gpu_models != NULL)
        {
          g_auto(GStrv) allowed = g_strsplit (cls->gpu_models, "|", -1);
          gboolean ok = FALSE;
          for (guint k = 0; allowed[k] != NULL && !ok; k++)
            ok = g_ascii_strcasecmp (allowed[k], g->name) == 0;
          if (!ok)
            continue;
        }
      *gpu = g;
      return node;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
               "no pool of the scenario has a node model and GPU the class may run on");
  return NULL;
}

gboolean
sim__llm_class_derive (GKeyFile *kf, const char *group, const SimScenario *sc,
                       SimJobClassConfig *cls, const char **key, GError **error)
{
  g_autofree char *name = g_key_file_get_value (kf, group, "llm_model", NULL);
  g_autofree char *layout_text = g_key_file_get_value (kf, group, "llm_layout", NULL);
  g_autofree char *tokens_text = g_key_file_get_value (kf, group, "llm_tokens", NULL);
  g_autoptr(SimLlmModel) m = NULL;
  g_autoptr(SimCatalogue) cat = NULL;
  g_autoptr(SimLlmSystem) sys = NULL;
  SimCluster *cluster = NULL;
  const SimNodeModel *node;
  const SimGpuModel *gpu = NULL;
  SimLlmLayout l;
  SimLlmEstimate e;
  double T, layers_stage, per_gpu_nic, dp_bytes, window, dp_time;
  guint gpus;
  gboolean ok;

  *key = NULL;
  if (name == NULL)
    {
      if (layout_text != NULL || tokens_text != NULL)
        {
          *key = layout_text != NULL ? "llm_layout" : "llm_tokens";
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "a key of a language-model class: expected llm_model as well");
          return FALSE;
        }
      return TRUE;
    }
  *key = "llm_model";
  m = class_model (kf, g_strstrip (name), sc, error);
  if (m == NULL)
    return FALSE;

  *key = "llm_layout";
  sim_llm_layout_init (&l);
  if (layout_text != NULL && !sim_llm_layout_parse (&l, layout_text, error))
    return FALSE;
  if (tokens_text != NULL)
    {
      *key = "llm_tokens";
      if (!sim_llm_layout_set (&l, "tokens", tokens_text, error))
        return FALSE;
      if (l.tokens <= 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%s: expected a token budget above 0", tokens_text);
          return FALSE;
        }
      *key = "llm_layout";
    }
  if (l.dp == 0 && l.gpus == 0)
    {
      if (cls->n_gpu_values != 1)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "the job's GPUs: expected dp or gpus in llm_layout, or one value of "
                       "gpus in the class");
          return FALSE;
        }
      l.gpus = cls->gpu_values[0];
    }

  if (!sim__scenario_check_models (sc, error))
    return FALSE;
  cat = sim_catalogue_new_default ((const char * const *) sc->model_dirs, error);
  if (cat == NULL)
    return FALSE;
  node = class_node (cat, sc, cls, &gpu, error);
  if (node == NULL)
    return FALSE;
  gpus = l.gpus > 0 ? l.gpus : l.tp * l.pp * l.cp * l.dp;
  cluster = sim_cluster_new ();
  {
    guint per_node = node->gpus > 0 ? node->gpus : 1;
    ok = sim_cluster_add_pool (cluster, "llm", node, gpu, 0,
                               MAX (1u, (gpus + per_node - 1) / per_node), error);
  }
  if (ok)
    sys = sim_llm_system_new (cluster, NULL, error);
  ok = sys != NULL && sim_llm_estimate (sys, m, &l, &e, error);
  if (!ok)
    {
      g_clear_pointer (&sys, sim_llm_system_free);
      sim_cluster_free (cluster);
      return FALSE;
    }
  g_clear_pointer (&sys, sim_llm_system_free);
  sim_cluster_free (cluster);

  /* The jobs: their GPUs and, for a budget, the compute it takes. */
  g_free (cls->gpu_values);
  g_free (cls->gpu_weights);
  cls->gpu_values = g_new (guint32, 1);
  cls->gpu_weights = g_new (double, 1);
  cls->gpu_values[0] = e.gpus;
  cls->gpu_weights[0] = 1;
  cls->n_gpu_values = 1;
  cls->gpus_min = 0;
  if (l.tokens > 0)
    {
      g_free (cls->duration.values);
      g_free (cls->duration.weights);
      memset (&cls->duration, 0, sizeof cls->duration);
      cls->duration.kind = SIM_DIST_CONSTANT;
      cls->duration.mean = e.train_time;
    }
  else if (cls->duration.mean == 0 && cls->duration.median == 0 && cls->duration.n_values == 0)
    {
      *key = "llm_tokens";
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "the jobs' length: expected llm_tokens (a token budget) or duration");
      return FALSE;
    }

  /* Its communication profile. */
  T = (double) l.micro_batch * (l.seq_length ? l.seq_length : m->seq_length) / l.cp;
  layers_stage = ceil ((double) m->layers / l.pp);
  cls->comm.iteration = (SimTime) llround (e.iteration_time * 1e9);
  cls->comm.tp = l.tp;
  cls->comm.pp = l.pp;
  cls->comm.tp_bytes = l.tp > 1
    ? (guint64) llround (2.0 * T * m->hidden * layers_stage * e.micro_batches
                         * (l.recompute == SIM_LLM_RECOMPUTE_FULL ? 6 : 4))
    : 0;
  cls->comm.pp_bytes = l.pp > 1
    ? (guint64) llround (2.0 * 2.0 * T * m->hidden / l.tp * e.micro_batches * l.virtual_stages)
    : 0;
  dp_bytes = e.parameters * (l.zero_stage == 0 ? 4 : l.zero_stage == 3 ? 4.0 * e.micro_batches
                                                                        : 3);
  cls->comm.dp_bytes = e.dp * l.cp > 1 ? (guint64) llround (dp_bytes) : 0;
  /* The share of the gradient exchange the layout hides: the last
   * micro-batch's backward pass (a third of its two thirds of the step
   * per micro-batch) against the exchange's time on idle NICs, each GPU
   * moving about twice its share of the model's gradients. */
  per_gpu_nic = node->nics > 0 && node->gpus > 0
                  ? node->nics * node->nic_bandwidth / node->gpus : 0;
  window = (2.0 / 3.0) * e.compute_time / MAX (1u, e.micro_batches);
  dp_time = per_gpu_nic > 0 ? 2.0 * dp_bytes / (l.tp * l.pp) / per_gpu_nic : 0;
  cls->comm.overlap = !l.overlap_grad_reduce ? 0
                      : l.zero_stage == 3 ? 1
                      : dp_time > 0 ? MIN (1.0, window / dp_time) : 1;
  *key = NULL;
  return TRUE;
}

gboolean
sim__llm_settle_class (const SimKeyReader *reader, const char *group, const SimScenario *scenario,
                       SimJobClassConfig *cls, const char **key, GError **error)
{
  return sim__llm_class_derive (reader->kf, group, scenario, cls, key, error);
}
