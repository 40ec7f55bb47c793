/* check-cost.c: tests of the cost model (libsim/power/sim-cost.c) and the
 * [cost] scenario section.
 *
 * What is checked, and against what:
 * - the energy cost and the emissions of a time-of-use schedule equal
 *   integrals computed here by hand, segment by segment, over intervals
 *   that cross price boundaries where no event falls (daily, weekly and
 *   timed schedules, a daily schedule that wraps before its first row);
 * - the break-even utilization equals its closed form (fixed + idle) /
 *   (GPUs x price - dynamic), written out here from the catalogue's
 *   prices, on a constant load; owning at that utilization costs what
 *   renting costs, and owning at the run's own utilization costs what the
 *   run cost; on a load that varies, the idle and dynamic power are the
 *   line the state was fed from;
 * - every [cost] key moves its figure the expected way;
 * - bad schedule files and bad keys are errors naming the file, the line
 *   and the column or key, and what was expected;
 * - the capex of a 2-node DGX H100 cluster on one switch and on a small
 *   fat tree equals the hand sum of models/SOURCES.md prices (DGX H100
 *   $270k, A3 and E; 64-port NDR switch $36k, E) and the fabric's counts,
 *   themselves checked by hand for the single switch and the fat tree;
 * - a scenario without [cost] reports no cost figure;
 * - end to end with the power model on: the energy cost and emissions equal
 *   the price and intensity times the facility energy that the power
 *   model's own accumulator integrates.
 *
 * What is not asserted: that the published prices are right (only that
 * the model adds them up as it says), the layout of the text summary
 * beyond a few phrases, or the power model's figures (the state is fed by
 * hand, except in the end-to-end test; tests/check-power.c checks them).
 */
#include "config.h"

#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "core/sim-error.h"
#include "scenario/sim-scenario.h"
#include "kernel/sim-simulation.h"
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "power/sim-cost-private.h"
#include "report/sim-metrics.h"
#include "report/sim-report.h"
#include "check-tree.h"

#ifndef SIM_TOP_SRCDIR
#error "SIM_TOP_SRCDIR must be defined by the build"
#endif

#define MODELDIR SIM_TOP_SRCDIR "/models"
#define HOUR ((SimTime) 3600 * SIM_SECOND)

/* Hours in a year of 365.25 days, as the amortization and maintenance
 * figures count them. */
#define YEAR_H 8766.0

/* models/SOURCES.md: A3/E "DGX H100" ≈$270k; E "64-port NDR switch" $36k;
 * E "AWS p5.48xlarge" $98.32/h on demand, Capacity Blocks $39.33/h; A3
 * "Max power" 10.2 kW; A1 "H100 SXM" idle 69 W (models/gpus/h100-sxm.ini). */
#define DGX_H100_USD   270000.0
#define QM9700_USD     36000.0
#define QM9700_W       1000.0   /* models/switches/quantum-2-qm9700.ini: power, an estimate */
#define P5_ON_DEMAND   98.32
#define P5_RESERVED    39.33
#define DGX_H100_MAX_W 10200.0
#define H100_IDLE_W    69.0

static char *tmpdir;

static char *capex_scenario (const char *fabric, gboolean with_cost);

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("gpusim-cost-XXXXXX", NULL);
  ck_assert_ptr_nonnull (tmpdir);
}

