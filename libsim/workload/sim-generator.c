/* sim-generator.c: the synthetic workload generator.
 *
 * Arrivals form a Poisson process.  With a constant rate the gaps are
 * exponential of mean 1/rate.  With a daily profile the rate is a step
 * function of the hour of day (simulated time 0 is midnight), and the
 * non-homogeneous process is simulated by thinning (Lewis and Shedler):
 * candidates arrive at the peak rate and each is kept with probability
 * rate(t) / peak.  Thinning is exact for any rate function bounded by the
 * peak and needs no inversion of the integrated rate.  Hours whose rate is
 * zero are jumped over (the process restarts at the next hour with a rate,
 * which memorylessness makes exact), so an arrival costs at most peak / r
 * candidates, r being the smallest non-zero hourly rate: a few for
 * ordinary profiles, cheap next to a simulation's events.
 *
 * Each arrival then draws its class, its GPU count and its duration, each
 * from its own stream ("classes", "sizes", "durations"; the candidates of
 * the thinning come from "arrivals" and their acceptance from "thinning").
 * Because every stream serves one purpose, changing, say, the duration
 * distribution leaves the arrival times and sizes exactly as they were.
 * Categorical draws use GSL's Walker alias tables (gsl_ran_discrete), O(1)
 * per draw after O(n) preparation.
 */
#include "config.h"

#include "workload/sim-workload.h"
#include "core/sim-rng.h"
#include "core/sim-error.h"
#include "workload/sim-workload-private.h"

#include <math.h>
#include <string.h>
#include <gsl/gsl_randist.h>

/* The highest arrival rate, jobs per second: a mean gap of 1 us. */
#define MAX_RATE 1e6

typedef struct {
  SimWorkload parent;

  SimGeneratorConfig config;      /* deep copy */
  gboolean has_profile;
  double   hourly_rate[24];       /* jobs per second in each hour of the day */
  double   peak_rate;             /* the rate of candidates */

  SimRng *arrivals;
  SimRng *thinning;
  SimRng *classes;
  SimRng *sizes;
  SimRng *durations;

  gsl_ran_discrete_t  *class_table;
  gsl_ran_discrete_t **gpu_tables;      /* one per class */
  gsl_ran_discrete_t **duration_tables; /* one per class; NULL unless empirical */

  SimTime  now;                   /* the last candidate's time */
  guint64  count;                 /* jobs generated */
  gboolean done;
} SimGenerator;

/* ------------------------------------------------------------------------- */
/* The configuration: copy, free, validate.                                  */

static void
config_clear (SimGeneratorConfig *config)
{
  for (guint i = 0; config->classes != NULL && i < config->n_classes; i++)
    {
      SimJobClassConfig *c = &config->classes[i];

      g_free (c->name);
      g_free (c->gpu_values);
      g_free (c->gpu_weights);
      g_free (c->duration.values);
      g_free (c->duration.weights);
    }
  g_clear_pointer (&config->classes, g_free);
  config->n_classes = 0;
}

/* Called after validation: the arrays have the lengths they claim. */
static void
config_copy (SimGeneratorConfig *dst, const SimGeneratorConfig *src)
{
  *dst = *src;
  dst->classes = g_new0 (SimJobClassConfig, src->n_classes);
  for (guint i = 0; i < src->n_classes; i++)
    {
      const SimJobClassConfig *s = &src->classes[i];
      SimJobClassConfig *d = &dst->classes[i];

      *d = *s;
      d->name = g_strdup (s->name);
      d->gpu_values = g_memdup2 (s->gpu_values, s->n_gpu_values * sizeof (guint32));
      d->gpu_weights = s->gpu_weights != NULL
        ? g_memdup2 (s->gpu_weights, s->n_gpu_values * sizeof (double)) : NULL;
      if (s->duration.kind == SIM_DIST_EMPIRICAL)
        {
          d->duration.values = g_memdup2 (s->duration.values,
                                          s->duration.n_values * sizeof (double));
          d->duration.weights = s->duration.weights != NULL
            ? g_memdup2 (s->duration.weights, s->duration.n_values * sizeof (double)) : NULL;
        }
      else
        {
          d->duration.values = NULL;
          d->duration.weights = NULL;
          d->duration.n_values = 0;
        }
    }
}

