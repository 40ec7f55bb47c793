/* sim-html-report.c: the HTML report of a run (see sim-html-report.h). */
#include "config.h"

#include "report/sim-html-report.h"
#include "report/sim-diagram.h"
#include "report/sim-report.h"
#include "core/sim-units.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "core/sim-read.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SERIES_POINTS 2000
#define CDF_POINTS        500

/* ------------------------------------------------------------------------ */
/* CSV as runs write it: a header, then rows; fields may be quoted.          */

typedef struct {
  char      *path;
  GStrv      header;
  GPtrArray *rows;     /* GStrv each */
} Csv;

static void
csv_free (Csv *csv)
{
  if (csv == NULL)
    return;
  g_free (csv->path);
  g_strfreev (csv->header);
  g_ptr_array_unref (csv->rows);
  g_free (csv);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Csv, csv_free)

static GStrv
split_csv_line (const char *line)
{
  GPtrArray *fields = g_ptr_array_new ();
  GString *f = g_string_new (NULL);
  gboolean quoted = FALSE;

  for (const char *p = line;; p++)
    {
      if (quoted)
        {
          if (*p == '"' && p[1] == '"')
            {
              g_string_append_c (f, '"');
              p++;
            }
          else if (*p == '"')
            quoted = FALSE;
          else if (*p == '\0')
            break;
          else
            g_string_append_c (f, *p);
          continue;
        }
      if (*p == '"')
        quoted = TRUE;
      else if (*p == ',' || *p == '\0' || *p == '\r')
        {
          g_ptr_array_add (fields, g_strdup (f->str));
          g_string_truncate (f, 0);
          if (*p != ',')
            break;
        }
      else
        g_string_append_c (f, *p);
    }
  g_string_free (f, TRUE);
  g_ptr_array_add (fields, NULL);
  return (GStrv) g_ptr_array_free (fields, FALSE);
}

/* NULL without error when the file does not exist and !required. */
static Csv *
csv_read (const char *path, gboolean required, GError **error)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  Csv *csv;

  if (!g_file_test (path, G_FILE_TEST_EXISTS) && !required)
    return NULL;
  text = sim__read_file (path, SIM_READ_TEXT, NULL, error);
  if (text == NULL)
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  if (lines[0] == NULL || lines[0][0] == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: empty, expected a header line", path);
      return NULL;
    }
  csv = g_new0 (Csv, 1);
  csv->path = g_strdup (path);
  csv->header = split_csv_line (lines[0]);
  csv->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      GStrv row;
      if (lines[i][0] == '\0')
        continue;
      row = split_csv_line (lines[i]);
      if (g_strv_length (row) != g_strv_length (csv->header))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: %u fields, expected %u as in "
                       "the header", path, i + 1, g_strv_length (row),
                       g_strv_length (csv->header));
          g_strfreev (row);
          csv_free (csv);
          return NULL;
        }
      g_ptr_array_add (csv->rows, row);
    }
  return csv;
}

static gint
csv_column (const Csv *csv, const char *name)
{
  for (guint i = 0; csv->header[i] != NULL; i++)
    if (strcmp (csv->header[i], name) == 0)
      return (gint) i;
  return -1;
}

/* The column @name as numbers; empty fields are NaN. */
static GArray *
csv_numbers (const Csv *csv, const char *name, GError **error)
{
  gint c = csv_column (csv, name);
  GArray *v;

  if (c < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: no column \"%s\"", csv->path, name);
      return NULL;
    }
  v = g_array_sized_new (FALSE, FALSE, sizeof (double), csv->rows->len);
  for (guint r = 0; r < csv->rows->len; r++)
    {
      const char *s = ((GStrv) csv->rows->pdata[r])[c];
      char *end = NULL;
      double x = NAN;
      if (*s != '\0')
        {
          x = g_ascii_strtod (s, &end);
          if (end == s || *end != '\0')
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: column %s: \"%s\" is not "
                           "a number", csv->path, r + 2, name, s);
              g_array_unref (v);
              return NULL;
            }
        }
      g_array_append_val (v, x);
    }
  return v;
}

/* ------------------------------------------------------------------------ */
/* JSON and HTML output.                                                     */

static void
put_number (GString *s, double x)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (!isfinite (x))
    g_string_append (s, "null");
  else
    g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.6g", x));
}

static void
put_json_string (GString *s, const char *text)
{
  g_string_append_c (s, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      unsigned char c = (unsigned char) *p;
      if (c == '"' || c == '\\')
        g_string_append_printf (s, "\\%c", c);
      else if (c == '<')
        g_string_append (s, "\\u003c");   /* never "</script>" inside the data */
      else if (c < 0x20)
        g_string_append_printf (s, "\\u%04x", c);
      else
        g_string_append_c (s, (char) c);
    }
  g_string_append_c (s, '"');
}

static void
put_array (GString *s, const double *v, guint n)
{
  g_string_append_c (s, '[');
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (s, ',');
      put_number (s, v[i]);
    }
  g_string_append_c (s, ']');
}

static void
put_html (GString *s, const char *text)
{
  g_autofree char *e = g_markup_escape_text (text, -1);
  g_string_append (s, e);
}

/* A figure for the tables as the run's summary writes it
 * (sim_format_value(): durations, dollars, thousands, no exponent). */
static char *
format_metric (double v, const char *unit)
{
  if (!isfinite (v))
    return g_strdup ("-");
  return sim_format_value (v, unit);
}

/* ------------------------------------------------------------------------ */
/* The parts of the page.                                                    */

typedef struct {
  const char *dir;
  JsonObject *summary;
  JsonObject *metrics;
  GString    *html;
  GString    *data;      /* the JSON object the charts read */
  gboolean    first_member;
  guint       charts;    /* canvases on the page */
  gboolean    interruptions_series;  /* the time series counts interruptions */
  gboolean    failures;  /* the page has the Failures section */
} Page;

static void
data_member (Page *p, const char *name)
{
  if (!p->first_member)
    g_string_append (p->data, ",\n");
  p->first_member = FALSE;
  put_json_string (p->data, name);
  g_string_append (p->data, ": ");
}

static void
chart_box (Page *p, const char *id, const char *title, const char *what)
{
  g_string_append_printf (p->html, "<figure class=\"chart\"><figcaption>");
  put_html (p->html, title);
  g_string_append (p->html, "</figcaption><div class=\"canvas-box\"><canvas id=\"");
  put_html (p->html, id);
  g_string_append (p->html, "\" role=\"img\" aria-label=\"");
  put_html (p->html, title);
  g_string_append (p->html, "\"></canvas></div>");
  if (what != NULL)
    {
      g_string_append (p->html, "<p class=\"note\">");
      put_html (p->html, what);
      g_string_append (p->html, "</p>");
    }
  g_string_append (p->html, "</figure>\n");
  p->charts++;
}

static const char *
member_string (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;
  if (n == NULL || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static gboolean
metric (Page *p, const char *name, double *value, const char **unit)
{
  JsonNode *n = json_object_get_member (p->metrics, name);
  JsonObject *o;
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return FALSE;
  o = json_node_get_object (n);
  *value = json_object_has_member (o, "value") &&
           !json_node_is_null (json_object_get_member (o, "value"))
           ? json_object_get_double_member (o, "value") : NAN;
  *unit = member_string (o, "unit");
  return TRUE;
}

static void
section_scenario (Page *p)
{
  static const char *keys[][2] = {
    { "scenario", "scenario" }, { "seed", "seed" }, { "policy", "policy" },
    { "workload", "workload" }
  };
  JsonObject *cluster = json_object_has_member (p->summary, "cluster")
                        ? json_object_get_object_member (p->summary, "cluster") : NULL;

  g_string_append (p->html, "<section id=\"scenario\"><h2>Scenario</h2><table class=\"kv\">");
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      JsonNode *n = json_object_get_member (p->summary, keys[i][0]);
      g_autofree char *text = NULL;
      if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
        continue;
      if (json_node_get_value_type (n) == G_TYPE_STRING)
        text = g_strdup (json_node_get_string (n));
      else
        text = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (n));
      g_string_append_printf (p->html, "<tr><th>%s</th><td>", keys[i][1]);
      put_html (p->html, text);
      g_string_append (p->html, "</td></tr>");
      if (i == 1 && cluster != NULL)
        {
          const char *desc = member_string (cluster, "description");
          g_string_append (p->html, "<tr><th>cluster</th><td>");
          put_html (p->html, desc != NULL ? desc : "");
          g_string_append (p->html, "</td></tr>");
        }
    }
  g_string_append (p->html, "</table></section>\n");
}

