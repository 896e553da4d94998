// Comparisons give 1.0 / 0.0; && || ! and ?: are selects (no side effects exist,
// so evaluating both sides keeps short-circuit semantics).
// RUN: slc -emit-ir %s | FileCheck %s

// CHECK-LABEL: export func @cmp(%a, %b) -> 6 {
// CHECK: [[LT:%[0-9a-z_.]+]] = sub %b, %a
// CHECK: select 1.0, 0.0, [[LT]]
export f32x3 cmp(f32 a, f32 b, out f32x3 more) {
    more = f32x3(a == b, a != b, a >= b);
    return f32x3(a < b, a > b, a <= b);
}

// a && b: b's truth when a is true, else 0.
// CHECK-LABEL: export func @and(%a, %b) -> 1 {
// CHECK: [[GA:%[0-9a-z_.]+]] = select 1.0, {{.*}}, %a
// CHECK: [[GB:%[0-9a-z_.]+]] = select 1.0, {{.*}}, %b
// CHECK: select [[GB]], 0.0, [[GA]]
export f32 and(f32 a, f32 b) { return a && b; }

// a || b: 1 when a is true, else b's truth.
// CHECK-LABEL: export func @or(%a, %b) -> 1 {
// CHECK: [[GA:%[0-9a-z_.]+]] = select 1.0, {{.*}}, %a
// CHECK: [[GB:%[0-9a-z_.]+]] = select 1.0, {{.*}}, %b
// CHECK: select 1.0, [[GB]], [[GA]]
export f32 or(f32 a, f32 b) { return a || b; }

// !bool is 1 - bool; ?: on a boolean is one select.
// CHECK-LABEL: export func @not(%a) -> 1 {
// CHECK: [[C:%[0-9a-z_.]+]] = select 1.0, 0.0, {{.*}}
// CHECK: sub 1.0, [[C]]
export f32 not(f32 a) { return !(a > 0.0); }

// CHECK-LABEL: export func @sel(%a, %x, %y) -> 1 {
// CHECK: [[C:%[0-9a-z_.]+]] = select 1.0, 0.0, {{.*}}
// CHECK: select %x, %y, [[C]]
export f32 sel(f32 a, f32 x, f32 y) { return a > 0.0 ? x : y; }
