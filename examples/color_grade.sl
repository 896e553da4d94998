// demo-input: 0.4,0.5,0.6,1.2,0.8
// Contrast and saturation around mid-grey, then a lift/gain node chain.
export f32x3 color_grade(f32x3 c, f32 contrast, f32 saturation) {
    f32 l = dot(c, f32x3(0.2126, 0.7152, 0.0722));
    c = mix(f32x3(l), c, saturation);
    c = (c - 0.5) * contrast + 0.5;
    f32x3 lift = f32x3(0.02, 0.01, 0.0);
    f32x3 gain = f32x3(1.05, 1.0, 0.95);
    c = c * gain + lift * (1.0 - c);
    return saturate(c);
}
