/* sim-plan.c: plans of runs, one run, and the results fed back.
 *
 * A plan is built by adding entries, each checked once when added (the
 * policy created, the variant's scenario built); reading a plan back goes
 * through the same calls, so a plan file is checked exactly as the command
 * line is.  Results are flat arrays indexed by run, written only in a run's
 * own slots, so that any number of threads can fill them without locks.
 */
#include "config.h"

#include "study/sim-plan.h"
#include "study/sim-plan-private.h"
#include "report/sim-report.h"
#include "sched/sim-plugin.h"
#include "sched/sim-policy.h"
#include "core/sim-error.h"
#include "scenario/sim-scenario.h"
#include "kernel/sim-simulation.h"
#include "kernel/sim-kernel.h"
#include "core/sim-util.h"
#include "core/sim-read.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static const char * const default_metrics[] = {
  "wait_mean", "wait_p95", "jct_mean", "bounded_slowdown_mean", "gpu_utilization",
  "gpu_activity", "queue_length_mean", "fragmented_gpus_mean", "makespan",
};

typedef struct {
  SimPlanEntryKind kind;
  char  *spec;      /* as given: a policy spec, or the variant's name */
  char  *label;     /* the policy's own name, or the variant's */
  char  *queue;     /* built-in: queue order and placement */
  char  *placement;
  char  *plugin;    /* or a plugin file, absolute */
  GType  type;      /* of the policy this makes */
  GStrv  variant;   /* or a variant's overrides */
} PlanEntry;

struct _SimPlan {
  GObject     parent_instance;

  char       *path;
  char       *scenario_name;
  char       *scenario_queue;
  GStrv       overrides;
  guint64     first_seed;
  guint       n_seeds;
  gboolean    force;
  GPtrArray  *entries;   /* PlanEntry* */
  GPtrArray  *metrics;   /* char* */
  gboolean    default_metrics;
  gboolean    sealed;    /* results exist: no more changes */
  SimPlanReportFunc report_func;  /* called in the worker after each run done */
  gpointer          report_data;
  GDestroyNotify    report_destroy;
};

G_DEFINE_FINAL_TYPE (SimPlan, sim_plan, G_TYPE_OBJECT)

static void
plan_entry_free (gpointer data)
{
  PlanEntry *e = data;

  g_free (e->spec);
  g_free (e->label);
  g_free (e->queue);
  g_free (e->placement);
  g_free (e->plugin);
  g_strfreev (e->variant);
  g_free (e);
}

static void
sim_plan_finalize (GObject *object)
{
  SimPlan *self = SIM_PLAN (object);

  g_free (self->path);
  g_free (self->scenario_name);
  g_free (self->scenario_queue);
  g_strfreev (self->overrides);
  g_ptr_array_unref (self->entries);
  g_ptr_array_unref (self->metrics);
  if (self->report_destroy != NULL)
    self->report_destroy (self->report_data);
  G_OBJECT_CLASS (sim_plan_parent_class)->finalize (object);
}

static void
sim_plan_class_init (SimPlanClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_plan_finalize;
}

static void
sim_plan_init (SimPlan *self)
{
  self->entries = g_ptr_array_new_with_free_func (plan_entry_free);
  self->metrics = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (default_metrics); i++)
    g_ptr_array_add (self->metrics, g_strdup (default_metrics[i]));
  self->default_metrics = TRUE;
  self->n_seeds = 5;
}

SimPlan *
sim_plan_new (const char *scenario_path, const char * const *overrides, GError **error)
{
  g_autoptr(SimScenario) scenario = NULL;
  SimPlan *self;

  g_return_val_if_fail (scenario_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  sim_init ();
  scenario = sim_scenario_load (scenario_path, overrides, error);
  if (scenario == NULL)
    return NULL;
  self = g_object_new (SIM_TYPE_PLAN, NULL);
  self->path = g_strdup (scenario_path);
  self->scenario_name = g_strdup (scenario->name ? scenario->name : scenario_path);
  self->scenario_queue = g_strdup (scenario->queue);
  self->overrides = g_strdupv ((char **) overrides);
  self->first_seed = scenario->seed;
  return self;
}

/* A plugin is named by a path: something with a '/' that ends like a
 * shared object, so "fifo/best-fit" is never taken for a file. */
static gboolean
is_plugin_spec (const char *spec)
{
  return strchr (spec, '/') != NULL &&
         (g_str_has_suffix (spec, ".so") || g_str_has_suffix (spec, "." G_MODULE_SUFFIX));
}

/* An error for a policy spec that names no built-in, listing every name. */
static void
set_unknown_policy_error (const char *spec, const GError *cause, GError **error)
{
  g_autoptr(GPtrArray) orders = sim_policy_list_queue_orders ();
  g_autoptr(GPtrArray) places = sim_policy_list_placements ();
  g_autofree char *known_orders = NULL, *known_places = NULL;

  g_ptr_array_add (orders, NULL);
  g_ptr_array_add (places, NULL);
  known_orders = g_strjoinv (", ", (char **) orders->pdata);
  known_places = g_strjoinv (", ", (char **) places->pdata);
  g_set_error (error, SIM_ERROR, cause->code,
               "policy \"%s\": %s; a policy is QUEUE/PLACEMENT, a PLACEMENT alone or a "
               "plugin file (a path ending in .so); queue orders: %s; placements: %s",
               spec, cause->message, known_orders, known_places);
}

gboolean
sim_plan_add_policy (SimPlan *self, const char *spec, GError **error)
{
  g_autoptr(SimPolicy) policy = NULL;
  g_autoptr(GError) local = NULL;
  PlanEntry *entry;

  g_return_val_if_fail (SIM_IS_PLAN (self), FALSE);
  g_return_val_if_fail (spec != NULL, FALSE);
  g_return_val_if_fail (!self->sealed, FALSE);

  entry = g_new0 (PlanEntry, 1);
  entry->kind = SIM_PLAN_ENTRY_POLICY;
  entry->spec = g_strdup (spec);
  if (is_plugin_spec (spec))
    {
      entry->plugin = g_canonicalize_filename (spec, NULL);
      policy = sim_policy_load_plugin (spec, error);
    }
  else
    {
      const char *slash = strchr (spec, '/');
      if (slash != NULL)
        {
          entry->queue = g_strndup (spec, (gsize) (slash - spec));
          entry->placement = g_strdup (slash + 1);
        }
      else
        {
          entry->queue = g_strdup (self->scenario_queue);
          entry->placement = g_strdup (spec);
        }
      policy = sim_policy_new_builtin (entry->queue, entry->placement, &local);
      if (policy == NULL)
        set_unknown_policy_error (spec, local, error);
    }
  if (policy == NULL)
    {
      plan_entry_free (entry);
      return FALSE;
    }
  entry->label = g_strdup (sim_policy_get_name (policy));
  entry->type = G_OBJECT_TYPE (policy);
  g_ptr_array_add (self->entries, entry);
  return TRUE;
}

/* How much of a variant is checked when it is added: nothing (a sweep's
 * points, checked by the sweep), its keys (a plan read back: the scenario
 * is parsed but no simulation built), or a whole simulation built from it
 * without loading its [policy] plugin (SIM_KERNEL_NO_PLUGIN): a plugin
 * loads when one of its runs starts. */
typedef enum { CHECK_NONE, CHECK_KEYS, CHECK_BUILD } Check;

static gboolean
add_variant (SimPlan *self, const char *name, const char * const *overrides, Check check,
             GError **error)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  g_autoptr(SimScenario) scenario = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  PlanEntry *entry;

  /* Built once here, so that a bad key or value is reported before any run. */
  for (guint i = 0; self->overrides != NULL && self->overrides[i] != NULL; i++)
    g_ptr_array_add (all, self->overrides[i]);
  for (guint i = 0; overrides[i] != NULL; i++)
    g_ptr_array_add (all, (gpointer) overrides[i]);
  g_ptr_array_add (all, NULL);
  if (check != CHECK_NONE)
    {
      scenario = sim_scenario_load (self->path, (const char * const *) all->pdata, error);
      if (scenario == NULL ||
          (check == CHECK_BUILD &&
           (sim = sim__kernel_new (scenario, SIM_KERNEL_NO_PLUGIN, error)) == NULL))
        {
          g_prefix_error (error, "variant \"%s\": ", name);
          return FALSE;
        }
    }
  entry = g_new0 (PlanEntry, 1);
  entry->kind = SIM_PLAN_ENTRY_VARIANT;
  entry->spec = g_strdup (name);
  entry->label = g_strdup (name);
  entry->variant = g_strdupv ((char **) overrides);
  g_ptr_array_add (self->entries, entry);
  return TRUE;
}

