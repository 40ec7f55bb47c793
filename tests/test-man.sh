#!/bin/sh
# test-man.sh: the gpusim(1) manual page, generated from the program's help
# by tools/gpusim-man.sh.
#
# What it checks: that the page is made (exit 0) and is a section 1 page
# for gpusim with the program's version; that every command `gpusim
# --help` lists has a subsection; that each command's --help (and each
# trace subcommand's) exits 0 and lists at least one option besides
# --help, and every long option it lists is in the page; that the page
# is plain ASCII roff, which groff formats without a warning (when groff
# is installed; skipped, saying so, otherwise); and that the page
# `make` built (tools/gpusim.1) is the generator's output for this gpusim.
#
# What it does not check: the wording of the help texts themselves (each
# command's own tests do), nor man's pager.
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both).

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

checks=0
fail () {
    printf 'test-man.sh: FAIL: %s\n' "$*" >&2
    exit 1
}

sh "$SIM_TOP_SRCDIR/tools/gpusim-man.sh" "$GPUSIM" >"$tmp/gpusim.1" 2>"$tmp/err" ||
    fail "tools/gpusim-man.sh failed: $(cat "$tmp/err")"
page=$tmp/gpusim.1
version=$("$GPUSIM" --version | awk '{ print $2 }')
head -n 1 "$page" | grep -q "^\.TH GPUSIM 1 \"\" \"gpusim $version\"" ||
    fail "the page does not start as gpusim(1), version $version"
checks=$((checks + 1))

commands=$("$GPUSIM" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 10 ] || fail "gpusim --help lists too few commands"
for c in $commands; do
    grep -qx "\.SS $c" "$page" || fail "no subsection for the command $c"
    checks=$((checks + 1))
    if [ "$c" = trace ]; then
        subs="info convert fetch"
    else
        subs=-
    fi
    for sub in $subs; do
        if [ "$sub" = - ]; then
            name="gpusim $c"
            "$GPUSIM" "$c" --help >"$tmp/help" 2>&1
        else
            name="gpusim $c $sub"
            "$GPUSIM" "$c" "$sub" --help >"$tmp/help" 2>&1
        fi
        status=$?
        [ "$status" -eq 0 ] || fail "$name --help exited $status: $(head -n 3 "$tmp/help")"
        # An option line of the help (GOption's "  -o, --output=DIR  ..."),
        # --help aside: every command takes at least one.
        n=$(grep -E '^ +(-[A-Za-z0-9], )?--[a-z]' "$tmp/help" | grep -cv -- '--help ')
        [ "$n" -ge 1 ] || fail "$name --help lists no option"
        checks=$((checks + 2))
        for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help" | sort -u); do
            [ "$opt" = --help ] && continue
            roff=$(printf '%s' "$opt" | sed 's/-/\\-/g')
            grep -q -F -- "$roff" "$page" || fail "gpusim $c $sub: the option $opt is not in the page"
            checks=$((checks + 1))
        done
    done
done

if LC_ALL=C grep -n '[^ -~]' "$page" >"$tmp/err"; then
    fail "the page is not plain ASCII: $(head -n 3 "$tmp/err")"
fi
checks=$((checks + 1))
if command -v groff >/dev/null 2>&1; then
    groff -ww -man -Tutf8 -z "$page" 2>"$tmp/err"
    [ ! -s "$tmp/err" ] || fail "groff warns: $(head -n 5 "$tmp/err")"
    checks=$((checks + 1))
else
    echo "test-man.sh: groff is not installed: the page's formatting is not checked"
fi

if [ -f "$SIM_TOP_BUILDDIR/tools/gpusim.1" ]; then
    cmp -s "$page" "$SIM_TOP_BUILDDIR/tools/gpusim.1" ||
        fail "tools/gpusim.1 is not the generator's output for this gpusim: run make"
    checks=$((checks + 1))
fi

echo "test-man.sh: $checks checks passed"
