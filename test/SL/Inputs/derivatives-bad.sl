export f32 f(f32 x) { return dfdx(x, x); }
