// examples/blinn_phong.sl as GLSL, for glsl-bench (the same program through both fronts).
vec3 blinn_phong(vec3 n, vec3 l, vec3 v, float shininess)
{
    vec3 nn = normalize(n);
    vec3 ll = normalize(l);
    vec3 h = normalize(ll + normalize(v));
    float diff = max(dot(nn, ll), 0.0);
    float spec = 0.0;
    if (diff > 0.0)
        spec = pow(max(dot(nn, h), 0.0), shininess);
    vec3 albedo = vec3(0.8, 0.5, 0.3);
    return albedo * (0.1 + diff) + spec * 0.5;
}
