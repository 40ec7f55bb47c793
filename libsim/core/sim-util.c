/* sim-util.c: small helpers shared inside the library. */
#include "config.h"

#include "core/sim-util.h"
#include "core/sim-error.h"
#include "core/sim-read.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
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

const char *
sim__did_you_mean (const char *guess)
{
  static _Thread_local char buf[256];

  if (guess == NULL)
    return "";
  g_snprintf (buf, sizeof buf, ": did you mean \"%.200s\"?", guess);
  return buf;
}

/* A file written whole is renamed over its target, which replaces what
 * was there: a device (`--results-out /dev/null`, run as root, made
 * /dev/null a regular file), a FIFO or a directory is refused instead. */
static gboolean
replaceable (const char *path, GError **error)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0 || S_ISREG (st.st_mode))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: not a regular file (a "
               "device, a pipe or a directory), which writing the file whole and renaming it "
               "into place would replace: expected the path of a file", path);
  return FALSE;
}

gboolean
sim__write_file_atomic (const char *path, const char *contents, gssize len, GError **error)
{
  g_autoptr(GError) local = NULL;

  if (!replaceable (path, error))
    return FALSE;
  if (!g_file_set_contents_full (path, contents, len, G_FILE_SET_CONTENTS_CONSISTENT, 0666,
                                 &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s", path,
                   local->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim__key_file_load (GKeyFile *kf, const char *text, gsize len, GError **error)
{
  g_return_val_if_fail (kf != NULL && text != NULL, FALSE);
  if (len >= 3 && memcmp (text, "\xEF\xBB\xBF", 3) == 0)
    {
      text += 3;
      len -= 3;
    }
  return g_key_file_load_from_data (kf, text, len, G_KEY_FILE_NONE, error);
}

/* GKeyFile reads line by line and stops at the first bad one, so a prefix
 * of whole lines fails exactly when it holds that line: a binary search
 * over prefixes finds it in O(n log n), where n is the length of the text. */
guint
sim__key_file_bad_line (const char *data, gsize length)
{
  g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  guint lo = 1, hi;

  /* As sim__key_file_load() does: a byte-order mark starts no line. */
  if (length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    {
      data += 3;
      length -= 3;
    }

  for (gsize i = 0; i < length; i++)
    if (data[i] == '\n')
      {
        gsize end = i + 1;
        g_array_append_val (ends, end);
      }
  if (length > 0 && data[length - 1] != '\n')
    g_array_append_val (ends, length);
  hi = ends->len;
  if (hi == 0)
    return 0;
  /* Invariant: the first bad line is in [lo, hi]. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      g_autoptr(GKeyFile) kf = g_key_file_new ();
      if (g_key_file_load_from_data (kf, data, g_array_index (ends, gsize, mid - 1),
                                     G_KEY_FILE_NONE, NULL))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gboolean
sim__key_file_load_path (GKeyFile *kf, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;

  g_return_val_if_fail (kf != NULL && path != NULL, FALSE);
  /* The bounded reader (sim-read.h): a FIFO among the language models of
   * a models directory blocked `gpusim llm --list` for ever, and /dev/zero
   * was read until memory ran out. */
  text = sim__read_file (path, SIM_READ_TEXT, &len, error);
  return text != NULL && sim__key_file_load (kf, text, len, error);
}

gboolean
sim__same_file (const char *a, const char *b)
{
  g_autofree char *ca = NULL, *cb = NULL;
  GStatBuf sa, sb;

  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  if (g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  ca = g_canonicalize_filename (a, NULL);
  cb = g_canonicalize_filename (b, NULL);
  return strcmp (ca, cb) == 0;
}

gboolean
sim__check_output (const char *option, const char *output, const char *input,
                   const char *what, GError **error)
{
  if (output == NULL || input == NULL || !sim__same_file (output, input))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s%s%s: it is %s: expected another file",
               option != NULL ? option : "", option != NULL ? " " : "", output, what);
  return FALSE;
}

gboolean
sim__check_output_dir (const char *option, const char *dir, const char * const *names,
                       const char *input, const char *what, GError **error)
{
  if (dir == NULL || input == NULL)
    return TRUE;
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);

      if (sim__same_file (path, input))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s%s%s: %s is %s: expected another "
                       "directory",
                       option != NULL ? option : "", option != NULL ? " " : "", dir, path, what);
          return FALSE;
        }
    }
  return TRUE;
}

