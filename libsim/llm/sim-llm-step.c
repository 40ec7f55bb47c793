/* sim-llm-step.c: the time, FLOPs and memory of one training step of a
 * model on a parallel layout, on a cluster's fabric (the model is
 * described in sim-llm.h).
 *
 * Everything here is per GPU and per micro-batch first (the matrix
 * products a GPU runs for one micro-batch through one layer, the bytes it
 * exchanges), then composed: layers into a pipeline stage, micro-batches
 * into the 1F1B schedule, the data-parallel exchange and the optimizer
 * into the step.  Collectives are timed by the fabric's model on the GPUs
 * of the layout's first group of each kind and cached by operation, group
 * and size, so that a search over thousands of layouts times each distinct
 * collective once.
 */
#include "config.h"

#include "llm/sim-llm-private.h"
#include "fabric/sim-collective.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "core/sim-units.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* The compute efficiency of a GPU architecture.  @gemm is the share of the
 * dense peak a large matrix product reaches (cuBLAS on square BF16 GEMMs of
 * 8,192 and more); @flash the share FlashAttention's kernels reach;
 * @memory the share of the memory bandwidth element-wise kernels reach.
 * The values are calibrated on the published end-to-end figures the tests
 * check (Narayanan et al., SC'21, Table 1 on A100; Megatron-Core's GPT-3
 * 175B runs on H100), not measured here: docs/llm.md lists them. */
typedef struct {
  const char *match;   /* a part of the GPU model's name */
  double      gemm;
  double      flash;
  double      memory;
} ArchEfficiency;

static const ArchEfficiency arch_efficiencies[] = {
  { "A100", 0.78, 0.50, 0.80 },
  { "H100", 0.55, 0.45, 0.80 },
  { "H200", 0.55, 0.45, 0.80 },
  { "GH200", 0.55, 0.45, 0.80 },
  { "B200", 0.70, 0.45, 0.80 },
  { "MI300X", 0.55, 0.35, 0.75 },
  { "MI250X", 0.55, 0.35, 0.75 },
};
/* Any other GPU: an unproven architecture gets Hopper's less the margin
 * that separates a young software stack from a mature one. */
static const ArchEfficiency default_efficiency = { NULL, 0.65, 0.40, 0.75 };

/* The fixed cost of launching one matrix-product kernel and its tail: a
 * few microseconds (CUDA launch latency plus the last wave's idle SMs). */
#define GEMM_LAUNCH_S 3e-6
/* FP8 matrix products reach this share of the FP8 peak relative to what
 * BF16 ones reach of theirs: the per-tensor casts and amax reductions
 * (Transformer Engine's delayed scaling) run beside every product. */
#define FP8_GEMM_DERATE 0.80
/* Memory the framework holds besides the model's tensors: the CUDA
 * context, NCCL's buffers, the caching allocator's fragmentation. */
#define RESERVED_BYTES 2e9
/* Bytes per element the element-wise kernels of a layer move per byte of
 * activation they store (each stored tensor is written once and read
 * back, some twice). */
#define ELEMENTWISE_TRAFFIC 1.5
/* Bytes per attention score moved when scores are materialised: Q K^T
 * written (2), read by the softmax (2), its output written (2), the
 * dropout mask (1), the dropped scores written and read by the product
 * with V (2 + 2), and read once more (1). */
#define SCORE_TRAFFIC 12.0
/* An Adam step moves, per parameter of its shard, the FP32 master weight,
 * both moments and the gradient in, the three FP32 values and the BF16
 * weight out. */
#define ADAM_BYTES 30.0

struct _SimLlmSystem {
  SimCluster        *cluster;
  SimTopology       *topology;
  SimCommModel      *comm;
  const SimGpuModel *gpu;
  ArchEfficiency     eff;
  guint              n_gpus;
  guint              gpus_per_node;
  GHashTable        *cache;  /* "op/n/stride/bytes" -> double seconds */
};

/* ------------------------------------------------------------------------ */
/* The layout's keys */

SIM_KEYS_UINT_PARSER (parse_degree, 1, 1048576)

SIM_KEYS_UINT_PARSER (parse_count0, 0, 1048576 * 16)

SIM_KEYS_UINT_PARSER (parse_batch, 1, 100000000)

static gboolean
parse_zero (const char *text, gpointer out, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (text, 0, 3, &v, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": expected a ZeRO stage, 0, 1, 2 or 3", text);
      return FALSE;
    }
  *(guint *) out = (guint) v;
  return TRUE;
}

static gboolean
parse_recompute (const char *text, gpointer out, GError **error)
{
  if (strcmp (text, "none") == 0)
    *(SimLlmRecompute *) out = SIM_LLM_RECOMPUTE_NONE;
  else if (strcmp (text, "selective") == 0)
    *(SimLlmRecompute *) out = SIM_LLM_RECOMPUTE_SELECTIVE;
  else if (strcmp (text, "full") == 0)
    *(SimLlmRecompute *) out = SIM_LLM_RECOMPUTE_FULL;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": expected none, selective or full", text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_precision (const char *text, gpointer out, GError **error)
{
  if (g_ascii_strcasecmp (text, "bf16") == 0)
    *(SimLlmPrecision *) out = SIM_LLM_PRECISION_BF16;
  else if (g_ascii_strcasecmp (text, "fp8") == 0)
    *(SimLlmPrecision *) out = SIM_LLM_PRECISION_FP8;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\": expected bf16 or fp8", text);
      return FALSE;
    }
  return TRUE;
}

/* A share from 0 (the default: nothing hidden) to 1. */
static gboolean
parse_overlap (const char *text, gpointer out, GError **error)
{
  return sim__keys_parse_share_percent (text, 0, FALSE, "a share", out, error);
}

/* A token count: "15T", "2e12", "300B". */
static gboolean
parse_tokens (const char *text, gpointer out, GError **error)
{
  g_autofree char *copy = g_strdup (text);
  gsize len = strlen (copy);
  double scale = 1;

  if (len > 1 && strchr ("KMBT", g_ascii_toupper (copy[len - 1])) != NULL)
    {
      char u = g_ascii_toupper (copy[len - 1]);
      scale = u == 'K' ? 1e3 : u == 'M' ? 1e6 : u == 'B' ? 1e9 : 1e12;
      copy[len - 1] = '\0';
    }
  if (!sim_parse_number (copy, 0, 1e18, (double *) out, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not a token count: expected a number such as \"2e12\" or \"15T\"",
                   text);
      return FALSE;
    }
  *(double *) out *= scale;
  return TRUE;
}

