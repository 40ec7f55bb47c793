/* sim-trace-util.c: date-times, delimited tables and Slurm states for the
 * trace readers. */
#include "config.h"

#include "workload/sim-trace-util.h"
#include "core/sim-error.h"
#include "workload/sim-workload-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

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

gboolean
sim__trace_table_require_utf8 (const SimTraceTable *table, guint index, GError **error)
{
  const char *text = sim__trace_table_get (table, index);
  const char *bad = NULL;

  if (text == NULL || g_utf8_validate (text, -1, &bad))
    return TRUE;
  return sim__trace_table_field_error (table, index, error, "byte %u is not UTF-8 text: "
                                       "expected a name in UTF-8 (it is written to the "
                                       "outputs; iconv converts a file from another encoding)",
                                       (guint) (bad - text) + 1);
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
      char *start = p, *q = p, *end;

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
          end = out;
        }
      else
        {
          q = strchr (start, t->separator);
          if (q == NULL)
            q = start + strlen (start);
          end = q;
        }
      if (count < SIM_TRACE_MAX_FIELDS)
        {
          /* The field is stripped of blanks here, once, so that
           * sim__trace_table_get() returns it as it is; its column stays
           * where it starts.  Writing the end before q leaves q's separator
           * (or end of line) to be seen below. */
          char *first = start;

          t->column[count] = (guint) (start - t->line) + 1;
          while (first < end && g_ascii_isspace (*first))
            first++;
          while (end > first && g_ascii_isspace (end[-1]))
            end--;
          if (end < q)
            *end = '\0';
          t->field[count] = first;
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

/* Sets @table up on @path and reads and splits its first line that is
 * not blank (a UTF-8 byte-order mark skipped) into *@n fields; an empty
 * file is an error saying it was @expected. */
static gboolean
table_open_first (SimTraceTable *t, const char *path, char separator, gboolean quoted,
                  const char *const *names, guint n_names, const char *expected, guint *n,
                  GError **error)
{
  g_return_val_if_fail (t != NULL && path != NULL && names != NULL, FALSE);
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
          g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s: the file is empty: expected %s",
                       t->display, expected);
          return FALSE;
        }
    }
  while (line_is_blank (t));

  /* A UTF-8 byte-order mark before the first field is not part of it. */
  if (g_str_has_prefix (t->line, "\xEF\xBB\xBF"))
    memmove (t->line, t->line + 3, strlen (t->line + 3) + 1);
  return split_line (t, n, error);
}

