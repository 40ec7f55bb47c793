/* check-keys.c: the key tables of the scenario sections (sim-keys.h).
 *
 * What it checks:
 *  - every table is well formed: names unique and in lower case, a line of
 *    documentation per key, a required key without a default, every default
 *    that the generic reader applies parses with the key's own parser;
 *  - the [fabric] defaults the table describes (no switch, the node model's
 *    link, no cable length) are what the builder does without the keys;
 *  - the defaults the tables apply are the documented constants of the
 *    models (SIM_POWER_*_DEFAULT, the power manager's and facility limit's
 *    documented defaults, the RL environment's SIM_RL_DEFAULT_*, the
 *    sharing and MIG defaults, the scenario's seed, policy and outputs),
 *    each written out here from its header;
 *  - for every key of every section that a run reads and whose default is
 *    a value, writing "key = DEFAULT" in a small scenario that has the
 *    section gives the same run, to the byte of its summary, as leaving
 *    the key out: the default a table documents is the one the reader
 *    applies;
 *  - a misspelt key in every section (a letter doubled) is refused with
 *    SIM_ERROR_UNKNOWN_KEY, naming the file, the line the test wrote it
 *    on, the section and the key, and suggesting the key it misspells
 *    (the expectation is the key the test misspelt; keys with another key
 *    as close by an edit distance computed here are left out);
 *  - [sweep] foo and a misspelt [policy] moldable_efficiency are refused
 *    with their suggestion, while a parameter a built-in policy reads
 *    still passes;
 *  - sim_scenario_dup_key_reference(): a section lists its keys, [policy]
 *    also the keys the built-in policies read, and an unknown section is
 *    SIM_ERROR_NOT_FOUND with a suggestion.
 * What it does not check: what each key does to a run (each module's
 * suite does), the layout of the printed reference beyond its key names
 * (tests/test-keys.sh holds docs/keys.md to it).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <sim.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim-keys.h"
#include "power/sim-power.h"
#include "power/sim-power-config.h"
#include "rl/sim-rl-env.h"
#include "cluster/sim-sharing.h"
#include "cluster/sim-mig.h"
#include "power/sim-cost.h"
#include "power/sim-elastic.h"
#include "failures/sim-failures-private.h"
#include "rl/sim-rl-config.h"
#include "power/sim-cost-private.h"
#include "fabric/sim-topology-private.h"
#include "sweep/sim-sweep-private.h"
#include "scenario/sim-scenario-private.h"

/* The Levenshtein distance, written here so that the suggestion test does
 * not lean on the library's own (sim__edit_distance). */
static guint
distance (const char *a, const char *b)
{
  gsize n = strlen (a), m = strlen (b);
  g_autofree guint *row = g_new (guint, m + 1);

  for (gsize j = 0; j <= m; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= n; i++)
    {
      guint diag = row[0];
      row[0] = (guint) i;
      for (gsize j = 1; j <= m; j++)
        {
          guint up = row[j];
          guint best = MIN (row[j] + 1, row[j - 1] + 1);
          row[j] = MIN (best, diag + (a[i - 1] == b[j - 1] ? 0 : 1));
          diag = up;
        }
    }
  return row[m];
}

static const SimKeyTable * const *
tables (guint *n)
{
  return sim__scenario_key_tables (n);
}

static const SimKeyTable *
table_of (const char *section)
{
  guint n;
  const SimKeyTable * const *t = tables (&n);

  for (guint i = 0; i < n; i++)
    if (strcmp (t[i]->section, section) == 0)
      return t[i];
  ck_abort_msg ("no table for [%s]", section);
  return NULL;
}

