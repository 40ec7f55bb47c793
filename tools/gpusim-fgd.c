/* gpusim-fgd.c: `gpusim fgd`, the fragmentation experiment of the FGD study
 * on an openb node list and pod list.
 *
 *   gpusim fgd [--nodes FILE] [--pods FILE] [--policy NAME]... [--seeds 10]
 *              [--seed 1] [--stop 130%] [--step 1%] [--variant paper|gpusim]
 *              [--csv FILE] [--json]
 *
 * On a published pod list (openb_pod_list_default.csv or
 * openb_pod_list_gpushare100.csv) the paper variant also prints each
 * policy's allocation rate beside the paper's.
 */
#include "config.h"

#include <sim.h>
#include "gpusim-cli.h"
#include "core/sim-util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODE_LIST "openb_node_list_gpu_node.csv"
#define POD_LIST  "openb_pod_list_default.csv"

/* "130%" or "1.3" as a share; FALSE if neither. */
static gboolean
parse_share (const char *text, double *out)
{
  g_autofree char *s = g_strstrip (g_strdup (text));
  gsize len = strlen (s);
  gboolean percent = len > 0 && s[len - 1] == '%';
  char *end = NULL;
  double v;

  if (percent)
    s[--len] = '\0';
  if (len == 0)
    return FALSE;
  errno = 0;
  v = g_ascii_strtod (s, &end);
  if (errno != 0 || end == s || *end != '\0' || !isfinite (v))
    return FALSE;
  *out = percent ? v / 100 : v;
  return TRUE;
}

/* The openb file @name in openb/ under the traces' folder (where `gpusim
 * trace fetch` puts it: gpusim_default_trace_dir()), or in that folder. */
