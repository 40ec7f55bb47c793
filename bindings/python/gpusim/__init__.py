"""gpusim: a discrete-event simulator of GPU clusters, from Python.

A Pythonic layer over the C library, reached through GObject Introspection
(the ``Sim`` namespace, ``gi.repository.Sim``).  Times are in seconds here;
the library counts nanoseconds (``SimTime``), and the raw objects are still
at hand for anything this layer does not wrap (``Simulation.raw``,
``Scenario.raw``, ``Report.raw``, or ``from gi.repository import Sim``).

    import gpusim
    report = gpusim.run("scenarios/quickstart.ini", set={"scenario.seed": 7})
    value, unit = report.metrics["wait_mean"]

Every error of the library (a scenario with a typo, a missing model, a
malformed trace) is raised as :class:`gpusim.Error`, whose message names the
file, the line and the key, as the command line prints it.
"""

import builtins
import json
import math
import numbers
import os
import stat

import gi

gi.require_version("GLib", "2.0")
gi.require_version("GObject", "2.0")
_HOW_TO_FIND = (
    "After `make install` with a prefix other than /usr, set GI_TYPELIB_PATH=PREFIX/lib/"
    "girepository-1.0 and LD_LIBRARY_PATH=PREFIX/lib; from a build tree, "
    "GI_TYPELIB_PATH=BUILD/bindings LD_LIBRARY_PATH=BUILD/libsim/.libs "
    "PYTHONPATH=SRC/bindings/python.  Use Debian's /usr/bin/python3, whose python3-gi is the "
    "one the bindings are built for.")
try:
    gi.require_version("Sim", "1.0")
    from gi.repository import Sim  # noqa: E402
except (ValueError, ImportError) as _e:  # the typelib is not found
    raise ImportError("gpusim: cannot find the Sim-1.0 introspection data (%s).  %s"
                      % (_e, _HOW_TO_FIND)) from None
try:
    # The typelib names the library; when the library cannot be loaded its
    # types are invalid and PyGObject's first use of an interface fails
    # with "must be an interface".
    Sim.Policy
except TypeError:
    raise ImportError("gpusim: found the Sim-1.0 introspection data but not the library it "
                      "names (libsim-1.0.so.0).  %s" % _HOW_TO_FIND) from None

from gi.repository import GLib, GObject  # noqa: E402

__all__ = [
    "Error",
    "Scenario",
    "Report",
    "Simulation",
    "Policy",
    "Transfers",
    "load",
    "run",
    "compare",
    "sweep",
    "seek",
    "fgd",
    "trace_info",
    "llm",
    "serve",
    "ClusterEnv",
    "ClusterVecEnv",
    "Sim",
]

_NS_PER_SECOND = 1000000000


