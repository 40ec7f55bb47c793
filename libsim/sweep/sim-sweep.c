/* sim-sweep.c: sweep files, their points and plan, and summaries.
 *
 * Parsing reads the [sweep] section with its own GKeyFile and line table,
 * so that every message names the file, the line and the key.  Points are
 * numbered in mixed radix over the axes (the last fastest), so point P's
 * values are found by division without storing the grid twice.
 */
#include "config.h"

#include "sweep/sim-sweep.h"
#include "sweep/sim-sweep-db.h"
#include "sweep/sim-sweep-db-private.h"
#include "study/sim-plan-private.h"
#include "study/sim-stats.h"
#include "report/sim-report.h"
#include "core/sim-error.h"
#include "scenario/sim-scenario.h"
#include "kernel/sim-simulation.h"
#include "core/sim-util.h"
#include "core/sim-keys.h"
#include "core/sim-read.h"

#include <errno.h>
#include <fcntl.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Points beyond this are refused: a plan keeps one entry per point. */
#define MAX_POINTS 1000000u
#define MAX_RANGE_VALUES 100000u

typedef struct {
  guint  n_keys;    /* keys moving together (1 unless zipped) */
  guint *keys;      /* indices into keys[] */
  guint  n_values;
} Axis;

struct _SimSweep {
  GObject     parent_instance;

  char       *path;
  char       *hash_text;  /* the file without [sweep], for the scenario hash */
  GPtrArray  *keys;       /* char*: "SECTION.KEY" in file order */
  GPtrArray  *values;     /* GPtrArray* of char* per key */
  GArray     *axes;       /* Axis */
  guint       n_points;
  double      level;
  guint       metrics_line;  /* of `metrics =` in [sweep], 0 if absent */
  SimPlan    *plan;
};

G_DEFINE_FINAL_TYPE (SimSweep, sim_sweep, G_TYPE_OBJECT)

static void
sim_sweep_finalize (GObject *object)
{
  SimSweep *self = SIM_SWEEP (object);

  g_free (self->path);
  g_free (self->hash_text);
  g_ptr_array_unref (self->keys);
  g_ptr_array_unref (self->values);
  for (guint a = 0; a < self->axes->len; a++)
    g_free (g_array_index (self->axes, Axis, a).keys);
  g_array_unref (self->axes);
  g_clear_object (&self->plan);
  G_OBJECT_CLASS (sim_sweep_parent_class)->finalize (object);
}

static void
sim_sweep_class_init (SimSweepClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_sweep_finalize;
}

static void
sim_sweep_init (SimSweep *self)
{
  self->keys = g_ptr_array_new_with_free_func (g_free);
  self->values = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  self->axes = g_array_new (FALSE, TRUE, sizeof (Axis));
  self->level = 0.95;
}

/* "FILE:LINE: [sweep] KEY: " before an error. */
static void
locate (const char *path, const SimKeyLines *lines, const char *key, GError **error)
{
  guint line = sim__key_lines_find (lines, "sweep", key);

  if (line > 0)
    g_prefix_error (error, "%s:%u: [sweep] %s: ", path, line, key);
  else
    g_prefix_error (error, "%s: [sweep] %s: ", path, key);
}

static gboolean
parse_number (const char *s, double *out)
{
  char *end;
  g_autofree char *t = g_strstrip (g_strdup (s));

  if (*t == '\0')
    return FALSE;
  *out = g_ascii_strtod (t, &end);
  return *end == '\0' && isfinite (*out);
}

/* A number with an optional unit after it ("4/h", "30min", "2"). */
static gboolean
parse_number_unit (const char *s, double *out, char **unit)
{
  char *end;
  g_autofree char *t = g_strstrip (g_strdup (s));

  if (*t == '\0')
    return FALSE;
  *out = g_ascii_strtod (t, &end);
  if (end == t || !isfinite (*out))
    return FALSE;
  *unit = g_strstrip (g_strdup (end));
  return TRUE;
}

static char *
format_number (double x, gboolean integral, const char *unit)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (integral)
    return g_strdup_printf ("%.0f%s", x, unit);
  return g_strdup_printf ("%s%s", g_ascii_formatd (buf, sizeof buf, "%.10g", x), unit);
}

