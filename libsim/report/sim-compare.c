/* sim-compare.c: statistics over seeds, and runs of policies side by side.
 *
 * Runs are independent (each loads the scenario, builds its own
 * simulation and policy, and keeps nothing shared but the read-only
 * comparison), so they go on a GThreadPool with no locking beyond the
 * plugin table.  Each run writes its figures into its own slot, indexed
 * by (policy, seed), and renders are made from the slots in index order:
 * the output is the same bytes for any number of threads.
 *
 * When a run fails, runs with a higher index that have not started are
 * skipped, but lower ones still run; the error reported is thus always
 * that of the lowest failing index, whatever the timing.
 */
#include "config.h"

#include "report/sim-compare.h"
#include "report/sim-report.h"
#include "sched/sim-plugin.h"
#include "sched/sim-policy.h"
#include "sim-error.h"
#include "sim-scenario.h"
#include "sim-simulation.h"
#include "sim-util.h"

#include <gsl/gsl_cdf.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Statistics.                                                                */

static gpointer
interval_copy (gpointer interval)
{
  return g_memdup2 (interval, sizeof (SimCompareInterval));
}

G_DEFINE_BOXED_TYPE (SimCompareInterval, sim_compare_interval, interval_copy, g_free)

double
sim_compare_t_quantile (double level, guint df)
{
  g_return_val_if_fail (level > 0 && level < 1, NAN);
  g_return_val_if_fail (df >= 1, NAN);
  return gsl_cdf_tdist_Pinv ((1 + level) / 2, (double) df);
}

gboolean
sim_compare_interval (const double *samples, guint n, double level,
                      SimCompareInterval *interval)
{
  double sum = 0, ss = 0, mean, hw;

  g_return_val_if_fail (samples != NULL && n >= 1, FALSE);
  g_return_val_if_fail (level > 0 && level < 1, FALSE);
  g_return_val_if_fail (interval != NULL, FALSE);

  interval->n = n;
  interval->mean = interval->sd = interval->half_width = NAN;
  interval->low = interval->high = NAN;
  for (guint i = 0; i < n; i++)
    {
      if (!isfinite (samples[i]))
        return FALSE;
      sum += samples[i];
    }
  /* Two passes: the deviations are summed after the mean is known, which
   * loses nothing to cancellation when the spread is small. */
  mean = sum / n;
  interval->mean = mean;
  if (n < 2)
    return FALSE;
  for (guint i = 0; i < n; i++)
    ss += (samples[i] - mean) * (samples[i] - mean);
  interval->sd = sqrt (ss / (n - 1));
  hw = sim_compare_t_quantile (level, n - 1) * interval->sd / sqrt ((double) n);
  interval->half_width = hw;
  interval->low = mean - hw;
  interval->high = mean + hw;
  return TRUE;
}

gboolean
sim_compare_paired_interval (const double *baseline, const double *other, guint n, double level,
                             SimCompareInterval *interval)
{
  g_autofree double *d = NULL;

  g_return_val_if_fail (baseline != NULL && other != NULL && n >= 1, FALSE);
  g_return_val_if_fail (level > 0 && level < 1, FALSE);
  g_return_val_if_fail (interval != NULL, FALSE);
  d = g_new (double, n);
  for (guint i = 0; i < n; i++)
    d[i] = other[i] - baseline[i];
  return sim_compare_interval (d, n, level, interval);
}

gboolean
sim_compare_interval_excludes_zero (const SimCompareInterval *interval)
{
  g_return_val_if_fail (interval != NULL, FALSE);
  if (!isfinite (interval->low) || !isfinite (interval->high))
    return FALSE;
  return interval->low > 0 || interval->high < 0;
}

/* ------------------------------------------------------------------------- */
/* The comparison.                                                            */

static const char * const default_metrics[] = {
  "wait_mean", "wait_p95", "jct_mean", "bounded_slowdown_mean", "gpu_utilization",
  "gpu_activity", "queue_length_mean", "fragmented_gpus_mean", "makespan",
};

typedef struct {
  char *spec;      /* as given */
  char *name;      /* the policy's own name */
  char *queue;     /* built-in: queue order and placement */
  char *placement;
  char *plugin;    /* or a plugin file, absolute */
  GType type;      /* of the policy this makes */
  GStrv variant;   /* or a variant of the scenario: overrides, with its own policy */
} PolicyEntry;

struct _SimComparison {
  GObject     parent_instance;

