/* sim-cost.c: the [cost] section, value schedules and the cost accumulator.
 *
 * The accumulator is told the state that held between two events (SimState)
 * and integrates, exactly, what it costs: energy is price x facility power
 * over time, and both are piecewise constant, power changing only at
 * events and the price only at the schedule's boundaries.  So each
 * interval between events is cut at the price (and carbon intensity)
 * boundaries inside it, and each piece adds price x power x its length.
 * The schedule is not searched at every event: the accumulator keeps the
 * current value and the time it holds until, and looks the schedule up
 * again (a binary search) only when time passes that point, so an event
 * costs O(1) and a boundary O(log rows).
 *
 * Rejected: sampling the price at events (wrong whenever a price change
 * falls between two events, which on a quiet cluster is most of them), and
 * scheduling engine events at price changes (they would change the event
 * count and so the output of every run with a time-of-use price, and an
 * accumulator must not act on the simulation).
 *
 * Everything else (capex, amortization, rent, the break-even) is a closed
 * form of the integrals, computed once in the report.
 */
#include "config.h"

#include "power/sim-cost-private.h"
#include "kernel/sim-kernel.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "scenario/sim-scenario-private.h"
#include "core/sim-keys.h"
#include "core/sim-read.h"

#include <math.h>
#include <string.h>

#define HOUR_NS   ((SimTime) 3600 * SIM_SECOND)
#define DAY_NS    (24 * HOUR_NS)
#define WEEK_NS   (7 * DAY_NS)
#define YEAR_S    (365.25 * 86400.0)
#define J_PER_KWH 3.6e6

/* The largest price or intensity a key or a file accepts: above this it is
 * a typing error (a price in cents, an intensity in grams), not a tariff. */
#define MAX_USD_PER_KWH     100.0
#define MAX_KGCO2E_PER_KWH  10.0
#define MAX_PRICE_USD       1e12
/* The largest price per GPU-hour cloud_price accepts: no offer comes near
 * (an H100 rents for a few dollars an hour); above this it is a price per
 * instance or in cents. */
#define MAX_USD_PER_GPU_HOUR 1000.0

/* ------------------------------------------------------------------------ */
/* The [cost] section */

static const SimKey cost_keys[] = {
  { "cloud", SIM_KEY_STRING, NULL, NULL, NULL,
    "a cloud offer of the catalogue (models/clouds) to compare owning with renting", 0, NULL,
    0 },
  { "cloud_price", SIM_KEY_LIST, "USD/GPU-h", NULL, NULL,
    "a price per GPU-hour to rent at instead of a catalogue offer (\"2.5/GPU-h\"), or one per "
    "GPU model (\"H100: 2.5/GPU-h, A100: 1.2/GPU-h\"); not with cloud", 0, NULL, 0 },
  { "amortization", SIM_KEY_TIME, "y", NULL, "5y",
    "the period over which the hardware's price is spread", 0, NULL, 0 },
  { "maintenance", SIM_KEY_SHARE, "1/y", "0 to below 1", "0",
    "maintenance per year as a share of the hardware's price (\"0.05\" or \"5%\")", 0, NULL,
    0 },
  { "energy_price", SIM_KEY_NUMBER, "USD/kWh", NULL, "0",
    "a flat energy price (not with energy_price_file)", 0, NULL, 0 },
  { "energy_price_file", SIM_KEY_PATH, NULL, NULL, NULL,
    "a schedule of energy prices, a CSV file of time and USD/kWh", 0, NULL, 0 },
  { "carbon_intensity", SIM_KEY_NUMBER, "kgCO2e/kWh", NULL, "0",
    "a flat carbon intensity of the electricity (not with carbon_intensity_file)", 0, NULL, 0 },
  { "carbon_intensity_file", SIM_KEY_PATH, NULL, NULL, NULL,
    "a schedule of carbon intensities, a CSV file of time and kgCO2e/kWh", 0, NULL, 0 },
  { "start_weekday", SIM_KEY_CHOICE, NULL, "mon, tue, wed, thu, fri, sat, sun", "mon",
    "the weekday at which simulated time starts, for the schedules", 0, NULL, 0 },
  { "start_hour", SIM_KEY_NUMBER, "h", "0 to below 24", "0",
    "the hour of day at which simulated time starts", 0, NULL, 0 },
  { "cooling_usd_per_kw", SIM_KEY_NUMBER, "USD/kW", NULL, "0",
    "the price of the cooling plant per kW of IT capacity", 0, NULL, 0 },
  { "electrical_usd_per_kw", SIM_KEY_NUMBER, "USD/kW", NULL, "0",
    "the price of the electrical plant per kW of IT capacity", 0, NULL, 0 },
  { "capacity_basis", SIM_KEY_CHOICE, NULL, "rated, peak", "rated",
    "the IT capacity the plant is priced on: the cluster's rated power or the run's peak", 0,
    NULL, 0 },
  { "cable_price", SIM_KEY_NUMBER, "USD", NULL, "link model's",
    "the price of one network cable", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "transceiver_price", SIM_KEY_NUMBER, "USD", NULL, "0",
    "the price of one optical transceiver", 0, NULL, 0 },
};

const SimKeyTable sim__cost_key_table = {
  "cost", FALSE, "What owning and running the cluster costs, against renting it",
  cost_keys, G_N_ELEMENTS (cost_keys), NULL, NULL,
};

static const char * const weekdays[] = {
  "mon", "tue", "wed", "thu", "fri", "sat", "sun",
};
static const char * const weekdays_long[] = {
  "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
};

const char * const *
sim_cost_config_keys (void)
{
  static const char **names;

  /* The names of the table's keys, NULL-terminated, made once. */
  if (g_once_init_enter (&names))
    {
      const char **n = g_new0 (const char *, G_N_ELEMENTS (cost_keys) + 1);
      for (guint i = 0; i < G_N_ELEMENTS (cost_keys); i++)
        n[i] = cost_keys[i].name;
      g_once_init_leave (&names, n);
    }
  return names;
}

/* Sets a default: no key of the table is a path, so no folder is needed. */
static gboolean
set_default (gpointer config, const char *key, const char *value, GError **error)
{
  return sim_cost_config_set (config, key, value, NULL, error);
}

void
sim_cost_config_init (SimCostConfig *config)
{
  g_return_if_fail (config != NULL);
  memset (config, 0, sizeof *config);
  /* The table's defaults (amortization SIM_COST_DEFAULT_AMORTIZATION, the
   * rated capacity, no energy price), set as a [cost] key is; setting a
   * key turns the model on, which only the section itself does. */
  sim__keys_apply_defaults_with (&sim__cost_key_table, set_default, config);
  config->enabled = FALSE;
}

