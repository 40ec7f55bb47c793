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
/* Memory a server keeps besides the weights and the KV cache: the CUDA
 * context, activations of the largest batch, communication buffers. */
#define RESERVE_BYTES (2.0 * 1024 * 1024 * 1024)

gboolean
sim__serve_replica_init (SimServeReplica *r, const SimLlmModel *m, const SimGpuModel *gpu,
                         const SimServeConfig *c, SimCommModel *comm, const guint32 *gpus,
                         GError **error)
{
  ServeEfficiency eff = serve_default_efficiency;
  double bytes_per_weight, kv_heads_per_gpu, params, free_bytes;
  gboolean fp8 = c->precision == SIM_LLM_PRECISION_FP8;

  memset (r, 0, sizeof *r);
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
  r->layers = m->layers;
  r->hidden = m->hidden;
  r->memory_efficiency = eff.memory;
  r->gemm_efficiency = eff.gemm * (fp8 ? FP8_GEMM_DERATE : 1.0);
  r->peak = (fp8 ? gpu->fp8_tflops : gpu->fp16_tflops) * 1e12 * r->gemm_efficiency;
  r->bandwidth = gpu->memory_bandwidth * eff.memory;
  bytes_per_weight = fp8 ? 1.0 : 2.0;
  params = sim_llm_model_parameters (m);
  r->weight_bytes = params * bytes_per_weight / c->tp;
  /* The weights a token multiplies: every active one but the input
   * embedding (a lookup) and the norms. */
  r->matmul_params = sim_llm_model_active_parameters (m)
                     - (m->tied_embeddings ? 0.0 : (double) m->vocab * m->hidden)
                     - (2.0 * m->layers + 1) * m->hidden;
  if (m->kv_lora_rank > 0)
    /* Multi-head latent attention caches one compressed latent and the
     * rotary key per token and layer, on every GPU of the group. */
    r->kv_bytes_per_token = (double) m->layers * (m->kv_lora_rank + m->qk_rope_dim)
                            * bytes_per_weight;
  else
    {
      /* Key/value heads split over the group; fewer heads than GPUs are
       * replicated, one on each. */
      kv_heads_per_gpu = ceil ((double) m->kv_heads / c->tp);
      r->kv_bytes_per_token = 2.0 * m->layers * kv_heads_per_gpu * m->head_dim
                              * bytes_per_weight;
    }
  r->attn_flops_coeff = 4.0 * m->layers * (double) m->heads * m->head_dim / c->tp;
  r->iteration_overhead = m->layers * LAYER_OVERHEAD_S;
  free_bytes = (double) gpu->memory_bytes * c->memory_share - r->weight_bytes - RESERVE_BYTES;
  r->kv_capacity = floor (free_bytes / r->kv_bytes_per_token);
  if (r->kv_capacity < c->kv_block)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                   "%s does not fit %u %s: %.1f GB of weights per GPU and %.1f GB reserved "
                   "leave %.1f GB of the %.1f GB the server may take for the KV cache: "
                   "expected a larger tp, fp8 or a larger memory_share",
                   m->name, c->tp, gpu->name, r->weight_bytes / 1e9, RESERVE_BYTES / 1e9,
                   free_bytes / 1e9, gpu->memory_bytes * c->memory_share / 1e9);
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
  return TRUE;
}

double
sim__serve_iteration_time (const SimServeReplica *r, double prefill, double prefill_context,
                           double decode, double decode_context)
{
  double tokens = prefill + decode;
  double flops, bytes, t;

  if (tokens <= 0)
    return 0;
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
  return t;
}
