#!/bin/sh
# test-pictures.sh: diagrams, the HTML report and the timeline, end to end.
#
# What it checks:
# - SVG diagrams parse as XML and hold the expected boxes and edges (8
#   nodes on rails: 10 boxes and 16 edges collapsed (the nodes, each rail
#   leaf, the spine; NIC i of the nodes to rail i, each rail's uplinks), 17
#   boxes and 72 edges expanded; a 64-node fat-tree: 16 racks under 16 leaves and one spine
#   box; the same expanded, with spines, leaves, racks and nodes in index
#   order left to right), and no two labels overlap (each label's box estimated from its
#   position, anchor, font size and length);
# - the node view of every node model of the catalogue draws its GPU and
#   NIC counts;
# - heat from a run: the box of a collapsed rack shows the mean of its
#   nodes' allocation in nodes.csv, and nodes.csv's allocation, weighted
#   by GPUs, is the run's gpu_utilization;
# - the report has every section and chart, loads nothing from the
#   network, and its data agree with the run (finished jobs, the median
#   JCT between its neighbours in jobs.csv, the mean allocation over time
#   with gpu_utilization); per-policy bars come from a compare CSV;
# - the timeline parses as JSON with one run slice per job run (1 +
#   preemptions per finished job in jobs.csv, starting at its first start
#   and ending at its end), one GPU slice per GPU of each run, slices of a
#   GPU lane that never overlap, a preemption event per GPU left, and one
#   MIG reconfiguration per MIG job;
# - with [failures] (drain = migrate and kill): one failure instant per
#   failure in the summary (by type), one outage per failure from it to
#   its repair, holding its detection (2 min) and its repair; no job run
#   starts on a node an outage holds out, and a run across a failure ends
#   at it (interrupted) or by its detection (migrated off the drained
#   node); runs interrupted by cause and migrated as in the summary, an
#   interruption event per GPU left, a wait for the detection after each
#   interrupted run, checkpoints and restarts within their run; the time series' interruptions add up to the summary's; the
#   report has the Failures section, its table and charts with the
#   summary's figures; a run without [failures] has none of it;
# - the same run gives the same bytes (report, timeline, nodes.csv,
#   topology.dot);
# - a diagram wider than --max-width (default 200 boxes or labels side by
#   side: 32 nodes on rails expanded are 256) is refused before its layout,
#   naming its width, what is wide and what would draw it;
# - bad input: a missing run directory, an unknown --color-by, an unknown
#   node model, --color-by power on a run without power, --max-width
#   without a diagram: clear messages and a non-zero exit.
#
# What it does not check: how the pictures look (tests/test-browser.sh
# renders the report), Graphviz's layout beyond label overlaps, or the
# wording of messages beyond the phrases below.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
S="$SIM_TOP_SRCDIR/scenarios"
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=$(command -v python3) || { echo "test-pictures.sh: SKIP: no python3"; exit 77; }

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-pictures.XXXXXX") || exit 1
trap '[ -n "${SIM_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail () {
    printf 'test-pictures.sh: FAIL: %s\n' "$*" >&2
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

# ---- SVG: structure and labels ----------------------------------------------

RAILS="$S/fabric-rail-vs-fat-tree.ini"
rail8="--set fabric.topology=rail-optimized --set pool h100.count=8"
expect 0 topo "$RAILS" --set fabric.topology=rail-optimized --set "pool h100.count=8" \
    --diagram "$tmp/rails.svg"
expect 0 topo "$RAILS" --set fabric.topology=rail-optimized --set "pool h100.count=8" \
    --diagram "$tmp/rails-expanded.svg" --expand
expect 0 topo "$RAILS" --diagram "$tmp/fat-tree.svg"

cat >"$tmp/svgcheck.py" <<'PY'
import sys, xml.etree.ElementTree as ET
NS = {"s": "http://www.w3.org/2000/svg"}
path, want_nodes, want_edges = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
root = ET.parse(path).getroot()
groups = root.findall(".//s:g", NS)
nodes = [g for g in groups if g.get("class") == "node" and
         g.find("s:title", NS).text != "legend"]
edges = [g for g in groups if g.get("class") == "edge"]
if len(nodes) != want_nodes or len(edges) != want_edges:
    sys.exit("%s: %d boxes and %d edges, expected %d and %d" %
             (path, len(nodes), len(edges), want_nodes, want_edges))