static void
section_metrics (Page *p)
{
  static const char *key[][3] = {
    { "jobs_completed", "jobs completed", NULL },
    { "gpu_utilization", "GPUs allocated (time-averaged)", "%" },
    { "gpu_activity", "GPUs active (time-averaged)", "%" },
    { "wait_mean", "mean wait", NULL }, { "wait_p95", "95th percentile wait", NULL },
    { "jct_mean", "mean job completion time", NULL },
    { "jct_p95", "95th percentile job completion time", NULL },
    { "bounded_slowdown_mean", "mean bounded slowdown", "x" },
    { "queue_length_mean", "mean queue length", NULL },
    { "fragmentation", "fragmentation (free GPUs the head job cannot use)", "%" },
    { "preemptions", "preemptions", NULL }, { "makespan", "makespan", NULL },
    { "energy_facility_kwh", "facility energy", NULL }, { "pue", "PUE", "x" },
    { "cost_tco", "total cost of ownership", NULL },
    { "cost_per_gpu_hour", "cost per delivered GPU-hour", NULL },
    { "interruptions", "jobs interrupted by failures", NULL },
    { "lost_gpu_hours", "GPU-hours lost to failures (work redone)", NULL },
    { "checkpoint_gpu_hours", "GPU-hours writing checkpoints", NULL },
    { "ettr", "effective training time ratio (ETTR)", "%" },
  };
  GList *names = json_object_get_members (p->metrics);

  g_string_append (p->html, "<section id=\"metrics\"><h2>Key metrics</h2>"
                   "<table class=\"metrics key\"><thead><tr><th>metric</th><th>value</th></tr>"
                   "</thead><tbody>");
  for (guint i = 0; i < G_N_ELEMENTS (key); i++)
    {
      double v;
      const char *unit;
      g_autofree char *text = NULL;
      if (!metric (p, key[i][0], &v, &unit))
        continue;
      if (g_strcmp0 (key[i][2], "%") == 0 && isfinite (v))
        text = sim_format_value (v, "fraction");
      else if (g_strcmp0 (key[i][2], "x") == 0 && isfinite (v))
        text = sim_format_number (v);
      else
        text = format_metric (v, unit);
      g_string_append_printf (p->html, "<tr><td>%s</td><td class=\"num\">", key[i][1]);
      put_html (p->html, text);
      g_string_append (p->html, "</td></tr>");
    }
  g_string_append (p->html, "</tbody></table><details><summary>All metrics</summary>"
                   "<table class=\"metrics\"><thead><tr><th>metric</th><th>value</th>"
                   "<th>unit</th></tr></thead>");
  /* Every metric of the run, module by module as the text summary groups
   * them (sim_report_get_group()), in the order the groups first come. */
  {
    g_autoptr(GPtrArray) order = g_ptr_array_new ();

    for (GList *l = names; l != NULL; l = l->next)
      {
        const char *group = sim_report_get_group (l->data);
        if (!g_ptr_array_find_with_equal_func (order, group, g_str_equal, NULL))
          g_ptr_array_add (order, (gpointer) group);
      }
    for (guint g = 0; g < order->len; g++)
      {
        g_string_append (p->html, "<tbody><tr><th colspan=\"3\">");
        put_html (p->html, order->pdata[g]);
        g_string_append (p->html, "</th></tr>");
        for (GList *l = names; l != NULL; l = l->next)
          {
            double v;
            const char *unit;
            g_autofree char *text = NULL;
            char buf[G_ASCII_DTOSTR_BUF_SIZE];

            if (strcmp (sim_report_get_group (l->data), order->pdata[g]) != 0 ||
                !metric (p, l->data, &v, &unit))
              continue;
            text = format_metric (v, unit);
            g_string_append (p->html, "<tr><td>");
            put_html (p->html, l->data);
            g_string_append (p->html, "</td><td class=\"num\">");
            put_html (p->html, text);
            /* The exact value, for a reader who wants every digit. */
            g_string_append_printf (p->html, "</td><td title=\"%s\">",
                                    isfinite (v) ? g_ascii_formatd (buf, sizeof buf, "%.17g", v)
                                                 : "-");
            put_html (p->html, unit != NULL ? unit : "");
            g_string_append (p->html, "</td></tr>");
          }
        g_string_append (p->html, "</tbody>");
      }
  }
  g_string_append (p->html, "</table></details></section>\n");
  g_list_free (names);
}

static gboolean
section_topology (Page *p, GError **error)
{
  g_autofree char *path = g_build_filename (p->dir, "topology.dot", NULL);
  g_autofree char *dot = NULL, *svg = NULL;
  const char *start;
  gsize len;

  g_string_append (p->html, "<section id=\"topology\"><h2>Topology</h2>");
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_string_append (p->html, "<p class=\"note\">This run has no network diagram (its "
                       "scenario has no [fabric] section).</p></section>\n");
      return TRUE;
    }
  if ((dot = sim__read_file (path, SIM_READ_TEXT, NULL, error)) == NULL ||
      !sim_diagram_render_dot (dot, "svg", &svg, &len, error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  /* Inline SVG: from the <svg element on (no XML prolog or doctype). */
  start = strstr (svg, "<svg");
  /* At its own size, in a box that scrolls, with a zoom: squashed to the
   * page's width a fabric of thousands of GPUs cannot be read. */
  g_string_append (p->html, "<p class=\"note\">Nodes are coloured by the share of their GPUs "
                   "allocated, averaged over the run; repeated parts are drawn once with "
                   "their count.  The diagram is at its own size: scroll to move around it."
                   "</p><p class=\"note\"><label>Zoom <input type=\"range\" min=\"10\" "
                   "max=\"200\" value=\"100\" step=\"10\" oninput=\"var s=this.closest("
                   "'section').querySelector('svg');if(!s.dataset.w)s.dataset.w="
                   "parseFloat(s.getAttribute('width'));s.style.width=(s.dataset.w*this.value/"
                   "100)+'pt';s.style.height='auto';\"></label></p><div class=\"diagram\">");
  g_string_append (p->html, start != NULL ? start : svg);
  g_string_append (p->html, "</div></section>\n");
  return TRUE;
}

static gboolean
section_time (Page *p, guint gpus, GError **error)
{
  static const char *columns[] = {
    "time_s", "utilization", "activity", "queue_length_avg", "queued_jobs",
    "it_power_w", "facility_power_w", "pue", "interruptions"
  };
  g_autofree char *path = g_build_filename (p->dir, "timeseries.csv", NULL);
  g_autoptr(Csv) csv = NULL;
  GArray *col[G_N_ELEMENTS (columns)] = { NULL };
  guint n, points, step;
  gboolean power, interruptions;
  GError *local = NULL;

  g_string_append (p->html, "<section id=\"over-time\"><h2>Over time</h2>");
  csv = csv_read (path, FALSE, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (csv == NULL || csv->rows->len == 0)
    {
      g_string_append (p->html, "<p class=\"note\">This run wrote no time series "
                       "([output] timeseries = false).</p></section>\n");
      return TRUE;
    }
  power = csv_column (csv, "it_power_w") >= 0;
  interruptions = csv_column (csv, "interruptions") >= 0;
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    {
      if ((c >= 5 && c <= 7 && !power) || (c == 8 && !interruptions))
        continue;
      col[c] = csv_numbers (csv, columns[c], error);
      if (col[c] == NULL)
        {
          for (guint k = 0; k < c; k++)
            if (col[k] != NULL)
              g_array_unref (col[k]);
          return FALSE;
        }
    }
  /* Averaged into at most MAX_SERIES_POINTS intervals (the last time of
   * each), so a long run stays a small page. */
  n = csv->rows->len;
  step = (n + MAX_SERIES_POINTS - 1) / MAX_SERIES_POINTS;
  points = (n + step - 1) / step;
  data_member (p, "series");
  g_string_append (p->data, "{");
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    {
      g_autofree double *v = NULL;
      if (col[c] == NULL)
        continue;
      v = g_new (double, points);
      for (guint i = 0; i < points; i++)
        {
          double sum = 0;
          guint k = 0;
          for (guint r = i * step; r < MIN (n, (i + 1) * step); r++, k++)
            sum += g_array_index (col[c], double, r);
          if (c == 0)
            v[i] = g_array_index (col[c], double, MIN (n, (i + 1) * step) - 1) / 86400;
          else if (c == 1 || c == 2)
            v[i] = sum / k * gpus;      /* allocation and activity: shares of all GPUs, in GPUs */
          else if (c >= 5 && c <= 6)
            v[i] = sum / k / 1000;      /* W to kW */
          else if (c == 8)
            v[i] = sum;                 /* a count per interval: summed */
          else
            v[i] = sum / k;
        }
      if (c > 0)
        g_string_append (p->data, ",");
      put_json_string (p->data, columns[c]);
      g_string_append (p->data, ":");
      put_array (p->data, v, points);
    }
  g_string_append_printf (p->data, ",\"gpus\":%u}", gpus);
  p->interruptions_series = interruptions;
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    if (col[c] != NULL)
      g_array_unref (col[c]);

  chart_box (p, "chart-allocation", "GPUs allocated and active",
             "Allocated (shaded): GPUs held by jobs; active (line): GPUs kept busy computing; both "
             "averaged over each interval of the time series. The dashed line is the cluster's "
             "size.");
  chart_box (p, "chart-queue", "Queue length", "Jobs waiting, averaged over each interval.");
  if (power)
    {
      chart_box (p, "chart-power", "Power", "IT: the equipment; facility: IT plus cooling and "
                 "electrical losses.");
      chart_box (p, "chart-pue", "Power usage effectiveness (PUE)",
                 "Facility power over IT power; 1 is the ideal.");
    }
  g_string_append (p->html, "</section>\n");
  return TRUE;
}

static int
cmp_double (const void *pa, const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;
  return a < b ? -1 : a > b;
}

/* Quantiles of the finite values of @v, for a CDF: CDF_POINTS + 1 points
 * (the i-th is the value below which a share i / CDF_POINTS of jobs lie). */
static void
put_cdf (Page *p, const char *name, GArray *v)
{
  g_autoptr(GArray) x = g_array_new (FALSE, FALSE, sizeof (double));
  double q[CDF_POINTS + 1];

  for (guint i = 0; i < v->len; i++)
    if (isfinite (g_array_index (v, double, i)))
      g_array_append_val (x, g_array_index (v, double, i));
  data_member (p, name);
  if (x->len == 0)
    {
      g_string_append (p->data, "[]");
      return;
    }
  qsort (x->data, x->len, sizeof (double), cmp_double);
  for (guint i = 0; i <= CDF_POINTS; i++)
    q[i] = g_array_index (x, double, (guint) ((guint64) i * (x->len - 1) / CDF_POINTS));
  put_array (p->data, q, CDF_POINTS + 1);
}

/* With a [cost] section: where the money of the run goes, a bar per part
 * of the cost of owning (the hardware's amortized price, its maintenance,
 * the energy of the IT equipment and of cooling) and of what was rented
 * beside it (bursts into a cloud pool, serverless functions), and
 * cooling's share of the facility's energy and of the cost of owning. */
static void
section_cost (Page *p)
{
  static const char *parts[][2] = {
    { "cost_amortized_capex", "hardware (amortized)" },
    { "cost_maintenance", "maintenance" },
    { "cost_energy", "energy: IT equipment" },
    { "cost_cooling_energy", "energy: cooling" },
    { "burst_cost", "renting: burst nodes" },
    { "serverless_cost", "renting: serverless" },
  };
  double usd[G_N_ELEMENTS (parts)];
  gboolean have[G_N_ELEMENTS (parts)];
  double v, cooling_energy = 0, facility = 0, share;
  const char *unit;
  gboolean first = TRUE;

  if (!metric (p, "cost_tco", &v, &unit))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    have[i] = metric (p, parts[i][0], &usd[i], &unit) && isfinite (usd[i]);
  /* The IT equipment's energy is the energy less cooling's. */
  if (have[2] && have[3])
    usd[2] -= usd[3];
  g_string_append (p->html, "<section id=\"cost\"><h2>Cost</h2>\n");
  chart_box (p, "chart-cost", "Where the money goes over the run (USD)",
             "The cost of owning in its parts, and what was rented beside it.");
  g_string_append (p->html, "<p>");
  if (metric (p, "energy_cooling_kwh", &cooling_energy, &unit) &&
      metric (p, "energy_facility_kwh", &facility, &unit) && facility > 0)
    {
      g_autofree char *e = sim_format_value (cooling_energy / facility, "fraction");
      g_autofree char *kwh = sim_format_value (cooling_energy, "kWh");
      g_string_append_printf (p->html, "Cooling draws %s of the facility's energy (", e);
      put_html (p->html, kwh);
      g_string_append (p->html, ")");
      first = FALSE;
    }
  if (metric (p, "cost_cooling_share", &share, &unit) && isfinite (share))
    {
      g_autofree char *c = sim_format_value (share, "fraction");
      g_string_append_printf (p->html, "%s %s of the cost of owning", first ? "Cooling is" : " and is",
                              c);
      first = FALSE;
    }
  g_string_append (p->html, first ? "</p>" : ".</p>");
  g_string_append (p->html, "</section>\n");

  data_member (p, "cost");
  g_string_append (p->data, "{\"labels\":[");
  first = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    if (have[i])
      {
        if (!first)
          g_string_append_c (p->data, ',');
        put_json_string (p->data, parts[i][1]);
        first = FALSE;
      }
  g_string_append (p->data, "],\"usd\":[");
  first = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    if (have[i])
      {
        if (!first)
          g_string_append_c (p->data, ',');
        put_number (p->data, usd[i]);
        first = FALSE;
      }
  g_string_append (p->data, "]}");
}

/* With [serving NAME] sections (their serving.NAME.* metrics): each
 * deployment's latency, goodput, throughput, replicas and cost, a column
 * each, and its time to first token's percentiles as bars. */
static void
section_serving (Page *p)
{
  static const char *rows[][2] = {
    { "requests", "requests answered" }, { "requests_unfinished", "requests unfinished" },
    { "ttft_mean", "time to first token, mean" }, { "ttft_p50", "time to first token, p50" },
    { "ttft_p95", "time to first token, p95" }, { "ttft_p99", "time to first token, p99" },
    { "tpot_mean", "time per output token, mean" }, { "tpot_p99", "time per output token, p99" },
    { "e2e_mean", "end to end, mean" }, { "e2e_p99", "end to end, p99" },
    { "goodput", "goodput (both SLOs met)" }, { "slo_attainment", "requests meeting both SLOs" },
    { "output_tokens_per_second", "output tokens per second" },
    { "kv_cache_utilization", "KV cache in use" }, { "rerouted", "requests re-routed" },
    { "replicas_mean", "replicas, mean over the run" }, { "replicas_peak", "replicas, most" },
    { "scale_ups", "scale-ups" }, { "scale_downs", "scale-downs" },
    { "gpu_hours", "GPU-hours" }, { "gpu_hours_cloud", "GPU-hours on the cloud pool" },
    { "kwh_per_million_tokens", "energy per million tokens" }, { "usd", "cost over the run" },
    { "usd_per_million_tokens_owned", "cost per million tokens, owned" },
    { "usd_per_million_tokens_cloud", "cost per million tokens, rented" },
  };
  static const char *ttft[] = { "ttft_p50", "ttft_p95", "ttft_p99" };
  GList *names = json_object_get_members (p->metrics);
  g_autoptr(GPtrArray) deps = g_ptr_array_new_with_free_func (g_free);

  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *n = l->data;
      if (g_str_has_prefix (n, "serving.") && g_str_has_suffix (n, ".ttft_mean")
          && strlen (n) > strlen ("serving..ttft_mean"))
        g_ptr_array_add (deps, g_strndup (n + strlen ("serving."),
                                          strlen (n) - strlen ("serving..ttft_mean")));
    }
  g_list_free (names);
  if (deps->len == 0)
    return;
  g_string_append (p->html, "<section id=\"serving\"><h2>Serving</h2>\n"
                   "<table class=\"metrics\"><thead><tr><th>deployment</th>");
  for (guint d = 0; d < deps->len; d++)
    {
      g_string_append (p->html, "<th>");
      put_html (p->html, deps->pdata[d]);
      g_string_append (p->html, "</th>");
    }
  g_string_append (p->html, "</tr></thead><tbody>");
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GString) cells = g_string_new (NULL);
      gboolean any = FALSE;

      for (guint d = 0; d < deps->len; d++)
        {
          g_autofree char *name = g_strdup_printf ("serving.%s.%s",
                                                   (const char *) deps->pdata[d], rows[i][0]);
          g_autofree char *text = NULL;
          const char *unit;
          double v;

          g_string_append (cells, "<td class=\"num\">");
          if (metric (p, name, &v, &unit))
            {
              text = format_metric (v, unit);
              put_html (cells, text);
              any = TRUE;
            }
          g_string_append (cells, "</td>");
        }
      if (any)
        g_string_append_printf (p->html, "<tr><td>%s</td>%s</tr>", rows[i][1], cells->str);
    }
  g_string_append (p->html, "</tbody></table>\n");
  chart_box (p, "chart-serving", "Time to first token (ms)",
             "The 50th, 95th and 99th percentiles of each deployment's time to first token.");
  g_string_append (p->html, "</section>\n");

  data_member (p, "serving");
  g_string_append (p->data, "{\"deployments\":[");
  for (guint d = 0; d < deps->len; d++)
    {
      if (d > 0)
        g_string_append_c (p->data, ',');
      put_json_string (p->data, deps->pdata[d]);
    }
  g_string_append (p->data, "]");
  for (guint k = 0; k < G_N_ELEMENTS (ttft); k++)
    {
      g_string_append_printf (p->data, ",\"%s\":[", ttft[k]);
      for (guint d = 0; d < deps->len; d++)
        {
          g_autofree char *name = g_strdup_printf ("serving.%s.%s",
                                                   (const char *) deps->pdata[d], ttft[k]);
          const char *unit;
          double v = NAN;
          if (d > 0)
            g_string_append_c (p->data, ',');
          metric (p, name, &v, &unit);
          put_number (p->data, v * 1000);
        }
      g_string_append (p->data, "]");
    }
  g_string_append (p->data, "}");
}

