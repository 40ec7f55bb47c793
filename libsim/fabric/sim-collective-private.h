/* sim-collective-private.h: the bounds AUTO weighs and collectives timed
 * alone, for sim-job-comm.c and the tests (not installed).  See
 * sim-collective.h for the model. */
#pragma once

#include "fabric/sim-collective.h"

G_BEGIN_DECLS

/* The two lower bounds of the time (seconds) AUTO weighs for each of its
 * candidate algorithms before solving them (internal, for the tests): in
 * @cut (at most @max of them) the one without routes, from the capacity
 * of the cuts around nodes and GPUs, and in @full the one from the
 * routes.  The first is never above the second.  Returns the number of
 * candidates, 0 on error. */
guint sim__collective_bounds (SimCommModel *model, SimCollectiveOp op, guint64 bytes,
                              const guint32 *gpus, guint n_gpus, double *cut, double *full,
                              guint max, GError **error);

/* One collective of a batch timed alone (internal).  @network and @id
 * (optional): the same collective registered there with the algorithm
 * @algo, whose routes are taken where they depend on its GPUs alone
 * (the same as routing it again, for less). */
typedef struct {
  SimCollectiveOp     op;
  SimCollectiveAlgo   algo;     /* not AUTO */
  guint64             bytes;
  const guint32      *gpus;
  guint               n_gpus;
  const SimCommModel *network;
  guint               id;
} SimCollectiveCall;

/* The time (seconds) of each of @calls when they, and nothing else, share
 * @model's network (which must have nothing registered): what registering
 * them in order with sim_comm_model_add(), then sim_comm_model_update()
 * and sim_comm_model_estimate() of each, would give, to the last bit;
 * @model is left as it was, but for its ids, which move on as they would
 * (internal: the idle copy of sim-job-comm.c).  Errors as
 * sim_comm_model_add(). */
gboolean sim__comm_model_time_alone (SimCommModel *model, const SimCollectiveCall *calls,
                                     guint n_calls, double *times, GError **error);

G_END_DECLS
