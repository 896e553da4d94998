// demo-input: 0.5,0.6,0.7,12.0,0.08
// Exponential-squared fog blended toward a sky color.
export f32x3 fog(f32x3 color, f32 dist, f32 density) {
    f32 f = exp(-(density * dist) * (density * dist));
    return mix(f32x3(0.7, 0.8, 0.9), color, saturate(f));
}
