/* bench-easy: the October 2017 month of Microsoft Philly jobs (47,192
 * jobs) replayed on 64 DGX A100 (512 GPUs), where the queue grows to
 * thousands of jobs, under FIFO and under EASY backfilling.  Prints the
 * wall time of each (the fastest of its runs, loading not counted) and
 * EASY's over FIFO's, both the fastest runs' and the median of the ratios
 * of runs taken in turn, with EASY also run as the plain scan
 * (sim__easy_set_eager(): every blocked pass asks for the running jobs,
 * sorts them, copies the cluster and gives them back on the copy until
 * the head fits), against EASY as shipped (the running jobs from a profile
 * kept from pass to pass, the reservation found by moving a mirror of the
 * cluster).  It checks that both EASY runs agree on the mean wait, and
 * never fails on time; it exits 0 with a note if the trace is absent.
 * Instruction counts (valgrind --tool=callgrind) say more than wall time
 * on a shared machine: docs/performance.md gives both.
 *
 *   bench-easy [TRACE.csv]   (default: $GPUSIM_TRACE_DIR/philly/philly-2017-10.csv,
 *                             then data/traces/philly/philly-2017-10.csv in the source tree)
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>

#include "sched/sim-queue-orders.h"

#include "bench-args.h"

#define SCENARIO \
  "[scenario]\nname = philly-2017-10-64\nseed = 1\n" \
  "[pool a100]\nmodel = DGX-A100\ncount = 64\n" \
  "[workload]\nsource = philly\ntrace = %s\n" \
  "[policy]\nqueue = %s\nplacement = first-fit\n"

/* Runs of the plain scan (the fastest kept), and pairs of a FIFO and an
 * EASY run, taken in turn: a pair's ratio is the two measured a moment
 * apart, and the median of the pairs' ratios moves least with the
 * machine's speed (two tenths of a second each, a run's time alone moves
 * by half on a shared machine). */
#define RUNS  3
#define PAIRS 9

static double
metric (SimReport *r, const char *name)
{
  double v = 0;

  sim_report_get_value (r, name, &v);
  return v;
}

static SimScenario *
scenario (const char *trace, const char *queue, GError **error)
{
  g_autofree char *text = g_strdup_printf (SCENARIO, trace, queue);

  return sim_scenario_load_from_data (text, -1, "bench-easy", NULL, NULL, error);
}

/* One replay of SC: its wall time (loading not counted) into *WALL, and
 * into *REPORT the run's report if *REPORT is still NULL. */
static gboolean
replay (SimScenario *sc, gboolean eager, double *wall, SimReport **report, GError **error)
{
  g_autoptr(SimSimulation) sim = sim_simulation_new (sc, error);
  gint64 t0;

  if (sim == NULL)
    return FALSE;
  if (eager)
    sim__easy_set_eager (sim_simulation_get_policy (sim), TRUE);
  t0 = g_get_monotonic_time ();
  if (!sim_simulation_run (sim, error))
    return FALSE;
  *wall = (g_get_monotonic_time () - t0) / 1e6;
  if (*report == NULL)
    *report = sim_report_ref (sim_simulation_get_report (sim));
  return TRUE;
}

#define USAGE \
  "usage: bench-easy [TRACE.csv]\n" \
  "  FIFO and EASY backfilling (as shipped, and as the plain scan) on a replay of the\n" \
  "  Philly month on 64 DGX A100\n" \
  "  TRACE.csv: the Philly month's jobs; by default philly/philly-2017-10.csv under\n" \
  "  $GPUSIM_TRACE_DIR, else under data/traces in the source tree\n"