#define L(field) offsetof (SimLlmLayout, field)

const SimKey sim__llm_layout_keys[] = {
  { "tp", SIM_KEY_INT, NULL, "divides heads and a node's GPUs", "1", "tensor-parallel degree", 0,
    parse_degree, L (tp) },
  { "pp", SIM_KEY_INT, NULL, "at most layers", "1", "pipeline-parallel degree (stages)", 0,
    parse_degree, L (pp) },
  { "cp", SIM_KEY_INT, NULL, "divides the sequence", "1", "context-parallel degree", 0,
    parse_degree, L (cp) },
  { "ep", SIM_KEY_INT, NULL, "divides experts and dp", "1", "expert-parallel degree", 0,
    parse_degree, L (ep) },
  { "dp", SIM_KEY_INT, NULL, NULL, "the GPUs left",
    "data-parallel degree (0: the GPUs left over by tp pp cp)", SIM_KEY_DEFAULT_DESCRIBED,
    parse_count0, L (dp) },
  { "virtual_stages", SIM_KEY_INT, NULL, "1 to 1048576", "1",
    "model chunks per pipeline stage (interleaved 1F1B)", 0, parse_degree, L (virtual_stages) },
  { "micro_batch", SIM_KEY_INT, "sequences", "1 to 100000000", "1",
    "sequences per micro-batch", 0, parse_batch, L (micro_batch) },
  { "global_batch", SIM_KEY_INT, "sequences", "1 to 100000000", "micro_batch x dp",
    "sequences per training step", SIM_KEY_DEFAULT_DESCRIBED, parse_batch, L (global_batch) },
  { "seq_length", SIM_KEY_INT, "tokens", "1 to 1048576", "the model's",
    "tokens per sequence", SIM_KEY_DEFAULT_DESCRIBED, parse_count0, L (seq_length) },
  { "zero_stage", SIM_KEY_INT, NULL, "0 to 3", "1",
    "ZeRO: 1 shards the optimizer (Megatron's distributed optimizer), 2 the gradients too, "
    "3 the weights too (FSDP)", 0, parse_zero, L (zero_stage) },
  { "sequence_parallel", SIM_KEY_BOOL, NULL, NULL, "true",
    "split norms and dropout across the tensor-parallel group", 0, sim__keys_parse_bool,
    L (sequence_parallel) },
  { "recompute", SIM_KEY_CHOICE, NULL, "none, selective, full", "selective",
    "activation recomputation", 0, parse_recompute, L (recompute) },
  { "precision", SIM_KEY_CHOICE, NULL, "bf16, fp8", "bf16", "the matrix products' precision",
    0, parse_precision, L (precision) },
  { "flash_attention", SIM_KEY_BOOL, NULL, NULL, "true",
    "attention scores kept on chip (FlashAttention)", 0, sim__keys_parse_bool,
    L (flash_attention) },
  { "tp_overlap", SIM_KEY_SHARE, NULL, "0 to 1", "0",
    "the share of tensor-parallel traffic hidden behind matrix products", 0, parse_overlap,
    L (tp_overlap) },
  { "overlap_grad_reduce", SIM_KEY_BOOL, NULL, NULL, "true",
    "overlap the gradient reduction with the last backward pass and the parameter gather "
    "with the first forward pass", 0, sim__keys_parse_bool, L (overlap_grad_reduce) },
  { "gpus", SIM_KEY_INT, NULL, NULL, "tp x pp x cp x dp",
    "the GPUs of the layout (with dp = 0: dp from them)", SIM_KEY_DEFAULT_DESCRIBED,
    parse_count0, L (gpus) },
  { "tokens", SIM_KEY_NUMBER, "tokens", NULL, "0",
    "a token budget to train on, such as \"15T\" (0: none)", 0, parse_tokens, L (tokens) },
};
const guint sim__llm_layout_n_keys = G_N_ELEMENTS (sim__llm_layout_keys);

void
sim_llm_layout_init (SimLlmLayout *layout)
{
  g_return_if_fail (layout != NULL);
  memset (layout, 0, sizeof *layout);
  layout->tp = layout->pp = layout->cp = layout->ep = 1;
  layout->virtual_stages = 1;
  layout->micro_batch = 1;
  layout->zero_stage = 1;
  layout->sequence_parallel = TRUE;
  layout->recompute = SIM_LLM_RECOMPUTE_SELECTIVE;
  layout->precision = SIM_LLM_PRECISION_BF16;
  layout->flash_attention = TRUE;
  layout->overlap_grad_reduce = TRUE;
}

gboolean
sim_llm_layout_set (SimLlmLayout *layout, const char *key, const char *value, GError **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (layout != NULL && key != NULL && value != NULL, FALSE);

  for (guint i = 0; i < sim__llm_layout_n_keys; i++)
    {
      const SimKey *k = &sim__llm_layout_keys[i];
      if (strcmp (k->name, key) != 0)
        continue;
      text = g_strstrip (g_strdup (value));
      if (!k->parse (text, (char *) layout + k->offset, error))
        {
          g_prefix_error (error, "layout key %s: ", key);
          return FALSE;
        }
      return TRUE;
    }
  {
    const char *names[G_N_ELEMENTS (sim__llm_layout_keys)];
    GString *list = g_string_new (NULL);
    for (guint i = 0; i < sim__llm_layout_n_keys; i++)
      {
        names[i] = sim__llm_layout_keys[i].name;
        g_string_append_printf (list, "%s%s", i ? ", " : "", names[i]);
      }
    g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY, "unknown layout key \"%s\"%s (known: %s)",
                 key, sim__did_you_mean (sim__closest (key, names, sim__llm_layout_n_keys)),
                 list->str);
    g_string_free (list, TRUE);
  }
  return FALSE;
}

gboolean
sim_llm_layout_parse (SimLlmLayout *layout, const char *text, GError **error)
{
  g_auto(GStrv) pairs = NULL;

  g_return_val_if_fail (layout != NULL && text != NULL, FALSE);

  pairs = g_regex_split_simple ("[,\\s]+", text, 0, 0);
  for (guint i = 0; pairs[i] != NULL; i++)
    {
      char *eq;
      if (pairs[i][0] == '\0')
        continue;
      eq = strchr (pairs[i], '=');
      if (eq == NULL || eq == pairs[i])
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected KEY=VALUE, such as \"tp=8\"", pairs[i]);
          return FALSE;
        }
      *eq = '\0';
      if (!sim_llm_layout_set (layout, pairs[i], eq + 1, error))
        return FALSE;
    }
  return TRUE;
}

