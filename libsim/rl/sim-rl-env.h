/* sim-rl-env.h: a reinforcement-learning environment over the simulator.
 *
 * The environment drives a whole simulation decision by decision
 * (sim_simulation_run_to_decision()).  At each pending decision an agent
 * sees an observation, a fixed-size array of floats, and an action mask,
 * and chooses one action:
 *
 *   start (k, p)  start the k-th job of the window with placement p; the
 *                 decision stays open (no simulated time passes, the reward
 *                 is 0) so that the agent may start more jobs;
 *   node (k, s)   (only with node actions, below) start the k-th job of the
 *                 window at node slot s, as start (k, p) otherwise;
 *   wait          commit the decision with whatever was started and run to
 *                 the next decision (an arrival, a completion, a scheduling
 *                 tick); the reward covers the simulated time that passed.
 *
 * Actions are numbered k * P + p for the W window slots and the P
 * placements, then wait = W * P (sim_rl_env_get_n_actions() - 1).
 *
 * Node actions, offered when the scenario says `[rl] node_actions = true`
 * (off by default: the numbering above is then unchanged), come between
 * the placements' and wait: node (k, s) is W * P + k * S + s, and wait is
 * W * P + W * S.  Node (k, s) puts a whole-GPU job (gpu_milli 1000, no
 * MIG profile) on one node of slot s: the first node of the slot, in index
 * order, that is available, has as many free GPUs as the job asks and
 * admits it (GPU model, host CPU and memory: sim_place_node_admits()), on
 * that node's lowest-numbered free GPUs.  The mask rules it out for
 * fractional and MIG jobs, for jobs larger than a node, and when no node
 * of the slot has room.
 *
 * The window is the first W waiting jobs in the queue order of the
 * scenario's policy (FIFO unless the scenario's [policy] says otherwise);
 * the agent takes the place of the policy's pass, which never runs.
 *
 * Observation layout (float32; units in brackets; sizes fixed at creation):
 *
 *   [0, W * SIM_RL_JOB_FEATURES)   the window, one row per slot:
 *       0 present      1 for a job, 0 for a padding slot (all zeros)
 *       1 gpus         GPUs asked [GPUs]
 *       2 share        share of each GPU (gpu_milli / 1000; a MIG job: the
 *                      share its instance counts as) [0, 1]
 *       3 mig          1 if the job asks for a MIG instance
 *       4 waited       time since submission [hours]
 *       5 requested    requested run time, 0 if unknown [hours]
 *       6 class        the job's class index in the workload (0 for traces)
 *   then S * SIM_RL_SLOT_FEATURES  the cluster, one row per node slot:
 *       0 present      1 for a slot holding nodes, 0 for padding
 *       1 free         free whole GPUs / GPUs in the slot's nodes [0, 1]
 *     A slot is a node when the cluster has at most S nodes; otherwise the
 *     nodes are grouped, in index order, ceil(nodes / S) to a slot.
 *   then SIM_RL_GLOBAL_FEATURES:
 *       0 free         free whole GPUs / all GPUs [0, 1]
 *       1 fragmented   free GPUs that cannot host the first window job's
 *                      request (sim_cluster_fragmented_gpus()) / all GPUs,
 *                      0 when no job waits [0, 1]
 *       2 waiting      jobs waiting, in or beyond the window [jobs]
 *       3 running      jobs running [jobs]
 *       4 allocated    allocated GPU thousandths / all GPUs [0, 1]
 *   then S * SIM_RL_SLOT_LINK_FEATURES  the network, one entry per node slot
 *   (appended after the entries above, which keep their places):
 *       0 uplink       the load of the slot's access links (NIC to first
 *                      switch): the largest over the slot's nodes [0, 1]
 *   then SIM_RL_LINK_FEATURES:
 *       0 max link     the largest load of a network link [0, 1]
 *       1 mean link    the mean load of the network links [0, 1]
 *     A link's load is the larger of its two directions' loads, each the
 *     rates the communication model gives the flows crossing it over its
 *     usable capacity (bandwidth x efficiency).  Network links are those
 *     outside nodes (access, aggregation and core tiers); NVLink and PCIe
 *     inside a node are left out.  Under spray routing each pool of a
 *     sprayed tier counts as one link.  The loads are those of the last
 *     committed decision: a job started in the open decision counts from
 *     the next step.  Without a [fabric] section every one is 0.  Cost:
 *     O(links + flows x path length on network links) per observation.
 *   then S * SIM_RL_SLOT_POWER_FEATURES  power, one entry per node slot
 *   (appended after the entries above, which keep their places):
 *       0 power        what the slot's nodes draw at the wall, their GPUs
 *                      included, / what they draw at full load [0, 1]
 *   then SIM_RL_POWER_FEATURES:
 *       0 IT power     what the IT equipment draws (nodes, switches,
 *                      optics) / the cluster's rated IT power [0, 1]
 *       1 facility     the facility's power (IT, cooling, distribution
 *                      losses) / the same rated IT power [0, inf)
 *       2 PUE          facility power / IT power now [1, inf)
 *     Rated IT power, here, is what the power model has the equipment draw
 *     at full load: every GPU busy at full clock (caps and clock limits do
 *     not lower it), CPUs and fans at their maximum, plus the network's
 *     constant draw.  No draw of the
 *     model exceeds it, so the ratios of IT power stay in [0, 1]; for the
 *     catalogue's nodes it is below the max_power nameplate the [cost]
 *     section sizes the facility on (a DGX H100: 9.28 kW of 10.2 kW).  The draws are the power model's now: a job
 *     started in the open decision draws at once.  A cloud pool's nodes
 *     ([elastic]) draw nothing here and count for nothing in the rating.
 *     Without a [power] section every one is 0.
 *
 * Once the run has ended, the window is empty and the job counts are 0;
 * the cluster entries show the cluster as the run left it.
 *
 * Rewards (#SimRlReward) are integrals over the simulated time a step
 * covers, so an episode's rewards add up to the integral over the run:
 * of the jobs in the system, their slowdown weights, the GPUs allocated,
 * the facility's energy (with the power model) or its cost (with the
 * power and cost models).  The first step's reward also covers the time
 * before the first decision (an idle cluster draws power), and the last
 * one the time to the end of the run (the scenario's horizon, if it has
 * one), as the report's figures do.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "kernel/sim-simulation.h"

G_BEGIN_DECLS

/**
 * SIM_RL_JOB_FEATURES:
 *
 * Floats per window slot of an observation (see sim-rl-env.h).
 */
