#!/bin/sh
# test-bad-input.sh: input the command-line program must refuse rather
# than act on, end to end.
#
# What it checks: that no output option of any subcommand (run -o,
# --report and --timeline, compare --csv, sweep --csv and --report, topo
# --cabling and --diagram, transfers -o, report -o, trace convert -o, fgd
# --csv) overwrites a file being read (the scenario, its trace, the run a
# report is made from), by the same path, another spelling of it or a hard
# link, and that the input is left as it was; that an output elsewhere is
# still written; and that nonsense in a scenario or a trace is refused
# with the file, the line and the key, where it used to run with exit 0.
# Each refusal exits 1; a --set not of the form SECTION.KEY=VALUE is a
# usage error, exit 2, on every command that takes one.
#
# What it does not check: the wording of messages beyond the phrases below,
# or the errors test-cli.sh and test-hardening.sh check.
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both).

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
QUICKSTART="$SIM_TOP_SRCDIR/scenarios/quickstart.ini"

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-bad-input.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

checks=0

SCRIPT=test-bad-input.sh
# shellcheck source=cli-helpers.sh
. "$SIM_TOP_SRCDIR/tests/cli-helpers.sh"

# same FILE COPY WHAT: fails unless FILE is still byte for byte COPY.
same () {
    cmp -s "$1" "$2" || fail "$3 changed $(basename "$1")"
}

[ -x "$GPUSIM" ] || fail "$GPUSIM is not built"

cd "$tmp" || exit 1

# A day of the quick start, so that the runs that go ahead are short.
sed 's/^horizon = .*/horizon = 1d/' "$QUICKSTART" >orig.ini
cp orig.ini victim.ini

# ---- An output that is an input ---------------------------------------------

expect 1 run victim.ini --report victim.ini
contains stderr "--report victim.ini: it is the scenario being read" "run --report"
same victim.ini orig.ini "run --report"
expect 1 run victim.ini --timeline ./victim.ini
contains stderr "--timeline ./victim.ini: it is the scenario being read" "run --timeline"
same victim.ini orig.ini "run --timeline"
# Another name of the same file: a hard link.
ln victim.ini linked.ini
expect 1 run victim.ini --report linked.ini
contains stderr "it is the scenario being read" "run --report to a hard link"
same victim.ini orig.ini "run --report to a hard link"
# A scenario saved where -o writes jobs.csv.
mkdir o1
cp orig.ini o1/jobs.csv
expect 1 run o1/jobs.csv -o o1
contains stderr "-o o1: o1/jobs.csv is the scenario being read" "run -o"
same o1/jobs.csv orig.ini "run -o"
[ ! -e o1/summary.json ] || fail "a refused run -o wrote summary.json"
# A trace named inside the scenario, where -o writes jobs.csv.
mkdir o2
printf 'id,submit,duration,gpus\n1,0,60,1\n2,10,60,8\n' >o2/jobs.csv
cp o2/jobs.csv trace.csv
printf '[scenario]\nname = t\nseed = 1\n[pool a]\nmodel = DGX-H100\ncount = 1\n[workload]\nsource = native\ntrace = o2/jobs.csv\n' >traced.ini
expect 1 run traced.ini -o o2
contains stderr "o2/jobs.csv is the scenario's trace being read" "run -o over the trace"
same o2/jobs.csv trace.csv "run -o over the trace"
# The report is made from the run's outputs: not written over one of them.
expect 0 run victim.ini -q -o run1
cp run1/summary.json summary.json
expect 1 run victim.ini -o run1 --report run1/summary.json
contains stderr "it is the run's summary.json, which the report is made from" "run --report into -o"
expect 1 report run1 -o run1/summary.json
contains stderr "-o run1/summary.json: it is the run's summary.json being read" "report -o"
same run1/summary.json summary.json "report -o"
expect 0 report run1 -o run1.html
[ -s run1.html ] || fail "report -o elsewhere wrote nothing"
# compare, sweep and topo.
expect 1 compare victim.ini -p first-fit -p best-fit -n 2 --csv victim.ini
contains stderr "--csv victim.ini: it is the scenario being read" "compare --csv"
same victim.ini orig.ini "compare --csv"
printf '\n[sweep]\npool h100.count = 15, 16\nseeds = 1\n' >>victim.ini
cp victim.ini sweep.ini
expect 1 sweep victim.ini --csv victim.ini
contains stderr "--csv victim.ini: it is the scenario being read" "sweep --csv"
same victim.ini sweep.ini "sweep --csv"
expect 1 sweep victim.ini --report victim.ini
contains stderr "--report victim.ini: it is the scenario being read" "sweep --report"
same victim.ini sweep.ini "sweep --report"
cp "$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini" base.ini
cp base.ini base-orig.ini
expect 1 topo base.ini --cabling base.ini
contains stderr "--cabling base.ini: it is the scenario being read" "topo --cabling"
same base.ini base-orig.ini "topo --cabling"
expect 1 topo base.ini --diagram base.ini
same base.ini base-orig.ini "topo --diagram"
# transfers and trace convert.
printf 'src,dst,bytes\n0,1,1MB\n2,3,1MB\n' >xf.csv
cp xf.csv xf-orig.csv
expect 1 transfers xf.csv -n 8 -o xf.csv
contains stderr "-o xf.csv: it is the transfers being read" "transfers -o"
same xf.csv xf-orig.csv "transfers -o"
expect 0 transfers xf.csv -n 8 -o xf-out.csv
[ -s xf-out.csv ] || fail "transfers -o elsewhere wrote nothing"
expect 1 trace convert trace.csv -o ./trace.csv
contains stderr "-o ./trace.csv: it is the trace being read" "trace convert -o"
same trace.csv o2/jobs.csv "trace convert -o"

