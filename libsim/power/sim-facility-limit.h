/* sim-facility-limit.h: the facility power limit (not installed).
 *
 * A site has a power contract or a substation that its facility draw
 * (IT, cooling and distribution losses) must stay under.  The scenario's
 * [facility] section sets the limit and how it is kept:
 *
 *   max_power   the limit, e.g. "1.2MW" (none: no limit)
 *   limit_mode  cap: every GPU is capped alike, at the highest cap that
 *               keeps the facility at or under the limit, and uncapped when
 *               the draw falls; hold: jobs wait in the queue while starting
 *               them would take the facility over the limit
 *   min_cap     cap mode: the lowest cap, as a share of each GPU's TDP
 *               (30 %); GPUs are never capped lower
 *   baseline    also run the scenario without the limit (true)
 *
 * Cap mode.  A GPU's cap is then min_cap <= x <= 1 times its TDP, the same
 * x for every GPU (a cluster of several GPU models is capped at the same
 * share of each one's TDP; x = 1 is no cap).  The facility's draw F(x)
 * grows with x, so the highest x with F(x) <= max_power is found by
 * regula falsi on a bracket, each F(x) read off the power model with every
 * GPU's cap set to x (what-if: the model is put back, and nothing else
 * moves), to a milliwatt under the limit or 1e-7 of the TDP; the caps are
 * then set for real, the jobs move to their new
 * speeds, and if the draw read then is still over (light jobs keep a
 * slower GPU busier) the search starts again from there.  This runs after
 * every change of state that moved the draw while the limit binds (or
 * while x < 1, to lift the caps when the draw falls), at O(GPUs) per
 * what-if and a handful of what-ifs per change: a closed form
 * would have to repeat the node and cooling models the power model
 * already has, and would drift from them.  When even min_cap cannot keep
 * the facility under the limit, GPUs stay at min_cap and the time over is
 * reported.
 *
 * Hold mode.  Before a job starts, the facility's draw just after the
 * start is read off the power model with the job's GPUs as busy as it can
 * keep them (its activity at their clocks) and its nodes awake and loaded;
 * if it is over the limit, the start is refused with SIM_ERROR_HELD: the
 * job stays queued, and the policy goes on as if it did not fit
 * (sim_sched_context_start()).  The queue is looked at again when a job
 * ends, and when the draw falls for another reason (a cap lowered).  Jobs
 * already running are never stopped: what their activity or the weather
 * does to the draw afterwards shows as time over the limit.
 *
 * The limit is checked against the facility draw as the power model gives
 * it (sim__kernel_get_power()), at every change of state; the power
 * model reports the peak draw (power_facility_peak).
 *
 * Metrics (summary.json, units in brackets):
 *   facility_limit_time [s] and _share [%]  time the limit acted: GPUs
 *                                           capped by it, or jobs held
 *   facility_time_over_limit [s]            time the draw was over the limit
 *   facility_limit_lowest_cap [%]           cap mode: the lowest cap set, % of TDP
 *   facility_limit_held_starts [starts]     hold mode: starts refused
 * and, with the baseline, against the same run without the limit:
 * facility_limit_jct_change [s] and _share [%], facility_limit_wait_change
 * [s], facility_limit_energy_saved [kWh] and _share [%],
 * facility_limit_baseline_energy [kWh].
 */
#pragma once

#include <glib.h>
#include "kernel/sim-simulation.h"
#include "scenario/sim-scenario.h"

G_BEGIN_DECLS

/* Attaches the limit set by @config to @sim (a simulation with a power
 * model that has not started).  Not @active (no limit, or the baseline
 * run): only its accumulator, which watches the draw and reports that the
 * limit did nothing.  Errors: SIM_ERROR_INVALID with the file, line and
 * key when min_cap is at or below a GPU model's idle power, or when the
 * limit is below what the facility draws with nothing running. */
gboolean sim__facility_limit_attach (SimSimulation *sim, const SimFacilityConfig *config,
                                     gboolean active, GError **error);

G_END_DECLS
