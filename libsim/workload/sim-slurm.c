/* sim-slurm.c: a streaming reader of Slurm accounting logs (sacct output).
 *
 * `sacct --parsable2 --allocations` prints one line per job allocation,
 * its fields separated by '|', after a header of the field names.  Rows are
 * read through the shared table reader, which finds the columns by name.
 * Each row is checked in this order: its submit time (and the order of the
 * rows), its GPUs (a row without any is skipped), whether the job finished
 * and ran, then its time limit.  The contract, with the table of GPU type
 * names, is in sim-traces.h.
 */
#include "config.h"

#include "workload/sim-traces.h"
#include "workload/sim-trace-util.h"
#include "core/sim-error.h"

#include <string.h>

enum {
  C_SUBMIT, C_START, C_END, C_ELAPSED, C_STATE, C_ALLOC_TRES, C_REQ_TRES, C_USER, C_ACCOUNT,
  C_TIMELIMIT, N_COLUMNS
};
static const char *const column_names[N_COLUMNS] = {
  "Submit", "Start", "End", "Elapsed", "State", "AllocTRES", "ReqTRES", "User", "Account",
  "Timelimit",
};

/* GPU types as sites name them in gres.conf, and the catalogue's models
 * they stand for.  A type that covers several models names them all. */
static const struct {
  const char *type;
  const char *models;
} gpu_types[] = {
  { "h100", "H100-SXM" },
  { "h100-sxm", "H100-SXM" },
  { "h200", "H200-SXM" },
  { "a100", "A100-SXM-80GB" },
  { "a100-80gb", "A100-SXM-80GB" },
  { "a100_80g", "A100-SXM-80GB" },
  { "a100-40gb", "A100-SXM-40GB" },
  { "a100_40g", "A100-SXM-40GB" },
  { "v100", "V100-16GB|V100-32GB" },
  { "v100-16gb", "V100-16GB" },
  { "v100_16g", "V100-16GB" },
  { "v100-32gb", "V100-32GB" },
  { "v100_32g", "V100-32GB" },
  { "b200", "B200" },
  { "gh200", "GH200" },
  { "a10", "A10" },
  { "t4", "T4" },
  { "p100", "P100" },
  { "mi250x", "MI250X" },
  { "mi300x", "MI300X" },
};

typedef struct {
  SimTraceReader parent;
  GHashTable    *users;     /* name -> number + 1 */
  GHashTable    *accounts;  /* name -> number + 1 */
} SimSlurm;

/* ------------------------------------------------------------------------- */
/* Durations.                                                                */

/* @len decimal digits (1 to 15, nothing else) of a value up to 100000000. */
static gboolean
parse_part (const char *text, gsize len, guint64 *out)
{
  guint64 v = 0;

  if (len == 0 || len > 15)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_isdigit (text[i]))
        return FALSE;
      v = v * 10 + (guint64) (text[i] - '0');
    }
  if (v > 100000000)
    return FALSE;
  *out = v;
  return TRUE;
}

/* Seconds of a Slurm duration: "[D-]HH:MM:SS", "D-HH:MM", "D-HH", "MM:SS"
 * or "MM" (Slurm's own forms).  Minutes and seconds after the first part
 * must be below 60, and hours below 24 after days. */
