// demo-input: 0.2,0.8,0.9,0.8,0.7
// Vignette darkening by distance to the image center.
export f32x3 vignette(f32x2 uv, f32x3 color) {
    f32 d = distance(uv, f32x2(0.5));
    f32 v = smoothstep(0.8, 0.25, d);
    return color * mix(0.4, 1.0, v);
}
