/* sim-units.h: simulated time and the parsing of quantities with units.
 *
 * Time is a signed 64-bit count of nanoseconds (#SimTime): exact, totally
 * ordered, and enough for 292 years.  It is converted to seconds only at the
 * edges (reports, rates).  Quantities that users write (durations, sizes,
 * rates, bandwidths, power) always carry a unit and are parsed strictly: a
 * bare number, an unknown unit, trailing text or a negative value is an
 * error.  Parsers report SIM_ERROR_PARSE with a message that quotes the text
 * and says what was expected; callers prefix the file, line and key.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * SimTime:
 *
 * Simulated time, or a duration, in integer nanoseconds.
 */
typedef gint64 SimTime;

#define SIM_NANOSECOND  ((SimTime) 1)
#define SIM_MICROSECOND ((SimTime) 1000)
#define SIM_MILLISECOND ((SimTime) 1000000)
#define SIM_SECOND      ((SimTime) 1000000000)
#define SIM_MINUTE      (60 * SIM_SECOND)
#define SIM_HOUR        (60 * SIM_MINUTE)
#define SIM_DAY         (24 * SIM_HOUR)
/**
 * SIM_TIME_NEVER:
 *
 * A time later than any event; also "no limit".
 */
#define SIM_TIME_NEVER  G_MAXINT64

/**
 * sim_time_to_seconds:
 * @t: a time in nanoseconds
 *
 * Returns: @t in seconds.
 */
static inline double
sim_time_to_seconds (SimTime t)
{
  return (double) t / 1e9;
}

/**
 * sim_time_from_seconds:
 * @seconds: a non-negative, finite number of seconds
 *
 * Converts seconds to the nearest nanosecond, saturating at %SIM_TIME_NEVER.
 *
 * Returns: the time in nanoseconds.
 */
SimTime sim_time_from_seconds (double seconds);

/**
 * sim_parse_duration:
 * @text: text such as "90s", "1.5h", "7d", "250ms", "10us", "5ns", "2min" or "2m"
 * @out: (out): the duration
 * @error: return location for a #GError
 *
 * Parses a non-negative duration.  Units: ns, us, ms, s, m or min, h, d, w.
 *
 * Returns: %TRUE on success; %FALSE with SIM_ERROR_PARSE set otherwise.
 */
gboolean sim_parse_duration (const char *text, SimTime *out, GError **error);

/**
 * sim_parse_size:
 * @text: text such as "80GB", "8B", "1GiB", "64KiB" or "8G"
 * @out: (out): the size in bytes
 * @error: return location for a #GError
 *
 * Parses a size in bytes.  Units B, KB, MB, GB, TB, PB are decimal;
 * KiB, MiB, GiB, TiB and the bare K, M, G, T (as nccl-tests writes them)
 * are binary.  A size that does not come to a whole number of bytes, or
 * overflows 64 bits, is rejected.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_parse_size (const char *text, guint64 *out, GError **error);

/**
 * sim_parse_rate:
 * @text: text such as "30/h", "0.5/s", "1200/d", "2/min"
 * @out: (out): the rate in events per second
 * @error: return location for a #GError
 *
 * Parses a non-negative rate of events per unit of time.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_parse_rate (const char *text, double *out, GError **error);

/**
 * sim_parse_bandwidth:
 * @text: text such as "400Gb/s" (bits), "50GB/s" (bytes), "3.35TB/s", "25Gbps"
 * @out: (out): the bandwidth in bytes per second
 * @error: return location for a #GError
 *
 * Parses a bandwidth.  A lower-case b means bits, an upper-case B bytes;
 * prefixes are decimal (k, M, G, T).
 *
 * Returns: %TRUE on success.
 */
gboolean sim_parse_bandwidth (const char *text, double *out, GError **error);

/**
 * sim_parse_power:
 * @text: text such as "700W", "10.2kW", "1.5MW"
 * @out: (out): the power in watts
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success.
 */
gboolean sim_parse_power (const char *text, double *out, GError **error);

/**
 * sim_parse_length:
 * @text: text such as "3m", "0.5km", "150cm"
 * @out: (out): the length in metres
 * @error: return location for a #GError
 *
 * Parses a non-negative length.  Units: mm, cm, m, km.
 *
 * Returns: %TRUE on success; %FALSE with SIM_ERROR_PARSE set otherwise.
 */
gboolean sim_parse_length (const char *text, double *out, GError **error);

/**
 * sim_parse_number:
 * @text: a plain decimal number
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: (out): the value
 * @error: return location for a #GError
 *
 * Parses a finite number in [@min, @max], with nothing after it.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_parse_number (const char *text, double min, double max, double *out,
                           GError **error);

/**
 * sim_parse_integer:
 * @text: a plain decimal integer
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: (out): the value
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success.
 */
gboolean sim_parse_integer (const char *text, gint64 min, gint64 max, gint64 *out,
                            GError **error);

/**
 * sim_format_duration:
 * @t: a duration
 *
 * Formats a duration for people, e.g. "3d 04:05:06" or "12.5 s".
 *
 * Returns: (transfer full): a newly allocated string.
 */
char *sim_format_duration (SimTime t);

G_END_DECLS
