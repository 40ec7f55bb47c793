#!/bin/sh
# test-trace-fetch.sh: `gpusim trace fetch`, which downloads a published
# trace named in a registry and keeps it only if its SHA-256 is the
# registry's.
#
# What it checks, with file:// URLs (no network needed): that a fetched
# file is byte for byte its source, where the entry's `file` says under -o
# (without it, under $GPUSIM_TRACE_DIR, else beside the registry);
# that a gzip-compressed source is written decompressed and checked as
# such; that a second fetch keeps the file there without reading the
# source; that a source whose SHA-256 differs is refused (exit 1) naming
# both digests, leaving no file behind; that an unknown name is refused
# before anything is fetched, listing the known names; that a source that
# cannot be read is an error leaving nothing behind; that every registry
# error (unknown key, missing key, bad digest, a path leaving the folder,
# a URL of another scheme, a key before any section, a section given
# twice, a line that is no key) names the file and the line; that --list
# prints every entry; that the registry shipped in data/traces/ is read
# whole; and that a missing NAME is a usage error (exit 2).  And that in a
# checkout, fetched without -o, the openb lists land where gpusim fgd reads
# them by default, and that fgd with nothing fetched names that folder and
# how to fill it.
#
# What it does not check: downloads over http(s) (curl's part; the
# machine that runs the suite may have no network).
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both).

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-fetch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

checks=0
SCRIPT=test-trace-fetch.sh
# shellcheck source=cli-helpers.sh
. "$SIM_TOP_SRCDIR/tests/cli-helpers.sh"
expect () {
    want=$1
    shift
    "$GPUSIM" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    [ "$got" -eq "$want" ] || fail "gpusim $*: exit status $got, expected $want"
    checks=$((checks + 1))
}
contains () {
    grep -F -q -- "$2" "$1" || fail "$3: expected \"$2\""
    checks=$((checks + 1))
}

# Two sources: a plain file and a gzip-compressed one, digests by sha256sum.
src=$SIM_TOP_SRCDIR/tests/data/philly-excerpt.csv
swf=$SIM_TOP_SRCDIR/tests/data/nasa-ipsc-excerpt.swf
gzip -c "$swf" >"$tmp/log.swf.gz"
sum_csv=$(sha256sum "$src" | cut -d' ' -f1)
sum_swf=$(sha256sum "$swf" | cut -d' ' -f1)
bad=0000000000000000000000000000000000000000000000000000000000000000

cat >"$tmp/registry.ini" <<INI
# A registry for the test.
[philly-head]
description = the first 300 Philly jobs
url = file://$src
sha256 = $sum_csv
file = philly/head.csv
licence = CC BY 4.0

[nasa-head]
url = file://$tmp/log.swf.gz
compression = gzip
sha256 = $sum_swf
file = swf/head.swf

[tampered]
url = file://$src
sha256 = $bad
file = tampered.csv

[missing]
url = file://$tmp/no-such-file.csv
sha256 = $sum_csv
file = missing.csv
INI

expect 0 trace fetch --registry "$tmp/registry.ini" -o "$tmp/out" philly-head nasa-head
cmp -s "$src" "$tmp/out/philly/head.csv" || fail "the fetched CSV differs from its source"
cmp -s "$swf" "$tmp/out/swf/head.swf" || fail "the fetched gzip source is not its content"
checks=$((checks + 2))
contains "$tmp/stdout" "philly-head: wrote $tmp/out/philly/head.csv (SHA-256 checked)" "fetch"
contains "$tmp/stdout" "philly-head: terms: CC BY 4.0" "fetch: the terms"

# Without -o: under $GPUSIM_TRACE_DIR, else beside the registry.
GPUSIM_TRACE_DIR="$tmp/env" expect 0 trace fetch --registry "$tmp/registry.ini" philly-head
cmp -s "$src" "$tmp/env/philly/head.csv" || fail "without -o: not under \$GPUSIM_TRACE_DIR"
GPUSIM_TRACE_DIR= expect 0 trace fetch --registry "$tmp/registry.ini" philly-head
cmp -s "$src" "$tmp/philly/head.csv" || fail "without -o: not beside the registry"
checks=$((checks + 2))

# In a checkout (data/traces/registry.ini under the folder it runs in),
# fetched without -o where gpusim fgd then reads the openb lists by default.
mkdir -p "$tmp/co/data/traces"
cat >"$tmp/co/data/traces/registry.ini" <<INI
[openb-nodes]
url = file://$SIM_TOP_SRCDIR/tests/data/openb-nodes.csv
sha256 = $(sha256sum "$SIM_TOP_SRCDIR/tests/data/openb-nodes.csv" | cut -d' ' -f1)
file = openb/openb_node_list_gpu_node.csv

[openb-pods]
url = file://$SIM_TOP_SRCDIR/tests/data/openb-pods.csv
sha256 = $(sha256sum "$SIM_TOP_SRCDIR/tests/data/openb-pods.csv" | cut -d' ' -f1)
file = openb/openb_pod_list_default.csv
INI
(cd "$tmp/co" && GPUSIM_TRACE_DIR= expect 0 trace fetch openb-nodes openb-pods) || exit 1
cmp -s "$SIM_TOP_SRCDIR/tests/data/openb-pods.csv" \
    "$tmp/co/data/traces/openb/openb_pod_list_default.csv" ||
    fail "fetched in a checkout: not under data/traces/openb"
