/* gpusim trace: what a job log holds, and the log in gpusim's own CSV.
 *
 *   gpusim trace info FILE [--format F] [--tasks TASKS] [--throughput TYPE=RATE]... [--json]
 *   gpusim trace convert FILE -o OUT.csv [--format F] [--tasks TASKS]
 *                        [--throughput TYPE=RATE]... [--rebase]
 *   gpusim trace fetch NAME... [--registry FILE] [-o DIR] | --list
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"
#include "core/sim-read.h"
#include "core/sim-util.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
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

      if (!sim__check_output ("-o", o.output, argv[1], "the trace being read", &error) ||
          !sim__check_output ("-o", o.output, o.tasks, "the task table being read (--tasks)",
                              &error))
        {
          gpusim_print_error (error);
          goto out;
        }

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

/* gpusim trace fetch: the traces whose licence does not let gpusim ship
 * them are downloaded by name from the registry file
 * (data/traces/registry.ini), which gives each one's URL, the SHA-256 of
 * its content and where it goes.  A file is kept only when its SHA-256
 * is the registry's: the download goes to a temporary file beside its
 * destination and is renamed into place once checked, so a failed or
 * tampered download leaves nothing behind. */

typedef struct {
  char    *name;
  char    *url;
  char    *sha256;
  char    *file;
  char    *licence;
  char    *description;
  gboolean gunzip;
  guint    line;
} TraceSource;

static void
trace_source_free (gpointer data)
{
  TraceSource *t = data;

  g_free (t->name);
  g_free (t->url);
  g_free (t->sha256);
  g_free (t->file);
  g_free (t->licence);
  g_free (t->description);
  g_free (t);
}

static const char *const registry_keys[] = {
  "url", "sha256", "file", "licence", "description", "compression", NULL,
};

/* Checks the entry the parser has just finished; @path names the
 * registry in messages. */
static gboolean
trace_source_check (const char *path, const TraceSource *t, GError **error)
{
  const char *missing = t->url == NULL ? "url" : t->sha256 == NULL ? "sha256"
                        : t->file == NULL ? "file" : NULL;

  if (missing != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "%s:%u: [%s]: no %s key: every trace "
                   "needs url, sha256 and file", path, t->line, t->name, missing);
      return FALSE;
    }
  return TRUE;
}

/* Reads the registry: "[NAME]" sections of "key = value" lines, '#'
 * comments.  Every error names the file, the line, the section and the
 * key. */