/* A key's values: "A..B [step S]" (numbers) or "V1, V2, ...". */
static GPtrArray *
parse_values (const char *raw, GError **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (g_free);
  const char *dots = strstr (raw, "..");

  if (*raw == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "no value: expected values separated by "
                   "commas, or a range START..STOP [step STEP]");
      return NULL;
    }
  if (dots != NULL && strchr (raw, ',') == NULL)
    {
      g_autofree char *a_text = g_strndup (raw, (gsize) (dots - raw));
      g_autofree char *rest = g_strdup (dots + 2);
      g_autofree char *ua = NULL, *ub = NULL, *us = NULL;
      const char *unit;
      char *step_word = strstr (rest, "step");
      double a, b, step = 1;
      guint64 n;
      gboolean integral;

      if (step_word != NULL)
        {
          *step_word = '\0';
          if (!parse_number_unit (step_word + 4, &step, &us) || step <= 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                           "\"%s\": expected a positive step after \"step\"", raw);
              return NULL;
            }
        }
      if (!parse_number_unit (a_text, &a, &ua) || !parse_number_unit (rest, &b, &ub))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected a range of numbers, START..STOP [step STEP] "
                       "(e.g. 4..16 step 4, or 1/h..4/h step 0.5/h), or a list of values "
                       "separated by commas", raw);
          return NULL;
        }
      unit = *ua ? ua : *ub ? ub : us ? us : "";
      if ((*ua && strcmp (ua, unit) != 0) || (*ub && strcmp (ub, unit) != 0) ||
          (us && *us && strcmp (us, unit) != 0))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "\"%s\": the start, stop and step of a range take one unit", raw);
          return NULL;
        }
      if (b < a)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "\"%s\": the range ends before it starts", raw);
          return NULL;
        }
      /* Counted in double first: a tiny step gives more values than a
       * guint64 holds, and the cast would wrap to a single point. */
      {
        double count = floor ((b - a) / step + 1e-9) + 1;

        if (!(count <= MAX_RANGE_VALUES))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                         "\"%s\": %.3g values, at most %u in a range", raw, count,
                         MAX_RANGE_VALUES);
            return NULL;
          }
        n = (guint64) count;
      }
      integral = a == floor (a) && step == floor (step) && fabs (a) < 1e15 && fabs (b) < 1e15;
      for (guint64 i = 0; i < n; i++)
        {
          char *v = format_number (a + (double) i * step, integral, unit);

          /* A step below the values' printed precision would run one
           * point several times under different labels. */
          if (i > 0 && strcmp (v, out->pdata[out->len - 1]) == 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\": the step is too small to tell %s from the value before: "
                           "expected a larger step", raw, v);
              g_free (v);
              return NULL;
            }
          g_ptr_array_add (out, v);
        }
      return g_steal_pointer (&out);
    }

  {
    g_auto(GStrv) parts = g_strsplit (raw, ",", -1);
    for (guint i = 0; parts[i] != NULL; i++)
      {
        char *v = g_strstrip (parts[i]);
        if (*v == '\0')
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                         "\"%s\": value %u is empty (expected values separated by commas, "
                         "or a range START..STOP [step STEP])", raw, i + 1);
            return NULL;
          }
        for (guint j = 0; j < out->len; j++)
          if (strcmp (out->pdata[j], v) == 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\": the value \"%s\" is given twice", raw, v);
              return NULL;
            }
        g_ptr_array_add (out, g_strdup (v));
      }
  }
  return g_steal_pointer (&out);
}

/* The file's text without its [sweep] section. */
static char *
strip_sweep_section (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (NULL);
  gboolean in_sweep = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i] + strspn (lines[i], " \t");
      if (*l == '[')
        {
          g_autofree char *head = g_strstrip (g_strdup (l));
          in_sweep = strcmp (head, "[sweep]") == 0;
        }
      if (!in_sweep)
        {
          g_string_append (out, lines[i]);
          g_string_append_c (out, '\n');
        }
    }
  return g_string_free (out, FALSE);
}

static const SimKey sweep_keys[] = {
  { "seeds", SIM_KEY_INT, NULL, "1 to 100000", "1", "the seeds each point is run with", 0, NULL,
    0 },
  { "first_seed", SIM_KEY_INT, NULL, "0 to 2^64-1", "[scenario] seed",
    "the first of the seeds (the others follow it)", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "metrics", SIM_KEY_LIST, NULL, NULL, "all",
    "the metrics summed up over the seeds, by name", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "zip", SIM_KEY_LIST, NULL, NULL, NULL,
    "keys that vary together rather than across, \"a.x, b.y\"; groups separated by ';'", 0,
    NULL, 0 },
  { "level", SIM_KEY_NUMBER, NULL, "above 0, below 1", "0.95",
    "the confidence level of the intervals", 0, NULL, 0 },
};

/* SECTION.KEY = VALUES: an axis of the sweep, with a dot neither first
 * nor last. */
static gboolean
is_axis_key (const char *key)
{
  return strchr (key, '.') != NULL && key[0] != '.' && !g_str_has_suffix (key, ".");
}

const SimKeyTable sim__sweep_key_table = {
  "sweep", FALSE, "The axes of a sweep and how each point is run (`gpusim sweep`)", sweep_keys,
  G_N_ELEMENTS (sweep_keys), is_axis_key,
  "SECTION.KEY = VALUES, an axis: the values of another section's key, separated by commas "
  "(such as workload.rate = 2/h, 4/h)",
};

