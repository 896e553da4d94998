// Arrays, matrices and loops with int counters.
const float COEFFS[5] = float[5](1.0, -0.5, 0.25, -0.125, 0.0625);

float polyHorner(float x)
{
    float r = 0.0;
    for (int i = 4; i >= 0; i--)
        r = r * x + COEFFS[i];
    return r;
}

vec3 bezierCubic(vec3 ctrl[4], float t)
{
    vec3 p[4] = ctrl;
    for (int level = 3; level > 0; level--)
        for (int i = 0; i < level; i++)
            p[i] = mix(p[i], p[i + 1], t);
    return p[0];
}

float weightedSum(float w[4], vec4 v)
{
    float s = 0.0;
    for (int i = 0; i < 4; ++i) s += w[i] * v[i];
    return s;
}

mat3 rotationZ(float angle)
{
    float c = cos(angle), s = sin(angle);
    return mat3(c, s, 0.0,
                -s, c, 0.0,
                0.0, 0.0, 1.0);
}

vec3 transformPoint(mat3 m, vec3 v, vec3 offset)
{
    return m * v + offset;
}

mat2 outerProduct2(vec2 a, vec2 b)
{
    return mat2(a * b.x, a * b.y);
}

void splitMatrix(in mat2x3 m, out vec3 c0, out vec3 c1, inout float trace)
{
    c0 = m[0];
    c1 = m[1];
    trace += m[0][0] + m[1][1];
}
