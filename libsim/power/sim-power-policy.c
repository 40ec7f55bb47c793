/* sim-power-policy.c: the caps the power policies share, their set-up and
 * their baseline runs (sim-power-policy.h). */
#include "config.h"

#include "power/sim-power-policy.h"
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include "report/sim-metrics.h"
#include "core/sim-error.h"
#include "scenario/sim-scenario-private.h"

#include <math.h>
#include <string.h>

#define CAPS_KEY "sim-power-caps"
#define POLICY_KEY "sim-power-policy-own-policy"
#define BASELINE_KEY "sim-power-policy-baseline-run"

struct _SimPowerCaps {
  SimSimulation *sim;     /* (not owned: the caps live as long as it) */
  guint          n_gpus;
  double        *base;    /* the scenario's cap per GPU */
  double        *source[2]; /* per SimCapSource */
};

static void
caps_free (gpointer data)
{
  SimPowerCaps *caps = data;

  g_free (caps->base);
  g_free (caps->source[0]);
  g_free (caps->source[1]);
  g_free (caps);
}

SimPowerCaps *
sim__power_caps_get (SimSimulation *sim)
{
  SimPowerCaps *caps = g_object_get_data (G_OBJECT (sim), CAPS_KEY);

  if (caps != NULL)
    return caps;
  caps = g_new0 (SimPowerCaps, 1);
  caps->sim = sim;
  caps->n_gpus = sim_cluster_get_n_gpus (sim_simulation_get_cluster (sim));
  caps->base = g_new0 (double, MAX (caps->n_gpus, 1));
  caps->source[0] = g_new0 (double, MAX (caps->n_gpus, 1));
  caps->source[1] = g_new0 (double, MAX (caps->n_gpus, 1));
  for (guint g = 0; g < caps->n_gpus; g++)
    caps->base[g] = sim__power_module_get_gpu_cap (sim, g);
  g_object_set_data_full (G_OBJECT (sim), CAPS_KEY, caps, caps_free);
  return caps;
}

/* The lowest of the caps that are set; 0 if none is. */
static double
lowest (double a, double b, double c)
{
  double v = 0;

  if (a > 0)
    v = a;
  if (b > 0 && (v == 0 || b < v))
    v = b;
  if (c > 0 && (v == 0 || c < v))
    v = c;
  return v;
}

gboolean
sim__power_caps_set (SimPowerCaps *caps, guint gpu, SimCapSource source, double cap_w,
                     GError **error)
{
  double before, after;

  g_return_val_if_fail (caps != NULL && gpu < caps->n_gpus && cap_w >= 0, FALSE);
  before = lowest (caps->base[gpu], caps->source[0][gpu], caps->source[1][gpu]);
  caps->source[source][gpu] = cap_w;
  after = lowest (caps->base[gpu], caps->source[0][gpu], caps->source[1][gpu]);
  if (after == before)
    return TRUE;
  return sim__power_module_set_gpu_cap (caps->sim, gpu, after, error);
}

gboolean
sim__power_caps_set_all (SimPowerCaps *caps, SimCapSource source, const double *cap_w,
                         GError **error)
{
  g_autofree double *effective = g_new (double, MAX (caps->n_gpus, 1));
  g_autofree double *old = g_memdup2 (caps->source[source], MAX (caps->n_gpus, 1) * sizeof (double));

  for (guint g = 0; g < caps->n_gpus; g++)
    {
      caps->source[source][g] = cap_w[g];
      effective[g] = lowest (caps->base[g], caps->source[0][g], caps->source[1][g]);
    }
  if (sim__power_module_set_gpu_caps (caps->sim, effective, error))
    return TRUE;
  memcpy (caps->source[source], old, MAX (caps->n_gpus, 1) * sizeof (double));
  return FALSE;
}

double
sim__power_caps_get_source (const SimPowerCaps *caps, guint gpu, SimCapSource source)
{
  g_return_val_if_fail (caps != NULL && gpu < caps->n_gpus, 0);
  return caps->source[source][gpu];
}

double
sim__power_caps_get_base (const SimPowerCaps *caps, guint gpu)
{
  g_return_val_if_fail (caps != NULL && gpu < caps->n_gpus, 0);
  return caps->base[gpu];
}

/* ------------------------------------------------------------------------- */
/* The energy meter: IT and facility energy, exact between events. */

#define METER_KEY "sim-power-policy-meter"

typedef struct {
  SimAccumulator acc;
  SimTime last;
  double  it_j, facility_j;
} Meter;