/* With a [failures] section (its metrics in the summary): what failed,
 * whom it interrupted, what it cost. */
static void
section_failures (Page *p)
{
  static const char *types[] = {
    "gpu", "hbm", "nvswitch", "nic", "cable", "node", "software", "leaf", "spine", "core"
  };
  static const char *key[][2] = {
    { "failures", "failures" }, { "interruptions", "jobs interrupted" },
    { "migrations", "jobs migrated off a drained node" },
    { "lost_gpu_hours", "GPU-hours lost (work redone)" },
    { "checkpoint_gpu_hours", "GPU-hours writing checkpoints" },
    { "restart_gpu_hours", "GPU-hours restarting" },
    { "checkpoint_interval_s", "checkpoint interval (mean over jobs)" },
    { "ettr", "effective training time ratio (ETTR)" },
    { "spares_used", "hot spares swapped in" },
  };
  double failures[G_N_ELEMENTS (types)], interrupted[G_N_ELEMENTS (types)];
  gboolean any = FALSE, first = TRUE;
  double v;
  const char *unit;

  if (!metric (p, "failures", &v, &unit))
    return;
  p->failures = TRUE;
  g_string_append (p->html, "<section id=\"failures\"><h2>Failures</h2>"
                   "<table class=\"metrics key\"><thead><tr><th>metric</th><th>value</th></tr>"
                   "</thead><tbody>");
  for (guint i = 0; i < G_N_ELEMENTS (key); i++)
    {
      g_autofree char *text = NULL;
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      if (!metric (p, key[i][0], &v, &unit))
        continue;
      if (g_strcmp0 (key[i][0], "ettr") == 0 && isfinite (v))
        text = g_strdup_printf ("%s %%", g_ascii_formatd (buf, sizeof buf, "%.4g", 100 * v));
      else
        text = format_metric (v, g_strcmp0 (unit, "count") == 0 ? NULL : unit);
      g_string_append_printf (p->html, "<tr><td>%s</td><td class=\"num\">", key[i][1]);
      put_html (p->html, text);
      g_string_append (p->html, "</td></tr>");
    }
  g_string_append (p->html, "</tbody></table>\n<p class=\"note\">By component type; "
                   "availability is the share of the type's component-time up.</p>"
                   "<table class=\"metrics\"><thead><tr><th>component</th><th>failures</th><th>jobs interrupted</th>"
                   "<th>availability</th></tr></thead><tbody>");
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      g_autofree char *fn = g_strdup_printf ("failures_%s", types[t]);
      g_autofree char *in = g_strdup_printf ("interruptions_%s", types[t]);
      g_autofree char *an = g_strdup_printf ("availability_%s", types[t]);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      double a;
      failures[t] = metric (p, fn, &v, &unit) && isfinite (v) ? v : 0;
      interrupted[t] = metric (p, in, &v, &unit) && isfinite (v) ? v : 0;
      any = any || failures[t] > 0 || interrupted[t] > 0;
      if (!metric (p, an, &a, &unit))
        continue;
      g_string_append_printf (p->html, "<tr><td>%s</td><td class=\"num\">%.0f</td>"
                              "<td class=\"num\">%.0f</td><td class=\"num\">%s %%</td></tr>",
                              types[t], failures[t], interrupted[t],
                              isfinite (a) ? g_ascii_formatd (buf, sizeof buf, "%.6g", 100 * a)
                                           : "-");
    }
  g_string_append (p->html, "</tbody></table>\n");
  /* The chart: the types that failed, in report order. */
  data_member (p, "failures");
  g_string_append (p->data, "{\"types\":[");
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    if (!any || failures[t] > 0 || interrupted[t] > 0)
      {
        if (!first)
          g_string_append_c (p->data, ',');
        first = FALSE;
        put_json_string (p->data, types[t]);
      }
  for (guint k = 0; k < 2; k++)
    {
      const double *x = k == 0 ? failures : interrupted;
      g_string_append (p->data, k == 0 ? "],\"failures\":[" : "],\"interruptions\":[");
      first = TRUE;
      for (guint t = 0; t < G_N_ELEMENTS (types); t++)
        if (!any || failures[t] > 0 || interrupted[t] > 0)
          {
            if (!first)
              g_string_append_c (p->data, ',');
            first = FALSE;
            put_number (p->data, x[t]);
          }
    }
  g_string_append (p->data, "]}");
  chart_box (p, "chart-failure-causes", "Failures and interruptions by cause",
             "Failures of each component type, and the jobs they interrupted (a failure may "
             "interrupt several jobs, or none).");
  if (p->interruptions_series)
    chart_box (p, "chart-interruptions", "Interruptions over time",
               "Jobs interrupted by failures since the start of the run.");
  g_string_append (p->html, "</section>\n");
}