(cd "$tmp/co" && GPUSIM_TRACE_DIR= expect 0 fgd --seeds 1 --policy best-fit --quiet) || exit 1
contains "$tmp/stdout" "best-fit" "gpusim fgd on the lists fetched in the checkout"
rm -rf "$tmp/co/data/traces/openb"
(cd "$tmp/co" && GPUSIM_TRACE_DIR= expect 1 fgd --seeds 1 --policy best-fit --quiet) || exit 1
contains "$tmp/stderr" "no openb node list in data/traces/openb: fetch the lists" \
    "gpusim fgd with nothing fetched"

# Outside a checkout, the registry installed, else (gpusim run from its
# build tree) the source tree's: the one shipped.
(cd "$tmp" && GPUSIM_TRACE_DIR= expect 0 trace fetch --list) || exit 1
contains "$tmp/stdout" "nasa-ipsc" "--list outside a checkout"

# Fetched again: kept, the source not read (it is gone).
mv "$tmp/log.swf.gz" "$tmp/log.swf.gz.away"
expect 0 trace fetch --registry "$tmp/registry.ini" -o "$tmp/out" nasa-head
contains "$tmp/stdout" "is already there (SHA-256 checked)" "a second fetch"
mv "$tmp/log.swf.gz.away" "$tmp/log.swf.gz"

# A digest that differs: refused, nothing left.
expect 1 trace fetch --registry "$tmp/registry.ini" -o "$tmp/out" tampered
contains "$tmp/stderr" "the SHA-256 of what file://$src gave is $sum_csv, not the registry's $bad" \
    "a tampered source"
[ -z "$(ls "$tmp/out" | grep tampered)" ] || fail "a tampered source left a file"
checks=$((checks + 1))

# An unreadable source: an error, nothing left.
expect 1 trace fetch --registry "$tmp/registry.ini" -o "$tmp/out" missing
contains "$tmp/stderr" "no-such-file.csv" "a missing source"
[ ! -e "$tmp/out/missing.csv" ] && [ ! -e "$tmp/out/missing.csv.part" ] ||
    fail "a missing source left a file"
checks=$((checks + 1))

# An unknown name, after a good one: nothing fetched.
expect 1 trace fetch --registry "$tmp/registry.ini" -o "$tmp/out2" philly-head nosuch
contains "$tmp/stderr" "no trace \"nosuch\" (known: philly-head, nasa-head, tampered, missing)" \
    "an unknown name"
[ ! -e "$tmp/out2" ] || fail "an unknown name: something was fetched"
checks=$((checks + 1))

expect 0 trace fetch --registry "$tmp/registry.ini" --list
[ "$(wc -l <"$tmp/stdout")" -eq 4 ] || fail "--list: expected 4 lines"
contains "$tmp/stdout" "the first 300 Philly jobs" "--list: the description"
checks=$((checks + 1))

expect 2 trace fetch --registry "$tmp/registry.ini"
contains "$tmp/stderr" "expected the NAME of a trace" "no NAME"

# Registry errors name the file and the line.
bad_registry () {
    printf '%s\n' "$1" >"$tmp/bad.ini"
    expect 1 trace fetch --registry "$tmp/bad.ini" --list
    contains "$tmp/stderr" "$tmp/bad.ini:$2" "$3"
}
ok="url = file:///x
sha256 = $sum_csv
file = a.csv"
bad_registry "[a]
$ok
mirror = file:///y" "5: [a] mirror: unknown key (known: url, sha256, file" "an unknown key"
bad_registry "# c
[a]
url = file:///x
file = a.csv" "2: [a]: no sha256 key" "a missing key"
bad_registry "[a]
url = file:///x
sha256 = 12ab
file = a.csv" "3: [a] sha256: \"12ab\": expected 64 hexadecimal digits" "a short digest"
bad_registry "[a]
url = file:///x
sha256 = $sum_csv
file = ../a.csv" "4: [a] file: \"../a.csv\": expected a relative path inside" "a path out"
bad_registry "[a]
url = ftp://x/a.csv" "2: [a] url: \"ftp://x/a.csv\": expected an https://" "another scheme"
bad_registry "url = file:///x" "1: url: a key before the first [NAME] section" "no section"
bad_registry "[a]
$ok
[a]
$ok" "5: [a]: given twice (first on line 1)" "a section twice"
bad_registry "[a]
url file:///x" "2: \"url file:///x\": expected \"key = value\"" "no '='"
bad_registry "[a]
$ok
compression = zip" "5: [a] compression: \"zip\": expected gzip or none" "a compression"

# The shipped registry reads whole: one line per section.
expect 0 trace fetch --registry "$SIM_TOP_SRCDIR/data/traces/registry.ini" --list
[ "$(wc -l <"$tmp/stdout")" -eq "$(grep -c '^\[' "$SIM_TOP_SRCDIR/data/traces/registry.ini")" ] ||
    fail "the shipped registry: --list does not list every section"
checks=$((checks + 1))

echo "test-trace-fetch.sh: $checks checks passed"