# Every label's box: width from an average glyph of 0.5 em (Helvetica's
# digits and lower case are 0.5-0.56 em), height one em above the baseline.
boxes = []
for t in root.iter("{http://www.w3.org/2000/svg}text"):
    text = "".join(t.itertext()).strip()
    if not text:
        continue
    x, y = float(t.get("x")), float(t.get("y"))
    fs = float(t.get("font-size", "14"))
    w = 0.5 * fs * len(text)
    anchor = t.get("text-anchor", "start")
    x0 = x - w / 2 if anchor == "middle" else (x - w if anchor == "end" else x)
    boxes.append((x0, y - 0.75 * fs, x0 + w, y, text))
for i in range(len(boxes)):
    for j in range(i + 1, len(boxes)):
        a, b = boxes[i], boxes[j]
        if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
            sys.exit("%s: labels overlap: %r at %s and %r at %s" %
                     (path, a[4], a[:2], b[4], b[:2]))
PY
"$PYTHON" "$tmp/svgcheck.py" "$tmp/rails.svg" 10 16 || fail "collapsed rail diagram"
"$PYTHON" "$tmp/svgcheck.py" "$tmp/rails-expanded.svg" 17 72 || fail "expanded rail diagram"
# 64 nodes on 16 leaves (4 per leaf: 32 NDR ports down), 8 spines in one box.
"$PYTHON" "$tmp/svgcheck.py" "$tmp/fat-tree.svg" 33 32 || fail "fat-tree diagram"
contains "$tmp/rails.svg" "rail 7" "rails drawn as rails"
contains "$tmp/rails.svg" "NIC 7" "the NIC-to-rail pattern"
contains "$tmp/rails.svg" "rail group 0" "the rail group"
contains "$tmp/fat-tree.svg" "rack 15" "racks as clusters"
contains "$tmp/fat-tree.svg" "oversubscription, leaf tier" "legend"

# Expanded, the same fat-tree keeps every tier in index order, left to
# right: spines 0-7, leaves 0-15, racks 0-15 and nodes 0-63 (64 node boxes,
# 16 leaves and 8 spines; 64 node-to-leaf bundles and 16 x 8 leaf-to-spine
# bundles of 4 links), and no two labels overlap.
expect 0 topo "$RAILS" --diagram "$tmp/fat-tree-expanded.svg" --expand
"$PYTHON" "$tmp/svgcheck.py" "$tmp/fat-tree-expanded.svg" 88 192 || fail "expanded fat-tree"
"$PYTHON" - "$tmp/fat-tree-expanded.svg" <<'PY' || fail "expanded fat-tree out of order"
import re, sys, xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
for prefix, count in (("spine", 8), ("leaf", 16), ("rack", 16), ("node", 64)):
    seen = []
    for g in root.iter(S + "g"):
        if g.get("class") not in ("node", "cluster"):
            continue
        for t in g.iter(S + "text"):
            m = re.fullmatch(prefix + r" (\d+)", "".join(t.itertext()))
            if m:
                seen.append((float(t.get("x")), int(m.group(1))))
    order = [n for x, n in sorted(seen)]
    if order != list(range(count)):
        sys.exit("%ss drawn left to right as %s" % (prefix, order))
PY

# Too wide to read: 32 nodes on rails, expanded, are 256 bundles side by
# side (one per node and rail), past the default limit of 200; refused
# before any layout, with what would draw it, and no file.  Collapsed it
# draws; so does the expanded one with a larger --max-width (checked on
# DOT, which needs no layout).
expect 1 topo "$RAILS" --set fabric.topology=rail-optimized --set "pool h100.count=32" \
    --diagram "$tmp/wide.png" --expand
contains "$tmp/stderr" "wide.png: the diagram would be 256 boxes or labels wide" "width limit"
contains "$tmp/stderr" "256 labelled bundles of links from the nodes up" "what is wide"
contains "$tmp/stderr" "expected a collapsed diagram" "what would draw it"
contains "$tmp/stderr" "(--max-width)" "the option that raises the limit"
[ ! -e "$tmp/wide.png" ] || fail "a refused diagram left a file"
expect 0 topo "$RAILS" --set fabric.topology=rail-optimized --set "pool h100.count=32" \
    --diagram "$tmp/wide.svg"
