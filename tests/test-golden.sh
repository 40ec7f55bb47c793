#!/bin/sh
# test-golden.sh: runs with the network model give the recorded bytes.
#
# What it checks: that `gpusim run` of the shipped fabric scenarios and of
# tests/data/golden-network.ini (512 GPUs, a day of communicating jobs)
# under each sharing mode, routing mode and topology (and under each
# routing mode again at 4:1 oversubscription) writes jobs.csv,
# timeseries.csv, nodes.csv and summary.json (less its "gpusim" version
# line) whose SHA-256 are those in tests/data/golden-runs.txt.  Those were
# recorded with the build before the network model's speed-ups (plans kept
# by shape, candidates skipped by cut bounds, routes from kept segments,
# rates refreshed for marked jobs only: README, Performance), so every
# change made for speed is held to change no result, to the last bit (the
# dragonfly case was recorded with the build before a dragonfly's routes
# took their hop distances from its structure rather than a search; the
# net-phases summary.json was recorded again when solves were confined to
# what changed, its GPU compute utilization moving in the 16th digit,
# 0.41521456272668206 to ...195, every other output the same; the os4-*
# cases were recorded when they were added, after the speed-ups).  A
# change that means to change results records them again with
# `tests/test-golden.sh --update` and says why.
#
# What it does not check: that the recorded results are right (the other
# suites compare the models with closed forms and published figures).
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both) and
# sha256sum.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
GOLDEN="$SIM_TOP_SRCDIR/tests/data/golden-runs.txt"
NET="$SIM_TOP_SRCDIR/tests/data/golden-network.ini"
SCEN="$SIM_TOP_SRCDIR/scenarios"

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

update=no
[ "${1:-}" = --update ] && update=yes

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-golden.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# One case a line: a name, then gpusim run's arguments.
OS4="$NET --set fabric.oversubscription=4 --set fabric.sharing=always-on"
cat > "$tmp/cases" <<CASES
oversubscription $SCEN/fabric-oversubscription.ini
ethernet-vs-infiniband $SCEN/fabric-ethernet-vs-infiniband.ini
rail-vs-fat-tree $SCEN/fabric-rail-vs-fat-tree.ini
net-dmodk $NET
net-ecmp $NET --set fabric.routing=ecmp
net-adaptive $NET --set fabric.routing=adaptive
net-spray $NET --set fabric.routing=spray
net-always-on $NET --set fabric.sharing=always-on
net-phases $NET --set fabric.sharing=phases --set scenario.horizon=30min
net-rail $NET --set fabric.topology=rail-optimized
net-dragonfly $NET --set fabric.topology=dragonfly --set fabric.groups=8 --set fabric.routers_per_group=4 --set fabric.global_links=2 --set fabric.routing=adaptive
os4-dmodk $OS4 --set fabric.routing=dmodk
os4-ecmp $OS4 --set fabric.routing=ecmp
os4-adaptive $OS4 --set fabric.routing=adaptive
os4-spray $OS4 --set fabric.routing=spray
CASES

# On the non-blocking fat tree of golden-network.ini no uplink fills, so
# dmodk, adaptive and spray give the same bytes there.  The os4-* cases
# take its leaves' and spines' uplinks to 4:1 with every job's traffic
# always on the links, where uplinks fill and where each flow goes decides
# the rates: their jobs.csv must differ pairwise, so the golden tells the
# routing modes apart (and a routing mode that fell back to another's
# paths would show here even when recorded again).
routing_cases="os4-dmodk os4-ecmp os4-adaptive os4-spray"

: > "$tmp/got"
while read -r name args; do
    # shellcheck disable=SC2086 # the arguments are split on purpose
    if ! "$GPUSIM" run $args -o "$tmp/$name" > "$tmp/stdout" 2> "$tmp/stderr"; then
        printf 'test-golden.sh: FAIL: gpusim run %s exited non-zero\n' "$args" >&2
        head -n 20 "$tmp/stderr" >&2
        exit 1
    fi
    for f in jobs.csv timeseries.csv nodes.csv summary.json; do
        if [ ! -f "$tmp/$name/$f" ]; then
            printf 'test-golden.sh: FAIL: %s: no %s written\n' "$name" "$f" >&2
            exit 1
        fi
        sum=$(grep -v '^  "gpusim" :' "$tmp/$name/$f" | sha256sum | cut -d' ' -f1)
        printf '%s %s %s\n' "$name" "$f" "$sum" >> "$tmp/got"
    done
done < "$tmp/cases"

: > "$tmp/routing"
for c in $routing_cases; do
    awk -v c="$c" '$1 == c && $2 == "jobs.csv" { print $3 }' "$tmp/got" >> "$tmp/routing"
done
if [ "$(sort -u "$tmp/routing" | wc -l)" -ne "$(echo $routing_cases | wc -w)" ]; then
    printf 'test-golden.sh: FAIL: routing modes with the same jobs.csv at 4:1 (%s):\n' \
        "$routing_cases" >&2
    cat "$tmp/routing" >&2
    exit 1
fi

if [ "$update" = yes ]; then
    {
        printf '# SHA-256 of the outputs of tests/test-golden.sh'"'"'s cases (case, file, digest);\n'
        printf '# summary.json without its "gpusim" version line.  Recorded by\n'
        printf '# tests/test-golden.sh --update.\n'
        cat "$tmp/got"
    } > "$GOLDEN"
    printf 'test-golden.sh: recorded %s\n' "$GOLDEN"
    exit 0
fi

grep -v '^#' "$GOLDEN" > "$tmp/want"
if ! cmp -s "$tmp/want" "$tmp/got"; then
    printf 'test-golden.sh: FAIL: outputs differ from the recorded ones (case, file, digest):\n' >&2
    diff "$tmp/want" "$tmp/got" >&2
    exit 1
fi
printf 'test-golden.sh: %s cases, %s files as recorded\n' "$(wc -l < "$tmp/cases")" \
    "$(wc -l < "$tmp/got")"
exit 0