struct _SimKeyLines {
  GHashTable *lines; /* "group" or "group\037key" -> line, as GUINT_TO_POINTER */
};

SimKeyLines *
sim__key_lines_new (const char *text, gssize length, const char *path, GError **error)
{
  g_autoptr(SimKeyLines) kl = g_new0 (SimKeyLines, 1);
  g_autofree char *copy = length < 0 ? g_strdup (text) : g_strndup (text, (gsize) length);
  g_auto(GStrv) rows = g_strsplit (copy, "\n", -1);
  g_autofree char *group = NULL;

  kl->lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; rows[i] != NULL; i++)
    {
      char *row = g_strstrip (rows[i]);
      g_autofree char *k = NULL;
      char *eq;
      guint first;

      if (*row == '\0' || *row == '#')
        continue;
      if (*row == '[')
        {
          char *close = strrchr (row, ']');
          if (close == NULL)
            continue;  /* GKeyFile reports the syntax error */
          g_free (group);
          group = g_strndup (row + 1, (gsize) (close - row - 1));
          k = g_strdup (group);
        }
      else if ((eq = strchr (row, '=')) != NULL && group != NULL)
        {
          *eq = '\0';
          k = g_strdup_printf ("%s\037%s", group, g_strstrip (row));
        }
      else
        continue;
      first = GPOINTER_TO_UINT (g_hash_table_lookup (kl->lines, k));
      if (first != 0)
        {
          const char *sep = strchr (k, '\037');
          if (sep == NULL)
            g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                         "%s:%u: [%s]: duplicate section: it first appears at line %u "
                         "(a section appears once; merge the two)", path, i + 1, k, first);
          else
            g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                         "%s:%u: [%s] %s: duplicate key: it is first set at line %u "
                         "(a key is set once per section)", path, i + 1, group, sep + 1, first);
          return NULL;
        }
      g_hash_table_insert (kl->lines, g_steal_pointer (&k), GUINT_TO_POINTER (i + 1));
    }
  return g_steal_pointer (&kl);
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
  int   slot;   /* in the registry of temporary files, or -1 */
};

/* The temporary files the library has open, for
 * sim__remove_temporary_files(), which a signal handler may call: a fixed
 * array of paths that the handler only reads.  A slot is published with
 * an atomic store once its path is complete and cleared before the path
 * is freed.  Past SIM_MAX_TEMPORARY files at once, the rest are not
 * registered (they are still removed on every path but a signal). */
#define SIM_MAX_TEMPORARY 256
static char *temporary[SIM_MAX_TEMPORARY];
G_LOCK_DEFINE_STATIC (temporary);

static int
register_temporary (char *path)
{
  int slot = -1;

  G_LOCK (temporary);
  for (int i = 0; i < SIM_MAX_TEMPORARY; i++)
    if (temporary[i] == NULL)
      {
        g_atomic_pointer_set (&temporary[i], path);
        slot = i;
        break;
      }
  G_UNLOCK (temporary);
  return slot;
}

static void
unregister_temporary (int slot)
{
  if (slot < 0)
    return;
  G_LOCK (temporary);
  g_atomic_pointer_set (&temporary[slot], NULL);
  G_UNLOCK (temporary);
}

void
sim__remove_temporary_files (void)
{
  /* Async-signal-safe: no locks, no allocation; unlink() is safe. */
  for (int i = 0; i < SIM_MAX_TEMPORARY; i++)
    {
      char *path = g_atomic_pointer_get (&temporary[i]);
      if (path != NULL)
        unlink (path);
    }
}

SimAtomicFile *
sim__atomic_file_new (const char *path, GError **error)
{
  SimAtomicFile *f;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  if (!replaceable (path, error))
    return NULL;
  f = g_new0 (SimAtomicFile, 1);
  f->slot = -1;
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
  f->slot = register_temporary (f->tmp);
  return f;
}

FILE *
sim__atomic_file_stream (SimAtomicFile *file)
{
  return file->fp;
}

/* Flushes, syncs and closes FILE's temporary file; 0 or an errno. */
static int
finish_temporary (SimAtomicFile *file)
{
  int failed, saved;

  if (file->fp == NULL)
    return 0;
  errno = 0;
  failed = ferror (file->fp);
  failed |= fflush (file->fp) != 0;
  failed |= fsync (fileno (file->fp)) != 0 && errno != EINVAL;
  saved = errno;
  failed |= fclose (file->fp) != 0;
  if (saved == 0)
    saved = errno;
  file->fp = NULL;
  return failed ? (saved != 0 ? saved : EIO) : 0;
}

