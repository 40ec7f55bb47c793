/* sim-modules.c: the table of modules a simulation attaches. */
#include "config.h"

#include "sim-modules.h"
#include "power/sim-power-module.h"
#include "power/sim-cost-private.h"
#include "power/sim-elastic.h"
#include "power/sim-power-policy.h"
#include "failures/sim-failures.h"

/* In the order their accumulators report: energy before cost (which
 * prices it), bursting and serverless after cost (their totals add to
 * it), failures, then the power policies, which watch and act on all of
 * the above.  The run's output files and the RL observation attach when a
 * caller asks for them (sim_simulation_set_output_dir(), sim_rl_env_new()). */
static const SimModuleInfo modules[] = {
  { "power", "power cooling", sim__power_module_attach },
  { "cost", "cost", sim__cost_attach },
  { "elastic", "elastic serverless", sim__elastic_attach },
  { "failures", "failures", sim__failures_attach },
  { "power-policies", "power_manager facility", sim__power_policies_attach },
};

const SimModuleInfo *
sim__modules_get (guint *n_modules)
{
  *n_modules = G_N_ELEMENTS (modules);
  return modules;
}
