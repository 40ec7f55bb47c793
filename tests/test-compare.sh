#!/bin/sh
# test-compare.sh: `gpusim compare`, end to end.
#
# What it checks: that comparing first-fit and best-fit on the quick start
# over three seeds exits 0 and prints both policies, and nothing on stderr
# when stderr is not a terminal; that --json is valid JSON with every
# policy, seed, metric and unit, and a paired difference for the second
# policy only; that --json and --csv give the same bytes with --jobs 1 and
# --jobs 2; that --seed and --seeds choose the seeds; that a plugin given by
# its path runs; that a plan written with --plan-out, run in two halves
# with --plan --runs --results-out (a plugin among its policies) and
# gathered with --from-results prints the same table, JSON and CSV as the
# comparison run at once; and the exit status and message of each error:
# an unknown policy (1, with a suggestion and the known names), a missing
# plugin (1), an unknown metric (1), usage errors (2), a failed run in a
# part, missing parts, a plan that is not one; that a trace, the same on
# every seed, gets no interval and no star but a warning, and a policy
# compared with itself a difference of exactly 0; that windows of the trace
# ([workload] variation) give intervals, paired, and still exactly 0 for a
# policy against itself.
#
# What it does not check: the statistics (check-compare does), the queue
# order of the plugin (check-plugin does), the progress display on a
# terminal, or speed.
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both) and
# python3 to read JSON and CSV.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
QUICKSTART="$SIM_TOP_SRCDIR/scenarios/quickstart.ini"
PLUGIN="$SIM_TOP_BUILDDIR/examples/.libs/plugin-largest-first.so"

if [ -x /usr/bin/python3 ]; then
    PYTHON=/usr/bin/python3
else
    PYTHON=$(command -v python3) || PYTHON=
fi

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-compare.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

checks=0

SCRIPT=test-compare.sh
# shellcheck source=cli-helpers.sh
. "$SIM_TOP_SRCDIR/tests/cli-helpers.sh"


contains () {
    grep -F -e "$2" "$1" >/dev/null || fail "$3: no \"$2\" in $(basename "$1")"
}

no_stderr () {
    [ ! -s "$tmp/stderr" ] || fail "$1: unexpected output on stderr"
}

[ -x "$GPUSIM" ] || fail "$GPUSIM is not built"

# ---- Usage ------------------------------------------------------------------

expect 0 --help
grep -E '^ +compare ' "$tmp/stdout" >/dev/null || fail "gpusim --help does not list compare"
expect 0 compare --help
contains "$tmp/stdout" "--policy" "gpusim compare --help"
expect 2 compare
expect 2 compare "$QUICKSTART"
contains "$tmp/stderr" "--policy" "gpusim compare without a policy"
expect 2 compare "$QUICKSTART" --policy first-fit --seeds 0
expect 2 compare "$QUICKSTART" --policy first-fit --seed minus-one
expect 2 compare "$QUICKSTART" --policy first-fit --no-such-option
expect 2 compare "$QUICKSTART" "$QUICKSTART" --policy first-fit

# ---- The table --------------------------------------------------------------

expect 0 compare "$QUICKSTART" --policy first-fit --policy best-fit --seeds 3
no_stderr "gpusim compare 2>file (progress on a file?)"
contains "$tmp/stdout" "fifo/first-fit" "gpusim compare"
contains "$tmp/stdout" "fifo/best-fit" "gpusim compare"
contains "$tmp/stdout" "wait_mean (s)" "gpusim compare"
contains "$tmp/stdout" "seeds     1 to 3" "gpusim compare"

# ---- JSON and CSV, whatever the number of threads -----------------------------

expect 0 compare "$QUICKSTART" --policy first-fit --policy best-fit --seeds 3 --json --jobs 1 \
    --csv "$tmp/a.csv"
no_stderr "gpusim compare --json"
cp "$tmp/stdout" "$tmp/a.json"
expect 0 compare "$QUICKSTART" --policy first-fit --policy best-fit --seeds 3 --json --jobs 2 \
    --csv "$tmp/b.csv"
