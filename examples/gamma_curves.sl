// demo-input: 0.5
// Gamma, inverse gamma, log and exp curves on one input.
export f32 gamma_curves(f32 x, out f32 inv, out f32 lg, out f32 ex) {
    inv = pow(x, 2.2);
    lg = log(1.0 + 9.0 * x) / log(10.0);
    ex = (exp2(x * 4.0) - 1.0) / 15.0;
    return pow(x, 1.0 / 2.2);
}
