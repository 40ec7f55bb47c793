/* check-maxmin.c: the max-min fair bandwidth solver.
 *
 * What it checks: hand-solved systems whose equations are written beside
 * each case (one link shared by n flows, the parking lot, two bottlenecks of
 * different capacities, capped flows, weighted flows, flows without
 * resources, up to a thousand capped flows on one link met in cap order); ids that go stale when their flow or resource is freed; the
 * max-min optimality conditions on random systems (no resource over
 * capacity, every flow bottlenecked); and incremental solving: after random
 * additions, removals and capacity changes, the rates equal a solve from
 * scratch of the same system, the flows whose rate moved are exactly the
 * ones listed as changed, and only the touched components are recomputed;
 * flows added as one entry of several get, to the last bit, the rates the
 * same flows get when added one by one; and the solver's shortcuts give,
 * to the last bit, the rates of progressive filling as written.
 * What it does not check: speed (bench/bench-maxmin does), or that max-min
 * fairness is a good model of any transport (the collectives' tests
 * compare against measurements).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <sim.h>
#include "core/sim-maxmin.h"
#include "core/sim-maxmin-private.h"

#define EPS 1e-9

static void
assert_close (double got, double want)
{
  ck_assert_msg (fabs (got - want) <= EPS * MAX (1.0, fabs (want)), "got %.17g, want %.17g",
                 got, want);
}

/* One link of capacity C shared by n flows: x_i = C / n. */
START_TEST (test_single_link)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId link = sim_maxmin_add_resource (s, 10.0);
  SimMaxminId f[4];

  for (int i = 0; i < 4; i++)
    f[i] = sim_maxmin_add_flow (s, &link, 1, 1.0, INFINITY, NULL);
  ck_assert_uint_eq (sim_maxmin_solve (s), 4);
  for (int i = 0; i < 4; i++)
    assert_close (sim_maxmin_get_rate (s, f[i]), 10.0 / 4);
  assert_close (sim_maxmin_get_usage (s, link), 10.0);
  /* Nothing changed: the solve returns at once and lists nothing. */
  ck_assert_uint_eq (sim_maxmin_solve (s), 0);
  /* One flow leaves: 10 / 3 each. */
  ck_assert (sim_maxmin_remove_flow (s, f[0]));
  ck_assert_uint_eq (sim_maxmin_solve (s), 3);
  assert_close (sim_maxmin_get_rate (s, f[1]), 10.0 / 3);
  ck_assert (sim_maxmin_get_rate (s, f[0]) < 0);
}
END_TEST

/* The parking lot: L links of capacity 1 in a chain, n long flows over
 * all of them, and one short flow per link.  Every link carries n + 1
 * flows and every flow is bottlenecked everywhere:
 *   x_long = x_short = 1 / (n + 1).
 * With link 0 at capacity 0.5 instead, link 0 binds first:
 *   x_long = x_short0 = 0.5 / (n + 1); on the other links
 *   x_short_j = 1 - n x_long. */
START_TEST (test_parking_lot)
{
  enum { L = 5, N = 3 };
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId links[L], longf[N], shortf[L];

  for (int i = 0; i < L; i++)
    links[i] = sim_maxmin_add_resource (s, 1.0);
  for (int i = 0; i < N; i++)
    longf[i] = sim_maxmin_add_flow (s, links, L, 1.0, INFINITY, NULL);
  for (int i = 0; i < L; i++)
    shortf[i] = sim_maxmin_add_flow (s, &links[i], 1, 1.0, INFINITY, NULL);
  sim_maxmin_solve (s);
  for (int i = 0; i < N; i++)
    assert_close (sim_maxmin_get_rate (s, longf[i]), 1.0 / (N + 1));
  for (int i = 0; i < L; i++)
    assert_close (sim_maxmin_get_rate (s, shortf[i]), 1.0 / (N + 1));

  ck_assert (sim_maxmin_set_capacity (s, links[0], 0.5));
  ck_assert_uint_eq (sim_maxmin_solve (s), N + L);
  for (int i = 0; i < N; i++)
    assert_close (sim_maxmin_get_rate (s, longf[i]), 0.5 / (N + 1));
  assert_close (sim_maxmin_get_rate (s, shortf[0]), 0.5 / (N + 1));
  for (int i = 1; i < L; i++)
    assert_close (sim_maxmin_get_rate (s, shortf[i]), 1.0 - N * 0.5 / (N + 1));
}
END_TEST

/* Two bottlenecks: A (capacity 10) and B (capacity 4).  Flow 1 crosses A
 * and B, flow 2 only A, flow 3 only B.
 *   B binds first: x1 = x3 = 4 / 2 = 2.
 *   A then gives flow 2 the rest: x2 = 10 - x1 = 8. */
START_TEST (test_two_bottlenecks)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId a = sim_maxmin_add_resource (s, 10.0);
  SimMaxminId b = sim_maxmin_add_resource (s, 4.0);
  SimMaxminId ab[2] = { a, b };
  SimMaxminId f1 = sim_maxmin_add_flow (s, ab, 2, 1.0, INFINITY, NULL);
  SimMaxminId f2 = sim_maxmin_add_flow (s, &a, 1, 1.0, INFINITY, NULL);
  SimMaxminId f3 = sim_maxmin_add_flow (s, &b, 1, 1.0, INFINITY, NULL);

  sim_maxmin_solve (s);
  assert_close (sim_maxmin_get_rate (s, f1), 2.0);
  assert_close (sim_maxmin_get_rate (s, f2), 8.0);
  assert_close (sim_maxmin_get_rate (s, f3), 2.0);
  assert_close (sim_maxmin_get_usage (s, a), 10.0);
  assert_close (sim_maxmin_get_usage (s, b), 4.0);

  /* B grows to 30: A binds at 10 / 2 = 5 for flows 1 and 2; flow 3 takes
   * B's rest, 30 - 5 = 25. */
  sim_maxmin_set_capacity (s, b, 30.0);
  sim_maxmin_solve (s);
  assert_close (sim_maxmin_get_rate (s, f1), 5.0);
  assert_close (sim_maxmin_get_rate (s, f2), 5.0);
  assert_close (sim_maxmin_get_rate (s, f3), 25.0);
}
END_TEST

