/* sim-cluster.c: allocation state of nodes and GPUs. */
#include "config.h"

#include "cluster/sim-cluster.h"
#include "core/sim-error.h"
#include "cluster/sim-cluster-private.h"

#include <string.h>

#define HIST_DIM (SIM_CLUSTER_MAX_GPUS_PER_NODE + 1)
/* Levels of a bucket's bitmap: 64^6 bits cover any guint node index. */
#define BUCKET_MAX_LEVELS 6

struct _SimCluster {
  gint     ref_count;
  SimCatalogue *catalogue; /* (nullable) a reference: its nodes' models are in it */
  GArray  *pools;    /* SimPool */
  GArray  *nodes;    /* SimNode */
  GArray  *gpus;     /* SimGpu */
  guint    n_free;   /* GPUs with nothing allocated */
  guint64  allocated_milli;
  guint    max_per_node;
  /* hist[size * HIST_DIM + free]: nodes with `size` GPUs of which `free` are
   * free.  Only sizes that occur are non-zero. */
  guint   *hist;
  guint32  sizes_present; /* how many distinct node sizes; usually 1 */
  guint   *sizes;         /* those sizes */
  /* Interned GPU-model list -> guint8 array, one flag per pool (allowed). */
  GHashTable *allowed;
  /* GPU index -> SimMigLayout*, for GPUs in MIG mode only. */
  GHashTable *mig;
  /* Per GPU, the thousandths held because its node is unavailable (made
   * when a node first goes down; NULL before). */
  guint32 *held;
  /* The most free GPUs of a node over ranges of nodes, as a binary tree in
   * an array (root at 1, node i's leaf at free_leaves + i; padding leaves
   * 0): the first node with enough free in O(log nodes). */
  guint8  *free_tree;
  guint    free_leaves;   /* a power of two, at least the number of nodes */
  /* The most free host CPU and memory of a node over ranges of nodes, a
   * tree like free_tree (a node without a CPU or memory model counts as
   * having any amount free): nodes that may fit a job's host share, for
   * placements to pass over the nodes that cannot. */
  guint64 *host_cpu;
  guint64 *host_mem;
  /* The most room on one GPU of a node (not in MIG mode; 1000 with a free
   * GPU) over ranges of nodes, a tree like free_tree: with the trees above,
   * the first node that has a GPU with a fractional job's room and the host
   * for it, in one descent. */
  guint16 *room_tree;
  /* Per count f of free GPUs (1 to max_per_node), the nodes with exactly f
   * free, as a bitmap with levels above it (a bit per nonzero word of the
   * level below): the lowest-numbered such node from any index in
   * O(log64 nodes), for best-fit.  Count f's words start at
   * (f - 1) * bucket_words; level l's at bucket_level[l] within them. */
  guint64 *bucket;
  gsize    bucket_words;
  guint    bucket_dim;    /* the largest count indexed */
  guint    bucket_levels;
  gsize    bucket_level[BUCKET_MAX_LEVELS];
  gsize    bucket_level_len[BUCKET_MAX_LEVELS];
  guint8  *partition;     /* per node, NULL while every node is in partition 0 */
  guint    n_partitions;
  GPtrArray *outside;     /* per partition, a GArray of the other partitions' nodes in
                           * order (sim__cluster_get_nodes_outside()); NULL until asked */
  /* The index of shared GPUs: those with tenants and room left, not in
   * MIG mode (see shared_room_of()), by their room; free GPUs are found
   * through the nodes' free GPUs instead.  Made when a GPU is first shared
   * (NULL before), so that clusters of whole-GPU jobs neither build nor
   * update it.  shared_room[i] is the room GPU i is indexed under (0: not
   * shared); shared_left and shared_right make, per pool, a treap ordered
   * by (room, index), rooted at shared_root[pool], with priorities hashed
   * from the index: the smallest room that fits, then the lowest index, in
   * O(log GPUs) expected, without allocating once made. */
  guint16 *shared_room;
  guint32 *shared_left;
  guint32 *shared_right;
  guint32 *shared_root;
  guint    n_shared;
  /* The groupings of nodes whose groups' free GPUs are kept
   * (sim__cluster_watch_grouping()), as Watched; NULL until the first. */
  GArray  *watched;
};

struct _SimNodeGrouping {
  gint     ref_count;
  guint    n_nodes, n_groups;
  guint32 *group_of;    /* per node */
};

/* A grouping a cluster keeps the free GPUs of, group by group. */
typedef struct {
  SimNodeGrouping *grouping;  /* a reference */
  guint32         *free;      /* per group */
} Watched;

#define SHARED_NIL G_MAXUINT32

/* Sets node @i's leaf of the tree and the maxima above it. */
static inline void
free_tree_set (SimCluster *c, guint i, guint free_gpus)
{
  guint k = c->free_leaves + i;

  c->free_tree[k] = (guint8) free_gpus;
  for (k >>= 1; k >= 1; k >>= 1)
    {
      guint8 m = MAX (c->free_tree[2 * k], c->free_tree[2 * k + 1]);
      if (c->free_tree[k] == m)
        break;
      c->free_tree[k] = m;
    }
}

/* Marks node @i as having (@on) or no longer having @free_gpus free in
 * its bucket, and the levels above as far as a word turns nonzero or
 * zero. */
static inline void
bucket_mark (SimCluster *c, guint i, guint free_gpus, gboolean on)
{
  guint64 *words;
  gsize pos = i;

  if (free_gpus == 0 || free_gpus > c->bucket_dim)
    return;
  words = c->bucket + (gsize) (free_gpus - 1) * c->bucket_words;
  for (guint l = 0; l < c->bucket_levels; l++)
    {
      guint64 *w = &words[c->bucket_level[l] + (pos >> 6)];
      guint64 bit = G_GUINT64_CONSTANT (1) << (pos & 63);
      gboolean was_zero = *w == 0;

      if (on)
        *w |= bit;
      else
        *w &= ~bit;
      if (on ? !was_zero : *w != 0)
        break;
      pos >>= 6;
    }
}

/* Builds the buckets of nodes by free GPUs. */
static void
bucket_build (SimCluster *c)
{
  guint n = c->nodes->len;
  gsize len = (n + 63) / 64;

  g_free (c->bucket);
  c->bucket = NULL;
  c->bucket_words = 0;
  c->bucket_levels = 0;
  c->bucket_dim = c->max_per_node;
  while (len > 0 && c->bucket_levels < BUCKET_MAX_LEVELS)
    {
      c->bucket_level[c->bucket_levels] = c->bucket_words;
      c->bucket_level_len[c->bucket_levels++] = len;
      c->bucket_words += len;
      if (len == 1)
        break;
      len = (len + 63) / 64;
    }
  if (c->bucket_words == 0 || c->bucket_dim == 0)
    return;
  c->bucket = g_new0 (guint64, c->bucket_words * c->bucket_dim);
  for (guint i = 0; i < n; i++)
    bucket_mark (c, i, g_array_index (c->nodes, SimNode, i).free_gpus, TRUE);
}


/* Whether @g's node takes jobs. */
static inline gboolean
node_available (const SimCluster *c, const SimGpu *g)
{
  return g_array_index (c->nodes, SimNode, g->node).available;
}

/* The room GPU @g is indexed under: its room when it has tenants and room
 * left and is not in MIG mode, else 0 (free, full or in MIG mode).  Such a
 * GPU is shared by fractional jobs (room 1 to 999). */
static inline guint
shared_room_of (const SimGpu *g)
{
  return g->mig_used == 0 && g->used_milli < SIM_GPU_WHOLE &&
         (g->used_milli > 0 || g->n_tenants > 0) ? SIM_GPU_WHOLE - g->used_milli : 0;
}

