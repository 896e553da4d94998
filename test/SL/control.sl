// if / else-if / else chains, early returns, locals merged by phis.
// RUN: slc -emit-ir %s | FileCheck %s

// A branch tests the truth of a boolean directly (comparisons give 1.0 / 0.0).
// CHECK-LABEL: export func @chain(%x) -> 1 {
// CHECK: [[D:%[0-9a-z_.]+]] = sub %x, 1.0
// CHECK: [[G:%[0-9a-z_.]+]] = select 1.0, 0.0, [[D]]
// CHECK: br [[G]], ^then, ^else
// CHECK: phi
// CHECK: ret
export f32 chain(f32 x) {
    f32 r = 0.0;
    if (x > 1.0) {
        r = 10.0;
    } else if (x < -1.0) {
        r = 20.0;
    } else {
        r = 30.0;
    }
    return r;
}

// Early return: the exit block merges the return sites.
// CHECK-LABEL: export func @early(%x) -> 1 {
// CHECK: br
// CHECK: ^exit:
// CHECK-NEXT: [[R:%[0-9a-z_.]+]] = phi
// CHECK-NEXT: ret [[R]]
export f32 early(f32 x) {
    if (x < 0.0)
        return 0.0;
    return x * 2.0;
}

// A non-boolean condition is tested for != 0 (truth: -x > 0 or x > 0).
// CHECK-LABEL: export func @truth(%x) -> 1 {
// CHECK: [[N:%[0-9a-z_.]+]] = neg %x
// CHECK: [[T:%[0-9a-z_.]+]] = select 1.0, 0.0, [[N]]
// CHECK: [[G:%[0-9a-z_.]+]] = select 1.0, [[T]], %x
// CHECK: br [[G]]
export f32 truth(f32 x) {
    if (x)
        return 1.0;
    return 2.0;
}

// Statements after a return in the same block are checked but emit nothing.
// CHECK-LABEL: export func @dead(%x) -> 1 {
// CHECK-NOT: mul
// CHECK: ret
export f32 dead(f32 x) {
    return x;
    x = x * 3.0;
}
