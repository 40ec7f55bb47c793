#!/usr/bin/env python3
"""Checks the agents in examples/python/ (run by tests/test-rl-agents.sh).

What it checks: the comparison is sound (an agent in ClusterEnv that starts
the head of the queue with first-fit on seed s gives the same report as the
library's FIFO/first-fit on seed s, so the heuristics' rows and the agents'
rows describe the same jobs); the numpy REINFORCE agent, trained briefly,
has a lower mean JCT than the random masked policy and FIFO on held-out
seeds it never trained on, and is within 5 % of SJF's mean JCT or better
(it lands within 0.5 % of SJF for every training seed tried); training is deterministic in its seed; and both examples
run to the end in quick mode (the PyTorch one says it skips when torch is
not installed).
"""
import os
import subprocess
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_SRCDIR = os.environ.get("SIM_TOP_SRCDIR", os.path.join(HERE, ".."))
EXAMPLES = os.path.join(TOP_SRCDIR, "examples", "python")
sys.path.insert(0, EXAMPLES)

import gpusim  # noqa: E402
import rl_reinforce as rf  # noqa: E402


def new_env():
    return gpusim.ClusterEnv(rf.SCENARIO, window=rf.WINDOW, node_slots=8,
                             placements=rf.PLACEMENTS, reward="jobs")


class Comparison(unittest.TestCase):
    def test_head_of_queue_agent_is_fifo(self):
        env = new_env()
        feats = rf.Features(env)
        for seed in (rf.EVAL_SEED0, rf.EVAL_SEED0 + 1):
            # The first allowed start is window slot 0 with first-fit when the
            # head fits; FIFO blocks behind the head, so wait otherwise.
            def head_first_fit(allowed, x):
                return 0 if allowed[0] == 0 else len(allowed) - 1
            _, report, _ = rf.play(env, feats, seed, head_first_fit)
            fifo = gpusim.run(rf.SCENARIO, set={"scenario.seed": str(seed),
                                                "policy.queue": "fifo",
                                                "policy.placement": "first-fit"})
            for name in ("jct_mean", "makespan", "allocated_gpu_seconds", "fragmented_gpus_mean"):
                self.assertAlmostEqual(report[name], fifo[name], delta=1e-6 * abs(fifo[name]) + 1e-9,
                                       msg="%s on seed %d" % (name, seed))
            self.assertEqual(report["jobs_unfinished"], 0)


class Reinforce(unittest.TestCase):
    def test_learned_beats_random_on_held_out_seeds(self):
        env = new_env()
        policy, feats = rf.train(env, iterations=25, batch_seeds=4, rollouts=4, lr=0.05,
                                 seed=1, log=None)
        seeds = list(range(rf.EVAL_SEED0, rf.EVAL_SEED0 + 8))
        table = rf.evaluate(env, feats, policy, seeds, rng_seed=1)
        rf.print_table(table, out=sys.stderr)
        rows = dict(table)
        learned = rf.mean_of(rows["REINFORCE (learned)"], "jct_h")
        random = rf.mean_of(rows["random (masked)"], "jct_h")
        fifo = rf.mean_of(rows["FIFO"], "jct_h")
        self.assertLess(learned, random, "learned %.2f h against random %.2f h" % (learned, random))
        self.assertLess(learned, fifo, "learned %.2f h against FIFO %.2f h" % (learned, fifo))
        sjf = rf.mean_of(rows["SJF"], "jct_h")
        self.assertLessEqual(learned, 1.05 * sjf, "learned %.3f h against SJF %.3f h" % (learned, sjf))
        for per_seed in rows.values():
            self.assertEqual(len(per_seed), len(seeds))
            for m in per_seed:
                self.assertEqual(m["unfinished"], 0)
                self.assertTrue(0 < m["util"] <= 1 and 0 <= m["frag"] <= 1)

    def test_deterministic_in_seed(self):
        env = new_env()
        a, _ = rf.train(env, iterations=2, batch_seeds=2, rollouts=2, lr=0.05, seed=3, log=None)
        b, _ = rf.train(env, iterations=2, batch_seeds=2, rollouts=2, lr=0.05, seed=3, log=None)
        c, _ = rf.train(env, iterations=2, batch_seeds=2, rollouts=2, lr=0.05, seed=4, log=None)
        np.testing.assert_array_equal(a.theta, b.theta)
        self.assertTrue(np.any(a.theta != 0))
        self.assertFalse(np.array_equal(a.theta, c.theta))


class Examples(unittest.TestCase):
    def run_example(self, name):
        return subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--quick", "--quiet"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=300)

    def test_reinforce_quick(self):
        out = self.run_example("rl_reinforce.py")
        self.assertEqual(out.returncode, 0, out.stdout)
        for label in ("FIFO", "SJF", "EASY", "random (masked)", "REINFORCE (learned)"):
            self.assertIn(label, out.stdout)

    def test_torch_quick_or_skip(self):
        out = self.run_example("rl_torch.py")
        self.assertEqual(out.returncode, 0, out.stdout)
        try:
            import torch  # noqa: F401
        except ImportError:
            self.assertIn("PyTorch (Debian package python3-torch) is not installed; skipping",
                          out.stdout)
        else:
            self.assertIn("PPO (learned)", out.stdout)


if __name__ == "__main__":
    unittest.main()
