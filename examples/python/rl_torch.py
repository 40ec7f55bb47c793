#!/usr/bin/env python3
"""Trains a scheduling policy with PPO in PyTorch and compares it with the
built-in heuristics on held-out seeds (as rl_reinforce.py does with numpy).

    python3 examples/python/rl_torch.py [--iterations N] [--quick] ...

Needs PyTorch (on Debian: apt install python3-torch); without it, says so and
exits with status 0.

The actor scores every allowed action from the same per-action features as
rl_reinforce.py (rl_reinforce.Features) with a small MLP shared across actions,
and takes a softmax over the allowed ones (the others get -1e9); the critic
reads the raw observation.  Each iteration collects episodes on training
seeds, computes advantages with GAE (rewards in job-hours, scaled), and runs a
few epochs of clipped-objective minibatch updates.  Evaluation is greedy, on
the same held-out seeds and beside the same heuristics as rl_reinforce.py.
"""
import argparse
import os
import sys
import time

try:
    import torch
    from torch import nn
except ImportError:
    torch = None

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpusim  # noqa: E402
import rl_reinforce as rf  # noqa: E402

REWARD_SCALE = 0.01     # job-hours to the units the critic learns


class ActorCritic(nn.Module if torch is not None else object):
    def __init__(self, feature_size, obs_size, hidden=32):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(feature_size, hidden), nn.Tanh(),
                                   nn.Linear(hidden, 1))
        self.critic = nn.Sequential(nn.Linear(obs_size, 64), nn.Tanh(), nn.Linear(64, 1))

    def logits(self, x, valid):
        """*x*: (N, A, F) per-action features, *valid*: (N, A) booleans."""
        z = self.actor(x).squeeze(-1)
        return z.masked_fill(~valid, -1e9)    # exp() gives exactly 0, and no NaN in entropy()

    def value(self, obs):
        return self.critic(obs).squeeze(-1)


def observe(feats, obs, mask, n_actions, work_conserving):
    """Padded per-action features (A, F), the valid flags (A) and the allowed
    action numbers (as rl_reinforce.Features gives them); when
    *work_conserving*, wait is valid only if no job can start."""
    allowed, x = feats(obs, mask)
    padded = np.zeros((n_actions, x.shape[1]), dtype=np.float32)
    valid = np.zeros(n_actions, dtype=bool)
    padded[:len(allowed)] = x
    valid[feats.choices(allowed, work_conserving)] = True
    return padded, valid, allowed


def squash_obs(obs):
    """The critic's input: counts and hours compressed with log1p."""
    return np.log1p(np.asarray(obs, dtype=np.float32))


def collect(env, feats, model, seeds, gen, work_conserving):
    """Plays one episode per seed, sampling; returns the stacked batch."""
    A = env.action_space.n
    X, V, O, act, logp, rew, done, val = [], [], [], [], [], [], [], []
    with torch.no_grad():
        for seed in seeds:
            obs, info = env.reset(seed=int(seed))
            finished = False
            while not finished:
                x, valid, allowed = observe(feats, obs, info["action_mask"], A, work_conserving)
                o = squash_obs(obs)
                xt = torch.from_numpy(x).unsqueeze(0)
                vt = torch.from_numpy(valid).unsqueeze(0)
                dist = torch.distributions.Categorical(logits=model.logits(xt, vt))
                i = torch.multinomial(dist.probs, 1, generator=gen).squeeze(-1)   # seeded
                X.append(x)
                V.append(valid)
                O.append(o)
                act.append(int(i))
                logp.append(float(dist.log_prob(i.reshape(1))))
                val.append(float(model.value(torch.from_numpy(o).unsqueeze(0))))
                obs, reward, terminated, truncated, info = env.step(int(allowed[int(i)]))
                finished = terminated or truncated
                rew.append(reward * REWARD_SCALE)
                done.append(finished)
    return (np.array(X), np.array(V), np.array(O), np.array(act), np.array(logp, dtype=np.float32),
            np.array(rew, dtype=np.float32), np.array(done), np.array(val, dtype=np.float32))


def gae(rew, done, val, gamma, lam):
    adv = np.zeros_like(rew)
    last = 0.0
    for t in range(len(rew) - 1, -1, -1):
        nxt = 0.0 if done[t] else val[t + 1]
        delta = rew[t] + gamma * nxt - val[t]
        last = delta + gamma * lam * (0.0 if done[t] else last)
        adv[t] = last
    return adv, adv + val


