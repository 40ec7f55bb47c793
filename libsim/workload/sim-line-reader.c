/* sim-line-reader.c: bounded, gzip-aware line reading for trace readers. */
#include "config.h"

#include "workload/sim-line-reader.h"
#include "core/sim-error.h"
#include "core/sim-read.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#define CHUNK 65536
#define MAX_LINE SIM_LINE_MAX

static gboolean
read_raw (SimLineReader *swf, guint8 *dest, gsize size, gsize *n_read, GError **error)
{
  *n_read = fread (dest, 1, size, swf->fp);
  if (*n_read == 0 && ferror (swf->fp))
    {
      int saved = errno;

      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: read error: %s",
                   swf->display, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* Refills swf->buf; at the end of the data leaves it empty and sets eof. */
static gboolean
fill_buffer (SimLineReader *swf, GError **error)
{
  swf->buf_pos = swf->buf_len = 0;
  if (swf->gunzip == NULL)
    {
      if (!read_raw (swf, swf->buf, CHUNK, &swf->buf_len, error))
        return FALSE;
      swf->eof = swf->buf_len == 0;
      return TRUE;
    }

  for (;;)
    {
      g_autoptr (GError) local = NULL;
      GConverterResult res;
      gsize r = 0, w = 0;

      if (swf->in_pos == swf->in_len && !swf->in_eof)
        {
          swf->in_pos = 0;
          if (!read_raw (swf, swf->in, CHUNK, &swf->in_len, error))
            return FALSE;
          swf->in_eof = swf->in_len == 0;
        }
      res = g_converter_convert (G_CONVERTER (swf->gunzip), swf->in + swf->in_pos, swf->in_len - swf->in_pos,
                                 swf->buf, CHUNK,
                                 swf->in_eof ? G_CONVERTER_INPUT_AT_END : G_CONVERTER_NO_FLAGS,
                                 &r, &w, &local);
      if (res == G_CONVERTER_ERROR)
        {
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT) && !swf->in_eof)
            {
              /* Keep the unconsumed bytes and read more after them. */
              memmove (swf->in, swf->in + swf->in_pos, swf->in_len - swf->in_pos);
              swf->in_len -= swf->in_pos;
              swf->in_pos = 0;
              if (swf->in_len == CHUNK)
                {
                  g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                               "%s: the gzip-compressed data is corrupt", swf->display);
                  return FALSE;
                }
              {
                gsize more = 0;

                if (!read_raw (swf, swf->in + swf->in_len, CHUNK - swf->in_len, &more, error))
                  return FALSE;
                swf->in_eof = more == 0;
                swf->in_len += more;
              }
              continue;
            }
          g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                       "%s: the gzip-compressed data is corrupt or truncated: %s",
                       swf->display, local->message);
          return FALSE;
        }
      swf->in_pos += r;
      if (w > 0)
        {
          swf->buf_len = w;
          return TRUE;
        }
      if (res == G_CONVERTER_FINISHED)
        {
          swf->eof = TRUE;
          return TRUE;
        }
    }
}

/* Reads the next line into swf->line (without its end of line).
 * Returns FALSE at the end of the file (error unset) or on failure. */
gboolean
sim__line_reader_next (SimLineReader *swf, GError **error)
{
  gboolean got_any = FALSE;
  gboolean failed = FALSE;

  swf->line_len = 0;
  swf->line_too_long = FALSE;
  swf->line_has_nul = FALSE;

  for (;;)
    {
      const guint8 *start, *nl;
      gsize chunk, room;

      if (swf->buf_pos == swf->buf_len)
        {
          if (swf->eof)
            break;
          if (!fill_buffer (swf, error))
            {
              failed = TRUE;
              break;
            }
          if (swf->eof)
            break;
        }
      start = swf->buf + swf->buf_pos;
      nl = memchr (start, '\n', swf->buf_len - swf->buf_pos);
      chunk = nl != NULL ? (gsize) (nl - start) : swf->buf_len - swf->buf_pos;
      got_any = TRUE;
      if (memchr (start, '\0', chunk) != NULL)
        swf->line_has_nul = TRUE;
      room = MAX_LINE - swf->line_len;
      if (chunk > room)
        swf->line_too_long = TRUE;
      memcpy (swf->line + swf->line_len, start, MIN (chunk, room));
      swf->line_len += MIN (chunk, room);
      swf->buf_pos += chunk;
      if (nl != NULL)
        {
          swf->buf_pos++;
          break;
        }
    }
  if (failed || !got_any)
    return FALSE;

  swf->line_no++;
  if (swf->line_len > 0 && swf->line[swf->line_len - 1] == '\r')
    swf->line_len--;
  /* A UTF-8 byte-order mark (which editors on Windows write) is not part
   * of the first line: a header would no longer match, and the first
   * field of a log without one would not be a number. */
  if (swf->line_no == 1 && swf->line_len >= 3 && memcmp (swf->line, "\xEF\xBB\xBF", 3) == 0)
    {
      memmove (swf->line, swf->line + 3, swf->line_len - 3);
      swf->line_len -= 3;
    }
  swf->line[swf->line_len] = '\0';
  return TRUE;
}


SimLineReader *
sim__line_reader_open (const char *path, GError **error)
{
  g_autoptr(SimLineReader) r = g_new0 (SimLineReader, 1);

  g_return_val_if_fail (path != NULL, NULL);
  r->display = g_filename_display_name (path);
  /* A regular file only: /dev/zero has no end of line and no end. */
  r->fp = sim__read_open (path, error);
  if (r->fp == NULL)
    return NULL;
  r->buf = g_malloc (CHUNK);
  /* gzip's magic number: 1f 8b.  What was read to look at it becomes the
   * first input of the decompressor, or the first text. */
  if (!read_raw (r, r->buf, CHUNK, &r->buf_len, error))
    return NULL;
  if (r->buf_len >= 2 && r->buf[0] == 0x1f && r->buf[1] == 0x8b)
    {
      r->gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
      r->in = r->buf;
      r->in_len = r->buf_len;
      r->buf = g_malloc (CHUNK);
      r->buf_len = 0;
      if (!fill_buffer (r, error))
        return NULL;
    }
  else
    r->eof = r->buf_len == 0;
  return g_steal_pointer (&r);
}

void
sim__line_reader_free (SimLineReader *reader)
{
  if (reader == NULL)
    return;
  if (reader->fp != NULL)
    fclose (reader->fp);
  g_clear_object (&reader->gunzip);
  g_free (reader->in);
  g_free (reader->buf);
  g_free (reader->display);
  g_free (reader);
}
