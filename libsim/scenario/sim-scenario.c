/* sim-scenario.c: reading and validating scenario files. */
#include "config.h"

#include "scenario/sim-scenario.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "core/sim-keys.h"
#include "core/sim-read.h"
#include "sched/sim-policy-private.h"
#include "workload/sim-trace-util.h"
#include "scenario/sim-scenario-private.h"
#include "fabric/sim-topology-private.h"
#include "workload/sim-variation.h"

#include <math.h>
#include <string.h>

G_DEFINE_BOXED_TYPE (SimScenario, sim_scenario, sim_scenario_ref, sim_scenario_unref)

/* Parsers of the tables below (defined further down). */
static gboolean parse_seed (const char *text, gpointer out, GError **error);
static gboolean parse_overhead (const char *text, gpointer out, GError **error);
static gboolean parse_efficiency (const char *text, gpointer out, GError **error);
static gboolean parse_name (const char *text, gpointer out, GError **error);

#define SC(field) offsetof (SimScenario, field)

/* The key tables of the sections read in this file.  Keys read by code
 * of their own (a distribution, a mix of GPUs) have no parser here; the
 * defaults documented for them are those the code below applies, and
 * check-keys holds the two together where the value is plain. */

/* Communication and scaling keys: in [workload] (defaults for every class),
 * [class NAME], and, for the first eight, [comm NAME]. */
#define COMM_KEYS \
  { "iteration", SIM_KEY_TIME, "s", "above 0", NULL, \
    "the compute time of one training iteration (its communication profile needs it)", 0, \
    NULL, 0 }, \
  { "gradient", SIM_KEY_BYTES, "B", NULL, "0B", \
    "the bytes all-reduced by data parallelism at each iteration", 0, NULL, 0 }, \
  { "tensor_parallel", SIM_KEY_INT, NULL, "1 to 65536", "1", \
    "the tensor-parallel degree (GPUs that split each layer)", 0, NULL, 0 }, \
  { "tp_bytes", SIM_KEY_BYTES, "B", NULL, "0B", \
    "the bytes each tensor-parallel group exchanges per iteration", 0, NULL, 0 }, \
  { "pipeline_parallel", SIM_KEY_INT, NULL, "1 to 65536", "1", \
    "the pipeline-parallel degree (stages)", 0, NULL, 0 }, \
  { "pp_bytes", SIM_KEY_BYTES, "B", NULL, "0B", \
    "the bytes passed between pipeline stages per iteration", 0, NULL, 0 }, \
  { "overlap", SIM_KEY_SHARE, NULL, "0 to 1", "0", \
    "the share of communication hidden behind compute", 0, NULL, 0 }

#define CLASS_KEYS \
  { "gpus", SIM_KEY_EXPRESSION, NULL, NULL, NULL, \
    "GPUs per job: \"8\", a mix \"1:0.7, 8:0.3\" or a moldable range \"4..8\"", 0, NULL, 0 }, \
  { "duration", SIM_KEY_EXPRESSION, NULL, NULL, NULL, \
    "the run-time distribution, such as \"lognormal(median=30min, sigma=1.5)\"", 0, NULL, 0 }, \
  { "estimate_factor", SIM_KEY_NUMBER, NULL, "0 to 1000000", "0", \
    "a job's requested time is its run time times this (0: no request)", 0, NULL, 0 }, \
  COMM_KEYS, \
  { "scaling", SIM_KEY_CHOICE, NULL, "linear, amdahl, table, comm", "linear", \
    "how a job's speed grows with its GPUs (comm: from its communication profile)", 0, NULL, \
    0 }, \
  { "serial_fraction", SIM_KEY_SHARE, NULL, "0 to 1", NULL, \
    "amdahl: the share of the work that does not parallelize", 0, NULL, 0 }, \
  { "speedup", SIM_KEY_LIST, NULL, NULL, NULL, \
    "table: measured speed-ups, \"GPUS:SPEEDUP\" pairs such as \"2:1.98, 4:3.88\"", 0, NULL, \
    0 }, \
  { "reference_gpus", SIM_KEY_INT, NULL, NULL, NULL, \
    "the GPUs on which the duration was measured", 0, NULL, 0 }, \
  { "throughput", SIM_KEY_EXPRESSION, NULL, NULL, NULL, \
    "the jobs' throughput on each GPU model, \"MODEL:VALUE, MODEL:VALUE\"", 0, NULL, 0 }, \
  { "activity", SIM_KEY_SHARE, NULL, "0 to 1", NULL, \
    "the share of time a job keeps its GPUs busy (power, sharing)", 0, NULL, 0 }, \
  { "memory_bound", SIM_KEY_SHARE, NULL, "0 to 1", NULL, \
    "the share of its busy time a job waits on memory", 0, NULL, 0 }, \
  { "gpu_share", SIM_KEY_SHARE, NULL, "above 0, at most 1", NULL, \
    "a fractional job's share of one GPU (shared GPUs)", 0, NULL, 0 }

static const SimKey scenario_keys[] = {
  { "name", SIM_KEY_STRING, NULL, NULL, NULL, "the scenario's name, in outputs",
    SIM_KEY_REQUIRED, NULL, 0 },
  { "description", SIM_KEY_STRING, NULL, NULL, NULL, "a line of text about the scenario", 0,
    NULL, 0 },
  { "seed", SIM_KEY_INT, NULL, "0 to 2^64-1", "1",
    "the random seed: the same scenario and seed give the same output", 0, parse_seed,
    SC (seed) },
  { "horizon", SIM_KEY_TIME, "s", "above 0", "never",
    "simulated time at which the run stops (never: when the workload drains)",
    SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "models", SIM_KEY_LIST, NULL, NULL, NULL,
    "folders of model files searched after the catalogue's", 0, NULL, 0 },
};

static const SimKey pool_keys[] = {
  { "model", SIM_KEY_STRING, NULL, NULL, NULL,
    "a node model from the catalogue, such as DGX-H100 (not with from)", 0, NULL, 0 },
  { "count", SIM_KEY_INT, NULL, "1 to 10000000", NULL, "the number of nodes (not with from)", 0,
    NULL, 0 },
  { "gpu", SIM_KEY_STRING, NULL, NULL, "node model's",
    "replaces the node model's GPU model", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "gpus_per_node", SIM_KEY_INT, NULL, "1 to 10000000", "node model's",
    "replaces the node model's GPUs per node", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "sharing", SIM_KEY_CHOICE, NULL, "time-slice, mps", "[cluster] sharing",
    "how fractional jobs share this pool's GPUs", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "from", SIM_KEY_EXPRESSION, NULL, NULL, NULL,
    "the nodes from a trace's machine list, such as \"pai-machines:FILE\" or "
    "\"philly-vcs:FILE\"", 0, NULL, 0 },
  { "misc_gpu", SIM_KEY_STRING, NULL, NULL, NULL,
    "from = pai-machines: the GPU model of machines of type MISC, needed if the list has any "
    "(none: leave them out)", 0, NULL, 0 },
};

static const SimKey cluster_keys[] = {
  { "sharing", SIM_KEY_CHOICE, NULL, "time-slice, mps", "time-slice",
    "how fractional jobs share a GPU", 0, (SimKeyParseFunc) sim_sharing_mode_parse,
    SC (sharing.mode) },
  { "timeslice_overhead", SIM_KEY_SHARE, NULL, "0 to below 1", "0.05",
    "the share of a time-sliced GPU's throughput lost to switching", 0, parse_overhead,
    SC (sharing.timeslice_overhead) },
  { "mps_overhead", SIM_KEY_SHARE, NULL, "0 to below 1", "0",
    "the share of an MPS-shared GPU's throughput lost to sharing", 0, parse_overhead,
    SC (sharing.mps_overhead) },
  { "mig_reconfigure_time", SIM_KEY_TIME, "s", NULL, "10s",
    "the wall time of creating a MIG instance", 0, sim__keys_parse_duration,
    SC (mig_reconfigure_time) },
};

