/* check-comm.c: training jobs that communicate, in whole simulations.
 *
 * What it checks:
 *  - a lone data-parallel job's completion time follows its iteration
 *    time: compute plus the all-reduce time the collectives model gives for
 *    the same GPUs on the same fabric (computed independently here), less
 *    the overlapped part;
 *  - contention: two jobs whose all-reduces cross the same oversubscribed
 *    leaf uplinks run slower together than alone, each at the rate the
 *    max-min shares of both jobs' flows predict, and a third job inside one
 *    leaf is unaffected;
 *  - demand-aware sharing: two jobs whose average demands fit an uplink
 *    are not slowed, two that do not are slowed to the max-min shares
 *    with demands (by hand), a job alone is the same under both modes;
 *  - phases (bursts): a job alone ends as under demand-aware sharing; two
 *    jobs' long-run mean iteration agrees with it above capacity and well
 *    below, and shows the slowdown of colliding bursts near capacity,
 *    bounded by that of bursts always colliding;
 *  - the overlap hides data-parallel traffic, not tensor-parallel;
 *  - a job on one GPU, or without a profile, is not slowed;
 *  - without a [fabric], communication profiles are refused with a clear
 *    message;
 *  - latency: a job pays its collectives' latency every iteration (a TCP
 *    stack's 20 us per message against the verbs' 0.7 us, equal bandwidth,
 *    costs iterations x 2 steps x the difference, computed by hand), and
 *    every [fabric] latency key lengthens it by what it adds to the route.
 * What it does not check: the collectives model itself (check-collective
 * does, against nccl-tests figures).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include <string.h>
#include "check-tree.h"

static char *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("check-comm-XXXXXX", NULL);
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

typedef struct {
  SimTime start[8], end[8];
} Times;

static void
record (SimSimulation *sim, const SimJob *job, gpointer data)
{
  Times *t = data;
  if (job->spec.id >= 8)
    return;
  if (job->state == SIM_JOB_RUNNING)
    t->start[job->spec.id] = job->start;
  else if (job->state == SIM_JOB_DONE)
    t->end[job->spec.id] = job->end;
}

/* Runs TRACE (SWF lines) on NODES DGX-H100 with FABRIC, every job with the
 * profile: 1 s compute per iteration, GRADIENT all-reduced, OVERLAP hidden. */