void
sim_cost_config_clear (SimCostConfig *config)
{
  if (config == NULL)
    return;
  g_free (config->cloud);
  g_free (config->cloud_price);
  g_free (config->energy_price_file);
  g_free (config->carbon_intensity_file);
  memset (config, 0, sizeof *config);
}

/* A weekday name (three letters or in full, any case), or -1. */
static int
parse_weekday (const char *text)
{
  for (guint i = 0; i < G_N_ELEMENTS (weekdays); i++)
    if (g_ascii_strcasecmp (text, weekdays[i]) == 0
        || g_ascii_strcasecmp (text, weekdays_long[i]) == 0)
      return (int) i;
  return -1;
}

/* "5y" (years of 365.25 days) or any duration sim_parse_duration() reads. */
static gboolean
parse_period (const char *text, SimTime *out, GError **error)
{
  gsize n = strlen (text);

  if (n > 1 && text[n - 1] == 'y')
    {
      g_autofree char *number = g_strndup (text, n - 1);
      double years;

      if (!sim_parse_number (g_strstrip (number), 0, 200, &years, NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\" is not a duration: expected years such as \"5y\" or a "
                       "duration such as \"1826d\"", text);
          return FALSE;
        }
      *out = (SimTime) llround (years * YEAR_S * 1e9);
    }
  else if (!sim_parse_duration (text, out, error))
    {
      g_prefix_error (error, "expected years such as \"5y\" or a duration such as \"1826d\": ");
      return FALSE;
    }
  if (*out <= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is zero: expected a positive period such as \"5y\"", text);
      return FALSE;
    }
  return TRUE;
}

/* A plain number in [0, max], with what it is for the message. */
static gboolean
parse_amount (const char *text, double max, const char *what, double *out, GError **error)
{
  if (sim_parse_number (text, 0, max, out, error))
    return TRUE;
  g_prefix_error (error, "expected %s: ", what);
  return FALSE;
}

/* One price of cloud_price, "2.5", "2.5/GPU-h" or "2.5 USD/GPU-h". */
static gboolean
parse_gpu_hour_price (const char *text, double *out, GError **error)
{
  g_autofree char *number = g_strdup (text);
  char *slash = strchr (number, '/');

  if (slash != NULL)
    {
      const char *unit = g_strstrip (slash + 1);
      if (g_ascii_strcasecmp (unit, "GPU-h") != 0 && g_ascii_strcasecmp (unit, "GPU-hour") != 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "unknown unit \"/%s\": expected a price per GPU-hour such as "
                       "\"2.5/GPU-h\"", unit);
          return FALSE;
        }
      *slash = '\0';
    }
  g_strstrip (number);
  if (g_str_has_suffix (number, "USD"))
    {
      number[strlen (number) - 3] = '\0';
      g_strstrip (number);
    }
  return parse_amount (number, MAX_USD_PER_GPU_HOUR, "a price in USD per GPU-hour such as "
                       "\"2.5/GPU-h\"", out, error);
}

/* The price cloud_price (TEXT) gives GPU model MODEL (%NULL only to check
 * the text): the entry "MODEL: price" (the model's name in any case), or
 * else the entry without a model.  *FOUND says whether one applies. */
static gboolean
cloud_price_for (const char *text, const char *model, double *price, gboolean *found,
                 GError **error)
{
  g_auto(GStrv) entries = g_strsplit (text, ",", -1);
  gboolean have_default = FALSE, have_model = FALSE;
  double def = 0;

  *found = FALSE;
  *price = 0;
  for (guint i = 0; entries[i] != NULL; i++)
    {
      char *entry = g_strstrip (entries[i]);
      char *colon = strchr (entry, ':');
      double v;

      if (*entry == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "an empty entry: expected a price "
                       "per GPU-hour (\"2.5/GPU-h\") or entries \"MODEL: price\" separated "
                       "by commas");
          return FALSE;
        }
      if (colon == NULL)
        {
          if (have_default)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "two prices without a GPU "
                           "model: expected one, and \"MODEL: price\" for the others");
              return FALSE;
            }
          if (!parse_gpu_hour_price (entry, &def, error))
            return FALSE;
          have_default = TRUE;
          continue;
        }
      *colon = '\0';
      g_strstrip (entry);
      if (*entry == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "a price without its GPU model "
                       "before \":\": expected \"MODEL: price\" such as \"H100: 2.5/GPU-h\"");
          return FALSE;
        }
      if (!parse_gpu_hour_price (colon + 1, &v, error))
        {
          g_prefix_error (error, "%s: ", entry);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (g_ascii_strcasecmp (entries[j], entry) == 0)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "GPU model %s is given two "
                         "prices: expected one", entry);
            return FALSE;
          }
      if (model != NULL && g_ascii_strcasecmp (entry, model) == 0)
        {
          *price = v;
          have_model = TRUE;
        }
    }
  if (!have_model && have_default)
    *price = def;
  *found = have_model || have_default;
  return TRUE;
}

static char *
absolute_path (const char *value, const char *base_dir)
{
  if (g_path_is_absolute (value) || base_dir == NULL)
    return g_canonicalize_filename (value, NULL);
  return g_canonicalize_filename (value, base_dir);
}

