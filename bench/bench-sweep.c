/* bench-sweep: what the sweep machinery costs and what threads and MPI give.
 *
 * The sweep: the quick-start scenario (16 DGX H100 nodes, two weeks) with
 * one axis, scenario.seed = 1..N (1,000 by default), so every point is one
 * ordinary quick-start run on its own seed and points cost alike.
 *
 * It prints:
 *  - a bare loop: each run loaded, built and run by hand, one after the
 *    other (no plan, no executor), and the same split over two threads:
 *    the speed-up two threads can get on this machine at this moment (it
 *    may be shared);
 *  - the sweep on one thread (sim_sweep_run(), -j 1), and the per-point
 *    overhead of the machinery: (sweep - bare) / points;
 *  - the same with a SQLite database (--db): one transaction per run;
 *  - the sweep on two threads (-j 2), and the speed-up over one thread,
 *    with a check that both print the same summary;
 *  - with MPI (built --with-mpi): `mpirun -n 2 gpusim sweep` against
 *    `gpusim sweep -j 2` (both as child processes, the same work on two
 *    cores), and mpirun's own start-up (`mpirun -n 2 true`).
 * Wall times from g_get_monotonic_time(); the machine may be shared, so
 * the CPU time of this process is printed beside each in-process figure,
 * and the overheads are given on CPU time too (steadier when another
 * program takes the cores).
 * The figures are printed, never judged.
 *
 *   bench-sweep [--points N]
 */
#include "config.h"