/* Removes FILE's temporary file, if any. */
static void
drop_temporary (SimAtomicFile *file)
{
  if (file->fp != NULL)
    {
      fclose (file->fp);
      file->fp = NULL;
    }
  unregister_temporary (file->slot);
  file->slot = -1;
  if (file->tmp != NULL)
    g_unlink (file->tmp);
  g_clear_pointer (&file->tmp, g_free);
}

gboolean
sim__atomic_files_commit (SimAtomicFile * const *files, guint n, GError **error)
{
  g_autofree char **backup = g_new0 (char *, MAX (n, 1));
  guint renamed = 0;
  gboolean ok = TRUE;
  int saved = 0;
  const char *culprit = NULL;

  /* 1. Every temporary file complete and on disk, or nothing changes. */
  for (guint i = 0; i < n && ok; i++)
    {
      g_return_val_if_fail (files[i] != NULL && files[i]->tmp != NULL, FALSE);
      if ((saved = finish_temporary (files[i])) != 0)
        ok = FALSE, culprit = files[i]->path;
    }
  /* 2. A second name for every target that exists, to put it back with. */
  for (guint i = 0; i < n && ok; i++)
    if (g_file_test (files[i]->path, G_FILE_TEST_EXISTS))
      {
        backup[i] = g_strdup_printf ("%s.old-%d-%u", files[i]->path, (int) getpid (), i);
        if (link (files[i]->path, backup[i]) != 0)
          {
            saved = errno;
            ok = FALSE, culprit = files[i]->path;
            g_clear_pointer (&backup[i], g_free);
          }
      }
  /* 3. The renames; if one fails, the earlier ones are undone. */
  for (; renamed < n && ok; renamed++)
    if (g_rename (files[renamed]->tmp, files[renamed]->path) != 0)
      {
        saved = errno;
        ok = FALSE, culprit = files[renamed]->path;
        break;
      }
    else
      {
        unregister_temporary (files[renamed]->slot);
        files[renamed]->slot = -1;
        g_clear_pointer (&files[renamed]->tmp, g_free);
      }
  if (!ok)
    for (guint j = 0; j < renamed; j++)
      {
        if (backup[j] != NULL)
          g_rename (backup[j], files[j]->path);
        else
          g_unlink (files[j]->path);
        g_clear_pointer (&backup[j], g_free);
      }
  for (guint i = 0; i < n; i++)
    {
      if (backup[i] != NULL)
        g_unlink (backup[i]);
      g_free (backup[i]);
      if (!ok)
        drop_temporary (files[i]);
    }
  if (!ok)
    g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s (no output was changed)",
                 culprit, g_strerror (saved));
  return ok;
}

gboolean
sim__atomic_file_commit (SimAtomicFile *file, GError **error)
{
  g_return_val_if_fail (file != NULL, FALSE);
  return sim__atomic_files_commit (&file, 1, error);
}

void
sim__atomic_file_free (SimAtomicFile *file)
{
  if (file == NULL)
    return;
  drop_temporary (file);
  g_free (file->path);
  g_free (file);
}

/* RFC 4180 fields through libcsv: a field is quoted (its quotes doubled)
 * only when it holds a comma, a quote or a line break, so plain fields
 * stay as they are. */
static gboolean
csv_needs_quotes (const char *s)
{
  return strpbrk (s, ",\"\r\n") != NULL;
}

void
sim__csv_append_field (GString *out, const char *s)
{
  size_t len, need;
  gsize at;

  if (!csv_needs_quotes (s))
    {
      g_string_append (out, s);
      return;
    }
  len = strlen (s);
  need = csv_write (NULL, 0, s, len);
  at = out->len;
  g_string_set_size (out, at + need);
  csv_write (out->str + at, need, s, len);
}

