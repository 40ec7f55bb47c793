/* sim-trace-util.h: pieces shared by the trace readers (not installed).
 *
 * - A parser of naive calendar date-times, so that a trace's submission
 *   times never depend on the machine's time zone.
 * - A reader of delimited tables with a header line (CSV, sacct's
 *   '|'-separated output): columns are found by name, in any order; rows
 *   are read one at a time from the shared line reader, split in place,
 *   and every field keeps its 1-based character column for messages
 *   ("file:line:column: name: what was expected").
 * - The reorder window every job-log reader passes its rows through, so
 *   that logs not sorted by submission time replay as they are.
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
  gboolean pending;            /* the current row is the next one to return */
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

/* Opens @path, a table without a header line: its first row that is not
 * blank is read and split (its field count becomes the table's), and is
 * returned again by the first sim__trace_table_next().  The caller sets
 * position[] (name index -> field) itself, from the field count or the
 * first row's content (a header line may then be passed over with
 * sim__trace_table_next()).  Errors as sim__trace_table_open(). */
gboolean sim__trace_table_open_headerless (SimTraceTable *table, const char *path,
                                           char separator, gboolean quoted,
                                           const char *const *names, guint n_names,
                                           GError **error);

/* Right after sim__trace_table_open(), for a format whose header may hold
 * no other column: fails with SIM_ERROR_TRACE naming the first column of
 * the header that is none of the table's names.  (@names must end with
 * NULL for the message's list.) */
gboolean sim__trace_table_refuse_unknown (SimTraceTable *table, GError **error);

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

/* Fails with SIM_ERROR_TRACE at the field of column @index (which must be
 * present) unless it is valid UTF-8: for the fields a reader passes on as
 * names (classes, GPU models), which end up in jobs.csv, reports and
 * JSON. */
gboolean sim__trace_table_require_utf8 (const SimTraceTable *table, guint index,
                                        GError **error);

/* Sets a SIM_ERROR_TRACE "file:line: message" and returns FALSE. */
gboolean sim__trace_table_line_error (const SimTraceTable *table, GError **error,
                                      const char *format, ...) G_GNUC_PRINTF (3, 4);

void sim__trace_table_clear (SimTraceTable *table);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SimTraceTable, sim__trace_table_clear)

/* ------------------------------------------------------------------------- */
/* The reorder window.                                                       */

/* Published job logs are not always sorted by submission time (the Philly
 * list of the Pollux artifact is in no particular order; sacct prints jobs
 * by job id, which array jobs and requeues put out of submit order).  The
 * readers therefore pass their rows through a window that releases the
 * earliest row, by (submit time as written, line number), only once it
 * holds more than @capacity rows or the input has ended.  A row displaced
 * by at most @capacity places from its sorted position thus comes out in
 * order, and rows with the same submit time keep the order of the file.
 * A row that arrives after a later row has already been released is
 * refused, naming its line, the line it should have preceded and the key
 * to raise.
 *
 * Rows that arrive in order (no earlier than the last one held in order)
 * join a FIFO ring; the others go to a binary min-heap; the earliest of the
 * ring's head and the heap's top is released.  A sorted log thus costs O(1)
 * per row and touches memory in sequence; a shuffled one O(log n).  Rows
 * are held packed (SimTracePacked, 104 bytes: the fields trace readers
 * set); a row out of order also takes a heap entry and a slot number (28
 * bytes).  Ring and heap grow by doubling up to @capacity + 1 rows each, so
 * the window takes at most (@capacity + 1) x 236 bytes, and a sorted file
 * (@capacity + 1) x 104 bytes (10.4 MB for 100,000 rows); a window of 0
 * reads the file strictly in order.
 *
 * A window of SIM_TRACE_REORDER_SORT sorts the whole trace instead, in
 * bounded memory: rows are read to the end, SIM_TRACE_SORT_RUN_ROWS at a
 * time are sorted in memory and written as a run to an unlinked temporary
 * file (in g_get_tmp_dir(), so nothing is left behind if the process is
 * killed), and the runs are merged as jobs are released, 256 rows of each
 * buffered.  A trace of one run never touches the file.
 *
 * Released rows are rebased (when asked) to the first released row's
 * submit time, converted to nanoseconds, and checked against the end of
 * simulated time: a submit time more than 292 years from its origin, or a
 * run time or requested time that would end past SIM_TIME_NEVER, is
 * refused with the file, line and field. */

/* A parsed row, as a reader fills it.  Of @spec, only the fields of
 * SimTracePacked are kept (submit is set at release). */
typedef struct {
  SimJobSpec spec;
  gint64     submit_s;  /* the row's submit time as written, in seconds */
  guint32    submit_ns; /* and its fraction of a second, 0 to 999,999,999 ns */
  guint64    line;      /* its line in the file */
  guint32    column;    /* the submit field's 1-based column, 0 if unknown */
} SimTraceRow;

