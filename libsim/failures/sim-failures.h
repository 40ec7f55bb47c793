/* sim-failures.h: hardware and software failures, checkpoints, repair and
 * hot spares (not installed).
 *
 * The model.  Every component of the cluster fails by a renewal process
 * of its type: exponential or Weibull times between failures (mean
 * `<type>_mtbf`, Weibull shape `<type>_shape`, 1 being exponential), the
 * clock restarting when the component is repaired.  The types and their
 * counts: gpu and hbm (one per GPU), nvswitch (nvswitches_per_node per
 * node), nic and cable (nics_per_node per node), node (the host: CPU,
 * memory, disks, power supply), software (per node: a crash of the
 * training stack), leaf (one per nodes_per_leaf consecutive nodes),
 * spine and core (spines, cores).  Rates come from a failure profile in
 * the catalogue (models/failures/NAME.ini, [failures] profile = NAME; the
 * default is llama3-h100, rates derived from Llama 3's 54 days on 16,384
 * H100s) and each key can be overridden in the scenario's [failures]
 * section.  A failure log (`log = FILE.csv`, rows of time and component)
 * replaces the random processes by the failures it lists.  seed_offset
 * draws other failures from the same scenario seed, the workload kept.
 *
 * Blast radius.  A failure of a node's part (gpu, hbm, nvswitch, nic,
 * cable, node) takes the node out of service until repaired; a leaf takes
 * all its nodes off the network; a spine or core switch interrupts the
 * jobs whose nodes sit under more than one leaf (their collectives cross
 * it) and takes no node out; a software failure interrupts the jobs on
 * its node, which is back as soon as it is detected.  Jobs hit lose the
 * work since their last checkpoint at the instant of the failure and wait
 * for detection (detect_time), then rejoin the queue owing a restart
 * (restart_time plus reading their checkpoint back).  With drain =
 * migrate, the other jobs on a node that lost one GPU are checkpointed
 * and moved off it when the fault is detected (they lose nothing and pay
 * a checkpoint and a restart); with drain = kill they are interrupted with
 * it.
 *
 * Repair.  Once a fault is detected, its component is repaired after a
 * time drawn from repair_distribution (exponential, lognormal with
 * repair_sigma, or fixed) with the type's mean `<type>_repair`.  With
 * `spares = N`, the last N nodes of the cluster are hot spares, out of
 * service: a node taken out is replaced by a free spare swap_time after
 * the fault is detected, and once repaired it becomes a spare itself.  A
 * repaired node that was not replaced comes back after `quarantine` (0:
 * at once), so that placement avoids nodes with recent faults; with
 * `avoid_recent` instead, it comes back after that time or as soon as a
 * job waits in the queue, whichever is first: such nodes are used only
 * when the others cannot serve.
 * mode = self-healing (the default) detects in 2 min, swaps spares in
 * 2 min, restarts jobs in 5 min and migrates; mode = manual waits 2 h for
 * an operator, swaps in 4 h, restarts in 30 min and kills (each key may
 * still be set).
 *
 * Checkpoints.  A job writes a checkpoint after every checkpoint_interval
 * of progress (young-daly: Daly's optimum for the job's own mean time
 * between failures, from the rates of the components it spans), each
 * costing checkpoint_size (per GPU) x its GPUs / storage_bandwidth.
 * Checkpoint and restart costs are counted as work at the job's reference
 * speed, the remaining work being inflated by the checkpoints still to
 * write.  The storage is not shared: concurrent writes do not slow each
 * other.
 *
 * Timeline (`gpusim run --timeline`, report/sim-timeline.h): a failure is
 * an instant (category "failure") on its component's track (a thread of
 * its node's process, "GPU 3 faults", "NIC 2", "host", or of the process
 * "fabric" for switches), its outage a slice ("outage") from the failure
 * to the repair holding its detection ("detection") and its repair
 * ("repair"); a spare's swap is a slice on the spare's node track.  A job
 * run ends at its interruption ("end": "interrupted", with the cause, an
 * instant "interruption" on each GPU; "migrated" for a drain) and its
 * restart is a new run; on the job's track, each run shows its restart
 * and its checkpoints, placed at the run's mean rate, and an interrupted
 * run its wait for the detection.  time series (timeseries.csv) gain a
 * column `interruptions` (jobs interrupted in the interval).
 *
 * Metrics (summary.json, `gpusim compare --metric`): failures and
 * failures_TYPE (every failure), interruptions and interruptions_TYPE
 * (jobs interrupted, counted per job), migrations, lost_gpu_hours (work
 * redone), checkpoint_gpu_hours, restart_gpu_hours, ettr (effective
 * training time ratio: useful time over the time from each job's first
 * start to its end or the end of the run, weighted by GPUs),
 * availability_TYPE (the share of component-time up), spares_used,
 * checkpoint_interval_s (the mean over started jobs).  jobs.csv gains a
 * column `ettr`.
 *
 * Events are a binary heap of the module's own (failures, detections,
 * swaps, repairs, quarantines), ordered by time then by insertion, behind
 * one simulation timer set to its earliest: O(log n) per event for n
 * components, and a failure only looks at the running jobs.  One
 * exponential process per type with a uniform draw of the component was
 * rejected: it cannot hold Weibull's ageing nor the clock stopped during
 * repair.
 */
