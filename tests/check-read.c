/* check-read.c: the bounded reader (sim-read.h), the checked arithmetic on
 * times (sim-util.h) and the lock of an output directory.
 *
 * What it checks: which files the reader opens (a regular file) and which
 * it refuses at once (a directory, a FIFO with no writer, a device); that
 * a NUL byte is refused naming its line, counted from 1; the line limit of
 * text read whole, and that JSON has none; JSON nested exactly
 * SIM_READ_MAX_JSON_DEPTH levels passes and one more fails, brackets in
 * strings (escaped quotes included) do not count, closing brackets give
 * depth back; that the parse after the check gives json-glib's error with
 * the origin in front.  The checked sums, products and conversions at the
 * ends of a gint64 (2^63 - 1 fits, 2^63 does not; -2^63 fits), and NaN.
 * The start again with huge pages, and the four cases that keep from it.
 * That a second lock of one output directory is refused naming the pid,
 * and that unlocking frees it and removes the lock file; that a lock
 * removes stale temporary outputs and nothing else, and that pruning
 * removes only the names given and not written.
 *
 * What it does not check: the size limit of 256 MiB (it would take a file
 * that large; test-hardening.sh checks the limits through the program), or
 * the readers that use these functions (their own suites do).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sim-read.h"
#include "core/sim-util.h"

static char *
scratch_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("check-read-XXXXXX", &error);

  ck_assert_msg (dir != NULL, "%s", error ? error->message : "");
  return dir;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

START_TEST (test_regular_files_only)
{
  g_autofree char *dir = scratch_dir ();
  g_autofree char *file = g_build_filename (dir, "a.txt", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;

  ck_assert (g_file_set_contents (file, "one\ntwo\n", -1, NULL));
  text = sim__read_file (file, SIM_READ_TEXT, &len, &error);
  ck_assert_ptr_nonnull (text);
  ck_assert_str_eq (text, "one\ntwo\n");
  ck_assert_uint_eq (len, 8);

  ck_assert_ptr_null (sim__read_file (dir, SIM_READ_TEXT, NULL, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
  ck_assert_ptr_nonnull (strstr (error->message, "not a regular file (a directory)"));
  g_clear_error (&error);

  /* Opening a FIFO with no writer would block: it is refused at once. */
  ck_assert_int_eq (mkfifo (fifo, 0600), 0);
  ck_assert_ptr_null (sim__read_open (fifo, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "not a regular file (a pipe)"));
  g_clear_error (&error);

  ck_assert_ptr_null (sim__read_file ("/dev/zero", SIM_READ_JSON, NULL, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "/dev/zero: not a regular file (a device)"));
  g_clear_error (&error);

  ck_assert_ptr_null (sim__read_file (file + 1, SIM_READ_TEXT, NULL, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "cannot open"));
  remove_dir (dir);
}
END_TEST

START_TEST (test_nul_and_lines)
{
  static const char nul[] = "a\nb\nc\0d\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) long_line = g_string_new ("x\n");

  ck_assert (sim__read_check_text ("a\nb\n", -1, "t", SIM_READ_TEXT, &error));
  ck_assert (!sim__read_check_text (nul, sizeof nul - 1, "t", SIM_READ_TEXT, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_PARSE));
  ck_assert_str_eq (error->message, "t:3: the line contains a NUL byte: expected text");
  g_clear_error (&error);
  /* A NUL is refused in JSON too, where it would end the text early. */
  ck_assert (!sim__read_check_text ("[1,\0 2]", 7, "j", SIM_READ_JSON, &error));
  ck_assert_str_eq (error->message, "j:1: the line contains a NUL byte: expected text");
  g_clear_error (&error);

  /* A line of exactly the limit passes; one byte more is refused, named. */
  for (guint i = 0; i < SIM_READ_MAX_LINE; i++)
    g_string_append_c (long_line, 'y');
  ck_assert (sim__read_check_text (long_line->str, (gssize) long_line->len, "t", SIM_READ_TEXT,
                                   &error));
  g_string_append (long_line, "y\nz");
  ck_assert (!sim__read_check_text (long_line->str, (gssize) long_line->len, "t",
                                    SIM_READ_TEXT, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "t:2: the line is longer than 1048576 bytes"));
  g_clear_error (&error);
  /* JSON on one line (as gpusim writes it) has no line limit. */
  ck_assert (sim__read_check_text (long_line->str, (gssize) long_line->len, "t",
                                   SIM_READ_JSON, &error));
}
END_TEST