static gboolean
section_distributions (Page *p, GError **error)
{
  g_autofree char *path = g_build_filename (p->dir, "jobs.csv", NULL);
  g_autoptr(Csv) csv = NULL;
  g_autoptr(GArray) jct = NULL, wait = NULL;
  GError *local = NULL;

  g_string_append (p->html, "<section id=\"distributions\"><h2>Job completion time and "
                   "wait</h2>");
  csv = csv_read (path, FALSE, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (csv == NULL || csv->rows->len == 0)
    {
      g_string_append (p->html, "<p class=\"note\">This run wrote no per-job rows "
                       "([output] jobs = false, or no job finished).</p></section>\n");
      return TRUE;
    }
  jct = csv_numbers (csv, "jct_s", error);
  if (jct == NULL)
    return FALSE;
  wait = csv_numbers (csv, "wait_s", error);
  if (wait == NULL)
    return FALSE;
  put_cdf (p, "jct", jct);
  put_cdf (p, "wait", wait);
  data_member (p, "finished_jobs");
  g_string_append_printf (p->data, "%u", csv->rows->len);
  chart_box (p, "chart-jct", "Job completion time, cumulative distribution",
             "Share of finished jobs that completed within a time (submission to end), on a "
             "logarithmic time axis.");
  chart_box (p, "chart-wait", "Wait, cumulative distribution",
             "Share of finished jobs that waited at most a time in the queue; jobs that did not "
             "wait are at the left edge.");
  g_string_append (p->html, "</section>\n");
  return TRUE;
}

typedef struct {
  char  *policy;
  double mean, lo, hi;
} PolicyFigure;

static gboolean
section_compare (Page *p, const char *path, GError **error)
{
  g_autoptr(Csv) csv = csv_read (path, TRUE, error);
  gint c_metric, c_unit, c_policy, c_stat, c_value;
  g_autoptr(GPtrArray) metrics = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) units = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) policies = g_ptr_array_new_with_free_func (g_free);

  if (csv == NULL)
    return FALSE;
  c_metric = csv_column (csv, "metric");
  c_unit = csv_column (csv, "unit");
  c_policy = csv_column (csv, "policy");
  c_stat = csv_column (csv, "statistic");
  c_value = csv_column (csv, "value");
  if (c_metric < 0 || c_unit < 0 || c_policy < 0 || c_stat < 0 || c_value < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: expected the columns metric, unit, "
                   "policy, statistic and value of `gpusim compare --csv`", path);
      return FALSE;
    }
  for (guint r = 0; r < csv->rows->len; r++)
    {
      GStrv row = csv->rows->pdata[r];
      gboolean seen = FALSE;
      for (guint i = 0; i < metrics->len && !seen; i++)
        seen = strcmp (metrics->pdata[i], row[c_metric]) == 0;
      if (!seen)
        {
          g_ptr_array_add (metrics, g_strdup (row[c_metric]));
          g_ptr_array_add (units, g_strdup (row[c_unit]));
        }
      seen = FALSE;
      for (guint i = 0; i < policies->len && !seen; i++)
        seen = strcmp (policies->pdata[i], row[c_policy]) == 0;
      if (!seen)
        g_ptr_array_add (policies, g_strdup (row[c_policy]));
    }
  g_string_append (p->html, "<section id=\"policies\"><h2>Policies compared</h2>"
                   "<p class=\"note\">Each bar is a policy's mean over the seeds; the whisker "
                   "is its confidence interval (from <code>gpusim compare</code>).</p>");
  data_member (p, "compare");
  g_string_append (p->data, "{\"policies\":[");
  for (guint i = 0; i < policies->len; i++)
    {
      if (i > 0)
        g_string_append_c (p->data, ',');
      put_json_string (p->data, policies->pdata[i]);
    }
  g_string_append (p->data, "],\"metrics\":[");
  for (guint m = 0; m < metrics->len; m++)
    {
      g_autofree double *mean = g_new (double, policies->len);
      g_autofree double *lo = g_new (double, policies->len);
      g_autofree double *hi = g_new (double, policies->len);
      g_autofree char *id = g_strdup_printf ("chart-compare-%u", m);
      g_autofree char *title = g_strdup_printf ("%s (%s)", (char *) metrics->pdata[m],
                                                (char *) units->pdata[m]);
      for (guint i = 0; i < policies->len; i++)
        mean[i] = lo[i] = hi[i] = NAN;
      for (guint r = 0; r < csv->rows->len; r++)
        {
          GStrv row = csv->rows->pdata[r];
          guint i = 0;
          double x;
          char *end = NULL;
          if (strcmp (row[c_metric], metrics->pdata[m]) != 0)
            continue;
          while (strcmp (policies->pdata[i], row[c_policy]) != 0)
            i++;
          x = g_ascii_strtod (row[c_value], &end);
          if (end == row[c_value])
            continue;
          if (strcmp (row[c_stat], "mean") == 0)
            mean[i] = x;
          else if (strcmp (row[c_stat], "ci_low") == 0)
            lo[i] = x;
          else if (strcmp (row[c_stat], "ci_high") == 0)
            hi[i] = x;
        }
      if (m > 0)
        g_string_append_c (p->data, ',');
      g_string_append (p->data, "{\"name\":");
      put_json_string (p->data, metrics->pdata[m]);
      g_string_append (p->data, ",\"unit\":");
      put_json_string (p->data, units->pdata[m]);
      g_string_append (p->data, ",\"mean\":");
      put_array (p->data, mean, policies->len);
      g_string_append (p->data, ",\"low\":");
      put_array (p->data, lo, policies->len);
      g_string_append (p->data, ",\"high\":");
      put_array (p->data, hi, policies->len);
      g_string_append (p->data, "}");
      chart_box (p, id, title, NULL);
    }
  g_string_append (p->data, "]}");
  g_string_append (p->html, "</section>\n");
  return TRUE;
}

static const char page_style[] =
  "body{font-family:Helvetica,Arial,sans-serif;margin:0 auto;max-width:1100px;padding:0 24px 48px;"
  "color:#222}\n"
  "h1{font-size:26px;margin:24px 0 4px}h2{font-size:19px;border-bottom:1px solid #ddd;"
  "padding-bottom:4px;margin-top:32px}\n"
  "table{border-collapse:collapse;font-size:14px}td,th{padding:4px 10px;text-align:left;"
  "border-bottom:1px solid #eee}\n"
  "td.num{text-align:right;font-variant-numeric:tabular-nums}table.kv th{color:#555;"
  "font-weight:normal}\n"
  ".chart{margin:16px 0 28px}.chart figcaption{font-weight:bold;margin-bottom:6px}\n"
  ".canvas-box{position:relative;height:300px}.note{color:#555;font-size:13px}\n"
  ".diagram{overflow:auto;max-height:80vh;border:1px solid #eee;padding:8px}"
  ".diagram svg{max-width:none;height:auto}\n"
  "details{margin-top:12px}.subtitle{color:#555;margin:0}\n";

/* The charts of the Failures section, run after the page's script (only
 * on pages that have the section, so that others keep their bytes). */
static const char failures_script[] =
  "(function(){\n"
  "const D=JSON.parse(document.getElementById('report-data').textContent);\n"
  "const C=['#4c72b0','#c44e52'];\n"
  "const F=D.failures,el=document.getElementById('chart-failure-causes');\n"
  "if(F&&el)new Chart(el,{type:'bar',data:{labels:F.types,datasets:[{label:'failures',"
  "data:F.failures,backgroundColor:C[1]},{label:'jobs interrupted',data:F.interruptions,"
  "backgroundColor:C[0]}]},\n"
  " options:{scales:{x:{title:{display:true,text:'component type'}},y:{beginAtZero:true,"
  "ticks:{precision:0},title:{display:true,text:'count'}}}}});\n"
  "const S=D.series,ei=document.getElementById('chart-interruptions');\n"
  "if(S&&S.interruptions&&ei){const p=[];let n=0;\n"
  " for(let i=0;i<S.time_s.length;i++){n+=S.interruptions[i]||0;p.push({x:S.time_s[i],y:n});}\n"
  " new Chart(ei,{type:'line',data:{datasets:[{label:'jobs interrupted so far',data:p,"
  "stepped:true,borderColor:C[1],backgroundColor:C[1],pointRadius:0,borderWidth:1.5}]},\n"
  "  options:{parsing:false,normalized:true,interaction:{mode:'nearest',intersect:false},"
  "scales:{x:{type:'linear',title:{display:true,text:'simulated time (days)'}},"
  "y:{beginAtZero:true,ticks:{precision:0},title:{display:true,text:'jobs interrupted'}}}}});}\n"
  "})();\n";

/* The page's script: every chart from the data object.  Axes carry units;
 * no animation, so the page is drawn once, the same every time. */
