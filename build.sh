#!/bin/sh
# One-step set-up for a Debian 12 machine (run as root, or with sudo available):
#   ./build.sh run     install what is missing, build, and run the quick-start scenario
#   ./build.sh check   install what is missing, build, and run the whole test suite
#   ./build.sh build   install what is missing and build only
# Extra arguments after the mode are passed to configure (e.g. --enable-sanitizers).
set -eu
# libjs-chart.js is the charting library gpusim report inlines into its pages;
# chromium renders a report headless in the test suite (tests/test-browser.sh),
# and fonts-dejavu-core gives it and Graphviz a font to draw text with.

mode=${1:-run}
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"

packages="build-essential autoconf automake libtool pkg-config
  libglib2.0-dev libigraph-dev libgsl-dev check libgraphviz-dev libjson-glib-dev libcsv-dev
  gobject-introspection libgirepository1.0-dev python3-gi python3-numpy
  libjs-chart.js chromium fonts-dejavu-core
  libsqlite3-dev libopenmpi-dev openmpi-bin"

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -n "$missing" ]; then
  echo "build.sh: installing missing Debian packages:$missing"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

if [ ! -x configure ] || [ configure.ac -nt configure ]; then
  NOCONFIGURE=1 ./autogen.sh >/dev/null
fi
if [ ! -f Makefile ] || [ configure -nt config.status ] || [ $# -gt 0 ]; then
  # MPI for `mpirun gpusim sweep` (and the suite's two-rank sweep).
  ./configure --enable-werror --with-mpi "$@" >/dev/null
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs" >/dev/null

case "$mode" in
  run)
    exec ./tools/gpusim run scenarios/quickstart.ini ;;
  check)
    make -j"$jobs" check || { cat tests/test-suite.log 2>/dev/null; exit 1; } ;;
  build)
    ;;
  *)
    echo "usage: $0 run|check|build [configure options]" >&2; exit 2 ;;
esac
