/* check-serve: serving a language model (libsim/serve).
 *
 * Closed forms: a lone decode step reads the weights once, so it takes
 * their bytes over the HBM bandwidth divided by the memory efficiency; the
 * time-average number of requests in the system equals the arrival rate
 * times the mean time in it (Little's law); with one sequence per
 * iteration and one output token, a replica is a single server of fixed
 * service time, whose mean wait under Poisson arrivals is the
 * Pollaczek-Khinchine M/D/1 formula rho D / (2 (1 - rho)).
 *
 * Published measurements, within 20 %: TensorRT-LLM's performance tables
 * (NVIDIA/TensorRT-LLM, docs/source/performance.md): H100 FP8 peak
 * throughput, v0.6.1, LLaMA 7B at batch 768 with 128 input and 128 output
 * tokens: 19,694 output tokens/s per GPU; LLaMA 70B with TP 2 at batch 1024,
 * 128/128: 2,657 output tokens/s per GPU; and H100 FP8 first-token latency
 * at batch 1, v0.5, LLaMA 7B with 2,048 input tokens: 36 ms; LLaMA 70B with
 * TP 4 and 2,048 input tokens: 109 ms.
 *
 * Held out, from the same v0.6.1 table: LLaMA 7B at batch 112, 128/2048:
 * 6,818; at batch 80, 2048/128: 2,244; at batch 48, 2048/2048: 2,740; LLaMA
 * 70B with TP 2 at batch 96, 2048/128: 306.  Its two other 70B rows, long
 * answers at large batches (TP 4, batch 480, 128/2048: 1,486; TP 2, batch
 * 64, 2048/2048: 547), are more than twice as fast here and are not
 * asserted: docs/serving.md gives what the model leaves out there.
 *
 * The 128-token first-token latencies of the same tables (7 ms for 7B, 26
 * ms for 70B on TP 4) are matched by construction: the host's launch floor
 * of a prefill iteration is tuned on them.  Held out: Vidur's H100 kernel
 * profiles (test_vidur_profiles) and MLPerf Inference v4.1's Llama 2 70B
 * results on a DGX H100 (test_mlperf_offline, test_mlperf_server).
 *
 * By hand: the KV cache's transfer between a prefill and a decode replica
 * (bytes over the NICs or NVLink), the prefix cache's hits counted from the
 * drawn requests, a MIG slice's and a time-shared replica's shares, and a
 * pipeline's iteration from its stages.  Trends: disaggregation lowers the
 * time per output token at high load (DistServe), kv_aware routing finds
 * shared prefixes cached more often and answers sooner, and gains nothing
 * without them.
 *
 * Every key moves the answer the way it must; bad input is refused with
 * the file, line and key; the command line exits non-zero on it.
 */
#include "config.h"

#include <check.h>
#include <json-glib/json-glib.h>
#include <sys/wait.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "core/sim-error.h"
#include "serve/sim-serve-private.h"

static char *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("check-serve-XXXXXX", NULL);
  ck_assert (tmpdir != NULL);
}

