/* sim-diagram.c: the network of a cluster as a Graphviz graph (the design
 * is at the top of sim-diagram.h). */
#include "config.h"

#include "report/sim-diagram.h"
#include "report/sim-diagram-private.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tiers, bottom to top. */
enum { TIER_NODE, TIER_LEAF, TIER_SPINE, TIER_CORE, N_TIERS };

static const char * const tier_colour[N_TIERS] = {
  "#f2f2f2", "#cfe3f7", "#fbe7b0", "#f6c3b7"
};

/* Line styles for link models and colours for speeds, in order of first
 * appearance (models sorted by name, speeds from slowest). */
static const char * const model_styles[] = { "solid", "dashed", "dotted", "bold" };
static const char * const speed_colours[] = {
  "#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"
};

static int
tier_of (SimVertexKind kind)
{
  switch (kind)
    {
    case SIM_VERTEX_LEAF:
    case SIM_VERTEX_ROUTER:
      return TIER_LEAF;
    case SIM_VERTEX_SPINE:
      return TIER_SPINE;
    case SIM_VERTEX_CORE:
      return TIER_CORE;
    default:
      return -1;
    }
}

static const char *
kind_name (SimVertexKind kind, gboolean plural)
{
  switch (kind)
    {
    case SIM_VERTEX_LEAF:
      return plural ? "leaves" : "leaf";
    case SIM_VERTEX_SPINE:
      return plural ? "spines" : "spine";
    case SIM_VERTEX_CORE:
      return plural ? "cores" : "core";
    case SIM_VERTEX_ROUTER:
      return plural ? "routers" : "router";
    default:
      return plural ? "nodes" : "node";
    }
}

/* A colour on a sequential scale (light yellow to dark red) for x in
 * [0, 1]; grey for NaN. */
