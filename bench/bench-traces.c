/* bench-traces: how fast each trace reader parses, and what the reorder
 * window costs a replay.
 *
 * 1. Parse rate: for each reader (SWF, Philly, Helios, Slurm, PAI, Gavel,
 *    native CSV) a file of N jobs (500,000 by default) is written to a
 *    temporary directory, in the layout of the real logs, in order of
 *    submission, and read whole through sim_workload_next(), with no
 *    reorder window and with the default one (SIM_TRACE_WINDOW_ROWS_DEFAULT
 *    rows).  Prints rows per second of wall time (the best of seven reads,
 *    the file in the page cache).  PAI's rows are those of both tables
 *    (its task table has 1.25 rows per job, read when the reader opens).
 * 2. Window cost: the October 2017 Philly month (47,192 jobs) replayed on
 *    256 DGX A100 nodes with reorder_window = 0 and with the default; the
 *    difference of the two wall times (best of seven each) is the cost of
 *    the window, printed as a share of the replay.
 *
 * It never fails on time; it exits 0 with a note if the Philly month is
 * absent.
 *
 *   bench-traces [ROWS]
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib/gstdio.h>

#include "bench-args.h"

#define USAGE \
  "usage: bench-traces [ROWS]\n" \
  "  parse rate of each trace reader on ROWS generated jobs (default 500,000), and\n" \
  "  the reorder window's cost on a replay of the Philly month\n"

typedef SimWorkload *(*OpenFunc) (const char *path, guint64 window, GError **error);

static SimWorkload *
open_swf (const char *path, guint64 window, GError **error)
{
  SimSwfConfig c = { 1, 0, FALSE, TRUE, window };
  return sim_workload_new_swf (path, &c, error);
}

static SimWorkload *
open_philly (const char *path, guint64 window, GError **error)
{
  SimPhillyConfig c = { 0, FALSE, TRUE, window, NULL };
  return sim_workload_new_philly (path, &c, error);
}

static SimWorkload *
open_helios (const char *path, guint64 window, GError **error)
{
  SimTraceConfig c = { 0, FALSE, TRUE, window };
  return sim_workload_new_helios (path, &c, error);
}

static SimWorkload *
open_slurm (const char *path, guint64 window, GError **error)
{
  SimTraceConfig c = { 0, FALSE, TRUE, window };
  return sim_workload_new_slurm (path, &c, error);
}

static SimWorkload *
open_pai (const char *path, guint64 window, GError **error)
{
  SimTraceConfig c = { 0, FALSE, TRUE, window };
  g_autofree char *tasks = g_strconcat (path, ".tasks", NULL);
  return sim_workload_new_pai (path, tasks, &c, SIM_PAI_TASKS_SUM, error);
}

static const SimGavelRate gavel_rates[] = {
  { "ResNet-18 (batch size 32)", 29.95, NULL }, { "Transformer (batch size 64)", 8.21, NULL },
  { "LM (batch size 10)", 81.65, NULL }, { "CycleGAN", 4.736, NULL },
};

static SimWorkload *
open_gavel (const char *path, guint64 window, GError **error)
{
  SimTraceConfig c = { 0, FALSE, TRUE, window };
  return sim_workload_new_gavel (path, &c, gavel_rates, G_N_ELEMENTS (gavel_rates), error);
}

static SimWorkload *
open_native (const char *path, guint64 window, GError **error)
{
  SimTraceConfig c = { 0, FALSE, TRUE, window };
  return sim_workload_new_native (path, &c, error);
}

/* Date-time of second @s after 2020-01-01 00:00:00, with @sep. */
static void
datetime (GString *out, guint64 s, char sep)
{
  g_autoptr(GDateTime) base = g_date_time_new_utc (2020, 1, 1, 0, 0, 0);
  g_autoptr(GDateTime) t = g_date_time_add_seconds (base, (gdouble) s);
  g_autofree char *text = g_date_time_format (t, "%Y-%m-%d %H:%M:%S");

  text[10] = sep;
  g_string_append (out, text);
}

/* Writes @rows jobs in @format, one every 30 s, durations and GPUs
 * varying with the row. */