START_TEST (test_tables_well_formed)
{
  guint n, total = 0;
  const SimKeyTable * const *t = tables (&n);

  ck_assert_uint_ge (n, 20);
  for (guint i = 0; i < n; i++)
    {
      ck_assert_msg (t[i]->doc != NULL && *t[i]->doc != '\0', "[%s] has no doc",
                     t[i]->section);
      for (guint j = i + 1; j < n; j++)
        ck_assert_str_ne (t[i]->section, t[j]->section);
      for (guint k = 0; k < t[i]->n_keys; k++)
        {
          const SimKey *key = &t[i]->keys[k];
          const char *where = t[i]->section;

          total++;
          ck_assert_msg (g_regex_match_simple ("^[a-z][a-z0-9_]*$", key->name, 0, 0),
                         "[%s] %s: not a key name", where, key->name);
          ck_assert_msg (key->doc != NULL && *key->doc != '\0', "[%s] %s: no doc", where,
                         key->name);
          ck_assert_msg (!g_str_has_suffix (key->doc, "."), "[%s] %s: doc ends with a stop",
                         where, key->name);
          ck_assert_msg ((guint) key->type < SIM_KEY_N_TYPES, "[%s] %s", where, key->name);
          ck_assert_msg (!((key->flags & SIM_KEY_REQUIRED) && key->def != NULL),
                         "[%s] %s: required with a default", where, key->name);
          for (guint l = k + 1; l < t[i]->n_keys; l++)
            ck_assert_msg (strcmp (key->name, t[i]->keys[l].name) != 0, "[%s] %s twice",
                           where, key->name);
          if (key->parse != NULL && key->def != NULL &&
              !(key->flags & SIM_KEY_DEFAULT_DESCRIBED))
            {
              guint8 scratch[64] = { 0 };
              g_autoptr(GError) error = NULL;
              ck_assert_msg (key->parse (key->def, scratch, &error), "[%s] %s: \"%s\": %s",
                             where, key->name, key->def, error ? error->message : "");
              /* A text key's parser keeps a copy of the text. */
              if (key->type == SIM_KEY_STRING)
                g_free (*(char **) (void *) scratch);
            }
        }
    }
  /* Every section of the scenario files holds keys but [variant NAME],
   * whose keys are other sections'. */
  ck_assert_uint_ge (total, 150);
}
END_TEST

