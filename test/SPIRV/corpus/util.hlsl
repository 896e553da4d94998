// HLSL utilities: out and inout parameters, matrices, loops.
void Decompose(float3 v, out float len, out float3 dir)
{
    len = length(v);
    dir = v / len;
}

void Accumulate(inout float3 acc, in float3 c, float w)
{
    acc += c * w;
}

float Remap(float x, float inLo, float inHi, float outLo, float outHi)
{
    return outLo + (x - inLo) * (outHi - outLo) / (inHi - inLo);
}

float2x2 Rot2(float a)
{
    float s, c;
    sincos(a, s, c);
    return float2x2(c, -s, s, c);
}

float2 RotateUV(float2 uv, float a)
{
    return mul(Rot2(a), uv);
}

float3x3 Scale3(float3 s)
{
    return float3x3(s.x, 0, 0, 0, s.y, 0, 0, 0, s.z);
}

float SumSquares(float4 v)
{
    float s = 0;
    [unroll] for (int i = 0; i < 4; i++)
        s += v[i] * v[i];
    return s;
}
