// Tone-mapping operators, written the way they appear in post-processing shaders.
// No #version and no main: slc supplies both.

const float WHITE_POINT = 4.0;

vec3 reinhard(vec3 c)
{
    return c / (1.0 + c);               // scalar promoted to vec3
}

vec3 reinhardWhite(vec3 c, float white)
{
    vec3 num = c * (1.0 + c / (white * white));
    return num / (1.0 + c);
}

// A rational filmic fit (own coefficients).
float filmic(float x)
{
    const float a = 2.2, b = 0.05, c = 2.1, d = 0.55, e = 0.16;
    return clamp((x * (a * x + b)) / (x * (c * x + d) + e), 0.0, 1.0);
}

// Piecewise "shoulder" curve with named constants.
const float SH_A = 0.20, SH_B = 0.45, SH_C = 0.12, SH_D = 0.25, SH_E = 0.02, SH_F = 0.31;

vec3 shoulder(vec3 x)
{
    return ((x * (SH_A * x + SH_C * SH_B) + SH_D * SH_E) / (x * (SH_A * x + SH_B) + SH_D * SH_F)) - SH_E / SH_F;
}

vec3 shoulderTonemap(vec3 hdr, float exposure)
{
    vec3 curr = shoulder(hdr * exposure);
    vec3 whiteScale = 1.0 / shoulder(vec3(WHITE_POINT));
    return curr * whiteScale;
}

vec3 exposeGamma(vec3 c, float ev)
{
    vec3 e = c * exp2(ev);
    return pow(e, vec3(1.0 / 2.2));
}