const char *
sim_llm_comm_to_string (SimLlmComm kind)
{
  static const char * const names[SIM_LLM_COMM_N_KINDS] = { "tp", "pp", "dp", "cp", "ep" };

  g_return_val_if_fail ((guint) kind < SIM_LLM_COMM_N_KINDS, "?");
  return names[kind];
}

/* ------------------------------------------------------------------------ */
/* The system */

SimLlmSystem *
sim_llm_system_new (SimCluster *cluster, SimTopology *topology, GError **error)
{
  g_autoptr(SimLlmSystem) s = NULL;
  guint n;

  g_return_val_if_fail (cluster != NULL, NULL);

  n = sim_cluster_get_n_gpus (cluster);
  if (n == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "the cluster has no GPUs");
      return NULL;
    }
  s = g_new0 (SimLlmSystem, 1);
  s->cluster = cluster;
  s->topology = topology;
  s->n_gpus = n;
  s->gpus_per_node = sim_cluster_get_max_gpus_per_node (cluster);
  s->gpu = sim_cluster_get_node (cluster, 0)->gpu_model;
  for (guint i = 1; i < sim_cluster_get_n_nodes (cluster); i++)
    if (sim_cluster_get_node (cluster, i)->gpu_model != s->gpu)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "a training job's GPUs must be of one model: the cluster has %s and %s "
                     "(expected one pool, or pools of one GPU model)", s->gpu->name,
                     sim_cluster_get_node (cluster, i)->gpu_model->name);
        return NULL;
      }
  s->eff = default_efficiency;
  for (guint i = 0; i < G_N_ELEMENTS (arch_efficiencies); i++)
    if (strstr (s->gpu->name, arch_efficiencies[i].match) != NULL)
      {
        s->eff = arch_efficiencies[i];
        break;
      }
  if (topology != NULL)
    s->comm = sim_comm_model_new (topology, cluster);
  s->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return g_steal_pointer (&s);
}

void
sim_llm_system_free (SimLlmSystem *system)
{
  if (system == NULL)
    return;
  g_clear_pointer (&system->comm, sim_comm_model_free);
  g_clear_pointer (&system->cache, g_hash_table_unref);
  g_free (system);
}

guint
sim__llm_system_n_gpus (const SimLlmSystem *system)
{
  return system->n_gpus;
}

guint
sim__llm_system_gpus_per_node (const SimLlmSystem *system)
{
  return system->gpus_per_node;
}

const SimGpuModel *
sim_llm_system_get_gpu (const SimLlmSystem *system)
{
  g_return_val_if_fail (system != NULL, NULL);
  return system->gpu;
}

/* The time of OP over N GPUs spaced STRIDE apart from GPU 0 (a group of the
 * layout: ranks are cluster GPU indices, which run node by node), for a
 * message of BYTES as nccl-tests counts it; 0 for a group of one.  Cached. */