gboolean
sim__trace_table_open (SimTraceTable *table, const char *path, char separator, gboolean quoted,
                       const char *const *names, guint n_names, GError **error)
{
  SimTraceTable *t = table;
  guint n;

  if (!table_open_first (t, path, separator, quoted, names, n_names, "a header line", &n, error))
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
sim__trace_table_refuse_unknown (SimTraceTable *t, GError **error)
{
  for (guint f = 0; f < t->n_fields; f++)
    {
      gboolean known = FALSE;
      for (guint k = 0; k < t->n_names && !known; k++)
        known = t->position[k] == (gint) f;
      if (!known)
        {
          g_autoptr(GString) list = g_string_new (NULL);
          g_autofree char *q = sim__trace_quote (g_strstrip (t->field[f]));
          for (guint k = 0; k < t->n_names; k++)
            g_string_append_printf (list, "%s%s", k > 0 ? ", " : "", t->names[k]);
          return sim__trace_table_line_error (t, error, "column %u of the header, %s, is not a "
                                              "known column (expected: %s)", f + 1, q,
                                              list->str);
        }
    }
  return TRUE;
}

gboolean
sim__trace_table_open_headerless (SimTraceTable *table, const char *path, char separator,
                                  gboolean quoted, const char *const *names, guint n_names,
                                  GError **error)
{
  SimTraceTable *t = table;
  guint n;

  if (!table_open_first (t, path, separator, quoted, names, n_names, "rows", &n, error))
    return FALSE;
  if (n > SIM_TRACE_MAX_FIELDS)
    return sim__trace_table_line_error (t, error, "the row has %u fields: at most %d are read",
                                        n, SIM_TRACE_MAX_FIELDS);
  t->n_fields = n;
  t->pending = TRUE;
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

  if (table->pending)
    {
      table->pending = FALSE;
      return TRUE;
    }
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
  return pos >= 0 ? table->field[pos] : NULL;
}

void
sim__trace_table_clear (SimTraceTable *table)
{
  g_clear_pointer (&table->lines, sim__line_reader_free);
  g_clear_pointer (&table->display, g_free);
}

/* ------------------------------------------------------------------------- */
/* The reorder window.                                                       */

/* Rows of each run buffered while runs are merged. */
#define RUN_BUFFER 256

struct _SimTraceRun {
  guint64         offset;   /* first row in the file */
  guint64         count;    /* rows in the run */
  guint64         next;     /* rows of the run read from the file so far */
  SimTracePacked *buf;
  gsize           len, pos; /* rows in buf, and the next to release */
};

void
sim__trace_window_init (SimTraceWindow *window, const char *display, guint64 capacity,
                        gboolean rebase, const char *submit_name, const char *duration_name,
                        const char *requested_name)
{
  SimTraceWindow *w = window;

  memset (w, 0, sizeof *w);
  w->display = g_strdup (display);
  w->sort = capacity == SIM_TRACE_REORDER_SORT;
  w->run_rows = SIM_TRACE_SORT_RUN_ROWS;
  w->fd = -1;
  w->capacity = MIN (capacity, (guint64) SIM_TRACE_WINDOW_ROWS_MAX);
  w->rebase = rebase;
  w->submit_name = submit_name;
  w->duration_name = duration_name;
  w->requested_name = requested_name;
}

void
sim__trace_window_clear (SimTraceWindow *window)
{
  g_clear_pointer (&window->display, g_free);
  g_clear_pointer (&window->ring, g_free);
  g_clear_pointer (&window->heap, g_free);
  g_clear_pointer (&window->pool, g_free);
  g_clear_pointer (&window->free_slots, g_free);
  window->ring_head = window->ring_len = window->ring_cap = 0;
  window->n_heap = window->heap_cap = window->n_free = window->n_pool = 0;
  for (guint i = 0; i < window->n_runs; i++)
    g_free (window->runs[i].buf);
  g_clear_pointer (&window->runs, g_free);
  g_clear_pointer (&window->merge, g_free);
  window->n_runs = window->n_merge = 0;
  if (window->fd >= 0)
    {
      close (window->fd);
      window->fd = -1;
    }
}

void
sim__trace_window_set_run_rows (SimTraceWindow *window, gsize rows)
{
  g_return_if_fail (rows > 0 && !window->sorted);
  window->run_rows = rows;
}

static inline gboolean
heap_less (const SimTraceHeapEntry *a, const SimTraceHeapEntry *b)
{
  return a->key < b->key ||
         (a->key == b->key && (a->key_ns < b->key_ns ||
                               (a->key_ns == b->key_ns && a->line < b->line)));
}

static inline void
pack (SimTracePacked *p, const SimTraceRow *row)
{
  p->submit_s = row->submit_s;
  p->submit_ns = row->submit_ns;
  p->line = row->line;
  p->id = row->spec.id;
  p->duration = row->spec.duration;
  p->requested = row->spec.requested;
  p->gpu_models = row->spec.gpu_models;
  p->mig_profile = row->spec.mig_profile;
  p->memory_bytes = row->spec.memory_bytes;
  p->priority = row->spec.priority;
  p->cpu_milli = row->spec.cpu_milli;
  p->gpus = row->spec.gpus;
  p->gpu_milli = row->spec.gpu_milli;
  p->job_class = row->spec.job_class;
  p->tenant = row->spec.tenant;
  p->user = row->spec.user;
  p->status = row->spec.status;
}

/* Appends to the ring, which grows by doubling (unwrapped when it does). */
static void
ring_push (SimTraceWindow *w, const SimTraceRow *row)
{
  if (w->ring_len == w->ring_cap)
    {
      /* Never more than the window can hold: capacity + 1 rows. */
      gsize cap = (gsize) MIN (MAX (64, w->ring_cap * 2), w->capacity + 1);
      SimTracePacked *ring = g_new (SimTracePacked, cap);
      gsize first = MIN (w->ring_len, w->ring_cap - w->ring_head);

      if (w->ring_len > 0)
        {
          memcpy (ring, w->ring + w->ring_head, first * sizeof *ring);
          memcpy (ring + first, w->ring, (w->ring_len - first) * sizeof *ring);
        }
      g_free (w->ring);
      w->ring = ring;
      w->ring_cap = cap;
      w->ring_head = 0;
    }
  pack (&w->ring[(w->ring_head + w->ring_len) % w->ring_cap], row);
  w->ring_len++;
}

static void
heap_push (SimTraceWindow *w, const SimTraceRow *row)
{
  SimTraceHeapEntry x;
  guint32 slot;
  gsize i;

  if (w->n_free > 0)
    slot = w->free_slots[--w->n_free];
  else
    {
      if (w->n_pool == w->heap_cap)
        {
          w->heap_cap = (gsize) MIN (MAX (64, w->heap_cap * 2), w->capacity + 1);
          w->pool = g_renew (SimTracePacked, w->pool, w->heap_cap);
          w->free_slots = g_renew (guint32, w->free_slots, w->heap_cap);
          w->heap = g_renew (SimTraceHeapEntry, w->heap, w->heap_cap);
        }
      slot = (guint32) w->n_pool++;
    }
  pack (&w->pool[slot], row);
  x.key = row->submit_s;
  x.key_ns = row->submit_ns;
  x.line = row->line;
  x.slot = slot;
  i = w->n_heap++;
  while (i > 0)
    {
      gsize parent = (i - 1) / 2;

      if (!heap_less (&x, &w->heap[parent]))
        break;
      w->heap[i] = w->heap[parent];
      i = parent;
    }
  w->heap[i] = x;
}

/* Adds @row, refusing it if a later row has already been released. */
static gboolean
window_push (SimTraceWindow *w, const SimTraceRow *row, GError **error)
{
  const SimTracePacked *tail;

  if (w->have_last && (row->submit_s < w->last_key ||
                       (row->submit_s == w->last_key && row->submit_ns < w->last_ns)))
    {
      g_autofree char *column = row->column > 0 ? g_strdup_printf (":%u", row->column)
                                                : g_strdup ("");

      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                   "%s:%" G_GUINT64_FORMAT "%s: %s: submitted %" G_GINT64_FORMAT " s before the "
                   "row of line %" G_GUINT64_FORMAT ", which the reorder window (%"
                   G_GUINT64_FORMAT " row%s) had already released: the file is further out of "
                   "order than the window; raise [workload] reorder_window (each row held takes "
                   "about %u bytes), or set it to sort to sort the whole trace through a "
                   "temporary file", w->display, row->line,
                   column, w->submit_name,
                   w->last_key - row->submit_s, w->last_line,
                   w->capacity, w->capacity == 1 ? "" : "s",
                   (guint) (sizeof (SimTracePacked) + sizeof (SimTraceHeapEntry) +
                            sizeof (guint32)));
      return FALSE;
    }
  /* The window keeps only the fields trace readers set. */
  g_warn_if_fail (row->spec.comm.iteration == 0 && row->spec.gpus_min == 0 &&
                  row->spec.activity == 0 && row->spec.memory_bound == 0);
  tail = w->ring_len > 0 ? &w->ring[(w->ring_head + w->ring_len - 1) % w->ring_cap] : NULL;
  /* Lines only grow, so a row no earlier than the ring's tail is later in
   * (submit, line) order and the ring stays sorted. */
  if (tail == NULL || row->submit_s > tail->submit_s ||
      (row->submit_s == tail->submit_s && row->submit_ns >= tail->submit_ns))
    ring_push (w, row);
  else
    heap_push (w, row);
  w->peak = MAX (w->peak, w->ring_len + w->n_heap);
  return TRUE;
}

