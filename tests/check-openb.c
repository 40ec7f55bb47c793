/* check-openb.c: the openb trace readers and the FGD fragmentation
 * experiment.
 *
 * What it checks:
 *  - the node and pod list readers on excerpts of the real files (exact
 *    values of the first rows, counts, empty fields) and on malformed
 *    files, which must be refused with the file, line and column;
 *  - the streaming workload over a pod list (times, sizes, skipped pods);
 *  - the experiment on tiny clusters worked out by hand below: fractional
 *    GPUs, CPU limits and GPU model constraints;
 *  - invariants on the excerpts: the allocation rate never exceeds the
 *    demand that has arrived nor 1, never decreases (nothing leaves); the
 *    same seed gives identical results whatever the number of threads;
 *    every policy sees the same task sequence at a seed;
 *  - when the full openb lists are present, first-fit and best-fit reach a
 *    plausible allocation rate (80% to 100% at 130% arrived demand).
 * What it does not check: that the figures match the paper's (they depend
 * on the paper's own placement code), nor the speed of anything.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "core/sim-error.h"
#include "workload/sim-openb.h"
#include "sched/sim-fgd-experiment.h"
#include "sched/sim-fgd-paper.h"
#include "cluster/sim-cluster.h"

#define NODES_EXCERPT SIM_TEST_DATADIR "/openb-nodes.csv"
#define PODS_EXCERPT  SIM_TEST_DATADIR "/openb-pods.csv"
#define PODS_5COL     SIM_TEST_DATADIR "/openb-pods-5col.csv"
#define FULL_NODES    SIM_TRACEDIR "/openb/openb_node_list_gpu_node.csv"
#define FULL_PODS     SIM_TRACEDIR "/openb/openb_pod_list_default.csv"
#define FULL_SHARE    SIM_TRACEDIR "/openb/openb_pod_list_gpushare100.csv"

#define POD_HEADER \
  "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time," \
  "deletion_time,scheduled_time\n"
#define NODE_HEADER "sn,cpu_milli,memory_mib,gpu,model\n"

static char *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("check-openb-XXXXXX", NULL);
  ck_assert_ptr_nonnull (tmpdir);
}

static void
teardown (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

/* Writes @text to @name in the temporary directory; returns the path. */
static char *
write_temp (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* ------------------------------------------------------------------------- */
/* Readers.                                                                  */

START_TEST (test_read_nodes_excerpt)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes (NODES_EXCERPT, &error);
  const SimOpenbNode *n;
  guint cpu_only = 0, gpus = 0;

  ck_assert_msg (nodes != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (nodes->len, 39);
  /* openb-node-0000,32000,262144,0, */
  n = nodes->pdata[0];
  ck_assert_str_eq (n->sn, "openb-node-0000");
  ck_assert_uint_eq (n->cpu_milli, 32000);
  ck_assert_uint_eq (n->memory_mib, 262144);
  ck_assert_uint_eq (n->gpus, 0);
  ck_assert_str_eq (n->model, "");
  /* openb-node-0240,96000,393216,8,G2 */
  n = nodes->pdata[6];
  ck_assert_str_eq (n->sn, "openb-node-0240");
  ck_assert_uint_eq (n->cpu_milli, 96000);
  ck_assert_uint_eq (n->memory_mib, 393216);
  ck_assert_uint_eq (n->gpus, 8);
  ck_assert_str_eq (n->model, "G2");
  /* openb-node-0400,32000,131072,4,V100M16 */
  n = nodes->pdata[10];
  ck_assert_str_eq (n->sn, "openb-node-0400");
  ck_assert_uint_eq (n->gpus, 4);
  ck_assert_str_eq (n->model, "V100M16");
  for (guint i = 0; i < nodes->len; i++)
    {
      n = nodes->pdata[i];
      cpu_only += n->gpus == 0;
      gpus += n->gpus;
    }
  ck_assert_uint_eq (cpu_only, 8);
  /* 14 x 8 G2, 1 x 8 G3, 4 x 2 P100, 10 x 2 T4, 1 x 4 + 1 x 8 V100M16. */
  ck_assert_uint_eq (gpus, 14 * 8 + 1 * 8 + 4 * 2 + 10 * 2 + 4 + 8);
}
END_TEST

START_TEST (test_read_pods_excerpt)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) pods = sim_openb_read_pods (PODS_EXCERPT, &error);
  const SimOpenbPod *p;
  guint no_gpu = 0, fractional = 0;

  ck_assert_msg (pods != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (pods->len, 64);
  /* openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0 */
  p = pods->pdata[0];
  ck_assert_str_eq (p->name, "openb-pod-0000");
  ck_assert_uint_eq (p->cpu_milli, 12000);
  ck_assert_uint_eq (p->memory_mib, 16384);
  ck_assert_uint_eq (p->num_gpu, 1);
  ck_assert_uint_eq (p->gpu_milli, 1000);
  ck_assert_ptr_nonnull (p->gpu_spec);
  ck_assert_ptr_null (p->gpu_spec[0]);
  ck_assert_str_eq (p->qos, "LS");
  ck_assert_str_eq (p->pod_phase, "Running");
  ck_assert_int_eq (p->creation_time, 0);
  ck_assert_int_eq (p->deletion_time, 12537496);
  ck_assert_int_eq (p->scheduled_time, 0);
  /* openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061 */
  p = pods->pdata[1];
  ck_assert_uint_eq (p->cpu_milli, 6000);
  ck_assert_uint_eq (p->memory_mib, 12288);
  ck_assert_uint_eq (p->gpu_milli, 460);
  ck_assert_int_eq (p->creation_time, 427061);
  ck_assert_int_eq (p->deletion_time, 12902960);
  /* openb-pod-0061,11908,47104,1,1000,,BE,Pending,10001278,10001403, */
  p = pods->pdata[61];
  ck_assert_str_eq (p->name, "openb-pod-0061");
  ck_assert_str_eq (p->qos, "BE");
  ck_assert_str_eq (p->pod_phase, "Pending");
  ck_assert_int_eq (p->deletion_time, 10001403);
  ck_assert_int_eq (p->scheduled_time, -1);
  for (guint i = 0; i < pods->len; i++)
    {
      p = pods->pdata[i];
      no_gpu += p->num_gpu == 0;
      fractional += p->num_gpu == 1 && p->gpu_milli < 1000;
      ck_assert (p->num_gpu == 0 || p->gpu_milli > 0);
    }
  ck_assert_uint_eq (no_gpu, 6);
  ck_assert_uint_eq (fractional, 20);
}
END_TEST

START_TEST (test_gpu_spec_and_models)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_temp ("spec.csv", POD_HEADER
                                      "a,1000,1024,1,1000,V100M16|T4,LS,Running,5,9,5\n"
                                      "\n"
                                      "b,1000,1024,0,0,,BE,Failed,6,,\r\n");
  g_autoptr(GPtrArray) pods = sim_openb_read_pods (path, &error);
  const SimOpenbPod *p;

  ck_assert_msg (pods != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (pods->len, 2);
  p = pods->pdata[0];
  ck_assert_uint_eq (g_strv_length (p->gpu_spec), 2);
  ck_assert_str_eq (p->gpu_spec[0], "V100M16");
  ck_assert_str_eq (p->gpu_spec[1], "T4");
  p = pods->pdata[1];
  ck_assert_int_eq (p->deletion_time, -1);
  ck_assert_int_eq (p->scheduled_time, -1);

  ck_assert_str_eq (sim_openb_gpu_model_to_catalogue ("P100"), "P100");
  ck_assert_str_eq (sim_openb_gpu_model_to_catalogue ("T4"), "T4");
  ck_assert_str_eq (sim_openb_gpu_model_to_catalogue ("V100M16"), "V100-16GB");
  ck_assert_str_eq (sim_openb_gpu_model_to_catalogue ("V100M32"), "V100-32GB");
  ck_assert_str_eq (sim_openb_gpu_model_to_catalogue ("A10"), "A10");
  ck_assert_str_eq (sim_openb_gpu_model_to_catalogue ("G2"), "G2");
  ck_assert_str_eq (sim_openb_gpu_model_to_catalogue ("G3"), "G3");
}
END_TEST

/* Malformed files and the message each must give (a substring, after the
 * file name). */
