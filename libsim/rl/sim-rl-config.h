/* sim-rl-config.h: reading a scenario's [rl] section (private). */
#pragma once

#include "sim-keys.h"
#include "sim-scenario.h"

G_BEGIN_DECLS

gboolean sim__rl_config_read (const SimKeyReader *reader, SimRlConfig *config, GError **error);

G_END_DECLS
