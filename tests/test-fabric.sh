#!/bin/sh
# test-fabric.sh: the fabric as it would be built, from the command line.
#
# What it checks:
# - gpusim topo --bom: the bill of materials adds up to the summary's
#   switches, cables and transceivers, and to one NIC per node NIC;
# - gpusim topo --cabling: one CSV row per cable of the summary, every NIC
#   cabled once, no switch port used twice, the transceivers the summary's;
# - gpusim topo --json: the schema's name, one device per vertex with the
#   summary's switches by kind, one link with a cable per cable, and every
#   NIC of a node cabled to one leaf (no node split), at 2:1 and 3:1;
# - an oversubscription whole nodes cannot give on every leaf: a warning
#   on stderr and in the JSON naming the ratio of the leaf built otherwise;
# - a scenario without [workload], or whose synthetic workload never ends,
#   still gives its topology and diagram (and run still refuses it);
# - the bill's priced total equals the network capex of a run of the same
#   scenario (the cost model's own count: power/sim-cost.c);
# - bad input: a plan to a directory that does not exist, --bom and
#   --cabling with the node view, --cabling without a file (usage errors,
#   exit 2), a node that fits no leaf: clear messages and a non-zero exit,
#   and no file left behind.
#
# What it does not check: that a fabric is the cheapest for its
# oversubscription, or the wording of messages beyond the phrases below.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
S="$SIM_TOP_SRCDIR/scenarios"
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=$(command -v python3) || { echo "test-fabric.sh: SKIP: no python3"; exit 77; }

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-fabric.XXXXXX") || exit 1
trap '[ -n "${SIM_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail () {
    printf 'test-fabric.sh: FAIL: %s\n' "$*" >&2
    [ -s "$tmp/stderr" ] && head -n 20 "$tmp/stderr" >&2
    exit 1
}

expect () {
    want=$1
    shift
    "$GPUSIM" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    [ "$got" -eq "$want" ] || fail "gpusim $* exited with $got, expected $want"
}

contains () {
    grep -F -q -- "$2" "$1" || fail "$3: \"$2\" not in $1"
}

FABRIC="$S/fabric-oversubscription.ini"

# ---- The bill and the plan against the summary, on every topology kind -----

for topo in single-switch fat-tree fat-tree-3 rail-optimized rail-optimized-3 dragonfly; do
    for ratio in 1 2 3; do
        name="$topo-$ratio"
        set -- --set fabric.topology="$topo" --set fabric.oversubscription="$ratio" \
            --set fabric.access_cable_length=3m --set fabric.cable_length=25m
        [ "$topo" = single-switch ] && set -- "$@" --set "pool h100.count=8"
        expect 0 topo "$FABRIC" "$@" --bom --cabling "$tmp/$name.csv"
        cp "$tmp/stdout" "$tmp/$name.txt"
        expect 0 topo "$FABRIC" "$@" --json
        cp "$tmp/stdout" "$tmp/$name.json"
        "$PYTHON" - "$tmp/$name.txt" "$tmp/$name.csv" "$tmp/$name.json" <<'PY' || fail "$name"
import csv, json, re, sys
text = open(sys.argv[1]).read()
switches = int(re.search(r"^switches\s+(\d+):", text, re.M).group(1))
m = re.search(r"^cables\s+(\d+) \((\d+) optical transceivers\)", text, re.M)
cables, transceivers = int(m.group(1)), int(m.group(2))
gpus = int(re.search(r"^cluster .*: (\d+) nodes, (\d+) GPUs", text, re.M).group(2))
bom = {}
for line in text.split("bill of materials", 1)[1].splitlines():
    f = line.split()
    if len(f) >= 2 and f[0] in ("switch", "cable", "transceiver", "nic"):
        bom[f[0]] = bom.get(f[0], 0) + int(f[1])
want = {"switch": switches, "cable": cables, "transceiver": transceivers, "nic": gpus}
for k, v in want.items():
    if bom.get(k, 0) != v:
        sys.exit("bill: %d %s, summary %d" % (bom.get(k, 0), k, v))

rows = list(csv.DictReader(open(sys.argv[2])))
if len(rows) != cables:
    sys.exit("plan: %d rows, summary %d cables" % (len(rows), cables))
if sum(int(r["transceivers"]) for r in rows) != transceivers:
    sys.exit("plan: transceivers differ from the summary's")
nics = [r["from_device"] for r in rows if "/nic" in r["from_device"]]
if len(nics) != gpus or len(set(nics)) != gpus:
    sys.exit("plan: %d NIC rows, %d distinct, for %d NICs" % (len(nics), len(set(nics)), gpus))
ports = [(r["from_device"], r["from_port"]) for r in rows] + [(r["to_device"], r["to_port"]) for r in rows]
if len(ports) != len(set(ports)):
    sys.exit("plan: a port is used twice")
for r in rows:
    want_cls = "<=3m" if r["tier"] == "access" else "<=30m"
    if r["length_class"] != want_cls:
        sys.exit("plan: cable %s of tier %s in class %s" % (r["cable"], r["tier"], r["length_class"]))

d = json.load(open(sys.argv[3]))
if d["schema"] != "gpusim-topology/1":
    sys.exit("json: schema %r" % d["schema"])
kinds = {}
for dev in d["devices"]:
    kinds[dev["kind"]] = kinds.get(dev["kind"], 0) + 1
if kinds.get("leaf", 0) + kinds.get("router", 0) != d["switches"]["leaf"] or \
   kinds.get("spine", 0) != d["switches"]["spine"] or kinds.get("core", 0) != d["switches"]["core"]:
    sys.exit("json: devices by kind %r, switches %r" % (kinds, d["switches"]))
