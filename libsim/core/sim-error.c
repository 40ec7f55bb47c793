/* sim-error.c: the error domain and library initialisation. */
#include "config.h"

#include "core/sim-error.h"

#include <gsl/gsl_errno.h>
#include <igraph.h>

G_DEFINE_QUARK (sim-error-quark, sim_error)

/* GSL's default handler calls abort().  Every GSL call gpusim makes checks
 * its return value or validates its arguments beforehand, so errors are
 * turned off here and reported at the call site instead. */
static void
gsl_quiet_handler (const char *reason, const char *file, int line, int gsl_errno)
{
  g_debug ("GSL error %d at %s:%d: %s", gsl_errno, file, line, reason);
}

/* igraph's default handler aborts too.  Its documented non-aborting handler
 * prints and returns the code; every igraph call in gpusim checks it. */
static void
igraph_quiet_handler (const char *reason, const char *file, int line,
                      igraph_error_t igraph_errno)
{
  g_debug ("igraph error %d at %s:%d: %s", (int) igraph_errno, file, line, reason);
  IGRAPH_FINALLY_FREE ();
}

static void
igraph_quiet_warning (const char *reason, const char *file, int line)
{
  g_debug ("igraph warning at %s:%d: %s", file, line, reason);
}

void
sim_init (void)
{
  static gsize initialised = 0;

  if (g_once_init_enter (&initialised))
    {
      gsl_set_error_handler (gsl_quiet_handler);
#if !IGRAPH_THREAD_SAFE
      /* One process-wide handler: set once, not raced by every new
       * simulation of every thread. */
      igraph_set_error_handler (igraph_quiet_handler);
      igraph_set_warning_handler (igraph_quiet_warning);
#endif
      g_once_init_leave (&initialised, 1);
    }
#if IGRAPH_THREAD_SAFE
  /* A thread-safe igraph keeps its handlers per thread: set them in each. */
  igraph_set_error_handler (igraph_quiet_handler);
  igraph_set_warning_handler (igraph_quiet_warning);
#endif
}
