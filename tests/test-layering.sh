#!/bin/sh
# test-layering.sh: no cycle in the include graph of libsim/, between units
# of files (a source, its header and its -private header) or between
# folders, as tools/include-graph finds them (tests/test-include-graph.sh
# tests the checker itself).
#
# What it does not check: calls between files that no include shows (a
# function declared in one file's header and defined in another's source),
# or the order of the folders' layers beyond the absence of cycles.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"

exec "$SIM_TOP_SRCDIR/tools/include-graph" --top "$SIM_TOP_SRCDIR"
