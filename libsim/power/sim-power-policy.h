/* sim-power-policy.h: what the power policies share (not installed).
 *
 * Two policies act on GPU power caps while a run goes: the cap manager
 * (sim-power-manager.h) lowers the cap of a GPU that stays underused, and
 * the facility limit in cap mode (sim-facility-limit.h) lowers every GPU's
 * cap alike while the facility would draw more than its limit.  A GPU's cap
 * is then the lowest of three: the one the scenario sets ([power] gpu_cap
 * or gpu_cap_share, read once when the policies attach), the manager's and
 * the facility limit's, 0 meaning none.  #SimPowerCaps keeps the three per
 * GPU and applies their minimum through sim__power_module_set_gpu_cap() only
 * when it changes, so that neither policy undoes the other.
 *
 * Both policies report, besides what they did, what they cost against the
 * same scenario run without them (the baseline): the energy saved, the
 * completion time lost.  The baseline is a second run of the same
 * scenario, same seed, with the policy off, so the comparison holds
 * everything else equal (jobs that run longer draw for longer, and a
 * schedule that shifts changes what runs beside what): integrating the
 * draw a cap removes at equal activity would miss both.
 * sim__power_policy_run_baseline() makes that run.
 *
 * Alternatives rejected: a cap per policy on the simulation (the last
 * policy to set would win); a baseline estimated from the run alone (see
 * above).
 */
#pragma once

#include <glib.h>
#include "kernel/sim-simulation.h"
#include "report/sim-report.h"

G_BEGIN_DECLS

/* Which policies: for sim__power_policies_attach()'s mask of those left
 * off.  SIM_POWER_POLICY_BASELINE marks a baseline run, whose policies do
 * not run baselines of their own (with both policies on, each one's
 * baseline has the other on, which would otherwise run its own, and so
 * on without end). */
typedef enum {
  SIM_POWER_POLICY_MANAGER = 1 << 0,
  SIM_POWER_POLICY_FACILITY = 1 << 1,
  SIM_POWER_POLICY_BASELINE = 1 << 2,
} SimPowerPolicyKind;

/* Who asks for a cap. */
typedef enum {
  SIM_CAP_MANAGER,
  SIM_CAP_FACILITY,
} SimCapSource;

typedef struct _SimPowerCaps SimPowerCaps;

/* The caps of @sim's GPUs, made at the first call (the scenario's caps read
 * then) and kept with the simulation. */
SimPowerCaps *sim__power_caps_get (SimSimulation *sim);

/* Sets @source's cap on @gpu (W, 0: none) and applies the lowest of the
 * three if that changed.  Errors: those of sim__power_module_set_gpu_cap(). */
gboolean sim__power_caps_set (SimPowerCaps *caps, guint gpu, SimCapSource source, double cap_w,
                              GError **error);

/* Sets @source's caps on every GPU (@cap_w: one per GPU, W, 0: none) and
 * applies the lowest of the three where that changed, in one
 * sim__power_module_set_gpu_caps(). */
gboolean sim__power_caps_set_all (SimPowerCaps *caps, SimCapSource source, const double *cap_w,
                                  GError **error);

/* @source's cap on @gpu, W; 0: none. */
double sim__power_caps_get_source (const SimPowerCaps *caps, guint gpu, SimCapSource source);

/* The cap the scenario set on @gpu, W; 0: none. */
double sim__power_caps_get_base (const SimPowerCaps *caps, guint gpu);

/* Notes what a run of @sim needs for its baselines: the policy it was
 * made with, and whether it is itself a baseline (@off has
 * SIM_POWER_POLICY_BASELINE). */
void sim__power_policy_note_run (SimSimulation *sim, guint off);
/* Attaches the meter the policies' outcomes are read from (@sim owns it). */
void sim__power_policy_attach_meter (SimSimulation *sim);

/* What a run gave, for comparing it with its baseline: the energy the IT
 * equipment and the facility drew (integrated exactly between events by a
 * meter the power policies attach to both runs) and the mean completion
 * time and wait of the jobs that finished. */
typedef struct {
  double it_kwh;
  double facility_kwh;
  double jct_mean_s;
  double wait_mean_s;
} SimPolicyOutcome;

/* @sim's outcome, from its meter and @report (its report, being made:
 * the built-in metrics are in it). */
void sim__power_policy_outcome (SimSimulation *sim, const SimReport *report,
                                SimPolicyOutcome *out);

/* Runs @sim's scenario again with the policies in @off left off, to the
 * end, without output, and gives its outcome.  FALSE with @error set if
 * that run fails; FALSE without error when @sim's policy is not the
 * scenario's own (set by sim_simulation_set_policy()), which the baseline
 * could not reproduce, or when @sim is itself a baseline run. */
gboolean sim__power_policy_run_baseline (SimSimulation *sim, guint off, SimPolicyOutcome *out,
                                         GError **error);

/* Adds to @report, under @prefix, what @run changed against @baseline:
 * PREFIX_baseline_energy (kWh), PREFIX_energy_saved (kWh, facility) and
 * PREFIX_energy_saved_share (%), PREFIX_jct_change (s, positive when jobs
 * take longer) and PREFIX_jct_change_share (%), PREFIX_wait_change (s). */
void sim__power_policy_report_baseline (SimReport *report, const SimPolicyOutcome *run,
                                        const SimPolicyOutcome *baseline, const char *prefix);

G_END_DECLS