static gboolean
parse_sweep (SimSweep *self, GKeyFile *kf, const SimKeyLines *lines, guint *n_seeds,
             gboolean *have_first, guint64 *first_seed, GPtrArray *metrics, GPtrArray *zips,
             GError **error)
{
  g_auto(GStrv) keys = g_key_file_get_keys (kf, "sweep", NULL, NULL);

  for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
    {
      const char *key = keys[k];
      g_autofree char *raw = g_key_file_get_value (kf, "sweep", key, NULL);
      g_strstrip (raw);

      if (strcmp (key, "seeds") == 0)
        {
          guint64 n;
          if (!g_ascii_string_to_unsigned (raw, 10, 1, 100000, &n, NULL))
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\": expected a number of seeds per point, 1 to 100000", raw);
              locate (self->path, lines, key, error);
              return FALSE;
            }
          *n_seeds = (guint) n;
        }
      else if (strcmp (key, "first_seed") == 0)
        {
          if (!g_ascii_string_to_unsigned (raw, 10, 0, G_MAXUINT64, first_seed, NULL))
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\": expected a non-negative integer", raw);
              locate (self->path, lines, key, error);
              return FALSE;
            }
          *have_first = TRUE;
        }
      else if (strcmp (key, "level") == 0)
        {
          double level;
          if (!parse_number (raw, &level) || level <= 0 || level >= 1)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\": expected a confidence level between 0 and 1, e.g. 0.95",
                           raw);
              locate (self->path, lines, key, error);
              return FALSE;
            }
          self->level = level;
        }
      else if (strcmp (key, "metrics") == 0)
        {
          g_auto(GStrv) parts = g_strsplit (raw, ",", -1);
          for (guint i = 0; parts[i] != NULL; i++)
            {
              char *m = g_strstrip (parts[i]);
              if (*m == '\0')
                {
                  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                               "\"%s\": expected metric names separated by commas", raw);
                  locate (self->path, lines, key, error);
                  return FALSE;
                }
              g_ptr_array_add (metrics, g_strdup (m));
            }
        }
      else if (strcmp (key, "zip") == 0)
        {
          g_auto(GStrv) groups = g_strsplit (raw, ";", -1);
          for (guint g = 0; groups[g] != NULL; g++)
            {
              g_auto(GStrv) parts = g_strsplit (groups[g], ",", -1);
              GPtrArray *group = g_ptr_array_new_with_free_func (g_free);
              g_ptr_array_add (zips, group);
              for (guint i = 0; parts[i] != NULL; i++)
                {
                  char *z = g_strstrip (parts[i]);
                  if (*z != '\0')
                    g_ptr_array_add (group, g_strdup (z));
                }
              if (group->len < 2)
                {
                  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                               "\"%s\": expected two keys or more, separated by commas, that "
                               "vary together (groups separated by ';')", g_strstrip (groups[g]));
                  locate (self->path, lines, key, error);
                  return FALSE;
                }
            }
        }
      else if (!is_axis_key (key))
        {
          sim__keys_set_unknown (&sim__sweep_key_table, key, error);
          locate (self->path, lines, key, error);
          return FALSE;
        }
      else
        {
          GPtrArray *values = parse_values (raw, error);
          if (values == NULL)
            {
              locate (self->path, lines, key, error);
              return FALSE;
            }
          g_ptr_array_add (self->keys, g_strdup (key));
          g_ptr_array_add (self->values, values);
        }
    }
  return TRUE;
}

static gint
key_index (SimSweep *self, const char *key)
{
  for (guint i = 0; i < self->keys->len; i++)
    if (strcmp (self->keys->pdata[i], key) == 0)
      return (gint) i;
  return -1;
}

/* Groups keys into axes: a zip group is one axis at its first key. */
static gboolean
make_axes (SimSweep *self, GPtrArray *zips, const SimKeyLines *lines, GError **error)
{
  g_autofree gint *zip_of = g_new (gint, MAX (self->keys->len, 1));
  guint64 n_points = 1;

  for (guint i = 0; i < self->keys->len; i++)
    zip_of[i] = -1;
  for (guint z = 0; z < zips->len; z++)
    {
      GPtrArray *group = zips->pdata[z];
      for (guint i = 0; i < group->len; i++)
        {
          gint k = key_index (self, group->pdata[i]);
          guint nk, n0;
          if (k < 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\" is not a swept key of this section (zip names keys that "
                           "have values here)", (char *) group->pdata[i]);
              locate (self->path, lines, "zip", error);
              return FALSE;
            }
          if (zip_of[k] >= 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\" is zipped twice", (char *) group->pdata[i]);
              locate (self->path, lines, "zip", error);
              return FALSE;
            }
          zip_of[k] = (gint) z;
          nk = ((GPtrArray *) self->values->pdata[k])->len;
          n0 = ((GPtrArray *) self->values->pdata[key_index (self, group->pdata[0])])->len;
          if (nk != n0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\" has %u value%s but \"%s\" has %u value%s: zipped keys "
                           "need as many", (char *) group->pdata[i], nk, nk == 1 ? "" : "s",
                           (char *) group->pdata[0], n0, n0 == 1 ? "" : "s");
              locate (self->path, lines, "zip", error);
              return FALSE;
            }
        }
    }
  for (guint k = 0; k < self->keys->len; k++)
    {
      Axis axis = { 0 };
      gboolean seen = FALSE;
      if (zip_of[k] >= 0)
        for (guint j = 0; j < k; j++)
          if (zip_of[j] == zip_of[k])
            seen = TRUE;
      if (seen)
        continue;
      axis.keys = g_new (guint, self->keys->len);
      for (guint j = k; j < self->keys->len; j++)
        if (j == k || (zip_of[k] >= 0 && zip_of[j] == zip_of[k]))
          axis.keys[axis.n_keys++] = j;
      axis.n_values = ((GPtrArray *) self->values->pdata[k])->len;
      g_array_append_val (self->axes, axis);
      n_points *= axis.n_values;
      if (n_points > MAX_POINTS)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "the grid has more than %u points; split the sweep into several files",
                       MAX_POINTS);
          locate (self->path, lines, self->keys->pdata[k], error);
          return FALSE;
        }
    }
  self->n_points = (guint) n_points;
  return TRUE;
}

/* The value index of key K at point P. */
static guint
value_index (SimSweep *self, guint point, guint key)
{
  for (gint a = (gint) self->axes->len - 1; a >= 0; a--)
    {
      Axis *axis = &g_array_index (self->axes, Axis, a);
      guint i = point % axis->n_values;
      for (guint j = 0; j < axis->n_keys; j++)
        if (axis->keys[j] == key)
          return i;
      point /= axis->n_values;
    }
  g_return_val_if_reached (0);
}

/* Loads the scenario with each axis value alone, so that a bad key or value
 * is reported at its line before anything runs, and builds the first point
 * (what only a build finds: models, the fabric).  Loading costs about a
 * fiftieth of building (0.05 ms against 1.9 ms for the quick start), so
 * every value is loaded but only one point built; a value that fails only
 * when built fails its runs, with the same file, line and key. */
