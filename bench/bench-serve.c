/* bench-serve: how long a million requests take to simulate.
 *
 * A Llama 3 8B deployment of 8 replicas on a DGX H100 answers a million
 * chat requests (Poisson arrivals at 60/s, lognormal prompts of 256 tokens
 * on average, exponential outputs of 64); the wall-clock time of
 * sim_serve_json(), which generates the requests, runs them and
 * summarizes them, is printed with the events it took. */
#include "config.h"

#include <sim.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>

int
main (void)
{
  const char *text =
    "[scenario]\nname = bench-serve\nseed = 7\n\n"
    "[pool h100]\nmodel = DGX-H100\ncount = 1\n\n"
    "[workload]\nsource = synthetic\nrate = 1/h\ngpus = 8\njobs = 1\nduration = constant(1h)\n\n"
    "[serving chat]\nmodel = llama3-8b\nrequests = chat\ntp = 1\nreplicas = 8\n"
    "max_batch = 128\nchunked_prefill = true\n\n"
    "[requests chat]\nrate = 60/s\ncount = 1000000\ninput_tokens = 256\n"
    "input_distribution = lognormal\ninput_cv = 1\ninput_max = 4096\n"
    "output_tokens = 64\noutput_distribution = exponential\noutput_max = 1024\n";
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bench-serve-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autofree char *json = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o;
  gint64 t0, t1;

  if (dir == NULL)
    {
      fprintf (stderr, "bench-serve: %s\n", error->message);
      return 1;
    }
  path = g_build_filename (dir, "bench-serve.ini", NULL);
  if (!g_file_set_contents (path, text, -1, &error))
    {
      fprintf (stderr, "bench-serve: %s\n", error->message);
      return 1;
    }
  t0 = g_get_monotonic_time ();
  json = sim_serve_json (path, NULL, NULL, &error);
  t1 = g_get_monotonic_time ();
  g_unlink (path);
  g_rmdir (dir);
  if (json == NULL || !json_parser_load_from_data (parser, json, -1, &error))
    {
      fprintf (stderr, "bench-serve: %s\n", error->message);
      return 1;
    }
  o = json_node_get_object (json_parser_get_root (parser));
  printf ("bench-serve: %" G_GINT64_FORMAT " requests (%.0f simulated s, %.0f iterations) "
          "in %.2f s of wall-clock time: %.0f requests/s\n",
          json_object_get_int_member (o, "requests"),
          json_object_get_double_member (o, "makespan"),
          json_object_get_double_member (o, "iterations"), (t1 - t0) / 1e6,
          json_object_get_int_member (o, "requests") / ((t1 - t0) / 1e6));
  return 0;
}