static const char page_script[] =
  "(function(){\n"
  "const D=JSON.parse(document.getElementById('report-data').textContent);\n"
  "Chart.defaults.animation=false;Chart.defaults.font.family='Helvetica, Arial, sans-serif';\n"
  "Chart.defaults.maintainAspectRatio=false;\n"
  "const C=['#4c72b0','#dd8452','#55a868','#c44e52','#8172b3','#937860','#da8bc3','#8c8c8c'];\n"
  "function xy(x,y){const p=[];for(let i=0;i<x.length;i++)if(y[i]!==null)p.push({x:x[i],y:y[i]});"
  "return p;}\n"
  "function line(id,sets,ytitle,opts){const el=document.getElementById(id);if(!el)return;\n"
  " new Chart(el,{type:'line',data:{datasets:sets.map((s,i)=>Object.assign({borderColor:C[i],"
  "backgroundColor:C[i],pointRadius:0,borderWidth:1.5,tension:0,order:sets.length-i},s))},\n"
  " options:Object.assign({parsing:false,normalized:true,interaction:{mode:'nearest',"
  "intersect:false},\n"
  "  scales:{x:{type:'linear',title:{display:true,text:'simulated time (days)'}},"
  "y:{beginAtZero:true,title:{display:true,text:ytitle}}}},opts||{})});}\n"
  "function dur(v){const a=Math.abs(v);if(a>=86400)return +(v/86400).toPrecision(3)+' d';"
  "if(a>=3600)return +(v/3600).toPrecision(3)+' h';if(a>=60)return +(v/60).toPrecision(3)+' min';"
  "return +v.toPrecision(3)+' s';}\n"
  "if(D.series){const S=D.series,t=S.time_s;\n"
  " line('chart-allocation',[{label:'allocated GPUs',data:xy(t,S.utilization),fill:'origin',"
  "borderWidth:0,backgroundColor:'rgba(76,114,176,0.35)'},"
  "{label:'active GPUs',data:xy(t,S.activity)},{label:'GPUs in the cluster',"
  "data:[{x:t[0],y:S.gpus},{x:t[t.length-1],y:S.gpus}],borderDash:[6,4],borderColor:'#888',"
  "backgroundColor:'#888'}],'GPUs');\n"
  " line('chart-queue',[{label:'jobs waiting (interval mean)',data:xy(t,S.queue_length_avg)}],"
  "'jobs');\n"
  " if(S.it_power_w){line('chart-power',[{label:'IT power',data:xy(t,S.it_power_w)},"
  "{label:'facility power',data:xy(t,S.facility_power_w)}],'power (kW)');\n"
  "  line('chart-pue',[{label:'PUE',data:xy(t,S.pue)}],'PUE (facility / IT)',"
  "{scales:{x:{type:'linear',title:{display:true,text:'simulated time (days)'}},"
  "y:{beginAtZero:false,title:{display:true,text:'PUE (facility / IT)'}}}});}}\n"
  "function cdf(id,q,label){if(!q||!q.length)return;const n=q.length-1,pts=[];\n"
  " for(let i=0;i<=n;i++)pts.push({x:Math.max(q[i],1),y:100*i/n});\n"
  " line(id,[{label:label,data:pts,stepped:true}],'share of finished jobs (%)',"
  "{scales:{x:{type:'logarithmic',title:{display:true,text:'time (log scale; 1 s and less at the "
  "left edge)'},afterBuildTicks:(a)=>{a.ticks=[1,10,60,600,3600,36000,86400,864000,8640000]"
  ".filter(v=>v>=a.min&&v<=a.max).map(v=>({value:v}));},ticks:{callback:(v)=>dur(v)}},\n"
  "y:{min:0,max:100,title:{display:true,text:'share of finished jobs (%)'}}}});}\n"
  "cdf('chart-jct',D.jct,'job completion time');cdf('chart-wait',D.wait,'wait');\n"
  "const whiskers={id:'whiskers',afterDatasetsDraw(ch){const m=ch.getDatasetMeta(0),"
  "d=ch.data.datasets[0],y=ch.scales.y,c=ch.ctx;\n"
  " c.save();c.strokeStyle='#222';c.lineWidth=1.5;m.data.forEach((b,i)=>{const lo=d.low[i],"
  "hi=d.high[i];if(lo===null||hi===null)return;\n"
  "  const a=y.getPixelForValue(lo),z=y.getPixelForValue(hi);c.beginPath();c.moveTo(b.x,a);"
  "c.lineTo(b.x,z);c.moveTo(b.x-6,a);c.lineTo(b.x+6,a);\n"
  "  c.moveTo(b.x-6,z);c.lineTo(b.x+6,z);c.stroke();});c.restore();}};\n"
  "if(D.compare)D.compare.metrics.forEach((m,k)=>{const el=document.getElementById("
  "'chart-compare-'+k);if(!el)return;\n"
  " const lo=Math.min(0,...m.low.filter(v=>v!==null)),hi=Math.max(0,...m.high.filter("
  "v=>v!==null),...m.mean.filter(v=>v!==null));\n"
  " new Chart(el,{type:'bar',plugins:[whiskers],data:{labels:D.compare.policies,datasets:[{"
  "label:m.name+' (mean)',data:m.mean,low:m.low,high:m.high,\n"
  "  backgroundColor:D.compare.policies.map((p,i)=>C[i%C.length])}]},options:{plugins:{legend:"
  "{display:false}},\n"
  "  scales:{x:{title:{display:true,text:'policy'}},y:{min:lo,max:hi+(hi-lo)*0.05,title:{"
  "display:true,text:m.name+' ('+m.unit+')'}}}}});});\n"
  "if(D.cost){const el=document.getElementById('chart-cost');if(el)new Chart(el,{type:'bar',"
  "data:{labels:D.cost.labels,datasets:[{label:'USD',data:D.cost.usd,\n"
  " backgroundColor:D.cost.labels.map((l,i)=>C[i%C.length])}]},options:{indexAxis:'y',"
  "plugins:{legend:{display:false},tooltip:{callbacks:{label:(c)=>'$'+Math.round(c.parsed.x)"
  ".toLocaleString('en-US')}}},\n"
  " scales:{x:{beginAtZero:true,title:{display:true,text:'USD over the run'},ticks:{callback:"
  "(v)=>'$'+Number(v).toLocaleString('en-US')}}}}});}\n"
  "if(D.serving){const el=document.getElementById('chart-serving'),S=D.serving;if(el)"
  "new Chart(el,{type:'bar',data:{labels:S.deployments,datasets:[\n"
  " {label:'p50',data:S.ttft_p50,backgroundColor:C[0]},{label:'p95',data:S.ttft_p95,"
  "backgroundColor:C[1]},{label:'p99',data:S.ttft_p99,backgroundColor:C[3]}]},\n"
  " options:{scales:{x:{title:{display:true,text:'deployment'}},y:{beginAtZero:true,"
  "title:{display:true,text:'time to first token (ms)'}}}}});}\n"
  "})();\n";

/* Chart.js's text, from GPUSIM_CHARTJS or SIM_CHARTJS_PATH. */
static char *
read_chartjs (GError **error)
{
  const char *path = g_getenv ("GPUSIM_CHARTJS");
  char *text = NULL;

  if (path == NULL || *path == '\0')
    path = SIM_CHARTJS_PATH;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot read Chart.js at %s, which reports "
                   "inline to draw their charts (install Debian's libjs-chart.js, or set "
                   "GPUSIM_CHARTJS to chart.umd.js)", path);
      return NULL;
    }
  return text;
}

char *
sim_html_report_render (const char *run_dir, const char *compare_csv, GError **error)
{
  g_autofree char *summary_path = NULL, *summary_text = NULL, *chartjs = NULL;
  g_autofree char *default_compare = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GString) body = g_string_new (NULL);
  g_autoptr(GString) data = g_string_new ("{");
  JsonNode *root;
  JsonObject *cluster;
  Page p = { 0 };
  GString *out;
  guint gpus = 0;
  const char *scenario;

  g_return_val_if_fail (run_dir != NULL, NULL);
  if (!g_file_test (run_dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: no such run directory (expected the "
                   "DIR of `gpusim run SCENARIO -o DIR`)", run_dir);
      return NULL;
    }
  summary_path = g_build_filename (run_dir, "summary.json", NULL);
  summary_text = sim__read_file (summary_path, SIM_READ_JSON, NULL, NULL);
  if (summary_text == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: cannot read it: is %s the output "
                   "directory of a finished run?", summary_path, run_dir);
      return NULL;
    }
  if (!sim__read_parse_json (parser, summary_text, -1, summary_path, error))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      !json_object_has_member (json_node_get_object (root), "metrics"))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: expected a run's summary, an object "
                   "with \"metrics\"", summary_path);
      return NULL;
    }
  chartjs = read_chartjs (error);
  if (chartjs == NULL)
    return NULL;

  p.dir = run_dir;
  p.summary = json_node_get_object (root);
  p.metrics = json_object_get_object_member (p.summary, "metrics");
  p.html = body;
  p.data = data;
  p.first_member = TRUE;
  cluster = json_object_has_member (p.summary, "cluster")
            ? json_object_get_object_member (p.summary, "cluster") : NULL;
  if (cluster != NULL && json_object_has_member (cluster, "gpus"))
    gpus = (guint) json_object_get_int_member (cluster, "gpus");

  section_scenario (&p);
  section_metrics (&p);
  if (!section_topology (&p, error) || !section_time (&p, gpus, error))
    return NULL;
  section_failures (&p);
  section_serving (&p);
  section_cost (&p);
  if (!section_distributions (&p, error))
    return NULL;
  if (compare_csv == NULL)
    {
      default_compare = g_build_filename (run_dir, "compare.csv", NULL);
      if (g_file_test (default_compare, G_FILE_TEST_EXISTS))
        compare_csv = default_compare;
    }
  if (compare_csv != NULL && !section_compare (&p, compare_csv, error))
    return NULL;
  g_string_append (data, "}");

  scenario = member_string (p.summary, "scenario");
  out = g_string_sized_new (body->len + data->len + strlen (chartjs) + 8192);
  g_string_append (out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"generator\" content=\"gpusim report\">\n<title>");
  put_html (out, scenario != NULL ? scenario : "run");
  g_string_append (out, " - gpusim report</title>\n<style>\n");
  g_string_append (out, page_style);
  g_string_append (out, "</style>\n</head>\n<body>\n<h1>");
  put_html (out, scenario != NULL ? scenario : "run");
  g_string_append (out, "</h1>\n<p class=\"subtitle\">gpusim report");
  {
    const char *policy = member_string (p.summary, "policy");
    if (policy != NULL)
      {
        g_string_append (out, ": policy ");
        put_html (out, policy);
      }
  }
  g_string_append_printf (out, " (%u charts)</p>\n", p.charts);
  g_string_append_len (out, body->str, (gssize) body->len);
  g_string_append (out, "<script type=\"application/json\" id=\"report-data\">\n");
  g_string_append_len (out, data->str, (gssize) data->len);
  g_string_append (out, "\n</script>\n<script>\n/* Chart.js, inlined (MIT licence; "
                   "https://www.chartjs.org) */\n");
  g_string_append (out, chartjs);
  g_string_append (out, "\n</script>\n<script>\n");
  g_string_append (out, page_script);
  if (p.failures)
    {
      g_string_append (out, "</script>\n<script>\n");
      g_string_append (out, failures_script);
    }
  g_string_append (out, "</script>\n</body>\n</html>\n");
  return g_string_free (out, FALSE);
}

gboolean
sim_html_report_write (const char *run_dir, const char *compare_csv, const char *path,
                       GError **error)
{
  g_autofree char *html = NULL;

  g_return_val_if_fail (run_dir != NULL && path != NULL, FALSE);
  html = sim_html_report_render (run_dir, compare_csv, error);
  if (html == NULL)
    return FALSE;
  return sim__write_file_atomic (path, html, -1, error);
}

/* ------------------------------------------------------------------------ */
/* The report of a sweep, from its summary (sim_sweep_to_json()).            */

typedef struct {
  const char *name;
  const char *unit;       /* NULL without one */
} SweepMetric;

typedef struct {
  guint       n_keys;
  guint      *keys;       /* indices into the axes */
  GPtrArray  *tuples;     /* char*: the keys' values, distinct, in order of appearance */
  GHashTable *index;      /* tuple -> its index + 1 */
  guint      *coord;      /* per point: its tuple's index */
} SweepDim;

typedef struct {
  const char  *source;
  GPtrArray   *axes;      /* const char*: the keys */
  GArray      *metrics;   /* SweepMetric: those of the report */
  guint        n_points;
  GPtrArray   *labels;    /* const char* per point */
  GPtrArray   *values;    /* const char** per point: one per axis key */
  gint64      *done;      /* runs done per point */
  double      *mean, *low, *high;  /* [point * metrics + m] */
  GArray      *dims;      /* SweepDim */
  gint64       first_seed, n_seeds;
  double       level;
  const char  *scenario;
} Sweep;

