/* sim-trace-formats.c: readers of PAI 2020, Gavel and gpusim's own job
 * CSV, format detection, trace statistics and conversion to the CSV.
 *
 * Every reader goes through the shared table reader (split in place,
 * fields found by name or by fixed position, 1-based columns in messages)
 * and the reorder window of sim-trace-util.c.  The contracts are in
 * sim-trace-formats.h.
 */
#include "config.h"

#include "workload/sim-trace-formats.h"
#include "workload/sim-trace-util.h"
#include "workload/sim-workload-private.h"
#include "workload/sim-openb.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Numbers.                                                                  */

/* A non-negative decimal number of seconds, "123", "123.456789", "1.5e9",
 * into whole seconds and nanoseconds (digits past the ninth decimal are
 * rounded off).  FALSE if @text is not such a number or is 292 years or
 * more (what 64-bit nanoseconds hold). */
static gboolean
parse_seconds (const char *text, gint64 *seconds, guint32 *nanos)
{
  const char *p = text;
  guint64 whole = 0;
  guint32 frac = 0;
  int digits = 0, scale = 100000000;

  if (!g_ascii_isdigit (*p) && !(*p == '.' && g_ascii_isdigit (p[1])))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++)
    {
      if (++digits > 11)
        return FALSE;
      whole = whole * 10 + (guint64) (*p - '0');
    }
  if (*p == '.')
    {
      gboolean round_up = FALSE;

      for (p++; g_ascii_isdigit (*p); p++)
        {
          if (scale > 0)
            frac += (guint32) (*p - '0') * (guint32) scale;
          else if (scale == 0)
            round_up = *p >= '5';
          scale = scale > 0 ? scale / 10 : -1;
          if (scale == 0 && p[1] != '\0' && g_ascii_isdigit (p[1]))
            {
              round_up = p[1] >= '5';
              scale = -1;
              p++;
            }
        }
      if (round_up && ++frac == 1000000000)
        {
          frac = 0;
          whole++;
        }
    }
  if (*p == 'e' || *p == 'E')
    {
      /* Exponent form: through strtod, to the nearest nanosecond. */
      char *end;
      double v = g_ascii_strtod (text, &end);
      double w;

      if (*end != '\0' || !isfinite (v) || v < 0 || v >= 9.2e9)
        return FALSE;
      w = floor (v);
      whole = (guint64) w;
      frac = (guint32) MIN (999999999.0, round ((v - w) * 1e9));
      p = end;
    }
  if (*p != '\0' || whole >= (guint64) (G_MAXINT64 / SIM_SECOND))
    return FALSE;
  *seconds = (gint64) whole;
  *nanos = frac;
  return TRUE;
}

/* A non-negative decimal number (or empty, when @empty_ok: 0). */
static gboolean
parse_number (const char *text, gboolean empty_ok, double *out)
{
  char *end;
  double v;

  if (*text == '\0')
    {
      *out = 0;
      return empty_ok;
    }
  v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !isfinite (v) || v < 0 || strpbrk (text, "xXnN") != NULL)
    return FALSE;
  *out = v;
  return TRUE;
}

