/* Declarations of core.c's internals (in core's unit), including nothing. */
