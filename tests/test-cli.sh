#!/bin/sh
# test-cli.sh: the gpusim command-line program, end to end.
#
# What it checks: the exit status of every subcommand (0 success, 1 bad
# input, 2 usage error) and of --help; that `run` prints its summary, that
# `run --json` is valid JSON and the same bytes on every run, and that
# `--set scenario.seed=2` changes it; that `run -o DIR` writes summary.json,
# jobs.csv and timeseries.csv, the same bytes on every run, with one row of
# jobs.csv per completed job; that a run which fails part-way leaves DIR as
# it was, and one killed by SIGTERM leaves no temporary file; that errors name the file, the line and the key and suggest a fix;
# that every scenario shipped in scenarios/ validates; `trace info` and
# `trace convert` (a converted trace replays to the same jobs.csv), the PAI,
# Gavel and native sources and clusters from trace files; the `models` listing
# and `models show`; `transfers` against completion times worked out by
# hand, and its errors; and that nothing is written to stderr by a successful
# run when stderr is not a terminal (no progress bar).
#
# What it does not check: the numbers in the summary (check-report and
# check-sched do), the exact wording of messages beyond the phrases below,
# the progress bar on a terminal, or the speed of the program.
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both) and
# uses python3 to read JSON and CSV.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
QUICKSTART="$SIM_TOP_SRCDIR/scenarios/quickstart.ini"

if [ -x /usr/bin/python3 ]; then
    PYTHON=/usr/bin/python3
else
    PYTHON=$(command -v python3) || PYTHON=
fi

# The catalogue comes from the source tree, whatever the caller's setting.
GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

checks=0

SCRIPT=test-cli.sh
# shellcheck source=cli-helpers.sh
. "$SIM_TOP_SRCDIR/tests/cli-helpers.sh"

no_stderr () {
    [ ! -s "$tmp/stderr" ] || fail "$1: unexpected output on stderr"
}

[ -x "$GPUSIM" ] || fail "$GPUSIM is not built"

# ---- Usage and help -------------------------------------------------------

expect 0 --help
for cmd in run validate models; do
    grep -E "^ +$cmd " "$tmp/stdout" >/dev/null || fail "gpusim --help does not list $cmd"
done
no_stderr "gpusim --help"

for cmd in run validate models; do
    expect 0 "$cmd" --help
    contains "$tmp/stdout" "Usage:" "gpusim $cmd --help"
done

expect 2
contains "$tmp/stderr" "Usage:" "gpusim with no arguments"
expect 2 frobnicate
contains "$tmp/stderr" "frobnicate" "gpusim frobnicate"
expect 2 run
expect 2 run --no-such-option "$QUICKSTART"

# ---- run --------------------------------------------------------------------

expect 0 run "$QUICKSTART"
for word in wait utilization fragmentation; do
    grep -E "^$word " "$tmp/stdout" >/dev/null || fail "gpusim run: no \"$word\" line in the summary"
done
no_stderr "gpusim run 2>file (a progress bar?)"

# -q prints nothing but errors: no summary, yet the files asked for are
# written and --json still prints its JSON; an error still reaches stderr.
expect 0 run -q "$QUICKSTART" -o "$tmp/quiet"
[ ! -s "$tmp/stdout" ] || fail "gpusim run -q printed on stdout"
no_stderr "gpusim run -q"
[ -s "$tmp/quiet/summary.json" ] || fail "gpusim run -q -o: no summary.json"
expect 0 run -q --json "$QUICKSTART"
contains "$tmp/stdout" '"metrics"' "gpusim run -q --json"
expect 1 run -q "$QUICKSTART" --set scenario.sed=2
[ ! -s "$tmp/stdout" ] || fail "gpusim run -q with an error printed on stdout"
contains "$tmp/stderr" "did you mean \"seed\"" "gpusim run -q with an error"

expect 0 run --json "$QUICKSTART"
no_stderr "gpusim run --json"
cp "$tmp/stdout" "$tmp/a.json"
expect 0 run --json "$QUICKSTART"
cmp -s "$tmp/a.json" "$tmp/stdout" || fail "gpusim run --json: two runs differ"
if [ -n "$PYTHON" ]; then
    "$PYTHON" -c 'import json,sys; json.load(sys.stdin)' <"$tmp/a.json" ||
        fail "gpusim run --json: not valid JSON"
else
    echo "test-cli.sh: python3 not found: JSON and CSV contents not checked" >&2
fi

expect 0 run --json --set scenario.seed=2 "$QUICKSTART"
cmp -s "$tmp/a.json" "$tmp/stdout" && fail "gpusim run --set scenario.seed=2: same JSON as seed 1"
contains "$tmp/stdout" '"seed" : 2' "gpusim run --set scenario.seed=2"

expect 1 run --set scenario.seed=abc "$QUICKSTART"
contains "$tmp/stderr" "--set scenario.seed" "gpusim run --set scenario.seed=abc"
expect 2 run --set seed=2 "$QUICKSTART"
contains "$tmp/stderr" "SECTION.KEY=VALUE" "gpusim run --set seed=2"

# ---- run -o DIR -------------------------------------------------------------

expect 0 run -o "$tmp/out1" "$QUICKSTART"
no_stderr "gpusim run -o"
contains "$tmp/stdout" "$tmp/out1" "gpusim run -o (outputs line)"
expect 0 run -o "$tmp/out2" "$QUICKSTART"
for f in summary.json jobs.csv timeseries.csv nodes.csv; do
    [ -s "$tmp/out1/$f" ] || fail "gpusim run -o: no $f"
    cmp -s "$tmp/out1/$f" "$tmp/out2/$f" || fail "gpusim run -o: $f differs between two runs"
