/* gpusim serve: one deployment of a language model answering its
 * requests: latency, goodput, throughput, KV cache and cost per token.
 *
 *   gpusim serve SCENARIO [--deployment NAME] [--set KEY=VALUE]...
 *                [--target-p99-ttft DURATION [--max-replicas N]] [--json]
 */
#include "config.h"

#include <sim.h>
#include "serve/sim-serve-private.h"
#include "gpusim-cli.h"

#include <stdio.h>
#include <string.h>

static void
print_stats (const char *name, const double v[5], double scale, const char *unit)
{
  printf ("%-15s mean %.1f, p50 %.1f, p95 %.1f, p99 %.1f, max %.1f %s\n", name, v[0] * scale,
          v[1] * scale, v[2] * scale, v[3] * scale, v[4] * scale, unit);
}

static void
print_report (const SimServeReport *r)
{
  const SimServeResult *x = &r->result;

  if (r->config.disaggregated)
    printf ("# gpusim serve: [serving %s]: %s (%.1fB parameters), %u prefill replica%s of %u "
            "%s and %u decode of %u, %s", r->config.name, r->model, r->parameters / 1e9,
            r->config.prefill_replicas, r->config.prefill_replicas == 1 ? "" : "s",
            r->replica.tp, r->gpu, r->config.decode_replicas,
            r->replica.decode != NULL ? r->replica.decode->tp : 0,
            r->config.precision == SIM_LLM_PRECISION_FP8 ? "FP8" : "BF16");
  else if (r->config.mig != NULL || r->config.replicas_per_gpu > 1)
    {
      g_autofree char *where = r->config.mig != NULL
        ? g_strdup_printf ("a %s instance of %s", r->config.mig, r->gpu)
        : g_strdup_printf ("1 / %u of %s", r->config.replicas_per_gpu, r->gpu);
      printf ("# gpusim serve: [serving %s]: %s (%.1fB parameters), %u replica%s, each on %s, "
              "%s", r->config.name, r->model, r->parameters / 1e9, r->config.replicas,
              r->config.replicas == 1 ? "" : "s", where,
              r->config.precision == SIM_LLM_PRECISION_FP8 ? "FP8" : "BF16");
    }
  else
    printf ("# gpusim serve: [serving %s]: %s (%.1fB parameters), %u replica%s of %u %s%s, %s",
            r->config.name, r->model, r->parameters / 1e9, r->config.replicas,
            r->config.replicas == 1 ? "" : "s", r->config.tp * r->config.pp, r->gpu,
            r->config.pp > 1 ? " in pipeline stages" : "",
            r->config.precision == SIM_LLM_PRECISION_FP8 ? "FP8" : "BF16");
  if (r->config.autoscale)
    printf (" at time 0, autoscaled between %u and %u", r->config.min_replicas,
            r->config.max_replicas > 0 ? r->config.max_replicas : r->config.replicas);
  printf ("\n");
  printf ("requests        %" G_GUINT64_FORMAT " in %.1f s (%.2f/s), %.0f tokens in, %.0f out\n",
          x->requests, x->makespan, x->arrival_rate, x->input_tokens, x->output_tokens);
  print_stats ("TTFT", x->ttft, 1e3, "ms");
  print_stats ("TPOT", x->tpot, 1e3, "ms");
  print_stats ("end to end", x->e2e, 1, "s");
  printf ("goodput         %.2f requests/s meet TTFT <= %.3g s and TPOT <= %.3g s (%.1f %%)\n",
          x->goodput, r->config.slo_ttft, r->config.slo_tpot, 100 * x->slo_attainment);
  printf ("throughput      %.0f tokens/s (%.0f output tokens/s)\n", x->tokens_per_second,
          x->output_tokens_per_second);
  printf ("KV cache        %.0f tokens per replica, %.1f %% used on average, %" G_GUINT64_FORMAT
          " preemptions\n", x->kv_capacity_tokens, 100 * x->kv_utilization, x->preemptions);
  printf ("replicas        busy %.1f %% of the time, %.1f sequences decoded per iteration\n",
          100 * x->gpu_busy, x->mean_batch);
  if (r->config.disaggregated)
    printf ("KV transfers    %" G_GUINT64_FORMAT " to decode replicas, %.2f ms each on average "
            "(links included)\n", x->kv_transfers, 1e3 * x->kv_transfer_mean);
  if (x->prefix_requests > 0)
    printf ("prefix cache    %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " admissions with a "
            "shared prefix found it cached (%.1f %%), %.0f prompt tokens skipped\n",
            x->prefix_hits, x->prefix_lookups,
            x->prefix_lookups > 0 ? 100.0 * x->prefix_hits / x->prefix_lookups : 0,
            x->prefix_hit_tokens);
  if (r->config.autoscale)
    printf ("autoscaler      %.2f replicas on average, %u at most; %" G_GUINT64_FORMAT
            " started, %" G_GUINT64_FORMAT " stopped\n",
            x->makespan > 0 ? x->replica_seconds / x->makespan : 0, x->peak_replicas,
            x->scale_ups, x->scale_downs);
  if (r->owned_usd_per_gpu_hour > 0)
    printf ("cost, owned     $%.3f per million tokens ($%.2f per GPU-hour)\n",
            r->owned_usd_per_million_tokens, r->owned_usd_per_gpu_hour);
  if (r->cloud != NULL)
    printf ("cost, rented    $%.3f per million tokens on %s ($%.2f per GPU-hour)\n",
            r->cloud_usd_per_million_tokens, r->cloud, r->cloud_usd_per_gpu_hour);
}

