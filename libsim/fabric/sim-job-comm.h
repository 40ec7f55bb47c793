/* sim-job-comm.h: the communication of running jobs (not installed).
 *
 * A training job (a #SimCommProfile: compute per iteration, gradient,
 * tensor- and pipeline-parallel degrees and bytes, overlap) registers its
 * collectives in the communication model when it starts and removes them
 * when it stops; while it runs, its rate (reference compute done per
 * second) follows the shares its collectives get:
 *
 *     iteration = compute + dp + tp + pp - min (overlap x dp, compute),
 *     dp, tp, pp = each phase's (data, tensor, pipeline) slowest collective,
 *     rate = reference compute per iteration / iteration.
 *
 * The overlap hides data-parallel traffic only: the gradients of a layer
 * are all-reduced while the backward pass computes the layers before it
 * (PyTorch DDP's buckets, Megatron-LM's overlapped gradient reduction),
 * but a tensor-parallel all-reduce sits between two matrix products that
 * need its result, and a pipeline stage waits for the activations it
 * receives, so compute waits for both (Megatron-LM, Narayanan et al., SC
 * 2021: the tensor-parallel all-reduces are on the critical path, which is
 * why tensor parallelism is kept inside a node).
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
 *
 * Sharing ([fabric] sharing, #SimFabricSharing).  Always-on: the flows
 * of every registered collective are uncapped and hold their max-min share
 * for the job's whole run, and "comm" above is the phases' time under those
 * shares.  A job that communicates a tenth of each iteration then crowds
 * its neighbours all of it: an upper bound on contention.
 *
 * Demand-aware (the default): a job's flows ask only for what its
 * iterations need on average.  With T_j the job's iteration time, each
 * collective of S bytes per iteration asks S / T_j bytes of message per
 * second, and each of its flows, carrying s_f bytes per byte of message,
 * is capped at its demand d_f = s_f S / T_j (sim_comm_model_set_demand()).
 * Max-min fairness with those caps gives every flow min(d_f, its fair
 * share): a flow never takes more than it asks, and what a light job
 * leaves goes to the others.  A flow that gets x_f < d_f cannot move its
 * bytes in T_j: the job's iterations stretch until its most shortchanged
 * flow keeps up, T_j' = T_j max_f (d_f / x_f), which lowers its demands, and
 * so frees capacity for the others: a fixed point, T_j = max(T0_j, the
 * time its bytes take at the rates it gets), where T0_j is the job's
 * iteration time alone on the network (the formula above with the phases'
 * times on an idle copy of the network, the collectives on the algorithms
 * chosen on the network; under ECMP the copy hashes the job's flows
 * afresh, and under adaptive routing routes them on the idle links, so
 * its self-collisions there are a draw of the same law, not the very ones
 * it has on the network).  A job whose neighbours' average demands and its
 * own fit in every link is not slowed at all; a job alone is exactly as
 * in always-on; the overlap enters through T0_j (the share of
 * communication hidden behind compute); once the network is the limit,
 * the job's time is its bytes' time at its share, however its
 * communication is spread over the iteration.  This is a fluid, mean-field
 * model: bursts of two jobs that happen to coincide are not seen (the
 * phases are averaged), which is what makes it cheap.
 *
 * The fixed point, at each update: every job slowed at the previous update
 * starts again from T0_j (a job that left may have freed its bottleneck),
 * with the new jobs.  Then, in rounds: one incremental solve of the
 * components whose caps changed (core/sim-maxmin.h); the shortfall
 * max_f d_f / x_f of every job that was reset, is new or saw a flow change
 * rate, all under that one solve; every job short by more than
 * SIM_JOB_COMM_TOLERANCE multiplies T_j by its shortfall and asks
 * accordingly.  The rounds stop when no job is short, or after
 * SIM_JOB_COMM_MAX_ROUNDS (the last stretch is kept: the job's time is then
 * what the rates of the last solve allow, an upper bound).  Convergence:
 * within an update T_j only grows (a shortfall is >= 1), and it is bounded:
 * max-min fairness gives every flow at least min(its cap, C_r / n_r) on
 * each resource r it crosses (n_r flows there), so a job stops being short
 * once its iterations last as long as its bytes take at those equal
 * splits.  A monotone bounded sequence converges.  On one shared bottleneck they end
 * after one stretch: a stretched job's new demand is its max-min share
 * exactly, so the second solve finds nobody short.  Chains of bottlenecks
 * (a job stretched on one link lowering its demand on another) take a few
 * more.  Max-min fairness is not monotone in the caps (lowering one flow's
 * cap can, through a third flow, lower another's rate), so the point
 * reached is a fixed point but not always the least one.  Cost: each
 * round is one solve of the touched components, O((E + R) log R + F log
 * F) over them, plus O(flows of the jobs looked at) for the shortfalls;
 * an update with nobody short costs one solve, as always-on does, and the
 * registration of a job times its collectives once more on the idle copy
 * (O(its flows x path length), no other flow there).
 *
 * Phases ([fabric] sharing = phases): the bursts themselves, for small
 * clusters where it matters that two jobs' communication coincides or
 * not.  Each job alternates a compute phase of fixed length c_j = T0_j -
 * (dp + tp + pp alone), the compute the overlap does not hide, with its
 * flows off (capped at SIM_JOB_COMM_OFF_RATE, a rate no link notices), and
 * a communication phase with its flows on, uncapped, at their max-min
 * share with the other jobs communicating at that moment.  A
 * communication phase is a unit of work done at rate 1 / D_j, where D_j is
 * the phase's time (dp + tp + pp, each its slowest collective) at the
 * current shares: it lasts D_j alone, and longer while it shares links.
 * Whenever a phase starts or ends anywhere, the touched part of the
 * network is solved again (one incremental solve per event) and the D_j
 * of the communicating jobs whose flows changed rate measured again;
 * progress is accounted at the old rates up to the event.  This runs at
 * each update (a job came or went), event by event in a time of its own,
 * from where each job was in its iteration at the end of the previous run
 * (a new job starts with its compute phase, lengthened by a share of its
 * iteration spread evenly over the jobs by id, the fractional part of id x
 * the golden ratio: its offset against its neighbours, which the model
 * does not know), until every job has
 * completed SIM_JOB_COMM_PHASE_WARMUP + SIM_JOB_COMM_PHASE_ITERATIONS
 * iterations; a job then runs, until the next update, at its mean
 * iteration time after the warm-up (never less than T0_j; within
 * SIM_JOB_COMM_TOLERANCE of it counts as T0_j, so a job alone is exactly
 * as in the other modes).  The approximation, stated: the pattern's mean
 * is taken from a sample of iterations, not from the jobs' real relative
 * timing in the simulation (the run's clock is its own, and the jobs'
 * offsets are those the previous runs left, not their arrival times
 * modulo their iterations), so jobs of equal iteration time that keep
 * colliding or interleaving do so from the offsets found; a job whose
 * iterations are much longer than its neighbours' may complete too few
 * within SIM_JOB_COMM_PHASE_MAX_EVENTS events per job, and then runs at
 * its time so far over the iterations it completed.  Compared with the
 * demand-aware mode: above capacity they agree while the bursts keep the
 * bottleneck busy, but jobs of equal iteration time fall into a periodic
 * pattern set by their offsets, which may have their compute phases
 * coincide and the bottleneck idle (two pipelines at 136 % of an uplink:
 * 0.001 % from the demand-aware time from one pair of offsets, 6.3 % from
 * another, tests/check-comm.c and check-seams.c); below capacity, bursts that collide slow
 * both jobs somewhat, which demand-aware sharing averages away.  Cost: per
 * update, at least 2 x (warm-up + iterations) events per job (a burst's
 * start and end), more when iteration times differ (the run lasts until
 * the slowest has its count; SIM_JOB_COMM_PHASE_MAX_EVENTS bounds it), each one
 * incremental solve of the touched components plus the phase times of the
 * jobs touched (O(their flows)): thousands of solves an update, so for
 * clusters of tens of jobs, not for a month of Philly.
 */