#include <sim.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
         (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double
now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

static void
die (GError *error)
{
  fprintf (stderr, "bench-sweep: %s\n", error ? error->message : "failed");
  exit (1);
}

/* Runs the sweep on N_THREADS, optionally with a database; returns the
 * wall seconds and the summary in *TABLE. */
static double
time_sweep (SimSweep *sweep, guint n_threads, const char *db, char **table, double *cpu)
{
  g_autoptr(SimExecutor) executor = sim_thread_executor_new (n_threads);
  g_autoptr(SimPlanResults) results = NULL;
  GError *error = NULL;
  double t0 = now (), c0 = cpu_seconds (), t;

  results = sim_sweep_run (sweep, executor, NULL, 0, db, NULL, &error);
  if (results == NULL || !sim_plan_results_check (results, &error))
    die (error);
  t = now () - t0;
  *cpu = cpu_seconds () - c0;
  *table = sim_sweep_format_table (sweep, results);
  return t;
}

typedef struct {
  const char *path;
  guint       first, last, step;
} Slice;

/* Seeds FIRST, FIRST + STEP, ... up to LAST, loaded, built and run by hand. */
static gpointer
bare_runs (gpointer data)
{
  Slice *slice = data;
  GError *error = NULL;

  for (guint s = slice->first; s <= slice->last; s += slice->step)
    {
      g_autofree char *set = g_strdup_printf ("scenario.seed=%u", s);
      const char *sets[] = { set, NULL };
      g_autoptr(SimScenario) sc = sim_scenario_load (slice->path, sets, &error);
      g_autoptr(SimSimulation) sim = NULL;
      if (sc == NULL || (sim = sim_simulation_new (sc, &error)) == NULL ||
          !sim_simulation_run (sim, &error))
        die (error);
    }
  return NULL;
}

#ifdef SIM_MPIRUN
static double
time_command (char **argv)
{
  GError *error = NULL;
  int status;
  double t0 = now ();

  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    die (error);
  return now () - t0;
}
#endif

#define SWEEP_USAGE \
  "usage: bench-sweep [--points N]\n" \
  "  what the sweep machinery costs on N points (default 1,000), against a bare loop,\n" \
  "  and what two threads, a database and MPI (when built with it) give\n"

int
main (int argc, char **argv)
{
  guint points = 1000;
  g_autofree char *quick = NULL, *text = NULL, *dir = NULL, *path = NULL, *db = NULL;
  g_autofree char *table1 = NULL, *table2 = NULL, *table_db = NULL;
  g_autoptr(SimSweep) sweep = NULL;
  GError *error = NULL;
  double bare, bare_cpu, t1, c1, t2, c2, tdb, cdb;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--points") == 0 && i + 1 < argc)
      points = (guint) strtoul (argv[++i], NULL, 10);
    else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      {
        fputs (SWEEP_USAGE, stdout);
        return 0;
      }
    else
      {
        fprintf (stderr, "bench-sweep: %s: unknown option, or its value missing\n%s", argv[i],
                 SWEEP_USAGE);
        return 2;
      }
  if (points < 2)
    points = 2;

  if (!g_file_get_contents (SIM_TOP_SRCDIR "/scenarios/quickstart.ini", &quick, NULL, &error))
    die (error);
  dir = g_dir_make_tmp ("bench-sweep-XXXXXX", &error);
  if (dir == NULL)
    die (error);
  path = g_build_filename (dir, "sweep.ini", NULL);
  db = g_build_filename (dir, "sweep.db", NULL);
  text = g_strdup_printf ("%s\n[sweep]\nscenario.seed = 1..%u\nseeds = 1\n", quick, points);
  if (!g_file_set_contents (path, text, -1, &error))
    die (error);

  printf ("bench-sweep: %u points of the quick-start scenario (one seed each), %u processors\n\n",
          points, g_get_num_processors ());

  /* The bare loop. */
  {
    Slice all = { path, 1, points, 1 };
    double t0 = now (), c0 = cpu_seconds ();
    bare_runs (&all);
    bare = now () - t0;
    bare_cpu = cpu_seconds () - c0;
  }
  printf ("  bare loop, one after another   %8.2f s wall %8.2f s CPU   %7.2f ms a run\n", bare,
          bare_cpu, 1e3 * bare / points);

  /* What two threads get on this machine now, without the sweep: the
   * bare loop split over two threads (odd and even seeds). */
  {
    Slice odd = { path, 1, points, 2 }, even = { path, 2, points, 2 };
    double t0 = now (), t;
    GThread *a = g_thread_new ("bare", bare_runs, &odd);
    GThread *b = g_thread_new ("bare", bare_runs, &even);
    g_thread_join (a);
    g_thread_join (b);
    t = now () - t0;
    printf ("  bare loop on two threads       %8.2f s wall                   speed-up %.2f x: "
            "what two threads get here now\n", t, bare / t);
  }

  {
    double t0 = now ();
    sweep = sim_sweep_new (path, NULL, &error);
    if (sweep == NULL)
      die (error);
    printf ("  reading the sweep file         %8.3f s\n", now () - t0);
  }
  t1 = time_sweep (sweep, 1, NULL, &table1, &c1);
  printf ("  sweep -j 1                     %8.2f s wall %8.2f s CPU   overhead %+.3f ms a point "
          "(CPU %+.3f)\n", t1, c1, 1e3 * (t1 - bare) / points, 1e3 * (c1 - bare_cpu) / points);
  tdb = time_sweep (sweep, 1, db, &table_db, &cdb);
  printf ("  sweep -j 1 --db                %8.2f s wall %8.2f s CPU   overhead %+.3f ms a point "
          "(CPU %+.3f)\n", tdb, cdb, 1e3 * (tdb - bare) / points, 1e3 * (cdb - bare_cpu) / points);
  t2 = time_sweep (sweep, 2, NULL, &table2, &c2);
  printf ("  sweep -j 2                     %8.2f s wall %8.2f s CPU   speed-up %.2f x over -j 1\n",
          t2, c2, t1 / t2);
  printf ("  -j 1, -j 1 --db and -j 2 print the same summary: %s\n",
          strcmp (table1, table2) == 0 && strcmp (table1, table_db) == 0 ? "yes" : "NO");

#ifdef SIM_MPIRUN
  {
    char *gpusim = SIM_TOP_BUILDDIR "/tools/gpusim";
    char *threads[] = { gpusim, "sweep", path, "-j", "2", "-q", NULL };
    char *mpi[] = { SIM_MPIRUN, "--oversubscribe", "--allow-run-as-root", "-n", "2", gpusim,
                    "sweep", path, "-q", NULL };
    char *startup[] = { SIM_MPIRUN, "--oversubscribe", "--allow-run-as-root", "-n", "2", "true",
                        NULL };
    double tt = time_command (threads);
    double tm = time_command (mpi);
    double ts = time_command (startup);
    printf ("\n  gpusim sweep -j 2 (a process)  %8.2f s wall\n", tt);
    printf ("  mpirun -n 2 gpusim sweep       %8.2f s wall   overhead %+.2f s (%+.1f %%), "
            "%+.3f ms a point\n", tm, tm - tt, 100 * (tm - tt) / tt, 1e3 * (tm - tt) / points);
    printf ("  mpirun -n 2 true (start-up)    %8.2f s wall\n", ts);
  }
#else
  printf ("\n  MPI: not built (./configure --with-mpi)\n");
#endif

  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (dir, name, NULL);
        g_unlink (p);
      }
    g_rmdir (dir);
  }
  return 0;
}
