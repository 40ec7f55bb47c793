/* sim-serve-config.c: the [serving NAME] and [requests NAME] sections.
 *
 * Keys are described once, in the two tables below, which drive the
 * unknown-key check, the defaults, `gpusim keys` and docs/keys.md.  Each
 * key is read by a setter (sim__serve_config_set(),
 * sim__serve_requests_set()), which is also what `gpusim serve --set` and
 * the options of sim_serve_json() go through, so that a value given on the
 * command line is checked exactly as one in the file.
 */
#include "config.h"

#include "serve/sim-serve-private.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "scenario/sim-scenario-private.h"

#include <math.h>
#include <string.h>

static const SimKey serving_keys[] = {
  { "model", SIM_KEY_STRING, NULL, NULL, NULL,
    "the language model served: a catalogue model (gpusim llm --list) or an [llm NAME] section",
    SIM_KEY_REQUIRED, NULL, 0 },
  { "requests", SIM_KEY_STRING, NULL, NULL, NULL,
    "the [requests NAME] section whose requests the deployment answers", SIM_KEY_REQUIRED,
    NULL, 0 },
  { "tp", SIM_KEY_INT, NULL, "1 to 64, dividing the model's heads", "1",
    "tensor-parallel degree: the GPUs of one replica", 0, NULL, 0 },
  { "precision", SIM_KEY_CHOICE, NULL, "bf16, fp8", "bf16",
    "the weights', KV cache's and matrix products' precision (fp8 on GPUs with an FP8 peak)", 0,
    NULL, 0 },
  { "max_batch", SIM_KEY_INT, "sequences", "1 to 65536", "256",
    "sequences one iteration decodes and prefills at most", 0, NULL, 0 },
  { "max_batch_tokens", SIM_KEY_INT, "tokens", "1 to 10000000", "8192",
    "tokens one iteration processes at most (a longer prompt runs alone without chunking)", 0,
    NULL, 0 },
  { "chunked_prefill", SIM_KEY_BOOL, NULL, NULL, "false",
    "split prompts into chunks that fill each iteration's token budget beside the decodes", 0,
    NULL, 0 },
  { "replicas", SIM_KEY_INT, NULL, "1 to 100000", "1", "replicas of the model", 0, NULL, 0 },
  { "router", SIM_KEY_CHOICE, NULL, "round_robin, least_outstanding, kv_aware",
    "least_outstanding",
    "how requests are sent to replicas (kv_aware: the best cached prefix against the load)", 0,
    NULL, 0 },
  { "pp", SIM_KEY_INT, NULL, "1 to 64", "1",
    "pipeline-parallel stages of a replica: its layers split over pp groups of tp GPUs", 0,
    NULL, 0 },
  { "mig", SIM_KEY_STRING, NULL, "a MIG profile of the GPU, e.g. 3g.40gb", NULL,
    "run each replica on a MIG instance of this profile (tp = 1): its share of compute, "
    "bandwidth and memory", 0, NULL, 0 },
  { "replicas_per_gpu", SIM_KEY_INT, NULL, "1 to 64", "1",
    "replicas time-sharing one GPU (tp = 1), each at its share of it", 0, NULL, 0 },
  { "disaggregated", SIM_KEY_BOOL, NULL, NULL, "false",
    "prefill on prefill replicas, decode on decode replicas, the KV cache sent between them",
    0, NULL, 0 },
  { "prefill_replicas", SIM_KEY_INT, NULL, "1 to 100000", "1",
    "with disaggregated: the replicas that prefill", 0, NULL, 0 },
  { "decode_replicas", SIM_KEY_INT, NULL, "1 to 100000", "1",
    "with disaggregated: the replicas that decode", 0, NULL, 0 },
  { "prefill_tp", SIM_KEY_INT, NULL, "1 to 64", "tp",
    "with disaggregated: the GPUs of a prefill replica", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "decode_tp", SIM_KEY_INT, NULL, "1 to 64", "tp",
    "with disaggregated: the GPUs of a decode replica", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "memory_share", SIM_KEY_SHARE, NULL, "above 0 to 1", "0.9",
    "the share of each GPU's memory the server takes for weights and KV cache", 0, NULL, 0 },
  { "kv_block", SIM_KEY_INT, "tokens", "1 to 4096", "16",
    "tokens per KV-cache page: a sequence holds whole pages", 0, NULL, 0 },
  { "slo_ttft", SIM_KEY_TIME, NULL, "above 0", "2s",
    "the time-to-first-token objective a request must meet to count in the goodput", 0, NULL,
    0 },
  { "slo_tpot", SIM_KEY_TIME, NULL, "above 0", "100ms",
    "the time-per-output-token objective a request must meet to count in the goodput", 0,
    NULL, 0 },
  { "autoscale", SIM_KEY_BOOL, NULL, NULL, "false",
    "start and stop replicas with the load, from replicas at time 0, within the bounds", 0,
    NULL, 0 },
  { "min_replicas", SIM_KEY_INT, NULL, "1 to 100000", "1",
    "with autoscale: the fewest replicas kept running", 0, NULL, 0 },
  { "max_replicas", SIM_KEY_INT, NULL, "1 to 100000", "replicas",
    "with autoscale: the most replicas running or starting", SIM_KEY_DEFAULT_DESCRIBED, NULL,
    0 },
  { "target_outstanding", SIM_KEY_NUMBER, "requests", "above 0", "32",
    "with autoscale: requests per replica (queued or running) above which replicas start", 0,
    NULL, 0 },
  { "startup", SIM_KEY_TIME, NULL, ">= 0", "2min",
    "with autoscale: how long a new replica takes to serve (start, load the weights)", 0,
    NULL, 0 },
  { "scale_down_delay", SIM_KEY_TIME, NULL, ">= 0", "10min",
    "with autoscale: how long more replicas than the load needs run before one stops", 0,
    NULL, 0 },
  { "autoscale_interval", SIM_KEY_TIME, NULL, "above 0", "10s",
    "with autoscale: how often the load is looked at", 0, NULL, 0 },
  { "priority", SIM_KEY_INT, NULL, "-1000000 to 1000000", "0",
    "in ordinary runs: the priority of the replicas' jobs under the scheduler's policy", 0, NULL,
    0 },
  { "load_time", SIM_KEY_TIME, NULL, ">= 0", "0s",
    "in ordinary runs: from a replica's job start to its first request (loading the weights)",
    0, NULL, 0 },
  { "whole_nodes", SIM_KEY_BOOL, NULL, NULL, "false",
    "in ordinary runs: each replica's job takes a whole node, its GPUs beyond tp left idle", 0,
    NULL, 0 },
  { "in_runs", SIM_KEY_BOOL, NULL, NULL, "true",
    "whether ordinary runs (run, compare, sweep, seek) place the deployment on the cluster; "
    "false leaves it to `gpusim serve` (needed for a split, MIG or time-shared deployment)", 0,
    NULL, 0 },
};

