#!/usr/bin/env python3
"""Trains a scheduling policy with REINFORCE, in numpy alone, and compares it
with the built-in heuristics on seeds it never saw.

    python3 examples/python/rl_reinforce.py [--iterations N] [--quick] ...

The environment is gpusim.ClusterEnv over scenarios/rl-small.ini (120 jobs on
4 x DGX H100 at more than the cluster's capacity) with the "jobs" reward, so
an episode's return is minus the sum of the jobs' completion times.

The window shows the 32 oldest waiting jobs (SJF, by contrast, sees the
whole queue).  The policy is a linear softmax over the actions the mask
allows.  Every action gets a feature vector: a start (k, p) describes the
k-th waiting job (GPUs asked, whether it fits on one node, requested hours
and GPU-hours, hours waited and waited / requested, its slot, how it ranks
by requested time in the window and by requested time and by GPU-hours
among the jobs that can start now) and the placement p; wait has features
of its own (the cluster's free and fragmented shares, jobs waiting and
running, how many could start and the shortest of them).  The score of an
action is the dot product of its features with one weight vector, so the
same weights rank any job in any slot.  Observation entries are read at
their documented offsets from the start (libsim/rl/sim-rl-env.h).

The agent is work-conserving by default: it chooses among the starts the
mask allows and waits only when no job can start (the environment's mask
alone would let it wait, and leave GPUs idle, at any decision).  With
--no-work-conserving, wait is one more action the policy scores and learns.

Training: each iteration plays K episodes on each of B training seeds,
sampling actions from the policy.  An episode's advantage is its return minus
the mean return of the other K - 1 episodes on the same seed (a leave-one-out
baseline: the same jobs, so the difference is down to the actions), scaled by
the spread of returns; the gradient of the log-probability of each action
taken is weighted by it (REINFORCE), with Adam steps.

Evaluation: the greedy policy (the highest-scoring action it may choose,
work-conserving as in training) on held-out seeds, beside FIFO, SJF and EASY
backfilling run by the library itself on the same seeds, and a policy
choosing uniformly among the actions the mask allows (wait included).  With
the defaults the learned policy matches SJF's mean JCT on seeds 10001 to
10020 (see the README's "Trained agents").  Every number depends on --seed
only.
"""
import argparse
import math
import os
import sys
import time

import numpy as np

import gpusim

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "..", "scenarios", "rl-small.ini")

WINDOW = 32     # waiting jobs the agent sees, oldest first (SJF sees the whole queue)
PLACEMENTS = ("first-fit", "best-fit")
# The built-in policies compared with the agents: label -> [policy] keys.
HEURISTICS = (
    ("FIFO", {"policy.queue": "fifo", "policy.placement": "first-fit"}),
    ("SJF", {"policy.queue": "sjf", "policy.placement": "first-fit",
             "policy.sjf_estimate": "requested"}),
    ("EASY", {"policy.queue": "easy", "policy.placement": "first-fit"}),
)
# Seeds: training seeds are drawn from 1 to 10000, held-out ones start at 10001.
TRAIN_SEED0 = 1
EVAL_SEED0 = 10001


class Features:
    """The feature vectors of an observation's allowed actions.

    Observation entries are read at their documented offsets from the start
    (libsim/rl/sim-rl-env.h): the window's rows, then the node slots', then
    the global entries; anything after those is ignored."""

    JOB = 11         # per-job features of a start action
    PLACE = len(PLACEMENTS)
    WAIT = 7         # features of the wait action
    SIZE = JOB + PLACE + WAIT
    NODE_GPUS = 8.0  # GPUs of a DGX H100 node, the unit of the GPU features

    def __init__(self, env):
        self.W = env.window
        self.P = len(env.placements)
        self.S = env.node_slots
        self.wait_action = env.wait_action
        self.g0 = self.W * 7 + self.S * 2     # first global entry

    @staticmethod
    def _rank(values, among):
        """Each value's rank among values[among], scaled to [0, 1] (0 = the
        smallest); 0 for all when there is at most one."""
        ref = np.sort(values[among])
        if len(ref) < 2:
            return np.zeros(len(values))
        return np.searchsorted(ref, values, side="left") / (len(ref) - 1.0)

    def __call__(self, obs, mask):
        allowed = np.flatnonzero(mask)
        W, P = self.W, self.P
        jobs = np.asarray(obs[:W * 7], dtype=np.float64).reshape(W, 7)
        glob = obs[self.g0:self.g0 + 5]
        free, frag, waiting, running = glob[0], glob[1], glob[2], glob[3]
        present = jobs[:, 0] > 0
        gpus = jobs[:, 1]
        req = np.log1p(jobs[:, 5])
        area = np.log1p(gpus * jobs[:, 5])           # log(1 + requested GPU-hours)
        is_wait = allowed == self.wait_action
        starts = allowed[~is_wait]
        k = starts // P
        p = starts % P
        can_start = np.zeros(W, dtype=bool)
        can_start[k] = True
        n_starts = int(can_start.sum())
        shortest = float(req[can_start].min()) if n_starts else 0.0
        x = np.zeros((len(allowed), self.SIZE))
        xs = x[~is_wait]
        xs[:, 0] = 1.0
        xs[:, 1] = gpus[k] / self.NODE_GPUS                          # GPUs asked, in nodes
        xs[:, 2] = req[k]                                            # log(1 + requested hours)
        xs[:, 3] = self._rank(req, present)[k]                       # rank by requested time in the window
        xs[:, 4] = np.log1p(jobs[k, 4])                              # log(1 + hours waited)
        xs[:, 5] = area[k]                                           # log(1 + requested GPU-hours)
        xs[:, 6] = k / W                                             # position in the queue
        xs[:, 7] = self._rank(req, can_start)[k]                     # rank by requested time among the startable
        xs[:, 8] = self._rank(area, can_start)[k]                    # rank by GPU-hours among the startable
        xs[:, 9] = gpus[k] <= self.NODE_GPUS                         # fits on one node
        xs[:, 10] = np.log1p(jobs[k, 4] / np.maximum(jobs[k, 5], 0.05))  # log(1 + waited / requested)
        xs[np.arange(len(k)), self.JOB + p] = 1.0
        x[~is_wait] = xs
        if is_wait.any():
            x[is_wait, self.JOB + self.PLACE:] = (
                1.0, free, frag, math.log1p(waiting), math.log1p(running),
                math.log1p(n_starts), shortest)
        return allowed, x

    def choices(self, allowed, work_conserving):
        """The rows (indices into *allowed*) a policy may choose among: all
        of them, or, when *work_conserving*, wait only if no start is
        allowed."""
        if work_conserving:
            rows = np.flatnonzero(allowed != self.wait_action)
            if len(rows):
                return rows
        return np.arange(len(allowed))