#pragma once

#include <glib.h>
#include "cluster/sim-cluster.h"
#include "fabric/sim-collective.h"
#include "fabric/sim-topology.h"
#include "workload/sim-job.h"

G_BEGIN_DECLS

/* A job whose flows get within this share of their demand is not short
 * (relative). */
#define SIM_JOB_COMM_TOLERANCE 1e-6

/* The most rounds of the demand-aware fixed point in one update. */
#define SIM_JOB_COMM_MAX_ROUNDS 32

/* Phases: the cap of a flow whose job computes (bytes of message per
 * second): off, to within a rate no link notices. */
#define SIM_JOB_COMM_OFF_RATE 1e-3

/* Phases: iterations each job completes in a run before the mean is
 * taken, then iterations the mean is taken over, and the most events of
 * a run, per job. */
#define SIM_JOB_COMM_PHASE_WARMUP     4
#define SIM_JOB_COMM_PHASE_ITERATIONS 64
#define SIM_JOB_COMM_PHASE_MAX_EVENTS 2048

typedef struct _SimJobComm SimJobComm;

SimJobComm *sim__job_comm_new (SimTopology *topology, const SimCluster *cluster);
void        sim__job_comm_free (SimJobComm *comm);

/* How collectives share the network (default demand-aware); before any
 * job registers. */
