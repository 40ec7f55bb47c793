/* sim-policy-params.c: the [policy] keys, parsed on demand by the policies
 * that read them. */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "core/sim-error.h"

#include <string.h>

struct _SimPolicyParams {
  GHashTable *values; /* key -> text */
  char       *failed_key;
};

SimPolicyParams *
sim_policy_params_new (void)
{
  SimPolicyParams *p = g_new0 (SimPolicyParams, 1);
  p->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return p;
}

void
sim_policy_params_free (SimPolicyParams *params)
{
  if (params == NULL)
    return;
  g_hash_table_unref (params->values);
  g_free (params->failed_key);
  g_free (params);
}

void
sim_policy_params_set (SimPolicyParams *params, const char *key, const char *value)
{
  g_return_if_fail (params != NULL && key != NULL && value != NULL);
  g_hash_table_replace (params->values, g_strdup (key), g_strstrip (g_strdup (value)));
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GPtrArray *
sim_policy_params_get_keys (const SimPolicyParams *params)
{
  GPtrArray *keys = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;

  g_return_val_if_fail (params != NULL, keys);
  g_hash_table_iter_init (&it, params->values);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, compare_strings);
  return keys;
}

const char *
sim_policy_params_get_failed_key (const SimPolicyParams *params)
{
  g_return_val_if_fail (params != NULL, NULL);
  return params->failed_key;
}

static const char *
lookup (SimPolicyParams *params, const char *key)
{
  return params ? g_hash_table_lookup (params->values, key) : NULL;
}

void
sim__policy_params_fail (SimPolicyParams *params, const char *key)
{
  g_return_if_fail (params != NULL);
  g_free (params->failed_key);
  params->failed_key = g_strdup (key);
}

static gboolean
failed (SimPolicyParams *params, const char *key)
{
  sim__policy_params_fail (params, key);
  return FALSE;
}

gboolean
sim_policy_params_get_duration (SimPolicyParams *params, const char *key, SimTime def,
                                SimTime *out, GError **error)
{
  const char *v = lookup (params, key);

  g_return_val_if_fail (key != NULL && out != NULL, FALSE);
  *out = def;
  if (v == NULL)
    return TRUE;
  if (!sim_parse_duration (v, out, error))
    return failed (params, key);
  return TRUE;
}

gboolean
sim_policy_params_get_number (SimPolicyParams *params, const char *key, double def, double min,
                              double max, double *out, GError **error)
{
  const char *v = lookup (params, key);

  g_return_val_if_fail (key != NULL && out != NULL, FALSE);
  *out = def;
  if (v == NULL)
    return TRUE;
  if (!sim_parse_number (v, min, max, out, error))
    return failed (params, key);
  return TRUE;
}

gboolean
sim_policy_params_get_string (SimPolicyParams *params, const char *key, const char *def,
                              const char **out, GError **error)
{
  const char *v = lookup (params, key);

  g_return_val_if_fail (key != NULL && out != NULL, FALSE);
  *out = v ? v : def;
  return TRUE;
}

gboolean
sim_policy_params_get_durations (SimPolicyParams *params, const char *key, SimTime **out,
                                 guint *n, GError **error)
{
  const char *v = lookup (params, key);
  g_auto(GStrv) items = NULL;
  guint count;

  g_return_val_if_fail (key != NULL && out != NULL && n != NULL, FALSE);
  *out = NULL;
  *n = 0;
  if (v == NULL)
    return TRUE;
  items = g_strsplit (v, ",", -1);
  count = g_strv_length (items);
  *out = g_new0 (SimTime, MAX (count, 1));
  for (guint i = 0; i < count; i++)
    if (!sim_parse_duration (g_strstrip (items[i]), &(*out)[i], error))
      {
        g_prefix_error (error, "item %u: ", i + 1);
        g_clear_pointer (out, g_free);
        return failed (params, key);
      }
  *n = count;
  return TRUE;
}
