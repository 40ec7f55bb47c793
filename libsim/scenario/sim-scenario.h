/* sim-scenario.h: what-if scenarios, read from GLib key files.
 *
 * A scenario file has these groups (sections):
 *
 *   [scenario]    name, description, seed, horizon, models
 *   [pool NAME]   model, count, gpu, gpus_per_node, sharing (one or more); or
 *                 from = pai-machines:PATH | philly-vcs:PATH (a pool per machine
 *                 shape or virtual cluster, from a trace's machine list), misc_gpu
 *   [cluster]     sharing = time-slice | mps, timeslice_overhead, mps_overhead
 *                 (how jobs with fractional requests share a GPU: sim-sharing.h)
 *   [workload]    source = synthetic | swf | philly | helios | slurm | openb | pai |
 *                 gavel | native, and the source's keys (pai: task_table, pai_tasks;
 *                 gavel: a [class JOB TYPE] throughput per job type)
 *   [class NAME]  share, gpus, duration, estimate_factor, activity,
 *                 memory_bound, gpu_share (shared GPUs: sim-sharing.h), and a
 *                 communication profile (iteration, gradient, tensor_parallel,
 *                 tp_bytes, pipeline_parallel, pp_bytes, overlap)
 *   [comm NAME]   share and a profile: drawn for jobs that have none
 *   [policy]      queue, placement, interval, backfill_interval, and the keys the
 *                 chosen policy reads
 *   [output]      timeseries_interval, jobs, timeseries
 *   [fabric]      topology, switch, link, oversubscription, ... (the
 *                 keys of sim_fabric_config_keys())
 *   [cost]        cloud, amortization, maintenance, energy_price, ... (the
 *                 keys of sim_cost_config_keys(): power/sim-cost.h)
 *   [variant NAME] section.key = value overrides, for `gpusim compare`
 *   [elastic]     pool, cloud, scale_up_queue, scale_up_wait, startup,
 *                 scale_down_delay, max_nodes, step, price_per_node_hour,
 *                 min_billing: a cloud pool the cluster bursts into
 *                 (power/sim-elastic.h)
 *   [serverless]  cold_start, keep_warm, price_per_gpu_second,
 *                 invocation_fee, bill_cold_start, max_gpus, max_duration:
 *                 jobs run as serverless GPU functions (a [class] with
 *                 serverless = true, or trace jobs within the limits)
 *   [rl]          reward, window, node_slots, placements, node_actions: the
 *                 reinforcement-learning environment's set-up (sim-rl-env.h);
 *                 the simulation itself ignores them
 *   [power_manager] enable, threshold, low_cap, hold, raise_after, baseline:
 *                 the DCGM-style cap manager (power/sim-power-manager.h)
 *   [facility]    max_power, limit_mode = cap | hold, min_cap, baseline: the
 *                 facility power limit (power/sim-facility-limit.h)
 *
 * Every section declares its keys in a table beside the code that reads it
 * (type, unit, range, default, one line of documentation); `gpusim keys`
 * prints them (sim_scenario_dup_key_reference()) and docs/keys.md is that
 * reference.  [sweep] is read by the sweep (sweep/sim-sweep.h), but its
 * keys are checked here too.
 *
 * Quantities carry units and are parsed strictly ("90s", "7d", "80GB",
 * "30/h").  Unknown groups and keys are refused with a "did you mean"
 * suggestion from the section's table.  Every error names the file, the line where the key is, the
 * group and key, and what was expected, e.g.
 *
 *   quick.ini:12: [workload] rate: "30" has no unit: expected a rate such as "30/h"
 *
 * Parsing produces plain structs with SI units; nothing is looked up in
 * the catalogue until a simulation is built, except that `gpusim validate`
 * does that too.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "core/sim-units.h"
#include "workload/sim-workload.h"
#include "workload/sim-traces.h"
#include "workload/sim-openb.h"
#include "workload/sim-trace-formats.h"
#include "fabric/sim-topology.h"
#include "cluster/sim-sharing.h"

G_BEGIN_DECLS

/**
 * SimCostCapacityBasis:
 * @SIM_COST_CAPACITY_RATED: the cluster's rated IT power: the node models'
 *   maximum power (or base power plus GPU TDPs) and the switches' power
 * @SIM_COST_CAPACITY_PEAK: the peak IT power the run draws (the power model
 *   must be on: a [power] section)
 *
 * What the cooling plant and the electrical capacity are sized on.
 */
