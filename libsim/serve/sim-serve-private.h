/* sim-serve-private.h: what the serving model's files share (not
 * installed): the [serving NAME] and [requests NAME] sections, the replica
 * model and the discrete-event loop of one deployment. */
#pragma once

#include "serve/sim-serve.h"
#include "llm/sim-llm-private.h"
#include "core/sim-keys.h"
#include "core/sim-units.h"
#include "fabric/sim-collective.h"

G_BEGIN_DECLS

/* How requests are routed to replicas. */
typedef enum {
  SIM_SERVE_ROUTER_ROUND_ROBIN,
  SIM_SERVE_ROUTER_LEAST_OUTSTANDING,
  SIM_SERVE_ROUTER_KV_AWARE,   /* the best cached prefix against the load (llm-d, Dynamo) */
} SimServeRouter;

/* A deployment: [serving NAME]. */
typedef struct {
  char    *name;
  char    *model;             /* a catalogue model or an [llm NAME] section */
  char    *requests;          /* the [requests NAME] section it serves */
  guint    tp;                /* tensor-parallel degree: GPUs per replica */
  SimLlmPrecision precision;  /* weights, KV cache and matrix products */
  guint    max_batch;         /* sequences in one iteration */
  guint    max_batch_tokens;  /* tokens in one iteration (prefill and decode) */
  gboolean chunked_prefill;   /* a prompt may be split over iterations */
  guint    replicas;
  SimServeRouter router;
  double   memory_share;      /* of the GPU's memory the server may take */
  guint    kv_block;          /* tokens per KV-cache page */
  double   slo_ttft;          /* s */
  double   slo_tpot;          /* s */
  gboolean autoscale;         /* replicas follow the load between the bounds */
  guint    min_replicas;
  guint    max_replicas;      /* 0: replicas */
  double   target_outstanding;/* requests per replica the autoscaler aims at */
  double   startup;           /* s: a new replica's start (loading the weights) */
  double   scale_down_delay;  /* s: an idle replica's wait before it stops */
  double   autoscale_interval;/* s: how often the autoscaler looks */
  guint    pp;                /* pipeline stages of a replica */
  char    *mig;               /* a MIG profile a replica runs on, or NULL */
  guint    replicas_per_gpu;  /* replicas time-sharing one GPU */
  gboolean disaggregated;     /* prefill and decode on separate replicas */
  guint    prefill_replicas;
  guint    decode_replicas;
  guint    prefill_tp;        /* 0: tp */
  guint    decode_tp;         /* 0: tp */
  double   timeslice_overhead;/* not a key: the scenario's [cluster] sharing overhead */
  gint     priority;          /* in runs: the replicas' jobs' priority */
  double   load_time;         /* s, in runs: from a replica's job start to its serving */
  gboolean whole_nodes;       /* in runs: a replica's job takes a whole node */
  gboolean in_runs;           /* ordinary runs place it (else `gpusim serve` only) */
} SimServeConfig;

/* How request lengths are drawn. */
typedef enum {
  SIM_SERVE_LENGTH_FIXED,
  SIM_SERVE_LENGTH_EXPONENTIAL,
  SIM_SERVE_LENGTH_LOGNORMAL,
} SimServeLengthKind;

typedef struct {
  SimServeLengthKind kind;
  double mean;               /* tokens */
  double cv;                 /* lognormal: the coefficient of variation */
  guint  max;                /* a cap, 0: none */
} SimServeLength;

typedef enum {
  SIM_SERVE_ARRIVAL_POISSON,
  SIM_SERVE_ARRIVAL_BATCH,   /* every request at time 0 (an offline run) */
  SIM_SERVE_ARRIVAL_TRACE,
} SimServeArrival;

/* A request workload: [requests NAME]. */
typedef struct {
  char    *name;
  SimServeArrival arrival;
  double   rate;             /* requests per second, before the profile and bursts */
  guint    count;            /* requests to simulate */
  gboolean count_given;      /* set by the file or an option, not the default */
  double  *profile;          /* 24 hourly factors of the rate, or NULL */
  double   burst_start;      /* s */
  double   burst_duration;   /* s, 0: no burst */
  double   burst_factor;     /* the rate's factor during the burst */
  SimServeLength input;
  SimServeLength output;
  char    *trace;            /* an Azure LLM inference trace (CSV), resolved path */
  double   start_hour;       /* the hour of day at time 0, for the profile */
  double   prefix_share;     /* of the requests that open with a shared prefix */
  guint    prefix_tokens;    /* its length */
  guint    prefixes;         /* distinct prefixes, drawn uniformly */
} SimServeRequests;