static void
heat_colour (double x, char out[8])
{
  static const guint8 stops[5][3] = {
    { 0xff, 0xff, 0xcc }, { 0xfe, 0xd9, 0x76 }, { 0xfd, 0x8d, 0x3c },
    { 0xe3, 0x1a, 0x1c }, { 0x80, 0x00, 0x26 }
  };
  double p;
  int i;
  guint8 c[3];

  if (isnan (x))
    {
      g_strlcpy (out, "#d9d9d9", 8);
      return;
    }
  x = CLAMP (x, 0.0, 1.0);
  p = x * 4;
  i = MIN ((int) p, 3);
  p -= i;
  for (int k = 0; k < 3; k++)
    c[k] = (guint8) lround (stops[i][k] + (stops[i + 1][k] - stops[i][k]) * p);
  g_snprintf (out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* "0-3, 8-11" for sorted indices, at most three ranges then "...". */
static void
append_ranges (GString *s, const guint *v, guint n)
{
  guint ranges = 0;

  for (guint i = 0; i < n;)
    {
      guint j = i;
      while (j + 1 < n && v[j + 1] == v[j] + 1)
        j++;
      if (ranges == 3)
        {
          g_string_append (s, ", ...");
          return;
        }
      if (ranges > 0)
        g_string_append (s, ", ");
      if (j > i)
        g_string_append_printf (s, "%u-%u", v[i], v[j]);
      else
        g_string_append_printf (s, "%u", v[i]);
      ranges++;
      i = j + 1;
    }
}

/* An HTML-like label (the legend). */
static void
set_html (Agraph_t *g, void *obj, const char *name, const char *html)
{
  char *s = agstrdup_html (g, (char *) html);
  agsafeset (obj, (char *) name, s, (char *) "");
  agstrfree (g, s);
}

static char *
html_escape (const char *s)
{
  return g_markup_escape_text (s, -1);
}

/* ------------------------------------------------------------------------ */
/* The fabric: what is drawn, and its classes.                               */

/* A drawn vertex: a cluster node (the first n_nodes) or a network switch. */
typedef struct {
  int      tier;
  SimVertexKind kind;
  guint    number;       /* node index, or the switch's number within its kind */
  gint     rack;         /* nodes: rack index, -1 without a switch */
  gint     rail;         /* leaves: the NIC index of every NIC on it, -1 if they differ */
  guint    colour;
} Drawn;

/* A link between two drawn vertices. */
typedef struct {
  guint32 a, b;
  guint32 speed;         /* index into the sorted speeds */
  guint32 model;         /* index into the sorted model names */
  SimLinkTier tier;
} DLink;

typedef struct {
  guint colour;
  guint speed;
  guint count;
} Sig;

static int
cmp_sig (const void *pa, const void *pb)
{
  const Sig *a = pa, *b = pb;
  if (a->colour != b->colour)
    return a->colour < b->colour ? -1 : 1;
  if (a->speed != b->speed)
    return a->speed < b->speed ? -1 : 1;
  return 0;
}

static int
cmp_double (const void *pa, const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;
  return a < b ? -1 : a > b;
}

typedef struct {
  const SimTopology *t;
  const SimCluster  *cluster;
  const SimDiagramOptions *opt;
  guint    n_nodes;
  guint    n_drawn;
  Drawn   *drawn;
  GArray  *links;        /* DLink */
  double  *speeds;       /* sorted distinct speeds, bytes/s */
  guint    n_speeds;
  GPtrArray *models;     /* sorted distinct link model names */
  guint    n_racks;
  gboolean railed;       /* some node's NICs are on more than one leaf: rails */
  guint    n_classes;
  guint   *class_first;  /* per class, its first drawn vertex */
  GArray **members;      /* per class, its drawn vertices (guint) in order */
  double   down_bw[N_TIERS], up_bw[N_TIERS];
} Fabric;

static void
fabric_clear (Fabric *f)
{
  g_free (f->drawn);
  if (f->links != NULL)
    g_array_unref (f->links);
  g_free (f->speeds);
  if (f->models != NULL)
    g_ptr_array_unref (f->models);
  for (guint c = 0; f->members != NULL && c < f->n_classes; c++)
    g_array_unref (f->members[c]);
  g_free (f->members);
  g_free (f->class_first);
}

static guint
speed_index (const Fabric *f, double bw)
{
  guint lo = 0, hi = f->n_speeds;
  while (lo + 1 < hi)
    {
      guint mid = (lo + hi) / 2;
      if (f->speeds[mid] <= bw)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Collects the drawn vertices and the links between them. */
static void
fabric_collect (Fabric *f)
{
  const SimTopology *t = f->t;
  guint nv = sim_topology_get_n_vertices (t), nl = sim_topology_get_n_links (t);
  g_autofree gint64 *map = g_new (gint64, MAX (nv, 1));
  g_autoptr(GArray) bws = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree gint *rack_of_switch = NULL;
  guint count[8] = { 0 };
  guint n = f->n_nodes;

  /* Each NIC's index within its node (a node's NICs are numbered
   * together, in order), for the rail a leaf serves. */
  g_autofree gint *nic_rank = g_new (gint, MAX (nv, 1));
  {
    gint node = -1, rank = 0;
    for (guint v = 0; v < nv; v++)
      {
        nic_rank[v] = -1;
        if (sim_topology_get_vertex_kind (t, v) != SIM_VERTEX_NIC)
          continue;
        rank = sim_topology_get_vertex_node (t, v) == node ? rank + 1 : 0;
        node = sim_topology_get_vertex_node (t, v);
        nic_rank[v] = rank;
      }
  }

  f->drawn = g_new0 (Drawn, n + nv);
  for (guint i = 0; i < n; i++)
    {
      f->drawn[i].tier = TIER_NODE;
      f->drawn[i].kind = SIM_VERTEX_GPU;
      f->drawn[i].number = i;
      f->drawn[i].rack = -1;
    }
  f->n_drawn = n;
  for (guint v = 0; v < nv; v++)
    {
      SimVertexKind kind = sim_topology_get_vertex_kind (t, v);
      gint node = sim_topology_get_vertex_node (t, v);
      map[v] = -1;
      if (node >= 0)
        map[v] = node;
      else if (tier_of (kind) >= 0)
        {
          Drawn *d = &f->drawn[f->n_drawn];
          d->tier = tier_of (kind);
          d->kind = kind;
          d->number = count[kind]++;
          d->rack = -1;
          d->rail = -2;   /* no NIC seen yet */
          map[v] = f->n_drawn++;
        }
    }
  /* Speeds and models first, so links can carry their indices. */
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      if (k->tier == SIM_TIER_INTRA)
        continue;
      g_array_append_val (bws, k->bandwidth);
      g_hash_table_add (names, (gpointer) (k->model != NULL ? k->model : "link"));
    }
  g_array_sort (bws, cmp_double);
  f->speeds = g_new (double, MAX (bws->len, 1));
  for (guint i = 0; i < bws->len; i++)
    if (f->n_speeds == 0 || g_array_index (bws, double, i) != f->speeds[f->n_speeds - 1])
      f->speeds[f->n_speeds++] = g_array_index (bws, double, i);
  f->models = g_ptr_array_new ();
  {
    GList *keys = g_hash_table_get_keys (names);
    for (GList *l = keys; l != NULL; l = l->next)
      g_ptr_array_add (f->models, l->data);
    g_list_free (keys);
  }
  g_ptr_array_sort (f->models, cmp_str);
  f->links = g_array_new (FALSE, FALSE, sizeof (DLink));
  rack_of_switch = g_new (gint, f->n_drawn);
  for (guint i = 0; i < f->n_drawn; i++)
    rack_of_switch[i] = -1;
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      const char *model = k->model != NULL ? k->model : "link";
      DLink d;
      if (k->tier == SIM_TIER_INTRA || map[k->a] < 0 || map[k->b] < 0 || map[k->a] == map[k->b])
        continue;
      d.a = (guint32) map[k->a];
      d.b = (guint32) map[k->b];
      d.speed = speed_index (f, k->bandwidth);
      d.model = 0;
      for (guint m = 0; m < f->models->len; m++)
        if (strcmp (f->models->pdata[m], model) == 0)
          d.model = m;
      d.tier = k->tier;
      g_array_append_val (f->links, d);
      if (k->tier == SIM_TIER_ACCESS && nic_rank[k->a] >= 0)
        {
          Drawn *sw = &f->drawn[d.b];
          sw->rail = sw->rail == -2 || sw->rail == nic_rank[k->a] ? nic_rank[k->a] : -1;
        }
      /* Oversubscription: what each switch tier takes from below over
       * what it sends up. */
      {
        int ta = f->drawn[d.a].tier, tb = f->drawn[d.b].tier;
        if (ta != tb)
          {
            int lo = MIN (ta, tb), hi = MAX (ta, tb);
            if (lo > TIER_NODE)
              f->up_bw[lo] += k->bandwidth;
            f->down_bw[hi] += k->bandwidth;
          }
      }
    }
  /* A node's rack: the nodes whose lowest-numbered first switch is the
   * same, numbered in the order of their first node. */
  for (guint i = 0; i < f->links->len; i++)
    {
      const DLink *d = &g_array_index (f->links, DLink, i);
      guint32 node = d->a < n ? d->a : d->b, sw = d->a < n ? d->b : d->a;
      if (d->tier != SIM_TIER_ACCESS || node >= n || sw < n)
        continue;
      if (f->drawn[node].rack < 0 || (gint) sw < f->drawn[node].rack)
        f->drawn[node].rack = (gint) sw;
    }
  /* Rails: a node whose NICs reach more than one leaf (builders put a
   * node's NICs on one leaf, except on rails). */
  for (guint i = 0; i < f->links->len && !f->railed; i++)
    {
      const DLink *d = &g_array_index (f->links, DLink, i);
      guint32 node = d->a < n ? d->a : d->b, sw = d->a < n ? d->b : d->a;
      if (d->tier == SIM_TIER_ACCESS && node < n && sw >= n && f->drawn[node].rack >= 0
          && (gint) sw != f->drawn[node].rack)
        f->railed = TRUE;
    }
  for (guint v = n; v < f->n_drawn; v++)
    if (!f->railed || f->drawn[v].rail < 0)
      f->drawn[v].rail = -1;
  for (guint i = 0; i < n; i++)
    {
      gint sw = f->drawn[i].rack;
      if (sw < 0)
        continue;
      if (rack_of_switch[sw] < 0)
        rack_of_switch[sw] = (gint) f->n_racks++;
      f->drawn[i].rack = rack_of_switch[sw];
    }
}

/* Colour refinement (sim-diagram.h): classes of drawn vertices. */
static void
fabric_refine (Fabric *f)
{
  guint n = f->n_drawn;
  gboolean keep_racks = f->n_racks <= SIM_DIAGRAM_MAX_RACKS;
  g_autofree guint *colour = g_new (guint, MAX (n, 1));
  g_autofree guint *next = g_new (guint, MAX (n, 1));
  g_autofree guint *deg = g_new0 (guint, n + 1);
  g_autofree guint *adj = NULL;
  g_autofree guint *fill = NULL;
  g_autoptr(GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GString) key = g_string_new (NULL);
  g_autoptr(GArray) sig = g_array_new (FALSE, FALSE, sizeof (Sig));
  guint n_colours = 0;

  /* Adjacency in CSR form: per vertex, the links it is an end of. */
  for (guint i = 0; i < f->links->len; i++)
    {
      const DLink *d = &g_array_index (f->links, DLink, i);
      deg[d->a + 1]++;
      deg[d->b + 1]++;
    }
  for (guint v = 0; v < n; v++)
    deg[v + 1] += deg[v];
  adj = g_new (guint, MAX (deg[n], 1));
  fill = g_memdup2 (deg, (n + 1) * sizeof (guint));
  for (guint i = 0; i < f->links->len; i++)
    {
      const DLink *d = &g_array_index (f->links, DLink, i);
      adj[fill[d->a]++] = i;
      adj[fill[d->b]++] = i;
    }

  /* Initial colours. */
  for (guint v = 0; v < n; v++)
    {
      const Drawn *d = &f->drawn[v];
      gpointer id;
      g_string_truncate (key, 0);
      if (f->opt->expand)
        g_string_append_printf (key, "v%u", v);
      else if (d->tier == TIER_NODE && f->n_racks == 0 && f->opt->heat != SIM_DIAGRAM_HEAT_NONE &&
               f->n_nodes <= SIM_DIAGRAM_MAX_LOOSE_NODES)
        g_string_append_printf (key, "v%u", v);   /* no network: each node its own heat */
      else if (d->tier == TIER_NODE)
        {
          const SimNode *node = sim_cluster_get_node (f->cluster, v);
          g_string_append_printf (key, "n/%s/%u/%d", node->model->name, node->n_gpus,
                                  keep_racks ? d->rack : -2);
        }
      else
        g_string_append_printf (key, "s/%d/%d", (int) d->kind, d->rail);
      if (!g_hash_table_lookup_extended (ids, key->str, NULL, &id))
        {
          id = GUINT_TO_POINTER (n_colours++);
          g_hash_table_insert (ids, g_strdup (key->str), id);
        }
      colour[v] = GPOINTER_TO_UINT (id);
    }

  /* Refine until stable. */
  for (;;)
    {
      guint n_next = 0;
      g_hash_table_remove_all (ids);
      for (guint v = 0; v < n; v++)
        {
          gpointer id;
          g_array_set_size (sig, 0);
          for (guint j = deg[v]; j < deg[v + 1]; j++)
            {
              const DLink *d = &g_array_index (f->links, DLink, adj[j]);
              Sig s = { colour[d->a == v ? d->b : d->a], d->speed, 1 };
              g_array_append_val (sig, s);
            }
          g_array_sort (sig, cmp_sig);
          g_string_truncate (key, 0);
          g_string_append_printf (key, "%u", colour[v]);
          for (guint j = 0; j < sig->len;)
            {
              Sig *s = &g_array_index (sig, Sig, j);
              guint k = j + 1;
              while (k < sig->len && cmp_sig (s, &g_array_index (sig, Sig, k)) == 0)
                k++;
              g_string_append_printf (key, "|%u:%u:%u", s->colour, s->speed, k - j);
              j = k;
            }
          if (!g_hash_table_lookup_extended (ids, key->str, NULL, &id))
            {
              id = GUINT_TO_POINTER (n_next++);
              g_hash_table_insert (ids, g_strdup (key->str), id);
            }
          next[v] = GPOINTER_TO_UINT (id);
        }
      memcpy (colour, next, n * sizeof (guint));
      if (n_next == n_colours)
        break;
      n_colours = n_next;
    }

  /* Classes, numbered in the order of their first vertex (colours already
   * are: each round numbers them in vertex order). */
  f->n_classes = n_colours;
  f->members = g_new (GArray *, MAX (n_colours, 1));
  f->class_first = g_new (guint, MAX (n_colours, 1));
  for (guint c = 0; c < n_colours; c++)
    f->members[c] = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint v = 0; v < n; v++)
    {
      f->drawn[v].colour = colour[v];
      if (f->members[colour[v]]->len == 0)
        f->class_first[colour[v]] = v;
      g_array_append_val (f->members[colour[v]], v);
    }
}

/* The mean of @values over a class's nodes, NaN if none is known. */
static double
class_mean (const Fabric *f, guint c, const double *values)
{
  double sum = 0;
  guint known = 0;
  GArray *m = f->members[c];

  for (guint i = 0; i < m->len; i++)
    {
      guint v = g_array_index (m, guint, i);
      if (v < f->n_nodes && !isnan (values[v]))
        {
          sum += values[v];
          known++;
        }
    }
  return known > 0 ? sum / known : NAN;
}

static char *
class_label (const Fabric *f, guint c, gboolean *rails)
{
  GArray *m = f->members[c];
  const Drawn *d = &f->drawn[g_array_index (m, guint, 0)];
  g_autofree guint *numbers = g_new (guint, m->len);
  GString *s = g_string_new (NULL);

  *rails = FALSE;
  for (guint i = 0; i < m->len; i++)
    numbers[i] = f->drawn[g_array_index (m, guint, i)].number;
  if (d->tier == TIER_NODE)
    {
      const SimNode *node = sim_cluster_get_node (f->cluster, d->number);
      const char *gpu = node->gpu_model != NULL ? node->gpu_model->name : "GPU";
      if (m->len == 1)
        g_string_append_printf (s, "node %u\n%s\n%u x %s", d->number, node->model->name,
                                node->n_gpus, gpu);
      else
        {
          g_string_append_printf (s, "%u x %s\nnodes ", m->len, node->model->name);
          append_ranges (s, numbers, m->len);
          g_string_append_printf (s, "\n%u x %s each", node->n_gpus, gpu);
        }
    }
  else if (d->rail >= 0)
    {
      /* A rail leaf, or the same rail's leaves of groups alike. */
      g_string_append_printf (s, "rail %d\n%s ", d->rail, kind_name (d->kind, m->len > 1));
      append_ranges (s, numbers, m->len);
      if (m->len > 1)
        g_string_append_printf (s, "\n(x %u)", m->len);
    }
  else if (m->len == 1)
    g_string_append_printf (s, "%s %u", kind_name (d->kind, FALSE), d->number);
  else
    {
      /* Rails: leaves of one class that every node below reaches. */
      guint below = 0, pairs = 0;
      g_autoptr(GHashTable) nodes = g_hash_table_new (NULL, NULL);
      g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
      g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));
      for (guint i = 0; i < f->links->len; i++)
        {
          const DLink *l = &g_array_index (f->links, DLink, i);
          guint32 node = l->a < f->n_nodes ? l->a : l->b, sw = l->a < f->n_nodes ? l->b : l->a;
          gint64 k;
          if (l->tier != SIM_TIER_ACCESS || node >= f->n_nodes || f->drawn[sw].colour != c)
            continue;
          g_hash_table_add (nodes, GUINT_TO_POINTER (node + 1));
          k = (gint64) node * f->n_drawn + sw;
          g_array_append_val (keys, k);
        }
      for (guint i = 0; i < keys->len; i++)
        if (g_hash_table_add (seen, &g_array_index (keys, gint64, i)))
          pairs++;
      below = g_hash_table_size (nodes);
      *rails = d->kind == SIM_VERTEX_LEAF && below > 0 && pairs == below * m->len;
      if (*rails)
        {
          g_string_append_printf (s, "rail leaves ");
          append_ranges (s, numbers, m->len);
          g_string_append_printf (s, "\nx %u rails", m->len);
        }
      else
        {
          g_string_append_printf (s, "%u x %s\n%s ", m->len, kind_name (d->kind, FALSE),
                                  kind_name (d->kind, TRUE));
          append_ranges (s, numbers, m->len);
        }
    }
  return g_string_free (s, FALSE);
}

