#!/bin/sh
# test-hardening.sh: hostile and careless input to every reader and every
# count a user gives, end to end through the command-line program.
#
# What it checks: that each file gpusim reads (plans, results, sweep
# summaries, price and weather CSVs, failure logs and profiles, transfer
# files, the Azure LLM inference trace of a [requests] section, language
# model files, the trace registry) refuses a device (/dev/zero) at once,
# JSON nested 100,000 deep without overflowing the stack, and a NUL byte
# naming its line, where the program used to hang, crash (exit 139) or
# read a shorter file without a word; that the same files without the
# hostile byte are read (so that the refusal is the byte's doing); that
# counts past their limits (`compare --seeds`, `seek --seeds`, `transfers
# --hosts`) are refused with an estimate of what they would take, and pass with --force as far as the
# check goes; that a transfer which would end past the simulated time's
# range is refused instead of printing a p99 above the makespan; that a
# failure profile names no directory; and that each refusal exits 1 with
# the file (and line, where there is one) in its message.
#
# What it does not check: the limits' exact values beyond the messages'
# phrases, the readers' other errors (test-cli.sh), or memory and time
# (every command here runs under a 2 GB address-space limit and a
# timeout, so that a regression fails instead of taking the machine).
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both).

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
QUICKSTART="$SIM_TOP_SRCDIR/scenarios/quickstart.ini"
COST="$SIM_TOP_SRCDIR/scenarios/cost-own-rent.ini"

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-hardening.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

checks=0

SCRIPT=test-hardening.sh
# shellcheck source=cli-helpers.sh
. "$SIM_TOP_SRCDIR/tests/cli-helpers.sh"

# The address space is limited to 2 GB, except under AddressSanitizer,
# which reserves terabytes of shadow memory up front.
if [ "${SIM_SANITIZERS:-no}" = yes ]; then
    vmem=unlimited
else
    vmem=2000000
fi

# expect STATUS ARGS...: runs gpusim ARGS (at most 60 s, 2 GB of address
# space) and fails unless it exits with STATUS.
expect () {
    want=$1
    shift
    checks=$((checks + 1))
    (ulimit -v "$vmem" 2>/dev/null; exec timeout 60 "$GPUSIM" "$@") >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    [ "$got" -eq "$want" ] || fail "gpusim $*: exit status $got, expected $want"
}

contains () {
    grep -F -e "$2" "$1" >/dev/null || fail "$3: no \"$2\" in $(basename "$1")"
}

[ -x "$GPUSIM" ] || fail "$GPUSIM is not built"

# ---- JSON readers: depth, devices, NUL bytes ---------------------------------

# 100,000 open brackets: json-glib recurses once per level and overflowed
# the stack (exit 139) in all three.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; print "" }' >"$tmp/deep.json"
for args in "report --sweep" "compare --from-results" "compare --plan"; do
    # shellcheck disable=SC2086
    expect 1 $args "$tmp/deep.json"
    contains "$tmp/stderr" "deep.json:1: JSON nested deeper than 64 levels" "$args deep.json"
    # shellcheck disable=SC2086
    expect 1 $args /dev/zero
    contains "$tmp/stderr" "/dev/zero: not a regular file (a device)" "$args /dev/zero"
done
# A results file whose depth is fine is read past the check: the error is
# then about its content (so the depth check is not what refuses all JSON).
awk 'BEGIN { for (i = 0; i < 60; i++) printf "["; for (i = 0; i < 60; i++) printf "]"; print "" }' >"$tmp/shallow.json"
expect 1 compare --from-results "$tmp/shallow.json"
grep -F "nested deeper" "$tmp/stderr" >/dev/null && fail "60 levels of JSON refused as too deep"
# A NUL byte inside a plan is named with its line.
expect 0 compare "$QUICKSTART" --policy first-fit --policy best-fit --seeds 1 --plan-out "$tmp/plan.json"
expect 0 compare --plan "$tmp/plan.json" --runs 0 --results-out "$tmp/part.json"
printf '\n\0' | cat "$tmp/plan.json" - >"$tmp/nul-plan.json"
nul_line=$(($(wc -l <"$tmp/plan.json") + 2))
expect 1 compare --plan "$tmp/nul-plan.json"
contains "$tmp/stderr" "nul-plan.json:$nul_line: the line contains a NUL byte" "a plan with a NUL byte"
mkfifo "$tmp/fifo" 2>/dev/null &&
    { expect 1 compare --plan "$tmp/fifo"; contains "$tmp/stderr" "not a regular file (a pipe)" "a plan that is a FIFO"; }

# ---- Prices: a NUL used to cut the file and price the rest at nothing -------