#define SIM_RL_JOB_FEATURES 7
/**
 * SIM_RL_SLOT_FEATURES:
 *
 * Floats per node slot of an observation.
 */
#define SIM_RL_SLOT_FEATURES 2
/**
 * SIM_RL_GLOBAL_FEATURES:
 *
 * Floats of the cluster as a whole, after the node slots.
 */
#define SIM_RL_GLOBAL_FEATURES 5
/**
 * SIM_RL_SLOT_LINK_FEATURES:
 *
 * Floats per node slot in the network part of an observation, which
 * follows the %SIM_RL_GLOBAL_FEATURES entries.
 */
#define SIM_RL_SLOT_LINK_FEATURES 1
/**
 * SIM_RL_LINK_FEATURES:
 *
 * Floats after the per-slot link loads: the largest and the mean load of
 * the network's links.
 */
#define SIM_RL_LINK_FEATURES 2
/**
 * SIM_RL_SLOT_POWER_FEATURES:
 *
 * Floats per node slot in the power part of an observation, which follows
 * the %SIM_RL_LINK_FEATURES entries: the slot's IT power over its full
 * load.
 */
#define SIM_RL_SLOT_POWER_FEATURES 1
/**
 * SIM_RL_POWER_FEATURES:
 *
 * Floats at the very end of an observation: the cluster's IT power and
 * facility power over its rated IT power, and the PUE (all 0 without a
 * [power] section).
 */
