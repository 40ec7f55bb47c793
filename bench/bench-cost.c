/* bench-cost: what the [cost] section adds to a replay of the October 2017
 * month of Microsoft Philly jobs (47,192 jobs) on 2,048 GPUs (256 DGX A100
 * nodes): the replay alone, with [cost] at a flat energy price, with the
 * power model, and with both at a flat and at a daily time-of-use price
 * (a change every hour), each the best of nine.  Prints the wall times,
 * their ratio to the replay alone, and the cost per delivered GPU-hour.
 * Power and cost together may add at most 25 % to the replay time.  It
 * never fails on time; it exits 0 with a note if the trace is absent.
 *
 *   bench-cost [TRACE.csv]   (default: $GPUSIM_TRACE_DIR/philly/philly-2017-10.csv,
 *                             then data/traces in the source tree)
 */
#include "config.h"

#include <sim.h>
#include <glib/gstdio.h>
#include <stdio.h>

#include "bench-util.h"
#include "bench-args.h"

#define BASE \
  "[scenario]\nname = philly-2017-10\nseed = 1\n" \
  "[pool a100]\nmodel = DGX-A100\ncount = 256\n" \
  "[workload]\nsource = philly\ntrace = %s\n"

/* Replays per case; the best is kept (the machine may be shared). */
#define ROUNDS 9

#define POWER "[power]\nenable = true\n[cooling]\ntype = air\n"
#define FLAT  "[cost]\nenergy_price = 0.0895\nmaintenance = 5%%\n"

#define USAGE \
  "usage: bench-cost [TRACE.csv]\n" \
  "  what [cost] and [power] add to a replay of the Philly month\n" \
  "  TRACE.csv: the Philly month's jobs; by default philly/philly-2017-10.csv under\n" \
  "  $GPUSIM_TRACE_DIR, else under data/traces in the source tree\n"

int
main (int argc, char **argv)
{
  g_autofree char *trace = NULL;
  g_autofree char *dir = NULL, *tou = NULL;
  g_autoptr(GString) csv = g_string_new ("hour,usd_per_kwh\n");
  const char *labels[] = { "replay alone", "[cost], no power", "[power]",
                           "[power] + [cost] flat", "[power] + [cost] hourly" };
  double w0 = 0;

  bench_args (argc, argv, USAGE, NULL, 1);
  trace = bench_philly_trace (argc, argv, "bench-cost");
  if (trace == NULL)
    return 0;
  dir = g_dir_make_tmp ("bench-cost-XXXXXX", NULL);
  tou = g_build_filename (dir, "tou.csv", NULL);
  for (int h = 0; h < 24; h++)
    g_string_append_printf (csv, "%d,%.3f\n", h, 0.06 + 0.004 * h);
  g_file_set_contents (tou, csv->str, -1, NULL);

  printf ("bench-cost: Philly, October 2017, on 256 x DGX-A100 (2,048 GPUs), best of %d\n\n",
          ROUNDS);
  printf ("%-24s %8s %9s %8s %7s %12s\n", "", "jobs", "events", "wall s", "ratio",
          "USD/GPU-h");
  for (guint k = 0; k < G_N_ELEMENTS (labels); k++)
    {
      g_autofree char *text = NULL;
      g_autoptr(SimReport) r = NULL;
      g_autoptr(GError) error = NULL;
      double wall, jobs = 0, events = 0, per = 0;

      if (k == 0)
        text = g_strdup_printf (BASE, trace);
      else if (k == 1)
        text = g_strdup_printf (BASE FLAT, trace);
      else if (k == 2)
        text = g_strdup_printf (BASE POWER, trace);
      else if (k == 3)
        text = g_strdup_printf (BASE POWER FLAT, trace);
      else
        text = g_strdup_printf (BASE POWER "[cost]\nenergy_price_file = %s\nmaintenance = 5%%\n",
                                trace, tou);
      if (!bench_replay (text, FALSE, ROUNDS, &wall, &r, &error))
        {
          fprintf (stderr, "bench-cost: %s\n", error->message);
          g_unlink (tou);
          g_rmdir (dir);
          return 1;
        }
      if (k == 0)
        w0 = wall;
      sim_report_get_value (r, "jobs_completed", &jobs);
      sim_report_get_value (r, "events", &events);
      sim_report_get_value (r, "cost_per_gpu_hour", &per);
      printf ("%-24s %8.0f %9.0f %8.3f %6.3fx %12.3f\n", labels[k], jobs, events, wall,
              wall / w0, per);
    }
  g_unlink (tou);
  g_rmdir (dir);
  return 0;
}
