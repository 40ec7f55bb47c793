/* sim-serve-replica.c: the time of one iteration of a replica.
 *
 * An iteration runs every layer once over the tokens of its batch: the
 * prompt tokens it prefills and one token of each sequence it decodes.
 * Its matrix products take 2 FLOPs per weight per token, at the GPU's
 * dense peak of the precision times a GEMM efficiency; attention takes 4
 * FLOPs per head width per pair of query and cached key (causal: a prompt
 * of n tokens makes n (n + 1) / 2 pairs).  Its memory traffic is the
 * weights, read once whatever the batch, and the KV cache of every
 * sequence it decodes, read once, at the memory bandwidth times an
 * efficiency.  The two overlap, but not perfectly: the iteration takes
 * sqrt(t_math^2 + t_memory^2), the roofline composed smoothly as the
 * training model composes it (llm/sim-llm-step.c), so that a prefill of
 * hundreds of tokens is compute-bound, a decode of a small batch
 * memory-bound, and a large decode batch, where the two are close, pays
 * for both in part.  Tensor parallelism splits the weights,
 * the heads and the KV cache over tp GPUs and adds two all-reduces of the
 * batch's activations per layer (after attention and after the
 * feed-forward network, as Megatron-LM splits them), timed by the fabric's
 * collective model on the replica's GPUs.  A fixed overhead per layer
 * stands for kernel launches and the scheduler's work between iterations.
 *
 * Pipeline parallelism splits the layers over pp stages of tp GPUs each
 * (the busiest stage holds ceil(layers / pp) of them); an iteration's
 * sequences are split into min(pp, sequences) micro-batches that follow
 * each other through the stages, each stage reading its weights once per
 * micro-batch.  Every sequence's token crosses every stage and pp - 1
 * point-to-point sends of its activations, and a stage, busy with every
 * micro-batch in turn, starts the next round when the first comes back:
 * an iteration takes pp stage times of one micro-batch plus the pp - 1
 * sends, so that the latency is the stages' summed and the throughput the
 * slowest stage's.
 *
 * A replica on a MIG instance has its profile's share of the SMs (its
 * compute), of the memory slices (its bandwidth) and its memory; replicas
 * time-sharing a GPU each have 1 / N of its compute, bandwidth and memory,
 * less the throughput the cluster's sharing model says switching contexts
 * costs (cluster/sim-sharing.h), as if their neighbours were always busy.
 */
#include "config.h"

#include "serve/sim-serve-private.h"
#include "core/sim-error.h"

#include <math.h>
#include <string.h>

/* The share of the dense peak an inference engine's matrix products reach
 * in a prefill, and of the memory bandwidth its decode kernels reach
 * (weights streamed by GEMV-like products, paged attention over the KV
 * cache).  Calibrated on TensorRT-LLM's published tables
 * (docs/serving.md): Hopper's are those at which its LLaMA 7B and 70B
 * figures are matched; Ampere's from its A100 table; other GPUs are given
 * Hopper's less a margin for a younger software stack. */
typedef struct {
  const char *match;
  double      gemm;
  double      memory;
} ServeEfficiency;

static const ServeEfficiency serve_efficiencies[] = {
  { "A100", 0.70, 0.80 },
  { "H100", 0.62, 0.80 },
  { "H200", 0.62, 0.80 },
  { "GH200", 0.62, 0.80 },
  { "B200", 0.62, 0.80 },
  { "MI300X", 0.50, 0.70 },
};
static const ServeEfficiency serve_default_efficiency = { NULL, 0.55, 0.70 };

/* FP8 matrix products reach this share of the FP8 peak relative to what
 * BF16 ones reach of theirs: the activations' quantization and the
 * scaling run beside every product, and inference GEMMs are narrower than
 * training's.  Calibrated on TensorRT-LLM's FP8 first-token latencies on
 * H100 (docs/serving.md). */
#define FP8_GEMM_DERATE 0.65
/* Launches and scheduling per layer and iteration: a few microseconds a
 * layer with CUDA graphs, which serving engines capture for decoding. */
