/* check-maxmin-fabrics.c: solves confined to what changed, against solves
 * from scratch, on the routes of every fabric the project builds.
 *
 * What it checks: on each fabric kind (single switch, two- and three-tier
 * fat-tree, rail-optimized, dragonfly) at 1:1, 2:1 and 4:1 at the leaves,
 * built from the catalogue's DGX H100 nodes, long random sequences of
 * arrivals and departures of flows routed between random GPUs (some
 * weighted, some capped, some several flows in one entry; and again with
 * every flow capped at a demand, where most solves give the re-solved
 * flows their caps at once), cap changes and capacity changes are applied
 * to three systems: one solved as
 * sim_maxmin_solve() does (confined to what changed), one by connected
 * components (sim__maxmin_set_full()), and one recomputed from scratch
 * after every change (sim_maxmin_invalidate()).  After every change, every
 * flow's rate in the first two must equal the one from scratch within
 * SIM_MAXMIN_TOLERANCE (1e-9 relative); the flows listed as changed must
 * be exactly those whose rate moved by more than rounding (1e-12
 * relative) or that are new; the confined solve must recompute no more
 * flows than the solve by components; and, every few changes, the
 * allocation must meet the max-min conditions checked directly: no
 * resource over its capacity, and every flow at its cap or on a saturated
 * resource where no flow has a higher normalized rate.  Then hand-worked
 * cases where a change reaches flows that share no resource with it,
 * one and two links away, and one that moves every rate of a link and
 * makes the region give way to the solve by components, with the rates
 * worked out beside them.
 * What it does not check: speed (bench/bench-maxmin and bench/bench-scale
 * measure it).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <string.h>
#include <sim.h>
#include "core/sim-maxmin.h"
#include "core/sim-maxmin-private.h"
#include "cluster/sim-catalogue.h"
#include "fabric/sim-topology.h"

#ifndef SIM_TOP_SRCDIR
#error "SIM_TOP_SRCDIR must be defined by the build"
#endif

#define MODELDIR SIM_TOP_SRCDIR "/models"

/* Rates closer than this are the same for the changed list (the solver's
 * own threshold for reporting a rate as changed). */
#define MOVED 1e-12

static SimCatalogue *catalogue;

static void
setup (void)
{
  g_autoptr(GError) error = NULL;

  catalogue = sim_catalogue_new ();
  ck_assert_msg (sim_catalogue_add_directory (catalogue, MODELDIR, &error), "%s",
                 error ? error->message : "?");
  ck_assert_msg (sim_catalogue_resolve (catalogue, &error), "%s", error ? error->message : "?");
}

static void
teardown (void)
{
  g_clear_pointer (&catalogue, sim_catalogue_free);
}

/* @nodes DGX H100 nodes on a fabric of @kind with switches of @radix ports
 * and @oversub down ports per up port at the leaves. */
static SimTopology *
build (SimFabricKind kind, guint nodes, guint radix, double oversub)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCluster) c = sim_cluster_new ();
  SimFabricConfig config = { .kind = kind, .radix = radix, .oversubscription = oversub };
  SimTopology *t;

  ck_assert (sim_cluster_add_pool (c, "p", sim_catalogue_lookup_node (catalogue, "DGX-H100"),
                                   NULL, 0, nodes, &error));
  t = sim_topology_new (c, catalogue, &config, &error);
  ck_assert_msg (t != NULL, "%s at %g:1: %s", sim_fabric_kind_to_string (kind), oversub,
                 error ? error->message : "?");
  return t;
}

/* The systems under test and what was put in them. */
enum { REGION, COMPONENTS, SCRATCH, N_SYSTEMS };

typedef struct {
  SimMaxminId id[N_SYSTEMS];
  guint32    *res;            /* topology resources */
  guint       n_res;
  double      weight, cap;
  guint       count;
} TFlow;

typedef struct {
  SimMaxmin  *sys[N_SYSTEMS];
  SimMaxminId *res[N_SYSTEMS];   /* by topology resource */
  double     *cap;               /* by topology resource */
  guint       n_res;
  GArray     *flows;             /* TFlow */
  gboolean    capped;            /* every flow has a demand cap, as under demand-aware
                                  * sharing */
} World;