START_TEST (test_defaults_are_the_models)
{
  SimPowerConfig pc, init;
  SimPowerManagerConfig pm;
  SimFacilityConfig fc;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  SimTime t;
  double v;

  /* [power]: the table's defaults over zeroes give the model's constants
   * (power/sim-power.h) and agree with sim_power_config_init(). */
  memset (&pc, 0, sizeof pc);
  sim__keys_apply_defaults (&sim__power_key_table, &pc);
  ck_assert (pc.clock_exponent == SIM_POWER_CLOCK_EXPONENT_DEFAULT);
  ck_assert (pc.clock_exponent == 3.0);
  ck_assert (pc.memory_power == SIM_POWER_MEMORY_POWER_DEFAULT);
  ck_assert (pc.memory_power == 0.5);
  ck_assert (pc.clock_limit == 1.0);
  ck_assert (pc.electrical_efficiency == SIM_POWER_ELECTRICAL_EFFICIENCY_DEFAULT);
  ck_assert (pc.electrical_efficiency == 0.95);
  ck_assert_int_eq (pc.wake_time, 0);
  sim_power_config_init (&init);
  ck_assert (init.clock_exponent == pc.clock_exponent);
  ck_assert (init.memory_power == pc.memory_power);
  ck_assert (init.clock_limit == pc.clock_limit);
  ck_assert (init.electrical_efficiency == pc.electrical_efficiency);

  /* [power_manager]: "off, threshold 50 %, low cap 150 W, hold 5 min,
   * raise at once, with a baseline run" (sim-scenario.h). */
  sim_power_manager_config_init (&pm);
  ck_assert (!pm.present && !pm.enabled);
  ck_assert (pm.threshold == 0.5);
  ck_assert (pm.low_cap_w == 150);
  ck_assert_int_eq (pm.hold, 5 * SIM_MINUTE);
  ck_assert_int_eq (pm.raise_after, 0);
  ck_assert (pm.baseline);

  /* [facility]: "no limit, cap mode, lowest cap 30 % of TDP, with a
   * baseline run". */
  sim_facility_config_init (&fc);
  ck_assert (!fc.present);
  ck_assert (fc.max_power_w == 0);
  ck_assert_int_eq (fc.limit_mode, SIM_FACILITY_LIMIT_CAP);
  ck_assert (fc.min_cap_share == 0.3);
  ck_assert (fc.baseline);

  /* [cost], [elastic], [serverless], [failures]: the modules' own setters
   * apply the tables' defaults; these are the figures their headers and
   * models/SOURCES.md give (five years of amortization, 10 min and 60 s
   * for Kubernetes' scale-down and EC2's minimum bill). */
  {
    SimCostConfig cost;
    SimElasticConfig elastic;
    SimServerlessConfig serverless;
    SimFailureParams failures;

    sim_cost_config_init (&cost);
    ck_assert (!cost.enabled);
    ck_assert_int_eq (cost.amortization, SIM_COST_DEFAULT_AMORTIZATION);
    ck_assert_int_eq (cost.amortization, (SimTime) 5 * 36525 * 864 * SIM_SECOND);
    ck_assert_int_eq (cost.capacity_basis, SIM_COST_CAPACITY_RATED);
    ck_assert (cost.energy_price == 0 && cost.maintenance == 0 && cost.start_weekday == 0);
    sim_cost_config_clear (&cost);

    sim__elastic_config_init (&elastic);
    ck_assert (!elastic.enabled);
    ck_assert_int_eq (elastic.scale_down_delay, 10 * SIM_MINUTE);
    ck_assert_int_eq (elastic.min_billing, 60 * SIM_SECOND);
    ck_assert_uint_eq (elastic.step, 1);
    sim__elastic_config_clear (&elastic);

    sim__serverless_config_init (&serverless);
    ck_assert (!serverless.enabled);
    ck_assert (serverless.bill_cold_start);
    ck_assert_int_eq (serverless.keep_warm, 0);
    ck_assert_uint_eq (serverless.max_gpus, 0);

    sim__failure_params_init (&failures);
    ck_assert (!failures.manual);
    ck_assert_int_eq (failures.repair_dist, SIM_REPAIR_LOGNORMAL);
    ck_assert (failures.repair_sigma == 1.0);
    ck_assert_uint_eq (failures.spares, 0);
    ck_assert_ptr_null (failures.profile);
    sim__failure_params_clear (&failures);
  }

  /* [rl]: the environment applies its own defaults; the table documents
   * them (sim-rl-env.h). */
  ck_assert_int_eq (atoi (sim__keys_find (&sim__rl_key_table, "window")->def),
                    SIM_RL_DEFAULT_WINDOW);
  ck_assert_int_eq (atoi (sim__keys_find (&sim__rl_key_table, "node_slots")->def),
                    SIM_RL_DEFAULT_SLOTS);

  /* [cluster], read by the scenario's own code: its documented defaults are
   * the sharing and MIG constants (cluster/sim-sharing.h, sim-mig.h). */
  ck_assert (sim_parse_number (sim__keys_find (table_of ("cluster"), "timeslice_overhead")->def,
                               0, 1, &v, NULL));
  ck_assert (v == SIM_SHARING_TIMESLICE_OVERHEAD_DEFAULT);
  ck_assert (sim_parse_number (sim__keys_find (table_of ("cluster"), "mps_overhead")->def, 0, 1,
                               &v, NULL));
  ck_assert (v == SIM_SHARING_MPS_OVERHEAD_DEFAULT);
  ck_assert (sim_parse_duration (sim__keys_find (table_of ("cluster"),
                                                 "mig_reconfigure_time")->def, &t, NULL));
  ck_assert_int_eq (t, SIM_MIG_RECONFIGURE_TIME_DEFAULT);

  /* [cooling] without the section: the table's outdoor defaults. */
  sc = sim_scenario_load_from_data ("[scenario]\nname = c\n[pool a]\nmodel = DGX-H100\n"
                                    "count = 1\n[workload]\nrate = 1/h\njobs = 1\ngpus = 1\n"
                                    "duration = exponential(mean=1h)\n", -1, "c.ini", NULL,
                                    NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  /* The sections read through their tables, absent: the defaults the
   * headers document (sim-sharing.h, sim-mig.h, sim-scenario.h). */
  ck_assert_uint_eq (sc->seed, 1);
  ck_assert_str_eq (sc->queue, "fifo");
  ck_assert_str_eq (sc->placement, "first-fit");
  ck_assert_int_eq (sc->sched_interval, 0);
  ck_assert (sc->moldable_efficiency == 0);
  ck_assert_int_eq (sc->sample_interval, SIM_HOUR);
  ck_assert (sc->write_jobs && sc->write_timeseries);
  ck_assert_int_eq (sc->sharing.mode, SIM_SHARING_TIME_SLICE);
  ck_assert (sc->sharing.timeslice_overhead == SIM_SHARING_TIMESLICE_OVERHEAD_DEFAULT);
  ck_assert (sc->sharing.mps_overhead == SIM_SHARING_MPS_OVERHEAD_DEFAULT);
  ck_assert_int_eq (sc->mig_reconfigure_time, SIM_MIG_RECONFIGURE_TIME_DEFAULT);
  ck_assert_str_eq (sc->cooling.model, "air");
  ck_assert (sc->cooling.outdoor_c == 25);
  ck_assert (sc->cooling.warmest_day == 200);
  ck_assert_int_eq (sc->cooling.step, SIM_HOUR);
  ck_assert (isnan (sc->cooling.crah_fan));
}
END_TEST

/* [fabric]: the defaults the table describes are what the builder does
 * with the key left out (SimFabricConfig, sim-topology.h): no switch model
 * needs a radix, and the switches then take the NIC link's port speed and
 * no latency; no link model gives every NIC, and the links between
 * switches, the node model's nic_link; no cable length adds no
 * propagation to a hop and buys the cable as "unspecified". */
START_TEST (test_fabric_defaults_are_the_builders)
{
  const SimKeyTable *table = table_of ("fabric");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) catalogue = sim_catalogue_new_default (NULL, &error);
  g_autoptr(SimCluster) cluster = sim_cluster_new ();
  g_autoptr(SimTopology) topology = NULL;
  g_autoptr(GArray) cables = NULL;
  g_auto(SimFabricConfig) config = { 0 };
  const SimNodeModel *m;
  guint n_network = 0;

  ck_assert_ptr_null (sim__keys_find (table, "switch")->def);
  ck_assert_str_eq (sim__keys_find (table, "link")->def, "node model's");
  ck_assert_ptr_null (sim__keys_find (table, "access_cable_length")->def);
  ck_assert_ptr_null (sim__keys_find (table, "cable_length")->def);

  ck_assert_msg (catalogue != NULL, "%s", error ? error->message : "");
  m = sim_catalogue_lookup_node (catalogue, "DGX-H100");
  ck_assert (m != NULL && m->nic_link != NULL);
  ck_assert (sim_cluster_add_pool (cluster, "a", m, NULL, 0, 8, &error));
  ck_assert (sim_fabric_config_set (&config, "topology", "fat-tree", &error));

  /* Neither a switch nor a radix: refused, naming both. */
  topology = sim_topology_new (cluster, catalogue, &config, &error);
  ck_assert_ptr_null (topology);
  ck_assert_msg (strstr (error->message, "switch") && strstr (error->message, "radix"), "%s",
                 error->message);
  g_clear_error (&error);

  ck_assert (sim_fabric_config_set (&config, "radix", "64", &error));
  topology = sim_topology_new (cluster, catalogue, &config, &error);
  ck_assert_msg (topology != NULL, "%s", error ? error->message : "");
  for (guint l = 0; l < sim_topology_get_n_links (topology); l++)
    {
      const SimLink *k = sim_topology_get_link (topology, l);

      if (k->tier == SIM_TIER_INTRA)
        continue;
      n_network++;
      ck_assert_str_eq (k->model, m->nic_link->name);
      ck_assert (k->bandwidth == m->nic_link->bandwidth);
      ck_assert_int_eq (k->latency, m->nic_link->latency_ns);
    }
  ck_assert_uint_eq (n_network, 128);
  for (guint v = 0; v < sim_topology_get_n_vertices (topology); v++)
    if (sim_topology_get_vertex_kind (topology, v) == SIM_VERTEX_LEAF
        || sim_topology_get_vertex_kind (topology, v) == SIM_VERTEX_SPINE)
      ck_assert_int_eq (sim_topology_get_vertex_latency (topology, v), 0);
  cables = sim_topology_get_cables (topology, &config);
  ck_assert_uint_eq (cables->len, 128);
  for (guint i = 0; i < cables->len; i++)
    ck_assert (g_array_index (cables, SimCable, i).length_m == 0);
  ck_assert_str_eq (sim_cable_length_class (0), "unspecified");
}
END_TEST

