// demo-input: 0.37
// A sine-free hash: fract of polynomial mixing (good enough for dithering).
export f32 hash11(f32 p) {
    f32 x = fract(p * 0.1031);
    x = x * (x + 33.33);
    x = x * (x + x);
    return fract(x);
}
