// MaterialX's 2D Worley noise node (stdlib/, unchanged) in its Distance style (style 0),
// for glsl-vs-mtlx.test: FMAG's reader implements that style only (its Solid style,
// style 1, is the XFAIL case of mtlx-disagree.test).
#include "prelude.glsl"
#include "stdlib/mx_worleynoise2d_float.glsl"

void worley2d_distance(vec2 texcoord, float jitter, out float result)
{
    mx_worleynoise2d_float(texcoord, jitter, 0, result);
}
