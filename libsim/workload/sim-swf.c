/* sim-swf.c: a streaming reader of the Standard Workload Format (v2.2).
 *
 * The Parallel Workloads Archive's format: header comments starting with
 * ';', then one job per line as 18 whitespace-separated integers, -1 for
 * unknown.  Lines pass through the reorder window of sim-trace-util.h, so
 * a log slightly out of order replays in order of submission; memory is
 * bounded by the window, not by the length of the log.  Files compressed with gzip (the archive
 * distributes its logs as .swf.gz) are recognised by their magic number and
 * decompressed on the fly with GIO's zlib converter.
 *
 * Lines are read into a fixed buffer rather than with getline(), so that a
 * file that is not text (no newline for gigabytes) cannot make the reader
 * allocate without bound: a job line longer than MAX_LINE is an error, and
 * the overlong tail of a comment is discarded.
 */
#include "config.h"

#include "workload/sim-workload.h"
#include "workload/sim-line-reader.h"
#include "workload/sim-trace-util.h"
#include "core/sim-error.h"
#include "workload/sim-workload-private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#define N_FIELDS 18
#define MAX_LINE SIM_LINE_MAX

/* Field numbers, counted from 1 as the format's definition does. */
enum {
  F_JOB = 1, F_SUBMIT = 2, F_RUN = 4, F_ALLOC_PROCS = 5, F_REQ_PROCS = 8,
  F_REQ_TIME = 9, F_STATUS = 11, F_USER = 12,
};

static const char *const field_names[N_FIELDS + 1] = {
  NULL, "job number", "submit time", "wait time", "run time", "allocated processors",
  "average CPU time", "used memory", "requested processors", "requested time",
  "requested memory", "status", "user", "group", "executable", "queue", "partition",
  "preceding job", "think time",
};

typedef struct {
  SimWorkload parent;
  SimSwfConfig config;
  char   *display;          /* the path, for messages */

  SimLineReader *reader;
  gboolean line_pending;    /* the first job line, read with the header */

  guint64  count;           /* jobs returned */
  guint64  skipped;
  SimTraceWindow window;    /* puts jobs in order of submission */

  GError  *failure;         /* sticky: returned again by later calls */
  gboolean done;
} SimSwf;

/* Whether the current line is a comment or blank. */
static gboolean
line_is_ignored (const SimSwf *swf)
{
  const char *p = swf->reader->line;

  while (g_ascii_isspace (*p))
    p++;
  return *p == ';' || (*p == '\0' && !swf->reader->line_has_nul);
}

/* Reads up to the next job line.  Returns FALSE at the end (error unset)
 * or on failure. */
static gboolean
next_job_line (SimSwf *swf, GError **error)
{
  if (swf->line_pending)
    {
      swf->line_pending = FALSE;
      return TRUE;
    }
  for (;;)
    {
      if (!sim__line_reader_next (swf->reader, error))
        return FALSE;
      if (!line_is_ignored (swf))
        return TRUE;
    }
}

/* ------------------------------------------------------------------------- */
/* Parsing a job line.                                                       */

/* @token quoted for a message: valid UTF-8, cut short if long. */
static char *
quote_token (const char *token)
{
  g_autofree char *valid = g_utf8_make_valid (token, -1);

  if (g_utf8_strlen (valid, -1) > 32)
    {
      g_autofree char *head = g_utf8_substring (valid, 0, 32);

      return g_strdup_printf ("\"%s...\"", head);
    }
  return g_strdup_printf ("\"%s\"", valid);
}

static gboolean G_GNUC_PRINTF (3, 4)
line_error (SimSwf *swf, GError **error, const char *format, ...)
{
  g_autofree char *msg = NULL;
  va_list ap;

  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s:%" G_GUINT64_FORMAT ": %s",
               swf->display, swf->reader->line_no, msg);
  return FALSE;
}

