#!/bin/sh
# test-docs.sh: every command README.md and docs/*.md show runs as written.
#
# What it checks: that every command of a `sh` block of README.md and of
# each page of docs/ exits 0 when run, as written, from a copy of the
# repository's root (a folder of links to the source tree's top-level
# entries, so that what the commands write stays out of the tree), with
# the gpusim just built first on PATH; that every command shown after
# "$ " in an output block prints each output line the page shows under it
# (a line holding "..." matches any line holding its other parts, in
# order; "..." alone stands for lines left out), and exits non-zero
# exactly when the lines shown are an error ("gpusim: " without
# "warning"); that every `python` block runs to its end under the
# introspection bindings (skipped, saying so, when they are not built);
# that every key `gpusim keys` lists is named in a page of the guide, not
# only in the generated keys.md; and that no page points at a folder
# outside the checkout ("../shared", "/work/").  The quick-start output of the README is thus checked line by
# line.
#
# What it does not run, and why (each listed below with its reason):
# commands that build, install or fuzz the tree this test runs in
# (./build.sh, ./autogen.sh, ./configure, make), and the examples that
# need a Slurm cluster or a host file.  `text` blocks are synopses and
# commands that need the network (gpusim trace fetch of a published
# trace: tests/test-trace-fetch.sh tests fetching from file:// URLs).
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both),
# and SIM_PYTHON and SIM_HAVE_INTROSPECTION for the python blocks.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-docs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail () {
    printf 'test-docs.sh: FAIL: %s\n' "$*" >&2
    if [ -s "$tmp/out" ]; then
        printf -- '--- output of the command:\n' >&2
        head -n 30 "$tmp/out" >&2
    fi
    exit 1
}

# Commands not run, by the start of their text, with the reason.
skipped () {
    case $1 in
        ./build.sh*|./autogen.sh*|./configure*|make|make\ *)
            echo "builds, installs or fuzzes the tree this test runs in" ;;
        sbatch\ *) echo "needs a Slurm cluster" ;;
        "gpusim compare --from-results part-"*) echo "needs the parts the Slurm array writes" ;;
        "gpusim sweep big-sweep.ini --db all.db"*) echo "needs the parts the Slurm array writes" ;;
        "mpirun -n 64 --hostfile hosts"*) echo "needs a host file of a cluster" ;;
        /usr/bin/python3\ *)
            [ "$python_ok" = yes ] && return 1
            echo "needs the introspection bindings, which this build has not" ;;
        bench/bench-flows-simgrid\ *)
            [ -x "$SIM_TOP_BUILDDIR/bench/bench-flows-simgrid" ] && return 1
            echo "needs SimGrid (libsimgrid-dev), which this build has not" ;;
        *) return 1 ;;
    esac
    return 0
}

