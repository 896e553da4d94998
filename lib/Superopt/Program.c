/* Superoptimizer candidates: running one on an input, printing it as .fmas,
 * converting from a VM program, and the naive lowering used as a fallback seed. */
#include "fmag/Bits.h"
#include "fmag/Superopt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline float operand(const fmag_vm_operand *o, const float *r)
{
    return o->is_reg ? r[o->reg] : o->imm;
}

float fmag_superopt_program_run(const fmag_superopt_program *p, const float *in)
{
    float r[FMAG_SUPEROPT_MAX_REGS] = {0};
    for (unsigned i = 0; i < p->nin; i++)
        r[i] = in[i];
    for (unsigned i = 0; i < p->len; i++) {
        const fmag_vm_decoded *c = &p->code[i];
        if (operand(&c->g, r) > 0.0f) r[c->d] = fmaf(r[c->a], operand(&c->b, r), operand(&c->c, r));
    }
    return r[0];
}

unsigned fmag_superopt_program_regs_used(const fmag_superopt_program *p)
{
    unsigned n = p->nin ? p->nin : 1;
    for (unsigned i = 0; i < p->len; i++) {
        const fmag_vm_decoded *c = &p->code[i];
        unsigned m = c->d > c->a ? c->d : c->a;
        if (c->b.is_reg && c->b.reg > m) m = c->b.reg;
        if (c->c.is_reg && c->c.reg > m) m = c->c.reg;
        if (c->g.is_reg && c->g.reg > m) m = c->g.reg;
        if (m + 1 > n) n = m + 1;
    }
    return n;
}

/* Shortest decimal that reads back to the same bits (%.9g always does). */
static void print_float(FILE *out, float f)
{
    char buf[48];
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, (double)f);
        float back = strtof(buf, NULL);
        if (fmag_bits_of(back) == fmag_bits_of(f)) break;
    }
    /* A bare integer reads as a float in .fmas, but "1.0" says so at a glance. */
    if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
    fputs(buf, out);
}

static void print_operand(FILE *out, const fmag_vm_operand *o)
{
    if (o->is_reg)
        fprintf(out, "%%r%u", (unsigned)o->reg);
    else
        print_float(out, o->imm);
}

void fmag_superopt_program_print(const fmag_superopt_program *p, const char *name,
                                 const char *comment, FILE *out)
{
    if (comment) {
        const char *s = comment;
        while (*s) {
            const char *e = strchr(s, '\n');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            fprintf(out, "; %.*s\n", (int)n, s);
            s += n + (e ? 1 : 0);
        }
    }
    fprintf(out, ".def %s, %u, 1\n", name ? name : "target", p->nin);
    unsigned regs =
        p->regs > fmag_superopt_program_regs_used(p) ? p->regs : fmag_superopt_program_regs_used(p);
    fprintf(out, "    .regs %u\n", regs);
    for (unsigned i = 0; i < p->len; i++) {
        const fmag_vm_decoded *c = &p->code[i];
        fprintf(out, "    %%r%u = fmag %%r%u, ", (unsigned)c->d, (unsigned)c->a);
        print_operand(out, &c->b);
        fputs(", ", out);
        print_operand(out, &c->c);
        fputs(", ", out);
        print_operand(out, &c->g);
        fputc('\n', out);
    }
}

bool fmag_superopt_program_from_vm(const fmag_vm_program *vp, fmag_superopt_program *p)
{
    if (vp->ninstr > FMAG_SUPEROPT_MAX_LEN || vp->regs > FMAG_SUPEROPT_MAX_REGS || vp->nout != 1 ||
        vp->nin < 1 || vp->nin > FMAG_SUPEROPT_MAX_INPUTS)
        return false;
    memset(p, 0, sizeof *p);
    p->len = vp->ninstr;
    p->regs = vp->regs;
    p->nin = vp->nin;
    for (unsigned i = 0; i < vp->ninstr; i++) {
        fmag_vm_instr w = vp->code[i];
        fmag_vm_decoded *c = &p->code[i];
        uint32_t words[3] = {w.b, w.c, w.g};
        fmag_vm_operand *ops[3] = {&c->b, &c->c, &c->g};
        c->d = fmag_vm_instr_d(w);
        c->a = fmag_vm_instr_a(w);
        for (int k = 0; k < 3; k++) {
            ops[k]->is_reg = fmag_vm_word_is_ref(words[k]);
            ops[k]->reg = (uint16_t)(words[k] & 0xFFFFu);
            ops[k]->imm = fmag_float_of(words[k]);
            if (ops[k]->is_reg) ops[k]->imm = 0.0f;
        }
    }
    return true;
}

/* ------------------------------------------------------------ naive lower */

static fmag_vm_operand lit(float f)
{
    fmag_vm_operand o = {false, 0, f};
    return o;
}
static fmag_vm_operand reg(unsigned r)
{
    fmag_vm_operand o = {true, (uint16_t)r, 0.0f};
    return o;
}

