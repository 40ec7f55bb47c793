/* sim-util.h: small helpers shared inside the library (not installed). */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* Levenshtein distance between two ASCII strings, ignoring case. */
guint sim__edit_distance (const char *a, const char *b);

/* The candidate that begins with @word (the shortest), else the one
 * closest by edit distance, or NULL if none is within a third of @word's
 * length (at least 2 edits).  For "did you mean" suggestions. */
const char *sim__closest (const char *word, const char * const *candidates, gsize n);

/* ": did you mean \"GUESS\"?" for an error message, or "" when @guess is
 * NULL (no candidate was close).  The text lives in a buffer of the
 * calling thread until its next call (names are cut at 200 bytes). */
const char *sim__did_you_mean (const char *guess);

/* Writes @contents to @path atomically: a temporary file in the same
 * directory, then a rename.  Errors name the path (SIM_ERROR_IO). */
/* Loads @kf from @text as g_key_file_load_from_data() does, past a UTF-8
 * byte-order mark at its start (which some editors write; it is not part
 * of the first line). */
gboolean sim__key_file_load (GKeyFile *kf, const char *text, gsize len, GError **error);
/* The same from the file @path, read by sim__read_file() (a regular file
 * within its limits, without NUL bytes; its errors). */
gboolean sim__key_file_load_path (GKeyFile *kf, const char *path, GError **error);
/* The 1-based line of @text at which sim__key_file_load() fails, or 0, for
 * messages: GKeyFile's own quote the line without numbering it. */
guint sim__key_file_bad_line (const char *text, gsize len);

gboolean sim__write_file_atomic (const char *path, const char *contents, gssize len,
                                 GError **error);

/* Whether @a and @b name one file: the same device and inode when both
 * exist, else the same canonical path (relative paths from the current
 * directory). */
gboolean sim__same_file (const char *a, const char *b);

/* Refuses an output that would overwrite an input being read: when
 * @output is @input (sim__same_file()), FALSE and @error
 * (SIM_ERROR_INVALID) says "OPTION OUTPUT: it is WHAT: expected another
 * file", @option being how the user named the output ("--report"; NULL for
 * none) and @what the input ("the scenario being read").  A NULL @output
 * or @input passes. */
gboolean sim__check_output (const char *option, const char *output, const char *input,
                            const char *what, GError **error);

/* The same for an output directory @dir, into which the files of @names
 * are written: refuses one of them that is @input, naming it
 * ("-o DIR: DIR/jobs.csv is the scenario's trace being read"). */
gboolean sim__check_output_dir (const char *option, const char *dir,
                                const char * const *names, const char *input,
                                const char *what, GError **error);

/* One CSV field (RFC 4180, by libcsv): quoted, with quotes doubled, when
 * it holds a comma, a quote or a line break; as it is otherwise. */
void sim__csv_append_field (GString *out, const char *s);
void sim__csv_write_field (FILE *fp, const char *s);

/* Sorts @v (@n doubles, none a NaN) in increasing order, in place: the
 * array any correct sort gives (values that compare equal are equal bits,
 * but for -0 and +0, put in that order).  A radix sort on the values' bits
 * for long arrays, in time linear in @n (a heapsort of 7 million completion
 * times took two seconds); it then takes @n more doubles for a while. */
void sim__sort_doubles (double *v, gsize n);

/* Checked arithmetic on times in ns (SimTime, a gint64: about 292 years).
 * A time a user sets (a repair of 15000 weeks, a checkpoint of 4 EB over a
 * slow link, a transfer at 0.1 B/s) can overflow it; the sum or the
 * product then wraps to a time in the past ("due at -9.2e18 ns") or is
 * undefined behaviour.  Each helper stores the result in *@out and returns
 * TRUE, or returns FALSE and leaves *@out alone when the result does not
 * fit, for the caller to refuse naming the key that gave it. */