expect 0 topo "$RAILS" --set fabric.topology=rail-optimized --set "pool h100.count=32" \
    --diagram "$tmp/wide.dot" --expand --max-width 256
expect 1 topo "$RAILS" --diagram "$tmp/narrow.svg" --max-width 3
contains "$tmp/stderr" "16 boxes of nodes" "the widest tier, collapsed"
expect 2 topo "$RAILS" --max-width 10
contains "$tmp/stderr" "--max-width needs --diagram FILE" "--max-width without a diagram"
expect 2 topo "$RAILS" --format svg
contains "$tmp/stderr" "--format needs --diagram FILE" "--format without a diagram"
expect 2 topo "$RAILS" --stat peak
contains "$tmp/stderr" "--stat needs --color-by" "--stat without --color-by"

# Formats: DOT, PNG and PDF by their magic numbers.
expect 0 topo "$RAILS" --diagram "$tmp/f.dot"
head -c 13 "$tmp/f.dot" | grep -q "graph network" || fail "DOT output"
expect 0 topo "$RAILS" --diagram "$tmp/f.png"
head -c 4 "$tmp/f.png" | od -c | grep -q "P   N   G" || fail "PNG output"
expect 0 topo "$RAILS" --diagram "$tmp/f.pdf"
head -c 4 "$tmp/f.pdf" | grep -q "%PDF" || fail "PDF output"

# ---- Node views ---------------------------------------------------------------

for m in DGX-H100 DGX-A100 HGX-B200 HGX-H200 MI300X-8 PCIe-8GPU; do
    expect 0 topo --view node "$m" --diagram "$tmp/node.svg"
    "$PYTHON" - "$tmp/node.svg" "$tmp/stdout" <<'PY' || fail "node view of $m"
import re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
titles = [g.find("{http://www.w3.org/2000/svg}title").text
          for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "node"]
out = open(sys.argv[2]).read()
gpus = int(re.search(r"gpus +(\d+) x", out).group(1))
nics = int(re.search(r"nics +(\d+) x", out).group(1))
got_g = sum(1 for t in titles if re.fullmatch(r"gpu\d+", t))
got_n = sum(1 for t in titles if re.fullmatch(r"nic\d+", t))
if (got_g, got_n) != (gpus, nics):
    sys.exit("%d GPUs and %d NICs drawn, the model has %d and %d" % (got_g, got_n, gpus, nics))
PY
done

# ---- A run with a fabric and power: report, heat, timeline -----------------

POWER="$S/power-air.ini"
run_args="--set fabric.topology=fat-tree --set fabric.switch=Quantum-QM8700 --set fabric.oversubscription=2 --set scenario.horizon=2d"
# shellcheck disable=SC2086
expect 0 run "$POWER" $run_args -o "$tmp/run" --report "$tmp/report.html" --timeline "$tmp/t.json"
for f in summary.json jobs.csv timeseries.csv nodes.csv topology.dot; do
    [ -s "$tmp/run/$f" ] || fail "gpusim run -o did not write $f"
done
# shellcheck disable=SC2086
expect 0 run "$POWER" $run_args -o "$tmp/run2" --report "$tmp/report2.html" --timeline "$tmp/t2.json"
cmp -s "$tmp/report.html" "$tmp/report2.html" || fail "the report differs between two runs"
# Without -o the outputs go to a temporary directory: the report is the same.
# shellcheck disable=SC2086
expect 0 run "$POWER" $run_args --report "$tmp/report3.html"
cmp -s "$tmp/report.html" "$tmp/report3.html" || fail "run --report without -o differs"
cmp -s "$tmp/t.json" "$tmp/t2.json" || fail "the timeline differs between two runs"
cmp -s "$tmp/run/nodes.csv" "$tmp/run2/nodes.csv" || fail "nodes.csv differs between two runs"
cmp -s "$tmp/run/topology.dot" "$tmp/run2/topology.dot" || fail "topology.dot differs"