/* An unsigned decimal integer up to @max, digit by digit. */
static inline gboolean
parse_uint (const char *text, guint64 max, guint64 *out)
{
  guint64 v = 0;
  const char *p = text;

  if (!g_ascii_isdigit (*p))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++)
    {
      if (v > (max - (guint64) (*p - '0')) / 10)
        return FALSE;
      v = v * 10 + (guint64) (*p - '0');
    }
  if (*p != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

static inline gboolean
parse_int (const char *text, gint64 min, gint64 max, gint64 *out)
{
  guint64 v;

  if (*text == '-')
    {
      if (!parse_uint (text + 1, (guint64) G_MAXINT64, &v) || -(gint64) v < min)
        return FALSE;
      *out = -(gint64) v;
      return TRUE;
    }
  if (!parse_uint (text, (guint64) max, &v))
    return FALSE;
  *out = (gint64) v;
  return (gint64) v >= min;
}

static SimTime
to_time (gint64 seconds, guint32 nanos)
{
  return seconds * SIM_SECOND + (SimTime) nanos;
}

/* "field: "x" is not ..." at the field's column. */
static gboolean G_GNUC_PRINTF (4, 5)
bad_field (const SimTraceTable *t, guint index, GError **error, const char *format, ...)
{
  g_autofree char *q = sim__trace_quote (sim__trace_table_get (t, index));
  g_autofree char *what = NULL;
  va_list ap;

  va_start (ap, format);
  what = g_strdup_vprintf (format, ap);
  va_end (ap);
  return sim__trace_table_field_error (t, index, error, "%s %s", q, what);
}

/* ------------------------------------------------------------------------- */
/* gpusim's job CSV.                                                         */

enum {
  N_ID, N_SUBMIT, N_DURATION, N_GPUS, N_GPU_MILLI, N_GPU_MODEL, N_TENANT, N_PRIORITY, N_CLASS,
  N_REQUESTED, N_CPU_MILLI, N_MEMORY, N_MIG, N_USER, N_STATUS, N_NATIVE_COLUMNS
};
static const char *const native_names[N_NATIVE_COLUMNS] = {
  "id", "submit", "duration", "gpus", "gpu_milli", "gpu_model", "tenant", "priority", "class",
  "requested", "cpu_milli", "memory", "mig", "user", "status",
};

typedef struct {
  SimTraceReader parent;
  GHashTable    *classes;  /* name -> number + 1 */
  char         **gpu_models;   /* (nullable) the names gpu_model may give */
  char         **mig_profiles; /* (nullable) the names mig may give */
  /* The job numbers read so far: a bitmap while they stay below 64 bits
   * a row (trace ids count from 0 or 1), beyond it a set. */
  guint64       *id_bits;
  gsize          id_words;
  GHashTable    *id_set;   /* (nullable) of guint64 */
} SimNative;

/* Records job number @id; FALSE if a row before had it. */
static gboolean
native_new_id (SimNative *n, guint64 id)
{
  guint64 bound = 64 * ((guint64) n->parent.rows + 1024);

  if (id < bound)
    {
      gsize w = (gsize) (id / 64);
      guint64 bit = G_GUINT64_CONSTANT (1) << (id % 64);

      if (w >= n->id_words)
        {
          gsize words = MAX (w + 1, 2 * n->id_words);
          n->id_bits = g_renew (guint64, n->id_bits, words);
          memset (n->id_bits + n->id_words, 0, (words - n->id_words) * sizeof (guint64));
          n->id_words = words;
        }
      if (n->id_bits[w] & bit)
        return FALSE;
      /* An id below the bound may also have gone into the set when the
       * bound was lower. */
      if (n->id_set != NULL && g_hash_table_contains (n->id_set, &id))
        return FALSE;
      n->id_bits[w] |= bit;
      return TRUE;
    }
  if (n->id_set == NULL)
    n->id_set = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  if (g_hash_table_contains (n->id_set, &id))
    return FALSE;
  g_hash_table_add (n->id_set, g_memdup2 (&id, sizeof id));
  return TRUE;
}

void
sim__workload_native_set_names (SimWorkload *workload, const char * const *gpu_models,
                                const char * const *mig_profiles)
{
  SimNative *n = (SimNative *) workload;

  g_strfreev (n->gpu_models);
  g_strfreev (n->mig_profiles);
  n->gpu_models = g_strdupv ((char **) gpu_models);
  n->mig_profiles = g_strdupv ((char **) mig_profiles);
}

/* Whether @name is one of @names (NULL: any name is). */
static gboolean
known_name (char **names, const char *name)
{
  return names == NULL || g_strv_contains ((const char * const *) names, name);
}

static gboolean
native_row (SimTraceReader *r, SimJobSpec *out, gint64 *submit_s, GError **error)
{
  SimNative *n = (SimNative *) r;
  SimTraceTable *t = &r->table;

  for (;;)
    {
      const char *text;
      gint64 s, v;
      guint32 ns;
      guint64 u;

      if (!sim__trace_table_next (t, error))
        return FALSE;
      r->rows++;
      memset (out, 0, sizeof *out);

      text = sim__trace_table_get (t, N_ID);
      if (text == NULL)
        out->id = r->rows;
      else if (!parse_uint (text, G_MAXUINT64, &out->id))
        return bad_field (t, N_ID, error, "is not a job number (a non-negative integer)");
      if (!native_new_id (n, out->id))
        return sim__trace_table_field_error (t, N_ID, error, "job %" G_GUINT64_FORMAT " again: "
                                             "expected each row's own job number", out->id);

      if (!parse_seconds (sim__trace_table_get (t, N_SUBMIT), submit_s, &r->submit_ns))
        return bad_field (t, N_SUBMIT, error, "is not a time in seconds (a non-negative decimal "
                          "number below 292 years)");
      if (!parse_seconds (sim__trace_table_get (t, N_DURATION), &s, &ns))
        return bad_field (t, N_DURATION, error, "is not a run time in seconds (a non-negative "
                          "decimal number below 292 years)");
      out->duration = to_time (s, ns);
      if (!parse_uint (sim__trace_table_get (t, N_GPUS), G_MAXUINT32, &u))
        return bad_field (t, N_GPUS, error, "is not a number of GPUs (a non-negative integer)");
      out->gpus = (guint32) u;

      out->gpu_milli = 1000;
      text = sim__trace_table_get (t, N_GPU_MILLI);
      if (text != NULL && *text != '\0')
        {
          if (!parse_uint (text, 1000, &u) || u == 0)
            return bad_field (t, N_GPU_MILLI, error, "is not thousandths of a GPU from 1 to "
                              "1000");
          out->gpu_milli = (guint32) u;
          if (u < 1000 && out->gpus > 1)
            return sim__trace_table_field_error (t, N_GPU_MILLI, error, "a share of %u "
                                                 "thousandths is for one GPU, but the job asks "
                                                 "for %u", out->gpu_milli, out->gpus);
        }
      /* The names a row gives are written out again (jobs.csv, trace
       * convert): UTF-8 only. */
      if (!sim__trace_table_require_utf8 (t, N_GPU_MODEL, error) ||
          !sim__trace_table_require_utf8 (t, N_CLASS, error) ||
          !sim__trace_table_require_utf8 (t, N_MIG, error))
        return FALSE;
      text = sim__trace_table_get (t, N_GPU_MODEL);
      out->gpu_models = text != NULL && *text != '\0' ? g_intern_string (text) : NULL;
      if (out->gpu_models != NULL && n->gpu_models != NULL)
        {
          g_auto(GStrv) names = g_strsplit (out->gpu_models, "|", -1);

          for (guint i = 0; names[i] != NULL; i++)
            if (!known_name (n->gpu_models, names[i]))
              return sim__trace_table_field_error (t, N_GPU_MODEL, error, "no GPU model "
                                                   "\"%s\" in the catalogue%s (see `gpusim "
                                                   "models`)", names[i],
                                                   sim__did_you_mean (sim__closest (
                                                     names[i],
                                                     (const char * const *) n->gpu_models,
                                                     g_strv_length (n->gpu_models))));
        }
      text = sim__trace_table_get (t, N_TENANT);
      if (text != NULL && *text != '\0')
        {
          if (!parse_uint (text, G_MAXUINT32, &u))
            return bad_field (t, N_TENANT, error, "is not a tenant number (a non-negative "
                              "integer)");
          out->tenant = (guint32) u;
        }
      text = sim__trace_table_get (t, N_PRIORITY);
      if (text != NULL && *text != '\0')
        {
          if (!parse_int (text, G_MININT32, G_MAXINT32, &v))
            return bad_field (t, N_PRIORITY, error, "is not an integer priority");
          out->priority = (gint32) v;
        }
      text = sim__trace_table_get (t, N_CLASS);
      out->job_class = sim__trace_intern (n->classes, text != NULL && *text != '\0' ? text
                                                                                 : "default",
                                          r->parent.class_names);
      text = sim__trace_table_get (t, N_REQUESTED);
      if (text != NULL && *text != '\0')
        {
          if (!parse_seconds (text, &s, &ns))
            return bad_field (t, N_REQUESTED, error, "is not a time in seconds (a non-negative "
                              "decimal number below 292 years)");
          out->requested = to_time (s, ns);
        }
      text = sim__trace_table_get (t, N_CPU_MILLI);
      if (text != NULL && *text != '\0')
        {
          if (!parse_uint (text, G_MAXUINT32, &u))
            return bad_field (t, N_CPU_MILLI, error, "is not thousandths of a core (a "
                              "non-negative integer)");
          out->cpu_milli = (guint32) u;
        }
      text = sim__trace_table_get (t, N_MEMORY);
      if (text != NULL && *text != '\0' && !parse_uint (text, G_MAXUINT64, &out->memory_bytes))
        return bad_field (t, N_MEMORY, error, "is not a number of bytes (a non-negative "
                          "integer)");
      text = sim__trace_table_get (t, N_MIG);
      if (text != NULL && *text != '\0')
        {
          if (out->gpus != 1 || out->gpu_milli != 1000)
            return sim__trace_table_field_error (t, N_MIG, error, "a MIG job runs in one "
                                                 "instance: expected gpus 1 and gpu_milli 1000");
          if (!known_name (n->mig_profiles, text))
            return sim__trace_table_field_error (t, N_MIG, error, "no GPU of the catalogue "
                                                 "has MIG profile \"%s\"%s", text,
                                                 sim__did_you_mean (sim__closest (
                                                   text, (const char * const *) n->mig_profiles,
                                                   g_strv_length (n->mig_profiles))));
          out->mig_profile = g_intern_string (text);
        }
      out->user = -1;
      text = sim__trace_table_get (t, N_USER);
      if (text != NULL && *text != '\0')
        {
          if (!parse_int (text, -1, G_MAXINT32, &v))
            return bad_field (t, N_USER, error, "is not a user number (-1 for unknown)");
          out->user = (gint32) v;
        }
      out->status = -1;
      text = sim__trace_table_get (t, N_STATUS);
      if (text != NULL && *text != '\0')
        {
          if (!parse_int (text, -1, G_MAXINT32, &v))
            return bad_field (t, N_STATUS, error, "is not a status code (-1 for unknown)");
          out->status = (gint32) v;
        }
      if (out->gpus == 0 || out->duration == 0)
        {
          guint index = out->gpus == 0 ? N_GPUS : N_DURATION;

          if (!r->config.skip_invalid)
            return sim__trace_table_field_error (t, index, error, "%s: expected at least one "
                                                 "GPU and a positive duration (or skip_invalid)",
                                                 out->gpus == 0 ? "a job without GPUs"
                                                                : "a job without run time");
          r->skipped++;
          continue;
        }
      return TRUE;
    }
}

static void
native_finalize (SimTraceReader *r)
{
  g_clear_pointer (&((SimNative *) r)->classes, g_hash_table_unref);
  g_clear_pointer (&((SimNative *) r)->gpu_models, g_strfreev);
  g_clear_pointer (&((SimNative *) r)->mig_profiles, g_strfreev);
  g_clear_pointer (&((SimNative *) r)->id_bits, g_free);
  g_clear_pointer (&((SimNative *) r)->id_set, g_hash_table_unref);
}

SimWorkload *
sim_workload_new_native (const char *path, const SimTraceConfig *config, GError **error)
{
  static const guint required[] = { N_SUBMIT, N_DURATION, N_GPUS };
  g_autoptr(SimWorkload) workload = NULL;
  SimTraceReader *r;

  g_return_val_if_fail (path != NULL && config != NULL, NULL);
  r = sim__trace_reader_new (sizeof (SimNative), "native", path, config, ',', TRUE,
                             native_names, N_NATIVE_COLUMNS, error);
  if (r == NULL)
    return NULL;
  workload = (SimWorkload *) r;
  r->read_row = native_row;
  r->finalize = native_finalize;
  ((SimNative *) r)->classes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sim__trace_reader_set_fields (r, N_SUBMIT, "submit", "duration", "requested");
  if (!sim__trace_table_require (&r->table, required, G_N_ELEMENTS (required), error))
    return NULL;
  return g_steal_pointer (&workload);
}

/* ------------------------------------------------------------------------- */
/* Gavel.                                                                    */

enum { G_JOB_TYPE, G_TOTAL_STEPS, G_ARRIVAL, G_SCALE, G_PRIORITY, G_SLO, N_GAVEL_COLUMNS };
static const char *const gavel_names[N_GAVEL_COLUMNS] = {
  "job_type", "total_steps", "arrival_time", "scale_factor", "priority_weight", "SLO",
};

typedef struct {
  SimTraceReader parent;
  GHashTable    *types;   /* job type -> index + 1 into rates */
  double        *rates;   /* steps per second on one reference GPU */
  SimScaling    *scaling; /* their speed-up curves (linear by default) */
} SimGavel;

static gboolean
gavel_row (SimTraceReader *r, SimJobSpec *out, gint64 *submit_s, GError **error)
{
  SimGavel *g = (SimGavel *) r;
  SimTraceTable *t = &r->table;

  for (;;)
    {
      const char *text;
      guint64 steps, scale;
      double seconds, weight;
      gpointer type;

      if (!sim__trace_table_next (t, error))
        return FALSE;
      r->rows++;
      if (t->n_fields != 7 && t->n_fields != 10)
        return sim__trace_table_line_error (t, error, "expected 7 or 10 TAB-separated fields "
                                            "(a Gavel job trace), found %u", t->n_fields);
      memset (out, 0, sizeof *out);
      text = sim__trace_table_get (t, G_JOB_TYPE);
      if (*text == '\0')
        return sim__trace_table_field_error (t, G_JOB_TYPE, error,
                                             "the field is empty: expected a job type");
      if (!parse_uint (sim__trace_table_get (t, G_TOTAL_STEPS), G_MAXUINT64, &steps))
        return bad_field (t, G_TOTAL_STEPS, error, "is not a number of training steps (a "
                          "non-negative integer)");
      if (!parse_seconds (sim__trace_table_get (t, G_ARRIVAL), submit_s, &r->submit_ns))
        return bad_field (t, G_ARRIVAL, error, "is not an arrival time in seconds (a "
                          "non-negative decimal number below 292 years)");
      if (!parse_uint (sim__trace_table_get (t, G_SCALE), 1000000, &scale))
        return bad_field (t, G_SCALE, error, "is not a number of GPUs from 0 to 1000000");
      out->priority = 0;
      if (t->n_fields == 10)
        {
          double slo;
          char *end;

          text = sim__trace_table_get (t, G_PRIORITY);
          if (!parse_number (text, FALSE, &weight) || weight > G_MAXINT32)
            return bad_field (t, G_PRIORITY, error, "is not a priority weight (a non-negative "
                              "number)");
          out->priority = (gint32) lround (weight);
          text = sim__trace_table_get (t, G_SLO);
          slo = g_ascii_strtod (text, &end);
          if (end == text || *end != '\0' || !isfinite (slo))
            return bad_field (t, G_SLO, error, "is not a number (-1 for no SLO)");
        }
      if (scale == 0 || steps == 0)
        {
          r->skipped++;
          continue;
        }
      type = g_hash_table_lookup (g->types, sim__trace_table_get (t, G_JOB_TYPE));
      if (type == NULL)
        {
          g_autofree char *q = sim__trace_quote (sim__trace_table_get (t, G_JOB_TYPE));
          return sim__trace_table_field_error (t, G_JOB_TYPE, error, "no throughput for job "
                                               "type %s: give its steps per second on the "
                                               "reference GPU (a [class NAME] throughput in a "
                                               "scenario, or --throughput TYPE=RATE)", q);
        }
      seconds = (double) steps /
                (g->rates[GPOINTER_TO_UINT (type) - 1] *
                 sim_scaling_speedup (&g->scaling[GPOINTER_TO_UINT (type) - 1], (guint) scale));
      if (!(seconds < 9.2e9))
        return sim__trace_table_field_error (t, G_TOTAL_STEPS, error, "%" G_GUINT64_FORMAT
                                             " steps take %.6g s at its throughput: 292 years "
                                             "or more", steps, seconds);
      out->id = r->rows;
      out->duration = MAX (1, sim_time_from_seconds (seconds));
      out->gpus = (guint32) scale;
      out->gpu_milli = 1000;
      out->job_class = GPOINTER_TO_UINT (type) - 1;
      out->user = -1;
      out->status = -1;
      return TRUE;
    }
}

static void
gavel_finalize (SimTraceReader *r)
{
  SimGavel *g = (SimGavel *) r;

  g_clear_pointer (&g->types, g_hash_table_unref);
  g_clear_pointer (&g->rates, g_free);
  g_clear_pointer (&g->scaling, g_free);
}

SimWorkload *
sim_workload_new_gavel (const char *path, const SimTraceConfig *config,
                        const SimGavelRate *rates, guint n_rates, GError **error)
{
  g_autoptr(SimWorkload) workload = NULL;
  g_autofree char *display = NULL;
  SimTraceReader *r;
  SimGavel *g;
  guint n;

  g_return_val_if_fail (path != NULL && config != NULL, NULL);
  g_return_val_if_fail (rates != NULL || n_rates == 0, NULL);

  display = g_filename_display_name (path);
  for (guint i = 0; i < n_rates; i++)
    {
      if (rates[i].job_type == NULL || !(rates[i].steps_per_second > 0) ||
          !isfinite (rates[i].steps_per_second))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: the throughput of job type %s "
                       "must be a positive number of steps per second", display,
                       rates[i].job_type != NULL ? rates[i].job_type : "(null)");
          return NULL;
        }
      if (rates[i].scaling != NULL && !sim_scaling_validate (rates[i].scaling, error))
        {
          g_prefix_error (error, "%s: the speed-up of job type %s: ", display,
                          rates[i].job_type);
          return NULL;
        }
    }
  r = g_malloc0 (sizeof (SimGavel));
  workload = (SimWorkload *) r;
  r->config = *config;
  r->submit_index = -1;
  r->read_row = gavel_row;
  r->finalize = gavel_finalize;
  g = (SimGavel *) r;
  g->types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g->rates = g_new0 (double, MAX (n_rates, 1));
  g->scaling = g_new0 (SimScaling, MAX (n_rates, 1));  /* zeroed: SIM_SCALING_LINEAR */
  {
    g_autofree char *description = g_strconcat ("gavel:", display, NULL);
    /* The common part (vtable, window) comes from the shared constructor
     * for tables with a header; Gavel's have none, so it is set up here
     * the same way. */
    sim__trace_reader_init_headerless (r, description, display);
  }
  for (guint i = 0; i < n_rates; i++)
    if (g_hash_table_lookup (g->types, rates[i].job_type) == NULL)
      {
        g->rates[g_hash_table_size (g->types)] = rates[i].steps_per_second;
        if (rates[i].scaling != NULL)
          g->scaling[g_hash_table_size (g->types)] = *rates[i].scaling;
        sim__trace_intern (g->types, rates[i].job_type, r->parent.class_names);
      }
  if (!sim__trace_table_open_headerless (&r->table, path, '\t', FALSE, gavel_names,
                                         N_GAVEL_COLUMNS, error))
    return NULL;
  n = r->table.n_fields;
  if (n != 7 && n != 10)
    {
      sim__trace_table_line_error (&r->table, error, "expected 7 or 10 TAB-separated fields "
                                   "(a Gavel job trace), found %u", n);
      return NULL;
    }
  r->table.position[G_JOB_TYPE] = 0;
  if (n == 7)
    {
      r->table.position[G_TOTAL_STEPS] = 4;
      r->table.position[G_ARRIVAL] = 5;
      r->table.position[G_SCALE] = 6;
    }
  else
    {
      r->table.position[G_TOTAL_STEPS] = 5;
      r->table.position[G_SCALE] = 6;
      r->table.position[G_PRIORITY] = 7;
      r->table.position[G_SLO] = 8;
      r->table.position[G_ARRIVAL] = 9;
    }
  sim__trace_reader_set_fields (r, G_ARRIVAL, "arrival_time", "total_steps", NULL);
  return g_steal_pointer (&workload);
}

