/* sim-catalogue.c: the hardware catalogue, read from GLib key files.
 *
 * Each model file is parsed in full before the catalogue changes, so a bad
 * file leaves the catalogue as it was.  Parsing is driven by tables of key
 * descriptions (name, kind of value, where it goes, whether it is required),
 * one table per group kind, so that the unknown-key check, the "did you
 * mean" suggestion and the missing-key check all come from the same list.
 *
 * GKeyFile does not report line numbers, so the file's text is scanned once
 * alongside it: the scan records the line of every `[group]` header and
 * every `key =` line, and rejects duplicates (which GKeyFile would merge
 * silently).  Error messages read
 *
 *   PATH:LINE: [group] key: what is wrong: what was expected
 *
 * Models live in hash tables keyed by the lower-cased name, one per kind
 * (GPU, node, link, switch, cloud), so lookups ignore case and a later
 * model of the same name replaces the earlier one.  Node models point at
 * their GPU model and at the link and switch models they name, cloud
 * models at their node and GPU models; the pointers are refreshed after
 * every file, since a replaced model is freed.
 */
#include "config.h"

#include "sim-catalogue.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "core/sim-units.h"
#include "core/sim-read.h"
#include "cluster/sim-mig.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#ifndef SIM_MODELDIR
#define SIM_MODELDIR ""
#endif
#ifndef SIM_SOURCE_MODELDIR
#define SIM_SOURCE_MODELDIR ""
#endif

/* Deeper directory trees than this are taken to be symbolic-link loops. */
#define MAX_DEPTH 16

/* A node model and what the loader keeps about it. */
typedef struct {
  SimNodeModel pub;       /* first, so that a NodeEntry * is a SimNodeModel * */
  int          gpu_line;  /* line of the `gpu` key, for resolution errors */
  int          ref_lines[4]; /* lines of intra_link, nic_link, pcie_link, nvswitch */
  int          max_power_line; /* line of `max_power`, 0 if not given */
} NodeEntry;

/* A cloud instance model and the lines of the keys that resolution checks. */
typedef struct {
  SimCloudModel pub;      /* first, so that a CloudEntry * is a SimCloudModel * */
  gboolean      gpu_given;  /* the file gave `gpu` (else it comes from the node) */
  int           node_line, gpu_line, gpus_line;
} CloudEntry;

struct _SimCatalogue {
  gint        ref_count;
  GHashTable *gpus;     /* lower-cased name -> SimGpuModel *, owned */
  GHashTable *nodes;    /* lower-cased name -> NodeEntry *, owned */
  GHashTable *links;    /* lower-cased name -> SimLinkModel *, owned */
  GHashTable *switches; /* lower-cased name -> SimSwitchModel *, owned */
  GHashTable *clouds;   /* lower-cased name -> CloudEntry *, owned */
  GHashTable *coolings; /* lower-cased name -> SimCoolingModel *, owned */
};

/* ------------------------------------------------------------------------ */
/* Freeing */

static void
mig_profile_clear (SimMigProfile *p)
{
  g_clear_pointer (&p->name, g_free);
  g_clear_pointer (&p->placements, g_free);
}

static void
gpu_model_free (SimGpuModel *m)
{
  if (m == NULL)
    return;
  g_free (m->name);
  g_free (m->vendor);
  g_free (m->description);
  g_free (m->source_file);
  g_free (m->scaleup_link);
  for (guint i = 0; i < m->n_mig_profiles; i++)
    mig_profile_clear (&m->mig_profiles[i]);
  g_free (m->mig_profiles);
  g_free (m);
}

static void
node_entry_free (NodeEntry *e)
{
  if (e == NULL)
    return;
  g_free (e->pub.name);
  g_free (e->pub.description);
  g_free (e->pub.source_file);
  g_free (e->pub.gpu_name);
  g_free (e->pub.intra_node);
  g_free (e->pub.nic_type);
  g_free (e->pub.cpu);
  g_free (e->pub.intra_link_name);
  g_free (e->pub.nic_link_name);
  g_free (e->pub.pcie_link_name);
  g_free (e->pub.nvswitch_name);
  g_free (e);
}

static void
link_model_free (SimLinkModel *m)
{
  if (m == NULL)
    return;
  g_free (m->name);
  g_free (m->description);
  g_free (m->source_file);
  g_free (m->kind);
  g_free (m->transport);
  g_free (m);
}

static void
switch_model_free (SimSwitchModel *m)
{
  if (m == NULL)
    return;
  g_free (m->name);
  g_free (m->description);
  g_free (m->source_file);
  g_free (m->kind);
  g_free (m);
}

static void
cloud_entry_free (CloudEntry *e)
{
  if (e == NULL)
    return;
  g_free (e->pub.name);
  g_free (e->pub.description);
  g_free (e->pub.source_file);
  g_free (e->pub.provider);
  g_free (e->pub.instance);
  g_free (e->pub.node_name);
  g_free (e->pub.gpu_name);
  g_free (e->pub.on_demand_source);
  g_free (e->pub.on_demand_date);
  g_free (e->pub.reserved_terms);
  g_free (e->pub.reserved_source);
  g_free (e->pub.reserved_date);
  g_free (e);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimGpuModel, gpu_model_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CloudEntry, cloud_entry_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NodeEntry, node_entry_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimLinkModel, link_model_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimSwitchModel, switch_model_free)

static void
cooling_model_free (SimCoolingModel *m)
{
  if (m == NULL)
    return;
  g_free (m->name);
  g_free (m->description);
  g_free (m->source_file);
  g_free (m->type);
  g_free (m);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimCoolingModel, cooling_model_free)

/* ------------------------------------------------------------------------ */
/* Line numbers */

typedef struct {
  const char  *path;
  SimKeyLines *lines;
} FileIndex;

static void
file_index_clear (FileIndex *fi)
{
  g_clear_pointer (&fi->lines, sim__key_lines_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FileIndex, file_index_clear)

static int
file_index_line (const FileIndex *fi, const char *group, const char *key)
{
  return (int) sim__key_lines_find (fi->lines, group, key);
}

/* Records where each group and key of @text is; a group or key that
 * appears twice is an error (sim__key_lines_new()). */
static gboolean
file_index_build (FileIndex *fi, const char *path, const char *text, gsize len,
                  GError **error)
{
  fi->path = path;
  fi->lines = sim__key_lines_new (text, (gssize) len, path, error);
  return fi->lines != NULL;
}

/* "PATH:LINE: [group] key: " (or without the parts that are unknown). */
static char *
location (const FileIndex *fi, const char *group, const char *key, int line)
{
  GString *s = g_string_new (fi->path);

  if (line == 0 && group != NULL)
    line = file_index_line (fi, group, key);
  if (line == 0 && group != NULL && key != NULL)
    line = file_index_line (fi, group, NULL);
  if (line > 0)
    g_string_append_printf (s, ":%d", line);
  g_string_append (s, ": ");
  if (group != NULL && key != NULL)
    g_string_append_printf (s, "[%s] %s: ", group, key);
  else if (group != NULL)
    g_string_append_printf (s, "[%s]: ", group);
  return g_string_free (s, FALSE);
}

static void set_error_at (GError **error, const FileIndex *fi, const char *group,
                          const char *key, int line, int code, const char *format, ...)
  G_GNUC_PRINTF (7, 8);

/* Sets an error whose message starts with the location of @group / @key
 * (or of @line, if it is not 0). */
static void
set_error_at (GError **error, const FileIndex *fi, const char *group, const char *key,
              int line, int code, const char *format, ...)
{
  g_autofree char *where = location (fi, group, key, line);
  g_autofree char *what = NULL;
  va_list ap;

  va_start (ap, format);
  what = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, SIM_ERROR, code, "%s%s", where, what);
}

/* Passes on @local (from a unit parser) prefixed with the key's location. */
static void
propagate_at (GError **error, GError *local, const FileIndex *fi, const char *group,
              const char *key)
{
  g_autofree char *where = location (fi, group, key, 0);
  g_propagate_prefixed_error (error, local, "%s", where);
}

/* ------------------------------------------------------------------------ */
/* Key tables */

typedef enum {
  KIND_STRING,     /* char *, not empty */
  KIND_NUMBER,     /* double, a plain number */
  KIND_SIZE,       /* guint64 bytes, "80GB" */
  KIND_BANDWIDTH,  /* double bytes/s, "3.35TB/s" or "400Gb/s" */
  KIND_POWER,      /* double watts, "700W" */
  KIND_UINT,       /* guint, a plain integer */
  KIND_PLACEMENTS, /* SimMigProfile placements, "0, 2, 4, 6" */
  KIND_DURATION,   /* gint64 nanoseconds, "130ns", "2us" */
  KIND_BOOL,       /* gboolean, "true" or "false" */
} KeyKind;

typedef struct {
  const char *key;
  KeyKind     kind;
  gsize       offset;
  gboolean    required;
  gboolean    positive;   /* zero is not allowed */
  double      min, max;   /* for numbers and integers */
  const char *expected;   /* what a valid value looks like */
} KeyDesc;

#define GPU(field) offsetof (SimGpuModel, field)
#define NODE(field) offsetof (SimNodeModel, field)
#define MIG(field) offsetof (SimMigProfile, field)
#define LINK(field) offsetof (SimLinkModel, field)
#define SWITCH(field) offsetof (SimSwitchModel, field)
#define CLOUD(field) offsetof (SimCloudModel, field)

static const KeyDesc gpu_keys[] = {
  { "name", KIND_STRING, GPU (name), TRUE, FALSE, 0, 0, "a model name such as \"H100-SXM\"" },
  { "vendor", KIND_STRING, GPU (vendor), FALSE, FALSE, 0, 0, "a vendor such as \"NVIDIA\"" },
  { "description", KIND_STRING, GPU (description), FALSE, FALSE, 0, 0, "a line of text" },
  { "fp16_tflops", KIND_NUMBER, GPU (fp16_tflops), TRUE, TRUE, 0, 1e7,
    "dense FP16/BF16 tensor TFLOPS, a number such as \"989\"" },
  { "fp8_tflops", KIND_NUMBER, GPU (fp8_tflops), FALSE, FALSE, 0, 1e7,
    "dense FP8 TFLOPS, a number such as \"1979\"" },
  { "memory", KIND_SIZE, GPU (memory_bytes), TRUE, TRUE, 0, 0, "a size such as \"80GB\"" },
  { "memory_bandwidth", KIND_BANDWIDTH, GPU (memory_bandwidth), FALSE, FALSE, 0, 0,
    "a bandwidth such as \"3.35TB/s\"" },
  { "scaleup_bandwidth", KIND_BANDWIDTH, GPU (scaleup_bandwidth), FALSE, FALSE, 0, 0,
    "a bandwidth such as \"900GB/s\"" },
  { "scaleup_link", KIND_STRING, GPU (scaleup_link), FALSE, FALSE, 0, 0,
    "a link name such as \"NVLink4\"" },
  { "tdp", KIND_POWER, GPU (tdp_w), FALSE, FALSE, 0, 0, "a power such as \"700W\"" },
  { "idle_power", KIND_POWER, GPU (idle_w), FALSE, FALSE, 0, 0, "a power such as \"70W\"" },
  { "price_usd", KIND_NUMBER, GPU (price_usd), FALSE, FALSE, 0, 1e12,
    "a price in US dollars such as \"25000\"" },
  { "mig_slices", KIND_UINT, GPU (mig_slices), FALSE, FALSE, 1, 64,
    "the number of MIG compute slices, such as \"7\"" },
  { "sms", KIND_UINT, GPU (sms), FALSE, FALSE, 1, 100000,
    "the number of streaming multiprocessors, an integer such as \"132\"" },
};

