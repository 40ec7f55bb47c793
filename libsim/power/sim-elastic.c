/* sim-elastic.c: bursting into a cloud pool and serverless GPU functions
 * (see sim-elastic.h). */
#include "config.h"

#include "power/sim-elastic.h"
#include "kernel/sim-kernel.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "scenario/sim-scenario-private.h"
#include "core/sim-keys.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Scenario keys.                                                            */

static const SimKey elastic_keys[] = {
  { "pool", SIM_KEY_STRING, NULL, NULL, NULL,
    "the [pool NAME] of the scenario that is the cloud's capacity", SIM_KEY_REQUIRED, NULL, 0 },
  { "cloud", SIM_KEY_STRING, NULL, NULL, NULL,
    "a cloud offer of the catalogue, for the node-hour's price", 0, NULL, 0 },
  { "scale_up_queue", SIM_KEY_INT, "jobs", "0 to 10000000", "1, or 0 with scale_up_wait",
    "the jobs waiting that trigger a scale-up (0: no such trigger)", SIM_KEY_DEFAULT_DESCRIBED,
    NULL, 0 },
  { "scale_up_wait", SIM_KEY_TIME, "s", NULL, "none",
    "a job waiting this long triggers a scale-up (0: no such trigger)",
    SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "startup", SIM_KEY_TIME, "s", NULL, NULL,
    "the time from a scale-up to the new nodes taking jobs", SIM_KEY_REQUIRED, NULL, 0 },
  { "scale_down_delay", SIM_KEY_TIME, "s", NULL, "10min",
    "a cloud node idle this long is released (Kubernetes' cluster autoscaler: 10 min)", 0,
    NULL, 0 },
  { "max_nodes", SIM_KEY_INT, NULL, "0 to the pool's nodes", "the pool's nodes",
    "the most cloud nodes held at once (0: no bursting)", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "step", SIM_KEY_INT, "nodes", "1 to 10000000", "1", "the nodes requested per scale-up", 0,
    NULL, 0 },
  { "price_per_node_hour", SIM_KEY_NUMBER, "USD", "0 to 1e9", "cloud offer's",
    "the price of a cloud node-hour (needed without cloud)", SIM_KEY_DEFAULT_DESCRIBED, NULL,
    0 },
  { "min_billing", SIM_KEY_TIME, "s", NULL, "60s",
    "the shortest time a node is billed for (EC2: 60 s)", 0, NULL, 0 },
};

const SimKeyTable sim__elastic_key_table = {
  "elastic", FALSE, "Cloud nodes added to a pool when jobs wait, and released when idle",
  elastic_keys, G_N_ELEMENTS (elastic_keys), NULL, NULL,
};

static const SimKey serverless_keys[] = {
  { "cold_start", SIM_KEY_TIME, "s", NULL, NULL,
    "the time a function takes to start on a new instance", SIM_KEY_REQUIRED, NULL, 0 },
  { "keep_warm", SIM_KEY_TIME, "s", NULL, "0s",
    "an instance idle this long is released (0: at once)", 0, NULL, 0 },
  { "price_per_gpu_second", SIM_KEY_NUMBER, "USD", "0 to 1e9", NULL,
    "the price of a GPU-second", SIM_KEY_REQUIRED, NULL, 0 },
  { "invocation_fee", SIM_KEY_NUMBER, "USD", "0 to 1e9", "0", "the price of one execution",
    0, NULL, 0 },
  { "bill_cold_start", SIM_KEY_BOOL, NULL, NULL, "true",
    "whether the cold start is billed as GPU time", 0, NULL, 0 },
  { "max_gpus", SIM_KEY_INT, NULL, "0 to 10000000", "0",
    "the most GPUs of a job that runs as a function (0: no such limit)", 0, NULL, 0 },
  { "max_duration", SIM_KEY_TIME, "s", NULL, "0s",
    "the longest a function may run (0: no limit)", 0, NULL, 0 },
};

const SimKeyTable sim__serverless_key_table = {
  "serverless", FALSE, "Jobs of classes marked serverless run as functions on rented GPUs",
  serverless_keys, G_N_ELEMENTS (serverless_keys), NULL, NULL,
};

/* Not given yet (replaced by defaults in the check). */
#define UNSET_COUNT G_MAXUINT
#define UNSET_TIME  ((SimTime) -1)