/* ------------------------------------------------------------------------- */
/* Alibaba PAI 2020.                                                         */

const char *
sim_pai_gpu_type_to_catalogue (const char *gpu_type)
{
  g_return_val_if_fail (gpu_type != NULL, NULL);
  if (g_ascii_strcasecmp (gpu_type, "P100") == 0)
    return g_intern_static_string ("P100");
  if (g_ascii_strcasecmp (gpu_type, "T4") == 0)
    return g_intern_static_string ("T4");
  if (g_ascii_strcasecmp (gpu_type, "V100") == 0)
    return g_intern_static_string ("V100-16GB");
  if (g_ascii_strcasecmp (gpu_type, "V100M32") == 0)
    return g_intern_static_string ("V100-32GB");
  return NULL;
}

enum { J_NAME, J_INST_ID, J_USER, J_STATUS, J_START, J_END, N_JOB_COLUMNS };
static const char *const pai_job_names[N_JOB_COLUMNS] = {
  "job_name", "inst_id", "user", "status", "start_time", "end_time",
};
enum {
  T_JOB, T_TASK, T_INST_NUM, T_STATUS, T_START, T_END, T_PLAN_CPU, T_PLAN_MEM, T_PLAN_GPU,
  T_GPU_TYPE, N_TASK_COLUMNS
};
static const char *const pai_task_names[N_TASK_COLUMNS] = {
  "job_name", "task_name", "inst_num", "status", "start_time", "end_time", "plan_cpu",
  "plan_mem", "plan_gpu", "gpu_type",
};

