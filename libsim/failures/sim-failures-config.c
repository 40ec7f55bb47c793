/* sim-failures-config.c: the [failures] section's keys and the failure
 * profiles of the catalogue (models/failures/NAME.ini). */
#include "config.h"

#include "failures/sim-failures-private.h"
#include "cluster/sim-catalogue.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "scenario/sim-scenario-private.h"
#include "core/sim-keys.h"
#include "core/sim-read.h"

#include <math.h>
#include <string.h>

static const char * const type_names[SIM_FAILURE_N_TYPES] = {
  "gpu", "hbm", "nvswitch", "nic", "cable", "node", "software", "leaf", "spine", "core"
};

const char *
sim__failure_type_name (SimFailureType type)
{
  g_return_val_if_fail (type < SIM_FAILURE_N_TYPES, NULL);
  return type_names[type];
}

int
sim__failure_type_lookup (const char *name)
{
  for (guint k = 0; k < SIM_FAILURE_N_TYPES; k++)
    if (g_ascii_strcasecmp (name, type_names[k]) == 0)
      return (int) k;
  return -1;
}

/* The keys of one component type: its failures and repairs. */
#define TYPE_KEYS(type, what) \
  { type "_mtbf", SIM_KEY_TIME, "h", "above 0, or never", "profile's", \
    "the mean time between failures of one " what " (s, min, h, d or y)", \
    SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 }, \
  { type "_shape", SIM_KEY_NUMBER, NULL, "0.05 to 20", "profile's", \
    "the Weibull shape of " what " failures (1, the profiles' own: exponential)", \
    SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 }, \
  { type "_repair", SIM_KEY_TIME, "s", NULL, "profile's", \
    "the mean time to repair one " what, SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 }

static const SimKey failures_keys[] = {
  { "profile", SIM_KEY_STRING, NULL, NULL, "llama3-h100",
    "the failure profile of the catalogue (models/failures/NAME.ini) whose rates, repairs and "
    "counts the keys here replace", 0, NULL, 0 },
  { "mode", SIM_KEY_CHOICE, NULL, "self-healing, manual", "self-healing",
    "self-healing: faults detected and spares swapped in minutes, jobs migrated; manual: an "
    "operator's hours, jobs killed", 0, NULL, 0 },
  { "detect_time", SIM_KEY_TIME, "s", NULL, "2min (manual: 2h)",
    "the time from a failure to its detection", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "swap_time", SIM_KEY_TIME, "s", NULL, "2min (manual: 4h)",
    "the time to swap a spare node in", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "restart_time", SIM_KEY_TIME, "s", NULL, "5min (manual: 30min)",
    "the time a job takes to restart after a failure", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "spares", SIM_KEY_INT, "nodes", "0 to 1000000", "0", "the spare nodes", 0, NULL, 0 },
  { "drain", SIM_KEY_CHOICE, NULL, "migrate, kill", "migrate (manual: kill)",
    "what happens to the jobs of a node taken out for repair", SIM_KEY_DEFAULT_DESCRIBED, NULL,
    0 },
  { "quarantine", SIM_KEY_TIME, "s", NULL, "0s",
    "a repaired node that was not replaced comes back after this long", 0, NULL, 0 },
  { "avoid_recent", SIM_KEY_TIME, "s", NULL, "0s",
    "instead of quarantine: a repaired node comes back after this long or as soon as a job "
    "waits, whichever is first", 0, NULL, 0 },
  { "repair_distribution", SIM_KEY_CHOICE, NULL, "exponential, lognormal, fixed", "lognormal",
    "the distribution of repair times around their means", 0, NULL, 0 },
  { "repair_sigma", SIM_KEY_NUMBER, NULL, "0 to 5", "1",
    "lognormal: the sigma of repair times", 0, NULL, 0 },
  { "checkpoint_interval", SIM_KEY_TIME, "s", "above 0, young-daly or none", "none",
    "a job checkpoints after this much progress (young-daly: Daly's optimum for the job's own "
    "mean time between failures)", 0, NULL, 0 },
  { "checkpoint_size", SIM_KEY_BYTES, "B", NULL, NULL,
    "the bytes one GPU writes per checkpoint (checkpoints need it)", 0, NULL, 0 },
  { "storage_bandwidth", SIM_KEY_BANDWIDTH, "B/s", "above 0", NULL,
    "the storage's bandwidth for checkpoints (checkpoints need it)", 0, NULL, 0 },
  { "log", SIM_KEY_PATH, NULL, NULL, NULL,
    "a CSV file of failures to replay instead of drawing them", 0, NULL, 0 },
  { "nics_per_node", SIM_KEY_INT, NULL, "0 to 64", "profile's (none: 8)",
    "the NICs (and cables) of a node", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "nvswitches_per_node", SIM_KEY_INT, NULL, "0 to 64", "profile's (none: 4)",
    "the NVSwitches of a node", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "nodes_per_leaf", SIM_KEY_INT, NULL, "1 to 1000000", "profile's (none: 32)",
    "the consecutive nodes behind one leaf switch", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "spines", SIM_KEY_INT, NULL, "0 to 1000000", "profile's (none: 0)", "the spine switches",
    SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "cores", SIM_KEY_INT, NULL, "0 to 1000000", "profile's (none: 0)", "the core switches",
    SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "seed_offset", SIM_KEY_INT, NULL, "0 to 2^63-1", "0",
    "draws other failures from the same scenario seed, the workload kept", 0, NULL, 0 },
  TYPE_KEYS ("gpu", "GPU"),
  TYPE_KEYS ("hbm", "GPU's memory"),
  TYPE_KEYS ("nvswitch", "NVSwitch"),
  TYPE_KEYS ("nic", "NIC"),
  TYPE_KEYS ("cable", "cable"),
  TYPE_KEYS ("node", "node (the rest of it)"),
  TYPE_KEYS ("software", "node's software"),
  TYPE_KEYS ("leaf", "leaf switch"),
  TYPE_KEYS ("spine", "spine switch"),
  TYPE_KEYS ("core", "core switch"),
};
G_STATIC_ASSERT (SIM_FAILURE_N_TYPES == 10);

