/* sim-philly.c: a streaming reader of the Microsoft Philly job list.
 *
 * The format (the October 2017 month of the Philly-derived list used by
 * the Pollux artifact): a header line "timestamp,duration,num_gpus,
 * gpu_time,cluster", then one job per line: the submission time as a
 * wall-clock "YYYY-MM-DD HH:MM:SS" (US Pacific, no zone written), the run
 * time in seconds, the GPUs, GPU-time (= duration x GPUs, checked) and the
 * virtual cluster's hash.  Submission times are converted as naive
 * calendar times (no daylight-saving shifts, which the October month does
 * not cross), so the result never depends on the machine's time zones.
 * Each virtual cluster becomes a tenant and a job class, numbered in order
 * of first appearance.
 */
#include "config.h"

#include "workload/sim-workload.h"
#include "workload/sim-line-reader.h"
#include "workload/sim-trace-util.h"
#include "core/sim-error.h"
#include "workload/sim-workload-private.h"

#include <math.h>
#include <string.h>

typedef struct {
  SimWorkload    parent;
  SimPhillyConfig config;
  SimLineReader *reader;
  GHashTable    *vcs;        /* hash -> index + 1 */
  SimTraceWindow window;
  guint64        count, skipped;
  GError        *failure;
  gboolean       done;
} SimPhilly;

static gboolean G_GNUC_PRINTF (3, 4)
line_error (SimPhilly *p, GError **error, const char *format, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s:%" G_GUINT64_FORMAT ": %s",
               p->reader->display, p->reader->line_no, msg);
  return FALSE;
}

/* Reads rows until one gives a job, into @row (the window's reader). */
static gboolean
read_row (gpointer data, SimTraceRow *row, GError **error)
{
  SimPhilly *p = data;
  SimJobSpec *out = &row->spec;

  for (;;)
    {
      char *f[5];
      guint n = 0;
      gint64 t, gpus;
      double duration, gpu_time;
      char *end, *q;
      gpointer vc;

      if (!sim__line_reader_next (p->reader, error))
        return FALSE;
      if (p->reader->line_has_nul)
        return line_error (p, error, "the line contains a NUL byte: not a text file?");
      if (p->reader->line_too_long)
        return line_error (p, error, "the line is longer than %d bytes", SIM_LINE_MAX);
      if (p->reader->line[0] == '\0')
        continue;
      /* Split in place at the commas. */
      for (q = p->reader->line;; q++)
        {
          char *comma = strchr (q, ',');

          if (n < G_N_ELEMENTS (f))
            f[n] = q;
          n++;
          if (comma == NULL)
            break;
          *comma = '\0';
          q = comma;
        }
      if (n != 5)
        return line_error (p, error, "expected 5 comma-separated fields "
                           "(timestamp,duration,num_gpus,gpu_time,cluster), found %u", n);
      if (!sim__trace_parse_datetime (f[0], ' ', &t))
        return line_error (p, error, "timestamp \"%.40s\" is not YYYY-MM-DD HH:MM:SS", f[0]);
      duration = g_ascii_strtod (f[1], &end);
      if (end == f[1] || *end != '\0' || !isfinite (duration) || duration < 0)
        return line_error (p, error, "duration \"%.40s\" is not a non-negative number of seconds",
                           f[1]);
      if (duration >= 9.2e9)
        return line_error (p, error, "duration \"%.40s\" is 292 years or more: more than "
                           "simulated time holds in 64-bit nanoseconds", f[1]);
      if (!g_ascii_string_to_signed (f[2], 10, 0, 1000000, &gpus, NULL))
        return line_error (p, error, "num_gpus \"%.40s\" is not an integer from 0 to 1000000",
                           f[2]);
      gpu_time = g_ascii_strtod (f[3], &end);
      if (end == f[3] || *end != '\0' || !isfinite (gpu_time) ||
          fabs (gpu_time - duration * gpus) > 1e-6 * MAX (1.0, gpu_time))
        return line_error (p, error, "gpu_time \"%.40s\" is not duration x num_gpus (%g)", f[3],
                           duration * gpus);
      if (*g_strstrip (f[4]) == '\0')
        return line_error (p, error, "the cluster (virtual cluster hash) is empty");
      /* The cluster is the job's class, written to jobs.csv. */
      if (!g_utf8_validate (f[4], -1, NULL))
        return line_error (p, error, "the cluster is not UTF-8 text: expected a virtual "
                           "cluster hash such as 6214e9");
      if (gpus == 0 || duration <= 0)
        {
          if (!p->config.skip_invalid)
            return line_error (p, error, "a job with %s: expected at least one GPU and a positive "
                               "duration", gpus == 0 ? "no GPUs" : "no run time");
          p->skipped++;
          continue;
        }
      vc = g_hash_table_lookup (p->vcs, f[4]);
      if (vc == NULL)
        {
          g_ptr_array_add (p->parent.class_names, g_strdup (f[4]));
          vc = GUINT_TO_POINTER (p->parent.class_names->len);
          g_hash_table_insert (p->vcs, g_strdup (f[4]), vc);
        }
      row->submit_s = t;
      row->line = p->reader->line_no;
      out->id = p->reader->line_no - 1;
      out->duration = sim_time_from_seconds (duration);
      out->gpus = (guint32) gpus;
      out->gpu_milli = 1000;
      out->job_class = GPOINTER_TO_UINT (vc) - 1;
      out->tenant = GPOINTER_TO_UINT (vc) - 1;
      out->user = -1;
      out->status = -1;
      return TRUE;
    }
}