class Error(Exception):
    """An error reported by gpusim (a GError of the SIM_ERROR domain).

    ``str(error)`` and ``error.message`` are the library's message; ``code``
    is a :class:`Sim.Error` value (``Sim.Error.UNKNOWN_KEY``...) when the
    error is gpusim's own, else the raw GError code.
    """

    def __init__(self, message, code=None, domain=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.domain = domain


def _raise_from(gerror):
    code = gerror.code
    if gerror.domain == GLib.quark_to_string(Sim.error_quark()):
        try:
            code = Sim.Error(code)
        except ValueError:
            pass
    raise Error(gerror.message, code, gerror.domain) from None


def _call(func, *args):
    try:
        return func(*args)
    except GLib.Error as e:
        _raise_from(e)


def _state_error(message):
    """A GError of SIM_ERROR_STATE saying MESSAGE, for the library's fail()
    calls (sim_policy_fail, sim_simulation_fail, sim_transfers_fail)."""
    return GLib.Error.new_literal(Sim.error_quark(), message, int(Sim.Error.STATE))


def _raised(what, exc):
    return "%s raised %s: %s" % (what, type(exc).__name__, exc)


class _Callbacks:
    """Runs Python functions that C calls back (a progress function, a
    transfer's callback), where PyGObject would print an exception and
    carry on: the first exception stops the run through FAIL (a bound
    sim_*_fail(), given a GError naming it), and :meth:`error` turns the
    run's GLib.Error into :class:`Error` with the exception as its cause."""

    def __init__(self, fail):
        self._fail = fail
        self._kept = None  # (exception, message given to fail)

    def wrap(self, what, func):
        def guarded(*args):
            try:
                func(*args)
            except Exception as e:  # noqa: BLE001 - handed back by run()
                message = _raised(what(*args) if callable(what) else what, e)
                if self._fail(_state_error(message)):
                    self._kept = (e, message)

        return guarded

    def error(self, gerror):
        """Raises :class:`Error` for GERROR, the failure of a run."""
        kept = self._kept
        if kept is not None and kept[1] in gerror.message:
            raise Error(gerror.message, Sim.Error.STATE, gerror.domain) from kept[0]
        _raise_from(gerror)


def _checked_placement(place):
    """A C placement function that refuses a placement without room for a
    job's GPUs (a new ``Sim.Placement()``: nothing could be written to it)
    with :class:`Error`, rather than a critical warning and False."""

    def checked(cluster, job, placement):
        if placement is None or placement.n_gpus == 0:
            raise Error("%s: the placement has no room for the job's GPUs: pass the placement "
                        "the policy was given (do_place's third argument), not a new "
                        "Sim.Placement()" % place.__name__)
        return place(cluster, job, placement)

    checked.__name__ = place.__name__
    checked.__doc__ = place.__doc__
    return checked


for _name in ("place_first_fit", "place_best_fit", "place_mig"):
    setattr(Sim, _name, _checked_placement(getattr(Sim, _name)))


def _overrides(set):
    """Turns ``{"group.key": value}`` (or a list of "group.key=value"
    strings) into the strings sim_scenario_load() takes."""
    if set is None:
        return None
    if isinstance(set, dict):
        items = []
        for key, value in set.items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            items.append("%s=%s" % (key, value))
        return items
    if isinstance(set, str):
        return [set]
    if not isinstance(set, (list, tuple)):
        raise Error("set = %r: expected a dict {\"section.key\": value} or a list of "
                    "\"section.key=value\" strings" % (set,), Sim.Error.INVALID)
    return [str(item) for item in set]


def _whole(name, value, low, high=0xFFFFFFFF):
    """VALUE as an int from LOW to HIGH, or :class:`Error` naming the
    argument (the C setters would print a GLib critical and carry on)."""
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            ok = float(value) == int(value)
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise Error("%s = %r: expected a whole number from %d to %d"
                        % (name, value, low, high), Sim.Error.INVALID)
        value = int(value)
    if not low <= value <= high:
        raise Error("%s = %r: expected a whole number from %d to %d" % (name, value, low, high),
                    Sim.Error.INVALID)
    return value


def _real(name, value, low, high, what, low_included=False):
    """VALUE as a finite float above LOW (or equal to it if LOW_INCLUDED)
    and below HIGH (None: no upper bound), or :class:`Error` saying WHAT
    was expected."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    above = v >= low if low_included else v > low
    if not (math.isfinite(v) and above and (high is None or v < high)):
        raise Error("%s = %r: expected %s" % (name, value, what), Sim.Error.INVALID)
    return v


def _to_simtime(seconds):
    return int(round(float(seconds) * _NS_PER_SECOND))


class Scenario:
    """A parsed, validated scenario (``Sim.Scenario``)."""

    def __init__(self, path, set=None):
        self.raw = _call(Sim.Scenario.load, str(path), _overrides(set))
        self.overrides = _overrides(set)

    @property
    def name(self):
        return self.raw.name

    @property
    def path(self):
        return self.raw.path

    @property
    def seed(self):
        return self.raw.seed

    @property
    def horizon(self):
        """The horizon in seconds, or None to run until the workload drains."""
        horizon = self.raw.horizon
        if horizon >= GLib.MAXINT64:
            return None
        return horizon / _NS_PER_SECOND

    def __repr__(self):
        return "<gpusim.Scenario %r (%s, seed %d)>" % (self.name, self.path, self.seed)


_JOB_FIELDS = ("id", "submit", "start", "end", "gpus", "class", "requested", "duration")


class _JobRecorder:
    """Keeps each finished job's figures, as the simulation's job observer
    reports them, in lists turned into numpy arrays on demand."""

    def __init__(self):
        self.columns = {name: [] for name in _JOB_FIELDS}

    def __call__(self, simulation, job, *data):
        if job.state != Sim.JobState.DONE:
            return
        spec = job.spec
        row = (spec.id, spec.submit, job.first_start, job.end, job.n_gpus or spec.gpus,
               spec.job_class, job.get_requested(), spec.duration)
        for name, value in zip(_JOB_FIELDS, row):
            self.columns[name].append(value)

    def arrays(self):
        import numpy as np
        out = {}
        for name, values in self.columns.items():
            if name in ("id", "gpus", "class"):
                out[name] = np.array(values, dtype=np.int64)
            else:
                out[name] = np.array(values, dtype=np.int64) / float(_NS_PER_SECOND)
        return out


def _jobs_frame(arrays):
    try:
        import pandas
    except ImportError:
        raise Error("jobs_frame() needs pandas (Debian: python3-pandas); jobs() gives the "
                    "same columns as numpy arrays", Sim.Error.INVALID) from None
    return pandas.DataFrame(arrays, columns=list(_JOB_FIELDS)).set_index("id", drop=False)


class Report:
    """The results of a run: named metrics, each with a value and a unit,
    and, for a run made by :class:`Simulation` (or :func:`run`), the
    finished jobs (:meth:`jobs`, :meth:`jobs_frame`)."""

    def __init__(self, raw, jobs=None):
        self.raw = raw
        self._jobs = jobs

    def jobs(self):
        """The finished jobs, one entry per job in completion order, as a dict
        of numpy arrays: ``id``, ``gpus`` and ``class`` (the class index,
        0 for traces) as int64; ``submit``, ``start`` (the first start),
        ``end``, ``requested`` (the user's estimate, or the duration where
        the workload gives none, as EASY plans with it: ``job.get_requested()``) and
        ``duration`` (run time alone) as float64 seconds.  JCT is
        ``end - submit``, the wait ``start - submit``.  Jobs still waiting
        or running at the horizon are not in it (the report counts them)."""
        if self._jobs is None:
            raise Error("this report has no per-job results: they are kept for runs made by "
                        "gpusim.Simulation (without record_jobs=False) or gpusim.run",
                        Sim.Error.STATE)
        return self._jobs.arrays()

    def jobs_frame(self):
        """:meth:`jobs` as a pandas ``DataFrame`` indexed by job id (pandas
        must be importable)."""
        return _jobs_frame(self.jobs())

    @property
    def metrics(self):
        """A dict ``{name: (value, unit)}`` in report order."""
        result = {}
        for name in self.raw.list_metrics():
            ok, value = self.raw.get_value(name)
            if ok:
                result[name] = (value, self.raw.get_unit(name))
        return result

    @property
    def serving(self):
        """The figures of the scenario's serving deployments ([serving NAME]
        sections run beside the workload): a dict ``{deployment: {figure:
        value}}``, e.g. ``report.serving["chat"]["ttft_p99"]`` in seconds;
        the same values as ``report["serving.chat.ttft_p99"]``.  Empty
        without deployments."""
        result = {}
        for name in self.raw.list_metrics():
            if not name.startswith("serving."):
                continue
            deployment, figure = name[len("serving."):].rsplit(".", 1)
            result.setdefault(deployment, {})[figure] = self[name]
        return result

    @property
    def json(self):
        """The report as JSON text, exactly as ``gpusim run --json`` prints
        it (without the final newline)."""
        return self.raw.to_json(True)

    @property
    def text(self):
        """The summary for people that ``gpusim run`` prints."""
        return self.raw.format_text()

    def __getitem__(self, metric):
        ok, value = self.raw.get_value(metric)
        if not ok:
            raise KeyError(metric)
        return value

    def __contains__(self, metric):
        return self.raw.get_value(metric)[0]

    def __repr__(self):
        return "<gpusim.Report %d metrics>" % len(self.raw.list_metrics())


def _bad_result(method, value, expected):
    return TypeError("%s returned %r (%s): expected %s"
                     % (method, value, type(value).__name__, expected))


def _compare_result(method, value):
    """The sign of a comparison, as -1, 0 or 1: PyGObject would truncate
    a float (0.5 orders as 0) and let anything else through as 0 with only
    a traceback on stderr."""
    if isinstance(value, numbers.Real):
        v = float(value)
        if not math.isnan(v):
            return (v > 0) - (v < 0)
    raise _bad_result(method, value, "a number, negative if the first job goes first, "
                      "positive if the second does, 0 if either may")


def _place_result(method, value):
    if isinstance(value, numbers.Integral) or (
            getattr(value, "dtype", None) is not None and value.dtype.kind == "b"
            and getattr(value, "shape", None) == ()):
        return bool(value)
    raise _bad_result(method, value, "True (the job fits; the placement is filled) or False")


def _flags_result(method, value):
    every = 0
    for flag in Sim.PolicyFlags.__flags_values__.values():
        every |= int(flag)
    if (isinstance(value, numbers.Integral) and not isinstance(value, bool)
            and 0 <= int(value) and int(value) & ~every == 0):
        return int(value)
    raise _bad_result(method, value, "a combination of Sim.PolicyFlags (SKIP_BLOCKED, "
                      "TIME_DEPENDENT_ORDER, PLACES_MIG) or 0")


def _name_result(method, value):
    if isinstance(value, str):
        return value
    raise _bad_result(method, value, "a string, the name shown in reports")


_POLICY_RESULTS = {
    "do_get_name": _name_result,
    "do_compare": _compare_result,
    "do_place": _place_result,
    "do_get_flags": _flags_result,
}


class _PolicyMeta(type(GObject.Object)):
    """Makes every subclass of :class:`Policy` implement ``Sim.Policy``
    itself.  A GObject type that inherits an interface shares its parent's
    vtable, so without this the methods of the last subclass defined would
    serve every subclass."""

    def __new__(mcs, name, bases, namespace, **kwargs):
        if any(isinstance(base, mcs) for base in bases) and Sim.Policy not in bases:
            bases = tuple(bases) + (Sim.Policy,)
        return super().__new__(mcs, name, bases, namespace, **kwargs)


class Policy(GObject.Object, Sim.Policy, metaclass=_PolicyMeta):
    """Base class for a scheduling policy written in Python.

    Override the virtual methods of ``Sim.Policy``:

    ``do_get_name(self)``
        the name shown in reports;
    ``do_compare(self, a, b)``
        the queue order of two ``Sim.Job``: negative if *a* goes first
        (optional: submission order otherwise);
    ``do_place(self, cluster, job, placement)``
        fill *placement* and return True if *job* fits now.  Choose the GPUs
        yourself with ``placement.set_gpus(cluster, job, [gpu, ...])``
        (cluster GPU indices; each takes the job's share, all of a GPU or
        its fraction), which the library checks: a wrong count, a GPU out of
        range, listed twice, without room, on a drained node, of a model
        the job does not allow or on a node short of host CPU or memory
        raises ``GLib.Error`` and changes nothing.  Or delegate to a C
        placement: ``Sim.place_best_fit(cluster, job, placement)``,
        ``Sim.place_first_fit(...)``, or another policy's ``place()``.
        Fill the *placement* given: a new ``Sim.Placement()`` has no room
        for GPUs and is refused;
    ``do_get_flags(self)``
        ``Sim.PolicyFlags`` (optional): with ``SKIP_BLOCKED`` a job that
        does not fit lets later jobs in the queue run (greedy, as the
        built-in ``sjf`` is); without it the first job that does not fit
        blocks the queue (as ``fifo`` does).  The flags are honoured for
        every policy, written in C or in Python; with ``PLACES_MIG``,
        ``do_place`` also places MIG jobs, with ``placement.set_mig(cluster,
        job, gpu, start)`` (``start`` -1 for the first free slice the profile
        allows); without it the library's first fit places them;
    ``do_schedule(self, context)``
        one scheduling pass of your own (optional), for what ordering and
        placing cannot say (reservations, preemption).  *context* is the
        ``Sim.SchedContext`` of this decision: ``context.get_queue()`` in
        the policy's order, ``context.get_running()``, ``context.get_now()``,
        ``context.start(job, placement)``, ``context.preempt(...)`` and
        ``context.wake_at(time)``.  Without it the usual pass runs, as
        ``self.schedule_in_order(context, skip_blocked)`` does, with
        *skip_blocked* from the ``SKIP_BLOCKED`` flag.

    An exception in a virtual method does not cross into C as such: the
    method reports it to the library (``Sim.Policy.fail``, with a message
    naming the method and the exception) and returns a neutral value that
    is not acted on, and the simulation stops right after the call.
    :meth:`Simulation.run` (and ``step``, ``run_until``) then raises
    :class:`Error` with the exception as its ``__cause__``; a run of the
    raw object (``Simulation.raw.run()``, or a ``Sim.Simulation`` given the
    policy with ``set_policy``) raises ``GLib.Error`` (SIM_ERROR_STATE,
    "policy NAME failed at T s: do_place raised ValueError: ...").  The run
    has stopped for good (later calls raise again).
    So does a value of the wrong kind: ``do_compare`` must return a number
    (only its sign counts, so a float difference orders as it reads),
    ``do_place`` True or False (None, a forgotten ``return``, is an error,
    not "does not fit"), ``do_get_flags`` a combination of
    ``Sim.PolicyFlags`` and ``do_get_name`` a string.
    """

    _defaults = {
        "do_get_name": None,
        "do_compare": 0,
        "do_place": False,
        "do_schedule": None,
        "do_get_flags": 0,
    }

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, default in Policy._defaults.items():
            func = cls.__dict__.get(name)
            if func is not None and not getattr(func, "_gpusim_guarded", False):
                setattr(cls, name, Policy._guard(func, default, _POLICY_RESULTS.get(name), name))

    @staticmethod
    def _guard(func, default, check=None, method=None):
        def guarded(self, *args):
            try:
                value = func(self, *args)
            except Exception as e:  # noqa: BLE001 - handed back by the run
                return self._fail(e, _raised(method, e), default)
            if check is None:
                return value
            try:
                return check(method, value)
            except TypeError as e:
                return self._fail(e, str(e), default)

        guarded._gpusim_guarded = True
        guarded.__name__ = func.__name__
        guarded.__doc__ = func.__doc__
        return guarded

    def _fail(self, exc, message, default):
        # The library stops the run with MESSAGE; the exception is kept for
        # gpusim.Simulation to raise as the cause.  Only the failure the
        # library holds is kept (the first, until a run takes it).
        if Sim.Policy.fail(self, _state_error(message)):
            self.__dict__["_gpusim_error"] = (exc, message)
        return default

    def _take_error(self):
        """The exception behind the policy's last failure and the message
        it gave the library, or None."""
        return self.__dict__.pop("_gpusim_error", None)


class Simulation:
    """One run of a scenario (``Sim.Simulation``).

    *scenario* is a path or a :class:`Scenario`; *set* overrides keys as
    ``gpusim run --set`` does; *output_dir* asks for summary.json, jobs.csv,
    timeseries.csv and nodes.csv (and topology.dot) there; *policy* replaces the scenario's [policy]
    with a ``Sim.Policy`` (for instance a :class:`Policy` subclass);
    *force* runs even past the size limits (``Sim.LIMIT_JOBS`` jobs, 2 GB
    of output), which are refused otherwise.  *record_jobs* keeps each
    finished job's figures for :meth:`jobs` (a Python call per job start
    and finish; False saves it on runs of millions of jobs).  *timeline*
    names a file for the run's timeline, Chrome trace-event JSON that
    Perfetto opens (``gpusim run --timeline``).  *progress* is called as
    ``progress(fraction, now, jobs_done)`` every few thousand events and at
    the end (*fraction* from 0 to 1, or -1 when unknown; *now* in seconds).

    An exception in *progress* or in the policy stops the run where it
    happened: :meth:`run`, :meth:`step` and :meth:`run_until` raise
    :class:`Error` with the exception as ``__cause__``, and so does every
    later call.
    """

    def __init__(self, scenario, set=None, output_dir=None, policy=None, force=False,
                 record_jobs=True, timeline=None, progress=None):
        if not isinstance(scenario, Scenario):
            scenario = Scenario(scenario, set=set)
        elif set:
            scenario = Scenario(scenario.path, set=list(scenario.overrides or []) + _overrides(set))
        self.scenario = scenario
        self.raw = _call(Sim.Simulation.new, scenario.raw)
        self._callbacks = _Callbacks(self.raw.fail)
        self._jobs = _JobRecorder() if record_jobs else None
        if record_jobs:
            self.raw.set_job_observer(self._callbacks.wrap("the job recorder", self._jobs))
        if progress is not None:
            if not callable(progress):
                raise Error("progress = %r: expected a function progress(fraction, now, "
                            "jobs_done)" % (progress,), Sim.Error.INVALID)
            self.raw.set_progress_func(self._callbacks.wrap(
                "the progress function",
                lambda sim, fraction, now, done: progress(fraction, now / _NS_PER_SECOND, done)))
        self._policy = policy
        if output_dir is not None:
            _call(self.raw.set_output_dir, str(output_dir))
        if timeline is not None:
            _call(self.raw.set_timeline, str(timeline))
        if policy is not None:
            if not isinstance(policy, Sim.Policy):
                raise Error("policy = %r: expected a gpusim.Policy (or another Sim.Policy); a "
                            "built-in one is named in the scenario, e.g. set={\"policy.queue\": "
                            "\"sjf\", \"policy.placement\": \"best-fit\"}" % (policy,),
                            Sim.Error.INVALID)
            _call(self.raw.set_policy, policy)
        self.raw.set_force(bool(force))

    def estimate(self):
        """The run's size before it starts: a dict with ``jobs`` (0 when
        unknown before a trace is read), ``samples`` (time-series rows) and
        ``output_bytes``."""
        e = self.raw.estimate()
        return {"jobs": e.jobs, "samples": e.samples, "output_bytes": e.output_bytes}

    def _advance(self, func, *args):
        """FUNC(*ARGS), a run call of the raw simulation; a failure raises
        :class:`Error`, with the Python exception that stopped the run (in
        the policy or a callback) as its cause."""
        try:
            return func(*args)
        except GLib.Error as e:
            if isinstance(self._policy, Policy):
                kept = self._policy._take_error()
                if kept is not None and kept[1] in e.message:
                    error = kept[0]
                    self._failed = Error("policy %s raised %s: %s"
                                         % (type(self._policy).__name__, type(error).__name__,
                                            error), Sim.Error.STATE)
                    raise self._failed from error
            self._callbacks.error(e)

    def _check_not_failed(self):
        # The decision where the policy failed went on without it (every job
        # "did not fit"): a run carried on from there would be a wrong answer.
        failed = getattr(self, "_failed", None)
        if failed is not None:
            raise Error("this run stopped when %s; start a new gpusim.Simulation"
                        % failed.message, Sim.Error.STATE) from failed

    def run(self):
        """Runs to the end (the horizon, or until every job has finished)
        and returns the :class:`Report`."""
        self._check_not_failed()
        self._advance(self.raw.run)
        return self.report

    def run_until(self, seconds):
        """Runs until *seconds* of simulated time (or the end, if sooner).
        Returns True while the run has not ended."""
        self._check_not_failed()
        # The most SimTime holds is about 292 years.
        seconds = _real("seconds", seconds, 0, GLib.MAXINT64 / _NS_PER_SECOND,
                        "a finite number of seconds of simulated time, at least 0", True)
        self._advance(self.raw.run_until, _to_simtime(seconds))
        return not self.raw.is_finished()

    def step(self):
        """Runs until just after the next scheduling decision.  Returns
        True if it stopped after a decision, False once the run has ended."""
        self._check_not_failed()
        more = self._advance(self.raw.run_to_decision)
        if more:
            self._advance(self.raw.decide, True)
        return more

    @property
    def now(self):
        """The simulated time, in seconds."""
        return self.raw.get_now() / _NS_PER_SECOND

    @property
    def finished(self):
        return self.raw.is_finished()

    @property
    def report(self):
        """The :class:`Report`, once the run has ended; None before."""
        raw = self.raw.get_report()
        return Report(raw, self._jobs) if raw is not None else None

    def jobs(self):
        """The jobs finished so far, as :meth:`Report.jobs` gives them
        (numpy arrays; times in seconds)."""
        if self._jobs is None:
            raise Error("this simulation was made with record_jobs=False", Sim.Error.STATE)
        return self._jobs.arrays()

    def jobs_frame(self):
        """:meth:`jobs` as a pandas ``DataFrame`` (pandas must be
        importable)."""
        return _jobs_frame(self.jobs())

    @property
    def cluster(self):
        """The cluster (``Sim.Cluster``, read it only), valid while this
        simulation lives."""
        return self.raw.get_cluster()

    @property
    def policy(self):
        return self.raw.get_policy()

    @property
    def classes(self):
        """The names of the synthetic workload's job classes (empty for a
        trace)."""
        return [self.raw.get_class_name(c) for c in range(self.raw.get_n_classes())]

    def speedup(self, job_class, gpus):
        """A class's speed-up on *gpus* GPUs against one GPU, from its
        scaling model (linear, amdahl, table or comm).  *job_class* is a
        name or an index.  Its parallel efficiency is speedup / gpus."""
        if isinstance(job_class, str):
            names = self.classes
            if job_class not in names:
                raise Error("no job class %r (classes: %s)" % (job_class, ", ".join(names)),
                            Sim.Error.INVALID)
            job_class = names.index(job_class)
        job_class = _whole("job_class", job_class, 0)
        gpus = _whole("gpus", gpus, 0)
        result = _call(self.raw.get_class_speedup, job_class, gpus)
        # PyGObject returns (True, value) or the value alone, by version.
        return result[1] if isinstance(result, tuple) else result

    def scaling(self, gpus=(1, 2, 4, 8)):
        """Every class's curve, as ``gpusim scaling`` prints it:
        ``{class: [(gpus, speedup, efficiency), ...]}``."""
        table = {}
        for c, name in enumerate(self.classes):
            rows = []
            for n in gpus:
                value = self.speedup(c, n)
                rows.append((n, value, value / n))
            table[name] = rows
        return table


_FABRIC_KINDS = {
    "single-switch": Sim.FabricKind.SINGLE_SWITCH,
    "fat-tree": Sim.FabricKind.FAT_TREE,
    "fat-tree-3": Sim.FabricKind.FAT_TREE_3,
}


class Transfers:
    """Point-to-point transfers over a network of hosts, as fluid flows
    sharing each link max-min fairly (``Sim.Transfers``, sim-transfers.h).
    Times are in seconds here; ``raw`` is the ``Sim.Transfers``, in
    nanoseconds.

    *hosts* hosts (at least 2) with one NIC of *bandwidth* bytes/s each way,
    on *topology* "single-switch", "fat-tree" (two tiers) or "fat-tree-3"
    of *radix*-port switches (0: one switch for all), *oversubscription*
    down ports per up port at the leaves (0 or 1: non-blocking), and
    *link_latency* seconds per network link.

        t = gpusim.Transfers(4, 1e9, link_latency=1e-6)
        t.add(0, 1, 1e6, callback=lambda t, id, when: t.add(1, 2, 1e6, when))
        t.run()

    An exception in a callback (a transfer's, or the progress function's)
    stops the run as the callback returns: :meth:`run` raises
    :class:`Error` naming it, with the exception as ``__cause__``, and so
    does every later run (the transfers the callback would have added are
    missing).  With ``Sim.Transfers`` used directly, PyGObject would only
    print the exception and the run would go on; such a callback stops it
    with ``transfers.fail(GLib.Error(...))``.
    """

    def __init__(self, hosts, bandwidth, topology="single-switch", radix=0,
                 oversubscription=0, link_latency=0):
        kind = _FABRIC_KINDS.get(topology, topology)
        if not isinstance(kind, Sim.FabricKind):
            raise Error("topology = %r: expected %s" % (topology, ", ".join(_FABRIC_KINDS)),
                        Sim.Error.INVALID)
        hosts = _whole("hosts", hosts, 2)
        bandwidth = _real("bandwidth", bandwidth, 0, None, "bytes per second, above 0")
        radix = _whole("radix", radix, 0)
        oversubscription = _real("oversubscription", oversubscription, 0, None,
                                 "down ports per up port, at least 0 (0 or 1: non-blocking)",
                                 True)
        link_latency = _real("link_latency", link_latency, 0, 1e6,
                             "seconds per link, at least 0", True)
        self.raw = _call(Sim.Transfers.new_hosts, hosts, bandwidth, kind, radix,
                         oversubscription, _to_simtime(link_latency))
        self._callbacks = _Callbacks(self.raw.fail)

    def add(self, src, dst, nbytes, start=0, callback=None):
        """Adds a transfer of *nbytes* bytes from host *src* to host *dst*
        starting at *start* seconds (not before :attr:`now`); returns its id.
        *callback*, if given, is called as ``callback(transfers, id,
        completion)`` (*completion* in seconds) when it completes, and may
        add transfers that start then or later."""
        src = _whole("src", src, 0)
        dst = _whole("dst", dst, 0)
        nbytes = _real("nbytes", nbytes, 0, None, "a number of bytes, at least 0", True)
        start = _real("start", start, 0, GLib.MAXINT64 / _NS_PER_SECOND,
                      "a time in seconds, at least 0", True)
        func = None
        if callback is not None:
            if not callable(callback):
                raise Error("callback = %r: expected a function callback(transfers, id, "
                            "completion)" % (callback,), Sim.Error.INVALID)
            func = self._callbacks.wrap(
                lambda raw, id, when: "the callback of transfer %d (completed at %.9f s)"
                % (id, when / _NS_PER_SECOND),
                lambda raw, id, when: callback(self, id, when / _NS_PER_SECOND))
        return _call(self.raw.add, src, dst, nbytes, _to_simtime(start), func)

    def add_from_file(self, path):
        """Adds a transfer per row of a CSV file (``src``, ``dst``, ``bytes``
        and optionally ``start`` columns, as ``gpusim transfers`` reads);
        returns how many."""
        return _call(self.raw.add_from_file, str(path))

    def set_progress(self, progress):
        """Calls ``progress(done, total)`` after each instant at which
        transfers completed (None: no more calls)."""
        if progress is None:
            self.raw.set_progress_func(None)
            return
        if not callable(progress):
            raise Error("progress = %r: expected a function progress(done, total)"
                        % (progress,), Sim.Error.INVALID)
        self.raw.set_progress_func(self._callbacks.wrap(
            "the progress function", lambda raw, done, total: progress(done, total)))

    def run(self):
        """Runs until every transfer (those the callbacks add too) has
        completed; may be called again after adding more."""
        try:
            self.raw.run()
        except GLib.Error as e:
            self._callbacks.error(e)

    def completion(self, id):
        """When transfer *id* completed, in seconds, or None if it has not."""
        when = self.raw.get_completion(_whole("id", id, 0))
        return None if when < 0 else when / _NS_PER_SECOND

    @property
    def now(self):
        """The simulated time reached, in seconds."""
        return self.raw.get_now() / _NS_PER_SECOND

    @property
    def n_transfers(self):
        return self.raw.get_n_transfers()

    def write_csv(self, path):
        """Writes each transfer's start, end, duration and GB/s (``gpusim
        transfers -o``)."""
        _call(self.raw.write_csv, str(path))


def load(path, set=None):
    """Reads and validates a scenario file; returns a :class:`Scenario`."""
    return Scenario(path, set=set)


def run(path, set=None, output_dir=None, policy=None, force=False, timeline=None):
    """Runs a scenario to its end; returns its :class:`Report`."""
    return Simulation(path, set=set, output_dir=output_dir, policy=policy, force=force,
                      timeline=timeline).run()


def html_report(run_dir, output=None, compare=None):
    """The HTML report of the run whose outputs are in *run_dir* (``gpusim
    report``): one self-contained page with the scenario, the metrics, the
    network diagram and charts.  *compare* names a ``gpusim compare --csv``
    file for per-policy bars.  Writes it to *output* if given (and returns
    None); returns the page's text otherwise."""
    if output is not None:
        _call(Sim.html_report_write, str(run_dir), None if compare is None else str(compare),
              str(output))
        return None
    return _call(Sim.html_report_render, str(run_dir), None if compare is None else str(compare))


