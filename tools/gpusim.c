/* gpusim: the command-line front end of the simulator.
 *
 *   gpusim run SCENARIO [-o DIR] [--set SECTION.KEY=VALUE]... [--json] [--quiet]
 *   gpusim validate SCENARIO [--set ...]
 *   gpusim compare SCENARIO --policy A --policy B... [--seeds N] [--json] [--csv FILE]
 *   gpusim sweep FILE [-j N] [--db FILE] [--csv FILE] [--format table|json|csv] [--shard K/N]
 *   gpusim seek FILE --vary KEY --target "METRIC <= VALUE" [--range LO..HI] [--seeds N]
 *   gpusim fgd [--nodes FILE] [--pods FILE] [--policy NAME]... [--seeds 10] [--csv FILE]
 *   gpusim models [show NAME]
 *   gpusim keys [SECTION] [--markdown]
 *   gpusim run SCENARIO [-o DIR] [--report FILE.html] [--timeline FILE.json]
 *   gpusim report RUN_DIR [-o report.html] [--compare COMPARE.csv]
 *   gpusim report --sweep SUMMARY.json [-o FILE.html] [--metric NAME]...
 *   gpusim topo SCENARIO [--json] [--diagram FILE [--expand] [--from-run DIR --color-by WHAT]]
 *   gpusim topo --view node MODEL [--diagram FILE]
 *   gpusim collective SCENARIO --op OP --gpus N [--algo A] [--min S] [--max S]
 *   gpusim scaling SCENARIO [--gpus 1,2,4,8]
 *   gpusim trace info FILE | trace convert FILE -o OUT.csv
 *   gpusim transfers FILE.csv (--hosts N | --scenario SCENARIO) [-o OUT.csv] [--json]
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"
#include "core/sim-read.h"
#include "kernel/sim-kernel.h"
#include "core/sim-util.h"
#include "outputs/sim-run-outputs.h"
#include "scenario/sim-scenario-private.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void
gpusim_print_error (const GError *error)
{
  fprintf (stderr, "gpusim: %s\n", error->message);
}

int
gpusim_input_error (const GError *error)
{
  gpusim_print_error (error);
  return 1;
}

void
gpusim_print_json (JsonBuilder *builder)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  g_autofree char *text = NULL;

  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
}

int
gpusim_usage_error (GOptionContext *context, const char *format, ...)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);
  g_autofree char *message = NULL;
  va_list ap;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);
  fprintf (stderr, "gpusim: %s\n\n%s", message, help);
  return 2;
}

int
gpusim_check_sets (GOptionContext *context, char **sets)
{
  for (char **s = sets; s != NULL && *s != NULL; s++)
    {
      g_autofree char *group = NULL, *key = NULL;
      g_autoptr(GError) error = NULL;

      if (!sim__scenario_split_override (*s, &group, &key, &error))
        return gpusim_usage_error (context, "%s", error->message);
    }
  return 0;
}

gboolean
gpusim_network_load (GpusimNetwork *net, const char *path, const char *const *sets,
                     const SimRouting *routing, GError **error)
{
  memset (net, 0, sizeof *net);
  net->scenario = sim_scenario_load (path, sets, error);
  if (net->scenario != NULL && sim__scenario_check_models (net->scenario, error))
    net->catalogue = sim_catalogue_new_default ((const char * const *) net->scenario->model_dirs,
                                                error);
  if (net->catalogue != NULL)
    net->cluster = sim_cluster_new_for_scenario (net->scenario, net->catalogue, error);
  if (net->cluster == NULL)
    {
      gpusim_network_clear (net);
      return FALSE;
    }
  sim_fabric_config_copy (&net->fabric, &net->scenario->fabric);
  if (net->fabric.kind == SIM_FABRIC_NONE && sim_cluster_get_n_nodes (net->cluster) > 1)
    {
      guint nics = 0;
      for (guint n = 0; n < sim_cluster_get_n_nodes (net->cluster); n++)
        nics += MAX (1u, sim_cluster_get_node (net->cluster, n)->model->nics);
      net->fabric.kind = SIM_FABRIC_SINGLE_SWITCH;
      net->fabric.radix = nics;
    }
  if (routing != NULL)
    net->fabric.routing = *routing;
  net->topology = sim_topology_new (net->cluster, net->catalogue, &net->fabric, error);
  if (net->topology == NULL)
    {
      gpusim_network_clear (net);
      return FALSE;
    }
  gpusim_print_topology_warnings (net->topology);
  return TRUE;
}

void
gpusim_print_topology_warnings (SimTopology *topology)
{
  for (const char * const *w = sim_topology_get_warnings (topology); *w != NULL; w++)
    g_printerr ("gpusim: warning: %s\n", *w);
}

void
gpusim_network_clear (GpusimNetwork *net)
{
  g_clear_pointer (&net->topology, sim_topology_free);
  sim_fabric_config_clear (&net->fabric);
  g_clear_pointer (&net->cluster, sim_cluster_free);
  g_clear_pointer (&net->catalogue, sim_catalogue_free);
  g_clear_pointer (&net->scenario, sim_scenario_unref);
}

void
gpusim_counter_draw (GpusimCounter *counter, const char *what, guint done, guint total,
                     const char *unit)
{
  gint64 t = g_get_monotonic_time ();

  if (done < total && t - counter->last_draw < 100000)
    return;
  counter->last_draw = t;
  counter->drawn = TRUE;
  fprintf (stderr, "\r%s: %u of %u %s done ", what, done, total, unit);
  fflush (stderr);
}

/* A one-line progress bar on a terminal: redrawn at most 10 times a second. */
typedef struct {
  gint64 last_draw;
  gint64 started;
  gboolean drawn;
} Progress;

