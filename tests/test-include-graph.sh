#!/bin/sh
# test-include-graph.sh: tools/include-graph on the small trees of
# tests/data/layering/, whose graphs are worked out by hand in the expected
# outputs below.
#
# What it checks: the whole output and the exit status on a tree without a
# cycle (clean/: an include found beside the including file before the -I
# folders, the -I folders read from Makefile-decl.am, a -private header in
# its source's unit, a header of no source passing its includes on, the
# umbrella header left out: counted, it would close the circle libsim ->
# core -> libsim), on a tree with two file-level cycles inside one folder
# (file-cycle/: one through a header of no source, one of two headers that
# include each other) and on a tree with a folder-level cycle and no
# file-level one (folder-cycle/); that --exclude breaks a cycle by leaving a
# file out; that a file including the umbrella header is an error; and that
# a missing tree, an include folder of Makefile-decl.am that cannot be
# resolved or an unknown option exits with status 2, naming what is wrong.
#
# What it does not check: the graph of libsim/ itself (tests/test-layering.sh
# does), or includes written with a macro instead of a quoted name.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
GRAPH="$SIM_TOP_SRCDIR/tools/include-graph"
DATA="$SIM_TOP_SRCDIR/tests/data/layering"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-include-graph.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail () {
    printf 'test-include-graph.sh: FAIL: %s\n' "$*" >&2
    exit 1
}

# run STATUS ARGS...: runs the checker with ARGS, its output in $tmp/out and
# $tmp/err, and fails unless it exits with STATUS.
run () {
    want=$1
    shift
    "$GRAPH" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "include-graph $*: exit status $got, expected $want"
}

# same WHAT: fails unless $tmp/out is $tmp/want, byte for byte.
same () {
    if ! cmp -s "$tmp/want" "$tmp/out"; then
        diff -u "$tmp/want" "$tmp/out" >&2
        fail "$1: output differs from the expected one"
    fi
}

# ---- A tree without a cycle ------------------------------------------------
# Ten files once sim.h is left out; eight includes: util.c -> util.h,
# engine.c -> engine.h and error.h, policy.h -> types.h, types.h ->
# engine.h, policy-private.h -> policy.h, policy.c -> policy-private.h and
# util.h, the last found in sched/ before libsim/ (so sched has no edge to
# libsim).  policy-private.h is in policy's unit: apart, it and policy would
# make a circle.
run 0 --top "$DATA/clean"
cat >"$tmp/want" <<'EOF'
include-graph: 10 files under libsim/, 8 includes between them
  include folders: libsim .
  left out, as the umbrella header: libsim/sim.h
  outside libsim/ or not found: config.h

file-level cycles (a source, its header and its -private header are one unit): 0

folder graph (A -> B: a file in A includes a header in B; how many includes):
  core -> libsim (1)
  libsim -> nothing
  sched -> core (1)

folder-level cycles: 0

include-graph: no cycles
EOF
same "clean tree"
[ ! -s "$tmp/err" ] || fail "clean tree: output on stderr"

# The same tree, twice: the same bytes.
cp "$tmp/out" "$tmp/first"
run 0 --top "$DATA/clean"
cmp -s "$tmp/first" "$tmp/out" || fail "clean tree: two runs differ"

# Taking libsim/ alone as the include folder changes no resolution here but
# shows in the header of the output.
run 0 --top "$DATA/clean" -I libsim
grep -q '^  include folders: libsim$' "$tmp/out" || fail "-I libsim: not the include folders"

# Counting the umbrella header (none given) closes libsim -> core -> libsim,
# and libsim -> sched -> core -> libsim with it.
run 1 --top "$DATA/clean" --umbrella libsim/none.h
cat >"$tmp/want" <<'EOF'
include-graph: 11 files under libsim/, 10 includes between them
  include folders: libsim .
  outside libsim/ or not found: config.h

file-level cycles (a source, its header and its -private header are one unit): 0

folder graph (A -> B: a file in A includes a header in B; how many includes):
  core -> libsim (1)
  libsim -> core (1), sched (1)
  sched -> core (1)

folder-level cycles: 1
  1. core libsim sched
     a circle: core -> libsim -> core
       core -> libsim: libsim/core/engine.c includes libsim/error.h
       libsim -> core: libsim/sim.h includes libsim/core/engine.h

