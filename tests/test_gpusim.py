"""Tests of the Python package gpusim and of the introspection data under it.

What they check: a run from Python gives byte for byte the JSON that
`gpusim run --json` prints for the same scenario; runs repeat exactly;
driving a run decision by decision or to a time ends in the same report as
running it whole; errors arrive as gpusim.Error with the library's message
(file, line, suggestion); compare() returns intervals that agree with
single runs; a policy written in Python runs, and one that delegates to a
built-in placement reproduces that built-in exactly; the Python example
runs.

What they do not check: the simulated figures themselves (the Check
suites and golden files do), the statistics of compare() beyond their
shape and consistency, or speed.

Run by tests/test-python.sh, which points the interpreter at the build tree.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import gpusim
from gpusim import Sim

TOP_SRCDIR = os.environ.get("SIM_TOP_SRCDIR", ".")
TOP_BUILDDIR = os.environ.get("SIM_TOP_BUILDDIR", ".")
QUICKSTART = os.path.join(TOP_SRCDIR, "scenarios", "quickstart.ini")
GPUSIM = os.path.join(TOP_BUILDDIR, "tools", "gpusim")


def cli(*args):
    result = subprocess.run([GPUSIM] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True, check=False)
    if result.returncode != 0:
        raise AssertionError("gpusim %s failed: %s" % (" ".join(args), result.stderr))
    return result.stdout


class BestFit(gpusim.Policy):
    """The built-in fifo/best-fit, through Python: submission order, and
    the C best-fit placement for every job."""

    calls = 0

    def do_get_name(self):
        return "fifo/best-fit"

    def do_place(self, cluster, job, placement):
        BestFit.calls += 1
        return Sim.place_best_fit(cluster, job, placement)


class SmallestFirst(gpusim.Policy):
    """A queue order written in Python: fewest GPUs first, then arrival."""

    compared = 0

    def do_get_name(self):
        return "py-smallest/first-fit"

    def do_compare(self, a, b):
        SmallestFirst.compared += 1
        return a.spec.gpus - b.spec.gpus

    def do_get_flags(self):
        return int(Sim.PolicyFlags.SKIP_BLOCKED)

    def do_place(self, cluster, job, placement):
        return Sim.place_first_fit(cluster, job, placement)


class Raising(gpusim.Policy):
    def do_get_name(self):
        return "raising"

    def do_place(self, cluster, job, placement):
        raise ValueError("no room for job %d" % job.spec.id)


class RunTests(unittest.TestCase):
    def test_run_matches_cli_json(self):
        report = gpusim.run(QUICKSTART)
        self.assertEqual(report.json + "\n", cli("run", QUICKSTART, "--json"))
        expected = json.loads(report.json)["metrics"]
        self.assertEqual(list(report.metrics), list(expected))
        for name, (value, unit) in report.metrics.items():
            self.assertEqual(value, expected[name]["value"], name)
            self.assertEqual(unit, expected[name]["unit"], name)
        self.assertEqual(report["jobs_submitted"], report.metrics["jobs_submitted"][0])
        self.assertIn("wait_mean", report)
        self.assertRaises(KeyError, lambda: report["no_such_metric"])

    def test_overrides_match_cli(self):
        report = gpusim.run(QUICKSTART, set={"scenario.seed": 7, "policy.placement": "best-fit"})
        text = cli("run", QUICKSTART, "--json", "--set", "scenario.seed=7",
                   "--set", "policy.placement=best-fit")
        self.assertEqual(report.json + "\n", text)
        self.assertNotEqual(report.json, gpusim.run(QUICKSTART).json)

    def test_runs_repeat_exactly(self):
        self.assertEqual(gpusim.run(QUICKSTART).json, gpusim.run(QUICKSTART).json)

    def test_load(self):
        scenario = gpusim.load(QUICKSTART, set={"scenario.seed": 3})
        self.assertEqual(scenario.name, "quickstart")
        self.assertEqual(scenario.seed, 3)
        self.assertEqual(scenario.horizon, 14 * 86400.0)
        report = gpusim.Simulation(scenario).run()
        self.assertEqual(report.json, gpusim.run(QUICKSTART, set={"scenario.seed": "3"}).json)

    def test_step_until_the_end_matches_run(self):
        whole = gpusim.run(QUICKSTART)
        sim = gpusim.Simulation(QUICKSTART)
        self.assertEqual(sim.now, 0.0)
        self.assertIsNone(sim.report)
        decisions, last = 0, 0.0
        while sim.step():
            decisions += 1
            self.assertGreaterEqual(sim.now, last)
            last = sim.now
            if decisions == 1:
                self.assertIsNone(sim.report)
        self.assertGreater(decisions, 100)
        self.assertTrue(sim.finished)
        self.assertFalse(sim.step())
        self.assertEqual(sim.report.json, whole.json)

    def test_run_until_then_run(self):
        sim = gpusim.Simulation(QUICKSTART)
        self.assertTrue(sim.run_until(86400))
        self.assertEqual(sim.now, 86400.0)
        self.assertIsNone(sim.report)
        self.assertEqual(sim.cluster.get_n_gpus(), 128)
        self.assertEqual(sim.run().json, gpusim.run(QUICKSTART).json)

    def test_output_dir(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            report = gpusim.run(QUICKSTART, output_dir=out)
            with open(os.path.join(out, "summary.json")) as f:
                self.assertEqual(json.load(f), json.loads(report.json))
            self.assertTrue(os.path.exists(os.path.join(out, "jobs.csv")))


class ErrorTests(unittest.TestCase):
    def test_unknown_key_names_file_line_and_suggestion(self):
        with open(QUICKSTART) as f:
            lines = f.read().split("\n")
        at = lines.index("rate = 3.8/h")
        lines.insert(at + 1, "rat = 3.8/h")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.ini")
            with open(path, "w") as f:
                f.write("\n".join(lines))
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.load(path)
            message = str(caught.exception)
            self.assertIn("bad.ini:%d:" % (at + 2), message)
            self.assertIn("rat", message)
            self.assertIn("did you mean", message)
            self.assertIn('"rate"', message)
            self.assertEqual(caught.exception.code, Sim.Error.UNKNOWN_KEY)
            self.assertIsInstance(caught.exception, Exception)
            # The same file through every entry point.
            self.assertRaises(gpusim.Error, gpusim.run, path)
            self.assertRaises(gpusim.Error, gpusim.Simulation, path)
            self.assertRaises(gpusim.Error, gpusim.compare, path, policies=["first-fit"])

    def test_missing_file(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(os.path.join(TOP_SRCDIR, "no-such-scenario.ini"))
        self.assertEqual(caught.exception.code, Sim.Error.IO)
        self.assertIn("no-such-scenario.ini", caught.exception.message)

    def test_bad_override(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(QUICKSTART, set={"policy.placement": "best-fitt"})
        self.assertIn("best-fit", str(caught.exception))


class RoutingTests(unittest.TestCase):
    """The [fabric] routing key from Python: the modes by name through
    introspection, their effect on a run, and a bad mode's message."""

    FABRIC = os.path.join(TOP_SRCDIR, "scenarios", "fabric-oversubscription.ini")

    def test_modes_by_name(self):
        self.assertEqual(Sim.routing_from_string("d-mod-k"), Sim.Routing.DMODK)
        self.assertEqual(Sim.routing_from_string("ECMP"), Sim.Routing.ECMP)
        self.assertEqual(Sim.routing_to_string(Sim.Routing.SPRAY), "spray")
        with self.assertRaises(Exception) as caught:
            Sim.routing_from_string("adaptiv")
        self.assertIn('did you mean "adaptive"', str(caught.exception))

    def test_routing_changes_job_times(self):
        # Two days of the oversubscription scenario: multi-node jobs share
        # leaves, and ECMP's hash collisions slow their rings where
        # D-mod-K and spraying keep them at the NIC bound.
        jct = {}
        for mode in ("dmodk", "ecmp", "spray"):
            report = gpusim.run(self.FABRIC, set={"scenario.horizon": "2d",
                                                  "fabric.routing": mode})
            jct[mode] = report["jct_mean"]
        self.assertGreater(jct["ecmp"], jct["dmodk"])
        self.assertGreater(jct["ecmp"], jct["spray"])
        self.assertEqual(jct["dmodk"], gpusim.run(self.FABRIC, set={
            "scenario.horizon": "2d"})["jct_mean"])

    def test_unknown_mode_names_file_and_line(self):
        with open(self.FABRIC) as f:
            lines = f.read().split("\n")
        at = lines.index("oversubscription = 1")
        lines.insert(at + 1, "routing = sprey")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.ini")
            with open(path, "w") as f:
                f.write("\n".join(lines))
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.load(path)
            message = str(caught.exception)
            self.assertIn("bad.ini:%d: [fabric] routing" % (at + 2), message)
            self.assertIn('did you mean "spray"', message)


