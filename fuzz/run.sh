#!/bin/sh
# Builds the libFuzzer harnesses with clang (ASan + UBSan) and runs each for
# $1 seconds (default 60). Exit status is non-zero when a harness fails to build
# or finds a crash, a leak or a sanitizer report.
# Usage: fuzz/run.sh [seconds] [build-dir]
# The checked-in minimized corpora (fuzz/corpus/<harness>/) seed each run;
# FMAG_FUZZ_JOBS=N runs N forked workers per harness (-fork=N), and
# FMAG_FUZZ_BUILD_ONLY=1 stops after building (to run the binaries elsewhere: stripped
# copies in build-dir/bin/F or bin/A, the seeds in build-dir/corpus/<harness>/ and the
# dictionaries in build-dir/dict/, what fuzz/scale.sh reads), FMAG_FUZZ_MODE=fast builds
# without ASan at -O2 (see below).
set -u
secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$root/build-fuzz}
cc=${FMAG_FUZZ_CC:-/usr/lib/llvm-14/bin/clang}
[ -x "$cc" ] || cc=clang
base="-std=c11 -D_POSIX_C_SOURCE=200809L -g -ffp-contract=off -fno-sanitize-recover=all -I$root/include -I$out/gen"
flags="$base -O1 -fsanitize=fuzzer,address,undefined"
# FMAG_FUZZ_MODE=fast: libFuzzer + UBSan at -O2 without ASan, the usual build for large
# campaigns (several times the executions per core); the ASan build keeps a share of them.
if [ "${FMAG_FUZZ_MODE:-asan}" = fast ]; then
    flags="$base -O2 -fsanitize=fuzzer,undefined"
fi
mkdir -p "$out/corpus-read" "$out/corpus-asm" "$out/corpus-slc" "$out/corpus-fir" "$out/corpus-e2e"
mkdir -p "$out/corpus-spirv" "$out/corpus-spirv-mutate" "$out/gen" "$out/corpus-mtlx"
# What CMake generates at configure time, made the same way here: gen/SoftFma.inc for
# lib/VM/EmitSource.c, from gpu/fmag_interp.glsl (cmake/FMAGSoftFma.cmake), and
# fmag/Version.h for fmag/fmag.h, from the version of the top-level project() line.
python3 "$root/utils/glsl_snippet.py" "$root/gpu/fmag_interp.glsl" fmag_soft_fma "$out/gen/SoftFma.inc" ||
    exit 1
version=$(sed -n 's/^project(FMAG VERSION \([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' "$root/CMakeLists.txt")
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
mkdir -p "$out/gen/fmag"
sed -e "s/@PROJECT_VERSION_MAJOR@/$major/" -e "s/@PROJECT_VERSION_MINOR@/$minor/" \
    -e "s/@PROJECT_VERSION_PATCH@/${version##*.}/" -e "s/@PROJECT_VERSION@/$version/" \
    "$root/cmake/Version.h.in" > "$out/gen/fmag/Version.h"
status=0
harnesses=""

# In the fast build, comparison tracing (trace-cmp) stays on the code that reads the
# input bytes: the readers and parsers. The layers below them (IR, passes, Math,
# codegen, the VM's interpreters) keep edge coverage but not trace-cmp: their
# comparisons test the IR the reader built, which tracing cannot steer, and a profile
# (perf) put 50-70 % of every harness's time in those callbacks. Such files are built
# once into $out/obj.
front_file() {
    case $1 in
    */fuzz/* | */lib/AsmParser/* | */lib/SL/* | */lib/SPIRV/* | */lib/VM/Image.c | \
        */lib/VM/FileIO.c | */lib/VM/Encoding.c | */lib/IR/FloatText.c) return 0 ;;
    esac
    return 1
}
# Prints the arguments with each deep source replaced by its object (built here).
split_sources() {
    incs=""
    for a in "$@"; do
        case $a in -I* | -D*) incs="$incs $a" ;; esac
    done
    for a in "$@"; do
        case $a in
        *.c)
            if front_file "$a"; then
                echo "$a"
            else
                o=$out/obj/$name/$(echo "${a#"$root"/}" | tr / _).o
                if [ ! -f "$o" ]; then
                    mkdir -p "$out/obj/$name"
                    # shellcheck disable=SC2086
                    $cc $base -O2 $deep_flags $incs -c "$a" -o "$o" || return 1
                fi
                echo "$o"
            fi
            ;;
        *) echo "$a" ;;
        esac
    done
}
deep_flags="-fsanitize=fuzzer-no-link,undefined -fno-sanitize-coverage=trace-cmp"

