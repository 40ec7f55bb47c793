/* sim-modules.c: the table of modules a simulation attaches, and of the
 * scenario sections they own. */
#include "config.h"

#include "sim-modules.h"
#include "power/sim-power-module.h"
#include "power/sim-power-config.h"
#include "power/sim-cost-private.h"
#include "power/sim-elastic.h"
#include "power/sim-power-policies.h"
#include "failures/sim-failures.h"
#include "rl/sim-rl-config.h"
#include "sweep/sim-sweep-private.h"
#include "llm/sim-llm-private.h"
#include "serve/sim-serve-module.h"

static const SimKeyTable * const power_tables[] = {
  &sim__power_key_table, &sim__cooling_key_table, NULL };
static const SimKeyTable * const cost_tables[] = { &sim__cost_key_table, NULL };
static const SimKeyTable * const elastic_tables[] = {
  &sim__elastic_key_table, &sim__serverless_key_table, NULL };
static const SimKeyTable * const failures_tables[] = { &sim__failures_key_table, NULL };
static const SimKeyTable * const policies_tables[] = {
  &sim__power_manager_key_table, &sim__facility_key_table, NULL };
static const SimKeyTable * const rl_tables[] = { &sim__rl_key_table, NULL };
static const SimKeyTable * const sweep_tables[] = { &sim__sweep_key_table, NULL };
static const SimKeyTable * const llm_tables[] = { &sim__llm_key_table, NULL };
static const SimKeyTable * const serve_tables[] = {
  &sim__serving_key_table, &sim__requests_key_table, NULL };

static const SimSectionOwner power = {
  "power", power_tables, sim__power_sections_read, sim__power_sections_clear, NULL };
static const SimSectionOwner cost = {
  "cost", cost_tables, sim__cost_sections_read, sim__cost_sections_clear, NULL };
static const SimSectionOwner elastic = {
  "elastic", elastic_tables, sim__elastic_sections_read, sim__elastic_sections_clear, NULL };
static const SimSectionOwner failures = {
  "failures", failures_tables, sim__failures_sections_read, sim__failures_sections_clear,
  NULL };
static const SimSectionOwner policies = {
  "power-policies", policies_tables, sim__power_policy_sections_read, NULL, NULL };
static const SimSectionOwner rl = {
  "rl", rl_tables, sim__rl_sections_read, sim__rl_sections_clear, NULL };
/* A sweep file's own section, read by the sweep (sweep/sim-sweep.c). */
static const SimSectionOwner sweep = { "sweep", sweep_tables, NULL, NULL, NULL };
/* Language models defined in a scenario ([llm NAME]), read when a class or
 * `gpusim llm` names one; a [class] that trains one is settled from it. */
static const SimSectionOwner llm = { "llm", llm_tables, NULL, NULL, sim__llm_settle_class };
/* Deployments of language models and their requests ([serving NAME],
 * [requests NAME]): what `gpusim serve` simulates alone, and what runs
 * beside the workload in ordinary runs. */
static const SimSectionOwner serve = {
  "serve", serve_tables, sim__serve_sections_read, sim__serve_sections_clear, NULL };

/* In the order their accumulators report: energy before cost (which
 * prices it), bursting and serverless after cost (their totals add to
 * it), failures, then the power policies, which watch and act on all of
 * the above, then serving, whose replicas' power is read once the
 * policies have set it.  The RL observation attaches when a caller makes an
 * environment (sim_rl_env_new()), the run's output files when a caller
 * asks for them (sim_simulation_set_output_dir()). */
static const SimModuleInfo modules[] = {
  { &power, sim__power_module_attach },
  { &cost, sim__cost_attach },
  { &elastic, sim__elastic_attach },
  { &failures, sim__failures_attach },
  { &policies, sim__power_policies_attach },
  { &serve, sim__serve_module_attach },
  { &rl, NULL },
};

const SimModuleInfo *
sim__modules_get (guint *n_modules)
{
  *n_modules = G_N_ELEMENTS (modules);
  return modules;
}

const SimSectionOwner * const *
sim__scenario_section_owners (guint *n_owners)
{
  static const SimSectionOwner * const owners[] = {
    &power, &cost, &elastic, &failures, &policies, &rl, &llm, &serve, &sweep,
  };

  *n_owners = G_N_ELEMENTS (owners);
  return owners;
}