static char *
nested (guint depth, const char *open, const char *inside, const char *close)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (s, open);
  g_string_append (s, inside);
  for (guint i = 0; i < depth; i++)
    g_string_append (s, close);
  return g_string_free (s, FALSE);
}

START_TEST (test_json_depth)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *at_limit = nested (SIM_READ_MAX_JSON_DEPTH, "[", "1", "]");
  g_autofree char *past = nested (SIM_READ_MAX_JSON_DEPTH + 1, "{\"k\":", "1", "}");
  g_autofree char *in_string = NULL, *siblings = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  ck_assert (sim__read_check_text (at_limit, -1, "j", SIM_READ_JSON, &error));
  ck_assert (sim__read_parse_json (parser, at_limit, -1, "j", &error));
  ck_assert (!sim__read_check_text (past, -1, "j", SIM_READ_JSON, &error));
  ck_assert_str_eq (error->message, "j:1: JSON nested deeper than 64 levels: expected a file "
                    "written by gpusim");
  g_clear_error (&error);
  ck_assert (!sim__read_parse_json (parser, past, -1, "j", &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_PARSE));
  g_clear_error (&error);

  /* Brackets inside strings, an escaped quote among them, do not nest. */
  in_string = g_strdup_printf ("[\"%s\\\"%s\"]", at_limit, past);
  ck_assert (sim__read_check_text (in_string, -1, "j", SIM_READ_JSON, &error));
  /* Depth is given back on closing: many shallow siblings pass. */
  {
    GString *s = g_string_new ("[");
    for (guint i = 0; i < 1000; i++)
      g_string_append (s, i ? ",[[1]]" : "[[1]]");
    g_string_append (s, "]");
    siblings = g_string_free (s, FALSE);
  }
  ck_assert (sim__read_check_text (siblings, -1, "j", SIM_READ_JSON, &error));
  /* The line of the level past the limit is named. */
  {
    g_autofree char *deep = nested (SIM_READ_MAX_JSON_DEPTH + 1, "[\n", "", "]");
    ck_assert (!sim__read_check_text (deep, -1, "j", SIM_READ_JSON, &error));
    ck_assert_ptr_nonnull (strstr (error->message, "j:65: JSON nested deeper"));
    g_clear_error (&error);
  }
  /* A syntax error is json-glib's, with the origin in front. */
  ck_assert (!sim__read_parse_json (parser, "[1,", -1, "broken.json", &error));
  ck_assert_int_eq (error->domain, JSON_PARSER_ERROR);
  ck_assert (g_str_has_prefix (error->message, "broken.json: "));
}
END_TEST

START_TEST (test_time_checked)
{
  gint64 out = 42;

  ck_assert (sim__time_add_checked (G_MAXINT64 - 1, 1, &out));
  ck_assert_int_eq (out, G_MAXINT64);
  out = 42;
  ck_assert (!sim__time_add_checked (G_MAXINT64, 1, &out));
  ck_assert_int_eq (out, 42);   /* untouched on failure */
  ck_assert (!sim__time_add_checked (G_MININT64, -1, &out));
  ck_assert (sim__time_add_checked (G_MININT64, G_MAXINT64, &out));
  ck_assert_int_eq (out, -1);
  /* 3037000499 is floor (sqrt (2^63 - 1)): its square fits, and is exact. */
  ck_assert (sim__time_mul_checked (G_GINT64_CONSTANT (3037000499), G_GINT64_CONSTANT (3037000499),
                                    &out));
  ck_assert_int_eq (out, G_GINT64_CONSTANT (9223372030926249001));
  ck_assert (!sim__time_mul_checked (G_GINT64_CONSTANT (3037000500),
                                     G_GINT64_CONSTANT (3037000500), &out));
  ck_assert (!sim__time_mul_checked (G_MININT64, -1, &out));
  /* 1e10 s at 1e9 ns/s: 1e19 ns, past 2^63 (9.22e18). */
  ck_assert (!sim__time_from_ns_checked (1e19, &out));
  ck_assert (!sim__time_from_ns_checked (9223372036854775808.0, &out));
  ck_assert (sim__time_from_ns_checked (-9223372036854775808.0, &out));
  ck_assert_int_eq (out, G_MININT64);
  ck_assert (!sim__time_from_ns_checked (NAN, &out));
  ck_assert (!sim__time_from_ns_checked (INFINITY, &out));
  ck_assert (sim__time_from_ns_checked (2.5e9 + 0.4, &out));
  ck_assert_int_eq (out, 2500000000);
}
END_TEST