/* Checks relative weights: finite, non-negative, not all zero.  @where
 * names the class ("class \"big\": "), @field the array. */
static gboolean
check_weights (const char *where, const char *field, const double *weights, guint n,
               GError **error)
{
  double sum = 0;

  for (guint i = 0; i < n; i++)
    {
      if (isnan (weights[i]) || isinf (weights[i]))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%s%s[%u] is not a finite number", where, field, i);
          return FALSE;
        }
      if (weights[i] < 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%s%s[%u] is negative (%g)", where, field, i, weights[i]);
          return FALSE;
        }
      sum += weights[i];
    }
  if (!(sum > 0) || isinf (sum))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s%s: the weights must be finite and not all zero", where, field);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_positive (const char *where, const char *field, double v, GError **error)
{
  if (!(v > 0) || isinf (v))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s%s must be a positive, finite number of seconds (got %g)", where, field, v);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_duration (const char *where, const SimDurationDist *d, GError **error)
{
  switch (d->kind)
    {
    case SIM_DIST_CONSTANT:
    case SIM_DIST_EXPONENTIAL:
      return check_positive (where, "duration.mean", d->mean, error);
    case SIM_DIST_LOGNORMAL:
      if (!check_positive (where, "duration.median", d->median, error))
        return FALSE;
      if (!(d->sigma >= 0) || isinf (d->sigma))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%sduration.sigma must be a non-negative, finite number (got %g)",
                       where, d->sigma);
          return FALSE;
        }
      return TRUE;
    case SIM_DIST_EMPIRICAL:
      if (d->n_values == 0 || d->values == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%sduration.values: an empirical distribution needs at least one value",
                       where);
          return FALSE;
        }
      for (guint i = 0; i < d->n_values; i++)
        {
          char field[48];

          g_snprintf (field, sizeof field, "duration.values[%u]", i);
          if (!check_positive (where, field, d->values[i], error))
            return FALSE;
        }
      if (d->weights != NULL
          && !check_weights (where, "duration.weights", d->weights, d->n_values, error))
        return FALSE;
      return TRUE;
    default:
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%sduration.kind: unknown distribution %d", where, (int) d->kind);
      return FALSE;
    }
}