static void
world_init (World *w, SimTopology *t)
{
  w->n_res = sim_topology_get_n_resources (t);
  w->cap = g_new (double, w->n_res);
  for (guint s = 0; s < N_SYSTEMS; s++)
    {
      w->sys[s] = sim_maxmin_new ();
      w->res[s] = g_new (SimMaxminId, w->n_res);
    }
  sim__maxmin_set_full (w->sys[COMPONENTS], TRUE);
  sim__maxmin_set_full (w->sys[SCRATCH], TRUE);
  for (guint r = 0; r < w->n_res; r++)
    {
      w->cap[r] = sim_topology_resource_capacity (t, r);
      for (guint s = 0; s < N_SYSTEMS; s++)
        w->res[s][r] = sim_maxmin_add_resource (w->sys[s], w->cap[r]);
    }
  w->flows = g_array_new (FALSE, FALSE, sizeof (TFlow));
}

static void
world_clear (World *w)
{
  for (guint i = 0; i < w->flows->len; i++)
    g_free (g_array_index (w->flows, TFlow, i).res);
  g_array_unref (w->flows);
  for (guint s = 0; s < N_SYSTEMS; s++)
    {
      sim_maxmin_free (w->sys[s]);
      g_free (w->res[s]);
    }
  g_free (w->cap);
}

/* Adds flows from GPU @src to GPU @dst (a route of the topology). */
static void
world_add (World *w, SimTopology *t, GRand *rand, guint src, guint dst)
{
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimMaxminId ids[64];
  TFlow f;

  memset (&f, 0, sizeof f);

  ck_assert (sim_topology_route (t, src, dst, g_rand_int (rand), path, NULL));
  ck_assert_uint_le (path->len, G_N_ELEMENTS (ids));
  f.res = g_memdup2 (path->data, path->len * sizeof (guint32));
  f.n_res = path->len;
  /* Mostly fair sharing as the collectives use it (weight 1, a demand cap
   * on a third), some weighted flows, some entries of several flows. */
  f.weight = g_rand_int_range (rand, 0, 5) == 0 ? g_rand_double_range (rand, 0.25, 4) : 1;
  f.cap = w->capped ? g_rand_double_range (rand, 0.5e9, 12e9)
          : g_rand_int_range (rand, 0, 3) == 0 ? g_rand_double_range (rand, 1e9, 60e9) : INFINITY;
  f.count = g_rand_int_range (rand, 0, 6) == 0 ? (guint) g_rand_int_range (rand, 2, 9) : 1;
  for (guint s = 0; s < N_SYSTEMS; s++)
    {
      for (guint k = 0; k < f.n_res; k++)
        ids[k] = w->res[s][f.res[k]];
      f.id[s] = sim_maxmin_add_flows (w->sys[s], ids, f.n_res, f.weight, f.cap, f.count, NULL);
      ck_assert (f.id[s] != SIM_MAXMIN_NO_ID);
    }
  g_array_append_val (w->flows, f);
}

static gboolean
close_enough (double got, double want, double tol)
{
  if (got == want)
    return TRUE;
  return fabs (got - want) <= tol * fabs (want);
}

