/* -verify as a pass: lets a pipeline check the IR at any point. */
#include "fmag/Transforms.h"

bool fmag_opt_verify(fmag_module *m)
{
    fmag_verify_module(m);
    return false;
}