def _interval_stats(interval, defined):
    nan = float("nan")
    return {
        "n": interval.n,
        "mean": interval.mean,
        "sd": interval.sd if defined else nan,
        "half_width": interval.half_width if defined else nan,
        "ci": (interval.low, interval.high) if defined else (nan, nan),
        "symmetric": bool(interval.symmetric),
        "identical": bool(interval.identical),
    }


def compare(path, policies=None, variants=None, seeds=5, first_seed=None, metrics=None,
            set=None, threads=0, level=0.95, force=False, db=None):
    """Runs a scenario once per policy (or variant) and seed, in parallel,
    as ``gpusim compare`` does.

    *policies* are "QUEUE/PLACEMENT" strings, placements alone, or policies
    written in Python (:class:`Policy` instances), in any mix; *variants* a
    dict ``{name: {"group.key": value}}``; *seeds* runs per policy, from
    *first_seed* (the scenario's seed by default).  Named policies run in
    parallel on *threads*; a Python policy runs its seeds one after the
    other in this process (the same object for every seed), on the same
    scenario, overrides and seeds, so its figures pair with the others'.

    Without *policies* or *variants*, the scenario's own ``[variant NAME]``
    sections are compared, as ``gpusim compare`` does.

    *db* is a sweep database (SQLite) that keeps every run of the named
    policies and variants as it finishes, and from which runs already there
    are taken rather than run again, as ``gpusim compare --db`` does.

    Returns ``{metric: {policy: stats}}`` where stats is a dict with
    ``mean``, ``ci`` (low, high) at *level*, ``sd``, ``half_width``, ``n``,
    ``symmetric``, ``unit``, ``values`` (one per seed) and, for every entry
    after the first, ``difference``: the paired difference from the first,
    a dict with ``mean``, ``ci`` and ``significant``.  A metric whose values
    are all non-negative gets a bootstrap interval, asymmetric
    (``symmetric`` False), never below 0, whose ``half_width`` is the
    larger of ``mean - low`` and ``high - mean``; a signed metric, and
    every difference, a Student t interval, ``mean`` +- ``half_width``
    (see sim-stats.h).  Values that are all the same (the seeds change
    nothing, as on a trace replayed whole) have ``identical`` True, no
    interval (``ci`` and ``half_width`` NaN) and are never significant;
    ``set={"workload.variation": "windows(7d)"}`` (or ``bootstrap(days)``,
    ``bootstrap(jobs)``, ``jitter(10min)``) makes each seed a sample of a
    trace (docs/statistics.md).
    """
    # Every argument is checked, and every entry named, before anything
    # runs: a mistake costs no run.
    if isinstance(policies, (str, Sim.Policy)):
        policies = [policies]
    policies = list(policies or [])
    for i, spec in enumerate(policies):
        if not isinstance(spec, (str, Sim.Policy)):
            raise Error("policies[%d]: expected a policy name (\"QUEUE/PLACEMENT\") or a "
                        "gpusim.Policy, got %s" % (i, type(spec).__name__), Sim.Error.INVALID)
    if variants is not None and not isinstance(variants, dict):
        raise Error("variants: expected a dict {name: {\"group.key\": value}}, got %s"
                    % type(variants).__name__, Sim.Error.INVALID)
    for name, overrides in (variants or {}).items():
        if not isinstance(name, str) or not isinstance(overrides, (dict, list, tuple, str)):
            raise Error("variants[%r]: expected a name and a dict {\"group.key\": value}"
                        % (name,), Sim.Error.INVALID)
    if isinstance(metrics, str):
        metrics = [metrics]
    for i, metric in enumerate(metrics or []):
        if not isinstance(metric, str):
            raise Error("metrics[%d]: expected a metric's name, got %s"
                        % (i, type(metric).__name__), Sim.Error.INVALID)
    named = [spec for spec in policies if isinstance(spec, str)]
    if len(named) < len(policies) and variants:
        raise Error("compare() takes Python policies or variants, not both: compare the "
                    "variants with named policies, or run one call per variant",
                    Sim.Error.INVALID)

    seeds = _whole("seeds", seeds, 1)
    level = _real("level", level, 0, 1, "a confidence level between 0 and 1, e.g. 0.95")
    threads = _whole("threads", threads, 0)
    if first_seed is not None:
        first_seed = _whole("first_seed", first_seed, 0, 2**64 - 1)
    cmp = _call(Sim.Comparison.new, str(path), _overrides(set))
    if not policies and not variants:
        # As `gpusim compare` does: the scenario's own [variant NAME]
        # sections, each with its lines for errors.
        variants = _scenario_variants(path)
        if not variants:
            raise Error("compare() needs policies or variants, or [variant NAME] sections in "
                        "the scenario", Sim.Error.INVALID)
    for spec in named:
        _call(cmp.add_policy, spec)
    for name, overrides in (variants or {}).items():
        _call(cmp.add_variant, name, _overrides(overrides))
    for metric in metrics or []:
        cmp.add_metric(metric)
    if len(named) < len(policies):
        _check_names(cmp, policies)
    if first_seed is None:
        first_seed = cmp.get_seed(0)
    cmp.set_seeds(first_seed, seeds)
    cmp.set_threads(threads)
    cmp.set_level(level)
    cmp.set_force(bool(force))
    if db is not None:
        cmp.set_db(str(db))
    if len(named) == len(policies):
        _call(cmp.run)
        return _comparison_result(cmp)
    if named:
        _call(cmp.run)
    return _mixed_result(cmp, path, policies, set, force, level)


