/* sim-serve.c: a deployment on a scenario's cluster, from the file to the
 * figures: the model from the catalogue, the replica's GPUs and their
 * all-reduces from the cluster and fabric, the requests, the run, and the
 * cost of the GPU-hours it took (sim_serve_json(), `gpusim serve`). */
#include "config.h"

#include "serve/sim-serve-private.h"
#include "core/sim-error.h"
#include "scenario/sim-scenario-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

void
sim__serve_report_clear (SimServeReport *r)
{
  sim__serve_config_clear (&r->config);
  sim__serve_requests_clear (&r->requests);
  g_clear_pointer (&r->model, g_free);
  g_clear_pointer (&r->gpu, g_free);
  g_clear_pointer (&r->cloud, g_free);
  sim__serve_replica_clear (&r->replica);
}

static gboolean
apply_options (SimServeReport *r, const char * const *options, GError **error)
{
  for (guint i = 0; options != NULL && options[i] != NULL; i++)
    {
      const char *eq = strchr (options[i], '=');
      g_autofree char *key = NULL;
      g_autofree char *value = NULL;
      gboolean ok;

      if (eq == NULL || eq == options[i])
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "\"%s\": expected KEY=VALUE",
                       options[i]);
          return FALSE;
        }
      key = g_strstrip (g_strndup (options[i], eq - options[i]));
      value = g_strstrip (g_strdup (eq + 1));
      if (g_str_has_prefix (key, "requests."))
        ok = sim__serve_requests_set (&r->requests, key + strlen ("requests."), value, error);
      else
        ok = sim__serve_config_set (&r->config, key, value, error);
      if (!ok)
        {
          g_prefix_error (error, "option %s: ", key);
          return FALSE;
        }
    }
  return TRUE;
}

/* The owned and rented prices of a GPU-hour on the scenario's nodes, as
 * the training model's budget prices them (llm/sim-llm-plan.c). */
static gboolean
price (SimLlmSetup *setup, SimServeReport *r, GError **error)
{
  SimLlmEstimate e;
  SimLlmBudget budget;

  memset (&e, 0, sizeof e);
  e.gpus = r->gpus;
  e.train_time = 3600;
  if (!sim__llm_budget (setup->scenario, setup->catalogue, setup->cluster, &e, &budget, error))
    {
      sim__llm_budget_clear (&budget);
      return FALSE;
    }
  r->owned_usd_per_gpu_hour = budget.owned_usd_per_gpu_hour;
  r->cloud_usd_per_gpu_hour = budget.cloud_usd_per_gpu_hour;
  r->cloud = g_strdup (budget.cloud);
  sim__llm_budget_clear (&budget);
  return TRUE;
}

gboolean
sim__serve_run (const char *path, const char *name, const char * const *options,
                SimServeReport *r, GError **error)
{
  g_auto(SimLlmSetup) setup = { 0 };
  g_autoptr(SimLlmModel) model = NULL;
  g_autoptr(SimCommModel) comm = NULL;
  g_autoptr(GArray) requests = NULL;
  const SimGpuModel *gpu;
  double hours, tokens;

  memset (r, 0, sizeof *r);
  if (!sim__llm_setup (&setup, path, NULL, error))
    return FALSE;
  if (!sim__serve_read (setup.scenario, name, &r->config, &r->requests, error)
      || !apply_options (r, options, error))
    return FALSE;
  if (options != NULL && options[0] != NULL)
    {
      const char *key = NULL;
      if (!sim__serve_config_check (&r->config, &key, error))
        {
          g_prefix_error (error, "[serving %s] %s (with the options): ", r->config.name, key);
          return FALSE;
        }
    }
  model = sim__llm_model_for_scenario (setup.scenario, r->config.model, error);
  if (model == NULL)
    {
      g_prefix_error (error, "[serving %s] model: ", r->config.name);
      return FALSE;
    }
  gpu = sim_llm_system_get_gpu (setup.system);
  comm = sim_comm_model_new (setup.topology, setup.cluster);
  if (!sim__serve_replicas_init (&r->replica, model, gpu, &r->config, comm, setup.cluster,
                                 error))
    {
      g_prefix_error (error, "[serving %s] ", r->config.name);
      return FALSE;
    }
  requests = sim__serve_requests_generate (&r->requests, setup.scenario->seed, error);
  if (requests == NULL)
    return FALSE;
  if (!sim__serve_simulate (&r->replica, &r->config, requests, &r->result, error))
    {
      g_prefix_error (error, "[serving %s]: ", r->config.name);
      return FALSE;
    }
  r->model = g_strdup (model->name);
  r->gpu = g_strdup (gpu->name);
  r->parameters = sim_llm_model_parameters (model);
  r->gpus = (guint) ceil (r->result.gpus - 1e-9);
  if (!price (&setup, r, error))
    return FALSE;
  /* The GPUs of the replicas running or starting, over the run, over every
   * token it read or wrote. */
  hours = r->result.gpu_seconds / 3600.0;
  tokens = r->result.input_tokens + r->result.output_tokens;
  if (tokens > 0)
    {
      r->owned_usd_per_million_tokens = hours * r->owned_usd_per_gpu_hour / tokens * 1e6;
      r->cloud_usd_per_million_tokens = hours * r->cloud_usd_per_gpu_hour / tokens * 1e6;
    }
  return TRUE;
}

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

