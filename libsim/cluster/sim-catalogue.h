/* sim-catalogue.h: the hardware catalogue.
 *
 * The catalogue is data: one GLib key file per model, in directories on a
 * search path.  A file's first group says what it describes: [gpu], [node],
 * [link], [switch] or [cloud] (a rented cloud instance and its prices).
 * A GPU may add one [mig NAME] group per MIG profile.  Values carry units
 * ("80GB", "3.35TB/s", "700W") and every value has its source in a comment.
 *
 * The search path, from lowest to highest precedence: the installed
 * catalogue (or, in an uninstalled build tree, the source tree's models/),
 * each directory in $GPUSIM_MODEL_PATH (colon-separated), then directories
 * added by the caller (a scenario's own `models` key).  A model with the
 * same name in a later directory replaces the earlier one.  Directories are
 * read recursively; files are read in sorted order, so loading is
 * deterministic.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "cluster/sim-gpu-model.h"

G_BEGIN_DECLS

/**
 * SimNodeModel:
 *
 * A node (server) model.
 */
typedef struct _SimLinkModel   SimLinkModel;
typedef struct _SimSwitchModel SimSwitchModel;

typedef struct {
  char    *name;              /* "DGX-H100" */
  char    *description;
  char    *source_file;
  char    *gpu_name;          /* the GPU model's name */
  const SimGpuModel *gpu;     /* resolved when the catalogue is loaded */
  guint    gpus;              /* GPUs per node */
  char    *intra_node;        /* "nvswitch", "nvlink-mesh", "pcie", "infinity-fabric" */
  guint    nvswitches;        /* NVSwitch chips, 0 if none */
  guint    nics;              /* scale-out NICs */
  double   nic_bandwidth;     /* bytes/s per NIC */
  char    *nic_type;          /* "infiniband-ndr", "roce-400g", "ethernet-100g" ... */
  char    *cpu;               /* "2x Intel Xeon Platinum 8480C" */
  guint    cpu_cores;
  guint64  memory_bytes;      /* host memory */
  double   base_power_w;      /* node power without its GPUs, at idle */
  double   max_power_w;       /* the node's rated maximum */
  double   price_usd;
  char    *intra_link_name;   /* [link] model joining its GPUs, or NULL: the GPU's scaleup_link */
  char    *nic_link_name;     /* [link] model of its NICs' cables, or NULL */
  char    *pcie_link_name;    /* [link] model from GPU to NIC / PCIe switch, or NULL */
  char    *nvswitch_name;     /* [switch] model of its NVSwitch chips, or NULL */
  const SimLinkModel   *intra_link;  /* resolved when the catalogue is resolved; NULL if none */
  const SimLinkModel   *nic_link;
  const SimLinkModel   *pcie_link;
  const SimSwitchModel *nvswitch;
  /* Power of the node's parts (power/sim-power.h), 0 if not given. */
  double   cpu_idle_power_w;  /* all its CPUs together, idle */
  double   cpu_max_power_w;   /* all its CPUs together, fully loaded */
  double   memory_power_w;    /* all its host memory */
  double   nic_power_w;       /* per scale-out NIC */
  double   fan_idle_power_w;  /* all its fans, GPUs idle */
  double   fan_max_power_w;   /* all its fans, GPUs at full power */
  double   other_power_w;     /* storage, board, management: a constant load */
  double   psu_efficiency;    /* power supplies, output over input, (0, 1] */
  double   sleep_power_w;     /* the whole node asleep, at the wall */
} SimNodeModel;