static void
teardown (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

/* The models of TensorRT-LLM's tables: Llama 2 7B and 70B as Touvron et
 * al. (2023) describe them. */
#define LLAMA2_MODELS \
  "[llm llama2-7b]\nlayers = 32\nhidden = 4096\nffn_hidden = 11008\nheads = 32\n" \
  "vocab = 32000\nseq_length = 4096\ngated_ffn = true\n\n" \
  "[llm llama2-70b]\nlayers = 80\nhidden = 8192\nffn_hidden = 28672\nheads = 64\n" \
  "kv_heads = 8\nvocab = 32000\nseq_length = 4096\ngated_ffn = true\n\n"

/* A scenario of one DGX H100 with SECTIONS (a [serving] and its
 * [requests]); returns its path. */
static char *
scenario (const char *name, const char *sections)
{
  g_autofree char *file = g_strdup_printf ("%s.ini", name);
  char *path = g_build_filename (tmpdir, file, NULL);
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = %s\nseed = 3\n\n[pool h100]\nmodel = DGX-H100\ncount = 1\n\n"
    "[workload]\nsource = synthetic\nrate = 1/h\ngpus = 8\njobs = 1\n"
    "duration = constant(1h)\n\n" LLAMA2_MODELS "%s", name, sections);

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* A chat deployment of Llama 3 8B and its requests; OPTIONS override. */
#define CHAT \
  "[serving chat]\nmodel = llama3-8b\nrequests = chat\n\n" \
  "[requests chat]\nrate = 20/s\ncount = 3000\ninput_tokens = 512\n" \
  "input_distribution = lognormal\noutput_tokens = 200\noutput_distribution = exponential\n"

static void
run (const char *path, const char * const *options, SimServeReport *report)
{
  g_autoptr(GError) error = NULL;

  if (!sim__serve_run (path, NULL, options, report, &error))
    ck_abort_msg ("%s", error->message);
}

/* ------------------------------------------------------------------------ */
/* Closed forms */

START_TEST (test_lone_decode_is_weights_over_bandwidth)
{
  g_autofree char *path = scenario ("decode", CHAT);
  g_auto(SimServeReport) r = { 0 };
  const char *options[] = { "requests.count=1", NULL };
  double bytes, bound, t;

  run (path, options, &r);
  /* Llama 3 8B's 8.03e9 published parameters in BF16, over the H100 SXM's
   * 3.35 TB/s (NVIDIA's datasheet). */
  bytes = 8.03e9 * 2;
  bound = bytes / 3.35e12;
  /* One sequence with a short context: the KV cache's bytes are a
   * thousandth of the weights'. */
  t = sim__serve_iteration_time (&r.replica, 0, 0, 1, 100);
  ck_assert_msg (t > bound, "%g s is faster than the bandwidth allows (%g s)", t, bound);
  ck_assert_msg (fabs (t / (bound / r.replica.memory_efficiency) - 1) < 0.05,
                 "a lone decode step takes %g s; the weights over the bandwidth at %.0f %% "
                 "efficiency take %g s", t, 100 * r.replica.memory_efficiency,
                 bound / r.replica.memory_efficiency);
}
END_TEST

/* Replicas kept busy from the first request to the last (every request at
 * time 0, four replicas, the batch one and small) are busy for the run's
 * length, not more: the busy share is at most 1, and within a thousandth
 * of it.  The iterations' times, each a fraction of the clock's tick,
 * once summed to more than the ticks they held the replicas for. */
START_TEST (test_busy_at_most_whole)
{
  g_autofree char *path = scenario ("busy", CHAT);
  const char *options[] = { "replicas=4", "requests.arrival=batch", "requests.input_tokens=100",
                            "requests.output_tokens=1", "requests.input_distribution=fixed",
                            "requests.output_distribution=fixed", NULL };
  g_auto(SimServeReport) r = { 0 };

  run (path, options, &r);
  ck_assert_msg (r.result.gpu_busy <= 1 && r.result.gpu_busy > 0.999, "busy %.12f",
                 r.result.gpu_busy);
  ck_assert_msg (r.result.kv_utilization >= 0 && r.result.kv_utilization <= 1, "KV %.12f",
                 r.result.kv_utilization);
}
END_TEST

START_TEST (test_littles_law)
{
  g_autofree char *path = scenario ("little", CHAT);
  g_auto(SimServeReport) r = { 0 };
  const char *options[] = { "requests.rate=30/s", "max_batch=32", NULL };
  double l, lw;

  run (path, options, &r);
  /* L, integrated over time from the arrivals and completions, against
   * lambda W from the requests' own latencies. */
  l = r.result.mean_in_system;
  lw = r.result.arrival_rate * r.result.e2e[0];
  ck_assert (r.result.requests == 3000);
  ck_assert_msg (l > 1, "L = %g: expected a queue", l);
  ck_assert_msg (fabs (l / lw - 1) < 1e-6, "L = %g, lambda W = %g", l, lw);
}
END_TEST

START_TEST (test_md1_closed_form)
{
  g_autofree char *path = scenario ("md1",
    "[serving s]\nmodel = llama3-8b\nrequests = q\nmax_batch = 1\n\n"
    "[requests q]\nrate = 1/s\ncount = 200000\ninput_tokens = 1024\noutput_tokens = 1\n");
  g_auto(SimServeReport) probe = { 0 }, r = { 0 };
  const char *one[] = { "requests.count=1", NULL };
  g_autofree char *rate = NULL;
  const char *options[] = { NULL, NULL };
  double d, rho = 0.7, expect;

  /* The service time: one prefill of 1,024 tokens, alone. */
  run (path, one, &probe);
  d = probe.result.ttft[0];
  ck_assert (d > 0);
  rate = g_strdup_printf ("requests.rate=%.9f/s", rho / d);
  options[0] = rate;
  run (path, options, &r);
  /* Pollaczek-Khinchine for deterministic service: W = D + rho D / (2 (1 - rho)). */
  expect = d + rho * d / (2 * (1 - rho));
  ck_assert_msg (fabs (r.result.ttft[0] / expect - 1) < 0.03,
                 "mean TTFT %g s; M/D/1 gives %g s (D = %g s, rho = %g)", r.result.ttft[0],
                 expect, d, rho);
  ck_assert_msg (fabs (r.result.gpu_busy / rho - 1) < 0.02, "busy %g, rho %g",
                 r.result.gpu_busy, rho);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Published measurements */

#define OFFLINE \
  "[serving s7]\nmodel = llama2-7b\nrequests = off\nprecision = fp8\nmax_batch = 768\n" \
  "max_batch_tokens = 1000000\n\n" \
  "[serving s70]\nmodel = llama2-70b\nrequests = off\nprecision = fp8\ntp = 2\n" \
  "max_batch = 1024\nmax_batch_tokens = 1000000\n\n" \
  "[requests off]\narrival = batch\ncount = 768\ninput_tokens = 128\noutput_tokens = 128\n"

typedef struct {
  const char *what;
  const char *deployment;
  const char *options[5];
  gboolean    throughput;   /* output tokens/s per GPU, else TTFT in s */
  double      published;
} Published;

static const Published published[] = {
  { "TensorRT-LLM v0.6.1, H100 FP8, LLaMA 7B, batch 768, 128/128 tokens: out tok/s/GPU",
    "s7", { NULL }, TRUE, 19694 },
  { "TensorRT-LLM v0.6.1, H100 FP8, LLaMA 70B TP 2, batch 1024, 128/128: out tok/s/GPU",
    "s70", { "requests.count=1024", NULL }, TRUE, 2657 },
  { "TensorRT-LLM v0.5, H100 FP8, LLaMA 7B, batch 1, 2,048 input tokens: first token (s)",
    "s7", { "requests.count=1", "requests.input_tokens=2048", "requests.output_tokens=1",
            NULL }, FALSE, 0.036 },
  { "TensorRT-LLM v0.5, H100 FP8, LLaMA 70B TP 4, batch 1, 2,048 input tokens: first token",
    "s70", { "tp=4", "requests.count=1", "requests.input_tokens=2048",
             "requests.output_tokens=1", NULL }, FALSE, 0.109 },
  { "TensorRT-LLM v0.5, H100 FP8, LLaMA 7B, batch 1, 128 input tokens: first token (s)",
    "s7", { "requests.count=1", "requests.input_tokens=128", "requests.output_tokens=1",
            NULL }, FALSE, 0.007 },
  { "TensorRT-LLM v0.5, H100 FP8, LLaMA 70B TP 4, batch 1, 128 input tokens: first token",
    "s70", { "tp=4", "requests.count=1", "requests.input_tokens=128",
             "requests.output_tokens=1", NULL }, FALSE, 0.026 },
  /* Held out: the rest of the same v0.6.1 H100 FP8 throughput table, each
   * at the batch it gives. */
  { "TensorRT-LLM v0.6.1, H100 FP8, LLaMA 7B, batch 112, 128/2048: out tok/s/GPU",
    "s7", { "requests.count=112", "requests.output_tokens=2048", NULL }, TRUE, 6818 },
  { "TensorRT-LLM v0.6.1, H100 FP8, LLaMA 7B, batch 80, 2048/128: out tok/s/GPU",
    "s7", { "requests.count=80", "requests.input_tokens=2048", NULL }, TRUE, 2244 },
  { "TensorRT-LLM v0.6.1, H100 FP8, LLaMA 7B, batch 48, 2048/2048: out tok/s/GPU",
    "s7", { "requests.count=48", "requests.input_tokens=2048", "requests.output_tokens=2048",
            NULL }, TRUE, 2740 },
  { "TensorRT-LLM v0.6.1, H100 FP8, LLaMA 70B TP 2, batch 96, 2048/128: out tok/s/GPU",
    "s70", { "requests.count=96", "requests.input_tokens=2048", NULL }, TRUE, 306 },
};

START_TEST (test_published)
{
  const Published *p = &published[_i];
  g_autofree char *path = scenario ("published", OFFLINE);
  g_auto(SimServeReport) r = { 0 };
  g_autoptr(GError) error = NULL;
  double ours;

  if (!sim__serve_run (path, p->deployment, p->options, &r, &error))
    ck_abort_msg ("%s", error->message);
  ours = p->throughput ? r.result.output_tokens_per_second / r.gpus : r.result.ttft[0];
  ck_assert_msg (fabs (ours / p->published - 1) <= 0.20, "%s: ours %g, published %g (%+.0f %%)",
                 p->what, ours, p->published, 100 * (ours / p->published - 1));
}
END_TEST

/* MLPerf Inference v4.1, datacenter, closed division, Llama 2 70B (99.9 %
 * accuracy), NVIDIA's DGX H100 (8 x H100-SXM-80GB, TensorRT-LLM; the
 * results' files in mlcommons/inference_results_v4.1, closed/NVIDIA/
 * results/DGX-H100_H100-SXM-80GBx8_TRT/llama2-70b-99.9/): four replicas of
 * TP 2 in FP8 (its configs/llama2-70b: batch 896 offline, 1,024 server).
 * Offline: 24,524.9 output tokens/s at 84.48 samples/s, hence 290.3 tokens
 * per sample.  Server: 74.42 samples/s completed within MLPerf's
 * constraints, p99 TTFT <= 2 s and p99 TPOT <= 200 ms (its mlperf.conf).
 * The samples come from OpenOrca with prompts and answers under 1,024
 * tokens; the prompts' mean length is not in those files: a lognormal of
 * mean 256 tokens is assumed (docs/serving.md gives how the figure moves
 * with it), and the answers' lengths a lognormal of the measured mean. */
#define MLPERF \
  "[serving mlperf]\nmodel = llama2-70b\nrequests = orca\ntp = 2\nreplicas = 4\n" \
  "precision = fp8\nmax_batch = 896\nchunked_prefill = true\n\n" \
  "[requests orca]\narrival = batch\ncount = 32768\ninput_tokens = 256\n" \
  "input_distribution = lognormal\ninput_max = 1023\noutput_tokens = 290.3\n" \
  "output_distribution = lognormal\noutput_max = 1023\n"

START_TEST (test_mlperf_offline)
{
  g_autofree char *path = scenario ("mlperf", MLPERF);
  g_auto(SimServeReport) r = { 0 };
  double ours;

  run (path, NULL, &r);
  ours = r.result.output_tokens_per_second;
  ck_assert_uint_eq (r.gpus, 8);
  ck_assert_msg (fabs (ours / 24524.9 - 1) <= 0.20, "MLPerf v4.1 offline, Llama 2 70B on 8 "
                 "H100: ours %.0f output tokens/s, published 24,525 (%+.0f %%)", ours,
                 100 * (ours / 24524.9 - 1));
}
END_TEST

/* The server figure is the highest rate that keeps MLPerf's latency
 * bounds: ours is within 20 % of it if the deployment keeps them at the
 * published rate and not at 1.2 times it. */
START_TEST (test_mlperf_server)
{
  g_autofree char *path = scenario ("mlperf", MLPERF);
  g_auto(SimServeReport) at = { 0 }, above = { 0 };
  const char *options[] = { "max_batch=1024", "requests.arrival=poisson",
                            "requests.count=30000", "requests.rate=74.42/s", NULL };

  run (path, options, &at);
  ck_assert_msg (at.result.ttft[3] <= 2.0 && at.result.tpot[3] <= 0.2,
                 "at 74.42 samples/s: p99 TTFT %g s, p99 TPOT %g s", at.result.ttft[3],
                 at.result.tpot[3]);
  options[3] = "requests.rate=89.30/s";
  run (path, options, &above);
  ck_assert_msg (above.result.ttft[3] > 2.0 || above.result.tpot[3] > 0.2,
                 "at 89.30 samples/s: p99 TTFT %g s, p99 TPOT %g s", above.result.ttft[3],
                 above.result.tpot[3]);
}
END_TEST

/* Vidur (Agrawal et al., MLSys 2024) simulates a replica from kernel times
 * it profiled on each GPU, published in its repository
 * (microsoft/vidur, data/profiling/compute/h100/meta-llama/<model>/mlp.csv):
 * per layer and per GPU of a tensor-parallel group, the median times of the
 * norms, the QKV, output, up and down projections, the rotary embedding,
 * the activation and the residual add, in BF16 on an H100, for a batch of
 * N tokens.  None of them was used to set the model's factors. */
typedef struct {
  const char *model;
  guint       tp;
  guint       tokens;
  double      layer_ms;   /* the sum of those medians */
} VidurRow;

static const VidurRow vidur_rows[] = {
  { "llama2-7b", 1, 1, 0.175 },
  { "llama2-7b", 1, 128, 0.199 },
  { "llama2-7b", 1, 2048, 1.2665 },
  { "llama2-7b", 1, 4096, 2.592 },
  { "llama2-7b", 2, 512, 0.2215 },
  { "llama2-70b", 2, 1, 0.319 },
  { "llama2-70b", 4, 1, 0.179 },
  { "llama2-70b", 4, 2048, 1.4195 },
  { "llama2-70b", 8, 4096, 1.538 },
};

START_TEST (test_vidur_profiles)
{
  const VidurRow *v = &vidur_rows[_i];
  g_autofree char *path = scenario ("vidur", "[serving s]\nmodel = llama2-7b\nrequests = q\n\n"
                                    "[requests q]\ncount = 1\nrate = 1/s\ninput_tokens = 16\n"
                                    "output_tokens = 1\n");
  g_autofree char *model = g_strdup_printf ("model=%s", v->model);
  g_autofree char *tp = g_strdup_printf ("tp=%u", v->tp);
  const char *options[] = { model, tp, NULL };
  g_auto(SimServeReport) r = { 0 };
  const SimServeReplica *x = &r.replica;
  double t, layer;

  run (path, options, &r);
  /* N tokens through every layer, without attention over a context (a
   * decode step of N sequences with empty caches: no host-bound floor),
   * less the fixed launch overhead and the all-reduces Vidur profiles
   * apart. */
  t = sim__serve_iteration_time (x, 0, 0, v->tokens, 0) - x->iteration_overhead;
  if (x->tp > 1)
    t -= 2.0 * x->layers * (x->allreduce_latency
                            + (double) v->tokens * x->hidden * 2 * x->allreduce_per_byte);
  layer = 1e3 * t / x->layers;
  ck_assert_msg (fabs (layer / v->layer_ms - 1) <= 0.20,
                 "%s, tp %u, %u tokens: %.3f ms a layer; Vidur's profile %.3f ms (%+.0f %%)",
                 v->model, v->tp, v->tokens, layer, v->layer_ms,
                 100 * (layer / v->layer_ms - 1));
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Every key moves the answer the way it must */

typedef enum { TTFT_P99, TPOT_MEAN, THROUGHPUT, KV_CAPACITY, PREEMPTIONS, GOODPUT, E2E_MEAN,
               TPOT_MAX, TTFT_MEAN, REPLICA_HOURS, PREFIX_HITS, PREFIX_TOKENS, E2E_P99,
               REQUESTS } Metric;

static double
metric (const SimServeReport *r, Metric m)
{
  switch (m)
    {
    case TTFT_P99: return r->result.ttft[3];
    case TTFT_MEAN: return r->result.ttft[0];
    case TPOT_MEAN: return r->result.tpot[0];
    case TPOT_MAX: return r->result.tpot[4];
    case THROUGHPUT: return r->result.output_tokens_per_second;
    case KV_CAPACITY: return r->result.kv_capacity_tokens;
    case PREEMPTIONS: return (double) r->result.preemptions;
    case GOODPUT: return r->result.goodput;
    case REPLICA_HOURS: return r->result.replica_seconds / 3600;
    case PREFIX_HITS: return (double) r->result.prefix_hits;
    case PREFIX_TOKENS: return r->result.prefix_hit_tokens;
    case E2E_P99: return r->result.e2e[3];
    case REQUESTS: return (double) r->result.requests;
    case E2E_MEAN: default: return r->result.e2e[0];
    }
}

typedef struct {
  const char *what;
  const char *base[5];    /* options of both runs */
  const char *low;        /* the option's smaller (or first) value */
  const char *high;
  Metric      metric;
  int         direction;  /* +1: the metric grows from low to high */
} Direction;

static const Direction directions[] = {
  { "more replicas: lower p99 TTFT", { "requests.rate=40/s" }, "replicas=1", "replicas=2",
    TTFT_P99, -1 },
  { "larger max batch: higher throughput", { "requests.arrival=batch", "requests.count=512" },
    "max_batch=16", "max_batch=128", THROUGHPUT, +1 },
  { "larger max batch: higher TPOT", { "requests.arrival=batch", "requests.count=512" },
    "max_batch=16", "max_batch=128", TPOT_MEAN, +1 },
  { "fp8: faster", { "requests.arrival=batch", "requests.count=512" }, "precision=bf16",
    "precision=fp8", THROUGHPUT, +1 },
  { "more tensor parallelism: lower TPOT", { "requests.rate=2/s" }, "tp=1", "tp=2", TPOT_MEAN,
    -1 },
  { "a larger token budget: longer decode stalls behind prompt chunks", {
    "chunked_prefill=true", "requests.rate=30/s", "requests.input_tokens=2048" },
    "max_batch_tokens=512", "max_batch_tokens=8192", TPOT_MAX, +1 },
  { "chunked prefill: no decode stalls behind whole prompts", { "requests.rate=30/s",
    "requests.input_tokens=2048", "max_batch_tokens=2048" }, "chunked_prefill=false",
    "chunked_prefill=true", TPOT_MAX, -1 },
  { "least outstanding beats round robin at p99", { "requests.rate=60/s", "replicas=3",
    "requests.input_cv=3" },
    "router=round_robin", "router=least_outstanding", TTFT_P99, -1 },
  { "a larger memory share: a larger KV cache", { "requests.count=10" }, "memory_share=0.5",
    "memory_share=0.9", KV_CAPACITY, +1 },
  { "a smaller memory share: preemptions", { "requests.arrival=batch", "requests.count=400",
    "max_batch=400", "requests.input_tokens=2048" }, "memory_share=0.3", "memory_share=0.9",
    PREEMPTIONS, -1 },
  { "larger KV pages: fewer sequences fit, less throughput", { "requests.arrival=batch",
    "requests.count=400", "max_batch=400", "memory_share=0.3", "requests.input_tokens=2048" },
    "kv_block=16", "kv_block=1024", THROUGHPUT, -1 },
  { "a looser TTFT objective: more goodput", { "requests.rate=40/s" }, "slo_ttft=50ms",
    "slo_ttft=10s", GOODPUT, +1 },
  { "a looser TPOT objective: more goodput", { "requests.rate=40/s" }, "slo_tpot=10ms",
    "slo_tpot=1s", GOODPUT, +1 },
  { "a higher rate: higher p99 TTFT", { NULL }, "requests.rate=5/s", "requests.rate=40/s",
    TTFT_P99, +1 },
  { "longer prompts: higher TTFT", { NULL }, "requests.input_tokens=128",
    "requests.input_tokens=2048", TTFT_MEAN, +1 },
  { "longer outputs: longer requests", { NULL }, "requests.output_tokens=50",
    "requests.output_tokens=400", E2E_MEAN, +1 },
  { "a burst: higher p99 TTFT", { "requests.rate=25/s", "requests.burst_start=20s",
    "requests.burst_duration=30s" }, "requests.burst_factor=1", "requests.burst_factor=3",
    TTFT_P99, +1 },
  { "pipeline stages: a larger KV cache", { "requests.count=10" }, "pp=1", "pp=2",
    KV_CAPACITY, +1 },
  { "pipeline stages: more sequences fit, fewer preemptions", { "requests.arrival=batch",
    "requests.count=400", "max_batch=400", "memory_share=0.3", "requests.input_tokens=2048" },
    "pp=1", "pp=2", PREEMPTIONS, -1 },
  { "a smaller MIG slice: slower decodes", { "precision=fp8", "requests.rate=2/s" },
    "mig=7g.80gb", "mig=1g.20gb", TPOT_MEAN, +1 },
  { "a smaller MIG slice: slower prefills", { "precision=fp8", "requests.rate=2/s" },
    "mig=7g.80gb", "mig=2g.20gb", TTFT_MEAN, +1 },
  { "time-sharing a GPU: slower decodes", { "requests.rate=2/s" }, "replicas_per_gpu=1",
    "replicas_per_gpu=2", TPOT_MEAN, +1 },
  { "disaggregation: decodes not held up by whole prompts", { "requests.rate=10/s",
    "requests.input_tokens=2048" }, "disaggregated=false", "disaggregated=true", TPOT_MAX,
    -1 },
  { "more prefill replicas: sooner first tokens", { "disaggregated=true",
    "decode_replicas=3", "requests.rate=60/s" }, "prefill_replicas=1", "prefill_replicas=3",
    TTFT_MEAN, -1 },
  { "more decode replicas: faster decodes", { "disaggregated=true", "prefill_replicas=3",
    "requests.rate=60/s" }, "decode_replicas=1", "decode_replicas=3", TPOT_MEAN, -1 },
  { "wider prefill replicas: sooner first tokens", { "disaggregated=true",
    "requests.rate=10/s" }, "prefill_tp=1", "prefill_tp=2", TTFT_MEAN, -1 },
  { "wider decode replicas: faster decodes", { "disaggregated=true", "requests.rate=10/s" },
    "decode_tp=1", "decode_tp=2", TPOT_MEAN, -1 },
  { "more requests with a prefix: more prompt tokens skipped", { "requests.prefix_tokens=500",
    "requests.prefixes=4" }, "requests.prefix_share=0.2", "requests.prefix_share=0.8",
    PREFIX_TOKENS, +1 },
  { "longer prefixes: more prompt tokens skipped", { "requests.prefix_share=0.5",
    "requests.prefixes=4" }, "requests.prefix_tokens=100", "requests.prefix_tokens=1000",
    PREFIX_TOKENS, +1 },
  { "more distinct prefixes: fewer found cached", { "requests.prefix_share=0.9",
    "requests.prefix_tokens=1000" }, "requests.prefixes=2", "requests.prefixes=1000",
    PREFIX_HITS, -1 },
  { "a larger cache evicts fewer prefixes", { "requests.prefix_share=0.9",
    "requests.prefix_tokens=2000", "requests.prefixes=300", "requests.rate=10/s" },
    "memory_share=0.4", "memory_share=0.9", PREFIX_HITS, +1 },
  { "kv_aware routing finds prefixes cached", { "replicas=4", "requests.prefix_share=0.9",
    "requests.prefix_tokens=2000", "requests.prefixes=400" }, "router=least_outstanding",
    "router=kv_aware", PREFIX_HITS, +1 },
  /* Prompts within Llama 2's context of 4,096 tokens. */
  { "a larger model: slower decodes", { "tp=4", "requests.rate=2/s",
    "requests.input_max=2048" }, "model=llama2-7b", "model=llama2-70b", TPOT_MEAN, +1 },
  { "every request at once: longer waits for the first token", { NULL },
    "requests.arrival=poisson", "requests.arrival=batch", TTFT_MEAN, +1 },
  { "more requests: more answered", { NULL }, "requests.count=500", "requests.count=1500",
    REQUESTS, +1 },
  { "a longer burst: higher p99 TTFT", { "requests.rate=25/s", "requests.burst_start=20s",
    "requests.burst_factor=3" }, "requests.burst_duration=5s", "requests.burst_duration=60s",
    TTFT_P99, +1 },
  /* 3,000 requests at 25/s end by about 120 s: a burst from 1 h on
   * never comes. */
  { "a burst after the last request: lower p99 TTFT", { "requests.rate=25/s",
    "requests.burst_duration=60s", "requests.burst_factor=3" }, "requests.burst_start=20s",
    "requests.burst_start=1h", TTFT_P99, -1 },
  { "fixed prompts against exponential: a shorter tail", { "requests.rate=30/s" },
    "requests.input_distribution=fixed", "requests.input_distribution=exponential",
    TTFT_P99, +1 },
  { "more spread prompts: a longer tail", { "requests.rate=30/s" }, "requests.input_cv=0.5",
    "requests.input_cv=3", TTFT_P99, +1 },
  { "capped prompts: a shorter tail", { "requests.rate=30/s", "requests.input_cv=3" },
    "requests.input_max=256", "requests.input_max=8192", TTFT_P99, +1 },
  { "fixed answers against exponential: a shorter tail", { NULL },
    "requests.output_distribution=fixed", "requests.output_distribution=exponential", E2E_P99,
    +1 },
  { "capped answers: shorter requests", { NULL }, "requests.output_max=100",
    "requests.output_max=2000", E2E_MEAN, +1 },
};

START_TEST (test_direction)
{
  const Direction *d = &directions[_i];
  g_autofree char *path = scenario ("direction", CHAT);
  g_auto(SimServeReport) lo = { 0 }, hi = { 0 };
  const char *options[7] = { NULL };
  guint n = 0;
  double a, b;

  for (; n < 5 && d->base[n] != NULL; n++)
    options[n] = d->base[n];
  options[n] = d->low;
  run (path, options, &lo);
  options[n] = d->high;
  run (path, options, &hi);
  a = metric (&lo, d->metric);
  b = metric (&hi, d->metric);
  ck_assert_msg (d->direction > 0 ? b > a : b < a, "%s: %g with %s, %g with %s", d->what, a,
                 d->low, b, d->high);
}
END_TEST

/* The autoscaler's keys, on a load that needs it: 15 requests/s with a
 * four-fold burst for two minutes, from one replica of up to six, which
 * stop after a minute of surplus (a later option overrides an earlier). */
static const char * const autoscale_base[] = {
  "requests.rate=15/s", "requests.count=20000", "requests.burst_start=300s",
  "requests.burst_duration=120s", "requests.burst_factor=4", "scale_down_delay=60s",
  "autoscale=true", "max_replicas=6",
};

typedef struct {
  const char *what;
  const char *extra[2];   /* more options of both runs */
  const char *low, *high;
  Metric      metric;
  int         direction;
} ScaleDirection;

static const ScaleDirection scale_directions[] = {
  { "a slower start: higher p99 TTFT", { "scale_down_delay=10min" }, "startup=10s",
    "startup=5min", TTFT_P99, +1 },
  { "a longer scale-down delay: more replica-hours", { NULL }, "scale_down_delay=0s",
    "scale_down_delay=10min", REPLICA_HOURS, +1 },
  { "a higher target per replica: fewer replica-hours", { NULL }, "target_outstanding=8",
    "target_outstanding=64", REPLICA_HOURS, -1 },
  { "a higher target per replica: higher p99 TTFT", { NULL }, "target_outstanding=8",
    "target_outstanding=64", TTFT_P99, +1 },
  { "a higher ceiling: more replica-hours", { NULL }, "max_replicas=2", "max_replicas=6",
    REPLICA_HOURS, +1 },
  { "looking less often: higher p99 TTFT", { NULL }, "autoscale_interval=1s",
    "autoscale_interval=1min", TTFT_P99, +1 },
  /* A load one replica serves: the floor is what runs. */
  { "a higher floor: more replica-hours", { "replicas=2", "requests.rate=2/s" },
    "min_replicas=1", "min_replicas=2", REPLICA_HOURS, +1 },
};

/* True when OPTION ("requests.rate=5/s") sets KEY ("requests.rate"). */
static gboolean
option_sets (const char *option, const char *key)
{
  gsize n = strlen (key);

  return option != NULL && strncmp (option, key, n) == 0 && option[n] == '=';
}

/* Every key of [serving] and [requests] a user sets is changed by a case
 * of directions or scale_directions (whose low and high differ in it), or
 * is shown to move its answer by a test named here. */
START_TEST (test_every_key_moves)
{
  static const char * const elsewhere[] = {
    "requests",                  /* names the section */
    "priority", "load_time", "whole_nodes", "in_runs",  /* runs only: check-serverun.c */
    "requests.profile", "requests.start_hour",         /* test_lengths_and_profile */
    "requests.output_cv",        /* test_output_cv */
    "requests.trace",            /* test_azure_trace */
  };
  const SimKeyTable *tables[] = { &sim__serving_key_table, &sim__requests_key_table };

  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    for (guint k = 0; k < tables[t]->n_keys; k++)
      {
        g_autofree char *key = g_strdup_printf ("%s%s", t == 0 ? "" : "requests.",
                                                tables[t]->keys[k].name);
        gboolean found = FALSE;

        for (guint i = 0; i < G_N_ELEMENTS (elsewhere) && !found; i++)
          found = strcmp (key, elsewhere[i]) == 0;
        for (guint i = 0; i < G_N_ELEMENTS (directions) && !found; i++)
          found = option_sets (directions[i].low, key) && option_sets (directions[i].high, key)
                  && strcmp (directions[i].low, directions[i].high) != 0;
        for (guint i = 0; i < G_N_ELEMENTS (scale_directions) && !found; i++)
          found = option_sets (scale_directions[i].low, key)
                  && option_sets (scale_directions[i].high, key);
        /* autoscale itself: test_autoscale_bounds runs it against the
           fixed replicas. */
        found = found || strcmp (key, "autoscale") == 0;
        ck_assert_msg (found, "no case shows %s moving the answer", key);
      }
}
END_TEST

START_TEST (test_autoscale_direction)
{
  const ScaleDirection *d = &scale_directions[_i];
  g_autofree char *path = scenario ("autoscale", CHAT);
  g_auto(SimServeReport) lo = { 0 }, hi = { 0 };
  const char *options[G_N_ELEMENTS (autoscale_base) + 4] = { NULL };
  guint n = 0;
  double a, b;

  for (; n < G_N_ELEMENTS (autoscale_base); n++)
    options[n] = autoscale_base[n];
  for (guint e = 0; e < 2 && d->extra[e] != NULL; e++)
    options[n++] = d->extra[e];
  options[n] = d->low;
  run (path, options, &lo);
  options[n] = d->high;
  run (path, options, &hi);
  a = metric (&lo, d->metric);
  b = metric (&hi, d->metric);
  ck_assert_msg (d->direction > 0 ? b > a : b < a, "%s: %g with %s, %g with %s", d->what, a,
                 d->low, b, d->high);
}
END_TEST

/* Without the autoscaler, the replicas run from time 0 to the last
 * completion; with it but no room to grow or shrink, the run is the same
 * request for request; with room, it starts replicas for the burst and
 * stops them after, and beats a fixed replica at p99. */
START_TEST (test_autoscale_bounds)
{
  g_autofree char *path = scenario ("bounds", CHAT);
  g_auto(SimServeReport) fixed = { 0 }, pinned = { 0 }, scaled = { 0 };
  const char *base[G_N_ELEMENTS (autoscale_base) + 1] = { NULL };
  const char *pin[] = { "requests.rate=15/s", "requests.count=20000",
                        "requests.burst_start=300s", "requests.burst_duration=120s",
                        "requests.burst_factor=4", "autoscale=true", "max_replicas=1", NULL };

  for (guint i = 0; i < G_N_ELEMENTS (autoscale_base); i++)
    base[i] = autoscale_base[i];
  /* The fixed run: the base without its autoscaler's options. */
  base[G_N_ELEMENTS (autoscale_base) - 3] = NULL;
  run (path, base, &fixed);
  ck_assert (fabs (fixed.result.replica_seconds - fixed.result.makespan) < 1e-9);
  run (path, pin, &pinned);
  ck_assert (pinned.result.scale_ups == 0 && pinned.result.scale_downs == 0);
  ck_assert (memcmp (pinned.result.ttft, fixed.result.ttft, sizeof fixed.result.ttft) == 0);
  ck_assert (memcmp (pinned.result.tpot, fixed.result.tpot, sizeof fixed.result.tpot) == 0);
  ck_assert (pinned.result.replica_seconds == fixed.result.replica_seconds);
  base[G_N_ELEMENTS (autoscale_base) - 3] = "scale_down_delay=60s";
  run (path, base, &scaled);
  ck_assert (scaled.result.scale_ups > 0 && scaled.result.scale_downs > 0);
  ck_assert (scaled.result.peak_replicas > 1 && scaled.result.peak_replicas <= 6);
  /* Between one replica and six for the whole run. */
  ck_assert (scaled.result.replica_seconds > fixed.result.replica_seconds);
  ck_assert (scaled.result.replica_seconds < 6 * scaled.result.makespan);
  ck_assert_msg (scaled.result.ttft[3] < fixed.result.ttft[3], "p99 TTFT %g autoscaled, %g "
                 "fixed", scaled.result.ttft[3], fixed.result.ttft[3]);
}
END_TEST

/* The requests @q draws with seed 42 once its @n keys @sets (pairs of a
 * key and its value) are set on the defaults; @q is left set up, for the
 * caller to change and clear. */
static GArray *
requests_with (SimServeRequests *q, const char *const (*sets)[2], guint n)
{
  g_autoptr(GError) error = NULL;
  GArray *a;

  sim__serve_requests_init (q);
  for (guint i = 0; i < n; i++)
    ck_assert (sim__serve_requests_set (q, sets[i][0], sets[i][1], NULL));
  a = sim__serve_requests_generate (q, 42, &error);
  ck_assert_msg (a != NULL, "%s", error ? error->message : "");
  return a;
}

START_TEST (test_lengths_and_profile)
{
  g_autofree char *path = scenario ("lengths", CHAT);
  SimServeRequests q;
  g_autoptr(GArray) a = NULL;
  double sum_in = 0, sum_out = 0, night = 0, day = 0;
  const char *sets[][2] = {
    { "rate", "10/s" }, { "count", "100000" }, { "input_tokens", "500" },
    { "input_distribution", "lognormal" }, { "input_cv", "2" }, { "output_tokens", "100" },
    { "output_distribution", "exponential" },
    /* Three times as many requests from 12:00 as before. */
    { "profile", "1,1,1,1,1,1,1,1,1,1,1,1,3,3,3,3,3,3,3,3,3,3,3,3" },
  };

  a = requests_with (&q, sets, G_N_ELEMENTS (sets));
  for (guint i = 0; i < a->len; i++)
    {
      const SimServeRequest *r = &g_array_index (a, SimServeRequest, i);
      sum_in += r->input;
      sum_out += r->output;
      if (fmod (r->arrival, 86400) < 43200)
        night++;
      else
        day++;
      ck_assert (i == 0 || r->arrival >= g_array_index (a, SimServeRequest, i - 1).arrival);
    }
  /* The means the keys give (lognormal: heavy-tailed, so a looser bound). */
  ck_assert_msg (fabs (sum_in / a->len / 500 - 1) < 0.05, "mean input %g", sum_in / a->len);
  ck_assert_msg (fabs (sum_out / a->len / 100 - 1) < 0.02, "mean output %g",
                 sum_out / a->len);
  /* 100,000 requests at 10/s and 30/s half-days: the first half-day holds
   * 432,000 requests' worth of time at the low rate, more than all of
   * them, so every request comes before noon; a later start hour moves
   * them into the busier half. */
  ck_assert (day == 0 && night == a->len);
  ck_assert (sim__serve_requests_set (&q, "start_hour", "12", NULL));
  g_clear_pointer (&a, g_array_unref);
  a = sim__serve_requests_generate (&q, 42, NULL);
  /* At 30/s, 100,000 requests take about 3,333 s. */
  ck_assert_msg (fabs (g_array_index (a, SimServeRequest, a->len - 1).arrival / 3333.3 - 1)
                 < 0.02, "last arrival at %g s",
                 g_array_index (a, SimServeRequest, a->len - 1).arrival);
  sim__serve_requests_clear (&q);
}
END_TEST

/* output_cv sets the spread of lognormal output lengths: with cv c the
 * log of a length is normal with standard deviation sigma =
 * sqrt(ln(1 + c^2)) (the moments of the lognormal).  The sample standard
 * deviation of the logs of N = 100,000 draws has a standard error of
 * sigma / sqrt(2 N) (normal sample); it must lie within 5 of them, plus
 * 0.005 for the rounding to whole tokens (at a median of 89 tokens or
 * more, half a token moves a log by under 0.006, both ways).  The prompt
 * lengths come from their own stream and do not move. */
START_TEST (test_output_cv)
{
  const double cvs[] = { 0.5, 2 };
  double sd[G_N_ELEMENTS (cvs)];
  g_autoptr(GArray) first = NULL;

  for (guint c = 0; c < G_N_ELEMENTS (cvs); c++)
    {
      g_autofree char *cv = g_strdup_printf ("%g", cvs[c]);
      const char *sets[][2] = {
        { "rate", "10/s" }, { "count", "100000" }, { "input_tokens", "500" },
        { "input_distribution", "lognormal" }, { "output_tokens", "200" },
        { "output_distribution", "lognormal" }, { "output_cv", cv },
      };
      SimServeRequests q;
      g_autoptr(GArray) a = NULL;
      double sum = 0, sum2 = 0, mean, sigma = sqrt (log (1 + cvs[c] * cvs[c]));
      double band;

      a = requests_with (&q, sets, G_N_ELEMENTS (sets));
      for (guint i = 0; i < a->len; i++)
        {
          double l = log (g_array_index (a, SimServeRequest, i).output);
          sum += l;
          sum2 += l * l;
        }
      mean = sum / a->len;
      sd[c] = sqrt ((sum2 - a->len * mean * mean) / (a->len - 1));
      band = 5 * sigma / sqrt (2.0 * a->len) + 0.005;
      ck_assert_msg (fabs (sd[c] - sigma) < band, "output_cv %g: log sd %g, expected %g +- %g",
                     cvs[c], sd[c], sigma, band);
      if (first == NULL)
        first = g_array_ref (a);
      else
        for (guint i = 0; i < a->len; i++)
          ck_assert_uint_eq (g_array_index (a, SimServeRequest, i).input,
                             g_array_index (first, SimServeRequest, i).input);
      sim__serve_requests_clear (&q);
    }
  ck_assert (sd[1] > sd[0]);
}
END_TEST

START_TEST (test_azure_trace)
{
  g_autofree char *trace = g_build_filename (tmpdir, "azure.csv", NULL);
  g_autofree char *path = NULL;
  g_auto(SimServeReport) r = { 0 };
  g_autoptr(GArray) a = NULL;
  g_autoptr(GError) error = NULL;

  /* The Azure LLM inference traces' columns (Patel et al., Splitwise,
   * ISCA 2024). */
  ck_assert (g_file_set_contents (trace,
    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    "2023-11-16 18:15:46.6805900,374,44\n"
    "2023-11-16 18:15:50.9951690,396,109\n"
    "2023-11-16 18:15:51.2516020,879,195\n", -1, NULL));
  a = sim__serve_trace_read (trace, 0, &error);
  ck_assert_msg (a != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (a->len, 3);
  ck_assert (g_array_index (a, SimServeRequest, 0).arrival == 0);
  ck_assert (fabs (g_array_index (a, SimServeRequest, 1).arrival - 4.314579) < 1e-6);
  ck_assert (fabs (g_array_index (a, SimServeRequest, 2).arrival - 4.571012) < 1e-6);
  ck_assert_uint_eq (g_array_index (a, SimServeRequest, 2).input, 879);
  ck_assert_uint_eq (g_array_index (a, SimServeRequest, 2).output, 195);
  path = scenario ("trace", "[serving s]\nmodel = llama3-8b\nrequests = t\n\n"
                            "[requests t]\narrival = trace\ntrace = azure.csv\n");
  run (path, NULL, &r);
  ck_assert (r.result.requests == 3);
  ck_assert (r.result.input_tokens == 374 + 396 + 879);
  ck_assert (r.result.output_tokens == 44 + 109 + 195);

  /* A trace is read whole, beyond count's default of 1,000, unless a
   * count is given. */
  {
    g_autoptr(GString) text = g_string_new ("TIMESTAMP,ContextTokens,GeneratedTokens\n");
    g_auto(SimServeReport) whole = { 0 }, part = { 0 };
    const char *two[] = { "requests.count=2", NULL };

    for (guint i = 0; i < 1500; i++)
      g_string_append_printf (text, "%u.5,%u,%u\n", i, 100 + i % 7, 1 + i % 5);
    ck_assert (g_file_set_contents (trace, text->str, -1, NULL));
    run (path, NULL, &whole);
    ck_assert (whole.result.requests == 1500);
    run (path, two, &part);
    ck_assert (part.result.requests == 2);
    ck_assert (part.result.input_tokens == 100 + 101);
  }
}
END_TEST

START_TEST (test_deterministic_and_json)
{
  g_autofree char *path = scenario ("det", CHAT);
  g_autoptr(GError) error = NULL;
  g_autofree char *a = sim_serve_json (path, NULL, NULL, &error);
  g_autofree char *b = sim_serve_json (path, NULL, NULL, NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o;

  ck_assert_msg (a != NULL, "%s", error ? error->message : "");
  ck_assert_str_eq (a, b);
  ck_assert (json_parser_load_from_data (parser, a, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  ck_assert (json_object_get_double_member (json_object_get_object_member (o, "ttft"), "p99")
             >= json_object_get_double_member (json_object_get_object_member (o, "ttft"),
                                               "p50"));
  ck_assert (json_object_get_double_member (o, "kv_cache_utilization") > 0
             && json_object_get_double_member (o, "kv_cache_utilization") < 1);
  /* The price of the tokens: GPU-hours at the owned rate over the tokens.
   * With no [cost] section the owned rate is the DGX H100's $270,000
   * (models/nodes/dgx-h100.ini) over five years of 365.25 days, for its 8
   * GPUs: no maintenance, no energy price. */
  ck_assert (fabs (json_object_get_double_member (o, "owned_usd_per_gpu_hour")
                   / (270000.0 / (5 * 365.25 * 24) / 8) - 1) < 1e-12);
  {
    double hours = json_object_get_int_member (o, "gpus")
                   * json_object_get_double_member (o, "makespan") / 3600;
    double tokens = json_object_get_double_member (o, "input_tokens")
                    + json_object_get_double_member (o, "output_tokens");
    double usd = hours * json_object_get_double_member (o, "owned_usd_per_gpu_hour");
    ck_assert (fabs (json_object_get_double_member (o, "usd_per_million_tokens")
                     / (usd / tokens * 1e6) - 1) < 1e-9);
  }
}
END_TEST

/* Under memory pressure every request still completes, in both schedulers:
 * a prompt's pages are reserved when it is admitted, and decodes that find
 * no page preempt the newest sequence, whose pages go back to the pool
 * (the pages in use never exceed the cache: utilization stays below 1). */
START_TEST (test_memory_pressure_completes)
{
  g_autofree char *path = scenario ("pressure", CHAT);
  const char *modes[] = { "chunked_prefill=false", "chunked_prefill=true" };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_auto(SimServeReport) r = { 0 };
      const char *options[] = { "requests.arrival=batch", "requests.count=400", "max_batch=400",
                                "memory_share=0.3", "requests.input_tokens=2048", modes[m],
                                NULL };
      run (path, options, &r);
      ck_assert (r.result.requests == 400);
      ck_assert_msg (r.result.preemptions > 0, "%s: no preemption", modes[m]);
      ck_assert (r.result.kv_utilization > 0.5 && r.result.kv_utilization <= 1);
    }
}
END_TEST

/* The defaults the key tables print (gpusim keys, docs/keys.md) are those
 * a run takes: setting any key to its default changes nothing. */
START_TEST (test_defaults_change_nothing)
{
  g_autofree char *path = scenario ("defaults", CHAT);
  g_autofree char *plain = sim_serve_json (path, NULL, NULL, NULL);
  const SimKeyTable *tables[] = { &sim__serving_key_table, &sim__requests_key_table };
  guint tested = 0;

  ck_assert (plain != NULL);
  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    for (guint k = 0; k < tables[t]->n_keys; k++)
      {
        const SimKey *key = &tables[t]->keys[k];
        g_autofree char *option = NULL;
        g_autofree char *got = NULL;
        const char *options[2] = { NULL, NULL };
        g_autoptr(GError) error = NULL;

        if (key->def == NULL || (key->flags & SIM_KEY_DEFAULT_DESCRIBED))
          continue;
        option = g_strdup_printf ("%s%s=%s", t == 1 ? "requests." : "", key->name, key->def);
        options[0] = option;
        got = sim_serve_json (path, NULL, options, &error);
        ck_assert_msg (got != NULL, "%s: %s", option, error ? error->message : "");
        /* The chat workload sets these away from their defaults. */
        if (t == 1 && (strcmp (key->name, "count") == 0
                       || g_str_has_suffix (key->name, "_distribution")))
          continue;
        ck_assert_msg (strcmp (got, plain) == 0, "%s changes the run", option);
        tested++;
      }
  ck_assert_uint_ge (tested, 20);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Disaggregation, prefix caching, MIG and time-sharing, pipeline stages */

/* A scenario of NODES DGX H100 with SECTIONS and EXTRA scenario-level
 * text (a [cluster] section); returns its path. */
static char *
scenario_nodes (const char *name, guint nodes, const char *extra, const char *sections)
{
  g_autofree char *file = g_strdup_printf ("%s.ini", name);
  char *path = g_build_filename (tmpdir, file, NULL);
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = %s\nseed = 3\n\n[pool h100]\nmodel = DGX-H100\ncount = %u\n\n%s"
    "[workload]\nsource = synthetic\nrate = 1/h\ngpus = 8\njobs = 1\n"
    "duration = constant(1h)\n\n" LLAMA2_MODELS "%s", name, nodes, extra, sections);

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* One prompt of 2,048 tokens and one more token, alone. */
#define ONE_PROMPT \
  "[requests one]\ncount = 1\nrate = 1/s\ninput_tokens = 2048\noutput_tokens = 2\n"

START_TEST (test_kv_transfer_by_hand)
{
  g_autofree char *path = scenario_nodes ("transfer", 2, "",
    "[serving s]\nmodel = llama2-70b\nrequests = one\ntp = 8\n\n" ONE_PROMPT);
  g_auto(SimServeReport) colocated = { 0 }, across = { 0 }, inside = { 0 };
  const char *split8[] = { "disaggregated=true", "prefill_tp=8", "decode_tp=8", NULL };
  const char *split4[] = { "disaggregated=true", "prefill_tp=4", "decode_tp=4", NULL };
  /* Llama 2 70B's KV cache in BF16: 80 layers x 8 key/value heads x 128
   * wide x 2 (keys and values) x 2 bytes = 327,680 bytes per token. */
  double bytes = 2048.0 * 80 * 8 * 128 * 2 * 2;
  /* Across nodes, each of the 8 GPU pairs sends its eighth over its own
   * ConnectX-7 NIC at 400 Gb/s (the DGX H100's datasheet). */
  double nic = bytes / 8 / 50e9;
  /* Inside a node, each of 4 pairs over NVLink 4, 450 GB/s each way. */
  double nvlink = bytes / 4 / 450e9;
  double prefill;

  run (path, NULL, &colocated);
  run (path, split8, &across);
  run (path, split4, &inside);
  ck_assert (across.result.kv_transfers == 1 && inside.result.kv_transfers == 1);
  ck_assert_msg (fabs (across.result.kv_transfer_mean / nic - 1) < 0.10,
                 "across nodes: %g s; bytes over the NICs: %g s",
                 across.result.kv_transfer_mean, nic);
  ck_assert_msg (inside.result.kv_transfer_mean >= nvlink
                 && inside.result.kv_transfer_mean < 1.35 * nvlink,
                 "inside a node: %g s; bytes over NVLink: %g s",
                 inside.result.kv_transfer_mean, nvlink);
  /* The prefill replica is the colocated one's: its first token comes
   * one transfer later. */
  prefill = colocated.result.ttft[0];
  ck_assert_msg (fabs (across.result.ttft[0] - (prefill + across.result.kv_transfer_mean))
                 < 1e-6, "TTFT %g s, prefill %g s, transfer %g s", across.result.ttft[0],
                 prefill, across.result.kv_transfer_mean);
  /* Both sides on one node, the replicas' GPUs apart. */
  ck_assert_uint_eq (across.gpus, 16);
  ck_assert_uint_eq (inside.gpus, 8);
}
END_TEST

/* DistServe's observation: prefills interrupt the decodes they share a
 * replica with, so that at high load disaggregation lowers the time per
 * output token on the same GPUs. */
START_TEST (test_disaggregation_lowers_interference)
{
  g_autofree char *path = scenario ("distserve", CHAT);
  g_auto(SimServeReport) colocated = { 0 }, split = { 0 };
  const char *both[] = { "replicas=8", "requests.rate=120/s", "requests.count=6000",
                         "requests.input_tokens=1024", NULL };
  const char *apart[] = { "disaggregated=true", "prefill_replicas=4", "decode_replicas=4",
                          "requests.rate=120/s", "requests.count=6000",
                          "requests.input_tokens=1024", NULL };

  run (path, both, &colocated);
  run (path, apart, &split);
  ck_assert_uint_eq (colocated.gpus, split.gpus);
  ck_assert_msg (split.result.tpot[0] < 0.8 * colocated.result.tpot[0]
                 && split.result.tpot[3] < colocated.result.tpot[3],
                 "TPOT mean %g / p99 %g split, %g / %g colocated", split.result.tpot[0],
                 split.result.tpot[3], colocated.result.tpot[0], colocated.result.tpot[3]);
}
END_TEST

START_TEST (test_prefix_hits_by_hand)
{
  g_autofree char *path = scenario ("prefix", CHAT);
  g_auto(SimServeReport) r = { 0 };
  const char *options[] = { "requests.rate=0.5/s", "requests.count=300",
                            "requests.prefix_share=0.6", "requests.prefix_tokens=1000",
                            "requests.prefixes=7", NULL };
  g_autoptr(GArray) q = NULL;
  gboolean seen[8] = { FALSE };
  guint with = 0, first = 0;

  run (path, options, &r);
  /* The same requests, drawn again: a request whose prefix came before
   * finds it cached (requests 2 s apart on average, a prefill takes tens
   * of milliseconds, and the cache holds every prefix); the first of each
   * does not. */
  q = sim__serve_requests_generate (&r.requests, 3, NULL);
  for (guint i = 0; i < q->len; i++)
    {
      const SimServeRequest *x = &g_array_index (q, SimServeRequest, i);
      if (x->prefix == 0)
        continue;
      ck_assert (x->prefix <= 7 && x->prefix_tokens == 1000);
      with++;
      if (!seen[x->prefix])
        first++;
      seen[x->prefix] = TRUE;
    }
  /* 60 % of 300: 180, within three standard deviations (8.5). */
  ck_assert_msg (fabs (with - 180.0) < 26, "%u requests with a prefix", with);
  ck_assert_uint_eq (r.result.prefix_requests, with);
  ck_assert_uint_eq (r.result.prefix_lookups, with);
  ck_assert_uint_eq (r.result.prefix_hits, with - first);
  /* Whole pages of 16 tokens: 992 of the 1,000 are skipped. */
  ck_assert_msg (r.result.prefix_hit_tokens == (with - first) * 992.0, "%g tokens skipped",
                 r.result.prefix_hit_tokens);
}
END_TEST

/* Requests that share system prompts, more than one replica's cache holds
 * together: the kv_aware router keeps each prompt on a few replicas, finds
 * it cached more often and answers sooner; without shared prompts it does
 * no better than least_outstanding. */
START_TEST (test_kv_aware_routing)
{
  g_autofree char *path = scenario ("kvroute", CHAT);
  g_auto(SimServeReport) lo = { 0 }, kv = { 0 }, lo0 = { 0 }, kv0 = { 0 };
  const char *shared[] = { "replicas=4", "requests.rate=40/s", "requests.count=6000",
                           "requests.prefix_share=0.9", "requests.prefix_tokens=2000",
                           "requests.prefixes=400", "router=least_outstanding", NULL };
  const char *plain[] = { "replicas=4", "requests.rate=40/s", "requests.count=6000",
                          "router=least_outstanding", NULL };

  run (path, shared, &lo);
  shared[6] = "router=kv_aware";
  run (path, shared, &kv);
  ck_assert_msg (kv.result.prefix_hits > 1.3 * lo.result.prefix_hits,
                 "%" G_GUINT64_FORMAT " hits kv_aware, %" G_GUINT64_FORMAT
                 " least_outstanding", kv.result.prefix_hits, lo.result.prefix_hits);
  ck_assert_msg (kv.result.ttft[0] < 0.9 * lo.result.ttft[0], "mean TTFT %g kv_aware, %g "
                 "least_outstanding", kv.result.ttft[0], lo.result.ttft[0]);
  run (path, plain, &lo0);
  plain[3] = "router=kv_aware";
  run (path, plain, &kv0);
  ck_assert (kv0.result.prefix_hits == 0 && lo0.result.prefix_hits == 0);
  ck_assert_msg (kv0.result.ttft[0] > 0.95 * lo0.result.ttft[0], "mean TTFT %g kv_aware, %g "
                 "least_outstanding without shared prefixes", kv0.result.ttft[0],
                 lo0.result.ttft[0]);
}
END_TEST

/* Invariants of a disaggregated run with shared prefixes and kv_aware
 * routing: Little's law for the requests in the system (a request is in
 * it through its prefill, its transfer and its decode), one transfer per
 * request of more than one output token, and the same output twice. */
START_TEST (test_disaggregated_invariants)
{
  g_autofree char *path = scenario ("invariants", CHAT);
  g_auto(SimServeReport) r = { 0 };
  const char *options[] = { "disaggregated=true", "prefill_replicas=3", "decode_replicas=2",
                            "router=kv_aware", "requests.rate=40/s",
                            "requests.prefix_share=0.5", "requests.prefix_tokens=800",
                            "requests.prefixes=50", NULL };
  g_autofree char *a = sim_serve_json (path, NULL, options, NULL);
  g_autofree char *b = sim_serve_json (path, NULL, options, NULL);
  g_autoptr(GArray) q = NULL;
  guint64 longer = 0;

  ck_assert (a != NULL && b != NULL && strcmp (a, b) == 0);
  run (path, options, &r);
  ck_assert (r.result.requests == 3000);
  ck_assert_msg (fabs (r.result.mean_in_system / (r.result.arrival_rate * r.result.e2e[0]) - 1)
                 < 1e-6, "L = %g, lambda W = %g", r.result.mean_in_system,
                 r.result.arrival_rate * r.result.e2e[0]);
  q = sim__serve_requests_generate (&r.requests, 3, NULL);
  for (guint i = 0; i < q->len; i++)
    longer += g_array_index (q, SimServeRequest, i).output > 1;
  ck_assert_uint_eq (r.result.kv_transfers, longer);
  ck_assert (r.result.prefix_hits > 0 && r.result.prefix_hits < r.result.prefix_lookups);
}
END_TEST

/* The catalogue's H100 SXM MIG profiles (NVIDIA's MIG user guide):
 * 3g.40gb has 60 of the 132 SMs, 4 of the 8 memory slices and 40 GB, two
 * to a GPU; 7g.80gb the whole GPU. */
START_TEST (test_mig_by_hand)
{
  g_autofree char *path = scenario ("mig", CHAT);
  g_auto(SimServeReport) whole = { 0 }, three = { 0 }, seven = { 0 }, one = { 0 };
  const char *o3[] = { "mig=3g.40gb", "precision=fp8", "requests.rate=2/s", NULL };
  const char *o7[] = { "mig=7g.80gb", "precision=fp8", "requests.rate=2/s", NULL };
  const char *o1[] = { "mig=1g.20gb", "precision=fp8", "requests.rate=2/s", NULL };
  const char *ow[] = { "precision=fp8", "requests.rate=2/s", NULL };
  double weights, kv;

  run (path, ow, &whole);
  run (path, o3, &three);
  run (path, o7, &seven);
  run (path, o1, &one);
  ck_assert_msg (fabs (three.replica.peak / whole.replica.peak - 60.0 / 132) < 1e-9,
                 "peak %g of the GPU's", three.replica.peak / whole.replica.peak);
  ck_assert (fabs (three.replica.bandwidth / whole.replica.bandwidth - 0.5) < 1e-9);
  /* 0.9 of 40 GB, less the FP8 weights and 2 GiB, over Llama 3 8B's 32
   * layers x 8 key/value heads x 128 x 2 bytes of FP8 cache per token. */
  weights = whole.replica.weight_bytes;
  kv = 32.0 * 8 * 128 * 2;
  ck_assert_msg (fabs (three.replica.kv_capacity
                       - floor ((0.9 * 40e9 - weights - 2.0 * 1024 * 1024 * 1024) / kv)) < 1,
                 "KV capacity %g tokens", three.replica.kv_capacity);
  /* Two to a GPU: half a GPU's price per replica. */
  ck_assert (fabs (three.result.gpu_seconds - 0.5 * three.result.replica_seconds) < 1e-6);
  /* A smaller slice is slower, the whole GPU as fast as no MIG. */
  ck_assert (one.result.tpot[0] > three.result.tpot[0]);
  ck_assert (three.result.tpot[0] > seven.result.tpot[0]);
  ck_assert (one.result.ttft[0] > three.result.ttft[0]);
  ck_assert_msg (fabs (seven.result.tpot[0] / whole.result.tpot[0] - 1) < 1e-9,
                 "7g.80gb %g, whole GPU %g", seven.result.tpot[0], whole.result.tpot[0]);
}
END_TEST

/* Replicas time-sharing a GPU: each has 1 / N of it, less the scenario's
 * time-slicing overhead (5 % unless [cluster] says otherwise). */
START_TEST (test_time_sharing_by_hand)
{
  g_autofree char *path = scenario ("share", CHAT);
  g_autofree char *costly = scenario_nodes ("share-costly", 1,
                                            "[cluster]\ntimeslice_overhead = 0.25\n\n", CHAT);
  g_auto(SimServeReport) alone = { 0 }, two = { 0 }, two_costly = { 0 };
  const char *o1[] = { "requests.rate=2/s", NULL };
  const char *o2[] = { "replicas_per_gpu=2", "requests.rate=2/s", NULL };

  run (path, o1, &alone);
  run (path, o2, &two);
  run (costly, o2, &two_costly);
  ck_assert (fabs (two.replica.peak / alone.replica.peak - 0.95 / 2) < 1e-9);
  ck_assert (fabs (two.replica.bandwidth / alone.replica.bandwidth - 0.95 / 2) < 1e-9);
  ck_assert (fabs (two_costly.replica.peak / alone.replica.peak - 0.75 / 2) < 1e-9);
  /* Half of 80 GB each. */
  ck_assert (fabs (two.replica.kv_capacity
                   - floor ((0.9 * 40e9 - alone.replica.weight_bytes
                             - 2.0 * 1024 * 1024 * 1024) / alone.replica.kv_bytes_per_token))
             < 1);
  ck_assert (fabs (two.result.gpu_seconds - 0.5 * two.result.replica_seconds) < 1e-6);
  ck_assert (two.result.tpot[0] > 1.8 * alone.result.tpot[0]);
  ck_assert (two_costly.result.tpot[0] > two.result.tpot[0]);
}
END_TEST

START_TEST (test_pipeline_by_hand)
{
  g_autofree char *path = scenario ("pp", CHAT);
  g_autofree char *two_nodes = scenario_nodes ("pp-nodes", 2, "",
    "[serving s]\nmodel = llama2-70b\nrequests = one\ntp = 8\n\n" ONE_PROMPT);
  g_auto(SimServeReport) one = { 0 }, two = { 0 }, across = { 0 };
  const char *o1[] = { "requests.count=10", NULL };
  const char *o2[] = { "pp=2", "requests.count=10", NULL };
  const char *ox[] = { "pp=2", NULL };
  const SimServeReplica *a = &one.replica;
  double t1, t2, p2p, stage, flops, bytes;

  run (path, o1, &one);
  run (path, o2, &two);
  ck_assert_uint_eq (two.gpus, 2);
  /* Llama 3 8B's 32 layers, 16 a stage: a lone decode crosses both
   * stages (the same work as one replica's) and one send of its 4,096
   * activations in 16 bits. */
  t1 = sim__serve_iteration_time (&one.replica, 0, 0, 1, 100);
  t2 = sim__serve_iteration_time (&two.replica, 0, 0, 1, 100);
  p2p = two.replica.p2p_latency + 4096 * 2 * two.replica.p2p_per_byte;
  ck_assert (p2p > 0 && p2p < 50e-6);
  ck_assert_msg (fabs (t2 - (t1 + p2p)) < 1e-3 * t1, "pp 2: %g s, pp 1: %g s + send %g s",
                 t2, t1, p2p);
  /* 64 sequences: two micro-batches of 32, each through a stage of half
   * the layers; the iteration takes two stage times and a send. */
  flops = 2 * a->matmul_params / 2 * 32 + a->attn_flops_coeff / 2 * 32 * 500;
  bytes = a->weight_bytes / 2 + a->kv_bytes_per_token / 2 * (32 * 500 + 32);
  stage = hypot (flops / a->peak, bytes / a->bandwidth) + 16 * 4e-6;
  t2 = sim__serve_iteration_time_split (&two.replica, 0, 0, 64, 64 * 500, 64);
  ck_assert_msg (fabs (t2 / (2 * stage + two.replica.p2p_latency
                             + 32 * 4096 * 2 * two.replica.p2p_per_byte) - 1) < 1e-6,
                 "64 sequences on 2 stages: %g s; by hand %g s", t2, 2 * stage);
  /* Half the weights per GPU: a larger KV cache. */
  ck_assert (two.replica.kv_capacity > 2 * one.replica.kv_capacity);
  /* Stages on two nodes send over the fabric: slower than over NVLink. */
  run (two_nodes, ox, &across);
  ck_assert_uint_eq (across.gpus, 16);
  ck_assert (across.replica.p2p_per_byte > 2 * two.replica.p2p_per_byte);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Bad input */

typedef struct {
  const char *sections;
  const char *expect[3];   /* parts of the message */
} Bad;

static const Bad bad[] = {
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nreplica = 2\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { ":38:", "replica", "replicas" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nprecision = fp4\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n", { ":38:", "precision", "fp8" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = nope\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { ":37:", "requests", "nope" } },
  { "[serving s]\nrequests = q\n\n[requests q]\nrate = 1/s\ninput_tokens = 10\n"
    "output_tokens = 10\n", { "[serving s] model", "missing", NULL } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\n\n[requests q]\ninput_tokens = 10\n"
    "output_tokens = 10\n", { "[requests q] rate", "missing", NULL } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\n\n[requests q]\nrate = -1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { ":40:", "rate", NULL } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\n\n[requests q]\nrate = 1/s\n"
    "profile = 1, 2, 3\ninput_tokens = 10\noutput_tokens = 10\n", { ":41:", "profile", "24" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\ntp = 3\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { "tp = 3", "heads", NULL } },
  { "[serving s]\nmodel = llama2-70b\nrequests = q\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { "does not fit", "weights", NULL } },
  /* A quarter of the GPU's memory leaves about 14,000 tokens of cache for
   * 16 GB of weights: a prompt of 100,000, within the context, does not fit. */
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nmemory_share = 0.25\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 100000\noutput_tokens = 10\n", { "KV cache", "request 1", NULL } },
  /* Longer than the context window (Llama 3.1's 131,072), whatever the
   * cache; and longer than Llama 2's, its training sequence, by default. */
  { "[serving s]\nmodel = llama3-8b\nrequests = q\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 131000\noutput_tokens = 100\n",
    { "request 1", "context window of 131072", "input_max" } },
  { "[serving s]\nmodel = llama2-7b\nrequests = q\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 4000\noutput_tokens = 200\n",
    { "4200 in all", "context window of 4096", NULL } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\n\n[requests q]\narrival = trace\n"
    "trace = bad.csv\n", { "bad.csv:3:", "ContextTokens", NULL } },
  { "[serving s]\nmodel = no-such-model\nrequests = q\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { "no-such-model", NULL, NULL } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\ntp = 16\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { "tp", "16", "node" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nstartup = 5min\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n", { ":38:", "startup", "autoscale" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nautoscale = true\nmin_replicas = 3\n\n"
    "[requests q]\nrate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n",
    { ":39:", "min_replicas", "replicas = 1" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nautoscale = true\nreplicas = 4\n"
    "max_replicas = 2\n\n[requests q]\nrate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n",
    { ":40:", "max_replicas", "at least" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nmig = 9g.90gb\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n", { "mig = 9g.90gb", "3g.40gb", NULL } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\ntp = 2\nmig = 3g.40gb\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n", { ":39:", "mig", "tp = 1" } },
  /* Two 3g.40gb instances to a GPU: 17 replicas need 9 of the node's 8. */
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nmig = 3g.40gb\nreplicas = 17\n\n"
    "[requests q]\nrate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n",
    { "17 replicas on 3g.40gb instances, 2 to a GPU", "need 9 GPUs", "cluster's 8" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nmig = 1g.10gb\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n",
    { "does not fit", "1g.10gb instance", NULL } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\npp = 2\nreplicas_per_gpu = 2\n\n"
    "[requests q]\nrate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n",
    { ":39:", "replicas_per_gpu", "pp = 1" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nreplicas_per_gpu = 65\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n", { ":38:", "replicas_per_gpu", "64" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nprefill_replicas = 2\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n",
    { ":38:", "prefill_replicas", "disaggregated = true" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\ndecode_tp = 2\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n",
    { ":38:", "decode_tp", "disaggregated = true" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\ndisaggregated = true\nautoscale = true\n"
    "\n[requests q]\nrate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n",
    { ":39:", "autoscale", "disaggregated = false" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\ndisaggregated = true\nreplicas = 3\n"
    "\n[requests q]\nrate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n",
    { ":39:", "replicas", "prefill_replicas" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\ndisaggregated = true\n"
    "prefill_replicas = 5\ndecode_replicas = 5\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { "prefill_replicas", "do not fit", "8 GPUs" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\npp = 33\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { "pp = 33", "32 layers", NULL } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\npp = 16\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\n", { "pp", "16 GPUs", "8" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\nrouter = kv\n\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n", { ":38:", "router", "kv_aware" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\nprefix_share = 0.5\n",
    { "[requests q]", "prefix_share", "prefix_tokens" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\nprefixes = 5\n",
    { "[requests q]", "prefixes", "prefix_share" } },
  { "[serving s]\nmodel = llama3-8b\nrequests = q\n\n[requests q]\nrate = 1/s\n"
    "input_tokens = 10\noutput_tokens = 10\nprefix_share = 1.5\n", { ":43:", "prefix_share", NULL } },
};

START_TEST (test_bad_input)
{
  const Bad *b = &bad[_i];
  g_autofree char *csv = g_build_filename (tmpdir, "bad.csv", NULL);
  g_autofree char *path = NULL;
  g_auto(SimServeReport) r = { 0 };
  g_autoptr(GError) error = NULL;

  ck_assert (g_file_set_contents (csv, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                       "2023-11-16 18:15:46.68,374,44\n"
                                       "2023-11-16 18:15:47.00,many,44\n", -1, NULL));
  path = scenario ("bad", b->sections);
  ck_assert (!sim__serve_run (path, NULL, NULL, &r, &error));
  ck_assert (error != NULL && error->domain == SIM_ERROR);
  for (guint i = 0; i < 3 && b->expect[i] != NULL; i++)
    ck_assert_msg (strstr (error->message, b->expect[i]) != NULL,
                   "\"%s\" lacks \"%s\"", error->message, b->expect[i]);
}
END_TEST

START_TEST (test_bad_option)
{
  g_autofree char *path = scenario ("opt", CHAT);
  g_auto(SimServeReport) r = { 0 };
  g_autoptr(GError) error = NULL;
  const char *options[] = { "max_batch=0", NULL };

  ck_assert (!sim__serve_run (path, NULL, options, &r, &error));
  ck_assert (strstr (error->message, "max_batch") != NULL);
}
END_TEST

/* Runs tools/gpusim with ARGS; returns its exit status. */
static int
gpusim (const char *args, char **out, char **err)
{
  g_autofree char *cmd = g_strdup_printf ("%s/tools/gpusim %s", SIM_TOP_BUILDDIR, args);
  int status = 0;
  g_autoptr(GError) error = NULL;

  if (!g_spawn_command_line_sync (cmd, out, err, &status, &error))
    ck_abort_msg ("%s", error->message);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

START_TEST (test_cli)
{
  g_autofree char *path = scenario ("cli", CHAT);
  g_autofree char *bad = scenario ("cli-bad", "[serving s]\nmodel = llama3-8b\nrequests = q\n"
                                              "max_batch = lots\n\n[requests q]\nrate = 1/s\n"
                                              "input_tokens = 10\noutput_tokens = 10\n");
  g_autofree char *args = NULL, *out = NULL, *err = NULL;
  g_autofree char *json = sim_serve_json (path, NULL, NULL, NULL);

  args = g_strdup_printf ("serve %s --json", path);
  ck_assert_int_eq (gpusim (args, &out, &err), 0);
  /* The command prints what the library returns. */
  ck_assert (json != NULL && g_str_has_prefix (out, json));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&args, g_free);
  args = g_strdup_printf ("serve %s", bad);
  ck_assert_int_eq (gpusim (args, &out, &err), 1);
  ck_assert (strstr (err, "max_batch") != NULL && strstr (err, ":38:") != NULL);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&args, g_free);
  /* The fewest replicas for a target, as the library finds them. */
  {
    g_auto(SimServeReport) r = { 0 };
    g_autofree char *line = NULL;
    const char *options[] = { "requests.rate=60/s", NULL };

    ck_assert (sim__serve_min_replicas (path, NULL, options, 0.5, 1024, &r, NULL, NULL));
    args = g_strdup_printf ("serve %s --set requests.rate=60/s --target-p99-ttft 500ms", path);
    ck_assert_int_eq (gpusim (args, &out, &err), 0);
    line = g_strdup_printf ("# the fewest replicas with p99 TTFT <= 500ms: %u ",
                            r.config.replicas);
    ck_assert_msg (g_str_has_prefix (out, line), "%s", out);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_clear_pointer (&args, g_free);
    args = g_strdup_printf ("serve %s --target-p99-ttft 0s", path);
    ck_assert_int_eq (gpusim (args, &out, &err), 2);
  }
}
END_TEST

START_TEST (test_min_replicas)
{
  g_autofree char *path = scenario ("seek", CHAT);
  g_auto(SimServeReport) r = { 0 }, fewer = { 0 };
  g_autoptr(GError) error = NULL;
  const char *options[] = { "requests.rate=60/s", NULL };
  g_autofree char *one_less = NULL;
  const char *less[] = { "requests.rate=60/s", NULL, NULL };
  guint probes = 0;

  if (!sim__serve_min_replicas (path, NULL, options, 0.5, 64, &r, &probes, &error))
    ck_abort_msg ("%s", error->message);
  ck_assert (r.result.ttft[3] <= 0.5);
  ck_assert (r.config.replicas > 1);
  /* One fewer misses the target. */
  one_less = g_strdup_printf ("replicas=%u", r.config.replicas - 1);
  less[1] = one_less;
  run (path, less, &fewer);
  ck_assert_msg (fewer.result.ttft[3] > 0.5, "%u replicas give %g s too",
                 r.config.replicas - 1, fewer.result.ttft[3]);
}
END_TEST

/* A target no count of replicas meets on the scenario's 8 GPUs (a first
 * token within a microsecond) is refused naming the most the cluster
 * holds, 8 of one GPU, and what they give; not the 16 that the doubling
 * would try next, which the user never asked for.  On three nodes, replicas
 * of 8 GPUs at 200 requests/s: 2 miss a p99 of 50 ms (about 0.1 s), 4 do
 * not fit, and the 3 between, which meet it (about 25 ms), are found. */
START_TEST (test_min_replicas_cluster_bound)
{
  g_autofree char *path = scenario ("seek", CHAT);
  g_autofree char *three = NULL;
  g_auto(SimServeReport) r = { 0 };
  g_autoptr(GError) error = NULL;
  const char *options[] = { "requests.rate=60/s", NULL };
  const char *wide[] = { "tp=8", "requests.rate=200/s", NULL };

  ck_assert (!sim__serve_min_replicas (path, NULL, options, 1e-6, 1024, &r, NULL, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_UNSATISFIABLE));
  ck_assert_msg (strstr (error->message, "8 replicas, the most the cluster holds") != NULL,
                 "%s", error->message);
  g_clear_error (&error);
  sim__serve_report_clear (&r);
  three = scenario_nodes ("seek3", 3, "", CHAT);
  if (!sim__serve_min_replicas (three, NULL, wide, 0.05, 1024, &r, NULL, &error))
    ck_abort_msg ("%s", error->message);
  ck_assert_uint_eq (r.config.replicas, 3);
  ck_assert (r.result.ttft[3] <= 0.05);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("serve");
  TCase *closed = tcase_create ("closed-forms");
  TCase *pub = tcase_create ("published");
  TCase *dir = tcase_create ("directions");
  TCase *model = tcase_create ("serving-model");
  TCase *bad_input = tcase_create ("bad-input");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture (closed, setup, teardown);
  tcase_add_test (closed, test_lone_decode_is_weights_over_bandwidth);
  tcase_add_test (closed, test_littles_law);
  tcase_add_test (closed, test_busy_at_most_whole);
  tcase_add_test (closed, test_md1_closed_form);
  tcase_set_timeout (closed, 120);
  suite_add_tcase (s, closed);

  tcase_add_checked_fixture (pub, setup, teardown);
  tcase_add_loop_test (pub, test_published, 0, G_N_ELEMENTS (published));
  tcase_add_loop_test (pub, test_vidur_profiles, 0, G_N_ELEMENTS (vidur_rows));
  tcase_add_test (pub, test_mlperf_offline);
  tcase_add_test (pub, test_mlperf_server);
  tcase_set_timeout (pub, 60);
  suite_add_tcase (s, pub);

  tcase_add_checked_fixture (dir, setup, teardown);
  tcase_add_loop_test (dir, test_direction, 0, G_N_ELEMENTS (directions));
  tcase_add_test (dir, test_lengths_and_profile);
  tcase_add_test (dir, test_output_cv);
  tcase_add_test (dir, test_azure_trace);
  tcase_add_test (dir, test_deterministic_and_json);
  tcase_add_test (dir, test_min_replicas);
  tcase_add_test (dir, test_min_replicas_cluster_bound);
  tcase_add_test (dir, test_defaults_change_nothing);
  tcase_add_test (dir, test_memory_pressure_completes);
  tcase_add_loop_test (dir, test_autoscale_direction, 0, G_N_ELEMENTS (scale_directions));
  tcase_add_test (dir, test_every_key_moves);
  tcase_add_test (dir, test_autoscale_bounds);
  tcase_set_timeout (dir, 120);
  suite_add_tcase (s, dir);

  tcase_add_checked_fixture (model, setup, teardown);
  tcase_add_test (model, test_kv_transfer_by_hand);
  tcase_add_test (model, test_disaggregation_lowers_interference);
  tcase_add_test (model, test_prefix_hits_by_hand);
  tcase_add_test (model, test_kv_aware_routing);
  tcase_add_test (model, test_disaggregated_invariants);
  tcase_add_test (model, test_mig_by_hand);
  tcase_add_test (model, test_time_sharing_by_hand);
  tcase_add_test (model, test_pipeline_by_hand);
  tcase_set_timeout (model, 120);
  suite_add_tcase (s, model);

  tcase_add_checked_fixture (bad_input, setup, teardown);
  tcase_add_loop_test (bad_input, test_bad_input, 0, G_N_ELEMENTS (bad));
  tcase_add_test (bad_input, test_bad_option);
  tcase_add_test (bad_input, test_cli);
  suite_add_tcase (s, bad_input);

  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
