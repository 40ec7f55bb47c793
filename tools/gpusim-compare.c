/* gpusim compare: policies side by side over several seeds.
 *
 *   gpusim compare SCENARIO --policy A --policy B ... [--seeds N] [--seed FIRST]
 *                  [--metric NAME]... [--set SECTION.KEY=VALUE]... [--json]
 *                  [--csv FILE] [--jobs THREADS] [--quiet]
 *
 * Every policy runs on the same seeds; the table gives each metric's mean
 * with its confidence interval, and each policy's paired difference from
 * the first.  The statistics and the runs are in the library
 * (sim-compare.h); this file parses options and prints.
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  gint64   last_draw;
  gboolean drawn;
} Progress;

static void
draw_progress (guint done, guint total, gpointer data)
{
  Progress *p = data;
  gint64 t = g_get_monotonic_time ();

  if (done < total && t - p->last_draw < 100000)
    return;
  p->last_draw = t;
  p->drawn = TRUE;
  fprintf (stderr, "\rcompare: %u of %u runs done ", done, total);
  fflush (stderr);
}

int
gpusim_cmd_compare (int argc, char **argv)
{
  g_auto(GStrv) policies = NULL;
  g_auto(GStrv) variants = NULL;
  g_auto(GStrv) metrics = NULL;
  g_auto(GStrv) sets = NULL;
  g_autofree char *first_seed = NULL;
  g_autofree char *csv = NULL;
  gint n_seeds = 5, jobs = 0;
  gboolean json = FALSE, quiet = FALSE, force = FALSE;
  GOptionEntry entries[] = {
    { "policy", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &policies,
      "A policy: QUEUE/PLACEMENT, a PLACEMENT (with the scenario's queue order) or a "
      "plugin FILE.so; give two or more, the first is the baseline", "POLICY" },
    { "variant", 'V', 0, G_OPTION_ARG_STRING_ARRAY, &variants,
      "A variant of the scenario: NAME:SECTION.KEY=VALUE[;SECTION.KEY=VALUE...], e.g. "
      "\"2:1:fabric.oversubscription=2\"... compared like policies (after them)",
      "VARIANT" },
    { "seeds", 'n', 0, G_OPTION_ARG_INT, &n_seeds, "Runs per policy (default 5)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &first_seed,
      "The first seed (default: the scenario's); then FIRST+1, ...", "FIRST" },
    { "metric", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &metrics,
      "A metric to compare (default: wait_mean, wait_p95, jct_mean, "
      "bounded_slowdown_mean, gpu_utilization, gpu_activity, queue_length_mean, "
      "fragmented_gpus_mean, "
      "makespan)", "NAME" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a scenario key in every run, e.g. --set workload.rate=4/h",
      "SECTION.KEY=VALUE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the results as JSON", NULL },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv,
      "Also write every number to FILE, in long format", "FILE" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      "Runs at once (default: one per processor)", "THREADS" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress on the terminal", NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "Run even past the size limits (100 million jobs, 2 GB of output)", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("SCENARIO - compare policies over several seeds");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimComparison) cmp = NULL;
  Progress progress = { 0 };
  guint64 seed = 0;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Runs the scenario with each policy on the same seeds and prints, per metric,\n"
    "each policy's mean with its confidence interval (Student t) and each policy's\n"
    "difference from the first, paired by seed.  A difference marked * has an\n"
    "interval that excludes 0.  The output does not depend on --jobs.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (argc != 2)
    return gpusim_usage_error (context, "%s",
                               argc < 2 ? "compare needs a SCENARIO file" : "too many arguments");

  if (n_seeds < 1)
    return gpusim_usage_error (context, "--seeds: expected a number of runs, at least 1");
  if (jobs < 0)
    return gpusim_usage_error (context, "--jobs: expected a number of threads, 0 for one per processor");
  if (first_seed != NULL &&
      !g_ascii_string_to_unsigned (first_seed, 10, 0, G_MAXUINT64, &seed, NULL))
    return gpusim_usage_error (context, "--seed: expected a non-negative integer");

  cmp = sim_comparison_new (argv[1], (const char * const *) sets, &error);
  if (cmp == NULL)
    goto failed;
  for (guint i = 0; policies != NULL && policies[i] != NULL; i++)
    if (!sim_comparison_add_policy (cmp, policies[i], &error))
      goto failed;
  if ((policies == NULL || policies[0] == NULL) && (variants == NULL || variants[0] == NULL))
    {
      /* The scenario's own [variant NAME] sections. */
      g_autoptr(SimScenario) sc = sim_scenario_load (argv[1], (const char * const *) sets, &error);
      if (sc == NULL)
        goto failed;
      if (sc->n_variants == 0)
        return gpusim_usage_error (context, "%s", "compare needs at least one --policy or --variant, or "
                                     "[variant NAME] sections in the scenario");
      for (guint i = 0; i < sc->n_variants; i++)
        if (!sim_comparison_add_variant (cmp, sc->variants[i].name,
                                         (const char * const *) sc->variants[i].overrides, &error))
          goto failed;
    }
  for (guint i = 0; variants != NULL && variants[i] != NULL; i++)
    {
      /* NAME:KEY=VALUE;KEY=VALUE; the name ends at the last ':' before the first '='. */
      const char *eq = strchr (variants[i], '=');
      const char *colon = NULL;
      g_autofree char *name = NULL;
      g_auto(GStrv) sets_v = NULL;
      for (const char *p = variants[i]; *p && (eq == NULL || p < eq); p++)
        if (*p == ':')
          colon = p;
      if (colon == NULL || colon == variants[i] || eq == NULL)
        return gpusim_usage_error (context, "--variant: expected NAME:SECTION.KEY=VALUE[;...]");
      name = g_strndup (variants[i], (gsize) (colon - variants[i]));
      sets_v = g_strsplit (colon + 1, ";", -1);
      if (!sim_comparison_add_variant (cmp, name, (const char * const *) sets_v, &error))
        goto failed;
    }
  for (guint i = 0; metrics != NULL && metrics[i] != NULL; i++)
    sim_comparison_add_metric (cmp, metrics[i]);
  sim_comparison_set_seeds (cmp, first_seed != NULL ? seed : sim_comparison_get_seed (cmp, 0),
                            (guint) n_seeds);
  sim_comparison_set_threads (cmp, (guint) jobs);
  sim_comparison_set_force (cmp, force);
  if (!quiet && isatty (STDERR_FILENO))
    sim_comparison_set_progress_func (cmp, draw_progress, &progress, NULL);

  if (!sim_comparison_run (cmp, &error))
    {
      if (progress.drawn)
        fputc ('\n', stderr);
      goto failed;
    }
  if (progress.drawn)
    fputs ("\r\033[K", stderr);

  if (csv != NULL && !sim_comparison_write_csv (cmp, csv, &error))
    goto failed;
  if (json)
    {
      g_autofree char *text = sim_comparison_to_json (cmp, TRUE);
      printf ("%s\n", text);
    }
  else
    {
      g_autofree char *text = sim_comparison_format_table (cmp);
      fputs (text, stdout);
    }
  return fflush (stdout) == 0 ? 0 : 1;

failed:
  gpusim_print_error (error);
  return 1;
}
