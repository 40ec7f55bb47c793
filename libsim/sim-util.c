/* sim-util.c: small helpers shared inside the library. */
#include "config.h"

#include "sim-util.h"
#include "sim-error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

guint
sim__edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);

  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];
      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          guint cost = g_ascii_tolower (a[i - 1]) == g_ascii_tolower (b[j - 1]) ? 0 : 1;
          guint best = MIN (row[j] + 1, row[j - 1] + 1);
          row[j] = MIN (best, diag + cost);
          diag = up;
        }
    }
  return row[lb];
}

const char *
sim__closest (const char *word, const char * const *candidates, gsize n)
{
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  guint limit;

  if (word == NULL || *word == '\0')
    return NULL;
  /* A name the word begins ("H100" for "H100-SXM") is the likeliest meaning;
   * the shortest such name wins, then the first. */
  for (gsize i = 0; i < n; i++)
    if (candidates[i] != NULL && g_ascii_strncasecmp (candidates[i], word, strlen (word)) == 0 &&
        (best == NULL || strlen (candidates[i]) < strlen (best)))
      best = candidates[i];
  if (best != NULL)
    return best;
  limit = MAX (2, (guint) strlen (word) / 3);
  for (gsize i = 0; i < n; i++)
    {
      guint d;
      if (candidates[i] == NULL)
        continue;
      d = sim__edit_distance (word, candidates[i]);
      if (d < best_d)
        {
          best_d = d;
          best = candidates[i];
        }
    }
  return best_d <= limit ? best : NULL;
}

gboolean
sim__write_file_atomic (const char *path, const char *contents, gssize len, GError **error)
{
  g_autoptr(GError) local = NULL;

  if (!g_file_set_contents_full (path, contents, len, G_FILE_SET_CONTENTS_CONSISTENT, 0666,
                                 &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s", path,
                   local->message);
      return FALSE;
    }
  return TRUE;
}

struct _SimKeyLines {
  GHashTable *lines; /* "group" or "group\037key" -> line, as GUINT_TO_POINTER */
};

SimKeyLines *
sim__key_lines_new (const char *text, gssize length)
{
  SimKeyLines *kl = g_new0 (SimKeyLines, 1);
  g_autofree char *copy = length < 0 ? g_strdup (text) : g_strndup (text, (gsize) length);
  g_auto(GStrv) rows = g_strsplit (copy, "\n", -1);
  g_autofree char *group = NULL;

  kl->lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; rows[i] != NULL; i++)
    {
      char *row = g_strstrip (rows[i]);
      char *eq;

      if (*row == '\0' || *row == '#')
        continue;
      if (*row == '[')
        {
          char *close = strrchr (row, ']');
          if (close == NULL)
            continue;
          g_free (group);
          group = g_strndup (row + 1, (gsize) (close - row - 1));
          if (!g_hash_table_contains (kl->lines, group))
            g_hash_table_insert (kl->lines, g_strdup (group), GUINT_TO_POINTER (i + 1));
          continue;
        }
      eq = strchr (row, '=');
      if (eq != NULL && group != NULL)
        {
          g_autofree char *key = g_strstrip (g_strndup (row, (gsize) (eq - row)));
          g_hash_table_replace (kl->lines, g_strdup_printf ("%s\037%s", group, key),
                                GUINT_TO_POINTER (i + 1));
        }
    }
  return kl;
}

void
sim__key_lines_free (SimKeyLines *lines)
{
  if (lines == NULL)
    return;
  g_hash_table_unref (lines->lines);
  g_free (lines);
}

guint
sim__key_lines_find (const SimKeyLines *lines, const char *group, const char *key)
{
  g_autofree char *k = NULL;

  if (lines == NULL || group == NULL)
    return 0;
  if (key == NULL)
    return GPOINTER_TO_UINT (g_hash_table_lookup (lines->lines, group));
  k = g_strdup_printf ("%s\037%s", group, key);
  return GPOINTER_TO_UINT (g_hash_table_lookup (lines->lines, k));
}

struct _SimAtomicFile {
  char *path;
  char *tmp;
  FILE *fp;
};

SimAtomicFile *
sim__atomic_file_new (const char *path, GError **error)
{
  SimAtomicFile *f;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  f = g_new0 (SimAtomicFile, 1);
  f->path = g_strdup (path);
  f->tmp = g_strdup_printf ("%s.tmp-XXXXXX", path);
  fd = g_mkstemp_full (f->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0 || (f->fp = fdopen (fd, "w")) == NULL)
    {
      int saved = errno;
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s", path,
                   g_strerror (saved));
      if (fd >= 0)
        {
          close (fd);
          g_unlink (f->tmp);
        }
      g_clear_pointer (&f->tmp, g_free);
      sim__atomic_file_free (f);
      return NULL;
    }
  return f;
}

FILE *
sim__atomic_file_stream (SimAtomicFile *file)
{
  return file->fp;
}

gboolean
sim__atomic_file_commit (SimAtomicFile *file, GError **error)
{
  int failed;

  g_return_val_if_fail (file != NULL && file->fp != NULL, FALSE);
  failed = ferror (file->fp);
  failed |= fflush (file->fp) != 0;
  failed |= fsync (fileno (file->fp)) != 0 && errno != EINVAL;
  failed |= fclose (file->fp) != 0;
  file->fp = NULL;
  if (failed || g_rename (file->tmp, file->path) != 0)
    {
      int saved = errno;
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s", file->path,
                   g_strerror (saved));
      g_unlink (file->tmp);
      g_clear_pointer (&file->tmp, g_free);
      return FALSE;
    }
  g_clear_pointer (&file->tmp, g_free);
  return TRUE;
}

void
sim__atomic_file_free (SimAtomicFile *file)
{
  if (file == NULL)
    return;
  if (file->fp != NULL)
    fclose (file->fp);
  if (file->tmp != NULL)
    g_unlink (file->tmp);
  g_free (file->tmp);
  g_free (file->path);
  g_free (file);
}
