/* bench-scale: how the cost of a simulated week grows with the cluster.
 *
 * Clusters of DGX H100 nodes (1,024, 10,240, 102,400 and 307,200 GPUs) under a
 * synthetic load of about 80 % of their GPUs for 7 simulated days, FIFO
 * with first-fit placement, once without a network model and once on a
 * three-tier fat-tree with every job communicating (data-parallel
 * gradients each iteration): of Quantum-2 switches up to 65,536 GPUs, of
 * Quantum-X800 switches beyond (NETWORK below says why).  Then many jobs on 1,024 GPUs
 * (100,000 by default, a million with --jobs 1000000), without and with the
 * network.  The job mix (below) asks for 5.8 GPU-hours per job on average,
 * so the arrival rate is 0.137 jobs per hour
 * per GPU: about 23,000 jobs a week per 1,024 GPUs.
 *
 * Each case runs in a child process so that its peak memory (getrusage()'s
 * maximum resident set of that child) is its own; each prints the jobs
 * completed, the events handled, the mean job completion time (to see that
 * a faster build gives the same results), the wall time, events per second,
 * wall time per job, the CPU time (steadier than the wall time on a shared
 * machine), the peak memory and, for a case with the network, its CPU time over that of
 * the same cluster without it ("x none", the figure the machine's drifts
 * of speed move least).  A case that runs past the wall-time limit is stopped and
 * says how far into the week it got.  The figures are printed, never
 * judged: this program fails only if a scenario is refused.
 *
 * The network runs at each oversubscription of the leaves asked for (1:1
 * and 2:1 by default): at 2:1 the leaves' up links join thousands of flows
 * into one component, which is what the max-min solver's solves confined
 * to what changed are for.  With --solver both, each network case runs
 * twice in a row, its max-min solves by connected components (how the
 * solver worked before) and then confined to what changed, so that the
 * two are compared on the same machine at the same time.
 *
 * With --repeat N, each size runs N rounds, each round the case without the
 * network and then every network case, and after the rounds a line per
 * network case gives the median of its N ratios, each against the case
 * without the network of its own round (the machine's speed drifts from
 * minute to minute: a ratio of two runs side by side moves less, and
 * the median of several less still).
 *
 *   bench-scale [--max-gpus N] [--gpus N] [--jobs N] [--limit SECONDS] [--no-network]
 *               [--oversub LIST] [--solver region|components|both] [--repeat N]
 *               [--placement NAME] [--topology KIND]
 *
 *   --max-gpus N   the largest cluster to run (default 10240; 102400 adds the
 *                  100k case, 307200 the 300k one)
 *   --gpus N       only the cluster of N GPUs (1024, 10240, 102400 or 307200)
 *   --jobs N       jobs of the many-jobs run on 1,024 GPUs (default 100000;
 *                  0 skips it)
 *   --limit S      wall seconds after which a case is stopped (default 600)
 *   --no-network   the cases without the network only
 *   --oversub L    comma-separated oversubscriptions of the network's leaves,
 *                  each at least 1 (default 1,2)
 *   --solver S     how the max-min solver re-solves: region (what changed,
 *                  the default), components (as before), or both
 *   --repeat N     rounds of each size (1 to 20, default 1), and the median
 *                  ratios after them
 *   --placement P  the placement (default first-fit); topology-aware, which
 *                  needs the network, places the cases without it first fit
 *   --topology K   the network's kind (default fat-tree-3), e.g.
 *                  rail-optimized-3 or dragonfly; a fabric the switches cannot
 *                  build at a size fails that case with the builder's message
 */
#include "config.h"

#include "bench-args.h"

#include <sim.h>
#include "core/sim-maxmin-private.h"
#include "core/sim-util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Mean GPU-hours per job of the classes below: sum over classes of share x
 * mean GPUs x mean hours, with a log-normal's mean median x exp(sigma^2/2). */
#define JOB_MIX \
  "[class small]\nshare = 0.5\ngpus = 1:0.5, 8:0.5\n" \
  "duration = lognormal(median=20min, sigma=1.0)\n%s" \
  "[class medium]\nshare = 0.4\ngpus = 16:0.5, 32:0.5\n" \
  "duration = lognormal(median=10min, sigma=0.8)\n%s" \
  "[class large]\nshare = 0.1\ngpus = 64:0.6, 128:0.4\n" \
  "duration = lognormal(median=13min, sigma=0.6)\n%s"

