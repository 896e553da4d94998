// Functions that lean on the wider GLSL.std.450 set: reflect, acos/asin, tanh, atan(y, x),
// cross, exp/log, inversesqrt, sign.

vec3 reflectView(vec3 incident, vec3 normal)
{
    return reflect(normalize(incident), normalize(normal));
}

float angleBetween(vec3 a, vec3 b)
{
    return acos(clamp(dot(normalize(a), normalize(b)), -1.0, 1.0));
}

float softClip(float x, float drive)
{
    return tanh(x * drive) / tanh(drive);
}

vec2 toPolar(vec2 p)
{
    return vec2(length(p), atan(p.y, p.x));
}

float latitude(vec3 dir)
{
    return asin(clamp(normalize(dir).y, -1.0, 1.0));
}

vec3 faceNormal(vec3 a, vec3 b, vec3 c)
{
    return normalize(cross(b - a, c - a));
}

float logLuminance(vec3 rgb)
{
    return log(max(dot(rgb, vec3(0.25, 0.5, 0.25)), 1e-4));
}

float fastFalloff(float dist2, float radius)
{
    float x = dist2 * inversesqrt(radius * radius);
    return sign(1.0 - x) * (1.0 - x) * (1.0 - x);
}
