/* The IR verifier: structure, operand counts, arity, SSA dominance and phis against
 * predecessors, reported as diagnostics that name the function, block and instruction.
 *
 * Decisions where SPEC §2 is silent (also in docs/Verifier.md):
 * - Unreachable blocks are allowed (passes leave them behind; -dce/-ternary remove them).
 *   They are checked for structure, but not for dominance: like LLVM, every value is
 *   taken to dominate a use in an unreachable block. A value defined in an unreachable
 *   block does not dominate any reachable use.
 * - The entry block may not be a branch target, so it never holds a phi.
 * - A phi has exactly one incoming value per distinct predecessor block (a `br` whose
 *   two arms name the same block is one predecessor).
 * - Recursion is not an error here: the interpreter runs it with a depth limit, and
 *   -inline reports it through fmag_module_has_recursion.
 * - A module with functions must export at least one: an export is a program.
 * On failure the last diagnostic of a function carries the function's listing with
 * every offending line marked `; <-- error` (STYLE §5).
 */
#define _POSIX_C_SOURCE 200809L
#include "fmag/IR.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Past this many errors in one function the rest are counted, not listed. */
#define FMAG_VERIFY_MAX_ERRORS 32u
/* Functions longer than this are listed only around the marked lines. */
#define FMAG_VERIFY_FULL_LISTING_LINES 120u
#define FMAG_VERIFY_CONTEXT_LINES 3u

/* ------------------------------------------------------------ text buffer */

typedef struct vbuf {
    char *s;
    size_t len, cap;
    bool oom;
} vbuf;

static void vbuf_vprintf(vbuf *b, const char *fmt, va_list ap)
{
    if (b->oom) return;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        b->oom = true;
        return;
    }
    size_t need = b->len + (size_t)n + 1;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 128;
        while (cap < need)
            cap *= 2;
        char *s = fmag_tmp_realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