typedef struct {
  guint  a, b;        /* classes, a the upper */
  guint  speed, model;
  SimLinkTier tier;
  guint  count;
  double heat_sum;
  guint  heat_n;
} Bundle;

static int
cmp_bundle (const void *pa, const void *pb)
{
  const Bundle *a = pa, *b = pb;
  if (a->a != b->a)
    return a->a < b->a ? -1 : 1;
  if (a->b != b->b)
    return a->b < b->b ? -1 : 1;
  if (a->speed != b->speed)
    return a->speed < b->speed ? -1 : 1;
  if (a->model != b->model)
    return a->model < b->model ? -1 : 1;
  return 0;
}

static void
add_legend (Agraph_t *g, const Fabric *f, const gboolean *tiers_present,
            const gboolean *speed_used, const gboolean *model_used)
{
  static const char * const tier_label[N_TIERS] = { "node", "leaf / rail / router", "spine",
                                                    "core" };
  Agraph_t *sub = agsubg (g, (char *) "cluster_legend", 1);
  Agnode_t *n = agnode (sub, (char *) "legend", 1);
  g_autoptr(GString) h = g_string_new (NULL);

  sim__diagram_set (sub, "label", "legend");
  sim__diagram_set (sub, "style", "rounded");
  sim__diagram_set (n, "shape", "plain");
  g_string_append (h, "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"4\">");
  for (int t = N_TIERS - 1; t >= 0; t--)
    if (tiers_present[t])
      g_string_append_printf (h, "<TR><TD BGCOLOR=\"%s\"> </TD><TD ALIGN=\"LEFT\">%s</TD></TR>",
                              f->opt->heat == SIM_DIAGRAM_HEAT_NODES && t == TIER_NODE
                                ? "#d9d9d9" : tier_colour[t], tier_label[t]);
  for (guint m = 0; m < f->models->len; m++)
    if (model_used[m])
      {
        g_autofree char *name = html_escape (f->models->pdata[m]);
        g_string_append_printf (h, "<TR><TD>%s line</TD><TD ALIGN=\"LEFT\">%s link</TD></TR>",
                                model_styles[m % G_N_ELEMENTS (model_styles)], name);
      }
  if (f->opt->heat != SIM_DIAGRAM_HEAT_LINKS)
    for (guint s = 0; s < f->n_speeds; s++)
      if (speed_used[s])
        {
          g_autofree char *speed = sim__diagram_gbps (f->speeds[s]);
          g_string_append_printf (h, "<TR><TD BGCOLOR=\"%s\"> </TD><TD ALIGN=\"LEFT\">%s per link"
                                  "</TD></TR>", speed_colours[s % G_N_ELEMENTS (speed_colours)],
                                  speed);
        }
  for (int t = TIER_LEAF; t < N_TIERS; t++)
    if (f->up_bw[t] > 0 && f->down_bw[t] > 0)
      {
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        g_string_append_printf (h, "<TR><TD>%s:1</TD><TD ALIGN=\"LEFT\">oversubscription, %s "
                                "tier</TD></TR>",
                                g_ascii_formatd (buf, sizeof buf, "%.3g",
                                                 f->down_bw[t] / f->up_bw[t]),
                                t == TIER_LEAF ? "leaf" : t == TIER_SPINE ? "spine" : "core");
      }
  if (f->opt->heat != SIM_DIAGRAM_HEAT_NONE)
    {
      g_autofree char *title = html_escape (f->opt->heat_title != NULL ? f->opt->heat_title
                                                                         : "heat");
      g_string_append_printf (h, "<TR><TD COLSPAN=\"2\">%s</TD></TR><TR><TD COLSPAN=\"2\">"
                              "<TABLE BORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\"><TR>",
                              title);
      for (int i = 0; i <= 4; i++)
        {
          char c[8];
          heat_colour (i / 4.0, c);
          g_string_append_printf (h, "<TD BGCOLOR=\"%s\"><FONT COLOR=\"%s\">%d %%</FONT></TD>",
                                  c, i >= 3 ? "white" : "black", i * 25);
        }
      g_string_append (h, "</TR></TABLE></TD></TR>");
    }
  g_string_append (h, "</TABLE>");
  set_html (g, n, "label", h->str);
}