const SimKeyTable sim__serving_key_table = {
  "serving", TRUE,
  "A deployment of a language model, for `gpusim serve` and ordinary runs (docs/serving.md)",
  serving_keys, G_N_ELEMENTS (serving_keys), NULL, NULL,
};

static const SimKey requests_keys[] = {
  { "arrival", SIM_KEY_CHOICE, NULL, "poisson, batch, trace", "poisson",
    "how requests arrive: a Poisson process, all at once (offline), or from a trace", 0, NULL,
    0 },
  { "rate", SIM_KEY_RATE, "requests", "above 0", NULL,
    "the mean arrival rate (poisson), before the profile and bursts", 0, NULL, 0 },
  { "count", SIM_KEY_INT, "requests", "1 to 1000000000", "1000",
    "requests to simulate (with a trace: its first lines; every line unless given)", 0, NULL,
    0 },
  { "profile", SIM_KEY_LIST, NULL, "24 numbers >= 0", NULL,
    "a daily profile: the rate's factor in each hour of the day, from midnight", 0, NULL, 0 },
  { "start_hour", SIM_KEY_NUMBER, "h", "0 to 24", "0",
    "the hour of the day at time 0, for the profile", 0, NULL, 0 },
  { "burst_start", SIM_KEY_TIME, NULL, ">= 0", "0s", "when a burst of requests begins", 0,
    NULL, 0 },
  { "burst_duration", SIM_KEY_TIME, NULL, ">= 0", "0s", "how long the burst lasts; 0: none",
    0, NULL, 0 },
  { "burst_factor", SIM_KEY_NUMBER, NULL, "above 0", "1", "the rate's factor during the burst",
    0, NULL, 0 },
  { "input_tokens", SIM_KEY_NUMBER, "tokens", ">= 1", NULL,
    "the mean prompt length (not with a trace)", 0, NULL, 0 },
  { "input_distribution", SIM_KEY_CHOICE, NULL, "fixed, exponential, lognormal", "fixed",
    "how prompt lengths are drawn around their mean", 0, NULL, 0 },
  { "input_cv", SIM_KEY_NUMBER, NULL, "above 0", "1",
    "the prompt lengths' coefficient of variation (lognormal)", 0, NULL, 0 },
  { "input_max", SIM_KEY_INT, "tokens", ">= 0", "0", "the longest prompt; 0: no cap", 0, NULL,
    0 },
  { "output_tokens", SIM_KEY_NUMBER, "tokens", ">= 1", NULL,
    "the mean output length (not with a trace)", 0, NULL, 0 },
  { "output_distribution", SIM_KEY_CHOICE, NULL, "fixed, exponential, lognormal", "fixed",
    "how output lengths are drawn around their mean", 0, NULL, 0 },
  { "output_cv", SIM_KEY_NUMBER, NULL, "above 0", "1",
    "the output lengths' coefficient of variation (lognormal)", 0, NULL, 0 },
  { "output_max", SIM_KEY_INT, "tokens", ">= 0", "0", "the longest output; 0: no cap", 0,
    NULL, 0 },
  { "trace", SIM_KEY_PATH, NULL, NULL, NULL,
    "an Azure LLM inference trace (CSV: TIMESTAMP, ContextTokens, GeneratedTokens)", 0, NULL,
    0 },
  { "prefix_share", SIM_KEY_SHARE, NULL, "0 to 1", "0",
    "the share of requests whose prompt opens with a shared prefix (a system prompt, a "
    "conversation's history)", 0, NULL, 0 },
  { "prefix_tokens", SIM_KEY_INT, "tokens", "0 to 1000000", "0",
    "a shared prefix's length, before the request's own input_tokens", 0, NULL, 0 },
  { "prefixes", SIM_KEY_INT, NULL, "1 to 100000", "1",
    "distinct prefixes; each request with one draws it uniformly", 0, NULL, 0 },
};