/* A treap priority for GPU @i: a bijective hash, so no two are equal. */
static inline guint32
shared_priority (guint32 i)
{
  i ^= i >> 16;
  i *= 0x85ebca6bu;
  i ^= i >> 13;
  i *= 0xc2b2ae35u;
  i ^= i >> 16;
  return i;
}

/* Whether GPU @a comes before GPU @b in (room, index) order. */
static inline gboolean
shared_before (const SimCluster *c, guint32 a, guint32 b)
{
  return c->shared_room[a] < c->shared_room[b] ||
         (c->shared_room[a] == c->shared_room[b] && a < b);
}

/* Splits the treap @t into the GPUs before @x (*@l) and the others (*@r). */
static void
shared_split (SimCluster *c, guint32 t, guint32 x, guint32 *l, guint32 *r)
{
  while (t != SHARED_NIL)
    {
      if (shared_before (c, t, x))
        {
          *l = t;
          l = &c->shared_right[t];
          t = c->shared_right[t];
        }
      else
        {
          *r = t;
          r = &c->shared_left[t];
          t = c->shared_left[t];
        }
    }
  *l = SHARED_NIL;
  *r = SHARED_NIL;
}

/* The treap of the GPUs of @a followed by those of @b (all before). */
static guint32
shared_merge (SimCluster *c, guint32 a, guint32 b)
{
  guint32 root = SHARED_NIL, *link = &root;

  while (a != SHARED_NIL && b != SHARED_NIL)
    {
      if (shared_priority (a) > shared_priority (b))
        {
          *link = a;
          link = &c->shared_right[a];
          a = c->shared_right[a];
        }
      else
        {
          *link = b;
          link = &c->shared_left[b];
          b = c->shared_left[b];
        }
    }
  *link = a != SHARED_NIL ? a : b;
  return root;
}

static void
shared_insert (SimCluster *c, guint32 *root, guint32 x)
{
  guint32 *link = root;
  guint32 px = shared_priority (x);

  while (*link != SHARED_NIL && shared_priority (*link) > px)
    link = shared_before (c, x, *link) ? &c->shared_left[*link] : &c->shared_right[*link];
  shared_split (c, *link, x, &c->shared_left[x], &c->shared_right[x]);
  *link = x;
}

static void
shared_remove (SimCluster *c, guint32 *root, guint32 x)
{
  guint32 *link = root;

  while (*link != x)
    link = shared_before (c, x, *link) ? &c->shared_left[*link] : &c->shared_right[*link];
  *link = shared_merge (c, c->shared_left[x], c->shared_right[x]);
  c->shared_left[x] = c->shared_right[x] = SHARED_NIL;
}

static void
shared_free (SimCluster *c)
{
  g_clear_pointer (&c->shared_room, g_free);
  g_clear_pointer (&c->shared_left, g_free);
  g_clear_pointer (&c->shared_right, g_free);
  g_clear_pointer (&c->shared_root, g_free);
  c->n_shared = 0;
}

static void
shared_alloc (SimCluster *c)
{
  guint n = c->gpus->len;

  c->shared_room = g_new0 (guint16, MAX (n, 1));
  c->shared_left = g_new (guint32, MAX (n, 1));
  c->shared_right = g_new (guint32, MAX (n, 1));
  memset (c->shared_left, 0xff, sizeof (guint32) * MAX (n, 1));
  memset (c->shared_right, 0xff, sizeof (guint32) * MAX (n, 1));
  c->shared_root = g_new (guint32, MAX (c->pools->len, 1));
  memset (c->shared_root, 0xff, sizeof (guint32) * MAX (c->pools->len, 1));
}

static void room_tree_set (SimCluster *c, const SimNode *node);

/* Brings GPU @i's entry in the index of shared GPUs in line with its
 * usage: to be called after whatever changes its used_milli or mig_used. */
static inline void
shared_sync (SimCluster *c, guint i)
{
  const SimGpu *g = &g_array_index (c->gpus, SimGpu, i);
  guint room = shared_room_of (g);
  guint32 *root;

  if (c->shared_room == NULL)
    {
      if (room == 0)
        return;
      shared_alloc (c);
    }
  if (c->shared_room[i] == room)
    return;
  root = &c->shared_root[g_array_index (c->nodes, SimNode, g->node).pool];
  if (c->shared_room[i] != 0)
    {
      shared_remove (c, root, i);
      c->n_shared--;
    }
  c->shared_room[i] = (guint16) room;
  if (room != 0)
    {
      shared_insert (c, root, i);
      c->n_shared++;
    }
  room_tree_set (c, &g_array_index (c->nodes, SimNode, g->node));
}

/* Builds the index of shared GPUs anew (if any GPU is shared). */
static void
shared_build (SimCluster *c)
{
  shared_free (c);
  for (guint i = 0; i < c->gpus->len; i++)
    shared_sync (c, i);
}

/* The most room on one GPU of node @node: 1000 with a GPU free, else the
 * most of its shared GPUs (see shared_room_of()). */
static inline guint
node_room (const SimCluster *c, const SimNode *node)
{
  guint m = 0;

  if (node->free_gpus > 0)
    return SIM_GPU_WHOLE;
  if (c->shared_room == NULL)
    return 0;
  for (guint g = node->first_gpu; g < node->first_gpu + node->n_gpus; g++)
    m = MAX (m, c->shared_room[g]);
  return m;
}

/* Sets node @node's leaf of the room tree and the maxima above it. */
static void
room_tree_set (SimCluster *c, const SimNode *node)
{
  guint k = c->free_leaves + node->index;
  guint16 room = (guint16) node_room (c, node);

  if (c->room_tree[k] == room)
    return;
  c->room_tree[k] = room;
  for (k >>= 1; k >= 1; k >>= 1)
    {
      guint16 m = MAX (c->room_tree[2 * k], c->room_tree[2 * k + 1]);
      if (c->room_tree[k] == m)
        break;
      c->room_tree[k] = m;
    }
}

/* Sets node @i's leaves of the host trees and the maxima above it. */
static void
host_tree_set (SimCluster *c, guint i)
{
  const SimNode *n = &g_array_index (c->nodes, SimNode, i);
  guint k = c->free_leaves + i;

  c->host_cpu[k] = n->cpu_milli == 0 ? G_MAXUINT64 : n->free_cpu_milli;
  c->host_mem[k] = n->memory_bytes == 0 ? G_MAXUINT64 : n->free_memory_bytes;
  for (k >>= 1; k >= 1; k >>= 1)
    {
      guint64 cpu = MAX (c->host_cpu[2 * k], c->host_cpu[2 * k + 1]);
      guint64 mem = MAX (c->host_mem[2 * k], c->host_mem[2 * k + 1]);
      if (c->host_cpu[k] == cpu && c->host_mem[k] == mem)
        break;
      c->host_cpu[k] = cpu;
      c->host_mem[k] = mem;
    }
}

