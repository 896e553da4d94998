// demo-input: 0.6,0.8,0.9
// HSV to RGB without branches (the well-known fract/abs formulation).
export f32x3 hsv_to_rgb(f32x3 c) {
    f32x3 k = f32x3(1.0, 2.0 / 3.0, 1.0 / 3.0);
    f32x3 p = f32x3(abs(fract(c.x + k.x) * 6.0 - 3.0),
                    abs(fract(c.x + k.y) * 6.0 - 3.0),
                    abs(fract(c.x + k.z) * 6.0 - 3.0));
    return c.z * mix(f32x3(1.0), clamp(p - 1.0, 0.0, 1.0), c.y);
}