const SimKeyTable sim__requests_key_table = {
  "requests", TRUE, "A stream of requests to a language model, for a [serving NAME] section",
  requests_keys, G_N_ELEMENTS (requests_keys), NULL, NULL,
};

/* ------------------------------------------------------------------------ */

static gboolean
parse_uint (const char *text, gint64 lo, gint64 hi, guint *out, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (text, lo, hi, &v, error))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

static gboolean
parse_seconds (const char *text, gboolean positive, double *out, GError **error)
{
  SimTime t;

  if (!sim_parse_duration (text, &t, error))
    return FALSE;
  if (t < 0 || (positive && t == 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: expected a duration %s", text,
                   positive ? "above 0" : "of 0 or more");
      return FALSE;
    }
  *out = sim_time_to_seconds (t);
  return TRUE;
}

static gboolean
parse_choice (const char *text, const char * const *names, guint n, guint *out, GError **error)
{
  g_autofree char *list = NULL;
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    if (g_ascii_strcasecmp (text, names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\": expected %s", text, s->str);
  return FALSE;
}

void
sim__serve_config_init (SimServeConfig *config)
{
  memset (config, 0, sizeof *config);
  sim__keys_apply_defaults_with (&sim__serving_key_table, sim__serve_config_set, config);
}

void
sim__serve_config_clear (SimServeConfig *config)
{
  g_clear_pointer (&config->name, g_free);
  g_clear_pointer (&config->model, g_free);
  g_clear_pointer (&config->requests, g_free);
  g_clear_pointer (&config->mig, g_free);
}

gboolean
sim__serve_config_set (gpointer data, const char *key, const char *value, GError **error)
{
  SimServeConfig *c = data;

  if (strcmp (key, "model") == 0 || strcmp (key, "requests") == 0)
    {
      char **field = key[0] == 'm' ? &c->model : &c->requests;
      if (value[0] == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "empty: expected a name");
          return FALSE;
        }
      g_free (*field);
      *field = g_strdup (value);
      return TRUE;
    }
  if (strcmp (key, "tp") == 0)
    return parse_uint (value, 1, 64, &c->tp, error);
  if (strcmp (key, "precision") == 0)
    {
      static const char * const names[] = { "bf16", "fp8" };
      guint i;
      if (!parse_choice (value, names, 2, &i, error))
        return FALSE;
      c->precision = i == 0 ? SIM_LLM_PRECISION_BF16 : SIM_LLM_PRECISION_FP8;
      return TRUE;
    }
  if (strcmp (key, "max_batch") == 0)
    return parse_uint (value, 1, 65536, &c->max_batch, error);
  if (strcmp (key, "max_batch_tokens") == 0)
    return parse_uint (value, 1, 10000000, &c->max_batch_tokens, error);
  if (strcmp (key, "chunked_prefill") == 0)
    return sim__keys_parse_bool (value, &c->chunked_prefill, error);
  if (strcmp (key, "replicas") == 0)
    return parse_uint (value, 1, 100000, &c->replicas, error);
  if (strcmp (key, "router") == 0)
    {
      static const char * const names[] = { "round_robin", "least_outstanding", "kv_aware" };
      guint i;
      if (!parse_choice (value, names, 3, &i, error))
        return FALSE;
      c->router = (SimServeRouter) i;
      return TRUE;
    }
  if (strcmp (key, "memory_share") == 0)
    return sim__keys_parse_share_percent (value, 0, TRUE, "a share",
                                          &c->memory_share, error);
  if (strcmp (key, "kv_block") == 0)
    return parse_uint (value, 1, 4096, &c->kv_block, error);
  if (strcmp (key, "slo_ttft") == 0)
    return parse_seconds (value, TRUE, &c->slo_ttft, error);
  if (strcmp (key, "slo_tpot") == 0)
    return parse_seconds (value, TRUE, &c->slo_tpot, error);
  if (strcmp (key, "autoscale") == 0)
    return sim__keys_parse_bool (value, &c->autoscale, error);
  if (strcmp (key, "min_replicas") == 0)
    return parse_uint (value, 1, 100000, &c->min_replicas, error);
  if (strcmp (key, "max_replicas") == 0)
    return parse_uint (value, 1, 100000, &c->max_replicas, error);
  if (strcmp (key, "target_outstanding") == 0)
    {
      if (!sim_parse_number (value, 1e-9, 1e9, &c->target_outstanding, error))
        return FALSE;
      return TRUE;
    }
  if (strcmp (key, "startup") == 0)
    return parse_seconds (value, FALSE, &c->startup, error);
  if (strcmp (key, "scale_down_delay") == 0)
    return parse_seconds (value, FALSE, &c->scale_down_delay, error);
  if (strcmp (key, "autoscale_interval") == 0)
    return parse_seconds (value, TRUE, &c->autoscale_interval, error);
  if (strcmp (key, "pp") == 0)
    return parse_uint (value, 1, 64, &c->pp, error);
  if (strcmp (key, "mig") == 0)
    {
      if (value[0] == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "empty: expected a MIG profile such as 3g.40gb");
          return FALSE;
        }
      g_free (c->mig);
      c->mig = g_strdup (value);
      return TRUE;
    }
  if (strcmp (key, "replicas_per_gpu") == 0)
    return parse_uint (value, 1, 64, &c->replicas_per_gpu, error);
  if (strcmp (key, "disaggregated") == 0)
    return sim__keys_parse_bool (value, &c->disaggregated, error);
  if (strcmp (key, "prefill_replicas") == 0)
    return parse_uint (value, 1, 100000, &c->prefill_replicas, error);
  if (strcmp (key, "decode_replicas") == 0)
    return parse_uint (value, 1, 100000, &c->decode_replicas, error);
  if (strcmp (key, "prefill_tp") == 0)
    return parse_uint (value, 1, 64, &c->prefill_tp, error);
  if (strcmp (key, "decode_tp") == 0)
    return parse_uint (value, 1, 64, &c->decode_tp, error);
  if (strcmp (key, "priority") == 0)
    {
      gint64 v;
      if (!sim_parse_integer (value, -1000000, 1000000, &v, error))
        return FALSE;
      c->priority = (gint) v;
      return TRUE;
    }
  if (strcmp (key, "load_time") == 0)
    return parse_seconds (value, FALSE, &c->load_time, error);
  if (strcmp (key, "whole_nodes") == 0)
    return sim__keys_parse_bool (value, &c->whole_nodes, error);
  if (strcmp (key, "in_runs") == 0)
    return sim__keys_parse_bool (value, &c->in_runs, error);
  sim__keys_set_unknown (&sim__serving_key_table, key, error);
  return FALSE;
}