done
for f in "$tmp/out1"/*; do
    case $(basename "$f") in
        summary.json | jobs.csv | timeseries.csv | nodes.csv) ;;
        *) fail "gpusim run -o: unexpected file $(basename "$f")" ;;
    esac
done
if [ -n "$PYTHON" ]; then
    "$PYTHON" - "$tmp/out1" <<'EOF' || fail "gpusim run -o: jobs.csv does not match summary.json"
import csv, json, os, sys
d = sys.argv[1]
with open(os.path.join(d, "summary.json")) as f:
    completed = json.load(f)["metrics"]["jobs_completed"]["value"]
with open(os.path.join(d, "jobs.csv"), newline="") as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:]
if "id" not in header:
    sys.exit("jobs.csv has no header row with an id column")
if any(len(r) != len(header) for r in body):
    sys.exit("jobs.csv has rows of different lengths")
if len(body) != completed or completed <= 0:
    sys.exit("jobs.csv: %d rows, summary.json: %s jobs completed" % (len(body), completed))
if len(set(r[header.index("id")] for r in body)) != len(body):
    sys.exit("jobs.csv: a job appears twice")
EOF
fi

# An interrupted run (SIGTERM after a second of a run of about 25 s) dies
# by the signal and leaves no temporary file and no output behind.
"$GPUSIM" run -q -o "$tmp/killed" --set scenario.horizon=100000d "$QUICKSTART" \
    >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM "$pid" 2>/dev/null
wait "$pid"
status=$?
checks=$((checks + 1))
[ "$status" -eq 143 ] || fail "gpusim run killed by SIGTERM: exit status $status, not 143"
leftover=$(ls -A "$tmp/killed" 2>/dev/null)
[ -z "$leftover" ] || fail "gpusim run killed by SIGTERM left files: $leftover"

# A class whose name holds a comma and quotes: jobs.csv stays valid RFC 4180
# CSV (every row as long as the header) and gives the name back whole.
cat >"$tmp/quoted.ini" <<'EOF'
[scenario]
name = quoted
horizon = 1d

[pool a]
model = DGX-H100
count = 1

[workload]
rate = 3/h

[class small,"debug"]
gpus = 1
duration = constant(10min)
EOF
expect 0 run -q -o "$tmp/quoted" "$tmp/quoted.ini"
if [ -n "$PYTHON" ]; then
    "$PYTHON" - "$tmp/quoted/jobs.csv" <<'EOF' || fail "gpusim run: jobs.csv with a quoted class name"
import csv, sys
with open(sys.argv[1], newline="") as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:]
if not body or any(len(r) != len(header) for r in body):
    sys.exit("rows of a different length than the header (%d fields)" % len(header))
names = set(r[header.index("class")] for r in body)
if names != {'small,"debug"'}:
    sys.exit("class names read back: %r" % names)
EOF
fi

# ---- Errors in scenarios --------------------------------------------------

cat >"$tmp/bad.ini" <<'EOF'
[scenario]
name = bad
horizon = 1d

[pool a]
model = DGX-H100
count = 1

[workload]
rat = 3/h
duration = constant(1h)
gpus = 1
EOF
expect 1 run "$tmp/bad.ini"
[ ! -s "$tmp/stdout" ] || fail "gpusim run bad.ini: output on stdout"
contains "$tmp/stderr" "$tmp/bad.ini:10:" "gpusim run bad.ini (file and line)"
contains "$tmp/stderr" "[workload] rat" "gpusim run bad.ini (group and key)"
contains "$tmp/stderr" 'did you mean "rate"' "gpusim run bad.ini (suggestion)"

expect 1 run "$tmp/no-such-file.ini"
contains "$tmp/stderr" "$tmp/no-such-file.ini" "gpusim run on a missing file"

# [rl] reward names the energy and cost rewards among its choices; a
# scenario choosing one validates when it has the models the reward needs
# ([power], and [cost] for cost), and is refused naming the key otherwise
# (test-hardening.sh; the environment's own check: check-rl, test_gpusim.py).
expect 1 validate --quick --set rl.reward=enrgy "$QUICKSTART"
contains "$tmp/stderr" 'did you mean "energy"' "gpusim validate --set rl.reward=enrgy"
contains "$tmp/stderr" "utilization, energy or cost" "gpusim validate --set rl.reward=enrgy (choices)"
expect 1 validate --quick --set rl.reward=cost "$QUICKSTART"
contains "$tmp/stderr" "--set rl.reward: the cost reward needs the power model" "gpusim validate --set rl.reward=cost without [power]"
expect 0 validate --quick --set rl.reward=cost "$SIM_TOP_SRCDIR/scenarios/cost-own-rent.ini"

sed 's/^model = DGX-H100$/model = DGX-H10/' "$QUICKSTART" >"$tmp/model.ini"
expect 1 validate "$tmp/model.ini"
contains "$tmp/stderr" 'did you mean "DGX-H100"' "gpusim validate with model DGX-H10"

# validate reads a trace to its end: a bad row on line 302 of a Philly list
# is found (exit 1, with its line); --quick reads only the header; a trace
# with no rows is refused as a run would refuse it.
{ cat "$SIM_TOP_SRCDIR/tests/data/philly-excerpt.csv"; echo "2017-10-31 23:59:00,abc,1,30,vc"; } \
    >"$tmp/deep.csv"
deep_line=$(wc -l <"$tmp/deep.csv" | tr -d ' ')
printf '[scenario]\nname = deep\n[pool a]\nmodel = DGX-A100\ncount = 4\n[workload]\nsource = philly\ntrace = %s\n' \
    "$tmp/deep.csv" >"$tmp/deep.ini"
expect 1 validate "$tmp/deep.ini"
contains "$tmp/stderr" "deep.csv:$deep_line: duration" "gpusim validate: a bad row at the end of a trace"
expect 0 validate --quick "$tmp/deep.ini"
head -n 1 "$tmp/deep.csv" >"$tmp/deep-empty.csv"
sed "s|$tmp/deep.csv|$tmp/deep-empty.csv|" "$tmp/deep.ini" >"$tmp/deep-empty.ini"
expect 1 validate "$tmp/deep-empty.ini"
contains "$tmp/stderr" "no job to simulate" "gpusim validate: a trace with no rows"
sed '$d' "$tmp/deep.csv" >"$tmp/deep-good.csv"
sed "s|$tmp/deep.csv|$tmp/deep-good.csv|" "$tmp/deep.ini" >"$tmp/deep-good.ini"
expect 0 validate "$tmp/deep-good.ini"
contains "$tmp/stdout" "jobs in the trace" "gpusim validate: the trace's job count"

# Jobs submitted at the same instant are decided together: a long job and
# a short one both at 0 s on one GPU, shortest-first, start short one first
# (deciding after each arrival would start the long one, alone in the queue).
printf '1 0 -1 3600 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n2 0 -1 60 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n' \
    >"$tmp/tie.swf"
printf '[scenario]\nname = tie\n[pool a]\nmodel = DGX-H100\ncount = 1\ngpus_per_node = 1\n[workload]\nsource = swf\ntrace = %s\n[policy]\nqueue = sjf\nsjf_estimate = exact\n' \
    "$tmp/tie.swf" >"$tmp/tie.ini"
expect 0 run -q -o "$tmp/tie" "$tmp/tie.ini"
if [ -n "$PYTHON" ]; then
    "$PYTHON" - "$tmp/tie/jobs.csv" <<'EOF' || fail "simultaneous arrivals are not decided together"
import csv, sys
rows = {r["id"]: float(r["start_s"]) for r in csv.DictReader(open(sys.argv[1], newline=""))}
sys.exit(0 if rows == {"2": 0.0, "1": 60.0} else "starts: %r" % rows)
EOF
fi

# [cluster] mig_reconfigure_time: creating a job's MIG instance takes that
# much wall time, so one MIG job's completion moves by exactly the
# difference (60 s - 10 s = 50 s).
cat >"$tmp/migtime.ini" <<'EOF'
[scenario]
name = migtime
[pool a]
model = DGX-A100
count = 1
[workload]
rate = 1/h
jobs = 1
[class inf]
gpus = 1
mig = 3g.20gb
duration = constant(1h)
EOF
expect 0 run --json "$tmp/migtime.ini"
cp "$tmp/stdout" "$tmp/mig10.json"
expect 0 run --json --set cluster.mig_reconfigure_time=60s "$tmp/migtime.ini"
if [ -n "$PYTHON" ]; then
    "$PYTHON" - "$tmp/mig10.json" "$tmp/stdout" <<'EOF' || fail "mig_reconfigure_time does not move a MIG job by the difference"
import json, sys
a, b = (json.load(open(p))["metrics"]["jct_mean"]["value"] for p in sys.argv[1:3])
sys.exit(0 if abs((b - a) - 50.0) < 1e-6 else "JCT %r then %r" % (a, b))
EOF
fi
expect 1 run --set cluster.mig_reconfigure_time=10 "$tmp/migtime.ini"
contains "$tmp/stderr" "mig_reconfigure_time" "mig_reconfigure_time without a unit"

# ---- A scheduling cycle -------------------------------------------------------

# With [policy] interval = 60s every job starts on a multiple of 60 s; with
# easy and backfill_interval = 25s some start on multiples of 25 s that are
# not multiples of 60 s (the backfill passes); waits grow with the cycle;
# allocated GPU time still equals the jobs' GPU time (the state between a
# completion and the next pass is accounted).
cat >"$tmp/cadence.ini" <<'EOF'
[scenario]
name = cadence
seed = 3
horizon = 3d

[pool a]
model = DGX-H100
count = 4

[workload]
rate = 4/h
estimate_factor = 1.5

[class s]
share = 3
gpus = 1:0.5, 2:0.2, 4:0.3
duration = lognormal(median=30min, sigma=1)

[class l]
share = 1
gpus = 8:0.5, 32:0.5
duration = exponential(mean=3h)

[policy]
queue = easy
EOF
expect 0 run -q -o "$tmp/cad0" "$tmp/cadence.ini"
expect 0 run -q -o "$tmp/cad60" --set policy.interval=60s "$tmp/cadence.ini"
expect 0 run -q -o "$tmp/cad600" --set policy.interval=10min "$tmp/cadence.ini"
expect 0 run -q -o "$tmp/cadbf" --set policy.interval=60s --set policy.backfill_interval=25s \
    "$tmp/cadence.ini"
if [ -n "$PYTHON" ]; then
    "$PYTHON" - "$tmp" <<'EOF' || fail "gpusim run: scheduling cycle"
import csv, json, os, sys
d = sys.argv[1]
def load(name):
    with open(os.path.join(d, name, "jobs.csv"), newline="") as f:
        starts = [round(float(r["start_s"])) for r in csv.DictReader(f)]
    with open(os.path.join(d, name, "summary.json")) as f:
        m = {k: v["value"] for k, v in json.load(f)["metrics"].items()}
    if abs(m["allocated_gpu_seconds"] - m["job_gpu_seconds"]) > 1e-6 * m["job_gpu_seconds"]:
        sys.exit("%s: allocated %g GPU-s, jobs %g" % (name, m["allocated_gpu_seconds"],
                                                     m["job_gpu_seconds"]))
    return starts, m
s0, m0 = load("cad0")
s60, m60 = load("cad60")
s600, m600 = load("cad600")
sbf, mbf = load("cadbf")
if any(s % 60 for s in s60) or any(s % 600 for s in s600):
    sys.exit("a start off the cycle")
if all(s % 60 == 0 for s in s0):
    sys.exit("without a cycle every start is on a minute: the check proves nothing")
if any(s % 60 and s % 25 for s in sbf) or not any(s % 60 and s % 25 == 0 for s in sbf):
    sys.exit("backfill passes: starts not on the 60 s and 25 s ticks")
if not m0["wait_mean"] < m60["wait_mean"] < m600["wait_mean"]:
    sys.exit("mean waits %g, %g, %g do not grow with the cycle"
             % (m0["wait_mean"], m60["wait_mean"], m600["wait_mean"]))
EOF
fi
expect 1 run --set policy.backfill_interval=30s "$QUICKSTART"
contains "$tmp/stderr" "only the easy queue backfills" "gpusim run: backfill_interval on fifo"
expect 1 run --set policy.interval=60 "$QUICKSTART"
contains "$tmp/stderr" "--set policy.interval" "gpusim run: interval without a unit"

# ---- Traces that give no job, rows skipped -----------------------------------

# A trace with a header and no rows, or whose every row is skipped as invalid,
# is an error (exit 1), not an empty run; rows skipped under skip_invalid are
# counted in the summary (trace_rows_skipped) and said in the text.
printf 'timestamp,duration,num_gpus,gpu_time,cluster\n' >"$tmp/no-rows.csv"
printf '[scenario]\nname = e\n[pool a]\nmodel = DGX-A100\ncount = 1\n[workload]\nsource = philly\ntrace = %s\nskip_invalid = true\n' \
    "$tmp/no-rows.csv" >"$tmp/no-rows.ini"
expect 1 run "$tmp/no-rows.ini"
contains "$tmp/stderr" "no job to simulate: the trace has no rows" "a trace with no rows"
printf 'timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:45,30.0,0,0,6214e9\n' \
    >"$tmp/no-rows.csv"
expect 1 run "$tmp/no-rows.ini"
contains "$tmp/stderr" "every one of its 1 rows was skipped" "a trace whose rows are all skipped"
printf '2017-10-01 00:00:46,30.0,1,30,6214e9\n' >>"$tmp/no-rows.csv"
expect 0 run "$tmp/no-rows.ini"
contains "$tmp/stdout" "skipped       1 trace row as invalid" "a trace with a skipped row"
expect 0 run --json "$tmp/no-rows.ini"
contains "$tmp/stdout" '"trace_rows_skipped"' "trace_rows_skipped in the JSON"

# ---- validate ---------------------------------------------------------------

# A run of hours or gigabytes is refused with the estimate and the key to
# change (1,000 jobs/s over 14 days: 1.21e9 jobs), unless --force.
expect 1 run --set workload.rate=1000/s "$QUICKSTART"
contains "$tmp/stderr" "--set workload.rate" "gpusim run: size limit (key)"
contains "$tmp/stderr" "1.21e+09 jobs" "gpusim run: size limit (estimate)"
expect 1 validate --set output.timeseries_interval=1ns --set workload.rate=1000/s "$QUICKSTART"
contains "$tmp/stderr" "--force" "gpusim validate: size limit"
expect 0 validate --force --set workload.rate=1000/s "$QUICKSTART"
contains "$tmp/stdout" "about 1,209,600,000 jobs" "gpusim validate --force: the estimate"

# A MIG profile that is well-formed but exists on no GPU of the cluster.
cat >"$tmp/mig.ini" <<'EOF'
[scenario]
name = mig
horizon = 1d

[pool a]
model = DGX-A100
count = 1

[workload]
rate = 3/h

[class inf]
gpus = 1
mig = 9g.90gb
duration = constant(1h)
EOF
expect 1 validate "$tmp/mig.ini"
contains "$tmp/stderr" "$tmp/mig.ini:14: [class inf] mig:" "gpusim validate: MIG profile (line)"
contains "$tmp/stderr" '3g.20gb' "gpusim validate: MIG profile (the profiles offered)"
sed -i 's/9g.90gb/3g.20gb/' "$tmp/mig.ini"
expect 0 validate "$tmp/mig.ini"

# Errors inside [variant] sections: validate builds every variant and gives
# the variant's own line; compare says the same.
cat >"$tmp/variants.ini" <<'EOF'
[scenario]
name = variants
horizon = 1d

[pool a]
model = DGX-H100
count = 2

[fabric]
topology = fat-tree
switch = Quantum-2-QM9700
link = IB-NDR

[workload]
rate = 3/h
gpus = 8
duration = constant(1h)

[variant good]
fabric.oversubscription = 2

[variant bad]
fabric.oversubscription = 2
fabric.link = IB-NDX

[variant worse]
workload.rate = 3
EOF
expect 1 validate "$tmp/variants.ini"
contains "$tmp/stderr" "$tmp/variants.ini:24: [variant bad] fabric.link:" "gpusim validate: variant (line)"
contains "$tmp/stderr" 'did you mean "IB-NDR"' "gpusim validate: variant (suggestion)"
contains "$tmp/stderr" "$tmp/variants.ini:27: [variant worse] workload.rate:" "gpusim validate: second variant"
expect 1 compare "$tmp/variants.ini" --seeds 1
contains "$tmp/stderr" "$tmp/variants.ini:24: [variant bad] fabric.link:" "gpusim compare: variant (line)"

# A duplicate section would silently merge: it is refused.
printf '[pool a]\nmodel = DGX-A100\n' >>"$tmp/variants.ini"
expect 1 validate "$tmp/variants.ini"
contains "$tmp/stderr" "$tmp/variants.ini:28: [pool a]: duplicate section" "gpusim validate: duplicate section"


for f in "$SIM_TOP_SRCDIR"/scenarios/*.ini; do
    expect 0 validate "$f"
    contains "$tmp/stdout" "valid" "gpusim validate $(basename "$f")"
done
expect 1 validate "$QUICKSTART" "$tmp/bad.ini"
contains "$tmp/stdout" "$QUICKSTART" "gpusim validate good bad (the good one)"
contains "$tmp/stderr" "$tmp/bad.ini:10:" "gpusim validate good bad (the bad one)"
expect 2 validate

# ---- A run that fails part-way writes nothing -----------------------------

# Four good jobs, then a malformed line 5: the failure comes during the run.
cat >"$tmp/bad.swf" <<'EOF'
1    0 -1 3600 8 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1
2   60 -1 3600 8 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1
3  120 -1 3600 8 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1
4  180 -1 3600 8 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1
5  240 -1 this is not a job
EOF
cat >"$tmp/swf.ini" <<'EOF'
[scenario]
name = bad trace

[pool a]
model = DGX-H100
count = 2

[workload]
source = swf
trace = bad.swf
EOF
mkdir "$tmp/failed"
expect 1 run -o "$tmp/failed" "$tmp/swf.ini"
contains "$tmp/stderr" "bad.swf:5" "gpusim run with a malformed trace"
leftover=$(ls -A "$tmp/failed")
[ -z "$leftover" ] || fail "gpusim run -o with a failing run left files: $leftover"

# ---- models -----------------------------------------------------------------

expect 0 models
contains "$tmp/stdout" "H100-SXM" "gpusim models"
contains "$tmp/stdout" "DGX-H100" "gpusim models"
contains "$tmp/stdout" "AWS-p5.48xlarge" "gpusim models: cloud instances"
contains "$tmp/stdout" "\$98.32" "gpusim models: on-demand price"
expect 0 models show H100-SXM
contains "$tmp/stdout" "989" "gpusim models show H100-SXM"
expect 1 models show H100
contains "$tmp/stderr" "did you mean" "gpusim models show H100"
expect 0 models show AWS-p4d.24xlarge
contains "$tmp/stdout" "reserved: \$14.75 per hour" "gpusim models show: a cloud instance"
contains "$tmp/stdout" "Capacity Blocks" "gpusim models show: what reserved means"
expect 0 models --json
"$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); assert any(c["name"]=="AWS-p5e.48xlarge" and c["reserved_usd_per_hour"]==43.26 for c in d["clouds"])' <"$tmp/stdout" ||
    fail "gpusim models --json lacks the cloud instances"

# ---- shared GPUs --------------------------------------------------------------

# The summary prints allocation and activity apart; a bad activity, memory
# share or sharing mode is refused with its file, line and key.
MIGINF="$SIM_TOP_SRCDIR/scenarios/mig-inference.ini"
expect 0 run "$MIGINF"
contains "$tmp/stdout" "100.0 % of GPU capacity allocated" "gpusim run: allocation"
contains "$tmp/stdout" "activity      20.0 % of GPU capacity busy" "gpusim run: activity"
expect 0 run "$MIGINF" --set "class inference.mig=1g.5gb"
contains "$tmp/stdout" "activity      90.7 %" "gpusim run: activity on 1g.5gb slices"
expect 1 run "$MIGINF" --set "class inference.activity=1.5"
contains "$tmp/stderr" "--set class inference.activity: \"1.5\"" "gpusim run with activity above 1"
sed 's/^memory_bound = 0.3$/memory_bound = 1.3/' "$MIGINF" >"$tmp/bad-share.ini"
expect 1 validate "$tmp/bad-share.ini"
contains "$tmp/stderr" "bad-share.ini:" "gpusim validate with memory_bound above 1: file"
contains "$tmp/stderr" "[class inference] memory_bound" "gpusim validate with memory_bound above 1: key"
expect 1 run "$MIGINF" --set "cluster.sharing=vgpu"
contains "$tmp/stderr" "expected time-slice or mps" "gpusim run with an unknown sharing mode"
expect 0 models show A100-SXM-40GB
contains "$tmp/stdout" "SMs: 108" "gpusim models show: the GPU's SMs"

# ---- topo and collective ----------------------------------------------------

FABRIC="$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini"
expect 0 topo "$FABRIC" --set fabric.oversubscription=2 --diagram "$tmp/net.svg"
contains "$tmp/stdout" "switches      17" "gpusim topo at 2:1"
contains "$tmp/net.svg" "<svg" "gpusim topo --diagram"
expect 0 topo "$FABRIC" --json
"$PYTHON" -c 'import json,sys; json.load(sys.stdin)' <"$tmp/stdout" ||
    fail "gpusim topo --json is not JSON"
expect 1 topo "$FABRIC" --diagram "$tmp/net.gif"
contains "$tmp/stderr" "expected dot, svg, png or pdf" "gpusim topo --diagram with a bad format"
[ ! -e "$tmp/net.gif" ] || fail "gpusim topo left a diagram in an unknown format"
expect 1 topo "$FABRIC" --set fabric.switch=Quantum-2-QM970
contains "$tmp/stderr" "did you mean" "gpusim topo with an unknown switch"
expect 0 collective "$FABRIC" --op all_reduce --gpus 16 --min 1M --max 1G
contains "$tmp/stdout" "1073741824" "gpusim collective"
expect 2 collective "$FABRIC" --op all_reduce

# Latency keys: a latency with no unit or a negative one is refused, naming
# the file, line and key; a longer transport latency makes 8 B slower.
EIB="$SIM_TOP_SRCDIR/scenarios/fabric-ethernet-vs-infiniband.ini"
expect 0 collective "$EIB" --gpus 16 --min 8B --max 8B
ib_us=$(awk '$1 == 8 { print $6 }' "$tmp/stdout")
expect 0 collective "$EIB" --gpus 16 --min 8B --max 8B --set fabric.transport_latency=20us
tcp_us=$(awk '$1 == 8 { print $6 }' "$tmp/stdout")
awk -v a="$ib_us" -v b="$tcp_us" 'BEGIN { exit !(b > a + 30) }' ||
    fail "gpusim collective: 8 B takes $ib_us us on InfiniBand, $tcp_us us with 20 us per message"
sed 's/^topology = fat-tree$/topology = fat-tree\ntransport_latency = 20/' "$EIB" >"$tmp/lat.ini"
expect 1 collective "$tmp/lat.ini" --gpus 16
contains "$tmp/stderr" "lat.ini:" "a latency without a unit: the file"
contains "$tmp/stderr" "[fabric] transport_latency" "a latency without a unit: the key"
contains "$tmp/stderr" "no unit" "a latency without a unit: what was wrong"
expect 1 run "$EIB" --set fabric.cable_length=-3m
contains "$tmp/stderr" "cable_length" "a negative cable length: the key"
contains "$tmp/stderr" "non-negative" "a negative cable length: what was expected"

# ---- scaling ------------------------------------------------------------------

MD="$SIM_TOP_SRCDIR/scenarios/scaling-molecular-dynamics.ini"
RENDER="$SIM_TOP_SRCDIR/scenarios/scaling-render.ini"
expect 0 scaling "$MD"
contains "$tmp/stdout" "       8      5.50       68.7 %    0.182" "gpusim scaling: MD at 5.50x on 8 A100"
expect 0 scaling "$RENDER" --gpus 1,4,8
contains "$tmp/stdout" "       8      7.28       91.0 %    0.137" "gpusim scaling: render at 7.28x on 8"
expect 0 scaling "$MD" --set "class md.serial_fraction=0.2"
contains "$tmp/stdout" "       8      3.33" "gpusim scaling --set serial_fraction"
expect 1 scaling "$MD" --set "class md.serial_fraction=1"
contains "$tmp/stderr" "--set class md.serial_fraction: serial fraction 1" "gpusim scaling with serial_fraction = 1"
contains "$tmp/stderr" "[0, 1)" "gpusim scaling with serial_fraction = 1"
expect 1 run "$RENDER" --set "class render.speedup=2:1.9, 4:1.5"
contains "$tmp/stderr" "must not decrease" "gpusim run with a decreasing scaling table"
expect 1 run "$MD" --set "class md.throughput=A100-SXM-40G:1"
contains "$tmp/stderr" "did you mean" "gpusim run with an unknown throughput model"
expect 2 scaling "$MD" --gpus 0,8
expect 2 scaling
# The answers the scenarios' comments and the README give.
expect 0 compare "$MD"
contains "$tmp/stdout" "-23.5% *" "MD: 4 GPUs rather than 8 cut the mean JCT by 23.5 %"
contains "$tmp/stdout" "-29.5% *" "MD: 4 to 8 GPUs cut the mean JCT by 29.5 %"
expect 0 compare "$RENDER"
contains "$tmp/stdout" "+20.5% *" "render: 4 GPUs rather than 8 raise the mean JCT by 20.5 %"

# ---- cost ---------------------------------------------------------------------

# Own against rent: the figures the scenario's comments and the README give.
COST="$SIM_TOP_SRCDIR/scenarios/cost-own-rent.ini"
expect 0 run "$COST"
contains "$tmp/stdout" "capex         \$6,048,080" "gpusim run cost-own-rent: capex"
contains "$tmp/stdout" "\$4.916/GPU-h" "gpusim run cost-own-rent: the reserved price"
contains "$tmp/stdout" "kgCO2e)" "gpusim run cost-own-rent: energy and emissions counted"
expect 0 run "$COST" --set cost.energy_price=0
contains "$tmp/stdout" "MWh not priced" "cost-own-rent with power but no energy price"
# Without the power model: capex, maintenance and rent only, and the summary says so.
sed '/^\[power\]$/,/^type = air$/d' "$COST" >"$tmp/cost-no-power.ini"
expect 0 run "$tmp/cost-no-power.ini"
contains "$tmp/stdout" "owning is cheaper above 27.4 % utilization" "cost-own-rent without power: break-even against reserved"
contains "$tmp/stdout" "not counted" "cost-own-rent without power: energy not counted"
expect 0 run "$COST" --json
"$PYTHON" -c 'import json,sys; m=json.load(sys.stdin)["metrics"]; assert m["cost_per_gpu_hour"]["unit"]=="USD/GPU-h" and m["cost_emissions"]["unit"]=="kgCO2e"' <"$tmp/stdout" ||
    fail "gpusim run --json: cost metrics with their units"
expect 0 compare "$COST" -n 2 -q -m cost_per_gpu_hour -m cost_break_even_reserved
contains "$tmp/stdout" "cost_break_even_reserved (fraction)" "gpusim compare --metric cost_break_even_reserved"
contains "$tmp/stdout" "high" "gpusim compare cost-own-rent: its variants"
expect 1 run "$COST" --set cost.cloud=AWS-p5.48xlarg
contains "$tmp/stderr" "did you mean \"AWS-p5.48xlarge\"" "gpusim run with an unknown cloud"
printf 'hour,usd_per_kwh\n0,0.08\nnoon,0.2\n' >"$tmp/tou.csv"
expect 1 run "$COST" --set cost.energy_price=0 --set "cost.energy_price_file=$tmp/tou.csv"
contains "$tmp/stderr" "tou.csv:3: hour:" "gpusim run with a bad time-of-use row"
expect 1 validate "$COST" --set cost.maintenance=1.5
contains "$tmp/stderr" "--set cost.maintenance" "gpusim validate with a bad [cost] key"

# ---- Own, rent or burst (scenarios/own-rent-burst.ini) ------------------------

ORB="$SIM_TOP_SRCDIR/scenarios/own-rent-burst.ini"
expect 0 run "$ORB" --set workload.rate=3.9/h --json
"$PYTHON" -c '
import json, sys
m = json.load(sys.stdin)["metrics"]
v = lambda k: m[k]["value"]
assert abs(v("cost_total") - (v("cost_tco") + v("burst_cost"))) <= 1e-9 * v("cost_total"), "total"
assert v("burst_cost") > 0 and v("power_it_peak") <= 16 * 10200, "cloud nodes draw nothing here"
assert v("cost_capex_nodes") == 16 * 270000, "only our 16 nodes are bought"
' <"$tmp/stdout" || fail "own-rent-burst: the total bill is owning plus bursting, the cloud is not ours"
expect 0 compare "$ORB" -n 3 -q -m cost_total -m wait_mean
contains "$tmp/stdout" "341007 [311841, 367416]" "own-rent-burst: the README's cost of bursting at the high load"

# ---- Elastic capacity (scenarios/burst.ini) ----------------------------------

BURST="$SIM_TOP_SRCDIR/scenarios/burst.ini"
expect 0 run "$BURST" -o "$tmp/burst"
contains "$tmp/stdout" "burst         " "gpusim run burst.ini prints the bill"
contains "$tmp/stdout" "at \$98.32/node-hour" "burst.ini: the catalogue's p5.48xlarge price"
contains "$tmp/stdout" "serverless    " "gpusim run burst.ini prints the serverless bill"
contains "$tmp/burst/summary.json" '"burst_cost"' "burst.ini: burst_cost in summary.json"
contains "$tmp/burst/summary.json" '"unit" : "USD"' "burst.ini: costs in USD"
contains "$tmp/burst/jobs.csv" ",preemptions,where" "burst.ini: jobs.csv says where jobs ran"
contains "$tmp/burst/jobs.csv" ",cloud" "burst.ini: some jobs ran in the cloud"
contains "$tmp/burst/jobs.csv" ",serverless" "burst.ini: some jobs ran as functions"
# The answers the scenario's comment and the README give.
expect 0 compare "$BURST" --seeds 10 --metric wait_mean --metric burst_cost \
    --metric serverless_cost
contains "$tmp/stdout" "-98.9% *" "burst.ini: bursting cuts the mean wait by 98.9 %"
contains "$tmp/stdout" "107642 [83791, 135283]" "burst.ini: what bursting costs over 14 days"
if grep -q ",cluster+cloud$" "$tmp/burst/jobs.csv"; then fail "burst.ini: a job spans our nodes and the cloud's"; fi
contains "$tmp/stdout" "154.2 [145.7, 162.3]" "burst.ini: what the serverless functions cost"
expect 1 run "$BURST" --set elastic.scale_up_wait=15
contains "$tmp/stderr" "--set elastic.scale_up_wait: " "gpusim run with a bad [elastic] key"
sed 's/^startup = 5min/startup = soon/' "$BURST" >"$tmp/burst-bad.ini"
expect 1 validate "$tmp/burst-bad.ini"
line=$(grep -n '^startup' "$BURST" | cut -d: -f1)
contains "$tmp/stderr" "burst-bad.ini:$line: [elastic] startup: " "gpusim validate: a bad [elastic] key's line"
expect 1 run "$BURST" --set elastic.cloud=AWS-p4d.24xlarge
contains "$tmp/stderr" "its price is not theirs" "gpusim run with a cloud instance unlike the pool"

# ---- fgd (the FGD study's experiment) ----------------------------------------

ONODES="$SIM_TOP_SRCDIR/tests/data/openb-nodes.csv"
OPODS="$SIM_TOP_SRCDIR/tests/data/openb-pods.csv"
expect 0 fgd --nodes "$ONODES" --pods "$OPODS" --seeds 2 -q
contains "$tmp/stdout" "variant     paper" "gpusim fgd"
contains "$tmp/stdout" "fgd " "gpusim fgd"
cp "$OPODS" "$tmp/openb_pod_list_gpushare100.csv"
expect 0 fgd --nodes "$ONODES" --pods "$tmp/openb_pod_list_gpushare100.csv" --seeds 1 -q
contains "$tmp/stdout" "beside the paper's" "gpusim fgd on a published list name"
contains "$tmp/stdout" "86.90" "gpusim fgd prints the paper's FGD figure for gpushare100"
expect 0 fgd --variant gpusim -p first-fit --nodes "$ONODES" --pods "$OPODS" --seeds 1 -q
contains "$tmp/stdout" "variant     gpusim" "gpusim fgd --variant gpusim"
expect 2 fgd --variant kubernetes --nodes "$ONODES" --pods "$OPODS"
contains "$tmp/stderr" "expected paper or gpusim" "gpusim fgd --variant with a bad name"
expect 1 fgd -p first-fit --nodes "$ONODES" --pods "$OPODS" --seeds 1 -q
contains "$tmp/stderr" "dot-product" "gpusim fgd with a policy the paper did not run"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1024,1,1000\nq,1000,1024,9x,1000\n' \
    >"$tmp/bad-pods.csv"
expect 1 fgd --nodes "$ONODES" --pods "$tmp/bad-pods.csv" -q
contains "$tmp/stderr" "bad-pods.csv:3:" "gpusim fgd with a malformed pod list"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn,64000,262144,2,\n' >"$tmp/bad-nodes.csv"
expect 1 fgd --nodes "$tmp/bad-nodes.csv" --pods "$OPODS" -q
contains "$tmp/stderr" "bad-nodes.csv:2:" "gpusim fgd with a malformed node list"

# ---- Traces: times past the end of simulated time, rows out of order --------

# trace_scenario SOURCE TRACE [KEY = VALUE]...: a one-node scenario replaying TRACE.
trace_scenario () {
    src=$1
    trace=$2
    shift 2
    printf '[scenario]\nname = trace\n[pool a]\nmodel = DGX-A100\ncount = 1\n' >"$tmp/trace.ini"
    printf '[workload]\nsource = %s\ntrace = %s\n' "$src" "$trace" >>"$tmp/trace.ini"
    for kv in "$@"; do printf '%s\n' "$kv" >>"$tmp/trace.ini"; done
}

PHILLY_HEADER=timestamp,duration,num_gpus,gpu_time,cluster
# A date after 2262-04-11 does not fit in nanoseconds from 1970.
printf '%s\n2017-10-01 00:00:00,60.0,1,60.0,vc\n2263-01-01 00:00:00,60.0,1,60.0,vc\n' \
    "$PHILLY_HEADER" >"$tmp/late.csv"
trace_scenario philly "$tmp/late.csv" "rebase_time = false"
expect 1 run "$tmp/trace.ini"
contains "$tmp/stderr" "late.csv:3: timestamp: the submit time is" "a Philly row dated 2263"
contains "$tmp/stderr" "after 2262-04-11" "a Philly row dated 2263"
# A run time of 1e10 s (317 years).
printf '%s\n2017-10-01 00:00:00,1e10,1,1e10,vc\n' "$PHILLY_HEADER" >"$tmp/long.csv"
trace_scenario philly "$tmp/long.csv"
expect 1 run "$tmp/trace.ini"
contains "$tmp/stderr" "long.csv:2: duration \"1e10\" is 292 years or more" "a Philly run time of 1e10 s"
# An SWF run time that overflows nanoseconds.
printf '1 0 -1 9223372036 8 -1 -1 8 -1 -1 1 1 1 -1 -1 -1 -1 -1\n' >"$tmp/long.swf"
trace_scenario swf "$tmp/long.swf"
expect 1 run "$tmp/trace.ini"
contains "$tmp/stderr" "long.swf:1: field 4 (run time) is too large" "an SWF run time of 9223372036 s"
# A Slurm Elapsed of 99999999 days.
printf 'Submit|User|Account|State|Elapsed|AllocTRES\n2024-03-04T09:00:00|u|a|COMPLETED|99999999-00:00:00|gres/gpu=1\n' \
    >"$tmp/long.txt"
trace_scenario slurm "$tmp/long.txt"
expect 1 run "$tmp/trace.ini"
contains "$tmp/stderr" "long.txt:2:" "a Slurm Elapsed of 99999999 days"
contains "$tmp/stderr" "Elapsed: 8639999913600 s is more than the 292 years" \
    "a Slurm Elapsed of 99999999 days"
# Two whole-node jobs of 5e9 s each: the second could only end at 1e10 s,
# past the end of simulated time, so the run fails naming it.
printf '1 0 -1 5000000000 8 -1 -1 8 -1 -1 1 1 1 -1 -1 -1 -1 -1\n2 1 -1 5000000000 8 -1 -1 8 -1 -1 1 1 1 -1 -1 -1 -1 -1\n' \
    >"$tmp/never.swf"
trace_scenario swf "$tmp/never.swf"
expect 1 run "$tmp/trace.ini"
contains "$tmp/stderr" "job 2 cannot finish" "a job that would end past the end of time"
# A time series sampled every 100 years while a 285-year job runs: the
# sample after 200 years would lie past the end of simulated time (292
# years), so it is not taken, and the run's last row at the job's end
# covers the rest: rows at 100 and 200 years and at 285 years.
printf '1 0 -1 9000000000 8 -1 -1 8 -1 -1 1 1 1 -1 -1 -1 -1 -1\n' >"$tmp/285y.swf"
trace_scenario swf "$tmp/285y.swf" "[output]" "timeseries_interval = 36500d" "timeseries = true"
expect 0 run "$tmp/trace.ini" -o "$tmp/285y"
[ "$(cut -d, -f1 "$tmp/285y/timeseries.csv" | tr '\n' ' ')" = \
  "time_s 3153600000.000000000 6307200000.000000000 9000000000.000000000 " ] ||
    fail "a time series past the end of simulated time: $(cut -d, -f1 "$tmp/285y/timeseries.csv" | tr '\n' ' ')"
# A lognormal tail long enough to draw durations past the end of time.
printf '[scenario]\nname = tail\n[pool a]\nmodel = DGX-A100\ncount = 1\n[workload]\nrate = 10/h\njobs = 200\ngpus = 1\nduration = lognormal(median=100d, sigma=10)\n' \
    >"$tmp/tail.ini"
expect 1 run "$tmp/tail.ini"
contains "$tmp/stderr" "would end past the end of simulated time" "a lognormal tail past the end of time"

# The first 300 rows of the published Philly list are in no particular
# order: 287 rows of reorder window put them in order, 286 do not.
PUBLISHED="$SIM_TOP_SRCDIR/tests/data/philly-published-head.csv"
trace_scenario philly "$PUBLISHED" "reorder_window = 0"
expect 1 run "$tmp/trace.ini"
contains "$tmp/stderr" "philly-published-head.csv:3: timestamp: submitted 2932 s before the row of line 2" \
    "an unsorted Philly list without a reorder window"
trace_scenario philly "$PUBLISHED" "reorder_window = 286 rows"
expect 1 run "$tmp/trace.ini"
contains "$tmp/stderr" "philly-published-head.csv:297: timestamp:" "a reorder window one row too small"
contains "$tmp/stderr" "raise [workload] reorder_window" "a reorder window one row too small"
contains "$tmp/stderr" "or set it to sort" "a reorder window one row too small"
trace_scenario philly "$PUBLISHED" "reorder_window = 287"
expect 0 run "$tmp/trace.ini" --json
mv "$tmp/stdout" "$tmp/unsorted.json"
# The same rows sorted by timestamp (stably), read strictly in order.
{ head -n 1 "$PUBLISHED"; tail -n +2 "$PUBLISHED" | sort -s -t, -k1,1; } >"$tmp/sorted.csv"
trace_scenario philly "$tmp/sorted.csv" "reorder_window = 0"
expect 0 run "$tmp/trace.ini" --json
"$PYTHON" - "$tmp/unsorted.json" "$tmp/stdout" <<'PY' || fail "the reordered Philly list differs from a sorted copy"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("workload", None)
if a != b:
    sys.exit("%s\n%s" % (a, b))
PY
# Sorting the whole trace through a temporary file gives the same run.
trace_scenario philly "$PUBLISHED" "reorder_window = sort"
expect 0 run "$tmp/trace.ini" --json
"$PYTHON" - "$tmp/unsorted.json" "$tmp/stdout" <<'PY' || fail "the sorted Philly list differs from the reordered one"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("workload", None)
if a != b:
    sys.exit("%s\n%s" % (a, b))
PY
# The default window holds the whole excerpt.
trace_scenario philly "$PUBLISHED"
expect 0 run "$tmp/trace.ini" --json
trace_scenario philly "$PUBLISHED" "reorder_window = many"
expect 1 validate "$tmp/trace.ini"
contains "$tmp/stderr" "reorder_window" "a malformed reorder_window"
contains "$tmp/stderr" "expected a number of rows from 0 to 100000000, or sort" "a malformed reorder_window"
expect 1 validate "$tmp/tail.ini" --set workload.reorder_window=10
contains "$tmp/stderr" "applies only to trace sources" "reorder_window on a synthetic workload"

# Routing: InfiniBand's default is D-mod-K, shown by topo and collective; on
# 16 nodes (128 GPUs over four leaves) a ring keeps the NIC bound under
# D-mod-K and loses to ECMP's hash collisions (check-routing works the
# numbers out); an unknown mode is refused with a suggestion, naming the
# file and line in a scenario.
expect 0 topo "$FABRIC"
contains "$tmp/stdout" "routing       dmodk (by the link kind)" "gpusim topo routing"
expect 0 topo "$FABRIC" --set fabric.routing=ecmp --json
contains "$tmp/stdout" '"routing" : "ecmp"' "gpusim topo --json routing"
expect 0 collective "$FABRIC" --op all_reduce --gpus 128 --algo ring --min 1G --max 1G --json
cp "$tmp/stdout" "$tmp/dmodk.json"
contains "$tmp/stdout" '"routing" : "dmodk"' "gpusim collective --json routing"
expect 0 collective "$FABRIC" --op all_reduce --gpus 128 --algo ring --min 1G --max 1G \
    --routing ecmp --json
cp "$tmp/stdout" "$tmp/ecmp.json"
"$PYTHON" - "$tmp/dmodk.json" "$tmp/ecmp.json" <<'PY' || fail "D-mod-K is not faster than ECMP"
import json, sys
d, e = (json.load(open(p))["rows"][0]["busbw_gbs"] for p in sys.argv[1:3])
sys.exit(0 if d > 1.5 * e else 1)
PY
expect 0 collective "$FABRIC" --op all_reduce --gpus 16 --min 1G --max 1G --routing spray
contains "$tmp/stdout" "# fabric fat-tree, routing spray" "gpusim collective --routing"
expect 2 collective "$FABRIC" --op all_reduce --gpus 16 --routing hashing
contains "$tmp/stderr" "unknown routing" "gpusim collective --routing hashing"
sed 's/^oversubscription = 1$/oversubscription = 1\nrouting = sprey/' "$FABRIC" >"$tmp/routing.ini"
line=$(grep -n '^routing = sprey' "$tmp/routing.ini" | cut -d: -f1)
expect 1 run "$tmp/routing.ini"
contains "$tmp/stderr" "routing.ini:$line: [fabric] routing: unknown routing \"sprey\": did you mean \"spray\"?" \
    "an unknown routing mode in a scenario"

# Sharing: an unknown mode in a scenario is refused with file, line, key
# and a suggestion; the two modes run (check-comm works their answers out).
sed 's/^oversubscription = 1$/oversubscription = 1\nsharing = demnd/' "$FABRIC" >"$tmp/sharing.ini"
line=$(grep -n '^sharing = demnd' "$tmp/sharing.ini" | cut -d: -f1)
expect 1 run "$tmp/sharing.ini"
contains "$tmp/stderr" "sharing.ini:$line: [fabric] sharing: unknown sharing \"demnd\"" \
    "an unknown sharing mode in a scenario"
contains "$tmp/stderr" 'did you mean "demand"' "an unknown sharing mode: suggestion"
expect 1 run --set fabric.sharing=sometimes "$FABRIC"
contains "$tmp/stderr" "always-on" "gpusim run --set fabric.sharing=sometimes"

# ---- gpusim trace info / convert, and the PAI, Gavel and native formats --

DATA="$SIM_TOP_SRCDIR/tests/data"
expect 0 trace --help
expect 2 trace
expect 2 trace frobnicate
expect 2 trace info
expect 2 trace info "$PUBLISHED" extra
expect 2 trace info --format csv "$PUBLISHED"
expect 2 trace convert "$PUBLISHED"
expect 2 trace info --throughput nonsense "$DATA/gavel-7field.trace"
expect 1 trace info "$tmp/no-such-trace.csv"
printf 'hello world\n' >"$tmp/what.txt"
expect 1 trace info "$tmp/what.txt"
contains "$tmp/stderr" "cannot tell the trace's format" "an unknown format"
# The published Philly head: 300 rows, a window of 287 rows.
expect 0 trace info "$PUBLISHED"
contains "$tmp/stdout" "format: philly" "trace info"
contains "$tmp/stdout" "jobs: 300" "trace info"
contains "$tmp/stdout" "reorder window needed: 287 rows" "trace info"
expect 0 trace info --json "$PUBLISHED"
"$PYTHON" - "$tmp/stdout" <<'PY' || fail "trace info --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["jobs"] == 300 and d["reorder_window_needed"] == 287, d
assert sum(d["arrivals_by_hour"]) == 300 and sum(d["gpus_per_job"].values()) == 300, d
PY
# PAI needs its task table; Gavel the throughput of each job type.
expect 1 trace info "$DATA/pai-job-table.csv"
contains "$tmp/stderr" "needs its task table" "PAI without tasks"
expect 0 trace info "$DATA/pai-job-table.csv" --tasks "$DATA/pai-task-table.csv"
contains "$tmp/stdout" "jobs: 5" "PAI trace info"
contains "$tmp/stdout" "skipped rows: 3" "PAI trace info"
expect 1 trace info "$DATA/gavel-7field.trace"
contains "$tmp/stderr" "gavel-7field.trace:1:1: job_type: no throughput for job type" "Gavel rates"
expect 0 trace info "$DATA/gavel-7field.trace" --throughput "ResNet-18 (batch size 32)=29.95" \
    --throughput "Transformer (batch size 64)=8.21"
contains "$tmp/stdout" "jobs: 3" "Gavel trace info"
# A malformed row: the file, line, column and field; exit 1.
printf 'id,submit,duration,gpus\n1,0,60,1\n2,later,60,1\n' >"$tmp/bad-native.csv"
expect 1 trace info "$tmp/bad-native.csv"
contains "$tmp/stderr" "bad-native.csv:3:3: submit: \"later\" is not a time" "a bad native row"
expect 1 trace convert "$tmp/bad-native.csv" -o "$tmp/bad-out.csv"
[ ! -e "$tmp/bad-out.csv" ] || fail "a failed convert left its output"
# Convert to the native CSV: it replays to the same report and jobs.csv.
expect 0 trace convert "$PUBLISHED" -o "$tmp/native.csv"
contains "$tmp/stderr" "wrote 300 jobs" "trace convert"
head -n 1 "$tmp/native.csv" | grep -q '^id,submit,duration,gpus,gpu_milli,gpu_model,tenant,priority,class,requested,cpu_milli,memory,mig,user,status$' \
    || fail "the native CSV header"
expect 0 trace info "$tmp/native.csv"
contains "$tmp/stdout" "format: native" "native detection"
contains "$tmp/stdout" "reorder window needed: 0 rows" "convert sorts"
trace_scenario philly "$PUBLISHED" "[policy]" "queue = fair-share"
expect 0 run -q -o "$tmp/run-philly" "$tmp/trace.ini"
trace_scenario native "$tmp/native.csv" "[policy]" "queue = fair-share"
expect 0 run -q -o "$tmp/run-native" "$tmp/trace.ini"
cmp -s "$tmp/run-philly/jobs.csv" "$tmp/run-native/jobs.csv" \
    || fail "the native CSV replays differently from the Philly list"
"$PYTHON" - "$tmp/run-philly/summary.json" "$tmp/run-native/summary.json" <<'PY' || fail "native summary"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("workload", None)
if a != b:
    sys.exit("%s\n%s" % (a, b))
PY
# Scenario keys of the new sources, and bad ones (exit 1, file:line).
trace_scenario pai "$DATA/pai-job-table.csv"
expect 1 validate "$tmp/trace.ini"
contains "$tmp/stderr" "trace.ini:6: [workload] task_table: missing key" "PAI without task_table"
trace_scenario pai "$DATA/pai-job-table.csv" "task_table = $DATA/pai-task-table.csv" "pai_tasks = most"
expect 1 validate "$tmp/trace.ini"
contains "$tmp/stderr" "[workload] pai_tasks: \"most\": expected sum" "a bad pai_tasks"
trace_scenario philly "$PUBLISHED" "task_table = x.csv"
expect 1 validate "$tmp/trace.ini"
contains "$tmp/stderr" "[workload] task_table: applies only to source = pai" "task_table on philly"
trace_scenario gavel "$DATA/gavel-7field.trace"
expect 1 validate "$tmp/trace.ini"
contains "$tmp/stderr" "a Gavel trace needs the throughput of its job types" "Gavel without classes"
trace_scenario gavel "$DATA/gavel-7field.trace" "[class ResNet-18 (batch size 32)]" "throughput = P100:41.58" \
    "[class Transformer (batch size 64)]" "throughput = V100-16GB:8.21"
expect 1 run "$tmp/trace.ini"
contains "$tmp/stderr" "[class ResNet-18 (batch size 32)] throughput: the throughput table does not list the reference GPU" "a Gavel class without the reference GPU"
trace_scenario gavel "$DATA/gavel-7field.trace" "[class ResNet-18 (batch size 32)]" "gpus = 2"
expect 1 validate "$tmp/trace.ini"
contains "$tmp/stderr" "[class ResNet-18 (batch size 32)] gpus: a Gavel job type's class takes only throughput" "a Gavel class key"
expect 0 run "$DATA/gavel-small.ini"
contains "$tmp/stdout" "20 completed" "the Gavel sample"
trace_scenario gavel "$DATA/gavel-7field.trace" "[class ResNet-18 (batch size 32)]" "throughput = V100-16GB:29.95" \
    "speedup = 2:3.147"
expect 1 validate "$tmp/trace.ini"
contains "$tmp/stderr" "trace.ini:11: [class ResNet-18 (batch size 32)] speedup: point 2: speed-up 3.147 on 2 GPUs is above 2" "a super-linear Gavel speed-up"
# Clusters from trace files.
printf '[scenario]\nname = c\n[pool pai]\nfrom = pai-machines:%s\n[workload]\nsource = pai\ntrace = %s\ntask_table = %s\n' \
    "$DATA/pai-machine-spec-excerpt.csv" "$DATA/pai-job-table.csv" "$DATA/pai-task-table.csv" >"$tmp/pai.ini"
expect 1 validate "$tmp/pai.ini"
contains "$tmp/stderr" "pai.ini:4: [pool pai] from: the list has 2 MISC machines" "MISC without misc_gpu"
expect 0 run "$tmp/pai.ini" --set "pool pai.misc_gpu=none"
contains "$tmp/stdout" "10 nodes, 56 GPUs" "the PAI machines without MISC"
expect 0 run "$tmp/pai.ini" --set "pool pai.misc_gpu=A10"
contains "$tmp/stdout" "12 nodes, 72 GPUs" "the PAI machines with MISC"
expect 1 run "$tmp/pai.ini" --set "pool pai.misc_gpu=A11"
contains "$tmp/stderr" "pool pai.misc_gpu: no GPU model \"A11\"" "a bad misc_gpu"
sed 's/^misc_gpu = .*//; s/^\[pool pai\]/[pool pai]\nmisc_gpu = B300/' "$tmp/pai.ini" >"$tmp/pai-b300.ini"
expect 1 validate "$tmp/pai-b300.ini"
contains "$tmp/stderr" "pai-b300.ini:4: [pool pai] misc_gpu: no GPU model \"B300\"" "a bad misc_gpu at its line"
expect 1 validate "$tmp/pai.ini" --set "pool pai.count=3"
contains "$tmp/stderr" "pool pai.count: does not go with from" "count with from"
expect 1 validate "$tmp/pai.ini" --set "pool pai.from=pai:$DATA/pai-machine-spec-excerpt.csv"
contains "$tmp/stderr" "expected pai-machines:PATH" "a bad from"
printf 'm1,P100,64,512,2\nm2,K80,64,512,2\n' >"$tmp/machines.csv"
expect 1 validate "$tmp/pai.ini" --set "pool pai.from=pai-machines:$tmp/machines.csv"
contains "$tmp/stderr" "machines.csv:2:4: gpu_type: \"K80\" is not a PAI GPU type" "a bad machine row"
printf '[scenario]\nname = v\n[pool philly]\nfrom = philly-vcs:%s\ngpu = P100\n[workload]\nsource = philly\ntrace = %s\n[policy]\nqueue = fair-share\n' \
    "$DATA/philly-vc-nodes.csv" "$DATA/philly-excerpt.csv" >"$tmp/vcs.ini"
