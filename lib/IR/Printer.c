/* The .fir printer. It prints exactly what the parser reads: sugar only where the
 * instruction is the sugar's exact expansion, every literal with its bits kept. */
#include "IRInternal.h"
#include "fmag/Bits.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- naming */

typedef struct name_set {
    const char **slots;
    size_t cap, count;
} name_set;

static size_t str_hash(const char *s)
{
    return fmag_hash_bytes(s, strlen(s));
}

static void set_grow(name_set *s);

/* Returns false when the name is already present. */
static bool set_insert(name_set *s, const char *name)
{
    if ((s->count + 1) * 2 > s->cap) set_grow(s);
    /* Out of memory and full: printing goes on with numbered names (see set_grow). */
    if (s->count + 1 >= s->cap) return false;
    size_t h = str_hash(name) & (s->cap - 1);
    while (s->slots[h]) {
        if (!strcmp(s->slots[h], name)) return false;
        h = (h + 1) & (s->cap - 1);
    }
    s->slots[h] = name;
    s->count++;
    return true;
}

static bool set_has(const name_set *s, const char *name)
{
    if (!s->cap) return false;
    size_t h = str_hash(name) & (s->cap - 1);
    while (s->slots[h]) {
        if (!strcmp(s->slots[h], name)) return true;
        h = (h + 1) & (s->cap - 1);
    }
    return false;
}

static void set_grow(name_set *s)
{
    name_set n = {fmag_tmp_calloc(s->cap ? s->cap * 2 : 64, sizeof(char *)),
                  s->cap ? s->cap * 2 : 64, 0};
    if (!n.slots) return; /* the printer has no failure to report; s stays usable */
    for (size_t k = 0; k < s->cap; k++)
        if (s->slots[k]) set_insert(&n, s->slots[k]);
    fmag_tmp_free(s->slots);
    *s = n;
}

/* Names: keep every unique given name; number the rest, skipping taken numbers. */
static void name_value(fmag_context *ctx, name_set *taken, fmag_value *v, unsigned *counter,
                       const char *prefix)
{
    if (v->name && !set_has(taken, v->name)) {
        set_insert(taken, v->name);
        return;
    }
    char buf[48];
    do
        snprintf(buf, sizeof buf, "%s%u", prefix, (*counter)++);
    while (set_has(taken, buf));
    v->name = fmag_context_strdup(ctx, buf, strlen(buf));
    set_insert(taken, v->name);
}

void fmag_func_name_values(fmag_func *f)
{
    fmag_context *ctx = f->module->ctx;
    name_set taken = {0}, btaken = {0};
    /* First reserve the given names in definition order, so a later duplicate is the
     * one renamed. */
    name_set seen = {0};
    for (unsigned k = 0; k < f->nparams; k++)
        if (f->params[k].name && !set_insert(&seen, f->params[k].name)) f->params[k].name = NULL;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            for (unsigned k = 0; k < i->nresults; k++)
                if (i->results[k].name && !set_insert(&seen, i->results[k].name))
                    i->results[k].name = NULL;
    fmag_tmp_free(seen.slots);
    for (unsigned k = 0; k < f->nparams; k++)
        if (f->params[k].name) set_insert(&taken, f->params[k].name);
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            for (unsigned k = 0; k < i->nresults; k++)
                if (i->results[k].name) set_insert(&taken, i->results[k].name);
    unsigned counter = 0;
    for (unsigned k = 0; k < f->nparams; k++)
        if (!f->params[k].name) name_value(ctx, &taken, &f->params[k], &counter, "arg");
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            for (unsigned k = 0; k < i->nresults; k++)
                if (!i->results[k].name) name_value(ctx, &taken, &i->results[k], &counter, "");

    unsigned bcounter = 0;
    fmag_foreach_block (b, f)
        if (b->name && !set_insert(&btaken, b->name)) b->name = NULL;
    fmag_foreach_block (b, f) {
        if (b->name) continue;
        char buf[48];
        do
            snprintf(buf, sizeof buf, "%s%u", b == f->first ? "entry" : "bb", bcounter++);
        while (set_has(&btaken, buf));
        b->name = fmag_context_strdup(ctx, buf, strlen(buf));
        set_insert(&btaken, b->name);
    }
    fmag_tmp_free(taken.slots);
    fmag_tmp_free(btaken.slots);
}

