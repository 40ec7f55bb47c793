#!/bin/sh
# test-bench-flows.sh: the small experiments that docs/performance.md runs
# on gpusim and SimGrid (bench/flows/*.txt) give, on gpusim, the completion
# times worked out by hand from max-min sharing, and bench-flows refuses a
# bad experiment file naming its line.
#
# The network of every experiment: 8 hosts on a two-tier fat-tree of
# 4-port switches (2 hosts a leaf, 2 spines), 50 GB/s and 1 us per link,
# D-mod-K routing (a flow climbs to spine destination mod 2).  A transfer
# completes when its last byte is sent plus 1 us per link of its route
# (2 links within a leaf, 4 through a spine).
#
# Last, bench/fabric-answers.sh refuses a gpusim that is not there.
#
# What it does not check: SimGrid's side (that needs SimGrid; `make
# bench-simgrid` prints both) or large cases (bench-flows times them).

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"

bench="$SIM_TOP_BUILDDIR/bench/bench-flows"
flows="$SIM_TOP_SRCDIR/bench/flows"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0

# expect FILE "FCT ns of flow 0" "of flow 1" ...
expect () {
  file=$1
  shift
  n=$((n + 1))
  if ! "$bench" --hosts 8 --radix 4 --flows "$flows/$file" --per-flow > "$tmp/out" 2>&1; then
    echo "FAIL: bench-flows on $file exited non-zero:"; cat "$tmp/out"
    fail=$((fail + 1))
    return
  fi
  got=$(awk '$1 == "flow" { print $NF == "ns" ? $(NF - 1) : $NF }' "$tmp/out" | tr '\n' ' ')
  want=$(for v in "$@"; do printf '%s.0 ' "$v"; done)
  if [ "$got" != "$want" ]; then
    echo "FAIL: $file: flow completion times $got, expected $want"
    fail=$((fail + 1))
  else
    echo "ok: $file: $got"
  fi
}

# Two 100 MB flows into host 0 share its downlink: 25 GB/s each, 4 ms, plus
# 2 us (host 1, same leaf) and 4 us (host 2, through a spine).
expect shared-link.txt 4002000 4004000
# Opposite directions share no directed link: 50 GB/s each, 2 ms + 4 us.
expect reverse.txt 2004000 2004000
# Host 0's link holds 0->2 and 0->3 at 25 GB/s, host 1's 1->4 and 1->5;
# the uplinks to spines 0 (0->2, 1->4) and 1 (0->3, 1->5) at 50 GB/s are
# not tighter.  1->5 (20 MB) ends at 0.8 ms; 1->4 stays at 25 (the spine 0
# uplink's other 25 are 0->2's), 50 MB at 2 ms; then 0->2 and 0->3 have 50
# and 30 MB left at 25 each: 0->3 at 3.2 ms, and 0->2's last 20 MB alone at
# 50 GB/s, 3.6 ms.  Each plus 4 us.
expect uplink.txt 3604000 2004000 3204000 804000

# A bad line is refused with the file and line.
n=$((n + 1))
printf '# a comment\n0 1 1e6 0\n3 3 1e6 0\n' > "$tmp/bad.txt"
if "$bench" --hosts 8 --radix 4 --flows "$tmp/bad.txt" > "$tmp/out" 2>&1; then
  echo "FAIL: bench-flows accepted a transfer from host 3 to itself"
  fail=$((fail + 1))
elif ! grep -q "bad.txt:3: expected" "$tmp/out"; then
  echo "FAIL: the error does not name bad.txt:3:"; cat "$tmp/out"
  fail=$((fail + 1))
else
  echo "ok: $(cat "$tmp/out")"
fi
n=$((n + 1))
printf '0 9 1e6 0\n' > "$tmp/bad.txt"
if "$bench" --hosts 8 --radix 4 --flows "$tmp/bad.txt" > "$tmp/out" 2>&1 \
   || ! grep -q "bad.txt:1: expected" "$tmp/out"; then
  echo "FAIL: a host past the 8 was not refused with the line:"; cat "$tmp/out"
  fail=$((fail + 1))
else
  echo "ok: host 9 of 8 refused"
fi

# A fabric the platform cannot have (an odd radix, hosts not filling whole
# leaves) is refused before anything runs.
for shape in "8 5" "9 4" "1 4"; do
  n=$((n + 1))
  set -- $shape
  if "$bench" --hosts "$1" --radix "$2" > "$tmp/out" 2>&1 \
     || ! grep -q -- "--hosts $1 --radix $2: expected" "$tmp/out"; then
    echo "FAIL: --hosts $1 --radix $2 was not refused:"; cat "$tmp/out"
    fail=$((fail + 1))
  else
    echo "ok: --hosts $1 --radix $2 refused"
  fi
done

# bench/fabric-answers.sh refuses a gpusim that is not there before running
# anything (its figures are re-measured by `make bench-fabric-answers`, a
# benchmark, not here).
n=$((n + 1))
if sh "$SIM_TOP_SRCDIR/bench/fabric-answers.sh" "$tmp/no-gpusim" > "$tmp/out" 2>&1; then
  echo "FAIL: fabric-answers.sh ran without a gpusim"
  fail=$((fail + 1))
elif ! grep -q "no-gpusim is not an executable gpusim" "$tmp/out"; then
  echo "FAIL: fabric-answers.sh did not say which gpusim is missing:"; cat "$tmp/out"
  fail=$((fail + 1))
else
  echo "ok: $(cat "$tmp/out")"
fi

echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