static const KeyDesc mig_keys[] = {
  { "compute_slices", KIND_UINT, MIG (compute_slices), TRUE, FALSE, 1, 64,
    "compute slices, an integer such as \"1\"" },
  { "memory_slices", KIND_UINT, MIG (memory_slices), TRUE, FALSE, 1, 64,
    "memory slices, an integer such as \"1\"" },
  { "memory", KIND_SIZE, MIG (memory_bytes), TRUE, TRUE, 0, 0, "a size such as \"10GB\"" },
  { "max_instances", KIND_UINT, MIG (max_instances), TRUE, FALSE, 1, 64,
    "an integer such as \"7\"" },
  { "placements", KIND_PLACEMENTS, MIG (placements), TRUE, FALSE, 0, 63,
    "a list of start slices such as \"0, 2, 4, 6\"" },
  { "sms", KIND_UINT, MIG (sms), FALSE, FALSE, 1, 100000,
    "the instance's streaming multiprocessors, an integer such as \"16\"" },
};

static const KeyDesc node_keys[] = {
  { "name", KIND_STRING, NODE (name), TRUE, FALSE, 0, 0, "a model name such as \"DGX-H100\"" },
  { "description", KIND_STRING, NODE (description), FALSE, FALSE, 0, 0, "a line of text" },
  { "gpu", KIND_STRING, NODE (gpu_name), TRUE, FALSE, 0, 0,
    "a GPU model name such as \"H100-SXM\"" },
  { "gpus", KIND_UINT, NODE (gpus), TRUE, FALSE, 1, 4096,
    "the number of GPUs, an integer such as \"8\"" },
  { "intra_node", KIND_STRING, NODE (intra_node), FALSE, FALSE, 0, 0,
    "one of nvswitch, nvlink-mesh, pcie, infinity-fabric" },
  { "nvswitches", KIND_UINT, NODE (nvswitches), FALSE, FALSE, 0, 1024,
    "an integer such as \"4\"" },
  { "nics", KIND_UINT, NODE (nics), FALSE, FALSE, 0, 1024, "an integer such as \"8\"" },
  { "nic_bandwidth", KIND_BANDWIDTH, NODE (nic_bandwidth), FALSE, FALSE, 0, 0,
    "a bandwidth such as \"400Gb/s\"" },
  { "nic_type", KIND_STRING, NODE (nic_type), FALSE, FALSE, 0, 0,
    "a NIC type such as \"infiniband-ndr\"" },
  { "cpu", KIND_STRING, NODE (cpu), FALSE, FALSE, 0, 0,
    "a CPU description such as \"2x Intel Xeon Platinum 8480C\"" },
  { "cpu_cores", KIND_UINT, NODE (cpu_cores), FALSE, FALSE, 0, 1000000,
    "the node's CPU cores, an integer such as \"112\"" },
  { "memory", KIND_SIZE, NODE (memory_bytes), FALSE, FALSE, 0, 0, "a size such as \"2TB\"" },
  { "base_power", KIND_POWER, NODE (base_power_w), FALSE, FALSE, 0, 0,
    "a power such as \"1.5kW\"" },
  { "max_power", KIND_POWER, NODE (max_power_w), FALSE, FALSE, 0, 0,
    "a power such as \"10.2kW\"" },
  { "price_usd", KIND_NUMBER, NODE (price_usd), FALSE, FALSE, 0, 1e12,
    "a price in US dollars such as \"199000\"" },
  { "intra_link", KIND_STRING, NODE (intra_link_name), FALSE, FALSE, 0, 0,
    "a [link] model name such as \"NVLink4\"" },
  { "nic_link", KIND_STRING, NODE (nic_link_name), FALSE, FALSE, 0, 0,
    "a [link] model name such as \"IB-NDR\"" },
  { "pcie_link", KIND_STRING, NODE (pcie_link_name), FALSE, FALSE, 0, 0,
    "a [link] model name such as \"PCIe-Gen5\"" },
  { "nvswitch_model", KIND_STRING, NODE (nvswitch_name), FALSE, FALSE, 0, 0,
    "a [switch] model name such as \"NVSwitch-gen3\"" },
  { "cpu_idle_power", KIND_POWER, NODE (cpu_idle_power_w), FALSE, FALSE, 0, 0,
    "the CPUs' idle power, all together, such as \"200W\"" },
  { "cpu_max_power", KIND_POWER, NODE (cpu_max_power_w), FALSE, FALSE, 0, 0,
    "the CPUs' power fully loaded, all together, such as \"700W\"" },
  { "memory_power", KIND_POWER, NODE (memory_power_w), FALSE, FALSE, 0, 0,
    "the host memory's power, such as \"300W\"" },
  { "nic_power", KIND_POWER, NODE (nic_power_w), FALSE, FALSE, 0, 0,
    "the power of one NIC, such as \"25W\"" },
  { "fan_idle_power", KIND_POWER, NODE (fan_idle_power_w), FALSE, FALSE, 0, 0,
    "the fans' power with the GPUs idle, such as \"150W\"" },
  { "fan_max_power", KIND_POWER, NODE (fan_max_power_w), FALSE, FALSE, 0, 0,
    "the fans' power with the GPUs at full power, such as \"1kW\"" },
  { "other_power", KIND_POWER, NODE (other_power_w), FALSE, FALSE, 0, 0,
    "the constant draw of storage, board and management, such as \"250W\"" },
  { "psu_efficiency", KIND_NUMBER, NODE (psu_efficiency), FALSE, TRUE, 0.3, 1,
    "the power supplies' efficiency, a number in (0.3, 1] such as \"0.94\"" },
  { "sleep_power", KIND_POWER, NODE (sleep_power_w), FALSE, FALSE, 0, 0,
    "the node's draw asleep, such as \"60W\"" },
};

/* The node keys that name other models, in the order of NodeEntry.ref_lines. */
static const char * const node_ref_keys[] = { "intra_link", "nic_link", "pcie_link",
                                              "nvswitch_model" };

static const KeyDesc link_keys[] = {
  { "name", KIND_STRING, LINK (name), TRUE, FALSE, 0, 0, "a model name such as \"IB-NDR\"" },
  { "description", KIND_STRING, LINK (description), FALSE, FALSE, 0, 0, "a line of text" },
  { "kind", KIND_STRING, LINK (kind), TRUE, FALSE, 0, 0,
    "one of nvlink, pcie, infinity-fabric, infiniband, roce, ethernet" },
  { "bandwidth", KIND_BANDWIDTH, LINK (bandwidth), TRUE, TRUE, 0, 0,
    "a bandwidth per direction such as \"400Gb/s\" or \"450GB/s\"" },
  { "efficiency", KIND_NUMBER, LINK (efficiency), FALSE, TRUE, 0, 1,
    "the achieved share of the line rate, a number in (0, 1] such as \"0.95\"" },
  { "latency", KIND_DURATION, LINK (latency_ns), FALSE, FALSE, 0, 0,
    "a latency per hop such as \"100ns\" or \"2us\"" },
  { "transport_latency", KIND_DURATION, LINK (transport_latency_ns), FALSE, FALSE, 0, 0,
    "a latency per message such as \"20us\"" },
  { "transport", KIND_STRING, LINK (transport), FALSE, FALSE, 0, 0,
    "one of rdma, tcp, load-store" },
  { "links_per_gpu", KIND_UINT, LINK (links_per_gpu), FALSE, FALSE, 0, 1024,
    "the number of links per GPU, an integer such as \"18\"" },
  { "optical", KIND_BOOL, LINK (optical), FALSE, FALSE, 0, 0, "true or false" },
  { "access_optical", KIND_BOOL, LINK (access_optical), FALSE, FALSE, 0, 0, "true or false" },
  { "price_usd", KIND_NUMBER, LINK (price_usd), FALSE, FALSE, 0, 1e12,
    "a price in US dollars per cable or transceiver such as \"1000\"" },
  { "transceiver_power", KIND_POWER, LINK (transceiver_power_w), FALSE, FALSE, 0, 0,
    "the power of one optical transceiver, such as \"8W\"" },
};

static const KeyDesc switch_keys[] = {
  { "name", KIND_STRING, SWITCH (name), TRUE, FALSE, 0, 0,
    "a model name such as \"Quantum-2-QM9700\"" },
  { "description", KIND_STRING, SWITCH (description), FALSE, FALSE, 0, 0, "a line of text" },
  { "kind", KIND_STRING, SWITCH (kind), TRUE, FALSE, 0, 0,
    "one of nvswitch, infiniband, ethernet" },
  { "radix", KIND_UINT, SWITCH (radix), TRUE, FALSE, 2, 100000,
    "the number of ports, an integer such as \"64\"" },
  { "port_bandwidth", KIND_BANDWIDTH, SWITCH (port_bandwidth), TRUE, TRUE, 0, 0,
    "a bandwidth per port and direction such as \"400Gb/s\"" },
  { "latency", KIND_DURATION, SWITCH (latency_ns), FALSE, FALSE, 0, 0,
    "a port-to-port latency such as \"150ns\"" },
  { "power", KIND_POWER, SWITCH (power_w), FALSE, FALSE, 0, 0, "a power such as \"750W\"" },
  { "price_usd", KIND_NUMBER, SWITCH (price_usd), FALSE, FALSE, 0, 1e12,
    "a price in US dollars such as \"36000\"" },
  { "in_network_reduction", KIND_BOOL, SWITCH (in_network_reduction), FALSE, FALSE, 0, 0,
    "true or false" },
};

static const KeyDesc cloud_keys[] = {
  { "name", KIND_STRING, CLOUD (name), TRUE, FALSE, 0, 0,
    "a model name such as \"AWS-p5.48xlarge\"" },
  { "description", KIND_STRING, CLOUD (description), FALSE, FALSE, 0, 0, "a line of text" },
  { "provider", KIND_STRING, CLOUD (provider), TRUE, FALSE, 0, 0, "a provider such as \"AWS\"" },
  { "instance", KIND_STRING, CLOUD (instance), TRUE, FALSE, 0, 0,
    "the provider's instance type such as \"p5.48xlarge\"" },
  { "node", KIND_STRING, CLOUD (node_name), FALSE, FALSE, 0, 0,
    "a [node] model name such as \"DGX-H100\"" },
  { "gpu", KIND_STRING, CLOUD (gpu_name), FALSE, FALSE, 0, 0,
    "a GPU model name such as \"H100-SXM\"" },
  { "gpus", KIND_UINT, CLOUD (gpus), FALSE, FALSE, 1, 4096,
    "the number of GPUs per instance, an integer such as \"8\"" },
  { "on_demand_usd_per_hour", KIND_NUMBER, CLOUD (on_demand_usd_per_hour), FALSE, TRUE, 0, 1e6,
    "the on-demand price of one instance-hour in US dollars, such as \"98.32\"" },
  { "on_demand_source", KIND_STRING, CLOUD (on_demand_source), FALSE, FALSE, 0, 0,
    "where the on-demand price comes from, a line of text" },
  { "on_demand_date", KIND_STRING, CLOUD (on_demand_date), FALSE, FALSE, 0, 0,
    "the date of the on-demand price, \"YYYY\", \"YYYY-MM\" or \"YYYY-MM-DD\"" },
  { "reserved_usd_per_hour", KIND_NUMBER, CLOUD (reserved_usd_per_hour), FALSE, TRUE, 0, 1e6,
    "the reserved price of one instance-hour in US dollars, such as \"39.33\"" },
  { "reserved_terms", KIND_STRING, CLOUD (reserved_terms), FALSE, FALSE, 0, 0,
    "what the reserved price buys, such as \"AWS EC2 Capacity Blocks for ML\"" },
  { "reserved_source", KIND_STRING, CLOUD (reserved_source), FALSE, FALSE, 0, 0,
    "where the reserved price comes from, a line of text" },
  { "reserved_date", KIND_STRING, CLOUD (reserved_date), FALSE, FALSE, 0, 0,
    "the date of the reserved price, \"YYYY\", \"YYYY-MM\" or \"YYYY-MM-DD\"" },
};

