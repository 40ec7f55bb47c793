/* sim-energy.h: the energy accumulator (not installed).
 *
 * Integrates the power the simulation notes between events (SimState's
 * it_power_w, gpu_power_w, cooling_power_w, facility_power_w), exactly,
 * since they are constant between events, and reports:
 *
 *   energy_it_kwh, energy_gpu_kwh, energy_cooling_kwh, energy_facility_kwh
 *   energy_jobs_kwh       the IT energy charged to jobs (jobs.csv's energy_kwh)
 *   energy_per_gpu_hour   facility kWh per GPU-hour delivered to jobs
 *   pue                   energy-weighted: facility energy / IT energy
 *   power_it_avg, power_facility_avg, power_cooling_avg  W, over the run
 *   power_it_peak, power_facility_peak                   W, highest held
 *   economizer_hours      hours the chillers were off (with [cooling])
 *
 * A job is charged, while it runs, with what its share of its nodes draws:
 * on each GPU it holds, its share of the GPU's idle power and the dynamic
 * power of its own busy time (with the fan power that follows it), and,
 * on each node, its share of the node's GPUs times the node's CPUs at full
 * load and its constant parts, all behind the power supplies (see
 * sim__power_job_w()).  Idle nodes' power and the network's are charged to
 * no job.
 */
#pragma once

#include "report/sim-metrics.h"

G_BEGIN_DECLS

/* @cooling: whether the run has a cooling model (economizer hours). */
SimAccumulator *sim__energy_accumulator_new (gboolean cooling, SimJobFigureFunc job_energy,
                                             gpointer data);

G_END_DECLS
