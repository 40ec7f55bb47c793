"""Tests of the Python package gpusim and of the introspection data under it.

What they check: a run from Python gives byte for byte the JSON that
`gpusim run --json` prints for the same scenario; runs repeat exactly;
driving a run decision by decision or to a time ends in the same report as
running it whole; errors arrive as gpusim.Error with the library's message
(file, line, suggestion); compare() returns intervals that agree with
single runs, bootstrap ones (never below 0, within the values) for
non-negative metrics and symmetric t ones for differences and signed
samples; a policy written in Python runs, and one that delegates to a
built-in placement reproduces that built-in exactly; the Python example
runs; a latency key set from Python (a [fabric] transport latency) lengthens
a communicating job by what it costs per iteration, and the bundled
Ethernet-versus-InfiniBand scenario compares its latency-only variant;
the activity metric (gpu_activity) reads apart from allocation; the power
model, turned on with --set, draws on the GPUs what their activity says,
MIG slices their share of the SMs, and its figures reach report[...] with
their units; the [cost] figures (cost per GPU-hour owned and rented, the
break-even) come through report[...] with their units, agree with the closed
form Sim.cost_break_even, and move with a [cost] key set from Python; the
bundled bursting scenario's bill (burst_cost) is its billed node-hours at the
catalogue's price, and bursting shortens its wait; the failure model's
figures (interruptions by cause, ETTR, lost GPU-hours) reach report[...] from
the bundled 2,048-GPU scenario, agree with the CLI, and move with [failures]
keys set from Python (more spares, a longer detection); a month of the
self-healing scenario has one failure event per failure on its timeline (the
CLI's, byte for byte), a run ended per interruption, and a Failures section in
its report; sweep() returns the summary `gpusim sweep
--format json` prints, the same for one thread and two, whose means equal
those of single runs of the point's overrides, keeps every run with every
metric and the scenario hash in its SQLite database (read here with Python's
sqlite3), takes them from it when run again, and runs one shard of two; compare(db=...) keeps its runs there too; seek() finds what `gpusim seek` finds, its
answer a probe that meets the target;
sweep(report=...) writes the page sweep_report() makes from the summary and
`gpusim report --sweep` from its JSON file, its charts' means the summary's;
a bad sweep key raises gpusim.Error naming file, line and key; the key
reference Sim.scenario_dup_key_reference gives, section by section, what
`gpusim keys SECTION` prints, and an unknown section raises naming the
closest; llm() returns what `gpusim llm --json` prints for the same model
and layout, its layout keys move the answer (more tensor parallelism: less
memory; FP8: a shorter step), a layout that does not fit raises
gpusim.Error with the memory's parts, and search= returns layouts that fit,
fastest first.  A policy's exception (or a result of the wrong kind)
stops a run of the raw object too, at the decision where it was raised,
with GLib.Error naming it; a wake-up asked for before the decision's time
stops the run; an exception in a progress function, or in a callback of
gpusim.Transfers, stops its run, which raises gpusim.Error with it as the
cause.


closest; what Python keeps of a simulation (its cluster, the cluster's
nodes, pools, GPUs and MIG layouts, its scenario, report, policy and
decision, and the cluster, jobs and context a Python policy is handed)
stays readable after the simulation is gone, and a kept context refuses to
act once its decision is over; a simulation with an output directory owns
it (a second one into it is refused, a killed run's temporary files and an
earlier run's files this one does not write go, other files stay).

What they do not check: the simulated figures themselves (the Check
suites and golden files do), the statistics of compare() beyond their
shape and consistency, or speed.

Run by tests/test-python.sh, which points the interpreter at the build tree.
"""

import gc
import json
import os
import statistics
import re
import subprocess
import sys
import tempfile
import unittest

import gpusim
from gpusim import Sim
from gi.repository import GLib

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


class RenamedBestFit(BestFit):
    """BestFit under a name of its own, to compare beside the built-in."""

    def do_get_name(self):
        return "python best-fit"


class PythonSjf(gpusim.Policy):
    """The built-in sjf/first-fit written in Python, only with flags: the
    order by exact run time, the library's first fit, and SKIP_BLOCKED for
    the greedy pass (no do_schedule)."""

    def do_get_name(self):
        return "sjf/first-fit"

    def do_compare(self, a, b):
        return (a.spec.duration > b.spec.duration) - (a.spec.duration < b.spec.duration)

    def do_get_flags(self):
        return int(Sim.PolicyFlags.SKIP_BLOCKED)

    def do_place(self, cluster, job, placement):
        return Sim.place_first_fit(cluster, job, placement)


class PythonSjfBlocking(PythonSjf):
    """PythonSjf without SKIP_BLOCKED: the first job that does not fit
    blocks the queue."""

    def do_get_flags(self):
        return 0


class PythonSjfPass(PythonSjfBlocking):
    """PythonSjf with a pass of its own (do_schedule) rather than the
    flag: the greedy pass asked for explicitly."""

    passes = 0

    def do_schedule(self, context):
        PythonSjfPass.passes += 1
        self.schedule_in_order(context, True)


class RenamedSjf(PythonSjf):
    """PythonSjf under a name of its own, to compare beside the built-in."""

    def do_get_name(self):
        return "python sjf"


class OwnFirstFit(gpusim.Policy):
    """fifo/first-fit written wholly in Python: the policy picks the GPUs
    itself (placement.set_gpus), as the built-in does: one-node jobs on
    the lowest-numbered node with room, larger ones on whole free nodes in
    order and the rest on the first node with room; the lowest free GPUs
    of each node."""

    def do_get_name(self):
        return "fifo/first-fit"

    @staticmethod
    def free_gpus(cluster, node):
        return [g for g in range(node.first_gpu, node.first_gpu + node.n_gpus)
                if cluster.get_gpu(g).used_milli == 0 and cluster.get_gpu(g).mig_used == 0]

    def do_place(self, cluster, job, placement):
        want = job.spec.gpus
        if job.spec.gpu_milli != 1000 or want > cluster.get_n_free_gpus():
            return False
        nodes = [cluster.get_node(n) for n in range(cluster.get_n_nodes())]
        nodes = [node for node in nodes if node.available]
        chosen, taken = [], set()
        if want > cluster.get_max_gpus_per_node():
            for node in nodes:
                if node.free_gpus == node.n_gpus and node.n_gpus <= want - len(chosen):
                    chosen += self.free_gpus(cluster, node)
                    taken.add(node.index)
        rest = want - len(chosen)
        if rest > 0:
            node = next((node for node in nodes
                         if node.index not in taken and node.free_gpus >= rest), None)
            if node is None:
                return False
            chosen += self.free_gpus(cluster, node)[:rest]
        return placement.set_gpus(cluster, job, chosen)


class OwnMig(gpusim.Policy):
    """MIG jobs placed by the policy itself (placement.set_mig), in the
    library's first-fit order: GPUs already in MIG mode, then free ones,
    lowest index first, the first start the profile allows.  With
    *last_gpu_first* it goes from the highest GPU down instead."""

    def __init__(self, last_gpu_first=False):
        super().__init__()
        self.last_gpu_first = last_gpu_first
        self.refused = 0

    def do_get_name(self):
        return "fifo/first-fit"

    def do_get_flags(self):
        return int(Sim.PolicyFlags.PLACES_MIG)

    def do_place(self, cluster, job, placement):
        if job.spec.mig_profile is None:
            return Sim.place_first_fit(cluster, job, placement)
        gpus = [cluster.get_gpu(g) for g in range(cluster.get_n_gpus())]
        in_mig = [g for g, gpu in enumerate(gpus) if gpu.mig_used != 0]
        free = [g for g, gpu in enumerate(gpus) if gpu.mig_used == 0 and gpu.n_tenants == 0]
        order = in_mig + free
        if self.last_gpu_first:
            order = sorted(order, reverse=True)
        for g in order:
            try:
                return placement.set_mig(cluster, job, g, -1)
            except GLib.Error:
                self.refused += 1
        return False


class WrongPlacements(gpusim.Policy):
    """Tries wrong GPU lists first and keeps the library's refusals, then
    places the job right."""

    def __init__(self):
        super().__init__()
        self.refusals = {}

    def do_get_name(self):
        return "wrong-then-right"

    def do_place(self, cluster, job, placement):
        if job.spec.gpu_milli != 1000 or job.spec.gpus > cluster.get_n_free_gpus():
            return False
        free = [g for g in range(cluster.get_n_gpus()) if cluster.get_gpu(g).used_milli == 0]
        busy = [g for g in range(cluster.get_n_gpus()) if cluster.get_gpu(g).used_milli > 0]
        tries = {"count": free[:job.spec.gpus] + [free[-1] + 1],
                 "range": [cluster.get_n_gpus()] + free[:job.spec.gpus - 1],
                 "twice": [free[0]] * job.spec.gpus if job.spec.gpus > 1 else None,
                 "busy": busy[:1] + free[:job.spec.gpus - 1] if busy else None,
                 "fresh": "fresh"}
        for name, gpus in tries.items():
            if gpus is None:
                continue
            try:
                if gpus == "fresh":
                    Sim.Placement().set_gpus(cluster, job, free[:job.spec.gpus])
                else:
                    placement.set_gpus(cluster, job, gpus)
            except GLib.Error as e:
                self.refusals.setdefault(name, e.message)
            else:
                raise AssertionError("placement %s accepted" % name)
        return Sim.place_first_fit(cluster, job, placement)


class FractionSmallestFirst(SmallestFirst):
    """SmallestFirst with a float comparison: the difference in GPUs over
    the largest request, in (-1, 1), whose sign is the same order."""

    def do_compare(self, a, b):
        return (a.spec.gpus - b.spec.gpus) / 1024.0


def returning(method, value):
    """A first-fit policy whose METHOD returns VALUE."""
    namespace = {"do_get_name": lambda self: "returns-%s" % method,
                 "do_place": lambda self, cluster, job, placement:
                 Sim.place_first_fit(cluster, job, placement)}
    namespace[method] = {"do_get_name": lambda self: value,
                         "do_compare": lambda self, a, b: value,
                         "do_place": lambda self, cluster, job, placement: value,
                         "do_get_flags": lambda self: value}[method]
    return type("Returns_" + method, (gpusim.Policy,), namespace)()


class Raising(gpusim.Policy):
    def do_get_name(self):
        return "raising"

    def do_place(self, cluster, job, placement):
        raise ValueError("no room for job %d" % job.spec.id)


class FailsAt(BestFit):
    """fifo/best-fit in Python, whose do_place raises at job AT (a job is
    placed only once it heads the queue, and never again once started)."""

    def __init__(self, at):
        super().__init__()
        self.at = at

    def do_get_name(self):
        return "fails-at"

    def do_place(self, cluster, job, placement):
        if job.spec.id == self.at:
            raise KeyError("no model for job %d" % job.spec.id)
        return Sim.place_best_fit(cluster, job, placement)


class TransferTests(unittest.TestCase):
    """Sim.Transfers from Python: a host network with no catalogue."""

    def test_two_transfers_share_a_nic(self):
        # 1 byte/ns per host, 1 us per link: two transfers out of host 0
        # (1 MB and 3 MB) get half each until the first is sent at 2 ms.
        t = Sim.Transfers.new_hosts(4, 1e9, Sim.FabricKind.SINGLE_SWITCH, 0, 0, 1000)
        done = []
        a = t.add(0, 1, 1e6, 0, lambda tr, i, when: done.append((i, when)))
        b = t.add(0, 2, 3e6, 0, lambda tr, i, when: done.append((i, when)))
        self.assertTrue(t.run())
        self.assertEqual(done, [(a, 2002000), (b, 4002000)])
        self.assertEqual(t.get_completion(b), 4002000)

    def test_from_file(self):
        # The same two transfers, read from a CSV file and written back
        # with their times; a bad row raises, naming its line and column.
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "in.csv")
            out = os.path.join(d, "out.csv")
            with open(src, "w") as f:
                f.write("src,dst,bytes,start\n0,1,1MB,0\n0,2,3e6,0s\n")
            t = Sim.Transfers.new_hosts(4, 1e9, Sim.FabricKind.SINGLE_SWITCH, 0, 0, 1000)
            progress = []
            t.set_progress_func(lambda tr, done, total: progress.append((done, total)))
            self.assertEqual(t.add_from_file(src), 2)
            self.assertEqual(t.get_transfer(2)[1:], (0, 2, 3e6, 0))
            self.assertTrue(t.run())
            self.assertEqual([t.get_completion(i) for i in (1, 2)], [2002000, 4002000])
            self.assertEqual(progress[-1], (2, 2))
            t.write_csv(out)
            with open(out) as f:
                rows = f.read().splitlines()
            self.assertEqual(rows[2], "2,0,2,3000000,0.000000000,0.004002000,0.004002000,0.749625")
            with open(src, "w") as f:
                f.write("src,dst,bytes\n0,1,1MB\n0,7,1MB\n")
            bad = Sim.Transfers.new_hosts(4, 1e9, Sim.FabricKind.SINGLE_SWITCH, 0, 0, 1000)
            with self.assertRaises(GLib.Error) as caught:
                bad.add_from_file(src)
            self.assertIn("in.csv:3:3: dst: endpoint 7 does not exist", caught.exception.message)

    def test_callback_exception_stops_run(self):
        # gpusim.Transfers: each transfer's callback adds the next (1 MB,
        # 1 ms + 2 us each at 1 byte/ns and 1 us per link), and raises at
        # the second: the run stops there, raising gpusim.Error with the
        # exception as its cause; the third transfer was never added, and
        # every later run raises again.  PyGObject printed such an exception
        # and the run went on, a silent wrong answer.
        t = gpusim.Transfers(4, 1e9, link_latency=1e-6)
        done = []

        def chain(transfers, id, when):
            done.append((id, when))
            if id == 2:
                raise ValueError("lost transfer %d" % id)
            transfers.add(1, 0, 1e6, when, chain)

        t.add(0, 1, 1e6, callback=chain)
        with self.assertRaises(gpusim.Error) as caught:
            t.run()
        self.assertIsInstance(caught.exception.__cause__, ValueError)
        self.assertIn("the callback of transfer 2 (completed at 0.002004000 s) raised "
                      "ValueError: lost transfer 2", str(caught.exception))
        self.assertEqual(caught.exception.code, Sim.Error.STATE)
        self.assertEqual([i for i, _ in done], [1, 2])
        self.assertAlmostEqual(done[1][1], 2 * 0.001002, places=12)
        self.assertEqual(t.n_transfers, 2)
        with self.assertRaises(gpusim.Error) as again:
            t.run()
        self.assertIsInstance(again.exception.__cause__, ValueError)
        # Without raising: the chain of three, its times by hand.
        ok = gpusim.Transfers(4, 1e9, link_latency=1e-6)
        times = []
        ok.add(0, 1, 1e6, callback=lambda tr, id, when: (
            times.append(when), id < 3 and tr.add(1, 0, 1e6, when, None)))
        ok.run()
        self.assertEqual(ok.n_transfers, 2)
        self.assertAlmostEqual(ok.completion(2), 2 * 0.001002, places=12)
        self.assertIsNone(gpusim.Transfers(2, 1e9).completion(1))
        # A progress function that raises stops the run the same way.
        p = gpusim.Transfers(4, 1e9)
        p.add(0, 1, 1e6)
        p.add(2, 3, 1e6, 0.005)
        p.set_progress(lambda done, total: {}[done])
        with self.assertRaises(gpusim.Error) as caught:
            p.run()
        self.assertIsInstance(caught.exception.__cause__, KeyError)
        self.assertIn("the progress function raised KeyError", str(caught.exception))
        self.assertIsNone(p.completion(2))

    def test_raw_callback_can_fail_run(self):
        # Sim.Transfers used directly: a callback stops the run with
        # fail(), and run() raises GLib.Error with what it was given.
        t = Sim.Transfers.new_hosts(4, 1e9, Sim.FabricKind.SINGLE_SWITCH, 0, 0, 1000)
        error = GLib.Error.new_literal(Sim.error_quark(), "no more", int(Sim.Error.IO))
        t.add(0, 1, 1e6, 0, lambda tr, i, when: tr.fail(error))
        t.add(0, 2, 1e6, 5000000, None)
        with self.assertRaises(GLib.Error) as caught:
            t.run()
        self.assertEqual(caught.exception.message, "no more")
        self.assertEqual(caught.exception.code, int(Sim.Error.IO))
        self.assertEqual(t.get_completion(2), -1)

    def test_wrapper_arguments_checked(self):
        for kwargs, word in ((dict(hosts=1, bandwidth=1e9), "hosts"),
                             (dict(hosts=4, bandwidth=0), "bandwidth"),
                             (dict(hosts=4, bandwidth=1e9, topology="ring"), "topology"),
                             (dict(hosts=4, bandwidth=1e9, link_latency=-1), "link_latency")):
            with self.assertRaises(gpusim.Error, msg=repr(kwargs)) as caught:
                gpusim.Transfers(**kwargs)
            self.assertIn(word, str(caught.exception))
        t = gpusim.Transfers(4, 1e9, topology="fat-tree", radix=4, oversubscription=1)
        for args, word in (((0, 0, 1e6), "both endpoint 0"), ((0, 9, 1e6), "9"),
                           ((0, 1, -5), "nbytes"), ((0, 1, 1, -1), "start"),
                           ((0, 1, 1, 0, 3), "callback")):
            with self.assertRaises(gpusim.Error, msg=repr(args)) as caught:
                t.add(*args)
            self.assertIn(word, str(caught.exception))

    def test_bad_input_raises(self):
        t = Sim.Transfers.new_hosts(4, 1e9, Sim.FabricKind.FAT_TREE, 4, 1, 1000)
        with self.assertRaises(GLib.Error) as caught:
            t.add(2, 2, 1e6, 0, None)
        self.assertIn("both endpoint 2", caught.exception.message)
        with self.assertRaises(GLib.Error):
            Sim.Transfers.new_hosts(1, 1e9, Sim.FabricKind.SINGLE_SWITCH, 0, 0, 0)


