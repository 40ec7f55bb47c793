/* sim-scenario-private.h: what the library's modules need of a parsed
 * scenario beyond the public fields (not installed). */
#pragma once

#include "sim-scenario.h"

G_BEGIN_DECLS

/* Prefixes @error with "FILE:LINE: [group] key: " for a key of @scenario
 * (internal: for errors found after parsing). */
void sim__scenario_locate (const SimScenario *scenario, const char *group, const char *key,
                           GError **error);

/* The group of an override or a swept key as the key file spells it
 * (newly allocated): "pool h100" for "pool.h100", "class small" for
 * "class.small", "comm ring" for "comm.ring"; other groups as they are.
 * The one spelling rule of `run --set`, `seek --vary` and [sweep] keys,
 * which all reach the scenario through its overrides. */
char *sim__scenario_key_group (const char *group);

G_END_DECLS
