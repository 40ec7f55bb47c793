#!/bin/sh
# test-sweep.sh: `gpusim sweep` and `gpusim seek`, end to end.
#
# What it checks: that a sweep prints the same table, JSON and CSV with
# --jobs 1 and --jobs 2, and the JSON has every point with its values;
# that --list prints the points with their runs;
# that a sweep killed with kill -9 while running, then run again on the same
# database, takes the runs it had finished (at least as many as the CSV
# lines written before the kill) and prints the same table as a sweep run
# at once; that Slurm array shards (--shard N with SLURM_ARRAY_TASK_ID and
# SLURM_ARRAY_TASK_MIN, and --shard K/N) merged with --merge print the same
# table; that compare --db keeps its runs and prints the same table again
# from them; that seek prints each probe and finds the value that a sweep
# over every value of the range finds by the same rule (the smallest whose
# interval's upper end meets the target); and the exit status and message
# (file, line, key or option) of bad sweep keys, targets and shards; that
# the HTML report of a sweep (sweep --report, report --sweep) has a chart
# per metric whose points' figures are the summary's, the same bytes every
# time, and clear errors for a missing summary or an unknown metric.
#
# What it does not check: MPI (test-sweep-mpi.sh), the statistics
# (check-plan), the database's contents column by column (check-sweep),
# speed (bench/bench-sweep), or the report in a browser (test-browser.sh).
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both) and
# python3 to read JSON.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
SWEEP="$SIM_TOP_SRCDIR/tests/data/sweep-small.ini"
PYTHON=$(command -v python3) || PYTHON=

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_MIN

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-sweep.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

checks=0

SCRIPT=test-sweep.sh
# shellcheck source=cli-helpers.sh
. "$SIM_TOP_SRCDIR/tests/cli-helpers.sh"

expect () {
    want=$1
    shift
    checks=$((checks + 1))
    "$GPUSIM" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    [ "$got" -eq "$want" ] || fail "gpusim $*: exit status $got, expected $want"
}

contains () {
    grep -F -e "$2" "$1" >/dev/null || fail "$3: no \"$2\" in $(basename "$1")"
}

same () {
    cmp -s "$1" "$2" || fail "$3: $(basename "$1") and $(basename "$2") differ"
}

[ -x "$GPUSIM" ] || fail "$GPUSIM is not built"

# ---- Threads: the output does not depend on -j --------------------------------

for f in table json csv; do
    expect 0 sweep "$SWEEP" -j 1 --format $f
    cp "$tmp/stdout" "$tmp/j1.$f"
    expect 0 sweep "$SWEEP" -j 2 --format $f
    same "$tmp/stdout" "$tmp/j1.$f" "--format $f with -j 1 and -j 2"
done
contains "$tmp/j1.table" "sweep sweep-small: 6 points x 3 seeds" "table"
contains "$tmp/j1.table" "pool h100.count  workload.rate" "table"
contains "$tmp/j1.csv" "point,label,pool h100.count,workload.rate,metric,unit,n,mean,sd,low,high" "csv"
if [ -n "$PYTHON" ]; then
    checks=$((checks + 1))
    "$PYTHON" - "$tmp/j1.json" <<'PY' || fail "sweep --format json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["axes"] == ["pool h100.count", "workload.rate"], d["axes"]
pts = d["points"]
assert len(pts) == 6
assert [p["values"]["pool h100.count"] for p in pts] == ["2", "2", "3", "3", "4", "4"]
assert [p["values"]["workload.rate"] for p in pts] == ["1/h", "2/h"] * 3
identical = 0
for p in pts:
    assert p["runs_done"] == 3
    m = p["metrics"]["wait_p95"]
    assert m["n"] == 3
    # Runs that all gave the same value (no job waited) have no interval.
    if m["identical"]:
        identical += 1
        assert m["low"] is None and m["high"] is None and m["sd"] == 0, m
    else:
        assert m["low"] <= m["mean"] <= m["high"] and m["low"] < m["high"], m
assert 0 < identical < len(pts), identical
PY
contains "$tmp/j1.table" "warning: at some points every run gave the same value for wait_mean, wait_p95" "the table's warning"
fi

expect 0 sweep "$SWEEP" --list
contains "$tmp/stdout" "6 points x 3 seeds (1 to 3) = 18 runs" "--list"
contains "$tmp/stdout" "5  runs 15-17  pool h100.count=4 workload.rate=2/h" "--list"

# ---- kill -9, then resume --------------------------------------------------------

