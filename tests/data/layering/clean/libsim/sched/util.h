/* sched/util.h: the same name as libsim/util.h. */