  char       *path;
  char       *scenario_name;
  char       *scenario_queue;
  GStrv       overrides;
  guint64     first_seed;
  guint       n_seeds;
  guint       n_threads;
  double      level;
  gboolean    force;     /* runs past the size limits */
  GPtrArray  *policies;  /* PolicyEntry* */
  GPtrArray  *metrics;   /* char* */
  gboolean    default_metrics;

  SimCompareProgressFunc progress;
  gpointer               progress_data;
  GDestroyNotify         progress_destroy;

  /* Set by sim_comparison_run(). */
  gboolean    ran;
  double     *values;    /* [policy][metric][seed] */
  GPtrArray  *units;     /* char*, [metric]; NULL for a metric without one */
  GError    **errors;    /* [policy * n_seeds + seed], during the run */
  gint        min_failed;
  GAsyncQueue *done;
};

G_DEFINE_FINAL_TYPE (SimComparison, sim_comparison, G_TYPE_OBJECT)

static void
policy_entry_free (gpointer data)
{
  PolicyEntry *p = data;

  g_free (p->spec);
  g_free (p->name);
  g_free (p->queue);
  g_free (p->placement);
  g_free (p->plugin);
  g_strfreev (p->variant);
  g_free (p);
}

static void
sim_comparison_finalize (GObject *object)
{
  SimComparison *self = SIM_COMPARISON (object);

  if (self->progress_destroy != NULL)
    self->progress_destroy (self->progress_data);
  g_free (self->path);
  g_free (self->scenario_name);
  g_free (self->scenario_queue);
  g_strfreev (self->overrides);
  g_ptr_array_unref (self->policies);
  g_ptr_array_unref (self->metrics);
  g_free (self->values);
  g_clear_pointer (&self->units, g_ptr_array_unref);
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
  self->policies = g_ptr_array_new_with_free_func (policy_entry_free);
  self->metrics = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (default_metrics); i++)
    g_ptr_array_add (self->metrics, g_strdup (default_metrics[i]));
  self->default_metrics = TRUE;
  self->n_seeds = 5;
  self->level = 0.95;
}