vbuf_printf(vbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ names */

/* Names are the printer's: fmag_func_name_values (called on the first error, so that
 * verifying valid IR changes nothing) names every unnamed value and block. */

/* ------------------------------------------------------------- the state */

typedef struct verr {
    char *msg;
    fmag_block *block; /* the block to mark when instr is NULL */
    fmag_instr *instr;
} verr;

typedef struct vstate {
    fmag_func *f;
    fmag_context *ctx;
    bool module_checked; /* callee membership was checked by fmag_verify_module */

    unsigned nblocks, nvalues;
    fmag_block **blocks; /* by block id */
    fmag_value **vals;   /* by value id: which value owns the id */
    unsigned *pos;       /* by value id: position of the defining instruction in its block */

    fmag_preds preds; /* distinct predecessors (lib/IR/Preds.c) */

    fmag_domtree dt; /* lib/IR/Dominance.c */

    bool printable; /* no NULL operand/target/callee: the printer may list it */
    bool nameable;  /* every instruction has its result values: names may be given */
    bool named;
    bool cfg_ok; /* every target is a block of this function */

    verr errs[FMAG_VERIFY_MAX_ERRORS];
    unsigned nerrs, nerrs_dropped;
    bool oom;
} vstate;

/* Names for messages, given only once there is an error to report. */
static void ensure_named(vstate *st)
{
    if (!st->named && st->nameable) {
        fmag_func_name_values(st->f);
        st->named = true;
    }
}

typedef struct namebuf {
    char s[128];
} namebuf;

static const char *vstr(vstate *st, fmag_value *v, namebuf *nb)
{
    ensure_named(st);
    return v ? fmag_value_str(v, nb->s, sizeof nb->s) : "<null>";
}

static const char *bstr(vstate *st, const fmag_block *b, namebuf *nb)
{
    ensure_named(st);
    if (!b)
        snprintf(nb->s, sizeof nb->s, "^<null>");
    else if (b->name)
        snprintf(nb->s, sizeof nb->s, "^%s", b->name);
    else
        snprintf(nb->s, sizeof nb->s, "^<unnamed %u>", b->id);
    return nb->s;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void
report(vstate *st, fmag_block *b, fmag_instr *i, const char *fmt, ...)
{
    if (st->nerrs == FMAG_VERIFY_MAX_ERRORS) {
        st->nerrs_dropped++;
        return;
    }
    ensure_named(st);
    vbuf out = {0};
    vbuf_printf(&out, "error: in function @%s", st->f->name ? st->f->name : "<null>");
    namebuf nb;
    if (b) vbuf_printf(&out, ", block %s", bstr(st, b, &nb));
    if (i && i->nresults > 0 && i->results)
        vbuf_printf(&out, ", instruction %s", vstr(st, &i->results[0], &nb));
    else if (i)
        vbuf_printf(&out, ", instruction %s", fmag_opcode_name(i->op));
    vbuf_printf(&out, ": ");
    va_list ap;
    va_start(ap, fmt);
    vbuf_vprintf(&out, fmt, ap);
    va_end(ap);
    if (out.oom) {
        fmag_tmp_free(out.s);
        st->oom = true;
        return;
    }
    st->errs[st->nerrs].msg = out.s;
    st->errs[st->nerrs].block = b;
    st->errs[st->nerrs].instr = i;
    st->nerrs++;
}

static bool value_in_func(const vstate *st, const fmag_value *v)
{
    return v->kind != FMAG_VALUE_CONST && v->id < st->nvalues && st->vals[v->id] == v;
}

static bool block_in_func(const vstate *st, const fmag_block *b)
{
    return b && b->id < st->nblocks && st->blocks[b->id] == b;
}

static bool callee_in_module(const fmag_module *m, const fmag_func *callee)
{
    fmag_foreach_func (g, m)
        if (g == callee) return true;
    return false;
}

/* ------------------------------------------------------- the listing */

static bool is_marked_instr(const vstate *st, const fmag_instr *i)
{
    for (unsigned k = 0; k < st->nerrs; k++)
        if (st->errs[k].instr == i) return true;
    return false;
}

static bool is_marked_block(const vstate *st, const fmag_block *b)
{
    for (unsigned k = 0; k < st->nerrs; k++)
        if (!st->errs[k].instr && st->errs[k].block == b) return true;
    return false;
}

typedef struct line {
    const char *s;
    size_t len;
    bool marked;
    bool keep; /* a label over a marked line: shown in a shortened listing */
} line;

/* Splits the printer's text of the function into lines and marks the offending
 * ones: lines are matched to blocks and instructions in order (the header, `^b:`
 * labels, one line per instruction, `}`). Returns false when the text does not
 * have that shape, so the caller can try the raw form or skip the marks. */
static bool mark_lines(const vstate *st, line *lines, size_t nlines)
{
    fmag_block *b = st->f->first;
    fmag_instr *i = NULL;
    bool seen_label = false;
    size_t label = 0;
    for (size_t k = 1; k < nlines; k++) {
        const char *s = lines[k].s;
        size_t n = lines[k].len;
        while (n && (*s == ' ' || *s == '\t'))
            s++, n--;
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
            n--;
        if (n == 0 || s[0] == ';') continue;
        if (n == 1 && s[0] == '}') return b == NULL || (b->next == NULL && i == NULL);
        if (s[0] == '^' && s[n - 1] == ':') {
            if (seen_label) {
                if (!b || i) return false;
                b = b->next;
            }
            if (!b) return false;
            seen_label = true;
            label = k;
            i = b->first;
            lines[k].marked = is_marked_block(st, b);
            continue;
        }
        if (!seen_label || !i) return false;
        lines[k].marked = is_marked_instr(st, i);
        lines[label].keep |= lines[k].marked;
        i = i->next;
    }
    return false;
}

/* The printed function in fmag_tmp_* memory, so that an allocation failure that
 * unwinds while it is held frees it. Printed twice: the first print (into a
 * memstream, which the unwinding could not free) gives the size and the names, and
 * nothing between the tmp allocation and the copy allocates. */
static char *print_func(fmag_func *f, unsigned flags)
{
    char *text = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&text, &size);
    if (!fp) return NULL;
    fmag_func_print(f, fp, flags);
    bool ok = fclose(fp) == 0;
    free(text);
    if (!ok) return NULL;
    char *copy = fmag_tmp_malloc(size + 1);
    if (!copy) return NULL;
    text = NULL;
    fp = open_memstream(&text, &size);
    if (!fp) {
        fmag_tmp_free(copy);
        return NULL;
    }
    fmag_func_print(f, fp, flags);
    ok = fclose(fp) == 0;
    if (ok) memcpy(copy, text, size + 1);
    free(text);
    if (!ok) {
        fmag_tmp_free(copy);
        return NULL;
    }
    return copy;
}

static size_t split_lines(char *text, line **out)
{
    size_t n = 0;
    for (char *p = text; *p; p++)
        if (*p == '\n') n++;
    n++;
    line *lines = fmag_tmp_calloc(n, sizeof *lines);
    if (!lines) return 0;
    size_t k = 0;
    char *p = text;
    while (*p) {
        char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        lines[k].s = p;
        lines[k].len = len;
        k++;
        if (!e) break;
        p = e + 1;
    }
    *out = lines;
    return k;
}

/* Appends the function's listing with the offending lines marked. */
static void append_listing(vstate *st, vbuf *out)
{
    if (!st->printable) return;
    static const unsigned forms[2] = {FMAG_PRINT_DEFAULT, FMAG_PRINT_RAW};
    for (unsigned form = 0; form < 2; form++) {
        char *text = print_func(st->f, forms[form]);
        if (!text) return;
        line *lines = NULL;
        size_t n = split_lines(text, &lines);
        if (!lines) {
            fmag_tmp_free(text);
            return;
        }
        bool ok = mark_lines(st, lines, n);
        if (ok || form == 1) {
            bool full = n <= FMAG_VERIFY_FULL_LISTING_LINES || !ok;
            size_t last_shown = 0;
            for (size_t k = 0; k < n; k++) {
                bool show = full || k == 0 || k + 1 == n || lines[k].keep;
                for (size_t d = 0; !show && d <= FMAG_VERIFY_CONTEXT_LINES; d++)
                    show = (k >= d && lines[k - d].marked) || (k + d < n && lines[k + d].marked);
                if (!show) continue;
                if (k > last_shown + 1) vbuf_printf(out, "\n  ...");
                vbuf_printf(out, "\n%.*s%s", (int)lines[k].len, lines[k].s,
                            lines[k].marked ? "  ; <-- error" : "");
                last_shown = k;
            }
            fmag_tmp_free(lines);
            fmag_tmp_free(text);
            return;
        }
        fmag_tmp_free(lines);
        fmag_tmp_free(text);
    }
}

/* Errors come out in program order (function-level ones first), whatever the order
 * of the checks that found them. */
static void sort_errors(vstate *st)
{
    uint64_t key[FMAG_VERIFY_MAX_ERRORS];
    for (unsigned k = 0; k < st->nerrs; k++) {
        const verr *e = &st->errs[k];
        uint64_t bkey = 0, ikey = 0;
        if (e->block && block_in_func(st, e->block)) {
            bkey = e->block->id + 1u;
            unsigned pos = 1;
            for (fmag_instr *i = e->block->first; e->instr && i; i = i->next, pos++)
                if (i == e->instr) {
                    ikey = pos;
                    break;
                }
        }
        key[k] = bkey << 32 | ikey;
    }
    for (unsigned k = 1; k < st->nerrs; k++) {
        verr e = st->errs[k];
        uint64_t ek = key[k];
        unsigned j = k;
        for (; j > 0 && key[j - 1] > ek; j--) {
            st->errs[j] = st->errs[j - 1];
            key[j] = key[j - 1];
        }
        st->errs[j] = e;
        key[j] = ek;
    }
}

static bool flush_errors(vstate *st)
{
    fmag_context *ctx = st->ctx;
    sort_errors(st);
    for (unsigned k = 0; k < st->nerrs; k++) {
        bool last = k + 1 == st->nerrs;
        if (!last) {
            fmag_context_error(ctx, "%s", st->errs[k].msg);
            continue;
        }
        vbuf out = {0};
        vbuf_printf(&out, "%s", st->errs[k].msg);
        if (st->nerrs_dropped)
            vbuf_printf(&out, "\nerror: in function @%s: %u more errors not shown",
                        st->f->name ? st->f->name : "<null>", st->nerrs_dropped);
        append_listing(st, &out);
        fmag_context_error(ctx, "%s", out.oom ? st->errs[k].msg : out.s);
        fmag_tmp_free(out.s);
    }
    for (unsigned k = 0; k < st->nerrs; k++)
        fmag_tmp_free(st->errs[k].msg);
    if (st->oom)
        fmag_context_error(ctx, "error: in function @%s: out of memory while verifying",
                           st->f->name ? st->f->name : "<null>");
    return st->nerrs == 0 && !st->oom;
}

/* ------------------------------------------------------ structural checks */

static void check_operand(vstate *st, fmag_block *b, fmag_instr *i, unsigned k)
{
    /* fmag slots by letter (sugar reorders them), other operands by number. */
    char slot[16];
    if (i->op == FMAG_OP_FMAG && k < 5)
        snprintf(slot, sizeof slot, "%c", "abcde"[k]);
    else
        snprintf(slot, sizeof slot, "%u", k);
    fmag_use *u = &i->ops[k];
    fmag_value *v = u->value;
    if (!v) {
        st->printable = false;
        report(st, b, i, "operand %s is not set", slot);
        return;
    }
    if (u->user != i || u->index != k) {
        report(st, b, i, "operand %s's use does not point back to its instruction", slot);
        return;
    }
    if (v->kind == FMAG_VALUE_CONST && v->type == FMAG_TYPE_I32) return;
    if (v->kind == FMAG_VALUE_CONST) {
        namebuf nb;
        if (isnan(v->imm))
            report(st, b, i, "operand %s is the literal %s (NaN is never a value)", slot,
                   vstr(st, v, &nb));
        else if (isinf(v->imm))
            report(st, b, i, "operand %s is the literal %s (infinity is never a literal)", slot,
                   vstr(st, v, &nb));
        return;
    }
    if (value_in_func(st, v)) return;
    if (v->kind == FMAG_VALUE_PARAM && v->func && v->func != st->f) {
        report(st, b, i, "operand %s is a parameter of another function @%s", slot,
               v->func->name ? v->func->name : "<null>");
    } else if (v->kind == FMAG_VALUE_RESULT && v->def && v->def->block && v->def->block->func &&
               v->def->block->func != st->f) {
        report(st, b, i, "operand %s is defined in another function @%s", slot,
               v->def->block->func->name ? v->def->block->func->name : "<null>");
    } else {
        namebuf nb;
        report(st, b, i, "operand %s (%s) is not defined in this function (erased?)", slot,
               vstr(st, v, &nb));
    }
}

/* The type operand k of i (in f) must have (SPEC §2b), or -1 when the counts are wrong. */
static int operand_type(const fmag_func *f, const fmag_instr *i, unsigned k)
{
    switch (i->op) {
    case FMAG_OP_FMAG:
    case FMAG_OP_BR:
        return FMAG_TYPE_F32;
    case FMAG_OP_INT:
        return (unsigned)i->iop < FMAG_IOP_COUNT && k < fmag_int_op_nops(i->iop)
                   ? (int)fmag_int_op_operand_type(i->iop, k)
                   : -1;
    case FMAG_OP_PHI:
        return i->nresults == 1 ? (int)i->results[0].type : -1;
    case FMAG_OP_CALL:
        return i->callee && k < i->callee->nparams ? (int)i->callee->params[k].type : -1;
    case FMAG_OP_RET:
        return k < f->nresults ? (int)fmag_func_result_type(f, k) : -1;
    case FMAG_OP_JMP:
        break;
    }
    return -1;
}

/* Operand and result types: integer operations per fmag/IntOps.def, a phi's operands
 * of its own type, calls and rets per the signature, every fmag operand and branch
 * guard f32; no integer crosses an export's interface. */
static void check_types(vstate *st, fmag_block *b, fmag_instr *i)
{
    for (unsigned k = 0; k < i->nops; k++) {
        fmag_value *v = i->ops[k].value;
        int want = operand_type(st->f, i, k);
        if (!v || want < 0 || (int)v->type == want) continue;
        namebuf nb;
        report(st, b, i, "operand %u (%s) is %s, expected %s", k, vstr(st, v, &nb),
               fmag_type_name(v->type), fmag_type_name((fmag_type)want));
    }
    if (i->op == FMAG_OP_INT && (unsigned)i->iop < FMAG_IOP_COUNT && i->nresults == 1 &&
        i->results[0].type != fmag_int_op_result_type(i->iop))
        report(st, b, i, "%s's result is %s, expected %s", fmag_int_op_name(i->iop),
               fmag_type_name(i->results[0].type), fmag_type_name(fmag_int_op_result_type(i->iop)));
    if (i->op == FMAG_OP_FMAG && i->nresults == 1 && i->results[0].type != FMAG_TYPE_F32)
        report(st, b, i, "fmag's result is %s, expected f32", fmag_type_name(i->results[0].type));
    if (i->op == FMAG_OP_CALL && i->callee && i->nresults == i->callee->nresults)
        for (unsigned k = 0; k < i->nresults; k++)
            if (i->results[k].type != fmag_func_result_type(i->callee, k))
                report(st, b, i, "result %u of the call is %s, @%s returns %s", k,
                       fmag_type_name(i->results[k].type), i->callee->name,
                       fmag_type_name(fmag_func_result_type(i->callee, k)));
}

bool fmag_instr_operand_types_ok(const fmag_func *f, const fmag_instr *i)
{
    for (unsigned k = 0; k < i->nops; k++) {
        const fmag_value *v = i->ops[k].value;
        int want = operand_type(f, i, k);
        if (v && want >= 0 && (int)v->type != want) return false;
    }
    return true;
}

static void check_target(vstate *st, fmag_block *b, fmag_instr *i, unsigned k)
{
    fmag_block *t = i->targets[k];
    if (!t) {
        st->printable = false;
        st->cfg_ok = false;
        report(st, b, i, "branch target %u is not set", k);
    } else if (!block_in_func(st, t)) {
        st->cfg_ok = false;
        report(st, b, i, "branch target %u is not a block of this function", k);
    } else if (t == st->f->first) {
        report(st, b, i, "branch to the entry block (the entry block has no predecessors)");
    }
}

static const char *plural(unsigned n)
{
    return n == 1 ? "" : "s";
}

static void check_counts(vstate *st, fmag_block *b, fmag_instr *i)
{
    fmag_func *f = st->f;
    unsigned want_ops = i->nops, want_res = i->nresults;
    switch (i->op) {
    case FMAG_OP_FMAG:
        want_ops = 5, want_res = 1;
        break;
    case FMAG_OP_PHI:
        want_res = 1;
        if (i->nops && !i->phi_blocks) {
            st->printable = false;
            report(st, b, i, "phi has no incoming block list");
        }
        break;
    case FMAG_OP_CALL:
        if (!i->callee) {
            st->printable = false;
            report(st, b, i, "call has no callee");
            return;
        }
        if (i->callee->module != f->module ||
            (!st->module_checked && !callee_in_module(f->module, i->callee))) {
            report(st, b, i, "callee @%s is not a function of this module",
                   i->callee->name ? i->callee->name : "<null>");
            return;
        }
        want_ops = i->callee->nparams, want_res = i->callee->nresults;
        if (i->nops != want_ops)
            report(st, b, i, "call to @%s passes %u argument%s, the callee takes %u",
                   i->callee->name, i->nops, plural(i->nops), want_ops);
        if (i->nresults != want_res)
            report(st, b, i, "call to @%s has %u result%s, the callee returns %u", i->callee->name,
                   i->nresults, plural(i->nresults), want_res);
        return;
    case FMAG_OP_BR:
        want_ops = 1, want_res = 0;
        break;
    case FMAG_OP_JMP:
        want_ops = 0, want_res = 0;
        break;
    case FMAG_OP_INT:
        if ((unsigned)i->iop >= FMAG_IOP_COUNT) {
            st->printable = false;
            report(st, b, i, "unknown integer operation %d", (int)i->iop);
            return;
        }
        want_ops = fmag_int_op_nops(i->iop), want_res = 1;
        break;
    case FMAG_OP_RET:
        want_res = 0;
        if (i->nops != f->nresults)
            report(st, b, i, "ret returns %u value%s, the function has %u result%s", i->nops,
                   plural(i->nops), f->nresults, plural(f->nresults));
        break;
    default:
        st->printable = false;
        report(st, b, i, "unknown opcode %d", (int)i->op);
        return;
    }
    if (i->nops != want_ops)
        report(st, b, i, "%s has %u operand%s, expected %u", fmag_opcode_name(i->op), i->nops,
               plural(i->nops), want_ops);
    if (i->nresults != want_res)
        report(st, b, i, "%s has %u result%s, expected %u", fmag_opcode_name(i->op), i->nresults,
               plural(i->nresults), want_res);
}

/* Walks blocks and instructions once: links, counts, operands, terminators, phi
 * placement. Fills blocks[], vals[] and pos[]. */
static void check_structure(vstate *st)
{
    fmag_func *f = st->f;
    for (unsigned p = 0; p < f->nparams; p++)
        if (f->params[p].id < st->nvalues) st->vals[f->params[p].id] = &f->params[p];
    if (f->is_export)
        for (unsigned p = 0; p < f->nparams + f->nresults; p++)
            if (p < f->nparams ? f->params[p].type != FMAG_TYPE_F32
                               : fmag_func_result_type(f, p - f->nparams) != FMAG_TYPE_F32) {
                report(st, NULL, NULL,
                       "an export's parameters and results are f32 (a program's inputs and "
                       "outputs are floats): convert with sitofp/fptosi");
                break;
            }
    fmag_block *prevb = NULL;
    fmag_foreach_block (b, f) {
        if (b->id < st->nblocks) st->blocks[b->id] = b;
        if (b->func != f) report(st, b, NULL, "block's owner is another function");
        if (b->prev != prevb) report(st, b, NULL, "block list is broken (prev link)");
        prevb = b;
        unsigned k = 0;
        fmag_foreach_instr (i, b) {
            for (unsigned r = 0; i->results && r < i->nresults; r++) {
                fmag_value *v = &i->results[r];
                if (v->id < st->nvalues) {
                    st->vals[v->id] = v;
                    st->pos[v->id] = k;
                }
            }
            k++;
        }
    }
    if (f->last != prevb)
        report(st, NULL, NULL, "function's last block is not the end of its block list");

    fmag_foreach_block (b, f) {
        bool seen_non_phi = false;
        fmag_instr *previ = NULL;
        if (!b->first) report(st, b, NULL, "block is empty (it needs a terminator)");
        fmag_foreach_instr (i, b) {
            if (i->block != b) report(st, b, i, "instruction's owner is another block");
            if (i->prev != previ) report(st, b, i, "instruction list is broken (prev link)");
            previ = i;
            if (i->op > FMAG_OP_INT) {
                st->printable = false;
                report(st, b, i, "unknown opcode %d", (int)i->op);
                continue;
            }
            check_counts(st, b, i);
            check_types(st, b, i);
            if (i->nresults && !i->results) {
                st->printable = false;
                report(st, b, i, "instruction has %u results but no result values", i->nresults);
            }
            for (unsigned r = 0; i->results && r < i->nresults; r++) {
                fmag_value *v = &i->results[r];
                if (v->kind != FMAG_VALUE_RESULT || v->def != i || v->index != r)
                    report(st, b, i, "result %u does not point back to its instruction", r);
            }
            for (unsigned k = 0; k < i->nops; k++)
                check_operand(st, b, i, k);
            if (i->op == FMAG_OP_PHI) {
                if (b == f->first)
                    report(st, b, i, "phi in the entry block (the entry has no predecessors)");
                else if (seen_non_phi)
                    report(st, b, i, "phi after a non-phi instruction (phis must come first)");
                for (unsigned k = 0; i->phi_blocks && k < i->nops; k++)
                    if (!i->phi_blocks[k]) {
                        st->printable = false;
                        report(st, b, i, "phi incoming block %u is not set", k);
                    }
            } else {
                seen_non_phi = true;
            }
            if (fmag_instr_is_terminator(i)) {
                if (i->op == FMAG_OP_BR) {
                    check_target(st, b, i, 0);
                    check_target(st, b, i, 1);
                } else if (i->op == FMAG_OP_JMP) {
                    check_target(st, b, i, 0);
                }
                if (i != b->last) report(st, b, i, "terminator in the middle of the block");
            }
        }
        if (b->last != previ)
            report(st, b, NULL, "block's last instruction is not the end of its list");
        if (b->last && !fmag_instr_is_terminator(b->last))
            report(st, b, b->last, "block does not end in a terminator (br, jmp or ret)");
    }
}

/* Every param/result's use list must hold exactly the operand slots that name it. */
static void check_use_lists(vstate *st, size_t nuses_in_func)
{
    size_t seen = 0;
    for (unsigned id = 0; id < st->nvalues; id++) {
        fmag_value *v = st->vals[id];
        if (!v) continue;
        size_t n = 0;
        for (fmag_use *u = v->uses; u; u = u->next_use) {
            if (++n > nuses_in_func) {
                break;
            }
            bool ok = u->value == v && u->user && u->index < u->user->nops &&
                      &u->user->ops[u->index] == u && u->user->block &&
                      block_in_func(st, u->user->block);
            if (!ok) {
                namebuf nb;
                fmag_block *db = v->kind == FMAG_VALUE_RESULT ? v->def->block : NULL;
                report(st, db, NULL, "the use list of %s holds a use that is not its operand",
                       vstr(st, v, &nb));
                return;
            }
        }
        seen += n;
    }
    if (seen != nuses_in_func)
        report(st, NULL, NULL,
               "use lists hold %zu uses of this function's values, its operands name %zu", seen,
               nuses_in_func);
}

/* -------------------------------------------------------- CFG, dominators */

/* Does reachable block a dominate reachable block b (block ids)? */
static bool dominates(const vstate *st, unsigned a, unsigned b)
{
    return fmag_domtree_dominates(&st->dt, st->blocks[a], st->blocks[b]);
}

static bool reachable(const vstate *st, unsigned b)
{
    return fmag_domtree_reachable(&st->dt, st->blocks[b]);
}

static void check_phis(vstate *st, fmag_block *b)
{
    fmag_block *const *preds = fmag_preds_of(&st->preds, b);
    unsigned npreds = fmag_preds_count(&st->preds, b);
    namebuf nb;
    fmag_foreach_instr (i, b) {
        if (i->op != FMAG_OP_PHI) continue;
        if (!i->phi_blocks && i->nops) continue; /* reported by check_structure */
        for (unsigned k = 0; k < i->nops; k++) {
            fmag_block *from = i->phi_blocks[k];
            if (!from) continue;
            bool is_pred = false;
            for (unsigned p = 0; p < npreds && !is_pred; p++)
                is_pred = preds[p] == from;
            if (!is_pred)
                report(st, b, i, "phi has an incoming value from %s, which is not a predecessor",
                       bstr(st, from, &nb));
            for (unsigned j = 0; j < k; j++)
                if (i->phi_blocks[j] == from) {
                    report(st, b, i, "phi has two incoming values from %s", bstr(st, from, &nb));
                    break;
                }
        }
        for (unsigned p = 0; p < npreds; p++) {
            fmag_block *pred = preds[p];
            bool found = false;
            for (unsigned k = 0; k < i->nops && !found; k++)
                found = i->phi_blocks[k] == pred;
            if (!found)
                report(st, b, i, "phi has no incoming value for predecessor %s",
                       bstr(st, pred, &nb));
        }
    }
}

/* Operands are named by value, not slot: `add %r, %a` keeps %a in slot c. */
static void check_dominance(vstate *st, fmag_block *b)
{
    if (!reachable(st, b->id)) return; /* everything dominates an unreachable use */
    unsigned k = 0;
    namebuf vn, bn;
    fmag_foreach_instr (i, b) {
        for (unsigned o = 0; o < i->nops; o++) {
            fmag_value *v = i->ops[o].value;
            if (!v || v->kind != FMAG_VALUE_RESULT || !value_in_func(st, v)) continue;
            fmag_block *db = v->def->block;
            if (!block_in_func(st, db)) continue;
            if (i->op == FMAG_OP_PHI) {
                fmag_block *from = i->phi_blocks ? i->phi_blocks[o] : NULL;
                if (from && block_in_func(st, from) && reachable(st, from->id) &&
                    !(reachable(st, db->id) && dominates(st, db->id, from->id)))
                    report(st, b, i,
                           "incoming value %s does not dominate the end of predecessor %s",
                           vstr(st, v, &vn), bstr(st, from, &bn));
            } else if (db == b) {
                if (st->pos[v->id] >= k)
                    report(st, b, i, "operand %s does not dominate this use%s", vstr(st, v, &vn),
                           v->def == i ? " (it is this instruction's own result)"
                                       : " (it is defined later in the block)");
            } else if (!reachable(st, db->id) || !dominates(st, db->id, b->id)) {
                report(st, b, i, "operand %s does not dominate this use (defined in %s%s)",
                       vstr(st, v, &vn), bstr(st, db, &bn),
                       reachable(st, db->id) ? "" : ", which is unreachable");
            }
        }
        k++;
    }
}

/* --------------------------------------------------------------- drivers */

static void vstate_free(vstate *st)
{
    fmag_tmp_free(st->blocks), fmag_tmp_free(st->vals), fmag_tmp_free(st->pos);
    fmag_preds_free(&st->preds);
    fmag_domtree_free(&st->dt);
}

static bool verify_func(fmag_func *f, bool module_checked)
{
    vstate st = {0};
    st.f = f;
    st.ctx = f->module->ctx;
    st.module_checked = module_checked;
    st.printable = true;
    st.cfg_ok = true;
    st.nameable = true;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            if (i->nresults && !i->results) st.nameable = st.printable = false;

    if (f->nresults < 1) report(&st, NULL, NULL, "a function has at least one result");
    if (!f->first) {
        report(&st, NULL, NULL, "function has no blocks (it needs an entry block)");
        st.printable = false;
        return flush_errors(&st);
    }
    for (unsigned p = 0; p < f->nparams; p++)
        if (f->params[p].kind != FMAG_VALUE_PARAM || f->params[p].func != f ||
            f->params[p].index != p)
            report(&st, NULL, NULL, "parameter %u does not point back to its function", p);

    fmag_func_renumber(f);
    st.nblocks = f->nblocks;
    st.nvalues = f->nvalues;
    st.blocks = fmag_tmp_calloc(st.nblocks ? st.nblocks : 1, sizeof *st.blocks);
    st.vals = fmag_tmp_calloc(st.nvalues ? st.nvalues : 1, sizeof *st.vals);
    st.pos = fmag_tmp_calloc(st.nvalues ? st.nvalues : 1, sizeof *st.pos);
    if (!st.blocks || !st.vals || !st.pos) {
        st.oom = true;
        bool ok = flush_errors(&st);
        vstate_free(&st);
        return ok;
    }
    check_structure(&st);

    size_t nuses = 0;
    fmag_foreach_block (b, f)
        fmag_foreach_instr (i, b)
            for (unsigned o = 0; o < i->nops; o++) {
                fmag_value *v = i->ops[o].value;
                if (v && value_in_func(&st, v)) nuses++;
            }
    if (st.nerrs == 0) check_use_lists(&st, nuses);

    if (!fmag_preds_build(f, NULL, 0, &st.preds) || !fmag_domtree_build(f, &st.dt)) {
        st.oom = true;
    } else {
        fmag_foreach_block (b, f)
            check_phis(&st, b);
        fmag_foreach_block (b, f)
            check_dominance(&st, b);
    }
    bool ok = flush_errors(&st);
    vstate_free(&st);
    return ok;
}

bool fmag_verify_func(fmag_func *f)
{
    return verify_func(f, false);
}

static int func_name_cmp(const void *a, const void *b)
{
    const fmag_func *f = *(fmag_func *const *)a, *g = *(fmag_func *const *)b;
    return strcmp(f->name, g->name);
}

static int func_ptr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (fmag_func *const *)a, y = (uintptr_t) * (fmag_func *const *)b;
    return (x > y) - (x < y);
}

