// HLSL lighting terms.
#define INV_PI 0.31830988f

float D_GGX(float NoH, float a)
{
    float a2 = a * a;
    float f = (NoH * a2 - NoH) * NoH + 1.0f;
    return a2 / (f * f) * INV_PI;
}

float V_SmithCorrelated(float NoV, float NoL, float a)
{
    float a2 = a * a;
    float gv = NoL * sqrt(NoV * NoV * (1.0f - a2) + a2);
    float gl = NoV * sqrt(NoL * NoL * (1.0f - a2) + a2);
    return 0.5f / (gv + gl);
}

float3 F_Schlick(float3 f0, float VoH)
{
    float f = pow(1.0f - VoH, 5.0f);
    return f + f0 * (1.0f - f);
}

float3 SpecularGGX(float3 N, float3 V, float3 L, float roughness, float3 f0)
{
    float3 H = normalize(V + L);
    float NoV = abs(dot(N, V)) + 1e-5f;
    float NoL = saturate(dot(N, L));
    float NoH = saturate(dot(N, H));
    float LoH = saturate(dot(L, H));
    float a = roughness * roughness;
    return D_GGX(NoH, a) * V_SmithCorrelated(NoV, NoL, a) * F_Schlick(f0, LoH) * NoL;
}

float HalfLambert(float3 n, float3 l)
{
    float w = dot(n, l) * 0.5f + 0.5f;
    return w * w;
}