static const SimKey workload_keys[] = {
  { "source", SIM_KEY_CHOICE, NULL,
    "synthetic, swf, philly, helios, slurm, openb, pai, gavel, native", "synthetic",
    "where jobs come from: a generator or a trace", 0, NULL, 0 },
  { "rate", SIM_KEY_RATE, "1/s", "above 0", NULL,
    "synthetic: the mean arrival rate, such as \"30/h\" (Poisson)", 0, NULL, 0 },
  { "daily_profile", SIM_KEY_LIST, NULL, "24 numbers", "flat",
    "synthetic: the arrival rate's relative weight in each hour of the day",
    SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "jobs", SIM_KEY_INT, NULL, "1 to 2^63-1", "all",
    "the number of jobs to run (a trace: its first ones)", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  CLASS_KEYS,
  { "trace", SIM_KEY_PATH, NULL, NULL, NULL, "a trace source: the trace file", 0, NULL, 0 },
  { "processors_per_gpu", SIM_KEY_NUMBER, NULL, "above 0", "1",
    "swf: the processors of the log that make one GPU", 0, NULL, 0 },
  { "skip_invalid", SIM_KEY_BOOL, NULL, NULL, "true",
    "a trace: skip rows that cannot be jobs (false: stop at the first)", 0, NULL, 0 },
  { "rebase_time", SIM_KEY_BOOL, NULL, NULL, "true",
    "a trace: start simulated time at the first job's submission", 0, NULL, 0 },
  { "reorder_window", SIM_KEY_INT, "rows", "0 to 100000000, or sort", "100000",
    "a trace: rows read ahead to put jobs in submission order (sort: all)", 0, NULL, 0 },
  { "variation", SIM_KEY_EXPRESSION, NULL,
    "none, windows(LENGTH), bootstrap(days), bootstrap(jobs), jitter(REACH)", "none",
    "a trace: what each seed varies, so that runs over seeds are samples (docs/statistics.md)",
    0, NULL, 0 },
  { "reference_gpu", SIM_KEY_STRING, NULL, NULL, NULL,
    "the GPU model on which durations were measured (throughput scaling)", 0, NULL, 0 },
  { "task_table", SIM_KEY_PATH, NULL, NULL, NULL, "pai: the task table", 0, NULL, 0 },
  { "pai_tasks", SIM_KEY_CHOICE, NULL, "sum, largest", "sum",
    "pai: a job's GPUs as the sum of its tasks' or its largest task's", 0, NULL, 0 },
};

static const SimKey class_keys[] = {
  { "share", SIM_KEY_NUMBER, NULL, "above 0", "1",
    "the class's weight among the classes, for drawing each job's class", 0, NULL, 0 },
  CLASS_KEYS,
  { "mig", SIM_KEY_STRING, NULL, NULL, NULL,
    "a MIG profile the job runs in, such as \"1g.10gb\" (with gpus = 1)", 0, NULL, 0 },
  { "priority", SIM_KEY_INT, NULL, "-1000000 to 1000000", "0",
    "the jobs' priority (higher first, for queues that read it)", 0, NULL, 0 },
  { "tenant", SIM_KEY_INT, NULL, "0 to 1000000", "0",
    "the jobs' tenant (fair-share queues)", 0, NULL, 0 },
  { "gpu_model", SIM_KEY_STRING, NULL, NULL, "any",
    "GPU models the jobs may run on, separated by '|'", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "serverless", SIM_KEY_BOOL, NULL, NULL, "false",
    "the jobs run on serverless GPUs (needs [serverless])", 0, NULL, 0 },
  { "llm_model", SIM_KEY_STRING, NULL, NULL, NULL,
    "a language model (catalogue or [llm NAME]) the jobs train: GPUs, duration and "
    "communication from it (docs/llm.md)", 0, NULL, 0 },
  { "llm_layout", SIM_KEY_EXPRESSION, NULL, NULL, "no parallelism",
    "with llm_model: the layout, \"tp=8, pp=4, dp=4, global_batch=512\"",
    SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "llm_tokens", SIM_KEY_NUMBER, "tokens", "above 0", NULL,
    "with llm_model: the tokens each job trains on, such as \"2e11\" or \"200B\"", 0, NULL,
    0 },
};

static const SimKey comm_keys[] = {
  { "share", SIM_KEY_NUMBER, NULL, "above 0", "1",
    "the profile's weight in the mix drawn for jobs without a profile", 0, NULL, 0 },
  COMM_KEYS,
};

static const SimKey policy_keys[] = {
  { "queue", SIM_KEY_STRING, NULL, NULL, "fifo", "the queue order, by name", 0, parse_name,
    SC (queue) },
  { "placement", SIM_KEY_STRING, NULL, NULL, "first-fit", "the placement, by name", 0,
    parse_name, SC (placement) },
  { "plugin", SIM_KEY_PATH, NULL, NULL, NULL,
    "a policy plugin (a shared object exporting gpusim_policy_plugin) instead of queue and "
    "placement", 0,
    NULL, 0 },
  { "interval", SIM_KEY_TIME, "s", NULL, "0s",
    "the scheduling cycle (0: decide at every event)", 0, sim__keys_parse_duration,
    SC (sched_interval) },
  { "backfill_interval", SIM_KEY_TIME, "s", NULL, "0s",
    "easy queue: how often to backfill (0: at every decision)", 0, sim__keys_parse_duration,
    SC (backfill_interval) },
  { "moldable_efficiency", SIM_KEY_SHARE, NULL, "0 to 1", "0",
    "the lowest parallel efficiency (speed-up / GPUs) at which a moldable job takes more GPUs",
    0, parse_efficiency, SC (moldable_efficiency) },
};

static const SimKey output_keys[] = {
  { "timeseries_interval", SIM_KEY_TIME, "s", "above 0", "1h",
    "the interval of the time series' samples", 0, sim__keys_parse_positive_duration,
    SC (sample_interval) },
  { "jobs", SIM_KEY_BOOL, NULL, NULL, "true", "write the jobs' CSV file", 0,
    sim__keys_parse_bool, SC (write_jobs) },
  { "timeseries", SIM_KEY_BOOL, NULL, NULL, "true", "write the time series' CSV file", 0,
    sim__keys_parse_bool, SC (write_timeseries) },
};

/* [policy] keys outside the table are the chosen policy's parameters: the
 * policy refuses those it does not read (sim_policy_params), naming the
 * closest it does. */
static gboolean
is_policy_param (const char *key)
{
  return TRUE;
}

/* [variant NAME] keys are checked by read_variants(), whose message shows
 * the form they take. */
static gboolean
is_variant_key (const char *key)
{
  return TRUE;
}

static const SimKeyTable scenario_table = {
  "scenario", FALSE, "The scenario's name, seed and horizon", scenario_keys,
  G_N_ELEMENTS (scenario_keys), NULL, NULL,
};
static const SimKeyTable pool_table = {
  "pool", TRUE, "A pool of identical nodes", pool_keys, G_N_ELEMENTS (pool_keys), NULL, NULL,
};
static const SimKeyTable cluster_table = {
  "cluster", FALSE, "How GPUs are shared across the cluster", cluster_keys,
  G_N_ELEMENTS (cluster_keys), NULL, NULL,
};
static const SimKeyTable workload_table = {
  "workload", FALSE,
  "Where jobs come from, and the defaults of every job class", workload_keys,
  G_N_ELEMENTS (workload_keys), NULL, NULL,
};
static const SimKeyTable class_table = {
  "class", TRUE, "A class of synthetic jobs; absent keys take [workload]'s", class_keys,
  G_N_ELEMENTS (class_keys), NULL, NULL,
};
static const SimKeyTable comm_table = {
  "comm", TRUE, "A communication profile drawn for jobs that have none", comm_keys,
  G_N_ELEMENTS (comm_keys), NULL, NULL,
};
static const SimKeyTable policy_table = {
  "policy", FALSE, "The scheduling policy", policy_keys, G_N_ELEMENTS (policy_keys),
  is_policy_param,
  "the parameters of the chosen queue order and placement, which refuse keys they do not read",
};
static const SimKeyTable output_table = {
  "output", FALSE, "What the run writes", output_keys, G_N_ELEMENTS (output_keys), NULL, NULL,
};
static const SimKeyTable variant_table = {
  "variant", TRUE, "A named set of changes, compared side by side by `gpusim compare`", NULL, 0,
  is_variant_key, "SECTION.KEY = VALUE, a value of another section's key",
};

/* Every section: the scenario's own, then the modules' (in their table's
 * order, sim-modules.c), in the order `gpusim keys` lists them.  Built once. */
static GPtrArray *
build_key_tables (void)
{
  static const SimKeyTable * const own[] = {
    &scenario_table, &pool_table, &cluster_table, &workload_table, &class_table, &comm_table,
    &policy_table, &output_table, &sim__fabric_key_table, &variant_table,
  };
  GPtrArray *tables = g_ptr_array_new ();
  const SimSectionOwner * const *owners;
  guint n_owners;

  for (guint i = 0; i < G_N_ELEMENTS (own); i++)
    g_ptr_array_add (tables, (gpointer) own[i]);
  owners = sim__scenario_section_owners (&n_owners);
  for (guint m = 0; m < n_owners; m++)
    for (guint t = 0; owners[m]->tables[t] != NULL; t++)
      g_ptr_array_add (tables, (gpointer) owners[m]->tables[t]);
  return tables;
}

const SimKeyTable * const *
sim__scenario_key_tables (guint *n_tables)
{
  static GPtrArray *tables;

  if (g_once_init_enter (&tables))
    g_once_init_leave (&tables, build_key_tables ());
  *n_tables = tables->len;
  return (const SimKeyTable * const *) tables->pdata;
}

typedef struct {
  SimKeyReader reader;     /* first, so that a pointer to it is one to the Ctx */
  const char  *name;       /* for messages */
  GKeyFile    *kf;
  SimKeyLines *lines;
  GHashTable  *overridden; /* "group\037key" of keys set by overrides -> the
                            * [variant NAME] group they came from, or "" for --set */
} Ctx;

/* Prefixes an error with where the key is: "FILE:LINE: [group] key: ". */
/* The override that made section @group, which the file does not have:
 * "--set GROUP.KEY", or "[variant NAME] GROUP.KEY" for a variant's or the
 * sweep's; NULL if no override set a key of it. */
static char *
made_by_override (const Ctx *ctx, const char *group)
{
  g_autofree char *prefix = g_strdup_printf ("%s\037", group);
  GHashTableIter it;
  gpointer k, v;

  if (ctx->overridden == NULL)
    return NULL;
  g_hash_table_iter_init (&it, ctx->overridden);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (g_str_has_prefix (k, prefix))
      {
        const char *origin = v;
        const char *key = (const char *) k + strlen (prefix);
        g_autofree char *vkey = g_strdup_printf ("%s.%s", group, key);
        guint line = *origin != '\0' ? sim__key_lines_find (ctx->lines, origin, vkey) : 0;
        if (*origin == '\0')
          return g_strdup_printf ("--set %s", vkey);
        return line > 0 ? g_strdup_printf ("[%s] %s at line %u", origin, vkey, line)
                        : g_strdup_printf ("[%s] %s", origin, vkey);
      }
  return NULL;
}

static void
locate (const Ctx *ctx, const char *group, const char *key, GError **error)
{
  guint line;
  g_autofree char *okey = NULL;

  if (error == NULL || *error == NULL)
    return;
  if (key != NULL)
    {
      const char *origin;
      okey = g_strdup_printf ("%s\037%s", group, key);
      origin = ctx->overridden != NULL ? g_hash_table_lookup (ctx->overridden, okey) : NULL;
      if (origin != NULL && *origin != '\0')
        {
          /* From the scenario's own [variant NAME]: its line there. */
          g_autofree char *vkey = g_strdup_printf ("%s.%s", group, key);
          line = sim__key_lines_find (ctx->lines, origin, vkey);
          if (line == 0)
            line = sim__key_lines_find (ctx->lines, origin, NULL);
          if (line > 0)
            g_prefix_error (error, "%s:%u: [%s] %s: ", ctx->name, line, origin, vkey);
          else
            g_prefix_error (error, "%s: [%s] %s: ", ctx->name, origin, vkey);
          return;
        }
      if (origin != NULL)
        {
          g_prefix_error (error, "%s: --set %s.%s: ", ctx->name, group, key);
          return;
        }
    }
  line = sim__key_lines_find (ctx->lines, group, key);
  if (line == 0 && key != NULL)
    line = sim__key_lines_find (ctx->lines, group, NULL);
  if (line > 0)
    g_prefix_error (error, "%s:%u: [%s]%s%s: ", ctx->name, line, group, key ? " " : "",
                    key ? key : "");
  else
    {
      g_autofree char *made = made_by_override (ctx, group);
      g_prefix_error (error, "%s: [%s]%s%s: ", ctx->name, group, key ? " " : "", key ? key : "");
      if (made != NULL)
        {
          /* A section the file does not have, made by an override (most
           * often a misspelt name): say so. */
          char *text = g_strdup_printf ("%s (there is no [%s] in the file: %s made it)",
                                        (*error)->message, group, made);
          g_free ((*error)->message);
          (*error)->message = text;
        }
    }
}

/* locate() for the readers of modules (power/, rl/) and the key tables,
 * which see only the SimKeyReader at the head of the Ctx. */
static void
locate_for_reader (const SimKeyReader *reader, const char *group, const char *key,
                   GError **error)
{
  locate ((const Ctx *) reader, group, key, error);
}

/* The raw value, or NULL if absent (not an error). */
static char *
get_raw (const Ctx *ctx, const char *group, const char *key)
{
  if (!g_key_file_has_key (ctx->kf, group, key, NULL))
    return NULL;
  return g_key_file_get_value (ctx->kf, group, key, NULL);
}

static gboolean
require (const Ctx *ctx, const char *group, const char *key, const char *what, char **out,
         GError **error)
{
  *out = get_raw (ctx, group, key);
  if (*out == NULL || **out == '\0')
    {
      g_free (*out);
      *out = NULL;
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing key: expected %s", what);
      locate (ctx, group, key, error);
      return FALSE;
    }
  return TRUE;
}

typedef SimKeyParseFunc ParseFunc;

/* Parses an optional key with PARSE; leaves *out untouched if absent. */
static gboolean
get_parsed (const Ctx *ctx, const char *group, const char *key, ParseFunc parse, gpointer out,
            GError **error)
{
  return sim__keys_get_parsed (&ctx->reader, group, key, parse, out, error);
}

static gboolean
parse_rate (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_rate (text, out, error))
    return FALSE;
  if (!(*(double *) out > 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is zero: expected a positive rate such as \"30/h\"", text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_seed (const char *text, gpointer out, GError **error)
{
  g_autoptr(GError) local = NULL;
  guint64 v;

  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &v, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not a seed: expected a non-negative integer", text);
      return FALSE;
    }
  *(guint64 *) out = v;
  return TRUE;
}

SIM_KEYS_UINT_PARSER (parse_count, 1, 10000000)

static gboolean
parse_jobs (const char *text, gpointer out, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (text, 1, G_MAXINT64, &v, error))
    return FALSE;
  *(guint64 *) out = (guint64) v;
  return TRUE;
}

/* A reorder window: a number of trace rows, "N" or "N rows", from 0; or
 * "sort" to sort the whole trace. */
static gboolean
parse_rows (const char *text, gpointer out, GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  gint64 v;

  if (g_ascii_strcasecmp (copy, "sort") == 0)
    {
      *(guint64 *) out = SIM_TRACE_REORDER_SORT;
      return TRUE;
    }

  if (g_str_has_suffix (copy, "rows") || g_str_has_suffix (copy, "row"))
    {
      *strrchr (copy, 'r') = '\0';
      g_strchomp (copy);
    }
  if (!sim_parse_integer (copy, 0, SIM_TRACE_WINDOW_ROWS_MAX, &v, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\" is not a reorder window: "
                   "expected a number of rows from 0 to %u, or sort", text,
                   (guint) SIM_TRACE_WINDOW_ROWS_MAX);
      return FALSE;
    }
  *(guint64 *) out = (guint64) v;
  return TRUE;
}

static gboolean
parse_positive_number (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_number (text, 0, G_MAXDOUBLE, out, error))
    return FALSE;
  if (*(double *) out <= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: expected a positive number", text);
      return FALSE;
    }
  return TRUE;
}

/* A parallel efficiency, speed-up / GPUs: 0 to 1. */
static gboolean
parse_efficiency (const char *text, gpointer out, GError **error)
{
  return sim__keys_parse_bounded (text, 0, 1, out,
                                  "a parallel efficiency from 0 to 1 (speed-up / GPUs)", error);
}

/* A shared GPU's overhead: a share from 0, below 1 ("0.05" or "5%"). */
static gboolean
parse_overhead (const char *text, gpointer out, GError **error)
{
  if (!sim__keys_parse_share_percent (text, 0, FALSE,
                                      "the share of a shared GPU's throughput lost to sharing",
                                      out, error))
    return FALSE;
  if (*(double *) out >= 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": expected less than 1 (100%%): the GPU would do no work", text);
      return FALSE;
    }
  return TRUE;
}

/* A name, into the string at OUT (replacing it). */
static gboolean
parse_name (const char *text, gpointer out, GError **error)
{
  char **field = out;

  g_free (*field);
  *field = g_strdup (text);
  return TRUE;
}

static gboolean
parse_factor (const char *text, gpointer out, GError **error)
{
  return sim_parse_number (text, 0, 1e6, out, error);
}

/* "1:0.6, 2:0.2, 8:0.2" or "8": GPUs per job and their weights. */
static gboolean
parse_gpu_mix (const char *text, SimJobClassConfig *cls, GError **error)
{
  g_auto(GStrv) items = g_strsplit (text, ",", -1);
  guint n = g_strv_length (items);
  double total = 0;

  if (n == 0 || *g_strstrip (items[0]) == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "empty value: expected GPUs per job such as \"8\" or \"1:0.7, 8:0.3\"");
      return FALSE;
    }
  g_clear_pointer (&cls->gpu_values, g_free);
  g_clear_pointer (&cls->gpu_weights, g_free);
  cls->gpu_values = g_new0 (guint32, n);
  cls->gpu_weights = g_new0 (double, n);
  cls->n_gpu_values = n;
  for (guint i = 0; i < n; i++)
    {
      char *item = g_strstrip (items[i]);
      char *colon = strchr (item, ':');
      gint64 gpus;
      double weight = 1;

      if (colon != NULL)
        *colon = '\0';
      if (!sim_parse_integer (g_strstrip (item), 1, 1000000, &gpus, error))
        {
          g_prefix_error (error, "item %u of \"%s\": GPUs: ", i + 1, text);
          return FALSE;
        }
      if (colon != NULL && !sim_parse_number (colon + 1, 0, G_MAXDOUBLE, &weight, error))
        {
          g_prefix_error (error, "item %u of \"%s\": weight: ", i + 1, text);
          return FALSE;
        }
      if (colon == NULL && n > 1)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "item %u of \"%s\" has no weight: expected GPUS:WEIGHT such as \"8:0.3\"",
                       i + 1, text);
          return FALSE;
        }
      cls->gpu_values[i] = (guint32) gpus;
      cls->gpu_weights[i] = weight;
      total += weight;
    }
  if (!(total > 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\": the weights add up to 0", text);
      return FALSE;
    }
  return TRUE;
}

