"""FMAG from Python: compile SL (or .fir / .fmas) to FMAG programs and run batches of
elements on the CPU engines and the GPU runners. A ctypes binding of libfmag.so's C API
(include/fmag/fmag.h); standard library only, NumPy arrays accepted when NumPy is
installed. docs/Python.md.

    import fmag
    img = fmag.compile("export f32 f(f32 x) { return x * x + 1.0; }")
    print(img[0].disassemble())
    print(fmag.run(img[0], [[1.0], [2.0]]))          # [[2.0], [5.0]]

The library is found through $FMAG_LIBRARY (a path to libfmag.so), then next to this
package in a build tree (build/lib) or an install prefix (lib/), then the system's
library path.

Threads follow the C library's rules (docs/API.md): a Compiler (one C context) and a
Runner are each used by one thread at a time (they serialize callers with a lock), so
the module-level compile() and run() keep one of each per thread; images are immutable
and shared freely. Native handles are released by weakref.finalize, never __del__.
"""
import ctypes
import ctypes.util
import math
import os
import threading
import weakref

__all__ = ["Error", "CompileError", "EngineUnavailable", "Diagnostic", "Image", "Program",
           "Compiler", "Runner", "compile", "compile_file", "load", "run", "run_per_lane",
           "run_dask", "version", "ENGINES", "LANGUAGES", "TIER_MODES"]

try:  # optional
    import numpy as _np
except ImportError:  # pragma: no cover - exercised where NumPy is absent
    _np = None


class Error(Exception):
    """An FMAG call failed; .diagnostics holds the library's records."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


class CompileError(Error):
    """The source did not compile; str() is the printed diagnostics."""


class EngineUnavailable(Error):
    """The engine is not built into this library, or this machine has no such device."""


class Diagnostic:
    """One diagnostic: file (or None), line and column (1-based, 0 when unknown),
    severity ("error", "warning", "note"), message (alone) and text (as printed)."""

    __slots__ = ("file", "line", "column", "severity", "message", "text")

    def __init__(self, file, line, column, severity, message, text):
        self.file, self.line, self.column = file, line, column
        self.severity, self.message, self.text = severity, message, text

    def __repr__(self):
        return "Diagnostic(%r, %d, %d, %r, %r)" % (self.file, self.line, self.column,
                                                   self.severity, self.message)


# ------------------------------------------------------------------ the C API

class _Diag(ctypes.Structure):
    _fields_ = [("severity", ctypes.c_int), ("file", ctypes.c_char_p), ("line", ctypes.c_uint),
                ("column", ctypes.c_uint), ("message", ctypes.c_char_p), ("text", ctypes.c_char_p)]


class _Options(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("language", ctypes.c_int), ("entry", ctypes.c_char_p),
                ("pipeline", ctypes.c_char_p), ("fastmath", ctypes.c_bool),
                ("fast_codegen", ctypes.c_bool),
                ("include_dirs", ctypes.POINTER(ctypes.c_char_p)),
                ("ninclude_dirs", ctypes.c_size_t),
                ("include_fn", ctypes.c_void_p), ("include_user", ctypes.c_void_p),
                ("defines", ctypes.POINTER(ctypes.c_char_p)), ("ndefines", ctypes.c_size_t),
                ("stop_after", ctypes.c_int), ("emit", ctypes.c_int), ("emit_prefix", ctypes.c_char_p),
                ("print_flags", ctypes.c_uint), ("lower_as_is", ctypes.c_bool),
                ("pass_options", ctypes.c_void_p), ("derivs", ctypes.c_char_p),
                ("emit_nan_agnostic", ctypes.c_bool)]


class _RunnerOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("tier_mode", ctypes.c_int),
                ("nan_agnostic", ctypes.c_bool)]


class _Operand(ctypes.Structure):
    _fields_ = [("is_reg", ctypes.c_bool), ("reg", ctypes.c_uint16), ("imm", ctypes.c_float)]


class _Decoded(ctypes.Structure):
    _fields_ = [("d", ctypes.c_uint16), ("a", ctypes.c_uint16), ("b", _Operand), ("c", _Operand),
                ("g", _Operand)]


def _find_library():
    env = os.environ.get("FMAG_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in ("../../build/lib", "../../../build/lib", "../../..", "../../../../lib", "../.."):
        p = os.path.normpath(os.path.join(here, rel, "libfmag.so"))
        if os.path.exists(p):
            return p
    found = ctypes.util.find_library("fmag")
    if found:
        return found
    raise OSError("fmag: libfmag.so not found: set FMAG_LIBRARY to its path "
                  "(a build makes build/lib/libfmag.so)")


_lib = ctypes.CDLL(_find_library())
_P = ctypes.c_void_p
_F = ctypes.POINTER(ctypes.c_float)


# ------------------------------------------------------------------ the ABI check

def _abi_table():
    """libfmag.so's own account of its public types (fmag_abi_entry): struct sizes,
    field (offset, size) and enum values, as the library was compiled."""
    entry = _lib.fmag_abi_entry
    entry.restype = ctypes.c_bool
    entry.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_char),
                      ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_longlong),
                      ctypes.POINTER(ctypes.c_longlong)]
    kind, name = ctypes.c_char(), ctypes.c_char_p()
    value, extra = ctypes.c_longlong(), ctypes.c_longlong()
    table = {"S": {}, "F": {}, "E": {}}
    i = 0
    while entry(i, ctypes.byref(kind), ctypes.byref(name), ctypes.byref(value),
                ctypes.byref(extra)):
        table[kind.value.decode()][name.value.decode()] = (
            (value.value, extra.value) if kind.value == b"F" else value.value)
        i += 1
    return table


def _check_layout(table, struct, cname):
    """Every field this module mirrors must sit where the library has it, and the
    library's struct may only be larger (a newer library reads the prefix we pass)."""
    have = table["S"].get(cname)
    if have is None or have < ctypes.sizeof(struct):
        raise ImportError("fmag: libfmag.so does not have %s as this module mirrors it "
                          "(%s bytes there, %d here): the module and the library come from "
                          "different builds" % (cname, have, ctypes.sizeof(struct)))
    for fname, ftype in struct._fields_:
        want = (getattr(struct, fname).offset, ctypes.sizeof(ftype))
        got = table["F"].get("%s.%s" % (cname, fname))
        if got != want:
            raise ImportError("fmag: %s.%s is at (offset, size) %s in libfmag.so and %s in "
                              "this module: the module and the library come from different "
                              "builds" % (cname, fname, got, want))