const SimKeyTable sim__failures_key_table = {
  "failures", FALSE,
  "Component failures, repairs, spares and checkpoints; rates, repairs and counts from a profile",
  failures_keys,
  G_N_ELEMENTS (failures_keys), NULL, NULL,
};

/* What a profile may set: the rates, repairs and counts. */
static gboolean
profile_key (const char *key)
{
  static const char * const counts[] = { "nics_per_node", "nvswitches_per_node",
                                         "nodes_per_leaf", "spines", "cores" };
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    if (strcmp (key, counts[i]) == 0)
      return TRUE;
  return strchr (key, '_') != NULL &&
         (g_str_has_suffix (key, "_mtbf") || g_str_has_suffix (key, "_shape") ||
          g_str_has_suffix (key, "_repair"));
}

void
sim__failure_params_init (SimFailureParams *p)
{
  memset (p, 0, sizeof *p);
  /* What a profile sets, for profile = none. */
  for (guint k = 0; k < SIM_FAILURE_N_TYPES; k++)
    p->shape[k] = 1.0;
  p->nics_per_node = 8;
  p->nvswitches_per_node = 4;
  p->nodes_per_leaf = 32;
  /* Not given: the mode's (sim__failure_params_resolve()). */
  p->detect = p->swap = p->restart = -1;
  p->drain = -1;
  p->storage_bw = 0;
  /* The table's defaults (self-healing, lognormal repairs of sigma 1, no
   * checkpoints...); the profile is chosen by sim__failure_params_resolve(),
   * from the table's default too. */
  sim__keys_apply_defaults_with (&sim__failures_key_table,
                                 (SimKeySetFunc) sim__failure_params_set, p);
  g_clear_pointer (&p->profile, g_free);
}

