/* sim-plugin.h: scheduling policies loaded from shared objects.
 *
 * A policy plugin is a GModule (a shared object built with
 * `libtool -module`, or `cc -shared -fPIC`) that defines a GObject type
 * implementing #SimPolicy and exports one symbol, `gpusim_policy_plugin`,
 * a constant #SimPolicyPluginInfo:
 *
 *   SIM_POLICY_PLUGIN_DEFINE ("largest-first", "most GPUs first, first-fit",
 *                             example_largest_first_get_type);
 *
 * The info struct is stamped with %SIM_POLICY_PLUGIN_ABI_VERSION (as hwloc
 * stamps its components), so a plugin built against another version of
 * gpusim is refused with a message rather than crashing.  The policy
 * type's interface vtable carries its own %SIM_POLICY_ABI_VERSION, checked
 * too.
 *
 * Modules are never unloaded: a registered GType cannot be unregistered,
 * so a loaded module is made resident.  Loading the same file again (by
 * any name that resolves to the same path) reuses the module and returns
 * a new instance of the same type.
 *
 * A scenario names a plugin with `[policy] plugin = path/to/policy.so`.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include <gmodule.h>
#include "sched/sim-policy.h"

G_BEGIN_DECLS

/**
 * SIM_POLICY_PLUGIN_ABI_VERSION:
 *
 * The version of #SimPolicyPluginInfo and of the rules a plugin follows.
 * A plugin must be built with the same value as the library that loads it.
 */
#define SIM_POLICY_PLUGIN_ABI_VERSION 1

/**
 * SIM_POLICY_PLUGIN_SYMBOL:
 *
 * The name of the symbol a plugin exports.
 */
#define SIM_POLICY_PLUGIN_SYMBOL "gpusim_policy_plugin"

/**
 * SimPolicyPluginInfo:
 * @abi_version: %SIM_POLICY_PLUGIN_ABI_VERSION as the plugin was built;
 *   always the first member, whatever the version
 * @name: a short name, e.g. "largest-first"; two plugins of the same name
 *   cannot be loaded from different files
 * @description: one line for listings
 * @get_type: returns the policy's #GType, which must be an instantiable
 *   #GObject type implementing #SimPolicy with a @place method
 *
 * What a plugin exports under the name %SIM_POLICY_PLUGIN_SYMBOL.
 */
typedef struct {
  guint        abi_version;
  const char  *name;
  const char  *description;
  GType      (*get_type) (void);
} SimPolicyPluginInfo;

/**
 * SIM_POLICY_PLUGIN_DEFINE:
 * @name: the plugin's name, a string literal
 * @description: one line, a string literal
 * @get_type: the policy type's get_type function
 *
 * Defines and exports the plugin's #SimPolicyPluginInfo.  Use it once, at
 * file scope, in the plugin.
 */
#define SIM_POLICY_PLUGIN_DEFINE(name, description, get_type)                   \
  G_MODULE_EXPORT extern const SimPolicyPluginInfo gpusim_policy_plugin;        \
  G_MODULE_EXPORT const SimPolicyPluginInfo gpusim_policy_plugin = {            \
    SIM_POLICY_PLUGIN_ABI_VERSION, (name), (description), (get_type)            \
  }

/**
 * sim_policy_load_plugin:
 * @path: a plugin file (a shared object)
 * @error: return location for a #GError
 *
 * Loads the plugin at @path, if it is not loaded yet, and creates an
 * instance of its policy.  Thread-safe.
 *
 * Errors, all naming @path:
 *  - SIM_ERROR_NOT_FOUND: no such file;
 *  - SIM_ERROR_INVALID: not a loadable shared object (with the system's
 *    reason); no `gpusim_policy_plugin` symbol; an ABI version other than
 *    %SIM_POLICY_PLUGIN_ABI_VERSION (both versions are given); a type that
 *    is not an instantiable #GObject implementing #SimPolicy, whose
 *    interface has no @place method or another %SIM_POLICY_ABI_VERSION;
 *    a plugin of the same name already loaded from another file.
 *
 * Returns: (transfer full) (nullable): a new policy.
 */
SimPolicy *sim_policy_load_plugin (const char *path, GError **error);

/**
 * sim_policy_plugin_get_info:
 * @path: a plugin file
 * @error: return location for a #GError
 *
 * Loads the plugin at @path, like sim_policy_load_plugin(), without
 * creating a policy.
 *
 * Errors: as sim_policy_load_plugin().
 *
 * Returns: (transfer none) (nullable): the plugin's info, valid for the
 *   life of the process.
 */
const SimPolicyPluginInfo *sim_policy_plugin_get_info (const char *path, GError **error);

G_END_DECLS
