/* sim-timeline.h: a run's timeline as Chrome trace-event JSON.
 *
 * The file is the JSON object format of the Trace Event specification
 * ({"traceEvents": [...]}), which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open.  Tracks: process 0 "jobs" holds one async slice
 * per job run (start to finish, preemption or the end of the run); process
 * n + 1 is cluster node n, with a thread per GPU ("GPU 3") and, where jobs
 * share a GPU, further lanes ("GPU 3 / lane 1") so that slices on a thread
 * never overlap; thread 0 of a node ("node") takes events of the whole node.
 *
 * What a run writes (sim_simulation_set_timeline()): each job run as a
 * slice on every GPU it held, named by the job, with its id, run number,
 * GPU count and how the run ended in its args; a preemption as an instant
 * event on each GPU the job left; a MIG reconfiguration as an instant
 * event on the GPU, with the reconfiguration time.  Other kinds of event
 * (failures, repairs, power capping) use the same calls:
 * sim_timeline_add_slice() and sim_timeline_add_instant() on a node's or
 * a GPU's track, with a category of their own.
 *
 * Events are written as they come (a slice when it ends), so memory is
 * O(running jobs), not O(events); times are microseconds with three
 * decimals, written from integer nanoseconds, so the same run gives the
 * same bytes.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <stdio.h>
#include <glib.h>
#include "core/sim-engine.h"
#include "cluster/sim-cluster.h"

G_BEGIN_DECLS

typedef struct _SimTimeline SimTimeline;

/**
 * sim_timeline_new: (skip)
 * @out: where the JSON goes (borrowed; it must outlive the timeline)
 * @cluster: the cluster whose nodes and GPUs are the tracks (borrowed)
 *
 * Starts a timeline: writes the opening of the JSON object and names the
 * "jobs" process and one process per node.
 *
 * Time complexity: O(nodes).
 *
 * Returns: (transfer full): a new timeline; sim_timeline_finish() ends
 * the JSON, sim_timeline_free() frees it.
 */
SimTimeline *sim_timeline_new (FILE *out, const SimCluster *cluster);

/**
 * sim_timeline_add_slice: (skip)
 * @self: a timeline
 * @gpu: the cluster GPU whose track takes the slice, or -1 for the node
 *   track of @node
 * @node: the node (ignored when @gpu >= 0)
 * @lane: the lane of the GPU (0 unless the GPU is shared)
 * @category: e.g. "job", "failure"
 * @name: the slice's name
 * @start: its start, ns
 * @end: its end, ns (>= @start)
 * @args: (nullable): a JSON object's members, without braces
 *   ("\"job\": 7"), or %NULL
 *
 * Writes a complete event ("ph": "X").  Slices on one track must not
 * overlap unless one holds the other.
 */
void sim_timeline_add_slice (SimTimeline *self, gint gpu, guint node, guint lane,
                             const char *category, const char *name, SimTime start, SimTime end,
                             const char *args);

/**
 * sim_timeline_add_instant: (skip)
 * @self: a timeline
 * @gpu: as sim_timeline_add_slice()
 * @node: as sim_timeline_add_slice()
 * @lane: as sim_timeline_add_slice()
 * @category: e.g. "preemption", "mig", "failure"
 * @name: the event's name
 * @t: when, ns
 * @args: (nullable): as sim_timeline_add_slice()
 *
 * Writes an instant event ("ph": "i") scoped to the track.
 */
void sim_timeline_add_instant (SimTimeline *self, gint gpu, guint node, guint lane,
                               const char *category, const char *name, SimTime t,
                               const char *args);

/**
 * sim_timeline_add_run: (skip)
 * @self: a timeline
 * @id: the job's id
 * @run: the run's number (0 for its first start)
 * @name: the slice's name
 * @start: ns
 * @end: ns
 * @args: (nullable): as sim_timeline_add_slice()
 *
 * Writes a job run as an async slice of the "jobs" process (a begin and
 * an end event with the same id), one slice per run.
 */
void sim_timeline_add_run (SimTimeline *self, guint64 id, guint run, const char *name,
                           SimTime start, SimTime end, const char *args);

/**
 * sim_timeline_add_job_phase: (skip)
 * @self: a timeline
 * @id: the job's id
 * @run: the number of the run the phase belongs to
 * @category: e.g. "checkpoint", "restart" (not "run")
 * @name: the slice's name
 * @start: ns
 * @end: ns
 * @args: (nullable): as sim_timeline_add_slice()
 *
 * Writes an async slice of the "jobs" process with the run's id, so it
 * shows with the run (a checkpoint within it, a wait after it).
 */
void sim_timeline_add_job_phase (SimTimeline *self, guint64 id, guint run, const char *category,
                                 const char *name, SimTime start, SimTime end, const char *args);

/**
 * sim_timeline_add_part_slice: (skip)
 * @self: a timeline
 * @node: the node whose part it is, or -1 for the "fabric" process
 * @track: the part's number within its process (any, the same for the
 *   same part)
 * @track_name: the part's name ("NIC 2", "leaf 3"), given to its thread
 *   the first time it is used
 * @category: as sim_timeline_add_slice()
 * @name: as sim_timeline_add_slice()
 * @start: ns
 * @end: ns (>= @start)
 * @args: (nullable): as sim_timeline_add_slice()
 *
 * Writes a complete event on a part's track.  Slices on one track must not
 * overlap unless one holds the other.
 */
void sim_timeline_add_part_slice (SimTimeline *self, gint node, guint track,
                                  const char *track_name, const char *category, const char *name,
                                  SimTime start, SimTime end, const char *args);

/**
 * sim_timeline_add_part_instant: (skip)
 * @self: a timeline
 * @node: as sim_timeline_add_part_slice()
 * @track: as sim_timeline_add_part_slice()
 * @track_name: as sim_timeline_add_part_slice()
 * @category: as sim_timeline_add_slice()
 * @name: as sim_timeline_add_slice()
 * @t: when, ns
 * @args: (nullable): as sim_timeline_add_slice()
 *
 * Writes an instant event on a part's track.
 */
void sim_timeline_add_part_instant (SimTimeline *self, gint node, guint track,
                                    const char *track_name, const char *category,
                                    const char *name, SimTime t, const char *args);

/**
 * sim_timeline_take_lane: (skip)
 * @self: a timeline
 * @gpu: a cluster GPU
 *
 * The lowest lane of @gpu no slice holds, now taken (its thread is named
 * the first time it is used).  sim_timeline_release_lane() gives it back.
 *
 * Returns: the lane.
 */
guint sim_timeline_take_lane (SimTimeline *self, guint gpu);

/**
 * sim_timeline_release_lane: (skip)
 * @self: a timeline
 * @gpu: a cluster GPU
 * @lane: a lane sim_timeline_take_lane() gave
 */
void  sim_timeline_release_lane (SimTimeline *self, guint gpu, guint lane);

/**
 * sim_timeline_finish: (skip)
 * @self: a timeline
 *
 * Ends the JSON.  Nothing may be added after.
 */
void sim_timeline_finish (SimTimeline *self);

/**
 * sim_timeline_free: (skip)
 * @self: (nullable): a timeline
 *
 * Frees it (not its stream).
 */
void sim_timeline_free (SimTimeline *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimTimeline, sim_timeline_free)

G_END_DECLS
