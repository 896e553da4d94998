// As fractal2d.glsl, over MaterialX's 3D fractal node (vector3 form: its three channels
// come from three offsets of the noise) and the hash of three integers.
#include "prelude.glsl"
#include "stdlib/mx_fractal3d_vector3.glsl"

void hash3(int kx, int ky, int kz, out uint lo, out uint hi)
{
    uint h = mx_hash_int(kx, ky, kz);
    lo = h & 0xFFFFu;
    hi = h >> 16;
}

void fractal3d_v3_o5(vec3 amplitude, float lacunarity, float diminish, vec3 position, out vec3 result)
{
    mx_fractal3d_vector3(amplitude, 5, lacunarity, diminish, position, result);
}
