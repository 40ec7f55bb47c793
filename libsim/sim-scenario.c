/* sim-scenario.c: reading and validating scenario files. */
#include "config.h"

#include "sim-scenario.h"
#include "sim-error.h"
#include "sim-util.h"

#include <math.h>
#include <string.h>

G_DEFINE_BOXED_TYPE (SimScenario, sim_scenario, sim_scenario_ref, sim_scenario_unref)

/* The schema: every group and key a scenario may contain.  Groups whose
 * name is a prefix followed by a space ("pool gpu-a") take a name. */
typedef struct {
  const char *group;
  gboolean    named;
  const char *keys[32];
  gboolean    open;   /* other keys are passed on (to the policy, which checks them) */
} GroupSchema;

static const GroupSchema schema[] = {
  { "scenario", FALSE, { "name", "description", "seed", "horizon", "models", NULL }, FALSE },
  { "pool", TRUE, { "model", "count", "gpu", "gpus_per_node", NULL }, FALSE },
  { "workload", FALSE, { "source", "rate", "daily_profile", "jobs", "gpus", "duration",
                         "estimate_factor", "trace", "processors_per_gpu", "skip_invalid",
                         "rebase_time", "reference_gpu", "iteration", "gradient",
                         "tensor_parallel", "tp_bytes",
                         "pipeline_parallel", "pp_bytes", "overlap", NULL }, FALSE },
  { "class", TRUE, { "share", "gpus", "duration", "estimate_factor", "mig", "priority", "tenant",
                     "gpu_model", "iteration", "gradient",
                     "tensor_parallel", "tp_bytes", "pipeline_parallel", "pp_bytes", "overlap",
                     NULL }, FALSE },
  { "comm", TRUE, { "share", "iteration", "gradient", "tensor_parallel", "tp_bytes",
                    "pipeline_parallel", "pp_bytes", "overlap", NULL }, FALSE },
  { "policy", FALSE, { "queue", "placement", "plugin", "interval", "backfill_interval", NULL },
    TRUE },
  { "output", FALSE, { "timeseries_interval", "jobs", "timeseries", NULL }, FALSE },
  /* Its keys are the fabric builder's (sim_fabric_config_keys()). */
  { "fabric", FALSE, { NULL }, TRUE },
  /* Its keys are other sections' keys, "section.key = value". */
  { "variant", TRUE, { NULL }, TRUE },
};

typedef struct {
  const char  *name;       /* for messages */
  GKeyFile    *kf;
  SimKeyLines *lines;
  GHashTable  *overridden; /* "group\037key" of keys set by overrides -> the
                            * [variant NAME] group they came from, or "" for --set */
} Ctx;

/* Prefixes an error with where the key is: "FILE:LINE: [group] key: ". */
static void
locate (const Ctx *ctx, const char *group, const char *key, GError **error)
{
  guint line;
  g_autofree char *okey = NULL;

  if (error == NULL || *error == NULL)
    return;
  if (key != NULL)
    {
      const char *origin;
      okey = g_strdup_printf ("%s\037%s", group, key);
      origin = ctx->overridden != NULL ? g_hash_table_lookup (ctx->overridden, okey) : NULL;
      if (origin != NULL && *origin != '\0')
        {
          /* From the scenario's own [variant NAME]: its line there. */
          g_autofree char *vkey = g_strdup_printf ("%s.%s", group, key);
          line = sim__key_lines_find (ctx->lines, origin, vkey);
          if (line == 0)
            line = sim__key_lines_find (ctx->lines, origin, NULL);
          if (line > 0)
            g_prefix_error (error, "%s:%u: [%s] %s: ", ctx->name, line, origin, vkey);
          else
            g_prefix_error (error, "%s: [%s] %s: ", ctx->name, origin, vkey);
          return;
        }
      if (origin != NULL)
        {
          g_prefix_error (error, "%s: --set %s.%s: ", ctx->name, group, key);
          return;
        }
    }
  line = sim__key_lines_find (ctx->lines, group, key);
  if (line == 0 && key != NULL)
    line = sim__key_lines_find (ctx->lines, group, NULL);
  if (line > 0)
    g_prefix_error (error, "%s:%u: [%s]%s%s: ", ctx->name, line, group, key ? " " : "",
                    key ? key : "");
  else
    g_prefix_error (error, "%s: [%s]%s%s: ", ctx->name, group, key ? " " : "", key ? key : "");
}

/* The raw value, or NULL if absent (not an error). */
static char *
get_raw (const Ctx *ctx, const char *group, const char *key)
{
  if (!g_key_file_has_key (ctx->kf, group, key, NULL))
    return NULL;
  return g_key_file_get_value (ctx->kf, group, key, NULL);
}

static gboolean
require (const Ctx *ctx, const char *group, const char *key, const char *what, char **out,
         GError **error)
{
  *out = get_raw (ctx, group, key);
  if (*out == NULL || **out == '\0')
    {
      g_free (*out);
      *out = NULL;
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing key: expected %s", what);
      locate (ctx, group, key, error);
      return FALSE;
    }
  return TRUE;
}

typedef gboolean (*ParseFunc) (const char *text, gpointer out, GError **error);

