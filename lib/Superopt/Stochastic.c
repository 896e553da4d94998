/* Search 2: STOKE-style stochastic search (placeholder until written). */
#include "SearchInternal.h"
#include <string.h>
bool fmag_superopt_stochastic(const fmag_superopt_target *t, const fmag_superopt_options *o,
                              fmag_superopt_result *r, char *err, size_t errlen)
{
    (void)t; (void)o; memset(r, 0, sizeof *r);
    snprintf(err, errlen, "not yet");
    return false;
}