#define SIM_RL_POWER_FEATURES 3
/**
 * SIM_RL_MAX_WINDOW:
 *
 * The largest window.
 */
#define SIM_RL_MAX_WINDOW 1024
/**
 * SIM_RL_MAX_SLOTS:
 *
 * The most node slots.
 */
#define SIM_RL_MAX_SLOTS 4096
/**
 * SIM_RL_MAX_PLACEMENTS:
 *
 * The most placements an environment offers.
 */
#define SIM_RL_MAX_PLACEMENTS 16

/**
 * SIM_RL_SLOWDOWN_BOUND:
 *
 * The run time below which %SIM_RL_REWARD_SLOWDOWN counts a job as this
 * long, in seconds (the usual bound of bounded slowdown).
 */
#define SIM_RL_SLOWDOWN_BOUND 10.0
/**
 * SIM_RL_DEFAULT_WINDOW:
 *
 * W when neither the constructor nor the scenario's [rl] window sets it.
 */
#define SIM_RL_DEFAULT_WINDOW 16
/**
 * SIM_RL_DEFAULT_SLOTS:
 *
 * S when neither the constructor nor the scenario's [rl] node_slots sets
 * it.
 */
#define SIM_RL_DEFAULT_SLOTS 32

/**
 * SimRlReward:
 * @SIM_RL_REWARD_JOBS: minus the time integral of the jobs in the system
 *   (waiting or running) over the step, in job-hours.  Over a run where
 *   every job finishes it adds up to minus the sum of the job completion
 *   times, so maximizing it minimizes mean JCT (Little's law).
 *   Scenario: `[rl] reward = jobs`.
 * @SIM_RL_REWARD_UTILIZATION: the time integral of the allocated share of
 *   the cluster's GPUs over the step, in hours (an hour with every GPU
 *   allocated is 1).  Scenario: `[rl] reward = utilization`.
 * @SIM_RL_REWARD_SLOWDOWN: minus the time integral, over the step, of the
 *   sum over the jobs in the system (from submission to completion, waiting
 *   or running) of 1 / max (d, %SIM_RL_SLOWDOWN_BOUND), where d is the
 *   job's run time alone in seconds: its duration as the workload gives it
 *   (SimJobSpec.duration), or its requested time when the duration is 0,
 *   or the bound when both are 0.  Dimensionless.  Over a run where every
 *   job finishes it adds up to minus the sum over jobs of
 *   JCT / max (d, %SIM_RL_SLOWDOWN_BOUND), which is the sum of the jobs'
 *   bounded slowdowns max (1, JCT / max (d, bound)) whenever each job's JCT
 *   is at least max (d, bound), as it is when jobs run at their workload
 *   speed.  Maximizing it favours short jobs more than %SIM_RL_REWARD_JOBS
 *   does.  Scenario: `[rl] reward = slowdown`.
 * @SIM_RL_REWARD_SCENARIO: not a reward: sim_rl_env_new() takes the
 *   scenario's `[rl] reward`, or %SIM_RL_REWARD_JOBS without one.  (Its
 *   value, 3, is kept; the rewards after it came later.)
 * @SIM_RL_REWARD_ENERGY: minus the facility's energy over the step, in
 *   kWh: the time integral of the facility power the power model gives
 *   (IT, cooling and distribution losses: SimState's facility_power_w,
 *   constant between events, so the integral is exact).  An episode's
 *   rewards add up to minus the report's energy_facility_kwh.  Needs the
 *   power model (a [power] section).  Scenario: `[rl] reward = energy`.
 * @SIM_RL_REWARD_COST: minus what owning the cluster costs over the step,
 *   in USD: the facility's energy at the [cost] section's energy price
 *   (flat, or time-of-use integrated exactly: split at every price change,
 *   whether or not an event falls there), plus the owning cost that
 *   accrues by the hour whatever the cluster does, capex amortized and
 *   maintenance (the report's cost_owning_fixed_per_hour).  An episode's
 *   rewards add up to minus the report's cost_tco (cost_energy +
 *   cost_amortized_capex + cost_maintenance).  Needs [cost] and [power]:
 *   without the power model the energy part would be 0 and the reward the
 *   fixed cost times the time elapsed, which only rewards ending the run
 *   early, so it is refused rather than offered under a misleading name.
 *   It needs `capacity_basis = rated` (the default): on the peak, the
 *   facility's capex is known only at the end of the run.  A cloud pool's
 *   bill ([elastic]) and serverless charges are not in it.
 *   Scenario: `[rl] reward = cost`.
 *
 * What a step's reward measures.
 */