static void
member_string (JsonBuilder *b, const char *name, const char *v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, v);
}

static void
member_stats (JsonBuilder *b, const char *name, const double v[5])
{
  static const char *names[] = { "mean", "p50", "p95", "p99", "max" };

  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  for (guint i = 0; i < 5; i++)
    member_double (b, names[i], v[i]);
  json_builder_end_object (b);
}

char *
sim__serve_report_to_json (const SimServeReport *r)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  const SimServeResult *x = &r->result;

  json_builder_begin_object (b);
  member_string (b, "deployment", r->config.name);
  member_string (b, "model", r->model);
  member_string (b, "gpu", r->gpu);
  member_int (b, "tp", r->config.tp);
  member_int (b, "replicas", r->config.replicas);
  member_int (b, "gpus", r->gpus);
  member_string (b, "precision", r->config.precision == SIM_LLM_PRECISION_FP8 ? "fp8" : "bf16");
  member_int (b, "max_batch", r->config.max_batch);
  member_int (b, "requests", (gint64) x->requests);
  member_double (b, "makespan", x->makespan);
  member_stats (b, "ttft", x->ttft);
  member_stats (b, "tpot", x->tpot);
  member_stats (b, "e2e", x->e2e);
  member_double (b, "queue_wait_mean", x->queue_wait_mean);
  member_double (b, "mean_in_system", x->mean_in_system);
  member_double (b, "slo_ttft", r->config.slo_ttft);
  member_double (b, "slo_tpot", r->config.slo_tpot);
  member_double (b, "slo_attainment", x->slo_attainment);
  member_double (b, "goodput", x->goodput);
  member_double (b, "requests_per_second", x->arrival_rate);
  member_double (b, "throughput_tokens_per_second", x->tokens_per_second);
  member_double (b, "output_tokens_per_second", x->output_tokens_per_second);
  member_double (b, "input_tokens", x->input_tokens);
  member_double (b, "output_tokens", x->output_tokens);
  member_double (b, "kv_cache_utilization", x->kv_utilization);
  member_double (b, "kv_cache_tokens_per_replica", x->kv_capacity_tokens);
  member_double (b, "weights_per_gpu", r->replica.weight_bytes);
  member_double (b, "gpu_busy", x->gpu_busy);
  member_double (b, "mean_decode_batch", x->mean_batch);
  member_double (b, "iterations", x->iterations);
  member_int (b, "preemptions", (gint64) x->preemptions);
  if (r->config.pp > 1)
    member_int (b, "pp", r->config.pp);
  if (r->config.mig != NULL)
    member_string (b, "mig", r->config.mig);
  if (r->config.replicas_per_gpu > 1)
    member_int (b, "replicas_per_gpu", r->config.replicas_per_gpu);
  if (r->config.disaggregated)
    {
      member_int (b, "prefill_replicas", r->config.prefill_replicas);
      member_int (b, "decode_replicas", r->config.decode_replicas);
      member_int (b, "prefill_tp", r->replica.tp);
      member_int (b, "decode_tp", r->replica.decode != NULL ? r->replica.decode->tp : 0);
      member_int (b, "kv_transfers", (gint64) x->kv_transfers);
      member_double (b, "kv_transfer_mean", x->kv_transfer_mean);
    }
  if (x->prefix_requests > 0)
    {
      member_int (b, "prefix_requests", (gint64) x->prefix_requests);
      member_int (b, "prefix_lookups", (gint64) x->prefix_lookups);
      member_int (b, "prefix_hits", (gint64) x->prefix_hits);
      member_double (b, "prefix_hit_rate", x->prefix_lookups > 0
                                           ? (double) x->prefix_hits / x->prefix_lookups : 0);
      member_double (b, "prefix_hit_tokens", x->prefix_hit_tokens);
    }
  member_double (b, "replica_hours", x->replica_seconds / 3600);
  member_double (b, "mean_replicas", x->makespan > 0 ? x->replica_seconds / x->makespan : 0);
  member_int (b, "peak_replicas", x->peak_replicas);
  member_int (b, "scale_ups", (gint64) x->scale_ups);
  member_int (b, "scale_downs", (gint64) x->scale_downs);
  if (r->owned_usd_per_gpu_hour > 0)
    {
      member_double (b, "owned_usd_per_gpu_hour", r->owned_usd_per_gpu_hour);
      member_double (b, "usd_per_million_tokens", r->owned_usd_per_million_tokens);
    }
  if (r->cloud != NULL)
    {
      member_string (b, "cloud", r->cloud);
      member_double (b, "cloud_usd_per_gpu_hour", r->cloud_usd_per_gpu_hour);
      member_double (b, "cloud_usd_per_million_tokens", r->cloud_usd_per_million_tokens);
    }
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

