/* gpusim compare: policies side by side over several seeds.
 *
 *   gpusim compare SCENARIO --policy A --policy B ... [--seeds N] [--seed FIRST]
 *                  [--metric NAME]... [--set SECTION.KEY=VALUE]... [--json]
 *                  [--csv FILE] [--jobs THREADS] [--quiet]
 *   gpusim compare SCENARIO ... --plan-out PLAN.json
 *   gpusim compare --plan PLAN.json [--runs A-B] --results-out RESULTS.json
 *   gpusim compare --from-results RESULTS.json... [--json] [--csv FILE]
 *
 * Every policy runs on the same seeds; the table gives each metric's mean
 * with its confidence interval, and each policy's paired difference from
 * the first.  The plan, the runs and the statistics are in the library
 * (libsim/study/); this file parses options and prints.  The last three
 * forms split the study: write the plan, run it (or a range of its runs,
 * one Slurm array task each, say) elsewhere, and gather the results.
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"
#include "core/sim-util.h"
#include "scenario/sim-scenario-private.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* RUNS as "A", "A-B" or a comma-separated list of those, each index below
 * N_RUNS; NULL with a message in *WHAT otherwise. */
static GArray *
parse_runs (const char *spec, guint n_runs, char **what)
{
  g_auto(GStrv) parts = g_strsplit (spec, ",", -1);
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_auto(GStrv) ends = g_strsplit (parts[i], "-", 3);
      guint64 a, b;
      if (ends[0] == NULL || !g_ascii_string_to_unsigned (ends[0], 10, 0, G_MAXUINT, &a, NULL) ||
          (ends[1] != NULL &&
           (!g_ascii_string_to_unsigned (ends[1], 10, 0, G_MAXUINT, &b, NULL) ||
            ends[2] != NULL)))
        {
          *what = g_strdup_printf ("--runs: \"%s\": expected a run index, a range A-B or a "
                                   "comma-separated list of those", parts[i]);
          return NULL;
        }
      if (ends[1] == NULL)
        b = a;
      if (a > b || b >= n_runs)
        {
          *what = g_strdup_printf ("--runs: \"%s\": the plan has runs 0 to %u", parts[i],
                                   n_runs - 1);
          return NULL;
        }
      for (guint64 r = a; r <= b; r++)
        {
          guint run = (guint) r;
          g_array_append_val (runs, run);
        }
    }
  return g_steal_pointer (&runs);
}

static void
draw_progress (guint done, guint total, gpointer data)
{
  gpusim_counter_draw (data, "compare", done, total, "runs");
}

/* No output may overwrite a file the comparison reads: the scenario and
 * what it reads (@sc), the plan (@plan_in) or the results files (@argv
 * with --from-results). */
static gboolean
check_outputs (const char * const *outputs, const SimScenario *sc, const char *plan_in,
               const char *plan_scenario, char **results, GError **error)
{
  for (guint i = 0; outputs[i] != NULL; i += 2)
    {
      const char *option = outputs[i], *path = outputs[i + 1];

      if (path == NULL)
        continue;
      if ((sc != NULL && !sim__scenario_check_output (sc, option, path, NULL, error)) ||
          !sim__check_output (option, path, plan_in, "the plan being read", error) ||
          !sim__check_output (option, path, plan_scenario, "the plan's scenario being read",
                              error))
        return FALSE;
      for (guint k = 0; results != NULL && results[k] != NULL; k++)
        if (!sim__check_output (option, path, results[k], "a results file being read", error))
          return FALSE;
    }
  return TRUE;
}