/* Removes the earliest row of the heap into *out. */
static void
heap_pop (SimTraceWindow *w, SimTracePacked *out)
{
  SimTraceHeapEntry x;
  gsize i = 0, n;

  *out = w->pool[w->heap[0].slot];
  w->free_slots[w->n_free++] = w->heap[0].slot;
  n = --w->n_heap;
  if (n == 0)
    return;
  x = w->heap[n];
  for (;;)
    {
      gsize child = 2 * i + 1;

      if (child >= n)
        break;
      if (child + 1 < n && heap_less (&w->heap[child + 1], &w->heap[child]))
        child++;
      if (!heap_less (&w->heap[child], &x))
        break;
      w->heap[i] = w->heap[child];
      i = child;
    }
  w->heap[i] = x;
}

/* Removes the earliest row into *out: the ring's head or the heap's top.
 * FALSE if the window is empty. */
static gboolean
window_pop (SimTraceWindow *w, SimTracePacked *out)
{
  if (w->ring_len > 0)
    {
      const SimTracePacked *head = &w->ring[w->ring_head];

      if (w->n_heap == 0 || head->submit_s < w->heap[0].key ||
          (head->submit_s == w->heap[0].key &&
           (head->submit_ns < w->heap[0].key_ns ||
            (head->submit_ns == w->heap[0].key_ns && head->line < w->heap[0].line))))
        {
          *out = *head;
          w->ring_head = (w->ring_head + 1) % w->ring_cap;
          w->ring_len--;
          return TRUE;
        }
    }
  if (w->n_heap == 0)
    return FALSE;
  heap_pop (w, out);
  return TRUE;
}