static const char * const link_kinds[] = {
  "nvlink", "pcie", "infinity-fabric", "infiniband", "roce", "ethernet",
};
static const char * const link_transports[] = { "rdma", "tcp", "load-store" };
static const char * const switch_kinds[] = { "nvswitch", "infiniband", "ethernet" };

static const char * const intra_node_kinds[] = {
  "nvswitch", "nvlink-mesh", "pcie", "infinity-fabric",
};

static gboolean
parse_placements (const char *raw, const KeyDesc *d, SimMigProfile *p, GError **error)
{
  g_auto(GStrv) parts = g_strsplit_set (raw, ",;", -1);
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_parts = g_strv_length (parts);

  for (guint i = 0; i < n_parts; i++)
    {
      char *t = g_strstrip (parts[i]);
      gint64 v;

      /* A trailing separator, as GKeyFile lists end, is allowed. */
      if (*t == '\0' && i == n_parts - 1 && i > 0)
        break;
      if (*t == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "empty entry in \"%s\": expected %s", raw, d->expected);
          return FALSE;
        }
      if (!sim_parse_integer (t, (gint64) d->min, (gint64) d->max, &v, error))
        return FALSE;
      if (values->len > 0 && (guint) v <= g_array_index (values, guint, values->len - 1))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "\"%s\" is not in increasing order: expected %s", raw, d->expected);
          return FALSE;
        }
      {
        guint u = (guint) v;
        g_array_append_val (values, u);
      }
    }
  p->n_placements = values->len;
  p->placements = (guint *) (void *) g_array_free (g_steal_pointer (&values), FALSE);
  return TRUE;
}

/* Reads the keys of @group into @target as @descs say.  Unknown keys come
 * first, so that a misspelt required key is reported with a suggestion
 * rather than as missing. */
static gboolean
read_group (GKeyFile *kf, const FileIndex *fi, const char *group, const KeyDesc *descs,
            gsize n_descs, gpointer target, GError **error)
{
  g_auto(GStrv) keys = g_key_file_get_keys (kf, group, NULL, NULL);
  const char *names[32];

  g_assert (n_descs <= G_N_ELEMENTS (names));
  for (gsize i = 0; i < n_descs; i++)
    names[i] = descs[i].key;

  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      gboolean known = FALSE;
      const char *guess;

      for (gsize j = 0; j < n_descs && !known; j++)
        known = strcmp (keys[i], descs[j].key) == 0;
      if (known)
        continue;
      guess = sim__closest (keys[i], names, n_descs);
      if (guess != NULL)
        set_error_at (error, fi, group, keys[i], 0, SIM_ERROR_UNKNOWN_KEY,
                      "unknown key: did you mean \"%s\"?", guess);
      else
        {
          g_autoptr(GString) all = g_string_new (NULL);
          for (gsize j = 0; j < n_descs; j++)
            g_string_append_printf (all, "%s%s", j ? ", " : "", names[j]);
          set_error_at (error, fi, group, keys[i], 0, SIM_ERROR_UNKNOWN_KEY,
                        "unknown key: expected one of %s", all->str);
        }
      return FALSE;
    }

  for (gsize i = 0; i < n_descs; i++)
    {
      const KeyDesc *d = &descs[i];
      gpointer field = (char *) target + d->offset;
      g_autofree char *raw = NULL;
      g_autoptr(GError) local = NULL;
      gboolean zero = FALSE;

      if (!g_key_file_has_key (kf, group, d->key, NULL))
        {
          if (d->required)
            {
              set_error_at (error, fi, group, d->key, file_index_line (fi, group, NULL),
                            SIM_ERROR_MISSING, "missing required key: expected %s",
                            d->expected);
              return FALSE;
            }
          continue;
        }
      if (d->kind == KIND_STRING)
        raw = g_key_file_get_string (kf, group, d->key, &local);
      else
        raw = g_key_file_get_value (kf, group, d->key, &local);
      if (raw == NULL)
        {
          set_error_at (error, fi, group, d->key, 0, SIM_ERROR_PARSE, "%s: expected %s",
                        local->message, d->expected);
          return FALSE;
        }
      if (d->kind != KIND_STRING)
        g_strstrip (raw);

      switch (d->kind)
        {
        case KIND_STRING:
          if (*g_strstrip (raw) == '\0')
            {
              set_error_at (error, fi, group, d->key, 0, SIM_ERROR_PARSE,
                            "empty value: expected %s", d->expected);
              return FALSE;
            }
          *(char **) field = g_steal_pointer (&raw);
          break;
        case KIND_NUMBER:
          if (!sim_parse_number (raw, d->min, d->max, (double *) field, &local))
            goto bad;
          zero = *(double *) field == 0;
          break;
        case KIND_SIZE:
          if (!sim_parse_size (raw, (guint64 *) field, &local))
            goto bad;
          zero = *(guint64 *) field == 0;
          break;
        case KIND_BANDWIDTH:
          if (!sim_parse_bandwidth (raw, (double *) field, &local))
            goto bad;
          zero = *(double *) field == 0;
          break;
        case KIND_POWER:
          if (!sim_parse_power (raw, (double *) field, &local))
            goto bad;
          zero = *(double *) field == 0;
          break;
        case KIND_UINT:
          {
            gint64 v;
            if (!sim_parse_integer (raw, (gint64) d->min, (gint64) d->max, &v, &local))
              goto bad;
            *(guint *) field = (guint) v;
            zero = v == 0;
          }
          break;
        case KIND_PLACEMENTS:
          if (!parse_placements (raw, d, (SimMigProfile *) target, &local))
            goto bad;
          zero = ((SimMigProfile *) target)->n_placements == 0;
          break;
        case KIND_DURATION:
          if (!sim_parse_duration (raw, (gint64 *) field, &local))
            goto bad;
          zero = *(gint64 *) field == 0;
          break;
        case KIND_BOOL:
          if (g_ascii_strcasecmp (raw, "true") == 0)
            *(gboolean *) field = TRUE;
          else if (g_ascii_strcasecmp (raw, "false") == 0)
            *(gboolean *) field = FALSE;
          else
            {
              set_error_at (error, fi, group, d->key, 0, SIM_ERROR_PARSE,
                            "\"%s\" is not a boolean: expected %s", raw, d->expected);
              return FALSE;
            }
          break;
        default:
          g_assert_not_reached ();
        }
      if (zero && d->positive)
        {
          set_error_at (error, fi, group, d->key, 0, SIM_ERROR_INVALID,
                        "\"%s\" is zero: expected %s", raw, d->expected);
          return FALSE;
        }
      continue;

    bad:
      propagate_at (error, g_steal_pointer (&local), fi, group, d->key);
      return FALSE;
    }
  return TRUE;
}

/* The suggestion for an unknown group in a file that starts with [@head]:
 * "[gpu]" or "[mig NAME]" in a GPU file, else [@head] itself. */
static char *
suggest_group (const char *group, const char *head)
{
  const char *space = strchr (group, ' ');
  g_autofree char *first = space ? g_strndup (group, (gsize) (space - group)) : g_strdup (group);
  const char *gpu_heads[] = { "gpu", "mig" };
  const char *guess;

  if (strcmp (head, "gpu") == 0)
    guess = sim__closest (first, gpu_heads, G_N_ELEMENTS (gpu_heads));
  else
    guess = sim__closest (first, &head, 1);
  if (guess == NULL)
    return NULL;
  if (strcmp (guess, "mig") == 0)
    {
      g_autofree char *tail = g_strstrip (g_strdup (space ? space : ""));
      return g_strdup_printf ("[mig %s]", *tail ? tail : "NAME");
    }
  return g_strdup_printf ("[%s]", guess);
}

static gboolean
reject_group (const FileIndex *fi, const char *group, const char *head, GError **error)
{
  g_autofree char *guess = suggest_group (group, head);
  g_autofree char *allowed = strcmp (head, "gpu") == 0 ? g_strdup ("[gpu] and [mig NAME]")
                                                       : g_strdup_printf ("only a [%s]", head);
  const char *what = strcmp (head, "gpu") == 0 ? "GPU" : head;

  if (guess != NULL)
    set_error_at (error, fi, group, NULL, 0, SIM_ERROR_UNKNOWN_KEY,
                  "unknown group: did you mean %s? (a %s file has %s group%s)", guess, what,
                  allowed, strcmp (head, "gpu") == 0 ? "s" : "");
  else
    set_error_at (error, fi, group, NULL, 0, SIM_ERROR_UNKNOWN_KEY,
                  "unknown group: a %s file has %s group%s", what, allowed,
                  strcmp (head, "gpu") == 0 ? "s" : "");
  return FALSE;
}

/* Checks that @value (the string field @key of @group) is one of @choices,
 * with a suggestion if not. */