static const struct {
  gboolean pods;
  const char *text;
  const char *expected;
} bad_files[] = {
  { TRUE, "", ": the file is empty: expected a header line" },
  { TRUE, "name,cpu_milli\n", ":1: the header has no columns memory_mib, num_gpu, gpu_milli" },
  { TRUE, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
          "deletion_time,scheduled_time,owner\n",
    ":1: column 12 of the header, \"owner\", is not a known column" },
  { TRUE, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,qos,pod_phase,"
          "creation_time,deletion_time,scheduled_time\n",
    ":1: column qos appears twice in the header (columns 7 and 8)" },
  { TRUE, POD_HEADER "a,1000,1024,1,1000,,LS,Running,0,10,0\nb,1000,1024,1,1000,,LS,Running,0,10\n",
    ":3: expected 11 fields as in the header, found 10" },
  { TRUE, POD_HEADER "a,1000,1024,1,1000,,LS,Running,0,10,0,9\n",
    ":2: expected 11 fields as in the header, found 12" },
  { TRUE, POD_HEADER "p0,12a,1024,1,1000,,LS,Running,0,10,0\n",
    ":2:4: cpu_milli: \"12a\" is not a non-negative integer" },
  { TRUE, POD_HEADER "p0,1000,-5,1,1000,,LS,Running,0,10,0\n",
    ":2:9: memory_mib: \"-5\" is not a non-negative integer" },
  { TRUE, POD_HEADER "p0,1000,1024,1,1001,,LS,Running,0,10,0\n",
    ":2:16: gpu_milli: 1001 is out of range: expected 0 to 1000" },
  { TRUE, POD_HEADER "p0,1000,1024,2,500,,LS,Running,0,10,0\n",
    ":2:16: gpu_milli: 500 thousandths of a GPU for a pod with num_gpu 2" },
  { TRUE, POD_HEADER "p0,1000,1024,0,500,,LS,Running,0,10,0\n",
    ":2:16: gpu_milli: 500 thousandths of a GPU for a pod with num_gpu 0" },
  { TRUE, POD_HEADER "p0,1000,1024,1,0,,LS,Running,0,10,0\n",
    ":2:16: gpu_milli: 0 thousandths of a GPU for a pod with num_gpu 1" },
  { TRUE, POD_HEADER "p0,1000,1024,1,1000,,LS,Running,,10,0\n",
    ":2:33: creation_time: the field is empty: expected an integer" },
  { TRUE, POD_HEADER "p0,1000,1024,1,1000,T4||A10,LS,Running,0,10,0\n",
    ":2:21: gpu_spec: \"T4||A10\" has an empty model name" },
  { TRUE, POD_HEADER "p0,1000,1024,1,1000,,LS,Running,0,1.5,0\n",
    ":2:35: deletion_time: \"1.5\" is not a non-negative integer" },
  { TRUE, POD_HEADER ",1000,1024,1,1000,,LS,Running,0,10,0\n",
    ":2:1: name: the field is empty" },
  { TRUE, POD_HEADER "p0,1000,1024,99999999999,1000,,LS,Running,0,10,0\n",
    ":2:14: num_gpu: \"99999999999\" is out of range" },
  { TRUE, "name,cpu_milli,memory_mib,num_gpu\n", ":1: the header has no column gpu_milli" },
  { TRUE, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,1,1000\np1,1000,1024,1\n",
    ":3: expected 5 fields as in the header, found 4" },
  { TRUE, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,2,300\n",
    ":2:16: gpu_milli: 300 thousandths of a GPU for a pod with num_gpu 2" },
  { TRUE, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,x,1,1000\n",
    ":2:9: memory_mib: \"x\" is not a non-negative integer" },
  { FALSE, "sn,cpu_milli,memory_mib,gpus,model\n",
    ":1: column 4 of the header, \"gpus\", is not a known column" },
  { FALSE, NODE_HEADER "n0,64000,262144,2,\n",
    ":2:19: model: the node has 2 GPUs but no GPU model" },
  { FALSE, NODE_HEADER "n0,64000,262144,2,T4\nn1,64000,262144,x,T4\n",
    ":3:17: gpu: \"x\" is not a non-negative integer" },
  { FALSE, NODE_HEADER "n0,64000\0,262144,2,T4\n",
    ":2: the line contains a NUL byte" },
  /* A node or pod named twice (a list joined to itself) counted its GPUs
   * twice, or drew the pod twice as often; a list of a header alone was
   * refused later without the file's name. */
  { FALSE, NODE_HEADER "n0,64000,262144,2,T4\nn1,64000,262144,2,T4\nn0,64000,262144,2,T4\n",
    ":4:1: sn: \"n0\" is listed twice (first on line 2)" },
  { TRUE, POD_HEADER "a,1000,1024,1,1000,,LS,Running,0,10,0\na,1000,1024,1,1000,,LS,Running,5,10,5\n",
    ":3:1: name: \"a\" is listed twice (first on line 2)" },
  { FALSE, NODE_HEADER, ": no node after the header" },
  { TRUE, POD_HEADER, ": no pod after the header" },
};

START_TEST (test_malformed)
{
  guint i = (guint) _i;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "bad.csv", NULL);
  g_autofree char *expected = NULL;
  gsize len = strlen (bad_files[i].text);
  GPtrArray *list;

  /* The NUL case: write the text up to its end marker. */
  if (strstr (bad_files[i].expected, "NUL") != NULL)
    len = sizeof (NODE_HEADER "n0,64000\0,262144,2,T4\n") - 1;
  ck_assert (g_file_set_contents (path, bad_files[i].text, (gssize) len, NULL));
  list = bad_files[i].pods ? sim_openb_read_pods (path, &error)
                           : sim_openb_read_nodes (path, &error);
  ck_assert_msg (list == NULL, "case %u accepted", i);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  expected = g_strconcat ("bad.csv", bad_files[i].expected, NULL);
  ck_assert_msg (strstr (error->message, expected) != NULL, "case %u: \"%s\" lacks \"%s\"", i,
                 error->message, expected);
}
END_TEST

START_TEST (test_missing_file)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes ("/nonexistent/nodes.csv", &error);

  ck_assert_ptr_null (nodes);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
  ck_assert (strstr (error->message, "/nonexistent/nodes.csv") != NULL);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The streaming workload.                                                   */

START_TEST (test_workload_excerpt)
{
  SimOpenbConfig config = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimWorkload) w = sim_workload_new_openb (PODS_EXCERPT, &config, &error);
  SimJobSpec job;
  guint n = 0;
  guint64 no_gpu, invalid;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  /* Line 2: openb-pod-0000, created at 0, deleted at 12537496. */
  ck_assert (sim_workload_next (w, &job, &error));
  ck_assert_uint_eq (job.id, 2);
  ck_assert_int_eq (job.submit, 0);
  ck_assert_int_eq (job.duration, (SimTime) 12537496 * SIM_SECOND);
  ck_assert_uint_eq (job.gpus, 1);
  ck_assert_uint_eq (job.gpu_milli, 1000);
  ck_assert_uint_eq (job.cpu_milli, 12000);
  ck_assert_uint_eq (job.memory_bytes, (guint64) 16384 * 1024 * 1024);
  ck_assert_ptr_null (job.gpu_models);
  /* Line 3: openb-pod-0001, 460/1000 of a GPU, 427061 to 12902960. */
  ck_assert (sim_workload_next (w, &job, &error));
  ck_assert_uint_eq (job.id, 3);
  ck_assert_int_eq (job.submit, (SimTime) 427061 * SIM_SECOND);
  ck_assert_int_eq (job.duration, (SimTime) (12902960 - 427061) * SIM_SECOND);
  ck_assert_uint_eq (job.gpu_milli, 460);
  n = 2;
  while (sim_workload_next (w, &job, &error))
    n++;
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  /* 64 pods, 6 without GPUs. */
  ck_assert_uint_eq (n, 58);
  ck_assert_uint_eq (sim_workload_openb_skipped (w, &no_gpu, &invalid), 6);
  ck_assert_uint_eq (no_gpu, 6);
  ck_assert_uint_eq (invalid, 0);
}
END_TEST