/* Builds the tree and the buckets for every node. */
static void
free_tree_build (SimCluster *c)
{
  guint n = c->nodes->len;
  guint leaves = 1;

  while (leaves < n)
    leaves *= 2;
  g_free (c->free_tree);
  c->free_tree = g_new0 (guint8, 2 * (gsize) leaves);
  c->free_leaves = leaves;
  for (guint i = 0; i < n; i++)
    c->free_tree[leaves + i] = (guint8) g_array_index (c->nodes, SimNode, i).free_gpus;
  for (guint k = leaves - 1; k >= 1; k--)
    c->free_tree[k] = MAX (c->free_tree[2 * k], c->free_tree[2 * k + 1]);
  g_free (c->room_tree);
  c->room_tree = g_new0 (guint16, 2 * (gsize) leaves);
  for (guint i = 0; i < n; i++)
    c->room_tree[leaves + i] = g_array_index (c->nodes, SimNode, i).free_gpus > 0
                                 ? SIM_GPU_WHOLE : 0;
  for (guint k = leaves - 1; k >= 1; k--)
    c->room_tree[k] = MAX (c->room_tree[2 * k], c->room_tree[2 * k + 1]);
  g_free (c->host_cpu);
  g_free (c->host_mem);
  c->host_cpu = g_new0 (guint64, 2 * (gsize) leaves);
  c->host_mem = g_new0 (guint64, 2 * (gsize) leaves);
  for (guint i = 0; i < n; i++)
    {
      const SimNode *nd = &g_array_index (c->nodes, SimNode, i);
      c->host_cpu[leaves + i] = nd->cpu_milli == 0 ? G_MAXUINT64 : nd->free_cpu_milli;
      c->host_mem[leaves + i] = nd->memory_bytes == 0 ? G_MAXUINT64 : nd->free_memory_bytes;
    }
  for (guint k = leaves - 1; k >= 1; k--)
    {
      c->host_cpu[k] = MAX (c->host_cpu[2 * k], c->host_cpu[2 * k + 1]);
      c->host_mem[k] = MAX (c->host_mem[2 * k], c->host_mem[2 * k + 1]);
    }
  bucket_build (c);
  shared_build (c);
}

SimCluster *
sim_cluster_new (void)
{
  SimCluster *c = g_new0 (SimCluster, 1);

  c->ref_count = 1;
  c->pools = g_array_new (FALSE, TRUE, sizeof (SimPool));
  c->nodes = g_array_new (FALSE, TRUE, sizeof (SimNode));
  c->gpus = g_array_new (FALSE, TRUE, sizeof (SimGpu));
  c->hist = g_new0 (guint, HIST_DIM * HIST_DIM);
  c->sizes = g_new0 (guint, HIST_DIM);
  c->allowed = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  c->mig = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  return c;
}

SimCluster *
sim_cluster_copy (const SimCluster *cluster)
{
  SimCluster *c;

  g_return_val_if_fail (cluster != NULL, NULL);
  c = sim_cluster_new ();
  for (guint i = 0; i < cluster->pools->len; i++)
    {
      SimPool p = g_array_index (cluster->pools, SimPool, i);
      p.name = g_strdup (p.name);
      g_array_append_val (c->pools, p);
    }
  g_array_append_vals (c->nodes, cluster->nodes->data, cluster->nodes->len);
  g_array_append_vals (c->gpus, cluster->gpus->data, cluster->gpus->len);
  c->n_free = cluster->n_free;
  c->allocated_milli = cluster->allocated_milli;
  c->max_per_node = cluster->max_per_node;
  memcpy (c->hist, cluster->hist, sizeof (guint) * HIST_DIM * HIST_DIM);
  memcpy (c->sizes, cluster->sizes, sizeof (guint) * HIST_DIM);
  c->sizes_present = cluster->sizes_present;
  free_tree_build (c);
  if (cluster->held != NULL)
    c->held = g_memdup2 (cluster->held, sizeof (guint32) * cluster->gpus->len);
  if (cluster->partition != NULL)
    c->partition = g_memdup2 (cluster->partition, cluster->nodes->len);
  c->n_partitions = cluster->n_partitions;
  if (cluster->catalogue != NULL)
    c->catalogue = sim_catalogue_ref (cluster->catalogue);
  {
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init (&it, cluster->mig);
    while (g_hash_table_iter_next (&it, &key, &value))
      g_hash_table_insert (c->mig, key, g_memdup2 (value, sizeof (SimMigLayout)));
  }
  for (guint i = 0; cluster->watched != NULL && i < cluster->watched->len; i++)
    sim__cluster_watch_grouping (c, g_array_index (cluster->watched, Watched, i).grouping);
  return c;
}

/* The cluster is shared by reference (a simulation and a binding's
 * wrapper may both keep it); its nodes, GPUs, pools and MIG layouts are
 * handed to bindings as snapshots, which hold what their pointers point
 * into: a node's and a pool's models, through their catalogue. */
G_DEFINE_BOXED_TYPE (SimCluster, sim_cluster, sim_cluster_ref, sim_cluster_unref)

SimCluster *
sim_cluster_ref (SimCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, NULL);
  g_atomic_int_inc (&cluster->ref_count);
  return cluster;
}

void
sim_cluster_free (SimCluster *cluster)
{
  sim_cluster_unref (cluster);
}

void
sim__cluster_hold_catalogue (SimCluster *cluster, SimCatalogue *catalogue)
{
  g_return_if_fail (cluster != NULL && catalogue != NULL);
  sim_catalogue_ref (catalogue);
  g_clear_pointer (&cluster->catalogue, sim_catalogue_unref);
  cluster->catalogue = catalogue;
  for (guint i = 0; i < cluster->pools->len; i++)
    g_array_index (cluster->pools, SimPool, i).catalogue = catalogue;
  for (guint i = 0; i < cluster->nodes->len; i++)
    g_array_index (cluster->nodes, SimNode, i).catalogue = catalogue;
}

SimNode *
sim_node_copy (const SimNode *node)
{
  SimNode *copy;

  g_return_val_if_fail (node != NULL, NULL);
  copy = g_memdup2 (node, sizeof *node);
  if (copy->catalogue != NULL)
    sim_catalogue_ref (copy->catalogue);
  return copy;
}

void
sim_node_free (SimNode *node)
{
  if (node == NULL)
    return;
  if (node->catalogue != NULL)
    sim_catalogue_unref (node->catalogue);
  g_free (node);
}

G_DEFINE_BOXED_TYPE (SimNode, sim_node, sim_node_copy, sim_node_free)

static SimGpu *
gpu_copy (const SimGpu *gpu)
{
  return g_memdup2 (gpu, sizeof *gpu);
}

G_DEFINE_BOXED_TYPE (SimGpu, sim_gpu, gpu_copy, g_free)

static SimPool *
pool_copy (const SimPool *pool)
{
  SimPool *copy = g_memdup2 (pool, sizeof *pool);

  copy->name = g_strdup (pool->name);
  if (copy->catalogue != NULL)
    sim_catalogue_ref (copy->catalogue);
  return copy;
}

static void
pool_free (SimPool *pool)
{
  if (pool->catalogue != NULL)
    sim_catalogue_unref (pool->catalogue);
  g_free (pool->name);
  g_free (pool);
}

G_DEFINE_BOXED_TYPE (SimPool, sim_pool, pool_copy, pool_free)

void
sim_cluster_unref (SimCluster *cluster)
{
  if (cluster == NULL || !g_atomic_int_dec_and_test (&cluster->ref_count))
    return;
  for (guint i = 0; i < cluster->pools->len; i++)
    g_free (g_array_index (cluster->pools, SimPool, i).name);
  g_array_unref (cluster->pools);
  g_array_unref (cluster->nodes);
  g_array_unref (cluster->gpus);
  g_free (cluster->hist);
  g_free (cluster->sizes);
  g_hash_table_unref (cluster->allowed);
  g_hash_table_unref (cluster->mig);
  g_free (cluster->held);
  g_free (cluster->partition);
  if (cluster->outside != NULL)
    g_ptr_array_unref (cluster->outside);
  g_free (cluster->free_tree);
  g_free (cluster->host_cpu);
  g_free (cluster->host_mem);
  g_free (cluster->room_tree);
  g_free (cluster->bucket);
  shared_free (cluster);
  g_clear_pointer (&cluster->catalogue, sim_catalogue_unref);
  if (cluster->watched != NULL)
    g_array_unref (cluster->watched);
  g_free (cluster);
}

