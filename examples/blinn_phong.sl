// demo-input: 0,0,1,0.3,0.4,0.866,0,0,1,32
// Blinn-Phong shading: ambient + diffuse + specular with a half vector.
export f32x3 blinn_phong(f32x3 n, f32x3 l, f32x3 v, f32 shininess) {
    f32x3 nn = normalize(n);
    f32x3 ll = normalize(l);
    f32x3 h = normalize(ll + normalize(v));
    f32 diff = max(dot(nn, ll), 0.0);
    f32 spec = 0.0;
    if (diff > 0.0)
        spec = pow(max(dot(nn, h), 0.0), shininess);
    f32x3 albedo = f32x3(0.8, 0.5, 0.3);
    return albedo * (0.1 + diff) + spec * 0.5;
}
