/* fuzz-common.c: what the harnesses share: set-up, a scratch file, the
 * table of targets. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memfd_create */
#endif
#include "config.h"
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include <glib/gstdio.h>

const FuzzTarget fuzz_targets[] = {
  { "scenario",    fuzz_scenario },
  { "catalogue",   fuzz_catalogue },
  { "swf",         fuzz_swf },
  { "philly",      fuzz_philly },
  { "helios",      fuzz_helios },
  { "slurm",       fuzz_slurm },
  { "openb-nodes", fuzz_openb_nodes },
  { "openb-pods",  fuzz_openb_pods },
  { "pai",         fuzz_pai },
  { "gavel",       fuzz_gavel },
  { "native",      fuzz_native },
  { "transfers",   fuzz_transfers },
  { "plan",        fuzz_plan },
  { "results",     fuzz_results },
  { "sweep-summary", fuzz_sweep_summary },
  { "weather",     fuzz_weather },
  { "prices",      fuzz_prices },
  { "failure-log", fuzz_failure_log },
  { NULL, NULL },
};

static guint refusals;

void
fuzz_note_refusal (void)
{
  refusals++;
}

guint
fuzz_take_refusals (void)
{
  guint n = refusals;

  refusals = 0;
  return n;
}

static int   scratch_fd = -1;
static char *scratch_path;
static gboolean scratch_unlink;

static void
remove_scratch (void)
{
  if (scratch_unlink && scratch_path != NULL)
    g_unlink (scratch_path);
}

static GLogWriterOutput
abort_on_warnings (GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                   gpointer user_data)
{
  GLogWriterOutput out = g_log_writer_standard_streams (level, fields, n_fields, user_data);

  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort ();
  return out;
}

void
fuzz_init (void)
{
  static gboolean done;

  if (done)
    return;
  done = TRUE;
  /* The catalogue comes from the source tree (or the installed one) only,
   * whatever the environment says, so that a run can be repeated. */
  g_unsetenv ("GPUSIM_MODEL_PATH");
  /* A critical or a warning from the library on some input is a bug like a
   * crash: it becomes one (an abort, which libFuzzer catches and saves the
   * input of, where GLib's own fatal messages stop on a breakpoint trap). */
  g_log_set_writer_func (abort_on_warnings, NULL, NULL);
}

/* One scratch file per process, rewritten for every input: in memory
 * (memfd, reached through /proc/self/fd) on Linux, else a file in the
 * temporary directory, removed at exit. */
static void
open_scratch (void)
{
  GError *error = NULL;

#ifdef __linux__
  scratch_fd = memfd_create ("gpusim-fuzz", MFD_CLOEXEC);
  if (scratch_fd >= 0)
    {
      scratch_path = g_strdup_printf ("/proc/self/fd/%d", scratch_fd);
      if (g_file_test (scratch_path, G_FILE_TEST_EXISTS))
        return;
      close (scratch_fd);
      g_clear_pointer (&scratch_path, g_free);
    }
#endif
  scratch_fd = g_file_open_tmp ("gpusim-fuzz-XXXXXX", &scratch_path, &error);
  if (scratch_fd < 0)
    {
      fprintf (stderr, "fuzz: cannot create a scratch file: %s\n", error->message);
      abort ();
    }
  scratch_unlink = TRUE;
  atexit (remove_scratch);
}

const char *
fuzz_write_file (const uint8_t *data, size_t size)
{
  size_t done = 0;

  if (scratch_fd < 0)
    open_scratch ();
  if (ftruncate (scratch_fd, 0) != 0)
    {
      perror ("fuzz: ftruncate");
      abort ();
    }
  while (done < size)
    {
      ssize_t n = pwrite (scratch_fd, data + done, size - done, (off_t) done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          perror ("fuzz: pwrite");
          abort ();
        }
      done += (size_t) n;
    }
  return scratch_path;
}

const char *
fuzz_sandbox_dir (void)
{
  return SIM_FUZZ_SANDBOX;
}
