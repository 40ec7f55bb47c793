/* bench-flows-gen.h: the transfers of bench-flows, drawn once, so that
 * bench-flows-simgrid runs exactly the same ones on SimGrid, and what both
 * programs share to run a case and report it.
 *
 * N_FLOWS transfers between random pairs of distinct hosts (uniform,
 * GRand seeded 42), sizes uniform in [1, 100) MB, all at time 0 or
 * arriving as a Poisson process of 10 per microsecond (exponential gaps
 * of mean 100 ns).  The draws come in the order src, dst, bytes, gap per
 * transfer, so that both programs see the same sequence.
 *
 * A case can also read its transfers from a file (--flows), one per line:
 * "src dst bytes start_ns", '#' starting a comment; that is how the small
 * controlled experiments of docs/performance.md are run on both sides.
 *
 * Each case runs in a child process (SimGrid runs one simulation per
 * process, and a child's peak memory is its own): the child writes every
 * transfer's completion time (ns) and its wall time into a pipe, and the
 * parent reads them and the child's peak resident memory (wait4()). */
#pragma once

#include <glib.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define N_FLOWS   10000
#define HOST_BW   50e9      /* bytes/s per host and per link */
#define LINK_NS   1000      /* latency of each link */

typedef struct {
  guint  src, dst;
  double bytes;
  double start_ns;
} BenchFlow;

/* One case: a two-tier fat-tree of @n_hosts hosts and @radix-port
 * switches, and its transfers. */
typedef struct {
  guint      n_hosts, radix;
  gboolean   staggered;
  const char *label;        /* "at once", "staggered" or the file's name */
  BenchFlow *flows;
  guint      n_flows;
} BenchCase;

/* What a case's run gives: every transfer's completion time (ns, from
 * time 0, its route's latency included), the wall time of the run and
 * the child's peak resident memory. */
typedef struct {
  double *completion;       /* n_flows */
  double  wall_s;
  double  peak_mb;
} BenchRun;

/* The N_FLOWS transfers on @n_hosts hosts; free with g_free(). */
static inline BenchFlow *
bench_flows_draw (guint n_hosts, gboolean staggered)
{
  GRand *rand = g_rand_new_with_seed (42);
  BenchFlow *flows = g_new (BenchFlow, N_FLOWS);
  double arrival = 0;

  for (guint i = 0; i < N_FLOWS; i++)
    {
      guint src = (guint) g_rand_int_range (rand, 0, (gint32) n_hosts);
      guint dst = (guint) g_rand_int_range (rand, 0, (gint32) n_hosts - 1);
      double bytes = g_rand_double_range (rand, 1e6, 100e6);

      if (dst >= src)
        dst++;
      if (staggered)
        arrival += -log (1.0 - g_rand_double (rand)) * 100.0;  /* mean 100 ns */
      flows[i] = (BenchFlow) { src, dst, bytes, arrival };
    }
  g_rand_free (rand);
  return flows;
}

/* Reads "src dst bytes start_ns" lines of @path for @n_hosts hosts; exits
 * with the file, line and what was expected on bad input, since a
 * benchmark given a wrong experiment must not print figures for it. */
static inline BenchFlow *
bench_flows_read (const char *path, guint n_hosts, guint *n_flows)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GArray *flows = g_array_new (FALSE, FALSE, sizeof (BenchFlow));

  if (!g_file_get_contents (path, &text, NULL, &error))
    {
      fprintf (stderr, "bench-flows: %s\n", error->message);
      exit (1);
    }
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *hash = strchr (lines[i], '#');
      char *end = NULL;
      BenchFlow f;
      unsigned long src, dst;

      if (hash != NULL)
        *hash = '\0';
      g_strstrip (lines[i]);
      if (lines[i][0] == '\0')
        continue;
      errno = 0;
      src = strtoul (lines[i], &end, 10);
      dst = strtoul (end, &end, 10);
      f.bytes = g_ascii_strtod (end, &end);
      f.start_ns = g_ascii_strtod (end, &end);
      g_strstrip (end);
      if (errno != 0 || *end != '\0' || src >= n_hosts || dst >= n_hosts || src == dst
          || !(f.bytes > 0) || !isfinite (f.bytes) || !(f.start_ns >= 0) || !isfinite (f.start_ns))
        {
          fprintf (stderr, "bench-flows: %s:%u: expected \"src dst bytes start_ns\" with distinct "
                   "hosts below %u, bytes > 0 and start_ns >= 0\n", path, i + 1, n_hosts);
          exit (1);
        }
      f.src = (guint) src;
      f.dst = (guint) dst;
      g_array_append_val (flows, f);
    }
  if (flows->len == 0)
    {
      fprintf (stderr, "bench-flows: %s: no transfers\n", path);
      exit (1);
    }
  *n_flows = flows->len;
  return (BenchFlow *) g_array_free (flows, FALSE);
}

