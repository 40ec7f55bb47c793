#!/bin/sh
# test-serverun.sh: serving in ordinary runs from the command line.
#
# What it checks: that `gpusim run` of a scenario with a [serving NAME]
# section and no [workload] exits 0 and prints a `serving` line of the
# deployment's figures, the same request figures `gpusim serve --json`
# gives (its replicas hold their GPUs from 0), and the same JSON twice;
# that `gpusim report` of the run has a Serving section and chart;
# that `gpusim validate` accepts it; that `gpusim compare` of two replica
# counts shows the p99 time to first token falling, with a star; that
# `gpusim seek` over the replicas finds the smallest count whose p99 TTFT
# meets a target, and that count's neighbour below misses it; and that a
# bad [serving] key or value fails `run` with exit status 1 and the file,
# line and key, as does a scenario with neither [workload] nor [serving].
#
# What it does not check: the figures themselves (check-serverun and
# check-serve do).
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both) and
# python3 to read JSON.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

if [ -x /usr/bin/python3 ]; then
    PYTHON=/usr/bin/python3
else
    PYTHON=$(command -v python3) || PYTHON=
fi
if [ -z "$PYTHON" ]; then
    echo "SKIP: no python3 to read JSON"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-serverun.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail () {
    printf 'test-serverun.sh: FAIL: %s\n' "$*" >&2
    exit 1
}

cat >"$tmp/serve.ini" <<'EOF'
[scenario]
name = serve-run
seed = 4

[pool h100]
model = DGX-H100
count = 1

[serving chat]
model = llama3-8b
requests = q
replicas = 2

[requests q]
rate = 40/s
count = 3000
input_tokens = 800
input_distribution = exponential
output_tokens = 150
output_distribution = exponential
EOF

"$GPUSIM" validate "$tmp/serve.ini" >"$tmp/out" 2>&1 || fail "validate refused a serving scenario: $(cat "$tmp/out")"

"$GPUSIM" run "$tmp/serve.ini" >"$tmp/out" 2>"$tmp/err" || fail "run exited $?: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "run wrote on stderr: $(cat "$tmp/err")"
# The deployment's line in words (all 3,000 requests answered), then its
# other figures by name with the rest of the run's.
grep -q '^serving  *chat: 3,000 requests answered, 0 unfinished; TTFT p50 ' "$tmp/out" \
    || fail "no serving line in the summary: $(cat "$tmp/out")"
grep -q '^ *TPOT p50 .* within both SLOs (goodput ' "$tmp/out" || fail "no TPOT line in the summary"
grep -q 'serving\.chat\.ttft_mean ' "$tmp/out" || fail "the serving figures not all in the summary"
grep -q '^workload  *no jobs beside the \[serving\] deployments' "$tmp/out" \
    || fail "no workload line for a scenario without [workload]"

"$GPUSIM" run "$tmp/serve.ini" --json >"$tmp/a.json" || fail "run --json failed"
"$GPUSIM" run "$tmp/serve.ini" --json >"$tmp/b.json" || fail "run --json failed"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "two runs of the same seed differ"
"$GPUSIM" serve "$tmp/serve.ini" --json >"$tmp/serve.json" || fail "serve --json failed"
"$PYTHON" - "$tmp/a.json" "$tmp/serve.json" <<'EOF' || fail "run and serve disagree"
import json, sys
run = json.load(open(sys.argv[1]))
serve = json.load(open(sys.argv[2]))
metrics = run["metrics"] if "metrics" in run else run
def value(name):
    v = metrics[name]
    return v["value"] if isinstance(v, dict) else v
for part in ("ttft", "tpot", "e2e"):
    for stat in ("mean", "p50", "p95", "p99"):
        a, b = value("serving.chat.%s_%s" % (part, stat)), serve[part][stat]
        assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), (part, stat, a, b)
assert value("serving.chat.requests") == serve["requests"] == 3000
EOF

# The HTML report has a Serving section with the deployment's figures and
# its chart.
"$GPUSIM" run "$tmp/serve.ini" -o "$tmp/run" >/dev/null 2>&1 || fail "run -o failed"
"$GPUSIM" report "$tmp/run" -o "$tmp/report.html" >/dev/null 2>"$tmp/err" \
    || fail "report failed: $(cat "$tmp/err")"
grep -q '<section id="serving"><h2>Serving</h2>' "$tmp/report.html" || fail "no Serving section"
grep -q '<th>chat</th>' "$tmp/report.html" || fail "no column for the deployment"
grep -q 'time to first token, p99</td><td class="num">[0-9]' "$tmp/report.html" \
    || fail "no p99 time to first token in the report"
