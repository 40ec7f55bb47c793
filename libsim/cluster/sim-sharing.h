/* sim-sharing.h: how fast jobs run on a shared GPU.
 *
 * Two ways to share one GPU, and a job's own demand, set how fast each job
 * on it progresses against the same job alone on a whole GPU.
 *
 * Activity.  A job's activity a, in (0, 1], is the share of a whole GPU's
 * time it keeps busy when it runs alone on it: what DCGM reports as
 * DCGM_FI_PROF_GR_ENGINE_ACTIVE (the "GPU utilization" of nvidia-smi is its
 * coarse relative).  A training job keeps its GPU busy (a = 1); a small
 * inference service answering a steady request rate keeps it busy for a
 * fraction of the time, and its run time is set by its requests, not by the
 * GPU, as long as the GPU keeps up.
 *
 * MIG instances (spatial partitioning, isolated).  An instance has a share
 * of the GPU's SMs and of its memory slices (sim_mig_speed() combines them
 * with the job's memory-bound share into the instance's capacity C, as a
 * fraction of the whole GPU).  A job needing a of a whole GPU finds the
 * instance busy a / C of the time and progresses at min(1, C / a): at full
 * speed while the instance keeps up, slower once it saturates.  Instances
 * do not slow each other (NVIDIA MIG user guide: each instance has its own
 * SMs, L2 slices, memory controllers and DRAM paths).
 *
 * Time-sharing (fractional requests, gpu_milli < 1000).  The jobs on one
 * GPU share all of it; their demand is D = the sum of their activities.
 * While D fits in the GPU's capacity K, each runs at full speed; beyond,
 * the GPU is saturated and each progresses at K / D (proportional sharing:
 * each gets the same share of what it asks).  K depends on the mechanism:
 *
 *   - time-slice (the default of CUDA and of the Kubernetes device
 *     plugin's time-slicing): contexts take turns, every switch saves and
 *     restores one context's state; K = 1 - o_ts when two or more jobs
 *     share the GPU.  No clean measurement of the throughput switching
 *     alone costs was found; o_ts = 5 % (%SIM_SHARING_TIMESLICE_OVERHEAD_DEFAULT)
 *     is an assumption, of the order of a context switch of tens of
 *     microseconds per time slice of about 1-2 ms (NVIDIA's `nvidia-smi
 *     compute-policy --set-timeslice` levels).  The one end-to-end figure
 *     found is larger: NVIDIA's technical blog "Maximize AI infrastructure
 *     throughput by consolidating underutilized GPU workloads" (2026) serves
 *     an ASR and a TTS model on A100s at about 0.76 requests/s per GPU with
 *     time-slicing against about 1.00 with MIG, under a latency-bound load
 *     of 50 users, and puts the gap down to context switching; 24 % is
 *     therefore an upper value for such services.  Set it with [cluster]
 *     timeslice_overhead.
 *   - MPS (CUDA Multi-Process Service): the clients' kernels share one
 *     context and run concurrently on the SMs, with no context switch;
 *     K = 1 - o_mps, o_mps = 0 by default ([cluster] mps_overhead).
 *
 * The GPU's activity is then min(D, K) for time-sharing and, for MIG, the
 * sum over instances of (busy share of the instance) x (its share of the
 * GPU's SMs).  A job waiting on the network does not keep its GPU busy.
 *
 * Activity is taken on the GPU the job runs on: in a cluster of several
 * GPU models, a job still runs at the FLOPs ratio of its GPU to the
 * reference (as every job does), and its activity is not rescaled.
 *
 * What this leaves out: interference through memory bandwidth and caches
 * between time-sharing jobs beyond their summed demand (published MPS
 * studies see up to about 30 % more slowdown under memory contention), a
 * job's latency (the model is about throughput), and SM occupancy below
 * one under MPS (kernels that leave SMs idle could overlap better than the
 * sum of activities says).
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * SimSharingMode:
 * @SIM_SHARING_TIME_SLICE: jobs on one GPU take turns (CUDA time-slicing)
 * @SIM_SHARING_MPS: jobs on one GPU run concurrently under CUDA MPS
 *
 * How jobs with fractional requests share a GPU.
 */
typedef enum {
  SIM_SHARING_TIME_SLICE,
  SIM_SHARING_MPS,
} SimSharingMode;

/**
 * SIM_SHARING_TIMESLICE_OVERHEAD_DEFAULT:
 *
 * The share of a time-sliced GPU's throughput lost to context switches
 * when two or more jobs share it (an assumption: see this file's
 * introduction).
 */
#define SIM_SHARING_TIMESLICE_OVERHEAD_DEFAULT 0.05

/**
 * SIM_SHARING_MPS_OVERHEAD_DEFAULT:
 *
 * The share of an MPS-shared GPU's throughput lost to sharing: none, MPS
 * clients share one context.
 */
#define SIM_SHARING_MPS_OVERHEAD_DEFAULT 0.0

/**
 * SimSharingConfig:
 * @mode: how fractional jobs share a GPU
 * @timeslice_overhead: throughput lost under time-slicing, in [0, 1)
 * @mps_overhead: throughput lost under MPS, in [0, 1)
 *
 * The [cluster] section's sharing keys.
 */
typedef struct {
  SimSharingMode mode;
  double         timeslice_overhead;
  double         mps_overhead;
} SimSharingConfig;

/**
 * sim_sharing_config_init:
 * @config: (out caller-allocates): the configuration to fill
 *
 * Sets the defaults: time-slicing, %SIM_SHARING_TIMESLICE_OVERHEAD_DEFAULT
 * and %SIM_SHARING_MPS_OVERHEAD_DEFAULT.
 */
void sim_sharing_config_init (SimSharingConfig *config);

/**
 * sim_sharing_mode_parse:
 * @text: "time-slice" or "mps"
 * @mode: (out): the mode
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_PARSE for any other text, naming the choices.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_sharing_mode_parse (const char *text, SimSharingMode *mode, GError **error);

/**
 * sim_sharing_mode_to_string:
 * Returns: (transfer none): "time-slice" or "mps".
 */
const char *sim_sharing_mode_to_string (SimSharingMode mode);

/**
 * sim_sharing_capacity:
 * @config: the sharing configuration
 * @mode: the mechanism on this GPU (a pool may override @config's)
 * @jobs: how many jobs share the GPU
 *
 * Returns: the GPU's capacity K as a fraction of its throughput: 1 for a
 *   GPU with one job, else 1 less the mechanism's overhead.
 */
double sim_sharing_capacity (const SimSharingConfig *config, SimSharingMode mode, guint jobs);

/**
 * sim_sharing_factor:
 * @demand: the summed activity D of the jobs on the GPU (> 0)
 * @capacity: the GPU's capacity K (sim_sharing_capacity())
 *
 * Returns: min(1, K / D): how fast each job progresses against its speed
 *   alone.
 */
double sim_sharing_factor (double demand, double capacity);

/**
 * sim_sharing_mig_factor:
 * @activity: the job's activity a on a whole GPU, in (0, 1]
 * @capacity: its instance's speed C against the whole GPU (sim_mig_speed())
 *
 * Returns: min(1, C / a): how fast the job progresses on the instance
 *   against a whole GPU.
 */
double sim_sharing_mig_factor (double activity, double capacity);

G_END_DECLS
