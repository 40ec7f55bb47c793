/* sim-mig.c: MIG layouts: allowed starts, slice masks, instance limits.
 *
 * Each instance is two bit masks, compute slices [s, s + c) and memory
 * slices [s, s + m); a new instance fits when neither mask meets the
 * layout's, so finding a slot is a scan of the profile's few allowed
 * starts.  Instances are kept sorted by start, so that two layouts with
 * the same instances are equal member by member. */
#include "config.h"

#include "cluster/sim-mig.h"
#include "core/sim-error.h"

#include <string.h>

static SimMigLayout *
mig_layout_copy (const SimMigLayout *layout)
{
  return g_memdup2 (layout, sizeof *layout);
}

G_DEFINE_BOXED_TYPE (SimMigLayout, sim_mig_layout, mig_layout_copy, g_free)

static inline guint32
span_mask (guint start, guint width)
{
  if (width == 0)
    return 0;
  return (width >= 32 ? G_MAXUINT32 : ((1u << width) - 1u)) << start;
}

void
sim_mig_layout_init (SimMigLayout *layout)
{
  g_return_if_fail (layout != NULL);
  memset (layout, 0, sizeof *layout);
}

int
sim_mig_lookup_profile (const SimGpuModel *gpu, const char *name)
{
  g_return_val_if_fail (gpu != NULL && name != NULL, -1);
  for (guint i = 0; i < gpu->n_mig_profiles; i++)
    if (g_ascii_strcasecmp (gpu->mig_profiles[i].name, name) == 0)
      return (int) i;
  return -1;
}

guint
sim_mig_profile_count (const SimMigLayout *layout, guint profile)
{
  guint n = 0;

  g_return_val_if_fail (layout != NULL, 0);
  for (guint i = 0; i < layout->n_instances; i++)
    n += layout->instances[i].profile == profile;
  return n;
}

static gboolean
start_allowed (const SimMigProfile *p, guint start)
{
  for (guint k = 0; k < p->n_placements; k++)
    if (p->placements[k] == start)
      return TRUE;
  return FALSE;
}

/* Whether an instance of P at START stays inside the GPU. */
static gboolean
within (const SimGpuModel *gpu, const SimMigProfile *p, guint start)
{
  return gpu->mig_slices <= SIM_MIG_MAX_SLICES && start + p->compute_slices <= gpu->mig_slices &&
         start + p->memory_slices <= SIM_MIG_MEMORY_SLICES && p->compute_slices > 0;
}

static gboolean
slots_free (const SimMigLayout *layout, const SimMigProfile *p, guint start)
{
  return (layout->compute_used & span_mask (start, p->compute_slices)) == 0 &&
         (layout->memory_used & span_mask (start, p->memory_slices)) == 0;
}

int
sim_mig_find_slot (const SimGpuModel *gpu, const SimMigLayout *layout, guint profile)
{
  const SimMigProfile *p;

  g_return_val_if_fail (gpu != NULL && layout != NULL, -1);
  if (profile >= gpu->n_mig_profiles || layout->n_instances >= SIM_MIG_MAX_INSTANCES)
    return -1;
  p = &gpu->mig_profiles[profile];
  if (sim_mig_profile_count (layout, profile) >= p->max_instances)
    return -1;
  for (guint k = 0; k < p->n_placements; k++)
    {
      guint s = p->placements[k];
      if (within (gpu, p, s) && slots_free (layout, p, s))
        return (int) s;
    }
  return -1;
}

int
sim_mig_layout_add (const SimGpuModel *gpu, SimMigLayout *layout, guint profile, int start,
                    GError **error)
{
  const SimMigProfile *p;
  guint s, at;

  g_return_val_if_fail (gpu != NULL && layout != NULL, -1);
  if (profile >= gpu->n_mig_profiles)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "GPU model %s has no MIG profile number %u (it has %u)", gpu->name, profile,
                   gpu->n_mig_profiles);
      return -1;
    }
  p = &gpu->mig_profiles[profile];
  if (start < 0)
    {
      start = sim_mig_find_slot (gpu, layout, profile);
      if (start < 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "no room for a MIG %s instance on this %s", p->name, gpu->name);
          return -1;
        }
    }
  s = (guint) start;
  if (!start_allowed (p, s) || !within (gpu, p, s))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "MIG %s cannot start at slice %u on %s", p->name, s, gpu->name);
      return -1;
    }
  if (sim_mig_profile_count (layout, profile) >= p->max_instances)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "%s allows at most %u MIG %s instance(s)", gpu->name, p->max_instances,
                   p->name);
      return -1;
    }
  if (layout->n_instances >= SIM_MIG_MAX_INSTANCES || !slots_free (layout, p, s))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "MIG %s at slice %u overlaps an instance already on this %s", p->name, s,
                   gpu->name);
      return -1;
    }
  for (at = 0; at < layout->n_instances && layout->instances[at].start < s; at++)
    ;
  memmove (&layout->instances[at + 1], &layout->instances[at],
           (layout->n_instances - at) * sizeof (SimMigInstance));
  layout->instances[at].profile = (guint8) profile;
  layout->instances[at].start = (guint8) s;
  layout->n_instances++;
  layout->compute_used |= span_mask (s, p->compute_slices);
  layout->memory_used |= span_mask (s, p->memory_slices);
  return (int) s;
}