START_TEST (test_workload_options_and_errors)
{
  SimOpenbConfig config = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *path = write_temp ("w.csv", POD_HEADER
                                      "a,1000,1024,1,1000,,LS,Running,100,200,100\n"
                                      "b,1000,1024,2,1000,,LS,Running,150,,\n"
                                      "c,1000,1024,1,500,,LS,Running,160,160,160\n"
                                      "d,1000,1024,1,500,,LS,Running,120,130,120\n");
  SimWorkload *w;
  SimJobSpec job;
  guint64 invalid;

  /* Without skipping, pod b (no deletion time) stops the stream. */
  w = sim_workload_new_openb (path, &config, &error);
  ck_assert_ptr_nonnull (w);
  ck_assert (sim_workload_next (w, &job, &error));
  ck_assert (!sim_workload_next (w, &job, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  ck_assert (strstr (error->message, "w.csv:3:") != NULL);
  ck_assert (strstr (error->message, "no deletion time") != NULL);
  g_clear_error (&error);
  /* The failure is sticky. */
  ck_assert (!sim_workload_next (w, &job, &error));
  ck_assert (error != NULL);
  g_clear_error (&error);
  sim_workload_free (w);

  /* Skipping, rebased at the first job: a at 0 for 100 s, b skipped, c at
   * 60 s for 1 ns (deleted as created), then d goes back in time. */
  config.skip_invalid = TRUE;
  config.rebase_time = TRUE;
  w = sim_workload_new_openb (path, &config, &error);
  ck_assert (sim_workload_next (w, &job, &error));
  ck_assert_int_eq (job.submit, 0);
  ck_assert_int_eq (job.duration, 100 * SIM_SECOND);
  ck_assert (sim_workload_next (w, &job, &error));
  ck_assert_uint_eq (job.id, 4);
  ck_assert_int_eq (job.submit, 60 * SIM_SECOND);
  ck_assert_int_eq (job.duration, 1);
  ck_assert_uint_eq (job.gpu_milli, 500);
  ck_assert (!sim_workload_next (w, &job, &error));
  ck_assert (strstr (error->message, "w.csv:5:") != NULL);
  ck_assert (strstr (error->message, "order of creation") != NULL);
  ck_assert_uint_eq (sim_workload_openb_skipped (w, NULL, &invalid), 1);
  ck_assert_uint_eq (invalid, 1);
  g_clear_error (&error);
  sim_workload_free (w);

  /* GPU models become catalogue names. */
  {
    g_autofree char *spec = write_temp ("s.csv", POD_HEADER
                                        "e,1000,1024,1,500,T4|V100M32,LS,Running,300,301,\n");
    w = sim_workload_new_openb (spec, &config, &error);
    ck_assert (sim_workload_next (w, &job, &error));
    ck_assert_str_eq (job.gpu_models, "T4|V100-32GB");
    ck_assert_ptr_eq (job.gpu_models, g_intern_string ("T4|V100-32GB"));
    sim_workload_free (w);
  }

  /* At most one job. */
  config.max_jobs = 1;
  w = sim_workload_new_openb (path, &config, &error);
  ck_assert (sim_workload_next (w, &job, &error));
  ck_assert (!sim_workload_next (w, &job, &error));
  ck_assert_ptr_null (error);
  sim_workload_free (w);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The experiment, by hand (the gpusim variant).                             */

static SimFgdResult *
run_text (const char *nodes_text, const char *pods_text, const char *const *policies,
          guint n_policies, guint n_seeds, double stop, double step, gboolean ignore_spec,
          GError **error)
{
  g_autofree char *np = write_temp ("nodes.csv", nodes_text);
  g_autofree char *pp = write_temp ("pods.csv", pods_text);
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes (np, error);
  g_autoptr(GPtrArray) pods = nodes ? sim_openb_read_pods (pp, error) : NULL;
  SimFgdConfig config = { 0 };

  if (pods == NULL)
    return NULL;
  config.policies = policies;
  config.n_policies = n_policies;
  config.n_seeds = n_seeds;
  config.first_seed = 1;
  config.stop_share = stop;
  config.sample_step = step;
  config.n_threads = 1;
  config.ignore_gpu_spec = ignore_spec;
  config.variant = SIM_FGD_VARIANT_GPUSIM;
  return sim_fgd_experiment_run (nodes, pods, &config, error);
}

static const char *const both[] = { "first-fit", "best-fit" };

#define EPS 1e-12

static void
expect_sample (const SimFgdSample *s, double arrived, double allocated, double fragmented,
               double unallocated, guint64 failed)
{
  ck_assert_double_eq_tol (s->arrived_share, arrived, EPS);
  ck_assert_double_eq_tol (s->allocated_share, allocated, EPS);
  ck_assert_double_eq_tol (s->fragmented_share, fragmented, EPS);
  ck_assert_double_eq_tol (s->unallocated_gpus, unallocated, EPS);
  ck_assert_uint_eq (s->failed_tasks, failed);
}

/* Two nodes of two T4s (and a CPU-only node, left out); every task asks
 * 0.6 of one GPU (the zero-GPU pod is never drawn).  Capacity 4 GPUs =
 * 4000 thousandths; a sample every 15% (600), stop at 120% (4800), and
 * 100% is a sample point too: 0, 15, 30, 45, 60, 75, 90, 100, 105, 120%.
 * Each task adds 600 of demand, so task j is the one sampled at 15j%,
 * and task 7 (4200) at both 100% and 105%.
 *   tasks 1-4 each take a fresh GPU (a GPU with 0.4 left cannot take 0.6):
 *     allocated 0.6 j / 4 = 15 j %; every used GPU keeps 0.4 that no task
 *     can use: fragmented 0.4 j / 4 = 10 j %;
 *   tasks 5-8 fail: allocated stays 60%, fragmented 40%, 1.6 GPUs
 *     unallocated, failures 1..4.
 * First-fit and best-fit agree. */
START_TEST (test_hand_fractional)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimFgdResult) r =
    run_text (NODE_HEADER "n0,64000,262144,2,T4\nn1,64000,262144,2,T4\nc0,32000,131072,0,\n",
              POD_HEADER "p0,1000,1024,1,600,,LS,Running,0,10,0\n"
                         "p1,1000,1024,0,0,,BE,Running,1,5,1\n",
              both, 2, 2, 1.2, 0.15, FALSE, &error);
  static const double points[] = { 0, .15, .30, .45, .60, .75, .90, 1.0, 1.05, 1.20 };

  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (r->n_nodes, 2);
  ck_assert_uint_eq (r->n_gpus, 4);
  ck_assert_uint_eq (r->n_cpu_only_nodes, 1);
  ck_assert_uint_eq (r->n_gpu_pods, 1);
  ck_assert_uint_eq (r->n_task_types, 1);
  ck_assert_uint_eq (r->n_points, G_N_ELEMENTS (points));
  for (guint k = 0; k < r->n_points; k++)
    ck_assert_double_eq_tol (r->points[k], points[k], EPS);
  ck_assert_uint_eq (r->n_runs, 4);
  for (guint i = 0; i < r->n_runs; i++)
    {
      const SimFgdSample *s = r->runs[i].samples;
      ck_assert_uint_eq (r->runs[i].tasks_arrived, 8);
      ck_assert_uint_eq (r->runs[i].tasks_failed, 4);
      expect_sample (&s[0], 0, 0, 0, 4, 0);
      for (guint j = 1; j <= 4; j++)
        expect_sample (&s[j], .15 * j, .15 * j, .10 * j, 4 - .6 * j, 0);
      expect_sample (&s[5], .75, .60, .40, 1.6, 1);
      expect_sample (&s[6], .90, .60, .40, 1.6, 2);
      expect_sample (&s[7], 1.0, .60, .40, 1.6, 3);
      ck_assert_double_eq_tol (s[7].demand_share, 1.05, EPS);
      expect_sample (&s[8], 1.05, .60, .40, 1.6, 3);
      expect_sample (&s[9], 1.20, .60, .40, 1.6, 4);
    }
  ck_assert_double_eq_tol (r->summaries[0].allocated_at_full.mean, .60, EPS);
  ck_assert_double_eq_tol (r->summaries[0].allocated_at_full.ci95, 0, EPS);
  ck_assert_double_eq_tol (r->summaries[1].failed_tasks.mean, 4, EPS);
}
END_TEST

/* Node a has 2 GPUs but 4 CPUs; node b has 2 GPUs and 64 CPUs.  Every
 * task asks one whole GPU and 3 CPUs.  Capacity 4 GPUs, samples every 25%
 * up to 100%: task j is sampled at 25j%.
 *   task 1: first-fit and best-fit both take node a (1 CPU left);
 *     node a's free GPU can no longer host the task (CPU): fragmented
 *     1 GPU = 25%; allocated 25%;
 *   task 2: the placement picks node a again, which is refused for CPU,
 *     and then node b: allocated 50%, fragmented still 25% (node b's free
 *     GPU can host the task);
 *   task 3: node b: allocated 75%, fragmented 25%;
 *   task 4: only node a has a free GPU, without CPU: fails. */
START_TEST (test_hand_cpu_limit)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimFgdResult) r =
    run_text (NODE_HEADER "a,4000,262144,2,T4\nb,64000,262144,2,T4\n",
              POD_HEADER "p0,3000,1024,1,1000,,LS,Running,0,10,0\n",
              both, 2, 1, 1.0, 0.25, FALSE, &error);

  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (r->n_points, 5);
  for (guint i = 0; i < r->n_runs; i++)
    {
      const SimFgdSample *s = r->runs[i].samples;
      expect_sample (&s[0], 0, 0, 0, 4, 0);
      expect_sample (&s[1], .25, .25, .25, 3, 0);
      expect_sample (&s[2], .50, .50, .25, 2, 0);
      expect_sample (&s[3], .75, .75, .25, 1, 0);
      expect_sample (&s[4], 1.0, .75, .25, 1, 1);
    }
}
END_TEST

