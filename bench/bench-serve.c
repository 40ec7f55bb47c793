/* bench-serve: how long a million requests take to simulate.
 *
 * A Llama 3 8B deployment on a DGX H100 answers a million chat requests
 * (Poisson arrivals at 60/s, lognormal prompts of 256 tokens on average,
 * exponential outputs of 64), twice: on 8 replicas that prefill and decode,
 * and disaggregated, on 4 prefill replicas and 4 decode replicas with
 * every request's KV cache sent between them.  The wall-clock time of
 * sim_serve_json(), which generates the requests, runs them and
 * summarizes them, is printed with the iterations it took. */
#include "config.h"

#include <sim.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-args.h"

#define USAGE \
  "usage: bench-serve\n" \
  "  how long a million Llama 3 8B chat requests take to simulate, on 8 replicas\n" \
  "  and disaggregated on 4 prefill and 4 decode replicas\n"

#define SCENARIO \
  "[scenario]\nname = bench-serve\nseed = 7\n\n" \
  "[pool h100]\nmodel = DGX-H100\ncount = 1\n\n" \
  "[workload]\nsource = synthetic\nrate = 1/h\ngpus = 8\njobs = 1\nduration = constant(1h)\n\n" \
  "[requests chat]\nrate = 60/s\ncount = 1000000\ninput_tokens = 256\n" \
  "input_distribution = lognormal\ninput_cv = 1\ninput_max = 4096\n" \
  "output_tokens = 64\noutput_distribution = exponential\noutput_max = 1024\n\n"

/* Simulates the deployment of TEXT and prints how long it took. */
static gboolean
run_case (const char *dir, const char *what, const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, "bench-serve.ini", NULL);
  g_autofree char *json = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o;
  gint64 t0, t1;

  if (!g_file_set_contents (path, text, -1, &error))
    {
      fprintf (stderr, "bench-serve: %s\n", error->message);
      return FALSE;
    }
  t0 = g_get_monotonic_time ();
  json = sim_serve_json (path, NULL, NULL, &error);
  t1 = g_get_monotonic_time ();
  g_unlink (path);
  if (json == NULL || !json_parser_load_from_data (parser, json, -1, &error))
    {
      fprintf (stderr, "bench-serve: %s\n", error->message);
      return FALSE;
    }
  o = json_node_get_object (json_parser_get_root (parser));
  printf ("bench-serve: %s: %" G_GINT64_FORMAT " requests (%.0f simulated s, %.0f "
          "iterations) in %.2f s of wall-clock time: %.0f requests/s\n", what,
          json_object_get_int_member (o, "requests"),
          json_object_get_double_member (o, "makespan"),
          json_object_get_double_member (o, "iterations"), (t1 - t0) / 1e6,
          json_object_get_int_member (o, "requests") / ((t1 - t0) / 1e6));
  return TRUE;
}

int
main (int argc, char **argv)
{
  bench_args (argc, argv, USAGE, NULL, 0);

  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bench-serve-XXXXXX", &error);
  gboolean ok;

  if (dir == NULL)
    {
      fprintf (stderr, "bench-serve: %s\n", error->message);
      return 1;
    }
  ok = run_case (dir, "8 replicas", SCENARIO
                 "[serving chat]\nmodel = llama3-8b\nrequests = chat\ntp = 1\nreplicas = 8\n"
                 "max_batch = 128\nchunked_prefill = true\n")
       && run_case (dir, "4 prefill and 4 decode replicas", SCENARIO
                    "[serving chat]\nmodel = llama3-8b\nrequests = chat\ntp = 1\n"
                    "max_batch = 128\nchunked_prefill = true\ndisaggregated = true\n"
                    "prefill_replicas = 4\ndecode_replicas = 4\n");
  g_rmdir (dir);
  return ok ? 0 : 1;
}