void
sim__elastic_config_init (SimElasticConfig *config)
{
  memset (config, 0, sizeof *config);
  config->scale_up_queue = UNSET_COUNT;
  config->scale_up_wait = UNSET_TIME;
  config->startup = UNSET_TIME;
  config->max_nodes = -1;
  config->price_per_node_hour = -1;
  /* The table's defaults: one node per scale-up; Kubernetes' cluster
   * autoscaler releases a node unneeded for 10 min
   * (--scale-down-unneeded-time); EC2 bills per second with a 60 s
   * minimum (models/SOURCES.md, "Elastic capacity").  Setting a key turns
   * the section on, which only the section itself does. */
  sim__keys_apply_defaults_with (&sim__elastic_key_table,
                                 (SimKeySetFunc) sim__elastic_config_set, config);
  config->enabled = FALSE;
}

void
sim__elastic_config_clear (SimElasticConfig *config)
{
  g_clear_pointer (&config->pool, g_free);
  g_clear_pointer (&config->cloud, g_free);
}

void
sim__serverless_config_init (SimServerlessConfig *config)
{
  memset (config, 0, sizeof *config);
  config->cold_start = UNSET_TIME;
  config->price_per_gpu_second = -1;
  sim__keys_apply_defaults_with (&sim__serverless_key_table,
                                 (SimKeySetFunc) sim__serverless_config_set, config);
  config->enabled = FALSE;
}

