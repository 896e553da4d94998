// demo-input: 0.001,0.2,0.8
// Linear to sRGB with a ternary per channel.
f32 ch(f32 c) { return c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055; }
export f32x3 linear_to_srgb(f32x3 c) { return f32x3(ch(c.x), ch(c.y), ch(c.z)); }
