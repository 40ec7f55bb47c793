#!/usr/bin/env python3
"""Runs a scenario from Python and prints a few of its metrics.

    python3 examples/python-run.py [SCENARIO] [GROUP.KEY=VALUE]...

With gpusim installed, `import gpusim` finds the package and the typelib
(set GI_TYPELIB_PATH to PREFIX/lib/girepository-1.0 for a prefix other than
/usr); from a build tree, see the README's Python section.
"""
import os
import sys

import gpusim


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    path = argv[1] if len(argv) > 1 else os.path.join(here, "..", "scenarios", "quickstart.ini")
    overrides = dict(arg.split("=", 1) for arg in argv[2:])
    try:
        report = gpusim.run(path, set=overrides)
    except gpusim.Error as e:
        print("python-run: %s" % e, file=sys.stderr)
        return 1
    for name in ("jobs_completed", "wait_mean", "gpu_utilization"):
        value, unit = report.metrics[name]
        print("%-16s %12.3f %s" % (name, value, unit))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
