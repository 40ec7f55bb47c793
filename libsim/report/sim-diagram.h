/* sim-diagram.h: diagrams of a cluster's network, drawn with Graphviz.
 *
 * Each node of the cluster is one box (with its GPU count and model), each
 * network switch one vertex coloured by tier, and the links between two of
 * them one edge labelled with their number and speed ("8 x 400 Gb/s").
 * Links inside nodes are not drawn.  DOT is written without a layout; SVG,
 * PNG and PDF are laid out by Graphviz's dot engine.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "cluster/sim-cluster.h"
#include "fabric/sim-topology.h"

G_BEGIN_DECLS

/**
 * sim_topology_render: (skip)
 * @topology: a topology
 * @cluster: the cluster it was built from
 * @format: "dot", "svg", "png" or "pdf"
 * @data: (out) (transfer full) (array length=length): the diagram
 * @length: (out): its length in bytes
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_INVALID for an unknown format; SIM_ERROR_IO if
 * Graphviz cannot lay out or render the graph.
 *
 * Time complexity: O(links) to build, plus Graphviz's layout.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_topology_render (const SimTopology *topology, const SimCluster *cluster,
                              const char *format, char **data, gsize *length, GError **error);

/**
 * sim_topology_write_diagram:
 * @topology: a topology
 * @cluster: the cluster it was built from
 * @path: the file to write (whole, or not at all)
 * @format: (nullable): as sim_topology_render(), or %NULL to take it from
 *   @path's extension
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success.
 */
gboolean sim_topology_write_diagram (const SimTopology *topology, const SimCluster *cluster,
                                     const char *path, const char *format, GError **error);

G_END_DECLS