static gboolean
check_choice (const FileIndex *fi, const char *group, const char *key, const char *value,
              const char * const *choices, gsize n, const char *what, GError **error)
{
  g_autoptr(GString) all = g_string_new (NULL);
  const char *guess;

  for (gsize i = 0; i < n; i++)
    if (strcmp (value, choices[i]) == 0)
      return TRUE;
  for (gsize i = 0; i < n; i++)
    g_string_append_printf (all, "%s%s", i ? ", " : "", choices[i]);
  guess = sim__closest (value, choices, n);
  if (guess != NULL)
    set_error_at (error, fi, group, key, 0, SIM_ERROR_INVALID,
                  "unknown %s \"%s\": did you mean \"%s\"? (expected one of %s)", what, value,
                  guess, all->str);
  else
    set_error_at (error, fi, group, key, 0, SIM_ERROR_INVALID,
                  "unknown %s \"%s\": expected one of %s", what, value, all->str);
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* GPU models */

static gboolean
check_mig_profile (const SimGpuModel *m, const SimMigProfile *p, const FileIndex *fi,
                   const char *group, GError **error)
{
  if (p->compute_slices > m->mig_slices)
    {
      set_error_at (error, fi, group, "compute_slices", 0, SIM_ERROR_INVALID,
                    "%u compute slices: expected at most the GPU's mig_slices (%u)",
                    p->compute_slices, m->mig_slices);
      return FALSE;
    }
  if ((guint64) p->max_instances * p->compute_slices > m->mig_slices)
    {
      set_error_at (error, fi, group, "max_instances", 0, SIM_ERROR_INVALID,
                    "%u instances of %u compute slices need %u slices: expected at most "
                    "the GPU's mig_slices (%u)", p->max_instances, p->compute_slices,
                    p->max_instances * p->compute_slices, m->mig_slices);
      return FALSE;
    }
  if (p->memory_bytes > m->memory_bytes)
    {
      set_error_at (error, fi, group, "memory", 0, SIM_ERROR_INVALID,
                    "%" G_GUINT64_FORMAT " bytes: expected at most the GPU's memory (%"
                    G_GUINT64_FORMAT " bytes)", p->memory_bytes, m->memory_bytes);
      return FALSE;
    }
  for (guint i = 0; i < p->n_placements; i++)
    if (p->placements[i] + p->compute_slices > m->mig_slices)
      {
        set_error_at (error, fi, group, "placements", 0, SIM_ERROR_INVALID,
                      "an instance placed at slice %u would end at slice %u: expected "
                      "placements that end within the GPU's %u slices",
                      p->placements[i], p->placements[i] + p->compute_slices,
                      m->mig_slices);
        return FALSE;
      }
  if (p->sms > 0 && m->sms == 0)
    {
      set_error_at (error, fi, group, "sms", 0, SIM_ERROR_MISSING,
                    "%u SMs: expected the GPU's own SM count too ([gpu] sms), to which the "
                    "instance's is compared", p->sms);
      return FALSE;
    }
  if (p->sms > m->sms)
    {
      set_error_at (error, fi, group, "sms", 0, SIM_ERROR_INVALID,
                    "%u SMs: expected at most the GPU's (%u)", p->sms, m->sms);
      return FALSE;
    }
  if (p->n_placements < p->max_instances)
    {
      set_error_at (error, fi, group, "placements", 0, SIM_ERROR_INVALID,
                    "%u placements for %u instances: expected at least max_instances "
                    "placements", p->n_placements, p->max_instances);
      return FALSE;
    }
  return TRUE;
}

static SimGpuModel *
parse_gpu (GKeyFile *kf, const FileIndex *fi, GError **error)
{
  g_autoptr(SimGpuModel) m = g_new0 (SimGpuModel, 1);
  g_auto(GStrv) groups = g_key_file_get_groups (kf, NULL);
  guint n_mig = 0;

  if (!read_group (kf, fi, "gpu", gpu_keys, G_N_ELEMENTS (gpu_keys), m, error))
    return NULL;
  if (m->idle_w > 0 && m->tdp_w > 0 && m->idle_w >= m->tdp_w)
    {
      set_error_at (error, fi, "gpu", "idle_power", 0, SIM_ERROR_INVALID,
                    "%g W: expected less than the TDP (%g W)", m->idle_w, m->tdp_w);
      return NULL;
    }

  for (guint i = 1; groups[i] != NULL; i++)
    {
      const char *g = groups[i];
      const char *pname = g_str_has_prefix (g, "mig ") ? g + 4 : NULL;

      while (pname != NULL && *pname == ' ')
        pname++;
      if (pname == NULL || *pname == '\0')
        {
          reject_group (fi, g, "gpu", error);
          return NULL;
        }
      n_mig++;
    }
  if (n_mig > 0 && m->mig_slices == 0)
    {
      set_error_at (error, fi, "gpu", "mig_slices", file_index_line (fi, "gpu", NULL),
                    SIM_ERROR_MISSING,
                    "missing: the file has [mig NAME] groups: expected the number of MIG "
                    "compute slices, such as \"7\"");
      return NULL;
    }
  if (n_mig == 0 && m->mig_slices > 0)
    {
      set_error_at (error, fi, "gpu", "mig_slices", 0, SIM_ERROR_MISSING,
                    "MIG is on but there are no profiles: expected a [mig NAME] group "
                    "such as [mig 1g.10gb] for each profile");
      return NULL;
    }

  if (n_mig > 0)
    m->mig_profiles = g_new0 (SimMigProfile, n_mig);
  for (guint i = 1; groups[i] != NULL; i++)
    {
      const char *g = groups[i];
      SimMigProfile *p = &m->mig_profiles[m->n_mig_profiles];

      m->n_mig_profiles++;
      p->name = g_strstrip (g_strdup (g + 4));
      for (guint j = 0; j + 1 < m->n_mig_profiles; j++)
        if (strcmp (m->mig_profiles[j].name, p->name) == 0)
          {
            set_error_at (error, fi, g, NULL, 0, SIM_ERROR_PARSE,
                          "duplicate MIG profile \"%s\": expected one group per profile",
                          p->name);
            return NULL;
          }
      if (!read_group (kf, fi, g, mig_keys, G_N_ELEMENTS (mig_keys), p, error))
        return NULL;
      if (!check_mig_profile (m, p, fi, g, error))
        return NULL;
    }
  m->source_file = g_strdup (fi->path);
  return g_steal_pointer (&m);
}

/* ------------------------------------------------------------------------ */
/* Node models */

static NodeEntry *
parse_node (GKeyFile *kf, const FileIndex *fi, GError **error)
{
  g_autoptr(NodeEntry) e = g_new0 (NodeEntry, 1);
  SimNodeModel *m = &e->pub;
  g_auto(GStrv) groups = g_key_file_get_groups (kf, NULL);

  if (groups[0] != NULL && groups[1] != NULL)
    {
      reject_group (fi, groups[1], "node", error);
      return NULL;
    }
  if (!read_group (kf, fi, "node", node_keys, G_N_ELEMENTS (node_keys), m, error))
    return NULL;
  if (m->intra_node != NULL)
    {
      gboolean ok = FALSE;
      for (gsize i = 0; i < G_N_ELEMENTS (intra_node_kinds) && !ok; i++)
        ok = strcmp (m->intra_node, intra_node_kinds[i]) == 0;
      if (!ok)
        {
          const char *guess = sim__closest (m->intra_node, intra_node_kinds,
                                            G_N_ELEMENTS (intra_node_kinds));
          if (guess != NULL)
            set_error_at (error, fi, "node", "intra_node", 0, SIM_ERROR_INVALID,
                          "unknown interconnect \"%s\": did you mean \"%s\"? (expected one "
                          "of nvswitch, nvlink-mesh, pcie, infinity-fabric)",
                          m->intra_node, guess);
          else
            set_error_at (error, fi, "node", "intra_node", 0, SIM_ERROR_INVALID,
                          "unknown interconnect \"%s\": expected one of nvswitch, "
                          "nvlink-mesh, pcie, infinity-fabric", m->intra_node);
          return NULL;
        }
    }
  if (m->nvswitches > 0 && g_strcmp0 (m->intra_node, "nvswitch") != 0)
    {
      set_error_at (error, fi, "node", "nvswitches", 0, SIM_ERROR_INVALID,
                    "%u NVSwitches: expected intra_node = nvswitch", m->nvswitches);
      return NULL;
    }
  if (m->nics > 0 && m->nic_bandwidth == 0)
    {
      set_error_at (error, fi, "node", "nic_bandwidth", file_index_line (fi, "node", NULL),
                    SIM_ERROR_MISSING, "missing for %u NICs: expected a bandwidth such as "
                    "\"400Gb/s\"", m->nics);
      return NULL;
    }
  if (m->base_power_w > 0 && m->max_power_w > 0 && m->base_power_w > m->max_power_w)
    {
      set_error_at (error, fi, "node", "base_power", 0, SIM_ERROR_INVALID,
                    "%g W: expected at most max_power (%g W)", m->base_power_w,
                    m->max_power_w);
      return NULL;
    }
  e->gpu_line = file_index_line (fi, "node", "gpu");
  e->max_power_line = file_index_line (fi, "node", "max_power");
  for (gsize i = 0; i < G_N_ELEMENTS (node_ref_keys); i++)
    e->ref_lines[i] = file_index_line (fi, "node", node_ref_keys[i]);
  m->source_file = g_strdup (fi->path);
  return g_steal_pointer (&e);
}

/* ------------------------------------------------------------------------ */
/* Link and switch models */

static SimLinkModel *
parse_link (GKeyFile *kf, const FileIndex *fi, GError **error)
{
  g_autoptr(SimLinkModel) m = g_new0 (SimLinkModel, 1);
  g_auto(GStrv) groups = g_key_file_get_groups (kf, NULL);

  if (groups[0] != NULL && groups[1] != NULL)
    {
      reject_group (fi, groups[1], "link", error);
      return NULL;
    }
  /* Defaults for keys the file may leave out. */
  m->efficiency = 1.0;
  m->optical = TRUE;
  if (!read_group (kf, fi, "link", link_keys, G_N_ELEMENTS (link_keys), m, error))
    return NULL;
  if (!check_choice (fi, "link", "kind", m->kind, link_kinds, G_N_ELEMENTS (link_kinds),
                     "link kind", error))
    return NULL;
  if (m->transport != NULL
      && !check_choice (fi, "link", "transport", m->transport, link_transports,
                        G_N_ELEMENTS (link_transports), "transport", error))
    return NULL;
  m->source_file = g_strdup (fi->path);
  return g_steal_pointer (&m);
}

static SimSwitchModel *
parse_switch (GKeyFile *kf, const FileIndex *fi, GError **error)
{
  g_autoptr(SimSwitchModel) m = g_new0 (SimSwitchModel, 1);
  g_auto(GStrv) groups = g_key_file_get_groups (kf, NULL);

  if (groups[0] != NULL && groups[1] != NULL)
    {
      reject_group (fi, groups[1], "switch", error);
      return NULL;
    }
  if (!read_group (kf, fi, "switch", switch_keys, G_N_ELEMENTS (switch_keys), m, error))
    return NULL;
  if (!check_choice (fi, "switch", "kind", m->kind, switch_kinds, G_N_ELEMENTS (switch_kinds),
                     "switch kind", error))
    return NULL;
  m->source_file = g_strdup (fi->path);
  return g_steal_pointer (&m);
}

#define COOLING(field) offsetof (SimCoolingModel, field)

static const KeyDesc cooling_keys[] = {
  { "name", KIND_STRING, COOLING (name), TRUE, FALSE, 0, 0, "a model name such as \"air\"" },
  { "description", KIND_STRING, COOLING (description), FALSE, FALSE, 0, 0, "a line of text" },
  { "type", KIND_STRING, COOLING (type), TRUE, FALSE, 0, 0, "one of air, liquid, immersion" },
  { "crah_fan", KIND_NUMBER, COOLING (crah_fan), FALSE, FALSE, 0, 2,
    "W of air-handler fans per W of heat removed by air, such as \"0.2\"" },
  { "chiller_cop", KIND_NUMBER, COOLING (chiller_cop), TRUE, TRUE, 0, 100,
    "the chillers' coefficient of performance, such as \"6\"" },
  { "rated_outdoor", KIND_NUMBER, COOLING (rated_outdoor_c), TRUE, FALSE, -60, 60,
    "the outdoor temperature of chiller_cop in degrees C, such as \"25\"" },
  { "supply", KIND_NUMBER, COOLING (supply_c), TRUE, FALSE, -20, 60,
    "the chilled-water supply temperature in degrees C, such as \"12\"" },
  { "approach", KIND_NUMBER, COOLING (approach_k), FALSE, FALSE, 0, 50,
    "kelvins above the outdoor temperature heat is rejected at, such as \"5\"" },
  { "cop_max", KIND_NUMBER, COOLING (cop_max), TRUE, TRUE, 0, 100,
    "the chillers' highest COP, such as \"12\"" },
  { "economizer_below", KIND_NUMBER, COOLING (economizer_c), FALSE, FALSE, -273.15, 60,
    "the outdoor temperature in degrees C below which the chillers are off, such as \"10\"" },
  { "heat_rejection", KIND_NUMBER, COOLING (heat_rejection), FALSE, FALSE, 0, 2,
    "W of pumps and towers per W of heat, such as \"0.05\"" },
  { "liquid_share", KIND_NUMBER, COOLING (liquid_share), FALSE, FALSE, 0, 1,
    "the share of the IT heat taken by liquid, from 0 to 1, such as \"0.75\"" },
  { "liquid_pumps", KIND_NUMBER, COOLING (liquid_pumps), FALSE, FALSE, 0, 2,
    "W of coolant pumps per W of liquid heat, such as \"0.02\"" },
  { "dry_cooler", KIND_NUMBER, COOLING (dry_cooler), FALSE, FALSE, 0, 2,
    "W of dry-cooler fans per W of liquid heat, such as \"0.02\"" },
  { "dry_cooler_max", KIND_NUMBER, COOLING (dry_cooler_max_c), FALSE, FALSE, -60, 80,
    "the outdoor temperature in degrees C above which dry coolers cannot cool the liquid" },
  { "server_fans", KIND_NUMBER, COOLING (server_fans), TRUE, FALSE, 0, 1,
    "the share of the nodes' fan power left, from 0 to 1, such as \"1\"" },
  { "misc", KIND_NUMBER, COOLING (misc), FALSE, FALSE, 0, 2,
    "W of other facility loads per W of IT, such as \"0.03\"" },
  { "pue_low", KIND_NUMBER, COOLING (pue_low), TRUE, TRUE, 1, 10,
    "the low end of the published PUE range, such as \"1.55\"" },
  { "pue_high", KIND_NUMBER, COOLING (pue_high), TRUE, TRUE, 1, 10,
    "the high end of the published PUE range, such as \"1.59\"" },
};

static const char * const cooling_types[] = { "air", "liquid", "immersion" };

static SimCoolingModel *
parse_cooling (GKeyFile *kf, const FileIndex *fi, GError **error)
{
  g_autoptr(SimCoolingModel) m = g_new0 (SimCoolingModel, 1);
  g_auto(GStrv) groups = g_key_file_get_groups (kf, NULL);

  if (groups[0] != NULL && groups[1] != NULL)
    {
      reject_group (fi, groups[1], "cooling", error);
      return NULL;
    }
  m->economizer_c = -273.15;
  m->dry_cooler_max_c = 80;
  if (!read_group (kf, fi, "cooling", cooling_keys, G_N_ELEMENTS (cooling_keys), m, error))
    return NULL;
  if (!check_choice (fi, "cooling", "type", m->type, cooling_types,
                     G_N_ELEMENTS (cooling_types), "cooling type", error))
    return NULL;
  if (m->cop_max < m->chiller_cop)
    {
      set_error_at (error, fi, "cooling", "cop_max", 0, SIM_ERROR_INVALID,
                    "%g: expected at least chiller_cop (%g)", m->cop_max, m->chiller_cop);
      return NULL;
    }
  if (m->pue_high < m->pue_low)
    {
      set_error_at (error, fi, "cooling", "pue_high", 0, SIM_ERROR_INVALID,
                    "%g: expected at least pue_low (%g)", m->pue_high, m->pue_low);
      return NULL;
    }
  m->source_file = g_strdup (fi->path);
  return g_steal_pointer (&m);
}

/* ------------------------------------------------------------------------ */
/* Cloud instance models */

/* TRUE if @text is a date "YYYY", "YYYY-MM" or "YYYY-MM-DD" that exists. */
static gboolean
valid_date (const char *text)
{
  guint y = 0, m = 1, d = 1;
  gsize n = strlen (text);

  for (gsize i = 0; i < n; i++)
    if (!(g_ascii_isdigit (text[i]) || ((i == 4 || i == 7) && text[i] == '-')))
      return FALSE;
  if (n == 4)
    y = (guint) g_ascii_strtoull (text, NULL, 10);
  else if (n == 7 && text[4] == '-')
    {
      y = (guint) g_ascii_strtoull (text, NULL, 10);
      m = (guint) g_ascii_strtoull (text + 5, NULL, 10);
    }
  else if (n == 10 && text[4] == '-' && text[7] == '-')
    {
      y = (guint) g_ascii_strtoull (text, NULL, 10);
      m = (guint) g_ascii_strtoull (text + 5, NULL, 10);
      d = (guint) g_ascii_strtoull (text + 8, NULL, 10);
    }
  else
    return FALSE;
  return y >= 1900 && g_date_valid_dmy ((GDateDay) d, (GDateMonth) m, (GDateYear) y);
}

/* What a price's companion key @key expects. */
static const char *
companion_expected (const char *key)
{
  if (strstr (key, "date") != NULL)
    return "the date of the price, such as \"2024-11\"";
  if (strstr (key, "terms") != NULL)
    return "what the reserved price buys, such as \"AWS EC2 Capacity Blocks for ML\"";
  return "where the price comes from (a SOURCES.md row or a web page)";
}

/* A price's companions: a price needs its source and date (and a reserved
 * price its terms); the companions without the price are an error too. */
static gboolean
check_price (const FileIndex *fi, const char *price_key, double price, const char * const *keys,
             const char * const *values, gsize n, GError **error)
{
  for (gsize i = 0; i < n; i++)
    {
      if (price > 0 && values[i] == NULL)
        {
          set_error_at (error, fi, "cloud", keys[i], file_index_line (fi, "cloud", price_key),
                        SIM_ERROR_MISSING, "missing for %s: expected %s", price_key,
                        companion_expected (keys[i]));
          return FALSE;
        }
      if (price == 0 && values[i] != NULL)
        {
          set_error_at (error, fi, "cloud", keys[i], 0, SIM_ERROR_INVALID,
                        "given without %s: expected the price it describes", price_key);
          return FALSE;
        }
      if (values[i] != NULL && strstr (keys[i], "date") != NULL && !valid_date (values[i]))
        {
          set_error_at (error, fi, "cloud", keys[i], 0, SIM_ERROR_INVALID,
                        "\"%s\" is not a date: expected \"YYYY\", \"YYYY-MM\" or "
                        "\"YYYY-MM-DD\", such as \"2024-11\"", values[i]);
          return FALSE;
        }
    }
  return TRUE;
}

static CloudEntry *
parse_cloud (GKeyFile *kf, const FileIndex *fi, GError **error)
{
  g_autoptr(CloudEntry) e = g_new0 (CloudEntry, 1);
  SimCloudModel *m = &e->pub;
  g_auto(GStrv) groups = g_key_file_get_groups (kf, NULL);
  const char * const od_keys[] = { "on_demand_source", "on_demand_date" };
  const char * const rs_keys[] = { "reserved_terms", "reserved_source", "reserved_date" };

  if (groups[0] != NULL && groups[1] != NULL)
    {
      reject_group (fi, groups[1], "cloud", error);
      return NULL;
    }
  if (!read_group (kf, fi, "cloud", cloud_keys, G_N_ELEMENTS (cloud_keys), m, error))
    return NULL;
  if (m->node_name == NULL && m->gpu_name == NULL)
    {
      set_error_at (error, fi, "cloud", "gpu", file_index_line (fi, "cloud", NULL),
                    SIM_ERROR_MISSING, "missing: expected the instance's GPU model (gpu = "
                    "H100-SXM and gpus = 8) or the node model it is built like (node = "
                    "DGX-H100)");
      return NULL;
    }
  if (m->node_name == NULL && m->gpus == 0)
    {
      set_error_at (error, fi, "cloud", "gpus", file_index_line (fi, "cloud", NULL),
                    SIM_ERROR_MISSING, "missing: expected the number of GPUs per instance, "
                    "an integer such as \"8\" (or a node model: node = DGX-H100)");
      return NULL;
    }
  if (m->on_demand_usd_per_hour == 0 && m->reserved_usd_per_hour == 0)
    {
      set_error_at (error, fi, "cloud", "on_demand_usd_per_hour",
                    file_index_line (fi, "cloud", NULL), SIM_ERROR_MISSING,
                    "missing: expected an on-demand or a reserved price per instance-hour "
                    "(on_demand_usd_per_hour, reserved_usd_per_hour), or both");
      return NULL;
    }
  if (m->on_demand_usd_per_hour > 0 && m->reserved_usd_per_hour > m->on_demand_usd_per_hour)
    {
      set_error_at (error, fi, "cloud", "reserved_usd_per_hour", 0, SIM_ERROR_INVALID,
                    "%g USD per hour: expected at most the on-demand price (%g USD per hour), "
                    "since a reservation does not cost more than renting on demand",
                    m->reserved_usd_per_hour, m->on_demand_usd_per_hour);
      return NULL;
    }
  {
    const char *od[] = { m->on_demand_source, m->on_demand_date };
    const char *rs[] = { m->reserved_terms, m->reserved_source, m->reserved_date };

    if (!check_price (fi, "on_demand_usd_per_hour", m->on_demand_usd_per_hour, od_keys, od,
                      G_N_ELEMENTS (od), error)
        || !check_price (fi, "reserved_usd_per_hour", m->reserved_usd_per_hour, rs_keys, rs,
                         G_N_ELEMENTS (rs), error))
      return NULL;
  }
  e->gpu_given = m->gpu_name != NULL;
  e->node_line = file_index_line (fi, "cloud", "node");
  e->gpu_line = file_index_line (fi, "cloud", "gpu");
  e->gpus_line = file_index_line (fi, "cloud", "gpus");
  m->source_file = g_strdup (fi->path);
  return g_steal_pointer (&e);
}

/* ------------------------------------------------------------------------ */
/* The catalogue */

SimCatalogue *
sim_catalogue_new (void)
{
  SimCatalogue *c = g_new0 (SimCatalogue, 1);

  c->ref_count = 1;
  c->gpus = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                   (GDestroyNotify) gpu_model_free);
  c->nodes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                    (GDestroyNotify) node_entry_free);
  c->links = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                    (GDestroyNotify) link_model_free);
  c->switches = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) switch_model_free);
  c->clouds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify) cloud_entry_free);
  c->coolings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) cooling_model_free);
  return c;
}