gboolean
sim_cluster_add_pool (SimCluster *cluster, const char *name, const SimNodeModel *model,
                      const SimGpuModel *gpu_model, guint gpus_per_node, guint n_nodes,
                      GError **error)
{
  SimPool pool = { 0 };
  guint per_node;

  g_return_val_if_fail (cluster != NULL && name != NULL && model != NULL, FALSE);
  g_return_val_if_fail (cluster->n_free == cluster->gpus->len, FALSE);

  per_node = gpus_per_node ? gpus_per_node : model->gpus;
  if (per_node == 0 || per_node > SIM_CLUSTER_MAX_GPUS_PER_NODE)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "pool \"%s\": %u GPUs per node: expected 1 to %u", name, per_node,
                   SIM_CLUSTER_MAX_GPUS_PER_NODE);
      return FALSE;
    }
  if (n_nodes == 0 || n_nodes > 10000000)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "pool \"%s\": %u nodes: expected 1 to 10000000", name, n_nodes);
      return FALSE;
    }
  if ((guint64) cluster->gpus->len + (guint64) per_node * n_nodes > SIM_CLUSTER_MAX_GPUS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "pool \"%s\": the cluster would have more than %u GPUs", name,
                   SIM_CLUSTER_MAX_GPUS);
      return FALSE;
    }

  g_hash_table_remove_all (cluster->allowed);
  pool.name = g_strdup (name);
  pool.model = model;
  pool.gpu_model = gpu_model ? gpu_model : model->gpu;
  pool.gpus_per_node = per_node;
  pool.first_node = cluster->nodes->len;
  pool.n_nodes = n_nodes;
  pool.catalogue = cluster->catalogue;
  g_array_append_val (cluster->pools, pool);

  for (guint i = 0; i < n_nodes; i++)
    {
      SimNode node = { 0 };
      node.index = cluster->nodes->len;
      node.pool = cluster->pools->len - 1;
      node.first_gpu = cluster->gpus->len;
      node.n_gpus = per_node;
      node.free_gpus = per_node;
      node.model = model;
      node.gpu_model = pool.gpu_model;
      node.catalogue = cluster->catalogue;
      node.cpu_milli = node.free_cpu_milli = (guint64) model->cpu_cores * 1000;
      node.memory_bytes = node.free_memory_bytes = model->memory_bytes;
      node.available = TRUE;
      g_array_append_val (cluster->nodes, node);
      for (guint g = 0; g < per_node; g++)
        {
          SimGpu gpu = { 0 };
          gpu.node = node.index;
          gpu.local_index = g;
          g_array_append_val (cluster->gpus, gpu);
        }
    }
  cluster->n_free += per_node * n_nodes;
  cluster->max_per_node = MAX (cluster->max_per_node, per_node);
  if (cluster->hist[per_node * HIST_DIM + per_node] == 0)
    {
      gboolean known = FALSE;
      for (guint i = 0; i < cluster->sizes_present; i++)
        known |= cluster->sizes[i] == per_node;
      if (!known)
        cluster->sizes[cluster->sizes_present++] = per_node;
    }
  cluster->hist[per_node * HIST_DIM + per_node] += n_nodes;
  free_tree_build (cluster);
  /* Nodes added after partitions were set are in partition 0. */
  if (cluster->partition != NULL)
    {
      guint before = cluster->nodes->len - n_nodes;
      cluster->partition = g_renew (guint8, cluster->partition, cluster->nodes->len);
      memset (cluster->partition + before, 0, n_nodes);
    }
  g_clear_pointer (&cluster->outside, g_ptr_array_unref);
  return TRUE;
}

void
sim_cluster_set_pool_host (SimCluster *cluster, guint pool, guint64 cpu_milli,
                           guint64 memory_bytes)
{
  const SimPool *p;

  g_return_if_fail (cluster != NULL && pool < cluster->pools->len);
  p = &g_array_index (cluster->pools, SimPool, pool);
  for (guint i = p->first_node; i < p->first_node + p->n_nodes; i++)
    {
      SimNode *n = &g_array_index (cluster->nodes, SimNode, i);
      g_return_if_fail (n->free_cpu_milli == n->cpu_milli && n->free_memory_bytes == n->memory_bytes);
      n->cpu_milli = n->free_cpu_milli = cpu_milli;
      n->memory_bytes = n->free_memory_bytes = memory_bytes;
      host_tree_set (cluster, i);
    }
}

void
sim_cluster_set_node_host (SimCluster *cluster, guint node, guint64 cpu_milli,
                           guint64 memory_bytes)
{
  SimNode *n;

  g_return_if_fail (cluster != NULL && node < cluster->nodes->len);
  n = &g_array_index (cluster->nodes, SimNode, node);
  g_return_if_fail (n->free_cpu_milli == n->cpu_milli && n->free_memory_bytes == n->memory_bytes);
  n->cpu_milli = n->free_cpu_milli = cpu_milli;
  n->memory_bytes = n->free_memory_bytes = memory_bytes;
  host_tree_set (cluster, node);
}

gboolean
sim_cluster_node_fits_host (const SimCluster *cluster, guint node, guint64 cpu_milli,
                            guint64 memory_bytes)
{
  const SimNode *n;

  g_return_val_if_fail (cluster != NULL && node < cluster->nodes->len, FALSE);
  n = &g_array_index (cluster->nodes, SimNode, node);
  return (n->cpu_milli == 0 || cpu_milli <= n->free_cpu_milli) &&
         (n->memory_bytes == 0 || memory_bytes <= n->free_memory_bytes);
}

gboolean
sim_cluster_reserve_host (SimCluster *cluster, guint node, guint64 cpu_milli, guint64 memory_bytes,
                          GError **error)
{
  SimNode *n;

  g_return_val_if_fail (cluster != NULL && node < cluster->nodes->len, FALSE);
  if (!sim_cluster_node_fits_host (cluster, node, cpu_milli, memory_bytes))
    {
      n = &g_array_index (cluster->nodes, SimNode, node);
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "node %u has %" G_GUINT64_FORMAT " CPU milli and %" G_GUINT64_FORMAT
                   " bytes free; %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT " requested",
                   node, n->free_cpu_milli, n->free_memory_bytes, cpu_milli, memory_bytes);
      return FALSE;
    }
  n = &g_array_index (cluster->nodes, SimNode, node);
  if (n->cpu_milli > 0)
    n->free_cpu_milli -= cpu_milli;
  if (n->memory_bytes > 0)
    n->free_memory_bytes -= memory_bytes;
  if (cpu_milli != 0 || memory_bytes != 0)
    host_tree_set (cluster, node);
  return TRUE;
}

void
sim_cluster_release_host (SimCluster *cluster, guint node, guint64 cpu_milli, guint64 memory_bytes)
{
  SimNode *n;

  g_return_if_fail (cluster != NULL && node < cluster->nodes->len);
  n = &g_array_index (cluster->nodes, SimNode, node);
  if (n->cpu_milli > 0)
    {
      g_return_if_fail (n->free_cpu_milli + cpu_milli <= n->cpu_milli);
      n->free_cpu_milli += cpu_milli;
    }
  if (n->memory_bytes > 0)
    {
      g_return_if_fail (n->free_memory_bytes + memory_bytes <= n->memory_bytes);
      n->free_memory_bytes += memory_bytes;
    }
  if (cpu_milli != 0 || memory_bytes != 0)
    host_tree_set (cluster, node);
}

