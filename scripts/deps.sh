#!/usr/bin/env bash
# Installs the Debian packages FMAG needs (idempotent: only what is missing is
# installed, so a machine that has everything needs no network).
#   scripts/deps.sh demo    what scripts/demo.sh needs: a C compiler, CMake, Python
#   scripts/deps.sh web     what scripts/web.sh needs: CMake, Python, emscripten, chromium
#   scripts/deps.sh [test]  everything the test suite and CI use (the default)
#   scripts/deps.sh expat-src DIR
#                           Debian's expat source, unpacked into DIR/tree, for the
#                           WebAssembly build's MaterialX reader (docs/Web.md); once there,
#                           nothing is fetched again (offline-safe)
# When another apt or dpkg holds its lock (unattended-upgrades on a fresh machine), this
# waits for it with a message instead of failing (FMAG_APT_WAIT seconds, default 900).
set -euo pipefail
demo_pkgs=(
  cmake make gcc python3        # build (CMake runs python3 to configure the lit suite)
  libexpat1-dev                 # MaterialX input (lib/MaterialX reads XML with expat)
)
web_pkgs=(
  emscripten chromium           # the browser playground: its wasm build and the headless browser test (docs/Web.md)
  dpkg-dev                      # dpkg-source: unpacks Debian's expat source for the wasm build (expat-src below)
)
test_pkgs=(
  llvm-14-tools                 # lit, FileCheck, not, count
  clang-14 libclang-rt-14-dev   # the clang build, libFuzzer harnesses, sanitizer runtimes
  glslc mesa-vulkan-drivers libvulkan-dev  # GPU: SPIR-V compiler, lavapipe (Vulkan on the CPU), Vulkan headers
  libshaderc-dev spirv-tools spirv-headers glslang-tools  # GLSL/HLSL input (lib/SPIRV), HLSL interpreter
  vulkan-validationlayers       # Vulkan runner checked under the validation layers
  pkg-config python3-numpy      # install checks (fmag.pc), the Python module's tests
  python3-dask python3-distributed  # the Python module on a Dask cluster (test/Python/test_dask.py)
  "${web_pkgs[@]}"
)

# Debian's expat source through apt itself, so that it is verified as a package is: a
# private apt state (nothing of the system's apt configuration changes) whose only entries
# are deb-src twins of the Debian archives the system's apt already uses (the same
# mirror), so `apt-get update` reads their signed InRelease and Sources, and `apt-get
# source` checks every file against them and unpacks it with Debian's patches. The
# version the native build links (libexpat1-dev's source) first; where the mirror no
# longer has it, the newest it lists.
expat_src() {
  local dir=$1
  [ -f "$dir/tree/expat/lib/xmlparse.c" ] && return 0
  command -v dpkg-source >/dev/null || { echo "deps: expat-src needs dpkg-source (apt-get install dpkg-dev)" >&2; return 1; }
  local apt="$dir/apt"
  rm -rf "$apt" "$dir/tree" && mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/src"
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg opt=""
  [ -f "$keyring" ] && opt="[signed-by=$keyring] "
  if ! apt-get indextargets --format '$(ORIGIN) $(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' |
    awk -v opt="$opt" '$1 == "Debian" && $4 == "main" { print "deb-src " opt $2 " " $3 " main" }' |
    sort -u >"$apt/sources.list" || [ ! -s "$apt/sources.list" ]; then
    echo "deps: expat-src: apt has no Debian archive configured (apt-get indextargets)" >&2
    return 1
  fi
  local a=(-o "Dir::Etc::SourceList=$(realpath "$apt/sources.list")" -o Dir::Etc::SourceParts=/nonexistent
           -o "Dir::State::Lists=$(realpath "$apt/lists")" -o "Dir::Cache=$(realpath "$apt/cache")"
           -o "APT::Sandbox::User=$(id -un)" -o Acquire::Languages=none -q)
  if ! apt-get "${a[@]}" update >"$apt/update.log" 2>&1; then
    echo "deps: expat-src: apt-get update of the Debian archive's sources failed (no mirror?):" >&2
    tail -3 "$apt/update.log" >&2
    return 1
  fi
  local want v got=""
  want=$(dpkg-query -W -f='${source:Version}' libexpat1-dev 2>/dev/null || true)
  for v in $want $(apt-cache "${a[@]}" showsrc expat | awk '/^Version:/ { print $2 }' | sort -urV); do
    if (cd "$apt/src" && apt-get "${a[@]}" source "expat=$v" >"../source.log" 2>&1); then
      got=$v
      break
    fi
  done
  local tree
  tree=$(find "$apt/src" -mindepth 1 -maxdepth 1 -type d -name 'expat-*' | head -1)
  if [ -z "$got" ] || [ -z "$tree" ]; then
    echo "deps: expat-src: apt-get source expat failed for every version ($want; the mirror's: see $apt/source.log)" >&2
    return 1
  fi
  mv "$tree" "$dir/tree"
  mv "$apt"/src/*.dsc "$dir/"
  echo "$got" >"$dir/VERSION"
  rm -rf "$apt"
  echo "deps: Debian's expat $got source in $dir/tree"
}
if [ "${1:-}" = expat-src ]; then
  [ $# -eq 2 ] || { echo "usage: scripts/deps.sh expat-src DIR" >&2; exit 1; }
  mkdir -p "$2"
  expat_src "$2"
  exit
fi

case "${1:-test}" in
  demo) pkgs=("${demo_pkgs[@]}") ;;
  web) pkgs=("${demo_pkgs[@]}" "${web_pkgs[@]}") ;;
  test) pkgs=("${demo_pkgs[@]}" "${test_pkgs[@]}") ;;
  *) echo "usage: scripts/deps.sh [demo|web|test|expat-src DIR]" >&2; exit 1 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
wait_s=${FMAG_APT_WAIT:-900}
# apt-get waits for the dpkg lock itself with DPkg::Lock::Timeout; `apt-get update` takes
# the lists lock, which that option does not cover, so it is retried while the lock is
# busy (the only failure that is retried).
apt_opts=(-o "DPkg::Lock::Timeout=$wait_s")
deadline=$((SECONDS + wait_s))
while true; do
  if out=$($SUDO apt-get "${apt_opts[@]}" update -qq 2>&1); then
    break
  fi
  if grep -qi 'could not get lock\|unable to lock' <<<"$out" && [ $SECONDS -lt $deadline ]; then
    echo "deps: another apt or dpkg holds the package lock; waiting (up to ${wait_s}s)..."
    sleep 10
    continue
  fi
  echo "$out" >&2
  exit 1
done
DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${apt_opts[@]}" install -y -qq "${missing[@]}" >/dev/null