static void
draw_progress (SimSimulation *sim, double fraction, SimTime now, guint64 jobs_done,
               gpointer data)
{
  Progress *p = data;
  gint64 t = g_get_monotonic_time ();
  g_autofree char *simt = NULL;

  if (fraction < 1.0 && t - p->last_draw < 100000)
    return;
  p->last_draw = t;
  p->drawn = TRUE;
  simt = sim_format_duration (now);
  if (fraction >= 0)
    {
      int width = 30, filled = (int) (fraction * width + 0.5);
      char bar[31];
      memset (bar, '#', (size_t) filled);
      memset (bar + filled, '.', (size_t) (width - filled));
      bar[width] = '\0';
      fprintf (stderr, "\r[%s] %5.1f%%  simulated %s  %" G_GUINT64_FORMAT " jobs done  %.1f s ",
               bar, 100 * fraction, simt, jobs_done, (t - p->started) / 1e6);
    }
  else
    fprintf (stderr, "\rsimulated %s  %" G_GUINT64_FORMAT " jobs done  %.1f s ", simt, jobs_done,
             (t - p->started) / 1e6);
  fflush (stderr);
}

/* Removes a directory of plain files (the run outputs kept aside for a
 * report); NULL is ignored. */
static void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = NULL;
  const char *name;

  if (dir == NULL)
    return;
  d = g_dir_open (dir, 0, NULL);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_remove (path);
    }
  g_rmdir (dir);
}

static SimScenario *
load_scenario (const char *path, char **sets, GError **error)
{
  return sim_scenario_load (path, (const char * const *) sets, error);
}

/* What building the run did otherwise than asked (a fabric's leaves at
 * another oversubscription), on stderr: the run goes ahead as built. */
static void
print_warnings (SimSimulation *sim)
{
  g_auto(GStrv) warnings = sim_simulation_dup_warnings (sim);

  for (guint i = 0; warnings[i] != NULL; i++)
    g_printerr ("gpusim: warning: %s\n", warnings[i]);
}

static gboolean validate_variants (const char *path, const SimScenario *scenario, char **sets);