def _enum(table, *names):
    """The values of enum constants, from the library (an ImportError if one is missing)."""
    try:
        return [table["E"][n] for n in names]
    except KeyError as e:
        raise ImportError("fmag: libfmag.so has no enum constant %s" % e) from None


_ABI = _abi_table()
for _struct, _cname in ((_Diag, "fmag_diagnostic"), (_Options, "fmag_compile_options"),
                        (_RunnerOptions, "fmag_runner_options"),
                        (_Operand, "fmag_vm_operand"), (_Decoded, "fmag_vm_decoded")):
    _check_layout(_ABI, _struct, _cname)
ENGINES = ("ref", "batch", "vulkan", "cuda")
_ENGINE_VALUES = dict(zip(ENGINES, _enum(_ABI, "FMAG_ENGINE_REF", "FMAG_ENGINE_BATCH",
                                         "FMAG_ENGINE_VULKAN", "FMAG_ENGINE_CUDA")))
_LANG = ("auto", "sl", "fir", "fmas", "glsl", "hlsl", "spirv", "mtlx")
LANGUAGES = dict(zip(_LANG, _enum(_ABI, *("FMAG_LANG_" + n.upper() for n in _LANG))))
LANGUAGES[None] = LANGUAGES["auto"]
SEVERITIES = dict(zip(_enum(_ABI, "FMAG_DIAG_ERROR", "FMAG_DIAG_WARNING", "FMAG_DIAG_NOTE"),
                      ("error", "warning", "note")))
_FLAG_FASTMATH = _enum(_ABI, "FMAG_VM_FLAG_FASTMATH")[0]
# Runner.set_tier's modes (docs/GPU.md, "Tiers"); None is the runner's own choice
TIER_MODES = dict(zip(("default", "auto", "off", "eager"),
                      _enum(_ABI, "FMAG_TIER_MODE_DEFAULT", "FMAG_TIER_MODE_AUTO",
                            "FMAG_TIER_MODE_OFF", "FMAG_TIER_MODE_EAGER")))
TIER_MODES[None] = TIER_MODES["default"]
_TIERS = dict(zip(_enum(_ABI, "FMAG_TIER_INTERPRETED", "FMAG_TIER_BAKED", "FMAG_TIER_MIXED"),
                  ("interpreted", "baked", "mixed")))