/* What a job's tasks ask for, together. */
typedef struct {
  double      gpu, cpu, mem;          /* summed over tasks: percent, percent, GB */
  double      top_gpu, top_cpu, top_mem; /* the task with the most GPU */
  double      start, end;             /* earliest start, latest end; 0 if none */
  const char *models;                 /* interned '|' list, NULL for any */
  gboolean    any_model;              /* a GPU task without a known type */
} PaiJob;

typedef struct {
  SimTraceReader parent;
  SimPaiTasks    tasks;
  GHashTable    *jobs;    /* job_name -> PaiJob */
  GHashTable    *users;   /* name -> number + 1 */
} SimPai;

/* Opens a PAI table: its header if the first line has a field job_name,
 * else the published order (@names) with exactly @n fields. */
static gboolean
pai_open_table (SimTraceTable *t, const char *path, const char *const *names, guint n,
                const char *what, GError **error)
{
  gboolean header = FALSE;

  if (!sim__trace_table_open_headerless (t, path, ',', TRUE, names, n, error))
    return FALSE;

  for (guint f = 0; f < t->n_fields && f < SIM_TRACE_MAX_FIELDS; f++)
    header = header || g_ascii_strcasecmp (t->field[f], "job_name") == 0;
  if (header)
    {
      for (guint f = 0; f < t->n_fields; f++)
        for (guint k = 0; k < n; k++)
          if (g_ascii_strcasecmp (t->field[f], names[k]) == 0)
            {
              if (t->position[k] >= 0)
                return sim__trace_table_line_error (t, error, "column %s appears twice in the "
                                                    "header", names[k]);
              t->position[k] = (gint) f;
            }
      t->pending = FALSE;
      return TRUE;
    }
  if (t->n_fields != n)
    {
      g_autofree char *list = g_strjoinv (",", (char **) names);
      return sim__trace_table_line_error (t, error, "expected %u comma-separated fields (the "
                                          "%s: %s), found %u", n, what, list, t->n_fields);
    }
  for (guint k = 0; k < n; k++)
    t->position[k] = (gint) k;
  return TRUE;
}