void
sim__failure_params_clear (SimFailureParams *p)
{
  g_clear_pointer (&p->profile, g_free);
  g_clear_pointer (&p->log, g_free);
}

static gboolean
parse_count (const char *value, gint64 min, gint64 max, guint *out, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (value, min, max, &v, error))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

/* A time between failures per component: a number with a unit (s, min,
 * h, d or y, of 365 days), or "never" (0).  Not sim_parse_duration(): one
 * component's mean life may pass the 290 years of a SimTime. */
static gboolean
parse_mtbf (const char *value, double *out_s, GError **error)
{
  static const struct { const char *unit; double s; } units[] = {
    { "min", 60 }, { "s", 1 }, { "h", 3600 }, { "d", 86400 }, { "y", 365 * 86400.0 },
  };
  char *end = NULL;
  double v;

  if (g_ascii_strcasecmp (value, "never") == 0)
    {
      *out_s = 0;
      return TRUE;
    }
  /* Decimal digits only, as every other number a scenario gives: strtod
   * alone would take "0x10h" as hex and "1e-320s" as a subnormal. */
  {
    const char *c = value;
    gboolean digits = FALSE;

    while (g_ascii_isdigit (*c))
      c++, digits = TRUE;
    if (*c == '.')
      for (c++; g_ascii_isdigit (*c); c++)
        digits = TRUE;
    if (digits && (*c == 'e' || *c == 'E') &&
        (g_ascii_isdigit (c[1]) || ((c[1] == '-' || c[1] == '+') && g_ascii_isdigit (c[2]))))
      for (c += 2; g_ascii_isdigit (*c); c++)
        ;
    v = digits ? g_ascii_strtod (value, &end) : 0;
    if (!digits || end != c)
      end = (char *) value;
  }
  if (end != value && isfinite (v) && v > 0 && isnormal (v))
    {
      while (*end == ' ')
        end++;
      for (guint i = 0; i < G_N_ELEMENTS (units); i++)
        if (strcmp (end, units[i].unit) == 0)
          {
            *out_s = v * units[i].s;
            if (*out_s >= 1 && isfinite (*out_s))
              return TRUE;
          }
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "\"%s\": expected a time of at least 1 s "
               "with a unit (s, min, h, d, y), such as 108335h, or never", value);
  return FALSE;
}

