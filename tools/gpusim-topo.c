/* gpusim-topo.c: `gpusim topo`, the figures of a scenario's network.
 *
 *   gpusim topo SCENARIO [--set SECTION.KEY=VALUE]... [--json] [--bom] [--cabling FILE.csv]
 *               [--diagram FILE [--expand] [--from-run DIR --color-by WHAT [--stat peak]]]
 *   gpusim topo --view node MODEL [--diagram FILE]
 *
 * Builds the cluster of the scenario's pools and the fabric of its
 * [fabric] section, and prints what it is made of (switches per tier,
 * NVSwitch chips, cables, transceivers) and what it can do (bisection
 * bandwidth, diameter, oversubscription per tier, connected components).
 * --bom adds the bill of materials (switches, cables by medium and length,
 * transceivers, NICs, with the catalogue's and [cost]'s prices) and
 * --cabling writes one CSV row per cable (docs/fabric.md).
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"
#include "scenario/sim-scenario-private.h"
#include "core/sim-read.h"
#include "core/sim-util.h"
#include "outputs/sim-run-outputs.h"
#include "fabric/sim-topology-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
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

/* "$1,234,567" (whole dollars), or "-" for no price. */
static char *
usd_text (double usd)
{
  char digits[48];
  GString *s;
  int n;

  if (!(usd > 0))
    return g_strdup ("-");
  s = g_string_new ("$");
  n = g_snprintf (digits, sizeof digits, "%.0f", usd);
  for (int i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (s, ',');
      g_string_append_c (s, digits[i]);
    }
  return g_string_free (s, FALSE);
}

/* The unit prices the cost model takes (power/sim-cost.c, price_fabric()):
 * the [fabric] switch model's price; [cost] cable_price, else the price of
 * the [fabric] link model (or the first pool's NIC link); [cost]
 * transceiver_price. */
static void
bom_prices (const SimScenario *sc, const SimCatalogue *catalogue, const SimCluster *cluster,
            SimBomPrices *p)
{
  const SimSwitchModel *sw = sc->fabric.switch_model != NULL
                               ? sim_catalogue_lookup_switch (catalogue, sc->fabric.switch_model)
                               : NULL;
  const SimLinkModel *link = sc->fabric.link_model != NULL
                               ? sim_catalogue_lookup_link (catalogue, sc->fabric.link_model)
                               : sim_cluster_get_n_pools (cluster) > 0
                                 ? sim_cluster_get_pool (cluster, 0)->model->nic_link : NULL;

  memset (p, 0, sizeof *p);
  p->switch_usd = sw != NULL ? sw->price_usd : 0;
  p->cable_usd = sc->cost.set_cable_price ? sc->cost.cable_price
                                          : link != NULL ? link->price_usd : 0;
  p->transceiver_usd = sc->cost.transceiver_price;
}

/* The priced lines' sum. */
static double
bom_total (GArray *bom)
{
  double total = 0;

  for (guint i = 0; i < bom->len; i++)
    {
      const SimBomLine *b = &g_array_index (bom, SimBomLine, i);
      total += b->count * b->unit_price_usd;
    }
  return total;
}