/* Capped flows on one link of capacity 10 with three flows, one capped at
 * 1: the cap binds first (level 1 < 10 / 3), then the other two share
 * the rest: x = (10 - 1) / 2 = 4.5.  A cap above the fair share changes
 * nothing: with the cap at 5, x = 10 / 3 for all. */
START_TEST (test_capped)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId link = sim_maxmin_add_resource (s, 10.0);
  SimMaxminId c = sim_maxmin_add_flow (s, &link, 1, 1.0, 1.0, NULL);
  SimMaxminId f1 = sim_maxmin_add_flow (s, &link, 1, 1.0, INFINITY, NULL);
  SimMaxminId f2 = sim_maxmin_add_flow (s, &link, 1, 1.0, INFINITY, NULL);

  sim_maxmin_solve (s);
  assert_close (sim_maxmin_get_rate (s, c), 1.0);
  assert_close (sim_maxmin_get_rate (s, f1), 4.5);
  assert_close (sim_maxmin_get_rate (s, f2), 4.5);
  ck_assert (sim_maxmin_set_flow_cap (s, c, 5.0));
  sim_maxmin_solve (s);
  for (int i = 0; i < 3; i++)
    assert_close (sim_maxmin_get_rate (s, (SimMaxminId[]) { c, f1, f2 }[i]), 10.0 / 3);
}
END_TEST

/* sim__maxmin_worst_shortfall() on the link of test_capped, caps 1 and
 * 8 and one flow uncapped: the cap-1 flow gets 1, and the other two share
 * the remaining 9 (4.5 each, under the cap of 8), so the worst cap over
 * rate is 8 / 4.5; the uncapped flow is left out; the cap-1 flow alone
 * gives 1 (never below 1); none gives 1; a removed flow counts as
 * infinitely short, as does a flow on a link of capacity 0. */
START_TEST (test_worst_shortfall)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId link = sim_maxmin_add_resource (s, 10.0);
  SimMaxminId dead = sim_maxmin_add_resource (s, 0.0);
  SimMaxminId c = sim_maxmin_add_flow (s, &link, 1, 1.0, 1.0, NULL);
  SimMaxminId f8 = sim_maxmin_add_flow (s, &link, 1, 1.0, 8.0, NULL);
  SimMaxminId f = sim_maxmin_add_flow (s, &link, 1, 1.0, INFINITY, NULL);
  SimMaxminId starved = sim_maxmin_add_flow (s, &dead, 1, 1.0, 2.0, NULL);
  SimMaxminId gone = sim_maxmin_add_flow (s, &link, 1, 1.0, 3.0, NULL);

  ck_assert (sim_maxmin_remove_flow (s, gone));
  sim_maxmin_solve (s);
  assert_close (sim_maxmin_get_rate (s, f8), 4.5);
  assert_close (sim__maxmin_worst_shortfall (s, (SimMaxminId[]) { c, f8, f }, 3), 8.0 / 4.5);
  ck_assert_double_eq (sim__maxmin_worst_shortfall (s, (SimMaxminId[]) { c, f }, 2), 1.0);
  ck_assert_double_eq (sim__maxmin_worst_shortfall (s, NULL, 0), 1.0);
  ck_assert (isinf (sim__maxmin_worst_shortfall (s, (SimMaxminId[]) { c, gone }, 2)));
  ck_assert (isinf (sim__maxmin_worst_shortfall (s, (SimMaxminId[]) { starved }, 1)));
}
END_TEST

/* Weighted flows on one link of capacity 12 with weights 1, 2, 3:
 *   x_i = 12 w_i / 6 = 2, 4, 6.
 * With the weight-3 flow capped at 3 (its level 1 is below 12 / 6 = 2):
 *   x3 = 3, and the others share 9 by weight: x1 = 3, x2 = 6. */
START_TEST (test_weighted)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId link = sim_maxmin_add_resource (s, 12.0);
  SimMaxminId f1 = sim_maxmin_add_flow (s, &link, 1, 1.0, INFINITY, NULL);
  SimMaxminId f2 = sim_maxmin_add_flow (s, &link, 1, 2.0, INFINITY, NULL);
  SimMaxminId f3 = sim_maxmin_add_flow (s, &link, 1, 3.0, INFINITY, NULL);

  sim_maxmin_solve (s);
  assert_close (sim_maxmin_get_rate (s, f1), 2.0);
  assert_close (sim_maxmin_get_rate (s, f2), 4.0);
  assert_close (sim_maxmin_get_rate (s, f3), 6.0);
  sim_maxmin_set_flow_cap (s, f3, 3.0);
  sim_maxmin_solve (s);
  assert_close (sim_maxmin_get_rate (s, f1), 3.0);
  assert_close (sim_maxmin_get_rate (s, f2), 6.0);
  assert_close (sim_maxmin_get_rate (s, f3), 3.0);
}
END_TEST

/* A flow without resources gets its cap, or +infinity; a resource that
 * never saturates (capacity +infinity) does not limit its flows. */
START_TEST (test_no_resources)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId inf = sim_maxmin_add_resource (s, INFINITY);
  SimMaxminId zero = sim_maxmin_add_resource (s, 0.0);
  SimMaxminId capped = sim_maxmin_add_flow (s, NULL, 0, 1.0, 5.0, NULL);
  SimMaxminId free_flow = sim_maxmin_add_flow (s, NULL, 0, 1.0, INFINITY, NULL);
  SimMaxminId on_inf = sim_maxmin_add_flow (s, &inf, 1, 1.0, 7.0, NULL);
  SimMaxminId on_zero = sim_maxmin_add_flow (s, &zero, 1, 1.0, INFINITY, NULL);

  ck_assert_uint_eq (sim_maxmin_solve (s), 4);
  assert_close (sim_maxmin_get_rate (s, capped), 5.0);
  ck_assert (isinf (sim_maxmin_get_rate (s, free_flow)));
  assert_close (sim_maxmin_get_rate (s, on_inf), 7.0);
  assert_close (sim_maxmin_get_rate (s, on_zero), 0.0);
}
END_TEST

