/* sim-cooling.c: cooling power and outdoor temperature (the model is in
 * sim-cooling.h). */
#include "config.h"

#include "power/sim-cooling.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "workload/sim-line-reader.h"

#include <math.h>
#include <string.h>

double
sim_cooling_cop (const SimCoolingModel *model, double outdoor_c)
{
  double rated_lift = model->rated_outdoor_c + model->approach_k - model->supply_c;
  double lift = outdoor_c + model->approach_k - model->supply_c;

  if (lift <= 1.0 || rated_lift <= 0)
    return model->cop_max;
  return MIN (model->cop_max, model->chiller_cop * rated_lift / lift);
}

double
sim_cooling_power (const SimCoolingModel *model, double it_w, double outdoor_c,
                   gboolean *economizer)
{
  double phi = model->liquid_share;
  double air = (1.0 - phi) * it_w, liquid = phi * it_w;
  double fans = model->crah_fan * air;
  double chilled = air + fans;   /* heat the chilled-water plant takes */
  double other = model->misc * it_w;
  gboolean free_cooling = outdoor_c < model->economizer_c;
  double power;

  other += model->liquid_pumps * liquid;
  if (model->dry_cooler > 0 && outdoor_c <= model->dry_cooler_max_c)
    other += model->dry_cooler * liquid;
  else
    chilled += liquid;
  power = fans + other + model->heat_rejection * chilled;
  if (!free_cooling)
    power += chilled / sim_cooling_cop (model, outdoor_c);
  if (economizer != NULL)
    *economizer = free_cooling;
  return power;
}

/* ------------------------------------------------------------------------- */

typedef struct {
  SimTime time;
  double  celsius;
} Step;

struct _SimCooling {
  SimCoolingModel model;   /* the catalogue's, with the overrides; strings borrowed */
  SimCoolingConfig config; /* strings borrowed */
  GArray *steps;           /* Step, for a CSV */
  guint   next_step;
  double  outdoor_c;
};

/* A CSV of "time,temperature" rows; a first line that is not a row is a
 * header; blank lines and lines starting with # are skipped. */
static GArray *
read_csv (const char *path, GError **error)
{
  g_autoptr(SimLineReader) reader = sim__line_reader_open (path, error);
  g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, sizeof (Step));
  gboolean first = TRUE;

  if (reader == NULL)
    return NULL;
  while (sim__line_reader_next (reader, error))
    {
      g_auto(GStrv) fields = NULL;
      g_autoptr(GError) local = NULL;
      char *line = g_strstrip (reader->line);
      Step step;
      gboolean ok;

      /* A NUL would end the line early and a long line would be cut: both
       * would read as a different row, so both are refused. */
      if (reader->line_has_nul || reader->line_too_long)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "%s:%" G_GUINT64_FORMAT ": %s: expected time,temperature (such as "
                       "\"3600,21.5\")", path, reader->line_no,
                       reader->line_has_nul ? "the line contains a NUL byte"
                                            : "the line is longer than 4096 bytes");
          return NULL;
        }
      if (*line == '\0' || *line == '#')
        continue;
      fields = g_strsplit (line, ",", -1);
      if (g_strv_length (fields) != 2)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "%s:%" G_GUINT64_FORMAT ": %u fields: expected time,temperature (such "
                       "as \"3600,21.5\")", path, reader->line_no, g_strv_length (fields));
          return NULL;
        }
      g_strstrip (fields[0]);
      g_strstrip (fields[1]);
      {
        double seconds;
        /* Plain seconds, or a duration with its unit. */
        if (sim_parse_number (fields[0], 0, 9e9, &seconds, NULL))
          {
            step.time = sim_time_from_seconds (seconds);
            ok = TRUE;
          }
        else
          ok = sim_parse_duration (fields[0], &step.time, &local);
      }
      ok = ok && sim_parse_number (fields[1], -90, 70, &step.celsius, &local);
      if (!ok && first && g_ascii_isalpha (fields[0][0]))
        {
          first = FALSE;   /* a header */
          continue;
        }
      first = FALSE;
      if (!ok)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "%s:%" G_GUINT64_FORMAT ": %s: expected a time since the start (such as "
                       "\"3600\" or \"1h\") and a temperature in degrees C from -90 to 70",
                       path, reader->line_no, local->message);
          return NULL;
        }
      if (steps->len > 0 && step.time <= g_array_index (steps, Step, steps->len - 1).time)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "%s:%" G_GUINT64_FORMAT ": time %s is not after the row before: expected "
                       "rows in increasing time", path, reader->line_no, fields[0]);
          return NULL;
        }
      g_array_append_val (steps, step);
    }
  if (error != NULL && *error != NULL)
    return NULL;
  if (steps->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "%s: no rows: expected time,temperature rows such as \"0,21.5\"", path);
      return NULL;
    }
  return g_steal_pointer (&steps);
}