static const char *
union_models (const char *a, const char *b)
{
  g_autofree char *joined = NULL;
  g_auto(GStrv) parts = NULL;

  if (a == NULL)
    return b;
  parts = g_strsplit (a, "|", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (strcmp (parts[i], b) == 0)
      return a;
  joined = g_strconcat (a, "|", b, NULL);
  return g_intern_string (joined);
}

/* Reads the whole task table into s->jobs. */
static gboolean
pai_read_tasks (SimPai *s, const char *path, GError **error)
{
  g_auto(SimTraceTable) t = { 0 };
  static const guint required[] = { T_JOB, T_INST_NUM, T_START, T_END, T_PLAN_CPU, T_PLAN_MEM,
                                    T_PLAN_GPU, T_GPU_TYPE };
  GError *local = NULL;

  if (!pai_open_table (&t, path, pai_task_names, N_TASK_COLUMNS, "task table", error) ||
      !sim__trace_table_require (&t, required, G_N_ELEMENTS (required), error))
    return FALSE;
  while (sim__trace_table_next (&t, &local))
    {
      double inst, cpu, mem, gpu, start, end;
      const char *name = sim__trace_table_get (&t, T_JOB);
      const char *type;
      PaiJob *job;

      if (*name == '\0')
        return sim__trace_table_field_error (&t, T_JOB, error, "the field is empty: expected "
                                             "the job's name");
      if (!parse_number (sim__trace_table_get (&t, T_INST_NUM), FALSE, &inst) ||
          inst != floor (inst))
        return bad_field (&t, T_INST_NUM, error, "is not a number of instances (a "
                          "non-negative integer)");
      if (!parse_number (sim__trace_table_get (&t, T_PLAN_CPU), TRUE, &cpu))
        return bad_field (&t, T_PLAN_CPU, error, "is not a CPU request in percent of a core "
                          "(a non-negative number, or empty)");
      if (!parse_number (sim__trace_table_get (&t, T_PLAN_MEM), TRUE, &mem))
        return bad_field (&t, T_PLAN_MEM, error, "is not a memory request in GB (a "
                          "non-negative number, or empty)");
      if (!parse_number (sim__trace_table_get (&t, T_PLAN_GPU), TRUE, &gpu))
        return bad_field (&t, T_PLAN_GPU, error, "is not a GPU request in percent of a GPU "
                          "(a non-negative number, or empty)");
      if (!parse_number (sim__trace_table_get (&t, T_START), TRUE, &start) || start >= 9.2e9)
        return bad_field (&t, T_START, error, "is not a time in seconds (a non-negative "
                          "number below 292 years, or empty)");
      if (!parse_number (sim__trace_table_get (&t, T_END), TRUE, &end) || end >= 9.2e9)
        return bad_field (&t, T_END, error, "is not a time in seconds (a non-negative "
                          "number below 292 years, or empty)");
      if (end > 0 && start > 0 && end < start)
        return sim__trace_table_field_error (&t, T_END, error, "the task ends (%.0f s) before "
                                             "it starts (%.0f s)", end, start);
      if (inst * gpu > 1e9)
        return sim__trace_table_field_error (&t, T_PLAN_GPU, error, "%g instances of %g%% of "
                                             "a GPU is more GPUs than any cluster has", inst,
                                             gpu);
      /* A job's CPUs and memory are held in 32-bit thousandths of a core
       * and 64-bit bytes: beyond those, lround() of a request such as 1e300
       * is undefined (it gave 0 CPUs and 2^63 bytes). */
      if (inst * cpu > 1e8)
        return sim__trace_table_field_error (&t, T_PLAN_CPU, error, "%g instances of %g%% of "
                                             "a core is more CPUs than any cluster has", inst,
                                             cpu);
      if (inst * mem > 1e9)
        return sim__trace_table_field_error (&t, T_PLAN_MEM, error, "%g instances of %g GB "
                                             "is more memory than any cluster has", inst, mem);
      job = g_hash_table_lookup (s->jobs, name);
      if (job == NULL)
        {
          job = g_new0 (PaiJob, 1);
          g_hash_table_insert (s->jobs, g_strdup (name), job);
        }
      job->gpu += inst * gpu;
      job->cpu += inst * cpu;
      job->mem += inst * mem;
      if (inst * gpu > job->top_gpu || (job->top_gpu == 0 && job->top_cpu == 0))
        {
          job->top_gpu = inst * gpu;
          job->top_cpu = inst * cpu;
          job->top_mem = inst * mem;
        }
      if (start > 0 && (job->start == 0 || start < job->start))
        job->start = start;
      if (end > job->end)
        job->end = end;
      if (gpu > 0)
        {
          type = sim_pai_gpu_type_to_catalogue (sim__trace_table_get (&t, T_GPU_TYPE));
          if (type == NULL)
            job->any_model = TRUE;
          else
            job->models = union_models (job->models, type);
        }
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

static gint32
pai_status (const char *status)
{
  if (g_ascii_strcasecmp (status, "Terminated") == 0)
    return 1;
  if (g_ascii_strcasecmp (status, "Failed") == 0)
    return 0;
  if (g_ascii_strcasecmp (status, "Interrupted") == 0 ||
      g_ascii_strcasecmp (status, "Canceled") == 0 ||
      g_ascii_strcasecmp (status, "Cancelled") == 0)
    return 5;
  return -1;
}

static gboolean
pai_row (SimTraceReader *r, SimJobSpec *out, gint64 *submit_s, GError **error)
{
  SimPai *s = (SimPai *) r;
  SimTraceTable *t = &r->table;

  for (;;)
    {
      const char *text;
      const PaiJob *job;
      double gpu, cpu, mem, run;
      gint64 end_s;
      guint32 end_ns;

      if (!sim__trace_table_next (t, error))
        return FALSE;
      r->rows++;
      memset (out, 0, sizeof *out);
      text = sim__trace_table_get (t, J_NAME);
      if (*text == '\0')
        return sim__trace_table_field_error (t, J_NAME, error, "the field is empty: expected "
                                             "the job's name");
      if (!parse_seconds (sim__trace_table_get (t, J_START), submit_s, &r->submit_ns))
        return bad_field (t, J_START, error, "is not a submit time in seconds (a "
                          "non-negative decimal number below 292 years)");
      text = sim__trace_table_get (t, J_END);
      if (*text != '\0' && !parse_seconds (text, &end_s, &end_ns))
        return bad_field (t, J_END, error, "is not a time in seconds (a non-negative decimal "
                          "number below 292 years, or empty)");
      text = sim__trace_table_get (t, J_STATUS);
      if (*text == '\0')
        return sim__trace_table_field_error (t, J_STATUS, error, "the field is empty: "
                                             "expected Terminated, Failed, Running, ...");
      out->status = pai_status (text);
      job = g_hash_table_lookup (s->jobs, sim__trace_table_get (t, J_NAME));
      gpu = job == NULL ? 0 : s->tasks == SIM_PAI_TASKS_SUM ? job->gpu : job->top_gpu;
      if (gpu <= 0)
        {
          /* CPU jobs (and jobs without tasks) are not GPU jobs. */
          r->skipped++;
          continue;
        }
      run = job->start > 0 && job->end > job->start ? job->end - job->start : 0;
      if (out->status < 0 || run <= 0)
        {
          if (!r->config.skip_invalid)
            return sim__trace_table_field_error (t, out->status < 0 ? J_STATUS : J_NAME, error,
                                                 "%s: expected a job that ran and ended "
                                                 "(or skip_invalid)",
                                                 out->status < 0 ? "a job that did not finish"
                                                                 : "its tasks never ran");
          r->skipped++;
          continue;
        }
      cpu = s->tasks == SIM_PAI_TASKS_SUM ? job->cpu : job->top_cpu;
      mem = s->tasks == SIM_PAI_TASKS_SUM ? job->mem : job->top_mem;
      out->id = r->rows;
      out->duration = sim_time_from_seconds (run);
      if (gpu < 100)
        {
          out->gpus = 1;
          out->gpu_milli = (guint32) CLAMP (lround (gpu * 10), 1, 999);
        }
      else
        {
          out->gpus = (guint32) ceil (gpu / 100 - 1e-9);
          out->gpu_milli = 1000;
        }
      /* Each task's request is bounded above, but a job may sum many. */
      out->cpu_milli = cpu * 10 < G_MAXUINT32 ? (guint32) lround (cpu * 10) : G_MAXUINT32;
      out->memory_bytes = mem * 1e9 < 9e18 ? (guint64) llround (mem * 1e9)
                                           : G_GUINT64_CONSTANT (9000000000000000000);
      out->gpu_models = job->any_model ? NULL : job->models;
      text = sim__trace_table_get (t, J_USER);
      out->user = *text != '\0' ? (gint32) sim__trace_intern (s->users, text, NULL) : -1;
      out->tenant = out->user >= 0 ? (guint32) out->user : 0;
      out->job_class = 0;
      return TRUE;
    }
}

static void
pai_finalize (SimTraceReader *r)
{
  SimPai *s = (SimPai *) r;

  g_clear_pointer (&s->jobs, g_hash_table_unref);
  g_clear_pointer (&s->users, g_hash_table_unref);
}

SimWorkload *
sim_workload_new_pai (const char *job_path, const char *task_path, const SimTraceConfig *config,
                      SimPaiTasks tasks, GError **error)
{
  static const guint required[] = { J_NAME, J_USER, J_STATUS, J_START };
  g_autoptr(SimWorkload) workload = NULL;
  g_autofree char *display = NULL;
  SimTraceReader *r;
  SimPai *s;

  g_return_val_if_fail (job_path != NULL && task_path != NULL && config != NULL, NULL);

  r = g_malloc0 (sizeof (SimPai));
  workload = (SimWorkload *) r;
  r->config = *config;
  r->submit_index = -1;
  r->read_row = pai_row;
  r->finalize = pai_finalize;
  s = (SimPai *) r;
  s->tasks = tasks;
  s->jobs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  s->users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  display = g_filename_display_name (job_path);
  {
    g_autofree char *description = g_strconcat ("pai:", display, NULL);
    sim__trace_reader_init_headerless (r, description, display);
  }
  g_ptr_array_add (r->parent.class_names, g_strdup ("pai"));
  if (!pai_read_tasks (s, task_path, error))
    return NULL;
  if (!pai_open_table (&r->table, job_path, pai_job_names, N_JOB_COLUMNS, "job table", error) ||
      !sim__trace_table_require (&r->table, required, G_N_ELEMENTS (required), error))
    return NULL;
  sim__trace_reader_set_fields (r, J_START, "start_time", "task run time", NULL);
  return g_steal_pointer (&workload);
}

/* ------------------------------------------------------------------------- */
/* Formats.                                                                  */

static const char *const format_names[] = {
  "unknown", "swf", "philly", "helios", "slurm", "openb", "pai", "gavel", "native",
};

SimTraceFormat
sim_trace_format_from_name (const char *name)
{
  g_return_val_if_fail (name != NULL, SIM_TRACE_FORMAT_UNKNOWN);
  for (guint i = 1; i < G_N_ELEMENTS (format_names); i++)
    if (g_ascii_strcasecmp (name, format_names[i]) == 0)
      return (SimTraceFormat) i;
  return SIM_TRACE_FORMAT_UNKNOWN;
}

const char *
sim_trace_format_get_name (SimTraceFormat format)
{
  if ((guint) format >= G_N_ELEMENTS (format_names))
    return "unknown";
  return format_names[format];
}

static gboolean
has_name (char **names, const char *name)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (g_ascii_strcasecmp (g_strstrip (names[i]), name) == 0)
      return TRUE;
  return FALSE;
}

SimTraceFormat
sim_trace_detect_format (const char *path, GError **error)
{
  SimLineReader *lr;
  g_autofree char *line = NULL;
  g_auto(GStrv) fields = NULL;
  g_autofree char *display = NULL;
  GError *local = NULL;
  SimTraceFormat format = SIM_TRACE_FORMAT_UNKNOWN;
  guint n;

  g_return_val_if_fail (path != NULL, SIM_TRACE_FORMAT_UNKNOWN);
  lr = sim__line_reader_open (path, error);
  if (lr == NULL)
    return SIM_TRACE_FORMAT_UNKNOWN;
  display = g_strdup (lr->display);
  while (sim__line_reader_next (lr, &local))
    {
      if (lr->line_has_nul)
        break;
      if (*g_strstrip (lr->line) != '\0')
        {
          line = g_strdup (lr->line);
          break;
        }
    }
  sim__line_reader_free (lr);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return SIM_TRACE_FORMAT_UNKNOWN;
    }
  if (line != NULL && g_str_has_prefix (line, "\xEF\xBB\xBF"))
    memmove (line, line + 3, strlen (line + 3) + 1);

  if (line == NULL)
    ;
  else if (line[0] == ';')
    format = SIM_TRACE_FORMAT_SWF;
  else if (strchr (line, '|') != NULL && strstr (line, "ubmit") != NULL)
    format = SIM_TRACE_FORMAT_SLURM;
  else if (strchr (line, '\t') != NULL &&
           ((n = g_strv_length (fields = g_strsplit (line, "\t", -1))) == 7 || n == 10))
    format = SIM_TRACE_FORMAT_GAVEL;
  else
    {
      g_clear_pointer (&fields, g_strfreev);
      fields = g_strsplit (line, ",", -1);
      n = g_strv_length (fields);
      if (has_name (fields, "timestamp") && has_name (fields, "num_gpus"))
        format = SIM_TRACE_FORMAT_PHILLY;
      else if (has_name (fields, "submit_time") && has_name (fields, "gpu_num"))
        format = SIM_TRACE_FORMAT_HELIOS;
      else if (has_name (fields, "creation_time") && has_name (fields, "num_gpu"))
        format = SIM_TRACE_FORMAT_OPENB;
      else if (has_name (fields, "submit") && has_name (fields, "duration") &&
               has_name (fields, "gpus"))
        format = SIM_TRACE_FORMAT_NATIVE;
      else if (has_name (fields, "job_name") && has_name (fields, "inst_id"))
        format = SIM_TRACE_FORMAT_PAI;
      else if (n == 6 && pai_status (g_strstrip (fields[3])) != -1)
        format = SIM_TRACE_FORMAT_PAI;
      else if (n == 6 && (g_ascii_strcasecmp (fields[3], "Running") == 0 ||
                          g_ascii_strcasecmp (fields[3], "Waiting") == 0))
        format = SIM_TRACE_FORMAT_PAI;
      else
        {
          g_auto(GStrv) words = g_strsplit_set (line, " \t", -1);
          guint numbers = 0;
          gboolean all = TRUE;

          for (guint i = 0; words[i] != NULL; i++)
            {
              gint64 v;
              if (*words[i] == '\0')
                continue;
              if (parse_int (words[i], G_MININT64 + 1, G_MAXINT64, &v))
                numbers++;
              else
                all = FALSE;
            }
          if (all && numbers == 18)
            format = SIM_TRACE_FORMAT_SWF;
        }
    }
  if (format == SIM_TRACE_FORMAT_UNKNOWN)
    {
      if (g_str_has_suffix (path, ".swf") || g_str_has_suffix (path, ".swf.gz"))
        format = SIM_TRACE_FORMAT_SWF;
      else if (g_str_has_suffix (path, ".trace"))
        format = SIM_TRACE_FORMAT_GAVEL;
    }
  if (format == SIM_TRACE_FORMAT_UNKNOWN)
    {
      g_autofree char *q = line != NULL ? sim__trace_quote (line) : g_strdup ("(no text)");
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s: cannot tell the trace's format from "
                   "its first line %s: expected a header of a known format, SWF, Gavel's TAB-"
                   "separated rows or a PAI job table (or give --format)", display, q);
    }
  return format;
}

