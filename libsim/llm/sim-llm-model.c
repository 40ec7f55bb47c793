/* sim-llm-model.c: the model catalogue of the training model: reading a
 * model from a catalogue file's [llm] group or a scenario's [llm NAME]
 * section, finding it on the search path, and counting its parameters and
 * FLOPs.
 *
 * Keys are described once, in sim__llm_key_table, which drives the
 * unknown-key check with its suggestion, the missing-key check, parsing,
 * `gpusim keys` and docs/keys.md.  A model whose published parameter count
 * (`parameters`) is more than 10 % from what its architecture gives is
 * refused: it is how a mistyped width or layer count shows itself.
 */
#include "config.h"

#include "llm/sim-llm-private.h"
#include "core/sim-error.h"
#include "core/sim-read.h"
#include "core/sim-util.h"
#include "core/sim-units.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* How far a file's published parameter count may be from the count of its
 * architecture: biases, rotary tables and padded vocabularies differ
 * between descriptions by a few per cent, a wrong width by far more. */
#define PARAMETER_TOLERANCE 0.10

SIM_KEYS_UINT_PARSER (parse_count, 1, 100000000)

SIM_KEYS_UINT_PARSER (parse_count0, 0, 100000000)

/* A parameter count: "70.6e9", "70600000000" or "70.6B". */
static gboolean
parse_parameters (const char *text, gpointer out, GError **error)
{
  g_autofree char *copy = g_strdup (text);
  gsize len = strlen (copy);
  double scale = 1;

  if (len > 1 && strchr ("KMBT", g_ascii_toupper (copy[len - 1])) != NULL)
    {
      char u = g_ascii_toupper (copy[len - 1]);
      scale = u == 'K' ? 1e3 : u == 'M' ? 1e6 : u == 'B' ? 1e9 : 1e12;
      copy[len - 1] = '\0';
    }
  if (!sim_parse_number (copy, 0, 1e16, (double *) out, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not a parameter count: expected a number such as \"70.6e9\" or "
                   "\"70.6B\"", text);
      return FALSE;
    }
  *(double *) out *= scale;
  return TRUE;
}

static gboolean
parse_text (const char *text, gpointer out, GError **error)
{
  if (*text == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE, "empty: expected some text");
      return FALSE;
    }
  g_free (*(char **) out);
  *(char **) out = g_strdup (text);
  return TRUE;
}

#define M(field) offsetof (SimLlmModel, field)

