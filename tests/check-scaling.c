/* check-scaling.c: speed-up curves, moldable jobs and throughput per GPU
 * model.
 *
 * What it checks:
 *  - Amdahl's law against its closed form, written out here;
 *  - a measured table against values worked by hand from Steffen's
 *    monotone interpolation (M. Steffen, Astron. Astrophys. 239, 443, 1990)
 *    and the linear piece of a two-point table;
 *  - the shipped molecular-dynamics and render classes land in their
 *    published ranges on 8 A100 (sources at each test);
 *  - a job's run time on N GPUs is duration x S(N_ref) / S(N) in a whole
 *    simulation, and a rigid job keeps its duration;
 *  - scaling = comm: the speed-up is the reference compute over an
 *    iteration of compute / N plus the all-reduce timed alone, composed by
 *    hand, in the curve and in a whole run, and falls as the gradient
 *    grows;
 *  - moldable jobs: each takes the largest count that fits when it starts
 *    (or the efficiency cap), within its range, and no GPU is ever held by
 *    two jobs;
 *  - a throughput table changes completion times on a heterogeneous
 *    cluster in the expected direction, and unlisted models fall back to
 *    the FP16 TFLOPS ratio;
 *  - bad input gets an error naming the file, the line and the key.
 * What it does not check: the collectives model (check-collective does).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <sim.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* The curves alone.                                                         */

START_TEST (test_amdahl_closed_form)
{
  const double fractions[] = { 0, 0.01, 0.065, 0.3, 0.9 };
  const guint counts[] = { 1, 2, 3, 4, 8, 64, 1024 };
  SimScaling s = { 0 };

  s.kind = SIM_SCALING_AMDAHL;
  for (guint i = 0; i < G_N_ELEMENTS (fractions); i++)
    for (guint j = 0; j < G_N_ELEMENTS (counts); j++)
      {
        double f = fractions[i], n = counts[j];
        /* Amdahl: the serial part f does not shrink, the rest shrinks as 1/N. */
        double expected = 1.0 / (f + (1.0 - f) / n);
        s.serial_fraction = f;
        ck_assert (sim_scaling_validate (&s, NULL));
        ck_assert_double_eq_tol (sim_scaling_speedup (&s, counts[j]), expected, 1e-12);
      }
  /* s = 0.065: 1 / (0.065 + 0.935 / 8) = 5.4983, and the bound 1/s. */
  s.serial_fraction = 0.065;
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 8), 5.4983, 1e-4);
  ck_assert_double_lt (sim_scaling_speedup (&s, 1000000), 1 / 0.065);
  /* Linear and comm (its compute part) are N. */
  s.kind = SIM_SCALING_LINEAR;
  ck_assert_double_eq (sim_scaling_speedup (&s, 7), 7);
  s.kind = SIM_SCALING_COMM;
  ck_assert_double_eq (sim_scaling_speedup (&s, 7), 7);
}
END_TEST

START_TEST (test_table_hand_values)
{
  g_autoptr(GError) error = NULL;
  SimScaling s = { 0 };

  /* (1, 1) implied; knots returned exactly. */
  ck_assert_msg (sim_scaling_parse_table ("2:1.98, 4:3.88, 8:7.28", &s, &error), "%s",
                 error ? error->message : "");
  ck_assert_int_eq (s.kind, SIM_SCALING_TABLE);
  ck_assert_uint_eq (s.n_points, 4);
  ck_assert_double_eq (sim_scaling_speedup (&s, 1), 1);
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 2), 1.98, 1e-12);
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 4), 3.88, 1e-12);
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 8), 7.28, 1e-12);
  /* Between knots, by hand.  Secants s0 = 0.98, s1 = 0.95, s2 = 0.85.
   * Steffen's slopes: ends take the secant (0.98, 0.85); inside,
   * y'_i = (sign s_{i-1} + sign s_i) min(|s_{i-1}|, |s_i|, |p_i| / 2) with
   * p_i = (s_{i-1} h_i + s_i h_{i-1}) / (h_{i-1} + h_i): p_1 = 0.97, so
   * y'_1 = 0.97; p_2 = 0.91667, y'_2 = 0.91667.  The Hermite cubic on
   * [2, 4] at 3: 1.98 + 0.97 + b + a with b = (3 s1 - 2 y'1 - y'2) / 2,
   * a = (y'1 + y'2 - 2 s1) / 4: 2.943333.  On [4, 8]: at 5 4.7675, at 6
   * 5.613333, at 7 6.4425. */
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 3), 2.9433333333, 1e-9);
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 5), 4.7675, 1e-9);
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 6), 5.6133333333, 1e-9);
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 7), 6.4425, 1e-9);
  /* Monotone everywhere, never above N, flat beyond the last point. */
  for (guint n = 2; n <= 16; n++)
    {
      ck_assert_double_ge (sim_scaling_speedup (&s, n), sim_scaling_speedup (&s, n - 1));
      ck_assert_double_le (sim_scaling_speedup (&s, n), n);
    }
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 64), 7.28, 1e-12);

  /* Two points: a straight line from (1, 1) to (4, 3). */
  ck_assert (sim_scaling_parse_table ("4:3", &s, NULL));
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 2), 1 + 2.0 / 3, 1e-12);
  ck_assert_double_eq_tol (sim_scaling_speedup (&s, 3), 1 + 4.0 / 3, 1e-12);
}
END_TEST