/* Splits "name(k=v, k=v)" into name and arguments. */
static gboolean
split_call (const char *text, char **name, GStrv *args, GError **error)
{
  const char *open = strchr (text, '(');
  const char *close = strrchr (text, ')');

  if (open == NULL || close == NULL || close < open || close[1] != '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not a distribution: expected e.g. \"lognormal(median=30min, sigma=1.5)\", "
                   "\"exponential(mean=1h)\", \"constant(2h)\" or \"empirical(10min:0.5, 2h:0.5)\"",
                   text);
      return FALSE;
    }
  *name = g_strstrip (g_strndup (text, (gsize) (open - text)));
  {
    g_autofree char *inner = g_strndup (open + 1, (gsize) (close - open - 1));
    *args = g_strsplit (inner, ",", -1);
    for (guint i = 0; (*args)[i] != NULL; i++)
      g_strstrip ((*args)[i]);
  }
  return TRUE;
}

/* Reads "key=value" from ARG into the duration *out (seconds). */
static gboolean
named_duration (const char *arg, const char *key, double *out, GError **error)
{
  gsize n = strlen (key);
  SimTime t;

  if (strncmp (arg, key, n) != 0 || arg[n] != '=')
    return FALSE;
  if (!sim_parse_duration (arg + n + 1, &t, error))
    return FALSE;
  *out = sim_time_to_seconds (t);
  return TRUE;
}

static gboolean
parse_duration_dist (const char *text, SimDurationDist *d, GError **error)
{
  g_autofree char *name = NULL;
  g_auto(GStrv) args = NULL;
  guint n;

  if (!split_call (text, &name, &args, error))
    return FALSE;
  n = g_strv_length (args);
  g_clear_pointer (&d->values, g_free);
  g_clear_pointer (&d->weights, g_free);
  memset (d, 0, sizeof *d);

  if (strcmp (name, "constant") == 0 || strcmp (name, "exponential") == 0)
    {
      const char *arg = n == 1 ? args[0] : "";
      const char *value = g_str_has_prefix (arg, "mean=") ? arg + 5 : arg;
      SimTime t;
      d->kind = strcmp (name, "constant") == 0 ? SIM_DIST_CONSTANT : SIM_DIST_EXPONENTIAL;
      if (n > 1)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": %u arguments: expected %s(mean=DURATION), one argument, such "
                       "as \"%s(mean=1h)\"", text, n, name, name);
          return FALSE;
        }
      if (*value != '\0' && !sim_parse_duration (value, &t, error))
        {
          g_prefix_error (error, "\"%s\": ", text);
          return FALSE;
        }
      if (*value == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected %s(mean=DURATION) with a positive duration, such as "
                       "\"%s(mean=1h)\"", text, name, name);
          return FALSE;
        }
      if (t <= 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": \"%s\" is not a positive duration of at least 1 ns: expected "
                       "%s(mean=DURATION), such as \"%s(mean=1h)\"", text, value, name, name);
          return FALSE;
        }
      d->mean = sim_time_to_seconds (t);
      return TRUE;
    }
  if (strcmp (name, "lognormal") == 0)
    {
      gboolean have_median = FALSE, have_median_arg = FALSE, have_sigma = FALSE;
      d->kind = SIM_DIST_LOGNORMAL;
      for (guint i = 0; i < n; i++)
        {
          const char *twice = (g_str_has_prefix (args[i], "median=") && have_median_arg)
                                ? "median"
                                : (g_str_has_prefix (args[i], "sigma=") && have_sigma) ? "sigma"
                                                                                      : NULL;

          if (twice != NULL)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "\"%s\": %s is given twice: "
                           "expected each parameter once", text, twice);
              return FALSE;
            }
          have_median_arg = have_median_arg || g_str_has_prefix (args[i], "median=");
          if (named_duration (args[i], "median", &d->median, error))
            have_median = d->median > 0;
          else if (error && *error)
            {
              g_prefix_error (error, "\"%s\": median: ", text);
              return FALSE;
            }
          else if (g_str_has_prefix (args[i], "sigma="))
            {
              if (!sim_parse_number (args[i] + 6, 0, 10, &d->sigma, error))
                {
                  g_prefix_error (error, "\"%s\": sigma: ", text);
                  return FALSE;
                }
              have_sigma = TRUE;
            }
          else
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                           "\"%s\": unknown parameter \"%s\": expected median=DURATION and "
                           "sigma=NUMBER", text, args[i]);
              return FALSE;
            }
        }
      if (!have_median || !have_sigma)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected lognormal(median=DURATION, sigma=NUMBER) with a positive "
                       "median, such as \"lognormal(median=30min, sigma=1.5)\"", text);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (name, "empirical") == 0)
    {
      d->kind = SIM_DIST_EMPIRICAL;
      d->values = g_new0 (double, MAX (n, 1));
      d->weights = g_new0 (double, MAX (n, 1));
      d->n_values = n;
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *item = g_strdup (args[i]);
          char *colon = strchr (item, ':');
          SimTime t;
          double w = 1;
          if (colon)
            *colon = '\0';
          if (!sim_parse_duration (g_strstrip (item), &t, error) ||
              (colon && !sim_parse_number (colon + 1, 0, G_MAXDOUBLE, &w, error)))
            {
              g_prefix_error (error, "\"%s\": item %u: ", text, i + 1);
              return FALSE;
            }
          if (t <= 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                           "\"%s\": item %u: durations must be positive", text, i + 1);
              return FALSE;
            }
          d->values[i] = sim_time_to_seconds (t);
          d->weights[i] = w;
        }
      if (n == 0 || *args[0] == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\": expected at least one DURATION[:WEIGHT]", text);
          return FALSE;
        }
      return TRUE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
               "unknown distribution \"%s\": expected constant, exponential, lognormal or empirical",
               name);
  return FALSE;
}

static gboolean
parse_profile (const char *text, double profile[24], GError **error)
{
  g_auto(GStrv) items = g_strsplit (text, ",", -1);
  double total = 0;

  if (g_strv_length (items) != 24)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "%u values: expected 24 hourly multipliers separated by commas",
                   g_strv_length (items));
      return FALSE;
    }
  for (guint h = 0; h < 24; h++)
    {
      if (!sim_parse_number (items[h], 0, 1e9, &profile[h], error))
        {
          g_prefix_error (error, "hour %u: ", h);
          return FALSE;
        }
      total += profile[h];
    }
  if (!(total > 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "all 24 multipliers are 0");
      return FALSE;
    }
  return TRUE;
}

/* The table of section HEAD ("class" for [class NAME]), or NULL. */
static const SimKeyTable *
find_table (const char *head)
{
  guint n_tables;
  const SimKeyTable * const *key_tables = sim__scenario_key_tables (&n_tables);

  for (guint s = 0; s < n_tables; s++)
    if (strcmp (key_tables[s]->section, head) == 0)
      return key_tables[s];
  return NULL;
}

/* Refuses unknown sections and keys, suggesting the closest known one,
 * every section against its own table. */
static gboolean
check_schema (const Ctx *ctx, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  guint n_tables;
  const SimKeyTable * const *key_tables = sim__scenario_key_tables (&n_tables);
  const char **section_names = g_newa (const char *, n_tables);

  for (guint s = 0; s < n_tables; s++)
    section_names[s] = key_tables[s]->section;

  for (guint i = 0; groups[i] != NULL; i++)
    {
      const char *g = groups[i];
      const SimKeyTable *table;
      g_autofree char *head = NULL;
      const char *space = strchr (g, ' ');

      head = space ? g_strndup (g, (gsize) (space - g)) : g_strdup (g);
      table = find_table (head);
      if (table == NULL)
        {
          const char *close = sim__closest (head, section_names, n_tables);
          g_autoptr(GString) known = g_string_new (NULL);
          for (guint s = 0; s < n_tables; s++)
            g_string_append_printf (known, "%s[%s%s]", s ? ", " : "", key_tables[s]->section,
                                    key_tables[s]->named ? " NAME" : "");
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY,
                       "unknown section%s%s%s (known: %s)", close ? ": did you mean [" : "",
                       close ? close : "", close ? (space ? " ...]?" : "]?") : "", known->str);
          locate (ctx, g, NULL, error);
          return FALSE;
        }
      if (table->named && (space == NULL || space[strspn (space, " \t")] == '\0'))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "section needs a name: expected [%s NAME]", table->section);
          locate (ctx, g, NULL, error);
          return FALSE;
        }
      if (!table->named && space != NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY,
                       "section takes no name: expected [%s]", table->section);
          locate (ctx, g, NULL, error);
          return FALSE;
        }
      if (!sim__keys_check_group (&ctx->reader, table, g, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
parse_size (const char *text, gpointer out, GError **error)
{
  return sim_parse_size (text, out, error);
}

static gboolean
parse_degree (const char *text, gpointer out, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (text, 1, 65536, &v, error))
    return FALSE;
  *(guint32 *) out = (guint32) v;
  return TRUE;
}

/* Reads a communication profile's keys from GROUP into COMM; absent keys
 * keep COMM's values (defaults from [workload]). */
static gboolean
read_comm (const Ctx *ctx, const char *group, SimCommProfile *comm, GError **error)
{
  static const char *keys[] = { "iteration", "gradient", "tensor_parallel", "tp_bytes",
                                "pipeline_parallel", "pp_bytes", "overlap", NULL };
  gboolean any = FALSE;

  for (guint i = 0; keys[i] != NULL; i++)
    any |= g_key_file_has_key (ctx->kf, group, keys[i], NULL);
  if (!any)
    return TRUE;
  if (comm->tp == 0)
    comm->tp = 1;
  if (comm->pp == 0)
    comm->pp = 1;
  if (!get_parsed (ctx, group, "iteration", sim__keys_parse_positive_duration, &comm->iteration,
                   error) ||
      !get_parsed (ctx, group, "gradient", (ParseFunc) parse_size, &comm->dp_bytes, error) ||
      !get_parsed (ctx, group, "tensor_parallel", (ParseFunc) parse_degree, &comm->tp, error) ||
      !get_parsed (ctx, group, "tp_bytes", (ParseFunc) parse_size, &comm->tp_bytes, error) ||
      !get_parsed (ctx, group, "pipeline_parallel", (ParseFunc) parse_degree, &comm->pp, error) ||
      !get_parsed (ctx, group, "pp_bytes", (ParseFunc) parse_size, &comm->pp_bytes, error) ||
      !get_parsed (ctx, group, "overlap", sim__keys_parse_share, &comm->overlap, error))
    return FALSE;
  if (comm->iteration == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "a communication profile needs iteration: the compute time of one "
                   "iteration, e.g. \"500ms\"");
      locate (ctx, group, NULL, error);
      return FALSE;
    }
  return TRUE;
}

static void
free_class (SimJobClassConfig *c)
{
  g_free (c->name);
  g_free (c->gpu_values);
  g_free (c->gpu_weights);
  g_free (c->duration.values);
  g_free (c->duration.weights);
}

/* "4..8": a moldable class, whose jobs take from 4 to 8 GPUs (the policy
 * picks); anything else is a mix of rigid sizes (parse_gpu_mix). */
static gboolean
parse_gpus_or_range (const char *text, SimJobClassConfig *cls, GError **error)
{
  const char *dots = strstr (text, "..");
  g_autofree char *lo = NULL, *hi = NULL;
  gint64 min, max;

  if (dots == NULL)
    {
      cls->gpus_min = 0;
      return parse_gpu_mix (text, cls, error);
    }
  lo = g_strndup (text, (gsize) (dots - text));
  hi = g_strdup (dots + 2);
  if (!sim_parse_integer (g_strstrip (lo), 1, 1000000, &min, error) ||
      !sim_parse_integer (g_strstrip (hi), 1, 1000000, &max, error))
    {
      g_prefix_error (error, "\"%s\": expected a range of GPUs MIN..MAX, e.g. \"4..8\": ", text);
      return FALSE;
    }
  if (min >= max)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": the range must go from fewer to more GPUs, e.g. \"4..8\"", text);
      return FALSE;
    }
  g_clear_pointer (&cls->gpu_values, g_free);
  g_clear_pointer (&cls->gpu_weights, g_free);
  cls->gpu_values = g_new (guint32, 1);
  cls->gpu_weights = g_new (double, 1);
  cls->gpu_values[0] = (guint32) max;
  cls->gpu_weights[0] = 1;
  cls->n_gpu_values = 1;
  cls->gpus_min = (guint32) min;
  return TRUE;
}

/* Locates ERROR at GROUP/KEY and returns FALSE. */
static gboolean
fail_at (const Ctx *ctx, const char *group, const char *key, GError **error)
{
  locate (ctx, group, key, error);
  return FALSE;
}