/* A scenario small enough to run in milliseconds.  Its [workload] has a
 * communication profile, so that the profile's keys can be set alone, and
 * a network to carry it. */
static const char base_text[] =
  "[scenario]\n"
  "name = keys\n"
  "seed = 3\n"
  "[pool a]\n"
  "model = DGX-H100\n"
  "count = 2\n"
  "[workload]\n"
  "rate = 6/h\n"
  "jobs = 12\n"
  "gpus = 1:0.5, 8:0.5\n"
  "duration = exponential(mean=30min)\n"
  "iteration = 100ms\n"
  "[fabric]\n"
  "topology = single-switch\n"
  "switch = Quantum-2-QM9700\n";

/* Trace sources, for the keys that apply to them alone (the fixtures of
 * tests/data). */
static const char swf_text[] =
  "[scenario]\n"
  "name = keys\n"
  "[pool a]\n"
  "model = DGX-H100\n"
  "count = 4\n"
  "[workload]\n"
  "source = swf\n"
  "trace = nasa-ipsc-excerpt.swf\n";

static const char pai_text[] =
  "[scenario]\n"
  "name = keys\n"
  "[pool pai]\n"
  "from = pai-machines:pai-machine-spec-excerpt.csv\n"
  "misc_gpu = A10\n"
  "[workload]\n"
  "source = pai\n"
  "trace = pai-job-table.csv\n"
  "task_table = pai-task-table.csv\n";