# Forty points of one seed each (about 0.1 s a run), on one thread: long
# enough to be killed in the middle.
sed -e 's/^pool h100.count = .*/pool h100.count = 8..15/' \
    -e 's/^workload.rate = .*/workload.rate = 4\/h..20\/h step 4\/h/' \
    -e 's/^seeds = .*/seeds = 1/' -e 's/^horizon = .*/horizon = 120d/' \
    "$SWEEP" >"$tmp/long.ini"
expect 0 sweep "$tmp/long.ini" -j 2
cp "$tmp/stdout" "$tmp/long.want"
checks=$((checks + 1))
"$GPUSIM" sweep "$tmp/long.ini" -j 1 --db "$tmp/long.db" --csv "$tmp/long.csv" \
    >/dev/null 2>&1 &
pid=$!
n=0
tries=0
while [ "$n" -lt 6 ] && [ "$tries" -lt 600 ]; do
    sleep 0.05
    tries=$((tries + 1))
    [ -f "$tmp/long.csv" ] && n=$(($(wc -l <"$tmp/long.csv") - 1))
    kill -0 "$pid" 2>/dev/null || break
done
kill -9 "$pid" 2>/dev/null || fail "the sweep ended before it could be killed (increase its size)"
wait "$pid" 2>/dev/null
[ "$n" -ge 6 ] || fail "no CSV lines within 30 s"
lines=$(($(wc -l <"$tmp/long.csv") - 1))
[ "$lines" -lt 40 ] || fail "the sweep had finished when killed"
expect 0 sweep "$tmp/long.ini" -j 2 --db "$tmp/long.db"
same "$tmp/stdout" "$tmp/long.want" "the resumed sweep"
taken=$(sed -n 's/^sweep: \([0-9]*\) run(s) taken from .*/\1/p' "$tmp/stderr")
[ -n "$taken" ] || fail "no 'taken from' line on stderr"
[ "$taken" -ge "$lines" ] && [ "$taken" -lt 40 ] ||
    fail "resumed $taken runs, but $lines were written before the kill"
expect 0 sweep "$tmp/long.ini" --db "$tmp/long.db"
contains "$tmp/stderr" "40 run(s) taken from" "a finished sweep again"
contains "$tmp/stderr" ", 0 run now" "a finished sweep again"

# ---- Slurm array shards, merged ----------------------------------------------------

expect 0 sweep "$SWEEP"
cp "$tmp/stdout" "$tmp/want"
for id in 1 2 3; do
    checks=$((checks + 1))
    SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=1 \
        "$GPUSIM" sweep "$SWEEP" --shard 3 --db "$tmp/part$id.db" >"$tmp/stdout" 2>"$tmp/stderr" ||
        fail "shard $id"
    [ ! -s "$tmp/stdout" ] || fail "a shard printed a summary"
done
contains "$tmp/stderr" "shard 2 of 3: 6 run(s)" "the last shard"
expect 0 sweep "$SWEEP" --db "$tmp/all.db" --merge "$tmp/part1.db" --merge "$tmp/part2.db" \
    --merge "$tmp/part3.db"
same "$tmp/stdout" "$tmp/want" "three shards merged"
contains "$tmp/stderr" "part3.db: 6 run(s) added" "merge"
expect 0 sweep "$SWEEP" --shard 0/2 --db "$tmp/half.db"
expect 1 sweep "$SWEEP" --db "$tmp/half2.db" --merge "$tmp/half.db"
contains "$tmp/stderr" "9 of 18 runs have no result" "a merge with runs missing"

# ---- compare --db --------------------------------------------------------------

expect 0 compare "$SWEEP" -p first-fit -p best-fit -n 2
cp "$tmp/stdout" "$tmp/cmp.want"
expect 0 compare "$SWEEP" -p first-fit -p best-fit -n 2 --db "$tmp/cmp.db"
same "$tmp/stdout" "$tmp/cmp.want" "compare --db"
expect 0 compare "$SWEEP" -p first-fit -p best-fit -n 2 --db "$tmp/cmp.db" -j 1
same "$tmp/stdout" "$tmp/cmp.want" "compare --db, taken from the database"

# ---- seek -------------------------------------------------------------------------