printf 'hour,usd_per_kwh\n0,0.08\n12,0.20\n' >"$tmp/tou.csv"
expect 0 run "$COST" --set cost.energy_price=0 --set "cost.energy_price_file=$tmp/tou.csv" --json
# Both rows priced: the run's mean price lies strictly between the night's
# $0.08 and the day's $0.20 (a file cut after its first row gives 0.08).
mean_price=$(grep -A1 -F '"cost_energy_price_mean"' "$tmp/stdout" | sed -n 's/.*"value" : \([0-9.e+]*\).*/\1/p')
awk -v p="$mean_price" 'BEGIN { exit !(p != "" && p > 0.08 + 1e-6 && p < 0.20 - 1e-6) }' ||
    fail "a price file of \$0.08 and \$0.20: mean price \"$mean_price\""
printf 'hour,usd_per_kwh\n0,0.08\n12,0.2\0junk\n' >"$tmp/tou-nul.csv"
expect 1 run "$COST" --set cost.energy_price=0 --set "cost.energy_price_file=$tmp/tou-nul.csv"
contains "$tmp/stderr" "tou-nul.csv:3: the line contains a NUL byte" "a price file with a NUL byte"
expect 1 run "$COST" --set cost.energy_price=0 --set cost.energy_price_file=/dev/zero
contains "$tmp/stderr" "/dev/zero: not a regular file" "energy_price_file = /dev/zero"

# ---- Weather: /dev/zero used to spin forever ------------------------------

printf '[scenario]\nname = w\nhorizon = 2h\n[pool a]\nmodel = DGX-A100\ncount = 1\n[workload]\nsource = synthetic\nrate = 1/h\njobs = 2\ngpus = 8\nduration = constant(1h)\n[power]\n[cooling]\noutdoor_csv = weather.csv\n' >"$tmp/weather.ini"
printf 'time_s,temperature_c\n0,20\n1h,5\n' >"$tmp/weather.csv"
expect 0 run "$tmp/weather.ini"
expect 1 run "$tmp/weather.ini" --set cooling.outdoor_csv=/dev/zero
contains "$tmp/stderr" "outdoor_csv: /dev/zero: not a regular file" "outdoor_csv = /dev/zero"
printf 'time_s,temperature_c\n0,20\n1h,2\0005\n' >"$tmp/weather.csv"
expect 1 run "$tmp/weather.ini"
contains "$tmp/stderr" "weather.csv:3: the line contains a NUL byte" "a weather file with a NUL byte"
awk 'BEGIN { printf "0,"; for (i = 0; i < 5000; i++) printf "1"; print "" }' >"$tmp/weather.csv"
expect 1 run "$tmp/weather.ini"
contains "$tmp/stderr" "weather.csv:1: the line is longer than 4096 bytes" "a weather line too long"

# ---- Failure logs and profiles ------------------------------------------------

cat >"$tmp/failures.ini" <<'EOF'
[scenario]
name = f
seed = 1
horizon = 2d
[pool a]
model = DGX-A100
count = 2
[workload]
source = synthetic
rate = 1/h
jobs = 10
gpus = 8
duration = constant(2h)
[failures]
profile = none
log = flog.csv
EOF
printf 'time,type,index\n1h,gpu,0\n5h,gpu,1\n' >"$tmp/flog.csv"
expect 0 run "$tmp/failures.ini"
printf 'time,type,index\n1h,gpu,0\0\n5h,gpu,1\n' >"$tmp/flog.csv"
expect 1 run "$tmp/failures.ini"
contains "$tmp/stderr" "flog.csv:2: the line contains a NUL byte" "a failure log with a NUL byte"
# A device is not "not found": it is there, and not a file.
expect 1 validate "$tmp/failures.ini" --set failures.log=/dev/zero
contains "$tmp/stderr" "failure log /dev/zero is not a regular file" "log = /dev/zero"
contains "$tmp/stderr" "failures.log" "log = /dev/zero names the key"
expect 1 validate "$tmp/failures.ini" --set failures.log=no-such-log.csv
contains "$tmp/stderr" "not found" "a failure log that does not exist"
# A profile is a name in the catalogue, never a path out of it; the file
# behind such a path is not read, so its content cannot be quoted.
printf '[failures]\nsecret_key = hunter2\n' >"$tmp/elsewhere.ini"
expect 1 validate "$tmp/failures.ini" --set "failures.profile=../../../../../../$tmp/elsewhere"
contains "$tmp/stderr" "expected the name of a failure profile in the catalogue" "a profile given as a path"
grep -F "hunter2" "$tmp/stderr" >/dev/null && fail "a profile's error quotes the file's content"
printf 'time,type,index\n1h,gpu,0\n' >"$tmp/flog.csv"
expect 0 validate "$tmp/failures.ini" --set failures.profile=llama3-h100