static void
print_bom (GArray *bom)
{
  g_autofree char *total = usd_text (bom_total (bom));

  printf ("\nbill of materials\n");
  printf ("  %-12s %7s  %-40s %12s %14s\n", "kind", "count", "item", "unit price", "total");
  for (guint i = 0; i < bom->len; i++)
    {
      const SimBomLine *b = &g_array_index (bom, SimBomLine, i);
      g_autofree char *unit = usd_text (b->unit_price_usd);
      g_autofree char *sum = usd_text (b->count * b->unit_price_usd);
      printf ("  %-12s %7u  %-40s %12s %14s\n", sim_bom_kind_to_string (b->kind), b->count,
              b->description, unit, sum);
    }
  printf ("  %-12s %7s  %-40s %12s %14s\n", "total", "", "priced lines (NICs come with their "
          "nodes)", "", total);
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

/* The structure of the network for other tools (docs/fabric.md, "The
 * JSON structure"): every device (vertex) and every link, the links
 * outside nodes with their cable as the cabling plan gives it. */
static void
add_structure (JsonBuilder *b, const SimTopology *t, const SimFabricConfig *fc)
{
  g_auto(GStrv) names = sim_topology_dup_device_names (t);
  g_autoptr(GArray) cables = sim_topology_get_cables (t, fc);
  static const char * const tiers[] = { "intra", "access", "aggregation", "core" };
  guint next = 0;

  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint v = 0; v < sim_topology_get_n_vertices (t); v++)
    {
      gint node = sim_topology_get_vertex_node (t, v);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_int_value (b, v);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, names[v]);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, sim_vertex_kind_to_string (
                                          sim_topology_get_vertex_kind (t, v)));
      json_builder_set_member_name (b, "node");
      if (node >= 0)
        json_builder_add_int_value (b, node);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "latency_ns");
      json_builder_add_int_value (b, sim_topology_get_vertex_latency (t, v));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "links");
  json_builder_begin_array (b);
  for (guint l = 0; l < sim_topology_get_n_links (t); l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      const SimCable *c = NULL;

      if (next < cables->len && g_array_index (cables, SimCable, next).link == l)
        c = &g_array_index (cables, SimCable, next++);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_int_value (b, l);
      json_builder_set_member_name (b, "a");
      json_builder_add_int_value (b, k->a);
      json_builder_set_member_name (b, "b");
      json_builder_add_int_value (b, k->b);
      json_builder_set_member_name (b, "tier");
      json_builder_add_string_value (b, tiers[k->tier]);
      json_builder_set_member_name (b, "bandwidth_bytes_per_s");
      if (isfinite (k->bandwidth))
        json_builder_add_double_value (b, k->bandwidth);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "efficiency");
      json_builder_add_double_value (b, k->efficiency);
      json_builder_set_member_name (b, "latency_ns");
      json_builder_add_int_value (b, k->latency);
      json_builder_set_member_name (b, "model");
      if (k->model != NULL)
        json_builder_add_string_value (b, k->model);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "cable");
      if (c == NULL)
        json_builder_add_null_value (b);
      else
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "a_port");
          json_builder_add_int_value (b, c->from_port);
          json_builder_set_member_name (b, "b_port");
          json_builder_add_int_value (b, c->to_port);
          json_builder_set_member_name (b, "medium");
          json_builder_add_string_value (b, c->optical ? "optical" : "copper");
          json_builder_set_member_name (b, "transceivers");
          json_builder_add_int_value (b, c->transceivers);
          json_builder_set_member_name (b, "length_m");
          if (c->length_m > 0)
            json_builder_add_double_value (b, c->length_m);
          else
            json_builder_add_null_value (b);
          json_builder_set_member_name (b, "length_class");
          json_builder_add_string_value (b, sim_cable_length_class (c->length_m));
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
print_json (const SimScenario *sc, const SimTopology *t, const SimFabricConfig *fc,
            SimRouting routing, const SimTopologyMetrics *m, const char * const *warnings,
            GArray *bom)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, "gpusim-topology/1");
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
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint i = 0; warnings[i] != NULL; i++)
    json_builder_add_string_value (b, warnings[i]);
  json_builder_end_array (b);
  if (bom != NULL)
    {
      json_builder_set_member_name (b, "bill_of_materials");
      json_builder_begin_array (b);
      for (guint i = 0; i < bom->len; i++)
        {
          const SimBomLine *l = &g_array_index (bom, SimBomLine, i);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "kind");
          json_builder_add_string_value (b, sim_bom_kind_to_string (l->kind));
          json_builder_set_member_name (b, "item");
          json_builder_add_string_value (b, l->description);
          json_builder_set_member_name (b, "count");
          json_builder_add_int_value (b, l->count);
          json_builder_set_member_name (b, "unit_price_usd");
          if (l->unit_price_usd > 0)
            json_builder_add_double_value (b, l->unit_price_usd);
          else
            json_builder_add_null_value (b);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "bill_of_materials_total_usd");
      json_builder_add_double_value (b, bom_total (bom));
    }
  add_structure (b, t, fc);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
}

/* Per node, the figure of a run's nodes.csv that --color-by names (mean or
 * peak), as a share of the top of its scale. */
