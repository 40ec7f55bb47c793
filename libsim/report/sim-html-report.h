/* sim-html-report.h: a run's results as one self-contained HTML page.
 *
 * The page is built from what a run writes into its output directory
 * (summary.json, and when present jobs.csv, timeseries.csv, topology.dot
 * and nodes.csv) and, optionally, the CSV of `gpusim compare --csv`.  It
 * has, in order: the scenario (name, seed, cluster, policy, workload); the
 * key metrics, then every metric, with units; the network diagram (SVG,
 * nodes coloured by time-averaged GPU allocation); charts over time (GPUs
 * allocated and active, queue length, and, with a [power] section, IT and
 * facility power and PUE); the cumulative distributions of job completion
 * time and wait; and for a comparison, one bar chart per metric with each
 * policy's mean and confidence interval.  A run with a [failures] section
 * (its metrics in the summary) gets a Failures section after the charts
 * over time: what failures cost (lost, checkpoint and restart GPU-hours,
 * ETTR, spares), failures, interruptions and availability per component
 * type, a bar chart by cause and, when timeseries.csv counts them,
 * interruptions over time; its script is added only then, so that a page
 * without it keeps its bytes.
 *
 * Charts are drawn in the browser by Chart.js (inlined, from
 * SIM_CHARTJS_PATH or the file the GPUSIM_CHARTJS environment variable
 * names), so the page needs no network.  The data are inlined as JSON:
 * time series of more than 2,000 rows are averaged into 2,000 intervals,
 * and each distribution is drawn from 501 quantiles, so the page stays
 * small (about 300 kB plus the diagram) whatever the run's length.  The
 * same inputs give the same bytes.
 *
 * A sweep's report (sim_html_sweep_report_render()) is built the same way
 * from the sweep's summary: its points, and its metrics over the swept
 * axes.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * sim_html_report_render:
 * @run_dir: a run's output directory (`gpusim run -o DIR`)
 * @compare_csv: (nullable): a `gpusim compare --csv` file, or %NULL (the
 *   file compare.csv in @run_dir is used if there is one)
 * @error: return location for a #GError
 *
 * Builds the report page.
 *
 * Errors: SIM_ERROR_IO if @run_dir or its summary.json cannot be read, or
 * Chart.js cannot be found; SIM_ERROR_PARSE if a file is not what a run
 * writes (the message names the file and line).
 *
 * Time complexity: O(jobs log jobs + rows) plus the diagram's layout.
 *
 * Returns: (transfer full): the HTML text, or %NULL on error.
 */
char *sim_html_report_render (const char *run_dir, const char *compare_csv, GError **error);

/**
 * sim_html_report_write:
 * @run_dir: as sim_html_report_render()
 * @compare_csv: (nullable): as sim_html_report_render()
 * @path: the HTML file to write (whole, or not at all)
 * @error: return location for a #GError
 *
 * Writes the report of sim_html_report_render() to @path.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_html_report_write (const char *run_dir, const char *compare_csv, const char *path,
                                GError **error);

/**
 * sim_html_sweep_report_render:
 * @summary_json: a sweep's summary, as sim_sweep_to_json() writes it
 *   (`gpusim sweep --format json`)
 * @source: (nullable): what to call it in messages, e.g. its file name
 * @metrics: (nullable) (array zero-terminated=1): the metrics to show, in
 *   this order; %NULL or empty for every metric of the summary
 * @error: return location for a #GError
 *
 * Builds the report page of a sweep: its scenario and axes, a table of
 * the points with each metric's mean and confidence interval, and per
 * metric a line chart over the first axis (the first dimension of the
 * grid: keys zipped together move as one), its interval a shaded band
 * with whiskers.  With two axes there is one line per value of the second,
 * with more one per combination of the others.  The x axis is numeric
 * when the first key's values are numbers with one unit ("2/h, 3/h") or
 * durations ("12h, 1d", drawn in seconds), else its values in order; axes are titled with the key or metric and
 * its unit.  The data are inlined as JSON (the element with id
 * "report-data": {"sweep": {"x", "series", "metrics": [{"name", "unit",
 * "mean", "low", "high"}]}}, one figure per point, as in the summary);
 * the same summary gives the same bytes.
 *
 * Errors: SIM_ERROR_PARSE if @summary_json is not a sweep's summary (the
 * message names @source and what is missing); SIM_ERROR_INVALID for a
 * metric of @metrics that the summary does not have (the message lists
 * those it has); SIM_ERROR_IO if Chart.js cannot be found.
 *
 * Time complexity: O(points x metrics).
 *
 * Returns: (transfer full): the HTML text, or %NULL on error.
 */
char *sim_html_sweep_report_render (const char *summary_json, const char *source,
                                    const char * const *metrics, GError **error);

/**
 * sim_html_sweep_report_write:
 * @summary_json: as sim_html_sweep_report_render()
 * @source: (nullable): as sim_html_sweep_report_render()
 * @metrics: (nullable) (array zero-terminated=1): as sim_html_sweep_report_render()
 * @path: the HTML file to write (whole, or not at all)
 * @error: return location for a #GError
 *
 * Writes the page of sim_html_sweep_report_render() to @path.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_html_sweep_report_write (const char *summary_json, const char *source,
                                      const char * const *metrics, const char *path,
                                      GError **error);

G_END_DECLS
