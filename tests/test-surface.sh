#!/bin/sh
# test-surface.sh: the library's public surface.
#
# What it checks:
# - the shared library exports no internal (sim__) function, and exports
#   every function an installed header declares;
# - the GIR names no sim__ function, and every function it names is
#   exported (else Python would find a function the library lacks);
# - no installed header mentions a sim__ function, but for the exceptions
#   listed below, and an exception that no longer applies fails too, so
#   that it goes with the declarations;
# - an installed header includes only installed headers and libraries;
# - sim-1.0.pc requires publicly exactly the packages the installed headers
#   include, and the rest privately;
# - a program built as a user builds it, from the installed headers alone
#   (copied into the installed layout) with the cflags of those public
#   requirements and the libraries pkg-config gives, links and prints the
#   golden output (examples/custom-policy.c).
#
# What it does not check: that `make install` puts the files where the
# copy does (automake's rules do that), or anything about the C ABI beyond
# the symbols' names.
#
# make check gives it SIM_TOP_SRCDIR, SIM_TOP_BUILDDIR, SIM_INSTALLED_HEADERS
# (from the Makefile fragments), SIM_CC and SIM_PKG_CONFIG.
set -u
LC_ALL=C
export LC_ALL
top_builddir=${SIM_TOP_BUILDDIR:-.}
top_srcdir=${SIM_TOP_SRCDIR:-.}
: "${SIM_INSTALLED_HEADERS:?SIM_INSTALLED_HEADERS is not set (run through make check)}"

# Installed headers allowed to mention sim__ functions, one per line (none).
exceptions=""

status=0
fail () { echo "FAIL: $*"; status=1; }
ok () { echo "ok: $*"; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

lib="$top_builddir/libsim/.libs/libsim-1.0.so"
[ -f "$lib" ] || { echo "FAIL: $lib was not built"; exit 1; }

# ---- Exported symbols -------------------------------------------------------

nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRrVv]$/ { print $3 }' | sed 's/@.*//' |
    sort -u >"$tmp/exported"
grep '^sim__' "$tmp/exported" >"$tmp/internal"
if [ -s "$tmp/internal" ]; then
    fail "libsim-1.0.so exports $(wc -l <"$tmp/internal") internal symbols: $(head -5 "$tmp/internal" | tr '\n' ' ')..."
else
    ok "libsim-1.0.so exports no sim__ symbol"
fi
grep -q '^sim_simulation_new$' "$tmp/exported" ||
    fail "libsim-1.0.so does not export sim_simulation_new"

# ---- Installed headers ------------------------------------------------------

before=$status
for h in $SIM_INSTALLED_HEADERS; do
    [ -f "$top_srcdir/$h" ] || { fail "installed header $h does not exist"; continue; }
    case " $(echo $exceptions) " in
        *" $h "*)
            grep -q 'sim__' "$top_srcdir/$h" ||
                fail "$h no longer mentions sim__: remove it from the exceptions in tests/test-surface.sh"
            continue ;;
    esac
    grep -n 'sim__[a-z0-9_]*' "$top_srcdir/$h" >"$tmp/mentions" &&
        fail "installed header $h mentions internal functions (move them to a -private.h): $(cut -c1-120 "$tmp/mentions" | head -3)"
done
[ $status -eq "$before" ] && ok "no installed header but the exceptions mentions sim__"

# Every function an installed header declares (by the project's style, its
# name followed by a space and a parenthesis) is exported, but for static
# inline ones, which are defined in the header.  Comments and preprocessor
# lines are left out first.
for h in $SIM_INSTALLED_HEADERS; do
    sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' "$top_srcdir/$h"
done | grep -v '^#' >"$tmp/code"
grep -A1 '^static inline' "$tmp/code" | grep -o '^sim_[a-z0-9_]* (' | sed 's/ ($//' |
    sort -u >"$tmp/inline"
grep -o '\bsim_[a-z0-9_]* (' "$tmp/code" | sed 's/ ($//' | grep -v '^sim__' | sort -u |
    comm -23 - "$tmp/inline" >"$tmp/declared"
comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
    fail "declared in installed headers but not exported: $(tr '\n' ' ' <"$tmp/missing")"
elif [ "$(wc -l <"$tmp/declared")" -lt 100 ]; then
    fail "found only $(wc -l <"$tmp/declared") declarations in the installed headers"
else
    ok "the $(wc -l <"$tmp/declared") functions the installed headers declare are exported"
fi

# An installed header includes installed headers (by their path under
# libsim/) and system or package headers only.
for h in $SIM_INSTALLED_HEADERS; do
    for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$top_srcdir/$h"); do
        dir=$(dirname "$h")
        case " $(echo $SIM_INSTALLED_HEADERS) " in
            *" libsim/$inc "*|*" $dir/$inc "*) ;;
            *) fail "installed header $h includes \"$inc\", which is not installed" ;;
        esac
    done
done

# ---- The GIR ----------------------------------------------------------------