SimComparison *
sim_comparison_new (const char *scenario_path, const char * const *overrides, GError **error)
{
  g_autoptr(SimScenario) scenario = NULL;
  SimComparison *self;

  g_return_val_if_fail (scenario_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  sim_init ();
  scenario = sim_scenario_load (scenario_path, overrides, error);
  if (scenario == NULL)
    return NULL;
  self = g_object_new (SIM_TYPE_COMPARISON, NULL);
  self->path = g_strdup (scenario_path);
  self->scenario_name = g_strdup (scenario->name ? scenario->name : scenario_path);
  self->scenario_queue = g_strdup (scenario->queue);
  self->overrides = g_strdupv ((char **) overrides);
  self->first_seed = scenario->seed;
  return self;
}

/* A plugin is named by a path: something with a '/' that ends like a
 * shared object, so "fifo/best-fit" is never taken for a file. */
static gboolean
is_plugin_spec (const char *spec)
{
  return strchr (spec, '/') != NULL &&
         (g_str_has_suffix (spec, ".so") || g_str_has_suffix (spec, "." G_MODULE_SUFFIX));
}

/* An error for a policy spec that names no built-in, listing every name. */
static void
set_unknown_policy_error (const char *spec, const GError *cause, GError **error)
{
  g_autoptr(GPtrArray) orders = sim_policy_list_queue_orders ();
  g_autoptr(GPtrArray) places = sim_policy_list_placements ();
  g_autofree char *known_orders = NULL, *known_places = NULL;

  g_ptr_array_add (orders, NULL);
  g_ptr_array_add (places, NULL);
  known_orders = g_strjoinv (", ", (char **) orders->pdata);
  known_places = g_strjoinv (", ", (char **) places->pdata);
  g_set_error (error, SIM_ERROR, cause->code,
               "policy \"%s\": %s; a policy is QUEUE/PLACEMENT, a PLACEMENT alone or a "
               "plugin file (a path ending in .so); queue orders: %s; placements: %s",
               spec, cause->message, known_orders, known_places);
}

gboolean
sim_comparison_add_policy (SimComparison *self, const char *spec, GError **error)
{
  g_autoptr(SimPolicy) policy = NULL;
  g_autoptr(GError) local = NULL;
  PolicyEntry *entry;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (spec != NULL, FALSE);
  g_return_val_if_fail (!self->ran, FALSE);

  entry = g_new0 (PolicyEntry, 1);
  entry->spec = g_strdup (spec);
  if (is_plugin_spec (spec))
    {
      entry->plugin = g_canonicalize_filename (spec, NULL);
      policy = sim_policy_load_plugin (spec, error);
    }
  else
    {
      const char *slash = strchr (spec, '/');
      if (slash != NULL)
        {
          entry->queue = g_strndup (spec, (gsize) (slash - spec));
          entry->placement = g_strdup (slash + 1);
        }
      else
        {
          entry->queue = g_strdup (self->scenario_queue);
          entry->placement = g_strdup (spec);
        }
      policy = sim_policy_new_builtin (entry->queue, entry->placement, &local);
      if (policy == NULL)
        set_unknown_policy_error (spec, local, error);
    }
  if (policy == NULL)
    {
      policy_entry_free (entry);
      return FALSE;
    }
  entry->name = g_strdup (sim_policy_get_name (policy));
  entry->type = G_OBJECT_TYPE (policy);
  g_ptr_array_add (self->policies, entry);
  return TRUE;
}

gboolean
sim_comparison_add_variant (SimComparison *self, const char *name, const char * const *overrides,
                            GError **error)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  g_autoptr(SimScenario) scenario = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  PolicyEntry *entry;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (name != NULL && overrides != NULL, FALSE);
  g_return_val_if_fail (!self->ran, FALSE);

  /* Built once here, so that a bad key or value is reported before any run. */
  for (guint i = 0; self->overrides != NULL && self->overrides[i] != NULL; i++)
    g_ptr_array_add (all, self->overrides[i]);
  for (guint i = 0; overrides[i] != NULL; i++)
    g_ptr_array_add (all, (gpointer) overrides[i]);
  g_ptr_array_add (all, NULL);
  scenario = sim_scenario_load (self->path, (const char * const *) all->pdata, error);
  if (scenario == NULL || (sim = sim_simulation_new (scenario, error)) == NULL)
    {
      g_prefix_error (error, "variant \"%s\": ", name);
      return FALSE;
    }
  entry = g_new0 (PolicyEntry, 1);
  entry->spec = g_strdup (name);
  entry->name = g_strdup (name);
  entry->variant = g_strdupv ((char **) overrides);
  g_ptr_array_add (self->policies, entry);
  return TRUE;
}

void
sim_comparison_add_metric (SimComparison *self, const char *metric)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  g_return_if_fail (metric != NULL);
  g_return_if_fail (!self->ran);

  if (self->default_metrics)
    {
      g_ptr_array_set_size (self->metrics, 0);
      self->default_metrics = FALSE;
    }
  g_ptr_array_add (self->metrics, g_strdup (metric));
}

void
sim_comparison_set_seeds (SimComparison *self, guint64 first, guint n_seeds)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  g_return_if_fail (n_seeds >= 1);
  g_return_if_fail (!self->ran);
  self->first_seed = first;
  self->n_seeds = n_seeds;
}

void
sim_comparison_set_force (SimComparison *self, gboolean force)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  self->force = force;
}

void
sim_comparison_set_threads (SimComparison *self, guint n_threads)
{
  g_return_if_fail (SIM_IS_COMPARISON (self));
  self->n_threads = n_threads;
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

static double *
slot (SimComparison *self, guint policy, guint metric)
{
  return self->values + ((gsize) policy * self->metrics->len + metric) * self->n_seeds;
}

static void
set_unknown_metric_error (SimReport *report, const char *metric, GError **error)
{
  g_autoptr(GPtrArray) names = sim_report_list_metrics (report);
  g_autofree char *known = NULL;
  const char *closest;

  closest = sim__closest (metric, (const char * const *) names->pdata, names->len);
  g_ptr_array_add (names, NULL);
  known = g_strjoinv (", ", (char **) names->pdata);
  if (closest != NULL)
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                 "unknown metric \"%s\": did you mean \"%s\"? (known: %s)", metric, closest,
                 known);
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND, "unknown metric \"%s\" (known: %s)",
                 metric, known);
}

/* One run: policy index P, seed index S.  Writes only its own slots (and,
 * for run 0, the units). */
