/* sim-energy.c: the energy accumulator (sim-energy.h). */
#include "config.h"

#include "power/sim-energy.h"

#define J_PER_KWH 3.6e6

typedef struct {
  SimAccumulator parent;
  gboolean cooling;
  SimTime  last;
  double   it_j, gpu_j, cooling_j, facility_j;
  double   economizer_s;
  double   it_peak, facility_peak;
  double   jobs_j;
  double   gpu_seconds;   /* GPU-seconds delivered to jobs */
  SimJobFigureFunc job_energy; /* a job's energy, J (the power module's) */
  gpointer job_energy_data;
} Energy;

static void
energy_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  Energy *e = (Energy *) acc;
  double dt;

  if (now <= e->last)
    return;
  dt = sim_time_to_seconds (now - e->last);
  e->it_j += dt * held->it_power_w;
  e->gpu_j += dt * held->gpu_power_w;
  e->cooling_j += dt * held->cooling_power_w;
  e->facility_j += dt * held->facility_power_w;
  if (held->economizer)
    e->economizer_s += dt;
  /* The peaks of states that held for some time. */
  e->it_peak = MAX (e->it_peak, held->it_power_w);
  e->facility_peak = MAX (e->facility_peak, held->facility_power_w);
  e->last = now;
}

static void
energy_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                  const char *class_name, SimTime now)
{
  Energy *e = (Energy *) acc;

  if (event != SIM_JOB_FINISHED && event != SIM_JOB_UNFINISHED)
    return;
  e->jobs_j += e->job_energy (job, e->job_energy_data);
  e->gpu_seconds += job->attained;
}

static void
energy_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  Energy *e = (Energy *) acc;
  double seconds = sim_time_to_seconds (info->end);
  double gpu_hours = e->gpu_seconds / 3600.0;

  sim__report_add (report, "energy_it_kwh", e->it_j / J_PER_KWH, "kWh");
  sim__report_add (report, "energy_gpu_kwh", e->gpu_j / J_PER_KWH, "kWh");
  sim__report_add (report, "energy_cooling_kwh", e->cooling_j / J_PER_KWH, "kWh");
  sim__report_add (report, "energy_facility_kwh", e->facility_j / J_PER_KWH, "kWh");
  sim__report_add (report, "energy_jobs_kwh", e->jobs_j / J_PER_KWH, "kWh");
  sim__report_add (report, "energy_per_gpu_hour",
                   gpu_hours > 0 ? e->facility_j / J_PER_KWH / gpu_hours : 0, "kWh/GPU-h");
  sim__report_add (report, "pue", e->it_j > 0 ? e->facility_j / e->it_j : 0, "ratio");
  sim__report_add (report, "power_it_avg", seconds > 0 ? e->it_j / seconds : 0, "W");
  sim__report_add (report, "power_cooling_avg", seconds > 0 ? e->cooling_j / seconds : 0, "W");
  sim__report_add (report, "power_facility_avg", seconds > 0 ? e->facility_j / seconds : 0, "W");
  sim__report_add (report, "power_it_peak", e->it_peak, "W");
  sim__report_add (report, "power_facility_peak", e->facility_peak, "W");
  if (e->cooling)
    sim__report_add (report, "economizer_hours", e->economizer_s / 3600.0, "h");
}

static void
energy_free (SimAccumulator *acc)
{
  g_free (acc);
}

static const SimAccumulatorVTable energy_vtable = {
  energy_advance, energy_job_event, energy_report, energy_free,
};

SimAccumulator *
sim__energy_accumulator_new (gboolean cooling, SimJobFigureFunc job_energy, gpointer data)
{
  Energy *e = g_new0 (Energy, 1);

  e->parent.vtable = &energy_vtable;
  e->cooling = cooling;
  e->job_energy = job_energy;
  e->job_energy_data = data;
  return &e->parent;
}
