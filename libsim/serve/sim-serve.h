/* sim-serve.h: serving a language model: requests arrive, replicas on GPUs
 * answer them.
 *
 * A deployment ([serving NAME] in a scenario) runs replicas of a model of
 * the LLM catalogue (llm/sim-llm.h), each on tp GPUs of the scenario's
 * cluster, and answers the requests of a workload ([requests NAME]).  Each
 * replica batches continuously, iteration by iteration as vLLM and Orca
 * do: an iteration decodes one token of every running sequence and
 * prefills what prompts the token budget leaves room for (whole prompts,
 * or chunks of them with chunked prefill).  An iteration takes the longer
 * of its matrix products at the GPU's peak (prefill is compute-bound) and
 * its bytes at the memory bandwidth (the weights read once, the KV cache
 * of every sequence; decode is memory-bound), each at an efficiency of
 * the GPU's architecture, plus the tensor-parallel all-reduces timed by
 * the fabric's collective model and a fixed overhead.  The KV cache takes
 * the memory the weights leave, in pages; when a sequence needs a page
 * and none is free, the newest running sequence is preempted and its
 * prompt recomputed later (vLLM's recompute preemption).  Replicas may run
 * on MIG slices, time-share GPUs or split into pipeline stages; prefill
 * and decode may run on separate replicas with the KV cache sent over the
 * fabric between them; shared prompt prefixes are cached in the pages and
 * may steer the routing.
 *
 * docs/serving.md describes the keys, the model and how it compares with
 * published measurements.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * sim_serve_json:
 * @scenario: the path of a scenario file with a [serving NAME] section
 * @deployment: (nullable): the deployment's name; %NULL: the only one
 * @options: (nullable) (array zero-terminated=1): "KEY=VALUE" settings of
 *   the deployment's keys (replicas, tp, max_batch...) or, prefixed
 *   "requests.", of its workload's, applied after the file's
 * @error: return location for a #GError
 *
 * Simulates the deployment's requests and returns what `gpusim serve
 * SCENARIO --json` prints: an object with `ttft`, `tpot` and `e2e` (each
 * an object of `mean`, `p50`, `p95`, `p99`, `max`, in seconds),
 * `goodput` (requests/s meeting both SLOs), `throughput_tokens_per_second`,
 * `output_tokens_per_second`, `kv_cache_utilization` (a fraction),
 * `preemptions`, and with a known price `usd_per_million_tokens`; with
 * `disaggregated = true`, `kv_transfers` and `kv_transfer_mean` (s), and
 * with shared prefixes, `prefix_hits`, `prefix_lookups`, `prefix_hit_rate`
 * and `prefix_hit_tokens`.
 *
 * Errors: those of loading the scenario and the model; SIM_ERROR_NOT_FOUND
 * for a missing deployment; SIM_ERROR_INVALID or SIM_ERROR_UNKNOWN_KEY for
 * a bad key, naming the file, line and key; SIM_ERROR_UNSATISFIABLE for a
 * model that does not fit its replica's GPUs.
 *
 * Returns: (transfer full) (nullable): the JSON text, or %NULL.
 */
char *sim_serve_json (const char *scenario, const char *deployment, const char * const *options,
                      GError **error);

G_END_DECLS