/* Rebases @row's submit time, converts it to nanoseconds and checks that
 * the job ends before the end of simulated time. */
static gboolean
window_release (SimTraceWindow *w, const SimTracePacked *row, SimJobSpec *out,
                GError **error)
{
  gint64 d;
  SimTime submit, room;

  if (!w->have_base)
    {
      w->base = w->rebase ? row->submit_s : 0;
      w->base_ns = w->rebase ? row->submit_ns : 0;
      w->have_base = TRUE;
    }
  d = row->submit_s - w->base;
  if (d >= G_MAXINT64 / SIM_SECOND || d <= G_MININT64 / SIM_SECOND)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                   "%s:%" G_GUINT64_FORMAT ": %s: the submit time is %" G_GINT64_FORMAT " s "
                   "from %s, more than the 292 years that simulated time holds in 64-bit "
                   "nanoseconds (%s)", w->display, row->line, w->submit_name, d,
                   w->rebase ? "the first job's" : "1970-01-01 00:00:00",
                   w->rebase ? "the trace spans too long"
                             : "a date after 2262-04-11; set rebase_time = true to count from "
                               "the first job");
      return FALSE;
    }
  submit = d * SIM_SECOND + (SimTime) row->submit_ns - (SimTime) w->base_ns;
  room = submit < 0 ? SIM_TIME_NEVER : SIM_TIME_NEVER - submit;
  if (row->duration >= room)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                   "%s:%" G_GUINT64_FORMAT ": %s: a run time of %.6g s from a submit time of "
                   "%.6g s would end past the end of simulated time (%.6g s, about 292 "
                   "years): the job could never finish", w->display, row->line,
                   w->duration_name, sim_time_to_seconds (row->duration),
                   sim_time_to_seconds (submit), sim_time_to_seconds (SIM_TIME_NEVER));
      return FALSE;
    }
  if (row->requested >= room)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                   "%s:%" G_GUINT64_FORMAT ": %s: a requested time of %.6g s from a submit "
                   "time of %.6g s would end past the end of simulated time (%.6g s, about "
                   "292 years)", w->display, row->line,
                   w->requested_name != NULL ? w->requested_name : "requested time",
                   sim_time_to_seconds (row->requested), sim_time_to_seconds (submit),
                   sim_time_to_seconds (SIM_TIME_NEVER));
      return FALSE;
    }
  memset (out, 0, sizeof *out);
  out->id = row->id;
  out->submit = submit;
  out->duration = row->duration;
  out->requested = row->requested;
  out->gpu_models = row->gpu_models;
  out->mig_profile = row->mig_profile;
  out->memory_bytes = row->memory_bytes;
  out->priority = row->priority;
  out->cpu_milli = row->cpu_milli;
  out->gpus = row->gpus;
  out->gpu_milli = row->gpu_milli;
  out->job_class = row->job_class;
  out->tenant = row->tenant;
  out->user = row->user;
  out->status = row->status;
  w->have_last = TRUE;
  w->released_line = row->line;
  w->last_key = row->submit_s;
  w->last_ns = row->submit_ns;
  w->last_line = row->line;
  return TRUE;
}

