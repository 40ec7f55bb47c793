/* check-scenario.c: scenario files, from text to a validated SimScenario,
 * and the names a scenario resolves when a simulation is built from it.
 *
 * What this suite asserts:
 *  - a good scenario parses into exact SI values (seed, horizon in ns,
 *    rates per second, pools, classes with their shares, GPU mixes and
 *    duration parameters in seconds, the daily profile as written, policy
 *    and output settings), with [workload] defaults inherited by classes;
 *    scenarios/quickstart.ini loads;
 *  - --set overrides replace values, work on named groups, are refused when
 *    malformed, and a bad value is blamed on "--set GROUP.KEY";
 *  - every row of bad_rows fails with the error code given and a message
 *    that begins with the name passed to sim_scenario_load_from_data, gives
 *    the line of the offending key or section ("NAME:LINE: "), and contains
 *    the listed phrases (the [group] and key, and what was expected);
 *  - unknown node and GPU models, queue orders and placements are reported
 *    by sim_simulation_new() as SIM_ERROR_NOT_FOUND with the scenario name,
 *    the group and a suggestion;
 *  - about 2,000 deterministic mutations of a valid text either parse or
 *    fail cleanly with a SIM_ERROR whose message begins with the name, with
 *    no critical warning (made fatal here); under ASan/LSan, without leaks.
 *
 * What it does not assert: the exact wording of messages beyond the phrases
 * listed; the order in which several errors in one file are found (each bad
 * row has exactly one error); that the simulation built from a scenario
 * behaves in any way (check-sched and check-report do that); the SWF trace
 * reader beyond the path a scenario resolves.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sim.h>

static void
assert_close (double got, double want, const char *what)
{
  double tol = 1e-12 * MAX (fabs (want), 1e-300);

  ck_assert_msg (fabs (got - want) <= tol, "%s: got %.17g, expected %.17g", what, got, want);
}

static SimScenario *
load_ok (const char *text, const char * const *overrides)
{
  g_autoptr(GError) error = NULL;
  SimScenario *sc = sim_scenario_load_from_data (text, -1, "good.ini", "/base/dir", overrides,
                                                 &error);

  ck_assert_msg (sc != NULL, "rejected: %s", error ? error->message : "(no error)");
  ck_assert (error == NULL);
  return sc;
}

/* ------------------------------------------------------------------------- */
/* A good scenario.                                                          */

static const char good_text[] =
  "# Every group and most keys, with values whose SI form is exact.\n"
  "[scenario]\n"
  "name = good \n"
  "description = two pools, three classes\n"
  "seed = 18446744073709551615\n"
  "horizon = 14d\n"
  "models = extra-models, /abs/models\n"
  "\n"
  "[pool h100]\n"
  "model = DGX-H100\n"
  "count = 16\n"
  "\n"
  "[pool mixed]\n"
  "model = PCIE-8GPU\n"
  "gpu = A100-SXM-80GB\n"
  "gpus_per_node = 4\n"
  "count = 3\n"
  "\n"
  "[workload]\n"
  "source = synthetic\n"
  "rate = 3.8/h\n"
  "jobs = 5000\n"
  "daily_profile = 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.8, 1.0, 1.3, 1.5, 1.6, 1.6, "
  "1.4, 1.5, 1.6, 1.6, 1.5, 1.3, 1.1, 1.0, 0.9, 0.8, 0.7, 0.0\n"
  "gpus = 8\n"
  "duration = exponential(mean=90min)\n"
  "estimate_factor = 1.5\n"
  "\n"
  "[class small]\n"
  "share = 0.6\n"
  "gpus = 1:0.5, 2:0.3, 4:0.2\n"
  "duration = lognormal(median=20min, sigma=1.2)\n"
  "\n"
  "[class node]\n"
  "share = 0.3\n"
  "\n"
  "[class sweep]\n"
  "share = 0.1\n"
  "gpus = 16:0.6, 32:0.4\n"
  "duration = empirical(10min:1, 2h:3)\n"
  "estimate_factor = 0\n"
  "\n"
  "[class fixed]\n"
  "duration = constant(2h)\n"
  "\n"
  "[policy]\n"
  "queue = fifo\n"
  "placement = best-fit\n"
  "\n"
  "[output]\n"
  "timeseries_interval = 15min\n"
  "jobs = false\n"
  "timeseries = yes\n";