static const struct {
  const char *text;
  int code;
  const char *needle;
} bad_tables[] = {
  { "", SIM_ERROR_PARSE, "empty" },
  { "2:1.9, 4:1.5", SIM_ERROR_INVALID, "must not decrease" },
  { "2:2.5", SIM_ERROR_INVALID, "more than N times faster" },
  { "4:3, 2:1.9", SIM_ERROR_INVALID, "must increase" },
  { "1:0.8, 4:3", SIM_ERROR_INVALID, "1 by definition" },
  { "2.5:2", SIM_ERROR_INVALID, "whole number" },
  { "2-1.9", SIM_ERROR_PARSE, "GPUS:SPEEDUP" },
  { "2:x", SIM_ERROR_PARSE, "scaling point 1" },
  { "2:0", SIM_ERROR_INVALID, "positive" },
};

START_TEST (test_bad_tables)
{
  g_autoptr(GError) error = NULL;
  SimScaling s = { 0 };

  ck_assert_msg (!sim_scaling_parse_table (bad_tables[_i].text, &s, &error), "accepted \"%s\"",
                 bad_tables[_i].text);
  ck_assert_int_eq (error->code, bad_tables[_i].code);
  ck_assert_msg (strstr (error->message, bad_tables[_i].needle) != NULL, "\"%s\": %s",
                 bad_tables[_i].text, error->message);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Whole simulations.                                                        */

static SimSimulation *
build (const char *text, GError **error)
{
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "scaling.ini", NULL, NULL,
                                                           error);
  if (sc == NULL)
    return NULL;
  return sim_simulation_new (sc, error);
}

static SimSimulation *
build_ok (const char *text)
{
  g_autoptr(GError) error = NULL;
  SimSimulation *sim = build (text, &error);

  ck_assert_msg (sim != NULL, "%s\n%s", error ? error->message : "", text);
  return sim;
}

