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
#include "sim-error.h"

#include <math.h>
#include <string.h>

typedef struct {
  SimWorkload    parent;
  SimPhillyConfig config;
  SimLineReader *reader;
  GHashTable    *vcs;        /* hash -> index + 1 */
  gint64         base;       /* seconds subtracted from submit times */
  gboolean       have_base;
  gint64         prev_t;     /* the previous row's timestamp, and its line */
  guint64        prev_line;
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

static gboolean
read_job (SimPhilly *p, SimJobSpec *out, GError **error)
{
  for (;;)
    {
      g_auto(GStrv) f = NULL;
      gint64 t, gpus;
      SimTime submit;
      double duration, gpu_time;
      char *end;
      gpointer vc;

      if (!sim__line_reader_next (p->reader, error))
        return FALSE;
      if (p->reader->line_has_nul)
        return line_error (p, error, "the line contains a NUL byte: not a text file?");
      if (p->reader->line_too_long)
        return line_error (p, error, "the line is longer than %d bytes", SIM_LINE_MAX);
      if (p->reader->line[0] == '\0')
        continue;
      f = g_strsplit (p->reader->line, ",", -1);
      if (g_strv_length (f) != 5)
        return line_error (p, error, "expected 5 comma-separated fields "
                           "(timestamp,duration,num_gpus,gpu_time,cluster), found %u",
                           g_strv_length (f));
      if (!sim__trace_parse_datetime (f[0], ' ', &t))
        return line_error (p, error, "timestamp \"%.40s\" is not YYYY-MM-DD HH:MM:SS", f[0]);
      duration = g_ascii_strtod (f[1], &end);
      if (end == f[1] || *end != '\0' || !isfinite (duration) || duration < 0)
        return line_error (p, error, "duration \"%.40s\" is not a non-negative number of seconds",
                           f[1]);
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
      if (!p->have_base)
        {
          p->base = p->config.rebase_time ? t : 0;
          p->have_base = TRUE;
        }
      if (p->prev_line > 0 && t < p->prev_t)
        return line_error (p, error, "timestamp \"%.40s\" is earlier than the previous job's "
                           "(line %" G_GUINT64_FORMAT "): the file must be sorted by timestamp",
                           f[0], p->prev_line);
      p->prev_t = t;
      p->prev_line = p->reader->line_no;
      if (t - p->base > G_MAXINT64 / SIM_SECOND || t - p->base < G_MININT64 / SIM_SECOND)
        return line_error (p, error, "timestamp \"%.40s\" is more than 292 years from %s", f[0],
                           p->config.rebase_time ? "the first job's" : "1970-01-01");
      if (gpus == 0 || duration <= 0)
        {
          if (!p->config.skip_invalid)
            return line_error (p, error, "a job with %s: expected at least one GPU and a positive "
                               "duration", gpus == 0 ? "no GPUs" : "no run time");
          p->skipped++;
          continue;
        }
      submit = (t - p->base) * SIM_SECOND;
      if (sim_time_from_seconds (duration) >= SIM_TIME_NEVER - MAX (submit, 0))
        return line_error (p, error, "duration \"%.40s\" ends the job more than 292 years "
                           "after %s", f[1], p->config.rebase_time ? "the first job's submission"
                                                                    : "1970-01-01");
      vc = g_hash_table_lookup (p->vcs, f[4]);
      if (vc == NULL)
        {
          g_ptr_array_add (p->parent.class_names, g_strdup (f[4]));
          vc = GUINT_TO_POINTER (p->parent.class_names->len);
          g_hash_table_insert (p->vcs, g_strdup (f[4]), vc);
        }
      out->id = p->reader->line_no - 1;
      out->submit = submit;
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
  if (!read_job (p, out, &local))
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
  p->count++;
  return TRUE;
}

static void
philly_finalize (SimWorkload *workload)
{
  SimPhilly *p = (SimPhilly *) workload;

  sim__line_reader_free (p->reader);
  g_hash_table_unref (p->vcs);
  g_clear_error (&p->failure);
}

static const SimWorkloadVTable philly_vtable = {
  philly_next,
  philly_finalize,
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
