/* gpusim llm: one training step of a language model on a scenario's
 * cluster and fabric, or the best layouts for its GPUs.
 *
 *   gpusim llm SCENARIO --model NAME [--tp N] [--pp N] [--cp N] [--ep N] [--dp N]
 *              [--micro-batch N] [--global-batch N] [--seq N] [--tokens N]
 *              [--layout KEY=VALUE]... [--search] [--top N] [--json]
 *   gpusim llm --list
 */
#include "config.h"

#include <sim.h>
#include "llm/sim-llm-private.h"
#include "gpusim-cli.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

static void
print_estimate (const SimLlmModel *m, const SimGpuModel *gpu, const SimLlmLayout *l,
                const SimLlmEstimate *e, const SimLlmBudget *budget)
{
  static const char *names[SIM_LLM_COMM_N_KINDS] = {
    "tensor parallel", "pipeline send/recv", "data parallel", "context parallel",
    "expert all-to-all" };

  printf ("# gpusim llm: %s (%.1fB parameters) on %u %s\n", m->name, e->parameters / 1e9,
          e->gpus, gpu->name);
  printf ("layout          tp %u, pp %u (x%u virtual), cp %u, ep %u, dp %u; ZeRO %u, %s "
          "recomputation, %s%s\n", l->tp, l->pp, l->virtual_stages, l->cp, l->ep, e->dp,
          l->zero_stage,
          l->recompute == SIM_LLM_RECOMPUTE_FULL ? "full"
          : l->recompute == SIM_LLM_RECOMPUTE_NONE ? "no" : "selective",
          l->precision == SIM_LLM_PRECISION_FP8 ? "FP8" : "BF16",
          l->sequence_parallel && l->tp > 1 ? ", sequence parallel" : "");
  printf ("batch           %u sequences of %u tokens, %u micro-batches of %u per rank\n",
          l->global_batch, l->seq_length, e->micro_batches, l->micro_batch);
  printf ("iteration       %.3f s (compute %.3f s, bubble %.3f s = %.1f %%, optimizer %.3f s)\n",
          e->iteration_time, e->compute_time, e->bubble_time, 100 * e->bubble_fraction,
          e->optimizer_time);
  printf ("throughput      %.0f tokens/s, %.1f TFLOP/s per GPU, MFU %.1f %%\n",
          e->tokens_per_second, e->tflops_per_gpu, 100 * e->mfu);
  printf ("memory per GPU  %.1f GB of %.1f: weights %.1f, gradients %.1f, optimizer %.1f, "
          "activations %.1f, logits %.1f, reserved %.1f\n", e->memory_per_gpu / 1e9,
          e->memory_capacity / 1e9, e->memory_weights / 1e9, e->memory_gradients / 1e9,
          e->memory_optimizer / 1e9, e->memory_activations / 1e9, e->memory_logits / 1e9,
          e->memory_reserved / 1e9);
  printf ("communication   per step: exposed / hidden\n");
  for (guint k = 0; k < SIM_LLM_COMM_N_KINDS; k++)
    if (e->comm_time[k] > 0)
      printf ("  %-19s %9.3f s / %.3f s\n", names[k], e->comm_exposed[k],
              MAX (0, e->comm_time[k] - e->comm_exposed[k]));
  if (e->train_time > 0)
    {
      printf ("token budget    %.3g tokens: %.0f steps, %.1f days, %.0f GPU-hours\n",
              e->train_steps * e->tokens_per_step, e->train_steps, e->train_time / 86400,
              e->gpu_hours);
      if (budget->owned_usd > 0)
        printf ("cost, owned     $%.0f ($%.2f per GPU-hour: amortized nodes, maintenance, "
                "energy)\n", budget->owned_usd, budget->owned_usd_per_gpu_hour);
      if (budget->cloud != NULL)
        printf ("cost, rented    $%.0f on %s ($%.2f per GPU-hour on demand)\n",
                budget->cloud_usd, budget->cloud, budget->cloud_usd_per_gpu_hour);
      printf ("interruptions   %.1f expected (failure profile %s)\n", budget->interruptions,
              budget->failure_profile ? budget->failure_profile : "none");
    }
}

