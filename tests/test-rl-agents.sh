#!/bin/sh
# Runs the tests of the trained agents (tests/test_rl_agents.py, over
# examples/python/) as tests/test-python.sh runs the package's: against
# the build tree, skipped where that one is.
SIM_PYTHON_TEST=test_rl_agents.py
export SIM_PYTHON_TEST
exec "${SIM_TOP_SRCDIR:-.}/tests/test-python.sh"
