#!/bin/sh
# fabric-answers.sh: re-measures every answer about the fabric that the
# README and the docs quote, by running the commands they show, and prints
# one table, "scenario | question | figure", a row per figure in a fixed
# order, so that the tables of two builds can be set side by side:
#
#     bench/fabric-answers.sh > before.md      # on one build
#     bench/fabric-answers.sh > after.md       # on another
#     paste -d ' ' before.md after.md          # or diff them
#
# What it runs (the page that quotes each answer):
#   - gpusim compare on the three fabric scenarios, --seeds 3, demand-aware
#     sharing and always-on (docs/network.md "What the planner scenarios
#     answer", README);
#   - gpusim run on fabric-oversubscription.ini at 2:1, demand and phases
#     (docs/network.md, sharing);
#   - gpusim compare on llm-70b-shared-fabric.ini, --seeds 3 (docs/llm.md
#     "A planner's question", README);
#   - gpusim llm's 70B step at 1:1 and 2:1 (docs/llm.md quick start, README);
#   - gpusim collective's all-reduce with TCP's latency (docs/network.md).
#
# Usage: bench/fabric-answers.sh [GPUSIM]   (default: tools/gpusim of the
# tree the script is in).  Runs from the source tree's top, where the
# scenarios are; takes a few minutes.  Exits non-zero if a command fails.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
gpusim=${1:-$top/tools/gpusim}
case $gpusim in
  /*) ;;
  *) gpusim=$(pwd)/$gpusim ;;
esac
if [ ! -x "$gpusim" ]; then
  echo "fabric-answers.sh: $gpusim is not an executable gpusim (build it, or name it)" >&2
  exit 2
fi
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

row () {
  printf '| %s | %s | %s |\n' "$1" "$2" "$3"
}

# compare SCENARIO LABEL [ARGS...]: runs gpusim compare --seeds 3 and
# prints, per variant, the mean of each metric and, after the baseline, the
# difference from it (a star where its 95 % interval excludes 0).
compare () {
  scenario=$1
  label=$2
  shift 2
  "$gpusim" compare "scenarios/$scenario.ini" --seeds 3 -q --csv "$tmp/c.csv" "$@" > /dev/null
  awk -F, -v scen="$scenario" -v label="$label" '
    NR == 1 { next }
    { key = $1 SUBSEP $3 }
    !(($1) in seen_m) { seen_m[$1] = 1; metrics[++nm] = $1; unit[$1] = $2 }
    !(($3) in seen_p) { seen_p[$3] = 1; policies[++np] = $3 }
    $4 == "mean" { mean[key] = $6 }
    $4 == "diff_mean" { dmean[key] = $6 }
    $4 == "diff_ci_low" { dlow[key] = $6 }
    $4 == "diff_ci_high" { dhigh[key] = $6 }
    function fmt(v, u) {
      if (u == "s") return sprintf("%.0f s", v)
      if (u == "ratio") return sprintf("%.2f %%", 100 * v)
      return sprintf("%.4g %s", v, u)
    }
    END {
      for (i = 1; i <= nm; i++)
        for (j = 1; j <= np; j++) {
          m = metrics[i]; p = policies[j]; k = m SUBSEP p
          fig = fmt(mean[k], unit[m])
          if (k in dmean) {
            base = mean[m SUBSEP policies[1]]
            # No interval (every run gave one value): no star either.
            star = (dlow[k] != "" && dhigh[k] != "" && (dlow[k] + 0 > 0 || dhigh[k] + 0 < 0)) \
                   ? " *" : ""
            fig = fig sprintf(" (%+.1f %%%s)", 100 * dmean[k] / base, star)
          }
          printf "| %s | %s, %s%s | %s |\n", scen, m, p, label, fig
        }
    }' "$tmp/c.csv"
}

# run_jct QUESTION ARGS...: a run's mean JCT.
run_jct () {
  question=$1
  shift
  "$gpusim" run scenarios/fabric-oversubscription.ini --json -q "$@" > "$tmp/run.json"
  awk -v q="$question" '
    /"jct_mean"/ { getline; sub(/.*: */, ""); sub(/,.*/, ""); v = $0 + 0
                   printf "| fabric-oversubscription | %s | %.1f s (%d:%02d:%02d) |\n", q, v,
                          int(v / 3600), int(v / 60) % 60, int(v + 0.5) % 60; exit }' "$tmp/run.json"
}

# llm QUESTION ARGS...: the 70B step's iteration time and its exposed
# tensor-parallel and data-parallel communication.
llm () {
  question=$1
  shift
  "$gpusim" llm scenarios/llm-70b-shared-fabric.ini --model llama3-70b --tp 8 --pp 4 --dp 8 \
    --global-batch 512 --tokens 20B "$@" > "$tmp/llm.txt"
  iter=$(awk '$1 == "iteration" { print $2; exit }' "$tmp/llm.txt")
  tp=$(awk '$1 == "tensor" { print $3; exit }' "$tmp/llm.txt")
  dp=$(awk '$1 == "data" { print $3 " exposed, " $6 " hidden"; exit }' "$tmp/llm.txt")
  row llm-70b-shared-fabric "$question: iteration" "$iter s"
  row llm-70b-shared-fabric "$question: tensor parallel exposed" "$tp s"
  row llm-70b-shared-fabric "$question: data parallel" "$dp"
}

# collective QUESTION ARGS...: the all-reduce's time at 8 B and at the
# largest size printed, with the algorithm chosen.
collective () {
  question=$1
  shift
  "$gpusim" collective scenarios/fabric-ethernet-vs-infiniband.ini --op all_reduce --gpus 16 \
    --max 64KB "$@" > "$tmp/coll.txt"
  awk -v q="$question" '
    /^#/ || NF < 8 { next }
    !first { first = $0 }
    { last = $0 }
    function show(line,   f) {
      split(line, f, " ")
      printf "| fabric-ethernet-vs-infiniband | %s, %s B all-reduce on 16 GPUs | %s us (%s %s) |\n", \
        q, f[1], f[6], f[9], f[10]
    }
    END { show(first); show(last) }' "$tmp/coll.txt"
}

echo "| scenario | question | figure |"
echo "|---|---|---|"
for s in fabric-oversubscription fabric-ethernet-vs-infiniband fabric-rail-vs-fat-tree; do
  compare "$s" "" -m jct_mean -m gpu_utilization -m gpu_activity
done
for s in fabric-oversubscription fabric-ethernet-vs-infiniband fabric-rail-vs-fat-tree; do
  compare "$s" ", always-on" -m jct_mean -m gpu_utilization --set fabric.sharing=always-on
done
run_jct "jct_mean, 2:1, demand (one run, seed 1)" --set fabric.oversubscription=2
run_jct "jct_mean, 2:1, phases (one run, seed 1)" --set fabric.oversubscription=2 \
  --set fabric.sharing=phases
compare llm-70b-shared-fabric "" -m jct_mean -m gpu_compute_utilization -m wait_mean
llm "70B step, tp 8 pp 4 dp 8, 1:1"
llm "70B step, tp 8 pp 4 dp 8, 2:1" --set fabric.oversubscription=2
collective "InfiniBand"
collective "InfiniBand with TCP's 20 us" --set fabric.transport_latency=20us
