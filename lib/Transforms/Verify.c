/* -verify as a pass: lets a pipeline check the IR at any point. */
#include "fmag/Transforms.h"

fmag_pass_status fmag_opt_verify(fmag_module *m)
{
    return fmag_verify_module(m) ? FMAG_PASS_UNCHANGED : FMAG_PASS_FAILED;
}
