/* bench-flows-gpusim.h: one case of bench-flows on gpusim's transfer
 * simulator, for bench-flows and for bench-flows-simgrid's side-by-side
 * table.  Include after <sim.h> and bench-flows-gen.h. */
#pragma once

/* Keeps a transfer's completion time; the ids count from 1 in the order
 * the transfers were added, so id - 1 is the transfer's index. */
static void
bench_flows_gpusim_done (SimTransfers *t, guint id, SimTime completion, gpointer user_data)
{
  double *completion_ns = user_data;

  (void) t;
  completion_ns[id - 1] = (double) completion;
}

/* Runs @c on gpusim (a two-tier fat-tree as bench-flows-gen.h says,
 * D-mod-K routing as sim_topology_new_hosts() builds it); fills
 * @completion and returns the wall time of sim_transfers_add() and
 * sim_transfers_run().  With @data non-NULL it also prints the details
 * bench-flows gives (build, add and run times, solves, events). */
static double
bench_flows_gpusim (const BenchCase *c, double *completion, gpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimTransfers) t = NULL;
  gint64 t0 = g_get_monotonic_time (), t1, t2, t3;

  t = sim_transfers_new_hosts (c->n_hosts, HOST_BW, SIM_FABRIC_FAT_TREE, c->radix, 1, LINK_NS,
                               &error);
  if (t == NULL)
    {
      fprintf (stderr, "bench-flows: %s\n", error->message);
      exit (1);
    }
  t1 = g_get_monotonic_time ();
  for (guint i = 0; i < c->n_flows; i++)
    if (sim_transfers_add (t, c->flows[i].src, c->flows[i].dst, c->flows[i].bytes,
                           (SimTime) c->flows[i].start_ns, bench_flows_gpusim_done, completion,
                           NULL, &error) == 0)
      {
        fprintf (stderr, "bench-flows: %s\n", error->message);
        exit (1);
      }
  t2 = g_get_monotonic_time ();
  if (!sim_transfers_run (t, &error))
    {
      fprintf (stderr, "bench-flows: %s\n", error->message);
      exit (1);
    }
  t3 = g_get_monotonic_time ();
  if (data != NULL)
    printf ("%6u hosts  %-9s  build %7.3f s  add %6.3f s  run %7.3f s  %9.0f flows/s  "
            "%6" G_GUINT64_FORMAT " solves  %6" G_GUINT64_FORMAT " events",
            c->n_hosts, c->label, (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6,
            c->n_flows / ((t3 - t1) / 1e6), sim_transfers_get_n_solves (t),
            sim_transfers_get_n_events (t));
  return (t3 - t1) / 1e6;
}