static gboolean
parse_count (const char *text, guint min, guint *out, const char *what, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (text, min, 10000000, &v, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\": expected %s, an integer from "
                   "%u", text, what, min);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean
parse_usd (const char *text, double *out, const char *what, GError **error)
{
  if (!sim_parse_number (text, 0, 1e9, out, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": expected %s, a number of US dollars from 0 (no unit)", text, what);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_time (const char *text, SimTime *out, GError **error)
{
  return sim_parse_duration (text, out, error);
}

gboolean
sim__elastic_config_set (SimElasticConfig *config, const char *key, const char *value,
                         GError **error)
{
  config->enabled = TRUE;
  if (strcmp (key, "pool") == 0 || strcmp (key, "cloud") == 0)
    {
      char **field = key[0] == 'p' ? &config->pool : &config->cloud;
      if (*value == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "empty: expected %s",
                       key[0] == 'p' ? "the name of a [pool NAME] of the scenario"
                                     : "a cloud instance of the catalogue");
          return FALSE;
        }
      g_free (*field);
      *field = g_strdup (value);
      return TRUE;
    }
  if (strcmp (key, "scale_up_queue") == 0)
    return parse_count (value, 0, &config->scale_up_queue,
                        "the jobs waiting that trigger a scale-up (0: no trigger)", error);
  if (strcmp (key, "scale_up_wait") == 0)
    return parse_time (value, &config->scale_up_wait, error);
  if (strcmp (key, "startup") == 0)
    return parse_time (value, &config->startup, error);
  if (strcmp (key, "scale_down_delay") == 0)
    return parse_time (value, &config->scale_down_delay, error);
  if (strcmp (key, "min_billing") == 0)
    return parse_time (value, &config->min_billing, error);
  if (strcmp (key, "max_nodes") == 0)
    {
      guint n;
      if (!parse_count (value, 0, &n, "the most cloud nodes held at once (0: no bursting)",
                        error))
        return FALSE;
      config->max_nodes = (gint) n;
      return TRUE;
    }
  if (strcmp (key, "step") == 0)
    return parse_count (value, 1, &config->step, "the nodes requested per scale-up", error);
  if (strcmp (key, "price_per_node_hour") == 0)
    return parse_usd (value, &config->price_per_node_hour, "the price of a node-hour", error);
  sim__keys_set_unknown (&sim__elastic_key_table, key, error);
  return FALSE;
}

gboolean
sim__serverless_config_set (SimServerlessConfig *config, const char *key, const char *value,
                            GError **error)
{
  config->enabled = TRUE;
  if (strcmp (key, "cold_start") == 0)
    return parse_time (value, &config->cold_start, error);
  if (strcmp (key, "keep_warm") == 0)
    return parse_time (value, &config->keep_warm, error);
  if (strcmp (key, "max_duration") == 0)
    return parse_time (value, &config->max_duration, error);
  if (strcmp (key, "price_per_gpu_second") == 0)
    return parse_usd (value, &config->price_per_gpu_second, "the price of a GPU-second", error);
  if (strcmp (key, "invocation_fee") == 0)
    return parse_usd (value, &config->invocation_fee, "the price of one execution", error);
  if (strcmp (key, "bill_cold_start") == 0)
    return sim__keys_parse_bool (value, &config->bill_cold_start, error);
  if (strcmp (key, "max_gpus") == 0)
    return parse_count (value, 0, &config->max_gpus,
                        "the most GPUs of a job that runs as a function (0: no such rule)",
                        error);
  sim__keys_set_unknown (&sim__serverless_key_table, key, error);
  return FALSE;
}

/* A [serverless] section under which no job runs as a function is
 * allowed: it is how a variant turns the functions off. */
static gboolean
has_serverless_class (const SimScenario *sc, const char **name)
{
  for (guint c = 0; c < sc->generator.n_classes; c++)
    if (sc->generator.classes[c].serverless)
      {
        *name = sc->generator.classes[c].name;
        return TRUE;
      }
  return FALSE;
}

gboolean
sim__elastic_config_check (SimScenario *sc, const char **group, const char **key,
                           GError **error)
{
  SimElasticConfig *e = &sc->elastic;
  SimServerlessConfig *s = &sc->serverless;
  const char *class_name = NULL;

  *key = NULL;
  if (e->enabled)
    {
      const SimPoolConfig *pool = NULL;
      *group = "elastic";
      if (e->pool == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key pool: expected the [pool NAME] that is the cloud");
          return FALSE;
        }
      for (guint p = 0; p < sc->n_pools; p++)
        if (strcmp (sc->pools[p].name, e->pool) == 0)
          pool = &sc->pools[p];
      if (pool == NULL)
        {
          g_autoptr(GPtrArray) names = g_ptr_array_new ();
          for (guint p = 0; p < sc->n_pools; p++)
            g_ptr_array_add (names, sc->pools[p].name);
          *key = "pool";
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND, "no pool \"%s\" in the scenario%s",
                       e->pool, sim__did_you_mean (sim__closest (e->pool,
                                                                 (const char * const *) names->pdata,
                                                                 names->len)));
          return FALSE;
        }
      if (e->max_nodes > (gint) pool->count)
        {
          *key = "max_nodes";
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%d nodes: the cloud pool %s has %u", e->max_nodes, pool->name,
                       pool->count);
          return FALSE;
        }
      if (e->max_nodes < 0)
        e->max_nodes = (gint) pool->count;
      if (e->startup == UNSET_TIME)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing key startup: expected the "
                       "time from a scale-up to the nodes taking jobs, e.g. \"3min\"");
          return FALSE;
        }
      if (e->price_per_node_hour < 0 && e->cloud == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key price_per_node_hour: expected the USD a cloud node costs "
                       "per hour");
          return FALSE;
        }
      if (e->scale_up_queue == UNSET_COUNT && e->scale_up_wait == UNSET_TIME)
        {
          /* By default any waiting job asks for capacity, as Kubernetes'
           * autoscaler does for any pod that cannot be placed. */
          e->scale_up_queue = 1;
          e->scale_up_wait = 0;
        }
      if (e->scale_up_queue == UNSET_COUNT)
        e->scale_up_queue = 0;
      if (e->scale_up_wait == UNSET_TIME)
        e->scale_up_wait = 0;
      if (e->scale_up_queue == 0 && e->scale_up_wait == 0)
        {
          *key = "scale_up_queue";
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "no scale-up trigger: expected "
                       "scale_up_queue of 1 or more jobs, or a positive scale_up_wait");
          return FALSE;
        }
    }
  if (has_serverless_class (sc, &class_name) && !s->enabled)
    {
      *group = NULL;
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "class %s runs as serverless functions: expected a [serverless] section "
                   "with at least cold_start and price_per_gpu_second", class_name);
      return FALSE;
    }
  if (s->enabled)
    {
      *group = "serverless";
      if (s->cold_start == UNSET_TIME)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing key cold_start: expected "
                       "the time a function takes to start on a new instance, e.g. \"20s\"");
          return FALSE;
        }
      if (s->price_per_gpu_second < 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing key price_per_gpu_second: "
                       "expected the USD a GPU-second costs");
          return FALSE;
        }
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The autoscaler and the serverless provider.                               */

typedef enum {
  NODE_DOWN,
  NODE_STARTING,
  NODE_UP,
} NodeState;

typedef struct {
  NodeState state;
  SimTime   requested;   /* when it was requested (billing starts) */
  SimTime   idle_since;  /* up and idle since then, or -1 */
} CloudNode;

/* A serverless function's instances: when each is (or was) free. */
typedef struct {
  GArray *free_at;       /* SimTime */
} Function;

