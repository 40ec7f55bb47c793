/* sim-run-records.h: what a run writes beside its summary for the pictures
 * drawn from it (not installed).
 *
 * nodes.csv, one row per cluster node: its GPUs' time-averaged and peak
 * allocation (exact integrals of the allocated thousandths of GPUs over
 * the run), its power (mean and peak W, and its rated maximum) and the
 * load of its links to its first switch (mean and peak, in [0, 1]).
 * Power and link load are sampled at regular instants (the run's
 * time-series interval, at least a minute): between events the state is constant, and the
 * accumulator is told of it before every change, so each sample is the
 * value at its instant exactly; the mean is over samples.  Columns a run
 * does not model (power without [power], link load without a fabric
 * model of communication) are left empty.
 *
 * The timeline (report/sim-timeline.h): job runs, preemptions and MIG
 * reconfigurations, told by the job events.
 */
#pragma once

#include <stdio.h>
#include "report/sim-metrics.h"
#include "report/sim-timeline.h"
#include "cluster/sim-cluster.h"

G_BEGIN_DECLS

/* Fills @power_w and @link_load (n_nodes entries each) with the state now;
 * returns which of them it knows (bit 0: power, bit 1: link load). */
typedef guint (*SimNodeProbe) (gpointer data, double *power_w, double *link_load, guint n_nodes);

SimAccumulator *sim__node_usage_new (const SimCluster *cluster, FILE *out, SimTime interval,
                                     SimNodeProbe probe, gpointer probe_data);

/* Points a node-usage accumulator at a new nodes.csv. */
void sim__node_usage_set_output (SimAccumulator *acc, FILE *out);

/* After its report: per node, the time-averaged share of its GPUs allocated. */
void sim__node_usage_get_utilization (SimAccumulator *acc, double *out, guint n_nodes);

/* Why a job's run ended early: "migration", a failure's component, or NULL
 * (preempted by the policy). */
typedef const char *(*SimRunCauseFunc) (gpointer data, const SimJob *job);

/* A timeline accumulator writing to @out, owning @timeline; each MIG job's
 * start reconfigures its GPU for @mig_reconfigure ns; @cause (nullable)
 * says why a preempted run ended. */
SimAccumulator *sim__timeline_accumulator_new (const SimCluster *cluster, SimTimeline *timeline,
                                               SimTime mig_reconfigure, SimRunCauseFunc cause,
                                               gpointer cause_data);

/* The timeline of a timeline accumulator, for other events of the run. */
SimTimeline *sim__timeline_accumulator_get (SimAccumulator *acc);

G_END_DECLS
