/* The .fmas assembler: line-oriented text (SPEC §1) to programs of a fmag_vm_image.
 * Errors are reported per line (the rest of the line is skipped), so one run shows
 * every bad line, each as "file:line:col: error: msg", the line and a caret. */
#include "AsmParserInternal.h"
#include "fmag/Asm.h"
#include "fmag/Bits.h"
#include "fmag/FloatText.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FMAS_MAX_ERRORS 20

typedef struct asm_state {
    fmag_context *ctx;
    const char *filename;
    const char *text; /* the whole source, for diagnostics */
    size_t text_len;
    const char *line; /* current line start */
    size_t line_len;
    unsigned lineno;
    const char *p, *end; /* cursor inside the current line */
    unsigned nerrors;

    /* The program being assembled. */
    bool in_def;
    char *name;
    unsigned def_line;
    uint16_t nin, nout, flags;
    long nderiv;                     /* .derivs N; -1 when absent */
    long regs_directive;             /* -1 when absent */
    const char *regs_line, *regs_at; /* where .regs was, for a later diagnostic */
    size_t regs_line_len;
    unsigned regs_lineno;
    uint32_t max_reg_plus1;
    fmag_vm_instr *code;
    uint32_t ninstr, cap;
    /* Every .def name so far, valid or not, for redefinitions: a hash set (open
     * addressing, seen_cap a power of two or 0), so a file of many programs stays
     * linear. */
    char **seen;
    size_t nseen, seen_cap;
} asm_state;

