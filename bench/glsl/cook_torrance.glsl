// examples/cook_torrance.sl as GLSL, for glsl-bench.
float ggx(float ndh, float a)
{
    float a2 = a * a;
    float d = ndh * ndh * (a2 - 1.0) + 1.0;
    return a2 / (3.14159265 * d * d);
}
float g1(float ndx, float k) { return ndx / (ndx * (1.0 - k) + k); }
float cook_torrance(vec3 n, vec3 l, vec3 v, float rough)
{
    n = normalize(n); l = normalize(l); v = normalize(v);
    vec3 h = normalize(l + v);
    float ndl = max(dot(n, l), 0.0001);
    float ndv = max(dot(n, v), 0.0001);
    float ndh = max(dot(n, h), 0.0);
    float k = (rough + 1.0) * (rough + 1.0) / 8.0;
    float f = 0.04 + 0.96 * pow(1.0 - max(dot(h, v), 0.0), 5.0);
    return ggx(ndh, rough * rough) * g1(ndl, k) * g1(ndv, k) * f / (4.0 * ndl * ndv);
}