static void
meter_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  Meter *m = (Meter *) acc;

  if (now > m->last)
    {
      double dt = sim_time_to_seconds (now - m->last);
      m->it_j += held->it_power_w * dt;
      m->facility_j += held->facility_power_w * dt;
      m->last = now;
    }
}

static void
meter_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                 const char *class_name, SimTime now)
{
}

/* The meter reports nothing itself: the power model's energy accumulator
 * does; this one is for the comparison with the baseline. */
static void
meter_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
}

static void
meter_free (SimAccumulator *acc)
{
  g_free (acc);
}

static const SimAccumulatorVTable meter_vtable = {
  meter_advance, meter_job_event, meter_report, meter_free,
};

void
sim__power_policy_attach_meter (SimSimulation *sim)
{
  Meter *m = g_new0 (Meter, 1);

  m->acc.vtable = &meter_vtable;
  sim__kernel_add_accumulator (sim, &m->acc);
  g_object_set_data (G_OBJECT (sim), METER_KEY, m);
}

static double
value_of (const SimReport *report, const char *name)
{
  double v = 0;

  sim_report_get_value (report, name, &v);
  return v;
}

void
sim__power_policy_outcome (SimSimulation *sim, const SimReport *report, SimPolicyOutcome *out)
{
  const Meter *m = g_object_get_data (G_OBJECT (sim), METER_KEY);

  out->it_kwh = m != NULL ? m->it_j / 3.6e6 : 0;
  out->facility_kwh = m != NULL ? m->facility_j / 3.6e6 : 0;
  out->jct_mean_s = value_of (report, "jct_mean");
  out->wait_mean_s = value_of (report, "wait_mean");
}

/* ------------------------------------------------------------------------- */

void
sim__power_policy_note_run (SimSimulation *sim, guint off)
{
  /* The policy the simulation made from the scenario: a baseline run can
   * only reproduce that one. */
  g_object_set_data (G_OBJECT (sim), POLICY_KEY, sim_simulation_get_policy (sim));
  if (off & SIM_POWER_POLICY_BASELINE)
    g_object_set_data (G_OBJECT (sim), BASELINE_KEY, GINT_TO_POINTER (1));
}

gboolean
sim__power_policy_run_baseline (SimSimulation *sim, guint off, SimPolicyOutcome *out,
                                GError **error)
{
  g_autoptr(SimSimulation) base = NULL;

  if (sim_simulation_get_policy (sim) != g_object_get_data (G_OBJECT (sim), POLICY_KEY) ||
      g_object_get_data (G_OBJECT (sim), BASELINE_KEY) != NULL)
    return FALSE;
  base = sim__kernel_new (sim_simulation_get_scenario (sim),
                                                     off | SIM_POWER_POLICY_BASELINE, error);
  if (base == NULL)
    return FALSE;
  if (g_object_get_data (G_OBJECT (base), METER_KEY) == NULL)
    sim__power_policy_attach_meter (base);
  sim_simulation_set_force (base, TRUE);
  if (!sim_simulation_run (base, error))
    return FALSE;
  sim__power_policy_outcome (base, sim_simulation_get_report (base), out);
  return TRUE;
}

void
sim__power_policy_report_baseline (SimReport *report, const SimPolicyOutcome *run,
                                   const SimPolicyOutcome *base, const char *prefix)
{
  g_autofree char *base_energy = g_strdup_printf ("%s_baseline_energy", prefix);
  g_autofree char *saved = g_strdup_printf ("%s_energy_saved", prefix);
  g_autofree char *saved_share = g_strdup_printf ("%s_energy_saved_share", prefix);
  g_autofree char *jct = g_strdup_printf ("%s_jct_change", prefix);
  g_autofree char *jct_share = g_strdup_printf ("%s_jct_change_share", prefix);
  g_autofree char *wait = g_strdup_printf ("%s_wait_change", prefix);
  double e_run = run->facility_kwh, e_base = base->facility_kwh;
  double j_run = run->jct_mean_s, j_base = base->jct_mean_s;

  sim__report_add (report, base_energy, e_base, "kWh");
  sim__report_add (report, saved, e_base - e_run, "kWh");
  sim__report_add (report, saved_share, e_base > 0 ? 100 * (e_base - e_run) / e_base : 0, "%");
  sim__report_add (report, jct, j_run - j_base, "s");
  sim__report_add (report, jct_share, j_base > 0 ? 100 * (j_run - j_base) / j_base : 0, "%");
  sim__report_add (report, wait, run->wait_mean_s - base->wait_mean_s, "s");
}