expect 0 topo "$POWER" $run_args --from-run "$tmp/run" --color-by utilization --diagram "$tmp/heat.svg"
expect 0 topo "$POWER" $run_args --from-run "$tmp/run" --color-by power --stat peak --diagram "$tmp/heat-power.svg"
contains "$tmp/heat-power.svg" "node power, peak, share of rated maximum" "power heat scale"
"$PYTHON" - "$tmp/run" "$tmp/heat.svg" <<'PY' || fail "heat from the run"
import csv, json, re, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/nodes.csv")))
summary = json.load(open(d + "/summary.json"))
util = summary["metrics"]["gpu_utilization"]["value"]
gpus = sum(int(r["gpus"]) for r in rows)
weighted = sum(float(r["utilization_mean"]) * int(r["gpus"]) for r in rows) / gpus
if abs(weighted - util) > 1e-4:
    sys.exit("nodes.csv allocation %.6f, summary gpu_utilization %.6f" % (weighted, util))
import xml.etree.ElementTree as ET
SVG = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[2]).getroot()
texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
if "GPUs allocated, time-averaged" not in texts:
    sys.exit("no heat scale in the legend")
checked = 0
for g in root.iter(SVG + "g"):
    if g.get("class") != "node":
        continue
    lines = ["".join(t.itertext()) for t in g.iter(SVG + "text")]
    rng = [re.fullmatch(r"nodes (\d+)-(\d+)", l) for l in lines]
    pct = [re.fullmatch(r"(\d+) % \(mean\)", l) for l in lines]
    rng = [m for m in rng if m]
    pct = [m for m in pct if m]
    if not rng or not pct:
        continue
    a, b, p = int(rng[0].group(1)), int(rng[0].group(2)), int(pct[0].group(1))
    mean = sum(float(r["utilization_mean"]) for r in rows[a:b + 1]) / (b - a + 1)
    if abs(100 * mean - p) > 0.5 + 1e-9:
        sys.exit("rack of nodes %d-%d shows %d %%, nodes.csv says %.2f %%" % (a, b, p, 100 * mean))
    checked += 1
if checked == 0:
    sys.exit("no rack box with a percentage")
PY

# The report: sections, charts, data.
"$PYTHON" - "$tmp/report.html" "$tmp/run" <<'PY' || fail "the report"
import csv, json, re, sys
html = open(sys.argv[1]).read()
d = sys.argv[2]
for sec in ["scenario", "metrics", "topology", "over-time", "distributions"]:
    if 'id="%s"' % sec not in html:
        sys.exit("no section " + sec)
for chart in ["chart-allocation", "chart-queue", "chart-power", "chart-pue", "chart-jct", "chart-wait"]:
    if '<canvas id="%s"' % chart not in html:
        sys.exit("no chart " + chart)
if "<svg" not in html or "Chart.js v" not in html:
    sys.exit("no inline diagram or no inline Chart.js")
if re.search(r'<(script|link|img)[^>]+(src|href)=', html):
    sys.exit("the report loads a file")
data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                            html, re.S).group(1))
summary = json.load(open(d + "/summary.json"))
m = summary["metrics"]
if data["finished_jobs"] != m["jobs_completed"]["value"]:
    sys.exit("finished jobs %s, summary %s" % (data["finished_jobs"], m["jobs_completed"]["value"]))
jct = sorted(float(r["jct_s"]) for r in csv.DictReader(open(d + "/jobs.csv")))
q50 = data["jct"][250]
lo, hi = jct[(len(jct) - 1) // 2 - 1], jct[len(jct) // 2 + 1]
if not lo * (1 - 1e-6) <= q50 <= hi * (1 + 1e-6):
    sys.exit("median JCT %g outside [%g, %g]" % (q50, lo, hi))
s = data["series"]
mean_alloc = sum(s["utilization"]) / len(s["utilization"])
want = m["gpu_utilization"]["value"] * s["gpus"]
if abs(mean_alloc - want) > 0.01 * want:
    sys.exit("mean allocation %g GPUs, summary says %g" % (mean_alloc, want))
if len(s["pue"]) != len(s["time_s"]) or min(p for p in s["pue"] if p) < 1:
    sys.exit("PUE series")
PY

# Per-policy bars from a compare CSV.
expect 0 compare "$S/quickstart.ini" --policy first-fit --policy best-fit --seeds 2 \
    --set scenario.horizon=2d --csv "$tmp/run/compare.csv" --quiet
expect 0 report "$tmp/run" -o "$tmp/report-compare.html"
contains "$tmp/report-compare.html" 'id="policies"' "report with a comparison"
contains "$tmp/report-compare.html" '<canvas id="chart-compare-0"' "per-policy bars"
"$PYTHON" - "$tmp/report-compare.html" "$tmp/run/compare.csv" <<'PY' || fail "compare bars"
import csv, json, re, sys
html = open(sys.argv[1]).read()
data = json.loads(re.search(r'id="report-data">(.*?)</script>', html, re.S).group(1))
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["statistic"] in ("mean", "ci_low", "ci_high")]
c = data["compare"]
for r in rows:
    k = [m["name"] for m in c["metrics"]].index(r["metric"])
    i = c["policies"].index(r["policy"])
    key = {"mean": "mean", "ci_low": "low", "ci_high": "high"}[r["statistic"]]
    got = c["metrics"][k][key][i]
    if abs(got - float(r["value"])) > 1e-5 * max(1, abs(float(r["value"]))):
        sys.exit("%s %s %s: %g, CSV %s" % (r["metric"], r["policy"], key, got, r["value"]))