static gboolean
check_class (const SimGeneratorConfig *config, guint i, GError **error)
{
  const SimJobClassConfig *c = &config->classes[i];
  g_autofree char *where = NULL;

  if (c->name == NULL || *c->name == '\0' || !g_utf8_validate (c->name, -1, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "classes[%u]: name is missing or not valid UTF-8", i);
      return FALSE;
    }
  where = g_strdup_printf ("class \"%s\": ", c->name);
  for (guint j = 0; j < i; j++)
    if (g_strcmp0 (config->classes[j].name, c->name) == 0)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "%sname already used by classes[%u]", where, j);
        return FALSE;
      }
  if (!(c->share >= 0) || isinf (c->share))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%sshare must be a non-negative, finite number (got %g)", where, c->share);
      return FALSE;
    }
  if (c->n_gpu_values == 0 || c->gpu_values == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%sgpu_values: at least one GPU count is required", where);
      return FALSE;
    }
  for (guint j = 0; j < c->n_gpu_values; j++)
    if (c->gpu_values[j] == 0)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "%sgpu_values[%u] is zero: a job needs at least one GPU", where, j);
        return FALSE;
      }
  if (c->gpu_weights != NULL
      && !check_weights (where, "gpu_weights", c->gpu_weights, c->n_gpu_values, error))
    return FALSE;
  if (!check_duration (where, &c->duration, error))
    return FALSE;
  if (!sim_scaling_validate (&c->scaling, error))
    {
      g_prefix_error (error, "%sscaling: ", where);
      return FALSE;
    }
  for (guint j = 0; c->gpus_min > 0 && j < c->n_gpu_values; j++)
    if (c->gpus_min > c->gpu_values[j])
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "%sgpus_min %u is above gpu_values[%u] = %u", where, c->gpus_min, j,
                     c->gpu_values[j]);
        return FALSE;
      }
  if (!(c->estimate_factor >= 0) || isinf (c->estimate_factor))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%sestimate_factor must be a non-negative, finite number (got %g)",
                   where, c->estimate_factor);
      return FALSE;
    }
  if (!(c->activity >= 0 && c->activity <= 1))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%sactivity must be in (0, 1], or 0 for unknown (got %g)", where, c->activity);
      return FALSE;
    }
  if (!(c->memory_bound >= 0 && c->memory_bound <= 1))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%smemory_bound must be in [0, 1] (got %g)", where, c->memory_bound);
      return FALSE;
    }
  if (c->gpu_milli > 1000 ||
      (c->gpu_milli > 0 && c->gpu_milli < 1000 &&
       (c->n_gpu_values != 1 || c->gpu_values[0] != 1 || c->mig_profile != NULL)))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%sgpu_milli must be at most 1000, and below 1000 only for single-GPU jobs "
                   "without MIG (got %u)", where, c->gpu_milli);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_config (const SimGeneratorConfig *config, GError **error)
{
  double share_sum = 0;

  if (!(config->rate > 0) || isinf (config->rate))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "rate must be a positive, finite number of jobs per second (got %g)",
                   config->rate);
      return FALSE;
    }
  for (guint h = 0; h < 24; h++)
    if (!(config->profile[h] >= 0) || isinf (config->profile[h]))
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "profile[%u] must be a non-negative, finite multiplier (got %g)",
                     h, config->profile[h]);
        return FALSE;
      }
  if (config->stop_time < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "stop_time is negative (%" G_GINT64_FORMAT " ns)", config->stop_time);
      return FALSE;
    }
  if (config->n_classes == 0 || config->classes == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "classes: at least one job class is required");
      return FALSE;
    }
  for (guint i = 0; i < config->n_classes; i++)
    {
      if (!check_class (config, i, error))
        return FALSE;
      share_sum += config->classes[i].share;
    }
  if (!(share_sum > 0) || isinf (share_sum))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "classes: the shares must be finite and not all zero");
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Drawing.                                                                  */

/* A categorical table over @n outcomes; uniform if @weights is NULL. */
static gsl_ran_discrete_t *
make_table (const double *weights, guint n)
{
  g_autofree double *ones = NULL;

  if (weights == NULL)
    {
      ones = g_new (double, n);
      for (guint i = 0; i < n; i++)
        ones[i] = 1;
      weights = ones;
    }
  return gsl_ran_discrete_preproc (n, weights);
}

/* The next arrival at or after gen->now, or FALSE past the stop time. */
static gboolean
next_arrival (SimGenerator *gen, SimTime *out)
{
  const SimTime stop = gen->config.stop_time;

  for (;;)
    {
      SimTime gap = sim_time_from_seconds (sim_rng_exponential (gen->arrivals,
                                                                1.0 / gen->peak_rate));

      if (gap >= SIM_TIME_NEVER - gen->now)
        return FALSE;
      gen->now += gap;
      if (gen->now > stop)
        return FALSE;
      if (!gen->has_profile)
        break;
      {
        guint hour = (guint) ((gen->now / SIM_HOUR) % 24);

        if (gen->hourly_rate[hour] == 0)
          {
            /* Nothing arrives in this hour: restart the candidates at the
             * next hour that has a rate, which memorylessness makes exact
             * and which bounds the work whatever the peak. */
            SimTime next;

            if (gen->now / SIM_HOUR >= SIM_TIME_NEVER / SIM_HOUR - 24)
              return FALSE;
            next = (gen->now / SIM_HOUR + 1) * SIM_HOUR;
            while (gen->hourly_rate[(next / SIM_HOUR) % 24] == 0)
              next += SIM_HOUR;
            if (next > stop)
              return FALSE;
            gen->now = next;
            continue;
          }
        if (sim_rng_uniform (gen->thinning) * gen->peak_rate < gen->hourly_rate[hour])
          break;
      }
    }
  *out = gen->now;
  return TRUE;
}