G_DEFINE_BOXED_TYPE (SimCatalogue, sim_catalogue, sim_catalogue_ref, sim_catalogue_unref)

SimCatalogue *
sim_catalogue_ref (SimCatalogue *catalogue)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  g_atomic_int_inc (&catalogue->ref_count);
  return catalogue;
}

void
sim_catalogue_free (SimCatalogue *catalogue)
{
  sim_catalogue_unref (catalogue);
}

void
sim_catalogue_unref (SimCatalogue *catalogue)
{
  if (catalogue == NULL || !g_atomic_int_dec_and_test (&catalogue->ref_count))
    return;
  g_hash_table_unref (catalogue->gpus);
  g_hash_table_unref (catalogue->nodes);
  g_hash_table_unref (catalogue->links);
  g_hash_table_unref (catalogue->switches);
  g_hash_table_unref (catalogue->clouds);
  g_hash_table_unref (catalogue->coolings);
  g_free (catalogue);
}

char **
sim_catalogue_default_path (void)
{
  GPtrArray *dirs = g_ptr_array_new ();
  const char *installed = SIM_MODELDIR;
  const char *source = SIM_SOURCE_MODELDIR;
  const char *env = g_getenv ("GPUSIM_MODEL_PATH");

  if (*installed != '\0' && g_file_test (installed, G_FILE_TEST_IS_DIR))
    g_ptr_array_add (dirs, g_strdup (installed));
  else if (*source != '\0')
    g_ptr_array_add (dirs, g_strdup (source));
  if (env != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);
      for (guint i = 0; parts[i] != NULL; i++)
        if (*parts[i] != '\0')
          g_ptr_array_add (dirs, g_strdup (parts[i]));
    }
  g_ptr_array_add (dirs, NULL);
  return (char **) g_ptr_array_free (dirs, FALSE);
}

