// HLSL hashes and an SDF (arithmetic-only hash, frac, loops).
float Hash31(float3 p)
{
    p = frac(p * 0.1137f);
    p += dot(p, p.zyx + 31.32f);
    return frac((p.x + p.y) * p.z);
}

float SmoothMax(float a, float b, float k)
{
    float h = saturate(0.5f + 0.5f * (a - b) / k);
    return lerp(b, a, h) + k * h * (1.0f - h);
}

float SdOctahedron(float3 p, float s)
{
    p = abs(p);
    return (p.x + p.y + p.z - s) * 0.57735027f;
}

float Checker(float2 uv, float scale)
{
    float2 c = floor(uv * scale);
    return fmod(abs(c.x + c.y), 2.0f);
}

float Dither4(float2 pos)
{
    static const float Bayer[4] = { 0.0f, 0.5f, 0.75f, 0.25f };
    int i = (int)fmod(floor(pos.x), 2.0f) + 2 * (int)fmod(floor(pos.y), 2.0f);
    return Bayer[i];
}
