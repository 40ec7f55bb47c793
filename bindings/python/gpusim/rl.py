"""A reinforcement-learning environment over gpusim, with Gymnasium's semantics.

:class:`ClusterEnv` wraps the library's ``Sim.RlEnv`` (libsim/rl/sim-rl-env.h,
where the observation layout is documented).  Each step is one action at a
pending scheduling decision of a whole simulation:

* actions ``k * P + p`` start the k-th waiting job of the window with the
  p-th placement (``env.placements``); the decision stays open, no
  simulated time passes and the reward is 0;
* with ``node_actions=True`` (or ``[rl] node_actions = true`` in the
  scenario; off by default), actions ``env.first_node_action + k * S + s``
  start the k-th waiting job at node slot s: its whole GPUs on the first
  node of the slot with room, that node's lowest-numbered free GPUs;
* the last action, ``env.wait_action``, commits the decision and runs to
  the next one; the reward covers the simulated time that passed.

``info["action_mask"]`` (and :meth:`ClusterEnv.action_masks`) says which
actions are possible; an action the mask rules out raises
:class:`gpusim.Error` and changes nothing.

    import gpusim
    env = gpusim.ClusterEnv("scenarios/quickstart.ini", set={"scenario.horizon": "2d"})
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action = int(info["action_mask"].nonzero()[0][0])   # first possible action
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    print(info["report"]["jct_mean"])

When the ``gymnasium`` package can be imported, the environment is a
``gymnasium.Env`` and its spaces are gymnasium's ``Box`` and ``Discrete``;
otherwise :class:`Box` and :class:`Discrete` here stand in for them, with
the same attributes and methods (``shape``, ``dtype``, ``low``, ``high``,
``n``, ``sample()``, ``contains()``, ``seed()``).
"""

import numpy as np

from gi.repository import GLib, Sim

try:  # pragma: no cover - depends on what is installed
    import gymnasium as _gym
    _EnvBase = _gym.Env
except ImportError:  # gymnasium is optional
    _gym = None
    _EnvBase = object

_REWARDS = {"jobs": Sim.RlReward.JOBS, "utilization": Sim.RlReward.UTILIZATION,
            "slowdown": Sim.RlReward.SLOWDOWN, "energy": Sim.RlReward.ENERGY,
            "cost": Sim.RlReward.COST}


class Box:
    """A box of float32 values, ``low <= x <= high`` element-wise (Gymnasium's
    ``spaces.Box``, for when gymnasium is not installed)."""

    def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
        self.dtype = np.dtype(dtype)
        if shape is None:
            shape = np.shape(low) if np.ndim(low) else np.shape(high)
        self.shape = tuple(shape)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)
        return [seed]

    @property
    def np_random(self):
        return self._rng

    def sample(self):
        """A uniform sample; unbounded entries are drawn from an exponential
        above the lower bound."""
        high = np.where(np.isfinite(self.high) & (self.high < np.finfo(self.dtype).max),
                        self.high, np.nan)
        bounded = ~np.isnan(high)
        out = np.empty(self.shape, dtype=self.dtype)
        out[bounded] = self._rng.uniform(self.low[bounded], high[bounded])
        out[~bounded] = self.low[~bounded] + self._rng.exponential(size=int((~bounded).sum()))
        return out

    def contains(self, x):
        x = np.asarray(x)
        return (x.shape == self.shape and np.can_cast(x.dtype, self.dtype)
                and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high)))

    __contains__ = contains

    def __repr__(self):
        return "Box(%s, %s)" % (self.shape, self.dtype)


class Discrete:
    """The integers ``start`` to ``start + n - 1`` (Gymnasium's
    ``spaces.Discrete``, for when gymnasium is not installed)."""

    def __init__(self, n, seed=None, start=0):
        self.n = int(n)
        self.start = int(start)
        self.shape = ()
        self.dtype = np.dtype(np.int64)
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)
        return [seed]

    @property
    def np_random(self):
        return self._rng

    def sample(self, mask=None):
        """A uniform sample, among the actions whose *mask* entry is 1 if
        given."""
        if mask is not None:
            allowed = np.flatnonzero(np.asarray(mask))
            if len(allowed) == 0:
                return self.start
            return int(self.start + self._rng.choice(allowed))
        return int(self.start + self._rng.integers(self.n))

    def contains(self, x):
        if isinstance(x, (np.generic, np.ndarray)):
            if x.shape != () or not np.issubdtype(x.dtype, np.integer):
                return False
            x = int(x)
        elif not isinstance(x, int) or isinstance(x, bool):
            return False
        return self.start <= x < self.start + self.n

    __contains__ = contains

    def __repr__(self):
        return "Discrete(%d)" % self.n