static gboolean
read_heat (const char *run_dir, const char *color_by, gboolean peak, guint n_nodes,
           SimDiagramOptions *o, double **values, char **title, GError **error)
{
  g_autofree char *path = g_build_filename (run_dir, "nodes.csv", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) lines = NULL, header = NULL;
  const char *stat = peak ? "peak" : "mean";
  g_autofree char *column = NULL;
  gint col = -1, max_col = -1;
  guint rows = 0;

  if (!g_file_test (run_dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: no such run directory (expected the DIR "
                   "of `gpusim run SCENARIO -o DIR`)", run_dir);
      return FALSE;
    }
  text = sim__read_file (path, SIM_READ_TEXT, NULL, &local);
  if (text == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: is %s the output directory of a "
                   "finished run?", local->message, run_dir);
      return FALSE;
    }
  if (strcmp (color_by, "utilization") == 0)
    column = g_strdup_printf ("utilization_%s", stat);
  else if (strcmp (color_by, "power") == 0)
    column = g_strdup_printf ("power_%s_w", stat);
  else
    column = g_strdup_printf ("link_load_%s", stat);
  lines = g_strsplit (text, "\n", -1);
  header = g_strsplit (lines[0], ",", -1);
  for (guint i = 0; header[i] != NULL; i++)
    {
      if (strcmp (header[i], column) == 0)
        col = (gint) i;
      if (strcmp (header[i], "power_max_w") == 0)
        max_col = (gint) i;
    }
  if (col < 0 || max_col < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: no column %s or power_max_w", path,
                   column);
      return FALSE;
    }
  *values = g_new (double, MAX (n_nodes, 1));
  for (guint l = 1; lines[l] != NULL; l++)
    {
      g_auto(GStrv) f = NULL;
      double v, max = 1;
      if (lines[l][0] == '\0')
        continue;
      f = g_strsplit (lines[l], ",", -1);
      if (g_strv_length (f) != g_strv_length (header))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: %u fields, expected %u", path,
                       l + 1, g_strv_length (f), g_strv_length (header));
          return FALSE;
        }
      if (rows >= n_nodes)
        {
          rows++;
          continue;
        }
      if (f[col][0] == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "%s: the run has no %s figures (%s)",
                       path, color_by, strcmp (color_by, "power") == 0
                         ? "its scenario has no [power] section"
                         : "its scenario models no network traffic: its [fabric] section needs "
                           "communicating jobs");
          return FALSE;
        }
      v = g_ascii_strtod (f[col], NULL);
      if (strcmp (color_by, "power") == 0)
        {
          max = f[max_col][0] != '\0' ? g_ascii_strtod (f[max_col], NULL) : 0;
          if (max <= 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "%s:%u: the node model has no "
                           "rated maximum power to scale by", path, l + 1);
              return FALSE;
            }
        }
      (*values)[rows++] = v / max;
    }
  if (rows != n_nodes)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: %u nodes, but the scenario's "
                   "cluster has %u: was the run made from this scenario?", path, rows, n_nodes);
      return FALSE;
    }
  o->n_nodes = n_nodes;
  if (strcmp (color_by, "link-load") == 0)
    {
      o->heat = SIM_DIAGRAM_HEAT_LINKS;
      o->link_heat = *values;
      *title = g_strdup_printf ("load of node links, %s", peak ? "peak" : "time-averaged");
    }
  else
    {
      o->heat = SIM_DIAGRAM_HEAT_NODES;
      o->node_heat = *values;
      *title = strcmp (color_by, "power") == 0
        ? g_strdup_printf ("node power, %s, share of rated maximum",
                           peak ? "peak" : "time-averaged")
        : g_strdup_printf ("GPUs allocated, %s", peak ? "peak" : "time-averaged");
    }
  o->heat_title = *title;
  return TRUE;
}

typedef struct {
  const SimNodeModel *model;
} NodeArgs;

static gboolean
render_node_cb (gpointer user_data, const char *format, char **data, gsize *length,
                GError **error)
{
  NodeArgs *a = user_data;
  return sim_node_model_render (a->model, format, data, length, error);
}

