/* check-plugin.c: policies loaded from shared objects.
 *
 * What it checks:
 *  - the example plugin (examples/plugin-largest-first.c) loads, names
 *    itself, and orders the queue largest first with ties by arrival, on a
 *    tiny trace whose start times are worked out by hand below, and
 *    differently from FIFO on the same trace;
 *  - loading the same file twice, by two names, gives two instances of one
 *    type;
 *  - each way a file can fail to be a plugin gives an error that names the
 *    file and the fault: a missing file, a file that is not a shared
 *    object, a shared object without the symbol (libsim itself), an ABI
 *    version from elsewhere, a type that is not a policy, and a second
 *    file claiming a plugin name already loaded.
 * What it does not check: unloading (plugins are never unloaded), or
 * plugins written against other versions of the interface.
 *
 * The plugins are found in the build tree: SIM_TOP_BUILDDIR, given at
 * compile time or in the environment.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <sim.h>
#include <stdlib.h>
#include <string.h>

static char *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("check-plugin-XXXXXX", NULL);
  ck_assert_ptr_nonnull (tmpdir);
}

static void
teardown (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static const char *
builddir (void)
{
#ifdef SIM_TOP_BUILDDIR
  return SIM_TOP_BUILDDIR;
#else
  const char *dir = g_getenv ("SIM_TOP_BUILDDIR");
  ck_assert_msg (dir != NULL, "SIM_TOP_BUILDDIR is not set");
  return dir;
#endif
}

/* A module built by libtool in examples/ of the build tree. */
static char *
module_path (const char *name)
{
  g_autofree char *file = g_strdup_printf ("%s.%s", name, G_MODULE_SUFFIX);
  return g_build_filename (builddir (), "examples", ".libs", file, NULL);
}

static void
assert_contains (const char *text, const char *part)
{
  ck_assert_msg (strstr (text, part) != NULL, "\"%s\" not in \"%s\"", part, text);
}

/* One SWF job line: number, submit (s), run time (s), processors. */
static void
swf_line (GString *s, int id, int submit, int run, int procs)
{
  g_string_append_printf (s, "%d %d -1 %d %d -1 -1 %d -1 -1 1 1 -1 -1 -1 -1 -1 -1\n", id, submit,
                          run, procs, procs);
}

typedef struct {
  SimTime start[16];
  guint32 first_gpu[16];
} Starts;

static void
record_start (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Starts *s = data;

  if (job->state == SIM_JOB_RUNNING && job->spec.id < 16)
    {
      s->start[job->spec.id] = job->start;
      s->first_gpu[job->spec.id] = job->gpus[0];
    }
}

/* Two nodes of 4 GPUs (GPUs 0-3 on node 0, 4-7 on node 1).  Jobs (submit
 * s, GPUs, run s): 1 (0, 8, 100), 2 (10, 1, 50), 3 (20, 4, 50),
 * 4 (30, 2, 50), 5 (40, 4, 30).  Job 1 holds the whole cluster until 100;
 * the others queue behind it.
 *
 * Largest first: at 100 the queue is 3, 5 (4 GPUs each, 3 arrived first),
 * 4 (2), 2 (1).  3 -> node 0, 5 -> node 1; 4 does not fit and blocks the
 * head.  At 130 job 5 ends: 4 -> GPUs 4-5 and 2 -> GPU 6, both at 130.
 *
 * FIFO on the same trace: at 100, 2 -> GPU 0, 3 -> node 1, 4 -> GPUs 1-2;
 * 5 needs a whole node and waits until 150, when 2, 3 and 4 end. */