START_TEST (test_good_values)
{
  g_autoptr(SimScenario) sc = load_ok (good_text, NULL);
  const SimJobClassConfig *c;
  static const double profile[24] = { 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.8, 1.0, 1.3, 1.5, 1.6, 1.6,
                                      1.4, 1.5, 1.6, 1.6, 1.5, 1.3, 1.1, 1.0, 0.9, 0.8, 0.7, 0.0 };

  ck_assert_str_eq (sc->path, "good.ini");
  ck_assert_str_eq (sc->base_dir, "/base/dir");
  ck_assert_str_eq (sc->name, "good");
  ck_assert_str_eq (sc->description, "two pools, three classes");
  ck_assert_uint_eq (sc->seed, G_MAXUINT64);
  ck_assert_int_eq (sc->horizon, (SimTime) 14 * 86400 * 1000000000);
  ck_assert_int_eq (sc->horizon, 14 * SIM_DAY);
  ck_assert_ptr_nonnull (sc->model_dirs);
  ck_assert_uint_eq (g_strv_length (sc->model_dirs), 2);
  ck_assert_str_eq (sc->model_dirs[0], "/base/dir/extra-models");
  ck_assert_str_eq (sc->model_dirs[1], "/abs/models");

  ck_assert_uint_eq (sc->n_pools, 2);
  ck_assert_str_eq (sc->pools[0].name, "h100");
  ck_assert_str_eq (sc->pools[0].node_model, "DGX-H100");
  ck_assert_ptr_null (sc->pools[0].gpu_model);
  ck_assert_uint_eq (sc->pools[0].gpus_per_node, 0);
  ck_assert_uint_eq (sc->pools[0].count, 16);
  ck_assert_str_eq (sc->pools[1].name, "mixed");
  ck_assert_str_eq (sc->pools[1].node_model, "PCIE-8GPU");
  ck_assert_str_eq (sc->pools[1].gpu_model, "A100-SXM-80GB");
  ck_assert_uint_eq (sc->pools[1].gpus_per_node, 4);
  ck_assert_uint_eq (sc->pools[1].count, 3);

  ck_assert_int_eq (sc->source, SIM_SOURCE_SYNTHETIC);
  ck_assert_ptr_null (sc->trace_path);
  assert_close (sc->generator.rate, 3.8 / 3600, "rate");
  ck_assert_uint_eq (sc->generator.max_jobs, 5000);
  ck_assert_int_eq (sc->generator.stop_time, 14 * SIM_DAY);
  for (guint h = 0; h < 24; h++)
    ck_assert_msg (sc->generator.profile[h] == profile[h], "profile[%u] = %g, expected %g", h,
                   sc->generator.profile[h], profile[h]);

  ck_assert_uint_eq (sc->generator.n_classes, 4);

  c = &sc->generator.classes[0];
  ck_assert_str_eq (c->name, "small");
  assert_close (c->share, 0.6, "small share");
  ck_assert_uint_eq (c->n_gpu_values, 3);
  ck_assert_uint_eq (c->gpu_values[0], 1);
  ck_assert_uint_eq (c->gpu_values[1], 2);
  ck_assert_uint_eq (c->gpu_values[2], 4);
  assert_close (c->gpu_weights[0], 0.5, "small weight 1");
  assert_close (c->gpu_weights[1], 0.3, "small weight 2");
  assert_close (c->gpu_weights[2], 0.2, "small weight 4");
  ck_assert_int_eq (c->duration.kind, SIM_DIST_LOGNORMAL);
  assert_close (c->duration.median, 1200, "small median (s)");
  assert_close (c->duration.sigma, 1.2, "small sigma");
  assert_close (c->estimate_factor, 1.5, "small estimate_factor (inherited)");

  /* Everything but the share comes from [workload]. */
  c = &sc->generator.classes[1];
  ck_assert_str_eq (c->name, "node");
  assert_close (c->share, 0.3, "node share");
  ck_assert_uint_eq (c->n_gpu_values, 1);
  ck_assert_uint_eq (c->gpu_values[0], 8);
  ck_assert_int_eq (c->duration.kind, SIM_DIST_EXPONENTIAL);
  assert_close (c->duration.mean, 5400, "node mean (s)");
  assert_close (c->estimate_factor, 1.5, "node estimate_factor");

  c = &sc->generator.classes[2];
  ck_assert_str_eq (c->name, "sweep");
  assert_close (c->share, 0.1, "sweep share");
  ck_assert_uint_eq (c->n_gpu_values, 2);
  ck_assert_uint_eq (c->gpu_values[0], 16);
  ck_assert_uint_eq (c->gpu_values[1], 32);
  assert_close (c->gpu_weights[0], 0.6, "sweep weight 16");
  assert_close (c->gpu_weights[1], 0.4, "sweep weight 32");
  ck_assert_int_eq (c->duration.kind, SIM_DIST_EMPIRICAL);
  ck_assert_uint_eq (c->duration.n_values, 2);
  assert_close (c->duration.values[0], 600, "sweep value 1");
  assert_close (c->duration.values[1], 7200, "sweep value 2");
  assert_close (c->duration.weights[0], 1, "sweep weight 1");
  assert_close (c->duration.weights[1], 3, "sweep weight 2");
  ck_assert (c->estimate_factor == 0);

  /* No share: 1. */
  c = &sc->generator.classes[3];
  ck_assert_str_eq (c->name, "fixed");
  assert_close (c->share, 1, "fixed share");
  ck_assert_uint_eq (c->gpu_values[0], 8);
  ck_assert_int_eq (c->duration.kind, SIM_DIST_CONSTANT);
  assert_close (c->duration.mean, 7200, "fixed mean (s)");

  ck_assert_str_eq (sc->queue, "fifo");
  ck_assert_str_eq (sc->placement, "best-fit");
  ck_assert_int_eq (sc->sample_interval, 15 * SIM_MINUTE);
  ck_assert (!sc->write_jobs);
  ck_assert (sc->write_timeseries);
}
END_TEST

