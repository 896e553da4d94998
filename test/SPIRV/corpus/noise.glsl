// Hashes and value noise without sin(): arithmetic only, so the result is reproducible.

float hash12(vec2 p)
{
    vec3 p3 = fract(vec3(p.xyx) * 0.1313);
    p3 += dot(p3, p3.yzx + 27.71);
    return fract((p3.x + p3.y) * p3.z);
}

vec2 hash22(vec2 p)
{
    vec3 p3 = fract(vec3(p.xyx) * vec3(0.1313, 0.1277, 0.1409));
    p3 += dot(p3, p3.yzx + 21.37);
    return fract((p3.xx + p3.yz) * p3.zy);
}

float valueNoise(vec2 p)
{
    vec2 i = floor(p);
    vec2 f = fract(p);
    vec2 u = f * f * (3.0 - 2.0 * f);
    float a = hash12(i);
    float b = hash12(i + vec2(1.0, 0.0));
    float c = hash12(i + vec2(0.0, 1.0));
    float d = hash12(i + vec2(1.0, 1.0));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}

#define OCTAVES 4

float fbm(vec2 p)
{
    float sum = 0.0;
    float amp = 0.5;
    for (int i = 0; i < OCTAVES; i++) {
        sum += amp * valueNoise(p);
        p = p * 2.0 + vec2(3.1, 1.7);
        amp *= 0.5;
    }
    return sum;
}

vec2 gradientDir(float h)
{
    float a = h * 6.2831853;
    return vec2(cos(a), sin(a));
}