typedef enum {
  SIM_RL_REWARD_JOBS,
  SIM_RL_REWARD_UTILIZATION,
  SIM_RL_REWARD_SLOWDOWN,
  SIM_RL_REWARD_SCENARIO,
  SIM_RL_REWARD_ENERGY,
  SIM_RL_REWARD_COST,
} SimRlReward;

#define SIM_TYPE_RL_ENV (sim_rl_env_get_type ())
G_DECLARE_FINAL_TYPE (SimRlEnv, sim_rl_env, SIM, RL_ENV, GObject)

/**
 * sim_rl_env_new:
 * @scenario_path: a scenario file
 * @overrides: (nullable) (array zero-terminated=1): "group.key=value"
 *   overrides, as sim_scenario_load()
 * @window: W, the waiting jobs an observation shows (1 to
 *   %SIM_RL_MAX_WINDOW); 0 for the scenario's `[rl] window`, else
 *   %SIM_RL_DEFAULT_WINDOW
 * @node_slots: S, the node slots of an observation (1 to
 *   %SIM_RL_MAX_SLOTS); 0 for the scenario's `[rl] node_slots`, else
 *   %SIM_RL_DEFAULT_SLOTS
 * @placements: (nullable) (array zero-terminated=1): the registered
 *   placements an agent may start a job with (1 to
 *   %SIM_RL_MAX_PLACEMENTS); %NULL for the scenario's `[rl] placements`
 *   (names separated by commas), else "first-fit" and "best-fit"
 * @reward: what rewards measure; %SIM_RL_REWARD_SCENARIO for the
 *   scenario's `[rl] reward`, else %SIM_RL_REWARD_JOBS; %SIM_RL_REWARD_ENERGY
 *   needs the scenario's [power] section, %SIM_RL_REWARD_COST [power] and
 *   [cost] (with `capacity_basis = rated`)
 * @error: return location for a #GError
 *
 * Arguments given explicitly win over the scenario's [rl] section; a
 * scenario without one and the arguments 16, 32, %NULL and
 * %SIM_RL_REWARD_JOBS set up the same environment.  Node actions
 * (sim-rl-env.h) are offered when the scenario says `[rl] node_actions =
 * true`, which @overrides can set ("rl.node_actions=true").
 *
 * Creates an environment; the scenario is loaded (and checked) now, and
 * again with another seed by sim_rl_env_reset_with_seed().  Call a reset
 * before the first step.  Placements are set up as the scenario's policy
 * is (the cluster, its network, the workload's task classes, the seed),
 * without the scenario's [policy] keys.
 *
 * Errors: those of sim_scenario_load() (among them a bad [rl] key, named
 * with its file and line) and sim_simulation_new(); SIM_ERROR_INVALID for
 * a window, slot count, reward or placement list out of range;
 * SIM_ERROR_MISSING for an energy or cost reward without the sections it
 * needs (saying which to add; at the [rl] reward line when the scenario
 * chose it), SIM_ERROR_INVALID for a cost reward with `capacity_basis =
 * peak`;
 * SIM_ERROR_NOT_FOUND for an unknown placement (with the [rl] placements
 * line when the scenario named it).
 *
 * Returns: (transfer full) (nullable): the environment.
 */