static const SimKey llm_keys[] = {
  { "name", SIM_KEY_STRING, NULL, NULL, "the section's name",
    "the model's name, by which scenarios and `gpusim llm --model` find it",
    SIM_KEY_DEFAULT_DESCRIBED, parse_text, M (name) },
  { "description", SIM_KEY_STRING, NULL, NULL, NULL, "a line of text about the model", 0,
    parse_text, M (description) },
  { "layers", SIM_KEY_INT, NULL, "1 to 100000000", NULL, "transformer layers",
    SIM_KEY_REQUIRED, parse_count, M (layers) },
  { "hidden", SIM_KEY_INT, NULL, "1 to 100000000", NULL, "the model width (d_model)",
    SIM_KEY_REQUIRED, parse_count, M (hidden) },
  { "ffn_hidden", SIM_KEY_INT, NULL, "1 to 100000000", NULL,
    "the feed-forward network's inner width in dense layers", SIM_KEY_REQUIRED, parse_count,
    M (ffn_hidden) },
  { "heads", SIM_KEY_INT, NULL, "1 to 100000000", NULL, "attention (query) heads",
    SIM_KEY_REQUIRED, parse_count, M (heads) },
  { "kv_heads", SIM_KEY_INT, NULL, "divides heads", "heads",
    "key/value heads (grouped-query attention)", SIM_KEY_DEFAULT_DESCRIBED, parse_count,
    M (kv_heads) },
  { "head_dim", SIM_KEY_INT, NULL, "1 to 100000000", "hidden / heads",
    "the width of one attention head", SIM_KEY_DEFAULT_DESCRIBED, parse_count, M (head_dim) },
  { "vocab", SIM_KEY_INT, NULL, "1 to 100000000", NULL, "the vocabulary's size",
    SIM_KEY_REQUIRED, parse_count, M (vocab) },
  { "seq_length", SIM_KEY_INT, "tokens", "1 to 100000000", NULL,
    "the training sequence length", SIM_KEY_REQUIRED, parse_count, M (seq_length) },
  { "context", SIM_KEY_INT, "tokens", "1 to 100000000", "seq_length",
    "the context window: the longest request, prompt and answer, `gpusim serve` accepts",
    SIM_KEY_DEFAULT_DESCRIBED, parse_count, M (context) },
  { "gated_ffn", SIM_KEY_BOOL, NULL, NULL, "false",
    "a gated feed-forward network (SwiGLU: three matrices instead of two)", 0,
    sim__keys_parse_bool, M (gated_ffn) },
  { "tied_embeddings", SIM_KEY_BOOL, NULL, NULL, "false",
    "the output layer shares the input embedding's weights", 0, sim__keys_parse_bool,
    M (tied_embeddings) },
  { "q_lora_rank", SIM_KEY_INT, NULL, NULL, "0",
    "multi-head latent attention: the query compression rank (0: no compression)", 0,
    parse_count0, M (q_lora_rank) },
  { "kv_lora_rank", SIM_KEY_INT, NULL, NULL, "0",
    "multi-head latent attention: the key/value compression rank (0: no MLA)", 0,
    parse_count0, M (kv_lora_rank) },
  { "qk_rope_dim", SIM_KEY_INT, NULL, NULL, "0",
    "multi-head latent attention: the decoupled rotary key width per head", 0, parse_count0,
    M (qk_rope_dim) },
  { "experts", SIM_KEY_INT, NULL, NULL, "0",
    "routed experts in each mixture-of-experts layer (0: a dense model)", 0, parse_count0,
    M (experts) },
  { "experts_per_token", SIM_KEY_INT, NULL, "1 to experts", "1 with experts",
    "routed experts each token goes to", SIM_KEY_DEFAULT_DESCRIBED, parse_count0,
    M (experts_per_token) },
  { "shared_experts", SIM_KEY_INT, NULL, NULL, "0",
    "experts every token goes to in mixture-of-experts layers", 0, parse_count0,
    M (shared_experts) },
  { "moe_ffn_hidden", SIM_KEY_INT, NULL, NULL, "ffn_hidden",
    "one expert's inner width", SIM_KEY_DEFAULT_DESCRIBED, parse_count0, M (moe_ffn_hidden) },
  { "dense_layers", SIM_KEY_INT, NULL, "0 to layers", "0",
    "the first layers of a mixture-of-experts model that are dense", 0, parse_count0,
    M (dense_layers) },
  { "parameters", SIM_KEY_NUMBER, NULL, NULL, NULL,
    "the published parameter count, checked against the architecture's (within 10 %)", 0,
    parse_parameters, M (parameters) },
};

const SimKeyTable sim__llm_key_table = {
  "llm", TRUE,
  "A language model for training jobs (also a file in a catalogue folder's llm/)", llm_keys,
  G_N_ELEMENTS (llm_keys), NULL, NULL,
};

void
sim_llm_model_free (SimLlmModel *model)
{
  if (model == NULL)
    return;
  g_free (model->name);
  g_free (model->description);
  g_free (model->source_file);
  g_free (model);
}

SimLlmModel *
sim__llm_model_copy (const SimLlmModel *model)
{
  SimLlmModel *copy = g_new (SimLlmModel, 1);

  *copy = *model;
  copy->name = g_strdup (model->name);
  copy->description = g_strdup (model->description);
  copy->source_file = g_strdup (model->source_file);
  return copy;
}

/* Prefixes ERROR with "WHERE:LINE: [GROUP] KEY: ". */
static void
locate (GError **error, const char *where, const SimKeyLines *lines, const char *group,
        const char *key)
{
  guint line = lines != NULL ? sim__key_lines_find (lines, group, key) : 0;
  g_autofree char *at = line > 0 ? g_strdup_printf ("%s:%u", where, line) : g_strdup (where);

  if (key != NULL)
    g_prefix_error (error, "%s: [%s] %s: ", at, group, key);
  else
    g_prefix_error (error, "%s: [%s]: ", at, group);
}