static void
sweep_clear (Sweep *w)
{
  if (w->dims != NULL)
    for (guint d = 0; d < w->dims->len; d++)
      {
        SweepDim *dim = &g_array_index (w->dims, SweepDim, d);
        g_free (dim->keys);
        g_ptr_array_unref (dim->tuples);
        g_hash_table_unref (dim->index);
        g_free (dim->coord);
      }
  g_clear_pointer (&w->dims, g_array_unref);
  g_clear_pointer (&w->axes, g_ptr_array_unref);
  g_clear_pointer (&w->metrics, g_array_unref);
  g_clear_pointer (&w->labels, g_ptr_array_unref);
  g_clear_pointer (&w->values, g_ptr_array_unref);
  g_clear_pointer (&w->done, g_free);
  g_clear_pointer (&w->mean, g_free);
  g_clear_pointer (&w->low, g_free);
  g_clear_pointer (&w->high, g_free);
}

static gboolean
sweep_bad (const Sweep *w, GError **error, const char *what)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: %s (expected the summary of `gpusim "
               "sweep --format json`)", w->source, what);
  return FALSE;
}

/* A member that is a number, NaN when null or absent. */
static double
member_number (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return NAN;
  switch (json_node_get_value_type (n))
    {
    case G_TYPE_DOUBLE:
    case G_TYPE_INT64:
      return json_node_get_double (n);
    default:
      return NAN;
    }
}

static JsonArray *
member_array (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static JsonObject *
element_object (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);
  return JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static const char *
element_string (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static gint
find_string (GPtrArray *a, const char *s)
{
  for (guint i = 0; i < a->len; i++)
    if (strcmp (a->pdata[i], s) == 0)
      return (gint) i;
  return -1;
}

/* The metrics of the report: @wanted (each one the summary has) or all. */
static gboolean
sweep_read_metrics (Sweep *w, JsonArray *list, const char * const *wanted, GError **error)
{
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (SweepMetric));

  for (guint m = 0; m < json_array_get_length (list); m++)
    {
      JsonObject *o = element_object (list, m);
      SweepMetric metric;
      if (o == NULL || member_string (o, "name") == NULL)
        return sweep_bad (w, error, "\"metrics\" has an entry without a \"name\"");
      metric.name = member_string (o, "name");
      metric.unit = member_string (o, "unit");
      g_array_append_val (all, metric);
    }
  w->metrics = g_array_new (FALSE, FALSE, sizeof (SweepMetric));
  if (wanted == NULL || wanted[0] == NULL)
    {
      g_array_append_vals (w->metrics, all->data, all->len);
      return TRUE;
    }
  for (guint i = 0; wanted[i] != NULL; i++)
    {
      guint m = 0;
      while (m < all->len && strcmp (g_array_index (all, SweepMetric, m).name, wanted[i]) != 0)
        m++;
      if (m == all->len)
        {
          g_autoptr(GString) names = g_string_new (NULL);
          for (guint k = 0; k < all->len; k++)
            g_string_append_printf (names, "%s%s", k > 0 ? ", " : "",
                                    g_array_index (all, SweepMetric, k).name);
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: unknown metric \"%s\": the "
                       "sweep summarised %s", w->source, wanted[i],
                       all->len > 0 ? names->str : "no metric");
          return FALSE;
        }
      g_array_append_val (w->metrics, g_array_index (all, SweepMetric, m));
    }
  return TRUE;
}

/* The grid's dimensions: "grid" (keys zipped together form one), or, in a
 * summary without it, one per key. */
static gboolean
sweep_read_grid (Sweep *w, JsonObject *root, GError **error)
{
  JsonArray *grid = member_array (root, "grid");
  guint n = grid != NULL ? json_array_get_length (grid) : w->axes->len;

  w->dims = g_array_new (FALSE, TRUE, sizeof (SweepDim));
  for (guint d = 0; d < n; d++)
    {
      SweepDim dim = { 0 };
      JsonNode *node = grid != NULL ? json_array_get_element (grid, d) : NULL;
      JsonArray *keys = node != NULL && JSON_NODE_HOLDS_ARRAY (node)
                        ? json_node_get_array (node) : NULL;
      if (grid != NULL && (keys == NULL || json_array_get_length (keys) == 0))
        return sweep_bad (w, error, "\"grid\" has an entry that is not a list of keys");
      dim.n_keys = keys != NULL ? json_array_get_length (keys) : 1;
      dim.keys = g_new (guint, dim.n_keys);
      dim.tuples = g_ptr_array_new_with_free_func (g_free);
      dim.index = g_hash_table_new (g_str_hash, g_str_equal);
      dim.coord = g_new0 (guint, MAX (w->n_points, 1));
      g_array_append_val (w->dims, dim);
      for (guint k = 0; k < dim.n_keys; k++)
        {
          const char *key = keys != NULL ? element_string (keys, k) : w->axes->pdata[d];
          gint a = key != NULL ? find_string (w->axes, key) : -1;
          if (a < 0)
            return sweep_bad (w, error, "\"grid\" names a key that is not in \"axes\"");
          dim.keys[k] = (guint) a;
        }
    }
  for (guint d = 0; d < w->dims->len; d++)
    {
      SweepDim *dim = &g_array_index (w->dims, SweepDim, d);
      for (guint p = 0; p < w->n_points; p++)
        {
          const char **v = w->values->pdata[p];
          g_autoptr(GString) t = g_string_new (v[dim->keys[0]]);
          gpointer at;
          for (guint k = 1; k < dim->n_keys; k++)
            {
              g_string_append_c (t, '\x1f');
              g_string_append (t, v[dim->keys[k]]);
            }
          at = g_hash_table_lookup (dim->index, t->str);
          if (at == NULL)
            {
              g_ptr_array_add (dim->tuples, g_strdup (t->str));
              at = GUINT_TO_POINTER (dim->tuples->len);
              g_hash_table_insert (dim->index, g_ptr_array_index (dim->tuples,
                                                                  dim->tuples->len - 1), at);
            }
          dim->coord[p] = GPOINTER_TO_UINT (at) - 1;
        }
    }
  return TRUE;
}

static gboolean
sweep_read (Sweep *w, const char *json, const char * const *wanted, JsonParser *parser,
            GError **error)
{
  JsonNode *node;
  JsonObject *root, *seeds;
  JsonArray *axes, *metrics, *points;
  guint n_metrics;

  if (!sim__read_parse_json (parser, json, -1, w->source, error))
    return FALSE;
  node = json_parser_get_root (parser);
  root = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  axes = root != NULL ? member_array (root, "axes") : NULL;
  metrics = root != NULL ? member_array (root, "metrics") : NULL;
  points = root != NULL ? member_array (root, "points") : NULL;
  if (axes == NULL || metrics == NULL || points == NULL)
    return sweep_bad (w, error, "not an object with \"axes\", \"metrics\" and \"points\"");
  w->scenario = member_string (root, "scenario");
  w->level = member_number (root, "level");
  seeds = json_object_has_member (root, "seeds") &&
          JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "seeds"))
          ? json_object_get_object_member (root, "seeds") : NULL;
  w->first_seed = seeds != NULL && isfinite (member_number (seeds, "first"))
                  ? (gint64) member_number (seeds, "first") : -1;
  w->n_seeds = seeds != NULL && isfinite (member_number (seeds, "count"))
               ? (gint64) member_number (seeds, "count") : -1;

  w->axes = g_ptr_array_new ();
  for (guint k = 0; k < json_array_get_length (axes); k++)
    {
      const char *key = element_string (axes, k);
      if (key == NULL)
        return sweep_bad (w, error, "\"axes\" has an entry that is not a key");
      g_ptr_array_add (w->axes, (gpointer) key);
    }
  if (!sweep_read_metrics (w, metrics, wanted, error))
    return FALSE;

  n_metrics = w->metrics->len;
  w->n_points = json_array_get_length (points);
  w->labels = g_ptr_array_new ();
  w->values = g_ptr_array_new_with_free_func (g_free);
  w->done = g_new0 (gint64, MAX (w->n_points, 1));
  w->mean = g_new (double, MAX (w->n_points * n_metrics, 1));
  w->low = g_new (double, MAX (w->n_points * n_metrics, 1));
  w->high = g_new (double, MAX (w->n_points * n_metrics, 1));
  for (guint p = 0; p < w->n_points; p++)
    {
      JsonObject *point = element_object (points, p);
      JsonObject *values, *figures;
      const char **v;
      if (point == NULL || !json_object_has_member (point, "values") ||
          !JSON_NODE_HOLDS_OBJECT (json_object_get_member (point, "values")) ||
          !json_object_has_member (point, "metrics") ||
          !JSON_NODE_HOLDS_OBJECT (json_object_get_member (point, "metrics")))
        {
          g_autofree char *what = g_strdup_printf ("point %u has no \"values\" or no "
                                                   "\"metrics\"", p);
          return sweep_bad (w, error, what);
        }
      values = json_object_get_object_member (point, "values");
      figures = json_object_get_object_member (point, "metrics");
      v = g_new0 (const char *, MAX (w->axes->len, 1));
      g_ptr_array_add (w->values, v);
      for (guint k = 0; k < w->axes->len; k++)
        {
          v[k] = member_string (values, w->axes->pdata[k]);
          if (v[k] == NULL)
            {
              g_autofree char *what = g_strdup_printf ("point %u has no value for %s", p,
                                                       (char *) w->axes->pdata[k]);
              return sweep_bad (w, error, what);
            }
        }
      g_ptr_array_add (w->labels, (gpointer) (member_string (point, "label") != NULL
                                              ? member_string (point, "label") : ""));
      w->done[p] = isfinite (member_number (point, "runs_done"))
                   ? (gint64) member_number (point, "runs_done") : 0;
      for (guint m = 0; m < n_metrics; m++)
        {
          const char *name = g_array_index (w->metrics, SweepMetric, m).name;
          JsonNode *f = json_object_get_member (figures, name);
          JsonObject *o = f != NULL && JSON_NODE_HOLDS_OBJECT (f) ? json_node_get_object (f)
                                                                   : NULL;
          if (o == NULL)
            {
              g_autofree char *what = g_strdup_printf ("point %u has no figures for the "
                                                       "metric %s", p, name);
              return sweep_bad (w, error, what);
            }
          w->mean[p * n_metrics + m] = member_number (o, "mean");
          w->low[p * n_metrics + m] = member_number (o, "low");
          w->high[p * n_metrics + m] = member_number (o, "high");
        }
    }
  return sweep_read_grid (w, root, error);
}