def sweep(path, threads=0, db=None, csv=None, set=None, shard=None, report=None, force=False):
    """Runs every point of a sweep file (a scenario with a ``[sweep]``
    section) on every seed, in parallel, as ``gpusim sweep`` does.

    *threads* runs at once (0: one per processor; the result does not
    depend on it); *db* a SQLite database that keeps each run as it
    finishes and from which runs already there are taken rather than run
    again; *csv* a file with one line per run; *shard* a pair ``(k, n)`` to
    run only the runs ``r`` with ``r % n == k`` (one Slurm array task's);
    *report* an HTML file to write the summary to, with a chart per metric
    over the swept axis (as ``gpusim sweep --report``; see
    :func:`sweep_report`); *force* runs more than 100,000 runs.

    Returns the summary, as ``gpusim sweep --format json`` prints it: a dict
    with ``axes`` (the swept keys), ``grid`` (the grid's dimensions in file
    order, each a list of the keys that vary together), ``metrics``
    (``name``, ``unit``),
    ``seeds``, ``level`` and ``points``, one per point with its ``label``,
    ``values`` (``{key: value}``), ``runs_done`` and ``metrics``:
    ``{metric: {"mean", "sd", "low", "high", "n", "identical"}}`` (``None`` where not
    defined; low and high bootstrap for a non-negative metric, never below
    0, Student t for a signed one).  Raises :class:`Error` for a bad sweep
    file (naming its file, line and key) and for the first run that failed.
    """
    threads = _whole("threads", threads, 0)
    if shard is not None:
        try:
            k, n = shard
        except (TypeError, ValueError):
            raise Error("shard = %r: expected a pair (k, n) with 0 <= k < n" % (shard,),
                        Sim.Error.INVALID) from None
        n = _whole("shard n", n, 1)
        k = _whole("shard k", k, 0, n - 1)
    sw = _call(Sim.Sweep.new, str(path), _overrides(set))
    sw.get_plan().set_force(bool(force))
    runs = None
    if shard is not None:
        runs = list(sw.dup_shard_runs(k, n))
    executor = Sim.ThreadExecutor.new(threads)
    results = _call(sw.run, executor, runs, None if db is None else str(db),
                    None if csv is None else str(csv))
    if shard is None:
        _call(results.check)
    text = sw.to_json(results)
    if report is not None:
        if shard is not None:
            raise Error("sweep(): report is for the whole sweep, not a shard: write it after "
                        "the shards' databases are merged", Sim.Error.INVALID)
        _call(Sim.html_sweep_report_write, text, str(path), None, str(report))
    return json.loads(text)