def _sig(name, res, *args):
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


_sig("fmag_version", ctypes.c_char_p)
_sig("fmag_context_create", _P)
_sig("fmag_context_destroy", None, _P)
_sig("fmag_context_reset", None, _P)
_sig("fmag_context_diag_count", ctypes.c_size_t, _P)
_sig("fmag_context_set_inline_budget", None, _P, ctypes.c_size_t)
_sig("fmag_context_set_unroll_budget", None, _P, ctypes.c_size_t)
_sig("fmag_context_diag_record", ctypes.c_bool, _P, ctypes.c_size_t, ctypes.POINTER(_Diag))
_sig("fmag_compile_options_init_size", None, ctypes.POINTER(_Options), ctypes.c_size_t)
_sig("fmag_free", None, _P)
_sig("fmag_compile", _P, _P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
     ctypes.POINTER(_Options))
_sig("fmag_image_read", _P, _P, ctypes.c_char_p, ctypes.c_size_t)
_sig("fmag_image_load", _P, _P, ctypes.c_char_p)
_sig("fmag_image_write", ctypes.c_bool, _P, _P, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_size_t))
_sig("fmag_image_save", ctypes.c_bool, _P, _P, ctypes.c_char_p)
_sig("fmag_image_destroy", None, _P)
_sig("fmag_image_program_count", ctypes.c_size_t, _P)
_sig("fmag_image_program", _P, _P, ctypes.c_size_t)
_sig("fmag_program_name", ctypes.c_char_p, _P)
for _n in ("instr_count", "regs", "inputs", "outputs", "flags", "deriv_inputs"):
    _sig("fmag_program_" + _n, ctypes.c_uint, _P)
_sig("fmag_program_instr", ctypes.c_bool, _P, ctypes.c_size_t, ctypes.POINTER(_Decoded))
_sig("fmag_program_disassemble", _P, _P)
_sig("fmag_runner_create", _P, _P, ctypes.c_int)
_sig("fmag_runner_destroy", None, _P)
_sig("fmag_runner_describe", ctypes.c_char_p, _P)
_sig("fmag_runner_set_threads", None, _P, ctypes.c_uint)
_sig("fmag_runner_options_init_size", None, ctypes.POINTER(_RunnerOptions), ctypes.c_size_t)
_sig("fmag_runner_set_options", ctypes.c_bool, _P, _P, ctypes.POINTER(_RunnerOptions))
_sig("fmag_runner_last_tier", ctypes.c_int, _P)
_sig("fmag_runner_bake_log", ctypes.c_char_p, _P)
_sig("fmag_run", ctypes.c_bool, _P, _P, _P, _F, _F, ctypes.c_size_t)
_sig("fmag_run_per_lane", ctypes.c_bool, _P, _P, _P, ctypes.POINTER(ctypes.c_uint32), _F,
     ctypes.c_size_t, _F, ctypes.c_size_t, ctypes.c_size_t)


def _s(b):
    return None if b is None else b.decode("utf-8", "replace")


class _Context:
    """A C context for one call: created, read for diagnostics, destroyed."""

    def __enter__(self):
        self.p = _lib.fmag_context_create()
        if not self.p:
            raise MemoryError("fmag: cannot create a context")
        return self

    def __exit__(self, *exc):
        _lib.fmag_context_destroy(self.p)

    def fail(self, cls, fallback):
        _fail(self.p, cls, fallback)


def _diagnostics(ctx):
    out = []
    for i in range(_lib.fmag_context_diag_count(ctx)):
        d = _Diag()
        _lib.fmag_context_diag_record(ctx, i, ctypes.byref(d))
        sev = SEVERITIES.get(d.severity, "error")
        out.append(Diagnostic(_s(d.file), d.line, d.column, sev, _s(d.message), _s(d.text)))
    return out


def _fail(ctx, cls, fallback):
    """Raises cls with the context's diagnostics (printed, and as records)."""
    diags = _diagnostics(ctx)
    raise cls("\n".join(d.text for d in diags) or fallback, diags)


def version():
    """The version of the libfmag.so loaded ("0.1.0")."""
    return _s(_lib.fmag_version())


# ------------------------------------------------------------------ images

class Instruction(tuple):
    """(d, a, b, c, g): d and a are register numbers; b, c, g are ("r", n) for a
    register or a float literal."""