include-graph: 0 file-level and 1 folder-level cycles
EOF
same "clean tree, umbrella counted"

# A file that includes the umbrella header is an error.
run 1 --top "$DATA/clean" --umbrella libsim/sched/types.h
grep -q '^error: libsim/sched/policy.h:1 includes the umbrella header libsim/sched/types.h$' \
    "$tmp/out" || fail "an include of the umbrella header is not reported"
tail -n 1 "$tmp/out" | grep -q ', 1 includes of the umbrella header$' ||
    fail "the summary does not count the include of the umbrella header"

# ---- File-level cycles -----------------------------------------------------
# core.c -> user.h, and user.c -> core-private.h, in core's unit: the units
# core and user.  one.c -> bridge.h (no source) -> two.h, and two.c ->
# one.h: the units one and two.  left.h and right.h, of no source, include
# each other.
run 1 --top "$DATA/file-cycle"
cat >"$tmp/want" <<'EOF'
include-graph: 11 files under libsim/, 10 includes between them
  include folders: libsim

file-level cycles (a source, its header and its -private header are one unit): 3
  1. 4 files:
       libsim/a/core-private.h libsim/a/core.c libsim/a/user.c libsim/a/user.h
     a circle:
       libsim/a/core.c includes libsim/a/user.h
       libsim/a/user.c includes libsim/a/core-private.h
  2. 4 files:
       libsim/a/one.c libsim/a/one.h libsim/a/two.c libsim/a/two.h
     a circle:
       libsim/a/one.c includes libsim/a/bridge.h, which includes libsim/a/two.h
       libsim/a/two.c includes libsim/a/one.h
  3. 2 files:
       libsim/a/left.h libsim/a/right.h
     a circle:
       libsim/a/left.h includes libsim/a/right.h
       libsim/a/right.h includes libsim/a/left.h

folder graph (A -> B: a file in A includes a header in B; how many includes):
  a -> nothing

folder-level cycles: 0

include-graph: 3 file-level and 0 folder-level cycles
EOF
same "file-level cycles"

# Leaving out user.c, the bridge and one of the two headers breaks all three.
run 0 --top "$DATA/file-cycle" --exclude 'libsim/a/user.c' --exclude 'libsim/a/bridge.h' \
    --exclude 'libsim/a/r*.h'
grep -q '^  left out, as asked: libsim/a/user.c libsim/a/bridge.h libsim/a/r\*.h$' "$tmp/out" ||
    fail "--exclude: not listed"
grep -q '^include-graph: 8 files under libsim/, 5 includes between them$' "$tmp/out" ||
    fail "--exclude: the files are still counted"

# ---- A folder-level cycle alone ----------------------------------------------
run 1 --top "$DATA/folder-cycle"
cat >"$tmp/want" <<'EOF'
include-graph: 4 files under libsim/, 2 includes between them
  include folders: libsim

file-level cycles (a source, its header and its -private header are one unit): 0

folder graph (A -> B: a file in A includes a header in B; how many includes):
  x -> y (1)
  y -> x (1)

folder-level cycles: 1
  1. x y
     a circle: x -> y -> x
       x -> y: libsim/x/p.c includes libsim/y/q.h
       y -> x: libsim/y/r.c includes libsim/x/s.h

include-graph: 0 file-level and 1 folder-level cycles
EOF
same "folder-level cycle"

# ---- Bad input -------------------------------------------------------------
run 2 --top "$tmp/nowhere"
grep -q "^include-graph: $tmp/nowhere/libsim: no such folder\$" "$tmp/err" ||
    fail "a missing tree: no message naming the folder"
[ ! -s "$tmp/out" ] || fail "a missing tree: output on stdout"
mkdir -p "$tmp/badflags/libsim"
printf 'AM_CPPFLAGS = -I$(top_srcdir)/libsim -I$(somewhere)/include\n' >"$tmp/badflags/Makefile-decl.am"
run 2 --top "$tmp/badflags"
grep -qF "$tmp/badflags/Makefile-decl.am: AM_CPPFLAGS: cannot resolve the include folder -I\$(somewhere)/include" \
    "$tmp/err" || fail "an include folder of an unknown variable: no message naming it"
run 2 --no-such-option
grep -q 'unrecognized arguments: --no-such-option' "$tmp/err" ||
    fail "an unknown option: no message naming it"

exit 0
