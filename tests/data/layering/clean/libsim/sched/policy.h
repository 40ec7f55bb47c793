#include "sched/types.h"
