/* sim-cost.h: what a cluster costs to own, and what its workload would cost
 * to rent.
 *
 * A scenario's [cost] section turns a run into money and emissions:
 *
 * - capital cost (capex) from catalogue prices: each node's price (or its
 *   GPUs' when the node has none, or when a pool replaces the node's GPU
 *   model), the fabric's switches, cables and transceivers as the fabric
 *   builder counts them, and the cooling plant and the electrical capacity
 *   per kW of IT power, sized on the cluster's rated IT power (the node
 *   models' maximum power and the switches') or on the peak the run draws
 *   (with the power model on);
 * - owning cost over the run: capex amortized straight-line over
 *   `amortization`, maintenance as a share of capex per year, and energy:
 *   the exact integral of price x facility power between events, with a
 *   flat price or a time-of-use schedule (split at every price change,
 *   whether or not an event falls there); emissions likewise from a carbon
 *   intensity, flat or a schedule;
 * - the total cost of ownership (TCO) of the run, per delivered GPU-hour
 *   (GPU-hours allocated to jobs) and per completed job;
 * - the same delivered GPU-hours rented from a cloud instance of the
 *   catalogue (`cloud`, or the one built like the cluster's node or GPU
 *   model) at its on-demand and reserved prices per GPU-hour;
 * - the break-even utilization of buying against renting, in closed form
 *   (sim_cost_break_even()): per hour, owning costs
 *     F + E_idle + u x E_dyn
 *   (F: amortized capex and maintenance; E_idle: the energy cost of the
 *   facility's power with nothing allocated; E_dyn: the extra at full
 *   allocation), renting costs u x G x c (G GPUs at c per GPU-hour), so
 *     u* = (F + E_idle) / (G c - E_dyn).
 *   E_idle and E_dyn come from the run: a time-weighted least-squares line
 *   of facility power against the allocated share of the GPUs, at the
 *   run's mean energy price.  When the allocated share never changes the
 *   line has one point; the run's mean power is then split between idle
 *   and dynamic in the proportion of the catalogue's rated figures (node
 *   base power and GPU idle power against the node's maximum power).
 *
 * Energy comes from SimState's facility_power_w, which the power model
 * fills; a run without a [power] section draws no power, so its energy
 * cost and emissions are 0, and the summary says that energy is not
 * counted.  Capex and rent are computed all the same.
 *
 * Time-of-use CSV files (energy_price_file, carbon_intensity_file) have a
 * header row and one row per change of value, in one of three layouts:
 *
 *   hour,VALUE            a daily schedule: hour of day in [0, 24) (a
 *                         decimal such as 7.5 is 07:30), increasing; the
 *                         last row's value holds until the first row's hour
 *                         the next day
 *   weekday,hour,VALUE    a weekly schedule: weekday mon..sun (or monday..
 *                         sunday), increasing by weekday then hour
 *   time,VALUE            from the start of the run: a duration with a unit
 *                         ("0s", "6h", "2d"), the first at 0, increasing;
 *                         the last value holds to the end
 *
 * VALUE is `usd_per_kwh` for prices and `kgco2e_per_kwh` for carbon
 * intensity; the header names the column, so a file's unit is explicit.
 * Blank lines and lines starting with '#' are skipped.  Simulated time 0
 * is `start_weekday` at `start_hour` on the daily and weekly schedules.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "core/sim-units.h"

G_BEGIN_DECLS

/**
 * SimCostCapacityBasis:
 * @SIM_COST_CAPACITY_RATED: the cluster's rated IT power: the node models'
 *   maximum power (or base power plus GPU TDPs) and the switches' power
 * @SIM_COST_CAPACITY_PEAK: the peak IT power the run draws (the power model
 *   must be on: a [power] section)
 *
 * What the cooling plant and the electrical capacity are sized on.
 */
typedef enum {
  SIM_COST_CAPACITY_RATED,
  SIM_COST_CAPACITY_PEAK,
} SimCostCapacityBasis;