expect 0 seek "$SWEEP" --vary pool.h100.count --target "wait_p95 <= 2h" --range 1..8 --seeds 3
cp "$tmp/stdout" "$tmp/seek"
contains "$tmp/seek" "probe 1: pool h100.count = 1: wait_p95 = " "seek"
contains "$tmp/seek" "probe 2: pool h100.count = 8: " "seek"
found=$(sed -n 's/^smallest pool h100.count meeting wait_p95 <= 2h: \([0-9]*\) (.*/\1/p' "$tmp/seek")
[ -n "$found" ] || fail "seek printed no answer"
# The same rule over every value, from a sweep of 1 to 8.
sed -e 's/^pool h100.count = .*/pool h100.count = 1..8/' -e 's/^workload.rate = .*//' \
    -e 's/^metrics = .*/metrics = wait_p95/' "$SWEEP" >"$tmp/all-counts.ini"
expect 0 sweep "$tmp/all-counts.ini" --format json
if [ -n "$PYTHON" ]; then
    checks=$((checks + 1))
    truth=$("$PYTHON" - "$tmp/stdout" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# A point whose runs all gave the same value has no interval: the value
# itself is held to the target.
def high(m):
    return m["mean"] if m["identical"] else m["high"]
print(min(int(p["values"]["pool h100.count"]) for p in d["points"]
          if high(p["metrics"]["wait_p95"]) <= 7200))
PY
)
    [ "$truth" = "$found" ] || fail "seek found $found, the sweep says $truth"
fi
expect 0 seek "$SWEEP" --vary "pool h100.count" --target "wait_p95 <= 2h" --seeds 3
contains "$tmp/stdout" "probe 1: pool h100.count = 2:" "seek's range from [sweep]"

# ---- The HTML report of a sweep ------------------------------------------------

# The same page from `sweep --report` with -j 1 and -j 2 and from `report
# --sweep` of the JSON summary; every metric's chart, its points' figures
# those of the summary, each point once on one series.
expect 0 sweep "$SWEEP" -j 2 --format json --report "$tmp/sweep.html"
cp "$tmp/stdout" "$tmp/summary.json"
contains "$tmp/stderr" "sweep: report $tmp/sweep.html" "sweep --report"
expect 0 sweep "$SWEEP" -j 1 --quiet --report "$tmp/sweep-j1.html"
same "$tmp/sweep.html" "$tmp/sweep-j1.html" "sweep --report with -j 2 and -j 1"
expect 0 report --sweep "$tmp/summary.json" -o "$tmp/sweep2.html"
same "$tmp/sweep.html" "$tmp/sweep2.html" "sweep --report and report --sweep"
expect 0 report --sweep "$tmp/summary.json"
contains "$tmp/stdout" "report        $tmp/summary.html" "report --sweep's default output"
same "$tmp/sweep.html" "$tmp/summary.html" "report --sweep's default output"
# Three dimensions (one of them two keys zipped), the first not numbers.
sed -e 's/^pool h100.count = .*/policy.placement = first-fit, best-fit\npool h100.count = 2, 3/' \
    -e 's/^workload.rate = .*/workload.rate = 1\/h, 2\/h\nclass small.share = 0.6, 0.7\nzip = workload.rate, class small.share/' \
    -e 's/^seeds = .*/seeds = 2/' "$SWEEP" >"$tmp/three.ini"
expect 0 sweep "$tmp/three.ini" --format json --report "$tmp/three.html"
cp "$tmp/stdout" "$tmp/three.json"
# Durations on the x axis, in seconds.
sed -e '/^workload.rate = /d' -e 's/^pool h100.count = .*/scenario.horizon = 12h, 1d, 2d/' \
    -e 's/^seeds = .*/seeds = 1/' "$SWEEP" >"$tmp/horizon.ini"
expect 0 sweep "$tmp/horizon.ini" --quiet --report "$tmp/horizon.html"
if [ -n "$PYTHON" ]; then
    checks=$((checks + 1))
    "$PYTHON" - "$tmp/sweep.html" "$tmp/summary.json" "$tmp/three.html" "$tmp/three.json" \
        "$tmp/horizon.html" <<'PY' || fail "the sweep's report"
import json, re, sys

def page(html_path, summary_path):
    html = open(html_path).read()
    summary = json.load(open(summary_path))
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert m, "no data in the page"
    data = json.loads(m.group(1))["sweep"]
    assert not re.search(r'<(script|link|img)[^>]+(src|href)=', html), "the page loads a file"
    names = [m["name"] for m in summary["metrics"]]
    assert [m["name"] for m in data["metrics"]] == names
    for k, m in enumerate(summary["metrics"]):
        assert '<canvas id="chart-sweep-%d"' % k in html, "no chart for " + m["name"]
        assert data["metrics"][k]["unit"] == m["unit"]
    for p, point in enumerate(summary["points"]):
        for k, name in enumerate(names):
            for part in ("mean", "low", "high"):
                got = data["metrics"][k][part][p]
                want = point["metrics"][name][part]
                assert got == want, (name, p, part, got, want)
    seen = sorted(p for s in data["series"] for p in s["points"] if p is not None)
    assert seen == list(range(len(summary["points"]))), seen
    return html, data, summary

