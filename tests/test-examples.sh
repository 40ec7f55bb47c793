#!/bin/sh
# Runs the examples and compares their output with golden files in
# tests/data/.  What it checks: the examples build, run, and print exactly
# what they printed when the golden files were made (any change to the
# simulation's results shows up here and must be deliberate).
set -u
top_builddir=${SIM_TOP_BUILDDIR:-.}
top_srcdir=${SIM_TOP_SRCDIR:-.}
status=0
for ex in custom-policy; do
  out=$("$top_builddir/examples/$ex") || { echo "FAIL: examples/$ex exited with $?"; status=1; continue; }
  if [ "$out" != "$(cat "$top_srcdir/tests/data/$ex.golden")" ]; then
    echo "FAIL: examples/$ex output differs from tests/data/$ex.golden:"
    echo "$out" | diff "$top_srcdir/tests/data/$ex.golden" - || true
    status=1
  else
    echo "ok: examples/$ex"
  fi
done
exit $status