static void
print_search (const SimLlmModel *m, const SimGpuModel *gpu, GArray *top, guint tried)
{
  const SimLlmCandidate *first = &g_array_index (top, SimLlmCandidate, 0);

  printf ("# gpusim llm --search: %s on %u %s, %u sequences of %u tokens; %u layouts tried, "
          "the %u fastest that fit\n", m->name, first->estimate.gpus, gpu->name,
          first->layout.global_batch, first->layout.seq_length, tried, top->len);
  printf ("%4s %4s %3s %4s %4s %6s %4s %4s %-9s %10s %8s %7s %9s\n", "tp", "pp", "v", "cp", "ep",
          "dp", "mb", "zero", "recompute", "iteration", "TFLOP/s", "MFU", "memory");
  printf ("%4s %4s %3s %4s %4s %6s %4s %4s %-9s %10s %8s %7s %9s\n", "", "", "", "", "", "", "",
          "", "", "(s)", "per GPU", "", "(GB)");
  for (guint i = 0; i < top->len; i++)
    {
      const SimLlmCandidate *c = &g_array_index (top, SimLlmCandidate, i);
      const SimLlmLayout *l = &c->layout;
      printf ("%4u %4u %3u %4u %4u %6u %4u %4u %-9s %10.3f %8.1f %6.1f%% %9.1f\n", l->tp, l->pp,
              l->virtual_stages, l->cp, l->ep, c->estimate.dp, l->micro_batch, l->zero_stage,
              l->recompute == SIM_LLM_RECOMPUTE_FULL ? "full" : "selective",
              c->estimate.iteration_time, c->estimate.tflops_per_gpu, 100 * c->estimate.mfu,
              c->estimate.memory_per_gpu / 1e9);
    }
}

static int
list_models (void)
{
  g_auto(GStrv) names = sim_llm_model_list (NULL);

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SimLlmModel) m = sim_llm_model_load (names[i], NULL, &error);
      if (m == NULL)
        printf ("%-20s (%s)\n", names[i], error->message);
      else
        printf ("%-20s %7.1fB  %s\n", m->name, sim_llm_model_parameters (m) / 1e9,
                m->description ? m->description : "");
    }
  return fflush (stdout) == 0 ? 0 : 1;
}

