/* sim-sweep-private.h: what the library needs of sweeps beyond their
 * public API (not installed). */
#pragma once

#include "sweep/sim-sweep.h"
#include "core/sim-keys.h"

G_BEGIN_DECLS

/* [sweep]'s keys (sim-sweep.c). */
extern const SimKeyTable sim__sweep_key_table;

G_END_DECLS
