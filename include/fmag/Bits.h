/* The one float <-> bits conversion every layer uses. Header-only so that the VM,
 * which depends on nothing else, and each layer above it can include it without a
 * link edge. memcpy is the defined way in C11; compilers turn it into a move. */
#ifndef FMAG_BITS_H
#define FMAG_BITS_H

#include <stdint.h>
#include <string.h>

static inline uint32_t fmag_bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float fmag_float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#endif
