/* sim-power.c: GPU and node power (the model is in sim-power.h). */
#include "config.h"

#include "power/sim-power.h"
#include "core/sim-error.h"

#include <math.h>

void
sim_power_config_init (SimPowerConfig *config)
{
  g_return_if_fail (config != NULL);
  *config = (SimPowerConfig) { 0 };
  config->clock_exponent = SIM_POWER_CLOCK_EXPONENT_DEFAULT;
  config->memory_power = SIM_POWER_MEMORY_POWER_DEFAULT;
  config->clock_limit = 1.0;
  config->sleep_power_w = -1;
  config->electrical_efficiency = SIM_POWER_ELECTRICAL_EFFICIENCY_DEFAULT;
  config->transceiver_power_w = -1;
}

double
sim_power_clock (const SimGpuPower *gpu, double cap_w, double clock_limit, double exponent)
{
  double f = 1.0;

  if (cap_w > 0 && cap_w < gpu->max_w && gpu->max_w > gpu->idle_w)
    f = pow (MAX (cap_w - gpu->idle_w, 0.0) / (gpu->max_w - gpu->idle_w), 1.0 / exponent);
  return MIN (f, clock_limit);
}

double
sim_power_dynamic_share (double f, double exponent)
{
  return f >= 1.0 ? 1.0 : pow (f, exponent);
}

double
sim_power_speed (double f, double memory_bound)
{
  double m = CLAMP (memory_bound, 0.0, 1.0);

  if (f >= 1.0)
    return 1.0;
  return 1.0 / ((1.0 - m) / f + m);
}

double
sim_power_gpu_draw (const SimGpuPower *gpu, double busy, double f, double exponent)
{
  return gpu->idle_w + (gpu->max_w - gpu->idle_w) * sim_power_dynamic_share (f, exponent) *
                         CLAMP (busy, 0.0, 1.0);
}

/* ------------------------------------------------------------------------- */

/* A node model's figures, resolved against the configuration. */
typedef struct {
  SimGpuPower gpu;
  double fixed_w;      /* memory, NICs, NVSwitches, other: DC, constant */
  double cpu_idle_w, cpu_max_w;
  double fan_idle_w, fan_max_w;
  double psu;          /* efficiency */
  double fan_share;    /* of the fans' power left with the cooling */
  double sleep_w;      /* at the wall */
} NodePower;

/* What a job's start or end changes on a GPU, and on its node, together:
 * one cache line where separate arrays took one each (at 300k GPUs they
 * do not stay in cache between the jobs that touch a node). */
typedef struct {
  double  busy;     /* [0, 1] */
  double  drive;    /* busy weighted by each job's power intensity */
  guint   tenants;  /* jobs holding it */
  guint32 node;     /* its node */
} GpuLoad;

typedef struct {
  guint64 alloc;    /* thousandths of GPUs held by jobs */
  double  cpu_load; /* CPU reserved, as a share (0 without reservations) */
  double  load;     /* CPU load */
  guint32 first;    /* its first GPU */
  guint32 gpus;     /* its GPUs */
} NodeLoad;

struct _SimPower {
  const SimCluster *cluster;
  SimPowerConfig config;
  guint     n_gpus, n_nodes;
  NodePower *models;   /* per pool */
  double   *cap;       /* per GPU, W; 0: none */
  double   *clock;     /* per GPU, f */
  double   *dyn;       /* per GPU, f^k */
  GpuLoad  *gl;        /* per GPU */
  NodeLoad *nl;        /* per node */
  guint32  *node_pool; /* per node: its pool */
  gboolean *asleep;    /* per node */
  gboolean *outside;   /* per node: not the owner's (a cloud pool), drawing nothing here */
  double   *node_w;    /* per node, at the wall, as last computed */
  gint64   *node_nw;   /* the same in nanowatts, rounded: totals are their exact sums */
  gint64   *node_gpu_nw; /* per node, its GPUs' part, nW */
  guint8   *dirty;     /* per node */
  guint    *dirty_list;
  guint     n_dirty;
  guint     n_slowed;  /* GPUs below full clock */
  double    network_w;
  gint64    it_nw, gpus_nw; /* the nodes' totals, nW */
};

const SimPowerConfig *
sim__power_get_config (const SimPower *power)
{
  return &power->config;
}

