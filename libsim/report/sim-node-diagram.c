/* sim-node-diagram.c: the inside of a catalogue node as a Graphviz graph
 * (sim_node_model_render(), sim-diagram.h). */
#include "config.h"

#include "report/sim-diagram.h"
#include "report/sim-diagram-private.h"

#include <graphviz/cgraph.h>
#include <string.h>

static Agnode_t *
part (Agraph_t *parent, Agraph_t *g, const char *name, const char *label, const char *colour)
{
  Agnode_t *n = agnode (parent, (char *) name, 1);
  agsubnode (g, n, 1);
  sim__diagram_set (n, "label", label);
  sim__diagram_set (n, "fillcolor", colour);
  return n;
}

static Agedge_t *
wire (Agraph_t *g, Agnode_t *a, Agnode_t *b, const char *label, const char *colour)
{
  Agedge_t *e = agedge (g, a, b, NULL, 1);
  sim__diagram_set (e, "label", label != NULL ? label : "");
  sim__diagram_set (e, "color", colour);
  return e;
}

gboolean
sim_node_model_render (const SimNodeModel *m, const char *format, char **data, gsize *length,
                       GError **error)
{
  Agraph_t *g, *top, *mid, *gpus, *bottom;
  const char *kind;
  guint n_gpu, n_nic, n_cpu = 1, n_sw = 0;
  gboolean is_pcie;
  double intra_bw, pcie_bw;
  const char *cpu_name;
  g_autofree Agnode_t **cpu = NULL, **sw = NULL, **gpu = NULL, **nic = NULL;
  g_autofree char *title = NULL, *pcie_text = NULL, *nic_text = NULL, *intra_text = NULL;

  g_return_val_if_fail (m != NULL && format != NULL && data != NULL && length != NULL, FALSE);
  if (!sim__diagram_check_format (format, TRUE, error))
    return FALSE;
  kind = m->intra_node != NULL ? m->intra_node : "pcie";
  is_pcie = strcmp (kind, "pcie") == 0;
  n_gpu = m->gpus;
  n_nic = m->nics;
  cpu_name = m->cpu != NULL ? m->cpu : "CPU";
  if (m->cpu != NULL)
    {
      /* "2x Intel Xeon Platinum 8480C": two sockets of the named CPU. */
      char *end = NULL;
      guint64 k = g_ascii_strtoull (m->cpu, &end, 10);
      if (end != m->cpu && k >= 1 && k <= 16 && (*end == 'x' || *end == 'X') && end[1] == ' ')
        {
          n_cpu = (guint) k;
          cpu_name = end + 2;
        }
    }
  if (is_pcie)
    n_sw = n_nic > 0 && n_gpu % n_nic == 0 && n_gpu / n_nic <= 4 ? n_nic
                                                                   : MAX (1u, (n_gpu + 3) / 4);
  intra_bw = m->intra_link != NULL ? m->intra_link->bandwidth
                                   : m->gpu != NULL ? m->gpu->scaleup_bandwidth : 0;
  pcie_bw = m->pcie_link != NULL ? m->pcie_link->bandwidth : 0;
  pcie_text = pcie_bw > 0 ? sim__diagram_gBps (pcie_bw) : g_strdup ("PCIe");
  nic_text = sim__diagram_gbps (m->nic_bandwidth);
  intra_text = sim__diagram_gBps (intra_bw);

  g = sim__diagram_new_graph ("node");
  agattr (g, AGRAPH, (char *) "rankdir", (char *) "TB");
  agattr (g, AGRAPH, (char *) "newrank", (char *) "true");
  agattr (g, AGRAPH, (char *) "compound", (char *) "true");
  agattr (g, AGRAPH, (char *) "ordering", (char *) "out");
  agattr (g, AGRAPH, (char *) "fontname", (char *) "Helvetica");
  agattr (g, AGRAPH, (char *) "fontsize", (char *) "12");
  agattr (g, AGRAPH, (char *) "label", (char *) "");
  agattr (g, AGRAPH, (char *) "labelloc", (char *) "t");
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
  agattr (g, AGEDGE, (char *) "color", (char *) "black");
  agattr (g, AGEDGE, (char *) "lhead", (char *) "");
  title = g_strdup_printf ("%s: %u x %s, %u NICs (%s), %s", m->name, n_gpu,
                           m->gpu != NULL ? m->gpu->name : m->gpu_name, n_nic,
                           m->nic_type != NULL ? m->nic_type : "network", m->cpu != NULL
                             ? m->cpu : "CPU");
  sim__diagram_set (g, "label", title);

  top = agsubg (g, (char *) "cpus", 1);
  sim__diagram_set (top, "rank", "same");
  mid = agsubg (g, (char *) "pcie_switches", 1);
  sim__diagram_set (mid, "rank", "same");
  gpus = agsubg (g, (char *) "gpus", 1);
  sim__diagram_set (gpus, "rank", "same");
  bottom = agsubg (g, (char *) "cluster_scaleup", 1);

  cpu = g_new0 (Agnode_t *, n_cpu);
  for (guint i = 0; i < n_cpu; i++)
    {
      g_autofree char *name = g_strdup_printf ("cpu%u", i);
      g_autofree char *label = m->cpu_cores > 0
        ? g_strdup_printf ("CPU %u\n%s\n%u cores", i, cpu_name, m->cpu_cores / n_cpu)
        : g_strdup_printf ("CPU %u\n%s", i, cpu_name);
      cpu[i] = part (top, g, name, label, "#d5e8d4");
    }
  if (n_cpu > 1)
    for (guint i = 0; i + 1 < n_cpu; i++)
      sim__diagram_set (wire (g, cpu[i], cpu[i + 1], "socket link", "#555555"), "constraint",
                        "false");
  sw = g_new0 (Agnode_t *, MAX (n_sw, 1));
  for (guint i = 0; i < n_sw; i++)
    {
      g_autofree char *name = g_strdup_printf ("pcie%u", i);
      g_autofree char *label = g_strdup_printf ("PCIe switch %u", i);
      sw[i] = part (mid, g, name, label, "#fff2cc");
      wire (g, cpu[(guint64) i * n_cpu / n_sw], sw[i], pcie_text, "#b85450");
    }
  gpu = g_new0 (Agnode_t *, MAX (n_gpu, 1));
  nic = g_new0 (Agnode_t *, MAX (n_nic, 1));
  for (guint i = 0; i < n_gpu; i++)
    {
      g_autofree char *name = g_strdup_printf ("gpu%u", i);
      g_autofree char *label = g_strdup_printf ("GPU %u\n%s", i,
                                                m->gpu != NULL ? m->gpu->name : m->gpu_name);
      Agnode_t *up;
      gpu[i] = part (gpus, g, name, label, "#dae8fc");
      up = is_pcie ? sw[(guint64) i * n_sw / MAX (n_gpu, 1)]
                   : cpu[(guint64) i * n_cpu / MAX (n_gpu, 1)];
      wire (g, up, gpu[i], pcie_text, "#b85450");
    }
  for (guint j = 0; j < n_nic; j++)
    {
      g_autofree char *name = g_strdup_printf ("nic%u", j);
      g_autofree char *label = g_strdup_printf ("NIC %u\n%s", j, nic_text);
      Agnode_t *up;
      nic[j] = part (gpus, g, name, label, "#e1d5e7");
      if (is_pcie)
        up = sw[j % MAX (n_sw, 1)];
      else if (n_gpu > 0)
        up = gpu[n_nic >= n_gpu ? j % n_gpu : (guint) ((guint64) j * n_gpu / n_nic)];
      else
        up = cpu[j % n_cpu];
      wire (g, up, nic[j], pcie_text, "#b85450");
    }
  /* Each row in index order, left to right: GPU 0, its NIC, GPU 1, ...
   * (invisible edges inside the row's rank). */
  {
    Agnode_t *prev = NULL;
    for (guint i = 0; i < MAX (n_gpu, n_nic); i++)
      {
        Agnode_t *row_nodes[2] = { i < n_gpu ? gpu[i] : NULL,
                                   i < n_nic && n_nic >= n_gpu ? nic[i] : NULL };
        for (guint k = 0; k < 2; k++)
          if (row_nodes[k] != NULL)
            {
              if (prev != NULL)
                sim__diagram_set (agedge (gpus, prev, row_nodes[k], NULL, 1), "style", "invis");
              prev = row_nodes[k];
            }
      }
    for (guint i = 0; i + 1 < n_sw; i++)
      sim__diagram_set (agedge (mid, sw[i], sw[i + 1], NULL, 1), "style", "invis");
  }
  if (strcmp (kind, "nvswitch") == 0 && n_gpu > 1)
    {
      guint chips = MAX (m->nvswitches, 1u);
      g_autofree char *cap = g_strdup_printf ("%s: %u NVSwitch chip%s, each GPU linked to "
                                              "every chip, %s per GPU each way",
                                              m->intra_link != NULL ? m->intra_link->name
                                                                    : "NVLink",
                                              chips, chips > 1 ? "s" : "", intra_text);
      g_autofree Agnode_t **chip = g_new0 (Agnode_t *, chips);
      Agraph_t *row = agsubg (bottom, (char *) "nvswitch_row", 1);
      sim__diagram_set (row, "rank", "same");
      sim__diagram_set (bottom, "label", cap);
      sim__diagram_set (bottom, "style", "rounded");
      sim__diagram_set (bottom, "labelloc", "b");
      for (guint k = 0; k < chips; k++)
        {
          g_autofree char *name = g_strdup_printf ("nvs%u", k);
          g_autofree char *label = g_strdup_printf ("NVSwitch %u%s%s", k,
                                                    m->nvswitch_name != NULL ? "\n" : "",
                                                    m->nvswitch_name != NULL
                                                      ? m->nvswitch_name : "");
          chip[k] = part (row, g, name, label, "#f8cecc");
          if (k > 0)
            sim__diagram_set (agedge (g, chip[k - 1], chip[k], NULL, 1), "style", "invis");
        }
      /* Every GPU has links to every chip (its links spread over them, as
       * on an HGX board): one line per GPU and chip, the bandwidth in the
       * caption, since a label on each would hide the picture. */
      for (guint i = 0; i < n_gpu; i++)
        for (guint k = 0; k < chips; k++)
          {
            Agedge_t *e = wire (g, gpu[i], chip[k], NULL, "#6c8ebf");
            sim__diagram_set (e, "penwidth", "1.5");
          }
    }
  else if (n_gpu > 1 && !is_pcie)
    {
      /* A mesh: one unlabelled edge per pair, the bandwidth in a caption. */
      g_autofree char *share = sim__diagram_gBps (intra_bw / (n_gpu - 1));
      g_autofree char *cap = g_strdup_printf ("GPU mesh (%s): %s per pair, %s per GPU, each way",
                                              kind, share, intra_text);
      Agnode_t *n = part (bottom, g, "mesh", cap, "#f8cecc");
      sim__diagram_set (n, "shape", "note");
      for (guint i = 0; i < n_gpu; i++)
        for (guint j = i + 1; j < n_gpu; j++)
          {
            Agedge_t *e = wire (g, gpu[i], gpu[j], NULL, "#6c8ebf");
            sim__diagram_set (e, "constraint", "false");
          }
      sim__diagram_set (agedge (g, gpu[n_gpu / 2], n, NULL, 1), "style", "invis");
    }
  return sim__diagram_render_graph (g, format, data, length, error);
}