/* One T4 node and one V100M16 node of one GPU each; every task asks one
 * whole GPU and accepts "A10" or "V100-16GB" (the catalogue's name of
 * V100M16).  Capacity 2, samples at 0, 50, 100%.
 *   task 1: first-fit picks the T4, refused: goes to the V100; the T4's
 *     free GPU is unusable by the task: allocated 50%, fragmented 50%;
 *   task 2: fails.
 * Ignoring gpu_spec, both tasks fit: 50% then 100%, nothing fragmented. */
START_TEST (test_hand_gpu_spec)
{
  g_autoptr(GError) error = NULL;
  const char *nodes = NODE_HEADER "t,64000,262144,1,T4\nv,64000,262144,1,V100M16\n";
  const char *pods = POD_HEADER "p0,1000,1024,1,1000,A10|V100-16GB,LS,Running,0,10,0\n";
  g_autoptr(SimFgdResult) r = run_text (nodes, pods, both, 1, 1, 1.0, 0.5, FALSE, &error);
  g_autoptr(SimFgdResult) any = NULL;

  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  expect_sample (&r->runs[0].samples[1], .5, .5, .5, 1, 0);
  expect_sample (&r->runs[0].samples[2], 1.0, .5, .5, 1, 1);
  any = run_text (nodes, pods, both, 1, 1, 1.0, 0.5, TRUE, &error);
  ck_assert_msg (any != NULL, "%s", error ? error->message : "");
  expect_sample (&any->runs[0].samples[1], .5, .5, 0, 1, 0);
  expect_sample (&any->runs[0].samples[2], 1.0, 1.0, 0, 0, 0);
}
END_TEST

START_TEST (test_bad_config)
{
  g_autoptr(GError) error = NULL;
  const char *nodes = NODE_HEADER "t,64000,262144,1,T4\n";
  const char *pods = POD_HEADER "p0,1000,1024,1,1000,,LS,Running,0,10,0\n";
  const char *const unknown[] = { "first-fit", "no-such-fit" };
  SimFgdResult *r;

  r = run_text (nodes, pods, unknown, 2, 1, 1.3, 0.01, FALSE, &error);
  ck_assert_ptr_null (r);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
  ck_assert (strstr (error->message, "no-such-fit") != NULL);
  ck_assert (strstr (error->message, "first-fit") != NULL);
  ck_assert (strstr (error->message, "best-fit") != NULL);
  g_clear_error (&error);

  r = run_text (nodes, pods, both, 1, 1, 0, 0.01, FALSE, &error);
  ck_assert_ptr_null (r);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  g_clear_error (&error);
  r = run_text (nodes, pods, both, 1, 1, 1.3, 2, FALSE, &error);
  ck_assert_ptr_null (r);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  g_clear_error (&error);
  r = run_text (NODE_HEADER "c,64000,262144,0,\n", pods, both, 1, 1, 1.3, 0.01, FALSE, &error);
  ck_assert_ptr_null (r);
  ck_assert (strstr (error->message, "no GPU node") != NULL);
  g_clear_error (&error);
  r = run_text (nodes, POD_HEADER "c,1000,1024,0,0,,LS,Running,0,10,0\n", both, 1, 1, 1.3,
                0.01, FALSE, &error);
  ck_assert_ptr_null (r);
  ck_assert (strstr (error->message, "no pod asking for GPUs") != NULL);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The paper variant, by hand: each plugin's choice of node and GPU.         */

/* Places @n pods (positions in @pods_text's rows) with @policy on the
 * nodes of @nodes_text, ties between nodes going to the first name; the
 * node (position) and GPU mask of each in @nodes_out and @gpus_out. */
static void
place_by_hand (const char *nodes_text, const char *pods_text, const char *policy,
               const guint *order, guint n, gint *nodes_out, guint *gpus_out, double *frag)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *np = write_temp ("nodes.csv", nodes_text);
  g_autofree char *pp = write_temp ("pods.csv", pods_text);
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes (np, &error);
  g_autoptr(GPtrArray) pods = nodes ? sim_openb_read_pods (pp, &error) : NULL;
  g_autoptr(SimFgdPaper) paper = NULL;

  ck_assert_msg (pods != NULL, "%s", error ? error->message : "");
  paper = sim__fgd_paper_new (nodes, pods, FALSE, &error);
  ck_assert_msg (paper != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim__fgd_paper_place_pods (paper, policy, 1, TRUE, order, n, nodes_out,
                                            gpus_out, frag, &error),
                 "%s", error ? error->message : "");
}

#define FIVE "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"

/* Nodes listed "n2" then "n1", alike.  A CPU-only pod scores 0 on every
 * node under packing and clustering, and the same under dot-product and
 * best-fit: the tie goes to the first name, n1, listed second. */
START_TEST (test_paper_ties_by_name)
{
  static const char *const policies[] = { "packing", "clustering", "dot-product", "best-fit",
                                          "fgd" };
  const char *nodes = NODE_HEADER "n2,64000,262144,1,T4\nn1,64000,262144,1,T4\n";
  const char *pods = FIVE "c,1000,1024,0,0\ng,1000,1024,1,1000\n";
  static const guint order[] = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (policies); i++)
    {
      gint node;
      guint gpus;
      place_by_hand (nodes, pods, policies[i], order, 1, &node, &gpus, NULL);
      ck_assert_msg (node == 1, "%s put the CPU-only pod on node %d", policies[i], node);
      ck_assert_uint_eq (gpus, 0);
    }
}
END_TEST

/* As the study's simulator breaks ties: by names it prefixes with a random
 * number drawn at each seed.  Three CPU-only pods on three alike nodes
 * score 0 everywhere under packing: within a run they all go to one node
 * (the first in the run's order), which differs between seeds. */
START_TEST (test_paper_ties_prefixed)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *np = write_temp ("nodes.csv", NODE_HEADER "a,64000,262144,1,T4\n"
                                                 "b,64000,262144,1,T4\nc,64000,262144,1,T4\n");
  g_autofree char *pp = write_temp ("pods.csv", FIVE "c,1000,1024,0,0\ng,1000,1024,1,1000\n");
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes (np, &error);
  g_autoptr(GPtrArray) pods = sim_openb_read_pods (pp, &error);
  g_autoptr(SimFgdPaper) paper = sim__fgd_paper_new (nodes, pods, FALSE, &error);
  static const guint order[] = { 0, 0, 0 };
  guint seen[3] = { 0 };

  ck_assert_msg (paper != NULL, "%s", error ? error->message : "");
  for (guint64 seed = 1; seed <= 30; seed++)
    {
      gint node[3];
      guint gpus[3];
      ck_assert (sim__fgd_paper_place_pods (paper, "packing", seed, FALSE, order, 3, node, gpus,
                                            NULL, &error));
      ck_assert (node[0] >= 0 && node[0] < 3);
      ck_assert_int_eq (node[1], node[0]);
      ck_assert_int_eq (node[2], node[0]);
      seen[node[0]]++;
      ck_assert (sim__fgd_paper_place_pods (paper, "packing", seed, TRUE, order, 3, node, gpus,
                                            NULL, &error));
      ck_assert_int_eq (node[0], 0);
    }
  ck_assert (seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
}
END_TEST

/* Packing, nodes A (2 GPUs) and B (8 GPUs):
 *   s500: both idle, A scores max(33-2, 2) = 31, B max(33-8, 8) = 25: A,
 *     GPU 0 (the first of the tightest fits);
 *   s300: A's GPU 0 (500 free) fits: 100 - 50/10 = 95 against B's 25: A,
 *     GPU 0;
 *   w1 (one whole GPU): A takes its free GPU 1, max(50-1, 33) = 49: A;
 *   w1 again: A has no whole GPU free: B, GPU 0. */
START_TEST (test_paper_packing)
{
  const char *nodes = NODE_HEADER "A,64000,262144,2,T4\nB,64000,262144,8,T4\n";
  const char *pods = FIVE "s500,1000,1024,1,500\ns300,1000,1024,1,300\nw1,1000,1024,1,1000\n";
  static const guint order[] = { 0, 1, 2, 2 };
  gint node[4];
  guint gpus[4];

  place_by_hand (nodes, pods, "packing", order, 4, node, gpus, NULL);
  ck_assert_int_eq (node[0], 0);
  ck_assert_uint_eq (gpus[0], 1);
  ck_assert_int_eq (node[1], 0);
  ck_assert_uint_eq (gpus[1], 1);
  ck_assert_int_eq (node[2], 0);
  ck_assert_uint_eq (gpus[2], 2);
  ck_assert_int_eq (node[3], 1);
  ck_assert_uint_eq (gpus[3], 1);
}
END_TEST