/* The max-min conditions, checked on system @s from the rates alone. */
static void
check_conditions (World *w, guint s, const char *label)
{
  g_autofree double *use = g_new0 (double, w->n_res);
  g_autofree double *top = g_new0 (double, w->n_res);

  for (guint i = 0; i < w->flows->len; i++)
    {
      const TFlow *f = &g_array_index (w->flows, TFlow, i);
      double x = sim_maxmin_get_rate (w->sys[s], f->id[s]);
      for (guint k = 0; k < f->n_res; k++)
        {
          use[f->res[k]] += x * f->count;
          top[f->res[k]] = MAX (top[f->res[k]], x / f->weight);
        }
    }
  for (guint r = 0; r < w->n_res; r++)
    ck_assert_msg (use[r] <= w->cap[r] * (1 + SIM_MAXMIN_TOLERANCE), "%s: resource %u over: %g > %g",
                   label, r, use[r], w->cap[r]);
  for (guint i = 0; i < w->flows->len; i++)
    {
      const TFlow *f = &g_array_index (w->flows, TFlow, i);
      double x = sim_maxmin_get_rate (w->sys[s], f->id[s]);
      gboolean bottlenecked = close_enough (x, f->cap, SIM_MAXMIN_TOLERANCE);
      for (guint k = 0; k < f->n_res && !bottlenecked; k++)
        {
          guint32 r = f->res[k];
          bottlenecked = use[r] >= w->cap[r] * (1 - SIM_MAXMIN_TOLERANCE)
                         && x / f->weight >= top[r] * (1 - SIM_MAXMIN_TOLERANCE);
        }
      ck_assert_msg (bottlenecked, "%s: flow %u at %.17g has no bottleneck", label, i, x);
    }
}

typedef struct {
  SimFabricKind kind;
  guint nodes, radix;
} FabricCase;

static const FabricCase fabrics[] = {
  { SIM_FABRIC_SINGLE_SWITCH, 8, 64 },
  { SIM_FABRIC_FAT_TREE, 16, 16 },
  { SIM_FABRIC_FAT_TREE_3, 16, 16 },
  { SIM_FABRIC_RAIL_OPTIMIZED, 16, 16 },
  { SIM_FABRIC_DRAGONFLY, 16, 16 },
};

static const double ratios[] = { 1, 2, 4 };

/* _i runs over fabrics x ratios x (flows capped now and then, every flow
 * capped).  With every flow capped at a demand (0.5 to 12 GB/s on links of
 * 50 GB/s), most links never fill and a solve mostly gives the flows it
 * re-solves their caps at once (SimMaxminStats.capped_solves), while the
 * busiest links still fill: both kinds of solve are checked. */
