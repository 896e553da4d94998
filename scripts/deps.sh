#!/usr/bin/env bash
# Installs the Debian packages the build and the test suite need (idempotent: only
# what is missing is installed, so a machine that has everything needs no network).
set -euo pipefail
pkgs=(
  cmake make gcc python3        # build
  llvm-14-tools                 # lit, FileCheck, not, count
  clang-14 libclang-rt-14-dev   # libFuzzer harnesses, sanitizer runtimes
  glslc mesa-vulkan-drivers libvulkan-dev  # GPU: SPIR-V compiler, lavapipe (Vulkan on the CPU), Vulkan headers
  libshaderc-dev spirv-tools spirv-headers glslang-tools  # GLSL/HLSL input (lib/SPIRV), HLSL interpreter
  vulkan-validationlayers       # Vulkan runner checked under the validation layers
  pkg-config python3-numpy      # install checks (fmag.pc), the Python module's tests
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
