/* sim-seek.c: bisection over a key (see sim-seek.h). */
#include "config.h"

#include "sweep/sim-seek.h"
#include "study/sim-executor.h"
#include "study/sim-plan.h"
#include "study/sim-stats.h"
#include "core/sim-units.h"
#include "core/sim-error.h"
#include "core/sim-read.h"
#include "core/sim-util.h"
#include "scenario/sim-scenario-private.h"

#include <math.h>
#include <string.h>

typedef enum { OP_LE, OP_LT, OP_GE, OP_GT } Op;

struct _SimSeek {
  GObject   parent_instance;

  char     *path;
  GStrv     overrides;
  char     *key;
  char     *target;      /* as given, for messages */
  char     *metric;
  Op        op;
  double    value;
  gboolean  duration;    /* VALUE had a time unit: the metric must be in seconds */
  gboolean  have_range;
  double    low, high;
  char     *range_unit;  /* after every value set, "" for none */
  guint64   first_seed;
  guint     n_seeds;
  gboolean  force;
  double    level;
  double    tolerance;
  guint     n_threads;
  char     *unit;
  GArray   *probes;      /* SimSeekProbe */

  SimSeekProbeFunc probe_func;
  gpointer         probe_data;
  GDestroyNotify   probe_destroy;
};

G_DEFINE_FINAL_TYPE (SimSeek, sim_seek, G_TYPE_OBJECT)

static SimSeekProbe *
probe_copy (const SimSeekProbe *p)
{
  return g_memdup2 (p, sizeof *p);
}

G_DEFINE_BOXED_TYPE (SimSeekProbe, sim_seek_probe, probe_copy, g_free)

static void
sim_seek_finalize (GObject *object)
{
  SimSeek *self = SIM_SEEK (object);

  if (self->probe_destroy != NULL)
    self->probe_destroy (self->probe_data);
  g_free (self->path);
  g_strfreev (self->overrides);
  g_free (self->key);
  g_free (self->target);
  g_free (self->metric);
  g_free (self->unit);
  g_free (self->range_unit);
  g_array_unref (self->probes);
  G_OBJECT_CLASS (sim_seek_parent_class)->finalize (object);
}

static void
sim_seek_class_init (SimSeekClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_seek_finalize;
}

static void
sim_seek_init (SimSeek *self)
{
  self->probes = g_array_new (FALSE, FALSE, sizeof (SimSeekProbe));
  self->n_seeds = 5;
  self->level = 0.95;
}

static gboolean
parse_target (SimSeek *self, const char *spec, GError **error)
{
  static const char *const ops[] = { "<=", "<", ">=", ">" };
  const char *at = NULL;
  guint op = 0;
  g_autofree char *value = NULL;
  char *end;
  SimTime ns;

  for (guint i = 0; i < G_N_ELEMENTS (ops) && at == NULL; i++)
    if ((at = strstr (spec, ops[i])) != NULL)
      op = i;
  if (at == NULL || strstr (spec, "==") != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "target \"%s\": expected \"METRIC <= VALUE\" (or <, >=, >), e.g. "
                   "\"wait_p95 <= 1h\"", spec);
      return FALSE;
    }
  self->metric = g_strstrip (g_strndup (spec, (gsize) (at - spec)));
  self->op = (Op) op;
  value = g_strstrip (g_strdup (at + strlen (ops[op])));
  if (*self->metric == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "target \"%s\": no METRIC before %s",
                   spec, ops[op]);
      return FALSE;
    }
  self->value = g_ascii_strtod (value, &end);
  if (*value != '\0' && *end == '\0' && isfinite (self->value))
    return TRUE;
  if (sim_parse_duration (value, &ns, NULL))
    {
      self->value = (double) ns / 1e9;
      self->duration = TRUE;
      return TRUE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
               "target \"%s\": \"%s\" is not a number or a duration (e.g. 1h, 90min)", spec,
               value);
  return FALSE;
}

/* "pool h100.count" for "pool.h100.count": the named sections' spelling,
 * by the scenario's own rule for overrides, so that the key found in
 * [sweep] is the one the runs set. */