START_TEST (test_random_sequences)
{
  guint c = (guint) _i % (G_N_ELEMENTS (fabrics) * G_N_ELEMENTS (ratios));
  gboolean capped = (guint) _i >= G_N_ELEMENTS (fabrics) * G_N_ELEMENTS (ratios);
  const FabricCase *fc = &fabrics[c / G_N_ELEMENTS (ratios)];
  double oversub = ratios[c % G_N_ELEMENTS (ratios)];
  g_autoptr(SimTopology) t = build (fc->kind, fc->nodes, fc->radix, oversub);
  g_autoptr(GRand) rand = g_rand_new_with_seed (1000 + _i);
  g_autofree char *label = g_strdup_printf ("%s at %g:1%s", sim_fabric_kind_to_string (fc->kind),
                                            oversub, capped ? ", every flow capped" : "");
  guint gpus = sim_topology_get_n_gpus (t), steps = 500;
  double *before = NULL;
  World w;
  SimMaxminStats st[N_SYSTEMS];
  guint64 region_flows = 0, component_flows = 0;

  world_init (&w, t);
  w.capped = capped;
  for (guint step = 0; step < steps; step++)
    {
      guint op = (guint) g_rand_int_range (rand, 0, 100), n_changed;
      const SimMaxminId *changed;
      g_autoptr(GHashTable) listed = g_hash_table_new (g_int64_hash, g_int64_equal);
      guint n_before = w.flows->len;

      before = g_renew (double, before, w.flows->len + 1);
      for (guint i = 0; i < w.flows->len; i++)
        before[i] = sim_maxmin_get_rate (w.sys[REGION], g_array_index (w.flows, TFlow, i).id[REGION]);

      if (op < 50 || w.flows->len < 20)
        {
          /* An arrival: between nodes mostly, inside one now and then. */
          guint src = (guint) g_rand_int_range (rand, 0, (gint32) gpus), dst;
          do
            dst = (guint) g_rand_int_range (rand, 0, (gint32) gpus);
          while (dst == src);
          world_add (&w, t, rand, src, dst);
        }
      else if (op < 80)
        {
          /* A departure. */
          guint i = (guint) g_rand_int_range (rand, 0, (gint32) w.flows->len);
          TFlow f = g_array_index (w.flows, TFlow, i);
          for (guint s = 0; s < N_SYSTEMS; s++)
            ck_assert (sim_maxmin_remove_flow (w.sys[s], f.id[s]));
          g_free (f.res);
          g_array_remove_index_fast (w.flows, i);
          before[i] = before[w.flows->len];
          n_before--;
        }
      else if (op < 95)
        {
          /* A demand cap set, moved or lifted. */
          guint i = (guint) g_rand_int_range (rand, 0, (gint32) w.flows->len);
          TFlow *f = &g_array_index (w.flows, TFlow, i);
          f->cap = w.capped ? g_rand_double_range (rand, 0.5e9, 12e9)
                   : g_rand_boolean (rand) ? INFINITY : g_rand_double_range (rand, 1e9, 60e9);
          for (guint s = 0; s < N_SYSTEMS; s++)
            ck_assert (sim_maxmin_set_flow_cap (w.sys[s], f->id[s], f->cap));
        }
      else
        {
          /* A link slowed down or restored (a capacity change). */
          const TFlow *f = &g_array_index (w.flows, TFlow,
                                           g_rand_int_range (rand, 0, (gint32) w.flows->len));
          guint32 r = f->res[g_rand_int_range (rand, 0, (gint32) f->n_res)];
          double c0 = sim_topology_resource_capacity (t, r);
          w.cap[r] = isfinite (c0) ? c0 * g_rand_double_range (rand, 0.25, 1.0) : c0;
          for (guint s = 0; s < N_SYSTEMS; s++)
            ck_assert (sim_maxmin_set_capacity (w.sys[s], w.res[s][r], w.cap[r]));
        }

      sim_maxmin_solve (w.sys[REGION]);
      sim_maxmin_solve (w.sys[COMPONENTS]);
      sim_maxmin_invalidate (w.sys[SCRATCH]);
      sim_maxmin_solve (w.sys[SCRATCH]);
      for (guint s = 0; s < N_SYSTEMS; s++)
        sim_maxmin_get_stats (w.sys[s], &st[s]);
      ck_assert_uint_eq (st[SCRATCH].last_flows_solved, w.flows->len);

      /* Every rate equals the one from scratch. */
      for (guint i = 0; i < w.flows->len; i++)
        {
          const TFlow *f = &g_array_index (w.flows, TFlow, i);
          double want = sim_maxmin_get_rate (w.sys[SCRATCH], f->id[SCRATCH]);
          for (guint s = REGION; s <= COMPONENTS; s++)
            {
              double got = sim_maxmin_get_rate (w.sys[s], f->id[s]);
              ck_assert_msg (close_enough (got, want, SIM_MAXMIN_TOLERANCE),
                             "%s step %u flow %u (%s): %.17g, from scratch %.17g", label, step,
                             i, s == REGION ? "region" : "components", got, want);
            }
        }

      /* The changed list names exactly the new flows and those that moved. */
      changed = sim_maxmin_get_changed (w.sys[REGION], &n_changed);
      for (guint c = 0; c < n_changed; c++)
        g_hash_table_add (listed, (gpointer) &changed[c]);
      ck_assert_uint_eq (g_hash_table_size (listed), n_changed);
      for (guint i = 0; i < w.flows->len; i++)
        {
          const TFlow *f = &g_array_index (w.flows, TFlow, i);
          double now = sim_maxmin_get_rate (w.sys[REGION], f->id[REGION]);
          gboolean moved = i >= n_before || !close_enough (now, before[i], MOVED);
          ck_assert_msg (moved == g_hash_table_contains (listed, &f->id[REGION]),
                         "%s step %u flow %u: %.17g -> %.17g, moved %d, listed %d", label, step,
                         i, before[i], now, moved, !moved);
        }

      /* No more flows recomputed than the touched components hold. */
      ck_assert_uint_le (st[REGION].last_flows_solved, st[COMPONENTS].last_flows_solved);
      region_flows += st[REGION].last_flows_solved;
      component_flows += st[COMPONENTS].last_flows_solved;

      if (step % 25 == 24)
        check_conditions (&w, REGION, label);
    }
  /* The sequences were long enough to build shared components, and most
   * solves stayed confined. */
  ck_assert_uint_ge (w.flows->len, 80);
  ck_assert_uint_gt (st[REGION].region_solves, st[REGION].solves / 2);
  if (capped)
    ck_assert_msg (st[REGION].capped_solves > 0 && st[REGION].capped_solves < st[REGION].solves,
                   "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " solves gave the caps at "
                   "once", label, st[REGION].capped_solves, st[REGION].solves);
  ck_assert_msg (region_flows < component_flows, "%s: %" G_GUINT64_FORMAT " flows re-solved "
                 "against %" G_GUINT64_FORMAT " by components", label, region_flows,
                 component_flows);
  g_free (before);
  world_clear (&w);
}
END_TEST