#define LAYER_OVERHEAD_S 4e-6
/* An iteration that prefills runs eagerly, outside the CUDA graphs
 * engines capture for decoding: the host launches each layer's kernels
 * one by one, and while the GPU's work per layer is shorter than that,
 * the host sets the pace.  The iteration then takes at least this much
 * per layer, and more per tensor-parallel all-reduce (whose launch
 * synchronizes the group's processes).  Both are tuned on TensorRT-LLM
 * v0.5's H100 first-token latencies of 128-token prompts, 7 ms for LLaMA
 * 7B and 26 ms for LLaMA 70B on TP 4 (docs/serving.md), which the GPU's
 * work alone puts at half; its 2,048-token latencies, where the GPU's
 * work is the longer, are unchanged by them. */
#define PREFILL_HOST_LAYER_S 219e-6
#define PREFILL_HOST_ALLREDUCE_S 53e-6
/* Memory a server keeps besides the weights and the KV cache: the CUDA
 * context, activations of the largest batch, communication buffers. */
#define RESERVE_BYTES (2.0 * 1024 * 1024 * 1024)

/* An affine fit, latency + bytes x per_byte, of a point-to-point send
 * from gpu A to gpu B, from two sizes (the model is affine above its
 * protocol switch). */
static gboolean
fit_send (SimCommModel *comm, guint32 a, guint32 b, double *latency, double *per_byte,
          GError **error)
{
  static const guint64 small = 1024 * 1024, large = 256 * 1024 * 1024;
  guint32 pair[2] = { a, b };
  SimCollectiveTiming ts, tl;

  if (!sim_collective_time (comm, SIM_COLLECTIVE_SEND_RECV, SIM_COLLECTIVE_ALGO_AUTO, small,
                            pair, 2, &ts, error)
      || !sim_collective_time (comm, SIM_COLLECTIVE_SEND_RECV, SIM_COLLECTIVE_ALGO_AUTO, large,
                               pair, 2, &tl, error))
    return FALSE;
  *per_byte = MAX (0.0, (tl.time - ts.time) / (double) (large - small));
  *latency = MAX (0.0, ts.time - small * *per_byte);
  return TRUE;
}

