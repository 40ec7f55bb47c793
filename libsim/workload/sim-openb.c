/* sim-openb.c: readers of the openb CSV node and pod lists.
 *
 * The files are plain CSV without quoting: fields are split at commas.
 * Lines come from the shared line reader (bounded memory, gzip recognised);
 * a line that is too long or holds a NUL byte is an error.  Blank lines
 * are ignored.  The header maps column names to
 * field positions once; rows are then parsed by position.
 */
#include "config.h"

#include "workload/sim-openb.h"
#include "workload/sim-line-reader.h"
#include "workload/sim-trace-util.h"
#include "core/sim-error.h"
#include "workload/sim-workload-private.h"

#include <string.h>

#define MAX_FIELDS 64

/* Column schemas: the names a header must hold, each exactly once. */
enum { N_SN, N_CPU, N_MEM, N_GPU, N_MODEL, N_NODE_COLUMNS };
static const char *const node_columns[N_NODE_COLUMNS] = {
  "sn", "cpu_milli", "memory_mib", "gpu", "model",
};

enum {
  P_NAME, P_CPU, P_MEM, P_NUM_GPU, P_GPU_MILLI, P_GPU_SPEC, P_QOS, P_PHASE, P_CREATION,
  P_DELETION, P_SCHEDULED, N_POD_COLUMNS
};
static const char *const pod_columns[N_POD_COLUMNS] = {
  "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase",
  "creation_time", "deletion_time", "scheduled_time",
};

/* The lists are read with the trace readers' table reader, held to a
 * strict header: every column is one of the schema's, the first
 * @n_required of them present. */
typedef SimTraceTable CsvReader;
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CsvReader, sim__trace_table_clear)

#define row_error  sim__trace_table_field_error
#define line_error sim__trace_table_line_error
#define quote      sim__trace_quote

static gboolean
csv_reader_open (CsvReader *r, const char *path, const char *const *schema, guint n_schema,
                 guint n_required, GError **error)
{
  guint required[MAX_FIELDS];

  for (guint k = 0; k < n_required; k++)
    required[k] = k;
  return sim__trace_table_open (r, path, ',', TRUE, schema, n_schema, error) &&
         sim__trace_table_refuse_unknown (r, error) &&
         sim__trace_table_require (r, required, n_required, error);
}

static gboolean
csv_reader_next (CsvReader *r, GError **error)
{
  return sim__trace_table_next (r, error);
}

static void
csv_reader_clear (CsvReader *r)
{
  sim__trace_table_clear (r);
}

/* A column's field, "" when the header has no such column. */
static const char *
field (const CsvReader *r, guint schema_index)
{
  const char *f = sim__trace_table_get (r, schema_index);
  return f != NULL ? f : "";
}

static gboolean
has_column (const CsvReader *r, guint schema_index)
{
  return r->position[schema_index] >= 0;
}