static char *
write_trace (const char *dir, const char *format, guint rows)
{
  g_autoptr(GString) s = g_string_sized_new ((gsize) rows * 100);
  char *path = g_build_filename (dir, format, NULL);
  static const guint gpus[] = { 1, 1, 2, 4, 8, 1, 16, 1 };

  if (g_str_equal (format, "philly"))
    g_string_append (s, "timestamp,duration,num_gpus,gpu_time,cluster\n");
  else if (g_str_equal (format, "helios"))
    g_string_append (s, "job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,"
                     "start_time,end_time,duration,queue\n");
  else if (g_str_equal (format, "slurm"))
    g_string_append (s, "JobID|JobName|User|Account|Partition|Submit|Start|End|Elapsed|State|"
                     "AllocTRES|ReqTRES|NNodes|NodeList|Timelimit\n");
  else if (g_str_equal (format, "native"))
    g_string_append (s, "id,submit,duration,gpus,gpu_milli,gpu_model,tenant,priority,class,"
                     "requested,cpu_milli,memory,mig,user,status\n");
  else if (g_str_equal (format, "swf"))
    g_string_append (s, "; Version: 2.2\n; Note: written by bench-traces\n");
  for (guint i = 0; i < rows; i++)
    {
      guint64 t = (guint64) i * 30;
      guint g = gpus[i % G_N_ELEMENTS (gpus)];
      guint d = 60 + (i * 7919u) % 86400;

      if (g_str_equal (format, "philly"))
        {
          datetime (s, t, ' ');
          g_string_append_printf (s, ",%u.0,%u,%u.0,vc%u\n", d, g, d * g, i % 11);
        }
      else if (g_str_equal (format, "helios"))
        {
          g_string_append_printf (s, "j%u,u%u,vc%u,train,%u,%u,1,COMPLETED,", i, i % 97, i % 11,
                                  g, 4 * g);
          datetime (s, t, ' ');
          g_string_append_c (s, ',');
          datetime (s, t + 5, ' ');
          g_string_append_c (s, ',');
          datetime (s, t + 5 + d, ' ');
          g_string_append_printf (s, ",%u,5\n", d);
        }
      else if (g_str_equal (format, "slurm"))
        {
          g_string_append_printf (s, "%u|train|u%u|acct%u|gpu|", 1000 + i, i % 97, i % 11);
          datetime (s, t, 'T');
          g_string_append_c (s, '|');
          datetime (s, t + 5, 'T');
          g_string_append_c (s, '|');
          datetime (s, t + 5 + d, 'T');
          g_string_append_printf (s, "|%02u:%02u:%02u|COMPLETED|cpu=%u,mem=64G,gres/gpu=%u|"
                                  "cpu=%u,gres/gpu=%u|1|node%u|1-00:00:00\n", d / 3600,
                                  d / 60 % 60, d % 60, 4 * g, g, 4 * g, g, i % 64);
        }
      else if (g_str_equal (format, "pai"))
        g_string_append_printf (s, "job%08u,inst%u,user%u,Terminated,%" G_GUINT64_FORMAT
                                ",%" G_GUINT64_FORMAT "\n", i, i, i % 97, t + 1000, t + 1000 + d);
      else if (g_str_equal (format, "gavel"))
        g_string_append_printf (s, "%s\tpython3 train.py --batch_size 32\t/workspace\t"
                                "--num_steps\t1\t%u\t%u\t1\t-1.000000\t%" G_GUINT64_FORMAT
                                ".%03u\n", gavel_rates[i % G_N_ELEMENTS (gavel_rates)].job_type,
                                d * 10, g, t, i % 1000);
      else if (g_str_equal (format, "native"))
        g_string_append_printf (s, "%u,%" G_GUINT64_FORMAT ".000000000,%u.000000000,%u,1000,%s,"
                                "%u,0,c%u,86400.000000000,%u,%u,,%u,1\n", i + 1, t, d, g,
                                i % 3 == 0 ? "H100-SXM" : "", i % 11, i % 5, 4000 * g,
                                68719476u * g, i % 97);
      else
        g_string_append_printf (s, "%u %" G_GUINT64_FORMAT " 5 %u %u -1 -1 %u 86400 -1 1 %u 1 "
                                "-1 1 -1 -1 -1\n", i + 1, t, d, g, g, i % 97);
    }
  if (g_str_equal (format, "pai"))
    {
      /* The task table: a worker per job, and a parameter server (no
       * GPU) for every fourth; in another order than the jobs. */
      g_autoptr(GString) tasks = g_string_sized_new ((gsize) rows * 80);
      g_autofree char *tpath = g_strconcat (path, ".tasks", NULL);

      for (guint k = rows; k-- > 0;)
        {
          guint g = gpus[k % G_N_ELEMENTS (gpus)];
          guint d = 60 + (k * 7919u) % 86400;
          guint64 t = (guint64) k * 30 + 1000;

          g_string_append_printf (tasks, "job%08u,worker,%u,Terminated,%" G_GUINT64_FORMAT
                                  ",%" G_GUINT64_FORMAT ",600,29.3,100,V100\n", k, g, t + 5,
                                  t + 5 + d);
          if (k % 4 == 0)
            g_string_append_printf (tasks, "job%08u,ps,1,Terminated,%" G_GUINT64_FORMAT
                                    ",%" G_GUINT64_FORMAT ",400,10,,\n", k, t + 5, t + 5 + d);
        }
      if (!g_file_set_contents (tpath, tasks->str, (gssize) tasks->len, NULL))
        {
          g_free (path);
          return NULL;
        }
    }
  if (!g_file_set_contents (path, s->str, (gssize) s->len, NULL))
    {
      g_free (path);
      return NULL;
    }
  return path;
}