def train(env, args, log=print):
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    feats = rf.Features(env)
    model = ActorCritic(rf.Features.SIZE, env.observation_space.shape[0])
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    for it in range(args.iterations):
        seeds = rng.integers(rf.TRAIN_SEED0, rf.EVAL_SEED0, size=args.episodes)
        X, V, O, act, logp, rew, done, val = collect(env, feats, model, seeds, gen,
                                                     args.work_conserving)
        adv, ret = gae(rew, done, val, args.gamma, args.lam)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        tX, tV, tO = torch.from_numpy(X), torch.from_numpy(V), torch.from_numpy(O)
        tact, tlogp = torch.from_numpy(act), torch.from_numpy(logp)
        tadv, tret = torch.from_numpy(adv), torch.from_numpy(ret)
        n = len(act)
        for _ in range(args.epochs):
            order = torch.randperm(n, generator=gen)
            for start in range(0, n, args.minibatch):
                b = order[start:start + args.minibatch]
                dist = torch.distributions.Categorical(logits=model.logits(tX[b], tV[b]))
                ratio = torch.exp(dist.log_prob(tact[b]) - tlogp[b])
                clipped = torch.clamp(ratio, 1 - args.clip, 1 + args.clip)
                pg = -torch.min(ratio * tadv[b], clipped * tadv[b]).mean()
                vloss = ((model.value(tO[b]) - tret[b]) ** 2).mean()
                loss = pg + 0.5 * vloss - 0.01 * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                opt.step()
        if log:
            log("iteration %3d  mean return %10.1f job-hours" %
                (it + 1, rew.sum() / REWARD_SCALE / len(seeds)))
    return model, feats


class Greedy:
    """The trained actor as rl_reinforce.evaluate's policy (greedy)."""

    def __init__(self, model):
        self.model = model

    def greedy(self, x, rows):
        """The best of the rows (indices into the allowed actions) it may choose."""
        with torch.no_grad():
            z = self.model.actor(torch.from_numpy(x[rows].astype(np.float32))).squeeze(-1)
            return int(rows[int(torch.argmax(z.reshape(-1)))])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default=rf.SCENARIO)
    ap.add_argument("--iterations", type=int, default=40, help="training iterations (default 40)")
    ap.add_argument("--episodes", type=int, default=8, help="episodes per iteration (default 8)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--minibatch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--gamma", type=float, default=0.999)
    ap.add_argument("--lam", type=float, default=0.95)
    ap.add_argument("--clip", type=float, default=0.2)
    ap.add_argument("--eval-seeds", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a short run (3 iterations, 5 held-out seeds)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--no-work-conserving", dest="work_conserving", action="store_false",
                    help="let the agent wait while a job could start (it learns when to)")
    args = ap.parse_args(argv)
    if torch is None:
        print("PyTorch (Debian package python3-torch) is not installed; skipping")
        return 0
    if args.quick:
        args.iterations = min(args.iterations, 3)
        args.episodes = min(args.episodes, 4)
        args.eval_seeds = min(args.eval_seeds, 5)
    torch.set_num_threads(1)
    env = gpusim.ClusterEnv(args.scenario, window=rf.WINDOW, node_slots=8,
                            placements=rf.PLACEMENTS, reward="jobs")
    t0 = time.monotonic()
    model, feats = train(env, args, log=None if args.quiet else print)
    print("trained in %.1f s (%d episodes)" % (time.monotonic() - t0, args.iterations * args.episodes))
    eval_seeds = list(range(rf.EVAL_SEED0, rf.EVAL_SEED0 + args.eval_seeds))
    rows = rf.evaluate(env, feats, None, eval_seeds, args.seed, args.scenario)
    greedy = Greedy(model)
    wc = args.work_conserving
    rows.append(("PPO (learned)",
                 [rf.metrics(rf.play(env, feats, s, lambda allowed, x:
                                     greedy.greedy(x, feats.choices(allowed, wc)))[1])
                  for s in eval_seeds]))
    print("held-out seeds %d..%d:" % (eval_seeds[0], eval_seeds[-1]))
    rf.print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