SimWorkload *
sim_trace_open (SimTraceFormat format, const char *path, const SimTraceConfig *config,
                const char *aux_path, const SimGavelRate *rates, guint n_rates, GError **error)
{
  g_return_val_if_fail (path != NULL && config != NULL, NULL);

  switch (format)
    {
    case SIM_TRACE_FORMAT_SWF:
      {
        SimSwfConfig c = { 1, config->max_jobs, config->skip_invalid, config->rebase_time,
                           config->reorder_window };
        return sim_workload_new_swf (path, &c, error);
      }
    case SIM_TRACE_FORMAT_PHILLY:
      {
        SimPhillyConfig c = { config->max_jobs, config->skip_invalid, config->rebase_time,
                              config->reorder_window, NULL };
        return sim_workload_new_philly (path, &c, error);
      }
    case SIM_TRACE_FORMAT_HELIOS:
      return sim_workload_new_helios (path, config, error);
    case SIM_TRACE_FORMAT_SLURM:
      return sim_workload_new_slurm (path, config, error);
    case SIM_TRACE_FORMAT_OPENB:
      {
        SimOpenbConfig c = { config->max_jobs, config->skip_invalid, config->rebase_time };
        return sim_workload_new_openb (path, &c, error);
      }
    case SIM_TRACE_FORMAT_PAI:
      if (aux_path == NULL)
        {
          g_autofree char *display = g_filename_display_name (path);
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "%s: a PAI job table needs its "
                       "task table (pai_task_table.csv)", display);
          return NULL;
        }
      return sim_workload_new_pai (path, aux_path, config, SIM_PAI_TASKS_SUM, error);
    case SIM_TRACE_FORMAT_GAVEL:
      return sim_workload_new_gavel (path, config, rates, n_rates, error);
    case SIM_TRACE_FORMAT_NATIVE:
      return sim_workload_new_native (path, config, error);
    case SIM_TRACE_FORMAT_UNKNOWN:
    default:
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "no trace format given");
      return NULL;
    }
}

