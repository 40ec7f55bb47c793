/* check-csv.c: the trace readers' table reader against libcsv.
 *
 * The trace readers split CSV (and sacct's '|'-separated output) with a
 * reader of their own (SimTraceTable in workload/sim-trace-util.c),
 * because it parses several times faster than a general library
 * (bench/bench-csv prints both rates).  This suite holds it to libcsv, the
 * maintained RFC 4180 parser from Debian: every file is read by both, and
 * every row must have the same number of fields with the same text
 * (surrounding blanks aside, which the table trims).
 *
 * What it checks: every table-shaped trace excerpt in tests/data; a file
 * written to exercise RFC 4180 (quoted separators, doubled quotes, line
 * breaks as CRLF, a byte-order mark, blank lines); and the shared
 * published traces (the Philly month, the openb lists) when they are next
 * to the source tree.  What it does not check: the meaning of the fields
 * (check-traces does), or malformed files (where the table reader's
 * errors, with their lines, are its own: check-traces again).
 */
#include "config.h"

#include <check.h>
#include <csv.h>
#include <glib/gstdio.h>
#include <sim.h>
#include <string.h>

#include "workload/sim-trace-util.h"

typedef struct {
  GPtrArray *rows;   /* GPtrArray of char*, one per record */
  GPtrArray *row;    /* the record being read */
} Parsed;

static void
on_field (void *text, size_t len, void *data)
{
  Parsed *p = data;

  if (p->row == NULL)
    p->row = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (p->row, g_strstrip (g_strndup (text, len)));
}

static void
on_record (int c, void *data)
{
  Parsed *p = data;

  if (p->row == NULL)
    return;
  g_ptr_array_add (p->rows, p->row);
  p->row = NULL;
}

/* Every record of PATH as libcsv reads it (blank lines give none). */
static GPtrArray *
read_with_libcsv (const char *path, char separator)
{
  g_autofree char *text = NULL;
  gsize len;
  struct csv_parser parser;
  Parsed p = { g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref), NULL };

  ck_assert_msg (g_file_get_contents (path, &text, &len, NULL), "cannot read %s", path);
  /* A byte-order mark is not part of the first name (the table skips it). */
  if (len >= 3 && memcmp (text, "\xEF\xBB\xBF", 3) == 0)
    {
      memmove (text, text + 3, len - 3);
      len -= 3;
    }
  ck_assert_int_eq (csv_init (&parser, CSV_APPEND_NULL), 0);
  csv_set_delim (&parser, (unsigned char) separator);
  ck_assert_uint_eq (csv_parse (&parser, text, len, on_field, on_record, &p), len);
  ck_assert_int_eq (csv_fini (&parser, on_field, on_record, &p), 0);
  csv_free (&parser);
  return p.rows;
}

/* Reads PATH with both readers and compares them row by row.  Returns the
 * number of data rows. */
static guint
compare_file (const char *path, char separator)
{
  g_autoptr(GPtrArray) rows = read_with_libcsv (path, separator);
  g_autoptr(GError) error = NULL;
  g_auto(SimTraceTable) table = { 0 };
  GPtrArray *header;
  const char **names;
  guint n = 0;

  ck_assert_uint_gt (rows->len, 0);
  header = rows->pdata[0];
  /* The header's own names, in order: column k is name k. */
  names = g_new0 (const char *, header->len + 1);
  for (guint k = 0; k < header->len; k++)
    names[k] = header->pdata[k];
  ck_assert_msg (sim__trace_table_open (&table, path, separator, TRUE, names, header->len,
                                        &error), "%s: %s", path, error ? error->message : "");
  for (guint r = 1; r < rows->len; r++)
    {
      GPtrArray *row = rows->pdata[r];
      ck_assert_msg (sim__trace_table_next (&table, &error), "%s: row %u: %s", path, r,
                     error ? error->message : "the table reader ended early");
      ck_assert_msg (table.n_fields == row->len, "%s:%" G_GUINT64_FORMAT ": %u fields, libcsv %u",
                     path, table.line_no, table.n_fields, row->len);
      for (guint k = 0; k < row->len; k++)
        {
          const char *ours = sim__trace_table_get (&table, k);
          ck_assert_msg (g_strcmp0 (ours, row->pdata[k]) == 0,
                         "%s:%" G_GUINT64_FORMAT ": field %u is \"%s\", libcsv reads \"%s\"",
                         path, table.line_no, k + 1, ours, (const char *) row->pdata[k]);
        }
      n++;
    }
  ck_assert_msg (!sim__trace_table_next (&table, &error) && error == NULL,
                 "%s: the table reader has rows libcsv does not", path);
  g_free (names);
  return n;
}

