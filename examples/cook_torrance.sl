// demo-input: 0,0,1,0.3,0.3,0.9,0,0.2,1,0.4
// A Cook-Torrance specular term: GGX, Smith-Schlick geometry, Schlick Fresnel.
f32 ggx(f32 ndh, f32 a) {
    f32 a2 = a * a;
    f32 d = ndh * ndh * (a2 - 1.0) + 1.0;
    return a2 / (3.14159265 * d * d);
}
f32 g1(f32 ndx, f32 k) { return ndx / (ndx * (1.0 - k) + k); }
export f32 cook_torrance(f32x3 n, f32x3 l, f32x3 v, f32 rough) {
    n = normalize(n); l = normalize(l); v = normalize(v);
    f32x3 h = normalize(l + v);
    f32 ndl = max(dot(n, l), 0.0001);
    f32 ndv = max(dot(n, v), 0.0001);
    f32 ndh = max(dot(n, h), 0.0);
    f32 k = (rough + 1.0) * (rough + 1.0) / 8.0;
    f32 f = 0.04 + 0.96 * pow(1.0 - max(dot(h, v), 0.0), 5.0);
    return ggx(ndh, rough * rough) * g1(ndl, k) * g1(ndv, k) * f / (4.0 * ndl * ndv);
}