typedef enum {
  SIM_COST_CAPACITY_RATED,
  SIM_COST_CAPACITY_PEAK,
} SimCostCapacityBasis;

/**
 * SimCostConfig:
 * @enabled: the scenario has a [cost] section
 * @cloud: (nullable): the cloud instance model to rent (`cloud`); %NULL:
 *   the catalogue's instance built like the first pool's node model, or
 *   with its GPU model and count
 * @amortization: the period capex is amortized over (`amortization`,
 *   "5y", "1826d"); default 5 years of 365.25 days
 * @maintenance: maintenance per year as a share of capex (`maintenance`,
 *   "0.05" or "5%"); default 0
 * @energy_price: flat energy price in USD per kWh (`energy_price`); 0 when
 *   not given
 * @energy_price_file: (nullable): a time-of-use price schedule
 *   (`energy_price_file`), an absolute path
 * @carbon_intensity: flat carbon intensity in kgCO2e per kWh
 *   (`carbon_intensity`); 0 when not given
 * @carbon_intensity_file: (nullable): a carbon intensity schedule
 *   (`carbon_intensity_file`), an absolute path
 * @start_weekday: the weekday at simulated time 0, 0 = Monday
 *   (`start_weekday`, mon..sun)
 * @start_hour: the hour of day at simulated time 0, in [0, 24)
 *   (`start_hour`)
 * @cooling_usd_per_kw: cooling plant capex per kW of capacity
 *   (`cooling_usd_per_kw`); default 0
 * @electrical_usd_per_kw: electrical capacity capex (switchgear, UPS,
 *   distribution) per kW (`electrical_usd_per_kw`); default 0
 * @capacity_basis: what those are sized on (`capacity_basis = rated |
 *   peak`)
 * @cable_price: USD per fabric cable (`cable_price`), when
 *   @set_cable_price; else the fabric link model's price
 * @transceiver_price: USD per optical transceiver (`transceiver_price`);
 *   default 0
 * @set_cable_price: @cable_price was given
 * @cloud_price: (nullable): a price per GPU-hour to rent at instead of
 *   @cloud (`cloud_price = 2.5/GPU-h`), or one per GPU model
 *   (`H100: 2.5/GPU-h, A100: 1.2/GPU-h`), as written; the first pool's GPU
 *   model chooses
 *
 * A scenario's [cost] section.  Zero or %NULL fields take the defaults
 * above.
 */
typedef struct {
  gboolean enabled;
  char    *cloud;
  SimTime  amortization;
  double   maintenance;
  double   energy_price;
  char    *energy_price_file;
  double   carbon_intensity;
  char    *carbon_intensity_file;
  guint    start_weekday;
  double   start_hour;
  double   cooling_usd_per_kw;
  double   electrical_usd_per_kw;
  SimCostCapacityBasis capacity_basis;
  double   cable_price;
  double   transceiver_price;
  gboolean set_cable_price;
  char    *cloud_price;
} SimCostConfig;

/**
 * SimPoolConfig:
 * @name: the pool's name (from [pool NAME])
 * @node_model: catalogue node model
 * @gpu_model: (nullable): GPU model replacing the node's
 * @gpus_per_node: GPUs per node, 0 for the model's
 * @count: number of nodes
 * @sharing: how its GPUs are shared by fractional jobs, a #SimSharingMode,
 *   or -1 for the [cluster] section's
 * @cpu_milli: CPU of each node in thousandths of a core, from a machine
 *   list; 0 for the node model's
 * @memory_bytes: memory of each node, from a machine list; 0 for the node
 *   model's
 * @from_group: (nullable): for a pool made from a list, the section it
 *   comes from ("pool NAME"), for messages
 * @gpu_key: (nullable): the key of that section that gives its GPU model
 *   ("gpu", "misc_gpu" or "from"); %NULL for "gpu"
 *
 * A pool of identical nodes.  A `[pool NAME]` with `from = pai-machines:PATH`
 * or `from = philly-vcs:PATH` becomes several pools, one per machine shape
 * or virtual cluster, named "NAME-SHAPE".
 */
