/* sim-power-config.h: reading a scenario's [power], [cooling],
 * [power_manager] and [facility] sections (private). */
#pragma once

#include "sim-keys.h"
#include "sim-scenario.h"

G_BEGIN_DECLS

gboolean sim__power_config_read (const SimKeyReader *reader, SimPowerConfig *config,
                                 GError **error);
gboolean sim__cooling_config_read (const SimKeyReader *reader, const SimPowerConfig *power,
                                   SimCoolingConfig *config, GError **error);
gboolean sim__power_policies_read (const SimKeyReader *reader, SimPowerManagerConfig *manager,
                                   SimFacilityConfig *facility, GError **error);

G_END_DECLS