gboolean
sim_cluster_node_allows (const SimCluster *cluster, guint node, const char *gpu_models)
{
  guint8 *flags;
  guint pool;

  g_return_val_if_fail (cluster != NULL && node < cluster->nodes->len, FALSE);
  if (gpu_models == NULL)
    return TRUE;
  pool = g_array_index (cluster->nodes, SimNode, node).pool;
  flags = g_hash_table_lookup (cluster->allowed, gpu_models);
  if (flags == NULL)
    {
      g_auto(GStrv) names = g_strsplit (gpu_models, "|", -1);
      flags = g_new0 (guint8, MAX (cluster->pools->len, 1));
      for (guint p = 0; p < cluster->pools->len; p++)
        {
          const SimGpuModel *m = g_array_index (cluster->pools, SimPool, p).gpu_model;
          for (guint k = 0; m != NULL && names[k] != NULL; k++)
            if (g_ascii_strcasecmp (g_strstrip (names[k]), m->name) == 0)
              flags[p] = 1;
        }
      /* The cache is logically const: it changes no answer. */
      g_hash_table_insert (((SimCluster *) cluster)->allowed, (gpointer) gpu_models, flags);
    }
  return flags[pool] != 0;
}

guint
sim_cluster_get_n_pools (const SimCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, 0);
  return cluster->pools->len;
}

guint
sim_cluster_get_n_nodes (const SimCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, 0);
  return cluster->nodes->len;
}

guint
sim_cluster_get_n_gpus (const SimCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, 0);
  return cluster->gpus->len;
}

guint
sim_cluster_get_n_free_gpus (const SimCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, 0);
  return cluster->n_free;
}

guint64
sim_cluster_get_allocated_milli (const SimCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, 0);
  return cluster->allocated_milli;
}

guint
sim_cluster_get_max_gpus_per_node (const SimCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, 0);
  return cluster->max_per_node;
}

const SimPool *
sim_cluster_get_pool (const SimCluster *cluster, guint i)
{
  g_return_val_if_fail (cluster != NULL && i < cluster->pools->len, NULL);
  return &g_array_index (cluster->pools, SimPool, i);
}

const SimNode *
sim_cluster_get_node (const SimCluster *cluster, guint i)
{
  g_return_val_if_fail (cluster != NULL && i < cluster->nodes->len, NULL);
  return &g_array_index (cluster->nodes, SimNode, i);
}

const SimGpu *
sim_cluster_get_gpu (const SimCluster *cluster, guint i)
{
  g_return_val_if_fail (cluster != NULL && i < cluster->gpus->len, NULL);
  return &g_array_index (cluster->gpus, SimGpu, i);
}

const SimGpu *
sim__cluster_gpus (const SimCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, NULL);
  return (const SimGpu *) (gconstpointer) cluster->gpus->data;
}

static inline void
node_free_changed (SimCluster *c, SimNode *node, guint old_free)
{
  if (G_UNLIKELY (c->watched != NULL))
    for (guint i = 0; i < c->watched->len; i++)
      {
        Watched *w = &g_array_index (c->watched, Watched, i);
        if (node->index < w->grouping->n_nodes)
          w->free[w->grouping->group_of[node->index]] += node->free_gpus - old_free;
      }
  c->hist[node->n_gpus * HIST_DIM + old_free]--;
  c->hist[node->n_gpus * HIST_DIM + node->free_gpus]++;
  free_tree_set (c, node->index, node->free_gpus);
  if ((old_free == 0) != (node->free_gpus == 0))
    room_tree_set (c, node);
  bucket_mark (c, node->index, old_free, FALSE);
  bucket_mark (c, node->index, node->free_gpus, TRUE);
}

/* GPU G's node has one GPU fewer (@taken) or more free. */
/* Free counts changed one GPU at a time, the indexes over nodes (histogram,
 * tree, buckets) brought up to date once per node: a placement lists a
 * node's GPUs together, so that a job of a whole node updates them once,
 * not once per GPU.  The node whose count changed since its indexes were
 * last updated, and its count then. */
typedef struct {
  SimNode *node;
  guint    old_free;
} PendingNode;

static inline void
pending_flush (SimCluster *c, PendingNode *p)
{
  if (p->node != NULL && p->node->free_gpus != p->old_free)
    node_free_changed (c, p->node, p->old_free);
  p->node = NULL;
}

static inline void
pending_gpu_free_changed (SimCluster *c, PendingNode *p, const SimGpu *g, gboolean taken)
{
  SimNode *node = &g_array_index (c->nodes, SimNode, g->node);

  if (node != p->node)
    {
      pending_flush (c, p);
      p->node = node;
      p->old_free = node->free_gpus;
    }
  if (taken)
    {
      node->free_gpus--;
      c->n_free--;
    }
  else
    {
      node->free_gpus++;
      c->n_free++;
    }
}

/* GPU @g became taken or free, alone: the indexes brought up to date now. */
static void
gpu_free_changed (SimCluster *c, const SimGpu *g, gboolean taken)
{
  PendingNode pending = { NULL, 0 };

  pending_gpu_free_changed (c, &pending, g, taken);
  pending_flush (c, &pending);
}

gboolean
sim_cluster_allocate (SimCluster *cluster, const guint32 *gpus, guint n, guint milli,
                      GError **error)
{
  PendingNode pending = { NULL, 0 };
  SimGpu *all;

  g_return_val_if_fail (cluster != NULL && (gpus != NULL || n == 0), FALSE);
  if (milli == 0 || milli > SIM_GPU_WHOLE)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "allocation of %u thousandths of a GPU: expected 1 to 1000", milli);
      return FALSE;
    }
  all = (SimGpu *) (void *) cluster->gpus->data;
  /* Check everything first, so that a refused allocation changes nothing.
   * A repeated index is caught by marking tenants temporarily. */
  for (guint i = 0; i < n; i++)
    {
      if (gpus[i] >= cluster->gpus->len)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "GPU %u does not exist (the cluster has %u)", gpus[i], cluster->gpus->len);
          goto undo;
        }
      if (all[gpus[i]].mig_used != 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "GPU %u (node %u) is in MIG mode: it takes only MIG instances", gpus[i],
                       all[gpus[i]].node);
          goto undo;
        }
      if (all[gpus[i]].used_milli + milli > SIM_GPU_WHOLE)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "GPU %u (node %u) has %u/1000 free, %u/1000 requested: "
                       "it would be allocated twice",
                       gpus[i], all[gpus[i]].node, SIM_GPU_WHOLE - all[gpus[i]].used_milli,
                       milli);
          goto undo;
        }
      all[gpus[i]].used_milli += milli;
      continue;
undo:
      for (guint j = 0; j < i; j++)
        all[gpus[j]].used_milli -= milli;
      return FALSE;
    }
  cluster->allocated_milli += (guint64) n * milli;
  for (guint i = 0; i < n; i++)
    {
      SimGpu *g = &all[gpus[i]];
      g->n_tenants++;
      if (g->n_tenants == 1)
        pending_gpu_free_changed (cluster, &pending, g, TRUE);
      if (milli < SIM_GPU_WHOLE || g->n_tenants != 1)
        shared_sync (cluster, gpus[i]);
    }
  pending_flush (cluster, &pending);
  return TRUE;
}