static SimSimulation *
run (const char *trace, guint nodes, const char *fabric, const char *gradient, double overlap,
     Times *times)
{
  g_autofree char *path = g_build_filename (tmpdir, "jobs.swf", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  SimSimulation *sim;

  ck_assert (g_file_set_contents (path, trace, -1, NULL));
  text = g_strdup_printf ("[scenario]\nname = comm\n"
                          "[pool p]\nmodel = DGX-H100\ncount = %u\n"
                          "[fabric]\n%s\n"
                          "[workload]\nsource = swf\ntrace = %s\n"
                          "[comm train]\niteration = 1s\ngradient = %s\noverlap = %g\n",
                          nodes, fabric, path, gradient, overlap);
  sc = sim_scenario_load_from_data (text, -1, "comm.ini", tmpdir, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim_simulation_set_job_observer (sim, record, times, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  return sim;
}

/* The all-reduce time of BYTES over GPUS on a fresh model of the same
 * cluster and fabric, with OTHERS (arrays of GPU lists) registered too. */
static double
allreduce_time (SimSimulation *sim, const char *fabric_kind, guint64 bytes, const guint32 *gpus,
                guint n, const guint32 *other, guint n_other)
{
  g_autoptr(GError) error = NULL;
  const SimCluster *cluster = sim_simulation_get_cluster (sim);
  g_autoptr(SimCatalogue) cat = sim_catalogue_new_default (NULL, &error);
  SimFabricConfig cfg = { 0 };
  g_autoptr(SimTopology) topo = NULL;
  g_autoptr(SimCommModel) model = NULL;
  SimCollectiveTiming t;
  guint id;

  ck_assert (sim_fabric_config_set (&cfg, "topology", fabric_kind, &error));
  ck_assert (sim_fabric_config_set (&cfg, "switch", "Quantum-2-QM9700", &error));
  if (strcmp (fabric_kind, "fat-tree") == 0)
    {
      ck_assert (sim_fabric_config_set (&cfg, "radix", "24", &error));
      ck_assert (sim_fabric_config_set (&cfg, "oversubscription", "2", &error));
    }
  topo = sim_topology_new (cluster, cat, &cfg, &error);
  ck_assert_msg (topo != NULL, "%s", error ? error->message : "");
  model = sim_comm_model_new (topo, cluster);
  /* In the order the simulation starts them: GPUS first, so that its
   * algorithm is chosen as it was, on an idle network. */
  id = sim_comm_model_add (model, SIM_COLLECTIVE_ALL_REDUCE, SIM_COLLECTIVE_ALGO_AUTO, bytes,
                           gpus, n, &error);
  ck_assert_msg (id > 0, "%s", error ? error->message : "");
  if (other != NULL)
    ck_assert (sim_comm_model_add (model, SIM_COLLECTIVE_ALL_REDUCE, SIM_COLLECTIVE_ALGO_AUTO, bytes,
                                   other, n_other, &error) > 0);
  ck_assert (sim_comm_model_estimate (model, id, bytes, &t));
  sim_fabric_config_clear (&cfg);
  return t.time;
}

/* One 16-GPU job (two nodes) alone on one switch, 1000 s of compute, 1 s
 * iterations, 10 GB of gradients, 25 % overlap.  Its end follows
 * 1000 s x (1 + comm - hidden) / 1 with comm from the model. */
START_TEST (test_lone_job)
{
  Times t = { 0 };
  g_autoptr(SimSimulation) sim =
    run ("1 0 -1 1000 16 -1 -1 16 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n", 2, "topology = single-switch\nswitch = Quantum-2-QM9700",
         "10GB", 0.25, &t);
  guint32 gpus[16];
  double comm, iter, expected;

  for (guint i = 0; i < 16; i++)
    gpus[i] = i;
  comm = allreduce_time (sim, "single-switch", 10000000000ull, gpus, 16, NULL, 0);
  ck_assert_double_gt (comm, 0.01);
  iter = 1.0 + comm - MIN (0.25 * comm, 1.0);
  expected = 1000.0 * iter;
  ck_assert_int_eq (t.start[1], 0);
  ck_assert_msg (fabs (sim_time_to_seconds (t.end[1]) - expected) < 1e-6,
                 "end %.9f s, expected %.9f s (comm %.6f s)", sim_time_to_seconds (t.end[1]),
                 expected, comm);
}
END_TEST

/* Nodes of 8 GPUs on a 2:1 fat-tree of radix 24: 16 down ports (two
 * nodes) and 8 up per leaf.  Job 1 (24 GPUs) takes nodes 0-2 (leaves 0 and
 * 1), job 2 (24 GPUs) nodes 3-5 (leaves 1 and 2): both cross leaf 1's
 * uplinks.  Job 3 (16 GPUs) takes nodes 6-7, one leaf: no uplink.
 *
 * The prediction, made here on a separate model of the same fabric: while
 * both run, each job's iteration is 1 s plus its all-reduce time with the
 * other's flows sharing the links (rates r1, r2); when the first ends (at
 * W / max(r1, r2)), the other continues at its lone rate.  Job 1's end
 * must match that to a millisecond, and be later than if it ran alone;
 * job 3's must match its lone time exactly. */
START_TEST (test_contention)
{
  const char *fabric = "topology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 24\n"
                       "oversubscription = 2\nsharing = always-on";
  const char *j1 = "1 0 -1 2000 24 -1 -1 24 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  const char *j2 = "2 0 -1 2000 24 -1 -1 24 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  const char *j3 = "3 0 -1 2000 16 -1 -1 16 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  g_autofree char *all = g_strconcat (j1, j2, j3, NULL);
  Times both = { 0 }, alone1 = { 0 };
  g_autoptr(SimSimulation) sim = run (all, 8, fabric, "20GB", 0, &both);
  g_autoptr(SimSimulation) sim1 = run (j1, 8, fabric, "20GB", 0, &alone1);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) cat = sim_catalogue_new_default (NULL, &error);
  SimFabricConfig cfg = { 0 };
  g_autoptr(SimTopology) topo = NULL;
  g_autoptr(SimCommModel) model = NULL;
  const SimCluster *cluster = sim_simulation_get_cluster (sim);
  const guint64 bytes = 20000000000ull;
  const double work = 2000;
  guint32 g1[24], g2[24], g3[16];
  guint id1, id2, id3;
  SimCollectiveTiming t1, t2, t3, t_alone;
  double r1, r2, t_first, expected1, lone1;

  for (guint i = 0; i < 24; i++)
    {
      g1[i] = i;
      g2[i] = 24 + i;
    }
  for (guint i = 0; i < 16; i++)
    g3[i] = 48 + i;
  ck_assert (sim_fabric_config_set (&cfg, "topology", "fat-tree", &error));
  ck_assert (sim_fabric_config_set (&cfg, "switch", "Quantum-2-QM9700", &error));
  ck_assert (sim_fabric_config_set (&cfg, "radix", "24", &error));
  ck_assert (sim_fabric_config_set (&cfg, "oversubscription", "2", &error));
  topo = sim_topology_new (cluster, cat, &cfg, &error);
  ck_assert_msg (topo != NULL, "%s", error ? error->message : "");
  model = sim_comm_model_new (topo, cluster);
  /* Registered in the order the simulation starts the jobs. */
  id1 = sim_comm_model_add (model, SIM_COLLECTIVE_ALL_REDUCE, SIM_COLLECTIVE_ALGO_AUTO, bytes, g1,
                            24, &error);
  ck_assert (sim_comm_model_estimate (model, id1, bytes, &t_alone));
  id2 = sim_comm_model_add (model, SIM_COLLECTIVE_ALL_REDUCE, SIM_COLLECTIVE_ALGO_AUTO, bytes, g2,
                            24, &error);
  id3 = sim_comm_model_add (model, SIM_COLLECTIVE_ALL_REDUCE, SIM_COLLECTIVE_ALGO_AUTO, bytes, g3,
                            16, &error);
  ck_assert (id1 > 0 && id2 > 0 && id3 > 0);
  ck_assert (sim_comm_model_estimate (model, id1, bytes, &t1));
  ck_assert (sim_comm_model_estimate (model, id2, bytes, &t2));
  ck_assert (sim_comm_model_estimate (model, id3, bytes, &t3));
  ck_assert_double_gt (t1.time, t_alone.time * 1.05);
  r1 = 1 / (1 + t1.time);
  r2 = 1 / (1 + t2.time);
  t_first = work / MAX (r1, r2);
  if (r1 >= r2)
    expected1 = t_first;
  else
    {
      SimCollectiveTiming after;
      ck_assert (sim_comm_model_remove (model, id2));
      ck_assert (sim_comm_model_estimate (model, id1, bytes, &after));
      expected1 = t_first + (work - r1 * t_first) * (1 + after.time);
    }
  ck_assert_msg (fabs (sim_time_to_seconds (both.end[1]) - expected1) < 1e-3,
                 "job 1 ends at %.6f s; predicted %.6f s", sim_time_to_seconds (both.end[1]),
                 expected1);
  lone1 = work * (1 + t_alone.time);
  ck_assert_msg (fabs (sim_time_to_seconds (alone1.end[1]) - lone1) < 1e-3,
                 "job 1 alone ends at %.6f s; predicted %.6f s",
                 sim_time_to_seconds (alone1.end[1]), lone1);
  ck_assert_double_gt (sim_time_to_seconds (both.end[1]), lone1 + 1);
  /* Job 3 stays inside one leaf: the others do not touch its links. */
  ck_assert_double_eq_tol (t3.time, allreduce_time (sim, "fat-tree", bytes, g3, 16, NULL, 0),
                           1e-12);
  ck_assert_msg (fabs (sim_time_to_seconds (both.end[3]) - work * (1 + t3.time)) < 1e-3,
                 "job 3 ends at %.6f s; predicted %.6f s", sim_time_to_seconds (both.end[3]),
                 work * (1 + t3.time));
  sim_fabric_config_clear (&cfg);
}
END_TEST

/* The contention fixture above (jobs 1 and 2, 24 GPUs each on three
 * nodes, both crossing leaf 1's eight uplinks), with demand-aware sharing.
 * Each job's all-reduce is a ring of 8 channels (one per NIC), each edge
 * between two nodes carrying 2(n-1)/n x S / 8 = 23/96 S bytes per
 * iteration, and D-mod-K puts two such flows, one per job, on each uplink
 * of leaf 1 and each downlink into it (the shares halve under always-on).
 * An uplink carries C = 400 Gb/s x 0.95 (IB-NDR's efficiency) = 47.5 GB/s.
 *
 * Below capacity (20 GB, no overlap): each job's iteration alone is about
 * 1.1 s, so each flow asks 23/96 x 20 GB / 1.1 s = 4.4 GB/s, and the two
 * ask 8.7 GB/s of 47.5: neither job is slowed; it ends exactly when it
 * ends alone (job 2 beside a job on nodes 0-2 that leaves after a second,
 * so that it starts on the same algorithm as beside job 1: the choice of
 * algorithm weighs the load there is when a job starts).  Always-on sharing
 * slows both (the key's direction). */
START_TEST (test_demand_below_capacity)
{
  const char *fabric = "topology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 24\n"
                       "oversubscription = 2";
  const char *always = "topology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 24\n"
                       "oversubscription = 2\nsharing = always-on";
  const char *j1 = "1 0 -1 2000 24 -1 -1 24 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  const char *j2 = "2 0 -1 2000 24 -1 -1 24 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  g_autofree char *all = g_strconcat (j1, j2, NULL);
  g_autofree char *pad2 = g_strconcat ("9 0 -1 1 24 -1 -1 24 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n", j2,
                                       NULL);
  Times both = { 0 }, on = { 0 }, alone1 = { 0 }, alone1_on = { 0 }, alone2 = { 0 };
  g_autoptr(SimSimulation) s1 = run (all, 8, fabric, "20GB", 0, &both);
  g_autoptr(SimSimulation) s5 = run (pad2, 8, fabric, "20GB", 0, &alone2);
  g_autoptr(SimSimulation) s2 = run (all, 8, always, "20GB", 0, &on);
  g_autoptr(SimSimulation) s3 = run (j1, 8, fabric, "20GB", 0, &alone1);
  g_autoptr(SimSimulation) s4 = run (j1, 8, always, "20GB", 0, &alone1_on);
  double lone = sim_time_to_seconds (alone1.end[1]);

  /* A job alone: the same end under either sharing, to the nanosecond. */
  ck_assert_int_eq (alone1.end[1], alone1_on.end[1]);
  /* Demand below capacity: not slowed at all. */
  ck_assert_int_eq (both.end[1], alone1.end[1]);
  ck_assert_int_eq (both.end[2], alone2.end[2]);
  /* Always-on: both slowed, by more than a second. */
  ck_assert_double_gt (sim_time_to_seconds (on.end[1]), lone + 1);
  ck_assert_double_gt (sim_time_to_seconds (on.end[2]), lone + 1);
  ck_assert_double_gt (lone, 2000 * 1.05);
}
END_TEST

/* Runs TRACE on NODES DGX-H100 with FABRIC, every job with the [comm]
 * PROFILE (keys, one a line). */
static SimSimulation *
run_profile (const char *trace, guint nodes, const char *fabric, const char *profile,
             Times *times)
{
  g_autofree char *path = g_build_filename (tmpdir, "jobs.swf", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  SimSimulation *sim;

  ck_assert (g_file_set_contents (path, trace, -1, NULL));
  text = g_strdup_printf ("[scenario]\nname = comm\n"
                          "[pool p]\nmodel = DGX-H100\ncount = %u\n"
                          "[fabric]\n%s\n"
                          "[workload]\nsource = swf\ntrace = %s\n"
                          "[comm train]\n%s\n",
                          nodes, fabric, path, profile);
  sc = sim_scenario_load_from_data (text, -1, "comm.ini", tmpdir, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim_simulation_set_job_observer (sim, record, times, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  return sim;
}

/* Above capacity, by hand.  On the fabric above, job 3 (8 GPUs, no
 * network traffic) takes node 0; jobs 1 and 2 (16 GPUs each) take nodes
 * 1-2 (leaves 0 and 1) and 3-4 (leaves 1 and 2).  Each is a 2-stage
 * pipeline of one node per stage (no data or tensor traffic): 100 GB per
 * iteration between GPU d of the two stages, each way (NCCL's send/recv of
 * a pair).  Job 1's node 2 sends to node 1 and job 2's node 3 to node 4,
 * both up leaf 1: D-mod-K puts one flow of each job on each of its eight
 * uplinks (C = 400 Gb/s x 0.95 = 47.5 GB/s).  Alone, a flow moves 100 GB in
 * 100 / 47.5 = 2.105 s, and with 1 s of compute and no overlap an
 * iteration takes 3.105 s: each flow asks 100 / 3.105 = 32.2 GB/s, and two
 * ask 64.4 GB/s of 47.5.  Max-min with those demands gives each 23.75 GB/s
 * (both ask more than half): each job's iterations stretch until its
 * bytes fit, T = 100 / 23.75 = 4.2105 s, where each flow asks exactly its
 * share.  Both run 2,000 iterations side by side and end at 2,000 T =
 * 8,421.05 s.  Always-on sharing holds the halved share for the whole
 * iteration, compute included: 1 + 4.2105 s. */
START_TEST (test_demand_above_capacity)
{
  const char *fabric = "topology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 24\n"
                       "oversubscription = 2";
  const char *always = "topology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 24\n"
                       "oversubscription = 2\nsharing = always-on";
  const char *profile = "iteration = 1s\ngradient = 0B\npipeline_parallel = 2\n"
                        "pp_bytes = 100GB\noverlap = 0";
  const char *j3 = "3 0 -1 90000 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  const char *j1 = "1 0 -1 2000 16 -1 -1 16 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  const char *j2 = "2 0 -1 2000 16 -1 -1 16 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  g_autofree char *all = g_strconcat (j3, j1, j2, NULL);
  g_autofree char *one = g_strconcat (j3, j1, NULL);
  Times both = { 0 }, on = { 0 }, alone1 = { 0 };
  g_autoptr(SimSimulation) s1 = run_profile (all, 8, fabric, profile, &both);
  g_autoptr(SimSimulation) s2 = run_profile (all, 8, always, profile, &on);
  g_autoptr(SimSimulation) s3 = run_profile (one, 8, fabric, profile, &alone1);
  const double c = 400e9 / 8 * 0.95, bytes = 100e9;
  const double t_alone = 1 + bytes / c, t_both = bytes / (c / 2);

  /* Alone: compute plus 2.105 s and the pair's latency (microseconds). */
  ck_assert_double_eq_tol (sim_time_to_seconds (alone1.end[1]) / 2000, t_alone, 1e-4);
  ck_assert_double_eq_tol (sim_time_to_seconds (both.end[1]) / 2000, t_both, 1e-6);
  ck_assert_double_eq_tol (sim_time_to_seconds (both.end[2]) / 2000, t_both, 1e-6);
  ck_assert_double_eq_tol (sim_time_to_seconds (on.end[1]) / 2000, 1 + t_both, 1e-4);
}
END_TEST

/* Phases against demand-aware sharing, on the above-capacity fixture
 * (jobs 1 and 2, 2-stage pipelines crossing leaf 1's uplinks, C = 47.5
 * GB/s a flow; 1 s of compute, no overlap), 2,000 iterations each, so
 * the end over 2,000 is the long-run mean iteration:
 *  - 100 GB a send (D = 2.105 s alone, T0 = 3.105 s; the two ask 136 % of
 *    C): whichever job communicates, the uplinks are busy, as in the
 *    demand-aware mode, which gives T = 100 GB / (C / 2) = 4.2105 s; the
 *    phases agree within 0.01 % (1e-5 here: the mean is a sample of 64
 *    iterations of the bursts' pattern).  That holds for the offsets these
 *    two jobs start at (both at once, offsets by id); jobs of equal
 *    iteration time fall into a pattern their offsets set, and from
 *    others their compute phases can coincide while the uplinks idle
 *    (check-seams: 6.3 % slower), so this is where the two modes agree,
 *    not a bound;
 *  - 20 GB (D = 0.42 s, T0 = 1.42 s, 59 % of C together): the bursts
 *    interleave (each fits in the other's compute) and neither job is
 *    slowed, as in the demand-aware mode: equal within 0.01 %;
 *  - 40 GB (D = 0.84 s, T0 = 1.84 s, 92 % of C together): below capacity on
 *    average, so the demand-aware mode slows neither, but a 0.84 s burst
 *    leaves 0.16 s of slack in the other's 1 s of compute, and from the
 *    offsets the jobs start at their bursts partly coincide and share the
 *    uplinks: the phases show a slowdown the mean-field
 *    mode cannot (here 7.5 %), which must stay between 0 and the 29 %
 *    of two bursts always colliding (T = 1 + 2 D = 2.684 s, over T0); the
 *    two jobs, alike, are slowed alike. */
START_TEST (test_phases_against_demand)
{
  const char *base = "topology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 24\n"
                     "oversubscription = 2";
  g_autofree char *phases = g_strconcat (base, "\nsharing = phases", NULL);
  const char *bytes[] = { "100GB", "20GB", "40GB" };
  const char *j3 = "3 0 -1 90000 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  const char *j1 = "1 0 -1 2000 16 -1 -1 16 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  const char *j2 = "2 0 -1 2000 16 -1 -1 16 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  g_autofree char *all = g_strconcat (j3, j1, j2, NULL);

  for (guint b = 0; b < G_N_ELEMENTS (bytes); b++)
    {
      g_autofree char *profile =
        g_strdup_printf ("iteration = 1s\ngradient = 0B\npipeline_parallel = 2\n"
                         "pp_bytes = %s\noverlap = 0", bytes[b]);
      Times d = { 0 }, p = { 0 };
      g_autoptr(SimSimulation) s1 = run_profile (all, 8, base, profile, &d);
      g_autoptr(SimSimulation) s2 = run_profile (all, 8, phases, profile, &p);
      for (guint j = 1; j <= 2; j++)
        {
          double demand = sim_time_to_seconds (d.end[j]) / 2000;
          double burst = sim_time_to_seconds (p.end[j]) / 2000;
          if (b < 2)
            ck_assert_double_eq_tol (burst / demand, 1, 1e-4);
          else
            {
              double both_on = 1 + 2 * (demand - 1);
              ck_assert_double_gt (burst, demand * 1.01);
              ck_assert_double_lt (burst, both_on);
              ck_assert_double_eq_tol (burst, sim_time_to_seconds (p.end[1]) / 2000, 1e-6);
            }
        }
    }
}
END_TEST

/* A job alone under phases: its bursts meet no one, and it ends exactly
 * when it ends under demand-aware sharing (to the nanosecond), on the
 * above-capacity fixture's job 1 and on a data-parallel job with overlap
 * (the overlap shortens the compute phase, not the burst). */
START_TEST (test_phases_lone_job)
{
  const char *base = "topology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 24\n"
                     "oversubscription = 2";
  g_autofree char *phases = g_strconcat (base, "\nsharing = phases", NULL);
  const char *profiles[] = { "iteration = 1s\ngradient = 0B\npipeline_parallel = 2\n"
                             "pp_bytes = 100GB\noverlap = 0",
                             "iteration = 1s\ngradient = 20GB\noverlap = 0.5" };
  const char *one = "3 0 -1 90000 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                    "1 0 -1 2000 16 -1 -1 16 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";

  for (guint i = 0; i < G_N_ELEMENTS (profiles); i++)
    {
      Times d = { 0 }, p = { 0 };
      g_autoptr(SimSimulation) s1 = run_profile (one, 8, base, profiles[i], &d);
      g_autoptr(SimSimulation) s2 = run_profile (one, 8, phases, profiles[i], &p);
      ck_assert_int_eq (p.end[1], d.end[1]);
      ck_assert_double_gt (sim_time_to_seconds (d.end[1]), 2000 * 1.02);
    }
}
END_TEST

/* Max-min with demands, by hand, on the collectives model: on the
 * fixture above, the eight pairs (node 2 GPU d, node 1 GPU d) of one job
 * and (node 3 GPU d, node 4 GPU d) of another send up leaf 1, one flow of
 * each on each of its eight uplinks (C = 47.5 GB/s).  A light job asking
 * 10 GB/s per pair gets it (the other cannot take what it does not need);
 * a heavy one asking 40 GB/s gets the rest, 37.5 GB/s, short by 40 / 37.5.
 * Both asking 40 GB/s: each gets 23.75, short by 40 / 23.75.  Uncapped,
 * nobody is short.  A send/recv flow carries its whole message, so its
 * demand is the message rate. */
START_TEST (test_maxmin_with_demands)
{
  const char *fabric = "topology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 24\n"
                       "oversubscription = 2";
  Times t = { 0 };
  g_autoptr(SimSimulation) sim = run ("1 0 -1 1 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n", 8,
                                      fabric, "1GB", 0, &t);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) cat = sim_catalogue_new_default (NULL, &error);
  const SimCluster *cluster = sim_simulation_get_cluster (sim);
  SimFabricConfig cfg = { 0 };
  g_autoptr(SimTopology) topo = NULL;
  g_autoptr(SimCommModel) model = NULL;
  guint heavy[8], light[8];
  const double c = 47.5e9;

  ck_assert (sim_fabric_config_set (&cfg, "topology", "fat-tree", &error));
  ck_assert (sim_fabric_config_set (&cfg, "switch", "Quantum-2-QM9700", &error));
  ck_assert (sim_fabric_config_set (&cfg, "radix", "24", &error));
  ck_assert (sim_fabric_config_set (&cfg, "oversubscription", "2", &error));
  topo = sim_topology_new (cluster, cat, &cfg, &error);
  ck_assert_msg (topo != NULL, "%s", error ? error->message : "");
  model = sim_comm_model_new (topo, cluster);
  for (guint d = 0; d < 8; d++)
    {
      guint32 a[2] = { 8 + d, 16 + d }, b[2] = { 24 + d, 32 + d };
      heavy[d] = sim_comm_model_add (model, SIM_COLLECTIVE_SEND_RECV, SIM_COLLECTIVE_ALGO_AUTO,
                                     1000000000, a, 2, &error);
      light[d] = sim_comm_model_add (model, SIM_COLLECTIVE_SEND_RECV, SIM_COLLECTIVE_ALGO_AUTO,
                                     1000000000, b, 2, &error);
      ck_assert (heavy[d] > 0 && light[d] > 0);
      ck_assert_int_eq (sim_comm_model_get_algo (model, heavy[d]), SIM_COLLECTIVE_ALGO_DIRECT);
    }
  for (guint d = 0; d < 8; d++)
    ck_assert_double_eq (sim_comm_model_get_shortfall (model, heavy[d]), 1);
  for (guint d = 0; d < 8; d++)
    {
      ck_assert (sim_comm_model_set_demand (model, heavy[d], 40e9));
      ck_assert (sim_comm_model_set_demand (model, light[d], 10e9));
    }
  for (guint d = 0; d < 8; d++)
    {
      ck_assert_double_eq_tol (sim_comm_model_get_shortfall (model, light[d]), 1, 1e-12);
      ck_assert_double_eq_tol (sim_comm_model_get_shortfall (model, heavy[d]), 40e9 / (c - 10e9),
                               1e-9);
    }
  for (guint d = 0; d < 8; d++)
    ck_assert (sim_comm_model_set_demand (model, light[d], 40e9));
  for (guint d = 0; d < 8; d++)
    {
      ck_assert_double_eq_tol (sim_comm_model_get_shortfall (model, light[d]), 40e9 / (c / 2),
                               1e-9);
      ck_assert_double_eq_tol (sim_comm_model_get_shortfall (model, heavy[d]), 40e9 / (c / 2),
                               1e-9);
    }
  /* No limit again: nobody is short. */
  for (guint d = 0; d < 8; d++)
    ck_assert (sim_comm_model_set_demand (model, heavy[d], INFINITY));
  ck_assert_double_eq (sim_comm_model_get_shortfall (model, heavy[0]), 1);
  ck_assert (!sim_comm_model_set_demand (model, 999999, 1e9));
  ck_assert_double_eq (sim_comm_model_get_shortfall (model, 999999), 1);
  sim_fabric_config_clear (&cfg);
}
END_TEST

/* The overlap hides data-parallel gradients only.  One 16-GPU job on two
 * nodes of a single switch, 1 s of compute per iteration, overlap 1: as
 * data parallelism (10 GB of gradients), its all-reduce (about 50 ms) hides
 * entirely behind compute and it ends at 2,000 s; as 16-way tensor
 * parallelism (the same 10 GB all-reduce over the same GPUs, tp_bytes),
 * compute waits for it every iteration: 2,000 x (1 s + its time).  Under
 * both sharing modes (a job alone). */
START_TEST (test_overlap_data_parallel_only)
{
  const char *fabrics[] = { "topology = single-switch\nswitch = Quantum-2-QM9700",
                            "topology = single-switch\nswitch = Quantum-2-QM9700\n"
                            "sharing = always-on" };
  const char *job = "1 0 -1 2000 16 -1 -1 16 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  guint32 gpus[16];

  for (guint i = 0; i < 16; i++)
    gpus[i] = i;
  for (guint f = 0; f < G_N_ELEMENTS (fabrics); f++)
    {
      Times dp = { 0 }, tp = { 0 };
      g_autoptr(SimSimulation) s1 =
        run_profile (job, 2, fabrics[f], "iteration = 1s\ngradient = 10GB\noverlap = 1", &dp);
      g_autoptr(SimSimulation) s2 =
        run_profile (job, 2, fabrics[f], "iteration = 1s\ngradient = 0B\n"
                     "tensor_parallel = 16\ntp_bytes = 10GB\noverlap = 1", &tp);
      double t = allreduce_time (s2, "single-switch", 10000000000ull, gpus, 16, NULL, 0);

      ck_assert_double_gt (t, 0.01);
      ck_assert_double_lt (t, 0.5);
      ck_assert_int_eq (dp.end[1], 2000 * SIM_SECOND);
      ck_assert_msg (fabs (sim_time_to_seconds (tp.end[1]) - 2000 * (1 + t)) < 1e-6,
                     "tensor-parallel job ends at %.9f s, expected %.9f s",
                     sim_time_to_seconds (tp.end[1]), 2000 * (1 + t));
    }
}
END_TEST

/* A 1-GPU job with a profile has nothing to exchange: it ends on time. */
START_TEST (test_single_gpu_not_slowed)
{
  Times t = { 0 };
  g_autoptr(SimSimulation) sim =
    run ("1 0 -1 500 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n", 1, "topology = single-switch\nswitch = Quantum-2-QM9700",
         "10GB", 0, &t);
  ck_assert_int_eq (t.end[1], 500 * SIM_SECOND);
}
END_TEST

/* The end of one 16-GPU job (two DGX-H100) with 100 s of compute in 1 ms
 * iterations (100,000 of them), each all-reducing 8 KB with no overlap,
 * on FABRIC, with the catalogue directory MODELS added (or none). */
static double
latency_job_end (const char *fabric, const char *models)
{
  g_autofree char *path = g_build_filename (tmpdir, "lat.swf", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  Times t = { 0 };

  ck_assert (g_file_set_contents (path, "1 0 -1 100 16 -1 -1 16 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n",
                                  -1, NULL));
  text = g_strdup_printf ("[scenario]\nname = latency\n%s%s\n"
                          "[pool p]\nmodel = DGX-H100\ncount = 2\n"
                          "[fabric]\n%s\n"
                          "[workload]\nsource = swf\ntrace = %s\n"
                          "[comm sync]\niteration = 1ms\ngradient = 8KB\noverlap = 0\n",
                          models ? "models = " : "", models ? models : "", fabric, path);
  sc = sim_scenario_load_from_data (text, -1, "latency.ini", tmpdir, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim_simulation_set_job_observer (sim, record, &t, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert_int_eq (t.start[1], 0);
  return sim_time_to_seconds (t.end[1]);
}

/* A job pays the network's latency every iteration.  The same job on
 * InfiniBand NDR, and on the same fabric with a TCP stack's 20 us per
 * message instead of the verbs' 0.7 us (equal bandwidth): each 8 B-class
 * all-reduce over two nodes crosses the network twice (LL, whichever
 * algorithm), so each iteration takes 2 x (20 - 0.7) = 38.6 us longer, and
 * the job 100,000 x 38.6 us = 3.86 s longer.  By hand, not from the model. */
START_TEST (test_latency_every_iteration)
{
  double ib = latency_job_end ("topology = single-switch\nswitch = Quantum-2-QM9700", NULL);
  double tcp = latency_job_end ("topology = single-switch\nswitch = Quantum-2-QM9700\n"
                                "transport_latency = 20us", NULL);

  ck_assert_msg (ib > 100.0 * 1.02, "IB: %.3f s, no communication time?", ib);
  ck_assert_msg (fabs ((tcp - ib) - 100000 * 2 * 19.3e-6) < 1e-3,
                 "TCP latency costs %.4f s, expected 3.86 s (IB %.4f s, TCP %.4f s)",
                 tcp - ib, ib, tcp);
}
END_TEST

/* Every latency key makes the job longer, by 100,000 iterations x 2
 * network steps x what the key adds to the route between the nodes (a
 * fat-tree of radix 16 puts each node on its own leaf, so the route climbs
 * to a spine: 2 NICs, 2 access and 2 leaf-spine cables, 3 switches). */
START_TEST (test_latency_keys_slow_jobs)
{
  static const struct {
    const char *line;
    double      route_s;
  } cases[] = {
    { "transport_latency = 5us", 5e-6 - 0.7e-6 },
    { "switch_latency = 1us", 3 * 850e-9 },
    { "link_latency = 500ns", 4 * 400e-9 },
    { "access_cable_length = 20m", 2 * 100e-9 },
    { "cable_length = 200m", 2 * 1000e-9 },
  };
  const char *base = "topology = fat-tree\nswitch = Quantum-2-QM9700\nradix = 16";
  double end0 = latency_job_end (base, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *fabric = g_strdup_printf ("%s\n%s", base, cases[i].line);
      double end = latency_job_end (fabric, NULL);
      double want = 100000 * 2 * cases[i].route_s;

      ck_assert_msg (end > end0 && fabs ((end - end0) - want) < 1e-3 * want + 1e-6,
                     "%s: the job ends %.6f s later, expected %.6f s", cases[i].line,
                     end - end0, want);
    }
}
END_TEST

/* Writes into a new directory DIR a copy of the catalogue file FILE
 * (models/...) with KEY = VALUE in place of KEY's line, or added after
 * the name if it has none. */
static void
override_model (const char *dir, const char *file, const char *key, const char *value)
{
  g_autofree char *src = g_build_filename (SIM_TOP_SRCDIR, "models", file, NULL);
  g_autofree char *dst = g_build_filename (dir, "override.ini", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_auto(GStrv) lines = NULL;
  g_autofree char *prefix = g_strdup_printf ("%s = ", key);
  g_autofree char *line_start = NULL;
  gboolean done;

  ck_assert (g_mkdir_with_parents (dir, 0755) == 0);
  ck_assert_msg (g_file_get_contents (src, &text, NULL, NULL), "cannot read %s", src);
  line_start = g_strdup_printf ("\n%s", prefix);
  done = strstr (text, line_start) != NULL;   /* replace it where it is */
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], prefix))
        {
          g_string_append_printf (out, "%s%s\n", prefix, value);
          continue;
        }
      g_string_append_printf (out, "%s\n", lines[i]);
      if (!done && g_str_has_prefix (lines[i], "name = "))
        {
          g_string_append_printf (out, "%s%s\n", prefix, value);
          done = TRUE;
        }
    }
  ck_assert (g_file_set_contents (dst, out->str, -1, NULL));
}

/* The catalogue's latency keys, set in a scenario's models directory: the
 * link latency of the network (IB-NDR), its transport latency, a switch's
 * port-to-port latency (Quantum-2), and inside the node NVLink's per-hop
 * latency, the NVSwitch's and PCIe's (the GPU's hop to its NIC).  Each
 * makes the 8 KB all-reduce job longer, by 100,000 iterations x (2 network
 * steps x what it adds to the route between the nodes, or 14 steps inside
 * the nodes x what the route inside a node gains beyond NCCL's 0.6 us
 * NVLink step): an 8 KB all-reduce over 16 GPUs takes 2 (8 - 1) = 14
 * intra-node steps in the hierarchical and the tree algorithms alike.
 * Single switch: a route between nodes has 2 PCIe hops, 2 IB cables, 1
 * switch, 2 NICs; inside a node 2 NVLink hops and the NVSwitch. */
START_TEST (test_catalogue_latency_keys_slow_jobs)
{
  static const struct {
    const char *file, *key, *value;
    double      added;   /* seconds per iteration */
  } cases[] = {
    { "links/ib-ndr.ini", "latency", "1us", 2 * 2 * 900e-9 },
    { "links/ib-ndr.ini", "transport_latency", "10us", 2 * (10e-6 - 0.7e-6) },
    { "switches/quantum-2-qm9700.ini", "latency", "1us", 2 * 850e-9 },
    { "links/pcie-gen5.ini", "latency", "1us", 2 * 2 * 700e-9 },
    { "links/nvlink4.ini", "latency", "1us", 14 * (2e-6 - 0.6e-6) },
    { "switches/nvswitch-gen3.ini", "latency", "500ns", 14 * 500e-9 },
  };
  const char *fabric = "topology = single-switch\nswitch = Quantum-2-QM9700";
  double end0 = latency_job_end (fabric, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = g_build_filename (tmpdir, "models", NULL);
      double end, want = 100000 * cases[i].added;

      override_model (dir, cases[i].file, cases[i].key, cases[i].value);
      end = latency_job_end (fabric, "models");
      check_remove_tree (dir);
      ck_assert_msg (end > end0 && fabs ((end - end0) - want) < 1e-3 * want + 1e-6,
                     "%s %s = %s: the job ends %.6f s later, expected %.6f s", cases[i].file,
                     cases[i].key, cases[i].value, end - end0, want);
    }
}
END_TEST

START_TEST (test_needs_fabric)
{
  const char *text = "[scenario]\nname = x\nhorizon = 1d\n[pool p]\nmodel = DGX-H100\ncount = 2\n"
                     "[workload]\nrate = 1/h\ngpus = 8\nduration = constant(1h)\n"
                     "iteration = 1s\ngradient = 1GB\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "nofab.ini", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_ptr_null (sim);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_MISSING));
  ck_assert_msg (strstr (error->message, "no [fabric] section") != NULL, "%s", error->message);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("comm");
  TCase *tc = tcase_create ("jobs");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_phases_against_demand);
  tcase_add_test (tc, test_phases_lone_job);
  tcase_add_test (tc, test_lone_job);
  tcase_add_test (tc, test_contention);
  tcase_add_test (tc, test_demand_below_capacity);
  tcase_add_test (tc, test_demand_above_capacity);
  tcase_add_test (tc, test_overlap_data_parallel_only);
  tcase_add_test (tc, test_maxmin_with_demands);
  tcase_add_test (tc, test_single_gpu_not_slowed);
  tcase_add_test (tc, test_needs_fabric);
  tcase_add_test (tc, test_latency_every_iteration);
  tcase_add_test (tc, test_latency_keys_slow_jobs);
  tcase_add_test (tc, test_catalogue_latency_keys_slow_jobs);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