class CompareTests(unittest.TestCase):
    def test_two_placements_two_seeds(self):
        result = gpusim.compare(QUICKSTART, policies=["fifo/first-fit", "fifo/best-fit"], seeds=2)
        self.assertIn("wait_mean", result)
        self.assertIn("gpu_utilization", result)
        for metric, per_policy in result.items():
            self.assertEqual(list(per_policy), ["fifo/first-fit", "fifo/best-fit"], metric)
            for name, stats in per_policy.items():
                self.assertEqual(stats["n"], 2)
                self.assertEqual(len(stats["values"]), 2)
                low, high = stats["ci"]
                self.assertLessEqual(low, stats["mean"], (metric, name))
                self.assertLessEqual(stats["mean"], high, (metric, name))
                self.assertAlmostEqual(stats["mean"], sum(stats["values"]) / 2)
            self.assertNotIn("difference", per_policy["fifo/first-fit"])
            diff = per_policy["fifo/best-fit"]["difference"]
            self.assertLessEqual(diff["ci"][0], diff["ci"][1])
            self.assertIn(diff["significant"], (True, False))
        # The first run of the baseline is the scenario's own run.
        first = result["wait_mean"]["fifo/first-fit"]["values"][0]
        self.assertEqual(first, gpusim.run(QUICKSTART)["wait_mean"])
        second = result["wait_mean"]["fifo/best-fit"]["values"][1]
        self.assertEqual(second, gpusim.run(QUICKSTART, set={"scenario.seed": 2,
                                                             "policy.placement": "best-fit"})["wait_mean"])
        self.assertEqual(result["wait_mean"]["fifo/best-fit"]["unit"], "s")

    def test_unknown_policy(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.compare(QUICKSTART, policies=["fifo/best-fitt"], seeds=2)
        self.assertIn("best-fit", str(caught.exception))


class PolicyTests(unittest.TestCase):
    def test_python_policy_reproduces_builtin(self):
        BestFit.calls = 0
        ours = gpusim.run(QUICKSTART, policy=BestFit())
        self.assertGreater(BestFit.calls, 1000)
        builtin = gpusim.run(QUICKSTART, set={"policy.placement": "best-fit"})
        self.assertEqual(ours.json, builtin.json)

    def test_python_queue_order(self):
        SmallestFirst.compared = 0
        sim = gpusim.Simulation(QUICKSTART, policy=SmallestFirst())
        self.assertEqual(sim.policy.get_name(), "py-smallest/first-fit")
        report = sim.run()
        self.assertGreater(SmallestFirst.compared, 0)
        self.assertEqual(json.loads(report.json)["policy"], "py-smallest/first-fit")
        self.assertEqual(report["jobs_submitted"], gpusim.run(QUICKSTART)["jobs_submitted"])
        self.assertGreater(report["jobs_completed"], 1000)

    def test_two_python_policies_keep_their_methods(self):
        self.assertEqual(BestFit().get_name(), "fifo/best-fit")
        self.assertEqual(SmallestFirst().get_name(), "py-smallest/first-fit")
        self.assertEqual(Raising().get_name(), "raising")

    def test_exception_in_policy_raises_error(self):
        sim = gpusim.Simulation(QUICKSTART, policy=Raising())
        with self.assertRaises(gpusim.Error) as caught:
            sim.run()
        self.assertIn("ValueError", str(caught.exception))
        self.assertIn("no room for job", str(caught.exception))
        self.assertIsInstance(caught.exception.__cause__, ValueError)
        self.assertLess(sim.now, 86400.0)


class ExampleTests(unittest.TestCase):
    def test_python_run_example(self):
        example = os.path.join(TOP_SRCDIR, "examples", "python-run.py")
        result = subprocess.run([sys.executable, example, QUICKSTART, "scenario.seed=2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual([line.split()[0] for line in lines],
                         ["jobs_completed", "wait_mean", "gpu_utilization"])
        report = gpusim.run(QUICKSTART, set={"scenario.seed": 2})
        self.assertEqual(float(lines[0].split()[1]), report["jobs_completed"])


if __name__ == "__main__":
    unittest.main()