struct _SimElastic {
  SimAccumulator base;
  SimSimulation *sim;     /* (unowned): the simulation owns this */
  SimCluster    *cluster;
  const GPtrArray *queue;
  const SimElasticConfig *config;
  const SimServerlessConfig *sless;
  const SimScenario *scenario;
  guint32        k_up, k_idle, k_wait, k_done;

  /* Bursting. */
  gboolean       bursting;
  guint          first_node, n_nodes, gpus_per_node;
  CloudNode     *nodes;
  guint          held, starting;
  SimTime        wait_check;   /* a pending check of the wait trigger, or SIM_TIME_NEVER */
  double         price;        /* USD per node-hour */
  guint64        scale_ups, requested, peak, burst_jobs;
  double         billed_s;     /* node-seconds billed */
  double         used_gpu_s;   /* jobs' GPU-seconds on cloud nodes */
  guint64        cloud_milli;  /* thousandths of GPUs allocated on cloud nodes now */
  double         alloc_gpu_s;  /* GPU-seconds allocated anywhere, as the metrics integrate them */
  SimTime        last;         /* alloc_gpu_s is up to date until here */

  /* Serverless. */
  GHashTable    *functions;    /* (class << 32 | GPUs) -> Function */
  GHashTable    *in_flight;    /* SimJob* set */
  guint64        executions, cold_starts;
  double         sless_gpu_s;  /* billed */
  double         sless_cost;
};

/* Billed seconds for DT: per started second, at least MIN. */
static double
billed_seconds (SimTime dt, SimTime min)
{
  SimTime t = MAX (dt, min);
  return (double) (t / SIM_SECOND + (t % SIM_SECOND != 0));
}

static gboolean
node_idle (SimElastic *self, guint node)
{
  const SimNode *n = sim_cluster_get_node (self->cluster, node);

  for (guint g = n->first_gpu; g < n->first_gpu + n->n_gpus; g++)
    if (sim_cluster_get_gpu (self->cluster, g)->n_tenants > 0)
      return FALSE;
  return TRUE;
}

static gboolean
on_cloud (SimElastic *self, guint gpu)
{
  guint node = sim_cluster_get_gpu (self->cluster, gpu)->node;

  return self->bursting && node >= self->first_node && node < self->first_node + self->n_nodes;
}

/* The GPUs of a running job that are on cloud nodes. */
static guint
cloud_gpus (SimElastic *self, const SimJob *job)
{
  guint n = 0;

  for (guint i = 0; i < job->n_gpus; i++)
    n += on_cloud (self, job->gpus[i]);
  return n;
}

static void
release_node (SimElastic *self, guint k, SimTime now)
{
  CloudNode *c = &self->nodes[k];

  self->billed_s += billed_seconds (now - c->requested, self->config->min_billing);
  c->state = NODE_DOWN;
  c->idle_since = -1;
  self->held--;
  sim_simulation_set_node_available (self->sim, self->first_node + k, FALSE, NULL);
}

/* When the oldest waiting job was submitted (the queue is in the policy's
 * order, not necessarily the arrival order). */
static SimTime
oldest_submit (SimElastic *self)
{
  SimTime oldest = SIM_TIME_NEVER;

  for (guint i = 0; i < self->queue->len; i++)
    oldest = MIN (oldest, ((const SimJob *) self->queue->pdata[i])->spec.submit);
  return oldest;
}

static void
maybe_scale_up (SimElastic *self, SimTime now)
{
  const SimElasticConfig *e = self->config;
  gboolean trigger;
  SimTime oldest;
  guint n = 0;

  if (self->starting > 0 || self->held >= (guint) e->max_nodes || self->queue->len == 0)
    return;
  oldest = e->scale_up_wait > 0 ? oldest_submit (self) : SIM_TIME_NEVER;
  trigger = (e->scale_up_queue > 0 && self->queue->len >= e->scale_up_queue) ||
            (e->scale_up_wait > 0 && now - oldest >= e->scale_up_wait);
  if (!trigger)
    {
      /* The wait trigger fires in time even if nothing else happens. */
      if (e->scale_up_wait > 0 && oldest + e->scale_up_wait < self->wait_check)
        {
          self->wait_check = oldest + e->scale_up_wait;
          sim__kernel_schedule (self->sim, self->wait_check, self->k_wait, 0, NULL, 0);
        }
      return;
    }
  for (guint k = 0; k < self->n_nodes && n < e->step && self->held < (guint) e->max_nodes; k++)
    {
      CloudNode *c = &self->nodes[k];
      if (c->state != NODE_DOWN)
        continue;
      c->state = NODE_STARTING;
      c->requested = now;
      self->held++;
      self->starting++;
      n++;
      sim__kernel_schedule (self->sim, now + e->startup, self->k_up, 0, NULL, k);
    }
  if (n == 0)
    return;
  self->scale_ups++;
  self->requested += n;
  self->peak = MAX (self->peak, self->held);
}