PY

# ---- Timeline: preemptions (LAS) and MIG --------------------------------------

expect 0 run "$S/quickstart.ini" --set policy.queue=las --set scenario.horizon=3d \
    -o "$tmp/las" --timeline "$tmp/las.json"
expect 0 run "$S/mig-inference.ini" --set "class inference.mig=1g.5gb" -o "$tmp/mig" \
    --timeline "$tmp/mig.json"
cat >"$tmp/tlcheck.py" <<'PY'
import csv, json, sys
from collections import defaultdict
events = json.load(open(sys.argv[1]))["traceEvents"]
jobs = {r["id"]: r for r in csv.DictReader(open(sys.argv[2]))}
want_mig = int(sys.argv[3])
runs = defaultdict(list)
begin = {}
for e in events:
    if e.get("cat") == "run":
        if e["ph"] == "b":
            begin[e["id"]] = e
        else:
            b = begin.pop(e["id"])
            runs[str(b["args"]["job"])].append((b["ts"], e["ts"], b["args"]))
if begin:
    sys.exit("run slices never ended")
preempted = 0
for jid, r in jobs.items():
    got = sorted(runs.get(jid, []))
    n = 1 + int(r["preemptions"])
    if len(got) != n:
        sys.exit("job %s: %d run slices, jobs.csv says %d runs" % (jid, len(got), n))
    # start_s is the first start; end_s the end of the last run.
    if abs(got[0][0] - float(r["start_s"]) * 1e6) > 1 or abs(got[-1][1] - float(r["end_s"]) * 1e6) > 1:
        sys.exit("job %s: runs from %s to %s us, jobs.csv %s to %s s" %
                 (jid, got[0][0], got[-1][1], r["start_s"], r["end_s"]))
    preempted += n - 1
