// Constructors (splat and concatenation), swizzle read, masked swizzle write,
// scalar broadcast.
// RUN: slc -emit-ir %s | FileCheck %s

// CHECK-LABEL: export func @ctor(%x, %y) -> 4 {
// CHECK-NEXT: ^entry:
// CHECK-NEXT: jmp ^exit
// CHECK: ret %x, %y, %x, 1.0
export f32x4 ctor(f32 x, f32 y) {
    f32x2 v = f32x2(x, y);
    return f32x4(v, f32x2(x, 1.0));
}

// CHECK-LABEL: export func @splat(%x) -> 3 {
// CHECK: ret %x, %x, %x
export f32x3 splat(f32 x) { return f32x3(x); }

// c.xz = c.zx swaps two lanes; .y keeps its value.
// CHECK-LABEL: export func @swz(%c.x, %c.y, %c.z) -> 3 {
// CHECK: ret %c.z, %c.y, %c.x
export f32x3 swz(f32x3 c) {
    c.xz = c.zx;
    return c;
}

// .rgba names, reading a swizzle of a swizzle.
// CHECK-LABEL: export func @rgba(%c.x, %c.y, %c.z, %c.w) -> 2 {
// CHECK: ret %c.w, %c.x
export f32x2 rgba(f32x4 c) { return c.abgr.xw; }

// Scalar broadcast: v * s multiplies each lane by s, v + 1.0 adds to each lane.
// CHECK-LABEL: export func @bcast(%v.x, %v.y, %s) -> 2 {
// CHECK: [[A:%[0-9a-z_.]+]] = mul %v.x, %s
// CHECK: [[B:%[0-9a-z_.]+]] = mul %v.y, %s
// CHECK: [[C:%[0-9a-z_.]+]] = add [[A]], 1.0
// CHECK: [[D:%[0-9a-z_.]+]] = add [[B]], 1.0
// CHECK: ret [[C]], [[D]]
export f32x2 bcast(f32x2 v, f32 s) { return v * s + 1.0; }

// Masked write through compound assignment: only .y changes.
// CHECK-LABEL: export func @masked(%v.x, %v.y, %v.z) -> 3 {
// CHECK: [[Y:%[0-9a-z_.]+]] = add %v.y, 2.0
// CHECK: ret %v.x, [[Y]], %v.z
export f32x3 masked(f32x3 v) {
    v.y += 2.0;
    return v;
}