/* A class's scaling curve, the GPU count its durations are measured at and
 * its throughput per GPU model (sim-scaling.h).  serial_fraction implies
 * scaling = amdahl and speedup implies scaling = table; a curve measured
 * with its communication cannot also take a communication profile, whose
 * cost would then be counted twice. */
static gboolean
read_class_scaling (const Ctx *ctx, const char *group, SimJobClassConfig *cls, GError **error)
{
  g_autofree char *kind = get_raw (ctx, group, "scaling");
  g_autofree char *serial = get_raw (ctx, group, "serial_fraction");
  g_autofree char *table = get_raw (ctx, group, "speedup");
  g_autofree char *ref = get_raw (ctx, group, "reference_gpus");
  g_autofree char *thr = get_raw (ctx, group, "throughput");
  const char *key = "scaling";

  if (kind != NULL && !sim_scaling_kind_from_string (g_strstrip (kind), &cls->scaling.kind, error))
    return fail_at (ctx, group, key, error);
  if (serial != NULL)
    {
      key = "serial_fraction";
      if (kind == NULL)
        cls->scaling.kind = SIM_SCALING_AMDAHL;
      if (cls->scaling.kind != SIM_SCALING_AMDAHL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "serial_fraction applies to scaling = amdahl, not %s",
                       sim_scaling_kind_to_string (cls->scaling.kind));
          return fail_at (ctx, group, key, error);
        }
      if (!sim_parse_number (g_strstrip (serial), -G_MAXDOUBLE, G_MAXDOUBLE,
                             &cls->scaling.serial_fraction, error))
        return fail_at (ctx, group, key, error);
    }
  if (table != NULL)
    {
      key = "speedup";
      if (kind != NULL && cls->scaling.kind != SIM_SCALING_TABLE)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "speedup (measured points) applies to scaling = table, not %s",
                       sim_scaling_kind_to_string (cls->scaling.kind));
          return fail_at (ctx, group, key, error);
        }
      if (!sim_scaling_parse_table (g_strstrip (table), &cls->scaling, error))
        return fail_at (ctx, group, key, error);
    }
  key = kind != NULL ? "scaling" : serial != NULL ? "serial_fraction" : "speedup";
  if (cls->scaling.kind == SIM_SCALING_TABLE && cls->scaling.n_points == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "scaling = table needs its measured points: speedup = \"2:1.98, 4:3.88, 8:7.28\"");
      return fail_at (ctx, group, key, error);
    }
  if (cls->scaling.kind == SIM_SCALING_AMDAHL && kind != NULL && serial == NULL &&
      cls->scaling.serial_fraction == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "scaling = amdahl needs serial_fraction, e.g. serial_fraction = 0.065");
      return fail_at (ctx, group, key, error);
    }
  if (!sim_scaling_validate (&cls->scaling, error))
    return fail_at (ctx, group, key, error);
  if (cls->scaling.kind == SIM_SCALING_COMM && cls->comm.iteration == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "scaling = comm derives the speed-up from the communication profile: give "
                   "iteration and gradient (e.g. iteration = 200ms, gradient = 1.4GB)");
      return fail_at (ctx, group, key, error);
    }
  if ((cls->scaling.kind == SIM_SCALING_AMDAHL || cls->scaling.kind == SIM_SCALING_TABLE) &&
      cls->comm.iteration > 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "a %s curve already includes the job's communication: drop the "
                   "communication profile (iteration, gradient) or use scaling = comm",
                   sim_scaling_kind_to_string (cls->scaling.kind));
      return fail_at (ctx, group, key, error);
    }
  if (ref != NULL)
    {
      gint64 n;
      key = "reference_gpus";
      if (!sim_parse_integer (g_strstrip (ref), 1, 1000000, &n, error))
        return fail_at (ctx, group, key, error);
      cls->reference_gpus = (guint32) n;
    }
  if (thr != NULL)
    {
      key = "throughput";
      if (!sim_throughput_parse (g_strstrip (thr), &cls->throughput, error))
        return fail_at (ctx, group, key, error);
    }
  if (cls->gpus_min > 0 && cls->mig_profile != NULL)
    {
      key = "gpus";
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "a MIG job runs on one GPU: it cannot be moldable (gpus = MIN..MAX)");
      return fail_at (ctx, group, key, error);
    }
  return TRUE;
}

/* Reads a class's gpus, duration and estimate_factor from GROUP; keys absent
 * there keep the values already in CLS (the [workload] defaults). */
/* A job class's shared-GPU keys (sim-sharing.h): activity, memory_bound,
 * gpu_share.  Absent keys keep CLS's values (defaults from [workload]). */
static gboolean
read_class_sharing (const Ctx *ctx, const char *group, SimJobClassConfig *cls, GError **error)
{
  g_autofree char *activity = get_raw (ctx, group, "activity");
  g_autofree char *memory_bound = get_raw (ctx, group, "memory_bound");
  g_autofree char *gpu_share = get_raw (ctx, group, "gpu_share");
  double share;

  if (activity != NULL &&
      !sim__keys_parse_share_percent (g_strstrip (activity), 0, TRUE,
                            "the share of a whole GPU's time the job keeps busy", &cls->activity,
                            error))
    {
      locate (ctx, group, "activity", error);
      return FALSE;
    }
  if (memory_bound != NULL &&
      !sim__keys_parse_share_percent (g_strstrip (memory_bound), 0, FALSE,
                            "the share of the job's time limited by memory bandwidth",
                            &cls->memory_bound, error))
    {
      locate (ctx, group, "memory_bound", error);
      return FALSE;
    }
  if (gpu_share != NULL)
    {
      if (!sim__keys_parse_share_percent (g_strstrip (gpu_share), 0, TRUE,
                                "the share of one GPU each job asks for", &share, error))
        {
          locate (ctx, group, "gpu_share", error);
          return FALSE;
        }
      cls->gpu_milli = (guint32) MAX (1, lround (share * 1000));
    }
  if (cls->gpu_milli > 0 && cls->gpu_milli < 1000 &&
      (cls->n_gpu_values != 1 || cls->gpu_values[0] != 1 || cls->mig_profile != NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "a share of one GPU (%u thousandths): expected gpus = 1 and no mig",
                   cls->gpu_milli);
      locate (ctx, group, g_key_file_has_key (ctx->kf, group, "gpu_share", NULL) ? "gpu_share"
                                                                                : "gpus", error);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_class (const Ctx *ctx, const char *group, SimJobClassConfig *cls, GError **error)
{
  g_autofree char *gpus = get_raw (ctx, group, "gpus");
  g_autofree char *duration = get_raw (ctx, group, "duration");

  if (gpus != NULL && !parse_gpus_or_range (g_strstrip (gpus), cls, error))
    {
      locate (ctx, group, "gpus", error);
      return FALSE;
    }
  if (duration != NULL && !parse_duration_dist (g_strstrip (duration), &cls->duration, error))
    {
      locate (ctx, group, "duration", error);
      return FALSE;
    }
  if (g_key_file_has_key (ctx->kf, group, "priority", NULL))
    {
      g_autofree char *v = get_raw (ctx, group, "priority");
      gint64 p;
      if (!sim_parse_integer (v, -1000000, 1000000, &p, error))
        {
          locate (ctx, group, "priority", error);
          return FALSE;
        }
      cls->priority = (gint32) p;
    }
  if (g_key_file_has_key (ctx->kf, group, "tenant", NULL))
    {
      g_autofree char *v = get_raw (ctx, group, "tenant");
      gint64 t;
      if (!sim_parse_integer (v, 0, 1000000, &t, error))
        {
          locate (ctx, group, "tenant", error);
          return FALSE;
        }
      cls->tenant = (guint32) t;
    }
  if (g_key_file_has_key (ctx->kf, group, "gpu_model", NULL))
    {
      /* Names are checked against the catalogue when the simulation is
       * built (a job no pool can host is rejected, not queued forever). */
      g_autofree char *v = g_strstrip (get_raw (ctx, group, "gpu_model"));
      g_auto(GStrv) names = g_strsplit (v, "|", -1);
      g_autofree char *joined = NULL;
      for (guint i = 0; names[i] != NULL; i++)
        if (*g_strstrip (names[i]) == '\0')
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                         "\"%s\": expected GPU model names separated by '|', "
                         "e.g. \"H100-SXM|H200-SXM\"", v);
            locate (ctx, group, "gpu_model", error);
            return FALSE;
          }
      joined = g_strjoinv ("|", names);
      cls->gpu_models = g_intern_string (joined);
    }
  if (g_key_file_has_key (ctx->kf, group, "mig", NULL))
    {
      g_autofree char *mig = g_strstrip (get_raw (ctx, group, "mig"));
      /* Profile names look like "1g.10gb": digits, 'g', '.', size. */
      if (!g_regex_match_simple ("^[0-9]+g\\.[0-9]+gb(\\+me)?$", mig, 0, 0))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\" is not a MIG profile name: expected e.g. \"1g.10gb\" "
                       "(see `gpusim models show A100-SXM-80GB`)", mig);
          locate (ctx, group, "mig", error);
          return FALSE;
        }
      if (cls->n_gpu_values != 1 || cls->gpu_values[0] != 1)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "a MIG job runs on one GPU: expected gpus = 1 with mig");
          locate (ctx, group, "mig", error);
          return FALSE;
        }
      cls->mig_profile = g_intern_string (mig);
    }
  return get_parsed (ctx, group, "estimate_factor", (ParseFunc) parse_factor,
                     &cls->estimate_factor, error) &&
         get_parsed (ctx, group, "serverless", sim__keys_parse_bool, &cls->serverless, error) &&
         read_comm (ctx, group, &cls->comm, error) &&
         read_class_scaling (ctx, group, cls, error) &&
         read_class_sharing (ctx, group, cls, error);
}

/* [fabric]: how nodes are connected, key by key through the builder's own
 * parser, so that the builder owns its keys and their meaning. */
static gboolean
read_fabric (const Ctx *ctx, SimScenario *sc, GError **error)
{
  memset (&sc->fabric, 0, sizeof sc->fabric);
  return sim__keys_read_each (&ctx->reader, "fabric", (SimKeySetFunc) sim_fabric_config_set,
                              &sc->fabric, error);
}

/* A [class] section read: the modules that derive a class's jobs from
 * keys of their own (a language model's training) settle it. */
static gboolean
settle_class (const Ctx *ctx, const char *group, SimScenario *sc, SimJobClassConfig *cls,
              GError **error)
{
  const SimSectionOwner * const *owners;
  guint n_owners;

  owners = sim__scenario_section_owners (&n_owners);
  for (guint m = 0; m < n_owners; m++)
    {
      const char *key = NULL;
      if (owners[m]->settle_class != NULL &&
          !owners[m]->settle_class (&ctx->reader, group, sc, cls, &key, error))
        {
          locate (ctx, group, key, error);
          return FALSE;
        }
    }
  return TRUE;
}

/* The sections the modules own, each read by its module
 * (sim__scenario_section_owners()). */
static gboolean
read_modules (const Ctx *ctx, SimScenario *sc, GError **error)
{
  const SimSectionOwner * const *owners;
  guint n_owners;

  owners = sim__scenario_section_owners (&n_owners);
  for (guint m = 0; m < n_owners; m++)
    if (owners[m]->read != NULL && !owners[m]->read (&ctx->reader, sc, error))
      return FALSE;
  return TRUE;
}

/* [variant NAME] sections: named sets of overrides, for `gpusim compare`.
 * Each is checked by loading the scenario with it (without variants). */
static gboolean
read_variants (const Ctx *ctx, SimScenario *sc, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  GArray *variants = g_array_new (FALSE, TRUE, sizeof (SimVariant));
  gboolean ok = TRUE;

  for (guint i = 0; ok && groups[i] != NULL; i++)
    {
      SimVariant v = { 0 };
      g_auto(GStrv) keys = NULL;
      GPtrArray *sets;
      if (!g_str_has_prefix (groups[i], "variant "))
        continue;
      v.name = g_strstrip (g_strdup (groups[i] + 8));
      keys = g_key_file_get_keys (ctx->kf, groups[i], NULL, NULL);
      sets = g_ptr_array_new ();
      /* Errors in the variant's values then point at its own lines. */
      g_ptr_array_add (sets, g_strdup_printf ("[%s]", groups[i]));
      for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
        {
          const char *dot = strrchr (keys[k], '.');
          g_autofree char *value = NULL;
          if (dot == NULL || dot == keys[k] || dot[1] == '\0' ||
              g_str_has_prefix (keys[k], "variant ") || g_str_has_prefix (keys[k], "scenario.name"))
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                           "expected SECTION.KEY = VALUE, e.g. fabric.oversubscription = 2");
              locate (ctx, groups[i], keys[k], error);
              ok = FALSE;
              break;
            }
          value = g_strstrip (get_raw (ctx, groups[i], keys[k]));
          g_ptr_array_add (sets, g_strdup_printf ("%s=%s", keys[k], value));
        }
      g_ptr_array_add (sets, NULL);
      v.overrides = (char **) g_ptr_array_free (sets, FALSE);
      g_array_append_val (variants, v);
    }
  sc->n_variants = variants->len;
  sc->variants = (SimVariant *) (void *) g_array_free (variants, FALSE);
  return ok;
}