typedef struct {
  char  *name;
  char  *node_model;
  char  *gpu_model;
  guint  gpus_per_node;
  guint  count;
  gint   sharing;
  guint64 cpu_milli;
  guint64 memory_bytes;
  char  *from_group;
  const char *gpu_key;
} SimPoolConfig;

/**
 * SimCommMix:
 * @name: the profile's name (from [comm NAME])
 * @share: its relative weight
 * @profile: the profile
 *
 * One entry of the mix of communication profiles drawn for jobs that come
 * without one (trace jobs, or synthetic classes without comm keys).
 */
typedef struct {
  char          *name;
  double         share;
  SimCommProfile profile;
} SimCommMix;

/**
 * SimVariant:
 * @name: its name (from [variant NAME])
 * @overrides: (array zero-terminated=1): "section.key=value" strings,
 *   after a first element "[variant NAME]" (see sim_scenario_load())
 *
 * A named set of changes to the scenario, compared side by side by
 * `gpusim compare SCENARIO` (e.g. 1:1 against 2:1 oversubscription).
 */
typedef struct {
  char  *name;
  char **overrides;
} SimVariant;

/*
 * SimRlConfig:
 * @reward: the [rl] reward as a #SimRlReward value, -1 when not given
 * @window: the observation's window of waiting jobs, 0 when not given
 * @node_slots: the observation's node slots, 0 when not given
 * @placements: (nullable): the placements a start may use, %NULL when not
 *   given (names checked when an environment is made)
 * @node_actions: whether "start job k at node slot s" actions are offered,
 *   -1 when not given
 *
 * The [rl] section: how sim_rl_env_new() sets up an environment when its
 * arguments leave a choice to the scenario.
 */
typedef struct {
  gint    reward;
  guint   window;
  guint   node_slots;
  char  **placements;
  gint    node_actions;
} SimRlConfig;

/**
 * SimElasticConfig:
 * @enabled: the scenario has an [elastic] section
 * @pool: the cloud pool's name (a [pool NAME] of the scenario): its nodes
 *   are out of service until the autoscaler brings them up
 * @cloud: (nullable): a cloud instance of the catalogue ([cloud] models)
 *   whose on-demand price is the price per node-hour when
 *   @price_per_node_hour is not given
 * @scale_up_queue: scale up when at least this many jobs wait; 0: not a
 *   trigger
 * @scale_up_wait: scale up when the job that has waited longest has waited
 *   this long; 0: not a trigger
 * @startup: from the decision to scale up to the nodes taking jobs
 * @scale_down_delay: a cloud node idle this long is released
 * @max_nodes: cloud nodes held at most at once (0: bursting off), or -1 for
 *   the whole pool
 * @step: nodes requested per scale-up
 * @price_per_node_hour: USD per node-hour, billed per second from request
 *   to release; -1 when not given (then from @cloud)
 * @min_billing: the least time a requested node is billed for
 *
 * The [elastic] section: a cloud pool the cluster bursts into when its
 * queue or its wait passes a threshold (power/sim-elastic.h).
 */
typedef struct {
  gboolean enabled;
  char    *pool;
  char    *cloud;
  guint    scale_up_queue;
  SimTime  scale_up_wait;
  SimTime  startup;
  SimTime  scale_down_delay;
  gint     max_nodes;
  guint    step;
  double   price_per_node_hour;
  SimTime  min_billing;
} SimElasticConfig;