const char *fmag_value_str(fmag_value *v, char *buf, size_t len)
{
    if (v->kind == FMAG_VALUE_CONST && v->type == FMAG_TYPE_I32) {
        /* Small integers in decimal, the rest (masks, hash constants) in hex. */
        int32_t s = (int32_t)v->ibits;
        if (s >= -(1 << 24) && s <= (1 << 24))
            snprintf(buf, len, "%d", (int)s);
        else
            snprintf(buf, len, "0x%08X", (unsigned)v->ibits);
    } else if (v->kind == FMAG_VALUE_CONST) {
        char tmp[40];
        snprintf(buf, len, "%s", fmag_format_float(tmp, v->imm));
    } else if (v->name) {
        snprintf(buf, len, "%%%s", v->name);
    } else {
        snprintf(buf, len, "%%<unnamed %u>", v->id);
    }
    return buf;
}

/* --------------------------------------------------------------- printing */

static void print_value(FILE *out, fmag_value *v)
{
    char buf[256];
    fputs(v ? fmag_value_str(v, buf, sizeof buf) : "<null>", out);
}

static void print_ops(FILE *out, fmag_instr *i, const unsigned *idx, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        if (k) fputs(", ", out);
        print_value(out, i->ops[idx[k]].value);
    }
}

static bool is_k(fmag_value *v, float f)
{
    return v && fmag_value_is_imm(v, f);
}

/* The one-instruction sugar forms (fmag/Sugar.def), in the table's order. A slot is
 * operand `opnd` of the form, or the literal `imm` (opnd < 0). */
typedef struct sugar_slot {
    int opnd;
    float imm;
} sugar_slot;

static const struct sugar_form {
    const char *name;
    unsigned nops;
    sugar_slot slot[5];
} sugar_forms[] = {
/* clang-format off */
#define X {0, 0.0f}
#define Y {1, 0.0f}
#define Z {2, 0.0f}
#define K(f) {-1, (f)}
#define FMAG_SUGAR(NAME, NOPS, A, B, C, D, E) {#NAME, NOPS, {A, B, C, D, E}},
#define FMAG_SUGAR_SELECT(NAME, NOPS, FIR, T, F, G)
/* clang-format on */
#include "fmag/Sugar.def"
#undef FMAG_SUGAR
#undef FMAG_SUGAR_SELECT
#undef X
#undef Y
#undef Z
#undef K
};

/* Whether this fmag is the form's exact expansion; idx[k] gets the operand slot of
 * the form's operand k. */
static bool sugar_matches(const struct sugar_form *s, fmag_instr *i, unsigned *idx)
{
    bool bound[3] = {false, false, false};
    for (unsigned k = 0; k < 5; k++) {
        const sugar_slot *sl = &s->slot[k];
        fmag_value *v = fmag_instr_op(i, FMAG_A + k);
        if (sl->opnd < 0) {
            if (!is_k(v, sl->imm)) return false;
        } else if (!bound[sl->opnd]) {
            bound[sl->opnd] = true;
            idx[sl->opnd] = FMAG_A + k;
        } else if (fmag_instr_op(i, idx[sl->opnd]) != v) {
            return false;
        }
    }
    return true;
}

/* Prints the first sugar form whose exact expansion this fmag is, or plain fmag. */
static void print_fmag(FILE *out, fmag_instr *i, unsigned flags)
{
    static const unsigned all[5] = {0, 1, 2, 3, 4};
    bool complete = true;
    for (unsigned k = 0; k < 5; k++)
        complete &= fmag_instr_op(i, FMAG_A + k) != NULL;
    if (!(flags & FMAG_PRINT_RAW) && complete) {
        for (size_t f = 0; f < sizeof sugar_forms / sizeof sugar_forms[0]; f++) {
            unsigned idx[3];
            if (!sugar_matches(&sugar_forms[f], i, idx)) continue;
            fprintf(out, "%s ", sugar_forms[f].name);
            print_ops(out, i, idx, sugar_forms[f].nops);
            return;
        }
    }
    fputs("fmag ", out);
    print_ops(out, i, all, 5);
}

