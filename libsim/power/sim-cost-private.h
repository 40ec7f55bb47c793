/* sim-cost-private.h: the cost accumulator and value schedules (not
 * installed).  See sim-cost.h for the model. */
#pragma once

#include "power/sim-cost.h"
#include "report/sim-metrics.h"
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "scenario/sim-scenario.h"

#include "core/sim-keys.h"
G_BEGIN_DECLS

/* A piecewise-constant value over simulated time: value[i] holds from
 * start[i] until start[i + 1].  With a period (a day or a week), start[]
 * are offsets into the period, the last value wraps round to start[0], and
 * simulated time t sits at (t + phase) mod period; without one, start[0]
 * is 0 and the last value holds for ever. */
typedef struct {
  SimTime  period;   /* 0: not periodic */
  SimTime  phase;    /* where simulated time 0 falls in the period */
  guint    n;
  SimTime *start;
  double  *value;
} SimCostSchedule;

/* A schedule that is @value at all times. */
void     sim__cost_schedule_init_flat (SimCostSchedule *s, double value);
void     sim__cost_schedule_clear (SimCostSchedule *s);

/* Reads a schedule from the CSV file @path (layouts in sim-cost.h) whose
 * value column is @column ("usd_per_kwh"), values in [0, @max].  @phase is
 * where simulated time 0 falls in a week (a daily file uses it modulo a
 * day).  Errors name the file, the line and the column, and what was
 * expected. */
gboolean sim__cost_schedule_load (SimCostSchedule *s, const char *path, const char *column,
                                  double max, SimTime phase, GError **error);

/* The value at simulated time @t (>= 0), and in *@until the first time
 * after @t at which it changes (SIM_TIME_NEVER if it never does).
 * Time complexity: O(log n). */
double   sim__cost_schedule_at (const SimCostSchedule *s, SimTime t, SimTime *until);

/* The cost accumulator of @scenario's [cost] section, for a simulation of
 * @cluster built from @catalogue.  Resolves the cloud instance, prices the
 * nodes and the fabric's switch model, and reads the schedules.
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown or unmatched cloud model,
 * SIM_ERROR_MISSING for a node without a price, at the scenario's line;
 * the schedule files' errors. */
/* Once every accumulator has reported: when the run both owned a cluster
 * ([cost]) and rented (a cloud pool or serverless functions,
 * power/sim-elastic.h), the whole bill, cost_total (owning + bursting +
 * serverless), and the cost per GPU-hour delivered anywhere. */
void sim__cost_report_totals (SimReport *report);

SimAccumulator *sim__cost_accumulator_new (const SimScenario *scenario,
                                           const SimCatalogue *catalogue,
                                           const SimCluster *cluster, GError **error);

/* What a run of @cost (an accumulator of sim__cost_accumulator_new()) costs
 * whatever the cluster does: capex amortized straight-line plus
 * maintenance, USD per hour, as the report's cost_owning_fixed_per_hour,
 * the fabric's counts taken from @info (have_fabric, switches, cables,
 * transceivers).  Constant over a run when sim__cost_is_fixed(); with
 * capacity_basis = peak the facility's capex is sized on the peak IT power
 * so far, known only at the end. */
double   sim__cost_fixed_per_hour (SimAccumulator *cost, const SimReportInfo *info);
gboolean sim__cost_is_fixed (SimAccumulator *cost);

/* The energy price of @cost at simulated time @t (>= 0), USD per kWh, and
 * in *@until the first time after @t at which it changes (SIM_TIME_NEVER
 * if it never does): sim__cost_schedule_at() on its flat price or
 * time-of-use schedule. */
double   sim__cost_energy_price_at (SimAccumulator *cost, SimTime t, SimTime *until);

/* Attaches the [cost] section's model (nothing without one) as an
 * accumulator of SIM, which adds the totals with bursting and serverless
 * to the report. */
struct _SimSimulation;
gboolean sim__cost_attach (struct _SimSimulation *sim, guint flags, GError **error);
/* SIM's cost model (its energy price: sim__cost_energy_price_at()), or NULL
 * without a [cost] section; @fixed_usd_per_hour (nullable) is set to its
 * amortized capex and maintenance per hour with this cluster's fabric. */
SimAccumulator *sim__cost_get (struct _SimSimulation *sim, double *fixed_usd_per_hour);

/* [cost], read into @scenario key by key through sim_cost_config_set(), and
 * freed. */
gboolean sim__cost_sections_read (const SimKeyReader *reader, SimScenario *scenario,
                                  GError **error);
void     sim__cost_sections_clear (SimScenario *scenario);

extern const SimKeyTable sim__cost_key_table;

G_END_DECLS