# ---- Failure rates, repairs and checkpoints past simulated time ------------------

sed -e 's/^log = flog.csv$/checkpoint_interval = 1h\ncheckpoint_size = 1GB\nstorage_bandwidth = 100GB\/s/' \
    -e 's/^profile = none$/profile = llama3-h100/' "$tmp/failures.ini" >"$tmp/ckpt.ini"
expect 0 run "$tmp/ckpt.ini"
# Every GPU failing every second, repaired at once, used to run forever.
expect 1 run "$tmp/ckpt.ini" --set failures.gpu_mtbf=1s --set failures.gpu_repair=0s --set failures.detect_time=0s
contains "$tmp/stderr" "failures.gpu_mtbf" "gpu_mtbf = 1s names the key"
contains "$tmp/stderr" "expected at most one failure a simulated second" "gpu_mtbf = 1s"
# Ten times rarer is still 1.6 a second from 16 GPUs; an hour passes.
expect 1 run "$tmp/ckpt.ini" --set failures.gpu_mtbf=10s
contains "$tmp/stderr" "(16 of type gpu every 10 s each)" "gpu_mtbf = 10s: the 16 GPUs of two DGX A100"
contains "$tmp/stderr" "expected at most one failure a simulated second" "gpu_mtbf = 10s"
expect 0 validate "$tmp/ckpt.ini" --set failures.gpu_mtbf=1h --set scenario.horizon=2h
# A horizon that would gather more faults than are kept.
expect 1 run "$tmp/ckpt.ini" --set failures.gpu_mtbf=30s --set scenario.horizon=52w
contains "$tmp/stderr" "failures over the horizon" "gpu_mtbf = 30s over a year"
# A checkpoint every microsecond used to give an event "due at -9.2e18 ns".
expect 1 run "$tmp/ckpt.ini" --set failures.checkpoint_interval=1us
contains "$tmp/stderr" "failures.checkpoint_interval" "checkpoint_interval = 1us names the key"
contains "$tmp/stderr" "a checkpoint of the whole cluster (16 GPUs) takes 0.16 s" "checkpoint_interval = 1us"
expect 1 run "$tmp/ckpt.ini" --set failures.checkpoint_size=1PB --set failures.storage_bandwidth=1MB/s
contains "$tmp/stderr" "expected at most 1000 times the work and a year" "a checkpoint of 16 PB at 1 MB/s"
# A repair of 15000 weeks from a failure late in a 5-year run ends past
# simulated time: it never comes, where now + repair used to overflow.
printf 'time,type,index\n157000000,gpu,0\n' >"$tmp/late.csv"
expect 0 run "$tmp/ckpt.ini" --set scenario.horizon=260w --set failures.gpu_repair=15000w \
    --set "failures.log=$tmp/late.csv" --set failures.profile=none --set workload.jobs=3
contains "$tmp/stdout" "simulated 1820d 00:00:00" "gpu_repair = 15000w: the run reaches its horizon"
# parse_mtbf: decimal numbers only, as every other parser.
for bad in 0x10h 1e-320s 0.5s; do
    expect 1 validate "$tmp/ckpt.ini" --set "failures.gpu_mtbf=$bad"
    contains "$tmp/stderr" "expected a time of at least 1 s with a unit" "gpu_mtbf = $bad"
done
expect 0 validate "$tmp/ckpt.ini" --set failures.gpu_mtbf=1.5e5h

# ---- Counts: seeds and hosts --------------------------------------------------

expect 1 compare "$QUICKSTART" --policy first-fit --seeds 100000000
contains "$tmp/stderr" "100000000 runs: more than 100000" "compare --seeds 100000000"
contains "$tmp/stderr" "GB" "compare --seeds 100000000: the estimate"
contains "$tmp/stderr" "--force" "compare --seeds 100000000: the way past the limit"
# At the limit itself the plan is accepted: --plan-out writes it, runs nothing.
expect 0 compare "$QUICKSTART" --policy first-fit --seeds 100000 --plan-out "$tmp/big-plan.json"
expect 1 seek "$QUICKSTART" --vary "pool h100.count" --range 1..50 --target "wait_mean <= 1h" --seeds 1000000000
contains "$tmp/stderr" "1000000000 runs: more than 100000" "seek --seeds 1000000000"
printf 'src,dst,bytes\n0,1,1GB\n1,0,100MB\n' >"$tmp/t.csv"
expect 1 transfers "$tmp/t.csv" --hosts 100000000
contains "$tmp/stderr" "--hosts 100000000: more than 1000000 hosts" "transfers --hosts 100000000"
contains "$tmp/stderr" "22 GB" "transfers --hosts 100000000: the estimate"
expect 0 transfers "$tmp/t.csv" --hosts 1000 -t single-switch -q

