/* sim-llm.h: large-language-model training as planners describe it.
 *
 * A model (layers, widths, heads, vocabulary, experts), a parallel layout
 * (tensor, pipeline, context, expert and data parallelism, micro-batches,
 * ZeRO stage, recomputation, precision) and a cluster with its fabric give
 * the time of one training step, its FLOPs, the memory each GPU needs and
 * the time of every collective the layout implies; a token budget gives
 * the time and cost to train.
 *
 * The model catalogue.  A model is a GLib key file whose first group is
 * [llm], in the `llm` folder of any directory of the hardware catalogue's
 * search path (sim_catalogue_default_path(), then a scenario's `models`),
 * so that models/llm/llama3-70b.ini is found as "llama3-70b" and a user's
 * own folder may add or replace models.  A scenario may also describe a
 * model inline, in an [llm NAME] section with the same keys.
 *
 * FLOPs.  The model FLOPs of one token are those of the forward pass
 * times three (the backward pass does twice the forward's matrix
 * products): per layer, 2 FLOPs per weight of the attention projections
 * and of the feed-forward network (the experts a token is routed to, for
 * a mixture of experts), plus 4 s d FLOPs for the attention scores and
 * their product with the values (s the sequence length, d the query
 * width, without the causal mask's saving, as Narayanan et al. count
 * them); plus 2 h V for the output layer.  For GPT-3 this gives
 * Narayanan et al.'s closed form 72 B s l h^2 (1 + s/(6h) + V/(12 l h))
 * per batch of B sequences; full recomputation adds a forward pass
 * (their 96 B s l h^2 (1 + s/(6h) + V/(16 l h))), which counts in the
 * achieved TFLOP/s (what they report) but not in the MFU (which counts
 * the model's FLOPs only, as PaLM defined it).
 *
 * Time.  Each matrix product a GPU does is timed by a roofline that
 * composes smoothly: t = sqrt(t_math^2 + t_memory^2) + a launch overhead,
 * where t_math is its FLOPs at the GPU's dense peak times a large-GEMM
 * efficiency for its architecture, and t_memory the bytes of its three
 * operands at the GPU's memory bandwidth.  A GEMM whose sides tensor
 * parallelism shrinks has a lower arithmetic intensity, so MFU falls as
 * tensor parallelism grows, as measured.  Element-wise work (norms,
 * activations, dropout, residuals, the attention scores when they are
 * materialised) moves the bytes of the activations it reads and writes at
 * the memory bandwidth.  Flash attention keeps the scores on chip and runs
 * at its own share of the peak.
 *
 * The pipeline runs the 1F1B schedule: with m micro-batches per step, p
 * stages and v virtual stages per GPU (interleaving), a step takes
 * (m + (p - 1) / v) times one micro-batch's forward and backward on the
 * slowest stage, the bubble being (p - 1) / (v m) of the useful work.
 *
 * Collectives are timed with the fabric's collective model
 * (fabric/sim-collective.h) on the GPUs of one group of the layout, placed
 * as Megatron-LM places ranks (tensor parallelism fastest, then context,
 * data, pipeline): tensor-parallel all-reduce (or, with sequence
 * parallelism, all-gather and reduce-scatter) twice per layer in each
 * direction; pipeline send/receive of one micro-batch's activations
 * between neighbouring stages; data-parallel reduce-scatter of the
 * gradients and all-gather of the parameters (ZeRO 1 and 2), an
 * all-reduce (ZeRO 0), or per-layer gathers on every micro-batch (ZeRO 3);
 * the context-parallel ring's exchange of keys and values; the experts'
 * all-to-all dispatch and combine.  What is hidden: the gradient
 * reduction behind the last micro-batch's backward pass and the parameter
 * gather behind the first one's forward pass (Megatron-LM's overlapped
 * buckets), the context-parallel exchange behind the attention it feeds,
 * a given share of the tensor-parallel traffic, and, interleaved, a
 * chunk's pipeline messages behind the other chunks' compute; everything
 * else is exposed.
 *
 * Memory per GPU, on the most loaded stage: the weights (2 bytes each),
 * the gradients (4 bytes each, FP32 accumulation) and the optimizer's FP32
 * master weights and Adam moments (12 bytes each), divided over the data
 * parallel ranks as the ZeRO stage says; the activations of the
 * micro-batches in flight in 1F1B (p, or p (1 + (p-1)/(p v)) interleaved)
 * per Korthikanti et al. (MLSys 2023) with grouped-query attention and
 * gated feed-forward networks taken into account; the output layer's FP32
 * logits on the last stage; and a fixed reserve for the CUDA context,
 * communication buffers and the allocator's fragmentation.  A layout that
 * does not fit the GPU's memory is refused with these numbers.
 *
 * Not modelled: the causal mask's saving in flash attention's time, load
 * imbalance between experts, optimizer-step overlap, FP8 weight copies
 * (FP8 only speeds the matrix products), uneven stages (fewer layers on
 * the first and last), and stragglers.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "fabric/sim-topology.h"

G_BEGIN_DECLS

/**
 * SimLlmModel:
 * @name: the model's name, e.g. "llama3-70b"
 * @description: (nullable): a line of text
 * @source_file: (nullable): the file it was read from, %NULL inline
 * @layers: transformer layers
 * @hidden: the model width h
 * @ffn_hidden: the feed-forward network's inner width (of the dense layers)
 * @heads: attention (query) heads
 * @kv_heads: key/value heads (grouped-query attention); @heads if equal
 * @head_dim: the width of one head; @hidden / @heads unless given
 * @vocab: the vocabulary V
 * @seq_length: the training sequence length s
 * @gated_ffn: a gated feed-forward network (SwiGLU: three matrices)
 * @tied_embeddings: the output layer shares the input embedding's weights
 * @q_lora_rank: multi-head latent attention: the query compression rank, 0
 *   without MLA
 * @kv_lora_rank: MLA's key/value compression rank, 0 without MLA
 * @qk_rope_dim: MLA's decoupled rotary key width per head
 * @experts: routed experts per MoE layer, 0 for a dense model
 * @experts_per_token: routed experts each token goes to
 * @shared_experts: experts every token goes to, in MoE layers
 * @moe_ffn_hidden: one expert's inner width; @ffn_hidden unless given
 * @dense_layers: the first layers that are dense in a MoE model
 * @parameters: the published parameter count, 0 if not given
 * @context: the longest sequence, prompt and answer, the model serves (its
 *   context window); @seq_length unless given
 *
 * A decoder-only transformer.
 */
