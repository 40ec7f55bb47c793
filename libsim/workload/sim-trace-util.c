/* sim-trace-util.c: date-times, delimited tables and Slurm states for the
 * trace readers. */
#include "config.h"

#include "workload/sim-trace-util.h"
#include "sim-error.h"

#include <string.h>

/* ------------------------------------------------------------------------- */
/* Date-times.                                                               */

/* Reads exactly @n decimal digits at *p and advances past them. */
static gboolean
digits (const char **p, int n, int *out)
{
  int v = 0;

  for (int i = 0; i < n; i++)
    {
      if (!g_ascii_isdigit ((*p)[i]))
        return FALSE;
      v = v * 10 + ((*p)[i] - '0');
    }
  *p += n;
  *out = v;
  return TRUE;
}

static gboolean
expect_char (const char **p, char c)
{
  if (**p != c)
    return FALSE;
  (*p)++;
  return TRUE;
}

/* Days since 1970-01-01 of a civil date: Howard Hinnant's days_from_civil,
 * which counts in 400-year eras starting on March 1 so that the leap day
 * falls at the end of the year. */
static gint64
days_from_civil (gint64 y, int m, int d)
{
  gint64 era, yoe, doy, doe;

  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

gboolean
sim__trace_parse_datetime (const char *text, char separator, gint64 *seconds)
{
  static const int month_days[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  const char *p = text;
  int y, mo, d, h, mi, s;
  gboolean leap;

  g_return_val_if_fail (text != NULL && seconds != NULL, FALSE);

  if (!digits (&p, 4, &y) || !expect_char (&p, '-') || !digits (&p, 2, &mo) ||
      !expect_char (&p, '-') || !digits (&p, 2, &d) || !expect_char (&p, separator) ||
      !digits (&p, 2, &h) || !expect_char (&p, ':') || !digits (&p, 2, &mi) ||
      !expect_char (&p, ':') || !digits (&p, 2, &s) || *p != '\0')
    return FALSE;
  leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  /* A leap second (:60) is read as the first second of the next minute. */
  if (mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] || (mo == 2 && d == 29 && !leap) ||
      h > 23 || mi > 59 || s > 60)
    return FALSE;
  *seconds = days_from_civil (y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
  return TRUE;
}

char *
sim__trace_quote (const char *token)
{
  g_autofree char *valid = g_utf8_make_valid (token, -1);

  if (g_utf8_strlen (valid, -1) > 32)
    {
      g_autofree char *head = g_utf8_substring (valid, 0, 32);
      return g_strdup_printf ("\"%s...\"", head);
    }
  return g_strdup_printf ("\"%s\"", valid);
}

/* ------------------------------------------------------------------------- */
/* Slurm job states.                                                         */

gint32
sim__trace_slurm_status (const char *state)
{
  static const char *const failed[] = {
    "FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
  };
  gsize len;

  g_return_val_if_fail (state != NULL, -1);
  if (g_ascii_strcasecmp (state, "COMPLETED") == 0)
    return 1;
  for (guint i = 0; i < G_N_ELEMENTS (failed); i++)
    if (g_ascii_strcasecmp (state, failed[i]) == 0)
      return 0;
  len = strlen ("CANCELLED");
  if (g_ascii_strncasecmp (state, "CANCELLED", len) == 0 &&
      (state[len] == '\0' || state[len] == ' '))
    return 5;
  return -1;
}

/* ------------------------------------------------------------------------- */
/* Delimited tables.                                                         */

static gboolean G_GNUC_PRINTF (3, 0)
set_line_error (const SimTraceTable *t, GError **error, const char *format, va_list ap)
{
  g_autofree char *msg = g_strdup_vprintf (format, ap);

  g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s:%" G_GUINT64_FORMAT ": %s", t->display,
               t->line_no, msg);
  return FALSE;
}

gboolean
sim__trace_table_line_error (const SimTraceTable *table, GError **error, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  set_line_error (table, error, format, ap);
  va_end (ap);
  return FALSE;
}

gboolean
sim__trace_table_field_error (const SimTraceTable *table, guint index, GError **error,
                              const char *format, ...)
{
  g_autofree char *msg = NULL;
  va_list ap;

  g_return_val_if_fail (index < table->n_names && table->position[index] >= 0, FALSE);
  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s:%" G_GUINT64_FORMAT ":%u: %s: %s",
               table->display, table->line_no, table->column[table->position[index]],
               table->names[index], msg);
  return FALSE;
}

