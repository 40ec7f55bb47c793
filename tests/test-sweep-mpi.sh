#!/bin/sh
# test-sweep-mpi.sh: a sweep over two MPI ranks.
#
# What it checks: that `mpirun -n 2 gpusim sweep` prints the same table and
# JSON as one process, that both ranks ran some of the runs (rank 0's own
# thread and rank 1), and that with --db the database resumes under MPI as
# it does without (a second MPI run takes every run from it and prints the
# same table).
#
# What it does not check: more than two ranks, several machines, or speed
# (bench/bench-sweep measures the overhead).
#
# It skips (exit 77) unless gpusim was configured --with-mpi (MPIRUN is then
# set by make check).  mpirun runs with --oversubscribe (two ranks on any
# machine) and --allow-run-as-root (CI runs as root).

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
SWEEP="$SIM_TOP_SRCDIR/tests/data/sweep-small.ini"

if [ -z "${MPIRUN:-}" ]; then
    echo "test-sweep-mpi.sh: SKIP: gpusim was built without MPI (./configure --with-mpi, with libopenmpi-dev and openmpi-bin)"
    exit 77
fi

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

# In a sanitizer build, no leak detection: Open MPI's components are
# dlopen()ed and unloaded at MPI_Finalize with their state still allocated,
# and LeakSanitizer can no longer name their library to suppress it.
# AddressSanitizer's other checks stay on.
if [ "${SIM_SANITIZERS:-no}" = yes ]; then
    ASAN_OPTIONS=detect_leaks=0
    export ASAN_OPTIONS
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-mpi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail () {
    printf 'test-sweep-mpi.sh: FAIL: %s\n' "$*" >&2
    [ -s "$tmp/stderr" ] && head -n 20 "$tmp/stderr" >&2
    exit 1
}

mpi () {
    "$MPIRUN" --oversubscribe --allow-run-as-root -n 2 "$GPUSIM" "$@" >"$tmp/stdout" 2>"$tmp/stderr" ||
        fail "mpirun -n 2 gpusim $*: exit status $?"
}

"$GPUSIM" sweep "$SWEEP" -j 1 >"$tmp/want" 2>/dev/null || fail "gpusim sweep"
"$GPUSIM" sweep "$SWEEP" -j 1 --format json >"$tmp/want.json" 2>/dev/null || fail "gpusim sweep --format json"

mpi sweep "$SWEEP"
cmp -s "$tmp/stdout" "$tmp/want" || fail "the two-rank table differs from the single-process one"
grep -F "sweep: 2 MPI ranks:" "$tmp/stderr" >/dev/null || fail "no ranks line"
remote=$(sed -n 's/.* run(s) on rank 0, \([0-9]*\) on the others/\1/p' "$tmp/stderr")
n_local=$(sed -n 's/.*: \([0-9]*\) run(s) on rank 0, .*/\1/p' "$tmp/stderr")
[ "${remote:-0}" -gt 0 ] || fail "rank 1 ran no run"
[ $((n_local + remote)) -eq 18 ] || fail "$n_local + $remote runs, expected 18"

mpi sweep "$SWEEP" --format json --db "$tmp/r.db"
cmp -s "$tmp/stdout" "$tmp/want.json" || fail "the two-rank JSON differs from the single-process one"
mpi sweep "$SWEEP" --db "$tmp/r.db"
cmp -s "$tmp/stdout" "$tmp/want" || fail "the table from the database differs"
grep -F "0 run(s) on rank 0, 0 on the others" "$tmp/stderr" >/dev/null ||
    fail "runs were run again under MPI"

echo "test-sweep-mpi.sh: the two-rank sweep equals the single-process one"