gboolean
sim_plan_add_variant (SimPlan *self, const char *name, const char * const *overrides,
                      GError **error)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), FALSE);
  g_return_val_if_fail (name != NULL && overrides != NULL, FALSE);
  g_return_val_if_fail (!self->sealed, FALSE);
  return add_variant (self, name, overrides, CHECK_BUILD, error);
}

void
sim__plan_add_variant_unchecked (SimPlan *self, const char *name, const char * const *overrides)
{
  g_return_if_fail (SIM_IS_PLAN (self));
  g_return_if_fail (name != NULL && overrides != NULL);
  g_return_if_fail (!self->sealed);
  add_variant (self, name, overrides, CHECK_NONE, NULL);
}

void
sim_plan_set_report_func (SimPlan *self, SimPlanReportFunc func, gpointer user_data,
                          GDestroyNotify destroy)
{
  g_return_if_fail (SIM_IS_PLAN (self));
  if (self->report_destroy != NULL)
    self->report_destroy (self->report_data);
  self->report_func = func;
  self->report_data = user_data;
  self->report_destroy = destroy;
}

void
sim_plan_add_metric (SimPlan *self, const char *metric)
{
  g_return_if_fail (SIM_IS_PLAN (self));
  g_return_if_fail (metric != NULL);
  g_return_if_fail (!self->sealed);

  if (self->default_metrics)
    {
      g_ptr_array_set_size (self->metrics, 0);
      self->default_metrics = FALSE;
    }
  g_ptr_array_add (self->metrics, g_strdup (metric));
}

void
sim_plan_set_seeds (SimPlan *self, guint64 first, guint n_seeds)
{
  g_return_if_fail (SIM_IS_PLAN (self));
  g_return_if_fail (n_seeds >= 1);
  g_return_if_fail (!self->sealed);
  self->first_seed = first;
  self->n_seeds = n_seeds;
}

void
sim_plan_set_force (SimPlan *self, gboolean force)
{
  g_return_if_fail (SIM_IS_PLAN (self));
  g_return_if_fail (!self->sealed);
  self->force = force;
}

gboolean
sim_plan_check (SimPlan *self, GError **error)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->entries->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "no policy to compare");
      return FALSE;
    }
  if (self->metrics->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "no metric to compare");
      return FALSE;
    }
  if ((guint64) self->entries->len * self->n_seeds > G_MAXINT / 2 ||
      self->first_seed + self->n_seeds < self->first_seed)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u policies x %u seeds from %" G_GUINT64_FORMAT ": too many runs",
                   self->entries->len, self->n_seeds, self->first_seed);
      return FALSE;
    }
  if (!self->force && (guint64) self->entries->len * self->n_seeds > SIM_PLAN_MAX_RUNS)
    {
      guint64 runs = (guint64) self->entries->len * self->n_seeds;
      /* The results' arrays per run: a state, an error, a unit per metric
       * and a value per metric (sim_plan_results_new()), and the executor's
       * index; the units' text is shared by most runs and left out. */
      guint64 bytes = runs * (32 + 24 * (guint64) self->metrics->len);

      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u %s x %u seeds = %" G_GUINT64_FORMAT " runs: more than %d; their "
                   "results alone would take about %.3g GB and each run simulates the whole "
                   "scenario (use fewer seeds, or --force)", self->entries->len,
                   self->entries->len == 1 ? "entry" : "entries", self->n_seeds, runs,
                   SIM_PLAN_MAX_RUNS, (double) bytes / 1e9);
      return FALSE;
    }
  return TRUE;
}

/* ---- accessors --------------------------------------------------------------- */

const char *
sim_plan_get_scenario_path (SimPlan *self)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), NULL);
  return self->path;
}

const char *
sim_plan_get_scenario_name (SimPlan *self)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), NULL);
  return self->scenario_name;
}

const char * const *
sim_plan_get_overrides (SimPlan *self)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), NULL);
  return (const char * const *) self->overrides;
}

gboolean
sim_plan_get_force (SimPlan *self)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), FALSE);
  return self->force;
}

guint
sim_plan_get_n_entries (SimPlan *self)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), 0);
  return self->entries->len;
}

static const PlanEntry *
get_entry (SimPlan *self, guint entry)
{
  return self->entries->pdata[entry];
}

SimPlanEntryKind
sim_plan_get_entry_kind (SimPlan *self, guint entry)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), SIM_PLAN_ENTRY_POLICY);
  g_return_val_if_fail (entry < self->entries->len, SIM_PLAN_ENTRY_POLICY);
  return get_entry (self, entry)->kind;
}

const char *
sim_plan_get_entry_label (SimPlan *self, guint entry)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), NULL);
  g_return_val_if_fail (entry < self->entries->len, NULL);
  return get_entry (self, entry)->label;
}

