/* sim-trace-util.h: pieces shared by the trace readers (not installed).
 *
 * - A parser of naive calendar date-times, so that a trace's submission
 *   times never depend on the machine's time zone.
 * - A reader of delimited tables with a header line (CSV, sacct's
 *   '|'-separated output): columns are found by name, in any order; rows
 *   are read one at a time from the shared line reader, split in place,
 *   and every field keeps its 1-based character column for messages
 *   ("file:line:column: name: what was expected").
 * - The common part of the readers of job logs with a header line
 *   (sim-traces.h): limits, rebasing, order, sticky errors.
 * - The mapping of Slurm job states to the status codes of the Standard
 *   Workload Format, shared by the readers of Slurm-derived traces.
 */
#pragma once

#include <glib.h>
#include "workload/sim-line-reader.h"
#include "workload/sim-workload.h"
#include "workload/sim-traces.h"

G_BEGIN_DECLS

/* Seconds since 1970-01-01 00:00:00 of a naive "YYYY-MM-DD?HH:MM:SS", where
 * '?' is @separator (' ' for CSV traces, 'T' for Slurm), by the proleptic
 * Gregorian calendar, as if the time were UTC.  The day must exist in its
 * month (February 29 only in leap years).  Returns FALSE if @text is not
 * exactly that. */
gboolean sim__trace_parse_datetime (const char *text, char separator, gint64 *seconds);

/* @token quoted for a message: valid UTF-8, cut short after 32 characters. */
char *sim__trace_quote (const char *token);

/* The status code of a Slurm job state, as the Standard Workload Format
 * numbers them: 1 for COMPLETED; 0 for a job that ended abnormally
 * (FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE); 5 for
 * CANCELLED, with or without " by <uid>"; -1 for anything else (RUNNING,
 * PENDING, PREEMPTED, REQUEUED, ...).  Case-insensitive. */
gint32 sim__trace_slurm_status (const char *state);

#define SIM_TRACE_MAX_FIELDS 64

/* A table being read.  Fields point into @line, which each row overwrites. */
typedef struct {
  SimLineReader *lines;
  char    *display;            /* the path, for messages */
  char     separator;
  gboolean quoted;             /* fields may be in double quotes, "" inside */
  const char *const *names;    /* the columns the reader looks for */
  guint    n_names;
  gint     position[SIM_TRACE_MAX_FIELDS]; /* name index -> field, -1 if absent */

  char     line[SIM_LINE_MAX + 1]; /* the current row, split in place */
  guint64  line_no;
  guint    n_fields;           /* in the header, hence in every row */
  char    *field[SIM_TRACE_MAX_FIELDS];
  guint    column[SIM_TRACE_MAX_FIELDS]; /* 1-based character column */
} SimTraceTable;

/* Opens @path and reads its header (the first line that is not blank).
 * Header names are compared with @names without regard to ASCII case;
 * names the reader does not look for (and empty names) are ignored.  A UTF-8
 * byte-order mark is skipped.  Errors: SIM_ERROR_IO if the file cannot be
 * read; SIM_ERROR_TRACE for an empty file, a header of more than
 * SIM_TRACE_MAX_FIELDS columns, or a column named twice. */
gboolean sim__trace_table_open (SimTraceTable *table, const char *path, char separator,
                                gboolean quoted, const char *const *names, guint n_names,
                                GError **error);

/* Fails with SIM_ERROR_TRACE naming, in one message, every column of
 * @indices (indices into the table's names) that the header lacks. */
gboolean sim__trace_table_require (SimTraceTable *table, const guint *indices, guint n,
                                   GError **error);

/* Reads and splits the next row that is not blank.  Returns FALSE at the
 * end (error unset) or on failure: SIM_ERROR_TRACE for a NUL byte, a line
 * too long, an unterminated quote, or a field count other than the
 * header's, naming the file and line. */
gboolean sim__trace_table_next (SimTraceTable *table, GError **error);

/* The field of column @index (an index into the table's names) in the
 * current row, with surrounding blanks removed; NULL if the header has no
 * such column. */
const char *sim__trace_table_get (const SimTraceTable *table, guint index);

/* Sets a SIM_ERROR_TRACE "file:line:column: name: message" for the field of
 * column @index (which must be present), and returns FALSE. */
gboolean sim__trace_table_field_error (const SimTraceTable *table, guint index, GError **error,
                                       const char *format, ...) G_GNUC_PRINTF (4, 5);

/* Sets a SIM_ERROR_TRACE "file:line: message" and returns FALSE. */
gboolean sim__trace_table_line_error (const SimTraceTable *table, GError **error,
                                      const char *format, ...) G_GNUC_PRINTF (3, 4);

void sim__trace_table_clear (SimTraceTable *table);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SimTraceTable, sim__trace_table_clear)

/* A reader of a job log: embeds #SimWorkload first.  The format's
 * read_row() reads rows until one gives a job (TRUE, @out filled and its
 * raw submit time in @submit_s, seconds of the log's calendar), counts and
 * passes over skipped rows, and returns FALSE at the end (error unset) or
 * on failure.  The common part applies max_jobs and rebase_time, keeps a
 * failure to return it again, and frees the table. */
typedef struct _SimTraceReader SimTraceReader;
struct _SimTraceReader {
  SimWorkload    parent;
  SimTraceConfig config;
  SimTraceTable  table;
  gboolean     (*read_row) (SimTraceReader *reader, SimJobSpec *out, gint64 *submit_s,
                            GError **error);
  void         (*finalize) (SimTraceReader *reader);
  guint64        count, skipped;
  guint64        rows;          /* data rows read, the job numbers */
  gint64         prev_submit_s; /* of the previous row with a valid time */
  gboolean       have_prev;
  gint64         base;          /* seconds subtracted from submit times */
  gboolean       have_base;
  GError        *failure;
  gboolean       done;
};

/* Allocates @size bytes (a struct that starts with #SimTraceReader),
 * opens the table and sets up the common part.  On failure returns NULL
 * with @error set. */
SimTraceReader *sim__trace_reader_new (gsize size, const char *kind, const char *path,
                                       const SimTraceConfig *config, char separator,
                                       gboolean quoted, const char *const *names,
                                       guint n_names, GError **error);

/* Checks that @submit_s (seconds) does not go back from the previous row's
 * and records it; @hint ends the message.  FALSE with @error naming the
 * line and @index's column otherwise. */
gboolean sim__trace_reader_check_order (SimTraceReader *reader, guint index, gint64 submit_s,
                                        const char *hint, GError **error);

/* The number of @name in @names, a table from names to their number + 1,
 * adding it, and if @class_names is not NULL also as a class name, when
 * it is new. */
guint sim__trace_intern (GHashTable *names, const char *name, GPtrArray *class_names);


G_END_DECLS