void             sim__job_comm_set_sharing (SimJobComm *comm, SimFabricSharing sharing);
/* Whether demand-aware sharing leaves the resources of the nodes a job
 * holds whole out of the network's solver (the default; the same rates:
 * sim__comm_model_set_prune()).  FALSE: every resource stays in, for the
 * tests' comparisons. */
void             sim__job_comm_set_prune (SimJobComm *comm, gboolean prune);
/* The same for every SimJobComm made afterwards (the tests' and
 * benchmarks' switch); and the collectives registered pruned so far in
 * this process, with in *@undone those registered again whole because
 * another collective of their job could not be pruned. */
void             sim__job_comm_set_prune_default (gboolean prune);
guint64          sim__job_comm_get_pruned_total (guint64 *undone);
/* The collectives so far in this process left unregistered, inside one
 * node their job held whole (sim__comm_model_inside_private()), with in
 * *@after_all those registered after all because another collective of
 * their job could not be pruned. */
guint64          sim__job_comm_get_skipped_total (guint64 *after_all);
/* Whether every SimJobComm made afterwards leaves such collectives
 * unregistered (1), never (0), or as its network's size decides (-1, the
 * default: see sim__comm_model_set_skip_inside()); the tests' switch. */
void             sim__job_comm_set_skip_default (int skip);
SimFabricSharing sim__job_comm_get_sharing (const SimJobComm *comm);

/* Rounds of the fixed point the last update took (demand-aware). */
guint            sim__job_comm_get_last_rounds (const SimJobComm *comm);

/* Events the last update's run of the phases took (phases). */
guint            sim__job_comm_get_last_events (const SimJobComm *comm);

/* Demand-aware or phases: @job's iteration time (seconds) under the current
 * shares; 0 if it registered nothing. */
double           sim__job_comm_get_iteration (const SimJob *job);

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

/* The jobs marked since the last call (by updates, and new ones), in the
 * order they started (SimJob.run_seq), their marks cleared: what may have a
 * new rate.  The array belongs to @comm and holds until the next call.
 * Costs O(marked log marked), not O(running jobs): a large cluster runs
 * thousands of jobs of which a change touches a few. */
GPtrArray *sim__job_comm_take_changed (SimJobComm *comm);

/* @job's rate under the current shares: reference compute done per
 * second (its speed, with communication on top). */
double   sim__job_comm_rate (SimJobComm *comm, const SimJob *job);

/* The communication time of one iteration of @profile on the first @n
 * GPUs of the cluster (one group of each parallel kind), with nothing else
 * on the network: for a class's speed-up curve. */
gboolean sim__job_comm_idle_time (SimJobComm *comm, const SimCommProfile *profile, guint n,
                                  double *seconds, GError **error);

/* The iteration time of @profile computing for @compute seconds on the
 * first @n GPUs of the cluster (one group of each parallel kind), with
 * nothing else on the network: compute plus communication, the overlap
 * hiding data-parallel traffic only (above). */
gboolean sim__job_comm_idle_iteration (SimJobComm *comm, const SimCommProfile *profile, guint n,
                                       double compute, double *seconds, GError **error);

/* The load of the network's links, as the last update left the shares
 * (jobs started since are counted from the next update).  A link's load
 * is the larger of its two directions' loads, each the rates of the flows
 * crossing it over its usable capacity (bandwidth x efficiency), in
 * [0, 1].  Only network links count (tiers access, aggregation and core:
 * NVLink and PCIe inside nodes are left out); under spray routing, the
 * traffic of the sprayed tiers is carried by pooled resources, and each
 * pool (up and down) counts as one link.  @max and @mean are over those
 * links (0 when there are none).  @node_load, when not NULL, has
 * @n_nodes entries and receives for each cluster node the largest load
 * of its access links (NIC to first switch), 0 for a node without.
 * Time complexity: O(links + flows x path length on the network links),
 * no solve, nothing allocated. */
void sim__job_comm_get_fabric_load (SimJobComm *comm, double *max, double *mean,
                                    double *node_load, guint n_nodes);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimJobComm, sim__job_comm_free)

G_END_DECLS