/**
 * SimLinkModel:
 *
 * A kind of link: a network cable with its NICs' ports, or an on-board
 * interconnect.  What @bandwidth means depends on @kind:
 * - scale-up links (nvlink, infinity-fabric): the bandwidth of one GPU, in
 *   each direction, over all its links of this kind together (NVLink4:
 *   18 links of 25 GB/s per direction = 450 GB/s).  A topology gives it
 *   whole to the GPU's one connection to the node's logical NVSwitch, or
 *   splits it evenly among the GPU's peers in a mesh;
 * - pcie: one x16 connection, in each direction;
 * - network links (infiniband, roce, ethernet): one port and cable, in
 *   each direction (400 Gb/s for NDR).
 * @efficiency is the share of @bandwidth a large transfer achieves
 * (protocol overhead), calibrated against measured bus bandwidth; 1 if
 * the file does not give it.  @latency is per hop (one link, including
 * its serialisation and the ports at both ends); @transport_latency is
 * paid once per message end to end (a kernel TCP stack), not per hop.
 */
struct _SimLinkModel {
  char    *name;              /* "IB-NDR" */
  char    *description;
  char    *source_file;
  char    *kind;              /* nvlink, pcie, infinity-fabric, infiniband, roce, ethernet */
  double   bandwidth;         /* bytes/s per direction, see above */
  double   efficiency;        /* 0 < efficiency <= 1 */
  gint64   latency_ns;        /* per hop */
  gint64   transport_latency_ns; /* per message, end to end */
  char    *transport;         /* rdma, tcp, load-store */
  guint    links_per_gpu;     /* scale-up links that @bandwidth adds up, 0 if not given */
  gboolean optical;           /* cables between switches are optical (two transceivers) */
  gboolean access_optical;    /* cables from a NIC to its switch are optical too */
  double   price_usd;         /* per cable or transceiver, 0 if not published */
  double   transceiver_power_w; /* per optical transceiver, 0 if not published */
};

/**
 * SimSwitchModel:
 *
 * A switch: an NVSwitch chip, or an InfiniBand or Ethernet switch box.
 */
struct _SimSwitchModel {
  char    *name;              /* "Quantum-2-QM9700" */
  char    *description;
  char    *source_file;
  char    *kind;              /* nvswitch, infiniband, ethernet */
  guint    radix;             /* ports */
  double   port_bandwidth;    /* bytes/s per port, per direction */
  gint64   latency_ns;        /* port to port, 0 if not published */
  double   power_w;           /* typical or maximum power, 0 if not published */
  double   price_usd;
  gboolean in_network_reduction; /* SHARP (InfiniBand) or NVLS (NVSwitch) */
};

/**
 * SimCloudModel:
 * @name: the catalogue's name, e.g. "AWS-p5.48xlarge"
 * @description: (nullable): a line of text
 * @source_file: the file it was read from
 * @provider: the cloud, e.g. "AWS"
 * @instance: the provider's instance type, e.g. "p5.48xlarge"
 * @node_name: (nullable): the [node] model the instance is built like, or %NULL
 * @node: (nullable): @node_name resolved, or %NULL
 * @gpu_name: the GPU model's name (from @node when the file does not give it)
 * @gpu: (nullable): @gpu_name resolved when the catalogue is resolved
 * @gpus: GPUs per instance
 * @on_demand_usd_per_hour: the on-demand price of one instance-hour, 0 if
 *   not published
 * @on_demand_source: (nullable): where @on_demand_usd_per_hour comes from
 * @on_demand_date: (nullable): when it was that price, "YYYY", "YYYY-MM" or
 *   "YYYY-MM-DD"
 * @reserved_usd_per_hour: the price of one instance-hour bought in advance,
 *   0 if not published
 * @reserved_terms: (nullable): what "reserved" means for this price, e.g.
 *   "AWS EC2 Capacity Blocks for ML" or "1-year commitment, no upfront"
 * @reserved_source: (nullable): where @reserved_usd_per_hour comes from
 * @reserved_date: (nullable): when it was that price
 *
 * A cloud instance that can be rented instead of (or besides) owned nodes,
 * with its prices per instance-hour in US dollars.  Every price has its
 * source and date: cloud prices change, and a comparison is only as good
 * as the date of its price.  At least one of the two prices is known; a
 * reserved price is never above the on-demand one.
 */
