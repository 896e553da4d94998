// demo-input: 1.0,0.0,0.016
// One step of a damped spring integrator (critically damped toward 0).
export f32 spring(f32 x, f32 v, f32 dt, out f32 v_out) {
    f32 omega = 8.0;
    f32 ex = exp(-omega * dt);
    f32 tmp = (v + omega * x) * dt;
    v_out = (v - omega * tmp) * ex;
    return (x + tmp) * ex;
}
