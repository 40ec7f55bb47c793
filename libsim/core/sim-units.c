/* sim-units.c: strict parsing of quantities with units. */
#include "config.h"

#include "sim-units.h"
#include "core/sim-error.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *suffix;
  double      factor;
} Unit;

SimTime
sim_time_from_seconds (double seconds)
{
  g_return_val_if_fail (!isnan (seconds), 0);

  if (seconds <= 0)
    return 0;
  if (seconds >= 9.2e9)
    return SIM_TIME_NEVER;
  return (SimTime) llround (seconds * 1e9);
}

/* strtod() also reads hexadecimal ("0x1p3"); the parsers here take decimal
 * numbers only, so that "0x10B" is not read as 267 without a unit. */
static gboolean
is_hex_prefix (const char *p)
{
  if (*p == '+' || *p == '-')
    p++;
  return p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
}

/* Splits "12.5GB" into the number 12.5 and the unit "GB".  Leading and
 * trailing white space is allowed around both; anything else is not. */
static gboolean
split_quantity (const char *text, const char *what, const char *example,
                double *number, const char **unit, GError **error)
{
  const char *p;
  char *end = NULL;
  double v;

  if (text == NULL || *text == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "empty value: expected %s such as \"%s\"", what, example);
      return FALSE;
    }
  p = text;
  while (g_ascii_isspace (*p))
    p++;
  if ((!g_ascii_isdigit (*p) && *p != '.') || is_hex_prefix (p))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not %s: expected a non-negative number with a unit, such as \"%s\"",
                   text, what, example);
      return FALSE;
    }
  errno = 0;
  v = g_ascii_strtod (p, &end);
  if (end == p || errno == ERANGE || !isfinite (v))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not %s: expected a number with a unit, such as \"%s\"",
                   text, what, example);
      return FALSE;
    }
  while (g_ascii_isspace (*end))
    end++;
  *number = v;
  *unit = end;
  return TRUE;
}

static gboolean
apply_unit (const char *text, const char *what, const char *example, const Unit *units,
            gboolean case_sensitive, double *out, GError **error)
{
  double v;
  const char *unit;
  gsize n;

  if (!split_quantity (text, what, example, &v, &unit, error))
    return FALSE;
  n = strlen (unit);
  while (n > 0 && g_ascii_isspace (unit[n - 1]))
    n--;
  for (const Unit *u = units; u->suffix != NULL; u++)
    {
      gboolean same = strlen (u->suffix) == n &&
                      (case_sensitive ? strncmp (unit, u->suffix, n) == 0
                                      : g_ascii_strncasecmp (unit, u->suffix, n) == 0);
      if (same)
        {
          *out = v * u->factor;
          return TRUE;
        }
    }
  {
    g_autoptr(GString) list = g_string_new (NULL);
    for (const Unit *u = units; u->suffix != NULL; u++)
      g_string_append_printf (list, "%s%s", list->len ? ", " : "", u->suffix);
    if (n == 0)
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" has no unit: expected %s such as \"%s\" (units: %s)",
                   text, what, example, list->str);
    else
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" has an unknown unit \"%.*s\": expected %s such as \"%s\" (units: %s)",
                   text, (int) n, unit, what, example, list->str);
  }
  return FALSE;
}

gboolean
sim_parse_duration (const char *text, SimTime *out, GError **error)
{
  static const Unit units[] = {
    { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 }, { "m", 60 },
    { "min", 60 }, { "h", 3600 }, { "d", 86400 }, { "w", 604800 }, { NULL, 0 }
  };
  double seconds;

  g_return_val_if_fail (out != NULL, FALSE);
  if (!apply_unit (text, "a duration", "90s", units, TRUE, &seconds, error))
    return FALSE;
  if (seconds >= 9.2e9)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "duration \"%s\" is too long: at most 290 years", text);
      return FALSE;
    }
  *out = sim_time_from_seconds (seconds);
  return TRUE;
}

gboolean
sim_parse_size (const char *text, guint64 *out, GError **error)
{
  static const Unit units[] = {
    { "B", 1 },
    { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 }, { "PB", 1e15 },
    { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
    { "TiB", 1099511627776.0 },
    { "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { "T", 1099511627776.0 },
    { NULL, 0 }
  };
  double bytes;

  g_return_val_if_fail (out != NULL, FALSE);
  if (!apply_unit (text, "a size", "80GB", units, TRUE, &bytes, error))
    return FALSE;
  if (bytes >= 1.8e19)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "size \"%s\" is too large", text);
      return FALSE;
    }
  if (fabs (bytes - nearbyint (bytes)) > 1e-6 * MAX (1.0, bytes))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "size \"%s\" is not a whole number of bytes", text);
      return FALSE;
    }
  *out = (guint64) nearbyint (bytes);
  return TRUE;
}

gboolean
sim_parse_rate (const char *text, double *out, GError **error)
{
  static const Unit units[] = {
    { "/s", 1 }, { "/min", 1.0 / 60 }, { "/m", 1.0 / 60 }, { "/h", 1.0 / 3600 },
    { "/d", 1.0 / 86400 }, { "/w", 1.0 / 604800 }, { NULL, 0 }
  };

  g_return_val_if_fail (out != NULL, FALSE);
  return apply_unit (text, "a rate", "30/h", units, TRUE, out, error);
}

