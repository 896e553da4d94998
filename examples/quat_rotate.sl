// demo-input: 0,0,0.38268343,0.92387953,1,0,0
// Rotate a vector by a unit quaternion: v + 2 w (q x v) + 2 q x (q x v).
export f32x3 quat_rotate(f32x4 q, f32x3 v) {
    f32x3 t = cross(q.xyz, v) * 2.0;
    return v + t * q.w + cross(q.xyz, t);
}
