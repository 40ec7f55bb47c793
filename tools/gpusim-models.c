/* gpusim-models.c: `gpusim models`, the hardware catalogue on the command line.
 *
 *   gpusim models [--path DIR]... [--json]            lists GPU, node, link, switch and cloud models
 *   gpusim models [--path DIR]... [--json] show NAME  prints one model
 */
#include "config.h"

#include "gpusim-cli.h"
#include "core/sim-error.h"
#include "cluster/sim-catalogue.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Formatting */

/* @v with four significant digits and the largest decimal prefix that keeps
 * it at 1 or more ("3.35 TB/s", "80 GB"); "-" for an unknown (zero) value. */
static char *
scaled (double v, const char *unit, gboolean kilo_only)
{
  static const char *prefixes[] = { "", "k", "M", "G", "T", "P" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  guint i = 0, last = kilo_only ? 1 : G_N_ELEMENTS (prefixes) - 1;

  if (v == 0)
    return g_strdup ("-");
  while (i < last && fabs (v) >= 1000)
    {
      v /= 1000;
      i++;
    }
  g_ascii_formatd (buf, sizeof buf, "%.4g", v);
  return g_strdup_printf ("%s %s%s", buf, prefixes[i], unit);
}

static char *
number (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (v == 0)
    return g_strdup ("-");
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

static char *
price (double usd)
{
  GString *s;
  char digits[32];
  int n;

  if (usd == 0)
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

/* A table of strings printed with aligned columns.  Columns whose flag in
 * @right is set are aligned to the right (numbers). */
typedef struct {
  guint       n_columns;
  const char *right;
  GPtrArray  *rows;  /* of GStrv */
} Table;

static void
table_add (Table *t, char **row)
{
  g_ptr_array_add (t->rows, row);
}

static void
table_print (const Table *t)
{
  g_autofree gsize *width = g_new0 (gsize, t->n_columns);

  for (guint r = 0; r < t->rows->len; r++)
    {
      char **row = t->rows->pdata[r];
      for (guint c = 0; c < t->n_columns; c++)
        width[c] = MAX (width[c], strlen (row[c]));
    }
  for (guint r = 0; r < t->rows->len; r++)
    {
      char **row = t->rows->pdata[r];
      g_autoptr(GString) line = g_string_new (NULL);

      for (guint c = 0; c < t->n_columns; c++)
        {
          gsize pad = width[c] - strlen (row[c]);
          gboolean right = t->right[c] == 'r' && r > 0;

          if (c > 0)
            g_string_append (line, "  ");
          if (right)
            for (gsize i = 0; i < pad; i++)
              g_string_append_c (line, ' ');
          g_string_append (line, row[c]);
          if (!right && c + 1 < t->n_columns)
            for (gsize i = 0; i < pad; i++)
              g_string_append_c (line, ' ');
        }
      g_print ("%s\n", line->str);
    }
}

static char *
latency_text (gint64 ns)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (ns == 0)
    return g_strdup ("-");
  if (ns < 1000)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  return g_strdup_printf ("%s us", g_ascii_formatd (buf, sizeof buf, "%.4g", ns / 1e3));
}

static void
print_network_tables (const SimCatalogue *catalogue)
{
  g_autoptr(GPtrArray) links = sim_catalogue_get_links (catalogue);
  g_autoptr(GPtrArray) switches = sim_catalogue_get_switches (catalogue);
  Table lt = { 7, "llrrrrl", g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev) };
  Table st = { 7, "llrrrrl", g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev) };

  table_add (&lt, g_strsplit ("LINK|KIND|BW/DIR|EFFICIENCY|LATENCY/HOP|PER MESSAGE|TRANSPORT",
                              "|", -1));
  for (guint i = 0; i < links->len; i++)
    {
      const SimLinkModel *l = links->pdata[i];
      char **row = g_new0 (char *, 8);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      row[0] = g_strdup (l->name);
      row[1] = g_strdup (l->kind);
      row[2] = scaled (l->bandwidth, "B/s", FALSE);
      row[3] = g_strdup (g_ascii_formatd (buf, sizeof buf, "%.4g", l->efficiency));
      row[4] = latency_text (l->latency_ns);
      row[5] = latency_text (l->transport_latency_ns);
      row[6] = g_strdup (l->transport ? l->transport : "-");
      table_add (&lt, row);
    }
  table_add (&st, g_strsplit ("SWITCH|KIND|PORTS|PORT BW|LATENCY|PRICE|IN-NETWORK REDUCTION",
                              "|", -1));
  for (guint i = 0; i < switches->len; i++)
    {
      const SimSwitchModel *w = switches->pdata[i];
      char **row = g_new0 (char *, 8);

      row[0] = g_strdup (w->name);
      row[1] = g_strdup (w->kind);
      row[2] = g_strdup_printf ("%u", w->radix);
      row[3] = scaled (w->port_bandwidth * 8, "b/s", FALSE);
      row[4] = latency_text (w->latency_ns);
      row[5] = price (w->price_usd);
      row[6] = g_strdup (w->in_network_reduction ? "yes" : "-");
      table_add (&st, row);
    }
  if (links->len > 0)
    {
      g_print ("\n");
      table_print (&lt);
    }
  if (switches->len > 0)
    {
      g_print ("\n");
      table_print (&st);
    }
  g_ptr_array_unref (lt.rows);
  g_ptr_array_unref (st.rows);
}