static void
on_up (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimElastic *self = data;
  CloudNode *c = &self->nodes[ev->arg];

  c->state = NODE_UP;
  c->idle_since = -1;
  self->starting--;
  /* A pass follows (the free GPUs changed), and after it the idle count. */
  sim_simulation_set_node_available (self->sim, self->first_node + (guint) ev->arg, TRUE, NULL);
}

static void
on_idle (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimElastic *self = data;
  CloudNode *c = &self->nodes[ev->arg];

  if (c->state != NODE_UP || c->idle_since < 0 ||
      ev->time - c->idle_since < self->config->scale_down_delay ||
      !node_idle (self, self->first_node + (guint) ev->arg))
    return;
  release_node (self, (guint) ev->arg, ev->time);
}

static void
on_wait (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimElastic *self = data;

  if (ev->time == self->wait_check)
    self->wait_check = SIM_TIME_NEVER;
  maybe_scale_up (self, ev->time);
}

void
sim__elastic_after_pass (SimElastic *self, SimTime now)
{
  if (!self->bursting)
    return;
  for (guint k = 0; k < self->n_nodes; k++)
    {
      CloudNode *c = &self->nodes[k];
      if (c->state != NODE_UP)
        continue;
      if (!node_idle (self, self->first_node + k))
        c->idle_since = -1;
      else if (c->idle_since < 0)
        {
          c->idle_since = now;
          sim__kernel_schedule (self->sim, now + self->config->scale_down_delay, self->k_idle,
                               0, NULL, k);
        }
    }
  maybe_scale_up (self, now);
}

/* ------------------------------------------------------------------------- */
/* Serverless functions.                                                     */

static gboolean
is_serverless (SimElastic *self, const SimJob *job)
{
  const SimScenario *sc = self->scenario;
  const SimServerlessConfig *s = self->sless;

  if (!s->enabled || job->spec.gpus == 0)
    return FALSE;
  if (sc->source == SIM_SOURCE_SYNTHETIC && job->spec.job_class < sc->generator.n_classes &&
      sc->generator.classes[job->spec.job_class].serverless)
    return TRUE;
  if (s->max_gpus == 0 && s->max_duration == 0)
    return FALSE;
  return (s->max_gpus == 0 || job->spec.gpus <= s->max_gpus) &&
         (s->max_duration == 0 || job->spec.duration <= s->max_duration);
}

static void
function_free (gpointer data)
{
  Function *f = data;

  g_array_unref (f->free_at);
  g_free (f);
}

/* Whether an instance of JOB's function is warm at NOW: then it is taken
 * until WARM_END; else a new instance starts cold and is busy until
 * COLD_END.  Instances that can no longer be warm are forgotten. */
static gboolean
take_instance (SimElastic *self, const SimJob *job, SimTime now, SimTime warm_end,
               SimTime cold_end)
{
  guint64 key = (guint64) job->spec.job_class << 32 | job->spec.gpus;
  SimTime keep = self->sless->keep_warm;
  Function *f;
  gint best = -1;
  guint w = 0;

  if (keep <= 0)
    return FALSE;
  f = g_hash_table_lookup (self->functions, &key);
  if (f == NULL)
    {
      guint64 *k = g_new (guint64, 1);
      *k = key;
      f = g_new0 (Function, 1);
      f->free_at = g_array_new (FALSE, FALSE, sizeof (SimTime));
      g_hash_table_insert (self->functions, k, f);
    }
  /* Forget instances idle for longer than the window (arrivals come in
   * time order, so they stay cold); of the warm ones take the one used
   * last, as providers do. */
  for (guint i = 0; i < f->free_at->len; i++)
    {
      SimTime t = g_array_index (f->free_at, SimTime, i);
      if (t <= now && now - t > keep)
        continue;
      g_array_index (f->free_at, SimTime, w) = t;
      if (t <= now && (best < 0 || t > g_array_index (f->free_at, SimTime, best)))
        best = (gint) w;
      w++;
    }
  g_array_set_size (f->free_at, w);
  if (best >= 0)
    {
      g_array_index (f->free_at, SimTime, best) = warm_end;
      return TRUE;
    }
  g_array_append_val (f->free_at, cold_end);
  return FALSE;
}