typedef struct {
  char    *name;
  char    *description;
  char    *source_file;
  guint    layers;
  guint    hidden;
  guint    ffn_hidden;
  guint    heads;
  guint    kv_heads;
  guint    head_dim;
  guint    vocab;
  guint    seq_length;
  gboolean gated_ffn;
  gboolean tied_embeddings;
  guint    q_lora_rank;
  guint    kv_lora_rank;
  guint    qk_rope_dim;
  guint    experts;
  guint    experts_per_token;
  guint    shared_experts;
  guint    moe_ffn_hidden;
  guint    dense_layers;
  double   parameters;
  guint    context;
} SimLlmModel;

/**
 * sim_llm_model_load: (skip)
 * @name: a model's name (any case), or the path of a model file (a name
 *   ending in ".ini" or holding a '/')
 * @extra_dirs: (nullable) (array zero-terminated=1): catalogue directories
 *   searched after the default path (each one's `llm` folder)
 * @error: return location for a #GError
 *
 * Finds and reads a model.  The last file found on the path wins.
 *
 * Errors: SIM_ERROR_NOT_FOUND naming the folders searched and the closest
 * known model; SIM_ERROR_PARSE, SIM_ERROR_INVALID, SIM_ERROR_MISSING or
 * SIM_ERROR_UNKNOWN_KEY for a bad file, naming the file, line and key.
 *
 * Returns: (transfer full) (nullable): the model, or %NULL.
 */
SimLlmModel *sim_llm_model_load (const char *name, const char * const *extra_dirs,
                                 GError **error);

/**
 * sim_llm_model_free: (skip)
 */
void sim_llm_model_free (SimLlmModel *model);

/**
 * sim_llm_model_list: (skip)
 * @extra_dirs: (nullable) (array zero-terminated=1): more directories
 *
 * Returns: (transfer full): the names of the models on the path, sorted;
 *   free with g_strfreev().
 */
char **sim_llm_model_list (const char * const *extra_dirs);

/**
 * sim_llm_model_parameters: (skip)
 * @model: a model
 *
 * Returns: the parameters computed from the architecture: embeddings,
 *   attention, feed-forward networks (every expert), norms.
 */
