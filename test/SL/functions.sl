// Functions, calls, out parameters, several exports, scalarized parameters.
// RUN: slc -emit-ir %s | FileCheck %s

// CHECK-LABEL: func @scale(%v.x, %v.y, %k) -> 3 {
// CHECK: mul %v.x, %k
// CHECK: mul %v.y, %k
// CHECK: ret {{.*}}, {{.*}}, {{.*}}
f32x2 scale(f32x2 v, f32 k, out f32 twice) {
    twice = k * 2.0;
    return v * k;
}

// An export takes the scalarized non-out parameters as inputs; its results are
// the return value's components followed by each out parameter.
// CHECK-LABEL: export func @main(%a.x, %a.y, %s) -> 4 {
// CHECK: [[C:%[0-9a-z_.]+]], [[D:%[0-9a-z_.]+]], [[T:%[0-9a-z_.]+]] = call @scale(%a.x, %a.y, %s)
// CHECK: ret [[C]], [[D]], [[T]], {{.*}}
export f32x2 main(f32x2 a, f32 s, out f32 t, out f32 u) {
    f32x2 r = scale(a, s, t);
    u = 1.0;
    return r;
}

// CHECK-LABEL: export func @second(%x) -> 1 {
// CHECK: ret 4.0
export f32 second(f32 x) { return 4.0; }

// A void helper without outputs still gets one (dummy) result.
// CHECK-LABEL: func @nothing(%x) -> 1 {
void nothing(f32 x) { }
