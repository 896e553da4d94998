/* The superoptimizer's side of the peephole rules (fmag/PeepholeRules.h, owned by
 * lib/Transforms): a rule's program as a superopt program, so that
 * `superopt --verify-rules` can re-prove it against its pattern. */
#ifndef FMAG_SUPEROPT_RULES_H
#define FMAG_SUPEROPT_RULES_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include "fmag/PeepholeRules.h"
#include "fmag/Superopt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rule's program under the calling convention (nin inputs, result r0); regs is
 * recounted from the code (fmag_superopt_program_regs_used). */
void fmag_superopt_rule_program(const fmag_superopt_rule *r, fmag_superopt_program *p);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_SUPEROPT_RULES_H */
