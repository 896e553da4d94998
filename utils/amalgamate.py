#!/usr/bin/env python3
"""Writes fmag.h, the whole FMAG library as one stb-style header (Python 3, stdlib only).

    python3 utils/amalgamate.py [-o fmag.h]

    #include "fmag.h"                 everywhere: the public API (fmag/fmag.h and the
                                      layer headers it stands on)
    #define FMAG_IMPLEMENTATION       in exactly one C file, before the #include:
    #include "fmag.h"                 the implementation too

What goes in: the public headers, then (behind FMAG_IMPLEMENTATION) the sources of lib/
IR, AsmParser, VM, Transforms, CodeGen, Math, SL, API and, when the folder exists,
lib/SPIRV and lib/Shader (the GLSL/HLSL front as its stub: shaderc is C++), lib/MaterialX
behind FMAG_SINGLE_HEADER_MATERIALX (it needs expat: -lexpat), and the GLSL interpreter (gpu/fmag_interp.glsl,
gpu/fmag_run.comp) as string constants. What stays out: lib/Superopt (the
superoptimizer; the Transforms pass superopt-peephole needs only its rule table,
lib/Transforms/SuperoptRules.inc, and the rule type, fmag/SuperoptRules.h, which do go
in) and lib/GPU (the Vulkan and CUDA runners: embedded SPIR-V and fatbins built by
glslc/nvcc, and a driver loaded with dlopen); fmag_runner_create reports the GPU
engines as not built.

All sources become one translation unit, so names that are file-local (static
functions and variables, types, enum constants) in two files would collide: the
script finds them and renames each file's own to name__<Dir>_<File> (a token-level
rename outside comments, strings and member accesses), and #undefs at the end of each
file the macros it defined. docs/API.md, "Single header".
"""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from glsl_snippet import c_lines as glsl_c_lines  # noqa: E402 (utils/, beside this script)
from spirv_opnames import op_names  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB_DIRS = ["IR", "AsmParser", "VM", "Transforms", "CodeGen", "Math", "SL", "SPIRV", "Shader",
            "MaterialX", "API"]
# Layers that go in behind a macro the user defines, because they need another
# project's library at link time: lib/MaterialX reads XML with expat, which is not
# pasted in (a well-kept system library, -lexpat); without the macro fmag_compile
# answers a .mtlx with the one-line reason (docs/MaterialX.md, "In the single header").
OPTIONAL_DIRS = {"MaterialX": "FMAG_SINGLE_HEADER_MATERIALX"}
# Public headers in dependency order (fmag.h last: it includes IR.h, VM.h, Version.h).
PUBLIC = ["Version.h", "Context.h", "IR.h", "VM.h", "FloatText.h", "Asm.h", "Transforms.h",
          "CodeGen.h", "SL.h", "Math.h", "SPIRV.h", "Shader.h", "MaterialX.h", "fmag.h"]
# Needed by the implementation only.
PRIVATE_PUBLIC = ["PeepholeRules.h"]
# Public headers of the parts left out: an #include of one stays as written (the only
# one, in lib/API/Run.c, sits behind FMAG_API_HAVE_GPU, which stays undefined here).
EXCLUDED_HEADERS = {"GPU.h"}
# Headers included once per use site (X-macro tables).
REPEATED = {"Passes.def", "Sugar.def", "IntOps.def"}
SPIRV_HEADER_DIRS = ["/usr/include", "/usr/local/include"]

# (a comment may follow the name: `#include "fmag/Context.h" /* why */`)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*(/\*.*\*/\s*|//.*)?$')
IDENT_RE = re.compile(r"(?!__)[A-Za-z_][A-Za-z_0-9]*")
KEYWORDS = set("""auto break case char const continue default do double else enum extern float
for goto if inline int long register restrict return short signed sizeof static struct switch
typedef union unsigned void volatile while _Bool _Alignas _Alignof _Atomic _Noreturn
_Static_assert _Thread_local bool""".split())


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def project_version():
    m = re.search(r"project\(\s*FMAG\s+VERSION\s+(\d+)\.(\d+)\.(\d+)", read(os.path.join(ROOT, "CMakeLists.txt")))
    if not m:
        sys.exit("amalgamate: no project(FMAG VERSION x.y.z) in CMakeLists.txt")
    return tuple(int(x) for x in m.groups())


