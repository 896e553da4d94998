// The trip count depends on the input n.
export f32 f(f32 x, f32 n) {
    f32 s = 0.0;
    for (f32 i = 0.0; i < n; i++)
        s += x;
    return s;
}