build() { # name, [flags...] sources...
    name=$1
    shift
    if [ "${FMAG_FUZZ_MODE:-asan}" = fast ]; then
        srcs=$(split_sources "$@") || {
            echo "fuzz/run.sh: building $name failed" >&2
            status=1
            return
        }
        # shellcheck disable=SC2086
        set -- $srcs
    fi
    if $cc $flags "$@" -lm -lpthread -o "$out/$name"; then
        harnesses="$harnesses $name"
    else
        echo "fuzz/run.sh: building $name failed" >&2
        status=1
    fi
}

build fmag-read-fuzz "$root/fuzz/fmag_read_fuzz.c" "$root"/lib/VM/*.c
build fmas-asm-fuzz "$root/fuzz/fmas_asm_fuzz.c" "$root"/lib/AsmParser/fmas*.c "$root/lib/AsmParser/TextInput.c" \
    "$root"/lib/IR/*.c "$root"/lib/VM/*.c
build fir-parse-fuzz "$root/fuzz/fir_parse_fuzz.c" "$root/lib/AsmParser/FirParser.c" "$root/lib/AsmParser/TextInput.c" \
    "$root"/lib/IR/*.c "$root/lib/Transforms/DCE.c" "$root"/lib/Transforms/LegalizeInt*.c
# Compile and run: the generator of tools/fmag-e2e, every layer from the IR down (Math
# for the passes' derivatives), and the option parser of tools/common (not its
# Compile.c: that is the API's driver). Its 11 input bytes are a generator seed and
# three choices, nothing comparison tracing can steer, so the fast build leaves
# trace-cmp out (with -entropic=0 at run time: 6x the executions per core,
# docs/Reliability.md).
e2e_cov=""
[ "${FMAG_FUZZ_MODE:-asan}" = fast ] && e2e_cov="-fno-sanitize-coverage=trace-cmp"
# shellcheck disable=SC2086
build e2e-fuzz $e2e_cov "$root/fuzz/e2e_fuzz.c" "$root"/lib/CodeGen/*.c "$root"/lib/Transforms/*.c \
    "$root"/lib/Math/*.c "$root"/lib/IR/*.c "$root"/lib/VM/*.c "$root"/lib/AsmParser/fmas*.c "$root/lib/AsmParser/TextInput.c" -I"$root/lib/CodeGen" \
    "$root/tools/common/Options.c" "$root/tools/common/Diag.c" "$root/tools/common/ReadFile.c" \
    "$root/tools/common/FileKind.c" -I"$root/tools/common"
if [ -f "$root/fuzz/slc_fuzz.c" ]; then
    build slc-fuzz "$root/fuzz/slc_fuzz.c" "$root"/lib/SL/*.c "$root"/lib/Math/*.c \
        "$root"/lib/Transforms/*.c "$root"/lib/IR/*.c
fi
# The MaterialX reader (expat from the system).
if [ -f "$root/fuzz/mtlx_fuzz.c" ] && [ -f /usr/include/expat.h ]; then
    build mtlx-fuzz "$root/fuzz/mtlx_fuzz.c" "$root"/lib/MaterialX/*.c "$root"/lib/Math/*.c \
        "$root"/lib/Transforms/*.c "$root"/lib/IR/*.c -lexpat
fi
# The SPIR-V reader: opcode names generated from spirv.h as lib/SPIRV/CMakeLists.txt does.
spvh=/usr/include/spirv/unified1/spirv.h
if [ -f "$root/fuzz/spirv_import_fuzz.c" ] && [ -f "$spvh" ]; then
    sed -n 's/^ *SpvOp\([A-Za-z0-9_]*\) = \([0-9]*\),.*/{\2, "Op\1"},/p' "$spvh" > "$out/gen/SPIRVOpNames.inc"
    spirv_srcs="$root/lib/SPIRV/*.c $root/lib/Math/*.c $root/lib/Transforms/*.c $root/lib/IR/*.c"
    # shellcheck disable=SC2086
    build spirv-import-fuzz -I"$out/gen" "$root/fuzz/spirv_import_fuzz.c" $spirv_srcs
    # shellcheck disable=SC2086
    build spirv-mutate-fuzz -I"$out/gen" "$root/fuzz/spirv_mutate_fuzz.c" $spirv_srcs
    # Seeds: test/SPIRV's modules, assembled or compiled when the tools are there.
    for f in "$root"/test/SPIRV/*.spvasm "$root"/test/SPIRV/Inputs/*.spvasm; do
        [ -f "$f" ] && spirv-as "$f" -o "$out/corpus-spirv/$(basename "$f").spv" 2>/dev/null
    done
    for f in "$root"/test/SPIRV/*.frag; do
        [ -f "$f" ] && glslangValidator -V -g "$f" -o "$out/corpus-spirv/$(basename "$f").spv" >/dev/null 2>&1
    done
fi

# Seeds: a valid two-record .fmag, the assembly and SL sources of the tests.
python3 - "$out/corpus-read/seed-lerp.fmag" <<'PY'
import struct, sys
def rec(name, regs, nin, nout, code, flags=0):
    n = name.encode(); pad = (-len(n)) % 16
    h = b"FMAG" + struct.pack("<HHIHHHHIQ", 1, flags, len(code), regs, nin, nout, len(n), 0, 0)
    return h + n + b"\0" * pad + b"".join(struct.pack("<IIII", *w) for w in code)
ref = lambda r: 0x7FC00000 | r
f = lambda x: struct.unpack("<I", struct.pack("<f", x))[0]
lerp = [(f(-1.0), ref(1), f(1.0), 1 | (0 << 16)), (ref(2), ref(0), f(1.0), 0 | (1 << 16)),
        (f(1.0), f(0.0), ref(0), 2 | (2 << 16))]
open(sys.argv[1], "wb").write(rec("lerp", 3, 3, 1, lerp) + rec("", 2, 1, 2, [], 1))
PY
for f in $(find "$root/test" -name '*.fmas' 2>/dev/null | head -50); do
    cp "$f" "$out/corpus-asm/"
done
printf '.def f, 2, 1\n  %%r0 = fmag %%r1, 0x1.8p-3, -0.0, %%r0 ; x\n.def g, 0, 1\n.regs 3\n' \
    > "$out/corpus-asm/seed.fmas"
for f in $(find "$root/test/IR" "$root/test/AsmParser" -name '*.fir' 2>/dev/null | head -100); do
    cp "$f" "$out/corpus-fir/"
done
for f in $(find "$root/examples" "$root/test/SL" -name '*.sl' 2>/dev/null | head -100); do
    cp "$f" "$out/corpus-slc/"
done
for f in $(find "$root/test/MaterialX" -name '*.mtlx' -size -200k 2>/dev/null | head -100); do
    cp "$f" "$out/corpus-mtlx/"
done

# The seeds made above for a harness, beside its checked-in corpus.
seed_dir() {
    case $1 in
    fmag-read-fuzz) echo "$out/corpus-read" ;;
    fmas-asm-fuzz) echo "$out/corpus-asm" ;;
    fir-parse-fuzz) echo "$out/corpus-fir" ;;
    spirv-import-fuzz) echo "$out/corpus-spirv" ;;
    spirv-mutate-fuzz) echo "$out/corpus-spirv-mutate" ;;
    e2e-fuzz) echo "$out/corpus-e2e" ;;
    mtlx-fuzz) echo "$out/corpus-mtlx" ;;
    *) echo "$out/corpus-slc" ;;
    esac
}

if [ "${FMAG_FUZZ_BUILD_ONLY:-0}" = 1 ]; then
    # fuzz/scale.sh's layout: bin/F (the fast build) or bin/A (ASan) beside corpus/, so
    # that building both modes into one directory gives what a scale run carries (all of
    # it, the corpora included, about 20 MB; a device run carries 64 MiB at most). Debug
    # info is stripped there; $out/<harness> keeps it, to symbolize a crash found
    # elsewhere.
    bindir=$out/bin/A
    [ "${FMAG_FUZZ_MODE:-asan}" = fast ] && bindir=$out/bin/F
    mkdir -p "$bindir" "$out/dict"
    for bin in $harnesses; do # the seeds and dictionaries beside the binaries, to carry them
        strip --strip-debug -o "$bindir/$bin" "$out/$bin" 2>/dev/null || cp "$out/$bin" "$bindir/$bin"
        mkdir -p "$out/corpus/$bin"
        cp "$root/fuzz/corpus/$bin"/* "$(seed_dir "$bin")"/* "$out/corpus/$bin/" 2>/dev/null
        [ -f "$root/fuzz/${bin%-fuzz}.dict" ] && cp "$root/fuzz/${bin%-fuzz}.dict" "$out/dict/$bin.dict"
    done
    exit $status
fi
for bin in $harnesses; do
    corpus=$(seed_dir "$bin")
    dict=""
    [ -f "$root/fuzz/${bin%-fuzz}.dict" ] && dict="-dict=$root/fuzz/${bin%-fuzz}.dict"
    if [ -d "$root/fuzz/corpus/$bin" ]; then
        cp "$root/fuzz/corpus/$bin"/* "$corpus/" 2>/dev/null
    fi
    jobs=${FMAG_FUZZ_JOBS:-0}
    echo "== $bin for ${secs}s"
    if [ "$jobs" -gt 0 ]; then
        (cd "$out" && "./$bin" -fork="$jobs" -ignore_crashes=0 -max_total_time="$secs" \
            -print_final_stats=1 $dict "$corpus") || status=1
    else
        (cd "$out" && "./$bin" -max_total_time="$secs" -print_final_stats=1 $dict "$corpus") || status=1
    fi
done
exit $status
