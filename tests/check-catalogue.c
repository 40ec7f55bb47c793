/* check-catalogue.c: tests of the hardware catalogue (libsim/cluster/sim-catalogue.c)
 * and of the model files shipped in models/.
 *
 * What is checked, and against what:
 * - every GPU, node, link and switch model the simulator relies on loads
 *   from the source tree's models/, every node resolves to its GPU and to
 *   the link and switch models it names;
 * - the published figures in the shipped files equal those of the
 *   sources of the catalogue (models/SOURCES.md sections A1, A2, A3, B, E), written out
 *   here by hand rather than read from the files under test;
 * - the MIG geometry of every GPU with MIG obeys the invariants of NVIDIA's
 *   MIG user guide (instances fit in the compute slices, placements end
 *   within the GPU, max_instances instances can be placed side by side) and
 *   the profile counts of models/SOURCES.md A2;
 * - the search path: a later directory replaces a same-name model, and
 *   $GPUSIM_MODEL_PATH is read, with empty entries ignored;
 * - the cloud instance models (models/clouds/) carry the prices of
 *   models/SOURCES.md E with their dates, resolve to their GPU and node
 *   models, and a cluster's GPU or node model finds its instance;
 * - bad catalogue files are rejected with messages that name the file, the
 *   line, the group and key, and what was expected.
 *
 * What is not asserted: that the figures are right about the hardware (only
 * that they match their cited source), the layout of `describe` beyond a
 * few lines, or the order in which a bad file's several faults are found.
 */
#include "config.h"

#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim-error.h"
#include "cluster/sim-catalogue.h"
#include "check-tree.h"

#ifndef SIM_TOP_SRCDIR
#error "SIM_TOP_SRCDIR must be defined by the build"
#endif

#define MODELDIR SIM_TOP_SRCDIR "/models"

static const char *required_gpus[] = {
  "A100-SXM-80GB", "A100-SXM-40GB", "H100-SXM", "H200-SXM", "B200", "GH200", "MI250X",
  "MI300X", "P100", "V100-16GB", "V100-32GB", "T4", "A10",
};

static const char *required_nodes[] = {
  "DGX-A100", "DGX-H100", "HGX-H200", "HGX-B200", "MI300X-8", "PCIe-8GPU",
};

static const char *required_links[] = {
  "NVLink3", "NVLink4", "NVLink5", "PCIe-Gen4", "PCIe-Gen5", "Infinity-Fabric", "IB-HDR",
  "IB-NDR", "IB-XDR", "RoCE-200G", "RoCE-400G", "Eth-25G-TCP", "Eth-100G-TCP",
};

static const char *required_switches[] = {
  "NVSwitch-gen2", "NVSwitch-gen3", "NVSwitch-gen4", "Quantum-QM8700", "Quantum-2-QM9700",
  "Quantum-X800-Q3400", "Spectrum-4-SN5400", "Spectrum-SN2700",
};

static SimCatalogue *
load_source_catalogue (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) c = sim_catalogue_new ();

  ck_assert_msg (sim_catalogue_add_directory (c, MODELDIR, &error),
                 "loading %s: %s", MODELDIR, error ? error->message : "?");
  ck_assert_msg (sim_catalogue_resolve (c, &error), "resolving: %s",
                 error ? error->message : "?");
  return g_steal_pointer (&c);
}

/* Relative closeness, for figures that pass through unit conversion. */
static gboolean
near (double got, double want)
{
  return fabs (got - want) <= 1e-9 * fabs (want);
}

/* Writes @contents to @dir/@name and returns the path. */
static char *
write_file (const char *dir, const char *name, const char *contents)
{
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  ck_assert_msg (g_file_set_contents (path, contents, -1, &error), "writing %s: %s", path,
                 error ? error->message : "?");
  return path;
}

static const char minimal_gpu_fmt[] =
  "[gpu]\n"
  "name = %s\n"
  "fp16_tflops = %s\n"
  "memory = 80GB\n";

/* ------------------------------------------------------------------------ */

/* Truth: the models that shipped scenarios and trace replays name. */
START_TEST (test_required_models_load)
{
  g_autoptr(SimCatalogue) c = load_source_catalogue ();
  g_autoptr(GPtrArray) gpus = sim_catalogue_get_gpus (c);
  g_autoptr(GPtrArray) nodes = sim_catalogue_get_nodes (c);

  for (gsize i = 0; i < G_N_ELEMENTS (required_gpus); i++)
    {
      const SimGpuModel *g = sim_catalogue_lookup_gpu (c, required_gpus[i]);
      ck_assert_msg (g != NULL, "GPU model %s is missing", required_gpus[i]);
      /* The name in the file is spelt exactly as scenarios use it. */
      ck_assert_str_eq (g->name, required_gpus[i]);
      ck_assert (g->source_file != NULL && g_str_has_prefix (g->source_file, MODELDIR));
      ck_assert (g->fp16_tflops > 0 && g->memory_bytes > 0);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (required_nodes); i++)
    {
      const SimNodeModel *n = sim_catalogue_lookup_node (c, required_nodes[i]);
      ck_assert_msg (n != NULL, "node model %s is missing", required_nodes[i]);
      ck_assert_str_eq (n->name, required_nodes[i]);
      ck_assert_msg (n->gpu != NULL, "node %s does not resolve its GPU", n->name);
      ck_assert_ptr_eq (n->gpu, sim_catalogue_lookup_gpu (c, n->gpu_name));
      ck_assert_uint_ge (n->gpus, 1);
    }
  ck_assert_uint_ge (gpus->len, G_N_ELEMENTS (required_gpus));
  ck_assert_uint_ge (nodes->len, G_N_ELEMENTS (required_nodes));

  for (gsize i = 0; i < G_N_ELEMENTS (required_links); i++)
    {
      const SimLinkModel *l = sim_catalogue_lookup_link (c, required_links[i]);
      ck_assert_msg (l != NULL, "link model %s is missing", required_links[i]);
      ck_assert_str_eq (l->name, required_links[i]);
      ck_assert (l->bandwidth > 0 && l->efficiency > 0 && l->efficiency <= 1);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (required_switches); i++)
    {
      const SimSwitchModel *w = sim_catalogue_lookup_switch (c, required_switches[i]);
      ck_assert_msg (w != NULL, "switch model %s is missing", required_switches[i]);
      ck_assert_str_eq (w->name, required_switches[i]);
      ck_assert (w->radix >= 2 && w->port_bandwidth > 0);
    }
  /* Every shipped node names its links, and they resolve. */
  for (guint i = 0; i < nodes->len; i++)
    {
      const SimNodeModel *n = nodes->pdata[i];
      ck_assert_msg (n->intra_link != NULL && n->nic_link != NULL && n->pcie_link != NULL,
                     "node %s lacks a link model", n->name);
      ck_assert (n->nvswitch_name == NULL || n->nvswitch != NULL);
    }
  {
    g_autoptr(GPtrArray) links = sim_catalogue_get_links (c);
    g_autoptr(GPtrArray) switches = sim_catalogue_get_switches (c);
    ck_assert_uint_ge (links->len, G_N_ELEMENTS (required_links));
    ck_assert_uint_ge (switches->len, G_N_ELEMENTS (required_switches));
    for (guint i = 1; i < links->len; i++)
      ck_assert_int_lt (g_ascii_strcasecmp (((SimLinkModel *) links->pdata[i - 1])->name,
                                            ((SimLinkModel *) links->pdata[i])->name), 0);
  }

  /* Sorted by name, as the header promises. */
  for (guint i = 1; i < gpus->len; i++)
    ck_assert_int_lt (g_ascii_strcasecmp (((SimGpuModel *) gpus->pdata[i - 1])->name,
                                          ((SimGpuModel *) gpus->pdata[i])->name), 0);

  /* Lookups ignore case. */
  ck_assert_ptr_eq (sim_catalogue_lookup_gpu (c, "h100-sxm"),
                    sim_catalogue_lookup_gpu (c, "H100-SXM"));
  ck_assert_ptr_eq (sim_catalogue_lookup_node (c, "dgx-h100"),
                    sim_catalogue_lookup_node (c, "DGX-H100"));
  ck_assert_ptr_null (sim_catalogue_lookup_gpu (c, "DGX-H100"));
}
END_TEST