int
gpusim_cmd_run (int argc, char **argv)
{
  g_autofree char *output = NULL, *html = NULL, *timeline = NULL, *tmpdir = NULL;
  g_auto(GStrv) sets = NULL;
  gboolean json = FALSE, quiet = FALSE, force = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write summary.json, jobs.csv, timeseries.csv, nodes.csv (and topology.dot with a "
      "[fabric]) into DIR", "DIR" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a scenario key, e.g. --set scenario.seed=7", "SECTION.KEY=VALUE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the summary as JSON", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
      "Print nothing but errors (no progress bar, no summary; --json still prints the JSON, "
      "and -o, --report and --timeline still write their files)", NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "Run even if it would take more than 100 million jobs or 2 GB of output", NULL },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &html,
      "Also write the HTML report of the run (see gpusim report)", "FILE.html" },
    { "timeline", 0, 0, G_OPTION_ARG_FILENAME, &timeline,
      "Also write the run's timeline as Chrome trace-event JSON (open it in Perfetto)",
      "FILE.json" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("SCENARIO - run a scenario");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) scenario = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  Progress progress = { 0 };
  SimReport *report;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Runs the scenario to its end and prints a summary: jobs, wait and completion\n"
    "times, slowdown, utilization, queue length and fragmentation.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (gpusim_check_sets (context, sets) != 0)
    return 2;
  if (argc != 2)
    return gpusim_usage_error (context, "%s", argc < 2 ? "run needs a SCENARIO file" : "too many arguments");

  scenario = load_scenario (argv[1], sets, &error);
  if (scenario == NULL)
    goto failed;
  /* No output may overwrite a file the run reads, nor the report one of
   * the outputs it is made from. */
  if (!sim__scenario_check_output (scenario, "-o", output, sim__run_output_names (), &error) ||
      !sim__scenario_check_output (scenario, "--report", html, NULL, &error) ||
      !sim__scenario_check_output (scenario, "--timeline", timeline, NULL, &error))
    goto failed;
  for (const char * const *n = sim__run_output_names (); output != NULL && *n != NULL; n++)
    {
      g_autofree char *input = g_build_filename (output, *n, NULL);
      g_autofree char *what = g_strdup_printf ("the run's %s, which the report is made from",
                                               *n);

      if (!sim__check_output ("--report", html, input, what, &error))
        goto failed;
    }
  sim = sim_simulation_new (scenario, &error);
  if (sim == NULL)
    goto failed;
  /* The variants are not run, but checked as validate and compare do, as
   * the file gives them: the user's --set is for this run, and may change
   * what a variant builds on (a --set class mig against a variant's
   * gpu_share). */
  if (!validate_variants (argv[1], scenario, NULL))
    return 1;
  print_warnings (sim);
  if (html != NULL && output == NULL)
    {
      /* The report is made from a run's outputs: keep them aside until then. */
      tmpdir = g_dir_make_tmp ("gpusim-run-XXXXXX", &error);
      if (tmpdir == NULL)
        goto failed;
    }
  if ((output != NULL || tmpdir != NULL) &&
      !sim_simulation_set_output_dir (sim, output != NULL ? output : tmpdir, &error))
    goto failed;
  if (timeline != NULL && !sim_simulation_set_timeline (sim, timeline, &error))
    goto failed;
  sim_simulation_set_force (sim, force);
  if (!quiet && isatty (STDERR_FILENO))
    {
      progress.started = g_get_monotonic_time ();
      sim_simulation_set_progress_func (sim, draw_progress, &progress, NULL);
    }
  if (!sim_simulation_run (sim, &error))
    {
      if (progress.drawn)
        fputc ('\n', stderr);
      goto failed;
    }
  if (progress.drawn)
    fputs ("\r\033[K", stderr);
  report = sim_simulation_get_report (sim);
  if (json)
    {
      g_autofree char *text = sim_report_to_json (report, TRUE);
      printf ("%s\n", text);
    }
  else if (!quiet)
    {
      g_autofree char *text = sim_report_format_text (report);
      fputs (text, stdout);
      if (scenario->n_variants > 0)
        {
          g_autoptr(GString) names = g_string_new (NULL);
          for (guint i = 0; i < scenario->n_variants; i++)
            g_string_append_printf (names, "%s%s", i ? ", " : "", scenario->variants[i].name);
          printf ("variants      %s (run them side by side: gpusim compare %s)\n", names->str,
                  argv[1]);
        }
      if (output != NULL)
        printf ("outputs       %s/{summary.json%s%s,nodes.csv%s}\n", output,
                scenario->write_jobs ? ",jobs.csv" : "",
                scenario->write_timeseries ? ",timeseries.csv" : "",
                sim_simulation_get_cluster (sim) != NULL && scenario->fabric.kind != SIM_FABRIC_NONE
                  ? ",topology.dot" : "");
    }
  if (html != NULL &&
      !sim_html_report_write (output != NULL ? output : tmpdir, NULL, html, &error))
    goto failed;
  if (!json && !quiet && html != NULL)
    printf ("report        %s\n", html);
  if (!json && !quiet && timeline != NULL)
    printf ("timeline      %s (open it in https://ui.perfetto.dev)\n", timeline);
  status = fflush (stdout) == 0 ? 0 : 1;
  remove_tree (tmpdir);
  return status;