def version_header():
    text = read(os.path.join(ROOT, "cmake", "Version.h.in"))
    ma, mi, pa = project_version()
    for k, v in (("PROJECT_VERSION_MAJOR", ma), ("PROJECT_VERSION_MINOR", mi),
                 ("PROJECT_VERSION_PATCH", pa), ("PROJECT_VERSION", "%d.%d.%d" % (ma, mi, pa))):
        text = text.replace("@%s@" % k, str(v))
    return text


def code_spans(text):
    """Yields (is_code, chunk) over text: comments, string and char literals are not code."""
    i, n, start = 0, len(text), 0
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] in "/*":
            if start < i:
                yield True, text[start:i]
            end = text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i + 2) + 2
            if end < 0 or (text[i + 1] == "*" and end == 1):
                end = n
            yield False, text[i:end]
            i = start = end
        elif c in "\"'":
            if start < i:
                yield True, text[start:i]
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            yield False, text[i:j + 1]
            i = start = j + 1
        else:
            i += 1
    if start < n:
        yield True, text[start:]


def strip_noncode(text):
    return "".join(ch if code else " " * len(ch) if "\n" not in ch else
                   re.sub(r"[^\n]", " ", ch) for code, ch in code_spans(text))


def file_scope_names(text):
    """Names a C file defines at file scope that are its own: static functions and
    variables, typedefs, struct/union/enum tags, enum constants. Returns (names, macros)."""
    code = strip_noncode(text)
    macros = set(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)", code, re.M))
    # Drop preprocessor lines (continuations included) for the declaration scan.
    code = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", "", code, flags=re.M)
    names = set()
    depth = 0
    stmt = []
    i = 0
    toks = re.findall(r"[A-Za-z_]\w*|\d[\w.]*|->|[{}();,=\[\]*]|\S", code)
    # Walk top-level statements; keep the tokens of each one.
    for t in toks:
        if t == "{":
            if depth == 0:
                head = stmt[:]
                # struct/union/enum tag, enum constants follow in the body
                for k in range(len(head) - 1):
                    if head[k] in ("struct", "union", "enum") and IDENT_RE.fullmatch(head[k + 1]):
                        names.add(head[k + 1])
                stmt.append("{")
                depth = 1
                continue
            depth += 1
            stmt.append(t)
            continue
        if t == "}":
            depth -= 1
            stmt.append(t)
            if depth == 0 and not ("=" in stmt[:stmt.index("{")] if "{" in stmt else False):
                # end of a function body or a type body; a function ends the statement
                head = stmt[:stmt.index("{")]
                if head and head[-1] == ")":
                    if "static" in head:
                        fn = _declarator_name(head)
                        if fn:
                            names.add(fn)
                    stmt = []
            continue
        if depth > 0:
            stmt.append(t)
            continue
        if t == ";":
            _top_decl(stmt, names)
            stmt = []
            continue
        stmt.append(t)
    return names, macros


def _declarator_name(head):
    # the identifier before the parameter list's "(" (skipping a "(*name)" form)
    level = 0
    for k in range(len(head) - 1, -1, -1):
        if head[k] == ")":
            level += 1
        elif head[k] == "(":
            level -= 1
            if level == 0:
                j = k - 1
                while j >= 0 and not IDENT_RE.fullmatch(head[j]):
                    j -= 1
                if j >= 0 and head[j] not in KEYWORDS:
                    return head[j]
                return None
    return None


