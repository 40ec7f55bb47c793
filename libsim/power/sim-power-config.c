/* sim-power-config.c: a scenario's [power], [cooling], [power_manager] and
 * [facility] sections: their key tables and their readers.
 *
 * The scenario reader owns the file, its lines and its error prefixes and
 * hands each reader a SimKeyReader; the tables below give every key's
 * type, range, default and documentation, and the generic reader
 * (sim-keys.c) parses the keys that have a parser.  The few rules that
 * join keys (a wake-up time needs sleep_after) stay here, in code.
 */
#include "config.h"

#include "power/sim-power-config.h"
#include "power/sim-power.h"
#include "core/sim-error.h"
#include "core/sim-units.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Parsers                                                                   */

static gboolean
parse_exponent (const char *text, gpointer out, GError **error)
{
  return sim__keys_parse_bounded (text, 0.5, 10, out,
                                  "the exponent k of the dynamic power f^k, from 0.5 to 10 "
                                  "(3 for f V^2 with V following f)", error);
}

static gboolean
parse_power_w (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_power (text, out, error))
    {
      g_prefix_error (error, "expected a power such as \"300W\": ");
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_celsius (const char *text, gpointer out, GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  gsize n = strlen (copy);

  /* "25", "25C" or "25 C". */
  if (n > 0 && (copy[n - 1] == 'C' || copy[n - 1] == 'c'))
    {
      copy[n - 1] = '\0';
      g_strchomp (copy);
    }
  if (!sim_parse_number (copy, -90, 70, out, error))
    {
      g_prefix_error (error, "expected a temperature in degrees C from -90 to 70, such as "
                      "\"25\": ");
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_kelvins (const char *text, gpointer out, GError **error)
{
  return sim__keys_parse_bounded (text, 0, 50, out,
                                  "a half-range in K from 0 to 50, such as \"5\"", error);
}

static gboolean
parse_day (const char *text, gpointer out, GError **error)
{
  return sim__keys_parse_bounded (text, 0, 364, out,
                                  "a day of the year from 0 (1 January) to 364", error);
}

/* The outdoor curve is re-evaluated once per step, each an event of the
 * run: a step of 1 ns over a year is 3e16 events, minutes of CPU that the
 * run-size estimate does not count.  Weather changes over minutes, so a
 * step of at least a second loses nothing and bounds a year to 31.5
 * million evaluations. */
static gboolean
parse_cooling_step (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_duration (text, out, error))
    return FALSE;
  if (*(SimTime *) out < SIM_SECOND)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is shorter than a second: expected a step of at least 1 s, such "
                   "as \"15min\"", text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_watts_per_watt (const char *text, gpointer out, GError **error)
{
  return sim__keys_parse_bounded (text, 0, 2, out,
                                  "W per W of heat or IT from 0 to 2, such as \"0.05\"", error);
}

static gboolean
parse_cop (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_number (text, 0, 100, out, error) || *(double *) out <= 0)
    {
      g_clear_error (error);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": expected a coefficient of performance above 0, such as \"6\"",
                   text);
      return FALSE;
    }
  return TRUE;
}

/* A power of at least 1 W, such as "150W" or "1.2MW". */
static gboolean
parse_policy_power (const char *text, gpointer out, GError **error)
{
  double w;

  if (!sim_parse_power (text, &w, error))
    {
      g_prefix_error (error, "expected a power such as \"150W\" or \"1.2MW\": ");
      return FALSE;
    }
  if (!(w >= 1))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": expected a power of at least 1 W", text);
      return FALSE;
    }
  *(double *) out = w;
  return TRUE;
}

/* A facility limit: a power, or "none" for no limit (0). */
static gboolean
parse_facility_limit (const char *text, gpointer out, GError **error)
{
  if (g_ascii_strcasecmp (text, "none") == 0)
    {
      *(double *) out = 0;
      return TRUE;
    }
  return parse_policy_power (text, out, error);
}

/* An activity threshold: above 0, below 1 ("0.5" or "50%"). */
static gboolean
parse_threshold (const char *text, gpointer out, GError **error)
{
  if (!sim__keys_parse_share_percent (text, 0, TRUE, "an activity threshold", out, error))
    return FALSE;
  if (*(double *) out >= 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": expected an activity threshold below 1 (100%%): no GPU is busier "
                   "than all the time, so every GPU would be capped", text);
      return FALSE;
    }
  return TRUE;
}

