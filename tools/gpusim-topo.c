/* gpusim-topo.c: `gpusim topo`, the figures of a scenario's network.
 *
 *   gpusim topo SCENARIO [--set SECTION.KEY=VALUE]... [--json]
 *
 * Builds the cluster of the scenario's pools and the fabric of its
 * [fabric] section, and prints what it is made of (switches per tier,
 * NVSwitch chips, cables, transceivers) and what it can do (bisection
 * bandwidth, diameter, oversubscription per tier, connected components).
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

static const char * const tier_names[] = { "all", "leaf", "spine", "core" };


/* "2:1", or "-" at the top tier. */
static char *
ratio_text (double r)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (r == 0)
    return g_strdup ("-");
  return g_strdup_printf ("%s:1", g_ascii_formatd (buf, sizeof buf, "%.3g", r));
}

static void
print_text (const SimScenario *sc, const SimCluster *cluster, const SimFabricConfig *fc,
            SimRouting routing, const SimTopologyMetrics *m)
{
  g_autofree char *desc = sim_cluster_describe (cluster);
  double per_gpu = m->gpus >= 2 ? m->bisection_bandwidth / (m->gpus / 2) : 0;

  printf ("scenario      %s\n", sc->name ? sc->name : sc->path);
  printf ("cluster       %s: %u nodes, %u GPUs\n", desc, m->nodes, m->gpus);
  printf ("fabric        %s", sim_fabric_kind_to_string (fc->kind));
  if (fc->switch_model != NULL)
    printf (", %s", fc->switch_model);
  if (fc->link_model != NULL)
    printf (", %s", fc->link_model);
  if (fc->oversubscription > 1)
    {
      g_autofree char *r = ratio_text (fc->oversubscription);
      printf (", %s", r);
    }
  printf ("\n");
  if (fc->kind != SIM_FABRIC_NONE)
    printf ("routing       %s%s\n", sim_routing_to_string (routing),
            fc->routing == SIM_ROUTING_DEFAULT ? " (by the link kind)" : "");
  printf ("switches      %u: %u leaf, %u spine, %u core\n", m->switches[0], m->switches[1],
          m->switches[2], m->switches[3]);
  printf ("nvswitches    %u chips\n", m->nvswitches);
  printf ("cables        %u (%u optical transceivers)\n", m->cables, m->transceivers);
  printf ("bisection     %.2f TB/s (%.1f GB/s per GPU of a half)\n",
          m->bisection_bandwidth / 1e12, per_gpu / 1e9);
  printf ("diameter      %u hops between GPUs\n", m->diameter);
  printf ("oversub.     ");
  for (guint t = 1; t < 4; t++)
    {
      g_autofree char *r = ratio_text (m->oversubscription[t]);
      printf (" %s %s%s", tier_names[t], r, t < 3 ? "," : "\n");
    }
  printf ("components    %u%s\n", m->components,
          m->components == 1 ? "" : " (not every GPU reaches every other)");
}