/* Parses an optional key with PARSE; leaves *out untouched if absent. */
static gboolean
get_parsed (const Ctx *ctx, const char *group, const char *key, ParseFunc parse, gpointer out,
            GError **error)
{
  g_autofree char *raw = get_raw (ctx, group, key);

  if (raw == NULL)
    return TRUE;
  g_strstrip (raw);
  if (!parse (raw, out, error))
    {
      locate (ctx, group, key, error);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_positive_duration (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_duration (text, out, error))
    return FALSE;
  if (*(SimTime *) out <= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is zero: expected a positive duration", text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_rate (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_rate (text, out, error))
    return FALSE;
  if (!(*(double *) out > 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is zero: expected a positive rate such as \"30/h\"", text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_bool (const char *text, gpointer out, GError **error)
{
  if (g_ascii_strcasecmp (text, "true") == 0 || g_ascii_strcasecmp (text, "yes") == 0 ||
      strcmp (text, "1") == 0)
    *(gboolean *) out = TRUE;
  else if (g_ascii_strcasecmp (text, "false") == 0 || g_ascii_strcasecmp (text, "no") == 0 ||
           strcmp (text, "0") == 0)
    *(gboolean *) out = FALSE;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not a boolean: expected true or false", text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_seed (const char *text, gpointer out, GError **error)
{
  g_autoptr(GError) local = NULL;
  guint64 v;

  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &v, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not a seed: expected a non-negative integer", text);
      return FALSE;
    }
  *(guint64 *) out = v;
  return TRUE;
}

static gboolean
parse_count (const char *text, gpointer out, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (text, 1, 10000000, &v, error))
    return FALSE;
  *(guint *) out = (guint) v;
  return TRUE;
}

static gboolean
parse_jobs (const char *text, gpointer out, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (text, 1, G_MAXINT64, &v, error))
    return FALSE;
  *(guint64 *) out = (guint64) v;
  return TRUE;
}

static gboolean
parse_positive_number (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_number (text, 0, G_MAXDOUBLE, out, error))
    return FALSE;
  if (*(double *) out <= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: expected a positive number", text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_factor (const char *text, gpointer out, GError **error)
{
  return sim_parse_number (text, 0, 1e6, out, error);
}

/* "1:0.6, 2:0.2, 8:0.2" or "8": GPUs per job and their weights. */
static gboolean
parse_gpu_mix (const char *text, SimJobClassConfig *cls, GError **error)
{
  g_auto(GStrv) items = g_strsplit (text, ",", -1);
  guint n = g_strv_length (items);
  double total = 0;

  if (n == 0 || *g_strstrip (items[0]) == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "empty value: expected GPUs per job such as \"8\" or \"1:0.7, 8:0.3\"");
      return FALSE;
    }
  g_clear_pointer (&cls->gpu_values, g_free);
  g_clear_pointer (&cls->gpu_weights, g_free);
  cls->gpu_values = g_new0 (guint32, n);
  cls->gpu_weights = g_new0 (double, n);
  cls->n_gpu_values = n;
  for (guint i = 0; i < n; i++)
    {
      char *item = g_strstrip (items[i]);
      char *colon = strchr (item, ':');
      gint64 gpus;
      double weight = 1;

      if (colon != NULL)
        *colon = '\0';
      if (!sim_parse_integer (g_strstrip (item), 1, 1000000, &gpus, error))
        {
          g_prefix_error (error, "item %u of \"%s\": GPUs: ", i + 1, text);
          return FALSE;
        }
      if (colon != NULL && !sim_parse_number (colon + 1, 0, G_MAXDOUBLE, &weight, error))
        {
          g_prefix_error (error, "item %u of \"%s\": weight: ", i + 1, text);
          return FALSE;
        }
      if (colon == NULL && n > 1)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "item %u of \"%s\" has no weight: expected GPUS:WEIGHT such as \"8:0.3\"",
                       i + 1, text);
          return FALSE;
        }
      cls->gpu_values[i] = (guint32) gpus;
      cls->gpu_weights[i] = weight;
      total += weight;
    }
  if (!(total > 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\": the weights add up to 0", text);
      return FALSE;
    }
  return TRUE;
}

/* Splits "name(k=v, k=v)" into name and arguments. */
static gboolean
split_call (const char *text, char **name, GStrv *args, GError **error)
{
  const char *open = strchr (text, '(');
  const char *close = strrchr (text, ')');

  if (open == NULL || close == NULL || close < open || close[1] != '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not a distribution: expected e.g. \"lognormal(median=30min, sigma=1.5)\", "
                   "\"exponential(mean=1h)\", \"constant(2h)\" or \"empirical(10min:0.5, 2h:0.5)\"",
                   text);
      return FALSE;
    }
  *name = g_strstrip (g_strndup (text, (gsize) (open - text)));
  {
    g_autofree char *inner = g_strndup (open + 1, (gsize) (close - open - 1));
    *args = g_strsplit (inner, ",", -1);
    for (guint i = 0; (*args)[i] != NULL; i++)
      g_strstrip ((*args)[i]);
  }
  return TRUE;
}

/* Reads "key=value" from ARG into the duration *out (seconds). */
static gboolean
named_duration (const char *arg, const char *key, double *out, GError **error)
{
  gsize n = strlen (key);
  SimTime t;

  if (strncmp (arg, key, n) != 0 || arg[n] != '=')
    return FALSE;
  if (!sim_parse_duration (arg + n + 1, &t, error))
    return FALSE;
  *out = sim_time_to_seconds (t);
  return TRUE;
}

static gboolean
parse_duration_dist (const char *text, SimDurationDist *d, GError **error)
{
  g_autofree char *name = NULL;
  g_auto(GStrv) args = NULL;
  guint n;

  if (!split_call (text, &name, &args, error))
    return FALSE;
  n = g_strv_length (args);
  g_clear_pointer (&d->values, g_free);
  g_clear_pointer (&d->weights, g_free);
  memset (d, 0, sizeof *d);

  if (strcmp (name, "constant") == 0 || strcmp (name, "exponential") == 0)
    {
      const char *arg = n == 1 ? args[0] : "";
      const char *value = g_str_has_prefix (arg, "mean=") ? arg + 5 : arg;
      SimTime t;
      d->kind = strcmp (name, "constant") == 0 ? SIM_DIST_CONSTANT : SIM_DIST_EXPONENTIAL;
      if (n != 1 || !sim_parse_duration (value, &t, error) || t <= 0)
        {
          g_clear_error (error);
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected %s(mean=DURATION) with a positive duration, such as "
                       "\"%s(mean=1h)\"", text, name, name);
          return FALSE;
        }
      d->mean = sim_time_to_seconds (t);
      return TRUE;
    }
  if (strcmp (name, "lognormal") == 0)
    {
      gboolean have_median = FALSE, have_sigma = FALSE;
      d->kind = SIM_DIST_LOGNORMAL;
      for (guint i = 0; i < n; i++)
        {
          if (named_duration (args[i], "median", &d->median, error))
            have_median = d->median > 0;
          else if (error && *error)
            {
              g_prefix_error (error, "\"%s\": median: ", text);
              return FALSE;
            }
          else if (g_str_has_prefix (args[i], "sigma="))
            {
              if (!sim_parse_number (args[i] + 6, 0, 10, &d->sigma, error))
                {
                  g_prefix_error (error, "\"%s\": sigma: ", text);
                  return FALSE;
                }
              have_sigma = TRUE;
            }
          else
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                           "\"%s\": unknown parameter \"%s\": expected median=DURATION and "
                           "sigma=NUMBER", text, args[i]);
              return FALSE;
            }
        }
      if (!have_median || !have_sigma)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected lognormal(median=DURATION, sigma=NUMBER) with a positive "
                       "median, such as \"lognormal(median=30min, sigma=1.5)\"", text);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (name, "empirical") == 0)
    {
      d->kind = SIM_DIST_EMPIRICAL;
      d->values = g_new0 (double, MAX (n, 1));
      d->weights = g_new0 (double, MAX (n, 1));
      d->n_values = n;
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *item = g_strdup (args[i]);
          char *colon = strchr (item, ':');
          SimTime t;
          double w = 1;
          if (colon)
            *colon = '\0';
          if (!sim_parse_duration (g_strstrip (item), &t, error) ||
              (colon && !sim_parse_number (colon + 1, 0, G_MAXDOUBLE, &w, error)))
            {
              g_prefix_error (error, "\"%s\": item %u: ", text, i + 1);
              return FALSE;
            }
          if (t <= 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\": item %u: durations must be positive", text, i + 1);
              return FALSE;
            }
          d->values[i] = sim_time_to_seconds (t);
          d->weights[i] = w;
        }
      if (n == 0 || *args[0] == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected at least one DURATION[:WEIGHT]", text);
          return FALSE;
        }
      return TRUE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
               "unknown distribution \"%s\": expected constant, exponential, lognormal or empirical",
               name);
  return FALSE;
}

