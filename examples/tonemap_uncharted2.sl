// demo-input: 0.5,1.5,3.0
// Uncharted 2 filmic curve with white-point normalization.
f32x3 curve(f32x3 x) {
    f32 A = 0.15; f32 B = 0.50; f32 C = 0.10; f32 D = 0.20; f32 E = 0.02; f32 F = 0.30;
    return ((x * (x * A + C * B) + D * E) / (x * (x * A + B) + D * F)) - E / F;
}
export f32x3 tonemap_uncharted2(f32x3 hdr) {
    f32x3 w = curve(f32x3(11.2));
    return curve(hdr * 2.0) / w;
}