/* What a section needs besides the base to be read by a run, and the
 * group its keys go in; ONLY, the keys that need this context (a trace
 * source), which the section's other contexts leave out. */
typedef struct {
  const char *section;
  const char *group;
  const char *context;
  const char *base;
  const char *only;
} Context;

static const Context contexts[] = {
  { "scenario", "scenario", "", NULL, NULL },
  { "pool", "pool a", "", NULL, NULL },
  { "workload", "workload", "", NULL, NULL },
  { "cluster", "cluster", "[cluster]\n", NULL, NULL },
  { "class", "class b", "[class b]\nshare = 1\niteration = 50ms\n", NULL, NULL },
  { "comm", "comm x", "[comm x]\niteration = 1s\n", NULL, NULL },
  { "policy", "policy", "[policy]\n", NULL, NULL },
  { "output", "output", "[output]\n", NULL, NULL },
  { "fabric", "fabric", "", NULL, NULL },
  { "cost", "cost", "[cost]\n", NULL, NULL },
  { "power", "power", "[power]\n", NULL, NULL },
  { "cooling", "cooling", "[power]\n[cooling]\n", NULL, NULL },
  { "power_manager", "power_manager", "[power]\n[power_manager]\n", NULL, NULL },
  { "facility", "facility", "[power]\n[facility]\nmax_power = 1MW\n", NULL, NULL },
  { "elastic", "elastic",
    "[pool cloud]\nmodel = DGX-H100\ncount = 2\n"
    "[elastic]\npool = cloud\nstartup = 3min\nprice_per_node_hour = 10\n", NULL, NULL },
  { "serverless", "serverless",
    "[class b]\nshare = 1\n[class f]\nshare = 1\ngpus = 1\nserverless = true\n"
    "[serverless]\ncold_start = 20s\nprice_per_gpu_second = 0.001\n", NULL, NULL },
  /* Failures every few hours, so that the keys that handle them matter. */
  { "failures", "failures",
    "[failures]\ngpu_mtbf = 20h\nnode_mtbf = 20h\nsoftware_mtbf = 10h\nleaf_mtbf = 10h\n",
    NULL, NULL },
  { "llm", "llm m",
    "[llm m]\nlayers = 2\nhidden = 64\nffn_hidden = 256\nheads = 4\nvocab = 100\n"
    "seq_length = 64\n", NULL, NULL },
  { "serving", "serving s", "[serving s]\nmodel = llama3-8b\nrequests = q\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n", NULL, NULL },
  { "requests", "requests q", "[serving s]\nmodel = llama3-8b\nrequests = q\n[requests q]\n"
    "rate = 1/s\ninput_tokens = 10\noutput_tokens = 10\n", NULL, NULL },
  { "workload", "workload", "", swf_text,
    "processors_per_gpu skip_invalid rebase_time reorder_window variation" },
  { "workload", "workload", "", pai_text, "pai_tasks" },
};

