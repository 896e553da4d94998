// What MaterialX's GLSL generator (GlslShaderGenerator::emitPixelStage) writes before
// the node functions of a pattern graph: the directives, then its math library
// (stdlib/genglsl/lib/mx_math.glsl: M_FLOAT_EPS, M_PI, the mx_ aliases of the GLSL
// builtins, mx_matrix_mul, mx_square, mx_srgb_encode). A pattern graph needs none of
// the closure type definitions, uniforms or vertex inputs it writes next, and slc needs
// no #version. Written here for FMAG; the included file is MaterialX's, unchanged.
#include "stdlib/lib/mx_math.glsl"