void
sim__serve_requests_init (SimServeRequests *r)
{
  memset (r, 0, sizeof *r);
  sim__keys_apply_defaults_with (&sim__requests_key_table, sim__serve_requests_set, r);
  /* A trace is read whole unless a count is given. */
  r->count_given = FALSE;
}

void
sim__serve_requests_clear (SimServeRequests *r)
{
  g_clear_pointer (&r->name, g_free);
  g_clear_pointer (&r->profile, g_free);
  g_clear_pointer (&r->trace, g_free);
}

static gboolean
set_distribution (const char *value, SimServeLengthKind *out, GError **error)
{
  static const char * const names[] = { "fixed", "exponential", "lognormal" };
  guint i;

  if (!parse_choice (value, names, 3, &i, error))
    return FALSE;
  *out = (SimServeLengthKind) i;
  return TRUE;
}

gboolean
sim__serve_requests_set (gpointer data, const char *key, const char *value, GError **error)
{
  SimServeRequests *r = data;

  if (strcmp (key, "arrival") == 0)
    {
      static const char * const names[] = { "poisson", "batch", "trace" };
      guint i;
      if (!parse_choice (value, names, 3, &i, error))
        return FALSE;
      r->arrival = (SimServeArrival) i;
      return TRUE;
    }
  if (strcmp (key, "rate") == 0)
    {
      if (!sim_parse_rate (value, &r->rate, error))
        return FALSE;
      if (!(r->rate > 0))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: expected a rate above 0",
                       value);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (key, "count") == 0)
    {
      r->count_given = TRUE;
      return parse_uint (value, 1, 1000000000, &r->count, error);
    }
  if (strcmp (key, "profile") == 0)
    {
      g_auto(GStrv) parts = g_strsplit_set (value, ", ", -1);
      g_autofree double *p = g_new0 (double, 24);
      guint n = 0;
      double sum = 0;

      for (guint i = 0; parts[i] != NULL; i++)
        {
          if (parts[i][0] == '\0')
            continue;
          if (n == 24)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "more than 24 values: expected one factor per hour of the day");
              return FALSE;
            }
          if (!sim_parse_number (parts[i], 0, 1e6, &p[n], error))
            return FALSE;
          sum += p[n++];
        }
      if (n != 24 || sum <= 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       n != 24 ? "%u values: expected 24, one factor per hour of the day"
                               : "every factor is 0: expected some hour with requests", n);
          return FALSE;
        }
      g_free (r->profile);
      r->profile = g_steal_pointer (&p);
      return TRUE;
    }
  if (strcmp (key, "start_hour") == 0)
    return sim_parse_number (value, 0, 24, &r->start_hour, error);
  if (strcmp (key, "burst_start") == 0)
    return parse_seconds (value, FALSE, &r->burst_start, error);
  if (strcmp (key, "burst_duration") == 0)
    return parse_seconds (value, FALSE, &r->burst_duration, error);
  if (strcmp (key, "burst_factor") == 0)
    {
      if (!sim_parse_number (value, 0, 1e6, &r->burst_factor, error))
        return FALSE;
      if (r->burst_factor <= 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: expected a factor above 0",
                       value);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (key, "input_tokens") == 0)
    return sim_parse_number (value, 1, 1e7, &r->input.mean, error);
  if (strcmp (key, "output_tokens") == 0)
    return sim_parse_number (value, 1, 1e7, &r->output.mean, error);
  if (strcmp (key, "input_distribution") == 0)
    return set_distribution (value, &r->input.kind, error);
  if (strcmp (key, "output_distribution") == 0)
    return set_distribution (value, &r->output.kind, error);
  if (strcmp (key, "input_cv") == 0)
    return sim_parse_number (value, 1e-6, 100, &r->input.cv, error);
  if (strcmp (key, "output_cv") == 0)
    return sim_parse_number (value, 1e-6, 100, &r->output.cv, error);
  if (strcmp (key, "input_max") == 0)
    return parse_uint (value, 0, 100000000, &r->input.max, error);
  if (strcmp (key, "output_max") == 0)
    return parse_uint (value, 0, 100000000, &r->output.max, error);
  if (strcmp (key, "trace") == 0)
    {
      g_free (r->trace);
      r->trace = g_strdup (value);
      return TRUE;
    }
  if (strcmp (key, "prefix_share") == 0)
    return sim__keys_parse_share_percent (value, 0, FALSE, "a share", &r->prefix_share, error);
  if (strcmp (key, "prefix_tokens") == 0)
    return parse_uint (value, 0, 1000000, &r->prefix_tokens, error);
  if (strcmp (key, "prefixes") == 0)
    return parse_uint (value, 1, 100000, &r->prefixes, error);
  sim__keys_set_unknown (&sim__requests_key_table, key, error);
  return FALSE;
}

