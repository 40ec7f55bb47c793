/* sim-serve-requests.c: the requests of a [requests NAME] section.
 *
 * Poisson arrivals whose rate follows a daily profile and bursts are drawn
 * by thinning (Lewis and Shedler, 1979): candidates at the highest rate,
 * each kept with the probability of the rate at its time over that
 * highest rate, which makes an inhomogeneous Poisson process exactly.
 * Lengths are drawn from their own random streams, so that changing the
 * arrivals does not change the lengths the n-th request gets.
 */
#include "config.h"

#include "serve/sim-serve-private.h"
#include "core/sim-error.h"
#include "core/sim-rng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static guint
draw_length (const SimServeLength *l, SimRng *rng)
{
  double v;

  switch (l->kind)
    {
    case SIM_SERVE_LENGTH_EXPONENTIAL:
      v = ceil (sim_rng_exponential (rng, l->mean));
      break;
    case SIM_SERVE_LENGTH_LOGNORMAL:
      {
        double s2 = log (1 + l->cv * l->cv);
        v = round (sim_rng_lognormal (rng, log (l->mean) - s2 / 2, sqrt (s2)));
      }
      break;
    case SIM_SERVE_LENGTH_FIXED:
    default:
      v = round (l->mean);
      break;
    }
  v = MAX (1.0, v);
  if (l->max > 0)
    v = MIN (v, (double) l->max);
  return (guint) MIN (v, 1e9);
}

/* The arrival rate at time T (s). */
static double
rate_at (const SimServeRequests *r, double t)
{
  double rate = r->rate;

  if (r->profile != NULL)
    {
      double hour = fmod (r->start_hour + t / 3600.0, 24.0);
      rate *= r->profile[MIN (23, (guint) hour)];
    }
  if (r->burst_duration > 0 && t >= r->burst_start && t < r->burst_start + r->burst_duration)
    rate *= r->burst_factor;
  return rate;
}

/* Gives each request its shared prefix, if it draws one, from a stream of
 * its own: the prefix comes before the request's own prompt, which grows
 * by it. */
static gboolean
add_prefixes (const SimServeRequests *r, guint64 seed, GArray *out, GError **error)
{
  g_autoptr(SimRng) rng = NULL;

  if (r->prefix_share > 0 && r->prefix_tokens == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "[requests %s] prefix_share = %g: expected prefix_tokens above 0 as well",
                   r->name != NULL ? r->name : "", r->prefix_share);
      return FALSE;
    }
  if (r->prefix_share == 0 && (r->prefix_tokens > 0 || r->prefixes > 1))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "[requests %s] %s: a key of shared prefixes: expected prefix_share above 0 "
                   "as well", r->name != NULL ? r->name : "",
                   r->prefix_tokens > 0 ? "prefix_tokens" : "prefixes");
      return FALSE;
    }
  if (r->prefix_share == 0)
    return TRUE;
  rng = sim_rng_new (seed, "serve-prefixes");
  for (guint i = 0; i < out->len; i++)
    {
      SimServeRequest *q = &g_array_index (out, SimServeRequest, i);
      double u = sim_rng_uniform (rng);
      guint which = MIN (r->prefixes - 1, (guint) (sim_rng_uniform (rng) * r->prefixes));

      if (u >= r->prefix_share)
        continue;
      q->prefix = which + 1;
      q->prefix_tokens = r->prefix_tokens;
      q->input = (guint) MIN ((double) q->input + r->prefix_tokens, 2e9);
    }
  return TRUE;
}

GArray *
sim__serve_requests_generate (const SimServeRequests *r, guint64 seed, GError **error)
{
  g_autoptr(GArray) out = NULL;
  g_autoptr(SimRng) arrivals = NULL, inputs = NULL, outputs = NULL;
  double t = 0, top;

  if (r->arrival == SIM_SERVE_ARRIVAL_TRACE)
    {
      out = sim__serve_trace_read (r->trace, r->count_given ? r->count : 0, error);
      if (out == NULL || !add_prefixes (r, seed, out, error))
        return NULL;
      return g_steal_pointer (&out);
    }

  out = g_array_sized_new (FALSE, FALSE, sizeof (SimServeRequest), r->count);
  arrivals = sim_rng_new (seed, "serve-arrivals");
  inputs = sim_rng_new (seed, "serve-input-lengths");
  outputs = sim_rng_new (seed, "serve-output-lengths");
  top = r->rate * MAX (1.0, r->burst_duration > 0 ? r->burst_factor : 1.0);
  if (r->profile != NULL)
    {
      double most = 0;
      for (guint h = 0; h < 24; h++)
        most = MAX (most, r->profile[h]);
      top *= most;
    }
  while (out->len < r->count)
    {
      SimServeRequest q;

      if (r->arrival == SIM_SERVE_ARRIVAL_POISSON)
        {
          t += sim_rng_exponential (arrivals, 1.0 / top);
          if (sim_rng_uniform (arrivals) * top >= rate_at (r, t))
            continue;
        }
      q.arrival = t;
      q.input = draw_length (&r->input, inputs);
      q.output = draw_length (&r->output, outputs);
      q.prefix = 0;
      q.prefix_tokens = 0;
      g_array_append_val (out, q);
    }
  if (!add_prefixes (r, seed, out, error))
    return NULL;
  return g_steal_pointer (&out);
}

