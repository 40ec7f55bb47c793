#!/bin/sh
# Runs each libFuzzer program for FUZZ_SECONDS (default 60) on one core,
# one after the other, and prints what each did.
#   run-fuzzers.sh SEED-ROOT TARGET...
# A dictionary fuzz/TARGET.dict beside this script (the format's keywords)
# is passed with -dict.
# Run from the build directory, where `make fuzz-build` put fuzz/fuzz-TARGET.
# Each starts from fuzz/corpus/TARGET (kept between runs; new inputs are
# added there) and the seeds in SEED-ROOT/TARGET.  A crash, a sanitizer
# report, a GLib critical, a leak, an input that takes more than 10 s or
# 2 GB is written to fuzz/crashes/TARGET-*; the script then goes on with the
# next target and exits 1 at the end.
set -u

seeds=$1
shift
seconds=${FUZZ_SECONDS:-60}
failed=0
summary=""

# Leaks are checked after every input by libFuzzer (-detect_leaks), which
# names the input; the check at exit is off because it also reports what
# GLib leaves behind by design across a whole run (the old array of its
# quark table each time it grows by 2048 interned strings: 16 KiB the first
# time), which no single input reproduces.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}leak_check_at_exit=0"
export ASAN_OPTIONS

mkdir -p fuzz/crashes
for t in "$@"; do
  prog=fuzz/fuzz-$t
  [ -x "$prog" ] || { echo "run-fuzzers: $prog was not built" >&2; exit 2; }
  mkdir -p "fuzz/corpus/$t"
  log=fuzz/fuzz-$t.log
  dict=$(dirname "$0")/$t.dict
  echo "== $t: $seconds s"
  dictarg=""
  [ -f "$dict" ] && dictarg="-dict=$dict"
  "$prog" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 ${dictarg:+"$dictarg"} \
    -print_final_stats=1 -artifact_prefix="fuzz/crashes/$t-" \
    "fuzz/corpus/$t" "$seeds/$t" >"$log" 2>&1
  rc=$?
  # libFuzzer's last status line ("#N DONE cov: C ft: F corp: U/S ...") and
  # its final statistics.
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
  if [ "$rc" -eq 0 ]; then
    result="no crash"
  else
    failed=1
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    result="CRASH ${artifact:-(see $log)}"
    grep -E 'ERROR: |SUMMARY: |runtime error|CRITICAL|WARNING|fuzz: ' "$log" | head -n 5 | sed 's/^/   /'
  fi
  line=$(printf '%-12s %10s execs %7s/s  cov %5s  ft %6s  corpus %5s  %s' "$t" "${execs:-?}" \
    "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result")
  echo "$line"
  summary="$summary$line
"
done
echo
echo "fuzzing, $seconds s per target (logs in fuzz/fuzz-TARGET.log):"
printf '%s' "$summary"
exit $failed