/* The module's functions sorted by address (for the callee check) and by name (for
 * duplicates): linear-logarithmic, where a scan per function or per call made a
 * file of 20,000 functions take seconds. */
static bool fmag_verify_module_unguarded(fmag_module *m)
{
    bool ok = true;
    bool any_export = false, any_func = false;
    size_t nf = 0;
    fmag_foreach_func (f, m)
        nf++;
    fmag_func **byptr = fmag_tmp_malloc((nf + 1) * sizeof *byptr);
    fmag_func **byname = fmag_tmp_malloc((nf + 1) * sizeof *byname);
    size_t nnamed = 0;
    nf = 0;
    fmag_foreach_func (f, m) {
        byptr[nf++] = f;
        if (f->module == m && f->name && f->name[0]) byname[nnamed++] = f;
    }
    qsort(byptr, nf, sizeof *byptr, func_ptr_cmp);
    qsort(byname, nnamed, sizeof *byname, func_name_cmp);
    for (size_t k = 1; k < nnamed; k++)
        if (!strcmp(byname[k - 1]->name, byname[k]->name) &&
            (k < 2 || strcmp(byname[k - 2]->name, byname[k]->name))) {
            fmag_context_error(m->ctx, "error: function @%s is defined twice", byname[k]->name);
            ok = false;
        }
    fmag_foreach_func (f, m) {
        any_func = true;
        any_export |= f->is_export;
        if (f->module != m) {
            fmag_context_error(m->ctx, "error: function @%s's owner is another module",
                               f->name ? f->name : "<null>");
            ok = false;
            continue;
        }
        if (!f->name || !f->name[0]) {
            fmag_context_error(m->ctx, "error: a function has no name");
            ok = false;
        }
    }
    /* Calls may only name functions of this module: a call into an erased or foreign
     * function would dangle. One scan of the module per call is cheap next to the
     * rest, but do it once here so fmag_verify_func need not. */
    fmag_foreach_func (f, m)
        fmag_foreach_block (b, f)
            fmag_foreach_instr (i, b) {
                if (i->op == FMAG_OP_CALL && i->callee && i->callee->module == m &&
                    !bsearch(&i->callee, byptr, nf, sizeof *byptr, func_ptr_cmp)) {
                    fmag_context_error(
                        m->ctx,
                        "error: in function @%s: call to @%s, which is not in the module "
                        "(erased?)",
                        f->name ? f->name : "<null>", i->callee->name ? i->callee->name : "<null>");
                    ok = false;
                }
            }
    fmag_tmp_free(byptr);
    fmag_tmp_free(byname);
    fmag_foreach_func (f, m)
        if (f->module == m) ok &= verify_func(f, true);
    if (any_func && !any_export) {
        fmag_context_error(m->ctx, "error: module has no export function (an export is a "
                                   "program's entry point)");
        ok = false;
    }
    return ok;
}