static gboolean
check_axis_values (SimSweep *self, const char * const *overrides, GError **error)
{
  for (guint a = 0; a < self->axes->len; a++)
    {
      Axis *axis = &g_array_index (self->axes, Axis, a);
      for (guint v = 0; v < axis->n_values; v++)
        {
          g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_free);
          g_autoptr(SimScenario) sc = NULL;
          for (guint i = 0; overrides != NULL && overrides[i] != NULL; i++)
            g_ptr_array_add (all, g_strdup (overrides[i]));
          g_ptr_array_add (all, g_strdup ("[sweep]"));
          for (guint j = 0; j < axis->n_keys; j++)
            {
              guint k = axis->keys[j];
              g_ptr_array_add (all, g_strdup_printf ("%s=%s", (char *) self->keys->pdata[k],
                                                     (char *) ((GPtrArray *) self->values->pdata[k])->pdata[v]));
            }
          g_ptr_array_add (all, NULL);
          sc = sim_scenario_load (self->path, (const char * const *) all->pdata, error);
          if (sc == NULL)
            return FALSE;
        }
    }
  return TRUE;
}

/* Builds point 0 on the first seed. */
static gboolean
check_first_point (SimSweep *self, GError **error)
{
  g_autoptr(SimSimulation) sim = sim_plan_build_run (self->plan, 0, error);

  return sim != NULL;
}

