// demo-input: 12.5,7.25
// Dave Hoskins' hash21 (2D to 1D) without bit operations.
export f32 hash21(f32x2 p) {
    f32x3 p3 = f32x3(fract(p.x * 0.1031), fract(p.y * 0.1031), fract(p.x * 0.1031));
    f32 d = dot(p3, f32x3(p3.y, p3.z, p3.x) + 33.33);
    p3 = p3 + d;
    return fract((p3.x + p3.y) * p3.z);
}
