// demo-input: 0.1,0.2,0.3,0.4,0.5,0.6
// A wide node graph: several independent math nodes merged into one value.
export f32 node_graph_c(f32 a, f32 b, f32 c, f32 d, f32 e, f32 f) {
    f32 m1 = max(a, b) * 2.0;
    f32 m2 = min(c, d) + 0.5;
    f32 m3 = abs(e - f);
    f32 m4 = sqrt(m1 * m1 + m2 * m2);
    f32 m5 = exp(-m3 * 4.0);
    f32 m6 = log2(1.0 + m4);
    f32 m7 = m5 > 0.5 ? m6 : m6 * 0.5;
    f32 m8 = mod(m7 * 10.0, 3.0);
    f32 m9 = step(1.0, m8) * m4 + (1.0 - step(1.0, m8)) * m5;
    return clamp(m9 + m7 * 0.1, 0.0, 10.0);
}
