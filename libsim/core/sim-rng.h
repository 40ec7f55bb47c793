/* sim-rng.h: independent random streams, one per purpose.
 *
 * Every source of randomness in a simulation (arrivals, job sizes,
 * durations, failures, policy choices...) draws from its own stream.  A
 * stream's seed is derived from the scenario seed and the purpose's name by
 * a SplitMix64 mix of the seed and a 64-bit FNV-1a hash of the name, so that
 * adding a component, or changing how many draws one component makes, does
 * not perturb the draws of any other.  Draws come from GSL's MT19937.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include <gsl/gsl_rng.h>

G_BEGIN_DECLS

typedef struct _SimRng SimRng;

/**
 * sim_rng_derive_seed:
 * @seed: the scenario seed
 * @purpose: the name of the stream, e.g. "arrivals"
 *
 * Returns: the seed of the stream named @purpose.  Pure function.
 */
guint64 sim_rng_derive_seed (guint64 seed, const char *purpose);

/**
 * sim_rng_new: (skip)
 * @seed: the scenario seed
 * @purpose: the name of the stream
 *
 * Returns: (transfer full): a new stream; free with sim_rng_free().
 */
SimRng *sim_rng_new (guint64 seed, const char *purpose);
/**
 * sim_rng_free: (skip)
 */
void    sim_rng_free (SimRng *rng);

/**
 * sim_rng_gsl: (skip)
 * @rng: a stream
 *
 * Returns: (transfer none): the GSL generator behind @rng, for gsl_ran_*().
 */
gsl_rng *sim_rng_gsl (SimRng *rng);

/**
 * sim_rng_uniform:
 *
 * Returns: a draw from [0, 1).
 */
double  sim_rng_uniform (SimRng *rng);
/**
 * sim_rng_uniform_int:
 *
 * Returns: a draw from {0, ..., @n - 1}; @n > 0.
 */
guint64 sim_rng_uniform_int (SimRng *rng, guint64 n);
/**
 * sim_rng_exponential:
 *
 * Returns: a draw of mean @mean.
 */
double  sim_rng_exponential (SimRng *rng, double mean);
/**
 * sim_rng_lognormal:
 *
 * Returns: a draw of exp(N(@mu, @sigma^2)).
 */
double  sim_rng_lognormal (SimRng *rng, double mu, double sigma);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimRng, sim_rng_free)

G_END_DECLS
