// Photoshop-style blend modes.
#define SOFT_LIGHT_PEGTOP 0

float overlayChannel(float base, float blend)
{
    return base < 0.5 ? 2.0 * base * blend : 1.0 - 2.0 * (1.0 - base) * (1.0 - blend);
}

vec3 blendOverlay(vec3 base, vec3 blend)
{
    return vec3(overlayChannel(base.r, blend.r), overlayChannel(base.g, blend.g),
                overlayChannel(base.b, blend.b));
}

vec3 blendScreen(vec3 base, vec3 blend)
{
    return 1.0 - (1.0 - base) * (1.0 - blend);
}

vec3 blendSoftLight(vec3 base, vec3 blend)
{
#if SOFT_LIGHT_PEGTOP
    return (1.0 - 2.0 * blend) * base * base + 2.0 * base * blend;
#else
    vec3 lo = 2.0 * base * blend + base * base * (1.0 - 2.0 * blend);
    vec3 hi = sqrt(base) * (2.0 * blend - 1.0) + 2.0 * base * (1.0 - blend);
    return mix(lo, hi, step(0.5, blend));
#endif
}

float blendColorDodge(float base, float blend)
{
    if (blend >= 1.0)
        return 1.0;
    return min(base / (1.0 - blend), 1.0);
}

vec4 alphaOver(vec4 src, vec4 dst)
{
    float a = src.a + dst.a * (1.0 - src.a);
    vec3 rgb = (src.rgb * src.a + dst.rgb * dst.a * (1.0 - src.a)) / max(a, 1e-6);
    return vec4(rgb, a);
}