def softmax(z):
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()


class LinearPolicy:
    def __init__(self, size, rng):
        self.theta = np.zeros(size)
        self.rng = rng
        self.work_conserving = False   # set by train()
        # Adam state.
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.t = 0

    def probs(self, x):
        return softmax(x @ self.theta)

    def sample(self, x, rows=None):
        """An index into x's rows drawn from the softmax (over *rows* only
        when given), and the probabilities of those rows."""
        if rows is None:
            rows = np.arange(len(x))
        p = self.probs(x[rows])
        return int(rows[self.rng.choice(len(p), p=p)]), p

    def greedy(self, x, rows=None):
        if rows is None:
            return int(np.argmax(x @ self.theta))
        return int(rows[np.argmax(x[rows] @ self.theta)])

    def adam(self, grad, lr, b1=0.9, b2=0.999, eps=1e-8):
        """An ascent step along *grad*."""
        self.t += 1
        self.m = b1 * self.m + (1 - b1) * grad
        self.v = b2 * self.v + (1 - b2) * grad * grad
        mh = self.m / (1 - b1 ** self.t)
        vh = self.v / (1 - b2 ** self.t)
        self.theta += lr * mh / (np.sqrt(vh) + eps)


def play(env, feats, seed, choose):
    """One episode on *seed*; *choose(allowed, x)* returns an index into
    allowed.  Returns (return, report, [(x, index), ...])."""
    obs, info = env.reset(seed=seed)
    total = 0.0
    trace = []
    done = False
    while not done:
        allowed, x = feats(obs, info["action_mask"])
        i = choose(allowed, x)
        trace.append((x, i))
        obs, reward, terminated, truncated, info = env.step(int(allowed[i]))
        total += reward
        done = terminated or truncated
    return total, info["report"], trace


def train(env, iterations, batch_seeds, rollouts, lr, seed, log=print, work_conserving=True):
    feats = Features(env)
    rng = np.random.default_rng(seed)
    policy = LinearPolicy(Features.SIZE, rng)
    for it in range(iterations):
        grad = np.zeros_like(policy.theta)
        returns_all = []
        for b in range(batch_seeds):
            ep_seed = int(rng.integers(TRAIN_SEED0, EVAL_SEED0))   # never a held-out seed
            episodes = []
            for _ in range(rollouts):
                steps = []

                def choose(allowed, x):
                    rows = feats.choices(allowed, work_conserving)
                    i, _ = policy.sample(x, rows)
                    steps.append(rows)
                    return i
                ret, _, trace = play(env, feats, ep_seed, choose)
                episodes.append((ret, [(x, i, rows) for (x, i), rows in zip(trace, steps)]))
            rets = np.array([r for r, _ in episodes])
            returns_all.append(rets.mean())
            scale = rets.std() + 1e-9
            for j, (ret, trace) in enumerate(episodes):
                baseline = (rets.sum() - ret) / (rollouts - 1)
                adv = (ret - baseline) / scale
                if adv == 0:
                    continue
                g = np.zeros_like(policy.theta)
                for x, i, rows in trace:
                    if len(rows) < 2:
                        continue                  # no choice, no gradient
                    xr = x[rows]
                    p = policy.probs(xr)
                    g += x[i] - p @ xr
                grad += adv * g
        grad /= batch_seeds * rollouts
        policy.adam(grad, lr)
        if log:
            log("iteration %3d  mean return %10.1f job-hours" % (it + 1, np.mean(returns_all)))
    policy.work_conserving = work_conserving
    return policy, feats


