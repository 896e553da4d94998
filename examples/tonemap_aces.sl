// demo-input: 0.25,1.0,4.0
// ACES filmic approximation (Narkowicz), clamped to [0, 1].
export f32x3 tonemap_aces(f32x3 x) {
    f32 a = 2.51;
    f32 b = 0.03;
    f32 c = 2.43;
    f32 d = 0.59;
    f32 e = 0.14;
    return clamp((x * (x * a + b)) / (x * (x * c + d) + e), 0.0, 1.0);
}
