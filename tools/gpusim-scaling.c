/* gpusim-scaling.c: `gpusim scaling`, each job class's speed-up curve.
 *
 *   gpusim scaling SCENARIO [--gpus 1,2,4,8] [--set SECTION.KEY=VALUE]...
 *
 * For every class of the scenario's synthetic workload: its scaling model,
 * the GPU count its durations are measured at, and for each GPU count its
 * speed-up against one GPU, its parallel efficiency (speed-up / GPUs) and
 * how long a job runs there against its duration.  A class with a
 * throughput table also gets its speed on each listed GPU model beside the
 * FP16 TFLOPS ratio it replaces.
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"
#include "scenario/sim-scenario-private.h"

#include <stdio.h>
#include <string.h>

/* "1,2,4,8" into GPU counts. */
static GArray *
parse_counts (const char *text, GError **error)
{
  g_auto(GStrv) items = g_strsplit (text, ",", -1);
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; items[i] != NULL; i++)
    {
      gint64 n;
      if (!sim_parse_integer (g_strstrip (items[i]), 1, 1000000, &n, error))
        {
          g_prefix_error (error, "--gpus: ");
          return NULL;
        }
      guint v = (guint) n;
      g_array_append_val (counts, v);
    }
  if (counts->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "--gpus: expected counts such as 1,2,4,8");
      return NULL;
    }
  return g_steal_pointer (&counts);
}

/* 1, 2, 4, ... up to the class's largest size (at least 8), and that size. */
static GArray *
default_counts (const SimJobClassConfig *cls, guint cluster_gpus)
{
  GArray *counts = g_array_new (FALSE, FALSE, sizeof (guint));
  guint top = MAX (cls->reference_gpus, 8);

  for (guint g = 0; g < cls->n_gpu_values; g++)
    top = MAX (top, cls->gpu_values[g]);
  top = MIN (top, cluster_gpus);
  for (guint n = 1; n <= top; n *= 2)
    g_array_append_val (counts, n);
  if (g_array_index (counts, guint, counts->len - 1) != top)
    g_array_append_val (counts, top);
  return counts;
}

static void
describe_model (const SimJobClassConfig *cls, GString *out)
{
  g_string_append (out, sim_scaling_kind_to_string (cls->scaling.kind));
  if (cls->scaling.kind == SIM_SCALING_AMDAHL)
    g_string_append_printf (out, ", serial fraction %.4g", cls->scaling.serial_fraction);
  else if (cls->scaling.kind == SIM_SCALING_TABLE)
    {
      g_string_append (out, ", measured");
      for (guint i = 0; i < cls->scaling.n_points; i++)
        g_string_append_printf (out, "%s %g:%.4g", i ? "," : "", cls->scaling.gpus[i],
                                cls->scaling.speedup[i]);
    }
  if (cls->comm.iteration > 0)
    g_string_append (out, ", with its communication profile on an idle fabric");
}

static gboolean
print_class (SimSimulation *sim, const SimCatalogue *catalogue, const char *reference,
             guint c, GArray *wanted, GError **error)
{
  const SimScenario *sc = sim_simulation_get_scenario (sim);
  const SimJobClassConfig *cls = &sc->generator.classes[c];
  guint cluster_gpus = sim_cluster_get_n_gpus (sim_simulation_get_cluster (sim));
  g_autoptr(GArray) counts = wanted ? g_array_ref (wanted) : default_counts (cls, cluster_gpus);
  g_autoptr(GString) model = g_string_new (NULL);
  guint ref = cls->reference_gpus;
  double s_ref;

  for (guint g = 0; ref == 0 && cls->gpus_min > 0 && g < cls->n_gpu_values; g++)
    ref = cls->gpu_values[g];
  describe_model (cls, model);
  printf ("\nclass %s: %s\n", cls->name, model->str);
  if (cls->gpus_min > 0)
    printf ("  moldable: %u to %u GPUs\n", cls->gpus_min, cls->gpu_values[0]);
  if (ref > 0)
    printf ("  duration: run time on %u GPU%s\n", ref, ref == 1 ? "" : "s");
  else
    printf ("  duration: run time on the GPUs each job asks for\n");
  if (ref > 0 && !sim_simulation_get_class_speedup (sim, c, ref, &s_ref, error))
    return FALSE;
  printf ("  %6s %9s %11s %s\n", "GPUs", "speed-up", "efficiency",
          ref > 0 ? "run time / duration" : "");
  for (guint i = 0; i < counts->len; i++)
    {
      guint n = g_array_index (counts, guint, i);
      double s;
      if (!sim_simulation_get_class_speedup (sim, c, n, &s, error))
        return FALSE;
      if (ref > 0)
        printf ("  %6u %9.2f %10.1f %% %8.3f\n", n, s, 100 * s / n, s_ref / s);
      else
        printf ("  %6u %9.2f %10.1f %%\n", n, s, 100 * s / n);
    }
  if (cls->throughput.n_models > 0)
    {
      const SimGpuModel *refm = sim_catalogue_lookup_gpu (catalogue, reference);
      double thr_ref = 0;
      for (guint k = 0; k < cls->throughput.n_models; k++)
        if (sim_catalogue_lookup_gpu (catalogue, cls->throughput.models[k]) == refm)
          thr_ref = cls->throughput.throughput[k];
      printf ("  throughput per GPU model, against %s (FP16 TFLOPS ratio in brackets):\n",
              reference);
      for (guint k = 0; k < cls->throughput.n_models; k++)
        {
          const SimGpuModel *m = sim_catalogue_lookup_gpu (catalogue, cls->throughput.models[k]);
          double flops = m && refm && refm->fp16_tflops > 0 ? m->fp16_tflops / refm->fp16_tflops
                                                            : 0;
          printf ("    %-16s %6.3f  (%.3f)\n", cls->throughput.models[k],
                  thr_ref > 0 ? cls->throughput.throughput[k] / thr_ref : 0, flops);
        }
    }
  return TRUE;
}

