// demo-input: -0.5,0.5
// Cartesian to polar and back (atan2, length, sin, cos round trip).
export f32x2 polar(f32x2 p, out f32x2 back) {
    f32 r = length(p);
    f32 a = atan2(p.y, p.x);
    back = f32x2(r * cos(a), r * sin(a));
    return f32x2(r, a);
}