def sweep_report(summary, output=None, metrics=None):
    """The HTML report of a sweep (``gpusim report --sweep``): one
    self-contained page with the sweep's axes, a table of its points (each
    metric's mean and confidence interval) and per metric a line chart over
    the first axis, its interval shaded, one line per value of the second
    axis (per combination of the others with more).

    *summary* is what :func:`sweep` returns, or the path of a file that
    ``gpusim sweep --format json`` wrote; *metrics* a list of the metrics to
    chart (default: all of the summary's).  Writes the page to *output* if
    given (and returns None); returns its text otherwise.  Raises
    :class:`Error` for a summary that cannot be read or is not a sweep's,
    and for a metric it does not have."""
    if isinstance(summary, dict):
        text, source = json.dumps(summary), "sweep summary"
    else:
        source = str(summary)
        try:
            # A regular file of at most 256 MiB, as the library reads every
            # file (sim-read.h): /dev/zero would never end.
            with open(source, "rb") as f:
                st = os.fstat(f.fileno())
                if not stat.S_ISREG(st.st_mode):
                    raise Error("%s: not a regular file: expected the summary of `gpusim sweep "
                                "FILE --format json`" % source, Sim.Error.IO)
                if st.st_size > 256 << 20:
                    raise Error("%s: %d bytes: expected at most 256 MiB" % (source, st.st_size),
                                Sim.Error.IO)
                text = f.read((256 << 20) + 1).decode("utf-8", errors="replace")
        except OSError as e:
            raise Error("%s: cannot read it (expected the summary of `gpusim sweep FILE "
                        "--format json`): %s" % (source, e.strerror), Sim.Error.IO) from None
    names = None if metrics is None else [str(m) for m in metrics]
    if output is not None:
        _call(Sim.html_sweep_report_write, text, source, names, str(output))
        return None
    return _call(Sim.html_sweep_report_render, text, source, names)