/* Truth: models/SOURCES.md A1 (GPUs), A3 (DGX systems), E (prices). */
START_TEST (test_published_figures)
{
  g_autoptr(SimCatalogue) c = load_source_catalogue ();
  const SimGpuModel *h100 = sim_catalogue_lookup_gpu (c, "H100-SXM");
  const SimGpuModel *a100 = sim_catalogue_lookup_gpu (c, "A100-SXM-80GB");
  const SimGpuModel *mi300x = sim_catalogue_lookup_gpu (c, "MI300X");
  const SimGpuModel *b200 = sim_catalogue_lookup_gpu (c, "B200");
  const SimGpuModel *h200 = sim_catalogue_lookup_gpu (c, "H200-SXM");
  const SimNodeModel *dgxh = sim_catalogue_lookup_node (c, "DGX-H100");
  const SimNodeModel *dgxa = sim_catalogue_lookup_node (c, "DGX-A100");

  /* A1 "H100 SXM": 989 TF, 1,979 FP8, 80 GB, 3.35 TB/s, 900 GB/s, 700 W. */
  ck_assert (near (h100->fp16_tflops, 989));
  ck_assert (near (h100->fp8_tflops, 1979));
  ck_assert_uint_eq (h100->memory_bytes, 80000000000ull);
  ck_assert (near (h100->memory_bandwidth, 3.35e12));
  ck_assert (near (h100->scaleup_bandwidth, 900e9));
  ck_assert (near (h100->tdp_w, 700));
  ck_assert_uint_eq (h100->mig_slices, 7);

  /* A1 "A100 SXM 80GB": 312 TF, 2.039 TB/s, 600 GB/s, 400 W. */
  ck_assert (near (a100->fp16_tflops, 312));
  ck_assert (near (a100->memory_bandwidth, 2.039e12));
  ck_assert (near (a100->scaleup_bandwidth, 600e9));
  ck_assert (near (a100->tdp_w, 400));

  /* A1 "MI300X": 1,307.4 TF, 2,614.9 FP8, 192 GB, 5.3 TB/s, 750 W, no MIG. */
  ck_assert (near (mi300x->fp16_tflops, 1307.4));
  ck_assert (near (mi300x->fp8_tflops, 2614.9));
  ck_assert_uint_eq (mi300x->memory_bytes, 192000000000ull);
  ck_assert (near (mi300x->memory_bandwidth, 5.3e12));
  ck_assert (near (mi300x->tdp_w, 750));
  ck_assert_uint_eq (mi300x->mig_slices, 0);
  ck_assert_uint_eq (mi300x->n_mig_profiles, 0);

  /* A1 "B200 (HGX, 1000 W)": 2,250 TF, 4,500 FP8, 8 TB/s, 1.8 TB/s, 1000 W. */
  ck_assert (near (b200->fp16_tflops, 2250));
  ck_assert (near (b200->fp8_tflops, 4500));
  ck_assert (near (b200->memory_bandwidth, 8e12));
  ck_assert (near (b200->scaleup_bandwidth, 1.8e12));
  ck_assert (near (b200->tdp_w, 1000));

  /* A1 "H200 SXM": 141 GB at 4.8 TB/s. */
  ck_assert_uint_eq (h200->memory_bytes, 141000000000ull);
  ck_assert (near (h200->memory_bandwidth, 4.8e12));

  /* A3 "DGX H100": 8 GPUs, 4 NVSwitches, 8 NICs at 400 Gb/s = 50e9 B/s, 10.2 kW. */
  ck_assert_uint_eq (dgxh->gpus, 8);
  ck_assert_ptr_eq (dgxh->gpu, h100);
  ck_assert_str_eq (dgxh->intra_node, "nvswitch");
  ck_assert_uint_eq (dgxh->nvswitches, 4);
  ck_assert_uint_eq (dgxh->nics, 8);
  ck_assert (near (dgxh->nic_bandwidth, 50e9));
  ck_assert (near (dgxh->max_power_w, 10.2e3));

  /* A3 "DGX A100": 6 NVSwitches, 8 NICs at 200 Gb/s, 6.5 kW, $199k. */
  ck_assert_uint_eq (dgxa->gpus, 8);
  ck_assert_uint_eq (dgxa->nvswitches, 6);
  ck_assert_uint_eq (dgxa->nics, 8);
  ck_assert (near (dgxa->nic_bandwidth, 25e9));
  ck_assert (near (dgxa->max_power_w, 6.5e3));
  ck_assert (near (dgxa->price_usd, 199000));
}
END_TEST

/* Truth: models/SOURCES.md A1 (scale-up bandwidths), B1 (measured bus
 * bandwidths, the efficiencies' source), B4 (latencies), E (Quantum-2). */