# GPU slices: one per GPU of each run; lanes never overlap.
gpu_slices = defaultdict(int)
lanes = defaultdict(list)
for e in events:
    if e["ph"] == "X" and e["cat"] == "job":
        gpu_slices[(e["args"]["job"], e["args"]["run"])] += 1
        lanes[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
for (job, run), n in gpu_slices.items():
    for b in runs.get(str(job), []):
        pass
for key, spans in lanes.items():
    spans.sort()
    for a, b in zip(spans, spans[1:]):
        if b[0] < a[1] - 1e-3:
            sys.exit("track %s: slices overlap: %s and %s" % (key, a, b))
per_run_gpus = {}
for jid, rs in runs.items():
    for (s, e, args) in rs:
        if gpu_slices[(args["job"], args["run"])] != args["gpus"]:
            sys.exit("job %s run %d: %d GPU slices for %d GPUs" %
                     (jid, args["run"], gpu_slices[(args["job"], args["run"])], args["gpus"]))
preempt_events = sum(1 for e in events if e.get("cat") == "preemption")
preempt_gpus = sum(args["gpus"] for rs in runs.values() for (s, e, args) in rs
                   if args["end"] == "preempted")
if preempt_events != preempt_gpus:
    sys.exit("%d preemption events, %d GPUs left by preempted runs" % (preempt_events, preempt_gpus))
mig = sum(1 for e in events if e.get("cat") == "mig")
if mig != want_mig:
    sys.exit("%d MIG reconfigurations, expected %d" % (mig, want_mig))
print(preempted)
PY
n=$("$PYTHON" "$tmp/tlcheck.py" "$tmp/las.json" "$tmp/las/jobs.csv" 0) || fail "LAS timeline"
[ "$n" -gt 0 ] || fail "LAS preempted no finished job: the timeline check checked no preemption"
# One MIG reconfiguration per job: all 560 jobs ask for a 1g.5gb instance.
"$PYTHON" "$tmp/tlcheck.py" "$tmp/mig.json" "$tmp/mig/jobs.csv" 560 >/dev/null || fail "MIG timeline"

# ---- Failures: on the timeline, in the report, in the time series -------------

# 16 DGX H100 for a week with failure rates raised so that GPUs, hosts,
# leaves and the software stack all fail; a hot spare, hourly checkpoints.
cat >"$tmp/failures.ini" <<'INI'
[scenario]
name = failures-small
seed = 3
horizon = 7d

[pool h100]
model = DGX-H100
count = 16

[workload]
source = synthetic
rate = 3/h

[class small]
share = 0.6
gpus = 1:0.5, 2:0.3, 4:0.2
duration = lognormal(median=20min, sigma=1.2)

[class node]
share = 0.3
gpus = 8
duration = lognormal(median=2h, sigma=1.0)

[class multinode]
share = 0.1
gpus = 16:0.6, 32:0.4
duration = lognormal(median=6h, sigma=0.8)

[failures]
gpu_mtbf = 3000h
node_mtbf = 1500h
software_mtbf = 1000h
leaf_mtbf = 400h
spares = 1
checkpoint_interval = 1h
checkpoint_size = 10GB
storage_bandwidth = 1GB/s

[output]
timeseries_interval = 1h
INI
for drain in migrate kill; do
    expect 0 run "$tmp/failures.ini" --set failures.drain=$drain -o "$tmp/f-$drain" \
        --timeline "$tmp/f-$drain.json" --report "$tmp/f-$drain.html"
    "$PYTHON" "$tmp/tlcheck.py" "$tmp/f-$drain.json" "$tmp/f-$drain/jobs.csv" 0 >/dev/null ||
        fail "failures timeline ($drain): runs and GPU slices"
done
expect 0 run "$tmp/failures.ini" --set failures.drain=migrate -o "$tmp/f-migrate2" \
    --timeline "$tmp/f-migrate2.json" --report "$tmp/f-migrate2.html"
cmp -s "$tmp/f-migrate.json" "$tmp/f-migrate2.json" || fail "a failures timeline differs between two runs"
cmp -s "$tmp/f-migrate.html" "$tmp/f-migrate2.html" || fail "a failures report differs between two runs"
cat >"$tmp/fcheck.py" <<'PY'
import csv, json, sys
from collections import defaultdict
events = json.load(open(sys.argv[1]))["traceEvents"]
d = sys.argv[2]
drain = sys.argv[3]
m = {k: v["value"] for k, v in json.load(open(d + "/summary.json"))["metrics"].items()}
types = ["gpu", "hbm", "nvswitch", "nic", "cable", "node", "software", "leaf", "spine", "core"]
US = 1e6
# One failure instant per failure counted, by type.
inst = [e for e in events if e.get("cat") == "failure" and e["ph"] == "i"]
if len(inst) != m["failures"]:
    sys.exit("%d failure events, summary failures %g" % (len(inst), m["failures"]))
for t in types:
    n = sum(1 for e in inst if e["args"]["type"] == t)
    if n != m["failures_" + t]:
        sys.exit("%d %s failure events, summary %g" % (n, t, m["failures_" + t]))
for t in ["gpu", "node", "software", "leaf"]:
    if m["failures_" + t] == 0:
        sys.exit("no %s failure: the scenario no longer tests it" % t)
# One outage per failure, on the failure's track, holding its detection
# (2 min, self-healing) and its repair, which ends with it.
track = lambda e: (e["pid"], e["tid"])
out = {e["args"]["fault"]: e for e in events if e.get("cat") == "outage"}
det = {e["args"]["fault"]: e for e in events if e.get("cat") == "detection" and e["ph"] == "X"}
rep = {e["args"]["fault"]: e for e in events if e.get("cat") == "repair"}
if sorted(out) != sorted(e["args"]["fault"] for e in inst):
    sys.exit("outages and failures differ")
for e in inst:
    o = out[e["args"]["fault"]]
    if track(o) != track(e) or abs(o["ts"] - e["ts"]) > 1e-3:
        sys.exit("fault %d: the outage does not start at the failure, on its track" % e["args"]["fault"])
    dt = det[e["args"]["fault"]]
    if abs(dt["ts"] - o["ts"]) > 1e-3 or abs(dt["dur"] - min(120 * US, o["dur"])) > 1e-3:
        sys.exit("fault %d: detection %s" % (e["args"]["fault"], dt))
    r = rep.get(e["args"]["fault"])
    if o["args"]["repaired"]:
        if r is None or abs(r["ts"] + r["dur"] - (o["ts"] + o["dur"])) > 1e-3 or \
           abs(r["ts"] - (dt["ts"] + dt["dur"])) > 1e-3:
            sys.exit("fault %d: the outage does not end at its repair" % e["args"]["fault"])
# Job runs: none starts on a node while an outage holds it out; a run that
# holds a failure's instant ends at it (interrupted) or, drained, by its
# detection (migrated; with drain = kill, none is).
node_out = defaultdict(list)
for o in out.values():
    if "nodes_out" in o["args"]:
        a, b = o["args"]["nodes_out"]
        for n in range(a, b + 1):
            node_out[n + 1].append(o)
checked = 0
for e in events:
    if e["ph"] != "X" or e["cat"] != "job":
        continue
    s, t = e["ts"], e["ts"] + e["dur"]
    for o in node_out[e["pid"]]:
        a, b = o["ts"], o["ts"] + o["dur"]
        if s >= b - 1e-3 or t <= a + 1e-3:
            continue
        checked += 1
        if s > a - 1e-3:
            sys.exit("job %s run %s starts at %s us on node %d, out since %s us until %s" %
                     (e["args"]["job"], e["args"]["run"], s, e["pid"] - 1, a, b))
        if e["args"]["end"] != "migrated" or drain != "migrate" or t > a + 120 * US + 1e-3:
            sys.exit("job %s run %s (%s) runs on node %d past its failure at %s us" %
                     (e["args"]["job"], e["args"]["run"], e["args"]["end"], e["pid"] - 1, a))
# Interruptions: one run ended per job interrupted, by cause, an instant on
# each of its GPUs, and the time series counts them.
runs = {}
for e in events:
    if e.get("cat") == "run" and e["ph"] == "b":
        runs[e["id"]] = e
ended = [b for b in runs.values() if b["args"]["end"] == "interrupted"]
if len(ended) != m["interruptions"] or m["interruptions"] == 0:
    sys.exit("%d runs interrupted, summary interruptions %g" % (len(ended), m["interruptions"]))
for t in types:
    n = sum(1 for b in ended if b["args"]["cause"] == t)
    if n != m["interruptions_" + t]:
        sys.exit("%d runs interrupted by %s, summary %g" % (n, t, m["interruptions_" + t]))
marks = sum(1 for e in events if e.get("cat") == "interruption")
if marks != sum(b["args"]["gpus"] for b in ended):
    sys.exit("%d interruption events, %d GPUs left by interrupted runs" %
             (marks, sum(b["args"]["gpus"] for b in ended)))
migrated = sum(1 for b in runs.values() if b["args"]["end"] == "migrated")
if migrated != m["migrations"]:
    sys.exit("%d runs migrated, summary migrations %g" % (migrated, m["migrations"]))
series = list(csv.DictReader(open(d + "/timeseries.csv")))
if sum(int(r["interruptions"]) for r in series) != m["interruptions"]:
    sys.exit("timeseries.csv: %d interruptions" % sum(int(r["interruptions"]) for r in series))
# Checkpoints and restarts sit within their run; each interrupted run but
# those still held at the end waited for the detection.
span = {}
for e in events:
    if e.get("cat") == "run":
        span.setdefault(e["id"], [None, None])[0 if e["ph"] == "b" else 1] = e["ts"]
phase = defaultdict(list)
for e in events:
    if e.get("cat") in ("checkpoint", "restart") and e["ph"] in "be":
        phase[(e["cat"], e["id"], e["ph"])].append(e["ts"])
n_ckpt = 0
for (cat, id_, ph), ts in phase.items():
    for x in ts:
        if x < span[id_][0] - 1e-3 or x > span[id_][1] + 1e-3:
            sys.exit("a %s of run %s outside the run" % (cat, id_))
    n_ckpt += cat == "checkpoint" and ph == "b" and len(ts)
if n_ckpt == 0 or not any(c == "restart" for (c, i, p) in phase):
    sys.exit("no checkpoint or no restart on the job tracks")
waits = {e["id"]: e["ts"] for e in events if e.get("cat") == "detection" and e["ph"] == "b"}
if sorted(waits) != sorted(b["id"] for b in ended):
    sys.exit("%d waits for detection, %d runs interrupted" % (len(waits), len(ended)))
for id_, ts in waits.items():
    if abs(ts - span[id_][1]) > 1e-3:
        sys.exit("run %s: its wait for detection does not start where it ended" % id_)
print(checked)
PY
for drain in migrate kill; do
    "$PYTHON" "$tmp/fcheck.py" "$tmp/f-$drain.json" "$tmp/f-$drain" $drain >/dev/null ||
        fail "failures timeline ($drain)"
done
# The report: a Failures section, its table and charts, the data of the run.
"$PYTHON" - "$tmp/f-migrate.html" "$tmp/f-migrate" <<'PY' || fail "the report of a run with failures"
import json, re, sys
html = open(sys.argv[1]).read()
m = {k: v["value"] for k, v in json.load(open(sys.argv[2] + "/summary.json"))["metrics"].items()}
if 'id="failures"' not in html:
    sys.exit("no section failures")
for chart in ["chart-failure-causes", "chart-interruptions"]:
    if '<canvas id="%s"' % chart not in html:
        sys.exit("no chart " + chart)
for row in ["GPU-hours lost (work redone)", "GPU-hours writing checkpoints",
            "effective training time ratio (ETTR)", "<td>gpu</td>", "<td>leaf</td>"]:
    if row not in html:
        sys.exit("no row " + row)
want = "%.4g %%" % (100 * m["ettr"])
if want not in html:
    sys.exit("ETTR %s not in the page" % want)
data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                            html, re.S).group(1))
f = data["failures"]
for t, n, k in zip(f["types"], f["failures"], f["interruptions"]):
    if n != m["failures_" + t] or k != m["interruptions_" + t]:
        sys.exit("%s: %g failures, %g interruptions in the chart" % (t, n, k))