def _top_decl(stmt, names):
    if not stmt:
        return
    # enum constants inside a top-level enum body
    if "enum" in stmt and "{" in stmt:
        body = stmt[stmt.index("{") + 1:]
        expect = True
        level = 0
        for t in body:
            if t in "([":
                level += 1
            elif t in ")]":
                level -= 1
            elif t == "," and level == 0:
                expect = True
                continue
            if expect and IDENT_RE.fullmatch(t) and t not in KEYWORDS:
                names.add(t)
                expect = False
            elif expect and t != "}":
                expect = False
    if stmt[0] == "typedef":
        # the typedef name: last identifier outside braces, or "(*name)"
        flat = []
        level = 0
        for t in stmt:
            if t == "{":
                level += 1
            elif t == "}":
                level -= 1
            elif level == 0:
                flat.append(t)
        if "(" in flat and flat[flat.index("(") + 1:flat.index("(") + 2] == ["*"]:
            k = flat.index("(")
            names.add(flat[k + 2])
        else:
            ids = [t for t in flat if IDENT_RE.fullmatch(t) and t not in KEYWORDS]
            if ids:
                names.add(ids[-1])
        return
    if "static" in stmt[:4]:
        # split the declarators at level-0 commas; each one's name is its last identifier
        # before "=", "[" or its parameter list
        level = 0
        decl = []
        for t in stmt + [","]:
            if t in "([{" :
                if t == "(" and level == 0:
                    ids = [x for x in decl if IDENT_RE.fullmatch(x) and x not in KEYWORDS]
                    if ids and decl[-1] == ids[-1]:
                        names.add(ids[-1])  # a function prototype
                        decl.append("=")
                level += 1
            elif t in ")]}":
                level -= 1
            elif level == 0 and t == ",":
                body = decl[:decl.index("=")] if "=" in decl else decl
                ids = [x for x in body if IDENT_RE.fullmatch(x) and x not in KEYWORDS]
                if ids and "=" not in decl[:1]:
                    names.add(ids[-1])
                decl = []
                continue
            if level == 0 or t == "(":
                decl.append(t)


def macro_lines(text):
    """The #define lines (continuations joined) of a header, its include guard excepted,
    as (name, text) pairs."""
    out = []
    lines = strip_noncode(text).split("\n")
    raw = text.split("\n")
    guard = None
    i = 0
    while i < len(lines):
        m = re.match(r"\s*#\s*ifndef\s+(\w+)", lines[i])
        if m and guard is None:
            guard = m.group(1)
        m = re.match(r"\s*#\s*define\s+(\w+)", lines[i])
        j = i
        while lines[j].rstrip().endswith("\\") and j + 1 < len(lines):
            j += 1
        if m and m.group(1) != guard:
            out.append((m.group(1), "\n".join(raw[i:j + 1])))
        i = j + 1
    return out


def local_headers(path, seen=None):
    """The lib-internal headers a file includes, transitively (not fmag/*.h)."""
    seen = [] if seen is None else seen
    for line in read(path).split("\n"):
        m = INCLUDE_RE.match(line)
        if m and not m.group(1).startswith("fmag/") and m.group(1).endswith(".h"):
            h = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
            if os.path.exists(h) and h not in seen:
                seen.append(h)
                local_headers(h, seen)
    return seen


def rename(text, mapping):
    """Renames identifiers (not after . or ->) in code, leaving comments and strings."""
    if not mapping:
        return text
    out = []
    pat = re.compile(r"(->|\.)?\s*\b(%s)\b" % "|".join(map(re.escape, sorted(mapping))))
    for code, chunk in code_spans(text):
        if code:
            chunk = pat.sub(lambda m: m.group(0) if m.group(1) else
                            m.group(0)[:m.start(2) - m.start(0)] + mapping[m.group(2)], chunk)
        out.append(chunk)
    return "".join(out)


# The implementation asks for POSIX and C11 with feature-test macros at the top of the
# header, but when the user's file includes a C library header before fmag.h, the C
# library has already decided what to declare (glibc's features.h runs once), and
# strnlen, open_memstream, clock_gettime and, under -std=c99, aligned_alloc are then
# missing. They are declared here with the prototypes POSIX and C11 give them (a
# second, identical declaration is valid C); the functions are in the C library
# whatever was declared.
POSIX_PRELUDE = """/* POSIX and C11 functions the implementation calls, declared again in case a C library
 * header included before fmag.h kept them out (the feature-test macros above then come
 * too late). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
size_t strnlen(const char *s, size_t maxlen);
FILE *open_memstream(char **ptr, size_t *sizeloc);
void *aligned_alloc(size_t alignment, size_t size);
#if !defined(CLOCK_MONOTONIC) && defined(__linux__)
#define CLOCK_MONOTONIC 1 /* Linux's number for it */
int clock_gettime(__clockid_t clock_id, struct timespec *tp);
#endif"""