gboolean
sim__serve_replica_init (SimServeReplica *r, const SimLlmModel *m, const SimGpuModel *gpu,
                         const SimServeConfig *c, SimCommModel *comm, const guint32 *gpus,
                         GError **error)
{
  ServeEfficiency eff = serve_default_efficiency;
  double bytes_per_weight, kv_heads_per_gpu, params, free_bytes, memory, frac;
  double compute_share = 1.0, bandwidth_share = 1.0;
  gboolean fp8 = c->precision == SIM_LLM_PRECISION_FP8;
  guint pp = MAX (1u, c->pp), stage_layers;

  memset (r, 0, sizeof *r);
  if (pp > m->layers)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "pp = %u: %s has %u layers: expected at most one stage per layer", pp,
                   m->name, m->layers);
      return FALSE;
    }
  stage_layers = (m->layers + pp - 1) / pp;
  frac = pp > 1 ? (double) stage_layers / m->layers : 1.0;
  memory = (double) gpu->memory_bytes;
  r->gpus = (double) c->tp * pp;
  if (c->mig != NULL)
    {
      int i = sim_mig_lookup_profile (gpu, c->mig);
      const SimMigProfile *prof;
      g_autoptr(GString) known = g_string_new (NULL);

      if (i < 0)
        {
          for (guint k = 0; k < gpu->n_mig_profiles; k++)
            g_string_append_printf (known, "%s%s", k ? ", " : "", gpu->mig_profiles[k].name);
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "mig = %s: expected a MIG profile of the %s (%s)", c->mig, gpu->name,
                       known->len > 0 ? known->str : "it has none");
          return FALSE;
        }
      prof = &gpu->mig_profiles[i];
      /* The share of SMs where both counts are known, else of compute
       * slices; bandwidth follows the memory slices (each has its own
       * memory controllers). */
      compute_share = prof->sms > 0 && gpu->sms > 0 ? (double) prof->sms / gpu->sms
                      : (double) prof->compute_slices / MAX (1u, gpu->mig_slices);
      bandwidth_share = (double) prof->memory_slices / SIM_MIG_MEMORY_SLICES;
      memory = (double) prof->memory_bytes;
      r->gpus = 1.0 / MAX (1u, prof->max_instances);
    }
  else if (c->replicas_per_gpu > 1)
    {
      compute_share = bandwidth_share = (1.0 - c->timeslice_overhead) / c->replicas_per_gpu;
      memory /= c->replicas_per_gpu;
      r->gpus = 1.0 / c->replicas_per_gpu;
    }
  r->share = compute_share;
  if (m->heads % c->tp != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "tp = %u does not divide %s's %u heads: expected a divisor", c->tp, m->name,
                   m->heads);
      return FALSE;
    }
  if (fp8 && gpu->fp8_tflops <= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "precision = fp8, but %s has no FP8 peak: expected bf16", gpu->name);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (serve_efficiencies); i++)
    if (strstr (gpu->name, serve_efficiencies[i].match) != NULL)
      {
        eff = serve_efficiencies[i];
        break;
      }
  r->gpu = gpu;
  r->tp = c->tp;
  r->pp = pp;
  r->layers = stage_layers;
  r->hidden = m->hidden;
  r->context = m->context;
  r->memory_efficiency = eff.memory;
  r->gemm_efficiency = eff.gemm * (fp8 ? FP8_GEMM_DERATE : 1.0);
  r->peak = (fp8 ? gpu->fp8_tflops : gpu->fp16_tflops) * 1e12 * r->gemm_efficiency;
  r->bandwidth = gpu->memory_bandwidth * eff.memory;
  if (compute_share != 1.0 || bandwidth_share != 1.0)
    {
      r->peak *= compute_share;
      r->bandwidth *= bandwidth_share;
    }
  bytes_per_weight = fp8 ? 1.0 : 2.0;
  params = sim_llm_model_parameters (m);
  r->weight_bytes = params * bytes_per_weight / c->tp;
  if (pp > 1)
    /* The busiest stage's share, the embeddings spread with the layers. */
    r->weight_bytes *= frac;
  /* The weights a token multiplies: every active one but the input
   * embedding (a lookup) and the norms. */
  r->matmul_params = sim_llm_model_active_parameters (m)
                     - (m->tied_embeddings ? 0.0 : (double) m->vocab * m->hidden)
                     - (2.0 * m->layers + 1) * m->hidden;
  if (pp > 1)
    r->matmul_params *= frac;
  if (m->kv_lora_rank > 0)
    r->kv_bytes_per_token_total = (double) m->layers * (m->kv_lora_rank + m->qk_rope_dim)
                                  * bytes_per_weight;
  else
    r->kv_bytes_per_token_total = 2.0 * m->layers * m->kv_heads * m->head_dim
                                  * bytes_per_weight;
  if (m->kv_lora_rank > 0)
    /* Multi-head latent attention caches one compressed latent and the
     * rotary key per token and layer, on every GPU of the group. */
    r->kv_bytes_per_token = (double) stage_layers * (m->kv_lora_rank + m->qk_rope_dim)
                            * bytes_per_weight;
  else
    {
      /* Key/value heads split over the group; fewer heads than GPUs are
       * replicated, one on each. */
      kv_heads_per_gpu = ceil ((double) m->kv_heads / c->tp);
      r->kv_bytes_per_token = 2.0 * stage_layers * kv_heads_per_gpu * m->head_dim
                              * bytes_per_weight;
    }
  r->attn_flops_coeff = 4.0 * stage_layers * (double) m->heads * m->head_dim / c->tp;
  r->iteration_overhead = stage_layers * LAYER_OVERHEAD_S;
  r->prefill_host_floor = stage_layers * (PREFILL_HOST_LAYER_S
                                          + (c->tp > 1 ? 2 * PREFILL_HOST_ALLREDUCE_S : 0.0));
  free_bytes = memory * c->memory_share - r->weight_bytes - RESERVE_BYTES;
  r->kv_capacity = floor (free_bytes / r->kv_bytes_per_token);
  if (r->kv_capacity < c->kv_block)
    {
      g_autofree char *where = c->mig != NULL
        ? g_strdup_printf ("a %s instance of %s", c->mig, gpu->name)
        : c->replicas_per_gpu > 1
        ? g_strdup_printf ("1 / %u of %s", c->replicas_per_gpu, gpu->name)
        : g_strdup_printf ("%u %s", c->tp * pp, gpu->name);
      g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                   "%s does not fit %s: %.1f GB of weights per GPU and %.1f GB reserved "
                   "leave %.1f GB of the %.1f GB the server may take for the KV cache: "
                   "expected a larger tp, fp8 or a larger memory_share",
                   m->name, where, r->weight_bytes / 1e9, RESERVE_BYTES / 1e9,
                   free_bytes / 1e9, memory * c->memory_share / 1e9);
      return FALSE;
    }
  if (c->tp > 1 && comm != NULL)
    {
      /* An all-reduce's time is close to affine in its size over the sizes
       * a batch's activations take; two sizes fix the line. */
      static const guint64 small = 64 * 1024, large = 64 * 1024 * 1024;
      SimCollectiveTiming ts, tl;

      if (!sim_collective_time (comm, SIM_COLLECTIVE_ALL_REDUCE, SIM_COLLECTIVE_ALGO_AUTO, small,
                                gpus, c->tp, &ts, error)
          || !sim_collective_time (comm, SIM_COLLECTIVE_ALL_REDUCE, SIM_COLLECTIVE_ALGO_AUTO,
                                   large, gpus, c->tp, &tl, error))
        return FALSE;
      r->allreduce_per_byte = MAX (0.0, (tl.time - ts.time) / (double) (large - small));
      r->allreduce_latency = MAX (0.0, ts.time - small * r->allreduce_per_byte);
    }
  if (pp > 1 && comm != NULL)
    {
      /* The sends between stages: the slowest boundary's (one that leaves
       * a node crosses the fabric), judged at a large size. */
      double worst = -1;
      for (guint st = 0; st + 1 < pp; st++)
        {
          double lat, per;
          if (!fit_send (comm, gpus[st * c->tp], gpus[(st + 1) * c->tp], &lat, &per, error))
            return FALSE;
          if (lat + 1e8 * per > worst)
            {
              worst = lat + 1e8 * per;
              r->p2p_latency = lat;
              r->p2p_per_byte = per;
            }
        }
    }
  return TRUE;
}

