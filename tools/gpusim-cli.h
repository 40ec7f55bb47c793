/* gpusim-cli.h: the subcommands of the gpusim program. */
#pragma once

#include <glib.h>
#include <sim.h>

G_BEGIN_DECLS

/* Each subcommand takes its own argv (argv[0] is the subcommand's name),
 * prints to stdout, reports errors on stderr as "gpusim: MESSAGE", and
 * returns the process exit status: 0 on success, 1 on an error in the
 * input, 2 on a usage error. */
int gpusim_cmd_run      (int argc, char **argv);
int gpusim_cmd_validate (int argc, char **argv);
int gpusim_cmd_models   (int argc, char **argv);
int gpusim_cmd_collective (int argc, char **argv);
int gpusim_cmd_compare  (int argc, char **argv);
int gpusim_cmd_fgd      (int argc, char **argv);
int gpusim_cmd_topo     (int argc, char **argv);
int gpusim_cmd_report   (int argc, char **argv);
int gpusim_cmd_scaling  (int argc, char **argv);
int gpusim_cmd_trace    (int argc, char **argv);
int gpusim_cmd_sweep    (int argc, char **argv);
int gpusim_cmd_seek     (int argc, char **argv);
int gpusim_cmd_transfers (int argc, char **argv);

/* The scenario's [fabric] (with any --set fabric.KEY=VALUE already
 * applied by the scenario parser).  Without one, nodes share one
 * non-blocking switch with a port for every NIC. */
void gpusim_fabric_config (const SimScenario *sc, const SimCluster *cluster,
                           SimFabricConfig *config);

/* Prints "gpusim: MESSAGE" on stderr. */
void gpusim_print_error (const GError *error);

/* Prints "gpusim: MESSAGE" and @context's help on stderr; returns 2, the
 * exit status of a usage error. */
int gpusim_usage_error (GOptionContext *context, const char *format, ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