/* `gpusim topo --view node MODEL`: the inside of a catalogue node. */
static int
node_view (const char *name, const char *diagram, const char *format)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) catalogue = sim_catalogue_new_default (NULL, &error);
  const SimNodeModel *m;
  NodeArgs a;

  if (catalogue == NULL)
    {
      gpusim_print_error (error);
      return 1;
    }
  m = sim_catalogue_lookup_node (catalogue, name);
  if (m == NULL)
    {
      g_autoptr(GPtrArray) nodes = sim_catalogue_get_nodes (catalogue);
      g_autoptr(GString) known = g_string_new (NULL);
      for (guint i = 0; i < nodes->len; i++)
        g_string_append_printf (known, "%s%s", i ? ", " : "",
                                ((const SimNodeModel *) nodes->pdata[i])->name);
      fprintf (stderr, "gpusim: unknown node model \"%s\" (known: %s; see `gpusim models`)\n",
               name, known->str);
      return 1;
    }
  printf ("node          %s\n", m->name);
  printf ("gpus          %u x %s\n", m->gpus, m->gpu != NULL ? m->gpu->name : m->gpu_name);
  printf ("scale-up      %s%s%s\n", m->intra_node != NULL ? m->intra_node : "pcie",
          m->nvswitches > 0 ? ", NVSwitch chips: " : "", m->nvswitches > 0 ? "yes" : "");
  printf ("nics          %u x %.0f Gb/s (%s)\n", m->nics, m->nic_bandwidth * 8 / 1e9,
          m->nic_type != NULL ? m->nic_type : "-");
  printf ("cpu           %s\n", m->cpu != NULL ? m->cpu : "-");
  if (diagram == NULL)
    return fflush (stdout) == 0 ? 0 : 1;
  a.model = m;
  if (!sim_diagram_write_data (diagram, format, render_node_cb, &a, &error))
    {
      gpusim_print_error (error);
      return 1;
    }
  return fflush (stdout) == 0 ? 0 : 1;
}

/* Whether the scenario file at @path has a [workload] section (a file
 * that cannot be read or parsed says no: loading it reports why). */
static gboolean
has_workload (const char *path)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();

  return sim__key_file_load_path (kf, path, NULL)
         && g_key_file_has_group (kf, "workload");
}

/* Loads the scenario for its hardware alone.  A topology needs no
 * workload, so a scenario without a [workload] section, or whose synthetic
 * workload never ends, is loaded with a stand-in of one job (the
 * workload plays no part in what topo prints or draws); every other error
 * is reported as it is, and so is what is still wrong with the stand-in
 * (another section's error, or a synthetic workload without its keys). */
static SimScenario *
load_for_topology (const char *path, char **sets, GError **error)
{
  g_autoptr(GError) first = NULL;
  g_autoptr(GPtrArray) more = NULL;
  SimScenario *sc = sim_scenario_load (path, (const char * const *) sets, &first);
  gboolean missing, endless;

  if (sc != NULL)
    return sc;
  missing = g_error_matches (first, SIM_ERROR, SIM_ERROR_MISSING) && !has_workload (path);
  endless = g_error_matches (first, SIM_ERROR, SIM_ERROR_MISSING)
            && strstr (first->message, "never ends") != NULL;
  if (missing || endless)
    {
      more = g_ptr_array_new ();
      for (guint i = 0; sets != NULL && sets[i] != NULL; i++)
        g_ptr_array_add (more, sets[i]);
      g_ptr_array_add (more, (gpointer) "workload.jobs=1");
      if (missing)
        {
          g_ptr_array_add (more, (gpointer) "workload.rate=1/h");
          g_ptr_array_add (more, (gpointer) "workload.gpus=1");
          g_ptr_array_add (more, (gpointer) "workload.duration=constant(1h)");
        }
      g_ptr_array_add (more, NULL);
      /* With the stand-in, what is left wrong is what to report. */
      return sim_scenario_load (path, (const char * const *) more->pdata, error);
    }
  g_propagate_error (error, g_steal_pointer (&first));
  return NULL;
}

