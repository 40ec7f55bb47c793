/* sim-sweep-db-private.h: opening a sweep database from plain values (not
 * installed).
 *
 * The database knows nothing of sweep files: it is given the plan of its
 * runs, the scenario's path, the swept keys and each point's values, and
 * the text a run's scenario hash starts from.  sim_sweep_db_open() (in
 * sim-sweep.c) fills these from a #SimSweep, so that the sweep depends on
 * its database and not the other way round.
 */
#pragma once

#include "sweep/sim-sweep-db.h"
#include "study/sim-plan.h"

G_BEGIN_DECLS

typedef struct {
  SimPlan            *plan;          /* its entries are the points */
  const char         *scenario_path;
  const char * const *axis_keys;     /* [n_axes], in file order */
  guint               n_axes;
  guint               n_points;      /* the plan's entries */
  const char * const *point_values;  /* [point * n_axes + axis] */
  const char         *hash_text;     /* the scenario file without [sweep] */
} SimSweepDbSpec;

/* Opens (or creates) the database at PATH for the sweep SPEC describes;
 * every value is copied.  Errors: those of sim_sweep_db_open(). */
SimSweepDb *sim__sweep_db_open (const char *path, const SimSweepDbSpec *spec, GError **error);

/* The scenario hash of RUN of PLAN: SHA-256 of HASH_TEXT, a NUL, then each
 * of the run's overrides followed by a newline (sim_sweep_dup_scenario_hash()). */
char *sim__sweep_db_hash_run (const char *hash_text, SimPlan *plan, guint run);

G_END_DECLS