class Program:
    """One program of an image: name, instructions, regs, inputs, outputs, flags."""

    def __init__(self, image, ptr):
        self._image = image  # keeps the C image alive
        self._p = ptr
        self.name = _s(_lib.fmag_program_name(ptr))
        self.instr_count = _lib.fmag_program_instr_count(ptr)
        self.regs = _lib.fmag_program_regs(ptr)
        self.inputs = _lib.fmag_program_inputs(ptr)
        self.outputs = _lib.fmag_program_outputs(ptr)
        self.flags = _lib.fmag_program_flags(ptr)
        # inputs that carry derivatives: the last 2*deriv_inputs inputs are their x then
        # y derivatives (docs/Derivatives.md); 0 for a program without derivatives
        self.deriv_inputs = _lib.fmag_program_deriv_inputs(ptr)

    @property
    def fastmath(self):
        return bool(self.flags & _FLAG_FASTMATH)

    def instructions(self):
        out = []
        d = _Decoded()

        def op(o):
            return ("r", o.reg) if o.is_reg else o.imm

        for i in range(self.instr_count):
            _lib.fmag_program_instr(self._p, i, ctypes.byref(d))
            out.append(Instruction((d.d, d.a, op(d.b), op(d.c), op(d.g))))
        return out

    def disassemble(self):
        """The program as .fmas text (what fmag-as -d prints)."""
        p = _lib.fmag_program_disassemble(self._p)
        if not p:
            raise MemoryError("fmag: cannot disassemble")
        try:
            return ctypes.string_at(p).decode("utf-8")
        finally:
            _lib.fmag_free(p)

    def __repr__(self):
        return "<fmag.Program %s: %d instructions, %d regs, %d in, %d out>" % (
            self.name, self.instr_count, self.regs, self.inputs, self.outputs)

    def __reduce__(self):
        # pickled with its image (a Dask worker in another process gets the records)
        return (_program_at, (self._image, self._image.programs.index(self)))

    def __dask_tokenize__(self):
        # the same program is the same task input, whatever object holds it
        return ("fmag.Program", self._image.to_bytes(), self._image.programs.index(self))


def _program_at(image, index):
    return image.programs[index]


class Image:
    """Compiled programs (a .fmag file's records). Index by number or by name."""

    def __init__(self, ptr):
        self._p = ptr
        # released with the last reference, or at exit (weakref.finalize, not __del__,
        # which runs in an unspecified order at interpreter shutdown)
        self._finalizer = weakref.finalize(self, _lib.fmag_image_destroy, ptr)
        self.programs = [Program(self, _lib.fmag_image_program(ptr, i))
                         for i in range(_lib.fmag_image_program_count(ptr))]

    def __reduce__(self):
        # pickled as its .fmag bytes (validated again when read back)
        return (Image.from_bytes, (self.to_bytes(),))

    def __len__(self):
        return len(self.programs)

    def __iter__(self):
        return iter(self.programs)

    def __getitem__(self, key):
        if isinstance(key, str):
            for p in self.programs:
                if p.name == key:
                    return p
            raise KeyError(key)
        return self.programs[key]

    def to_bytes(self):
        data, n = _P(), ctypes.c_size_t()
        with _Context() as c:
            if not _lib.fmag_image_write(c.p, self._p, ctypes.byref(data), ctypes.byref(n)):
                c.fail(Error, "fmag: cannot serialize the image")
        try:
            return ctypes.string_at(data, n.value)
        finally:
            _lib.fmag_free(data)

    def save(self, path):
        with _Context() as c:
            if not _lib.fmag_image_save(c.p, self._p, os.fsencode(path)):
                c.fail(Error, "fmag: cannot write %s" % path)

    @staticmethod
    def from_bytes(data):
        data = bytes(data)
        with _Context() as c:
            p = _lib.fmag_image_read(c.p, data, len(data))
            if not p:
                c.fail(Error, "fmag: not a valid .fmag image")
        return Image(p)


def load(path):
    """Reads a .fmag file (validated)."""
    with _Context() as c:
        p = _lib.fmag_image_load(c.p, os.fsencode(path))
        if not p:
            c.fail(Error, "fmag: cannot read %s" % path)
    return Image(p)


