/* sim-scenario-private.h: what the library's modules need of a parsed
 * scenario beyond the public fields (not installed). */
#pragma once

#include "sim-scenario.h"

G_BEGIN_DECLS

/* Prefixes @error with "FILE:LINE: [group] key: " for a key of @scenario
 * (internal: for errors found after parsing). */
void sim__scenario_locate (const SimScenario *scenario, const char *group, const char *key,
                           GError **error);

G_END_DECLS
