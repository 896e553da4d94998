/* A tiny harness for the IR unit tests: checks that count failures and keep going,
 * exact float comparisons by bits, and diagnostic matching. */
#ifndef FMAG_UNITTESTS_IR_IRTEST_H
#define FMAG_UNITTESTS_IR_IRTEST_H

#include "fmag/IR.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct test_state {
    unsigned checks, failures;
} test_state;

#define CHECK(t, cond)                                                                             \
    do {                                                                                           \
        (t)->checks++;                                                                             \
        if (!(cond)) {                                                                             \
            (t)->failures++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

/* Bit equality: +0 and -0 differ, a NaN equals only itself. */
static inline uint32_t test_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float test_float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#define CHECK_BITS(t, got, want)                                                                   \
    do {                                                                                           \
        float got_ = (got), want_ = (want);                                                        \
        (t)->checks++;                                                                             \
        if (test_bits(got_) != test_bits(want_)) {                                                 \
            (t)->failures++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK_BITS failed: %s = %a (0x%08x), want %a (0x%08x)\n",      \
                    __FILE__, __LINE__, #got, (double)got_, (unsigned)test_bits(got_),             \
                    (double)want_, (unsigned)test_bits(want_));                                    \
        }                                                                                          \
    } while (0)

/* Is there a diagnostic containing every one of the (up to three) substrings? */
static inline bool test_diag_has(const fmag_context *ctx, const char *a, const char *b,
                                 const char *c)
{
    for (size_t i = 0; i < fmag_context_diag_count(ctx); i++) {
        const char *d = fmag_context_diag(ctx, i);
        if (strstr(d, a) && (!b || strstr(d, b)) && (!c || strstr(d, c))) return true;
    }
    return false;
}

#define CHECK_DIAG(t, ctx, a, b, c)                                                                \
    do {                                                                                           \
        (t)->checks++;                                                                             \
        if (!test_diag_has((ctx), (a), (b), (c))) {                                                \
            (t)->failures++;                                                                       \
            fprintf(stderr, "%s:%d: no diagnostic with \"%s\" \"%s\" \"%s\"; got:\n", __FILE__,    \
                    __LINE__, (a), (b) ? (b) : "", (c) ? (c) : "");                                \
            fmag_context_diag_print((ctx), stderr);                                                \
        }                                                                                          \
    } while (0)

static inline int test_finish(const test_state *t, const char *name)
{
    printf("%s: %u checks, %u failures\n", name, t->checks, t->failures);
    return t->failures ? 1 : 0;
}

#endif
