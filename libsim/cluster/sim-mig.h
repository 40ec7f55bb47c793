/* sim-mig.h: Multi-Instance GPU (MIG) layouts.
 *
 * A GPU in MIG mode is cut into instances of the profiles its model lists
 * (#SimMigProfile, from the catalogue, after NVIDIA's MIG user guide).  The
 * GPU has @mig_slices compute slices (7 on every NVIDIA GPU with MIG) and 8
 * memory slices.  An instance of a profile with c compute slices and m
 * memory slices, started at slice s, occupies compute slices [s, s + c)
 * and memory slices [s, s + m); s must be one of the profile's allowed
 * starts (@placements).  This is the geometry `nvidia-smi mig -lgipp`
 * prints ("{0,4}:4" for 3g.40gb: starts 0 and 4, four memory slices): a
 * 3g instance at slice 0 takes memory slices 0-3, so compute slice 3 is
 * left without memory and no 1g instance can go there, which is why
 * 3g + 1g + 1g + 1g + 1g is not a valid A100 layout.
 *
 * A layout is valid when every instance starts at an allowed slice, fits
 * in the GPU, overlaps no other instance in compute or in memory, and no
 * profile has more than its @max_instances.
 *
 * A #SimMigLayout is a plain value (no allocation), small enough to copy.
 * The cluster keeps one per GPU in MIG mode (see sim_cluster_mig_allocate()).
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "core/sim-units.h"
#include "cluster/sim-gpu-model.h"

G_BEGIN_DECLS

/**
 * SIM_MIG_MEMORY_SLICES:
 *
 * Memory slices of a GPU in MIG mode.
 */
#define SIM_MIG_MEMORY_SLICES 8u
/**
 * SIM_MIG_MAX_INSTANCES:
 *
 * The most instances one layout can hold.
 */
#define SIM_MIG_MAX_INSTANCES 8u
/**
 * SIM_MIG_MAX_SLICES:
 *
 * The most compute slices a GPU model may declare.
 */
#define SIM_MIG_MAX_SLICES 8u

/**
 * SIM_MIG_RECONFIGURE_TIME_DEFAULT:
 *
 * The time to change a GPU's MIG layout (destroy and create GPU and compute
 * instances), when the scenario does not give one (the [cluster] key
 * `mig_reconfigure_time`).  No published measurement was found; 10 s is an
 * assumption, of the order of a few nvidia-smi calls on an idle GPU.
 */
#define SIM_MIG_RECONFIGURE_TIME_DEFAULT (10 * SIM_SECOND)

/**
 * SimMigInstance:
 * @profile: index of its profile in the GPU model's @mig_profiles
 * @start: its first compute slice
 */
typedef struct {
  guint8 profile;
  guint8 start;
} SimMigInstance;

/**
 * SimMigLayout:
 * @instances: the instances, sorted by @start (the first @n_instances).
 *   Not introspected: bindings cannot read an inline array of structures
 *   (PyGObject read each element as a pointer), and read the masks
 * @n_instances: their number
 * @compute_used: bit i set when compute slice i is taken
 * @memory_used: bit i set when memory slice i is taken
 *
 * The MIG instances on one GPU.  Initialise with sim_mig_layout_init() (or
 * zero it); change it only through sim_mig_layout_add() and
 * sim_mig_layout_remove(), which keep the masks consistent.
 */
typedef struct {
  /*< private >*/
  SimMigInstance instances[SIM_MIG_MAX_INSTANCES];
  /*< public >*/
  guint          n_instances;
  guint32        compute_used;
  guint32        memory_used;
} SimMigLayout;

/**
 * SIM_TYPE_MIG_LAYOUT:
 *
 * The boxed type of #SimMigLayout; a copy is a snapshot of the layout.
 */
#define SIM_TYPE_MIG_LAYOUT (sim_mig_layout_get_type ())
GType sim_mig_layout_get_type (void) G_GNUC_CONST;

/**
 * sim_mig_instance_milli:
 * @gpu: a GPU model with MIG
 * @profile: a profile index
 *
 * Returns: the thousandths of the GPU an instance of @profile counts as:
 *   floor(1000 x compute slices / the GPU's slices).
 */
guint sim_mig_instance_milli (const SimGpuModel *gpu, guint profile);

/**
 * sim_mig_compute_fraction:
 * @gpu: a GPU model with MIG
 * @profile: a profile index
 *
 * The share of the whole GPU's compute an instance of @profile has: its
 * streaming multiprocessors over the GPU's (both from the catalogue's
 * `sms` keys, as `nvidia-smi mig -lgip` lists them: 14 of 108 for an
 * A100's 1g.5gb, 16 of 132 for an H100's 1g.10gb), or, where the
 * catalogue gives no SM counts, its compute slices over the GPU's (1/7).
 * A 7g instance of an A100 has 98 of 108 SMs: MIG mode leaves some SMs
 * unused.
 *
 * Returns: the fraction, in (0, 1].
 */
double sim_mig_compute_fraction (const SimGpuModel *gpu, guint profile);

/**
 * sim_mig_memory_fraction:
 * @gpu: a GPU model with MIG
 * @profile: a profile index
 *
 * The share of the GPU's memory bandwidth an instance of @profile has:
 * its memory slices over %SIM_MIG_MEMORY_SLICES.  Each memory slice owns
 * its memory controllers and L2 banks (NVIDIA MIG user guide: "1/8" of
 * the memory for 1g.5gb, "4/8" for 3g.20gb), so bandwidth divides as
 * memory does.
 *
 * Returns: the fraction, in (0, 1].
 */