static char *
normalise_key (const char *key)
{
  const char *last = strrchr (key, '.');
  g_autofree char *group = NULL, *spelt = NULL;

  if (last == NULL || last == key)
    return g_strdup (key);
  group = g_strndup (key, (gsize) (last - key));
  spelt = sim__scenario_key_group (group);
  return g_strconcat (spelt, last, NULL);
}

/* A number and the unit after it ("50/h": 50 and "/h"); FALSE for text
 * that does not start with a finite number. */
static gboolean
number_and_unit (const char *text, double *x, char **unit)
{
  g_autofree char *t = g_strstrip (g_strdup (text));
  char *end;

  *x = g_ascii_strtod (t, &end);
  if (end == t || !isfinite (*x) || g_ascii_isalpha (*t))
    return FALSE;
  *unit = g_strstrip (g_strdup (end));
  return TRUE;
}

/* "LOW..HIGH" with one unit, or none, into *LOW, *HIGH and *UNIT. */
static gboolean
parse_range (const char *text, double *low, double *high, char **unit)
{
  const char *dots = strstr (text, "..");
  g_autofree char *a = NULL, *ua = NULL, *ub = NULL;

  if (dots == NULL)
    return FALSE;
  a = g_strndup (text, (gsize) (dots - text));
  if (!number_and_unit (a, low, &ua) || !number_and_unit (dots + 2, high, &ub))
    return FALSE;
  if (*ua != '\0' && *ub != '\0' && strcmp (ua, ub) != 0)
    return FALSE;
  if (!(*low < *high))
    return FALSE;
  *unit = g_strdup (*ua != '\0' ? ua : ub);
  return TRUE;
}

/* The range from the key's numbers in [sweep]: a list or LOW..HIGH. */
static gboolean
range_from_sweep (const char *path, const char *key, double *low, double *high, char **unit)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *raw = NULL, *text = NULL;
  g_auto(GStrv) parts = NULL;
  const char *dots;
  char *end;
  gsize len;

  if ((text = sim__read_file (path, SIM_READ_TEXT, &len, NULL)) == NULL ||
      !sim__key_file_load (kf, text, len, NULL) ||
      (raw = g_key_file_get_value (kf, "sweep", key, NULL)) == NULL)
    return FALSE;
  if ((dots = strstr (raw, "..")) != NULL)
    {
      char *step = strstr (raw, "step");
      if (step != NULL)
        *step = '\0';
      return parse_range (raw, low, high, unit);
    }
  parts = g_strsplit (raw, ",", -1);
  *low = INFINITY;
  *high = -INFINITY;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *p = g_strstrip (parts[i]);
      double x = g_ascii_strtod (p, &end);
      if (*end != '\0' || end == p)
        return FALSE;
      *low = MIN (*low, x);
      *high = MAX (*high, x);
    }
  return *low < *high;
}

SimSeek *
sim_seek_new (const char *path, const char * const *overrides, const char *key,
              const char *target, GError **error)
{
  g_autoptr(SimSeek) self = NULL;
  g_autoptr(SimPlan) plan = NULL;

  g_return_val_if_fail (path != NULL && key != NULL && target != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (SIM_TYPE_SEEK, NULL);
  self->path = g_strdup (path);
  self->overrides = g_strdupv ((char **) overrides);
  self->key = normalise_key (key);
  self->target = g_strdup (target);
  if (!parse_target (self, target, error))
    return NULL;
  plan = sim_plan_new (path, overrides, error);
  if (plan == NULL)
    return NULL;
  self->first_seed = sim_plan_get_seed (plan, 0);
  if (range_from_sweep (path, self->key, &self->low, &self->high, &self->range_unit) ||
      range_from_sweep (path, key, &self->low, &self->high, &self->range_unit))
    self->have_range = TRUE;
  return g_steal_pointer (&self);
}

void
sim_seek_set_range (SimSeek *self, double low, double high)
{
  g_return_if_fail (SIM_IS_SEEK (self));
  g_return_if_fail (isfinite (low) && isfinite (high) && low < high);
  self->low = low;
  self->high = high;
  self->have_range = TRUE;
  g_clear_pointer (&self->range_unit, g_free);
}

gboolean
sim_seek_set_range_from_string (SimSeek *self, const char *range, GError **error)
{
  g_autofree char *unit = NULL;
  double low, high;

  g_return_val_if_fail (SIM_IS_SEEK (self), FALSE);
  g_return_val_if_fail (range != NULL, FALSE);
  if (!parse_range (range, &low, &high, &unit))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "range \"%s\": expected LOW..HIGH, two "
                   "numbers with LOW < HIGH and the key's unit on either or both (e.g. 2..64 "
                   "or 1/h..50/h)", range);
      return FALSE;
    }
  sim_seek_set_range (self, low, high);
  self->range_unit = g_steal_pointer (&unit);
  return TRUE;
}

