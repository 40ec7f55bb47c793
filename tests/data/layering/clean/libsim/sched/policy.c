#include "config.h"
#include "sched/policy-private.h"
/* sched/util.h, found beside this file before libsim/util.h. */
#include "util.h"
