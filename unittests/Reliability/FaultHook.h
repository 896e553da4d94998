/* What both fault-injection tests share: the allocator hook that fails the Nth
 * allocation, and the test of what codegen accepts. */
#ifndef FMAG_UNITTESTS_FAULTHOOK_H
#define FMAG_UNITTESTS_FAULTHOOK_H

#include "fmag/IR.h"

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

/* True when every export is one block without calls (what codegen accepts); as slc. */
static inline bool lowerable(fmag_module *m)
{
    fmag_foreach_func (f, m) {
        if (!f->is_export || f->first != f->last) return false;
        fmag_foreach_instr (i, f->first)
            if (i->op == FMAG_OP_CALL || i->op == FMAG_OP_PHI) return false;
    }
    return true;
}

#endif