# The copy of the root: links to the source tree's entries, and to the
# build tree's for what the build makes (out of tree builds).
root=$tmp/root
mkdir "$root" || exit 1
for e in "$SIM_TOP_SRCDIR"/* "$SIM_TOP_SRCDIR"/.[!.]*; do
    [ -e "$e" ] || continue
    ln -s "$e" "$root/$(basename "$e")"
done
for e in tools libsim; do
    rm -f "$root/$e"
    ln -s "$SIM_TOP_BUILDDIR/$e" "$root/$e"
done
# bindings/: the Python package from the source tree, the typelib from the
# build tree, as a checkout built in place has them.
rm -f "$root/bindings"
mkdir "$root/bindings"
for e in "$SIM_TOP_SRCDIR"/bindings/* "$SIM_TOP_BUILDDIR"/bindings/Sim-1.0.*; do
    [ -e "$e" ] && ln -sf "$e" "$root/bindings/$(basename "$e")"
done

# bench/: the flow files from the source tree, the programs from the build
# tree.
rm -f "$root/bench"
mkdir "$root/bench"
for e in "$SIM_TOP_SRCDIR"/bench/* "$SIM_TOP_BUILDDIR"/bench/bench-*; do
    [ -e "$e" ] && ln -sf "$e" "$root/bench/$(basename "$e")"
done

PATH=$SIM_TOP_BUILDDIR/tools:$PATH
GPUSIM_MODEL_PATH=
export PATH GPUSIM_MODEL_PATH
# Python as tests/test-python.sh runs it: not in a sanitizer build, whose
# runtime an interpreter built without it cannot load.
python_ok=no
if [ "${SIM_HAVE_INTROSPECTION:-no}" = yes ] && [ -n "${SIM_PYTHON:-}" ] &&
   [ "${SIM_SANITIZERS:-no}" != yes ]; then
    python_ok=yes
    GI_TYPELIB_PATH=$SIM_TOP_BUILDDIR/bindings${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}
    LD_LIBRARY_PATH=$SIM_TOP_BUILDDIR/libsim/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    PYTHONPATH=$SIM_TOP_SRCDIR/bindings/python${PYTHONPATH:+:$PYTHONPATH}
    PYTHONDONTWRITEBYTECODE=1
    export GI_TYPELIB_PATH LD_LIBRARY_PATH PYTHONPATH PYTHONDONTWRITEBYTECODE
fi

pages="$SIM_TOP_SRCDIR/README.md $(ls "$SIM_TOP_SRCDIR"/docs/*.md)"

# Pages point at nothing outside a checkout.
for p in $pages; do
    if grep -n -e '\.\./shared' -e '/work/' "$p" >"$tmp/out"; then
        fail "$(basename "$p") points outside the checkout"
    fi
done

# Every key `gpusim keys` lists is named in a page of the guide, not only in
# the generated reference (the keys a built-in policy reads are listed by
# name under [policy], "read by ...", and are counted the same way).
"$SIM_TOP_BUILDDIR/tools/gpusim" keys | awk '/^  [a-z][a-z0-9_]* / { print $1 }' | sort -u >"$tmp/keys"
[ "$(wc -l <"$tmp/keys")" -gt 100 ] || fail "gpusim keys lists too few keys"
guide=$(ls "$SIM_TOP_SRCDIR"/docs/*.md | grep -v '/keys\.md$')
while read -r key; do
    cat $guide | grep -q -w -e "$key" ||
        fail "the key $key appears in no page of docs/ but keys.md"
done <"$tmp/keys"

# The blocks, cut into one file per case: $tmp/cases/N.{kind,where,cmd,want}.
# kind is sh (a command), out (a "$ " command and the lines shown under
# it) or py (a python block); where is PAGE:LINE.
mkdir "$tmp/cases"
for p in $pages; do
    awk -v page="${p#"$SIM_TOP_SRCDIR"/}" -v dir="$tmp/cases" '
        function emit(kind, line, text) {
            name = page
            gsub(/[\/.]/, "_", name)
            cur = sprintf("%s/%s-%04d", dir, name, ++count)
            print kind > (cur ".kind"); close(cur ".kind")
            print page ":" line > (cur ".where"); close(cur ".where")
            printf "%s\n", text > (cur ".cmd"); close(cur ".cmd")
            printf "" > (cur ".want"); close(cur ".want")
        }
        /^```/ {
            if (!open) {
                open = 1; lang = substr($0, 4); start = NR; pending = ""; cur = ""; py = ""
                next
            }
            if (lang == "python") emit("py", start, py)
            open = 0; lang = ""; cur = ""
            next
        }
        !open { next }
        lang == "python" { py = py $0 "\n"; next }
        lang == "sh" || lang == "shell" {
            line = $0
            if (pending != "") { sub(/^[ \t]+/, "", line); line = pending " " line }
            if (line ~ /\\$/) { sub(/\\$/, "", line); pending = line; if (pstart == 0) pstart = NR; next }
            where = (pending != "" ? pstart : NR)
            pending = ""; pstart = 0
            if (line ~ /^[ \t]*(#|$)/) next
            emit("sh", where, line)
            next
        }
        lang == "" || lang == "console" {
            if ($0 ~ /^\$ /) {
                cmd = substr($0, 3)
                while (cmd ~ /\\$/ && (getline nxt) > 0) { sub(/\\$/, "", cmd); cmd = cmd " " nxt }
                emit("out", NR, cmd)
                next
            }
            if (cur != "") { print >> (cur ".want"); close(cur ".want") }
        }
    ' "$p"
done

ran=0
skip=0
pyskip=0
for kind_file in "$tmp"/cases/*.kind; do
    case_=${kind_file%.kind}
    kind=$(cat "$kind_file")
    where=$(cat "$case_.where")
    cmd=$(cat "$case_.cmd")
    case $kind in
        sh|out)
            if reason=$(skipped "$cmd"); then
                echo "test-docs.sh: $where: not run ($reason): $cmd"
                skip=$((skip + 1))
                continue
            fi
            (cd "$root" && sh -c "$cmd") >"$tmp/out" 2>&1
            status=$?
            if [ "$kind" = sh ]; then
                [ "$status" -eq 0 ] || fail "$where: exit status $status: $cmd"
            else
                error=no
                grep -v warning "$case_.want" | grep -q '^gpusim: ' && error=yes
                if [ "$error" = yes ]; then
                    [ "$status" -ne 0 ] || fail "$where: exited 0 where the page shows an error: $cmd"
                else
                    [ "$status" -eq 0 ] || fail "$where: exit status $status: $cmd"
                fi
                # Each line shown must be printed; "..." within a line
                # matches anything, in order.
                while IFS= read -r want; do
                    case $want in ''|...) continue ;; esac
                    awk -v want="$want" '
                        BEGIN { n = split(want, part, /\.\.\./) }
                        {
                            pos = 1; ok = 1
                            for (i = 1; i <= n; i++) {
                                if (part[i] == "") continue
                                k = index(substr($0, pos), part[i])
                                if (k == 0) { ok = 0; break }
                                pos += k - 1 + length(part[i])
                            }
                            if (ok) { found = 1; exit }
                        }
                        END { exit found ? 0 : 1 }
                    ' "$tmp/out" || fail "$where: \`$cmd\` did not print: $want"
                done <"$case_.want"
            fi
            ;;
        py)
            if [ "$python_ok" != yes ]; then
                pyskip=$((pyskip + 1))
                continue
            fi
            (cd "$root" && "$SIM_PYTHON" -c "$cmd") >"$tmp/out" 2>&1 ||
                fail "$where: the python block fails"
            ;;
    esac
    ran=$((ran + 1))
done

[ "$ran" -gt 50 ] || fail "only $ran commands found: the extraction is broken"
[ "$pyskip" -eq 0 ] || echo "test-docs.sh: $pyskip python blocks skipped (no introspection bindings)"
echo "test-docs.sh: $ran commands and blocks ran, $skip not run (reasons above)"
