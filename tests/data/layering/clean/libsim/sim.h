/* The umbrella header: it includes the others, and nothing includes it. */
#include "core/engine.h"
#include "sched/policy.h"