gir="$top_builddir/bindings/Sim-1.0.gir"
if [ "${SIM_HAVE_INTROSPECTION:-no}" = yes ]; then
    if [ ! -f "$gir" ]; then
        fail "$gir was not built"
    else
        if grep -n 'sim__' "$gir" >"$tmp/gir-internal"; then
            fail "the GIR names internal functions: $(head -3 "$tmp/gir-internal")"
        else
            ok "the GIR names no sim__ function"
        fi
        # Functions, methods and constructors (lower-case identifiers; enum
        # members and constants are upper case).
        grep -o 'c:identifier="sim_[a-z0-9_]*"' "$gir" | sed 's/.*="\(.*\)"/\1/' | sort -u \
            >"$tmp/gir-functions"
        comm -23 "$tmp/gir-functions" "$tmp/exported" >"$tmp/gir-missing"
        if [ -s "$tmp/gir-missing" ]; then
            fail "the GIR names functions the library does not export: $(tr '\n' ' ' <"$tmp/gir-missing")"
        else
            ok "the $(wc -l <"$tmp/gir-functions") functions of the GIR are exported"
        fi
    fi
else
    echo "skip: the GIR (built without introspection)"
fi

# ---- pkg-config ---------------------------------------------------------------

pc="$top_builddir/libsim/sim-1.0.pc"
requires=$(sed -n 's/^Requires: *//p' "$pc" | tr ',' ' ')
private=$(sed -n 's/^Requires.private: *//p' "$pc" | tr ',' ' ')
# The package each header that installed headers include comes from; a
# header missing here fails, so that the table and Requires keep up.
needed=""
for inc in $(sed -n 's/^#include <\(.*\)>/\1/p' $(for h in $SIM_INSTALLED_HEADERS; do
                 echo "$top_srcdir/$h"; done) | sort -u); do
    case $inc in
        glib.h|glib/*) pkg=glib-2.0 ;;
        glib-object.h|gobject/*) pkg=gobject-2.0 ;;
        gmodule.h) pkg=gmodule-2.0 ;;
        gio/*) pkg=gio-2.0 ;;
        gsl/*) pkg=gsl ;;
        igraph.h|igraph/*) pkg=igraph ;;
        json-glib/*) pkg=json-glib-1.0 ;;
        graphviz/cgraph.h) pkg=libcgraph ;;
        graphviz/gvc.h) pkg=libgvc ;;
        sqlite3.h) pkg=sqlite3 ;;
        stdio.h|stdlib.h|string.h|stdint.h|stddef.h|math.h) pkg="" ;;
        *) fail "an installed header includes <$inc>, which tests/test-surface.sh cannot map to a package"
           pkg="" ;;
    esac
    [ -n "$pkg" ] && needed="$needed $pkg"
done
needed=$(echo $needed | tr ' ' '\n' | sort -u | tr '\n' ' ')
for pkg in $needed; do
    case " $requires " in
        *" $pkg "*) ;;
        *) fail "installed headers include $pkg, which sim-1.0.pc does not list in Requires" ;;
    esac
done
for pkg in $requires; do
    case " $needed " in
        *" $pkg "*) ;;
        *) fail "sim-1.0.pc requires $pkg publicly, but no installed header includes it (Requires.private)" ;;
    esac
done
for pkg in $private; do
    case " $requires " in
        *" $pkg "*) fail "sim-1.0.pc lists $pkg in both Requires and Requires.private" ;;
    esac
done
echo "Requires: $requires; the installed headers include: $needed"

# ---- A program built as a user builds it -------------------------------------

if [ "${SIM_SANITIZERS:-no}" = yes ]; then
    echo "skip: building a program against the installed headers (sanitizer build)"
elif [ -z "${SIM_CC:-}" ] || [ -z "${SIM_PKG_CONFIG:-}" ]; then
    fail "SIM_CC or SIM_PKG_CONFIG is not set"
else
    inc="$tmp/include/sim-1.0"
    for h in $SIM_INSTALLED_HEADERS; do
        rel=${h#libsim/}
        mkdir -p "$inc/$(dirname "$rel")" && cp "$top_srcdir/$h" "$inc/$rel"
    done
    cflags=$($SIM_PKG_CONFIG --cflags $requires) || fail "pkg-config --cflags $requires"
    libs=$(PKG_CONFIG_PATH="$top_builddir/libsim" $SIM_PKG_CONFIG \
               --define-variable=libdir="$top_builddir/libsim/.libs" --libs sim-1.0) ||
        fail "pkg-config --libs sim-1.0"
    if $SIM_CC -Wall -Werror -I"$inc" $cflags "$top_srcdir/examples/custom-policy.c" $libs \
           -o "$tmp/custom-policy" 2>"$tmp/cc.log"; then
        LD_LIBRARY_PATH="$top_builddir/libsim/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            "$tmp/custom-policy" >"$tmp/out" 2>&1 || fail "custom-policy built from the installed headers exited with $?"
        if cmp -s "$tmp/out" "$top_srcdir/tests/data/custom-policy.golden"; then
            ok "examples/custom-policy.c built from the installed headers and Requires prints its golden output"
        else
            fail "custom-policy built from the installed headers prints other than tests/data/custom-policy.golden:"
            diff "$top_srcdir/tests/data/custom-policy.golden" "$tmp/out" | head -10
        fi
    else
        fail "examples/custom-policy.c does not build from the installed headers with Requires' cflags:"
        head -20 "$tmp/cc.log"
    fi
fi

exit $status