static double
attention_params (const SimLlmModel *m)
{
  double h = m->hidden, hd = m->head_dim, a = m->heads;

  if (m->kv_lora_rank > 0)
    {
      /* MLA: queries through an optional low-rank projection, keys and
       * values from one compressed latent, a rotary key shared by the
       * heads, and the output projection. */
      double rope = m->qk_rope_dim;
      double q = m->q_lora_rank > 0
                   ? h * m->q_lora_rank + m->q_lora_rank + m->q_lora_rank * a * (hd + rope)
                   : h * a * (hd + rope);
      double kv = h * (m->kv_lora_rank + rope) + m->kv_lora_rank
                  + (double) m->kv_lora_rank * a * (hd + hd);
      return q + kv + a * hd * h;
    }
  return h * a * hd + 2 * h * m->kv_heads * hd + a * hd * h;
}

static double
ffn_params (const SimLlmModel *m, guint width)
{
  return (m->gated_ffn ? 3.0 : 2.0) * m->hidden * width;
}

static guint
moe_layers (const SimLlmModel *m)
{
  return m->experts > 0 ? m->layers - m->dense_layers : 0;
}

static double
count_parameters (const SimLlmModel *m, guint routed)
{
  double h = m->hidden;
  double dense = (double) (m->layers - moe_layers (m)) * ffn_params (m, m->ffn_hidden);
  double moe = (double) moe_layers (m)
               * ((routed + m->shared_experts) * ffn_params (m, m->moe_ffn_hidden)
                  + h * m->experts);
  double embeddings = (double) m->vocab * h * (m->tied_embeddings ? 1 : 2);

  return m->layers * (attention_params (m) + 2 * h) + dense + moe + embeddings + h;
}

double
sim_llm_model_parameters (const SimLlmModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  return count_parameters (model, model->experts);
}

double
sim_llm_model_active_parameters (const SimLlmModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  return count_parameters (model, model->experts_per_token);
}

double
sim_llm_model_flops_per_token (const SimLlmModel *model, guint seq_length)
{
  const SimLlmModel *m = model;
  double s, h, matmul, scores;

  g_return_val_if_fail (model != NULL, 0);
  s = seq_length > 0 ? seq_length : m->seq_length;
  h = m->hidden;
  /* The weights a token multiplies: every active parameter but the input
   * embedding (a lookup) and the norms. */
  matmul = sim_llm_model_active_parameters (m) - (m->tied_embeddings ? 0.0 : (double) m->vocab * h)
           - (2.0 * m->layers + 1) * h;
  /* Scores (Q K^T) and their product with the values, 2 FLOPs a
   * multiply-add, over the whole sequence (no causal saving). */
  scores = 2.0 * s * m->heads * (m->head_dim + m->qk_rope_dim) + 2.0 * s * m->heads * m->head_dim;
  return 3.0 * (2.0 * matmul + m->layers * scores);
}

/* Defaults that depend on other keys, and the checks across keys. */
static gboolean
finish (SimLlmModel *m, GKeyFile *kf, const char *group, const char *where,
        const SimKeyLines *lines, GError **error)
{
  double computed;

#define FAIL(key, ...) \
  do { \
    g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, __VA_ARGS__); \
    locate (error, where, lines, group, key); \
    return FALSE; \
  } while (0)

  if (m->kv_heads == 0)
    m->kv_heads = m->heads;
  if (m->context == 0)
    m->context = m->seq_length;
  if (m->head_dim == 0)
    {
      if (m->hidden % m->heads != 0)
        FAIL ("heads", "%u heads do not divide hidden = %u: expected a divisor, or head_dim",
              m->heads, m->hidden);
      m->head_dim = m->hidden / m->heads;
    }
  if (m->heads % m->kv_heads != 0)
    FAIL ("kv_heads", "%u: expected a divisor of heads = %u", m->kv_heads, m->heads);
  if (m->moe_ffn_hidden == 0)
    m->moe_ffn_hidden = m->ffn_hidden;
  if (m->experts == 0)
    {
      const char *moe_only[] = { "experts_per_token", "shared_experts", "moe_ffn_hidden",
                                 "dense_layers" };
      for (guint i = 0; i < G_N_ELEMENTS (moe_only); i++)
        if (g_key_file_has_key (kf, group, moe_only[i], NULL))
          FAIL (moe_only[i], "a key of mixture-of-experts models: expected experts as well");
      m->experts_per_token = 0;
    }
  else
    {
      /* (0 means not given; written out, it routes a token nowhere.) */
      if (m->experts_per_token == 0 && g_key_file_has_key (kf, group, "experts_per_token", NULL))
        FAIL ("experts_per_token", "0: expected from 1 to experts = %u", m->experts);
      if (m->experts_per_token == 0)
        m->experts_per_token = 1;
      if (m->experts_per_token > m->experts)
        FAIL ("experts_per_token", "%u: expected at most experts = %u", m->experts_per_token,
              m->experts);
      if (m->dense_layers >= m->layers)
        FAIL ("dense_layers", "%u: expected fewer than layers = %u", m->dense_layers,
              m->layers);
    }
  if ((m->q_lora_rank > 0 || m->qk_rope_dim > 0) && m->kv_lora_rank == 0)
    FAIL (m->q_lora_rank > 0 ? "q_lora_rank" : "qk_rope_dim",
          "a key of multi-head latent attention: expected kv_lora_rank as well");
  computed = sim_llm_model_parameters (m);
  if (m->parameters > 0 && fabs (computed / m->parameters - 1) > PARAMETER_TOLERANCE)
    FAIL ("parameters",
          "%.4g, but the architecture gives %.4g (%+.0f %%): expected the two within %.0f %%; "
          "check layers, hidden, ffn_hidden, heads, vocab and the experts",
          m->parameters, computed, 100 * (computed / m->parameters - 1),
          100 * PARAMETER_TOLERANCE);
