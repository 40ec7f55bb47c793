/* fuzz-transfers.c: the harness of the transfer file reader
 * (sim_transfers_add_from_file(), what `gpusim transfers` reads).
 *
 * Each input is a whole CSV file, read into a simulator on a two-tier
 * fat-tree of 16 hosts (8-port switches, 3:1 oversubscribed at the
 * leaves, so that routes have choices and share links).  An accepted file
 * is run to its end when it holds few enough transfers to keep an input
 * fast; then every transfer must have completed, no earlier than it
 * started and no sooner than its bytes take at a host's full bandwidth.  A refused file
 * must leave the simulator usable: one more transfer is added and run.
 * Beside those checks, the harness looks for crashes, sanitizer reports,
 * GLib criticals and leaks, as the others do (fuzz.h).
 */
#include "config.h"
#include "fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sim.h>

#define N_HOSTS       16
#define HOST_BW       1e9          /* bytes/s */
#define MAX_RUN       2000         /* transfers run per input, at most */

static void
broken (guint id, const char *what)
{
  fprintf (stderr, "fuzz: transfer %u: %s\n", id, what);
  abort ();
}

int
fuzz_transfers (const uint8_t *data, size_t size)
{
  const char *path;
  GError *error = NULL;
  SimTransfers *t;
  guint added = 0;
  gboolean ok;

  fuzz_init ();
  path = fuzz_write_file (data, size);
  t = sim_transfers_new_hosts (N_HOSTS, HOST_BW, SIM_FABRIC_FAT_TREE, 8, 3.0,
                               500 * SIM_NANOSECOND, &error);
  if (t == NULL)
    {
      fprintf (stderr, "fuzz: the fabric was refused: %s\n", error->message);
      abort ();
    }
  ok = sim_transfers_add_from_file (t, path, &added, &error);
  if (!ok)
    {
      if (error == NULL)
        broken (0, "a refused file without an error");
      fuzz_note_refusal ();
      g_clear_error (&error);
      /* The rows before an unconnected pair may be in: run one more. */
      if (sim_transfers_add (t, 0, N_HOSTS - 1, 1e6, sim_transfers_get_now (t), NULL, NULL, NULL,
                             &error) == 0)
        broken (0, "no transfer can be added after a refused file");
    }
  else if (sim_transfers_get_n_transfers (t) != added)
    broken (added, "the count added is not the count held");
  if (sim_transfers_get_n_transfers (t) <= MAX_RUN)
    {
      if (!sim_transfers_run (t, &error))
        {
          fprintf (stderr, "fuzz: the run failed: %s\n", error->message);
          abort ();
        }
      for (guint id = 1; id <= sim_transfers_get_n_transfers (t); id++)
        {
          SimTime start, end = sim_transfers_get_completion (t, id);
          double bytes;
          guint src, dst;

          if (!sim_transfers_get_transfer (t, id, &src, &dst, &bytes, &start))
            broken (id, "listed but not found");
          if (src >= N_HOSTS || dst >= N_HOSTS || src == dst)
            broken (id, "endpoints out of range or equal");
          if (!(bytes >= 0) || !isfinite (bytes))
            broken (id, "a size that is not finite and >= 0");
          if (end < start)
            broken (id, "not completed, or completed before its start");
          /* A host's NIC caps every flow (rounded to the nanosecond). */
          if (sim_time_to_seconds (end - start) + 1e-6 < bytes / HOST_BW)
            broken (id, "faster than a host's bandwidth");
        }
    }
  g_object_unref (t);
  return 0;
}