const char *
sim_plan_get_entry_spec (SimPlan *self, guint entry)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), NULL);
  g_return_val_if_fail (entry < self->entries->len, NULL);
  return get_entry (self, entry)->spec;
}

guint
sim_plan_get_n_seeds (SimPlan *self)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), 0);
  return self->n_seeds;
}

guint64
sim_plan_get_seed (SimPlan *self, guint index)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), 0);
  g_return_val_if_fail (index < self->n_seeds, 0);
  return self->first_seed + index;
}

guint
sim_plan_get_n_metrics (SimPlan *self)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), 0);
  return self->metrics->len;
}

const char *
sim_plan_get_metric (SimPlan *self, guint metric)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), NULL);
  g_return_val_if_fail (metric < self->metrics->len, NULL);
  return self->metrics->pdata[metric];
}

guint
sim_plan_get_n_runs (SimPlan *self)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), 0);
  return self->entries->len * self->n_seeds;
}

guint
sim_plan_get_run_entry (SimPlan *self, guint run)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), 0);
  g_return_val_if_fail (run < self->entries->len * self->n_seeds, 0);
  return run / self->n_seeds;
}

guint64
sim_plan_get_run_seed (SimPlan *self, guint run)
{
  g_return_val_if_fail (SIM_IS_PLAN (self), 0);
  g_return_val_if_fail (run < self->entries->len * self->n_seeds, 0);
  return self->first_seed + run % self->n_seeds;
}

/* ---- one run ------------------------------------------------------------------- */

char **
sim_plan_dup_run_overrides (SimPlan *self, guint run)
{
  GPtrArray *overrides;
  const PlanEntry *entry;

  g_return_val_if_fail (SIM_IS_PLAN (self), NULL);
  g_return_val_if_fail (run < self->entries->len * self->n_seeds, NULL);

  entry = get_entry (self, run / self->n_seeds);
  overrides = g_ptr_array_new ();
  for (guint i = 0; self->overrides != NULL && self->overrides[i] != NULL; i++)
    g_ptr_array_add (overrides, g_strdup (self->overrides[i]));
  g_ptr_array_add (overrides, g_strdup_printf ("scenario.seed=%" G_GUINT64_FORMAT,
                                               sim_plan_get_run_seed (self, run)));
  for (guint i = 0; entry->variant != NULL && entry->variant[i] != NULL; i++)
    g_ptr_array_add (overrides, g_strdup (entry->variant[i]));
  if (entry->kind == SIM_PLAN_ENTRY_POLICY && entry->plugin == NULL)
    {
      g_ptr_array_add (overrides, g_strdup_printf ("policy.queue=%s", entry->queue));
      g_ptr_array_add (overrides, g_strdup_printf ("policy.placement=%s", entry->placement));
    }
  g_ptr_array_add (overrides, NULL);
  return (char **) g_ptr_array_free (overrides, FALSE);
}

SimSimulation *
sim_plan_build_run (SimPlan *self, guint run, GError **error)
{
  g_auto(GStrv) overrides = NULL;
  g_autoptr(SimScenario) scenario = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  const PlanEntry *entry;

  g_return_val_if_fail (SIM_IS_PLAN (self), NULL);
  g_return_val_if_fail (run < self->entries->len * self->n_seeds, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  entry = get_entry (self, run / self->n_seeds);
  overrides = sim_plan_dup_run_overrides (self, run);
  scenario = sim_scenario_load (self->path, (const char * const *) overrides, error);
  if (scenario == NULL || (sim = sim_simulation_new (scenario, error)) == NULL)
    return NULL;
  /* A plugin replaces the scenario's policy.  A built-in is the one the
   * simulation made from the overrides, with the scenario's [policy] keys
   * and what it knows of the cluster and workload; it is replaced only if
   * the scenario's [policy] made some other kind of policy, which the
   * overrides do not reach. */
  if (entry->kind == SIM_PLAN_ENTRY_POLICY &&
      (entry->plugin != NULL || G_OBJECT_TYPE (sim_simulation_get_policy (sim)) != entry->type))
    {
      g_autoptr(SimPolicy) policy =
        entry->plugin != NULL ? sim_policy_load_plugin (entry->plugin, error)
                              : sim_policy_new_builtin (entry->queue, entry->placement, error);
      if (policy == NULL || !sim_simulation_set_policy (sim, policy, error))
        return NULL;
    }
  sim_simulation_set_force (sim, self->force);
  return g_steal_pointer (&sim);
}

/* ---- equality and JSON ----------------------------------------------------------- */

static gboolean
strv_equal0 (char **a, char **b)
{
  guint na = a ? g_strv_length (a) : 0, nb = b ? g_strv_length (b) : 0;

  if (na != nb)
    return FALSE;
  for (guint i = 0; i < na; i++)
    if (strcmp (a[i], b[i]) != 0)
      return FALSE;
  return TRUE;
}

gboolean
sim_plan_equal (SimPlan *a, SimPlan *b)
{
  g_return_val_if_fail (SIM_IS_PLAN (a) && SIM_IS_PLAN (b), FALSE);

  if (a == b)
    return TRUE;
  if (strcmp (a->path, b->path) != 0 || !strv_equal0 (a->overrides, b->overrides) ||
      a->first_seed != b->first_seed || a->n_seeds != b->n_seeds || a->force != b->force ||
      a->entries->len != b->entries->len || a->metrics->len != b->metrics->len)
    return FALSE;
  for (guint m = 0; m < a->metrics->len; m++)
    if (strcmp (a->metrics->pdata[m], b->metrics->pdata[m]) != 0)
      return FALSE;
  for (guint e = 0; e < a->entries->len; e++)
    {
      const PlanEntry *x = a->entries->pdata[e], *y = b->entries->pdata[e];
      if (x->kind != y->kind || strcmp (x->spec, y->spec) != 0 ||
          strcmp (x->label, y->label) != 0 || g_strcmp0 (x->queue, y->queue) != 0 ||
          g_strcmp0 (x->placement, y->placement) != 0 || g_strcmp0 (x->plugin, y->plugin) != 0 ||
          !strv_equal0 (x->variant, y->variant))
        return FALSE;
    }
  return TRUE;
}

/* N strings of STRV, or all of them up to its NULL if N is -1. */
static void
add_strv (JsonBuilder *b, const char *member, char **strv, gssize n)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_array (b);
  for (gsize i = 0; strv != NULL && (n < 0 ? strv[i] != NULL : i < (gsize) n); i++)
    json_builder_add_string_value (b, strv[i]);
  json_builder_end_array (b);
}

/* Seeds are unsigned 64-bit; JSON readers keep signed 64-bit integers, so
 * a seed is written as the signed integer with the same bits. */