SimSweep *
sim_sweep_new (const char *path, const char * const *overrides, GError **error)
{
  g_autoptr(SimSweep) self = NULL;
  g_autofree char *text = NULL;
  gsize len;
  g_autoptr(GError) local = NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(SimKeyLines) lines = NULL;
  g_autoptr(GPtrArray) metrics = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) zips = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  guint n_seeds = 1;
  gboolean have_first = FALSE;
  guint64 first_seed = 0;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  text = sim__read_file (path, SIM_READ_TEXT, &len, error);
  if (text == NULL)
    return NULL;
  self = g_object_new (SIM_TYPE_SWEEP, NULL);
  self->path = g_strdup (path);
  self->hash_text = strip_sweep_section (text);
  /* The scenario loader reports a malformed file with its line; the
   * sweep's own parse starts from a file it accepts. */
  self->plan = sim_plan_new (path, overrides, error);
  if (self->plan == NULL)
    return NULL;
  if (!sim__key_file_load (kf, text, len, &local) ||
      (lines = sim__key_lines_new (text, (gssize) len, path, error)) == NULL)
    {
      if (local != NULL)
        g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: %s", path, local->message);
      return NULL;
    }
  if (!g_key_file_has_group (kf, "sweep"))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: no [sweep] section (expected one listing the values per key, e.g. "
                   "\"workload.rate = 2/h, 4/h\")", path);
      return NULL;
    }
  if (!parse_sweep (self, kf, lines, &n_seeds, &have_first, &first_seed, metrics, zips, error) ||
      !make_axes (self, zips, lines, error) ||
      !check_axis_values (self, overrides, error))
    return NULL;
  self->metrics_line = sim__key_lines_find (lines, "sweep", "metrics");

  for (guint p = 0; p < self->n_points; p++)
    {
      g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func (g_free);
      GString *label = g_string_new (NULL);
      g_autofree char *name = NULL;
      g_ptr_array_add (sets, g_strdup ("[sweep]"));
      for (guint k = 0; k < self->keys->len; k++)
        {
          const char *v = sim_sweep_get_point_value (self, p, k);
          g_ptr_array_add (sets, g_strdup_printf ("%s=%s", (char *) self->keys->pdata[k], v));
          g_string_append_printf (label, "%s%s=%s", k ? " " : "", (char *) self->keys->pdata[k], v);
        }
      if (self->keys->len == 0)
        g_string_append (label, "scenario");
      g_ptr_array_add (sets, NULL);
      name = g_string_free (label, FALSE);
      sim__plan_add_variant_unchecked (self->plan, name, (const char * const *) sets->pdata);
    }
  for (guint m = 0; m < metrics->len; m++)
    sim_plan_add_metric (self->plan, metrics->pdata[m]);
  sim_plan_set_seeds (self->plan, have_first ? first_seed : sim_plan_get_seed (self->plan, 0),
                      n_seeds);
  /* The number of runs is checked against SIM_PLAN_MAX_RUNS when they
   * run (sim_sweep_run()), once the caller could force the plan; the rest
   * of the plan now. */
  sim_plan_set_force (self->plan, TRUE);
  if (!sim_plan_check (self->plan, error))
    {
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  sim_plan_set_force (self->plan, FALSE);
  if (!check_first_point (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

SimSweep *
sim_sweep_new_for_plan (SimPlan *plan, GError **error)
{
  g_autoptr(SimSweep) self = NULL;
  g_autofree char *text = NULL;
  GPtrArray *labels;
  gboolean all_policies = TRUE;
  Axis axis = { 0 };

  g_return_val_if_fail (SIM_IS_PLAN (plan), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!sim_plan_check (plan, error))
    return NULL;
  text = sim__read_file (sim_plan_get_scenario_path (plan), SIM_READ_TEXT, NULL, error);
  if (text == NULL)
    return NULL;
  self = g_object_new (SIM_TYPE_SWEEP, NULL);
  self->path = g_strdup (sim_plan_get_scenario_path (plan));
  self->hash_text = strip_sweep_section (text);
  self->plan = g_object_ref (plan);
  labels = g_ptr_array_new_with_free_func (g_free);
  for (guint e = 0; e < sim_plan_get_n_entries (plan); e++)
    {
      g_ptr_array_add (labels, g_strdup (sim_plan_get_entry_label (plan, e)));
      all_policies = all_policies && sim_plan_get_entry_kind (plan, e) == SIM_PLAN_ENTRY_POLICY;
    }
  g_ptr_array_add (self->keys, g_strdup (all_policies ? "policy" : "entry"));
  g_ptr_array_add (self->values, labels);
  axis.n_keys = 1;
  axis.keys = g_new0 (guint, 1);
  axis.n_values = labels->len;
  g_array_append_val (self->axes, axis);
  self->n_points = labels->len;
  return g_steal_pointer (&self);
}

SimPlan *
sim_sweep_get_plan (SimSweep *self)
{
  g_return_val_if_fail (SIM_IS_SWEEP (self), NULL);
  return self->plan;
}

guint
sim_sweep_get_n_axes (SimSweep *self)
{
  g_return_val_if_fail (SIM_IS_SWEEP (self), 0);
  return self->keys->len;
}

const char *
sim_sweep_get_axis_key (SimSweep *self, guint axis)
{
  g_return_val_if_fail (SIM_IS_SWEEP (self), NULL);
  g_return_val_if_fail (axis < self->keys->len, NULL);
  return self->keys->pdata[axis];
}

guint
sim_sweep_get_n_points (SimSweep *self)
{
  g_return_val_if_fail (SIM_IS_SWEEP (self), 0);
  return self->n_points;
}

const char *
sim_sweep_get_point_value (SimSweep *self, guint point, guint axis)
{
  g_return_val_if_fail (SIM_IS_SWEEP (self), NULL);
  g_return_val_if_fail (point < self->n_points && axis < self->keys->len, NULL);
  return ((GPtrArray *) self->values->pdata[axis])->pdata[value_index (self, point, axis)];
}

double
sim_sweep_get_level (SimSweep *self)
{
  g_return_val_if_fail (SIM_IS_SWEEP (self), 0.95);
  return self->level;
}

char *
sim_sweep_dup_scenario_hash (SimSweep *self, guint run)
{
  g_return_val_if_fail (SIM_IS_SWEEP (self), NULL);
  g_return_val_if_fail (run < sim_plan_get_n_runs (self->plan), NULL);
  return sim__sweep_db_hash_run (self->hash_text, self->plan, run);
}

SimSweepDb *
sim_sweep_db_open (const char *path, SimSweep *sweep, GError **error)
{
  g_autoptr(GPtrArray) values = g_ptr_array_new ();
  SimSweepDbSpec spec;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (SIM_IS_SWEEP (sweep), NULL);
  for (guint p = 0; p < sweep->n_points; p++)
    for (guint k = 0; k < sweep->keys->len; k++)
      g_ptr_array_add (values, (gpointer) sim_sweep_get_point_value (sweep, p, k));
  spec.plan = sweep->plan;
  spec.scenario_path = sim_plan_get_scenario_path (sweep->plan);
  spec.axis_keys = (const char * const *) sweep->keys->pdata;
  spec.n_axes = sweep->keys->len;
  spec.n_points = sweep->n_points;
  spec.point_values = (const char * const *) values->pdata;
  spec.hash_text = sweep->hash_text;
  return sim__sweep_db_open (path, &spec, error);
}

guint *
sim_sweep_dup_shard_runs (SimSweep *self, guint shard, guint n_shards, guint *n_runs)
{
  guint total;
  guint *runs;

  g_return_val_if_fail (SIM_IS_SWEEP (self), NULL);
  g_return_val_if_fail (n_shards >= 1 && shard < n_shards && n_runs != NULL, NULL);
  total = sim_plan_get_n_runs (self->plan);
  runs = g_new (guint, total / n_shards + 1);
  *n_runs = 0;
  for (guint r = shard; r < total; r += n_shards)
    runs[(*n_runs)++] = r;
  return runs;
}

/* ------------------------------------------------------------------------- */
/* Running: the database and the CSV lines as runs finish.                    */

typedef struct {
  SimSweep       *sweep;
  SimSweepDb     *db;
  SimPlanResults *results;
  int             csv_fd;
  GMutex          lock;
  GError         *error;  /* the first write that failed */
} Sink;

static GString *
csv_header (SimSweep *self)
{
  GString *out = g_string_new ("point,label,seed");
  SimPlan *plan = self->plan;

  for (guint k = 0; k < self->keys->len; k++)
    {
      g_string_append_c (out, ',');
      sim__csv_append_field (out, self->keys->pdata[k]);
    }
  g_string_append (out, ",scenario_hash");
  for (guint m = 0; m < sim_plan_get_n_metrics (plan); m++)
    {
      g_string_append_c (out, ',');
      sim__csv_append_field (out, sim_plan_get_metric (plan, m));
    }
  g_string_append_c (out, '\n');
  return out;
}

static void
csv_append_run (SimSweep *self, SimPlanResults *results, guint run, GString *out)
{
  SimPlan *plan = self->plan;
  guint point = sim_plan_get_run_entry (plan, run);
  g_autofree char *hash = sim_sweep_dup_scenario_hash (self, run);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (out, "%u,", point);
  sim__csv_append_field (out, sim_plan_get_entry_label (plan, point));
  g_string_append_printf (out, ",%" G_GUINT64_FORMAT, sim_plan_get_run_seed (plan, run));
  for (guint k = 0; k < self->keys->len; k++)
    {
      g_string_append_c (out, ',');
      sim__csv_append_field (out, sim_sweep_get_point_value (self, point, k));
    }
  g_string_append_printf (out, ",%s", hash);
  for (guint m = 0; m < sim_plan_get_n_metrics (plan); m++)
    g_string_append_printf (out, ",%s",
                            g_ascii_formatd (buf, sizeof buf, "%.17g",
                                             sim_plan_results_get_value (results, run, m)));
  g_string_append_c (out, '\n');
}

/* In the worker thread that ran RUN: the row, then the CSV line, each one
 * write that is whole once it returns. */
static void
sink_report (SimPlan *plan, guint run, SimReport *report, gpointer data)
{
  Sink *sink = data;
  g_autoptr(GError) error = NULL;

  g_mutex_lock (&sink->lock);
  if (sink->db != NULL && !sim_sweep_db_add_report (sink->db, run, report, &error) &&
      sink->error == NULL)
    sink->error = g_steal_pointer (&error);
  if (sink->csv_fd >= 0)
    {
      g_autoptr(GString) line = g_string_new (NULL);
      csv_append_run (sink->sweep, sink->results, run, line);
      /* One write(2) with O_APPEND: a line is in the file whole or not at all. */
      if (write (sink->csv_fd, line->str, line->len) != (gssize) line->len && sink->error == NULL)
        g_set_error (&sink->error, SIM_ERROR, SIM_ERROR_IO, "cannot append to the CSV file: %s",
                     g_strerror (errno));
    }
  g_mutex_unlock (&sink->lock);
}

SimPlanResults *
sim_sweep_run (SimSweep *self, SimExecutor *executor, const guint *runs, guint n_runs,
               const char *db_path, const char *csv_path, GError **error)
{
  g_autoptr(SimPlanResults) results = NULL;
  g_autoptr(SimExecutor) own = NULL;
  g_autoptr(SimSweepDb) db = NULL;
  g_autofree guint *todo = NULL;
  Sink sink = { self, NULL, NULL, -1, { 0 }, NULL };
  guint n_todo = 0;
  gboolean ok;

  g_return_val_if_fail (SIM_IS_SWEEP (self), NULL);
  g_return_val_if_fail (executor == NULL || SIM_IS_EXECUTOR (executor), NULL);
  g_return_val_if_fail (runs != NULL || n_runs == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!sim_plan_check (self->plan, error))
    {
      g_prefix_error (error, "%s: ", self->path);
      return NULL;
    }

  results = sim_plan_results_new (self->plan);
  if (db_path != NULL)
    {
      db = sim_sweep_db_open (db_path, self, error);
      if (db == NULL || sim_sweep_db_resume (db, results, error) < 0)
        return NULL;
    }
  /* The runs asked for (all by default) that the database did not have. */
  {
    guint total = sim_plan_get_n_runs (self->plan);
    guint n = runs != NULL ? n_runs : total;
    todo = g_new (guint, MAX (n, 1));
    for (guint i = 0; i < n; i++)
      {
        guint r = runs != NULL ? runs[i] : i;
        if (r < total && sim_plan_results_get_state (results, r) == SIM_PLAN_RUN_DONE)
          continue;
        todo[n_todo++] = r;
      }
  }
  if (csv_path != NULL)
    {
      gboolean fresh = !g_file_test (csv_path, G_FILE_TEST_EXISTS);
      sink.csv_fd = open (csv_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
      if (sink.csv_fd < 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: %s", csv_path, g_strerror (errno));
          return NULL;
        }
      if (fresh)
        {
          g_autoptr(GString) header = csv_header (self);
          if (write (sink.csv_fd, header->str, header->len) != (gssize) header->len)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: %s", csv_path,
                           g_strerror (errno));
              close (sink.csv_fd);
              return NULL;
            }
        }
    }
  sink.db = db;
  sink.results = results;
  g_mutex_init (&sink.lock);
  if (executor == NULL)
    executor = own = sim_thread_executor_new (0);
  if (db != NULL || sink.csv_fd >= 0)
    sim_plan_set_report_func (self->plan, sink_report, &sink, NULL);
  ok = n_todo == 0 || sim_executor_execute (executor, results, todo, n_todo, error);
  sim_plan_set_report_func (self->plan, NULL, NULL, NULL);
  g_mutex_clear (&sink.lock);
  if (sink.csv_fd >= 0)
    close (sink.csv_fd);
  if (!ok)
    {
      g_clear_error (&sink.error);
      return NULL;
    }
  if (sink.error != NULL)
    {
      g_propagate_error (error, sink.error);
      return NULL;
    }
  /* A metric that no run's report has fails every run alike: it is the
   * file's error, named at its line, and there is no table to print. */
  for (guint r = 0; self->metrics_line > 0 && r < sim_plan_get_n_runs (self->plan); r++)
    {
      const GError *e = sim_plan_results_get_error (results, r);

      if (e != NULL && g_error_matches (e, SIM_ERROR, SIM_ERROR_NOT_FOUND) &&
          g_str_has_prefix (e->message, "unknown metric \""))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND, "%s:%u: [sweep] metrics: %s",
                       self->path, self->metrics_line, e->message);
          return NULL;
        }
    }
  /* The CSV in run order, the same bytes for any executor. */
  if (csv_path != NULL && !sim_sweep_write_runs_csv (self, results, csv_path, error))
    return NULL;
  return g_steal_pointer (&results);
}