SimRlEnv *sim_rl_env_new (const char *scenario_path, const char * const *overrides, guint window,
                          guint node_slots, const char * const *placements, SimRlReward reward,
                          GError **error);

/**
 * sim_rl_env_set_skip_forced:
 * @self: an environment
 * @skip: whether decisions where no job can start are passed over
 *
 * With @skip (the default), a decision whose only possible action is wait
 * is not shown to the agent: the environment waits itself and the step's
 * reward covers the time until a decision with a choice.  Without it,
 * every decision of the simulation is a step.
 */
void sim_rl_env_set_skip_forced (SimRlEnv *self, gboolean skip);

/**
 * sim_rl_env_reset:
 * @self: an environment
 * @error: return location for a #GError
 *
 * Starts a new episode with the scenario's seed and runs to the first
 * decision.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_rl_env_reset (SimRlEnv *self, GError **error);

/**
 * sim_rl_env_reset_with_seed:
 * @self: an environment
 * @seed: the seed of the new episode (scenario.seed)
 * @error: return location for a #GError
 *
 * As sim_rl_env_reset() with @seed for the scenario's seed.  Same seed,
 * same episode for the same actions.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_rl_env_reset_with_seed (SimRlEnv *self, guint64 seed, GError **error);

/**
 * sim_rl_env_step:
 * @self: an environment after a reset
 * @action: an action (see sim-rl-env.h for the numbering)
 * @reward: (out): the step's reward
 * @terminated: (out): the run has ended with every job done
 * @truncated: (out): the run has ended with jobs still in the system (the
 *   scenario's horizon)
 * @error: return location for a #GError
 *
 * Takes @action.  A start stays in the same decision (reward 0); wait
 * commits it and runs to the next decision with a choice.  When the run
 * ends, the episode is over: @terminated or @truncated is set and further
 * steps are refused until a reset.
 *
 * Errors: SIM_ERROR_STATE with no episode under way (before a reset, after
 * its end); SIM_ERROR_INVALID for an action out of range or one the mask
 * rules out now (the state is unchanged); errors of the run.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_rl_env_step (SimRlEnv *self, guint action, double *reward, gboolean *terminated,
                          gboolean *truncated, GError **error);

/**
 * sim_rl_env_get_observation:
 * @self: an environment
 * @n: (out): its length, sim_rl_env_get_observation_size()
 *
 * The observation now (see sim-rl-env.h for the layout).
 *
 * Returns: (transfer none) (array length=n): the environment's own array,
 *   overwritten by the next step or reset.
 */
const float *sim_rl_env_get_observation (SimRlEnv *self, gsize *n);

/**
 * sim_rl_env_get_observation_bytes:
 * @self: an environment
 *
 * The observation as native-endian float32 bytes, for bindings that wrap
 * them in an array without converting each number.
 *
 * Returns: (transfer full): the observation's bytes (a copy).
 */
GBytes *sim_rl_env_get_observation_bytes (SimRlEnv *self);

/**
 * sim_rl_env_get_observation_high:
 * @self: an environment
 * @n: (out): its length
 *
 * The upper bound of each observation entry (G_MAXFLOAT where there is
 * none: GPUs, hours, counts); every lower bound is 0.
 *
 * Returns: (transfer none) (array length=n): the bounds.
 */
const float *sim_rl_env_get_observation_high (SimRlEnv *self, gsize *n);

/**
 * sim_rl_env_get_action_mask:
 * @self: an environment
 * @n: (out): its length, sim_rl_env_get_n_actions()
 *
 * Which actions are possible now: 1 for a start whose placement finds
 * room and for a node action whose slot has a node with room (the start
 * will succeed), and for wait while an episode is under
 * way unless no job runs and some job could start (nothing might then
 * happen again: the run would end with jobs that never ran, their time
 * uncounted); 0 otherwise, and for every action once the episode has
 * ended.
 *
 * Returns: (transfer none) (array length=n): the mask.
 */