void
sim__csv_write_field (FILE *fp, const char *s)
{
  if (csv_needs_quotes (s))
    csv_fwrite (fp, s, strlen (s));
  else
    fputs (s, fp);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* An order-preserving map of a double's bits to an unsigned integer:
 * negative values have every bit flipped (larger magnitudes come first),
 * others the sign bit set.  -0 maps just below +0. */
static inline guint64
double_key (guint64 bits)
{
  return (bits >> 63) ? ~bits : bits | (G_GUINT64_CONSTANT (1) << 63);
}

static inline guint64
key_double (guint64 key)
{
  return (key >> 63) ? key & ~(G_GUINT64_CONSTANT (1) << 63) : ~key;
}

void
sim__sort_doubles (double *v, gsize n)
{
  enum { DIGIT = 16, N_DIGITS = 64 / DIGIT, N_BUCKETS = 1 << DIGIT };
  g_autofree gsize *count = NULL;
  g_autofree guint64 *tmp = NULL;
  guint64 *src, *dst;

  g_return_if_fail (v != NULL || n == 0);
  if (n < 4096)
    {
      qsort (v, n, sizeof (double), compare_doubles);
      return;
    }
  G_STATIC_ASSERT (sizeof (double) == sizeof (guint64));
  src = (guint64 *) (void *) v;
  /* The keys in place, with every digit's histogram counted in one pass. */
  count = g_new0 (gsize, (gsize) N_DIGITS * N_BUCKETS);
  for (gsize i = 0; i < n; i++)
    {
      guint64 bits;
      memcpy (&bits, &v[i], sizeof bits);
      src[i] = double_key (bits);
      for (guint d = 0; d < N_DIGITS; d++)
        count[(gsize) d * N_BUCKETS + ((src[i] >> (d * DIGIT)) & (N_BUCKETS - 1))]++;
    }
  tmp = g_new (guint64, n);
  dst = tmp;
  /* Least significant digit first; a digit all keys share is skipped. */
  for (guint d = 0; d < N_DIGITS; d++)
    {
      gsize *c = &count[(gsize) d * N_BUCKETS];
      gsize sum = 0;
      guint64 *swap;

      if (c[(src[0] >> (d * DIGIT)) & (N_BUCKETS - 1)] == n)
        continue;
      for (guint b = 0; b < N_BUCKETS; b++)
        {
          gsize k = c[b];
          c[b] = sum;
          sum += k;
        }
      for (gsize i = 0; i < n; i++)
        dst[c[(src[i] >> (d * DIGIT)) & (N_BUCKETS - 1)]++] = src[i];
      swap = src;
      src = dst;
      dst = swap;
    }
  for (gsize i = 0; i < n; i++)
    {
      guint64 bits = key_double (src[i]);
      memcpy (&v[i], &bits, sizeof bits);
    }
}

gboolean
sim__time_add_checked (gint64 a, gint64 b, gint64 *out)
{
  gint64 r;

  if (__builtin_add_overflow (a, b, &r))
    return FALSE;
  *out = r;
  return TRUE;
}

gboolean
sim__time_mul_checked (gint64 a, gint64 b, gint64 *out)
{
  gint64 r;

  if (__builtin_mul_overflow (a, b, &r))
    return FALSE;
  *out = r;
  return TRUE;
}

gboolean
sim__time_from_ns_checked (double ns, gint64 *out)
{
  double r = nearbyint (ns);

  /* 2^63 itself is out of range; -2^63 is in it.  A NaN fails both. */
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
    return FALSE;
  *out = (gint64) r;
  return TRUE;
}

struct _SimOutputLock {
  char *dir;
  char *path;
  int   fd;
  int   slot;
};

SimOutputLock *
sim__output_dir_lock (const char *dir, const char * const *names, GError **error)
{
  SimOutputLock *lock;
  g_autoptr(GDir) d = NULL;
  const char *entry;
  char pid[32];

  g_return_val_if_fail (dir != NULL, NULL);
  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot create directory %s: %s", dir,
                   g_strerror (saved));
      return NULL;
    }
  lock = g_new0 (SimOutputLock, 1);
  lock->slot = -1;
  lock->dir = g_strdup (dir);
  lock->path = g_build_filename (dir, ".gpusim-lock", NULL);
  /* A holder that finishes removes the file: a lock taken on the file it
   * removed is no lock, so it is taken again on the file now there. */
  for (guint tries = 0;; tries++)
    {
      GStatBuf now, held;

      lock->fd = g_open (lock->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
      if (lock->fd < 0 || flock (lock->fd, LOCK_EX | LOCK_NB) != 0 || tries == 8 ||
          (fstat (lock->fd, &held) == 0 && g_stat (lock->path, &now) == 0 &&
           held.st_ino == now.st_ino && held.st_dev == now.st_dev))
        break;
      close (lock->fd);
    }
  if (lock->fd < 0 || flock (lock->fd, LOCK_EX | LOCK_NB) != 0)
    {
      int saved = errno;
      ssize_t n = lock->fd >= 0 ? pread (lock->fd, pid, sizeof pid - 1, 0) : -1;

      pid[MAX (n, 0)] = '\0';
      g_strstrip (pid);
      if (lock->fd >= 0 && (saved == EWOULDBLOCK || saved == EAGAIN))
        g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: in use by another gpusim run "
                     "(process %s, which holds %s): expected an output directory of its own "
                     "for each run at once", dir, *pid ? pid : "unknown", lock->path);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot lock %s: %s", lock->path,
                     g_strerror (saved));
      if (lock->fd >= 0)
        close (lock->fd);
      lock->fd = -1;
      g_clear_pointer (&lock->path, g_free);
      sim__output_dir_unlock (lock);
      return NULL;
    }
  g_snprintf (pid, sizeof pid, "%d\n", (int) getpid ());
  /* The pid is for messages only: the lock holds without it. */
  if (ftruncate (lock->fd, 0) == 0)
    (void) !pwrite (lock->fd, pid, strlen (pid), 0);
  lock->slot = register_temporary (lock->path);

  /* What a killed run left: only the temporary names of our outputs. */
  d = g_dir_open (dir, 0, NULL);
  while (d != NULL && names != NULL && (entry = g_dir_read_name (d)) != NULL)
    for (guint i = 0; names[i] != NULL; i++)
      {
        gsize len = strlen (names[i]);

        if (strncmp (entry, names[i], len) == 0 &&
            (g_str_has_prefix (entry + len, ".tmp-") || g_str_has_prefix (entry + len, ".old-")))
          {
            g_autofree char *stale = g_build_filename (dir, entry, NULL);
            g_unlink (stale);
            break;
          }
      }
  return lock;
}

