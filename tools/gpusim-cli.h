/* gpusim-cli.h: the subcommands of the gpusim program. */
#pragma once

#include <glib.h>
#include <sim.h>
#include <json-glib/json-glib.h>

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
int gpusim_cmd_keys     (int argc, char **argv);
int gpusim_cmd_llm      (int argc, char **argv);
int gpusim_cmd_serve    (int argc, char **argv);

/* A scenario's cluster and network, for the commands that work on the
 * network alone (collective, transfers). */
typedef struct {
  SimScenario     *scenario;
  SimCatalogue    *catalogue;
  SimCluster      *cluster;
  SimFabricConfig  fabric;
  SimTopology     *topology;
} GpusimNetwork;

/* Loads @path with @sets applied, its catalogue and cluster, and builds
 * the network of its [fabric] (with @routing unless NULL).  Without a
 * [fabric], nodes share one non-blocking switch with a port for every
 * NIC.  On failure, @net holds nothing and @error says why. */
gboolean gpusim_network_load (GpusimNetwork *net, const char *path, const char *const *sets,
                              const SimRouting *routing, GError **error);
void     gpusim_network_clear (GpusimNetwork *net);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (GpusimNetwork, gpusim_network_clear)

/* A count of things done, redrawn on one line of a terminal at most ten
 * times a second: "\rWHAT: DONE of TOTAL UNIT done ". */
typedef struct {
  gint64   last_draw;
  gboolean drawn;
} GpusimCounter;

void gpusim_counter_draw (GpusimCounter *counter, const char *what, guint done, guint total,
                          const char *unit);

/* Prints "gpusim: MESSAGE" on stderr. */
void gpusim_print_error (const GError *error);

/* Prints on stderr, as "gpusim: warning: ...", what @topology's builder
 * built otherwise than asked (sim_topology_get_warnings()). */
void gpusim_print_topology_warnings (SimTopology *topology);

/* Where traces are fetched to and read from by default: $GPUSIM_TRACE_DIR,
 * else the folder of the trace registry (data/traces in a checkout, or
 * the installed one). */
char *gpusim_default_trace_dir (void);

/* Prints @error as gpusim_print_error() does; returns 1, the exit status
 * of an error in the input. */
int gpusim_input_error (const GError *error);

/* Prints the object @builder has built, as indented JSON, on stdout. */
void gpusim_print_json (JsonBuilder *builder);

/* Prints "gpusim: MESSAGE" and @context's help on stderr; returns 2, the
 * exit status of a usage error. */
int gpusim_usage_error (GOptionContext *context, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* 0 if every --set of @sets has the form SECTION.KEY=VALUE; else prints
 * the usage error naming the first that has not, and returns 2. */
int gpusim_check_sets (GOptionContext *context, char **sets);

G_END_DECLS
