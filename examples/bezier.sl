// demo-input: 0.35
// A cubic Bezier curve point and its tangent, de Casteljau form.
export f32x2 bezier(f32 t, out f32x2 tangent) {
    f32x2 p0 = f32x2(0.0, 0.0);
    f32x2 p1 = f32x2(0.3, 1.0);
    f32x2 p2 = f32x2(0.7, 1.0);
    f32x2 p3 = f32x2(1.0, 0.0);
    f32x2 a = mix(p0, p1, t);
    f32x2 b = mix(p1, p2, t);
    f32x2 c = mix(p2, p3, t);
    f32x2 d = mix(a, b, t);
    f32x2 e = mix(b, c, t);
    tangent = normalize(e - d);
    return mix(d, e, t);
}