int
gpusim_cmd_topo (int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  g_autofree char *diagram = NULL;
  g_autofree char *format = NULL;
  g_autofree char *view = NULL, *from_run = NULL, *color_by = NULL, *stat = NULL;
  g_autofree char *cabling = NULL;
  g_autoptr(GArray) bom = NULL;
  g_autofree double *heat = NULL;
  g_autofree char *heat_title = NULL;
  gboolean json = FALSE, help = FALSE, expand = FALSE, want_bom = FALSE;
  SimDiagramOptions options = { FALSE, SIM_DIAGRAM_HEAT_NONE, NULL, NULL, NULL, 0 };
  gint max_width = -1;
  GOptionEntry entries[] = {
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a scenario key, e.g. --set fabric.oversubscription=2:1", "SECTION.KEY=VALUE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "Print JSON instead of text: the figures, and every device and link (docs/fabric.md)",
      NULL },
    { "bom", 0, 0, G_OPTION_ARG_NONE, &want_bom,
      "Also print the bill of materials: switches, cables by medium and length, transceivers, "
      "NICs, with the catalogue's and [cost]'s prices", NULL },
    { "cabling", 0, 0, G_OPTION_ARG_FILENAME, &cabling,
      "Write the cabling plan to FILE.csv: one row per cable, from device/port to device/port, "
      "tier, speed, medium, length class, transceivers", "FILE.csv" },
    { "diagram", 'd', 0, G_OPTION_ARG_FILENAME, &diagram,
      "Also draw the network into FILE (.dot, .svg, .png or .pdf)", "FILE" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "The diagram's format when FILE's extension does not say (dot, svg, png, pdf)", "FORMAT" },
    { "expand", 0, 0, G_OPTION_ARG_NONE, &expand,
      "Draw every node and switch (no \"32 x DGX-H100\" boxes or bundles of rails)", NULL },
    { "max-width", 0, 0, G_OPTION_ARG_INT, &max_width,
      "With --diagram: the widest diagram to draw, in boxes or labels side by side (default "
      "200; 0: no limit)",
      "N" },
    { "view", 0, 0, G_OPTION_ARG_STRING, &view,
      "fabric (the default) or node: then the argument is a node MODEL of the catalogue, "
      "drawn inside", "fabric|node" },
    { "from-run", 0, 0, G_OPTION_ARG_FILENAME, &from_run,
      "Colour the diagram by what the run in DIR did (its nodes.csv)", "DIR" },
    { "color-by", 0, 0, G_OPTION_ARG_STRING, &color_by,
      "With --from-run: utilization (GPUs allocated), link-load (node links) or power "
      "(share of the node's rated maximum)", "WHAT" },
    { "stat", 0, 0, G_OPTION_ARG_STRING, &stat,
      "With --color-by: mean (time-averaged, the default) or peak", "mean|peak" },
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
    "  gpusim topo scenarios/fabric-rail-vs-fat-tree.ini --diagram rails.svg [--expand]\n"
    "  gpusim topo --view node DGX-H100 --diagram dgx.svg\n"
    "  gpusim topo scenarios/quickstart.ini --from-run out --color-by utilization -d heat.svg\n"
    "  gpusim topo my.ini --set fabric.topology=fat-tree --set fabric.oversubscription=2:1\n"
    "  gpusim topo scenarios/fabric-oversubscription.ini --diagram network.svg\n"
    "  gpusim topo scenarios/fabric-oversubscription.ini --bom --cabling cables.csv\n");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return gpusim_usage_error (ctx, "%s", error->message);
  if (gpusim_check_sets (ctx, sets) != 0)
    return 2;
  if (help)
    {
      g_autofree char *text = g_option_context_get_help (ctx, TRUE, NULL);
      g_print ("%s", text);
      return 0;
    }
  if (view != NULL && strcmp (view, "fabric") != 0 && strcmp (view, "node") != 0)
    return gpusim_usage_error (ctx, "--view %s: expected fabric or node", view);
  if (color_by != NULL && strcmp (color_by, "utilization") != 0 &&
      strcmp (color_by, "link-load") != 0 && strcmp (color_by, "power") != 0)
    return gpusim_usage_error (ctx, "--color-by %s: expected utilization, link-load or power",
                               color_by);
  if (stat != NULL && strcmp (stat, "mean") != 0 && strcmp (stat, "peak") != 0)
    return gpusim_usage_error (ctx, "--stat %s: expected mean or peak", stat);
  if ((color_by != NULL) != (from_run != NULL))
    return gpusim_usage_error (ctx, "%s", from_run != NULL ? "--from-run needs --color-by"
                                                            : "--color-by needs --from-run DIR");
  if (max_width < -1 || (max_width >= 0 && diagram == NULL))
    return gpusim_usage_error (ctx, "%s", diagram == NULL ? "--max-width needs --diagram FILE"
                                                          : "--max-width: expected 0 or more");
  if ((from_run != NULL || expand || format != NULL) && diagram == NULL)
    return gpusim_usage_error (ctx, "%s needs --diagram FILE",
                               from_run != NULL ? "--from-run" : expand ? "--expand" : "--format");
  if (stat != NULL && color_by == NULL)
    return gpusim_usage_error (ctx, "--stat needs --color-by");
  if (view != NULL && strcmp (view, "node") == 0)
    {
      if (argc != 2)
        return gpusim_usage_error (ctx, "%s", argc < 2 ? "--view node needs a node MODEL"
                                                       : "too many arguments");
      if (from_run != NULL)
        return gpusim_usage_error (ctx, "--from-run colours a fabric, not a node");
      if (want_bom || cabling != NULL)
        return gpusim_usage_error (ctx, "%s lists a fabric's parts, not a node's",
                                   want_bom ? "--bom" : "--cabling");
      return node_view (argv[1], diagram, format);
    }
  if (argc != 2)
    return gpusim_usage_error (ctx, "%s", argc < 2 ? "topo needs a SCENARIO file" : "too many arguments");

  sc = load_for_topology (argv[1], sets, &error);
  if (sc == NULL)
    goto failed;
  /* No output may overwrite the scenario, what it reads or the run coloured
   * from (or one output the other). */
  if (!sim__scenario_check_output (sc, "--cabling", cabling, NULL, &error) ||
      !sim__scenario_check_output (sc, "--diagram", diagram, NULL, &error) ||
      !sim__check_output ("--diagram", diagram, cabling, "the --cabling file", &error))
    goto failed;
  for (const char * const *n = sim__run_output_names (); from_run != NULL && *n != NULL; n++)
    {
      g_autofree char *input = g_build_filename (from_run, *n, NULL);
      g_autofree char *what = g_strdup_printf ("the --from-run run's %s being read", *n);

      if (!sim__check_output ("--cabling", cabling, input, what, &error) ||
          !sim__check_output ("--diagram", diagram, input, what, &error))
        goto failed;
    }
  if (!sim__scenario_check_models (sc, &error))
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
      sim__scenario_locate (sc, "fabric", sim__fabric_bad_model_key (&sc->fabric, catalogue),
                            &error);
      goto failed;
    }
  gpusim_print_topology_warnings (topology);
  if (!sim_topology_get_metrics (topology, &m, &error))
    goto failed;
  options.expand = expand;
  if (from_run != NULL &&
      !read_heat (from_run, color_by, g_strcmp0 (stat, "peak") == 0,
                  sim_cluster_get_n_nodes (cluster), &options, &heat, &heat_title, &error))
    goto failed;
  if (diagram != NULL)
    {
      guint limit = max_width >= 0 ? (guint) max_width : SIM_DIAGRAM_MAX_WIDTH, width = 0;
      if (!sim_topology_check_diagram_width (topology, cluster, &options, limit, &width, &error))
        {
          /* Name the file, and the option that raises the limit. */
          g_autoptr(GError) wide = error;
          error = NULL;
          g_set_error (&error, wide->domain, wide->code, "%s: %s%s", diagram, wide->message,
                       width > limit ? " (--max-width)" : "");
          goto failed;
        }
      if (!sim_topology_write_diagram (topology, cluster, &options, diagram, format, &error))
        goto failed;
    }
  if (cabling != NULL && !sim_topology_write_cabling (topology, &sc->fabric, cabling, &error))
    goto failed;
  if (want_bom)
    {
      SimBomPrices prices;
      bom_prices (sc, catalogue, cluster, &prices);
      bom = sim_topology_get_bom (topology, &sc->fabric, &prices);
    }
  if (json)
    print_json (sc, topology, &sc->fabric, sim_topology_get_routing (topology), &m,
                sim_topology_get_warnings (topology), bom);
  else
    {
      print_text (sc, cluster, &sc->fabric, sim_topology_get_routing (topology), &m);
      if (bom != NULL)
        print_bom (bom);
    }
  return fflush (stdout) == 0 ? 0 : 1;

failed:
  gpusim_print_error (error);
  return 1;
}
