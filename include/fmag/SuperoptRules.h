/* The superoptimizer-derived peephole rules the compiler applies (the
 * `superopt-peephole` pass in lib/Transforms/SuperoptPeephole.c).
 *
 * A rule is an IR pattern (the tape the frontend makes for `expr`: straight-line
 * fmag operations over x and y, the root last) and the machine program the
 * superoptimizer found and proved for it (inputs r0, r1; every other register
 * +0.0; result r0). The pass rewrites a matching IR cone into the IR form of that
 * program; `superopt --verify-rules` re-proves every rule against its pattern and
 * checks that the compiler's -O2 output for the pattern is no longer than the
 * program. */
#ifndef FMAG_SUPEROPT_RULES_H
#define FMAG_SUPEROPT_RULES_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stddef.h>
#include "fmag/Superopt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fmag_superopt_rule {
    const char *name;
    const char *expr;  /* the SL expression the pattern came from */
    unsigned nin;      /* 1 or 2 */
    unsigned npattern; /* pattern operations; the root is the last */
    const fmag_so_op *pattern;
    unsigned length; /* instructions of the proven program */
    unsigned regs;   /* its registers */
    const fmag_vm_decoded *code;
    bool exhaustive; /* one input: proven over every finite float32; two inputs:
                        sampled by superopt and argued in the comment by hand */
} fmag_superopt_rule;

size_t fmag_superopt_rule_count(void);
const fmag_superopt_rule *fmag_superopt_rule_get(size_t i);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_SUPEROPT_RULES_H */