expect 1 validate "$tmp/vcs.ini"
contains "$tmp/stderr" "[pool philly] gpus_per_node: missing key" "philly-vcs without gpus_per_node"
expect 0 run "$tmp/vcs.ini" --set "pool philly.gpus_per_node=8"
contains "$tmp/stdout" "352 nodes, 2,816 GPUs" "the Philly VCs"
printf 'vc,node num\n6214e9,64\n6214e9,2\n' >"$tmp/vcs.csv"
expect 1 validate "$tmp/vcs.ini" --set "pool philly.gpus_per_node=8" --set "pool philly.from=philly-vcs:$tmp/vcs.csv"
contains "$tmp/stderr" "vcs.csv:3:1: vc: \"6214e9\" is listed twice" "a VC listed twice"

# ---- power and cooling --------------------------------------------------------

POWER="$SIM_TOP_SRCDIR/scenarios/power-air.ini"
expect 0 run "$POWER" --set scenario.horizon=1d -o "$tmp/power"
contains "$tmp/stdout" "PUE" "gpusim run with [power]: the power line"
expect 0 run "$POWER"
contains "$tmp/stdout" "cooling cost  \$11,150, 8.9 % of the cost of owning" "power-air.ini: cooling's share of the cost, as its comment says"
head -n 1 "$tmp/power/timeseries.csv" | grep -q ',it_power_w,cooling_power_w,facility_power_w,pue$' ||
    fail "timeseries.csv has no power columns"
