/* sim-scaling.c: speed-up curves and throughput tables (see sim-scaling.h). */
#include "config.h"

#include "workload/sim-scaling.h"
#include "core/sim-units.h"
#include "core/sim-error.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>
#include <math.h>
#include <string.h>

static const char * const kind_names[] = { "linear", "amdahl", "table", "comm" };

gboolean
sim_scaling_kind_from_string (const char *text, SimScalingKind *kind, GError **error)
{
  g_return_val_if_fail (text != NULL && kind != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (kind_names); i++)
    if (g_ascii_strcasecmp (text, kind_names[i]) == 0)
      {
        *kind = (SimScalingKind) i;
        return TRUE;
      }
  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
               "\"%s\": expected a scaling model: linear, amdahl, table or comm", text);
  return FALSE;
}

const char *
sim_scaling_kind_to_string (SimScalingKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (kind_names), NULL);
  return kind_names[kind];
}

double
sim_scaling_amdahl (double serial_fraction, double n_gpus)
{
  g_return_val_if_fail (n_gpus >= 1, 1.0);
  return 1.0 / (serial_fraction + (1.0 - serial_fraction) / n_gpus);
}

/* Checks the points of a table: see sim_scaling_parse_table(). */
static gboolean
check_points (const SimScaling *s, GError **error)
{
  if (s->n_points == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "the scaling table is empty: expected measured points \"N:S, ...\", "
                   "e.g. \"1:1, 2:1.98, 4:3.88, 8:7.28\"");
      return FALSE;
    }
  if (s->n_points > SIM_SCALING_MAX_POINTS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the scaling table has %u points: at most %u", s->n_points,
                   SIM_SCALING_MAX_POINTS);
      return FALSE;
    }
  for (guint i = 0; i < s->n_points; i++)
    {
      double n = s->gpus[i], v = s->speedup[i];
      if (!(n >= 1) || n != floor (n) || n > 1e6)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "point %u: %g GPUs: expected a whole number of GPUs >= 1", i + 1, n);
          return FALSE;
        }
      if (i > 0 && n <= s->gpus[i - 1])
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "point %u: %g GPUs after %g: GPU counts must increase", i + 1, n,
                       s->gpus[i - 1]);
          return FALSE;
        }
      if (!(v > 0) || !isfinite (v))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "point %u: speed-up %g: expected a positive number", i + 1, v);
          return FALSE;
        }
      if (v > n * (1 + 1e-9))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "point %u: speed-up %g on %g GPUs is above %g: a job cannot run more "
                       "than N times faster on N GPUs", i + 1, v, n, n);
          return FALSE;
        }
      if (n == 1 && fabs (v - 1) > 1e-9)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "point %u: speed-up %g on 1 GPU: the speed-up on one GPU is 1 by "
                       "definition", i + 1, v);
          return FALSE;
        }
      if (i > 0 && v < s->speedup[i - 1])
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "point %u: speed-up %g on %g GPUs is below %g on %g: the curve must "
                       "not decrease (give the count a job should stop at instead)",
                       i + 1, v, n, s->speedup[i - 1], s->gpus[i - 1]);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
sim_scaling_validate (const SimScaling *scaling, GError **error)
{
  g_return_val_if_fail (scaling != NULL, FALSE);
  switch (scaling->kind)
    {
    case SIM_SCALING_LINEAR:
    case SIM_SCALING_COMM:
      return TRUE;
    case SIM_SCALING_AMDAHL:
      if (!(scaling->serial_fraction >= 0 && scaling->serial_fraction < 1))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "serial fraction %g: expected a number in [0, 1) (0 scales linearly; "
                       "1 would never speed up)", scaling->serial_fraction);
          return FALSE;
        }
      return TRUE;
    case SIM_SCALING_TABLE:
      return check_points (scaling, error);
    default:
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "unknown scaling kind %d",
                   (int) scaling->kind);
      return FALSE;
    }
}

