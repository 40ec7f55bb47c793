#!/bin/bash
# test-completion.sh: the bash completion of gpusim (tools/completion/gpusim).
#
# What it checks, by calling the completion function as bash does (COMP_WORDS,
# COMP_CWORD) and reading COMPREPLY: that the first word completes to every
# command `gpusim --help` lists, and a prefix to those it starts; that a
# command's options come from its own --help (run --se: --set; trace info
# --fo: --format); that --set completes to SECTION.KEY= for exactly the keys
# `gpusim keys SECTION` lists for every section without a name; that a
# scenario argument completes to .ini files and never to other files; that
# the queue orders and placements the script lists are exactly those gpusim
# names when given an unknown one, and --policy completes them and their
# QUEUE/PLACEMENT pairs; that --format of trace completes to the formats
# gpusim's error lists; that `models show` and `topo --view node` complete
# catalogue models (not the tables' headings); that `trace fetch` completes
# the registry's names and `keys` the section names; and that the script
# registers _gpusim for gpusim.
#
# What it does not check: bash-completion's own loader (the file is
# installed where it looks; the name is the command's).
#
# It needs SIM_TOP_SRCDIR and SIM_TOP_BUILDDIR (make check exports both).

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
cd "$SIM_TOP_SRCDIR" || exit 1

# shellcheck source=/dev/null
. "$SIM_TOP_SRCDIR/tools/completion/gpusim"

checks=0
fail () {
    printf 'test-completion.sh: FAIL: %s\n' "$*" >&2
    exit 1
}

# complete WORD...: the completions of the last WORD after the others, one
# per line, sorted.
complete_words () {
    COMP_WORDS=("$GPUSIM" "$@")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMPREPLY=()
    _gpusim
    printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort
}

# same WHAT GOT WANT: fails unless the two lists (lines) are the same.
same () {
    [ "$2" = "$3" ] || fail "$1: got [$(echo $2)], expected [$(echo $3)]"
    checks=$((checks + 1))
}

# has WHAT LIST WORD: fails unless LIST holds the line WORD.
has () {
    printf '%s\n' "$2" | grep -qx -- "$3" || fail "$1: expected \"$3\" among [$(echo $2)]"
    checks=$((checks + 1))
}

# Commands: the list `gpusim --help` prints, read here with sed.
commands=$("$GPUSIM" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 10 ] || fail "gpusim --help lists too few commands"
same "first word" "$(complete_words '')" "$(printf '%s\n' $commands --help --version | sort)"
same "first word r" "$(complete_words r)" "$(printf 'report\nrun\n')"

# Options from each command's help.
same "run --se" "$(complete_words run --se)" "--set"
has "run --" "$(complete_words run --)" "--timeline"
same "trace info --fo" "$(complete_words trace info --fo)" "--format"
has "trace fetch --" "$(complete_words trace fetch --)" "--registry"
same "trace subcommands" "$(complete_words trace '')" "$(printf 'convert\nfetch\ninfo\n')"

# --set: every key of every section without a name, counted from
# `gpusim keys SECTION` section by section.
want=""
for s in $("$GPUSIM" keys | sed -n 's/^\[\([a-z_]*\)\].*/\1/p'); do
    for k in $("$GPUSIM" keys "$s" | sed -n 's/^  \([a-z][a-z0-9_]*\) .*/\1/p'); do
        want="$want$s.$k=
"
    done
done
want=$(printf '%s' "$want" | sort)
same "--set (every key)" "$(complete_words run scenarios/quickstart.ini --set '')" "$want"
same "--set workload.ra" "$(complete_words run x.ini --set workload.ra)" "workload.rate="
same "-s fabric.overs" "$(complete_words topo x.ini -s fabric.overs)" "fabric.oversubscription="

# Scenario files: .ini only, folders to reach them.
same "run scenarios/quick" "$(complete_words run scenarios/quick)" "scenarios/quickstart.ini"
same "run data/traces/philly/philly-2" "$(complete_words run data/traces/philly/philly-2)" ""
has "compare scenarios/" "$(complete_words compare scenarios/)" "scenarios/philly-month.ini"

# Queue orders and placements: the script's lists against gpusim's errors.
known () {
    "$GPUSIM" validate --quick --set "policy.$1=no-such" scenarios/quickstart.ini 2>&1 |
        sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ',' | tr ' ' '\n' | sort
}
same "queue orders" "$(printf '%s\n' $_gpusim_queues | sort)" "$(known queue)"
same "placements" "$(printf '%s\n' $_gpusim_placements | sort)" "$(known placement)"
same "--policy be" "$(complete_words compare x.ini --policy be)" "best-fit"
same "--policy fair-share/f" "$(complete_words compare x.ini --policy fair-share/f)" \
    "$(printf 'fair-share/fgd\nfair-share/first-fit\n')"

# Trace formats against the error for an unknown one.
formats=$("$GPUSIM" trace info --format no-such x 2>&1 | sed -n 's/.*expected \(.*\)$/\1/p' |
          sed 's/ or /, /' | tr -d ',' | tr ' ' '\n' | sort)
[ -n "$formats" ] || fail "gpusim trace info --format no-such: no list of formats"
same "trace --format" "$(complete_words trace info --format '')" "$formats"

# Models: names of the catalogue, not its headings.
same "models show DGX" "$(complete_words models show DGX)" "$(printf 'DGX-A100\nDGX-H100\n')"
models=$(complete_words models show '')
has "models show" "$models" "IB-NDR"
has "models show" "$models" "H100-SXM"
printf '%s\n' "$models" | grep -qx 'GPU\|NODE' && fail "models show: a table heading offered"
checks=$((checks + 1))
same "topo --view node HGX" "$(complete_words topo --view node HGX)" "$(printf 'HGX-B200\nHGX-H200\n')"

# Fetchable traces: the registry's section names.
same "trace fetch openb-p" "$(complete_words trace fetch openb-p)" \
    "$(sed -n 's/^\[\(openb-p[^]]*\)\]$/\1/p' data/traces/registry.ini | sort)"

# Sections for gpusim keys.
same "keys po" "$(complete_words keys po)" "$(printf 'policy\npool\npower\npower_manager\n')"

complete -p gpusim 2>/dev/null | grep -q -- '-F _gpusim' || fail "_gpusim is not registered for gpusim"
checks=$((checks + 1))

echo "test-completion.sh: $checks checks passed"
