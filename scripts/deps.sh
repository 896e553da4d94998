#!/usr/bin/env bash
# Installs the Debian packages FMAG needs (idempotent: only what is missing is
# installed, so a machine that has everything needs no network).
#   scripts/deps.sh demo    what scripts/demo.sh needs: a C compiler, CMake, Python
#   scripts/deps.sh web     what scripts/web.sh needs: CMake, Python, emscripten, chromium
#   scripts/deps.sh [test]  everything the test suite and CI use (the default)
# When another apt or dpkg holds its lock (unattended-upgrades on a fresh machine), this
# waits for it with a message instead of failing (FMAG_APT_WAIT seconds, default 900).
set -euo pipefail
demo_pkgs=(
  cmake make gcc python3        # build (CMake runs python3 to configure the lit suite)
)
test_pkgs=(
  llvm-14-tools                 # lit, FileCheck, not, count
  clang-14 libclang-rt-14-dev   # the clang build, libFuzzer harnesses, sanitizer runtimes
  glslc mesa-vulkan-drivers libvulkan-dev  # GPU: SPIR-V compiler, lavapipe (Vulkan on the CPU), Vulkan headers
  libshaderc-dev spirv-tools spirv-headers glslang-tools  # GLSL/HLSL input (lib/SPIRV), HLSL interpreter
  vulkan-validationlayers       # Vulkan runner checked under the validation layers
  pkg-config python3-numpy      # install checks (fmag.pc), the Python module's tests
  emscripten chromium           # the browser playground: its wasm build and the headless browser test (docs/Web.md)
)
case "${1:-test}" in
  demo) pkgs=("${demo_pkgs[@]}") ;;
  web) pkgs=("${demo_pkgs[@]}" emscripten chromium) ;;
  test) pkgs=("${demo_pkgs[@]}" "${test_pkgs[@]}") ;;
  *) echo "usage: scripts/deps.sh [demo|web|test]" >&2; exit 1 ;;
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