cmp -s "$tmp/a.json" "$tmp/stdout" || fail "gpusim compare --json: --jobs 1 and --jobs 2 differ"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || fail "gpusim compare --csv: --jobs 1 and --jobs 2 differ"

if [ -n "$PYTHON" ]; then
    "$PYTHON" -c 'import json,sys; json.load(sys.stdin)' <"$tmp/a.json" ||
        fail "gpusim compare --json: not valid JSON"
    "$PYTHON" - "$tmp/a.json" "$tmp/a.csv" <<'EOF' || fail "gpusim compare: JSON or CSV contents"
import csv, json, sys
doc = json.load(open(sys.argv[1]))
assert doc["seeds"] == [1, 2, 3], doc["seeds"]
assert [p["name"] for p in doc["policies"]] == ["fifo/first-fit", "fifo/best-fit"]
names = [m["name"] for m in doc["metrics"]]
assert names == ["wait_mean", "wait_p95", "jct_mean", "bounded_slowdown_mean",
                 "gpu_utilization", "gpu_activity", "queue_length_mean",
                 "fragmented_gpus_mean", "makespan"], names
for m in doc["metrics"]:
    assert m["unit"], m["name"]
    base, other = m["policies"]
    assert "difference" not in base
    for p in (base, other):
        assert len(p["values"]) == 3
        assert abs(p["mean"] - sum(p["values"]) / 3) <= 1e-9 * max(1, abs(p["mean"]))
        assert p["ci_low"] <= p["mean"] <= p["ci_high"]
    d = other["difference"]
    assert isinstance(d["excludes_zero"], bool)
    assert d["excludes_zero"] == (d["ci_low"] > 0 or d["ci_high"] < 0)
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 9 * (2 * (3 + 4) + 4), len(rows)
assert {r["statistic"] for r in rows} >= {"value", "mean", "ci_low", "diff_mean"}
values = [float(r["value"]) for r in rows
          if r["metric"] == "wait_mean" and r["policy"] == "fifo/best-fit"
          and r["statistic"] == "value"]
assert values == doc["metrics"][0]["policies"][1]["values"], values
EOF
else
    echo "test-compare.sh: python3 not found: JSON and CSV contents not checked" >&2
fi

expect 0 compare "$QUICKSTART" --policy fifo/first-fit --seed 5 --seeds 2 --json \
    --metric wait_mean
contains "$tmp/stdout" '"seeds" : [' "gpusim compare --seed 5"
tr -d ' \n' <"$tmp/stdout" | grep -F '"seeds":[5,6]' >/dev/null ||
    fail "gpusim compare --seed 5 --seeds 2: seeds are not 5 and 6"

# ---- A plugin ---------------------------------------------------------------

[ -f "$PLUGIN" ] || fail "$PLUGIN is not built"
expect 0 compare "$QUICKSTART" --policy first-fit --policy "$PLUGIN" --seeds 2
contains "$tmp/stdout" "largest-first/first-fit" "gpusim compare with a plugin"
expect 1 compare "$QUICKSTART" --policy first-fit --policy "$tmp/missing.so" --seeds 2
contains "$tmp/stderr" "$tmp/missing.so" "gpusim compare with a missing plugin"

# ---- A plan run in parts ---------------------------------------------------------

# The plan of four runs, written but not run; then two halves (as two Slurm
# array tasks would), gathered in either order: the same bytes as one run.
expect 0 compare "$QUICKSTART" --policy first-fit --policy "$PLUGIN" --seeds 2 \
    --metric wait_mean --metric makespan --json --csv "$tmp/once.csv"
cp "$tmp/stdout" "$tmp/once.json"
expect 0 compare "$QUICKSTART" --policy first-fit --policy "$PLUGIN" --seeds 2 \
    --metric wait_mean --metric makespan
cp "$tmp/stdout" "$tmp/once.txt"
expect 0 compare "$QUICKSTART" --policy first-fit --policy "$PLUGIN" --seeds 2 \
    --metric wait_mean --metric makespan --plan-out "$tmp/plan.json"
