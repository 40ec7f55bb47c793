/* sim-fgd-experiment.h: the fragmentation experiment of the FGD study.
 *
 * Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads
 * with Fragmentation Gradient Descent", USENIX ATC'23, compare placement
 * policies on Alibaba's openb cluster without replaying time: tasks are
 * drawn at random from a pod list and submitted one after another, none
 * ever leaves, until the GPU demand that has arrived reaches a share of the
 * cluster's GPU capacity (130% in the paper).  What is compared is the
 * allocation rate (allocated GPUs over GPU capacity) as demand grows: a
 * policy that fragments the cluster fails tasks while GPUs are still free.
 *
 * Here the experiment is a library function with two variants.
 *
 * %SIM_FGD_VARIANT_PAPER (the default) runs it as the study's own
 * simulator does (its semantics are detailed in the README and in
 * libsim/sched/sim-fgd-paper.h): the whole pod list, CPU-only pods
 * included, shuffled and topped up (or trimmed) to the stop share; every
 * node of the list in list order; the paper's six score plugins with their
 * integer scores, normalisations (CPU by 128,000 milli-cores, GPU by 8,000
 * milli-GPUs), tie-breaking by node name (names the simulator prefixes
 * with a random number at each seed) and GPU choice; FGD's fragmentation
 * over the typical task types (those covering 95% of the pods), GPU-model
 * constraints honoured.  Its ten-seed means are within 0.22 point of the
 * paper's published ones on the default and gpushare100 lists.
 *
 * %SIM_FGD_VARIANT_GPUSIM is gpusim's own reading, kept for comparing any
 * registered placement (first-fit, topology-aware...) in the same
 * experiment; the rest of this comment describes it.  From a node list it
 * builds a cluster of the GPU nodes (CPU-only nodes are left out and counted), one
 * pool per distinct (GPU model, GPUs per node), nodes in file order within
 * their pool.  For each seed one random stream ("fgd-tasks", derived from
 * the seed) draws pods uniformly, with replacement, among those asking for
 * GPUs; every policy sees the same task sequence at a given seed.  A task
 * is placed whole on one node or fails (it is counted and not retried); it
 * may go only to a node with enough free CPU and memory, and, if its
 * gpu_spec lists GPU models, whose model is one of them.
 *
 * Fragmentation is a reading of the paper's measure.  For a node n and a
 * task m, the free GPU capacity of n that m cannot use, F_n(m), is all of
 * n's free GPU capacity if m cannot run on n at all (not enough CPU, memory or
 * GPUs with room, or a model m does not accept); otherwise the free part
 * of those GPUs that have less room than m asks of each GPU (for a
 * whole-GPU task, every partly used GPU).  The node's fragmentation is the
 * expectation over the task population, F_n = sum_m p_m F_n(m), where the
 * task types m (pods of equal CPU, memory, GPU count, GPU share and model
 * list) have the popularity p_m they have in the pod list; the cluster's
 * is the sum over nodes.  It is reported as a share of GPU capacity.
 *
 * Results are deterministic: the same inputs give byte-identical tables,
 * JSON and CSV, whatever the number of threads.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "sched/sim-fgd-run.h"

G_BEGIN_DECLS

/**
 * sim_fgd_paper_policies:
 *
 * The placement policies of the paper's comparison, as registered
 * placements: "random", "dot-product", "clustering", "packing", "best-fit"
 * and "fgd", %NULL-terminated.
 */
extern const char *const sim_fgd_paper_policies[];

/**
 * SimFgdVariant:
 * @SIM_FGD_VARIANT_PAPER: as the study's own simulator runs it; the
 *   policies are the six of sim_fgd_paper_policies
 * @SIM_FGD_VARIANT_GPUSIM: gpusim's reading: GPU pods only, drawn with
 *   replacement; GPU nodes pooled by model; any registered placement
 *
 * How the experiment is run.
 */
typedef enum {
  SIM_FGD_VARIANT_PAPER = 0,
  SIM_FGD_VARIANT_GPUSIM = 1,
} SimFgdVariant;

