/* plugin-broken: plugins that gpusim must refuse, for its tests.
 *
 * Built twice: with BROKEN_ABI defined, the exported info claims a plugin
 * ABI version that no gpusim has; with BROKEN_TYPE defined, the ABI is
 * right but the type does not implement SimPolicy.  Neither may be loaded,
 * and neither may crash the program that tries.
 */
#include <sim.h>

#if !defined(BROKEN_ABI) && !defined(BROKEN_TYPE)
#error "Define BROKEN_ABI or BROKEN_TYPE."
#endif

#define EXAMPLE_TYPE_NOT_A_POLICY (example_not_a_policy_get_type ())
G_DECLARE_FINAL_TYPE (ExampleNotAPolicy, example_not_a_policy, EXAMPLE, NOT_A_POLICY, GObject)

struct _ExampleNotAPolicy {
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (ExampleNotAPolicy, example_not_a_policy, G_TYPE_OBJECT)

static void
example_not_a_policy_class_init (ExampleNotAPolicyClass *klass)
{
}

static void
example_not_a_policy_init (ExampleNotAPolicy *self)
{
}

#ifdef BROKEN_ABI
G_MODULE_EXPORT extern const SimPolicyPluginInfo gpusim_policy_plugin;
G_MODULE_EXPORT const SimPolicyPluginInfo gpusim_policy_plugin = {
  SIM_POLICY_PLUGIN_ABI_VERSION + 1000, "broken-abi", "from a future gpusim",
  example_not_a_policy_get_type,
};
#else
SIM_POLICY_PLUGIN_DEFINE ("broken-type", "a type that is not a policy",
                          example_not_a_policy_get_type);
#endif
