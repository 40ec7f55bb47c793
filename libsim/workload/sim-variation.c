/* sim-variation.c: windows, bootstraps and jitter of a trace (see
 * sim-variation.h). */
#include "config.h"

#include "workload/sim-variation.h"
#include "workload/sim-workload-private.h"
#include "core/sim-error.h"

#include <stdlib.h>
#include <string.h>

#define DAY ((SimTime) 86400 * SIM_SECOND)

typedef struct {
  SimWorkload  parent;
  SimWorkload *inner;
  guint        kind;
  SimTime      time;
  guint64      seed;
  gboolean     ready;   /* the trace has been read and varied */
  GArray      *jobs;    /* SimJobSpec, in the order given */
  guint        next;
} Varied;

gboolean
sim__variation_parse (const char *text, guint *kind, SimTime *time, GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  char *open = strchr (copy, '('), *arg;
  gsize n = strlen (copy);

  *kind = SIM_VARIATION_NONE;
  *time = 0;
  if (strcmp (copy, "none") == 0)
    return TRUE;
  if (open == NULL || n == 0 || copy[n - 1] != ')')
    goto bad;
  *open = '\0';
  copy[n - 1] = '\0';
  g_strstrip (copy);
  arg = g_strstrip (open + 1);
  if (strcmp (copy, "bootstrap") == 0)
    {
      if (strcmp (arg, "days") == 0)
        *kind = SIM_VARIATION_BOOTSTRAP_DAYS;
      else if (strcmp (arg, "jobs") == 0)
        *kind = SIM_VARIATION_BOOTSTRAP_JOBS;
      else
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "bootstrap(%s): expected bootstrap(days) or bootstrap(jobs)", arg);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (copy, "windows") == 0 || strcmp (copy, "jitter") == 0)
    {
      gboolean windows = copy[0] == 'w';

      if (!sim_parse_duration (arg, time, error))
        {
          g_prefix_error (error, "%s(%s): expected a duration such as %s: ", copy, arg,
                          windows ? "\"7d\"" : "\"10min\"");
          return FALSE;
        }
      if (*time <= 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s(%s): expected a duration above 0",
                       copy, arg);
          return FALSE;
        }
      *kind = windows ? SIM_VARIATION_WINDOWS : SIM_VARIATION_JITTER;
      return TRUE;
    }
bad:
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
               "\"%s\": expected none, windows(LENGTH) such as windows(7d), bootstrap(days), "
               "bootstrap(jobs) or jitter(REACH) such as jitter(10min)", text);
  return FALSE;
}

static int
by_submit (gconstpointer a, gconstpointer b)
{
  const SimJobSpec *x = a, *y = b;

  if (x->submit != y->submit)
    return x->submit < y->submit ? -1 : 1;
  /* Equal times keep the order drawn (qsort is not stable: the id, unique
   * once renumbered, breaks ties). */
  return (x->id > y->id) - (x->id < y->id);
}

/* Renumbers the jobs 1, 2, ... in their order: a draw with replacement
 * gives a job more than once, and a job is known by its number. */
static void
renumber (GArray *jobs)
{
  for (guint i = 0; i < jobs->len; i++)
    g_array_index (jobs, SimJobSpec, i).id = i + 1;
}