gboolean
sim_mig_layout_remove (const SimGpuModel *gpu, SimMigLayout *layout, guint profile, guint start)
{
  const SimMigProfile *p;

  g_return_val_if_fail (gpu != NULL && layout != NULL, FALSE);
  if (profile >= gpu->n_mig_profiles)
    return FALSE;
  p = &gpu->mig_profiles[profile];
  for (guint i = 0; i < layout->n_instances; i++)
    if (layout->instances[i].profile == profile && layout->instances[i].start == start)
      {
        memmove (&layout->instances[i], &layout->instances[i + 1],
                 (layout->n_instances - i - 1) * sizeof (SimMigInstance));
        layout->n_instances--;
        layout->compute_used &= ~span_mask (start, p->compute_slices);
        layout->memory_used &= ~span_mask (start, p->memory_slices);
        return TRUE;
      }
  return FALSE;
}

gboolean
sim_mig_layout_validate (const SimGpuModel *gpu, const SimMigLayout *layout, GError **error)
{
  guint32 compute = 0, memory = 0;
  guint counts[256] = { 0 };

  g_return_val_if_fail (gpu != NULL && layout != NULL, FALSE);
  if (layout->n_instances > 0 && (gpu->mig_slices == 0 || gpu->mig_slices > SIM_MIG_MAX_SLICES))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "GPU model %s has no MIG", gpu->name);
      return FALSE;
    }
  if (layout->n_instances > SIM_MIG_MAX_INSTANCES)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%u MIG instances: at most %u",
                   layout->n_instances, SIM_MIG_MAX_INSTANCES);
      return FALSE;
    }
  for (guint i = 0; i < layout->n_instances; i++)
    {
      const SimMigInstance *in = &layout->instances[i];
      const SimMigProfile *p;
      guint32 cm, mm;

      if (in->profile >= gpu->n_mig_profiles)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "MIG instance %u: %s has no profile number %u", i, gpu->name, in->profile);
          return FALSE;
        }
      p = &gpu->mig_profiles[in->profile];
      if (!start_allowed (p, in->start) || !within (gpu, p, in->start))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "MIG instance %u: %s cannot start at slice %u on %s", i, p->name,
                       in->start, gpu->name);
          return FALSE;
        }
      cm = span_mask (in->start, p->compute_slices);
      mm = span_mask (in->start, p->memory_slices);
      if ((compute & cm) != 0 || (memory & mm) != 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "MIG instance %u: %s at slice %u overlaps another instance on %s", i,
                       p->name, in->start, gpu->name);
          return FALSE;
        }
      compute |= cm;
      memory |= mm;
      if (++counts[in->profile] > p->max_instances)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "MIG instance %u: more than %u %s instance(s) on %s", i,
                       p->max_instances, p->name, gpu->name);
          return FALSE;
        }
    }
  return TRUE;
}

guint
sim_mig_layout_compute_slices (const SimMigLayout *layout)
{
  g_return_val_if_fail (layout != NULL, 0);
  return (guint) __builtin_popcount (layout->compute_used);
}

char *
sim_mig_layout_describe (const SimGpuModel *gpu, const SimMigLayout *layout)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (gpu != NULL && layout != NULL, NULL);
  for (guint i = 0; i < layout->n_instances; i++)
    {
      const SimMigInstance *in = &layout->instances[i];
      g_string_append_printf (s, "%s%s@%u", i ? " " : "",
                              in->profile < gpu->n_mig_profiles ? gpu->mig_profiles[in->profile].name
                                                                : "?",
                              in->start);
    }
  return g_string_free (s, FALSE);
}

SimTime
sim_mig_reconfigure_cost (const SimMigLayout *from, const SimMigLayout *to,
                          SimTime reconfigure_time)
{
  g_return_val_if_fail (from != NULL && to != NULL, 0);
  if (from->n_instances == to->n_instances &&
      memcmp (from->instances, to->instances, from->n_instances * sizeof (SimMigInstance)) == 0)
    return 0;
  return reconfigure_time;
}

guint
sim_mig_instance_milli (const SimGpuModel *gpu, guint profile)
{
  g_return_val_if_fail (gpu != NULL && profile < gpu->n_mig_profiles, 0);
  if (gpu->mig_slices == 0)
    return 0;
  return 1000u * gpu->mig_profiles[profile].compute_slices / gpu->mig_slices;
}

double
sim_mig_compute_fraction (const SimGpuModel *gpu, guint profile)
{
  const SimMigProfile *p;

  g_return_val_if_fail (gpu != NULL && profile < gpu->n_mig_profiles, 1.0);
  p = &gpu->mig_profiles[profile];
  if (p->sms > 0 && gpu->sms > 0)
    return MIN (1.0, (double) p->sms / gpu->sms);
  if (gpu->mig_slices == 0)
    return 1.0;
  return MIN (1.0, (double) p->compute_slices / gpu->mig_slices);
}

double
sim_mig_memory_fraction (const SimGpuModel *gpu, guint profile)
{
  g_return_val_if_fail (gpu != NULL && profile < gpu->n_mig_profiles, 1.0);
  return MIN (1.0, (double) gpu->mig_profiles[profile].memory_slices / SIM_MIG_MEMORY_SLICES);
}

double
sim_mig_speed (const SimGpuModel *gpu, guint profile, double memory_bound)
{
  double c, b;

  g_return_val_if_fail (gpu != NULL && profile < gpu->n_mig_profiles, 1.0);
  g_return_val_if_fail (memory_bound >= 0 && memory_bound <= 1, 1.0);
  c = sim_mig_compute_fraction (gpu, profile);
  b = sim_mig_memory_fraction (gpu, profile);
  return 1.0 / ((1.0 - memory_bound) / c + memory_bound / b);
}