static gboolean
resolve_node (const SimPowerConfig *config, const SimNodeModel *node, const SimGpuModel *gpu,
              NodePower *np, GError **error)
{
  double nvswitch_w = node->nvswitch != NULL ? node->nvswitch->power_w : 0;

  np->gpu.idle_w = gpu->idle_w;
  np->gpu.max_w = gpu->tdp_w;
  np->fixed_w = node->memory_power_w + node->nics * node->nic_power_w +
                node->nvswitches * nvswitch_w + node->other_power_w;
  np->cpu_idle_w = node->cpu_idle_power_w;
  np->cpu_max_w = MAX (node->cpu_max_power_w, node->cpu_idle_power_w);
  np->fan_idle_w = node->fan_idle_power_w;
  np->fan_max_w = MAX (node->fan_max_power_w, node->fan_idle_power_w);
  np->fan_share = 1.0;
  np->psu = config->psu_efficiency > 0 ? config->psu_efficiency
            : node->psu_efficiency > 0 ? node->psu_efficiency : 1.0;
  np->sleep_w = config->sleep_power_w >= 0 ? config->sleep_power_w : node->sleep_power_w;
  if (!config->enabled)
    return TRUE;
  if (gpu->tdp_w <= 0 || gpu->idle_w <= 0 || gpu->idle_w >= gpu->tdp_w)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "GPU model %s (%s) needs tdp and idle_power below it for the power model "
                   "(has %g W and %g W)", gpu->name, gpu->source_file ? gpu->source_file : "",
                   gpu->tdp_w, gpu->idle_w);
      return FALSE;
    }
  if (node->cpu_max_power_w <= 0 || node->psu_efficiency <= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "node model %s (%s) needs the power of its parts for the power model: at "
                   "least cpu_max_power and psu_efficiency (see models/nodes/dgx-h100.ini)",
                   node->name, node->source_file ? node->source_file : "");
      return FALSE;
    }
  if (config->sleep_after > 0 && np->sleep_w <= 0 && config->sleep_power_w < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "node model %s (%s) has no sleep_power, which [power] sleep_after needs "
                   "(or set [power] sleep_power)", node->name,
                   node->source_file ? node->source_file : "");
      return FALSE;
    }
  return TRUE;
}

static void
mark (SimPower *power, guint node)
{
  if (!power->dirty[node])
    {
      power->dirty[node] = TRUE;
      power->dirty_list[power->n_dirty++] = node;
    }
}

static void
set_clock (SimPower *power, guint gpu)
{
  const SimNode *node = sim_cluster_get_node (power->cluster,
                                              sim_cluster_get_gpu (power->cluster, gpu)->node);
  const NodePower *np = &power->models[node->pool];
  /* A cloud pool's GPUs run as their provider runs them. */
  double f = power->outside[node->index]
               ? 1.0 : sim_power_clock (&np->gpu, power->cap[gpu], power->config.clock_limit,
                                        power->config.clock_exponent);

  if ((power->clock[gpu] < 1.0) != (f < 1.0))
    power->n_slowed += f < 1.0 ? 1 : (guint) -1;
  power->clock[gpu] = f;
  power->dyn[gpu] = sim_power_dynamic_share (f, power->config.clock_exponent);
  mark (power, node->index);
}