gboolean
sim_sweep_write_runs_csv (SimSweep *self, SimPlanResults *results, const char *path,
                          GError **error)
{
  g_autoptr(GString) out = NULL;

  g_return_val_if_fail (SIM_IS_SWEEP (self), FALSE);
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (results), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  out = csv_header (self);
  for (guint r = 0; r < sim_plan_get_n_runs (self->plan); r++)
    if (sim_plan_results_get_state (results, r) == SIM_PLAN_RUN_DONE)
      csv_append_run (self, results, r, out);
  return sim__write_file_atomic (path, out->str, (gssize) out->len, error);
}

/* ------------------------------------------------------------------------- */
/* Summaries.                                                                 */

static gboolean
point_interval (SimSweep *self, SimPlanResults *results, guint point, guint metric,
                SimCompareInterval *iv)
{
  guint n;
  g_autofree double *x = sim_plan_results_dup_samples (results, point, metric, &n);

  sim_compare_interval (x, n, self->level, iv);
  return isfinite (iv->mean);
}

/* A figure of the table as the run's summary writes it: a duration for a
 * time in seconds, dollars for USD, else a number with its thousands and
 * no exponent (the column's head gives the unit); "-" for none. */
static char *
format_value (double x, const char *unit)
{
  if (!isfinite (x))
    return g_strdup ("-");
  if (g_strcmp0 (unit, "s") == 0 || g_strcmp0 (unit, "USD") == 0)
    return sim_format_value (x, unit);
  return sim_format_number (x);
}