/* Whether KEY is a word of the space-separated LIST. */
static gboolean
in_list (const char *list, const char *key)
{
  g_auto(GStrv) words = g_strsplit (list, " ", -1);

  return g_strv_contains ((const char * const *) words, key);
}

/* Whether the key KEY of SECTION is tested in CTX. */
static gboolean
tested_in (const Context *ctx, const char *key)
{
  if (ctx->only != NULL)
    return in_list (ctx->only, key);
  for (guint c = 0; c < G_N_ELEMENTS (contexts); c++)
    if (contexts[c].only != NULL && strcmp (contexts[c].section, ctx->section) == 0 &&
        in_list (contexts[c].only, key))
      return FALSE;
  return TRUE;
}

/* BASE (NULL: base_text) and CONTEXT with "KEY = VALUE" as the first line
 * of GROUP, or
 * NULL if GROUP holds KEY already; *LINE: the line it is on. */
static char *
with_key (const char *base, const char *context, const char *group, const char *key,
          const char *value, guint *line)
{
  g_autofree char *text = g_strconcat (base != NULL ? base : base_text, context, NULL);
  g_autofree char *header = g_strdup_printf ("[%s]\n", group);
  g_autofree char *probe = g_strdup_printf ("\n%s = ", key);
  const char *at = strstr (text, header);
  const char *next;
  gsize pos;

  ck_assert_msg (at != NULL, "no [%s] in the test's scenario", group);
  pos = (gsize) (at - text) + strlen (header);
  next = strstr (text + pos, "\n[");
  {
    g_autofree char *body = next ? g_strndup (text + pos - 1, (gsize) (next - (text + pos - 1)))
                                 : g_strdup (text + pos - 1);
    if (strstr (body, probe) != NULL)
      return NULL;
  }
  *line = 1;
  for (gsize i = 0; i < pos; i++)
    *line += text[i] == '\n';
  return g_strdup_printf ("%.*s%s = %s\n%s", (int) pos, text, key, value, text + pos);
}

/* Runs TEXT and returns its summary as JSON, or NULL with ERROR. */
static char *
run_summary (const char *text, GError **error)
{
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "keys.ini",
                                                           SIM_TEST_DATADIR, NULL, error);
  g_autoptr(SimSimulation) sim = NULL;

  if (sc == NULL)
    return NULL;
  sim = sim_simulation_new (sc, error);
  if (sim == NULL || !sim_simulation_run (sim, error))
    return NULL;
  return sim_report_to_json (sim_simulation_get_report (sim), FALSE);
}

START_TEST (test_default_changes_nothing)
{
  guint tested = 0;
  g_autoptr(GString) bad = g_string_new (NULL);

  for (guint c = 0; c < G_N_ELEMENTS (contexts); c++)
    {
      const Context *ctx = &contexts[c];
      const SimKeyTable *table = table_of (ctx->section);
      g_autofree char *plain = g_strconcat (ctx->base != NULL ? ctx->base : base_text,
                                            ctx->context, NULL);
      g_autoptr(GError) error = NULL;
      g_autofree char *expected = run_summary (plain, &error);

      ck_assert_msg (expected != NULL, "[%s] context: %s", ctx->section,
                     error ? error->message : "");
      for (guint k = 0; k < table->n_keys; k++)
        {
          const SimKey *key = &table->keys[k];
          g_autofree char *text = NULL;
          g_autofree char *got = NULL;
          guint line;

          if (key->def == NULL || (key->flags & SIM_KEY_DEFAULT_DESCRIBED) ||
              !tested_in (ctx, key->name))
            continue;
          text = with_key (ctx->base, ctx->context, ctx->group, key->name, key->def, &line);
          if (text == NULL)
            continue;
          got = run_summary (text, &error);
          if (got == NULL)
            g_string_append_printf (bad, "\n[%s] %s = %s: %s", ctx->section, key->name,
                                    key->def, error->message);
          else if (strcmp (got, expected) != 0)
            g_string_append_printf (bad, "\n[%s] %s = %s (its documented default) changes "
                                    "the run", ctx->section, key->name, key->def);
          g_clear_error (&error);
          tested++;
        }
    }
  ck_assert_msg (bad->len == 0, "%s", bad->str);
  ck_assert_uint_ge (tested, 80);
}
END_TEST