void
sim__serve_replica_clear (SimServeReplica *r)
{
  if (r->decode != NULL)
    {
      sim__serve_replica_clear (r->decode);
      g_clear_pointer (&r->decode, g_free);
    }
  g_clear_pointer (&r->node_of, g_free);
}

/* Where a side's replicas go: each on consecutive GPUs, within a node
 * (pipeline stages may take further nodes, a stage's tp GPUs within one),
 * from GPU FIRST on; sets the first GPU of each in STARTS and returns the
 * GPU after the last, or G_MAXUINT when the cluster runs out. */
static guint
place (SimCluster *cluster, guint first, guint n, guint width, guint unit, guint32 *starts)
{
  guint per_node = sim_cluster_get_max_gpus_per_node (cluster);
  guint total = sim_cluster_get_n_gpus (cluster);
  guint g = first;

  for (guint i = 0; i < n; i++)
    {
      /* A group of UNIT GPUs does not straddle two nodes. */
      if (g % per_node + unit > per_node)
        g += per_node - g % per_node;
      if (g + width > total)
        return G_MAXUINT;
      starts[i] = g;
      g += width;
    }
  return g;
}

gboolean
sim__serve_replicas_init (SimServeReplica *r, const SimLlmModel *m, const SimGpuModel *gpu,
                          const SimServeConfig *c, SimCommModel *comm, SimCluster *cluster,
                          GError **error)
{
  guint per_node = sim_cluster_get_max_gpus_per_node (cluster);
  guint n_gpus = sim_cluster_get_n_gpus (cluster);
  SimServeConfig side = *c;
  g_autofree guint32 *gpus = NULL;
  guint width;

  memset (r, 0, sizeof *r);
  if (c->pp > m->layers)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "pp = %u: %s has %u layers: expected at most one stage per layer", c->pp,
                   m->name, m->layers);
      return FALSE;
    }
  side.tp = c->disaggregated && c->prefill_tp > 0 ? c->prefill_tp : c->tp;
  if (side.tp > per_node || side.tp > n_gpus)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: %u: expected at most the %u GPUs of a node (a replica's "
                   "all-reduces run on NVLink inside one)",
                   c->disaggregated && c->prefill_tp > 0 ? "prefill_tp" : "tp", side.tp,
                   per_node);
      return FALSE;
    }
  width = side.tp * MAX (1u, c->pp);
  if (width > n_gpus)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "pp: tp x pp = %u GPUs: expected at most the cluster's %u", width, n_gpus);
      return FALSE;
    }
  if (!c->disaggregated)
    {
      /* Replicas that share a GPU (replicas_per_gpu, or the instances of a
       * MIG profile one GPU holds) share one replica's GPUs. */
      int prof = c->mig != NULL ? sim_mig_lookup_profile (gpu, c->mig) : -1;
      guint per_gpu = prof >= 0 ? MAX (1u, gpu->mig_profiles[prof].max_instances)
                      : MAX (1u, c->replicas_per_gpu);
      guint64 need = ((guint64) c->replicas + per_gpu - 1) / per_gpu * width;

      if (need > n_gpus)
        {
          if (prof >= 0)
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                         "replicas: %u replicas on %s instances, %u to a GPU, need %"
                         G_GUINT64_FORMAT " GPUs: expected at most the cluster's %u",
                         c->replicas, c->mig, per_gpu, need, n_gpus);
          else
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                         "replicas: %u replicas of %u GPU%s need %" G_GUINT64_FORMAT " GPUs: "
                         "expected at most the cluster's %u", c->replicas, width,
                         width == 1 ? "" : "s", need, n_gpus);
          return FALSE;
        }
    }
  gpus = g_new (guint32, width);
  {
    guint32 start;
    /* A replica's GPUs in order; with pp, each stage's tp within a node. */
    if (place (cluster, 0, 1, width, MIN (width, per_node), &start) == G_MAXUINT)
      {
        /* Stages placed one by one. */
        guint g = 0;
        for (guint st = 0; st < MAX (1u, c->pp); st++)
          {
            guint32 s0;
            g = place (cluster, g, 1, side.tp, side.tp, &s0);
            if (g == G_MAXUINT)
              {
                g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                             "pp: %u stages of %u GPUs do not fit the cluster's nodes",
                             c->pp, side.tp);
                return FALSE;
              }
            for (guint k = 0; k < side.tp; k++)
              gpus[st * side.tp + k] = s0 + k;
          }
      }
    else
      for (guint k = 0; k < width; k++)
        gpus[k] = start + k;
  }
  if (!sim__serve_replica_init (r, m, gpu, &side, comm, gpus, error))
    return FALSE;
  if (!c->disaggregated)
    return TRUE;
  {
    SimServeConfig dside = *c;
    g_autofree guint32 *pstart = g_new (guint32, c->prefill_replicas);
    g_autofree guint32 *dstart = g_new (guint32, c->decode_replicas);
    guint next;

    dside.tp = c->decode_tp > 0 ? c->decode_tp : c->tp;
    if (dside.tp > per_node)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "decode_tp: %u: expected at most the %u GPUs of a node", dside.tp,
                     per_node);
        return FALSE;
      }
    next = place (cluster, 0, c->prefill_replicas, side.tp, side.tp, pstart);
    if (next != G_MAXUINT)
      next = place (cluster, next, c->decode_replicas, dside.tp, dside.tp, dstart);
    if (next == G_MAXUINT)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "prefill_replicas: %u of %u GPUs and %u decode replicas of %u do not fit "
                     "the cluster's %u GPUs: expected fewer", c->prefill_replicas, side.tp,
                     c->decode_replicas, dside.tp, n_gpus);
        return FALSE;
      }
    r->decode = g_new0 (SimServeReplica, 1);
    g_free (gpus);
    gpus = g_new (guint32, dside.tp);
    for (guint k = 0; k < dside.tp; k++)
      gpus[k] = dstart[0] + k;
    if (!sim__serve_replica_init (r->decode, m, gpu, &dside, comm, gpus, error))
      {
        g_clear_pointer (&r->decode, g_free);
        return FALSE;
      }
    /* The nodes of the replicas, prefill's then decode's, for the
     * transfers. */
    r->node_of = g_new (guint32, c->prefill_replicas + c->decode_replicas);
    for (guint i = 0; i < c->prefill_replicas; i++)
      r->node_of[i] = sim_cluster_get_gpu (cluster, pstart[i])->node;
    for (guint i = 0; i < c->decode_replicas; i++)
      r->node_of[c->prefill_replicas + i] = sim_cluster_get_gpu (cluster, dstart[i])->node;
    /* A transfer's time inside a node, over NVLink, and between two, over
     * the NICs: every GPU of the smaller side sends its share at once. */
    if (per_node > 1
        && !fit_send (comm, 0, 1, &r->kv_transfer_latency[0], &r->kv_transfer_per_byte[0],
                      error))
      return FALSE;
    if (sim_cluster_get_n_nodes (cluster) > 1
        && !fit_send (comm, 0, per_node, &r->kv_transfer_latency[1],
                      &r->kv_transfer_per_byte[1], error))
      return FALSE;
    r->kv_transfer_pairs = MIN (side.tp, dside.tp);
  }
  return TRUE;
}