typedef struct {
  char    *name;
  char    *description;
  char    *source_file;
  char    *provider;
  char    *instance;
  char    *node_name;
  const SimNodeModel *node;
  char    *gpu_name;
  const SimGpuModel  *gpu;
  guint    gpus;
  double   on_demand_usd_per_hour;
  char    *on_demand_source;
  char    *on_demand_date;
  double   reserved_usd_per_hour;
  char    *reserved_terms;
  char    *reserved_source;
  char    *reserved_date;
} SimCloudModel;

/**
 * SimCoolingModel:
 * @name: its name, "air", "liquid", "immersion" or a user's own
 * @description: a line of text
 * @source_file: the file it was read from
 * @type: air, liquid or immersion
 * @crah_fan: W of air-handler (CRAH) fans per W of heat removed by air
 * @chiller_cop: the chillers' coefficient of performance at @rated_outdoor_c
 * @rated_outdoor_c: the outdoor temperature of @chiller_cop, degrees C
 * @supply_c: the chilled-water supply temperature, degrees C
 * @approach_k: how far above the outdoor temperature heat is rejected, K
 * @cop_max: the highest COP the chillers reach in cool weather
 * @economizer_c: below this outdoor temperature the chillers are off (free
 *   cooling); -273.15: never
 * @heat_rejection: W of pumps and cooling towers per W of heat the
 *   chilled-water plant removes
 * @liquid_share: the share of the IT heat taken by liquid (cold plates or
 *   immersion), [0, 1]
 * @liquid_pumps: W of coolant pumps (CDUs) per W of liquid heat
 * @dry_cooler: W of dry-cooler fans per W of liquid heat
 * @dry_cooler_max_c: above this outdoor temperature the liquid loop's heat
 *   goes to the chillers instead
 * @server_fans: the share of the nodes' own fan power left with this
 *   cooling (1 for air)
 * @misc: W of other facility loads (lighting, humidity control) per W of IT
 * @pue_low: the low end of the published PUE range its default sits in
 * @pue_high: the high end of that range
 *
 * A cooling plant (power/sim-cooling.h).
 */
typedef struct {
  char    *name;
  char    *description;
  char    *source_file;
  char    *type;
  double   crah_fan;
  double   chiller_cop;
  double   rated_outdoor_c;
  double   supply_c;
  double   approach_k;
  double   cop_max;
  double   economizer_c;
  double   heat_rejection;
  double   liquid_share;
  double   liquid_pumps;
  double   dry_cooler;
  double   dry_cooler_max_c;
  double   server_fans;
  double   misc;
  double   pue_low;
  double   pue_high;
} SimCoolingModel;

typedef struct _SimCatalogue SimCatalogue;

/**
 * SIM_TYPE_CATALOGUE:
 *
 * The boxed type of #SimCatalogue: a copy is a new reference.  A cluster
 * built from a catalogue holds one, so that its nodes' models stay valid as
 * long as it lives.
 */
#define SIM_TYPE_CATALOGUE (sim_catalogue_get_type ())
GType sim_catalogue_get_type (void) G_GNUC_CONST;

/**
 * sim_catalogue_new: (skip)
 *
 * Returns: (transfer full): an empty catalogue.
 */
SimCatalogue *sim_catalogue_new (void);
/**
 * sim_catalogue_ref:
 * @catalogue: a catalogue
 *
 * Returns: (transfer full): @catalogue, with one more reference.
 */
SimCatalogue *sim_catalogue_ref (SimCatalogue *catalogue);
/**
 * sim_catalogue_unref:
 * @catalogue: (transfer full) (nullable): a catalogue
 *
 * Drops a reference; the last one frees the catalogue and its models.
 */
void          sim_catalogue_unref (SimCatalogue *catalogue);
/**
 * sim_catalogue_free: (skip)
 *
 * The same as sim_catalogue_unref().
 */
void          sim_catalogue_free (SimCatalogue *catalogue);

/**
 * sim_catalogue_default_path:
 *
 * Returns: (transfer full): the directories searched before any the caller
 *   adds: the installed catalogue (or the source tree's, uninstalled), then
 *   $GPUSIM_MODEL_PATH.  Free with g_strfreev().
 */
