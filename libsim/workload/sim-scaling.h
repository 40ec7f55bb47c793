/* sim-scaling.h: how a job class speeds up with more GPUs, and how fast it
 * runs on each GPU model.
 *
 * A class's speed-up S(N) is its throughput on N GPUs over its throughput
 * on one GPU of the same model (S(1) = 1).  Four models:
 *
 *   linear   S(N) = N (the default, and gpusim's behaviour before scaling
 *            curves existed)
 *   amdahl   S(N) = 1 / (s + (1 - s) / N), s the serial fraction, 0 <= s < 1
 *   table    measured points (N_i, S_i), joined by GSL's Steffen
 *            interpolation, which is monotone between points and never
 *            overshoots them; (1, 1) is implied; beyond the last point the
 *            speed-up stays at the last measured value (no extrapolation)
 *   comm     compute scales as N and the job's communication profile (its
 *            gradient all-reduce and other collectives, over the real
 *            fabric, under the shares it gets) slows each iteration: the
 *            speed-up comes out of the communication model
 *
 * What a class's duration means.  A job's drawn duration is its run time
 * on `reference_gpus` GPUs of the reference GPU model (default: the GPUs
 * the job asks for, so a rigid job runs for exactly its duration, as
 * before).  On N GPUs it runs for
 *
 *     duration x S(N_ref) / S(N)
 *
 * so scaling matters whenever a job runs on another count than the one
 * its duration was measured at: a moldable job, or a scenario that sets
 * reference_gpus = 1 and asks what 4 rather than 8 GPUs do.
 *
 * Throughput across GPU models.  A class may list its measured throughput
 * on some GPU models (jobs per hour, steps per second: any one unit, as
 * Gavel's throughput tables do); on a listed model it runs at
 * throughput(model) / throughput(reference model) of its reference speed.
 * Models it does not list fall back to the ratio of dense FP16 TFLOPS.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * SIM_SCALING_MAX_POINTS:
 *
 * Measured points a scaling table may hold.
 */
#define SIM_SCALING_MAX_POINTS 32

/**
 * SIM_THROUGHPUT_MAX_MODELS:
 *
 * GPU models a throughput table may list.
 */
#define SIM_THROUGHPUT_MAX_MODELS 16

/**
 * SimScalingKind:
 * @SIM_SCALING_LINEAR: S(N) = N
 * @SIM_SCALING_AMDAHL: Amdahl's law with a serial fraction
 * @SIM_SCALING_TABLE: measured points, monotone interpolation
 * @SIM_SCALING_COMM: linear compute slowed by the communication profile
 */
typedef enum {
  SIM_SCALING_LINEAR,
  SIM_SCALING_AMDAHL,
  SIM_SCALING_TABLE,
  SIM_SCALING_COMM,
} SimScalingKind;

/**
 * SimScaling:
 * @kind: the model
 * @serial_fraction: Amdahl's s, in [0, 1)
 * @n_points: measured points in @gpus and @speedup (table only)
 * @gpus: GPU counts, strictly increasing, each >= 1
 * @speedup: speed-up at each count: non-decreasing, at most the count
 *
 * A class's scaling curve.  Plain data: copy it by assignment.
 */
typedef struct {
  SimScalingKind kind;
  double serial_fraction;
  guint  n_points;
  double gpus[SIM_SCALING_MAX_POINTS];
  double speedup[SIM_SCALING_MAX_POINTS];
} SimScaling;

/**
 * SimThroughputTable:
 * @n_models: entries used
 * @models: GPU model names as the scenario gives them (interned strings)
 * @throughput: the class's throughput on each, in one unit of the user's
 *   choice (only ratios matter), each > 0
 *
 * A class's measured throughput on some GPU models.  Plain data.
 */
typedef struct {
  guint       n_models;
  const char *models[SIM_THROUGHPUT_MAX_MODELS];
  double      throughput[SIM_THROUGHPUT_MAX_MODELS];
} SimThroughputTable;

/**
 * sim_scaling_kind_from_string:
 * @text: "linear", "amdahl", "table" or "comm"
 * @kind: (out): the kind
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_PARSE naming the known kinds.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_scaling_kind_from_string (const char *text, SimScalingKind *kind, GError **error);

/**
 * sim_scaling_kind_to_string:
 *
 * Returns: (transfer none): the kind's name as scenarios spell it.
 */
const char *sim_scaling_kind_to_string (SimScalingKind kind);

/**
 * sim_scaling_parse_table:
 * @text: measured points "N:S, N:S, ...", e.g. "1:1, 2:1.98, 4:3.88, 8:7.28"
 * @scaling: (out caller-allocates): the curve: kind %SIM_SCALING_TABLE
 *   and its points, with (1, 1) added in front if absent (left as it was
 *   on error)
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_PARSE for text that is not a list of N:S pairs or is
 * empty; SIM_ERROR_INVALID for counts that are not strictly increasing
 * whole numbers >= 1, a speed-up that decreases (the curve must be
 * monotone), exceeds its GPU count (super-linear), is not positive, or is
 * not 1 at one GPU; more than %SIM_SCALING_MAX_POINTS points.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_scaling_parse_table (const char *text, SimScaling *scaling, GError **error);

/**
 * sim_scaling_validate:
 * @scaling: a curve
 * @error: return location for a #GError
 *
 * Checks a curve built by hand the way sim_scaling_parse_table() checks
 * text, and Amdahl's serial fraction against [0, 1).
 *
 * Returns: %TRUE if it is consistent.
 */
gboolean sim_scaling_validate (const SimScaling *scaling, GError **error);

/**
 * sim_scaling_speedup:
 * @scaling: a valid curve
 * @n_gpus: GPUs, >= 1
 *
 * The curve's speed-up on @n_gpus against one GPU.  For
 * %SIM_SCALING_COMM this is the compute part alone (@n_gpus): the
 * communication that slows it depends on the fabric and is computed by
 * the simulation (see sim_simulation_get_class_speedup()).
 *
 * Time complexity: O(1) for linear and Amdahl; O(points) for a table
 * (the interpolation is built for each call, so callers on a hot path
 * cache the values they need).
 *
 * Returns: S(@n_gpus).
 */
double sim_scaling_speedup (const SimScaling *scaling, guint n_gpus);

/**
 * sim_scaling_amdahl:
 * @serial_fraction: s, in [0, 1)
 * @n_gpus: N, >= 1
 *
 * Amdahl's law, 1 / (s + (1 - s) / N).
 *
 * Returns: the speed-up.
 */
double sim_scaling_amdahl (double serial_fraction, double n_gpus);

/**
 * sim_throughput_parse:
 * @text: "MODEL:VALUE, MODEL:VALUE", e.g. "V100-16GB:46.8, P100:28.5"
 * @table: (out caller-allocates): the table
 * @error: return location for a #GError
 *
 * Model names are checked against the catalogue later, when the
 * simulation is built.
 *
 * Errors: SIM_ERROR_PARSE for an empty list, a missing ':' or a value that
 * is not a positive number; SIM_ERROR_INVALID for a model listed twice or
 * more than %SIM_THROUGHPUT_MAX_MODELS models.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_throughput_parse (const char *text, SimThroughputTable *table, GError **error);

G_END_DECLS