# ---- Sweeps and seek ------------------------------------------------------------

SWEEP="$SIM_TOP_SRCDIR/tests/data/sweep-small.ini"
line_of () { grep -n "^$1" "$SWEEP" | cut -d: -f1; }
expect 0 sweep "$SWEEP" --list
contains "$tmp/stdout" "6 points x 3 seeds" "the sweep as shipped"
# A step so small that the count overflowed a cast used to give one point.
sed 's|^workload.rate = .*|workload.rate = 1/h..4/h step 1e-300/h|' "$SWEEP" >"$tmp/tiny.ini"
expect 1 sweep "$tmp/tiny.ini" --list
contains "$tmp/stderr" "tiny.ini:$(line_of workload.rate): [sweep] workload.rate" "a tiny step: file, line, key"
contains "$tmp/stderr" "3e+300 values, at most 100000 in a range" "a tiny step"
sed 's|^workload.rate = .*|workload.rate = 1/h..1.000000001/h step 1e-11/h|' "$SWEEP" >"$tmp/tiny.ini"
expect 1 sweep "$tmp/tiny.ini" --list
contains "$tmp/stderr" "the step is too small to tell" "a step below the printed precision"
# Points times seeds past 100,000 runs: refused with the estimate, unless --force.
sed 's|^seeds = .*|seeds = 20000|' "$SWEEP" >"$tmp/big.ini"
expect 1 sweep "$tmp/big.ini" -q
contains "$tmp/stderr" "120000 runs: more than 100000" "a sweep of 120,000 runs"
expect 0 sweep "$tmp/big.ini" --list --force
contains "$tmp/stdout" "= 120000 runs" "sweep --list --force"
# An empty axis used to say "no policy to compare".
sed 's|^pool h100.count = .*|pool h100.count =|' "$SWEEP" >"$tmp/empty.ini"
expect 1 sweep "$tmp/empty.ini" --list
contains "$tmp/stderr" "empty.ini:$(line_of 'pool h100.count'): [sweep] pool h100.count: no value" "an empty axis"
# An unknown metric: named at its line, and no half-empty table.
sed 's|^metrics = .*|metrics = wait_mean, nosuch|' "$SWEEP" >"$tmp/metric.ini"
expect 1 sweep "$tmp/metric.ini" -q
contains "$tmp/stderr" "metric.ini:$(line_of metrics): [sweep] metrics: unknown metric \"nosuch\"" "metrics = nosuch"
[ -s "$tmp/stdout" ] && fail "metrics = nosuch: a table was printed"
# seek varies a key with a unit: the probes set "25.5/h", not "25.5".
expect 0 seek "$SWEEP" --vary workload.rate --range 1/h..50/h --target "wait_mean >= 1h" --seeds 2
contains "$tmp/stdout" "workload.rate = 50/h:" "seek over a rate: the probes carry the unit"
grep -E "^smallest workload.rate meeting wait_mean >= 1h: [0-9.]+/h " "$tmp/stdout" >/dev/null ||
    fail "seek over a rate: no answer with its unit"
expect 2 seek "$SWEEP" --vary workload.rate --range 1/h..50/d --target "wait_mean >= 1h"
contains "$tmp/stderr" "expected LOW..HIGH" "seek --range with two units"

# ---- Sweep databases: gpusim's own only -------------------------------------------

if command -v python3 >/dev/null 2>&1 && python3 -c 'import sqlite3' 2>/dev/null; then
    # Another program's database with a `runs` table: refused, and not one
    # byte of it changed (it used to get gpusim's tables, columns and WAL).
    python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute('CREATE TABLE runs (id INTEGER, name TEXT)')