static SimSimulation *
load_file_ok (const char *relative)
{
  g_autofree char *path = g_build_filename (SIM_TOP_SRCDIR, relative, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (path, NULL, &error);
  SimSimulation *sim;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  return sim;
}

static guint
class_index (SimSimulation *sim, const char *name)
{
  for (guint c = 0; c < sim_simulation_get_n_classes (sim); c++)
    if (strcmp (sim_simulation_get_class_name (sim, c), name) == 0)
      return c;
  ck_abort_msg ("no class %s", name);
  return 0;
}

static double
class_speedup (SimSimulation *sim, const char *name, guint n)
{
  g_autoptr(GError) error = NULL;
  double v = 0;

  ck_assert_msg (sim_simulation_get_class_speedup (sim, class_index (sim, name), n, &v, &error),
                 "%s", error ? error->message : "");
  return v;
}

/* Molecular dynamics of about 100,000 atoms on 8 A100: 5-6 times as fast
 * as on one, the range the shipped scenario is calibrated to (no primary
 * measurement of that size on 8 A100 was retrieved; the sub-linear shape
 * is GROMACS's strong scaling with direct GPU communication and PME on its
 * own GPU, Pall et al., J. Chem. Phys. 153, 134110, 2020, and hpc.fau.de's
 * "Multi-GPU Gromacs Jobs on TinyGPU", 2021: 65k atoms at 1.72x on 4
 * GPUs).  A path-traced render on 8 GPUs: 7-8x, from V-Ray GPU's
 * multi-GPU scaling measured by Chaos (support.chaos.com, "Multi-GPU
 * scaling For CUDA and RTX modes", 2023: 88-95 % efficiency on 8 GPUs,
 * 91 % on average; 97 % on 4). */
START_TEST (test_published_ranges)
{
  g_autoptr(SimSimulation) md = load_file_ok ("scenarios/scaling-molecular-dynamics.ini");
  g_autoptr(SimSimulation) render = load_file_ok ("scenarios/scaling-render.ini");
  double s8 = class_speedup (md, "md", 8), r8 = class_speedup (render, "render", 8);
  double r4 = class_speedup (render, "render", 4);

  ck_assert_msg (s8 >= 5 && s8 <= 6, "MD on 8 A100: %.3fx, published 5-6x", s8);
  ck_assert_msg (r8 >= 7 && r8 <= 8, "render on 8 A100: %.3fx, published 7-8x", r8);
  ck_assert_msg (r8 / 8 >= 0.88 && r8 / 8 <= 0.95, "render efficiency on 8: %.3f", r8 / 8);
  ck_assert_msg (fabs (r4 / 4 - 0.97) < 0.005, "render efficiency on 4: %.3f", r4 / 4);
  /* Both run on A100 in these scenarios. */
  ck_assert_str_eq (sim_cluster_get_pool (sim_simulation_get_cluster (md), 0)->gpu_model->name,
                    "A100-SXM-40GB");
}
END_TEST

typedef struct {
  double run_s[64];   /* by job id: end - start, seconds */
  guint  gpus[64];
  guint  n_done;
  /* GPU ownership, to catch double allocation. */
  guint64 owner[1024];
  gboolean clash;
  gboolean rule_broken;
  guint  min_seen, max_seen;
  guint  below_max;
  guint  at_max;
} Record;

static void
observe (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Record *r = data;

  if (job->state == SIM_JOB_RUNNING)
    {
      for (guint i = 0; i < job->n_gpus; i++)
        {
          if (r->owner[job->gpus[i]] != 0)
            r->clash = TRUE;
          r->owner[job->gpus[i]] = job->spec.id;
        }
      if (job->spec.gpus_min > 0)
        {
          /* The rule: the largest count that fits.  On the cluster as it
           * was before the job started, the policy must fail to place one
           * more GPU for it. */
          if (job->n_gpus < job->spec.gpus)
            {
              g_autoptr(SimCluster) before = sim_cluster_copy (sim_simulation_get_cluster (sim));
              SimJob bigger = *job;
              guint32 buf[64];
              SimPlacement p = { 0 };
              sim_cluster_release (before, job->gpus, job->n_gpus, job->spec.gpu_milli);
              bigger.spec.gpus = job->n_gpus + 1;
              bigger.spec.gpus_min = 0;
              p.gpus = buf;
              p.n_gpus = bigger.spec.gpus;
              p.milli = job->spec.gpu_milli;
              if (sim_policy_place (sim_simulation_get_policy (sim), before, &bigger, &p))
                r->rule_broken = TRUE;
            }
          if (job->n_gpus < job->spec.gpus_min || job->n_gpus > job->spec.gpus)
            r->rule_broken = TRUE;
          r->min_seen = MIN (r->min_seen, job->n_gpus);
          r->max_seen = MAX (r->max_seen, job->n_gpus);
          if (job->n_gpus < job->spec.gpus)
            r->below_max++;
          else
            r->at_max++;
        }
    }
  else if (job->state == SIM_JOB_DONE)
    {
      for (guint i = 0; i < job->n_gpus; i++)
        r->owner[job->gpus[i]] = 0;
      if (job->spec.id < G_N_ELEMENTS (r->run_s))
        {
          r->run_s[job->spec.id] = sim_time_to_seconds (job->end - job->start);
          r->gpus[job->spec.id] = job->n_gpus;
        }
      r->n_done++;
    }
}

static void
run_recording (SimSimulation *sim, Record *r)
{
  g_autoptr(GError) error = NULL;

  memset (r, 0, sizeof *r);
  r->min_seen = G_MAXUINT;
  sim_simulation_set_job_observer (sim, observe, r, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
}

/* The run time of one lone job of CLASS_KEYS on one DGX A100. */
static double
lone_run (const char *class_keys)
{
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = lone\n"
    "[pool a]\nmodel = DGX-A100\ncount = 1\n"
    "[workload]\nrate = 1/h\njobs = 1\n"
    "[class c]\nduration = constant(1000s)\n%s\n", class_keys);
  g_autoptr(SimSimulation) sim = build_ok (text);
  Record r;

  run_recording (sim, &r);
  ck_assert_uint_eq (r.n_done, 1);
  return r.run_s[1];
}

START_TEST (test_duration_rescaled)
{
  double amdahl8 = 1 / (0.065 + 0.935 / 8), amdahl4 = 1 / (0.065 + 0.935 / 4);

  /* Rigid jobs keep their duration whatever the curve: it is measured on
   * the GPUs they ask for. */
  ck_assert_double_eq_tol (lone_run ("gpus = 8"), 1000, 1e-6);
  ck_assert_double_eq_tol (lone_run ("gpus = 8\nserial_fraction = 0.065"), 1000, 1e-6);
  /* reference_gpus = 1: duration / S(N). */
  ck_assert_double_eq_tol (lone_run ("gpus = 8\nreference_gpus = 1\nserial_fraction = 0.065"),
                           1000 / amdahl8, 1e-6);
  ck_assert_double_eq_tol (lone_run ("gpus = 4\nreference_gpus = 1\nserial_fraction = 0.065"),
                           1000 / amdahl4, 1e-6);
  /* Linear: duration x N_ref / N; naming it changes nothing; Amdahl on
   * the same job is slower. */
  ck_assert_double_eq_tol (lone_run ("gpus = 8\nreference_gpus = 2"), 250, 1e-6);
  ck_assert_double_eq_tol (lone_run ("gpus = 8\nreference_gpus = 1\nscaling = linear"), 125,
                           1e-6);
  ck_assert_double_gt (lone_run ("gpus = 8\nreference_gpus = 1\nscaling = amdahl\n"
                                 "serial_fraction = 0.01"), 125);
  /* Measured at 8, run on 4: S(8) / S(4) times longer. */
  ck_assert_double_eq_tol (lone_run ("gpus = 4\nreference_gpus = 8\nserial_fraction = 0.065"),
                           1000 * amdahl8 / amdahl4, 1e-6);
  /* A larger serial fraction makes the same job slower on 8 GPUs. */
  ck_assert_double_gt (lone_run ("gpus = 8\nreference_gpus = 1\nserial_fraction = 0.2"),
                       lone_run ("gpus = 8\nreference_gpus = 1\nserial_fraction = 0.065"));
  /* A table: duration / S(8). */
  ck_assert_double_eq_tol (lone_run ("gpus = 8\nreference_gpus = 1\nspeedup = 2:1.98, 4:3.88, "
                                     "8:7.28"), 1000 / 7.28, 1e-6);
  /* A lower measured point at 8 GPUs: slower. */
  ck_assert_double_gt (lone_run ("gpus = 8\nreference_gpus = 1\nspeedup = 2:1.98, 4:3.88, 8:6"),
                       1000 / 7.28);
}
END_TEST

#define COMM_TEXT \
  "[scenario]\nname = comm\n" \
  "[pool a]\nmodel = DGX-A100\ncount = 4\n" \
  "[fabric]\ntopology = single-switch\nswitch = Quantum-2-QM9700\n" \
  "[workload]\nrate = 1/h\njobs = 1\n" \
  "[class train]\ngpus = %u\nduration = constant(1000s)\nreference_gpus = 8\n" \
  "scaling = comm\niteration = 200ms\ngradient = %s\noverlap = 0\n"

/* The all-reduce of @bytes over GPUs 0 to @n - 1 of @sim's cluster, timed
 * alone on an empty copy of its fabric (one QM9700), in seconds. */
static double
allreduce_alone (SimSimulation *sim, guint64 bytes, guint n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) cat = sim_catalogue_new_default (NULL, &error);
  g_auto(SimFabricConfig) cfg = { 0 };
  g_autoptr(SimTopology) topo = NULL;
  g_autoptr(SimCommModel) model = NULL;
  g_autofree guint32 *gpus = g_new (guint32, n);
  SimCollectiveTiming t;

  for (guint i = 0; i < n; i++)
    gpus[i] = i;
  ck_assert (sim_fabric_config_set (&cfg, "topology", "single-switch", &error));
  ck_assert (sim_fabric_config_set (&cfg, "switch", "Quantum-2-QM9700", &error));
  topo = sim_topology_new (sim_simulation_get_cluster (sim), cat, &cfg, &error);
  ck_assert_msg (topo != NULL, "%s", error ? error->message : "");
  model = sim_comm_model_new (topo, sim_simulation_get_cluster (sim));
  ck_assert_msg (sim_collective_time (model, SIM_COLLECTIVE_ALL_REDUCE, SIM_COLLECTIVE_ALGO_AUTO,
                                      bytes, gpus, n, &t, &error), "%s",
                 error ? error->message : "");
  return t.time;
}