char *
sim_serve_json (const char *scenario, const char *deployment, const char * const *options,
                GError **error)
{
  g_auto(SimServeReport) report = { 0 };

  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!sim__serve_run (scenario, deployment, options, &report, error))
    return NULL;
  return sim__serve_report_to_json (&report);
}

/* Runs the deployment with REPLICAS; *MEETS says whether its p99 TTFT is
 * within TARGET. */
static gboolean
probe (const char *path, const char *name, const char * const *options, guint replicas,
       double target, SimServeReport *report, gboolean *meets, GError **error)
{
  g_autoptr(GPtrArray) opts = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; options != NULL && options[i] != NULL; i++)
    g_ptr_array_add (opts, g_strdup (options[i]));
  g_ptr_array_add (opts, g_strdup_printf ("replicas=%u", replicas));
  g_ptr_array_add (opts, NULL);
  sim__serve_report_clear (report);
  if (!sim__serve_run (path, name, (const char * const *) opts->pdata, report, error))
    return FALSE;
  *meets = report->result.ttft[3] <= target;
  return TRUE;
}

gboolean
sim__serve_min_replicas (const char *path, const char *name, const char * const *options,
                         double target, guint max_replicas, SimServeReport *report,
                         guint *n_probes, GError **error)
{
  guint lo = 0, hi = 1, probes = 0;
  gboolean meets = FALSE;
  double lo_ttft = 0;

  memset (report, 0, sizeof *report);
  /* Double until the target is met: HI meets it, LO does not (0: none
   * tried). */
  for (;;)
    {
      g_autoptr(GError) local = NULL;

      probes++;
      if (!probe (path, name, options, hi, target, report, &meets, &local))
        {
          /* LO replicas ran, so the deployment is sound and HI is more
           * than the cluster holds: look between them for the most it
           * holds, and stop there, rather than blame a count the user
           * never asked for. */
          guint over = hi;

          if (lo == 0)
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return FALSE;
            }
          meets = FALSE;
          while (over - lo > 1 && !meets)
            {
              guint mid = lo + (over - lo) / 2;
              g_clear_error (&local);
              probes++;
              if (!probe (path, name, options, mid, target, report, &meets, &local))
                over = mid;
              else if (meets)
                hi = mid;
              else
                {
                  lo = mid;
                  lo_ttft = report->result.ttft[3];
                }
            }
          if (meets)
            break;
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                       "%u replicas, the most the cluster holds, give a p99 time to first "
                       "token of %.3f s: expected at most %.3f s (change tp, fp8 or max_batch, "
                       "or add GPUs)", lo, lo_ttft, target);
          return FALSE;
        }
      if (meets)
        break;
      lo = hi;
      lo_ttft = report->result.ttft[3];
      if (hi >= max_replicas)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                       "%u replicas give a p99 time to first token of %.3f s: expected at "
                       "most %.3f s (raise the maximum, or change tp, fp8 or max_batch)",
                       hi, report->result.ttft[3], target);
          return FALSE;
        }
      hi = MIN (hi * 2, max_replicas);
    }
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;
      probes++;
      if (!probe (path, name, options, mid, target, report, &meets, error))
        return FALSE;
      if (meets)
        hi = mid;
      else
        lo = mid;
    }
  if (report->config.replicas != hi)
    {
      probes++;
      if (!probe (path, name, options, hi, target, report, &meets, error))
        return FALSE;
    }
  if (n_probes != NULL)
    *n_probes = probes;
  return TRUE;
}