failed:
  gpusim_print_error (error);
  remove_tree (tmpdir);
  return 1;
}

/* `gpusim report RUN_DIR -o report.html`, or of a sweep's summary. */
int
gpusim_cmd_report (int argc, char **argv)
{
  g_autofree char *output = NULL, *compare = NULL, *sweep = NULL;
  g_auto(GStrv) metric_args = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "The HTML file to write (default: RUN_DIR/report.html, or SUMMARY.html for a sweep)",
      "FILE.html" },
    { "compare", 'c', 0, G_OPTION_ARG_FILENAME, &compare,
      "Add per-policy bars with confidence intervals from `gpusim compare --csv FILE` "
      "(default: RUN_DIR/compare.csv if there is one)", "FILE.csv" },
    { "sweep", 0, 0, G_OPTION_ARG_FILENAME, &sweep,
      "Instead of a run, report a sweep from its summary (`gpusim sweep FILE --format json`)",
      "SUMMARY.json" },
    { "metric", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &metric_args,
      "With --sweep: chart only these metrics, in this order (repeated, or separated by "
      "commas; default: every metric of the summary)", "NAME" },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("RUN_DIR | --sweep SUMMARY.json - an HTML report of a run or a sweep");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Writes one self-contained HTML page (no network needed) from the outputs of\n"
    "`gpusim run SCENARIO -o RUN_DIR`: the scenario, the key metrics, the network\n"
    "diagram, charts over time (GPUs allocated and active, queue length, power and\n"
    "PUE), job completion time and wait distributions, and policy comparisons.\n"
    "With --sweep, the page of a sweep: its axes, a table of its points (each\n"
    "metric's mean and confidence interval) and per metric a chart over the swept\n"
    "axis, one line per value of the second axis.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (sweep != NULL)
    {
      g_autoptr(GPtrArray) metrics = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *text = NULL;
      if (argc != 1)
        return gpusim_usage_error (context, "%s", "report --sweep takes no RUN_DIR");
      if (compare != NULL)
        return gpusim_usage_error (context, "%s", "--compare is for a run's report, not "
                                   "--sweep's");
      for (guint i = 0; metric_args != NULL && metric_args[i] != NULL; i++)
        {
          g_auto(GStrv) names = g_strsplit (metric_args[i], ",", -1);
          for (guint k = 0; names[k] != NULL; k++)
            {
              g_strstrip (names[k]);
              if (*names[k] == '\0')
                return gpusim_usage_error (context, "--metric \"%s\": expected metric names "
                                           "separated by commas", metric_args[i]);
              g_ptr_array_add (metrics, g_strdup (names[k]));
            }
        }
      g_ptr_array_add (metrics, NULL);
      text = sim__read_file (sweep, SIM_READ_JSON, NULL, &error);
      if (text == NULL)
        {
          /* A file that cannot be read may be the wrong one: say which is
           * expected.  A NUL byte or JSON too deep says so with its line. */
          if (error->code == SIM_ERROR_IO)
            g_prefix_error (&error, "%s: cannot read it (expected the summary of `gpusim "
                            "sweep FILE --format json > SUMMARY.json`): ", sweep);
          gpusim_print_error (error);
          return 1;
        }
      if (output != NULL)
        path = g_strdup (output);
      else if (g_str_has_suffix (sweep, ".json"))
        path = g_strdup_printf ("%.*s.html", (int) (strlen (sweep) - 5), sweep);
      else
        path = g_strdup_printf ("%s.html", sweep);
      if (!sim__check_output (output != NULL ? "-o" : NULL, path, sweep,
                              "the sweep's summary being read", &error))
        {
          gpusim_print_error (error);
          return 1;
        }
      if (!sim_html_sweep_report_write (text, sweep, (const char * const *) metrics->pdata,
                                        path, &error))
        {
          gpusim_print_error (error);
          return 1;
        }
      printf ("report        %s\n", path);
      return fflush (stdout) == 0 ? 0 : 1;
    }
  if (metric_args != NULL)
    return gpusim_usage_error (context, "%s", "--metric is for --sweep");
  if (argc != 2)
    return gpusim_usage_error (context, "%s", argc < 2 ? "report needs a RUN_DIR (or --sweep "
                               "SUMMARY.json)" : "too many arguments");
  path = output != NULL ? g_strdup (output) : g_build_filename (argv[1], "report.html", NULL);
  {
    /* The report is made from the run's outputs (and compare.csv). */
    const char * const *names = sim__run_output_names ();
    const char *option = output != NULL ? "-o" : NULL;

    for (guint i = 0; names[i] != NULL && error == NULL; i++)
      {
        g_autofree char *input = g_build_filename (argv[1], names[i], NULL);
        g_autofree char *what = g_strdup_printf ("the run's %s being read", names[i]);
        sim__check_output (option, path, input, what, &error);
      }
    if (error == NULL)
      {
        g_autofree char *input = g_build_filename (argv[1], "compare.csv", NULL);
        if (sim__check_output (option, path, input, "the run's compare.csv being read",
                               &error))
          sim__check_output (option, path, compare, "the --compare file being read", &error);
      }
    if (error != NULL)
      {
        gpusim_print_error (error);
        return 1;
      }
  }
  if (!sim_html_report_write (argv[1], compare, path, &error))
    {
      gpusim_print_error (error);
      return 1;
    }
  printf ("report        %s\n", path);
  return fflush (stdout) == 0 ? 0 : 1;
}