/**
 * SimCostConfig:
 * @enabled: the scenario has a [cost] section
 * @cloud: (nullable): the cloud instance model to rent (`cloud`); %NULL:
 *   the catalogue's instance built like the first pool's node model, or
 *   with its GPU model and count
 * @amortization: the period capex is amortized over (`amortization`,
 *   "5y", "1826d"); default 5 years of 365.25 days
 * @maintenance: maintenance per year as a share of capex (`maintenance`,
 *   "0.05" or "5%"); default 0
 * @energy_price: flat energy price in USD per kWh (`energy_price`); 0 when
 *   not given
 * @energy_price_file: (nullable): a time-of-use price schedule
 *   (`energy_price_file`), an absolute path
 * @carbon_intensity: flat carbon intensity in kgCO2e per kWh
 *   (`carbon_intensity`); 0 when not given
 * @carbon_intensity_file: (nullable): a carbon intensity schedule
 *   (`carbon_intensity_file`), an absolute path
 * @start_weekday: the weekday at simulated time 0, 0 = Monday
 *   (`start_weekday`, mon..sun)
 * @start_hour: the hour of day at simulated time 0, in [0, 24)
 *   (`start_hour`)
 * @cooling_usd_per_kw: cooling plant capex per kW of capacity
 *   (`cooling_usd_per_kw`); default 0
 * @electrical_usd_per_kw: electrical capacity capex (switchgear, UPS,
 *   distribution) per kW (`electrical_usd_per_kw`); default 0
 * @capacity_basis: what those are sized on (`capacity_basis = rated |
 *   peak`)
 * @cable_price: USD per fabric cable (`cable_price`), when
 *   @set_cable_price; else the fabric link model's price
 * @transceiver_price: USD per optical transceiver (`transceiver_price`);
 *   default 0
 * @set_cable_price: @cable_price was given
 * @cloud_price: (nullable): a price per GPU-hour to rent at instead of
 *   @cloud (`cloud_price = 2.5/GPU-h`), or one per GPU model
 *   (`H100: 2.5/GPU-h, A100: 1.2/GPU-h`), as written; the first pool's GPU
 *   model chooses
 *
 * A scenario's [cost] section.  Zero or %NULL fields take the defaults
 * above.
 */
typedef struct {
  gboolean enabled;
  char    *cloud;
  SimTime  amortization;
  double   maintenance;
  double   energy_price;
  char    *energy_price_file;
  double   carbon_intensity;
  char    *carbon_intensity_file;
  guint    start_weekday;
  double   start_hour;
  double   cooling_usd_per_kw;
  double   electrical_usd_per_kw;
  SimCostCapacityBasis capacity_basis;
  double   cable_price;
  double   transceiver_price;
  gboolean set_cable_price;
  char    *cloud_price;
} SimCostConfig;

/**
 * SIM_COST_DEFAULT_AMORTIZATION:
 *
 * Five years of 365.25 days: the straight-line life capex is spread over
 * when a scenario does not say.  A convention, not a published figure.
 */
#define SIM_COST_DEFAULT_AMORTIZATION ((SimTime) (5 * 36525) * 864 * SIM_SECOND)

/**
 * sim_cost_config_keys:
 *
 * Returns: (transfer none) (array zero-terminated=1): the keys of a
 *   scenario's [cost] section.
 */
const char * const *sim_cost_config_keys (void);

/**
 * sim_cost_config_set:
 * @config: a configuration (sim_cost_config_init() first)
 * @key: one of sim_cost_config_keys()
 * @value: its value as written in the scenario
 * @base_dir: (nullable): the directory relative file names are relative to
 * @error: return location for a #GError
 *
 * Sets one key and marks @config enabled.  Prices and intensities are
 * plain non-negative numbers in the units of the key's name (USD, kWh,
 * kgCO2e); maintenance is a share ("0.05" or "5%") below 1; amortization
 * is a positive duration ("5y", "60w", "1826d"); start_weekday is mon..sun;
 * start_hour a number in [0, 24); capacity_basis rated or peak; the two
 * _file keys name files, which are read when the simulation is built.  A
 * flat value and a file for the same quantity cannot both be given: the
 * later is refused.
 *
 * Errors: SIM_ERROR_PARSE or SIM_ERROR_INVALID saying what was expected
 * (the caller prefixes the file, line and key).
 *
 * Returns: %TRUE on success.
 */
gboolean sim_cost_config_set (SimCostConfig *config, const char *key, const char *value,
                              const char *base_dir, GError **error);

/**
 * sim_cost_config_init:
 * @config: (out caller-allocates): set to the defaults, not enabled
 */
void sim_cost_config_init (SimCostConfig *config);

/**
 * sim_cost_config_clear:
 *
 * Frees the strings of @config and zeroes it.
 */
void sim_cost_config_clear (SimCostConfig *config);

/**
 * sim_cost_break_even:
 * @fixed_usd_per_hour: amortized capex and maintenance per hour
 * @idle_usd_per_hour: the energy cost per hour of the cluster with nothing
 *   allocated
 * @dynamic_usd_per_hour: the extra energy cost per hour with every GPU
 *   allocated
 * @gpus: the cluster's GPUs
 * @rent_usd_per_gpu_hour: the cloud's price per GPU-hour
 *
 * The utilization u at which owning, @fixed_usd_per_hour +
 * @idle_usd_per_hour + u x @dynamic_usd_per_hour per hour, costs what
 * renting u x @gpus GPUs costs: u* = (fixed + idle) / (gpus x rent -
 * dynamic).  Above u* owning is cheaper.  A value above 1 means renting is
 * cheaper even with every GPU allocated all the time.
 *
 * Returns: u*, or +infinity when renting is cheaper at any utilization
 *   (gpus x rent <= dynamic).
 */
double sim_cost_break_even (double fixed_usd_per_hour, double idle_usd_per_hour,
                            double dynamic_usd_per_hour, guint gpus,
                            double rent_usd_per_gpu_hour);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SimCostConfig, sim_cost_config_clear)

G_END_DECLS