/* "$98.32", or "-" for an unknown (zero) price. */
static char *
hourly (double usd, guint divisor)
{
  if (usd == 0 || divisor == 0)
    return g_strdup ("-");
  return g_strdup_printf ("$%.2f", usd / divisor);
}

static void
print_cloud_table (const SimCatalogue *catalogue)
{
  g_autoptr(GPtrArray) clouds = sim_catalogue_get_clouds (catalogue);
  Table ct = { 8, "lllrrrrl", g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev) };

  table_add (&ct, g_strsplit ("CLOUD|PROVIDER|GPUS|ON DEMAND/H|PER GPU-H|RESERVED/H|PER GPU-H|"
                              "PRICE DATES", "|", -1));
  for (guint i = 0; i < clouds->len; i++)
    {
      const SimCloudModel *m = clouds->pdata[i];
      char **row = g_new0 (char *, 9);

      row[0] = g_strdup (m->name);
      row[1] = g_strdup_printf ("%s %s", m->provider, m->instance);
      row[2] = g_strdup_printf ("%u x %s", m->gpus, m->gpu_name ? m->gpu_name : "?");
      row[3] = hourly (m->on_demand_usd_per_hour, 1);
      row[4] = hourly (m->on_demand_usd_per_hour, m->gpus);
      row[5] = hourly (m->reserved_usd_per_hour, 1);
      row[6] = hourly (m->reserved_usd_per_hour, m->gpus);
      row[7] = g_strdup_printf ("%s / %s", m->on_demand_date ? m->on_demand_date : "-",
                                m->reserved_date ? m->reserved_date : "-");
      table_add (&ct, row);
    }
  if (clouds->len > 0)
    {
      g_print ("\n");
      table_print (&ct);
    }
  g_ptr_array_unref (ct.rows);
}