static bool push(fmag_superopt_program *p, unsigned d, unsigned a, fmag_vm_operand b,
                 fmag_vm_operand c, fmag_vm_operand g)
{
    if (p->len >= FMAG_SUPEROPT_MAX_LEN) return false;
    fmag_vm_decoded *i = &p->code[p->len++];
    i->d = (uint16_t)d;
    i->a = (uint16_t)a;
    i->b = b;
    i->c = c;
    i->g = g;
    return true;
}

/* Every value of the tape gets a register from a free list, released after its last
 * use. Correct under the strict contract: the tape's values are finite, so a stale
 * register times 0 is a signed zero and `r*0 + K` loads K (up to the sign of zero,
 * which the contract ignores and which only ever reaches other zeros). */
bool fmag_superopt_naive_lower(const fmag_superopt_target *t, fmag_superopt_program *p)
{
    memset(p, 0, sizeof *p);
    p->nin = t->nin;
    unsigned nvals = t->nin + t->nops;
    int *last = malloc(nvals * sizeof(int));
    int *where = malloc(nvals * sizeof(int));
    bool ok = last && where;
    if (!ok) goto out;
    for (unsigned v = 0; v < nvals; v++) {
        last[v] = -1;
        where[v] = v < t->nin ? (int)v : -1;
    }
#define VAL_OF(r)                                                                                  \
    ((r).kind == FMAG_SO_REF_INPUT ? (int)(r).index                                                \
     : (r).kind == FMAG_SO_REF_OP  ? (int)(t->nin + (r).index)                                     \
                                   : -1)
    for (unsigned i = 0; i < t->nops; i++)
        for (int s = 0; s < 5; s++) {
            int v = VAL_OF(t->ops[i].s[s]);
            if (v >= 0) last[v] = (int)i;
        }
    int rv = VAL_OF(t->result);
    if (rv >= 0) last[rv] = (int)t->nops;
    bool busy[FMAG_SUPEROPT_MAX_REGS] = {false};
    for (unsigned i = 0; i < t->nin; i++)
        busy[i] = last[i] >= 0;
    unsigned maxreg = t->nin;
    for (unsigned i = 0; i < t->nops && ok; i++) {
        const fmag_so_op *op = &t->ops[i];
        fmag_so_ref A = op->s[0], B = op->s[1], C = op->s[2], D = op->s[3], E = op->s[4];
        if (A.kind == FMAG_SO_REF_CONST && B.kind != FMAG_SO_REF_CONST) {
            fmag_so_ref tmp = A;
            A = B;
            B = tmp;
        }
        unsigned dst = 0;
        while (dst < FMAG_SUPEROPT_MAX_REGS && busy[dst])
            dst++;
        unsigned scratch = dst + 1;
        while (scratch < FMAG_SUPEROPT_MAX_REGS && busy[scratch])
            scratch++;
        if (scratch >= FMAG_SUPEROPT_MAX_REGS) {
            ok = false;
            break;
        }
#define OPND(r) ((r).kind == FMAG_SO_REF_CONST ? lit((r).imm) : reg((unsigned)where[VAL_OF(r)]))
        bool always = E.kind == FMAG_SO_REF_CONST && E.imm > 0.0f;
        bool never = E.kind == FMAG_SO_REF_CONST && !(E.imm > 0.0f);
        if (!always) {
            if (D.kind == FMAG_SO_REF_CONST)
                ok &= push(p, dst, dst, lit(0.0f), lit(D.imm), lit(1.0f));
            else
                ok &= push(p, dst, (unsigned)where[VAL_OF(D)], lit(1.0f), lit(0.0f), lit(1.0f));
        }
        if (!never) {
            unsigned areg;
            if (A.kind == FMAG_SO_REF_CONST) {
                ok &= push(p, scratch, scratch, lit(0.0f), lit(A.imm), lit(1.0f));
                areg = scratch;
                if (scratch + 1 > maxreg) maxreg = scratch + 1;
            } else {
                areg = (unsigned)where[VAL_OF(A)];
            }
            ok &= push(p, dst, areg, OPND(B), OPND(C), always ? lit(1.0f) : OPND(E));
        }
#undef OPND
        busy[dst] = true;
        where[t->nin + i] = (int)dst;
        if (dst + 1 > maxreg) maxreg = dst + 1;
        for (int s = 0; s < 5; s++) {
            int v = VAL_OF(op->s[s]);
            if (v >= 0 && last[v] == (int)i) busy[where[v]] = false;
        }
        if (last[t->nin + i] < 0) busy[dst] = false;
    }
    if (ok) {
        if (t->result.kind == FMAG_SO_REF_CONST)
            ok &= push(p, 0, 0, lit(0.0f), lit(t->result.imm), lit(1.0f));
        else if (where[rv] != 0)
            ok &= push(p, 0, (unsigned)where[rv], lit(1.0f), lit(0.0f), lit(1.0f));
    }
#undef VAL_OF
    p->regs = maxreg;
out:
    free(last);
    free(where);
    return ok;
}