/* The keys of where a replica runs, against each other: a MIG instance
 * or a time-shared GPU holds a whole replica, and disaggregation has its
 * own replicas and tp on each side. */
static gboolean
check_placement (const SimServeConfig *c, const char **key, GError **error)
{
  SimServeConfig plain;
  const char *bad = NULL, *why = NULL;

  sim__serve_config_init (&plain);
  if (c->mig != NULL && (c->tp > 1 || c->pp > 1 || c->replicas_per_gpu > 1))
    bad = "mig", why = "a MIG instance holds a whole replica: expected tp = 1, pp = 1 and "
                       "replicas_per_gpu = 1 with it";
  else if (c->replicas_per_gpu > 1 && (c->tp > 1 || c->pp > 1))
    bad = "replicas_per_gpu", why = "replicas time-share one GPU each: expected tp = 1 and "
                                    "pp = 1 with it";
  else if (!c->disaggregated && c->prefill_replicas != plain.prefill_replicas)
    bad = "prefill_replicas";
  else if (!c->disaggregated && c->decode_replicas != plain.decode_replicas)
    bad = "decode_replicas";
  else if (!c->disaggregated && c->prefill_tp != 0)
    bad = "prefill_tp";
  else if (!c->disaggregated && c->decode_tp != 0)
    bad = "decode_tp";
  else if (c->disaggregated && c->replicas != plain.replicas)
    bad = "replicas", why = "with disaggregated, prefill_replicas and decode_replicas count "
                            "the replicas: expected replicas unset";
  else if (c->disaggregated && c->autoscale)
    bad = "autoscale", why = "the autoscaler scales colocated replicas: expected "
                             "disaggregated = false with it";
  else if (c->disaggregated && (c->mig != NULL || c->replicas_per_gpu > 1 || c->pp > 1))
    bad = "disaggregated", why = "disaggregated replicas run on whole GPUs: expected no mig, "
                                 "replicas_per_gpu = 1 and pp = 1 with it";
  sim__serve_config_clear (&plain);
  if (bad == NULL)
    return TRUE;
  *key = bad;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s",
               why != NULL ? why : "a key of disaggregation: expected disaggregated = true "
                                   "as well");
  return FALSE;
}