class Compiler:
    """One C context kept for compile after compile and reset between them, as a JIT
    uses the library: its arena's memory and the GLSL/HLSL front's shaderc compiler
    (about 100 ms to set up) survive the resets. A Compiler serializes its callers (a
    context is one thread's at a time); the module-level compile() keeps one per
    thread. close() (or the last reference) releases it."""

    def __init__(self):
        self._ctx = _lib.fmag_context_create()
        if not self._ctx:
            raise MemoryError("fmag: cannot create a context")
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _lib.fmag_context_destroy, self._ctx)

    def close(self):
        self._finalizer()

    def compile(self, source, filename=None, language=None, entry=None, pipeline=None,
                fastmath=False, fast_codegen=False, include_dirs=(), defines=(),
                inline_budget=0, unroll_budget=0):
        """Compiles source text (str or bytes) to an Image. Without language, the library
        decides as slc does: the content (.fir, .fmas, SPIR-V), then filename's extension,
        then a guess (`#version`: GLSL), else SL; diagnostics name the source filename, or
        <input>. pipeline: "O0", "O1", "O2" (default) or a pass list. include_dirs: where
        GLSL/HLSL #include looks after the including file's directory (slc -I). defines:
        GLSL/HLSL macros, "NAME" or "NAME=VALUE" (slc -D). inline_budget, unroll_budget:
        the most instructions of one function after inlining and after loop unrolling
        (slc -inline-budget, -unroll-budget; 0: the defaults, 200000 and 100000). Raises
        CompileError with .diagnostics."""
        for flag, v in (("inline_budget", inline_budget), ("unroll_budget", unroll_budget)):
            # size_t: ctypes would wrap a larger one silently (2**70 -> 0, the default).
            bits = 8 * ctypes.sizeof(ctypes.c_size_t)
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 2 ** bits:
                raise ValueError("fmag: %s must be an int from 0 to 2**%d - 1, not %r"
                                 % (flag, bits, v))
        if language not in LANGUAGES:
            raise ValueError("fmag: unknown language %r (%s)" % (language, ", ".join(
                k for k in LANGUAGES if k)))
        src = source.encode("utf-8") if isinstance(source, str) else bytes(source)
        shown = filename if filename is not None else "<input>"
        if LANGUAGES[language] == LANGUAGES["auto"] and src[:4] == b"FMAG":
            # The library's message names its C function; here the Python one.
            raise CompileError("%s: error: this is a compiled .fmag image, not source: load "
                               "it with fmag.load (or fmag.Image.from_bytes)" % shown)
        opts = _Options()
        _lib.fmag_compile_options_init_size(ctypes.byref(opts), ctypes.sizeof(opts))
        opts.language = LANGUAGES[language]
        opts.entry = entry.encode() if entry else None
        opts.pipeline = pipeline.encode() if pipeline else None
        opts.fastmath = bool(fastmath)
        opts.fast_codegen = bool(fast_codegen)
        dirs = [os.fsencode(d) for d in include_dirs]
        cdirs = (ctypes.c_char_p * max(len(dirs), 1))(*dirs)
        opts.include_dirs = cdirs
        opts.ninclude_dirs = len(dirs)
        defs = [d.encode() for d in defines]
        cdefs = (ctypes.c_char_p * max(len(defs), 1))(*defs)
        opts.defines = cdefs
        opts.ndefines = len(defs)
        name = os.fsencode(filename) if filename is not None else None
        with self._lock:
            if not self._finalizer.alive:
                raise ValueError("fmag: this Compiler is closed")
            ctx = self._ctx
            try:
                _lib.fmag_context_set_inline_budget(ctx, inline_budget)
                _lib.fmag_context_set_unroll_budget(ctx, unroll_budget)
                p = _lib.fmag_compile(ctx, name, src, len(src), ctypes.byref(opts))
                if not p:
                    _fail(ctx, CompileError, "fmag: %s: compilation failed" % shown)
            finally:
                _lib.fmag_context_reset(ctx)  # the IR goes; the memory and shaderc stay
        return Image(p)

    def compile_file(self, path, **kw):
        """compile() of a file's contents, named by its path in diagnostics."""
        with open(path, "rb") as f:
            return self.compile(f.read(), filename=path, **kw)


_local = threading.local()  # this thread's Compiler and runners


def _compiler():
    c = getattr(_local, "compiler", None)
    if c is None:
        c = _local.compiler = Compiler()
    return c


def compile(source, *args, **kw):
    """Compiler.compile (its arguments, in its order) on this thread's Compiler: one
    context per thread, reset between compiles, so GLSL after GLSL pays glslang's setup
    once per thread."""
    return _compiler().compile(source, *args, **kw)