/* scaling = comm, composed by hand.  The class's iteration (200 ms) is
 * its compute at its reference count, 8 GPUs: 1.6 s on one GPU, 1.6 / N
 * on N, and with no overlap each iteration also waits for the all-reduce
 * of its gradient over the N GPUs, T(N) (timed alone on an empty copy of
 * the network: the collectives model is check-collective's), so
 *   S(N) = 1.6 / (1.6 / N + T(N)).
 * The 1,000 s of duration are 5,000 iterations of 200 ms of compute on 8
 * GPUs; on N GPUs each takes 1.6 / N + T(N), so the job runs
 *   5,000 x (1.6 / N + T(N)) s.
 * T(8) and T(16) must be positive and T(16) of 8 GB above T(16) of 1 GB,
 * which is what makes the speed-ups sub-linear and fall with the
 * gradient. */
START_TEST (test_comm_scaling)
{
  g_autofree char *small = g_strdup_printf (COMM_TEXT, 16, "1GB");
  g_autofree char *large = g_strdup_printf (COMM_TEXT, 16, "8GB");
  g_autoptr(SimSimulation) s1 = build_ok (small);
  g_autoptr(SimSimulation) s8 = build_ok (large);
  double a8 = class_speedup (s1, "train", 8), a16 = class_speedup (s1, "train", 16);
  double b16 = class_speedup (s8, "train", 16);
  double t8 = allreduce_alone (s1, 1000000000ull, 8), t16 = allreduce_alone (s1, 1000000000ull, 16);
  double t16_large = allreduce_alone (s8, 8000000000ull, 16);
  Record r16, r8;

  ck_assert_double_gt (t8, 0);
  ck_assert_double_gt (t16, 0);
  ck_assert_double_gt (t16_large, t16);
  ck_assert_double_eq (class_speedup (s1, "train", 1), 1);
  ck_assert_double_eq_tol (a8, 1.6 / (1.6 / 8 + t8), 1e-9);
  ck_assert_double_eq_tol (a16, 1.6 / (1.6 / 16 + t16), 1e-9);
  ck_assert_double_eq_tol (b16, 1.6 / (1.6 / 16 + t16_large), 1e-9);
  ck_assert_double_gt (a8, 1);
  ck_assert_double_lt (a8, 8);
  ck_assert_double_gt (a16, a8);
  ck_assert_double_lt (a16, 16);
  /* More gradient per iteration: less speed-up. */
  ck_assert_double_lt (b16, a16);

  /* Composition in a run: the job measured at 8 GPUs (duration = its
   * compute there) runs on 16: compute halves, the all-reduce over two
   * nodes is added; so it ends later than 500 s and earlier than a run on
   * 8 GPUs, which pays its all-reduce inside the node; each at the
   * 5,000 iterations worked out above (to a microsecond a run). */
  run_recording (s1, &r16);
  {
    g_autofree char *eight = g_strdup_printf (COMM_TEXT, 8, "1GB");
    g_autoptr(SimSimulation) e = build_ok (eight);
    run_recording (e, &r8);
  }
  ck_assert_double_gt (r16.run_s[1], 500);
  ck_assert_double_lt (r16.run_s[1], r8.run_s[1]);
  ck_assert_double_gt (r8.run_s[1], 1000);
  ck_assert_double_eq_tol (r16.run_s[1], 5000 * (1.6 / 16 + t16), 1e-6);
  ck_assert_double_eq_tol (r8.run_s[1], 5000 * (1.6 / 8 + t8), 1e-6);
  ck_assert_uint_eq (r16.gpus[1], 16);
}
END_TEST

