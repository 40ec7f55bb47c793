/* sim-modules.h: the modules a simulation attaches, in order (not
 * installed).
 *
 * Every module beside the kernel (kernel/sim-kernel.h) is one entry: the
 * scenario sections it owns (their key tables, and how they are read into
 * the scenario and freed: scenario/sim-scenario-private.h) and its attach
 * function, which looks at the scenario, does nothing when its sections
 * are absent, and otherwise connects its hooks, gates, claims and speed
 * factors and keeps its state in an extension of the simulation.  The
 * order of the table is the order in which modules are attached, and so
 * the order of their accumulators in the report and of their callbacks at
 * every hook: a new module goes where its figures belong, usually at the
 * end.  The facade (sim-simulation.c) attaches the table and the scenario
 * parser reads the sections through it: neither names a module.
 */
#pragma once

#include "kernel/sim-simulation.h"
#include "scenario/sim-scenario-private.h"

G_BEGIN_DECLS

/* @flags: a mask of parts of modules to leave off (for a baseline run). */
typedef gboolean (*SimModuleAttachFunc) (SimSimulation *sim, guint flags, GError **error);

typedef struct {
  const SimSectionOwner *sections; /* its name and scenario sections */
  SimModuleAttachFunc    attach;   /* NULL: a module the caller attaches (the RL observation) */
} SimModuleInfo;

/* The table, @n_modules entries. */
const SimModuleInfo *sim__modules_get (guint *n_modules);

G_END_DECLS