static gboolean
parse_profile (const char *text, double profile[24], GError **error)
{
  g_auto(GStrv) items = g_strsplit (text, ",", -1);
  double total = 0;

  if (g_strv_length (items) != 24)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "%u values: expected 24 hourly multipliers separated by commas",
                   g_strv_length (items));
      return FALSE;
    }
  for (guint h = 0; h < 24; h++)
    {
      if (!sim_parse_number (items[h], 0, 1e9, &profile[h], error))
        {
          g_prefix_error (error, "hour %u: ", h);
          return FALSE;
        }
      total += profile[h];
    }
  if (!(total > 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "all 24 multipliers are 0");
      return FALSE;
    }
  return TRUE;
}

/* Refuses unknown groups and keys, suggesting the closest known one. */
static gboolean
check_schema (const Ctx *ctx, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  const char *group_names[G_N_ELEMENTS (schema)];

  for (guint s = 0; s < G_N_ELEMENTS (schema); s++)
    group_names[s] = schema[s].group;

  for (guint i = 0; groups[i] != NULL; i++)
    {
      const char *g = groups[i];
      const GroupSchema *gs = NULL;
      g_auto(GStrv) keys = NULL;
      g_autofree char *head = NULL;
      const char *space = strchr (g, ' ');

      head = space ? g_strndup (g, (gsize) (space - g)) : g_strdup (g);
      for (guint s = 0; s < G_N_ELEMENTS (schema); s++)
        if (strcmp (schema[s].group, head) == 0)
          gs = &schema[s];
      if (gs == NULL)
        {
          const char *close = sim__closest (head, group_names, G_N_ELEMENTS (schema));
          g_autoptr(GString) known = g_string_new (NULL);
          for (guint s = 0; s < G_N_ELEMENTS (schema); s++)
            g_string_append_printf (known, "%s[%s%s]", s ? ", " : "", schema[s].group,
                                    schema[s].named ? " NAME" : "");
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY,
                       "unknown section%s%s%s (known: %s)", close ? ": did you mean [" : "",
                       close ? close : "", close ? (space ? " ...]?" : "]?") : "", known->str);
          locate (ctx, g, NULL, error);
          return FALSE;
        }
      if (gs->named && (space == NULL || space[strspn (space, " \t")] == '\0'))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "section needs a name: expected [%s NAME]", gs->group);
          locate (ctx, g, NULL, error);
          return FALSE;
        }
      if (!gs->named && space != NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY,
                       "section takes no name: expected [%s]", gs->group);
          locate (ctx, g, NULL, error);
          return FALSE;
        }
      keys = g_key_file_get_keys (ctx->kf, g, NULL, NULL);
      for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
        {
          gboolean known = FALSE;
          guint nk = 0;
          while (gs->keys[nk] != NULL)
            nk++;
          for (guint j = 0; j < nk; j++)
            known |= strcmp (gs->keys[j], keys[k]) == 0;
          if (!known && !gs->open)
            {
              const char *close = sim__closest (keys[k], gs->keys, nk);
              g_autofree char *list = g_strjoinv (", ", (char **) gs->keys);
              if (close != NULL)
                g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY,
                             "unknown key: did you mean \"%s\"? (known: %s)", close, list);
              else
                g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY,
                             "unknown key (known: %s)", list);
              locate (ctx, g, keys[k], error);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
parse_size (const char *text, gpointer out, GError **error)
{
  return sim_parse_size (text, out, error);
}

static gboolean
parse_degree (const char *text, gpointer out, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (text, 1, 65536, &v, error))
    return FALSE;
  *(guint32 *) out = (guint32) v;
  return TRUE;
}

static gboolean
parse_share (const char *text, gpointer out, GError **error)
{
  return sim_parse_number (text, 0, 1, out, error);
}

/* Reads a communication profile's keys from GROUP into COMM; absent keys
 * keep COMM's values (defaults from [workload]). */
static gboolean
read_comm (const Ctx *ctx, const char *group, SimCommProfile *comm, GError **error)
{
  static const char *keys[] = { "iteration", "gradient", "tensor_parallel", "tp_bytes",
                                "pipeline_parallel", "pp_bytes", "overlap", NULL };
  gboolean any = FALSE;

  for (guint i = 0; keys[i] != NULL; i++)
    any |= g_key_file_has_key (ctx->kf, group, keys[i], NULL);
  if (!any)
    return TRUE;
  if (comm->tp == 0)
    comm->tp = 1;
  if (comm->pp == 0)
    comm->pp = 1;
  if (!get_parsed (ctx, group, "iteration", (ParseFunc) parse_positive_duration, &comm->iteration,
                   error) ||
      !get_parsed (ctx, group, "gradient", (ParseFunc) parse_size, &comm->dp_bytes, error) ||
      !get_parsed (ctx, group, "tensor_parallel", (ParseFunc) parse_degree, &comm->tp, error) ||
      !get_parsed (ctx, group, "tp_bytes", (ParseFunc) parse_size, &comm->tp_bytes, error) ||
      !get_parsed (ctx, group, "pipeline_parallel", (ParseFunc) parse_degree, &comm->pp, error) ||
      !get_parsed (ctx, group, "pp_bytes", (ParseFunc) parse_size, &comm->pp_bytes, error) ||
      !get_parsed (ctx, group, "overlap", (ParseFunc) parse_share, &comm->overlap, error))
    return FALSE;
  if (comm->iteration == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "a communication profile needs iteration: the compute time of one "
                   "iteration, e.g. \"500ms\"");
      locate (ctx, group, NULL, error);
      return FALSE;
    }
  return TRUE;
}