/* Reads SCENARIO's trace to its end; refuses one past the job limit
 * unless FORCE. */
static gboolean
read_trace (SimSimulation *sim, gboolean force, guint64 *jobs, GError **error)
{
  const SimScenario *scenario = sim_simulation_get_scenario (sim);
  g_autoptr(SimWorkload) workload = sim_simulation_open_workload (sim, error);

  if (workload == NULL || !sim_workload_read_all (workload, jobs, error))
    return FALSE;
  if (!force && *jobs > SIM_LIMIT_JOBS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: %s holds %" G_GUINT64_FORMAT " jobs: more than a run may take without "
                   "being forced (%" G_GUINT64_FORMAT "); set [workload] jobs, or pass --force",
                   scenario->path, scenario->trace_path, *jobs, SIM_LIMIT_JOBS);
      return FALSE;
    }
  return TRUE;
}

/* Loads PATH with each of its variants (after the user's SETS) and builds
 * the simulation; prints every error.  Returns whether all were good. */
static gboolean
validate_variants (const char *path, const SimScenario *scenario, char **sets)
{
  gboolean ok = TRUE;

  for (guint v = 0; v < scenario->n_variants; v++)
    {
      g_autoptr(GPtrArray) all = g_ptr_array_new ();
      g_autoptr(SimScenario) sc = NULL;
      g_autoptr(SimSimulation) sim = NULL;
      g_autoptr(GError) error = NULL;

      for (guint i = 0; sets != NULL && sets[i] != NULL; i++)
        g_ptr_array_add (all, sets[i]);
      for (guint i = 0; scenario->variants[v].overrides[i] != NULL; i++)
        g_ptr_array_add (all, scenario->variants[v].overrides[i]);
      g_ptr_array_add (all, NULL);
      sc = load_scenario (path, (char **) all->pdata, &error);
      if (sc != NULL)
        sim = sim__kernel_new (sc, SIM_KERNEL_NO_PLUGIN, &error);
      if (sim == NULL)
        {
          gpusim_print_error (error);
          ok = FALSE;
        }
    }
  return ok;
}