static GPtrArray *
registry_load (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func (trace_source_free);
  TraceSource *cur = NULL;

  /* The bounded reader (core/sim-read.h): /dev/zero was read until memory
   * ran out, and a NUL byte ended the registry there without a word. */
  text = sim__read_file (path, SIM_READ_TEXT, NULL, error);
  if (text == NULL)
    return NULL;
  /* A UTF-8 byte-order mark is not part of the first line. */
  lines = g_strsplit (g_str_has_prefix (text, "\xEF\xBB\xBF") ? text + 3 : text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *l = g_strstrip (lines[i]);
      char *eq, *key, *value;
      guint n = i + 1;

      if (*l == '\0' || *l == '#')
        continue;
      if (*l == '[')
        {
          size_t len = strlen (l);

          if (l[len - 1] != ']' || len < 3)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: \"%s\": expected a "
                           "section \"[NAME]\"", path, n, l);
              return NULL;
            }
          if (cur != NULL && !trace_source_check (path, cur, error))
            return NULL;
          l[len - 1] = '\0';
          for (guint k = 0; k < sources->len; k++)
            if (strcmp (((TraceSource *) sources->pdata[k])->name, l + 1) == 0)
              {
                g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s:%u: [%s]: given twice "
                             "(first on line %u)", path, n, l + 1,
                             ((TraceSource *) sources->pdata[k])->line);
                return NULL;
              }
          cur = g_new0 (TraceSource, 1);
          cur->name = g_strdup (l + 1);
          cur->line = n;
          g_ptr_array_add (sources, cur);
          continue;
        }
      eq = strchr (l, '=');
      if (eq == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: \"%s\": expected "
                       "\"key = value\"", path, n, l);
          return NULL;
        }
      *eq = '\0';
      key = g_strstrip (l);
      value = g_strstrip (eq + 1);
      if (cur == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: %s: a key before the first "
                       "[NAME] section", path, n, key);
          return NULL;
        }
      if (!g_strv_contains (registry_keys, key))
        {
          g_autofree char *known = g_strjoinv (", ", (char **) registry_keys);

          g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY, "%s:%u: [%s] %s: unknown key "
                       "(known: %s)", path, n, cur->name, key, known);
          return NULL;
        }
      if (strcmp (key, "url") == 0)
        {
          if (!g_str_has_prefix (value, "https://") && !g_str_has_prefix (value, "http://") &&
              !g_str_has_prefix (value, "file://"))
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s:%u: [%s] url: \"%s\": "
                           "expected an https://, http:// or file:// URL", path, n, cur->name,
                           value);
              return NULL;
            }
          g_free (cur->url);
          cur->url = g_strdup (value);
        }
      else if (strcmp (key, "sha256") == 0)
        {
          gboolean hex = strlen (value) == 64;

          for (const char *c = value; hex && *c != '\0'; c++)
            hex = g_ascii_isxdigit (*c);
          if (!hex)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s:%u: [%s] sha256: \"%s\": "
                           "expected 64 hexadecimal digits", path, n, cur->name, value);
              return NULL;
            }
          g_free (cur->sha256);
          cur->sha256 = g_ascii_strdown (value, -1);
        }
      else if (strcmp (key, "file") == 0)
        {
          g_auto(GStrv) parts = g_strsplit (value, "/", -1);
          gboolean ok = *value != '\0' && !g_path_is_absolute (value);

          for (guint k = 0; ok && parts[k] != NULL; k++)
            ok = *parts[k] != '\0' && strcmp (parts[k], ".") != 0 && strcmp (parts[k], "..") != 0;
          if (!ok)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s:%u: [%s] file: \"%s\": "
                           "expected a relative path inside the traces folder (no \"..\")",
                           path, n, cur->name, value);
              return NULL;
            }
          g_free (cur->file);
          cur->file = g_strdup (value);
        }
      else if (strcmp (key, "compression") == 0)
        {
          if (strcmp (value, "gzip") != 0 && strcmp (value, "none") != 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s:%u: [%s] compression: "
                           "\"%s\": expected gzip or none", path, n, cur->name, value);
              return NULL;
            }
          cur->gunzip = strcmp (value, "gzip") == 0;
        }
      else if (strcmp (key, "licence") == 0)
        {
          g_free (cur->licence);
          cur->licence = g_strdup (value);
        }
      else
        {
          g_free (cur->description);
          cur->description = g_strdup (value);
        }
    }
  if (cur != NULL && !trace_source_check (path, cur, error))
    return NULL;
  return g_steal_pointer (&sources);
}

/* The registry a checkout has (from its root), else the installed one,
 * else, for a gpusim run from its build tree, its source tree's (as the
 * catalogue falls back to the source tree's models); the installed path
 * when none is there, for the message. */
static char *
registry_default (void)
{
  g_autofree char *share = NULL;
  g_autofree char *installed = NULL;

  if (g_file_test ("data/traces/registry.ini", G_FILE_TEST_IS_REGULAR))
    return g_strdup ("data/traces/registry.ini");
  share = g_path_get_dirname (SIM_MODELDIR);
  installed = g_build_filename (share, "data", "traces", "registry.ini", NULL);
#ifdef SIM_SOURCE_MODELDIR
  if (!g_file_test (installed, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *top = g_path_get_dirname (SIM_SOURCE_MODELDIR);
      g_autofree char *source = g_build_filename (top, "data", "traces", "registry.ini", NULL);
      if (g_file_test (source, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&source);
    }
#endif
  return g_steal_pointer (&installed);
}

char *
gpusim_default_trace_dir (void)
{
  const char *env = g_getenv ("GPUSIM_TRACE_DIR");
  g_autofree char *registry = NULL;

  if (env != NULL && *env != '\0')
    return g_strdup (env);
  registry = registry_default ();
  return g_path_get_dirname (registry);
}

/* Opens @url for reading: file:// through GIO, http(s):// by running
 * curl into @spool (GIO alone reads remote URLs only with gvfs, which a
 * server seldom has). */
static GInputStream *
open_url (const char *url, const char *spool, GError **error)
{
  g_autoptr(GFile) file = NULL;

  if (!g_str_has_prefix (url, "file://"))
    {
      const char *argv[] = { "curl", "--fail", "--silent", "--show-error", "--location",
                             "--output", spool, url, NULL };
      g_autofree char *err = NULL;
      int wait_status = 0;

      if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH |
                         G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &wait_status,
                         error))
        {
          g_prefix_error (error, "%s: downloading needs curl: ", url);
          return NULL;
        }
      if (!g_spawn_check_wait_status (wait_status, NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: download failed: %s", url,
                       g_strstrip (err));
          return NULL;
        }
      file = g_file_new_for_path (spool);
    }
  else
    file = g_file_new_for_uri (url);
  return G_INPUT_STREAM (g_file_read (file, NULL, error));
}

