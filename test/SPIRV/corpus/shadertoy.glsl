// A Shadertoy-style image function: -entry mainImage.
const vec2 RESOLUTION = vec2(640.0, 360.0);

float ring(vec2 uv, float radius, float width)
{
    return smoothstep(width, 0.0, abs(length(uv) - radius));
}

void mainImage(out vec4 fragColor, in vec2 fragCoord)
{
    vec2 uv = (2.0 * fragCoord - RESOLUTION) / RESOLUTION.y;
    float r = ring(uv, 0.5, 0.05);
    vec3 col = mix(vec3(0.1, 0.12, 0.2), vec3(1.0, 0.8, 0.3), r);
    col *= 1.0 - 0.3 * dot(uv, uv);
    fragColor = vec4(col, 1.0);
}
