/* gpusim sweep and gpusim seek: what-if sweeps and goal seeking.
 *
 *   gpusim sweep FILE [-j N] [--db FILE] [--csv FILE] [--format table|json|csv]
 *                [--report FILE.html] [--shard K/N | --shard N] [--set SECTION.KEY=VALUE]...
 *                [--quiet]
 *   gpusim sweep FILE --db OUT.db --merge PART.db [--merge PART.db]...
 *   gpusim sweep FILE --list
 *   mpirun -n N gpusim sweep FILE ...          (built with --with-mpi)
 *   gpusim seek FILE --vary KEY --target "METRIC <= VALUE" [--range LO..HI]
 *               [--seeds N] [--level L] [--tolerance T] [-j N] [--set ...]
 *
 * The sweep itself (points, plan, database, summaries) and the search are
 * in libsim/sweep/; this file parses options, picks the executor (threads,
 * MPI ranks, or one Slurm array task's shard) and prints.
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"
#include "gpusim-mpi.h"
#include "core/sim-util.h"
#include "scenario/sim-scenario-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  gint64   last_draw;
  gboolean drawn;
  const char *what;
  gboolean draw;
  guint    total;  /* runs executed (not taken from the database) */
} Progress;

static void
draw_progress (guint done, guint total, gpointer data)
{
  Progress *p = data;
  gint64 t = g_get_monotonic_time ();

  p->total = total;
  if (!p->draw)
    return;
  if (done < total && t - p->last_draw < 100000)
    return;
  p->last_draw = t;
  p->drawn = TRUE;
  fprintf (stderr, "\r%s: %u of %u runs done ", p->what, done, total);
  fflush (stderr);
}

/* --shard K/N, or N alone with K from SLURM_ARRAY_TASK_ID (less
 * SLURM_ARRAY_TASK_MIN, so that --array=1-8 and --array=0-7 both work). */
static gboolean
parse_shard (const char *spec, guint *k, guint *n, char **what)
{
  const char *slash = strchr (spec, '/');
  guint64 kk = 0, nn;

  if (slash != NULL)
    {
      g_autofree char *ks = g_strndup (spec, (gsize) (slash - spec));
      if (!g_ascii_string_to_unsigned (ks, 10, 0, G_MAXUINT, &kk, NULL) ||
          !g_ascii_string_to_unsigned (slash + 1, 10, 1, G_MAXUINT, &nn, NULL))
        {
          *what = g_strdup_printf ("--shard \"%s\": expected K/N (shard K of N, K from 0 to "
                                   "N - 1) or N (K from SLURM_ARRAY_TASK_ID)", spec);
          return FALSE;
        }
    }
  else
    {
      const char *id = g_getenv ("SLURM_ARRAY_TASK_ID");
      const char *min = g_getenv ("SLURM_ARRAY_TASK_MIN");
      guint64 mm = 0;
      if (!g_ascii_string_to_unsigned (spec, 10, 1, G_MAXUINT, &nn, NULL))
        {
          *what = g_strdup_printf ("--shard \"%s\": expected K/N (shard K of N, K from 0 to "
                                   "N - 1) or N (K from SLURM_ARRAY_TASK_ID)", spec);
          return FALSE;
        }
      if (id == NULL)
        {
          *what = g_strdup_printf ("--shard %s: SLURM_ARRAY_TASK_ID is not set (not in a Slurm "
                                   "array job?); give --shard K/%s", spec, spec);
          return FALSE;
        }
      if (!g_ascii_string_to_unsigned (id, 10, 0, G_MAXUINT, &kk, NULL) ||
          (min != NULL && !g_ascii_string_to_unsigned (min, 10, 0, kk, &mm, NULL)))
        {
          *what = g_strdup_printf ("--shard %s: SLURM_ARRAY_TASK_ID=\"%s\"%s%s%s: expected "
                                   "task numbers, the minimum not above the task's", spec, id,
                                   min ? ", SLURM_ARRAY_TASK_MIN=\"" : "", min ? min : "",
                                   min ? "\"" : "");
          return FALSE;
        }
      kk -= mm;
    }
  if (kk >= nn)
    {
      *what = g_strdup_printf ("--shard %s: shard %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                               ": shards are numbered 0 to %" G_GUINT64_FORMAT, spec, kk, nn,
                               nn - 1);
      return FALSE;
    }
  *k = (guint) kk;
  *n = (guint) nn;
  return TRUE;
}

