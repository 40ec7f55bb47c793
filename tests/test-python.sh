#!/bin/sh
# Runs the Python tests (tests/test_gpusim.py, or the file named by
# SIM_PYTHON_TEST) against the build tree: the
# typelib in bindings/, the library in libsim/.libs, the package from the
# source tree.  Skips (77) when introspection was not built, when no
# Python with PyGObject was found, or in a sanitizer build (the sanitizer
# runtime cannot be loaded into an interpreter that was not built with it).
set -u
top_builddir=${SIM_TOP_BUILDDIR:-.}
top_srcdir=${SIM_TOP_SRCDIR:-.}

if [ "${SIM_HAVE_INTROSPECTION:-no}" != yes ]; then
  echo "SKIP: built without GObject Introspection (install gobject-introspection and libgirepository1.0-dev, then re-run configure)"
  exit 77
fi
if [ -z "${SIM_PYTHON:-}" ] || ! "$SIM_PYTHON" -c 'import gi' >/dev/null 2>&1; then
  echo "SKIP: no Python 3 with PyGObject (install python3-gi)"
  exit 77
fi
if [ "${SIM_SANITIZERS:-no}" = yes ]; then
  echo "SKIP: sanitizer build"
  exit 77
fi
if [ ! -f "$top_builddir/bindings/Sim-1.0.typelib" ]; then
  echo "FAIL: $top_builddir/bindings/Sim-1.0.typelib was not built"
  exit 1
fi

GI_TYPELIB_PATH="$top_builddir/bindings${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
LD_LIBRARY_PATH="$top_builddir/libsim/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PYTHONPATH="$top_srcdir/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
PYTHONDONTWRITEBYTECODE=1
GPUSIM_MODEL_PATH=
export GI_TYPELIB_PATH LD_LIBRARY_PATH PYTHONPATH PYTHONDONTWRITEBYTECODE GPUSIM_MODEL_PATH
export SIM_TOP_BUILDDIR="$top_builddir" SIM_TOP_SRCDIR="$top_srcdir"
exec "$SIM_PYTHON" "$top_srcdir/tests/${SIM_PYTHON_TEST:-test_gpusim.py}" -v