static gboolean
field_uint (CsvReader *r, guint k, guint64 max, guint64 *out, GError **error)
{
  const char *s = field (r, k);
  g_autoptr(GError) local = NULL;

  if (*s == '\0')
    return row_error (r, k, error, "the field is empty: expected an integer");
  if (!g_ascii_string_to_unsigned (s, 10, 0, max, out, &local))
    {
      g_autofree char *q = quote (s);
      if (g_error_matches (local, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
        return row_error (r, k, error, "%s is out of range: expected 0 to %" G_GUINT64_FORMAT, q,
                          max);
      return row_error (r, k, error, "%s is not a non-negative integer", q);
    }
  return TRUE;
}

/* Seconds, or -1 for an empty field when @optional. */
static gboolean
field_seconds (CsvReader *r, guint k, gboolean optional, gint64 *out, GError **error)
{
  guint64 v;

  if (optional && *field (r, k) == '\0')
    {
      *out = -1;
      return TRUE;
    }
  /* Bounded so that the value in nanoseconds fits in a SimTime. */
  if (!field_uint (r, k, G_MAXINT64 / SIM_SECOND, &v, error))
    return FALSE;
  *out = (gint64) v;
  return TRUE;
}

static gboolean
parse_node (CsvReader *r, SimOpenbNode *out, GError **error)
{
  guint64 gpus;

  if (!field_uint (r, N_CPU, G_MAXINT64, &out->cpu_milli, error)
      || !field_uint (r, N_MEM, G_MAXINT64, &out->memory_mib, error)
      || !field_uint (r, N_GPU, G_MAXUINT32, &gpus, error))
    return FALSE;
  out->gpus = (guint32) gpus;
  if (*field (r, N_SN) == '\0')
    return row_error (r, N_SN, error, "the field is empty: expected the node's name");
  if (gpus > 0 && *field (r, N_MODEL) == '\0')
    return row_error (r, N_MODEL, error,
                      "the node has %" G_GUINT64_FORMAT " GPUs but no GPU model", gpus);
  out->sn = g_strdup (field (r, N_SN));
  out->model = g_strdup (field (r, N_MODEL));
  return TRUE;
}

static gboolean
parse_pod (CsvReader *r, SimOpenbPod *out, GError **error)
{
  guint64 num_gpu, gpu_milli;
  const char *spec;

  if (!field_uint (r, P_CPU, G_MAXINT64, &out->cpu_milli, error)
      || !field_uint (r, P_MEM, G_MAXINT64, &out->memory_mib, error)
      || !field_uint (r, P_NUM_GPU, G_MAXUINT32, &num_gpu, error)
      || !field_uint (r, P_GPU_MILLI, G_MAXUINT32, &gpu_milli, error)
      || !field_seconds (r, P_CREATION, !has_column (r, P_CREATION), &out->creation_time,
                         error)
      || !field_seconds (r, P_DELETION, TRUE, &out->deletion_time, error)
      || !field_seconds (r, P_SCHEDULED, TRUE, &out->scheduled_time, error))
    return FALSE;
  if (*field (r, P_NAME) == '\0')
    return row_error (r, P_NAME, error, "the field is empty: expected the pod's name");
  if (gpu_milli > 1000)
    return row_error (r, P_GPU_MILLI, error, "%" G_GUINT64_FORMAT " is out of range: "
                      "expected 0 to 1000 (thousandths of a GPU)", gpu_milli);
  if (num_gpu == 0 && gpu_milli != 0)
    return row_error (r, P_GPU_MILLI, error, "%" G_GUINT64_FORMAT " thousandths of a GPU "
                      "for a pod with num_gpu 0: expected 0", gpu_milli);
  if (num_gpu > 0 && gpu_milli == 0)
    return row_error (r, P_GPU_MILLI, error, "0 thousandths of a GPU for a pod with num_gpu %"
                      G_GUINT64_FORMAT ": expected 1 to 1000", num_gpu);
  if (num_gpu > 1 && gpu_milli < 1000)
    return row_error (r, P_GPU_MILLI, error, "%" G_GUINT64_FORMAT " thousandths of a GPU for "
                      "a pod with num_gpu %" G_GUINT64_FORMAT ": a fractional GPU (below 1000) "
                      "is allowed only with num_gpu 1", gpu_milli, num_gpu);
  spec = field (r, P_GPU_SPEC);
  if (*spec == '\0')
    out->gpu_spec = g_new0 (char *, 1);
  else
    {
      out->gpu_spec = g_strsplit (spec, "|", -1);
      for (guint i = 0; out->gpu_spec[i] != NULL; i++)
        if (*out->gpu_spec[i] == '\0')
          {
            g_autofree char *q = quote (spec);
            g_clear_pointer (&out->gpu_spec, g_strfreev);
            return row_error (r, P_GPU_SPEC, error, "%s has an empty model name: expected "
                              "models separated by '|'", q);
          }
    }
  out->num_gpu = (guint32) num_gpu;
  out->gpu_milli = (guint32) gpu_milli;
  out->name = g_strdup (field (r, P_NAME));
  out->qos = g_strdup (field (r, P_QOS));
  out->pod_phase = g_strdup (field (r, P_PHASE));
  return TRUE;
}

void
sim_openb_node_free (SimOpenbNode *node)
{
  if (node == NULL)
    return;
  g_free (node->sn);
  g_free (node->model);
  g_free (node);
}

void
sim_openb_pod_free (SimOpenbPod *pod)
{
  if (pod == NULL)
    return;
  g_free (pod->name);
  g_strfreev (pod->gpu_spec);
  g_free (pod->qos);
  g_free (pod->pod_phase);
  g_free (pod);
}

/* The published lists name each node and each pod once: a name seen
 * again (a list joined to itself, or to another) would count a node's GPUs
 * twice or draw a pod twice as often.  @names maps a name to its line. */
static gboolean
check_unique (CsvReader *r, GHashTable *names, guint k, const char *what, GError **error)
{
  const char *name = field (r, k);
  gpointer first;

  if (g_hash_table_lookup_extended (names, name, NULL, &first))
    {
      g_autofree char *q = quote (name);
      return row_error (r, k, error, "%s is listed twice (first on line %u): expected each %s "
                        "once", q, GPOINTER_TO_UINT (first), what);
    }
  g_hash_table_insert (names, g_strdup (name), GUINT_TO_POINTER ((guint) r->line_no));
  return TRUE;
}

GPtrArray *
sim_openb_read_nodes (const char *path, GError **error)
{
  g_auto(CsvReader) r = { 0 };
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GError *local = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  if (!csv_reader_open (&r, path, node_columns, N_NODE_COLUMNS, N_NODE_COLUMNS, error))
    return NULL;
  nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_openb_node_free);
  while (csv_reader_next (&r, &local))
    {
      g_autoptr(SimOpenbNode) node = g_new0 (SimOpenbNode, 1);
      if (!parse_node (&r, node, error) || !check_unique (&r, names, N_SN, "node", error))
        return NULL;
      g_ptr_array_add (nodes, g_steal_pointer (&node));
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (nodes->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s: no node after the header: expected "
                   "a row per node", r.display);
      return NULL;
    }
  return g_steal_pointer (&nodes);
}

GPtrArray *
sim_openb_read_pods (const char *path, GError **error)
{
  g_auto(CsvReader) r = { 0 };
  g_autoptr(GPtrArray) pods = NULL;
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GError *local = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  if (!csv_reader_open (&r, path, pod_columns, N_POD_COLUMNS, P_GPU_MILLI + 1, error))
    return NULL;
  pods = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_openb_pod_free);
  while (csv_reader_next (&r, &local))
    {
      g_autoptr(SimOpenbPod) pod = g_new0 (SimOpenbPod, 1);
      if (!parse_pod (&r, pod, error) || !check_unique (&r, names, P_NAME, "pod", error))
        return NULL;
      g_ptr_array_add (pods, g_steal_pointer (&pod));
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (pods->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE, "%s: no pod after the header: expected "
                   "a row per pod", r.display);
      return NULL;
    }
  return g_steal_pointer (&pods);
}

