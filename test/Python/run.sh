#!/usr/bin/env bash
# Runs test_fmag.py under every distinct python3 found (the one on PATH, Debian's
# /usr/bin/python3), so the module is tested with NumPy (Debian's python3-numpy) and,
# where an interpreter lacks it, without; and test_dask.py where Dask is installed.
# usage: run.sh OBJ_ROOT SRC_ROOT
set -euo pipefail
obj=$1 src=$2
export FMAG_LIBRARY=$obj/lib/libfmag.so FMAG_BIN=$obj/bin FMAG_SRC=$src PYTHONPATH=$src/python
seen=""
for py in python3 /usr/bin/python3; do
  exe=$(command -v "$py" 2>/dev/null) || continue
  real=$("$exe" -c 'import sys; print(sys.executable)')
  case " $seen " in *" $real "*) continue ;; esac
  seen="$seen $real"
  np=$("$exe" -c 'import numpy; print("with NumPy", numpy.__version__)' 2>/dev/null || echo "without NumPy")
  echo "== $real ($np)"
  "$exe" "$src/test/Python/test_fmag.py"
  # fmag.run_dask on a local cluster of worker processes, where Dask is installed
  # (Debian's python3-dask and python3-distributed; scripts/deps.sh)
  if "$exe" -c 'import numpy, dask.array, distributed' 2>/dev/null; then
    echo "== $real: Dask"
    "$exe" "$src/test/Python/test_dask.py"
  fi
done