static void
free_class (SimJobClassConfig *c)
{
  g_free (c->name);
  g_free (c->gpu_values);
  g_free (c->gpu_weights);
  g_free (c->duration.values);
  g_free (c->duration.weights);
}

/* Reads a class's gpus, duration and estimate_factor from GROUP; keys absent
 * there keep the values already in CLS (the [workload] defaults). */
static gboolean
read_class (const Ctx *ctx, const char *group, SimJobClassConfig *cls, GError **error)
{
  g_autofree char *gpus = get_raw (ctx, group, "gpus");
  g_autofree char *duration = get_raw (ctx, group, "duration");

  if (gpus != NULL && !parse_gpu_mix (g_strstrip (gpus), cls, error))
    {
      locate (ctx, group, "gpus", error);
      return FALSE;
    }
  if (duration != NULL && !parse_duration_dist (g_strstrip (duration), &cls->duration, error))
    {
      locate (ctx, group, "duration", error);
      return FALSE;
    }
  if (g_key_file_has_key (ctx->kf, group, "priority", NULL))
    {
      g_autofree char *v = get_raw (ctx, group, "priority");
      gint64 p;
      if (!sim_parse_integer (v, -1000000, 1000000, &p, error))
        {
          locate (ctx, group, "priority", error);
          return FALSE;
        }
      cls->priority = (gint32) p;
    }
  if (g_key_file_has_key (ctx->kf, group, "tenant", NULL))
    {
      g_autofree char *v = get_raw (ctx, group, "tenant");
      gint64 t;
      if (!sim_parse_integer (v, 0, 1000000, &t, error))
        {
          locate (ctx, group, "tenant", error);
          return FALSE;
        }
      cls->tenant = (guint32) t;
    }
  if (g_key_file_has_key (ctx->kf, group, "gpu_model", NULL))
    {
      /* Names are checked against the catalogue when the simulation is
       * built (a job no pool can host is rejected, not queued forever). */
      g_autofree char *v = g_strstrip (get_raw (ctx, group, "gpu_model"));
      g_auto(GStrv) names = g_strsplit (v, "|", -1);
      g_autofree char *joined = NULL;
      for (guint i = 0; names[i] != NULL; i++)
        if (*g_strstrip (names[i]) == '\0')
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                         "\"%s\": expected GPU model names separated by '|', "
                         "e.g. \"H100-SXM|H200-SXM\"", v);
            locate (ctx, group, "gpu_model", error);
            return FALSE;
          }
      joined = g_strjoinv ("|", names);
      cls->gpu_models = g_intern_string (joined);
    }
  if (g_key_file_has_key (ctx->kf, group, "mig", NULL))
    {
      g_autofree char *mig = g_strstrip (get_raw (ctx, group, "mig"));
      /* Profile names look like "1g.10gb": digits, 'g', '.', size. */
      if (!g_regex_match_simple ("^[0-9]+g\\.[0-9]+gb(\\+me)?$", mig, 0, 0))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\" is not a MIG profile name: expected e.g. \"1g.10gb\" "
                       "(see `gpusim models show A100-SXM-80GB`)", mig);
          locate (ctx, group, "mig", error);
          return FALSE;
        }
      if (cls->n_gpu_values != 1 || cls->gpu_values[0] != 1)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "a MIG job runs on one GPU: expected gpus = 1 with mig");
          locate (ctx, group, "mig", error);
          return FALSE;
        }
      cls->mig_profile = g_intern_string (mig);
    }
  return get_parsed (ctx, group, "estimate_factor", (ParseFunc) parse_factor,
                     &cls->estimate_factor, error) &&
         read_comm (ctx, group, &cls->comm, error);
}

/* [fabric]: how nodes are connected, key by key through the builder's own
 * parser, so that the builder owns its keys and their meaning. */
static gboolean
read_fabric (const Ctx *ctx, SimScenario *sc, GError **error)
{
  const char * const *known = sim_fabric_config_keys ();
  g_auto(GStrv) keys = NULL;
  guint n_known = 0;

  memset (&sc->fabric, 0, sizeof sc->fabric);
  if (!g_key_file_has_group (ctx->kf, "fabric"))
    return TRUE;
  while (known[n_known] != NULL)
    n_known++;
  keys = g_key_file_get_keys (ctx->kf, "fabric", NULL, NULL);
  for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
    {
      g_autofree char *value = NULL;
      gboolean ok = FALSE;
      for (guint j = 0; j < n_known; j++)
        ok |= strcmp (known[j], keys[k]) == 0;
      if (!ok)
        {
          const char *close = sim__closest (keys[k], known, n_known);
          g_autofree char *list = g_strjoinv (", ", (char **) known);
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY, "unknown key%s%s%s (known: %s)",
                       close ? ": did you mean \"" : "", close ? close : "", close ? "\"?" : "",
                       list);
          locate (ctx, "fabric", keys[k], error);
          return FALSE;
        }
      value = g_strstrip (get_raw (ctx, "fabric", keys[k]));
      if (!sim_fabric_config_set (&sc->fabric, keys[k], value, error))
        {
          locate (ctx, "fabric", keys[k], error);
          return FALSE;
        }
    }
  return TRUE;
}

/* [variant NAME] sections: named sets of overrides, for `gpusim compare`.
 * Each is checked by loading the scenario with it (without variants). */