/* The lowest cap of the facility limit: a share of TDP, above 0, at most 1. */
static gboolean
parse_min_cap (const char *text, gpointer out, GError **error)
{
  return sim__keys_parse_share_percent (text, 0, TRUE,
                                        "the lowest cap as a share of each GPU's TDP", out,
                                        error);
}

static gboolean
parse_limit_mode (const char *text, gpointer out, GError **error)
{
  if (g_ascii_strcasecmp (text, "cap") == 0)
    *(gint *) out = SIM_FACILITY_LIMIT_CAP;
  else if (g_ascii_strcasecmp (text, "hold") == 0)
    *(gint *) out = SIM_FACILITY_LIMIT_HOLD;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": expected cap (cap every GPU alike) or hold (keep jobs waiting)",
                   text);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* [power]                                                                   */

#define PW(field) offsetof (SimPowerConfig, field)

static const SimKey power_keys[] = {
  { "enable", SIM_KEY_BOOL, NULL, NULL, "true",
    "false keeps the section but turns the power model off", 0, sim__keys_parse_bool,
    PW (enabled) },
  { "clock_exponent", SIM_KEY_NUMBER, NULL, "0.5 to 10", "3",
    "k in c = f^k: a busy GPU's dynamic power at clock share f (3 for f V^2, V following f)",
    0, parse_exponent, PW (clock_exponent) },
  { "memory_power", SIM_KEY_SHARE, NULL, "0 to 1", "0.5",
    "the share of its dynamic power a GPU draws while its work waits on memory", 0,
    sim__keys_parse_share, PW (memory_power) },
  { "clock_limit", SIM_KEY_SHARE, NULL, "above 0, at most 1", "1",
    "every GPU's clock limit as a share of its maximum clock", 0, sim__keys_parse_unit_share,
    PW (clock_limit) },
  { "gpu_cap", SIM_KEY_POWER, "W", NULL, "none",
    "a power cap on every GPU (the clock falls so that a busy GPU stays under it): above "
    "its idle power, at most the highest TDP of the cluster",
    SIM_KEY_DEFAULT_DESCRIBED, parse_power_w, PW (gpu_cap_w) },
  { "gpu_cap_share", SIM_KEY_SHARE, NULL, "above 0, at most 1", "none",
    "a power cap on every GPU as a share of its TDP", SIM_KEY_DEFAULT_DESCRIBED,
    sim__keys_parse_unit_share, PW (gpu_cap_share) },
  { "sleep_after", SIM_KEY_TIME, "s", NULL, "never",
    "an idle node falls asleep after this long", SIM_KEY_DEFAULT_DESCRIBED,
    sim__keys_parse_duration, PW (sleep_after) },
  { "wake_time", SIM_KEY_TIME, "s", NULL, "0s",
    "how long a job placed on a sleeping node waits for it to wake (needs sleep_after)", 0,
    sim__keys_parse_duration, PW (wake_time) },
  { "psu_efficiency", SIM_KEY_SHARE, NULL, "above 0, at most 1", "node model's",
    "replaces every node model's power-supply efficiency", SIM_KEY_DEFAULT_DESCRIBED,
    sim__keys_parse_unit_share, PW (psu_efficiency) },
  { "sleep_power", SIM_KEY_POWER, "W", NULL, "node model's",
    "replaces every node model's power asleep (needs sleep_after)", SIM_KEY_DEFAULT_DESCRIBED,
    parse_power_w, PW (sleep_power_w) },
  { "electrical_efficiency", SIM_KEY_SHARE, NULL, "above 0, at most 1", "0.95",
    "the efficiency of the facility's power distribution (UPS, transformers): facility power "
    "= (IT + cooling) / this", 0, sim__keys_parse_unit_share, PW (electrical_efficiency) },
  { "transceiver_power", SIM_KEY_POWER, "W", NULL, "link model's",
    "replaces every link model's power per optical transceiver", SIM_KEY_DEFAULT_DESCRIBED,
    parse_power_w, PW (transceiver_power_w) },
};

const SimKeyTable sim__power_key_table = {
  "power", FALSE,
  "The power model: GPU power from activity and clock, caps, node sleep; the section turns it "
  "on", power_keys, G_N_ELEMENTS (power_keys), NULL, NULL,
};

/* [power]: every key is optional; the section turns the power model on
 * unless enable = false. */
