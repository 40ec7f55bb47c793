/* sim-transfers-private.h: the event loop's bookkeeping, for the tests
 * (not installed).  See sim-transfers.h for the model. */
#pragma once

#include "fabric/sim-transfers.h"

G_BEGIN_DECLS

/* The entries in the event loop's queues (internal, for the tests): at
 * most one per transfer in each. */
guint sim__transfers_get_queued (SimTransfers *self);

G_END_DECLS