START_TEST (test_network_figures)
{
  g_autoptr(SimCatalogue) c = load_source_catalogue ();
  const SimLinkModel *nv4 = sim_catalogue_lookup_link (c, "NVLink4");
  const SimLinkModel *nv3 = sim_catalogue_lookup_link (c, "nvlink3");
  const SimLinkModel *ndr = sim_catalogue_lookup_link (c, "IB-NDR");
  const SimLinkModel *hdr = sim_catalogue_lookup_link (c, "IB-HDR");
  const SimLinkModel *tcp = sim_catalogue_lookup_link (c, "Eth-100G-TCP");
  const SimLinkModel *inf = sim_catalogue_lookup_link (c, "Infinity-Fabric");
  const SimSwitchModel *q2 = sim_catalogue_lookup_switch (c, "Quantum-2-QM9700");
  const SimSwitchModel *nvs3 = sim_catalogue_lookup_switch (c, "NVSwitch-gen3");
  const SimNodeModel *dgxh = sim_catalogue_lookup_node (c, "DGX-H100");

  /* A1 "H100 SXM": 900 GB/s both ways = 450 GB/s per direction; B1: 365-370
   * of 450 GB/s ring bus bandwidth. */
  ck_assert (near (nv4->bandwidth, 450e9));
  ck_assert (nv4->efficiency * 450 >= 365 && nv4->efficiency * 450 <= 370);
  ck_assert_str_eq (nv4->kind, "nvlink");
  ck_assert_uint_eq (nv4->links_per_gpu, 18);
  /* A1 "A100": 600 GB/s both ways; B1: about 230 GB/s bus bandwidth. */
  ck_assert (near (nv3->bandwidth, 300e9));
  ck_assert (fabs (nv3->efficiency * 300 - 230) <= 3);
  /* A1 "MI300X": 896 GB/s both ways over 7 links. */
  ck_assert (near (inf->bandwidth * 2, 896e9));
  ck_assert_uint_eq (inf->links_per_gpu, 7);
  /* B1 "Per NIC": NDR 46-49 of 50 GB/s, HDR 24 of 25, 100G 12.2 of 12.5. */
  ck_assert (near (ndr->bandwidth, 50e9));
  ck_assert (ndr->efficiency * 50 >= 46 && ndr->efficiency * 50 <= 49);
  ck_assert (near (hdr->bandwidth, 25e9));
  ck_assert (near (hdr->efficiency * 25, 24));
  ck_assert (near (tcp->efficiency * 12.5, 12.2));
  ck_assert_str_eq (ndr->transport, "rdma");
  ck_assert (ndr->optical && !ndr->access_optical);
  /* B4: kernel TCP 10-30 us one way; RDMA about 1 us through one switch:
   * 2 x (PCIe 300 + cable 100) + switch 150 = 950 ns. */
  ck_assert_str_eq (tcp->transport, "tcp");
  ck_assert (tcp->transport_latency_ns >= 10000 && tcp->transport_latency_ns <= 30000);
  ck_assert_int_eq (2 * (dgxh->pcie_link->latency_ns + ndr->latency_ns) + q2->latency_ns, 950);
  /* B4: ib_send_lat one way 0.81-0.83 us at 32 B (inline) and 1.5-1.6 us
   * at 1 KB (read from memory): the verbs transport's 0.7 us per message
   * lies between the differences, 0.67 and 0.79 us. */
  ck_assert (ndr->transport_latency_ns >= 1500 - 830 && ndr->transport_latency_ns <= 1600 - 810);
  ck_assert_int_eq (hdr->transport_latency_ns, ndr->transport_latency_ns);
  /* E "Quantum-2": 64 x 400G; "64-port NDR switch" $36-50k; B4 <150 ns. */
  ck_assert_uint_eq (q2->radix, 64);
  ck_assert (near (q2->port_bandwidth, 50e9));
  ck_assert (near (q2->price_usd, 36000));
  ck_assert_int_eq (q2->latency_ns, 150);
  ck_assert (q2->in_network_reduction);
  ck_assert_str_eq (q2->kind, "infiniband");
  /* The H100's NVSwitch reduces in the switch (B1 "NVLS"). */
  ck_assert (nvs3->in_network_reduction);
  /* DGX H100 resolves its links and NVSwitch model. */
  ck_assert_ptr_eq (dgxh->intra_link, nv4);
  ck_assert_ptr_eq (dgxh->nic_link, ndr);
  ck_assert_ptr_eq (dgxh->nvswitch, nvs3);
}
END_TEST

/* Truth (per-GPU figures rounded to the source's last digit): models/SOURCES.md E,
 * "AWS p5.48xlarge (8×H100) on demand" ($98.32
 * at launch, nextplatform 2023-07-27), "AWS p4d.24xlarge" ($32.77), "AWS
 * Capacity Blocks" (p5 $39.33, H200 $43.26, p4d $14.75, late 2024), and the
 * per-GPU-hour figures the same rows give ($12.29, $4.10, $4.916, $5.408,
 * $1.844). */
START_TEST (test_cloud_models)
{
  g_autoptr(SimCatalogue) c = load_source_catalogue ();
  g_autoptr(GPtrArray) clouds = sim_catalogue_get_clouds (c);
  const SimCloudModel *p5 = sim_catalogue_lookup_cloud (c, "AWS-p5.48xlarge");
  const SimCloudModel *p4d = sim_catalogue_lookup_cloud (c, "aws-p4d.24xlarge");
  const SimCloudModel *p5e = sim_catalogue_lookup_cloud (c, "AWS-p5e.48xlarge");
  g_autofree char *text = NULL;

  ck_assert_ptr_nonnull (p5);
  ck_assert_ptr_nonnull (p4d);
  ck_assert_ptr_nonnull (p5e);
  ck_assert_uint_ge (clouds->len, 3);
  for (guint i = 1; i < clouds->len; i++)
    ck_assert_int_lt (g_ascii_strcasecmp (((SimCloudModel *) clouds->pdata[i - 1])->name,
                                          ((SimCloudModel *) clouds->pdata[i])->name), 0);

  ck_assert_str_eq (p5->provider, "AWS");
  ck_assert_str_eq (p5->instance, "p5.48xlarge");
  ck_assert_ptr_eq (p5->gpu, sim_catalogue_lookup_gpu (c, "H100-SXM"));
  ck_assert_uint_eq (p5->gpus, 8);
  ck_assert (near (p5->on_demand_usd_per_hour, 98.32));
  ck_assert (fabs (p5->on_demand_usd_per_hour / p5->gpus - 12.29) < 0.005);
  ck_assert_str_eq (p5->on_demand_date, "2023-07-27");
  ck_assert (near (p5->reserved_usd_per_hour, 39.33));
  ck_assert (fabs (p5->reserved_usd_per_hour / p5->gpus - 4.916) < 0.0006);
  ck_assert (strstr (p5->reserved_terms, "Capacity Blocks") != NULL);
  ck_assert_str_eq (p5->reserved_date, "2024");

  ck_assert_ptr_eq (p4d->gpu, sim_catalogue_lookup_gpu (c, "A100-SXM-40GB"));
  ck_assert_uint_eq (p4d->gpus, 8);
  ck_assert (near (p4d->on_demand_usd_per_hour, 32.77));
  ck_assert (fabs (p4d->on_demand_usd_per_hour / p4d->gpus - 4.10) < 0.005);
  ck_assert (near (p4d->reserved_usd_per_hour, 14.75));
  ck_assert (fabs (p4d->reserved_usd_per_hour / p4d->gpus - 1.844) < 0.0006);

  /* Built like the HGX H200 node: the GPU model and count come from it. */
  ck_assert_ptr_eq (p5e->node, sim_catalogue_lookup_node (c, "HGX-H200"));
  ck_assert_str_eq (p5e->gpu_name, "H200-SXM");
  ck_assert_ptr_eq (p5e->gpu, sim_catalogue_lookup_gpu (c, "H200-SXM"));
  ck_assert_uint_eq (p5e->gpus, 8);
  ck_assert (p5e->on_demand_usd_per_hour == 0);
  ck_assert (near (p5e->reserved_usd_per_hour, 43.26));
  ck_assert (fabs (p5e->reserved_usd_per_hour / p5e->gpus - 5.408) < 0.0006);

  /* A reservation never costs more than on demand. */
  for (guint i = 0; i < clouds->len; i++)
    {
      const SimCloudModel *m = clouds->pdata[i];
      ck_assert (m->on_demand_usd_per_hour == 0
                 || m->reserved_usd_per_hour <= m->on_demand_usd_per_hour);
      ck_assert (m->on_demand_usd_per_hour == 0 || m->on_demand_date != NULL);
      ck_assert (m->reserved_usd_per_hour == 0 || m->reserved_date != NULL);
    }

  /* Matching a cluster: by node model first, then by GPU model and count. */
  ck_assert_ptr_eq (sim_catalogue_match_cloud (c, "DGX-H100", "H100-SXM", 8), p5);
  ck_assert_ptr_eq (sim_catalogue_match_cloud (c, "DGX-A100", "A100-SXM-40GB", 8), p4d);
  ck_assert_ptr_eq (sim_catalogue_match_cloud (c, "hgx-h200", NULL, 0), p5e);
  ck_assert_ptr_eq (sim_catalogue_match_cloud (c, NULL, "h200-sxm", 8), p5e);
  ck_assert_ptr_null (sim_catalogue_match_cloud (c, NULL, "H100-SXM", 4));
  ck_assert_ptr_null (sim_catalogue_match_cloud (c, "MI300X-8", "MI300X", 8));

  text = sim_catalogue_describe (c, "AWS-p5.48xlarge", NULL);
  ck_assert_ptr_nonnull (text);
  ck_assert (strstr (text, "(cloud instance model)") != NULL);
  ck_assert (strstr (text, "on demand: $98.32 per hour ($12.290 per GPU-hour)") != NULL);
  ck_assert (strstr (text, "reserved: $39.33 per hour") != NULL);
  ck_assert_str_eq (sim_catalogue_suggest_cloud (c, "AWS-p5.48xlarg"), "AWS-p5.48xlarge");
}
END_TEST

