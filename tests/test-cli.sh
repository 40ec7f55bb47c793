#!/bin/sh
# test-cli.sh: the gpusim command-line program, end to end.
#
# What it checks: the exit status of every subcommand (0 success, 1 bad
# input, 2 usage error) and of --help; that `run` prints its summary, that
# `run --json` is valid JSON and the same bytes on every run, and that
# `--set scenario.seed=2` changes it; that `run -o DIR` writes summary.json,
# jobs.csv and timeseries.csv, the same bytes on every run, with one row of
# jobs.csv per completed job; that a run which fails part-way leaves DIR as
# it was; that errors name the file, the line and the key and suggest a fix;
# that every scenario shipped in scenarios/ validates; the `models` listing
# and `models show`; and that nothing is written to stderr by a successful
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

fail () {
    printf 'test-cli.sh: FAIL: %s\n' "$*" >&2
    if [ -s "$tmp/stderr" ]; then
        printf -- '--- stderr of the last command:\n' >&2
        head -n 20 "$tmp/stderr" >&2
    fi
    exit 1
}

# expect STATUS ARGS...: runs gpusim ARGS with stdout in $tmp/stdout and
# stderr in $tmp/stderr, and fails unless it exits with STATUS.
expect () {
    want=$1
    shift
    checks=$((checks + 1))
    "$GPUSIM" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    [ "$got" -eq "$want" ] || fail "gpusim $*: exit status $got, expected $want"
}

# contains FILE TEXT WHAT: fails unless FILE contains TEXT (a fixed string).
contains () {
    grep -F -e "$2" "$1" >/dev/null || fail "$3: no \"$2\" in $(basename "$1")"
}

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
expect 1 run --set seed=2 "$QUICKSTART"
contains "$tmp/stderr" "SECTION.KEY=VALUE" "gpusim run --set seed=2"

# ---- run -o DIR -------------------------------------------------------------

expect 0 run -q -o "$tmp/out1" "$QUICKSTART"
no_stderr "gpusim run -o"
contains "$tmp/stdout" "$tmp/out1" "gpusim run -o (outputs line)"
expect 0 run -o "$tmp/out2" "$QUICKSTART"
for f in summary.json jobs.csv timeseries.csv; do
    [ -s "$tmp/out1/$f" ] || fail "gpusim run -o: no $f"
    cmp -s "$tmp/out1/$f" "$tmp/out2/$f" || fail "gpusim run -o: $f differs between two runs"
done
for f in "$tmp/out1"/*; do
    case $(basename "$f") in
        summary.json | jobs.csv | timeseries.csv) ;;
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

sed 's/^model = DGX-H100$/model = DGX-H10/' "$QUICKSTART" >"$tmp/model.ini"
expect 1 validate "$tmp/model.ini"
contains "$tmp/stderr" 'did you mean "DGX-H100"' "gpusim validate with model DGX-H10"

# ---- validate ---------------------------------------------------------------

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
expect 0 models show H100-SXM
contains "$tmp/stdout" "989" "gpusim models show H100-SXM"
expect 1 models show H100
contains "$tmp/stderr" "did you mean" "gpusim models show H100"

# ---- topo and collective ----------------------------------------------------

FABRIC="$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini"
expect 0 topo "$FABRIC" --set fabric.oversubscription=2 --diagram "$tmp/net.svg"
contains "$tmp/stdout" "switches      18" "gpusim topo at 2:1"
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

echo "test-cli.sh: $checks commands checked"
exit 0