const char *
sim_openb_gpu_model_to_catalogue (const char *model)
{
  static const char *const map[][2] = {
    { "P100", "P100" },
    { "T4", "T4" },
    { "V100M16", "V100-16GB" },
    { "V100M32", "V100-32GB" },
    { "A10", "A10" },
  };

  g_return_val_if_fail (model != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (model, map[i][0]) == 0)
      return map[i][1];
  return model;
}

/* ------------------------------------------------------------------------- */
/* The streaming workload source.                                            */

typedef struct {
  SimWorkload parent;
  SimOpenbConfig config;
  CsvReader reader;
  guint64  count;
  guint64  skipped_no_gpu;
  guint64  skipped_invalid;
  gint64   prev_creation;
  guint64  prev_line;
  gboolean have_prev;
  gint64   base;
  gboolean have_base;
  GError  *failure;   /* sticky: returned again by later calls */
  gboolean done;
} SimOpenb;

/* The pod's GPU models as catalogue names joined by '|', interned; NULL
 * for any model. */
static const char *
catalogue_models (char **spec)
{
  g_autoptr(GString) s = NULL;

  if (spec[0] == NULL)
    return NULL;
  s = g_string_new (NULL);
  for (guint i = 0; spec[i] != NULL; i++)
    g_string_append_printf (s, "%s%s", i ? "|" : "", sim_openb_gpu_model_to_catalogue (spec[i]));
  return g_intern_string (s->str);
}

/* Reads rows until one yields a job.  FALSE at the end (error unset) or on
 * failure. */