/* Truth: the MIG user guide's rules, restated as invariants, checked on
 * every GPU that has MIG. */
START_TEST (test_mig_invariants)
{
  g_autoptr(SimCatalogue) c = load_source_catalogue ();
  g_autoptr(GPtrArray) gpus = sim_catalogue_get_gpus (c);
  guint with_mig = 0;

  for (guint i = 0; i < gpus->len; i++)
    {
      const SimGpuModel *g = gpus->pdata[i];

      if (g->mig_slices == 0)
        {
          ck_assert_uint_eq (g->n_mig_profiles, 0);
          continue;
        }
      with_mig++;
      /* models/SOURCES.md A2: 7 compute slices, at most 7 instances. */
      ck_assert_uint_eq (g->mig_slices, 7);
      ck_assert_uint_ge (g->n_mig_profiles, 6);
      for (guint j = 0; j < g->n_mig_profiles; j++)
        {
          const SimMigProfile *p = &g->mig_profiles[j];
          guint end = 0, placed = 0;
          g_autofree char *prefix = g_strdup_printf ("%ug.", p->compute_slices);
          double slice_bytes = (double) g->memory_bytes / 8;

          ck_assert_msg (p->max_instances * p->compute_slices <= g->mig_slices,
                         "%s %s: %u x %u > %u", g->name, p->name, p->max_instances,
                         p->compute_slices, g->mig_slices);
          ck_assert_uint_le (p->max_instances, 7);
          ck_assert_uint_le (p->max_instances * p->memory_slices, 8);
          ck_assert_uint_ge (p->n_placements, p->max_instances);
          /* The name says the compute slices: "3g.40gb" has 3. */
          ck_assert_msg (g_str_has_prefix (p->name, prefix), "%s %s", g->name, p->name);
          /* Memory is its share of 8 slices, up to the rounding of the name. */
          ck_assert_msg (fabs ((double) p->memory_bytes - p->memory_slices * slice_bytes) <= 1e9,
                         "%s %s: memory %" G_GUINT64_FORMAT, g->name, p->name,
                         p->memory_bytes);
          for (guint k = 0; k < p->n_placements; k++)
            {
              ck_assert_uint_le (p->placements[k] + p->compute_slices, g->mig_slices);
              if (k > 0)
                ck_assert_uint_gt (p->placements[k], p->placements[k - 1]);
              /* Greedy packing at the allowed starts. */
              if (p->placements[k] >= end)
                {
                  placed++;
                  end = p->placements[k] + p->compute_slices;
                }
            }
          ck_assert_msg (placed >= p->max_instances,
                         "%s %s: only %u of %u instances fit side by side", g->name,
                         p->name, placed, p->max_instances);
        }
    }
  /* A100-40GB, A100-80GB, H100, H200, GH200, B200. */
  ck_assert_uint_eq (with_mig, 6);
}
END_TEST

typedef struct {
  const char *gpu;
  guint       n_profiles;
  const char *profiles;  /* "name:max_instances ..." */
} MigCounts;

/* Truth: models/SOURCES.md A2, the profile table with instance counts. */
static const MigCounts mig_counts[] = {
  { "A100-SXM-40GB", 6, "1g.5gb:7 1g.10gb:4 2g.10gb:3 3g.20gb:2 4g.20gb:1 7g.40gb:1" },
  { "A100-SXM-80GB", 7,
    "1g.10gb:7 1g.20gb:4 2g.20gb:3 3g.40gb:2 4g.40gb:1 7g.80gb:1 1g.10gb+me:1" },
  { "H100-SXM", 7, "1g.10gb:7 1g.20gb:4 2g.20gb:3 3g.40gb:2 4g.40gb:1 7g.80gb:1 1g.10gb+me:1" },
  { "H200-SXM", 6, "1g.18gb:7 1g.35gb:4 2g.35gb:3 3g.71gb:2 4g.71gb:1 7g.141gb:1" },
  { "GH200", 6, "1g.12gb:7 7g.96gb:1" },
  { "B200", 6, "1g.23gb:7 7g.180gb:1" },
};