/* Points every node model at its GPU model, or at NULL if it is unknown. */
static void
relink_nodes (SimCatalogue *c)
{
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, c->nodes);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      SimNodeModel *n = value;
      n->gpu = sim_catalogue_lookup_gpu (c, n->gpu_name);
      n->intra_link = sim_catalogue_lookup_link (c, n->intra_link_name);
      n->nic_link = sim_catalogue_lookup_link (c, n->nic_link_name);
      n->pcie_link = sim_catalogue_lookup_link (c, n->pcie_link_name);
      n->nvswitch = sim_catalogue_lookup_switch (c, n->nvswitch_name);
    }
  /* A cloud model that does not name its GPU takes its node's. */
  g_hash_table_iter_init (&it, c->clouds);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      CloudEntry *e = value;
      e->pub.node = sim_catalogue_lookup_node (c, e->pub.node_name);
      if (!e->gpu_given)
        {
          g_clear_pointer (&e->pub.gpu_name, g_free);
          e->pub.gpu_name = e->pub.node ? g_strdup (e->pub.node->gpu_name) : NULL;
        }
      e->pub.gpu = sim_catalogue_lookup_gpu (c, e->pub.gpu_name);
    }
}

gboolean
sim_catalogue_add_file (SimCatalogue *catalogue, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) local = NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_auto(FileIndex) fi = { NULL, NULL };
  g_autofree char *start = NULL;

  g_return_val_if_fail (catalogue != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  /* The bounded reader: regular files only, within its size and line
   * limits, no NUL byte (sim-read.h). */
  text = sim__read_file (path, SIM_READ_TEXT, &len, error);
  if (text == NULL)
    {
      g_prefix_error (error, "model file ");
      return FALSE;
    }
  if (!file_index_build (&fi, path, text, len, error))
    return FALSE;
  if (!sim__key_file_load (kf, text, len, &local))
    {
      guint line = sim__key_file_bad_line (text, len);
      g_autofree char *at = line > 0 ? g_strdup_printf (":%u", line) : g_strdup ("");

      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "%s%s: not a valid key file: %s: expected [group] headers, `key = value` "
                   "lines and # comments", path, at, local->message);
      return FALSE;
    }
  start = g_key_file_get_start_group (kf);
  if (start == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: no groups: expected the file to start with [gpu], [node], [link], "
                   "[switch], [cloud], [cooling], [failures] or [llm]", path);
      return FALSE;
    }
  if (strcmp (start, "gpu") == 0)
    {
      SimGpuModel *m = parse_gpu (kf, &fi, error);
      if (m == NULL)
        return FALSE;
      g_hash_table_replace (catalogue->gpus, g_ascii_strdown (m->name, -1), m);
    }
  else if (strcmp (start, "node") == 0)
    {
      NodeEntry *e = parse_node (kf, &fi, error);
      if (e == NULL)
        return FALSE;
      g_hash_table_replace (catalogue->nodes, g_ascii_strdown (e->pub.name, -1), e);
    }
  else if (strcmp (start, "link") == 0)
    {
      SimLinkModel *m = parse_link (kf, &fi, error);
      if (m == NULL)
        return FALSE;
      g_hash_table_replace (catalogue->links, g_ascii_strdown (m->name, -1), m);
    }
  else if (strcmp (start, "switch") == 0)
    {
      SimSwitchModel *m = parse_switch (kf, &fi, error);
      if (m == NULL)
        return FALSE;
      g_hash_table_replace (catalogue->switches, g_ascii_strdown (m->name, -1), m);
    }
  else if (strcmp (start, "cloud") == 0)
    {
      CloudEntry *e = parse_cloud (kf, &fi, error);
      if (e == NULL)
        return FALSE;
      g_hash_table_replace (catalogue->clouds, g_ascii_strdown (e->pub.name, -1), e);
    }
  else if (strcmp (start, "cooling") == 0)
    {
      SimCoolingModel *m = parse_cooling (kf, &fi, error);
      if (m == NULL)
        return FALSE;
      g_hash_table_replace (catalogue->coolings, g_ascii_strdown (m->name, -1), m);
    }
  else if (strcmp (start, "failures") == 0)
    ; /* A failure profile: the failure model reads it (failures/sim-failures.h). */
  else if (strcmp (start, "llm") == 0)
    ; /* A language model: the training model reads it (llm/sim-llm.h). */
  else
    {
      const char *kinds[] = { "gpu", "node", "link", "switch", "cloud", "cooling" };
      const char *guess = sim__closest (start, kinds, G_N_ELEMENTS (kinds));
      set_error_at (error, &fi, start, NULL, 0, SIM_ERROR_UNKNOWN_KEY,
                    "unknown first group%s%s%s: expected [gpu], [node], [link], [switch], "
                    "[cloud] or [cooling]",
                    guess ? ": did you mean [" : "", guess ? guess : "", guess ? "]?" : "");
      return FALSE;
    }
  relink_nodes (catalogue);
  return TRUE;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
add_directory (SimCatalogue *c, const char *dir, int depth, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GDir) d = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (depth > MAX_DEPTH)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO,
                   "cannot read model directory %s: nested more than %d levels deep "
                   "(a symbolic link loop?)", dir, MAX_DEPTH);
      return FALSE;
    }
  d = g_dir_open (dir, 0, &local);
  if (d == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot read model directory %s: %s",
                   dir, local->message);
      return FALSE;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      g_autofree char *full = g_build_filename (dir, entry, NULL);

      if (g_file_test (full, G_FILE_TEST_IS_DIR))
        {
          if (!add_directory (c, full, depth + 1, error))
            return FALSE;
        }
      else if (g_str_has_suffix (entry, ".ini") && g_file_test (full, G_FILE_TEST_IS_REGULAR))
        {
          if (!sim_catalogue_add_file (c, full, error))
            return FALSE;
        }
    }
  return TRUE;
}

gboolean
sim_catalogue_add_directory (SimCatalogue *catalogue, const char *dir, GError **error)
{
  g_return_val_if_fail (catalogue != NULL, FALSE);
  g_return_val_if_fail (dir != NULL, FALSE);

  return add_directory (catalogue, dir, 0, error);
}

/* Every model struct (GPU, node, link, switch, cloud) begins with its name. */
static int
compare_model_names (gconstpointer a, gconstpointer b)
{
  const char *x = **(const char * const * const *) a;
  const char *y = **(const char * const * const *) b;
  return g_ascii_strcasecmp (x, y);
}

/* The models in @table, sorted by name; borrowed. */
static GPtrArray *
sorted_values (GHashTable *table)
{
  GPtrArray *out = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_ptr_array_add (out, value);
  g_ptr_array_sort (out, compare_model_names);
  return out;
}

GPtrArray *
sim_catalogue_get_gpus (const SimCatalogue *catalogue)
{
  GPtrArray *out;

  g_return_val_if_fail (catalogue != NULL, NULL);
  out = sorted_values (catalogue->gpus);
  return out;
}

GPtrArray *
sim_catalogue_get_nodes (const SimCatalogue *catalogue)
{
  GPtrArray *out;

  g_return_val_if_fail (catalogue != NULL, NULL);
  out = sorted_values (catalogue->nodes);
  return out;
}

GPtrArray *
sim_catalogue_get_links (const SimCatalogue *catalogue)
{
  GPtrArray *out;

  g_return_val_if_fail (catalogue != NULL, NULL);
  out = sorted_values (catalogue->links);
  return out;
}

GPtrArray *
sim_catalogue_get_switches (const SimCatalogue *catalogue)
{
  GPtrArray *out;

  g_return_val_if_fail (catalogue != NULL, NULL);
  out = sorted_values (catalogue->switches);
  return out;
}

GPtrArray *
sim_catalogue_get_clouds (const SimCatalogue *catalogue)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  return sorted_values (catalogue->clouds);
}

/* The name closest to @name among the models of @table, whose values all
 * start with their name (a char * first member); NULL if none is close. */
static const char *
closest_in (GHashTable *table, const char *name)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_ptr_array_add (names, *(char **) value);
  g_ptr_array_sort (names, compare_names);
  return sim__closest (name, (const char * const *) names->pdata, names->len);
}

/* The name closest to @name among the GPU models, and also the node models
 * if @with_nodes; NULL if none is close. */
static const char *
closest_name (const SimCatalogue *c, gboolean with_nodes, const char *name)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, c->gpus);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_ptr_array_add (names, ((SimGpuModel *) value)->name);
  if (with_nodes)
    {
      g_hash_table_iter_init (&it, c->nodes);
      while (g_hash_table_iter_next (&it, NULL, &value))
        g_ptr_array_add (names, ((SimNodeModel *) value)->name);
    }
  /* Sorted, so that ties resolve the same way on every run. */
  g_ptr_array_sort (names, compare_names);
  return sim__closest (name, (const char * const *) names->pdata, names->len);
}

/* Checks every cloud model's node and GPU: they must exist, and a GPU
 * model or count the file gives must agree with its node's. */
static gboolean
resolve_clouds (SimCatalogue *catalogue, GError **error)
{
  g_autoptr(GPtrArray) clouds = sim_catalogue_get_clouds (catalogue);

  for (guint i = 0; i < clouds->len; i++)
    {
      CloudEntry *e = g_ptr_array_index (clouds, i);
      const SimCloudModel *m = &e->pub;
      const char *guess;

      if (m->node_name != NULL && m->node == NULL)
        {
          guess = closest_in (catalogue->nodes, m->node_name);
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                       "%s:%d: [cloud] node: unknown node model \"%s\": %s%s%s",
                       m->source_file, e->node_line, m->node_name,
                       guess ? "did you mean \"" : "expected the name of a [node] model in "
                       "the catalogue (`gpusim models` lists them)", guess ? guess : "",
                       guess ? "\"?" : "");
          return FALSE;
        }
      if (m->gpu == NULL)
        {
          guess = closest_name (catalogue, FALSE, m->gpu_name);
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                       "%s:%d: [cloud] gpu: unknown GPU model \"%s\": %s%s%s",
                       m->source_file, e->gpu_line, m->gpu_name,
                       guess ? "did you mean \"" : "expected the name of a GPU model in the "
                       "catalogue (`gpusim models` lists them)", guess ? guess : "",
                       guess ? "\"?" : "");
          return FALSE;
        }
      if (m->node == NULL)
        continue;
      if (e->gpu_given && g_ascii_strcasecmp (m->gpu_name, m->node->gpu_name) != 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%s:%d: [cloud] gpu: \"%s\" differs from node model %s's GPU: "
                       "expected \"%s\" or no gpu key", m->source_file, e->gpu_line,
                       m->gpu_name, m->node->name, m->node->gpu_name);
          return FALSE;
        }
      if (m->gpus != 0 && m->gpus != m->node->gpus)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%s:%d: [cloud] gpus: %u differs from node model %s's %u GPUs: "
                       "expected %u or no gpus key", m->source_file, e->gpus_line, m->gpus,
                       m->node->name, m->node->gpus, m->node->gpus);
          return FALSE;
        }
      e->pub.gpus = m->node->gpus;
    }
  return TRUE;
}