static guint64
skipped_of (const SimWorkload *w)
{
  return sim_workload_trace_skipped (w) + sim_workload_swf_skipped (w) +
         sim_workload_philly_skipped (w) + sim_workload_openb_skipped (w, NULL, NULL);
}

typedef struct {
  guint64 line;
  guint64 rank;
} LineRank;

static int
compare_line (const void *a, const void *b)
{
  const LineRank *x = a, *y = b;

  return x->line < y->line ? -1 : x->line > y->line;
}

gboolean
sim_trace_stats_compute (SimTraceFormat format, const char *path, const SimTraceConfig *config,
                         const char *aux_path, const SimGavelRate *rates, guint n_rates,
                         SimTraceStats *stats, GError **error)
{
  g_autoptr(SimWorkload) w = NULL;
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (LineRank));
  SimTraceConfig c;
  SimJobSpec job;
  GError *local = NULL;
  gboolean have_lines = TRUE;

  g_return_val_if_fail (path != NULL && config != NULL && stats != NULL, FALSE);
  memset (stats, 0, sizeof *stats);
  c = *config;
  /* openb reads strictly in order: it has no window to ask for. */
  c.reorder_window = format == SIM_TRACE_FORMAT_OPENB ? 0 : SIM_TRACE_REORDER_SORT;
  w = sim_trace_open (format, path, &c, aux_path, rates, n_rates, error);
  if (w == NULL)
    return FALSE;
  while (sim_workload_next (w, &job, &local))
    {
      double gpus = job.gpus * (job.gpu_milli / 1000.0);
      static const guint bounds[7] = { 1, 2, 4, 8, 16, 32, 64 };
      guint b = 0;
      SimTime hour;
      LineRank lr;

      if (stats->jobs == 0)
        stats->first_submit = job.submit;
      stats->last_submit = job.submit;
      stats->gpu_hours += gpus * sim_time_to_seconds (job.duration) / 3600.0;
      while (b < 7 && job.gpus > bounds[b])
        b++;
      stats->gpus_hist[b]++;
      hour = (job.submit / SIM_HOUR) % 24;
      if (hour < 0)
        hour += 24;
      stats->arrivals_by_hour[hour]++;
      lr.line = w->source_line;
      lr.rank = stats->jobs;
      if (lr.line == 0)
        have_lines = FALSE;
      else
        g_array_append_val (order, lr);
      stats->jobs++;
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  stats->skipped = skipped_of (w);
  if (stats->jobs == 0)
    {
      /* A trace without jobs is an error, as in a run. */
      g_propagate_error (error, sim__workload_no_jobs_error (w));
      return FALSE;
    }
  if (have_lines && order->len > 0)
    {
      /* In file order, the rows before each one that come later in submit
       * order: a Fenwick tree of the ranks seen so far. */
      guint64 n = order->len;
      g_autofree guint32 *tree = g_new0 (guint32, n + 1);

      g_array_sort (order, compare_line);
      for (guint64 i = 0; i < n; i++)
        {
          guint64 r = g_array_index (order, LineRank, i).rank;
          guint64 below = 0, later;

          for (guint64 k = r; k > 0; k -= k & -k)
            below += tree[k];
          later = i - below;
          if (later > 0)
            stats->rows_out_of_order++;
          stats->window_needed = MAX (stats->window_needed, later);
          for (guint64 k = r + 1; k <= n; k += k & -k)
            tree[k]++;
        }
    }
  return TRUE;
}

