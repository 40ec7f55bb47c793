/* sim-serve-module.h: serving inside ordinary runs (not installed).
 *
 * A scenario's [serving NAME] sections run on the cluster beside its
 * workload.  Each deployment's replicas are jobs of the run: tp GPUs of
 * one node each (a whole node with whole_nodes), of the GPU model the
 * replica model is built for, at the deployment's priority, placed by the
 * scenario's policy like any job
 * (and on the [elastic] cloud pool when the owned nodes are full, as any
 * waiting job bursts there).  A replica serves from load_time after its
 * job starts until the job stops: preempted, on a failed node, scaled
 * down, or at the end of the run.  A replica's job has no end of its own
 * (its length is ten years, so that policies which order by length place
 * it last); it leaves when the deployment has answered every request, or
 * when the autoscaler drops it, without counting among finished jobs.
 *
 * The deployment's requests are simulated by the serving model's own loop
 * (sim-serve-sim.c), advanced to the run's time at every change of the
 * replica set: the two loops share the clock, not the queue.  Requests of
 * a stopped replica lose their KV cache and go to the others (or wait for
 * one), as a preempted sequence does.
 *
 * With autoscale, a timer looks every autoscale_interval: the replicas
 * wanted are the requests in the system over target_outstanding, within
 * min_replicas and max_replicas; fewer replica jobs than that: new ones
 * are submitted; more, for scale_down_delay: the queued replica job
 * leaves first, else the serving replica with the fewest requests drains
 * (takes no new request) and its job leaves once it is idle.
 *
 * A replica's GPUs are busy (their jobs' activity, which the power model
 * draws by) the share of the last look's interval the replica iterated,
 * set at every look; whole while the weights load.
 *
 * Metrics, per deployment NAME (summary.json, `gpusim compare --metric`,
 * `gpusim seek --target`): serving.NAME.ttft_mean, _p50, _p95, _p99 (s),
 * the same of tpot and e2e, goodput (requests/s meeting both SLOs),
 * slo_attainment, requests, requests_unfinished, rerouted,
 * output_tokens_per_second, tokens_per_second, kv_cache_utilization,
 * gpu_busy, replicas_mean, replicas_peak, scale_ups, scale_downs,
 * gpu_hours (and gpu_hours_cloud on the [elastic] pool), busy_gpu_hours
 * (the GPU-hours counted busy), energy_kwh and
 * kwh_per_million_tokens (with [power]: the replicas' GPUs' power), usd
 * and usd_per_million_tokens_owned (from the run's [cost] accounting: the
 * GPU-hours at the cluster's owning cost, their energy at the run's price,
 * cloud GPU-hours at the burst price) and _cloud (every GPU-hour rented
 * on demand); without [cost], at the prices `gpusim serve` takes.
 */
#pragma once

#include "kernel/sim-simulation.h"
#include "scenario/sim-scenario-private.h"
#include "serve/sim-serve-private.h"

G_BEGIN_DECLS

/* A deployment as the scenario read it. */
typedef struct {
  SimServeConfig   config;
  SimServeRequests requests;
} SimServeDeployment;

/* The scenario's [serving NAME] sections, in file order. */
typedef struct _SimServeSections {
  GPtrArray *deployments;   /* SimServeDeployment* */
} SimServeSections;

/* The scenario owner's read and clear (sim-modules.c). */
gboolean sim__serve_sections_read  (const SimKeyReader *reader, SimScenario *scenario,
                                    GError **error);
void     sim__serve_sections_clear (SimScenario *scenario);

/* Whether the scenario has a [serving NAME] section. */
gboolean sim__serve_has_deployments (const SimScenario *scenario);

gboolean sim__serve_module_attach (SimSimulation *sim, guint flags, GError **error);

/* A change of a deployment's replica jobs holding GPUs. */
typedef struct {
  double time;      /* s */
  guint  replicas;  /* from then on */
} SimServeStep;

/* The changes of DEPLOYMENT's running replica jobs over the run so far
 * (*N_STEPS of them; NULL without such a deployment). */
const SimServeStep *sim__serve_module_timeline (SimSimulation *sim, const char *deployment,
                                                guint *n_steps);

G_END_DECLS
