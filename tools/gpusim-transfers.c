/* gpusim transfers: point-to-point transfers over a fabric, timed.
 *
 *   gpusim transfers FILE.csv --hosts N [--bandwidth BW] [--topology KIND] [--radix K]
 *                    [--oversubscription R] [--link-latency T] [-o OUT.csv] [--json] [-q]
 *   gpusim transfers FILE.csv --scenario SCENARIO [--set SECTION.KEY=VALUE]... [...]
 *
 * FILE.csv names src, dst, bytes and optionally start (sim-transfers.h,
 * sim_transfers_add_from_file()).  With --hosts, the endpoints are hosts
 * with a NIC each on a network of their own (sim_topology_new_hosts());
 * with --scenario, they are the GPUs of the scenario's cluster over its
 * [fabric].  Prints a summary (makespan, durations, throughput); -o writes
 * each transfer's start, end and duration.
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"
#include "core/sim-util.h"
#include "scenario/sim-scenario-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
draw_progress (SimTransfers *t, guint done, guint total, gpointer data)
{
  gpusim_counter_draw (data, "transfers", done, total, "transfers");
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The value at quantile @q of @sorted (@n > 0), nearest rank. */
static double
quantile (const double *sorted, guint n, double q)
{
  guint k = (guint) (q * n + 0.999999);
  return sorted[MIN (MAX (k, 1u), n) - 1];
}

typedef struct {
  guint  n;
  double bytes, makespan, first_start;
  double mean, p50, p99, max;   /* durations, seconds */
} Summary;

static void
summarize (SimTransfers *t, Summary *s)
{
  g_autofree double *d = NULL;
  double sum = 0, end = 0;

  memset (s, 0, sizeof *s);
  s->n = sim_transfers_get_n_transfers (t);
  d = g_new (double, MAX (s->n, 1));
  s->first_start = INFINITY;
  for (guint id = 1; id <= s->n; id++)
    {
      double bytes;
      SimTime start, done = sim_transfers_get_completion (t, id);
      sim_transfers_get_transfer (t, id, NULL, NULL, &bytes, &start);
      s->bytes += bytes;
      d[id - 1] = sim_time_to_seconds (done - start);
      sum += d[id - 1];
      s->first_start = MIN (s->first_start, sim_time_to_seconds (start));
      end = MAX (end, sim_time_to_seconds (done));
    }
  if (s->n == 0)
    return;
  qsort (d, s->n, sizeof *d, compare_doubles);
  s->makespan = end - s->first_start;
  s->mean = sum / s->n;
  s->p50 = quantile (d, s->n, 0.5);
  s->p99 = quantile (d, s->n, 0.99);
  s->max = d[s->n - 1];
}

static void
print_json (const char *network, const Summary *s, SimTransfers *t, double wall)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const struct { const char *name; double value; } figures[] = {
    { "bytes", s->bytes },
    { "makespan_s", s->makespan },
    { "duration_mean_s", s->mean },
    { "duration_p50_s", s->p50 },
    { "duration_p99_s", s->p99 },
    { "duration_max_s", s->max },
    { "throughput_gbytes_per_s", s->makespan > 0 ? s->bytes / s->makespan / 1e9 : 0 },
    { "wall_s", wall },
  };

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "network");
  json_builder_add_string_value (b, network);
  json_builder_set_member_name (b, "transfers");
  json_builder_add_int_value (b, s->n);
  json_builder_set_member_name (b, "solves");
  json_builder_add_int_value (b, (gint64) sim_transfers_get_n_solves (t));
  json_builder_set_member_name (b, "events");
  json_builder_add_int_value (b, (gint64) sim_transfers_get_n_events (t));
  for (guint i = 0; i < G_N_ELEMENTS (figures); i++)
    {
      json_builder_set_member_name (b, figures[i].name);
      json_builder_add_double_value (b, figures[i].value);
    }
  json_builder_end_object (b);
  gpusim_print_json (b);
}

static void
print_summary (const char *network, const Summary *s, SimTransfers *t, double wall)
{
  printf ("gpusim transfers: %u transfers on %s\n", s->n, network);
  printf ("  bytes            %.6g GB\n", s->bytes / 1e9);
  printf ("  makespan         %.6f ms (first start to last completion)\n", s->makespan * 1e3);
  printf ("  duration         mean %.6f ms, p50 %.6f ms, p99 %.6f ms, max %.6f ms\n",
          s->mean * 1e3, s->p50 * 1e3, s->p99 * 1e3, s->max * 1e3);
  printf ("  throughput       %.3f GB/s (bytes over the makespan)\n",
          s->makespan > 0 ? s->bytes / s->makespan / 1e9 : 0.0);
  printf ("  solves           %" G_GUINT64_FORMAT " (events %" G_GUINT64_FORMAT "), %.3f s\n",
          sim_transfers_get_n_solves (t), sim_transfers_get_n_events (t), wall);
}