void
sim_seek_set_seeds (SimSeek *self, guint64 first, guint n_seeds)
{
  g_return_if_fail (SIM_IS_SEEK (self));
  g_return_if_fail (n_seeds >= 1);
  self->first_seed = first;
  self->n_seeds = n_seeds;
}

void
sim_seek_set_force (SimSeek *self, gboolean force)
{
  g_return_if_fail (SIM_IS_SEEK (self));
  self->force = force;
}

guint64
sim_seek_get_first_seed (SimSeek *self)
{
  g_return_val_if_fail (SIM_IS_SEEK (self), 0);
  return self->first_seed;
}

void
sim_seek_set_level (SimSeek *self, double level)
{
  g_return_if_fail (SIM_IS_SEEK (self));
  g_return_if_fail (level > 0 && level < 1);
  self->level = level;
}

void
sim_seek_set_tolerance (SimSeek *self, double tolerance)
{
  g_return_if_fail (SIM_IS_SEEK (self));
  g_return_if_fail (tolerance >= 0 && isfinite (tolerance));
  self->tolerance = tolerance;
}

void
sim_seek_set_threads (SimSeek *self, guint n_threads)
{
  g_return_if_fail (SIM_IS_SEEK (self));
  self->n_threads = n_threads;
}

void
sim_seek_set_probe_func (SimSeek *self, SimSeekProbeFunc func, gpointer user_data,
                         GDestroyNotify destroy)
{
  g_return_if_fail (SIM_IS_SEEK (self));
  if (self->probe_destroy != NULL)
    self->probe_destroy (self->probe_data);
  self->probe_func = func;
  self->probe_data = user_data;
  self->probe_destroy = destroy;
}

static gboolean
integral (SimSeek *self)
{
  return self->low == floor (self->low) && self->high == floor (self->high) &&
         self->tolerance == floor (self->tolerance);
}

char *
sim_seek_format_value (SimSeek *self, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  const char *unit;

  g_return_val_if_fail (SIM_IS_SEEK (self), NULL);
  unit = self->range_unit != NULL ? self->range_unit : "";
  if (integral (self))
    return g_strdup_printf ("%.0f%s", value, unit);
  return g_strdup_printf ("%s%s", g_ascii_formatd (buf, sizeof buf, "%.6g", value), unit);
}

static gboolean
holds (SimSeek *self, double x)
{
  switch (self->op)
    {
    case OP_LE: return x <= self->value;
    case OP_LT: return x < self->value;
    case OP_GE: return x >= self->value;
    case OP_GT: return x > self->value;
    }
  return FALSE;
}