static void
build_plan (SimPlan *self, JsonBuilder *b)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "gpusim_plan");
  json_builder_add_int_value (b, SIM_PLAN_FORMAT_VERSION);
  json_builder_set_member_name (b, "scenario");
  json_builder_add_string_value (b, self->path);
  json_builder_set_member_name (b, "scenario_name");
  json_builder_add_string_value (b, self->scenario_name);
  add_strv (b, "overrides", self->overrides, -1);
  json_builder_set_member_name (b, "seeds");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "first");
  json_builder_add_int_value (b, (gint64) self->first_seed);
  json_builder_set_member_name (b, "count");
  json_builder_add_int_value (b, self->n_seeds);
  json_builder_end_object (b);
  add_strv (b, "metrics", (char **) self->metrics->pdata, self->metrics->len);
  json_builder_set_member_name (b, "force");
  json_builder_add_boolean_value (b, self->force);

  json_builder_set_member_name (b, "entries");
  json_builder_begin_array (b);
  for (guint e = 0; e < self->entries->len; e++)
    {
      const PlanEntry *entry = get_entry (self, e);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "label");
      json_builder_add_string_value (b, entry->label);
      if (entry->kind == SIM_PLAN_ENTRY_POLICY)
        {
          json_builder_set_member_name (b, "policy");
          json_builder_add_string_value (b, entry->spec);
        }
      else
        add_strv (b, "variant", entry->variant, -1);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "runs");
  json_builder_begin_array (b);
  for (guint r = 0; r < sim_plan_get_n_runs (self); r++)
    {
      const PlanEntry *entry = get_entry (self, r / self->n_seeds);
      g_auto(GStrv) overrides = sim_plan_dup_run_overrides (self, r);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "run");
      json_builder_add_int_value (b, r);
      json_builder_set_member_name (b, "entry");
      json_builder_add_int_value (b, r / self->n_seeds);
      json_builder_set_member_name (b, "label");
      json_builder_add_string_value (b, entry->label);
      json_builder_set_member_name (b, "seed");
      json_builder_add_int_value (b, (gint64) sim_plan_get_run_seed (self, r));
      add_strv (b, "overrides", overrides, -1);
      if (entry->plugin != NULL)
        {
          json_builder_set_member_name (b, "plugin");
          json_builder_add_string_value (b, entry->plugin);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static char *
node_to_text (JsonNode *root)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

char *
sim_plan_to_json (SimPlan *self)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (SIM_IS_PLAN (self), NULL);
  build_plan (self, b);
  root = json_builder_get_root (b);
  return node_to_text (root);
}

/* Reading: each helper names the file and the member, and says what was
 * expected.  PATH is the member's place, e.g. "entries[2].policy". */

static gboolean
parse_error (GError **error, const char *origin, const char *path, const char *expected)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: %s: expected %s", origin, path, expected);
  return FALSE;
}

static JsonNode *
member (JsonObject *o, const char *name)
{
  return json_object_has_member (o, name) ? json_object_get_member (o, name) : NULL;
}

static gboolean
get_string (JsonObject *o, const char *name, const char *origin, const char *where,
            const char **out, GError **error)
{
  JsonNode *n = member (o, name);
  g_autofree char *path = g_strdup_printf ("%s%s", where, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return parse_error (error, origin, path, "a string");
  *out = json_node_get_string (n);
  return TRUE;
}

static gboolean
get_int (JsonObject *o, const char *name, const char *origin, const char *where, gint64 *out,
         GError **error)
{
  JsonNode *n = member (o, name);
  g_autofree char *path = g_strdup_printf ("%s%s", where, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return parse_error (error, origin, path, "an integer");
  *out = json_node_get_int (n);
  return TRUE;
}

/* A string array as a NULL-terminated vector of borrowed strings. */
static gboolean
get_strv (JsonObject *o, const char *name, const char *origin, const char *where,
          GPtrArray **out, GError **error)
{
  JsonNode *n = member (o, name);
  g_autofree char *path = g_strdup_printf ("%s%s", where, name);
  JsonArray *a;

  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    return parse_error (error, origin, path, "an array of strings");
  a = json_node_get_array (n);
  *out = g_ptr_array_new ();
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *s = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (s) || json_node_get_value_type (s) != G_TYPE_STRING)
        {
          g_clear_pointer (out, g_ptr_array_unref);
          return parse_error (error, origin, path, "an array of strings");
        }
      g_ptr_array_add (*out, (gpointer) json_node_get_string (s));
    }
  g_ptr_array_add (*out, NULL);
  return TRUE;
}

static JsonNode *
parse_text (const char *text, const char *origin, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local = NULL;

  if (!sim__read_check_text (text, -1, origin, SIM_READ_JSON, error))
    return NULL;
  if (!json_parser_load_from_data (parser, text, -1, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: not JSON: %s", origin,
                   local->message);
      return NULL;
    }
  /* Text of white space alone parses, to no root at all. */
  if (json_parser_get_root (parser) == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: empty: expected a JSON object "
                   "written by gpusim compare", origin);
      return NULL;
    }
  return json_node_ref (json_parser_get_root (parser));
}