static void
teardown (void)
{
  check_remove_tree (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static char *
write_file (const char *name, const char *contents)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  ck_assert (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

static gboolean
near (double got, double want, double rel)
{
  return fabs (got - want) <= rel * fabs (want) + 1e-12;
}

static SimCatalogue *
load_catalogue (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) c = sim_catalogue_new ();

  ck_assert_msg (sim_catalogue_add_directory (c, MODELDIR, &error), "%s",
                 error ? error->message : "?");
  ck_assert (sim_catalogue_resolve (c, &error));
  return g_steal_pointer (&c);
}

/* Two DGX H100 nodes (16 GPUs), a workload the fed tests never run, a
 * [cost] section of @cost's lines, and [power] on (its model is not built
 * by feed(): the tests feed the power themselves). */
static char *
scenario_text (const char *pool_model, const char *cost)
{
  return g_strdup_printf ("[scenario]\n"
                          "name = cost-test\n"
                          "seed = 1\n"
                          "horizon = 2d\n"
                          "\n"
                          "[pool p]\n"
                          "model = %s\n"
                          "count = 2\n"
                          "\n"
                          "[workload]\n"
                          "source = synthetic\n"
                          "rate = 1/h\n"
                          "gpus = 8\n"
                          "duration = constant(1h)\n"
                          "\n"
                          "[fabric]\n"
                          "topology = single-switch\n"
                          "switch = Quantum-2-QM9700\n"
                          "\n"
                          "[cost]\n"
                          "%s"
                          "\n"
                          "[power]\n", pool_model, cost);
}

static SimScenario *
load_scenario (const char *pool_model, const char *cost, const char * const *overrides,
               GError **error)
{
  g_autofree char *text = scenario_text (pool_model, cost);
  return sim_scenario_load_from_data (text, -1, "cost-test.ini", tmpdir, overrides, error);
}

/* One stretch of fed state: for @dur, @share of the GPUs allocated, the
 * facility drawing @facility_w and the IT equipment @it_w. */
typedef struct {
  SimTime dur;
  double  share;
  double  facility_w;
  double  it_w;
} Step;

typedef struct {
  guint switches, cables, transceivers;
} Fabric;

/* Builds the cost accumulator of @sc and feeds it @steps through its
 * vtable, as the simulation would between events; @completed jobs finish.
 * Returns the report it adds to, or NULL with @error set. */
static SimReport *
feed (SimScenario *sc, const Step *steps, guint n, guint completed, const Fabric *fabric,
      GError **error)
{
  g_autoptr(SimCatalogue) cat = load_catalogue ();
  g_autoptr(SimCluster) cluster = sim_cluster_new_for_scenario (sc, cat, error);
  SimAccumulator *acc;
  SimState st = { 0 };
  SimReportInfo info = { 0 };
  SimReport *report;
  SimTime t = 0;
  guint gpus;

  if (cluster == NULL)
    return NULL;
  gpus = sim_cluster_get_n_gpus (cluster);
  acc = sim__cost_accumulator_new (sc, cat, cluster, error);
  if (acc == NULL)
    return NULL;
  for (guint i = 0; i < n; i++)
    {
      st.allocated_milli = (guint64) llround (steps[i].share * gpus * 1000);
      st.facility_power_w = steps[i].facility_w;
      st.it_power_w = steps[i].it_w;
      t += steps[i].dur;
      acc->vtable->advance (acc, &st, t);
    }
  for (guint j = 0; j < completed; j++)
    acc->vtable->job_event (acc, SIM_JOB_FINISHED, NULL, "c", t);
  info.scenario = "cost-test";
  info.cluster = "test";
  info.policy = "fifo";
  info.workload = "fed";
  info.gpus = gpus;
  info.end = t;
  if (fabric != NULL)
    {
      info.have_fabric = TRUE;
      info.switches = fabric->switches;
      info.cables = fabric->cables;
      info.transceivers = fabric->transceivers;
    }
  report = sim__report_new (&info);
  acc->vtable->report (acc, report, &info);
  acc->vtable->free (acc);
  return report;
}

static double
metric (const SimReport *r, const char *name)
{
  double v = NAN;
  ck_assert_msg (sim_report_get_value (r, name, &v), "no metric %s", name);
  return v;
}

/* ------------------------------------------------------------------------ */
/* Time-of-use energy: exact integrals */

/* Truth: the integral of price x power written out by hand, one product
 * per piece between price boundaries. */
START_TEST (test_tou_integral)
{
  g_autofree char *prices = write_file ("daily.csv",
                                        "# a daily tariff\n"
                                        "hour,usd_per_kwh\n"
                                        "0,0.10\n"
                                        "7,0.25\n"
                                        "\n"
                                        "19,0.15\n");
  g_autofree char *carbon = write_file ("carbon.csv",
                                        "time,kgco2e_per_kwh\n"
                                        "0s,0.5\n"
                                        "10h,0.2\n"
                                        "30h,0.4\n");
  g_autofree char *cost = g_strdup_printf ("energy_price_file = %s\n"
                                           "carbon_intensity_file = carbon.csv\n"
                                           "start_hour = 6\n", prices);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = load_scenario ("DGX-H100", cost, NULL, &error);
  /* Two events only, at 3 h and 40 h: every price change in between (07:00,
   * 19:00, 00:00, 07:00, 19:00 from a 06:00 start) falls between events. */
  const Step steps[] = {
    { 3 * HOUR, 0.5, 1000, 800 },
    { 37 * HOUR, 0.5, 2500, 2000 },
  };
  g_autoptr(SimReport) r = NULL;
  double want_usd, want_kg;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "?");
  r = feed (sc, steps, G_N_ELEMENTS (steps), 0, NULL, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "?");

  /* 06-07 at 0.10 and 07-09 at 0.25 drawing 1 kW; then 2.5 kW from 09:00
   * to 22:00 the next day: 09-19 (10 h) 0.25, 19-24 (5 h) 0.15, 00-07
   * (7 h) 0.10, 07-19 (12 h) 0.25, 19-22 (3 h) 0.15. */
  want_usd = 1.0 * (1 * 0.10 + 2 * 0.25)
             + 2.5 * (10 * 0.25 + 5 * 0.15 + 7 * 0.10 + 12 * 0.25 + 3 * 0.15);
  ck_assert (near (want_usd, 19.1, 1e-12));
  ck_assert_msg (near (metric (r, "cost_energy"), want_usd, 1e-12), "energy cost %.15g, want %.15g",
                 metric (r, "cost_energy"), want_usd);
  ck_assert (near (metric (r, "cost_energy_kwh"), 3 + 92.5, 1e-12));
  ck_assert (near (metric (r, "cost_energy_price_mean"), want_usd / 95.5, 1e-12));
  /* 0.5 until 10 h, 0.2 until 30 h, then 0.4: 1 kW for 3 h, 2.5 kW after. */
  want_kg = 1.0 * 3 * 0.5 + 2.5 * 7 * 0.5 + 2.5 * 20 * 0.2 + 2.5 * 10 * 0.4;
  ck_assert_msg (near (metric (r, "cost_emissions"), want_kg, 1e-12), "emissions %.15g, want %.15g",
                 metric (r, "cost_emissions"), want_kg);
}
END_TEST

/* Truth: a week starting Friday 12:00; prices change at Saturday 00:00 and
 * Monday 00:00. */
START_TEST (test_tou_weekly)
{
  g_autofree char *prices = write_file ("weekly.csv",
                                        "weekday,hour,usd_per_kwh\n"
                                        "mon,0,0.20\n"
                                        "Saturday,0,0.05\n");
  g_autofree char *cost = g_strdup_printf ("energy_price_file = %s\n"
                                           "start_weekday = fri\n"
                                           "start_hour = 12\n", prices);
  g_autoptr(SimScenario) sc = load_scenario ("DGX-H100", cost, NULL, NULL);
  /* Fri 12:00 to Mon 06:00: 12 h at 0.20, 48 h at 0.05, 6 h at 0.20. */
  const Step steps[] = { { 66 * HOUR, 1, 4000, 3000 } };
  g_autoptr(SimReport) r = feed (sc, steps, 1, 0, NULL, NULL);

  ck_assert_ptr_nonnull (r);
  ck_assert (near (metric (r, "cost_energy"), 4.0 * (12 * 0.20 + 48 * 0.05 + 6 * 0.20), 1e-12));
}
END_TEST

/* Truth: a daily schedule whose first row is not at midnight wraps: before
 * 07:00 the 19:00 price holds. */
START_TEST (test_schedule_lookup)
{
  g_autofree char *path = write_file ("wrap.csv", "hour,usd_per_kwh\n7,0.3\n19.5,0.1\n");
  g_autofree char *timed = write_file ("timed.csv", "time,usd_per_kwh\n0s,0.2\n1d,0.4\n");
  SimCostSchedule s, t;
  SimTime until;
  g_autoptr(GError) error = NULL;

  ck_assert_msg (sim__cost_schedule_load (&s, path, "usd_per_kwh", 100, 0, &error), "%s",
                 error ? error->message : "?");
  ck_assert (sim__cost_schedule_at (&s, 3 * HOUR, &until) == 0.1);
  ck_assert_int_eq (until, 7 * HOUR);
  ck_assert (sim__cost_schedule_at (&s, 7 * HOUR, &until) == 0.3);
  ck_assert_int_eq (until, 19 * HOUR + HOUR / 2);
  ck_assert (sim__cost_schedule_at (&s, 20 * HOUR, &until) == 0.1);
  ck_assert_int_eq (until, 31 * HOUR);
  ck_assert (sim__cost_schedule_at (&s, 50 * HOUR, &until) == 0.1);  /* day 3, 02:00 */
  ck_assert_int_eq (until, 55 * HOUR);
  sim__cost_schedule_clear (&s);

  ck_assert (sim__cost_schedule_load (&t, timed, "usd_per_kwh", 100, 5 * HOUR, &error));
  ck_assert (sim__cost_schedule_at (&t, 0, &until) == 0.2);
  ck_assert_int_eq (until, 24 * HOUR);
  ck_assert (sim__cost_schedule_at (&t, 30 * HOUR, &until) == 0.4);
  ck_assert_int_eq (until, SIM_TIME_NEVER);
  sim__cost_schedule_clear (&t);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Break-even */

/* Truth: the closed form u* = (F + E_idle) / (G c - E_dyn), with F from the
 * catalogue's prices and E split from the run's power in the proportion of
 * the rated idle (8 x 69 W) and maximum (10.2 kW) node power. */
START_TEST (test_break_even_constant)
{
  const char *cost = "amortization = 4y\n"
                     "maintenance = 5%\n"
                     "energy_price = 0.12\n"
                     "cooling_usd_per_kw = 1000\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = load_scenario ("DGX-H100", cost, NULL, &error);
  const double u0 = 0.6, power = 12000;
  const Step steps[] = { { 100 * HOUR, u0, power, 10000 } };
  g_autoptr(SimReport) r = NULL;
  double capex, fixed, idle_w, full_w, a, b, e_idle, e_dyn, c_od, c_res, u_od, u_res;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "?");
  r = feed (sc, steps, 1, 40, NULL, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "?");

  /* Two DGX H100 and the cooling plant for their 2 x 10.2 kW; no fabric
   * figures were given, so no network capex. */
  capex = 2 * DGX_H100_USD + 2 * DGX_H100_MAX_W / 1000 * 1000;
  ck_assert (near (metric (r, "cost_capex"), capex, 1e-12));
  fixed = capex / (4 * YEAR_H) + capex * 0.05 / YEAR_H;
  ck_assert (near (metric (r, "cost_owning_fixed_per_hour"), fixed, 1e-12));

  idle_w = 8 * H100_IDLE_W;
  full_w = DGX_H100_MAX_W;
  a = power * idle_w / (idle_w + u0 * (full_w - idle_w));
  b = power * (full_w - idle_w) / (idle_w + u0 * (full_w - idle_w));
  e_idle = 0.12 * a / 1000;
  e_dyn = 0.12 * b / 1000;
  ck_assert (near (metric (r, "cost_idle_energy_per_hour"), e_idle, 1e-12));
  ck_assert (near (metric (r, "cost_dynamic_energy_per_hour"), e_dyn, 1e-12));

  c_od = P5_ON_DEMAND / 8;
  c_res = P5_RESERVED / 8;
  u_od = (fixed + e_idle) / (16 * c_od - e_dyn);
  u_res = (fixed + e_idle) / (16 * c_res - e_dyn);
  ck_assert (near (metric (r, "cost_break_even_on_demand"), u_od, 1e-12));
  ck_assert (near (metric (r, "cost_break_even_reserved"), u_res, 1e-12));
  ck_assert (near (sim_cost_break_even (fixed, e_idle, e_dyn, 16, c_od), u_od, 1e-15));
  ck_assert (u_od > 0 && u_od < u_res && u_res < 1);

  /* Owning at u* costs what renting does: the break-even utilizations the
   * model reports against that definition, owning priced with the model's
   * own hourly figures (each checked by hand above) and renting at the
   * published per-GPU prices.  (The closed form u_od satisfies it by
   * construction, so it is not what is put to the test here.) */
  for (guint k = 0; k < 2; k++)
    {
      double u = metric (r, k == 0 ? "cost_break_even_on_demand" : "cost_break_even_reserved");
      double owning = metric (r, "cost_owning_fixed_per_hour")
                      + metric (r, "cost_idle_energy_per_hour")
                      + u * metric (r, "cost_dynamic_energy_per_hour");
      ck_assert_msg (near (owning, u * 16 * (k == 0 ? c_od : c_res), 1e-12),
                     "owning at %g costs %.15g/h, renting %.15g/h", u, owning,
                     u * 16 * (k == 0 ? c_od : c_res));
    }
  /* Owning at the run's own utilization costs what the run cost per hour. */
  ck_assert (near (metric (r, "cost_utilization"), u0, 1e-12));
  ck_assert (near (fixed + e_idle + u0 * e_dyn, metric (r, "cost_tco") / 100, 1e-12));
  ck_assert (near (metric (r, "cost_energy"), 0.12 * 12 * 100, 1e-12));
  /* Renting the delivered GPU-hours. */
  ck_assert (near (metric (r, "cost_delivered_gpu_hours"), u0 * 16 * 100, 1e-12));
  ck_assert (near (metric (r, "cost_rent_on_demand"), u0 * 16 * 100 * c_od, 1e-12));
  ck_assert (near (metric (r, "cost_rent_reserved_per_gpu_hour"), c_res, 1e-15));
  ck_assert (near (metric (r, "cost_per_gpu_hour"), metric (r, "cost_tco") / (u0 * 1600), 1e-12));
  ck_assert (near (metric (r, "cost_per_job"), metric (r, "cost_tco") / 40, 1e-12));
  ck_assert_str_eq (sim_report_get_unit (r, "cost_break_even_on_demand"), "fraction");
  ck_assert_str_eq (sim_report_get_unit (r, "cost_per_gpu_hour"), "USD/GPU-h");
  ck_assert_str_eq (sim_report_get_unit (r, "cost_emissions"), "kgCO2e");

  /* Renting cheaper than the dynamic energy alone: owning never pays. */
  ck_assert (isinf (sim_cost_break_even (10, 1, 100, 2, 50)));
}
END_TEST

/* Truth: power fed as P = 2 kW + 10 kW x u at two utilizations; the line
 * the model fits is that line. */
START_TEST (test_break_even_line)
{
  g_autoptr(SimScenario) sc = load_scenario ("DGX-H100", "energy_price = 0.12\n", NULL, NULL);
  const Step steps[] = {
    { 10 * HOUR, 0.25, 2000 + 10000 * 0.25, 4000 },
    { 30 * HOUR, 0.75, 2000 + 10000 * 0.75, 8000 },
  };
  g_autoptr(SimReport) r = feed (sc, steps, 2, 0, NULL, NULL);

  ck_assert_ptr_nonnull (r);
  ck_assert (near (metric (r, "cost_idle_energy_per_hour"), 0.12 * 2.0, 1e-9));
  ck_assert (near (metric (r, "cost_dynamic_energy_per_hour"), 0.12 * 10.0, 1e-9));
  ck_assert (near (metric (r, "cost_utilization"), (10 * 0.25 + 30 * 0.75) / 40, 1e-12));
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Every key moves its figure */

typedef struct {
  const char *key;
  const char *metric;
  const char *low[3];   /* overrides giving the lower figure */
  const char *high[3];
} KeyCase;

/* Files the cases name, written by key_files(). */
static const KeyCase key_cases[] = {
  { "cloud", "cost_rent_on_demand",
    { "cost.cloud=AWS-p4d.24xlarge" }, { "cost.cloud=AWS-p5.48xlarge" } },
  /* The pool's GPUs are H100-SXM: their entry wins over the price for the
   * other models, which the lower case rents at. */
  { "cloud_price", "cost_rent_on_demand",
    { "cost.cloud_price=H200-SXM: 9/GPU-h, 1.5/GPU-h" },
    { "cost.cloud_price=h100-sxm: 4 USD/GPU-h, 1.5/GPU-h" } },
  { "amortization", "cost_amortized_capex",
    { "cost.amortization=6y" }, { "cost.amortization=156w" } },
  { "maintenance", "cost_maintenance", { "cost.maintenance=1%" }, { "cost.maintenance=0.1" } },
  { "energy_price", "cost_energy", { "cost.energy_price=0.05" }, { "cost.energy_price=0.2" } },
  { "energy_price_file", "cost_energy",
    { "cost.energy_price_file=flat.csv" }, { "cost.energy_price_file=peaky.csv" } },
  { "carbon_intensity", "cost_emissions",
    { "cost.carbon_intensity=0.1" }, { "cost.carbon_intensity=0.5" } },
  { "carbon_intensity_file", "cost_emissions",
    { "cost.carbon_intensity_file=carbon-low.csv" },
    { "cost.carbon_intensity_file=carbon-high.csv" } },
  /* The weekly file is dear on weekdays: a day from Saturday costs less. */
  { "start_weekday", "cost_energy",
    { "cost.energy_price_file=week.csv", "cost.start_weekday=sat" },
    { "cost.energy_price_file=week.csv", "cost.start_weekday=fri" } },
  /* The daily file is dear after noon, the feed draws more in its second
   * half: starting at noon puts the higher draw in the cheap half. */
  { "start_hour", "cost_energy",
    { "cost.energy_price_file=noon.csv", "cost.start_hour=12" },
    { "cost.energy_price_file=noon.csv", "cost.start_hour=0" } },
  { "cooling_usd_per_kw", "cost_capex_facility",
    { "cost.cooling_usd_per_kw=500" }, { "cost.cooling_usd_per_kw=2000" } },
  { "electrical_usd_per_kw", "cost_capex_facility",
    { "cost.electrical_usd_per_kw=500" }, { "cost.electrical_usd_per_kw=3000" } },
  /* The peak IT power fed (11 kW) is below the rated 20.4 kW. */
  { "capacity_basis", "cost_capacity",
    { "cost.capacity_basis=peak" }, { "cost.capacity_basis=rated" } },
  { "cable_price", "cost_capex_network", { "cost.cable_price=100" }, { "cost.cable_price=900" } },
  { "transceiver_price", "cost_capex_network",
    { "cost.transceiver_price=100" }, { "cost.transceiver_price=1200" } },
};

static SimReport *
run_case (const char * const *overrides)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = load_scenario ("DGX-H100", "cooling_usd_per_kw = 100\n",
                                             overrides, &error);
  const Step steps[] = {
    { 12 * HOUR, 0.5, 8000, 6000 },
    { 12 * HOUR, 0.9, 14000, 11000 },
  };
  const Fabric fabric = { 2, 20, 8 };
  SimReport *r;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "?");
  r = feed (sc, steps, G_N_ELEMENTS (steps), 10, &fabric, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "?");
  return r;
}