const guint8 *sim_rl_env_get_action_mask (SimRlEnv *self, gsize *n);

/**
 * sim_rl_env_get_action_mask_bytes:
 * @self: an environment
 *
 * Returns: (transfer full): the mask as bytes (a copy).
 */
GBytes *sim_rl_env_get_action_mask_bytes (SimRlEnv *self);

/**
 * sim_rl_env_get_observation_size:
 *
 * Returns: W * %SIM_RL_JOB_FEATURES + S * %SIM_RL_SLOT_FEATURES +
 *   %SIM_RL_GLOBAL_FEATURES + S * %SIM_RL_SLOT_LINK_FEATURES +
 *   %SIM_RL_LINK_FEATURES + S * %SIM_RL_SLOT_POWER_FEATURES +
 *   %SIM_RL_POWER_FEATURES.
 */
gsize sim_rl_env_get_observation_size (SimRlEnv *self);

/**
 * sim_rl_env_get_n_actions:
 *
 * Returns: W * P + 1; W * P + W * S + 1 with node actions.
 */
guint sim_rl_env_get_n_actions (SimRlEnv *self);

/**
 * sim_rl_env_get_window:
 *
 * Returns: W.
 */
guint sim_rl_env_get_window (SimRlEnv *self);

/**
 * sim_rl_env_get_node_slots:
 *
 * Returns: S.
 */
guint sim_rl_env_get_node_slots (SimRlEnv *self);

/**
 * sim_rl_env_get_n_placements:
 *
 * Returns: P.
 */
guint sim_rl_env_get_n_placements (SimRlEnv *self);

/**
 * sim_rl_env_get_node_actions:
 *
 * Returns: whether node actions are offered (`[rl] node_actions`).
 */
gboolean sim_rl_env_get_node_actions (SimRlEnv *self);

/**
 * sim_rl_env_get_first_node_action:
 *
 * Returns: W * P, the number of node (0, 0) when node actions are offered
 *   (the wait action otherwise).
 */
guint sim_rl_env_get_first_node_action (SimRlEnv *self);

/**
 * sim_rl_env_get_reward:
 *
 * Returns: what the rewards measure (never %SIM_RL_REWARD_SCENARIO: the
 *   scenario's choice, resolved at creation).
 */
SimRlReward sim_rl_env_get_reward (SimRlEnv *self);

/**
 * sim_rl_env_get_placement_name:
 * @self: an environment
 * @index: a placement, from 0
 *
 * Returns: (transfer none) (nullable): its name, %NULL past the last.
 */
const char *sim_rl_env_get_placement_name (SimRlEnv *self, guint index);

/**
 * sim_rl_env_get_wait_action:
 *
 * Returns: the wait action, the last: W * P, or W * P + W * S with node
 *   actions.
 */
guint sim_rl_env_get_wait_action (SimRlEnv *self);

/**
 * sim_rl_env_describe_action:
 * @self: an environment
 * @action: an action
 *
 * Returns: (transfer full): e.g. "start window job 2 (job 57) with
 *   best-fit", "wait", or "action 99 (out of range)".
 */
char *sim_rl_env_describe_action (SimRlEnv *self, guint action);

/**
 * sim_rl_env_get_simulation:
 *
 * Returns: (transfer none) (nullable): the episode's simulation (its
 *   report once it has ended), %NULL before the first reset.
 */
SimSimulation *sim_rl_env_get_simulation (SimRlEnv *self);

/**
 * sim_rl_env_get_total_reward:
 *
 * Returns: the sum of the episode's rewards so far.
 */
double sim_rl_env_get_total_reward (SimRlEnv *self);

/**
 * sim_rl_env_get_steps:
 *
 * Returns: the episode's steps so far.
 */
guint64 sim_rl_env_get_steps (SimRlEnv *self);

/**
 * sim_rl_env_is_done:
 *
 * Returns: whether no episode is under way (before a reset, after the end).
 */
gboolean sim_rl_env_is_done (SimRlEnv *self);

G_END_DECLS
