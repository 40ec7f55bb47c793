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
 * machine) and the peak memory.  A case that runs past the wall-time limit is stopped and
 * says how far into the week it got.  The figures are printed, never
 * judged: this program fails only if a scenario is refused.
 *
 *   bench-scale [--max-gpus N] [--gpus N] [--jobs N] [--limit SECONDS] [--no-network]
 *
 *   --max-gpus N   the largest cluster to run (default 10240; 102400 adds the
 *                  100k case, 307200 the 300k one)
 *   --gpus N       only the cluster of N GPUs (1024, 10240, 102400 or 307200)
 *   --jobs N       jobs of the many-jobs run on 1,024 GPUs (default 100000;
 *                  0 skips it)
 *   --limit S      wall seconds after which a case is stopped (default 600)
 *   --no-network   the cases without the network only
 */
#include "config.h"

#include <sim.h>
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
#define NETWORK "[fabric]\ntopology = fat-tree-3\nswitch = %s\n"
#define QUANTUM2_MAX_NICS 65536

static const char *
switch_for (guint gpus)
{
  return gpus <= QUANTUM2_MAX_NICS ? "Quantum-2-QM9700" : "Quantum-X800-Q3400";
}

#define WEEK (7 * 24 * 3600.0)

typedef struct {
  guint    gpus;
  guint64  jobs;      /* 0: a week of arrivals; else this many jobs, no horizon */
  gboolean network;
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
  g_autofree char *network = g_strdup_printf (NETWORK, switch_for (c->gpus));

  return g_strdup_printf ("[scenario]\nname = scale\nseed = 1\n%s"
                          "[pool h100]\nmodel = DGX-H100\ncount = %u\n"
                          "[workload]\nsource = synthetic\nrate = %.3f/h\n%s"
                          JOB_MIX
                          "[policy]\nqueue = fifo\nplacement = first-fit\n%s",
                          c->jobs > 0 ? "" : "horizon = 7d\n", c->gpus / 8, rate, limit,
                          c->network ? comm[0] : "", c->network ? comm[1] : "",
                          c->network ? comm[2] : "", c->network ? network : "");
}

static const char *
fabric_name (const Case *c)
{
  if (!c->network)
    return "none";
  return c->gpus <= QUANTUM2_MAX_NICS ? "QM9700" : "Q3400";
}

static double
value (SimReport *r, const char *name)
{
  double v = 0;
  sim_report_get_value (r, name, &v);
  return v;
}

/* Runs @c in this process and prints its line, without the memory column. */
static int
run_case (const Case *c, double limit)
{
  g_autofree char *text = scenario_text (c);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "bench-scale", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;
  gint64 t0;
  double wall;
  SimReport *r;

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
          printf ("%8u %-8s %10s %11s %12s %9.1f  stopped at %.1f %% of the week",
                  c->gpus, fabric_name (c), "-", "-", "-",
                  (g_get_monotonic_time () - t0) / 1e6, 100 * done / WEEK);
          return 0;
        }
    }
  if (!sim_simulation_run (sim, &error))
    {
      fprintf (stderr, "bench-scale: %s\n", error->message);
      return 1;
    }
  wall = (g_get_monotonic_time () - t0) / 1e6;
  r = sim_simulation_get_report (sim);
  printf ("%8u %-8s %10.0f %11.0f %12.1f %9.2f %10.0f %8.1f", c->gpus,
          fabric_name (c), value (r, "jobs_completed"), value (r, "events"),
          value (r, "jct_mean"), wall, value (r, "events") / MAX (wall, 1e-9),
          1e6 * wall / MAX (1.0, value (r, "jobs_completed")));
  return 0;
}

/* Runs @c in a child process; prints its line and the child's peak memory. */
static int
fork_case (const Case *c, double limit)
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
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      printf ("\n");
      return 1;
    }
  /* Linux gives ru_maxrss in kilobytes.  The child's CPU time (user and
   * system) next to the wall time, which other work on the machine inflates. */
  printf (" %8.2f %9.0f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
          + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss / 1024.0);
  return 0;
}

int
main (int argc, char **argv)
{
  guint max_gpus = 10240, only = 0;
  guint64 many = 100000;
  double limit = 600;
  gboolean network = TRUE;
  const guint sizes[] = { 1024, 10240, 102400, 307200 };
  int rc = 0;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--max-gpus") == 0 && i + 1 < argc)
        max_gpus = (guint) g_ascii_strtoull (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--gpus") == 0 && i + 1 < argc)
        only = (guint) g_ascii_strtoull (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--jobs") == 0 && i + 1 < argc)
        many = g_ascii_strtoull (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--limit") == 0 && i + 1 < argc)
        limit = g_ascii_strtod (argv[++i], NULL);
      else if (strcmp (argv[i], "--no-network") == 0)
        network = FALSE;
      else
        {
          fprintf (stderr, "usage: bench-scale [--max-gpus N] [--gpus N] [--jobs N] "
                   "[--limit SECONDS] [--no-network]\n");
          return 2;
        }
    }
  if (only != 0 && only != sizes[0] && only != sizes[1] && only != sizes[2] && only != sizes[3])
    {
      fprintf (stderr, "bench-scale: --gpus %u: expected 1024, 10240, 102400 or 307200\n",
               only);
      return 2;
    }
  printf ("bench-scale: DGX H100, FIFO first-fit, %.1f GPU-hours per job at 80 %% load; "
          "network: 3-tier fat-tree of Quantum-2 (QM9700, 64 ports), of Quantum-X800 (Q3400, 144 "
          "ports) past 65,536 GPUs, every job communicating\n\n",
          mix_gpu_hours ());
  printf ("%8s %-8s %10s %11s %12s %9s %10s %8s %8s %9s\n", "GPUs", "fabric", "jobs", "events",
          "JCT mean s", "wall s", "events/s", "us/job", "CPU s", "peak MB");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (int net = 0; net <= (network ? 1 : 0); net++)
      if (only != 0 ? sizes[s] == only : sizes[s] <= max_gpus)
        {
          Case c = { sizes[s], 0, net };
          rc |= fork_case (&c, limit);
        }
  if (many > 0)
    {
      printf ("\n%" G_GUINT64_FORMAT " jobs on 1,024 GPUs:\n", many);
      for (int net = 0; net <= (network ? 1 : 0); net++)
        {
          Case c = { 1024, many, net };
          rc |= fork_case (&c, limit);
        }
    }
  return rc;
}