gboolean
sim_cost_config_set (SimCostConfig *config, const char *key, const char *value,
                     const char *base_dir, GError **error)
{
  g_return_val_if_fail (config != NULL && key != NULL && value != NULL, FALSE);

  if (*value == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "empty value: expected a value");
      return FALSE;
    }
  config->enabled = TRUE;
  if (strcmp (key, "cloud") == 0)
    {
      g_free (config->cloud);
      config->cloud = g_strdup (value);
      return TRUE;
    }
  if (strcmp (key, "cloud_price") == 0)
    {
      double price;
      gboolean found;

      if (!cloud_price_for (value, NULL, &price, &found, error))
        return FALSE;
      g_free (config->cloud_price);
      config->cloud_price = g_strdup (value);
      return TRUE;
    }
  if (strcmp (key, "amortization") == 0)
    return parse_period (value, &config->amortization, error);
  if (strcmp (key, "maintenance") == 0)
    {
      gsize n = strlen (value);
      double v;
      gboolean percent = value[n - 1] == '%';
      g_autofree char *number = percent ? g_strndup (value, n - 1) : g_strdup (value);

      if (!sim_parse_number (g_strstrip (number), 0, percent ? 100 : 1, &v, error))
        {
          g_prefix_error (error, "expected a share of capex per year below 1, such as "
                          "\"0.05\" or \"5%%\": ");
          return FALSE;
        }
      if (percent)
        v /= 100;
      if (v >= 1)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "\"%s\" is the whole capex every year or more: expected a share "
                       "below 1, such as \"0.05\" or \"5%%\"", value);
          return FALSE;
        }
      config->maintenance = v;
      return TRUE;
    }
  if (strcmp (key, "energy_price") == 0 || strcmp (key, "carbon_intensity") == 0)
    {
      gboolean price = key[0] == 'e';
      const char *file = price ? config->energy_price_file : config->carbon_intensity_file;

      if (file != NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "given with %s_file: expected one of %s (flat) and %s_file "
                       "(a schedule)", key, key, key);
          return FALSE;
        }
      return parse_amount (value, price ? MAX_USD_PER_KWH : MAX_KGCO2E_PER_KWH,
                           price ? "a price in USD per kWh such as \"0.12\""
                                 : "an intensity in kgCO2e per kWh such as \"0.4\"",
                           price ? &config->energy_price : &config->carbon_intensity, error);
    }
  if (strcmp (key, "energy_price_file") == 0 || strcmp (key, "carbon_intensity_file") == 0)
    {
      gboolean price = key[0] == 'e';
      double flat = price ? config->energy_price : config->carbon_intensity;
      char **slot = price ? &config->energy_price_file : &config->carbon_intensity_file;

      if (flat > 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "given with %s: expected one of %s (flat) and %s (a schedule)",
                       price ? "energy_price" : "carbon_intensity",
                       price ? "energy_price" : "carbon_intensity", key);
          return FALSE;
        }
      g_free (*slot);
      *slot = absolute_path (value, base_dir);
      return TRUE;
    }
  if (strcmp (key, "start_weekday") == 0)
    {
      int d = parse_weekday (value);
      if (d < 0)
        {
          const char *guess = sim__closest (value, weekdays_long, G_N_ELEMENTS (weekdays_long));
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "unknown weekday \"%s\"%s: expected mon, tue, wed, thu, fri, sat or sun",
                       value, sim__did_you_mean (guess));
          return FALSE;
        }
      config->start_weekday = (guint) d;
      return TRUE;
    }
  if (strcmp (key, "start_hour") == 0)
    {
      double h;
      if (!parse_amount (value, 24, "an hour of day in [0, 24) such as \"8\" or \"7.5\"", &h,
                         error))
        return FALSE;
      if (h >= 24)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "\"%s\" is not an hour of day: expected a number in [0, 24)", value);
          return FALSE;
        }
      config->start_hour = h;
      return TRUE;
    }
  if (strcmp (key, "cooling_usd_per_kw") == 0)
    return parse_amount (value, 1e7, "a price in USD per kW such as \"2000\"",
                         &config->cooling_usd_per_kw, error);
  if (strcmp (key, "electrical_usd_per_kw") == 0)
    return parse_amount (value, 1e7, "a price in USD per kW such as \"3000\"",
                         &config->electrical_usd_per_kw, error);
  if (strcmp (key, "capacity_basis") == 0)
    {
      if (strcmp (value, "rated") == 0)
        config->capacity_basis = SIM_COST_CAPACITY_RATED;
      else if (strcmp (value, "peak") == 0)
        config->capacity_basis = SIM_COST_CAPACITY_PEAK;
      else
        {
          const char *choices[] = { "rated", "peak" };
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "unknown basis \"%s\"%s: expected rated (the cluster's rated IT power) "
                       "or peak (the peak the run draws)", value,
                       sim__did_you_mean (sim__closest (value, choices, 2)));
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (key, "cable_price") == 0)
    {
      config->set_cable_price = TRUE;
      return parse_amount (value, 1e7, "a price in USD per cable such as \"900\"",
                           &config->cable_price, error);
    }
  if (strcmp (key, "transceiver_price") == 0)
    return parse_amount (value, 1e7, "a price in USD per transceiver such as \"1200\"",
                         &config->transceiver_price, error);

  sim__keys_set_unknown (&sim__cost_key_table, key, error);
  return FALSE;
}

double
sim_cost_break_even (double fixed_usd_per_hour, double idle_usd_per_hour,
                     double dynamic_usd_per_hour, guint gpus, double rent_usd_per_gpu_hour)
{
  double margin = gpus * rent_usd_per_gpu_hour - dynamic_usd_per_hour;

  if (margin <= 0)
    return INFINITY;
  return (fixed_usd_per_hour + idle_usd_per_hour) / margin;
}

/* ------------------------------------------------------------------------ */
/* Schedules */

void
sim__cost_schedule_init_flat (SimCostSchedule *s, double value)
{
  memset (s, 0, sizeof *s);
  s->n = 1;
  s->start = g_new0 (SimTime, 1);
  s->value = g_new (double, 1);
  s->value[0] = value;
}

void
sim__cost_schedule_clear (SimCostSchedule *s)
{
  g_clear_pointer (&s->start, g_free);
  g_clear_pointer (&s->value, g_free);
  s->n = 0;
}

/* The last row whose start is at or before @x, or -1 if @x is before all. */
static gint64
row_at (const SimCostSchedule *s, SimTime x)
{
  gint64 lo = 0, hi = (gint64) s->n - 1, found = -1;

  while (lo <= hi)
    {
      gint64 mid = lo + (hi - lo) / 2;
      if (s->start[mid] <= x)
        {
          found = mid;
          lo = mid + 1;
        }
      else
        hi = mid - 1;
    }
  return found;
}

double
sim__cost_schedule_at (const SimCostSchedule *s, SimTime t, SimTime *until)
{
  SimTime x, next;
  gint64 i;

  g_assert (s->n > 0);
  if (s->n == 1)
    {
      *until = SIM_TIME_NEVER;
      return s->value[0];
    }
  if (s->period == 0)
    {
      i = row_at (s, t);
      g_assert (i >= 0);  /* start[0] is 0 */
      *until = (guint64) i + 1 < s->n ? s->start[i + 1] : SIM_TIME_NEVER;
      return s->value[i];
    }
  x = (SimTime) (((guint64) t + (guint64) s->phase) % (guint64) s->period);
  i = row_at (s, x);
  if (i < 0)
    {
      /* Before the first row of the period: the last row's value wraps. */
      *until = t + (s->start[0] - x);
      return s->value[s->n - 1];
    }
  next = (guint64) i + 1 < s->n ? s->start[i + 1] : s->period + s->start[0];
  *until = t + (next - x);
  return s->value[i];
}