/* Runs the scenario with KEY = X on every seed. */
static gboolean
probe (SimSeek *self, double x, gboolean *meets, GError **error)
{
  g_autoptr(SimPlan) plan = sim_plan_new (self->path, (const char * const *) self->overrides,
                                          error);
  g_autoptr(SimPlanResults) results = NULL;
  g_autoptr(SimExecutor) executor = NULL;
  g_autofree char *value = sim_seek_format_value (self, x);
  g_autofree char *set = g_strdup_printf ("%s=%s", self->key, value);
  const char *sets[] = { set, NULL };
  g_autofree double *samples = NULL;
  SimCompareInterval iv;
  SimSeekProbe p = { 0 };
  const char *unit;
  guint n;

  if (plan == NULL || !sim_plan_add_variant (plan, set, sets, error))
    return FALSE;
  sim_plan_add_metric (plan, self->metric);
  sim_plan_set_seeds (plan, self->first_seed, self->n_seeds);
  sim_plan_set_force (plan, self->force);
  /* Checked before the results are sized by the number of seeds. */
  if (!sim_plan_check (plan, error))
    return FALSE;
  results = sim_plan_results_new (plan);
  executor = sim_thread_executor_new (self->n_threads);
  if (!sim_executor_execute (executor, results, NULL, 0, error) ||
      !sim_plan_results_check (results, error))
    return FALSE;
  unit = sim_plan_results_get_unit (results, 0);
  if (self->duration && g_strcmp0 (unit, "s") != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "target \"%s\": %s is in %s, not in seconds: give the value without a "
                   "time unit", self->target, self->metric, unit ? unit : "no unit");
      return FALSE;
    }
  g_free (self->unit);
  self->unit = g_strdup (unit);
  samples = sim_plan_results_dup_samples (results, 0, 0, &n);
  sim_compare_interval (samples, n, self->level, &iv);
  p.value = x;
  p.n = n;
  p.mean = iv.mean;
  /* One run, or runs that all gave the same value (seeds that change
   * nothing, as on a trace: sim-stats.h), have no interval: the value
   * itself is all there is to hold to the target. */
  p.low = n < 2 || iv.identical ? iv.mean : iv.low;
  p.high = n < 2 || iv.identical ? iv.mean : iv.high;
  p.meets = holds (self, self->op == OP_LE || self->op == OP_LT ? p.high : p.low);
  g_array_append_val (self->probes, p);
  if (self->probe_func != NULL)
    self->probe_func (&p, self->probe_data);
  *meets = p.meets;
  return TRUE;
}

gboolean
sim_seek_run (SimSeek *self, double *answer, GError **error)
{
  double low, high, tolerance;
  gboolean ok;

  g_return_val_if_fail (SIM_IS_SEEK (self), FALSE);
  g_return_val_if_fail (answer != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!self->have_range)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: no range to search, and no numbers for %s in its [sweep] section to "
                   "take it from", self->path, self->key);
      return FALSE;
    }
  low = self->low;
  high = self->high;
  tolerance = self->tolerance > 0 ? self->tolerance : integral (self) ? 1 : (high - low) / 100;
  if (!probe (self, low, &ok, error))
    return FALSE;
  if (ok)
    {
      *answer = low;
      return TRUE;
    }
  if (!probe (self, high, &ok, error))
    return FALSE;
  if (!ok)
    {
      g_autofree char *a = sim_seek_format_value (self, low);
      g_autofree char *b = sim_seek_format_value (self, high);
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                   "no value of %s from %s to %s meets %s with confidence (widen the range, "
                   "or add seeds if the intervals are wide)", self->key, a, b, self->target);
      return FALSE;
    }
  while (high - low > tolerance + 1e-12 * fabs (high))
    {
      double mid = integral (self) ? floor ((low + high) / 2) : (low + high) / 2;
      if (!probe (self, mid, &ok, error))
        return FALSE;
      if (ok)
        high = mid;
      else
        low = mid;
    }
  *answer = high;
  return TRUE;
}

const char *
sim_seek_get_key (SimSeek *self)
{
  g_return_val_if_fail (SIM_IS_SEEK (self), NULL);
  return self->key;
}

const char *
sim_seek_get_metric (SimSeek *self)
{
  g_return_val_if_fail (SIM_IS_SEEK (self), NULL);
  return self->metric;
}

const char *
sim_seek_get_unit (SimSeek *self)
{
  g_return_val_if_fail (SIM_IS_SEEK (self), NULL);
  return self->unit;
}

guint
sim_seek_get_n_probes (SimSeek *self)
{
  g_return_val_if_fail (SIM_IS_SEEK (self), 0);
  return self->probes->len;
}

void
sim_seek_get_probe (SimSeek *self, guint index, SimSeekProbe *probe)
{
  g_return_if_fail (SIM_IS_SEEK (self));
  g_return_if_fail (index < self->probes->len && probe != NULL);
  *probe = g_array_index (self->probes, SimSeekProbe, index);
}