gboolean
sim_catalogue_resolve (SimCatalogue *catalogue, GError **error)
{
  g_autoptr(GPtrArray) nodes = NULL;

  g_return_val_if_fail (catalogue != NULL, FALSE);

  relink_nodes (catalogue);
  nodes = sim_catalogue_get_nodes (catalogue);
  for (guint i = 0; i < nodes->len; i++)
    {
      NodeEntry *e = g_ptr_array_index (nodes, i);
      const char *refs[] = { e->pub.intra_link_name, e->pub.nic_link_name,
                             e->pub.pcie_link_name, e->pub.nvswitch_name };
      gconstpointer found[] = { e->pub.intra_link, e->pub.nic_link, e->pub.pcie_link,
                                e->pub.nvswitch };
      const char *guess;

      for (gsize k = 0; k < G_N_ELEMENTS (refs); k++)
        {
          gboolean is_switch = k == 3;
          const char *what = is_switch ? "switch" : "link";

          if (refs[k] == NULL || found[k] != NULL)
            continue;
          guess = closest_in (is_switch ? catalogue->switches : catalogue->links, refs[k]);
          if (guess != NULL)
            g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                         "%s:%d: [node] %s: unknown %s model \"%s\": did you mean \"%s\"?",
                         e->pub.source_file, e->ref_lines[k], node_ref_keys[k], what, refs[k],
                         guess);
          else
            g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                         "%s:%d: [node] %s: unknown %s model \"%s\": expected the name of a "
                         "[%s] model in the catalogue (`gpusim models` lists them)",
                         e->pub.source_file, e->ref_lines[k], node_ref_keys[k], what, refs[k],
                         what);
          return FALSE;
        }
      if (e->pub.gpu != NULL)
        {
          /* A node's rated maximum holds its GPUs at their TDP at least:
           * a smaller one cannot be its maximum, and the power model
           * would report more than it. */
          double gpus_w = e->pub.gpus * e->pub.gpu->tdp_w;
          if (e->pub.max_power_w > 0 && e->pub.max_power_w < gpus_w)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "%s:%d: [node] max_power: %g W is less than its %u GPUs' TDP "
                           "(%u x %g W = %g W): expected at least %g W", e->pub.source_file,
                           e->max_power_line, e->pub.max_power_w, e->pub.gpus, e->pub.gpus,
                           e->pub.gpu->tdp_w, gpus_w, gpus_w);
              return FALSE;
            }
          continue;
        }
      guess = closest_name (catalogue, FALSE, e->pub.gpu_name);
      if (guess != NULL)
        g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                     "%s:%d: [node] gpu: unknown GPU model \"%s\": did you mean \"%s\"?",
                     e->pub.source_file, e->gpu_line, e->pub.gpu_name, guess);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                     "%s:%d: [node] gpu: unknown GPU model \"%s\": expected the name of a "
                     "GPU model in the catalogue (`gpusim models` lists them)",
                     e->pub.source_file, e->gpu_line, e->pub.gpu_name);
      return FALSE;
    }
  return resolve_clouds (catalogue, error);
}

SimCatalogue *
sim_catalogue_new_default (const char * const *extra_dirs, GError **error)
{
  g_autoptr(SimCatalogue) c = sim_catalogue_new ();
  g_auto(GStrv) path = sim_catalogue_default_path ();

  for (guint i = 0; path[i] != NULL; i++)
    {
      if (!g_file_test (path[i], G_FILE_TEST_IS_DIR))
        continue;
      if (!sim_catalogue_add_directory (c, path[i], error))
        return NULL;
    }
  for (guint i = 0; extra_dirs != NULL && extra_dirs[i] != NULL; i++)
    if (!sim_catalogue_add_directory (c, extra_dirs[i], error))
      return NULL;
  if (!sim_catalogue_resolve (c, error))
    return NULL;
  return g_steal_pointer (&c);
}

/* The model called NAME in TABLE (keys are lower-cased names), or NULL. */
static gpointer
lookup_in (GHashTable *table, const char *name)
{
  g_autofree char *key = NULL;

  if (name == NULL)
    return NULL;
  key = g_ascii_strdown (name, -1);
  return g_hash_table_lookup (table, key);
}

const SimGpuModel *
sim_catalogue_lookup_gpu (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  return lookup_in (catalogue->gpus, name);
}

const SimNodeModel *
sim_catalogue_lookup_node (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  return lookup_in (catalogue->nodes, name);
}

const SimLinkModel *
sim_catalogue_lookup_link (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  return lookup_in (catalogue->links, name);
}

const SimSwitchModel *
sim_catalogue_lookup_switch (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  return lookup_in (catalogue->switches, name);
}

const SimCloudModel *
sim_catalogue_lookup_cloud (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  return lookup_in (catalogue->clouds, name);
}

const SimCloudModel *
sim_catalogue_match_cloud (const SimCatalogue *catalogue, const char *node, const char *gpu,
                           guint gpus)
{
  g_autoptr(GPtrArray) clouds = NULL;

  g_return_val_if_fail (catalogue != NULL, NULL);

  clouds = sim_catalogue_get_clouds (catalogue);
  /* Two passes, so that an instance with an on-demand price wins over one
   * with only a reserved price. */
  for (int pass = 0; pass < 2; pass++)
    {
      for (guint i = 0; node != NULL && i < clouds->len; i++)
        {
          const SimCloudModel *m = g_ptr_array_index (clouds, i);
          if ((m->on_demand_usd_per_hour > 0) == (pass == 0) && m->node_name != NULL
              && g_ascii_strcasecmp (m->node_name, node) == 0)
            return m;
        }
    }
  for (int pass = 0; pass < 2; pass++)
    {
      for (guint i = 0; gpu != NULL && i < clouds->len; i++)
        {
          const SimCloudModel *m = g_ptr_array_index (clouds, i);
          if ((m->on_demand_usd_per_hour > 0) == (pass == 0) && m->gpu_name != NULL
              && g_ascii_strcasecmp (m->gpu_name, gpu) == 0 && (gpus == 0 || m->gpus == gpus))
            return m;
        }
    }
  return NULL;
}

const SimCoolingModel *
sim_catalogue_lookup_cooling (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  return lookup_in (catalogue->coolings, name);
}

GPtrArray *
sim_catalogue_get_coolings (const SimCatalogue *catalogue)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  return sorted_values (catalogue->coolings);
}

const char *
sim_catalogue_suggest (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  if (name == NULL)
    return NULL;
  return closest_name (catalogue, TRUE, name);
}

const char *
sim_catalogue_suggest_link (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  if (name == NULL)
    return NULL;
  return closest_in (catalogue->links, name);
}

const char *
sim_catalogue_suggest_switch (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  if (name == NULL)
    return NULL;
  return closest_in (catalogue->switches, name);
}

const char *
sim_catalogue_suggest_cloud (const SimCatalogue *catalogue, const char *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  if (name == NULL)
    return NULL;
  return closest_in (catalogue->clouds, name);
}

/* ------------------------------------------------------------------------ */
/* Describing a model */

/* Appends @v with four significant digits and the largest decimal prefix
 * that keeps it at 1 or more, e.g. "3.35 TB/s", "80 GB", "10.2 kW". */
static void
append_scaled (GString *s, double v, const char *unit, gboolean kilo_only)
{
  static const char *prefixes[] = { "", "k", "M", "G", "T", "P" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  guint i = 0;
  guint last = kilo_only ? 1 : G_N_ELEMENTS (prefixes) - 1;

  while (i < last && fabs (v) >= 1000)
    {
      v /= 1000;
      i++;
    }
  g_ascii_formatd (buf, sizeof buf, "%.4g", v);
  g_string_append_printf (s, "%s %s%s", buf, prefixes[i], unit);
}

static void
line_size (GString *s, const char *label, guint64 bytes)
{
  g_string_append_printf (s, "  %s: ", label);
  if (bytes == 0)
    g_string_append (s, "unknown");
  else
    append_scaled (s, (double) bytes, "B", FALSE);
  g_string_append_c (s, '\n');
}

static void
line_bandwidth (GString *s, const char *label, double bytes_per_s, gboolean bits_too)
{
  g_string_append_printf (s, "  %s: ", label);
  if (bytes_per_s == 0)
    g_string_append (s, "unknown");
  else if (bits_too)
    {
      append_scaled (s, bytes_per_s * 8, "b/s", FALSE);
      g_string_append (s, " (");
      append_scaled (s, bytes_per_s, "B/s", FALSE);
      g_string_append (s, ")");
    }
  else
    append_scaled (s, bytes_per_s, "B/s", FALSE);
  g_string_append_c (s, '\n');
}

/* GPU power reads best in watts ("1000 W"), a node's in kilowatts. */
static void
line_power (GString *s, const char *label, double w, gboolean kilo)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (s, "  %s: ", label);
  if (w == 0)
    g_string_append (s, "unknown");
  else if (kilo)
    append_scaled (s, w, "W", TRUE);
  else
    g_string_append_printf (s, "%s W", g_ascii_formatd (buf, sizeof buf, "%.6g", w));
  g_string_append_c (s, '\n');
}

static void
line_number (GString *s, const char *label, double v, const char *unit)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (s, "  %s: ", label);
  if (v == 0)
    g_string_append (s, "unknown");
  else
    g_string_append_printf (s, "%s %s", g_ascii_formatd (buf, sizeof buf, "%.6g", v), unit);
  g_string_append_c (s, '\n');
}

static void
line_text (GString *s, const char *label, const char *text)
{
  g_string_append_printf (s, "  %s: %s\n", label, text ? text : "unknown");
}

static void
line_price (GString *s, double usd)
{
  g_string_append (s, "  price: ");
  if (usd == 0)
    g_string_append (s, "unknown");
  else
    {
      char digits[32];
      int n = g_snprintf (digits, sizeof digits, "%.0f", usd);
      g_string_append_c (s, '$');
      for (int i = 0; i < n; i++)
        {
          if (i > 0 && (n - i) % 3 == 0)
            g_string_append_c (s, ',');
          g_string_append_c (s, digits[i]);
        }
    }
  g_string_append_c (s, '\n');
}

static void
describe_gpu (GString *s, const SimGpuModel *m)
{
  g_string_append_printf (s, "%s (GPU model)\n", m->name);
  line_text (s, "vendor", m->vendor);
  line_text (s, "description", m->description);
  line_text (s, "source file", m->source_file);
  line_number (s, "FP16/BF16 tensor (dense)", m->fp16_tflops, "TFLOPS");
  line_number (s, "FP8 tensor (dense)", m->fp8_tflops, "TFLOPS");
  line_size (s, "memory", m->memory_bytes);
  line_bandwidth (s, "memory bandwidth", m->memory_bandwidth, FALSE);
  line_bandwidth (s, "scale-up bandwidth", m->scaleup_bandwidth, FALSE);
  line_text (s, "scale-up link", m->scaleup_link);
  line_power (s, "TDP", m->tdp_w, FALSE);
  line_power (s, "idle power", m->idle_w, FALSE);
  line_price (s, m->price_usd);
  if (m->mig_slices == 0)
    {
      g_string_append (s, "  MIG: not supported\n");
      return;
    }
  g_string_append_printf (s, "  MIG: %u compute slices, %u profiles\n", m->mig_slices,
                          m->n_mig_profiles);
  if (m->sms > 0)
    g_string_append_printf (s, "  SMs: %u\n", m->sms);
  g_string_append_printf (s, "    %-14s %7s %13s %9s %13s %5s %8s %8s  %s\n", "profile",
                          "compute", "memory slices", "memory", "max instances", "SMs",
                          "SM share", "BW share", "placements");
  for (guint i = 0; i < m->n_mig_profiles; i++)
    {
      const SimMigProfile *p = &m->mig_profiles[i];
      g_autoptr(GString) mem = g_string_new (NULL);
      g_autoptr(GString) places = g_string_new (NULL);

      append_scaled (mem, (double) p->memory_bytes, "B", FALSE);
      for (guint j = 0; j < p->n_placements; j++)
        g_string_append_printf (places, "%s%u", j ? "," : "", p->placements[j]);
      g_autofree char *sms = p->sms > 0 ? g_strdup_printf ("%u", p->sms) : g_strdup ("-");

      g_string_append_printf (s, "    %-14s %7u %13u %9s %13u %5s %7.1f%% %7.1f%%  %s\n",
                              p->name, p->compute_slices, p->memory_slices, mem->str,
                              p->max_instances, sms, 100 * sim_mig_compute_fraction (m, i),
                              100 * sim_mig_memory_fraction (m, i), places->str);
    }
}