/* [comm NAME] sections: a mix of profiles drawn for jobs that have none. */
static gboolean
read_comm_mix (const Ctx *ctx, SimScenario *sc, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  GArray *mix = g_array_new (FALSE, TRUE, sizeof (SimCommMix));
  gboolean ok = TRUE;

  for (guint i = 0; ok && groups[i] != NULL; i++)
    {
      SimCommMix m = { 0 };
      if (!g_str_has_prefix (groups[i], "comm "))
        continue;
      m.name = g_strstrip (g_strdup (groups[i] + 5));
      m.share = 1;
      ok = get_parsed (ctx, groups[i], "share", (ParseFunc) parse_positive_number, &m.share,
                       error) &&
           read_comm (ctx, groups[i], &m.profile, error);
      if (ok && m.profile.iteration == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "a communication profile needs iteration: the compute time of one "
                       "iteration, e.g. \"500ms\"");
          locate (ctx, groups[i], NULL, error);
          ok = FALSE;
        }
      g_array_append_val (mix, m);
    }
  sc->n_comm_mix = mix->len;
  sc->comm_mix = (SimCommMix *) (void *) g_array_free (mix, FALSE);
  return ok;
}

/* The keys of the PAI and Gavel sources: the PAI task table and how
 * tasks become GPUs; Gavel's throughputs per job type ([class NAME]
 * throughput, NAME being the job type). */
static gboolean
read_trace_source_keys (const Ctx *ctx, SimScenario *sc, GError **error)
{
  static const char *pai_only[] = { "task_table", "pai_tasks", NULL };
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  GArray *classes;

  if (sc->source != SIM_SOURCE_PAI)
    {
      for (guint i = 0; pai_only[i] != NULL; i++)
        if (g_key_file_has_key (ctx->kf, "workload", pai_only[i], NULL))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "applies only to source = pai");
            locate (ctx, "workload", pai_only[i], error);
            return FALSE;
          }
    }
  else
    {
      g_autofree char *tasks = NULL, *mode = NULL;

      if (!require (ctx, "workload", "task_table", "the path of the PAI task table "
                    "(pai_task_table.csv)", &tasks, error))
        return FALSE;
      g_strstrip (tasks);
      sc->task_path = g_path_is_absolute (tasks) ? g_strdup (tasks)
                                                 : g_build_filename (sc->base_dir, tasks, NULL);
      mode = get_raw (ctx, "workload", "pai_tasks");
      sc->pai_tasks = SIM_PAI_TASKS_SUM;
      if (mode != NULL && strcmp (g_strstrip (mode), "largest") == 0)
        sc->pai_tasks = SIM_PAI_TASKS_LARGEST;
      else if (mode != NULL && strcmp (mode, "sum") != 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\": expected sum (a job takes "
                       "the GPUs of all its tasks) or largest (of its largest task)", mode);
          locate (ctx, "workload", "pai_tasks", error);
          return FALSE;
        }
    }

  if (sc->source != SIM_SOURCE_GAVEL)
    return TRUE;
  classes = g_array_new (FALSE, TRUE, sizeof (SimJobClassConfig));
  for (guint i = 0; groups[i] != NULL; i++)
    {
      SimJobClassConfig cls = { 0 };
      g_auto(GStrv) keys = NULL;
      g_autofree char *thr = NULL;

      if (!g_str_has_prefix (groups[i], "class "))
        continue;
      keys = g_key_file_get_keys (ctx->kf, groups[i], NULL, NULL);
      for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
        if (strcmp (keys[k], "throughput") != 0 && strcmp (keys[k], "scaling") != 0 &&
            strcmp (keys[k], "serial_fraction") != 0 && strcmp (keys[k], "speedup") != 0)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "a Gavel job type's class takes "
                         "only throughput (its steps per second on each GPU model) and its "
                         "speed-up on several GPUs (scaling, serial_fraction, speedup)");
            locate (ctx, groups[i], keys[k], error);
            goto fail;
          }
      cls.name = g_strstrip (g_strdup (groups[i] + 6));
      cls.share = 1;
      g_array_append_val (classes, cls);
      thr = get_raw (ctx, groups[i], "throughput");
      if (thr == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing key: expected the job "
                       "type's steps per second on each GPU model, e.g. "
                       "\"V100-16GB:29.95, P100:41.58\"");
          locate (ctx, groups[i], "throughput", error);
          goto fail;
        }
      /* Throughput, and the speed-up a job on several GPUs gets. */
      if (!read_class_scaling (ctx, groups[i],
                               &g_array_index (classes, SimJobClassConfig, classes->len - 1),
                               error))
        goto fail;
    }
  if (classes->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "a Gavel trace needs the throughput of "
                   "its job types: add a [class JOB TYPE] section with throughput = "
                   "GPU-MODEL:STEPS_PER_SECOND, ... for each");
      locate (ctx, "workload", "source", error);
      goto fail;
    }
  sc->generator.n_classes = classes->len;
  sc->generator.classes = (SimJobClassConfig *) (void *) g_array_free (classes, FALSE);
  return TRUE;

fail:
  for (guint i = 0; i < classes->len; i++)
    free_class (&g_array_index (classes, SimJobClassConfig, i));
  g_array_free (classes, TRUE);
  return FALSE;
}

/* The workload sources by name, in the order of #SimWorkloadSource (the
 * registry that opens them is scenario/sim-sources.c). */
static const char * const source_name[] = {
  "synthetic", "swf", "philly", "helios", "slurm", "openb", "pai", "gavel", "native",
};
G_STATIC_ASSERT (G_N_ELEMENTS (source_name) == SIM_SOURCE_NATIVE + 1);

gboolean
sim__scenario_source_from_name (const char *name, SimWorkloadSource *source)
{
  for (guint i = 0; i < G_N_ELEMENTS (source_name); i++)
    if (strcmp (name, source_name[i]) == 0)
      {
        *source = (SimWorkloadSource) i;
        return TRUE;
      }
  return FALSE;
}

const char *
sim__scenario_source_closest (const char *name)
{
  return sim__closest (name, (const char * const *) source_name, G_N_ELEMENTS (source_name));
}

char *
sim__scenario_source_names (void)
{
  GString *s = g_string_new (NULL);
  guint n = G_N_ELEMENTS (source_name);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", source_name[i]);
  return g_string_free (s, FALSE);
}

/* The PAI keys are for source = pai only. */
static gboolean
refuse_trace_source_keys (const Ctx *ctx, GError **error)
{
  static const char *keys[] = { "task_table", "pai_tasks", NULL };

  for (guint i = 0; keys[i] != NULL; i++)
    if (g_key_file_has_key (ctx->kf, "workload", keys[i], NULL))
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "applies only to source = pai");
        locate (ctx, "workload", keys[i], error);
        return FALSE;
      }
  return TRUE;
}

static gboolean
read_workload (const Ctx *ctx, SimScenario *sc, GError **error)
{
  g_autofree char *source = NULL;
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  SimJobClassConfig defaults = { 0 };
  GArray *classes;
  gboolean ok = TRUE;

  if (!g_key_file_has_group (ctx->kf, "workload"))
    {
      /* A scenario that only serves language models ([serving NAME]) runs
       * no other jobs: a synthetic workload without classes gives none. */
      for (guint i = 0; groups[i] != NULL; i++)
        if (g_str_has_prefix (groups[i], "serving "))
          {
            sc->source = SIM_SOURCE_SYNTHETIC;
            return TRUE;
          }
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: missing section [workload]: expected source = synthetic, swf, philly, "
                   "helios, slurm, openb, pai, gavel or native (or a [serving NAME] section "
                   "alone)",
                   ctx->name);
      return FALSE;
    }
  if (g_key_file_has_key (ctx->kf, "workload", "reference_gpu", NULL))
    sc->reference_gpu = g_strstrip (get_raw (ctx, "workload", "reference_gpu"));
  source = get_raw (ctx, "workload", "source");
  sc->source = SIM_SOURCE_SYNTHETIC;
  if (source != NULL && !sim__scenario_source_from_name (g_strstrip (source), &sc->source))
    {
      g_autofree char *names = sim__scenario_source_names ();
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is not a workload source%s: expected %s", source,
                   sim__did_you_mean (sim__scenario_source_closest (source)), names);
      locate (ctx, "workload", "source", error);
      return FALSE;
    }

  if (!get_parsed (ctx, "workload", "jobs", (ParseFunc) parse_jobs, &sc->generator.max_jobs, error))
    return FALSE;

  if (sc->source != SIM_SOURCE_SYNTHETIC)
    {
      g_autofree char *trace = NULL;
      static const char *synthetic_only[] = { "rate", "daily_profile", "gpus", "duration",
                                              "estimate_factor", NULL };
      for (guint i = 0; synthetic_only[i]; i++)
        if (g_key_file_has_key (ctx->kf, "workload", synthetic_only[i], NULL))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                         "applies only to source = synthetic");
            locate (ctx, "workload", synthetic_only[i], error);
            return FALSE;
          }
      if (sc->source != SIM_SOURCE_SWF &&
          g_key_file_has_key (ctx->kf, "workload", "processors_per_gpu", NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "applies only to source = swf");
          locate (ctx, "workload", "processors_per_gpu", error);
          return FALSE;
        }
      if (!require (ctx, "workload", "trace", "the path of the trace file", &trace, error))
        return FALSE;
      g_strstrip (trace);
      sc->trace_path = g_path_is_absolute (trace) ? g_strdup (trace)
                                                  : g_build_filename (sc->base_dir, trace, NULL);
      sc->swf.processors_per_gpu = 1;
      sc->swf.skip_invalid = TRUE;
      sc->swf.rebase_time = TRUE;
      sc->swf.max_jobs = sc->generator.max_jobs;
      if (!get_parsed (ctx, "workload", "processors_per_gpu", (ParseFunc) parse_positive_number,
                       &sc->swf.processors_per_gpu, error) ||
          !get_parsed (ctx, "workload", "skip_invalid", sim__keys_parse_bool,
                       &sc->swf.skip_invalid, error) ||
          !get_parsed (ctx, "workload", "rebase_time", sim__keys_parse_bool,
                       &sc->swf.rebase_time, error))
        return FALSE;
      sc->philly.max_jobs = sc->swf.max_jobs;
      sc->philly.skip_invalid = sc->swf.skip_invalid;
      sc->philly.rebase_time = sc->swf.rebase_time;
      sc->trace.max_jobs = sc->swf.max_jobs;
      sc->trace.skip_invalid = sc->swf.skip_invalid;
      sc->trace.rebase_time = sc->swf.rebase_time;
      /* Rows held to put the trace in order of submission (openb reads its
       * rows strictly in order). */
      sc->trace.reorder_window = SIM_TRACE_WINDOW_ROWS_DEFAULT;
      if (!get_parsed (ctx, "workload", "reorder_window", (ParseFunc) parse_rows,
                       &sc->trace.reorder_window, error))
        return FALSE;
      if (sc->source == SIM_SOURCE_OPENB &&
          g_key_file_has_key (ctx->kf, "workload", "reorder_window", NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "applies only to source = swf, "
                       "philly, helios or slurm (an openb pod list is read in order of "
                       "creation_time)");
          locate (ctx, "workload", "reorder_window", error);
          return FALSE;
        }
      sc->swf.reorder_window = sc->trace.reorder_window;
      sc->philly.reorder_window = sc->trace.reorder_window;
      {
        g_autofree char *variation = get_raw (ctx, "workload", "variation");
        if (variation != NULL &&
            !sim__variation_parse (variation, &sc->variation, &sc->variation_time, error))
          {
            locate (ctx, "workload", "variation", error);
            return FALSE;
          }
      }
      sc->philly.tenants = sc->tenant_names;
      return read_trace_source_keys (ctx, sc, error);
    }
  if (!refuse_trace_source_keys (ctx, error))
    return FALSE;

  {
    static const char *swf_only[] = { "trace", "processors_per_gpu", "skip_invalid",
                                      "rebase_time", "reorder_window", "variation", NULL };
    for (guint i = 0; swf_only[i]; i++)
      if (g_key_file_has_key (ctx->kf, "workload", swf_only[i], NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "applies only to %s",
                       strcmp (swf_only[i], "processors_per_gpu") == 0
                         ? "source = swf"
                         : "trace sources (source = swf, philly, helios, slurm or openb)");
          locate (ctx, "workload", swf_only[i], error);
          return FALSE;
        }
  }

  {
    g_autofree char *rate = NULL;
    if (!require (ctx, "workload", "rate", "an arrival rate such as \"30/h\"", &rate, error))
      return FALSE;
    if (!get_parsed (ctx, "workload", "rate", (ParseFunc) parse_rate, &sc->generator.rate, error))
      return FALSE;
  }
  {
    g_autofree char *profile = get_raw (ctx, "workload", "daily_profile");
    if (profile != NULL && !parse_profile (profile, sc->generator.profile, error))
      {
        locate (ctx, "workload", "daily_profile", error);
        return FALSE;
      }
  }
  sc->generator.stop_time = sc->horizon;
  if (sc->generator.max_jobs == 0 && sc->horizon == SIM_TIME_NEVER)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: the synthetic workload never ends: set [workload] jobs or "
                   "[scenario] horizon", ctx->name);
      return FALSE;
    }

  /* [workload] gpus/duration/estimate_factor are defaults for the classes. */
  if (!read_class (ctx, "workload", &defaults, error))
    {
      free_class (&defaults);
      return FALSE;
    }

  classes = g_array_new (FALSE, TRUE, sizeof (SimJobClassConfig));
  for (guint i = 0; ok && groups[i] != NULL; i++)
    {
      SimJobClassConfig cls = { 0 };
      if (!g_str_has_prefix (groups[i], "class "))
        continue;
      cls.name = g_strstrip (g_strdup (groups[i] + 6));
      cls.share = 1;
      cls.estimate_factor = defaults.estimate_factor;
      cls.activity = defaults.activity;
      cls.memory_bound = defaults.memory_bound;
      cls.gpu_milli = defaults.gpu_milli;
      if (defaults.n_gpu_values > 0)
        {
          cls.gpu_values = g_memdup2 (defaults.gpu_values, defaults.n_gpu_values * sizeof (guint32));
          cls.gpu_weights = g_memdup2 (defaults.gpu_weights, defaults.n_gpu_values * sizeof (double));
          cls.n_gpu_values = defaults.n_gpu_values;
        }
      cls.duration = defaults.duration;
      cls.scaling = defaults.scaling;
      cls.reference_gpus = defaults.reference_gpus;
      cls.gpus_min = defaults.gpus_min;
      cls.throughput = defaults.throughput;
      if (defaults.duration.n_values > 0)
        {
          cls.duration.values = g_memdup2 (defaults.duration.values,
                                           defaults.duration.n_values * sizeof (double));
          cls.duration.weights = g_memdup2 (defaults.duration.weights,
                                            defaults.duration.n_values * sizeof (double));
        }
      g_array_append_val (classes, cls);
      ok = read_class (ctx, groups[i], &g_array_index (classes, SimJobClassConfig, classes->len - 1),
                       error) &&
           get_parsed (ctx, groups[i], "share", (ParseFunc) parse_positive_number,
                       &g_array_index (classes, SimJobClassConfig, classes->len - 1).share, error);
      if (ok)
        {
          ok = settle_class (ctx, groups[i], sc,
                             &g_array_index (classes, SimJobClassConfig, classes->len - 1),
                             error);
        }
    }
  if (ok && classes->len == 0)
    {
      defaults.name = g_strdup ("default");
      defaults.share = 1;
      g_array_append_val (classes, defaults);
      memset (&defaults, 0, sizeof defaults);
    }
  free_class (&defaults);
  sc->generator.n_classes = classes->len;
  sc->generator.classes = (SimJobClassConfig *) (void *) g_array_free (classes, FALSE);
  if (!ok)
    return FALSE;

  for (guint i = 0; i < sc->generator.n_classes; i++)
    {
      SimJobClassConfig *c = &sc->generator.classes[i];
      const char *group = sc->generator.n_classes == 1 && strcmp (c->name, "default") == 0
                            ? "workload" : NULL;
      g_autofree char *gname = group ? g_strdup (group) : g_strdup_printf ("class %s", c->name);
      if (c->n_gpu_values == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key gpus: expected GPUs per job such as \"8\" or \"1:0.7, 8:0.3\" "
                       "(here or in [workload])");
          locate (ctx, gname, NULL, error);
          return FALSE;
        }
      if (c->duration.mean == 0 && c->duration.median == 0 && c->duration.n_values == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key duration: expected a distribution such as "
                       "\"lognormal(median=30min, sigma=1.5)\" (here or in [workload])");
          locate (ctx, gname, NULL, error);
          return FALSE;
        }
    }
  return TRUE;
}