char **sim_catalogue_default_path (void);

/**
 * sim_catalogue_add_directory:
 * @catalogue: a catalogue
 * @dir: a directory of model files, read recursively
 * @error: return location for a #GError
 *
 * Loads every `*.ini` file under @dir.  Models replace those of the same
 * name loaded before.  After loading, node models are resolved against the
 * GPU models known so far; sim_catalogue_resolve() checks them all again.
 *
 * Errors: SIM_ERROR_IO if @dir cannot be read; SIM_ERROR_PARSE,
 * SIM_ERROR_INVALID, SIM_ERROR_MISSING or SIM_ERROR_UNKNOWN_KEY for a bad
 * file, naming the file, line where known, and key.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_catalogue_add_directory (SimCatalogue *catalogue, const char *dir, GError **error);

/**
 * sim_catalogue_add_file:
 *
 * Loads one model file.  Same errors as sim_catalogue_add_directory().
 */
gboolean sim_catalogue_add_file (SimCatalogue *catalogue, const char *path, GError **error);

/**
 * sim_catalogue_resolve:
 *
 * Resolves every node model's GPU, and its intra_link, nic_link, pcie_link
 * and nvswitch models where it names them, by name; and every cloud
 * model's node and GPU (a cloud model that names a node takes the node's
 * GPU model and count unless it gives them, and must agree with it if it
 * does).
 *
 * Errors: SIM_ERROR_NOT_FOUND naming the node file, line and key and the
 * unknown model, with a suggestion of the closest known name.
 */
gboolean sim_catalogue_resolve (SimCatalogue *catalogue, GError **error);

/**
 * sim_catalogue_new_default: (skip)
 * @extra_dirs: (nullable) (array zero-terminated=1): more directories, last wins
 * @error: return location for a #GError
 *
 * Loads the default path, then @extra_dirs, then resolves.  Directories on
 * the default path that do not exist are skipped; an @extra_dirs entry that
 * does not exist is an error.
 *
 * Returns: (transfer full) (nullable): the catalogue, or %NULL on error.
 */
SimCatalogue *sim_catalogue_new_default (const char * const *extra_dirs, GError **error);

/**
 * sim_catalogue_lookup_gpu:
 * Returns: (transfer none) (nullable): the GPU model called @name
 *   (compared without regard to case), or %NULL.
 */
const SimGpuModel  *sim_catalogue_lookup_gpu (const SimCatalogue *catalogue, const char *name);
/**
 * sim_catalogue_lookup_node:
 * Returns: (transfer none) (nullable): the node model called @name, or %NULL.
 */
const SimNodeModel *sim_catalogue_lookup_node (const SimCatalogue *catalogue, const char *name);

/**
 * sim_catalogue_lookup_link:
 * Returns: (transfer none) (nullable): the link model called @name, or %NULL.
 */
const SimLinkModel   *sim_catalogue_lookup_link (const SimCatalogue *catalogue, const char *name);
/**
 * sim_catalogue_lookup_switch:
 * Returns: (transfer none) (nullable): the switch model called @name, or %NULL.
 */
const SimSwitchModel *sim_catalogue_lookup_switch (const SimCatalogue *catalogue,
                                                   const char *name);

/**
 * sim_catalogue_lookup_cloud:
 * Returns: (transfer none) (nullable): the cloud instance model called @name
 *   (compared without regard to case), or %NULL.
 */
const SimCloudModel  *sim_catalogue_lookup_cloud (const SimCatalogue *catalogue,
                                                  const char *name);

/**
 * sim_catalogue_match_cloud:
 * @catalogue: a resolved catalogue
 * @node: (nullable): a node model name, or %NULL
 * @gpu: (nullable): a GPU model name, or %NULL
 * @gpus: the GPUs per node of the cluster being compared, or 0 for any
 *
 * Finds the cloud instance to compare a cluster with: the first, by name,
 * built like node model @node; failing that, the first with @gpu's GPU
 * model and, if @gpus is not 0, @gpus GPUs.  Names compare without regard
 * to case.  Instances without an on-demand price come after those with
 * one.  Time complexity: O(clouds log clouds).
 *
 * Returns: (transfer none) (nullable): the instance, or %NULL if none fits.
 */