/* The guarded entry point: an allocation failure inside ends in false with a
 * diagnostic (fmag_context_guard). */
struct fmag_verify_module_args {
    fmag_module *m;
    bool result;
};

static void fmag_verify_module_thunk(void *arg)
{
    struct fmag_verify_module_args *a = arg;
    a->result = fmag_verify_module_unguarded(a->m);
}

bool fmag_verify_module(fmag_module *m)
{
    struct fmag_verify_module_args a = {m, false};
    return fmag_context_guard(m->ctx, fmag_verify_module_thunk, &a) ? a.result : false;
}

/* ------------------------------------------------------------- recursion */

/* Iterative DFS with three colours over the call graph; a grey callee closes a cycle,
 * which the stack spells out. Function indices live in aux for the duration, and the
 * caller's aux values are put back. */
bool fmag_module_has_recursion(fmag_module *m)
{
    unsigned n = 0;
    fmag_foreach_func (f, m)
        n++;
    if (n == 0) return false;
    fmag_func **funcs = fmag_tmp_malloc(n * sizeof *funcs);
    void **saved = fmag_tmp_malloc(n * sizeof *saved);
    unsigned char *color = fmag_tmp_calloc(n, 1);
    unsigned *stack = fmag_tmp_malloc(n * sizeof *stack);
    fmag_block **cur_b = fmag_tmp_malloc(n * sizeof *cur_b);
    fmag_instr **cur_i = fmag_tmp_malloc(n * sizeof *cur_i);
    bool found = false;
    if (!funcs || !saved || !color || !stack || !cur_b || !cur_i) {
        fmag_context_error(m->ctx, "error: out of memory while looking for recursion");
        found = true; /* cannot prove there is none */
        goto out;
    }
    unsigned k = 0;
    fmag_foreach_func (f, m) {
        funcs[k] = f;
        saved[k] = f->aux;
        f->aux = (void *)(uintptr_t)k;
        k++;
    }
    for (unsigned root = 0; root < n && !found; root++) {
        if (color[root]) continue;
        unsigned sp = 0;
        stack[sp] = root;
        cur_b[sp] = funcs[root]->first;
        cur_i[sp] = cur_b[sp] ? cur_b[sp]->first : NULL;
        sp++;
        color[root] = 1;
        while (sp && !found) {
            unsigned top = sp - 1;
            /* Next call instruction of the function on top of the stack. */
            fmag_instr *call = NULL;
            while (cur_b[top] && !call) {
                while (cur_i[top] && !call) {
                    fmag_func *g = cur_i[top]->op == FMAG_OP_CALL ? cur_i[top]->callee : NULL;
                    uintptr_t gi = g && g->module == m ? (uintptr_t)g->aux : n;
                    if (gi < n && funcs[gi] == g) call = cur_i[top];
                    cur_i[top] = cur_i[top]->next;
                }
                if (!call) {
                    cur_b[top] = cur_b[top]->next;
                    cur_i[top] = cur_b[top] ? cur_b[top]->first : NULL;
                }
            }
            if (!call) {
                color[stack[top]] = 2;
                sp--;
                continue;
            }
            unsigned c = (unsigned)(uintptr_t)call->callee->aux;
            if (color[c] == 2) continue;
            if (color[c] == 1) {
                vbuf out = {0};
                vbuf_printf(&out, "error: recursion: ");
                unsigned from = 0;
                while (stack[from] != c)
                    from++;
                for (unsigned s = from; s < sp; s++)
                    vbuf_printf(&out, "@%s calls ", funcs[stack[s]]->name);
                vbuf_printf(&out, "@%s (a call graph cycle cannot be inlined)", funcs[c]->name);
                fmag_context_error(m->ctx, "%s",
                                   out.oom ? "error: recursion in the call graph" : out.s);
                fmag_tmp_free(out.s);
                found = true;
                break;
            }
            color[c] = 1;
            stack[sp] = c;
            cur_b[sp] = funcs[c]->first;
            cur_i[sp] = cur_b[sp] ? cur_b[sp]->first : NULL;
            sp++;
        }
    }
    for (unsigned j = 0; j < n; j++)
        funcs[j]->aux = saved[j];
out:
    fmag_tmp_free(funcs), fmag_tmp_free(saved), fmag_tmp_free(color);
    fmag_tmp_free(stack), fmag_tmp_free(cur_b), fmag_tmp_free(cur_i);
    return found;
}
