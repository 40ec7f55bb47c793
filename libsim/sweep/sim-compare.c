/* sim-compare.c: policies side by side: a plan, the thread executor, and
 * renders of the statistics of its results.
 *
 * The comparison owns a #SimPlan and, once run (or given results), a
 * #SimPlanResults; everything rendered reads the results through
 * sim_comparison_get_value(), so the output is the same bytes whichever
 * executor made them and on however many threads.
 */
#include "config.h"

#include "sweep/sim-compare.h"
#include "study/sim-executor.h"
#include "study/sim-plan.h"
#include "study/sim-stats.h"
#include "sweep/sim-sweep.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "report/sim-report.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

struct _SimComparison {
  GObject         parent_instance;

  SimPlan        *plan;
  guint           n_threads;
  double          level;
  char           *db_path;   /* a sweep database, or NULL */

  SimCompareProgressFunc progress;
  gpointer               progress_data;
  GDestroyNotify         progress_destroy;

  /* Set by sim_comparison_run() or sim_comparison_set_results(). */
  gboolean        ran;
  SimPlanResults *results;   /* NULL if a run failed */
};

G_DEFINE_FINAL_TYPE (SimComparison, sim_comparison, G_TYPE_OBJECT)

static void
sim_comparison_finalize (GObject *object)
{
  SimComparison *self = SIM_COMPARISON (object);

  if (self->progress_destroy != NULL)
    self->progress_destroy (self->progress_data);
  g_clear_object (&self->plan);
  g_clear_object (&self->results);
  g_free (self->db_path);
  G_OBJECT_CLASS (sim_comparison_parent_class)->finalize (object);
}

static void
sim_comparison_class_init (SimComparisonClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_comparison_finalize;
}

static void
sim_comparison_init (SimComparison *self)
{
  self->level = 0.95;
}

SimComparison *
sim_comparison_new_for_plan (SimPlan *plan)
{
  SimComparison *self;

  g_return_val_if_fail (SIM_IS_PLAN (plan), NULL);
  self = g_object_new (SIM_TYPE_COMPARISON, NULL);
  self->plan = g_object_ref (plan);
  return self;
}

SimComparison *
sim_comparison_new (const char *scenario_path, const char * const *overrides, GError **error)
{
  g_autoptr(SimPlan) plan = NULL;

  g_return_val_if_fail (scenario_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  plan = sim_plan_new (scenario_path, overrides, error);
  return plan != NULL ? sim_comparison_new_for_plan (plan) : NULL;
}

SimPlan *
sim_comparison_get_plan (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  return self->plan;
}

SimPlanResults *
sim_comparison_get_results (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  return self->results;
}

gboolean
sim_comparison_add_policy (SimComparison *self, const char *spec, GError **error)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (!self->ran, FALSE);
  return sim_plan_add_policy (self->plan, spec, error);
}

gboolean
sim_comparison_add_variant (SimComparison *self, const char *name, const char * const *overrides,
                            GError **error)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (!self->ran, FALSE);
  return sim_plan_add_variant (self->plan, name, overrides, error);
}

void
sim_comparison_add_metric (SimComparison *self, const char *metric)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  g_return_if_fail (!self->ran);
  sim_plan_add_metric (self->plan, metric);
}

void
sim_comparison_set_seeds (SimComparison *self, guint64 first, guint n_seeds)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  g_return_if_fail (!self->ran);
  sim_plan_set_seeds (self->plan, first, n_seeds);
}

void
sim_comparison_set_force (SimComparison *self, gboolean force)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  g_return_if_fail (!self->ran);
  sim_plan_set_force (self->plan, force);
}

void
sim_comparison_set_threads (SimComparison *self, guint n_threads)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  self->n_threads = n_threads;
}

void
sim_comparison_set_db (SimComparison *self, const char *db_path)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  g_return_if_fail (!self->ran);
  g_free (self->db_path);
  self->db_path = g_strdup (db_path);
}

void
sim_comparison_set_level (SimComparison *self, double level)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  g_return_if_fail (level > 0 && level < 1);
  self->level = level;
}

