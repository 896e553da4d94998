// A thousand-instruction shading graph: three lights of Cook-Torrance-style specular with
// Schlick Fresnel and a GGX distribution, fog, and an ACES-like tone curve, per pixel.
f32 ggx(f32 ndh, f32 a) {
    f32 a2 = a * a;
    f32 d = ndh * ndh * (a2 - 1.0) + 1.0;
    return a2 / (3.14159265 * d * d);
}
f32x3 fresnel(f32x3 f0, f32 vdh) { return f0 + (1.0 - f0) * pow(1.0 - vdh, 5.0); }
f32x3 light(f32x3 n, f32x3 v, f32x3 l, f32x3 albedo, f32 rough, f32 metal) {
    f32x3 h = normalize(v + l);
    f32 ndl = max(dot(n, l), 0.0);
    f32 ndv = max(dot(n, v), 0.001);
    f32 ndh = max(dot(n, h), 0.0);
    f32 vdh = max(dot(v, h), 0.0);
    f32x3 f0 = mix(f32x3(0.04), albedo, metal);
    f32x3 f = fresnel(f0, vdh);
    f32 k = (rough + 1.0) * (rough + 1.0) / 8.0;
    f32 g = ndv / (ndv * (1.0 - k) + k) * ndl / (ndl * (1.0 - k) + k);
    f32x3 spec = f * (ggx(ndh, rough * rough) * g / (4.0 * ndv * ndl + 0.001));
    f32x3 diff = (1.0 - f) * (1.0 - metal) * albedo / 3.14159265;
    return (diff + spec) * ndl;
}
f32x3 aces(f32x3 x) {
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}
export f32x3 shade_chain(f32x3 n, f32x3 v, f32x3 albedo, f32 rough, f32 metal, f32 depth) {
    f32x3 nn = normalize(n);
    f32x3 vv = normalize(v);
    f32x3 c = light(nn, vv, normalize(f32x3(0.3, 0.8, 0.5)), albedo, rough, metal);
    c += light(nn, vv, normalize(f32x3(-0.6, 0.4, 0.2)), albedo, rough, metal) * 0.5;
    c += light(nn, vv, normalize(f32x3(0.1, -0.2, 0.9)), albedo, rough, metal) * 0.25;
    f32 fog = 1.0 - exp(-depth * 0.05);
    c = mix(c, f32x3(0.6, 0.7, 0.8), fog);
    return pow(aces(c), f32x3(1.0 / 2.2));
}
