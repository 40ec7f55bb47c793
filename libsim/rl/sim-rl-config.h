/* sim-rl-config.h: reading a scenario's [rl] section (private). */
#pragma once

#include "core/sim-keys.h"
#include "scenario/sim-scenario.h"

G_BEGIN_DECLS

gboolean sim__rl_config_read (const SimKeyReader *reader, SimRlConfig *config, GError **error);

/* [rl], read into @scenario, and freed. */
gboolean sim__rl_sections_read (const SimKeyReader *reader, SimScenario *scenario,
                                GError **error);
void     sim__rl_sections_clear (SimScenario *scenario);

extern const SimKeyTable sim__rl_key_table;

G_END_DECLS
