/* sim-failures-private.h: the failure model's parameters, resolved from
 * the profile and the scenario (not installed). */
#pragma once

#include "failures/sim-failures.h"

G_BEGIN_DECLS

typedef enum {
  SIM_REPAIR_EXPONENTIAL,
  SIM_REPAIR_LOGNORMAL,
  SIM_REPAIR_FIXED,
} SimRepairDistribution;

/* Everything the model runs with, in SI units (times in ns unless _s). */
typedef struct {
  double   mtbf_s[SIM_FAILURE_N_TYPES];   /* per component, s; 0: never fails */
  double   shape[SIM_FAILURE_N_TYPES];    /* Weibull shape; 1: exponential */
  SimTime  repair[SIM_FAILURE_N_TYPES];   /* mean repair or replacement time */
  guint    nics_per_node, nvswitches_per_node, nodes_per_leaf, spines, cores;
  gboolean manual;
  SimTime  detect, swap, restart;         /* -1 until resolved: the mode's */
  gint     drain;                         /* 1 migrate, 0 kill, -1 the mode's */
  guint    spares;
  SimTime  quarantine;                    /* a repaired node out this long */
  SimTime  avoid;                         /* ... or this long while no job waits */
  SimRepairDistribution repair_dist;
  double   repair_sigma;
  SimTime  interval;                      /* 0: no periodic checkpoint */
  gboolean young_daly;
  double   ckpt_bytes_per_gpu;
  double   storage_bw;                    /* bytes/s */
  guint64  seed_offset;
  char    *profile;
  char    *log;                           /* absolute, or NULL */
} SimFailureParams;

void     sim__failure_params_init (SimFailureParams *p);
void     sim__failure_params_clear (SimFailureParams *p);
gboolean sim__failure_params_set (SimFailureParams *p, const char *key, const char *value,
                                  GError **error);
/* Defaults, then the profile, then the scenario's keys, then the mode's
 * defaults for what is still unset.  Errors name the scenario's key or the
 * profile's file. */
gboolean sim__failure_params_resolve (SimFailureParams *p, const SimScenario *scenario,
                                      GError **error);
/* The type called NAME, or -1. */
int      sim__failure_type_lookup (const char *name);

G_END_DECLS
