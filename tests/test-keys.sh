#!/bin/sh
# test-keys.sh: `gpusim keys`, the reference of every scenario section's
# keys, and docs/keys.md, which is its Markdown output.
#
# What it checks: that docs/keys.md is byte for byte `gpusim keys
# --markdown` (regenerate it with `make docs-keys`); that every key written
# in a bundled scenario (scenarios/*.ini) and in the scenarios of
# tests/data/*.ini is listed by `gpusim keys SECTION` for its section, the
# SECTION.KEY keys of [variant NAME] and [sweep] under the section they
# name; that `gpusim keys power` lists the [power] keys (each then refused
# as unknown in another section, so the list is that of [power] alone) and
# `gpusim keys` lists every section; that `gpusim keys nosuch` exits 1
# with a message naming the section and the known ones, a misspelt section
# is suggested, and extra arguments are a usage error (2); that
# `gpusim validate` refuses [sweep] foo and a misspelt moldable_efficiency
# naming the file, the line and the key, with the right suggestion.
#
# What it does not check: the defaults and the suggestion of every key of
# every section (check-keys does), what the keys do (each module's suite).
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both).

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
QUICKSTART="$SIM_TOP_SRCDIR/scenarios/quickstart.ini"

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-keys.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

checks=0

SCRIPT=test-keys.sh
# shellcheck source=cli-helpers.sh
. "$SIM_TOP_SRCDIR/tests/cli-helpers.sh"

# expect STATUS ARGS...: runs gpusim ARGS, stdout in $tmp/stdout and stderr
# in $tmp/stderr, and fails unless it exits with STATUS.
expect () {
    want=$1
    shift
    "$GPUSIM" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    [ "$got" -eq "$want" ] || fail "gpusim $*: exit status $got, expected $want"
    checks=$((checks + 1))
}

# contains FILE TEXT WHAT: fails unless FILE holds TEXT (a fixed string).
contains () {
    grep -F -q -- "$2" "$1" || fail "$3: expected \"$2\""
    checks=$((checks + 1))
}

# The reference is the program's output.
expect 0 keys --markdown
cmp -s "$tmp/stdout" "$SIM_TOP_SRCDIR/docs/keys.md" ||
    fail "docs/keys.md differs from \`gpusim keys --markdown\`: run \`make docs-keys\`"
checks=$((checks + 1))

# The key names `gpusim keys SECTION` lists: the first word of its lines
# that start with two spaces and a lower-case letter.
listed () {
    "$GPUSIM" keys "$1" 2>/dev/null | sed -n 's/^  \([a-z][a-z0-9_]*\) .*/\1/p'
}

