// HLSL colour utilities.
static const float3 LumaCoeff = float3(0.299f, 0.587f, 0.114f);

float Luma(float3 c)
{
    return dot(c, LumaCoeff);
}

float3 AdjustSaturation(float3 c, float s)
{
    return lerp(Luma(c).xxx, c, s);
}

float3 LinearToGamma(float3 c)
{
    return pow(abs(c), 1.0f / 2.2f);
}

float3 ContrastAround(float3 c, float contrast, float pivot)
{
    return saturate((c - pivot) * contrast + pivot);
}

float4 Premultiply(float4 c)
{
    return float4(c.rgb * c.a, c.a);
}