[ ! -s "$tmp/stdout" ] || fail "gpusim compare --plan-out printed something"
contains "$tmp/plan.json" '"gpusim_plan" : 1' "gpusim compare --plan-out"
contains "$tmp/plan.json" '"scenario.seed=2"' "gpusim compare --plan-out"
expect 0 compare --plan "$tmp/plan.json" --runs 0,3 --results-out "$tmp/part1.json" --jobs 2
[ ! -s "$tmp/stdout" ] || fail "gpusim compare --runs printed something"
expect 0 compare --plan "$tmp/plan.json" --runs 1-2 --results-out "$tmp/part2.json"
expect 0 compare --from-results "$tmp/part2.json" "$tmp/part1.json"
cmp -s "$tmp/once.txt" "$tmp/stdout" || fail "gpusim compare --from-results: another table"
expect 0 compare --from-results "$tmp/part1.json" "$tmp/part2.json" --json --csv "$tmp/parts.csv"
cmp -s "$tmp/once.json" "$tmp/stdout" || fail "gpusim compare --from-results --json: other bytes"
cmp -s "$tmp/once.csv" "$tmp/parts.csv" || fail "gpusim compare --from-results --csv: other bytes"
# The whole plan at once, its results written too.
expect 0 compare --plan "$tmp/plan.json" --results-out "$tmp/all.json" --json
cmp -s "$tmp/once.json" "$tmp/stdout" || fail "gpusim compare --plan: other bytes"
expect 0 compare --from-results "$tmp/all.json" "$tmp/part1.json"

expect 1 compare --from-results "$tmp/part1.json"
contains "$tmp/stderr" "2 of 4 runs have no result (the first: run 1" "gpusim compare with a part missing"
expect 2 compare --from-results
expect 2 compare --plan "$tmp/plan.json" --runs 0-9 --results-out "$tmp/x.json"
contains "$tmp/stderr" "the plan has runs 0 to 3" "gpusim compare --runs out of range"
expect 2 compare --plan "$tmp/plan.json" --runs 1
contains "$tmp/stderr" "--runs needs --results-out" "gpusim compare --runs without --results-out"
expect 2 compare --plan "$tmp/plan.json" --policy best-fit
expect 2 compare --plan "$tmp/plan.json" "$QUICKSTART"
expect 1 compare --plan "$tmp/no-such-plan.json"
contains "$tmp/stderr" "no-such-plan.json" "gpusim compare --plan with a missing file"
printf '{"gpusim_plan": 7}\n' >"$tmp/v7.json"
expect 1 compare --plan "$tmp/v7.json"
contains "$tmp/stderr" "format version 7" "gpusim compare --plan of another version"
expect 1 compare --from-results "$tmp/plan.json"
contains "$tmp/stderr" "gpusim_results: expected an integer" "gpusim compare --from-results on a plan"
# A run that fails in a part: its results are written, with the error, and
# gathering reports it.
expect 0 compare "$QUICKSTART" --policy first-fit --metric wait_man --seeds 2 \
    --plan-out "$tmp/bad-plan.json"
expect 1 compare --plan "$tmp/bad-plan.json" --runs 1 --results-out "$tmp/bad.json"
contains "$tmp/stderr" 'did you mean "wait_mean"' "gpusim compare --runs with a failing run"
contains "$tmp/bad.json" '"error"' "gpusim compare --results-out of a failed run"
expect 1 compare --from-results "$tmp/bad.json"
contains "$tmp/stderr" 'did you mean "wait_mean"' "gpusim compare --from-results with a failed run"

# ---- Errors -----------------------------------------------------------------

expect 1 compare "$QUICKSTART" --policy first-fit --policy bestfit --seeds 2
contains "$tmp/stderr" 'did you mean "best-fit"' "gpusim compare --policy bestfit"
contains "$tmp/stderr" "first-fit" "gpusim compare --policy bestfit"
expect 1 compare "$QUICKSTART" --policy lifo/best-fit
contains "$tmp/stderr" "fifo" "gpusim compare --policy lifo/best-fit"
expect 1 compare "$QUICKSTART" --policy first-fit --metric wait_man --seeds 2
contains "$tmp/stderr" 'did you mean "wait_mean"' "gpusim compare --metric wait_man"
expect 1 compare "$tmp/no-such.ini" --policy first-fit
expect 1 compare "$QUICKSTART" --policy first-fit --seeds 2 --csv "$tmp/no/such/dir.csv"
contains "$tmp/stderr" "dir.csv" "gpusim compare --csv into a missing directory"