/* "2023-11-16 18:15:46.6805900" (the Azure traces' form, UTC) or a number
 * of seconds, into seconds since the epoch. */
static gboolean
parse_timestamp (const char *text, double *out)
{
  int y, mo, d, h, mi, n = 0;
  double s;
  char *end;

  if (sscanf (text, "%d-%d-%d%*[ T]%d:%d:%lf%n", &y, &mo, &d, &h, &mi, &s, &n) == 6
      && text[n] == '\0')
    {
      g_autoptr(GDateTime) dt = g_date_time_new_utc (y, mo, d, h, mi, 0);
      if (dt == NULL || s < 0 || s >= 61)
        return FALSE;
      *out = (double) g_date_time_to_unix (dt) + s;
      return TRUE;
    }
  errno = 0;
  *out = g_ascii_strtod (text, &end);
  return errno == 0 && end != text && *end == '\0' && isfinite (*out) && *out >= 0;
}

GArray *
sim__serve_trace_read (const char *path, guint limit, GError **error)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (SimServeRequest));
  int col_t = -1, col_in = -1, col_out = -1;
  guint first = 0;
  double t0 = 0, last = -INFINITY;

  if (!g_file_get_contents (path, &text, NULL, error))
    return NULL;
  /* A UTF-8 byte-order mark before the header is not part of it. */
  lines = g_strsplit (g_str_has_prefix (text, "\xEF\xBB\xBF") ? text + 3 : text, "\n", -1);
  for (; lines[first] != NULL && g_strstrip (lines[first])[0] == '\0'; first++)
    ;
  if (lines[first] != NULL)
    {
      g_auto(GStrv) cols = g_strsplit (lines[first], ",", -1);
      for (int c = 0; cols[c] != NULL; c++)
        {
          const char *name = g_strstrip (cols[c]);
          if (g_ascii_strcasecmp (name, "TIMESTAMP") == 0)
            col_t = c;
          else if (g_ascii_strcasecmp (name, "ContextTokens") == 0)
            col_in = c;
          else if (g_ascii_strcasecmp (name, "GeneratedTokens") == 0)
            col_out = c;
        }
    }
  if (col_t < 0 || col_in < 0 || col_out < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                   "%s:%u: expected a header naming TIMESTAMP, ContextTokens and "
                   "GeneratedTokens (the Azure LLM inference trace format)", path, first + 1);
      return NULL;
    }
  for (guint i = first + 1; lines[i] != NULL && (limit == 0 || out->len < limit); i++)
    {
      g_auto(GStrv) cols = NULL;
      SimServeRequest q;
      double t;
      gint64 in, gen;
      guint n;
      const char *bad = NULL;

      if (g_strstrip (lines[i])[0] == '\0')
        continue;
      cols = g_strsplit (lines[i], ",", -1);
      n = g_strv_length (cols);
      if ((guint) MAX (col_t, MAX (col_in, col_out)) >= n)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                       "%s:%u: %u columns: expected at least %d", path, i + 1, n,
                       MAX (col_t, MAX (col_in, col_out)) + 1);
          return NULL;
        }
      if (!parse_timestamp (g_strstrip (cols[col_t]), &t))
        bad = "TIMESTAMP: expected a time such as 2023-11-16 18:15:46.68 or seconds";
      else if (!sim_parse_integer (g_strstrip (cols[col_in]), 0, G_MAXINT32, &in, NULL))
        bad = "ContextTokens: expected a count of 0 or more";
      else if (!sim_parse_integer (g_strstrip (cols[col_out]), 0, G_MAXINT32, &gen, NULL))
        bad = "GeneratedTokens: expected a count of 0 or more";
      else if (t < last)
        bad = "TIMESTAMP: earlier than the line before: expected times in order";
      if (bad != NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s:%u: %s", path, i + 1, bad);
          return NULL;
        }
      if (out->len == 0)
        t0 = t;
      last = t;
      q.arrival = t - t0;
      /* An empty prompt still feeds one token; a request generates one at
       * least (its first, which ends the prefill). */
      q.input = (guint) MAX (1, in);
      q.output = (guint) MAX (1, gen);
      q.prefix = 0;
      q.prefix_tokens = 0;
      g_array_append_val (out, q);
    }
  if (out->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s: no requests: expected lines after "
                   "the header", path);
      return NULL;
    }
  return g_steal_pointer (&out);
}