static char *
default_trace_file (const char *name)
{
  g_autofree char *dir = gpusim_default_trace_dir ();
  g_autofree char *in_openb = NULL;
  g_autofree char *direct = NULL;

  in_openb = g_build_filename (dir, "openb", name, NULL);
  if (g_file_test (in_openb, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&in_openb);
  direct = g_build_filename (dir, name, NULL);
  if (g_file_test (direct, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&direct);
  return NULL;
}

typedef struct {
  gint64   started;
  gint64   last_draw;
  gboolean drawn;
} Progress;

static void
draw_progress (guint done, guint total, gpointer data)
{
  Progress *p = data;
  gint64 t = g_get_monotonic_time ();
  int width = 30, filled = (int) ((double) done / total * width + 0.5);
  char bar[31];

  if (done < total && t - p->last_draw < 100000)
    return;
  p->last_draw = t;
  p->drawn = TRUE;
  memset (bar, '#', (size_t) filled);
  memset (bar + filled, '.', (size_t) (width - filled));
  bar[width] = '\0';
  fprintf (stderr, "\r[%s] %u/%u runs  %.1f s ", bar, done, total, (t - p->started) / 1e6);
  fflush (stderr);
}

int
gpusim_cmd_fgd (int argc, char **argv)
{
  g_autofree char *nodes_path = NULL;
  g_autofree char *pods_path = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *stop_text = NULL;
  g_autofree char *step_text = NULL;
  g_autofree char *variant_text = NULL;
  g_auto(GStrv) policy_args = NULL;
  gint seeds = 10, threads = 0, curve = 0;
  gint64 first_seed = 1;
  gboolean json = FALSE, quiet = FALSE, ignore_spec = FALSE, list_ties = FALSE;
  GOptionEntry entries[] = {
    { "nodes", 0, 0, G_OPTION_ARG_FILENAME, &nodes_path,
      "openb node list (default: openb/" NODE_LIST " where gpusim trace fetch puts it)",
      "FILE" },
    { "pods", 0, 0, G_OPTION_ARG_FILENAME, &pods_path,
      "openb pod list (default: openb/" POD_LIST " where gpusim trace fetch puts it)",
      "FILE" },
    { "policy", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &policy_args,
      "A placement to compare; repeat, or separate with commas (default: the paper's six: "
      "random, dot-product, clustering, packing, best-fit, fgd)", "NAME" },
    { "seeds", 'n', 0, G_OPTION_ARG_INT, &seeds, "Seeds per policy (default 10)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &first_seed, "First seed (default 1)", "SEED" },
    { "stop", 0, 0, G_OPTION_ARG_STRING, &stop_text,
      "Stop when arrived GPU demand reaches this share of capacity (default 130%)", "SHARE" },
    { "step", 0, 0, G_OPTION_ARG_STRING, &step_text,
      "Sample every SHARE of capacity of arrived demand (default 1%)", "SHARE" },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv,
      "Write every sample of every run to FILE (policy, seed, arrived_share, "
      "allocated_share, fragmented_share)", "FILE" },
    { "curve", 0, 0, G_OPTION_ARG_INT, &curve,
      "Also print the allocation rate every K sample points", "K" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the results as JSON", NULL },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads,
      "Runs in parallel (default: one per processor); results do not depend on it", "N" },
    { "variant", 0, 0, G_OPTION_ARG_STRING, &variant_text,
      "paper (default): as the study's own simulator runs it (every pod, CPU-only ones "
      "included; nodes in list order; its integer scores and tie-breaking); "
      "gpusim: GPU pods only, nodes pooled by model, any registered placement", "NAME" },
    { "ties-in-list-order", 0, 0, G_OPTION_ARG_NONE, &list_ties,
      "paper variant: break ties between nodes by their plain names (list order) rather "
      "than, as the study's simulator does, by names prefixed with a random number at "
      "each seed", NULL },
    { "ignore-gpu-spec", 0, 0, G_OPTION_ARG_NONE, &ignore_spec,
      "Let tasks run on any GPU model whatever their gpu_spec", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress bar", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("- the fragmentation experiment of the FGD study (ATC'23)");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) policies = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GPtrArray) pods = NULL;
  g_autoptr(SimFgdResult) result = NULL;
  SimFgdConfig config = { 0 };
  Progress progress = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Submits tasks drawn at random (seeded) from an openb pod list to the nodes of\n"
    "an openb node list, none ever leaving, until the GPU demand that has arrived\n"
    "reaches a share of capacity; compares placement policies by their allocation\n"
    "rate (allocated GPUs / GPU capacity) and fragmentation, with 95% confidence\n"
    "intervals over seeds. Every policy sees the same tasks at a seed. The paper\n"
    "variant runs it as the study's own simulator does, and on a published pod list\n"
    "prints the paper's figures beside ours.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gpusim_usage_error (context, "%s", error->message);
  if (argc != 1)
    return gpusim_usage_error (context, "fgd takes no arguments besides its options");
  if (seeds < 1)
    return gpusim_usage_error (context, "--seeds must be at least 1");
  if (first_seed < 0)
    return gpusim_usage_error (context, "--seed must not be negative");
  if (threads < 0)
    return gpusim_usage_error (context, "--threads must not be negative");
  if (curve < 0)
    return gpusim_usage_error (context, "--curve must not be negative");

  config.stop_share = 1.30;
  config.sample_step = 0.01;
  if (stop_text != NULL && !parse_share (stop_text, &config.stop_share))
    return gpusim_usage_error (context, "%s", "--stop expects a share such as 130% or 1.3");
  if (step_text != NULL && !parse_share (step_text, &config.sample_step))
    return gpusim_usage_error (context, "%s", "--step expects a share such as 1% or 0.01");

  if (variant_text != NULL && !sim_fgd_variant_from_string (variant_text, &config.variant, &error))
    return gpusim_usage_error (context, "%s", error->message);

  for (guint i = 0; policy_args != NULL && policy_args[i] != NULL; i++)
    {
      g_auto(GStrv) parts = g_strsplit (policy_args[i], ",", -1);
      for (guint j = 0; parts[j] != NULL; j++)
        {
          char *name = g_strstrip (parts[j]);
          if (*name != '\0')
            g_ptr_array_add (policies, g_strdup (name));
        }
    }
  if (policies->len == 0)
    for (guint i = 0; sim_fgd_paper_policies[i] != NULL; i++)
      g_ptr_array_add (policies, g_strdup (sim_fgd_paper_policies[i]));

  if (nodes_path == NULL)
    nodes_path = default_trace_file (NODE_LIST);
  if (pods_path == NULL)
    pods_path = default_trace_file (POD_LIST);
  if (nodes_path == NULL || pods_path == NULL)
    {
      g_autofree char *dir = gpusim_default_trace_dir ();
      fprintf (stderr, "gpusim: no openb %s in %s/openb: fetch the lists (gpusim trace fetch "
               "openb-nodes openb-pods), give --nodes FILE and --pods FILE, or set "
               "GPUSIM_TRACE_DIR to the directory that holds openb/%s and openb/%s\n",
               nodes_path == NULL ? "node list" : "pod list", dir, NODE_LIST, POD_LIST);
      return 1;
    }

  if (!sim__check_output ("--csv", csv, nodes_path, "the node list being read", &error) ||
      !sim__check_output ("--csv", csv, pods_path, "the pod list being read", &error))
    goto failed;
  nodes = sim_openb_read_nodes (nodes_path, &error);
  if (nodes == NULL)
    goto failed;
  pods = sim_openb_read_pods (pods_path, &error);
  if (pods == NULL)
    goto failed;

  config.policies = (const char * const *) policies->pdata;
  config.n_policies = policies->len;
  config.n_seeds = (guint) seeds;
  config.first_seed = (guint64) first_seed;
  config.n_threads = (guint) threads;
  config.ignore_gpu_spec = ignore_spec;
  config.ties_in_list_order = list_ties;
  if (list_ties && config.variant != SIM_FGD_VARIANT_PAPER)
    return gpusim_usage_error (context, "--ties-in-list-order applies to the paper variant only");
  if (!quiet && isatty (STDERR_FILENO))
    {
      progress.started = g_get_monotonic_time ();
      config.progress = draw_progress;
      config.progress_data = &progress;
    }
  result = sim_fgd_experiment_run (nodes, pods, &config, &error);
  if (progress.drawn)
    fputs ("\r\033[K", stderr);
  if (result == NULL)
    goto failed;
  if (csv != NULL && !sim_fgd_result_write_csv (result, csv, &error))
    goto failed;

  if (json)
    {
      g_autofree char *text = sim_fgd_result_to_json (result, TRUE);
      printf ("%s\n", text);
    }
  else
    {
      g_autofree char *table = sim_fgd_result_format_table (result);
      g_autofree char *against = NULL;
      fputs (table, stdout);
      if (config.variant == SIM_FGD_VARIANT_PAPER)
        against = sim_fgd_result_format_against_paper (result,
                                                       sim_fgd_reference_list_of (pods_path));
      if (against != NULL)
        {
          g_autofree char *nodes_base = g_path_get_basename (nodes_path);
          printf ("\n%s", against);
          /* The paper's runs used the GPU nodes only. */
          if (strcmp (nodes_base, "openb_node_list_gpu_node.csv") != 0 &&
              strcmp (nodes_base, "openb_node_list_gpu_node.csv.gz") != 0)
            printf ("note: the paper ran the cluster of openb_node_list_gpu_node.csv; this node "
                    "list (%s) is another cluster, so its figures may differ from the paper's\n",
                    nodes_base);
        }
      if (curve > 0)
        {
          g_autofree char *text = sim_fgd_result_format_curve (result, (guint) curve);
          printf ("\n%s", text);
        }
      if (csv != NULL)
        printf ("\nsamples written to %s\n", csv);
    }
  return fflush (stdout) == 0 ? 0 : 1;

failed:
  gpusim_print_error (error);
  return 1;
}
