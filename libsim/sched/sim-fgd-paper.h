/* sim-fgd-paper.h: the FGD experiment as the study's own simulator runs it
 * (private to the library; sim-fgd-experiment.c is its only user).
 *
 * Weng et al. (ATC'23) ran their comparison on a Kubernetes scheduler
 * simulator.  What that simulator does, and what this engine does the same
 * way:
 *
 * - The cluster is the node list, every node in list order (CPU-only nodes
 *   included: they may take CPU-only pods).
 * - The task sequence of a seed is the whole pod list, CPU-only pods
 *   included, in name order and then shuffled; if its GPU demand exceeds
 *   the target (stop share x GPU capacity), random pods are removed until
 *   it does not; otherwise pods drawn uniformly from the list, with
 *   replacement, are appended while the demand stays within the target.
 *   No task ever leaves and a task that does not fit is not retried.
 * - A node is feasible for a task if it has the task's CPU and memory free
 *   and, for a GPU task, GPUs of an accepted model, as many of them with
 *   the task's share free as the task asks for.
 * - Every feasible node gets an integer score in 0..100 from the policy's
 *   plugin; the highest wins, ties going to the node whose name comes first.
 *   The simulator prefixes every node's name with a distinct random number
 *   drawn at each seed (pkg/simulator/simulator.go, syncClusterResourceList),
 *   so ties go to nodes in a random order fixed for the run; optionally, to
 *   the plain names (byte order, the list's order for openb).  Normalisations: CPU
 *   by 128,000 milli-cores and GPU by 8,000 milli-GPUs (one 8-GPU node).
 *     random       one feasible node, uniformly;
 *     dot-product  100 (1 - (c_free c_req + g_free g_req) / 2), vectors
 *                  normalised as above (CPU and GPU only);
 *     clustering   by the kinds of GPU task already on the node (shared,
 *                  1-GPU, 2-GPU...): 75 + if only the task's kind, 50 + if
 *                  it and others, 25 + if none, 0 + if only others, plus
 *                  25 x allocated share of 8 GPUs; 0 for CPU-only tasks;
 *     packing      idle node: max(33 - free GPUs, free GPUs); task takes
 *                  fully free GPUs of a used node: max(50 - their number,
 *                  33); else 100 - (free share of the GPUs it takes)/10,
 *                  at least 50; 0 for CPU-only tasks;
 *     best-fit     100 (1 - (c_free - c_req)/2 - (g_free - g_req)/2), then
 *                  rescaled so the lowest feasible node gets 0 and the
 *                  highest 100 (all 0 when equal), in integers;
 *     fgd          100 sigmoid((F_before - F_after) / 1000), F the node's
 *                  fragmentation (below) in milli-GPUs.
 * - The GPUs inside the chosen node: whole-GPU tasks take the first fully
 *   free GPUs; a shared task takes, for random, a uniformly chosen GPU with
 *   room; for fgd, the GPU that gives the best score (the first on ties);
 *   for the others, the GPU with the least room that fits (the first on
 *   ties).
 * - Fragmentation F of a node: over the typical task types m (the most
 *   popular (CPU, GPU count, GPU share, GPU models) combinations of the pod
 *   list, CPU-only ones included, taken in decreasing popularity until
 *   they cover 95% of the pods, popularity renormalised over them), the sum
 *   of p_m times the node's free GPU capacity that m cannot use: the free
 *   capacity of GPUs with less room than m's share if the node can take m
 *   (GPU model accepted, enough such GPUs, CPU), else all of it (CPU-only
 *   types never use GPUs, so all of it).
 */
#pragma once

#include <glib.h>
#include "sched/sim-fgd-run.h"

G_BEGIN_DECLS

typedef struct _SimFgdPaper SimFgdPaper;

/* The six policies of the study, in the study's order. */
extern const char *const sim__fgd_paper_policy_names[];

/* Prepares the inputs shared read-only by every run.  Errors:
 * SIM_ERROR_INVALID for a node with more than 8 GPUs, more than 64 GPU
 * models, a node list without GPUs, or an empty pod list. */
SimFgdPaper *sim__fgd_paper_new (const GPtrArray *nodes, const GPtrArray *pods,
                                 gboolean ignore_gpu_spec, GError **error);
void sim__fgd_paper_free (SimFgdPaper *paper);

guint   sim__fgd_paper_n_nodes (const SimFgdPaper *paper);
guint   sim__fgd_paper_n_cpu_only_nodes (const SimFgdPaper *paper);
guint   sim__fgd_paper_n_gpus (const SimFgdPaper *paper);
guint   sim__fgd_paper_n_gpu_pods (const SimFgdPaper *paper);
guint   sim__fgd_paper_n_typical_types (const SimFgdPaper *paper);

/* Whether @name is one of the six; SIM_ERROR_NOT_FOUND listing them if not. */
gboolean sim__fgd_paper_check_policy (const char *name, GError **error);

/* One run: fills @out (policy, seed, samples at @points, whose thresholds
 * in milli-GPUs of arrived demand are @thresholds; points the sequence
 * ends before are recorded with the final state). */
gboolean sim__fgd_paper_run (const SimFgdPaper *paper, const char *policy, guint64 seed,
                             double stop_share, gboolean ties_in_list_order,
                             const double *points, const guint64 *thresholds, guint n_points,
                             SimFgdRun *out, GError **error);

/* For tests: places the pods @pods (positions in the pod list as given)
 * one after another on a fresh cluster; @nodes_out[k] is the node
 * (position in the node list) pod k went to, or -1 if it did not fit,
 * @gpus_out[k] the GPUs it took (bit g for GPU g); @fragmentation_out, if
 * not NULL, the cluster's fragmentation at the end, in milli-GPUs. */
gboolean sim__fgd_paper_place_pods (const SimFgdPaper *paper, const char *policy, guint64 seed,
                                    gboolean ties_in_list_order, const guint *pods, guint n_pods, gint *nodes_out,
                                    guint *gpus_out, double *fragmentation_out,
                                    GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimFgdPaper, sim__fgd_paper_free)

G_END_DECLS