extern const SimKeyTable sim__serving_key_table;
extern const SimKeyTable sim__requests_key_table;

void     sim__serve_config_init (SimServeConfig *config);
void     sim__serve_config_clear (SimServeConfig *config);
/* Sets KEY of a deployment from text (also what overrides use). */
gboolean sim__serve_config_set (gpointer config, const char *key, const char *value,
                                GError **error);
/* The checks across a deployment's keys (the autoscaler's bounds); on
 * error, *KEY names the key to blame. */
gboolean sim__serve_config_check (const SimServeConfig *config, const char **key,
                                  GError **error);
void     sim__serve_requests_init (SimServeRequests *requests);
void     sim__serve_requests_clear (SimServeRequests *requests);
gboolean sim__serve_requests_set (gpointer requests, const char *key, const char *value,
                                  GError **error);

/* Reads the deployment NAME (NULL: the scenario's only one) and the
 * requests it names from the scenario file at PATH; every error names the
 * file, line, section and key. */
gboolean sim__serve_read (const SimScenario *scenario, const char *name, SimServeConfig *config,
                          SimServeRequests *requests, GError **error);

/* Reads the deployment of GROUP ("serving NAME") and the requests it names
 * through READER (whose base_dir resolves a trace's path). */
gboolean sim__serve_read_group (const SimKeyReader *reader, const char *group,
                                SimServeConfig *config, SimServeRequests *requests,
                                GError **error);

/* One request as the loop sees it. */
typedef struct {
  double arrival;            /* s */
  guint  input;              /* prompt tokens */
  guint  output;             /* tokens to generate, at least 1 */
  guint  prefix;             /* 1 + the index of its shared prefix; 0: none */
  guint  prefix_tokens;      /* the prefix's tokens, the first of the prompt's */
} SimServeRequest;

/* The requests of a workload, in arrival order (ties keep their order). */
GArray *sim__serve_requests_generate (const SimServeRequests *requests, guint64 seed,
                                      GError **error);
/* Reads an Azure LLM inference trace: a header naming TIMESTAMP,
 * ContextTokens and GeneratedTokens (any order, other columns ignored),
 * then one request a line; times are made relative to the first.  At most
 * LIMIT requests, 0: every line. */
GArray *sim__serve_trace_read (const char *path, guint limit, GError **error);

/* The replica model: one GPU model, one language model, one deployment
 * (with disaggregation, the prefill side's; DECODE is the decode side's). */
typedef struct SimServeReplica SimServeReplica;
struct SimServeReplica {
  const SimGpuModel *gpu;
  guint    tp;
  guint    pp;                /* pipeline stages; the fields below are the busiest stage's */
  double   gpus;              /* GPUs a replica takes (a share with MIG or time-sharing) */
  double   share;             /* of the GPU's compute and bandwidth (MIG, time-sharing): 1 */
  double   p2p_latency;       /* s: activations from a stage to the next */
  double   p2p_per_byte;      /* s per byte of them */
  double   kv_bytes_per_token_total; /* the whole model's KV cache per token, every GPU */
  double   kv_transfer_latency[2];   /* s: a KV transfer inside a node [0], between [1] */
  double   kv_transfer_per_byte[2];  /* s per byte, every GPU pair of the replicas at once */
  guint    kv_transfer_pairs; /* GPU pairs a transfer runs on at once */
  guint32 *node_of;           /* disaggregation: the node of each replica, prefill's first */
  SimServeReplica *decode;    /* with disaggregation, owned; else NULL */
  double   peak;              /* FLOP/s per GPU at the precision, times the GEMM efficiency */
  double   bandwidth;         /* bytes/s per GPU, times the memory efficiency */
  double   gemm_efficiency;
  double   memory_efficiency;
  double   weight_bytes;      /* per GPU */
  double   matmul_params;     /* weights a token multiplies */
  double   kv_bytes_per_token;/* per GPU */
  double   attn_flops_coeff;  /* FLOPs per (query token x context token), per GPU */
  double   kv_capacity;       /* tokens of KV cache a replica holds */
  double   iteration_overhead;/* s: launches and scheduling, per iteration */
  double   prefill_host_floor;/* s: the least an iteration that prefills takes (host-bound) */
  double   allreduce_per_byte;/* s per byte of an all-reduce, per layer pair */
  double   allreduce_latency; /* s per all-reduce */
  guint    layers;
  guint    hidden;
  guint    context;           /* tokens, prompt and answer, the model serves; 0: no limit */
};