typedef enum { LAYOUT_DAILY, LAYOUT_WEEKLY, LAYOUT_TIMED } Layout;

static void set_row_error (GError **error, int code, const char *path, guint line,
                           const char *column, const char *format, ...) G_GNUC_PRINTF (6, 7);

/* "PATH:LINE: COLUMN: what". */
static void
set_row_error (GError **error, int code, const char *path, guint line, const char *column,
               const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list ap;

  va_start (ap, format);
  what = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (column != NULL)
    g_set_error (error, SIM_ERROR, code, "%s:%u: %s: %s", path, line, column, what);
  else
    g_set_error (error, SIM_ERROR, code, "%s:%u: %s", path, line, what);
}

static void
prefix_row_error (GError **error, const char *path, guint line, const char *column)
{
  g_prefix_error (error, "%s:%u: %s: ", path, line, column);
}

gboolean
sim__cost_schedule_load (SimCostSchedule *s, const char *path, const char *column, double max,
                         SimTime phase, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (SimTime));
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *expected = NULL;
  Layout layout = LAYOUT_DAILY;
  guint n_fields = 0;
  gboolean have_header = FALSE;

  memset (s, 0, sizeof *s);
  /* Bounded, and refused with its line if it holds a NUL byte: a NUL
   * would end the text early and drop every later price silently. */
  text = sim__read_file (path, SIM_READ_TEXT, NULL, &local);
  if (text == NULL)
    {
      if (local->code == SIM_ERROR_IO)
        g_set_error (error, SIM_ERROR, local->code, "cannot read %s", local->message);
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  expected = g_strdup_printf ("a header row hour,%s (daily), weekday,hour,%s (weekly) or "
                              "time,%s (from the start of the run)", column, column, column);
  lines = g_strsplit (text, "\n", -1);
  for (guint l = 0; lines[l] != NULL; l++)
    {
      guint line = l + 1;
      char *row = g_strstrip (lines[l]);
      g_auto(GStrv) fields = NULL;
      guint n;
      SimTime at = 0;
      double v;

      if (*row == '\0' || *row == '#')
        continue;
      fields = g_strsplit (row, ",", -1);
      n = g_strv_length (fields);
      for (guint f = 0; f < n; f++)
        g_strstrip (fields[f]);
      if (!have_header)
        {
          const char *value_col = n >= 2 ? fields[n - 1] : "";

          if (n == 2 && g_ascii_strcasecmp (fields[0], "hour") == 0)
            layout = LAYOUT_DAILY;
          else if (n == 3 && g_ascii_strcasecmp (fields[0], "weekday") == 0
                   && g_ascii_strcasecmp (fields[1], "hour") == 0)
            layout = LAYOUT_WEEKLY;
          else if (n == 2 && g_ascii_strcasecmp (fields[0], "time") == 0)
            layout = LAYOUT_TIMED;
          else
            {
              set_row_error (error, SIM_ERROR_PARSE, path, line, NULL,
                             "header \"%s\": expected %s", row, expected);
              return FALSE;
            }
          if (g_ascii_strcasecmp (value_col, column) != 0)
            {
              set_row_error (error, SIM_ERROR_PARSE, path, line, value_col,
                             "unknown value column: expected \"%s\" (the unit of the values)",
                             column);
              return FALSE;
            }
          n_fields = n;
          have_header = TRUE;
          continue;
        }
      if (n != n_fields)
        {
          set_row_error (error, SIM_ERROR_PARSE, path, line, NULL,
                         "%u fields: expected %u, as the header has", n, n_fields);
          return FALSE;
        }
      if (layout == LAYOUT_TIMED)
        {
          if (!sim_parse_duration (fields[0], &at, error))
            {
              prefix_row_error (error, path, line, "time");
              return FALSE;
            }
          if (starts->len == 0 && at != 0)
            {
              set_row_error (error, SIM_ERROR_INVALID, path, line, "time",
                             "\"%s\": expected the first row at time 0 (\"0s\"), so that "
                             "every time of the run has a value", fields[0]);
              return FALSE;
            }
        }
      else
        {
          const char *hour_text = fields[layout == LAYOUT_WEEKLY ? 1 : 0];
          double hour;

          if (layout == LAYOUT_WEEKLY)
            {
              int d = parse_weekday (fields[0]);
              if (d < 0)
                {
                  set_row_error (error, SIM_ERROR_PARSE, path, line, "weekday",
                                 "unknown weekday \"%s\": expected mon, tue, wed, thu, fri, "
                                 "sat or sun", fields[0]);
                  return FALSE;
                }
              at = d * DAY_NS;
            }
          if (!sim_parse_number (hour_text, 0, 24, &hour, error) || hour >= 24)
            {
              g_clear_error (error);
              set_row_error (error, SIM_ERROR_PARSE, path, line, "hour",
                             "\"%s\": expected an hour of day in [0, 24) such as \"7\" or "
                             "\"7.5\"", hour_text);
              return FALSE;
            }
          at += (SimTime) llround (hour * 3600e9);
        }
      if (starts->len > 0 && at <= g_array_index (starts, SimTime, starts->len - 1))
        {
          set_row_error (error, SIM_ERROR_INVALID, path, line,
                         layout == LAYOUT_TIMED ? "time" : "hour",
                         "not after the row before: expected rows in increasing order of %s",
                         layout == LAYOUT_TIMED ? "time" : layout == LAYOUT_WEEKLY
                         ? "weekday, then hour" : "hour");
          return FALSE;
        }
      if (!sim_parse_number (fields[n - 1], 0, max, &v, error))
        {
          prefix_row_error (error, path, line, column);
          return FALSE;
        }
      g_array_append_val (starts, at);
      g_array_append_val (values, v);
    }
  if (!have_header)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "%s: empty: expected %s", path,
                   expected);
      return FALSE;
    }
  if (starts->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: no rows after the header: expected at least one row of %s", path,
                   column);
      return FALSE;
    }
  s->period = layout == LAYOUT_DAILY ? DAY_NS : layout == LAYOUT_WEEKLY ? WEEK_NS : 0;
  s->phase = s->period > 0 ? phase % s->period : 0;
  s->n = starts->len;
  s->start = (SimTime *) (void *) g_array_free (g_steal_pointer (&starts), FALSE);
  s->value = (double *) (void *) g_array_free (g_steal_pointer (&values), FALSE);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The accumulator */

