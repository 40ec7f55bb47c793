/* sim-openb.h: readers of Alibaba's openb GPU cluster trace (v2023).
 *
 * The trace (cluster-trace-gpu-v2023, used by the FGD fragmentation study,
 * Weng et al., ATC'23) comes as CSV files with one header line: node lists
 * (sn, cpu_milli, memory_mib, gpu, model) and pod lists (name, cpu_milli,
 * memory_mib, num_gpu, gpu_milli, gpu_spec, qos, pod_phase, creation_time,
 * deletion_time, scheduled_time).  Columns are found by name in the header,
 * in any order; a missing, repeated or unknown column is refused, except
 * that a whole pod list (sim_openb_read_pods()) needs only the first five
 * (name, cpu_milli, memory_mib, num_gpu, gpu_milli), the form some
 * published openb lists take: a missing gpu_spec means any GPU model, a
 * missing qos or pod_phase is empty, missing times are -1.  Every
 * row must have as many fields as the header; numbers must be non-negative
 * decimal integers; gpu_milli must lie in 0..1000 and be below 1000 only
 * for pods of exactly one GPU (a fractional GPU).  A whole list must have
 * a row, and names each node (sn) or pod (name) once.  Errors are
 * SIM_ERROR_TRACE (SIM_ERROR_IO if the file cannot be read) and name the
 * file, the line, the column of the field (1-based, in characters) and the
 * column's name: "pods.csv:12:31: num_gpu: "x" is not an integer".
 *
 * Two ways in: whole lists (sim_openb_read_nodes(), sim_openb_read_pods()),
 * for experiments that draw from the pod population, and a streaming
 * #SimWorkload (sim_workload_new_openb()) that replays pods in time.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "workload/sim-workload.h"

G_BEGIN_DECLS

/**
 * SimOpenbNode:
 * @sn: the node's serial name, e.g. "openb-node-0000"
 * @cpu_milli: CPU capacity in thousandths of a vCPU
 * @memory_mib: memory capacity in MiB
 * @gpus: GPUs in the node (0 for a CPU-only node)
 * @model: the trace's GPU model name ("V100M16", "G2"...); "" for a
 *   CPU-only node
 *
 * One row of a node list.
 */
typedef struct {
  char   *sn;
  guint64 cpu_milli;
  guint64 memory_mib;
  guint32 gpus;
  char   *model;
} SimOpenbNode;

/**
 * SimOpenbPod:
 * @name: the pod's unique name
 * @cpu_milli: CPU request in thousandths of a vCPU
 * @memory_mib: memory request in MiB
 * @num_gpu: GPUs requested
 * @gpu_milli: share of each GPU in thousandths (1000: whole GPUs)
 * @gpu_spec: (array zero-terminated=1): the GPU models the pod may run on,
 *   as the trace names them; empty (never %NULL) when any model will do
 * @qos: "LS", "BE", "Burstable" or "Guaranteed"
 * @pod_phase: "Running", "Failed", "Pending" or "Succeeded"
 * @creation_time: seconds from the start of the trace, or -1 if the list
 *   has no creation_time column
 * @deletion_time: seconds from the start of the trace, or -1 if empty
 * @scheduled_time: seconds from the start of the trace, or -1 if empty
 *   (pending pods)
 *
 * One row of a pod list.
 */
typedef struct {
  char   *name;
  guint64 cpu_milli;
  guint64 memory_mib;
  guint32 num_gpu;
  guint32 gpu_milli;
  char  **gpu_spec;
  char   *qos;
  char   *pod_phase;
  gint64  creation_time;
  gint64  deletion_time;
  gint64  scheduled_time;
} SimOpenbPod;

void sim_openb_node_free (SimOpenbNode *node);
void sim_openb_pod_free (SimOpenbPod *pod);