/* Reads the next line into t->line.  FALSE at the end (error unset) or on
 * failure. */
static gboolean
read_line (SimTraceTable *t, GError **error)
{
  SimLineReader *lr = t->lines;

  if (!sim__line_reader_next (lr, error))
    return FALSE;
  t->line_no = lr->line_no;
  memcpy (t->line, lr->line, lr->line_len);
  t->line[lr->line_len] = '\0';
  if (lr->line_has_nul)
    return sim__trace_table_line_error (t, error,
                                        "the line contains a NUL byte: this is not a text file");
  if (lr->line_too_long)
    return sim__trace_table_line_error (t, error, "the line is longer than %d bytes",
                                        SIM_LINE_MAX);
  return TRUE;
}

static gboolean
line_is_blank (const SimTraceTable *t)
{
  for (const char *p = t->line; *p != '\0'; p++)
    if (!g_ascii_isspace (*p))
      return FALSE;
  return TRUE;
}

/* Splits t->line in place into fields and stores their count in *n, which
 * may exceed SIM_TRACE_MAX_FIELDS (only that many are kept).  When
 * t->quoted, a field whose first character other than blanks is '"' is
 * quoted: "" stands for a quote, and the closing quote must be followed,
 * after blanks, by the separator or the end of the line (a quoted field
 * cannot span lines).  Its text is moved left over the opening quote. */
static gboolean
split_line (SimTraceTable *t, guint *n, GError **error)
{
  char *p = t->line;
  guint count = 0;

  for (;;)
    {
      char *start = p, *q = p;

      while (*q == ' ' || *q == '\t')
        q++;
      if (t->quoted && *q == '"')
        {
          char *open = q, *out = q;
          guint col = (guint) (open - t->line) + 1;

          for (q++;; )
            {
              if (*q == '\0')
                return sim__trace_table_line_error (t, error, "the quote opened at column %u "
                                                    "is not closed on this line", col);
              if (*q == '"' && q[1] == '"')
                {
                  *out++ = '"';
                  q += 2;
                }
              else if (*q == '"')
                {
                  q++;
                  break;
                }
              else
                *out++ = *q++;
            }
          while (*q == ' ' || *q == '\t')
            q++;
          if (*q != '\0' && *q != t->separator)
            return sim__trace_table_line_error (t, error, "unexpected text after the quoted "
                                                "field that starts at column %u", col);
          *out = '\0';
          start = open;
        }
      else
        {
          q = strchr (start, t->separator);
          if (q == NULL)
            q = start + strlen (start);
        }
      if (count < SIM_TRACE_MAX_FIELDS)
        {
          t->field[count] = start;
          t->column[count] = (guint) (start - t->line) + 1;
        }
      count++;
      if (*q == '\0')
        break;
      *q = '\0';
      p = q + 1;
    }
  *n = count;
  return TRUE;
}