typedef struct {
  SimAccumulator  parent;

  /* Set up once. */
  guint    gpus;
  double   amortization_h;
  double   maintenance;
  SimCostCapacityBasis basis;
  double   cooling_usd_per_kw, electrical_usd_per_kw;
  double   capex_nodes;
  double   rated_nodes_w;     /* the nodes' rated IT power */
  double   rated_idle_w;      /* ... and at idle (base + GPU idle), for the split */
  double   switch_price, switch_power_w;
  double   cable_price, transceiver_price;
  double   on_demand_gpu_h;   /* USD per GPU-hour, 0 if unknown */
  double   reserved_gpu_h;
  SimCostSchedule price, carbon;

  /* Integrals up to last. */
  SimTime  last;
  double   price_now, carbon_now;
  SimTime  price_until, carbon_until;
  double   energy_j;
  double   energy_usd, emissions_kg;
  double   cooling_usd;       /* the part of energy_usd that cooling draws */
  double   peak_it_w;
  double   alloc_gpu_s;       /* on the owner's GPUs */
  double   work_gpu_s;        /* anywhere in the cluster, a cloud pool's too: what renting
                               * the whole workload would take */
  /* Time-weighted sums for the line of facility power against the
   * allocated share u: integrals of 1, u, u^2, P and u P (seconds). */
  double   s_t, s_u, s_uu, s_p, s_up;
  guint64  completed;
} CostAcc;

static const SimAccumulatorVTable cost_vtable;

static void
cost_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  CostAcc *c = (CostAcc *) acc;
  SimTime t = c->last;
  double power = held->facility_power_w;
  double u, dt, own;

  if (now <= c->last)
    return;
  dt = (double) (now - c->last) / 1e9;
  /* GPUs rented from a cloud pool are neither owned nor delivered by the
   * owner's cluster (power/sim-elastic.h bills them). */
  own = (double) (held->allocated_milli - held->cloud_milli) / 1000.0;
  u = c->gpus > 0 ? own / c->gpus : 0;
  c->alloc_gpu_s += own * dt;
  c->work_gpu_s += (double) held->allocated_milli / 1000.0 * dt;
  c->s_t += dt;
  c->s_u += u * dt;
  c->s_uu += u * u * dt;
  c->s_p += power * dt;
  c->s_up += u * power * dt;
  c->energy_j += power * dt;
  if (held->it_power_w > c->peak_it_w)
    c->peak_it_w = held->it_power_w;

  /* Price x power, cut at every change of price or intensity. */
  while (power > 0 && t < now)
    {
      SimTime t1 = now;
      double seg;

      if (t >= c->price_until)
        c->price_now = sim__cost_schedule_at (&c->price, t, &c->price_until);
      if (t >= c->carbon_until)
        c->carbon_now = sim__cost_schedule_at (&c->carbon, t, &c->carbon_until);
      t1 = MIN (t1, MIN (c->price_until, c->carbon_until));
      seg = (double) (t1 - t) / 1e9 * power / J_PER_KWH;
      c->energy_usd += c->price_now * seg;
      c->cooling_usd += c->price_now * (double) (t1 - t) / 1e9 * held->cooling_power_w / J_PER_KWH;
      c->emissions_kg += c->carbon_now * seg;
      t = t1;
    }
  c->last = now;
}

static void
cost_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                const char *class_name, SimTime now)
{
  CostAcc *c = (CostAcc *) acc;

  (void) job;
  (void) class_name;
  (void) now;
  if (event == SIM_JOB_FINISHED)
    c->completed++;
}

/* The line P = a + b u of facility power against the allocated share, for
 * the break-even: least squares weighted by time when u varied; otherwise
 * the mean power split in the proportion of the rated idle and full power
 * at the one share seen. */
static void
power_line (const CostAcc *c, double rated_full_w, double *a, double *b)
{
  double mean_u, mean_p, var_u;

  *a = *b = 0;
  if (c->s_t <= 0 || c->s_p <= 0)
    return;
  mean_u = c->s_u / c->s_t;
  mean_p = c->s_p / c->s_t;
  var_u = c->s_uu / c->s_t - mean_u * mean_u;
  if (var_u > 1e-9)
    {
      *b = (c->s_up / c->s_t - mean_u * mean_p) / var_u;
      *a = mean_p - *b * mean_u;
      if (*a >= 0 && *b >= 0)
        return;
    }
  if (rated_full_w > c->rated_idle_w && c->rated_idle_w >= 0)
    {
      double shape = c->rated_idle_w + mean_u * (rated_full_w - c->rated_idle_w);
      if (shape > 0)
        {
          *a = mean_p * c->rated_idle_w / shape;
          *b = mean_p * (rated_full_w - c->rated_idle_w) / shape;
          return;
        }
    }
  *a = mean_p;
  *b = 0;
}

/* The capital cost, with the fabric's counts in @info: of the network,
 * of the facility (sized on *@capacity_w, of the rated IT power *@rated_w
 * or the peak so far), and in all (returned). */
static double
capex_of (const CostAcc *c, const SimReportInfo *info, double *capex_network,
          double *capex_facility, double *capacity_w, double *rated_w)
{
  double switches = info->have_fabric ? info->switches : 0;
  double cables = info->have_fabric ? info->cables : 0;
  double transceivers = info->have_fabric ? info->transceivers : 0;

  *rated_w = c->rated_nodes_w + switches * c->switch_power_w;
  *capacity_w = c->basis == SIM_COST_CAPACITY_PEAK ? c->peak_it_w : *rated_w;
  *capex_network = switches * c->switch_price + cables * c->cable_price
                   + transceivers * c->transceiver_price;
  *capex_facility = *capacity_w / 1000.0 * (c->cooling_usd_per_kw + c->electrical_usd_per_kw);
  return c->capex_nodes + *capex_network + *capex_facility;
}

/* Amortized capex and maintenance per hour, USD/h. */
static double
fixed_per_hour (const CostAcc *c, double capex)
{
  return capex / c->amortization_h + capex * c->maintenance / (YEAR_S / 3600.0);
}

double
sim__cost_fixed_per_hour (SimAccumulator *acc, const SimReportInfo *info)
{
  double network, facility, capacity_w, rated_w;

  g_return_val_if_fail (acc != NULL && acc->vtable == &cost_vtable && info != NULL, 0);
  return fixed_per_hour ((const CostAcc *) acc,
                         capex_of ((const CostAcc *) acc, info, &network, &facility, &capacity_w,
                                   &rated_w));
}

