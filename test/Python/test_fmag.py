"""Tests of the Python module (python/fmag) against independent oracles: slc + fmag-run
of the normal build (bit for bit), float32 arithmetic worked in Python, and the
diagnostics' known positions. Run by python.test; needs FMAG_LIBRARY and FMAG_BIN."""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

import fmag

BIN = os.environ["FMAG_BIN"]
SRC = os.environ["FMAG_SRC"]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bits(rows):
    return [[struct.pack("<f", v) for v in r] for r in rows]


def slc_fmag_run(sl_path, rows):
    """The oracle: the normal build's tools."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "x.fmag")
        subprocess.run([os.path.join(BIN, "slc"), sl_path, "-o", out], check=True)
        args = [os.path.join(BIN, "fmag-run"), out]
        for r in rows:
            args += ["--in", ",".join(repr(v) for v in r)]
        text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return [[f32(float(v)) for v in line.split()] for line in text.splitlines()]


class CompileAndRun(unittest.TestCase):
    def test_version(self):
        with open(os.path.join(SRC, "CMakeLists.txt")) as f:
            self.assertIn("VERSION %s " % fmag.version(), f.read())

    def test_arithmetic_worked_in_python(self):
        img = fmag.compile("export f32 f(f32 x, f32 y) { return x * y + 1.0; }")
        p = img["f"]
        self.assertEqual((p.inputs, p.outputs, p.flags), (2, 1, 0))
        rows = [[0.1, 0.2], [3.0, -7.5], [1e20, 1e-20], [-0.0, 5.0]]
        # strict mode: the product rounds to float32, then the sum does
        want = [[f32(f32(f32(x) * f32(y)) + 1.0)] for x, y in rows]
        for engine in ("ref", "batch"):
            self.assertEqual(bits(fmag.run(p, rows, engine)), bits(want), engine)

    def test_derivative_inputs(self):
        # dfdx(x*k) takes x and k, then their x and y derivatives (docs/Derivatives.md)
        p = fmag.compile("export f32 f(f32 x, f32 k) { return dfdx(x * k); }")["f"]
        self.assertEqual((p.inputs, p.deriv_inputs, p.flags & 2), (6, 2, 2))
        out = fmag.run(p, [[3.0, 5.0, 1.0, 0.0, 0.0, 1.0]], "ref")
        self.assertEqual([[float(v) for v in row] for row in out], [[5.0]])
        self.assertEqual(fmag.compile("export f32 g(f32 x) { return x; }")["g"].deriv_inputs, 0)

    def test_materialx(self):
        doc = ('<?xml version="1.0"?>\n<materialx version="1.38">\n'
               '  <nodegraph name="g">\n'
               '    <input name="k" type="float" value="1"/>\n'
               '    <multiply name="m" type="color3">\n'
               '      <input name="in1" type="color3" value="1, 2, 3"/>\n'
               '      <input name="in2" type="float" interfacename="k"/>\n'
               '    </multiply>\n'
               '    <output name="out" type="color3" nodename="m"/>\n'
               '  </nodegraph>\n</materialx>\n')
        # the content picks the language; so does language="mtlx"
        for kw in ({}, {"language": "mtlx"}, {"filename": "look.mtlx"}):
            img = fmag.compile(doc, **kw)
            self.assertEqual(fmag.run(img[0], [[2.0]]), [[2.0, 4.0, 6.0]])
        with self.assertRaises(fmag.CompileError) as e:
            fmag.compile(doc.replace("multiply", "frobnicate"), filename="bad.mtlx")
        self.assertIn("bad.mtlx:5:5: error: node 'm' (frobnicate, color3)", str(e.exception))

    def test_node_graph_matches_slc_and_fmag_run(self):
        path = os.path.join(SRC, "examples", "node_graph_a.sl")
        img = fmag.compile_file(path)
        p = img[0]
        rows = [[0.3, 0.7, 0.2, 0.9], [0.0, 1.0, 0.5, 0.25], [-1.0, 2.0, 0.75, 0.5]]
        want = slc_fmag_run(path, rows)
        self.assertEqual(bits(fmag.run(p, rows, "ref")), bits(want))
        self.assertEqual(bits(fmag.Runner("batch", threads=2).run(p, rows)), bits(want))
        # and the image's bytes are slc's
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "x.fmag")
            subprocess.run([os.path.join(BIN, "slc"), path, "-o", out], check=True)
            with open(out, "rb") as f:
                self.assertEqual(img.to_bytes(), f.read())
            img.save(os.path.join(d, "y.fmag"))
            self.assertEqual(fmag.load(os.path.join(d, "y.fmag"))[0].instr_count, p.instr_count)

    def test_inspect(self):
        img = fmag.compile(".def lerp, 3, 1\n"
                           "    %r1 = fmag %r0, -1, %r1, 1\n"
                           "    %r0 = fmag %r1, %r2, %r0, 1\n", filename="lerp.fmas")
        p = img[0]
        self.assertEqual((p.name, p.instr_count, p.regs, p.inputs, p.outputs),
                         ("lerp", 2, 3, 3, 1))
        self.assertEqual(p.instructions()[0], (1, 0, -1.0, ("r", 1), 1.0))
        self.assertEqual(p.instructions()[1], (0, 1, ("r", 2), ("r", 0), 1.0))
        self.assertIn("%r0 = fmag %r1, %r2, %r0", p.disassemble())
        self.assertEqual(fmag.run(p, [2.0, 10.0, 0.25]), [[4.0]])

    def test_fir_and_pipeline(self):
        fir = "export func @f(%x) -> 1 {\n^entry:\n  %0 = mul %x, 2.0\n  ret %0\n}\n"
        for pipeline in ("O0", "O2"):
            img = fmag.compile(fir, filename="f.fir", pipeline=pipeline)
            self.assertEqual(fmag.run(img[0], [[1.5], [-3.0]]), [[3.0], [-6.0]])

    def test_loop_at_every_pipeline(self):
        # A loop left rolled by the pipeline (O0) is unrolled before lowering, as slc does:
        # four additions of x*x, worked by hand (1.5 -> 9, -2 -> 16).
        sl = ("export f32 f(f32 x) {\n    f32 s = 0.0;\n"
              "    for (f32 i = 0; i < 4; i++) { s = s + x * x; }\n    return s;\n}\n")
        for pipeline in ("O0", "O2"):
            img = fmag.compile(sl, pipeline=pipeline)
            self.assertEqual(fmag.run(img[0], [[1.5], [-2.0]]), [[9.0], [16.0]])

    def test_per_lane(self):
        img = fmag.compile("export f32 a(f32 x) { return x + 1.0; }\n"
                           "export f32 b(f32 x) { return x * 3.0; }\n")
        out = fmag.run_per_lane(img, [0, 1, 1, 0], [[1.0], [2.0], [3.0], [4.0]], "batch")
        self.assertEqual(out, [[2.0], [6.0], [9.0], [5.0]])

    def test_per_lane_unequal_strides(self):
        """Input rows as wide as the widest program's inputs (2), output rows as wide as
        the widest's outputs (3): an engine that stepped the outputs by the input stride
        (issue 31's per-lane stride bug class) shifts every element after the first.
        Values worked by hand; a program's unused output slots are 0."""
        img = fmag.compile("export f32 a(f32 x, f32 y) { return x - y; }\n"
                           "export f32x3 b(f32 x) { return f32x3(x, x * 2.0, x * 4.0); }\n")
        idx = [1, 0, 1, 0, 1]
        rows = [[1.0, 0.0], [5.0, 2.0], [3.0, 0.0], [7.0, 10.0], [0.5, 0.0]]
        want = [[1.0, 2.0, 4.0], [3.0, 0.0, 0.0], [3.0, 6.0, 12.0], [-3.0, 0.0, 0.0],
                [0.5, 1.0, 2.0]]
        for engine in ("ref", "batch"):
            self.assertEqual(fmag.run_per_lane(img, idx, rows, engine), want, engine)
        np = fmag._np
        if np is not None:
            out = fmag.run_per_lane(img, idx, np.array(rows, dtype=np.float32), "batch")
            self.assertEqual(out.shape, (5, 3))
            self.assertEqual(out.tolist(), want)

    def test_diagnostics_are_records(self):
        with self.assertRaises(fmag.CompileError) as cm:
            fmag.compile("export f32 f(f32 x) {\n  return x +;\n}\n", filename="bad.sl")
        d = cm.exception.diagnostics[0]
        self.assertEqual((d.file, d.line, d.column, d.severity), ("bad.sl", 2, 13, "error"))
        self.assertTrue(d.text.startswith("bad.sl:2:13: error: " + d.message))
        self.assertIn("bad.sl:2:13: error:", str(cm.exception))

    def test_bad_arguments(self):
        p = fmag.compile("export f32 f(f32 x, f32 y) { return x; }")[0]
        with self.assertRaises(ValueError):
            fmag.run(p, [[1.0]])
        with self.assertRaises(ValueError) as cm:
            fmag.run(fmag.compile("export f32 g(f32 x) { return x; }"), [[1.0]])
        self.assertIn("not an Image", str(cm.exception))
        with self.assertRaises(ValueError):
            fmag.run_per_lane(p, [0], [[1.0, 2.0]])
        with self.assertRaises(ValueError):
            fmag.Runner("opengl")
        with self.assertRaises(fmag.Error):
            fmag.Image.from_bytes(b"FMAG-not-really")

    @unittest.skipIf(fmag._np is None, "NumPy not installed")
    def test_numpy(self):
        np = fmag._np
        p = fmag.compile("export f32 f(f32 x, f32 y) { return x * y + 1.0; }")[0]
        x = np.random.default_rng(7).standard_normal((1000, 2))  # float64: converted
        out = fmag.run(p, x, "batch")
        self.assertEqual((out.shape, out.dtype), ((1000, 1), np.float32))
        x32 = x.astype(np.float32)
        want = (x32[:, 0] * x32[:, 1]).astype(np.float32) + np.float32(1.0)
        self.assertTrue(np.array_equal(out[:, 0].view(np.uint32), want.view(np.uint32)))

    def test_gpu_runners(self):
        p = fmag.compile("export f32 f(f32 x) { return x * 0.5 + 2.0; }")[0]
        rows = [[float(k) - 4.0] for k in range(9)]
        for engine in ("vulkan", "cuda"):
            try:
                r = fmag.Runner(engine)
            except fmag.EngineUnavailable as e:
                # a clear reason, not a crash
                self.assertIn("%s runner unavailable" % engine, str(e))
                continue
            self.assertEqual(bits(r.run(p, rows)), bits(fmag.run(p, rows, "ref")), engine)

    def test_tiers(self):
        # the reference engine is the oracle; OFF interprets, EAGER bakes before the run
        p = fmag.compile("export f32 f(f32 x) { return x > 1.0 ? x * 0.5 : x - 3.0; }")[0]
        rows = [[float(k) * 0.75 - 3.0] for k in range(12)]
        want = bits(fmag.run(p, rows, "ref"))
        cpu = fmag.Runner("batch", tier="eager")  # accepted; the CPU engines interpret
        self.assertEqual((bits(cpu.run(p, rows)), cpu.last_tier()), (want, "interpreted"))
        with self.assertRaises(ValueError):
            cpu.set_tier("sometimes")
        for engine in ("vulkan", "cuda"):
            try:
                r = fmag.Runner(engine, tier="off")
            except fmag.EngineUnavailable:
                continue
            self.assertEqual((bits(r.run(p, rows)), r.last_tier()), (want, "interpreted"))
            r.set_tier("eager")
            self.assertEqual(bits(r.run(p, rows)), want, engine)
            if r.last_tier() != "baked":  # only where the machine has no compiler
                self.assertRegex(r.bake_log(), "no (GLSL|CUDA) compiler")
                continue
            r.set_tier("eager", nan_agnostic=True)  # no NaN here: the same bits
            self.assertEqual((bits(r.run(p, rows)), r.last_tier()), (want, "baked"))


def glsl_available():
    try:
        fmag.compile("float f(float x) { return x; }", language="glsl", entry="f")
        return True
    except fmag.CompileError:
        return False


class NewUserReview(unittest.TestCase):
    """The content decides the language, C names stay out of Python's messages, and an
    input float32 cannot hold is refused as fmag-run --in refuses it."""

    @unittest.skipUnless(glsl_available(), "built without GLSL input")
    def test_glsl_text_without_a_name_is_glsl(self):
        src = "#version 450\nfloat g(float x) { return x * 2.0 + 1.0; }\n"
        p = fmag.compile(src, entry="g")[0]
        self.assertEqual(fmag.run(p, [[3.0], [-0.5]]), [[7.0], [0.0]])  # 3*2+1, -0.5*2+1

    @unittest.skipUnless(glsl_available(), "built without GLSL input")
    def test_glsl_include(self):
        # "x" beside the file (compile_file names it), <x> from include_dirs:
        # sq(3) + 10 * 3 = 39.
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "inc"))
            with open(os.path.join(d, "common.glsl"), "w") as f:
                f.write("float sq(float x) { return x * x; }\n")
            with open(os.path.join(d, "inc", "lib.glsl"), "w") as f:
                f.write("float lib(float x) { return 10.0 * x; }\n")
            main = os.path.join(d, "main.glsl")
            with open(main, "w") as f:
                f.write('#include "common.glsl"\n#include <lib.glsl>\n'
                        "float h(float x) { return sq(x) + lib(x); }\n")
            p = fmag.compile_file(main, entry="h", include_dirs=[os.path.join(d, "inc")])[0]
            self.assertEqual(fmag.run(p, [[3.0]]), [[39.0]])
            with self.assertRaises(fmag.CompileError) as cm:
                fmag.compile_file(main, entry="h")
            self.assertIn("cannot find <lib.glsl>", str(cm.exception))
        # defines: K = 4 makes h(3) = 12.
        p = fmag.compile("float h(float x) { return x * K; }", language="glsl", entry="h",
                         defines=["K=4.0"])[0]
        self.assertEqual(fmag.run(p, [[3.0]]), [[12.0]])

    def test_budgets(self):
        # 40 trips of s += x: 40 x 0.25 = 10 within the default budget, an error at
        # the loop (line 3) over 30 instructions; four calls of g over 4.
        loop = ("export f32 f(f32 x) {\n  f32 s = 0.0;\n"
                "  for (f32 i = 0.0; i < 40.0; i++) { s = s + x; }\n  return s;\n}\n")
        self.assertEqual(fmag.run(fmag.compile(loop)[0], [[0.25]]), [[10.0]])
        with self.assertRaises(fmag.CompileError) as cm:
            fmag.compile(loop, unroll_budget=30)
        d = cm.exception.diagnostics[0]
        self.assertEqual(d.line, 3)
        self.assertIn("exceed the budget of 30 instructions", d.message)
        calls = ("f32 g(f32 x) { return x * 1.5 + 0.25; }\n"
                 "export f32 f(f32 x) { return g(x) + g(x * 0.5) + g(x) * g(x); }\n")
        fmag.compile(calls, inline_budget=100)
        with self.assertRaises(fmag.CompileError) as cm:
            fmag.compile(calls, inline_budget=4)
        self.assertIn("inline budget of 4 instructions", str(cm.exception))
        for bad in (-1, 1.5, "9", True, 2 ** 70):
            with self.assertRaises(ValueError):
                fmag.compile(loop, unroll_budget=bad)

    def test_shader_snippet_as_sl_gets_a_hint(self):
        with self.assertRaises(fmag.CompileError) as cm:
            fmag.compile("float f(float x) { return x * 2.0; }")
        self.assertEqual(len(cm.exception.diagnostics), 1)
        self.assertIn("<input>:1:1: error: expected a function definition, found 'float' "
                      "(GLSL or HLSL source?", str(cm.exception))

    def test_errors_name_input(self):
        with self.assertRaises(fmag.CompileError) as cm:
            fmag.compile("export f32 f(f32 x) { return x +; }")
        self.assertEqual(cm.exception.diagnostics[0].file, "<input>")
        self.assertIn("<input>:1:", str(cm.exception))

    def test_fmag_image_names_fmag_load(self):
        data = fmag.compile("export f32 f(f32 x) { return x; }").to_bytes()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "node.fmag")
            with open(path, "wb") as f:
                f.write(data)
            with self.assertRaises(fmag.CompileError) as cm:
                fmag.compile_file(path)
            self.assertIn("fmag.load", str(cm.exception))
            self.assertNotIn("fmag_image_read", str(cm.exception))
            self.assertEqual(len(fmag.load(path)), 1)

    def test_inputs_out_of_float32_range(self):
        p = fmag.compile("export f32 f(f32 x, f32 y, f32 z) { return x; }")[0]
        # FLT_MAX is 3.4028234664e38: 1e39 and -3.5e38 overflow; 1e-50 is below half
        # of the smallest denormal (2^-149 = 1.4e-45) and would round to zero.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.fmag")
            fmag.compile("export f32 f(f32 x, f32 y, f32 z) { return x; }").save(path)
            for bad in (1e39, -3.5e38, 1e-50):
                with self.assertRaises(ValueError) as cm:
                    fmag.run(p, [bad, 1, 1])
                self.assertIn(repr(bad), str(cm.exception))
                self.assertIn("out of float range", str(cm.exception))
                # the oracle: fmag-run refuses the same value
                r = subprocess.run([os.path.join(BIN, "fmag-run"), path, "--in",
                                    "%r,1,1" % bad], capture_output=True, text=True)
                self.assertIn("out of float range", r.stderr)
        # inf, a denormal and 3.4e38 are values, and run as given
        out = fmag.run(p, [[float("inf"), 0, 0], [1e-40, 0, 0], [3.4e38, 0, 0]])
        self.assertEqual(out, [[float("inf")], [f32(1e-40)], [f32(3.4e38)]])
        if fmag._np is not None:
            with self.assertRaises(ValueError):
                fmag.run(p, fmag._np.array([[1.0, 1e39, 1.0]]))


