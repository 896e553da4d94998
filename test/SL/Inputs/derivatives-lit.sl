export f32 f(f32 x) { return dfdx(pow(x, 2.5) + x / 3.0); }
