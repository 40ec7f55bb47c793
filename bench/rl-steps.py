#!/usr/bin/python3
"""Steps per second of gpusim.ClusterEnv from Python, single and vectorized.

    bench/rl-steps.py [HORIZON]      (default 365d of scenarios/quickstart.ini)

Run with the build tree's library, as `make bench-python` does.  The agent
takes the first possible action (numpy's argmax over the mask), so what is
timed is the environment and the binding, not a policy.  It never fails on
time.
"""

import os
import sys
import time

import numpy as np

import gpusim

TOP = os.environ.get("SIM_TOP_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
SCENARIO = os.path.join(TOP, "scenarios", "quickstart.ini")


def single(horizon):
    env = gpusim.ClusterEnv(SCENARIO, set={"scenario.horizon": horizon})
    obs, info = env.reset(seed=1)
    steps, done = 0, False
    t0 = time.perf_counter()
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(np.argmax(info["action_mask"])))
        steps += 1
        done = terminated or truncated
    return steps, time.perf_counter() - t0


def vectorized(horizon, n, steps):
    venv = gpusim.ClusterVecEnv(SCENARIO, n, set={"scenario.horizon": horizon})
    obs, info = venv.reset(seed=1)
    t0 = time.perf_counter()
    for _ in range(steps):
        obs, rewards, terminated, truncated, info = venv.step(info["action_mask"].argmax(axis=1))
    return steps * n, time.perf_counter() - t0


def main():
    horizon = sys.argv[1] if len(sys.argv) > 1 else "365d"
    print("quickstart.ini, horizon %s; window 16, 32 node slots, first-fit and best-fit" % horizon)
    steps, seconds = single(horizon)
    print("%-32s %8d steps %7.3f s %9.0f steps/s" % ("ClusterEnv, one", steps, seconds,
                                                     steps / seconds))
    for n in (4, 16):
        steps, seconds = vectorized(horizon, n, 5000)
        print("%-32s %8d steps %7.3f s %9.0f steps/s" % ("ClusterVecEnv, %d envs" % n, steps,
                                                         seconds, steps / seconds))


if __name__ == "__main__":
    main()