/* Clustering, nodes A, B, C of 4 GPUs:
 *   s500: all idle, 25 + 25 x 4000/8000 = 37: A (first name);
 *   w1: A holds only shared tasks, 0 + 25 x 4500/8000 = 14; B, C idle 37:
 *     B;
 *   s300: A holds only its kind: 75 + 14 = 89: A;
 *   w2 (two whole GPUs): A 14 and B 15 hold other kinds; C idle 37: C. */
START_TEST (test_paper_clustering)
{
  const char *nodes = NODE_HEADER "A,64000,262144,4,T4\nB,64000,262144,4,T4\n"
                                  "C,64000,262144,4,T4\n";
  const char *pods = FIVE "s500,1000,1024,1,500\nw1,1000,1024,1,1000\ns300,1000,1024,1,300\n"
                          "w2,1000,1024,2,1000\n";
  static const guint order[] = { 0, 1, 2, 3 };
  gint node[4];
  guint gpus[4];

  place_by_hand (nodes, pods, "clustering", order, 4, node, gpus, NULL);
  ck_assert_int_eq (node[0], 0);
  ck_assert_int_eq (node[1], 1);
  ck_assert_int_eq (node[2], 0);
  ck_assert_int_eq (node[3], 2);
  ck_assert_uint_eq (gpus[3], 3);
}
END_TEST

/* Dot-product against best-fit, a task of 8 CPUs and one whole GPU,
 * normalised by 128 CPUs and 8 GPUs:
 *   dot-product on A (128 CPUs, 1 GPU) 100 (1 - (1 x 1/16 + 1/8 x 1/8)/2)
 *     = 96, on B (16 CPUs, 8 GPUs) 100 (1 - (1/8 x 1/16 + 1 x 1/8)/2) =
 *     93: A, the least aligned, though listed second. */
START_TEST (test_paper_dot_product_best_fit)
{
  const char *pods = FIVE "t,8000,1024,1,1000\n";
  static const guint order[] = { 0 };
  gint node;
  guint gpus;

  place_by_hand (NODE_HEADER "B,16000,262144,8,T4\nA,128000,262144,1,T4\n", pods,
                 "dot-product", order, 1, &node, &gpus, NULL);
  ck_assert_int_eq (node, 1);
  /* Best-fit weighs free CPU: on A (64 CPUs, 1 GPU) 100 (1 - (56/128)/2) =
   * 78; on B (16 CPUs, 8 GPUs) 100 (1 - (8/128)/2 - (7/8)/2) = 53: A. */
  place_by_hand (NODE_HEADER "B,16000,262144,8,T4\nA,64000,262144,1,T4\n", pods,
                 "best-fit", order, 1, &node, &gpus, NULL);
  ck_assert_int_eq (node, 1);
  /* With 120 CPUs on A: 100 (1 - (112/128)/2) = 56 against B's 53: still
   * A; with 128 CPUs on A and 2 GPUs on B: A 100 (1 - (120/128)/2) = 53,
   * B 100 (1 - (8/128)/2 - (1/8)/2) = 90: B. */
  place_by_hand (NODE_HEADER "B,16000,262144,2,T4\nA,128000,262144,1,T4\n", pods,
                 "best-fit", order, 1, &node, &gpus, NULL);
  ck_assert_int_eq (node, 0);
}
END_TEST

/* FGD's GPU inside a node.  One node of 2 GPUs; the typical types are a
 * half and a 0.4 of a GPU (one pod each, popularity 1/2).  s500 goes to
 * GPU 0 (both GPUs alike: the first).  Then s400:
 *   on GPU 0 the GPUs keep (100, 1000): a half fits GPU 1 but not 100
 *     left on GPU 0, and nor does 0.4: fragmentation 1/2 100 + 1/2 100 =
 *     100;
 *   on GPU 1 they keep (500, 600): both types fit both GPUs: 0.
 * FGD takes GPU 1; best-fit, packing and the others the tightest, GPU 0. */
START_TEST (test_paper_fgd_gpu_choice)
{
  const char *nodes = NODE_HEADER "A,64000,262144,2,T4\n";
  const char *pods = FIVE "s500,1000,1024,1,500\ns400,1000,1024,1,400\n";
  static const guint order[] = { 0, 1 };
  gint node[2];
  guint gpus[2];
  double frag;

  place_by_hand (nodes, pods, "fgd", order, 2, node, gpus, &frag);
  ck_assert_uint_eq (gpus[0], 1);
  ck_assert_uint_eq (gpus[1], 2);
  ck_assert_double_eq_tol (frag, 0, EPS);
  place_by_hand (nodes, pods, "best-fit", order, 2, node, gpus, &frag);
  ck_assert_uint_eq (gpus[1], 1);
  ck_assert_double_eq_tol (frag, 100, 1e-9);
}
END_TEST

/* FGD's fragmentation honours GPU-model constraints: nodes of 2 T4s and
 * of 2 V100M16s; typical types: a whole GPU restricted to V100M16 (2 of 3
 * pods) and a CPU-only pod (1 of 3).  Idle, the T4 node's 2000 free are
 * all unusable (by the first type for its model, by the second for it
 * uses no GPU); the V100 node's by the second type only: 2000 + 2000/3 of
 * 4000, 2/3 of capacity.  Ignoring gpu_spec: 2000/3 + 2000/3, 1/3. */
START_TEST (test_paper_fragmentation_models)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *np = write_temp ("nodes.csv", NODE_HEADER "t,64000,262144,2,T4\n"
                                                 "v,64000,262144,2,V100M16\n");
  g_autofree char *pp = write_temp ("pods.csv", POD_HEADER
                                    "a,1000,1024,1,1000,V100M16,LS,Running,0,10,0\n"
                                    "b,1000,1024,1,1000,V100M16,LS,Running,0,10,0\n"
                                    "c,1000,1024,0,0,,LS,Running,0,10,0\n");
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes (np, &error);
  g_autoptr(GPtrArray) pods = sim_openb_read_pods (pp, &error);
  const char *const fgd[] = { "fgd" };
  SimFgdConfig config = { 0 };
  g_autoptr(SimFgdResult) r = NULL;
  g_autoptr(SimFgdResult) any = NULL;

  ck_assert (nodes != NULL && pods != NULL);
  config.policies = fgd;
  config.n_policies = 1;
  config.n_seeds = 1;
  config.stop_share = 1.0;
  config.sample_step = 0.5;
  config.n_threads = 1;
  r = sim_fgd_experiment_run (nodes, pods, &config, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (r->variant, SIM_FGD_VARIANT_PAPER);
  ck_assert_uint_eq (r->n_task_types, 2);
  ck_assert_double_eq_tol (r->runs[0].samples[0].fragmented_share, 2.0 / 3, 1e-9);
  config.ignore_gpu_spec = TRUE;
  any = sim_fgd_experiment_run (nodes, pods, &config, &error);
  ck_assert_msg (any != NULL, "%s", error ? error->message : "");
  ck_assert_double_eq_tol (any->runs[0].samples[0].fragmented_share, 1.0 / 3, 1e-9);
  /* And the tasks restricted to V100M16 never land on the T4s. */
  for (guint k = 0; k < r->n_points; k++)
    ck_assert (r->runs[0].samples[k].allocated_share <= 0.5 + EPS);
}
END_TEST

/* Random picks a node uniformly among the feasible, then a GPU: over 40
 * seeds a CPU-only pod lands on each of two alike nodes, a shared task on
 * each GPU; a node without room is never chosen. */
START_TEST (test_paper_random)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *np = write_temp ("nodes.csv", NODE_HEADER "a,64000,262144,2,T4\n"
                                                 "b,64000,262144,2,T4\nc,500,1024,2,T4\n");
  g_autofree char *pp = write_temp ("pods.csv", FIVE "c,1000,1024,0,0\ns,1000,1024,1,200\n");
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes (np, &error);
  g_autoptr(GPtrArray) pods = sim_openb_read_pods (pp, &error);
  g_autoptr(SimFgdPaper) paper = sim__fgd_paper_new (nodes, pods, FALSE, &error);
  guint seen_node[3] = { 0 }, seen_gpu[2] = { 0 };

  ck_assert_msg (paper != NULL, "%s", error ? error->message : "");
  for (guint64 seed = 1; seed <= 40; seed++)
    {
      static const guint order[] = { 0, 1 };
      gint node[2], again[2];
      guint gpus[2], gpus_again[2];
      ck_assert (sim__fgd_paper_place_pods (paper, "random", seed, FALSE, order, 2, node, gpus,
                                            NULL, &error));
      ck_assert (sim__fgd_paper_place_pods (paper, "random", seed, FALSE, order, 2, again,
                                            gpus_again, NULL, &error));
      ck_assert_int_eq (node[0], again[0]);
      ck_assert_uint_eq (gpus[1], gpus_again[1]);
      ck_assert (node[0] >= 0 && node[0] < 2);
      seen_node[node[0]]++;
      ck_assert (gpus[1] == 1 || gpus[1] == 2);
      seen_gpu[gpus[1] - 1]++;
    }
  ck_assert (seen_node[0] > 0 && seen_node[1] > 0 && seen_node[2] == 0);
  ck_assert (seen_gpu[0] > 0 && seen_gpu[1] > 0);
}
END_TEST

