/* sim-plugin.c: loading policy plugins.
 *
 * Loading goes in the order that keeps a bad file from doing harm: the
 * file must exist; it must open as a module (bound lazily and locally, so
 * that its symbols do not leak into later plugins); it must export
 * `gpusim_policy_plugin`; its ABI version, the first member whatever the
 * version, must be ours before any other member is read.  Only then is the
 * module made resident and its get_type called, since that registers a
 * GType, which can never be undone.  The type is then checked: an
 * instantiable GObject implementing SimPolicy, whose interface vtable has
 * a place method and our SIM_POLICY_ABI_VERSION.  Class initialisation runs
 * the plugin's code, so this check comes last.
 *
 * Loaded plugins are kept by resolved path in a process-wide table (under
 * a lock; they are never freed, like the types they registered), so that a
 * second load costs a lookup and a g_object_new().
 */
#include "config.h"

#include "sched/sim-plugin.h"
#include "core/sim-error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char                      *path;   /* resolved */
  GModule                   *module; /* resident */
  const SimPolicyPluginInfo *info;
  GType                      type;
} Plugin;

static GMutex plugins_lock;
static GHashTable *plugins_by_path; /* resolved path -> Plugin* */
static GHashTable *plugins_by_name; /* info->name -> Plugin* */

/* The path with symbolic links, "." and ".." resolved, so that every name
 * of one file finds the same entry; NULL (errno set) if it does not exist. */
static char *
resolve_path (const char *path)
{
#ifdef G_OS_UNIX
  char *resolved = realpath (path, NULL);
  char *copy;

  if (resolved == NULL)
    return NULL;
  copy = g_strdup (resolved);
  free (resolved);
  return copy;
#else
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      errno = ENOENT;
      return NULL;
    }
  return g_canonicalize_filename (path, NULL);
#endif
}

/* Checks the type a plugin registered (class initialisation included). */
static gboolean
check_type (const char *path, const SimPolicyPluginInfo *info, GType type, GError **error)
{
  gpointer klass;
  const SimPolicyInterface *iface;

  if (type == G_TYPE_INVALID)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: plugin \"%s\": get_type() returned no type (is a type of the same "
                   "name registered already?)", path, info->name);
      return FALSE;
    }
  if (!g_type_is_a (type, G_TYPE_OBJECT) || !G_TYPE_IS_INSTANTIATABLE (type) ||
      G_TYPE_IS_ABSTRACT (type) || !g_type_is_a (type, SIM_TYPE_POLICY))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: plugin \"%s\": type %s is not an instantiable GObject implementing "
                   "SimPolicy", path, info->name, g_type_name (type));
      return FALSE;
    }
  klass = g_type_class_ref (type);
  iface = g_type_interface_peek (klass, SIM_TYPE_POLICY);
  if (iface->abi_version != SIM_POLICY_ABI_VERSION)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: plugin \"%s\": type %s implements SimPolicy version %u, but this "
                   "gpusim has version %u (set abi_version = SIM_POLICY_ABI_VERSION in the "
                   "interface init function and rebuild)",
                   path, info->name, g_type_name (type), iface->abi_version,
                   SIM_POLICY_ABI_VERSION);
      g_type_class_unref (klass);
      return FALSE;
    }
  if (iface->place == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: plugin \"%s\": type %s has no place method", path, info->name,
                   g_type_name (type));
      g_type_class_unref (klass);
      return FALSE;
    }
  /* The class stays referenced, as the type stays registered: instances
   * are created often, and the class need not be rebuilt each time. */
  return TRUE;
}

/* Opens and checks the plugin at RESOLVED, named PATH in messages; called
 * with the lock held. */