#define MOLDABLE_TEXT \
  "[scenario]\nname = moldable\nseed = %u\n" \
  "[pool a]\nmodel = DGX-A100\ncount = 2\n" \
  "[workload]\nrate = 6/h\njobs = 40\n" \
  "[class md]\ngpus = 2..8\nduration = lognormal(median=1h, sigma=0.5)\nreference_gpus = 1\n" \
  "serial_fraction = 0.065\n" \
  "[class small]\ngpus = 1:0.5, 3:0.5\nduration = lognormal(median=30min, sigma=0.5)\n" \
  "[policy]\nqueue = fifo\nplacement = %s\n%s\n"

START_TEST (test_moldable_largest_fit)
{
  static const char *placements[] = { "first-fit", "best-fit", "packing" };
  guint below = 0, at = 0;

  for (guint seed = 1; seed <= 3; seed++)
    for (guint p = 0; p < G_N_ELEMENTS (placements); p++)
      {
        g_autofree char *text = g_strdup_printf (MOLDABLE_TEXT, seed, placements[p], "");
        g_autoptr(SimSimulation) sim = build_ok (text);
        Record r;
        run_recording (sim, &r);
        ck_assert_msg (!r.clash, "a GPU was held by two jobs (%s)", placements[p]);
        ck_assert_msg (!r.rule_broken, "a moldable job took fewer GPUs than fit (%s)",
                       placements[p]);
        ck_assert_uint_eq (r.n_done, 40);
        ck_assert_uint_ge (r.min_seen, 2);
        ck_assert_uint_le (r.max_seen, 8);
        below += r.below_max;
        at += r.at_max;
      }
  /* Under this load some jobs start on fewer GPUs and some on all 8. */
  ck_assert_uint_gt (below, 0);
  ck_assert_uint_gt (at, 0);
}
END_TEST