int
gpusim_cmd_scaling (int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  g_autofree char *gpus = NULL;
  gboolean help = FALSE;
  GOptionEntry entries[] = {
    { "gpus", 'g', 0, G_OPTION_ARG_STRING, &gpus,
      "GPU counts to list, e.g. 1,2,4,8 (default: powers of two up to the class's largest)",
      "LIST" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a scenario key, e.g. --set \"class md.serial_fraction=0.1\"",
      "SECTION.KEY=VALUE" },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("SCENARIO");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(SimCatalogue) catalogue = NULL;
  g_autoptr(GArray) wanted = NULL;
  const char *reference;

  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Prints each job class's speed-up on N GPUs against one GPU, its parallel\n"
    "efficiency (speed-up / N) and its run time there against its duration, from\n"
    "the class's scaling model (linear, amdahl, table or comm); and, for a class\n"
    "with a throughput table, its speed on each listed GPU model.");
  g_option_context_set_description (ctx,
    "Examples:\n"
    "  gpusim scaling scenarios/scaling-molecular-dynamics.ini\n"
    "  gpusim scaling scenarios/scaling-render.ini --gpus 1,2,3,4,6,8\n");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return gpusim_usage_error (ctx, "%s", error->message);
  if (gpusim_check_sets (ctx, sets) != 0)
    return 2;
  if (help)
    {
      g_autofree char *text = g_option_context_get_help (ctx, TRUE, NULL);
      g_print ("%s", text);
      return 0;
    }
  if (argc != 2)
    return gpusim_usage_error (ctx, "%s", argc < 2 ? "scaling needs a SCENARIO file" : "too many arguments");
  if (gpus != NULL && (wanted = parse_counts (gpus, &error)) == NULL)
    {
      gpusim_print_error (error);
      return 2;
    }

  sc = sim_scenario_load (argv[1], (const char * const *) sets, &error);
  if (sc == NULL)
    goto failed;
  sim = sim_simulation_new (sc, &error);
  if (sim == NULL)
    goto failed;
  if (sim_simulation_get_n_classes (sim) == 0)
    {
      g_set_error (&error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: the workload is a trace: its jobs have no classes with scaling curves "
                   "(use source = synthetic)", sc->path);
      goto failed;
    }
  if (!sim__scenario_check_models (sc, &error))
    goto failed;
  catalogue = sim_catalogue_new_default ((const char * const *) sc->model_dirs, &error);
  if (catalogue == NULL)
    goto failed;
  reference = sc->reference_gpu;
  if (reference == NULL)
    {
      const SimPool *first = sim_cluster_get_pool (sim_simulation_get_cluster (sim), 0);
      reference = first->gpu_model != NULL ? first->gpu_model->name : "(none)";
    }
  printf ("scenario      %s\n", sc->name ? sc->name : sc->path);
  printf ("reference     %s (speed-ups are on GPUs of this model)\n", reference);
  for (guint c = 0; c < sim_simulation_get_n_classes (sim); c++)
    if (!print_class (sim, catalogue, reference, c, wanted, &error))
      goto failed;
  return fflush (stdout) == 0 ? 0 : 1;

failed:
  gpusim_print_error (error);
  return 1;
}