/* Ids carry a generation: a freed flow's or resource's id stays invalid
 * after its slot is reused; a resource still crossed cannot be removed. */
START_TEST (test_stale_ids)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId r = sim_maxmin_add_resource (s, 1.0);
  int tag = 42;
  SimMaxminId f = sim_maxmin_add_flow (s, &r, 1, 1.0, INFINITY, &tag);
  SimMaxminId g, r2;
  SimMaxminStats st;

  ck_assert_ptr_eq (sim_maxmin_get_flow_data (s, f), &tag);
  ck_assert (!sim_maxmin_remove_resource (s, r));
  ck_assert (sim_maxmin_remove_flow (s, f));
  ck_assert (!sim_maxmin_remove_flow (s, f));
  g = sim_maxmin_add_flow (s, &r, 1, 1.0, INFINITY, NULL);
  ck_assert ((guint32) g == (guint32) f);  /* same slot, recycled */
  ck_assert (g != f);
  ck_assert (!sim_maxmin_flow_is_valid (s, f));
  ck_assert (sim_maxmin_flow_is_valid (s, g));
  ck_assert_ptr_null (sim_maxmin_get_flow_data (s, f));
  ck_assert (sim_maxmin_remove_flow (s, g));
  ck_assert (sim_maxmin_remove_resource (s, r));
  ck_assert (!sim_maxmin_set_capacity (s, r, 2.0));
  r2 = sim_maxmin_add_resource (s, 3.0);
  ck_assert (r2 != r);
  ck_assert (sim_maxmin_get_capacity (s, r) < 0);
  assert_close (sim_maxmin_get_capacity (s, r2), 3.0);
  ck_assert (!sim_maxmin_flow_is_valid (s, SIM_MAXMIN_NO_ID));
  sim_maxmin_get_stats (s, &st);
  ck_assert_uint_eq (st.n_flows, 0);
  ck_assert_uint_eq (st.n_resources, 1);
}
END_TEST

/* Random systems. */

typedef struct {
  SimMaxminId id;
  guint       res[6];      /* indices into the resource table */
  guint       n_res;
  double      weight, cap;
} RFlow;

typedef struct {
  GRand      *rand;
  SimMaxmin  *sys;
  SimMaxminId res[256];
  double      cap[256];
  guint       n_res;
  GArray     *flows;        /* RFlow */
} Random;

static void
random_flow (Random *r, guint cluster, guint cluster_size)
{
  RFlow f = { 0 };
  SimMaxminId ids[6];
  guint want = (guint) g_rand_int_range (r->rand, 0, 5);

  for (guint i = 0; i < want; i++)
    {
      guint k = cluster * cluster_size + (guint) g_rand_int_range (r->rand, 0, (gint32) cluster_size);
      gboolean dup = FALSE;
      for (guint j = 0; j < f.n_res; j++)
        dup |= f.res[j] == k;
      if (!dup)
        f.res[f.n_res++] = k;
    }
  f.weight = g_rand_boolean (r->rand) ? 1.0 : g_rand_double_range (r->rand, 0.5, 4.0);
  f.cap = g_rand_int_range (r->rand, 0, 4) == 0 ? g_rand_double_range (r->rand, 0.1, 20.0)
                                                 : INFINITY;
  if (f.n_res == 0 && !isfinite (f.cap))
    f.cap = 3.0;  /* keep rates finite, for comparisons */
  for (guint j = 0; j < f.n_res; j++)
    ids[j] = r->res[f.res[j]];
  f.id = sim_maxmin_add_flow (r->sys, ids, f.n_res, f.weight, f.cap, NULL);
  ck_assert (f.id != SIM_MAXMIN_NO_ID);
  g_array_append_val (r->flows, f);
}

static void
random_init (Random *r, guint32 seed, guint n_res)
{
  r->rand = g_rand_new_with_seed (seed);
  r->sys = sim_maxmin_new ();
  r->n_res = n_res;
  r->flows = g_array_new (FALSE, FALSE, sizeof (RFlow));
  for (guint i = 0; i < n_res; i++)
    {
      r->cap[i] = g_rand_double_range (r->rand, 1.0, 100.0);
      r->res[i] = sim_maxmin_add_resource (r->sys, r->cap[i]);
    }
}

static void
random_clear (Random *r)
{
  g_rand_free (r->rand);
  sim_maxmin_free (r->sys);
  g_array_unref (r->flows);
}

/* The optimality conditions of max-min fairness (sim-maxmin.h). */
static void
check_max_min (Random *r)
{
  double usage[256] = { 0 }, maxnorm[256] = { 0 };

  for (guint i = 0; i < r->flows->len; i++)
    {
      RFlow *f = &g_array_index (r->flows, RFlow, i);
      double x = sim_maxmin_get_rate (r->sys, f->id);
      ck_assert (x >= 0 && x <= f->cap * (1 + EPS));
      for (guint j = 0; j < f->n_res; j++)
        {
          usage[f->res[j]] += x;
          maxnorm[f->res[j]] = MAX (maxnorm[f->res[j]], x / f->weight);
        }
    }
  for (guint k = 0; k < r->n_res; k++)
    ck_assert_msg (usage[k] <= r->cap[k] * (1 + EPS), "resource %u over capacity", k);
  for (guint i = 0; i < r->flows->len; i++)
    {
      RFlow *f = &g_array_index (r->flows, RFlow, i);
      double x = sim_maxmin_get_rate (r->sys, f->id);
      gboolean bottlenecked = x >= f->cap * (1 - EPS);
      for (guint j = 0; j < f->n_res && !bottlenecked; j++)
        {
          guint k = f->res[j];
          bottlenecked = usage[k] >= r->cap[k] * (1 - EPS)
                         && x / f->weight >= maxnorm[k] * (1 - EPS);
        }
      ck_assert_msg (bottlenecked, "flow %u (rate %g) is not bottlenecked", i, x);
    }
}