/* Bills one execution of JOB from its billing start to END. */
static void
bill_execution (SimElastic *self, const SimJob *job, SimTime end)
{
  SimTime from = self->sless->bill_cold_start ? job->spec.submit : job->first_start;
  double gpu_s = job->spec.gpus * billed_seconds (MAX (end - from, 0), 0);

  self->sless_gpu_s += gpu_s;
  self->sless_cost += gpu_s * self->sless->price_per_gpu_second + self->sless->invocation_fee;
}

gboolean
sim__elastic_take_job (SimElastic *self, SimJob *job, SimTime now)
{
  SimTime cold, end;

  if (!is_serverless (self, job))
    return FALSE;
  /* Where an instance starts cold, the job waits for it; it then runs for
   * its duration, at the reference GPU's speed. */
  cold = self->sless->cold_start;
  if (take_instance (self, job, now, now + job->spec.duration, now + cold + job->spec.duration))
    cold = 0;
  else
    self->cold_starts++;
  end = now + cold + job->spec.duration;
  self->executions++;
  job->state = SIM_JOB_RUNNING;
  job->start = job->first_start = now + cold;
  job->end = end;
  job->executed = job->spec.duration;
  job->attained = job->spec.gpus * sim_time_to_seconds (job->spec.duration);
  job->work_left = 0;
  g_hash_table_add (self->in_flight, job);
  sim__kernel_schedule (self->sim, end, self->k_done, 0, job, 0);
  return TRUE;
}

static void
on_done (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimElastic *self = data;
  SimJob *job = ev->target;

  g_hash_table_remove (self->in_flight, job);
  bill_execution (self, job, ev->time);
  sim__kernel_finish_outside (self->sim, job);
}

guint64
sim__elastic_cloud_milli (SimElastic *self)
{
  return self->cloud_milli;
}

const char *
sim__elastic_job_where (const SimJob *job, gpointer data)
{
  SimElastic *self = data;
  guint cloud;

  if (job->n_gpus == 0)
    return "serverless";
  cloud = cloud_gpus (self, job);
  return cloud == 0 ? "cluster" : cloud == job->n_gpus ? "cloud" : "cluster+cloud";
}

/* ------------------------------------------------------------------------- */
/* As an accumulator: GPU time on cloud nodes, and the report.               */

static void
elastic_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  SimElastic *self = (SimElastic *) acc;

  if (now <= self->last)
    return;
  self->alloc_gpu_s += sim_time_to_seconds (now - self->last) * held->allocated_milli / 1000.0;
  self->last = now;
}

static void
elastic_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                   const char *class_name, SimTime now)
{
  SimElastic *self = (SimElastic *) acc;
  guint n;

  if (!self->bursting || job->n_gpus == 0 || job->gpus == NULL)
    return;
  if (event == SIM_JOB_STARTED)
    self->cloud_milli += (guint64) cloud_gpus (self, job) * job->spec.gpu_milli;
  else if (event == SIM_JOB_PREEMPTED || event == SIM_JOB_FINISHED)
    self->cloud_milli -= (guint64) cloud_gpus (self, job) * job->spec.gpu_milli;
  if (event != SIM_JOB_PREEMPTED && event != SIM_JOB_FINISHED &&
      !(event == SIM_JOB_UNFINISHED && job->state == SIM_JOB_RUNNING))
    return;
  n = cloud_gpus (self, job);
  if (n == 0)
    return;
  self->used_gpu_s += n * (job->spec.gpu_milli / 1000.0) * sim_time_to_seconds (now - job->start);
  if (event == SIM_JOB_FINISHED)
    self->burst_jobs++;
}

