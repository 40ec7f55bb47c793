/* sim-llm-plan.c: what planners ask of the training model: the best
 * layouts for a GPU count (sim_llm_search()), and one step with the time,
 * cost and interruptions of a token budget on a scenario's cluster
 * (sim_llm_plan_json(), which `gpusim llm` and the Python bindings use).
 *
 * The search is exhaustive over the layouts Megatron-LM runs (tensor
 * parallelism inside a node, any pipeline degree, interleaving that
 * splits the layers evenly, micro-batch sizes that divide the batch), like
 * Calculon's: the step
 * model costs microseconds once the collectives of a group size are
 * cached, so ten thousand layouts take well under a second more than the
 * collectives they need.
 */
#include "config.h"

#include "llm/sim-llm-private.h"
#include "core/sim-error.h"
#include "scenario/sim-scenario-private.h"
#include "kernel/sim-simulation.h"
#include "failures/sim-failures-private.h"
#include "core/sim-units.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Search */

static int
compare_candidates (gconstpointer a, gconstpointer b)
{
  const SimLlmCandidate *x = a, *y = b;
  const SimLlmLayout *lx = &x->layout, *ly = &y->layout;

  if (x->estimate.iteration_time != y->estimate.iteration_time)
    return x->estimate.iteration_time < y->estimate.iteration_time ? -1 : 1;
  if (x->estimate.memory_per_gpu != y->estimate.memory_per_gpu)
    return x->estimate.memory_per_gpu < y->estimate.memory_per_gpu ? -1 : 1;
#define BY(f) if (lx->f != ly->f) return lx->f < ly->f ? -1 : 1
  BY (tp); BY (pp); BY (cp); BY (ep); BY (virtual_stages); BY (micro_batch); BY (zero_stage);
  BY (recompute);
#undef BY
  return 0;
}