/* Seconds to read @path whole, best of seven; 0 on failure. */
static double
read_time (OpenFunc open, const char *path, guint64 window, guint64 *jobs)
{
  double best = 0;

  for (int k = 0; k < 7; k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SimWorkload) w = NULL;
      SimJobSpec job;
      gint64 t0 = g_get_monotonic_time ();
      double dt;

      w = open (path, window, &error);
      *jobs = 0;
      while (w != NULL && sim_workload_next (w, &job, &error))
        (*jobs)++;
      if (error != NULL)
        {
          fprintf (stderr, "bench-traces: %s\n", error->message);
          return 0;
        }
      dt = (g_get_monotonic_time () - t0) / 1e6;
      best = k == 0 ? dt : MIN (best, dt);
    }
  return best;
}

/* A copy of the CSV @path in @dir with its rows in a random order (a fixed
 * seed), as the published Philly list is. */
static char *
shuffle (const char *path, const char *dir)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (1);
  g_autoptr(GString) out = g_string_new (NULL);
  char *copy = g_build_filename (dir, "shuffled.csv", NULL);
  guint n;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  n = g_strv_length (lines);
  while (n > 1 && *lines[n - 1] == '\0')
    n--;
  for (guint i = n - 1; i > 1; i--)
    {
      guint j = (guint) g_rand_int_range (rand, 1, (gint32) i + 1);
      char *t = lines[i];

      lines[i] = lines[j];
      lines[j] = t;
    }
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s\n", lines[i]);
  if (!g_file_set_contents (copy, out->str, (gssize) out->len, NULL))
    {
      g_free (copy);
      return NULL;
    }
  return copy;
}

#define BASE \
  "[scenario]\nname = philly-2017-10\nseed = 1\n" \
  "[pool a100]\nmodel = DGX-A100\ncount = 256\n" \
  "[workload]\nsource = philly\ntrace = %s\nreorder_window = %u\n"

static double
replay_time (const char *trace, guint window)
{
  double best = 0;

  for (int k = 0; k < 7; k++)
    {
      g_autofree char *text = g_strdup_printf (BASE, trace, window);
      g_autoptr(GError) error = NULL;
      g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "bench-traces", NULL,
                                                               NULL, &error);
      g_autoptr(SimSimulation) sim = NULL;
      gint64 t0;
      double dt;

      if (sc == NULL || (sim = sim_simulation_new (sc, &error)) == NULL)
        {
          fprintf (stderr, "bench-traces: %s\n", error->message);
          return 0;
        }
      t0 = g_get_monotonic_time ();
      if (!sim_simulation_run (sim, &error))
        {
          fprintf (stderr, "bench-traces: %s\n", error->message);
          return 0;
        }
      dt = (g_get_monotonic_time () - t0) / 1e6;
      best = k == 0 ? dt : MIN (best, dt);
    }
  return best;
}