/* The checks across a deployment's keys; on error, *KEY names the key to
 * blame. */
gboolean
sim__serve_config_check (const SimServeConfig *c, const char **key, GError **error)
{
  static const char * const scaling[] = { "min_replicas", "max_replicas",
                                          "target_outstanding", "startup", "scale_down_delay",
                                          "autoscale_interval" };
  guint max = c->max_replicas > 0 ? c->max_replicas : c->replicas;

  *key = NULL;
  if (!check_placement (c, key, error))
    return FALSE;
  if (!c->autoscale)
    {
      SimServeConfig plain;
      sim__serve_config_init (&plain);
      /* A key of the autoscaler away from its default without autoscale
       * would do nothing: it is refused rather than ignored. */
      for (guint i = 0; i < G_N_ELEMENTS (scaling); i++)
        {
          gboolean differs =
            (i == 0 && c->min_replicas != plain.min_replicas)
            || (i == 1 && c->max_replicas != plain.max_replicas)
            || (i == 2 && c->target_outstanding != plain.target_outstanding)
            || (i == 3 && c->startup != plain.startup)
            || (i == 4 && c->scale_down_delay != plain.scale_down_delay)
            || (i == 5 && c->autoscale_interval != plain.autoscale_interval);
          if (differs)
            {
              *key = scaling[i];
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "a key of the autoscaler: expected autoscale = true as well");
              sim__serve_config_clear (&plain);
              return FALSE;
            }
        }
      sim__serve_config_clear (&plain);
      return TRUE;
    }
  if (c->min_replicas > c->replicas)
    {
      *key = "min_replicas";
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u: expected at most replicas = %u (the replicas at time 0)",
                   c->min_replicas, c->replicas);
      return FALSE;
    }
  if (max < c->replicas)
    {
      *key = "max_replicas";
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u: expected at least replicas = %u (the replicas at time 0)", max,
                   c->replicas);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Reading a scenario's sections */