/* Whether @n_hosts hosts fit a two-tier fat-tree of @radix-port switches
 * with whole leaves (radix / 2 hosts each, at most radix leaves), the
 * platform both programs build; prints why not. */
static inline gboolean
bench_flows_check_shape (const char *prog, guint n_hosts, guint radix)
{
  if (n_hosts < 2 || radix < 4 || radix % 2 != 0 || radix > 1024 || n_hosts % (radix / 2) != 0
      || n_hosts / (radix / 2) > radix)
    {
      fprintf (stderr, "%s: --hosts %u --radix %u: expected an even radix of 4 to 1024 and a "
               "whole number of leaves of radix / 2 hosts, at most radix leaves\n", prog, n_hosts,
               radix);
      return FALSE;
    }
  return TRUE;
}

/* Writes or reads @n bytes whole (a pipe may move fewer at a time). */
static inline gboolean
bench_flows_pipe_io (int fd, void *buf, size_t n, gboolean writing)
{
  char *p = buf;

  while (n > 0)
    {
      ssize_t k = writing ? write (fd, p, n) : read (fd, p, n);
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        return FALSE;
      p += k;
      n -= (size_t) k;
    }
  return TRUE;
}

/* Runs @body (@c's simulation; it fills @completion and returns its wall
 * time in seconds) in a child process and fills @run; FALSE if the child
 * failed. */
static inline gboolean
bench_flows_fork (const BenchCase *c, double (*body) (const BenchCase *c, double *completion,
                                                      gpointer data),
                  gpointer data, BenchRun *run)
{
  int fds[2], status = 0;
  struct rusage ru = { 0 };
  gboolean ok;
  pid_t pid;

  run->completion = g_new0 (double, c->n_flows);
  if (pipe (fds) != 0)
    {
      perror ("bench-flows: pipe");
      return FALSE;
    }
  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    {
      perror ("bench-flows: fork");
      return FALSE;
    }
  if (pid == 0)
    {
      double *completion = g_new0 (double, c->n_flows);
      double wall;

      close (fds[0]);
      wall = body (c, completion, data);
      fflush (stdout);
      ok = bench_flows_pipe_io (fds[1], &wall, sizeof wall, TRUE)
           && bench_flows_pipe_io (fds[1], completion, c->n_flows * sizeof (double), TRUE);
      _exit (ok ? 0 : 1);
    }
  close (fds[1]);
  ok = bench_flows_pipe_io (fds[0], &run->wall_s, sizeof run->wall_s, FALSE)
       && bench_flows_pipe_io (fds[0], run->completion, c->n_flows * sizeof (double), FALSE);
  close (fds[0]);
  if (wait4 (pid, &status, 0, &ru) < 0 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    ok = FALSE;
  /* Linux gives ru_maxrss in kilobytes. */
  run->peak_mb = ru.ru_maxrss / 1024.0;
  return ok;
}

/* The makespan (ms) and the mean flow completion time (ms: completion
 * minus start, averaged over the transfers). */
static inline void
bench_flows_summary (const BenchCase *c, const BenchRun *run, double *makespan_ms,
                     double *mean_fct_ms)
{
  double last = 0, sum = 0;

  for (guint i = 0; i < c->n_flows; i++)
    {
      last = MAX (last, run->completion[i]);
      sum += run->completion[i] - c->flows[i].start_ns;
    }
  *makespan_ms = last / 1e6;
  *mean_fct_ms = sum / c->n_flows / 1e6;
}
