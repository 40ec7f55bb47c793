/* sim-variation.h: variation that means something on a trace (not
 * installed).
 *
 * A trace replayed whole is the same on every seed, so the runs of a
 * comparison or a sweep over seeds are one sample repeated, and their
 * intervals say nothing (study/sim-stats.h gives them none).  [workload]
 * variation makes the seed choose what part of the trace a run sees, so
 * that the runs are samples of the trace's behaviour:
 *
 *   windows(7d)     the trace cut into whole windows of that length from its
 *                   first submission (a last, shorter piece is left out);
 *                   seed s replays window (s - 1) mod N, its jobs shifted so
 *                   that the window starts at 0.  Seeds 1 to N see N
 *                   disjoint windows: a week each, say, of a month.
 *   bootstrap(days) the trace cut into days from its first submission; a
 *                   run replays as many days as the trace has, drawn with
 *                   replacement, laid end to end, each job at its time of
 *                   day (Efron's bootstrap with the day as the block, which
 *                   keeps the daily cycle and the bursts within a day).
 *   bootstrap(jobs) as many jobs as the trace has, drawn with replacement,
 *                   each at its own submission time (the plain bootstrap:
 *                   arrivals keep their pattern, jobs their mix).
 *   jitter(10min)   every job's submission moved by a draw uniform in
 *                   [-10 min, +10 min] (not before 0), then all re-sorted:
 *                   the same jobs, in a slightly different order of arrival.
 *
 * Every policy of a comparison runs the same seeds, so it sees the same
 * windows, days or draws: the differences stay paired.  The draws come
 * from GLib's GRand (MT19937) seeded with the scenario's seed: the same
 * scenario and seed give the same jobs, in any process.
 *
 * The trace is read whole before the first job is given (the jobs' specs
 * held in memory, about 150 bytes a job).  Rejected: cutting windows while
 * reading (the number of windows, needed for the modulo, is known only at
 * the end) and resampling rows of the file (the formats differ; the specs
 * are what every source produces).
 */
#pragma once

#include "workload/sim-workload.h"

G_BEGIN_DECLS

typedef enum {
  SIM_VARIATION_NONE,
  SIM_VARIATION_WINDOWS,
  SIM_VARIATION_BOOTSTRAP_DAYS,
  SIM_VARIATION_BOOTSTRAP_JOBS,
  SIM_VARIATION_JITTER,
} SimVariationKind;

/* Parses TEXT ("none", "windows(7d)", "bootstrap(days)", "bootstrap(jobs)",
 * "jitter(10min)") into KIND and TIME (the windows' length or the jitter's
 * reach; 0 otherwise), or sets ERROR saying what was expected. */
gboolean sim__variation_parse (const char *text, guint *kind, SimTime *time, GError **error);

/* A workload that gives INNER's jobs as KIND says for SEED, taking INNER
 * (freed with it).  Returns INNER itself for SIM_VARIATION_NONE, NULL with
 * INNER freed if INNER is NULL. */
SimWorkload *sim__variation_wrap (SimWorkload *inner, guint kind, SimTime time, guint64 seed);

G_END_DECLS