static Plugin *
open_plugin (const char *resolved, const char *path, GError **error)
{
  g_autoptr(GError) local_error = NULL;
  GModule *module;
  gpointer symbol = NULL;
  const SimPolicyPluginInfo *info;
  Plugin *plugin, *same_name;
  GType type;

  module = g_module_open_full (resolved, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL, &local_error);
  if (module == NULL)
    {
      /* The system's reason usually starts with the file name again. */
      const char *reason = local_error->message;
      gsize len = strlen (resolved);
      if (strncmp (reason, resolved, len) == 0 && reason[len] == ':')
        reason += len + 1 + (reason[len + 1] == ' ');
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: not a loadable shared object: %s", path, reason);
      return NULL;
    }
  if (!g_module_symbol (module, SIM_POLICY_PLUGIN_SYMBOL, &symbol) || symbol == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: not a gpusim policy plugin: it does not export the symbol \"%s\"",
                   path, SIM_POLICY_PLUGIN_SYMBOL);
      g_module_close (module);
      return NULL;
    }
  info = symbol;
  if (info->abi_version != SIM_POLICY_PLUGIN_ABI_VERSION)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: plugin ABI version %u, but this gpusim loads version %u: rebuild the "
                   "plugin against this gpusim", path, info->abi_version,
                   SIM_POLICY_PLUGIN_ABI_VERSION);
      g_module_close (module);
      return NULL;
    }
  if (info->name == NULL || info->name[0] == '\0' || info->get_type == NULL ||
      !g_utf8_validate (info->name, -1, NULL) ||
      (info->description != NULL && !g_utf8_validate (info->description, -1, NULL)))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: the plugin's %s has no name or no get_type function", path,
                   SIM_POLICY_PLUGIN_SYMBOL);
      g_module_close (module);
      return NULL;
    }
  same_name = plugins_by_name ? g_hash_table_lookup (plugins_by_name, info->name) : NULL;
  if (same_name != NULL)
    {
      /* Its get_type would try to register a type name taken already. */
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: a plugin named \"%s\" is loaded already, from %s", path, info->name,
                   same_name->path);
      g_module_close (module);
      return NULL;
    }

  /* From here on the module's code runs and may register types: it stays. */
  g_module_make_resident (module);
  type = info->get_type ();
  if (!check_type (path, info, type, error))
    {
      g_module_close (module); /* drops our reference; the module stays mapped */
      return NULL;
    }

  plugin = g_new0 (Plugin, 1);
  plugin->path = g_strdup (resolved);
  plugin->module = module;
  plugin->info = info;
  plugin->type = type;
  if (plugins_by_path == NULL)
    {
      plugins_by_path = g_hash_table_new (g_str_hash, g_str_equal);
      plugins_by_name = g_hash_table_new (g_str_hash, g_str_equal);
    }
  g_hash_table_insert (plugins_by_path, plugin->path, plugin);
  g_hash_table_insert (plugins_by_name, (gpointer) info->name, plugin);
  return plugin;
}

static Plugin *
get_plugin (const char *path, GError **error)
{
  g_autofree char *resolved = NULL;
  Plugin *plugin = NULL;

  resolved = resolve_path (path);
  if (resolved == NULL)
    {
      int saved = errno;
      g_set_error (error, SIM_ERROR, saved == ENOENT || saved == ENOTDIR ? SIM_ERROR_NOT_FOUND
                                                                        : SIM_ERROR_IO,
                   "%s: cannot open the policy plugin: %s", path, g_strerror (saved));
      return NULL;
    }
  if (!g_file_test (resolved, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: not a loadable shared object: not a regular file", path);
      return NULL;
    }

  g_mutex_lock (&plugins_lock);
  if (plugins_by_path != NULL)
    plugin = g_hash_table_lookup (plugins_by_path, resolved);
  if (plugin == NULL)
    plugin = open_plugin (resolved, path, error);
  g_mutex_unlock (&plugins_lock);
  return plugin;
}

const SimPolicyPluginInfo *
sim_policy_plugin_get_info (const char *path, GError **error)
{
  Plugin *plugin;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  plugin = get_plugin (path, error);
  return plugin ? plugin->info : NULL;
}

SimPolicy *
sim_policy_load_plugin (const char *path, GError **error)
{
  Plugin *plugin;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  plugin = get_plugin (path, error);
  if (plugin == NULL)
    return NULL;
  return g_object_new (plugin->type, NULL);
}