/* Builds the replica model; COMM (nullable) times the tensor-parallel
 * all-reduces on GPUS (tp of them).  Errors: SIM_ERROR_UNSATISFIABLE when
 * the weights leave no room for a KV cache; SIM_ERROR_INVALID for a tp
 * that does not divide the heads. */
gboolean sim__serve_replica_init (SimServeReplica *r, const SimLlmModel *model,
                                  const SimGpuModel *gpu, const SimServeConfig *config,
                                  SimCommModel *comm, const guint32 *gpus, GError **error);
/* Builds the replica models of a whole deployment on CLUSTER: the replica
 * (a MIG slice, a share of a GPU, tp x pp GPUs placed node by node), and
 * with disaggregation both sides and the KV transfer between them over
 * the fabric.  Errors as sim__serve_replica_init(), and SIM_ERROR_INVALID
 * for a placement the cluster cannot hold. */
gboolean sim__serve_replicas_init (SimServeReplica *r, const SimLlmModel *model,
                                   const SimGpuModel *gpu, const SimServeConfig *config,
                                   SimCommModel *comm, SimCluster *cluster, GError **error);
void     sim__serve_replica_clear (SimServeReplica *r);
/* The time to move the KV cache of TOKENS tokens from a prefill replica to
 * a decode replica, on one node (SAME_NODE) or across the fabric. */
double   sim__serve_kv_transfer_time (const SimServeReplica *r, double tokens,
                                      gboolean same_node);

/* The time of one iteration that prefills PREFILL tokens (whose attention
 * spans PREFILL_CONTEXT query-by-key pairs in all) and decodes DECODE
 * sequences holding DECODE_CONTEXT tokens of KV cache in all. */
double sim__serve_iteration_time (const SimServeReplica *r, double prefill,
                                  double prefill_context, double decode, double decode_context);
/* The same for an iteration of SEQUENCES sequences, which pipeline
 * parallelism splits into micro-batches. */
double sim__serve_iteration_time_split (const SimServeReplica *r, double prefill,
                                        double prefill_context, double decode,
                                        double decode_context, guint sequences);

/* What a deployment's run measured. */
typedef struct {
  guint64 requests;          /* completed */
  guint64 preemptions;
  double  makespan;          /* s: the last completion */
  double  ttft[5];           /* mean, p50, p95, p99, max (s) */
  double  tpot[5];
  double  e2e[5];
  double  queue_wait_mean;   /* s: arrival to the first prefill */
  double  mean_in_system;    /* time-average requests in the system */
  double  arrival_rate;      /* completed requests over the span of arrivals */
  double  goodput;           /* requests per second meeting both SLOs */
  double  slo_attainment;    /* their share */
  double  input_tokens;
  double  output_tokens;
  double  output_tokens_per_second;
  double  tokens_per_second; /* input and output */
  double  kv_utilization;    /* time-average share of the KV cache in use */
  double  kv_capacity_tokens;/* per replica */
  double  mean_batch;        /* decode sequences per iteration, averaged */
  double  iterations;
  double  gpu_busy;          /* share of the replicas' time iterating */
  double  replica_seconds;   /* replicas running or starting, over time */
  guint   peak_replicas;     /* the most running or starting at once */
  guint64 scale_ups;         /* replicas started by the autoscaler */
  guint64 scale_downs;       /* and stopped */
  double  gpu_seconds;       /* GPUs (or shares of one) paid for, over time */
  double  gpus;              /* GPUs of the deployment at time 0 */
  guint64 prefix_requests;   /* requests that opened with a shared prefix */
  guint64 prefix_hits;       /* of their admissions, those that found it cached */
  guint64 prefix_lookups;    /* admissions of such requests (a preempted one looks again) */
  double  prefix_hit_tokens; /* prompt tokens not prefilled, found cached */
  guint64 kv_transfers;      /* disaggregation: KV caches moved to a decode replica */
  double  kv_transfer_mean;  /* s: their mean time, waiting for the links included */
} SimServeResult;

/* Simulates REQUESTS on CONFIG->replicas replicas of R. */
gboolean sim__serve_simulate (const SimServeReplica *r, const SimServeConfig *config,
                              GArray *requests, SimServeResult *result, GError **error);