# Every "key = value" of every bundled scenario, as "SECTION KEY FILE:LINE";
# a [variant NAME] or [sweep] key SECTION.KEY stands for KEY of SECTION.
for f in "$SIM_TOP_SRCDIR"/scenarios/*.ini "$SIM_TOP_SRCDIR"/tests/data/*.ini; do
    awk -v file="$(basename "$f")" '
        /^[ \t]*[#;]/ || /^[ \t]*$/ { next }
        /^[ \t]*\[/ {
            s = $0; sub(/^[ \t]*\[/, "", s); sub(/\].*$/, "", s); sub(/ .*$/, "", s)
            section = s; next
        }
        /=/ {
            k = $0; sub(/=.*$/, "", k); sub(/^[ \t]+/, "", k); sub(/[ \t]+$/, "", k)
            if ((section == "variant" || section == "sweep") && k ~ /\./) {
                s = k; sub(/\.[^.]*$/, "", s); sub(/ .*$/, "", s)
                sub(/^.*\./, "", k)
                print s, k, file ":" NR
            } else
                print section, k, file ":" NR
        }' "$f"
done >"$tmp/used"
[ -s "$tmp/used" ] || fail "no keys read from the bundled scenarios"
n_used=0
for section in $(cut -d' ' -f1 "$tmp/used" | sort -u); do
    listed "$section" >"$tmp/listed.$section"
    first=$(grep "^$section " "$tmp/used" | head -n 1 | cut -d' ' -f3)
    [ -s "$tmp/listed.$section" ] || fail "gpusim keys $section lists no key (used in $first)"
done
while read -r section key where; do
    grep -q -x -F -- "$key" "$tmp/listed.$section" ||
        fail "[$section] $key ($where) is not listed by \`gpusim keys $section\`"
    n_used=$((n_used + 1))
done <"$tmp/used"
[ "$n_used" -ge 200 ] || fail "only $n_used keys read from the bundled scenarios"
checks=$((checks + 1))

# `gpusim keys power`: the [power] keys, each a key of [power] alone.
expect 0 keys power
contains "$tmp/stdout" "[power]" "gpusim keys power"
for key in enable clock_exponent memory_power clock_limit gpu_cap gpu_cap_share sleep_after \
           wake_time psu_efficiency sleep_power electrical_efficiency transceiver_power; do
    grep -q "^  $key " "$tmp/stdout" || fail "gpusim keys power: $key not listed"
    checks=$((checks + 1))
done
n_power=$(listed power | wc -l)
[ "$n_power" -eq 12 ] || fail "gpusim keys power: $n_power keys, expected 12"
# Each key it lists is a key of [power] alone: the same key set in
# [cooling] (a section that needs [power], and has keys of its own) is
# refused as unknown there, naming it.
n_refused=0
for key in $(listed power); do
    expect 1 validate "$QUICKSTART" --set power.enable=true --set "cooling.$key=1"
    contains "$tmp/stderr" "--set cooling.$key: unknown key" "cooling.$key"
    n_refused=$((n_refused + 1))
done
[ "$n_refused" -eq 12 ] || fail "only $n_refused [power] keys tried in [cooling]"
expect 0 keys policy
contains "$tmp/stdout" "  moldable_efficiency " "gpusim keys policy"
contains "$tmp/stdout" "  quota                  read by fair-share (queue)" "gpusim keys policy"
expect 0 keys '[class NAME]'
contains "$tmp/stdout" "[class NAME]" "gpusim keys [class NAME]"
contains "$tmp/stdout" "  gpu_model " "gpusim keys [class NAME]"
expect 0 keys
for section in scenario pool cluster workload class comm policy output fabric cost variant \
               sweep power cooling rl elastic serverless power_manager facility failures; do
    grep -q "^\[$section[] ]" "$tmp/stdout" || fail "gpusim keys: no [$section]"
    checks=$((checks + 1))
done

# Bad sections and arguments.
expect 1 keys nosuch
contains "$tmp/stderr" "no section [nosuch] in a scenario (known: scenario, pool" \
    "gpusim keys nosuch"
expect 1 keys powr
contains "$tmp/stderr" 'did you mean "power"?' "gpusim keys powr"
expect 2 keys power cooling
expect 2 keys --no-such-option

# Unknown keys in a scenario name the file, the line and the key.
cat >"$tmp/s.ini" <<'EOF'
[scenario]
name = keys
[pool a]
model = DGX-H100
count = 2
[workload]
rate = 4/h
jobs = 5
gpus = 8
duration = exponential(mean=1h)
[policy]
moldable_efficency = 0.5
EOF
expect 1 validate "$tmp/s.ini"
contains "$tmp/stderr" \
    's.ini:12: [policy] moldable_efficency: unknown key: did you mean "moldable_efficiency"?' \
    "a misspelt moldable_efficiency"
sed -i 's/moldable_efficency/moldable_efficiency/' "$tmp/s.ini"
expect 0 validate "$tmp/s.ini"
printf '[sweep]\nworkload.rate = 2/h, 4/h\nfoo = 1\n' >>"$tmp/s.ini"
expect 1 validate "$tmp/s.ini"
contains "$tmp/stderr" 's.ini:15: [sweep] foo: unknown key' "[sweep] foo"
sed -i 's/^foo = 1$/seds = 3/' "$tmp/s.ini"
expect 1 validate "$tmp/s.ini"
contains "$tmp/stderr" 's.ini:15: [sweep] seds: unknown key: did you mean "seeds"?' "[sweep] seds"

printf 'test-keys.sh: %d checks passed\n' "$checks"
