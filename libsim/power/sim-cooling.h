/* sim-cooling.h: what cooling draws, and the facility's PUE (not installed).
 *
 * A cooling plant (a [cooling] model of the catalogue, SimCoolingModel)
 * removes the heat of the IT equipment, which is all of its power P.  A
 * share phi of it (liquid_share) leaves by liquid (cold plates or
 * immersion), the rest by air.
 *
 * Air: CRAH fans move it, drawing a x (1 - phi) P (crah_fan); the chilled
 * water takes that heat and the fans' own, H = (1 + a)(1 - phi) P, to the
 * chillers, which draw H / COP(T), and to pumps and towers, r x H
 * (heat_rejection).  Below the economizer temperature the chillers are
 * off (free cooling): only pumps and towers run.
 *
 * Liquid: coolant pumps draw q x phi P (liquid_pumps).  While the outdoor
 * temperature T is at most dry_cooler_max, dry coolers reject the heat,
 * drawing d x phi P; above it (or when the model has no dry coolers) the
 * liquid's heat goes to the chillers as the air's does.
 *
 * Chillers: the coefficient of performance follows the lift between the
 * chilled water (supply) and where heat is rejected (T + approach), as a
 * Carnot machine's does, from its rated value at rated_outdoor:
 *
 *   COP(T) = min(cop_max, COP_rated x (T_rated + approach - supply) / (T + approach - supply))
 *
 * (cop_max when the lift is 1 K or less).
 *
 * Other facility loads (lighting, humidity control) add m x P (misc).
 * Cooling also changes the IT power: the nodes' fans keep only the share
 * server_fans of their power (they move less heat with liquid, none when
 * immersed).  The facility draws (P + cooling) / eta, eta the power
 * distribution's efficiency ([power] electrical_efficiency), and
 * PUE = facility / P.
 *
 * Outdoor temperature: constant, a cosine curve (daily and seasonal, held
 * constant over steps, one hour by default), or hourly (or any) steps from
 * a CSV file of "time,temperature" rows (time since the start as a
 * duration such as "3600", "1h" or "2d"; the temperature in degrees C),
 * each holding until the next; before the first row, the first holds,
 * after the last, the last.  Between steps everything is constant, so
 * energy is integrated exactly.
 */
#pragma once

#include <glib.h>
#include "cluster/sim-catalogue.h"
#include "core/sim-units.h"
#include "scenario/sim-scenario.h"

G_BEGIN_DECLS

/* The chillers' COP at outdoor temperature @outdoor_c. */
double sim_cooling_cop (const SimCoolingModel *model, double outdoor_c);

/* What @model draws to cool @it_w of IT equipment at @outdoor_c, W;
 * @economizer (nullable): whether the chillers are off. */
double sim_cooling_power (const SimCoolingModel *model, double it_w, double outdoor_c,
                          gboolean *economizer);

typedef struct _SimCooling SimCooling;

/* The cooling of a scenario: its model from @catalogue with the
 * scenario's overrides, and its outdoor temperature.  Errors:
 * SIM_ERROR_NOT_FOUND for an unknown model; SIM_ERROR_PARSE for a bad CSV
 * row, naming the file and line; SIM_ERROR_IO for a file that cannot be
 * read. */
SimCooling *sim__cooling_new (const SimCoolingConfig *config, const SimCatalogue *catalogue,
                              GError **error);
void        sim__cooling_free (SimCooling *cooling);

const SimCoolingModel *sim__cooling_get_model (const SimCooling *cooling);

/* Sets the outdoor temperature to what holds from @now on; returns when
 * it changes next (SIM_TIME_NEVER if it never does). */
SimTime     sim__cooling_set_time (SimCooling *cooling, SimTime now);
double      sim__cooling_get_outdoor (const SimCooling *cooling);

/* What the plant draws for @it_w now, W; @economizer (nullable) as above. */
double      sim__cooling_power (const SimCooling *cooling, double it_w, gboolean *economizer);

G_END_DECLS
