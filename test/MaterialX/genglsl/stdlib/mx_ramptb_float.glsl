void mx_ramptb_float(float valuet, float valueb, vec2 texcoord, out float result)
{
    result = mix (valueb, valuet, clamp(texcoord.y, 0.0, 1.0) );
}
