// Colour-space conversions.
#define LUMA_WEIGHTS vec3(0.2126, 0.7152, 0.0722)

float luminance(vec3 rgb)
{
    return dot(rgb, LUMA_WEIGHTS);
}

// A second overload; -entry luminance picks the first definition above.
float luminance(vec4 rgba)
{
    return dot(rgba.rgb, LUMA_WEIGHTS) * rgba.a;
}

float srgbToLinear(float c)
{
    if (c <= 0.04045)
        return c / 12.92;
    return pow((c + 0.055) / 1.055, 2.4);
}

float linearToSrgbChannel(float c)
{
    return c < 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

vec3 linearToSrgb(vec3 c)
{
    return vec3(linearToSrgbChannel(c.r), linearToSrgbChannel(c.g), linearToSrgbChannel(c.b));
}

vec3 hsvToRgb(vec3 hsv)
{
    vec3 k = fract(hsv.x + vec3(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0;
    vec3 p = clamp(abs(k - 3.0) - 1.0, 0.0, 1.0);
    return hsv.z * mix(vec3(1.0), p, hsv.y);
}

vec3 rgbToHsv(vec3 c)
{
    float hi = max(c.r, max(c.g, c.b));
    float lo = min(c.r, min(c.g, c.b));
    float d = hi - lo;
    float h = 0.0;
    if (d > 1e-6) {
        if (hi == c.r)
            h = (c.g - c.b) / d;
        else if (hi == c.g)
            h = 2.0 + (c.b - c.r) / d;
        else
            h = 4.0 + (c.r - c.g) / d;
        h = fract(h / 6.0);
    }
    float s = hi > 0.0 ? d / hi : 0.0;
    return vec3(h, s, hi);
}

const mat3 RGB_TO_YCOCG = mat3(0.25, 0.5, -0.25,
                               0.5, 0.0, 0.5,
                               0.25, -0.5, -0.25);

vec3 rgbToYCoCg(vec3 rgb)
{
    return RGB_TO_YCOCG * rgb;
}
