/* sim-read.c: bounded reading of the files a user names. */
#include "config.h"

#include "core/sim-read.h"
#include "core/sim-error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

FILE *
sim__read_open (const char *path, GError **error)
{
  g_autofree char *display = NULL;
  struct stat st;
  FILE *fp;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  display = g_filename_display_name (path);
  /* O_NONBLOCK so that opening a FIFO with no writer returns at once, to
   * be refused below; it changes nothing for a regular file. */
  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: cannot open: %s", display,
                   g_strerror (saved));
      return NULL;
    }
  if (fstat (fd, &st) != 0)
    {
      int saved = errno;

      close (fd);
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: cannot open: %s", display,
                   g_strerror (saved));
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: not a regular file (%s): expected a "
                   "file to read", display,
                   S_ISDIR (st.st_mode) ? "a directory" :
                   S_ISFIFO (st.st_mode) ? "a pipe" :
                   S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode) ? "a device" : "a socket");
      return NULL;
    }
  fp = fdopen (fd, "rb");
  if (fp == NULL)
    {
      int saved = errno;

      close (fd);
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: cannot open: %s", display,
                   g_strerror (saved));
    }
  return fp;
}

static gboolean
too_large (const char *display, guint64 size, GError **error)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: %" G_GUINT64_FORMAT " bytes or more: "
               "expected at most %" G_GUINT64_FORMAT " MiB for a file read whole", display,
               size, SIM_READ_MAX_BYTES >> 20);
  return FALSE;
}

char *
sim__read_file (const char *path, SimReadFlags flags, gsize *length, GError **error)
{
  g_autofree char *display = NULL;
  g_autofree char *text = NULL;
  struct stat st;
  gsize size, len = 0;
  FILE *fp;

  g_return_val_if_fail (path != NULL, NULL);
  fp = sim__read_open (path, error);
  if (fp == NULL)
    return NULL;
  display = g_filename_display_name (path);
  if (fstat (fileno (fp), &st) != 0 || st.st_size < 0)
    st.st_size = 0;
  if ((guint64) st.st_size > SIM_READ_MAX_BYTES)
    {
      fclose (fp);
      too_large (display, (guint64) st.st_size, error);
      return NULL;
    }
  /* The size is a hint: the file may have changed since.  One byte more
   * than the limit is room to notice a file that grew past it. */
  size = (gsize) st.st_size + 1;
  text = g_malloc (size + 1);
  for (;;)
    {
      gsize n = fread (text + len, 1, size - len, fp);

      len += n;
      if (len > SIM_READ_MAX_BYTES)
        {
          fclose (fp);
          too_large (display, len, error);
          return NULL;
        }
      if (n == 0)
        break;
      if (len == size)
        {
          size = MIN (size * 2, (gsize) SIM_READ_MAX_BYTES + 1);
          text = g_realloc (text, size + 1);
        }
    }
  if (ferror (fp))
    {
      int saved = errno;

      fclose (fp);
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: read error: %s", display,
                   g_strerror (saved));
      return NULL;
    }
  fclose (fp);
  text[len] = '\0';
  if (!sim__read_check_text (text, (gssize) len, display, flags, error))
    return NULL;
  if (length != NULL)
    *length = len;
  return g_steal_pointer (&text);
}

static guint
line_of (const char *text, const char *at)
{
  guint line = 1;

  for (const char *p = text; p < at; p++)
    line += *p == '\n';
  return line;
}

gboolean
sim__read_check_text (const char *text, gssize length, const char *origin,
                      SimReadFlags flags, GError **error)
{
  gsize len = length < 0 ? strlen (text) : (gsize) length;
  const char *end = text + len;
  const char *nul = memchr (text, '\0', len);
  guint depth = 0, line = 1;
  gboolean in_string = FALSE;

  g_return_val_if_fail (text != NULL, FALSE);
  if (nul != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: the line contains a NUL byte: "
                   "expected text", origin, line_of (text, nul));
      return FALSE;
    }
  if (!(flags & SIM_READ_JSON))
    {
      for (const char *p = text; p < end;)
        {
          const char *nl = memchr (p, '\n', (gsize) (end - p));
          gsize n = (nl != NULL ? nl : end) - p;

          if (n > SIM_READ_MAX_LINE)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: the line is longer than "
                           "%u bytes: expected a text file", origin, line, SIM_READ_MAX_LINE);
              return FALSE;
            }
          if (nl == NULL)
            break;
          p = nl + 1;
          line++;
        }
      return TRUE;
    }

  /* Brackets inside strings do not nest; a backslash in a string escapes
   * the next byte (which is all that matters here: \" does not end it). */
  for (const char *p = text; p < end; p++)
    {
      if (*p == '\n')
        line++;
      if (in_string)
        {
          if (*p == '\\' && p + 1 < end)
            p++;
          else if (*p == '"')
            in_string = FALSE;
        }
      else if (*p == '"')
        in_string = TRUE;
      else if (*p == '[' || *p == '{')
        {
          if (++depth > SIM_READ_MAX_JSON_DEPTH)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: JSON nested deeper "
                           "than %d levels: expected a file written by gpusim", origin, line,
                           SIM_READ_MAX_JSON_DEPTH);
              return FALSE;
            }
        }
      else if ((*p == ']' || *p == '}') && depth > 0)
        depth--;
    }
  return TRUE;
}

gboolean
sim__read_parse_json (JsonParser *parser, const char *text, gssize length, const char *origin,
                      GError **error)
{
  g_return_val_if_fail (JSON_IS_PARSER (parser), FALSE);
  if (!sim__read_check_text (text, length, origin, SIM_READ_JSON, error))
    return FALSE;
  if (!json_parser_load_from_data (parser, text, length, error))
    {
      g_prefix_error (error, "%s: ", origin);
      return FALSE;
    }
  return TRUE;
}
