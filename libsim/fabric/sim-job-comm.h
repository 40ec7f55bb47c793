/* sim-job-comm.h: the communication of running jobs (not installed).
 *
 * A training job (a #SimCommProfile: compute per iteration, gradient,
 * tensor- and pipeline-parallel degrees and bytes, overlap) registers its
 * collectives in the communication model when it starts and removes them
 * when it stops; while it runs, its rate (reference compute done per
 * second) follows the shares its collectives get:
 *
 *     iteration = compute + comm - min (overlap x comm, compute),
 *     comm = sum over phases (data, tensor, pipeline) of the phase's slowest collective,
 *     rate = reference compute per iteration / iteration.
 *
 * Ranks follow the usual layout (tensor-parallel fastest, then data, then
 * pipeline): rank = t + tp (d + dp p).  Each data-parallel group reduces
 * the gradients of its share of the model, gradient / (tp pp); each
 * tensor-parallel group all-reduces tp_bytes; consecutive pipeline stages
 * exchange pp_bytes.  GPUs beyond tp x dp x pp (when the count does not
 * divide) take no part in communication.
 *
 * The simulation calls four things: register when a job starts, release
 * when it stops, update after collectives came or went (one solve of the
 * touched part of the network; it marks the jobs whose shares changed),
 * and rate for each marked job.  The same layout gives a class's speed-up
 * on an idle copy of the network (sim__job_comm_idle_time()).
 */
#pragma once

#include <glib.h>
#include "cluster/sim-cluster.h"
#include "fabric/sim-collective.h"
#include "fabric/sim-topology.h"
#include "workload/sim-job.h"

G_BEGIN_DECLS

typedef struct _SimJobComm SimJobComm;

SimJobComm *sim__job_comm_new (SimTopology *topology, const SimCluster *cluster);
void        sim__job_comm_free (SimJobComm *comm);

/* Registers the collectives of @job, which starts on its GPUs (a job
 * without a profile, or on one GPU, has none: TRUE).  On failure nothing
 * stays registered. */
gboolean sim__job_comm_register (SimJobComm *comm, SimJob *job, GError **error);

/* Removes @job's collectives, if any. */
void     sim__job_comm_release (SimJobComm *comm, SimJob *job);

/* Frees what @job holds of the model without touching the model (a job
 * freed with the simulation, after the model or without it). */
void     sim__job_comm_forget (SimJob *job);

/* After collectives came or went since the last call: re-solves the
 * network and marks the jobs whose collectives' flows changed rate (and
 * new ones).  Returns FALSE when nothing came or went (no job is marked). */
gboolean sim__job_comm_update (SimJobComm *comm);

/* Whether @job was marked by the last update; clears the mark. */
gboolean sim__job_comm_take_changed (SimJob *job);

/* @job's rate under the current shares: reference compute done per
 * second (its speed, with communication on top). */
double   sim__job_comm_rate (SimJobComm *comm, const SimJob *job);

/* The communication time of one iteration of @profile on the first @n
 * GPUs of the cluster (one group of each parallel kind), with nothing else
 * on the network: for a class's speed-up curve. */
gboolean sim__job_comm_idle_time (SimJobComm *comm, const SimCommProfile *profile, guint n,
                                  double *seconds, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimJobComm, sim__job_comm_free)

G_END_DECLS
