/* sim-policy-table.c: the tables of named queue orders and placements.
 * The files that define them register them here and the registry
 * (sim-policy-registry.c) reads them from here; this file calls neither, so
 * that a file defining a policy does not depend on the registry that lists
 * it. */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "sim-error.h"
#include "sim-util.h"

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