int
main (int argc, char **argv)
{
  bench_args (argc, argv, USAGE, NULL, 1);

  static const struct {
    const char *name;
    OpenFunc    open;
    double      rows_per_job;  /* rows read per job, in all the files */
  } readers[] = {
    { "swf", open_swf, 1 }, { "philly", open_philly, 1 }, { "helios", open_helios, 1 },
    { "slurm", open_slurm, 1 }, { "pai", open_pai, 2.25 }, { "gavel", open_gavel, 1 },
    { "native", open_native, 1 },
  };
  guint64 n_rows = 500000;
  guint rows;
  g_autofree char *dir = NULL;
  g_autofree char *tried = NULL;
  g_autofree char *philly = bench_trace_file ("philly", "philly-2017-10.csv", &tried);
  int status = 0;

  if (argc > 1 && !g_ascii_string_to_unsigned (argv[1], 10, 1, G_MAXUINT, &n_rows, NULL))
    {
      fprintf (stderr, "bench-traces: ROWS: expected a whole number above 0, not %s\n%s",
               argv[1], USAGE);
      return 2;
    }
  rows = (guint) n_rows;
  dir = g_dir_make_tmp ("bench-traces-XXXXXX", NULL);
  if (dir == NULL)
    return 1;
  printf ("bench-traces: parse rate of each reader, %u rows in order of submission\n\n", rows);
  printf ("%-8s %12s %14s %14s\n", "reader", "MB", "rows/s", "rows/s");
  printf ("%-8s %12s %14s %14s\n", "", "", "no window", "window 100000");
  for (guint i = 0; i < G_N_ELEMENTS (readers); i++)
    {
      g_autofree char *path = write_trace (dir, readers[i].name, rows);
      GStatBuf st;
      guint64 jobs0 = 0, jobs1 = 0;
      double t0, t1;

      if (path == NULL || g_stat (path, &st) != 0)
        {
          status = 1;
          continue;
        }
      t0 = read_time (readers[i].open, path, 0, &jobs0);
      t1 = read_time (readers[i].open, path, SIM_TRACE_WINDOW_ROWS_DEFAULT, &jobs1);
      if (t0 <= 0 || t1 <= 0 || jobs0 != rows || jobs1 != rows)
        status = 1;
      else
        printf ("%-8s %12.1f %14.0f %14.0f\n", readers[i].name, st.st_size / 1e6,
                rows * readers[i].rows_per_job / t0, rows * readers[i].rows_per_job / t1);
      g_unlink (path);
      {
        g_autofree char *tasks = g_strconcat (path, ".tasks", NULL);
        g_unlink (tasks);
      }
    }

  if (philly == NULL)
    {
      printf ("\nphilly/philly-2017-10.csv not found (looked at %s): no replay\n", tried);
      g_rmdir (dir);
      return status;
    }
  {
    double t0 = replay_time (philly, 0);
    double t1 = replay_time (philly, SIM_TRACE_WINDOW_ROWS_DEFAULT);

    if (t0 <= 0 || t1 <= 0)
      return 1;
    guint64 n0 = 0, n1 = 0;
    double r0 = read_time (open_philly, philly, 0, &n0);
    double r1 = read_time (open_philly, philly, SIM_TRACE_WINDOW_ROWS_DEFAULT, &n1);

    g_autofree char *shuffled = shuffle (philly, dir);
    guint64 n2 = 0;
    double r2 = shuffled != NULL ? read_time (open_philly, shuffled, SIM_TRACE_WINDOW_ROWS_DEFAULT,
                                              &n2) : 0;
    double t2 = shuffled != NULL ? replay_time (shuffled, SIM_TRACE_WINDOW_ROWS_DEFAULT) : 0;
    guint64 n3 = 0;
    double r3 = shuffled != NULL ? read_time (open_philly, shuffled, SIM_TRACE_REORDER_SORT, &n3)
                                 : 0;

    if (r0 <= 0 || r1 <= 0 || r2 <= 0 || t2 <= 0 || r3 <= 0 || n0 != n1 || n0 != n2 ||
        n0 != n3)
      return 1;
    printf ("\nPhilly month replay (%" G_GUINT64_FORMAT " jobs, 256 x DGX-A100), best of "
            "seven:\n", n0);
    printf ("  replay, reorder_window = 0       %8.1f ms\n", 1e3 * t0);
    printf ("  replay, reorder_window = %u  %8.1f ms   (%+.1f %%)\n",
            SIM_TRACE_WINDOW_ROWS_DEFAULT, 1e3 * t1, 100 * (t1 - t0) / t0);
    printf ("  reading alone, window 0          %8.1f ms\n", 1e3 * r0);
    printf ("  reading alone, window %u    %8.1f ms\n", SIM_TRACE_WINDOW_ROWS_DEFAULT, 1e3 * r1);
    printf ("  cost of the window               %8.1f ms = %.1f %% of the replay\n",
            1e3 * (r1 - r0), 100 * (r1 - r0) / t0);
    printf ("  the month shuffled, read with window %u: %.1f ms, %.0f rows/s; "
            "replayed: %.1f ms\n", SIM_TRACE_WINDOW_ROWS_DEFAULT, 1e3 * r2, n2 / r2, 1e3 * t2);
    printf ("  cost of the window on the shuffled month: %.1f ms = %.1f %% of its replay\n",
            1e3 * (r2 - r0), 100 * (r2 - r0) / t2);
    printf ("  the month shuffled, read with reorder_window = sort: %.1f ms, %.0f rows/s\n",
            1e3 * r3, n3 / r3);
    g_unlink (shuffled);
  }
  g_rmdir (dir);
  return status;
}