static void
print_cooling_table (const SimCatalogue *catalogue)
{
  g_autoptr(GPtrArray) coolings = sim_catalogue_get_coolings (catalogue);
  Table ct = { 6, "llrrrl", g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev) };

  table_add (&ct, g_strsplit ("COOLING|TYPE|LIQUID SHARE|CHILLER COP|PUE RANGE|DESCRIPTION",
                              "|", -1));
  for (guint i = 0; i < coolings->len; i++)
    {
      const SimCoolingModel *c = coolings->pdata[i];
      char **row = g_new0 (char *, 7);

      row[0] = g_strdup (c->name);
      row[1] = g_strdup (c->type);
      row[2] = g_strdup_printf ("%.0f %%", 100 * c->liquid_share);
      row[3] = g_strdup_printf ("%.3g", c->chiller_cop);
      row[4] = g_strdup_printf ("%.2f-%.2f", c->pue_low, c->pue_high);
      row[5] = g_strdup (c->description ? c->description : "-");
      table_add (&ct, row);
    }
  if (coolings->len > 0)
    {
      g_print ("\n");
      table_print (&ct);
    }
  g_ptr_array_unref (ct.rows);
}

static void
print_tables (const SimCatalogue *catalogue)
{
  g_autoptr(GPtrArray) gpus = sim_catalogue_get_gpus (catalogue);
  g_autoptr(GPtrArray) nodes = sim_catalogue_get_nodes (catalogue);
  Table gt = { 8, "llrrrrrl", g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev) };
  Table nt = { 6, "lllllr", g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev) };

  table_add (&gt, g_strsplit ("GPU|VENDOR|MEMORY|MEM BW|FP16 TFLOPS|FP8 TFLOPS|TDP|MIG", "|",
                              -1));
  for (guint i = 0; i < gpus->len; i++)
    {
      const SimGpuModel *g = gpus->pdata[i];
      char **row = g_new0 (char *, 9);

      row[0] = g_strdup (g->name);
      row[1] = g_strdup (g->vendor ? g->vendor : "-");
      row[2] = scaled ((double) g->memory_bytes, "B", FALSE);
      row[3] = scaled (g->memory_bandwidth, "B/s", FALSE);
      row[4] = number (g->fp16_tflops);
      row[5] = number (g->fp8_tflops);
      row[6] = g->tdp_w > 0 ? g_strdup_printf ("%.0f W", g->tdp_w) : g_strdup ("-");
      row[7] = g->mig_slices ? g_strdup_printf ("%u profiles", g->n_mig_profiles)
                             : g_strdup ("-");
      table_add (&gt, row);
    }

  table_add (&nt, g_strsplit ("NODE|GPUS|INTRA-NODE|NICS|MAX POWER|PRICE", "|", -1));
  for (guint i = 0; i < nodes->len; i++)
    {
      const SimNodeModel *n = nodes->pdata[i];
      char **row = g_new0 (char *, 7);
      g_autofree char *bw = scaled (n->nic_bandwidth * 8, "b/s", FALSE);

      row[0] = g_strdup (n->name);
      row[1] = g_strdup_printf ("%u x %s", n->gpus, n->gpu_name);
      if (n->nvswitches > 0)
        row[2] = g_strdup_printf ("%s (%u)", n->intra_node ? n->intra_node : "-",
                                  n->nvswitches);
      else
        row[2] = g_strdup (n->intra_node ? n->intra_node : "-");
      if (n->nics > 0)
        row[3] = g_strdup_printf ("%u x %s%s%s", n->nics, bw, n->nic_type ? " " : "",
                                  n->nic_type ? n->nic_type : "");
      else
        row[3] = g_strdup ("-");
      row[4] = scaled (n->max_power_w, "W", TRUE);
      row[5] = price (n->price_usd);
      table_add (&nt, row);
    }

  table_print (&gt);
  g_print ("\n");
  table_print (&nt);
  g_ptr_array_unref (gt.rows);
  g_ptr_array_unref (nt.rows);
  print_network_tables (catalogue);
  print_cooling_table (catalogue);
  print_cloud_table (catalogue);
}

/* ------------------------------------------------------------------------ */
/* JSON */

/* Adds @member: @v, or null when the value is unknown (zero). */
static void
add_double (JsonBuilder *b, const char *member, double v)
{
  json_builder_set_member_name (b, member);
  if (v == 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, v);
}

static void
add_int (JsonBuilder *b, const char *member, gint64 v)
{
  json_builder_set_member_name (b, member);
  json_builder_add_int_value (b, v);
}

