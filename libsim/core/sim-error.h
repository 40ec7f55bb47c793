/* sim-error.h: the one error domain of gpusim.
 *
 * Everything a user can get wrong (a scenario, a trace, a catalogue file, an
 * API call with bad values) is reported as a GError in the SIM_ERROR domain.
 * Messages name the file, the line where known, the key, and what was
 * expected, so that they can be shown to the user as they are.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * SimError:
 * @SIM_ERROR_PARSE: text could not be parsed (syntax, units, numbers).
 * @SIM_ERROR_INVALID: a value was well-formed but out of range or inconsistent.
 * @SIM_ERROR_UNKNOWN_KEY: a section or key that gpusim does not know.
 * @SIM_ERROR_MISSING: a required section, key or field is absent.
 * @SIM_ERROR_NOT_FOUND: a named model, policy or file does not exist.
 * @SIM_ERROR_IO: reading or writing a file failed.
 * @SIM_ERROR_TRACE: a workload trace is malformed.
 * @SIM_ERROR_STATE: an API call made in a state that does not allow it.
 * @SIM_ERROR_UNSATISFIABLE: a job can never run on the cluster as built.
 * @SIM_ERROR_HELD: a start refused for now, not for good: the job may
 *   start later (the facility power limit holds it back).
 *
 * Error codes of the %SIM_ERROR domain.
 */
typedef enum {
  SIM_ERROR_PARSE,
  SIM_ERROR_INVALID,
  SIM_ERROR_UNKNOWN_KEY,
  SIM_ERROR_MISSING,
  SIM_ERROR_NOT_FOUND,
  SIM_ERROR_IO,
  SIM_ERROR_TRACE,
  SIM_ERROR_STATE,
  SIM_ERROR_UNSATISFIABLE,
  SIM_ERROR_HELD,
} SimError;

/**
 * SIM_ERROR:
 *
 * The error domain of gpusim.
 */
#define SIM_ERROR (sim_error_quark ())
GQuark sim_error_quark (void);

/**
 * sim_init:
 *
 * Prepares the libraries gpusim builds on: installs non-aborting error
 * handlers for GSL and igraph, whose defaults abort the process. It is
 * called by every constructor that needs it; calling it again does nothing.
 * Thread-safe.
 */
void sim_init (void);

G_END_DECLS
