/* sim-class-scaling.h: the synthetic classes' speeds, ready for a run (not
 * installed).
 *
 * Durations are run times on the reference GPU ([workload] reference_gpu,
 * else the first pool's) at the GPU count a class's duration is measured
 * at.  A running job's speed against that is its GPUs' speed (its class's
 * measured throughput ratio on their model, else the ratio of dense
 * FP16/BF16 TFLOPS; the slowest of its GPUs sets the pace) times its
 * scaling on the GPUs it holds (sim-scaling.h): the start factor the kernel
 * multiplies into a job's speed.  Each class's speed-up is cached for every
 * GPU count its jobs can hold, so that the hot path does no more than a
 * look-up and a division.
 */
#pragma once

#include <glib.h>
#include "scenario/sim-scenario.h"
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "workload/sim-job.h"

G_BEGIN_DECLS

typedef struct _SimClassScaling SimClassScaling;

/* The iteration time, s, of a communicating job of profile @c on the first
 * @n GPUs of an idle copy of the fabric, computing @compute_s per iteration
 * (sim__job_comm_idle_iteration()). */
typedef gboolean (*SimIdleIterationFunc) (gpointer data, const SimCommProfile *c, guint n,
                                          double compute_s, double *iteration_s,
                                          GError **error);

/* The reference GPU and, for a workload with classes, every class's
 * scaling: speed-ups cached, throughput tables resolved in @catalogue
 * (which must list the reference GPU: durations are measured on it), and
 * the efficiency cap of moldable classes ([policy] moldable_efficiency).
 * @idle (nullable without a network) times communicating classes.
 * Errors: an unknown reference or throughput GPU, a throughput table
 * without the reference GPU, at the scenario's line. */
SimClassScaling *sim__class_scaling_new (const SimScenario *scenario,
                                         const SimCatalogue *catalogue,
                                         const SimCluster *cluster, SimIdleIterationFunc idle,
                                         gpointer idle_data, GError **error);
void     sim__class_scaling_free (SimClassScaling *cs);

/* The start factor of running @job on its GPUs: its GPUs' speed times its
 * scaling on their count, against the reference. */
double   sim__class_scaling_speed (gpointer cs, const SimJob *job);
/* Whether @job's class speed-up is a measured curve (Amdahl or a table),
 * which already includes its communication. */
gboolean sim__class_scaling_measured (const SimClassScaling *cs, const SimJob *job);
/* A moldable job arrives: under [policy] moldable_efficiency it asks for
 * no more GPUs than its class's cap. */
void     sim__class_scaling_mold (const SimClassScaling *cs, SimJob *job);

guint       sim__class_scaling_get_n_classes (const SimClassScaling *cs);
const char *sim__class_scaling_get_name      (const SimClassScaling *cs, guint job_class);
/* Class @job_class's speed-up on @n GPUs against one
 * (sim_simulation_get_class_speedup()). */
gboolean    sim__class_scaling_speedup (const SimClassScaling *cs, guint job_class, guint n,
                                        double *out, GError **error);
/* Each class's throughput on the reference GPU (0: no table), for a
 * workload that turns steps into time; NULL without classes. */
double     *sim__class_scaling_dup_rates (const SimClassScaling *cs);

/* "no WHAT model "NAME" in the catalogue: did you mean ...?" at [GROUP] KEY
 * of the scenario. */
void sim__unknown_model (const SimScenario *sc, const SimCatalogue *catalogue, const char *group,
                         const char *key, const char *what, const char *name, GError **error);

G_END_DECLS