/* Each class's communication, with the network only. */
static const char * const comm[] = {
  "iteration = 300ms\ngradient = 500MB\noverlap = 0.5\n",
  "iteration = 800ms\ngradient = 4GB\noverlap = 0.5\n",
  "iteration = 1500ms\ngradient = 14GB\ntensor_parallel = 8\ntp_bytes = 2GB\noverlap = 0.4\n",
};

/* A three-tier fat-tree of k-port switches reaches k^3 / 4 NICs: 65,536
 * for the 64 ports of a Quantum-2, fewer than the 102,400 NICs of 100k
 * DGX H100 GPUs (a NIC per GPU); the 144 ports of a Quantum-X800 reach
 * 746,496. */
#define NETWORK "[fabric]\ntopology = %s\nswitch = %s\noversubscription = %g\n"
#define QUANTUM2_MAX_NICS 65536

static const char *
switch_for (guint gpus)
{
  return gpus <= QUANTUM2_MAX_NICS ? "Quantum-2-QM9700" : "Quantum-X800-Q3400";
}

#define WEEK (7 * 24 * 3600.0)

/* --placement, and whether it needs the network (the cases without one then
 * place first fit). */
static const char *placement = "first-fit";

/* --topology */
static const char *topology = "fat-tree-3";

static const char *
placement_for (gboolean network)
{
  return network || strcmp (placement, "topology-aware") != 0 ? placement : "first-fit";
}

typedef struct {
  guint    gpus;
  guint64  jobs;      /* 0: a week of arrivals; else this many jobs, no horizon */
  gboolean network;
  double   oversub;   /* of the network's leaves */
  gboolean components; /* max-min solves by components, as before */
} Case;

static double
mix_gpu_hours (void)
{
  double small = 0.5 * (0.5 * 1 + 0.5 * 8) * (20 / 60.0) * exp (0.5);
  double medium = 0.4 * (0.5 * 16 + 0.5 * 32) * (10 / 60.0) * exp (0.32);
  double large = 0.1 * (0.6 * 64 + 0.4 * 128) * (13 / 60.0) * exp (0.18);
  return small + medium + large;
}

static char *
scenario_text (const Case *c)
{
  /* 80 % of the GPUs busy: arrivals per hour = 0.8 x GPUs / GPU-hours per job. */
  double rate = 0.8 * c->gpus / mix_gpu_hours ();
  g_autofree char *limit = c->jobs > 0
                           ? g_strdup_printf ("jobs = %" G_GUINT64_FORMAT "\n", c->jobs)
                           : g_strdup ("");
  g_autofree char *network = g_strdup_printf (NETWORK, topology, switch_for (c->gpus), c->oversub);

  return g_strdup_printf ("[scenario]\nname = scale\nseed = 1\n%s"
                          "[pool h100]\nmodel = DGX-H100\ncount = %u\n"
                          "[workload]\nsource = synthetic\nrate = %.3f/h\n%s"
                          JOB_MIX
                          "[policy]\nqueue = fifo\nplacement = %s\n%s",
                          c->jobs > 0 ? "" : "horizon = 7d\n", c->gpus / 8, rate, limit,
                          c->network ? comm[0] : "", c->network ? comm[1] : "",
                          c->network ? comm[2] : "", placement_for (c->network),
                          c->network ? network : "");
}

/* The fabric, its oversubscription and how its solver re-solves. */
static char *
fabric_name (const Case *c)
{
  if (!c->network)
    return g_strdup ("none");
  return g_strdup_printf ("%s %g:1 %s", c->gpus <= QUANTUM2_MAX_NICS ? "QM9700" : "Q3400",
                          c->oversub, c->components ? "comp" : "region");
}

static double
value (SimReport *r, const char *name)
{
  double v = 0;
  sim_report_get_value (r, name, &v);
  return v;
}

/* run_case()'s status for a case stopped at the wall-time limit. */
#define STOPPED 3

