// dfdx, dfdy and fwidth in SL (docs/Derivatives.md): forward-mode derivatives. The
// program takes, after its inputs, the x then the y derivative of each input, in the
// same scalarized order; -S says so with .derivs; -derivs= picks the inputs that
// carry them; a call with too few inputs is an error naming the count.
// RUN: slc -S %s -o - | FileCheck %s --check-prefix=ASM
// ASM: .def shade, 12, 4
// ASM-NEXT: .regs
// ASM-NEXT: .derivs 4 ; inputs r0..r3, then the x derivatives of 4 of them, then their y derivatives
// The IR before the pass: the builtins that need a chain rule are intrinsic calls.
// RUN: slc -emit-ir %s -o - | FileCheck %s --check-prefix=IR
// IR-LABEL: export func @shade(%uv.x, %uv.y, %s, %t) -> 4 {
// IR: call @fmag.sin(
// IR: call @fmag.dfdx(
// IR: call @fmag.dfdy(
// IR-LABEL: func @fmag.sin(%arg0) -> 1 {
// uv = (0.25, 2), s = 3, t = 5; along x (du, dv, ds, dt) = (1, 0, 0.5, 0), along y
// (0, 1, 0, 2). p = u*v + sin(u) + s*t: dp/dx = v + cos(u) + 0.5*t = 2 + 0.96891242 + 2.5,
// dp/dy = u + 2*s = 6.25; fwidth = |dp/dx| + |dp/dy|; d(floor(s*2))/dx = 0;
// dfdx(uv) = (du, dv) along x = (1, 0).
// RUN: slc %s -o %t.fmag
// RUN: fmag-run %t.fmag --in 0.25,2,3,5,1,0,0.5,0,0,1,0,2 | FileCheck %s --check-prefix=VAL
// Every level differentiates (-O0 and -O1 through the lowering's preparation), and
// fast-math builds its shorter builtins (@fmag.sin.fast) with the same rules.
// RUN: slc -O0 %s -o %t.o0.fmag && fmag-run %t.o0.fmag --in 0.25,2,3,5,1,0,0.5,0,0,1,0,2 | FileCheck %s --check-prefix=VAL
// RUN: slc -O1 %s -o %t.o1.fmag && fmag-run %t.o1.fmag --in 0.25,2,3,5,1,0,0.5,0,0,1,0,2 | FileCheck %s --check-prefix=VAL
// RUN: slc -ffast-math %s -o %t.fm.fmag && fmag-run %t.fm.fmag --in 0.25,2,3,5,1,0,0.5,0,0,1,0,2 | FileCheck %s --check-prefix=VAL
// RUN: slc -ffast-math -emit-ir %s -o - | FileCheck %s --check-prefix=FAST
// FAST: call @fmag.sin.fast(
// A literal operand is baked into its builtin's body (pow(x, 2.5) as @fmag.pow.lit1_...),
// and -emit-ir's text reads back: d/dx (x^2.5 + x/3) at 2 = 2.5 * 2^1.5 + 1/3.
// RUN: slc -emit-ir %S/Inputs/derivatives-lit.sl -o %t.lit.fir
// RUN: FileCheck %s --check-prefix=LIT --input-file %t.lit.fir
// LIT: call @fmag.pow.lit1_40200000(%x, 2.5)
// RUN: fmag-run %t.lit.fir --in 2,1,0 | FileCheck %s --check-prefix=LITV
// RUN: fmag-opt %t.lit.fir -O2 -lower -o %t.lit.fmag && fmag-run %t.lit.fmag --in 2,1,0 | FileCheck %s --check-prefix=LITV
// LITV: {{^7.404401}}
// RUN: fmag-as -i %t.fmag | FileCheck %s --check-prefix=INFO
// RUN: not fmag-run %t.fmag --in 0.25,2,3,5 2>&1 | FileCheck %s --check-prefix=FEW
// VAL: 5.46891{{[0-9]*}} 11.7189{{[0-9]*}} 0 1
// INFO: inputs=12 outputs=4 flags=0x2 (derivatives: 4 inputs carry x and y derivatives, inputs 4..11)
// FEW: program 'shade' uses derivatives: it takes 12 inputs, its 4 ordinary inputs then the x and the y derivatives of 4 of them
// -derivs=uv: only uv.x and uv.y carry derivatives (8 inputs); s and t count as
// constants: dp/dx = v + cos(u), dp/dy = u.
// RUN: slc -S -derivs=uv %s -o - | FileCheck %s --check-prefix=SEL
// SEL: .def shade, 8, 4
// RUN: slc -derivs=uv %s -o %t2.fmag
// RUN: fmag-run %t2.fmag --in 0.25,2,3,5,1,0,0,1 | FileCheck %s --check-prefix=RUNSEL
// RUNSEL: 2.96891{{[0-9]*}} 3.21891{{[0-9]*}} 0 1
// RUN: not slc -S -derivs=uv,q %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADSEL
// BADSEL: error: -derivs: @shade has no input 'q'
// RUN: not slc -S %S/Inputs/derivatives-bad.sl -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: builtin 'dfdx' takes 1 argument, got 2
export f32x4 shade(f32x2 uv, f32 s, f32 t) {
    f32 p = uv.x * uv.y + sin(uv.x) + s * t;
    f32x2 d = dfdx(uv);
    return f32x4(dfdx(p), fwidth(p), dfdx(floor(s * 2.0)), d.x);
}
