// demo-input: 0.2,0.6,0.4
// RGB to YCoCg, and the luma of the result as a second output.
export f32x3 rgb_to_ycocg(f32x3 c, out f32 luma) {
    f32 y = 0.25 * c.r + 0.5 * c.g + 0.25 * c.b;
    f32 co = 0.5 * c.r - 0.5 * c.b;
    f32 cg = -0.25 * c.r + 0.5 * c.g - 0.25 * c.b;
    luma = dot(c, f32x3(0.2126, 0.7152, 0.0722));
    return f32x3(y, co, cg);
}