def seek(path, vary, target, range=None, seeds=5, first_seed=None, level=0.95, tolerance=0,
         threads=0, set=None, force=False):
    """The smallest value of the key *vary* that meets *target* ("METRIC <=
    VALUE", or <, >=, >; VALUE a number or a duration such as "1h"), by
    bisection over *range* ``(low, high)``, numbers or strings with the
    key's unit such as ``("1/h", "50/h")`` (default: the key's values in
    the file's ``[sweep]`` section), as ``gpusim seek`` does.  Each probe runs
    *seeds* seeds and meets the target only if the far end of its confidence
    interval at *level* does.

    Returns a dict: ``answer``, ``key``, ``metric``, ``unit`` and ``probes``,
    one dict per probe in the order made (``value``, ``n``, ``mean``,
    ``low``, ``high``, ``meets``).  Raises :class:`Error` for a bad target,
    a range where no value meets it, or a failed run, and for arguments out
    of their range (*seeds* past 100,000 a probe needs *force*).
    """
    seeds = _whole("seeds", seeds, 1)
    level = _real("level", level, 0, 1, "a confidence level between 0 and 1, e.g. 0.95")
    tolerance = _real("tolerance", tolerance, 0, None,
                      "a width of at least 0 (0: the default, 1 for integers)", True)
    threads = _whole("threads", threads, 0)
    if first_seed is not None:
        first_seed = _whole("first_seed", first_seed, 0, 2**64 - 1)
    sk = _call(Sim.Seek.new, str(path), _overrides(set), str(vary), str(target))
    if range is not None:
        low, high = range
        if isinstance(low, str) or isinstance(high, str):
            # Values with the key's unit, such as ("1/h", "50/h").
            _call(sk.set_range_from_string, "%s..%s" % (low, high))
        elif not (math.isfinite(float(low)) and math.isfinite(float(high))
                  and float(low) < float(high)):
            raise Error("range: expected (low, high) with low < high, got %r" % (range,),
                        Sim.Error.INVALID)
        else:
            sk.set_range(float(low), float(high))
    sk.set_seeds(sk.get_first_seed() if first_seed is None else first_seed, seeds)
    sk.set_level(level)
    sk.set_tolerance(tolerance)
    sk.set_threads(threads)
    sk.set_force(bool(force))
    _ok, answer = _call(sk.run)
    probes = []
    for i in builtins.range(sk.get_n_probes()):
        p = sk.get_probe(i)
        probes.append({"value": p.value, "n": p.n, "mean": p.mean, "low": p.low,
                       "high": p.high, "meets": bool(p.meets)})
    return {"answer": answer, "key": sk.get_key(), "metric": sk.get_metric(),
            "unit": sk.get_unit(), "probes": probes}