static int
print_summary (SimSweep *sweep, SimPlanResults *results, const char *format)
{
  g_autofree char *text = NULL;

  if (strcmp (format, "json") == 0)
    {
      text = sim_sweep_to_json (sweep, results);
      printf ("%s\n", text);
    }
  else if (strcmp (format, "csv") == 0)
    {
      text = sim_sweep_to_csv (sweep, results);
      fputs (text, stdout);
    }
  else
    {
      text = sim_sweep_format_table (sweep, results);
      fputs (text, stdout);
    }
  return fflush (stdout) == 0 ? 0 : 1;
}

int
gpusim_cmd_sweep (int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  g_auto(GStrv) merges = NULL;
  g_autofree char *db = NULL, *csv = NULL, *format = NULL, *shard = NULL, *report = NULL;
  gint jobs = 0;
  gboolean quiet = FALSE, list = FALSE, force = FALSE;
  GOptionEntry entries[] = {
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      "Runs at once (default: one per processor); the output does not depend on it.  "
      "Under mpirun each rank runs one at a time", "THREADS" },
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db,
      "SQLite database: each run is added as it finishes; runs already there are not run "
      "again", "FILE" },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv,
      "Also write one line per run to FILE (appended as runs finish, in run order at the end)",
      "FILE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "The summary: table (default), json or csv", "FORMAT" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report,
      "Also write the summary as an HTML page with a chart per metric over the swept axis "
      "(see gpusim report --sweep)", "FILE.html" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &shard,
      "Run only shard K of N (runs R with R mod N = K); N alone takes K from "
      "SLURM_ARRAY_TASK_ID.  Needs --db", "K/N" },
    { "merge", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &merges,
      "Add the rows of a shard's database to --db, then print the summary without running",
      "PART.db" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a scenario key in every run", "SECTION.KEY=VALUE" },
    { "list", 'l', 0, G_OPTION_ARG_NONE, &list,
      "Print the points and the number of runs, and run nothing (to size a Slurm array)",
      NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress on the terminal", NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "Run more than 100,000 runs (points x seeds), and runs past their size limits", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("FILE - run every point of a sweep file, on every seed");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSweep) sweep = NULL;
  g_autoptr(SimPlanResults) results = NULL;
  g_autoptr(SimExecutor) executor = NULL;
  g_autofree guint *runs = NULL;
  guint n_runs = 0, shard_k = 0, shard_n = 0;
  Progress progress = { 0, FALSE, "sweep", FALSE, 0 };
  gboolean mpi;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "FILE is a scenario with a [sweep] section listing values per key, e.g.\n"
    "  [sweep]\n"
    "  pool h100.count = 8, 12, 16\n"
    "  workload.rate = 2/h..6/h step 2/h\n"
    "  seeds = 5\n"
    "Every point of the grid runs on every seed; the summary gives each metric's\n"
    "mean and confidence interval per point (none, with a warning, where every run\n"
    "gave the same value; on a trace, [workload] variation makes each seed a\n"
    "sample: docs/statistics.md).  Under mpirun (built --with-mpi),\n"
    "runs are dealt to ranks as they become free and rank 0 prints the summary.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (gpusim_check_sets (context, sets) != 0)
    return 2;
  if (argc != 2)
    return gpusim_usage_error (context, "%s",
                               argc < 2 ? "sweep needs a FILE" : "too many arguments");
  if (format == NULL)
    format = g_strdup ("table");
  if (strcmp (format, "table") != 0 && strcmp (format, "json") != 0 &&
      strcmp (format, "csv") != 0)
    return gpusim_usage_error (context, "--format \"%s\": expected table, json or csv", format);
  if (jobs < 0)
    return gpusim_usage_error (context, "%s",
                               "--jobs: expected a number of threads, 0 for one per processor");
  if (shard != NULL)
    {
      g_autofree char *what = NULL;
      if (!parse_shard (shard, &shard_k, &shard_n, &what))
        return gpusim_usage_error (context, "%s", what);
      if (db == NULL)
        return gpusim_usage_error (context, "%s", "--shard needs --db: each shard writes its "
                                   "own database, gathered with --merge");
    }
  if (report != NULL && shard != NULL)
    return gpusim_usage_error (context, "%s", "--report is for the whole sweep: give it to "
                               "the --merge step, not to a --shard");
  if (merges != NULL && (db == NULL || shard != NULL))
    return gpusim_usage_error (context, "%s", "--merge needs --db (the database to gather "
                               "into) and takes no --shard");

  mpi = gpusim_mpi_launched ();
  if (mpi && (shard != NULL || merges != NULL))
    return gpusim_usage_error (context, "%s", "--shard and --merge are not for mpirun: under "
                               "MPI the ranks share the runs by themselves");

  sweep = sim_sweep_new (argv[1], (const char * const *) sets, &error);
  if (sweep == NULL)
    goto failed;
  sim_plan_set_force (sim_sweep_get_plan (sweep), force);
  {
    /* No output may overwrite the sweep file, what it reads or a database
     * merged from (--db itself among them is refused by the merge, which
     * says more). */
    const char *outputs[] = { "--db", db, "--csv", csv, "--report", report, NULL };
    g_autoptr(SimScenario) sc = sim_scenario_load (argv[1], (const char * const *) sets, &error);

    if (sc == NULL)
      goto failed;
    for (guint i = 0; outputs[i] != NULL; i += 2)
      {
        if (!sim__scenario_check_output (sc, outputs[i], outputs[i + 1], NULL, &error))
          goto failed;
        for (guint k = 0; i > 0 && merges != NULL && merges[k] != NULL; k++)
          if (!sim__check_output (outputs[i], outputs[i + 1], merges[k],
                                  "a database merged from (--merge)", &error))
            goto failed;
      }
  }

  if (list)
    {
      SimPlan *plan = sim_sweep_get_plan (sweep);
      guint n_seeds = sim_plan_get_n_seeds (plan);
      printf ("%u points x %u seeds (%" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ") = %u runs\n",
              sim_sweep_get_n_points (sweep), n_seeds, sim_plan_get_seed (plan, 0),
              sim_plan_get_seed (plan, n_seeds - 1), sim_plan_get_n_runs (plan));
      for (guint p = 0; p < sim_sweep_get_n_points (sweep); p++)
        printf ("%u  runs %u-%u  %s\n", p, p * n_seeds, p * n_seeds + n_seeds - 1,
                sim_plan_get_entry_label (plan, p));
      return fflush (stdout) == 0 ? 0 : 1;
    }

  if (mpi)
    {
      gboolean is_root = FALSE;
      guint n_local = 0, n_remote = 0, n_ranks = 0;
      results = gpusim_mpi_sweep (sweep, db, &is_root, &n_ranks, &n_local, &n_remote, &error);
      if (!is_root)
        return results != NULL || error == NULL ? 0 : (gpusim_print_error (error), 1);
      if (results == NULL)
        goto failed;
      if (!quiet)
        fprintf (stderr, "sweep: %u MPI ranks: %u run(s) on rank 0, %u on the others\n",
                 n_ranks, n_local, n_remote);
      if (csv != NULL && !sim_sweep_write_runs_csv (sweep, results, csv, &error))
        goto failed;
      goto print;
    }

  if (merges != NULL)
    {
      g_autoptr(SimSweepDb) store = sim_sweep_db_open (db, sweep, &error);
      if (store == NULL)
        goto failed;
      for (guint i = 0; merges[i] != NULL; i++)
        {
          gint n = sim_sweep_db_merge (store, merges[i], &error);
          if (n < 0)
            goto failed;
          if (!quiet)
            fprintf (stderr, "sweep: %s: %d run(s) added\n", merges[i], n);
        }
      results = sim_plan_results_new (sim_sweep_get_plan (sweep));
      if (sim_sweep_db_resume (store, results, &error) < 0)
        goto failed;
      if (csv != NULL && !sim_sweep_write_runs_csv (sweep, results, csv, &error))
        goto failed;
      goto print;
    }

  if (shard != NULL)
    runs = sim_sweep_dup_shard_runs (sweep, shard_k, shard_n, &n_runs);
  executor = sim_thread_executor_new ((guint) jobs);
  progress.draw = !quiet && isatty (STDERR_FILENO);
  sim_executor_set_progress_func (executor, draw_progress, &progress, NULL);
  results = sim_sweep_run (sweep, executor, runs, n_runs, db, csv, &error);
  if (progress.drawn)
    fputs ("\r\033[K", stderr);
  if (results == NULL)
    goto failed;
  if (db != NULL && !quiet)
    {
      guint asked = runs != NULL ? n_runs : sim_plan_get_n_runs (sim_sweep_get_plan (sweep));
      fprintf (stderr, "sweep: %u run(s) taken from %s, %u run now\n", asked - progress.total,
               db, progress.total);
    }
  if (shard != NULL)
    {
      /* A shard prints nothing but its errors: the summary comes from the merge. */
      for (guint i = 0; i < n_runs; i++)
        {
          const GError *e = sim_plan_results_get_error (results, runs[i]);
          if (e != NULL)
            {
              gpusim_print_error (e);
              return 1;
            }
        }
      if (!quiet)
        fprintf (stderr, "sweep: shard %u of %u: %u run(s) in %s\n", shard_k, shard_n, n_runs,
                 db);
      return 0;
    }

print:
  status = print_summary (sweep, results, format);
  if (report != NULL)
    {
      g_autofree char *json = sim_sweep_to_json (sweep, results);
      if (!sim_html_sweep_report_write (json, argv[1], NULL, report, &error))
        goto failed;
      if (!quiet)
        fprintf (stderr, "sweep: report %s\n", report);
    }
  if (!sim_plan_results_check (results, &error))
    goto failed;
  return status;

failed:
  gpusim_print_error (error);
  return 1;
}

/* ------------------------------------------------------------------------- */
/* gpusim seek: the search is libsim's (sweep/sim-seek.h); this prints it.    */

static void
print_probe (const SimSeekProbe *p, gpointer data)
{
  SimSeek *seek = data;
  g_autofree char *value = sim_seek_format_value (seek, p->value);
  const char *unit = sim_seek_get_unit (seek);
  guint i = sim_seek_get_n_probes (seek);
  /* Each figure as the run's summary writes it: a wait as a duration, a
   * cost in dollars, a count with its thousands. */
  g_autofree char *mean = sim_format_value (p->mean, unit);
  g_autofree char *low = sim_format_value (p->low, unit);
  g_autofree char *high = sim_format_value (p->high, unit);

  if (p->n < 2 || p->low == p->high)
    printf ("probe %u: %s = %s: %s = %s%s: %s\n", i, sim_seek_get_key (seek), value,
            sim_seek_get_metric (seek), mean,
            p->n < 2 ? "" : p->low == p->mean ? " (every run the same)" : "",
            p->meets ? "meets the target" : "misses the target");
  else
    printf ("probe %u: %s = %s: %s = %s [%s, %s] over %u seeds: %s\n", i,
            sim_seek_get_key (seek), value, sim_seek_get_metric (seek), mean, low, high, p->n,
            p->meets ? "meets the target" : "misses the target");
  fflush (stdout);
}

int
gpusim_cmd_seek (int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  g_autofree char *vary = NULL, *target = NULL, *range = NULL, *first_seed = NULL;
  gint n_seeds = 5, jobs = 0;
  gboolean force = FALSE;
  double level = 0.95, tolerance = 0;
  GOptionEntry entries[] = {
    { "vary", 'k', 0, G_OPTION_ARG_STRING, &vary,
      "The key to vary, SECTION.KEY (e.g. \"pool h100.count\" or pool.h100.count); the "
      "target must be monotone in it", "KEY" },
    { "target", 't', 0, G_OPTION_ARG_STRING, &target,
      "What to meet: \"METRIC <= VALUE\" (or <, >=, >), e.g. \"wait_p95 <= 1h\"", "TARGET" },
    { "range", 'r', 0, G_OPTION_ARG_STRING, &range,
      "Where to look: LO..HI, with the key's unit if it has one, e.g. 1/h..50/h (default: the "
      "key's values in the file's [sweep] section)",
      "LO..HI" },
    { "seeds", 'n', 0, G_OPTION_ARG_INT, &n_seeds, "Runs per probe (default 5)", "N" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "Run past the limits on seeds (100,000 runs a probe) and on a run's size", NULL },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &first_seed,
      "The first seed (default: the scenario's)", "FIRST" },
    { "level", 0, 0, G_OPTION_ARG_DOUBLE, &level,
      "Confidence: a probe meets the target if its whole interval does (default 0.95)", "L" },
    { "tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &tolerance,
      "Stop when the bracket is this narrow (default: 1 for integer ranges, else 1 % of "
      "the range)", "T" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Runs at once (default: one per processor)",
      "THREADS" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a scenario key in every run", "SECTION.KEY=VALUE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("FILE - the smallest value of a key that meets a target");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSeek) seek = NULL;
  guint64 seed = 0;
  double answer;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Bisection over a key on which the metric is monotone (more nodes, shorter\n"
    "waits): each probe runs the scenario on every seed and meets the target only\n"
    "if the whole confidence interval does.  Prints each probe, then the value.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (gpusim_check_sets (context, sets) != 0)
    return 2;
  if (argc != 2)
    return gpusim_usage_error (context, "%s", argc < 2 ? "seek needs a FILE" : "too many arguments");
  if (vary == NULL || target == NULL)
    return gpusim_usage_error (context, "%s", "seek needs --vary KEY and --target \"METRIC <= VALUE\"");
  if (n_seeds < 1)
    return gpusim_usage_error (context, "%s", "--seeds: expected a number of runs, at least 1");
  if (!(level > 0 && level < 1))
    return gpusim_usage_error (context, "%s", "--level: expected a number between 0 and 1, e.g. 0.95");
  if (jobs < 0)
    return gpusim_usage_error (context, "%s", "--jobs cannot be negative");
  if (!(tolerance >= 0) || !isfinite (tolerance))
    return gpusim_usage_error (context, "--tolerance %g: expected a finite width, at least 0 "
                               "(0: the default)", tolerance);
  if (first_seed != NULL &&
      !g_ascii_string_to_unsigned (first_seed, 10, 0, G_MAXUINT64, &seed, NULL))
    return gpusim_usage_error (context, "%s", "--seed: expected a non-negative integer");

  seek = sim_seek_new (argv[1], (const char * const *) sets, vary, target, &error);
  if (seek == NULL)
    {
      /* A target that is not one is a usage error, named as the option. */
      if (error->code == SIM_ERROR_PARSE && g_str_has_prefix (error->message, "target \""))
        return gpusim_usage_error (context, "--%s", error->message);
      goto failed;
    }
  if (range != NULL && !sim_seek_set_range_from_string (seek, range, &error))
    return gpusim_usage_error (context, "--%s", error->message);
  sim_seek_set_seeds (seek, first_seed != NULL ? seed : sim_seek_get_first_seed (seek),
                      (guint) n_seeds);
  sim_seek_set_force (seek, force);
  sim_seek_set_level (seek, level);
  sim_seek_set_tolerance (seek, tolerance);
  sim_seek_set_threads (seek, (guint) jobs);
  sim_seek_set_probe_func (seek, print_probe, seek, NULL);
  if (!sim_seek_run (seek, &answer, &error))
    goto failed;
  {
    g_autofree char *v = sim_seek_format_value (seek, answer);
    if (sim_seek_get_n_probes (seek) == 1)
      printf ("%s = %s, the low end of the range, already meets %s (1 probe)\n",
              sim_seek_get_key (seek), v, target);
    else
      printf ("smallest %s meeting %s: %s (%u probes)\n", sim_seek_get_key (seek), target, v,
              sim_seek_get_n_probes (seek));
  }
  return 0;

failed:
  gpusim_print_error (error);
  return 1;
}
