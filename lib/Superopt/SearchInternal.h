/* Shared between the two searches: test vectors, the literal pool, timing. */
#ifndef FMAG_SUPEROPT_SEARCH_INTERNAL_H
#define FMAG_SUPEROPT_SEARCH_INTERNAL_H

#include "fmag/Superopt.h"

#define SO_NV 64 /* most test vectors a search keeps (one bit each in a u64 mask) */

typedef struct so_vectors {
    unsigned n;         /* active vectors */
    float in[2][SO_NV]; /* inputs */
    float want[SO_NV];  /* the target there (finite by construction) */
} so_vectors;

/* Fills v with `n` (<= SO_NV - 16, leaving room for counterexamples) inputs on which
 * the target is finite: edge values, the target's constants and their neighbours,
 * and seeded random values. */
void so_vectors_init(so_vectors *v, const fmag_superopt_target *t, unsigned n, uint64_t seed);
/* Adds one input (a counterexample); false when full or the target is not finite
 * there. */
bool so_vectors_add(so_vectors *v, const fmag_superopt_target *t, const float *in);

double so_now(void);
uint64_t so_splitmix(uint64_t *s);

#endif