static void
print_json (const SimScenario *sc, const SimFabricConfig *fc, SimRouting routing,
            const SimTopologyMetrics *m)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "scenario");
  json_builder_add_string_value (b, sc->name ? sc->name : sc->path);
  json_builder_set_member_name (b, "topology");
  json_builder_add_string_value (b, sim_fabric_kind_to_string (fc->kind));
  json_builder_set_member_name (b, "routing");
  json_builder_add_string_value (b, sim_routing_to_string (routing));
  json_builder_set_member_name (b, "switch_model");
  if (fc->switch_model != NULL)
    json_builder_add_string_value (b, fc->switch_model);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "gpus");
  json_builder_add_int_value (b, m->gpus);
  json_builder_set_member_name (b, "nodes");
  json_builder_add_int_value (b, m->nodes);
  json_builder_set_member_name (b, "switches");
  json_builder_begin_object (b);
  for (guint t = 0; t < 4; t++)
    {
      json_builder_set_member_name (b, tier_names[t]);
      json_builder_add_int_value (b, m->switches[t]);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "nvswitches");
  json_builder_add_int_value (b, m->nvswitches);
  json_builder_set_member_name (b, "cables");
  json_builder_add_int_value (b, m->cables);
  json_builder_set_member_name (b, "transceivers");
  json_builder_add_int_value (b, m->transceivers);
  json_builder_set_member_name (b, "bisection_bandwidth_bytes_per_s");
  json_builder_add_double_value (b, m->bisection_bandwidth);
  json_builder_set_member_name (b, "bisection_bandwidth_per_gpu_bytes_per_s");
  json_builder_add_double_value (b, m->gpus >= 2 ? m->bisection_bandwidth / (m->gpus / 2) : 0);
  json_builder_set_member_name (b, "diameter_hops");
  json_builder_add_int_value (b, m->diameter);
  json_builder_set_member_name (b, "oversubscription");
  json_builder_begin_object (b);
  for (guint t = 1; t < 4; t++)
    {
      json_builder_set_member_name (b, tier_names[t]);
      if (m->oversubscription[t] > 0)
        json_builder_add_double_value (b, m->oversubscription[t]);
      else
        json_builder_add_null_value (b);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "components");
  json_builder_add_int_value (b, m->components);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
}

int
gpusim_cmd_topo (int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  g_autofree char *diagram = NULL;
  g_autofree char *format = NULL;
  gboolean json = FALSE, help = FALSE;
  GOptionEntry entries[] = {
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a scenario key, e.g. --set fabric.oversubscription=2:1", "SECTION.KEY=VALUE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON instead of text", NULL },
    { "diagram", 'd', 0, G_OPTION_ARG_FILENAME, &diagram,
      "Also draw the network into FILE (.dot, .svg, .png or .pdf)", "FILE" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "The diagram's format when FILE's extension does not say (dot, svg, png, pdf)", "FORMAT" },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("SCENARIO");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimCatalogue) catalogue = NULL;
  g_autoptr(SimCluster) cluster = NULL;
  g_autoptr(SimTopology) topology = NULL;
  SimTopologyMetrics m;

  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Builds the scenario's cluster and the network of its [fabric] section, and\n"
    "prints its switches, cables, transceivers, bisection bandwidth, diameter,\n"
    "oversubscription per tier and connected components.");
  g_option_context_set_description (ctx,
    "Examples:\n"
    "  gpusim topo scenarios/quickstart.ini\n"
    "  gpusim topo my.ini --set fabric.topology=fat-tree --set fabric.oversubscription=2:1\n"
    "  gpusim topo scenarios/fabric-oversubscription.ini --diagram network.svg\n");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return gpusim_usage_error (ctx, "%s", error->message);
  if (help)
    {
      g_autofree char *text = g_option_context_get_help (ctx, TRUE, NULL);
      g_print ("%s", text);
      return 0;
    }
  if (argc != 2)
    return gpusim_usage_error (ctx, "%s", argc < 2 ? "topo needs a SCENARIO file" : "too many arguments");

  sc = sim_scenario_load (argv[1], (const char * const *) sets, &error);
  if (sc == NULL)
    goto failed;
  catalogue = sim_catalogue_new_default ((const char * const *) sc->model_dirs, &error);
  if (catalogue == NULL)
    goto failed;
  cluster = sim_cluster_new_for_scenario (sc, catalogue, &error);
  if (cluster == NULL)
    goto failed;
  topology = sim_topology_new (cluster, catalogue, &sc->fabric, &error);
  if (topology == NULL)
    {
      sim__scenario_locate (sc, "fabric", NULL, &error);
      goto failed;
    }
  if (!sim_topology_get_metrics (topology, &m, &error))
    goto failed;
  if (diagram != NULL && !sim_topology_write_diagram (topology, cluster, diagram, format, &error))
    goto failed;
  if (json)
    print_json (sc, &sc->fabric, sim_topology_get_routing (topology), &m);
  else
    print_text (sc, cluster, &sc->fabric, sim_topology_get_routing (topology), &m);
  return fflush (stdout) == 0 ? 0 : 1;

failed:
  gpusim_print_error (error);
  return 1;
}