html, data, summary = page(sys.argv[1], sys.argv[2])
assert data["x"] == {"key": "pool h100.count", "title": "pool h100.count", "numeric": True,
                     "duration": False, "values": [2, 3, 4]}, data["x"]
assert [s["label"] for s in data["series"]] == ["workload.rate = 1/h", "workload.rate = 2/h"]
assert data["series"][1]["points"] == [1, 3, 5]
assert html.count("<canvas") == 3
for key in summary["axes"]:
    assert "<code>%s</code>" % key in html, key

html, data, summary = page(sys.argv[3], sys.argv[4])
assert summary["grid"] == [["policy.placement"], ["pool h100.count"],
                           ["workload.rate", "class small.share"]], summary["grid"]
assert data["x"]["numeric"] is False and data["x"]["values"] == ["first-fit", "best-fit"]
assert len(data["series"]) == 4, data["series"]
assert data["series"][0]["label"] == \
    "pool h100.count = 2, workload.rate = 1/h, class small.share = 0.6", data["series"][0]
assert data["series"][3]["points"] == [3, 7], data["series"][3]

html = open(sys.argv[5]).read()
data = json.loads(re.search(r'id="report-data">(.*?)</script>', html, re.S).group(1))["sweep"]
assert data["x"] == {"key": "scenario.horizon", "title": "scenario.horizon (duration)",
                     "numeric": True, "duration": True, "values": [43200, 86400, 172800]}, data["x"]
