// demo-input: 0.02,0.5,0.9
// sRGB transfer function to linear, per channel with the linear toe.
f32 ch(f32 c) {
    if (c <= 0.04045)
        return c / 12.92;
    return pow((c + 0.055) / 1.055, 2.4);
}
export f32x3 srgb_to_linear(f32x3 c) { return f32x3(ch(c.x), ch(c.y), ch(c.z)); }