/**
 * sim_fgd_variant_to_string:
 * @variant: a variant
 *
 * Returns: (transfer none): "paper" or "gpusim".
 */
const char *sim_fgd_variant_to_string (SimFgdVariant variant);

/**
 * sim_fgd_variant_from_string:
 * @name: "paper" or "gpusim"
 * @variant: (out): the variant
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_INVALID naming the known variants.
 *
 * Returns: %TRUE if @name is a variant.
 */
gboolean sim_fgd_variant_from_string (const char *name, SimFgdVariant *variant, GError **error);

/**
 * SimFgdProgressFunc:
 * @done: runs (policy, seed) finished
 * @total: runs in all
 * @data: the caller's pointer
 *
 * Called after each run, from the thread that ran it, never from two
 * threads at once.
 */
typedef void (*SimFgdProgressFunc) (guint done, guint total, gpointer data);

/**
 * SimFgdConfig:
 * @policies: (array length=n_policies): placement names
 * @n_policies: their number, at least 1
 * @n_seeds: seeds per policy, at least 1
 * @first_seed: the seeds are @first_seed, @first_seed + 1, ...
 * @stop_share: stop once arrived GPU demand reaches this share of GPU
 *   capacity (1.30 in the paper); in (0, 100]
 * @sample_step: record a sample each time arrived demand crosses a
 *   multiple of this share of capacity (0.01: every 1%); in (0, @stop_share].
 *   100% and @stop_share are always sample points.
 * @n_threads: runs executed in parallel; 0 for one per processor
 * @ignore_gpu_spec: let tasks go to any GPU model whatever their gpu_spec
 * @progress: (nullable) (scope call): called after each run
 * @progress_data: its data
 * @variant: how the experiment is run (0, the default: as the paper)
 * @ties_in_list_order: paper variant: break ties between nodes by their
 *   plain names (the list's order for openb) rather than as the study's
 *   simulator does, by names it prefixes with a random number at each seed
 *   (a random order of the nodes, fixed for the run)
 */
typedef struct {
  const char *const *policies;
  guint    n_policies;
  guint    n_seeds;
  guint64  first_seed;
  double   stop_share;
  double   sample_step;
  guint    n_threads;
  gboolean ignore_gpu_spec;
  SimFgdProgressFunc progress;
  gpointer progress_data;
  SimFgdVariant variant;
  gboolean ties_in_list_order;
} SimFgdConfig;

/**
 * SimFgdStat:
 * @mean: mean over seeds
 * @ci95: half-width of the 95% confidence interval of the mean (Student's
 *   t with n - 1 degrees of freedom); 0 with a single seed
 */
typedef struct {
  double mean;
  double ci95;
} SimFgdStat;

/**
 * SimFgdPolicySummary:
 * @policy: the placement's name
 * @allocated: allocation rate at each of the result's @n_points sample
 *   points
 * @fragmented: fragmented share at each of those points
 * @allocated_at_full: allocation rate when arrived demand reaches 100% of
 *   capacity (the mean is NaN if @stop_share is below 1)
 * @allocated_at_stop: allocation rate at the end
 * @fragmented_at_stop: fragmented share at the end
 * @unallocated_at_stop: unallocated GPUs at the end
 * @failed_tasks: failed tasks at the end
 */
typedef struct {
  char       *policy;
  SimFgdStat *allocated;
  SimFgdStat *fragmented;
  SimFgdStat  allocated_at_full;
  SimFgdStat  allocated_at_stop;
  SimFgdStat  fragmented_at_stop;
  SimFgdStat  unallocated_at_stop;
  SimFgdStat  failed_tasks;
} SimFgdPolicySummary;