static gboolean
coll_time (SimLlmSystem *s, SimCollectiveOp op, guint n, guint stride, double bytes,
           double *out, GError **error)
{
  g_autofree char *key = NULL;
  g_autofree guint32 *gpus = NULL;
  double *cached;
  SimCollectiveTiming timing;
  guint64 b;

  *out = 0;
  if (n < 2 || bytes <= 0)
    return TRUE;
  b = (guint64) MAX (1.0, floor (bytes));
  key = g_strdup_printf ("%d/%u/%u/%" G_GUINT64_FORMAT, (int) op, n, stride, b);
  cached = g_hash_table_lookup (s->cache, key);
  if (cached != NULL)
    {
      *out = *cached;
      return TRUE;
    }
  if (s->comm == NULL)
    return TRUE; /* No network: the caller times the traffic itself. */
  gpus = g_new (guint32, n);
  for (guint i = 0; i < n; i++)
    gpus[i] = i * stride;
  if (!sim_collective_time (s->comm, op, SIM_COLLECTIVE_ALGO_AUTO, b, gpus, n, &timing, error))
    return FALSE;
  *out = timing.time;
  g_hash_table_insert (s->cache, g_steal_pointer (&key), g_memdup2 (out, sizeof *out));
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Compute */

/* What one GPU's matrix products and kernels of some work add up to. */
typedef struct {
  double time;
  double flops;
} Work;

typedef struct {
  double peak;        /* FLOP/s of the products' precision */
  double eff;         /* large-GEMM efficiency at that precision */
  double elt_bytes;   /* bytes per operand element */
  double bandwidth;   /* bytes/s of memory */
  double flash_peak;  /* FLOP/s of flash attention */
  double mem_bw;      /* bytes/s element-wise kernels reach */
  double flash_eff_share; /* flash_peak over the BF16 peak */
  double bf16_eff;    /* large-GEMM efficiency in BF16 */
} Rates;

/* COUNT products of an M x K by a K x N matrix: a roofline whose two
 * terms compose as sqrt(math^2 + memory^2), so that a product near the
 * ridge point is slower than either bound alone (loads and math overlap
 * imperfectly within a tile), plus the launch of each. */
static void
gemm (Work *w, const Rates *r, double m, double k, double n, double count)
{
  double flops = 2 * m * k * n * count;
  double bytes = r->elt_bytes * (m * k + k * n) * count + 2 * m * n * count;
  double t_math = flops / (r->peak * r->eff);
  double t_mem = bytes / r->bandwidth;

  if (m <= 0 || k <= 0 || n <= 0 || count <= 0)
    return;
  w->time += sqrt (t_math * t_math + t_mem * t_mem) + GEMM_LAUNCH_S * ceil (count);
  w->flops += flops;
}

static void
stream (Work *w, const Rates *r, double bytes)
{
  w->time += bytes / r->mem_bw;
}

/* Bytes of activations one layer keeps for the backward pass, for one
 * micro-batch of T tokens on one GPU (Korthikanti et al., MLSys 2023,
 * Section 4, generalised to grouped-query attention and gated or expert
 * feed-forward networks).  SCORES: the attention scores' share (5 bytes
 * each: Q K^T, softmax and dropout mask), counted apart since flash
 * attention and selective recomputation do not keep them. */
static double
layer_activations (const SimLlmModel *m, const SimLlmLayout *l, double T, double s_kv,
                   gboolean moe, double *scores)
{
  double t = l->tp, h = m->hidden, hd = m->head_dim, a = m->heads;
  double sp = l->sequence_parallel ? t : 1;  /* what the h-wide tensors are split by */
  double kv = m->kv_lora_rank > 0 ? a : m->kv_heads;
  double q_k = 2 * T * (a * (hd + m->qk_rope_dim) + kv * (hd + m->qk_rope_dim)) / t;
  double attn = 2 * T * h / sp                       /* the QKV projection's input */
                + q_k                                 /* Q and K, for the scores */
                + 2 * T * kv * hd / t                 /* V */
                + 2 * T * a * hd / t                  /* the output projection's input */
                + T * h / sp;                         /* dropout mask */
  double g = m->gated_ffn ? 3 : 2;
  double mlp;

  if (moe)
    {
      /* Each token's copy in each routed and shared expert, split by tp. */
      double copies = (double) m->experts_per_token + m->shared_experts;
      mlp = 2 * T * h / sp + copies * T * (2 * h + 2 * (g - 1) * m->moe_ffn_hidden
                                           + 2 * m->moe_ffn_hidden) / t + T * h / sp;
    }
  else
    mlp = 2 * T * h / sp + T * (2 * (g - 1) * m->ffn_hidden + 2 * m->ffn_hidden) / t
          + T * h / sp;
  *scores = 5.0 * T * s_kv * a / t;
  return attn + mlp + 4 * T * h / sp; /* and the two norms' inputs */
}

/* One layer's forward pass for one micro-batch on one GPU: matrix
 * products, attention, element-wise kernels.  ATTN gets the attention's
 * own part (what recomputation and context parallelism care about). */
static void
layer_forward (const SimLlmModel *m, const SimLlmLayout *l, const Rates *r, double T,
               double s_kv, gboolean moe, Work *w, Work *attn)
{
  double t = l->tp, h = m->hidden, hd = m->head_dim, a = m->heads;
  double g = m->gated_ffn ? 2 : 1, scores, act;
  Work at = { 0 };

  /* Projections. */
  if (m->kv_lora_rank > 0)
    {
      double rope = m->qk_rope_dim;
      if (m->q_lora_rank > 0)
        {
          gemm (w, r, T, h, m->q_lora_rank, 1);
          gemm (w, r, T, m->q_lora_rank, a * (hd + rope) / t, 1);
        }
      else
        gemm (w, r, T, h, a * (hd + rope) / t, 1);
      gemm (w, r, T, h, m->kv_lora_rank + rope, 1);
      gemm (w, r, T, m->kv_lora_rank, a * 2 * hd / t, 1);
    }
  else
    gemm (w, r, T, h, (a + 2.0 * m->kv_heads) * hd / t, 1);
  gemm (w, r, T, a * hd / t, h, 1);

  /* Attention: flash attention at its own efficiency, or two batched
   * products and the scores' traffic. */
  {
    double seqs = l->micro_batch;  /* each sequence's T / seqs queries over s_kv keys */
    double qk = hd + m->qk_rope_dim;
    double heads = a / t;
    double flops = 2.0 * T * s_kv * heads * (qk + hd);
    if (l->flash_attention)
      {
        at.time += flops / r->flash_peak;
        at.flops += flops;
      }
    else
      {
        Rates bf = *r;
        /* The scores' products run in BF16 even under FP8. */
        bf.peak = r->flash_peak / r->flash_eff_share;
        bf.eff = r->bf16_eff;
        bf.elt_bytes = 2;
        gemm (&at, &bf, T / seqs, qk, s_kv, seqs * heads);
        gemm (&at, &bf, T / seqs, s_kv, hd, seqs * heads);
        stream (&at, r, SCORE_TRAFFIC * T * s_kv * heads);
      }
  }

  /* The feed-forward network: dense, or the router, the routed experts'
   * tokens (each GPU holding experts / ep of them gets, on average, T k
   * tokens from its expert-parallel group) and the shared experts. */
  if (moe)
    {
      double k = m->experts_per_token, local = (double) m->experts / l->ep;
      double rows = T * k * l->ep / m->experts;
      gemm (w, r, T, h, m->experts, 1);
      gemm (w, r, rows, h, g * m->moe_ffn_hidden / t, local);
      gemm (w, r, rows, m->moe_ffn_hidden / t, h, local);
      if (m->shared_experts > 0)
        {
          gemm (w, r, T, h, g * m->moe_ffn_hidden * m->shared_experts / t, 1);
          gemm (w, r, T, m->moe_ffn_hidden * m->shared_experts / t, h, 1);
        }
    }
  else
    {
      gemm (w, r, T, h, g * m->ffn_hidden / t, 1);
      gemm (w, r, T, m->ffn_hidden / t, h, 1);
    }

  act = layer_activations (m, l, T, s_kv, moe, &scores);
  stream (w, r, ELEMENTWISE_TRAFFIC * act);
  w->time += at.time;
  w->flops += at.flops;
  *attn = at;
}

/* ------------------------------------------------------------------------ */
/* The step */

static gboolean
check_layout (SimLlmSystem *s, const SimLlmModel *m, SimLlmLayout *l, guint *dp_out,
              GError **error)
{
  guint seq = l->seq_length > 0 ? l->seq_length : m->seq_length;
  guint mp = l->tp * l->pp * l->cp;
  guint gpus, dp;

#define BAD(...) \
  do { \
    g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, __VA_ARGS__); \
    return FALSE; \
  } while (0)

  if (l->tp == 0 || l->pp == 0 || l->cp == 0 || l->ep == 0 || l->virtual_stages == 0
      || l->micro_batch == 0)
    BAD ("tp, pp, cp, ep, virtual_stages and micro_batch must be at least 1");
  if (m->heads % l->tp != 0)
    BAD ("tp = %u does not divide the model's %u heads: expected a divisor", l->tp, m->heads);
  if (m->kv_lora_rank == 0 && m->kv_heads % l->tp != 0 && l->tp % m->kv_heads != 0)
    BAD ("tp = %u and the model's %u key/value heads: expected one to divide the other",
         l->tp, m->kv_heads);
  /* A tensor-parallel group all-reduces (or gathers and scatters) every
   * layer's activations four times a micro-batch: Megatron-LM places it
   * on the NVLink of one node, and a degree that does not divide a node's
   * GPUs spreads groups over nodes, a layout no published run uses and
   * most often a mistyped one. */
  if (s->gpus_per_node > 0 && s->gpus_per_node % l->tp != 0)
    BAD ("tp = %u: expected a divisor of the %u GPUs of a node (a tensor-parallel group "
         "stays within one, on its NVLink)", l->tp, s->gpus_per_node);
  if (l->pp * l->virtual_stages > m->layers)
    BAD ("pp x virtual_stages = %u: expected at most the model's %u layers",
         l->pp * l->virtual_stages, m->layers);
  if (l->virtual_stages > 1 && l->pp == 1)
    BAD ("virtual_stages = %u: expected pp > 1 (interleaving splits a pipeline)",
         l->virtual_stages);
  if (seq % l->cp != 0 || seq / l->cp < 1)
    BAD ("cp = %u does not divide the sequence of %u tokens", l->cp, seq);
  /* Sequence parallelism splits each context-parallel rank's tokens over
   * the tensor-parallel ranks (Megatron-LM asserts as much). */
  if (l->sequence_parallel && (seq / l->cp) % l->tp != 0)
    BAD ("sequence_parallel: %u tokens per context-parallel rank are not a multiple of tp = %u; "
         "expected a seq_length that tp x cp divides, or sequence_parallel = false",
         seq / l->cp, l->tp);
  if (m->experts == 0 && l->ep > 1)
    BAD ("ep = %u: the model %s has no experts", l->ep, m->name);
  if (m->experts > 0 && m->experts % l->ep != 0)
    BAD ("ep = %u does not divide the model's %u experts", l->ep, m->experts);
  if (l->precision == SIM_LLM_PRECISION_FP8 && s->gpu->fp8_tflops <= 0)
    BAD ("precision = fp8: the %s has no FP8 peak in the catalogue", s->gpu->name);
  gpus = l->gpus;
  dp = l->dp;
  if (dp == 0)
    {
      if (gpus == 0)
        gpus = s->n_gpus;
      if (gpus % mp != 0)
        BAD ("%u GPUs are not a multiple of tp x pp x cp = %u", gpus, mp);
      dp = gpus / mp;
    }
  else if (gpus != 0 && gpus != dp * mp)
    BAD ("gpus = %u but tp x pp x cp x dp = %u", gpus, dp * mp);
  gpus = dp * mp;
  if (gpus > s->n_gpus)
    BAD ("the layout takes %u GPUs; the cluster has %u", gpus, s->n_gpus);
  if (dp % l->ep != 0)
    BAD ("ep = %u does not divide dp = %u (experts are spread over data-parallel ranks)",
         l->ep, dp);
  if (l->global_batch == 0)
    l->global_batch = l->micro_batch * dp;
  if (l->global_batch % (l->micro_batch * dp) != 0)
    BAD ("global_batch = %u is not a multiple of micro_batch x dp = %u x %u", l->global_batch,
         l->micro_batch, dp);
  if (l->tp_overlap < 0 || l->tp_overlap > 1)
    BAD ("tp_overlap = %g: expected a share from 0 to 1", l->tp_overlap);
#undef BAD
  l->seq_length = seq;
  l->dp = dp;
  l->gpus = gpus;
  *dp_out = dp;
  return TRUE;
}