static gboolean
parse_duration (const char *text, gint64 *seconds)
{
  const char *dash = strchr (text, '-');
  const char *p = text;
  guint64 days = 0, part[3];
  guint n = 0;
  gint64 s;

  if (dash != NULL)
    {
      if (!parse_part (text, (gsize) (dash - text), &days))
        return FALSE;
      p = dash + 1;
    }
  for (;;)
    {
      const char *colon = strchr (p, ':');
      gsize len = colon != NULL ? (gsize) (colon - p) : strlen (p);

      if (n == 3 || !parse_part (p, len, &part[n]))
        return FALSE;
      n++;
      if (colon == NULL)
        break;
      p = colon + 1;
    }
  if (dash != NULL)
    {
      /* Hours, hours:minutes or hours:minutes:seconds after the days. */
      if (part[0] > 23 || (n > 1 && part[1] > 59) || (n > 2 && part[2] > 59))
        return FALSE;
      s = (gint64) days * 86400 + (gint64) part[0] * 3600 + (n > 1 ? (gint64) part[1] * 60 : 0) +
          (n > 2 ? (gint64) part[2] : 0);
    }
  else if (n == 1)
    s = (gint64) part[0] * 60;
  else if (n == 2)
    {
      if (part[1] > 59)
        return FALSE;
      s = (gint64) part[0] * 60 + (gint64) part[1];
    }
  else
    {
      if (part[1] > 59 || part[2] > 59)
        return FALSE;
      s = (gint64) part[0] * 3600 + (gint64) part[1] * 60 + (gint64) part[2];
    }
  *seconds = s;
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* TRES.                                                                     */

static const char *
models_of_type (const char *type)
{
  for (guint i = 0; i < G_N_ELEMENTS (gpu_types); i++)
    if (g_ascii_strcasecmp (type, gpu_types[i].type) == 0)
      return gpu_types[i].models;
  return NULL;
}

/* Reads the GPUs of a TRES list "cpu=16,mem=64G,gres/gpu:h100=8,...".
 * *models is the interned '|' list of the models the types stand for, or
 * NULL when there is no type or one is unknown. */
static gboolean
parse_tres (SimTraceReader *r, guint index, const char *tres, guint32 *gpus,
            const char **models, GError **error)
{
  /* Entries are split in a copy, in place: no allocation for the usual
   * rows (the list of models is made only for typed GPUs). */
  char buf[SIM_LINE_MAX + 1];
  gsize len = strlen (tres);
  g_autoptr(GPtrArray) names = NULL;
  guint64 total = 0, typed = 0;
  gboolean have_total = FALSE, unknown_type = FALSE;
  char *next = buf;

  g_return_val_if_fail (len <= SIM_LINE_MAX, FALSE);
  memcpy (buf, tres, len + 1);
  while (next != NULL)
    {
      char *entry = next, *comma = strchr (next, ',');
      char *eq;
      const char *type = NULL;
      guint64 count;

      if (comma != NULL)
        {
          *comma = '\0';
          next = comma + 1;
        }
      else
        next = NULL;
      entry = g_strstrip (entry);
      if (*entry == '\0')
        continue;
      eq = strchr (entry, '=');
      if (eq == NULL)
        {
          g_autofree char *q = sim__trace_quote (entry);
          return sim__trace_table_field_error (&r->table, index, error,
                                               "entry %s is not name=value", q);
        }
      *eq = '\0';
      if (strcmp (entry, "gres/gpu") == 0)
        ;
      else if (g_str_has_prefix (entry, "gres/gpu:") && entry[strlen ("gres/gpu:")] != '\0')
        type = entry + strlen ("gres/gpu:");
      else
        continue;
      if (!g_ascii_string_to_unsigned (eq + 1, 10, 0, G_MAXUINT32, &count, NULL))
        {
          g_autofree char *q = sim__trace_quote (eq + 1);
          return sim__trace_table_field_error (&r->table, index, error,
                                               "%s=%s: expected a number of GPUs", entry, q);
        }
      if (type == NULL)
        {
          total += count;
          have_total = TRUE;
          continue;
        }
      typed += count;
      if (count == 0)
        continue;
      {
        const char *m = models_of_type (type);

        if (m == NULL)
          unknown_type = TRUE;
        else
          {
            g_auto(GStrv) each = g_strsplit (m, "|", -1);

            if (names == NULL)
              names = g_ptr_array_new ();
            for (guint k = 0; each[k] != NULL; k++)
              if (!g_ptr_array_find_with_equal_func (names, each[k], g_str_equal, NULL))
                g_ptr_array_add (names, (gpointer) g_intern_string (each[k]));
          }
      }
    }
  if (have_total && typed > total)
    return sim__trace_table_field_error (&r->table, index, error,
                                         "typed gres/gpu entries add up to %" G_GUINT64_FORMAT
                                         ", more than gres/gpu=%" G_GUINT64_FORMAT, typed, total);
  total = have_total ? total : typed;
  if (total > G_MAXUINT32)
    return sim__trace_table_field_error (&r->table, index, error, "too many GPUs (%"
                                         G_GUINT64_FORMAT ")", total);
  *gpus = (guint32) total;
  *models = NULL;
  if (!unknown_type && names != NULL && names->len > 0)
    {
      g_ptr_array_add (names, NULL);
      {
        g_autofree char *joined = g_strjoinv ("|", (char **) names->pdata);
        *models = g_intern_string (joined);
      }
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Rows.                                                                     */

static gboolean
is_unfinished (const char *state)
{
  static const char *const states[] = {
    "PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING",
  };

  for (guint i = 0; i < G_N_ELEMENTS (states); i++)
    if (g_ascii_strcasecmp (state, states[i]) == 0)
      return TRUE;
  return FALSE;
}

/* An invalid job: skipped and counted, or an error at column @index. */
static gboolean
invalid (SimTraceReader *r, guint index, const char *what, GError **error)
{
  if (!r->config.skip_invalid)
    return sim__trace_table_field_error (&r->table, index, error, "%s: expected a job that "
                                         "finished after a positive run time (or "
                                         "skip_invalid)", what);
  r->skipped++;
  return TRUE;
}

/* The run time of the row in *seconds, or -1 if the job did not finish. */
static gboolean
read_run_time (SimTraceReader *r, gint64 *seconds, guint *index, GError **error)
{
  SimTraceTable *t = &r->table;
  const char *text;
  gint64 start, end;

  if (t->position[C_ELAPSED] >= 0)
    {
      *index = C_ELAPSED;
      text = sim__trace_table_get (t, C_ELAPSED);
      if (!parse_duration (text, seconds))
        {
          g_autofree char *q = sim__trace_quote (text);
          return sim__trace_table_field_error (t, C_ELAPSED, error, "%s is not a duration "
                                               "[D-]HH:MM:SS or MM:SS", q);
        }
      return TRUE;
    }
  *index = C_END;
  for (guint c = C_START; c <= C_END; c++)
    {
      text = sim__trace_table_get (t, c);
      if (g_ascii_strcasecmp (text, "Unknown") == 0 || g_ascii_strcasecmp (text, "None") == 0 ||
          *text == '\0')
        {
          *seconds = -1;
          return TRUE;
        }
      if (!sim__trace_parse_datetime (text, 'T', c == C_START ? &start : &end))
        {
          g_autofree char *q = sim__trace_quote (text);
          return sim__trace_table_field_error (t, c, error, "%s is not a date-time "
                                               "YYYY-MM-DDTHH:MM:SS", q);
        }
    }
  if (end < start)
    return sim__trace_table_field_error (t, C_END, error, "the job ends %" G_GINT64_FORMAT
                                         " s before it starts", start - end);
  *seconds = end - start;
  return TRUE;
}

static gboolean
read_row (SimTraceReader *r, SimJobSpec *out, gint64 *submit_s, GError **error)
{
  SimSlurm *sl = (SimSlurm *) r;
  SimTraceTable *t = &r->table;

  for (;;)
    {
      const char *text, *state, *models = NULL;
      gint64 submit, run = 0, limit = 0;
      guint32 gpus = 0;
      guint tres_index, run_index;

      if (!sim__trace_table_next (t, error))
        return FALSE;
      r->rows++;

      text = sim__trace_table_get (t, C_SUBMIT);
      if (!sim__trace_parse_datetime (text, 'T', &submit))
        {
          g_autofree char *q = sim__trace_quote (text);
          return sim__trace_table_field_error (t, C_SUBMIT, error,
                                               "%s is not a date-time YYYY-MM-DDTHH:MM:SS", q);
        }
      /* Slurm keeps its times as seconds of the Unix epoch: one before it
       * is not a time sacct prints, but a damaged or hand-made row. */
      if (submit < 0)
        {
          g_autofree char *q = sim__trace_quote (text);
          return sim__trace_table_field_error (t, C_SUBMIT, error,
                                               "%s is before 1970-01-01T00:00:00, where Slurm's "
                                               "clock starts", q);
        }

      tres_index = C_ALLOC_TRES;
      text = sim__trace_table_get (t, C_ALLOC_TRES);
      if (text == NULL || *text == '\0')
        {
          const char *req = sim__trace_table_get (t, C_REQ_TRES);
          if (req != NULL)
            {
              tres_index = C_REQ_TRES;
              text = req;
            }
        }
      if (text != NULL && !parse_tres (r, tres_index, text, &gpus, &models, error))
        return FALSE;
      if (gpus == 0)
        {
          r->skipped++;
          continue;
        }

      state = sim__trace_table_get (t, C_STATE);
      if (is_unfinished (state))
        {
          if (!invalid (r, C_STATE, "a job that has not finished", error))
            return FALSE;
          continue;
        }
      if (!read_run_time (r, &run, &run_index, error))
        return FALSE;
      if (run <= 0)
        {
          if (!invalid (r, run_index, run < 0 ? "a job without both a start and an end"
                                              : "a job without run time", error))
            return FALSE;
          continue;
        }
      if (!sim__trace_check_seconds (t, run_index, run, error))
        return FALSE;

      text = sim__trace_table_get (t, C_TIMELIMIT);
      if (text != NULL && *text != '\0' && g_ascii_strcasecmp (text, "UNLIMITED") != 0 &&
          g_ascii_strcasecmp (text, "Partition_Limit") != 0 &&
          !parse_duration (text, &limit))
        {
          g_autofree char *q = sim__trace_quote (text);
          return sim__trace_table_field_error (t, C_TIMELIMIT, error, "%s is not a duration "
                                               "[D-]HH:MM:SS, MM:SS, UNLIMITED or "
                                               "Partition_Limit", q);
        }
      if (!sim__trace_check_seconds (t, C_TIMELIMIT, limit, error))
        return FALSE;

      /* Nanoseconds must fit; the end is checked once the submit time is. */
      if (run > G_MAXINT64 / SIM_SECOND || limit > G_MAXINT64 / SIM_SECOND)
        return sim__trace_table_field_error (t, run > G_MAXINT64 / SIM_SECOND ? run_index
                                                                               : C_TIMELIMIT,
                                             error, "%" G_GINT64_FORMAT " s is more than 292 "
                                             "years", MAX (run, limit));

      out->id = r->rows;
      *submit_s = submit;
      out->duration = run * SIM_SECOND;
      out->requested = limit * SIM_SECOND;
      out->gpus = gpus;
      out->gpu_milli = 1000;
      out->gpu_models = models;
      text = sim__trace_table_get (t, C_USER);
      out->user = *text != '\0' ? (gint32) sim__trace_intern (sl->users, text, NULL) : -1;
      out->tenant = sim__trace_intern (sl->accounts, sim__trace_table_get (t, C_ACCOUNT), NULL);
      out->job_class = 0;
      out->status = sim__trace_slurm_status (state);
      return TRUE;
    }
}

static void
slurm_finalize (SimTraceReader *r)
{
  SimSlurm *sl = (SimSlurm *) r;

  g_clear_pointer (&sl->users, g_hash_table_unref);
  g_clear_pointer (&sl->accounts, g_hash_table_unref);
}

SimWorkload *
sim_workload_new_slurm (const char *path, const SimTraceConfig *config, GError **error)
{
  static const guint required[] = { C_SUBMIT, C_STATE, C_USER, C_ACCOUNT };
  g_autoptr(SimWorkload) workload = NULL;
  SimTraceReader *r;
  SimSlurm *sl;
  const gint *pos;

  g_return_val_if_fail (path != NULL && config != NULL, NULL);

  r = sim__trace_reader_new (sizeof (SimSlurm), "slurm", path, config, '|', FALSE,
                             column_names, N_COLUMNS, error);
  if (r == NULL)
    return NULL;
  workload = (SimWorkload *) r;
  sl = (SimSlurm *) r;
  r->read_row = read_row;
  r->finalize = slurm_finalize;
  sim__trace_reader_set_fields (r, C_SUBMIT, "Submit", r->table.position[C_ELAPSED] >= 0 ? "Elapsed" : "End",
                                "Timelimit");
  sl->users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sl->accounts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_ptr_array_add (workload->class_names, g_strdup ("slurm"));

  if (!sim__trace_table_require (&r->table, required, G_N_ELEMENTS (required), error))
    return NULL;
  pos = r->table.position;
  if (pos[C_ELAPSED] < 0 && (pos[C_START] < 0 || pos[C_END] < 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s:%" G_GUINT64_FORMAT ": the header has "
                   "no column Elapsed, nor both Start and End: expected the run time",
                   r->table.display, r->table.line_no);
      return NULL;
    }
  if (pos[C_ALLOC_TRES] < 0 && pos[C_REQ_TRES] < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s:%" G_GUINT64_FORMAT ": the header has "
                   "no column AllocTRES or ReqTRES: expected the GPUs", r->table.display,
                   r->table.line_no);
      return NULL;
    }
  return g_steal_pointer (&workload);
}
