/* What both fault-injection tests share: the allocator hook that fails the Nth
 * allocation. */
#ifndef FMAG_UNITTESTS_FAULTHOOK_H
#define FMAG_UNITTESTS_FAULTHOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fail_nth {
    uint64_t n, seen;
} fail_nth;

static inline bool hook(void *user, size_t size)
{
    (void)size;
    fail_nth *f = user;
    return ++f->seen != f->n;
}

#endif