/* [pool NAME] sharing: the pool's own way of sharing GPUs. */
static gboolean
read_pool_sharing (const Ctx *ctx, const char *group, SimPoolConfig *pool, GError **error)
{
  g_autofree char *v = get_raw (ctx, group, "sharing");
  SimSharingMode mode;

  if (v == NULL)
    return TRUE;
  if (!sim_sharing_mode_parse (g_strstrip (v), &mode, error))
    {
      locate (ctx, group, "sharing", error);
      return FALSE;
    }
  pool->sharing = (gint) mode;
  return TRUE;
}

/* [cluster]: how fractional jobs share a GPU (sim-sharing.h), and the
 * time MIG takes to make an instance, from its table. */
static gboolean
read_cluster_sharing (const Ctx *ctx, SimScenario *sc, GError **error)
{
  sim_sharing_config_init (&sc->sharing);
  sim__keys_apply_defaults (&cluster_table, sc);
  return sim__keys_read_group (&ctx->reader, &cluster_table, "cluster", sc, error);
}

/* ---- Clusters from trace files ([pool NAME] from = ...) --------------- */

typedef struct {
  char   *type;      /* PAI gpu_type */
  guint64 cpu, mem;  /* cores, GB */
  guint   gpus;
  guint   count;
} PaiShape;

/* Refuses KEY in GROUP, whose value the machine list gives. */
static gboolean
refuse_pool_key (const Ctx *ctx, const char *group, const char *key, const char *why,
                 GError **error)
{
  if (!g_key_file_has_key (ctx->kf, group, key, NULL))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s", why);
  locate (ctx, group, key, error);
  return FALSE;
}

/* The PAI 2020 machine list (pai_machine_spec.csv, no header: machine,
 * gpu_type, cap_cpu, cap_mem, cap_gpu): a pool per machine shape. */
static gboolean
read_pai_machines (const Ctx *ctx, const char *group, const char *name, const char *path,
                   const SimPoolConfig *tmpl, GArray *pools, GError **error)
{
  enum { M_MACHINE, M_TYPE, M_CPU, M_MEM, M_GPU, N_M };
  static const char *const names[N_M] = { "machine", "gpu_type", "cap_cpu", "cap_mem",
                                          "cap_gpu" };
  g_auto(SimTraceTable) t = { 0 };
  g_autofree char *misc = get_raw (ctx, group, "misc_gpu");
  g_autoptr(GArray) shapes = g_array_new (FALSE, TRUE, sizeof (PaiShape));
  /* Machine name -> its line: the published list names each machine once,
   * so a name seen again is a list joined to itself or to another, whose
   * machines would be counted twice. */
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint misc_machines = 0;
  GError *local = NULL;
  gboolean ok = TRUE;

  if (!refuse_pool_key (ctx, group, "gpu", "does not go with from: the list gives each machine's GPU type", error) ||
      !refuse_pool_key (ctx, group, "gpus_per_node", "does not go with from: the list gives each machine's GPUs",
                        error))
    return FALSE;
  if (misc == NULL)
    misc = g_strdup ("");
  g_strstrip (misc);
  if (!sim__trace_table_open_headerless (&t, path, ',', TRUE, names, N_M, error))
    goto fail;
  if (t.n_fields != N_M)
    {
      sim__trace_table_line_error (&t, error, "expected 5 comma-separated fields (machine, "
                                   "gpu_type, cap_cpu, cap_mem, cap_gpu), found %u", t.n_fields);
      goto fail;
    }
  for (guint k = 0; k < N_M; k++)
    t.position[k] = (gint) k;
  if (g_ascii_strcasecmp (t.field[0], "machine") == 0)
    t.pending = FALSE;
  while (sim__trace_table_next (&t, &local))
    {
      const char *type = sim__trace_table_get (&t, M_TYPE);
      const char *machine = sim__trace_table_get (&t, M_MACHINE);
      gpointer first;
      gint64 cpu, gpus;
      double mem;
      char *end;
      PaiShape *shape = NULL;

      if (*machine == '\0')
        {
          sim__trace_table_field_error (&t, M_MACHINE, &local, "the field is empty: expected "
                                        "the machine's name");
          break;
        }
      if (g_hash_table_lookup_extended (seen, machine, NULL, &first))
        {
          g_autofree char *q = sim__trace_quote (machine);
          sim__trace_table_field_error (&t, M_MACHINE, &local, "%s is listed twice (first on "
                                        "line %u): expected each machine once", q,
                                        GPOINTER_TO_UINT (first));
          break;
        }
      g_hash_table_insert (seen, g_strdup (machine), GUINT_TO_POINTER ((guint) t.line_no));
      if (*type == '\0')
        {
          sim__trace_table_field_error (&t, M_TYPE, &local, "the field is empty: expected P100, "
                                        "T4, V100, V100M32, MISC or CPU");
          break;
        }
      /* Checked on every row, CPU machines' too: a type that is none of
       * these (a shifted column, a corrupt row) was skipped without a word
       * whenever its machine had no GPUs. */
      if (g_ascii_strcasecmp (type, "CPU") != 0 && g_ascii_strcasecmp (type, "MISC") != 0 &&
          sim_pai_gpu_type_to_catalogue (type) == NULL)
        {
          g_autofree char *q = sim__trace_quote (type);
          sim__trace_table_field_error (&t, M_TYPE, &local, "%s is not a PAI GPU type: expected "
                                        "P100, T4, V100, V100M32, MISC or CPU", q);
          break;
        }
      if (!g_ascii_string_to_signed (sim__trace_table_get (&t, M_CPU), 10, 0, 100000, &cpu,
                                     NULL))
        {
          sim__trace_table_field_error (&t, M_CPU, &local, "expected a number of cores from 0 "
                                        "to 100000");
          break;
        }
      mem = g_ascii_strtod (sim__trace_table_get (&t, M_MEM), &end);
      if (end == sim__trace_table_get (&t, M_MEM) || *end != '\0' || !(mem >= 0) ||
          mem > 1e7)
        {
          sim__trace_table_field_error (&t, M_MEM, &local, "expected memory in GB from 0 to "
                                        "10,000,000");
          break;
        }
      if (!g_ascii_string_to_signed (sim__trace_table_get (&t, M_GPU), 10, 0, 64, &gpus, NULL))
        {
          sim__trace_table_field_error (&t, M_GPU, &local, "expected a number of GPUs from 0 "
                                        "to 64");
          break;
        }
      if (gpus == 0 || g_ascii_strcasecmp (type, "CPU") == 0)
        continue;  /* CPU machines: gpusim places GPU jobs only. */
      if (g_ascii_strcasecmp (type, "MISC") == 0)
        {
          misc_machines++;
          if (*misc == '\0' || g_ascii_strcasecmp (misc, "none") == 0)
            continue;
        }
      for (guint i = 0; i < shapes->len && shape == NULL; i++)
        {
          PaiShape *s = &g_array_index (shapes, PaiShape, i);
          if (strcmp (s->type, type) == 0 && s->cpu == (guint64) cpu &&
              s->mem == (guint64) llround (mem) && s->gpus == (guint) gpus)
            shape = s;
        }
      if (shape == NULL)
        {
          PaiShape s = { g_strdup (type), (guint64) cpu, (guint64) llround (mem), (guint) gpus,
                         0 };
          g_array_append_val (shapes, s);
          shape = &g_array_index (shapes, PaiShape, shapes->len - 1);
        }
      shape->count++;
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      goto fail;
    }
  if (misc_machines > 0 && *misc == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "the list has %u MISC machines (PAI's "
                   "undisclosed GPU types): set [%s] misc_gpu to a catalogue GPU model for them, "
                   "or to none to leave them out", misc_machines, group);
      goto fail;
    }
  if (shapes->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: the list has no GPU machines",
                   t.display);
      goto fail;
    }
  for (guint i = 0; i < shapes->len; i++)
    {
      PaiShape *s = &g_array_index (shapes, PaiShape, i);
      SimPoolConfig p = *tmpl;
      guint same = 0;

      for (guint j = 0; j < i; j++)
        same += strcmp (g_array_index (shapes, PaiShape, j).type, s->type) == 0;
      p.name = same == 0 ? g_strdup_printf ("%s-%s", name, s->type)
                         : g_strdup_printf ("%s-%s-%u", name, s->type, same + 1);
      p.node_model = g_strdup (tmpl->node_model);
      p.gpu_model = g_strdup (g_ascii_strcasecmp (s->type, "MISC") == 0
                                ? misc : sim_pai_gpu_type_to_catalogue (s->type));
      p.from_group = g_strdup (group);
      p.gpu_key = g_ascii_strcasecmp (s->type, "MISC") == 0 ? "misc_gpu" : "from";
      p.gpus_per_node = s->gpus;
      p.count = s->count;
      p.cpu_milli = s->cpu * 1000;
      p.memory_bytes = s->mem * 1000000000ull;
      g_array_append_val (pools, p);
    }
  for (guint i = 0; i < shapes->len; i++)
    g_free (g_array_index (shapes, PaiShape, i).type);
  return TRUE;

fail:
  for (guint i = 0; i < shapes->len; i++)
    g_free (g_array_index (shapes, PaiShape, i).type);
  (void) ok;
  locate (ctx, group, "from", error);
  return FALSE;
}

/* Philly's nodes per virtual cluster (philly-vc-nodes.csv: vc, node num):
 * a pool per VC, and the VCs as tenants 0, 1, ... with their GPUs. */