typedef struct {
  SimKeyReader reader;
  const char  *path;
  SimKeyLines *lines;
} ServeReader;

static void
serve_locate (const SimKeyReader *reader, const char *group, const char *key, GError **error)
{
  const ServeReader *r = (const ServeReader *) reader;
  guint line = r->lines != NULL ? sim__key_lines_find (r->lines, group,
                                                       key != NULL ? key : NULL) : 0;
  g_autofree char *at = line > 0 ? g_strdup_printf ("%s:%u", r->path, line)
                                 : g_strdup (r->path);

  if (key != NULL)
    g_prefix_error (error, "%s: [%s] %s: ", at, group, key);
  else
    g_prefix_error (error, "%s: [%s]: ", at, group);
}

/* The one group of KF named "PREFIX NAME" (NAME NULL: the only such group). */
static char *
find_group (GKeyFile *kf, const char *prefix, const char *name, const char *path,
            GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (kf, NULL);
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *want = name != NULL ? g_strdup_printf ("%s %s", prefix, name) : NULL;
  char *found = NULL;
  guint n = 0;
  gsize plen = strlen (prefix);

  for (guint i = 0; groups[i] != NULL; i++)
    {
      if (strncmp (groups[i], prefix, plen) != 0 || groups[i][plen] != ' ')
        continue;
      n++;
      g_string_append_printf (names, "%s%s", names->len ? ", " : "", groups[i] + plen + 1);
      if (want != NULL ? strcmp (groups[i], want) == 0 : n == 1)
        {
          g_free (found);
          found = g_strdup (groups[i]);
        }
    }
  if (name == NULL && n > 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: %u [%s NAME] sections (%s): expected a deployment's name", path, n,
                   prefix, names->str);
      g_free (found);
      return NULL;
    }
  if (found == NULL)
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND, "%s: no [%s %s] section%s%s", path,
                 prefix, name != NULL ? name : "NAME", n > 0 ? "; it has: " : "",
                 names->str);
  return found;
}

