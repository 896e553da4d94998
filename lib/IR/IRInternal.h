/* Private parts of lib/IR shared between its files. */
#ifndef FMAG_IR_INTERNAL_H
#define FMAG_IR_INTERNAL_H

#include "fmag/IR.h"
#include <stdarg.h>

struct fmag_arena_chunk;

struct fmag_context {
    struct fmag_arena_chunk *chunks;
    struct fmag_arena_chunk *spare; /* standard chunks kept by fmag_context_reset */
    char **diags;
    size_t ndiags, capdiags;
};

/* The module's constant pool: open addressing on the literal's bits. */
typedef struct fmag_const_pool {
    fmag_value **slots;
    size_t cap, count;
} fmag_const_pool;

void fmag_context_verror(fmag_context *ctx, const char *fmt, va_list ap);
_Noreturn void fmag_fatal_oom(void);

static inline uint32_t fmag_float_bits(float f)
{
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return u;
}
static inline float fmag_bits_float(uint32_t u)
{
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}

#endif