/* The defaults of everything optional, and a workload without classes. */
START_TEST (test_good_defaults)
{
  static const char text[] =
    "[scenario]\nname = minimal\n"
    "[pool p]\nmodel = DGX-H100\ncount = 1\n"
    "[workload]\nrate = 0.5/s\njobs = 10\ngpus = 2\nduration = constant(90s)\n";
  g_autoptr(SimScenario) sc = load_ok (text, NULL);
  g_autofree char *cwd = g_get_current_dir ();

  ck_assert_str_eq (sc->base_dir, "/base/dir");
  ck_assert_ptr_null (sc->description);
  ck_assert_uint_eq (sc->seed, 1);
  ck_assert_int_eq (sc->horizon, SIM_TIME_NEVER);
  ck_assert_ptr_null (sc->model_dirs);
  ck_assert_int_eq (sc->source, SIM_SOURCE_SYNTHETIC);
  assert_close (sc->generator.rate, 0.5, "rate");
  for (guint h = 0; h < 24; h++)
    ck_assert (sc->generator.profile[h] == 0);
  ck_assert_uint_eq (sc->generator.max_jobs, 10);
  ck_assert_uint_eq (sc->generator.n_classes, 1);
  ck_assert_str_eq (sc->generator.classes[0].name, "default");
  assert_close (sc->generator.classes[0].share, 1, "share");
  ck_assert_uint_eq (sc->generator.classes[0].gpu_values[0], 2);
  assert_close (sc->generator.classes[0].duration.mean, 90, "mean");
  ck_assert (sc->generator.classes[0].estimate_factor == 0);
  ck_assert_str_eq (sc->queue, "fifo");
  ck_assert_str_eq (sc->placement, "first-fit");
  ck_assert_int_eq (sc->sample_interval, SIM_HOUR);
  ck_assert (sc->write_jobs);
  ck_assert (sc->write_timeseries);

  /* No base directory: the current one. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) sc2 = sim_scenario_load_from_data (text, -1, "x", NULL, NULL, &error);
    ck_assert_ptr_nonnull (sc2);
    ck_assert_str_eq (sc2->base_dir, cwd);
  }
  /* A length shorter than the text: only that much is read.  The text
   * beyond it, an unknown group, is refused when the whole text is read
   * (-1), so the scenario loaded with the length did not read it. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *longer = g_strconcat (text, "[bogus]\n", NULL);
    g_autoptr(SimScenario) sc3 = sim_scenario_load_from_data (longer, (gssize) strlen (text), "x",
                                                              NULL, NULL, &error);
    g_autoptr(SimScenario) sc4 = NULL;
    ck_assert_msg (sc3 != NULL, "%s", error ? error->message : "");
    sc4 = sim_scenario_load_from_data (longer, -1, "x", NULL, NULL, &error);
    ck_assert_ptr_null (sc4);
    ck_assert_msg (error != NULL && strstr (error->message, "bogus") != NULL, "%s",
                   error ? error->message : "accepted");
  }
}
END_TEST

START_TEST (test_good_swf)
{
  static const char text[] =
    "[scenario]\nname = trace\n"
    "[pool p]\nmodel = DGX-H100\ncount = 4\n"
    "[workload]\nsource = swf\ntrace = traces/x.swf\njobs = 100\n"
    "processors_per_gpu = 2.5\nskip_invalid = false\nrebase_time = no\n";
  g_autoptr(SimScenario) sc = load_ok (text, NULL);

  ck_assert_int_eq (sc->source, SIM_SOURCE_SWF);
  ck_assert_str_eq (sc->trace_path, "/base/dir/traces/x.swf");
  assert_close (sc->swf.processors_per_gpu, 2.5, "processors_per_gpu");
  ck_assert_uint_eq (sc->swf.max_jobs, 100);
  ck_assert (!sc->swf.skip_invalid);
  ck_assert (!sc->swf.rebase_time);
}
END_TEST

START_TEST (test_quickstart)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (SIM_TOP_SRCDIR "/scenarios/quickstart.ini", NULL,
                                                 &error);

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  ck_assert_str_eq (sc->name, "quickstart");
  ck_assert_str_eq (sc->path, SIM_TOP_SRCDIR "/scenarios/quickstart.ini");
  ck_assert_int_eq (sc->horizon, 14 * SIM_DAY);
  assert_close (sc->generator.rate, 3.8 / 3600, "rate");
  ck_assert_uint_eq (sc->n_pools, 1);
  ck_assert_uint_eq (sc->pools[0].count, 16);
  ck_assert_uint_eq (sc->generator.n_classes, 3);
  assert_close (sc->generator.classes[0].duration.median, 20 * 60, "small median");
  assert_close (sc->generator.classes[2].duration.median, 6 * 3600, "multinode median");
  ck_assert (sc->generator.profile[10] == 1.6);

  /* The reference count. */
  ck_assert_ptr_eq (sim_scenario_ref (sc), sc);
  sim_scenario_unref (sc);
}
END_TEST

