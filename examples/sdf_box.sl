// demo-input: 1.2,0.3,-0.4,1.0,0.5,0.5
// Signed distance to an axis-aligned box (exact, inside and outside).
export f32 sdf_box(f32x3 p, f32x3 b) {
    f32x3 q = f32x3(abs(p.x), abs(p.y), abs(p.z)) - b;
    f32x3 qp = max(q, 0.0);
    return length(qp) + min(max(q.x, max(q.y, q.z)), 0.0);
}
