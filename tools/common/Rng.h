/* The test drivers' random numbers: splitmix64, seeded per run so a failure is
 * reproduced by its seed. Header-only, for the tools that generate programs
 * (fmag-e2e, fmag-xdiff). */
#ifndef FMAG_TOOLS_RNG_H
#define FMAG_TOOLS_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t s;
} rng;

static inline uint64_t rnd64(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline unsigned rndn(rng *r, unsigned n)
{
    return (unsigned)(rnd64(r) % n);
}

#endif
