// A local declared inside an if arm goes out of scope at the join: no phi is built
// for it (the other path never defined it; a phi with a missing operand was
// invalid IR, found by the slc fuzzer).
// RUN: slc -emit-ir %s -o %t.fir
// RUN: fmag-opt -passes=verify %t.fir -o /dev/null
// RUN: FileCheck %s --input-file %t.fir
// Exactly one phi per join, both for r (before the fix: 1 + 4 for the arms' t, then
// 1 + 1 for u).
// CHECK-LABEL: export func @f(%x) -> 1 {
// CHECK-COUNT-2: = phi [
// CHECK-NOT: phi
// CHECK: ret
// Values by hand: x = 2: t = 4, r = 5; x = -3: r = -3 - 1 = -4; x = 7: r = 15 + 3 = 18.
// RUN: fmag-run %t.fir --in 2 --in -3 --in 7 | FileCheck %s --check-prefix=IR
// RUN: slc %s -o %t.fmag && fmag-run %t.fmag --in 2 --in -3 --in 7 | FileCheck %s --check-prefix=IR
// IR: 5
// IR-NEXT: -4
// IR-NEXT: 18
export f32 f(f32 x) {
    f32 r = 1.0;
    if (x > 0.0) {
        f32 t = x * 2.0;
        r = t + 1.0;
    } else {
        f32x3 t = f32x3(x);
        r = t.y - 1.0;
    }
    if (x > 5.0) {
        f32 u = 3.0;
        r = r + u;
    }
    return r;
}