def _comparison_result(cmp):
    result = {}
    for m in range(cmp.get_n_metrics()):
        per_policy = {}
        for p in range(cmp.get_n_policies()):
            defined, interval = cmp.get_interval(p, m)
            entry = _interval_stats(interval, defined)
            entry["unit"] = cmp.get_unit(m)
            entry["values"] = [cmp.get_value(p, m, s) for s in range(cmp.get_n_seeds())]
            if p > 0:
                defined, diff = cmp.get_difference(p, m)
                entry["difference"] = _interval_stats(diff, defined)
                entry["difference"]["significant"] = diff.excludes_zero()
            per_policy[cmp.get_policy_name(p)] = entry
        result[cmp.get_metric(m)] = per_policy
    return result


def _scenario_variants(path):
    """The [variant NAME] sections of the scenario at *path*, in file order,
    as ``{name: overrides}``, the overrides led by "[variant NAME]" so that
    an error names the section's own line (sim_scenario_load())."""
    kf = GLib.KeyFile()
    kf.load_from_file(str(path), GLib.KeyFileFlags.NONE)
    variants = {}
    for group in kf.get_groups()[0]:
        if group.startswith("variant "):
            keys = kf.get_keys(group)[0]
            variants[group[len("variant "):].strip()] = (
                ["[%s]" % group] + ["%s=%s" % (key, kf.get_value(group, key).strip())
                                    for key in keys])
    return variants


def _entry_names(cmp, policies):
    """The names of compare()'s entries in order: a named policy's as the
    comparison spells it, a Python policy's from its do_get_name()."""
    names, named_index = [], 0
    for spec in policies:
        if isinstance(spec, str):
            names.append(cmp.get_policy_name(named_index))
            named_index += 1
        else:
            names.append(spec.get_name() or type(spec).__name__)
    return names


def _check_names(cmp, policies):
    names = _entry_names(cmp, policies)
    for i, name in enumerate(names):
        if name in names[:i]:
            raise Error("two policies are named \"%s\": give each Python policy its own "
                        "do_get_name()" % name, Sim.Error.INVALID)


def _mixed_result(cmp, path, policies, set, force, level):
    """compare() with Python policies among the entries: the named ones come
    from the finished comparison *cmp*, each Python one from its own runs,
    and the statistics are the library's (``Sim.compare_interval`` and
    ``Sim.compare_paired_interval``), as for named policies."""
    n_metrics, n_seeds = cmp.get_n_metrics(), cmp.get_n_seeds()
    metrics = [cmp.get_metric(m) for m in range(n_metrics)]
    seeds = [cmp.get_seed(s) for s in range(n_seeds)]
    units = [None] * n_metrics
    columns = []  # per entry: (name, [[value per seed] per metric])
    named_index = 0
    for spec in policies:
        if isinstance(spec, str):
            p = named_index
            named_index += 1
            values = [[cmp.get_value(p, m, s) for s in range(n_seeds)] for m in range(n_metrics)]
            for m in range(n_metrics):
                units[m] = units[m] or cmp.get_unit(m)
            columns.append((cmp.get_policy_name(p), values))
            continue
        values = [[] for _ in metrics]
        for seed in seeds:
            sim = Simulation(path, set=(_overrides(set) or []) + ["scenario.seed=%d" % seed],
                             policy=spec, force=force, record_jobs=False)
            report = sim.run()
            for m, metric in enumerate(metrics):
                ok, value = report.raw.get_value(metric)
                if not ok:
                    raise Error("unknown metric \"%s\" in the report of %s"
                                % (metric, spec.get_name()), Sim.Error.NOT_FOUND)
                values[m].append(value)
                units[m] = units[m] or report.raw.get_unit(metric)
        name = spec.get_name() or type(spec).__name__
        columns.append((name, values))
    result = {}
    for m, metric in enumerate(metrics):
        per_policy = {}
        for p, (name, values) in enumerate(columns):
            defined, interval = Sim.compare_interval(values[m], level)
            entry = _interval_stats(interval, defined)
            entry["unit"] = units[m]
            entry["values"] = list(values[m])
            if p > 0:
                defined, diff = Sim.compare_paired_interval(columns[0][1][m], values[m], level)
                entry["difference"] = _interval_stats(diff, defined)
                entry["difference"]["significant"] = diff.excludes_zero()
            per_policy[name] = entry
        result[metric] = per_policy
    return result


