/* sim-diagram.h: diagrams of a cluster's network and of a node, drawn with
 * Graphviz.
 *
 * A fabric diagram puts tiers top to bottom (core, spine, leaf or rail
 * leaf, then the nodes) and draws every network switch and cluster node
 * as a box; nodes sit in order under their first switch, inside a cluster
 * for their rack (the nodes whose first switch is the same).  Links inside
 * nodes are not drawn.  Parallel links between two boxes are bundled into
 * one edge labelled with their number and speed ("8 x 400 Gb/s"): Graphviz
 * places each edge label as a vertex of its own, so labels never overlap.
 *
 * Repeated structure is collapsed unless the diagram is expanded: boxes
 * that play the same part are drawn once with their count ("32 x
 * DGX-H100").  "The same part" is the coarsest partition of
 * the vertices in which two vertices of a class have the same kind (and
 * node model) and the same number of links of each speed to each other
 * class: colour refinement (one-dimensional Weisfeiler-Leman), iterated
 * until the number of classes stops growing.  On a rail-optimized fabric
 * (some node's NICs on more than one leaf) a leaf's rail, the index in
 * their nodes of the NICs it takes, is part of its initial colour, so each
 * rail is a box of its own ("rail 3 / leaf 3") joined to its group's
 * nodes by one bundle ("NIC 3 / 32 x 400 Gb/s"): the NIC-to-rail pattern,
 * once a group, and the nodes' cluster is their rail group.
 * A node's rack is part of
 * its initial colour when there are at most %SIM_DIAGRAM_MAX_RACKS racks,
 * so racks stay apart; beyond that, identical racks fold together too and
 * a 10,000-GPU fabric is a handful of boxes.  Alternatives rejected:
 * drawing the first and last few racks and eliding the middle (hides the
 * count and the wiring of what is elided), and graph-drawing by hand (the
 * layered layout, edge routing and label placement are Graphviz's trade).
 *
 * A legend lists the colours of the tiers, the line style of each link
 * model, the colour of each speed and the oversubscription of each tier
 * (downlink over uplink bandwidth), and, for a heat diagram, the colour
 * scale.
 *
 * The boxes of each tier stand in index order, left to right (switches
 * by number, racks and nodes by their first node): an invisible edge of
 * minimum length 0 joins each box to the next of its tier, and dot draws
 * such edges between vertices of one rank from left to right.
 * DOT is written without a layout; SVG, PNG and PDF are laid out by
 * Graphviz's dot engine.  The same input gives the same bytes.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "fabric/sim-topology.h"

G_BEGIN_DECLS

/**
 * SIM_DIAGRAM_MAX_RACKS:
 *
 * Collapsed diagrams keep racks apart up to this many racks.
 */
#define SIM_DIAGRAM_MAX_RACKS 16

/**
 * SIM_DIAGRAM_BIG:
 *
 * A fabric diagram of more boxes and bundles than this is laid out with
 * fewer rounds of Graphviz's crossing reduction and placement (it takes
 * seconds rather than a minute for 10,000 GPUs expanded).
 */
#define SIM_DIAGRAM_BIG 2000

/**
 * SIM_DIAGRAM_MAX_WIDTH:
 * The width (sim_topology_check_diagram_width()) `gpusim topo` draws up to
 * unless told otherwise: 200 boxes or labels side by side, some 20,000 pixels of
 * PNG.  An expanded 64-node fat-tree is 128 wide (its leaf-to-spine
 * bundles); 32 nodes expanded on rails are 256 (one bundle per node and
 * rail).
 */
#define SIM_DIAGRAM_MAX_WIDTH 200

/**
 * SIM_DIAGRAM_MAX_LOOSE_NODES:
 *
 * A heat diagram of a cluster without a network (no racks to group nodes
 * by) draws each node apart up to this many nodes.
 */
#define SIM_DIAGRAM_MAX_LOOSE_NODES 32

/**
 * SimDiagramHeat:
 * @SIM_DIAGRAM_HEAT_NONE: no heat: boxes coloured by tier, links by speed
 * @SIM_DIAGRAM_HEAT_NODES: nodes coloured by @node_heat
 * @SIM_DIAGRAM_HEAT_LINKS: the links from nodes to their first switch
 *   coloured by @link_heat
 */
typedef enum {
  SIM_DIAGRAM_HEAT_NONE,
  SIM_DIAGRAM_HEAT_NODES,
  SIM_DIAGRAM_HEAT_LINKS,
} SimDiagramHeat;

/**
 * SimDiagramOptions:
 * @expand: draw every node and switch (no collapsed repeats)
 * @heat: what is coloured by the figures of a run
 * @heat_title: (nullable): the scale's title, e.g. "GPU utilization,
 *   time-averaged"
 * @node_heat: (nullable) (array length=n_nodes): per cluster node, a value
 *   in [0, 1] (1 the top of the scale); NaN where unknown
 * @link_heat: (nullable) (array length=n_nodes): per cluster node, the load
 *   of its links to its first switch in [0, 1]; NaN where unknown
 * @n_nodes: entries of the arrays, the cluster's nodes
 *
 * How a fabric diagram is drawn.  A collapsed box shows the mean of its
 * members' values.
 */
typedef struct {
  gboolean        expand;
  SimDiagramHeat  heat;
  const char     *heat_title;
  const double   *node_heat;
  const double   *link_heat;
  guint           n_nodes;
} SimDiagramOptions;