/* Runs @c in this process and prints its line, without the memory column. */
static int
run_case (const Case *c, double limit)
{
  g_autofree char *text = scenario_text (c);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "bench-scale", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;
  g_autofree char *fabric = fabric_name (c);
  gint64 t0;
  double wall;
  SimReport *r;

  /* (In the child: the switch is made before any solver exists.) */
  sim__maxmin_set_full_default (c->components);
  if (sc == NULL || (sim = sim_simulation_new (sc, &error)) == NULL)
    {
      fprintf (stderr, "bench-scale: %s\n", error->message);
      return 1;
    }
  t0 = g_get_monotonic_time ();
  /* A simulated hour at a time, so that a slow case can be stopped. */
  while (!sim_simulation_is_finished (sim))
    {
      SimTime next = sim_simulation_get_now (sim) + sim_time_from_seconds (3600);
      if (!sim_simulation_run_until (sim, next, &error))
        {
          fprintf (stderr, "bench-scale: %s\n", error->message);
          return 1;
        }
      if ((g_get_monotonic_time () - t0) / 1e6 > limit && !sim_simulation_is_finished (sim))
        {
          double done = sim_time_to_seconds (sim_simulation_get_now (sim));
          printf ("%8u %-20s %10s %11s %12s %9.1f  stopped at %.1f %% of the week",
                  c->gpus, fabric, "-", "-", "-",
                  (g_get_monotonic_time () - t0) / 1e6, 100 * done / WEEK);
          return STOPPED;
        }
    }
  if (!sim_simulation_run (sim, &error))
    {
      fprintf (stderr, "bench-scale: %s\n", error->message);
      return 1;
    }
  wall = (g_get_monotonic_time () - t0) / 1e6;
  r = sim_simulation_get_report (sim);
  printf ("%8u %-20s %10.0f %11.0f %12.1f %9.2f %10.0f %8.1f", c->gpus,
          fabric, value (r, "jobs_completed"), value (r, "events"),
          value (r, "jct_mean"), wall, value (r, "events") / MAX (wall, 1e-9),
          1e6 * wall / MAX (1.0, value (r, "jobs_completed")));
  return 0;
}

/* Runs @c in a child process; prints its line, the child's CPU time and
 * peak memory, and, given @none (the CPU seconds of the same cluster
 * without the network, > 0), how many times that its CPU time is.  Sets
 * *@cpu to its CPU seconds (0 when it failed or was stopped). */
static int
fork_case (const Case *c, double limit, double none, double *cpu)
{
  struct rusage ru;
  int status = 0;
  pid_t pid;

  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    {
      perror ("bench-scale: fork");
      return 1;
    }
  if (pid == 0)
    {
      int rc = run_case (c, limit);
      fflush (stdout);
      _exit (rc);
    }
  if (wait4 (pid, &status, 0, &ru) < 0)
    {
      perror ("bench-scale: wait4");
      return 1;
    }
  *cpu = 0;
  if (!WIFEXITED (status) || (WEXITSTATUS (status) != 0 && WEXITSTATUS (status) != STOPPED))
    {
      printf ("\n");
      return 1;
    }
  /* Linux gives ru_maxrss in kilobytes.  The child's CPU time (user and
   * system) next to the wall time, which other work on the machine
   * inflates; and against the case without the network, run just before
   * on the same machine, which is steadier than either when the machine's
   * speed drifts. */
  *cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec
         + ru.ru_stime.tv_usec / 1e6;
  printf (" %8.2f %9.0f", *cpu, ru.ru_maxrss / 1024.0);
  if (none > 0 && WEXITSTATUS (status) == 0)
    printf (" %9.1f", *cpu / none);
  if (WEXITSTATUS (status) == STOPPED)
    *cpu = 0;
  printf ("\n");
  return 0;
}

/* The cases of one size, @rounds times: without the network, then with
 * it at each oversubscription, by each solver asked for; then, given more
 * than one round, each network case's median ratio to the case without
 * the network of the same round (over the rounds in which both ran to the
 * end). */