static void
elastic_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  SimElastic *self = (SimElastic *) acc;
  GHashTableIter it;
  gpointer job;
  double own_capacity;

  if (self->bursting)
    {
      /* Nodes still held when the run ends are billed until then. */
      double billed = self->billed_s;
      for (guint k = 0; k < self->n_nodes; k++)
        if (self->nodes[k].state != NODE_DOWN)
          billed += billed_seconds (MAX (info->end - self->nodes[k].requested, 0),
                                    self->config->min_billing);
      sim__report_add (report, "burst_scale_ups", (double) self->scale_ups, "scale-ups");
      sim__report_add (report, "burst_nodes_requested", (double) self->requested, "nodes");
      sim__report_add (report, "burst_nodes_peak", (double) self->peak, "nodes");
      sim__report_add (report, "burst_node_hours", billed / 3600, "node*h");
      sim__report_add (report, "burst_gpu_hours", billed / 3600 * self->gpus_per_node, "GPU*h");
      sim__report_add (report, "burst_gpu_hours_used", self->used_gpu_s / 3600, "GPU*h");
      sim__report_add (report, "burst_jobs", (double) self->burst_jobs, "jobs");
      /* gpu_utilization counts the cloud's GPUs in the capacity all along:
       * this is our own nodes' share. */
      own_capacity = sim_time_to_seconds (info->end) *
                     (info->gpus - (double) self->n_nodes * self->gpus_per_node);
      sim__report_add (report, "own_gpu_utilization",
                       own_capacity > 0 ? (self->alloc_gpu_s - self->used_gpu_s) / own_capacity
                                        : 0, "ratio");
      sim__report_add (report, "burst_price_per_node_hour", self->price, "USD/node*h");
      sim__report_add (report, "burst_cost", billed / 3600 * self->price, "USD");
    }
  if (self->sless->enabled)
    {
      /* Executions still running when the run ends are billed until then
       * (whole GPU-seconds, summed exactly whatever the table's order). */
      double gpu_s = 0, cost;
      g_hash_table_iter_init (&it, self->in_flight);
      while (g_hash_table_iter_next (&it, &job, NULL))
        {
          const SimJob *j = job;
          SimTime from = self->sless->bill_cold_start ? j->spec.submit : j->first_start;
          gpu_s += j->spec.gpus * billed_seconds (MAX (info->end - from, 0), 0);
        }
      cost = self->sless_cost + gpu_s * self->sless->price_per_gpu_second +
             g_hash_table_size (self->in_flight) * self->sless->invocation_fee;
      gpu_s += self->sless_gpu_s;
      sim__report_add (report, "serverless_executions", (double) self->executions, "executions");
      sim__report_add (report, "serverless_cold_starts", (double) self->cold_starts,
                       "executions");
      sim__report_add (report, "serverless_gpu_seconds", gpu_s, "GPU*s");
      sim__report_add (report, "serverless_cost", cost, "USD");
    }
}

static void
elastic_free (SimAccumulator *acc)
{
  SimElastic *self = (SimElastic *) acc;
  GHashTableIter it;
  gpointer job;

  g_hash_table_iter_init (&it, self->in_flight);
  while (g_hash_table_iter_next (&it, &job, NULL))
    g_free (job);
  g_hash_table_unref (self->in_flight);
  g_hash_table_unref (self->functions);
  g_free (self->nodes);
  g_free (self);
}

/* [elastic] cloud: the catalogue's instance, which must be the cloud pool's
 * node (its GPU model and count), and its on-demand price when the price
 * is not given. */
static gboolean
cloud_price (SimElastic *self, const SimPool *pool, const SimCatalogue *catalogue,
             GError **error)
{
  const char *name = self->config->cloud;
  const SimCloudModel *cloud = sim_catalogue_lookup_cloud (catalogue, name);

  if (cloud == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                   "no cloud model \"%s\" in the catalogue%s (see `gpusim models`)", name,
                   sim__did_you_mean (sim_catalogue_suggest_cloud (catalogue, name)));
      sim__scenario_locate (self->scenario, "elastic", "cloud", error);
      return FALSE;
    }
  if (cloud->gpu != pool->gpu_model || cloud->gpus != pool->gpus_per_node)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s has %u x %s, the cloud pool %s's nodes %u x %s: its price is not theirs",
                   cloud->name, cloud->gpus, cloud->gpu_name, pool->name, pool->gpus_per_node,
                   pool->gpu_model->name);
      sim__scenario_locate (self->scenario, "elastic", "cloud", error);
      return FALSE;
    }
  if (self->price >= 0)
    return TRUE;
  if (cloud->on_demand_usd_per_hour <= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "%s has no published on-demand price: give price_per_node_hour", cloud->name);
      sim__scenario_locate (self->scenario, "elastic", "cloud", error);
      return FALSE;
    }
  self->price = cloud->on_demand_usd_per_hour;
  return TRUE;
}

static const SimAccumulatorVTable elastic_vtable = {
  elastic_advance, elastic_job_event, elastic_report, elastic_free,
};

static gboolean
claim (gpointer data, SimJob *job, SimTime now)
{
  return sim__elastic_take_job (data, job, now);
}

static void
note_cloud (gpointer data, SimState *state, SimTime now)
{
  state->cloud_milli = sim__elastic_cloud_milli (data);
}

