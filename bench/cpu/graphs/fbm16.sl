// A thousand-instruction node graph: sixteen octaves of value noise, domain-warped
// (written out: the loop form needs -loop-unroll in slc).
f32 hash(f32x2 p) { return fract(sin(dot(p, f32x2(127.1, 311.7))) * 43758.5453); }
f32 noise(f32x2 p) {
    f32x2 i = f32x2(floor(p.x), floor(p.y));
    f32x2 f = p - i;
    f32x2 u = f * f * (3.0 - f * 2.0);
    return mix(mix(hash(i), hash(i + f32x2(1.0, 0.0)), u.x),
               mix(hash(i + f32x2(0.0, 1.0)), hash(i + f32x2(1.0, 1.0)), u.x), u.y);
}
export f32 fbm16(f32x2 p) {
    f32 v = 0.0;
    f32 amp = 0.5;
    f32x2 q = p;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    v += amp * noise(q);
    q = q * 2.01 + f32x2(v, -v) * 0.3;
    amp *= 0.5;
    return v;
}