/**
 * SimServerlessConfig:
 * @enabled: the scenario has a [serverless] section
 * @cold_start: the time a function takes to start on a new instance
 * @keep_warm: how long an instance stays warm after an execution (a start
 *   within it is warm: no cold start); 0: every start is cold
 * @price_per_gpu_second: USD per GPU-second, billed per second
 * @invocation_fee: USD per execution
 * @bill_cold_start: whether the cold start is billed as well
 * @max_gpus: jobs of any class asking for at most this many GPUs run as
 *   functions (with @max_duration); 0: no such rule
 * @max_duration: jobs at most this long run as functions (with
 *   @max_gpus); 0: no such rule
 *
 * The [serverless] section: GPU functions billed per execution, for jobs
 * of a [class] marked `serverless = true` or within the limits
 * (power/sim-elastic.h).
 */
typedef struct {
  gboolean enabled;
  SimTime  cold_start;
  SimTime  keep_warm;
  double   price_per_gpu_second;
  double   invocation_fee;
  gboolean bill_cold_start;
  guint    max_gpus;
  SimTime  max_duration;
} SimServerlessConfig;

/**
 * SimWorkloadSource:
 * @SIM_SOURCE_SYNTHETIC: the built-in generator
 * @SIM_SOURCE_SWF: a Standard Workload Format trace
 * @SIM_SOURCE_PHILLY: the Microsoft Philly job list
 * @SIM_SOURCE_HELIOS: a Helios (SenseTime) cluster_log.csv
 * @SIM_SOURCE_SLURM: Slurm accounting (sacct --parsable2)
 * @SIM_SOURCE_OPENB: an Alibaba openb pod list, replayed in time
 * @SIM_SOURCE_PAI: an Alibaba PAI 2020 job table with its task table
 * @SIM_SOURCE_GAVEL: a Gavel job trace, steps through per-class throughputs
 * @SIM_SOURCE_NATIVE: gpusim's own job CSV
 */
typedef enum {
  SIM_SOURCE_SYNTHETIC,
  SIM_SOURCE_SWF,
  SIM_SOURCE_PHILLY,
  SIM_SOURCE_HELIOS,
  SIM_SOURCE_SLURM,
  SIM_SOURCE_OPENB,
  SIM_SOURCE_PAI,
  SIM_SOURCE_GAVEL,
  SIM_SOURCE_NATIVE,
} SimWorkloadSource;

/**
 * SimPowerManagerConfig:
 * @enabled: the scenario has a [power_manager] section whose enable is not
 *   false
 * @threshold: the activity (0 to 1, as DCGM reports it) below which a GPU
 *   counts as underused
 * @low_cap_w: the cap an underused GPU gets, W
 * @hold: how long a GPU's activity must stay below @threshold before its
 *   cap is lowered
 * @raise_after: how long its activity must stay at or above @threshold
 *   before the cap is lifted again; 0: at once
 * @baseline: also run the scenario without the manager, for the energy it
 *   saves and the completion time it costs
 * @present: the scenario has the section (its metrics are reported, as 0
 *   when it is off, so that variants with it off and on compare)
 *
 * The [power_manager] section (power/sim-power-manager.h).
 */
typedef struct {
  gboolean present;
  gboolean enabled;
  double   threshold;
  double   low_cap_w;
  SimTime  hold;
  SimTime  raise_after;
  gboolean baseline;
} SimPowerManagerConfig;

/**
 * sim_power_manager_config_init:
 * @config: (out caller-allocates): the configuration to fill
 *
 * Sets the defaults: off, threshold 50 %, low cap 150 W, hold 5 min, raise
 * at once, with a baseline run.
 */
void sim_power_manager_config_init (SimPowerManagerConfig *config);

/**
 * SimFacilityLimitMode:
 * @SIM_FACILITY_LIMIT_CAP: cap every GPU alike, as little as keeps the
 *   facility at its limit
 * @SIM_FACILITY_LIMIT_HOLD: keep jobs waiting while starting them would
 *   take the facility over its limit
 *
 * How the facility power limit is kept.
 */
