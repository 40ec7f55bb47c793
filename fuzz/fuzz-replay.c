/* fuzz-replay.c: passes every file of the fuzzing corpora through its
 * harness, with the normal compiler (and the sanitizers when configured
 * with --enable-sanitizers), so that `make check` keeps what fuzzing found
 * fixed without clang.
 *
 *   fuzz-replay [CORPUS-ROOT [TARGET...]]
 *
 * CORPUS-ROOT (default: tests/fuzz of the source tree) holds one folder per
 * target (tests/fuzz/swf, ...): seed inputs and the reproducers of crashes
 * found and fixed.  Files whose name begins with '.' and README files are
 * not inputs.  A crash, sanitizer report or GLib critical ends the program
 * abnormally, after the name of the file that caused it; an input named
 * invalid-* that no pass of its harness refuses fails it after the whole
 * corpus; an empty or
 * missing corpus is a failure too, so that the test cannot pass by finding
 * nothing.  What a harness checks is described in fuzz.h.
 */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Replays the corpus of @target; returns the number of files, or -1.
 * Adds to *@mismatched the inputs named invalid-* that were accepted. */
static int
replay (const char *root, const FuzzTarget *target, int *mismatched)
{
  g_autofree char *dir = g_build_filename (root, target->name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) d = g_dir_open (dir, 0, &error);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (d == NULL)
    {
      fprintf (stderr, "fuzz-replay: %s: %s\n", target->name, error->message);
      return -1;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] != '.' && !g_str_has_prefix (name, "README"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
      g_autofree char *data = NULL;
      gsize len = 0;

      if (!g_file_get_contents (path, &data, &len, &error))
        {
          fprintf (stderr, "fuzz-replay: %s\n", error->message);
          return -1;
        }
      /* Said before, so that a crash is blamed on the right file. */
      const char *name = g_ptr_array_index (names, i);
      guint refusals;

      fprintf (stderr, "%s/%s\n", target->name, name);
      fuzz_take_refusals ();
      target->func ((const uint8_t *) data, len);
      refusals = fuzz_take_refusals ();
      /* An input named invalid must be refused.  (One named valid may
       * still be refused by a harness's strict pass, which runs it without
       * skipping rows or with no throughput for its job types: not
       * checked.) */
      if (g_str_has_prefix (name, "invalid-") && refusals == 0)
        {
          fprintf (stderr, "fuzz-replay: %s/%s: an invalid input was accepted\n", target->name,
                   name);
          *mismatched += 1;
        }
    }
  return (int) names->len;
}

int
main (int argc, char **argv)
{
  const char *root = argc > 1 ? argv[1] : SIM_FUZZ_CORPORA;
  int failed = 0, files = 0, mismatched = 0;

  fuzz_init ();
  for (const FuzzTarget *t = fuzz_targets; t->name != NULL; t++)
    {
      int n;
      gboolean wanted = argc <= 2;

      for (int i = 2; i < argc; i++)
        wanted |= strcmp (argv[i], t->name) == 0;
      if (!wanted)
        continue;
      n = replay (root, t, &mismatched);
      if (n <= 0)
        {
          fprintf (stderr, "fuzz-replay: %s: %s\n", t->name,
                   n == 0 ? "empty corpus" : "cannot be replayed");
          failed++;
          continue;
        }
      printf ("%-12s %4d inputs replayed\n", t->name, n);
      files += n;
    }
  printf ("fuzz-replay: %d inputs, %d targets failed, %d invalid inputs accepted\n",
          files, failed, mismatched);
  return failed == 0 && mismatched == 0 ? 0 : 1;
}
