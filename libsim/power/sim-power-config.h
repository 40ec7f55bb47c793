/* sim-power-config.h: reading a scenario's [power], [cooling],
 * [power_manager] and [facility] sections (private). */
#pragma once

#include "core/sim-keys.h"
#include "scenario/sim-scenario.h"

G_BEGIN_DECLS

gboolean sim__power_config_read (const SimKeyReader *reader, SimPowerConfig *config,
                                 GError **error);
gboolean sim__cooling_config_read (const SimKeyReader *reader, const SimPowerConfig *power,
                                   SimCoolingConfig *config, GError **error);
gboolean sim__power_policies_read (const SimKeyReader *reader, SimPowerManagerConfig *manager,
                                   SimFacilityConfig *facility, GError **error);

/* The module's sections, read into @scenario: [power] and [cooling]; and
 * [power_manager] and [facility], the power policies'. */
gboolean sim__power_sections_read (const SimKeyReader *reader, SimScenario *scenario,
                                   GError **error);
void     sim__power_sections_clear (SimScenario *scenario);
gboolean sim__power_policy_sections_read (const SimKeyReader *reader, SimScenario *scenario,
                                          GError **error);

extern const SimKeyTable sim__power_key_table;
extern const SimKeyTable sim__cooling_key_table;
extern const SimKeyTable sim__power_manager_key_table;
extern const SimKeyTable sim__facility_key_table;

G_END_DECLS