static void
pass_end (SimSimulation *sim, SimTime now, gpointer data)
{
  sim__elastic_after_pass (data, now);
}

gboolean
sim__elastic_attach (SimSimulation *sim, guint flags, GError **error)
{
  const SimScenario *sc = sim__kernel_get_scenario (sim);
  const SimCatalogue *catalogue = sim__kernel_get_catalogue (sim);
  SimCluster *cluster = sim__kernel_get_cluster (sim);
  SimElastic *self;

  if (!sc->elastic.enabled && !sc->serverless.enabled)
    return TRUE;
  self = g_new0 (SimElastic, 1);
  self->base.vtable = &elastic_vtable;
  self->sim = sim;
  self->cluster = cluster;
  self->queue = sim__kernel_get_queue (sim);
  self->scenario = sc;
  self->config = &sc->elastic;
  self->sless = &sc->serverless;
  self->wait_check = SIM_TIME_NEVER;
  self->functions = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, function_free);
  self->in_flight = g_hash_table_new (g_direct_hash, g_direct_equal);

  if (sc->elastic.enabled)
    {
      const SimPool *pool = NULL;
      for (guint p = 0; p < sim_cluster_get_n_pools (cluster); p++)
        if (strcmp (sim_cluster_get_pool (cluster, p)->name, sc->elastic.pool) == 0)
          pool = sim_cluster_get_pool (cluster, p);
      g_assert (pool != NULL); /* checked with the scenario */
      self->bursting = TRUE;
      self->first_node = pool->first_node;
      self->n_nodes = pool->n_nodes;
      self->gpus_per_node = pool->gpus_per_node;
      self->nodes = g_new0 (CloudNode, self->n_nodes);
      self->price = sc->elastic.price_per_node_hour;
      if (sc->elastic.cloud != NULL && !cloud_price (self, pool, catalogue, error))
        {
          elastic_free (&self->base);
          return FALSE;
        }
      for (guint k = 0; k < self->n_nodes; k++)
        {
          self->nodes[k].idle_since = -1;
          sim_simulation_set_node_available (sim, self->first_node + k, FALSE, NULL);
          /* A job runs on our nodes or on the cloud's, never across both. */
          sim_cluster_set_node_partition (cluster, self->first_node + k, 1);
        }
    }
  self->k_up = sim__kernel_add_event_kind (sim, on_up, self);
  self->k_idle = sim__kernel_add_event_kind (sim, on_idle, self);
  self->k_wait = sim__kernel_add_event_kind (sim, on_wait, self);
  self->k_done = sim__kernel_add_event_kind (sim, on_done, self);
  sim__kernel_add_accumulator (sim, &self->base);
  sim__kernel_set_job_where (sim, sim__elastic_job_where, self);
  sim__kernel_add_claim (sim, claim, self);
  sim__kernel_connect (sim, SIM_HOOK_STATE_NOTE, G_CALLBACK (note_cloud), self);
  sim__kernel_connect (sim, SIM_HOOK_PASS_END, G_CALLBACK (pass_end), self);
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The [elastic] and [serverless] sections.                                  */

gboolean
sim__elastic_sections_read (const SimKeyReader *reader, SimScenario *sc, GError **error)
{
  const char *group = NULL, *key = NULL;

  sim__elastic_config_init (&sc->elastic);
  sim__serverless_config_init (&sc->serverless);
  if (!sim__keys_read_each (reader, "elastic", (SimKeySetFunc) sim__elastic_config_set,
                            &sc->elastic, error) ||
      !sim__keys_read_each (reader, "serverless", (SimKeySetFunc) sim__serverless_config_set,
                            &sc->serverless, error))
    return FALSE;
  /* An empty section still counts. */
  sc->elastic.enabled |= g_key_file_has_group (reader->kf, "elastic");
  sc->serverless.enabled |= g_key_file_has_group (reader->kf, "serverless");
  if (sim__elastic_config_check (sc, &group, &key, error))
    return TRUE;
  if (group == NULL)
    {
      /* A class marked serverless without the section. */
      for (guint c = 0; c < sc->generator.n_classes; c++)
        if (sc->generator.classes[c].serverless)
          {
            g_autofree char *cg = g_strdup_printf ("class %s", sc->generator.classes[c].name);
            sim__keys_locate (reader, cg, "serverless", error);
            break;
          }
    }
  else
    sim__keys_locate (reader, group, key, error);
  return FALSE;
}

void
sim__elastic_sections_clear (SimScenario *sc)
{
  sim__elastic_config_clear (&sc->elastic);
}
