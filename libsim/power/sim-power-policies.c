/* sim-power-policies.c: the power policies a scenario asks for, attached
 * as one module (sim-power-policy.h has the caps they share and their
 * baselines; sim-power-manager.h and sim-facility-limit.h the policies). */
#include "config.h"

#include "power/sim-power-policies.h"
#include "power/sim-power-policy.h"
#include "power/sim-power-manager.h"
#include "power/sim-facility-limit.h"
#include "core/sim-error.h"
#include "scenario/sim-scenario-private.h"

gboolean
sim__power_policies_attach (SimSimulation *sim, guint off, GError **error)
{
  SimScenario *sc = sim_simulation_get_scenario (sim);
  gboolean manager = sc->power_manager.enabled && !(off & SIM_POWER_POLICY_MANAGER);
  gboolean facility = sc->facility.max_power_w > 0 && !(off & SIM_POWER_POLICY_FACILITY);
  /* A section turned off still reports its figures (as nothing done), so
   * that variants with it on and off compare metric by metric. */
  gboolean show_manager = manager || (sc->power_manager.present && sc->power.enabled);
  gboolean show_facility = facility || (sc->facility.present && sc->power.enabled);

  sim__power_policy_note_run (sim, off);
  if (!show_manager && !show_facility)
    return TRUE;
  if (!sc->power.enabled)
    {
      const char *group = manager ? "power_manager" : "facility";
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "a power policy needs the power model: add a [power] section");
      sim__scenario_locate (sc, group, NULL, error);
      return FALSE;
    }
  /* The scenario's caps are read before any policy sets one. */
  sim__power_caps_get (sim);
  sim__power_policy_attach_meter (sim);
  if (show_manager && !sim__power_manager_attach (sim, &sc->power_manager, manager, error))
    return FALSE;
  if (show_facility && !sim__facility_limit_attach (sim, &sc->facility, facility, error))
    return FALSE;
  return TRUE;
}
