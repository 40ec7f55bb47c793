/* sim-diagram-private.h: the Graphviz plumbing the fabric and node
 * diagrams share (not installed): graphs whose object ids follow the order
 * of creation (so output is deterministic), attributes, bandwidth labels,
 * and rendering to DOT, SVG, PNG or PDF. */
#pragma once

#include <glib.h>
#include <graphviz/cgraph.h>

G_BEGIN_DECLS

/* A new undirected graph whose named objects are numbered in the order
 * they are created (cgraph's default orders subgraphs by the address of
 * their interned name, which changes from run to run). */
Agraph_t *sim__diagram_new_graph (const char *name);

/* Sets attribute @name of a graph, node or edge, declaring it if needed. */
void sim__diagram_set (void *obj, const char *name, const char *value);

/* "400 Gb/s" and "450 GB/s" from bytes/s. */
char *sim__diagram_gbps (double bytes_per_s);
char *sim__diagram_gBps (double bytes_per_s);

/* Whether @format is dot (if @dot_allowed), svg, png or pdf;
 * SIM_ERROR_INVALID otherwise. */
gboolean sim__diagram_check_format (const char *format, gboolean dot_allowed, GError **error);

/* Writes @g as DOT, or lays it out with dot and renders it; closes @g. */
gboolean sim__diagram_render_graph (Agraph_t *g, const char *format, char **data, gsize *length,
                                    GError **error);

G_END_DECLS
