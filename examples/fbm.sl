// demo-input: 0.8,2.1
// Fractal Brownian motion: four octaves of value noise, unrolled.
f32 hash(f32x2 p) { return fract(sin(dot(p, f32x2(127.1, 311.7))) * 43758.5453); }
f32 noise(f32x2 p) {
    f32x2 i = f32x2(floor(p.x), floor(p.y));
    f32x2 f = p - i;
    f32x2 u = f * f * (3.0 - f * 2.0);
    return mix(mix(hash(i), hash(i + f32x2(1.0, 0.0)), u.x),
               mix(hash(i + f32x2(0.0, 1.0)), hash(i + f32x2(1.0, 1.0)), u.x), u.y);
}
export f32 fbm(f32x2 p) {
    f32 v = 0.0;
    v += 0.5 * noise(p);
    v += 0.25 * noise(p * 2.02);
    v += 0.125 * noise(p * 4.03);
    v += 0.0625 * noise(p * 8.01);
    return v / 0.9375;
}
