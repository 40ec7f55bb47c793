/* sim-rng.c: per-purpose random streams on GSL. */
#include "config.h"

#include "sim-rng.h"

#include <gsl/gsl_randist.h>

struct _SimRng {
  gsl_rng *r;
};

static guint64
splitmix64 (guint64 x)
{
  x += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return x ^ (x >> 31);
}

guint64
sim_rng_derive_seed (guint64 seed, const char *purpose)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);

  g_return_val_if_fail (purpose != NULL, 0);
  for (const unsigned char *p = (const unsigned char *) purpose; *p; p++)
    {
      h ^= *p;
      h *= G_GUINT64_CONSTANT (0x100000001b3);
    }
  return splitmix64 (splitmix64 (seed) ^ h);
}

SimRng *
sim_rng_new (guint64 seed, const char *purpose)
{
  SimRng *rng;
  guint64 s;

  g_return_val_if_fail (purpose != NULL, NULL);
  rng = g_new0 (SimRng, 1);
  rng->r = gsl_rng_alloc (gsl_rng_mt19937);
  s = sim_rng_derive_seed (seed, purpose);
  /* MT19937 takes a 32-bit seed, and treats 0 as its default seed 4357. */
  s = (s ^ (s >> 32)) & 0xffffffffu;
  gsl_rng_set (rng->r, (unsigned long) (s == 0 ? 1 : s));
  return rng;
}

void
sim_rng_free (SimRng *rng)
{
  if (rng == NULL)
    return;
  gsl_rng_free (rng->r);
  g_free (rng);
}

gsl_rng *
sim_rng_gsl (SimRng *rng)
{
  g_return_val_if_fail (rng != NULL, NULL);
  return rng->r;
}

double
sim_rng_uniform (SimRng *rng)
{
  return gsl_rng_uniform (rng->r);
}

guint64
sim_rng_uniform_int (SimRng *rng, guint64 n)
{
  g_return_val_if_fail (n > 0, 0);
  if (n <= 0xffffffffu)
    return gsl_rng_uniform_int (rng->r, (unsigned long) n);
  /* Two 32-bit halves: MT19937's range is 2^32.  Draws below 2^64 mod n
   * are rejected so that every residue is equally likely. */
  {
    guint64 threshold = (0 - n) % n, x;
    do
      {
        guint64 hi = gsl_rng_get (rng->r), lo = gsl_rng_get (rng->r);
        x = (hi << 32) | lo;
      }
    while (x < threshold);
    return x % n;
  }
}

double
sim_rng_exponential (SimRng *rng, double mean)
{
  return gsl_ran_exponential (rng->r, mean);
}

double
sim_rng_lognormal (SimRng *rng, double mu, double sigma)
{
  return gsl_ran_lognormal (rng->r, mu, sigma);
}