void
sim_comparison_set_progress_func (SimComparison *self, SimCompareProgressFunc func,
                                  gpointer user_data, GDestroyNotify destroy)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  if (self->progress_destroy != NULL)
    self->progress_destroy (self->progress_data);
  self->progress = func;
  self->progress_data = user_data;
  self->progress_destroy = destroy;
}

/* ---- running --------------------------------------------------------------- */

static void
forward_progress (guint done, guint total, gpointer data)
{
  SimComparison *self = data;

  self->progress (done, total, self->progress_data);
}

gboolean
sim_comparison_run (SimComparison *self, GError **error)
{
  g_autoptr(SimPlanResults) results = NULL;
  g_autoptr(SimExecutor) executor = NULL;
  g_autoptr(SimSweep) sweep = NULL;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (!self->ran, FALSE);

  if (!sim_plan_check (self->plan, error))
    return FALSE;
  /* The one-axis case of a sweep: the entries are the points. */
  sweep = sim_sweep_new_for_plan (self->plan, error);
  if (sweep == NULL)
    return FALSE;
  self->ran = TRUE;
  executor = sim_thread_executor_new (self->n_threads);
  if (self->progress != NULL)
    sim_executor_set_progress_func (executor, forward_progress, self, NULL);
  results = sim_sweep_run (sweep, executor, NULL, 0, self->db_path, NULL, error);
  if (results == NULL || !sim_plan_results_check (results, error))
    return FALSE;
  self->results = g_steal_pointer (&results);
  return TRUE;
}

gboolean
sim_comparison_set_results (SimComparison *self, SimPlanResults *results, GError **error)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (results), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (!self->ran, FALSE);

  if (!sim_plan_equal (self->plan, sim_plan_results_get_plan (results)))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the results are of another plan than the comparison's");
      return FALSE;
    }
  if (!sim_plan_results_check (results, error))
    return FALSE;
  self->ran = TRUE;
  self->results = g_object_ref (results);
  return TRUE;
}

/* ---- results ---------------------------------------------------------------- */

const char *
sim_comparison_get_scenario_name (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  return sim_plan_get_scenario_name (self->plan);
}

double
sim_comparison_get_level (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NAN);
  return self->level;
}

guint
sim_comparison_get_n_policies (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), 0);
  return sim_plan_get_n_entries (self->plan);
}

const char *
sim_comparison_get_policy_name (SimComparison *self, guint policy)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  return sim_plan_get_entry_label (self->plan, policy);
}

guint
sim_comparison_get_n_seeds (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), 0);
  return sim_plan_get_n_seeds (self->plan);
}

guint64
sim_comparison_get_seed (SimComparison *self, guint index)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), 0);
  return sim_plan_get_seed (self->plan, index);
}

guint
sim_comparison_get_n_metrics (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), 0);
  return sim_plan_get_n_metrics (self->plan);
}

const char *
sim_comparison_get_metric (SimComparison *self, guint metric)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  return sim_plan_get_metric (self->plan, metric);
}

const char *
sim_comparison_get_unit (SimComparison *self, guint metric)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (metric < sim_plan_get_n_metrics (self->plan), NULL);
  if (self->results == NULL)
    return NULL;
  return sim_plan_results_get_unit (self->results, metric);
}

double
sim_comparison_get_value (SimComparison *self, guint policy, guint metric, guint seed)
{
  guint n_seeds;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), NAN);
  n_seeds = sim_plan_get_n_seeds (self->plan);
  g_return_val_if_fail (policy < sim_plan_get_n_entries (self->plan), NAN);
  g_return_val_if_fail (metric < sim_plan_get_n_metrics (self->plan) && seed < n_seeds, NAN);
  if (self->results == NULL)
    return NAN;
  return sim_plan_results_get_value (self->results, policy * n_seeds + seed, metric);
}

/* The samples of POLICY and METRIC, one per seed: NAN for every one if a
 * run failed (so that no interval is defined). */
static double *
samples (SimComparison *self, guint policy, guint metric, guint *n)
{
  double *x;

  if (self->results != NULL)
    return sim_plan_results_dup_samples (self->results, policy, metric, n);
  *n = sim_plan_get_n_seeds (self->plan);
  x = g_new (double, *n);
  for (guint s = 0; s < *n; s++)
    x[s] = NAN;
  return x;
}