START_TEST (test_load_missing_file)
{
  g_autoptr(GError) error = NULL;
  SimScenario *sc = sim_scenario_load ("/nonexistent/dir/none.ini", NULL, &error);

  ck_assert_ptr_null (sc);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
  ck_assert_msg (strstr (error->message, "/nonexistent/dir/none.ini") != NULL, "%s",
                 error->message);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Overrides.                                                                */

START_TEST (test_override_values)
{
  const char *seed[] = { "scenario.seed=7", NULL };
  const char *named[] = { "pool h100.count=4", "workload.rate = 1/min", "policy.placement=best-fit",
                          NULL };
  const char *added[] = { "scenario.horizon=1h", "output.jobs=no", NULL };
  g_autoptr(SimScenario) a = load_ok (good_text, seed);
  g_autoptr(SimScenario) b = load_ok (good_text, named);
  g_autoptr(SimScenario) c = load_ok (good_text, added);

  ck_assert_uint_eq (a->seed, 7);
  ck_assert_uint_eq (b->pools[0].count, 4);
  ck_assert_uint_eq (b->pools[1].count, 3);
  assert_close (b->generator.rate, 1.0 / 60, "rate");
  ck_assert_str_eq (b->placement, "best-fit");
  ck_assert_int_eq (c->horizon, SIM_HOUR);
  ck_assert (!c->write_jobs);
  ck_assert_uint_eq (c->seed, G_MAXUINT64);
}
END_TEST

static const struct {
  const char *set;
  SimError    code;
  const char *needle;
} bad_overrides[] = {
  { "seed=7", SIM_ERROR_PARSE, "--set seed=7: expected SECTION.KEY=VALUE" },
  { "scenario.seed", SIM_ERROR_PARSE, "--set scenario.seed: expected SECTION.KEY=VALUE" },
  { ".seed=7", SIM_ERROR_PARSE, "expected SECTION.KEY=VALUE" },
  { "scenario.=7", SIM_ERROR_PARSE, "expected SECTION.KEY=VALUE" },
  { "scenario.seed=abc", SIM_ERROR_PARSE, "good.ini: --set scenario.seed: \"abc\" is not a seed" },
  { "pool h100.count=0", SIM_ERROR_INVALID, "good.ini: --set pool h100.count: " },
  { "workload.rate=30", SIM_ERROR_PARSE, "good.ini: --set workload.rate: \"30\" has no unit" },
  { "scenario.sed=7", SIM_ERROR_UNKNOWN_KEY, "--set scenario.sed: unknown key: did you mean \"seed\"" },
  { "scenario.name=\xc3(", SIM_ERROR_PARSE, "--set: not UTF-8 text" },
  { "poll x.count=1", SIM_ERROR_UNKNOWN_KEY, "did you mean [pool" },
};

START_TEST (test_override_bad)
{
  const char *sets[] = { bad_overrides[_i].set, NULL };
  g_autoptr(GError) error = NULL;
  SimScenario *sc = sim_scenario_load_from_data (good_text, -1, "good.ini", NULL, sets, &error);

  ck_assert_msg (sc == NULL, "--set %s accepted", sets[0]);
  ck_assert_msg (g_error_matches (error, SIM_ERROR, bad_overrides[_i].code),
                 "--set %s: code %d, expected %d: %s", sets[0], error->code,
                 bad_overrides[_i].code, error->message);
  ck_assert_msg (strstr (error->message, bad_overrides[_i].needle) != NULL,
                 "--set %s: \"%s\" does not contain \"%s\"", sets[0], error->message,
                 bad_overrides[_i].needle);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Bad scenarios.                                                            */

/* The valid text that most rows edit, one line each; lines are numbered. */
static const char base_text[] =
  /*  1 */ "# A small valid scenario.\n"
  /*  2 */ "[scenario]\n"
  /*  3 */ "name = base\n"
  /*  4 */ "seed = 42\n"
  /*  5 */ "horizon = 2d\n"
  /*  6 */ "\n"
  /*  7 */ "[pool h100]\n"
  /*  8 */ "model = DGX-H100\n"
  /*  9 */ "count = 2\n"
  /* 10 */ "\n"
  /* 11 */ "[workload]\n"
  /* 12 */ "source = synthetic\n"
  /* 13 */ "rate = 30/h\n"
  /* 14 */ "duration = constant(1h)\n"
  /* 15 */ "\n"
  /* 16 */ "[class small]\n"
  /* 17 */ "share = 0.7\n"
  /* 18 */ "gpus = 1:0.5, 2:0.5\n"
  /* 19 */ "duration = lognormal(median=20min, sigma=1.2)\n"
  /* 20 */ "\n"
  /* 21 */ "[class big]\n"
  /* 22 */ "share = 0.3\n"
  /* 23 */ "gpus = 8\n"
  /* 24 */ "\n"
  /* 25 */ "[policy]\n"
  /* 26 */ "queue = fifo\n"
  /* 27 */ "placement = first-fit\n"
  /* 28 */ "\n"
  /* 29 */ "[output]\n"
  /* 30 */ "timeseries_interval = 1h\n"
  /* 31 */ "jobs = true\n";

#define PROFILE_23 "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1"
#define PROFILE_0 "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0"

/* A row replaces line @edit_line of base_text with @edit, or, if
 * @edit_line is 0, uses @text whole.  The error must have @code; its
 * message must begin with "bad.ini:LINE: " (or "bad.ini: " where @line is 0,
 * for errors about the file as a whole) and contain every one of @needles. */
typedef struct {
  guint       edit_line;
  const char *edit;
  const char *text;
  SimError    code;
  guint       line;
  const char *needles[4];
} BadRow;

static const BadRow bad_rows[] = {
  /* Sections. */
  { 11, "[workloda]", NULL, SIM_ERROR_UNKNOWN_KEY, 11,
    { "[workloda]", "unknown section", "did you mean [workload]?" } },
  { 16, "[clas small]", NULL, SIM_ERROR_UNKNOWN_KEY, 16,
    { "[clas small]", "did you mean [class ...]?", "[class NAME]" } },
  { 7, "[pool]", NULL, SIM_ERROR_MISSING, 7, { "[pool]", "needs a name", "[pool NAME]" } },
  { 7, "[pool  ]", NULL, SIM_ERROR_MISSING, 7, { "needs a name", "[pool NAME]" } },
  { 2, "[scenario x]", NULL, SIM_ERROR_UNKNOWN_KEY, 2,
    { "[scenario x]", "takes no name", "expected [scenario]" } },
  { 0, NULL,
    /* 1 */ "[pool a]\n"
    /* 2 */ "model = DGX-H100\n"
    /* 3 */ "count = 1\n"
    /* 4 */ "[workload]\n"
    /* 5 */ "rate = 1/h\njobs = 1\ngpus = 1\nduration = constant(1h)\n",
    SIM_ERROR_MISSING, 0, { "missing section [scenario]" } },
  { 0, NULL,
    /* 1 */ "[scenario]\n"
    /* 2 */ "name = x\n"
    /* 3 */ "horizon = 1d\n"
    /* 4 */ "[pool a]\n"
    /* 5 */ "model = DGX-H100\n"
    /* 6 */ "count = 1\n",
    SIM_ERROR_MISSING, 0, { "missing section [workload]", "synthetic, swf, philly, helios, slurm, openb, pai, gavel or native" } },
  { 0, NULL,
    /* 1 */ "[scenario]\n"
    /* 2 */ "name = x\n"
    /* 3 */ "horizon = 1d\n"
    /* 4 */ "[workload]\n"
    /* 5 */ "rate = 1/h\ngpus = 1\nduration = constant(1h)\n",
    SIM_ERROR_MISSING, 0, { "no [pool NAME] section", "at least one pool" } },
  /* Duplicates, which GKeyFile would merge silently (the last one winning):
   * a second [pool h100] would turn the cluster into DGX A100s. */
  { 10, "[pool h100]\nmodel = DGX-A100", NULL, SIM_ERROR_PARSE, 10,
    { "[pool h100]", "duplicate section", "first appears at line 7" } },
  { 14, "rate = 40/h", NULL, SIM_ERROR_PARSE, 14,
    { "[workload] rate:", "duplicate key", "first set at line 13" } },
  { 24, "[class small]\ngpus = 4", NULL, SIM_ERROR_PARSE, 24,
    { "[class small]", "duplicate section", "line 16" } },
  /* Keys. */
  { 13, "rat = 3/h", NULL, SIM_ERROR_UNKNOWN_KEY, 13,
    { "[workload] rat:", "unknown key", "did you mean \"rate\"?" } },
  { 17, "shares = 0.7", NULL, SIM_ERROR_UNKNOWN_KEY, 17,
    { "[class small] shares:", "did you mean \"share\"?" } },
  { 6, "colour = blue", NULL, SIM_ERROR_UNKNOWN_KEY, 6,
    { "[scenario] colour:", "unknown key (known: name, description, seed" } },
  { 3, "# no name", NULL, SIM_ERROR_MISSING, 2,
    { "[scenario] name:", "missing key", "the scenario's name" } },
  { 3, "name =", NULL, SIM_ERROR_MISSING, 3, { "[scenario] name:", "missing key" } },
  { 8, "# no model", NULL, SIM_ERROR_MISSING, 7,
    { "[pool h100] model:", "missing key", "node model" } },
  { 9, "# no count", NULL, SIM_ERROR_MISSING, 7,
    { "[pool h100] count:", "missing key", "number of nodes" } },
  /* Values. */
  { 9, "count = 0", NULL, SIM_ERROR_INVALID, 9,
    { "[pool h100] count:", "out of range", "from 1" } },
  { 9, "count = many", NULL, SIM_ERROR_PARSE, 9,
    { "[pool h100] count:", "\"many\" is not an integer" } },
  { 10, "gpus_per_node = 0", NULL, SIM_ERROR_INVALID, 10,
    { "[pool h100] gpus_per_node:", "out of range" } },
  { 13, "rate = 30", NULL, SIM_ERROR_PARSE, 13,
    { "[workload] rate:", "\"30\" has no unit", "such as \"30/h\"" } },
  { 13, "rate = 30/fortnight", NULL, SIM_ERROR_PARSE, 13,
    { "[workload] rate:", "unknown unit", "fortnight" } },
  { 13, "rate = 0/h", NULL, SIM_ERROR_INVALID, 13, { "[workload] rate:", "positive rate" } },
  { 13, "rate =", NULL, SIM_ERROR_MISSING, 13, { "[workload] rate:", "arrival rate" } },
  { 5, "horizon = -5d", NULL, SIM_ERROR_PARSE, 5, { "[scenario] horizon:", "\"-5d\"" } },
  { 5, "horizon = 0s", NULL, SIM_ERROR_INVALID, 5,
    { "[scenario] horizon:", "\"0s\" is zero", "positive duration" } },
  { 5, "horizon = 5", NULL, SIM_ERROR_PARSE, 5, { "[scenario] horizon:", "has no unit" } },
  { 4, "seed = abc", NULL, SIM_ERROR_PARSE, 4,
    { "[scenario] seed:", "\"abc\" is not a seed", "non-negative integer" } },
  { 4, "seed = -1", NULL, SIM_ERROR_PARSE, 4, { "[scenario] seed:", "is not a seed" } },
  { 15, "daily_profile = " PROFILE_23, NULL, SIM_ERROR_PARSE, 15,
    { "[workload] daily_profile:", "23 values", "expected 24 hourly multipliers" } },
  { 15, "daily_profile = " PROFILE_0, NULL, SIM_ERROR_INVALID, 15,
    { "[workload] daily_profile:", "all 24 multipliers are 0" } },
  { 15, "daily_profile = x, " PROFILE_23, NULL, SIM_ERROR_PARSE, 15,
    { "[workload] daily_profile:", "hour 0:" } },
  { 18, "gpus = 1:0.5, two:0.5", NULL, SIM_ERROR_PARSE, 18,
    { "[class small] gpus:", "item 2", "\"two\" is not an integer" } },
  { 18, "gpus = 1:0, 2:0", NULL, SIM_ERROR_INVALID, 18,
    { "[class small] gpus:", "the weights add up to 0" } },
  { 18, "gpus = 1:0.5, 2", NULL, SIM_ERROR_PARSE, 18,
    { "[class small] gpus:", "item 2", "has no weight", "GPUS:WEIGHT" } },
  { 18, "gpus = 1:x", NULL, SIM_ERROR_PARSE, 18, { "[class small] gpus:", "weight" } },
  { 18, "gpus = 0", NULL, SIM_ERROR_INVALID, 18, { "[class small] gpus:", "out of range" } },
  { 19, "duration = lognormal(median=1h)", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "lognormal(median=DURATION, sigma=NUMBER)" } },
  { 19, "duration = lognormal(median=1h, sigma=1, sigma=2)", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "sigma is given twice" } },
  { 19, "duration = lognormal(median=1h, median=2h, sigma=1)", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "median is given twice" } },
  { 19, "duration = constant(1h, 5h)", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "2 arguments", "one argument" } },
  { 19, "duration = constant(1e-20s)", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "\"1e-20s\" is not a positive duration of at least 1 ns" } },
  { 19, "duration = exponential(mean=400000d)", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "is too long" } },
  { 19, "duration = lognormal(median=1h, sigma=1, mu=2)", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "unknown parameter \"mu=2\"" } },
  { 19, "duration = lognormal(median=1, sigma=1)", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "median:", "has no unit" } },
  { 19, "duration = gamma(2)", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "unknown distribution \"gamma\"", "lognormal" } },
  { 19, "duration = 2h", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "is not a distribution" } },
  { 19, "duration = empirical()", NULL, SIM_ERROR_PARSE, 19,
    { "[class small] duration:", "at least one DURATION" } },
  { 14, "duration = constant(0s)", NULL, SIM_ERROR_PARSE, 14,
    { "[workload] duration:", "positive duration" } },
  { 14, "# no default duration", NULL, SIM_ERROR_MISSING, 21,
    { "[class big]", "missing key duration", "here or in [workload]" } },
  { 23, "# no gpus", NULL, SIM_ERROR_MISSING, 21, { "[class big]", "missing key gpus" } },
  { 22, "share = 0", NULL, SIM_ERROR_INVALID, 22, { "[class big] share:", "positive" } },
  { 15, "estimate_factor = -1", NULL, SIM_ERROR_INVALID, 15,
    { "[workload] estimate_factor:", "out of range" } },
  { 5, "# no horizon", NULL, SIM_ERROR_MISSING, 0,
    { "never ends", "[workload] jobs", "[scenario] horizon" } },
  { 15, "jobs = 0", NULL, SIM_ERROR_INVALID, 15, { "[workload] jobs:", "out of range" } },
  { 15, "trace = x.swf", NULL, SIM_ERROR_INVALID, 15,
    { "[workload] trace:", "applies only to trace sources" } },
  { 15, "processors_per_gpu = 2", NULL, SIM_ERROR_INVALID, 15,
    { "[workload] processors_per_gpu:", "applies only to source = swf" } },
  { 12, "source = swf", NULL, SIM_ERROR_INVALID, 13,
    { "[workload] rate:", "applies only to source = synthetic" } },
  { 12, "source = csv", NULL, SIM_ERROR_INVALID, 12,
    { "[workload] source:", "\"csv\" is not a workload source", "synthetic, swf, philly, helios, slurm, openb, pai, gavel or native" } },
  { 0, NULL,
    /* 1 */ "[scenario]\n"
    /* 2 */ "name = t\n"
    /* 3 */ "[pool a]\n"
    /* 4 */ "model = DGX-H100\n"
    /* 5 */ "count = 1\n"
    /* 6 */ "[workload]\n"
    /* 7 */ "source = swf\n"
    /* 8 */ "rebase_time = sometimes\n",
    SIM_ERROR_MISSING, 6, { "[workload] trace:", "the path of the trace file" } },
  { 0, NULL,
    /* 1 */ "[scenario]\n"
    /* 2 */ "name = t\n"
    /* 3 */ "[pool a]\n"
    /* 4 */ "model = DGX-H100\n"
    /* 5 */ "count = 1\n"
    /* 6 */ "[workload]\n"
    /* 7 */ "source = swf\n"
    /* 8 */ "trace = t.swf\n"
    /* 9 */ "rebase_time = sometimes\n",
    SIM_ERROR_PARSE, 9, { "[workload] rebase_time:", "not a boolean" } },
  { 0, NULL,
    /* 1 */ "[scenario]\n"
    /* 2 */ "name = t\n"
    /* 3 */ "[pool a]\n"
    /* 4 */ "model = DGX-H100\n"
    /* 5 */ "count = 1\n"
    /* 6 */ "[workload]\n"
    /* 7 */ "source = swf\n"
    /* 8 */ "trace = t.swf\n"
    /* 9 */ "processors_per_gpu = 0\n",
    SIM_ERROR_INVALID, 9, { "[workload] processors_per_gpu:", "positive number" } },
  { 6, "this line has no equals sign", NULL, SIM_ERROR_PARSE, 6,
    { "not a valid key file", "this line has no equals sign" } },
  { 1, "key = before any group", NULL, SIM_ERROR_PARSE, 1, { "not a valid key file" } },
  { 17, "share = 0.7 \xff", NULL, SIM_ERROR_PARSE, 17, { "not UTF-8 text" } },
  { 31, "jobs = maybe", NULL, SIM_ERROR_PARSE, 31,
    { "[output] jobs:", "\"maybe\" is not a boolean", "true or false" } },
  { 30, "timeseries_interval = 0s", NULL, SIM_ERROR_INVALID, 30,
    { "[output] timeseries_interval:", "positive duration" } },
};