gboolean
sim__cost_is_fixed (SimAccumulator *acc)
{
  g_return_val_if_fail (acc != NULL && acc->vtable == &cost_vtable, FALSE);
  return ((const CostAcc *) acc)->basis != SIM_COST_CAPACITY_PEAK;
}

double
sim__cost_energy_price_at (SimAccumulator *acc, SimTime t, SimTime *until)
{
  g_return_val_if_fail (acc != NULL && acc->vtable == &cost_vtable && until != NULL, 0);
  return sim__cost_schedule_at (&((const CostAcc *) acc)->price, t, until);
}

static void
cost_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  CostAcc *c = (CostAcc *) acc;
  double hours = (double) info->end / 3.6e12;
  double rated_w, capacity_w;
  double capex_network, capex_facility, capex, fixed_h, amortized, maintenance, tco;
  double gpu_hours = c->alloc_gpu_s / 3600.0;
  double energy_kwh = c->energy_j / J_PER_KWH;
  double mean_price, a, b;

  capex = capex_of (c, info, &capex_network, &capex_facility, &capacity_w, &rated_w);
  fixed_h = fixed_per_hour (c, capex);
  amortized = capex * hours / c->amortization_h;
  maintenance = capex * c->maintenance * hours / (YEAR_S / 3600.0);
  tco = amortized + maintenance + c->energy_usd;

  sim__report_add (report, "cost_capex", capex, "USD");
  sim__report_add (report, "cost_capex_nodes", c->capex_nodes, "USD");
  sim__report_add (report, "cost_capex_network", capex_network, "USD");
  sim__report_add (report, "cost_capex_facility", capex_facility, "USD");
  sim__report_add (report, "cost_capacity", capacity_w / 1000.0, "kW");
  sim__report_add (report, "cost_amortized_capex", amortized, "USD");
  sim__report_add (report, "cost_maintenance", maintenance, "USD");
  sim__report_add (report, "cost_energy_kwh", energy_kwh, "kWh");
  sim__report_add (report, "cost_energy", c->energy_usd, "USD");
  mean_price = energy_kwh > 0 ? c->energy_usd / energy_kwh : 0;
  sim__report_add (report, "cost_energy_price_mean", mean_price, "USD/kWh");
  sim__report_add (report, "cost_emissions", c->emissions_kg, "kgCO2e");
  sim__report_add (report, "cost_tco", tco, "USD");
  sim__report_add (report, "cost_delivered_gpu_hours", gpu_hours, "GPU-h");
  if (gpu_hours > 0)
    sim__report_add (report, "cost_per_gpu_hour", tco / gpu_hours, "USD/GPU-h");
  if (c->completed > 0)
    sim__report_add (report, "cost_per_job", tco / (double) c->completed, "USD/job");
  sim__report_add (report, "cost_utilization", c->s_t > 0 ? c->s_u / c->s_t : 0, "fraction");
  {
    /* What cooling costs: its plant (amortized, with its maintenance) and
     * the energy it draws. */
    double plant = capacity_w / 1000.0 * c->cooling_usd_per_kw;
    double cooling = plant * (hours / c->amortization_h + c->maintenance * hours / (YEAR_S / 3600.0))
                     + c->cooling_usd;
    sim__report_add (report, "cost_cooling_energy", c->cooling_usd, "USD");
    sim__report_add (report, "cost_cooling", cooling, "USD");
    sim__report_add (report, "cost_cooling_share", tco > 0 ? cooling / tco : 0, "fraction");
  }

  power_line (c, rated_w, &a, &b);
  {
    /* Energy per hour at the run's mean price (USD/kWh x kW). */
    double idle_h = mean_price * a / 1000.0;
    double dyn_h = mean_price * b / 1000.0;
    const double prices[2] = { c->on_demand_gpu_h, c->reserved_gpu_h };
    const char * const names[2][3] = {
      { "cost_rent_on_demand", "cost_rent_on_demand_per_gpu_hour", "cost_break_even_on_demand" },
      { "cost_rent_reserved", "cost_rent_reserved_per_gpu_hour", "cost_break_even_reserved" },
    };

    sim__report_add (report, "cost_owning_fixed_per_hour", fixed_h, "USD/h");
    sim__report_add (report, "cost_idle_energy_per_hour", idle_h, "USD/h");
    sim__report_add (report, "cost_dynamic_energy_per_hour", dyn_h, "USD/h");
    for (int k = 0; k < 2; k++)
      {
        double u_star;

        if (prices[k] <= 0)
          continue;
        sim__report_add (report, names[k][0], c->work_gpu_s / 3600.0 * prices[k], "USD");
        sim__report_add (report, names[k][1], prices[k], "USD/GPU-h");
        u_star = sim_cost_break_even (fixed_h, idle_h, dyn_h, c->gpus, prices[k]);
        if (isfinite (u_star))
          sim__report_add (report, names[k][2], u_star, "fraction");
      }
  }
}

void
sim__cost_report_totals (SimReport *report)
{
  double tco, burst = 0, burst_gpu_h = 0, sless = 0, sless_gpu_s = 0, own_gpu_h = 0;
  gboolean bursting, serverless;

  if (!sim_report_get_value (report, "cost_tco", &tco))
    return;
  bursting = sim_report_get_value (report, "burst_cost", &burst);
  serverless = sim_report_get_value (report, "serverless_cost", &sless);
  if (!bursting && !serverless)
    return;
  sim_report_get_value (report, "cost_delivered_gpu_hours", &own_gpu_h);
  if (bursting)
    sim_report_get_value (report, "burst_gpu_hours_used", &burst_gpu_h);
  if (serverless)
    sim_report_get_value (report, "serverless_gpu_seconds", &sless_gpu_s);
  sim__report_add (report, "cost_total", tco + burst + sless, "USD");
  if (own_gpu_h + burst_gpu_h + sless_gpu_s > 0)
    sim__report_add (report, "cost_total_per_gpu_hour",
                     (tco + burst + sless) / (own_gpu_h + burst_gpu_h + sless_gpu_s / 3600),
                     "USD/GPU-h");
}

static void
cost_free (SimAccumulator *acc)
{
  CostAcc *c = (CostAcc *) acc;

  sim__cost_schedule_clear (&c->price);
  sim__cost_schedule_clear (&c->carbon);
  g_free (c);
}

static const SimAccumulatorVTable cost_vtable = {
  cost_advance, cost_job_event, cost_report, cost_free,
};

static void
cost_acc_free (CostAcc *c)
{
  cost_free (&c->parent);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CostAcc, cost_acc_free)