c.execute(\"INSERT INTO runs VALUES (1, 'a')\")
c.commit()" "$tmp/other.db"
    cksum <"$tmp/other.db" >"$tmp/other.sum"
    expect 1 sweep "$SWEEP" --db "$tmp/other.db" -q
    contains "$tmp/stderr" "other.db: not a gpusim database" "--db another program's database"
    cksum <"$tmp/other.db" | cmp -s - "$tmp/other.sum" || fail "--db changed another program's database"
    [ -e "$tmp/other.db-wal" ] && fail "--db left a WAL beside another program's database"
    printf 'hello\n' >"$tmp/text.db"
    expect 1 sweep "$SWEEP" --db "$tmp/text.db" -q
    contains "$tmp/stderr" "text.db: not an SQLite database" "--db a text file"
    # A new file becomes gpusim's, with its application id; one written
    # before the id (id 0, gpusim's tables) is still taken and gets it.
    expect 0 sweep "$SWEEP" --db "$tmp/ours.db" -q
    [ "$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA application_id').fetchone()[0])" "$tmp/ours.db")" = 1196447059 ] ||
        fail "a new sweep database without gpusim's application id"
    python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA application_id = 0'); c.commit()" "$tmp/ours.db"
    expect 0 sweep "$SWEEP" --db "$tmp/ours.db"
    contains "$tmp/stderr" "18 run(s) taken from" "a sweep database written before the application id"
    # Merged into itself: refused at once, where it waited 60 s on its own lock.
    expect 1 sweep "$SWEEP" --db "$tmp/ours.db" --merge "$tmp/ours.db" -q
    contains "$tmp/stderr" "ours.db: is the database merged into" "--merge of the --db itself"
fi

# ---- Times past the simulated range -------------------------------------------

# 1 GB at 0.1 B/s is 317 years: past a SimTime's 292.  It used to wrap
# to a negative duration and print a p99 above the makespan, exit 0.
expect 1 transfers "$tmp/t.csv" --hosts 2 --bandwidth 0.1B/s
contains "$tmp/stderr" "would end more than 292 years after the start" "transfers --bandwidth 0.1B/s"
# At 1 B/s it is 31.7 years, inside the range, and every figure is the
# one worked out by hand: the two transfers go opposite ways, so each has
# its direction of the links to itself at 1 B/s; 1 GB takes 1e9 s and
# 100 MB 1e8 s (plus 2 us of latency on two links, below the tolerance).
# The mean is 5.5e8 s, the median (the lower of two) 1e8 s, the 99th
# percentile, the largest and the makespan 1e9 s.
expect 0 transfers "$tmp/t.csv" --hosts 2 --bandwidth 1B/s --json
for pair in makespan_s=1e9 duration_mean_s=5.5e8 duration_p50_s=1e8 duration_p99_s=1e9 \
            duration_max_s=1e9; do
    key=${pair%%=*}
    want=${pair#*=}
    got=$(sed -n "s/^ *\"$key\" *: *\([-0-9.e+]*\),*\$/\1/p" "$tmp/stdout")
    awk -v g="$got" -v w="$want" 'BEGIN { exit !(g != "" && g + 0 > 0 && (g - w) / w < 1e-9 && (w - g) / w < 1e-9) }' ||
        fail "transfers at 1 B/s: $key is \"$got\", expected $want s"
    checks=$((checks + 1))
done

# ---- Reading a plan loads no code ------------------------------------------------

# A plan naming a plugin used to dlopen it when read, running its
# constructor.  Here the plugin is a shared object whose constructor leaves
# a file behind; a plan whose run 0 is a built-in policy is read and run 0
# run: the file must not appear.  (Needs a C compiler; skipped without.)
PLUGIN="$SIM_TOP_BUILDDIR/examples/.libs/plugin-largest-first.so"
CC_PROG=$(command -v "${CC:-cc}" 2>/dev/null || command -v cc 2>/dev/null || true)
if [ -n "$CC_PROG" ] && [ -f "$PLUGIN" ]; then
    printf '#include <stdio.h>\n__attribute__((constructor)) static void mark (void) { fclose (fopen ("%s", "w")); }\n' \
        "$tmp/constructor-ran" >"$tmp/marker.c"
    "$CC_PROG" -shared -fPIC -o "$tmp/marker.so" "$tmp/marker.c" || fail "cannot build the marker plugin"
    expect 0 compare "$QUICKSTART" --policy first-fit --policy "$PLUGIN" --seeds 1 --plan-out "$tmp/plugin-plan.json"
    sed "s|$PLUGIN|$tmp/marker.so|" "$tmp/plugin-plan.json" >"$tmp/marker-plan.json"
    grep -F "$tmp/marker.so" "$tmp/marker-plan.json" >/dev/null || fail "the plan does not name the marker plugin"
    expect 0 compare --plan "$tmp/marker-plan.json" --runs 0 --results-out "$tmp/marker-results.json"
    [ -e "$tmp/constructor-ran" ] && fail "reading a plan ran a plugin's constructor"
    # Run 1 is the plugin's: running it loads it (and this one is no policy).
    expect 1 compare --plan "$tmp/marker-plan.json" --runs 1 --results-out "$tmp/marker-results.json"
    [ -e "$tmp/constructor-ran" ] || fail "running a plugin's run did not load it (the test proves nothing)"
fi

# ---- Scenario, catalogue and run files through the bounded reader -----------

# A scenario used to be read whole with no limit: /dev/zero grew until
# memory ran out, and a FIFO blocked for ever.
expect 1 run /dev/zero
contains "$tmp/stderr" "scenario /dev/zero: not a regular file (a device)" "run /dev/zero"
expect 1 validate /dev/zero
contains "$tmp/stderr" "scenario /dev/zero: not a regular file (a device)" "validate /dev/zero"
printf '[scenario]\nname = n\n\0\n' >"$tmp/nul.ini"
expect 1 validate "$tmp/nul.ini"
contains "$tmp/stderr" "nul.ini:3: the line contains a NUL byte" "a scenario with a NUL byte"
# A model file with a NUL byte in a catalogue directory: refused, naming
# the file and the line (a directory's FIFOs and devices are skipped).
mkdir -p "$tmp/models/gpus"
GPUSIM_MODEL_PATH="$tmp/models"
printf '[gpu]\nname = X\n\0\n' >"$tmp/models/gpus/nul.ini"
expect 1 validate "$QUICKSTART"
contains "$tmp/stderr" "nul.ini:3: the line contains a NUL byte" "a model file with a NUL byte"
GPUSIM_MODEL_PATH=
# A run directory whose nodes.csv is a FIFO: topo --from-run used to block.
mkdir -p "$tmp/fake-run"
mkfifo "$tmp/fake-run/nodes.csv" 2>/dev/null || fail "mkfifo"
expect 1 topo "$QUICKSTART" --from-run "$tmp/fake-run" --color-by utilization -d "$tmp/heat.dot"
contains "$tmp/stderr" "nodes.csv: not a regular file (a pipe)" "topo --from-run with a FIFO"

# ---- The Azure LLM inference trace of a [requests] section -------------------

# It used to be read whole with g_file_get_contents(): /dev/zero grew until
# memory ran out, a NUL byte ended the text there (the requests after it
# dropped without a word), and a row with a field too many was taken.
cat >"$tmp/azure.ini" <<'INI'
[scenario]
name = azure
[pool h100]
model = DGX-H100
count = 1
[serving s]
model = llama3-8b
requests = q
[requests q]
arrival = trace
trace = azure.csv
INI
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n0,100,5\n0.5,200,10\n1,300,20\n' >"$tmp/azure.csv"
expect 0 serve "$tmp/azure.ini"
contains "$tmp/stdout" "3 in" "an Azure trace of three requests"
expect 1 serve "$tmp/azure.ini" --set requests.trace=/dev/zero
contains "$tmp/stderr" "/dev/zero: not a regular file (a device)" "an Azure trace that is /dev/zero"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n0,100,5\n0.5,200,10\0junk\n1,300,20\n' >"$tmp/azure.csv"
expect 1 serve "$tmp/azure.ini"
contains "$tmp/stderr" "azure.csv:3: the line contains a NUL byte" "an Azure trace with a NUL byte"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n0,100,5\n0.5,200,10,7\n' >"$tmp/azure.csv"
expect 1 serve "$tmp/azure.ini"
contains "$tmp/stderr" "azure.csv:3: expected 3 fields as in the header, found 4" "an Azure row with a field too many"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n0,100,5\n0.5,1e400,10\n' >"$tmp/azure.csv"
expect 1 serve "$tmp/azure.ini"
contains "$tmp/stderr" "azure.csv:3:5: ContextTokens: expected a count of 0 or more" "an Azure count of 1e400"

# ---- Language-model files and the trace registry -----------------------------

# A model file named by --model, the models of a directory's llm/ folder
# and the registry of `trace fetch` were read with g_file_get_contents():
# /dev/zero until memory ran out, a FIFO for ever, and a NUL byte ended
# the text (a model then lacked the keys after it).
expect 1 llm "$QUICKSTART" --model /dev/zero --tp 8
contains "$tmp/stderr" "model file /dev/zero: not a regular file (a device)" "llm --model /dev/zero"
sed 's/^layers = /\x00layers = /' "$SIM_TOP_SRCDIR/models/llm/llama3-8b.ini" >"$tmp/nul-llm.ini"
nul_line=$(grep -n '^layers = ' "$SIM_TOP_SRCDIR/models/llm/llama3-8b.ini" | cut -d: -f1)
[ -n "$nul_line" ] || fail "llama3-8b.ini has no layers line"
expect 0 llm "$QUICKSTART" --model "$SIM_TOP_SRCDIR/models/llm/llama3-8b.ini" --tp 8
expect 1 llm "$QUICKSTART" --model "$tmp/nul-llm.ini" --tp 8
contains "$tmp/stderr" "nul-llm.ini:$nul_line: the line contains a NUL byte" "a model file with a NUL byte"
mkdir -p "$tmp/fifo-models/llm"
mkfifo "$tmp/fifo-models/llm/blocked.ini" 2>/dev/null || fail "mkfifo"
GPUSIM_MODEL_PATH="$tmp/fifo-models"
expect 0 llm --list
contains "$tmp/stdout" "llama3-8b" "llm --list beside a FIFO"
GPUSIM_MODEL_PATH=
expect 1 trace fetch --list --registry /dev/zero
contains "$tmp/stderr" "/dev/zero: not a regular file (a device)" "trace fetch --registry /dev/zero"
printf '[a]\nurl = https://example.org/a.csv\0\n' >"$tmp/nul-registry.ini"
expect 1 trace fetch --list --registry "$tmp/nul-registry.ini"
contains "$tmp/stderr" "nul-registry.ini:2: the line contains a NUL byte" "a registry with a NUL byte"

# ---- Checks validate makes that used to wait for the run ---------------------

# [cooling] step: a nanosecond with swings was minutes of CPU.
expect 1 validate "$SIM_TOP_SRCDIR/scenarios/power-air.ini" --set cooling.daily_swing=5 --set cooling.step=1ns
contains "$tmp/stderr" "--set cooling.step: \"1ns\" is shorter than a second: expected a step of at least 1 s" "[cooling] step = 1ns"
expect 0 validate "$SIM_TOP_SRCDIR/scenarios/power-air.ini" --set cooling.daily_swing=5 --set cooling.step=1s
# [rl]: a placement that does not exist, a reward whose model is missing.
printf '[rl]\nplacements = first-fit, nosuch\n' | cat "$QUICKSTART" - >"$tmp/rl-bad.ini"
rl_line=$(($(wc -l <"$QUICKSTART") + 2))
expect 1 validate "$tmp/rl-bad.ini"
contains "$tmp/stderr" "rl-bad.ini:$rl_line: [rl] placements: placement 1 of the environment: unknown placement \"nosuch\"" "[rl] placements = nosuch"
printf '[rl]\nreward = energy\n' | cat "$QUICKSTART" - >"$tmp/rl-energy.ini"
expect 1 validate "$tmp/rl-energy.ini"
contains "$tmp/stderr" "rl-energy.ini:$rl_line: [rl] reward: the energy reward needs the power model" "[rl] reward = energy without [power]"
printf '[power]\n[rl]\nreward = energy\n' | cat "$QUICKSTART" - >"$tmp/rl-power.ini"
expect 0 validate "$tmp/rl-power.ini"

# ---- Facility limits and cap managers beside a cloud pool --------------------

# The bundled bursting scenario's cloud pool draws no facility power: in cap
# mode the limit used to try to cap its GPUs and fail ("has no tdp"), and
# so did the cap manager.  Neither may touch them, nor print a critical.
BURST="$SIM_TOP_SRCDIR/scenarios/burst.ini"
sed 's/^\[elastic\]$/[power]\n[facility]\nmax_power = 100kW\n[power_manager]\nlow_cap = 300W\n[elastic]/' "$BURST" >"$tmp/burst-power.ini"
grep -F '[facility]' "$tmp/burst-power.ini" >/dev/null || fail "could not add [facility] to burst.ini"
expect 0 run "$tmp/burst-power.ini" --set scenario.horizon=2d --set facility.baseline=false --set power_manager.baseline=false --json
[ -s "$tmp/stderr" ] && fail "a limit and a cap manager beside a cloud pool printed: $(head -n 3 "$tmp/stderr")"
peak=$(grep -A1 -F '"power_facility_peak"' "$tmp/stdout" | sed -n 's/.*"value" : \([0-9.e+]*\).*/\1/p')
awk -v p="$peak" 'BEGIN { exit !(p != "" && p > 50000 && p <= 100000 * (1 + 1e-9)) }' ||
    fail "the facility's peak was $peak W, expected at most its 100 kW limit (and a busy facility)"
# A hold-mode limit just above the idle facility let no job start, and the
# run reported a JCT change of -100 % and the idle draw as energy saved.
expect 1 run "$SIM_TOP_SRCDIR/scenarios/power-air.ini" --set scenario.horizon=2d --set facility.max_power=229500W --set facility.limit_mode=hold
contains "$tmp/stderr" "--set facility.max_power: 229500 W: job 1 (2 GPUs) alone would take the facility to" "a hold limit no job can start under"
contains "$tmp/stderr" "expected a limit above what the facility draws with its largest job running alone, or limit_mode = cap" "a hold limit no job can start under"

# ---- Validation loads no code ------------------------------------------------

# gpusim validate (and the build check of a plan's variants) used to dlopen
# the scenario's [policy] plugin, running its constructor.  The marker
# plugin of the section above leaves a file behind when it is loaded.
if [ -n "$CC_PROG" ] && [ -f "$tmp/marker.so" ]; then
    rm -f "$tmp/constructor-ran"
    sed "s|^placement = first-fit\$|placement = first-fit\nplugin = $tmp/marker.so|" "$QUICKSTART" >"$tmp/plugin.ini"
    grep -F "plugin = $tmp/marker.so" "$tmp/plugin.ini" >/dev/null || fail "could not add the plugin to the scenario"
    expect 0 validate "$tmp/plugin.ini"
    contains "$tmp/stdout" "policy plugin $tmp/marker.so (not loaded)" "validate of a plugin scenario"
    expect 0 validate --quick "$tmp/plugin.ini"
    expect 0 compare "$tmp/plugin.ini" --variant "b:scenario.seed=2" --seeds 1 --plan-out "$tmp/plugin-variants.json"
    [ -e "$tmp/constructor-ran" ] && fail "validating a scenario (or a plan's variants) ran its plugin's constructor"
    expect 1 validate --set "policy.plugin=$tmp/no-such.so" "$QUICKSTART"
    contains "$tmp/stderr" "no-such.so: no such regular file: expected a policy plugin" "a plugin file that is not there"
    # Running it loads it (and this one is no policy).
    expect 1 run "$tmp/plugin.ini"
    [ -e "$tmp/constructor-ran" ] || fail "running a plugin scenario did not load it (the test proves nothing)"
fi

# ---- A run owns its output directory ---------------------------------------------

# A second run into the same directory used to mix its files with the
# first's; now it is refused, naming the holder's pid.
"$GPUSIM" run -q -o "$tmp/owned" --set scenario.horizon=100000d "$QUICKSTART" >/dev/null 2>&1 &
holder=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ -s "$tmp/owned/.gpusim-lock" ] && break
    sleep 0.2
done
expect 1 run -q -o "$tmp/owned" "$QUICKSTART"
contains "$tmp/stderr" "owned: in use by another gpusim run (process $holder" "a second run into one directory"
# Killed without a chance to clean (kill -9): its temporary files and its
# lock file stay, and the next run takes the directory and removes them.
kill -KILL "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
touch "$tmp/owned/mine.txt"
expect 0 run -q -o "$tmp/owned" "$QUICKSTART"
leftover=$(cd "$tmp/owned" && ls -A | tr '\n' ' ')
[ "$leftover" = "jobs.csv mine.txt nodes.csv summary.json timeseries.csv " ] ||
    fail "after a killed run and a new one, the directory holds: $leftover"
# A run without a fabric after one with: the old topology.dot is removed
# (a report of the directory used to draw the first run's network).
expect 0 run -q -o "$tmp/switch" "$SIM_TOP_SRCDIR/tests/data/golden-network.ini"
[ -f "$tmp/switch/topology.dot" ] || fail "a run with a [fabric] wrote no topology.dot"
expect 0 run -q -o "$tmp/switch" "$QUICKSTART"
[ -e "$tmp/switch/topology.dot" ] && fail "an earlier run's topology.dot was left beside this run's files"

# ---- Outputs written whole never replace a device ----------------------------

# A file written whole is renamed into place: over /dev/null, run as root,
# that used to leave a regular file where the device was.  A FIFO stands in
# for the device here, so that the test cannot harm the machine it runs on.
mkfifo "$tmp/out-fifo" 2>/dev/null || fail "mkfifo"
expect 1 compare --plan "$tmp/plan.json" --runs 0 --results-out "$tmp/out-fifo"
contains "$tmp/stderr" "out-fifo: not a regular file" "--results-out to a FIFO"
[ -p "$tmp/out-fifo" ] || fail "--results-out replaced the FIFO"
expect 1 compare "$QUICKSTART" --policy first-fit --seeds 1 --plan-out "$tmp/out-fifo"
[ -p "$tmp/out-fifo" ] || fail "--plan-out replaced the FIFO"
expect 1 transfers "$tmp/t.csv" --hosts 2 -o "$tmp/out-fifo"
[ -p "$tmp/out-fifo" ] || fail "transfers -o replaced the FIFO"

echo "test-hardening.sh: $checks checks passed"
