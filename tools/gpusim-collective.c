/* gpusim collective: the nccl-tests table of a collective on a scenario's
 * cluster and fabric.
 *
 *   gpusim collective SCENARIO --op all_reduce --gpus N [--algo ALGO] [--routing MODE]
 *                     [--min 8B] [--max 8G] [--set SECTION.KEY=VALUE]... [--json]
 */
#include "config.h"

#include <sim.h>
#include "core/sim-maxmin.h"
#include "fabric/sim-topology.h"
#include "fabric/sim-collective.h"
#include "gpusim-cli.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

static void
print_table (SimCollectiveOp op, SimCollectiveAlgo algo, guint n, const char *cluster_desc,
             const SimTopology *topology, const SimFabricConfig *fabric, GArray *rows)
{
  gboolean reduces = op == SIM_COLLECTIVE_ALL_REDUCE || op == SIM_COLLECTIVE_REDUCE_SCATTER;
  int root = op == SIM_COLLECTIVE_BROADCAST ? 0 : -1;
  double sum = 0;

  printf ("# gpusim collective: %s on %u GPUs of %s, algorithm %s\n#\n",
          sim_collective_op_to_string (op), n, cluster_desc, sim_collective_algo_to_string (algo));
  if (fabric->kind != SIM_FABRIC_NONE)
    printf ("# fabric %s, routing %s\n#\n", sim_fabric_kind_to_string (fabric->kind),
            sim_routing_to_string (sim_topology_get_routing (topology)));
  printf ("#%11s  %12s  %8s  %6s  %6s  %8s  %7s  %7s  %-12s %s\n", "size", "count", "type",
          "redop", "root", "time", "algbw", "busbw", "algo", "proto");
  printf ("#%11s  %12s  %8s  %6s  %6s  %8s  %7s  %7s\n", "(B)", "(elements)", "", "", "", "(us)",
          "(GB/s)", "(GB/s)");
  for (guint i = 0; i < rows->len; i++)
    {
      const SimCollectiveRow *r = &g_array_index (rows, SimCollectiveRow, i);
      printf ("%12" G_GUINT64_FORMAT "  %12" G_GUINT64_FORMAT "  %8s  %6s  %6d  %8.2f  %7.2f  "
              "%7.2f  %-12s %s\n", r->bytes, r->count, "float", reduces ? "sum" : "none", root,
              r->time_us, r->algbw_gbs, r->busbw_gbs, sim_collective_algo_to_string (r->algo),
              sim_collective_protocol_to_string (r->protocol));
      sum += r->busbw_gbs;
    }
  printf ("# Avg bus bandwidth    : %g\n", rows->len ? sum / rows->len : 0.0);
}

static void
print_json (SimCollectiveOp op, SimCollectiveAlgo algo, guint n, const char *cluster_desc,
            const SimTopology *topology, const SimFabricConfig *fabric, GArray *rows)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  double sum = 0;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "op");
  json_builder_add_string_value (b, sim_collective_op_to_string (op));
  json_builder_set_member_name (b, "algo");
  json_builder_add_string_value (b, sim_collective_algo_to_string (algo));
  json_builder_set_member_name (b, "gpus");
  json_builder_add_int_value (b, n);
  json_builder_set_member_name (b, "cluster");
  json_builder_add_string_value (b, cluster_desc);
  json_builder_set_member_name (b, "fabric");
  json_builder_add_string_value (b, sim_fabric_kind_to_string (fabric->kind));
  json_builder_set_member_name (b, "routing");
  json_builder_add_string_value (b, sim_routing_to_string (sim_topology_get_routing (topology)));
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    {
      const SimCollectiveRow *r = &g_array_index (rows, SimCollectiveRow, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "size_bytes");
      json_builder_add_int_value (b, (gint64) r->bytes);
      json_builder_set_member_name (b, "count");
      json_builder_add_int_value (b, (gint64) r->count);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "float");
      json_builder_set_member_name (b, "time_us");
      json_builder_add_double_value (b, r->time_us);
      json_builder_set_member_name (b, "algbw_gbs");
      json_builder_add_double_value (b, r->algbw_gbs);
      json_builder_set_member_name (b, "busbw_gbs");
      json_builder_add_double_value (b, r->busbw_gbs);
      json_builder_set_member_name (b, "algo");
      json_builder_add_string_value (b, sim_collective_algo_to_string (r->algo));
      json_builder_set_member_name (b, "protocol");
      json_builder_add_string_value (b, sim_collective_protocol_to_string (r->protocol));
      json_builder_end_object (b);
      sum += r->busbw_gbs;
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "avg_busbw_gbs");
  json_builder_add_double_value (b, rows->len ? sum / rows->len : 0.0);
  json_builder_end_object (b);
  gpusim_print_json (b);
}

