/* The superoptimizer-derived peephole rules the compiler applies (the
 * `superopt-peephole` pass in lib/Transforms/SuperoptPeephole.c, table in
 * lib/Transforms/SuperoptRules.inc). Owned by lib/Transforms, which links only the IR:
 * the types here are the pass's own, and lib/Superopt (which re-proves the rules and
 * emits new ones) builds on them, not the other way round.
 *
 * A rule is an IR pattern (the tape the frontend makes for `expr`: straight-line
 * fmag operations over x and y, the root last) and the machine program the
 * superoptimizer found and proved for it (inputs r0, r1; every other register
 * +0.0; result r0). The pass rewrites a matching IR cone into the IR form of that
 * program; `superopt --verify-rules` re-proves every rule against its pattern and
 * checks that the compiler's -O2 output for the pattern is no longer than the
 * program. */
#ifndef FMAG_PEEPHOLE_RULES_H
#define FMAG_PEEPHOLE_RULES_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FMAG_SUPEROPT_MAX_REGS 16 /* registers in a candidate program, and so in a rule */

/* ------------------------------------------------------------ tape operations */

typedef enum fmag_so_ref_kind {
    FMAG_SO_REF_INPUT, /* input `index` (0 = x, 1 = y) */
    FMAG_SO_REF_CONST, /* the literal `imm` */
    FMAG_SO_REF_OP,    /* the result of tape operation `index` (an earlier one) */
} fmag_so_ref_kind;

typedef struct fmag_so_ref {
    fmag_so_ref_kind kind;
    unsigned index;
    float imm;
} fmag_so_ref;

/* One tape operation: fmag(a, b, c, d, e) = (e > 0) ? fmaf(a, b, c) : d, any slot a
 * value (unlike the machine, `a` may be a literal and `d` is not the destination). */
typedef struct fmag_so_op {
    fmag_so_ref s[5];
} fmag_so_op;

/* ------------------------------------------------------------------- rules */

/* An operand of a rule's machine instruction: a register or a literal (the fields of
 * VM.h's fmag_vm_operand, which this layer does not link). */
typedef struct fmag_rule_operand {
    bool is_reg;
    uint16_t reg;
    float imm;
} fmag_rule_operand;

/* One machine instruction of a rule's program: r[d] = g > 0 ? fmaf(r[a], b, c) : r[d]. */
typedef struct fmag_rule_instr {
    uint16_t d, a;
    fmag_rule_operand b, c, g;
} fmag_rule_instr;

typedef struct fmag_superopt_rule {
    const char *name;
    const char *expr;  /* the SL expression the pattern came from */
    unsigned nin;      /* 1 or 2 */
    unsigned npattern; /* pattern operations; the root is the last */
    const fmag_so_op *pattern;
    unsigned length; /* instructions of the proven program */
    unsigned regs;   /* its registers */
    const fmag_rule_instr *code;
    bool exhaustive; /* one input: proven over every finite float32; two inputs:
                        sampled by superopt and argued in the comment by hand */
} fmag_superopt_rule;

size_t fmag_superopt_rule_count(void);
const fmag_superopt_rule *fmag_superopt_rule_get(size_t i);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_PEEPHOLE_RULES_H */