if sum(f["failures"]) != m["failures"]:
    sys.exit("the chart leaves out failures")
if sum(data["series"]["interruptions"]) != m["interruptions"]:
    sys.exit("the series counts %g interruptions" % sum(data["series"]["interruptions"]))
PY
# A run without [failures] has none of it.
contains "$tmp/run/timeseries.csv" "activity,it_power_w,cooling_power_w,facility_power_w,pue" "the power time series"
head -n 1 "$tmp/run/timeseries.csv" | grep -q interruptions && fail "interruptions in a run without failures"
grep -q 'id="failures"' "$tmp/report.html" && fail "a Failures section without failures"
grep -q '"cat": "failure"\|"cat": "outage"\|"end": "interrupted"' "$tmp/las.json" "$tmp/t.json" &&
    fail "failure events in a timeline without failures"

# ---- Bad input ----------------------------------------------------------------

expect 1 report "$tmp/no-such-run"
contains "$tmp/stderr" "no such run directory" "gpusim report of a missing directory"
expect 2 topo "$RAILS" --from-run "$tmp/run" --color-by heat --diagram "$tmp/x.svg"
contains "$tmp/stderr" "expected utilization, link-load or power" "unknown --color-by"
expect 1 topo --view node DGX-H900
contains "$tmp/stderr" "unknown node model \"DGX-H900\"" "unknown node model"
contains "$tmp/stderr" "DGX-H100" "unknown node model: the known ones"
expect 1 topo "$POWER" $run_args --from-run "$tmp/no-such-run" --color-by utilization --diagram "$tmp/x.svg"
contains "$tmp/stderr" "no such run directory" "--from-run of a missing directory"
expect 1 topo "$S/quickstart.ini" --set policy.queue=las --set scenario.horizon=3d \
    --from-run "$tmp/las" --color-by power --diagram "$tmp/x.svg"
contains "$tmp/stderr" "no [power] section" "--color-by power without power"
expect 1 topo "$RAILS" --from-run "$tmp/las" --color-by utilization --diagram "$tmp/x.svg"
contains "$tmp/stderr" "was the run made from this scenario" "--from-run of another cluster"
[ ! -e "$tmp/x.svg" ] || fail "a failed diagram left a file"

echo "test-pictures.sh: all checks passed"
