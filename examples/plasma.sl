// demo-input: 0.25,0.75,1.5
// Demo-scene plasma: sums of sines over position and time.
export f32x3 plasma(f32x2 p, f32 t) {
    f32 v = sin(p.x * 10.0 + t);
    v += sin((p.y * 10.0 + t) * 0.5);
    v += sin((p.x * 10.0 + p.y * 10.0 + t) * 0.5);
    f32 cx = p.x + 0.5 * sin(t * 0.2);
    f32 cy = p.y + 0.5 * cos(t * 0.33);
    v += sin(sqrt(100.0 * (cx * cx + cy * cy) + 1.0) + t);
    v = v * 0.5;
    return f32x3(sin(v * 3.14159), sin(v * 3.14159 + 2.094), sin(v * 3.14159 + 4.188)) * 0.5 + 0.5;
}
