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
#include "workload/sim-trace-util.h"

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

/* The trace is read as the job logs are (workload/sim-trace-util.h), a line
 * at a time: a device such as /dev/zero or a directory is refused before a
 * byte is read, a NUL byte or a line beyond SIM_LINE_MAX is refused at its
 * line rather than ending the text there, a gzip-compressed trace is read
 * as it is, and a row with more or fewer fields than the header is refused
 * (a cut or joined line would otherwise give another request). */
enum { A_TIMESTAMP, A_CONTEXT, A_GENERATED, A_N };

GArray *
sim__serve_trace_read (const char *path, guint limit, GError **error)
{
  static const char *const names[] = { "TIMESTAMP", "ContextTokens", "GeneratedTokens", NULL };
  static const guint required[] = { A_TIMESTAMP, A_CONTEXT, A_GENERATED };
  g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (SimServeRequest));
  g_auto(SimTraceTable) t = { 0 };
  GError *local = NULL;
  double t0 = 0, last = -INFINITY;

  if (!sim__trace_table_open (&t, path, ',', TRUE, names, A_N, error))
    return NULL;
  if (!sim__trace_table_require (&t, required, G_N_ELEMENTS (required), &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s (expected a header naming TIMESTAMP, "
                   "ContextTokens and GeneratedTokens: the Azure LLM inference trace format)",
                   local->message);
      g_error_free (local);
      return NULL;
    }
  while (limit == 0 || out->len < limit)
    {
      SimServeRequest q;
      double time;
      gint64 in, gen;

      if (!sim__trace_table_next (&t, &local))
        {
          if (local == NULL)
            break;
          g_propagate_error (error, local);
          return NULL;
        }
      if (!parse_timestamp (sim__trace_table_get (&t, A_TIMESTAMP), &time))
        {
          sim__trace_table_field_error (&t, A_TIMESTAMP, error, "expected a time such as "
                                        "2023-11-16 18:15:46.68 or seconds");
          return NULL;
        }
      if (!sim_parse_integer (sim__trace_table_get (&t, A_CONTEXT), 0, G_MAXINT32, &in, NULL))
        {
          sim__trace_table_field_error (&t, A_CONTEXT, error, "expected a count of 0 or more");
          return NULL;
        }
      if (!sim_parse_integer (sim__trace_table_get (&t, A_GENERATED), 0, G_MAXINT32, &gen, NULL))
        {
          sim__trace_table_field_error (&t, A_GENERATED, error, "expected a count of 0 or more");
          return NULL;
        }
      if (time < last)
        {
          sim__trace_table_field_error (&t, A_TIMESTAMP, error, "earlier than the line before: "
                                        "expected times in order");
          return NULL;
        }
      if (out->len == 0)
        t0 = time;
      last = time;
      q.arrival = time - t0;
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
                   "the header", t.display);
      return NULL;
    }
  return g_steal_pointer (&out);
}