/* The communication of one micro-batch through one layer, per kind. */
static gboolean
layer_comm (SimLlmSystem *s, const SimLlmModel *m, const SimLlmLayout *l, double T,
            gboolean moe, const Work *attn_f, double comm_f[SIM_LLM_COMM_N_KINDS],
            double comm_b[SIM_LLM_COMM_N_KINDS], double exp_f[SIM_LLM_COMM_N_KINDS],
            double exp_b[SIM_LLM_COMM_N_KINDS], GError **error)
{
  double act = 2.0 * T * m->hidden;  /* one micro-batch's activations, BF16 */
  double t_ag, t_rs, t_ar, tp_one;

  /* Tensor parallelism: the attention and the MLP each gather their input
   * and reduce their output, forward and backward. */
  if (l->tp > 1)
    {
      if (l->sequence_parallel)
        {
          if (!coll_time (s, SIM_COLLECTIVE_ALL_GATHER, l->tp, 1, act, &t_ag, error) ||
              !coll_time (s, SIM_COLLECTIVE_REDUCE_SCATTER, l->tp, 1, act, &t_rs, error))
            return FALSE;
          tp_one = 2 * (t_ag + t_rs);
        }
      else
        {
          if (!coll_time (s, SIM_COLLECTIVE_ALL_REDUCE, l->tp, 1, act, &t_ar, error))
            return FALSE;
          tp_one = 2 * t_ar;
        }
      comm_f[SIM_LLM_COMM_TP] += tp_one;
      comm_b[SIM_LLM_COMM_TP] += tp_one * (l->recompute == SIM_LLM_RECOMPUTE_FULL ? 2 : 1);
      exp_f[SIM_LLM_COMM_TP] += (1 - l->tp_overlap) * tp_one;
      exp_b[SIM_LLM_COMM_TP] += (1 - l->tp_overlap) * tp_one
                                * (l->recompute == SIM_LLM_RECOMPUTE_FULL ? 2 : 1);
    }
  /* Context parallelism: the ring passes every chunk's keys and values
   * round (an all-gather forward, and again with the reduce-scatter of
   * their gradients backward), behind the attention it feeds. */
  if (l->cp > 1)
    {
      double kv = m->kv_lora_rank > 0 ? m->heads : m->kv_heads;
      double local = 2.0 * 2.0 * T * kv * m->head_dim / l->tp;
      double t_f, t_b;
      if (!coll_time (s, SIM_COLLECTIVE_ALL_GATHER, l->cp, l->tp, local * l->cp, &t_ag, error) ||
          !coll_time (s, SIM_COLLECTIVE_REDUCE_SCATTER, l->cp, l->tp, local * l->cp, &t_rs,
                      error))
        return FALSE;
      t_f = t_ag;
      t_b = t_ag + t_rs;
      comm_f[SIM_LLM_COMM_CP] += t_f;
      comm_b[SIM_LLM_COMM_CP] += t_b;
      exp_f[SIM_LLM_COMM_CP] += MAX (0, t_f - attn_f->time);
      exp_b[SIM_LLM_COMM_CP] += MAX (0, t_b - 2 * attn_f->time);
    }
  /* Expert parallelism: dispatch and combine, forward and backward, over
   * ep data-parallel ranks. */
  if (moe && l->ep > 1)
    {
      double bytes = 2.0 * T * m->experts_per_token * m->hidden
                     / (l->sequence_parallel ? l->tp : 1);
      double t_a2a;
      if (!coll_time (s, SIM_COLLECTIVE_ALL_TO_ALL, l->ep, l->tp * l->cp, bytes, &t_a2a, error))
        return FALSE;
      comm_f[SIM_LLM_COMM_EP] += 2 * t_a2a;
      comm_b[SIM_LLM_COMM_EP] += 2 * t_a2a * (l->recompute == SIM_LLM_RECOMPUTE_FULL ? 2 : 1);
      exp_f[SIM_LLM_COMM_EP] += 2 * t_a2a;
      exp_b[SIM_LLM_COMM_EP] += 2 * t_a2a * (l->recompute == SIM_LLM_RECOMPUTE_FULL ? 2 : 1);
    }
  return TRUE;
}

