/* gpusim trace: what a job log holds, and the log in gpusim's own CSV.
 *
 *   gpusim trace info FILE [--format F] [--tasks TASKS] [--throughput TYPE=RATE]... [--json]
 *   gpusim trace convert FILE -o OUT.csv [--format F] [--tasks TASKS]
 *                        [--throughput TYPE=RATE]... [--rebase]
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int
usage_error (GOptionContext *context, const char *message)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);
  fprintf (stderr, "gpusim: %s\n\n%s", message, help);
  return 2;
}

/* "TYPE=RATE" entries (the last '=' splits, since job types hold none). */
static gboolean
parse_rates (char **texts, GArray *rates, GError **error)
{
  for (guint i = 0; texts != NULL && texts[i] != NULL; i++)
    {
      char *eq = strrchr (texts[i], '=');
      SimGavelRate r = { NULL, 0, NULL };
      char *end;

      if (eq == NULL || eq == texts[i])
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "--throughput \"%s\": expected "
                       "JOB_TYPE=STEPS_PER_SECOND, e.g. \"ResNet-18 (batch size 32)=29.95\"",
                       texts[i]);
          return FALSE;
        }
      *eq = '\0';
      r.job_type = texts[i];
      r.steps_per_second = g_ascii_strtod (eq + 1, &end);
      if (end == eq + 1 || *end != '\0' || !(r.steps_per_second > 0) ||
          !isfinite (r.steps_per_second))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "--throughput \"%s=%s\": expected a "
                       "positive number of steps per second after '='", texts[i], eq + 1);
          return FALSE;
        }
      g_array_append_val (rates, r);
    }
  return TRUE;
}

typedef struct {
  char    *format;
  char    *tasks;
  char   **throughputs;
  gboolean json;
  char    *output;
  gboolean rebase;
} TraceOptions;

static SimTraceFormat
resolve_format (const TraceOptions *o, const char *path, GError **error)
{
  SimTraceFormat f;

  if (o->format == NULL)
    return sim_trace_detect_format (path, error);
  f = sim_trace_format_from_name (o->format);
  if (f == SIM_TRACE_FORMAT_UNKNOWN)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "--format %s: expected swf, philly, "
                 "helios, slurm, openb, pai, gavel or native", o->format);
  return f;
}

static const char *const hist_labels[8] = {
  "<=1", "2", "3-4", "5-8", "9-16", "17-32", "33-64", ">64",
};

static void
print_info (const char *path, SimTraceFormat format, const SimTraceStats *s)
{
  g_autofree char *span = sim_format_duration (s->last_submit - s->first_submit);
  guint64 peak = 1;

  printf ("trace: %s\nformat: %s\njobs: %" G_GUINT64_FORMAT "\nskipped rows: %" G_GUINT64_FORMAT
          "\n", path, sim_trace_format_get_name (format), s->jobs, s->skipped);
  printf ("time span: %s (first submit %.0f s, last %.0f s)\n", span,
          sim_time_to_seconds (s->first_submit), sim_time_to_seconds (s->last_submit));
  printf ("GPU-hours: %.1f\n", s->gpu_hours);
  printf ("GPUs per job:\n");
  for (guint i = 0; i < 8; i++)
    printf ("  %-6s %10" G_GUINT64_FORMAT "  %5.1f %%\n", hist_labels[i], s->gpus_hist[i],
            s->jobs > 0 ? 100.0 * s->gpus_hist[i] / s->jobs : 0.0);
  for (guint h = 0; h < 24; h++)
    peak = MAX (peak, s->arrivals_by_hour[h]);
  printf ("arrivals by hour of day (of the trace's clock):\n");
  for (guint h = 0; h < 24; h++)
    {
      char bar[41];
      guint n = (guint) (40.0 * s->arrivals_by_hour[h] / peak + 0.5);

      memset (bar, '#', n);
      bar[n] = '\0';
      printf ("  %02u  %10" G_GUINT64_FORMAT "  %s\n", h, s->arrivals_by_hour[h], bar);
    }
  printf ("rows out of order: %" G_GUINT64_FORMAT " (%.1f %%)\n", s->rows_out_of_order,
          s->jobs > 0 ? 100.0 * s->rows_out_of_order / s->jobs : 0.0);
  printf ("reorder window needed: %" G_GUINT64_FORMAT " rows%s\n", s->window_needed,
          s->window_needed > SIM_TRACE_WINDOW_ROWS_DEFAULT
            ? " (more than the default: set [workload] reorder_window)" : "");
}