static gboolean
run_one (SimComparison *self, guint p, guint s, GError **error)
{
  const PolicyEntry *entry = self->policies->pdata[p];
  guint64 seed = self->first_seed + s;
  g_autoptr(GPtrArray) overrides = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SimScenario) scenario = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(SimPolicy) policy = NULL;
  SimReport *report;

  for (guint i = 0; self->overrides != NULL && self->overrides[i] != NULL; i++)
    g_ptr_array_add (overrides, g_strdup (self->overrides[i]));
  g_ptr_array_add (overrides, g_strdup_printf ("scenario.seed=%" G_GUINT64_FORMAT, seed));
  for (guint i = 0; entry->variant != NULL && entry->variant[i] != NULL; i++)
    g_ptr_array_add (overrides, g_strdup (entry->variant[i]));
  if (entry->plugin == NULL && entry->variant == NULL)
    {
      g_ptr_array_add (overrides, g_strdup_printf ("policy.queue=%s", entry->queue));
      g_ptr_array_add (overrides, g_strdup_printf ("policy.placement=%s", entry->placement));
    }
  g_ptr_array_add (overrides, NULL);

  scenario = sim_scenario_load (self->path, (const char * const *) overrides->pdata, error);
  if (scenario != NULL)
    sim = sim_simulation_new (scenario, error);
  if (sim != NULL)
    {
      /* A plugin replaces the scenario's policy.  A built-in is the one the
       * simulation made from the overrides, with the scenario's [policy]
       * keys and what it knows of the cluster and workload; it is replaced
       * only if the scenario's [policy] made some other kind of policy,
       * which the overrides do not reach. */
      gboolean replace = entry->variant == NULL &&
                         (entry->plugin != NULL ||
                          G_OBJECT_TYPE (sim_simulation_get_policy (sim)) != entry->type);
      if (replace)
        {
          policy = entry->plugin != NULL
                     ? sim_policy_load_plugin (entry->plugin, error)
                     : sim_policy_new_builtin (entry->queue, entry->placement, error);
          if (policy == NULL || !sim_simulation_set_policy (sim, policy, error))
            g_clear_object (&sim);
        }
    }
  if (sim != NULL)
    sim_simulation_set_force (sim, self->force);
  if (sim == NULL || !sim_simulation_run (sim, error))
    {
      g_prefix_error (error, "policy %s, seed %" G_GUINT64_FORMAT ": ", entry->name, seed);
      return FALSE;
    }

  report = sim_simulation_get_report (sim);
  for (guint m = 0; m < self->metrics->len; m++)
    {
      const char *metric = self->metrics->pdata[m];
      double v;
      if (!sim_report_get_value (report, metric, &v))
        {
          set_unknown_metric_error (report, metric, error);
          return FALSE;
        }
      slot (self, p, m)[s] = v;
    }
  if (p == 0 && s == 0)
    for (guint m = 0; m < self->metrics->len; m++)
      g_ptr_array_add (self->units,
                       g_strdup (sim_report_get_unit (report, self->metrics->pdata[m])));
  return TRUE;
}

static void
worker (gpointer data, gpointer user_data)
{
  SimComparison *self = user_data;
  guint index = GPOINTER_TO_UINT (data) - 1;

  /* Skipped only if a run with a lower index failed already. */
  if (g_atomic_int_get (&self->min_failed) > (gint) index)
    {
      GError *error = NULL;
      if (!run_one (self, index / self->n_seeds, index % self->n_seeds, &error))
        {
          gint old;
          self->errors[index] = error;
          do
            old = g_atomic_int_get (&self->min_failed);
          while ((gint) index < old &&
                 !g_atomic_int_compare_and_exchange (&self->min_failed, old, (gint) index));
        }
    }
  g_async_queue_push (self->done, data);
}