static gboolean
read_job (SimOpenb *ob, SimJobSpec *out, GError **error)
{
  CsvReader *r = &ob->reader;

  for (;;)
    {
      g_autoptr(SimOpenbPod) pod = g_new0 (SimOpenbPod, 1);
      gint64 seconds;

      if (!csv_reader_next (r, error))
        return FALSE;
      if (!parse_pod (r, pod, error))
        return FALSE;
      if (ob->have_prev && pod->creation_time < ob->prev_creation)
        return row_error (r, P_CREATION, error,
                          "%" G_GINT64_FORMAT " is earlier than the previous pod's (%"
                          G_GINT64_FORMAT " on line %" G_GUINT64_FORMAT "): pods must be in "
                          "order of creation", pod->creation_time, ob->prev_creation,
                          ob->prev_line);
      ob->prev_creation = pod->creation_time;
      ob->prev_line = r->line_no;
      ob->have_prev = TRUE;

      if (pod->num_gpu == 0)
        {
          ob->skipped_no_gpu++;
          continue;
        }
      if (pod->deletion_time < 0 || pod->deletion_time < pod->creation_time)
        {
          if (ob->config.skip_invalid)
            {
              ob->skipped_invalid++;
              continue;
            }
          if (pod->deletion_time < 0)
            return row_error (r, P_DELETION, error, "pod %s has no deletion time, so no "
                              "duration (skip such pods with skip_invalid)", pod->name);
          return row_error (r, P_DELETION, error, "pod %s is deleted at %" G_GINT64_FORMAT
                            ", before its creation at %" G_GINT64_FORMAT, pod->name,
                            pod->deletion_time, pod->creation_time);
        }
      if (!ob->have_base)
        {
          ob->base = ob->config.rebase_time ? pod->creation_time : 0;
          ob->have_base = TRUE;
        }
      seconds = pod->deletion_time - pod->creation_time;
      out->id = r->line_no;
      out->submit = (pod->creation_time - ob->base) * SIM_SECOND;
      out->duration = seconds > 0 ? seconds * SIM_SECOND : 1;
      out->requested = 0;
      out->gpus = pod->num_gpu;
      out->gpu_milli = pod->gpu_milli;
      out->job_class = 0;
      out->user = -1;
      out->status = -1;
      if (pod->cpu_milli > G_MAXUINT32)
        return row_error (r, P_CPU, error, "%" G_GUINT64_FORMAT " is too large: at most %u",
                          pod->cpu_milli, G_MAXUINT32);
      if (pod->memory_mib > G_MAXUINT64 / (1024 * 1024))
        return row_error (r, P_MEM, error, "%" G_GUINT64_FORMAT " MiB is too large",
                          pod->memory_mib);
      out->cpu_milli = (guint32) pod->cpu_milli;
      out->memory_bytes = pod->memory_mib * 1024 * 1024;
      out->gpu_models = catalogue_models (pod->gpu_spec);
      return TRUE;
    }
}

static gboolean
openb_next (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  SimOpenb *ob = (SimOpenb *) workload;
  GError *local = NULL;

  if (ob->failure != NULL)
    {
      g_propagate_error (error, g_error_copy (ob->failure));
      return FALSE;
    }
  if (ob->done)
    return FALSE;
  if (ob->config.max_jobs > 0 && ob->count >= ob->config.max_jobs)
    {
      ob->done = TRUE;
      return FALSE;
    }
  if (!read_job (ob, out, &local))
    {
      if (local != NULL)
        {
          ob->failure = g_error_copy (local);
          g_propagate_error (error, local);
        }
      else
        ob->done = TRUE;
      return FALSE;
    }
  ob->count++;
  return TRUE;
}

static void
openb_finalize (SimWorkload *workload)
{
  SimOpenb *ob = (SimOpenb *) workload;

  csv_reader_clear (&ob->reader);
  g_clear_error (&ob->failure);
}

static guint64
openb_skipped (const SimWorkload *workload)
{
  return sim_workload_openb_skipped (workload, NULL, NULL);
}

static const SimWorkloadVTable openb_vtable = {
  openb_next,
  openb_finalize,
  openb_skipped,
};

SimWorkload *
sim_workload_new_openb (const char *path, const SimOpenbConfig *config, GError **error)
{
  g_autoptr(SimWorkload) workload = NULL;
  g_autofree char *display = NULL;
  g_autofree char *description = NULL;
  SimOpenb *ob;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  ob = g_new0 (SimOpenb, 1);
  display = g_filename_display_name (path);
  description = g_strconcat ("openb:", display, NULL);
  workload = (SimWorkload *) ob;
  sim__workload_init (workload, &openb_vtable, description);
  g_ptr_array_add (workload->class_names, g_strdup ("openb"));
  ob->config = *config;
  if (!csv_reader_open (&ob->reader, path, pod_columns, N_POD_COLUMNS, N_POD_COLUMNS,
                        error))
    return NULL;
  return g_steal_pointer (&workload);
}

guint64
sim_workload_openb_skipped (const SimWorkload *workload, guint64 *no_gpu, guint64 *invalid)
{
  const SimOpenb *ob;

  g_return_val_if_fail (workload != NULL, 0);
  if (no_gpu != NULL)
    *no_gpu = 0;
  if (invalid != NULL)
    *invalid = 0;
  if (workload->vtable != &openb_vtable)
    return 0;
  ob = (const SimOpenb *) workload;
  if (no_gpu != NULL)
    *no_gpu = ob->skipped_no_gpu;
  if (invalid != NULL)
    *invalid = ob->skipped_invalid;
  return ob->skipped_no_gpu + ob->skipped_invalid;
}