gboolean
sim__failure_params_set (SimFailureParams *p, const char *key, const char *value,
                         GError **error)
{
  const char *us = strrchr (key, '_');

  if (us != NULL && (strcmp (us, "_mtbf") == 0 || strcmp (us, "_shape") == 0 ||
                     strcmp (us, "_repair") == 0))
    {
      g_autofree char *type = g_strndup (key, (gsize) (us - key));
      int k = sim__failure_type_lookup (type);
      if (k >= 0)
        {
          if (strcmp (us, "_mtbf") == 0)
            return parse_mtbf (value, &p->mtbf_s[k], error);
          if (strcmp (us, "_shape") == 0)
            return sim_parse_number (value, 0.05, 20, &p->shape[k], error);
          return sim_parse_duration (value, &p->repair[k], error);
        }
    }
  if (strcmp (key, "profile") == 0)
    {
      /* A name, not a path: profiles are looked up in the catalogue's
       * directories only, so that a scenario cannot make gpusim read (and
       * quote in its errors) any file on the machine. */
      gboolean plain = value[0] != '\0' && value[0] != '.';

      for (const char *c = value; plain && *c != '\0'; c++)
        plain = g_ascii_isalnum (*c) || *c == '-' || *c == '_' || *c == '.';
      if (!plain)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\": expected the name of a "
                       "failure profile in the catalogue (letters, digits, '-', '_' and '.', "
                       "no directory) or none", value);
          return FALSE;
        }
      g_free (p->profile);
      p->profile = g_strdup (value);
      return TRUE;
    }
  if (strcmp (key, "mode") == 0)
    {
      if (strcmp (value, "self-healing") == 0)
        p->manual = FALSE;
      else if (strcmp (value, "manual") == 0)
        p->manual = TRUE;
      else
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected self-healing or manual", value);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (key, "detect_time") == 0)
    return sim_parse_duration (value, &p->detect, error);
  if (strcmp (key, "swap_time") == 0)
    return sim_parse_duration (value, &p->swap, error);
  if (strcmp (key, "restart_time") == 0)
    return sim_parse_duration (value, &p->restart, error);
  if (strcmp (key, "quarantine") == 0)
    return sim_parse_duration (value, &p->quarantine, error);
  if (strcmp (key, "avoid_recent") == 0)
    return sim_parse_duration (value, &p->avoid, error);
  if (strcmp (key, "spares") == 0)
    return parse_count (value, 0, 1000000, &p->spares, error);
  if (strcmp (key, "nics_per_node") == 0)
    return parse_count (value, 0, 64, &p->nics_per_node, error);
  if (strcmp (key, "nvswitches_per_node") == 0)
    return parse_count (value, 0, 64, &p->nvswitches_per_node, error);
  if (strcmp (key, "nodes_per_leaf") == 0)
    return parse_count (value, 1, 1000000, &p->nodes_per_leaf, error);
  if (strcmp (key, "spines") == 0)
    return parse_count (value, 0, 1000000, &p->spines, error);
  if (strcmp (key, "cores") == 0)
    return parse_count (value, 0, 1000000, &p->cores, error);
  if (strcmp (key, "seed_offset") == 0)
    {
      gint64 v;
      if (!sim_parse_integer (value, 0, G_MAXINT64, &v, error))
        return FALSE;
      p->seed_offset = (guint64) v;
      return TRUE;
    }
  if (strcmp (key, "drain") == 0)
    {
      if (strcmp (value, "migrate") == 0)
        p->drain = 1;
      else if (strcmp (value, "kill") == 0)
        p->drain = 0;
      else
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "\"%s\": expected migrate or kill",
                       value);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (key, "repair_distribution") == 0)
    {
      if (strcmp (value, "exponential") == 0)
        p->repair_dist = SIM_REPAIR_EXPONENTIAL;
      else if (strcmp (value, "lognormal") == 0)
        p->repair_dist = SIM_REPAIR_LOGNORMAL;
      else if (strcmp (value, "fixed") == 0)
        p->repair_dist = SIM_REPAIR_FIXED;
      else
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected exponential, lognormal or fixed", value);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (key, "repair_sigma") == 0)
    return sim_parse_number (value, 0, 5, &p->repair_sigma, error);
  if (strcmp (key, "checkpoint_interval") == 0)
    {
      p->young_daly = FALSE;
      p->interval = 0;
      if (strcmp (value, "young-daly") == 0)
        {
          p->young_daly = TRUE;
          return TRUE;
        }
      if (strcmp (value, "none") == 0)
        return TRUE;
      if (!sim_parse_duration (value, &p->interval, error))
        return FALSE;
      if (p->interval == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected a positive duration, young-daly or none", value);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (key, "checkpoint_size") == 0)
    {
      guint64 bytes;
      if (!sim_parse_size (value, &bytes, error))
        return FALSE;
      p->ckpt_bytes_per_gpu = (double) bytes;
      return TRUE;
    }
  if (strcmp (key, "storage_bandwidth") == 0)
    {
      if (!sim_parse_bandwidth (value, &p->storage_bw, error))
        return FALSE;
      if (p->storage_bw <= 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "\"%s\": expected a positive "
                       "bandwidth such as 2TB/s", value);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (key, "log") == 0)
    {
      g_free (p->log);
      p->log = g_strdup (value);
      return TRUE;
    }
  sim__keys_set_unknown (&sim__failures_key_table, key, error);
  return FALSE;
}

struct _SimFailuresConfig {
  GPtrArray *keys, *values; /* in the order written */
  char      *log;           /* absolute, after check */
};

SimFailuresConfig *
sim__failures_config_new (void)
{
  SimFailuresConfig *c = g_new0 (SimFailuresConfig, 1);

  c->keys = g_ptr_array_new_with_free_func (g_free);
  c->values = g_ptr_array_new_with_free_func (g_free);
  return c;
}

gboolean
sim__failures_config_set (SimFailuresConfig *config, const char *key, const char *value,
                          GError **error)
{
  SimFailureParams scratch;
  gboolean ok;

  /* Checked now, so that the error points at the scenario's line. */
  sim__failure_params_init (&scratch);
  ok = sim__failure_params_set (&scratch, key, value, error);
  sim__failure_params_clear (&scratch);
  if (!ok)
    return FALSE;
  g_ptr_array_add (config->keys, g_strdup (key));
  g_ptr_array_add (config->values, g_strdup (value));
  return TRUE;
}

gboolean
sim__failures_config_check (SimFailuresConfig *config, const char *base_dir, const char **key,
                            GError **error)
{
  for (guint i = 0; i < config->keys->len; i++)
    if (strcmp (config->keys->pdata[i], "log") == 0)
      {
        const char *path = config->values->pdata[i];
        g_free (config->log);
        config->log = g_path_is_absolute (path) || base_dir == NULL
                        ? g_strdup (path) : g_build_filename (base_dir, path, NULL);
        if (!g_file_test (config->log, G_FILE_TEST_EXISTS))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                         "failure log %s not found", config->log);
            *key = "log";
            return FALSE;
          }
        if (!g_file_test (config->log, G_FILE_TEST_IS_REGULAR))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "failure log %s is not a regular "
                         "file (a device, a pipe or a directory): expected a file of "
                         "time,type[,index] rows", config->log);
            *key = "log";
            return FALSE;
          }
      }
  return TRUE;
}