double
sim__serve_kv_transfer_time (const SimServeReplica *r, double tokens, gboolean same_node)
{
  int k = same_node ? 0 : 1;

  return r->kv_transfer_latency[k]
         + tokens * r->kv_bytes_per_token_total / MAX (1u, r->kv_transfer_pairs)
           * r->kv_transfer_per_byte[k];
}

double
sim__serve_iteration_time (const SimServeReplica *r, double prefill, double prefill_context,
                           double decode, double decode_context)
{
  return sim__serve_iteration_time_split (r, prefill, prefill_context, decode, decode_context,
                                          (guint) decode + (prefill > 0 ? 1 : 0));
}

double
sim__serve_iteration_time_split (const SimServeReplica *r, double prefill,
                                 double prefill_context, double decode, double decode_context,
                                 guint sequences)
{
  double tokens = prefill + decode;
  double flops, bytes, t;

  if (tokens <= 0)
    return 0;
  if (r->pp > 1)
    {
      /* Micro-batches of an equal share each; a stage's time for one,
       * pp of them, and the sends between stages. */
      double mb = MAX (1u, MIN (r->pp, sequences));
      SimServeReplica stage = *r;
      double ts;

      stage.pp = 1;
      ts = sim__serve_iteration_time_split (&stage, prefill / mb, prefill_context / mb,
                                            decode / mb, decode_context / mb, 1);
      return r->pp * ts + (r->pp - 1) * (r->p2p_latency
                                         + tokens / mb * r->hidden * 2.0 * r->p2p_per_byte);
    }
  flops = 2.0 * r->matmul_params / r->tp * tokens
          + r->attn_flops_coeff * (prefill_context + decode_context);
  /* The weights once, the decoded sequences' caches, and the new tokens'
   * keys and values written. */
  bytes = r->weight_bytes + r->kv_bytes_per_token * (decode_context + tokens);
  t = hypot (flops / r->peak, bytes / r->bandwidth) + r->iteration_overhead;
  if (r->tp > 1)
    /* Two all-reduces per layer of the batch's activations in 16 bits. */
    t += 2.0 * r->layers * (r->allreduce_latency
                            + tokens * r->hidden * 2.0 * r->allreduce_per_byte);
  if (prefill > 0 && t < r->prefill_host_floor)
    t = r->prefill_host_floor;
  return t;
}
