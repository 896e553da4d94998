// demo-input: 1.0,0.2,0.5,1.0,0.25
// Signed distance to a torus in the xz plane.
export f32 sdf_torus(f32x3 p, f32x2 t) {
    f32x2 q = f32x2(length(p.xz) - t.x, p.y);
    return length(q) - t.y;
}