SimPower *
sim__power_new (const SimCluster *cluster, const SimPowerConfig *config,
                const char *outside_pool, GError **error)
{
  SimPower *power = g_new0 (SimPower, 1);
  guint n_pools = sim_cluster_get_n_pools (cluster);

  power->cluster = cluster;
  power->config = *config;
  power->n_gpus = sim_cluster_get_n_gpus (cluster);
  power->n_nodes = sim_cluster_get_n_nodes (cluster);
  power->models = g_new0 (NodePower, MAX (n_pools, 1));
  for (guint p = 0; p < n_pools; p++)
    {
      const SimPool *pool = sim_cluster_get_pool (cluster, p);
      if (outside_pool != NULL && strcmp (pool->name, outside_pool) == 0)
        continue;
      if (!resolve_node (config, pool->model, pool->gpu_model, &power->models[p], error))
        {
          sim__power_free (power);
          return NULL;
        }
    }
  power->cap = g_new0 (double, power->n_gpus);
  power->clock = g_new (double, power->n_gpus);
  power->dyn = g_new (double, power->n_gpus);
  power->gl = g_new0 (GpuLoad, MAX (power->n_gpus, 1));
  power->nl = g_new0 (NodeLoad, MAX (power->n_nodes, 1));
  power->node_pool = g_new (guint32, power->n_nodes);
  for (guint g = 0; g < power->n_gpus; g++)
    power->gl[g].node = sim_cluster_get_gpu (cluster, g)->node;
  for (guint n = 0; n < power->n_nodes; n++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, n);
      power->nl[n].first = node->first_gpu;
      power->nl[n].gpus = node->n_gpus;
      power->node_pool[n] = node->pool;
    }
  power->asleep = g_new0 (gboolean, power->n_nodes);
  power->outside = g_new0 (gboolean, power->n_nodes);
  for (guint n = 0; n < power->n_nodes && outside_pool != NULL; n++)
    power->outside[n] = strcmp (sim_cluster_get_pool (cluster, power->node_pool[n])->name,
                                outside_pool) == 0;
  power->node_w = g_new0 (double, power->n_nodes);
  power->node_nw = g_new0 (gint64, power->n_nodes);
  power->node_gpu_nw = g_new0 (gint64, power->n_nodes);
  power->dirty = g_new0 (guint8, power->n_nodes);
  power->dirty_list = g_new (guint, power->n_nodes);
  for (guint g = 0; g < power->n_gpus; g++)
    {
      power->clock[g] = 1.0;
      power->dyn[g] = 1.0;
    }
  for (guint g = 0; g < power->n_gpus; g++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, sim_cluster_get_gpu (cluster, g)->node);
      double cap = config->gpu_cap_w;
      if (config->gpu_cap_share > 0)
        {
          double share_cap = config->gpu_cap_share * node->gpu_model->tdp_w;
          cap = cap > 0 ? MIN (cap, share_cap) : share_cap;
        }
      power->cap[g] = cap;
      set_clock (power, g);
    }
  for (guint n = 0; n < power->n_nodes; n++)
    mark (power, n);
  return power;
}

void
sim__power_free (SimPower *power)
{
  if (power == NULL)
    return;
  g_free (power->models);
  g_free (power->cap);
  g_free (power->clock);
  g_free (power->dyn);
  g_free (power->gl);
  g_free (power->nl);
  g_free (power->node_pool);
  g_free (power->asleep);
  g_free (power->outside);
  g_free (power->node_w);
  g_free (power->node_nw);
  g_free (power->node_gpu_nw);
  g_free (power->dirty);
  g_free (power->dirty_list);
  g_free (power);
}

gboolean
sim__power_set_cap (SimPower *power, guint gpu, double cap_w, GError **error)
{
  const SimNode *node;
  const NodePower *np;

  g_return_val_if_fail (power != NULL, FALSE);
  if (gpu >= power->n_gpus)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "GPU %u does not exist (the cluster has %u)", gpu, power->n_gpus);
      return FALSE;
    }
  node = sim_cluster_get_node (power->cluster, sim_cluster_get_gpu (power->cluster, gpu)->node);
  np = &power->models[node->pool];
  if (cap_w > 0 && (np->gpu.idle_w <= 0 || np->gpu.max_w <= np->gpu.idle_w))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "GPU %u (%s) cannot be capped: its model has no tdp and idle_power below it "
                   "in the catalogue (%s)", gpu, node->gpu_model->name,
                   node->gpu_model->source_file ? node->gpu_model->source_file : "");
      return FALSE;
    }
  if (!(cap_w >= 0) || !isfinite (cap_w) || (cap_w > 0 && cap_w <= np->gpu.idle_w))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "a cap of %g W on GPU %u (%s): expected 0 (no cap) or more than its idle "
                   "power, %g W", cap_w, gpu, node->gpu_model->name, np->gpu.idle_w);
      return FALSE;
    }
  power->cap[gpu] = cap_w;
  set_clock (power, gpu);
  return TRUE;
}

double
sim__power_get_cap (const SimPower *power, guint gpu)
{
  g_return_val_if_fail (power != NULL && gpu < power->n_gpus, 0);
  return power->cap[gpu];
}

double
sim__power_get_clock (const SimPower *power, guint gpu)
{
  g_return_val_if_fail (power != NULL && gpu < power->n_gpus, 1);
  return power->clock[gpu];
}