#pragma once

#include "kernel/sim-simulation.h"
#include "report/sim-metrics.h"

#include "core/sim-keys.h"
G_BEGIN_DECLS

/* Component types, in report order. */
typedef enum {
  SIM_FAILURE_GPU,
  SIM_FAILURE_HBM,
  SIM_FAILURE_NVSWITCH,
  SIM_FAILURE_NIC,
  SIM_FAILURE_CABLE,
  SIM_FAILURE_NODE,
  SIM_FAILURE_SOFTWARE,
  SIM_FAILURE_LEAF,
  SIM_FAILURE_SPINE,
  SIM_FAILURE_CORE,
  SIM_FAILURE_N_TYPES
} SimFailureType;

/* The type's name in keys and metrics ("gpu", ...). */
const char *sim__failure_type_name (SimFailureType type);

typedef struct _SimFailuresConfig SimFailuresConfig;

/* The [failures] section as written: its keys (sim__failures_key_table,
 * sim-keys.h), each checked when set (errors say what was expected; the
 * scenario adds file, line and key). */
SimFailuresConfig *sim__failures_config_new (void);
gboolean sim__failures_config_set (SimFailuresConfig *config, const char *key, const char *value,
                                   GError **error);
/* Resolves a relative log path against BASE_DIR; FALSE with the key to
 * blame in *KEY when a file named cannot be read. */
gboolean sim__failures_config_check (SimFailuresConfig *config, const char *base_dir,
                                     const char **key, GError **error);
void     sim__failures_config_free (SimFailuresConfig *config);

typedef struct _SimFailures SimFailures;

/* Attaches the failure model of the scenario's [failures] (nothing without
 * one) to SIM's cluster, as an accumulator added to SIM (which owns it):
 * it tells arriving jobs their checkpoints, interrupts and holds jobs
 * through the kernel's services, and says why a run ended.  Reads the
 * profile from the catalogue's directories and the log.  Errors:
 * SIM_ERROR_NOT_FOUND for an unknown profile; SIM_ERROR_INVALID for more
 * spares than nodes, a profile key out of range (profile file and key), a
 * log row that names an unknown type or component (log file and line). */
gboolean sim__failures_attach (SimSimulation *sim, guint flags, GError **error);

/* SIM's failure model, or NULL without a [failures] section. */
SimFailures *sim__failures_get (SimSimulation *sim);

/* A job arrives for the cluster (not one rejected, nor a serverless
 * function): its work grows by the checkpoints it will write. */
void sim__failures_job_arrived (SimFailures *failures, SimJob *job);

/* Whether node N is out of service now because of a fault (not counting
 * spares held in reserve). */
gboolean sim__failures_node_is_down (SimFailures *failures, guint node);

/* While the module takes JOB off its GPUs (its SIM_JOB_PREEMPTED event):
 * why, the type of the failed component ("gpu", ...) or "migration" (off
 * a node being drained); NULL for any other job or preemption.  F may be
 * NULL. */
const char *sim__failures_interruption (SimFailures *f, const SimJob *job);

/* Whether GPU G has failed now: its own fault (gpu, hbm) or one of its
 * node's parts, its node or its leaf (not a spine: the node is not out). */
gboolean sim__failures_gpu_is_failed (SimFailures *failures, guint gpu);

/* The checkpoint interval a job of N_GPUS GPUs gets (s; 0: none), and its
 * cost per checkpoint (s) and its mean time between failures (s). */
double sim__failures_interval_for (SimFailures *failures, guint n_gpus, double *cost_s,
                                   double *mtbf_s);

/* [failures], read into @scenario and checked, and freed. */
gboolean sim__failures_sections_read (const SimKeyReader *reader, SimScenario *scenario,
                                      GError **error);
void     sim__failures_sections_clear (SimScenario *scenario);

extern const SimKeyTable sim__failures_key_table;

G_END_DECLS