# ---- Nonsense in a scenario or a trace ---------------------------------------

# A GPU model or MIG profile no GPU of the catalogue has, in a trace row: a
# typo, refused at its line and column with the closest name; one the
# catalogue knows but the cluster lacks makes a rejected job.
traced () {
    printf '[scenario]\nname = t\nseed = 1\n[pool a]\nmodel = DGX-H100\ncount = 1\n'
    printf '[workload]\nsource = native\ntrace = %s\n' "$1"
}
printf 'id,submit,duration,gpus,gpu_model\n1,0,60,1,H100-SXM\n2,10,60,1,H100-SXMM\n' >bad-model.csv
traced bad-model.csv >bad-model.ini
expect 1 run bad-model.ini
contains stderr "bad-model.csv:3:11: gpu_model: no GPU model \"H100-SXMM\"" "a misspelt model"
contains stderr "did you mean \"H100-SXM\"" "a misspelt model"
expect 1 validate bad-model.ini
printf 'id,submit,duration,gpus,mig\n1,0,60,1,\n2,10,60,1,9g.999gb\n' >bad-mig.csv
traced bad-mig.csv >bad-mig.ini
expect 1 run bad-mig.ini
contains stderr "bad-mig.csv:3:11: mig: no GPU of the catalogue has MIG profile \"9g.999gb\"" \
    "an unknown MIG profile"
printf 'id,submit,duration,gpus,gpu_model,mig\n1,0,60,1,A100-SXM-40GB,\n2,0,60,1,,1g.5gb\n3,0,60,1,,1g.10gb\n' \
    >absent.csv
traced absent.csv >absent.ini
expect 0 run absent.ini
contains stdout "3 submitted, 1 completed, 0 unfinished, 2 rejected" "models the cluster lacks"

# run checks the [variant] sections it does not run, as validate does.
cp orig.ini variant.ini
printf '\n[variant x]\nnosuch.key = 1\n' >>variant.ini
expect 1 run variant.ini
contains stderr "[variant x] nosuch.key" "run with a bad variant key"
cp orig.ini variant.ini
printf '\n[variant x]\nworkload.rate = abc\n' >>variant.ini
expect 1 run variant.ini
contains stderr "[variant x] workload.rate: \"abc\" is not a rate" "run with a bad variant value"
cp orig.ini variant.ini
printf '\n[variant x]\nworkload.rate = 2/h\n' >>variant.ini
expect 0 run variant.ini
contains stdout "variants      x" "run with a good variant"

# A trace without jobs is an error for trace info and convert, as for a run.
printf 'id,submit,duration,gpus\n' >empty.csv
expect 1 trace info empty.csv
contains stderr "empty.csv: no job to simulate: the trace has no rows" "trace info without jobs"
expect 1 trace info --json empty.csv
expect 1 trace convert empty.csv -o empty-out.csv
contains stderr "no job to simulate" "trace convert without jobs"
[ ! -e empty-out.csv ] || fail "trace convert without jobs wrote its output"