int
gpusim_cmd_validate (int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  gboolean force = FALSE, quick = FALSE;
  GOptionEntry entries[] = {
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a scenario key, e.g. --set scenario.seed=7", "SECTION.KEY=VALUE" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "Accept a run past the size limits (100 million jobs, 2 GB of output)", NULL },
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick,
      "Do not read a trace's rows (only its header, as a run starts)", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("SCENARIO... - check scenarios");
  g_autoptr(GError) error = NULL;
  int status = 0;
  guint64 trace_jobs;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Checks each scenario without running it: its syntax, units and keys, the\n"
    "models it names in the catalogue, its policy and its workload source.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (gpusim_check_sets (context, sets) != 0)
    return 2;
  if (argc < 2)
    return gpusim_usage_error (context, "validate needs a SCENARIO file");
  for (int i = 1; i < argc; i++)
    {
      g_autoptr(SimScenario) scenario = load_scenario (argv[i], sets, &error);
      g_autoptr(SimSimulation) sim = NULL;
      /* Validating a scenario runs none of its code: the [policy] plugin
       * is not loaded (sim-kernel.h). */
      if (scenario != NULL)
        sim = sim__kernel_new (scenario, SIM_KERNEL_NO_PLUGIN, &error);
      if (sim != NULL)
        {
          print_warnings (sim);
          sim_simulation_set_force (sim, force);
        }
      if (sim != NULL && !sim_simulation_check_limits (sim, &error))
        g_clear_object (&sim);
      if (sim == NULL)
        {
          gpusim_print_error (error);
          g_clear_error (&error);
          status = 1;
          continue;
        }
      /* Every variant is built too; an error gives the variant's own line. */
      if (!validate_variants (argv[i], scenario, sets))
        {
          status = 1;
          continue;
        }
      /* A trace is read to its end, so that a bad row far down is found now. */
      trace_jobs = 0;
      if (!quick && scenario->source != SIM_SOURCE_SYNTHETIC &&
          !read_trace (sim, force, &trace_jobs, &error))
        {
          gpusim_print_error (error);
          g_clear_error (&error);
          status = 1;
          continue;
        }
      {
        g_autofree char *cluster = sim_cluster_describe (sim_simulation_get_cluster (sim));
        g_autofree char *gpus = sim_format_count (sim_cluster_get_n_gpus (sim_simulation_get_cluster (sim)),
                                                  "GPUs");
        SimRunEstimate estimate;

        if (scenario->plugin != NULL)
          printf ("%s: valid: \"%s\", %s, %s, policy plugin %s (not loaded)", argv[i],
                  scenario->name, cluster, gpus, scenario->plugin);
        else
          printf ("%s: valid: \"%s\", %s, %s, policy %s", argv[i], scenario->name, cluster, gpus,
                  sim_policy_get_name (sim_simulation_get_policy (sim)));
        sim_simulation_estimate (sim, &estimate);
        if (estimate.jobs > 0)
          {
            g_autofree char *jobs = sim_format_count ((double) estimate.jobs, "jobs");
            printf (", about %s", jobs);
          }
        if (trace_jobs > 0)
          {
            g_autofree char *jobs = sim_format_count ((double) trace_jobs, "jobs");
            printf (", %s in the trace", jobs);
          }
        if (scenario->n_variants > 0)
          {
            g_autofree char *variants = sim_format_count (scenario->n_variants, "variants");
            printf (", %s", variants);
          }
        putchar ('\n');
      }
    }
  return status;
}

static const struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} commands[] = {
  { "run", gpusim_cmd_run, "run a scenario and print its summary" },
  { "validate", gpusim_cmd_validate, "check scenarios without running them" },
  { "compare", gpusim_cmd_compare, "compare policies over several seeds, with confidence intervals" },
  { "sweep", gpusim_cmd_sweep,
    "run every point of a sweep file on every seed (threads, MPI or Slurm arrays), resumable" },
  { "seek", gpusim_cmd_seek, "the smallest value of a key that meets a target, by bisection" },
  { "fgd", gpusim_cmd_fgd, "the FGD fragmentation experiment on openb node and pod lists" },
  { "models", gpusim_cmd_models, "list the hardware catalogue, or show one model" },
  { "keys", gpusim_cmd_keys, "list every scenario section's keys: type, unit, range, default" },
  { "topo", gpusim_cmd_topo, "print the figures of a scenario's network, draw it or a node" },
  { "report", gpusim_cmd_report, "an HTML report of a run, with charts and the network diagram" },
  { "collective", gpusim_cmd_collective,
    "time a collective on the scenario's fabric, as nccl-tests prints it" },
  { "scaling", gpusim_cmd_scaling,
    "each job class's speed-up and efficiency on 1, 2, 4, 8... GPUs" },
  { "trace", gpusim_cmd_trace,
    "what a job log holds (info), the log as gpusim's job CSV (convert), or a public trace fetched and checked (fetch)" },
  { "transfers", gpusim_cmd_transfers,
    "move bytes between hosts or GPUs over a fabric, max-min fair, and time them" },
  { "llm", gpusim_cmd_llm,
    "a language model's training step on the cluster: time, MFU, memory, cost to train" },
  { "serve", gpusim_cmd_serve,
    "serve a language model's requests: TTFT, TPOT, latency, goodput, cost per token" },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: gpusim COMMAND [OPTION...]\n\n"
                "gpusim simulates GPU clusters: hardware, workload and scheduling.\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun `gpusim COMMAND --help` for a command's options.\n");
}

/* On SIGINT, SIGTERM or SIGHUP: no temporary output files left behind,
 * then the default action (the exit status says which signal). */
static void
on_signal (int sig)
{
  sim_remove_temporary_files ();
  signal (sig, SIG_DFL);
  raise (sig);
}

int
main (int argc, char **argv)
{
  struct sigaction sa = { 0 };
  static const char * const simulating[] = { "run", "compare", "sweep", "seek", "report" };

  /* The commands that may simulate large clusters start with huge pages
   * where the kernel gives them only on request (sim__prefer_huge_pages()). */
  for (guint i = 0; argc >= 2 && i < G_N_ELEMENTS (simulating); i++)
    if (strcmp (argv[1], simulating[i]) == 0)
      sim__prefer_huge_pages (argv);
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  setlocale (LC_ALL, "");
  /* Numbers in outputs never depend on the locale. */
  setlocale (LC_NUMERIC, "C");

  if (argc < 2)
    {
      print_usage (stderr);
      return 2;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 ||
      strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("gpusim %s\n", PACKAGE_VERSION);
      return 0;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);
  fprintf (stderr, "gpusim: unknown command \"%s\"\n\n", argv[1]);
  print_usage (stderr);
  return 2;
}