static gboolean
philly_next (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  SimPhilly *p = (SimPhilly *) workload;
  GError *local = NULL;

  if (p->failure != NULL)
    {
      g_propagate_error (error, g_error_copy (p->failure));
      return FALSE;
    }
  if (p->done || (p->config.max_jobs > 0 && p->count >= p->config.max_jobs))
    {
      p->done = TRUE;
      return FALSE;
    }
  if (!sim__trace_window_next (&p->window, read_row, p, out, &local))
    {
      if (local != NULL)
        {
          p->failure = g_error_copy (local);
          g_propagate_error (error, local);
        }
      else
        p->done = TRUE;
      return FALSE;
    }
  workload->source_line = p->window.released_line;
  p->count++;
  return TRUE;
}

static void
philly_finalize (SimWorkload *workload)
{
  SimPhilly *p = (SimPhilly *) workload;

  sim__line_reader_free (p->reader);
  g_hash_table_unref (p->vcs);
  sim__trace_window_clear (&p->window);
  g_clear_error (&p->failure);
}

static const SimWorkloadVTable philly_vtable = {
  philly_next,
  philly_finalize,
  sim_workload_philly_skipped,
};

SimWorkload *
sim_workload_new_philly (const char *path, const SimPhillyConfig *config, GError **error)
{
  g_autoptr(SimWorkload) workload = NULL;
  g_autofree char *description = NULL;
  SimPhilly *p;
  static const char *header = "timestamp,duration,num_gpus,gpu_time,cluster";

  g_return_val_if_fail (path != NULL && config != NULL, NULL);
  p = g_new0 (SimPhilly, 1);
  p->config = *config;
  p->vcs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  workload = (SimWorkload *) p;
  {
    g_autofree char *display = g_filename_display_name (path);
    description = g_strconcat ("philly:", display, NULL);
  }
  sim__workload_init (workload, &philly_vtable, description);
  {
    g_autofree char *display = g_filename_display_name (path);
    sim__trace_window_init (&p->window, display, config->reorder_window, config->rebase_time,
                            "timestamp", "duration", NULL);
  }
  for (guint i = 0; config->tenants != NULL && config->tenants[i] != NULL; i++)
    if (g_hash_table_lookup (p->vcs, config->tenants[i]) == NULL)
      {
        g_ptr_array_add (p->parent.class_names, g_strdup (config->tenants[i]));
        g_hash_table_insert (p->vcs, g_strdup (config->tenants[i]),
                             GUINT_TO_POINTER (p->parent.class_names->len));
      }
  p->reader = sim__line_reader_open (path, error);
  if (p->reader == NULL)
    return NULL;
  if (!sim__line_reader_next (p->reader, error))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s: empty file: expected the header %s",
                     p->reader->display, header);
      return NULL;
    }
  if (strcmp (g_strstrip (p->reader->line), header) != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s:1: expected the header %s",
                   p->reader->display, header);
      return NULL;
    }
  return g_steal_pointer (&workload);
}

guint64
sim_workload_philly_skipped (const SimWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, 0);
  return workload->vtable == &philly_vtable ? ((const SimPhilly *) workload)->skipped : 0;
}