/* A deployment's requests driven from outside, for serving inside an
 * ordinary run (sim-serve-module.c): N_SLOTS replicas, all off until
 * sim__serve_loop_replica_up(); requests that arrive while none serves
 * wait for one.  The caller advances the loop to the run's time before
 * every change of its replicas. */
typedef struct _SimServeLoop SimServeLoop;

typedef enum {
  SIM_SERVE_REPLICA_OFF,
  SIM_SERVE_REPLICA_SERVING,
  SIM_SERVE_REPLICA_DRAINING,  /* takes no new request; off when its last completes */
} SimServeReplicaState;

SimServeLoop *sim__serve_loop_new (const SimServeReplica *r, const SimServeConfig *config,
                                   GArray *requests, guint n_slots, GError **error);
void     sim__serve_loop_free (SimServeLoop *loop);
/* Runs the loop's events up to T (INCLUSIVE: those at T too; otherwise
 * they wait for what the caller changes at T). */
gboolean sim__serve_loop_advance (SimServeLoop *loop, SimTime t, gboolean inclusive,
                                  GError **error);
/* Replica R serves from now (the requests waiting for one go to it). */
void     sim__serve_loop_replica_up (SimServeLoop *loop, guint r);
/* Replica R stops now: its requests lose their KV cache and go to the
 * other replicas (or wait for one); returns how many. */
guint    sim__serve_loop_replica_down (SimServeLoop *loop, guint r);
/* Replica R takes no new request; TRUE if it is off at once (idle). */
gboolean sim__serve_loop_replica_drain (SimServeLoop *loop, guint r);
SimServeReplicaState sim__serve_loop_replica_state (const SimServeLoop *loop, guint r);
/* Requests arrived and not completed: in all, and routed to replica R. */
guint    sim__serve_loop_outstanding (const SimServeLoop *loop);
guint    sim__serve_loop_replica_outstanding (const SimServeLoop *loop, guint r);
gboolean sim__serve_loop_done (const SimServeLoop *loop);
/* Replica R's time iterating so far, s (an iteration counts whole from its
 * start). */
double   sim__serve_loop_replica_busy (const SimServeLoop *loop, guint r);
guint64  sim__serve_loop_rerouted (const SimServeLoop *loop);
/* The figures of the requests completed so far. */
void     sim__serve_loop_summarise (SimServeLoop *loop, SimServeResult *result);

G_END_DECLS

G_BEGIN_DECLS

/* A deployment simulated on a scenario: what `gpusim serve` prints. */
typedef struct {
  SimServeConfig   config;
  SimServeRequests requests;
  char            *model;          /* the model's name */
  char            *gpu;            /* the GPU model's name */
  double           parameters;
  SimServeReplica  replica;
  SimServeResult   result;
  guint            gpus;           /* replicas x tp */
  double           owned_usd_per_gpu_hour;  /* 0 if the node has no price */
  double           cloud_usd_per_gpu_hour;  /* 0 without a matching cloud instance */
  char            *cloud;
  double           owned_usd_per_million_tokens;
  double           cloud_usd_per_million_tokens;
} SimServeReport;

void     sim__serve_report_clear (SimServeReport *report);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SimServeReport, sim__serve_report_clear)

/* Loads the scenario at PATH, reads the deployment NAME (NULL: the only
 * one), applies OPTIONS ("KEY=VALUE", "requests.KEY=VALUE") and simulates
 * it.  Errors as sim_serve_json(). */
gboolean sim__serve_run (const char *path, const char *name, const char * const *options,
                         SimServeReport *report, GError **error);

/* The JSON object of a report, as text. */
char    *sim__serve_report_to_json (const SimServeReport *report);

G_END_DECLS

G_BEGIN_DECLS

/* The fewest replicas (at most MAX_REPLICAS) whose p99 time to first token
 * is at most TARGET seconds: doubling, then bisection (the p99 falls as
 * replicas are added, the arrivals being the same for every count).
 * REPORT is that deployment's.  Errors as sim__serve_run(), and
 * SIM_ERROR_UNSATISFIABLE when MAX_REPLICAS do not meet the target. */
gboolean sim__serve_min_replicas (const char *path, const char *name,
                                  const char * const *options, double target,
                                  guint max_replicas, SimServeReport *report, guint *n_probes,
                                  GError **error);

G_END_DECLS
