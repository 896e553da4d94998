/* The .fir parser: text -> fmag_module (SPEC §2). A recursive-descent parser over
 * a small lexer. Function signatures are read in a first pass so calls may name a
 * function defined later; values and blocks may be used before their definition
 * (phis, dominance across blocks) and are resolved at the end of each function. */
#include "AsmParserInternal.h"
#include "fmag/Bits.h"
#include "fmag/IR.h"
#include "fmag/FloatText.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum tok_kind {
    TOK_EOF,
    TOK_IDENT,  /* keyword or opcode */
    TOK_LOCAL,  /* %name */
    TOK_GLOBAL, /* @name */
    TOK_LABEL,  /* ^name */
    TOK_NUMBER,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_LBRACE,
    TOK_RBRACE,
    TOK_LBRACK,
    TOK_RBRACK,
    TOK_COMMA,
    TOK_EQUAL,
    TOK_COLON,
    TOK_ARROW,
    TOK_ERROR,
} tok_kind;

typedef struct token {
    tok_kind kind;
    size_t off, len;   /* whole token */
    size_t noff, nlen; /* name part for %/@/^ */
    float num;
} token;

/* One named value slot of the function being parsed. */
typedef struct name_entry {
    const char *name;
    fmag_value *value;
    fmag_func *func; /* in the function table */
    bool defined;
    size_t first_use; /* offset, for "undefined value" */
} name_entry;

typedef struct name_table {
    name_entry *slots;
    size_t cap, count;
} name_table;

typedef struct block_entry {
    const char *name;
    fmag_block *block;
    bool defined;
    size_t first_use;
} block_entry;

typedef struct parser {
    fmag_context *ctx;
    const char *file, *src;
    size_t len, pos;
    token tok;
    bool failed;
    fmag_module *m;
    fmag_func *fn;
    name_table values;
    name_table funcs; /* the module's functions by name: lookups stay linear overall */
    block_entry *blocks;
    size_t nblocks, capblocks;
    size_t *block_slots; /* open addressing: index + 1 into blocks, 0 = empty */
    size_t block_cap;
} parser;

/* ------------------------------------------------------------------ lexer */

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '$';
}