START_TEST (test_mig_counts)
{
  g_autoptr(SimCatalogue) c = load_source_catalogue ();
  const MigCounts *t = &mig_counts[_i];
  const SimGpuModel *g = sim_catalogue_lookup_gpu (c, t->gpu);
  g_auto(GStrv) want = g_strsplit (t->profiles, " ", -1);

  ck_assert_msg (g != NULL, "%s missing", t->gpu);
  ck_assert_uint_eq (g->n_mig_profiles, t->n_profiles);
  for (guint i = 0; want[i] != NULL; i++)
    {
      g_auto(GStrv) nv = g_strsplit (want[i], ":", 2);
      const SimMigProfile *found = NULL;

      for (guint j = 0; j < g->n_mig_profiles; j++)
        if (strcmp (g->mig_profiles[j].name, nv[0]) == 0)
          found = &g->mig_profiles[j];
      ck_assert_msg (found != NULL, "%s has no profile %s", t->gpu, nv[0]);
      ck_assert_uint_eq (found->max_instances, (guint) atoi (nv[1]));
    }
}
END_TEST

/* Truth: the header's rule that a later directory replaces a same-name
 * model; the values are written by this test. */
START_TEST (test_precedence)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("gpusim-cat-XXXXXX", &error);
  g_autofree char *a = g_build_filename (root, "a", NULL);
  g_autofree char *b = g_build_filename (root, "b", NULL);
  g_autofree char *ga = g_strdup_printf (minimal_gpu_fmt, "Test-GPU", "100");
  g_autofree char *gb = g_strdup_printf (minimal_gpu_fmt, "test-gpu", "200");
  g_autofree char *f1 = NULL, *f2 = NULL, *f3 = NULL;

  ck_assert_ptr_nonnull (root);
  g_mkdir (a, 0700);
  g_mkdir (b, 0700);
  f1 = write_file (a, "gpu.ini", ga);
  f2 = write_file (b, "gpu.ini", gb);
  f3 = write_file (a, "node.ini", "[node]\nname = Test-Node\ngpu = TEST-GPU\ngpus = 4\n");

  {
    g_autoptr(SimCatalogue) c = sim_catalogue_new ();
    const SimNodeModel *n;
    ck_assert (sim_catalogue_add_directory (c, a, &error));
    ck_assert (sim_catalogue_add_directory (c, b, &error));
    ck_assert (sim_catalogue_resolve (c, &error));
    ck_assert (near (sim_catalogue_lookup_gpu (c, "TEST-GPU")->fp16_tflops, 200));
    ck_assert_str_eq (sim_catalogue_lookup_gpu (c, "Test-GPU")->source_file, f2);
    /* The node follows the replacement. */
    n = sim_catalogue_lookup_node (c, "test-node");
    ck_assert_ptr_eq (n->gpu, sim_catalogue_lookup_gpu (c, "test-gpu"));
  }
  {
    g_autoptr(SimCatalogue) c = sim_catalogue_new ();
    ck_assert (sim_catalogue_add_directory (c, b, &error));
    ck_assert (sim_catalogue_add_directory (c, a, &error));
    ck_assert (near (sim_catalogue_lookup_gpu (c, "test-gpu")->fp16_tflops, 100));
  }
  {
    /* Replacing a shipped model: the extra directory comes last. */
    const char *extra[] = { b, NULL };
    g_autoptr(SimCatalogue) c = NULL;
    g_autofree char *h = g_strdup_printf (minimal_gpu_fmt, "H100-SXM", "1");
    g_autofree char *f4 = write_file (b, "h100.ini", h);

    g_setenv ("GPUSIM_MODEL_PATH", "", TRUE);
    c = sim_catalogue_new_default (extra, &error);
    ck_assert_msg (c != NULL, "%s", error ? error->message : "?");
    ck_assert (near (sim_catalogue_lookup_gpu (c, "H100-SXM")->fp16_tflops, 1));
    ck_assert_str_eq (sim_catalogue_lookup_gpu (c, "H100-SXM")->source_file, f4);
    /* DGX-H100 now points at the replacement. */
    ck_assert_ptr_eq (sim_catalogue_lookup_node (c, "DGX-H100")->gpu,
                      sim_catalogue_lookup_gpu (c, "H100-SXM"));
    g_unsetenv ("GPUSIM_MODEL_PATH");
  }
  {
    /* An extra directory that does not exist is an error. */
    g_autofree char *missing = g_build_filename (root, "missing", NULL);
    const char *extra[] = { missing, NULL };
    g_autoptr(SimCatalogue) c = sim_catalogue_new_default (extra, &error);
    ck_assert_ptr_null (c);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
    ck_assert (strstr (error->message, missing) != NULL);
  }
  check_remove_tree (root);
}
END_TEST

/* Truth: the header's search path; GPUSIM_MODEL_PATH is set by this test. */
START_TEST (test_model_path_env)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("gpusim-env-XXXXXX", &error);
  g_autofree char *sub = g_build_filename (root, "deep", "er", NULL);
  g_autofree char *gpu = g_strdup_printf (minimal_gpu_fmt, "Env-GPU", "42");
  g_autofree char *f = NULL;
  g_autofree char *env = g_strdup_printf (":%s::", root);
  g_autofree char *saved = g_strdup (g_getenv ("GPUSIM_MODEL_PATH"));
  g_auto(GStrv) path = NULL;
  g_autoptr(SimCatalogue) c = NULL;
  guint n;

  ck_assert_ptr_nonnull (root);
  g_mkdir_with_parents (sub, 0700);
  f = write_file (sub, "env.ini", gpu);
  g_setenv ("GPUSIM_MODEL_PATH", env, TRUE);

  path = sim_catalogue_default_path ();
  n = g_strv_length (path);
  /* The shipped catalogue, then the one non-empty entry. */
  ck_assert_uint_eq (n, 2);
  ck_assert_str_eq (path[1], root);
  for (guint i = 0; i < n; i++)
    ck_assert (path[i][0] != '\0');

  c = sim_catalogue_new_default (NULL, &error);
  ck_assert_msg (c != NULL, "%s", error ? error->message : "?");
  /* Found recursively, under deep/er/. */
  ck_assert (near (sim_catalogue_lookup_gpu (c, "env-gpu")->fp16_tflops, 42));
  ck_assert_ptr_nonnull (sim_catalogue_lookup_gpu (c, "H100-SXM"));

  if (saved != NULL)
    g_setenv ("GPUSIM_MODEL_PATH", saved, TRUE);
  else
    g_unsetenv ("GPUSIM_MODEL_PATH");
  check_remove_tree (root);
}
END_TEST

/* Truth: models/SOURCES.md A1 "H100 SXM", as the describe text must show it,
 * and the suggestion for a misspelt name. */