def compile_file(path, **kw):
    """compile() of a file's contents, named by its path in diagnostics."""
    return _compiler().compile_file(path, **kw)


# ------------------------------------------------------------------ running

_RANGE_HINT = {True: "too large for float32; write inf if meant",
               False: "too small for float32: it rounds to zero; write 0 if meant"}


def _range_error(x):
    """As fmag-run --in: a finite value that overflows float32, or a non-zero one that
    rounds to zero, is an error rather than a silent inf or 0."""
    big = abs(x) > 1.0
    return ValueError("fmag: input %r is out of float range (%s)" % (x, _RANGE_HINT[big]))


def _check_f32(x):
    f = ctypes.c_float(x).value
    if (math.isinf(f) and math.isfinite(x)) or (f == 0.0 and x != 0.0):
        raise _range_error(x)


def _as_rows(inputs, width):
    """(flat float32 buffer, n, numpy?) from a NumPy array or a sequence of rows (or one
    flat row for a single element)."""
    if _np is not None and isinstance(inputs, _np.ndarray):
        if inputs.dtype != _np.float32 and inputs.size:
            wide = _np.asarray(inputs, dtype=_np.float64)
            with _np.errstate(over="ignore", under="ignore"):
                narrow = wide.astype(_np.float32)
            bad = (_np.isinf(narrow) & _np.isfinite(wide)) | ((narrow == 0) & (wide != 0))
            if bad.any():
                raise _range_error(float(wide[bad][0]))
        a = _np.ascontiguousarray(inputs, dtype=_np.float32)
        if a.ndim == 1:
            a = a.reshape(-1, width) if width else a.reshape(len(a), 0)
        if a.ndim != 2 or a.shape[1] != width:
            raise ValueError("fmag: inputs must be shaped (n, %d), got %s" % (width, inputs.shape))
        return a, a.shape[0], True
    rows = list(inputs)
    if rows and not hasattr(rows[0], "__len__"):
        rows = [rows]  # one element
    flat = []
    for r in rows:
        r = list(r)
        if len(r) != width:
            raise ValueError("fmag: each element needs %d inputs, got %d" % (width, len(r)))
        flat.extend(float(x) for x in r)
    for x in flat:
        _check_f32(x)
    buf = (ctypes.c_float * max(len(flat), 1))(*flat)
    return buf, len(rows), False


def _ptr(buf, is_np):
    return buf.ctypes.data_as(_F) if is_np else ctypes.cast(buf, _F)


def _rows_out(buf, n, width, is_np):
    if is_np:
        return buf
    return [[buf[k * width + j] for j in range(width)] for k in range(n)]