/* Builds a row's text: base_text with line @edit_line replaced. */
static char *
row_text (const BadRow *row)
{
  g_auto(GStrv) lines = NULL;

  if (row->edit_line == 0)
    return g_strdup (row->text);
  lines = g_strsplit (base_text, "\n", -1);
  ck_assert_uint_le (row->edit_line, g_strv_length (lines));
  g_free (lines[row->edit_line - 1]);
  lines[row->edit_line - 1] = g_strdup (row->edit);
  return g_strjoinv ("\n", lines);
}

START_TEST (test_base_is_valid)
{
  g_autoptr(SimScenario) sc = load_ok (base_text, NULL);

  ck_assert_str_eq (sc->name, "base");
  ck_assert_uint_eq (sc->generator.n_classes, 2);
  ck_assert_int_eq (sc->generator.classes[1].duration.kind, SIM_DIST_CONSTANT);
}
END_TEST

START_TEST (test_bad_row)
{
  const BadRow *row = &bad_rows[_i];
  g_autofree char *text = row_text (row);
  g_autofree char *prefix = row->line > 0 ? g_strdup_printf ("bad.ini:%u: ", row->line)
                                          : g_strdup ("bad.ini: ");
  g_autoptr(GError) error = NULL;
  SimScenario *sc = sim_scenario_load_from_data (text, -1, "bad.ini", NULL, NULL, &error);

  ck_assert_msg (sc == NULL, "row %d was accepted:\n%s", _i, text);
  ck_assert_msg (error != NULL && error->domain == SIM_ERROR, "row %d: no SIM_ERROR", _i);
  ck_assert_msg (error->code == (int) row->code, "row %d: code %d, expected %d: %s", _i,
                 error->code, row->code, error->message);
  ck_assert_msg (g_str_has_prefix (error->message, prefix),
                 "row %d: \"%s\" does not begin with \"%s\"", _i, error->message, prefix);
  for (guint k = 0; k < G_N_ELEMENTS (row->needles) && row->needles[k] != NULL; k++)
    ck_assert_msg (strstr (error->message, row->needles[k]) != NULL,
                   "row %d: \"%s\" does not contain \"%s\"", _i, error->message,
                   row->needles[k]);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Resolution: names looked up when a simulation is built.                   */

static const struct {
  const char *set;
  const char *needles[4];
} bad_names[] = {
  { "pool h100.model=DGX-H10",
    { "bad.ini: --set pool h100.model:", "no node model \"DGX-H10\"",
      "did you mean \"DGX-H100\"?" } },
  { "pool h100.gpu=H100-SXN",
    { "bad.ini: --set pool h100.gpu:", "no GPU model \"H100-SXN\"",
      "did you mean \"H100-SXM\"?" } },
  { "policy.placement=best-fits",
    { "bad.ini: --set policy.placement:", "\"best-fits\"", "did you mean \"best-fit\"?" } },
  { "policy.queue=fiffo",
    { "bad.ini: --set policy.queue:", "\"fiffo\"", "did you mean \"fifo\"?" } },
};

/* The same names written in the file: the message gives the line. */
START_TEST (test_resolution_bad_in_file)
{
  static const char *text =
    "[scenario]\n"            /* 1 */
    "name = in-file\n"        /* 2 */
    "horizon = 1d\n"          /* 3 */
    "[pool main]\n"           /* 4 */
    "count = 2\n"             /* 5 */
    "model = DGX-A10\n"       /* 6 */
    "[workload]\n"            /* 7 */
    "rate = 1/h\n"            /* 8 */
    "gpus = 1\n"              /* 9 */
    "duration = constant(1h)\n" /* 10 */
    "[policy]\n"              /* 11 */
    "placement = frist-fit\n"; /* 12 */
  const char *fix_model[] = { "pool main.model=DGX-A100", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "file.ini", NULL, NULL, &error);
  g_autoptr(SimScenario) sc2 = NULL;
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_ptr_null (sim);
  ck_assert_msg (g_str_has_prefix (error->message, "file.ini:6: [pool main] model: "), "%s",
                 error->message);
  ck_assert_msg (strstr (error->message, "did you mean \"DGX-A100\"?") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
  sc2 = sim_scenario_load_from_data (text, -1, "file.ini", NULL, fix_model, &error);
  ck_assert_ptr_nonnull (sc2);
  sim = sim_simulation_new (sc2, &error);
  ck_assert_ptr_null (sim);
  ck_assert_msg (g_str_has_prefix (error->message, "file.ini:12: [policy] placement: "), "%s",
                 error->message);
  ck_assert_msg (strstr (error->message, "did you mean \"first-fit\"?") != NULL, "%s",
                 error->message);
}
END_TEST

/* Class keys for policies and placement constraints, [fabric], [comm] and
 * [variant]: parsed to the exact values, or refused at the right line. */
START_TEST (test_newer_sections)
{
  static const char *text =
    "[scenario]\nname = n\nhorizon = 1d\n"            /* 1-3 */
    "[pool a]\nmodel = DGX-H100\ncount = 2\n"          /* 4-6 */
    "[workload]\nrate = 2/h\n"                          /* 7-8 */
    "[class c]\ngpus = 8\nduration = constant(1h)\n"   /* 9-11 */
    "priority = 3\ntenant = 2\ngpu_model = H100-SXM|H200-SXM\n" /* 12-14 */
    "iteration = 500ms\ngradient = 2GB\noverlap = 0.25\n"       /* 15-17 */
    "[fabric]\ntopology = fat-tree\nswitch = Quantum-2-QM9700\noversubscription = 2:1\n" /* 18-21 */
    "[comm mix]\nshare = 2\niteration = 1s\ngradient = 1GB\n"  /* 22-25 */
    "[variant wide]\nfabric.oversubscription = 4\npool a.count = 3\n"; /* 26-28 */
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "new.ini", NULL, NULL, &error);
  const SimJobClassConfig *c;
  const char *bad_fabric[] = { "fabric.topolgy=fat-tree", NULL };
  const char *bad_overlap[] = { "class c.overlap=2", NULL };
  const char *bad_variant[] = { "variant wide.oversubscription=4", NULL };

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  c = &sc->generator.classes[0];
  ck_assert_int_eq (c->priority, 3);
  ck_assert_uint_eq (c->tenant, 2);
  ck_assert_str_eq (c->gpu_models, "H100-SXM|H200-SXM");
  ck_assert_int_eq (c->comm.iteration, 500 * SIM_MILLISECOND);
  ck_assert_uint_eq (c->comm.dp_bytes, 2000000000ull);
  ck_assert_double_eq (c->comm.overlap, 0.25);
  ck_assert_uint_eq (c->comm.tp, 1);
  ck_assert_int_eq (sc->fabric.kind, SIM_FABRIC_FAT_TREE);
  ck_assert_double_eq (sc->fabric.oversubscription, 2);
  ck_assert_uint_eq (sc->n_comm_mix, 1);
  ck_assert_double_eq (sc->comm_mix[0].share, 2);
  ck_assert_uint_eq (sc->comm_mix[0].profile.dp_bytes, 1000000000ull);
  ck_assert_uint_eq (sc->n_variants, 1);
  ck_assert_str_eq (sc->variants[0].name, "wide");
  ck_assert_str_eq (sc->variants[0].overrides[0], "[variant wide]");
  ck_assert_str_eq (sc->variants[0].overrides[1], "fabric.oversubscription=4");
  ck_assert_str_eq (sc->variants[0].overrides[2], "pool a.count=3");

  g_clear_pointer (&sc, sim_scenario_unref);
  sc = sim_scenario_load_from_data (text, -1, "new.ini", NULL, bad_fabric, &error);
  ck_assert_ptr_null (sc);
  ck_assert_msg (strstr (error->message, "did you mean \"topology\"?") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
  sc = sim_scenario_load_from_data (text, -1, "new.ini", NULL, bad_overlap, &error);
  ck_assert_ptr_null (sc);
  ck_assert_msg (strstr (error->message, "--set class c.overlap:") != NULL, "%s", error->message);
  g_clear_error (&error);
  /* A variant key without a section. */
  sc = sim_scenario_load_from_data (text, -1, "new.ini", NULL, bad_variant, &error);
  ck_assert_ptr_null (sc);
  ck_assert_msg (strstr (error->message, "expected SECTION.KEY = VALUE") != NULL, "%s",
                 error->message);
}
END_TEST

/* [policy] passes other keys to the policy, which refuses those it does
 * not read, at the key's line. */
START_TEST (test_policy_key_unread)
{
  const char *sets[] = { "policy.timeseries=2", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (base_text, -1, "bad.ini", NULL, sets,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_ptr_null (sim);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY));
  ck_assert_msg (strstr (error->message, "bad.ini: --set policy.timeseries:") != NULL, "%s",
                 error->message);
  ck_assert_msg (strstr (error->message, "does not read this key") != NULL, "%s", error->message);
}
END_TEST

START_TEST (test_resolution_ok)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = load_ok (base_text, NULL);
  g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);

  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_cluster_get_n_gpus (sim_simulation_get_cluster (sim)), 16);
}
END_TEST

