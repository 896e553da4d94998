// Microfacet BRDF terms.
#define PI 3.14159265

float ggxDistribution(float NdotH, float roughness)
{
    float a = roughness * roughness;
    float a2 = a * a;
    float d = NdotH * NdotH * (a2 - 1.0) + 1.0;
    return a2 / (PI * d * d);
}

float smithG1(float NdotX, float k)
{
    return NdotX / (NdotX * (1.0 - k) + k);
}

float geometrySmith(vec3 n, vec3 v, vec3 l, float roughness)
{
    float r = roughness + 1.0;
    float k = r * r / 8.0;
    return smithG1(max(dot(n, v), 0.0), k) * smithG1(max(dot(n, l), 0.0), k);
}

vec3 fresnelSchlick(float cosTheta, vec3 F0)
{
    return F0 + (1.0 - F0) * pow(1.0 - cosTheta, 5.0);
}

float lambert(vec3 n, vec3 l)
{
    return max(dot(normalize(n), normalize(l)), 0.0) / PI;
}

vec3 blinnPhong(vec3 n, vec3 l, vec3 v, float shininess)
{
    vec3 N = normalize(n);
    vec3 H = normalize(normalize(l) + normalize(v));
    float spec = pow(max(dot(N, H), 0.0), shininess);
    float diff = max(dot(N, normalize(l)), 0.0);
    return vec3(diff) + spec * vec3(1.0, 0.9, 0.8);
}