class CostTests(unittest.TestCase):
    COST = os.path.join(TOP_SRCDIR, "scenarios", "cost-own-rent.ini")

    def test_cost_metrics(self):
        report = gpusim.run(self.COST)
        self.assertEqual(report.metrics["cost_per_gpu_hour"][1], "USD/GPU-h")
        self.assertEqual(report.metrics["cost_break_even_reserved"][1], "fraction")
        # models/SOURCES.md E: p5.48xlarge $98.32 on demand, $39.33 as a Capacity Block, 8 GPUs.
        self.assertAlmostEqual(report["cost_rent_on_demand_per_gpu_hour"], 98.32 / 8)
        self.assertAlmostEqual(report["cost_rent_reserved_per_gpu_hour"], 39.33 / 8)
        gpus = 16 * 8
        fixed = report["cost_owning_fixed_per_hour"]
        idle = report["cost_idle_energy_per_hour"]
        dynamic = report["cost_dynamic_energy_per_hour"]
        u = report["cost_break_even_reserved"]
        self.assertAlmostEqual(u, Sim.cost_break_even(fixed, idle, dynamic, gpus, 39.33 / 8))
        # Owning at the break-even costs what renting does.
        self.assertAlmostEqual(fixed + idle + u * dynamic, u * gpus * 39.33 / 8, places=6)
        self.assertEqual(report.json + "\n", cli("run", self.COST, "--json"))

    def test_cost_key_from_python(self):
        base = gpusim.run(self.COST)
        longer = gpusim.run(self.COST, set={"cost.amortization": "8y"})
        self.assertLess(longer["cost_per_gpu_hour"], base["cost_per_gpu_hour"])
        self.assertLess(longer["cost_break_even_on_demand"], base["cost_break_even_on_demand"])
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(self.COST, set={"cost.cloud": "AWS-p5.48xlarg"})
        self.assertIn("did you mean \"AWS-p5.48xlarge\"", str(caught.exception))


class FailureTests(unittest.TestCase):
    SPARES = os.path.join(TOP_SRCDIR, "scenarios", "failures-spares-checkpoint.ini")

    def test_failure_metrics(self):
        report = gpusim.run(self.SPARES)
        self.assertEqual(report.metrics["ettr"][1], "ratio")
        self.assertEqual(report.metrics["lost_gpu_hours"][1], "GPU-h")
        by_cause = sum(report["interruptions_" + t] for t in
                       ("gpu", "hbm", "nvswitch", "nic", "cable", "node", "software",
                        "leaf", "spine", "core"))
        self.assertEqual(by_cause, report["interruptions"])
        self.assertGreater(report["interruptions"], 0)
        self.assertTrue(0 < report["ettr"] < 1)
        self.assertEqual(report.json + "\n", cli("run", self.SPARES, "--json"))

    def test_spare_variants_cover_the_answer(self):
        # The question of the scenario: the fewest hot spares whose whole
        # 95 % interval of ETTR (seeds 1 to 5) is above 95 %.  Its
        # variants hold every count from none to one past that answer, so
        # that the answer and its neighbours are read from them rather
        # than between them.  It does not assert which count it is (that
        # is the model's finding, in the README).
        result = gpusim.compare(self.SPARES, seeds=5, first_seed=1, metrics=["ettr"])["ettr"]
        counts = {}
        for name, stats in result.items():
            match = re.fullmatch(r"(no|\d+) spares?", name)
            if match:
                counts[0 if match.group(1) == "no" else int(match.group(1))] = stats
        answer = min(n for n, stats in counts.items() if stats["ci"][0] >= 0.95)
        self.assertGreater(answer, 0)
        for n in range(0, answer + 2):
            self.assertIn(n, counts)
        self.assertLess(counts[answer - 1]["ci"][0], 0.95)

    def test_failure_keys_from_python(self):
        none = gpusim.run(self.SPARES, set={"failures.spares": 0, "pool h100.count": 256})
        four = gpusim.run(self.SPARES)
        self.assertEqual(none["spares_used"], 0)
        self.assertGreater(four["spares_used"], 0)
        self.assertGreater(four["ettr"], none["ettr"])
        slow = gpusim.run(self.SPARES, set={"failures.detect_time": "1h"})
        self.assertLess(slow["ettr"], four["ettr"])
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(self.SPARES, set={"failures.mode": "lazy"})
        self.assertIn("failures.mode", str(caught.exception))


class KeyTests(unittest.TestCase):
    def test_reference_is_the_cli_s(self):
        for section in ("power", "cooling", "rl", "failures", "class"):
            self.assertEqual(Sim.scenario_dup_key_reference(section, False),
                             cli("keys", section))
        markdown = Sim.scenario_dup_key_reference(None, True)
        self.assertIn("## [power]\n", markdown)
        self.assertIn("| `clock_exponent` | number | - | 0.5 to 10 | 3 |", markdown)
        with self.assertRaises(GLib.Error) as caught:
            Sim.scenario_dup_key_reference("coolin", False)
        self.assertIn("no section [coolin] in a scenario: did you mean \"cooling\"?",
                      caught.exception.message)


class PictureTests(unittest.TestCase):
    """The report and the timeline from Python match what the command line
    writes for the same run (tests/test-pictures.sh checks their content)."""

    def test_report_and_timeline(self):
        with tempfile.TemporaryDirectory() as tmp:
            out, timeline = os.path.join(tmp, "run"), os.path.join(tmp, "t.json")
            report = gpusim.run(QUICKSTART, output_dir=out, timeline=timeline,
                                set={"scenario.horizon": "2d", "policy.queue": "las"})
            page = gpusim.html_report(out)
            for section in ("scenario", "metrics", "topology", "over-time", "distributions"):
                self.assertIn('id="%s"' % section, page)
            self.assertIn('<canvas id="chart-jct"', page)
            gpusim.html_report(out, output=os.path.join(tmp, "r.html"))
            with open(os.path.join(tmp, "r.html")) as f:
                self.assertEqual(f.read(), page)
            cli("run", QUICKSTART, "-q", "--set", "scenario.horizon=2d", "--set",
                "policy.queue=las", "--timeline", os.path.join(tmp, "cli.json"),
                "--report", os.path.join(tmp, "cli.html"))
            with open(timeline) as a, open(os.path.join(tmp, "cli.json")) as b:
                self.assertEqual(a.read(), b.read())
            with open(timeline) as f:
                events = json.load(f)["traceEvents"]
            runs = sum(1 for e in events if e.get("cat") == "run" and e["ph"] == "b")
            # Every start is a run: the finished jobs' and those still on
            # GPUs at the end, and once more per preemption.
            self.assertGreaterEqual(runs, report["jobs_completed"] + report["preemptions"])
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.html_report(os.path.join(tmp, "no-such-run"))
            self.assertIn("no such run directory", str(caught.exception))

    def test_failures_timeline_and_report(self):
        # A month of the self-healing scenario: its failures on the timeline
        # and in the report, the same as the command line's.
        spec = os.path.join(TOP_SRCDIR, "scenarios", "failures-self-healing.ini")
        with tempfile.TemporaryDirectory() as tmp:
            out, timeline = os.path.join(tmp, "run"), os.path.join(tmp, "t.json")
            report = gpusim.run(spec, output_dir=out, timeline=timeline,
                                set={"scenario.horizon": "30d"})
            cli("run", spec, "-q", "--set", "scenario.horizon=30d", "--timeline",
                os.path.join(tmp, "cli.json"))
            with open(timeline) as a, open(os.path.join(tmp, "cli.json")) as b:
                self.assertEqual(a.read(), b.read())
            with open(timeline) as f:
                events = json.load(f)["traceEvents"]
            failures = [e for e in events if e.get("cat") == "failure"]
            self.assertGreater(report["failures"], 0)
            self.assertEqual(len(failures), report["failures"])
            interrupted = sum(1 for e in events if e.get("cat") == "run" and e["ph"] == "b"
                              and e["args"]["end"] == "interrupted")
            self.assertEqual(interrupted, report["interruptions"])
            page = gpusim.html_report(out)
            self.assertIn('id="failures"', page)
            self.assertIn('<canvas id="chart-failure-causes"', page)
            self.assertIn('<canvas id="chart-interruptions"', page)

    def test_render_dot(self):
        ok, svg = Sim.diagram_render_dot("graph g { a -- b [label=\"8 x 400 Gb/s\"] }", "svg")
        self.assertTrue(ok)
        text = bytes(svg).decode()
        self.assertTrue(text.startswith("<?xml"))
        self.assertIn("8 x 400 Gb/s", text)
        with self.assertRaises(GLib.Error):
            Sim.diagram_render_dot("graph g { a -- b }", "gif")


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

    def test_pending_decision_from_python(self):
        # The run stops before each pass: the decision's context is there
        # to look at, and committing each one gives the straight run.
        sim = gpusim.Simulation(QUICKSTART, set={"scenario.horizon": "2d"})
        decisions = 0
        while sim.raw.run_to_decision():
            ctx = sim.raw.get_decision()
            self.assertIsNotNone(ctx)
            self.assertEqual(ctx.get_now(), sim.raw.get_now())
            self.assertTrue(sim.raw.decide(True))
            self.assertIsNone(sim.raw.get_decision())
            decisions += 1
        self.assertGreater(decisions, 10)
        straight = gpusim.run(QUICKSTART, set={"scenario.horizon": "2d"})
        self.assertEqual(sim.report.json, straight.json)

    def test_run_until_then_run(self):
        sim = gpusim.Simulation(QUICKSTART)
        self.assertTrue(sim.run_until(86400))
        self.assertEqual(sim.now, 86400.0)
        self.assertIsNone(sim.report)
        self.assertEqual(sim.cluster.get_n_gpus(), 128)
        self.assertEqual(sim.run().json, gpusim.run(QUICKSTART).json)

    def test_find_node_with_free_matches_scan(self):
        # The cluster's index of free GPUs answers as a scan of the nodes.
        sim = gpusim.Simulation(QUICKSTART)
        self.assertTrue(sim.run_until(86400))
        cluster = sim.cluster
        n = cluster.get_n_nodes()
        frees = [cluster.get_node(i).free_gpus for i in range(n)]
        self.assertLess(min(frees), 8)
        for want in range(1, 10):
            for start in (0, 3, n - 1, n):
                first = next((i for i in range(start, n) if frees[i] >= want), 0xFFFFFFFF)
                self.assertEqual(cluster.find_node_with_free(start, want), first)

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

    def test_size_limit_and_force(self):
        # 1,000 jobs/s over the quick start's 14 days: 1.21e9 jobs, refused.
        fast = {"workload.rate": "1000/s"}
        sim = gpusim.Simulation(QUICKSTART, set=fast)
        self.assertEqual(sim.estimate()["jobs"], 1000 * 14 * 86400)
        with self.assertRaises(gpusim.Error) as caught:
            sim.run()
        self.assertIn("workload.rate", caught.exception.message)
        self.assertIn("force", caught.exception.message)
        forced = gpusim.Simulation(QUICKSTART, set=fast, force=True)
        forced.raw.check_limits()