/* The section of scenario pool @i, for messages. */
static char *
pool_group (const SimScenario *sc, guint i)
{
  if (i < sc->n_pools && sc->pools[i].from_group != NULL)
    return g_strdup (sc->pools[i].from_group);
  return g_strdup_printf ("pool %s", i < sc->n_pools ? sc->pools[i].name : "?");
}

/* A cloud pool ([elastic] pool) is rented: no capex, no rated power. */
static gboolean
is_cloud_pool (const SimScenario *sc, const SimPool *p)
{
  return sc->elastic.enabled && sc->elastic.pool != NULL && strcmp (p->name, sc->elastic.pool) == 0;
}

/* Capex and rated power of the nodes, pool by pool.  A node is priced at
 * its model's price when it has the model's own GPUs; otherwise (or when
 * the model has no price) at its GPUs' price plus the node without its own
 * GPUs, when both the node's and its GPUs' prices are known. */
static gboolean
price_nodes (CostAcc *c, const SimScenario *sc, const SimCluster *cluster, GError **error)
{
  for (guint i = 0; i < sim_cluster_get_n_pools (cluster); i++)
    {
      const SimPool *p = sim_cluster_get_pool (cluster, i);
      const SimNodeModel *m = p->model;
      if (is_cloud_pool (sc, p))
        continue; /* rented, not owned */
      const SimGpuModel *g = p->gpu_model;
      gboolean own_gpus = m->gpu == g && p->gpus_per_node == m->gpus;
      double price = 0, full_w, idle_w;

      if (own_gpus && m->price_usd > 0)
        price = m->price_usd;
      else if (g != NULL && g->price_usd > 0)
        {
          price = p->gpus_per_node * g->price_usd;
          if (m->price_usd > 0 && m->gpu != NULL && m->gpu->price_usd > 0)
            price += MAX (0, m->price_usd - m->gpus * m->gpu->price_usd);
        }
      if (price <= 0)
        {
          g_autofree char *group = pool_group (sc, i);
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "node model %s (with %u x %s) has no price: expected price_usd in its "
                       "model file%s, to count the capital cost of the [cost] section "
                       "(`gpusim models show %s`)", m->name, p->gpus_per_node,
                       g ? g->name : "?", own_gpus ? "" : " or in its GPU model's", m->name);
          sim__scenario_locate (sc, group, "model", error);
          return FALSE;
        }
      idle_w = m->base_power_w + p->gpus_per_node * (g ? g->idle_w : 0);
      full_w = own_gpus && m->max_power_w > 0
                 ? m->max_power_w : m->base_power_w + p->gpus_per_node * (g ? g->tdp_w : 0);
      c->capex_nodes += price * p->n_nodes;
      c->rated_nodes_w += full_w * p->n_nodes;
      c->rated_idle_w += idle_w * p->n_nodes;
    }
  return TRUE;
}

/* The price cloud_price gives the first pool's GPU model, as choose_cloud()
 * matches the first pool's node: rented on demand at that price, with no
 * reserved offer.  Naming an offer of the catalogue as well is refused: the
 * two would give two on-demand prices. */
static gboolean
price_cloud (CostAcc *c, const SimScenario *sc, const SimCluster *cluster, GError **error)
{
  const SimCostConfig *cfg = &sc->cost;
  const SimPool *p = sim_cluster_get_pool (cluster, 0);
  const char *model = p->gpu_model != NULL ? p->gpu_model->name : NULL;
  gboolean found;
  double price;

  if (cfg->cloud != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "both cloud and cloud_price: expected one, an offer of the catalogue or a "
                   "price per GPU-hour");
      sim__scenario_locate (sc, "cost", "cloud_price", error);
      return FALSE;
    }
  if (!cloud_price_for (cfg->cloud_price, model, &price, &found, error))
    {
      sim__scenario_locate (sc, "cost", "cloud_price", error);
      return FALSE;
    }
  if (!found)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                   "no price for GPU model %s (the first pool's): expected an entry "
                   "\"%s: price\" or a price without a model", model ? model : "?",
                   model ? model : "MODEL");
      sim__scenario_locate (sc, "cost", "cloud_price", error);
      return FALSE;
    }
  c->on_demand_gpu_h = price;
  c->reserved_gpu_h = 0;
  return TRUE;
}

/* The instance to rent: [cost] cloud, or the one built like the first
 * pool's node or with its GPUs; "none" rents nothing. */
static gboolean
choose_cloud (CostAcc *c, const SimScenario *sc, const SimCatalogue *catalogue,
              const SimCluster *cluster, GError **error)
{
  const SimCostConfig *cfg = &sc->cost;
  const SimCloudModel *m;

  if (cfg->cloud_price != NULL)
    return price_cloud (c, sc, cluster, error);
  if (cfg->cloud != NULL && g_ascii_strcasecmp (cfg->cloud, "none") == 0)
    return TRUE;
  if (cfg->cloud != NULL)
    {
      m = sim_catalogue_lookup_cloud (catalogue, cfg->cloud);
      if (m == NULL)
        {
          const char *guess = sim_catalogue_suggest_cloud (catalogue, cfg->cloud);
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                       "unknown cloud instance model \"%s\"%s: expected a [cloud] model of "
                       "the catalogue (`gpusim models` lists them) or none", cfg->cloud,
                       sim__did_you_mean (guess));
          sim__scenario_locate (sc, "cost", "cloud", error);
          return FALSE;
        }
    }
  else
    {
      const SimPool *p = sim_cluster_get_pool (cluster, 0);
      m = sim_catalogue_match_cloud (catalogue, p->gpu_model == p->model->gpu ? p->model->name
                                                                             : NULL,
                                     p->gpu_model ? p->gpu_model->name : NULL,
                                     p->gpus_per_node);
      if (m == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                       "no cloud instance model of the catalogue is built like node model %s "
                       "or has %u x %s: expected cloud = NAME (`gpusim models` lists them), "
                       "or cloud = none to rent nothing", p->model->name, p->gpus_per_node,
                       p->gpu_model ? p->gpu_model->name : "?");
          sim__scenario_locate (sc, "cost", NULL, error);
          return FALSE;
        }
    }
  c->on_demand_gpu_h = m->on_demand_usd_per_hour / m->gpus;
  c->reserved_gpu_h = m->reserved_usd_per_hour / m->gpus;
  return TRUE;
}

/* The fabric's switch and cable prices: the [fabric] switch and link
 * models' (the first pool's NIC link when [fabric] names none), unless
 * [cost] gives them. */
