/* sim-placements.h: the placements defined in sim-placements.c (private). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Registers worst-fit, random, packing, clustering, dot-product and fgd. */
void sim__register_placements (void);

G_END_DECLS