gboolean sim__time_add_checked (gint64 a, gint64 b, gint64 *out);
gboolean sim__time_mul_checked (gint64 a, gint64 b, gint64 *out);
/* NS rounded to the nearest ns; FALSE for a NaN or a value outside
 * [-2^63, 2^63). */
gboolean sim__time_from_ns_checked (double ns, gint64 *out);

G_END_DECLS

G_BEGIN_DECLS

/* Line numbers of the groups and keys of a GLib key file's text, which
 * GKeyFile itself does not keep; for error messages.  The text is scanned
 * the way GKeyFile reads it (leading white space ignored, `#` starts a
 * comment line, `[name]` opens a group, `key = value`).  A group or a key
 * that appears twice, which GKeyFile would merge silently (the last value
 * winning), is an error naming PATH, the line and the first one. */
typedef struct _SimKeyLines SimKeyLines;
SimKeyLines *sim__key_lines_new (const char *text, gssize length, const char *path,
                                 GError **error);
void         sim__key_lines_free (SimKeyLines *lines);
/* The 1-based line of [group], or of `key =` in it; 0 if not found. */
guint        sim__key_lines_find (const SimKeyLines *lines, const char *group, const char *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimKeyLines, sim__key_lines_free)

G_END_DECLS

G_BEGIN_DECLS

/* A file written in full or not at all: rows go to a temporary file in the
 * target's directory, renamed over the target by commit; abort (or free
 * without commit) removes the temporary file, so an existing target is
 * never left half-written. */
typedef struct _SimAtomicFile SimAtomicFile;
/* Removes every temporary output file open now; async-signal-safe
 * (sim_remove_temporary_files()). */
void           sim__remove_temporary_files (void);
SimAtomicFile *sim__atomic_file_new (const char *path, GError **error);
FILE          *sim__atomic_file_stream (SimAtomicFile *file);
gboolean       sim__atomic_file_commit (SimAtomicFile *file, GError **error);
/* Commits N files together, all or none: every temporary file is flushed
 * and synced first; existing targets get a second (hard-linked) name; then
 * the renames, undone in full if one fails.  On failure no target has
 * changed and every temporary file is gone; the error names the file. */
gboolean       sim__atomic_files_commit (SimAtomicFile * const *files, guint n, GError **error);
void           sim__atomic_file_free (SimAtomicFile *file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimAtomicFile, sim__atomic_file_free)

/* An output directory owned by one run at a time.  The lock is DIR/.gpusim-lock,
 * held with flock() (released by the system when its holder dies, even by
 * kill -9) and holding the holder's pid for the message of a second run,
 * which is refused (SIM_ERROR_IO naming DIR and the pid).  Once it is
 * held, what a killed run left of the outputs NAMES (NAME.tmp-XXXXXX, and
 * the NAME.old-PID-N second names of sim__atomic_files_commit()) is
 * removed: no other run can be writing them.  The lock file is removed by
 * unlock, and by sim_remove_temporary_files() on a signal. */
typedef struct _SimOutputLock SimOutputLock;
SimOutputLock *sim__output_dir_lock (const char *dir, const char * const *names,
                                     GError **error);
void           sim__output_dir_unlock (SimOutputLock *lock);
/* After a run that succeeded: removes the files of NAMES in the locked
 * directory that are not in WRITTEN (an earlier run's topology.dot when
 * this one has no fabric), so that the directory holds one run's outputs.
 * Files of other names are never touched. */
void           sim__output_dir_prune (SimOutputLock *lock, const char * const *names,
                                      const char * const *written);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimOutputLock, sim__output_dir_unlock)

/* Starts the program again with glibc's malloc asking for transparent huge
 * pages, where that helps (see sim-util.c); returns where it does not.
 * _via() starts @path in its place (a test's). */
void sim__prefer_huge_pages (char **argv);
void sim__prefer_huge_pages_via (const char *path, char **argv);

G_END_DECLS
