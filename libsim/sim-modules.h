/* sim-modules.h: the modules a simulation attaches, in order (not
 * installed).
 *
 * Every module beside the kernel (kernel/sim-kernel.h) is one entry: the
 * scenario section it answers to and its attach function, which looks at
 * the scenario, does nothing when its section is absent, and otherwise
 * connects its hooks, gates, claims and speed factors and keeps its state
 * in an extension of the simulation.  The order of the table is the order
 * in which modules are attached, and so the order of their accumulators in
 * the report and of their callbacks at every hook: a new module goes where
 * its figures belong, usually at the end.  The facade (sim-simulation.c)
 * attaches the table and names no module.
 */
#pragma once

#include "sim-simulation.h"

G_BEGIN_DECLS

/* @flags: a mask of parts of modules to leave off (for a baseline run). */
typedef gboolean (*SimModuleAttachFunc) (SimSimulation *sim, guint flags, GError **error);

typedef struct {
  const char          *name;     /* the module's name, as `gpusim keys` and the docs use it */
  const char          *sections; /* the scenario sections it reads, space-separated */
  SimModuleAttachFunc  attach;
} SimModuleInfo;

/* The table, @n_modules entries. */
const SimModuleInfo *sim__modules_get (guint *n_modules);

G_END_DECLS