static gboolean
read_variants (const Ctx *ctx, SimScenario *sc, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  GArray *variants = g_array_new (FALSE, TRUE, sizeof (SimVariant));
  gboolean ok = TRUE;

  for (guint i = 0; ok && groups[i] != NULL; i++)
    {
      SimVariant v = { 0 };
      g_auto(GStrv) keys = NULL;
      GPtrArray *sets;
      if (!g_str_has_prefix (groups[i], "variant "))
        continue;
      v.name = g_strstrip (g_strdup (groups[i] + 8));
      keys = g_key_file_get_keys (ctx->kf, groups[i], NULL, NULL);
      sets = g_ptr_array_new ();
      /* Errors in the variant's values then point at its own lines. */
      g_ptr_array_add (sets, g_strdup_printf ("[%s]", groups[i]));
      for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
        {
          const char *dot = strrchr (keys[k], '.');
          g_autofree char *value = NULL;
          if (dot == NULL || dot == keys[k] || dot[1] == '\0' ||
              g_str_has_prefix (keys[k], "variant ") || g_str_has_prefix (keys[k], "scenario.name"))
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                           "expected SECTION.KEY = VALUE, e.g. fabric.oversubscription = 2");
              locate (ctx, groups[i], keys[k], error);
              ok = FALSE;
              break;
            }
          value = g_strstrip (get_raw (ctx, groups[i], keys[k]));
          g_ptr_array_add (sets, g_strdup_printf ("%s=%s", keys[k], value));
        }
      g_ptr_array_add (sets, NULL);
      v.overrides = (char **) g_ptr_array_free (sets, FALSE);
      g_array_append_val (variants, v);
    }
  sc->n_variants = variants->len;
  sc->variants = (SimVariant *) (void *) g_array_free (variants, FALSE);
  return ok;
}

/* [comm NAME] sections: a mix of profiles drawn for jobs that have none. */
static gboolean
read_comm_mix (const Ctx *ctx, SimScenario *sc, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  GArray *mix = g_array_new (FALSE, TRUE, sizeof (SimCommMix));
  gboolean ok = TRUE;

  for (guint i = 0; ok && groups[i] != NULL; i++)
    {
      SimCommMix m = { 0 };
      if (!g_str_has_prefix (groups[i], "comm "))
        continue;
      m.name = g_strstrip (g_strdup (groups[i] + 5));
      m.share = 1;
      ok = get_parsed (ctx, groups[i], "share", (ParseFunc) parse_positive_number, &m.share,
                       error) &&
           read_comm (ctx, groups[i], &m.profile, error);
      if (ok && m.profile.iteration == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "a communication profile needs iteration: the compute time of one "
                       "iteration, e.g. \"500ms\"");
          locate (ctx, groups[i], NULL, error);
          ok = FALSE;
        }
      g_array_append_val (mix, m);
    }
  sc->n_comm_mix = mix->len;
  sc->comm_mix = (SimCommMix *) (void *) g_array_free (mix, FALSE);
  return ok;
}

