/* gpusim-mpi.h: a sweep spread over MPI ranks (gpusim-mpi.c). */
#pragma once

#include <sim.h>

G_BEGIN_DECLS

/* TRUE if this process was started by mpirun with more than one rank
 * (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_SIZE of other
 * launchers), whether or not gpusim was built with MPI. */
gboolean gpusim_mpi_launched (void);

/* Runs SWEEP over the ranks: rank 0 deals runs one at a time to the ranks
 * that ask (and runs some itself in a second thread), records every
 * outcome, and adds each row to DB_PATH if given.  On rank 0, *IS_ROOT is
 * set and the results are returned (those resumed from DB_PATH included);
 * *N_RANKS, *N_LOCAL and *N_REMOTE say how many ranks there were and how
 * many runs rank 0's thread and the other ranks ran.  Other ranks return NULL with no error once there is nothing left.
 * Without MPI built in, an error saying so. */
SimPlanResults *gpusim_mpi_sweep (SimSweep *sweep, const char *db_path, gboolean *is_root,
                                  guint *n_ranks, guint *n_local, guint *n_remote,
                                  GError **error);

G_END_DECLS