START_TEST (test_key_direction)
{
  const KeyCase *k = &key_cases[_i];
  g_autofree char *a = write_file ("flat.csv", "hour,usd_per_kwh\n0,0.1\n");
  g_autofree char *b = write_file ("peaky.csv", "hour,usd_per_kwh\n0,0.1\n9,0.4\n17,0.1\n");
  g_autofree char *c = write_file ("carbon-low.csv", "time,kgco2e_per_kwh\n0s,0.1\n");
  g_autofree char *d = write_file ("carbon-high.csv", "time,kgco2e_per_kwh\n0s,0.1\n6h,0.9\n");
  g_autofree char *e = write_file ("week.csv", "weekday,hour,usd_per_kwh\nmon,0,0.3\nsat,0,0.1\n");
  g_autofree char *f = write_file ("noon.csv", "hour,usd_per_kwh\n0,0.1\n12,0.3\n");
  g_autoptr(SimReport) lo = run_case (k->low);
  g_autoptr(SimReport) hi = run_case (k->high);
  gboolean listed = FALSE;

  ck_assert_msg (metric (lo, k->metric) < metric (hi, k->metric), "%s: %s %g is not below %g",
                 k->key, k->metric, metric (lo, k->metric), metric (hi, k->metric));
  /* The case covers a real key. */
  for (const char * const *key = sim_cost_config_keys (); *key != NULL; key++)
    listed |= strcmp (*key, k->key) == 0;
  ck_assert (listed);
}
END_TEST

