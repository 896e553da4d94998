// examples/hash11.sl as GLSL, for glsl-bench.
float hash11(float p)
{
    float x = fract(p * 0.1031);
    x = x * (x + 33.33);
    x = x * (x + x);
    return fract(x);
}