static void
run_tiny_trace (SimPolicy *policy, Starts *s)
{
  g_autoptr(GString) trace = g_string_new ("; tiny\n");
  g_autofree char *trace_path = g_build_filename (tmpdir, "jobs.swf", NULL);
  g_autofree char *text = NULL;
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GError) error = NULL;

  swf_line (trace, 1, 0, 100, 8);
  swf_line (trace, 2, 10, 50, 1);
  swf_line (trace, 3, 20, 50, 4);
  swf_line (trace, 4, 30, 50, 2);
  swf_line (trace, 5, 40, 30, 4);
  ck_assert (g_file_set_contents (trace_path, trace->str, -1, NULL));
  text = g_strdup_printf ("[scenario]\nname = tiny\n"
                          "[pool p]\nmodel = PCIe-8GPU\ngpus_per_node = 4\ncount = 2\n"
                          "[workload]\nsource = swf\ntrace = %s\nprocessors_per_gpu = 1\n"
                          "[policy]\nqueue = fifo\nplacement = first-fit\n", trace_path);
  sc = sim_scenario_load_from_data (text, -1, "tiny.ini", tmpdir, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  if (policy != NULL)
    ck_assert_msg (sim_simulation_set_policy (sim, policy, &error), "%s",
                   error ? error->message : "");
  sim_simulation_set_job_observer (sim, record_start, s, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
}

START_TEST (test_largest_first_order)
{
  g_autofree char *path = module_path ("plugin-largest-first");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPolicy) policy = sim_policy_load_plugin (path, &error);
  Starts s = { 0 };

  ck_assert_msg (policy != NULL, "%s", error ? error->message : "");
  ck_assert_str_eq (sim_policy_get_name (policy), "largest-first/first-fit");
  run_tiny_trace (policy, &s);

  ck_assert_int_eq (s.start[1], 0);
  ck_assert_int_eq (s.start[3], 100 * SIM_SECOND);
  ck_assert_int_eq (s.start[5], 100 * SIM_SECOND);
  ck_assert_int_eq (s.start[4], 130 * SIM_SECOND);
  ck_assert_int_eq (s.start[2], 130 * SIM_SECOND);
  /* Equal sizes keep their arrival order: 3 is placed before 5. */
  ck_assert_uint_eq (s.first_gpu[3], 0);
  ck_assert_uint_eq (s.first_gpu[5], 4);
  ck_assert_uint_eq (s.first_gpu[4], 4);
  ck_assert_uint_eq (s.first_gpu[2], 6);
}
END_TEST

START_TEST (test_fifo_differs)
{
  Starts s = { 0 };

  run_tiny_trace (NULL, &s);
  ck_assert_int_eq (s.start[2], 100 * SIM_SECOND);
  ck_assert_int_eq (s.start[3], 100 * SIM_SECOND);
  ck_assert_int_eq (s.start[4], 100 * SIM_SECOND);
  ck_assert_int_eq (s.start[5], 150 * SIM_SECOND);
  ck_assert_uint_eq (s.first_gpu[2], 0);
  ck_assert_uint_eq (s.first_gpu[3], 4);
  ck_assert_uint_eq (s.first_gpu[4], 1);
}
END_TEST

START_TEST (test_load_twice)
{
  g_autofree char *path = module_path ("plugin-largest-first");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  /* Another name for the same file. */
  g_autofree char *other = g_build_filename (dir, ".", "..", ".libs", base, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPolicy) a = sim_policy_load_plugin (path, &error);
  g_autoptr(SimPolicy) b = NULL;
  const SimPolicyPluginInfo *info;

  ck_assert_msg (a != NULL, "%s", error ? error->message : "");
  b = sim_policy_load_plugin (other, &error);
  ck_assert_msg (b != NULL, "%s", error ? error->message : "");
  ck_assert_ptr_ne (a, b);
  ck_assert (G_OBJECT_TYPE (a) == G_OBJECT_TYPE (b));
  ck_assert (SIM_IS_POLICY (b));

  info = sim_policy_plugin_get_info (path, &error);
  ck_assert_ptr_nonnull (info);
  ck_assert_uint_eq (info->abi_version, SIM_POLICY_PLUGIN_ABI_VERSION);
  ck_assert_str_eq (info->name, "largest-first");
  ck_assert (info->get_type () == G_OBJECT_TYPE (a));
  ck_assert_ptr_eq (sim_policy_plugin_get_info (other, &error), info);
}
END_TEST

/* Loads PATH, expects it to fail with CODE, and returns the message. */
static char *
load_fails (const char *path, int code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPolicy) policy = sim_policy_load_plugin (path, &error);

  ck_assert_msg (policy == NULL, "%s loaded", path);
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (g_error_matches (error, SIM_ERROR, code), "code %d, not %d: %s", error->code,
                 code, error->message);
  assert_contains (error->message, path);
  return g_strdup (error->message);
}

START_TEST (test_missing_file)
{
  g_autofree char *path = g_build_filename (tmpdir, "nowhere.so", NULL);
  g_autofree char *message = load_fails (path, SIM_ERROR_NOT_FOUND);

  assert_contains (message, "policy plugin");
}
END_TEST