gboolean
sim__power_config_read (const SimKeyReader *reader, SimPowerConfig *pc, GError **error)
{
  /* The values a table cannot say ("the catalogue's", -1), then the
   * table's defaults. */
  sim_power_config_init (pc);
  sim__keys_apply_defaults (&sim__power_key_table, pc);
  if (!g_key_file_has_group (reader->kf, "power"))
    {
      pc->enabled = FALSE;
      return TRUE;
    }
  if (!sim__keys_read_group (reader, &sim__power_key_table, "power", pc, error))
    return FALSE;
  if (pc->wake_time > 0 && pc->sleep_after == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "a wake-up time without sleep_after: nodes never sleep, set sleep_after "
                   "(such as \"15min\") or remove wake_time");
      sim__keys_locate (reader, "power", "wake_time", error);
      return FALSE;
    }
  if (pc->sleep_power_w >= 0 && pc->sleep_after == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "a sleep power without sleep_after: nodes never sleep, set sleep_after "
                   "(such as \"15min\") or remove sleep_power");
      sim__keys_locate (reader, "power", "sleep_power", error);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* [cooling]                                                                 */

#define CO(field) offsetof (SimCoolingConfig, field)

static const SimKey cooling_keys[] = {
  { "type", SIM_KEY_STRING, NULL, "air, liquid, immersion or a model of one's own", "air",
    "the cooling model of the catalogue (models/cooling/NAME.ini) whose figures the other keys "
    "replace", 0, NULL, 0 },
  { "crah_fan", SIM_KEY_NUMBER, "W/W", "0 to 2", "cooling model's",
    "the computer-room air handlers' fans, per W of heat", SIM_KEY_DEFAULT_DESCRIBED,
    parse_watts_per_watt, CO (crah_fan) },
  { "chiller_cop", SIM_KEY_NUMBER, NULL, "above 0, at most 100", "cooling model's",
    "the chillers' coefficient of performance: heat removed per W drawn",
    SIM_KEY_DEFAULT_DESCRIBED, parse_cop, CO (chiller_cop) },
  { "economizer_below", SIM_KEY_TEMPERATURE, "C", "-90 to 70", "cooling model's",
    "the outdoor temperature below which the economizer turns the chillers off",
    SIM_KEY_DEFAULT_DESCRIBED, parse_celsius, CO (economizer_c) },
  { "liquid_share", SIM_KEY_SHARE, NULL, "0 to 1", "cooling model's",
    "the share of IT heat taken by liquid rather than air", SIM_KEY_DEFAULT_DESCRIBED,
    sim__keys_parse_share, CO (liquid_share) },
  { "liquid_pumps", SIM_KEY_NUMBER, "W/W", "0 to 2", "cooling model's",
    "the liquid loop's pumps, per W of heat it takes", SIM_KEY_DEFAULT_DESCRIBED,
    parse_watts_per_watt, CO (liquid_pumps) },
  { "dry_cooler", SIM_KEY_NUMBER, "W/W", "0 to 2", "cooling model's",
    "the dry coolers' fans, per W of liquid heat", SIM_KEY_DEFAULT_DESCRIBED,
    parse_watts_per_watt, CO (dry_cooler) },
  { "server_fans", SIM_KEY_SHARE, NULL, "0 to 1", "cooling model's",
    "the share of the node model's fan power left with this cooling", SIM_KEY_DEFAULT_DESCRIBED,
    sim__keys_parse_share, CO (server_fans) },
  { "misc", SIM_KEY_NUMBER, "W/W", "0 to 2", "cooling model's",
    "other cooling overheads (towers, humidifiers), per W of IT", SIM_KEY_DEFAULT_DESCRIBED,
    parse_watts_per_watt, CO (misc) },
  { "outdoor_temperature", SIM_KEY_TEMPERATURE, "C", "-90 to 70", "25",
    "the constant outdoor temperature, or the annual mean of the curve", 0, parse_celsius,
    CO (outdoor_c) },
  { "daily_swing", SIM_KEY_NUMBER, "K", "0 to 50", "none",
    "the curve's daily half-range (warmest at 15:00); setting it makes the temperature a curve",
    SIM_KEY_DEFAULT_DESCRIBED, parse_kelvins, CO (daily_swing) },
  { "seasonal_swing", SIM_KEY_NUMBER, "K", "0 to 50", "none",
    "the curve's yearly half-range of daily means; setting it makes the temperature a curve",
    SIM_KEY_DEFAULT_DESCRIBED, parse_kelvins, CO (seasonal_swing) },
  { "warmest_day", SIM_KEY_NUMBER, "day", "0 to 364", "200",
    "the curve's warmest day of the year, from 0 (1 January, where simulated time starts)", 0,
    parse_day, CO (warmest_day) },
  { "step", SIM_KEY_TIME, "s", "at least 1 s", "1h",
    "the curve is held constant over steps this long", 0, parse_cooling_step,
    CO (step) },
  { "outdoor_csv", SIM_KEY_PATH, NULL, NULL, NULL,
    "a CSV file of time and temperature rows, instead of outdoor_temperature and the swings", 0,
    NULL, 0 },
};

