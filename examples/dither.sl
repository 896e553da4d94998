// demo-input: 0.45,13.0,7.0
// Ordered-ish dithering with a hash threshold, quantized to 8 levels.
export f32 dither(f32 v, f32x2 pixel) {
    f32 n = fract(sin(dot(pixel, f32x2(12.9898, 78.233))) * 43758.5453);
    f32 q = floor(v * 8.0 + n) / 8.0;
    return clamp(q, 0.0, 1.0);
}