gboolean
sim__power_any_slowed (const SimPower *power)
{
  return power->n_slowed > 0;
}

double
sim_power_intensity (double memory_bound, double memory_power)
{
  return 1.0 - CLAMP (memory_bound, 0.0, 1.0) * (1.0 - memory_power);
}

/* The node's CPU load: the larger of its GPUs held and its CPU reserved. */
static void
update_load (SimPower *power, guint n)
{
  double load = power->nl[n].gpus > 0
                  ? power->nl[n].alloc / (power->nl[n].gpus * (double) SIM_GPU_WHOLE) : 0;

  load = CLAMP (MAX (load, power->nl[n].cpu_load), 0.0, 1.0);
  if (power->nl[n].load != load)
    {
      power->nl[n].load = load;
      mark (power, n);
    }
}

void
sim__power_add_busy_gpus (SimPower *power, const guint32 *gpus, guint n, double delta,
                          double intensity, int tenants, guint milli)
{
  guint last = G_MAXUINT;

  for (guint i = 0; i < n; i++)
    {
      GpuLoad *gl = &power->gl[gpus[i]];
      guint node = gl->node;
      gl->tenants += tenants;
      /* A GPU nobody holds is idle, exactly: no rounding left over. */
      gl->busy = gl->tenants == 0 ? 0 : gl->busy + delta;
      gl->drive = gl->tenants == 0 ? 0 : gl->drive + delta * intensity;
      mark (power, node);
      if (tenants == 0)
        continue;
      power->nl[node].alloc += tenants > 0 ? milli : -(gint64) milli;
      /* (A node's load once its GPUs in a row are counted: what it would
       * be after each of them is left behind anyway.) */
      if (node != last && last != G_MAXUINT)
        update_load (power, last);
      last = node;
    }
  if (last != G_MAXUINT)
    update_load (power, last);
}

void
sim__power_add_busy (SimPower *power, guint gpu, double delta, double intensity, int tenants,
                     guint milli)
{
  guint32 g = gpu;

  sim__power_add_busy_gpus (power, &g, 1, delta, intensity, tenants, milli);
}

void
sim__power_prefetch (const SimPower *power, guint gpu, guint node)
{
  if (gpu < power->n_gpus)
    __builtin_prefetch (&power->gl[gpu], 1);
  if (node < power->n_nodes)
    __builtin_prefetch (&power->nl[node], 1);
}

double
sim__power_get_busy (const SimPower *power, guint gpu)
{
  g_return_val_if_fail (power != NULL && gpu < power->n_gpus, 0);
  return CLAMP (power->gl[gpu].busy, 0.0, 1.0);
}

void
sim__power_set_cpu_load (SimPower *power, guint node, double load)
{
  power->nl[node].cpu_load = load;
  update_load (power, node);
}

void
sim__power_set_asleep (SimPower *power, guint node, gboolean asleep)
{
  if (power->asleep[node] != asleep)
    {
      power->asleep[node] = asleep;
      mark (power, node);
    }
}

gboolean
sim__power_is_asleep (const SimPower *power, guint node)
{
  return power->asleep[node];
}

static double
gpu_w (const SimPower *power, const NodePower *np, guint g)
{
  return np->gpu.idle_w + (np->gpu.max_w - np->gpu.idle_w) * power->dyn[g] *
                            CLAMP (power->gl[g].drive, 0.0, 1.0);
}

/* A node's draw at the wall from its parts. */
static double
compute_node (SimPower *power, guint n, double *gpus_out)
{
  const NodePower *np = &power->models[power->node_pool[n]];
  guint first = power->nl[n].first, count = power->nl[n].gpus;
  double gpus = 0, dynamic = 0, span, dc;

  *gpus_out = 0;
  if (power->outside[n])
    return 0;
  if (power->asleep[n])
    return np->sleep_w;
  for (guint g = first; g < first + count; g++)
    {
      double w = gpu_w (power, np, g);
      gpus += w;
      dynamic += w - np->gpu.idle_w;
    }
  span = count * (np->gpu.max_w - np->gpu.idle_w);
  dc = gpus + np->fixed_w + np->cpu_idle_w + (np->cpu_max_w - np->cpu_idle_w) * power->nl[n].load +
       np->fan_share * (np->fan_idle_w +
                        (span > 0 ? (np->fan_max_w - np->fan_idle_w) * dynamic / span : 0));
  *gpus_out = gpus;
  return dc / np->psu;
}

