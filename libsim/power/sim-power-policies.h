/* sim-power-policies.h: the power policies as a module (not installed). */
#pragma once

#include <glib.h>
#include "kernel/sim-simulation.h"

G_BEGIN_DECLS

/* Makes the policies @sim's scenario asks for, but those in @off (a mask
 * of #SimPowerPolicyKind, sim-power-policy.h): checks their figures against
 * the cluster and the power model, registers their watches, timers and
 * accumulators.  Errors: SIM_ERROR_INVALID (with the file, line and key)
 * for a policy without a [power] section, a cap at or below a GPU's idle
 * power or above its TDP, a limit below what the facility draws idle. */
gboolean sim__power_policies_attach (SimSimulation *sim, guint off, GError **error);

G_END_DECLS