static gboolean
read_workload (const Ctx *ctx, SimScenario *sc, GError **error)
{
  g_autofree char *source = NULL;
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  SimJobClassConfig defaults = { 0 };
  GArray *classes;
  gboolean ok = TRUE;

  if (!g_key_file_has_group (ctx->kf, "workload"))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: missing section [workload]: expected source = synthetic, swf, philly, "
                   "helios, slurm or openb",
                   ctx->name);
      return FALSE;
    }
  if (g_key_file_has_key (ctx->kf, "workload", "reference_gpu", NULL))
    sc->reference_gpu = g_strstrip (get_raw (ctx, "workload", "reference_gpu"));
  source = get_raw (ctx, "workload", "source");
  if (source == NULL || strcmp (g_strstrip (source), "synthetic") == 0)
    sc->source = SIM_SOURCE_SYNTHETIC;
  else if (strcmp (source, "swf") == 0)
    sc->source = SIM_SOURCE_SWF;
  else if (strcmp (source, "philly") == 0)
    sc->source = SIM_SOURCE_PHILLY;
  else if (strcmp (source, "helios") == 0)
    sc->source = SIM_SOURCE_HELIOS;
  else if (strcmp (source, "slurm") == 0)
    sc->source = SIM_SOURCE_SLURM;
  else if (strcmp (source, "openb") == 0)
    sc->source = SIM_SOURCE_OPENB;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is not a workload source: expected synthetic, swf, philly, helios, "
                   "slurm or openb", source);
      locate (ctx, "workload", "source", error);
      return FALSE;
    }

  if (!get_parsed (ctx, "workload", "jobs", (ParseFunc) parse_jobs, &sc->generator.max_jobs, error))
    return FALSE;

  if (sc->source != SIM_SOURCE_SYNTHETIC)
    {
      g_autofree char *trace = NULL;
      static const char *synthetic_only[] = { "rate", "daily_profile", "gpus", "duration",
                                              "estimate_factor", NULL };
      for (guint i = 0; synthetic_only[i]; i++)
        if (g_key_file_has_key (ctx->kf, "workload", synthetic_only[i], NULL))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                         "applies only to source = synthetic");
            locate (ctx, "workload", synthetic_only[i], error);
            return FALSE;
          }
      if (sc->source != SIM_SOURCE_SWF &&
          g_key_file_has_key (ctx->kf, "workload", "processors_per_gpu", NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "applies only to source = swf");
          locate (ctx, "workload", "processors_per_gpu", error);
          return FALSE;
        }
      if (!require (ctx, "workload", "trace", "the path of the trace file", &trace, error))
        return FALSE;
      g_strstrip (trace);
      sc->trace_path = g_path_is_absolute (trace) ? g_strdup (trace)
                                                  : g_build_filename (sc->base_dir, trace, NULL);
      sc->swf.processors_per_gpu = 1;
      sc->swf.skip_invalid = TRUE;
      sc->swf.rebase_time = TRUE;
      sc->swf.max_jobs = sc->generator.max_jobs;
      if (!get_parsed (ctx, "workload", "processors_per_gpu", (ParseFunc) parse_positive_number,
                       &sc->swf.processors_per_gpu, error) ||
          !get_parsed (ctx, "workload", "skip_invalid", (ParseFunc) parse_bool,
                       &sc->swf.skip_invalid, error) ||
          !get_parsed (ctx, "workload", "rebase_time", (ParseFunc) parse_bool,
                       &sc->swf.rebase_time, error))
        return FALSE;
      sc->philly.max_jobs = sc->swf.max_jobs;
      sc->philly.skip_invalid = sc->swf.skip_invalid;
      sc->philly.rebase_time = sc->swf.rebase_time;
      sc->trace.max_jobs = sc->swf.max_jobs;
      sc->trace.skip_invalid = sc->swf.skip_invalid;
      sc->trace.rebase_time = sc->swf.rebase_time;
      return TRUE;
    }

  {
    static const char *swf_only[] = { "trace", "processors_per_gpu", "skip_invalid",
                                      "rebase_time", NULL };
    for (guint i = 0; swf_only[i]; i++)
      if (g_key_file_has_key (ctx->kf, "workload", swf_only[i], NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "applies only to %s",
                       strcmp (swf_only[i], "processors_per_gpu") == 0
                         ? "source = swf"
                         : "trace sources (source = swf, philly, helios, slurm or openb)");
          locate (ctx, "workload", swf_only[i], error);
          return FALSE;
        }
  }

  {
    g_autofree char *rate = NULL;
    if (!require (ctx, "workload", "rate", "an arrival rate such as \"30/h\"", &rate, error))
      return FALSE;
    if (!get_parsed (ctx, "workload", "rate", (ParseFunc) parse_rate, &sc->generator.rate, error))
      return FALSE;
  }
  {
    g_autofree char *profile = get_raw (ctx, "workload", "daily_profile");
    if (profile != NULL && !parse_profile (profile, sc->generator.profile, error))
      {
        locate (ctx, "workload", "daily_profile", error);
        return FALSE;
      }
  }
  sc->generator.stop_time = sc->horizon;
  if (sc->generator.max_jobs == 0 && sc->horizon == SIM_TIME_NEVER)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: the synthetic workload never ends: set [workload] jobs or "
                   "[scenario] horizon", ctx->name);
      return FALSE;
    }

  /* [workload] gpus/duration/estimate_factor are defaults for the classes. */
  if (!read_class (ctx, "workload", &defaults, error))
    {
      free_class (&defaults);
      return FALSE;
    }

  classes = g_array_new (FALSE, TRUE, sizeof (SimJobClassConfig));
  for (guint i = 0; ok && groups[i] != NULL; i++)
    {
      SimJobClassConfig cls = { 0 };
      if (!g_str_has_prefix (groups[i], "class "))
        continue;
      cls.name = g_strstrip (g_strdup (groups[i] + 6));
      cls.share = 1;
      cls.estimate_factor = defaults.estimate_factor;
      if (defaults.n_gpu_values > 0)
        {
          cls.gpu_values = g_memdup2 (defaults.gpu_values, defaults.n_gpu_values * sizeof (guint32));
          cls.gpu_weights = g_memdup2 (defaults.gpu_weights, defaults.n_gpu_values * sizeof (double));
          cls.n_gpu_values = defaults.n_gpu_values;
        }
      cls.duration = defaults.duration;
      if (defaults.duration.n_values > 0)
        {
          cls.duration.values = g_memdup2 (defaults.duration.values,
                                           defaults.duration.n_values * sizeof (double));
          cls.duration.weights = g_memdup2 (defaults.duration.weights,
                                            defaults.duration.n_values * sizeof (double));
        }
      g_array_append_val (classes, cls);
      ok = read_class (ctx, groups[i], &g_array_index (classes, SimJobClassConfig, classes->len - 1),
                       error) &&
           get_parsed (ctx, groups[i], "share", (ParseFunc) parse_positive_number,
                       &g_array_index (classes, SimJobClassConfig, classes->len - 1).share, error);
    }
  if (ok && classes->len == 0)
    {
      defaults.name = g_strdup ("default");
      defaults.share = 1;
      g_array_append_val (classes, defaults);
      memset (&defaults, 0, sizeof defaults);
    }
  free_class (&defaults);
  sc->generator.n_classes = classes->len;
  sc->generator.classes = (SimJobClassConfig *) (void *) g_array_free (classes, FALSE);
  if (!ok)
    return FALSE;

  for (guint i = 0; i < sc->generator.n_classes; i++)
    {
      SimJobClassConfig *c = &sc->generator.classes[i];
      const char *group = sc->generator.n_classes == 1 && strcmp (c->name, "default") == 0
                            ? "workload" : NULL;
      g_autofree char *gname = group ? g_strdup (group) : g_strdup_printf ("class %s", c->name);
      if (c->n_gpu_values == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key gpus: expected GPUs per job such as \"8\" or \"1:0.7, 8:0.3\" "
                       "(here or in [workload])");
          locate (ctx, gname, NULL, error);
          return FALSE;
        }
      if (c->duration.mean == 0 && c->duration.median == 0 && c->duration.n_values == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key duration: expected a distribution such as "
                       "\"lognormal(median=30min, sigma=1.5)\" (here or in [workload])");
          locate (ctx, gname, NULL, error);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
read_pools (const Ctx *ctx, SimScenario *sc, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  GArray *pools = g_array_new (FALSE, TRUE, sizeof (SimPoolConfig));
  gboolean ok = TRUE;

  for (guint i = 0; ok && groups[i] != NULL; i++)
    {
      SimPoolConfig p = { 0 };
      SimPoolConfig *pp;
      char *gpu;
      if (!g_str_has_prefix (groups[i], "pool "))
        continue;
      p.name = g_strstrip (g_strdup (groups[i] + 5));
      g_array_append_val (pools, p);
      pp = &g_array_index (pools, SimPoolConfig, pools->len - 1);
      ok = require (ctx, groups[i], "model", "a node model from the catalogue, e.g. DGX-H100",
                    &pp->node_model, error);
      if (ok)
        g_strstrip (pp->node_model);
      if (ok && !g_key_file_has_key (ctx->kf, groups[i], "count", NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key: expected the number of nodes");
          locate (ctx, groups[i], "count", error);
          ok = FALSE;
        }
      ok = ok && get_parsed (ctx, groups[i], "count", (ParseFunc) parse_count, &pp->count, error);
      ok = ok && get_parsed (ctx, groups[i], "gpus_per_node", (ParseFunc) parse_count,
                             &pp->gpus_per_node, error);
      gpu = get_raw (ctx, groups[i], "gpu");
      pp->gpu_model = gpu ? g_strstrip (gpu) : NULL;
    }
  sc->n_pools = pools->len;
  sc->pools = (SimPoolConfig *) (void *) g_array_free (pools, FALSE);
  if (ok && sc->n_pools == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: no [pool NAME] section: expected at least one pool of nodes, e.g.\n"
                   "  [pool main]\n  model = DGX-H100\n  count = 16", ctx->name);
      return FALSE;
    }
  return ok;
}

/* A section or key name that a key file can hold: not empty, without
 * brackets or control characters. */