void
sim_cluster_release (SimCluster *cluster, const guint32 *gpus, guint n, guint milli)
{
  PendingNode pending = { NULL, 0 };
  SimGpu *all;

  g_return_if_fail (cluster != NULL && (gpus != NULL || n == 0));
  all = (SimGpu *) (void *) cluster->gpus->data;
  for (guint i = 0; i < n; i++)
    {
      SimGpu *g;
      if (G_UNLIKELY (gpus[i] >= cluster->gpus->len || all[gpus[i]].used_milli < milli ||
                      all[gpus[i]].n_tenants == 0))
        {
          pending_flush (cluster, &pending);
          g_return_if_fail (gpus[i] < cluster->gpus->len);
          g_return_if_fail (all[gpus[i]].used_milli >= milli && all[gpus[i]].n_tenants > 0);
        }
      g = &all[gpus[i]];
      g->used_milli -= milli;
      g->n_tenants--;
      cluster->allocated_milli -= milli;
      if (cluster->held != NULL && !node_available (cluster, g))
        {
          /* An unavailable node keeps what its jobs give back (also when
           * it held nothing: a GPU its jobs had whole when it went down). */
          g->used_milli += milli;
          cluster->held[gpus[i]] += milli;
        }
      if (g->n_tenants == 0)
        pending_gpu_free_changed (cluster, &pending, g, FALSE);
      if (milli < SIM_GPU_WHOLE || g->n_tenants != 0)
        shared_sync (cluster, gpus[i]);
    }
  pending_flush (cluster, &pending);
}

guint
sim__cluster_node_of (const SimCluster *cluster, guint gpu)
{
  const SimNode *nodes = (const SimNode *) (const void *) cluster->nodes->data;
  guint lo = 0, hi = cluster->pools->len;

  /* The last pool whose first GPU is not past @gpu: its nodes' GPUs are
   * consecutive, gpus_per_node each.  Only the pools' first nodes are read,
   * a few records that stay in cache. */
  if (gpu >= cluster->gpus->len || hi == 0)
    return G_MAXUINT;
  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;
      const SimPool *p = &g_array_index (cluster->pools, SimPool, mid);
      if (nodes[p->first_node].first_gpu <= gpu)
        lo = mid;
      else
        hi = mid;
    }
  {
    const SimPool *p = &g_array_index (cluster->pools, SimPool, lo);
    return p->first_node + (gpu - nodes[p->first_node].first_gpu) / p->gpus_per_node;
  }
}

void
sim__cluster_prefetch (const SimCluster *cluster, guint gpu, guint node)
{
  if (gpu < cluster->gpus->len)
    __builtin_prefetch (&g_array_index (cluster->gpus, SimGpu, gpu), 1);
  if (node < cluster->nodes->len)
    {
      __builtin_prefetch (&g_array_index (cluster->nodes, SimNode, node), 1);
      __builtin_prefetch (&cluster->free_tree[cluster->free_leaves + node], 1);
      if (cluster->room_tree != NULL)
        __builtin_prefetch (&cluster->room_tree[cluster->free_leaves + node], 1);
    }
}

guint
sim_cluster_find_node_with_free (const SimCluster *cluster, guint from, guint min_free)
{
  guint k;

  g_return_val_if_fail (cluster != NULL, G_MAXUINT);
  if (from >= cluster->nodes->len)
    return G_MAXUINT;
  if (min_free == 0)
    return from;
  if (min_free > SIM_CLUSTER_MAX_GPUS_PER_NODE)
    return G_MAXUINT;
  k = cluster->free_leaves + from;
  /* Up to the first range right of @from with enough, then down into it. */
  while (cluster->free_tree[k] < min_free)
    {
      while (k & 1)
        {
          k >>= 1;
          if (k == 0)
            return G_MAXUINT;
        }
      k++;
    }
  while (k < cluster->free_leaves)
    {
      k *= 2;
      if (cluster->free_tree[k] < min_free)
        k++;
    }
  return k - cluster->free_leaves < cluster->nodes->len ? k - cluster->free_leaves : G_MAXUINT;
}

/* What sim_cluster_find_node_fitting() looks for. */
typedef struct {
  guint   from;
  guint   free;
  guint   room;
  guint64 cpu;
  guint64 mem;
} Fit;

/* The lowest node in tree range @k (nodes @lo to @hi) that fits @f: a
 * descent into the ranges whose maxima all fit. */
static guint
fit_find (const SimCluster *c, const Fit *f, guint k, guint lo, guint hi)
{
  guint mid, found;

  if (hi < f->from || lo >= c->nodes->len || c->free_tree[k] < f->free ||
      c->room_tree[k] < f->room || c->host_cpu[k] < f->cpu || c->host_mem[k] < f->mem)
    return G_MAXUINT;
  if (lo == hi)
    return lo;
  mid = lo + (hi - lo) / 2;
  found = fit_find (c, f, 2 * k, lo, mid);
  return found != G_MAXUINT ? found : fit_find (c, f, 2 * k + 1, mid + 1, hi);
}

guint
sim_cluster_find_node_fitting (const SimCluster *cluster, guint from, guint min_free,
                               guint min_room, guint64 cpu_milli, guint64 memory_bytes)
{
  Fit f = { from, min_free, min_room, cpu_milli, memory_bytes };

  g_return_val_if_fail (cluster != NULL, G_MAXUINT);
  if (from >= cluster->nodes->len)
    return G_MAXUINT;
  if (min_room == 0 && cpu_milli == 0 && memory_bytes == 0)
    {
      /* Free GPUs alone: the tree of free GPUs' own search, up from @from
       * rather than down from the root through four trees. */
      return sim_cluster_find_node_with_free (cluster, from, min_free);
    }
  return fit_find (cluster, &f, 1, 0, cluster->free_leaves - 1);
}

guint
sim_cluster_find_shared_gpu (const SimCluster *cluster, guint pool, guint room, guint from)
{
  guint32 t, best = SHARED_NIL;

  g_return_val_if_fail (cluster != NULL && pool < cluster->pools->len, G_MAXUINT);
  if (cluster->n_shared == 0)
    return G_MAXUINT;
  /* The first GPU at or after (room, from) in (room, index) order. */
  for (t = cluster->shared_root[pool]; t != SHARED_NIL;)
    {
      guint r = cluster->shared_room[t];
      if (r > room || (r == room && t >= from))
        {
          best = t;
          t = cluster->shared_left[t];
        }
      else
        t = cluster->shared_right[t];
    }
  return best == SHARED_NIL ? G_MAXUINT : best;
}

guint
sim_cluster_find_node_with_free_exactly (const SimCluster *cluster, guint from, guint n_free)
{
  const guint64 *words;
  gsize pos = from;
  guint l;

  g_return_val_if_fail (cluster != NULL, G_MAXUINT);
  g_return_val_if_fail (n_free > 0, G_MAXUINT);
  if (from >= cluster->nodes->len || n_free > cluster->bucket_dim || cluster->bucket == NULL)
    return G_MAXUINT;
  words = cluster->bucket + (gsize) (n_free - 1) * cluster->bucket_words;
  /* Up to the first level with a bit set at or right of @pos... */
  for (l = 0; l < cluster->bucket_levels; l++)
    {
      guint64 w;

      if ((pos >> 6) >= cluster->bucket_level_len[l])
        return G_MAXUINT;
      w = words[cluster->bucket_level[l] + (pos >> 6)] & (~G_GUINT64_CONSTANT (0) << (pos & 63));
      if (w != 0)
        {
          pos = (pos & ~(gsize) 63) + (gsize) __builtin_ctzll (w);
          break;
        }
      pos = (pos >> 6) + 1;
    }
  if (l == cluster->bucket_levels)
    return G_MAXUINT;
  /* ...then down to the lowest bit under it. */
  while (l-- > 0)
    pos = pos * 64 + (gsize) __builtin_ctzll (words[cluster->bucket_level[l] + pos]);
  return (guint) pos;
}