const SimKeyTable sim__cooling_key_table = {
  "cooling", FALSE,
  "The cooling plant and the outdoor temperature it works in (needs [power])",
  cooling_keys, G_N_ELEMENTS (cooling_keys), NULL, NULL,
};

/* [cooling] (power/sim-cooling.h): its type names a cooling model of the
 * catalogue, whose figures the other keys replace. */
gboolean
sim__cooling_config_read (const SimKeyReader *reader, const SimPowerConfig *power,
                          SimCoolingConfig *cc, GError **error)
{
  g_autofree char *csv = NULL;
  gboolean swings;

  cc->model = g_strdup (sim__keys_find (&sim__cooling_key_table, "type")->def);
  /* NAN: the cooling model's figure, which the table cannot write. */
  cc->crah_fan = cc->chiller_cop = cc->economizer_c = cc->liquid_share = NAN;
  cc->liquid_pumps = cc->dry_cooler = cc->server_fans = cc->misc = NAN;
  cc->outdoor = SIM_OUTDOOR_CONSTANT;
  sim__keys_apply_defaults (&sim__cooling_key_table, cc);
  if (!g_key_file_has_group (reader->kf, "cooling"))
    return TRUE;
  cc->enabled = TRUE;
  if (sim__keys_has (reader, "cooling", "type"))
    {
      g_free (cc->model);
      cc->model = sim__keys_get (reader, "cooling", "type");
    }
  if (!sim__keys_read_group (reader, &sim__cooling_key_table, "cooling", cc, error))
    return FALSE;
  swings = sim__keys_has (reader, "cooling", "daily_swing") ||
           sim__keys_has (reader, "cooling", "seasonal_swing");
  if (swings)
    cc->outdoor = SIM_OUTDOOR_CURVE;
  csv = sim__keys_get (reader, "cooling", "outdoor_csv");
  if (csv != NULL)
    {
      if (swings || sim__keys_has (reader, "cooling", "outdoor_temperature"))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "the outdoor temperature comes from the CSV file: remove "
                       "outdoor_temperature, daily_swing and seasonal_swing, or outdoor_csv");
          sim__keys_locate (reader, "cooling", "outdoor_csv", error);
          return FALSE;
        }
      cc->outdoor = SIM_OUTDOOR_CSV;
      cc->outdoor_csv = g_path_is_absolute (csv) ? g_strdup (csv)
                                                 : g_build_filename (reader->base_dir, csv,
                                                                     NULL);
    }
  if (!power->enabled)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "cooling needs the power model: add a [power] section (an empty one will "
                   "do)%s", g_key_file_has_group (reader->kf, "power") ? ", or set enable = true"
                                                                     : "");
      sim__keys_locate (reader, "cooling", NULL, error);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Power policies: [power_manager] and [facility].                           */

#define PM(field) offsetof (SimPowerManagerConfig, field)

static const SimKey power_manager_keys[] = {
  { "enable", SIM_KEY_BOOL, NULL, NULL, "true",
    "false keeps the section (and its metrics, as 0) but turns the manager off", 0,
    sim__keys_parse_bool, PM (enabled) },
  { "threshold", SIM_KEY_SHARE, NULL, "above 0, below 1", "0.5",
    "a GPU whose activity stays below this is capped", 0, parse_threshold, PM (threshold) },
  { "low_cap", SIM_KEY_POWER, "W", "at least 1 W", "150W",
    "the cap set on a GPU below the threshold", 0, parse_policy_power, PM (low_cap_w) },
  { "hold", SIM_KEY_TIME, "s", NULL, "5min",
    "how long a GPU's activity must stay below the threshold before it is capped", 0,
    sim__keys_parse_duration, PM (hold) },
  { "raise_after", SIM_KEY_TIME, "s", NULL, "0s",
    "how long its activity must stay at or above the threshold before the cap is lifted (0: at "
    "once)", 0, sim__keys_parse_duration, PM (raise_after) },
  { "baseline", SIM_KEY_BOOL, NULL, NULL, "true",
    "also run the scenario without the manager, for the energy it saves and the time it costs",
    0, sim__keys_parse_bool, PM (baseline) },
};