static void asm_error_at(asm_state *s, const char *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void asm_error_at(asm_state *s, const char *at, const char *fmt, ...)
{
    s->nerrors++;
    if (s->nerrors > FMAS_MAX_ERRORS) return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t col = at ? (size_t)(at - s->line) : 0;
    if (col > s->line_len) col = s->line_len;
    /* The printer the other readers use: the line cut at 200 bytes, control bytes
     * shown as '?', so a garbage or 800 KB line cannot flood the terminal. */
    fmag_context_source_error(s->ctx, s->filename, s->text, s->text_len,
                              (size_t)(s->line - s->text) + col, "%s", msg);
}

static void skip_space(asm_state *s)
{
    while (s->p < s->end &&
           (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\v' || *s->p == '\f'))
        s->p++;
}

static bool at_line_end(asm_state *s)
{
    skip_space(s);
    return s->p == s->end || *s->p == ';';
}

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '$';
}
static bool is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}
static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool expect_char(asm_state *s, char c, const char *what)
{
    skip_space(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    asm_error_at(s, s->p, "expected %s", what);
    return false;
}

/* An unsigned decimal integer <= max. */
static bool parse_uint(asm_state *s, unsigned long max, unsigned long *out, const char *what)
{
    skip_space(s);
    const char *start = s->p;
    if (s->p >= s->end || !is_digit(*s->p)) {
        asm_error_at(s, start, "expected %s (an unsigned integer)", what);
        return false;
    }
    unsigned long v = 0;
    bool overflow = false;
    while (s->p < s->end && is_digit(*s->p)) {
        v = v * 10 + (unsigned long)(*s->p - '0');
        if (v > max) overflow = true, v = max + 1;
        s->p++;
    }
    if (s->p < s->end && is_ident_char(*s->p)) {
        asm_error_at(s, start, "expected %s (an unsigned integer)", what);
        return false;
    }
    if (overflow) {
        asm_error_at(s, start, "%s is too large (at most %lu)", what, max);
        return false;
    }
    *out = v;
    return true;
}

/* %rN, with N a register index the encoding can hold. */
static bool parse_reg(asm_state *s, uint16_t *out, const char *what)
{
    skip_space(s);
    const char *start = s->p;
    if (s->end - s->p < 2 || s->p[0] != '%' || s->p[1] != 'r') {
        asm_error_at(s, start, "expected a register %%rN for %s", what);
        return false;
    }
    s->p += 2;
    if (s->p >= s->end || !is_digit(*s->p)) {
        asm_error_at(s, start, "expected a register number after %%r");
        return false;
    }
    unsigned long v = 0;
    while (s->p < s->end && is_digit(*s->p)) {
        v = v * 10 + (unsigned long)(*s->p - '0');
        if (v > 1000000) v = 1000000;
        s->p++;
    }
    if (s->p < s->end && is_ident_char(*s->p)) {
        asm_error_at(s, start, "invalid register name");
        return false;
    }
    /* regs is a u16, so the highest usable index is 65534. */
    if (v > FMAG_VM_MAX_REGS - 1) {
        asm_error_at(s, start, "register index %lu out of range (at most %u)", v,
                     FMAG_VM_MAX_REGS - 1);
        return false;
    }
    *out = (uint16_t)v;
    if (v + 1 > s->max_reg_plus1) s->max_reg_plus1 = (uint32_t)v + 1;
    return true;
}

/* A register or a float literal for the b, c or guard slot. */
static bool parse_operand(asm_state *s, fmag_vm_operand *op, const char *what)
{
    skip_space(s);
    if (s->p < s->end && *s->p == '%') {
        op->is_reg = true;
        op->imm = 0;
        return parse_reg(s, &op->reg, what);
    }
    const char *start = s->p;
    float f = 0;
    size_t n = fmag_parse_float(s->p, (size_t)(s->end - s->p), &f);
    if (n == 0) {
        asm_error_at(s, start, "expected a register or a float literal for %s", what);
        return false;
    }
    s->p += n;
    if (s->p < s->end && (is_ident_char(*s->p) || *s->p == '%' || *s->p == '+' || *s->p == '-')) {
        asm_error_at(s, start, "invalid float literal for %s", what);
        return false;
    }
    if (isnan(f)) {
        asm_error_at(s, start, "a NaN cannot be a literal (NaN words are register references)");
        return false;
    }
    if (isinf(f)) {
        asm_error_at(s, start, "literal %.*s is not a finite float32 (infinity cannot be encoded)",
                     (int)n, start);
        return false;
    }
    if (fmag_float_literal_underflows(start, n, f)) {
        asm_error_at(s, start,
                     "literal %.*s is too small for float32: it rounds to zero (the smallest "
                     "non-zero float32 is 1.4e-45; write 0.0 for zero)",
                     (int)n, start);
        return false;
    }
    op->is_reg = false;
    op->reg = 0;
    op->imm = f;
    return true;
}

/* A program name: an identifier, or a double-quoted string with \\, \" and \xHH
 * escapes so that any name from a .fmag file round-trips. */
static bool parse_name(asm_state *s, char **out)
{
    skip_space(s);
    const char *start = s->p;
    if (s->p < s->end && *s->p == '"') {
        s->p++;
        size_t cap = (size_t)(s->end - s->p) + 1, n = 0;
        char *buf = fmag_tmp_malloc(cap);
        if (!buf) {
            asm_error_at(s, start, "out of memory");
            return false;
        }
        while (s->p < s->end && *s->p != '"') {
            char c = *s->p++;
            if (c == '\\') {
                if (s->p >= s->end) break;
                char e = *s->p++;
                if (e == 'x' && s->end - s->p >= 2) {
                    unsigned v = 0;
                    bool ok = true;
                    for (int k = 0; k < 2; k++) {
                        char h = *s->p++;
                        v <<= 4;
                        if (is_digit(h))
                            v |= (unsigned)(h - '0');
                        else if ((h | 32) >= 'a' && (h | 32) <= 'f')
                            v |= (unsigned)((h | 32) - 'a' + 10);
                        else
                            ok = false;
                    }
                    if (!ok || v == 0) {
                        asm_error_at(s, s->p - 4, "invalid \\x escape in a program name");
                        fmag_tmp_free(buf);
                        return false;
                    }
                    c = (char)v;
                } else if (e == '\\' || e == '"') {
                    c = e;
                } else {
                    asm_error_at(s, s->p - 2, "unknown escape in a program name");
                    fmag_tmp_free(buf);
                    return false;
                }
            }
            buf[n++] = c;
        }
        if (s->p >= s->end) {
            asm_error_at(s, start, "unterminated program name");
            fmag_tmp_free(buf);
            return false;
        }
        s->p++;
        buf[n] = 0;
        if (fmag_vm_utf8_invalid_at((const unsigned char *)buf, n) < n) {
            /* A .fmag file cannot hold it (SPEC §1: names are UTF-8). */
            asm_error_at(s, start, "program name is not valid UTF-8");
            fmag_tmp_free(buf);
            return false;
        }
        *out = buf;
        return true;
    }
    if (s->p >= s->end || !is_ident_start(*s->p)) {
        asm_error_at(s, start, "expected a program name");
        return false;
    }
    while (s->p < s->end && is_ident_char(*s->p))
        s->p++;
    size_t n = (size_t)(s->p - start);
    char *buf = fmag_tmp_malloc(n + 1);
    if (!buf) {
        asm_error_at(s, start, "out of memory");
        return false;
    }
    memcpy(buf, start, n);
    buf[n] = 0;
    *out = buf;
    return true;
}

static void reset_def(asm_state *s)
{
    fmag_tmp_free(s->name);
    s->name = NULL;
    s->in_def = false;
    s->ninstr = 0;
    s->max_reg_plus1 = 0;
    s->regs_directive = -1;
    s->flags = 0;
    s->nderiv = -1;
}

/* Closes the current .def: infers or checks regs and appends the record. */
static void finish_def(asm_state *s, fmag_vm_image *img)
{
    if (!s->in_def) return;
    uint32_t need = s->max_reg_plus1;
    if (s->nin > need) need = s->nin;
    if (s->nout > need) need = s->nout;
    uint32_t regs = need;
    if (s->regs_directive >= 0) {
        if ((uint32_t)s->regs_directive < need) {
            /* Point at the .regs line: the program as a whole needs more. */
            const char *line = s->line;
            size_t line_len = s->line_len;
            unsigned lineno = s->lineno;
            s->line = s->regs_line;
            s->line_len = s->regs_line_len;
            s->lineno = s->regs_lineno;
            asm_error_at(s, s->regs_at,
                         ".regs %ld is smaller than the %u registers program '%s' uses",
                         s->regs_directive, (unsigned)need, s->name ? s->name : "?");
            s->line = line;
            s->line_len = line_len;
            s->lineno = lineno;
            reset_def(s);
            return;
        }
        regs = (uint32_t)s->regs_directive;
    }
    if (s->nderiv > 0 && 3 * s->nderiv > s->nin) {
        s->nerrors++;
        fmag_context_report(s->ctx, FMAG_DIAG_ERROR, s->filename, s->def_line, 1,
                            ".derivs %ld: program '%s' has %u inputs, fewer than the %ld "
                            "ordinary inputs and their x and y derivatives",
                            s->nderiv, s->name ? s->name : "?", (unsigned)s->nin, 3 * s->nderiv);
    }
    if (s->nderiv > 0) s->flags |= FMAG_VM_FLAG_DERIVS;
    if (s->nerrors == 0 && !fmag_vm_image_add(img, s->name, s->flags, (uint16_t)regs, s->nin,
                                              s->nout, s->code, s->ninstr)) {
        s->nerrors++;
        fmag_context_report(s->ctx, FMAG_DIAG_ERROR, s->filename, s->def_line, 1, "out of memory");
    } else if (s->nerrors == 0 && s->nderiv > 0) {
        img->programs[img->nprograms - 1].nderiv = (uint16_t)s->nderiv;
    }
    reset_def(s);
}

static size_t seen_slot(char **set, size_t cap, const char *name)
{
    size_t h = fmag_hash_bytes(name, strlen(name));
    for (h &= cap - 1; set[h] && strcmp(set[h], name); h = (h + 1) & (cap - 1))
        ;
    return h;
}

/* Records a .def name; a repeated one is the redefinition error. False when out of
 * memory. */
static bool seen_insert(asm_state *s, const char *name, const char *name_at)
{
    if ((s->nseen + 1) * 2 > s->seen_cap) {
        size_t cap = s->seen_cap ? s->seen_cap * 2 : 64;
        char **set = fmag_tmp_calloc(cap, sizeof *set);
        if (!set) return false;
        for (size_t i = 0; i < s->seen_cap; i++)
            if (s->seen[i]) set[seen_slot(set, cap, s->seen[i])] = s->seen[i];
        fmag_tmp_free(s->seen);
        s->seen = set, s->seen_cap = cap;
    }
    size_t k = seen_slot(s->seen, s->seen_cap, name);
    if (s->seen[k]) {
        asm_error_at(s, name_at, "redefinition of program '%s'", name);
        return true;
    }
    char *copy = fmag_tmp_malloc(strlen(name) + 1);
    if (!copy) return false;
    strcpy(copy, name);
    s->seen[k] = copy;
    s->nseen++;
    return true;
}

static void parse_directive(asm_state *s, fmag_vm_image *img)
{
    const char *start = s->p;
    s->p++;
    while (s->p < s->end && is_ident_char(*s->p))
        s->p++;
    size_t n = (size_t)(s->p - start);
    if (n == 4 && !memcmp(start, ".def", 4)) {
        finish_def(s, img);
        /* Even a bad .def opens a program, so its body does not cascade into
         * "outside a .def" errors. */
        s->in_def = true;
        s->def_line = s->lineno;
        s->nin = s->nout = 0;
        char *name = NULL;
        unsigned long nin, nout;
        skip_space(s);
        const char *name_at = s->p;
        if (!parse_name(s, &name)) {
            s->name = fmag_tmp_malloc(2);
            if (s->name) strcpy(s->name, "?");
            return;
        }
        s->name = name;
        if (strlen(name) > 0xFFFFu) {
            asm_error_at(s, name_at,
                         "program name is %zu bytes long; a program name holds at most 65535 "
                         "(the .fmag header's 16-bit length)",
                         strlen(name));
            return;
        }
        if (!expect_char(s, ',', "',' after the program name") ||
            !parse_uint(s, 0xFFFF, &nin, "the input count") ||
            !expect_char(s, ',', "',' after the input count") ||
            !parse_uint(s, 0xFFFF, &nout, "the output count"))
            return;
        if (!at_line_end(s)) {
            asm_error_at(s, s->p, "unexpected text after .def");
            return;
        }
        if (!seen_insert(s, name, name_at)) {
            asm_error_at(s, name_at, "out of memory");
            return;
        }
        s->nin = (uint16_t)nin;
        s->nout = (uint16_t)nout;
        return;
    }
    if (!s->in_def) {
        asm_error_at(s, start, "'%.*s' outside a .def", (int)n, start);
        return;
    }
    if (n == 5 && !memcmp(start, ".regs", 5)) {
        unsigned long v;
        if (s->regs_directive >= 0) {
            asm_error_at(s, start, "duplicate .regs in program '%s'", s->name ? s->name : "?");
            return;
        }
        if (!parse_uint(s, 0xFFFF, &v, "the register count")) return;
        if (!at_line_end(s)) {
            asm_error_at(s, s->p, "unexpected text after .regs");
            return;
        }
        s->regs_directive = (long)v;
        s->regs_line = s->line;
        s->regs_line_len = s->line_len;
        s->regs_lineno = s->lineno;
        s->regs_at = start;
        return;
    }
    if (n == 7 && !memcmp(start, ".derivs", 7)) {
        /* The program takes derivative inputs (SPEC 5b): N inputs carry them. */
        unsigned long v;
        if (s->nderiv >= 0) {
            asm_error_at(s, start, "duplicate .derivs in program '%s'", s->name ? s->name : "?");
            return;
        }
        if (!parse_uint(s, 0xFFFF, &v, "the count of inputs with derivatives")) return;
        if (!at_line_end(s)) {
            asm_error_at(s, s->p, "unexpected text after .derivs");
            return;
        }
        s->nderiv = (long)v;
        return;
    }
    if (n == 9 && !memcmp(start, ".fastmath", 9)) {
        if (!at_line_end(s)) {
            asm_error_at(s, s->p, "unexpected text after .fastmath");
            return;
        }
        s->flags |= FMAG_VM_FLAG_FASTMATH;
        return;
    }
    asm_error_at(s, start, "unknown directive '%.*s'", (int)n, start);
}

static void parse_instruction(asm_state *s)
{
    const char *start = s->p;
    if (!s->in_def) {
        asm_error_at(s, start, "instruction outside a .def");
        return;
    }
    fmag_vm_decoded x;
    if (!parse_reg(s, &x.d, "the destination") || !expect_char(s, '=', "'='")) return;
    skip_space(s);
    const char *mn = s->p;
    while (s->p < s->end && is_ident_char(*s->p))
        s->p++;
    if ((size_t)(s->p - mn) != 4 || memcmp(mn, "fmag", 4) != 0) {
        asm_error_at(s, mn, "expected 'fmag' (the only instruction)");
        return;
    }
    skip_space(s);
    if (s->p < s->end && *s->p != '%') {
        asm_error_at(s, s->p, "operand a must be a register (%%rN), not a literal");
        return;
    }
    if (!parse_reg(s, &x.a, "operand a") || !expect_char(s, ',', "',' after operand a") ||
        !parse_operand(s, &x.b, "operand b") || !expect_char(s, ',', "',' after operand b") ||
        !parse_operand(s, &x.c, "operand c") || !expect_char(s, ',', "',' after operand c") ||
        !parse_operand(s, &x.g, "the guard"))
        return;
    if (!at_line_end(s)) {
        asm_error_at(s, s->p, "unexpected text after the instruction");
        return;
    }
    if (s->ninstr == UINT32_MAX) {
        asm_error_at(s, start, "too many instructions");
        return;
    }
    if (s->ninstr == s->cap) {
        uint32_t ncap = s->cap ? (s->cap > UINT32_MAX / 2 ? UINT32_MAX : s->cap * 2) : 64;
        fmag_vm_instr *nc = fmag_tmp_realloc(s->code, (size_t)ncap * sizeof(fmag_vm_instr));
        if (!nc) {
            asm_error_at(s, start, "out of memory");
            return;
        }
        s->code = nc;
        s->cap = ncap;
    }
    char err[200];
    if (!fmag_vm_encode(&x, &s->code[s->ninstr], err, sizeof err)) {
        asm_error_at(s, start, "%s", err);
        return;
    }
    s->ninstr++;
}

static bool fmag_asm_parse_unguarded(fmag_context *ctx, const char *filename, const char *text,
                                     size_t len, fmag_vm_image *img)
{
    asm_state s = {0};
    s.ctx = ctx;
    s.filename = filename ? filename : "<input>";
    s.regs_directive = -1;
    s.nderiv = -1;
    size_t first_program = img->nprograms;
    if (fmag_asm_refuse_binary(ctx, s.filename, &text, &len, ".fmas",
                               "disassemble it with fmag-as -d"))
        return false;
    s.text = text;
    s.text_len = len;
    const char *cur = text, *text_end = text + len;
    while (cur < text_end) {
        const char *nl = memchr(cur, '\n', (size_t)(text_end - cur));
        const char *eol = nl ? nl : text_end;
        s.lineno++;
        s.line = cur;
        s.line_len = (size_t)(eol - cur);
        s.p = cur;
        s.end = eol;
        if (memchr(cur, '\0', s.line_len)) {
            asm_error_at(&s, (const char *)memchr(cur, '\0', s.line_len), "NUL byte in the source");
        } else if (!at_line_end(&s)) {
            if (*s.p == '.')
                parse_directive(&s, img);
            else
                parse_instruction(&s);
        }
        cur = nl ? nl + 1 : text_end;
    }
    finish_def(&s, img);
    if (s.nerrors == 0 && img->nprograms == first_program) {
        s.nerrors++;
        fmag_context_report(ctx, FMAG_DIAG_ERROR, s.filename, s.lineno ? s.lineno : 1, 1,
                            "no programs (expected '.def name, inputs, "
                            "outputs')");
    }
    if (s.nerrors > FMAS_MAX_ERRORS)
        fmag_context_report(ctx, FMAG_DIAG_ERROR, s.filename, 0, 0,
                            "too many errors (%u), stopping the list", s.nerrors);
    fmag_tmp_free(s.code);
    fmag_tmp_free(s.name);
    for (size_t i = 0; i < s.seen_cap; i++)
        fmag_tmp_free(s.seen[i]);
    fmag_tmp_free(s.seen);
    if (s.nerrors) {
        /* All or nothing: drop the records this call appended. */
        while (img->nprograms > first_program) {
            fmag_vm_program *p = &img->programs[--img->nprograms];
            free(p->name);
            free(p->code);
        }
        if (img->nprograms == 0) {
            free(img->programs);
            img->programs = NULL;
        }
        return false;
    }
    return true;
}

/* The guarded entry point: an allocation failure inside ends in false with a
 * diagnostic (fmag_context_guard). */
struct fmag_asm_parse_args {
    fmag_context *ctx;
    const char *filename;
    const char *text;
    size_t len;
    fmag_vm_image *img;
    bool result;
};

static void fmag_asm_parse_thunk(void *arg)
{
    struct fmag_asm_parse_args *a = arg;
    a->result = fmag_asm_parse_unguarded(a->ctx, a->filename, a->text, a->len, a->img);
}

bool fmag_asm_parse(fmag_context *ctx, const char *filename, const char *text, size_t len,
                    fmag_vm_image *img)
{
    struct fmag_asm_parse_args a = {ctx, filename, text, len, img, false};
    return fmag_context_guard(ctx, fmag_asm_parse_thunk, &a) ? a.result : false;
}
