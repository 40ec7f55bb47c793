/* sim-helios.c: a streaming reader of Helios job logs (cluster_log.csv).
 *
 * The log of each of SenseTime's Helios clusters (Venus, Earth, Saturn,
 * Uranus; Hu et al., SC'21) is a CSV with a header naming its columns:
 * job_id, user, vc, jobname, gpu_num, cpu_num, node_num, state,
 * submit_time, start_time, end_time, duration, queue.  Rows are read
 * through the shared table reader, which finds the columns by name; the
 * row is then checked field by field, so that a message points at the
 * column that is wrong.  The contract is in sim-traces.h.
 */
#include "config.h"

#include "workload/sim-traces.h"
#include "workload/sim-trace-util.h"
#include "core/sim-error.h"

#include <math.h>
#include <string.h>

enum { C_USER, C_VC, C_GPU_NUM, C_STATE, C_SUBMIT, C_DURATION, N_COLUMNS };
static const char *const column_names[N_COLUMNS] = {
  "user", "vc", "gpu_num", "state", "submit_time", "duration",
};

typedef struct {
  SimTraceReader parent;
  GHashTable    *users;  /* name -> number + 1 */
  GHashTable    *vcs;    /* name -> number + 1 */
} SimHelios;

static gboolean
read_row (SimTraceReader *r, SimJobSpec *out, gint64 *submit_s, GError **error)
{
  SimHelios *h = (SimHelios *) r;
  SimTraceTable *t = &r->table;

  for (;;)
    {
      const char *text;
      char *end;
      gint64 submit;
      guint64 gpus;
      double duration;

      if (!sim__trace_table_next (t, error))
        return FALSE;
      r->rows++;

      text = sim__trace_table_get (t, C_SUBMIT);
      if (!sim__trace_parse_datetime (text, ' ', &submit))
        {
          g_autofree char *q = sim__trace_quote (text);
          return sim__trace_table_field_error (t, C_SUBMIT, error,
                                               "%s is not a date-time YYYY-MM-DD HH:MM:SS", q);
        }

      text = sim__trace_table_get (t, C_GPU_NUM);
      if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT32, &gpus, NULL))
        {
          g_autofree char *q = sim__trace_quote (text);
          return sim__trace_table_field_error (t, C_GPU_NUM, error,
                                               "%s is not a non-negative integer", q);
        }

      text = sim__trace_table_get (t, C_DURATION);
      duration = g_ascii_strtod (text, &end);
      if (end == text || *end != '\0' || !isfinite (duration) || strpbrk (text, "xX") != NULL)
        {
          g_autofree char *q = sim__trace_quote (text);
          return sim__trace_table_field_error (t, C_DURATION, error,
                                               "%s is not a number of seconds", q);
        }
      if (duration >= 9.2e9)
        {
          g_autofree char *q = sim__trace_quote (text);
          return sim__trace_table_field_error (t, C_DURATION, error,
                                               "%s seconds is too long (292 years or more)", q);
        }

      text = sim__trace_table_get (t, C_VC);
      if (*text == '\0')
        return sim__trace_table_field_error (t, C_VC, error,
                                             "the field is empty: expected a virtual cluster");
      /* The virtual cluster is the job's class, written to jobs.csv. */
      if (!sim__trace_table_require_utf8 (t, C_VC, error))
        return FALSE;

      if (gpus == 0 || duration <= 0)
        {
          guint index = gpus == 0 ? C_GPU_NUM : C_DURATION;

          if (!r->config.skip_invalid)
            return sim__trace_table_field_error (t, index, error, "%s: expected at least one "
                                                 "GPU and a positive duration (or skip_invalid)",
                                                 gpus == 0 ? "a job without GPUs"
                                                           : "a job without run time");
          r->skipped++;
          continue;
        }

      out->id = r->rows;
      *submit_s = submit;
      out->duration = sim_time_from_seconds (duration);
      out->gpus = (guint32) gpus;
      out->gpu_milli = 1000;
      text = sim__trace_table_get (t, C_USER);
      out->user = *text != '\0' ? (gint32) sim__trace_intern (h->users, text, NULL) : -1;
      out->tenant = sim__trace_intern (h->vcs, sim__trace_table_get (t, C_VC),
                                       r->parent.class_names);
      out->job_class = out->tenant;
      out->status = sim__trace_slurm_status (sim__trace_table_get (t, C_STATE));
      out->requested = 0;
      return TRUE;
    }
}

static void
helios_finalize (SimTraceReader *r)
{
  SimHelios *h = (SimHelios *) r;

  g_clear_pointer (&h->users, g_hash_table_unref);
  g_clear_pointer (&h->vcs, g_hash_table_unref);
}

SimWorkload *
sim_workload_new_helios (const char *path, const SimTraceConfig *config, GError **error)
{
  static const guint required[] = { C_USER, C_VC, C_GPU_NUM, C_STATE, C_SUBMIT, C_DURATION };
  g_autoptr(SimWorkload) workload = NULL;
  SimTraceReader *r;
  SimHelios *h;

  g_return_val_if_fail (path != NULL && config != NULL, NULL);

  r = sim__trace_reader_new (sizeof (SimHelios), "helios", path, config, ',', TRUE,
                             column_names, N_COLUMNS, error);
  if (r == NULL)
    return NULL;
  workload = (SimWorkload *) r;
  h = (SimHelios *) r;
  r->read_row = read_row;
  r->finalize = helios_finalize;
  sim__trace_reader_set_fields (r, C_SUBMIT, "submit_time", "duration", NULL);
  h->users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  h->vcs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (!sim__trace_table_require (&r->table, required, G_N_ELEMENTS (required), error))
    return NULL;
  return g_steal_pointer (&workload);
}