static gboolean
is_override_name (const char *name)
{
  if (*name == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (*p == '[' || *p == ']' || g_ascii_iscntrl (*p))
      return FALSE;
  return TRUE;
}

/* Applies "group.key=value" overrides.  The group is everything before the
 * last dot of the part before '=', so named groups work: "pool a.count=4". */
static gboolean
apply_overrides (Ctx *ctx, const char * const *overrides, GError **error)
{
  g_autofree char *origin = g_strdup ("");

  for (guint i = 0; overrides != NULL && overrides[i] != NULL; i++)
    {
      const char *o = overrides[i];
      const char *eq = strchr (o, '=');
      const char *dot;
      g_autofree char *lhs = NULL, *group = NULL, *key = NULL;

      /* "[variant NAME]": the overrides that follow come from that section
       * of the file (errors give its lines); "[--set]": from the user again. */
      if (o[0] == '[' && g_str_has_suffix (o, "]") && eq == NULL)
        {
          g_free (origin);
          origin = g_strndup (o + 1, strlen (o) - 2);
          if (strcmp (origin, "--set") == 0)
            origin[0] = '\0';
          else if (!g_str_has_prefix (origin, "variant ") ||
                   sim__key_lines_find (ctx->lines, origin, NULL) == 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                           "%s: %s: no such section in the scenario (expected \"[variant NAME]\" "
                           "naming one of its variants, or \"[--set]\")", ctx->name, o);
              return FALSE;
            }
          continue;
        }

      if (!g_utf8_validate (o, -1, NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "--set: not UTF-8 text");
          return FALSE;
        }
      if (eq == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "--set %s: expected SECTION.KEY=VALUE, e.g. scenario.seed=7", o);
          return FALSE;
        }
      lhs = g_strndup (o, (gsize) (eq - o));
      dot = strrchr (lhs, '.');
      if (dot == NULL || dot == lhs || dot[1] == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "--set %s: expected SECTION.KEY=VALUE, e.g. scenario.seed=7", o);
          return FALSE;
        }
      group = g_strstrip (g_strndup (lhs, (gsize) (dot - lhs)));
      key = g_strstrip (g_strdup (dot + 1));
      if (!is_override_name (group) || !is_override_name (key))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "--set %s: expected SECTION.KEY=VALUE, e.g. scenario.seed=7 (names not "
                       "empty, without brackets or control characters)", o);
          return FALSE;
        }
      g_key_file_set_value (ctx->kf, group, key, eq + 1);
      g_hash_table_replace (ctx->overridden, g_strdup_printf ("%s\037%s", group, key),
                            g_strdup (origin));
    }
  return TRUE;
}

static SimScenario *
parse (Ctx *ctx, const char *base_dir, const char * const *overrides, GError **error)
{
  g_autoptr(SimScenario) sc = g_new0 (SimScenario, 1);
  g_autofree char *models = NULL;

  sc->ref_count = 1;
  sc->path = g_strdup (ctx->name);
  sc->base_dir = base_dir ? g_strdup (base_dir) : g_get_current_dir ();
  sc->horizon = SIM_TIME_NEVER;
  sc->seed = 1;
  sc->queue = g_strdup ("fifo");
  sc->placement = g_strdup ("first-fit");
  sc->sample_interval = SIM_HOUR;
  sc->write_jobs = TRUE;
  sc->write_timeseries = TRUE;

  if (!apply_overrides (ctx, overrides, error))
    return NULL;
  if (!check_schema (ctx, error))
    return NULL;

  if (!g_key_file_has_group (ctx->kf, "scenario"))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: missing section [scenario]: expected at least its name", ctx->name);
      return NULL;
    }
  if (!require (ctx, "scenario", "name", "the scenario's name", &sc->name, error))
    return NULL;
  g_strstrip (sc->name);
  sc->description = get_raw (ctx, "scenario", "description");
  if (!get_parsed (ctx, "scenario", "seed", (ParseFunc) parse_seed, &sc->seed, error) ||
      !get_parsed (ctx, "scenario", "horizon", (ParseFunc) parse_positive_duration, &sc->horizon,
                   error))
    return NULL;
  models = get_raw (ctx, "scenario", "models");
  if (models != NULL)
    {
      g_auto(GStrv) dirs = g_strsplit (models, ",", -1);
      GPtrArray *abs = g_ptr_array_new ();
      for (guint i = 0; dirs[i] != NULL; i++)
        {
          char *d = g_strstrip (dirs[i]);
          if (*d == '\0')
            continue;
          g_ptr_array_add (abs, g_path_is_absolute (d) ? g_strdup (d)
                                                       : g_build_filename (sc->base_dir, d, NULL));
        }
      g_ptr_array_add (abs, NULL);
      sc->model_dirs = (char **) g_ptr_array_free (abs, FALSE);
    }

  if (!read_pools (ctx, sc, error) || !read_workload (ctx, sc, error) ||
      !read_comm_mix (ctx, sc, error) || !read_fabric (ctx, sc, error) ||
      !read_variants (ctx, sc, error))
    return NULL;

  if (g_key_file_has_key (ctx->kf, "policy", "queue", NULL))
    {
      g_free (sc->queue);
      sc->queue = g_strstrip (get_raw (ctx, "policy", "queue"));
    }
  if (g_key_file_has_key (ctx->kf, "policy", "placement", NULL))
    {
      g_free (sc->placement);
      sc->placement = g_strstrip (get_raw (ctx, "policy", "placement"));
    }
  if (g_key_file_has_key (ctx->kf, "policy", "plugin", NULL))
    {
      g_autofree char *plugin = g_strstrip (get_raw (ctx, "policy", "plugin"));
      sc->plugin = g_canonicalize_filename (plugin, sc->base_dir);
    }
  sc->policy_params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (g_key_file_has_group (ctx->kf, "policy"))
    {
      g_auto(GStrv) keys = g_key_file_get_keys (ctx->kf, "policy", NULL, NULL);
      for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
        if (strcmp (keys[k], "queue") != 0 && strcmp (keys[k], "placement") != 0 &&
            strcmp (keys[k], "plugin") != 0 && strcmp (keys[k], "interval") != 0 &&
            strcmp (keys[k], "backfill_interval") != 0)
          g_hash_table_insert (sc->policy_params, g_strdup (keys[k]),
                               g_strstrip (get_raw (ctx, "policy", keys[k])));
    }
  /* The scheduling cycle (0: decide at every event). */
  if (!get_parsed (ctx, "policy", "interval", (ParseFunc) sim_parse_duration, &sc->sched_interval,
                   error) ||
      !get_parsed (ctx, "policy", "backfill_interval", (ParseFunc) sim_parse_duration,
                   &sc->backfill_interval, error))
    return NULL;
  if (sc->backfill_interval > 0 && (sc->queue == NULL || strcmp (sc->queue, "easy") != 0 ||
                                    sc->plugin != NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "only the easy queue backfills (queue is \"%s\"): remove the key, or set "
                   "[policy] queue = easy", sc->plugin ? "a plugin" : sc->queue ? sc->queue : "?");
      locate (ctx, "policy", "backfill_interval", error);
      return NULL;
    }
  if (!get_parsed (ctx, "output", "timeseries_interval", (ParseFunc) parse_positive_duration,
                   &sc->sample_interval, error) ||
      !get_parsed (ctx, "output", "jobs", (ParseFunc) parse_bool, &sc->write_jobs, error) ||
      !get_parsed (ctx, "output", "timeseries", (ParseFunc) parse_bool, &sc->write_timeseries,
                   error))
    return NULL;
  return g_steal_pointer (&sc);
}