gboolean
sim_comparison_get_interval (SimComparison *self, guint policy, guint metric,
                             SimCompareInterval *interval)
{
  g_autofree double *x = NULL;
  guint n;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (policy < sim_plan_get_n_entries (self->plan), FALSE);
  g_return_val_if_fail (metric < sim_plan_get_n_metrics (self->plan) && interval != NULL, FALSE);
  g_return_val_if_fail (self->ran, FALSE);
  x = samples (self, policy, metric, &n);
  return sim_compare_interval (x, n, self->level, interval);
}

gboolean
sim_comparison_get_difference (SimComparison *self, guint policy, guint metric,
                               SimCompareInterval *interval)
{
  g_autofree double *x = NULL, *y = NULL;
  guint n;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (policy > 0 && policy < sim_plan_get_n_entries (self->plan), FALSE);
  g_return_val_if_fail (metric < sim_plan_get_n_metrics (self->plan) && interval != NULL, FALSE);
  g_return_val_if_fail (self->ran, FALSE);
  x = samples (self, 0, metric, &n);
  y = samples (self, policy, metric, &n);
  return sim_compare_paired_interval (x, y, n, self->level, interval);
}

/* ---- renders ------------------------------------------------------------------ */

/* Decimals that show about four significant digits of X (and of numbers
 * beside it of the same size), without an exponent. */
static int
decimals_for (double x)
{
  double ax = fabs (x);
  int d;

  if (!isfinite (ax))
    return 3;
  /* Zero is written as zero, not as 0.000. */
  if (ax == 0)
    return 0;
  d = 3 - (int) floor (log10 (ax));
  return CLAMP (d, 0, 6);
}

/* The larger of |A| and |B|, ignoring a non-finite one. */
static double
magnitude (double a, double b)
{
  a = isfinite (a) ? fabs (a) : 0;
  b = isfinite (b) ? fabs (b) : 0;
  return MAX (a, b);
}

/* X with DECIMALS decimals, an exact zero as "0"; a duration if UNIT is
 * "s" (sim_format_value(): a wait of 15,733 s reads 04:22:13). */
static char *
format_figure (double x, int decimals, const char *unit)
{
  if (g_strcmp0 (unit, "s") == 0)
    return sim_format_value (x, "s");
  if (x == 0)
    return g_strdup ("0");
  return g_strdup_printf ("%.*f", decimals, x);
}

/* "MEAN ± HALF-WIDTH" (a symmetric interval) or "MEAN [LOW, HIGH]" (an
 * asymmetric one) with about four significant digits, "MEAN" alone
 * without an interval, "n/a" without a mean; times in seconds (UNIT "s")
 * as durations. */
static char *
format_interval (const SimCompareInterval *ci, const char *unit)
{
  int decimals = decimals_for (magnitude (ci->mean, ci->half_width));
  g_autofree char *mean = NULL, *a = NULL, *b = NULL;

  if (!isfinite (ci->mean))
    return g_strdup ("n/a");
  mean = format_figure (ci->mean, decimals, unit);
  if (!isfinite (ci->half_width))
    return g_steal_pointer (&mean);
  if (!ci->symmetric)
    {
      a = format_figure (ci->low, decimals, unit);
      b = format_figure (ci->high, decimals, unit);
      return g_strdup_printf ("%s [%s, %s]", mean, a, b);
    }
  a = format_figure (ci->half_width, decimals, unit);
  return g_strdup_printf ("%s ± %s", mean, a);
}

/* Appends S padded with spaces to WIDTH characters (not bytes: "±" is two
 * bytes), on the left if RIGHT (right-aligned). */