gboolean
sim_comparison_run (SimComparison *self, GError **error)
{
  guint total, n_threads;
  GThreadPool *pool;
  gboolean ok = TRUE;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (!self->ran, FALSE);

  if (self->policies->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "no policy to compare");
      return FALSE;
    }
  if (self->metrics->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "no metric to compare");
      return FALSE;
    }
  if ((guint64) self->policies->len * self->n_seeds > G_MAXINT / 2 ||
      self->first_seed + self->n_seeds < self->first_seed)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u policies x %u seeds from %" G_GUINT64_FORMAT ": too many runs",
                   self->policies->len, self->n_seeds, self->first_seed);
      return FALSE;
    }

  total = self->policies->len * self->n_seeds;
  self->ran = TRUE;
  self->values = g_new (double, (gsize) total * self->metrics->len);
  for (gsize i = 0; i < (gsize) total * self->metrics->len; i++)
    self->values[i] = NAN;
  self->units = g_ptr_array_new_with_free_func (g_free);
  self->errors = g_new0 (GError *, total);
  self->min_failed = G_MAXINT;
  self->done = g_async_queue_new ();

  n_threads = self->n_threads ? self->n_threads : g_get_num_processors ();
  n_threads = MAX (1, MIN (n_threads, total));
  pool = g_thread_pool_new (worker, self, (gint) n_threads, FALSE, NULL);
  for (guint i = 0; i < total; i++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL);
  for (guint i = 0; i < total; i++)
    {
      g_async_queue_pop (self->done);
      if (self->progress != NULL)
        self->progress (i + 1, total, self->progress_data);
    }
  g_thread_pool_free (pool, FALSE, TRUE);
  g_clear_pointer (&self->done, g_async_queue_unref);

  for (guint i = 0; i < total; i++)
    if (self->errors[i] != NULL)
      {
        if (ok)
          g_propagate_error (error, g_steal_pointer (&self->errors[i]));
        else
          g_clear_error (&self->errors[i]);
        ok = FALSE;
      }
  g_clear_pointer (&self->errors, g_free);
  if (!ok)
    {
      for (gsize i = 0; i < (gsize) total * self->metrics->len; i++)
        self->values[i] = NAN;
      g_ptr_array_set_size (self->units, 0);
    }
  return ok;
}

/* ---- results ---------------------------------------------------------------- */

const char *
sim_comparison_get_scenario_name (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  return self->scenario_name;
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
  return self->policies->len;
}

const char *
sim_comparison_get_policy_name (SimComparison *self, guint policy)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (policy < self->policies->len, NULL);
  return ((PolicyEntry *) self->policies->pdata[policy])->name;
}

guint
sim_comparison_get_n_seeds (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), 0);
  return self->n_seeds;
}

guint64
sim_comparison_get_seed (SimComparison *self, guint index)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), 0);
  g_return_val_if_fail (index < self->n_seeds, 0);
  return self->first_seed + index;
}

guint
sim_comparison_get_n_metrics (SimComparison *self)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), 0);
  return self->metrics->len;
}

const char *
sim_comparison_get_metric (SimComparison *self, guint metric)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (metric < self->metrics->len, NULL);
  return self->metrics->pdata[metric];
}

const char *
sim_comparison_get_unit (SimComparison *self, guint metric)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (metric < self->metrics->len, NULL);
  if (self->units == NULL || metric >= self->units->len)
    return NULL;
  return self->units->pdata[metric];
}

double
sim_comparison_get_value (SimComparison *self, guint policy, guint metric, guint seed)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), NAN);
  g_return_val_if_fail (policy < self->policies->len, NAN);
  g_return_val_if_fail (metric < self->metrics->len && seed < self->n_seeds, NAN);
  if (self->values == NULL)
    return NAN;
  return slot (self, policy, metric)[seed];
}

gboolean
sim_comparison_get_interval (SimComparison *self, guint policy, guint metric,
                             SimCompareInterval *interval)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (policy < self->policies->len, FALSE);
  g_return_val_if_fail (metric < self->metrics->len && interval != NULL, FALSE);
  g_return_val_if_fail (self->values != NULL, FALSE);
  return sim_compare_interval (slot (self, policy, metric), self->n_seeds, self->level,
                               interval);
}

