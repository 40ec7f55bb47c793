/* sim-policy-table.c: the tables of named queue orders and placements.
 * The files that define them register them here and the registry
 * (sim-policy-registry.c) reads them from here; this file calls neither, so
 * that a file defining a policy does not depend on the registry that lists
 * it. */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <string.h>

/* A registered queue order or placement: its name and description, and
 * its info struct (a copy). */
typedef struct {
  const char *name;
  const char *description;
  gpointer    info;
} Entry;

static GPtrArray *queue_orders; /* Entry* of SimQueueOrderInfo, never freed: a process-wide table */
static GPtrArray *placements;   /* Entry* of SimPlacementInfo */
/* Simulations in several threads read the tables while a program may still
 * register a policy of its own: readers share the lock, registration takes
 * it alone.  Entries are never freed, so a pointer found stays valid. */
static GRWLock registry_lock;

static Entry *
find_entry_locked (GPtrArray *table, const char *name)
{
  for (guint i = 0; table != NULL && i < table->len; i++)
    {
      Entry *e = table->pdata[i];
      if (g_ascii_strcasecmp (e->name, name) == 0)
        return e;
    }
  return NULL;
}

static Entry *
find_entry (GPtrArray *table, const char *name)
{
  Entry *e;

  g_rw_lock_reader_lock (&registry_lock);
  e = find_entry_locked (table, name);
  g_rw_lock_reader_unlock (&registry_lock);
  return e;
}

static void
add_entry (GPtrArray **table, const char *name, const char *description, gpointer info)
{
  Entry *e = g_new (Entry, 1);

  e->name = name;
  e->description = description;
  e->info = info;
  if (*table == NULL)
    *table = g_ptr_array_new ();
  g_ptr_array_add (*table, e);
}

void
sim_policy_register_queue_order (const SimQueueOrderInfo *info)
{
  SimQueueOrderInfo *copy;

  g_return_if_fail (info != NULL && info->name != NULL);
  g_rw_lock_writer_lock (&registry_lock);
  if (find_entry_locked (queue_orders, info->name) != NULL)
    {
      g_rw_lock_writer_unlock (&registry_lock);
      g_critical ("sim_policy_register_queue_order: \"%s\" is registered already", info->name);
      return;
    }
  copy = g_memdup2 (info, sizeof *info);
  add_entry (&queue_orders, copy->name, copy->description, copy);
  g_rw_lock_writer_unlock (&registry_lock);
}

void
sim_policy_register_placement (const SimPlacementInfo *info)
{
  SimPlacementInfo *copy;

  g_return_if_fail (info != NULL && info->name != NULL && info->place != NULL);
  g_rw_lock_writer_lock (&registry_lock);
  if (find_entry_locked (placements, info->name) != NULL)
    {
      g_rw_lock_writer_unlock (&registry_lock);
      g_critical ("sim_policy_register_placement: \"%s\" is registered already", info->name);
      return;
    }
  copy = g_memdup2 (info, sizeof *info);
  add_entry (&placements, copy->name, copy->description, copy);
  g_rw_lock_writer_unlock (&registry_lock);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The names of TABLE, sorted. */
static GPtrArray *
list_names (GPtrArray *table)
{
  GPtrArray *names = g_ptr_array_new ();

  g_rw_lock_reader_lock (&registry_lock);
  for (guint i = 0; table != NULL && i < table->len; i++)
    g_ptr_array_add (names, (gpointer) ((Entry *) table->pdata[i])->name);
  g_rw_lock_reader_unlock (&registry_lock);
  g_ptr_array_sort (names, compare_names);
  return names;
}

/* Whether KEY is among the KEYS of a registered policy part. */
static gboolean
reads_key (const char * const *keys, const char *key)
{
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    if (strcmp (keys[i], key) == 0)
      return TRUE;
  return FALSE;
}

/* Whether the queue order QUEUE or the placement PLACEMENT reads the
 * [policy] key KEY; FALSE for a name that is not registered (yet). */
gboolean
sim__policy_table_reads_key (const char *queue, const char *placement, const char *key)
{
  Entry *q, *p;

  q = queue != NULL ? find_entry (queue_orders, queue) : NULL;
  p = placement != NULL ? find_entry (placements, placement) : NULL;
  return (q != NULL && reads_key (((const SimQueueOrderInfo *) q->info)->keys, key)) ||
         (p != NULL && reads_key (((const SimPlacementInfo *) p->info)->keys, key));
}

static void
free_string (gpointer string)
{
  g_string_free (string, TRUE);
}

/* The [policy] keys the registered queue orders and placements read, each
 * once, in the order of the parts' names (queue orders first): an array of
 * "KEY\tREADER, READER", a reader being "NAME (queue)" or "NAME
 * (placement)".  For the key reference (`gpusim keys policy`). */
GPtrArray *
sim__policy_table_param_readers (void)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  g_autoptr(GHashTable) readers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                          free_string);

  for (guint part = 0; part < 2; part++)
    {
      GPtrArray *table = part == 0 ? queue_orders : placements;
      g_autoptr(GPtrArray) names = list_names (table);
      for (guint i = 0; i < names->len; i++)
        {
          Entry *e = find_entry (table, names->pdata[i]);
          const char * const *keys = part == 0 ? ((const SimQueueOrderInfo *) e->info)->keys
                                               : ((const SimPlacementInfo *) e->info)->keys;
          for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
            {
              GString *who = g_hash_table_lookup (readers, keys[k]);
              if (who == NULL)
                {
                  who = g_string_new (NULL);
                  g_hash_table_insert (readers, (gpointer) keys[k], who);
                  g_ptr_array_add (order, (gpointer) keys[k]);
                }
              g_string_append_printf (who, "%s%s (%s)", who->len ? ", " : "", e->name,
                                      part == 0 ? "queue" : "placement");
            }
        }
    }
  for (guint i = 0; i < order->len; i++)
    {
      const GString *who = g_hash_table_lookup (readers, order->pdata[i]);
      g_ptr_array_add (out, g_strdup_printf ("%s\t%s", (char *) order->pdata[i], who->str));
    }
  return out;
}

/* Looks NAME up in TABLE; on failure sets an error listing the known names
 * and the closest one. */
static gpointer
lookup (GPtrArray *table, const char *what, const char *name, GError **error)
{
  g_autoptr(GPtrArray) names = list_names (table);
  g_autofree char *known = NULL;
  Entry *e = find_entry (table, name);

  if (e != NULL)
    return e->info;
  g_ptr_array_add (names, NULL);
  known = g_strjoinv (", ", (char **) names->pdata);
  g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND, "unknown %s \"%s\"%s (known: %s)", what,
               name, sim__did_you_mean (sim__closest (name, (const char * const *) names->pdata,
                                                      names->len - 1)), known);
  return NULL;
}

GPtrArray *
sim__policy_table_list_queue_orders (void)
{
  return list_names (queue_orders);
}

GPtrArray *
sim__policy_table_list_placements (void)
{
  return list_names (placements);
}

const char *
sim__policy_table_describe (const char *name)
{
  Entry *e = find_entry (queue_orders, name);

  if (e == NULL)
    e = find_entry (placements, name);
  return e != NULL ? e->description : NULL;
}

const SimQueueOrderInfo *
sim__policy_table_find_queue_order (const char *name, GError **error)
{
  return lookup (queue_orders, "queue order", name, error);
}

const SimPlacementInfo *
sim__policy_table_find_placement (const char *name, GError **error)
{
  return lookup (placements, "placement", name, error);
}