double sim_llm_model_parameters (const SimLlmModel *model);

/**
 * sim_llm_model_active_parameters: (skip)
 * @model: a model
 *
 * Returns: the parameters one token meets: as sim_llm_model_parameters()
 *   with only the experts a token is routed to.
 */
double sim_llm_model_active_parameters (const SimLlmModel *model);

/**
 * sim_llm_model_flops_per_token: (skip)
 * @model: a model
 * @seq_length: the sequence length (0: the model's)
 *
 * Returns: the model FLOPs of training on one token (forward and backward,
 *   no recomputation), as described above.
 */
double sim_llm_model_flops_per_token (const SimLlmModel *model, guint seq_length);

/**
 * SimLlmRecompute:
 * @SIM_LLM_RECOMPUTE_NONE: every activation is kept
 * @SIM_LLM_RECOMPUTE_SELECTIVE: the attention's inner activations are
 *   recomputed (Korthikanti et al.); flash attention does the same
 * @SIM_LLM_RECOMPUTE_FULL: only each layer's input is kept; the forward
 *   pass runs again in the backward pass
 */
typedef enum {
  SIM_LLM_RECOMPUTE_NONE,
  SIM_LLM_RECOMPUTE_SELECTIVE,
  SIM_LLM_RECOMPUTE_FULL,
} SimLlmRecompute;

/**
 * SimLlmPrecision:
 * @SIM_LLM_PRECISION_BF16: matrix products in BF16
 * @SIM_LLM_PRECISION_FP8: matrix products in FP8 (Transformer Engine), on
 *   GPUs that have an FP8 peak
 */
typedef enum {
  SIM_LLM_PRECISION_BF16,
  SIM_LLM_PRECISION_FP8,
} SimLlmPrecision;

/**
 * SimLlmLayout:
 * @tp: tensor-parallel degree
 * @pp: pipeline-parallel degree (stages)
 * @cp: context-parallel degree
 * @ep: expert-parallel degree (within the data-parallel ranks)
 * @dp: data-parallel degree; 0: the GPUs left over
 * @virtual_stages: model chunks per pipeline stage (interleaved 1F1B)
 * @micro_batch: sequences per micro-batch
 * @global_batch: sequences per step
 * @seq_length: tokens per sequence; 0: the model's
 * @zero_stage: 0 (replicated), 1 (optimizer states sharded: Megatron's
 *   distributed optimizer), 2 (and gradients), 3 (and weights: FSDP)
 * @sequence_parallel: norms and dropout split across the tensor-parallel
 *   group (all-gather and reduce-scatter instead of all-reduce)
 * @recompute: activation recomputation
 * @precision: the matrix products' precision
 * @flash_attention: attention scores kept on chip (FlashAttention)
 * @tp_overlap: the share of tensor-parallel traffic hidden behind matrix
 *   products (Megatron-Core's userbuffer overlap); 0 to 1
 * @overlap_grad_reduce: the gradient reduction overlaps the last
 *   micro-batch's backward pass, the parameter gather the first's forward
 * @gpus: the GPUs the layout takes; 0: tp pp cp dp
 * @tokens: a token budget to train on; 0 for none
 *
 * A parallel layout and its batch.  Initialise with
 * sim_llm_layout_init().
 */
typedef struct {
  guint    tp, pp, cp, ep, dp;
  guint    virtual_stages;
  guint    micro_batch;
  guint    global_batch;
  guint    seq_length;
  guint    zero_stage;
  gboolean sequence_parallel;
  SimLlmRecompute recompute;
  SimLlmPrecision precision;
  gboolean flash_attention;
  double   tp_overlap;
  gboolean overlap_grad_reduce;
  guint    gpus;
  double   tokens;
} SimLlmLayout;

/**
 * sim_llm_layout_init: (skip)
 * @layout: (out caller-allocates): set to the defaults: no parallelism,
 *   one micro-batch of one sequence, ZeRO 1, sequence parallelism,
 *   selective recomputation, BF16, flash attention, no tensor-parallel
 *   overlap, overlapped gradient reduction
 */
void sim_llm_layout_init (SimLlmLayout *layout);