guint
sim_cluster_count_nodes_with_free (const SimCluster *cluster, guint min_free)
{
  guint count = 0;

  g_return_val_if_fail (cluster != NULL, 0);
  for (guint s = 0; s < cluster->sizes_present; s++)
    {
      guint size = cluster->sizes[s];
      for (guint f = min_free; f <= size; f++)
        count += cluster->hist[size * HIST_DIM + f];
    }
  return count;
}

guint
sim_cluster_fragmented_gpus (const SimCluster *cluster, guint gpus)
{
  guint frag = 0;

  g_return_val_if_fail (cluster != NULL, 0);
  if (gpus == 0)
    return 0;
  for (guint s = 0; s < cluster->sizes_present; s++)
    {
      guint size = cluster->sizes[s];
      guint need = MIN (gpus, size);
      for (guint f = 1; f < need; f++)
        frag += f * cluster->hist[size * HIST_DIM + f];
    }
  return frag;
}

char *
sim_cluster_describe (const SimCluster *cluster)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (cluster != NULL, NULL);
  for (guint i = 0; i < cluster->pools->len; i++)
    {
      const SimPool *p = &g_array_index (cluster->pools, SimPool, i);
      g_string_append_printf (s, "%s%u x %s (%u x %s)", i ? ", " : "", p->n_nodes,
                              p->model->name, p->n_nodes * p->gpus_per_node,
                              p->gpu_model ? p->gpu_model->name : p->model->gpu_name);
    }
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------------- */
/* MIG instances. */

/* Brings GPU G's used_milli, mig_used and tenant count in line with LAYOUT
 * (NULL: no instance left), and the node's free count with its tenants. */
static void
mig_sync (SimCluster *c, guint index, const SimGpuModel *model, const SimMigLayout *layout)
{
  SimGpu *g = &g_array_index (c->gpus, SimGpu, index);
  guint old_tenants = g->n_tenants;
  guint32 held;
  guint slices = layout ? sim_mig_layout_compute_slices (layout) : 0;
  guint used = 0;

  /* Each instance counts floor(1000 c / slices) thousandths, the share a
   * MIG job is charged (so that GPU time adds up exactly: seven 1g
   * instances of a 7-slice GPU count 994). */
  (void) slices;
  for (guint i = 0; layout != NULL && model->mig_slices > 0 && i < layout->n_instances; i++)
    used += sim_mig_instance_milli (model, layout->instances[i].profile);
  used = MIN (used, SIM_GPU_WHOLE);
  held = c->held != NULL ? c->held[index] : 0;
  c->allocated_milli = c->allocated_milli - (g->used_milli - held) + used;
  g->used_milli = used;
  g->mig_used = layout ? layout->compute_used : 0;
  g->n_tenants = layout ? layout->n_instances : 0;
  if (c->held != NULL && !node_available (c, g))
    {
      /* An unavailable node's GPU stays whole held, with its held tenant. */
      c->held[index] = SIM_GPU_WHOLE - used;
      g->used_milli = SIM_GPU_WHOLE;
      g->n_tenants++;
    }
  if ((old_tenants == 0) != (g->n_tenants == 0))
    gpu_free_changed (c, g, g->n_tenants != 0);
  shared_sync (c, index);
}

int
sim_cluster_mig_allocate (SimCluster *cluster, guint gpu, guint profile, int start,
                          GError **error)
{
  const SimGpu *g;
  const SimGpuModel *model;
  SimMigLayout *layout, fresh;
  int at;

  g_return_val_if_fail (cluster != NULL, -1);
  if (gpu >= cluster->gpus->len)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE, "GPU %u does not exist (the cluster has %u)",
                   gpu, cluster->gpus->len);
      return -1;
    }
  g = &g_array_index (cluster->gpus, SimGpu, gpu);
  model = g_array_index (cluster->nodes, SimNode, g->node).gpu_model;
  if (model == NULL || model->mig_slices == 0 || model->n_mig_profiles == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "GPU %u (%s) has no MIG", gpu,
                   model ? model->name : "unknown model");
      return -1;
    }
  if (!g_array_index (cluster->nodes, SimNode, g->node).available)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "GPU %u is on node %u, which is not available", gpu, g->node);
      return -1;
    }
  layout = g_hash_table_lookup (cluster->mig, GUINT_TO_POINTER (gpu));
  if (layout == NULL && g->n_tenants > 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "GPU %u (node %u) holds whole or fractional allocations: it cannot take a "
                   "MIG instance", gpu, g->node);
      return -1;
    }
  if (layout == NULL)
    sim_mig_layout_init (&fresh);
  at = sim_mig_layout_add (model, layout ? layout : &fresh, profile, start, error);
  if (at < 0)
    return -1;
  if (layout == NULL)
    {
      layout = g_memdup2 (&fresh, sizeof fresh);
      g_hash_table_insert (cluster->mig, GUINT_TO_POINTER (gpu), layout);
    }
  mig_sync (cluster, gpu, model, layout);
  return at;
}

gboolean
sim_cluster_mig_release (SimCluster *cluster, guint gpu, guint profile, guint start)
{
  SimMigLayout *layout;
  const SimGpuModel *model;

  g_return_val_if_fail (cluster != NULL && gpu < cluster->gpus->len, FALSE);
  layout = g_hash_table_lookup (cluster->mig, GUINT_TO_POINTER (gpu));
  if (layout == NULL)
    return FALSE;
  model = g_array_index (cluster->nodes, SimNode,
                         g_array_index (cluster->gpus, SimGpu, gpu).node).gpu_model;
  if (!sim_mig_layout_remove (model, layout, profile, start))
    return FALSE;
  if (layout->n_instances == 0)
    {
      g_hash_table_remove (cluster->mig, GUINT_TO_POINTER (gpu));
      layout = NULL;
    }
  mig_sync (cluster, gpu, model, layout);
  return TRUE;
}

const SimMigLayout *
sim_cluster_get_mig_layout (const SimCluster *cluster, guint gpu)
{
  g_return_val_if_fail (cluster != NULL && gpu < cluster->gpus->len, NULL);
  return g_hash_table_lookup (cluster->mig, GUINT_TO_POINTER (gpu));
}

