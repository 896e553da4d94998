// demo-input: 0.5,0.25,0.8
// Node graph: UV distortion, radial gradient, stepped bands, and a mask output.
export f32x3 node_graph_b(f32x2 uv, f32 t, out f32 mask) {
    f32x2 c = uv - 0.5;
    f32 r = length(c);
    f32 ang = atan2(c.y, c.x);
    f32 wave = sin(ang * 6.0 + t * 3.0) * 0.05;
    f32 rr = r + wave;
    f32 band = floor(rr * 8.0) / 8.0;
    mask = 1.0 - smoothstep(0.35, 0.4, rr);
    return f32x3(band, band * 0.5 + 0.25, 1.0 - band) * mask;
}