gboolean
sim__serve_read_group (const SimKeyReader *reader, const char *group, SimServeConfig *config,
                       SimServeRequests *requests, GError **error)
{
  g_autofree char *rgroup = NULL;

  config->name = g_strdup (group + strlen ("serving "));
  if (!sim__keys_check_group (reader, &sim__serving_key_table, group, error)
      || !sim__keys_read_each (reader, group, sim__serve_config_set, config, error))
    return FALSE;
  for (guint i = 0; i < sim__serving_key_table.n_keys; i++)
    if ((serving_keys[i].flags & SIM_KEY_REQUIRED) && !sim__keys_has (reader, group,
                                                                       serving_keys[i].name))
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing: expected %s",
                     serving_keys[i].doc);
        sim__keys_locate (reader, group, serving_keys[i].name, error);
        return FALSE;
      }
  {
    const char *key = NULL;
    if (!sim__serve_config_check (config, &key, error))
      {
        sim__keys_locate (reader, group, key, error);
        return FALSE;
      }
  }
  rgroup = g_strdup_printf ("requests %s", config->requests);
  if (!g_key_file_has_group (reader->kf, rgroup))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                   "\"%s\": expected the name of a [requests NAME] section of the scenario",
                   config->requests);
      sim__keys_locate (reader, group, "requests", error);
      return FALSE;
    }
  requests->name = g_strdup (config->requests);
  if (!sim__keys_check_group (reader, &sim__requests_key_table, rgroup, error)
      || !sim__keys_read_each (reader, rgroup, sim__serve_requests_set, requests,
                               error))
    return FALSE;
  if (requests->trace != NULL && !g_path_is_absolute (requests->trace)
      && reader->base_dir != NULL)
    {
      char *full = g_build_filename (reader->base_dir, requests->trace, NULL);
      g_free (requests->trace);
      requests->trace = full;
    }
  {
    const char *missing = NULL;
    if (requests->arrival == SIM_SERVE_ARRIVAL_TRACE && requests->trace == NULL)
      missing = "trace";
    else if (requests->arrival == SIM_SERVE_ARRIVAL_POISSON && requests->rate <= 0)
      missing = "rate";
    else if (requests->arrival != SIM_SERVE_ARRIVAL_TRACE && requests->input.mean <= 0)
      missing = "input_tokens";
    else if (requests->arrival != SIM_SERVE_ARRIVAL_TRACE && requests->output.mean <= 0)
      missing = "output_tokens";
    if (requests->trace != NULL && requests->arrival != SIM_SERVE_ARRIVAL_TRACE)
      {
        /* The trace would be left unread: say so rather than run without it. */
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "a trace with arrival = %s, which does not read it: expected arrival = "
                     "trace, or no trace key",
                     requests->arrival == SIM_SERVE_ARRIVAL_BATCH ? "batch" : "poisson");
        sim__keys_locate (reader, rgroup, "trace", error);
        return FALSE;
      }
    if (missing != NULL)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing: expected %s with arrival = %s",
                     missing, requests->arrival == SIM_SERVE_ARRIVAL_TRACE ? "trace"
                     : requests->arrival == SIM_SERVE_ARRIVAL_BATCH ? "batch" : "poisson");
        sim__keys_locate (reader, rgroup, missing, error);
        return FALSE;
      }
  }
  return TRUE;
}

gboolean
sim__serve_read (const SimScenario *sc, const char *name, SimServeConfig *config,
                 SimServeRequests *requests, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *text = NULL;
  g_autofree char *group = NULL;
  gsize len = 0;
  ServeReader reader = { { NULL, NULL, serve_locate }, NULL, NULL };
  gboolean ok = FALSE;

  sim__serve_config_init (config);
  sim__serve_requests_init (requests);
  if (sc->path == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the scenario has no file: expected one with a [serving NAME] section");
      return FALSE;
    }
  if (!g_file_get_contents (sc->path, &text, &len, error)
      || !sim__key_file_load (kf, text, len, error))
    return FALSE;
  reader.reader.kf = kf;
  reader.reader.base_dir = sc->base_dir;
  reader.path = sc->path;
  reader.lines = sim__key_lines_new (text, (gssize) len, sc->path, NULL);

  group = find_group (kf, "serving", name, sc->path, error);
  if (group == NULL)
    goto out;
  /* Replicas time-sharing a GPU lose what the cluster's sharing model
   * says switching costs (cluster/sim-sharing.h). */
  config->timeslice_overhead = sc->sharing.mode == SIM_SHARING_MPS
                               ? sc->sharing.mps_overhead : sc->sharing.timeslice_overhead;
  ok = sim__serve_read_group (&reader.reader, group, config, requests, error);
out:
  g_clear_pointer (&reader.lines, sim__key_lines_free);
  return ok;
}