/* The plan in object O, checked against the runs it lists. */
static SimPlan *
plan_from_object (JsonObject *o, const char *origin, const char *where, GError **error)
{
  g_autoptr(SimPlan) plan = NULL;
  g_autoptr(GPtrArray) overrides = NULL, metrics = NULL;
  g_autofree char *seeds_where = g_strdup_printf ("%sseeds.", where);
  const char *path;
  gint64 version, first, count;
  JsonNode *n;
  JsonObject *seeds;
  JsonArray *entries, *runs;

  if (!get_int (o, "gpusim_plan", origin, where, &version, error))
    return NULL;
  if (version != SIM_PLAN_FORMAT_VERSION)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: %sgpusim_plan: format version %" G_GINT64_FORMAT
                   ", this gpusim reads version %d", origin, where, version,
                   SIM_PLAN_FORMAT_VERSION);
      return NULL;
    }
  if (!get_string (o, "scenario", origin, where, &path, error) ||
      !get_strv (o, "overrides", origin, where, &overrides, error) ||
      !get_strv (o, "metrics", origin, where, &metrics, error))
    return NULL;
  n = member (o, "seeds");
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    {
      g_autofree char *p = g_strdup_printf ("%sseeds", where);
      parse_error (error, origin, p, "an object {\"first\", \"count\"}");
      return NULL;
    }
  seeds = json_node_get_object (n);
  if (!get_int (seeds, "first", origin, seeds_where, &first, error) ||
      !get_int (seeds, "count", origin, seeds_where, &count, error))
    return NULL;
  if (count < 1 || count > G_MAXINT / 2)
    {
      g_autofree char *p = g_strdup_printf ("%scount", seeds_where);
      parse_error (error, origin, p, "a number of seeds, at least 1");
      return NULL;
    }
  n = member (o, "force");
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    {
      g_autofree char *p = g_strdup_printf ("%sforce", where);
      parse_error (error, origin, p, "true or false");
      return NULL;
    }

  plan = sim_plan_new (path, overrides->len > 1 ? (const char * const *) overrides->pdata : NULL,
                       error);
  if (plan == NULL)
    return NULL;
  sim_plan_set_seeds (plan, (guint64) first, (guint) count);
  sim_plan_set_force (plan, json_node_get_boolean (n));
  /* The list as written, even empty (sim_plan_check() refuses that). */
  g_ptr_array_set_size (plan->metrics, 0);
  plan->default_metrics = FALSE;
  for (guint i = 0; metrics->pdata[i] != NULL; i++)
    sim_plan_add_metric (plan, metrics->pdata[i]);

  n = member (o, "entries");
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    {
      g_autofree char *p = g_strdup_printf ("%sentries", where);
      parse_error (error, origin, p, "an array of entries");
      return NULL;
    }
  entries = json_node_get_array (n);
  for (guint e = 0; e < json_array_get_length (entries); e++)
    {
      JsonNode *en = json_array_get_element (entries, e);
      g_autofree char *ewhere = g_strdup_printf ("%sentries[%u].", where, e);
      JsonObject *eo;
      const char *label, *spec;
      g_autoptr(GPtrArray) variant = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (en))
        {
          g_autofree char *p = g_strdup_printf ("%sentries[%u]", where, e);
          parse_error (error, origin, p, "an object");
          return NULL;
        }
      eo = json_node_get_object (en);
      if (!get_string (eo, "label", origin, ewhere, &label, error))
        return NULL;
      if (json_object_has_member (eo, "policy"))
        {
          if (!get_string (eo, "policy", origin, ewhere, &spec, error))
            return NULL;
          if (is_plugin_spec (spec))
            {
              /* Named by the label written with it: a plugin is code, and
               * reading a plan loads none (its runs do, when they start). */
              PlanEntry *entry = g_new0 (PlanEntry, 1);

              entry->kind = SIM_PLAN_ENTRY_POLICY;
              entry->spec = g_strdup (spec);
              entry->plugin = g_canonicalize_filename (spec, NULL);
              entry->label = g_strdup (label);
              g_ptr_array_add (plan->entries, entry);
            }
          else if (!sim_plan_add_policy (plan, spec, error))
            return NULL;
        }
      else if (json_object_has_member (eo, "variant"))
        {
          if (!get_strv (eo, "variant", origin, ewhere, &variant, error) ||
              !add_variant (plan, label, (const char * const *) variant->pdata, CHECK_KEYS,
                            error))
            return NULL;
        }
      else
        {
          g_autofree char *p = g_strdup_printf ("%sentries[%u]", where, e);
          parse_error (error, origin, p, "a \"policy\" or a \"variant\" member");
          return NULL;
        }
      if (strcmp (label, sim_plan_get_entry_label (plan, e)) != 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%s: %slabel: \"%s\", but the policy is now named \"%s\" (has the "
                       "scenario changed since the plan was written?)", origin, ewhere, label,
                       sim_plan_get_entry_label (plan, e));
          return NULL;
        }
    }

  /* The runs as written must be the runs the plan makes now. */
  n = member (o, "runs");
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    {
      g_autofree char *p = g_strdup_printf ("%sruns", where);
      parse_error (error, origin, p, "an array of runs");
      return NULL;
    }
  runs = json_node_get_array (n);
  if (json_array_get_length (runs) != sim_plan_get_n_runs (plan))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: %sruns: %u runs, but %u entries x %u seeds make %u", origin, where,
                   json_array_get_length (runs), plan->entries->len, plan->n_seeds,
                   sim_plan_get_n_runs (plan));
      return NULL;
    }
  for (guint r = 0; r < json_array_get_length (runs); r++)
    {
      JsonNode *rn = json_array_get_element (runs, r);
      g_autofree char *rwhere = g_strdup_printf ("%sruns[%u].", where, r);
      g_autoptr(GPtrArray) run_overrides = NULL;
      g_auto(GStrv) want = sim_plan_dup_run_overrides (plan, r);
      gint64 index, entry, seed;
      JsonObject *ro;

      if (!JSON_NODE_HOLDS_OBJECT (rn))
        {
          g_autofree char *p = g_strdup_printf ("%sruns[%u]", where, r);
          parse_error (error, origin, p, "an object");
          return NULL;
        }
      ro = json_node_get_object (rn);
      if (!get_int (ro, "run", origin, rwhere, &index, error) ||
          !get_int (ro, "entry", origin, rwhere, &entry, error) ||
          !get_int (ro, "seed", origin, rwhere, &seed, error) ||
          !get_strv (ro, "overrides", origin, rwhere, &run_overrides, error))
        return NULL;
      if (index != r || entry != (gint64) sim_plan_get_run_entry (plan, r) ||
          (guint64) seed != sim_plan_get_run_seed (plan, r) ||
          !strv_equal0 ((char **) run_overrides->pdata, want))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%s: %sruns[%u]: not the run the plan makes (run %u: entry %u, seed %"
                       G_GUINT64_FORMAT "; has the scenario changed since the plan was "
                       "written?)", origin, where, r, r, sim_plan_get_run_entry (plan, r),
                       sim_plan_get_run_seed (plan, r));
          return NULL;
        }
    }
  return g_steal_pointer (&plan);
}

SimPlan *
sim_plan_new_from_json (const char *text, const char *origin, GError **error)
{
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (origin == NULL)
    origin = "plan";
  root = parse_text (text, origin, error);
  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      parse_error (error, origin, "top level", "a plan object");
      return NULL;
    }
  return plan_from_object (json_node_get_object (root), origin, "", error);
}