class SharingTests(unittest.TestCase):
    """Allocation and activity apart, through Python: the MIG inference
    scenario's whole A100s are allocated but 20 % busy, its 1g.5gb slices
    7 x 14 of 108 SMs busy (NVIDIA's nvidia-smi mig -lgip counts)."""

    MIG = os.path.join(TOP_SRCDIR, "scenarios", "mig-inference.ini")

    def test_activity_metric(self):
        whole = gpusim.run(self.MIG)
        self.assertEqual(whole.metrics["gpu_activity"][1], "ratio")
        self.assertAlmostEqual(whole["gpu_utilization"], 1.0, places=4)
        self.assertAlmostEqual(whole["gpu_activity"], 0.2, places=6)
        self.assertAlmostEqual(whole["active_gpu_seconds"],
                               whole["gpu_activity"] * 8 * whole["simulated_time"],
                               delta=1e-9 * whole["active_gpu_seconds"])
        self.assertAlmostEqual(whole["active_gpu_seconds"],
                               0.2 * whole["allocated_gpu_seconds"],
                               delta=1e-9 * whole["active_gpu_seconds"])
        sliced = gpusim.run(self.MIG, set={"class inference.mig": "1g.5gb"})
        self.assertAlmostEqual(sliced["gpu_activity"], 7 * 14 / 108.0, delta=0.002)
        self.assertGreater(sliced["jct_p50"], 0)

    def test_model_through_introspection(self):
        self.assertAlmostEqual(Sim.sharing_factor(1.6, 0.95), 0.95 / 1.6, places=15)
        self.assertEqual(Sim.sharing_factor(0.5, 0.95), 1.0)
        self.assertAlmostEqual(Sim.sharing_mig_factor(0.2, 1 / 7.8), 1 / 7.8 / 0.2, places=15)
        self.assertEqual(Sim.sharing_mode_to_string(Sim.SharingMode.MPS), "mps")

    def test_bad_activity(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(self.MIG, set={"class inference.activity": "1.5"})
        self.assertIn("activity", str(caught.exception))
        self.assertIn("at most 1", str(caught.exception))


class PowerTests(unittest.TestCase):
    """The GPUs of the MIG inference scenario draw, over the run, their
    idle power (50 W for an A100) plus 350 W times their busy GPU-seconds
    times the jobs' power intensity (0.3 memory-bound at half power: 0.85),
    whole GPUs or MIG slices alike (a slice is busy for its share of the
    SMs, 14 of 108 for 1g.5gb)."""

    MIG = os.path.join(TOP_SRCDIR, "scenarios", "mig-inference.ini")

    def test_gpu_energy_follows_activity(self):
        for mig in (None, "1g.5gb", "3g.20gb"):
            settings = {"power.enable": "true"}
            if mig:
                settings["class inference.mig"] = mig
            report = gpusim.run(self.MIG, set=settings)
            self.assertEqual(report.metrics["energy_gpu_kwh"][1], "kWh")
            self.assertEqual(report.metrics["power_it_avg"][1], "W")
            joules = (8 * 50 * report["simulated_time"]
                      + 350 * 0.85 * report["active_gpu_seconds"])
            self.assertAlmostEqual(report["energy_gpu_kwh"] * 3.6e6, joules,
                                   delta=1e-9 * joules)
            self.assertGreater(report["pue"], 1.0)

    def test_cooling_through_overrides(self):
        air = gpusim.run(self.MIG, set={"power.enable": "true", "cooling.type": "air"})
        immersed = gpusim.run(self.MIG, set={"power.enable": "true",
                                             "cooling.type": "immersion"})
        self.assertLess(immersed["energy_cooling_kwh"], air["energy_cooling_kwh"])
        self.assertLess(immersed["pue"], air["pue"])
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(self.MIG, set={"power.enable": "true", "cooling.type": "oil"})
        self.assertIn("no cooling model", str(caught.exception))


class TraceTests(unittest.TestCase):
    """The reorder window and the end of simulated time, from Python."""

    PUBLISHED = os.path.join(TOP_SRCDIR, "tests", "data", "philly-published-head.csv")

    def scenario(self, tmp, trace, *keys):
        path = os.path.join(tmp, "trace.ini")
        with open(path, "w") as f:
            f.write("[scenario]\nname = trace\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                    "[workload]\nsource = philly\ntrace = %s\n%s\n" % (trace, "\n".join(keys)))
        return path

    def test_reorder_window(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.scenario(tmp, self.PUBLISHED)
            # The excerpt needs 287 rows of window: 286 fail at line 297.
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.run(path, set={"workload.reorder_window": 286})
            self.assertEqual(caught.exception.code, Sim.Error.TRACE)
            self.assertIn("philly-published-head.csv:297: timestamp:", caught.exception.message)
            self.assertIn("reorder_window", caught.exception.message)
            report = gpusim.run(path, set={"workload.reorder_window": 287})
            self.assertEqual(report.json, gpusim.run(path).json)
            self.assertGreater(report["jobs_submitted"], 290)

    def test_job_past_the_end_of_time(self):
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(tmp, "long.csv")
            with open(trace, "w") as f:
                f.write("timestamp,duration,num_gpus,gpu_time,cluster\n"
                        "2017-10-01 00:00:00,5e9,8,4e10,vc\n"
                        "2017-10-01 00:00:01,5e9,8,4e10,vc\n")
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.run(self.scenario(tmp, trace))
            self.assertIn("job 2 cannot finish", caught.exception.message)


class PowerPolicyTests(unittest.TestCase):
    """The cap manager, the facility limit and the consolidating placement
    from Python: the metrics match the command line's, a Python policy runs
    under a limit that holds its starts back."""

    CAPPING = os.path.join(TOP_SRCDIR, "scenarios", "power-capping.ini")
    LIMIT = {"power_manager.enable": "false", "facility.max_power": "125kW"}

    def test_manager_metrics_match_cli(self):
        report = gpusim.run(self.CAPPING)
        self.assertEqual(report.json + "\n", cli("run", self.CAPPING, "--json"))
        value, unit = report.metrics["power_manager_energy_saved"]
        self.assertEqual(unit, "kWh")
        self.assertGreater(value, 0)
        self.assertEqual(report["power_manager_jct_change"], 0)

    def test_limit_keys_from_python(self):
        cap = gpusim.run(self.CAPPING, set=self.LIMIT)
        hold = gpusim.run(self.CAPPING, set=dict(self.LIMIT, **{"facility.limit_mode": "hold"}))
        for report in (cap, hold):
            self.assertEqual(report["facility_time_over_limit"], 0)
            self.assertLessEqual(report["power_facility_peak"], 125000 * (1 + 1e-9))
        self.assertGreater(hold["facility_limit_held_starts"], 0)
        self.assertGreater(hold["facility_limit_jct_change"], cap["facility_limit_jct_change"])

    def test_python_policy_under_hold(self):
        # A start the limit holds back is, for the library's pass that
        # calls the Python placement, a job that does not fit now.
        BestFit.calls = 0
        report = gpusim.run(self.CAPPING, policy=BestFit(),
                            set=dict(self.LIMIT, **{"facility.limit_mode": "hold",
                                                    "scenario.horizon": "1d"}))
        self.assertGreater(BestFit.calls, 0)
        self.assertGreater(report["facility_limit_held_starts"], 0)
        self.assertEqual(report["facility_time_over_limit"], 0)
        # The baseline needs the scenario's own policy: not reported.
        self.assertNotIn("facility_limit_jct_change", report)

    def test_bad_key_is_an_error(self):
        with self.assertRaises(gpusim.Error) as cm:
            gpusim.run(self.CAPPING, set={"power_manager.low_cap": "40W"})
        self.assertIn("power_manager.low_cap", str(cm.exception))
        self.assertIn("idle power", str(cm.exception))

    def test_consolidate(self):
        # The placement set from Python is the one that runs: the report is
        # the command line's with the same --set, byte for byte, under the
        # name fifo/consolidate, and its schedule is not first-fit's (on
        # the quickstart's mix of job sizes, packing the busiest node
        # first moves the waits).
        report = gpusim.run(QUICKSTART, set={"policy.placement": "consolidate"})
        self.assertEqual(report.json + "\n", cli("run", QUICKSTART, "--json", "--set",
                                                 "policy.placement=consolidate"))
        self.assertEqual(json.loads(report.json)["policy"], "fifo/consolidate")
        first_fit = gpusim.run(QUICKSTART, set={"policy.placement": "first-fit"})
        self.assertNotEqual(report["wait_mean"], first_fit["wait_mean"])
        self.assertNotEqual(report["fragmentation"], first_fit["fragmentation"])


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


class SharingTests(unittest.TestCase):
    """The [fabric] sharing key from Python: the modes by name through
    introspection, their direction on a run, and a bad mode's message."""

    FABRIC = os.path.join(TOP_SRCDIR, "scenarios", "fabric-oversubscription.ini")

    def test_modes_by_name(self):
        self.assertEqual(Sim.fabric_sharing_from_string("always_on"),
                         Sim.FabricSharing.ALWAYS_ON)
        self.assertEqual(Sim.fabric_sharing_to_string(Sim.FabricSharing.DEMAND), "demand")
        with self.assertRaises(Exception) as caught:
            Sim.fabric_sharing_from_string("demnd")
        self.assertIn('did you mean "demand"', str(caught.exception))

    def test_always_on_slows_jobs_more(self):
        # Two days at 4:1: flows that hold their share through compute
        # crowd neighbours that demand-aware sharing leaves alone.
        base = {"scenario.horizon": "2d", "fabric.oversubscription": "4"}
        demand = gpusim.run(self.FABRIC, set=dict(base))
        always = gpusim.run(self.FABRIC, set=dict(base, **{"fabric.sharing": "always-on"}))
        self.assertGreater(always["jct_mean"], demand["jct_mean"])
        # demand is the default, and the fixed point repeats byte for byte.
        again = gpusim.run(self.FABRIC, set=dict(base, **{"fabric.sharing": "demand"}))
        self.assertEqual(demand.json, again.json)

    def test_phases_by_name_and_run(self):
        # The bursts' mode, on 16 of the scenario's nodes for two days at
        # 2:1 (about a second): close to demand-aware sharing on this mix
        # (bursts that collide cost a little), and repeatable.
        self.assertEqual(Sim.fabric_sharing_from_string("phases"), Sim.FabricSharing.PHASES)
        self.assertEqual(Sim.fabric_sharing_to_string(Sim.FabricSharing.PHASES), "phases")
        base = {"scenario.horizon": "2d", "fabric.oversubscription": "2",
                "pool h100.count": "16", "workload.rate": "1/h"}
        demand = gpusim.run(self.FABRIC, set=dict(base))
        phases = gpusim.run(self.FABRIC, set=dict(base, **{"fabric.sharing": "phases"}))
        self.assertGreaterEqual(phases["jct_mean"], demand["jct_mean"] * 0.95)
        self.assertLessEqual(phases["jct_mean"], demand["jct_mean"] * 1.10)
        again = gpusim.run(self.FABRIC, set=dict(base, **{"fabric.sharing": "phases"}))
        self.assertEqual(phases.json, again.json)

    def test_bad_mode_names_key(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(self.FABRIC, set={"fabric.sharing": "sometimes"})
        message = str(caught.exception)
        self.assertIn("fabric.sharing", message)
        self.assertIn('unknown sharing "sometimes"', message)
        self.assertIn("always-on", message)


class TraceFormatTests(unittest.TestCase):
    """Scenarios on the PAI, Gavel and native formats, and trace_info()."""

    DATA = os.path.join(TOP_SRCDIR, "tests", "data")

    def pai_scenario(self, tmp):
        path = os.path.join(tmp, "pai.ini")
        with open(path, "w") as f:
            f.write("[scenario]\nname = pai\n[pool pai]\nfrom = pai-machines:%s\n"
                    "misc_gpu = A10\n[workload]\nsource = pai\ntrace = %s\ntask_table = %s\n"
                    "reference_gpu = V100-16GB\n"
                    % (os.path.join(self.DATA, "pai-machine-spec-excerpt.csv"),
                       os.path.join(self.DATA, "pai-job-table.csv"),
                       os.path.join(self.DATA, "pai-task-table.csv")))
        return path

    def test_pai_scenario_matches_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.pai_scenario(tmp)
            report = gpusim.run(path)
            self.assertEqual(report.json + "\n", cli("run", path, "--json"))
            # The fixture's five GPU jobs (three rows are skipped: a CPU job,
            # a running one and one whose tasks never ran).
            self.assertEqual(report["jobs_submitted"], 5)
            self.assertEqual(report["jobs_completed"], 5)
            # Job j3 takes 7 GPUs with its tasks summed, 6 with its largest
            # task alone: 5000 GPU-seconds less (j2's ps tasks have no GPUs).
            largest = gpusim.run(path, set={"workload.pai_tasks": "largest"})
            self.assertAlmostEqual(report["job_gpu_seconds"] - largest["job_gpu_seconds"],
                                   5000, places=3)

    def test_gavel_scenario(self):
        path = os.path.join(self.DATA, "gavel-small.ini")
        report = gpusim.run(path)
        self.assertEqual(report["jobs_completed"], 20)
        # Without a job type's throughput, the run is refused, naming the row.
        with tempfile.TemporaryDirectory() as tmp:
            trimmed = os.path.join(tmp, "gavel.ini")
            with open(path) as f:
                text = f.read().replace("[class CycleGAN]", "[class CycleGAN-2]")
            with open(trimmed, "w") as f:
                f.write(text.replace("trace = gavel-small_test.trace", "trace = %s"
                                     % os.path.join(self.DATA, "gavel-small_test.trace")))
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.run(trimmed)
            self.assertIn('no throughput for job type "CycleGAN"', caught.exception.message)
            self.assertIn("gavel-small_test.trace:", caught.exception.message)

    def test_trace_info_matches_cli(self):
        trace = os.path.join(self.DATA, "philly-published-head.csv")
        info = gpusim.trace_info(trace)
        cli_info = json.loads(cli("trace", "info", trace, "--json"))
        for key in ("jobs", "skipped", "rows_out_of_order", "reorder_window_needed",
                    "arrivals_by_hour", "gpus_per_job"):
            self.assertEqual(info[key], cli_info[key], key)
        self.assertAlmostEqual(info["gpu_hours"], cli_info["gpu_hours"], places=5)
        self.assertEqual(info["reorder_window_needed"], 287)
        pai = gpusim.trace_info(os.path.join(self.DATA, "pai-job-table.csv"),
                                tasks=os.path.join(self.DATA, "pai-task-table.csv"))
        self.assertEqual((pai["format"], pai["jobs"], pai["skipped"]), ("pai", 5, 3))
        gavel = gpusim.trace_info(os.path.join(self.DATA, "gavel-7field.trace"),
                                  throughputs={"ResNet-18 (batch size 32)": 29.95,
                                               "Transformer (batch size 64)": 8.21})
        self.assertAlmostEqual(gavel["gpu_hours"], (3000 / 29.95 + 1642 / 8.21 + 821 / 8.21)
                               / 3600, places=9)
        with self.assertRaises(gpusim.Error):
            gpusim.trace_info(trace, format="csv")

    def test_native_replays_the_same(self):
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(self.DATA, "philly-published-head.csv")
            native = os.path.join(tmp, "jobs.csv")
            subprocess.run([GPUSIM, "trace", "convert", trace, "-o", native], check=True,
                           stderr=subprocess.DEVNULL)
            path = os.path.join(tmp, "p.ini")
            with open(path, "w") as f:
                f.write("[scenario]\nname = p\n[pool a]\nmodel = DGX-A100\ncount = 2\n"
                        "[workload]\nsource = philly\ntrace = %s\n[policy]\n"
                        "queue = fair-share\n" % trace)
            a = json.loads(gpusim.run(path).json)
            b = json.loads(gpusim.run(path, set={"workload.source": "native",
                                                 "workload.trace": native}).json)
            a.pop("workload")
            b.pop("workload")
            self.assertEqual(a, b)


class CompareTests(unittest.TestCase):
    def test_trace_variation(self):
        # A trace replayed whole is the same on every seed: its values are
        # identical, with no interval and no significance.  With windows of
        # it ([workload] variation), each seed sees another window: the
        # values vary, the intervals are not empty, and a policy compared
        # with itself differs by exactly 0.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "philly.ini")
            with open(path, "w") as f:
                f.write("[scenario]\nname = p\n[pool a]\nmodel = DGX-A100\ncount = 2\n"
                        "[workload]\nsource = philly\ntrace = %s\n"
                        % os.path.join(TOP_SRCDIR, "tests", "data", "philly-excerpt.csv"))
            whole = gpusim.compare(path, policies=["fifo/first-fit", "sjf/first-fit"], seeds=3,
                                   metrics=["wait_mean"])["wait_mean"]
            for stats in whole.values():
                self.assertTrue(stats["identical"])
                self.assertTrue(all(x != x for x in stats["ci"]))
            self.assertFalse(whole["sjf/first-fit"]["difference"]["significant"])
            windows = gpusim.compare(path, policies=["fifo/first-fit", "sjf/first-fit"], seeds=4,
                                     metrics=["wait_mean"],
                                     set={"workload.variation": "windows(6h)"})["wait_mean"]
            fifo = windows["fifo/first-fit"]
            self.assertFalse(fifo["identical"])
            self.assertGreater(len(set(fifo["values"])), 1)
            self.assertLess(fifo["ci"][0], fifo["ci"][1])
            self.assertFalse(windows["sjf/first-fit"]["identical"])
            with self.assertRaises(gpusim.Error) as raised:
                gpusim.compare(path, policies=["fifo/first-fit"], seeds=2,
                               set={"workload.variation": "windows(week)"})
            self.assertIn("workload.variation", str(raised.exception))

    def test_intervals_of_skewed_and_signed_samples(self):
        # One wait of 5000 s in four seeds: t would reach -2728 s; the
        # bootstrap gives [0, 5000] (check-compare works it out by hand).
        defined, iv = Sim.compare_interval([0, 0, 0, 5000], 0.95)
        self.assertTrue(defined)
        self.assertEqual((iv.mean, iv.low, iv.high, iv.half_width), (1250, 0, 5000, 3750))
        self.assertFalse(iv.symmetric)
        again = Sim.compare_interval([0, 0, 0, 5000], 0.95)[1]
        self.assertEqual((again.low, again.high), (iv.low, iv.high))
        defined, t = Sim.compare_t_interval([0, 0, 0, 5000], 0.95)
        self.assertAlmostEqual(t.low, 1250 - 3978.057881, places=5)
        # Signed samples and paired differences: Student t, symmetric.
        defined, iv = Sim.compare_interval([-2, -1, 0, 1, 2], 0.95)
        self.assertTrue(iv.symmetric)
        self.assertAlmostEqual(iv.half_width, 1.963243161, places=8)
        self.assertAlmostEqual(iv.low, -iv.high, places=12)
        defined, d = Sim.compare_paired_interval([10, 12, 9, 11], [7, 10, 6, 9], 0.95)
        self.assertTrue(d.symmetric)
        self.assertAlmostEqual(d.half_width, 0.918693116, places=8)

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
                # Non-negative values: a bootstrap interval, within their range
                # (two seeds: the range itself), whose half_width is its longer side.
                self.assertTrue(all(v >= 0 for v in stats["values"]), (metric, name))
                self.assertFalse(stats["symmetric"], (metric, name))
                self.assertEqual((low, high), (min(stats["values"]), max(stats["values"])))
                self.assertEqual(stats["half_width"], max(stats["mean"] - low, high - stats["mean"]))
            self.assertNotIn("difference", per_policy["fifo/first-fit"])
            diff = per_policy["fifo/best-fit"]["difference"]
            self.assertLessEqual(diff["ci"][0], diff["ci"][1])
            self.assertTrue(diff["symmetric"], metric)
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


class PlanTests(unittest.TestCase):
    """A comparison's plan of runs through introspection: written out, read
    back, run in two parts by the thread executor, the results gathered and
    compared as gpusim.compare() does."""

    def test_plan_in_parts(self):
        plan = Sim.Plan.new(QUICKSTART, None)
        plan.add_policy("fifo/first-fit")
        plan.add_policy("fifo/best-fit")
        plan.add_metric("wait_mean")
        plan.set_seeds(1, 2)
        self.assertEqual(plan.get_n_runs(), 4)
        self.assertEqual(plan.dup_run_overrides(3),
                         ["scenario.seed=2", "policy.queue=fifo", "policy.placement=best-fit"])
        back = Sim.Plan.new_from_json(plan.to_json(), "plan.json")
        self.assertTrue(Sim.Plan.equal(plan, back))
        self.assertEqual(back.to_json(), plan.to_json())

        executor = Sim.ThreadExecutor.new(2)
        first = Sim.PlanResults.new(back)
        self.assertTrue(executor.execute(first, [0, 3]))
        second = Sim.PlanResults.new(back)
        self.assertTrue(executor.execute(second, [1, 2]))
        self.assertEqual(first.get_state(1), Sim.PlanRunState.PENDING)
        gathered = Sim.PlanResults.new_from_json(first.to_json(), "part1.json")
        gathered.merge(Sim.PlanResults.new_from_json(second.to_json(), "part2.json"))
        self.assertTrue(gathered.check())

        cmp = Sim.Comparison.new_for_plan(gathered.get_plan())
        cmp.set_results(gathered)
        result = gpusim.compare(QUICKSTART, policies=["fifo/first-fit", "fifo/best-fit"],
                                seeds=2, metrics=["wait_mean"])
        for p, name in enumerate(["fifo/first-fit", "fifo/best-fit"]):
            self.assertEqual([cmp.get_value(p, 0, s) for s in range(2)],
                             result["wait_mean"][name]["values"])
        samples = gathered.dup_samples(1, 0)
        self.assertEqual(list(samples), result["wait_mean"]["fifo/best-fit"]["values"])

    def test_bad_plan(self):
        with self.assertRaises(GLib.Error) as caught:
            Sim.Plan.new_from_json('{"gpusim_plan": 9}', "p.json")
        self.assertIn("p.json: gpusim_plan: format version 9", caught.exception.message)


class FgdTests(unittest.TestCase):
    """The FGD study's experiment (gpusim.fgd) against the command line and
    the published figures it carries."""

    NODES = os.path.join(TOP_SRCDIR, "tests", "data", "openb-nodes.csv")
    PODS = os.path.join(TOP_SRCDIR, "tests", "data", "openb-pods.csv")

    def test_matches_cli_json(self):
        ours = gpusim.fgd(self.NODES, self.PODS, seeds=2, threads=1)
        theirs = json.loads(cli("fgd", "--nodes", self.NODES, "--pods", self.PODS,
                                "--seeds", "2", "--json", "-q"))
        self.assertEqual(ours, theirs)
        self.assertEqual(ours["variant"], "paper")
        names = [p["name"] for p in ours["policies"]]
        self.assertEqual(names, ["random", "dot-product", "clustering", "packing",
                                 "best-fit", "fgd"])
        self.assertNotIn("paper", ours)
        gpusim_variant = gpusim.fgd(self.NODES, self.PODS, policies=["first-fit"], seeds=1,
                                    variant="gpusim")
        self.assertEqual(gpusim_variant["variant"], "gpusim")

    def test_published_list_carries_the_papers_figures(self):
        with tempfile.TemporaryDirectory() as tmp:
            pods = os.path.join(tmp, "openb_pod_list_default.csv")
            with open(self.PODS) as src, open(pods, "w") as dst:
                dst.write(src.read())
            result = gpusim.fgd(self.NODES, pods, seeds=1, policies=["fgd", "random"])
        paper = result["paper"]
        self.assertEqual(paper["pod_list"], "default")
        self.assertEqual(paper["arrived_percent"], [90, 100, 110, 120, 130])
        # Weng et al., ATC'23: FGD 95.39%, random 87.47% at 130% (default list).
        self.assertAlmostEqual(paper["allocated_share"]["fgd"][-1], 0.9539)
        self.assertAlmostEqual(paper["allocated_share"]["random"][-1], 0.8747)

    def test_bad_list_names_file_and_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            pods = os.path.join(tmp, "pods.csv")
            with open(pods, "w") as f:
                f.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                        "a,1000,1024,1,1000\nb,1000,1024,2,500\n")
            with self.assertRaises(gpusim.Error) as ctx:
                gpusim.fgd(self.NODES, pods, seeds=1)
        self.assertIn("pods.csv:3:", ctx.exception.message)
        self.assertEqual(ctx.exception.code, Sim.Error.TRACE)

    def test_unknown_policy_or_variant(self):
        with self.assertRaises(gpusim.Error) as ctx:
            gpusim.fgd(self.NODES, self.PODS, policies=["first-fit"], seeds=1)
        self.assertEqual(ctx.exception.code, Sim.Error.NOT_FOUND)
        self.assertIn("dot-product", ctx.exception.message)
        with self.assertRaises(gpusim.Error):
            gpusim.fgd(self.NODES, self.PODS, seeds=1, variant="kubernetes")


class PolicyTests(unittest.TestCase):
    def test_python_policy_reproduces_builtin(self):
        BestFit.calls = 0
        ours = gpusim.run(QUICKSTART, policy=BestFit())
        self.assertGreater(BestFit.calls, 1000)
        builtin = gpusim.run(QUICKSTART, set={"policy.placement": "best-fit"})
        self.assertEqual(ours.json, builtin.json)

    def test_python_flags_are_honoured(self):
        # The flags mean the same for a Python policy as for a built-in
        # one: SJF written in Python with SKIP_BLOCKED gives the built-in
        # sjf/first-fit's summary.json and jobs.csv byte for byte, and so
        # does the same order with a greedy do_schedule; without the flag
        # the queue blocks at its head and jobs wait longer.  It does not
        # assert how much longer (that depends on the workload).
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        builtin_dir = os.path.join(tmp.name, "builtin")
        python_dir = os.path.join(tmp.name, "python")
        builtin = gpusim.run(QUICKSTART, output_dir=builtin_dir,
                             set={"policy.queue": "sjf", "policy.placement": "first-fit"})
        ours = gpusim.run(QUICKSTART, output_dir=python_dir, policy=PythonSjf())
        self.assertEqual(ours.json, builtin.json)
        for name in ("summary.json", "jobs.csv", "timeseries.csv"):
            with open(os.path.join(builtin_dir, name), "rb") as a, \
                    open(os.path.join(python_dir, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        PythonSjfPass.passes = 0
        self.assertEqual(gpusim.run(QUICKSTART, policy=PythonSjfPass()).json, builtin.json)
        self.assertGreater(PythonSjfPass.passes, 0)
        blocking = gpusim.run(QUICKSTART, policy=PythonSjfBlocking())
        self.assertGreater(blocking["wait_mean"], builtin["wait_mean"])

    def test_compare_arguments_checked_before_any_run(self):
        # compare() with a Python policy and no set= runs (it used to add
        # None to a list after the named policies had run), and every
        # wrong argument is refused before any run: a policy that counts
        # its decisions shows that none was made.
        short = {"scenario.horizon": "2d"}
        result = gpusim.compare(QUICKSTART, policies=["sjf/first-fit", RenamedSjf()],
                                seeds=1)
        per_policy = result["wait_mean"]
        self.assertEqual(per_policy["python sjf"]["values"], per_policy["sjf/first-fit"]["values"])
        self.assertEqual(gpusim.compare(QUICKSTART, policies=RenamedSjf(), seeds=1,
                                        metrics="wait_mean", set=short).keys(), {"wait_mean"})
        bad = [
            (dict(policies=["fifo/first-fit", 3.5]), "policies[1]"),
            (dict(policies=[PythonSjfPass(), "sjf/first-fit"]), "named \"sjf/first-fit\""),
            (dict(policies=[RenamedSjf(), RenamedSjf()]), "named \"python sjf\""),
            (dict(policies=[RenamedSjf()], variants={"a": {"scenario.horizon": "1d"}}),
             "not both"),
            (dict(policies=["fifo/first-fit"], variants=["a"]), "variants"),
            (dict(policies=["fifo/first-fit"], variants={"a": 3}), "variants['a']"),
            (dict(policies=[PythonSjfPass()], metrics=[7]), "metrics[0]"),
            (dict(policies=["nosuch/first-fit", PythonSjfPass()]), "nosuch"),
            (dict(policies=[PythonSjfPass()], set={"scenario.nosuch": 1}), "nosuch"),
            (dict(), "[variant NAME] sections"),
        ]
        for kwargs, message in bad:
            PythonSjfPass.passes = 0
            with self.assertRaises(gpusim.Error, msg=repr(kwargs)) as raised:
                gpusim.compare(QUICKSTART, seeds=1, **kwargs)
            self.assertIn(message, str(raised.exception), kwargs)
            self.assertEqual(PythonSjfPass.passes, 0, kwargs)

    def test_compare_accepts_python_policies(self):
        # A Python policy beside named ones: the same policy written in
        # Python gives the built-in's figures seed by seed (so a paired
        # difference of exactly 0), and the named entries' figures are those
        # of a comparison of the named policies alone.
        short = {"scenario.horizon": "5d"}
        mixed = gpusim.compare(QUICKSTART, policies=["fifo/best-fit", RenamedBestFit(),
                                                     "fifo/first-fit"], seeds=2, set=short)
        named = gpusim.compare(QUICKSTART, policies=["fifo/best-fit", "fifo/first-fit"],
                               seeds=2, set=short)
        self.assertEqual(list(mixed), list(named))
        # The two named policies place jobs differently on this scenario, so
        # their paired difference below is not trivially 0.
        self.assertNotEqual(named["jct_mean"]["fifo/first-fit"]["values"],
                            named["jct_mean"]["fifo/best-fit"]["values"])
        for metric, per_policy in mixed.items():
            self.assertEqual(list(per_policy), ["fifo/best-fit", "python best-fit",
                                                "fifo/first-fit"], metric)
            ours, builtin = per_policy["python best-fit"], per_policy["fifo/best-fit"]
            self.assertEqual(ours["values"], builtin["values"], metric)
            self.assertEqual(ours["unit"], builtin["unit"], metric)
            self.assertEqual(ours["difference"]["mean"], 0.0, metric)
            self.assertFalse(ours["difference"]["significant"], metric)
            for name in ("fifo/best-fit", "fifo/first-fit"):
                self.assertEqual(per_policy[name]["values"], named[metric][name]["values"])
                self.assertEqual(per_policy[name]["mean"], named[metric][name]["mean"])
            # The paired difference against the first policy, seed by seed:
            # its mean is mean(first-fit) - mean(best-fit) of the values,
            # in the mixed comparison as in the named one.
            ff = per_policy["fifo/first-fit"]["values"]
            bf = per_policy["fifo/best-fit"]["values"]
            want = statistics.fmean(ff) - statistics.fmean(bf)
            scale = 1e-9 * max(1.0, *(abs(x) for x in ff + bf))
            for result in (per_policy, named[metric]):
                self.assertAlmostEqual(result["fifo/first-fit"]["difference"]["mean"], want,
                                       delta=scale, msg=metric)
        self.assertNotEqual(mixed["jct_mean"]["fifo/first-fit"]["values"],
                            mixed["jct_mean"]["python best-fit"]["values"])

        # A policy that raises stops the comparison with its error; a
        # wrong entry, a name given twice and Python policies with variants
        # are refused before anything runs.
        with self.assertRaises(gpusim.Error) as raised:
            gpusim.compare(QUICKSTART, policies=["fifo/first-fit", Raising()], seeds=1, set=short)
        self.assertIn("no room for job", str(raised.exception))
        with self.assertRaises(gpusim.Error) as raised:
            gpusim.compare(QUICKSTART, policies=["fifo/first-fit", 42], seeds=1)
        self.assertIn("policies[1]", str(raised.exception))
        with self.assertRaises(gpusim.Error):
            gpusim.compare(QUICKSTART, policies=["fifo/best-fit", BestFit()], seeds=1, set=short)
        with self.assertRaises(gpusim.Error):
            gpusim.compare(QUICKSTART, policies=[RenamedBestFit()],
                           variants={"short": {"scenario.horizon": "1d"}}, seeds=1)

    def test_policy_chooses_gpus_itself(self):
        # First-fit written in Python, choosing every GPU itself, gives the
        # built-in's report byte for byte.
        ours = gpusim.run(QUICKSTART, policy=OwnFirstFit())
        builtin = gpusim.run(QUICKSTART)
        self.assertEqual(ours.json, builtin.json)

        # Wrong GPU lists are refused with what is wrong, and change nothing.
        policy = WrongPlacements()
        report = gpusim.run(QUICKSTART, policy=policy, set={"scenario.horizon": "2d"})
        self.assertGreater(report["jobs_started"] if "jobs_started" in report
                           else report["jobs_completed"], 0)
        self.assertIn("given", policy.refusals["count"])
        self.assertIn("does not exist", policy.refusals["range"])
        self.assertIn("listed twice", policy.refusals["twice"])
        self.assertIn("free", policy.refusals["busy"])
        self.assertIn("no room for GPUs", policy.refusals["fresh"])
        first_fit = gpusim.run(QUICKSTART, set={"scenario.horizon": "2d"})
        self.assertEqual(report["jct_mean"], first_fit["jct_mean"])

        # An error left unhandled in do_place stops the run with it.
        class Careless(OwnFirstFit):
            def do_get_name(self):
                return "careless"

            def do_place(self, cluster, job, placement):
                return placement.set_gpus(cluster, job, [cluster.get_n_gpus() + 5])

        with self.assertRaises(gpusim.Error) as raised:
            gpusim.run(QUICKSTART, policy=Careless())
        self.assertIn("does not exist", str(raised.exception))

    def test_policy_places_mig_itself(self):
        mig = os.path.join(TOP_SRCDIR, "scenarios", "mig-inference.ini")
        sliced = {"class inference.mig": "1g.5gb"}
        # The library's first fit, written in Python with set_mig, gives the
        # built-in's report byte for byte; GPUs whose slices are full are
        # refused on the way.
        policy = OwnMig()
        ours = gpusim.run(mig, set=sliced, policy=policy)
        self.assertEqual(ours.json, gpusim.run(mig, set=sliced).json)
        self.assertGreater(policy.refused, 0)
        # Another order is the policy's own: the same work, other instances.
        backwards = gpusim.run(mig, set=sliced, policy=OwnMig(last_gpu_first=True))
        self.assertEqual(backwards["jobs_completed"], ours["jobs_completed"])
        self.assertAlmostEqual(backwards["gpu_activity"], ours["gpu_activity"], places=6)

        class BadStart(OwnMig):
            def do_place(self, cluster, job, placement):
                return placement.set_mig(cluster, job, 0, 5)   # 1g starts 0-6; 3g is 0 or 4

        class NotMig(OwnMig):
            def do_place(self, cluster, job, placement):
                return placement.set_mig(cluster, job, 0, -1)

        with self.assertRaises(gpusim.Error) as raised:
            gpusim.run(mig, set={"class inference.mig": "3g.20gb"}, policy=BadStart())
        self.assertIn("GPU 0", str(raised.exception))
        with self.assertRaises(gpusim.Error) as raised:
            gpusim.run(mig, policy=NotMig())
        self.assertIn("no MIG profile", str(raised.exception))

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

    def test_fresh_placement_is_refused_not_a_crash(self):
        # A new Sim.Placement() has no GPU array: a C placement given it
        # raises gpusim.Error (through the package) instead of writing
        # through a NULL pointer and killing the interpreter, as it once did;
        # called past the package, the library refuses it with a critical
        # warning and False.  Both in a child, so a crash would show.
        code = (
            "import gpusim\n"
            "from gpusim import Sim\n"
            "class Fresh(gpusim.Policy):\n"
            "    raised = []\n"
            "    def do_get_name(self):\n"
            "        return 'fresh'\n"
            "    def do_place(self, cluster, job, placement):\n"
            "        try:\n"
            "            Sim.place_best_fit(cluster, job, Sim.Placement())\n"
            "        except gpusim.Error as e:\n"
            "            Fresh.raised.append(str(e))\n"
            "        return Sim.place_best_fit(cluster, job, placement)\n"
            "gpusim.run(%r, set={'scenario.horizon': '6h'}, policy=Fresh())\n"
            "print(len(Fresh.raised), 'no room' in Fresh.raised[0])\n" % QUICKSTART)
        result = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, universal_newlines=True, check=False)
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])
        calls, named = result.stdout.split()
        self.assertGreater(int(calls), 0)
        self.assertEqual(named, "True")

    def test_results_of_the_wrong_kind_are_errors(self):
        # Only a comparison's sign counts: a float orders as it reads.
        # PyGObject truncated it (0.5 ordered as 0, "either"), so this
        # policy ran in submission order, as fifo/first-fit.
        short = {"scenario.horizon": "4d"}
        by_int = gpusim.run(QUICKSTART, set=short, policy=SmallestFirst())
        by_float = gpusim.run(QUICKSTART, set=short, policy=FractionSmallestFirst())
        fifo = gpusim.run(QUICKSTART, set=short)
        self.assertNotEqual(by_int["wait_mean"], fifo["wait_mean"])
        self.assertEqual(by_float.json, by_int.json)
        # A value of the wrong kind stops the run with the method, the value
        # and what was expected; PyGObject printed a traceback and carried
        # on with 0 (FIFO order, no flags, "does not fit" for a forgotten
        # return), a silent wrong answer.
        for method, value, expected in (
                ("do_compare", "abc", "expected a number"),
                ("do_compare", float("nan"), "expected a number"),
                ("do_place", None, "expected True"),
                ("do_place", "yes", "expected True"),
                ("do_get_flags", -1, "Sim.PolicyFlags"),
                ("do_get_flags", 1 << 20, "Sim.PolicyFlags"),
                ("do_get_flags", "x", "Sim.PolicyFlags"),
                ("do_get_name", 5, "expected a string")):
            with self.subTest(method=method, value=value):
                with self.assertRaises(gpusim.Error) as caught:
                    gpusim.run(QUICKSTART, set=short, policy=returning(method, value))
                self.assertIn("%s returned %r" % (method, value), str(caught.exception))
                self.assertIn(expected, str(caught.exception))
                self.assertIsInstance(caught.exception.__cause__, TypeError)
        # True from a do_place that filled nothing: the start is refused,
        # saying so (it started the job on the buffer's leftovers, or failed
        # on a GPU "3597976382").
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(QUICKSTART, set=short, policy=returning("do_place", True))
        self.assertIn("was never chosen", str(caught.exception))
        self.assertIn("policy returns-do_place", str(caught.exception))
        # Flags as the enum or as ints, and numpy's booleans, are accepted.
        import numpy
        self.assertEqual(gpusim.run(QUICKSTART, set=short,
                                    policy=returning("do_get_flags",
                                                     Sim.PolicyFlags.SKIP_BLOCKED))["wait_mean"],
                         gpusim.run(QUICKSTART, set=short,
                                    policy=returning("do_get_flags", 1))["wait_mean"])
        gpusim.run(QUICKSTART, set=short, policy=returning("do_place", numpy.bool_(False)))

    def test_exception_in_policy_raises_error(self):
        sim = gpusim.Simulation(QUICKSTART, policy=Raising())
        with self.assertRaises(gpusim.Error) as caught:
            sim.run()
        self.assertIn("ValueError", str(caught.exception))
        self.assertIn("no room for job", str(caught.exception))
        self.assertIsInstance(caught.exception.__cause__, ValueError)
        self.assertLess(sim.now, 86400.0)

    def test_exception_in_policy_stops_raw_run(self):
        # The raw run (Simulation.raw.run(), or a Sim.Simulation given the
        # policy) stops at the decision where the policy raised and raises
        # GLib.Error naming the policy, the exception and its message; it
        # ran to the end before, the policy taken as "does not fit".  Truth:
        # the same policy in a run that never raises (FIFO: jobs after 40
        # cannot finish before it starts, and it never does here).
        short = {"scenario.horizon": "4d"}
        full = gpusim.run(QUICKSTART, set=short, policy=BestFit())
        sim = gpusim.Simulation(QUICKSTART, set=short, policy=FailsAt(40))
        with self.assertRaises(GLib.Error) as caught:
            sim.raw.run()
        message = caught.exception.message
        self.assertEqual(caught.exception.code, int(Sim.Error.STATE))
        self.assertEqual(caught.exception.domain, GLib.quark_to_string(Sim.error_quark()))
        self.assertRegex(message, r"^policy fails-at failed at [0-9.]+ s: do_place raised "
                                  r"KeyError: 'no model for job 40'$")
        finished = sim.jobs()["id"]
        self.assertLess(len(finished), full["jobs_completed"])
        self.assertGreater(len(finished), 0)
        self.assertLess(max(finished), 40)
        self.assertIsNone(sim.raw.get_report())
        with self.assertRaises(GLib.Error) as again:
            sim.raw.run()
        self.assertEqual(again.exception.message, message)
        # Sim.Simulation alone, with set_policy.
        raw = Sim.Simulation.new(gpusim.Scenario(QUICKSTART, set=short).raw)
        raw.set_policy(FailsAt(40))
        with self.assertRaises(GLib.Error) as caught:
            raw.run()
        self.assertEqual(caught.exception.message, message)
        # A value of the wrong kind, and an exception in do_compare, too.
        # (It fails at the first decision, the first job's arrival.)
        raw = Sim.Simulation.new(gpusim.Scenario(QUICKSTART, set=short).raw)
        raw.run_to_decision()
        first = raw.get_now() / 1e9
        raw = Sim.Simulation.new(gpusim.Scenario(QUICKSTART, set=short).raw)
        raw.set_policy(returning("do_place", None))
        with self.assertRaises(GLib.Error) as caught:
            raw.run()
        self.assertIn("policy returns-do_place failed at %.3f s: " % first,
                      caught.exception.message)
        self.assertIn("do_place returned None (NoneType): expected True",
                      caught.exception.message)

        class BadOrder(SmallestFirst):
            def do_compare(self, a, b):
                return 1 / 0

        sim = gpusim.Simulation(QUICKSTART, set=short, policy=BadOrder())
        with self.assertRaises(GLib.Error) as caught:
            sim.raw.run()
        self.assertIn("do_compare raised ZeroDivisionError: division by zero",
                      caught.exception.message)
        # The same object through gpusim.Simulation: gpusim.Error, with the
        # exception as its cause, from the decision where it raised.
        sim = gpusim.Simulation(QUICKSTART, set=short, policy=FailsAt(40))
        with self.assertRaises(gpusim.Error) as caught:
            sim.run()
        self.assertIsInstance(caught.exception.__cause__, KeyError)
        self.assertEqual(len(sim.jobs()["id"]), len(finished))

    def test_wake_in_the_past_stops_run(self):
        # context.wake_at() before the decision's time stops the run with
        # an error naming both times (it logged a critical warning and went
        # on); at the decision's own time it is accepted.  Truth: the first
        # decision of the run is at the first job's submission.
        class Waker(BestFit):
            def __init__(self, delta):
                super().__init__()
                self.delta = delta
                self.asked = None

            def do_schedule(self, context):
                if self.asked is None:
                    self.asked = context.get_now()
                    context.wake_at(self.asked + self.delta)
                self.schedule_in_order(context, False)

        short = {"scenario.horizon": "1d"}
        sim = gpusim.Simulation(QUICKSTART, set=short, policy=Waker(-1))
        with self.assertRaises(gpusim.Error) as caught:
            sim.run()
        first = Sim.Simulation.new(gpusim.Scenario(QUICKSTART, set=short).raw)
        first.run_to_decision()
        now = first.get_now()
        self.assertEqual(sim.policy.asked, now)
        self.assertIn("policy fifo/best-fit: sim_sched_context_wake_at() asked for a decision "
                      "at %.9f s, before the decision's time, %.9f s"
                      % ((now - 1) / 1e9, now / 1e9), str(caught.exception))
        self.assertEqual(caught.exception.code, Sim.Error.STATE)
        self.assertIsNone(caught.exception.__cause__)
        # The pass asked for at the same instant starts nothing more: the
        # figures are those of the run without it, but for the two events
        # it took (the wake-up and the decision).
        same = gpusim.run(QUICKSTART, set=short, policy=Waker(0)).metrics
        without = gpusim.run(QUICKSTART, set=short, policy=BestFit()).metrics
        self.assertEqual(same.pop("events")[0], without.pop("events")[0] + 2)
        self.assertEqual(same, without)

    def test_exception_in_progress_stops_run(self):
        # An exception in the progress function stops the run (PyGObject
        # printed it and the run went on): gpusim.Error, the exception as
        # its cause, no report.  A progress function that returns is called
        # at the end with fraction 1 and the jobs the report counts.
        calls = []
        report = gpusim.Simulation(QUICKSTART, progress=lambda *a: calls.append(a)).run()
        self.assertEqual(calls[-1][0], 1.0)
        self.assertEqual(calls[-1][2], report["jobs_completed"])

        def broken(fraction, now, done):
            raise OSError("terminal gone")

        sim = gpusim.Simulation(QUICKSTART, progress=broken)
        with self.assertRaises(gpusim.Error) as caught:
            sim.run()
        self.assertIsInstance(caught.exception.__cause__, OSError)
        self.assertIn("the progress function raised OSError: terminal gone",
                      str(caught.exception))
        self.assertIsNone(sim.report)
        with self.assertRaises(gpusim.Error):
            sim.run()

    def test_run_stopped_by_policy_stays_stopped(self):
        # A policy that fails once, then works: the decision where it
        # failed went on without it (no job started), so carrying on would
        # give a report that neither the policy nor any other gives.  Every
        # later call says the run stopped, and why.
        class FailsOnce(BestFit):
            failed = False

            def do_place(self, cluster, job, placement):
                if not FailsOnce.failed:
                    FailsOnce.failed = True
                    raise RuntimeError("once")
                return Sim.place_best_fit(cluster, job, placement)

        sim = gpusim.Simulation(QUICKSTART, policy=FailsOnce())
        with self.assertRaises(gpusim.Error):
            sim.run()
        for again in (sim.run, sim.step, lambda: sim.run_until(86400)):
            with self.assertRaises(gpusim.Error) as caught:
                again()
            self.assertIn("this run stopped when policy FailsOnce raised RuntimeError: once",
                          str(caught.exception))
            self.assertEqual(caught.exception.code, Sim.Error.STATE)
        self.assertIsNone(sim.report)


LATENCY_SCENARIO = """[scenario]
name = latency
seed = 1

[pool h100]
model = DGX-H100
count = 2

[fabric]
topology = single-switch
switch = Quantum-2-QM9700

[workload]
source = synthetic
rate = 1/h
jobs = 1
gpus = 16
duration = constant(100s)
iteration = 1ms
gradient = 8KB
overlap = 0
"""


class LatencyTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "latency.ini")
        with open(self.path, "w") as f:
            f.write(LATENCY_SCENARIO)

    def tearDown(self):
        self.dir.cleanup()

    def test_transport_latency_costs_every_iteration(self):
        # One 16-GPU job over two nodes, 100,000 iterations of 1 ms, each
        # all-reducing 8 KB across the network twice (LL).  A TCP stack's
        # 20 us per message instead of the verbs' 0.7 us adds 2 x 19.3 us to
        # every iteration: 3.86 s to the job.
        ib = gpusim.run(self.path)
        tcp = gpusim.run(self.path, set={"fabric.transport_latency": "20us"})
        self.assertEqual(ib["jobs_completed"], 1)
        self.assertAlmostEqual(tcp["jct_mean"] - ib["jct_mean"], 100000 * 2 * 19.3e-6, places=3)
        self.assertLess(tcp["gpu_compute_utilization"], ib["gpu_compute_utilization"])
        self.assertEqual(tcp.json, cli("run", self.path, "--json",
                                       "--set", "fabric.transport_latency=20us").rstrip("\n"))

    def test_cable_length_from_python(self):
        longer = gpusim.run(self.path, set={"fabric.access_cable_length": "100m"})
        # 2 cables of 100 m at 5 ns/m, twice per iteration, 100,000 times.
        self.assertAlmostEqual(longer["jct_mean"] - gpusim.run(self.path)["jct_mean"],
                               100000 * 2 * 1e-6, places=4)

    def test_bad_latency_value(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(self.path, set={"fabric.transport_latency": "20"})
        self.assertIn("transport_latency", str(caught.exception))
        self.assertIn("no unit", str(caught.exception))

    def test_scenario_latency_variant(self):
        path = os.path.join(TOP_SRCDIR, "scenarios", "fabric-ethernet-vs-infiniband.ini")
        # The scenario's own variants, as `gpusim compare` runs them.
        text = cli("compare", path, "--seeds", "1", "-q", "-m", "jct_mean",
                   "--set", "scenario.horizon=4d", "--json")
        means = {p["policy"]: p["mean"] for p in json.loads(text)["metrics"][0]["policies"]}
        self.assertEqual(list(means), ["infiniband-ndr", "ethernet-100g-tcp",
                                       "infiniband-tcp-latency"])
        # The same comparison from Python, its variants given as a dict.
        result = gpusim.compare(path, seeds=1, metrics=["jct_mean"],
                                set={"scenario.horizon": "4d"},
                                variants={"infiniband-ndr": {},
                                          "ethernet-100g-tcp": {
                                              "fabric.switch": "Spectrum-SN2700",
                                              "fabric.link": "Eth-100G-TCP"},
                                          "infiniband-tcp-latency": {
                                              "fabric.transport_latency": "20us"}})
        jct = result["jct_mean"]
        for name, mean in means.items():
            self.assertEqual(jct[name]["mean"], mean, name)
        # Latency alone costs nothing measurable (this mix's large rings hide
        # it behind their bytes), and far less than Ethernet's bandwidth.
        self.assertGreaterEqual(jct["infiniband-tcp-latency"]["mean"],
                                jct["infiniband-ndr"]["mean"])
        self.assertLess(jct["infiniband-tcp-latency"]["difference"]["mean"],
                        jct["ethernet-100g-tcp"]["difference"]["mean"] / 10)


class ScalingTests(unittest.TestCase):
    MD = os.path.join(TOP_SRCDIR, "scenarios", "scaling-molecular-dynamics.ini")
    RENDER = os.path.join(TOP_SRCDIR, "scenarios", "scaling-render.ini")

    def test_published_ranges(self):
        # About 100k atoms of MD on 8 A100: 5-6x one GPU (the target range;
        # the sub-linear shape: GROMACS strong scaling, Pall et al., J. Chem.
        # Phys. 153, 134110, 2020; sources in the scenario); V-Ray GPU
        # renders on 8 GPUs: 7-8x (Chaos, "Multi-GPU scaling For CUDA and
        # RTX modes", 2023: 91 % efficiency on average).
        md = gpusim.Simulation(self.MD)
        render = gpusim.Simulation(self.RENDER)
        self.assertEqual(md.classes, ["md", "prep"])
        self.assertTrue(5 <= md.speedup("md", 8) <= 6, md.speedup("md", 8))
        self.assertTrue(7 <= render.speedup("render", 8) <= 8)
        rows = md.scaling(gpus=(1, 4, 8))["md"]
        self.assertEqual([n for n, _, _ in rows], [1, 4, 8])
        for n, speedup, efficiency in rows:
            # Amdahl's closed form with the scenario's serial fraction.
            self.assertAlmostEqual(speedup, 1 / (0.065 + 0.935 / n), places=12)
            self.assertAlmostEqual(efficiency, speedup / n)
        self.assertAlmostEqual(Sim.scaling_amdahl(0.065, 8.0), 1 / (0.065 + 0.935 / 8))
        # The "prep" class keeps the default, linear.
        self.assertEqual(md.speedup(1, 8), 8.0)
        with self.assertRaises(gpusim.Error):
            md.speedup("no-such-class", 8)
        with self.assertRaises(gpusim.Error):
            md.speedup("md", 0)

    def test_curve_from_python(self):
        # A measured table, interpolated by GSL's Steffen method: at 3 GPUs
        # the hand-worked value of check-scaling.c.
        result = Sim.scaling_parse_table("2:1.98, 4:3.88, 8:7.28")
        curve = result[1] if isinstance(result, tuple) else result
        self.assertEqual(curve.n_points, 4)
        self.assertAlmostEqual(curve.speedup(3), 2.9433333333, places=9)
        self.assertAlmostEqual(curve.speedup(8), 7.28)
        with self.assertRaises(GLib.Error):
            Sim.scaling_parse_table("2:1.9, 4:1.5")

    def test_four_rather_than_eight(self):
        # The scenario's own question, on one seed: 4 GPUs per simulation
        # rather than 8 lengthens each run (S(8)/S(4) = 1.64) but frees GPUs.
        eight = gpusim.run(self.MD, set={"class md.gpus": 8})
        four = gpusim.run(self.MD, set={"class md.gpus": 4})
        self.assertLess(four["wait_mean"], eight["wait_mean"])
        self.assertLess(four["gpu_utilization"], eight["gpu_utilization"])
        slower = gpusim.run(self.MD, set={"class md.gpus": 8, "class md.serial_fraction": 0.2})
        self.assertGreater(slower["jct_mean"], eight["jct_mean"])

    def test_bad_serial_fraction(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.Simulation(self.MD, set={"class md.serial_fraction": 1})
        self.assertIn("serial_fraction", caught.exception.message)
        self.assertIn("[0, 1)", caught.exception.message)
        self.assertEqual(caught.exception.code, Sim.Error.INVALID)


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


RL_SCENARIO = """[scenario]
name = rl
seed = 3
[pool a]
model = DGX-A100
count = 2
[workload]
rate = 5/h
jobs = 120
gpus = 1:0.4, 2:0.2, 4:0.2, 8:0.2
duration = exponential(mean=1h)
[policy]
queue = fifo
placement = first-fit
"""


class ClusterEnvTests(unittest.TestCase):
    """gpusim.ClusterEnv against Gymnasium's semantics (what its env checker
    asks: spaces that hold every observation, reset(seed=...) -> (obs, info)
    deterministic in the seed, step -> a 5-tuple of the right types) and
    against the simulator (an agent starting the head of the queue is
    FIFO/first-fit; the rewards add up to minus the job-hours in the
    system)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "rl.ini")
        with open(self.path, "w") as f:
            f.write(RL_SCENARIO)

    def tearDown(self):
        self.tmp.cleanup()

    def rollout(self, env, seed, agent_seed):
        import numpy as np
        rng = np.random.default_rng(agent_seed)
        obs, info = env.reset(seed=seed)
        trace = [obs.copy()]
        rewards = []
        done = False
        while not done:
            allowed = np.flatnonzero(info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(allowed)))
            trace.append(obs.copy())
            rewards.append(reward)
            done = terminated or truncated
        return trace, rewards, info

    def test_spaces_and_signatures(self):
        import numpy as np
        env = gpusim.ClusterEnv(self.path, window=5, node_slots=3)
        self.assertEqual(env.action_space.n, 5 * 2 + 1)
        self.assertEqual(env.observation_space.shape, (5 * 7 + 3 * 2 + 5 + 3 + 2 + 3 + 3,))
        self.assertEqual(env.observation_space.dtype, np.float32)
        self.assertTrue(np.all(env.observation_space.low == 0))
        high = env.observation_space.high
        self.assertEqual(list(high[:7]), [1, np.inf, 1, 1, np.inf, np.inf, np.inf])
        self.assertEqual(list(high[5 * 7:5 * 7 + 6]), [1] * 6)
        self.assertEqual(list(high[-16:-11]), [1, 1, np.inf, np.inf, 1])
        self.assertEqual(list(high[-11:-6]), [1] * 5)     # link loads: 3 slots, max, mean
        # Power: 3 slots and the cluster's IT power over full load, then
        # facility power over the same and PUE, unbounded.
        self.assertEqual(list(high[-6:]), [1, 1, 1, 1, np.inf, np.inf])
        result = env.reset(seed=11)
        self.assertIsInstance(result, tuple)
        self.assertEqual(len(result), 2)
        obs, info = result
        self.assertIsInstance(obs, np.ndarray)
        self.assertIsInstance(info, dict)
        self.assertTrue(env.observation_space.contains(obs))
        self.assertEqual(info["action_mask"].shape, (env.action_space.n,))
        steps = 0
        done = False
        while not done:
            mask = info["action_mask"]
            action = env.action_space.sample(mask=mask)
            self.assertTrue(env.action_space.contains(action))
            self.assertEqual(mask[action], 1)
            out = env.step(action)
            self.assertEqual(len(out), 5)
            obs, reward, terminated, truncated, info = out
            self.assertTrue(env.observation_space.contains(obs), obs)
            self.assertIsInstance(reward, float)
            self.assertIsInstance(terminated, bool)
            self.assertIsInstance(truncated, bool)
            self.assertLessEqual(reward, 0)
            steps += 1
            done = terminated or truncated
        self.assertTrue(terminated)
        self.assertGreater(steps, 120)
        self.assertEqual(info["report"]["jobs_completed"], 120)
        self.assertFalse(info["action_mask"].any())
        with self.assertRaises(gpusim.Error) as caught:
            env.step(env.wait_action)
        self.assertIn("has ended", str(caught.exception))
        # The stand-in spaces sample inside themselves.
        for _ in range(20):
            self.assertTrue(env.observation_space.contains(env.observation_space.sample()))
            self.assertTrue(env.action_space.contains(env.action_space.sample()))
        self.assertFalse(env.action_space.contains(env.action_space.n))
        self.assertFalse(env.observation_space.contains(obs[:-1]))

    def test_link_load(self):
        """The link loads after the cluster's figures: 0 without a network;
        on one switch, a 16-GPU ring over two nodes of two 100G NICs fills
        one NIC of each (always-on sharing: 12.2 GB/s, below PCIe's 28.35),
        so slots 0 and 1 and the largest load are 1 and the mean over the
        six NIC links is 1/3."""
        import numpy as np
        env = gpusim.ClusterEnv(self.path, window=5, node_slots=3)
        obs, info = env.reset(seed=11)
        self.assertTrue(np.all(obs[-11:] == 0))     # no network, no power model
        path = os.path.join(self.tmp.name, "links.ini")
        with open(path, "w") as f:
            f.write("[scenario]\nname = links\nseed = 1\n"
                    "[pool p]\nmodel = PCIe-8GPU\ncount = 3\n"
                    "[fabric]\ntopology = single-switch\nswitch = Spectrum-SN2700\n"
                    "sharing = always-on\n"
                    "[workload]\nsource = synthetic\nrate = 60/h\njobs = 3\n"
                    "[class ring]\nshare = 1\ngpus = 16:1\n"
                    "duration = exponential(mean=10h)\niteration = 500ms\ngradient = 1GB\n"
                    "[policy]\nqueue = fifo\nplacement = first-fit\n")
        env = gpusim.ClusterEnv(path, window=2, node_slots=3)
        env.raw.set_skip_forced(False)
        obs, info = env.reset()
        self.assertEqual(obs.shape, (2 * 7 + 3 * 2 + 5 + 3 + 2 + 3 + 3,))
        self.assertTrue(np.all(obs[-11:-6] == 0))
        obs, *_ = env.step(0)
        wait = env.action_space.n - 1
        obs, reward, terminated, truncated, info = env.step(wait)
        self.assertFalse(terminated or truncated)
        self.assertTrue(env.observation_space.contains(obs))
        # Both NICs of nodes 0 and 1 full (the ring's two channels): 4 of 6 links.
        np.testing.assert_allclose(obs[-11:-6], [1, 1, 0, 1, 2 / 3], rtol=1e-6)

    def test_reset_determinism(self):
        import numpy as np
        env = gpusim.ClusterEnv(self.path, window=4, node_slots=2)
        a, ra, _ = self.rollout(env, 5, 0)
        b, rb, _ = self.rollout(env, 5, 0)
        c, rc, _ = self.rollout(env, 6, 0)
        self.assertEqual(len(a), len(b))
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
        self.assertEqual(ra, rb)
        self.assertNotEqual(ra, rc)
        # Without a seed, successive episodes differ and follow the last seed.
        env.reset(seed=5)
        first, _ = env.reset()
        env.reset(seed=5)
        again, _ = env.reset()
        np.testing.assert_array_equal(first, again)
        with self.assertRaises(gpusim.Error):
            env.reset(options={"frobnicate": 1})

    def test_rewards_add_up_to_job_hours(self):
        env = gpusim.ClusterEnv(self.path, window=6, node_slots=2)
        _, rewards, info = self.rollout(env, 9, 1)
        report = info["report"]
        jct_sum = report["jct_mean"] * report["jobs_completed"]
        self.assertAlmostEqual(-sum(rewards) * 3600 / jct_sum, 1.0, places=9)
        env = gpusim.ClusterEnv(self.path, window=6, node_slots=2, reward="utilization")
        _, rewards, info = self.rollout(env, 9, 1)
        self.assertAlmostEqual(sum(rewards) * 3600 * 16 / info["report"]["allocated_gpu_seconds"],
                               1.0, places=9)

    def test_energy_and_cost_rewards(self):
        """reward="energy" adds up to minus the report's facility energy,
        reward="cost" to minus its TCO; at a flat price each step's cost is
        its energy at the price plus the fixed cost per hour over its time,
        and the power features read the power model (an idle slot less than
        a busy one, PUE 1 / 0.95 without cooling)."""
        import numpy as np
        path = os.path.join(self.tmp.name, "power.ini")
        with open(path, "w") as f:
            f.write(RL_SCENARIO + "[power]\n[cost]\nenergy_price = 0.15\nmaintenance = 3%\n")
        energy = gpusim.ClusterEnv(path, window=6, node_slots=3, reward="energy")
        cost = gpusim.ClusterEnv(path, window=6, node_slots=3, reward="cost")
        self.assertEqual((energy.reward, cost.reward), ("energy", "cost"))
        rng = np.random.default_rng(4)
        obs, info = energy.reset(seed=9)
        obs_c, info_c = cost.reset(seed=9)
        np.testing.assert_array_equal(obs, obs_c)
        # Two idle DGX A100 over their full load (models/nodes/dgx-a100.ini),
        # and a slot without a node.
        idle = (8 * 50 + 149 + 8 * 20 + 710 + 145 + 24) / (8 * 400 + 149 + 8 * 20 + 710 + 450 + 878)
        np.testing.assert_allclose(obs[-6:-3], [idle, idle, 0], rtol=1e-6)
        self.assertAlmostEqual(float(obs[-1]), 1 / 0.95, places=5)
        steps, done, time, busy_seen = [], False, 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, r_e, terminated, truncated, info = energy.step(action)
            _, r_c, _, _, info_c = cost.step(action)
            self.assertTrue(energy.observation_space.contains(obs))
            busy_seen |= bool(obs[-6:-3].max() > obs[-6:-3].min() + 0.1)
            steps.append((r_e, r_c, info["time"] - time))
            time = info["time"]
            done = terminated or truncated
        self.assertTrue(busy_seen)
        report = info["report"]
        self.assertEqual(report.json, info_c["report"].json)
        r_e, r_c, dt = map(np.array, zip(*steps))
        self.assertAlmostEqual(-r_e.sum() / report["energy_facility_kwh"], 1, places=9)
        self.assertAlmostEqual(-r_c.sum() / report["cost_tco"], 1, places=9)
        fixed = report["cost_owning_fixed_per_hour"]
        np.testing.assert_allclose(r_c, r_e * 0.15 - fixed * dt / 3600, rtol=1e-9, atol=1e-12)

    def test_head_agent_is_fifo_first_fit(self):
        env = gpusim.ClusterEnv(self.path, window=3, node_slots=2)
        obs, info = env.reset()
        done = False
        while not done:
            action = 0 if info["action_mask"][0] else env.wait_action
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        self.assertEqual(info["report"].json, gpusim.run(self.path).json)

    def test_errors(self):
        env = gpusim.ClusterEnv(self.path, window=2, node_slots=2)
        obs, info = env.reset(seed=1)
        with self.assertRaises(gpusim.Error) as caught:
            env.step(env.action_space.n)
        self.assertIn("out of range", str(caught.exception))
        with self.assertRaises(gpusim.Error) as caught:
            env.step(2)   # window slot 1 is empty: one job waits
        self.assertIn("not possible now", str(caught.exception))
        self.assertEqual(env.describe(0)[:18], "start window job 0")
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.ClusterEnv(self.path, placements=("first-fit", "frist-fit"))
        self.assertEqual(caught.exception.code, Sim.Error.NOT_FOUND)
        with self.assertRaises(gpusim.Error):
            gpusim.ClusterEnv(self.path, window=0)
        with self.assertRaises(gpusim.Error):
            gpusim.ClusterEnv(self.path, reward="happiness")
        with self.assertRaises(gpusim.Error):
            gpusim.ClusterEnv(self.path, set={"scenario.sed": 1})

    def test_argument_kinds(self):
        """Actions, seeds and sizes of the wrong kind raise gpusim.Error and
        change nothing: int() took 0.7 for action 0 and 1.5 for a window of
        1, and -1 was an OverflowError."""
        import numpy as np
        env = gpusim.ClusterEnv(self.path, window=2, node_slots=2)
        obs, info = env.reset(seed=1)
        obs = obs.copy()
        self.assertTrue(info["action_mask"][0])    # action 0 would be taken
        for action in (0.7, -1, 2**40, "0", None, True, np.float64(0)):
            with self.assertRaises(gpusim.Error) as caught:
                env.step(action)
            self.assertIn("action %r is out of range: expected a whole number from 0 to %d"
                          % (action, env.wait_action), str(caught.exception))
            self.assertEqual(caught.exception.code, Sim.Error.INVALID)
        self.assertEqual(env.raw.get_steps(), 0)
        np.testing.assert_array_equal(env._observation(), obs)
        env.step(np.int64(0))     # numpy's integers are whole numbers
        self.assertEqual(env.raw.get_steps(), 1)
        for window in (1.5, "x", 2**40):
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.ClusterEnv(self.path, window=window)
            self.assertIn("window = %r: expected a whole number" % (window,),
                          str(caught.exception))
        for seed in (-1, 1.5):
            with self.assertRaises(gpusim.Error) as caught:
                env.reset(seed=seed)
            self.assertIn("seed = %r: expected a whole number" % (seed,), str(caught.exception))
        # Placements as the scenario writes them, one string with commas.
        self.assertEqual(gpusim.ClusterEnv(self.path, placements="first-fit").placements,
                         ("first-fit",))
        self.assertEqual(gpusim.ClusterEnv(self.path, placements="best-fit, fgd").placements,
                         ("best-fit", "fgd"))
        # A vectorized step with too few actions, or one ruled out, moves no
        # environment (the first used to step before the second failed).
        venv = gpusim.ClusterVecEnv(self.path, 2, window=2, node_slots=2)
        obs, info = venv.reset(seed=1)
        with self.assertRaises(gpusim.Error) as caught:
            venv.step(info["action_mask"].argmax(axis=1)[:1])
        self.assertIn("expected one per environment, 2, got 1", str(caught.exception))
        ruled_out = [int(info["action_mask"][0].argmax()),
                     int(np.flatnonzero(info["action_mask"][1] == 0)[0])]
        with self.assertRaises(gpusim.Error) as caught:
            venv.step(ruled_out)
        self.assertIn("not possible now", str(caught.exception))
        self.assertEqual([e.raw.get_steps() for e in venv.envs], [0, 0])

    def test_rl_section(self):
        """[rl] chooses the reward and the sizes; arguments win over it."""
        import numpy as np
        trace = os.path.join(self.tmp.name, "tiny.csv")
        with open(trace, "w") as f:
            f.write("id,submit,duration,gpus\n1,0,3600,8\n2,0,1800,8\n")
        path = os.path.join(self.tmp.name, "tiny.ini")

        def write(rl):
            with open(path, "w") as f:
                f.write("[scenario]\nname = tiny\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                        "[workload]\nsource = native\ntrace = tiny.csv\n" + rl)

        def head_return(env):
            obs, info = env.reset()
            total, done = 0.0, False
            while not done:
                action = 0 if info["action_mask"][0] else env.wait_action
                obs, reward, terminated, truncated, info = env.step(action)
                total += reward
                done = terminated or truncated
            return total

        write("[rl]\nreward = slowdown\nwindow = 3\nnode_slots = 2\nplacements = best-fit\n")
        env = gpusim.ClusterEnv(path)
        self.assertEqual((env.reward, env.window, env.node_slots, env.placements),
                         ("slowdown", 3, 2, ("best-fit",)))
        self.assertEqual(env.action_space.n, 3 + 1)
        # FIFO: JCT 1 h over 1 h, then 1.5 h over 0.5 h.
        self.assertAlmostEqual(head_return(env), -(1 + 3), places=9)
        # Another key, another reward; arguments win over the scenario.
        env = gpusim.ClusterEnv(path, set={"rl.reward": "jobs"})
        self.assertAlmostEqual(head_return(env), -(1 + 1.5), places=9)
        env = gpusim.ClusterEnv(path, reward="utilization", window=5)
        self.assertEqual((env.reward, env.window), ("utilization", 5))
        self.assertAlmostEqual(head_return(env), 1.5, places=9)
        # A bad value names the file, the line, the key and the choices.
        write("[rl]\nreward = slowdwn\n")
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.ClusterEnv(path)
        message = str(caught.exception)
        self.assertIn("tiny.ini:10: [rl] reward", message)
        self.assertIn('did you mean "slowdown"', message)
        # Energy needs the power model, cost the cost model too.
        write("[rl]\nreward = energy\n")
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.ClusterEnv(path)
        self.assertIn("tiny.ini:10: [rl] reward", str(caught.exception))
        self.assertIn("add a [power] section", str(caught.exception))
        write("[power]\n")
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.ClusterEnv(path, reward="cost")
        self.assertIn("[rl] reward = cost", str(caught.exception))
        self.assertIn("add a [cost] section", str(caught.exception))
        write("[power]\n[rl]\nreward = energy\n")
        self.assertEqual(gpusim.ClusterEnv(path).reward, "energy")
        # One 8-GPU job of 1 h, then one of 0.5 h, a DGX A100 at full load
        # for 1.5 h: (8 x 400 + 149 + 8 x 20 + 710 + 450 + 878) W / 0.94 at
        # the wall, / 0.95 at the facility (models/nodes/dgx-a100.ini).
        kwh = (8 * 400 + 149 + 8 * 20 + 710 + 450 + 878) / 0.94 / 0.95 * 1.5 / 1000
        self.assertAlmostEqual(head_return(gpusim.ClusterEnv(path)) / -kwh, 1, places=9)

    def test_node_actions(self):
        """A node action puts the job on the node of its slot; masked where
        it does not fit; off by default."""
        trace = os.path.join(self.tmp.name, "two.csv")
        with open(trace, "w") as f:
            f.write("id,submit,duration,gpus\n1,0,3600,4\n2,0,3600,8\n3,0,3600,1\n")
        path = os.path.join(self.tmp.name, "two.ini")
        with open(path, "w") as f:
            f.write("[scenario]\nname = two\n[pool a]\nmodel = DGX-A100\ncount = 2\n"
                    "[workload]\nsource = native\ntrace = two.csv\n")
        env = gpusim.ClusterEnv(path, window=2, node_slots=2, placements=["first-fit"])
        self.assertFalse(env.node_actions)
        self.assertEqual(env.action_space.n, 2 + 1)
        env = gpusim.ClusterEnv(path, window=2, node_slots=2, placements=["first-fit"],
                                node_actions=True)
        self.assertTrue(env.node_actions)
        self.assertEqual((env.first_node_action, env.wait_action, env.action_space.n),
                         (2, 6, 7))   # W * P = 2, then 2 x 2 node actions, then wait
        obs, info = env.reset()
        k4 = [k for k in range(2) if obs[k * 7] == 1 and obs[k * 7 + 1] == 4][0]
        self.assertTrue(info["action_mask"][2 + k4 * 2 + 1])
        obs, reward, terminated, truncated, info = env.step(2 + k4 * 2 + 1)   # node 1
        cluster = env.simulation.get_cluster()
        self.assertEqual([cluster.get_node(i).free_gpus for i in range(2)], [8, 4])
        k8 = [k for k in range(2) if obs[k * 7] == 1 and obs[k * 7 + 1] == 8][0]
        self.assertFalse(info["action_mask"][2 + k8 * 2 + 1])   # node 1 has 4 free
        with self.assertRaises(gpusim.Error) as caught:
            env.step(2 + k8 * 2 + 1)
        self.assertIn("no node of that slot has room", str(caught.exception))
        self.assertTrue(info["action_mask"][2 + k8 * 2 + 0])
        env.step(2 + k8 * 2 + 0)
        self.assertEqual([cluster.get_node(i).free_gpus for i in range(2)], [0, 4])

    def test_vectorized(self):
        import numpy as np
        venv = gpusim.ClusterVecEnv(self.path, 3, window=4, node_slots=2)
        obs, info = venv.reset(seed=20)
        self.assertEqual(obs.shape, (3, 4 * 7 + 2 * 2 + 5 + 2 + 2 + 2 + 3))
        self.assertEqual(info["action_mask"].shape, (3, 9))
        # Environment i is the single environment with seed 20 + i.
        single = gpusim.ClusterEnv(self.path, window=4, node_slots=2)
        for i in range(3):
            np.testing.assert_array_equal(obs[i], single.reset(seed=20 + i)[0])
        ended = 0
        for _ in range(2000):
            actions = info["action_mask"].argmax(axis=1)
            obs, rewards, terminated, truncated, info = venv.step(actions)
            self.assertEqual(rewards.shape, (3,))
            for i in np.flatnonzero(terminated | truncated):
                ended += 1
                self.assertEqual(info["final_info"][i]["report"]["jobs_completed"], 120)
                self.assertTrue(info["action_mask"][i].any())   # a new episode
            if ended >= 3:
                break
        self.assertGreaterEqual(ended, 3)
        with self.assertRaises(gpusim.Error):
            gpusim.ClusterVecEnv(self.path, 0)


class JobResultsTests(unittest.TestCase):
    """Per-job results as numpy arrays (and a pandas DataFrame), in seconds,
    with the requested time a scheduler plans with; a package that cannot
    find its typelib or library says so."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        with open(os.path.join(self.tmp.name, "jobs.csv"), "w") as f:
            # Job 1 gives an estimate, job 2 none; both ask for the node.
            f.write("id,submit,duration,gpus,requested\n"
                    "11,0,3600,8,7200\n12,60,1800,8,\n")
        self.path = os.path.join(self.tmp.name, "jobs.ini")
        with open(self.path, "w") as f:
            f.write("[scenario]\nname = jobs\n[pool a]\nmodel = DGX-A100\ncount = 1\n"
                    "[workload]\nsource = native\ntrace = jobs.csv\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_jobs_arrays(self):
        import numpy as np
        report = gpusim.run(self.path)
        jobs = report.jobs()
        self.assertEqual(list(jobs), ["id", "submit", "start", "end", "gpus", "class",
                                      "requested", "duration"])
        for name in ("id", "gpus", "class"):
            self.assertEqual(jobs[name].dtype, np.int64)
        for name in ("submit", "start", "end", "requested", "duration"):
            self.assertEqual(jobs[name].dtype, np.float64)
        np.testing.assert_array_equal(jobs["id"], [11, 12])
        np.testing.assert_array_equal(jobs["submit"], [0, 60])
        np.testing.assert_array_equal(jobs["start"], [0, 3600])
        np.testing.assert_array_equal(jobs["end"], [3600, 5400])
        np.testing.assert_array_equal(jobs["gpus"], [8, 8])
        # The estimate where the trace gives one, else the duration (not 0).
        np.testing.assert_array_equal(jobs["requested"], [7200, 1800])
        np.testing.assert_array_equal(jobs["duration"], [3600, 1800])
        self.assertAlmostEqual((jobs["end"] - jobs["submit"]).mean(), report["jct_mean"])
        sim = gpusim.Simulation(self.path, record_jobs=False)
        with self.assertRaises(gpusim.Error):
            sim.run().jobs()

    def test_requested_seen_by_policies(self):
        seen = {}

        class Recording(gpusim.Policy):
            def do_get_name(self):
                return "recording"

            def do_compare(self, a, b):
                seen[a.spec.id] = a.get_requested() / 1e9
                seen[b.spec.id] = b.get_requested() / 1e9
                return (a.spec.submit > b.spec.submit) - (a.spec.submit < b.spec.submit)

            def do_place(self, cluster, job, placement):
                return Sim.place_first_fit(cluster, job, placement)

            def do_get_flags(self):
                return 0

        # Three jobs, so that the queue is ordered while two wait.
        with open(os.path.join(self.tmp.name, "jobs.csv"), "a") as f:
            f.write("13,120,600,8,\n")
        gpusim.run(self.path, policy=Recording())
        self.assertEqual(seen, {12: 1800.0, 13: 600.0})

    def test_jobs_frame(self):
        report = gpusim.run(self.path)
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(gpusim.Error) as caught:
                report.jobs_frame()
            self.assertIn("pandas", str(caught.exception))
            return
        frame = report.jobs_frame()
        self.assertEqual(list(frame["id"]), [11, 12])
        self.assertEqual(list(frame["requested"]), [7200.0, 1800.0])

    def import_in(self, **env_changes):
        env = dict(os.environ)
        for key, value in env_changes.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return subprocess.run([sys.executable, "-c", "import gpusim"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)

    def test_missing_typelib_or_library(self):
        empty = self.tmp.name
        result = self.import_in(GI_TYPELIB_PATH=empty)
        if result.returncode == 0:
            self.skipTest("gpusim is installed system-wide")
        self.assertIn("cannot find the Sim-1.0 introspection data", result.stderr)
        self.assertIn("GI_TYPELIB_PATH", result.stderr)
        result = self.import_in(LD_LIBRARY_PATH=empty)
        if result.returncode == 0:
            self.skipTest("libsim-1.0 is installed system-wide")
        self.assertIn("not the library it names", result.stderr)
        self.assertNotIn("must be an interface", result.stderr)


class ElasticTests(unittest.TestCase):
    """Bursting into a cloud pool and serverless functions (scenarios/burst.ini)."""

    BURST = os.path.join(TOP_SRCDIR, "scenarios", "burst.ini")

    def test_burst_metrics(self):
        report = gpusim.run(self.BURST)
        self.assertEqual(report.json + "\n", cli("run", self.BURST, "--json"))
        self.assertGreater(report["burst_cost"], 0)
        self.assertEqual(report.metrics["burst_cost"][1], "USD")
        self.assertEqual(report.metrics["burst_node_hours"][1], "node*h")
        # The bill is the billed node-hours at the catalogue's p5.48xlarge price.
        self.assertEqual(report["burst_price_per_node_hour"], 98.32)
        self.assertAlmostEqual(report["burst_cost"],
                               report["burst_node_hours"] * report["burst_price_per_node_hour"],
                               places=6)
        self.assertLessEqual(report["burst_gpu_hours_used"], report["burst_gpu_hours"])
        self.assertGreater(report["serverless_executions"], 0)
        self.assertLessEqual(report["serverless_cold_starts"], report["serverless_executions"])
        off = gpusim.run(self.BURST, set={"elastic.max_nodes": 0})
        self.assertEqual(off["burst_cost"], 0)
        self.assertLess(report["wait_mean"], off["wait_mean"])

    def test_bad_elastic_key(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.run(self.BURST, set={"elastic.startup": "5"})
        self.assertIn("elastic.startup", caught.exception.message)
        self.assertIn("duration", caught.exception.message)


class SweepTests(unittest.TestCase):
    SWEEP = os.path.join(TOP_SRCDIR, "tests", "data", "sweep-small.ini")

    def test_summary_matches_cli_and_single_runs(self):
        one = gpusim.sweep(self.SWEEP, threads=1)
        two = gpusim.sweep(self.SWEEP, threads=2)
        self.assertEqual(one, two)
        self.assertEqual(one, json.loads(cli("sweep", self.SWEEP, "--format", "json")))
        self.assertEqual(one["axes"], ["pool h100.count", "workload.rate"])
        self.assertEqual(len(one["points"]), 6)
        point = one["points"][3]
        self.assertEqual(point["values"], {"pool h100.count": "3", "workload.rate": "2/h"})
        waits = [gpusim.run(self.SWEEP, set={"pool h100.count": 3, "workload.rate": "2/h",
                                             "scenario.seed": seed})["wait_mean"]
                 for seed in (1, 2, 3)]
        stats = point["metrics"]["wait_mean"]
        self.assertEqual(stats["n"], 3)
        self.assertAlmostEqual(stats["mean"], sum(waits) / 3, places=9)
        self.assertLessEqual(stats["low"], stats["mean"])
        self.assertLessEqual(stats["mean"], stats["high"])
        # Waits are non-negative: a bootstrap interval, within the three waits.
        self.assertGreaterEqual(stats["low"], min(waits) - 1e-9)
        self.assertLessEqual(stats["high"], max(waits) + 1e-9)
        self.assertGreaterEqual(stats["low"], 0)

    def test_database_keeps_every_metric_and_resumes(self):
        import sqlite3
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "sweep.db")
            half = gpusim.sweep(self.SWEEP, db=db, shard=(0, 2))
            self.assertEqual(sum(p["runs_done"] for p in half["points"]), 9)
            conn = sqlite3.connect(db)
            rows = conn.execute("SELECT label, seed, scenario_hash, jobs_completed, wait_mean "
                                "FROM runs ORDER BY point, seed").fetchall()
            conn.close()
            self.assertEqual(len(rows), 9)
            for label, seed, digest, completed, wait in rows:
                self.assertEqual(len(digest), 64)
                self.assertGreater(completed, 0)
            whole = gpusim.sweep(self.SWEEP, db=db)
            self.assertEqual(whole, gpusim.sweep(self.SWEEP))
            conn = sqlite3.connect(db)
            self.assertEqual(conn.execute("SELECT count(*) FROM runs").fetchone()[0], 18)
            conn.close()

    def test_compare_keeps_its_runs(self):
        import sqlite3
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "compare.db")
            first = gpusim.compare(self.SWEEP, policies=["first-fit", "best-fit"], seeds=2, db=db)
            again = gpusim.compare(self.SWEEP, policies=["first-fit", "best-fit"], seeds=2, db=db)
            # As text: runs that all gave the same value have NaN bounds,
            # and NaN is never equal to itself.
            self.assertEqual(json.dumps(first, sort_keys=True), json.dumps(again, sort_keys=True))
            conn = sqlite3.connect(db)
            labels = conn.execute("SELECT DISTINCT label FROM runs ORDER BY label").fetchall()
            count = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
            conn.close()
            self.assertEqual([l for (l,) in labels], ["fifo/best-fit", "fifo/first-fit"])
            self.assertEqual(count, 4)

    def test_seek_matches_cli_and_its_probes(self):
        found = gpusim.seek(self.SWEEP, "pool.h100.count", "wait_p95 <= 2h", range=(1, 8),
                            seeds=3)
        out = cli("seek", self.SWEEP, "--vary", "pool.h100.count", "--target",
                  "wait_p95 <= 2h", "--range", "1..8", "--seeds", "3")
        self.assertIn("meeting wait_p95 <= 2h: %d (%d probes)"
                      % (found["answer"], len(found["probes"])), out)
        self.assertEqual(found["key"], "pool h100.count")
        self.assertEqual(found["unit"], "s")
        probes = found["probes"]
        self.assertEqual([p["value"] for p in probes[:2]], [1, 8])
        # The answer meets the target; the value below it, if probed, does not.
        by_value = {p["value"]: p for p in probes}
        self.assertTrue(by_value[found["answer"]]["meets"])
        self.assertLessEqual(by_value[found["answer"]]["high"], 7200)
        if found["answer"] - 1 in by_value:
            self.assertFalse(by_value[found["answer"] - 1]["meets"])
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.seek(self.SWEEP, "pool.h100.count", "wait_p95 = 2h")
        self.assertIn('target "wait_p95 = 2h"', caught.exception.message)

    def test_report_charts_the_summary(self):
        with tempfile.TemporaryDirectory() as tmp:
            page = os.path.join(tmp, "sweep.html")
            summary = gpusim.sweep(self.SWEEP, report=page)
            with open(page) as f:
                html = f.read()
            self.assertEqual(gpusim.sweep_report(summary), html)
            self.assertEqual(summary["grid"], [["pool h100.count"], ["workload.rate"]])
            data = json.loads(re.search(r'id="report-data">(.*?)</script>', html,
                                        re.S).group(1))["sweep"]
            self.assertEqual([m["name"] for m in data["metrics"]],
                             [m["name"] for m in summary["metrics"]])
            for k, metric in enumerate(data["metrics"]):
                self.assertIn('<canvas id="chart-sweep-%d"' % k, html)
                self.assertEqual(metric["mean"], [p["metrics"][metric["name"]]["mean"]
                                                  for p in summary["points"]])
            cli_page = os.path.join(tmp, "cli.html")
            summary_path = os.path.join(tmp, "summary.json")
            with open(summary_path, "w") as f:
                f.write(cli("sweep", self.SWEEP, "--format", "json"))
            cli("report", "--sweep", summary_path, "-o", cli_page)
            with open(cli_page) as f:
                self.assertEqual(f.read(), gpusim.sweep_report(summary_path))
            one = gpusim.sweep_report(summary, metrics=["wait_p95"])
            self.assertEqual(one.count("<canvas"), 1)
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.sweep_report(summary, metrics=["wait_p99"])
            self.assertIn('unknown metric "wait_p99"', caught.exception.message)
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.sweep_report(os.path.join(tmp, "no-such.json"))
            self.assertIn("no-such.json: cannot read it", caught.exception.message)
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.sweep_report({"metrics": {}})
            self.assertIn('not an object with "axes"', caught.exception.message)

    def test_bad_key_names_file_line_and_key(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.ini")
            with open(self.SWEEP) as f:
                text = f.read().replace("seeds = 3", "seeds = 0")
            with open(path, "w") as f:
                f.write(text)
            line = text.splitlines().index("seeds = 0") + 1
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.sweep(path)
            self.assertIn("bad.ini:%d: [sweep] seeds" % line, caught.exception.message)


class ArgumentTests(unittest.TestCase):
    """Arguments out of their range raise gpusim.Error naming the argument
    before anything runs, where the C setters printed a GLib critical and
    the call returned normal-looking results.  Does not check the values'
    effects (CompareTests and SweepTests do)."""

    SWEEP = os.path.join(TOP_SRCDIR, "tests", "data", "sweep-small.ini")

    def assert_refused(self, call, phrase, **kwargs):
        with self.assertRaises(gpusim.Error) as caught:
            call(**kwargs)
        self.assertIn(phrase, caught.exception.message)
        self.assertEqual(caught.exception.code, Sim.Error.INVALID)

    def test_compare(self):
        for seeds in (0, -1, 2.5, "x", 2**40):
            self.assert_refused(gpusim.compare, "seeds = %r: expected a whole number" % (seeds,),
                                path=QUICKSTART, policies=["first-fit"], seeds=seeds)
        for level in (float("nan"), 0, 1, 1.5, float("inf")):
            self.assert_refused(gpusim.compare, "level = %r: expected a confidence level"
                                % (level,), path=QUICKSTART, policies=["first-fit"], level=level)
        self.assert_refused(gpusim.compare, "threads = -1", path=QUICKSTART,
                            policies=["first-fit"], threads=-1)
        # Past the plan's limit of runs: refused by the library with its estimate.
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.compare(QUICKSTART, policies=["first-fit"], seeds=200000)
        self.assertIn("200000 runs: more than 100000", caught.exception.message)

    def test_seek(self):
        base = dict(path=self.SWEEP, vary="pool.h100.count", target="wait_p95 <= 2h",
                    range=(1, 8))
        self.assert_refused(gpusim.seek, "tolerance = -1: expected a width of at least 0",
                            tolerance=-1, **base)
        self.assert_refused(gpusim.seek, "tolerance = nan", tolerance=float("nan"), **base)
        self.assert_refused(gpusim.seek, "seeds = 0", seeds=0, **base)
        self.assert_refused(gpusim.seek, "level = 0", level=0, **base)
        self.assert_refused(gpusim.seek, "range: expected (low, high)",
                            **dict(base, range=(1, float("inf"))))
        self.assert_refused(gpusim.seek, "range: expected (low, high)",
                            **dict(base, range=(8, 1)))
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.seek(**dict(base, vary="workload.rate", range=("1/h", "50/d")))
        self.assertIn('range "1/h..50/d": expected LOW..HIGH', caught.exception.message)
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.seek(seeds=1000000, **base)
        self.assertIn("1000000 runs: more than 100000", caught.exception.message)

    def test_seek_varies_a_key_with_a_unit(self):
        # The wait grows with the arrival rate: the smallest rate whose wait
        # reaches an hour, probed at values with their unit (the probes set
        # "workload.rate=25.5/h", where "25.5" alone has no unit).
        found = gpusim.seek(self.SWEEP, "workload.rate", "wait_mean >= 1h",
                            range=("1/h", "50/h"), seeds=2)
        out = cli("seek", self.SWEEP, "--vary", "workload.rate", "--target", "wait_mean >= 1h",
                  "--range", "1/h..50/h", "--seeds", "2")
        self.assertIn("meeting wait_mean >= 1h: %s/h (%d probes)"
                      % (("%g" % found["answer"]), len(found["probes"])), out)
        by_value = {p["value"]: p for p in found["probes"]}
        self.assertTrue(by_value[found["answer"]]["meets"])
        self.assertGreater(found["answer"], 1)
        self.assertLess(found["answer"], 50)

    def test_sweep_shard(self):
        for shard in ((5, 3), (3, 3), (-1, 2), (0, 0), (1,), "ab"):
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.sweep(self.SWEEP, shard=shard)
            self.assertIn("shard", caught.exception.message)
        self.assert_refused(gpusim.sweep, "threads = -2", path=self.SWEEP, threads=-2)

    def test_simulation(self):
        # run_until took NaN, inf and strings as ValueError or
        # OverflowError, and a time before 0 as "done" without a word.
        for seconds in (float("nan"), float("inf"), -5, "1h", 1e300):
            sim = gpusim.Simulation(QUICKSTART)
            self.assert_refused(sim.run_until, "seconds = %r: expected a finite number"
                                % (seconds,), seconds=seconds)
            self.assertEqual(sim.now, 0.0)
        # A policy by name is not a policy object: say how to name one.
        for policy in ("sjf/first-fit", 3):
            self.assert_refused(gpusim.Simulation, "policy = %r: expected a gpusim.Policy"
                                % (policy,), scenario=QUICKSTART, policy=policy)
        self.assert_refused(gpusim.run, "set = 5: expected a dict", path=QUICKSTART, set=5)
        md = gpusim.Simulation(os.path.join(TOP_SRCDIR, "scenarios",
                                            "scaling-molecular-dynamics.ini"))
        self.assert_refused(md.speedup, "gpus = -1: expected a whole number",
                            job_class="md", gpus=-1)
        self.assert_refused(md.speedup, "job_class = -1: expected a whole number",
                            job_class=-1, gpus=4)

    def test_fgd(self):
        nodes = os.path.join(TOP_SRCDIR, "tests", "data", "openb-nodes.csv")
        pods = os.path.join(TOP_SRCDIR, "tests", "data", "openb-pods.csv")
        # One policy as a string is that policy, not its letters ("f").
        self.assertEqual(gpusim.fgd(nodes, pods, policies="fgd", seeds=1),
                         gpusim.fgd(nodes, pods, policies=["fgd"], seeds=1))
        for name in ("seeds", "threads", "first_seed"):
            self.assert_refused(gpusim.fgd, "%s = -1: expected a whole number" % name,
                                nodes=nodes, pods=pods, **{name: -1})

    def test_sweep_report_reads_within_bounds(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.sweep_report("/dev/zero")
        self.assertIn("/dev/zero: not a regular file", caught.exception.message)
        with tempfile.TemporaryDirectory() as tmp:
            deep = os.path.join(tmp, "deep.json")
            with open(deep, "w") as f:
                f.write("[" * 100000)
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.sweep_report(deep)
            self.assertIn("JSON nested deeper than 64 levels", caught.exception.message)


class LlmTests(unittest.TestCase):
    SCENARIO = os.path.join(TOP_SRCDIR, "scenarios", "llm-70b-shared-fabric.ini")

    def test_matches_cli(self):
        ours = gpusim.llm(self.SCENARIO, "llama3-70b", tp=8, pp=4, dp=8, global_batch=512,
                          sequence_parallel=True, tokens="20B")
        theirs = json.loads(cli("llm", self.SCENARIO, "--model", "llama3-70b", "--tp", "8",
                                "--pp", "4", "--dp", "8", "--global-batch", "512",
                                "--tokens", "20B", "--json"))
        self.assertEqual(ours, theirs)
        for key in ("iteration_time", "mfu", "tflops_per_gpu", "memory_per_gpu",
                    "tokens_per_second", "train_time", "expected_interruptions"):
            self.assertGreater(ours[key], 0, key)
        self.assertLess(ours["mfu"], 1)
        self.assertLessEqual(ours["memory_per_gpu"], ours["memory"]["capacity"])

    def test_keys_move_the_answer(self):
        base = dict(pp=8, dp=4, global_batch=512, seq_length=4096)
        tp4 = gpusim.llm(self.SCENARIO, "llama3-70b", tp=4, **base)
        tp8 = gpusim.llm(self.SCENARIO, "llama3-70b", tp=8, **base)
        self.assertLess(tp8["memory_per_gpu"], tp4["memory_per_gpu"])
        fp8 = gpusim.llm(self.SCENARIO, "llama3-70b", tp=8, precision="fp8", **base)
        self.assertLess(fp8["iteration_time"], tp8["iteration_time"])

    def test_does_not_fit(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.llm(self.SCENARIO, "llama3-70b", tp=1, dp=8, global_batch=8)
        self.assertEqual(caught.exception.code, Sim.Error.UNSATISFIABLE)
        self.assertIn("does not fit", caught.exception.message)
        self.assertIn("weights", caught.exception.message)
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.llm(self.SCENARIO, "llama3-70b", tq=8)
        self.assertEqual(caught.exception.code, Sim.Error.UNKNOWN_KEY)
        self.assertIn('did you mean "tp"', caught.exception.message)

    def test_search(self):
        found = gpusim.llm(self.SCENARIO, "llama3-70b", search=3, gpus=256, global_batch=512)
        layouts = found["layouts"]
        self.assertEqual(len(layouts), 3)
        times = [layout["iteration_time"] for layout in layouts]
        self.assertEqual(times, sorted(times))
        for layout in layouts:
            self.assertEqual(layout["gpus"], 256)
            self.assertLessEqual(layout["memory_per_gpu"], layout["memory"]["capacity"])


class Keeper(gpusim.Policy):
    """First-fit that keeps what it is handed: the cluster and a job of
    do_place, the context of do_schedule and the jobs it lists."""

    def __init__(self):
        super().__init__()
        self.kept = {}

    def do_place(self, cluster, job, placement):
        self.kept.setdefault("cluster", cluster)
        self.kept.setdefault("job", job)
        return Sim.place_first_fit(cluster, job, placement)

    def do_schedule(self, ctx):
        queue = ctx.get_queue()
        if queue and "queued" not in self.kept:
            self.kept.update(ctx=ctx, now=ctx.get_now(), queued=queue[-1],
                             queued_id=queue[-1].spec.id)
        running = ctx.get_running()
        if running:
            self.kept.setdefault("running", running[0])
        self.schedule_in_order(ctx, False)


class LifetimeTests(unittest.TestCase):
    """Each getter that returns an object, kept past the simulation.  The
    simulation used to free the cluster (and the jobs, at their end) under
    what Python held: the values read below were then those of freed
    memory (the cluster's GPU count read 0)."""

    def test_cluster_outlives_its_simulation(self):
        cluster = gpusim.Simulation(QUICKSTART).cluster
        gc.collect()
        # 16 DGX H100 nodes of 8 GPUs each (scenarios/quickstart.ini).
        self.assertEqual(cluster.get_n_gpus(), 128)
        self.assertEqual(cluster.get_n_nodes(), 16)
        self.assertEqual(cluster.get_node(15).model.name, "DGX-H100")

    def test_nodes_pools_and_gpus_are_snapshots(self):
        sim = gpusim.Simulation(QUICKSTART, set={"scenario.horizon": "1d"})
        sim.run_until(6 * 3600)
        cluster = sim.cluster
        node, pool, gpu = cluster.get_node(5), cluster.get_pool(0), cluster.get_gpu(44)
        free_then = node.free_gpus
        sim.run()
        del sim, cluster
        gc.collect()
        self.assertEqual((node.index, node.first_gpu, node.n_gpus), (5, 40, 8))
        self.assertEqual(node.free_gpus, free_then)
        self.assertEqual((node.model.name, node.gpu_model.name), ("DGX-H100", "H100-SXM"))
        self.assertEqual((pool.name, pool.first_node, pool.n_nodes, pool.gpus_per_node),
                         ("h100", 0, 16, 8))
        self.assertEqual(pool.model.name, "DGX-H100")
        self.assertEqual((gpu.node, gpu.local_index), (5, 4))

    def test_mig_layout_outlives_its_simulation(self):
        # The bundled scenario's 1g.5gb variant: seven instances per A100.
        sim = gpusim.Simulation(os.path.join(TOP_SRCDIR, "scenarios", "mig-inference.ini"),
                                set={"class inference.mig": "1g.5gb"})
        sim.run_until(600)
        cluster = sim.cluster
        layouts = [(g, cluster.get_mig_layout(g)) for g in range(cluster.get_n_gpus())]
        layouts = [(g, l) for g, l in layouts if l is not None and l.n_instances > 0]
        self.assertTrue(layouts, "no GPU in MIG mode after ten minutes of MIG jobs")
        g, layout = layouts[0]
        seen = (layout.n_instances, layout.compute_used, layout.memory_used)
        del sim, cluster
        gc.collect()
        self.assertEqual((layout.n_instances, layout.compute_used, layout.memory_used), seen)
        # A backlog of 560 jobs fills every GPU: seven 1g slices of seven.
        self.assertEqual((layout.n_instances, layout.compute_used), (7, 0x7F))

    def test_scenario_report_and_policy_outlive_their_simulation(self):
        sim = gpusim.Simulation(QUICKSTART, set={"scenario.horizon": "1d"})
        report_json = sim.run().json
        scenario, report, policy = sim.raw.get_scenario(), sim.raw.get_report(), sim.raw.get_policy()
        del sim
        gc.collect()
        self.assertEqual(scenario.name, "quickstart")
        self.assertEqual(report.to_json(True), report_json)
        self.assertEqual(policy.get_name(), "fifo/first-fit")

    def test_pending_decision_outlives_its_simulation(self):
        sim = gpusim.Simulation(QUICKSTART, set={"scenario.horizon": "1d"})
        self.assertTrue(sim.raw.run_to_decision())
        ctx = sim.raw.get_decision()
        now, queued = ctx.get_now(), ctx.get_queue()
        job, job_id = queued[0], queued[0].spec.id
        self.assertTrue(sim.raw.decide(True))
        sim.run()
        del sim
        gc.collect()
        # The context is the simulation's decision point: kept, it reads as
        # the last decision left it.
        self.assertGreater(ctx.get_now(), now)
        self.assertEqual(ctx.get_cluster().get_n_gpus(), 128)
        # The first job of an empty cluster started at the first decision.
        self.assertEqual(job.spec.id, job_id)
        self.assertGreaterEqual(job.start, 0)
        with self.assertRaises(GLib.Error) as caught:
            ctx.start(job, Sim.Placement())
        self.assertIn("is over", caught.exception.message)

    def test_what_a_policy_keeps_outlives_the_run(self):
        keeper = Keeper()
        sim = gpusim.Simulation(QUICKSTART, set={"scenario.horizon": "2d"}, policy=keeper)
        sim.run()
        del sim
        gc.collect()
        kept = keeper.kept
        self.assertEqual(kept["cluster"].get_n_gpus(), 128)
        self.assertEqual(kept["cluster"].get_node(0).model.name, "DGX-H100")
        # Jobs read as the simulation last left them: the first placed one
        # started, and one that ran finished or was running at the horizon.
        self.assertGreaterEqual(kept["job"].start, 0)
        self.assertEqual(kept["job"].n_gpus, len(kept["job"].gpus))
        self.assertIn(kept["running"].state, (Sim.JobState.RUNNING, Sim.JobState.DONE))
        self.assertEqual(kept["queued"].spec.id, kept["queued_id"])
        self.assertEqual(kept["ctx"].get_cluster().get_n_gpus(), 128)
        self.assertGreaterEqual(kept["ctx"].get_now(), kept["now"])
        with self.assertRaises(GLib.Error) as caught:
            kept["ctx"].start(kept["queued"], Sim.Placement())
        self.assertIn("is over", caught.exception.message)


class OutputDirTests(unittest.TestCase):
    """A simulation with an output directory owns it, from Python as from
    the command line (docs/reliability.md, Outputs)."""

    def test_second_simulation_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            first = gpusim.Simulation(QUICKSTART, set={"scenario.horizon": "1d"}, output_dir=tmp)
            with self.assertRaises(gpusim.Error) as caught:
                gpusim.Simulation(QUICKSTART, output_dir=tmp)
            self.assertIn("in use by another gpusim run (process %d" % os.getpid(),
                          caught.exception.message)
            first.run()
            # The run is over: the directory is free again.
            gpusim.run(QUICKSTART, set={"scenario.horizon": "1d"}, output_dir=tmp)

    def test_earlier_files_go_and_others_stay(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("topology.dot", "summary.json.tmp-ABC123", "notes.txt"):
                with open(os.path.join(tmp, name), "w") as f:
                    f.write("from before\n")
            sim = gpusim.Simulation(QUICKSTART, set={"scenario.horizon": "1d"}, output_dir=tmp)
            # What a killed run left goes when the directory is taken ...
            self.assertFalse(os.path.exists(os.path.join(tmp, "summary.json.tmp-ABC123")))
            self.assertTrue(os.path.exists(os.path.join(tmp, "topology.dot")))
            sim.run()
            # ... an earlier run's output this one did not write (quickstart
            # has no [fabric]) when it succeeds; other names stay.
            self.assertEqual(sorted(os.listdir(tmp)),
                             ["jobs.csv", "nodes.csv", "notes.txt", "summary.json",
                              "timeseries.csv"])



class ServeTests(unittest.TestCase):
    SCENARIO = os.path.join(TOP_SRCDIR, "scenarios", "serve-70b-chat.ini")
    # A short run of the planner scenario: the first 5,000 requests.
    SHORT = dict(requests_count=5000)

    def test_matches_cli(self):
        ours = gpusim.serve(self.SCENARIO, replicas=3, **self.SHORT)
        theirs = json.loads(cli("serve", self.SCENARIO, "--set", "replicas=3",
                                "--set", "requests.count=5000", "--json"))
        self.assertEqual(ours, theirs)
        self.assertEqual(ours["requests"], 5000)
        for part in ("ttft", "tpot", "e2e"):
            stats = ours[part]
            self.assertLessEqual(stats["p50"], stats["p95"])
            self.assertLessEqual(stats["p95"], stats["p99"])
            self.assertLessEqual(stats["p99"], stats["max"])
        self.assertGreater(ours["usd_per_million_tokens"], 0)
        # Renting 8 x H100 costs more per hour than owning them.
        self.assertGreater(ours["cloud_usd_per_million_tokens"], ours["usd_per_million_tokens"])

    def test_keys_move_the_answer(self):
        one = gpusim.serve(self.SCENARIO, "chat", replicas=1, **self.SHORT)
        four = gpusim.serve(self.SCENARIO, "chat", replicas=4, **self.SHORT)
        self.assertLess(four["ttft"]["p99"], one["ttft"]["p99"])
        bf16 = gpusim.serve(self.SCENARIO, replicas=4, precision="bf16", **self.SHORT)
        self.assertGreater(bf16["tpot"]["mean"], four["tpot"]["mean"])
        busier = gpusim.serve(self.SCENARIO, replicas=4, requests_rate="60/s", **self.SHORT)
        self.assertGreater(busier["ttft"]["p99"], four["ttft"]["p99"])
        unchunked = gpusim.serve(self.SCENARIO, replicas=4, chunked_prefill=False,
                                 **self.SHORT)
        self.assertGreater(unchunked["tpot"]["max"], four["tpot"]["max"])
        # From one replica, the autoscaler starts more when the queue grows.
        scaled = gpusim.serve(self.SCENARIO, replicas=1, autoscale=True, max_replicas=4,
                              startup="30s", **self.SHORT)
        self.assertGreater(scaled["scale_ups"], 0)
        self.assertLess(scaled["ttft"]["p99"], one["ttft"]["p99"])
        self.assertAlmostEqual(one["replica_hours"], one["makespan"] / 3600)

    def test_refused(self):
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.serve(self.SCENARIO, replica=2)
        self.assertEqual(caught.exception.code, Sim.Error.UNKNOWN_KEY)
        self.assertIn('did you mean "replicas"', caught.exception.message)
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.serve(self.SCENARIO, tp=1, precision="bf16")
        self.assertEqual(caught.exception.code, Sim.Error.UNSATISFIABLE)
        self.assertIn("does not fit", caught.exception.message)
        with self.assertRaises(gpusim.Error) as caught:
            gpusim.serve(self.SCENARIO, "nope")
        self.assertEqual(caught.exception.code, Sim.Error.NOT_FOUND)

    def test_in_a_run(self):
        # The deployment in an ordinary run, beside the training jobs: the
        # same request figures as the deployment alone when its replicas
        # hold their GPUs throughout (they are placed at time 0 on an
        # empty cluster), and the run's own figures beside them.
        sets = ["requests chat.count=5000", "serving chat.replicas=3"]
        report = gpusim.run(self.SCENARIO, set=sets)
        alone = gpusim.serve(self.SCENARIO, replicas=3, **self.SHORT)
        chat = report.serving["chat"]
        self.assertEqual(chat["requests"], 5000)
        for stat in ("mean", "p50", "p95", "p99"):
            self.assertAlmostEqual(chat["ttft_" + stat], alone["ttft"][stat], places=9)
            self.assertAlmostEqual(chat["e2e_" + stat], alone["e2e"][stat], places=9)
        self.assertEqual(chat["ttft_p99"], report["serving.chat.ttft_p99"])
        self.assertGreater(chat["usd_per_million_tokens_cloud"],
                           chat["usd_per_million_tokens_owned"])
        self.assertIn("jct_mean", report)
        # A scenario without deployments has none.
        quick = gpusim.run(os.path.join(TOP_SRCDIR, "scenarios", "quickstart.ini"))
        self.assertEqual(quick.serving, {})


if __name__ == "__main__":
    unittest.main()
