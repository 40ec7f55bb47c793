/* bench-util.h: what the replay benchmarks share (not installed).
 *
 * The Philly month they replay, found as each says in its usage, and a
 * timed replay keeping the fastest of several runs. */
#pragma once

#include <sim.h>

/* The trace to replay: ARGV[1] if given (the program exits 1 if it is not
 * a file), else philly/philly-2017-10.csv as bench_trace_file() finds it
 * (bench-args.h).  NULL, after printing "PROG: ... not found" and where it
 * looked, when no such file exists: the benchmark has nothing to replay and
 * exits 0. */
char *bench_philly_trace (int argc, char **argv, const char *prog);

/* Runs SCENARIO (a scenario's text, or a file's path when FROM_FILE) RUNS
 * times, each from a fresh simulation; *WALL is the fastest run's wall time
 * in seconds (loading and building not counted), *REPORT the first run's
 * report. */
gboolean bench_replay (const char *scenario, gboolean from_file, guint runs, double *wall,
                       SimReport **report, GError **error);

/* A metric of R, 0 if R lacks it. */
double bench_value (SimReport *r, const char *name);