assert [s["label"] for s in data["series"]] == ["mean"] and data["series"][0]["points"] == [0, 1, 2]
PY
fi
expect 0 report --sweep "$tmp/summary.json" -o "$tmp/two.html" --metric gpu_utilization,wait_p95
checks=$((checks + 1))
[ "$(grep -c '<canvas id="chart-sweep-' "$tmp/two.html")" -eq 2 ] ||
    fail "report --sweep --metric: not two charts"
contains "$tmp/two.html" "gpu_utilization (ratio) over pool h100.count" "report --sweep --metric"
# Bad input: a missing summary, one that is not a sweep's, an unknown metric.
expect 1 report --sweep "$tmp/no-such.json"
contains "$tmp/stderr" "no-such.json: cannot read it" "report --sweep of a missing summary"
printf '{"metrics": {}}\n' >"$tmp/not-a-sweep.json"
expect 1 report --sweep "$tmp/not-a-sweep.json"
contains "$tmp/stderr" "not-a-sweep.json: not an object with \"axes\", \"metrics\" and \"points\"" \
    "report --sweep of a run's summary"
printf '{"axes"' >"$tmp/cut.json"
expect 1 report --sweep "$tmp/cut.json"
contains "$tmp/stderr" "cut.json:" "report --sweep of a cut summary"
expect 1 report --sweep "$tmp/summary.json" --metric wait_p99 -o "$tmp/x.html"
contains "$tmp/stderr" "unknown metric \"wait_p99\": the sweep summarised wait_mean, wait_p95, gpu_utilization" \
    "report --sweep --metric of an unknown metric"
checks=$((checks + 1))
[ ! -e "$tmp/x.html" ] || fail "a failed report left a file"
expect 2 report --sweep "$tmp/summary.json" "$tmp/run"
contains "$tmp/stderr" "report --sweep takes no RUN_DIR" "report --sweep with a RUN_DIR"
expect 2 sweep "$SWEEP" --shard 0/2 --db "$tmp/x.db" --report "$tmp/x.html"
contains "$tmp/stderr" "--report is for the whole sweep" "sweep --shard --report"

# ---- Bad input --------------------------------------------------------------------

printf '[sweep]\nseeds = many\n' | cat "$SIM_TOP_SRCDIR/scenarios/quickstart.ini" - >"$tmp/bad.ini"
expect 1 sweep "$tmp/bad.ini"
line=$(grep -n '^seeds = many' "$tmp/bad.ini" | cut -d: -f1)
contains "$tmp/stderr" "bad.ini:$line: [sweep] seeds: \"many\"" "a bad seed count"
printf '[sweep]\npool h100.count = 4, x\n' | cat "$SIM_TOP_SRCDIR/scenarios/quickstart.ini" - >"$tmp/bad.ini"
expect 1 sweep "$tmp/bad.ini"
contains "$tmp/stderr" "[sweep] pool h100.count" "a bad value"
expect 2 sweep "$SWEEP" --shard 3/2 --db "$tmp/x.db"
contains "$tmp/stderr" "--shard 3/2: shard 3 of 2" "a shard out of range"
expect 2 sweep "$SWEEP" --shard 4 --db "$tmp/x.db"
contains "$tmp/stderr" "SLURM_ARRAY_TASK_ID is not set" "--shard N outside Slurm"
checks=$((checks + 1))
SLURM_ARRAY_TASK_ID=x "$GPUSIM" sweep "$SWEEP" --shard 4 --db "$tmp/x.db" 2>"$tmp/stderr" &&
    fail "a bad SLURM_ARRAY_TASK_ID was accepted"
contains "$tmp/stderr" "SLURM_ARRAY_TASK_ID=\"x\"" "a bad SLURM_ARRAY_TASK_ID"
expect 2 sweep "$SWEEP" --shard 0/2
contains "$tmp/stderr" "--shard needs --db" "a shard without a database"
expect 2 sweep "$SWEEP" --format xml
expect 2 seek "$SWEEP" --vary pool.h100.count --target "wait_p95 == 1h"
contains "$tmp/stderr" "--target \"wait_p95 == 1h\"" "a bad target"
expect 2 seek "$SWEEP" --vary pool.h100.count --target "wait_p95 <= soon"
contains "$tmp/stderr" "\"soon\" is not a number or a duration" "a bad target value"
expect 1 seek "$SWEEP" --vary pool.h100.count --target "wait_p9 <= 1h" --range 1..4
contains "$tmp/stderr" "did you mean \"wait_p95\"" "an unknown metric"
expect 2 seek "$SWEEP" --vary pool.h100.count --target "wait_p95 <= 1h" --range 4..1
contains "$tmp/stderr" "--range \"4..1\"" "a bad range"
expect 1 seek "$SWEEP" --vary pool.h100.count --target "wait_p95 < 0" --range 1..2 --seeds 2
contains "$tmp/stderr" "no value of pool h100.count from 1 to 2" "an unreachable target"

# ---- One spelling of keys for run --set, seek --vary and [sweep] -----------------
# Every spelling of a key that one of the three accepts the other two accept
# too, with the same figure: the named section with a dot or a space, a
# plain section.  A misspelt key is refused by all three with the same
# suggestion.
QS="$SIM_TOP_SRCDIR/scenarios/quickstart.ini"
for spelling in "pool.h100.count" "pool h100.count"; do
    expect 0 run "$QS" --json --set "$spelling=2" --set scenario.horizon=2d
    cp "$tmp/stdout" "$tmp/run.json"
    printf '[sweep]\n%s = 2, 3\nseeds = 1\n' "$spelling" |
        sed 's/^horizon = .*/horizon = 2d/' "$QS" - >"$tmp/spelt.ini"
    expect 0 sweep "$tmp/spelt.ini" --format json
    [ -n "$PYTHON" ] && { "$PYTHON" - "$tmp/run.json" "$tmp/stdout" <<'PY' || fail "sweep $spelling: the point 2 is not the run with --set $spelling=2"
import json, sys
run = json.load(open(sys.argv[1]))["metrics"]["wait_mean"]["value"]
points = json.load(open(sys.argv[2]))["points"]
point = [p for p in points if float(list(p["values"].values())[0]) == 2][0]
sys.exit(0 if point["metrics"]["wait_mean"]["mean"] == run else 1)
PY
    }
    expect 0 seek "$tmp/spelt.ini" --vary "$spelling" --target "wait_p95 <= 100d" --seeds 2
    expect 1 run "$QS" --set "$spelling"x=2
    cp "$tmp/stderr" "$tmp/run.err"
    contains "$tmp/run.err" "did you mean \"count\"" "run --set ${spelling}x"
    printf '[sweep]\n%sx = 2, 3\n' "$spelling" | cat "$QS" - >"$tmp/bad.ini"
    expect 1 sweep "$tmp/bad.ini"
    contains "$tmp/stderr" "did you mean \"count\"" "[sweep] ${spelling}x"
    expect 1 seek "$QS" --vary "${spelling}x" --target "wait_p95 <= 1d" --range 1..4 --seeds 1
    contains "$tmp/stderr" "did you mean \"count\"" "seek --vary ${spelling}x"
done
expect 0 run "$QS" --set workload.rate=2/h --set class.small.gpus=2 --set scenario.horizon=1d

printf 'test-sweep.sh: %d checks passed\n' "$checks"
