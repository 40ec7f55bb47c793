/* sim-power.h: what GPUs and nodes draw (not installed).
 *
 * GPU.  A GPU draws its idle power P_idle whatever it does, and while it
 * computes up to its TDP P_max.  Its busy share u in [0, 1] (the activity of
 * sim-sharing.h, as DCGM reports DCGM_FI_PROF_GR_ENGINE_ACTIVE: MIG
 * instances count their share of the SMs, jobs waiting on the network do
 * not count) sets its mean draw, linear in u as ExaDigiT/RAPS models it
 * (models/SOURCES.md D):
 *
 *   P = P_idle + (P_max - P_idle) x c x u,      c = f^k
 *
 * f in (0, 1] is the GPU's clock against its maximum, and c the share of
 * the dynamic power left at that clock.  Dynamic power goes as f x V^2
 * (CMOS switching power), and across the DVFS range the voltage follows
 * the clock, so c = f^k with k = 3 by default ([power] clock_exponent).
 *
 * Power caps and clock limits.  A cap P_cap acts on the power drawn while
 * the GPU computes (its controller averages over milliseconds, not over a
 * job), so the clock falls to the f at which a busy GPU draws the cap:
 *
 *   f = ((P_cap - P_idle) / (P_max - P_idle))^(1/k)    (1 when P_cap >= P_max)
 *
 * and a clock limit f_lim ([power] clock_limit) gives f = min(f, f_lim).
 * A capped GPU therefore never draws more than its cap (u <= 1).
 *
 * Speed.  Compute-bound work runs at the clock; memory-bound work does not
 * slow with the SM clock (memory has its own).  A job whose share m of its
 * time on a whole GPU is memory-bound (its spec's memory_bound) keeps
 *
 *   s = 1 / ((1 - m) / f + m)
 *
 * of its speed where it computes.
 *
 * Memory-bound work draws less: while a kernel waits on HBM its tensor
 * cores idle, and a GPU kept busy by it draws the share mu of its dynamic
 * power ([power] memory_power, 0.5 by default: an assumption, between the
 * HBM's own few tens of watts and the full draw).  A job's busy time thus
 * draws with intensity 1 - m (1 - mu), and the GPU
 *
 *   P = P_idle + (P_max - P_idle) x c x sum over its jobs of u_j (1 - m_j (1 - mu))
 *
 * Latif et al. (arXiv 2412.08602) measured an 8x H100 node at 8.4 kW at
 * most with its GPUs near full utilization, and Newkirk et al. (arXiv
 * 2506.14551) at 76 % of its 10.2 kW rating under intensive training:
 * busy GPUs do not all draw their TDP.  A job that keeps the GPU busy only a
 * share a of the time (an inference service) is not slowed while the
 * slower GPU keeps up: like a MIG instance of capacity s, it progresses at
 * min(1, s / a) and keeps it busy min(1, a / s) of the time.
 *
 * For an A100 capped at 250 W out of 400 W (k = 3, P_idle = 50 W),
 * f = 0.83: compute-bound work slows by 20 %, half memory-bound work by
 * 10 %, and typical training (0.57 memory-bound) by 9 % while its node uses
 * 18 % less energy for the same work, against the 15 % less energy for a
 * marginal slowdown McDonald et al. measured (models/SOURCES.md D "Power
 * caps and clocks"; tests/check-power.c).
 *
 * Node.  A node adds to its GPUs its CPUs (idle to maximum following the
 * node's load: the larger of its GPUs allocated and its CPU reserved), its
 * memory, NICs, NVSwitch chips, fans (idle to maximum following the GPUs'
 * dynamic power), and a base load (storage, board, BMC), all behind its
 * power supplies of efficiency eta: the wall draw is their sum / eta.  An
 * idle node may sleep ([power] sleep_after): it then draws its sleep power
 * and a job placed on it waits its wake-up time.
 */
#pragma once

#include <glib.h>
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "core/sim-units.h"
#include "scenario/sim-scenario.h"

G_BEGIN_DECLS

/* The default exponent k of c = f^k (dynamic power ~ f V^2, V ~ f). */
#define SIM_POWER_CLOCK_EXPONENT_DEFAULT 3.0
/* The default share mu of the dynamic power a busy GPU draws while its
 * work waits on memory (see the introduction). */
#define SIM_POWER_MEMORY_POWER_DEFAULT 0.5
/* The default efficiency of the facility's power distribution (UPS and
 * transformers), models/SOURCES.md D "Cooling": double-conversion UPS
 * 94-96 % at typical load. */
#define SIM_POWER_ELECTRICAL_EFFICIENCY_DEFAULT 0.95


/* One GPU model's figures, for the functions below. */
typedef struct {
  double idle_w;
  double max_w;
} SimGpuPower;

/* The clock f of a GPU capped at @cap_w (0: no cap) under @clock_limit. */
double sim_power_clock (const SimGpuPower *gpu, double cap_w, double clock_limit,
                        double exponent);