head -n 1 "$tmp/power/jobs.csv" | grep -q ',energy_kwh$' || fail "jobs.csv has no energy column"
"$PYTHON" - "$tmp/power" <<'PYEOF' || fail "energy_jobs_kwh is not the sum of jobs.csv's energy_kwh"
import csv, json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))["metrics"]
rows = list(csv.DictReader(open(d + "/jobs.csv")))
finished = sum(float(r["energy_kwh"]) for r in rows)
assert s["pue"]["unit"] == "ratio" and 1.0 < s["pue"]["value"] < 2.0, s["pue"]
assert s["energy_facility_kwh"]["unit"] == "kWh"
# Jobs still running at the end are charged too, so the sum of the rows is at most the total.
assert 0 < finished <= s["energy_jobs_kwh"]["value"] * (1 + 1e-9), (finished, s["energy_jobs_kwh"])
PYEOF
expect 0 run "$POWER" --set scenario.horizon=1d -o "$tmp/power2"
for f in summary.json jobs.csv timeseries.csv; do
    cmp -s "$tmp/power/$f" "$tmp/power2/$f" || fail "two runs with [power] differ in $f"
done
expect 0 models show liquid
contains "$tmp/stdout" "liquid: 0.75 of the heat" "gpusim models show a cooling model"
expect 0 compare "$POWER" --set scenario.horizon=1d --seeds 1 --metric pue --metric economizer_hours
contains "$tmp/stdout" "pue (ratio)" "gpusim compare --metric pue"
expect 1 run "$POWER" --set power.gpu_cap=5W
contains "$tmp/stderr" "idle" "gpusim run with a cap below idle"
# A cap above every GPU's TDP caps nothing; at the TDP it is accepted (a
# sweep's uncapped end).  POWER's GPUs are A100 of 400 W.
expect 1 run "$POWER" --set power.gpu_cap=401W
contains "$tmp/stderr" "power.gpu_cap: a cap of 401 W caps no GPU of the cluster: expected at most the highest TDP, 400 W" \
    "gpusim run with a cap above the TDP"