typedef enum {
  SIM_FACILITY_LIMIT_CAP,
  SIM_FACILITY_LIMIT_HOLD,
} SimFacilityLimitMode;

/**
 * SimFacilityConfig:
 * @max_power_w: the facility's power limit, W; 0: none
 * @limit_mode: how it is kept, a #SimFacilityLimitMode
 * @min_cap_share: cap mode: the lowest cap it may set, as a share of each
 *   GPU's TDP
 * @baseline: also run the scenario without the limit, for the completion
 *   time it costs
 * @present: the scenario has the section (its metrics are reported, as 0
 *   when there is no limit, so that variants with and without compare)
 *
 * The [facility] section (power/sim-facility-limit.h).
 */
typedef struct {
  gboolean present;
  double   max_power_w;
  gint     limit_mode;
  double   min_cap_share;
  gboolean baseline;
} SimFacilityConfig;

/**
 * sim_facility_config_init:
 * @config: (out caller-allocates): the configuration to fill
 *
 * Sets the defaults: no limit, cap mode, lowest cap 30 % of TDP, with a
 * baseline run.
 */
void sim_facility_config_init (SimFacilityConfig *config);

/**
 * SimPowerConfig:
 * @enabled: the scenario has a [power] section whose enable is not false
 * @clock_exponent: k in c = f^k, the share of a busy GPU's dynamic power at
 *   clock f (power/sim-power.h); > 0
 * @memory_power: the share of a busy GPU's dynamic power it draws while its
 *   work waits on memory, [0, 1]
 * @clock_limit: the GPUs' clock limit as a share of their maximum, (0, 1];
 *   1: none
 * @gpu_cap_w: a power cap on every GPU, W; 0: none
 * @gpu_cap_share: a power cap on every GPU as a share of its TDP; 0: none
 * @sleep_after: an idle node falls asleep after this long; 0: never
 * @wake_time: how long a job placed on a sleeping node waits for it
 * @psu_efficiency: replaces every node model's power-supply efficiency; 0:
 *   the catalogue's
 * @sleep_power_w: replaces every node model's sleep power; < 0: the
 *   catalogue's
 * @electrical_efficiency: the facility's power distribution (UPS,
 *   transformers), (0, 1]: facility power = (IT + cooling) / it
 * @transceiver_power_w: replaces every link model's power per optical
 *   transceiver; < 0: the catalogue's
 *
 * The [power] section of a scenario.
 */
typedef struct {
  gboolean enabled;
  double   clock_exponent;
  double   memory_power;
  double   clock_limit;
  double   gpu_cap_w;
  double   gpu_cap_share;
  SimTime  sleep_after;
  SimTime  wake_time;
  double   psu_efficiency;
  double   sleep_power_w;
  double   electrical_efficiency;
  double   transceiver_power_w;
} SimPowerConfig;

/**
 * sim_power_config_init:
 * @config: (out caller-allocates): the configuration to fill
 *
 * Sets the defaults: power off, k = 3, mu = 0.5, no clock limit nor cap,
 * no sleep, the catalogue's efficiencies and sleep power, power
 * distribution 95 % efficient.
 */
void sim_power_config_init (SimPowerConfig *config);

/**
 * SimOutdoorKind:
 * @SIM_OUTDOOR_CONSTANT: one temperature all the time
 * @SIM_OUTDOOR_CURVE: a daily and seasonal cosine around a mean
 * @SIM_OUTDOOR_CSV: hourly (or any) steps read from a CSV file
 *
 * Where the outdoor temperature comes from ([cooling] outdoor).
 */
typedef enum {
  SIM_OUTDOOR_CONSTANT,
  SIM_OUTDOOR_CURVE,
  SIM_OUTDOOR_CSV,
} SimOutdoorKind;