def _spaces():
    if _gym is not None:
        return _gym.spaces.Box, _gym.spaces.Discrete
    return Box, Discrete


class ClusterEnv(_EnvBase):
    """The scheduling of a simulated GPU cluster as a Gymnasium environment.

    *scenario* is a scenario path or a :class:`gpusim.Scenario`; *set*
    overrides keys (as ``gpusim run --set``).  *window* (W) is how many
    waiting jobs an observation shows, in the queue order of the scenario's
    policy; *node_slots* (S) how many node slots (nodes are grouped when
    the cluster has more); *placements* the placements a start may use (names, or
    one string of names separated by commas, as ``[rl] placements``);
    *reward* ``"jobs"`` (minus the job-hours in the system over the step,
    which tracks mean JCT), ``"slowdown"`` (minus the integral of the sum
    over jobs in the system of 1 / max(run time alone, 10 s): an episode
    adds up to minus the sum of the jobs' bounded slowdowns),
    ``"utilization"`` (hours of the whole cluster allocated), ``"energy"``
    (minus the facility's kWh over the step: an episode adds up to minus
    the report's ``energy_facility_kwh``; needs a ``[power]`` section) or
    ``"cost"`` (minus the USD over the step: the facility's energy at the
    ``[cost]`` energy price, flat or time-of-use, plus amortized capex and
    maintenance by the hour; an episode adds up to minus ``cost_tco``;
    needs ``[power]`` and ``[cost]``); *skip_forced* passes over decisions
    where only waiting is possible.

    *node_actions* adds the "start job k at node slot s" actions
    (``first_node_action + k * S + s``, before wait).

    *window*, *node_slots*, *placements*, *reward* and *node_actions* left at
    None take the
    scenario's ``[rl]`` keys of the same names, else 16, 32,
    ``("first-fit", "best-fit")``, ``"jobs"`` and False; values given here win
    over the scenario's.  ``env.window``, ``env.node_slots``,
    ``env.placements`` and ``env.reward`` say what was chosen.

    ``observation_space`` is a float32 box of W * 7 + S * 2 + 5 + S + 2 +
    S + 3 entries, all at least 0, at most 1 for flags, shares, link loads
    and IT power ratios and unbounded (inf) for GPUs, hours, counts,
    facility power and PUE (layout: sim-rl-env.h).  After the window (W * 7),
    the node slots (S * 2) and the cluster (5) come the network's link
    loads (S + 2: each node slot's uplink, then the largest and the mean
    over the network's links, 0 without one) and, last, power (S + 3: each
    node slot's IT power over its full-load power, then the cluster's IT
    power and facility power over its rated IT power, the power the model
    draws at full load, and the PUE; 0 without a ``[power]`` section);
    ``action_space`` is ``Discrete(W * P + 1)``, or ``Discrete(W * P + W * S
    + 1)`` with node actions.  Observations are read-only
    numpy arrays, valid until the next step.
    """

    metadata = {"render_modes": []}
    render_mode = None
    reward_range = (-float("inf"), float("inf"))

    def __init__(self, scenario, set=None, window=None, node_slots=None,
                 placements=None, reward=None, skip_forced=True, node_actions=None):
        from . import Scenario, Error, _overrides, _call, _whole

        if isinstance(scenario, Scenario):
            path, overrides = scenario.path, list(scenario.overrides or []) + (_overrides(set) or [])
        else:
            path, overrides = str(scenario), _overrides(set)
        if node_actions is not None:
            overrides = list(overrides or []) + [
                "rl.node_actions=%s" % ("true" if node_actions else "false")]
        if reward is not None and (not isinstance(reward, str) or reward not in _REWARDS):
            raise Error("reward %r: expected one of %s, or None for the scenario's [rl] reward"
                        % (reward, ", ".join(sorted(_REWARDS))), Sim.Error.INVALID)
        # Whole numbers only: int() would take 1.5 as 1 and "x" as a
        # ValueError, and a count past 2**32 as an OverflowError.
        if window is not None:
            window = _whole("window", window, 1)
        if node_slots is not None:
            node_slots = _whole("node_slots", node_slots, 1)
        if isinstance(placements, str):
            # As the scenario's [rl] placements: names separated by commas
            # (list("first-fit") would be its letters).
            placements = [p.strip() for p in placements.split(",")]
        self.raw = _call(Sim.RlEnv.new, path, overrides or None,
                         0 if window is None else window,
                         0 if node_slots is None else node_slots,
                         None if placements is None else [str(p) for p in placements],
                         Sim.RlReward.SCENARIO if reward is None else _REWARDS[reward])
        self.raw.set_skip_forced(bool(skip_forced))
        self._call = _call
        self.placements = tuple(self.raw.get_placement_name(p)
                                for p in range(self.raw.get_n_placements()))
        self.window = self.raw.get_window()
        self.node_slots = self.raw.get_node_slots()
        self.reward = {v: k for k, v in _REWARDS.items()}[self.raw.get_reward()]
        self.node_actions = bool(self.raw.get_node_actions())
        self.first_node_action = self.raw.get_first_node_action()
        self.wait_action = self.raw.get_wait_action()
        box, discrete = _spaces()
        high = np.array(self.raw.get_observation_high(), dtype=np.float32)
        high[high >= np.finfo(np.float32).max] = np.inf    # no bound (GPUs, hours, counts)
        self.observation_space = box(np.zeros_like(high), high, dtype=np.float32)
        self.action_space = discrete(self.raw.get_n_actions())
        self._seeds = None
        self._episode = False

    # -- Gymnasium's interface ----------------------------------------------

    def reset(self, *, seed=None, options=None):
        """Starts an episode and returns ``(observation, info)``.

        With *seed*, the episode runs with that scenario seed (the same seed
        gives the same episode for the same actions); without, the first
        reset uses the scenario's own seed and later ones seeds drawn from
        the last seed given (or the scenario's).  *options* may be None or
        an empty dict (no option is defined yet)."""
        from . import Error, _whole
        if options:
            raise Error("reset options %s: none are defined" % sorted(options))
        if seed is not None:
            seed = _whole("seed", seed, 0, 2**64 - 1)
        if _gym is not None:
            super().reset(seed=seed)
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            self._call(self.raw.reset_with_seed, seed)
        elif self._seeds is None:
            self._call(self.raw.reset)
            seed = self.raw.get_simulation().get_scenario().seed
            self._seeds = np.random.default_rng(seed)
        else:
            self._call(self.raw.reset_with_seed, int(self._seeds.integers(2 ** 63)))
        self._episode = True
        return self._observation(), self._info()

    def step(self, action):
        """Takes *action*; returns ``(observation, reward, terminated,
        truncated, info)``.  *terminated*: the run ended with every job
        done; *truncated*: it ended at the horizon with jobs left.  At the
        end, ``info["report"]`` is the run's :class:`gpusim.Report`."""
        action = self._action(action)
        try:
            _, reward, terminated, truncated = self.raw.step(action)
        except GLib.Error as e:
            from . import _raise_from
            _raise_from(e)
        return self._observation(), float(reward), bool(terminated), bool(truncated), self._info()

    def action_masks(self):
        """The action mask as booleans (the name sb3-contrib's maskable
        algorithms call)."""
        return self._mask().astype(bool)

    def render(self):
        return None

    def close(self):
        pass

    # -- more ----------------------------------------------------------------

    @property
    def simulation(self):
        """The episode's ``Sim.Simulation`` (None before the first reset)."""
        return self.raw.get_simulation()

    @property
    def report(self):
        """The episode's :class:`gpusim.Report` once it has ended, else None."""
        from . import Report
        sim = self.raw.get_simulation()
        raw = sim.get_report() if sim is not None else None
        return Report(raw) if raw is not None else None

    def describe(self, action):
        """The action in words ("start window job 2 (job 57) with best-fit")."""
        return self.raw.describe_action(self._action(action))

    def _action(self, action):
        """ACTION as an int, or :class:`gpusim.Error`: int() would take 0.7
        for action 0 without a word, and a negative action or one past 2**32
        would be an OverflowError.  An action past the last is left to the
        library, which says what the actions are."""
        from . import Error
        ok = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
        if not ok and isinstance(action, np.ndarray) and action.shape == ():
            ok = np.issubdtype(action.dtype, np.integer)
        if ok and int(action) >= self.action_space.n and int(action) <= 0xFFFFFFFF:
            return int(action)
        if not ok or not 0 <= int(action) < self.action_space.n:
            raise Error("action %r is out of range: expected a whole number from 0 to %d (the "
                        "last, wait)" % (action, self.action_space.n - 1), Sim.Error.INVALID)
        return int(action)

    def _observation(self):
        return np.frombuffer(self.raw.get_observation_bytes().get_data(), dtype=np.float32)

    def _mask(self):
        return np.frombuffer(self.raw.get_action_mask_bytes().get_data(), dtype=np.uint8)

    def _info(self):
        sim = self.raw.get_simulation()
        info = {"action_mask": self._mask(), "time": sim.get_now() / 1e9,
                "steps": self.raw.get_steps()}
        if self.raw.is_done():
            info["report"] = self.report
        return info


