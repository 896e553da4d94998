#!/bin/sh
# Re-records test/ABI/libfmag.abi, the exported symbols and public type layout of
# libfmag.so that test/ABI/abi.test checks, after an intended ABI change (say so in
# the commit: an embedder built against the old header sees it). Usage:
#   scripts/record-abi.sh [BUILD_DIR]      (default: build)
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=$root/test/ABI/libfmag.abi
{
  echo "# libfmag.so's ABI: exported symbols (with the header declaring each) and the"
  echo "# layout of the public types (fmag_abi_entry). Checked by test/ABI/abi.test;"
  echo "# re-record with scripts/record-abi.sh after an intended change."
  python3 "$root/utils/abi-dump.py" "$build/lib/libfmag.so"
} > "$out"
echo "recorded $(grep -vc '^#' "$out") lines in $out"