SimCooling *
sim__cooling_new (const SimCoolingConfig *config, const SimCatalogue *catalogue, GError **error)
{
  const SimCoolingModel *model = sim_catalogue_lookup_cooling (catalogue, config->model);
  g_autofree SimCooling *c = NULL;

  if (model == NULL)
    {
      g_autoptr(GPtrArray) all = sim_catalogue_get_coolings (catalogue);
      g_autoptr(GString) names = g_string_new (NULL);
      for (guint i = 0; i < all->len; i++)
        g_string_append_printf (names, "%s%s", i > 0 ? ", " : "",
                                ((const SimCoolingModel *) all->pdata[i])->name);
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                   "no cooling model \"%s\" in the catalogue: expected one of %s",
                   config->model, names->str);
      return NULL;
    }
  c = g_new0 (SimCooling, 1);
  c->model = *model;
  c->config = *config;
#define OVERRIDE(field, value) if (!isnan (value)) c->model.field = (value)
  OVERRIDE (crah_fan, config->crah_fan);
  OVERRIDE (chiller_cop, config->chiller_cop);
  OVERRIDE (economizer_c, config->economizer_c);
  OVERRIDE (liquid_share, config->liquid_share);
  OVERRIDE (liquid_pumps, config->liquid_pumps);
  OVERRIDE (dry_cooler, config->dry_cooler);
  OVERRIDE (server_fans, config->server_fans);
  OVERRIDE (misc, config->misc);
#undef OVERRIDE
  c->model.cop_max = MAX (c->model.cop_max, c->model.chiller_cop);
  if (config->outdoor == SIM_OUTDOOR_CSV)
    {
      c->steps = read_csv (config->outdoor_csv, error);
      if (c->steps == NULL)
        return NULL;
    }
  sim__cooling_set_time (c, 0);
  return g_steal_pointer (&c);
}

void
sim__cooling_free (SimCooling *cooling)
{
  if (cooling == NULL)
    return;
  g_clear_pointer (&cooling->steps, g_array_unref);
  g_free (cooling);
}

const SimCoolingModel *
sim__cooling_get_model (const SimCooling *cooling)
{
  return &cooling->model;
}

/* The curve at time T (seconds from 1 January, 00:00). */
static double
curve (const SimCoolingConfig *config, double t)
{
  double day = fmod (t / 86400.0, 365.0);
  double hour = fmod (t / 3600.0, 24.0);

  return config->outdoor_c +
         config->seasonal_swing * cos (2 * G_PI * (day - config->warmest_day) / 365.0) +
         config->daily_swing * cos (2 * G_PI * (hour - 15.0) / 24.0);
}

SimTime
sim__cooling_set_time (SimCooling *cooling, SimTime now)
{
  const SimCoolingConfig *config = &cooling->config;

  switch (config->outdoor)
    {
    case SIM_OUTDOOR_CONSTANT:
      cooling->outdoor_c = config->outdoor_c;
      return SIM_TIME_NEVER;
    case SIM_OUTDOOR_CURVE:
      {
        SimTime start = now / config->step * config->step;
        /* Held over the step at its middle's value. */
        cooling->outdoor_c = curve (config, sim_time_to_seconds (start) +
                                              sim_time_to_seconds (config->step) / 2);
        return start <= SIM_TIME_NEVER - config->step ? start + config->step : SIM_TIME_NEVER;
      }
    case SIM_OUTDOOR_CSV:
      {
        GArray *steps = cooling->steps;
        guint k = now >= g_array_index (steps, Step, cooling->next_step).time
                    ? cooling->next_step : 0;
        /* The last row at or before now (the first before it starts);
         * time only moves on, so the search goes on from the last one. */
        while (k + 1 < steps->len && g_array_index (steps, Step, k + 1).time <= now)
          k++;
        cooling->next_step = k;
        cooling->outdoor_c = g_array_index (steps, Step, k).celsius;
        return k + 1 < steps->len ? g_array_index (steps, Step, k + 1).time : SIM_TIME_NEVER;
      }
    default:
      g_return_val_if_reached (SIM_TIME_NEVER);
    }
}

double
sim__cooling_get_outdoor (const SimCooling *cooling)
{
  return cooling->outdoor_c;
}

double
sim__cooling_power (const SimCooling *cooling, double it_w, gboolean *economizer)
{
  return sim_cooling_power (&cooling->model, it_w, cooling->outdoor_c, economizer);
}