static void
append_padded (GString *out, const char *s, guint width, gboolean right)
{
  glong len = g_utf8_strlen (s, -1);
  guint pad = len < (glong) width ? width - (guint) len : 0;

  if (right)
    for (guint i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
  g_string_append (out, s);
  if (!right)
    for (guint i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
}

/* One row of the table: a policy's mean and, after the baseline, its
 * difference, the relative change and a star if significant. */
typedef struct {
  char    *name;
  char    *mean;
  char    *diff;    /* NULL for the baseline */
  char    *change;
  gboolean star;
  gboolean identical; /* every run gave the same value: no interval */
} Row;

static void
row_clear (Row *row)
{
  g_free (row->name);
  g_free (row->mean);
  g_free (row->diff);
  g_free (row->change);
}

static void
make_row (SimComparison *self, guint p, guint m, Row *row)
{
  SimCompareInterval ci, d, base;

  sim_comparison_get_interval (self, p, m, &ci);
  row->name = g_strdup_printf ("  %s", sim_comparison_get_policy_name (self, p));
  row->mean = format_interval (&ci, sim_comparison_get_unit (self, m));
  row->identical = ci.identical;
  if (p == 0)
    return;
  sim_comparison_get_difference (self, p, m, &d);
  sim_comparison_get_interval (self, 0, m, &base);
  row->diff = format_interval (&d, sim_comparison_get_unit (self, m));
  if (d.mean == 0)
    row->change = g_strdup ("0%");
  else if (isfinite (d.mean) && isfinite (base.mean) && base.mean != 0)
    row->change = g_strdup_printf ("%+.1f%%", 100 * d.mean / fabs (base.mean));
  else
    row->change = g_strdup ("n/a");
  row->star = sim_compare_interval_excludes_zero (&d);
}

char *
sim_comparison_format_table (SimComparison *self)
{
  GString *out;
  guint np, nm, n_rows;
  guint name_width = 0, mean_width = 4, diff_width = 10, change_width = 6;
  gboolean any_star = FALSE;
  g_autoptr(GString) identical = g_string_new (NULL);
  g_autofree char *percent = NULL;
  g_autofree Row *rows = NULL;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (self->ran, NULL);

  np = sim_comparison_get_n_policies (self);
  nm = sim_comparison_get_n_metrics (self);
  n_rows = np * nm;
  percent = g_strdup_printf ("%g%%", self->level * 100);

  /* Every cell first, so that the columns line up. */
  rows = g_new0 (Row, n_rows);
  for (guint m = 0; m < nm; m++)
    for (guint p = 0; p < np; p++)
      {
        Row *row = &rows[m * np + p];
        make_row (self, p, m, row);
        name_width = MAX (name_width, (guint) g_utf8_strlen (row->name, -1) + 2);
        mean_width = MAX (mean_width, (guint) g_utf8_strlen (row->mean, -1));
        if (row->diff != NULL)
          {
            diff_width = MAX (diff_width, (guint) g_utf8_strlen (row->diff, -1));
            change_width = MAX (change_width, (guint) strlen (row->change));
          }
        any_star |= row->star;
      }

  out = g_string_new (NULL);
  g_string_append_printf (out, "scenario  %s\n", sim_comparison_get_scenario_name (self));
  if (sim_comparison_get_n_seeds (self) == 1)
    g_string_append_printf (out, "seed      %" G_GUINT64_FORMAT " (one run per policy: no "
                            "intervals)\n", sim_comparison_get_seed (self, 0));
  else
    g_string_append_printf (out, "seeds     %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                            " (%u runs per policy); %s confidence intervals ([low, high]: "
                            "bootstrap; ±: Student t)\n",
                            sim_comparison_get_seed (self, 0), sim_comparison_get_seed (self, 0) + sim_comparison_get_n_seeds (self) - 1,
                            sim_comparison_get_n_seeds (self), percent);
  if (np > 1)
    g_string_append_printf (out, "baseline  %s; differences are paired by seed "
                            "(policy - baseline)\n", sim_comparison_get_policy_name (self, 0));
  g_string_append_c (out, '\n');

  append_padded (out, "", name_width, FALSE);
  append_padded (out, "mean", mean_width, TRUE);
  if (np > 1)
    {
      g_string_append (out, "   ");
      append_padded (out, "difference", diff_width, TRUE);
      g_string_append (out, "   ");
      append_padded (out, "change", change_width, TRUE);
    }
  g_string_append_c (out, '\n');

  for (guint m = 0; m < nm; m++)
    {
      const char *unit = sim_comparison_get_unit (self, m);
      if (unit != NULL && unit[0] != '\0')
        g_string_append_printf (out, "%s (%s)\n", sim_comparison_get_metric (self, m), unit);
      else
        g_string_append_printf (out, "%s\n", sim_comparison_get_metric (self, m));
      guint n_identical = 0;

      for (guint p = 0; p < np; p++)
        n_identical += rows[m * np + p].identical;
      if (n_identical > 0)
        {
          g_string_append_printf (identical, "%s%s (", identical->len > 0 ? "; " : "",
                                  sim_comparison_get_metric (self, m));
          if (n_identical == np && np > 1)
            g_string_append (identical, "every entry");
          else
            for (guint p = 0, k = 0; p < np; p++)
              if (rows[m * np + p].identical)
                g_string_append_printf (identical, "%s%s", k++ > 0 ? ", " : "",
                                        sim_comparison_get_policy_name (self, p));
          g_string_append_c (identical, ')');
        }
      for (guint p = 0; p < np; p++)
        {
          Row *row = &rows[m * np + p];
          append_padded (out, row->name, name_width, FALSE);
          append_padded (out, row->mean, mean_width, TRUE);
          if (row->diff != NULL)
            {
              g_string_append (out, "   ");
              append_padded (out, row->diff, diff_width, TRUE);
              g_string_append (out, "   ");
              append_padded (out, row->change, change_width, TRUE);
              if (row->star)
                g_string_append (out, " *");
            }
          g_string_append_c (out, '\n');
          row_clear (row);
        }
    }
  if (any_star)
    g_string_append_printf (out, "\n* the difference's %s interval excludes 0\n", percent);
  if (identical->len > 0)
    g_string_append_printf (out, "\nwarning: every run gave the same value for %s: no "
                            "interval and no star there, as runs that do not vary say nothing "
                            "of the spread (a trace replayed whole is the same on every seed; "
                            "[workload] variation makes each seed a sample of it: "
                            "docs/statistics.md)\n", identical->str);
  return g_string_free (out, FALSE);
}

static void
add_number (JsonBuilder *b, const char *member, double v)
{
  json_builder_set_member_name (b, member);
  if (isfinite (v))
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

static void
add_interval (JsonBuilder *b, const SimCompareInterval *ci)
{
  add_number (b, "mean", ci->mean);
  add_number (b, "sd", ci->sd);
  add_number (b, "ci_low", ci->low);
  add_number (b, "ci_high", ci->high);
  add_number (b, "half_width", ci->half_width);
  json_builder_set_member_name (b, "identical");
  json_builder_add_boolean_value (b, ci->identical);
}

char *
sim_comparison_to_json (SimComparison *self, gboolean pretty)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (self->ran, NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "gpusim");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_set_member_name (b, "scenario");
  json_builder_add_string_value (b, sim_comparison_get_scenario_name (self));
  json_builder_set_member_name (b, "seeds");
  json_builder_begin_array (b);
  for (guint s = 0; s < sim_comparison_get_n_seeds (self); s++)
    json_builder_add_int_value (b, (gint64) (sim_comparison_get_seed (self, 0) + s));
  json_builder_end_array (b);
  /* As a percentage: 95.0 reads better than 0.94999999999999996. */
  json_builder_set_member_name (b, "confidence_percent");
  json_builder_add_double_value (b, self->level * 100);
  json_builder_set_member_name (b, "policies");
  json_builder_begin_array (b);
  for (guint p = 0; p < sim_comparison_get_n_policies (self); p++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, sim_plan_get_entry_label (self->plan, p));
      json_builder_set_member_name (b, "spec");
      json_builder_add_string_value (b, sim_plan_get_entry_spec (self->plan, p));
      json_builder_set_member_name (b, "baseline");
      json_builder_add_boolean_value (b, p == 0);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "metrics");
  json_builder_begin_array (b);
  for (guint m = 0; m < sim_comparison_get_n_metrics (self); m++)
    {
      const char *unit = sim_comparison_get_unit (self, m);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, sim_comparison_get_metric (self, m));
      json_builder_set_member_name (b, "unit");
      if (unit != NULL)
        json_builder_add_string_value (b, unit);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "policies");
      json_builder_begin_array (b);
      for (guint p = 0; p < sim_comparison_get_n_policies (self); p++)
        {
          SimCompareInterval ci;
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "policy");
          json_builder_add_string_value (b, sim_comparison_get_policy_name (self, p));
          json_builder_set_member_name (b, "values");
          json_builder_begin_array (b);
          for (guint s = 0; s < sim_comparison_get_n_seeds (self); s++)
            {
              double v = sim_comparison_get_value (self, p, m, s);
              if (isfinite (v))
                json_builder_add_double_value (b, v);
              else
                json_builder_add_null_value (b);
            }
          json_builder_end_array (b);
          sim_comparison_get_interval (self, p, m, &ci);
          add_interval (b, &ci);
          if (p > 0)
            {
              SimCompareInterval d, base;
              sim_comparison_get_difference (self, p, m, &d);
              sim_comparison_get_interval (self, 0, m, &base);
              json_builder_set_member_name (b, "difference");
              json_builder_begin_object (b);
              add_interval (b, &d);
              add_number (b, "relative", base.mean != 0 ? d.mean / fabs (base.mean) : NAN);
              json_builder_set_member_name (b, "excludes_zero");
              json_builder_add_boolean_value (b, sim_compare_interval_excludes_zero (&d));
              json_builder_end_object (b);
            }
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}

static void
append_csv_row (GString *out, const char *metric, const char *unit, const char *policy,
                const char *statistic, const char *seed, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  sim__csv_append_field (out, metric);
  g_string_append_c (out, ',');
  sim__csv_append_field (out, unit ? unit : "");
  g_string_append_c (out, ',');
  sim__csv_append_field (out, policy);
  g_string_append_c (out, ',');
  g_string_append (out, statistic);
  g_string_append_c (out, ',');
  g_string_append (out, seed);
  g_string_append_c (out, ',');
  if (isfinite (value))
    g_string_append (out, g_ascii_dtostr (buf, sizeof buf, value));
  g_string_append_c (out, '\n');
}

char *
sim_comparison_to_csv (SimComparison *self)
{
  GString *out;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (self->ran, NULL);

  out = g_string_new ("metric,unit,policy,statistic,seed,value\n");
  for (guint m = 0; m < sim_comparison_get_n_metrics (self); m++)
    {
      const char *metric = sim_comparison_get_metric (self, m);
      const char *unit = sim_comparison_get_unit (self, m);
      for (guint p = 0; p < sim_comparison_get_n_policies (self); p++)
        {
          const char *name = sim_comparison_get_policy_name (self, p);
          SimCompareInterval ci;

          for (guint s = 0; s < sim_comparison_get_n_seeds (self); s++)
            {
              char seed[32];
              g_snprintf (seed, sizeof seed, "%" G_GUINT64_FORMAT, sim_comparison_get_seed (self, 0) + s);
              append_csv_row (out, metric, unit, name, "value", seed, sim_comparison_get_value (self, p, m, s));
            }
          sim_comparison_get_interval (self, p, m, &ci);
          append_csv_row (out, metric, unit, name, "mean", "", ci.mean);
          append_csv_row (out, metric, unit, name, "sd", "", ci.sd);
          append_csv_row (out, metric, unit, name, "ci_low", "", ci.low);
          append_csv_row (out, metric, unit, name, "ci_high", "", ci.high);
          if (p > 0)
            {
              SimCompareInterval d;
              sim_comparison_get_difference (self, p, m, &d);
              append_csv_row (out, metric, unit, name, "diff_mean", "", d.mean);
              append_csv_row (out, metric, unit, name, "diff_sd", "", d.sd);
              append_csv_row (out, metric, unit, name, "diff_ci_low", "", d.low);
              append_csv_row (out, metric, unit, name, "diff_ci_high", "", d.high);
            }
        }
    }
  return g_string_free (out, FALSE);
}

gboolean
sim_comparison_write_csv (SimComparison *self, const char *path, GError **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (self->ran, FALSE);
  text = sim_comparison_to_csv (self);
  return sim__write_file_atomic (path, text, -1, error);
}