static int
run_size (guint gpus, guint64 jobs, gboolean network, const double *oversubs, guint n_oversubs,
          const gboolean *solvers, guint n_solvers, double limit, guint rounds)
{
  guint n_cases = network ? n_oversubs * n_solvers : 0;
  g_autofree double *ratios = g_new0 (double, MAX (n_cases * rounds, 1));
  g_autofree guint *n_ratios = g_new0 (guint, MAX (n_cases, 1));
  int rc = 0;

  for (guint round = 0; round < rounds; round++)
    {
      Case c = { gpus, jobs, FALSE, 1, FALSE };
      double none = 0, cpu = 0;
      rc |= fork_case (&c, limit, 0, &none);
      for (guint o = 0; network && o < n_oversubs; o++)
        for (guint k = 0; k < n_solvers; k++)
          {
            guint i = o * n_solvers + k;
            c = (Case) { gpus, jobs, TRUE, oversubs[o], solvers[k] };
            rc |= fork_case (&c, limit, none, &cpu);
            if (none > 0 && cpu > 0)
              ratios[i * rounds + n_ratios[i]++] = cpu / none;
          }
    }
  for (guint i = 0; rounds > 1 && i < n_cases; i++)
    {
      double *r = &ratios[i * rounds];
      guint n = n_ratios[i];
      if (n == 0)
        continue;
      qsort (r, n, sizeof (double), bench_compare_doubles);
      printf ("%8u %g:1 %-16s median x none over %u rounds %.1f (from %.1f to %.1f)\n", gpus,
              oversubs[i / n_solvers], solvers[i % n_solvers] ? "components" : "region", n,
              n % 2 == 1 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2, r[0], r[n - 1]);
    }
  return rc;
}

#define SCALE_USAGE \
  "usage: bench-scale [--max-gpus N] [--gpus N] [--jobs N] [--limit SECONDS] [--no-network]\n" \
  "                   [--oversub LIST] [--solver region|components|both] [--repeat N]\n" \
  "                   [--placement NAME] [--topology KIND]\n" \
  "  a week at 80 % load on 1,024 GPUs and up (each size ten times the last, to --max-gpus,\n" \
  "  or --gpus alone), with and without the network, and --jobs N jobs on 1,024 GPUs\n"