/* KEY with its middle letter doubled. */
static char *
misspell (const char *key)
{
  gsize mid = strlen (key) / 2;

  return g_strdup_printf ("%.*s%c%s", (int) mid + 1, key, key[mid], key + mid + 1);
}

/* Whether another key of TABLE is as close to TYPO as KEY is, or begins
 * with it: then the suggestion may rightly be that other key. */
static gboolean
ambiguous (const SimKeyTable *table, const char *key, const char *typo)
{
  guint d = distance (typo, key);

  for (guint k = 0; k < table->n_keys; k++)
    {
      const char *other = table->keys[k].name;
      if (strcmp (other, key) != 0 &&
          (distance (typo, other) <= d || g_str_has_prefix (other, typo)))
        return TRUE;
    }
  return FALSE;
}

START_TEST (test_misspelt_key_in_every_section)
{
  guint n, tested = 0, sections = 0;
  const SimKeyTable * const *t = tables (&n);

  for (guint i = 0; i < n; i++)
    {
      const SimKeyTable *table = t[i];
      const char *context = "";
      const char *group = table->section;
      gboolean any = FALSE;

      for (guint c = 0; c < G_N_ELEMENTS (contexts); c++)
        if (strcmp (contexts[c].section, table->section) == 0 && contexts[c].base == NULL)
          {
            context = contexts[c].context;
            group = contexts[c].group;
          }
      if (strcmp (table->section, "rl") == 0 || strcmp (table->section, "sweep") == 0)
        context = strcmp (table->section, "rl") == 0 ? "[rl]\n" : "[sweep]\n";
      if (strcmp (table->section, "variant") == 0)
        continue;
      for (guint k = 0; k < table->n_keys; k++)
        {
          const char *key = table->keys[k].name;
          g_autofree char *typo = misspell (key);
          g_autofree char *text = NULL;
          g_autofree char *where = NULL;
          g_autofree char *suggestion = NULL;
          g_autoptr(GError) error = NULL;
          g_autoptr(SimScenario) sc = NULL;
          guint line = 0;

          if (ambiguous (table, key, typo))
            continue;
          text = with_key (NULL, context, group, typo, "1", &line);
          ck_assert (text != NULL);
          sc = sim_scenario_load_from_data (text, -1, "typo.ini", SIM_TEST_DATADIR, NULL,
                                            &error);
          ck_assert_msg (sc == NULL, "[%s] %s accepted", group, typo);
          ck_assert_msg (g_error_matches (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY),
                         "[%s] %s: %s", group, typo, error->message);
          where = g_strdup_printf ("typo.ini:%u: [%s] %s: unknown key", line, group, typo);
          suggestion = g_strdup_printf ("did you mean \"%s\"?", key);
          ck_assert_msg (strstr (error->message, where) != NULL, "%s: expected \"%s\"",
                         error->message, where);
          ck_assert_msg (strstr (error->message, suggestion) != NULL, "%s: expected \"%s\"",
                         error->message, suggestion);
          tested++;
          any = TRUE;
        }
      sections += any;
    }
  ck_assert_uint_ge (sections, n - 1);
  ck_assert_uint_ge (tested, 150);
}
END_TEST