/**
 * SimFgdResult:
 * @n_nodes: nodes in the cluster (GPU nodes only in the gpusim variant)
 * @n_gpus: GPUs in the cluster
 * @n_cpu_only_nodes: nodes of the list without GPUs: left out (gpusim),
 *   part of the cluster for CPU-only pods (paper; also in @n_nodes)
 * @n_pods: pods in the list
 * @n_gpu_pods: pods asking for GPUs (the population tasks are drawn from
 *   in the gpusim variant; the paper's draws from every pod)
 * @n_task_types: distinct task types among them (gpusim); the typical
 *   task types FGD weighs (paper)
 * @stop_share: as configured
 * @sample_step: as configured
 * @first_seed: as configured
 * @n_seeds: as configured
 * @points: (array length=n_points): the sample points, increasing, from 0
 *   to @stop_share
 * @n_points: their number
 * @runs: (array length=n_runs): policy by policy, seed by seed
 * @n_runs: n_policies x n_seeds
 * @summaries: (array length=n_policies): one per policy, in the order given
 * @n_policies: their number
 * @variant: as configured
 * @ties_in_list_order: as configured
 */
typedef struct {
  guint    n_nodes;
  guint    n_gpus;
  guint    n_cpu_only_nodes;
  guint    n_pods;
  guint    n_gpu_pods;
  guint    n_task_types;
  double   stop_share;
  double   sample_step;
  guint64  first_seed;
  guint    n_seeds;
  double  *points;
  guint    n_points;
  SimFgdRun *runs;
  guint    n_runs;
  SimFgdPolicySummary *summaries;
  guint    n_policies;
  SimFgdVariant variant;
  gboolean ties_in_list_order;
} SimFgdResult;

/**
 * sim_fgd_result_free: (skip)
 */
void sim_fgd_result_free (SimFgdResult *result);

/**
 * sim_fgd_experiment_run: (skip)
 * @nodes: (element-type SimOpenbNode): the node list
 * @pods: (element-type SimOpenbPod): the pod list
 * @config: the policies, seeds and stopping point
 * @error: return location for a #GError
 *
 * Runs every (policy, seed) pair and summarises them.  Policy names are
 * checked before anything runs.
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown policy, listing the known
 * ones (for the paper variant, the six of sim_fgd_paper_policies);
 * SIM_ERROR_INVALID for a configuration out of range, a node list
 * without GPU nodes, a node with more than %SIM_CLUSTER_MAX_GPUS_PER_NODE
 * GPUs, or a pod list without GPU pods; SIM_ERROR_STATE if a policy
 * returns a placement that is not on one node with room for the task.
 *
 * Time complexity: O(policies x seeds x tasks x (cost of one placement +
 * task types x GPUs per node)), tasks being about @stop_share x GPUs / mean
 * GPU demand of a pod; in the paper variant a placement scores every node,
 * O(nodes), and FGD's score of a node costs O(typical types x GPUs per
 * node) when the node changed since that task type last came.
 *
 * The result does not depend on @n_threads.
 *
 * Returns: (transfer full) (nullable): the result, or %NULL on error.
 */
SimFgdResult *sim_fgd_experiment_run (const GPtrArray *nodes, const GPtrArray *pods,
                                      const SimFgdConfig *config, GError **error);

/**
 * sim_fgd_result_format_table:
 * @result: a result
 *
 * The cluster, the task population and one row per policy: allocation
 * rate at 100% and at the end (mean and 95% CI), failed tasks,
 * fragmented share and unallocated GPUs at the end.
 *
 * Returns: (transfer full): the text.
 */
char *sim_fgd_result_format_table (const SimFgdResult *result);

/**
 * sim_fgd_result_format_curve:
 * @result: a result
 * @every: print every @every-th sample point (at least 1); the last point
 *   is always printed
 *
 * The allocation rate against arrived demand: one row per sample point,
 * one column (mean and 95% CI) per policy.
 *
 * Returns: (transfer full): the text.
 */
char *sim_fgd_result_format_curve (const SimFgdResult *result, guint every);

/**
 * sim_fgd_result_to_json:
 * @result: a result
 * @pretty: indent the output
 *
 * Everything in the table and the curves of every policy (mean and 95%
 * CI at every sample point).
 *
 * Returns: (transfer full): the JSON text.
 */
