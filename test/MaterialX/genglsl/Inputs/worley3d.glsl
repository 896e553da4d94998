// MaterialX's 3D Worley noise node (stdlib/, unchanged) in its Distance style (style 0),
// for glsl-vs-mtlx.test: FMAG's reader implements that style only (its Solid style,
// style 1, is the XFAIL case of mtlx-disagree.test).
#include "prelude.glsl"
#include "stdlib/mx_worleynoise3d_float.glsl"

void worley3d_distance(vec3 position, float jitter, out float result)
{
    mx_worleynoise3d_float(position, jitter, 0, result);
}