/* Reads the whole of the inner trace, then varies it as asked. */
static gboolean
prepare (Varied *self, GError **error)
{
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (SimJobSpec));
  g_autoptr(GRand) rand = NULL;
  guint32 seed[2] = { (guint32) self->seed, (guint32) (self->seed >> 32) };
  SimJobSpec job;
  GError *inner_error = NULL;
  SimTime first, span;

  while (sim_workload_next (self->inner, &job, &inner_error))
    g_array_append_val (all, job);
  if (inner_error != NULL)
    {
      g_propagate_error (error, inner_error);
      return FALSE;
    }
  /* A trace names its classes as it reads them (Philly's virtual
   * clusters, by first appearance): they are all known now. */
  for (guint i = sim_workload_get_n_classes (&self->parent);
       i < sim_workload_get_n_classes (self->inner); i++)
    g_ptr_array_add (self->parent.class_names,
                     g_strdup (sim_workload_get_class_name (self->inner, i)));
  self->ready = TRUE;
  if (all->len == 0)
    return TRUE;
  rand = g_rand_new_with_seed_array (seed, 2);
  first = g_array_index (all, SimJobSpec, 0).submit;
  span = g_array_index (all, SimJobSpec, all->len - 1).submit - first;

  switch (self->kind)
    {
    case SIM_VARIATION_WINDOWS:
      {
        guint64 n_windows = (guint64) (span / self->time);
        SimTime start;
        g_autofree char *described = NULL;

        if (n_windows == 0)
          {
            g_autofree char *a = sim_format_duration (span);
            g_autofree char *b = sim_format_duration (self->time);
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                         "%s spans %s from its first submission to its last, less than one "
                         "window of %s: expected shorter windows (variation = windows(...))",
                         self->inner->description, a, b);
            return FALSE;
          }
        start = first + (SimTime) (((self->seed + n_windows - 1) % n_windows)) * self->time;
        for (guint i = 0; i < all->len; i++)
          {
            job = g_array_index (all, SimJobSpec, i);
            if (job.submit < start || job.submit >= start + self->time)
              continue;
            job.submit -= start;
            g_array_append_val (self->jobs, job);
          }
        described = g_strdup_printf ("%s, window %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
                                     self->parent.description,
                                     (self->seed + n_windows - 1) % n_windows + 1, n_windows);
        g_free (self->parent.description);
        self->parent.description = g_steal_pointer (&described);
        break;
      }
    case SIM_VARIATION_BOOTSTRAP_DAYS:
      {
        guint64 n_days = (guint64) (span / DAY) + 1;
        g_autofree guint *day_start = g_new0 (guint, n_days + 1);

        /* The jobs are in order of submission: each day's are a run of
         * them, from day_start[d] to day_start[d + 1]. */
        for (guint64 d = 0, i = 0; d <= n_days; d++)
          {
            while (i < all->len &&
                   (guint64) ((g_array_index (all, SimJobSpec, i).submit - first) / DAY) < d)
              i++;
            day_start[d] = (guint) i;
          }
        for (guint64 k = 0; k < n_days; k++)
          {
            guint64 d = (guint64) g_rand_int_range (rand, 0, (gint32) MIN (n_days, G_MAXINT32));
            for (guint i = day_start[d]; i < day_start[d + 1]; i++)
              {
                job = g_array_index (all, SimJobSpec, i);
                job.submit = (SimTime) k * DAY + (job.submit - first - (SimTime) d * DAY);
                g_array_append_val (self->jobs, job);
              }
          }
        renumber (self->jobs);
        break;
      }
    case SIM_VARIATION_BOOTSTRAP_JOBS:
      for (guint i = 0; i < all->len; i++)
        {
          job = g_array_index (all, SimJobSpec,
                               g_rand_int_range (rand, 0, (gint32) MIN (all->len, G_MAXINT32)));
          g_array_append_val (self->jobs, job);
        }
      /* Numbered in the order drawn, which breaks ties in the sort; then
       * again in the order given. */
      renumber (self->jobs);
      g_array_sort (self->jobs, by_submit);
      renumber (self->jobs);
      break;
    case SIM_VARIATION_JITTER:
      for (guint i = 0; i < all->len; i++)
        {
          double shift = g_rand_double_range (rand, -1.0, 1.0) * (double) self->time;
          job = g_array_index (all, SimJobSpec, i);
          job.submit = MAX (0, job.submit + (SimTime) shift);
          g_array_append_val (self->jobs, job);
        }
      /* Numbered in the order drawn, which breaks ties in the sort; then
       * again in the order given. */
      renumber (self->jobs);
      g_array_sort (self->jobs, by_submit);
      renumber (self->jobs);
      break;
    default:
      g_assert_not_reached ();
    }
  return TRUE;
}

static gboolean
varied_next (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  Varied *self = (Varied *) workload;

  if (!self->ready && !prepare (self, error))
    return FALSE;
  if (self->next >= self->jobs->len)
    return FALSE;
  *out = g_array_index (self->jobs, SimJobSpec, self->next++);
  return TRUE;
}

static void
varied_finalize (SimWorkload *workload)
{
  Varied *self = (Varied *) workload;

  g_array_unref (self->jobs);
  sim_workload_free (self->inner);
}

static guint64
varied_skipped (const SimWorkload *workload)
{
  return sim_workload_get_skipped (((const Varied *) workload)->inner);
}

static const SimWorkloadVTable varied_vtable = {
  varied_next, varied_finalize, varied_skipped,
};

SimWorkload *
sim__variation_wrap (SimWorkload *inner, guint kind, SimTime time, guint64 seed)
{
  static const char *const names[] = {
    NULL, "windows", "bootstrap of days", "bootstrap of jobs", "jitter",
  };
  Varied *self;
  g_autofree char *description = NULL;

  if (inner == NULL || kind == SIM_VARIATION_NONE)
    return inner;
  g_return_val_if_fail (kind < G_N_ELEMENTS (names), inner);
  self = g_new0 (Varied, 1);
  if (kind == SIM_VARIATION_WINDOWS || kind == SIM_VARIATION_JITTER)
    {
      g_autofree char *t = sim_format_duration (time);
      description = g_strdup_printf ("%s, %s of %s", inner->description, names[kind], t);
    }
  else
    description = g_strdup_printf ("%s, %s", inner->description, names[kind]);
  sim__workload_init (&self->parent, &varied_vtable, description);
  for (guint i = 0; i < sim_workload_get_n_classes (inner); i++)
    g_ptr_array_add (self->parent.class_names,
                     g_strdup (sim_workload_get_class_name (inner, i)));
  self->inner = inner;
  self->kind = kind;
  self->time = time;
  self->seed = seed;
  self->jobs = g_array_new (FALSE, FALSE, sizeof (SimJobSpec));
  return &self->parent;
}
