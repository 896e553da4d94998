// demo-input: 0.5,0.2,1.5,1.0
// Signed distance to a sphere.
export f32 sdf_sphere(f32x3 p, f32 r) { return length(p) - r; }