/* A network of hosts takes about 220 bytes per host (measured with
 * 1,000,000 hosts on one switch and on a three-tier fat-tree: 227 and
 * 213 MB): past a million, --hosts 100000000 took 10 GB and failed, so
 * larger networks need --force. */
#define MAX_HOSTS      1000000
#define BYTES_PER_HOST 220.0

/* The simulator on a network of hosts, from the options. */
static SimTransfers *
hosts_network (gint n_hosts, const char *bandwidth_text, const char *kind_text, gint radix,
               double oversubscription, const char *latency_text, char **description,
               GError **error)
{
  SimFabricKind kind = SIM_FABRIC_FAT_TREE;
  double bandwidth = 50e9;
  SimTime latency = 1000;
  SimTransfers *t;

  if (bandwidth_text != NULL && !sim_parse_bandwidth (bandwidth_text, &bandwidth, error))
    {
      g_prefix_error (error, "--bandwidth: ");
      return NULL;
    }
  if (kind_text != NULL && !sim_fabric_kind_from_string (kind_text, &kind, error))
    {
      g_prefix_error (error, "--topology: ");
      return NULL;
    }
  if (latency_text != NULL && !sim_parse_duration (latency_text, &latency, error))
    {
      g_prefix_error (error, "--link-latency: ");
      return NULL;
    }
  if (radix == G_MININT)
    radix = kind == SIM_FABRIC_SINGLE_SWITCH ? 0 : 64;
  t = sim_transfers_new_hosts ((guint) n_hosts, bandwidth, kind, (guint) radix,
                               oversubscription, latency, error);
  if (t == NULL)
    return NULL;
  /* (A ratio the leaves cannot hold with whole ports, and what was built.) */
  gpusim_print_topology_warnings (sim_transfers_get_topology (t));
  if (kind == SIM_FABRIC_SINGLE_SWITCH)
    *description = g_strdup_printf ("%d hosts, one switch, %.6g GB/s per host, %.6g us per "
                                    "link", n_hosts, bandwidth / 1e9, latency / 1e3);
  else
    *description = g_strdup_printf ("%d hosts, %s of %d-port switches (%g:1), %.6g GB/s per "
                                    "host, %.6g us per link", n_hosts,
                                    sim_fabric_kind_to_string (kind), radix,
                                    MAX (oversubscription, 1.0), bandwidth / 1e9,
                                    latency / 1e3);
  return t;
}