/**
 * SimCoolingConfig:
 * @enabled: the scenario has a [cooling] section
 * @model: the cooling model's name in the catalogue (its type: air,
 *   liquid, immersion, or a user's own model)
 * @crah_fan: replaces the model's, or NAN
 * @chiller_cop: replaces the model's, or NAN
 * @economizer_c: replaces the model's, or NAN
 * @liquid_share: replaces the model's, or NAN
 * @liquid_pumps: replaces the model's, or NAN
 * @dry_cooler: replaces the model's, or NAN
 * @server_fans: replaces the model's, or NAN
 * @misc: replaces the model's, or NAN
 * @outdoor: where the outdoor temperature comes from
 * @outdoor_c: the constant temperature, or the curve's annual mean, in
 *   degrees C
 * @daily_swing: the curve's daily half-range, K (warmest at 15:00)
 * @seasonal_swing: the curve's yearly half-range of daily means, K
 * @warmest_day: the curve's warmest day of the year, from 0 (1 January,
 *   where simulated time starts)
 * @step: the curve is held constant over steps this long
 * @outdoor_csv: (nullable): the CSV file of time and temperature rows,
 *   absolute
 *
 * The [cooling] section of a scenario (power/sim-cooling.h).
 */
typedef struct {
  gboolean       enabled;
  char          *model;
  double         crah_fan;
  double         chiller_cop;
  double         economizer_c;
  double         liquid_share;
  double         liquid_pumps;
  double         dry_cooler;
  double         server_fans;
  double         misc;
  SimOutdoorKind outdoor;
  double         outdoor_c;
  double         daily_swing;
  double         seasonal_swing;
  double         warmest_day;
  SimTime        step;
  char          *outdoor_csv;
} SimCoolingConfig;

/**
 * SimScenario:
 *
 * A parsed, validated scenario.  Reference-counted; fields are read-only.
 */
typedef struct {
  /*< private >*/
  gint   ref_count;
  gpointer lines;       /* where each key is, for later messages */
  GHashTable *overridden;
  /*< public >*/
  char    *path;            /* the file, or a name given for in-memory data */
  char    *base_dir;        /* relative paths in the file are relative to this */
  char    *name;
  char    *description;
  guint64  seed;
  SimTime  horizon;         /* SIM_TIME_NEVER: run until the workload drains */
  char   **model_dirs;      /* absolute; searched after the default path */

  SimPoolConfig *pools;
  guint          n_pools;
  SimSharingConfig sharing;  /* [cluster]: how fractional jobs share a GPU */
  SimTime  mig_reconfigure_time; /* [cluster]: the wall time of creating a MIG instance */

  SimWorkloadSource  source;
  char              *reference_gpu; /* (nullable) the GPU durations are measured on;
                                     * NULL: the first pool's */
  SimGeneratorConfig generator;
  char              *trace_path; /* absolute */
  SimSwfConfig       swf;
  SimPhillyConfig    philly;
  SimTraceConfig     trace;      /* helios, slurm, pai, gavel, native */
  char              *task_path;  /* pai: the task table, absolute */
  SimPaiTasks        pai_tasks;  /* pai: how tasks become a job's GPUs */
  guint              variation;  /* a trace: what each seed varies (workload/sim-variation.h's
                                  * SimVariationKind); 0: nothing */
  SimTime            variation_time; /* its windows' length or its jitter's reach */
  char             **tenant_names; /* (nullable) VCs from philly-vcs, tenants 0, 1, ... */
  double            *tenant_gpus;  /* their GPUs (the fair-share quotas) */
  SimCommMix        *comm_mix;
  guint              n_comm_mix;
  SimFabricConfig    fabric;     /* kind SIM_FABRIC_NONE without a [fabric] section */
  SimCostConfig      cost;       /* [cost]: not enabled without the section */
  SimVariant        *variants;
  guint              n_variants;
  SimRlConfig        rl;         /* [rl]: the environment's set-up, not the run's */
  SimElasticConfig   elastic;    /* [elastic]: bursting into a cloud pool */
  SimServerlessConfig serverless; /* [serverless]: jobs run as GPU functions */

  char    *queue;           /* queue order name */
  char    *placement;       /* placement name */
  GHashTable *policy_params; /* other [policy] keys -> values, for the policy */
  char    *plugin;          /* (nullable) a policy plugin, absolute path; wins over queue/placement */
  SimTime  sched_interval;  /* scheduling cycle: decisions at its multiples only; 0: at every event */
  SimTime  backfill_interval; /* easy: backfill only at its multiples; 0: in every pass */
  double   moldable_efficiency; /* [policy] moldable_efficiency: moldable jobs take at most
                                 * the most GPUs whose efficiency (speed-up / GPUs) reaches it;
                                 * 0: the most that fit */

  SimTime  sample_interval; /* time-series interval */
  gboolean write_jobs;
  gboolean write_timeseries;

  SimPowerManagerConfig power_manager; /* [power_manager] */
  SimFacilityConfig facility;          /* [facility] */
  SimPowerConfig power;     /* [power] */
  SimCoolingConfig cooling; /* [cooling] */
  /*< private >*/
  struct _SimFailuresConfig *failures; /* [failures] (failures/sim-failures.h), or NULL */
  struct _SimServeSections *serving;   /* [serving NAME] (serve/sim-serve-module.h), or NULL */
  char   **node_lists;      /* (nullable) the lists of [pool] from, absolute, which no
                             * output may overwrite */
} SimScenario;