/* Numbers exactly as parsed (17 digits), so the page's data equal the
 * summary's. */
static void
put_exact (GString *s, double x)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (!isfinite (x))
    g_string_append (s, "null");
  else
    g_string_append (s, g_ascii_dtostr (buf, sizeof buf, x));
}

/* A dimension's values as text: "8" or, zipped, "2/h, 0.6". */
static char *
dim_value (const SweepDim *dim, guint tuple)
{
  g_auto(GStrv) parts = g_strsplit (dim->tuples->pdata[tuple], "\x1f", -1);
  return g_strjoinv (", ", parts);
}

/* The x axis: the first dimension's first key, as numbers when all its
 * values are numbers with the same unit ("2/h", "3/h") or durations
 * ("12h", "1d": seconds, *unit "s"), else in order. */
static gboolean
sweep_x_numeric (const SweepDim *dim, double *x, char **unit)
{
  gboolean durations = dim->tuples->len > 0;

  for (guint i = 0; i < dim->tuples->len && durations; i++)
    {
      g_autofree char *first = g_strndup (dim->tuples->pdata[i],
                                          strcspn (dim->tuples->pdata[i], "\x1f"));
      SimTime t = 0;
      durations = sim_parse_duration (first, &t, NULL);
      x[i] = sim_time_to_seconds (t);
    }
  if (durations)
    {
      *unit = g_strdup ("s");
      return TRUE;
    }
  g_clear_pointer (unit, g_free);
  for (guint i = 0; i < dim->tuples->len; i++)
    {
      g_autofree char *first = g_strndup (dim->tuples->pdata[i],
                                          strcspn (dim->tuples->pdata[i], "\x1f"));
      g_autofree char *t = g_strstrip (g_strdup (first));
      char *end = NULL;
      x[i] = g_ascii_strtod (t, &end);
      if (end == t || !isfinite (x[i]))
        return FALSE;
      g_strstrip (end);
      if (i == 0)
        *unit = g_strdup (end);
      else if (strcmp (*unit, end) != 0)
        return FALSE;
    }
  return TRUE;
}

static void
sweep_section_scenario (const Sweep *w, GString *html)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  gint64 runs = 0;

  g_string_append (html, "<section id=\"sweep\"><h2>Sweep</h2><table class=\"kv\">"
                   "<tr><th>scenario</th><td>");
  put_html (html, w->scenario != NULL ? w->scenario : "-");
  g_string_append (html, "</td></tr>");
  for (guint d = 0; d < w->dims->len; d++)
    {
      const SweepDim *dim = &g_array_index (w->dims, SweepDim, d);
      g_string_append_printf (html, "<tr><th>axis %u</th><td>", d + 1);
      for (guint k = 0; k < dim->n_keys; k++)
        {
          if (k > 0)
            g_string_append (html, " with ");
          g_string_append (html, "<code>");
          put_html (html, w->axes->pdata[dim->keys[k]]);
          g_string_append (html, "</code>");
        }
      g_string_append (html, ": ");
      for (guint i = 0; i < dim->tuples->len; i++)
        {
          g_autofree char *v = dim_value (dim, i);
          if (i > 0)
            g_string_append (html, dim->n_keys > 1 ? "; " : ", ");
          put_html (html, v);
        }
      g_string_append (html, "</td></tr>");
    }
  if (w->dims->len == 0)
    g_string_append (html, "<tr><th>axes</th><td>none (one point, the scenario)</td></tr>");
  for (guint p = 0; p < w->n_points; p++)
    runs += w->done[p];
  g_string_append_printf (html, "<tr><th>points</th><td>%u</td></tr>", w->n_points);
  if (w->n_seeds > 0)
    g_string_append_printf (html, "<tr><th>seeds</th><td>%" G_GINT64_FORMAT " per point, from %"
                            G_GINT64_FORMAT "</td></tr><tr><th>runs done</th><td>%"
                            G_GINT64_FORMAT " of %" G_GINT64_FORMAT "</td></tr>", w->n_seeds,
                            w->first_seed, runs, w->n_seeds * w->n_points);
  if (isfinite (w->level))
    g_string_append_printf (html, "<tr><th>confidence level</th><td>%s %%</td></tr>",
                            g_ascii_formatd (buf, sizeof buf, "%.4g", 100 * w->level));
  g_string_append (html, "</table></section>\n");
}

static void
sweep_section_points (const Sweep *w, GString *html)
{
  guint n_metrics = w->metrics->len;

  g_string_append (html, "<section id=\"points\"><h2>Points</h2><p class=\"note\">Each "
                   "metric's mean over the seeds and, with two seeds or more, its confidence "
                   "interval in brackets; \"-\" where no run of the point is done.</p>"
                   "<div class=\"wide\"><table class=\"metrics\"><thead><tr><th>point</th>");
  for (guint k = 0; k < w->axes->len; k++)
    {
      g_string_append (html, "<th>");
      put_html (html, w->axes->pdata[k]);
      g_string_append (html, "</th>");
    }
  g_string_append (html, "<th>runs</th>");
  for (guint m = 0; m < n_metrics; m++)
    {
      const SweepMetric *metric = &g_array_index (w->metrics, SweepMetric, m);
      g_string_append (html, "<th>");
      put_html (html, metric->name);
      if (metric->unit != NULL && *metric->unit != '\0')
        {
          g_string_append (html, " (");
          put_html (html, metric->unit);
          g_string_append (html, ")");
        }
      g_string_append (html, "</th>");
    }
  g_string_append (html, "</tr></thead><tbody>\n");
  for (guint p = 0; p < w->n_points; p++)
    {
      const char **v = w->values->pdata[p];
      g_string_append_printf (html, "<tr><td class=\"num\">%u</td>", p);
      for (guint k = 0; k < w->axes->len; k++)
        {
          g_string_append (html, "<td>");
          put_html (html, v[k]);
          g_string_append (html, "</td>");
        }
      g_string_append_printf (html, "<td class=\"num\">%" G_GINT64_FORMAT "</td>", w->done[p]);
      for (guint m = 0; m < n_metrics; m++)
        {
          const char *unit = g_array_index (w->metrics, SweepMetric, m).unit;
          g_autofree char *mean = format_metric (w->mean[p * n_metrics + m], unit);
          g_string_append (html, "<td class=\"num\">");
          put_html (html, mean);
          if (isfinite (w->low[p * n_metrics + m]) && isfinite (w->high[p * n_metrics + m]))
            {
              g_autofree char *lo = format_metric (w->low[p * n_metrics + m], unit);
              g_autofree char *hi = format_metric (w->high[p * n_metrics + m], unit);
              g_string_append (html, " <span class=\"ci\">[");
              put_html (html, lo);
              g_string_append (html, ", ");
              put_html (html, hi);
              g_string_append (html, "]</span>");
            }
          g_string_append (html, "</td>");
        }
      g_string_append (html, "</tr>\n");
    }
  g_string_append (html, "</tbody></table></div></section>\n");
}

/* The charts' data: the x axis, the series (a point per x value, null
 * where the grid has none) and per metric the points' figures. */
static guint
sweep_section_charts (const Sweep *w, GString *html, GString *data)
{
  const SweepDim *xdim;
  g_autofree double *x = NULL;
  g_autofree char *unit = NULL;
  g_autoptr(GString) xtitle = NULL;
  g_autoptr(GPtrArray) series = g_ptr_array_new_with_free_func (g_free);  /* gint* per x */
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_metrics = w->metrics->len, n_x;
  gboolean numeric;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  Page p = { 0 };

  g_string_append (html, "<section id=\"charts\"><h2>Over the swept axis</h2>");
  if (w->dims->len == 0 || w->n_points == 0)
    {
      g_string_append (html, "<p class=\"note\">This sweep has no axis (one point, the "
                       "scenario itself): the table above is its summary.</p></section>\n");
      g_string_append (data, "null");
      return 0;
    }
  g_string_append (html, "<p class=\"note\">Each line is a metric's mean over the seeds at "
                   "each value of the first axis");
  if (w->dims->len == 2)
    g_string_append (html, ", one line per value of the second axis");
  else if (w->dims->len > 2)
    g_string_append (html, ", one line per combination of the other axes' values");
  if (isfinite (w->level))
    g_string_append_printf (html, "; the shaded band and the whiskers are its %s %% "
                            "confidence interval", g_ascii_formatd (buf, sizeof buf, "%.4g",
                                                                    100 * w->level));
  else
    g_string_append (html, "; the shaded band and the whiskers are its confidence interval");
  g_string_append (html, " (none with one seed).  Durations are drawn in seconds and labelled "
                   "in the unit that fits.</p>\n");
  xdim = &g_array_index (w->dims, SweepDim, 0);
  n_x = xdim->tuples->len;
  x = g_new (double, n_x);
  numeric = sweep_x_numeric (xdim, x, &unit);

  /* Series: the points that share the values of every other dimension. */
  for (guint pt = 0; pt < w->n_points; pt++)
    {
      g_autoptr(GString) key = g_string_new (NULL);
      gint *s;
      gpointer at;
      for (guint d = 1; d < w->dims->len; d++)
        g_string_append_printf (key, "%u,", g_array_index (w->dims, SweepDim, d).coord[pt]);
      at = g_hash_table_lookup (index, key->str);
      if (at == NULL)
        {
          GString *label = g_string_new (NULL);
          const char **v = w->values->pdata[pt];
          s = g_new (gint, n_x);
          for (guint i = 0; i < n_x; i++)
            s[i] = -1;
          g_ptr_array_add (series, s);
          for (guint d = 1; d < w->dims->len; d++)
            {
              const SweepDim *dim = &g_array_index (w->dims, SweepDim, d);
              for (guint k = 0; k < dim->n_keys; k++)
                g_string_append_printf (label, "%s%s = %s", label->len > 0 ? ", " : "",
                                        (char *) w->axes->pdata[dim->keys[k]],
                                        v[dim->keys[k]]);
            }
          if (label->len == 0)
            g_string_append (label, "mean");
          g_ptr_array_add (labels, g_string_free (label, FALSE));
          at = GUINT_TO_POINTER (series->len);
          g_hash_table_insert (index, g_strdup (key->str), at);
        }
      s = series->pdata[GPOINTER_TO_UINT (at) - 1];
      s[xdim->coord[pt]] = (gint) pt;
    }

  xtitle = g_string_new (w->axes->pdata[xdim->keys[0]]);
  if (numeric && strcmp (unit, "s") == 0)
    g_string_append (xtitle, " (duration)");
  else if (numeric && *unit != '\0')
    g_string_append_printf (xtitle, " (%s)", unit);
  for (guint k = 1; k < xdim->n_keys; k++)
    g_string_append_printf (xtitle, "%s%s", k == 1 ? ", with " : " and ",
                            (char *) w->axes->pdata[xdim->keys[k]]);

  g_string_append (data, "{\"x\":{\"key\":");
  put_json_string (data, w->axes->pdata[xdim->keys[0]]);
  g_string_append (data, ",\"title\":");
  put_json_string (data, xtitle->str);
  g_string_append_printf (data, ",\"numeric\":%s,\"duration\":%s,\"values\":[",
                          numeric ? "true" : "false",
                          numeric && strcmp (unit, "s") == 0 ? "true" : "false");
  for (guint i = 0; i < n_x; i++)
    {
      if (i > 0)
        g_string_append_c (data, ',');
      if (numeric)
        put_exact (data, x[i]);
      else
        {
          g_autofree char *v = dim_value (xdim, i);
          put_json_string (data, v);
        }
    }
  g_string_append (data, "]},\n\"series\":[");
  for (guint s = 0; s < series->len; s++)
    {
      const gint *pts = series->pdata[s];
      g_string_append (data, s > 0 ? ",\n{\"label\":" : "{\"label\":");
      put_json_string (data, labels->pdata[s]);
      g_string_append (data, ",\"points\":[");
      for (guint i = 0; i < n_x; i++)
        {
          if (i > 0)
            g_string_append_c (data, ',');
          if (pts[i] < 0)
            g_string_append (data, "null");
          else
            g_string_append_printf (data, "%d", pts[i]);
        }
      g_string_append (data, "]}");
    }
  g_string_append (data, "],\n\"metrics\":[");
  for (guint m = 0; m < n_metrics; m++)
    {
      const SweepMetric *metric = &g_array_index (w->metrics, SweepMetric, m);
      static const char *parts[] = { "mean", "low", "high" };
      const double *figures[] = { w->mean, w->low, w->high };
      g_autofree char *id = g_strdup_printf ("chart-sweep-%u", m);
      g_autofree char *title = NULL;

      g_string_append (data, m > 0 ? ",\n{\"name\":" : "{\"name\":");
      put_json_string (data, metric->name);
      g_string_append (data, ",\"unit\":");
      if (metric->unit != NULL)
        put_json_string (data, metric->unit);
      else
        g_string_append (data, "null");
      for (guint k = 0; k < G_N_ELEMENTS (parts); k++)
        {
          g_string_append_printf (data, ",\"%s\":[", parts[k]);
          for (guint pt = 0; pt < w->n_points; pt++)
            {
              if (pt > 0)
                g_string_append_c (data, ',');
              put_exact (data, figures[k][pt * n_metrics + m]);
            }
          g_string_append (data, "]");
        }
      g_string_append (data, "}");
      title = metric->unit != NULL && *metric->unit != '\0'
              ? g_strdup_printf ("%s (%s) over %s", metric->name, metric->unit, xtitle->str)
              : g_strdup_printf ("%s over %s", metric->name, xtitle->str);
      p.html = html;
      chart_box (&p, id, title, NULL);
    }
  g_string_append (data, "]}");
  g_string_append (html, "</section>\n");
  return p.charts;
}