grep -q 'id="chart-serving"' "$tmp/report.html" || fail "no serving chart"
grep -q '"serving": {"deployments":\["chat"\],"ttft_p50":\[' "$tmp/report.html" \
    || fail "no serving chart data"

"$GPUSIM" compare "$tmp/serve.ini" -V 'one:serving.chat.replicas=1' -V 'three:serving.chat.replicas=3' \
    -n 3 -m serving.chat.ttft_p99 >"$tmp/out" 2>"$tmp/err" || fail "compare exited $?: $(cat "$tmp/err")"
grep -q '^serving\.chat\.ttft_p99 (s)' "$tmp/out" || fail "compare shows no serving.chat.ttft_p99"
grep -q '^  three .* -.*\*$' "$tmp/out" || fail "three replicas do not lower the p99 TTFT significantly: $(cat "$tmp/out")"

"$GPUSIM" seek "$tmp/serve.ini" --vary serving.chat.replicas --range 1..6 \
    --target 'serving.chat.ttft_p99 <= 150ms' -n 3 >"$tmp/out" 2>"$tmp/err" \
    || fail "seek exited $?: $(cat "$tmp/err")"
answer=$(sed -n 's/^smallest serving chat\.replicas meeting .*: \([0-9]*\) (.*/\1/p' "$tmp/out")
[ -n "$answer" ] || fail "seek gave no answer: $(cat "$tmp/out")"
grep -q "serving chat.replicas = $answer: .*: meets the target" "$tmp/out" || fail "seek's answer was not probed"
below=$((answer - 1))
if [ "$below" -ge 1 ]; then
    grep -q "serving chat.replicas = $below: .*: misses the target" "$tmp/out" \
        || fail "seek's answer $answer is not the smallest: $(cat "$tmp/out")"
fi

# Bad input: exit status 1, the file, line and key.
sed 's/^replicas = 2$/replicas = 2\nload_time = soon/' "$tmp/serve.ini" >"$tmp/bad.ini"
line=$(grep -n '^load_time' "$tmp/bad.ini" | cut -d: -f1)
"$GPUSIM" run "$tmp/bad.ini" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] || fail "a bad load_time exits $status, not 1"
grep -q "bad.ini:$line: \[serving chat\] load_time: " "$tmp/err" || fail "no file, line and key: $(cat "$tmp/err")"

sed 's/^replicas = 2$/replicas = 2\npriorty = 3/' "$tmp/serve.ini" >"$tmp/bad.ini"
"$GPUSIM" run "$tmp/bad.ini" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] || fail "an unknown [serving] key exits $status, not 1"
grep -q 'priority' "$tmp/err" || fail "no suggestion for a misspelt key: $(cat "$tmp/err")"

sed '/^\[serving chat\]/,$d' "$tmp/serve.ini" >"$tmp/bad.ini"
"$GPUSIM" run "$tmp/bad.ini" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] || fail "a scenario without [workload] or [serving] exits $status, not 1"
grep -q 'missing section \[workload\]' "$tmp/err" || fail "no message for the missing [workload]: $(cat "$tmp/err")"

# A split deployment or a share of a GPU is `gpusim serve`'s alone: a run
# refuses it by name rather than running whole-GPU replicas instead.
sed 's/^replicas = 2$/replicas_per_gpu = 2/' "$tmp/serve.ini" >"$tmp/bad.ini"
"$GPUSIM" run "$tmp/bad.ini" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] || fail "replicas_per_gpu in a run exits $status, not 1"
grep -q '\[serving chat\] replicas_per_gpu: in ordinary runs' "$tmp/err" || fail "no message for replicas_per_gpu in a run: $(cat "$tmp/err")"
# With in_runs = false the same deployment stays out of the run: no
# serving line, no replica among the jobs (the file has no [workload]).
sed 's/^replicas = 2$/replicas_per_gpu = 2\nin_runs = false/' "$tmp/serve.ini" >"$tmp/out.ini"
"$GPUSIM" run "$tmp/out.ini" >"$tmp/out" 2>"$tmp/err" || fail "in_runs = false: run exited $?: $(cat "$tmp/err")"
grep -q '^serving' "$tmp/out" && fail "in_runs = false: the deployment still ran: $(cat "$tmp/out")"
grep -q "^jobs  *0 submitted" "$tmp/out" || fail "in_runs = false: replica jobs still submitted: $(cat "$tmp/out")"

exit 0
