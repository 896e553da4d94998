// demo-input: 0.9,0.3
// GGX / Trowbridge-Reitz normal distribution.
export f32 ggx(f32 ndoth, f32 roughness) {
    f32 a = roughness * roughness;
    f32 a2 = a * a;
    f32 d = ndoth * ndoth * (a2 - 1.0) + 1.0;
    return a2 / (3.14159265 * d * d);
}
