/* sim-line-reader.h: reading a text file line by line, for trace readers
 * (not installed).
 *
 * The reader holds one line at a time, so memory does not grow with the
 * file.  Files compressed with gzip (trace archives distribute logs that
 * way) are recognised by their magic number and decompressed on the fly
 * with GIO's zlib converter.  Lines are read into a fixed buffer rather
 * than with getline(), so that a file that is not text (no newline for
 * gigabytes) cannot make the reader allocate without bound: a line longer
 * than SIM_LINE_MAX is cut and flagged, and a NUL byte is flagged, for the
 * caller to refuse.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

#define SIM_LINE_MAX 4096

typedef struct _SimLineReader SimLineReader;

struct _SimLineReader {
  char    *display;        /* the path, for messages */
  char     line[SIM_LINE_MAX + 1]; /* the current line, without its end of line */
  gsize    line_len;
  gboolean line_too_long;
  gboolean line_has_nul;
  guint64  line_no;        /* 1-based number of the current line */
  /*< private >*/
  FILE    *fp;
  gpointer gunzip;         /* GConverter, NULL unless gzip-compressed */
  guint8  *in;
  gsize    in_pos, in_len;
  gboolean in_eof;
  guint8  *buf;
  gsize    buf_pos, buf_len;
  gboolean eof;
};

/* Opens PATH, which must be a regular file (sim__read_open()).  Errors:
 * SIM_ERROR_IO naming the path. */
SimLineReader *sim__line_reader_open (const char *path, GError **error);
/* Reads the next line, without its end of line ("\n" or "\r\n") and, for
 * the first line, without a UTF-8 byte-order mark.  Returns FALSE at the
 * end (error unset) or on failure (SIM_ERROR_IO or SIM_ERROR_TRACE for
 * corrupt compressed data). */
gboolean       sim__line_reader_next (SimLineReader *reader, GError **error);
void           sim__line_reader_free (SimLineReader *reader);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimLineReader, sim__line_reader_free)

G_END_DECLS