/**
 * sim_openb_read_nodes:
 * @path: a node list, e.g. openb_node_list_gpu_node.csv
 * @error: return location for a #GError
 *
 * Reads a whole node list.  A row with GPUs must name their model; a row
 * without GPUs may leave it empty.
 *
 * Errors: SIM_ERROR_IO if the file cannot be read; SIM_ERROR_TRACE for a
 * malformed header or row, naming the file, line and column.
 *
 * Time complexity: O(rows).
 *
 * Returns: (transfer full) (element-type SimOpenbNode) (nullable): the
 *   nodes in file order, freed with the array; %NULL on error.
 */
GPtrArray *sim_openb_read_nodes (const char *path, GError **error);

/**
 * sim_openb_read_pods:
 * @path: a pod list, e.g. openb_pod_list_default.csv
 * @error: return location for a #GError
 *
 * Reads a whole pod list.  Row order is kept; it is not checked.  The
 * columns after gpu_milli may be missing (a five-column list).
 *
 * Errors: as sim_openb_read_nodes().
 *
 * Time complexity: O(rows).
 *
 * Returns: (transfer full) (element-type SimOpenbPod) (nullable): the pods
 *   in file order, freed with the array; %NULL on error.
 */
GPtrArray *sim_openb_read_pods (const char *path, GError **error);

/**
 * sim_openb_gpu_model_to_catalogue:
 * @model: a GPU model as the trace names it
 *
 * Maps the trace's GPU model names to catalogue names: P100 -> P100,
 * T4 -> T4, V100M16 -> V100-16GB, V100M32 -> V100-32GB, A10 -> A10.  The
 * undisclosed models (G2, G3) and any other name are returned unchanged.
 *
 * Returns: (transfer none): the catalogue name.
 */
const char *sim_openb_gpu_model_to_catalogue (const char *model);

/**
 * SimOpenbConfig:
 * @max_jobs: stop after this many jobs; 0 for all
 * @skip_invalid: skip (and count) pods without a deletion time or whose
 *   deletion time is before their creation time, instead of failing
 * @rebase_time: subtract the first job's creation time from every
 *   submission time
 *
 * How a pod list becomes jobs.  Pods without GPUs (num_gpu 0) are always
 * skipped and counted: the simulator places GPU jobs only.
 */
typedef struct {
  guint64  max_jobs;
  gboolean skip_invalid;
  gboolean rebase_time;
} SimOpenbConfig;

/**
 * sim_workload_new_openb: (skip)
 * @path: an openb pod list, rows in order of creation_time
 * @config: how to map it (copied)
 * @error: return location for a #GError
 *
 * A streaming source that replays the pods in time: one row is read each
 * time sim_workload_next() asks for a job.  A job is submitted at the
 * pod's creation_time, runs for deletion_time - creation_time (at least
 * 1 ns), on num_gpu GPUs of gpu_milli thousandths each, with the pod's CPU
 * and memory, and its gpu_spec as catalogue names in @gpu_models; its id
 * is its line number.  Scheduled times, phases and QoS are not used.
 *
 * Errors: SIM_ERROR_IO if the file cannot be opened; SIM_ERROR_TRACE for
 * a malformed header (here) or row (later, from sim_workload_next()), a
 * creation time that goes backwards, or a pod without a valid deletion
 * time when @config does not skip them, naming the file and line.
 *
 * Returns: (transfer full) (nullable): the reader.
 */
SimWorkload *sim_workload_new_openb (const char *path, const SimOpenbConfig *config,
                                     GError **error);

/**
 * sim_workload_openb_skipped:
 * @workload: a workload
 * @no_gpu: (out) (optional): pods skipped for having no GPU
 * @invalid: (out) (optional): pods skipped for having no valid deletion time
 *
 * Returns: pods skipped so far, in all (openb sources only, else 0).
 */
guint64 sim_workload_openb_skipped (const SimWorkload *workload, guint64 *no_gpu,
                                    guint64 *invalid);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimOpenbNode, sim_openb_node_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimOpenbPod, sim_openb_pod_free)

G_END_DECLS
