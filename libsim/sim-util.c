/* sim-util.c: small helpers shared inside the library. */
#include "config.h"

#include "sim-util.h"
#include "sim-error.h"

#include <string.h>

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

  if (word == NULL)
    return NULL;
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
