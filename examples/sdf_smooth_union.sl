// demo-input: 0.3,0.1,0.0
// Smooth union of a sphere and a box (polynomial smin), the classic SDF blend.
f32 smin(f32 a, f32 b, f32 k) {
    f32 h = clamp(0.5 + 0.5 * (b - a) / k, 0.0, 1.0);
    return mix(b, a, h) - k * h * (1.0 - h);
}
export f32 sdf_smooth_union(f32x3 p) {
    f32 s = length(p - f32x3(0.5, 0.0, 0.0)) - 0.4;
    f32x3 q = f32x3(abs(p.x + 0.3), abs(p.y), abs(p.z)) - 0.3;
    f32 b = length(max(q, 0.0)) + min(max(q.x, max(q.y, q.z)), 0.0);
    return smin(s, b, 0.2);
}