/* Downloads @t into @dir/@t->file; TRUE when the file there has the
 * registry's SHA-256 (already, or once fetched). */
static gboolean
fetch_one (const TraceSource *t, const char *dir, GError **error)
{
  g_autofree char *dest = g_build_filename (dir, t->file, NULL);
  g_autofree char *folder = g_path_get_dirname (dest);
  g_autofree char *tmp = g_strconcat (dest, ".part", NULL);
  g_autofree char *spool = g_strconcat (dest, ".download", NULL);
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(GInputStream) raw = NULL;
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GFile) tmp_file = g_file_new_for_path (tmp);
  guchar buf[65536];
  gssize n;
  gboolean ok = FALSE;

  /* A file already there with the right content is kept as it is. */
  if (g_file_test (dest, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *have = NULL;
      gsize len = 0;

      if (g_file_get_contents (dest, &have, &len, NULL))
        {
          g_autofree char *hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
                                                              (const guchar *) have, len);
          if (strcmp (hex, t->sha256) == 0)
            {
              printf ("%s: %s is already there (SHA-256 checked)\n", t->name, dest);
              return TRUE;
            }
        }
    }
  if (g_mkdir_with_parents (folder, 0755) != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: cannot create the folder: %s", folder,
                   g_strerror (errno));
      return FALSE;
    }
  raw = open_url (t->url, spool, error);
  if (raw == NULL)
    goto out;
  if (t->gunzip)
    {
      g_autoptr(GZlibDecompressor) z =
        g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);

      in = g_converter_input_stream_new (raw, G_CONVERTER (z));
    }
  else
    in = g_object_ref (raw);
  out = g_file_replace (tmp_file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, error);
  if (out == NULL)
    goto out;
  while ((n = g_input_stream_read (in, buf, sizeof buf, NULL, error)) > 0)
    {
      g_checksum_update (sum, buf, n);
      if (!g_output_stream_write_all (G_OUTPUT_STREAM (out), buf, n, NULL, NULL, error))
        goto out;
    }
  if (n < 0)
    {
      g_prefix_error (error, "%s: ", t->url);
      goto out;
    }
  if (!g_output_stream_close (G_OUTPUT_STREAM (out), NULL, error))
    goto out;
  if (strcmp (g_checksum_get_string (sum), t->sha256) != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: the SHA-256 of what %s gave is "
                   "%s, not the registry's %s: nothing kept", t->name, t->url,
                   g_checksum_get_string (sum), t->sha256);
      goto out;
    }
  if (g_rename (tmp, dest) != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: cannot rename into place: %s", dest,
                   g_strerror (errno));
      goto out;
    }
  printf ("%s: wrote %s (SHA-256 checked)\n", t->name, dest);
  if (t->licence != NULL)
    printf ("%s: terms: %s\n", t->name, t->licence);
  ok = TRUE;

out:
  if (!ok)
    g_unlink (tmp);
  g_unlink (spool);
  return ok;
}