expect 0 run -q "$POWER" --set power.gpu_cap=400W --set scenario.horizon=1h
expect 1 run "$POWER" --set cooling.type=oil
contains "$tmp/stderr" "cooling.type: no cooling model \"oil\"" "gpusim run with an unknown cooling type"
printf '[scenario]\nname = w\nhorizon = 2h\n[pool a]\nmodel = DGX-A100\ncount = 1\n[workload]\nsource = synthetic\nrate = 1/h\njobs = 2\ngpus = 8\nduration = constant(1h)\n[power]\n[cooling]\noutdoor_csv = weather.csv\n' >"$tmp/weather.ini"
printf 'time_s,temperature_c\n0,20\n1h,hot\n' >"$tmp/weather.csv"
expect 1 run "$tmp/weather.ini"
contains "$tmp/stderr" "weather.csv:3: " "gpusim run with a bad weather CSV row"
printf 'time_s,temperature_c\n0,20\n1h,5\n' >"$tmp/weather.csv"
expect 0 run "$tmp/weather.ini" --json
"$PYTHON" -c 'import json,sys; m = json.load(sys.stdin)["metrics"]; assert m["economizer_hours"]["value"] == 1.0, m["economizer_hours"]' <"$tmp/stdout" ||
    fail "the weather CSV's hour below the economizer threshold"