/* ---- Sorting the whole trace through a temporary file ------------------ */

static int
compare_packed (const void *a, const void *b)
{
  const SimTracePacked *x = a, *y = b;

  if (x->submit_s != y->submit_s)
    return x->submit_s < y->submit_s ? -1 : 1;
  if (x->submit_ns != y->submit_ns)
    return x->submit_ns < y->submit_ns ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

static gboolean
sort_io_error (SimTraceWindow *w, const char *what, int saved, GError **error)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: sorting the trace: cannot %s the temporary "
               "file in %s: %s", w->display, what, g_get_tmp_dir (), g_strerror (saved));
  return FALSE;
}

/* Sorts @n rows and appends them to the temporary file as a run. */
static gboolean
write_run (SimTraceWindow *w, SimTracePacked *rows, gsize n, guint64 *offset, GError **error)
{
  const char *p = (const char *) rows;
  gsize left = n * sizeof *rows;
  struct _SimTraceRun *run;

  qsort (rows, n, sizeof *rows, compare_packed);
  if (w->fd < 0)
    {
      g_autofree char *name = NULL;
      GError *local = NULL;

      w->fd = g_file_open_tmp ("gpusim-sort-XXXXXX", &name, &local);
      if (w->fd < 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: sorting the trace: %s", w->display,
                       local->message);
          g_error_free (local);
          return FALSE;
        }
      /* Unlinked at once: the file goes away with the process. */
      g_unlink (name);
    }
  while (left > 0)
    {
      gssize k = write (w->fd, p, left);

      if (k < 0 && errno == EINTR)
        continue;
      if (k < 0)
        return sort_io_error (w, "write", errno, error);
      p += k;
      left -= (gsize) k;
    }
  w->runs = g_renew (struct _SimTraceRun, w->runs, w->n_runs + 1);
  run = &w->runs[w->n_runs++];
  memset (run, 0, sizeof *run);
  run->offset = *offset;
  run->count = n;
  *offset += n;
  return TRUE;
}

/* Reads the next rows of @run into its buffer. */
static gboolean
fill_run (SimTraceWindow *w, struct _SimTraceRun *run, GError **error)
{
  gsize want = (gsize) MIN ((guint64) RUN_BUFFER, run->count - run->next);
  char *p = (char *) run->buf;
  gsize left = want * sizeof (SimTracePacked);
  off_t at = (off_t) ((run->offset + run->next) * sizeof (SimTracePacked));

  while (left > 0)
    {
      gssize k = pread (w->fd, p, left, at);

      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        return sort_io_error (w, "read", k < 0 ? errno : EIO, error);
      p += k;
      at += k;
      left -= (gsize) k;
    }
  run->next += want;
  run->len = want;
  run->pos = 0;
  return TRUE;
}

