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

/**
 * sim_format_number:
 * @x: a number
 *
 * Formats @x for people: about four significant digits, never an
 * exponent, thousands separated by commas ("12,930", "1,256,000",
 * "0.9616", "12.5"), trailing zeros dropped, and anything below one
 * millionth in magnitude written "0" (a difference of 1.4e-13 from
 * rounding is a zero); "n/a" if @x is not finite.
 *
 * Returns: (transfer full): the text.
 */
char *sim_format_number (double x);

/**
 * sim_format_count:
 * @n: how many
 * @noun: (nullable): what is counted, in the plural ("jobs"); %NULL or ""
 *   for a bare number
 *
 * "1 job", "0 jobs", "12,930 jobs", "2.5 jobs" (a mean): @n as
 * sim_format_number() writes it, then @noun, its final "s" dropped when
 * @n is exactly 1.
 *
 * Returns: (transfer full): the text.
 */
char *sim_format_count (double n, const char *noun);

/**
 * sim_format_usd:
 * @usd: an amount in US dollars
 *
 * "$125,600" (whole dollars from $100 on), "$12.34" below, "-$1,200",
 * "$0"; never an exponent.
 *
 * Returns: (transfer full): the text.
 */
char *sim_format_usd (double usd);

/**
 * sim_format_value:
 * @value: a metric's value
 * @unit: (nullable): its unit, as the report gives it
 *
 * A metric's value for people, by its unit: "s" a duration
 * (sim_format_duration(), "0 s" for zero); "USD" and "USD/..." money
 * (sim_format_usd(), then "/..."); "W" scaled to W, kW or MW and "kWh" to
 * kWh, MWh or GWh; "fraction" a percentage ("12.5 %"); "%" a percentage
 * already; counts ("jobs", "events", "caps", "starts", "GPUs", "nodes")
 * as sim_format_count(), "count" as a bare number; "ratio" a bare number;
 * any other unit after the number ("1,234 GPU-h").
 *
 * Returns: (transfer full): the text.
 */
char *sim_format_value (double value, const char *unit);

/**
 * sim_report_get_group:
 * @metric: a metric's name
 *
 * The part of the run a metric belongs to, as the summary and the report
 * group it: "jobs", "power", "cooling", "cost", "failures", "power
 * manager", "facility limit", "burst", "serverless" or "run".  A module's
 * metrics share the prefix of their names (cost_, burst_, ...), the
 * failure model's are named in its table.
 *
 * Returns: (transfer none): the group's name.
 */
const char *sim_report_get_group (const char *metric);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimReport, sim_report_unref)

G_END_DECLS