START_TEST (test_resolution_bad)
{
  const char *sets[] = { bad_names[_i].set, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (base_text, -1, "bad.ini", NULL, sets,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "--set %s: %s", sets[0], error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim == NULL, "--set %s: accepted", sets[0]);
  ck_assert_msg (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND), "--set %s: %s (%d)",
                 sets[0], error->message, error->code);
  for (guint k = 0; k < G_N_ELEMENTS (bad_names[_i].needles) && bad_names[_i].needles[k]; k++)
    ck_assert_msg (strstr (error->message, bad_names[_i].needles[k]) != NULL,
                   "\"%s\" does not contain \"%s\"", error->message, bad_names[_i].needles[k]);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Mutations.                                                                */

#define N_MUTATIONS 2000

/* Applies one random edit to @text (which it frees) and returns the result. */
static char *
mutate (GRand *rand, char *text)
{
  gsize len = strlen (text);
  GString *s;
  gsize at;

  if (len == 0)
    return text;
  s = g_string_new (text);
  g_free (text);
  at = (gsize) g_rand_int_range (rand, 0, (gint32) len);
  switch (g_rand_int_range (rand, 0, 9))
    {
    case 0: /* Delete a character. */
      g_string_erase (s, (gssize) at, 1);
      break;
    case 1: /* Insert a random byte other than NUL. */
      g_string_insert_c (s, (gssize) at, (char) g_rand_int_range (rand, 1, 256));
      break;
    case 2: /* Insert a character the syntax cares about. */
      g_string_insert_c (s, (gssize) at, "[]=#,:()/ \n\t;\\"[g_rand_int_range (rand, 0, 15)]);
      break;
    case 3: /* Swap '=' for ':' (or ':' for '='). */
      {
        const char *from = g_rand_boolean (rand) ? "=" : ":";
        char *p = strstr (s->str + at, from);
        if (p != NULL)
          *p = *from == '=' ? ':' : '=';
      }
      break;
    case 4: /* Truncate. */
      g_string_truncate (s, at);
      break;
    case 5: /* Duplicate the line that holds @at. */
    case 6: /* Delete the line that holds @at. */
      {
        gsize start = at, end = at;
        g_autofree char *line = NULL;
        while (start > 0 && s->str[start - 1] != '\n')
          start--;
        while (end < s->len && s->str[end] != '\n')
          end++;
        if (end < s->len)
          end++;
        line = g_strndup (s->str + start, end - start);
        if (g_rand_int_range (rand, 5, 7) == 5)
          g_string_insert (s, (gssize) end, line);
        else
          g_string_erase (s, (gssize) start, (gssize) (end - start));
      }
      break;
    case 7: /* Replace a digit by another, or a letter by a digit. */
      s->str[at] = g_ascii_isdigit (s->str[at]) || g_ascii_isalpha (s->str[at])
                     ? (char) ('0' + g_rand_int_range (rand, 0, 10)) : s->str[at];
      break;
    default: /* Swap two adjacent characters. */
      if (at + 1 < s->len)
        {
          char c = s->str[at];
          s->str[at] = s->str[at + 1];
          s->str[at + 1] = c;
        }
      break;
    }
  return g_string_free (s, FALSE);
}

START_TEST (test_mutations)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20240611);
  guint parsed = 0, failed = 0;

  for (guint i = 0; i < N_MUTATIONS; i++)
    {
      char *text = g_strdup (i % 2 ? base_text : good_text);
      g_autoptr(GError) error = NULL;
      g_autoptr(SimScenario) sc = NULL;
      guint edits = 1 + (guint) g_rand_int_range (rand, 0, 3);

      for (guint e = 0; e < edits; e++)
        text = mutate (rand, text);
      sc = sim_scenario_load_from_data (text, -1, "fuzz.ini", "/base", NULL, &error);
      if (sc != NULL)
        {
          ck_assert_msg (error == NULL, "mutation %u: parsed with an error set", i);
          ck_assert (sc->n_pools > 0 && sc->name != NULL);
          parsed++;
        }
      else
        {
          ck_assert_msg (error != NULL && error->domain == SIM_ERROR,
                         "mutation %u: failed without a SIM_ERROR:\n%s", i, text);
          ck_assert_msg (g_utf8_validate (error->message, -1, NULL),
                         "mutation %u: the message is not UTF-8:\n%s", i, text);
          ck_assert_msg (g_str_has_prefix (error->message, "fuzz.ini"),
                         "mutation %u: \"%s\" does not begin with the name:\n%s", i,
                         error->message, text);
          failed++;
        }
      g_free (text);
    }
  /* The mutations must exercise both outcomes. */
  ck_assert_uint_gt (parsed, N_MUTATIONS / 20);
  ck_assert_uint_gt (failed, N_MUTATIONS / 4);
}
END_TEST