# ---- power policies ---------------------------------------------------------

# The cap manager, the facility limit and consolidation from the command
# line: the figures the scenario's comments and the README give, the same
# bytes twice, keys that move the result, errors at the file's line.
CAPPING="$SIM_TOP_SRCDIR/scenarios/power-capping.ini"
expect 0 run --json "$CAPPING"
cp "$tmp/stdout" "$tmp/capping.json"
expect 0 run --json "$CAPPING"
cmp -s "$tmp/capping.json" "$tmp/stdout" || fail "power-capping: two runs differ"
"$PYTHON" - "$tmp/capping.json" <<'EOF' || fail "power-capping: the manager's metrics"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
assert m["power_manager_energy_saved"]["unit"] == "kWh"
assert m["power_manager_energy_saved"]["value"] > 0
assert m["power_manager_capped_gpu_hours"]["unit"] == "GPU*h"
assert m["power_manager_jct_change"]["value"] == 0
EOF
expect 0 compare "$CAPPING" --seeds 3 -q -m energy_facility_kwh -m jct_mean
contains "$tmp/stdout" "-611.5 ± 89.1    -3.0% *" "power-capping: caps lifted at once save 3.0 %"
contains "$tmp/stdout" "-754.3 ± 119.8    -3.7% *" "power-capping: caps lifted after 10 min save 3.7 %"
expect 0 run --json "$CAPPING" --set power_manager.enable=false --set facility.max_power=125kW
# Both modes keep the facility at or under its 125 kW at every instant; the
# other figures are the rows of the table in docs/power.md ("125 kW cap"
# and "125 kW hold"), at the precision the table prints them.
"$PYTHON" - "$tmp/stdout" <<'EOF' || fail "power-capping at 125 kW, cap mode"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
v = lambda k: m[k]["value"]
assert v("facility_time_over_limit") == 0
assert v("power_facility_peak") <= 125000 * (1 + 1e-9)
assert abs(v("facility_limit_jct_change_share") - 0.3748) < 0.001, m["facility_limit_jct_change_share"]
# docs/power.md: 40 % of the time at the limit, lowest cap 60 % of TDP,
# JCT +0.4 %, wait +3.6 s, energy -4.2 %.
assert round(v("facility_limit_time_share")) == 40, v("facility_limit_time_share")
assert round(v("facility_limit_lowest_cap")) == 60, v("facility_limit_lowest_cap")
assert round(v("facility_limit_wait_change"), 1) == 3.6, v("facility_limit_wait_change")
assert round(-v("facility_limit_energy_saved_share"), 1) == -4.2, v("facility_limit_energy_saved_share")
EOF
expect 0 run --json "$CAPPING" --set power_manager.enable=false --set facility.max_power=125kW \
    --set facility.limit_mode=hold
