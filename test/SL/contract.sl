// a*b + c is a multiply then an add (two roundings) unless -ffast-math, where the
// optimizer contracts it into one fma.
// RUN: slc -S %s | FileCheck %s --check-prefix=STRICT
// RUN: slc -S -ffast-math %s | FileCheck %s --check-prefix=FAST
// STRICT-LABEL: .def f, 3, 1
// STRICT-NEXT: .regs
// STRICT-NEXT: fmag %r0, %r1, 0.0, 1.0
// STRICT-NEXT: fmag %r0, 1.0, %r2, 1.0
// STRICT-NOT: fmag
// FAST-LABEL: .def f, 3, 1
// FAST: .fastmath
// FAST-NEXT: %r0 = fmag %r0, %r1, %r2, 1.0
// FAST-NOT: fmag
export f32 f(f32 a, f32 b, f32 c) { return a * b + c; }

// Executed: with a = 1 + 2^-12, b = 1 - 2^-12, c = -1 the exact product is
// 1 - 2^-24, so mul-then-add gives (1 - 2^-24 rounds to even 1) - 1 = 0 ... the
// product 1 - 2^-24 is representable, so try 1 + 2^-12 squared: 1 + 2^-11 + 2^-24
// rounds to 1 + 2^-11; minus (1 + 2^-11) gives 0 strict, 2^-24 fused.
// RUN: slc %s -o %t.fmag && fmag-run %t.fmag --in 1.000244140625,1.000244140625,-1.00048828125 | FileCheck %s --check-prefix=RUNSTRICT
// RUNSTRICT: {{^0$}}
// RUN: slc -ffast-math %s -o %t.fast.fmag && fmag-run %t.fast.fmag --in 1.000244140625,1.000244140625,-1.00048828125 | FileCheck %s --check-prefix=RUNFAST
// RUNFAST: {{^5.96046448e-08$}}