int
gpusim_cmd_collective (int argc, char **argv)
{
  g_autofree char *op_text = NULL, *algo_text = NULL, *min_text = NULL, *max_text = NULL;
  g_autofree char *routing_text = NULL;
  g_auto(GStrv) sets = NULL;
  gint n_gpus = 0;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "op", 0, 0, G_OPTION_ARG_STRING, &op_text,
      "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send_recv", "OP" },
    { "gpus", 'n', 0, G_OPTION_ARG_INT, &n_gpus, "the first N GPUs of the cluster", "N" },
    { "algo", 0, 0, G_OPTION_ARG_STRING, &algo_text,
      "ring, tree, hierarchical, nvls, direct or auto (default: auto)", "ALGO" },
    { "min", 'b', 0, G_OPTION_ARG_STRING, &min_text, "smallest size (default 8B)", "SIZE" },
    { "max", 'e', 0, G_OPTION_ARG_STRING, &max_text, "largest size (default 8G)", "SIZE" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a scenario key",
      "SECTION.KEY=VALUE" },
    { "routing", 0, 0, G_OPTION_ARG_STRING, &routing_text,
      "dmodk, ecmp, adaptive or spray (default: the scenario's fabric.routing, else by the "
      "link kind)", "MODE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print JSON instead of the table", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("SCENARIO - time a collective as nccl-tests would measure it");
  g_autoptr(GError) error = NULL;
  g_auto(GpusimNetwork) net = { 0 };
  g_autoptr(SimCommModel) comm = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autofree guint32 *gpus = NULL;
  g_autofree char *desc = NULL;
  SimCollectiveOp op = SIM_COLLECTIVE_ALL_REDUCE;
  SimCollectiveAlgo algo = SIM_COLLECTIVE_ALGO_AUTO;
  guint64 min_bytes = 8, max_bytes = (guint64) 8 << 30;
  SimRouting routing = SIM_ROUTING_DEFAULT;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Prints the table nccl-tests prints (size, count, type, redop, root, time, algbw,\n"
    "busbw) for the first N GPUs of the scenario's cluster, over its [fabric].");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (gpusim_check_sets (context, sets) != 0)
    return 2;
  if (argc != 2)
    return gpusim_usage_error (context, "%s", argc < 2 ? "collective needs a SCENARIO file"
                                          : "too many arguments");
  if (op_text != NULL && !sim_collective_op_from_string (op_text, &op, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (algo_text != NULL && !sim_collective_algo_from_string (algo_text, &algo, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if ((min_text != NULL && !sim_parse_size (min_text, &min_bytes, &error))
      || (max_text != NULL && !sim_parse_size (max_text, &max_bytes, &error)))
    return gpusim_usage_error (context, "%s", error->message);
  if (n_gpus < 2)
    return gpusim_usage_error (context, "--gpus N is needed, with N >= 2");
  if (routing_text != NULL && !sim_routing_from_string (routing_text, &routing, &error))
    return gpusim_usage_error (context, "%s", error->message);

  if (!gpusim_network_load (&net, argv[1], (const char * const *) sets,
                            routing_text != NULL ? &routing : NULL, &error))
    return gpusim_input_error (error);
  if ((guint) n_gpus > sim_cluster_get_n_gpus (net.cluster))
    {
      g_set_error (&error, SIM_ERROR, SIM_ERROR_INVALID, "--gpus %d: the cluster has %u GPUs",
                   n_gpus, sim_cluster_get_n_gpus (net.cluster));
      return gpusim_input_error (error);
    }
  comm = sim_comm_model_new (net.topology, net.cluster);
  /* GPUs are numbered node by node, so the first N span as few nodes as
   * the pools allow. */
  gpus = g_new (guint32, n_gpus);
  for (gint i = 0; i < n_gpus; i++)
    gpus[i] = (guint32) i;
  rows = sim_collective_sweep (comm, op, algo, gpus, (guint) n_gpus, min_bytes, max_bytes, &error);
  if (rows == NULL)
    return gpusim_input_error (error);
  desc = sim_cluster_describe (net.cluster);
  if (json)
    print_json (op, algo, (guint) n_gpus, desc, net.topology, &net.fabric, rows);
  else
    print_table (op, algo, (guint) n_gpus, desc, net.topology, &net.fabric, rows);
  return fflush (stdout) == 0 ? 0 : 1;
}
