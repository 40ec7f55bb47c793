/* sim-elastic.h: elastic capacity, a cloud pool the cluster bursts into and
 * serverless GPU functions (not installed).
 *
 * Bursting.  The scenario's [elastic] section names a pool of the cluster
 * as the cloud: its nodes exist but are out of service
 * (sim_simulation_set_node_available()) until the autoscaler brings them
 * up.  After every scheduling pass the autoscaler looks at the queue: when
 * at least scale_up_queue jobs wait, or the job that has waited longest
 * has waited scale_up_wait, it requests `step` more nodes (never more than
 * max_nodes held at once, and no new request while a requested node is
 * still starting).  A requested node takes jobs `startup` after the
 * request; a node that has been idle for scale_down_delay is released.
 * Each node is billed from its request to its release at the price per
 * node-hour, per started second, for at least min_billing.  The price is
 * the key's, or the on-demand price of the catalogue's cloud instance
 * ([elastic] cloud = NAME).
 *
 * Serverless functions.  Jobs of a [class] with serverless = true, and
 * jobs within the [serverless] limits (max_gpus, max_duration), do not
 * queue for the cluster: they run on the provider at once, at the
 * reference GPU's speed, after a cold start unless an instance of the same
 * function (class and GPU count) is warm (it ended an execution at most
 * keep_warm ago and is not busy).  Each execution is billed per GPU-second
 * of its run (and of its cold start with bill_cold_start), per started
 * second, plus the invocation fee.  A job's wait is its cold start, and its
 * completion time includes it.
 *
 * Metrics (summary.json, `gpusim compare --metric`): burst_scale_ups,
 * burst_nodes_requested, burst_nodes_peak, burst_node_hours (billed),
 * burst_gpu_hours (billed node-hours x GPUs per node), burst_gpu_hours_used
 * (jobs' GPU time on cloud nodes), burst_jobs, burst_price_per_node_hour,
 * burst_cost, own_gpu_utilization (the GPUs outside the cloud pool);
 * serverless_executions, serverless_cold_starts,
 * serverless_gpu_seconds, serverless_cost.  jobs.csv gains a column
 * `where`: cluster, cloud, cluster+cloud or serverless.
 */
#pragma once

#include "kernel/sim-simulation.h"
#include "core/sim-engine.h"
#include "report/sim-metrics.h"

#include "core/sim-keys.h"
G_BEGIN_DECLS

/* Scenario keys: setting one of the [elastic] and [serverless] sections
 * from its text (errors say what was expected; the caller adds the file,
 * line and key).  Their tables are sim__elastic_key_table and
 * sim__serverless_key_table (sim-keys.h). */
void     sim__elastic_config_init (SimElasticConfig *config);
gboolean sim__elastic_config_set (SimElasticConfig *config, const char *key, const char *value,
                                  GError **error);
void     sim__elastic_config_clear (SimElasticConfig *config);
void     sim__serverless_config_init (SimServerlessConfig *config);
gboolean sim__serverless_config_set (SimServerlessConfig *config, const char *key,
                                     const char *value, GError **error);

/* Checks the sections once the scenario is read: what is missing or
 * cannot be right, with the section and key to blame in *GROUP and *KEY
 * (KEY NULL for the section itself). */
gboolean sim__elastic_config_check (SimScenario *scenario, const char **group, const char **key,
                                    GError **error);

typedef struct _SimElastic SimElastic;

/* Attaches the autoscaler and the serverless provider to a simulation whose
 * scenario has [elastic] or serverless jobs (nothing otherwise): the cloud
 * pool's nodes are taken out of service, its own event kinds registered
 * with the kernel, and it is added to the simulation as an accumulator
 * (which owns it: it lives as long as the simulation), that claims
 * serverless jobs, notes the cloud's GPUs in the state and scales after
 * each pass. */
gboolean sim__elastic_attach (SimSimulation *sim, guint flags, GError **error);

/* A job arrives: if it runs as a serverless function, the provider takes
 * it (and returns TRUE); it ends through sim__kernel_finish_outside(). */
gboolean sim__elastic_take_job (SimElastic *self, SimJob *job, SimTime now);

/* After a scheduling pass: scale up if the queue asks for it, start
 * counting idle cloud nodes towards their release. */
void sim__elastic_after_pass (SimElastic *self, SimTime now);

/* Where a finished job ran, for jobs.csv. */
const char *sim__elastic_job_where (const SimJob *job, gpointer self);

/* Thousandths of GPUs allocated on the cloud pool's nodes now. */
guint64 sim__elastic_cloud_milli (SimElastic *self);

/* [elastic] and [serverless], read into @scenario and checked, and freed. */
gboolean sim__elastic_sections_read (const SimKeyReader *reader, SimScenario *scenario,
                                     GError **error);
void     sim__elastic_sections_clear (SimScenario *scenario);

extern const SimKeyTable sim__elastic_key_table;
extern const SimKeyTable sim__serverless_key_table;

G_END_DECLS