/* Drawn from the data: one line chart per metric, the x axis linear for
 * numbers and in order otherwise, bands and whiskers for the intervals. */
static const char sweep_script[] =
  "(function(){\n"
  "const D=JSON.parse(document.getElementById('report-data').textContent).sweep;\n"
  "if(!D)return;\n"
  "Chart.defaults.animation=false;Chart.defaults.font.family='Helvetica, Arial, sans-serif';\n"
  "Chart.defaults.maintainAspectRatio=false;\n"
  "const C=['#4c72b0','#dd8452','#55a868','#c44e52','#8172b3','#937860','#da8bc3','#8c8c8c'];\n"
  "function rgba(h,a){const n=parseInt(h.slice(1),16);return 'rgba('+(n>>16)+','+((n>>8)&255)+"
  "','+(n&255)+','+a+')';}\n"
  "function dur(v){const a=Math.abs(v);if(a>=86400)return +(v/86400).toPrecision(3)+' d';"
  "if(a>=3600)return +(v/3600).toPrecision(3)+' h';if(a>=60)return +(v/60).toPrecision(3)+' min';"
  "return +v.toPrecision(3)+' s';}\n"
  "const X=D.x,n=X.values.length,few=n<=20;\n"
  "const whiskers={id:'whiskers',afterDatasetsDraw(ch){const y=ch.scales.y,c=ch.ctx;c.save();"
  "c.lineWidth=1.2;\n"
  " ch.data.datasets.forEach((d,k)=>{if(!d.whiskers||!ch.isDatasetVisible(k))return;"
  "c.strokeStyle=d.borderColor;\n"
  "  ch.getDatasetMeta(k).data.forEach((e,i)=>{const w=d.whiskers[i];if(w[0]===null||w[1]===null)"
  "return;\n"
  "   const a=y.getPixelForValue(w[0]),z=y.getPixelForValue(w[1]);c.beginPath();c.moveTo(e.x,a);"
  "c.lineTo(e.x,z);\n"
  "   c.moveTo(e.x-4,a);c.lineTo(e.x+4,a);c.moveTo(e.x-4,z);c.lineTo(e.x+4,z);c.stroke();});});"
  "c.restore();}};\n"
  "D.metrics.forEach((m,k)=>{const el=document.getElementById('chart-sweep-'+k);if(!el)return;"
  "const sets=[];\n"
  " D.series.forEach((s,j)=>{const col=C[j%C.length],lo=[],hi=[],mean=[],w=[];\n"
  "  s.points.forEach((p,i)=>{if(p===null||m.mean[p]===null)return;const x=X.numeric?X.values[i]:i;\n"
  "   mean.push({x:x,y:m.mean[p]});w.push([m.low[p],m.high[p]]);\n"
  "   if(m.low[p]!==null&&m.high[p]!==null){lo.push({x:x,y:m.low[p]});hi.push({x:x,y:m.high[p]});}"
  "});\n"
  "  sets.push({label:'',band:true,data:lo,borderWidth:0,pointRadius:0,fill:false,"
  "backgroundColor:rgba(col,0.18)});\n"
  "  sets.push({label:'',band:true,data:hi,borderWidth:0,pointRadius:0,fill:'-1',"
  "backgroundColor:rgba(col,0.18)});\n"
  "  sets.push({label:s.label,data:mean,whiskers:w,borderColor:col,backgroundColor:col,"
  "pointRadius:3,borderWidth:2});});\n"
  " const dt=m.unit==='s',ytitle=m.name+(dt?' (duration)':m.unit?' ('+m.unit+')':'');\n"
  " const xs=X.numeric?{type:'linear',title:{display:true,text:X.title},afterBuildTicks:(a)=>"
  "{if(few)a.ticks=X.values.map((v)=>({value:v}));},ticks:X.duration?{callback:(v)=>dur(v)}:{}}"
  ":{type:'linear',"
  "min:-0.25,max:n-0.75,title:{display:true,text:X.title},\n"
  "  afterBuildTicks:(a)=>{a.ticks=X.values.map((v,i)=>({value:i}));},ticks:{callback:(v)=>"
  "X.values[v]}};\n"
  " new Chart(el,{type:'line',plugins:[whiskers],data:{datasets:sets},options:{parsing:false,"
  "interaction:{mode:'nearest',intersect:false},\n"
  "  plugins:{legend:{display:D.series.length>1,labels:{filter:(it,d)=>!d.datasets["
  "it.datasetIndex].band}},\n"
  "   tooltip:{filter:(it)=>!it.dataset.band}},\n"
  "  scales:{x:xs,y:{beginAtZero:true,title:{display:true,text:ytitle},ticks:dt?{callback:"
  "(v)=>dur(v)}:{}}}}});});\n"
  "})();\n";

char *
sim_html_sweep_report_render (const char *summary_json, const char *source,
                              const char * const *metrics, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GString) body = g_string_new (NULL);
  g_autoptr(GString) data = g_string_new ("{\"sweep\": ");
  g_autofree char *chartjs = NULL;
  Sweep w = { 0 };
  GString *out;
  guint charts;

  g_return_val_if_fail (summary_json != NULL, NULL);
  w.source = source != NULL ? source : "sweep summary";
  if (!sweep_read (&w, summary_json, metrics, parser, error))
    {
      sweep_clear (&w);
      return NULL;
    }
  chartjs = read_chartjs (error);
  if (chartjs == NULL)
    {
      sweep_clear (&w);
      return NULL;
    }
  sweep_section_scenario (&w, body);
  sweep_section_points (&w, body);
  charts = sweep_section_charts (&w, body, data);
  g_string_append (data, "}");

  out = g_string_sized_new (body->len + data->len + strlen (chartjs) + 8192);
  g_string_append (out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"generator\" content=\"gpusim report\">\n<title>");
  put_html (out, w.scenario != NULL ? w.scenario : "sweep");
  g_string_append (out, " - gpusim sweep report</title>\n<style>\n");
  g_string_append (out, page_style);
  g_string_append (out, ".wide{overflow-x:auto}.ci{color:#777;white-space:nowrap}\n"
                   "</style>\n</head>\n<body>\n<h1>");
  put_html (out, w.scenario != NULL ? w.scenario : "sweep");
  g_string_append_printf (out, "</h1>\n<p class=\"subtitle\">gpusim sweep report: %u point%s, "
                          "%u metric%s (%u charts)</p>\n", w.n_points,
                          w.n_points == 1 ? "" : "s", w.metrics->len,
                          w.metrics->len == 1 ? "" : "s", charts);
  g_string_append_len (out, body->str, (gssize) body->len);
  g_string_append (out, "<script type=\"application/json\" id=\"report-data\">\n");
  g_string_append_len (out, data->str, (gssize) data->len);
  g_string_append (out, "\n</script>\n<script>\n/* Chart.js, inlined (MIT licence; "
                   "https://www.chartjs.org) */\n");
  g_string_append (out, chartjs);
  g_string_append (out, "\n</script>\n<script>\n");
  g_string_append (out, sweep_script);
  g_string_append (out, "</script>\n</body>\n</html>\n");
  sweep_clear (&w);
  return g_string_free (out, FALSE);
}

gboolean
sim_html_sweep_report_write (const char *summary_json, const char *source,
                             const char * const *metrics, const char *path, GError **error)
{
  g_autofree char *html = NULL;

  g_return_val_if_fail (summary_json != NULL && path != NULL, FALSE);
  html = sim_html_sweep_report_render (summary_json, source, metrics, error);
  if (html == NULL)
    return FALSE;
  return sim__write_file_atomic (path, html, -1, error);
}
