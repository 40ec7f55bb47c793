#!/bin/sh
# Regenerate the build system: ./autogen.sh [configure options]
set -e
srcdir=$(dirname "$0")
test -n "$srcdir" || srcdir=.
autoreconf --force --install --verbose "$srcdir"
if test -z "$NOCONFIGURE"; then
  "$srcdir"/configure "$@"
fi