static inline gboolean
run_less (const SimTraceWindow *w, guint a, guint b)
{
  return compare_packed (&w->runs[a].buf[w->runs[a].pos], &w->runs[b].buf[w->runs[b].pos]) < 0;
}

static void
merge_sift_down (SimTraceWindow *w, gsize i)
{
  guint x = w->merge[i];

  for (;;)
    {
      gsize child = 2 * i + 1;

      if (child >= w->n_merge)
        break;
      if (child + 1 < w->n_merge && run_less (w, w->merge[child + 1], w->merge[child]))
        child++;
      if (!run_less (w, w->merge[child], x))
        break;
      w->merge[i] = w->merge[child];
      i = child;
    }
  w->merge[i] = x;
}

/* Reads the whole trace: in memory if it fits in one run (then the ring
 * holds it, sorted), else as sorted runs in the temporary file. */
static gboolean
sort_trace (SimTraceWindow *w, SimTraceReadRow read, gpointer reader, GError **error)
{
  SimTracePacked *rows = g_new (SimTracePacked, w->run_rows);
  guint64 offset = 0;
  gsize n = 0;
  SimTraceRow row;

  for (;;)
    {
      GError *local = NULL;

      memset (&row, 0, sizeof row);
      if (!read (reader, &row, &local))
        {
          if (local != NULL)
            {
              g_propagate_error (error, local);
              g_free (rows);
              return FALSE;
            }
          break;
        }
      pack (&rows[n++], &row);
      if (n == w->run_rows)
        {
          if (!write_run (w, rows, n, &offset, error))
            {
              g_free (rows);
              return FALSE;
            }
          n = 0;
        }
    }
  w->eof = TRUE;
  if (w->n_runs == 0)
    {
      qsort (rows, n, sizeof *rows, compare_packed);
      w->ring = rows;
      w->ring_cap = w->run_rows;
      w->ring_head = 0;
      w->ring_len = n;
      w->peak = n;
      return TRUE;
    }
  if (n > 0 && !write_run (w, rows, n, &offset, error))
    {
      g_free (rows);
      return FALSE;
    }
  g_free (rows);
  w->peak = w->run_rows;
  w->merge = g_new (guint, w->n_runs);
  for (guint i = 0; i < w->n_runs; i++)
    {
      w->runs[i].buf = g_new (SimTracePacked, RUN_BUFFER);
      if (!fill_run (w, &w->runs[i], error))
        return FALSE;
      w->merge[w->n_merge++] = i;
    }
  for (gsize i = w->n_merge / 2; i-- > 0;)
    merge_sift_down (w, i);
  return TRUE;
}

/* Releases the earliest head of the runs.  FALSE at the end (error unset)
 * or on failure. */
static gboolean
merge_pop (SimTraceWindow *w, SimTracePacked *out, GError **error)
{
  struct _SimTraceRun *run;

  if (w->n_merge == 0)
    return FALSE;
  run = &w->runs[w->merge[0]];
  *out = run->buf[run->pos++];
  if (run->pos == run->len)
    {
      if (run->next < run->count)
        {
          if (!fill_run (w, run, error))
            return FALSE;
        }
      else
        {
          /* The run is spent: its buffer goes, the last run takes its place. */
          g_clear_pointer (&run->buf, g_free);
          w->merge[0] = w->merge[--w->n_merge];
        }
    }
  if (w->n_merge > 1)
    merge_sift_down (w, 0);
  return TRUE;
}