GArray *
sim_llm_search (SimLlmSystem *system, const SimLlmModel *model, const SimLlmLayout *base,
                guint top, guint *n_tried, GError **error)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (SimLlmCandidate));
  guint gpus, per_node, seq, tried = 0;
  guint gb;
  double closest = INFINITY;
  g_autofree char *closest_text = NULL;
  static const guint micro_batches[] = { 1, 2, 4, 8 };
  static const guint zero_stages[] = { 1, 3 };
  static const SimLlmRecompute recomputes[] = { SIM_LLM_RECOMPUTE_SELECTIVE,
                                                SIM_LLM_RECOMPUTE_FULL };

  g_return_val_if_fail (system != NULL && model != NULL && base != NULL, NULL);

  gpus = base->gpus > 0 ? base->gpus : sim__llm_system_n_gpus (system);
  per_node = MAX (1u, sim__llm_system_gpus_per_node (system));
  seq = base->seq_length > 0 ? base->seq_length : model->seq_length;
  gb = base->global_batch;

  for (guint tp = 1; tp <= per_node && tp <= gpus; tp *= 2)
    {
      if (model->heads % tp != 0)
        continue;
      for (guint pp = 1; pp <= model->layers && tp * pp <= gpus; pp++)
        {
          if (gpus % (tp * pp) != 0)
            continue;
          for (guint cp = 1; cp <= 8 && tp * pp * cp <= gpus; cp *= 2)
            {
              guint dp;
              if (cp > 1 && (seq < 8192 || seq % cp != 0))
                continue;
              if (gpus % (tp * pp * cp) != 0)
                continue;
              dp = gpus / (tp * pp * cp);
              for (guint ep = 1; ep <= MAX (1u, model->experts); ep *= 2)
                {
                  if ((model->experts == 0 && ep > 1) || (model->experts > 0 &&
                      (model->experts % ep != 0 || dp % ep != 0)))
                    continue;
                  for (guint mi = 0; mi < G_N_ELEMENTS (micro_batches); mi++)
                    {
                      guint mb = micro_batches[mi];
                      guint batch = gb > 0 ? gb : mb * dp;
                      if (batch % (mb * dp) != 0)
                        continue;
                      for (guint v = 1; v <= (pp > 1 ? 12u : 1u); v++)
                      for (guint zi = 0; zi < G_N_ELEMENTS (zero_stages); zi++)
                        for (guint ri = 0; ri < G_N_ELEMENTS (recomputes); ri++)
                          {
                            SimLlmCandidate c;
                            g_autoptr(GError) local = NULL;

                            c.layout = *base;
                            c.layout.tp = tp;
                            c.layout.pp = pp;
                            c.layout.cp = cp;
                            c.layout.ep = ep;
                            c.layout.dp = dp;
                            c.layout.gpus = gpus;
                            if (v > 1 && model->layers % (pp * v) != 0)
                              continue;
                            c.layout.virtual_stages = v;
                            c.layout.micro_batch = mb;
                            c.layout.global_batch = batch;
                            c.layout.seq_length = seq;
                            c.layout.zero_stage = zero_stages[zi];
                            c.layout.recompute = recomputes[ri];
                            c.layout.sequence_parallel = tp > 1;
                            tried++;
                            if (sim_llm_estimate (system, model, &c.layout, &c.estimate,
                                                  &local))
                              {
                                c.layout.dp = c.estimate.dp;
                                g_array_append_val (found, c);
                              }
                            else if (g_error_matches (local, SIM_ERROR,
                                                      SIM_ERROR_UNSATISFIABLE)
                                     && c.estimate.memory_per_gpu < closest)
                              {
                                closest = c.estimate.memory_per_gpu;
                                g_free (closest_text);
                                closest_text = g_strdup_printf (
                                  "tp=%u pp=%u cp=%u ep=%u dp=%u micro_batch=%u: %s", tp, pp,
                                  cp, ep, dp, mb, local->message);
                              }
                            else if (!g_error_matches (local, SIM_ERROR,
                                                       SIM_ERROR_UNSATISFIABLE))
                              {
                                /* A layout the fabric cannot time is an
                                 * error of the scenario, not a layout to
                                 * skip. */
                                if (local->code != SIM_ERROR_INVALID)
                                  {
                                    g_propagate_error (error, g_steal_pointer (&local));
                                    return NULL;
                                  }
                              }
                          }
                    }
                }
            }
        }
    }
  if (n_tried != NULL)
    *n_tried = tried;
  if (found->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                   "no layout of %s on %u GPUs fits (of %u tried)%s%s", model->name, gpus, tried,
                   closest_text ? "; the closest: " : "", closest_text ? closest_text : "");
      return NULL;
    }
  g_array_sort (found, compare_candidates);
  if (found->len > top)
    g_array_set_size (found, top);
  return g_steal_pointer (&found);
}

/* ------------------------------------------------------------------------ */
/* JSON */

static void
member_double (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, v);
}