/* The share of a busy GPU's dynamic power drawn at clock @f: f^k. */
double sim_power_dynamic_share (double f, double exponent);
/* The speed s of work with @memory_bound share at clock @f. */
double sim_power_speed (double f, double memory_bound);
/* What a GPU busy @busy of the time at clock @f draws, W. */
double sim_power_gpu_draw (const SimGpuPower *gpu, double busy, double f, double exponent);

typedef struct _SimPower SimPower;

/* The power state of @cluster's GPUs and nodes; the nodes of
 * @outside_pool (nullable: a cloud pool, power/sim-elastic.h) draw nothing
 * here and run at full clock.  Errors: SIM_ERROR_MISSING for a GPU model
 * without idle power or TDP, or a node model without the figures of its
 * parts, when @config is enabled. */
SimPower *sim__power_new (const SimCluster *cluster, const SimPowerConfig *config,
                          const char *outside_pool, GError **error);
void      sim__power_free (SimPower *power);

const SimPowerConfig *sim__power_get_config (const SimPower *power);

/* Caps GPU @gpu at @cap_w (0: no cap).  Errors: SIM_ERROR_INVALID for a
 * cap at or below the GPU's idle power, or negative. */
gboolean sim__power_set_cap (SimPower *power, guint gpu, double cap_w, GError **error);
double   sim__power_get_cap (const SimPower *power, guint gpu);
/* The GPU's clock f now (1: full speed). */
double   sim__power_get_clock (const SimPower *power, guint gpu);
/* Whether some GPU runs below its full clock (else every speed is 1). */
gboolean sim__power_any_slowed (const SimPower *power);

/* The power intensity of a job's busy time: 1 - m (1 - mu), m its
 * memory-bound share, mu = @memory_power. */
double sim_power_intensity (double memory_bound, double memory_power);

/* A job starts (@tenants 1) or stops (-1) holding @milli thousandths of
 * GPU @gpu, or only its busy share there changes (0): @delta is added to
 * the GPU's busy share, @delta x @intensity (sim_power_intensity()) to
 * what drives its power.  A node's CPU load follows the share of its GPUs
 * held. */
void     sim__power_add_busy (SimPower *power, guint gpu, double delta, double intensity,
                              int tenants, guint milli);
/* sim__power_add_busy() for each of the @n GPUs @gpus, the same @delta
 * each: the same as calling it for each in turn. */
void     sim__power_add_busy_gpus (SimPower *power, const guint32 *gpus, guint n, double delta,
                                   double intensity, int tenants, guint milli);
/* Asks the processor to bring @gpu's record and its @node's into cache
 * (a hint, as sim__cluster_prefetch()). */
void     sim__power_prefetch (const SimPower *power, guint gpu, guint node);
double   sim__power_get_busy (const SimPower *power, guint gpu);

/* The share of node @node's CPU reserved by jobs changed: its CPU load
 * is the larger of it and the share of its GPUs held. */
void     sim__power_set_cpu_load (SimPower *power, guint node, double load);
/* A node falls asleep or wakes. */
void     sim__power_set_asleep (SimPower *power, guint node, gboolean asleep);
gboolean sim__power_is_asleep (const SimPower *power, guint node);

/* Draws, W, brought up to date: a GPU, a node at the wall (its GPUs
 * included), and every node plus the network's switches and optics. */
double   sim__power_gpu_w (SimPower *power, guint gpu);
double   sim__power_node_w (SimPower *power, guint node);
double   sim__power_it_w (SimPower *power);
double   sim__power_gpus_w (SimPower *power);
/* What node @node draws at full load, at the wall, W: every GPU busy at
 * full clock (no cap), CPUs and fans at their maximum, or its sleep power
 * if that is more; 0 for a node of the outside pool.  No draw of the node
 * is above it.  Its sum over the nodes plus the network's draw bounds the
 * IT power (sim__power_it_w()). */
double   sim__power_node_full_w (const SimPower *power, guint node);
/* Whether node @node is the outside pool's (a cloud node): it draws no
 * power of the facility's, and its GPUs are not the facility's to cap. */
gboolean sim__power_node_is_outside (const SimPower *power, guint node);

/* The nodes' fans keep @share of their power (sim-cooling.h). */
void     sim__power_set_fan_share (SimPower *power, double share);

/* The IT power a job is charged with (sim-energy.h): on each of its
 * @n_gpus @gpus, of which it holds @gpu_share (its thousandths / 1000), it
 * keeps the GPU driving its power @drive (busy share x intensity). */
double   sim__power_job_w (SimPower *power, const guint32 *gpus, guint n_gpus, double gpu_share,
                           double drive);

/* The network's constant draw (switches and optics), added to the IT power. */
void     sim__power_set_network (SimPower *power, double network_w);
double   sim__power_get_network (const SimPower *power);

G_END_DECLS