int
gpusim_cmd_serve (int argc, char **argv)
{
  g_autofree char *deployment = NULL, *target_text = NULL;
  g_auto(GStrv) sets = NULL;
  gint max_replicas = G_MININT;   /* not given: 1024 */
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "deployment", 'd', 0, G_OPTION_ARG_STRING, &deployment,
      "the [serving NAME] section (default: the only one)", "NAME" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "override a key of the deployment, or of its requests as requests.KEY", "KEY=VALUE" },
    { "target-p99-ttft", 0, 0, G_OPTION_ARG_STRING, &target_text,
      "find the fewest replicas whose p99 time to first token is at most this", "DURATION" },
    { "max-replicas", 0, 0, G_OPTION_ARG_INT, &max_replicas,
      "with --target-p99-ttft: the most replicas to try (default 1024)", "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print JSON", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("SCENARIO - serve a language model's requests");
  g_autoptr(GError) error = NULL;
  g_auto(SimServeReport) report = { 0 };
  guint probes = 0;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Simulates a deployment ([serving NAME]) answering its requests ([requests NAME]):\n"
    "replicas batch continuously with a paged KV cache; prints time to first token, time\n"
    "per output token and end-to-end latency (mean, p50, p95, p99), goodput under the\n"
    "SLOs, throughput, KV-cache use and cost per million tokens.  See docs/serving.md.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  for (char **s = sets; s != NULL && *s != NULL; s++)
    if (strchr (*s, '=') == NULL || **s == '=')
      return gpusim_usage_error (context, "--set %s: expected KEY=VALUE or requests.KEY=VALUE, "
                                 "e.g. --set replicas=4", *s);
  if (argc != 2)
    return gpusim_usage_error (context, "%s", argc < 2 ? "serve needs a SCENARIO file"
                                                       : "too many arguments");
  if (max_replicas != G_MININT && target_text == NULL)
    return gpusim_usage_error (context, "--max-replicas needs --target-p99-ttft");
  if (max_replicas == G_MININT)
    max_replicas = 1024;
  if (max_replicas < 1)
    return gpusim_usage_error (context, "--max-replicas %d: expected at least 1", max_replicas);
  if (target_text != NULL)
    {
      SimTime target;
      if (!sim_parse_duration (target_text, &target, &error) || target <= 0)
        return gpusim_usage_error (context, "--target-p99-ttft %s: expected a duration above "
                                   "0, such as 2s", target_text);
      if (!sim__serve_min_replicas (argv[1], deployment, (const char * const *) sets,
                                    sim_time_to_seconds (target), (guint) max_replicas,
                                    &report, &probes, &error))
        return gpusim_input_error (error);
    }
  else if (!sim__serve_run (argv[1], deployment, (const char * const *) sets, &report, &error))
    return gpusim_input_error (error);
  if (json)
    {
      g_autofree char *text = sim__serve_report_to_json (&report);
      printf ("%s\n", text);
    }
  else
    {
      if (target_text != NULL)
        printf ("# the fewest replicas with p99 TTFT <= %s: %u (%u runs)\n", target_text,
                report.config.replicas, probes);
      print_report (&report);
    }
  return fflush (stdout) == 0 ? 0 : 1;
}