static void
print_info_json (const char *path, SimTraceFormat format, const SimTraceStats *s)
{
  g_autoptr(GString) j = g_string_new ("{\n");
  g_autofree char *escaped = g_strescape (path, NULL);

  g_string_append_printf (j, "  \"trace\": \"%s\",\n  \"format\": \"%s\",\n", escaped,
                          sim_trace_format_get_name (format));
  g_string_append_printf (j, "  \"jobs\": %" G_GUINT64_FORMAT ",\n  \"skipped\": %"
                          G_GUINT64_FORMAT ",\n", s->jobs, s->skipped);
  g_string_append_printf (j, "  \"first_submit_s\": %.9f,\n  \"last_submit_s\": %.9f,\n",
                          sim_time_to_seconds (s->first_submit),
                          sim_time_to_seconds (s->last_submit));
  g_string_append_printf (j, "  \"span_s\": %.9f,\n  \"gpu_hours\": %.6f,\n",
                          sim_time_to_seconds (s->last_submit - s->first_submit), s->gpu_hours);
  g_string_append (j, "  \"gpus_per_job\": {");
  for (guint i = 0; i < 8; i++)
    g_string_append_printf (j, "%s\"%s\": %" G_GUINT64_FORMAT, i > 0 ? ", " : "",
                            hist_labels[i], s->gpus_hist[i]);
  g_string_append (j, "},\n  \"arrivals_by_hour\": [");
  for (guint h = 0; h < 24; h++)
    g_string_append_printf (j, "%s%" G_GUINT64_FORMAT, h > 0 ? ", " : "",
                            s->arrivals_by_hour[h]);
  g_string_append_printf (j, "],\n  \"rows_out_of_order\": %" G_GUINT64_FORMAT ",\n"
                          "  \"reorder_window_needed\": %" G_GUINT64_FORMAT "\n}\n",
                          s->rows_out_of_order, s->window_needed);
  fputs (j->str, stdout);
}

static int
trace_main (int argc, char **argv, gboolean convert)
{
  TraceOptions o = { 0 };
  GOptionEntry common[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &o.format,
      "The trace's format (default: told from its content)", "FORMAT" },
    { "tasks", 't', 0, G_OPTION_ARG_FILENAME, &o.tasks,
      "A PAI job table's task table", "PAI_TASK_TABLE" },
    { "throughput", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.throughputs,
      "A Gavel job type's steps per second on one reference GPU", "TYPE=RATE" },
    { NULL }
  };
  GOptionEntry info_entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print the figures as JSON", NULL },
    { NULL }
  };
  GOptionEntry convert_entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "The CSV to write", "OUT.csv" },
    { "rebase", 0, 0, G_OPTION_ARG_NONE, &o.rebase,
      "Count submit times from the first job's (default: as the trace writes them)", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (convert ? "FILE -o OUT.csv - write a trace as gpusim's job CSV"
                                  : "FILE - what a trace holds");
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) rates = g_array_new (FALSE, FALSE, sizeof (SimGavelRate));
  SimTraceConfig config = { 0, TRUE, FALSE, SIM_TRACE_REORDER_SORT };
  SimTraceFormat format;
  int status = 1;

  g_option_context_add_main_entries (context, common, NULL);
  g_option_context_add_main_entries (context, convert ? convert_entries : info_entries, NULL);
  g_option_context_set_summary (context, convert
    ? "Reads a job log of any format gpusim reads and writes its jobs, in order of\n"
      "submission, as gpusim's own job CSV (source = native), which replays the same."
    : "Jobs, time span, GPU-hours, GPUs per job, arrivals by hour of day, and how far\n"
      "the rows are out of order (the reorder window the trace needs).");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      status = usage_error (context, error->message);
      goto out;
    }
  if (argc != 2)
    {
      status = usage_error (context, argc < 2 ? "expected a trace FILE" : "too many arguments");
      goto out;
    }
  if (convert && o.output == NULL)
    {
      status = usage_error (context, "convert needs -o OUT.csv");
      goto out;
    }
  if (!parse_rates (o.throughputs, rates, &error))
    {
      status = usage_error (context, error->message);
      goto out;
    }
  format = resolve_format (&o, argv[1], &error);
  if (format == SIM_TRACE_FORMAT_UNKNOWN)
    {
      status = o.format != NULL ? usage_error (context, error->message) : 1;
      if (o.format == NULL)
        gpusim_print_error (error);
      goto out;
    }
  if (convert)
    {
      g_autoptr(SimWorkload) w = NULL;
      guint64 jobs = 0;

      config.rebase_time = o.rebase;
      w = sim_trace_open (format, argv[1], &config, o.tasks,
                          (const SimGavelRate *) (void *) rates->data, rates->len, &error);
      if (w == NULL || !sim_trace_write_native (w, o.output, &jobs, &error))
        {
          gpusim_print_error (error);
          goto out;
        }
      fprintf (stderr, "gpusim: wrote %" G_GUINT64_FORMAT " jobs to %s\n", jobs, o.output);
    }
  else
    {
      SimTraceStats stats;

      if (!sim_trace_stats_compute (format, argv[1], &config, o.tasks,
                                    (const SimGavelRate *) (void *) rates->data, rates->len,
                                    &stats, &error))
        {
          gpusim_print_error (error);
          goto out;
        }
      if (o.json)
        print_info_json (argv[1], format, &stats);
      else
        print_info (argv[1], format, &stats);
    }
  status = 0;

out:
  g_free (o.format);
  g_free (o.tasks);
  g_strfreev (o.throughputs);
  g_free (o.output);
  return status;
}

int
gpusim_cmd_trace (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "info") == 0)
    return trace_main (argc - 1, argv + 1, FALSE);
  if (argc >= 2 && strcmp (argv[1], "convert") == 0)
    return trace_main (argc - 1, argv + 1, TRUE);
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      printf ("Usage: gpusim trace info FILE [--format F] [--json]\n"
              "       gpusim trace convert FILE -o OUT.csv [--format F] [--rebase]\n"
              "Formats: swf, philly, helios, slurm, openb, pai (with --tasks TASK_TABLE),\n"
              "gavel (with --throughput TYPE=RATE for each job type), native.\n");
      return 0;
    }
  fprintf (stderr, "gpusim: trace needs a subcommand: info or convert (gpusim trace --help)\n");
  return 2;
}