static void
add_string (JsonBuilder *b, const char *member, const char *s)
{
  json_builder_set_member_name (b, member);
  if (s == NULL)
    json_builder_add_null_value (b);
  else
    json_builder_add_string_value (b, s);
}

static void
build_gpu (JsonBuilder *b, const SimGpuModel *g)
{
  json_builder_begin_object (b);
  add_string (b, "kind", "gpu");
  add_string (b, "name", g->name);
  add_string (b, "vendor", g->vendor);
  add_string (b, "description", g->description);
  add_string (b, "source_file", g->source_file);
  add_double (b, "fp16_tflops", g->fp16_tflops);
  add_double (b, "fp8_tflops", g->fp8_tflops);
  add_int (b, "memory_bytes", (gint64) g->memory_bytes);
  add_double (b, "memory_bandwidth_bytes_per_s", g->memory_bandwidth);
  add_double (b, "scaleup_bandwidth_bytes_per_s", g->scaleup_bandwidth);
  add_string (b, "scaleup_link", g->scaleup_link);
  add_double (b, "tdp_w", g->tdp_w);
  add_double (b, "idle_w", g->idle_w);
  add_double (b, "price_usd", g->price_usd);
  add_int (b, "mig_slices", g->mig_slices);
  json_builder_set_member_name (b, "mig_profiles");
  json_builder_begin_array (b);
  for (guint i = 0; i < g->n_mig_profiles; i++)
    {
      const SimMigProfile *p = &g->mig_profiles[i];
      json_builder_begin_object (b);
      add_string (b, "name", p->name);
      add_int (b, "compute_slices", p->compute_slices);
      add_int (b, "memory_slices", p->memory_slices);
      add_int (b, "memory_bytes", (gint64) p->memory_bytes);
      add_int (b, "max_instances", p->max_instances);
      json_builder_set_member_name (b, "placements");
      json_builder_begin_array (b);
      for (guint j = 0; j < p->n_placements; j++)
        json_builder_add_int_value (b, p->placements[j]);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
build_node (JsonBuilder *b, const SimNodeModel *n)
{
  json_builder_begin_object (b);
  add_string (b, "kind", "node");
  add_string (b, "name", n->name);
  add_string (b, "description", n->description);
  add_string (b, "source_file", n->source_file);
  add_string (b, "gpu", n->gpu_name);
  add_int (b, "gpus", n->gpus);
  add_string (b, "intra_node", n->intra_node);
  add_int (b, "nvswitches", n->nvswitches);
  add_int (b, "nics", n->nics);
  add_double (b, "nic_bandwidth_bytes_per_s", n->nic_bandwidth);
  add_string (b, "nic_type", n->nic_type);
  add_string (b, "cpu", n->cpu);
  if (n->cpu_cores > 0)
    add_int (b, "cpu_cores", n->cpu_cores);
  else
    add_double (b, "cpu_cores", 0);
  if (n->memory_bytes > 0)
    add_int (b, "memory_bytes", (gint64) n->memory_bytes);
  else
    add_double (b, "memory_bytes", 0);
  add_double (b, "base_power_w", n->base_power_w);
  add_double (b, "max_power_w", n->max_power_w);
  add_double (b, "price_usd", n->price_usd);
  add_string (b, "intra_link", n->intra_link_name);
  add_string (b, "nic_link", n->nic_link_name);
  add_string (b, "pcie_link", n->pcie_link_name);
  add_string (b, "nvswitch_model", n->nvswitch_name);
  json_builder_end_object (b);
}

static void
add_bool (JsonBuilder *b, const char *member, gboolean v)
{
  json_builder_set_member_name (b, member);
  json_builder_add_boolean_value (b, v);
}

static void
build_link (JsonBuilder *b, const SimLinkModel *l)
{
  json_builder_begin_object (b);
  add_string (b, "kind", "link");
  add_string (b, "name", l->name);
  add_string (b, "description", l->description);
  add_string (b, "source_file", l->source_file);
  add_string (b, "link_kind", l->kind);
  add_double (b, "bandwidth_bytes_per_s", l->bandwidth);
  add_double (b, "efficiency", l->efficiency);
  add_double (b, "latency_s", l->latency_ns / 1e9);
  add_double (b, "transport_latency_s", l->transport_latency_ns / 1e9);
  add_string (b, "transport", l->transport);
  add_int (b, "links_per_gpu", l->links_per_gpu);
  add_bool (b, "optical", l->optical);
  add_bool (b, "access_optical", l->access_optical);
  add_double (b, "price_usd", l->price_usd);
  json_builder_end_object (b);
}

static void
build_switch (JsonBuilder *b, const SimSwitchModel *w)
{
  json_builder_begin_object (b);
  add_string (b, "kind", "switch");
  add_string (b, "name", w->name);
  add_string (b, "description", w->description);
  add_string (b, "source_file", w->source_file);
  add_string (b, "switch_kind", w->kind);
  add_int (b, "radix", w->radix);
  add_double (b, "port_bandwidth_bytes_per_s", w->port_bandwidth);
  add_double (b, "latency_s", w->latency_ns / 1e9);
  add_double (b, "power_w", w->power_w);
  add_double (b, "price_usd", w->price_usd);
  add_bool (b, "in_network_reduction", w->in_network_reduction);
  json_builder_end_object (b);
}

static void
build_cloud (JsonBuilder *b, const SimCloudModel *m)
{
  json_builder_begin_object (b);
  add_string (b, "kind", "cloud");
  add_string (b, "name", m->name);
  add_string (b, "description", m->description);
  add_string (b, "source_file", m->source_file);
  add_string (b, "provider", m->provider);
  add_string (b, "instance", m->instance);
  add_string (b, "node", m->node_name);
  add_string (b, "gpu", m->gpu_name);
  add_int (b, "gpus", m->gpus);
  add_double (b, "on_demand_usd_per_hour", m->on_demand_usd_per_hour);
  add_string (b, "on_demand_source", m->on_demand_source);
  add_string (b, "on_demand_date", m->on_demand_date);
  add_double (b, "reserved_usd_per_hour", m->reserved_usd_per_hour);
  add_string (b, "reserved_terms", m->reserved_terms);
  add_string (b, "reserved_source", m->reserved_source);
  add_string (b, "reserved_date", m->reserved_date);
  json_builder_end_object (b);
}

static void
print_json (JsonBuilder *b)
{
  g_autoptr(JsonNode) root = json_builder_get_root (b);
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  g_print ("%s\n", text);
}

static void
print_list_json (const SimCatalogue *catalogue)
{
  g_autoptr(GPtrArray) gpus = sim_catalogue_get_gpus (catalogue);
  g_autoptr(GPtrArray) nodes = sim_catalogue_get_nodes (catalogue);
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "gpus");
  json_builder_begin_array (b);
  for (guint i = 0; i < gpus->len; i++)
    build_gpu (b, gpus->pdata[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "nodes");
  json_builder_begin_array (b);
  for (guint i = 0; i < nodes->len; i++)
    build_node (b, nodes->pdata[i]);
  json_builder_end_array (b);
  {
    g_autoptr(GPtrArray) links = sim_catalogue_get_links (catalogue);
    g_autoptr(GPtrArray) switches = sim_catalogue_get_switches (catalogue);

    json_builder_set_member_name (b, "links");
    json_builder_begin_array (b);
    for (guint i = 0; i < links->len; i++)
      build_link (b, links->pdata[i]);
    json_builder_end_array (b);
    json_builder_set_member_name (b, "switches");
    json_builder_begin_array (b);
    for (guint i = 0; i < switches->len; i++)
      build_switch (b, switches->pdata[i]);
    json_builder_end_array (b);
  }
  {
    g_autoptr(GPtrArray) clouds = sim_catalogue_get_clouds (catalogue);

    json_builder_set_member_name (b, "clouds");
    json_builder_begin_array (b);
    for (guint i = 0; i < clouds->len; i++)
      build_cloud (b, clouds->pdata[i]);
    json_builder_end_array (b);
  }
  json_builder_end_object (b);
  print_json (b);
}

/* ------------------------------------------------------------------------ */
/* The command */

int
gpusim_cmd_models (int argc, char **argv)
{
  gboolean json = FALSE, help = FALSE;
  g_auto(GStrv) paths = NULL;
  GOptionEntry entries[] = {
    { "path", 'p', 0, G_OPTION_ARG_FILENAME_ARRAY, &paths,
      "Also read models from DIR, after the default path (repeatable; later wins)", "DIR" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON instead of text", NULL },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("[show NAME]");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) catalogue = NULL;

  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Lists the GPU, node, link, switch and cloud instance models of the\n"
    "hardware catalogue, or shows one.\n"
    "\n"
    "The catalogue is read from the installed models directory, then from\n"
    "each directory in $GPUSIM_MODEL_PATH (colon-separated), then from each\n"
    "--path DIR; a model in a later directory replaces one of the same name.");
  g_option_context_set_description (ctx,
    "Examples:\n"
    "  gpusim models\n"
    "  gpusim models show H100-SXM\n"
    "  gpusim models show AWS-p5.48xlarge\n"
    "  gpusim models --path ./my-models --json\n");

  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return gpusim_usage_error (ctx, "%s", error->message);
  if (help)
    {
      g_autofree char *text = g_option_context_get_help (ctx, TRUE, NULL);
      g_print ("%s", text);
      return 0;
    }
  if (argc > 1 && strcmp (argv[1], "show") != 0 && strcmp (argv[1], "list") != 0)
    return gpusim_usage_error (ctx, "unknown action \"%s\": expected \"show NAME\" or nothing",
                        argv[1]);
  if (argc > 1 && strcmp (argv[1], "show") == 0 && argc != 3)
    return gpusim_usage_error (ctx, "\"show\" takes one model name");
  if (argc > 1 && strcmp (argv[1], "list") == 0 && argc != 2)
    return gpusim_usage_error (ctx, "\"list\" takes no arguments");

  catalogue = sim_catalogue_new_default ((const char * const *) paths, &error);
  if (catalogue == NULL)
    {
      gpusim_print_error (error);
      return 1;
    }

  if (argc == 3)
    {
      const char *name = argv[2];
      const SimGpuModel *gpu = sim_catalogue_lookup_gpu (catalogue, name);
      const SimNodeModel *node = sim_catalogue_lookup_node (catalogue, name);
      const SimLinkModel *link = sim_catalogue_lookup_link (catalogue, name);
      const SimSwitchModel *sw = sim_catalogue_lookup_switch (catalogue, name);
      const SimCloudModel *cloud = sim_catalogue_lookup_cloud (catalogue, name);

      if (json && (gpu != NULL || node != NULL || link != NULL || sw != NULL || cloud != NULL))
        {
          g_autoptr(JsonBuilder) b = json_builder_new ();
          if (gpu != NULL)
            build_gpu (b, gpu);
          else if (node != NULL)
            build_node (b, node);
          else if (link != NULL)
            build_link (b, link);
          else if (sw != NULL)
            build_switch (b, sw);
          else
            build_cloud (b, cloud);
          print_json (b);
        }
      else
        {
          g_autofree char *text = sim_catalogue_describe (catalogue, name, &error);
          if (text == NULL)
            {
              gpusim_print_error (error);
              return 1;
            }
          g_print ("%s", text);
        }
      return 0;
    }

  if (json)
    print_list_json (catalogue);
  else
    print_tables (catalogue);
  return 0;
}