static void
member_int (JsonBuilder *b, const char *name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

static const char *
recompute_name (SimLlmRecompute r)
{
  return r == SIM_LLM_RECOMPUTE_NONE ? "none" : r == SIM_LLM_RECOMPUTE_FULL ? "full"
                                                                         : "selective";
}

void
sim__llm_estimate_to_json (JsonBuilder *b, const SimLlmLayout *l, const SimLlmEstimate *e)
{
  member_int (b, "gpus", e->gpus);
  member_int (b, "tp", l->tp);
  member_int (b, "pp", l->pp);
  member_int (b, "cp", l->cp);
  member_int (b, "ep", l->ep);
  member_int (b, "dp", e->dp);
  member_int (b, "virtual_stages", l->virtual_stages);
  member_int (b, "micro_batch", l->micro_batch);
  member_int (b, "global_batch", l->global_batch > 0 ? l->global_batch
                                                     : (gint64) e->micro_batches * e->dp
                                                         * l->micro_batch);
  member_int (b, "micro_batches", e->micro_batches);
  member_int (b, "zero_stage", l->zero_stage);
  json_builder_set_member_name (b, "recompute");
  json_builder_add_string_value (b, recompute_name (l->recompute));
  json_builder_set_member_name (b, "precision");
  json_builder_add_string_value (b, l->precision == SIM_LLM_PRECISION_FP8 ? "fp8" : "bf16");
  member_double (b, "iteration_time", e->iteration_time);
  member_double (b, "compute_time", e->compute_time);
  member_double (b, "bubble_time", e->bubble_time);
  member_double (b, "bubble_fraction", e->bubble_fraction);
  member_double (b, "optimizer_time", e->optimizer_time);
  member_double (b, "tokens_per_step", e->tokens_per_step);
  member_double (b, "tokens_per_second", e->tokens_per_second);
  member_double (b, "tflops_per_gpu", e->tflops_per_gpu);
  member_double (b, "mfu", e->mfu);
  member_double (b, "gemm_efficiency", e->gemm_efficiency);
  member_double (b, "model_flops_per_step", e->model_flops_per_step);
  member_double (b, "memory_per_gpu", e->memory_per_gpu);
  json_builder_set_member_name (b, "memory");
  json_builder_begin_object (b);
  member_double (b, "weights", e->memory_weights);
  member_double (b, "gradients", e->memory_gradients);
  member_double (b, "optimizer", e->memory_optimizer);
  member_double (b, "activations", e->memory_activations);
  member_double (b, "logits", e->memory_logits);
  member_double (b, "reserved", e->memory_reserved);
  member_double (b, "capacity", e->memory_capacity);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "communication");
  json_builder_begin_object (b);
  for (guint k = 0; k < SIM_LLM_COMM_N_KINDS; k++)
    {
      json_builder_set_member_name (b, sim_llm_comm_to_string (k));
      json_builder_begin_object (b);
      member_double (b, "time", e->comm_time[k]);
      member_double (b, "exposed", e->comm_exposed[k]);
      member_double (b, "hidden", MAX (0, e->comm_time[k] - e->comm_exposed[k]));
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  member_double (b, "parameters", e->parameters);
  if (e->train_time > 0)
    {
      member_double (b, "train_steps", e->train_steps);
      member_double (b, "train_time", e->train_time);
      member_double (b, "gpu_hours", e->gpu_hours);
    }
}

/* ------------------------------------------------------------------------ */
/* Cost and interruptions of a budget */

void
sim__llm_budget_clear (SimLlmBudget *budget)
{
  g_clear_pointer (&budget->cloud, g_free);
  g_clear_pointer (&budget->failure_profile, g_free);
}

/* Share of its rated power a node draws in training: an 8-H100 node runs
 * at about 76 % of its 10.2 kW (Newkirk et al., arXiv 2506.14551;
 * models/SOURCES.md A3). */
#define TRAINING_POWER_SHARE 0.76

/* The MTBFs of the scenario's failure model, or of its default profile
 * when it has no [failures]: read as the failure model reads a profile. */
static gboolean
failure_rates (const SimScenario *sc, SimFailureParams *p, GError **error)
{
  g_auto(GStrv) dirs = NULL;
  g_autofree char *found = NULL;
  g_autoptr(GKeyFile) kf = NULL;
  g_auto(GStrv) keys = NULL;
  const char *profile;

  if (sc->failures != NULL)
    return sim__failure_params_resolve (p, sc, error);
  sim__failure_params_init (p);
  profile = sim__keys_find (&sim__failures_key_table, "profile")->def;
  dirs = sim_catalogue_default_path ();
  for (guint pass = 0; pass < 2; pass++)
    {
      char **list = pass == 0 ? dirs : sc->model_dirs;
      for (guint i = 0; list != NULL && list[i] != NULL; i++)
        {
          g_autofree char *file = g_strdup_printf ("%s.ini", profile);
          g_autofree char *path = g_build_filename (list[i], "failures", file, NULL);
          if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
            {
              g_free (found);
              found = g_steal_pointer (&path);
            }
        }
    }
  g_free (p->profile);
  p->profile = g_strdup (profile);
  if (found == NULL)
    return TRUE; /* No profile installed: no interruptions to report. */
  kf = g_key_file_new ();
  if (!sim__key_file_load_path (kf, found, error))
    {
      g_prefix_error (error, "%s: ", found);
      return FALSE;
    }
  keys = g_key_file_get_keys (kf, "failures", NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autofree char *value = NULL;
      if (strcmp (keys[i], "name") == 0 || strcmp (keys[i], "description") == 0)
        continue;
      value = g_key_file_get_value (kf, "failures", keys[i], NULL);
      if (!sim__failure_params_set (p, keys[i], g_strstrip (value), error))
        {
          g_prefix_error (error, "%s: [failures] %s: ", found, keys[i]);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
sim__llm_budget (const SimScenario *sc, const SimCatalogue *catalogue,
                 const SimCluster *cluster, const SimLlmEstimate *e, SimLlmBudget *budget,
                 GError **error)
{
  const SimNode *node0 = sim_cluster_get_node (cluster, 0);
  const SimNodeModel *nm = node0->model;
  guint per_node = MAX (1u, node0->n_gpus);
  double nodes = ceil ((double) e->gpus / per_node);
  double hours = e->train_time / 3600.0;
  double amort_h, node_usd_h;
  const SimCloudModel *cloud = NULL;
  SimFailureParams p;
  double rate = 0;

  memset (budget, 0, sizeof *budget);
  if (hours <= 0)
    return TRUE;

  /* Owned: the nodes' price amortized straight-line, maintenance as a
   * share of it per year, energy at the [cost] price. */
  amort_h = (sc->cost.amortization > 0 ? sim_time_to_seconds (sc->cost.amortization)
                                       : 5 * 365.25 * 86400.0) / 3600.0;
  node_usd_h = nm->price_usd / amort_h + nm->price_usd * sc->cost.maintenance / (365.25 * 24)
               + nm->max_power_w * TRAINING_POWER_SHARE / 1000.0 * sc->cost.energy_price;
  if (nm->price_usd > 0)
    {
      budget->owned_usd_per_gpu_hour = node_usd_h / per_node;
      budget->owned_usd = node_usd_h * nodes * hours;
    }
  /* Rented: the [cost] cloud, or the instance built like the node. */
  cloud = sc->cost.cloud != NULL ? sim_catalogue_lookup_cloud (catalogue, sc->cost.cloud)
                                 : sim_catalogue_match_cloud (catalogue, nm->name,
                                                              node0->gpu_model->name, per_node);
  if (cloud != NULL && cloud->on_demand_usd_per_hour > 0 && cloud->gpus > 0)
    {
      budget->cloud = g_strdup (cloud->name);
      budget->cloud_usd_per_gpu_hour = cloud->on_demand_usd_per_hour / cloud->gpus;
      budget->cloud_usd = budget->cloud_usd_per_gpu_hour * e->gpus * hours;
    }

  /* Interruptions: every component of the job's nodes, and the leaf
   * switches over them, fails at its rate (per component, exponential);
   * any failure stops the job.  The nodes are packed under their leaves,
   * nodes_per_leaf to a leaf, as the failure model cables them; a spine's
   * or a core's failure takes no node out there, and stops no job here. */
  if (!failure_rates (sc, &p, error))
    {
      sim__failure_params_clear (&p);
      return FALSE;
    }
  {
    double count[SIM_FAILURE_N_TYPES] = { 0 };
    count[SIM_FAILURE_GPU] = e->gpus;
    count[SIM_FAILURE_HBM] = e->gpus;
    count[SIM_FAILURE_NVSWITCH] = nodes * (p.nvswitches_per_node ? p.nvswitches_per_node
                                                                 : nm->nvswitches);
    count[SIM_FAILURE_NIC] = nodes * (p.nics_per_node ? p.nics_per_node : nm->nics);
    count[SIM_FAILURE_CABLE] = count[SIM_FAILURE_NIC];
    count[SIM_FAILURE_NODE] = nodes;
    count[SIM_FAILURE_SOFTWARE] = nodes;
    count[SIM_FAILURE_LEAF] = ceil (nodes / MAX (p.nodes_per_leaf, 1u));
    for (guint t = 0; t < SIM_FAILURE_N_TYPES; t++)
      if (p.mtbf_s[t] > 0)
        rate += count[t] / p.mtbf_s[t];
  }
  budget->interruptions = rate * e->train_time;
  budget->failure_profile = g_strdup (p.profile);
  sim__failure_params_clear (&p);
  return TRUE;
}

void
sim__llm_budget_to_json (JsonBuilder *b, const SimLlmBudget *budget)
{
  member_double (b, "owned_cost_usd", budget->owned_usd);
  member_double (b, "owned_usd_per_gpu_hour", budget->owned_usd_per_gpu_hour);
  if (budget->cloud != NULL)
    {
      json_builder_set_member_name (b, "cloud");
      json_builder_add_string_value (b, budget->cloud);
      member_double (b, "cloud_cost_usd", budget->cloud_usd);
      member_double (b, "cloud_usd_per_gpu_hour", budget->cloud_usd_per_gpu_hour);
    }
  member_double (b, "expected_interruptions", budget->interruptions);
  if (budget->failure_profile != NULL)
    {
      json_builder_set_member_name (b, "failure_profile");
      json_builder_add_string_value (b, budget->failure_profile);
    }
}

/* ------------------------------------------------------------------------ */
/* A scenario's cluster */

SimLlmModel *
sim__llm_model_for_scenario (const SimScenario *sc, const char *name, GError **error)
{
  g_autofree char *group = g_strdup_printf ("llm %s", name);
  g_autoptr(GKeyFile) kf = g_key_file_new ();

  if (sc->path != NULL && sim__key_file_load_path (kf, sc->path, NULL)
      && g_key_file_has_group (kf, group))
    {
      g_autofree char *text = NULL;
      gsize len = 0;
      g_autoptr(SimKeyLines) lines = NULL;
      if (g_file_get_contents (sc->path, &text, &len, NULL))
        lines = sim__key_lines_new (text, (gssize) len, sc->path, NULL);
      return sim__llm_model_read (kf, group, sc->path, lines, name, error);
    }
  return sim_llm_model_load (name, (const char * const *) sc->model_dirs, error);
}

void
sim__llm_setup_clear (SimLlmSetup *setup)
{
  g_clear_pointer (&setup->system, sim_llm_system_free);
  g_clear_pointer (&setup->topology, sim_topology_free);
  g_clear_pointer (&setup->cluster, sim_cluster_free);
  g_clear_pointer (&setup->catalogue, sim_catalogue_free);
  g_clear_pointer (&setup->scenario, sim_scenario_unref);
}

gboolean
sim__llm_setup (SimLlmSetup *setup, const char *path, const char * const *sets, GError **error)
{
  g_auto(SimFabricConfig) fabric = { 0 };

  memset (setup, 0, sizeof *setup);
  setup->scenario = sim_scenario_load (path, sets, error);
  if (setup->scenario != NULL && sim__scenario_check_models (setup->scenario, error))
    setup->catalogue = sim_catalogue_new_default (
      (const char * const *) setup->scenario->model_dirs, error);
  if (setup->catalogue != NULL)
    setup->cluster = sim_cluster_new_for_scenario (setup->scenario, setup->catalogue, error);
  if (setup->cluster == NULL)
    {
      sim__llm_setup_clear (setup);
      return FALSE;
    }
  sim_fabric_config_copy (&fabric, &setup->scenario->fabric);
  if (fabric.kind == SIM_FABRIC_NONE && sim_cluster_get_n_nodes (setup->cluster) > 1)
    {
      guint nics = 0;
      for (guint n = 0; n < sim_cluster_get_n_nodes (setup->cluster); n++)
        nics += MAX (1u, sim_cluster_get_node (setup->cluster, n)->model->nics);
      fabric.kind = SIM_FABRIC_SINGLE_SWITCH;
      fabric.radix = nics;
    }
  setup->topology = sim_topology_new (setup->cluster, setup->catalogue, &fabric, error);
  if (setup->topology != NULL)
    setup->system = sim_llm_system_new (setup->cluster, setup->topology, error);
  if (setup->system == NULL)
    {
      sim__llm_setup_clear (setup);
      return FALSE;
    }
  return TRUE;
}

char *
sim_llm_plan_json (const char *scenario, const char *model, const char * const *options,
                   GError **error)
{
  SimLlmSetup setup;
  g_autoptr(SimLlmModel) m = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = NULL;
  g_autoptr(JsonNode) root = NULL;
  SimLlmLayout layout;
  SimLlmEstimate est;
  guint search = 0;
  gboolean ok = TRUE;

  g_return_val_if_fail (scenario != NULL && model != NULL, NULL);

  sim_llm_layout_init (&layout);
  for (guint i = 0; options != NULL && options[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (options[i], "=", 2);
      if (kv[0] == NULL || kv[1] == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected KEY=VALUE, such as \"tp=8\"", options[i]);
          return NULL;
        }
      if (strcmp (g_strstrip (kv[0]), "search") == 0)
        {
          gint64 n;
          if (!sim_parse_integer (g_strstrip (kv[1]), 1, 1000, &n, error))
            {
              g_prefix_error (error, "search: ");
              return NULL;
            }
          search = (guint) n;
        }
      else if (!sim_llm_layout_set (&layout, kv[0], kv[1], error))
        return NULL;
    }
  if (!sim__llm_setup (&setup, scenario, NULL, error))
    return NULL;
  m = sim__llm_model_for_scenario (setup.scenario, model, error);
  if (m == NULL)
    {
      sim__llm_setup_clear (&setup);
      return NULL;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, m->name);
  json_builder_set_member_name (b, "gpu");
  json_builder_add_string_value (b, sim_llm_system_get_gpu (setup.system)->name);
  if (search > 0)
    {
      guint tried = 0;
      g_autoptr(GArray) top = sim_llm_search (setup.system, m, &layout, search, &tried, error);
      ok = top != NULL;
      if (ok)
        {
          member_int (b, "layouts_tried", tried);
          json_builder_set_member_name (b, "layouts");
          json_builder_begin_array (b);
          for (guint i = 0; i < top->len; i++)
            {
              const SimLlmCandidate *c = &g_array_index (top, SimLlmCandidate, i);
              json_builder_begin_object (b);
              sim__llm_estimate_to_json (b, &c->layout, &c->estimate);
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
        }
    }
  else
    {
      ok = sim_llm_estimate (setup.system, m, &layout, &est, error);
      if (ok)
        {
          SimLlmBudget budget;
          if (layout.global_batch == 0)
            layout.global_batch = est.micro_batches * est.dp * layout.micro_batch;
          sim__llm_estimate_to_json (b, &layout, &est);
          ok = sim__llm_budget (setup.scenario, setup.catalogue, setup.cluster, &est, &budget,
                                error);
          if (ok && est.train_time > 0)
            sim__llm_budget_to_json (b, &budget);
          sim__llm_budget_clear (&budget);
        }
    }
  json_builder_end_object (b);
  sim__llm_setup_clear (&setup);
  if (!ok)
    return NULL;
  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}