int
main (int argc, char **argv)
{
  guint max_gpus = 10240, only = 0;
  guint64 many = 100000;
  double limit = 600;
  gboolean network = TRUE;
  const guint sizes[] = { 1024, 10240, 102400, 307200 };
  double oversubs[8] = { 1, 2 };
  guint n_oversubs = 2;
  gboolean solvers[2] = { FALSE };   /* components? for each run of a network case */
  guint n_solvers = 1, rounds = 1;
  int rc = 0;

  /* As gpusim's run starts (sim__prefer_huge_pages()). */
  sim__prefer_huge_pages (argv);
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--max-gpus") == 0 && i + 1 < argc)
        {
          max_gpus = (guint) bench_whole ("bench-scale", argv[i], argv[i + 1], 1024, 307200);
          i++;
        }
      else if (strcmp (argv[i], "--gpus") == 0 && i + 1 < argc)
        {
          only = (guint) bench_whole ("bench-scale", argv[i], argv[i + 1], 1024, 307200);
          i++;
        }
      else if (strcmp (argv[i], "--jobs") == 0 && i + 1 < argc)
        {
          many = bench_whole ("bench-scale", argv[i], argv[i + 1], 0, 100000000);
          i++;
        }
      else if (strcmp (argv[i], "--limit") == 0 && i + 1 < argc)
        {
          limit = bench_number ("bench-scale", argv[i], argv[i + 1], 1, 86400);
          i++;
        }
      else if (strcmp (argv[i], "--no-network") == 0)
        network = FALSE;
      else if (strcmp (argv[i], "--oversub") == 0 && i + 1 < argc)
        {
          g_auto(GStrv) parts = g_strsplit (argv[++i], ",", -1);
          n_oversubs = 0;
          for (guint k = 0; parts[k] != NULL; k++)
            {
              char *end = NULL;
              double r = g_ascii_strtod (parts[k], &end);
              if (end == parts[k] || *end != '\0' || !(r >= 1 && r <= 64)
                  || n_oversubs == G_N_ELEMENTS (oversubs))
                {
                  fprintf (stderr, "bench-scale: --oversub %s: expected up to %u numbers "
                           "from 1 to 64 separated by commas (\"1,2\")\n", argv[i],
                           (guint) G_N_ELEMENTS (oversubs));
                  return 2;
                }
              oversubs[n_oversubs++] = r;
            }
        }
      else if (strcmp (argv[i], "--repeat") == 0 && i + 1 < argc)
        {
          rounds = (guint) bench_whole ("bench-scale", argv[i], argv[i + 1], 1, 20);
          i++;
        }
      else if (strcmp (argv[i], "--solver") == 0 && i + 1 < argc)
        {
          const char *v = argv[++i];
          if (strcmp (v, "region") == 0 || strcmp (v, "components") == 0)
            {
              solvers[0] = v[0] == 'c';
              n_solvers = 1;
            }
          else if (strcmp (v, "both") == 0)
            {
              solvers[0] = TRUE;
              solvers[1] = FALSE;
              n_solvers = 2;
            }
          else
            {
              fprintf (stderr, "bench-scale: --solver %s: expected region, components or both\n",
                       v);
              return 2;
            }
        }
      else if (strcmp (argv[i], "--placement") == 0 && i + 1 < argc)
        {
          g_autoptr(GPtrArray) known = sim_policy_list_placements ();
          gboolean found = FALSE;
          placement = argv[++i];
          for (guint k = 0; k < known->len && !found; k++)
            found = strcmp (known->pdata[k], placement) == 0;
          if (!found)
            {
              GString *names = g_string_new (NULL);
              for (guint k = 0; k < known->len; k++)
                g_string_append_printf (names, "%s%s", k > 0 ? ", " : "",
                                        (const char *) known->pdata[k]);
              fprintf (stderr, "bench-scale: --placement %s: expected one of %s\n", placement,
                       names->str);
              g_string_free (names, TRUE);
              return 2;
            }
        }
      else if (strcmp (argv[i], "--topology") == 0 && i + 1 < argc)
        {
          SimFabricKind kind;
          topology = argv[++i];
          if (!sim_fabric_kind_from_string (topology, &kind, NULL) || kind == SIM_FABRIC_NONE)
            {
              fprintf (stderr, "bench-scale: --topology %s: expected a network: single-switch, "
                       "fat-tree, fat-tree-3, rail-optimized, rail-optimized-3 or dragonfly\n",
                       topology);
              return 2;
            }
        }
      else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          fputs (SCALE_USAGE, stdout);
          return 0;
        }
      else
        {
          fprintf (stderr, "bench-scale: %s: unknown option, or its value missing\n%s", argv[i],
                   SCALE_USAGE);
          return 2;
        }
    }
  if (only != 0 && only != sizes[0] && only != sizes[1] && only != sizes[2] && only != sizes[3])
    {
      fprintf (stderr, "bench-scale: --gpus %u: expected 1024, 10240, 102400 or 307200\n",
               only);
      return 2;
    }
  printf ("bench-scale: DGX H100, FIFO %s%s, %.1f GPU-hours per job at 80 %% load; "
          "network: %s of Quantum-2 (QM9700, 64 ports), of Quantum-X800 (Q3400, 144 "
          "ports) past 65,536 GPUs, every job communicating\n\n", placement,
          strcmp (placement_for (FALSE), placement) != 0 ? " (first-fit without the network)" : "",
          mix_gpu_hours (), topology);
  printf ("%8s %-20s %10s %11s %12s %9s %10s %8s %8s %9s %9s\n", "GPUs", "fabric", "jobs",
          "events", "JCT mean s", "wall s", "events/s", "us/job", "CPU s", "peak MB", "x none");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    if (only != 0 ? sizes[s] == only : sizes[s] <= max_gpus)
      rc |= run_size (sizes[s], 0, network, oversubs, n_oversubs, solvers, n_solvers, limit,
                      rounds);
  if (many > 0)
    {
      printf ("\n%" G_GUINT64_FORMAT " jobs on 1,024 GPUs:\n", many);
      rc |= run_size (1024, many, network, oversubs, n_oversubs, solvers, n_solvers, limit,
                      rounds);
    }
  return rc;
}