static void print_block_ref(FILE *out, fmag_block *b)
{
    fprintf(out, "^%s", b ? b->name : "<null>");
}

void fmag_instr_print(fmag_instr *i, FILE *out, unsigned flags)
{
    for (unsigned k = 0; k < i->nresults; k++) {
        fputs(k ? ", " : "", out);
        print_value(out, &i->results[k]);
    }
    if (i->nresults) fputs(" = ", out);
    switch (i->op) {
    case FMAG_OP_FMAG:
        print_fmag(out, i, flags);
        break;
    case FMAG_OP_INT:
        fprintf(out, "%s ", fmag_int_op_name(i->iop));
        print_ops(out, i, (const unsigned[]){0, 1, 2}, i->nops < 3 ? i->nops : 3);
        break;
    case FMAG_OP_PHI:
        fputs(i->results[0].type == FMAG_TYPE_I32 ? "phi i32 " : "phi ", out);
        for (unsigned k = 0; k < i->nops; k++) {
            fputs(k ? ", [" : "[", out);
            print_value(out, i->ops[k].value);
            fputs(", ", out);
            print_block_ref(out, i->phi_blocks[k]);
            fputs("]", out);
        }
        break;
    case FMAG_OP_CALL:
        fprintf(out, "call @%s(", i->callee ? i->callee->name : "<null>");
        for (unsigned k = 0; k < i->nops; k++) {
            fputs(k ? ", " : "", out);
            print_value(out, i->ops[k].value);
        }
        fputs(")", out);
        break;
    case FMAG_OP_BR:
        fputs("br ", out);
        print_value(out, i->ops[0].value);
        fputs(", ", out);
        print_block_ref(out, i->targets[0]);
        fputs(", ", out);
        print_block_ref(out, i->targets[1]);
        break;
    case FMAG_OP_JMP:
        fputs("jmp ", out);
        print_block_ref(out, i->targets[0]);
        break;
    case FMAG_OP_RET:
        fputs("ret", out);
        for (unsigned k = 0; k < i->nops; k++) {
            fputs(k ? ", " : " ", out);
            print_value(out, i->ops[k].value);
        }
        break;
    }
}

void fmag_func_print(fmag_func *f, FILE *out, unsigned flags)
{
    fmag_func_name_values(f);
    fprintf(out, "%sfunc @%s(", f->is_export ? "export " : "", f->name);
    for (unsigned k = 0; k < f->nparams; k++) {
        fputs(k ? ", " : "", out);
        print_value(out, &f->params[k]);
        if (f->params[k].type == FMAG_TYPE_I32) fputs(": i32", out);
    }
    /* `-> N` when every result is f32 (the form before integers), else the types. */
    if (!f->result_types) {
        fprintf(out, ") -> %u", f->nresults);
    } else {
        fputs(") ->", out);
        for (unsigned k = 0; k < f->nresults; k++)
            fprintf(out, "%s %s", k ? "," : "", fmag_type_name(fmag_func_result_type(f, k)));
    }
    /* -derivatives made it take derivative inputs (docs/Derivatives.md) */
    if (f->nderiv) fprintf(out, " derivs %u", f->nderiv);
    fputs(" {\n", out);
    fmag_foreach_block (b, f) {
        fprintf(out, "^%s:\n", b->name);
        fmag_foreach_instr (i, b) {
            fputs("  ", out);
            fmag_instr_print(i, out, flags);
            fputc('\n', out);
        }
    }
    fputs("}\n", out);
}

void fmag_module_print(fmag_module *m, FILE *out, unsigned flags)
{
    if (m->fastmath) fputs("fastmath\n\n", out);
    bool first = true;
    fmag_foreach_func (f, m) {
        if (!first) fputc('\n', out);
        first = false;
        fmag_func_print(f, out, flags);
    }
}
