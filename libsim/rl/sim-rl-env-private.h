/* sim-rl-env-private.h: what the [rl] section's reader shares with the
 * environment (not installed). */
#pragma once

#include "rl/sim-rl-env.h"
#include "scenario/sim-scenario.h"

G_BEGIN_DECLS

/* Whether @scenario has what @reward needs: the power model for energy and
 * cost, the cost model with a capacity known from the start for cost.
 * @what names the reward in the message ("the energy reward").  Errors:
 * SIM_ERROR_MISSING or SIM_ERROR_INVALID, not located (the caller knows
 * where the reward was chosen); *@cost_key is set to TRUE when the [cost]
 * capacity_basis key is at fault rather than the reward. */
gboolean sim__rl_check_reward (const SimScenario *scenario, SimRlReward reward, const char *what,
                               gboolean *cost_key, GError **error);

G_END_DECLS