static SimTime
draw_duration (SimGenerator *gen, guint k)
{
  const SimDurationDist *d = &gen->config.classes[k].duration;
  double seconds;
  SimTime t;

  switch (d->kind)
    {
    case SIM_DIST_CONSTANT:
      seconds = d->mean;
      break;
    case SIM_DIST_EXPONENTIAL:
      seconds = sim_rng_exponential (gen->durations, d->mean);
      break;
    case SIM_DIST_LOGNORMAL:
      seconds = sim_rng_lognormal (gen->durations, log (d->median), d->sigma);
      break;
    case SIM_DIST_EMPIRICAL:
    default:
      seconds = d->values[gsl_ran_discrete (sim_rng_gsl (gen->durations),
                                            gen->duration_tables[k])];
      break;
    }
  t = sim_time_from_seconds (seconds);
  return MAX (t, 1);
}

/* @t scaled by @factor, rounded, saturating; at least 1 ns. */
static SimTime
scale_time (SimTime t, double factor)
{
  double v = (double) t * factor;

  if (v >= 9.2e18)
    return SIM_TIME_NEVER;
  return MAX ((SimTime) llround (v), 1);
}

static gboolean
generator_next (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  SimGenerator *gen = (SimGenerator *) workload;
  const SimJobClassConfig *c;
  SimTime submit;
  size_t k, g;

  if (gen->done)
    return FALSE;
  if ((gen->config.max_jobs > 0 && gen->count >= gen->config.max_jobs)
      || !next_arrival (gen, &submit))
    {
      gen->done = TRUE;
      return FALSE;
    }

  k = gsl_ran_discrete (sim_rng_gsl (gen->classes), gen->class_table);
  c = &gen->config.classes[k];
  g = gsl_ran_discrete (sim_rng_gsl (gen->sizes), gen->gpu_tables[k]);

  gen->count++;
  out->id = gen->count;
  out->submit = submit;
  out->duration = draw_duration (gen, (guint) k);
  out->requested = c->estimate_factor > 0 ? scale_time (out->duration, c->estimate_factor) : 0;
  /* A draw from a long tail (lognormal with a large sigma) can exceed what
   * the clock holds: the job could never finish, so the run stops here. */
  if (out->duration >= SIM_TIME_NEVER - submit)
    {
      g_autofree char *drawn = out->duration == SIM_TIME_NEVER
        ? g_strdup ("9.2e9 s or more") : g_strdup_printf ("%.4g s", sim_time_to_seconds (out->duration));

      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "job %" G_GUINT64_FORMAT " of class %s: its drawn duration (%s) would end "
                   "past the end of simulated time (about 292 years): the class's duration "
                   "distribution has too long a tail (lower its sigma or mean)", out->id,
                   c->name != NULL ? c->name : "(unnamed)", drawn);
      gen->done = TRUE;
      return FALSE;
    }
  out->comm = c->comm;
  out->mig_profile = c->mig_profile;
  out->priority = c->priority;
  out->tenant = c->tenant;
  out->gpu_models = c->gpu_models;
  out->gpus = c->gpu_values[g];
  out->gpus_min = c->gpus_min;
  out->gpu_milli = c->gpu_milli > 0 ? c->gpu_milli : 1000;
  out->activity = c->activity;
  out->memory_bound = c->memory_bound;
  out->job_class = (guint32) k;
  out->user = -1;
  out->status = -1;
  return TRUE;
}

static void
generator_finalize (SimWorkload *workload)
{
  SimGenerator *gen = (SimGenerator *) workload;

  for (guint i = 0; i < gen->config.n_classes; i++)
    {
      if (gen->gpu_tables != NULL && gen->gpu_tables[i] != NULL)
        gsl_ran_discrete_free (gen->gpu_tables[i]);
      if (gen->duration_tables != NULL && gen->duration_tables[i] != NULL)
        gsl_ran_discrete_free (gen->duration_tables[i]);
    }
  g_free (gen->gpu_tables);
  g_free (gen->duration_tables);
  if (gen->class_table != NULL)
    gsl_ran_discrete_free (gen->class_table);
  sim_rng_free (gen->arrivals);
  sim_rng_free (gen->thinning);
  sim_rng_free (gen->classes);
  sim_rng_free (gen->sizes);
  sim_rng_free (gen->durations);
  config_clear (&gen->config);
}