START_TEST (test_moldable_efficiency)
{
  /* s = 0.065: efficiency 75.5 % on 6 GPUs, 71.9 % on 7, 68.7 % on 8. */
  g_autofree char *capped = g_strdup_printf (MOLDABLE_TEXT, 1, "first-fit",
                                             "moldable_efficiency = 0.75");
  g_autofree char *free_rule = g_strdup_printf (MOLDABLE_TEXT, 1, "first-fit", "");
  g_autoptr(SimSimulation) a = build_ok (capped);
  g_autoptr(SimSimulation) b = build_ok (free_rule);
  Record ra, rb;

  run_recording (a, &ra);
  run_recording (b, &rb);
  ck_assert (!ra.clash);
  ck_assert (!ra.rule_broken);
  ck_assert_uint_le (ra.max_seen, 6);
  ck_assert_uint_eq (rb.max_seen, 8);
}
END_TEST

/* Gavel's measured throughputs (stanford-futuredata/gavel,
 * scheduler/combined_throughputs_with_p100.json, isolated runs, steps/s):
 * ResNet-18 46.82 on V100 and 28.55 on P100, a ratio of 0.61, where the
 * FP16 TFLOPS ratio is 18.7 / 125 = 0.15. */
#define HETERO_TEXT \
  "[scenario]\nname = hetero\nseed = 3\n" \
  "[pool v100]\nmodel = PCIe-8GPU\ngpu = V100-16GB\ncount = 1\n" \
  "[pool p100]\nmodel = PCIe-8GPU\ngpu = P100\ncount = 1\n" \
  "[workload]\nrate = %s\njobs = %u\nreference_gpu = V100-16GB\n" \
  "[class resnet18]\ngpus = 1\nduration = constant(1000s)\n%s%s\n"

static double
hetero_run (const char *rate, guint jobs, const char *extra, const char *table, double *mean)
{
  g_autofree char *text = g_strdup_printf (HETERO_TEXT, rate, jobs, extra, table);
  g_autoptr(SimSimulation) sim = build_ok (text);
  Record r;
  double sum = 0;

  run_recording (sim, &r);
  ck_assert_uint_eq (r.n_done, jobs);
  for (guint i = 1; i <= jobs && i < G_N_ELEMENTS (r.run_s); i++)
    sum += r.run_s[i];
  if (mean != NULL)
    {
      double jct = 0;
      ck_assert (sim_report_get_value (sim_simulation_get_report (sim), "jct_mean", &jct));
      *mean = jct;
    }
  return sum / jobs;
}