int
main (int argc, char **argv)
{
  g_autofree char *trace = NULL, *tried = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimReport) fifo = NULL;
  g_autoptr(SimReport) eager = NULL;
  g_autoptr(SimReport) easy = NULL;
  g_autoptr(SimScenario) sc_fifo = NULL;
  g_autoptr(SimScenario) sc_easy = NULL;
  double w_fifo, w_eager, w_easy, ratios[PAIRS];
  gboolean ok;

  bench_args (argc, argv, USAGE, NULL, 1);
  if (argc > 1)
    {
      if (!g_file_test (argv[1], G_FILE_TEST_IS_REGULAR))
        {
          fprintf (stderr, "bench-easy: %s: no such file\n", argv[1]);
          return 1;
        }
      trace = g_strdup (argv[1]);
    }
  else if ((trace = bench_trace_file ("philly", "philly-2017-10.csv", &tried)) == NULL)
    {
      printf ("bench-easy: philly/philly-2017-10.csv not found (looked at %s): nothing to "
              "replay (set GPUSIM_TRACE_DIR)\n", tried);
      return 0;
    }
  sc_fifo = scenario (trace, "fifo", &error);
  sc_easy = sc_fifo != NULL ? scenario (trace, "easy", &error) : NULL;
  ok = sc_easy != NULL;
  w_eager = w_fifo = w_easy = G_MAXDOUBLE;
  for (guint i = 0; i < RUNS && ok; i++)
    {
      double w = 0;
      ok = replay (sc_easy, TRUE, &w, &eager, &error);
      w_eager = MIN (w_eager, w);
    }
  for (guint i = 0; i < PAIRS && ok; i++)
    {
      double wf = 0, we = 0;
      /* (Each pair in the other order from the last.) */
      ok = i % 2 == 0
           ? replay (sc_fifo, FALSE, &wf, &fifo, &error) && replay (sc_easy, FALSE, &we, &easy,
                                                                    &error)
           : replay (sc_easy, FALSE, &we, &easy, &error) && replay (sc_fifo, FALSE, &wf, &fifo,
                                                                    &error);
      w_fifo = MIN (w_fifo, wf);
      w_easy = MIN (w_easy, we);
      ratios[i] = we / wf;
    }
  if (!ok)
    {
      fprintf (stderr, "bench-easy: %s\n", error->message);
      return 1;
    }
  qsort (ratios, PAIRS, sizeof ratios[0], bench_compare_doubles);
  if (metric (eager, "wait_mean") != metric (easy, "wait_mean"))
    {
      fprintf (stderr, "bench-easy: EASY's mean wait differs with the eager reservation: "
               "%.6f s against %.6f s\n", metric (eager, "wait_mean"), metric (easy, "wait_mean"));
      return 1;
    }
  printf ("bench-easy: Philly, October 2017, on 64 x DGX-A100 (512 GPUs), first-fit; the "
          "fastest of %d runs of FIFO and of EASY taken in turn, of %d of the plain scan\n\n",
          PAIRS, RUNS);
  printf ("%-30s %8s %9s %8s %10s %12s\n", "queue", "jobs", "events", "wall s", "over FIFO",
          "wait mean");
  printf ("%-30s %8.0f %9.0f %8.3f %10s %11.0fs\n", "fifo", metric (fifo, "jobs_completed"),
          metric (fifo, "events"), w_fifo, "1.00", metric (fifo, "wait_mean"));
  printf ("%-30s %8.0f %9.0f %8.3f %9.2fx %11.0fs\n", "easy, plain scan",
          metric (eager, "jobs_completed"), metric (eager, "events"), w_eager, w_eager / w_fifo,
          metric (eager, "wait_mean"));
  printf ("%-30s %8.0f %9.0f %8.3f %9.2fx %11.0fs\n", "easy", metric (easy, "jobs_completed"),
          metric (easy, "events"), w_easy, w_easy / w_fifo, metric (easy, "wait_mean"));
  printf ("\nEASY over FIFO, run by run in %d pairs: median %.2fx (%.2fx to %.2fx)\n", PAIRS,
          ratios[PAIRS / 2], ratios[0], ratios[PAIRS - 1]);
  return 0;
}