gboolean
sim_scaling_parse_table (const char *text, SimScaling *scaling, GError **error)
{
  g_auto(GStrv) items = NULL;
  SimScaling s = { 0 };
  guint n_items;

  g_return_val_if_fail (text != NULL && scaling != NULL, FALSE);
  items = g_strsplit (text, ",", -1);
  n_items = g_strv_length (items);
  s.kind = SIM_SCALING_TABLE;
  if (n_items == 0 || (n_items == 1 && *g_strstrip (items[0]) == '\0'))
    return check_points (&s, error);
  for (guint i = 0; i < n_items; i++)
    {
      char *item = g_strstrip (items[i]);
      char *colon = strchr (item, ':');
      double n, v;
      if (colon == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected GPUS:SPEEDUP, e.g. \"8:7.28\"", item);
          return FALSE;
        }
      *colon = '\0';
      if (!sim_parse_number (g_strstrip (item), 0, G_MAXDOUBLE, &n, error) ||
          !sim_parse_number (g_strstrip (colon + 1), 0, G_MAXDOUBLE, &v, error))
        {
          g_prefix_error (error, "scaling point %u: ", i + 1);
          return FALSE;
        }
      /* (1, 1) goes in front when the first point is above one GPU. */
      if (i == 0 && n > 1)
        {
          s.gpus[0] = 1;
          s.speedup[0] = 1;
          s.n_points = 1;
        }
      if (s.n_points >= SIM_SCALING_MAX_POINTS)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "the scaling table has more than %u points", SIM_SCALING_MAX_POINTS);
          return FALSE;
        }
      s.gpus[s.n_points] = n;
      s.speedup[s.n_points] = v;
      s.n_points++;
    }
  if (!check_points (&s, error))
    return FALSE;
  *scaling = s;
  return TRUE;
}

/* Interpolates a valid table at N: linear between two points, Steffen's
 * monotone cubic with three or more (it needs three; it keeps the curve
 * monotone between points, which natural splines do not). */
static double
table_speedup (const SimScaling *s, double n)
{
  const gsl_interp_type *type;
  gsl_interp *interp;
  double v;

  if (n <= s->gpus[0])
    return s->speedup[0] * n / s->gpus[0];
  if (n >= s->gpus[s->n_points - 1])
    return s->speedup[s->n_points - 1];
  type = s->n_points >= 3 ? gsl_interp_steffen : gsl_interp_linear;
  interp = gsl_interp_alloc (type, s->n_points);
  if (interp == NULL || gsl_interp_init (interp, s->gpus, s->speedup, s->n_points) != GSL_SUCCESS)
    {
      /* Unreachable for a validated table; fall back to linear pieces. */
      guint i = 1;
      if (interp != NULL)
        gsl_interp_free (interp);
      while (s->gpus[i] < n)
        i++;
      return s->speedup[i - 1] + (s->speedup[i] - s->speedup[i - 1]) * (n - s->gpus[i - 1]) /
                                   (s->gpus[i] - s->gpus[i - 1]);
    }
  v = gsl_interp_eval (interp, s->gpus, s->speedup, n, NULL);
  gsl_interp_free (interp);
  return v;
}

double
sim_scaling_speedup (const SimScaling *scaling, guint n_gpus)
{
  g_return_val_if_fail (scaling != NULL, 1.0);
  g_return_val_if_fail (n_gpus >= 1, 1.0);
  switch (scaling->kind)
    {
    case SIM_SCALING_AMDAHL:
      return sim_scaling_amdahl (scaling->serial_fraction, n_gpus);
    case SIM_SCALING_TABLE:
      return table_speedup (scaling, n_gpus);
    case SIM_SCALING_LINEAR:
    case SIM_SCALING_COMM:
    default:
      return n_gpus;
    }
}

gboolean
sim_throughput_parse (const char *text, SimThroughputTable *table, GError **error)
{
  g_auto(GStrv) items = NULL;
  SimThroughputTable t = { 0 };

  g_return_val_if_fail (text != NULL && table != NULL, FALSE);
  items = g_strsplit (text, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      char *item = g_strstrip (items[i]);
      char *colon = strrchr (item, ':');
      double v;
      if (colon == NULL || colon == item)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected GPU-MODEL:THROUGHPUT, e.g. \"V100-16GB:46.8\"", item);
          return FALSE;
        }
      *colon = '\0';
      g_strstrip (item);
      if (!sim_parse_number (g_strstrip (colon + 1), 0, G_MAXDOUBLE, &v, error))
        {
          g_prefix_error (error, "throughput of %s: ", item);
          return FALSE;
        }
      if (!(v > 0))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "throughput of %s: %g: expected a positive number", item, v);
          return FALSE;
        }
      for (guint k = 0; k < t.n_models; k++)
        if (g_ascii_strcasecmp (t.models[k], item) == 0)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                         "GPU model %s is listed twice", item);
            return FALSE;
          }
      if (t.n_models >= SIM_THROUGHPUT_MAX_MODELS)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "more than %u GPU models in one throughput table",
                       SIM_THROUGHPUT_MAX_MODELS);
          return FALSE;
        }
      t.models[t.n_models] = g_intern_string (item);
      t.throughput[t.n_models] = v;
      t.n_models++;
    }
  if (t.n_models == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "empty throughput table: expected GPU-MODEL:THROUGHPUT pairs");
      return FALSE;
    }
  *table = t;
  return TRUE;
}