/* A change reaches a flow that shares no resource with it.  Links A
 * (capacity 1) and B (capacity 1.5); flow a on A, flow b on A and B, flow
 * c on B.  A binds first: a = b = 1/2, and c takes what B has left,
 * 1.5 - 1/2 = 1.  Flow d joins on A alone: a = b = d = 1/3, and c, which
 * crosses no link of d's, rises to 1.5 - 1/3 = 7/6.  When d leaves, the
 * first answer comes back, c falling to 1. */
START_TEST (test_reach_beyond_neighbours)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId A = sim_maxmin_add_resource (s, 1.0), B = sim_maxmin_add_resource (s, 1.5);
  SimMaxminId AB[2] = { A, B };
  SimMaxminId a = sim_maxmin_add_flow (s, &A, 1, 1, INFINITY, NULL);
  SimMaxminId b = sim_maxmin_add_flow (s, AB, 2, 1, INFINITY, NULL);
  SimMaxminId c = sim_maxmin_add_flow (s, &B, 1, 1, INFINITY, NULL);
  SimMaxminId d;
  SimMaxminStats st;

  sim_maxmin_solve (s);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, a), 0.5, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, c), 1.0, 1e-12);
  d = sim_maxmin_add_flow (s, &A, 1, 1, INFINITY, NULL);
  /* a, b, c and d change. */
  ck_assert_uint_eq (sim_maxmin_solve (s), 4);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, a), 1.0 / 3, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, b), 1.0 / 3, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, d), 1.0 / 3, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, c), 7.0 / 6, 1e-12);
  ck_assert (sim_maxmin_remove_flow (s, d));
  ck_assert_uint_eq (sim_maxmin_solve (s), 3);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, a), 0.5, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, b), 0.5, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, c), 1.0, 1e-12);
  sim_maxmin_get_stats (s, &st);
  ck_assert_uint_eq (st.region_solves, 3);
}
END_TEST

/* A change felt two links away, while an unrelated flow is not
 * recomputed.  Links A (capacity 1), B (1.5), C (3) and X (1); flow a on
 * A, b on A and B, c on B and C, k on C, x on X.  Progressive filling:
 * A binds first at 1/2 (a, b); B then gives c 1.5 - 1/2 = 1 (level 1,
 * below C's 3 / 2); C gives k 3 - 1 = 2; x = 1.  Flow d joins on A: A
 * binds at 1/3 (a, b, d); B gives c 1.5 - 1/3 = 7/6 (below C's 3 / 2);
 * C gives k 3 - 7/6 = 11/6.  So d lowers b, which raises c, which lowers
 * k: five flows change, x does not and is left alone.  When d leaves,
 * the first answer comes back. */