double sim_mig_memory_fraction (const SimGpuModel *gpu, guint profile);

/**
 * sim_mig_speed:
 * @gpu: a GPU model with MIG
 * @profile: a profile index
 * @memory_bound: the share, in [0, 1], of a job's time on a whole GPU
 *   that is limited by memory bandwidth (the rest by compute)
 *
 * How fast an instance of @profile runs a job that would keep a whole GPU
 * busy, against the whole GPU.  A roofline-style mix: the job's time on
 * the whole GPU is (1 - @memory_bound) compute-limited and @memory_bound
 * memory-limited; on the instance the first part stretches by 1 / c (c =
 * sim_mig_compute_fraction()) and the second by 1 / b (b =
 * sim_mig_memory_fraction()), so the speed is
 *
 *   1 / ((1 - @memory_bound) / c + @memory_bound / b).
 *
 * For an A100-40GB 1g.5gb (c = 14/108, b = 1/8): 0.1296 for a
 * compute-bound job, 0.125 for a memory-bound one.
 *
 * Returns: the speed, in (0, 1].
 */
double sim_mig_speed (const SimGpuModel *gpu, guint profile, double memory_bound);

/**
 * sim_mig_layout_init:
 *
 * Empties @layout.
 */
void sim_mig_layout_init (SimMigLayout *layout);

/**
 * sim_mig_lookup_profile:
 * @gpu: a GPU model
 * @name: a profile name such as "3g.40gb" (case-insensitive)
 *
 * Returns: the profile's index in @gpu's @mig_profiles, or -1 if it has no
 *   such profile (or no MIG).
 */
int sim_mig_lookup_profile (const SimGpuModel *gpu, const char *name);

/**
 * sim_mig_profile_count:
 * Returns: how many instances of @profile @layout holds.
 */
guint sim_mig_profile_count (const SimMigLayout *layout, guint profile);

/**
 * sim_mig_find_slot:
 * @gpu: a GPU model with MIG
 * @layout: its current layout
 * @profile: a profile index
 *
 * The first allowed start of @profile whose compute and memory slices are
 * all free, if the profile's instance limit is not reached.
 * Time complexity: O(allowed starts + instances).
 *
 * Returns: the start slice, or -1 if the profile does not fit.
 */
int sim_mig_find_slot (const SimGpuModel *gpu, const SimMigLayout *layout, guint profile);

/**
 * sim_mig_layout_add:
 * @gpu: a GPU model with MIG
 * @layout: a valid layout for @gpu
 * @profile: a profile index
 * @start: the start slice, or -1 for the first that fits (sim_mig_find_slot())
 * @error: return location for a #GError
 *
 * Adds an instance; @layout is unchanged on failure.
 *
 * Errors: SIM_ERROR_INVALID if @profile does not exist or @start is not
 * one of its allowed starts; SIM_ERROR_STATE if the slices are taken, the
 * profile's instance limit is reached or the layout is full.
 *
 * Returns: the start slice used, or -1 on failure.
 */
int sim_mig_layout_add (const SimGpuModel *gpu, SimMigLayout *layout, guint profile, int start,
                        GError **error);

/**
 * sim_mig_layout_remove:
 * @gpu: the GPU model of @layout
 * @layout: a layout
 * @profile: the profile of the instance
 * @start: its start slice
 *
 * Returns: %TRUE if the instance was there and is now removed.
 */
gboolean sim_mig_layout_remove (const SimGpuModel *gpu, SimMigLayout *layout, guint profile,
                                guint start);

/**
 * sim_mig_layout_validate:
 * @gpu: a GPU model
 * @layout: a layout, perhaps written by hand (the masks are ignored and
 *   recomputed from the instances)
 * @error: return location for a #GError
 *
 * Checks the rules in this file's introduction.
 *
 * Errors: SIM_ERROR_INVALID naming the first instance that breaks a rule.
 *
 * Returns: %TRUE if @layout is valid for @gpu.
 */
gboolean sim_mig_layout_validate (const SimGpuModel *gpu, const SimMigLayout *layout,
                                  GError **error);

/**
 * sim_mig_layout_compute_slices:
 * Returns: the compute slices @layout takes.
 */
guint sim_mig_layout_compute_slices (const SimMigLayout *layout);

/**
 * sim_mig_layout_describe:
 * @gpu: the GPU model of @layout
 * @layout: a layout
 *
 * Returns: (transfer full): the instances in start order, e.g.
 *   "4g.40gb@0 2g.20gb@4 1g.10gb@6", or "" if empty.
 */
char *sim_mig_layout_describe (const SimGpuModel *gpu, const SimMigLayout *layout);

/**
 * sim_mig_reconfigure_cost:
 * @from: the layout now
 * @to: the layout wanted
 * @reconfigure_time: the time of one reconfiguration (for instance
 *   %SIM_MIG_RECONFIGURE_TIME_DEFAULT)
 *
 * The time a GPU spends changing from @from to @to: nothing if they hold
 * the same instances, otherwise one @reconfigure_time (the changes are made
 * in one pass, whatever their number).
 *
 * Returns: the cost.
 */
SimTime sim_mig_reconfigure_cost (const SimMigLayout *from, const SimMigLayout *to,
                                  SimTime reconfigure_time);

G_END_DECLS