# ---- Variants -----------------------------------------------------------------

# The scenario's own [variant] sections, and --variant: switch counts of a
# fat-tree at 1:1, 2:1 and 4:1 (24, 18 and 13 for 64 DGX H100 on 64-port
# switches, worked out in check-fabric).
OVERSUB="$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini"
expect 0 compare "$OVERSUB" --seeds 1 --metric network_switches --set scenario.horizon=6h
contains "$tmp/stdout" "4:1" "gpusim compare with the scenario's variants"
contains "$tmp/stdout" "-45.8%" "gpusim compare: 13 switches at 4:1 against 24 at 1:1"
expect 0 compare "$QUICKSTART" --variant "small:pool h100.count=8" --variant "big:pool h100.count=32" \
    --seeds 1 --metric gpu_utilization
contains "$tmp/stdout" "big" "gpusim compare --variant"
expect 2 compare "$QUICKSTART" --variant "nocolon"
expect 1 compare "$QUICKSTART" --variant "bad:pool h100.cont=3" --seeds 1
contains "$tmp/stderr" 'variant "bad"' "gpusim compare with a bad variant"

# The MIG inference scenario prints the answer its comments and the README
# give: allocation near 100 % in every case, activity 20 % on whole A100s,
# 91 % on 1g.5gb slices (7 x 14 of 108 SMs), 59 % on 2g.10gb, 95 % when
# five jobs time-slice an A100 and 100 % under MPS.
MIGINF="$SIM_TOP_SRCDIR/scenarios/mig-inference.ini"
expect 0 compare "$MIGINF" --seeds 1 --metric gpu_utilization --metric gpu_activity --json
if [ -n "$PYTHON" ]; then
    "$PYTHON" - "$tmp/stdout" <<'EOF' || fail "gpusim compare scenarios/mig-inference.ini: the answer changed"
import json, sys
doc = json.load(open(sys.argv[1]))
names = [p["name"] for p in doc["policies"]]
assert names == ["whole-a100", "1g.5gb", "2g.10gb", "3g.20gb", "time-slice", "mps"], names
got = {m["name"]: {n: p["mean"] for n, p in zip(names, m["policies"])} for m in doc["metrics"]}
want = {"whole-a100": 0.20, "1g.5gb": 0.907, "2g.10gb": 0.590, "3g.20gb": 0.373,
        "time-slice": 0.950, "mps": 1.000}
for n, v in want.items():
    assert abs(got["gpu_activity"][n] - v) < 0.0015, (n, got["gpu_activity"][n], v)
assert got["gpu_utilization"]["whole-a100"] > 0.999
assert got["gpu_utilization"]["1g.5gb"] > 0.99
EOF
fi

# ---- A trace: seeds change nothing -------------------------------------------------
# A trace is replayed whole on every seed, so every run of a policy gives
# the same figures: no interval, no star, a warning that says why, and
# "identical" in the JSON; the same policy twice differs by exactly 0.
printf '[scenario]\nname = philly-excerpt\n[pool a]\nmodel = DGX-A100\ncount = 2\n[workload]\nsource = philly\ntrace = %s\n' \
    "$SIM_TOP_SRCDIR/tests/data/philly-excerpt.csv" >"$tmp/philly.ini"
expect 0 compare "$tmp/philly.ini" -p fifo/first-fit -p sjf/first-fit -p fifo/first-fit -n 3 \
    -m wait_mean -m jobs_completed
contains "$tmp/stdout" "warning: every run gave the same value for wait_mean (every entry); jobs_completed (every entry): no interval and no star" "the trace's warning"
if grep '^  ' "$tmp/stdout" | grep -e ' \*$' -e '±' -e '\[' >/dev/null; then
    fail "a trace's identical runs were given an interval or a star"