static const struct {
  const char *name;
  char        separator;
  guint       rows;
} excerpts[] = {
  { "philly-excerpt.csv", ',', 300 },
  { "philly-published-head.csv", ',', 300 },
  { "helios-sample.csv", ',', 0 },
  { "openb-nodes.csv", ',', 0 },
  { "openb-pods.csv", ',', 0 },
  { "openb-pods-5col.csv", ',', 0 },
  { "slurm-sample.txt", '|', 0 },
};

START_TEST (test_excerpts)
{
  g_autofree char *path = g_build_filename (SIM_TEST_DATADIR, excerpts[_i].name, NULL);
  guint n = compare_file (path, excerpts[_i].separator);

  ck_assert_uint_gt (n, 0);
  if (excerpts[_i].rows > 0)
    ck_assert_uint_eq (n, excerpts[_i].rows);
}
END_TEST

/* RFC 4180's corners: a quoted separator, doubled quotes, an empty quoted
 * field, CRLF line ends, a byte-order mark, a blank line, blanks around
 * fields. */
START_TEST (test_rfc4180)
{
  g_autofree char *dir = g_dir_make_tmp ("csv-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "corners.csv", NULL);

  ck_assert (g_file_set_contents (path,
    "\xEF\xBB\xBF" "name,cluster,comment\r\n"
    "a,\"vc,1\",\"said \"\"hi\"\"\"\r\n"
    "\r\n"
    "b, vc2 ,\"\"\r\n"
    "c,vc3,plain\r\n", -1, NULL));
  ck_assert_uint_eq (compare_file (path, ','), 3);
  g_unlink (path);
  g_rmdir (dir);
}
END_TEST

/* The published traces: the Philly month and its VC list ship in the
 * checkout's data/traces/philly/ and must be compared (the shared trace
 * directory stands in only for a tree whose data/ was left out); the
 * OpenB lists do not ship and are compared when the shared directory has
 * them. */
START_TEST (test_published)
{
  static const struct {
    const char *file;
    gboolean shipped;
    guint rows; /* data rows, from data/traces/README.md; 0: not checked */
  } files[] = {
    { "philly/philly-2017-10.csv", TRUE, 47192 },
    { "philly/philly-vc-nodes.csv", TRUE, 11 },
    { "openb/openb_node_list_all_node.csv", FALSE, 0 },
    { "openb/openb_pod_list_default.csv", FALSE, 0 },
    { "openb/openb_pod_list_gpushare100.csv", FALSE, 0 },
  };
  guint found = 0, shipped = 0;

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *here = g_build_filename (SIM_TOP_SRCDIR, "data", "traces",
                                                files[i].file, NULL);
      g_autofree char *shared = g_build_filename (SIM_TRACEDIR, files[i].file, NULL);
      guint n;
      const char *path = g_file_test (here, G_FILE_TEST_IS_REGULAR) ? here
                         : g_file_test (shared, G_FILE_TEST_IS_REGULAR) ? shared : NULL;
      if (path == NULL)
        {
          ck_assert_msg (!files[i].shipped, "%s: a shipped trace is missing", here);
          fprintf (stderr, "check-csv: skipped: %s not present\n", shared);
          continue;
        }
      n = compare_file (path, ',');
      ck_assert_uint_gt (n, 0);
      if (files[i].rows > 0)
        ck_assert_msg (n == files[i].rows, "%s: %u rows, expected %u", path, n, files[i].rows);
      found++;
      shipped += files[i].shipped;
    }
  ck_assert_uint_eq (shipped, 2);
  ck_assert_uint_ge (found, shipped);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("csv");
  TCase *tc = tcase_create ("against libcsv");
  SRunner *sr;
  int failed;

  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_excerpts, 0, G_N_ELEMENTS (excerpts));
  tcase_add_test (tc, test_rfc4180);
  tcase_add_test (tc, test_published);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