int
gpusim_cmd_transfers (int argc, char **argv)
{
  g_autofree char *scenario = NULL, *bandwidth = NULL, *kind = NULL, *latency = NULL;
  g_autofree char *output = NULL;
  g_auto(GStrv) sets = NULL;
  gint n_hosts = 0, radix = G_MININT;   /* (not given: the topology's default) */
  double oversubscription = 1;
  gboolean json = FALSE, quiet = FALSE, force = FALSE;
  GOptionEntry entries[] = {
    { "hosts", 'n', 0, G_OPTION_ARG_INT, &n_hosts,
      "N hosts with a NIC each, on a network of their own", "N" },
    { "bandwidth", 'b', 0, G_OPTION_ARG_STRING, &bandwidth,
      "each host's NIC, each way (default 50GB/s)", "BW" },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &kind,
      "single-switch, fat-tree or fat-tree-3 (default fat-tree)", "KIND" },
    { "radix", 'k', 0, G_OPTION_ARG_INT, &radix, "ports per switch (default 64)", "K" },
    { "oversubscription", 0, 0, G_OPTION_ARG_DOUBLE, &oversubscription,
      "down:up ports at the leaves (default 1, non-blocking)", "R" },
    { "link-latency", 0, 0, G_OPTION_ARG_STRING, &latency,
      "per network link (default 1us)", "T" },
    { "scenario", 's', 0, G_OPTION_ARG_FILENAME, &scenario,
      "the GPUs of this scenario's cluster, over its [fabric], instead of hosts", "FILE" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a scenario key",
      "SECTION.KEY=VALUE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "each transfer's start, end and duration, as CSV", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print the summary as JSON", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress on the terminal", NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "build a network of more than 1,000,000 hosts", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("FILE.csv - move bytes over a fabric and time each transfer");
  g_autoptr(GError) error = NULL;
  g_auto(GpusimNetwork) net = { 0 };
  g_autoptr(SimTransfers) t = NULL;
  g_autofree char *network = NULL;
  GpusimCounter progress = { 0 };
  Summary summary;
  guint added = 0;
  gint64 t0;
  double wall;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "FILE.csv starts with a header naming its columns, src, dst, bytes and optionally\n"
    "start (\"src,dst,bytes,start\"); each row after it (\"0,5,100MB,1ms\") is a\n"
    "transfer: a flow that shares every link it crosses max-min fairly with the\n"
    "others, then pays its route's latency.  Endpoints are hosts (--hosts) or the\n"
    "GPUs of a scenario's cluster (--scenario).");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (gpusim_check_sets (context, sets) != 0)
    return 2;
  if (argc != 2)
    return gpusim_usage_error (context, "%s", argc < 2 ? "transfers needs a FILE.csv"
                                          : "too many arguments");
  if ((n_hosts != 0) == (scenario != NULL))
    return gpusim_usage_error (context, "give either --hosts N (N >= 2) or --scenario FILE");
  if (scenario == NULL && (n_hosts < 2 || sets != NULL))
    return gpusim_usage_error (context, "%s", n_hosts < 2 ? "--hosts N needs N >= 2"
                                              : "--set needs --scenario");
  if (scenario != NULL && (bandwidth != NULL || kind != NULL || radix != G_MININT
                           || latency != NULL || oversubscription != 1))
    return gpusim_usage_error (context, "--bandwidth, --topology, --radix, --oversubscription "
                                        "and --link-latency are for --hosts; a scenario's "
                                        "network is its [fabric] (--set fabric.KEY=VALUE)");
  if (radix != G_MININT && radix < 2)
    return gpusim_usage_error (context, "--radix %d: expected at least 2 ports", radix);
  if (n_hosts > MAX_HOSTS && !force)
    {
      g_set_error (&error, SIM_ERROR, SIM_ERROR_INVALID, "--hosts %d: more than %d hosts, "
                   "whose network alone would take about %.3g GB of memory before the first "
                   "transfer (pass --force to build it)", n_hosts, MAX_HOSTS,
                   n_hosts * BYTES_PER_HOST / 1e9);
      return gpusim_input_error (error);
    }

  if (!sim__check_output ("-o", output, argv[1], "the transfers being read", &error))
    return gpusim_input_error (error);
  if (scenario != NULL)
    {
      g_autofree char *desc = NULL;
      if (!gpusim_network_load (&net, scenario, (const char * const *) sets, NULL, &error) ||
          !sim__scenario_check_output (net.scenario, "-o", output, NULL, &error))
        return gpusim_input_error (error);
      t = sim_transfers_new (net.topology);
      desc = sim_cluster_describe (net.cluster);
      network = g_strdup_printf ("the %u GPUs of %s, %s", sim_cluster_get_n_gpus (net.cluster),
                                 desc, sim_fabric_kind_to_string (net.fabric.kind));
    }
  else
    {
      t = hosts_network (n_hosts, bandwidth, kind, radix, oversubscription, latency, &network,
                         &error);
      if (t == NULL)
        return gpusim_usage_error (context, "%s", error->message);
    }

  if (!sim_transfers_add_from_file (t, argv[1], &added, &error))
    return gpusim_input_error (error);
  if (added == 0)
    {
      g_set_error (&error, SIM_ERROR, SIM_ERROR_TRACE, "%s: no transfers: expected a row "
                   "after the header", argv[1]);
      return gpusim_input_error (error);
    }
  if (!quiet && isatty (STDERR_FILENO))
    sim_transfers_set_progress_func (t, draw_progress, &progress, NULL);
  t0 = g_get_monotonic_time ();
  if (!sim_transfers_run (t, &error))
    return gpusim_input_error (error);
  wall = (g_get_monotonic_time () - t0) / 1e6;
  if (progress.drawn)
    fputs ("\r\033[K", stderr);
  if (output != NULL && !sim_transfers_write_csv (t, output, &error))
    return gpusim_input_error (error);
  summarize (t, &summary);
  if (json)
    print_json (network, &summary, t, wall);
  else
    print_summary (network, &summary, t, wall);
  return fflush (stdout) == 0 ? 0 : 1;
}
