/* sim.h: the public interface of gpusim, a discrete-event simulator of GPU
 * clusters.  Include this header only:
 *
 *   #include <sim.h>
 *
 * and build with `pkg-config --cflags --libs sim-1.0`.
 */
#pragma once

#define SIM_INSIDE
#include "core/sim-error.h"
#include "core/sim-units.h"
#include "core/sim-rng.h"
#include "core/sim-engine.h"
#include "core/sim-maxmin.h"
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "cluster/sim-mig.h"
#include "cluster/sim-sharing.h"
#include "fabric/sim-topology.h"
#include "fabric/sim-collective.h"
#include "fabric/sim-transfers.h"
#include "power/sim-cost.h"
#include "workload/sim-scaling.h"
#include "workload/sim-workload.h"
#include "workload/sim-openb.h"
#include "workload/sim-traces.h"
#include "workload/sim-trace-formats.h"
#include "workload/sim-job.h"
#include "sched/sim-policy.h"
#include "sched/sim-plugin.h"
#include "sched/sim-fgd-experiment.h"
#include "sched/sim-fragmentation.h"
#include "scenario/sim-scenario.h"
#include "report/sim-report.h"
#include "report/sim-diagram.h"
#include "report/sim-timeline.h"
#include "report/sim-html-report.h"
#include "kernel/sim-simulation.h"
#include "study/sim-stats.h"
#include "study/sim-plan.h"
#include "study/sim-executor.h"
#include "sweep/sim-compare.h"
#include "sweep/sim-sweep.h"
#include "sweep/sim-sweep-db.h"
#include "sweep/sim-seek.h"
#include "rl/sim-rl-env.h"
#include "llm/sim-llm.h"
#include "serve/sim-serve.h"
#undef SIM_INSIDE
