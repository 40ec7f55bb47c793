/* fuzz-catalogue.c: the harness of the catalogue's model files.
 *
 * An input is one model file ([gpu], [node], [link] or [switch]).  It is
 * loaded alone into an empty catalogue with sim_catalogue_add_file(), every
 * model it defines is described (as `gpusim models show` does) and the
 * catalogue resolved.  When it defines a model, it is loaded a second time
 * on top of the catalogue of the source tree, which is then resolved; a
 * node model that resolves, or a GPU model put in a DGX H100 in its place,
 * becomes a pool of two nodes of a cluster.  Only the absence of crashes,
 * sanitizer reports, GLib criticals and leaks is checked, and that a
 * failure comes with an error.
 */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <sim.h>

static void
check_failure (gboolean ok, GError **error, const char *what)
{
  if (!ok && *error == NULL)
    {
      fprintf (stderr, "fuzz: %s failed without an error\n", what);
      abort ();
    }
  if (!ok)
    fuzz_note_refusal ();
  g_clear_error (error);
}

/* Describes every model of @models (each struct begins with its name). */
static void
describe_all (const SimCatalogue *cat, GPtrArray *models)
{
  for (guint i = 0; i < models->len; i++)
    {
      const char *name = *(const char * const *) g_ptr_array_index (models, i);
      GError *error = NULL;
      char *text = sim_catalogue_describe (cat, name, &error);

      check_failure (text != NULL, &error, "sim_catalogue_describe");
      g_free (text);
    }
  g_ptr_array_unref (models);
}

static void
build_pool (const SimNodeModel *node, const SimGpuModel *gpu)
{
  GError *error = NULL;
  SimCluster *cluster = sim_cluster_new ();
  gboolean ok = sim_cluster_add_pool (cluster, "fuzz", node, gpu, 0, 2, &error);

  check_failure (ok, &error, "sim_cluster_add_pool");
  sim_cluster_free (cluster);
}

int
fuzz_catalogue (const uint8_t *data, size_t size)
{
  const char *path;
  GError *error = NULL;
  SimCatalogue *alone, *full;
  gboolean ok;
  GPtrArray *gpus, *nodes;
  g_autofree char *gpu_name = NULL, *node_name = NULL;

  fuzz_init ();
  path = fuzz_write_file (data, size);

  alone = sim_catalogue_new ();
  ok = sim_catalogue_add_file (alone, path, &error);
  check_failure (ok, &error, "sim_catalogue_add_file");
  if (!ok)
    {
      sim_catalogue_free (alone);
      return 0;
    }
  gpus = sim_catalogue_get_gpus (alone);
  nodes = sim_catalogue_get_nodes (alone);
  if (gpus->len > 0)
    gpu_name = g_strdup (((const SimGpuModel *) g_ptr_array_index (gpus, 0))->name);
  if (nodes->len > 0)
    node_name = g_strdup (((const SimNodeModel *) g_ptr_array_index (nodes, 0))->name);
  describe_all (alone, gpus);
  describe_all (alone, nodes);
  describe_all (alone, sim_catalogue_get_links (alone));
  describe_all (alone, sim_catalogue_get_switches (alone));
  ok = sim_catalogue_resolve (alone, &error);
  check_failure (ok, &error, "sim_catalogue_resolve");
  sim_catalogue_free (alone);

  /* On top of the real catalogue. */
  full = sim_catalogue_new ();
  ok = sim_catalogue_add_directory (full, SIM_FUZZ_MODELDIR, &error);
  if (!ok)
    {
      fprintf (stderr, "fuzz: cannot load %s: %s\n", SIM_FUZZ_MODELDIR, error->message);
      abort ();
    }
  ok = sim_catalogue_add_file (full, path, &error);
  check_failure (ok, &error, "sim_catalogue_add_file (again)");
  if (ok)
    {
      ok = sim_catalogue_resolve (full, &error);
      check_failure (ok, &error, "sim_catalogue_resolve");
      if (ok && node_name != NULL)
        build_pool (sim_catalogue_lookup_node (full, node_name), NULL);
      if (ok && gpu_name != NULL)
        build_pool (sim_catalogue_lookup_node (full, "DGX-H100"),
                    sim_catalogue_lookup_gpu (full, gpu_name));
    }
  sim_catalogue_free (full);
  return 0;
}