def c_string(text, name):
    lines = ['/* %s, verbatim */' % name]
    for line in text.splitlines(True):
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        lines.append('    "%s"' % esc)
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default="fmag.h")
    ap.add_argument("--spirv-headers", help="the folder holding spirv/unified1/spirv.h "
                    "(Debian spirv-headers: /usr/include), for lib/SPIRV")
    args = ap.parse_args()
    spirv_dir = None
    for d in ([args.spirv_headers] if args.spirv_headers else SPIRV_HEADER_DIRS):
        if os.path.exists(os.path.join(d, "spirv", "unified1", "spirv.h")):
            spirv_dir = d
            break
    lib_dirs = list(LIB_DIRS)
    if os.path.isdir(os.path.join(ROOT, "lib", "SPIRV")) and not spirv_dir:
        print("amalgamate: spirv/unified1/spirv.h not found (spirv-headers): lib/SPIRV left out",
              file=sys.stderr)
        lib_dirs.remove("SPIRV")
        lib_dirs.remove("Shader")

    inc = os.path.join(ROOT, "include", "fmag")
    public = [h for h in PUBLIC if h == "Version.h" or os.path.exists(os.path.join(inc, h))]
    if "SPIRV" not in lib_dirs:
        public = [h for h in public if h not in ("SPIRV.h", "Shader.h")]
    sources = []
    for d in lib_dirs:
        p = os.path.join(ROOT, "lib", d)
        if os.path.isdir(p):
            for f in sorted(os.listdir(p)):
                path = os.path.join(p, f)
                # lib/Shader goes in as its stub (FMAG_HAVE_SHADERC stays undefined
                # here): GLSL/HLSL answer "built without", SPIR-V works.
                if f.endswith(".c"):
                    sources.append((d, path))

    emitted = set()  # headers already inlined (with their include guards)
    header_maps = {}  # internal header -> its renamed names

    def header_text(name):
        if name == "Version.h":
            return version_header()
        return read(os.path.join(inc, name))

    def spirv_op_names():
        # the generator lib/SPIRV/CMakeLists.txt runs
        return op_names(read(os.path.join(spirv_dir, "spirv", "unified1", "spirv.h")))

    def expand(text, here, tag):
        """Inlines "fmag/X.h" (once), local headers and .inc/.def files, and the
        SPIR-V headers lib/SPIRV includes."""
        out = []
        for line in text.split("\n"):
            sm = re.match(r'^\s*#\s*include\s+<(spirv/unified1/[\w.]+)>', line)
            if sm and spirv_dir:
                key = sm.group(1)
                if key not in emitted:
                    emitted.add(key)
                    out.append("/* ---- <%s> (Khronos, from %s) */" % (key, spirv_dir))
                    # with its utility functions, which one file of lib/SPIRV asks for
                    # (and makes external) but which are inlined here once for all
                    out.append("#ifndef SPV_ENABLE_UTILITY_CODE\n#define SPV_ENABLE_UTILITY_CODE\n#endif")
                    out.append(read(os.path.join(spirv_dir, key)))
                continue
            m = INCLUDE_RE.match(line)
            if not m:
                out.append(line)
                continue
            target = m.group(1)
            if target == "SoftFma.inc":
                out.append("/* ---- SoftFma.inc, from gpu/fmag_interp.glsl */")
                out.append(glsl_c_lines(read(os.path.join(ROOT, "gpu", "fmag_interp.glsl")),
                                        "fmag_soft_fma"))
                continue
            if target == "SPIRVOpNames.inc":
                out.append("/* ---- SPIRVOpNames.inc, generated from spirv.h */")
                out.append(spirv_op_names())
                continue
            base = os.path.basename(target)
            if target.startswith("fmag/"):
                if base in EXCLUDED_HEADERS:
                    out.append(line)
                elif base in REPEATED:
                    out.append(expand(header_text(base), inc, tag))
                elif base not in emitted:
                    emitted.add(base)
                    out.append("/* ---- include/fmag/%s */" % base)
                    out.append(expand(header_text(base), inc, tag))
                continue
            path = os.path.normpath(os.path.join(here, target))
            if not os.path.exists(path):
                sys.exit("amalgamate: %s: cannot find \"%s\"" % (tag, target))
            key = os.path.relpath(path, ROOT)
            if key in emitted:
                continue
            emitted.add(key)
            out.append("/* ---- %s */" % key)
            out.append(expand(rename(read(path), header_maps.get(path, {})),
                              os.path.dirname(path), tag))
        return "\n".join(out)

    # The API part.
    api = []
    for h in public:
        if h not in emitted:
            emitted.add(h)
            api.append("/* ---- include/fmag/%s */" % h)
            api.append(expand(header_text(h), inc, h))
    api.append("/* The GLSL interpreter, for engines that build their own Vulkan/GL pipeline around it\n"
               " * (docs/GPU.md): fmag_interp.glsl is #included by fmag_run.comp. */")
    api.append('#ifdef __cplusplus\nextern "C" {\n#endif')
    api.append("extern const char fmag_glsl_interp_source[];\nextern const char fmag_glsl_run_comp_source[];")
    api.append("#ifdef __cplusplus\n}\n#endif")

    # Which file-local names collide. A unit owns names: a .c file its static functions
    # and variables, types and enum constants; a layer's internal header (included only
    # by that layer's files) the same kinds of names, for every file that includes it.
    # A name owned by two units is renamed in each.
    per_file = []
    owners = {}
    headers = []
    for d, path in sources:
        text = read(path)
        names, macros = file_scope_names(text)
        per_file.append((d, path, text, names, macros))
        for n in names:
            owners.setdefault(n, []).append(path)
        for h in local_headers(path):
            if h not in headers:
                headers.append(h)
    header_names = {}
    for h in headers:
        header_names[h] = file_scope_names(read(h))[0]
        for n in header_names[h]:
            owners.setdefault(n, []).append(h)
    for h in headers:
        clash = {n for n in header_names[h] if len(owners[n]) > 1}
        htag = os.path.splitext(os.path.basename(h))[0]
        header_maps[h] = {n: "%s__%s" % (n, htag) for n in clash}
    impl = []
    nrenamed = sum(len(m) for m in header_maps.values())
    for d, path, text, names, macros in per_file:
        tag = "%s_%s" % (d, os.path.splitext(os.path.basename(path))[0])
        clash = {n for n in names if len(owners[n]) > 1}
        mapping = {n: "%s__%s" % (n, tag) for n in clash}
        nrenamed += len(mapping)
        for h in local_headers(path):
            mapping.update(header_maps.get(h, {}))
            clash |= set(header_maps.get(h, {}))
        rel = os.path.relpath(path, ROOT)
        body = expand(rename(text, mapping), os.path.dirname(path), rel)
        impl.append("/* ==== %s%s */" % (rel, " (renamed: %s)" % ", ".join(sorted(clash)) if clash else ""))
        if d in OPTIONAL_DIRS:
            impl.append("#if defined(%s)" % OPTIONAL_DIRS[d])
        # The macros of the layer's internal headers hold for this file only: defined
        # again here (the header itself is inlined once) and undefined after it.
        hdr_macros = [mt for h in local_headers(path)
                      for mt in macro_lines(rename(read(h), header_maps.get(h, {})))]
        if hdr_macros:
            impl.append("\n".join(t for _, t in hdr_macros))
        impl.append(body)
        macros = set(macros) | {n for n, _ in hdr_macros}
        own_macros = sorted(m for m in macros if not m.endswith("_H"))
        if own_macros:
            impl.append("\n".join("#undef %s" % m for m in own_macros))
        if d in OPTIONAL_DIRS:
            impl.append("#endif /* %s */" % OPTIONAL_DIRS[d])

    glsl = read(os.path.join(ROOT, "gpu", "fmag_interp.glsl"))
    comp = read(os.path.join(ROOT, "gpu", "fmag_run.comp"))
    impl.append("const char fmag_glsl_interp_source[] =\n%s;" % c_string(glsl, "gpu/fmag_interp.glsl"))
    impl.append("const char fmag_glsl_run_comp_source[] =\n%s;" % c_string(comp, "gpu/fmag_run.comp"))

    ver = "%d.%d.%d" % project_version()
    out = []
    out.append("""/* fmag.h: FMAG %s, the whole library in one header (written by utils/amalgamate.py
 * from the FMAG sources; edit those, not this file).
 *
 *   #include "fmag.h"               the API, in any number of files
 *   #define FMAG_IMPLEMENTATION      in exactly one C file, before the #include, which
 *   #include "fmag.h"               should come before any system header there
 *                                   (C only: from C++ include it without the define)
 *
 * Link that program with -lm -lpthread. In: IR, passes, codegen, VM, SL, Math, the
 * embedding API (fmag/fmag.h: compile, inspect, run on the CPU engines)%s. MaterialX
 * documents: #define FMAG_SINGLE_HEADER_MATERIALX too (beside FMAG_IMPLEMENTATION) and
 * link with -lexpat (Debian libexpat1-dev): the reader is built on expat. Out:
 * the superoptimizer and the GPU runners (the GLSL interpreter is here as source text,
 * fmag_glsl_interp_source). docs/API.md documents the API. */
#ifndef FMAG_SINGLE_HEADER_H
#define FMAG_SINGLE_HEADER_H
/* The implementation uses POSIX (threads, clock_gettime) on top of ISO C, and C11's
 * aligned_alloc, which glibc declares under -std=c99 only when asked. */
#if defined(FMAG_IMPLEMENTATION) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#if defined(FMAG_IMPLEMENTATION) && !defined(_ISOC11_SOURCE)
#define _ISOC11_SOURCE 1
#endif
""" % (ver, ", the SPIR-V front end" if any(d == "SPIRV" for d, _ in sources) else ""))
    out.extend(api)
    out.append("#endif /* FMAG_SINGLE_HEADER_H */\n")
    # The implementation is C11 (void * conversions, compound literals, designated
    # initializers): C++ gets the declarations above, which are extern "C", and one
    # clear error instead of hundreds from compiling the C as C++.
    out.append("""#if defined(FMAG_IMPLEMENTATION) && defined(__cplusplus)
#error "FMAG_IMPLEMENTATION must be defined in a C (C11) file; include fmag.h without it from C++"
#endif""")
    out.append("#if defined(FMAG_IMPLEMENTATION) && !defined(FMAG_IMPLEMENTATION_DONE) && !defined(__cplusplus)")
    out.append("#define FMAG_IMPLEMENTATION_DONE")
    out.append("#undef FMAG_HAVE_SHADERC /* shaderc is a link-time library: not in one header */")
    out.append("#define FMAG_AMALGAMATION 1 /* lib/Shader's stub says why GLSL is missing */")
    out.append(POSIX_PRELUDE)
    if any(d == "SPIRV" for d, _ in sources):
        out.append("#define FMAG_API_HAVE_SPIRV 1 /* fmag_compile reads SPIR-V */")
    if any(d == "MaterialX" for d, _ in sources):
        out.append("""#if defined(FMAG_SINGLE_HEADER_MATERIALX)
#define FMAG_API_HAVE_MTLX 1 /* fmag_compile reads MaterialX: link with -lexpat */
#endif""")
    out.append("""/* One translation unit lets GCC inline across what were files, and its
 * -Wmaybe-uninitialized then misfires (fmag_block_succs fills succ[k] for k < its result
 * only, which the callers respect); the separate-file build has no such warning. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* The library computes float32 exactly as the machine does (constant folding, the VMs):
 * no contraction of a*b+c into an fma, which clang does by default and GCC in GNU mode
 * (the CMake build passes -ffp-contract=off), and no -ffast-math. */
#if defined(__FAST_MATH__)
#error "fmag.h: the FMAG implementation must not be compiled with -ffast-math"
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif""")
    out.extend(impl)
    out.append("""#if defined(__clang__)
#pragma STDC FP_CONTRACT DEFAULT
#elif defined(__GNUC__)
#pragma GCC pop_options
#pragma GCC diagnostic pop
#endif""")
    out.append("#endif /* FMAG_IMPLEMENTATION */\n")
    text = "\n".join(out)
    outdir = os.path.dirname(args.output)
    if outdir:
        os.makedirs(outdir, exist_ok=True)  # `-o DIR/fmag.h` with DIR not made yet
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print("amalgamate: wrote %s (%d files, %d names renamed, %d bytes)" %
          (args.output, len(sources), nrenamed, len(text)), file=sys.stderr)


if __name__ == "__main__":
    main()