gboolean
sim__trace_table_open (SimTraceTable *table, const char *path, char separator, gboolean quoted,
                       const char *const *names, guint n_names, GError **error)
{
  SimTraceTable *t = table;
  guint n;

  g_return_val_if_fail (table != NULL && path != NULL && names != NULL, FALSE);
  g_return_val_if_fail (n_names <= SIM_TRACE_MAX_FIELDS, FALSE);

  memset (t, 0, sizeof *t);
  t->display = g_filename_display_name (path);
  t->separator = separator;
  t->quoted = quoted;
  t->names = names;
  t->n_names = n_names;
  for (guint k = 0; k < SIM_TRACE_MAX_FIELDS; k++)
    t->position[k] = -1;
  t->lines = sim__line_reader_open (path, error);
  if (t->lines == NULL)
    return FALSE;
  do
    {
      GError *local = NULL;

      if (!read_line (t, &local))
        {
          if (local != NULL)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
          g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                       "%s: the file is empty: expected a header line", t->display);
          return FALSE;
        }
    }
  while (line_is_blank (t));

  /* A UTF-8 byte-order mark before the first name is not part of it. */
  if (g_str_has_prefix (t->line, "\xEF\xBB\xBF"))
    memmove (t->line, t->line + 3, strlen (t->line + 3) + 1);
  if (!split_line (t, &n, error))
    return FALSE;
  if (n > SIM_TRACE_MAX_FIELDS)
    return sim__trace_table_line_error (t, error, "the header has %u columns: at most %d are "
                                        "read", n, SIM_TRACE_MAX_FIELDS);
  t->n_fields = n;
  for (guint f = 0; f < n; f++)
    {
      const char *name = g_strstrip (t->field[f]);

      for (guint k = 0; k < n_names; k++)
        if (g_ascii_strcasecmp (name, names[k]) == 0)
          {
            if (t->position[k] >= 0)
              return sim__trace_table_line_error (t, error, "column %s appears twice in the "
                                                  "header (columns %d and %u)", names[k],
                                                  t->position[k] + 1, f + 1);
            t->position[k] = (gint) f;
          }
    }
  return TRUE;
}

gboolean
sim__trace_table_require (SimTraceTable *table, const guint *indices, guint n, GError **error)
{
  g_autoptr(GString) missing = g_string_new (NULL);
  guint n_missing = 0;

  for (guint i = 0; i < n; i++)
    if (table->position[indices[i]] < 0)
      {
        g_string_append_printf (missing, "%s%s", n_missing > 0 ? ", " : "",
                                table->names[indices[i]]);
        n_missing++;
      }
  if (n_missing == 0)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s:%" G_GUINT64_FORMAT ": the header has no "
               "column%s %s", table->display, table->line_no, n_missing > 1 ? "s" : "",
               missing->str);
  return FALSE;
}

gboolean
sim__trace_table_next (SimTraceTable *table, GError **error)
{
  guint n;

  do
    if (!read_line (table, error))
      return FALSE;
  while (line_is_blank (table));
  if (!split_line (table, &n, error))
    return FALSE;
  if (n != table->n_fields)
    return sim__trace_table_line_error (table, error, "expected %u fields as in the header, "
                                        "found %u", table->n_fields, n);
  return TRUE;
}

const char *
sim__trace_table_get (const SimTraceTable *table, guint index)
{
  gint pos;

  g_return_val_if_fail (index < table->n_names, NULL);
  pos = table->position[index];
  return pos >= 0 ? g_strstrip (table->field[pos]) : NULL;
}

void
sim__trace_table_clear (SimTraceTable *table)
{
  g_clear_pointer (&table->lines, sim__line_reader_free);
  g_clear_pointer (&table->display, g_free);
}

/* ------------------------------------------------------------------------- */
/* The common part of the readers.                                           */