const SimCloudModel  *sim_catalogue_match_cloud (const SimCatalogue *catalogue,
                                                 const char *node, const char *gpu,
                                                 guint gpus);

/**
 * sim_catalogue_get_gpus:
 * Returns: (transfer container) (element-type SimGpuModel): the GPU models, sorted by name.
 */
GPtrArray *sim_catalogue_get_gpus (const SimCatalogue *catalogue);
/**
 * sim_catalogue_get_nodes:
 * Returns: (transfer container) (element-type SimNodeModel): the node models, sorted by name.
 */
GPtrArray *sim_catalogue_get_nodes (const SimCatalogue *catalogue);
/**
 * sim_catalogue_get_links:
 * Returns: (transfer container) (element-type SimLinkModel): the link models, sorted by name.
 */
GPtrArray *sim_catalogue_get_links (const SimCatalogue *catalogue);
/**
 * sim_catalogue_get_switches:
 * Returns: (transfer container) (element-type SimSwitchModel): the switch models, sorted
 *   by name.
 */
GPtrArray *sim_catalogue_get_switches (const SimCatalogue *catalogue);

/**
 * sim_catalogue_get_clouds:
 * Returns: (transfer container) (element-type SimCloudModel): the cloud instance models,
 *   sorted by name.
 */
GPtrArray *sim_catalogue_get_clouds (const SimCatalogue *catalogue);

/**
 * sim_catalogue_suggest:
 * @catalogue: a catalogue
 * @name: a name that was not found
 *
 * Returns: (transfer none) (nullable): the known model name (GPU or node)
 *   closest to @name by edit distance, if one is close enough.
 */
const char *sim_catalogue_suggest (const SimCatalogue *catalogue, const char *name);
/**
 * sim_catalogue_suggest_link:
 * Returns: (transfer none) (nullable): the link model name closest to @name, if any is close.
 */
const char *sim_catalogue_suggest_link (const SimCatalogue *catalogue, const char *name);
/**
 * sim_catalogue_suggest_switch:
 * Returns: (transfer none) (nullable): the switch model name closest to @name, if any is close.
 */
const char *sim_catalogue_suggest_switch (const SimCatalogue *catalogue, const char *name);
/**
 * sim_catalogue_suggest_cloud:
 * Returns: (transfer none) (nullable): the cloud model name closest to @name, if any is close.
 */
const char *sim_catalogue_suggest_cloud (const SimCatalogue *catalogue, const char *name);

/**
 * sim_catalogue_describe:
 * @catalogue: a catalogue
 * @name: a GPU, node, link, switch or cloud model name
 * @error: return location for a #GError
 *
 * Formats every field of one model, with units, for `gpusim models show`.
 *
 * Returns: (transfer full) (nullable): the text, or %NULL with
 *   SIM_ERROR_NOT_FOUND (with a suggestion) if there is no such model.
 */
char *sim_catalogue_describe (const SimCatalogue *catalogue, const char *name, GError **error);

/**
 * sim_catalogue_lookup_cooling:
 * @catalogue: a catalogue
 * @name: a cooling model's name, any case
 *
 * Returns: (transfer none) (nullable): the model, or %NULL.
 */
const SimCoolingModel *sim_catalogue_lookup_cooling (const SimCatalogue *catalogue,
                                                     const char *name);

/**
 * sim_catalogue_get_coolings:
 * @catalogue: a catalogue
 *
 * Returns: (transfer container) (element-type SimCoolingModel): the cooling
 *   models, sorted by name.
 */
GPtrArray *sim_catalogue_get_coolings (const SimCatalogue *catalogue);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimCatalogue, sim_catalogue_free)

G_END_DECLS