START_TEST (test_throughput_table)
{
  const char *gavel = "throughput = V100-16GB:46.82, P100:28.55\n";
  double flops_p100, thr_p100, thr_v100, fallback, jct_flops, jct_thr;

  /* One job held to the P100: FP16 ratio, then the table. */
  flops_p100 = hetero_run ("1/h", 1, "gpu_model = P100\n", "", NULL);
  thr_p100 = hetero_run ("1/h", 1, "gpu_model = P100\n", gavel, NULL);
  ck_assert_double_eq_tol (flops_p100, 1000 / (18.7 / 125), 1e-3);
  ck_assert_double_eq_tol (thr_p100, 1000 * 46.82 / 28.55, 1e-3);
  /* On the reference model the table changes nothing. */
  thr_v100 = hetero_run ("1/h", 1, "gpu_model = V100-16GB\n", gavel, NULL);
  ck_assert_double_eq_tol (thr_v100, 1000, 1e-6);
  /* A model the table does not list falls back to the TFLOPS ratio. */
  fallback = hetero_run ("1/h", 1, "gpu_model = P100\n",
                         "throughput = V100-16GB:46.82, A100-SXM-80GB:80\n", NULL);
  ck_assert_double_eq_tol (fallback, flops_p100, 1e-6);
  /* A job over both pools goes at its slowest GPUs' pace (the P100s,
   * whichever node comes first). */
  {
    g_autoptr(SimSimulation) sim = build_ok (
      "[scenario]\nname = hetero\nseed = 3\n"
      "[pool v100]\nmodel = PCIe-8GPU\ngpu = V100-16GB\ncount = 1\n"
      "[pool p100]\nmodel = PCIe-8GPU\ngpu = P100\ncount = 1\n"
      "[workload]\nrate = 1/h\njobs = 1\nreference_gpu = V100-16GB\n"
      "[class resnet18]\ngpus = 16\nduration = constant(1000s)\n");
    Record r;
    run_recording (sim, &r);
    ck_assert_uint_eq (r.n_done, 1);
    ck_assert_double_eq_tol (r.run_s[1], 1000 / (18.7 / 125), 1e-3);
  }
  /* Under load both pools are used: the measured table makes the P100
   * share of the work finish sooner, so the mean JCT falls. */
  hetero_run ("40/h", 60, "", "", &jct_flops);
  hetero_run ("40/h", 60, "", gavel, &jct_thr);
  ck_assert_msg (jct_thr < jct_flops, "JCT with the table %.1f s, without %.1f s", jct_thr,
                 jct_flops);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Bad input.                                                                */

#define BAD_BASE \
  /* 1 */ "[scenario]\n" \
  /* 2 */ "name = bad\n" \
  /* 3 */ "[pool a]\n" \
  /* 4 */ "model = DGX-A100\n" \
  /* 5 */ "count = 1\n" \
  /* 6 */ "[workload]\n" \
  /* 7 */ "rate = 1/h\njobs = 2\n" \
  /* 8 */ "[class c]\n" \
  /* 9 */ "duration = constant(1h)\n" \
  /* 10 */ "gpus = %s\n" \
  /* 11 */ "%s\n" \
  /* 12 */ "[policy]\n" \
  /* 13 */ "%s\n"

static const struct {
  const char *gpus, *key, *policy;
  guint line;
  const char *needles[3];
} bad_rows[] = {
  { "8", "serial_fraction = 1", "", 12, { "[class c] serial_fraction:", "[0, 1)" } },
  { "8", "serial_fraction = -0.1", "", 12, { "[class c] serial_fraction:", "[0, 1)" } },
  { "8", "speedup = 2:1.9, 4:1.5", "", 12, { "[class c] speedup:", "must not decrease" } },
  { "8", "speedup =", "", 12, { "[class c] speedup:", "empty" } },
  { "8", "speedup = 2:2.5, 4:3", "", 12, { "[class c] speedup:", "more than N times" } },
  { "8", "scaling = quadratic", "", 12, { "[class c] scaling:", "linear, amdahl, table or comm" } },
  { "8", "scaling = table", "", 12, { "[class c] scaling:", "measured points" } },
  { "8", "scaling = amdahl", "", 12, { "[class c] scaling:", "serial_fraction" } },
  { "8", "scaling = comm", "", 12, { "[class c] scaling:", "iteration" } },
  { "8", "scaling = linear\nserial_fraction = 0.1", "", 13,
    { "[class c] serial_fraction:", "scaling = amdahl" } },
  { "8", "reference_gpus = 0", "", 12, { "[class c] reference_gpus:", NULL } },
  { "8..4", "", "", 11, { "[class c] gpus:", "fewer to more" } },
  { "4..x", "", "", 11, { "[class c] gpus:", "MIN..MAX" } },
  { "8", "throughput = V100-16GB", "", 12, { "[class c] throughput:", "GPU-MODEL:THROUGHPUT" } },
  { "8", "throughput = A100-SXM-40GB:1, A100-SXM-40GB:2", "", 12,
    { "[class c] throughput:", "twice" } },
  { "8", "throughput = A100-SXM-40GB:-1", "", 12, { "[class c] throughput:", NULL } },
  { "4..8", "", "moldable_efficiency = 1.5", 14, { "[policy] moldable_efficiency:", "0 to 1" } },
};

START_TEST (test_bad_input)
{
  g_autofree char *text = g_strdup_printf (BAD_BASE, bad_rows[_i].gpus, bad_rows[_i].key,
                                           bad_rows[_i].policy);
  g_autofree char *prefix = g_strdup_printf ("scaling.ini:%u: ", bad_rows[_i].line);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSimulation) sim = build (text, &error);

  ck_assert_msg (sim == NULL, "row %d accepted:\n%s", _i, text);
  ck_assert_msg (g_str_has_prefix (error->message, prefix), "row %d: \"%s\" does not begin with "
                 "\"%s\"", _i, error->message, prefix);
  for (guint k = 0; k < G_N_ELEMENTS (bad_rows[_i].needles) && bad_rows[_i].needles[k]; k++)
    ck_assert_msg (strstr (error->message, bad_rows[_i].needles[k]) != NULL,
                   "row %d: \"%s\" lacks \"%s\"", _i, error->message, bad_rows[_i].needles[k]);
}
END_TEST