static gboolean
trace_reader_next (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  SimTraceReader *r = (SimTraceReader *) workload;
  GError *local = NULL;
  gint64 submit_s = 0;
  SimTime room;

  if (r->failure != NULL)
    {
      g_propagate_error (error, g_error_copy (r->failure));
      return FALSE;
    }
  if (r->done || (r->config.max_jobs > 0 && r->count >= r->config.max_jobs))
    {
      r->done = TRUE;
      return FALSE;
    }
  if (!r->read_row (r, out, &submit_s, &local))
    {
      if (local != NULL)
        {
          r->failure = g_error_copy (local);
          g_propagate_error (error, local);
        }
      else
        r->done = TRUE;
      return FALSE;
    }
  if (!r->have_base)
    {
      r->base = r->config.rebase_time ? submit_s : 0;
      r->have_base = TRUE;
    }
  if (submit_s - r->base > G_MAXINT64 / SIM_SECOND || submit_s - r->base < G_MININT64 / SIM_SECOND)
    {
      sim__trace_table_line_error (&r->table, &local, "the submit time is more than 292 years "
                                   "from %s", r->config.rebase_time ? "the first job's"
                                                                    : "1970-01-01");
      r->failure = g_error_copy (local);
      g_propagate_error (error, local);
      return FALSE;
    }
  out->submit = (submit_s - r->base) * SIM_SECOND;
  /* The job must end (and its time limit fall) at a time the engine can
   * schedule, before 2262. */
  room = SIM_TIME_NEVER - MAX (out->submit, 0);
  if (out->duration >= room || out->requested >= room)
    {
      sim__trace_table_line_error (&r->table, &local, "the job's %s ends more than 292 years "
                                   "after %s", out->duration >= room ? "run time" : "time limit",
                                   r->config.rebase_time ? "the first job's submission"
                                                         : "1970-01-01");
      r->failure = g_error_copy (local);
      g_propagate_error (error, local);
      return FALSE;
    }
  r->count++;
  return TRUE;
}

static void
trace_reader_finalize (SimWorkload *workload)
{
  SimTraceReader *r = (SimTraceReader *) workload;

  if (r->finalize != NULL)
    r->finalize (r);
  sim__trace_table_clear (&r->table);
  g_clear_error (&r->failure);
}

static const SimWorkloadVTable trace_reader_vtable = {
  trace_reader_next,
  trace_reader_finalize,
};

SimTraceReader *
sim__trace_reader_new (gsize size, const char *kind, const char *path,
                       const SimTraceConfig *config, char separator, gboolean quoted,
                       const char *const *names, guint n_names, GError **error)
{
  g_autoptr(SimWorkload) workload = NULL;
  g_autofree char *display = NULL;
  g_autofree char *description = NULL;
  SimTraceReader *r;

  g_return_val_if_fail (size >= sizeof (SimTraceReader), NULL);
  g_return_val_if_fail (path != NULL && config != NULL, NULL);

  r = g_malloc0 (size);
  r->config = *config;
  workload = (SimWorkload *) r;
  display = g_filename_display_name (path);
  description = g_strconcat (kind, ":", display, NULL);
  sim__workload_init (workload, &trace_reader_vtable, description);
  if (!sim__trace_table_open (&r->table, path, separator, quoted, names, n_names, error))
    return NULL;
  return (SimTraceReader *) g_steal_pointer (&workload);
}

gboolean
sim__trace_reader_check_order (SimTraceReader *reader, guint index, gint64 submit_s,
                               const char *hint, GError **error)
{
  if (reader->have_prev && submit_s < reader->prev_submit_s)
    return sim__trace_table_field_error (&reader->table, index, error,
                                         "submitted %" G_GINT64_FORMAT " s before the row "
                                         "above: %s", reader->prev_submit_s - submit_s, hint);
  reader->prev_submit_s = submit_s;
  reader->have_prev = TRUE;
  return TRUE;
}

guint
sim__trace_intern (GHashTable *names, const char *name, GPtrArray *class_names)
{
  gpointer value = g_hash_table_lookup (names, name);

  if (value == NULL)
    {
      value = GUINT_TO_POINTER (g_hash_table_size (names) + 1);
      g_hash_table_insert (names, g_strdup (name), value);
      if (class_names != NULL)
        g_ptr_array_add (class_names, g_strdup (name));
    }
  return GPOINTER_TO_UINT (value) - 1;
}

guint64
sim_workload_trace_skipped (const SimWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, 0);
  return workload->vtable == &trace_reader_vtable ? ((const SimTraceReader *) workload)->skipped
                                                  : 0;
}