# serve: more replicas than the cluster has GPUs for.
sed 's/^replicas = 8$/replicas = 100/' "$SIM_TOP_SRCDIR/scenarios/serve-8b-assistant.ini" >serve.ini
expect 1 serve serve.ini -d assistant
contains stderr "[serving assistant] replicas: 100 replicas of 1 GPU need 100 GPUs: expected at most the cluster's 16" \
    "serve with too many replicas"
expect 0 serve "$SIM_TOP_SRCDIR/scenarios/serve-8b-assistant.ini" -d assistant --set replicas=16

# A node model whose rated maximum is below its GPUs' TDP (8 x 700 W).
mkdir -p mymodels
sed -e 's/^name = DGX-H100$/name = Tiny-Power/' -e 's/^max_power = .*/max_power = 1W/' \
    "$SIM_TOP_SRCDIR/models/nodes/dgx-h100.ini" >mymodels/tiny-power.ini
grep -q '^max_power = 1W$' mymodels/tiny-power.ini || fail "the DGX-H100 model has no max_power line to change"
line=$(grep -n '^max_power = ' mymodels/tiny-power.ini | cut -d: -f1)
sed -e 's/^model = DGX-H100$/model = Tiny-Power/' -e 's|^\[scenario\]$|[scenario]\nmodels = mymodels|' \
    orig.ini >power.ini
expect 1 run power.ini
contains stderr "tiny-power.ini:$line: [node] max_power: 1 W is less than its 8 GPUs' TDP (8 x 700 W = 5600 W)" \
    "a node's max_power below its GPUs' TDP"

# [requests] trace with Poisson arrivals, which would leave it unread.
cat >requests.ini <<'INI'
[scenario]
name = requests
[pool h100]
model = DGX-H100
count = 1
[serving s]
model = llama3-8b
requests = q
[requests q]
rate = 1/s
count = 10
input_tokens = 100
output_tokens = 10
trace = azure.csv
INI
expect 1 serve requests.ini
contains stderr "requests.ini:14: [requests q] trace: a trace with arrival = poisson, which does not read it: expected arrival = trace, or no trace key" \
    "a requests trace with Poisson arrivals"

# Checkpoints without their size and the storage's bandwidth.
cp orig.ini ckpt.ini
printf '\n[failures]\ncheckpoint_interval = 1h\n' >>ckpt.ini
expect 1 run ckpt.ini
contains stderr "[failures] checkpoint_interval: checkpoints need checkpoint_size" \
    "checkpoint_interval alone"
printf 'checkpoint_size = 1GB\nstorage_bandwidth = 100GB/s\n' >>ckpt.ini
expect 0 run ckpt.ini

# A UTF-8 byte-order mark at the start of a scenario or an Azure trace is
# not part of the first line: the same answers as without it, and a
# scenario's line numbers stay those of its lines.
printf '\357\273\277' >bom.ini
cat orig.ini >>bom.ini
expect 0 run orig.ini
mv stdout plain.txt
expect 0 run bom.ini
sed 1d stdout >bom.txt
sed 1d plain.txt >plain-rest.txt
cmp -s bom.txt plain-rest.txt || fail "a scenario with a byte-order mark gives other answers"
printf '\357\273\277[scenario]\nname = x\n[pool]\n' >bom-bad.ini
expect 1 run bom-bad.ini
contains stderr "bom-bad.ini:3: [pool]" "a line number after a byte-order mark"
printf '\357\273\277TIMESTAMP,ContextTokens,GeneratedTokens\n0,100,5\n0.5,200,10\n' >azure-bom.csv
sed -e 's/^rate = 1\/s$/arrival = trace/' -e 's/^trace = azure.csv$/trace = azure-bom.csv/' \
    -e '/^count = 10$/d' -e '/^input_tokens = 100$/d' -e '/^output_tokens = 10$/d' requests.ini >azure.ini
expect 0 serve azure.ini
contains stdout "2 in" "an Azure trace with a byte-order mark"

# Nor at the start of a trace read line by line: a Philly list's header
# used to be refused ("expected the header timestamp,..."), an SWF log's
# first comment taken for a job line of 19 fields.
for t in philly-excerpt.csv nasa-ipsc-excerpt.swf; do
  expect 0 trace info "$SIM_TOP_SRCDIR/tests/data/$t"
  sed 1d stdout >plain.txt
  printf '\357\273\277' | cat - "$SIM_TOP_SRCDIR/tests/data/$t" >"bom-$t"
  expect 0 trace info "bom-$t"
  sed 1d stdout >bom.txt
  cmp -s bom.txt plain.txt || fail "$t with a byte-order mark gives another summary"
