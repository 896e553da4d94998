// demo-input: 0.5,2.0,8.0,1.5
// Reinhard tonemap with exposure and sRGB-ish gamma.
export f32x3 tonemap_reinhard(f32x3 hdr, f32 exposure) {
    f32x3 c = hdr * exposure;
    c = c / (c + 1.0);
    return f32x3(pow(c.x, 1.0 / 2.2), pow(c.y, 1.0 / 2.2), pow(c.z, 1.0 / 2.2));
}