/* Nanowatts: node draws are summed as integers, so that the totals kept
 * as each node changes are exact whatever the order of the changes (a
 * kilowatt node loses 1e-12 of its value to the rounding). */
#define NW_PER_W 1e9

static void
refresh (SimPower *power)
{
  for (guint i = 0; i < power->n_dirty; i++)
    {
      guint n = power->dirty_list[i];
      double gpus;
      gint64 nw, gpu_nw;
      power->node_w[n] = compute_node (power, n, &gpus);
      nw = llround (power->node_w[n] * NW_PER_W);
      gpu_nw = llround (gpus * NW_PER_W);
      power->it_nw += nw - power->node_nw[n];
      power->gpus_nw += gpu_nw - power->node_gpu_nw[n];
      power->node_nw[n] = nw;
      power->node_gpu_nw[n] = gpu_nw;
      power->dirty[n] = FALSE;
    }
  power->n_dirty = 0;
}

double
sim__power_gpu_w (SimPower *power, guint gpu)
{
  const SimNode *node;

  g_return_val_if_fail (power != NULL && gpu < power->n_gpus, 0);
  node = sim_cluster_get_node (power->cluster, sim_cluster_get_gpu (power->cluster, gpu)->node);
  if (power->asleep[node->index])
    return 0;
  return gpu_w (power, &power->models[node->pool], gpu);
}

double
sim__power_node_w (SimPower *power, guint node)
{
  g_return_val_if_fail (power != NULL && node < power->n_nodes, 0);
  refresh (power);
  return power->node_w[node];
}

double
sim__power_it_w (SimPower *power)
{
  refresh (power);
  return power->it_nw / NW_PER_W + power->network_w;
}

double
sim__power_gpus_w (SimPower *power)
{
  refresh (power);
  return power->gpus_nw / NW_PER_W;
}

double
sim__power_node_full_w (const SimPower *power, guint node)
{
  const NodePower *np;
  double dc;

  g_return_val_if_fail (power != NULL && node < power->n_nodes, 0);
  if (power->outside[node])
    return 0;
  np = &power->models[power->node_pool[node]];
  /* compute_node() with every drive, clock share and load at 1. */
  dc = power->nl[node].gpus * np->gpu.max_w + np->fixed_w + np->cpu_max_w +
       np->fan_share * np->fan_max_w;
  return MAX (dc / np->psu, np->sleep_w);
}

gboolean
sim__power_node_is_outside (const SimPower *power, guint node)
{
  g_return_val_if_fail (power != NULL && node < power->n_nodes, FALSE);
  return power->outside[node];
}

void
sim__power_set_network (SimPower *power, double network_w)
{
  power->network_w = network_w;
}

double
sim__power_get_network (const SimPower *power)
{
  return power->network_w;
}

void
sim__power_set_fan_share (SimPower *power, double share)
{
  guint n_pools = sim_cluster_get_n_pools (power->cluster);

  for (guint p = 0; p < n_pools; p++)
    power->models[p].fan_share = share;
  for (guint n = 0; n < power->n_nodes; n++)
    mark (power, n);
}

double
sim__power_job_w (SimPower *power, const guint32 *gpus, guint n_gpus, double gpu_share,
                  double drive)
{
  double w = 0;

  for (guint i = 0; i < n_gpus; i++)
    {
      guint n = power->gl[gpus[i]].node;
      const NodePower *np = &power->models[power->node_pool[n]];
      double span = np->gpu.max_w - np->gpu.idle_w;
      if (power->outside[n])
        continue; /* a cloud pool's GPUs draw nothing here */
      double fan = np->fan_share * (np->fan_max_w - np->fan_idle_w);
      double dynamic = span * power->dyn[gpus[i]] * drive;
      double part = gpu_share / power->nl[n].gpus;
      w += (gpu_share * np->gpu.idle_w + dynamic * (1.0 + fan / (power->nl[n].gpus * span)) +
            part * (np->fixed_w + np->cpu_max_w + np->fan_share * np->fan_idle_w)) / np->psu;
    }
  return w;
}
