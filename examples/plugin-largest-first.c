/* plugin-largest-first: a scheduling policy built as a loadable plugin.
 *
 * The queue order is "largest first": the job asking for the most GPU
 * capacity (GPUs times thousandths of a GPU) goes first, and jobs of equal
 * size keep their order of arrival.  Jobs are placed with the built-in
 * first-fit.  The pass stops at the first job that does not fit (head-of-
 * line blocking), so a large job is never overtaken by smaller ones.
 *
 * Build it as a shared object and name it in a scenario:
 *
 *   cc -shared -fPIC plugin-largest-first.c $(pkg-config --cflags --libs sim-1.0) \
 *      -o largest-first.so
 *
 *   [policy]
 *   plugin = largest-first.so
 *
 * or compare it with the built-ins:
 *
 *   gpusim compare scenario.ini --policy first-fit --policy ./largest-first.so
 */
#include <sim.h>

#define EXAMPLE_TYPE_LARGEST_FIRST (example_largest_first_get_type ())
G_DECLARE_FINAL_TYPE (ExampleLargestFirst, example_largest_first, EXAMPLE, LARGEST_FIRST,
                      GObject)

struct _ExampleLargestFirst {
  GObject parent_instance;
};

static const char *
largest_first_get_name (SimPolicy *policy)
{
  return "largest-first/first-fit";
}

/* Negative if A goes before B: more GPU capacity first, then earlier
 * arrival.  A total order that never changes while jobs wait. */
static int
largest_first_compare (SimPolicy *policy, const SimJob *a, const SimJob *b)
{
  guint64 size_a = (guint64) a->spec.gpus * a->spec.gpu_milli;
  guint64 size_b = (guint64) b->spec.gpus * b->spec.gpu_milli;

  if (size_a != size_b)
    return size_a > size_b ? -1 : 1;
  return (a->queue_seq > b->queue_seq) - (a->queue_seq < b->queue_seq);
}

static gboolean
largest_first_place (SimPolicy *policy, const SimCluster *cluster, const SimJob *job,
                     SimPlacement *placement)
{
  return sim_place_first_fit (cluster, job, placement);
}

static void
largest_first_iface_init (SimPolicyInterface *iface)
{
  iface->abi_version = SIM_POLICY_ABI_VERSION;
  iface->get_name = largest_first_get_name;
  iface->compare = largest_first_compare;
  iface->place = largest_first_place;
  /* schedule stays NULL: one pass in queue order, head-of-line blocking. */
}

G_DEFINE_FINAL_TYPE_WITH_CODE (ExampleLargestFirst, example_largest_first, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SIM_TYPE_POLICY,
                                                      largest_first_iface_init))

static void
example_largest_first_class_init (ExampleLargestFirstClass *klass)
{
}

static void
example_largest_first_init (ExampleLargestFirst *self)
{
}

/* What gpusim looks up when it loads the file. */
SIM_POLICY_PLUGIN_DEFINE ("largest-first", "most GPUs first (ties by arrival), first-fit",
                          example_largest_first_get_type);