class ThreadsAndLifetimes(unittest.TestCase):
    """The module under threads: compiles and runs from several threads at once, each
    checked against float32 arithmetic worked in Python; one runner and one Compiler per
    thread; handles released by their finalizers."""

    def test_compile_and_run_from_threads(self):
        import threading
        errors, runners = [], {}
        xs = [[f32(k / 7.0 - 2.0)] for k in range(50)]

        def work(t):
            try:
                for rep in range(5):
                    k = f32(t + rep / 4.0)
                    img = fmag.compile("export f32 f(f32 x) { return x * %r + %d.0; }"
                                       % (k, t), filename="t%d.sl" % t)
                    got = fmag.run(img[0], xs, engine="ref" if rep % 2 else "batch")
                    want = [[f32(f32(x[0] * k) + t)] for x in xs]  # mul, then add: two roundings
                    fused = [[f32(x[0] * k + t)] for x in xs]      # or one fma (exact in double)
                    for g, w, u in zip(got, want, fused):
                        if g != w and g != u:
                            errors.append((t, rep, g, w))
                runners[t] = (id(fmag._runner("ref")), id(fmag._compiler()))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append((t, repr(e)))

        threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(set(runners.values())), 6, "one runner and one Compiler per thread")

    def test_shared_compiler_and_runner_serialize(self):
        import threading
        c, r = fmag.Compiler(), fmag.Runner("batch")
        out, errors = [], []

        def work(t):
            try:
                img = c.compile("export f32 g(f32 x) { return max(x, %d.0); }" % t)
                out.append((t, r.run(img[0], [[1.5], [7.5]])))
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))

        threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.assertEqual(errors, [])
        for t, got in out:
            self.assertEqual(got, [[max(1.5, t)], [max(7.5, t)]])
        c.close()
        with self.assertRaises(ValueError):
            c.compile("export f32 g(f32 x) { return x; }")

    def test_compiler_errors_and_reuse(self):
        c = fmag.Compiler()
        with self.assertRaises(fmag.CompileError) as e:
            c.compile("export f32 f(f32 x) {\n  return x +;\n}\n", filename="bad.sl")
        self.assertEqual((e.exception.diagnostics[0].line, e.exception.diagnostics[0].column),
                         (2, 13))
        # the context was reset: the next compile reports only its own diagnostics
        with self.assertRaises(fmag.CompileError) as e:
            c.compile("export f32 f(f32 x) { return y; }", filename="b2.sl")
        self.assertEqual([d.file for d in e.exception.diagnostics], ["b2.sl"])
        self.assertEqual(fmag.run(c.compile("export f32 f(f32 x) { return x + 1.0; }")[0],
                                  [[2.0]]), [[3.0]])

    def test_finalizers_release_handles(self):
        import gc
        img = fmag.compile("export f32 f(f32 x) { return x; }")
        fin = img._finalizer
        prog = img[0]
        del img
        gc.collect()
        self.assertTrue(fin.alive, "a Program keeps its image")
        del prog
        gc.collect()
        self.assertFalse(fin.alive)
        r = fmag.Runner("ref")
        rfin = r._finalizer
        del r
        gc.collect()
        self.assertFalse(rfin.alive)
        self.assertFalse(hasattr(fmag.Image, "__del__") or hasattr(fmag.Runner, "__del__"))

    def test_pickle_round_trip(self):
        import pickle
        img = fmag.compile("export f32 a(f32 x) { return x * 3.0; }\n"
                           "export f32 b(f32 x) { return x - 1.0; }")
        p = pickle.loads(pickle.dumps(img["b"]))
        self.assertEqual((p.name, fmag.run(p, [[5.0]])), ("b", [[4.0]]))

    def test_layouts_checked_against_the_library(self):
        import ctypes
        # the module's mirrors agree with the library's own table...
        self.assertEqual(ctypes.sizeof(fmag._Options),
                         fmag._ABI["S"]["fmag_compile_options"])
        self.assertEqual(fmag.LANGUAGES["hlsl"], fmag._ABI["E"]["FMAG_LANG_HLSL"])

        # ...and a mirror that does not is refused
        class Swapped(ctypes.Structure):
            _fields_ = [("size", ctypes.c_size_t), ("entry", ctypes.c_char_p),
                        ("language", ctypes.c_int)]
        with self.assertRaises(ImportError) as e:
            fmag._check_layout(fmag._ABI, Swapped, "fmag_compile_options")
        self.assertIn("fmag_compile_options.entry", str(e.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2 if "-v" in sys.argv else 1)
