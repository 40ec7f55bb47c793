# cli-helpers.sh: the checks the command-line tests share.  A test sources
# it after setting SCRIPT (its own name, for messages), GPUSIM (the
# program) and tmp (its scratch directory), and checks=0.

# fail WHY...: says why the test failed, with the last command's stderr.
fail () {
    printf '%s: FAIL: %s\n' "$SCRIPT" "$*" >&2
    if [ -s "$tmp/stderr" ]; then
        printf -- '--- stderr of the last command:\n' >&2
        head -n 20 "$tmp/stderr" >&2
    fi
    exit 1
}

# expect STATUS ARGS...: runs gpusim ARGS with stdout in $tmp/stdout and
# stderr in $tmp/stderr, and fails unless it exits with STATUS.
expect () {
    want=$1
    shift
    checks=$((checks + 1))
    "$GPUSIM" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    [ "$got" -eq "$want" ] || fail "gpusim $*: exit status $got, expected $want"
}

# contains FILE TEXT WHAT: fails unless FILE contains TEXT (a fixed string).
contains () {
    grep -F -e "$2" "$1" >/dev/null || fail "$3: no \"$2\" in $(basename "$1")"
}
