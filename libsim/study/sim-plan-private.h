/* sim-plan-private.h: what the sweep adds to plans, not installed. */
#pragma once

#include "study/sim-plan.h"

G_BEGIN_DECLS

/* As sim_plan_add_variant(), without building the scenario to check the
 * overrides: for a sweep, which checks each value of each axis once rather
 * than every point (a thousand points would build a thousand clusters
 * before the first run).  A bad combination then fails its runs. */
void sim__plan_add_variant_unchecked (SimPlan *self, const char *name,
                                      const char * const *overrides);

G_END_DECLS
