// demo-input: 3.3,1.7
// 2D value noise: hashed lattice corners blended with a smoothstep fade.
f32 hash(f32x2 p) {
    return fract(sin(dot(p, f32x2(127.1, 311.7))) * 43758.5453);
}
export f32 value_noise(f32x2 p) {
    f32x2 i = f32x2(floor(p.x), floor(p.y));
    f32x2 f = p - i;
    f32x2 u = f * f * (3.0 - f * 2.0);
    f32 a = hash(i);
    f32 b = hash(i + f32x2(1.0, 0.0));
    f32 c = hash(i + f32x2(0.0, 1.0));
    f32 d = hash(i + f32x2(1.0, 1.0));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}
