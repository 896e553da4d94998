// demo-input: 0.6,0.04,0.04,0.04
// Schlick's Fresnel approximation.
export f32x3 fresnel_schlick(f32 cos_theta, f32x3 f0) {
    f32 m = clamp(1.0 - cos_theta, 0.0, 1.0);
    f32 m2 = m * m;
    return f0 + (1.0 - f0) * (m2 * m2 * m);
}