/* Parameters one GPU of the most loaded stage holds: DENSE (replicated
 * over the data-parallel ranks) and EXPERT (spread over ep of them). */
static void
stage_parameters (const SimLlmModel *m, const SimLlmLayout *l, guint n_dense, guint n_moe,
                  gboolean first, gboolean last, double *dense, double *expert)
{
  double h = m->hidden, t = l->tp;
  double attn = 0, ffn_dense, expert_one, d, e;
  double g = m->gated_ffn ? 3 : 2;

  {
    /* The attention's weights, as sim_llm_model_parameters() counts them. */
    SimLlmModel one = *m;
    one.layers = 1;
    one.dense_layers = 0;
    one.experts = 0;
    one.shared_experts = 0;
    one.ffn_hidden = 0;
    one.vocab = 0;
    attn = sim_llm_model_parameters (&one) - 3 * h;  /* less the norms it adds */
  }
  ffn_dense = g * h * m->ffn_hidden;
  expert_one = g * h * m->moe_ffn_hidden;
  d = n_dense * (attn + ffn_dense) / t + (n_dense + n_moe) * 2 * h
      + n_moe * (attn + m->shared_experts * expert_one + h * m->experts) / t;
  e = n_moe * ((double) m->experts / l->ep) * expert_one / t;
  if (first)
    d += (double) m->vocab * h / t;
  if (last && (!m->tied_embeddings || l->pp > 1))
    d += (double) m->vocab * h / t;
  *dense = d;
  *expert = e;
}