"$PYTHON" - "$tmp/stdout" <<'EOF' || fail "power-capping at 125 kW, hold mode"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
v = lambda k: m[k]["value"]
assert v("facility_time_over_limit") == 0
assert v("power_facility_peak") <= 125000 * (1 + 1e-9), v("power_facility_peak")
assert v("facility_limit_held_starts") > 0
assert "facility_limit_lowest_cap" not in m
# docs/power.md: 73 % of the time at the limit, JCT +24.7 %, wait
# +4,501 s, energy -1.7 %.
assert round(v("facility_limit_time_share")) == 73, v("facility_limit_time_share")
assert round(v("facility_limit_jct_change_share"), 1) == 24.7, v("facility_limit_jct_change_share")
assert round(v("facility_limit_wait_change")) == 4501, v("facility_limit_wait_change")
assert round(-v("facility_limit_energy_saved_share"), 1) == -1.7, v("facility_limit_energy_saved_share")
EOF
expect 1 run "$CAPPING" --set power_manager.low_cap=40W
contains "$tmp/stderr" "--set power_manager.low_cap: 40 W is at or below the idle power" "a cap below idle power"
sed 's/^low_cap = 150W$/low_cap = 40W/' "$CAPPING" >"$tmp/lowcap.ini"
expect 1 validate "$tmp/lowcap.ini"
contains "$tmp/stderr" "lowcap.ini:85: [power_manager] low_cap: 40 W" "a cap below idle power at its line"
expect 1 run "$CAPPING" --set facility.max_power=125kW --set facility.limit_mode=throttle
contains "$tmp/stderr" "facility.limit_mode" "a bad limit mode"
contains "$tmp/stderr" "cap" "a bad limit mode: what was expected"
expect 1 run "$CAPPING" --set power_manager.threshold=2
contains "$tmp/stderr" "threshold" "a threshold over 100 %"
expect 0 run "$QUICKSTART" --set policy.placement=consolidate
contains "$tmp/stdout" "fifo/consolidate" "gpusim run with the consolidating placement"

# ---- transfers ---------------------------------------------------------------
# Two 100 MB transfers into host 3 share its 50 GB/s NIC (25 GB/s each:
# 4 ms) and a third, 1 GB from 1 ms, has host 2's to itself (20 ms); each
# pays two links of 1 us on one switch.  By hand: 4.002, 4.002 and 20.002 ms.
printf 'src,dst,bytes,start\n0,3,100MB,0\n1,3,1e8,0\n2,0,1GB,1ms\n' >"$tmp/xfers.csv"
expect 0 transfers "$tmp/xfers.csv" --hosts 4 --topology single-switch -o "$tmp/xfers-out.csv"
no_stderr "gpusim transfers"
contains "$tmp/stdout" "3 transfers on 4 hosts" "gpusim transfers' summary"
contains "$tmp/stdout" "makespan         21.002000 ms" "gpusim transfers' makespan"
contains "$tmp/xfers-out.csv" "1,0,3,100000000,0.000000000,0.004002000,0.004002000," "a shared NIC"
contains "$tmp/xfers-out.csv" "2,1,3,100000000,0.000000000,0.004002000,0.004002000," "a shared NIC"
contains "$tmp/xfers-out.csv" "3,2,0,1000000000,0.001000000,0.021002000,0.020002000," "a NIC alone"
# A slower NIC and a longer latency lengthen the transfers: 8 and 40 ms
# of bytes, 10 us of links.
expect 0 transfers "$tmp/xfers.csv" --hosts 4 --topology single-switch --bandwidth 25GB/s \
    --link-latency 5us --json