#undef FAIL
  return TRUE;
}

SimLlmModel *
sim__llm_model_read (GKeyFile *kf, const char *group, const char *where,
                     const SimKeyLines *lines, const char *name, GError **error)
{
  g_autoptr(SimLlmModel) m = g_new0 (SimLlmModel, 1);
  g_auto(GStrv) keys = g_key_file_get_keys (kf, group, NULL, NULL);
  const SimKeyTable *table = &sim__llm_key_table;

  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      const SimKey *k = sim__keys_find (table, keys[i]);
      g_autofree char *raw = NULL;

      if (k == NULL)
        {
          sim__keys_set_unknown (table, keys[i], error);
          locate (error, where, lines, group, keys[i]);
          return NULL;
        }
      raw = g_key_file_get_value (kf, group, keys[i], NULL);
      if (!k->parse (g_strstrip (raw), (char *) m + k->offset, error))
        {
          locate (error, where, lines, group, keys[i]);
          return NULL;
        }
    }
  for (guint i = 0; i < table->n_keys; i++)
    if ((table->keys[i].flags & SIM_KEY_REQUIRED)
        && !g_key_file_has_key (kf, group, table->keys[i].name, NULL))
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING, "missing key %s: expected %s",
                     table->keys[i].name, table->keys[i].doc);
        locate (error, where, lines, group, NULL);
        return NULL;
      }
  if (m->name == NULL)
    {
      if (name == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "missing key name: expected the model's name");
          locate (error, where, lines, group, NULL);
          return NULL;
        }
      m->name = g_strdup (name);
    }
  if (!finish (m, kf, group, where, lines, error))
    return NULL;
  return g_steal_pointer (&m);
}

static int
compare_strings (gconstpointer a, gconstpointer b, gpointer unused)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Reads the model file PATH. */
static SimLlmModel *
load_file (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) local = NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(SimKeyLines) lines = NULL;
  g_autofree char *start = NULL;
  SimLlmModel *m;

  /* The bounded reader, as for the hardware catalogue (sim-read.h):
   * g_file_get_contents() read /dev/zero until memory ran out, and a NUL
   * byte ended the text there, so that the keys after it went missing. */
  text = sim__read_file (path, SIM_READ_TEXT, &len, error);
  if (text == NULL)
    {
      g_prefix_error (error, "model file ");
      return NULL;
    }
  lines = sim__key_lines_new (text, (gssize) len, path, error);
  if (lines == NULL)
    return NULL;
  if (!sim__key_file_load (kf, text, len, &local))
    {
      guint line = sim__key_file_bad_line (text, len);
      g_autofree char *at = line > 0 ? g_strdup_printf (":%u", line) : g_strdup ("");

      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "%s%s: not a valid key file: %s: expected [group] headers, `key = value` "
                   "lines and # comments", path, at, local->message);
      return NULL;
    }
  start = g_key_file_get_start_group (kf);
  if (start == NULL || strcmp (start, "llm") != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%s: expected the file to start with [llm]%s%s%s", path,
                   start ? " (it starts with [" : "", start ? start : "", start ? "])" : "");
      return NULL;
    }
  {
    g_auto(GStrv) groups = g_key_file_get_groups (kf, NULL);
    if (groups[1] != NULL)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY,
                     "%s:%u: [%s]: a model file has one group, [llm]", path,
                     sim__key_lines_find (lines, groups[1], NULL), groups[1]);
        return NULL;
      }
  }
  m = sim__llm_model_read (kf, "llm", path, lines, NULL, error);
  if (m != NULL)
    m->source_file = g_strdup (path);
  return m;
}

