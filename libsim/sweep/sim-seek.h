/* sim-seek.h: goal seeking, the smallest value of a key that meets a target.
 *
 * "How many nodes keep the p95 wait under an hour?" is a sweep whose
 * answer is one point.  A #SimSeek bisects a key on which the metric is
 * monotone (more nodes, shorter waits): each probe is a one-point plan
 * (sim-plan.h) run on every seed by a #SimThreadExecutor, and it meets the
 * target only if the target holds for the far end of the metric's
 * confidence interval (the upper end for "<=" and "<", the lower for ">="
 * and ">"): with confidence, not by the luck of the seeds.  With one seed
 * the value itself decides.
 *
 * The search: probe the low end of the range (if it meets the target, it
 * is the answer), then the high end (if it does not, no value in the range
 * does: an error), then bisect, keeping a low end that misses and a high
 * end that meets, until they are a tolerance apart (1 for an integer range:
 * the answer is then exact).  Probes: 2 + log2 ((high - low) / tolerance).
 * Rejected: a grid sweep of the range (as many runs as values); secant or
 * Brent steps (metrics of a queue are noisy and often flat at zero, where
 * they stall).
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * SimSeekProbe:
 * @value: the key's value probed
 * @n: the number of seeds
 * @mean: the metric's mean over the seeds
 * @low: the low end of its confidence interval (the mean with one seed)
 * @high: the high end (the mean with one seed)
 * @meets: whether the probe meets the target with confidence
 *
 * One probe of a search.
 */
typedef struct {
  double   value;
  guint    n;
  double   mean;
  double   low;
  double   high;
  gboolean meets;
} SimSeekProbe;

GType sim_seek_probe_get_type (void) G_GNUC_CONST;
#define SIM_TYPE_SEEK_PROBE (sim_seek_probe_get_type ())

/**
 * SimSeekProbeFunc:
 * @probe: the probe just made
 * @user_data: as given
 *
 * Called after each probe, in the thread that called sim_seek_run().
 */
typedef void (*SimSeekProbeFunc) (const SimSeekProbe *probe, gpointer user_data);

#define SIM_TYPE_SEEK (sim_seek_get_type ())
G_DECLARE_FINAL_TYPE (SimSeek, sim_seek, SIM, SEEK, GObject)

/**
 * sim_seek_new:
 * @path: a scenario file (a sweep file too)
 * @overrides: (nullable) (array zero-terminated=1): "section.key=value"
 *   strings applied to every run
 * @key: the key to vary, "SECTION.KEY"; "pool.NAME.KEY" (and class, comm)
 *   is taken for "pool NAME.KEY"
 * @target: "METRIC OP VALUE" with OP one of <=, <, >=, >; VALUE a number,
 *   or a duration ("1h", "90min") for a metric in seconds
 * @error: return location for a #GError
 *
 * A search with five seeds from the scenario's, 95 % intervals, threads on
 * every processor and, as its range, the key's values in the file's
 * [sweep] section if it lists numbers for it.
 *
 * Errors: SIM_ERROR_PARSE for a target that is not one, naming it and
 * what was expected ("target \"...\": ..."); any error of sim_plan_new().
 *
 * Returns: (transfer full) (nullable): the search.
 */
SimSeek *sim_seek_new (const char *path, const char * const *overrides, const char *key,
                       const char *target, GError **error);

/**
 * sim_seek_set_range:
 * @self: a search
 * @low: the smallest value to try
 * @high: the largest, above @low
 *
 * Where to look.  Both integral: the search is over integers.
 */
void sim_seek_set_range (SimSeek *self, double low, double high);

/**
 * sim_seek_set_range_from_string:
 * @self: a search
 * @range: "LOW..HIGH", each a number with the key's unit or none, the
 *   same unit on both ends if both have one ("1/h..50/h", "2..64",
 *   "100GB/s..400GB/s")
 * @error: return location for a #GError
 *
 * Where to look, as text: the unit goes after every value the probes set
 * (sim_seek_format_value()), so that a key with a unit can be varied.
 *
 * Errors: SIM_ERROR_PARSE for text that is not such a range, naming it.
 *
 * Returns: %TRUE if the range was set.
 */