class Runner:
    """An engine: "ref" (the reference VM), "batch" (SIMD + threads), "vulkan" or "cuda".
    Creating a GPU runner loads its driver: make one and reuse it. Raises
    EngineUnavailable with the reason when the engine or the device is missing. A runner
    is for one thread at a time: it serializes callers with a lock, and the module-level
    run() keeps one per engine per thread.

    Tiers (GPU runners; docs/GPU.md): tier is None (the runner's choice: "auto", or
    "off" on a CPU Vulkan driver such as lavapipe), "auto" (interpret at once, bake in
    the background), "off" (always interpret) or "eager" (a program's first run waits
    for its bake); nan_agnostic bakes code that leaves NaN payloads to the hardware.
    last_tier() says which code the last run used. The CPU engines always interpret."""

    def __init__(self, engine="ref", threads=0, tier=None, nan_agnostic=False):
        if engine not in ENGINES:
            raise ValueError("fmag: unknown engine %r (%s)" % (engine, ", ".join(ENGINES)))
        self.engine = engine
        with _Context() as c:
            self._p = _lib.fmag_runner_create(c.p, _ENGINE_VALUES[engine])
            if not self._p:
                c.fail(EngineUnavailable, "fmag: %s runner unavailable" % engine)
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _lib.fmag_runner_destroy, self._p)
        if threads:
            _lib.fmag_runner_set_threads(self._p, threads)
        if tier is not None or nan_agnostic:
            self.set_tier(tier, nan_agnostic)

    def describe(self):
        return _s(_lib.fmag_runner_describe(self._p))

    def set_tier(self, tier=None, nan_agnostic=False):
        """The tier mode (None, "auto", "off", "eager") and NaN-agnostic baking for the
        runs after the call."""
        if tier not in TIER_MODES:
            raise ValueError("fmag: unknown tier mode %r (%s)" % (tier, ", ".join(
                k for k in TIER_MODES if k)))
        opts = _RunnerOptions()
        _lib.fmag_runner_options_init_size(ctypes.byref(opts), ctypes.sizeof(opts))
        opts.tier_mode = TIER_MODES[tier]
        opts.nan_agnostic = bool(nan_agnostic)
        with _Context() as c, self._lock:
            if not _lib.fmag_runner_set_options(c.p, self._p, ctypes.byref(opts)):
                c.fail(Error, "fmag: cannot set the tier")

    def last_tier(self):
        """Which code the last run used: "interpreted", "baked" or "mixed" (a per-lane
        run binned by program, some groups baked)."""
        with self._lock:
            return _TIERS.get(_lib.fmag_runner_last_tier(self._p), "interpreted")

    def bake_log(self):
        """Why programs stay interpreted: one line per failed bake ("" when none)."""
        with self._lock:
            return _s(_lib.fmag_runner_bake_log(self._p))

    def run(self, program, inputs):
        """Runs program on every element: inputs is a NumPy array (n, nin) (any float
        dtype; float32 is used) or a list of rows (or one row). Returns (n, nout): a
        float32 NumPy array for NumPy input, else a list of lists of floats."""
        if not isinstance(program, Program):
            raise ValueError("fmag: run takes a Program (image[0] or image['name']), not %s"
                             % ("an Image" if isinstance(program, Image)
                                else type(program).__name__))
        buf, n, is_np = _as_rows(inputs, program.inputs)
        if is_np:
            out = _np.empty((n, program.outputs), dtype=_np.float32)
        else:
            out = (ctypes.c_float * max(n * program.outputs, 1))()
        with _Context() as c, self._lock:
            if not _lib.fmag_run(c.p, self._p, program._p, _ptr(buf, is_np), _ptr(out, is_np), n):
                c.fail(Error, "fmag: run failed")
        return _rows_out(out, n, program.outputs, is_np)

    def run_per_lane(self, image, program_index, inputs):
        """Element k runs image[program_index[k]]; rows are as wide as the widest
        program's inputs (outputs: the widest outputs; slots past a program's own are 0)."""
        if not isinstance(image, Image):
            raise ValueError("fmag: run_per_lane takes an Image, not %s" % type(image).__name__)
        win = max(p.inputs for p in image)
        wout = max(p.outputs for p in image)
        buf, n, is_np = _as_rows(inputs, win)
        idx = list(program_index)
        if len(idx) != n:
            raise ValueError("fmag: %d program indices for %d elements" % (len(idx), n))
        cidx = (ctypes.c_uint32 * max(n, 1))(*idx)
        if is_np:
            out = _np.zeros((n, wout), dtype=_np.float32)
        else:
            out = (ctypes.c_float * max(n * wout, 1))()
        with _Context() as c, self._lock:
            if not _lib.fmag_run_per_lane(c.p, self._p, image._p, cidx, _ptr(buf, is_np), win,
                                          _ptr(out, is_np), wout, n):
                c.fail(Error, "fmag: run failed")
        return _rows_out(out, n, wout, is_np)


def _runner(engine):
    """This thread's runner for the engine (one runner per thread, the C rule)."""
    runners = getattr(_local, "runners", None)
    if runners is None:
        runners = _local.runners = {}
    r = runners.get(engine)
    if r is None:
        r = runners[engine] = Runner(engine)
    return r


def run(program, inputs, engine="ref"):
    """Runner(engine).run(program, inputs), with this thread's runner for the engine
    (made on first use and kept)."""
    return _runner(engine).run(program, inputs)


def run_per_lane(image, program_index, inputs, engine="ref"):
    """Runner(engine).run_per_lane on this thread's runner for the engine."""
    return _runner(engine).run_per_lane(image, program_index, inputs)


def run_dask(program, array, engine="batch"):
    """Runs program over a Dask array of shape (n, inputs), block by block, wherever
    Dask schedules the blocks (threads, or the worker processes of a
    dask.distributed cluster: the program travels as its .fmag bytes). Returns a lazy
    float32 Dask array of shape (n, outputs); .compute() runs it. Needs python3-dask
    (and python3-distributed for a cluster)."""
    from . import _dask
    return _dask.run(program, array, engine)
