/* bench-args.h: the command line and the traces every benchmark shares
 * (not installed; each function is used by some benchmarks only).
 *
 * A benchmark asked for --help prints its usage and runs nothing; one given
 * an option it does not know, or more arguments than it takes, says which
 * and exits 2 rather than run something else than was asked.  Traces are
 * looked for under $GPUSIM_TRACE_DIR, then under data/traces in the source
 * tree (where the Philly month ships and `gpusim trace fetch` puts the
 * others), then under SIM_TRACEDIR when the build names one. */
#pragma once

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Handles ARGV: --help or -h anywhere prints USAGE on stdout and exits 0.
 * An argument starting with '-' (other than "-" alone, and other than a
 * number such as "-1") that is not one of FLAGS (NULL-terminated, or NULL
 * for none), or more than MAX_PLAIN arguments that are not options, is
 * named on stderr with USAGE, and the program exits 2. */
G_GNUC_UNUSED static void
bench_args (int argc, char **argv, const char *usage, const char *const *flags, int max_plain)
{
  const char *prog = argc > 0 ? argv[0] : "bench";
  const char *base = strrchr (prog, '/');
  int plain = 0;

  base = base != NULL ? base + 1 : prog;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      {
        fputs (usage, stdout);
        exit (0);
      }
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      gboolean known = FALSE;

      if (a[0] == '-' && a[1] != '\0' && !g_ascii_isdigit (a[1]))
        {
          for (guint k = 0; flags != NULL && flags[k] != NULL && !known; k++)
            known = strcmp (a, flags[k]) == 0;
          if (!known)
            {
              fprintf (stderr, "%s: unknown option %s\n%s", base, a, usage);
              exit (2);
            }
        }
      else if (++plain > max_plain)
        {
          fprintf (stderr, "%s: unexpected argument %s\n%s", base, a, usage);
          exit (2);
        }
    }
}

/* TEXT, the value given to option NAME of program PROG, as a whole number
 * from MIN to MAX (digits only); anything else is named on stderr with
 * what was expected, and the program exits 2. */
G_GNUC_UNUSED static guint64
bench_whole (const char *prog, const char *name, const char *text, guint64 min, guint64 max)
{
  char *end = NULL;
  guint64 v = 0;

  errno = 0;
  if (g_ascii_isdigit (text[0]))
    v = g_ascii_strtoull (text, &end, 10);
  if (end == NULL || *end != '\0' || errno != 0 || v < min || v > max)
    {
      fprintf (stderr, "%s: %s %s: expected a whole number from %" G_GUINT64_FORMAT " to %"
               G_GUINT64_FORMAT "\n", prog, name, text, min, max);
      exit (2);
    }
  return v;
}

/* The same for a number (a decimal fraction allowed) from MIN to MAX. */
G_GNUC_UNUSED static double
bench_number (const char *prog, const char *name, const char *text, double min, double max)
{
  char *end = NULL;
  double v = 0;

  if (g_ascii_isdigit (text[0]) || (text[0] == '.' && g_ascii_isdigit (text[1])))
    v = g_ascii_strtod (text, &end);
  if (end == NULL || *end != '\0' || !(v >= min && v <= max))
    {
      fprintf (stderr, "%s: %s %s: expected a number from %g to %g\n", prog, name, text, min,
               max);
      exit (2);
    }
  return v;
}

/* qsort()'s order of doubles, ascending (medians of the benchmarks' runs). */
G_GNUC_UNUSED static int
bench_compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* The trace SUB/NAME (SUB a folder such as "philly"), from the first of
 * $GPUSIM_TRACE_DIR, SIM_DATA_TRACEDIR and SIM_TRACEDIR that holds it; NULL
 * if none does, with *TRIED (when not NULL) the places looked at, for the
 * message. */
G_GNUC_UNUSED static char *
bench_trace_file (const char *sub, const char *name, char **tried)
{
  const char *dirs[3] = { g_getenv ("GPUSIM_TRACE_DIR"), NULL, NULL };
  g_autoptr(GString) looked = g_string_new (NULL);

#ifdef SIM_DATA_TRACEDIR
  dirs[1] = SIM_DATA_TRACEDIR;
#endif
#ifdef SIM_TRACEDIR
  dirs[2] = SIM_TRACEDIR;
#endif
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = NULL;
      if (dirs[i] == NULL || *dirs[i] == '\0')
        continue;
      path = g_build_filename (dirs[i], sub, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
      g_string_append_printf (looked, "%s%s", looked->len > 0 ? ", " : "", path);
    }
  if (tried != NULL)
    *tried = g_string_free (g_steal_pointer (&looked), FALSE);
  return NULL;
}