done

# A line GKeyFile cannot read in a model file of the catalogue or a
# language-model file is numbered (the message quoted it without a line).
mkdir -p keyfile-models/gpus
{ printf '\357\273\277# a mark and a comment\n'; sed 's/^name = H100-SXM$/name = Broken-GPU/' \
    "$SIM_TOP_SRCDIR/models/gpus/h100-sxm.ini"; echo 'a line of prose'; } >keyfile-models/gpus/broken.ini
line=$(wc -l <keyfile-models/gpus/broken.ini)
expect 1 models --path keyfile-models
contains stderr "broken.ini:$line: not a valid key file" "a catalogue file with a line that is no key"
{ cat "$SIM_TOP_SRCDIR/models/llm/llama3-8b.ini"; echo 'a line of prose'; } >broken-llm.ini
line=$(wc -l <broken-llm.ini)
expect 1 llm "$QUICKSTART" --model ./broken-llm.ini --tp 8
contains stderr "broken-llm.ini:$line: not a valid key file" "a model file with a line that is no key"

# An unknown trace subcommand is named; an unknown switch model is blamed
# on its own line by topo as by run.
expect 2 trace bogus x
contains stderr 'trace: unknown subcommand "bogus": expected info, convert or fetch' "trace bogus"
sed 's/^switch = .*/switch = Nonexistent-Switch/' "$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini" >switch.ini
line=$(grep -n '^switch = Nonexistent-Switch$' switch.ini | cut -d: -f1)
[ -n "$line" ] || fail "fabric-oversubscription.ini has no switch line to change"
expect 1 topo switch.ini
contains stderr "switch.ini:$line: [fabric] switch: no switch model" "topo with an unknown switch"
expect 1 run switch.ini
contains stderr "switch.ini:$line: [fabric] switch: no switch model" "run with an unknown switch"

# A models directory that is not there is blamed on the models key.
sed 's|^\[scenario\]$|[scenario]\nmodels = ./no-such-dir|' orig.ini >models.ini
expect 1 run models.ini
contains stderr "models.ini:9: [scenario] models: " "a models directory that does not exist"
contains stderr "no-such-dir does not exist" "a models directory that does not exist"
# A negative share says what range is meant, without the largest double.
sed 's/^share = .*/share = -1/' "$SIM_TOP_SRCDIR/scenarios/fabric-oversubscription.ini" >share.ini
expect 1 run share.ini
contains stderr "share: -1 is out of range: expected a number of 0 or more" "a negative share"

# A rate beyond what the generator represents is blamed on the rate key's
# line, not the section's; 1e6 jobs a second at the profile's peak passes.
sed 's|^rate = .*|rate = 1e308/s|' "$QUICKSTART" >rate.ini
line=$(grep -n '^rate = 1e308/s$' rate.ini | cut -d: -f1)
[ -n "$line" ] || fail "quickstart.ini has no rate line to change"
expect 1 validate rate.ini
contains stderr "rate.ini:$line: [workload] rate: 1.536e+308 jobs per second (at the profile's peak) is too high" \
    "a rate too high to represent"
sed 's|^rate = .*|rate = 6.5e5/s|' "$QUICKSTART" >rate.ini
expect 0 validate --force rate.ini

# A --set that is not SECTION.KEY=VALUE is a usage error (exit 2, as an
# unknown option is) on every command that reads a scenario, before the
# scenario is read; a well-formed one with a misspelt key is the
# scenario's error (exit 1).
for cmd in run validate topo llm collective transfers compare sweep scaling; do
  for bad in foo seed=2 .seed=2 "scenario.=2"; do
    expect 2 "$cmd" no-such-file.ini --set "$bad"
    contains stderr "--set $bad: expected SECTION.KEY=VALUE" "gpusim $cmd --set $bad"
  done
done
expect 1 validate "$QUICKSTART" --set scenario.sed=2
expect 0 validate "$QUICKSTART" --set scenario.seed=2
expect 2 serve "$SIM_TOP_SRCDIR/scenarios/serve-8b-assistant.ini" --set replicas
contains stderr "--set replicas: expected KEY=VALUE" "gpusim serve --set replicas"

echo "test-bad-input.sh: $checks commands checked"
exit 0