def metrics(report):
    """The evaluation figures from a run's report: mean JCT (hours), and GPU
    utilization and fragmentation over the busy period (from 0 to the last
    completion; the report's own figures divide by the horizon)."""
    makespan = report["makespan"]
    alloc = report["allocated_gpu_seconds"]
    sim_time = report["simulated_time"]
    gpus = alloc / (report["gpu_utilization"] * sim_time) if report["gpu_utilization"] > 0 else 0
    util = alloc / (gpus * makespan) if gpus and makespan > 0 else 0.0
    frag = report["fragmented_gpus_mean"] * sim_time / (gpus * makespan) if gpus and makespan > 0 else 0.0
    return {"jct_h": report["jct_mean"] / 3600.0, "wait_h": report["wait_mean"] / 3600.0,
            "util": util, "frag": frag, "unfinished": report["jobs_unfinished"]}


def evaluate(env, feats, policy, eval_seeds, rng_seed, scenario=SCENARIO):
    """Rows (label, [metrics per seed]) for the heuristics, the random
    masked policy and (when given) the learned one."""
    rows = []
    for label, keys in HEURISTICS:
        per_seed = []
        for s in eval_seeds:
            overrides = dict(keys)
            overrides["scenario.seed"] = str(s)
            per_seed.append(metrics(gpusim.run(scenario, set=overrides)))
        rows.append((label, per_seed))
    rng = np.random.default_rng(rng_seed)
    rows.append(("random (masked)",
                 [metrics(play(env, feats, s, lambda allowed, x: int(rng.integers(len(allowed))))[1])
                  for s in eval_seeds]))
    if policy is not None:
        wc = getattr(policy, "work_conserving", False)
        rows.append(("REINFORCE (learned)",
                     [metrics(play(env, feats, s, lambda allowed, x:
                                   policy.greedy(x, feats.choices(allowed, wc)))[1])
                      for s in eval_seeds]))
    return rows


def mean_of(per_seed, key):
    return float(np.mean([m[key] for m in per_seed]))


def print_table(rows, out=sys.stdout):
    print("%-20s %12s %12s %10s %14s" % ("policy", "mean JCT h", "mean wait h",
                                         "GPU util", "fragmentation"), file=out)
    for label, per_seed in rows:
        print("%-20s %12.2f %12.2f %10.3f %14.4f" % (
            label, mean_of(per_seed, "jct_h"), mean_of(per_seed, "wait_h"),
            mean_of(per_seed, "util"), mean_of(per_seed, "frag")), file=out)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default=SCENARIO, help="scenario file (default: rl-small.ini)")
    ap.add_argument("--iterations", type=int, default=60, help="training iterations (default 60)")
    ap.add_argument("--batch-seeds", type=int, default=4, help="training seeds per iteration (default 4)")
    ap.add_argument("--rollouts", type=int, default=4, help="episodes per training seed (default 4)")
    ap.add_argument("--lr", type=float, default=0.05, help="Adam step size (default 0.05)")
    ap.add_argument("--eval-seeds", type=int, default=20, help="held-out seeds (default 20)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the whole run (default 1)")
    ap.add_argument("--no-work-conserving", dest="work_conserving", action="store_false",
                    help="let the policy choose wait while a job could start (a learned action); "
                         "by default it waits only when no job can start")
    ap.add_argument("--quick", action="store_true",
                    help="a short run (8 iterations, 5 held-out seeds), for tests")
    ap.add_argument("--quiet", action="store_true", help="no per-iteration log")
    args = ap.parse_args(argv)
    if args.quick:
        args.iterations = min(args.iterations, 8)
        args.eval_seeds = min(args.eval_seeds, 5)
    if args.rollouts < 2:
        ap.error("--rollouts must be at least 2 (the baseline is the other rollouts' mean)")
    return args


def main(argv):
    args = parse_args(argv)
    env = gpusim.ClusterEnv(args.scenario, window=WINDOW, node_slots=8,
                            placements=PLACEMENTS, reward="jobs")
    t0 = time.monotonic()
    policy, feats = train(env, args.iterations, args.batch_seeds, args.rollouts, args.lr,
                          args.seed, log=None if args.quiet else print,
                          work_conserving=args.work_conserving)
    elapsed = time.monotonic() - t0
    print("trained in %.1f s (%d episodes)" % (elapsed, args.iterations * args.batch_seeds * args.rollouts))
    print("weights: %s" % np.array2string(policy.theta, precision=2, max_line_width=200))
    eval_seeds = list(range(EVAL_SEED0, EVAL_SEED0 + args.eval_seeds))
    rows = evaluate(env, feats, policy, eval_seeds, args.seed, args.scenario)
    print("held-out seeds %d..%d; the learned policy is greedy and %s:" % (
        eval_seeds[0], eval_seeds[-1],
        "work-conserving (it waits only when no job can start)" if args.work_conserving
        else "may wait while a job could start"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
