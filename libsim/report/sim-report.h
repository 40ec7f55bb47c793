/* sim-report.h: the results of a run.
 *
 * A report is an ordered list of named metrics, each with a value and a
 * unit, plus a description of what was run.  It is rendered as JSON (for
 * programs; `gpusim run --json`, `summary.json`) or as a summary for
 * people.  The same scenario and seed give byte-identical JSON.
 *
 * Metrics (all exact integrals between events, no sampling):
 *   jobs_submitted, jobs_completed, jobs_unfinished             jobs
 *   wait_{mean,p50,p95,p99,max}, jct_{mean,p50,p95,p99,max}     s
 *   bounded_slowdown_{mean,p50,p95,p99}                         ratio (threshold 10 s)
 *   makespan, simulated_time                                    s
 *   gpu_utilization (allocated GPU-seconds / capacity)          ratio
 *   gpu_compute_utilization (allocated, weighted by the share
 *     of time jobs compute rather than wait on the network)     ratio
 *   gpu_activity (busy GPU-seconds / capacity: what DCGM's
 *     GPU activity reports; see cluster/sim-sharing.h)          ratio
 *   active_gpu_seconds                                          GPU*s
 *   allocated_gpu_seconds, job_gpu_seconds                      GPU*s
 *   queue_length_mean (time-average), queue_length_max          jobs
 *   fragmented_gpus_mean, fragmentation                         GPUs, ratio
 *   events                                                      events
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _SimReport SimReport;

GType sim_report_get_type (void) G_GNUC_CONST;
#define SIM_TYPE_REPORT (sim_report_get_type ())

SimReport *sim_report_ref (SimReport *report);
void       sim_report_unref (SimReport *report);

/**
 * sim_report_get_value:
 * @report: a report
 * @metric: a metric's name, e.g. "wait_mean"
 * @value: (out): its value
 *
 * Returns: %TRUE if the report has that metric.
 */
gboolean sim_report_get_value (const SimReport *report, const char *metric, double *value);

/**
 * sim_report_get_unit:
 * Returns: (transfer none) (nullable): the unit of @metric, or %NULL.
 */
const char *sim_report_get_unit (const SimReport *report, const char *metric);

/**
 * sim_report_list_metrics:
 * Returns: (transfer container) (element-type utf8): metric names, in report order.
 */
GPtrArray *sim_report_list_metrics (const SimReport *report);

/**
 * sim_report_to_json:
 * @report: a report
 * @pretty: indent the output
 *
 * Returns: (transfer full): the report as a JSON object.
 */
char *sim_report_to_json (const SimReport *report, gboolean pretty);

/**
 * sim_report_format_text:
 * Returns: (transfer full): a summary for people, one line per figure.
 */
char *sim_report_format_text (const SimReport *report);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimReport, sim_report_unref)

G_END_DECLS