START_TEST (test_sweep_and_policy_keys)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint line;
  SimScenario *sc;

  /* [sweep] foo: neither a sweep key nor SECTION.KEY. */
  text = with_key (NULL, "[sweep]\nworkload.rate = 2/h, 4/h\n", "sweep", "foo", "1", &line);
  sc = sim_scenario_load_from_data (text, -1, "s.ini", NULL, NULL, &error);
  ck_assert (sc == NULL);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY));
  ck_assert_int_eq (line, 17);
  ck_assert_msg (strstr (error->message, "s.ini:17: [sweep] foo: unknown key") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
  g_free (text);

  /* An axis and the sweep's own keys pass. */
  text = g_strconcat (base_text, "[sweep]\nworkload.rate = 2/h, 4/h\nseeds = 3\nlevel = 0.9\n",
                      NULL);
  sc = sim_scenario_load_from_data (text, -1, "s.ini", NULL, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim_scenario_unref (sc);
  g_free (text);

  /* A misspelt moldable_efficiency, which fifo/first-fit do not read. */
  text = g_strconcat (base_text, "[policy]\nmoldable_efficency = 0.5\n", NULL);
  sc = sim_scenario_load_from_data (text, -1, "p.ini", NULL, NULL, &error);
  ck_assert (sc == NULL);
  ck_assert_msg (strstr (error->message, "p.ini:17: [policy] moldable_efficency: unknown key: "
                         "did you mean \"moldable_efficiency\"?") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
  g_free (text);

  /* A key a built-in policy reads reaches the policy. */
  text = g_strconcat (base_text, "[policy]\nqueue = sjf\nsjf_estimate = true\n", NULL);
  sc = sim_scenario_load_from_data (text, -1, "p.ini", NULL, NULL, &error);
  if (sc == NULL)
    ck_abort_msg ("%s", error->message);
  ck_assert_str_eq (g_hash_table_lookup (sc->policy_params, "sjf_estimate"), "true");
  sim_scenario_unref (sc);
}
END_TEST

START_TEST (test_reference)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *power = sim_scenario_dup_key_reference ("power", FALSE, &error);
  g_autofree char *klass = sim_scenario_dup_key_reference ("[class NAME]", TRUE, &error);
  g_autofree char *all = sim_scenario_dup_key_reference (NULL, TRUE, &error);
  g_autofree char *none = NULL;
  guint n;
  const SimKeyTable * const *t = tables (&n);

  ck_assert (power != NULL && klass != NULL && all != NULL);
  for (guint k = 0; k < sim__power_key_table.n_keys; k++)
    {
      g_autofree char *line = g_strdup_printf ("\n  %s ", sim__power_key_table.keys[k].name);
      ck_assert_msg (strstr (power, line) != NULL, "%s missing", line);
    }
  ck_assert (g_str_has_prefix (power, "[power]"));
  ck_assert (g_str_has_prefix (klass, "## [class NAME]"));
  ck_assert (strstr (klass, "| `gpu_model` |") != NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *heading = g_strdup_printf ("## [%s%s]\n", t[i]->section,
                                                  t[i]->named ? " NAME" : "");
      ck_assert_msg (strstr (all, heading) != NULL, "%s missing", heading);
    }

  /* [policy] also lists what the registered policies read (their infos'
   * keys, sched/sim-queue-orders.c). */
  {
    g_autofree char *policy = sim_scenario_dup_key_reference ("policy", FALSE, &error);
    ck_assert (strstr (policy, "\n  sjf_estimate ") != NULL);
    ck_assert (strstr (policy, "read by sjf (queue)") != NULL);
    ck_assert (strstr (policy, "read by las (queue), priority (queue)") != NULL);
  }

  none = sim_scenario_dup_key_reference ("powr", FALSE, &error);
  ck_assert (none == NULL);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
  ck_assert_msg (strstr (error->message,
                         "no section [powr] in a scenario: did you mean \"power\"?") != NULL,
                 "%s", error->message);
}
END_TEST

static Suite *
keys_suite (void)
{
  Suite *s = suite_create ("keys");
  TCase *tc = tcase_create ("tables");

  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_tables_well_formed);
  tcase_add_test (tc, test_defaults_are_the_models);
  tcase_add_test (tc, test_fabric_defaults_are_the_builders);
  tcase_add_test (tc, test_default_changes_nothing);
  tcase_add_test (tc, test_misspelt_key_in_every_section);
  tcase_add_test (tc, test_sweep_and_policy_keys);
  tcase_add_test (tc, test_reference);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (keys_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
