#!/usr/bin/env python3
"""Runs a command and succeeds only when it exits with status 1 exactly: a user
error, not a crash, an abort or a sanitizer report (those exit differently)."""
import subprocess
import sys

rc = subprocess.call(sys.argv[1:])
if rc != 1:
    print(f"expect-exit1: '{' '.join(sys.argv[1:])}' exited with {rc}, expected 1",
          file=sys.stderr)
    sys.exit(1)