gboolean
sim__trace_window_next (SimTraceWindow *window, SimTraceReadRow read, gpointer reader,
                        SimJobSpec *out, GError **error)
{
  SimTraceWindow *w = window;
  SimTraceRow row;
  SimTracePacked packed;

  if (w->sort)
    {
      GError *local = NULL;

      if (!w->sorted)
        {
          if (!sort_trace (w, read, reader, error))
            return FALSE;
          w->sorted = TRUE;
        }
      if (w->n_runs == 0 ? !window_pop (w, &packed) : !merge_pop (w, &packed, &local))
        {
          if (local != NULL)
            g_propagate_error (error, local);
          return FALSE;
        }
      return window_release (w, &packed, out, error);
    }
  while (!w->eof && w->ring_len + w->n_heap <= w->capacity)
    {
      GError *local = NULL;

      memset (&row, 0, sizeof row);
      if (!read (reader, &row, &local))
        {
          if (local != NULL)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
          w->eof = TRUE;
          break;
        }
      if (!window_push (w, &row, error))
        return FALSE;
    }
  if (!window_pop (w, &packed))
    return FALSE;
  return window_release (w, &packed, out, error);
}

gboolean
sim__trace_check_seconds (const SimTraceTable *table, guint index, gint64 seconds,
                          GError **error)
{
  if (seconds >= 0 && seconds < G_MAXINT64 / SIM_SECOND)
    return TRUE;
  return sim__trace_table_field_error (table, index, error, "%" G_GINT64_FORMAT " s is more "
                                       "than the 292 years that simulated time holds in 64-bit "
                                       "nanoseconds", seconds);
}

/* ------------------------------------------------------------------------- */
/* The common part of the readers.                                           */

static gboolean
trace_reader_read_row (gpointer data, SimTraceRow *row, GError **error)
{
  SimTraceReader *r = data;

  r->submit_ns = 0;
  if (!r->read_row (r, &row->spec, &row->submit_s, error))
    return FALSE;
  row->submit_ns = r->submit_ns;
  row->line = r->table.line_no;
  if (r->submit_index >= 0 && r->table.position[r->submit_index] >= 0)
    row->column = r->table.column[r->table.position[r->submit_index]];
  return TRUE;
}

static gboolean
trace_reader_next (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  SimTraceReader *r = (SimTraceReader *) workload;
  GError *local = NULL;

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
  if (!sim__trace_window_next (&r->window, trace_reader_read_row, r, out, &local))
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
  workload->source_line = r->window.released_line;
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
  sim__trace_window_clear (&r->window);
  g_clear_error (&r->failure);
}

static const SimWorkloadVTable trace_reader_vtable = {
  trace_reader_next,
  trace_reader_finalize,
  sim_workload_trace_skipped,
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
  r->submit_index = -1;
  workload = (SimWorkload *) r;
  display = g_filename_display_name (path);
  description = g_strconcat (kind, ":", display, NULL);
  sim__workload_init (workload, &trace_reader_vtable, description);
  sim__trace_window_init (&r->window, display, config->reorder_window, config->rebase_time,
                          "submit time", "run time", "requested time");
  if (!sim__trace_table_open (&r->table, path, separator, quoted, names, n_names, error))
    return NULL;
  return (SimTraceReader *) g_steal_pointer (&workload);
}

void
sim__trace_reader_init_headerless (SimTraceReader *reader, const char *description,
                                   const char *display)
{
  SimTraceReader *r = reader;

  sim__workload_init ((SimWorkload *) r, &trace_reader_vtable, description);
  sim__trace_window_init (&r->window, display, r->config.reorder_window, r->config.rebase_time,
                          "submit time", "run time", "requested time");
}

void
sim__trace_reader_set_fields (SimTraceReader *reader, guint submit_index, const char *submit,
                              const char *duration, const char *requested)
{
  reader->submit_index = (gint) submit_index;
  reader->window.submit_name = submit;
  reader->window.duration_name = duration;
  reader->window.requested_name = requested;
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
