/* bench-csv: how fast the trace readers' own table reader splits CSV,
 * against libcsv (the maintained RFC 4180 parser from Debian), on the same
 * file: the Philly month when it is found (bench-args.h), else 500,000
 * generated rows of the same shape.  Both read the file from disk and visit
 * every field.  Prints rows per second for each and their ratio; never
 * fails on time.  tests/check-csv holds the two to the same fields.
 *
 *   bench-csv [FILE.csv]
 */
#include "config.h"

#include <csv.h>
#include <glib/gstdio.h>
#include <sim.h>
#include <stdio.h>
#include <string.h>

#include "workload/sim-trace-util.h"

#include "bench-args.h"

#define USAGE \
  "usage: bench-csv [FILE.csv]\n" \
  "  rows per second of gpusim's CSV reader against libcsv on FILE.csv; by default the\n" \
  "  Philly month (philly/philly-2017-10.csv under $GPUSIM_TRACE_DIR, else under\n" \
  "  data/traces in the source tree), else 500,000 generated rows of its shape\n"

typedef struct {
  guint64 fields, rows, bytes;
} Count;

static void
on_field (void *text, size_t len, void *data)
{
  Count *c = data;
  c->fields++;
  c->bytes += len;
}

static void
on_record (int ch, void *data)
{
  ((Count *) data)->rows++;
}

/* libcsv over the file, read in 64 KB blocks. */
static double
time_libcsv (const char *path, Count *c)
{
  struct csv_parser parser;
  char buf[65536];
  FILE *fp = fopen (path, "rb");
  gint64 t0 = g_get_monotonic_time ();
  size_t n;

  memset (c, 0, sizeof *c);
  if (fp == NULL || csv_init (&parser, CSV_APPEND_NULL) != 0)
    return -1;
  while ((n = fread (buf, 1, sizeof buf, fp)) > 0)
    if (csv_parse (&parser, buf, n, on_field, on_record, c) != n)
      break;
  csv_fini (&parser, on_field, on_record, c);
  csv_free (&parser);
  fclose (fp);
  c->rows--;   /* the header */
  return (g_get_monotonic_time () - t0) / 1e6;
}

/* The table reader, as the Philly, Helios and Slurm readers use it. */
static double
time_table (const char *path, Count *c)
{
  static const char *const names[] = { "timestamp", "duration", "num_gpus", "gpu_time",
                                       "cluster" };
  g_auto(SimTraceTable) table = { 0 };
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();

  memset (c, 0, sizeof *c);
  if (!sim__trace_table_open (&table, path, ',', TRUE, names, G_N_ELEMENTS (names), &error))
    {
      fprintf (stderr, "bench-csv: %s\n", error->message);
      return -1;
    }
  while (sim__trace_table_next (&table, &error))
    {
      c->rows++;
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        {
          const char *f = sim__trace_table_get (&table, k);
          c->fields++;
          c->bytes += f != NULL ? strlen (f) : 0;
        }
    }
  if (error != NULL)
    {
      fprintf (stderr, "bench-csv: %s\n", error->message);
      return -1;
    }
  return (g_get_monotonic_time () - t0) / 1e6;
}

int
main (int argc, char **argv)
{
  g_autofree char *path = NULL;
  g_autofree char *generated = NULL;
  Count a, b;
  double ta = G_MAXDOUBLE, tb = G_MAXDOUBLE;

  bench_args (argc, argv, USAGE, NULL, 1);
  if (argc > 1)
    {
      /* A file asked for by name must be there. */
      if (!g_file_test (argv[1], G_FILE_TEST_IS_REGULAR))
        {
          fprintf (stderr, "bench-csv: %s: no such file\n", argv[1]);
          return 1;
        }
      path = g_strdup (argv[1]);
    }
  else
    path = bench_trace_file ("philly", "philly-2017-10.csv", NULL);
  if (path == NULL)
    {
      /* Rows of the Philly list's shape. */
      GString *s = g_string_new ("timestamp,duration,num_gpus,gpu_time,cluster\n");
      g_autofree char *dir = g_dir_make_tmp ("bench-csv-XXXXXX", NULL);
      for (guint i = 0; i < 500000; i++)
        g_string_append_printf (s, "2017-10-%02u %02u:%02u:%02u,%u.0,%u,%u.0,vc%u\n",
                                1 + i % 28, i % 24, i % 60, (i * 7) % 60, 30 + i % 9000,
                                1 << (i % 4), (30 + i % 9000) << (i % 4), i % 14);
      generated = g_build_filename (dir, "rows.csv", NULL);
      g_file_set_contents (generated, s->str, (gssize) s->len, NULL);
      g_string_free (s, TRUE);
      g_free (path);
      path = g_strdup (generated);
    }
  /* The best of five alternating runs of each (the file stays cached). */
  for (guint r = 0; r < 5; r++)
    {
      double x = time_table (path, &a), y = time_libcsv (path, &b);
      if (x < 0 || y < 0)
        return 1;
      ta = MIN (ta, x);
      tb = MIN (tb, y);
    }
  printf ("bench-csv: %s, %" G_GUINT64_FORMAT " rows\n\n", path, a.rows);
  printf ("reader            rows/s      fields    s (best of 5)\n");
  printf ("gpusim table  %10.3g  %10" G_GUINT64_FORMAT "    %.4f\n", a.rows / ta, a.fields, ta);
  printf ("libcsv        %10.3g  %10" G_GUINT64_FORMAT "    %.4f\n", b.rows / tb, b.fields, tb);
  printf ("\nthe table reader is %.2fx libcsv's rate\n", tb / ta);
  if (generated != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (generated);
      g_unlink (generated);
      g_rmdir (dir);
    }
  return 0;
}