GType sim_scenario_get_type (void) G_GNUC_CONST;
#define SIM_TYPE_SCENARIO (sim_scenario_get_type ())

/**
 * sim_scenario_load:
 * @path: a scenario file
 * @overrides: (nullable) (array zero-terminated=1): "group.key=value"
 *   strings applied on top of the file, as `gpusim run --set` does.  An
 *   element "[variant NAME]" says that the overrides after it come from
 *   the file's own [variant NAME] section (errors then give that
 *   section's file and line), "[--set]" that they come from the user
 *   again; a #SimVariant's overrides begin with such an element
 * @error: return location for a #GError
 *
 * Reads and validates a scenario.
 *
 * Errors: SIM_ERROR_IO if the file cannot be read; SIM_ERROR_PARSE,
 * SIM_ERROR_INVALID, SIM_ERROR_MISSING or SIM_ERROR_UNKNOWN_KEY with the
 * file, line, group and key.
 *
 * Returns: (transfer full) (nullable): the scenario.
 */
SimScenario *sim_scenario_load (const char *path, const char * const *overrides,
                                GError **error);

/**
 * sim_scenario_load_from_data:
 * @data: the text of a scenario
 * @length: its length, or -1 if nul-terminated
 * @name: the name to use in messages (like a file name)
 * @base_dir: (nullable): directory for relative paths; %NULL for the
 *   current directory
 * @overrides: (nullable) (array zero-terminated=1): as sim_scenario_load()
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the scenario.
 */
SimScenario *sim_scenario_load_from_data (const char *data, gssize length, const char *name,
                                          const char *base_dir, const char * const *overrides,
                                          GError **error);

/**
 * sim_scenario_dup_key_reference:
 * @section: (nullable): a section, such as "power", "[power]" or
 *   "[class NAME]"; %NULL for every section
 * @markdown: %TRUE for Markdown (a heading and a table per section),
 *   %FALSE for plain text (a line per key, its documentation below)
 * @error: return location for a #GError
 *
 * Describes the keys a scenario section takes: each key's name, type,
 * unit, range, default and meaning, from the tables the scenario reader
 * checks keys against (so the reference cannot drift from what is
 * accepted).  `gpusim keys` prints it.
 *
 * Errors: SIM_ERROR_NOT_FOUND if no section has that name (the message
 * names the closest).
 *
 * Time complexity: O(k) for the k keys printed.
 *
 * Returns: (transfer full) (nullable): the text.
 */
char *sim_scenario_dup_key_reference (const char *section, gboolean markdown, GError **error);

SimScenario *sim_scenario_ref (SimScenario *scenario);

void         sim_scenario_unref (SimScenario *scenario);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimScenario, sim_scenario_unref)

G_END_DECLS