static int
fetch_main (int argc, char **argv)
{
  char *registry = NULL;
  char *dir = NULL;
  gboolean list = FALSE;
  GOptionEntry entries[] = {
    { "registry", 'r', 0, G_OPTION_ARG_FILENAME, &registry,
      "The registry of traces (default: data/traces/registry.ini in this folder, else the "
      "installed one)", "FILE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &dir,
      "The folder the traces' files go under (default: $GPUSIM_TRACE_DIR, else the registry's "
      "folder)", "DIR" },
    { "list", 'l', 0, G_OPTION_ARG_NONE, &list, "List the traces the registry names", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("NAME... - download traces by name and check their SHA-256");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sources = NULL;
  int status = 1;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Downloads each named trace from the URL its registry entry gives, checks its\n"
    "SHA-256 and only then writes it where the entry says, under DIR.  A file\n"
    "already there with the right SHA-256 is kept.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      status = usage_error (context, error->message);
      goto out;
    }
  if (!list && argc < 2)
    {
      status = usage_error (context, "expected the NAME of a trace (gpusim trace fetch --list)");
      goto out;
    }
  if (registry == NULL)
    registry = registry_default ();
  sources = registry_load (registry, &error);
  if (sources == NULL)
    {
      gpusim_print_error (error);
      goto out;
    }
  if (list)
    {
      for (guint k = 0; k < sources->len; k++)
        {
          const TraceSource *t = sources->pdata[k];

          printf ("%-24s %s\n", t->name, t->description != NULL ? t->description : t->file);
        }
      status = 0;
      goto out;
    }
  /* By default the traces go where gpusim fgd and the scenarios look for
   * them: $GPUSIM_TRACE_DIR, else beside the registry (data/traces/ in a
   * checkout). */
  if (dir == NULL && g_getenv ("GPUSIM_TRACE_DIR") != NULL && *g_getenv ("GPUSIM_TRACE_DIR"))
    dir = g_strdup (g_getenv ("GPUSIM_TRACE_DIR"));
  if (dir == NULL)
    dir = g_path_get_dirname (registry);
  /* Every name is checked before anything is downloaded. */
  for (int a = 1; a < argc; a++)
    {
      gboolean known = FALSE;

      for (guint k = 0; k < sources->len && !known; k++)
        known = strcmp (((TraceSource *) sources->pdata[k])->name, argv[a]) == 0;
      if (!known)
        {
          g_autoptr(GString) names = g_string_new (NULL);

          for (guint k = 0; k < sources->len; k++)
            g_string_append_printf (names, "%s%s", k > 0 ? ", " : "",
                                    ((TraceSource *) sources->pdata[k])->name);
          fprintf (stderr, "gpusim: %s: no trace \"%s\" (known: %s)\n", registry, argv[a],
                   names->str);
          goto out;
        }
    }
  for (int a = 1; a < argc; a++)
    for (guint k = 0; k < sources->len; k++)
      {
        const TraceSource *t = sources->pdata[k];

        if (strcmp (t->name, argv[a]) == 0 && !fetch_one (t, dir, &error))
          {
            gpusim_print_error (error);
            goto out;
          }
      }
  status = 0;

out:
  g_free (registry);
  g_free (dir);
  return status;
}

int
gpusim_cmd_trace (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "info") == 0)
    return trace_main (argc - 1, argv + 1, FALSE);
  if (argc >= 2 && strcmp (argv[1], "convert") == 0)
    return trace_main (argc - 1, argv + 1, TRUE);
  if (argc >= 2 && strcmp (argv[1], "fetch") == 0)
    return fetch_main (argc - 1, argv + 1);
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      printf ("Usage: gpusim trace info FILE [--format F] [--json]\n"
              "       gpusim trace convert FILE -o OUT.csv [--format F] [--rebase]\n"
              "       gpusim trace fetch NAME... [--registry FILE] [-o DIR] | --list\n"
              "Formats: swf, philly, helios, slurm, openb, pai (with --tasks TASK_TABLE),\n"
              "gavel (with --throughput TYPE=RATE for each job type), native.\n"
              "fetch downloads a published trace the registry names and checks its SHA-256.\n");
      return 0;
    }
  if (argc >= 2)
    fprintf (stderr, "gpusim: trace: unknown subcommand \"%s\": expected info, convert or "
             "fetch (gpusim trace --help)\n", argv[1]);
  else
    fprintf (stderr, "gpusim: trace needs a subcommand: info, convert or fetch "
             "(gpusim trace --help)\n");
  return 2;
}
