/* sim-gpu-model.h: a GPU model of the hardware catalogue and its MIG
 * profiles, as types alone: the catalogue (sim-catalogue.h) reads them
 * from its files and MIG's geometry (sim-mig.h) computes on them, and
 * neither depends on the other for them. */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * SimMigProfile:
 * @name: NVIDIA's name, e.g. "1g.10gb"
 * @compute_slices: compute slices of the 7 (or the GPU's total)
 * @memory_slices: memory slices of the 8
 * @memory_bytes: memory of one instance
 * @max_instances: how many instances of this profile fit on one GPU
 * @placements: (array length=n_placements): the compute slice indices an
 *   instance may start at
 * @n_placements: length of @placements
 * @sms: streaming multiprocessors of one instance, as `nvidia-smi mig
 *   -lgip` lists them; 0 if unknown (the share of SMs is then taken as
 *   @compute_slices over the GPU's slices)
 */
typedef struct {
  char    *name;
  guint    compute_slices;
  guint    memory_slices;
  guint64  memory_bytes;
  guint    max_instances;
  guint   *placements;
  guint    n_placements;
  guint    sms;
} SimMigProfile;

/**
 * SimGpuModel:
 *
 * A GPU model.  Numbers are SI: bytes, bytes per second, watts, US dollars.
 * A quantity that is unknown or does not apply is 0.
 */
typedef struct {
  char    *name;              /* "H100-SXM" */
  char    *vendor;            /* "NVIDIA" */
  char    *description;
  char    *source_file;       /* the file it was read from */
  double   fp16_tflops;       /* dense FP16/BF16 tensor TFLOPS */
  double   fp8_tflops;        /* dense FP8, 0 if none */
  guint64  memory_bytes;
  double   memory_bandwidth;  /* bytes/s */
  double   scaleup_bandwidth; /* bytes/s per GPU, all scale-up links together */
  char    *scaleup_link;      /* "NVLink4", "Infinity Fabric", "PCIe Gen4" */
  double   tdp_w;
  double   idle_w;
  double   price_usd;
  guint    mig_slices;        /* compute slices when MIG is on (7), 0 without MIG */
  SimMigProfile *mig_profiles;
  guint    n_mig_profiles;
  guint    sms;               /* streaming multiprocessors of the whole GPU (MIG off), 0 if
                               * unknown: a MIG profile's share of compute is its SMs over these */
} SimGpuModel;

G_END_DECLS