START_TEST (test_not_a_shared_object)
{
  g_autofree char *path = g_build_filename (tmpdir, "text.so", NULL);
  g_autofree char *message = NULL;

  ck_assert (g_file_set_contents (path, "[policy]\nqueue = fifo\n", -1, NULL));
  message = load_fails (path, SIM_ERROR_INVALID);
  assert_contains (message, "not a loadable shared object");
  /* A directory is not one either. */
  g_free (message);
  message = load_fails (tmpdir, SIM_ERROR_INVALID);
  assert_contains (message, "not a loadable shared object");
}
END_TEST

/* Nor is a Python module, which the key reference once offered for
 * [policy] plugin: the reference names what loads, and what it offered is
 * refused.  (A Python policy is handed to the simulation instead:
 * gpusim.Simulation(policy=...).) */
START_TEST (test_python_module_refused)
{
  g_autofree char *path = g_build_filename (tmpdir, "policy.py", NULL);
  g_autofree char *message = NULL;
  g_autofree char *reference = NULL;
  g_autoptr(GError) error = NULL;

  ck_assert (g_file_set_contents (path, "import gpusim\n", -1, NULL));
  message = load_fails (path, SIM_ERROR_INVALID);
  assert_contains (message, "not a loadable shared object");
  reference = sim_scenario_dup_key_reference ("policy", FALSE, &error);
  ck_assert_ptr_nonnull (reference);
  assert_contains (reference, "a policy plugin (a shared object exporting gpusim_policy_plugin)");
  ck_assert_msg (strstr (reference, "Python") == NULL, "%s", reference);
}
END_TEST

START_TEST (test_no_symbol)
{
  g_autofree char *lib = g_strdup_printf ("libsim-1.0.%s", G_MODULE_SUFFIX);
  g_autofree char *path = g_build_filename (builddir (), "libsim", ".libs", lib, NULL);
  g_autofree char *message = load_fails (path, SIM_ERROR_INVALID);

  assert_contains (message, "does not export");
  assert_contains (message, SIM_POLICY_PLUGIN_SYMBOL);
}
END_TEST

START_TEST (test_wrong_abi)
{
  g_autofree char *path = module_path ("plugin-broken-abi");
  g_autofree char *message = load_fails (path, SIM_ERROR_INVALID);
  g_autofree char *theirs = g_strdup_printf ("version %u", SIM_POLICY_PLUGIN_ABI_VERSION + 1000);
  g_autofree char *ours = g_strdup_printf ("version %u", SIM_POLICY_PLUGIN_ABI_VERSION);

  assert_contains (message, "ABI");
  assert_contains (message, theirs);
  assert_contains (message, ours);
}
END_TEST

START_TEST (test_wrong_type)
{
  g_autofree char *path = module_path ("plugin-broken-type");
  g_autofree char *message = load_fails (path, SIM_ERROR_INVALID);

  assert_contains (message, "ExampleNotAPolicy");
  assert_contains (message, "SimPolicy");
  /* Refused again, the same way, from the type already registered. */
  g_free (message);
  message = load_fails (path, SIM_ERROR_INVALID);
  assert_contains (message, "ExampleNotAPolicy");
}
END_TEST

START_TEST (test_same_name_other_file)
{
  g_autofree char *path = module_path ("plugin-largest-first");
  g_autofree char *copy = g_build_filename (tmpdir, "copy.so", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *message = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPolicy) first = NULL;
  gsize len = 0;

  first = sim_policy_load_plugin (path, &error);
  ck_assert_msg (first != NULL, "%s", error ? error->message : "");
  ck_assert (g_file_get_contents (path, &contents, &len, NULL));
  ck_assert (g_file_set_contents (copy, contents, (gssize) len, NULL));
  message = load_fails (copy, SIM_ERROR_INVALID);
  assert_contains (message, "\"largest-first\" is loaded already");
}
END_TEST

static Suite *
plugin_suite (void)
{
  Suite *s = suite_create ("plugin");
  TCase *tc = tcase_create ("load");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_largest_first_order);
  tcase_add_test (tc, test_fifo_differs);
  tcase_add_test (tc, test_load_twice);
  tcase_add_test (tc, test_missing_file);
  tcase_add_test (tc, test_not_a_shared_object);
  tcase_add_test (tc, test_python_module_refused);
  tcase_add_test (tc, test_no_symbol);
  tcase_add_test (tc, test_wrong_abi);
  tcase_add_test (tc, test_wrong_type);
  tcase_add_test (tc, test_same_name_other_file);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (plugin_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