gboolean
sim_parse_bandwidth (const char *text, double *out, GError **error)
{
  static const Unit units[] = {
    { "B/s", 1 }, { "kB/s", 1e3 }, { "KB/s", 1e3 }, { "MB/s", 1e6 }, { "GB/s", 1e9 },
    { "TB/s", 1e12 },
    { "b/s", 0.125 }, { "kb/s", 125 }, { "Kb/s", 125 }, { "Mb/s", 1.25e5 },
    { "Gb/s", 1.25e8 }, { "Tb/s", 1.25e11 },
    { "bps", 0.125 }, { "kbps", 125 }, { "Mbps", 1.25e5 }, { "Gbps", 1.25e8 },
    { "Tbps", 1.25e11 },
    { NULL, 0 }
  };

  g_return_val_if_fail (out != NULL, FALSE);
  return apply_unit (text, "a bandwidth", "400Gb/s", units, TRUE, out, error);
}

gboolean
sim_parse_power (const char *text, double *out, GError **error)
{
  static const Unit units[] = {
    { "W", 1 }, { "kW", 1e3 }, { "MW", 1e6 }, { NULL, 0 }
  };

  g_return_val_if_fail (out != NULL, FALSE);
  return apply_unit (text, "a power", "700W", units, TRUE, out, error);
}

gboolean
sim_parse_length (const char *text, double *out, GError **error)
{
  static const Unit units[] = {
    { "mm", 1e-3 }, { "cm", 1e-2 }, { "m", 1 }, { "km", 1e3 }, { NULL, 0 }
  };

  g_return_val_if_fail (out != NULL, FALSE);
  return apply_unit (text, "a length", "3m", units, TRUE, out, error);
}

gboolean
sim_parse_number (const char *text, double min, double max, double *out, GError **error)
{
  char *end = NULL;
  double v;

  g_return_val_if_fail (out != NULL, FALSE);
  if (text != NULL)
    while (g_ascii_isspace (*text))
      text++;
  if (text == NULL || *text == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "empty value: expected a number");
      return FALSE;
    }
  errno = 0;
  v = g_ascii_strtod (text, &end);
  while (end != NULL && g_ascii_isspace (*end))
    end++;
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite (v) || is_hex_prefix (text))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "\"%s\" is not a number", text);
      return FALSE;
    }
  if (v < min || v > max)
    {
      /* An open end is not a figure to show: "0 or more", not "from 0 to
       * 1.79769e+308". */
      if (max >= G_MAXDOUBLE && min > -G_MAXDOUBLE)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "%s is out of range: expected a number of %g or more", text, min);
      else if (min <= -G_MAXDOUBLE && max < G_MAXDOUBLE)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "%s is out of range: expected a number of %g or less", text, max);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "%s is out of range: expected a number from %g to %g", text, min, max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
sim_parse_integer (const char *text, gint64 min, gint64 max, gint64 *out, GError **error)
{
  gint64 v;
  g_autoptr(GError) local = NULL;
  g_autofree char *trimmed = NULL;

  g_return_val_if_fail (out != NULL, FALSE);
  if (text == NULL || *text == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "empty value: expected an integer");
      return FALSE;
    }
  trimmed = g_strstrip (g_strdup (text));
  if (!g_ascii_string_to_signed (trimmed, 10, G_MININT64, G_MAXINT64, &v, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "\"%s\" is not an integer", text);
      return FALSE;
    }
  if (v < min || v > max)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s is out of range: expected an integer from %" G_GINT64_FORMAT
                   " to %" G_GINT64_FORMAT, trimmed, min, max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

char *
sim_format_duration (SimTime t)
{
  double s = sim_time_to_seconds (t);
  gint64 whole;

  if (t == SIM_TIME_NEVER)
    return g_strdup ("never");
  if (t < 0)
    {
      /* -G_MININT64 does not exist: show it as the negative of "never". */
      g_autofree char *pos = sim_format_duration (t == G_MININT64 ? SIM_TIME_NEVER : -t);
      return g_strdup_printf ("-%s", pos);
    }
  /* The unit is chosen on the value as it will be rounded to three
   * significant digits, so that 999.7 us reads "1 ms", not "1e+03 us". */
  if (t < 999500)
    return g_strdup_printf ("%.3g us", s * 1e6);
  if (t < 999500000)
    return g_strdup_printf ("%.3g ms", s * 1e3);
  if (t < 59950000000)
    return g_strdup_printf ("%.3g s", s);
  whole = (gint64) (s + 0.5);
  if (whole < 86400)
    return g_strdup_printf ("%02" G_GINT64_FORMAT ":%02" G_GINT64_FORMAT ":%02" G_GINT64_FORMAT,
                            whole / 3600, (whole / 60) % 60, whole % 60);
  return g_strdup_printf ("%" G_GINT64_FORMAT "d %02" G_GINT64_FORMAT ":%02" G_GINT64_FORMAT
                          ":%02" G_GINT64_FORMAT,
                          whole / 86400, (whole / 3600) % 24, (whole / 60) % 60, whole % 60);
}