START_TEST (test_chain)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId A = sim_maxmin_add_resource (s, 1.0), B = sim_maxmin_add_resource (s, 1.5);
  SimMaxminId C = sim_maxmin_add_resource (s, 3.0), X = sim_maxmin_add_resource (s, 1.0);
  SimMaxminId AB[2] = { A, B }, BC[2] = { B, C };
  SimMaxminId a = sim_maxmin_add_flow (s, &A, 1, 1, INFINITY, NULL);
  SimMaxminId b = sim_maxmin_add_flow (s, AB, 2, 1, INFINITY, NULL);
  SimMaxminId c = sim_maxmin_add_flow (s, BC, 2, 1, INFINITY, NULL);
  SimMaxminId k = sim_maxmin_add_flow (s, &C, 1, 1, INFINITY, NULL);
  SimMaxminId x = sim_maxmin_add_flow (s, &X, 1, 1, INFINITY, NULL);
  SimMaxminId d;
  SimMaxminStats st;

  sim_maxmin_solve (s);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, a), 0.5, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, b), 0.5, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, c), 1.0, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, k), 2.0, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, x), 1.0, 1e-12);
  d = sim_maxmin_add_flow (s, &A, 1, 1, INFINITY, NULL);
  ck_assert_uint_eq (sim_maxmin_solve (s), 5);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, a), 1.0 / 3, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, b), 1.0 / 3, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, d), 1.0 / 3, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, c), 7.0 / 6, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, k), 11.0 / 6, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, x), 1.0, 1e-12);
  sim_maxmin_get_stats (s, &st);
  ck_assert_uint_eq (st.last_flows_solved, 5);   /* all but x */
  ck_assert (sim_maxmin_remove_flow (s, d));
  ck_assert_uint_eq (sim_maxmin_solve (s), 4);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, a), 0.5, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, b), 0.5, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, c), 1.0, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, k), 2.0, 1e-12);
  sim_maxmin_get_stats (s, &st);
  ck_assert_uint_eq (st.region_solves, 3);
}
END_TEST

/* A change that moves every rate: 200 flows on one link of capacity 1000
 * get 5 each; a 201st gets 1000 / 201 and so do all the others, which the
 * region finds by growing to the whole link.  Past a quarter of the
 * system's flows the region gives way to the solve by components
 * (SimMaxminStats.fallbacks), with the same answer; a departure then brings
 * back 5 each the same way. */
START_TEST (test_fallback)
{
  enum { N = 200 };
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId link = sim_maxmin_add_resource (s, 1000.0), f[N + 1];
  SimMaxminStats st;

  for (guint i = 0; i < N; i++)
    f[i] = sim_maxmin_add_flow (s, &link, 1, 1, INFINITY, NULL);
  ck_assert_uint_eq (sim_maxmin_solve (s), N);
  ck_assert_double_eq_tol (sim_maxmin_get_rate (s, f[7]), 5.0, 1e-12);
  f[N] = sim_maxmin_add_flow (s, &link, 1, 1, INFINITY, NULL);
  ck_assert_uint_eq (sim_maxmin_solve (s), N + 1);
  sim_maxmin_get_stats (s, &st);
  ck_assert_uint_eq (st.region_solves, 1);
  ck_assert_uint_eq (st.fallbacks, 1);
  ck_assert_uint_eq (st.last_flows_solved, N + 1);
  for (guint i = 0; i <= N; i++)
    ck_assert_double_eq_tol (sim_maxmin_get_rate (s, f[i]), 1000.0 / (N + 1), 1e-12);
  ck_assert (sim_maxmin_remove_flow (s, f[N]));
  ck_assert_uint_eq (sim_maxmin_solve (s), N);
  sim_maxmin_get_stats (s, &st);
  ck_assert_uint_eq (st.fallbacks, 2);
  for (guint i = 0; i < N; i++)
    ck_assert_double_eq_tol (sim_maxmin_get_rate (s, f[i]), 5.0, 1e-12);
  ck_assert_double_eq_tol (sim_maxmin_get_usage (s, link), 1000.0, 1e-9);
}
END_TEST

static Suite *
fabrics_suite (void)
{
  Suite *s = suite_create ("maxmin-fabrics");
  TCase *tc = tcase_create ("random");

  tcase_add_unchecked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 600);
  tcase_add_loop_test (tc, test_random_sequences, 0,
                       2 * G_N_ELEMENTS (fabrics) * G_N_ELEMENTS (ratios));
  suite_add_tcase (s, tc);
  tc = tcase_create ("hand-worked");
  tcase_add_test (tc, test_reach_beyond_neighbours);
  tcase_add_test (tc, test_chain);
  tcase_add_test (tc, test_fallback);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (fabrics_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