static gboolean
read_philly_vcs (const Ctx *ctx, SimScenario *sc, const char *group, const char *name,
                 const char *path, const SimPoolConfig *tmpl, GArray *pools, GError **error)
{
  enum { V_VC, V_NODES, N_V };
  static const char *const names[N_V] = { "vc", "node num" };
  static const guint required[] = { V_VC, V_NODES };
  g_auto(SimTraceTable) t = { 0 };
  g_autoptr(GPtrArray) vcs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) gpus = g_array_new (FALSE, FALSE, sizeof (double));
  GError *local = NULL;

  if (!refuse_pool_key (ctx, group, "misc_gpu", "does not go with from: misc_gpu is for pai-machines lists", error))
    return FALSE;
  if (tmpl->gpus_per_node == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing key: expected the GPUs of each "
                   "node (the list gives nodes only; Philly's nodes had 2 or 8 GPUs)");
      locate (ctx, group, "gpus_per_node", error);
      return FALSE;
    }
  if (sc->tenant_names != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "a second philly-vcs list: the VCs of "
                   "one list are the tenants");
      locate (ctx, group, "from", error);
      return FALSE;
    }
  if (!sim__trace_table_open (&t, path, ',', TRUE, names, N_V, error) ||
      !sim__trace_table_require (&t, required, N_V, error))
    goto fail;
  while (sim__trace_table_next (&t, &local))
    {
      const char *vc = sim__trace_table_get (&t, V_VC);
      gint64 nodes;
      SimPoolConfig p = *tmpl;
      double g;

      if (*vc == '\0')
        {
          sim__trace_table_field_error (&t, V_VC, &local, "the field is empty: expected the "
                                        "virtual cluster's name");
          break;
        }
      for (guint i = 0; i < vcs->len; i++)
        if (strcmp (g_ptr_array_index (vcs, i), vc) == 0)
          {
            g_autofree char *q = sim__trace_quote (vc);
            sim__trace_table_field_error (&t, V_VC, &local, "%s is listed twice", q);
            break;
          }
      if (local != NULL)
        break;
      if (!g_ascii_string_to_signed (sim__trace_table_get (&t, V_NODES), 10, 1, 10000000,
                                     &nodes, NULL))
        {
          sim__trace_table_field_error (&t, V_NODES, &local, "expected a number of nodes from 1 "
                                        "to 10000000");
          break;
        }
      p.name = g_strdup_printf ("%s-%s", name, vc);
      p.from_group = g_strdup (group);
      p.gpu_key = "gpu";
      p.node_model = g_strdup (tmpl->node_model);
      p.gpu_model = g_strdup (tmpl->gpu_model);
      p.count = (guint) nodes;
      g_array_append_val (pools, p);
      g_ptr_array_add (vcs, g_strdup (vc));
      g = (double) nodes * tmpl->gpus_per_node;
      g_array_append_val (gpus, g);
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      goto fail;
    }
  if (vcs->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: the list has no virtual clusters",
                   t.display);
      goto fail;
    }
  g_ptr_array_add (vcs, NULL);
  sc->tenant_names = (char **) g_ptr_array_free (g_steal_pointer (&vcs), FALSE);
  sc->tenant_gpus = (double *) (void *) g_array_free (g_steal_pointer (&gpus), FALSE);
  return TRUE;

fail:
  locate (ctx, group, "from", error);
  return FALSE;
}

/* [pool NAME] from = pai-machines:PATH | philly-vcs:PATH. */
static gboolean
read_pool_from (const Ctx *ctx, SimScenario *sc, const char *group, GArray *pools,
                GError **error)
{
  g_autofree char *from = g_strstrip (get_raw (ctx, group, "from"));
  g_autofree char *name = g_strstrip (g_strdup (group + 5));
  g_autofree char *path = NULL;
  SimPoolConfig tmpl = { 0 };
  char *colon = strchr (from, ':');
  gboolean ok;

  if (!refuse_pool_key (ctx, group, "count", "does not go with from: the list gives the number of nodes", error))
    return FALSE;
  if (colon == NULL || colon[1] == '\0' ||
      (!g_str_has_prefix (from, "pai-machines:") && !g_str_has_prefix (from, "philly-vcs:")))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\": expected pai-machines:PATH "
                   "(the PAI 2020 pai_machine_spec.csv) or philly-vcs:PATH (Philly's "
                   "philly-vc-nodes.csv)", from);
      locate (ctx, group, "from", error);
      return FALSE;
    }
  path = g_strstrip (g_strdup (colon + 1));
  if (!g_path_is_absolute (path))
    {
      char *abs = g_build_filename (sc->base_dir, path, NULL);
      g_free (path);
      path = abs;
    }
  {
    guint n = sc->node_lists != NULL ? g_strv_length (sc->node_lists) : 0;

    sc->node_lists = g_renew (char *, sc->node_lists, n + 2);
    sc->node_lists[n] = g_strdup (path);
    sc->node_lists[n + 1] = NULL;
  }
  tmpl.node_model = get_raw (ctx, group, "model");
  if (tmpl.node_model == NULL)
    tmpl.node_model = g_strdup ("PCIe-8GPU");
  g_strstrip (tmpl.node_model);
  tmpl.gpu_model = get_raw (ctx, group, "gpu");
  if (tmpl.gpu_model != NULL)
    g_strstrip (tmpl.gpu_model);
  tmpl.sharing = -1;
  ok = get_parsed (ctx, group, "gpus_per_node", (ParseFunc) parse_count, &tmpl.gpus_per_node,
                   error) &&
       read_pool_sharing (ctx, group, &tmpl, error);
  if (ok)
    ok = g_str_has_prefix (from, "pai-machines:")
           ? read_pai_machines (ctx, group, name, path, &tmpl, pools, error)
           : read_philly_vcs (ctx, sc, group, name, path, &tmpl, pools, error);
  g_free (tmpl.node_model);
  g_free (tmpl.gpu_model);
  return ok;
}

/* [policy] quota for the fair-share queue: each Philly VC's GPUs, unless
 * the scenario gives its own.  Only a Philly workload numbers its tenants
 * by the VC list; other sources have tenants of their own, which the VCs'
 * quotas would fit by accident only. */
static void
set_vc_quotas (SimScenario *sc)
{
  g_autoptr(GString) quota = NULL;

  if (sc->tenant_names == NULL || sc->source != SIM_SOURCE_PHILLY || sc->plugin != NULL ||
      sc->queue == NULL ||
      strcmp (sc->queue, "fair-share") != 0 ||
      g_hash_table_contains (sc->policy_params, "quota"))
    return;
  quota = g_string_new (NULL);
  for (guint i = 0; sc->tenant_names[i] != NULL; i++)
    g_string_append_printf (quota, "%s%u:%.0f", i > 0 ? ", " : "", i, sc->tenant_gpus[i]);
  g_hash_table_insert (sc->policy_params, g_strdup ("quota"), g_string_free (g_steal_pointer (&quota), FALSE));
}

static gboolean
read_pools (const Ctx *ctx, SimScenario *sc, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (ctx->kf, NULL);
  GArray *pools = g_array_new (FALSE, TRUE, sizeof (SimPoolConfig));
  gboolean ok = TRUE;

  for (guint i = 0; ok && groups[i] != NULL; i++)
    {
      SimPoolConfig p = { 0 };
      SimPoolConfig *pp;
      char *gpu;
      if (!g_str_has_prefix (groups[i], "pool "))
        continue;
      if (g_key_file_has_key (ctx->kf, groups[i], "from", NULL))
        {
          ok = read_pool_from (ctx, sc, groups[i], pools, error);
          continue;
        }
      if (!refuse_pool_key (ctx, groups[i], "misc_gpu", "misc_gpu is for from = "
                            "pai-machines:PATH", error))
        {
          ok = FALSE;
          break;
        }
      p.name = g_strstrip (g_strdup (groups[i] + 5));
      g_array_append_val (pools, p);
      pp = &g_array_index (pools, SimPoolConfig, pools->len - 1);
      ok = require (ctx, groups[i], "model", "a node model from the catalogue, e.g. DGX-H100",
                    &pp->node_model, error);
      if (ok)
        g_strstrip (pp->node_model);
      if (ok && !g_key_file_has_key (ctx->kf, groups[i], "count", NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key: expected the number of nodes");
          locate (ctx, groups[i], "count", error);
          ok = FALSE;
        }
      ok = ok && get_parsed (ctx, groups[i], "count", (ParseFunc) parse_count, &pp->count, error);
      ok = ok && get_parsed (ctx, groups[i], "gpus_per_node", (ParseFunc) parse_count,
                             &pp->gpus_per_node, error);
      gpu = get_raw (ctx, groups[i], "gpu");
      pp->gpu_model = gpu ? g_strstrip (gpu) : NULL;
      pp->sharing = -1;
      ok = ok && read_pool_sharing (ctx, groups[i], pp, error);
    }
  sc->n_pools = pools->len;
  sc->pools = (SimPoolConfig *) (void *) g_array_free (pools, FALSE);
  if (ok && sc->n_pools == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: no [pool NAME] section: expected at least one pool of nodes, e.g.\n"
                   "  [pool main]\n  model = DGX-H100\n  count = 16", ctx->name);
      return FALSE;
    }
  return ok;
}

/* A section or key name that a key file can hold: not empty, without
 * brackets or control characters. */
static gboolean
is_override_name (const char *name)
{
  if (*name == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (*p == '[' || *p == ']' || g_ascii_iscntrl (*p))
      return FALSE;
  return TRUE;
}

char *
sim__scenario_key_group (const char *group)
{
  static const char *const named[] = { "pool.", "class.", "comm.", "serving.", "requests." };

  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    if (g_str_has_prefix (group, named[i]) && group[strlen (named[i])] != '\0')
      {
        char *copy = g_strdup (group);
        copy[strlen (named[i]) - 1] = ' ';
        return copy;
      }
  return g_strdup (group);
}

gboolean
sim__scenario_split_override (const char *o, char **group, char **key, GError **error)
{
  const char *eq = strchr (o, '=');
  const char *dot;
  g_autofree char *lhs = NULL, *spelt = NULL;

  if (!g_utf8_validate (o, -1, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "--set: not UTF-8 text");
      return FALSE;
    }
  if (eq == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "--set %s: expected SECTION.KEY=VALUE, e.g. scenario.seed=7", o);
      return FALSE;
    }
  lhs = g_strndup (o, (gsize) (eq - o));
  dot = strrchr (lhs, '.');
  if (dot == NULL || dot == lhs || dot[1] == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "--set %s: expected SECTION.KEY=VALUE, e.g. scenario.seed=7", o);
      return FALSE;
    }
  spelt = g_strstrip (g_strndup (lhs, (gsize) (dot - lhs)));
  *group = sim__scenario_key_group (spelt);
  *key = g_strstrip (g_strdup (dot + 1));
  if (!is_override_name (*group) || !is_override_name (*key))
    {
      g_clear_pointer (group, g_free);
      g_clear_pointer (key, g_free);
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "--set %s: expected SECTION.KEY=VALUE, e.g. scenario.seed=7 (names not "
                   "empty, without brackets or control characters)", o);
      return FALSE;
    }
  return TRUE;
}

/* Applies "group.key=value" overrides.  The group is everything before the
 * last dot of the part before '=', so named groups work: "pool a.count=4",
 * and "pool.a.count=4" too (sim__scenario_key_group()). */
static gboolean
apply_overrides (Ctx *ctx, const char * const *overrides, GError **error)
{
  g_autofree char *origin = g_strdup ("");

  for (guint i = 0; overrides != NULL && overrides[i] != NULL; i++)
    {
      const char *o = overrides[i];
      const char *eq = strchr (o, '=');
      g_autofree char *group = NULL, *key = NULL;

      /* "[variant NAME]": the overrides that follow come from that section
       * of the file (errors give its lines); "[--set]": from the user again. */
      if (o[0] == '[' && g_str_has_suffix (o, "]") && eq == NULL)
        {
          g_free (origin);
          origin = g_strndup (o + 1, strlen (o) - 2);
          if (strcmp (origin, "--set") == 0)
            origin[0] = '\0';
          else if ((!g_str_has_prefix (origin, "variant ") && strcmp (origin, "sweep") != 0) ||
                   sim__key_lines_find (ctx->lines, origin, NULL) == 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                           "%s: %s: no such section in the scenario (expected \"[variant NAME]\" "
                           "naming one of its variants, \"[sweep]\" or \"[--set]\")", ctx->name, o);
              return FALSE;
            }
          continue;
        }

      if (!sim__scenario_split_override (o, &group, &key, error))
        return FALSE;
      g_key_file_set_value (ctx->kf, group, key, eq + 1);
      g_hash_table_replace (ctx->overridden, g_strdup_printf ("%s\037%s", group, key),
                            g_strdup (origin));
    }
  return TRUE;
}