static gboolean
split_fields (SimSwf *swf, gint64 fields[N_FIELDS + 1], GError **error)
{
  char *tokens[N_FIELDS];
  guint n = 0;
  char *p = swf->reader->line;

  if (swf->reader->line_has_nul)
    return line_error (swf, error, "the line contains a NUL byte: this is not a text file");
  if (swf->reader->line_too_long)
    return line_error (swf, error, "the line is longer than %d bytes", MAX_LINE);

  for (;;)
    {
      while (g_ascii_isspace (*p))
        p++;
      if (*p == '\0')
        break;
      if (n < N_FIELDS)
        tokens[n] = p;
      n++;
      while (*p != '\0' && !g_ascii_isspace (*p))
        p++;
      if (*p != '\0')
        *p++ = '\0';
    }
  if (n != N_FIELDS)
    return line_error (swf, error, "expected %d integer fields, found %u", N_FIELDS, n);

  for (guint i = 0; i < N_FIELDS; i++)
    {
      g_autoptr (GError) local = NULL;

      if (!g_ascii_string_to_signed (tokens[i], 10, G_MININT64, G_MAXINT64,
                                     &fields[i + 1], &local))
        {
          g_autofree char *quoted = quote_token (tokens[i]);

          if (g_error_matches (local, G_NUMBER_PARSER_ERROR,
                               G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
            return line_error (swf, error, "field %u (%s) is out of range: %s",
                               i + 1, field_names[i + 1], quoted);
          return line_error (swf, error, "field %u (%s) is not an integer: %s",
                             i + 1, field_names[i + 1], quoted);
        }
    }
  return TRUE;
}

/* Seconds to SimTime, or an error naming the field if it overflows. */
static gboolean
field_seconds (SimSwf *swf, guint field, gint64 seconds, SimTime *out, GError **error)
{
  if (seconds >= G_MAXINT64 / SIM_SECOND)
    return line_error (swf, error, "field %u (%s) is too large: %" G_GINT64_FORMAT " s",
                       field, field_names[field], seconds);
  *out = seconds * SIM_SECOND;
  return TRUE;
}

/* A small integer field that may be -1 (unknown) or any non-negative value
 * that fits in 32 bits; other negative values are read as unknown. */
static gboolean
field_int32 (SimSwf *swf, guint field, gint64 v, gint32 *out, GError **error)
{
  if (v > G_MAXINT32)
    return line_error (swf, error, "field %u (%s) is out of range: %" G_GINT64_FORMAT,
                       field, field_names[field], v);
  *out = v < 0 ? -1 : (gint32) v;
  return TRUE;
}

/* ceil(processors / processors_per_gpu), computed so that a ratio that is
 * a whole number up to rounding (32 / 8, or 3 / 0.1) is not rounded up. */
static gboolean
processors_to_gpus (SimSwf *swf, gint64 processors, guint32 *out, GError **error)
{
  double q = (double) processors / swf->config.processors_per_gpu;
  double r = nearbyint (q);
  double g = fabs (q - r) <= 1e-9 * q ? r : ceil (q);

  if (g > G_MAXUINT32)
    return line_error (swf, error, "%" G_GINT64_FORMAT " processors make more than %u GPUs",
                       processors, G_MAXUINT32);
  *out = (guint32) MAX (g, 1);
  return TRUE;
}

/* Parses job lines until one yields a job; skips invalid ones if asked.
 * The window's reader. */
static gboolean
read_job (gpointer data, SimTraceRow *row, GError **error)
{
  SimSwf *swf = data;
  SimJobSpec *out = &row->spec;

  for (;;)
    {
      gint64 f[N_FIELDS + 1];
      gint64 processors;
      SimTime duration = 0, requested = 0;

      if (!next_job_line (swf, error))
        return FALSE;
      if (!split_fields (swf, f, error))
        return FALSE;

      if (f[F_SUBMIT] < 0)
        return line_error (swf, error, "field 2 (submit time) is negative or unknown: %"
                           G_GINT64_FORMAT, f[F_SUBMIT]);

      processors = f[F_ALLOC_PROCS] >= 0 ? f[F_ALLOC_PROCS] : f[F_REQ_PROCS];
      if (processors <= 0 || f[F_RUN] <= 0)
        {
          if (swf->config.skip_invalid)
            {
              swf->skipped++;
              continue;
            }
          if (processors <= 0)
            return line_error (swf, error,
                               "job %" G_GINT64_FORMAT " has no processors (field 5, allocated "
                               "processors, is %" G_GINT64_FORMAT " and field 8, requested "
                               "processors, is %" G_GINT64_FORMAT ")",
                               f[F_JOB], f[F_ALLOC_PROCS], f[F_REQ_PROCS]);
          return line_error (swf, error,
                             "job %" G_GINT64_FORMAT " has no run time (field 4 is %"
                             G_GINT64_FORMAT ")", f[F_JOB], f[F_RUN]);
        }

      if (!field_seconds (swf, F_RUN, f[F_RUN], &duration, error)
          || (f[F_REQ_TIME] > 0
              && !field_seconds (swf, F_REQ_TIME, f[F_REQ_TIME], &requested, error))
          || !processors_to_gpus (swf, processors, &out->gpus, error)
          || !field_int32 (swf, F_USER, f[F_USER], &out->user, error)
          || !field_int32 (swf, F_STATUS, f[F_STATUS], &out->status, error))
        return FALSE;

      /* A job without a number takes its line number, which is unique. */
      out->id = f[F_JOB] >= 0 ? (guint64) f[F_JOB] : swf->reader->line_no;
      row->submit_s = f[F_SUBMIT];
      row->line = swf->reader->line_no;
      out->duration = duration;
      out->requested = requested;
      out->gpu_milli = 1000;
      out->job_class = 0;
      /* Each user is a tenant, for fair-share orders. */
      out->tenant = out->user >= 0 ? (guint32) out->user : 0;
      return TRUE;
    }
}

static gboolean
swf_next (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  SimSwf *swf = (SimSwf *) workload;
  GError *local = NULL;

  if (swf->failure != NULL)
    {
      g_propagate_error (error, g_error_copy (swf->failure));
      return FALSE;
    }
  if (swf->done)
    return FALSE;
  if (swf->config.max_jobs > 0 && swf->count >= swf->config.max_jobs)
    {
      swf->done = TRUE;
      return FALSE;
    }
  if (!sim__trace_window_next (&swf->window, read_job, swf, out, &local))
    {
      if (local != NULL)
        {
          swf->failure = g_error_copy (local);
          g_propagate_error (error, local);
        }
      else
        swf->done = TRUE;
      return FALSE;
    }
  workload->source_line = swf->window.released_line;
  swf->count++;
  return TRUE;
}

static void
swf_finalize (SimWorkload *workload)
{
  SimSwf *swf = (SimSwf *) workload;

  sim__line_reader_free (swf->reader);
  g_free (swf->display);
  sim__trace_window_clear (&swf->window);
  g_clear_error (&swf->failure);
}

static const SimWorkloadVTable swf_vtable = {
  swf_next,
  swf_finalize,
  sim_workload_swf_skipped,
};

SimWorkload *
sim_workload_new_swf (const char *path, const SimSwfConfig *config, GError **error)
{
  g_autoptr (SimWorkload) workload = NULL;
  g_autofree char *description = NULL;
  SimSwf *swf;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  swf = g_new0 (SimSwf, 1);
  swf->display = g_filename_display_name (path);
  description = g_strconcat ("swf:", swf->display, NULL);
  workload = (SimWorkload *) swf;
  sim__workload_init (workload, &swf_vtable, description);
  g_ptr_array_add (workload->class_names, g_strdup ("swf"));

  if (!(config->processors_per_gpu > 0) || isinf (config->processors_per_gpu))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "processors_per_gpu must be a positive, finite number (got %g)",
                   config->processors_per_gpu);
      return NULL;
    }
  swf->config = *config;
  sim__trace_window_init (&swf->window, swf->display, config->reorder_window,
                          config->rebase_time, "field 2 (submit time)", "field 4 (run time)",
                          "field 9 (requested time)");

  swf->reader = sim__line_reader_open (path, error);
  if (swf->reader == NULL)
    return NULL;

  /* The header: comments and blank lines up to the first job line, which is
   * kept for the first call to sim_workload_next(). */
  for (;;)
    {
      GError *local = NULL;

      if (!sim__line_reader_next (swf->reader, &local))
        {
          if (local != NULL)
            {
              g_propagate_error (error, local);
              return NULL;
            }
          break;
        }
      if (!line_is_ignored (swf))
        {
          swf->line_pending = TRUE;
          break;
        }
    }
  return g_steal_pointer (&workload);
}

guint64
sim_workload_swf_skipped (const SimWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, 0);
  if (workload->vtable != &swf_vtable)
    return 0;
  return ((const SimSwf *) workload)->skipped;
}