gboolean
sim_comparison_get_difference (SimComparison *self, guint policy, guint metric,
                               SimCompareInterval *interval)
{
  g_return_val_if_fail (SIM_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (policy > 0 && policy < self->policies->len, FALSE);
  g_return_val_if_fail (metric < self->metrics->len && interval != NULL, FALSE);
  g_return_val_if_fail (self->values != NULL, FALSE);
  return sim_compare_paired_interval (slot (self, 0, metric), slot (self, policy, metric),
                                      self->n_seeds, self->level, interval);
}

/* ---- renders ------------------------------------------------------------------ */

/* Decimals that show about four significant digits of X (and of numbers
 * beside it of the same size), without an exponent. */
static int
decimals_for (double x)
{
  double ax = fabs (x);
  int d;

  if (!isfinite (ax) || ax == 0)
    return 3;
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

/* "MEAN ± HALF-WIDTH" with about four significant digits, "MEAN" alone
 * without an interval, "n/a" without a mean. */
static char *
format_interval (const SimCompareInterval *ci)
{
  int decimals = decimals_for (magnitude (ci->mean, ci->half_width));

  if (!isfinite (ci->mean))
    return g_strdup ("n/a");
  if (!isfinite (ci->half_width))
    return g_strdup_printf ("%.*f", decimals, ci->mean);
  return g_strdup_printf ("%.*f ± %.*f", decimals, ci->mean, decimals, ci->half_width);
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
  row->mean = format_interval (&ci);
  if (p == 0)
    return;
  sim_comparison_get_difference (self, p, m, &d);
  sim_comparison_get_interval (self, 0, m, &base);
  row->diff = format_interval (&d);
  if (isfinite (d.mean) && isfinite (base.mean) && base.mean != 0)
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
  g_autofree char *percent = NULL;
  g_autofree Row *rows = NULL;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (self->values != NULL, NULL);

  np = self->policies->len;
  nm = self->metrics->len;
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
  g_string_append_printf (out, "scenario  %s\n", self->scenario_name);
  if (self->n_seeds == 1)
    g_string_append_printf (out, "seed      %" G_GUINT64_FORMAT " (one run per policy: no "
                            "intervals)\n", self->first_seed);
  else
    g_string_append_printf (out, "seeds     %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                            " (%u runs per policy); %s confidence intervals (Student t)\n",
                            self->first_seed, self->first_seed + self->n_seeds - 1,
                            self->n_seeds, percent);
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
        g_string_append_printf (out, "%s (%s)\n", (char *) self->metrics->pdata[m], unit);
      else
        g_string_append_printf (out, "%s\n", (char *) self->metrics->pdata[m]);
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
}

char *
sim_comparison_to_json (SimComparison *self, gboolean pretty)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (SIM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (self->values != NULL, NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "gpusim");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_set_member_name (b, "scenario");
  json_builder_add_string_value (b, self->scenario_name);
  json_builder_set_member_name (b, "seeds");
  json_builder_begin_array (b);
  for (guint s = 0; s < self->n_seeds; s++)
    json_builder_add_int_value (b, (gint64) (self->first_seed + s));
  json_builder_end_array (b);
  /* As a percentage: 95.0 reads better than 0.94999999999999996. */
  json_builder_set_member_name (b, "confidence_percent");
  json_builder_add_double_value (b, self->level * 100);
  json_builder_set_member_name (b, "policies");
  json_builder_begin_array (b);
  for (guint p = 0; p < self->policies->len; p++)
    {
      const PolicyEntry *e = self->policies->pdata[p];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, e->name);
      json_builder_set_member_name (b, "spec");
      json_builder_add_string_value (b, e->spec);
      json_builder_set_member_name (b, "baseline");
      json_builder_add_boolean_value (b, p == 0);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "metrics");
  json_builder_begin_array (b);
  for (guint m = 0; m < self->metrics->len; m++)
    {
      const char *unit = sim_comparison_get_unit (self, m);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, self->metrics->pdata[m]);
      json_builder_set_member_name (b, "unit");
      if (unit != NULL)
        json_builder_add_string_value (b, unit);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "policies");
      json_builder_begin_array (b);
      for (guint p = 0; p < self->policies->len; p++)
        {
          SimCompareInterval ci;
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "policy");
          json_builder_add_string_value (b, sim_comparison_get_policy_name (self, p));
          json_builder_set_member_name (b, "values");
          json_builder_begin_array (b);
          for (guint s = 0; s < self->n_seeds; s++)
            {
              double v = slot (self, p, m)[s];
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
  g_return_val_if_fail (self->values != NULL, NULL);

  out = g_string_new ("metric,unit,policy,statistic,seed,value\n");
  for (guint m = 0; m < self->metrics->len; m++)
    {
      const char *metric = self->metrics->pdata[m];
      const char *unit = sim_comparison_get_unit (self, m);
      for (guint p = 0; p < self->policies->len; p++)
        {
          const char *name = sim_comparison_get_policy_name (self, p);
          SimCompareInterval ci;

          for (guint s = 0; s < self->n_seeds; s++)
            {
              char seed[32];
              g_snprintf (seed, sizeof seed, "%" G_GUINT64_FORMAT, self->first_seed + s);
              append_csv_row (out, metric, unit, name, "value", seed, slot (self, p, m)[s]);
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
  g_return_val_if_fail (self->values != NULL, FALSE);
  text = sim_comparison_to_csv (self);
  return sim__write_file_atomic (path, text, -1, error);
}
