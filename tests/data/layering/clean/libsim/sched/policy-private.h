/* The private header of policy.c: one unit with policy.h and policy.c. */
#include "sched/policy.h"