/* Errors found when the simulation is built, against the catalogue. */
START_TEST (test_bad_models)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *unknown = g_strdup_printf (BAD_BASE, "8", "throughput = A100-SXM-40GB:1, "
                                              "V100-16G:0.5", "");
  g_autofree char *no_ref = g_strdup_printf (BAD_BASE, "8", "throughput = V100-16GB:0.5", "");
  g_autofree char *comm_curve = g_strdup_printf (BAD_BASE, "8", "serial_fraction = 0.1\n"
                                                 "iteration = 100ms\ngradient = 1GB", "");
  g_autofree char *mig = g_strdup_printf (BAD_BASE, "1..2", "mig = 1g.5gb", "");
  SimSimulation *sim;

  sim = build (unknown, &error);
  ck_assert (sim == NULL);
  ck_assert_msg (g_str_has_prefix (error->message, "scaling.ini:12: [class c] throughput:") &&
                 strstr (error->message, "did you mean \"V100-16GB\"?") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
  sim = build (no_ref, &error);
  ck_assert (sim == NULL);
  ck_assert_msg (strstr (error->message, "scaling.ini:12: [class c] throughput:") != NULL &&
                 strstr (error->message, "reference GPU A100-SXM-40GB") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
  sim = build (comm_curve, &error);
  ck_assert (sim == NULL);
  ck_assert_msg (strstr (error->message, "already includes the job's communication") != NULL,
                 "%s", error->message);
  g_clear_error (&error);
  sim = build (mig, &error);
  ck_assert (sim == NULL);
  ck_assert_msg (strstr (error->message, "cannot be moldable") != NULL ||
                 strstr (error->message, "MIG job runs on one GPU") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
}
END_TEST

static Suite *
scaling_suite (void)
{
  Suite *s = suite_create ("scaling");
  TCase *tc = tcase_create ("core");

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_amdahl_closed_form);
  tcase_add_test (tc, test_table_hand_values);
  tcase_add_loop_test (tc, test_bad_tables, 0, G_N_ELEMENTS (bad_tables));
  tcase_add_test (tc, test_published_ranges);
  tcase_add_test (tc, test_duration_rescaled);
  tcase_add_test (tc, test_comm_scaling);
  tcase_add_test (tc, test_moldable_largest_fit);
  tcase_add_test (tc, test_moldable_efficiency);
  tcase_add_test (tc, test_throughput_table);
  tcase_add_loop_test (tc, test_bad_input, 0, G_N_ELEMENTS (bad_rows));
  tcase_add_test (tc, test_bad_models);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (scaling_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