/* The catalogue's directories, then EXTRA_DIRS: each one's llm/ folder. */
static GPtrArray *
llm_dirs (const char * const *extra_dirs)
{
  g_auto(GStrv) base = sim_catalogue_default_path ();
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; base[i] != NULL; i++)
    g_ptr_array_add (dirs, g_build_filename (base[i], "llm", NULL));
  for (guint i = 0; extra_dirs != NULL && extra_dirs[i] != NULL; i++)
    g_ptr_array_add (dirs, g_build_filename (extra_dirs[i], "llm", NULL));
  return dirs;
}

/* Every model file on the path, name (lower case) -> path, the last found
 * winning.  The name is the file's `name` key. */
static GHashTable *
scan_models (const char * const *extra_dirs)
{
  g_autoptr(GPtrArray) dirs = llm_dirs (extra_dirs);
  GHashTable *found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; i < dirs->len; i++)
    {
      g_autoptr(GDir) d = g_dir_open (dirs->pdata[i], 0, NULL);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *entry;

      if (d == NULL)
        continue;
      while ((entry = g_dir_read_name (d)) != NULL)
        if (g_str_has_suffix (entry, ".ini") && entry[0] != '.')
          g_ptr_array_add (names, g_strdup (entry));
      g_ptr_array_sort_with_data (names, compare_strings, NULL);
      for (guint j = 0; j < names->len; j++)
        {
          g_autofree char *path = g_build_filename (dirs->pdata[i], names->pdata[j], NULL);
          g_autoptr(GKeyFile) kf = g_key_file_new ();
          g_autofree char *name = NULL;

          /* A file that cannot be read is reported when it is asked for
           * by its file name; listed under its file name here. */
          if (sim__key_file_load_path (kf, path, NULL))
            name = g_key_file_get_string (kf, "llm", "name", NULL);
          if (name == NULL)
            name = g_strndup (names->pdata[j], strlen (names->pdata[j]) - 4);
          g_hash_table_replace (found, g_ascii_strdown (g_strstrip (name), -1),
                                g_steal_pointer (&path));
        }
    }
  return found;
}

SimLlmModel *
sim_llm_model_load (const char *name, const char * const *extra_dirs, GError **error)
{
  g_autoptr(GHashTable) found = NULL;
  g_autofree char *key = NULL;
  const char *path;

  g_return_val_if_fail (name != NULL, NULL);

  if (g_str_has_suffix (name, ".ini") || strchr (name, '/') != NULL)
    return load_file (name, error);
  found = scan_models (extra_dirs);
  key = g_ascii_strdown (name, -1);
  path = g_hash_table_lookup (found, key);
  if (path == NULL)
    {
      g_autoptr(GPtrArray) dirs = llm_dirs (extra_dirs);
      g_autofree const char **names = (const char **) g_hash_table_get_keys_as_array (found, NULL);
      const char *guess = sim__closest (key, names, g_hash_table_size (found));
      g_autofree char *searched = NULL;

      g_ptr_array_add (dirs, NULL);
      searched = g_strjoinv (", ", (char **) dirs->pdata);
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                   "no model \"%s\" in the catalogue%s (searched %s; `gpusim llm --list` "
                   "lists them)", name, sim__did_you_mean (guess), searched);
      return NULL;
    }
  return load_file (path, error);
}

char **
sim_llm_model_list (const char * const *extra_dirs)
{
  g_autoptr(GHashTable) found = scan_models (extra_dirs);
  g_autofree char **names = (char **) g_hash_table_get_keys_as_array (found, NULL);
  guint n = g_hash_table_size (found);
  char **out = g_new0 (char *, n + 1);

  for (guint i = 0; i < n; i++)
    out[i] = g_strdup (names[i]);
  g_qsort_with_data (out, (gint) n, sizeof (char *), compare_strings, NULL);
  return out;
}
