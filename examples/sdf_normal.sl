// demo-input: 0.6,0.7,0.2
// Surface normal of a sphere SDF by central differences (6 inlined evaluations).
f32 map(f32x3 p) { return length(p) - 1.0; }
export f32x3 sdf_normal(f32x3 p) {
    f32 e = 0.001;
    f32x3 n = f32x3(map(p + f32x3(e, 0.0, 0.0)) - map(p - f32x3(e, 0.0, 0.0)),
                    map(p + f32x3(0.0, e, 0.0)) - map(p - f32x3(0.0, e, 0.0)),
                    map(p + f32x3(0.0, 0.0, e)) - map(p - f32x3(0.0, 0.0, e)));
    return normalize(n);
}
