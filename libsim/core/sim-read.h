/* sim-read.h: reading the files a user names, within bounds (not installed).
 *
 * Every file gpusim reads (catalogue, scenario, traces, weather, prices,
 * failure logs and profiles, plans, results, sweep summaries, transfers)
 * comes from a user, who may name the wrong thing by mistake or on purpose.
 * The readers therefore share these rules, so that no file can make gpusim
 * hang, exhaust memory, overflow its stack or read a value silently cut
 * short:
 *
 * - Regular files only.  A device (/dev/zero, /dev/urandom), a FIFO or a
 *   directory is refused when it is opened, before a byte is read: the
 *   first never ends and the second may never start.
 * - A size limit on files read whole (SIM_READ_MAX_BYTES), checked against
 *   the file's size and again while reading, since a file may grow.
 *   Streams read line by line (traces, weather) hold one line at a time and
 *   need no size limit (see workload/sim-line-reader.h).
 * - A line limit: text read whole has lines of at most SIM_READ_MAX_LINE
 *   bytes, streamed lines at most SIM_LINE_MAX.
 * - No NUL byte: C strings would end at it and drop the rest of the line
 *   without a word (a price file with a NUL once gave $47 instead of
 *   $63,905), so a NUL is refused naming its line.
 * - JSON nested at most SIM_READ_MAX_JSON_DEPTH levels, checked on the text
 *   before it is parsed: json-glib's parser recurses once per level, and
 *   100,000 open brackets overflowed the stack.  gpusim's own JSON files
 *   nest six levels at most.
 *
 * Errors are SIM_ERROR_IO (cannot open or read, not a regular file, too
 * large) or SIM_ERROR_PARSE (a NUL byte, a line too long, JSON too deep),
 * and name the file and, where there is one, the line.
 */
#pragma once

#include <glib.h>
#include <stdio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SIM_READ_MAX_BYTES      (G_GUINT64_CONSTANT (256) << 20)
#define SIM_READ_MAX_LINE       (1u << 20)
#define SIM_READ_MAX_JSON_DEPTH 64

typedef enum {
  SIM_READ_TEXT = 0,         /* lines of at most SIM_READ_MAX_LINE bytes */
  SIM_READ_JSON = 1 << 0,    /* any line length; depth checked */
} SimReadFlags;

/* Opens PATH for reading if it is a regular file; never blocks on a FIFO.
 * Errors: SIM_ERROR_IO naming the path.  Close with fclose(). */
FILE *sim__read_open (const char *path, GError **error);

/* The whole of the regular file PATH, NUL-terminated, checked by the rules
 * above for @flags; its length (without the terminator) in *@length if not
 * NULL.  Free with g_free().  Time complexity: O(size of the file). */
char *sim__read_file (const char *path, SimReadFlags flags, gsize *length, GError **error);

/* Checks that TEXT (LENGTH bytes, or up to its NUL if LENGTH is negative)
 * has no NUL byte and, with SIM_READ_TEXT, no line longer than
 * SIM_READ_MAX_LINE; with SIM_READ_JSON, no array or object nested deeper
 * than SIM_READ_MAX_JSON_DEPTH (strings are skipped, escapes included).
 * ORIGIN names the text in errors.  Time complexity: O(LENGTH). */
gboolean sim__read_check_text (const char *text, gssize length, const char *origin,
                               SimReadFlags flags, GError **error);

/* Parses TEXT with PARSER once sim__read_check_text() has passed it as
 * JSON.  A syntax error is json-glib's own (JSON_PARSER_ERROR), prefixed
 * with "ORIGIN: "; a check that fails is SIM_ERROR_PARSE naming ORIGIN. */
gboolean sim__read_parse_json (JsonParser *parser, const char *text, gssize length,
                               const char *origin, GError **error);

G_END_DECLS