/**
 * sim_llm_layout_set: (skip)
 * @layout: a layout
 * @key: tp, pp, cp, ep, dp, virtual_stages, micro_batch, global_batch,
 *   seq_length, zero_stage, sequence_parallel, recompute (none, selective,
 *   full), precision (bf16, fp8), flash_attention, tp_overlap,
 *   overlap_grad_reduce, gpus or tokens (a count such as "15T")
 * @value: its value as text
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_UNKNOWN_KEY naming the closest key; SIM_ERROR_INVALID
 * saying what was expected.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_llm_layout_set (SimLlmLayout *layout, const char *key, const char *value,
                             GError **error);

/**
 * sim_llm_layout_parse: (skip)
 * @layout: a layout (its current values are kept where @text says nothing)
 * @text: "KEY=VALUE" pairs separated by commas or spaces, e.g.
 *   "tp=8, pp=4, micro_batch=1, global_batch=1024"
 *
 * Errors: as sim_llm_layout_set(), and SIM_ERROR_PARSE for a pair without
 * '='.
 */
gboolean sim_llm_layout_parse (SimLlmLayout *layout, const char *text, GError **error);

/**
 * SimLlmComm:
 * @SIM_LLM_COMM_TP: tensor parallelism
 * @SIM_LLM_COMM_PP: pipeline send/receive
 * @SIM_LLM_COMM_DP: data parallelism (gradients and parameters)
 * @SIM_LLM_COMM_CP: context parallelism (keys and values)
 * @SIM_LLM_COMM_EP: expert all-to-all
 * @SIM_LLM_COMM_N_KINDS: the number of kinds
 */
typedef enum {
  SIM_LLM_COMM_TP,
  SIM_LLM_COMM_PP,
  SIM_LLM_COMM_DP,
  SIM_LLM_COMM_CP,
  SIM_LLM_COMM_EP,
  SIM_LLM_COMM_N_KINDS,
} SimLlmComm;

/**
 * sim_llm_comm_to_string: (skip)
 * Returns: "tp", "pp", "dp", "cp" or "ep".
 */
const char *sim_llm_comm_to_string (SimLlmComm kind);

/**
 * SimLlmEstimate:
 *
 * One training step of a model on a layout.  Times in seconds, memory in
 * bytes, rates per second.  The memory parts are those of the GPU that
 * needs the most (a stage at the end of the pipeline, which holds the
 * embeddings or the output layer, or the first, which holds the most
 * micro-batches' activations).
 */
typedef struct {
  guint   gpus;
  guint   dp;
  guint   micro_batches;          /* per step, per data-parallel rank */
  double  iteration_time;
  double  compute_time;           /* the slowest stage's forward and backward, all micro-batches */
  double  bubble_time;            /* the pipeline's idle time */
  double  bubble_fraction;        /* (p - 1) / (v m) */
  double  optimizer_time;
  double  comm_time[SIM_LLM_COMM_N_KINDS];    /* per step, all of it */
  double  comm_exposed[SIM_LLM_COMM_N_KINDS]; /* per step, on the critical path */
  double  tokens_per_step;
  double  tokens_per_second;
  double  model_flops_per_step;   /* no recomputation */
  double  hardware_flops_per_step;/* with recomputation */
  double  tflops_per_gpu;         /* hardware FLOPs per GPU per second / 1e12 */
  double  mfu;                    /* model FLOPs over the GPUs' dense BF16 peak */
  double  gemm_efficiency;        /* the FLOP-weighted efficiency of the matrix products */
  double  memory_weights;
  double  memory_gradients;
  double  memory_optimizer;
  double  memory_activations;
  double  memory_logits;
  double  memory_reserved;
  double  memory_per_gpu;         /* the sum of the parts */
  double  memory_capacity;        /* the GPU's memory */
  double  parameters;             /* of the model */
  double  train_time;             /* the token budget's steps, s; 0 without a budget */
  double  train_steps;
  double  gpu_hours;
} SimLlmEstimate;

/**
 * SimLlmSystem:
 *
 * A cluster and its fabric seen by the training model: the GPU model, the
 * collective model on the topology, and a cache of collective times.
 */
typedef struct _SimLlmSystem SimLlmSystem;

/**
 * sim_llm_system_new: (skip)
 * @cluster: (transfer none): a cluster, which must outlive the system
 * @topology: (transfer none) (nullable): its network, which must outlive
 *   the system; %NULL: collectives are not timed (they take no time), for
 *   a caller that times the traffic itself (a job class in a run)
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_INVALID if the cluster's GPUs are not all of one
 * model.
 *
 * Returns: (transfer full) (nullable): the system.
 */