static Agraph_t *
build_fabric_graph (Fabric *f)
{
  Agraph_t *g = sim__diagram_new_graph ("network");
  Agraph_t *rank[N_TIERS] = { NULL };
  g_autofree Agnode_t **box = g_new0 (Agnode_t *, MAX (f->n_classes, 1));
  g_autoptr(GArray) bundles = g_array_new (FALSE, FALSE, sizeof (Bundle));
  g_autoptr(GHashTable) rack_graphs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             NULL);
  gboolean tiers_present[N_TIERS] = { FALSE };
  g_autofree gboolean *speed_used = g_new0 (gboolean, MAX (f->n_speeds, 1));
  g_autofree gboolean *model_used = g_new0 (gboolean, MAX (f->models->len, 1));

  agattr (g, AGRAPH, (char *) "rankdir", (char *) "TB");
  agattr (g, AGRAPH, (char *) "newrank", (char *) "true");
  agattr (g, AGRAPH, (char *) "ordering", (char *) "out");
  agattr (g, AGRAPH, (char *) "nodesep", (char *) "0.3");
  agattr (g, AGRAPH, (char *) "ranksep", (char *) "0.8");
  agattr (g, AGRAPH, (char *) "fontname", (char *) "Helvetica");
  agattr (g, AGRAPH, (char *) "fontsize", (char *) "12");
  agattr (g, AGRAPH, (char *) "label", (char *) "");
  agattr (g, AGRAPH, (char *) "style", (char *) "");
  agattr (g, AGNODE, (char *) "shape", (char *) "box");
  agattr (g, AGNODE, (char *) "style", (char *) "filled,rounded");
  agattr (g, AGNODE, (char *) "fillcolor", (char *) "white");
  agattr (g, AGNODE, (char *) "fontname", (char *) "Helvetica");
  agattr (g, AGNODE, (char *) "fontsize", (char *) "11");
  agattr (g, AGNODE, (char *) "label", (char *) "");
  agattr (g, AGEDGE, (char *) "label", (char *) "");
  agattr (g, AGEDGE, (char *) "fontname", (char *) "Helvetica");
  agattr (g, AGEDGE, (char *) "fontsize", (char *) "10");
  agattr (g, AGEDGE, (char *) "style", (char *) "solid");
  agattr (g, AGEDGE, (char *) "color", (char *) "black");
  agattr (g, AGEDGE, (char *) "penwidth", (char *) "1");
  agattr (g, AGEDGE, (char *) "constraint", (char *) "true");

  for (int t = N_TIERS - 1; t >= TIER_NODE; t--)
    for (guint c = 0; c < f->n_classes; c++)
      {
        const Drawn *d = &f->drawn[f->class_first[c]];
        g_autofree char *name = NULL, *label = NULL;
        Agraph_t *parent = g;
        gboolean rails;
        if (d->tier != t)
          continue;
        tiers_present[t] = TRUE;
        name = g_strdup_printf ("c%u", c);
        label = class_label (f, c, &rails);
        if (t == TIER_NODE)
          {
            /* Its rack(s): a cluster named by the range of racks. */
            GArray *m = f->members[c];
            gint lo = G_MAXINT, hi = -1;
            for (guint i = 0; i < m->len; i++)
              {
                gint r = f->drawn[g_array_index (m, guint, i)].rack;
                lo = MIN (lo, r);
                hi = MAX (hi, r);
              }
            if (hi >= 0)
              {
                g_autofree char *key = g_strdup_printf ("cluster_rack_%d_%d", lo, hi);
                parent = g_hash_table_lookup (rack_graphs, key);
                if (parent == NULL)
                  {
                    const char *what = f->railed ? "rail group" : "rack";
                    g_autofree char *rl = lo == hi ? g_strdup_printf ("%s %d", what, lo)
                                                   : g_strdup_printf ("%ss %d-%d (x %d alike)",
                                                                      what, lo, hi,
                                                                      hi - lo + 1);
                    parent = agsubg (g, key, 1);
                    sim__diagram_set (parent, "label", rl);
                    sim__diagram_set (parent, "style", "dashed,rounded");
                    sim__diagram_set (parent, "labelloc", "b");
                    g_hash_table_insert (rack_graphs, g_strdup (key), parent);
                  }
              }
          }
        else
          {
            /* Switch tiers, top to bottom, each on one rank. */
            if (rank[t] == NULL)
              {
                g_autofree char *tier = g_strdup_printf ("tier_%d", t);
                rank[t] = agsubg (g, tier, 1);
                sim__diagram_set (rank[t], "rank", "same");
              }
            parent = rank[t];
          }
        box[c] = agnode (parent, name, 1);
        agsubnode (g, box[c], 1);
        sim__diagram_set (box[c], "fillcolor", tier_colour[t]);
        if (t == TIER_NODE && f->opt->heat == SIM_DIAGRAM_HEAT_NODES)
          {
            double x = class_mean (f, c, f->opt->node_heat);
            char colour[8];
            heat_colour (x, colour);
            sim__diagram_set (box[c], "fillcolor", colour);
            if (x > 0.6)
              sim__diagram_set (box[c], "fontcolor", "white");
            if (!isnan (x))
              {
                g_autofree char *more = g_strdup_printf ("%s\n%.0f %%%s", label, 100 * x,
                                                         f->members[c]->len > 1 ? " (mean)" : "");
                g_free (label);
                label = g_steal_pointer (&more);
              }
          }
        if (t != TIER_NODE)
          sim__diagram_set (box[c], "shape", rails ? "box3d" : "box");
        sim__diagram_set (box[c], "label", label);
      }

  /* Boxes of a tier in index order, left to right: an invisible edge from
   * each box to the next of its tier.  dot draws an edge between two
   * vertices of one rank from left to right, so these chains fix the
   * order that its crossing reduction would otherwise choose (racks
   * 14, 8, 1, ... under an expanded fat-tree).  They carry no label and
   * no weight in the ranking (constraint=false); a tier's boxes are made
   * in the order of their classes, which is that of their first member,
   * so of their indices. */
  for (int t = TIER_NODE; t < N_TIERS; t++)
    {
      Agnode_t *prev = NULL;
      for (guint c = 0; c < f->n_classes; c++)
        {
          Agedge_t *e;
          if (f->drawn[f->class_first[c]].tier != t)
            continue;
          if (prev != NULL)
            {
              e = agedge (g, prev, box[c], NULL, 1);
              sim__diagram_set (e, "style", "invis");
              sim__diagram_set (e, "minlen", "0");
            }
          prev = box[c];
        }
    }

  /* Bundles: links per pair of classes, speed and model. */
  for (guint i = 0; i < f->links->len; i++)
    {
      const DLink *d = &g_array_index (f->links, DLink, i);
      guint ca = f->drawn[d->a].colour, cb = f->drawn[d->b].colour;
      gboolean a_up = f->drawn[d->a].tier > f->drawn[d->b].tier ||
                      (f->drawn[d->a].tier == f->drawn[d->b].tier && ca <= cb);
      Bundle b = { a_up ? ca : cb, a_up ? cb : ca, d->speed, d->model, d->tier, 1, 0, 0 };
      if (f->opt->heat == SIM_DIAGRAM_HEAT_LINKS && d->tier == SIM_TIER_ACCESS)
        {
          guint32 node = d->a < f->n_nodes ? d->a : d->b;
          if (node < f->n_nodes && !isnan (f->opt->link_heat[node]))
            {
              b.heat_sum = f->opt->link_heat[node];
              b.heat_n = 1;
            }
        }
      g_array_append_val (bundles, b);
    }
  g_array_sort (bundles, cmp_bundle);
  for (guint i = 0; i < bundles->len;)
    {
      Bundle b = g_array_index (bundles, Bundle, i);
      guint j = i + 1;
      g_autofree char *speed = sim__diagram_gbps (f->speeds[b.speed]);
      g_autofree char *label = NULL;
      Agedge_t *e;
      for (; j < bundles->len && cmp_bundle (&b, &g_array_index (bundles, Bundle, j)) == 0; j++)
        {
          b.count++;
          b.heat_sum += g_array_index (bundles, Bundle, j).heat_sum;
          b.heat_n += g_array_index (bundles, Bundle, j).heat_n;
        }
      i = j;
      speed_used[b.speed] = TRUE;
      model_used[b.model] = TRUE;
      e = agedge (g, box[b.a], box[b.b], NULL, 1);
      if (b.tier == SIM_TIER_ACCESS && f->drawn[f->class_first[b.a]].rail >= 0)
        /* Node to rail: which NIC of each node it is, the pattern of the
         * rails drawn once. */
        label = g_strdup_printf ("NIC %d\n%u x %s", f->drawn[f->class_first[b.a]].rail,
                                 b.count, speed);
      else
        label = g_strdup_printf ("%u x %s", b.count, speed);
      sim__diagram_set (e, "style", model_styles[b.model % G_N_ELEMENTS (model_styles)]);
      sim__diagram_set (e, "color", speed_colours[b.speed % G_N_ELEMENTS (speed_colours)]);
      if (f->opt->heat == SIM_DIAGRAM_HEAT_LINKS)
        {
          char colour[8];
          heat_colour (b.heat_n > 0 ? b.heat_sum / b.heat_n : NAN, colour);
          sim__diagram_set (e, "color", colour);
          sim__diagram_set (e, "penwidth", "2.5");
          if (b.heat_n > 0)
            {
              g_autofree char *more = g_strdup_printf ("%s\n%.0f %% load", label,
                                                       100 * b.heat_sum / b.heat_n);
              g_free (label);
              label = g_steal_pointer (&more);
            }
        }
      if (f->drawn[f->class_first[b.a]].tier == f->drawn[f->class_first[b.b]].tier)
        sim__diagram_set (e, "constraint", "false");
      sim__diagram_set (e, "label", label);
    }
  if (f->n_classes + bundles->len > SIM_DIAGRAM_BIG)
    {
      /* A big (expanded) graph: fewer rounds of crossing reduction and of
       * the network simplex that places vertices.  Edges may cross more;
       * labels are still vertices of their own, so they still never
       * overlap.  10,000 GPUs expanded: 9 s instead of 65 s. */
      sim__diagram_set (g, "mclimit", "0.05");
      sim__diagram_set (g, "nslimit", "2");
      sim__diagram_set (g, "nslimit1", "2");
      sim__diagram_set (g, "searchsize", "10");
      sim__diagram_set (g, "remincross", "false");
    }
  add_legend (g, f, tiers_present, speed_used, model_used);
  return g;
}

