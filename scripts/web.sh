#!/usr/bin/env bash
# The browser playground (docs/Web.md): the library built to WebAssembly with Debian's
# Emscripten, the page beside it.
#   scripts/web.sh [serve] [DIR]  build into DIR (default build-wasm), serve DIR/web on
#                                 http://127.0.0.1:8000/ and open it in a browser
#   scripts/web.sh build [DIR]    build only (DIR/web is the page: any static server will do)
#   scripts/web.sh test [DIR]     build, then the browser test (test/Web/browser_test.py)
#                                 against the native tools of build/ (built if missing)
# Needs the Debian packages emscripten and chromium: installed here when missing
# (scripts/deps.sh web; the browser test also needs the native build's tools). MaterialX
# needs expat, which Emscripten does not port: Debian's expat source is fetched once into
# DIR/expat-src (scripts/deps.sh expat-src) and built with the page; without it (no
# Debian mirror) the page is built without MaterialX, except under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-serve}
dir=${2:-build-wasm}
case "$mode" in serve|build|test) ;; *) echo "usage: scripts/web.sh [serve|build|test] [DIR]" >&2; exit 1 ;; esac
command -v emcmake >/dev/null && command -v dpkg-source >/dev/null &&
  { [ "$mode" = build ] || command -v chromium >/dev/null; } || bash scripts/deps.sh web
# Debian's emscripten 3.1.6 finds its own acorn (a Debian node package) only through
# NODE_PATH under a Node that is not Debian's own.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
mkdir -p "$dir"
expat=$(realpath "$dir")/expat-src
if bash scripts/deps.sh expat-src "$expat"; then
  expat_tree=$expat/tree
elif [ "${CI:-}" = true ]; then
  echo "web.sh: no expat source for MaterialX (CI needs it)" >&2
  exit 1
else
  echo "web.sh: no expat source: the page is built without MaterialX" >&2
  expat_tree=
fi
# configured once, and again when the expat source comes or goes
if ! grep -qxF "FMAG_EXPAT_SOURCE_DIR:PATH=$expat_tree" "$dir/CMakeCache.txt" 2>/dev/null; then
  emcmake cmake -S web -B "$dir" -DCMAKE_BUILD_TYPE=Release "-DFMAG_EXPAT_SOURCE_DIR=$expat_tree" >/dev/null
fi
cmake --build "$dir" -j"$(nproc)"
case "$mode" in
  build) echo "web.sh: the page is in $dir/web (serve it with: python3 -m http.server -d $dir/web)" ;;
  test)
    if [ ! -x build/bin/slc ] || [ ! -x build/bin/fmag-run ]; then
      cmake -S . -B build >/dev/null
      cmake --build build -j"$(nproc)" --target slc fmag-run fmag-as fmag-opt
    fi
    python3 test/Web/browser_test.py --web "$dir/web" --tools build/bin --out "$dir/test-out" "${@:3}"
    ;;
  serve)
    url=http://127.0.0.1:8000/
    echo "web.sh: serving $dir/web on $url (Ctrl-C stops)"
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      (sleep 1; xdg-open "$url" >/dev/null 2>&1 || chromium "$url" >/dev/null 2>&1 || true) &
    fi
    exec python3 -m http.server 8000 --bind 127.0.0.1 -d "$dir/web"
    ;;
esac