gboolean
sim_cluster_mig_find (const SimCluster *cluster, const char *profile_name,
                      const char *gpu_models, guint *gpu, guint *start)
{
  g_return_val_if_fail (cluster != NULL && profile_name != NULL, FALSE);
  g_return_val_if_fail (gpu != NULL && start != NULL, FALSE);
  /* Pass 0: GPUs already in MIG mode; pass 1: free GPUs. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint p = 0; p < cluster->pools->len; p++)
      {
        const SimPool *pool = &g_array_index (cluster->pools, SimPool, p);
        const SimGpuModel *model = pool->gpu_model;
        SimMigLayout empty;
        int profile;

        if (model == NULL || model->mig_slices == 0)
          continue;
        profile = sim_mig_lookup_profile (model, profile_name);
        if (profile < 0 || !sim_cluster_node_allows (cluster, pool->first_node, gpu_models))
          continue;
        sim_mig_layout_init (&empty);
        for (guint n = pool->first_node; n < pool->first_node + pool->n_nodes; n++)
          {
            const SimNode *node = &g_array_index (cluster->nodes, SimNode, n);
            if (!node->available || (pass == 1 && node->free_gpus == 0))
              continue;
            for (guint i = node->first_gpu; i < node->first_gpu + node->n_gpus; i++)
              {
                const SimGpu *g = &g_array_index (cluster->gpus, SimGpu, i);
                const SimMigLayout *layout = NULL;
                int s;
                if (pass == 0 && g->mig_used != 0)
                  layout = g_hash_table_lookup (cluster->mig, GUINT_TO_POINTER (i));
                else if (pass == 1 && g->n_tenants == 0)
                  layout = &empty;
                if (layout == NULL)
                  continue;
                s = sim_mig_find_slot (model, layout, (guint) profile);
                if (s >= 0)
                  {
                    *gpu = i;
                    *start = (guint) s;
                    return TRUE;
                  }
              }
          }
      }
  return FALSE;
}

/* ------------------------------------------------------------------------- */
/* Node availability. */

gboolean
sim_cluster_set_node_available (SimCluster *cluster, guint node, gboolean available)
{
  PendingNode pending = { NULL, 0 };
  SimNode *n;

  g_return_val_if_fail (cluster != NULL && node < cluster->nodes->len, FALSE);
  n = &g_array_index (cluster->nodes, SimNode, node);
  available = !!available;
  if (n->available == available)
    return FALSE;
  if (cluster->held == NULL)
    cluster->held = g_new0 (guint32, MAX (cluster->gpus->len, 1));
  for (guint i = n->first_gpu; i < n->first_gpu + n->n_gpus; i++)
    {
      SimGpu *g = &g_array_index (cluster->gpus, SimGpu, i);
      if (!available)
        {
          /* Whatever is free on the GPU is held, by a tenant of its own:
           * every placement then sees the GPU taken. */
          cluster->held[i] = SIM_GPU_WHOLE - g->used_milli;
          g->used_milli = SIM_GPU_WHOLE;
          if (++g->n_tenants == 1)
            pending_gpu_free_changed (cluster, &pending, g, TRUE);
        }
      else
        {
          g->used_milli -= cluster->held[i];
          cluster->held[i] = 0;
          if (--g->n_tenants == 0)
            pending_gpu_free_changed (cluster, &pending, g, FALSE);
        }
      shared_sync (cluster, i);
    }
  pending_flush (cluster, &pending);
  n->available = available;
  return TRUE;
}

void
sim_cluster_set_node_partition (SimCluster *cluster, guint node, guint8 partition)
{
  g_return_if_fail (cluster != NULL && node < cluster->nodes->len);
  if (cluster->partition == NULL)
    {
      if (partition == 0)
        return;
      cluster->partition = g_new0 (guint8, cluster->nodes->len);
    }
  if (cluster->partition[node] != partition)
    g_clear_pointer (&cluster->outside, g_ptr_array_unref);
  cluster->partition[node] = partition;
  cluster->n_partitions = MAX (MAX (cluster->n_partitions, 1), (guint) partition + 1);
}

const guint32 *
sim__cluster_get_nodes_outside (SimCluster *cluster, guint partition, guint *n_nodes)
{
  GArray *nodes;

  g_return_val_if_fail (cluster != NULL && n_nodes != NULL, NULL);
  if (cluster->outside == NULL || cluster->outside->len != sim_cluster_get_n_partitions (cluster))
    {
      guint n_parts = sim_cluster_get_n_partitions (cluster);
      if (cluster->outside != NULL)
        g_ptr_array_unref (cluster->outside);
      cluster->outside = g_ptr_array_new_full (n_parts, (GDestroyNotify) g_array_unref);
      for (guint p = 0; p < n_parts; p++)
        {
          GArray *a = g_array_new (FALSE, FALSE, sizeof (guint32));
          for (guint32 i = 0; i < cluster->nodes->len; i++)
            if (sim_cluster_get_node_partition (cluster, i) != p)
              g_array_append_val (a, i);
          g_ptr_array_add (cluster->outside, a);
        }
    }
  if (partition >= cluster->outside->len)
    {
      *n_nodes = 0;
      return NULL;
    }
  nodes = g_ptr_array_index (cluster->outside, partition);
  *n_nodes = nodes->len;
  return (const guint32 *) (gpointer) nodes->data;
}

guint8
sim_cluster_get_node_partition (const SimCluster *cluster, guint node)
{
  g_return_val_if_fail (cluster != NULL && node < cluster->nodes->len, 0);
  return cluster->partition != NULL ? cluster->partition[node] : 0;
}

guint
sim_cluster_get_n_partitions (const SimCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, 1);
  return MAX (cluster->n_partitions, 1);
}

SimNodeGrouping *
sim__node_grouping_new (const guint32 *group_of, guint n_nodes, guint n_groups)
{
  SimNodeGrouping *g;

  g_return_val_if_fail (group_of != NULL || n_nodes == 0, NULL);
  for (guint i = 0; i < n_nodes; i++)
    g_return_val_if_fail (group_of[i] < n_groups, NULL);
  g = g_new0 (SimNodeGrouping, 1);
  g->ref_count = 1;
  g->n_nodes = n_nodes;
  g->n_groups = n_groups;
  g->group_of = g_memdup2 (group_of, sizeof (guint32) * MAX (n_nodes, 1));
  return g;
}

SimNodeGrouping *
sim__node_grouping_ref (SimNodeGrouping *grouping)
{
  g_return_val_if_fail (grouping != NULL, NULL);
  g_atomic_int_inc (&grouping->ref_count);
  return grouping;
}

void
sim__node_grouping_unref (SimNodeGrouping *grouping)
{
  if (grouping == NULL || !g_atomic_int_dec_and_test (&grouping->ref_count))
    return;
  g_free (grouping->group_of);
  g_free (grouping);
}

static void
watched_clear (gpointer data)
{
  Watched *w = data;

  sim__node_grouping_unref (w->grouping);
  g_free (w->free);
}

void
sim__cluster_watch_grouping (SimCluster *cluster, SimNodeGrouping *grouping)
{
  Watched w;

  g_return_if_fail (cluster != NULL && grouping != NULL);
  g_return_if_fail (grouping->n_nodes == cluster->nodes->len);
  if (sim__cluster_get_group_free (cluster, grouping) != NULL)
    return;
  if (cluster->watched == NULL)
    {
      cluster->watched = g_array_new (FALSE, FALSE, sizeof (Watched));
      g_array_set_clear_func (cluster->watched, watched_clear);
    }
  w.grouping = sim__node_grouping_ref (grouping);
  w.free = g_new0 (guint32, MAX (grouping->n_groups, 1));
  for (guint i = 0; i < grouping->n_nodes; i++)
    w.free[grouping->group_of[i]] += g_array_index (cluster->nodes, SimNode, i).free_gpus;
  g_array_append_val (cluster->watched, w);
}

void
sim__cluster_unwatch_grouping (SimCluster *cluster, SimNodeGrouping *grouping)
{
  g_return_if_fail (cluster != NULL && grouping != NULL);
  for (guint i = 0; cluster->watched != NULL && i < cluster->watched->len; i++)
    if (g_array_index (cluster->watched, Watched, i).grouping == grouping)
      {
        g_array_remove_index (cluster->watched, i);
        return;
      }
}

const guint32 *
sim__cluster_get_group_free (const SimCluster *cluster, const SimNodeGrouping *grouping)
{
  g_return_val_if_fail (cluster != NULL && grouping != NULL, NULL);
  for (guint i = 0; cluster->watched != NULL && i < cluster->watched->len; i++)
    {
      const Watched *w = &g_array_index (cluster->watched, Watched, i);
      if (w->grouping == grouping)
        return w->free;
    }
  return NULL;
}