gboolean sim_seek_set_range_from_string (SimSeek *self, const char *range, GError **error);

/**
 * sim_seek_set_seeds:
 * @self: a search
 * @first: the first seed
 * @n_seeds: seeds per probe, at least 1
 */
void sim_seek_set_seeds (SimSeek *self, guint64 first, guint n_seeds);

/**
 * sim_seek_set_force:
 * @self: a search
 * @force: run probes past the plan's limit of %SIM_PLAN_MAX_RUNS seeds and
 *   simulations past their size limits (sim_plan_set_force())
 */
void sim_seek_set_force (SimSeek *self, gboolean force);

/**
 * sim_seek_get_first_seed:
 * @self: a search
 *
 * Returns: the first seed: the scenario's unless set.
 */
guint64 sim_seek_get_first_seed (SimSeek *self);

/**
 * sim_seek_set_level:
 * @self: a search
 * @level: the confidence level, between 0 and 1 exclusive
 */
void sim_seek_set_level (SimSeek *self, double level);

/**
 * sim_seek_set_tolerance:
 * @self: a search
 * @tolerance: stop when the bracket is this narrow (finite, at least 0); 0
 *   for the default (1 for an integer range, a hundredth of the range
 *   otherwise)
 */
void sim_seek_set_tolerance (SimSeek *self, double tolerance);

/**
 * sim_seek_set_threads:
 * @self: a search
 * @n_threads: runs at once; 0 for one per processor
 */
void sim_seek_set_threads (SimSeek *self, guint n_threads);

/**
 * sim_seek_set_probe_func:
 * @self: a search
 * @func: (nullable) (scope notified): called after each probe
 * @user_data: passed to @func
 * @destroy: frees @user_data
 */
void sim_seek_set_probe_func (SimSeek *self, SimSeekProbeFunc func, gpointer user_data,
                              GDestroyNotify destroy);

/**
 * sim_seek_run:
 * @self: a search with a range
 * @answer: (out): the smallest value probed that meets the target
 * @error: return location for a #GError
 *
 * Runs the search.
 *
 * Errors: SIM_ERROR_MISSING without a range (none set, none in [sweep]);
 * SIM_ERROR_NOT_FOUND when the high end misses the target; SIM_ERROR_INVALID
 * for a duration target on a metric not in seconds; the error of a run
 * that failed (an unknown metric among them).
 *
 * Time complexity: seeds x (2 + log2 (range / tolerance)) simulations.
 *
 * Returns: %TRUE if a value meets the target.
 */
gboolean sim_seek_run (SimSeek *self, double *answer, GError **error);

/**
 * sim_seek_get_key:
 * @self: a search
 *
 * Returns: (transfer none): the key, as the scenario spells it.
 */
const char *sim_seek_get_key (SimSeek *self);

/**
 * sim_seek_get_metric:
 * @self: a search
 *
 * Returns: (transfer none): the target's metric.
 */
const char *sim_seek_get_metric (SimSeek *self);

/**
 * sim_seek_get_unit:
 * @self: a search that has probed
 *
 * Returns: (transfer none) (nullable): the metric's unit.
 */
const char *sim_seek_get_unit (SimSeek *self);

/**
 * sim_seek_get_n_probes:
 * @self: a search
 *
 * Returns: the probes made so far.
 */
guint sim_seek_get_n_probes (SimSeek *self);

/**
 * sim_seek_get_probe:
 * @self: a search
 * @index: a probe, in the order made
 * @probe: (out caller-allocates): the probe
 */
void sim_seek_get_probe (SimSeek *self, guint index, SimSeekProbe *probe);

/**
 * sim_seek_format_value:
 * @self: a search
 * @value: a value of the key
 *
 * Returns: (transfer full): @value as the probes set it ("27", or "3.25"
 *   for a range that is not integral), with the range's unit if it has
 *   one ("3.25/h").
 */
char *sim_seek_format_value (SimSeek *self, double value);

G_END_DECLS