START_TEST (test_output_lock)
{
  static const char * const names[] = { "summary.json", "topology.dot", NULL };
  static const char * const written[] = { "summary.json", NULL };
  g_autofree char *dir = scratch_dir ();
  g_autofree char *lock_path = g_build_filename (dir, ".gpusim-lock", NULL);
  g_autofree char *stale = g_build_filename (dir, "summary.json.tmp-ABC123", NULL);
  g_autofree char *other = g_build_filename (dir, "notes.txt.tmp-ABC123", NULL);
  g_autofree char *old = g_build_filename (dir, "topology.dot", NULL);
  g_autofree char *kept = g_build_filename (dir, "summary.json", NULL);
  g_autofree char *pid = g_strdup_printf ("process %d,", (int) getpid ());
  g_autoptr(GError) error = NULL;
  SimOutputLock *lock, *second;

  ck_assert (g_file_set_contents (stale, "x", -1, NULL));
  ck_assert (g_file_set_contents (other, "x", -1, NULL));
  ck_assert (g_file_set_contents (old, "x", -1, NULL));
  lock = sim__output_dir_lock (dir, names, &error);
  ck_assert_ptr_nonnull (lock);
  ck_assert (g_file_test (lock_path, G_FILE_TEST_IS_REGULAR));
  ck_assert (!g_file_test (stale, G_FILE_TEST_EXISTS));    /* ours, stale: removed */
  ck_assert (g_file_test (other, G_FILE_TEST_EXISTS));     /* not ours: kept */

  /* flock() locks belong to an open file: a second lock conflicts even in
   * this process, as a second run would. */
  second = sim__output_dir_lock (dir, names, &error);
  ck_assert_ptr_null (second);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
  ck_assert_ptr_nonnull (strstr (error->message, "in use by another gpusim run"));
  ck_assert_ptr_nonnull (strstr (error->message, pid));
  g_clear_error (&error);
  ck_assert (g_file_test (lock_path, G_FILE_TEST_IS_REGULAR));  /* the refusal left it */

  /* This run wrote summary.json (in the list and written: kept); it did
   * not write topology.dot (in the list, not written: an earlier run's,
   * removed); notes.txt.tmp-ABC123 is in no list (kept). */
  ck_assert (g_file_set_contents (kept, "new", -1, NULL));
  sim__output_dir_prune (lock, names, written);
  ck_assert (!g_file_test (old, G_FILE_TEST_EXISTS));
  ck_assert (g_file_test (other, G_FILE_TEST_EXISTS));
  ck_assert (g_file_test (kept, G_FILE_TEST_EXISTS));
  sim__output_dir_unlock (lock);
  ck_assert (!g_file_test (lock_path, G_FILE_TEST_EXISTS));

  second = sim__output_dir_lock (dir, names, &error);
  ck_assert_ptr_nonnull (second);
  sim__output_dir_unlock (second);
  remove_dir (dir);
}
END_TEST

/* The start again with huge pages (sim__prefer_huge_pages()), run in a
 * child whose output is read: /usr/bin/env stands for the program, so
 * that what it is started with is printed.  Where the kernel's mode (read
 * here on its own) gives huge pages only on request, a clean start runs
 * it with GLIBC_TUNABLES=glibc.malloc.hugetlb=1; elsewhere it returns.
 * GPUSIM_HUGE_PAGES=0, a GLIBC_TUNABLES of the caller's (kept as it is) and
 * valgrind's preload make it return wherever. */