fi
expect 0 compare "$tmp/philly.ini" -p fifo/first-fit -p sjf/first-fit -p fifo/first-fit -n 3 \
    -m wait_mean --json
if [ -n "$PYTHON" ]; then
    checks=$((checks + 1))
    "$PYTHON" - "$tmp/stdout" <<'PY' || fail "compare --json of a trace"
import json, sys
d = json.load(open(sys.argv[1]))
entries = d["metrics"][0]["policies"]
for e in entries:
    assert e["identical"] is True and e["ci_low"] is None and e["ci_high"] is None, e
    assert len(set(e["values"])) == 1, e
assert entries[1]["difference"]["excludes_zero"] is False
assert entries[1]["difference"]["mean"] != 0
assert entries[2]["difference"]["mean"] == 0 and entries[2]["difference"]["identical"] is True
PY
fi

# With windows of the trace (6 h each: four of the 26 hours), each seed
# replays another window: the runs vary, the intervals are not empty, the
# differences stay paired (the same windows for every policy), and the same
# policy twice still differs by exactly 0.
printf 'variation = windows(6h)\n' | cat "$tmp/philly.ini" - >"$tmp/windows.ini"
expect 0 compare "$tmp/windows.ini" -p fifo/first-fit -p sjf/first-fit -p fifo/first-fit -n 4 \
    -m wait_mean -m jobs_submitted --json
if [ -n "$PYTHON" ]; then
    checks=$((checks + 1))
    "$PYTHON" - "$tmp/stdout" <<'PY' || fail "compare --json over windows of a trace"
import json, sys
d = json.load(open(sys.argv[1]))
for metric in d["metrics"]:
    entries = metric["policies"]
    for e in entries[:2]:
        assert e["identical"] is False and e["ci_low"] < e["ci_high"], (metric["name"], e)
    assert entries[2]["values"] == entries[0]["values"]
    assert entries[2]["difference"]["mean"] == 0
    assert entries[2]["difference"]["identical"] is True
    assert entries[2]["difference"]["excludes_zero"] is False
# The windows hold different jobs, the same for both policies.
submitted = d["metrics"][1]["policies"]
assert submitted[0]["values"] == submitted[1]["values"]
assert len(set(submitted[0]["values"])) > 1
PY
fi
expect 0 compare "$tmp/windows.ini" -p fifo/first-fit -p sjf/first-fit -n 4 -m wait_mean
[ ! -s "$tmp/stderr" ] || fail "compare over windows of a trace: $(head -3 "$tmp/stderr")"
if grep -F "warning:" "$tmp/stdout" >/dev/null; then
    fail "windows of a trace were taken for identical runs"
fi
# Waits read as durations, the interval's ends too, and the difference.
grep -E '^  sjf/first-fit +([0-9]+d )?[0-9]{2}:[0-9]{2}:[0-9]{2} \[.*\] +-([0-9]+d )?[0-9]{2}:[0-9]{2}:[0-9]{2} ± ' \
    "$tmp/stdout" >/dev/null || fail "compare: waits not printed as durations"
# Every variation gives the same bytes on one thread and on two.
for v in 'windows(6h)' 'bootstrap(days)' 'bootstrap(jobs)' 'jitter(30min)'; do
    expect 0 compare "$tmp/philly.ini" --set "workload.variation=$v" -p fifo/first-fit \
        -p sjf/first-fit -n 3 -m wait_mean --json -j 1
    grep -v '"gpusim"' "$tmp/stdout" >"$tmp/variation-1.json"
    expect 0 compare "$tmp/philly.ini" --set "workload.variation=$v" -p fifo/first-fit \
        -p sjf/first-fit -n 3 -m wait_mean --json -j 2
    grep -v '"gpusim"' "$tmp/stdout" | cmp -s - "$tmp/variation-1.json" ||
        fail "compare with variation $v: -j 1 and -j 2 differ"
done

echo "test-compare.sh: $checks commands checked"
exit 0