/**
 * sim_topology_render: (skip)
 * @topology: a topology
 * @cluster: the cluster it was built from
 * @options: (nullable): how to draw it; %NULL: collapsed, no heat
 * @format: "dot", "svg", "png" or "pdf"
 * @data: (out) (transfer full) (array length=length): the diagram, followed
 *   by a NUL byte (not counted in @length)
 * @length: (out): its length in bytes
 * @error: return location for a #GError
 *
 * Draws the network of @cluster (see the top of this file).
 *
 * Errors: SIM_ERROR_INVALID for an unknown format or heat arrays of the
 * wrong length; SIM_ERROR_IO if Graphviz cannot lay out or render the graph.
 *
 * Time complexity: O(links x refinement rounds) to build (rounds are at
 * most the number of tiers plus two in the fabrics the builders make),
 * plus Graphviz's layout of the collapsed graph.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_topology_render (const SimTopology *topology, const SimCluster *cluster,
                              const SimDiagramOptions *options, const char *format,
                              char **data, gsize *length, GError **error);

/**
 * sim_topology_check_diagram_width: (skip)
 * @topology: a topology
 * @cluster: the cluster it was built from
 * @options: (nullable): as sim_topology_render()
 * @max_width: the widest diagram allowed; 0: any
 * @width: (out) (optional): the diagram's width
 * @error: return location for a #GError
 *
 * How wide sim_topology_render() would draw the diagram, without laying
 * it out: the most boxes on one tier, or bundles of links between a tier
 * and the next (each bundle's label is a box of its own, on a rank
 * between them).  A picture tens of thousands of pixels wide helps nobody
 * (32 DGX H100 on rails, expanded: 256 labels side by side, a PNG 30,000
 * pixels wide), so a caller can refuse it before Graphviz spends a minute
 * on it.  Time complexity: that of sim_topology_render() before the
 * layout.
 *
 * Errors: SIM_ERROR_INVALID if it is wider than @max_width, saying how
 * wide, where, and what would draw it (collapsed, a larger limit, fewer
 * nodes); or the errors of sim_topology_render() for bad heat arrays.
 *
 * Returns: %TRUE if the diagram is at most @max_width wide.
 */
gboolean sim_topology_check_diagram_width (const SimTopology *topology,
                                           const SimCluster *cluster,
                                           const SimDiagramOptions *options, guint max_width,
                                           guint *width, GError **error);

/**
 * sim_topology_write_diagram: (skip)
 * @topology: a topology
 * @cluster: the cluster it was built from
 * @options: (nullable): as sim_topology_render()
 * @path: the file to write (whole, or not at all)
 * @format: (nullable): as sim_topology_render(), or %NULL to take it from
 *   @path's extension
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success.
 */
gboolean sim_topology_write_diagram (const SimTopology *topology, const SimCluster *cluster,
                                     const SimDiagramOptions *options, const char *path,
                                     const char *format, GError **error);

/**
 * sim_node_model_render: (skip)
 * @model: a catalogue node model (resolved)
 * @format: as sim_topology_render()
 * @data: (out) (transfer full) (array length=length): the diagram
 * @length: (out): its length in bytes
 * @error: return location for a #GError
 *
 * Draws the inside of one node, the picture lstopo draws of a host: its
 * CPUs on top, PCIe switches (on a PCIe node), then its GPUs with the NIC
 * each reaches, and its NVSwitch chips at the bottom, each link labelled
 * with its bandwidth in each direction (GB/s inside the node, Gb/s for a
 * NIC's port).  Where
 * the catalogue does not say how GPUs reach CPUs, GPU i hangs under CPU
 * (i x CPUs / GPUs).  A mesh of GPU links is drawn without a label per
 * pair; its bandwidth per pair is in the mesh's caption.
 *
 * Errors: as sim_topology_render().
 *
 * Returns: %TRUE on success.
 */
gboolean sim_node_model_render (const SimNodeModel *model, const char *format, char **data,
                                gsize *length, GError **error);

/**
 * sim_diagram_render_dot:
 * @dot: a graph in the DOT language
 * @format: "svg", "png" or "pdf"
 * @data: (out) (transfer full) (array length=length) (element-type guint8): the rendering
 * @length: (out): its length in bytes
 * @error: return location for a #GError
 *
 * Lays out and renders a DOT graph (such as the topology.dot of a run's
 * output directory) with Graphviz's dot engine.
 *
 * Errors: SIM_ERROR_INVALID for an unknown format or DOT text Graphviz
 * cannot read; SIM_ERROR_IO if it cannot lay it out.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_diagram_render_dot (const char *dot, const char *format, char **data,
                                 gsize *length, GError **error);

/**
 * sim_diagram_write_data: (skip)
 * @path: the file to write (whole, or not at all)
 * @format: (nullable): the format, or %NULL to take it from @path's extension
 * @render: renders in a format
 * @user_data: for @render
 * @error: return location for a #GError
 *
 * Renders with @render in @format (or @path's extension) and writes the
 * result to @path atomically; errors are prefixed with @path.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_diagram_write_data (const char *path, const char *format,
                                 gboolean (*render) (gpointer user_data, const char *format,
                                                     char **data, gsize *length, GError **error),
                                 gpointer user_data, GError **error);

G_END_DECLS