gboolean
sim_plan_write (SimPlan *self, const char *path, GError **error)
{
  g_autofree char *text = NULL, *line = NULL;

  g_return_val_if_fail (SIM_IS_PLAN (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  text = sim_plan_to_json (self);
  line = g_strconcat (text, "\n", NULL);
  return sim__write_file_atomic (path, line, -1, error);
}

SimPlan *
sim_plan_load (const char *path, GError **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  text = sim__read_file (path, SIM_READ_JSON, NULL, error);
  return text != NULL ? sim_plan_new_from_json (text, path, error) : NULL;
}

/* ------------------------------------------------------------------------- */
/* Results.                                                                   */

struct _SimPlanResults {
  GObject          parent_instance;

  SimPlan         *plan;
  guint            n_runs;
  guint            n_metrics;
  SimPlanRunState *state;   /* [run] */
  double          *values;  /* [run][metric] */
  char          ***units;   /* [run][metric]: the report's units, NULL for none */
  GError         **errors;  /* [run] */
};

G_DEFINE_FINAL_TYPE (SimPlanResults, sim_plan_results, G_TYPE_OBJECT)

/* A run's units: N_METRICS strings, each possibly NULL. */
static char **
units_dup (char * const *units, guint n_metrics)
{
  char **copy;

  if (units == NULL)
    return NULL;
  copy = g_new0 (char *, n_metrics);
  for (guint m = 0; m < n_metrics; m++)
    copy[m] = g_strdup (units[m]);
  return copy;
}

static void
units_free (char **units, guint n_metrics)
{
  if (units == NULL)
    return;
  for (guint m = 0; m < n_metrics; m++)
    g_free (units[m]);
  g_free (units);
}

static gboolean
units_equal (char * const *a, char * const *b, guint n_metrics)
{
  if (a == NULL || b == NULL)
    return a == b;
  for (guint m = 0; m < n_metrics; m++)
    if (g_strcmp0 (a[m], b[m]) != 0)
      return FALSE;
  return TRUE;
}

static void
sim_plan_results_finalize (GObject *object)
{
  SimPlanResults *self = SIM_PLAN_RESULTS (object);

  for (guint r = 0; r < self->n_runs; r++)
    {
      units_free (self->units[r], self->n_metrics);
      g_clear_error (&self->errors[r]);
    }
  g_free (self->state);
  g_free (self->values);
  g_free (self->units);
  g_free (self->errors);
  g_clear_object (&self->plan);
  G_OBJECT_CLASS (sim_plan_results_parent_class)->finalize (object);
}

static void
sim_plan_results_class_init (SimPlanResultsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_plan_results_finalize;
}

static void
sim_plan_results_init (SimPlanResults *self)
{
}

SimPlanResults *
sim_plan_results_new (SimPlan *plan)
{
  SimPlanResults *self;

  g_return_val_if_fail (SIM_IS_PLAN (plan), NULL);

  self = g_object_new (SIM_TYPE_PLAN_RESULTS, NULL);
  plan->sealed = TRUE;
  self->plan = g_object_ref (plan);
  self->n_runs = sim_plan_get_n_runs (plan);
  self->n_metrics = plan->metrics->len;
  self->state = g_new0 (SimPlanRunState, self->n_runs);
  self->values = g_new (double, (gsize) self->n_runs * self->n_metrics);
  for (gsize i = 0; i < (gsize) self->n_runs * self->n_metrics; i++)
    self->values[i] = NAN;
  self->units = g_new0 (char **, self->n_runs);
  self->errors = g_new0 (GError *, self->n_runs);
  return self;
}

SimPlan *
sim_plan_results_get_plan (SimPlanResults *self)
{
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), NULL);
  return self->plan;
}

/* Clears run R back to pending. */
static void
clear_run (SimPlanResults *self, guint r)
{
  self->state[r] = SIM_PLAN_RUN_PENDING;
  units_free (self->units[r], self->n_metrics);
  self->units[r] = NULL;
  g_clear_error (&self->errors[r]);
  for (guint m = 0; m < self->n_metrics; m++)
    self->values[(gsize) r * self->n_metrics + m] = NAN;
}

static void
set_unknown_metric_error (SimReport *report, const char *metric, GError **error)
{
  g_autoptr(GPtrArray) names = sim_report_list_metrics (report);
  g_autofree char *known = NULL;
  const char *closest;

  closest = sim__closest (metric, (const char * const *) names->pdata, names->len);
  g_ptr_array_add (names, NULL);
  known = g_strjoinv (", ", (char **) names->pdata);
  g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND, "unknown metric \"%s\"%s (known: %s)",
               metric, sim__did_you_mean (closest), known);
}

gboolean
sim_plan_results_record_report (SimPlanResults *self, guint run, SimReport *report,
                                GError **error)
{
  g_autofree double *values = NULL;
  char **units;

  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), FALSE);
  g_return_val_if_fail (run < self->n_runs && report != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  values = g_new (double, MAX (self->n_metrics, 1));
  for (guint m = 0; m < self->n_metrics; m++)
    {
      const char *metric = self->plan->metrics->pdata[m];
      if (!sim_report_get_value (report, metric, &values[m]))
        {
          set_unknown_metric_error (report, metric, error);
          return FALSE;
        }
    }
  units = g_new0 (char *, MAX (self->n_metrics, 1));
  for (guint m = 0; m < self->n_metrics; m++)
    units[m] = g_strdup (sim_report_get_unit (report, self->plan->metrics->pdata[m]));
  clear_run (self, run);
  memcpy (self->values + (gsize) run * self->n_metrics, values,
          self->n_metrics * sizeof (double));
  self->units[run] = units;
  self->state[run] = SIM_PLAN_RUN_DONE;
  return TRUE;
}

gboolean
sim_plan_results_record_values (SimPlanResults *self, guint run, const double *values,
                                guint n_values, const char * const *units, GError **error)
{
  char **copy;

  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), FALSE);
  g_return_val_if_fail (run < self->n_runs, FALSE);
  g_return_val_if_fail (values != NULL || n_values == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (n_values != self->n_metrics)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "run %u: %u values, but the plan has %u metrics", run, n_values,
                   self->n_metrics);
      return FALSE;
    }
  copy = g_new0 (char *, MAX (self->n_metrics, 1));
  for (guint m = 0; units != NULL && m < self->n_metrics; m++)
    copy[m] = g_strdup (units[m]);
  clear_run (self, run);
  memcpy (self->values + (gsize) run * self->n_metrics, values,
          self->n_metrics * sizeof (double));
  self->units[run] = copy;
  self->state[run] = SIM_PLAN_RUN_DONE;
  return TRUE;
}

void
sim_plan_results_record_error (SimPlanResults *self, guint run, const GError *error)
{
  g_return_if_fail (SIM_IS_PLAN_RESULTS (self));
  g_return_if_fail (run < self->n_runs && error != NULL);

  clear_run (self, run);
  self->errors[run] = g_error_copy (error);
  self->state[run] = SIM_PLAN_RUN_FAILED;
}

gboolean
sim_plan_execute_run (SimPlan *plan, guint run, SimPlanResults *results)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSimulation) sim = NULL;

  g_return_val_if_fail (SIM_IS_PLAN (plan), FALSE);
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (results) && results->plan == plan, FALSE);
  g_return_val_if_fail (run < results->n_runs, FALSE);

  sim = sim_plan_build_run (plan, run, &error);
  if (sim == NULL || !sim_simulation_run (sim, &error))
    {
      guint entry = sim_plan_get_run_entry (plan, run);
      g_prefix_error (&error, "%s %s, seed %" G_GUINT64_FORMAT ": ",
                      sim_plan_get_entry_kind (plan, entry) == SIM_PLAN_ENTRY_POLICY ?
                      "policy" : "variant", sim_plan_get_entry_label (plan, entry),
                      sim_plan_get_run_seed (plan, run));
      sim_plan_results_record_error (results, run, error);
      return FALSE;
    }
  if (!sim_plan_results_record_report (results, run, sim_simulation_get_report (sim), &error))
    {
      sim_plan_results_record_error (results, run, error);
      return FALSE;
    }
  if (plan->report_func != NULL)
    plan->report_func (plan, run, sim_simulation_get_report (sim), plan->report_data);
  return TRUE;
}