SimLlmSystem *sim_llm_system_new (SimCluster *cluster, SimTopology *topology, GError **error);

/**
 * sim_llm_system_free: (skip)
 */
void sim_llm_system_free (SimLlmSystem *system);

/**
 * sim_llm_system_get_gpu: (skip)
 * Returns: (transfer none): the GPU model of the system's cluster.
 */
const SimGpuModel *sim_llm_system_get_gpu (const SimLlmSystem *system);

/**
 * sim_llm_estimate: (skip)
 * @system: the cluster and fabric
 * @model: a model
 * @layout: a layout
 * @estimate: (out caller-allocates): filled, the memory parts too when the
 *   layout does not fit
 * @error: return location for a #GError
 *
 * Times one training step.  Time complexity: a few collective timings of
 * the layout's groups (each O(flows x path length), cached by size and
 * group), plus O(1).
 *
 * Errors: SIM_ERROR_INVALID for a layout that does not divide the model
 * (heads by tp, layers by pp v, the global batch by micro-batch dp,
 * experts by ep, ep by dp cp) or needs more GPUs than the cluster has;
 * SIM_ERROR_UNSATISFIABLE for a layout that does not fit the GPU's
 * memory, with the parts of the memory in the message.
 *
 * Returns: %TRUE if the layout runs.
 */
gboolean sim_llm_estimate (SimLlmSystem *system, const SimLlmModel *model,
                           const SimLlmLayout *layout, SimLlmEstimate *estimate, GError **error);

/**
 * SimLlmCandidate:
 * @layout: the layout
 * @estimate: its step
 *
 * One layout found by sim_llm_search().
 */
typedef struct {
  SimLlmLayout   layout;
  SimLlmEstimate estimate;
} SimLlmCandidate;

/**
 * sim_llm_search: (skip)
 * @system: the cluster and fabric
 * @model: a model
 * @base: the layout's fixed parts: the global batch, sequence, precision,
 *   and @gpus (the GPU count to search, 0: all of the cluster's)
 * @top: how many layouts to return
 * @n_tried: (out) (optional): the layouts timed
 * @error: return location for a #GError
 *
 * Times every layout of @base's GPU count: tensor parallelism within a
 * node (powers of two dividing the heads), pipeline degrees dividing the
 * layers, context parallelism 1, 2 or 4 when the sequence is long, expert
 * parallelism dividing the experts, data parallelism for the rest, every
 * micro-batch size dividing the batch, ZeRO 1 and 3, selective and full
 * recomputation; keeps those that fit, fastest first (ties broken by less
 * memory, then by the layout's degrees).
 *
 * Errors: SIM_ERROR_UNSATISFIABLE if no layout fits, naming the one that
 * came closest.
 *
 * Returns: (transfer full) (element-type SimLlmCandidate) (nullable): at
 *   most @top candidates, or %NULL.
 */
GArray *sim_llm_search (SimLlmSystem *system, const SimLlmModel *model,
                        const SimLlmLayout *base, guint top, guint *n_tried, GError **error);

/**
 * sim_llm_plan_json:
 * @scenario: the path of a scenario file (its cluster and fabric)
 * @model: a model's name or file
 * @options: (nullable) (array zero-terminated=1): layout keys as
 *   "KEY=VALUE" (see sim_llm_layout_set()), and "search=N" to return the
 *   N best layouts instead
 * @error: return location for a #GError
 *
 * What `gpusim llm SCENARIO --model NAME --json` prints, for bindings.
 * The object holds at least `iteration_time` (s), `mfu` (a fraction),
 * `tflops_per_gpu`, `memory_per_gpu` (bytes) and `tokens_per_second`;
 * with "search=N", a `layouts` array of such objects.
 *
 * Errors: those of loading the scenario and the model, of the layout's
 * keys and of sim_llm_estimate().
 *
 * Returns: (transfer full) (nullable): the JSON text, or %NULL.
 */
char *sim_llm_plan_json (const char *scenario, const char *model, const char * const *options,
                         GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimLlmModel, sim_llm_model_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimLlmSystem, sim_llm_system_free)

G_END_DECLS