static char *
start_child (const char *opt, const char *tunables, const char *preload, int *status)
{
  int fds[2];
  pid_t pid;
  GString *out = g_string_new (NULL);
  char buf[4096];
  ssize_t n;

  ck_assert_int_eq (pipe (fds), 0);
  pid = fork ();
  ck_assert_int_ge (pid, 0);
  if (pid == 0)
    {
      char *argv[] = { (char *) "env", NULL };
      dup2 (fds[1], STDOUT_FILENO);
      close (fds[0]);
      close (fds[1]);
      g_unsetenv ("GPUSIM_HUGE_PAGES");
      g_unsetenv ("GLIBC_TUNABLES");
      g_unsetenv ("LD_PRELOAD");
      if (opt != NULL)
        g_setenv ("GPUSIM_HUGE_PAGES", opt, TRUE);
      if (tunables != NULL)
        g_setenv ("GLIBC_TUNABLES", tunables, TRUE);
      if (preload != NULL)
        g_setenv ("LD_PRELOAD", preload, TRUE);
      sim__prefer_huge_pages_via ("/usr/bin/env", argv);
      /* Returned: what it left set, then a code of its own. */
      printf ("returned GLIBC_TUNABLES=%s\n",
              g_getenv ("GLIBC_TUNABLES") != NULL ? g_getenv ("GLIBC_TUNABLES") : "(unset)");
      fflush (stdout);
      _exit (3);
    }
  close (fds[1]);
  while ((n = read (fds[0], buf, sizeof buf)) > 0)
    g_string_append_len (out, buf, n);
  close (fds[0]);
  ck_assert_int_eq (waitpid (pid, status, 0), pid);
  return g_string_free (out, FALSE);
}

START_TEST (test_huge_pages_start)
{
  g_autofree char *mode = NULL;
  gboolean madvise;
  int status;

  madvise = g_file_get_contents ("/sys/kernel/mm/transparent_hugepage/enabled", &mode, NULL,
                                 NULL)
            && strstr (mode, "[madvise]") != NULL;
  {
    g_autofree char *out = start_child (NULL, NULL, NULL, &status);
    ck_assert (WIFEXITED (status));
    if (madvise)
      {
        /* env ran, with the tunable among its environment's lines. */
        ck_assert_int_eq (WEXITSTATUS (status), 0);
        ck_assert_msg (g_str_has_prefix (out, "GLIBC_TUNABLES=glibc.malloc.hugetlb=1\n")
                       || strstr (out, "\nGLIBC_TUNABLES=glibc.malloc.hugetlb=1\n") != NULL,
                       "started with: %s", out);
        ck_assert (strstr (out, "returned") == NULL);
      }
    else
      {
        ck_assert_int_eq (WEXITSTATUS (status), 3);
        ck_assert_str_eq (out, "returned GLIBC_TUNABLES=(unset)\n");
      }
  }
  {
    g_autofree char *out = start_child ("0", NULL, NULL, &status);
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 3);
    ck_assert_str_eq (out, "returned GLIBC_TUNABLES=(unset)\n");
  }
  {
    g_autofree char *out = start_child (NULL, "glibc.malloc.check=0", NULL, &status);
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 3);
    ck_assert_str_eq (out, "returned GLIBC_TUNABLES=glibc.malloc.check=0\n");
  }
  {
    g_autofree char *out = start_child (NULL, NULL,
                                        "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so",
                                        &status);
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 3);
    ck_assert_str_eq (out, "returned GLIBC_TUNABLES=(unset)\n");
  }
  /* Any other value of GPUSIM_HUGE_PAGES starts as a clean start does. */
  {
    g_autofree char *out = start_child ("1", NULL, NULL, &status);
    ck_assert (WIFEXITED (status));
    ck_assert_int_eq (WEXITSTATUS (status), madvise ? 0 : 3);
  }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("read");
  TCase *tc = tcase_create ("bounded reading and checked times");
  SRunner *sr;
  int failed;

  tcase_add_test (tc, test_regular_files_only);
  tcase_add_test (tc, test_nul_and_lines);
  tcase_add_test (tc, test_json_depth);
  tcase_add_test (tc, test_time_checked);
  tcase_add_test (tc, test_output_lock);
  tcase_add_test (tc, test_huge_pages_start);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