SimPlanRunState
sim_plan_results_get_state (SimPlanResults *self, guint run)
{
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), SIM_PLAN_RUN_PENDING);
  g_return_val_if_fail (run < self->n_runs, SIM_PLAN_RUN_PENDING);
  return self->state[run];
}

double
sim_plan_results_get_value (SimPlanResults *self, guint run, guint metric)
{
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), NAN);
  g_return_val_if_fail (run < self->n_runs && metric < self->n_metrics, NAN);
  return self->values[(gsize) run * self->n_metrics + metric];
}

const GError *
sim_plan_results_get_error (SimPlanResults *self, guint run)
{
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), NULL);
  g_return_val_if_fail (run < self->n_runs, NULL);
  return self->errors[run];
}

const char *
sim_plan_results_get_unit (SimPlanResults *self, guint metric)
{
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), NULL);
  g_return_val_if_fail (metric < self->n_metrics, NULL);
  for (guint r = 0; r < self->n_runs; r++)
    if (self->state[r] == SIM_PLAN_RUN_DONE)
      return self->units[r][metric];
  return NULL;
}

guint
sim_plan_results_get_n_done (SimPlanResults *self)
{
  guint n = 0;

  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), 0);
  for (guint r = 0; r < self->n_runs; r++)
    n += self->state[r] == SIM_PLAN_RUN_DONE;
  return n;
}

double *
sim_plan_results_dup_samples (SimPlanResults *self, guint entry, guint metric,
                              guint *n_samples)
{
  guint n_seeds;
  double *samples;

  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), NULL);
  g_return_val_if_fail (entry < sim_plan_get_n_entries (self->plan), NULL);
  g_return_val_if_fail (metric < self->n_metrics && n_samples != NULL, NULL);

  n_seeds = self->plan->n_seeds;
  samples = g_new (double, n_seeds);
  for (guint s = 0; s < n_seeds; s++)
    samples[s] = self->values[((gsize) entry * n_seeds + s) * self->n_metrics + metric];
  *n_samples = n_seeds;
  return samples;
}

gboolean
sim_plan_results_check (SimPlanResults *self, GError **error)
{
  guint pending = 0, first = 0;

  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint r = 0; r < self->n_runs; r++)
    if (self->state[r] == SIM_PLAN_RUN_FAILED)
      {
        g_propagate_error (error, g_error_copy (self->errors[r]));
        return FALSE;
      }
  for (guint r = self->n_runs; r-- > 0;)
    if (self->state[r] == SIM_PLAN_RUN_PENDING)
      pending++, first = r;
  if (pending > 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%u of %u runs have no result (the first: run %u, %s, seed %"
                   G_GUINT64_FORMAT ")", pending, self->n_runs, first,
                   sim_plan_get_entry_label (self->plan, sim_plan_get_run_entry (self->plan, first)),
                   sim_plan_get_run_seed (self->plan, first));
      return FALSE;
    }
  return TRUE;
}

/* TRUE if run R has the same outcome in A and B (values compared bit for
 * bit, so that NAN equals NAN). */
static gboolean
same_outcome (SimPlanResults *a, SimPlanResults *b, guint r)
{
  if (a->state[r] != b->state[r])
    return FALSE;
  if (a->state[r] == SIM_PLAN_RUN_FAILED)
    return g_error_matches (a->errors[r], b->errors[r]->domain, b->errors[r]->code) &&
           strcmp (a->errors[r]->message, b->errors[r]->message) == 0;
  if (a->state[r] == SIM_PLAN_RUN_DONE)
    return memcmp (a->values + (gsize) r * a->n_metrics, b->values + (gsize) r * b->n_metrics,
                   a->n_metrics * sizeof (double)) == 0 &&
           units_equal (a->units[r], b->units[r], a->n_metrics);
  return TRUE;
}

gboolean
sim_plan_results_merge (SimPlanResults *self, SimPlanResults *other, GError **error)
{
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self) && SIM_IS_PLAN_RESULTS (other), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!sim_plan_equal (self->plan, other->plan))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "results of different plans cannot be merged (scenario %s and %s)",
                   self->plan->path, other->plan->path);
      return FALSE;
    }
  for (guint r = 0; r < self->n_runs; r++)
    if (self->state[r] != SIM_PLAN_RUN_PENDING && other->state[r] != SIM_PLAN_RUN_PENDING &&
        !same_outcome (self, other, r))
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "run %u (%s, seed %" G_GUINT64_FORMAT ") has two different results",
                     r, sim_plan_get_entry_label (self->plan, sim_plan_get_run_entry (self->plan, r)),
                     sim_plan_get_run_seed (self->plan, r));
        return FALSE;
      }
  for (guint r = 0; r < self->n_runs; r++)
    {
      if (other->state[r] == SIM_PLAN_RUN_PENDING || self->state[r] != SIM_PLAN_RUN_PENDING)
        continue;
      self->state[r] = other->state[r];
      self->errors[r] = other->errors[r] ? g_error_copy (other->errors[r]) : NULL;
      self->units[r] = units_dup (other->units[r], self->n_metrics);
      memcpy (self->values + (gsize) r * self->n_metrics,
              other->values + (gsize) r * other->n_metrics, self->n_metrics * sizeof (double));
    }
  return TRUE;
}

char *
sim_plan_results_to_json (SimPlanResults *self)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "gpusim_results");
  json_builder_add_int_value (b, SIM_PLAN_FORMAT_VERSION);
  json_builder_set_member_name (b, "gpusim");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_set_member_name (b, "plan");
  build_plan (self->plan, b);
  json_builder_set_member_name (b, "units");
  json_builder_begin_array (b);
  for (guint m = 0; m < self->n_metrics; m++)
    {
      const char *unit = sim_plan_results_get_unit (self, m);
      if (unit != NULL)
        json_builder_add_string_value (b, unit);
      else
        json_builder_add_null_value (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "runs");
  json_builder_begin_array (b);
  for (guint r = 0; r < self->n_runs; r++)
    {
      if (self->state[r] == SIM_PLAN_RUN_PENDING)
        continue;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "run");
      json_builder_add_int_value (b, r);
      if (self->state[r] == SIM_PLAN_RUN_DONE)
        {
          json_builder_set_member_name (b, "values");
          json_builder_begin_array (b);
          for (guint m = 0; m < self->n_metrics; m++)
            {
              double v = self->values[(gsize) r * self->n_metrics + m];
              if (isfinite (v))
                json_builder_add_double_value (b, v);
              else
                json_builder_add_null_value (b);
            }
          json_builder_end_array (b);
        }
      else
        {
          json_builder_set_member_name (b, "error");
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "domain");
          json_builder_add_string_value (b, g_quark_to_string (self->errors[r]->domain));
          json_builder_set_member_name (b, "code");
          json_builder_add_int_value (b, self->errors[r]->code);
          json_builder_set_member_name (b, "message");
          json_builder_add_string_value (b, self->errors[r]->message);
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return node_to_text (root);
}

