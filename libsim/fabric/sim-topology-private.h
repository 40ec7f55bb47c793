/* sim-topology-private.h: routing and metrics without their shortcuts,
 * for the tests, and the routes the collectives keep (not installed).
 * See sim-topology.h for the model. */
#pragma once

#include "fabric/sim-topology.h"

G_BEGIN_DECLS

/* The diameter of sim_topology_get_metrics() (internal, for the tests):
 * from the structure (%G_MAXUINT when the graph does not decompose), or,
 * with @search, by a breadth-first search from every GPU. */
guint sim__topology_diameter (SimTopology *topology, gboolean search);

/* sim_topology_route_via(), the route appended to what @resources holds
 * (left as it was on failure), and whether it depends only on the three
 * GPUs (internal, for the collectives): *@fixed (nullable) is %TRUE when
 * no hop chose by @flow_hash or @load, so that every flow between them
 * takes this route. */
gboolean sim__topology_route_fixed (SimTopology *topology, guint32 src_gpu, guint32 nic_gpu,
                                    guint32 dst_gpu, guint64 flow_hash, const guint32 *load,
                                    GArray *resources, SimTime *latency, gboolean *fixed);

/* Routes without the shortcuts (internal, for the tests): with @search,
 * every part of a route inside a node walks its node's distance table,
 * D-mod-K works out the destination's way up afresh and comes down it hop
 * by hop, and walks over the network follow the distances to the
 * destination NIC over the whole graph: what the kept segments and ways
 * of sim_topology_route_via() and its walks between switches must
 * reproduce. */
void sim__topology_set_search (SimTopology *topology, gboolean search);

/* Whether walks over the network of @topology take a dragonfly's hop
 * distances from its structure rather than from a search (internal, for
 * the tests; looks at the graph if no route has yet). */
gboolean sim__topology_dragonfly_structure (SimTopology *topology);

G_END_DECLS