static void
price_fabric (CostAcc *c, const SimScenario *sc, const SimCatalogue *catalogue,
              const SimCluster *cluster)
{
  const SimSwitchModel *sw = sc->fabric.switch_model
                               ? sim_catalogue_lookup_switch (catalogue, sc->fabric.switch_model)
                               : NULL;
  const SimLinkModel *link = sc->fabric.link_model
                               ? sim_catalogue_lookup_link (catalogue, sc->fabric.link_model)
                               : sim_cluster_get_pool (cluster, 0)->model->nic_link;

  if (sw != NULL)
    {
      c->switch_price = sw->price_usd;
      c->switch_power_w = sw->power_w;
    }
  c->cable_price = sc->cost.set_cable_price ? sc->cost.cable_price
                                            : link != NULL ? link->price_usd : 0;
  c->transceiver_price = sc->cost.transceiver_price;
}

SimAccumulator *
sim__cost_accumulator_new (const SimScenario *sc, const SimCatalogue *catalogue,
                           const SimCluster *cluster, GError **error)
{
  const SimCostConfig *cfg;
  g_autoptr(CostAcc) c = NULL;
  SimTime phase;

  g_return_val_if_fail (sc != NULL && catalogue != NULL && cluster != NULL, NULL);
  g_return_val_if_fail (sim_cluster_get_n_pools (cluster) > 0, NULL);

  cfg = &sc->cost;
  if (cfg->capacity_basis == SIM_COST_CAPACITY_PEAK && !sc->power.enabled)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "peak: the run draws no power without the power model: expected rated, or "
                   "a [power] section");
      sim__scenario_locate (sc, "cost", "capacity_basis", error);
      return NULL;
    }
  c = g_new0 (CostAcc, 1);
  c->parent.vtable = &cost_vtable;
  c->gpus = sim_cluster_get_n_gpus (cluster);
  for (guint i = 0; i < sim_cluster_get_n_pools (cluster); i++)
    if (is_cloud_pool (sc, sim_cluster_get_pool (cluster, i)))
      c->gpus -= sim_cluster_get_pool (cluster, i)->n_nodes *
                 sim_cluster_get_pool (cluster, i)->gpus_per_node;
  c->amortization_h = (double) cfg->amortization / 3.6e12;
  c->maintenance = cfg->maintenance;
  c->basis = cfg->capacity_basis;
  c->cooling_usd_per_kw = cfg->cooling_usd_per_kw;
  c->electrical_usd_per_kw = cfg->electrical_usd_per_kw;
  phase = cfg->start_weekday * DAY_NS + (SimTime) llround (cfg->start_hour * 3600e9);

  if (cfg->energy_price_file != NULL)
    {
      if (!sim__cost_schedule_load (&c->price, cfg->energy_price_file, "usd_per_kwh",
                                    MAX_USD_PER_KWH, phase, error))
        return NULL;
    }
  else
    sim__cost_schedule_init_flat (&c->price, cfg->energy_price);
  if (cfg->carbon_intensity_file != NULL)
    {
      if (!sim__cost_schedule_load (&c->carbon, cfg->carbon_intensity_file, "kgco2e_per_kwh",
                                    MAX_KGCO2E_PER_KWH, phase, error))
        return NULL;
    }
  else
    sim__cost_schedule_init_flat (&c->carbon, cfg->carbon_intensity);
  if (!price_nodes (c, sc, cluster, error) || !choose_cloud (c, sc, catalogue, cluster, error))
    return NULL;
  price_fabric (c, sc, catalogue, cluster);
  return &g_steal_pointer (&c)->parent;
}

/* ------------------------------------------------------------------------- */
/* The module.                                                               */

/* The module's key among the simulation's extensions. */
static const char module_key = 0;

static void
add_totals (gpointer data, SimReport *report, const SimReportInfo *info)
{
  sim__cost_report_totals (report);
}

gboolean
sim__cost_attach (SimSimulation *sim, guint flags, GError **error)
{
  const SimScenario *sc = sim__kernel_get_scenario (sim);
  SimAccumulator *cost;

  if (!sc->cost.enabled)
    return TRUE;
  cost = sim__cost_accumulator_new (sc, sim__kernel_get_catalogue (sim),
                                    sim__kernel_get_cluster (sim), error);
  if (cost == NULL)
    return FALSE;
  /* The simulation owns it as an accumulator; the extension only finds it. */
  sim__kernel_add_accumulator (sim, cost);
  sim__kernel_set_extension (sim, &module_key, cost, NULL);
  sim__kernel_connect (sim, SIM_HOOK_REPORT, G_CALLBACK (add_totals), cost);
  return TRUE;
}

SimAccumulator *
sim__cost_get (SimSimulation *sim, double *fixed_usd_per_hour)
{
  SimAccumulator *cost = sim__kernel_get_extension (sim, &module_key);
  SimTopology *topology = sim__kernel_get_topology (sim);
  SimReportInfo info = { 0 };

  if (fixed_usd_per_hour != NULL)
    *fixed_usd_per_hour = 0;
  if (cost == NULL)
    return NULL;
  if (topology != NULL)
    {
      SimTopologyMetrics counts;
      sim_topology_get_counts (topology, &counts);
      info.have_fabric = TRUE;
      info.switches = counts.switches[0];
      info.cables = counts.cables;
      info.transceivers = counts.transceivers;
    }
  if (fixed_usd_per_hour != NULL)
    *fixed_usd_per_hour = sim__cost_fixed_per_hour (cost, &info);
  return cost;
}

/* ------------------------------------------------------------------------- */
/* The [cost] section.                                                       */

gboolean
sim__cost_sections_read (const SimKeyReader *reader, SimScenario *sc, GError **error)
{
  g_auto(GStrv) keys = NULL;

  sim_cost_config_init (&sc->cost);
  if (!g_key_file_has_group (reader->kf, "cost"))
    return TRUE;
  sc->cost.enabled = TRUE;
  keys = g_key_file_get_keys (reader->kf, "cost", NULL, NULL);
  for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
    {
      g_autofree char *value = sim__keys_get (reader, "cost", keys[k]);
      if (!sim_cost_config_set (&sc->cost, keys[k], value, sc->base_dir, error))
        {
          sim__keys_locate (reader, "cost", keys[k], error);
          return FALSE;
        }
    }
  return TRUE;
}

void
sim__cost_sections_clear (SimScenario *sc)
{
  sim_cost_config_clear (&sc->cost);
}