class ClusterVecEnv:
    """*n* independent :class:`ClusterEnv`, stepped together (the
    synchronous vectorized form, as Gymnasium's ``SyncVectorEnv``).

    The keyword arguments are :class:`ClusterEnv`'s.  Observations are
    stacked into an array of shape ``(n, D)``; rewards, terminations and
    truncations are arrays of *n*; ``info["action_mask"]`` is ``(n, A)``.
    An environment whose episode ends is reset at once (its next seed drawn
    as :meth:`ClusterEnv.reset` without a seed does): the observation
    returned is the new episode's, and ``info["final_observation"][i]`` and
    ``info["final_info"][i]`` hold the ended one's (None for the others).
    """

    def __init__(self, scenario, n, **kwargs):
        from . import _whole
        n = _whole("n", n, 1)
        self.envs = [ClusterEnv(scenario, **kwargs) for _ in range(int(n))]
        self.num_envs = len(self.envs)
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        size = self.single_observation_space.shape[0]
        self._obs = np.zeros((self.num_envs, size), dtype=np.float32)
        self._mask = np.zeros((self.num_envs, self.single_action_space.n), dtype=np.uint8)

    def reset(self, *, seed=None, options=None):
        """Resets every environment, the i-th with ``seed + i`` when *seed*
        is given; returns ``(observations, info)``."""
        for i, env in enumerate(self.envs):
            obs, info = env.reset(seed=None if seed is None else int(seed) + i, options=options)
            self._obs[i] = obs
            self._mask[i] = info["action_mask"]
        return self._obs.copy(), {"action_mask": self._mask.copy()}

    def step(self, actions):
        """Steps environment i with ``actions[i]``; returns ``(observations,
        rewards, terminated, truncated, info)`` as arrays.  Actions of the
        wrong number or kind, or one that its environment's mask rules out,
        raise :class:`gpusim.Error` before any environment steps."""
        n = self.num_envs
        if np.ndim(actions) != 1 or len(actions) != n:
            # Checked before any environment steps: a short list used to
            # step the first environments and then fail, leaving them ahead.
            from . import Error
            raise Error("actions: expected one per environment, %d, got %s"
                        % (n, "%d" % len(actions) if np.ndim(actions) == 1
                           else "shape %s" % (np.shape(actions),)), Sim.Error.INVALID)
        for i, env in enumerate(self.envs):
            a = env._action(actions[i])
            if a >= len(self._mask[i]) or not self._mask[i][a]:
                # Refused, with the library's reason, before any
                # environment has moved: a refused action changes nothing.
                env.step(actions[i])
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        final_obs = [None] * n
        final_info = [None] * n
        for i, env in enumerate(self.envs):
            obs, rewards[i], terminated[i], truncated[i], info = env.step(actions[i])
            if terminated[i] or truncated[i]:
                final_obs[i], final_info[i] = obs.copy(), info
                obs, info = env.reset()
            self._obs[i] = obs
            self._mask[i] = info["action_mask"]
        info = {"action_mask": self._mask.copy()}
        if any(o is not None for o in final_obs):
            info["final_observation"] = final_obs
            info["final_info"] = final_info
        return self._obs.copy(), rewards, terminated, truncated, info

    def close(self):
        for env in self.envs:
            env.close()