const SimKeyTable sim__power_manager_key_table = {
  "power_manager", FALSE,
  "A power manager that caps the GPUs whose activity stays low (needs [power])",
  power_manager_keys, G_N_ELEMENTS (power_manager_keys), NULL, NULL,
};

#define FA(field) offsetof (SimFacilityConfig, field)

static const SimKey facility_keys[] = {
  { "max_power", SIM_KEY_POWER, "W", "at least 1 W, or none", NULL,
    "the facility's power limit", SIM_KEY_REQUIRED, parse_facility_limit, FA (max_power_w) },
  { "limit_mode", SIM_KEY_CHOICE, NULL, "cap, hold", "cap",
    "cap: cap every GPU alike, as little as keeps the limit; hold: keep jobs waiting while "
    "starting them would pass it", 0, parse_limit_mode, FA (limit_mode) },
  { "min_cap", SIM_KEY_SHARE, NULL, "above 0, at most 1", "0.3",
    "cap mode: the lowest cap it may set, as a share of each GPU's TDP", 0, parse_min_cap,
    FA (min_cap_share) },
  { "baseline", SIM_KEY_BOOL, NULL, NULL, "true",
    "also run the scenario without the limit, for the completion time it costs", 0,
    sim__keys_parse_bool, FA (baseline) },
};

const SimKeyTable sim__facility_key_table = {
  "facility", FALSE,
  "A limit on the facility's power, kept by capping GPUs or holding jobs (needs [power])",
  facility_keys, G_N_ELEMENTS (facility_keys), NULL, NULL,
};

void
sim_power_manager_config_init (SimPowerManagerConfig *config)
{
  g_return_if_fail (config != NULL);
  *config = (SimPowerManagerConfig) { 0 };
  sim__keys_apply_defaults (&sim__power_manager_key_table, config);
  /* The defaults are those of a section that is there; without it, off. */
  config->present = FALSE;
  config->enabled = FALSE;
}

void
sim_facility_config_init (SimFacilityConfig *config)
{
  g_return_if_fail (config != NULL);
  *config = (SimFacilityConfig) { 0 };
  sim__keys_apply_defaults (&sim__facility_key_table, config);
  config->present = FALSE;
}

/* [power_manager] and [facility]: every key optional but the limit. */
gboolean
sim__power_policies_read (const SimKeyReader *reader, SimPowerManagerConfig *pm,
                          SimFacilityConfig *fc, GError **error)
{
  sim_power_manager_config_init (pm);
  sim_facility_config_init (fc);
  if (g_key_file_has_group (reader->kf, "power_manager"))
    {
      pm->present = TRUE;
      pm->enabled = TRUE;
      if (!sim__keys_read_group (reader, &sim__power_manager_key_table, "power_manager", pm,
                                 error))
        return FALSE;
    }
  if (g_key_file_has_group (reader->kf, "facility"))
    {
      g_autofree char *limit = sim__keys_get (reader, "facility", "max_power");
      fc->present = TRUE;
      if (limit == NULL || *limit == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key: expected the facility's power limit, such as \"1.2MW\" "
                       "(or none)");
          sim__keys_locate (reader, "facility", "max_power", error);
          return FALSE;
        }
      if (!sim__keys_read_group (reader, &sim__facility_key_table, "facility", fc, error))
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The module's sections in a scenario.                                      */

gboolean
sim__power_sections_read (const SimKeyReader *reader, SimScenario *sc, GError **error)
{
  sim_power_config_init (&sc->power);
  return sim__power_config_read (reader, &sc->power, error) &&
         sim__cooling_config_read (reader, &sc->power, &sc->cooling, error);
}

void
sim__power_sections_clear (SimScenario *sc)
{
  g_clear_pointer (&sc->cooling.model, g_free);
  g_clear_pointer (&sc->cooling.outdoor_csv, g_free);
}

gboolean
sim__power_policy_sections_read (const SimKeyReader *reader, SimScenario *sc, GError **error)
{
  return sim__power_policies_read (reader, &sc->power_manager, &sc->facility, error);
}
