// Entries over MaterialX's 2D fractal node and its noise library (stdlib/, unchanged) for
// vk_xcheck.py. The octave count is a constant here, as in a graph whose `octaves` input
// is unconnected: a loop over a non-constant count is refused (docs/MaterialX.md). The
// library has no include guard (MaterialX's generator emits each file once), so each
// case file includes one node file. The hash: all 32 bits out as two 16-bit halves (an
// FMAG output is exact up to 2^24).
#include "prelude.glsl"
#include "stdlib/mx_fractal2d_float.glsl"

void hash2(int kx, int ky, out uint lo, out uint hi)
{
    uint h = mx_hash_int(kx, ky);
    lo = h & 0xFFFFu;
    hi = h >> 16;
}

void fractal2d_o3(float amplitude, float lacunarity, float diminish, vec2 texcoord, out float result)
{
    mx_fractal2d_float(amplitude, 3, lacunarity, diminish, texcoord, result);
}
