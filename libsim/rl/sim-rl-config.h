/* sim-rl-config.h: reading a scenario's [rl] section (private). */
#pragma once

#include "core/sim-keys.h"
#include "scenario/sim-scenario.h"
#include "rl/sim-rl-env.h"

G_BEGIN_DECLS

gboolean sim__rl_config_read (const SimKeyReader *reader, SimRlConfig *config, GError **error);

/* [rl], read into @scenario, and freed. */
gboolean sim__rl_sections_read (const SimKeyReader *reader, SimScenario *scenario,
                                GError **error);
void     sim__rl_sections_clear (SimScenario *scenario);

/* Whether @scenario has what @reward needs: the power model for energy and
 * cost, the cost model with a capacity known from the start for cost.
 * @what names the reward in the message ("the energy reward").  Errors:
 * SIM_ERROR_MISSING or SIM_ERROR_INVALID, not located (the caller knows
 * where the reward was chosen); *@cost_key is set to TRUE when the [cost]
 * capacity_basis key is at fault rather than the reward. */
gboolean sim__rl_check_reward (const SimScenario *scenario, SimRlReward reward, const char *what,
                               gboolean *cost_key, GError **error);

extern const SimKeyTable sim__rl_key_table;

G_END_DECLS