/* Many capped flows on one link, their caps in random order: progressive
 * filling must meet the caps by increasing level.  By hand: with the caps
 * sorted, u_1 <= u_2 <= ..., each flow whose cap is at most the fair share
 * of what is left, (C - sum of the caps fixed before) / (flows left), gets
 * its cap; from the first that does not, every flow left gets that share.
 * Sizes on both sides of the sort's runs of 8 and of its merge widths, and
 * a system that grows between solves, so the solver's scratch is resized. */
START_TEST (test_many_caps)
{
  static const guint sizes[] = { 1, 2, 7, 8, 9, 16, 17, 63, 200, 1001 };
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint t = 0; t < G_N_ELEMENTS (sizes); t++)
    {
      guint n = sizes[t];
      double capacity = g_rand_double_range (rand, 0.2, 1.2) * n;
      SimMaxminId link = sim_maxmin_add_resource (s, capacity);
      SimMaxminId *ids = g_new (SimMaxminId, n);
      double *caps = g_new (double, n), *sorted = g_new (double, n);
      double left = capacity, share = INFINITY;
      guint i;

      for (i = 0; i < n; i++)
        {
          /* Some caps repeated, so that ties between flows occur. */
          caps[i] = g_rand_int_range (rand, 0, 4) == 0 && i > 0
                    ? caps[g_rand_int_range (rand, 0, (gint32) i)]
                    : g_rand_double_range (rand, 0.05, 2.0);
          sorted[i] = caps[i];
          ids[i] = sim_maxmin_add_flow (s, &link, 1, 1.0, caps[i], NULL);
        }
      /* Insertion sort: the reference must not share the solver's. */
      for (i = 1; i < n; i++)
        for (guint j = i; j > 0 && sorted[j] < sorted[j - 1]; j--)
          {
            double x = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = x;
          }
      for (i = 0; i < n; i++)
        {
          double fair = left / (n - i);
          if (sorted[i] > fair)
            {
              share = fair;
              break;
            }
          left -= sorted[i];
        }
      ck_assert_uint_eq (sim_maxmin_solve (s), n);
      for (i = 0; i < n; i++)
        assert_close (sim_maxmin_get_rate (s, ids[i]), MIN (caps[i], share));
      /* Changing one cap re-solves to the answer of a solve from scratch,
       * within the solver's stated tolerance. */
      sim_maxmin_set_flow_cap (s, ids[0], caps[0] * 0.5);
      sim_maxmin_solve (s);
      {
        double after0 = sim_maxmin_get_rate (s, ids[0]);
        g_autofree double *kept = g_new (double, n);
        for (i = 0; i < n; i++)
          kept[i] = sim_maxmin_get_rate (s, ids[i]);
        ck_assert (after0 <= caps[0] * 0.5 * (1 + EPS));
        sim_maxmin_invalidate (s);
        sim_maxmin_solve (s);
        for (i = 0; i < n; i++)
          ck_assert (fabs (sim_maxmin_get_rate (s, ids[i]) - kept[i])
                     <= SIM_MAXMIN_TOLERANCE * kept[i]);
      }
      for (i = 0; i < n; i++)
        ck_assert (sim_maxmin_remove_flow (s, ids[i]));
      ck_assert (sim_maxmin_remove_resource (s, link));
      /* A link kept with one uncapped flow, so the next system is larger. */
      link = sim_maxmin_add_resource (s, 1.0);
      sim_maxmin_add_flow (s, &link, 1, 1.0, INFINITY, NULL);
      ck_assert_uint_eq (sim_maxmin_solve (s), 1);
      g_free (ids);
      g_free (caps);
      g_free (sorted);
    }
}
END_TEST

START_TEST (test_random_invariants)
{
  for (guint32 seed = 1; seed <= 40; seed++)
    {
      Random r;
      guint n_flows;

      random_init (&r, seed, 40);
      n_flows = (guint) g_rand_int_range (r.rand, 1, 200);
      for (guint i = 0; i < n_flows; i++)
        random_flow (&r, 0, 40);
      sim_maxmin_solve (r.sys);
      check_max_min (&r);
      random_clear (&r);
    }
}
END_TEST

/* The rates a fresh system, built with the same flows, gives. */
static void
solve_from_scratch (Random *r, double *rates)
{
  g_autoptr(SimMaxmin) fresh = sim_maxmin_new ();
  SimMaxminId res[256], ids[6], *flow_ids = g_new (SimMaxminId, r->flows->len);

  for (guint k = 0; k < r->n_res; k++)
    res[k] = sim_maxmin_add_resource (fresh, r->cap[k]);
  /* In reverse order, so that ties are met in another order. */
  for (guint i = r->flows->len; i-- > 0;)
    {
      RFlow *f = &g_array_index (r->flows, RFlow, i);
      for (guint j = 0; j < f->n_res; j++)
        ids[j] = res[f->res[j]];
      flow_ids[i] = sim_maxmin_add_flow (fresh, ids, f->n_res, f->weight, f->cap, NULL);
    }
  sim_maxmin_solve (fresh);
  for (guint i = 0; i < r->flows->len; i++)
    rates[i] = sim_maxmin_get_rate (fresh, flow_ids[i]);
  g_free (flow_ids);
}

/* Flows in the component of resource set SEEDS (a union-find over flows
 * and resources, independent of the solver's search). */