/* A row held in the window. */
typedef struct {
  gint64      submit_s;
  guint64     line;
  guint32     submit_ns;
  guint64     id;
  SimTime     duration;
  SimTime     requested;
  const char *gpu_models;
  const char *mig_profile;
  guint64     memory_bytes;
  guint32     gpus, gpu_milli, job_class, tenant;
  gint32      user, status, priority;
  guint32     cpu_milli;
} SimTracePacked;

typedef struct {
  gint64  key;
  guint64 line;
  guint32 slot;
  guint32 key_ns;
} SimTraceHeapEntry;

typedef struct {
  char       *display;          /* the path, for messages */
  const char *submit_name;      /* the fields, for messages */
  const char *duration_name;
  const char *requested_name;
  guint64     capacity;
  gboolean    rebase;
  SimTracePacked *ring;         /* rows that came in order, oldest at ring_head */
  gsize       ring_head, ring_len, ring_cap;
  SimTraceHeapEntry *heap;      /* rows that came out of order ... */
  gsize       n_heap, heap_cap;
  SimTracePacked *pool;         /* ... held in these slots */
  guint32    *free_slots;
  gsize       n_free, n_pool;
  gboolean    have_last;         /* the last row released */
  gint64      last_key;
  guint32     last_ns;
  guint64     last_line;
  gint64      base;              /* seconds subtracted from submit times */
  guint32     base_ns;           /* and nanoseconds */
  gboolean    have_base;
  gboolean    eof;               /* the input has ended */
  guint64     peak;              /* most rows held at once */
  guint64     released_line;     /* the line of the last row released */

  /* Sorting the whole trace (@capacity SIM_TRACE_REORDER_SORT). */
  gboolean    sort;
  gboolean    sorted;            /* the sort pass is done */
  gsize       run_rows;          /* rows sorted in memory at a time */
  int         fd;                /* the unlinked temporary file, or -1 */
  struct _SimTraceRun *runs;     /* sorted runs in the file */
  guint       n_runs;
  guint      *merge;             /* runs by their head row: a min-heap */
  guint       n_merge;
} SimTraceWindow;

/* Rows sorted in memory at a time when a trace is sorted whole: 65,536
 * rows, 6.8 MB. */
#define SIM_TRACE_SORT_RUN_ROWS 65536

/* Sets the rows sorted in memory at a time (tests use small runs). */
void sim__trace_window_set_run_rows (SimTraceWindow *window, gsize rows);

/* Reads the next row into @row (zeroed by the caller); FALSE at the end
 * (error unset) or on failure. */
typedef gboolean (*SimTraceReadRow) (gpointer reader, SimTraceRow *row, GError **error);

void     sim__trace_window_init (SimTraceWindow *window, const char *display, guint64 capacity,
                                 gboolean rebase, const char *submit_name,
                                 const char *duration_name, const char *requested_name);
/* Reads rows with @read until the window holds more than its capacity or
 * the input ends, then releases the earliest into @out.  FALSE at the end
 * (error unset) or on failure. */
gboolean sim__trace_window_next (SimTraceWindow *window, SimTraceReadRow read, gpointer reader,
                                 SimJobSpec *out, GError **error);
void     sim__trace_window_clear (SimTraceWindow *window);

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
  guint32        submit_ns;     /* read_row() may set the fraction of a second of
                                 * @submit_s here (0 before each call) */
  gint           submit_index;  /* the submit column's name index, -1 if unset */
  SimTraceWindow window;
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

/* Sets up the common part of a reader allocated by the caller (zeroed,
 * @config copied in, read_row set) whose table it opens itself (tables
 * without a header): its methods, description and reorder window. */
void sim__trace_reader_init_headerless (SimTraceReader *reader, const char *description,
                                        const char *display);

/* Names the submit (column @submit_index of the table), run time and
 * requested time fields in the messages of the reorder window (@requested
 * may be NULL). */
void sim__trace_reader_set_fields (SimTraceReader *reader, guint submit_index,
                                   const char *submit, const char *duration,
                                   const char *requested);

/* Sets a SIM_ERROR_TRACE "file:line:column: name: ..." saying that @seconds
 * of the field @index cannot be held in nanoseconds (292 years), and
 * returns FALSE; or returns TRUE if they can (0 <= @seconds). */
gboolean sim__trace_check_seconds (const SimTraceTable *table, guint index, gint64 seconds,
                                   GError **error);

/* The number of @name in @names, a table from names to their number + 1,
 * adding it, and if @class_names is not NULL also as a class name, when
 * it is new. */
guint sim__trace_intern (GHashTable *names, const char *name, GPtrArray *class_names);


G_END_DECLS