gboolean
sim_llm_estimate (SimLlmSystem *system, const SimLlmModel *model, const SimLlmLayout *layout,
                  SimLlmEstimate *est, GError **error)
{
  SimLlmSystem *s = system;
  const SimLlmModel *m = model;
  SimLlmLayout l = *layout;
  guint dp, micro, v, p, per_stage, n_moe_total, n_moe, n_dense;
  double T, s_kv, bf16_peak, tokens, dense_p, expert_p, dense_first, dense_last, expert_first, h;
  double comm_f[SIM_LLM_COMM_N_KINDS] = { 0 }, comm_b[SIM_LLM_COMM_N_KINDS] = { 0 };
  double exp_f[SIM_LLM_COMM_N_KINDS] = { 0 }, exp_b[SIM_LLM_COMM_N_KINDS] = { 0 };
  double fwd, bwd, t_f, t_b, mb_fwd_exposed, mb_bwd_exposed, pipe;
  Work dense_w = { 0 }, moe_w = { 0 }, attn_d = { 0 }, attn_m = { 0 }, logits = { 0 };
  Rates r;

  g_return_val_if_fail (system != NULL && model != NULL && layout != NULL && est != NULL,
                        FALSE);
  memset (est, 0, sizeof *est);
  if (!check_layout (s, m, &l, &dp, error))
    return FALSE;

  h = m->hidden;
  p = l.pp;
  v = l.virtual_stages;
  micro = l.global_batch / (l.micro_batch * dp);
  T = (double) l.micro_batch * l.seq_length / l.cp;
  s_kv = l.seq_length;  /* each query chunk attends to the whole sequence */
  bf16_peak = s->gpu->fp16_tflops * 1e12;
  r.bandwidth = s->gpu->memory_bandwidth;
  r.mem_bw = s->gpu->memory_bandwidth * s->eff.memory;
  r.flash_peak = bf16_peak * s->eff.flash;
  r.flash_eff_share = s->eff.flash;
  r.bf16_eff = s->eff.gemm;
  if (l.precision == SIM_LLM_PRECISION_FP8)
    {
      r.peak = s->gpu->fp8_tflops * 1e12;
      r.eff = s->eff.gemm * FP8_GEMM_DERATE;
      r.elt_bytes = 1;
    }
  else
    {
      r.peak = bf16_peak;
      r.eff = s->eff.gemm;
      r.elt_bytes = 2;
    }

  /* The most loaded stage's layers: ceil(layers / (pp v)) per chunk, v
   * chunks; in a MoE model, as many MoE layers as it can hold. */
  per_stage = (m->layers + p * v - 1) / (p * v) * v;
  n_moe_total = m->experts > 0 ? m->layers - m->dense_layers : 0;
  n_moe = MIN (per_stage, n_moe_total);
  n_dense = per_stage - n_moe;

  layer_forward (m, &l, &r, T, s_kv, FALSE, &dense_w, &attn_d);
  if (n_moe > 0)
    layer_forward (m, &l, &r, T, s_kv, TRUE, &moe_w, &attn_m);
  /* The output layer and the loss, on the last stage. */
  gemm (&logits, &r, T, h, (double) m->vocab / l.tp, 1);
  stream (&logits, &r, 3 * 4.0 * T * m->vocab / l.tp);

  {
    double cf[SIM_LLM_COMM_N_KINDS] = { 0 }, cb[SIM_LLM_COMM_N_KINDS] = { 0 };
    double ef[SIM_LLM_COMM_N_KINDS] = { 0 }, eb[SIM_LLM_COMM_N_KINDS] = { 0 };
    if (n_dense > 0
        && !layer_comm (s, m, &l, T, FALSE, &attn_d, cf, cb, ef, eb, error))
      return FALSE;
    for (guint k = 0; k < SIM_LLM_COMM_N_KINDS; k++)
      {
        comm_f[k] += n_dense * cf[k];
        comm_b[k] += n_dense * cb[k];
        exp_f[k] += n_dense * ef[k];
        exp_b[k] += n_dense * eb[k];
        cf[k] = cb[k] = ef[k] = eb[k] = 0;
      }
    if (n_moe > 0 && !layer_comm (s, m, &l, T, TRUE, &attn_m, cf, cb, ef, eb, error))
      return FALSE;
    for (guint k = 0; k < SIM_LLM_COMM_N_KINDS; k++)
      {
        comm_f[k] += n_moe * cf[k];
        comm_b[k] += n_moe * cb[k];
        exp_f[k] += n_moe * ef[k];
        exp_b[k] += n_moe * eb[k];
      }
  }

  /* Forward and backward compute of one micro-batch on the stage.  The
   * backward pass does twice the forward's products; flash attention's
   * backward recomputes the scores (2.5 times its forward); recomputation
   * adds the forward pass again (full) or the attention's scores (selective,
   * without flash attention). */
  fwd = n_dense * dense_w.time + n_moe * moe_w.time + logits.time;
  {
    double attn_fwd = n_dense * attn_d.time + n_moe * attn_m.time;
    double rest = fwd - attn_fwd;
    bwd = 2 * rest + (l.flash_attention ? 2.5 : 2.0) * attn_fwd;
    if (l.recompute == SIM_LLM_RECOMPUTE_FULL)
      bwd += fwd - logits.time;
    else if (l.recompute == SIM_LLM_RECOMPUTE_SELECTIVE && !l.flash_attention)
      bwd += attn_fwd;
  }

  /* Pipeline send/receive: a micro-batch's activations (split over the
   * tensor-parallel ranks, Megatron-LM's scatter/gather) forward and their
   * gradients backward, between neighbouring stages, once per chunk. */
  if (p > 1)
    {
      double t_pp;
      if (!coll_time (s, SIM_COLLECTIVE_SEND_RECV, 2, l.tp * l.cp * dp, 2.0 * T * h / l.tp,
                      &t_pp, error))
        return FALSE;
      comm_f[SIM_LLM_COMM_PP] = comm_b[SIM_LLM_COMM_PP] = v * t_pp;
      /* Interleaved, a chunk's messages travel while the stage computes
       * another chunk (Megatron-Core's overlapped pipeline communication);
       * otherwise the stage waits for them. */
      exp_f[SIM_LLM_COMM_PP] = v > 1 ? v * MAX (0, t_pp - fwd / v) : t_pp;
      exp_b[SIM_LLM_COMM_PP] = v > 1 ? v * MAX (0, t_pp - bwd / v) : t_pp;
    }

  mb_fwd_exposed = mb_bwd_exposed = 0;
  for (guint k = 0; k < SIM_LLM_COMM_N_KINDS; k++)
    {
      mb_fwd_exposed += exp_f[k];
      mb_bwd_exposed += exp_b[k];
    }
  t_f = fwd + mb_fwd_exposed;
  t_b = bwd + mb_bwd_exposed;
  pipe = (micro + (double) (p - 1) / v) * (t_f + t_b);

  /* A stage's own micro-batches expose their communication once each; the
   * (p - 1) / v passes of the bubble are the other stages' work, waited
   * for, and count in the bubble's time (below), not here again: so that
   * what is exposed never exceeds the communication's time, and compute,
   * bubble, exposed communication and optimizer add up to the step. */
  for (guint k = 0; k < SIM_LLM_COMM_N_KINDS; k++)
    {
      est->comm_time[k] = micro * (comm_f[k] + comm_b[k]);
      est->comm_exposed[k] = micro * (exp_f[k] + exp_b[k]);
    }

  /* Data parallelism over the dp x cp ranks that hold the same weights
   * (stride tp), experts over dp / ep of them (stride tp cp ep). */
  stage_parameters (m, &l, n_dense, n_moe, p == 1, TRUE, &dense_last, &expert_p);
  stage_parameters (m, &l, n_dense, n_moe, TRUE, p == 1, &dense_first, &expert_first);
  dense_p = MAX (dense_last, dense_first);
  {
    guint dcp = dp * l.cp, edp = dp / l.ep;
    double total = 0, exposed = 0;
    struct { double params; guint n; guint stride; } groups[2] = {
      { dense_p, dcp, l.tp }, { expert_p, edp, l.tp * l.cp * l.ep },
    };
    for (guint gi = 0; gi < 2; gi++)
      {
        double P = groups[gi].params, ar, rs, ag;
        guint n = groups[gi].n, stride = groups[gi].stride;
        if (P <= 0 || n < 2)
          continue;
        switch (l.zero_stage)
          {
          case 0:
            if (!coll_time (s, SIM_COLLECTIVE_ALL_REDUCE, n, stride, 4 * P, &ar, error))
              return FALSE;
            total += ar;
            exposed += l.overlap_grad_reduce ? MAX (0, ar - t_b) : ar;
            break;
          case 1:
          case 2:
            if (!coll_time (s, SIM_COLLECTIVE_REDUCE_SCATTER, n, stride, 4 * P, &rs, error) ||
                !coll_time (s, SIM_COLLECTIVE_ALL_GATHER, n, stride, 2 * P, &ag, error))
              return FALSE;
            total += rs + ag;
            exposed += l.overlap_grad_reduce ? MAX (0, rs - t_b) + MAX (0, ag - t_f) : rs + ag;
            break;
          default:
            /* ZeRO 3: the weights are gathered for every micro-batch's
             * forward and backward pass and the gradients reduced after
             * each, layer by layer behind the compute. */
            if (!coll_time (s, SIM_COLLECTIVE_REDUCE_SCATTER, n, stride, 4 * P, &rs, error) ||
                !coll_time (s, SIM_COLLECTIVE_ALL_GATHER, n, stride, 2 * P, &ag, error))
              return FALSE;
            total += micro * (2 * ag + rs);
            exposed += micro * (l.overlap_grad_reduce ? MAX (0, ag - fwd) + MAX (0, ag + rs - bwd)
                                                      : 2 * ag + rs);
            break;
          }
      }
    est->comm_time[SIM_LLM_COMM_DP] = total;
    est->comm_exposed[SIM_LLM_COMM_DP] = exposed;
  }

  /* The optimizer's step over its shard. */
  {
    double shard = dense_p / (l.zero_stage >= 1 ? dp * l.cp : 1)
                   + expert_p / (l.zero_stage >= 1 ? MAX (1u, dp / l.ep) : 1);
    est->optimizer_time = shard * ADAM_BYTES / r.mem_bw;
  }

  /* Memory of the most loaded GPU: the first stage (the most micro-batches
   * in flight, the input embedding) or the last (one micro-batch, the
   * output layer and its logits); with one stage, both at once. */
  {
    guint zs = l.zero_stage;
    double dcp = (double) dp * l.cp, edp = MAX (1.0, (double) dp / l.ep);
    double scores_d = 0, scores_m = 0;
    double act_d = layer_activations (m, &l, T, s_kv, FALSE, &scores_d);
    double act_m = n_moe > 0 ? layer_activations (m, &l, T, s_kv, TRUE, &scores_m) : 0;
    double per_mb, working = 0, in_flight, logits_bytes, ends[2][4];
    guint worst;

    if (l.recompute == SIM_LLM_RECOMPUTE_NONE && !l.flash_attention)
      {
        act_d += scores_d;
        act_m += scores_m;
      }
    if (l.recompute == SIM_LLM_RECOMPUTE_FULL)
      {
        /* Only each layer's input, and one layer's working set while it
         * is recomputed. */
        double input = 2 * T * h / (l.sequence_parallel ? l.tp : 1);
        per_mb = per_stage * input;
        working = MAX (act_d, act_m) + (l.flash_attention ? 0 : MAX (scores_d, scores_m));
      }
    else
      per_mb = n_dense * act_d + n_moe * act_m;
    /* 1F1B: the first stage holds p micro-batches (fewer if the step has
     * fewer), interleaving a few more (Narayanan et al., SC'21, 2.2.2). */
    in_flight = MIN ((double) micro, (double) p);
    if (v > 1)
      in_flight *= 1 + (double) (p - 1) / ((double) p * v);
    logits_bytes = 4.0 * T * m->vocab / l.tp;
    for (guint end = 0; end < 2; end++)
      {
        double dense = end == 0 ? dense_first : dense_last;
        double w = 2 * (dense / (zs >= 3 ? dcp : 1) + expert_p / (zs >= 3 ? edp : 1));
        if (zs >= 3)
          /* The layer being computed, gathered whole. */
          w += 2 * (dense + expert_p) / per_stage;
        ends[end][0] = w;
        ends[end][1] = 4 * (dense / (zs >= 2 ? dcp : 1) + expert_p / (zs >= 2 ? edp : 1));
        ends[end][2] = 12 * (dense / (zs >= 1 ? dcp : 1) + expert_p / (zs >= 1 ? edp : 1));
        ends[end][3] = (end == 0 ? per_mb * in_flight : per_mb) + working;
      }
    worst = 0;
    if (p > 1 && ends[1][0] + ends[1][1] + ends[1][2] + ends[1][3] + logits_bytes
                 > ends[0][0] + ends[0][1] + ends[0][2] + ends[0][3])
      worst = 1;
    est->memory_weights = ends[worst][0];
    est->memory_gradients = ends[worst][1];
    est->memory_optimizer = ends[worst][2];
    est->memory_activations = ends[worst][3];
    est->memory_logits = p == 1 || worst == 1 ? logits_bytes : 0;
    est->memory_reserved = RESERVED_BYTES;
    est->memory_per_gpu = est->memory_weights + est->memory_gradients + est->memory_optimizer
                          + est->memory_activations + est->memory_logits
                          + est->memory_reserved;
    est->memory_capacity = (double) s->gpu->memory_bytes;
  }

  /* The step. */
  tokens = (double) l.global_batch * l.seq_length;
  est->gpus = l.gpus;
  est->dp = dp;
  est->micro_batches = micro;
  est->compute_time = micro * (fwd + bwd);
  est->bubble_fraction = (double) (p - 1) / ((double) v * micro);
  est->bubble_time = (double) (p - 1) / v * (t_f + t_b);
  est->iteration_time = pipe + est->comm_exposed[SIM_LLM_COMM_DP] + est->optimizer_time;
  est->tokens_per_step = tokens;
  est->tokens_per_second = tokens / est->iteration_time;
  est->model_flops_per_step = sim_llm_model_flops_per_token (m, l.seq_length) * tokens;
  est->hardware_flops_per_step = est->model_flops_per_step;
  if (l.recompute == SIM_LLM_RECOMPUTE_FULL)
    /* Narayanan et al. count the recomputed forward pass of the layers
     * (not of the output layer) in their achieved FLOP/s. */
    est->hardware_flops_per_step += (est->model_flops_per_step / 3
                                     - 2.0 * h * m->vocab * tokens);
  est->tflops_per_gpu = est->hardware_flops_per_step / (est->iteration_time * l.gpus) / 1e12;
  est->mfu = est->model_flops_per_step / (est->iteration_time * l.gpus * bf16_peak);
  /* The share of the products' peak the forward pass reaches, all its
   * kernels counted. */
  est->gemm_efficiency = (n_dense * dense_w.flops + n_moe * moe_w.flops + logits.flops)
                         / (fwd * r.peak);
  est->parameters = sim_llm_model_parameters (m);
  if (l.tokens > 0)
    {
      est->train_steps = ceil (l.tokens / tokens);
      est->train_time = est->train_steps * est->iteration_time;
      est->gpu_hours = est->train_time * l.gpus / 3600.0;
    }

  if (est->memory_per_gpu > est->memory_capacity)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                   "the layout does not fit: %.1f GB per GPU of the %s's %.1f GB (weights "
                   "%.1f, gradients %.1f, optimizer %.1f, activations %.1f, logits %.1f, "
                   "reserved %.1f GB); expected more tensor, pipeline or context "
                   "parallelism, a higher ZeRO stage, recomputation or smaller micro-batches",
                   est->memory_per_gpu / 1e9, s->gpu->name, est->memory_capacity / 1e9,
                   est->memory_weights / 1e9, est->memory_gradients / 1e9,
                   est->memory_optimizer / 1e9, est->memory_activations / 1e9,
                   est->memory_logits / 1e9, est->memory_reserved / 1e9);
      return FALSE;
    }
  return TRUE;
}