cabled = [l for l in d["links"] if l["cable"] is not None]
if len(cabled) != cables or sum(l["cable"]["transceivers"] for l in cabled) != transceivers:
    sys.exit("json: %d cables, summary %d" % (len(cabled), cables))
dev = d["devices"]
switch_of = {}
for l in cabled:
    a = dev[l["a"]]
    if a["kind"] == "nic":
        switch_of.setdefault(a["node"], set()).add(l["b"])
for node, sw in switch_of.items():
    rails = d["topology"] in ("rail-optimized", "rail-optimized-3")
    if not rails and len(sw) != 1:
        sys.exit("json: node %d's NICs on %d switches" % (node, len(sw)))
    if rails and len(sw) != 8:
        sys.exit("json: node %d's 8 NICs on %d rail leaves" % (node, len(sw)))
PY
    done
done

# ---- 3:1 cannot hold on the last leaf: a warning names it ------------------

expect 0 topo "$FABRIC" --set fabric.oversubscription=3
contains "$tmp/stderr" "gpusim: warning: oversubscription 3:1 asked" "warning at 3:1"
contains "$tmp/stderr" "1 leaf of 32 NIC ports and 11 uplinks (2.91:1)" "the leaf built otherwise"
expect 0 topo "$FABRIC" --set fabric.oversubscription=3 --json
"$PYTHON" -c 'import json,sys; w=json.load(sys.stdin)["warnings"]; sys.exit(0 if len(w) == 1 and "(2.91:1)" in w[0] else 1)' \
    <"$tmp/stdout" || fail "the JSON's warnings at 3:1"
expect 0 topo "$FABRIC" --set fabric.oversubscription=2
[ ! -s "$tmp/stderr" ] || fail "a warning at 2:1, which every leaf has"

# ---- The bill's total is the cost model's network capex --------------------

cat > "$tmp/priced.ini" <<'INI'
[scenario]
name = priced
seed = 3
horizon = 6h

[pool h100]
model = DGX-H100
count = 6

[workload]
source = synthetic
rate = 2/h
jobs = 4
gpus = 8
duration = exponential(mean=1h)

[fabric]
topology = fat-tree
switch = Quantum-2-QM9700
radix = 24
oversubscription = 2

[cost]
cable_price = 450
transceiver_price = 1100
INI
expect 0 topo "$tmp/priced.ini" --bom --json
cp "$tmp/stdout" "$tmp/priced-topo.json"
expect 0 run "$tmp/priced.ini" -q -o "$tmp/priced-run"
"$PYTHON" - "$tmp/priced-topo.json" "$tmp/priced-run/summary.json" <<'PY' || fail "bill against the cost model"
import json, sys
topo = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
capex = run["metrics"]["cost_capex_network"]["value"]
total = topo["bill_of_materials_total_usd"]
# By hand: 6 nodes of 8 NICs at 2:1 on 24 ports: 2 nodes (16 NICs) and 8
# uplinks a leaf, 3 leaves, 24 uplinks on 1 spine; 4 x $36,000 + (48 + 24)
# x $450 + 48 x $1,100 = $229,200.
if abs(total - 229200) > 1e-6 or abs(capex - total) > 1e-6:
    sys.exit("bill %.2f, run's network capex %.2f, by hand 229200" % (total, capex))
PY

# ---- A topology needs no workload --------------------------------------------

cat > "$tmp/hardware.ini" <<'INI'
[scenario]
name = hardware

[pool h100]
model = DGX-H100
count = 8

[fabric]
topology = fat-tree
switch = Quantum-2-QM9700
INI
expect 0 topo "$tmp/hardware.ini" --diagram "$tmp/hardware.svg"
contains "$tmp/stdout" "switches      3: 2 leaf, 1 spine" "topo without [workload]"
contains "$tmp/hardware.svg" "<svg" "a diagram without [workload]"
# A synthetic workload that never ends (no jobs, no horizon) is no matter either.
printf '\n[workload]\nsource = synthetic\nrate = 1/h\ngpus = 8\nduration = constant(1h)\n' \
    >>"$tmp/hardware.ini"
expect 0 topo "$tmp/hardware.ini"
contains "$tmp/stdout" "cluster       8 x DGX-H100" "topo with a workload that never ends"
expect 1 run "$tmp/hardware.ini"
contains "$tmp/stderr" "never ends" "run still refuses a workload that never ends"
# What is wrong elsewhere is still reported as such.
expect 1 topo "$tmp/hardware.ini" --set fabric.radix=x
contains "$tmp/stderr" "fabric.radix" "a bad key beside the stand-in workload"

# ---- Bad input --------------------------------------------------------------

expect 1 topo "$FABRIC" --cabling "$tmp/missing/cables.csv"
contains "$tmp/stderr" "$tmp/missing/cables.csv" "a plan to a missing directory names it"
[ ! -e "$tmp/missing" ] || fail "a plan to a missing directory left something"
expect 2 topo --view node DGX-H100 --bom
contains "$tmp/stderr" "--bom lists a fabric's parts, not a node's" "--bom with the node view"
expect 2 topo --view node DGX-H100 --cabling "$tmp/node.csv"
contains "$tmp/stderr" "--cabling lists a fabric's parts" "--cabling with the node view"
[ ! -e "$tmp/node.csv" ] || fail "--cabling with the node view wrote a file"
expect 2 topo "$FABRIC" --cabling
expect 1 topo "$FABRIC" --set fabric.topology=fat-tree --set fabric.radix=8 --bom
contains "$tmp/stderr" "radix too small" "a node that fits no leaf"
contains "$tmp/stderr" "[fabric]" "the error names the section"

exit 0
