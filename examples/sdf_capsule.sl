// demo-input: 0.5,0.5,0.0
// Signed distance to a capsule between two points.
export f32 sdf_capsule(f32x3 p) {
    f32x3 a = f32x3(0.0, 0.0, 0.0);
    f32x3 b = f32x3(1.0, 1.0, 0.0);
    f32 r = 0.25;
    f32x3 pa = p - a;
    f32x3 ba = b - a;
    f32 h = clamp(dot(pa, ba) / dot(ba, ba), 0.0, 1.0);
    return length(pa - ba * h) - r;
}