/* Collects and refines @f, after checking the heat arrays. */
static gboolean
fabric_prepare (Fabric *f, const SimTopology *topology, const SimCluster *cluster,
                const SimDiagramOptions *options, GError **error)
{
  f->opt = options;
  f->t = topology;
  f->cluster = cluster;
  f->n_nodes = sim_cluster_get_n_nodes (cluster);
  if (f->opt->heat != SIM_DIAGRAM_HEAT_NONE &&
      (f->opt->n_nodes != f->n_nodes ||
       (f->opt->heat == SIM_DIAGRAM_HEAT_NODES ? f->opt->node_heat : f->opt->link_heat) == NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the run's figures are for %u nodes; this cluster has %u", f->opt->n_nodes,
                   f->n_nodes);
      return FALSE;
    }
  fabric_collect (f);
  fabric_refine (f);
  return TRUE;
}

gboolean
sim_topology_check_diagram_width (const SimTopology *topology, const SimCluster *cluster,
                                  const SimDiagramOptions *options, guint max_width,
                                  guint *width, GError **error)
{
  static const SimDiagramOptions defaults = { FALSE, SIM_DIAGRAM_HEAT_NONE, NULL, NULL, NULL, 0 };
  static const char * const tier_names[N_TIERS] = { "nodes", "leaves", "spines", "cores" };
  Fabric f = { 0 };
  guint boxes[N_TIERS] = { 0 }, bands[N_TIERS] = { 0 }, widest = 0;
  int at = TIER_NODE;
  gboolean band = FALSE;
  g_autoptr(GHashTable) seen = NULL;

  g_return_val_if_fail (topology != NULL && cluster != NULL, FALSE);
  if (!fabric_prepare (&f, topology, cluster, options != NULL ? options : &defaults, error))
    {
      fabric_clear (&f);
      return FALSE;
    }
  /* Boxes: one per class.  Bundles: one per pair of classes, speed and
   * model (as build_fabric_graph() merges them), on the band above the
   * lower of their two tiers. */
  for (guint c = 0; c < f.n_classes; c++)
    boxes[f.drawn[f.class_first[c]].tier]++;
  seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < f.links->len; i++)
    {
      const DLink *d = &g_array_index (f.links, DLink, i);
      guint ca = f.drawn[d->a].colour, cb = f.drawn[d->b].colour;
      char *key = g_strdup_printf ("%u/%u/%u/%u", MIN (ca, cb), MAX (ca, cb), d->speed,
                                   d->model);
      if (g_hash_table_add (seen, key))
        bands[MIN (f.drawn[d->a].tier, f.drawn[d->b].tier)]++;
    }
  for (int t = TIER_NODE; t < N_TIERS; t++)
    {
      if (boxes[t] > widest)
        {
          widest = boxes[t];
          at = t;
          band = FALSE;
        }
      if (bands[t] > widest)
        {
          widest = bands[t];
          at = t;
          band = TRUE;
        }
    }
  fabric_clear (&f);
  if (width != NULL)
    *width = widest;
  if (max_width > 0 && widest > max_width)
    {
      g_autofree char *where = band
        ? g_strdup_printf ("%u labelled bundles of links from the %s up", widest,
                           tier_names[at])
        : g_strdup_printf ("%u boxes of %s", widest, tier_names[at]);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the diagram would be %u boxes or labels wide (%s), more than the limit of "
                   "%u: expected %sa limit of %u or more, or fewer nodes", widest, where,
                   max_width, f.opt->expand ? "a collapsed diagram (without expanding it), "
                                            : "", widest);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_topology_render (const SimTopology *topology, const SimCluster *cluster,
                     const SimDiagramOptions *options, const char *format, char **data,
                     gsize *length, GError **error)
{
  static const SimDiagramOptions defaults = { FALSE, SIM_DIAGRAM_HEAT_NONE, NULL, NULL, NULL, 0 };
  Fabric f = { 0 };
  Agraph_t *g;

  g_return_val_if_fail (topology != NULL && cluster != NULL && format != NULL, FALSE);
  g_return_val_if_fail (data != NULL && length != NULL, FALSE);
  if (!sim__diagram_check_format (format, TRUE, error))
    return FALSE;
  if (!fabric_prepare (&f, topology, cluster, options != NULL ? options : &defaults, error))
    return FALSE;
  g = build_fabric_graph (&f);
  fabric_clear (&f);
  return sim__diagram_render_graph (g, format, data, length, error);
}

typedef struct {
  const SimTopology *t;
  const SimCluster *c;
  const SimDiagramOptions *o;
} TopoArgs;

static gboolean
render_topology_cb (gpointer user_data, const char *format, char **data, gsize *length,
                    GError **error)
{
  TopoArgs *a = user_data;
  return sim_topology_render (a->t, a->c, a->o, format, data, length, error);
}

gboolean
sim_topology_write_diagram (const SimTopology *topology, const SimCluster *cluster,
                            const SimDiagramOptions *options, const char *path,
                            const char *format, GError **error)
{
  TopoArgs a = { topology, cluster, options };
  return sim_diagram_write_data (path, format, render_topology_cb, &a, error);
}