static void
describe_node (GString *s, const SimNodeModel *m)
{
  g_string_append_printf (s, "%s (node model)\n", m->name);
  line_text (s, "description", m->description);
  line_text (s, "source file", m->source_file);
  g_string_append_printf (s, "  GPUs: %u x %s%s\n", m->gpus, m->gpu_name,
                          m->gpu ? "" : " (not in the catalogue)");
  line_text (s, "intra-node interconnect", m->intra_node);
  g_string_append_printf (s, "  NVSwitches: %u\n", m->nvswitches);
  g_string_append_printf (s, "  NICs: %u\n", m->nics);
  line_bandwidth (s, "NIC bandwidth", m->nic_bandwidth, TRUE);
  line_text (s, "NIC type", m->nic_type);
  line_text (s, "CPU", m->cpu);
  if (m->cpu_cores > 0)
    g_string_append_printf (s, "  CPU cores: %u\n", m->cpu_cores);
  else
    line_text (s, "CPU cores", NULL);
  line_size (s, "host memory", m->memory_bytes);
  line_power (s, "base power (no GPUs, idle)", m->base_power_w, TRUE);
  line_power (s, "max power", m->max_power_w, TRUE);
  if (m->cpu_idle_power_w > 0)
    line_power (s, "CPU power, idle", m->cpu_idle_power_w, TRUE);
  if (m->cpu_max_power_w > 0)
    line_power (s, "CPU power, loaded", m->cpu_max_power_w, TRUE);
  if (m->memory_power_w > 0)
    line_power (s, "memory power", m->memory_power_w, TRUE);
  if (m->nic_power_w > 0)
    line_power (s, "power per NIC", m->nic_power_w, TRUE);
  if (m->fan_idle_power_w > 0)
    line_power (s, "fan power, idle", m->fan_idle_power_w, TRUE);
  if (m->fan_max_power_w > 0)
    line_power (s, "fan power, full", m->fan_max_power_w, TRUE);
  if (m->other_power_w > 0)
    line_power (s, "other power", m->other_power_w, TRUE);
  if (m->psu_efficiency > 0)
    g_string_append_printf (s, "  power-supply efficiency: %g\n", m->psu_efficiency);
  if (m->sleep_power_w > 0)
    line_power (s, "sleep power", m->sleep_power_w, TRUE);
  line_price (s, m->price_usd);
  line_text (s, "intra-node link", m->intra_link_name);
  line_text (s, "NIC link", m->nic_link_name);
  line_text (s, "PCIe link", m->pcie_link_name);
  line_text (s, "NVSwitch model", m->nvswitch_name);
  if (m->gpu != NULL)
    {
      line_size (s, "GPU memory, total", m->gpu->memory_bytes * m->gpus);
      line_number (s, "FP16/BF16 tensor, total", m->gpu->fp16_tflops * m->gpus, "TFLOPS");
    }
}

static void
line_latency (GString *s, const char *label, gint64 ns)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (s, "  %s: ", label);
  if (ns == 0)
    g_string_append (s, "unknown");
  else if (ns < 1000)
    g_string_append_printf (s, "%" G_GINT64_FORMAT " ns", ns);
  else
    g_string_append_printf (s, "%s us", g_ascii_formatd (buf, sizeof buf, "%.6g", ns / 1e3));
  g_string_append_c (s, '\n');
}

static void
describe_link (GString *s, const SimLinkModel *m)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (s, "%s (link model)\n", m->name);
  line_text (s, "description", m->description);
  line_text (s, "source file", m->source_file);
  line_text (s, "kind", m->kind);
  line_bandwidth (s, "bandwidth per direction", m->bandwidth, TRUE);
  g_string_append_printf (s, "  efficiency: %s\n",
                          g_ascii_formatd (buf, sizeof buf, "%.4g", m->efficiency));
  line_bandwidth (s, "usable bandwidth per direction", m->bandwidth * m->efficiency, FALSE);
  line_latency (s, "latency per hop", m->latency_ns);
  if (m->transport_latency_ns > 0)
    line_latency (s, "transport latency per message", m->transport_latency_ns);
  line_text (s, "transport", m->transport);
  if (m->links_per_gpu > 0)
    g_string_append_printf (s, "  links per GPU: %u\n", m->links_per_gpu);
  g_string_append_printf (s, "  optical between switches: %s\n", m->optical ? "yes" : "no");
  g_string_append_printf (s, "  optical to NICs: %s\n", m->access_optical ? "yes" : "no");
  line_price (s, m->price_usd);
}

static void
describe_switch (GString *s, const SimSwitchModel *m)
{
  g_string_append_printf (s, "%s (switch model)\n", m->name);
  line_text (s, "description", m->description);
  line_text (s, "source file", m->source_file);
  line_text (s, "kind", m->kind);
  g_string_append_printf (s, "  radix: %u ports\n", m->radix);
  line_bandwidth (s, "port bandwidth per direction", m->port_bandwidth, TRUE);
  line_bandwidth (s, "switching capacity (all ports, one direction)",
                  m->port_bandwidth * m->radix, TRUE);
  line_latency (s, "port-to-port latency", m->latency_ns);
  line_power (s, "power", m->power_w, FALSE);
  line_price (s, m->price_usd);
  g_string_append_printf (s, "  in-network reduction: %s\n",
                          m->in_network_reduction ? "yes" : "no");
}

/* "$98.32 per hour ($12.29 per GPU-hour)", or "unknown". */
static void
line_hourly (GString *s, const char *label, double usd, guint gpus)
{
  g_string_append_printf (s, "  %s: ", label);
  if (usd == 0)
    g_string_append (s, "unknown");
  else
    g_string_append_printf (s, "$%.2f per hour ($%.3f per GPU-hour)", usd,
                            gpus > 0 ? usd / gpus : 0);
  g_string_append_c (s, '\n');
}

static void
describe_cloud (GString *s, const SimCloudModel *m)
{
  g_string_append_printf (s, "%s (cloud instance model)\n", m->name);
  line_text (s, "description", m->description);
  line_text (s, "source file", m->source_file);
  line_text (s, "provider", m->provider);
  line_text (s, "instance", m->instance);
  line_text (s, "built like node model", m->node_name);
  g_string_append_printf (s, "  GPUs: %u x %s%s\n", m->gpus, m->gpu_name,
                          m->gpu ? "" : " (not in the catalogue)");
  line_hourly (s, "on demand", m->on_demand_usd_per_hour, m->gpus);
  if (m->on_demand_usd_per_hour > 0)
    {
      line_text (s, "on-demand source", m->on_demand_source);
      line_text (s, "on-demand date", m->on_demand_date);
    }
  line_hourly (s, "reserved", m->reserved_usd_per_hour, m->gpus);
  if (m->reserved_usd_per_hour > 0)
    {
      line_text (s, "reserved terms", m->reserved_terms);
      line_text (s, "reserved source", m->reserved_source);
      line_text (s, "reserved date", m->reserved_date);
    }
}

char *
sim_catalogue_describe (const SimCatalogue *catalogue, const char *name, GError **error)
{
  const SimCloudModel *cloud;
  const SimGpuModel *gpu;
  const SimNodeModel *node;
  const SimLinkModel *link;
  const SimSwitchModel *sw;
  const SimCoolingModel *cooling;
  GString *s;

  g_return_val_if_fail (catalogue != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  gpu = sim_catalogue_lookup_gpu (catalogue, name);
  node = sim_catalogue_lookup_node (catalogue, name);
  link = sim_catalogue_lookup_link (catalogue, name);
  sw = sim_catalogue_lookup_switch (catalogue, name);
  cooling = sim_catalogue_lookup_cooling (catalogue, name);
  cloud = sim_catalogue_lookup_cloud (catalogue, name);
  if (gpu == NULL && node == NULL && link == NULL && sw == NULL && cooling == NULL
      && cloud == NULL)
    {
      const char *guess = sim_catalogue_suggest (catalogue, name);
      if (guess == NULL)
        guess = sim_catalogue_suggest_link (catalogue, name);
      if (guess == NULL)
        guess = sim_catalogue_suggest_switch (catalogue, name);
      if (guess == NULL)
        guess = sim_catalogue_suggest_cloud (catalogue, name);
      if (guess != NULL)
        g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                     "no GPU, node, link, switch or cloud model called \"%s\": did you mean "
                     "\"%s\"?", name, guess);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                     "no GPU, node, link, switch or cloud model called \"%s\" (`gpusim "
                     "models` lists them)", name);
      return NULL;
    }
  s = g_string_new (NULL);
  if (gpu != NULL)
    describe_gpu (s, gpu);
  if (node != NULL)
    {
      if (s->len > 0)
        g_string_append_c (s, '\n');
      describe_node (s, node);
    }
  if (link != NULL)
    {
      if (s->len > 0)
        g_string_append_c (s, '\n');
      describe_link (s, link);
    }
  if (sw != NULL)
    {
      if (s->len > 0)
        g_string_append_c (s, '\n');
      describe_switch (s, sw);
    }
  if (cooling != NULL)
    {
      if (s->len > 0)
        g_string_append_c (s, '\n');
      g_string_append_printf (s, "%s (cooling, %s)\n", cooling->name, cooling->type);
      line_text (s, "description", cooling->description);
      line_text (s, "source file", cooling->source_file);
      g_string_append_printf (s, "  CRAH fans: %g W per W of heat by air\n", cooling->crah_fan);
      g_string_append_printf (s, "  chillers: COP %g at %g C outdoors (at most %g), water at "
                              "%g C, %g K approach\n", cooling->chiller_cop,
                              cooling->rated_outdoor_c, cooling->cop_max, cooling->supply_c,
                              cooling->approach_k);
      if (cooling->economizer_c > -273)
        g_string_append_printf (s, "  economizer: below %g C\n", cooling->economizer_c);
      g_string_append_printf (s, "  pumps and towers: %g W per W of chilled heat\n",
                              cooling->heat_rejection);
      g_string_append_printf (s, "  liquid: %g of the heat, pumps %g W and dry coolers %g W "
                              "per W of it\n", cooling->liquid_share, cooling->liquid_pumps,
                              cooling->dry_cooler);
      g_string_append_printf (s, "  server fans left: %g; other loads: %g W per W of IT\n",
                              cooling->server_fans, cooling->misc);
      g_string_append_printf (s, "  published PUE range: %g-%g\n", cooling->pue_low,
                              cooling->pue_high);
    }
  if (cloud != NULL)
    {
      if (s->len > 0)
        g_string_append_c (s, '\n');
      describe_cloud (s, cloud);
    }
  return g_string_free (s, FALSE);
}