/* Whether the table's figures of UNIT say their unit themselves. */
static gboolean
unit_in_figures (const char *unit)
{
  return g_strcmp0 (unit, "s") == 0 || g_strcmp0 (unit, "USD") == 0;
}

char *
sim_sweep_format_table (SimSweep *self, SimPlanResults *results)
{
  SimPlan *plan;
  guint n_cols, n_metrics;
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  g_autofree guint *width = NULL;
  g_autofree gboolean *identical = NULL;
  guint n_identical = 0;
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (SIM_IS_SWEEP (self), NULL);
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (results), NULL);
  plan = self->plan;
  n_metrics = sim_plan_get_n_metrics (plan);
  n_cols = self->keys->len + n_metrics;
  identical = g_new0 (gboolean, MAX (n_metrics, 1));
  width = g_new0 (guint, MAX (n_cols, 1));

  g_string_append_printf (out, "sweep %s: %u points x %u seeds", sim_plan_get_scenario_name (plan),
                          self->n_points, sim_plan_get_n_seeds (plan));
  if (sim_plan_get_n_seeds (plan) > 1)
    g_string_append_printf (out, ", mean [%g%% interval]", self->level * 100);
  g_string_append (out, "\n\n");

  for (guint k = 0; k < self->keys->len; k++)
    g_ptr_array_add (cells, g_strdup (self->keys->pdata[k]));
  for (guint m = 0; m < n_metrics; m++)
    {
      const char *unit = sim_plan_results_get_unit (results, m);
      g_ptr_array_add (cells, unit && *unit && !unit_in_figures (unit)
                              ? g_strdup_printf ("%s (%s)", sim_plan_get_metric (plan, m), unit)
                              : g_strdup (sim_plan_get_metric (plan, m)));
    }
  for (guint p = 0; p < self->n_points; p++)
    {
      for (guint k = 0; k < self->keys->len; k++)
        g_ptr_array_add (cells, g_strdup (sim_sweep_get_point_value (self, p, k)));
      for (guint m = 0; m < n_metrics; m++)
        {
          SimCompareInterval iv;
          const char *unit = sim_plan_results_get_unit (results, m);
          g_autofree char *mean = NULL, *hw = NULL;
          point_interval (self, results, p, m, &iv);
          mean = format_value (iv.mean, unit);
          if (iv.identical && !identical[m])
            {
              identical[m] = TRUE;
              n_identical++;
            }
          if (isfinite (iv.half_width) && iv.symmetric)
            {
              hw = format_value (iv.half_width, unit);
              g_ptr_array_add (cells, g_strdup_printf ("%s ±%s", mean, hw));
            }
          else if (isfinite (iv.half_width))
            {
              g_autofree char *low = format_value (iv.low, unit);
              g_autofree char *high = format_value (iv.high, unit);
              g_ptr_array_add (cells, g_strdup_printf ("%s [%s, %s]", mean, low, high));
            }
          else
            g_ptr_array_add (cells, g_steal_pointer (&mean));
        }
    }
  for (guint i = 0; i < cells->len; i++)
    width[i % n_cols] = MAX (width[i % n_cols], (guint) g_utf8_strlen (cells->pdata[i], -1));
  for (guint i = 0; i < cells->len; i++)
    {
      guint c = i % n_cols;
      const char *s = cells->pdata[i];
      guint pad = width[c] - (guint) g_utf8_strlen (s, -1);
      if (c > 0)
        g_string_append (out, "  ");
      if (c < self->keys->len)
        {
          g_string_append (out, s);
          if (c + 1 < n_cols)
            for (guint j = 0; j < pad; j++)
              g_string_append_c (out, ' ');
        }
      else
        {
          for (guint j = 0; j < pad; j++)
            g_string_append_c (out, ' ');
          g_string_append (out, s);
        }
      if (c + 1 == n_cols)
        g_string_append_c (out, '\n');
    }
  /* A point whose runs all gave the same value has no interval (see
   * sim-stats.h): say so, rather than let a bare mean pass for a sure one. */
  if (n_identical > 0)
    {
      g_string_append (out, "\nwarning: at some points every run gave the same value for ");
      for (guint m = 0, k = 0; m < n_metrics; m++)
        if (identical[m])
          g_string_append_printf (out, "%s%s", k++ > 0 ? ", " : "", sim_plan_get_metric (plan, m));
      g_string_append (out, ": those points show the value without an interval, as runs "
                       "that do not vary say nothing of the spread (a trace replayed whole "
                       "is the same on every seed; [workload] variation makes each seed a "
                       "sample of it: docs/statistics.md)\n");
    }
  return g_string_free (out, FALSE);
}

