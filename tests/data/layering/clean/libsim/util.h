/* libsim/util.h: the top's helpers (a name sched/ also has). */