char *sim_fgd_result_to_json (const SimFgdResult *result, gboolean pretty);

/**
 * sim_fgd_result_write_csv:
 * @result: a result
 * @path: the file to write
 * @error: return location for a #GError
 *
 * Writes one row per run and sample point (long format) with the header
 * policy,seed,arrived_share,allocated_share,fragmented_share.  The file is
 * written whole or not at all (temporary file, then rename).
 *
 * Errors: SIM_ERROR_IO naming the path.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_fgd_result_write_csv (const SimFgdResult *result, const char *path, GError **error);

/**
 * sim_fgd_paper_reference:
 * @pod_list: "default" or "gpushare100" (the openb pod lists
 *   openb_pod_list_default.csv and openb_pod_list_gpushare100.csv)
 * @policy: one of sim_fgd_paper_policies
 * @arrived_share: 0.90, 1.00, 1.10, 1.20 or 1.30
 * @allocated_share: (out) (optional): the paper's allocation rate there
 *
 * The study's published figures: the mean GPU allocation rate over its
 * ten seeds (42 to 51) on the 1,213 GPU nodes of openb, as its artifact
 * records them (Weng et al., ATC'23, Fig. 7 and 11; artifact
 * hkust-adsl/kubernetes-scheduler-simulator,
 * experiments/analysis/expected_results/analysis_allo_discrete.csv).
 *
 * Returns: %TRUE if there is a figure for these arguments.
 */
gboolean sim_fgd_paper_reference (const char *pod_list, const char *policy,
                                  double arrived_share, double *allocated_share);

/**
 * sim_fgd_reference_list_of:
 * @pod_list_path: the path of a pod list
 *
 * Which published pod list a file is, by its name: "default" for
 * openb_pod_list_default.csv, "gpushare100" for
 * openb_pod_list_gpushare100.csv (optionally gzipped).
 *
 * Returns: (transfer none) (nullable): the name, or %NULL.
 */
const char *sim_fgd_reference_list_of (const char *pod_list_path);

/**
 * sim_fgd_result_format_against_paper:
 * @result: a result of the paper variant
 * @pod_list: "default" or "gpushare100"
 *
 * The allocation rate of each policy at 90, 100, 110, 120 and 130% of
 * arrived demand, each beside the paper's figure and the difference, and
 * whether the policies rank as in the paper at 130%.  Points the result
 * does not have, or policies the paper has no figure for, print "-".
 *
 * Returns: (transfer full) (nullable): the text, or %NULL if @pod_list
 *   has no reference.
 */
char *sim_fgd_result_format_against_paper (const SimFgdResult *result, const char *pod_list);

/**
 * sim_fgd_experiment_run_files:
 * @nodes_path: an openb node list
 * @pods_path: an openb pod list
 * @policies: (array zero-terminated=1) (nullable): placement names; %NULL
 *   for the paper's six
 * @n_seeds: seeds per policy, at least 1
 * @first_seed: the first seed
 * @stop_share: stop share (1.30 in the paper)
 * @sample_step: sample step (0.01)
 * @variant: "paper" or "gpusim"
 * @n_threads: runs in parallel; 0 for one per processor
 * @error: return location for a #GError
 *
 * Reads both lists and runs the experiment, for bindings: the result as
 * sim_fgd_result_to_json() gives it, with a member "paper" holding the
 * published figures (see sim_fgd_paper_reference()) when @pods_path is a
 * published list and @variant is "paper".
 *
 * Errors: those of sim_openb_read_nodes(), sim_openb_read_pods(),
 * sim_fgd_variant_from_string() and sim_fgd_experiment_run().
 *
 * Returns: (transfer full) (nullable): the JSON text, or %NULL on error.
 */
char *sim_fgd_experiment_run_files (const char *nodes_path, const char *pods_path,
                                    const char *const *policies, guint n_seeds,
                                    guint64 first_seed, double stop_share, double sample_step,
                                    const char *variant, guint n_threads, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimFgdResult, sim_fgd_result_free)

G_END_DECLS
