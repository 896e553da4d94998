/* The one machine instruction, shared by the IR interpreter, constant folding and
 * anything else that must agree with the VM bit for bit. */
#include "fmag/IR.h"

#include <math.h>

/* `e > 0` is false for NaN and both zeros; fmaf rounds once. The build passes
 * -ffp-contract=off so the compiler cannot fuse or split anything here. */
float fmag_eval(float a, float b, float c, float d, float e)
{
    return e > 0.0f ? fmaf(a, b, c) : d;
}