/* The values of a done run: one number (or null) per metric. */
static gboolean
read_values (SimPlanResults *self, guint r, JsonNode *n, const char *origin, const char *where,
             GError **error)
{
  JsonArray *a;

  if (!JSON_NODE_HOLDS_ARRAY (n) ||
      json_array_get_length (a = json_node_get_array (n)) != self->n_metrics)
    {
      g_autofree char *what = g_strdup_printf ("an array of %u numbers, one per metric",
                                               self->n_metrics);
      return parse_error (error, origin, where, what);
    }
  for (guint m = 0; m < self->n_metrics; m++)
    {
      JsonNode *v = json_array_get_element (a, m);
      double x;
      if (JSON_NODE_HOLDS_NULL (v))
        x = NAN;
      else if (JSON_NODE_HOLDS_VALUE (v) && (json_node_get_value_type (v) == G_TYPE_DOUBLE ||
                                             json_node_get_value_type (v) == G_TYPE_INT64))
        x = json_node_get_double (v);
      else
        return parse_error (error, origin, where, "numbers (or null)");
      self->values[(gsize) r * self->n_metrics + m] = x;
    }
  return TRUE;
}

SimPlanResults *
sim_plan_results_new_from_json (const char *text, const char *origin, GError **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(SimPlan) plan = NULL;
  g_autoptr(SimPlanResults) self = NULL;
  g_autofree char **units = NULL;  /* borrowed from the JSON */
  JsonObject *o;
  JsonNode *n;
  JsonArray *runs, *ua;
  gint64 version;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (origin == NULL)
    origin = "results";
  root = parse_text (text, origin, error);
  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      parse_error (error, origin, "top level", "a results object");
      return NULL;
    }
  o = json_node_get_object (root);
  if (!get_int (o, "gpusim_results", origin, "", &version, error))
    return NULL;
  if (version != SIM_PLAN_FORMAT_VERSION)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: gpusim_results: format version %" G_GINT64_FORMAT
                   ", this gpusim reads version %d", origin, version, SIM_PLAN_FORMAT_VERSION);
      return NULL;
    }
  n = member (o, "plan");
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    {
      parse_error (error, origin, "plan", "a plan object");
      return NULL;
    }
  plan = plan_from_object (json_node_get_object (n), origin, "plan.", error);
  if (plan == NULL)
    return NULL;
  self = sim_plan_results_new (plan);

  /* Units, one per metric, given to every run read. */
  n = member (o, "units");
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n) ||
      json_array_get_length (ua = json_node_get_array (n)) != self->n_metrics)
    {
      g_autofree char *what = g_strdup_printf ("an array of %u units (strings or null)",
                                               self->n_metrics);
      parse_error (error, origin, "units", what);
      return NULL;
    }
  units = g_new0 (char *, MAX (self->n_metrics, 1));
  for (guint m = 0; m < self->n_metrics; m++)
    {
      JsonNode *u = json_array_get_element (ua, m);
      if (JSON_NODE_HOLDS_NULL (u))
        units[m] = NULL;
      else if (JSON_NODE_HOLDS_VALUE (u) && json_node_get_value_type (u) == G_TYPE_STRING)
        units[m] = (char *) json_node_get_string (u);
      else
        {
          g_autofree char *what = g_strdup_printf ("an array of %u units (strings or null)",
                                                   self->n_metrics);
          parse_error (error, origin, "units", what);
          return NULL;
        }
    }

  n = member (o, "runs");
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    {
      parse_error (error, origin, "runs", "an array of runs");
      return NULL;
    }
  runs = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonNode *rn = json_array_get_element (runs, i);
      g_autofree char *where = g_strdup_printf ("runs[%u].", i);
      JsonObject *ro;
      gint64 r;

      if (!JSON_NODE_HOLDS_OBJECT (rn))
        {
          g_autofree char *p = g_strdup_printf ("runs[%u]", i);
          parse_error (error, origin, p, "an object");
          return NULL;
        }
      ro = json_node_get_object (rn);
      if (!get_int (ro, "run", origin, where, &r, error))
        return NULL;
      if (r < 0 || r >= self->n_runs || self->state[r] != SIM_PLAN_RUN_PENDING)
        {
          g_autofree char *p = g_strdup_printf ("runs[%u].run", i);
          g_autofree char *what = g_strdup_printf ("a run index from 0 to %u, each once",
                                                   self->n_runs - 1);
          parse_error (error, origin, p, what);
          return NULL;
        }
      if ((n = member (ro, "values")) != NULL)
        {
          g_autofree char *p = g_strdup_printf ("runs[%u].values", i);
          if (!read_values (self, (guint) r, n, origin, p, error))
            return NULL;
          self->units[r] = units_dup (units, self->n_metrics);
          self->state[r] = SIM_PLAN_RUN_DONE;
        }
      else if ((n = member (ro, "error")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
        {
          g_autofree char *ewhere = g_strdup_printf ("runs[%u].error.", i);
          JsonObject *eo = json_node_get_object (n);
          const char *domain, *message;
          gint64 code;
          if (!get_string (eo, "domain", origin, ewhere, &domain, error) ||
              !get_int (eo, "code", origin, ewhere, &code, error) ||
              !get_string (eo, "message", origin, ewhere, &message, error))
            return NULL;
          self->errors[r] = g_error_new_literal (g_quark_from_string (domain), (gint) code,
                                                 message);
          self->state[r] = SIM_PLAN_RUN_FAILED;
        }
      else
        {
          g_autofree char *p = g_strdup_printf ("runs[%u]", i);
          parse_error (error, origin, p, "\"values\" or an \"error\" object");
          return NULL;
        }
    }
  return g_steal_pointer (&self);
}

gboolean
sim_plan_results_write (SimPlanResults *self, const char *path, GError **error)
{
  g_autofree char *text = NULL, *line = NULL;

  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  text = sim_plan_results_to_json (self);
  line = g_strconcat (text, "\n", NULL);
  return sim__write_file_atomic (path, line, -1, error);
}

SimPlanResults *
sim_plan_results_load (const char *path, GError **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  text = sim__read_file (path, SIM_READ_JSON, NULL, error);
  return text != NULL ? sim_plan_results_new_from_json (text, path, error) : NULL;
}