/* The task sequence: every pod, CPU-only ones included, topped up by
 * draws to the stop share or trimmed below it.  Two whole-GPU pods and two
 * CPU-only pods on 4 GPUs: the list's demand is 50% of capacity. */
START_TEST (test_paper_sequence)
{
  g_autoptr(GError) error = NULL;
  const char *nodes = NODE_HEADER "a,64000,262144,4,T4\n";
  const char *pods = FIVE "g1,1000,1024,1,1000\ng2,1000,1024,1,1000\nc1,1000,1024,0,0\n"
                          "c2,1000,1024,0,0\n";
  const char *const first_fit_like[] = { "packing", "fgd" };
  g_autoptr(SimFgdResult) up = NULL;
  g_autoptr(SimFgdResult) down = NULL;
  g_autofree char *np = write_temp ("nodes.csv", nodes);
  g_autofree char *pp = write_temp ("pods.csv", pods);
  g_autoptr(GPtrArray) node_list = sim_openb_read_nodes (np, &error);
  g_autoptr(GPtrArray) pod_list = sim_openb_read_pods (pp, &error);
  SimFgdConfig config = { 0 };

  config.policies = first_fit_like;
  config.n_policies = 2;
  config.n_seeds = 5;
  config.first_seed = 3;
  config.stop_share = 1.0;
  config.sample_step = 0.25;
  config.n_threads = 1;
  up = sim_fgd_experiment_run (node_list, pod_list, &config, &error);
  ck_assert_msg (up != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (up->n_gpu_pods, 2);
  ck_assert_uint_eq (up->n_pods, 4);
  for (guint i = 0; i < up->n_runs; i++)
    {
      const SimFgdRun *run = &up->runs[i];
      const SimFgdSample *end = &run->samples[run->n_samples - 1];
      /* All four pods, then draws until the 4 GPUs are asked for. */
      ck_assert (run->tasks_arrived >= 6);
      ck_assert_double_eq_tol (end->demand_share, 1.0, EPS);
      ck_assert_double_eq_tol (end->allocated_share, 1.0, EPS);
      ck_assert_uint_eq (run->tasks_failed, 0);
      ck_assert_uint_eq (run->sequence_digest, up->runs[i % up->n_seeds].sequence_digest);
    }
  config.stop_share = 0.25;
  config.sample_step = 0.25;
  down = sim_fgd_experiment_run (node_list, pod_list, &config, &error);
  ck_assert_msg (down != NULL, "%s", error ? error->message : "");
  for (guint i = 0; i < down->n_runs; i++)
    {
      const SimFgdRun *run = &down->runs[i];
      /* One GPU pod is removed (and CPU-only pods with it, at random). */
      ck_assert_double_eq_tol (run->samples[run->n_samples - 1].demand_share, 0.25, EPS);
      ck_assert (run->tasks_arrived >= 1 && run->tasks_arrived <= 3);
    }
}
END_TEST

/* A five-column list reads as the same pods as the eleven-column one, and
 * the experiment on it gives the same result. */
START_TEST (test_five_columns)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes (NODES_EXCERPT, &error);
  g_autoptr(GPtrArray) full = sim_openb_read_pods (PODS_EXCERPT, &error);
  g_autoptr(GPtrArray) five = sim_openb_read_pods (PODS_5COL, &error);
  g_autoptr(SimFgdResult) a = NULL;
  g_autoptr(SimFgdResult) b = NULL;
  g_autofree char *ja = NULL;
  g_autofree char *jb = NULL;
  SimFgdConfig config = { 0 };

  ck_assert_msg (five != NULL, "%s", error ? error->message : "");
  ck_assert (nodes != NULL && full != NULL);
  ck_assert_uint_eq (five->len, full->len);
  for (guint i = 0; i < five->len; i++)
    {
      const SimOpenbPod *x = five->pdata[i], *y = full->pdata[i];
      ck_assert_str_eq (x->name, y->name);
      ck_assert_uint_eq (x->cpu_milli, y->cpu_milli);
      ck_assert_uint_eq (x->memory_mib, y->memory_mib);
      ck_assert_uint_eq (x->num_gpu, y->num_gpu);
      ck_assert_uint_eq (x->gpu_milli, y->gpu_milli);
      ck_assert_ptr_null (x->gpu_spec[0]);
      ck_assert_str_eq (x->qos, "");
      ck_assert_int_eq (x->creation_time, -1);
      ck_assert_int_eq (x->deletion_time, -1);
    }
  config.policies = sim_fgd_paper_policies;
  config.n_policies = 6;
  config.n_seeds = 2;
  config.stop_share = 1.3;
  config.sample_step = 0.01;
  a = sim_fgd_experiment_run (nodes, full, &config, &error);
  b = sim_fgd_experiment_run (nodes, five, &config, &error);
  ck_assert_msg (a != NULL && b != NULL, "%s", error ? error->message : "");
  ja = sim_fgd_result_to_json (a, FALSE);
  jb = sim_fgd_result_to_json (b, FALSE);
  ck_assert_str_eq (ja, jb);
  ck_assert (strstr (ja, "\"variant\":\"paper\"") != NULL);
}
END_TEST