/* The 1-based line at which GKeyFile first fails on DATA, or 0.  GKeyFile
 * reads line by line and stops at the first bad one, so a prefix of whole
 * lines fails exactly when it holds that line: a binary search over prefixes
 * finds it in O(n log n), where n is the length of the text.  GKeyFile's own
 * messages quote the line but do not number it. */
static guint
find_bad_line (const char *data, gsize length)
{
  g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  guint lo = 1, hi;

  for (gsize i = 0; i < length; i++)
    if (data[i] == '\n')
      {
        gsize end = i + 1;
        g_array_append_val (ends, end);
      }
  if (length > 0 && data[length - 1] != '\n')
    g_array_append_val (ends, length);
  hi = ends->len;
  if (hi == 0)
    return 0;
  /* Invariant: the first bad line is in [lo, hi]. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      g_autoptr(GKeyFile) kf = g_key_file_new ();
      if (g_key_file_load_from_data (kf, data, g_array_index (ends, gsize, mid - 1),
                                     G_KEY_FILE_NONE, NULL))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

SimScenario *
sim_scenario_load_from_data (const char *data, gssize length, const char *name,
                             const char *base_dir, const char * const *overrides, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_autoptr(SimKeyLines) lines = NULL;
  const char *bad = NULL;
  g_autoptr(GHashTable) overridden = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             g_free);
  Ctx ctx;
  SimScenario *sc;

  g_return_val_if_fail (data != NULL && name != NULL, NULL);
  if (length < 0)
    length = (gssize) strlen (data);
  /* Names and values end up in messages, reports and JSON: UTF-8 only. */
  if (!g_utf8_validate (data, length, &bad))
    {
      guint line = 1;
      for (const char *p = data; p < bad; p++)
        line += *p == '\n';
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: not UTF-8 text", name, line);
      return NULL;
    }
  if (!g_key_file_load_from_data (kf, data, (gsize) length, G_KEY_FILE_NONE, &local))
    {
      guint line = find_bad_line (data, (gsize) length);
      if (line > 0)
        g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: not a valid key file: %s", name,
                     line, local->message);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: not a valid key file: %s", name,
                     local->message);
      return NULL;
    }
  lines = sim__key_lines_new (data, length, name, error);
  if (lines == NULL)
    return NULL;
  ctx.name = name;
  ctx.kf = kf;
  ctx.lines = lines;
  ctx.overridden = overridden;
  sc = parse (&ctx, base_dir, overrides, error);
  if (sc != NULL)
    {
      /* Kept for messages about the scenario found later (unknown models). */
      sc->lines = g_steal_pointer (&lines);
      sc->overridden = g_steal_pointer (&overridden);
    }
  return sc;
}

void
sim__scenario_locate (const SimScenario *scenario, const char *group, const char *key,
                      GError **error)
{
  Ctx ctx = { 0 };

  g_return_if_fail (scenario != NULL);
  ctx.name = scenario->path;
  ctx.lines = scenario->lines;
  ctx.overridden = scenario->overridden;
  locate (&ctx, group, key, error);
}

SimScenario *
sim_scenario_load (const char *path, const char * const *overrides, GError **error)
{
  g_autofree char *data = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *absdir = NULL;
  gsize len = 0;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  if (!g_file_get_contents (path, &data, &len, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot read scenario %s: %s", path,
                   local->message);
      return NULL;
    }
  dir = g_path_get_dirname (path);
  absdir = g_canonicalize_filename (dir, NULL);
  return sim_scenario_load_from_data (data, (gssize) len, path, absdir, overrides, error);
}

SimScenario *
sim_scenario_ref (SimScenario *scenario)
{
  g_return_val_if_fail (scenario != NULL, NULL);
  g_atomic_int_inc (&scenario->ref_count);
  return scenario;
}

void
sim_scenario_unref (SimScenario *sc)
{
  if (sc == NULL || !g_atomic_int_dec_and_test (&sc->ref_count))
    return;
  g_free (sc->path);
  g_free (sc->base_dir);
  g_free (sc->name);
  g_free (sc->description);
  g_strfreev (sc->model_dirs);
  for (guint i = 0; i < sc->n_pools; i++)
    {
      g_free (sc->pools[i].name);
      g_free (sc->pools[i].node_model);
      g_free (sc->pools[i].gpu_model);
    }
  g_free (sc->pools);
  for (guint i = 0; i < sc->generator.n_classes; i++)
    free_class (&sc->generator.classes[i]);
  g_free (sc->generator.classes);
  sim_fabric_config_clear (&sc->fabric);
  for (guint i = 0; i < sc->n_variants; i++)
    {
      g_free (sc->variants[i].name);
      g_strfreev (sc->variants[i].overrides);
    }
  g_free (sc->variants);
  for (guint i = 0; i < sc->n_comm_mix; i++)
    g_free (sc->comm_mix[i].name);
  g_free (sc->comm_mix);
  g_free (sc->trace_path);
  g_free (sc->queue);
  g_free (sc->placement);
  g_free (sc->plugin);
  g_free (sc->reference_gpu);
  if (sc->policy_params != NULL)
    g_hash_table_unref (sc->policy_params);
  sim__key_lines_free (sc->lines);
  if (sc->overridden != NULL)
    g_hash_table_unref (sc->overridden);
  g_free (sc);
}