static void
add_number (JsonBuilder *b, const char *name, double x)
{
  json_builder_set_member_name (b, name);
  if (isfinite (x))
    json_builder_add_double_value (b, x);
  else
    json_builder_add_null_value (b);
}

char *
sim_sweep_to_json (SimSweep *self, SimPlanResults *results)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  SimPlan *plan;

  g_return_val_if_fail (SIM_IS_SWEEP (self), NULL);
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (results), NULL);
  plan = self->plan;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "scenario");
  json_builder_add_string_value (b, sim_plan_get_scenario_name (plan));
  json_builder_set_member_name (b, "axes");
  json_builder_begin_array (b);
  for (guint k = 0; k < self->keys->len; k++)
    json_builder_add_string_value (b, self->keys->pdata[k]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "grid");
  json_builder_begin_array (b);
  for (guint a = 0; a < self->axes->len; a++)
    {
      const Axis *axis = &g_array_index (self->axes, Axis, a);
      json_builder_begin_array (b);
      for (guint k = 0; k < axis->n_keys; k++)
        json_builder_add_string_value (b, self->keys->pdata[axis->keys[k]]);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "metrics");
  json_builder_begin_array (b);
  for (guint m = 0; m < sim_plan_get_n_metrics (plan); m++)
    {
      const char *unit = sim_plan_results_get_unit (results, m);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, sim_plan_get_metric (plan, m));
      json_builder_set_member_name (b, "unit");
      if (unit != NULL)
        json_builder_add_string_value (b, unit);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "seeds");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "first");
  json_builder_add_int_value (b, (gint64) sim_plan_get_seed (plan, 0));
  json_builder_set_member_name (b, "count");
  json_builder_add_int_value (b, sim_plan_get_n_seeds (plan));
  json_builder_end_object (b);
  add_number (b, "level", self->level);
  json_builder_set_member_name (b, "points");
  json_builder_begin_array (b);
  for (guint p = 0; p < self->n_points; p++)
    {
      guint done = 0;
      for (guint s = 0; s < sim_plan_get_n_seeds (plan); s++)
        done += sim_plan_results_get_state (results, p * sim_plan_get_n_seeds (plan) + s) ==
                SIM_PLAN_RUN_DONE;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "point");
      json_builder_add_int_value (b, p);
      json_builder_set_member_name (b, "label");
      json_builder_add_string_value (b, sim_plan_get_entry_label (plan, p));
      json_builder_set_member_name (b, "values");
      json_builder_begin_object (b);
      for (guint k = 0; k < self->keys->len; k++)
        {
          json_builder_set_member_name (b, self->keys->pdata[k]);
          json_builder_add_string_value (b, sim_sweep_get_point_value (self, p, k));
        }
      json_builder_end_object (b);
      json_builder_set_member_name (b, "runs_done");
      json_builder_add_int_value (b, done);
      json_builder_set_member_name (b, "metrics");
      json_builder_begin_object (b);
      for (guint m = 0; m < sim_plan_get_n_metrics (plan); m++)
        {
          SimCompareInterval iv;
          point_interval (self, results, p, m, &iv);
          json_builder_set_member_name (b, sim_plan_get_metric (plan, m));
          json_builder_begin_object (b);
          add_number (b, "mean", iv.mean);
          add_number (b, "sd", iv.sd);
          add_number (b, "low", iv.low);
          add_number (b, "high", iv.high);
          json_builder_set_member_name (b, "n");
          json_builder_add_int_value (b, iv.n);
          json_builder_set_member_name (b, "identical");
          json_builder_add_boolean_value (b, iv.identical);
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

char *
sim_sweep_to_csv (SimSweep *self, SimPlanResults *results)
{
  GString *out = g_string_new ("point,label");
  SimPlan *plan;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (SIM_IS_SWEEP (self), NULL);
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (results), NULL);
  plan = self->plan;
  for (guint k = 0; k < self->keys->len; k++)
    {
      g_string_append_c (out, ',');
      sim__csv_append_field (out, self->keys->pdata[k]);
    }
  g_string_append (out, ",metric,unit,n,mean,sd,low,high\n");
  for (guint p = 0; p < self->n_points; p++)
    for (guint m = 0; m < sim_plan_get_n_metrics (plan); m++)
      {
        SimCompareInterval iv;
        const char *unit = sim_plan_results_get_unit (results, m);
        double x[4];
        point_interval (self, results, p, m, &iv);
        x[0] = iv.mean, x[1] = iv.sd, x[2] = iv.low, x[3] = iv.high;
        g_string_append_printf (out, "%u,", p);
        sim__csv_append_field (out, sim_plan_get_entry_label (plan, p));
        for (guint k = 0; k < self->keys->len; k++)
          {
            g_string_append_c (out, ',');
            sim__csv_append_field (out, sim_sweep_get_point_value (self, p, k));
          }
        g_string_append_c (out, ',');
        sim__csv_append_field (out, sim_plan_get_metric (plan, m));
        g_string_append_c (out, ',');
        sim__csv_append_field (out, unit ? unit : "");
        g_string_append_printf (out, ",%u", iv.n);
        for (guint i = 0; i < 4; i++)
          {
            g_string_append_c (out, ',');
            if (isfinite (x[i]))
              g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", x[i]));
          }
        g_string_append_c (out, '\n');
      }
  return g_string_free (out, FALSE);
}