static guint
uf_find (guint *parent, guint x)
{
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

static guint
component_flows (Random *r, const guint *seeds, guint n_seeds, const RFlow *removed)
{
  guint n = r->n_res + r->flows->len + 1, *parent = g_new (guint, n), count = 0;
  gboolean *in = g_new0 (gboolean, n);

  for (guint i = 0; i < n; i++)
    parent[i] = i;
  for (guint i = 0; i < r->flows->len; i++)
    {
      RFlow *f = &g_array_index (r->flows, RFlow, i);
      for (guint j = 0; j < f->n_res; j++)
        parent[uf_find (parent, r->n_res + i)] = uf_find (parent, f->res[j]);
    }
  for (guint s = 0; s < n_seeds; s++)
    in[uf_find (parent, seeds[s])] = TRUE;
  (void) removed;
  for (guint i = 0; i < r->flows->len; i++)
    count += in[uf_find (parent, r->n_res + i)];
  g_free (parent);
  g_free (in);
  return count;
}

START_TEST (test_incremental)
{
  enum { CLUSTERS = 16, SIZE = 8 };
  Random r;
  double *before = NULL, *fresh = NULL;
  /* _i == 0: solves by components (sim__maxmin_set_full()), which
   * recompute exactly the touched components; _i == 1: solves confined
   * to what changed, which recompute no more than those. */
  gboolean by_components = _i == 0;

  random_init (&r, 7, CLUSTERS * SIZE);
  sim__maxmin_set_full (r.sys, by_components);
  for (guint i = 0; i < 300; i++)
    random_flow (&r, (guint) g_rand_int_range (r.rand, 0, CLUSTERS), SIZE);
  sim_maxmin_solve (r.sys);

  for (guint step = 0; step < 600; step++)
    {
      guint op = (guint) g_rand_int_range (r.rand, 0, 10);
      guint seeds[6], n_seeds = 0, expected_solved = 0, n_changed;
      const SimMaxminId *changed;
      SimMaxminStats st;
      GHashTable *changed_set = g_hash_table_new (g_int64_hash, g_int64_equal);
      gboolean removed_only_empty = FALSE;

      before = g_renew (double, before, r.flows->len + 1);
      for (guint i = 0; i < r.flows->len; i++)
        before[i] = sim_maxmin_get_rate (r.sys, g_array_index (r.flows, RFlow, i).id);

      if (op < 4 || r.flows->len < 10)
        {
          /* Add a flow inside one cluster. */
          random_flow (&r, (guint) g_rand_int_range (r.rand, 0, CLUSTERS), SIZE);
          RFlow *f = &g_array_index (r.flows, RFlow, r.flows->len - 1);
          for (guint j = 0; j < f->n_res; j++)
            seeds[n_seeds++] = f->res[j];
          before[r.flows->len - 1] = NAN;
          expected_solved = n_seeds ? component_flows (&r, seeds, n_seeds, NULL) : 1;
        }
      else if (op < 8)
        {
          /* Remove a random flow. */
          guint i = (guint) g_rand_int_range (r.rand, 0, (gint32) r.flows->len);
          RFlow f = g_array_index (r.flows, RFlow, i);
          ck_assert (sim_maxmin_remove_flow (r.sys, f.id));
          g_array_remove_index_fast (r.flows, i);
          before[i] = before[r.flows->len];
          for (guint j = 0; j < f.n_res; j++)
            seeds[n_seeds++] = f.res[j];
          expected_solved = component_flows (&r, seeds, n_seeds, &f);
          removed_only_empty = n_seeds == 0;
        }
      else
        {
          /* Change a capacity. */
          guint k = (guint) g_rand_int_range (r.rand, 0, (gint32) r.n_res);
          r.cap[k] = g_rand_double_range (r.rand, 1.0, 100.0);
          ck_assert (sim_maxmin_set_capacity (r.sys, r.res[k], r.cap[k]));
          seeds[n_seeds++] = k;
          expected_solved = component_flows (&r, seeds, n_seeds, NULL);
        }

      sim_maxmin_solve (r.sys);
      sim_maxmin_get_stats (r.sys, &st);
      /* Only the touched components were recomputed, or fewer flows. */
      ck_assert_msg (by_components ? st.last_flows_solved == expected_solved || removed_only_empty
                                   : st.last_flows_solved <= expected_solved,
                     "step %u: solved %u flows, the touched components hold %u", step,
                     st.last_flows_solved, expected_solved);
      ck_assert (st.last_flows_solved < r.flows->len || r.flows->len < 40);

      /* The same rates as a solve from scratch. */
      fresh = g_renew (double, fresh, r.flows->len + 1);
      solve_from_scratch (&r, fresh);
      for (guint i = 0; i < r.flows->len; i++)
        {
          double got = sim_maxmin_get_rate (r.sys, g_array_index (r.flows, RFlow, i).id);
          ck_assert_msg (fabs (got - fresh[i]) <= 1e-9 * MAX (fabs (fresh[i]), 1e-12),
                         "step %u flow %u: incremental %.17g, from scratch %.17g", step, i,
                         got, fresh[i]);
        }

      /* The changed list names exactly the flows whose rate moved. */
      changed = sim_maxmin_get_changed (r.sys, &n_changed);
      for (guint c = 0; c < n_changed; c++)
        g_hash_table_add (changed_set, (gpointer) &changed[c]);
      for (guint i = 0; i < r.flows->len; i++)
        {
          RFlow *f = &g_array_index (r.flows, RFlow, i);
          double now = sim_maxmin_get_rate (r.sys, f->id);
          gboolean moved = isnan (before[i])
                           || fabs (now - before[i]) > 1e-12 * MAX (fabs (now), fabs (before[i]));
          ck_assert_msg (moved == g_hash_table_contains (changed_set, &f->id),
                         "step %u flow %u: moved %d but listed %d", step, i, moved,
                         !moved);
        }
      g_hash_table_unref (changed_set);
      if (step % 50 == 0)
        check_max_min (&r);
    }
  g_free (before);
  g_free (fresh);
  random_clear (&r);
}
END_TEST

/* Removal finds a flow's entry in a resource's list by a hint that it
 * rewrites only in lists longer than eight, and a list lives in four
 * entries by the resource until it outgrows them (sim-maxmin.c): on four
 * resources whose lists swell to fifty or ten flows and empty, over and
 * over, every entry moved while its list was short and removed once it is
 * long again must still be found, no other removed in its place, and no
 * entry lost as a list moves out of its four and back.  Checked after every step: each resource's usage is the sum of
 * the rates of the flows this test put on it (a list holding a wrong
 * entry gives another sum), and every 25 steps the rates are those of a
 * solve from scratch. */
START_TEST (test_removal_hints)
{
  Random r;
  double *fresh = NULL;
  guint target = 50, cycles = 0;

  random_init (&r, 23, 4);
  for (guint step = 0; step < 3000; step++)
    {
      double usage[4] = { 0 };

      /* Up to fifty flows and down to none, then up to ten (lists that
       * leave the resource's own four entries and come back to them)
       * and down to none, and again. */
      if (target > 0 && r.flows->len >= target)
        target = 0;
      else if (target == 0 && r.flows->len == 0)
        target = ++cycles % 2 == 0 ? 50 : 10;
      if (target > 0 ? g_rand_int_range (r.rand, 0, 10) < 7 || r.flows->len == 0
                     : r.flows->len == 0)
        random_flow (&r, 0, 4);
      else
        {
          guint i = (guint) g_rand_int_range (r.rand, 0, (gint32) r.flows->len);
          ck_assert (sim_maxmin_remove_flow (r.sys, g_array_index (r.flows, RFlow, i).id));
          g_array_remove_index_fast (r.flows, i);
        }
      sim_maxmin_solve (r.sys);
      for (guint i = 0; i < r.flows->len; i++)
        {
          RFlow *f = &g_array_index (r.flows, RFlow, i);
          for (guint j = 0; j < f->n_res; j++)
            usage[f->res[j]] += sim_maxmin_get_rate (r.sys, f->id);
        }
      for (guint k = 0; k < 4; k++)
        ck_assert_msg (fabs (sim_maxmin_get_usage (r.sys, r.res[k]) - usage[k])
                       <= 1e-9 * MAX (usage[k], 1),
                       "step %u resource %u: usage %.17g, its flows' rates sum to %.17g",
                       step, k, sim_maxmin_get_usage (r.sys, r.res[k]), usage[k]);
      if (step % 25 == 0)
        {
          fresh = g_renew (double, fresh, r.flows->len + 1);
          solve_from_scratch (&r, fresh);
          for (guint i = 0; i < r.flows->len; i++)
            ck_assert (fabs (sim_maxmin_get_rate (r.sys, g_array_index (r.flows, RFlow, i).id)
                             - fresh[i]) <= 1e-9 * MAX (fabs (fresh[i]), 1e-12));
        }
    }
  /* Every flow goes, and so does every entry. */
  for (guint i = r.flows->len; i-- > 0;)
    ck_assert (sim_maxmin_remove_flow (r.sys, g_array_index (r.flows, RFlow, i).id));
  g_array_set_size (r.flows, 0);
  sim_maxmin_solve (r.sys);
  for (guint k = 0; k < 4; k++)
    ck_assert (sim_maxmin_get_usage (r.sys, r.res[k]) == 0);
  g_free (fresh);
  random_clear (&r);
}
END_TEST

/* A full invalidation recomputes everything and changes nothing. */
START_TEST (test_invalidate)
{
  Random r;
  SimMaxminStats st;

  random_init (&r, 3, 32);
  for (guint i = 0; i < 100; i++)
    random_flow (&r, 0, 32);
  sim_maxmin_solve (r.sys);
  sim_maxmin_invalidate (r.sys);
  ck_assert_uint_eq (sim_maxmin_solve (r.sys), 0);
  sim_maxmin_get_stats (r.sys, &st);
  ck_assert_uint_eq (st.last_flows_solved, 100);
  random_clear (&r);
}
END_TEST

static int n_criticals;

static void
count_criticals (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  if (level & G_LOG_LEVEL_CRITICAL)
    n_criticals++;
}

/* Flows added as one entry (sim_maxmin_add_flows()) against the same flows
 * added one by one.  By hand first: a link of capacity 10 with a group of
 * three flows and one flow alone gives each 10 / 4, and the link's usage
 * counts all four; a second link of capacity 1 under the alone flow then
 * leaves 9 / 3 = 3 to each of the group.  Then random systems of unit
 * weight, with caps shared inside a group as demand caps are: after every
 * addition, removal and cap change, each group's rate equals that of each
 * of its flows in the system that holds them separately: to the last bit
 * (==, not a tolerance) when both are solved by components (_i == 0),
 * within SIM_MAXMIN_TOLERANCE when solves are confined to what changed
 * (_i == 1), where the two systems may grow their regions differently. */
START_TEST (test_grouped_flows)
{
  gboolean by_components = _i == 0;

  {
    g_autoptr(SimMaxmin) s = sim_maxmin_new ();
    SimMaxminId link = sim_maxmin_add_resource (s, 10.0), slow = sim_maxmin_add_resource (s, 1.0);
    SimMaxminId both[2] = { link, slow };
    SimMaxminId g = sim_maxmin_add_flows (s, &link, 1, 1.0, INFINITY, 3, NULL);
    SimMaxminId one = sim_maxmin_add_flow (s, &link, 1, 1.0, INFINITY, NULL);
    SimMaxminStats st;

    ck_assert (g != SIM_MAXMIN_NO_ID);
    sim_maxmin_solve (s);
    assert_close (sim_maxmin_get_rate (s, g), 2.5);
    assert_close (sim_maxmin_get_rate (s, one), 2.5);
    assert_close (sim_maxmin_get_usage (s, link), 10.0);
    ck_assert (sim_maxmin_remove_flow (s, one));
    one = sim_maxmin_add_flow (s, both, 2, 1.0, INFINITY, NULL);
    sim_maxmin_solve (s);
    assert_close (sim_maxmin_get_rate (s, one), 1.0);
    assert_close (sim_maxmin_get_rate (s, g), 3.0);
    assert_close (sim_maxmin_get_usage (s, link), 10.0);
    /* A count of 0, or over 65,535, is a programming error, refused. */
    {
      GLogLevelFlags old_fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
      GLogFunc old_handler = g_log_set_default_handler (count_criticals, NULL);
      n_criticals = 0;
      ck_assert (sim_maxmin_add_flows (s, &link, 1, 1.0, INFINITY, 0, NULL) == SIM_MAXMIN_NO_ID);
      ck_assert (sim_maxmin_add_flows (s, &link, 1, 1.0, INFINITY, 65536, NULL)
                 == SIM_MAXMIN_NO_ID);
      g_log_set_default_handler (old_handler, NULL);
      g_log_set_always_fatal (old_fatal);
      ck_assert_int_eq (n_criticals, 2);
      sim_maxmin_get_stats (s, &st);
      ck_assert_uint_eq (st.n_flows, 2);
    }
  }
  for (guint32 seed = 1; seed <= 30; seed++)
    {
      g_autoptr(SimMaxmin) sep = sim_maxmin_new ();
      g_autoptr(SimMaxmin) grp = sim_maxmin_new ();
      g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
      SimMaxminId res_a[24], res_b[24];
      /* Per group: its entry in grp and its flows in sep. */
      SimMaxminId entry[60], flows[60][6];
      guint count[60] = { 0 }, n_res = 24;

      sim__maxmin_set_full (sep, by_components);
      sim__maxmin_set_full (grp, by_components);
      for (guint r = 0; r < n_res; r++)
        {
          double c = g_rand_double_range (rand, 0.5, 40.0);
          res_a[r] = sim_maxmin_add_resource (sep, c);
          res_b[r] = sim_maxmin_add_resource (grp, c);
        }
      for (guint step = 0; step < 300; step++)
        {
          guint k = (guint) g_rand_int_range (rand, 0, 60);
          if (count[k] == 0)
            {
              SimMaxminId on_a[5], on_b[5];
              guint n = (guint) g_rand_int_range (rand, 1, 6), used = 0;
              double cap = g_rand_boolean (rand) ? INFINITY : g_rand_double_range (rand, 0.1, 9);
              for (guint i = 0; i < n; i++)
                {
                  guint r = (guint) g_rand_int_range (rand, 0, (gint) n_res);
                  gboolean dup = FALSE;
                  for (guint j = 0; j < used; j++)
                    dup = dup || on_a[j] == res_a[r];
                  if (dup)
                    continue;
                  on_a[used] = res_a[r];
                  on_b[used++] = res_b[r];
                }
              count[k] = (guint) g_rand_int_range (rand, 1, 7);
              entry[k] = sim_maxmin_add_flows (grp, on_b, used, 1.0, cap, count[k], NULL);
              /* The separate flows go in one by one, other groups' flows
               * left between them in each resource's list. */
              for (guint i = 0; i < count[k]; i++)
                flows[k][i] = sim_maxmin_add_flow (sep, on_a, used, 1.0, cap, NULL);
            }
          else if (g_rand_int_range (rand, 0, 3) == 0)
            {
              double cap = g_rand_boolean (rand) ? INFINITY : g_rand_double_range (rand, 0.1, 9);
              sim_maxmin_set_flow_cap (grp, entry[k], cap);
              for (guint i = 0; i < count[k]; i++)
                sim_maxmin_set_flow_cap (sep, flows[k][i], cap);
            }
          else
            {
              ck_assert (sim_maxmin_remove_flow (grp, entry[k]));
              for (guint i = 0; i < count[k]; i++)
                ck_assert (sim_maxmin_remove_flow (sep, flows[k][i]));
              count[k] = 0;
            }
          sim_maxmin_solve (sep);
          sim_maxmin_solve (grp);
          for (guint g = 0; g < 60; g++)
            for (guint i = 0; i < count[g]; i++)
              ck_assert_msg (by_components
                             ? sim_maxmin_get_rate (grp, entry[g])
                               == sim_maxmin_get_rate (sep, flows[g][i])
                             : fabs (sim_maxmin_get_rate (grp, entry[g])
                                     - sim_maxmin_get_rate (sep, flows[g][i]))
                               <= SIM_MAXMIN_TOLERANCE * sim_maxmin_get_rate (sep, flows[g][i]),
                             "seed %u step %u group %u: %.17g against %.17g", seed, step, g,
                             sim_maxmin_get_rate (grp, entry[g]),
                             sim_maxmin_get_rate (sep, flows[g][i]));
          for (guint r = 0; r < n_res; r++)
            assert_close (sim_maxmin_get_usage (grp, res_b[r]), sim_maxmin_get_usage (sep, res_a[r]));
        }
    }
}
END_TEST

/* Flows added by their resources' slots (sim__maxmin_add_flows_at()):
 * the two bottlenecks of test_two_bottlenecks by hand (B, of 4, binds
 * flows 1 and 3 at 2 each; A, of 10, leaves flow 2 with 8), a slot out of
 * range or freed refused without a trace (the next flow takes the slot
 * the refused one would have), and the usage of every slot in one pass
 * the same as each resource's. */
START_TEST (test_flows_by_slot)
{
  g_autoptr(SimMaxmin) s = sim_maxmin_new ();
  SimMaxminId a = sim_maxmin_add_resource (s, 10.0), b = sim_maxmin_add_resource (s, 4.0);
  SimMaxminId gone = sim_maxmin_add_resource (s, 1.0);
  guint32 ab[2] = { sim__maxmin_resource_slot (a), sim__maxmin_resource_slot (b) };
  guint32 bad[2] = { ab[0], 99 };
  guint32 freed = sim__maxmin_resource_slot (gone);
  SimMaxminId f1, f2, f3, refused;
  double usage[3];

  ck_assert (sim_maxmin_remove_resource (s, gone));
  f1 = sim__maxmin_add_flows_at (s, ab, 2, 1.0, INFINITY, 1, NULL);
  f2 = sim__maxmin_add_flows_at (s, &ab[0], 1, 1.0, INFINITY, 1, NULL);
  {
    GLogLevelFlags old_fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
    GLogFunc old_handler = g_log_set_default_handler (count_criticals, NULL);
    n_criticals = 0;
    refused = sim__maxmin_add_flows_at (s, bad, 2, 1.0, INFINITY, 1, NULL);
    ck_assert (refused == SIM_MAXMIN_NO_ID);
    refused = sim__maxmin_add_flows_at (s, &freed, 1, 1.0, INFINITY, 1, NULL);
    ck_assert (refused == SIM_MAXMIN_NO_ID);
    g_log_set_default_handler (old_handler, NULL);
    g_log_set_always_fatal (old_fatal);
    ck_assert_int_eq (n_criticals, 2);
  }
  f3 = sim__maxmin_add_flows_at (s, &ab[1], 1, 1.0, INFINITY, 1, NULL);
  ck_assert_uint_eq ((guint32) f3, (guint32) f2 + 1);
  sim_maxmin_solve (s);
  assert_close (sim_maxmin_get_rate (s, f1), 2.0);
  assert_close (sim_maxmin_get_rate (s, f2), 8.0);
  assert_close (sim_maxmin_get_rate (s, f3), 2.0);
  sim__maxmin_get_usages (s, NULL, 3, usage);
  ck_assert (usage[ab[0]] == sim_maxmin_get_usage (s, a));
  ck_assert (usage[ab[1]] == sim_maxmin_get_usage (s, b));
  assert_close (usage[ab[0]], 10.0);
  assert_close (usage[ab[1]], 4.0);
  ck_assert (usage[freed] == -1);
  /* By a list of slots, in its order; one out of range reads -1. */
  {
    guint32 list[3] = { ab[1], 99, ab[0] };
    sim__maxmin_get_usages (s, list, 3, usage);
    assert_close (usage[0], 4.0);
    ck_assert (usage[1] == -1);
    assert_close (usage[2], 10.0);
  }
}
END_TEST

/* The solver's shortcuts (resources crossed by one flow left out of the
 * heap when another of the flow's resources is sure to saturate first;
 * the filling stopped once every flow is fixed) against progressive
 * filling as written (sim__maxmin_set_plain()): random systems in which
 * most resources carry one flow, with capacities from a few values so
 * that levels tie, weights of 1 and not, caps, and changes made one at a
 * time; every rate must be the same to the last bit (==), both systems
 * solved by components (the region solves are held to these within
 * SIM_MAXMIN_TOLERANCE by tests/check-maxmin-fabrics.c). */
START_TEST (test_shortcuts_exact)
{
  static const double caps[] = { 1.0, 2.5, 2.5, 7.0, 12.5, 50.0 };

  for (guint32 seed = 1; seed <= 40; seed++)
    {
      g_autoptr(SimMaxmin) fast = sim_maxmin_new ();
      g_autoptr(SimMaxmin) plain = sim_maxmin_new ();
      g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
      SimMaxminId ra[64], rb[64], fa[80], fb[80];
      gboolean on[80] = { FALSE };
      gboolean unit = seed % 2 == 0;
      guint n_res = 64;

      sim__maxmin_set_plain (plain, TRUE);
      sim__maxmin_set_full (fast, TRUE);
      for (guint r = 0; r < n_res; r++)
        {
          double c = caps[g_rand_int_range (rand, 0, G_N_ELEMENTS (caps))];
          ra[r] = sim_maxmin_add_resource (fast, c);
          rb[r] = sim_maxmin_add_resource (plain, c);
        }
      for (guint step = 0; step < 400; step++)
        {
          guint k = (guint) g_rand_int_range (rand, 0, 80);
          if (!on[k])
            {
              SimMaxminId a[6], b[6];
              guint n = (guint) g_rand_int_range (rand, 1, 7), used = 0;
              double w = unit ? 1.0 : g_rand_double_range (rand, 0.3, 3.0);
              double cap = g_rand_int_range (rand, 0, 4) == 0 ? g_rand_double_range (rand, 0.2, 6)
                                                             : INFINITY;
              guint count = (guint) g_rand_int_range (rand, 1, 4);
              for (guint i = 0; i < n; i++)
                {
                  guint r = (guint) g_rand_int_range (rand, 0, (gint) n_res);
                  gboolean dup = FALSE;
                  for (guint j = 0; j < used; j++)
                    dup = dup || a[j] == ra[r];
                  if (!dup)
                    {
                      a[used] = ra[r];
                      b[used++] = rb[r];
                    }
                }
              fa[k] = sim_maxmin_add_flows (fast, a, used, w, cap, count, NULL);
              fb[k] = sim_maxmin_add_flows (plain, b, used, w, cap, count, NULL);
              on[k] = TRUE;
            }
          else if (g_rand_int_range (rand, 0, 3) == 0)
            {
              double cap = g_rand_boolean (rand) ? INFINITY : g_rand_double_range (rand, 0.2, 6);
              sim_maxmin_set_flow_cap (fast, fa[k], cap);
              sim_maxmin_set_flow_cap (plain, fb[k], cap);
            }
          else
            {
              sim_maxmin_remove_flow (fast, fa[k]);
              sim_maxmin_remove_flow (plain, fb[k]);
              on[k] = FALSE;
            }
          if (g_rand_int_range (rand, 0, 10) == 0)
            {
              guint r = (guint) g_rand_int_range (rand, 0, (gint) n_res);
              double c = caps[g_rand_int_range (rand, 0, G_N_ELEMENTS (caps))];
              sim_maxmin_set_capacity (fast, ra[r], c);
              sim_maxmin_set_capacity (plain, rb[r], c);
            }
          sim_maxmin_solve (fast);
          sim_maxmin_solve (plain);
          for (guint g = 0; g < 80; g++)
            if (on[g])
              ck_assert_msg (sim_maxmin_get_rate (fast, fa[g]) == sim_maxmin_get_rate (plain, fb[g]),
                             "seed %u step %u flow %u: %.17g, plain filling %.17g", seed, step,
                             g, sim_maxmin_get_rate (fast, fa[g]),
                             sim_maxmin_get_rate (plain, fb[g]));
        }
    }
}
END_TEST

static Suite *
maxmin_suite (void)
{
  Suite *s = suite_create ("maxmin");
  TCase *tc = tcase_create ("hand-solved");

  tcase_add_test (tc, test_single_link);
  tcase_add_test (tc, test_parking_lot);
  tcase_add_test (tc, test_two_bottlenecks);
  tcase_add_test (tc, test_capped);
  tcase_add_test (tc, test_worst_shortfall);
  tcase_add_test (tc, test_weighted);
  tcase_add_test (tc, test_no_resources);
  tcase_add_test (tc, test_stale_ids);
  tcase_add_test (tc, test_flows_by_slot);
  suite_add_tcase (s, tc);
  tc = tcase_create ("random");
  tcase_add_test (tc, test_many_caps);
  tcase_add_test (tc, test_random_invariants);
  tcase_add_loop_test (tc, test_incremental, 0, 2);
  tcase_add_test (tc, test_invalidate);
  tcase_add_test (tc, test_removal_hints);
  tcase_add_loop_test (tc, test_grouped_flows, 0, 2);
  tcase_add_test (tc, test_shortcuts_exact);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (maxmin_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
