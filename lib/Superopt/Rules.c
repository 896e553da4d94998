/* The peephole rules (fmag/PeepholeRules.h) as superopt programs, for re-proving. */
#include "fmag/SuperoptRules.h"

#include <string.h>

static fmag_vm_operand operand_of(fmag_rule_operand o)
{
    fmag_vm_operand v = {o.is_reg, o.reg, o.imm};
    return v;
}

void fmag_superopt_rule_program(const fmag_superopt_rule *r, fmag_superopt_program *p)
{
    memset(p, 0, sizeof *p);
    p->nin = r->nin;
    /* every rule came from superopt, so it fits; a longer one is cut, and fails its proof */
    p->len = r->length < FMAG_SUPEROPT_MAX_LEN ? r->length : FMAG_SUPEROPT_MAX_LEN;
    for (unsigned i = 0; i < p->len; i++) {
        const fmag_rule_instr *c = &r->code[i];
        fmag_vm_decoded *d = &p->code[i];
        d->d = c->d;
        d->a = c->a;
        d->b = operand_of(c->b);
        d->c = operand_of(c->c);
        d->g = operand_of(c->g);
    }
    p->regs = fmag_superopt_program_regs_used(p);
}
