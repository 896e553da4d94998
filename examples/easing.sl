// demo-input: 0.3
// Easing curves: cubic in-out, elastic-ish out, bounce-free smootherstep.
export f32 easing(f32 t, out f32 elastic, out f32 smoother) {
    t = saturate(t);
    f32 inout = t < 0.5 ? 4.0 * t * t * t : 1.0 - pow(-2.0 * t + 2.0, 3.0) / 2.0;
    elastic = t == 0.0 ? 0.0 : pow(2.0, -10.0 * t) * sin((t * 10.0 - 0.75) * 2.0943951) + 1.0;
    smoother = t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
    return inout;
}
