// demo-input: 3.4,1.2
// Checkerboard pattern via floor and mod, antialiasing-free.
export f32 checker(f32x2 uv) {
    f32 s = mod(floor(uv.x) + floor(uv.y), 2.0);
    return s < 0.5 ? 0.2 : 0.8;
}