void
sim__failures_config_free (SimFailuresConfig *config)
{
  if (config == NULL)
    return;
  g_ptr_array_unref (config->keys);
  g_ptr_array_unref (config->values);
  g_free (config->log);
  g_free (config);
}

/* Reads profile NAME from the catalogue's directories (the last found
 * wins, so that a user's directory overrides the installed one). */
static gboolean
load_profile (SimFailureParams *p, const char *name, const SimScenario *sc, GError **error)
{
  g_auto(GStrv) dirs = sim_catalogue_default_path ();
  g_autofree char *found = NULL;
  g_autofree char *file = g_strdup_printf ("%s.ini", name);
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *text = NULL;
  g_auto(GStrv) keys = NULL;
  GString *tried = g_string_new (NULL);
  gsize len;

  for (guint pass = 0; pass < 2; pass++)
    {
      char **list = pass == 0 ? dirs : sc->model_dirs;
      for (guint i = 0; list != NULL && list[i] != NULL; i++)
        {
          g_autofree char *path = g_build_filename (list[i], "failures", file, NULL);
          if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
            {
              g_free (found);
              found = g_steal_pointer (&path);
            }
          else
            g_string_append_printf (tried, "%s%s", tried->len ? ", " : "", path);
        }
    }
  if (found == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                   "no failure profile \"%s\" in the catalogue (looked for %s)", name,
                   tried->str);
      g_string_free (tried, TRUE);
      return FALSE;
    }
  g_string_free (tried, TRUE);
  text = sim__read_file (found, SIM_READ_TEXT, &len, error);
  if (text == NULL)
    return FALSE;
  /* GKeyFile's message quotes the line it could not read: say what was
   * expected instead, without the file's content. */
  if (!sim__key_file_load (kf, text, len, NULL))
    {
      guint line = sim__key_file_bad_line (text, len);
      g_autofree char *at = line > 0 ? g_strdup_printf (":%u", line) : g_strdup ("");

      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s%s: not a key file: expected a "
                   "failure profile, a [failures] group of `key = value` lines", found, at);
      return FALSE;
    }
  keys = g_key_file_get_keys (kf, "failures", NULL, NULL);
  if (keys == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: no [failures] group", found);
      return FALSE;
    }
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autofree char *value = NULL;
      if (strcmp (keys[i], "name") == 0 || strcmp (keys[i], "description") == 0)
        continue;
      value = g_strstrip (g_key_file_get_value (kf, "failures", keys[i], NULL));
      if (!profile_key (keys[i]))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY,
                       "%s: [failures] %s: not a profile key (rates `TYPE_mtbf`, "
                       "`TYPE_shape`, `TYPE_repair` and the counts per node)", found, keys[i]);
          return FALSE;
        }
      if (!sim__failure_params_set (p, keys[i], value, error))
        {
          g_prefix_error (error, "%s: [failures] %s: ", found, keys[i]);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
sim__failure_params_resolve (SimFailureParams *p, const SimScenario *sc, GError **error)
{
  const SimFailuresConfig *c = sc->failures;
  const char *profile = sim__keys_find (&sim__failures_key_table, "profile")->def;

  sim__failure_params_init (p);
  for (guint i = 0; i < c->keys->len; i++)
    if (strcmp (c->keys->pdata[i], "profile") == 0)
      profile = c->values->pdata[i];
  if (strcmp (profile, "none") != 0 && !load_profile (p, profile, sc, error))
    {
      sim__scenario_locate (sc, "failures", "profile", error);
      return FALSE;
    }
  for (guint i = 0; i < c->keys->len; i++)
    if (!sim__failure_params_set (p, c->keys->pdata[i], c->values->pdata[i], error))
      {
        sim__scenario_locate (sc, "failures", c->keys->pdata[i], error);
        return FALSE;
      }
  g_free (p->log);
  p->log = g_strdup (c->log);
  /* The mode's defaults for what was not set. */
  if (p->detect < 0)
    p->detect = p->manual ? 2 * SIM_HOUR : 2 * SIM_MINUTE;
  if (p->swap < 0)
    p->swap = p->manual ? 4 * SIM_HOUR : 2 * SIM_MINUTE;
  if (p->restart < 0)
    p->restart = p->manual ? 30 * SIM_MINUTE : 5 * SIM_MINUTE;
  if (p->drain < 0)
    p->drain = p->manual ? 0 : 1;
  if ((p->interval > 0 || p->young_daly) && (p->ckpt_bytes_per_gpu > 0) != (p->storage_bw > 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "checkpoints need both checkpoint_size and storage_bandwidth");
      sim__scenario_locate (sc, "failures", p->storage_bw > 0 ? "storage_bandwidth"
                                                              : "checkpoint_size", error);
      return FALSE;
    }
  if (p->interval > 0 && !p->young_daly && p->ckpt_bytes_per_gpu <= 0)
    {
      /* A checkpoint of no size would be free: every failure would lose
       * at most an interval, at no cost, which no storage allows. */
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "checkpoints need checkpoint_size (the bytes one GPU writes) and "
                   "storage_bandwidth (the storage's bandwidth): expected both beside "
                   "checkpoint_interval");
      sim__scenario_locate (sc, "failures", "checkpoint_interval", error);
      return FALSE;
    }
  if (p->young_daly && p->ckpt_bytes_per_gpu <= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "young-daly needs the checkpoint's cost: set checkpoint_size and "
                   "storage_bandwidth");
      sim__scenario_locate (sc, "failures", "checkpoint_interval", error);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The [failures] section.                                                   */

gboolean
sim__failures_sections_read (const SimKeyReader *reader, SimScenario *sc, GError **error)
{
  const char *key = NULL;

  if (!g_key_file_has_group (reader->kf, "failures"))
    return TRUE;
  sc->failures = sim__failures_config_new ();
  if (!sim__keys_read_each (reader, "failures", (SimKeySetFunc) sim__failures_config_set,
                            sc->failures, error))
    return FALSE;
  if (!sim__failures_config_check (sc->failures, sc->base_dir, &key, error))
    {
      sim__keys_locate (reader, "failures", key, error);
      return FALSE;
    }
  return TRUE;
}

void
sim__failures_sections_clear (SimScenario *sc)
{
  g_clear_pointer (&sc->failures, sim__failures_config_free);
}