void
sim__output_dir_prune (SimOutputLock *lock, const char * const *names,
                       const char * const *written)
{
  g_return_if_fail (lock != NULL && lock->fd >= 0);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    if (written == NULL || !g_strv_contains (written, names[i]))
      {
        g_autofree char *path = g_build_filename (lock->dir, names[i], NULL);
        g_unlink (path);
      }
}

void
sim__output_dir_unlock (SimOutputLock *lock)
{
  if (lock == NULL)
    return;
  unregister_temporary (lock->slot);
  if (lock->path != NULL)
    g_unlink (lock->path);
  if (lock->fd >= 0)
    close (lock->fd);   /* releases the flock() */
  g_free (lock->path);
  g_free (lock->dir);
  g_free (lock);
}

/* Where the kernel gives transparent huge pages only to the memory that
 * asks for them (its "madvise" mode, Debian's default), glibc's malloc
 * asks for them when its tunable glibc.malloc.hugetlb is 1, and tunables
 * are read only when a program starts: so the program starts again, at
 * once, with it set.  At a hundred thousand GPUs a run's few hundred MB
 * are read all over, and 2 MB pages spare most of the address
 * translations' misses.  Not where GLIBC_TUNABLES is set already (the
 * second start among them), GPUSIM_HUGE_PAGES is 0, the kernel gives huge
 * pages to all memory or to none, or the program runs under valgrind,
 * whose own program /proc/self/exe would name. */
void
sim__prefer_huge_pages_via (const char *path, char **argv)
{
  g_autofree char *mode = NULL;
  const char *opt = g_getenv ("GPUSIM_HUGE_PAGES");
  const char *preload = g_getenv ("LD_PRELOAD");

  if (path == NULL || argv == NULL || argv[0] == NULL || g_getenv ("GLIBC_TUNABLES") != NULL
      || (opt != NULL && strcmp (opt, "0") == 0)
      || (preload != NULL && strstr (preload, "vgpreload") != NULL))
    return;
  if (!g_file_get_contents ("/sys/kernel/mm/transparent_hugepage/enabled", &mode, NULL, NULL)
      || strstr (mode, "[madvise]") == NULL)
    return;
  if (!g_setenv ("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", TRUE))
    return;
  execv (path, argv);
  /* (Not started again: on as before.) */
  g_unsetenv ("GLIBC_TUNABLES");
}

void
sim__prefer_huge_pages (char **argv)
{
  sim__prefer_huge_pages_via ("/proc/self/exe", argv);
}