static const SimWorkloadVTable generator_vtable = {
  generator_next,
  generator_finalize,
  NULL,
};

/* Sets the hourly rates and the peak from the configuration. */
/* The peak of @config's hourly rates (its rate where it has no profile),
 * in @hourly (24 values) when not NULL. */
static double
peak_rate (const SimGeneratorConfig *config, double *hourly)
{
  double sum = 0, peak = 0;

  for (guint h = 0; h < 24; h++)
    sum += config->profile[h];
  if (!(sum > 0))
    return config->rate;
  for (guint h = 0; h < 24; h++)
    {
      /* rate x profile[h] / mean(profile), the mean being sum / 24. */
      double r = config->rate * (24.0 * config->profile[h] / sum);
      if (hourly != NULL)
        hourly[h] = r;
      peak = MAX (peak, r);
    }
  return peak;
}

gboolean
sim__generator_check_rate (const SimGeneratorConfig *config, GError **error)
{
  double peak = peak_rate (config, NULL);
  gboolean profiled = FALSE;

  for (guint h = 0; h < 24; h++)
    profiled |= config->profile[h] > 0;
  /* Gaps are rounded to whole nanoseconds.  A bound far below 1e9 per
   * second keeps that rounding negligible (under 0.1% of the mean gap) and
   * catches rates given in the wrong unit. */
  if (!(peak <= MAX_RATE))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%g jobs per second%s is too high; at most %g can be represented",
                   peak, profiled ? " (at the profile's peak)" : "", MAX_RATE);
      return FALSE;
    }
  return TRUE;
}

static gboolean
setup_rates (SimGenerator *gen, GError **error)
{
  const SimGeneratorConfig *config = &gen->config;

  if (!sim__generator_check_rate (config, error))
    {
      g_prefix_error (error, "rate: ");
      return FALSE;
    }
  gen->peak_rate = peak_rate (config, gen->hourly_rate);
  for (guint h = 0; h < 24; h++)
    gen->has_profile |= config->profile[h] > 0;
  return TRUE;
}

SimWorkload *
sim_workload_new_generator (const SimGeneratorConfig *config, guint64 seed, GError **error)
{
  g_autoptr (SimWorkload) workload = NULL;
  SimGenerator *gen;
  g_autofree double *shares = NULL;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  sim_init ();
  if (!check_config (config, error))
    return NULL;

  gen = g_new0 (SimGenerator, 1);
  workload = (SimWorkload *) gen;
  sim__workload_init (workload, &generator_vtable, "synthetic");
  config_copy (&gen->config, config);
  if (!setup_rates (gen, error))
    return NULL;

  gen->arrivals = sim_rng_new (seed, "arrivals");
  gen->thinning = sim_rng_new (seed, "thinning");
  gen->classes = sim_rng_new (seed, "classes");
  gen->sizes = sim_rng_new (seed, "sizes");
  gen->durations = sim_rng_new (seed, "durations");

  shares = g_new (double, config->n_classes);
  gen->gpu_tables = g_new0 (gsl_ran_discrete_t *, config->n_classes);
  gen->duration_tables = g_new0 (gsl_ran_discrete_t *, config->n_classes);
  for (guint i = 0; i < config->n_classes; i++)
    {
      const SimJobClassConfig *c = &gen->config.classes[i];

      shares[i] = c->share;
      g_ptr_array_add (workload->class_names, g_strdup (c->name));
      gen->gpu_tables[i] = make_table (c->gpu_weights, c->n_gpu_values);
      if (c->duration.kind == SIM_DIST_EMPIRICAL)
        gen->duration_tables[i] = make_table (c->duration.weights, c->duration.n_values);
      if (gen->gpu_tables[i] == NULL
          || (c->duration.kind == SIM_DIST_EMPIRICAL && gen->duration_tables[i] == NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "class \"%s\": cannot prepare the weights", c->name);
          return NULL;
        }
    }
  gen->class_table = make_table (shares, config->n_classes);
  if (gen->class_table == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "classes: cannot prepare the shares");
      return NULL;
    }
  gen->now = 0;
  return g_steal_pointer (&workload);
}