def fgd(nodes, pods, policies=None, seeds=10, first_seed=1, stop=1.30, step=0.01,
        variant="paper", threads=0):
    """Runs the fragmentation experiment of the FGD study (Weng et al.,
    ATC'23) on an openb node list and pod list, as ``gpusim fgd`` does.

    *policies* are placement names (default: the paper's six, "random",
    "dot-product", "clustering", "packing", "best-fit", "fgd"); *seeds*
    runs per policy from *first_seed*; *stop* and *step* are shares of GPU
    capacity (1.30 and 0.01: to 130%, a sample every 1%); *variant* is
    "paper" (as the study's own simulator runs it) or "gpusim".

    Returns the result as a dict, as ``gpusim fgd --json`` prints it: per
    policy, the allocation rate (``allocated_share``: mean and ci95 at each
    point of ``arrived_percent``), failed tasks, fragmentation; and, on a
    published pod list with the paper variant, ``paper``: the paper's
    figures at 90, 100, 110, 120 and 130% per policy.
    """
    if isinstance(policies, str):
        policies = [policies]
    seeds = _whole("seeds", seeds, 1)
    first_seed = _whole("first_seed", first_seed, 0, 2**64 - 1)
    threads = _whole("threads", threads, 0)
    text = _call(Sim.fgd_experiment_run_files, str(nodes), str(pods),
                 [str(p) for p in policies] if policies else None, seeds, first_seed,
                 float(stop), float(step), str(variant), threads)
    return json.loads(text)


_HIST_LABELS = ("<=1", "2", "3-4", "5-8", "9-16", "17-32", "33-64", ">64")


def trace_info(path, format=None, tasks=None, throughputs=None):
    """What a job log holds, as ``gpusim trace info --json`` prints it.

    *format* is "swf", "philly", "helios", "slurm", "openb", "pai", "gavel"
    or "native" (default: told from the file's content); *tasks* is a PAI
    job table's task table; *throughputs* maps each Gavel job type to its
    steps per second on one reference GPU.

    Returns a dict: jobs, skipped, first_submit_s, last_submit_s, span_s,
    gpu_hours, gpus_per_job (by size bucket), arrivals_by_hour (24
    counts), rows_out_of_order and reorder_window_needed (the smallest
    [workload] reorder_window that replays the file).
    """
    if format is None:
        fmt = _call(Sim.trace_detect_format, str(path))
    else:
        fmt = Sim.trace_format_from_name(str(format))
        if fmt == Sim.TraceFormat.UNKNOWN:
            raise Error("unknown trace format %r: expected swf, philly, helios, slurm, openb, "
                        "pai, gavel or native" % (format,), Sim.Error.INVALID)
    config = Sim.TraceConfig()
    config.skip_invalid = True
    config.rebase_time = False
    rates = []
    for job_type, rate in (throughputs or {}).items():
        r = Sim.GavelRate()
        r.job_type = str(job_type)
        r.steps_per_second = float(rate)
        rates.append(r)
    ok, s = _call(Sim.trace_stats_compute, fmt, str(path), config,
                  str(tasks) if tasks is not None else None, rates or None)
    first = s.first_submit / _NS_PER_SECOND
    last = s.last_submit / _NS_PER_SECOND
    return {
        "format": Sim.trace_format_get_name(fmt),
        "jobs": s.jobs,
        "skipped": s.skipped,
        "first_submit_s": first,
        "last_submit_s": last,
        "span_s": last - first,
        "gpu_hours": s.gpu_hours,
        "gpus_per_job": dict(zip(_HIST_LABELS, s.gpus_hist)),
        "arrivals_by_hour": list(s.arrivals_by_hour),
        "rows_out_of_order": s.rows_out_of_order,
        "reorder_window_needed": s.window_needed,
    }


from .rl import ClusterEnv, ClusterVecEnv  # noqa: E402  (it uses the names above)


def llm(scenario, model, search=None, **layout):
    """One training step of a language model on a scenario's cluster and
    fabric, as ``gpusim llm SCENARIO --model MODEL --json`` prints it.

    *model* is a model of the catalogue (``gpusim llm --list``), a model
    file, or an ``[llm NAME]`` section of the scenario.  The layout's keys
    are keyword arguments: ``tp``, ``pp``, ``cp``, ``ep``, ``dp``,
    ``virtual_stages``, ``micro_batch``, ``global_batch``, ``seq_length``,
    ``zero_stage``, ``sequence_parallel``, ``recompute`` ("none",
    "selective", "full"), ``precision`` ("bf16", "fp8"), ``flash_attention``,
    ``tp_overlap``, ``overlap_grad_reduce``, ``gpus`` and ``tokens`` (a
    token budget: the result then has ``train_time``, the costs and
    ``expected_interruptions``).  Booleans may be given as Python's.

    Returns a dict with at least ``iteration_time`` (s), ``mfu`` (a
    fraction), ``tflops_per_gpu``, ``memory_per_gpu`` (bytes) and
    ``tokens_per_second``, and the memory's parts and each kind of
    communication's time, exposed and hidden.  With *search* = N, the dict
    holds ``layouts``: the N fastest layouts of the GPUs (``gpus``, default
    all of the cluster's) that fit, each such a dict.  Raises
    :class:`Error` for a bad key or a layout that does not fit (its
    message gives the memory's parts).
    """
    options = []
    for key, value in layout.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        options.append("%s=%s" % (key, value))
    if search is not None:
        options.append("search=%d" % int(search))
    text = _call(Sim.llm_plan_json, str(scenario), str(model), options)
    return json.loads(text)


def serve(scenario, deployment=None, **keys):
    """One deployment of a language model answering its requests, as
    ``gpusim serve SCENARIO --json`` prints it.

    *deployment* names a ``[serving NAME]`` section (default: the
    scenario's only one).  Keyword arguments override its keys
    (``replicas``, ``tp``, ``precision``, ``max_batch``, ``max_batch_tokens``,
    ``chunked_prefill``, ``router``, ``memory_share``, ``kv_block``,
    ``slo_ttft``, ``slo_tpot``, and the autoscaler's ``autoscale``,
    ``min_replicas``, ``max_replicas``, ``target_outstanding``, ``startup``,
    ``scale_down_delay``, ``autoscale_interval``); a key of its
    ``[requests NAME]`` section is given with the prefix ``requests_``
    (``requests_rate="40/s"``).  Booleans may be given as Python's.

    Returns a dict with ``ttft``, ``tpot`` and ``e2e`` (each a dict of
    ``mean``, ``p50``, ``p95``, ``p99`` and ``max``, in seconds),
    ``goodput`` (requests/s meeting both SLOs),
    ``throughput_tokens_per_second``, ``output_tokens_per_second``,
    ``kv_cache_utilization``, ``preemptions``, ``replica_hours`` and, when
    the nodes have a price, ``usd_per_million_tokens`` (owned) and
    ``cloud_usd_per_million_tokens``.  Raises :class:`Error` for a bad key
    (naming the file, line and key) or a model that does not fit.
    """
    options = []
    for key, value in keys.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        if key.startswith("requests_"):
            key = "requests." + key[len("requests_"):]
        options.append("%s=%s" % (key, value))
    text = _call(Sim.serve_json, str(scenario),
                 None if deployment is None else str(deployment), options)
    return json.loads(text)

