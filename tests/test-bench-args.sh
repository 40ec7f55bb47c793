#!/bin/sh
# test-bench-args.sh: the command line of the benchmarks in bench/.
#
# What it checks, for every benchmark program built (at least 20 of them,
# so that a glob finding none cannot pass): that --help prints a usage line
# naming the program on stdout and exits 0 without running anything (in
# under 10 seconds); that an option it does not know exits non-zero naming
# that option on stderr.  Then, on bench-csv: that a file asked for by name
# that does not exist is an error, and that with $GPUSIM_TRACE_DIR pointing
# nowhere the Philly month is found where it ships, under data/traces in
# the source tree (bench-args.h), and read whole (47,192 rows).  And that a
# value an option does not take (a word for a number, a number out of its
# range, an unknown mode) exits 2 naming the option and the value, having
# printed nothing (bench-scale, bench-routes, bench-flows); and that
# bench-scale --jobs 0 skips its many-jobs run.
#
# What it does not check: the benchmarks' figures (they print, never judge).
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both).

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-bench-args.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail () {
    printf 'test-bench-args.sh: FAIL: %s\n' "$*" >&2
    exit 1
}

n=0
for b in "$SIM_TOP_BUILDDIR"/bench/bench-*; do
    case $b in
        *.c|*.h|*.o|*.sh|*.py|*.inc) continue ;;
    esac
    [ -f "$b" ] && [ -x "$b" ] || continue
    name=$(basename "$b")
    timeout 10 "$b" --help >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "$name --help exited $rc"
    grep -qi "^usage:" "$tmp/out" || grep -qi "^  *$name" "$tmp/out" ||
        fail "$name --help printed no usage: $(head -2 "$tmp/out")"
    grep -q "$name" "$tmp/out" || fail "$name --help does not name the program"
    timeout 10 "$b" --no-such-option >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -ne 0 ] || fail "$name --no-such-option exited 0"
    grep -q -- "--no-such-option" "$tmp/err" ||
        fail "$name --no-such-option: stderr does not name it: $(head -2 "$tmp/err")"
    n=$((n + 1))
done
[ "$n" -ge 20 ] || fail "only $n benchmark programs found under $SIM_TOP_BUILDDIR/bench"

# A value that is not what the option takes: exit 2, the option and the
# value named on stderr (nothing run).
bad_value () {
    prog=$1
    shift
    timeout 10 "$SIM_TOP_BUILDDIR/bench/$prog" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$prog $*: exited $rc, expected 2"
    grep -q -- "$1 $2" "$tmp/err" || grep -q -- "$2.*$1\|$1.*$2" "$tmp/err" ||
        fail "$prog $*: stderr does not name the option and its value: $(head -2 "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "$prog $*: printed $(head -1 "$tmp/out")"
}
bad_value bench-scale --jobs abc
bad_value bench-scale --jobs -1
bad_value bench-scale --limit -1
bad_value bench-scale --max-gpus 12x
bad_value bench-scale --gpus 12345
bad_value bench-scale --repeat 21
bad_value bench-scale --oversub 0.5
bad_value bench-scale --solver fast
bad_value bench-scale --placement nearest
bad_value bench-scale --topology torus
bad_value bench-scale --topology none
bad_value bench-routes --nodes abc
bad_value bench-routes --routes 0
bad_value bench-routes --routing foo
bad_value bench-flows --hosts abc

# --jobs 0 skips the many-jobs run, as bench-scale's usage says: the week
# on 1,024 GPUs alone is run.
timeout 60 "$SIM_TOP_BUILDDIR/bench/bench-scale" --gpus 1024 --no-network --jobs 0 \
    >"$tmp/out" 2>"$tmp/err" || fail "bench-scale --jobs 0 exited non-zero: $(head -2 "$tmp/err")"
grep -q "^ *1024 none  *[1-9]" "$tmp/out" ||
    fail "bench-scale --jobs 0 ran no week: $(head -3 "$tmp/out")"
! grep -q "jobs on 1,024 GPUs" "$tmp/out" || fail "bench-scale --jobs 0 ran the many-jobs case"

csv="$SIM_TOP_BUILDDIR/bench/bench-csv"
"$csv" "$tmp/absent.csv" >"$tmp/out" 2>"$tmp/err" && fail "bench-csv on an absent file exited 0"
grep -q "absent.csv" "$tmp/err" || fail "bench-csv on an absent file: $(cat "$tmp/err")"
GPUSIM_TRACE_DIR="$tmp/nowhere" "$csv" >"$tmp/out" 2>"$tmp/err" ||
    fail "bench-csv exited non-zero: $(cat "$tmp/err")"
want="bench-csv: $SIM_TOP_SRCDIR/data/traces/philly/philly-2017-10.csv, 47192 rows"
[ "$(head -1 "$tmp/out")" = "$want" ] ||
    fail "bench-csv read $(head -1 "$tmp/out"), expected $want"

printf 'test-bench-args.sh: %d benchmarks take --help and refuse an unknown option; the Philly month found under data/traces\n' "$n"