int
gpusim_cmd_llm (int argc, char **argv)
{
  g_autofree char *model_name = NULL, *tokens = NULL;
  g_auto(GStrv) layout_args = NULL, sets = NULL;
  /* (G_MININT: not given, the layout's default.) */
  gint tp = G_MININT, pp = G_MININT, cp = G_MININT, ep = G_MININT, dp = G_MININT;
  gint micro = G_MININT, global = G_MININT, seq = G_MININT;
  gint top = G_MININT;   /* not given: 10 */
  gboolean json = FALSE, search = FALSE, list = FALSE;
  GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_name,
      "a model of the catalogue (gpusim llm --list), a model file, or an [llm NAME] section "
      "of the scenario", "NAME" },
    { "tp", 0, 0, G_OPTION_ARG_INT, &tp, "tensor-parallel degree (default 1)", "N" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &pp, "pipeline-parallel degree (default 1)", "N" },
    { "cp", 0, 0, G_OPTION_ARG_INT, &cp, "context-parallel degree (default 1)", "N" },
    { "ep", 0, 0, G_OPTION_ARG_INT, &ep, "expert-parallel degree (default 1)", "N" },
    { "dp", 0, 0, G_OPTION_ARG_INT, &dp,
      "data-parallel degree (default: every GPU of the cluster)", "N" },
    { "micro-batch", 0, 0, G_OPTION_ARG_INT, &micro, "sequences per micro-batch (default 1)",
      "N" },
    { "global-batch", 0, 0, G_OPTION_ARG_INT, &global,
      "sequences per step (default micro-batch x dp)", "N" },
    { "seq", 0, 0, G_OPTION_ARG_INT, &seq, "tokens per sequence (default: the model's)", "N" },
    { "tokens", 0, 0, G_OPTION_ARG_STRING, &tokens,
      "a token budget, such as 15T: time, cost and interruptions to train on it", "N" },
    { "layout", 'l', 0, G_OPTION_ARG_STRING_ARRAY, &layout_args,
      "another layout key: zero_stage, recompute, precision, virtual_stages, "
      "sequence_parallel, flash_attention, tp_overlap, overlap_grad_reduce, gpus",
      "KEY=VALUE" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a scenario key",
      "SECTION.KEY=VALUE" },
    { "search", 0, 0, G_OPTION_ARG_NONE, &search,
      "time every layout of the GPUs (--layout gpus=N, default all) and print the fastest",
      NULL },
    { "top", 0, 0, G_OPTION_ARG_INT, &top, "with --search: how many to print (default 10)",
      "N" },
    { "list", 0, 0, G_OPTION_ARG_NONE, &list, "list the catalogue's models", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print JSON", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("SCENARIO - a training step of a language model on the cluster");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimLlmModel) model = NULL;
  g_auto(SimLlmSetup) setup = { 0 };
  SimLlmLayout layout;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Times one training step of a model on a parallel layout, with the scenario's GPUs\n"
    "and fabric: iteration time, tokens/s, TFLOP/s per GPU, MFU, memory per GPU and its\n"
    "parts, and each kind of communication, exposed and hidden.  With --tokens, the time,\n"
    "cost and expected interruptions of training on them.  A layout that does not fit\n"
    "the GPUs' memory is refused with the numbers.  See docs/llm.md.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (gpusim_check_sets (context, sets) != 0)
    return 2;
  if (list)
    return list_models ();
  if (argc != 2)
    return gpusim_usage_error (context, "%s", argc < 2 ? "llm needs a SCENARIO file"
                                                       : "too many arguments");
  if (model_name == NULL)
    return gpusim_usage_error (context, "--model NAME is needed (gpusim llm --list)");

  sim_llm_layout_init (&layout);
  {
    /* The options' values go through the layout's own keys, so that their
     * messages are the library's. */
    const struct { const char *key; gint value; } ints[] = {
      { "tp", tp }, { "pp", pp }, { "cp", cp }, { "ep", ep }, { "dp", dp },
      { "micro_batch", micro }, { "global_batch", global }, { "seq_length", seq },
    };
    for (guint i = 0; i < G_N_ELEMENTS (ints); i++)
      if (ints[i].value != G_MININT)
        {
          g_autofree char *text = g_strdup_printf ("%d", ints[i].value);
          if (!sim_llm_layout_set (&layout, ints[i].key, text, &error))
            return gpusim_usage_error (context, "%s", error->message);
        }
  }
  if (tokens != NULL && !sim_llm_layout_set (&layout, "tokens", tokens, &error))
    return gpusim_usage_error (context, "%s", error->message);
  for (guint i = 0; layout_args != NULL && layout_args[i] != NULL; i++)
    if (!sim_llm_layout_parse (&layout, layout_args[i], &error))
      return gpusim_usage_error (context, "%s", error->message);
  if (top != G_MININT && !search)
    return gpusim_usage_error (context, "--top needs --search");
  if (top == G_MININT)
    top = 10;
  if (top < 1)
    return gpusim_usage_error (context, "--top %d: expected at least 1", top);

  if (!sim__llm_setup (&setup, argv[1], (const char * const *) sets, &error))
    return gpusim_input_error (error);
  gpusim_print_topology_warnings (setup.topology);
  model = sim__llm_model_for_scenario (setup.scenario, model_name, &error);
  if (model == NULL)
    return gpusim_input_error (error);

  if (search)
    {
      guint tried = 0;
      g_autoptr(GArray) best = sim_llm_search (setup.system, model, &layout, (guint) top,
                                               &tried, &error);
      if (best == NULL)
        return gpusim_input_error (error);
      if (json)
        {
          g_autoptr(JsonBuilder) b = json_builder_new ();
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "model");
          json_builder_add_string_value (b, model->name);
          json_builder_set_member_name (b, "layouts_tried");
          json_builder_add_int_value (b, tried);
          json_builder_set_member_name (b, "layouts");
          json_builder_begin_array (b);
          for (guint i = 0; i < best->len; i++)
            {
              const SimLlmCandidate *c = &g_array_index (best, SimLlmCandidate, i);
              json_builder_begin_object (b);
              sim__llm_estimate_to_json (b, &c->layout, &c->estimate);
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
          json_builder_end_object (b);
          gpusim_print_json (b);
        }
      else
        print_search (model, sim_llm_system_get_gpu (setup.system), best, tried);
    }
  else
    {
      SimLlmEstimate est;
      SimLlmBudget budget = { 0 };
      if (!sim_llm_estimate (setup.system, model, &layout, &est, &error))
        return gpusim_input_error (error);
      if (layout.global_batch == 0)
        layout.global_batch = est.micro_batches * est.dp * layout.micro_batch;
      if (layout.seq_length == 0)
        layout.seq_length = model->seq_length;
      if (!sim__llm_budget (setup.scenario, setup.catalogue, setup.cluster, &est, &budget,
                            &error))
        return gpusim_input_error (error);
      if (json)
        {
          g_autoptr(JsonBuilder) b = json_builder_new ();
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "model");
          json_builder_add_string_value (b, model->name);
          json_builder_set_member_name (b, "gpu");
          json_builder_add_string_value (b, sim_llm_system_get_gpu (setup.system)->name);
          sim__llm_estimate_to_json (b, &layout, &est);
          if (est.train_time > 0)
            sim__llm_budget_to_json (b, &budget);
          json_builder_end_object (b);
          gpusim_print_json (b);
        }
      else
        print_estimate (model, sim_llm_system_get_gpu (setup.system), &layout, &est, &budget);
      sim__llm_budget_clear (&budget);
    }
  return fflush (stdout) == 0 ? 0 : 1;
}