static Suite *
scenario_suite (void)
{
  Suite *s = suite_create ("scenario");
  TCase *tc;

  tc = tcase_create ("good");
  tcase_add_test (tc, test_good_values);
  tcase_add_test (tc, test_good_defaults);
  tcase_add_test (tc, test_good_swf);
  tcase_add_test (tc, test_quickstart);
  tcase_add_test (tc, test_load_missing_file);
  suite_add_tcase (s, tc);

  tc = tcase_create ("overrides");
  tcase_add_test (tc, test_override_values);
  tcase_add_loop_test (tc, test_override_bad, 0, G_N_ELEMENTS (bad_overrides));
  suite_add_tcase (s, tc);

  tc = tcase_create ("bad");
  tcase_add_test (tc, test_base_is_valid);
  tcase_add_loop_test (tc, test_bad_row, 0, G_N_ELEMENTS (bad_rows));
  suite_add_tcase (s, tc);

  tc = tcase_create ("resolution");
  tcase_add_test (tc, test_resolution_ok);
  tcase_add_test (tc, test_policy_key_unread);
  tcase_add_test (tc, test_newer_sections);
  tcase_add_test (tc, test_resolution_bad_in_file);
  tcase_add_loop_test (tc, test_resolution_bad, 0, G_N_ELEMENTS (bad_names));
  suite_add_tcase (s, tc);

  tc = tcase_create ("mutations");
  tcase_add_test (tc, test_mutations);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (scenario_suite ());
  int failed;

  /* A critical warning (a g_return_if_fail that fired) is a failure. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  sim_init ();
  srunner_run_all (sr, CK_ENV);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