/* Seconds with nine decimals, exactly. */
static void
append_time (GString *s, SimTime t)
{
  if (t < 0)
    {
      g_string_append_c (s, '-');
      t = -t;
    }
  g_string_append_printf (s, "%" G_GINT64_FORMAT ".%09d", t / SIM_SECOND, (int) (t % SIM_SECOND));
}

gboolean
sim_trace_write_native (SimWorkload *workload, const char *path, guint64 *jobs, GError **error)
{
  g_autoptr(SimAtomicFile) file = NULL;
  g_autoptr(GString) row = g_string_sized_new (256);
  SimJobSpec job;
  GError *local = NULL;
  guint64 n = 0;
  FILE *fp;

  g_return_val_if_fail (workload != NULL && path != NULL, FALSE);
  file = sim__atomic_file_new (path, error);
  if (file == NULL)
    return FALSE;
  fp = sim__atomic_file_stream (file);
  fputs ("id,submit,duration,gpus,gpu_milli,gpu_model,tenant,priority,class,requested,"
         "cpu_milli,memory,mig,user,status\n", fp);
  while (sim_workload_next (workload, &job, &local))
    {
      if (job.submit < 0)
        {
          g_set_error (&local, SIM_ERROR, SIM_ERROR_TRACE, "%s: job %" G_GUINT64_FORMAT " is "
                       "submitted before the origin of time (a negative submit time); set "
                       "rebase_time", workload->description, job.id);
          break;
        }
      g_string_truncate (row, 0);
      g_string_append_printf (row, "%" G_GUINT64_FORMAT ",", job.id);
      append_time (row, job.submit);
      g_string_append_c (row, ',');
      append_time (row, job.duration);
      g_string_append_printf (row, ",%u,%u,", job.gpus, job.gpu_milli);
      sim__csv_append_field (row, job.gpu_models != NULL ? job.gpu_models : "");
      g_string_append_printf (row, ",%u,%d,", job.tenant, job.priority);
      sim__csv_append_field (row, job.job_class < sim_workload_get_n_classes (workload)
                                    ? sim_workload_get_class_name (workload, job.job_class)
                                    : "default");
      g_string_append_c (row, ',');
      append_time (row, job.requested);
      g_string_append_printf (row, ",%u,%" G_GUINT64_FORMAT ",", job.cpu_milli,
                              job.memory_bytes);
      sim__csv_append_field (row, job.mig_profile != NULL ? job.mig_profile : "");
      g_string_append_printf (row, ",%d,%d\n", job.user, job.status);
      fwrite (row->str, 1, row->len, fp);
      n++;
    }
  if (local == NULL && n == 0)
    local = sim__workload_no_jobs_error (workload);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (!sim__atomic_file_commit (file, error))
    return FALSE;
  if (jobs != NULL)
    *jobs = n;
  return TRUE;
}