"$PYTHON" - "$tmp/stdout" <<'EOF' || fail "gpusim transfers --json, slower NIC"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["transfers"] == 3, s
assert abs(s["makespan_s"] - 0.04101) < 1e-9, s
assert abs(s["duration_max_s"] - 0.04001) < 1e-9, s
EOF
# Each host-network key moves the times as worked out by hand: 1e6 bytes at
# 1 GB/s is 1 ms, plus 1 us per link crossed; hosts 0-2 send to 7-5.
printf 'src,dst,bytes\n0,7,1e6\n1,6,1e6\n2,5,1e6\n' >"$tmp/keys.csv"
# keys_case TOPOLOGY RADIX OVERSUBSCRIPTION MAKESPAN_MS
keys_case () {
    if [ "$1" = single-switch ]; then radix=""; else radix="--radix $2"; fi
    # shellcheck disable=SC2086 # $radix is empty or two words
    expect 0 transfers "$tmp/keys.csv" --hosts 8 --bandwidth 1GB/s --topology "$1" $radix \
        --oversubscription "$3" --json
    "$PYTHON" - "$tmp/stdout" "$4" <<'EOF' || fail "gpusim transfers --topology $1 --radix $2 --oversubscription $3"
import json, sys
s = json.load(open(sys.argv[1]))
assert abs(s["makespan_s"] * 1e3 - float(sys.argv[2])) < 1e-9, (s["makespan_s"], sys.argv[2])
EOF
}
keys_case single-switch 0 1 1.002   # one switch: two links
keys_case fat-tree 16 1 1.002       # a leaf of 16 ports holds all 8 hosts
keys_case fat-tree 4 1 1.004        # leaves of 2 hosts: a spine between, four links
keys_case fat-tree-3 4 1 1.006      # three tiers: six links
keys_case fat-tree 4 3 3.004        # leaves of 3 hosts share one uplink: a third each
# On a scenario's cluster, endpoints are its GPUs.
printf 'src,dst,bytes\n0,100,1GB\n8,100,1GB\n' >"$tmp/gpus.csv"
expect 0 transfers "$tmp/gpus.csv" --scenario "$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini"
contains "$tmp/stdout" "2 transfers on the 512 GPUs" "gpusim transfers on a scenario"
# Bad input: exit 1, naming the file, line, column and what was expected.
# bad_transfers NAME ROWS MESSAGE WHAT: ROWS written to NAME, run on 4 hosts,
# exit 1 with MESSAGE.
bad_transfers () {
  printf '%b' "$2" >"$tmp/$1"
  expect 1 transfers "$tmp/$1" --hosts 4
  contains "$tmp/stderr" "$3" "$4"
}
bad_transfers x-bad1.csv 'src,dst,bytes\n0,9,1MB\n' \
  "x-bad1.csv:2:3: dst: endpoint 9 does not exist: expected 0 to 3" "an endpoint out of range"
bad_transfers x-bad2.csv 'src,dst,byts\n0,1,1MB\n' "\"byts\", is not a known column" "an unknown column"
printf 'src,dst,bytes,start\n0,1,1MB,0\n0,1,1.5,0\n' >"$tmp/x-bad3.csv"
expect 1 transfers "$tmp/x-bad3.csv" --hosts 4 -o "$tmp/xfers-out.csv"
contains "$tmp/stderr" "x-bad3.csv:3:5: bytes: \"1.5\": expected whole bytes" "fractional bytes"
contains "$tmp/xfers-out.csv" "3,2,0,1000000000" "an earlier output left whole"
bad_transfers x-bad4.csv 'src,dst,bytes,start\n0,1,1MB,soon\n' \
  "x-bad4.csv:2:9: start: \"soon\": expected a time" "a bad start"
bad_transfers x-bad5.csv 'src,dst,bytes\n2,2,1MB\n' "is the source too" "a transfer to itself"
bad_transfers x-bad6.csv 'src,dst,bytes\n' "no transfers" "a file without rows"
expect 1 transfers "$tmp/no-such.csv" --hosts 4
expect 2 transfers "$tmp/xfers.csv"
expect 2 transfers "$tmp/xfers.csv" --hosts 1
expect 2 transfers "$tmp/xfers.csv" --hosts 4 --topology dragonfly
expect 2 transfers "$tmp/xfers.csv" --hosts 4 --bandwidth fast
# A ratio the leaves cannot hold with whole ports: built otherwise, and said.
expect 0 collective "$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini" -n 16 -b 1G -e 1G \
    --set fabric.oversubscription=3
contains "$tmp/stderr" "gpusim: warning: oversubscription 3:1 asked" "collective, a ratio not built"
expect 0 llm "$SIM_TOP_SRCDIR/scenarios/llm-70b-shared-fabric.ini" --model llama3-70b --tp 8 \
    --pp 4 --set fabric.oversubscription=3
contains "$tmp/stderr" "gpusim: warning: oversubscription 3:1 asked" "llm, a ratio not built"
expect 0 transfers "$tmp/xfers.csv" --hosts 64 --oversubscription 3
contains "$tmp/stderr" "gpusim: warning: oversubscription 3:1 asked" "transfers, a ratio not built"
contains "$tmp/stderr" "1 leaf of 16 NIC ports and 5 uplinks (3.2:1)" "transfers, the leaf built"
expect 2 transfers "$tmp/xfers.csv" --hosts 4 --radix -5
contains "$tmp/stderr" "--radix -5: expected at least 2 ports" "transfers --radix -5"
expect 2 transfers "$tmp/gpus.csv" --scenario "$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini" --radix 8

# ---- Warnings of the build ----------------------------------------------
# A 3:1 fabric of 8-NIC nodes on 64-port leaves cannot hold 3:1 on every leaf
# with whole nodes: run and validate say what was built, on stderr, and go on.
OVERSUB="$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini"
expect 0 run "$OVERSUB" --set fabric.oversubscription=3 --set scenario.horizon=1h
contains "$tmp/stderr" "gpusim: warning: oversubscription 3:1 asked" "run, a ratio not built"
contains "$tmp/stderr" "(2.91:1)" "run, the ratio built"
expect 0 validate "$OVERSUB" --set fabric.oversubscription=3
contains "$tmp/stderr" "gpusim: warning: oversubscription 3:1 asked" "validate, a ratio not built"
expect 0 run "$OVERSUB" --set fabric.oversubscription=2 --set scenario.horizon=1h
no_stderr "run, a ratio built exactly"

# ---- An algorithm an operation does not have -------------------------------
for algo in tree hierarchical; do
    expect 1 collective "$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini" -n 16 \
        --op all_gather --algo "$algo"
    contains "$tmp/stderr" "all_gather cannot use the $algo algorithm, which is for all_reduce only" \
        "collective --algo $algo on all_gather"
done

# ---- seek's tolerance: finite, at least 0 ---------------------------------
for tol in nan inf -1; do
    expect 2 seek "$SIM_TOP_SRCDIR/scenarios/quickstart.ini" --vary workload.rate \
        --target "wait_p95 <= 1h" --range 1/h..10/h --seeds 1 --tolerance "$tol"
    contains "$tmp/stderr" "--tolerance $tol: expected a finite width, at least 0" \
        "seek --tolerance $tol"
done

# ---- A section an override makes -----------------------------------------
# --set (or a sweep's key) may add a section; one left without a key it
# needs (most often a misspelt name) is refused saying the file has no such
# section and which override made it, with the sweep key's line.
expect 1 run "$SIM_TOP_SRCDIR/scenarios/quickstart.ini" --set "pool nosuch.count=12"
contains "$tmp/stderr" "[pool nosuch] model: missing key" "a pool made by --set, its key"
contains "$tmp/stderr" "(there is no [pool nosuch] in the file: --set pool nosuch.count made it)" \
    "a pool made by --set, the override named"
sed 's/^pool h100.count = .*/pool nosuch.count = 12/' \
    "$SIM_TOP_SRCDIR/scenarios/sweep-nodes-and-load.ini" >"$tmp/sweep-typo.ini"
line=$(grep -n '^pool nosuch.count' "$tmp/sweep-typo.ini" | cut -d: -f1)
expect 1 sweep "$tmp/sweep-typo.ini" --quiet
contains "$tmp/stderr" "[sweep] pool nosuch.count at line $line made it" "a pool made by a sweep key"
# A section added whole by --set still runs.
expect 0 run "$SIM_TOP_SRCDIR/scenarios/quickstart.ini" --quiet --set "pool b.model=DGX-A100" \
    --set "pool b.count=2"

# ---- Options that only qualify another ----------------------------------
# An option that says how another one works is refused without it, rather
# than ignored.
expect 2 llm "$SIM_TOP_SRCDIR/scenarios/llm-70b-shared-fabric.ini" --model llama3-70b --top 3
contains "$tmp/stderr" "--top needs --search" "llm --top without --search"
# A degree or batch of 0 given on the command line is refused, not taken
# for the default.
for opt in --tp --pp --cp --ep --micro-batch --global-batch; do
    expect 2 llm "$SIM_TOP_SRCDIR/scenarios/llm-70b-shared-fabric.ini" --model llama3-70b \
        "$opt" 0
    contains "$tmp/stderr" "0 is out of range" "llm $opt 0"
done
expect 2 llm "$SIM_TOP_SRCDIR/scenarios/llm-70b-shared-fabric.ini" --model llama3-70b --dp -5
contains "$tmp/stderr" "layout key dp: -5 is out of range" "llm --dp -5"
expect 2 serve "$SIM_TOP_SRCDIR/scenarios/serve-8b-assistant.ini" --deployment assistant \
    --max-replicas 4
contains "$tmp/stderr" "--max-replicas needs --target-p99-ttft" \
    "serve --max-replicas without --target-p99-ttft"
expect 2 serve "$SIM_TOP_SRCDIR/scenarios/serve-8b-assistant.ini" --deployment assistant \
    --target-p99-ttft 1s --max-replicas 0
contains "$tmp/stderr" "--max-replicas 0: expected at least 1" "serve --max-replicas 0"

echo "test-cli.sh: $checks commands checked"
exit 0