START_TEST (test_describe)
{
  g_autoptr(SimCatalogue) c = load_source_catalogue ();
  g_autoptr(GError) error = NULL;
  g_autofree char *h = sim_catalogue_describe (c, "h100-sxm", &error);
  g_autofree char *d = sim_catalogue_describe (c, "DGX-H100", &error);
  g_autofree char *none = NULL;

  ck_assert_ptr_nonnull (h);
  ck_assert (strstr (h, "H100-SXM") != NULL);
  ck_assert (strstr (h, "memory: 80 GB") != NULL);
  ck_assert (strstr (h, "memory bandwidth: 3.35 TB/s") != NULL);
  ck_assert (strstr (h, "scale-up bandwidth: 900 GB/s") != NULL);
  ck_assert (strstr (h, "TDP: 700 W") != NULL);
  ck_assert (strstr (h, "989 TFLOPS") != NULL);
  ck_assert (strstr (h, "3g.40gb") != NULL);
  ck_assert_ptr_nonnull (d);
  ck_assert (strstr (d, "8 x H100-SXM") != NULL);
  ck_assert (strstr (d, "NIC bandwidth: 400 Gb/s (50 GB/s)") != NULL);
  ck_assert (strstr (d, "max power: 10.2 kW") != NULL);

  none = sim_catalogue_describe (c, "H100-SMX", &error);
  ck_assert_ptr_null (none);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
  ck_assert (strstr (error->message, "did you mean \"H100-SXM\"") != NULL);
  ck_assert_str_eq (sim_catalogue_suggest (c, "dgx-h10"), "DGX-H100");
  ck_assert_ptr_null (sim_catalogue_suggest (c, "completely-different"));
  ck_assert_str_eq (sim_catalogue_suggest_link (c, "IB-NRD"), "IB-NDR");
  ck_assert_str_eq (sim_catalogue_suggest_switch (c, "Quantum-2"), "Quantum-2-QM9700");

  {
    g_autofree char *l = sim_catalogue_describe (c, "ib-ndr", NULL);
    g_autofree char *w = sim_catalogue_describe (c, "Quantum-2-QM9700", NULL);
    ck_assert_ptr_nonnull (l);
    ck_assert (strstr (l, "IB-NDR (link model)") != NULL);
    ck_assert (strstr (l, "bandwidth per direction: 400 Gb/s (50 GB/s)") != NULL);
    ck_assert (strstr (l, "usable bandwidth per direction: 47.5 GB/s") != NULL);
    ck_assert (strstr (l, "latency per hop: 100 ns") != NULL);
    ck_assert_ptr_nonnull (w);
    ck_assert (strstr (w, "radix: 64 ports") != NULL);
    ck_assert (strstr (w, "price: $36,000") != NULL);
    ck_assert (strstr (w, "in-network reduction: yes") != NULL);
  }
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Bad files.  Truth: each message must say where and what, as DESIGN.md's
 * "Errors" section asks: file, line, key, expectation. */

typedef struct {
  const char *label;
  const char *contents;
  gboolean    resolve;    /* the fault shows only at resolution */
  int         code;
  const char *must[5];    /* substrings; "@" stands for the file's path */
} BadFile;

static const BadFile bad_files[] = {
  { "unknown key",
    "[gpu]\nname = X\nmemroy = 80GB\nfp16_tflops = 1\nmemory = 80GB\n", FALSE,
    SIM_ERROR_UNKNOWN_KEY, { "@:3: ", "[gpu] memroy", "unknown key", "did you mean \"memory\"" } },
  { "missing unit",
    "# A GPU.\n[gpu]\nname = X\nfp16_tflops = 1\nmemory = 80\n", FALSE,
    SIM_ERROR_PARSE, { "@:5: ", "[gpu] memory", "\"80\" has no unit", "80GB" } },
  { "wrong unit",
    "[gpu]\nname = X\nfp16_tflops = 1\nmemory = 80GB\ntdp = 700Wh\n", FALSE,
    SIM_ERROR_PARSE, { "@:5: ", "[gpu] tdp", "unknown unit", "700W" } },
  { "missing required key",
    "\n[gpu]\nname = X\nmemory = 80GB\n", FALSE,
    SIM_ERROR_MISSING, { "@:2: ", "[gpu] fp16_tflops", "missing" } },
  { "missing node gpus",
    "[node]\nname = N\ngpu = H100-SXM\n", FALSE,
    SIM_ERROR_MISSING, { "@:1: ", "[node] gpus", "missing", "\"8\"" } },
  { "unknown first group",
    "# a heater\n\n[heater]\nname = S\n", FALSE,
    SIM_ERROR_UNKNOWN_KEY, { "@:3: ", "[heater]",
                             "expected [gpu], [node], [link], [switch], [cloud] or "
                             "[cooling]" } },
  { "cooling without its type",
    "# a cooler\n\n[cooling]\nname = S\n", FALSE,
    SIM_ERROR_MISSING, { "@:3: ", "[cooling] type", "missing", "air, liquid, immersion" } },
  { "cooling of an unknown type",
    "[cooling]\nname = S\ntype = oil\nchiller_cop = 6\nrated_outdoor = 25\nsupply = 12\n"
    "cop_max = 12\nserver_fans = 1\npue_low = 1.1\npue_high = 1.2\n", FALSE,
    SIM_ERROR_INVALID, { "@:3: ", "[cooling] type", "oil", "air, liquid" } },
  { "cooling whose PUE range is upside down",
    "[cooling]\nname = S\ntype = air\nchiller_cop = 6\nrated_outdoor = 25\nsupply = 12\n"
    "cop_max = 12\nserver_fans = 1\npue_low = 1.3\npue_high = 1.2\n", FALSE,
    SIM_ERROR_INVALID, { "[cooling] pue_high", "1.2", "at least pue_low" } },
  { "node with a bad power-supply efficiency",
    "[node]\nname = N\ngpu = H100-SXM\ngpus = 8\npsu_efficiency = 1.2\n", FALSE,
    SIM_ERROR_INVALID, { "@:5: ", "[node] psu_efficiency", "1.2", "0.3 to 1" } },
  { "unknown key in [link]",
    "[link]\nname = L\nkind = infiniband\nbandwidth = 400Gb/s\nlatnecy = 1us\n", FALSE,
    SIM_ERROR_UNKNOWN_KEY, { "@:5: ", "[link] latnecy", "did you mean \"latency\"?" } },
  { "link without bandwidth",
    "[link]\nname = L\nkind = infiniband\n", FALSE,
    SIM_ERROR_MISSING, { "@:1: ", "[link] bandwidth", "missing", "\"400Gb/s\"" } },
  { "bad link kind",
    "[link]\nname = L\nkind = infiniban\nbandwidth = 400Gb/s\n", FALSE,
    SIM_ERROR_INVALID, { "@:3: ", "[link] kind", "did you mean \"infiniband\"?" } },
  { "efficiency above 1",
    "[link]\nname = L\nkind = roce\nbandwidth = 400Gb/s\nefficiency = 1.2\n", FALSE,
    SIM_ERROR_INVALID, { "@:5: ", "[link] efficiency", "out of range" } },
  { "latency without unit",
    "[link]\nname = L\nkind = roce\nbandwidth = 400Gb/s\nlatency = 100\n", FALSE,
    SIM_ERROR_PARSE, { "@:5: ", "[link] latency", "no unit" } },
  { "bad boolean",
    "[link]\nname = L\nkind = roce\nbandwidth = 400Gb/s\noptical = yes\n", FALSE,
    SIM_ERROR_PARSE, { "@:5: ", "[link] optical", "\"yes\" is not a boolean", "true or false" } },
  { "switch without radix",
    "[switch]\nname = S\nkind = infiniband\nport_bandwidth = 400Gb/s\n", FALSE,
    SIM_ERROR_MISSING, { "@:1: ", "[switch] radix", "missing" } },
  { "second group in a switch file",
    "[switch]\nname = S\nkind = ethernet\nradix = 32\nport_bandwidth = 100Gb/s\n[swich]\n",
    FALSE, SIM_ERROR_UNKNOWN_KEY, { "@:6: ", "[swich]", "did you mean [switch]?" } },
  { "node with unknown intra_link",
    "[node]\nname = N\ngpus = 8\ngpu = H100-SXM\nintra_link = NVLink44\n", TRUE,
    SIM_ERROR_NOT_FOUND, { "@:5: ", "[node] intra_link", "\"NVLink44\"",
                           "did you mean \"NVLink4\"?" } },
  { "node with unknown NVSwitch model",
    "[node]\nname = N\ngpus = 8\ngpu = H100-SXM\nnvswitch_model = NVSwitch-gen9\n", TRUE,
    SIM_ERROR_NOT_FOUND, { "@:5: ", "[node] nvswitch_model", "unknown switch model" } },
  { "misspelt first group",
    "[nod]\nname = S\n", FALSE,
    SIM_ERROR_UNKNOWN_KEY, { "@:1: ", "[nod]", "did you mean [node]?" } },
  { "unknown group",
    "[gpu]\nname = X\nfp16_tflops = 1\nmemory = 80GB\nmig_slices = 7\n[mgi 1g.10gb]\n", FALSE,
    SIM_ERROR_UNKNOWN_KEY, { "@:6: ", "[mgi 1g.10gb]", "did you mean [mig 1g.10gb]?" } },
  { "node with unknown GPU",
    "[node]\nname = N\ngpus = 8\ngpu = H100-SMX\n", TRUE,
    SIM_ERROR_NOT_FOUND, { "@:4: ", "[node] gpu", "\"H100-SMX\"", "did you mean \"H100-SXM\"?" } },
  { "zero GPUs",
    "[node]\nname = N\ngpu = H100-SXM\ngpus = 0\n", FALSE,
    SIM_ERROR_INVALID, { "@:4: ", "[node] gpus", "out of range", "from 1" } },
  { "negative GPUs",
    "[node]\nname = N\ngpu = H100-SXM\n\ngpus = -8\n", FALSE,
    SIM_ERROR_INVALID, { "@:5: ", "[node] gpus", "-8", "out of range" } },
  { "GPUs not a number",
    "[node]\nname = N\ngpu = H100-SXM\ngpus = eight\n", FALSE,
    SIM_ERROR_PARSE, { "@:4: ", "[node] gpus", "\"eight\" is not an integer" } },
  { "bad interconnect",
    "[node]\nname = N\ngpu = H100-SXM\ngpus = 8\nintra_node = nvswich\n", FALSE,
    SIM_ERROR_INVALID, { "@:5: ", "[node] intra_node", "did you mean \"nvswitch\"?" } },
  { "duplicate key",
    "[gpu]\nname = X\nfp16_tflops = 1\nmemory = 80GB\nmemory = 40GB\n", FALSE,
    SIM_ERROR_PARSE, { "@:5: ", "[gpu] memory", "duplicate key", "line 4" } },
  { "MIG placement past the end",
    "[gpu]\nname = X\nfp16_tflops = 1\nmemory = 80GB\nmig_slices = 7\n"
    "[mig 3g.40gb]\ncompute_slices = 3\nmemory_slices = 4\nmemory = 40GB\n"
    "max_instances = 2\nplacements = 0, 5\n", FALSE,
    SIM_ERROR_INVALID, { "@:11: ", "[mig 3g.40gb] placements", "slice 5", "end at slice 8" } },
  { "MIG without mig_slices",
    "[gpu]\nname = X\nfp16_tflops = 1\nmemory = 80GB\n"
    "[mig 7g.80gb]\ncompute_slices = 7\nmemory_slices = 8\nmemory = 80GB\n"
    "max_instances = 1\nplacements = 0\n", FALSE,
    SIM_ERROR_MISSING, { "@:1: ", "[gpu] mig_slices", "missing" } },
  { "MIG too many instances",
    "[gpu]\nname = X\nfp16_tflops = 1\nmemory = 80GB\nmig_slices = 7\n"
    "[mig 2g.20gb]\ncompute_slices = 2\nmemory_slices = 2\nmemory = 20GB\n"
    "max_instances = 4\nplacements = 0, 2, 4, 5\n", FALSE,
    SIM_ERROR_INVALID, { "@:10: ", "[mig 2g.20gb] max_instances", "need 8 slices" } },
  { "idle above TDP",
    "[gpu]\nname = X\nfp16_tflops = 1\nmemory = 80GB\ntdp = 100W\nidle_power = 1kW\n", FALSE,
    SIM_ERROR_INVALID, { "@:6: ", "[gpu] idle_power", "less than the TDP" } },
  { "zero memory",
    "[gpu]\nname = X\nfp16_tflops = 1\nmemory = 0GB\n", FALSE,
    SIM_ERROR_INVALID, { "@:4: ", "[gpu] memory", "zero" } },
  { "not a key file",
    "this is not\na key file\n", FALSE,
    SIM_ERROR_PARSE, { "@:1: ", "not a valid key file" } },
  /* GKeyFile's message quotes the line; the line's number is found. */
  { "a line that is no key",
    "# a GPU\n[gpu]\nname = X\nthis is not a key\nfp16_tflops = 1\n", FALSE,
    SIM_ERROR_PARSE, { "@:4: ", "not a valid key file" } },
  { "empty file",
    "# nothing\n", FALSE,
    SIM_ERROR_MISSING, { "@: ", "expected the file to start with [gpu], [node], [link], "
                         "[switch], [cloud], [cooling], [failures] or [llm]" } },
  { "cloud without provider",
    "[cloud]\nname = C\ninstance = i\ngpu = H100-SXM\ngpus = 8\n"
    "reserved_usd_per_hour = 1\nreserved_terms = t\nreserved_source = s\nreserved_date = 2024\n",
    FALSE, SIM_ERROR_MISSING, { "@:1: ", "[cloud] provider", "missing", "\"AWS\"" } },
  { "cloud without a price",
    "[cloud]\nname = C\nprovider = P\ninstance = i\ngpu = H100-SXM\ngpus = 8\n", FALSE,
    SIM_ERROR_MISSING, { "@:1: ", "[cloud] on_demand_usd_per_hour", "on-demand or a reserved" } },
  { "cloud price without its date",
    "[cloud]\nname = C\nprovider = P\ninstance = i\ngpu = H100-SXM\ngpus = 8\n"
    "on_demand_usd_per_hour = 98.32\non_demand_source = s\n", FALSE,
    SIM_ERROR_MISSING, { "@:7: ", "[cloud] on_demand_date", "missing for on_demand_usd_per_hour" } },
  { "cloud reserved price without terms",
    "[cloud]\nname = C\nprovider = P\ninstance = i\ngpu = H100-SXM\ngpus = 8\n"
    "reserved_usd_per_hour = 39\nreserved_source = s\nreserved_date = 2024\n", FALSE,
    SIM_ERROR_MISSING, { "@:7: ", "[cloud] reserved_terms", "what the reserved price buys" } },
  { "cloud bad date",
    "[cloud]\nname = C\nprovider = P\ninstance = i\ngpu = H100-SXM\ngpus = 8\n"
    "on_demand_usd_per_hour = 98.32\non_demand_source = s\non_demand_date = 2023-02-30\n", FALSE,
    SIM_ERROR_INVALID, { "@:9: ", "[cloud] on_demand_date", "\"2023-02-30\" is not a date",
                         "YYYY-MM-DD" } },
  { "cloud reserved above on demand",
    "[cloud]\nname = C\nprovider = P\ninstance = i\ngpu = H100-SXM\ngpus = 8\n"
    "on_demand_usd_per_hour = 30\non_demand_source = s\non_demand_date = 2024\n"
    "reserved_usd_per_hour = 40\nreserved_terms = t\nreserved_source = s\n"
    "reserved_date = 2024\n", FALSE,
    SIM_ERROR_INVALID, { "@:10: ", "[cloud] reserved_usd_per_hour", "at most the on-demand" } },
  { "cloud negative price",
    "[cloud]\nname = C\nprovider = P\ninstance = i\ngpu = H100-SXM\ngpus = 8\n"
    "on_demand_usd_per_hour = -3\non_demand_source = s\non_demand_date = 2024\n", FALSE,
    SIM_ERROR_INVALID, { "@:7: ", "[cloud] on_demand_usd_per_hour", "out of range" } },
  { "cloud without GPU or node",
    "[cloud]\nname = C\nprovider = P\ninstance = i\n"
    "on_demand_usd_per_hour = 3\non_demand_source = s\non_demand_date = 2024\n", FALSE,
    SIM_ERROR_MISSING, { "@:1: ", "[cloud] gpu", "node = DGX-H100" } },
  { "cloud misspelt key",
    "[cloud]\nname = C\nprovider = P\ninstance = i\ngpu = H100-SXM\ngpus = 8\n"
    "on_demand_usd_per_hr = 3\n", FALSE,
    SIM_ERROR_UNKNOWN_KEY, { "@:7: ", "[cloud] on_demand_usd_per_hr",
                             "did you mean \"on_demand_usd_per_hour\"?" } },
  { "cloud with unknown GPU",
    "[cloud]\nname = C\nprovider = P\ninstance = i\ngpu = H100-SMX\ngpus = 8\n"
    "on_demand_usd_per_hour = 3\non_demand_source = s\non_demand_date = 2024\n", TRUE,
    SIM_ERROR_NOT_FOUND, { "@:5: ", "[cloud] gpu", "did you mean \"H100-SXM\"?" } },
  { "cloud with unknown node",
    "[cloud]\nname = C\nprovider = P\ninstance = i\n\nnode = DGX-H10\n"
    "on_demand_usd_per_hour = 3\non_demand_source = s\non_demand_date = 2024\n", TRUE,
    SIM_ERROR_NOT_FOUND, { "@:6: ", "[cloud] node", "did you mean \"DGX-H100\"?" } },
  { "cloud GPUs disagree with its node",
    "[cloud]\nname = C\nprovider = P\ninstance = i\nnode = DGX-H100\ngpus = 4\n"
    "on_demand_usd_per_hour = 3\non_demand_source = s\non_demand_date = 2024\n", TRUE,
    SIM_ERROR_INVALID, { "@:6: ", "[cloud] gpus", "DGX-H100's 8 GPUs" } },
};

START_TEST (test_bad_file)
{
  const BadFile *t = &bad_files[_i];
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("gpusim-bad-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autoptr(SimCatalogue) c = sim_catalogue_new ();
  gboolean ok;

  ck_assert_ptr_nonnull (root);
  path = write_file (root, "bad-model.ini", t->contents);
  if (t->resolve)
    {
      ck_assert (sim_catalogue_add_directory (c, MODELDIR, &error));
      /* A node whose GPU is unknown loads; resolution finds the fault. */
      ck_assert_msg (sim_catalogue_add_file (c, path, &error), "%s: %s", t->label,
                     error ? error->message : "?");
      ok = sim_catalogue_resolve (c, &error);
    }
  else
    ok = sim_catalogue_add_file (c, path, &error);
  ck_assert_msg (!ok, "%s: accepted", t->label);
  ck_assert_msg (error != NULL && error->domain == SIM_ERROR && error->code == t->code,
                 "%s: code %d, expected %d (%s)", t->label, error ? error->code : -1,
                 t->code, error ? error->message : "");
  for (guint i = 0; i < G_N_ELEMENTS (t->must) && t->must[i] != NULL; i++)
    {
      g_autofree char *want = NULL;
      if (t->must[i][0] == '@')
        want = g_strconcat (path, t->must[i] + 1, NULL);
      else
        want = g_strdup (t->must[i]);
      ck_assert_msg (strstr (error->message, want) != NULL,
                     "%s: message lacks '%s': %s", t->label, want, error->message);
    }
  /* A rejected file leaves the catalogue unchanged. */
  ck_assert_ptr_null (sim_catalogue_lookup_gpu (c, "X"));
  ck_assert_ptr_null (sim_catalogue_lookup_node (c, "S"));
  ck_assert_ptr_null (sim_catalogue_lookup_link (c, "L"));
  ck_assert_ptr_null (sim_catalogue_lookup_switch (c, "S"));
  if (!t->resolve)
    ck_assert_ptr_null (sim_catalogue_lookup_cloud (c, "C"));
  check_remove_tree (root);
}
END_TEST

static Suite *
catalogue_suite (void)
{
  Suite *s = suite_create ("catalogue");
  TCase *tc = tcase_create ("models");
  TCase *bad = tcase_create ("bad-files");

  tcase_add_test (tc, test_required_models_load);
  tcase_add_test (tc, test_published_figures);
  tcase_add_test (tc, test_network_figures);
  tcase_add_test (tc, test_mig_invariants);
  tcase_add_test (tc, test_cloud_models);
  tcase_add_loop_test (tc, test_mig_counts, 0, G_N_ELEMENTS (mig_counts));
  tcase_add_test (tc, test_precedence);
  tcase_add_test (tc, test_model_path_env);
  tcase_add_test (tc, test_describe);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (bad, test_bad_file, 0, G_N_ELEMENTS (bad_files));
  suite_add_tcase (s, bad);
  return s;
}

int
main (void)
{
  SRunner *runner = srunner_create (catalogue_suite ());
  int failed;

  srunner_run_all (runner, CK_NORMAL);
  failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed == 0 ? 0 : 1;
}