START_TEST (test_paper_bad_input)
{
  g_autoptr(GError) error = NULL;
  const char *nodes = NODE_HEADER "t,64000,262144,1,T4\n";
  const char *const unknown[] = { "fgd", "first-fit" };
  SimFgdVariant v;
  g_autofree char *np = write_temp ("nodes.csv", nodes);
  g_autofree char *pp = write_temp ("pods.csv", FIVE "p,1000,1024,1,1000\n");
  g_autoptr(GPtrArray) node_list = sim_openb_read_nodes (np, &error);
  g_autoptr(GPtrArray) pod_list = sim_openb_read_pods (pp, &error);
  SimFgdConfig config = { 0 };
  SimFgdResult *r;
  char *json;

  /* first-fit is a gpusim placement, not one of the paper's six. */
  config.policies = unknown;
  config.n_policies = 2;
  config.n_seeds = 1;
  config.stop_share = 1.3;
  config.sample_step = 0.01;
  r = sim_fgd_experiment_run (node_list, pod_list, &config, &error);
  ck_assert_ptr_null (r);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
  ck_assert (strstr (error->message, "\"first-fit\"") != NULL);
  ck_assert (strstr (error->message, "dot-product") != NULL);
  g_clear_error (&error);
  /* The gpusim variant takes any registered placement. */
  config.variant = SIM_FGD_VARIANT_GPUSIM;
  r = sim_fgd_experiment_run (node_list, pod_list, &config, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  sim_fgd_result_free (r);
  config.variant = (SimFgdVariant) 7;
  r = sim_fgd_experiment_run (node_list, pod_list, &config, &error);
  ck_assert_ptr_null (r);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  g_clear_error (&error);

  ck_assert (!sim_fgd_variant_from_string ("papers", &v, &error));
  ck_assert (strstr (error->message, "\"papers\"") != NULL);
  g_clear_error (&error);
  ck_assert (sim_fgd_variant_from_string ("gpusim", &v, &error));
  ck_assert_uint_eq (v, SIM_FGD_VARIANT_GPUSIM);

  /* The file-level entry point names the file and line of a bad row. */
  {
    g_autofree char *bad = write_temp ("openb_pod_list_default.csv",
                                       FIVE "p,1000,1024,1,1000\nq,1000,1024,3,10\n");
    json = sim_fgd_experiment_run_files (np, bad, NULL, 1, 1, 1.3, 0.01, "paper", 1, &error);
    ck_assert_ptr_null (json);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
    ck_assert (strstr (error->message, "openb_pod_list_default.csv:3:") != NULL);
    g_clear_error (&error);
    json = sim_fgd_experiment_run_files (np, pp, NULL, 1, 1, 1.3, 0.01, "other", 1, &error);
    ck_assert_ptr_null (json);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  }
}
END_TEST

/* The published figures and how they are printed.  The figures are the
 * means over the ten seeds of Weng et al., "Beware of Fragmentation"
 * (USENIX ATC '23), from its artifact's
 * experiments/analysis/expected_results/analysis_allo_discrete.csv
 * (hkust-adsl/kubernetes-scheduler-simulator), as docs/policies.md quotes
 * them in brackets: default list, FGD 95.39 % at 130 % arrived, best-fit
 * 93.08 % at 130 %, random 85.02 % at 90 %; gpushare100 list, random
 * 78.21 % at 90 %, FGD 86.64 % at 100 %.  Several policies, lists and
 * points, so that a row or a column taken for another shows. */
START_TEST (test_paper_reference)
{
  double v;

  ck_assert (sim_fgd_paper_reference ("default", "fgd", 1.30, &v));
  ck_assert_double_eq_tol (v, 0.9539, 1e-12);
  ck_assert (sim_fgd_paper_reference ("default", "best-fit", 1.30, &v));
  ck_assert_double_eq_tol (v, 0.9308, 1e-12);
  ck_assert (sim_fgd_paper_reference ("default", "random", 0.90, &v));
  ck_assert_double_eq_tol (v, 0.8502, 1e-12);
  ck_assert (sim_fgd_paper_reference ("gpushare100", "random", 0.90, &v));
  ck_assert_double_eq_tol (v, 0.7821, 1e-12);
  ck_assert (sim_fgd_paper_reference ("gpushare100", "fgd", 1.00, &v));
  ck_assert_double_eq_tol (v, 0.8664, 1e-12);
  ck_assert (!sim_fgd_paper_reference ("default", "first-fit", 1.30, &v));
  ck_assert (!sim_fgd_paper_reference ("default", "fgd", 0.95, &v));
  ck_assert (!sim_fgd_paper_reference ("cpu050", "fgd", 1.30, &v));
  ck_assert_str_eq (sim_fgd_reference_list_of ("/x/openb_pod_list_gpushare100.csv"),
                    "gpushare100");
  ck_assert_str_eq (sim_fgd_reference_list_of ("openb_pod_list_default.csv.gz"), "default");
  ck_assert_ptr_null (sim_fgd_reference_list_of ("/x/openb_pod_list_gpuspec33.csv"));
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Invariants on the excerpts.                                               */

static SimFgdResult *
run_excerpt (guint n_threads, guint n_seeds)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes (NODES_EXCERPT, &error);
  g_autoptr(GPtrArray) pods = sim_openb_read_pods (PODS_EXCERPT, &error);
  SimFgdConfig config = { 0 };
  SimFgdResult *r;

  ck_assert (nodes != NULL && pods != NULL);
  config.policies = both;
  config.n_policies = 2;
  config.n_seeds = n_seeds;
  config.first_seed = 7;
  config.stop_share = 1.3;
  config.sample_step = 0.01;
  config.n_threads = n_threads;
  config.variant = SIM_FGD_VARIANT_GPUSIM;
  r = sim_fgd_experiment_run (nodes, pods, &config, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  return r;
}

static char *
csv_text (const SimFgdResult *r, const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  char *text = NULL;

  ck_assert_msg (sim_fgd_result_write_csv (r, path, &error), "%s",
                 error ? error->message : "");
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

START_TEST (test_excerpt_invariants)
{
  g_autoptr(SimFgdResult) r = run_excerpt (1, 4);

  ck_assert_uint_eq (r->n_nodes, 31);
  ck_assert_uint_eq (r->n_gpus, 160);
  ck_assert_uint_eq (r->n_cpu_only_nodes, 8);
  ck_assert_uint_eq (r->n_gpu_pods, 58);
  ck_assert_uint_eq (r->n_points, 131);
  for (guint i = 0; i < r->n_runs; i++)
    {
      const SimFgdRun *run = &r->runs[i];
      const SimFgdRun *same_seed = &r->runs[i % r->n_seeds];

      ck_assert_uint_eq (run->n_samples, r->n_points);
      for (guint k = 0; k < run->n_samples; k++)
        {
          const SimFgdSample *s = &run->samples[k];
          ck_assert (s->allocated_share <= s->demand_share + EPS);
          ck_assert (s->demand_share >= s->arrived_share - EPS);
          ck_assert (s->allocated_share <= 1.0 + EPS);
          ck_assert (s->fragmented_share >= 0 && s->fragmented_share <= 1.0 + EPS);
          ck_assert (s->fragmented_share <= 1.0 - s->allocated_share + EPS);
          ck_assert_double_eq_tol (s->unallocated_gpus,
                                   r->n_gpus * (1.0 - s->allocated_share), 1e-9);
          if (k > 0)
            {
              ck_assert (s->allocated_share >= run->samples[k - 1].allocated_share);
              ck_assert (s->failed_tasks >= run->samples[k - 1].failed_tasks);
            }
        }
      ck_assert (run->samples[run->n_samples - 1].demand_share >= 1.3 - EPS);
      /* Every policy sees the same tasks at a seed. */
      ck_assert_uint_eq (run->seed, same_seed->seed);
      ck_assert_uint_eq (run->tasks_arrived, same_seed->tasks_arrived);
      ck_assert_uint_eq (run->sequence_digest, same_seed->sequence_digest);
    }
  /* Allocation only grows as demand arrives, so each policy's mean
   * allocation at 100% of demand is at most its mean at the stop (as
   * test_full_trace checks on the full lists). */
  for (guint p = 0; p < r->n_policies; p++)
    ck_assert_msg (r->summaries[p].allocated_at_full.mean
                   <= r->summaries[p].allocated_at_stop.mean + EPS, "%s: %g then %g",
                   r->summaries[p].policy, r->summaries[p].allocated_at_full.mean,
                   r->summaries[p].allocated_at_stop.mean);
  /* Different seeds draw different sequences. */
  ck_assert_uint_ne (r->runs[0].sequence_digest, r->runs[1].sequence_digest);
  /* With 160 GPUs and 130% arrived, some tasks must have failed. */
  ck_assert (r->summaries[0].failed_tasks.mean > 0);
}
END_TEST

START_TEST (test_excerpt_determinism)
{
  g_autoptr(SimFgdResult) a = run_excerpt (1, 3);
  g_autoptr(SimFgdResult) b = run_excerpt (3, 3);
  g_autofree char *csv_a = csv_text (a, "a.csv");
  g_autofree char *csv_b = csv_text (b, "b.csv");
  g_autofree char *table_a = sim_fgd_result_format_table (a);
  g_autofree char *table_b = sim_fgd_result_format_table (b);
  g_autofree char *json_a = sim_fgd_result_to_json (a, FALSE);
  g_autofree char *json_b = sim_fgd_result_to_json (b, FALSE);
  g_autofree char *curve = sim_fgd_result_format_curve (a, 10);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(GStrv) lines = NULL;

  ck_assert_str_eq (csv_a, csv_b);
  ck_assert_str_eq (table_a, table_b);
  ck_assert_str_eq (json_a, json_b);
  /* One header and a row per run and sample point. */
  lines = g_strsplit (csv_a, "\n", -1);
  ck_assert_uint_eq (g_strv_length (lines), 1 + a->n_runs * a->n_points + 1);
  ck_assert_str_eq (lines[0], "policy,seed,arrived_share,allocated_share,fragmented_share");
  ck_assert (g_str_has_prefix (lines[1], "first-fit,7,0.0000,0.000000,"));
  ck_assert (json_parser_load_from_data (parser, json_a, -1, NULL));
  ck_assert (strstr (table_a, "first-fit") != NULL && strstr (table_a, "best-fit") != NULL);
  ck_assert (strstr (curve, "\n130%") != NULL);
}
END_TEST

/* The paper variant gives the same bytes on one thread and on three. */
START_TEST (test_excerpt_determinism_paper)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) nodes = sim_openb_read_nodes (NODES_EXCERPT, &error);
  g_autoptr(GPtrArray) pods = sim_openb_read_pods (PODS_EXCERPT, &error);
  g_autoptr(SimFgdResult) a = NULL;
  g_autoptr(SimFgdResult) b = NULL;
  g_autofree char *ja = NULL;
  g_autofree char *jb = NULL;
  g_autofree char *ta = NULL;
  g_autofree char *tb = NULL;
  SimFgdConfig config = { 0 };

  ck_assert (nodes != NULL && pods != NULL);
  config.policies = sim_fgd_paper_policies;
  config.n_policies = 6;
  config.n_seeds = 3;
  config.first_seed = 5;
  config.stop_share = 1.3;
  config.sample_step = 0.01;
  config.n_threads = 1;
  a = sim_fgd_experiment_run (nodes, pods, &config, &error);
  config.n_threads = 3;
  b = sim_fgd_experiment_run (nodes, pods, &config, &error);
  ck_assert_msg (a != NULL && b != NULL, "%s", error ? error->message : "");
  ja = sim_fgd_result_to_json (a, FALSE);
  jb = sim_fgd_result_to_json (b, FALSE);
  ta = sim_fgd_result_format_table (a);
  tb = sim_fgd_result_format_table (b);
  ck_assert_str_eq (ja, jb);
  ck_assert_str_eq (ta, tb);
  /* Every policy sees the same tasks at a seed; seeds differ. */
  for (guint i = 0; i < a->n_runs; i++)
    ck_assert_uint_eq (a->runs[i].sequence_digest, a->runs[i % a->n_seeds].sequence_digest);
  ck_assert_uint_ne (a->runs[0].sequence_digest, a->runs[1].sequence_digest);
}
END_TEST

START_TEST (test_csv_atomic)
{
  g_autoptr(SimFgdResult) r = run_excerpt (1, 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "missing-dir", "x.csv", NULL);

  ck_assert (!sim_fgd_result_write_csv (r, path, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
  ck_assert (!g_file_test (path, G_FILE_TEST_EXISTS));
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The full lists, when present.                                             */

START_TEST (test_full_trace)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GPtrArray) pods = NULL;
  g_autoptr(SimFgdResult) r = NULL;
  SimFgdConfig config = { 0 };

  /* The full lists do not ship (tests/data/README.md): without them the
   * test says so on stderr and passes; test_excerpt_invariants runs the
   * same experiment on the shipped excerpts. */
  if (!g_file_test (FULL_NODES, G_FILE_TEST_EXISTS) || !g_file_test (FULL_PODS,
                                                                      G_FILE_TEST_EXISTS))
    {
      fprintf (stderr, "check-openb: test_full_trace skipped: %s not present\n",
               g_file_test (FULL_NODES, G_FILE_TEST_EXISTS) ? FULL_PODS : FULL_NODES);
      return;
    }
  nodes = sim_openb_read_nodes (FULL_NODES, &error);
  ck_assert_msg (nodes != NULL, "%s", error ? error->message : "");
  pods = sim_openb_read_pods (FULL_PODS, &error);
  ck_assert_msg (pods != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (nodes->len, 1213);
  ck_assert_uint_eq (pods->len, 8152);
  config.policies = both;
  config.n_policies = 2;
  config.n_seeds = 2;
  config.first_seed = 1;
  config.stop_share = 1.3;
  config.sample_step = 0.01;
  config.variant = SIM_FGD_VARIANT_GPUSIM;
  r = sim_fgd_experiment_run (nodes, pods, &config, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (r->n_gpus, 6212);
  ck_assert_uint_eq (r->n_gpu_pods, 7064);
  for (guint p = 0; p < r->n_policies; p++)
    {
      double at_stop = r->summaries[p].allocated_at_stop.mean;
      ck_assert_msg (at_stop > 0.8 && at_stop <= 1.0, "%s: %g", r->summaries[p].policy,
                     at_stop);
      ck_assert (r->summaries[p].allocated_at_full.mean <= at_stop);
    }
}
END_TEST

/* The paper's figures (Weng et al., ATC'23, Fig. 7 and 11, as its
 * artifact records them; sim_fgd_paper_reference()): the paper variant's
 * ten-seed means on the openb default and gpushare100 lists are within 1
 * point of the paper's at 90, 100, 110, 120 and 130% of arrived demand.
 * At 130% the six rank as in the paper on both lists.  About 4 s a list
 * on two processors. */
static const char *const reference_lists[][2] = {
  { "default", FULL_PODS },
  { "gpushare100", FULL_SHARE },
};

START_TEST (test_paper_figures)
{
  const char *list = reference_lists[_i][0];
  const char *path = reference_lists[_i][1];
  static const double points[] = { 0.90, 1.00, 1.10, 1.20, 1.30 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GPtrArray) pods = NULL;
  g_autoptr(SimFgdResult) r = NULL;
  g_autofree char *text = NULL;
  SimFgdConfig config = { 0 };

  /* The paper's figures are of the full lists, which do not ship: no
   * excerpt can stand in for them. */
  if (!g_file_test (FULL_NODES, G_FILE_TEST_EXISTS) || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      fprintf (stderr, "check-openb: test_paper_figures (%s) skipped: %s not present\n", list,
               g_file_test (FULL_NODES, G_FILE_TEST_EXISTS) ? path : FULL_NODES);
      return;
    }
  nodes = sim_openb_read_nodes (FULL_NODES, &error);
  pods = nodes ? sim_openb_read_pods (path, &error) : NULL;
  ck_assert_msg (pods != NULL, "%s", error ? error->message : "");
  config.policies = sim_fgd_paper_policies;
  config.n_policies = 6;
  config.n_seeds = 10;
  config.first_seed = 1;
  config.stop_share = 1.3;
  config.sample_step = 0.01;
  r = sim_fgd_experiment_run (nodes, pods, &config, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  text = sim_fgd_result_format_against_paper (r, list);
  ck_assert_ptr_nonnull (text);
  for (guint p = 0; p < r->n_policies; p++)
    for (guint k = 0; k < G_N_ELEMENTS (points); k++)
      {
        const char *policy = r->summaries[p].policy;
        double ref = 0, ours = NAN;
        for (guint i = 0; i < r->n_points; i++)
          if (fabs (r->points[i] - points[k]) < 1e-9)
            ours = r->summaries[p].allocated[i].mean;
        ck_assert (sim_fgd_paper_reference (list, policy, points[k], &ref));
        ck_assert_msg (fabs (ours - ref) <= 0.01, "%s list, %s at %g%%: %.2f%% against the "
                       "paper's %.2f%%\n%s", list, policy, 100 * points[k], 100 * ours,
                       100 * ref, text);
      }
  for (guint a = 0; a < r->n_policies; a++)
    for (guint b = 0; b < r->n_policies; b++)
      {
        double ra, rb;
        const guint last = r->n_points - 1;
        sim_fgd_paper_reference (list, r->summaries[a].policy, 1.30, &ra);
        sim_fgd_paper_reference (list, r->summaries[b].policy, 1.30, &rb);
        if (ra < rb)
          ck_assert_msg (r->summaries[a].allocated[last].mean
                         < r->summaries[b].allocated[last].mean,
                         "%s list: %s ranks above %s, unlike the paper\n%s", list,
                         r->summaries[a].policy, r->summaries[b].policy, text);
      }
  ck_assert (strstr (text, "ranking at 130%: as in the paper") != NULL);
}
END_TEST

static Suite *
openb_suite (void)
{
  Suite *s = suite_create ("openb");
  TCase *readers = tcase_create ("readers");
  TCase *workload = tcase_create ("workload");
  TCase *experiment = tcase_create ("experiment");
  TCase *full = tcase_create ("full-trace");

  tcase_add_checked_fixture (readers, setup, teardown);
  tcase_add_test (readers, test_read_nodes_excerpt);
  tcase_add_test (readers, test_read_pods_excerpt);
  tcase_add_test (readers, test_gpu_spec_and_models);
  tcase_add_loop_test (readers, test_malformed, 0, G_N_ELEMENTS (bad_files));
  tcase_add_test (readers, test_missing_file);
  suite_add_tcase (s, readers);

  tcase_add_checked_fixture (workload, setup, teardown);
  tcase_add_test (workload, test_workload_excerpt);
  tcase_add_test (workload, test_workload_options_and_errors);
  suite_add_tcase (s, workload);

  tcase_add_checked_fixture (experiment, setup, teardown);
  tcase_add_test (experiment, test_hand_fractional);
  tcase_add_test (experiment, test_hand_cpu_limit);
  tcase_add_test (experiment, test_hand_gpu_spec);
  tcase_add_test (experiment, test_bad_config);
  tcase_add_test (experiment, test_paper_ties_by_name);
  tcase_add_test (experiment, test_paper_ties_prefixed);
  tcase_add_test (experiment, test_paper_packing);
  tcase_add_test (experiment, test_paper_clustering);
  tcase_add_test (experiment, test_paper_dot_product_best_fit);
  tcase_add_test (experiment, test_paper_fgd_gpu_choice);
  tcase_add_test (experiment, test_paper_fragmentation_models);
  tcase_add_test (experiment, test_paper_random);
  tcase_add_test (experiment, test_paper_sequence);
  tcase_add_test (experiment, test_five_columns);
  tcase_add_test (experiment, test_paper_bad_input);
  tcase_add_test (experiment, test_paper_reference);
  tcase_add_test (experiment, test_excerpt_invariants);
  tcase_add_test (experiment, test_excerpt_determinism);
  tcase_add_test (experiment, test_excerpt_determinism_paper);
  tcase_add_test (experiment, test_csv_atomic);
  suite_add_tcase (s, experiment);

  tcase_set_timeout (full, 300);
  tcase_add_test (full, test_full_trace);
  tcase_add_loop_test (full, test_paper_figures, 0, G_N_ELEMENTS (reference_lists));
  suite_add_tcase (s, full);
  return s;
}

int
main (void)
{
  SRunner *runner = srunner_create (openb_suite ());
  int failed;

  srunner_run_all (runner, CK_NORMAL);
  failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed == 0 ? 0 : 1;
}