static void error_at(parser *p, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void error_at(parser *p, size_t off, const char *fmt, ...)
{
    if (p->failed) return;
    p->failed = true;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fmag_context_source_error(p->ctx, p->file, p->src, p->len, off, "%s", msg);
}

static void next(parser *p)
{
    const char *s = p->src;
    size_t n = p->len, i = p->pos;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            i++;
        if (i < n && s[i] == ';') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    token t = {TOK_EOF, i, 0, 0, 0, 0};
    if (i >= n) {
        p->tok = t;
        p->pos = i;
        return;
    }
    char c = s[i];
    switch (c) {
    case '(':
        t.kind = TOK_LPAREN;
        t.len = 1;
        break;
    case ')':
        t.kind = TOK_RPAREN;
        t.len = 1;
        break;
    case '{':
        t.kind = TOK_LBRACE;
        t.len = 1;
        break;
    case '}':
        t.kind = TOK_RBRACE;
        t.len = 1;
        break;
    case '[':
        t.kind = TOK_LBRACK;
        t.len = 1;
        break;
    case ']':
        t.kind = TOK_RBRACK;
        t.len = 1;
        break;
    case ',':
        t.kind = TOK_COMMA;
        t.len = 1;
        break;
    case '=':
        t.kind = TOK_EQUAL;
        t.len = 1;
        break;
    case ':':
        t.kind = TOK_COLON;
        t.len = 1;
        break;
    case '%':
    case '@':
    case '^': {
        size_t j = i + 1;
        while (j < n && is_name_char(s[j]))
            j++;
        t.kind = c == '%' ? TOK_LOCAL : c == '@' ? TOK_GLOBAL : TOK_LABEL;
        t.noff = i + 1;
        t.nlen = j - i - 1;
        t.len = j - i;
        if (!t.nlen) {
            t.kind = TOK_ERROR;
            t.len = 1;
        }
        break;
    }
    default:
        if (c == '-' && i + 1 < n && s[i + 1] == '>') {
            t.kind = TOK_ARROW;
            t.len = 2;
            break;
        }
        if ((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+') {
            size_t used = fmag_parse_float(s + i, n - i, &t.num);
            if (used && !(i + used < n && is_name_char(s[i + used]) && s[i + used] != '.')) {
                t.kind = TOK_NUMBER;
                t.len = used;
                break;
            }
            t.kind = TOK_ERROR;
            t.len = used ? used : 1;
            break;
        }
        if (is_name_char(c)) {
            size_t j = i;
            while (j < n && is_name_char(s[j]))
                j++;
            t.kind = TOK_IDENT;
            t.len = j - i;
            if ((t.len == 3 && (!strncmp(s + i, "inf", 3) || !strncmp(s + i, "nan", 3)))) {
                fmag_parse_float(s + i, n - i, &t.num);
                t.kind = TOK_NUMBER;
            }
            break;
        }
        t.kind = TOK_ERROR;
        t.len = 1;
        break;
    }
    p->tok = t;
    p->pos = i + t.len;
}

static bool tok_is(parser *p, const char *word)
{
    size_t l = strlen(word);
    return p->tok.kind == TOK_IDENT && p->tok.len == l && !strncmp(p->src + p->tok.off, word, l);
}

static const char *tok_desc(parser *p, char *buf, size_t len)
{
    if (p->tok.kind == TOK_EOF) return "end of file";
    if (p->tok.kind == TOK_ERROR) {
        unsigned char c = (unsigned char)p->src[p->tok.off];
        if (c < 32 || c >= 127)
            snprintf(buf, len, "invalid byte 0x%02x", c);
        else
            snprintf(buf, len, "invalid character '%c'", c);
        return buf;
    }
    size_t l = p->tok.len > 40 ? 40 : p->tok.len;
    snprintf(buf, len, "'%.*s'", (int)l, p->src + p->tok.off);
    return buf;
}

static bool expect(parser *p, tok_kind k, const char *what)
{
    if (p->tok.kind == k) {
        next(p);
        return true;
    }
    char buf[64];
    error_at(p, p->tok.off, "expected %s, found %s", what, tok_desc(p, buf, sizeof buf));
    return false;
}

static const char *tok_name(parser *p)
{
    return fmag_context_strdup(p->ctx, p->src + p->tok.noff, p->tok.nlen);
}

/* ------------------------------------------------------------ name tables */

static name_entry *table_lookup(parser *p, name_table *t, const char *s, size_t len, bool create)
{
    if (create && (t->count + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 64;
        name_entry *slots = fmag_tmp_calloc(ncap, sizeof(*slots));
        assert(slots); /* in a guard: fmag_tmp_* unwind, never NULL */
        for (size_t k = 0; k < t->cap; k++) {
            if (!t->slots[k].name) continue;
            size_t h = fmag_hash_bytes(t->slots[k].name, strlen(t->slots[k].name)) & (ncap - 1);
            while (slots[h].name)
                h = (h + 1) & (ncap - 1);
            slots[h] = t->slots[k];
        }
        fmag_tmp_free(t->slots);
        t->slots = slots;
        t->cap = ncap;
    }
    if (!t->cap) return NULL;
    size_t h = fmag_hash_bytes(s, len) & (t->cap - 1);
    while (t->slots[h].name) {
        if (strlen(t->slots[h].name) == len && !strncmp(t->slots[h].name, s, len))
            return &t->slots[h];
        h = (h + 1) & (t->cap - 1);
    }
    if (!create) return NULL;
    t->slots[h].name = fmag_context_strdup(p->ctx, s, len);
    t->count++;
    return &t->slots[h];
}

static name_entry *values_lookup(parser *p, const char *s, size_t len, bool create)
{
    return table_lookup(p, &p->values, s, len, create);
}

static fmag_func *func_lookup(parser *p, const char *name)
{
    name_entry *e = table_lookup(p, &p->funcs, name, strlen(name), false);
    return e ? e->func : NULL;
}

static void values_reset(parser *p)
{
    fmag_tmp_free(p->values.slots);
    memset(&p->values, 0, sizeof p->values);
    fmag_tmp_free(p->blocks);
    p->blocks = NULL;
    p->nblocks = p->capblocks = 0;
    fmag_tmp_free(p->block_slots);
    p->block_slots = NULL;
    p->block_cap = 0;
}

static void block_slots_insert(parser *p, size_t index)
{
    const char *name = p->blocks[index].name;
    size_t h = fmag_hash_bytes(name, strlen(name)) & (p->block_cap - 1);
    while (p->block_slots[h])
        h = (h + 1) & (p->block_cap - 1);
    p->block_slots[h] = index + 1;
}

/* A use of %name: the defined value, or a placeholder resolved at its definition. */
static fmag_value *use_value(parser *p)
{
    name_entry *e = values_lookup(p, p->src + p->tok.noff, p->tok.nlen, true);
    if (!e->value) {
        e->value = fmag_context_alloc(p->ctx, sizeof(fmag_value));
        e->value->kind = FMAG_VALUE_RESULT; /* placeholder: def stays NULL */
        e->value->func = p->fn;
        e->first_use = p->tok.off;
    }
    next(p);
    return e->value;
}

static bool define_value(parser *p, const token *t, fmag_value *v)
{
    name_entry *e = values_lookup(p, p->src + t->noff, t->nlen, true);
    if (e->defined) {
        error_at(p, t->off, "redefinition of value '%%%s'", e->name);
        return false;
    }
    if (e->value) fmag_value_replace_all_uses(e->value, v);
    e->value = v;
    e->defined = true;
    v->name = e->name;
    return true;
}

static block_entry *lookup_block(parser *p, const char *s, size_t len, size_t off)
{
    if (p->block_cap) {
        size_t h = fmag_hash_bytes(s, len) & (p->block_cap - 1);
        while (p->block_slots[h]) {
            block_entry *e = &p->blocks[p->block_slots[h] - 1];
            if (strlen(e->name) == len && !strncmp(e->name, s, len)) return e;
            h = (h + 1) & (p->block_cap - 1);
        }
    }
    if (p->nblocks == p->capblocks) {
        p->capblocks = p->capblocks ? p->capblocks * 2 : 16;
        p->blocks = fmag_tmp_realloc(p->blocks, p->capblocks * sizeof(*p->blocks));
        assert(p->blocks); /* in a guard: fmag_tmp_* unwind, never NULL */
    }
    if ((p->nblocks + 1) * 2 > p->block_cap) {
        fmag_tmp_free(p->block_slots);
        p->block_cap = p->block_cap ? p->block_cap * 2 : 64;
        p->block_slots = fmag_tmp_calloc(p->block_cap, sizeof(size_t));
        assert(p->block_slots); /* in a guard: fmag_tmp_* unwind, never NULL */
        for (size_t k = 0; k < p->nblocks; k++)
            block_slots_insert(p, k);
    }
    block_entry *e = &p->blocks[p->nblocks++];
    e->name = fmag_context_strdup(p->ctx, s, len);
    e->block = fmag_context_alloc(p->ctx, sizeof(fmag_block));
    e->block->name = e->name;
    e->block->func = p->fn;
    e->defined = false;
    e->first_use = off;
    block_slots_insert(p, p->nblocks - 1);
    return e;
}

static fmag_block *use_block(parser *p)
{
    if (p->tok.kind != TOK_LABEL) {
        char buf[64];
        error_at(p, p->tok.off, "expected a block label '^name', found %s",
                 tok_desc(p, buf, sizeof buf));
        return NULL;
    }
    block_entry *e = lookup_block(p, p->src + p->tok.noff, p->tok.nlen, p->tok.off);
    next(p);
    return e->block;
}

/* ---------------------------------------------------------- instructions */

static fmag_value *parse_operand(parser *p)
{
    if (p->tok.kind == TOK_LOCAL) return use_value(p);
    if (p->tok.kind == TOK_NUMBER) {
        if (!isfinite(p->tok.num)) {
            error_at(p, p->tok.off,
                     "literal '%.*s' is not a finite float32 (NaN and infinity are never "
                     "literals; a decimal beyond 3.4028235e38 rounds to infinity)",
                     (int)(p->tok.len > 40 ? 40 : p->tok.len), p->src + p->tok.off);
            return NULL;
        }
        if (fmag_float_literal_underflows(p->src + p->tok.off, p->tok.len, p->tok.num)) {
            error_at(p, p->tok.off,
                     "literal '%.*s' is too small for float32: it rounds to zero (the smallest "
                     "non-zero float32 is 1.4e-45; write 0.0 for zero)",
                     (int)(p->tok.len > 40 ? 40 : p->tok.len), p->src + p->tok.off);
            return NULL;
        }
        fmag_value *v = fmag_module_const(p->m, p->tok.num);
        next(p);
        return v;
    }
    char buf[64];
    error_at(p, p->tok.off, "expected a value (%%name or a float literal), found %s",
             tok_desc(p, buf, sizeof buf));
    return NULL;
}

/* An integer literal at offset `off`: decimal with an optional '-' (-2^31 .. 2^32-1)
 * or hex `0x` with up to 8 digits, taken modulo 2^32. Returns its length, 0 if none. */
static size_t scan_int(const char *s, size_t n, uint32_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    uint64_t v = 0;
    size_t start = i;
    if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        i += 2;
        start = i;
        while (i < n && i - start < 9 &&
               ((s[i] >= '0' && s[i] <= '9') || ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'f')))
            v = v * 16 + (uint64_t)(s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10), i++;
        if (i == start || i - start > 8) return 0;
    } else {
        while (i < n && s[i] >= '0' && s[i] <= '9' && v <= 0xFFFFFFFFull)
            v = v * 10 + (uint64_t)(s[i] - '0'), i++;
        if (i == start || v > (neg ? 0x80000000ull : 0xFFFFFFFFull)) return 0;
    }
    if (i < n && (is_name_char(s[i]) || s[i] == '.')) return 0;
    *out = neg ? (uint32_t)(0u - (uint32_t)v) : (uint32_t)v;
    return i;
}

/* An operand where a value of type t is expected: a %name (its type is the
 * verifier's to check), or a literal of that type. */
static fmag_value *parse_operand_typed(parser *p, fmag_type t)
{
    if (t == FMAG_TYPE_F32 || p->tok.kind == TOK_LOCAL) return parse_operand(p);
    uint32_t bits;
    size_t used = scan_int(p->src + p->tok.off, p->len - p->tok.off, &bits);
    if (!used || p->tok.kind == TOK_EOF) {
        char buf[64];
        error_at(p, p->tok.off,
                 "expected an i32 value (%%name, or an integer literal from -2147483648 to "
                 "4294967295 or 0x0 to 0xFFFFFFFF), found %s",
                 tok_desc(p, buf, sizeof buf));
        return NULL;
    }
    p->pos = p->tok.off + used;
    next(p);
    return fmag_module_const_i32(p->m, bits);
}

/* `: i32` / `: f32` after a parameter, or nothing (f32). */
static bool parse_type(parser *p, fmag_type *t)
{
    if (tok_is(p, "i32") || tok_is(p, "f32")) {
        *t = tok_is(p, "i32") ? FMAG_TYPE_I32 : FMAG_TYPE_F32;
        next(p);
        return true;
    }
    char buf[64];
    error_at(p, p->tok.off, "expected a type (f32 or i32), found %s", tok_desc(p, buf, sizeof buf));
    return false;
}

/* Comma-separated operands, exactly n of them (or any number when n < 0). */
static int parse_operands(parser *p, fmag_value **ops, int n, int max, const char *opname)
{
    int k = 0;
    size_t start = p->tok.off;
    for (;;) {
        if (k >= max) {
            error_at(p, p->tok.off, "too many operands for '%s'", opname);
            return -1;
        }
        ops[k] = parse_operand(p);
        if (!ops[k]) return -1;
        k++;
        if (p->tok.kind != TOK_COMMA) break;
        next(p);
    }
    if (n >= 0 && k != n) {
        error_at(p, start, "'%s' takes %d operand%s, found %d", opname, n, n == 1 ? "" : "s", k);
        return -1;
    }
    return k;
}

/* The arithmetic forms the parser reads: fmag and the sugar of fmag/Sugar.def that
 * .fir spells; each builds plain fmag through the builder. */
typedef enum sugar_kind {
    S_FMAG,
#define FMAG_SUGAR(NAME, NOPS, A, B, C, D, E) S_##NAME,
#define FMAG_SUGAR_SELECT(NAME, NOPS, FIR, T, F, G) S_##NAME,
#include "fmag/Sugar.def"
#undef FMAG_SUGAR
#undef FMAG_SUGAR_SELECT
} sugar_kind;

#define SUGAR_FIR_1(NAME, NOPS) {#NAME, S_##NAME, NOPS},
#define SUGAR_FIR_0(NAME, NOPS)
static const struct {
    const char *name;
    sugar_kind kind;
    int nops;
} arith_forms[] = {
    {"fmag", S_FMAG, 5},
#define FMAG_SUGAR(NAME, NOPS, A, B, C, D, E) SUGAR_FIR_1(NAME, NOPS)
#define FMAG_SUGAR_SELECT(NAME, NOPS, FIR, T, F, G) SUGAR_FIR_##FIR(NAME, NOPS)
#include "fmag/Sugar.def"
#undef FMAG_SUGAR
#undef FMAG_SUGAR_SELECT
};
#undef SUGAR_FIR_0
#undef SUGAR_FIR_1

static fmag_value *build_arith(fmag_builder *b, sugar_kind k, fmag_value **o)
{
    switch (k) {
    case S_FMAG:
        return fmag_build_fmag(b, o[0], o[1], o[2], o[3], o[4]);
#define SUGAR_ARGS_1 (b, o[0])
#define SUGAR_ARGS_2 (b, o[0], o[1])
#define SUGAR_ARGS_3 (b, o[0], o[1], o[2])
#define FMAG_SUGAR(NAME, NOPS, A, B, C, D, E)                                                      \
    case S_##NAME:                                                                                 \
        return fmag_build_##NAME SUGAR_ARGS_##NOPS;
#define FMAG_SUGAR_SELECT(NAME, NOPS, FIR, T, F, G) FMAG_SUGAR(NAME, NOPS, , , , , )
#include "fmag/Sugar.def"
#undef FMAG_SUGAR
#undef FMAG_SUGAR_SELECT
#undef SUGAR_ARGS_1
#undef SUGAR_ARGS_2
#undef SUGAR_ARGS_3
    }
    return NULL;
}

enum { MAX_RESULTS = 256 };

/* Returns true when the instruction was a terminator. */
static bool parse_instr(parser *p, fmag_builder *b, bool *terminated)
{
    token results[MAX_RESULTS];
    unsigned nres = 0;
    *terminated = false;
    if (p->tok.kind == TOK_LOCAL) {
        for (;;) {
            if (p->tok.kind != TOK_LOCAL) {
                char buf[64];
                error_at(p, p->tok.off, "expected a result name '%%name', found %s",
                         tok_desc(p, buf, sizeof buf));
                return false;
            }
            if (nres == MAX_RESULTS) {
                error_at(p, p->tok.off, "too many results");
                return false;
            }
            results[nres++] = p->tok;
            next(p);
            if (p->tok.kind != TOK_COMMA) break;
            next(p);
        }
        if (!expect(p, TOK_EQUAL, "'='")) return false;
    }
    if (p->tok.kind != TOK_IDENT) {
        char buf[64];
        error_at(p, p->tok.off, "expected an instruction, found %s", tok_desc(p, buf, sizeof buf));
        return false;
    }
    token optok = p->tok;
    char opname[32];
    snprintf(opname, sizeof opname, "%.*s", (int)(optok.len > 31 ? 31 : optok.len),
             p->src + optok.off);
    next(p);

    for (size_t k = 0; k < sizeof arith_forms / sizeof arith_forms[0]; k++) {
        if (strcmp(opname, arith_forms[k].name)) continue;
        if (nres != 1) {
            error_at(p, optok.off, "'%s' produces one result, %u named", opname, nres);
            return false;
        }
        fmag_value *ops[5];
        if (parse_operands(p, ops, arith_forms[k].nops, 5, opname) < 0) return false;
        fmag_value *v = build_arith(b, arith_forms[k].kind, ops);
        return define_value(p, &results[0], v);
    }
    for (unsigned op = 0; op < FMAG_IOP_COUNT; op++) {
        if (strcmp(opname, fmag_int_op_name(op))) continue;
        if (nres != 1) {
            error_at(p, optok.off, "'%s' produces one result, %u named", opname, nres);
            return false;
        }
        unsigned n = fmag_int_op_nops(op);
        fmag_value *ops[3] = {NULL, NULL, NULL};
        size_t start = optok.off;
        for (unsigned k = 0; k < n; k++) {
            if (k && !expect(p, TOK_COMMA, "','")) {
                error_at(p, start, "'%s' takes %u operand%s", opname, n, n == 1 ? "" : "s");
                return false;
            }
            if (!(ops[k] = parse_operand_typed(p, fmag_int_op_operand_type(op, k)))) return false;
        }
        if (p->tok.kind == TOK_COMMA) {
            error_at(p, start, "'%s' takes %u operand%s", opname, n, n == 1 ? "" : "s");
            return false;
        }
        fmag_value *v = fmag_build_int(b, op, ops[0], ops[1], ops[2]);
        return define_value(p, &results[0], v);
    }
    if (!strcmp(opname, "phi")) {
        if (nres != 1) {
            error_at(p, optok.off, "'phi' produces one result, %u named", nres);
            return false;
        }
        fmag_type pt = FMAG_TYPE_F32;
        if (p->tok.kind == TOK_IDENT && !parse_type(p, &pt)) return false;
        fmag_instr *phi = fmag_build_phi_typed(b, pt);
        for (;;) {
            if (!expect(p, TOK_LBRACK, "'[' starting a phi operand")) return false;
            fmag_value *v = parse_operand_typed(p, pt);
            if (!v || !expect(p, TOK_COMMA, "','")) return false;
            fmag_block *from = use_block(p);
            if (!from || !expect(p, TOK_RBRACK, "']'")) return false;
            fmag_phi_add_incoming(phi, v, from);
            if (p->tok.kind != TOK_COMMA) break;
            next(p);
        }
        return define_value(p, &results[0], &phi->results[0]);
    }
    if (!strcmp(opname, "call")) {
        if (p->tok.kind != TOK_GLOBAL) {
            error_at(p, p->tok.off, "expected a function name '@name' after 'call'");
            return false;
        }
        char *name = fmag_context_strdup(p->ctx, p->src + p->tok.noff, p->tok.nlen);
        fmag_func *callee = func_lookup(p, name);
        if (!callee) {
            error_at(p, p->tok.off, "call to undefined function '@%s'", name);
            return false;
        }
        size_t calloff = p->tok.off;
        next(p);
        if (!expect(p, TOK_LPAREN, "'('")) return false;
        fmag_value **args = NULL;
        unsigned nargs = 0, cap = 0;
        if (p->tok.kind != TOK_RPAREN) {
            for (;;) {
                fmag_value *v = parse_operand_typed(
                    p, nargs < callee->nparams ? callee->params[nargs].type : FMAG_TYPE_F32);
                if (!v) {
                    fmag_tmp_free(args);
                    return false;
                }
                if (nargs == cap) {
                    cap = cap ? cap * 2 : 8;
                    args = fmag_tmp_realloc(args, cap * sizeof(*args));
                    assert(args); /* in a guard: fmag_tmp_* unwind, never NULL */
                }
                args[nargs++] = v;
                if (p->tok.kind != TOK_COMMA) break;
                next(p);
            }
        }
        if (!expect(p, TOK_RPAREN, "')'")) {
            fmag_tmp_free(args);
            return false;
        }
        if (nargs != callee->nparams) {
            fmag_tmp_free(args);
            error_at(p, calloff, "'@%s' takes %u argument%s, %u given", callee->name,
                     callee->nparams, callee->nparams == 1 ? "" : "s", nargs);
            return false;
        }
        if (nres != callee->nresults) {
            fmag_tmp_free(args);
            error_at(p, optok.off, "'@%s' returns %u value%s, %u named", callee->name,
                     callee->nresults, callee->nresults == 1 ? "" : "s", nres);
            return false;
        }
        fmag_instr *call = fmag_build_call(b, callee, args, nargs);
        fmag_tmp_free(args);
        for (unsigned k = 0; k < nres; k++)
            if (!define_value(p, &results[k], &call->results[k])) return false;
        return true;
    }
    bool is_br = !strcmp(opname, "br"), is_jmp = !strcmp(opname, "jmp"),
         is_ret = !strcmp(opname, "ret");
    if (!is_br && !is_jmp && !is_ret) {
        error_at(p, optok.off, "unknown instruction '%s'", opname);
        return false;
    }
    if (nres) {
        error_at(p, results[0].off, "'%s' produces no result", opname);
        return false;
    }
    *terminated = true;
    if (is_br) {
        fmag_value *g = parse_operand(p);
        if (!g || !expect(p, TOK_COMMA, "','")) return false;
        fmag_block *t = use_block(p);
        if (!t || !expect(p, TOK_COMMA, "','")) return false;
        fmag_block *e = use_block(p);
        if (!e) return false;
        fmag_build_br(b, g, t, e);
        return true;
    }
    if (is_jmp) {
        fmag_block *t = use_block(p);
        if (!t) return false;
        fmag_build_jmp(b, t);
        return true;
    }
    unsigned n = p->fn->nresults;
    fmag_value **vals = fmag_tmp_calloc(n ? n : 1, sizeof(*vals));
    assert(vals); /* in a guard: fmag_tmp_* unwind, never NULL */
    unsigned k = 0;
    size_t retoff = optok.off;
    if (p->tok.kind == TOK_LOCAL || p->tok.kind == TOK_NUMBER ||
        (k < n && fmag_func_result_type(p->fn, k) == FMAG_TYPE_I32 && p->tok.kind == TOK_ERROR)) {
        for (;;) {
            fmag_value *v =
                parse_operand_typed(p, k < n ? fmag_func_result_type(p->fn, k) : FMAG_TYPE_F32);
            if (!v) {
                fmag_tmp_free(vals);
                return false;
            }
            if (k < n) vals[k] = v;
            k++;
            if (p->tok.kind != TOK_COMMA) break;
            next(p);
        }
    }
    if (k != n) {
        fmag_tmp_free(vals);
        error_at(p, retoff, "'ret' in '@%s' must return %u value%s, found %u", p->fn->name, n,
                 n == 1 ? "" : "s", k);
        return false;
    }
    fmag_build_ret(b, vals, n);
    fmag_tmp_free(vals);
    return true;
}

/* -------------------------------------------------------------- functions */

/* Parses `[export] func @name(%a, ...) -> N {`; creates the function when `create`. */
static fmag_func *parse_header(parser *p, bool create)
{
    bool is_export = false;
    if (tok_is(p, "export")) {
        is_export = true;
        next(p);
    }
    if (!tok_is(p, "func")) {
        char buf[64];
        error_at(p, p->tok.off, "expected 'func' or 'export func', found %s",
                 tok_desc(p, buf, sizeof buf));
        return NULL;
    }
    next(p);
    if (p->tok.kind != TOK_GLOBAL) {
        char buf[64];
        error_at(p, p->tok.off, "expected a function name '@name', found %s",
                 tok_desc(p, buf, sizeof buf));
        return NULL;
    }
    token nametok = p->tok;
    const char *name = tok_name(p);
    next(p);
    if (!expect(p, TOK_LPAREN, "'('")) return NULL;
    token params[1024];
    fmag_type ptypes[1024];
    fmag_type rtypes[1024];
    bool typed_results = false;
    unsigned np = 0;
    if (p->tok.kind != TOK_RPAREN) {
        for (;;) {
            if (p->tok.kind != TOK_LOCAL) {
                char buf[64];
                error_at(p, p->tok.off, "expected a parameter '%%name', found %s",
                         tok_desc(p, buf, sizeof buf));
                return NULL;
            }
            if (np == 1024) {
                error_at(p, p->tok.off, "too many parameters (at most 1024)");
                return NULL;
            }
            params[np] = p->tok;
            ptypes[np] = FMAG_TYPE_F32;
            next(p);
            if (p->tok.kind == TOK_COLON) {
                next(p);
                if (!parse_type(p, &ptypes[np])) return NULL;
            }
            np++;
            if (p->tok.kind != TOK_COMMA) break;
            next(p);
        }
    }
    if (!expect(p, TOK_RPAREN, "')'") || !expect(p, TOK_ARROW, "'->'")) return NULL;
    size_t noff = p->tok.off;
    /* `-> i32, f32`: the results' types; `-> N`: N results, all f32. */
    float nr = p->tok.num;
    if (tok_is(p, "i32") || tok_is(p, "f32")) {
        typed_results = true;
        nr = 0;
        for (;;) {
            if (nr == 1024) {
                error_at(p, p->tok.off, "a function returns between 1 and 1024 values");
                return NULL;
            }
            if (!parse_type(p, &rtypes[(unsigned)nr])) return NULL;
            nr++;
            if (p->tok.kind != TOK_COMMA) break;
            next(p);
        }
    } else if (p->tok.kind != TOK_NUMBER || p->src[noff] == '-' || p->src[noff] == '+' ||
               memchr(p->src + noff, '.', p->tok.len) || !(nr >= 0 && nr <= 1e6f) ||
               nr != (float)(unsigned)nr) {
        error_at(p, noff, "expected the number of results (a positive integer)");
        return NULL;
    }
    if (!typed_results) {
        /* Range first: a NaN or huge literal must never reach the integer cast. */
        if (nr < 1 || nr > 1024) {
            error_at(p, noff, "a function returns between 1 and 1024 values");
            return NULL;
        }
        next(p);
    }
    /* `derivs N`: the last 2N parameters are the x then y derivatives of N inputs
     * (what -derivatives makes; docs/Derivatives.md). */
    unsigned nderiv = 0;
    if (tok_is(p, "derivs")) {
        next(p);
        size_t doff = p->tok.off;
        float nd = p->tok.num;
        if (p->tok.kind != TOK_NUMBER || p->src[doff] == '-' || p->src[doff] == '+' ||
            memchr(p->src + doff, '.', p->tok.len) || !(nd >= 1 && 3.0f * nd <= (float)np)) {
            error_at(p, doff,
                     "expected the number of inputs with derivatives (at least 1, and the "
                     "%u parameters must hold them and their x and y derivatives)",
                     np);
            return NULL;
        }
        nderiv = (unsigned)nd;
        next(p);
    }
    if (p->tok.kind != TOK_LBRACE) {
        expect(p, TOK_LBRACE, "'{'");
        return NULL;
    }
    if (!create) return func_lookup(p, name);
    if (func_lookup(p, name)) {
        error_at(p, nametok.off, "redefinition of function '@%s'", name);
        return NULL;
    }
    fmag_func *f = fmag_func_create(p->m, name, np, (unsigned)nr, is_export);
    f->nderiv = nderiv;
    table_lookup(p, &p->funcs, name, strlen(name), true)->func = f;
    for (unsigned k = 0; k < np; k++) {
        for (unsigned j = 0; j < k; j++) {
            if (params[j].nlen == params[k].nlen &&
                !strncmp(p->src + params[j].noff, p->src + params[k].noff, params[k].nlen)) {
                error_at(p, params[k].off, "duplicate parameter '%%%.*s'", (int)params[k].nlen,
                         p->src + params[k].noff);
                return NULL;
            }
        }
        f->params[k].name = fmag_context_strdup(p->ctx, p->src + params[k].noff, params[k].nlen);
        f->params[k].type = ptypes[k];
    }
    if (typed_results)
        for (unsigned k = 0; k < f->nresults; k++)
            fmag_func_set_result_type(f, k, rtypes[k]);
    return f;
}

/* First pass: every signature, skipping bodies by brace depth. */
static bool scan_headers(parser *p)
{
    next(p);
    if (tok_is(p, "fastmath")) {
        p->m->fastmath = true;
        next(p);
    }
    while (p->tok.kind != TOK_EOF) {
        if (!parse_header(p, true)) return false;
        size_t open = p->tok.off;
        int depth = 0;
        do {
            if (p->tok.kind == TOK_LBRACE)
                depth++;
            else if (p->tok.kind == TOK_RBRACE)
                depth--;
            else if (p->tok.kind == TOK_EOF) {
                error_at(p, open, "unterminated function body: missing '}'");
                return false;
            } else if (p->tok.kind == TOK_ERROR) {
                char buf[64];
                error_at(p, p->tok.off, "unexpected %s", tok_desc(p, buf, sizeof buf));
                return false;
            }
            next(p);
        } while (depth > 0);
    }
    return true;
}

static void link_block(fmag_func *f, fmag_block *b)
{
    b->prev = f->last;
    b->next = NULL;
    if (f->last)
        f->last->next = b;
    else
        f->first = b;
    f->last = b;
}

static bool parse_body(parser *p, fmag_func *f)
{
    values_reset(p);
    p->fn = f;
    for (unsigned k = 0; k < f->nparams; k++) {
        name_entry *e = values_lookup(p, f->params[k].name, strlen(f->params[k].name), true);
        e->value = &f->params[k];
        e->defined = true;
    }
    next(p); /* '{' */
    if (p->tok.kind != TOK_LABEL) {
        char buf[64];
        error_at(p, p->tok.off, "expected a block label '^name:' at the start of '@%s', found %s",
                 f->name, tok_desc(p, buf, sizeof buf));
        return false;
    }
    fmag_builder b = {0};
    bool open = false; /* inside a block that has no terminator yet */
    while (p->tok.kind != TOK_RBRACE) {
        if (p->tok.kind == TOK_EOF) {
            error_at(p, p->tok.off, "unexpected end of file in function '@%s'", f->name);
            return false;
        }
        if (p->tok.kind == TOK_LABEL) {
            if (open) {
                error_at(p, p->tok.off, "block '^%s' does not end with a terminator (br, jmp, ret)",
                         b.block->name);
                return false;
            }
            token lt = p->tok;
            block_entry *e = lookup_block(p, p->src + lt.noff, lt.nlen, lt.off);
            if (e->defined) {
                error_at(p, lt.off, "redefinition of block '^%s'", e->name);
                return false;
            }
            e->defined = true;
            link_block(f, e->block);
            next(p);
            if (!expect(p, TOK_COLON, "':' after the block label")) return false;
            fmag_builder_at_end(&b, e->block);
            open = true;
            continue;
        }
        if (!open) {
            char buf[64];
            error_at(p, p->tok.off, "expected a block label after a terminator, found %s",
                     tok_desc(p, buf, sizeof buf));
            return false;
        }
        bool term;
        if (!parse_instr(p, &b, &term)) return false;
        if (term) open = false;
    }
    if (open) {
        error_at(p, p->tok.off, "block '^%s' does not end with a terminator (br, jmp, ret)",
                 b.block->name);
        return false;
    }
    next(p); /* '}' */
    for (size_t k = 0; k < p->nblocks; k++) {
        if (!p->blocks[k].defined) {
            error_at(p, p->blocks[k].first_use, "use of undefined block '^%s'", p->blocks[k].name);
            return false;
        }
    }
    /* Undefined values: report the earliest use. */
    name_entry *worst = NULL;
    for (size_t k = 0; k < p->values.cap; k++) {
        name_entry *e = &p->values.slots[k];
        if (e->name && !e->defined && (!worst || e->first_use < worst->first_use)) worst = e;
    }
    if (worst) {
        error_at(p, worst->first_use, "use of undefined value '%%%s'", worst->name);
        return false;
    }
    return true;
}

static fmag_module *fmag_parse_module_unguarded(fmag_context *ctx, const char *filename,
                                                const char *text, size_t len)
{
    parser p = {0};
    p.ctx = ctx;
    p.file = filename ? filename : "<input>";
    p.m = fmag_module_create(ctx);
    if (fmag_asm_refuse_binary(ctx, p.file, &text, &len, ".fir",
                               "run it with fmag-run, disassemble it with fmag-as -d"))
        return NULL;
    p.src = text;
    p.len = len;
    bool ok = scan_headers(&p);
    if (ok) {
        p.pos = 0;
        next(&p);
        if (tok_is(&p, "fastmath")) next(&p);
        while (ok && p.tok.kind != TOK_EOF) {
            fmag_func *f = parse_header(&p, false);
            ok = f && parse_body(&p, f);
        }
    }
    values_reset(&p);
    fmag_tmp_free(p.funcs.slots);
    return ok ? p.m : NULL;
}

/* The guarded entry point: an allocation failure inside ends in NULL with a
 * diagnostic (fmag_context_guard). */
struct fmag_parse_module_args {
    fmag_context *ctx;
    const char *filename;
    const char *text;
    size_t len;
    fmag_module *result;
};

static void fmag_parse_module_thunk(void *arg)
{
    struct fmag_parse_module_args *a = arg;
    a->result = fmag_parse_module_unguarded(a->ctx, a->filename, a->text, a->len);
}

fmag_module *fmag_parse_module(fmag_context *ctx, const char *filename, const char *text,
                               size_t len)
{
    struct fmag_parse_module_args a = {ctx, filename, text, len, NULL};
    return fmag_context_guard(ctx, fmag_parse_module_thunk, &a) ? a.result : NULL;
}