int
gpusim_cmd_compare (int argc, char **argv)
{
  g_auto(GStrv) policies = NULL;
  g_auto(GStrv) variants = NULL;
  g_auto(GStrv) metrics = NULL;
  g_auto(GStrv) sets = NULL;
  g_autofree char *first_seed = NULL;
  g_autofree char *csv = NULL, *db = NULL;
  g_autofree char *plan_out = NULL, *plan_in = NULL, *results_out = NULL, *runs_spec = NULL;
  gboolean from_results = FALSE;
  gint n_seeds = G_MININT, jobs = 0;  /* G_MININT: --seeds not given */
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
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db,
      "Keep every run in a sweep database (SQLite), as it finishes; runs already there are "
      "not run again", "FILE" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress on the terminal", NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "Run even past the size limits (100 million jobs, 2 GB of output)", NULL },
    { "plan-out", 0, 0, G_OPTION_ARG_FILENAME, &plan_out,
      "Write the plan of runs to FILE (JSON) and run nothing", "FILE" },
    { "plan", 0, 0, G_OPTION_ARG_FILENAME, &plan_in,
      "Run the plan in FILE (written by --plan-out) instead of a SCENARIO", "FILE" },
    { "runs", 0, 0, G_OPTION_ARG_STRING, &runs_spec,
      "Run only these runs of the plan (e.g. 4, 0-9 or 0-3,8); needs --results-out",
      "A-B" },
    { "results-out", 0, 0, G_OPTION_ARG_FILENAME, &results_out,
      "Also write the runs' results to FILE (JSON), to gather with --from-results", "FILE" },
    { "from-results", 0, 0, G_OPTION_ARG_NONE, &from_results,
      "The arguments are results files written by --results-out (every part of one "
      "plan): print their comparison", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("SCENARIO | --plan PLAN | --from-results RESULTS... - compare "
                          "policies over several seeds");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimComparison) cmp = NULL;
  g_autoptr(SimPlanResults) results = NULL;
  GpusimCounter progress = { 0 };
  guint64 seed = 0;
  gboolean from_scenario;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Runs the scenario with each policy on the same seeds and prints, per metric,\n"
    "each policy's mean with its confidence interval and each policy's difference\n"
    "from the first, paired by seed.  A metric whose values are all non-negative\n"
    "gets a percentile bootstrap interval, \"MEAN [LOW, HIGH]\", never below 0;\n"
    "a signed one, and the differences, Student t, \"MEAN ± HALF\".  A difference\n"
    "marked * has an interval that excludes 0.  The output does not depend on --jobs.\n"
    "Runs that all give the same value (a trace replayed whole, the same on every\n"
    "seed) get no interval and no star, and a warning; --set\n"
    "workload.variation=windows(7d) (or bootstrap(days), bootstrap(jobs),\n"
    "jitter(10min)) makes each seed a sample of the trace (docs/statistics.md).\n"
    "\n"
    "--plan-out writes the runs as a plan without running them; --plan runs a\n"
    "plan (all of it, or --runs of it) and --results-out writes what they gave;\n"
    "--from-results gathers such files and prints the same comparison.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (gpusim_check_sets (context, sets) != 0)
    return 2;

  from_scenario = plan_in == NULL && !from_results;
  if (plan_in != NULL && from_results)
    return gpusim_usage_error (context, "%s", "--plan and --from-results exclude each other");
  if (!from_scenario &&
      (policies != NULL || variants != NULL || metrics != NULL || sets != NULL ||
       first_seed != NULL || n_seeds != G_MININT || force))
    return gpusim_usage_error (context, "%s", "--policy, --variant, --metric, --set, --seed, "
                               "--seeds and --force make a plan: they go with a SCENARIO, "
                               "not with --plan or --from-results");
  if (from_results && (plan_out != NULL || runs_spec != NULL || results_out != NULL))
    return gpusim_usage_error (context, "%s", "--from-results runs nothing: it takes no "
                               "--plan-out, --runs or --results-out");
  if (runs_spec != NULL && results_out == NULL)
    return gpusim_usage_error (context, "%s", "--runs needs --results-out: the results of "
                               "some runs are gathered later with --from-results");
  if (plan_out != NULL && (runs_spec != NULL || results_out != NULL))
    return gpusim_usage_error (context, "%s", "--plan-out runs nothing: it takes no --runs "
                               "or --results-out");
  if (from_scenario && argc != 2)
    return gpusim_usage_error (context, "%s",
                               argc < 2 ? "compare needs a SCENARIO file" : "too many arguments");
  if (plan_in != NULL && argc != 1)
    return gpusim_usage_error (context, "%s", "no SCENARIO with --plan: the plan names it");
  if (from_results && argc < 2)
    return gpusim_usage_error (context, "%s", "--from-results needs one or more results "
                               "FILEs");

  if (n_seeds == G_MININT)
    n_seeds = 5;
  if (n_seeds < 1)
    return gpusim_usage_error (context, "--seeds: expected a number of runs, at least 1");
  if (jobs < 0)
    return gpusim_usage_error (context, "--jobs: expected a number of threads, 0 for one per processor");
  if (first_seed != NULL &&
      !g_ascii_string_to_unsigned (first_seed, 10, 0, G_MAXUINT64, &seed, NULL))
    return gpusim_usage_error (context, "--seed: expected a non-negative integer");

  {
    /* Options and paths, in pairs; the option of a NULL path is skipped. */
    const char *outputs[] = { "--csv", csv, "--db", db, "--plan-out", plan_out,
                              "--results-out", results_out, NULL, NULL };
    g_autoptr(SimScenario) sc = NULL;
    g_autoptr(SimPlan) plan = NULL;

    if (from_scenario)
      {
        sc = sim_scenario_load (argv[1], (const char * const *) sets, &error);
        if (sc == NULL)
          goto failed;
      }
    else if (plan_in != NULL && (plan = sim_plan_load (plan_in, &error)) == NULL)
      goto failed;
    if (!check_outputs (outputs, sc, plan_in, plan != NULL ? sim_plan_get_scenario_path (plan)
                                                         : NULL,
                        from_results ? argv + 1 : NULL, &error))
      goto failed;
  }

  if (from_results)
    {
      /* Every file must hold results of the same plan; together, all runs. */
      for (int i = 1; i < argc; i++)
        {
          g_autoptr(SimPlanResults) part = sim_plan_results_load (argv[i], &error);
          if (part == NULL)
            goto failed;
          if (results == NULL)
            results = g_steal_pointer (&part);
          else if (!sim_plan_results_merge (results, part, &error))
            {
              g_prefix_error (&error, "%s: ", argv[i]);
              goto failed;
            }
        }
      cmp = sim_comparison_new_for_plan (sim_plan_results_get_plan (results));
      if (!sim_comparison_set_results (cmp, results, &error))
        goto failed;
      goto print;
    }
  if (plan_in != NULL)
    {
      g_autoptr(SimPlan) plan = sim_plan_load (plan_in, &error);
      if (plan == NULL)
        goto failed;
      cmp = sim_comparison_new_for_plan (plan);
      goto plan_ready;
    }

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
  sim_comparison_set_force (cmp, force);

plan_ready:
  sim_comparison_set_threads (cmp, (guint) jobs);
  if (db != NULL && (results_out != NULL || plan_out != NULL))
    return gpusim_usage_error (context, "%s", "--db runs the comparison: it takes no "
                               "--plan-out or --results-out");
  sim_comparison_set_db (cmp, db);
  if (plan_out != NULL)
    {
      if (!sim_plan_check (sim_comparison_get_plan (cmp), &error) ||
          !sim_plan_write (sim_comparison_get_plan (cmp), plan_out, &error))
        goto failed;
      return 0;
    }

  if (results_out != NULL)
    {
      /* Run with an executor of our own, so that the results are written
       * out even when a run fails (its error is in them). */
      SimPlan *plan = sim_comparison_get_plan (cmp);
      g_autoptr(SimExecutor) executor = NULL;
      g_autoptr(GArray) runs = NULL;
      gboolean ok;

      if (!sim_plan_check (plan, &error))
        goto failed;
      if (runs_spec != NULL)
        {
          g_autofree char *what = NULL;
          runs = parse_runs (runs_spec, sim_plan_get_n_runs (plan), &what);
          if (runs == NULL)
            return gpusim_usage_error (context, "%s", what);
        }
      results = sim_plan_results_new (plan);
      executor = sim_thread_executor_new ((guint) jobs);
      if (!quiet && isatty (STDERR_FILENO))
        sim_executor_set_progress_func (executor, draw_progress, &progress, NULL);
      ok = sim_executor_execute (executor, results, runs ? (guint *) (void *) runs->data : NULL,
                                 runs ? runs->len : 0, &error);
      if (progress.drawn)
        fputs ("\r\033[K", stderr);
      if (!ok || !sim_plan_results_write (results, results_out, &error))
        goto failed;
      if (runs != NULL)
        {
          /* Some runs only: report the first that failed, print nothing else. */
          for (guint i = 0; i < runs->len; i++)
            {
              const GError *e = sim_plan_results_get_error (results, g_array_index (runs, guint, i));
              if (e != NULL)
                {
                  gpusim_print_error (e);
                  return 1;
                }
            }
          return 0;
        }
      if (!sim_comparison_set_results (cmp, results, &error))
        goto failed;
    }
  else
    {
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
    }

print:
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
