// examples/tonemap_aces.sl as GLSL, for glsl-bench.
vec3 tonemap_aces(vec3 x)
{
    const float a = 2.51, b = 0.03, c = 2.43, d = 0.59, e = 0.14;
    return clamp((x * (x * a + b)) / (x * (x * c + d) + e), 0.0, 1.0);
}