static SimScenario *
parse (Ctx *ctx, const char *base_dir, const char * const *overrides, GError **error)
{
  g_autoptr(SimScenario) sc = g_new0 (SimScenario, 1);
  g_autofree char *models = NULL;

  sc->ref_count = 1;
  sc->path = g_strdup (ctx->name);
  sc->base_dir = base_dir ? g_strdup (base_dir) : g_get_current_dir ();
  ctx->reader.base_dir = sc->base_dir;
  sc->horizon = SIM_TIME_NEVER;
  sim__keys_apply_defaults (&scenario_table, sc);
  sim__keys_apply_defaults (&policy_table, sc);
  sim__keys_apply_defaults (&output_table, sc);

  if (!apply_overrides (ctx, overrides, error))
    return NULL;
  if (!check_schema (ctx, error))
    return NULL;

  if (!g_key_file_has_group (ctx->kf, "scenario"))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s: missing section [scenario]: expected at least its name", ctx->name);
      return NULL;
    }
  if (!require (ctx, "scenario", "name", "the scenario's name", &sc->name, error))
    return NULL;
  g_strstrip (sc->name);
  sc->description = get_raw (ctx, "scenario", "description");
  if (!sim__keys_read_group (&ctx->reader, &scenario_table, "scenario", sc, error) ||
      !get_parsed (ctx, "scenario", "horizon", sim__keys_parse_positive_duration, &sc->horizon,
                   error))
    return NULL;
  models = get_raw (ctx, "scenario", "models");
  if (models != NULL)
    {
      g_auto(GStrv) dirs = g_strsplit (models, ",", -1);
      GPtrArray *abs = g_ptr_array_new ();
      for (guint i = 0; dirs[i] != NULL; i++)
        {
          char *d = g_strstrip (dirs[i]);
          if (*d == '\0')
            continue;
          g_ptr_array_add (abs, g_path_is_absolute (d) ? g_strdup (d)
                                                       : g_build_filename (sc->base_dir, d, NULL));
        }
      g_ptr_array_add (abs, NULL);
      sc->model_dirs = (char **) g_ptr_array_free (abs, FALSE);
    }

  if (!read_cluster_sharing (ctx, sc, error))
    return NULL;
  if (!read_pools (ctx, sc, error) || !read_workload (ctx, sc, error) ||
      !read_comm_mix (ctx, sc, error) || !read_fabric (ctx, sc, error) ||
      !read_modules (ctx, sc, error) || !read_variants (ctx, sc, error))
    return NULL;

  /* Moldable jobs are sized by the simulation for every policy, so
   * moldable_efficiency is not passed on to the policy; interval and
   * backfill_interval are the scheduling cycle (0: decide at every event). */
  if (!sim__keys_read_group (&ctx->reader, &policy_table, "policy", sc, error))
    return NULL;
  if (g_key_file_has_key (ctx->kf, "policy", "plugin", NULL))
    {
      g_autofree char *plugin = g_strstrip (get_raw (ctx, "policy", "plugin"));
      sc->plugin = g_canonicalize_filename (plugin, sc->base_dir);
    }
  sc->policy_params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (g_key_file_has_group (ctx->kf, "policy"))
    {
      g_auto(GStrv) keys = g_key_file_get_keys (ctx->kf, "policy", NULL, NULL);
      for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
        {
          if (sim__keys_find (&policy_table, keys[k]) != NULL)
            continue;
          /* A near miss of the section's own keys that the chosen built-in
           * policy does not read is a typo of them; any other key is the
           * policy's to accept or refuse (a plugin reads its own). */
          if (sc->plugin == NULL && sim__keys_closest (&policy_table, keys[k]) != NULL &&
              !sim__policy_reads_key (sc->queue, sc->placement, keys[k]))
            {
              sim__keys_set_unknown (&policy_table, keys[k], error);
              locate (ctx, "policy", keys[k], error);
              return NULL;
            }
          g_hash_table_insert (sc->policy_params, g_strdup (keys[k]),
                               g_strstrip (get_raw (ctx, "policy", keys[k])));
        }
    }
  set_vc_quotas (sc);
  if (sc->backfill_interval > 0 && (sc->queue == NULL || strcmp (sc->queue, "easy") != 0 ||
                                    sc->plugin != NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "only the easy queue backfills (queue is \"%s\"): remove the key, or set "
                   "[policy] queue = easy", sc->plugin ? "a plugin" : sc->queue ? sc->queue : "?");
      locate (ctx, "policy", "backfill_interval", error);
      return NULL;
    }
  if (!sim__keys_read_group (&ctx->reader, &output_table, "output", sc, error))
    return NULL;
  return g_steal_pointer (&sc);
}

SimScenario *
sim_scenario_load_from_data (const char *data, gssize length, const char *name,
                             const char *base_dir, const char * const *overrides, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_autoptr(SimKeyLines) lines = NULL;
  const char *bad = NULL;
  g_autoptr(GHashTable) overridden = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             g_free);
  Ctx ctx;
  SimScenario *sc;

  g_return_val_if_fail (data != NULL && name != NULL, NULL);
  if (length < 0)
    length = (gssize) strlen (data);
  /* A UTF-8 byte-order mark at the start is not part of the first line. */
  if (length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    {
      data += 3;
      length -= 3;
    }
  /* Names and values end up in messages, reports and JSON: UTF-8 only. */
  if (!g_utf8_validate (data, length, &bad))
    {
      guint line = 1;
      for (const char *p = data; p < bad; p++)
        line += *p == '\n';
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: not UTF-8 text", name, line);
      return NULL;
    }
  if (!g_key_file_load_from_data (kf, data, (gsize) length, G_KEY_FILE_NONE, &local))
    {
      guint line = sim__key_file_bad_line (data, (gsize) length);
      if (line > 0)
        g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s:%u: not a valid key file: %s", name,
                     line, local->message);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "%s: not a valid key file: %s", name,
                     local->message);
      return NULL;
    }
  lines = sim__key_lines_new (data, length, name, error);
  if (lines == NULL)
    return NULL;
  ctx.reader.kf = kf;
  ctx.reader.base_dir = base_dir;
  ctx.reader.locate = locate_for_reader;
  ctx.name = name;
  ctx.kf = kf;
  ctx.lines = lines;
  ctx.overridden = overridden;
  sc = parse (&ctx, base_dir, overrides, error);
  if (sc != NULL)
    {
      /* Kept for messages about the scenario found later (unknown models). */
      sc->lines = g_steal_pointer (&lines);
      sc->overridden = g_steal_pointer (&overridden);
    }
  return sc;
}

/* The table of SECTION ("power", "[power]", "class", "[class NAME]"), or
 * NULL with ERROR naming the closest section. */
static const SimKeyTable *
find_section (const char *section, GError **error)
{
  g_autofree char *name = g_strstrip (g_strdup (section));
  guint n_tables;
  const SimKeyTable * const *key_tables = sim__scenario_key_tables (&n_tables);
  const char **names = g_newa (const char *, n_tables);
  g_autoptr(GString) known = g_string_new (NULL);
  const SimKeyTable *table;
  gsize len = strlen (name);
  char *space;

  if (len >= 2 && name[0] == '[' && name[len - 1] == ']')
    {
      memmove (name, name + 1, len - 2);
      name[len - 2] = '\0';
    }
  space = strchr (name, ' ');
  if (space != NULL)
    *space = '\0';
  table = find_table (name);
  if (table != NULL)
    return table;
  for (guint i = 0; i < n_tables; i++)
    {
      names[i] = key_tables[i]->section;
      g_string_append_printf (known, "%s%s", i ? ", " : "", key_tables[i]->section);
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND, "no section [%s] in a scenario%s "
               "(known: %s)", name,
               sim__did_you_mean (sim__closest (name, names, n_tables)),
               known->str);
  return NULL;
}

/* Appends TABLE to OUT; for [policy], then the keys the built-in policies
 * read, which pass through the section to them. */
static void
print_table (GString *out, const SimKeyTable *table, gboolean markdown)
{
  g_autoptr(GPtrArray) readers = NULL;

  sim__keys_print (out, table, markdown);
  if (table != &policy_table)
    return;
  readers = sim__policy_param_readers ();
  if (readers->len == 0)
    return;
  g_string_append (out, markdown ? "Keys the built-in policies read:\n\n"
                                   "| Key | Read by |\n|-----|---------|\n"
                                 : "  Keys the built-in policies read:\n");
  for (guint i = 0; i < readers->len; i++)
    {
      const char *line = readers->pdata[i];
      const char *tab = strchr (line, '\t');
      if (markdown)
        g_string_append_printf (out, "| `%.*s` | %s |\n", (int) (tab - line), line, tab + 1);
      else
        g_string_append_printf (out, "  %-22.*s read by %s\n", (int) (tab - line), line,
                                tab + 1);
    }
  if (markdown)
    g_string_append_c (out, '\n');
}

char *
sim_scenario_dup_key_reference (const char *section, gboolean markdown, GError **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const SimKeyTable * const *key_tables;
  guint n_tables;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (section != NULL)
    {
      const SimKeyTable *table = find_section (section, error);
      if (table == NULL)
        return NULL;
      print_table (out, table, markdown);
      return g_string_free (g_steal_pointer (&out), FALSE);
    }
  key_tables = sim__scenario_key_tables (&n_tables);
  for (guint i = 0; i < n_tables; i++)
    {
      if (i > 0 && !markdown)
        g_string_append_c (out, '\n');
      print_table (out, key_tables[i], markdown);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

gboolean
sim__scenario_check_output (const SimScenario *scenario, const char *option, const char *output,
                            const char * const *names, GError **error)
{
  struct { const char *path; const char *what; } inputs[] = {
    { scenario->path, "the scenario being read" },
    { scenario->trace_path, "the scenario's trace being read" },
    { scenario->task_path, "the scenario's task table being read" },
    { scenario->plugin, "the scenario's policy plugin being read" },
    { scenario->cost.energy_price_file, "the scenario's energy price file being read" },
    { scenario->cost.carbon_intensity_file, "the scenario's carbon intensity file being read" },
    { scenario->cooling.outdoor_csv, "the scenario's outdoor temperature file being read" },
  };

  g_return_val_if_fail (scenario != NULL, FALSE);
  if (output == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    if (names != NULL
          ? !sim__check_output_dir (option, output, names, inputs[i].path, inputs[i].what, error)
          : !sim__check_output (option, output, inputs[i].path, inputs[i].what, error))
      return FALSE;
  for (guint i = 0; scenario->node_lists != NULL && scenario->node_lists[i] != NULL; i++)
    if (names != NULL
          ? !sim__check_output_dir (option, output, names, scenario->node_lists[i],
                                    "a node list of the scenario being read", error)
          : !sim__check_output (option, output, scenario->node_lists[i],
                                "a node list of the scenario being read", error))
      return FALSE;
  return TRUE;
}

gboolean
sim__scenario_check_models (const SimScenario *scenario, GError **error)
{
  g_return_val_if_fail (scenario != NULL, FALSE);
  for (guint i = 0; scenario->model_dirs != NULL && scenario->model_dirs[i] != NULL; i++)
    if (!g_file_test (scenario->model_dirs[i], G_FILE_TEST_IS_DIR))
      {
        g_autofree char *shown = g_filename_display_name (scenario->model_dirs[i]);
        g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                     "%s %s: expected directories of model files, separated by commas", shown,
                     g_file_test (scenario->model_dirs[i], G_FILE_TEST_EXISTS)
                       ? "is not a directory" : "does not exist");
        sim__scenario_locate (scenario, "scenario", "models", error);
        return FALSE;
      }
  return TRUE;
}

void
sim__scenario_locate (const SimScenario *scenario, const char *group, const char *key,
                      GError **error)
{
  Ctx ctx = { 0 };

  g_return_if_fail (scenario != NULL);
  ctx.name = scenario->path;
  ctx.lines = scenario->lines;
  ctx.overridden = scenario->overridden;
  locate (&ctx, group, key, error);
}

SimScenario *
sim_scenario_load (const char *path, const char * const *overrides, GError **error)
{
  g_autofree char *data = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *absdir = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  /* The bounded reader refuses a device, a FIFO, a file over its size
   * limit and a NUL byte, each naming the file (and line), before the key
   * file parser sees a byte: `gpusim run /dev/zero` used to read forever. */
  data = sim__read_file (path, SIM_READ_TEXT, &len, error);
  if (data == NULL)
    {
      g_prefix_error (error, "scenario ");
      return NULL;
    }
  dir = g_path_get_dirname (path);
  absdir = g_canonicalize_filename (dir, NULL);
  return sim_scenario_load_from_data (data, (gssize) len, path, absdir, overrides, error);
}

SimScenario *
sim_scenario_ref (SimScenario *scenario)
{
  g_return_val_if_fail (scenario != NULL, NULL);
  g_atomic_int_inc (&scenario->ref_count);
  return scenario;
}

void
sim_scenario_unref (SimScenario *sc)
{
  if (sc == NULL || !g_atomic_int_dec_and_test (&sc->ref_count))
    return;
  {
    const SimSectionOwner * const *owners;
    guint n_owners;

    owners = sim__scenario_section_owners (&n_owners);
    for (guint m = 0; m < n_owners; m++)
      if (owners[m]->clear != NULL)
        owners[m]->clear (sc);
  }
  g_free (sc->path);
  g_free (sc->base_dir);
  g_free (sc->name);
  g_free (sc->description);
  g_strfreev (sc->model_dirs);
  for (guint i = 0; i < sc->n_pools; i++)
    {
      g_free (sc->pools[i].name);
      g_free (sc->pools[i].node_model);
      g_free (sc->pools[i].gpu_model);
      g_free (sc->pools[i].from_group);
    }
  g_free (sc->pools);
  for (guint i = 0; i < sc->generator.n_classes; i++)
    free_class (&sc->generator.classes[i]);
  g_free (sc->generator.classes);
  sim_fabric_config_clear (&sc->fabric);
  for (guint i = 0; i < sc->n_variants; i++)
    {
      g_free (sc->variants[i].name);
      g_strfreev (sc->variants[i].overrides);
    }
  g_free (sc->variants);
  for (guint i = 0; i < sc->n_comm_mix; i++)
    g_free (sc->comm_mix[i].name);
  g_free (sc->comm_mix);
  g_free (sc->trace_path);
  g_free (sc->task_path);
  g_strfreev (sc->node_lists);
  g_strfreev (sc->tenant_names);
  g_free (sc->tenant_gpus);
  g_free (sc->queue);
  g_free (sc->placement);
  g_free (sc->plugin);
  g_free (sc->reference_gpu);
  if (sc->policy_params != NULL)
    g_hash_table_unref (sc->policy_params);
  sim__key_lines_free (sc->lines);
  if (sc->overridden != NULL)
    g_hash_table_unref (sc->overridden);
  g_free (sc);
}