/* Every key has a case above, and `cloud = none` rents nothing. */
START_TEST (test_every_key_has_a_case)
{
  const char * const none[] = { "cost.cloud=none", NULL };
  g_autoptr(SimReport) r = NULL;

  for (const char * const *key = sim_cost_config_keys (); *key != NULL; key++)
    {
      gboolean found = FALSE;
      for (gsize i = 0; i < G_N_ELEMENTS (key_cases); i++)
        found |= strcmp (key_cases[i].key, *key) == 0;
      ck_assert_msg (found, "no test case for [cost] %s", *key);
    }
  r = run_case (none);
  ck_assert (!sim_report_get_value (r, "cost_rent_on_demand", NULL));
  ck_assert (!sim_report_get_value (r, "cost_break_even_reserved", NULL));
  ck_assert (sim_report_get_value (r, "cost_tco", NULL));
}
END_TEST

/* cloud_price rents every delivered GPU-hour at the price given, on
 * demand only: the rent is the catalogue offer's GPU-hours times the price
 * (the offer's own rent divided by its price per GPU-hour), and there is no
 * reserved figure. */
START_TEST (test_cloud_price)
{
  const char * const offer[] = { "cost.cloud=AWS-p5.48xlarge", NULL };
  const char * const priced[] = { "cost.cloud_price=2.5/GPU-h", NULL };
  g_autoptr(SimReport) a = run_case (offer);
  g_autoptr(SimReport) b = run_case (priced);
  double gpu_hours = metric (a, "cost_rent_on_demand") /
                     metric (a, "cost_rent_on_demand_per_gpu_hour");

  ck_assert (near (metric (b, "cost_rent_on_demand_per_gpu_hour"), 2.5, 0));
  ck_assert (near (metric (b, "cost_rent_on_demand"), 2.5 * gpu_hours, 1e-9));
  ck_assert (!sim_report_get_value (b, "cost_rent_reserved", NULL));
  /* Owning is unchanged by what renting would cost. */
  ck_assert (near (metric (b, "cost_tco"), metric (a, "cost_tco"), 0));
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Bad input */

typedef struct {
  const char *label;
  const char *contents;
  int         code;
  const char *must[3];  /* "@" stands for the file's path */
} BadCsv;

static const BadCsv bad_csvs[] = {
  { "bad header", "when,usd_per_kwh\n0,1\n", SIM_ERROR_PARSE,
    { "@:1: ", "header \"when,usd_per_kwh\"", "hour,usd_per_kwh (daily)" } },
  { "wrong unit column", "# prices\nhour,cents_per_kwh\n0,12\n", SIM_ERROR_PARSE,
    { "@:2: cents_per_kwh: ", "expected \"usd_per_kwh\"" } },
  { "hour out of range", "hour,usd_per_kwh\n0,0.1\n24,0.2\n", SIM_ERROR_PARSE,
    { "@:3: hour: ", "\"24\"", "[0, 24)" } },
  { "hours out of order", "hour,usd_per_kwh\n8,0.1\n\n7,0.2\n", SIM_ERROR_INVALID,
    { "@:4: hour: ", "increasing order" } },
  { "price not a number", "hour,usd_per_kwh\n0,cheap\n", SIM_ERROR_PARSE,
    { "@:2: usd_per_kwh: ", "cheap" } },
  { "negative price", "hour,usd_per_kwh\n0,-0.1\n", SIM_ERROR_INVALID,
    { "@:2: usd_per_kwh: ", "out of range" } },
  { "too many fields", "hour,usd_per_kwh\n0,0.1,x\n", SIM_ERROR_PARSE,
    { "@:2: ", "3 fields: expected 2" } },
  { "bad weekday", "weekday,hour,usd_per_kwh\nmon,0,0.1\nfunday,0,0.2\n", SIM_ERROR_PARSE,
    { "@:3: weekday: ", "\"funday\"", "mon, tue" } },
  { "timed not from 0", "time,usd_per_kwh\n1h,0.1\n", SIM_ERROR_INVALID,
    { "@:2: time: ", "first row at time 0" } },
  { "timed without unit", "time,usd_per_kwh\n0s,0.1\n3600,0.2\n", SIM_ERROR_PARSE,
    { "@:3: time: " } },
  { "no rows", "hour,usd_per_kwh\n# none\n", SIM_ERROR_MISSING, { "@: no rows" } },
  { "empty", "", SIM_ERROR_MISSING, { "@: empty" } },
};

START_TEST (test_bad_csv)
{
  const BadCsv *t = &bad_csvs[_i];
  g_autofree char *path = write_file ("bad.csv", t->contents);
  g_autoptr(GError) error = NULL;
  SimCostSchedule s;

  ck_assert_msg (!sim__cost_schedule_load (&s, path, "usd_per_kwh", 100, 0, &error),
                 "%s: accepted", t->label);
  ck_assert_msg (error->domain == SIM_ERROR && error->code == t->code, "%s: code %d (%s)",
                 t->label, error->code, error->message);
  for (guint i = 0; i < G_N_ELEMENTS (t->must) && t->must[i] != NULL; i++)
    {
      g_autofree char *want = t->must[i][0] == '@' ? g_strconcat (path, t->must[i] + 1, NULL)
                                                   : g_strdup (t->must[i]);
      ck_assert_msg (strstr (error->message, want) != NULL, "%s: no '%s' in: %s", t->label,
                     want, error->message);
    }
}
END_TEST

typedef struct {
  const char *label;
  const char *pool;
  const char *cost;      /* the [cost] section's lines: [cost] is line 20, its first key 21 */
  gboolean    at_build;  /* found when the accumulator is built */
  int         code;
  const char *must[3];
} BadKey;

static const BadKey bad_keys[] = {
  { "misspelt key", "DGX-H100", "energy_prise = 0.1\n", FALSE, SIM_ERROR_UNKNOWN_KEY,
    { "cost-test.ini:21: [cost] energy_prise: ", "did you mean \"energy_price\"" } },
  { "maintenance of 1.5", "DGX-H100", "\nmaintenance = 1.5\n", FALSE, SIM_ERROR_INVALID,
    { "cost-test.ini:22: [cost] maintenance: ", "below 1" } },
  { "maintenance 100%", "DGX-H100", "maintenance = 100%\n", FALSE, SIM_ERROR_INVALID,
    { "[cost] maintenance: ", "below 1" } },
  { "zero amortization", "DGX-H100", "amortization = 0y\n", FALSE, SIM_ERROR_INVALID,
    { "cost-test.ini:21: [cost] amortization: ", "positive" } },
  { "amortization in words", "DGX-H100", "amortization = five years\n", FALSE, SIM_ERROR_PARSE,
    { "[cost] amortization: ", "\"5y\"" } },
  { "negative price", "DGX-H100", "energy_price = -0.1\n", FALSE, SIM_ERROR_INVALID,
    { "[cost] energy_price: ", "USD per kWh" } },
  { "price in cents", "DGX-H100", "energy_price = 120\n", FALSE, SIM_ERROR_INVALID,
    { "[cost] energy_price: ", "out of range" } },
  { "flat and file", "DGX-H100", "energy_price = 0.1\nenergy_price_file = p.csv\n", FALSE,
    SIM_ERROR_INVALID, { "cost-test.ini:22: [cost] energy_price_file: ", "one of energy_price" } },
  { "bad weekday", "DGX-H100", "start_weekday = sundae\n", FALSE, SIM_ERROR_INVALID,
    { "[cost] start_weekday: ", "did you mean \"sunday\"" } },
  { "hour 24", "DGX-H100", "start_hour = 24\n", FALSE, SIM_ERROR_INVALID,
    { "[cost] start_hour: ", "[0, 24)" } },
  { "bad basis", "DGX-H100", "capacity_basis = peek\n", FALSE, SIM_ERROR_INVALID,
    { "[cost] capacity_basis: ", "did you mean \"peak\"" } },
  { "unknown cloud", "DGX-H100", "\n\ncloud = AWS-p5.48xlarg\n", TRUE, SIM_ERROR_NOT_FOUND,
    { "cost-test.ini:23: [cost] cloud: ", "did you mean \"AWS-p5.48xlarge\"" } },
  { "node without price", "HGX-H200", "cloud = AWS-p5e.48xlarge\n", TRUE, SIM_ERROR_MISSING,
    { "cost-test.ini:7: [pool p] model: ", "HGX-H200", "has no price" } },
  { "cloud price per day", "DGX-H100", "cloud_price = 60/GPU-d\n", FALSE, SIM_ERROR_PARSE,
    { "cost-test.ini:21: [cost] cloud_price: ", "per GPU-hour" } },
  { "cloud price per instance", "DGX-H100", "cloud_price = 2500\n", FALSE, SIM_ERROR_INVALID,
    { "[cost] cloud_price: ", "out of range" } },
  { "cloud price twice", "DGX-H100", "cloud_price = H100-SXM: 2, h100-sxm: 3\n", FALSE,
    SIM_ERROR_INVALID, { "[cost] cloud_price: ", "two prices" } },
  { "cloud price without model", "DGX-H100", "cloud_price = : 2\n", FALSE, SIM_ERROR_PARSE,
    { "[cost] cloud_price: ", "\"MODEL: price\"" } },
  { "cloud price and offer", "DGX-H100", "cloud = AWS-p5.48xlarge\ncloud_price = 2\n", TRUE,
    SIM_ERROR_INVALID, { "cost-test.ini:22: [cost] cloud_price: ", "both cloud and cloud_price" } },
  { "cloud price for another model", "DGX-H100", "cloud_price = A100-SXM: 2/GPU-h\n", TRUE,
    SIM_ERROR_NOT_FOUND, { "cost-test.ini:21: [cost] cloud_price: ", "no price for GPU model H100-SXM" } },
  { "missing price file", "DGX-H100", "energy_price_file = nowhere.csv\n", TRUE, SIM_ERROR_IO,
    { "nowhere.csv" } },
  { "bad row through the scenario", "DGX-H100", "energy_price_file = bad-row.csv\n", TRUE,
    SIM_ERROR_PARSE, { "bad-row.csv:3: hour: " } },
};

START_TEST (test_bad_key)
{
  const BadKey *t = &bad_keys[_i];
  g_autofree char *bad_row = write_file ("bad-row.csv", "hour,usd_per_kwh\n0,0.1\nnoon,0.2\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = load_scenario (t->pool, t->cost, NULL, &error);

  if (t->at_build)
    {
      g_autoptr(SimCatalogue) cat = load_catalogue ();
      g_autoptr(SimCluster) cluster = NULL;

      ck_assert_msg (sc != NULL, "%s: %s", t->label, error ? error->message : "?");
      cluster = sim_cluster_new_for_scenario (sc, cat, &error);
      ck_assert (cluster != NULL);
      ck_assert_msg (sim__cost_accumulator_new (sc, cat, cluster, &error) == NULL,
                     "%s: accepted", t->label);
    }
  else
    ck_assert_msg (sc == NULL, "%s: accepted", t->label);
  ck_assert_msg (error->domain == SIM_ERROR && error->code == t->code, "%s: code %d (%s)",
                 t->label, error->code, error->message);
  for (guint i = 0; i < G_N_ELEMENTS (t->must) && t->must[i] != NULL; i++)
    ck_assert_msg (strstr (error->message, t->must[i]) != NULL, "%s: no '%s' in: %s",
                   t->label, t->must[i], error->message);
}
END_TEST

/* capacity_basis = peak needs the power model. */
START_TEST (test_peak_needs_power)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = capex_scenario ("topology = single-switch\n"
                                          "switch = Quantum-2-QM9700\n", FALSE);
  g_autofree char *with = g_strconcat (text, "[cost]\ncapacity_basis = peak\n", NULL);
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (with, -1, "peak.ini", tmpdir, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "?");
  sim = sim_simulation_new (sc, &error);
  ck_assert_ptr_null (sim);
  ck_assert_msg (strstr (error->message, "peak.ini:22: [cost] capacity_basis: ") != NULL &&
                 strstr (error->message, "[power]") != NULL, "%s", error->message);
}
END_TEST

/* An override names --set, and a [variant] its own line. */
START_TEST (test_bad_override)
{
  const char * const sets[] = { "cost.maintenance=2", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = load_scenario ("DGX-H100", "", sets, &error);

  ck_assert_ptr_null (sc);
  ck_assert_msg (strstr (error->message, "--set cost.maintenance") != NULL, "%s", error->message);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Capex of a small cluster, through a real run */

static SimReport *
run_scenario (const char *text, GError **error)
{
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "capex.ini", tmpdir, NULL,
                                                           error);
  g_autoptr(SimSimulation) sim = NULL;

  if (sc == NULL)
    return NULL;
  sim = sim_simulation_new (sc, error);
  if (sim == NULL || !sim_simulation_run (sim, error))
    return NULL;
  return sim_report_ref (sim_simulation_get_report (sim));
}

static char *
capex_scenario (const char *fabric, gboolean with_cost)
{
  return g_strdup_printf ("[scenario]\nname = capex\nseed = 3\nhorizon = 1d\n\n"
                          "[pool h100]\nmodel = DGX-H100\ncount = 2\n\n"
                          "[workload]\nsource = synthetic\nrate = 2/h\njobs = 20\n"
                          "gpus = 1:0.5, 8:0.5\nduration = exponential(mean=1h)\n\n"
                          "[fabric]\n%s\n%s", fabric,
                          with_cost ? "[cost]\ncable_price = 500\ntransceiver_price = 1000\n"
                                      "cooling_usd_per_kw = 1000\n"
                                      "electrical_usd_per_kw = 2000\n" : "");
}

/* Truth: the hand sum of models/SOURCES.md prices: 2 x $270k (DGX H100),
 * $36k per Quantum-2 switch, the [cost] cable and transceiver prices, and
 * $3000 per kW of the rated IT power, the nodes' 2 x 10.2 kW and 1 kW per
 * switch (models/switches/quantum-2-qm9700.ini); the counts by hand: one switch
 * takes the 2 x 8 NICs' copper cables; a 2-tier fat tree of radix 16 has 2
 * leaves of one whole node each (8 down, 8 up) and 1 spine, 16 access and
 * 16 optical uplink cables with 2 transceivers each. */
START_TEST (test_capex_small_fabric)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *one = capex_scenario ("topology = single-switch\nswitch = Quantum-2-QM9700\n",
                                         TRUE);
  g_autofree char *tree = capex_scenario ("topology = fat-tree\nswitch = Quantum-2-QM9700\n"
                                          "radix = 16\n", TRUE);
  g_autofree char *plain = capex_scenario ("topology = fat-tree\nswitch = Quantum-2-QM9700\n"
                                           "radix = 16\n", FALSE);
  g_autoptr(SimReport) r1 = run_scenario (one, &error);
  g_autoptr(SimReport) r2 = NULL, r3 = NULL;
  const double nodes = 2 * DGX_H100_USD;
  const double facility = (2 * 10.2 + 1 * QM9700_W / 1000) * (1000 + 2000);
  const double facility_tree = (2 * 10.2 + 3 * QM9700_W / 1000) * (1000 + 2000);

  ck_assert_msg (r1 != NULL, "%s", error ? error->message : "?");
  ck_assert (metric (r1, "network_switches") == 1);
  ck_assert (metric (r1, "network_cables") == 16);
  ck_assert (metric (r1, "network_transceivers") == 0);
  ck_assert (near (metric (r1, "cost_capex"), nodes + QM9700_USD + 16 * 500 + facility, 1e-12));
  ck_assert (near (metric (r1, "cost_capex"), 648200, 1e-12));
  ck_assert (near (metric (r1, "cost_capex_network"), 36000 + 8000, 1e-12));
  ck_assert (near (metric (r1, "cost_capacity"), 21.4, 1e-12));
  /* No [power]: no energy, and the summary says so. */
  ck_assert (metric (r1, "cost_energy") == 0);
  {
    g_autofree char *text = sim_report_format_text (r1);
    ck_assert (strstr (text, "not counted") != NULL);
    ck_assert (strstr (text, "capex         $648,200") != NULL);
  }

  r2 = run_scenario (tree, &error);
  ck_assert_msg (r2 != NULL, "%s", error ? error->message : "?");
  ck_assert (metric (r2, "network_switches") == 3);
  ck_assert (metric (r2, "network_cables") == 32);
  ck_assert (metric (r2, "network_transceivers") == 32);
  ck_assert (near (metric (r2, "cost_capex"),
                   nodes + 3 * QM9700_USD + 32 * 500 + 32 * 1000 + facility_tree, 1e-12));

  /* Without [cost], no cost figure at all, and the rest of the report the same. */
  r3 = run_scenario (plain, &error);
  ck_assert_msg (r3 != NULL, "%s", error ? error->message : "?");
  ck_assert (!sim_report_get_value (r3, "cost_capex", NULL));
  ck_assert (metric (r3, "jct_mean") == metric (r2, "jct_mean"));
  ck_assert (metric (r3, "events") == metric (r2, "events"));
  {
    g_autoptr(GPtrArray) names = sim_report_list_metrics (r3);
    for (guint i = 0; i < names->len; i++)
      ck_assert (!g_str_has_prefix (names->pdata[i], "cost_"));
  }
}
END_TEST

/* Truth: the power model's own energy accumulator (power/sim-energy.c)
 * integrates facility power independently: at a flat price the energy
 * cost is price x its facility kWh, the emissions intensity x the same;
 * under a time-of-use price the cost lies between the cheapest and the
 * dearest price times it. */
START_TEST (test_end_to_end_power)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tou = write_file ("e2e.csv", "hour,usd_per_kwh\n0,0.05\n8,0.20\n20,0.08\n");
  g_autofree char *flat = g_strdup_printf ("[scenario]\nname = e2e\nseed = 2\nhorizon = 3d\n\n"
                                           "[pool h100]\nmodel = DGX-H100\ncount = 4\n\n"
                                           "[workload]\nsource = synthetic\nrate = 2/h\n"
                                           "gpus = 1:0.4, 8:0.6\n"
                                           "duration = exponential(mean=2h)\n\n"
                                           "[power]\nenable = true\n\n[cooling]\ntype = air\n\n"
                                           "[cost]\n%s\n",
                                           "energy_price = 0.11\ncarbon_intensity = 0.39\n"
                                           "cooling_usd_per_kw = 3000\nmaintenance = 5%");
  g_autofree char *timed = NULL;
  g_autoptr(SimReport) r = run_scenario (flat, &error);
  g_autoptr(SimReport) t = NULL;
  double kwh;

  ck_assert_msg (r != NULL, "%s", error ? error->message : "?");
  kwh = metric (r, "energy_facility_kwh");
  ck_assert (kwh > 0);
  ck_assert (near (metric (r, "cost_energy_kwh"), kwh, 1e-9));
  ck_assert (near (metric (r, "cost_energy"), 0.11 * kwh, 1e-9));
  ck_assert (near (metric (r, "cost_emissions"), 0.39 * kwh, 1e-9));
  /* What cooling costs: the price times the cooling energy the power
   * model integrated, plus the plant at $3000 per kW of the rated
   * capacity, amortized over the default 5 years with 5 % a year of
   * maintenance, over the 3 days. */
  {
    double plant = metric (r, "cost_capacity") * 3000 * (3.0 / (5 * 365.25) + 0.05 * 3 / 365.25);
    ck_assert (near (metric (r, "cost_cooling_energy"),
                     0.11 * metric (r, "energy_cooling_kwh"), 1e-9));
    ck_assert (near (metric (r, "cost_cooling"), plant + 0.11 * metric (r, "energy_cooling_kwh"),
                     1e-9));
    ck_assert (near (metric (r, "cost_cooling_share"),
                     metric (r, "cost_cooling") / metric (r, "cost_tco"), 1e-12));
  }
  /* Owning at the run's mean utilization costs what the run cost.  The
   * line of energy per hour against utilization is a least-squares fit
   * over the run (its jobs come and go, so utilization varies), and such
   * a line passes through the mean point: idle + u_mean * dynamic is the
   * mean price times the mean facility power, so over the run's hours it
   * is cost_energy; the fixed part over those hours is the amortized
   * capex and the maintenance.  At a flat price the sum is cost_tco. */
  {
    double hours = metric (r, "simulated_time") / 3600;
    double u_mean = metric (r, "cost_utilization");
    double idle_h = metric (r, "cost_idle_energy_per_hour");
    double dyn_h = metric (r, "cost_dynamic_energy_per_hour");

    ck_assert (u_mean > 0.05 && u_mean < 0.95);
    ck_assert (idle_h > 0 && dyn_h > 0);
    ck_assert_msg (near ((idle_h + u_mean * dyn_h) * hours, metric (r, "cost_energy"), 1e-9),
                   "(%g + %g x %g) x %g h against %g", idle_h, u_mean, dyn_h, hours,
                   metric (r, "cost_energy"));
    ck_assert (near (metric (r, "cost_owning_fixed_per_hour") * hours,
                     metric (r, "cost_amortized_capex") + metric (r, "cost_maintenance"), 1e-9));
    ck_assert (near ((metric (r, "cost_owning_fixed_per_hour") + idle_h + u_mean * dyn_h) * hours,
                     metric (r, "cost_tco"), 1e-9));
  }

  timed = g_strdup_printf ("[scenario]\nname = e2e\nseed = 2\nhorizon = 3d\n\n"
                           "[pool h100]\nmodel = DGX-H100\ncount = 4\n\n"
                           "[workload]\nsource = synthetic\nrate = 2/h\ngpus = 1:0.4, 8:0.6\n"
                           "duration = exponential(mean=2h)\n\n"
                           "[power]\nenable = true\n\n[cooling]\ntype = air\n\n"
                           "[cost]\nenergy_price_file = %s\n", tou);
  t = run_scenario (timed, &error);
  ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
  ck_assert (near (metric (t, "energy_facility_kwh"), kwh, 1e-12));
  ck_assert (metric (t, "cost_energy") > 0.05 * kwh && metric (t, "cost_energy") < 0.20 * kwh);
  ck_assert (near (metric (t, "cost_energy_price_mean"), metric (t, "cost_energy") / kwh, 1e-9));
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("cost");
  TCase *tc = tcase_create ("model");
  TCase *keys = tcase_create ("keys");
  TCase *bad = tcase_create ("bad-input");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_tou_integral);
  tcase_add_test (tc, test_tou_weekly);
  tcase_add_test (tc, test_schedule_lookup);
  tcase_add_test (tc, test_break_even_constant);
  tcase_add_test (tc, test_break_even_line);
  tcase_add_test (tc, test_capex_small_fabric);
  tcase_add_test (tc, test_end_to_end_power);
  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (keys, setup, teardown);
  tcase_add_loop_test (keys, test_key_direction, 0, G_N_ELEMENTS (key_cases));
  tcase_add_test (keys, test_every_key_has_a_case);
  tcase_add_test (keys, test_cloud_price);
  suite_add_tcase (s, keys);
  tcase_add_checked_fixture (bad, setup, teardown);
  tcase_add_loop_test (bad, test_bad_csv, 0, G_N_ELEMENTS (bad_csvs));
  tcase_add_loop_test (bad, test_bad_key, 0, G_N_ELEMENTS (bad_keys));
  tcase_add_test (bad, test_bad_override);
  tcase_add_test (bad, test_peak_needs_power);
  suite_add_tcase (s, bad);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
