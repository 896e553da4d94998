/* glslang's error text in FMAG's words (Shaderc.c reports it): glslang writes
 * "'TOKEN' : message", parser token names in capitals ("unexpected RETURN, expecting
 * COMMA or SEMICOLON") and types with their qualifiers (' temp highp 3-component vector
 * of float'); SL says "use of undeclared identifier 'y'" and "expected ';'". This file
 * turns the one into the other, and names the token the message is about, so that the
 * caller can put a column on it when the line holds that token once. */
#include "GlslangDiag.h"

#include <stdio.h>
#include <string.h>

typedef struct gd_buf {
    char *p;
    size_t n, cap;
} gd_buf;

static void gd_put(gd_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n && b->n + 1 < b->cap; i++)
        b->p[b->n++] = s[i];
    b->p[b->n] = 0;
}

static void gd_puts(gd_buf *b, const char *s)
{
    gd_put(b, s, strlen(s));
}

static bool gd_starts(const char *s, size_t n, const char *prefix)
{
    size_t l = strlen(prefix);
    return n >= l && !memcmp(s, prefix, l);
}

static bool gd_is(const char *s, size_t n, const char *word)
{
    return n == strlen(word) && !memcmp(s, word, n);
}

static bool gd_is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}

/* glslang's grammar token names (its bison grammar) and what the user typed. A name
 * without an entry is a keyword: RETURN is 'return', VEC3 is 'vec3'. */
static const struct {
    const char *name, *spelling;
} gd_tokens[] = {
    {"SEMICOLON", "';'"},
    {"COMMA", "','"},
    {"COLON", "':'"},
    {"DOT", "'.'"},
    {"EQUAL", "'='"},
    {"LEFT_PAREN", "'('"},
    {"RIGHT_PAREN", "')'"},
    {"LEFT_BRACE", "'{'"},
    {"RIGHT_BRACE", "'}'"},
    {"LEFT_BRACKET", "'['"},
    {"RIGHT_BRACKET", "']'"},
    {"LEFT_ANGLE", "'<'"},
    {"RIGHT_ANGLE", "'>'"},
    {"PLUS", "'+'"},
    {"DASH", "'-'"},
    {"STAR", "'*'"},
    {"SLASH", "'/'"},
    {"PERCENT", "'%'"},
    {"BANG", "'!'"},
    {"TILDE", "'~'"},
    {"QUESTION", "'?'"},
    {"AMPERSAND", "'&'"},
    {"VERTICAL_BAR", "'|'"},
    {"CARET", "'^'"},
    {"ADD_ASSIGN", "'+='"},
    {"SUB_ASSIGN", "'-='"},
    {"MUL_ASSIGN", "'*='"},
    {"DIV_ASSIGN", "'/='"},
    {"MOD_ASSIGN", "'%='"},
    {"EQ_OP", "'=='"},
    {"NE_OP", "'!='"},
    {"LE_OP", "'<='"},
    {"GE_OP", "'>='"},
    {"AND_OP", "'&&'"},
    {"OR_OP", "'||'"},
    {"XOR_OP", "'^^'"},
    {"INC_OP", "'++'"},
    {"DEC_OP", "'--'"},
    {"LEFT_OP", "'<<'"},
    {"RIGHT_OP", "'>>'"},
    {"IDENTIFIER", "an identifier"},
    {"TYPE_NAME", "a type name"},
    {"FLOATCONSTANT", "a number"},
    {"INTCONSTANT", "a number"},
    {"UINTCONSTANT", "a number"},
    {"DOUBLECONSTANT", "a number"},
    {"BOOLCONSTANT", "a boolean"},
    {"$end", "end of input"},
    {"end of file", "end of input"},
};

/* One token name at s[0..n): its spelling into b; the bare spelling (no quotes) into
 * tok when it is something the user typed, for the column. */
static void gd_token(gd_buf *b, const char *s, size_t n, char *tok, size_t toklen)
{
    for (size_t k = 0; k < sizeof gd_tokens / sizeof gd_tokens[0]; k++)
        if (strlen(gd_tokens[k].name) == n && !memcmp(s, gd_tokens[k].name, n)) {
            const char *sp = gd_tokens[k].spelling;
            gd_puts(b, sp);
            if (tok && *sp == '\'') snprintf(tok, toklen, "%.*s", (int)strlen(sp) - 2, sp + 1);
            return;
        }
    char low[64];
    size_t m = n < sizeof low - 1 ? n : sizeof low - 1;
    for (size_t i = 0; i < m; i++)
        low[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
    low[m] = 0;
    gd_puts(b, "'");
    gd_puts(b, low);
    gd_puts(b, "'");
    if (tok) snprintf(tok, toklen, "%s", low);
}

/* "syntax error, unexpected RETURN, expecting COMMA or SEMICOLON" becomes "expected ','
 * or ';' before 'return'"; without an expectation, "unexpected 'return'". */
static void gd_syntax(gd_buf *b, const char *s, size_t n, char *tok, size_t toklen)
{
    const char *un = NULL, *ex = NULL;
    size_t unn = 0, exn = 0;
    const char *p = s, *end = s + n;
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *e = comma ? comma : end;
        while (p < e && *p == ' ')
            p++;
        if (gd_starts(p, (size_t)(e - p), "unexpected "))
            un = p + 11, unn = (size_t)(e - p) - 11;
        else if (gd_starts(p, (size_t)(e - p), "expecting "))
            ex = p + 10, exn = (size_t)(e - p) - 10;
        p = comma ? comma + 1 : end;
    }
    if (!un) {
        gd_puts(b, "syntax error");
        return;
    }
    if (ex) {
        gd_puts(b, "expected ");
        /* "A or B or C" */
        const char *q = ex, *qe = ex + exn;
        bool first = true;
        while (q < qe) {
            const char *w = q;
            while (w < qe && *w != ' ')
                w++;
            if (!first) gd_puts(b, " or ");
            gd_token(b, q, (size_t)(w - q), NULL, 0);
            first = false;
            q = w;
            while (q < qe && *q == ' ')
                q++;
            if (gd_starts(q, (size_t)(qe - q), "or ")) q += 3;
        }
        gd_puts(b, " before ");
    } else {
        gd_puts(b, "unexpected ");
    }
    gd_token(b, un, unn, tok, toklen);
}

/* A glslang type, "' temp highp 3-component vector of float'", as the user writes it:
 * qualifiers dropped, vectors spelled vec3 (GLSL) or float3 (HLSL). */
static void gd_type(gd_buf *b, const char *s, size_t n, bool hlsl)
{
    static const char *const quals[] = {"in ",      "out ",    "inout ",  "temp ",     "const ",
                                        "uniform ", "global ", "highp ",  "mediump ",  "lowp ",
                                        "smooth ",  "flat ",   "buffer ", "volatile ", "shared "};
    bool again = true;
    while (again) {
        again = false;
        while (n && *s == ' ')
            s++, n--;
        for (size_t k = 0; k < sizeof quals / sizeof quals[0]; k++)
            if (gd_starts(s, n, quals[k])) {
                s += strlen(quals[k]), n -= strlen(quals[k]);
                again = true;
            }
    }
    unsigned comps;
    char elem[16];
    int used = 0;
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%.*s", (int)n, s);
    if (sscanf(tmp, "%u-component vector of %15s%n", &comps, elem, &used) == 2 &&
        (size_t)used == strlen(tmp) && comps >= 2 && comps <= 4) {
        static const struct {
            const char *elem, *glsl;
        } vecs[] = {{"float", "vec"},
                    {"int", "ivec"},
                    {"uint", "uvec"},
                    {"bool", "bvec"},
                    {"double", "dvec"}};
        for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++)
            if (!strcmp(elem, vecs[k].elem)) {
                snprintf(tmp, sizeof tmp, "%s%u", hlsl ? vecs[k].elem : vecs[k].glsl, comps);
                gd_puts(b, tmp);
                return;
            }
    }
    gd_put(b, s, n);
}

/* The rest of a message, with every quoted type ('...') spelled as the user writes it. */
static void gd_types(gd_buf *b, const char *s, size_t n, bool hlsl)
{
    const char *end = s + n;
    while (s < end) {
        const char *q = memchr(s, '\'', (size_t)(end - s));
        const char *close = q ? memchr(q + 1, '\'', (size_t)(end - q - 1)) : NULL;
        if (!close) {
            gd_put(b, s, (size_t)(end - s));
            return;
        }
        gd_put(b, s, (size_t)(q + 1 - s));
        gd_type(b, q + 1, (size_t)(close - q - 1), hlsl);
        gd_puts(b, "'");
        s = close + 1;
    }
}

bool fmag_glslang_message(const char *msg, size_t n, bool hlsl, bool earlier_errors, char *out,
                          size_t outlen, char *tok, size_t toklen)
{
    gd_buf b = {out, 0, outlen};
    out[0] = 0;
    if (tok && toklen) tok[0] = 0;
    /* "'TOKEN' : message" (glslang pads the message with a second blank at times). */
    const char *t = NULL, *m = msg;
    size_t tn = 0, mn = n;
    if (n >= 2 && msg[0] == '\'') {
        const char *close = memchr(msg + 1, '\'', n - 1);
        if (close && (size_t)(close - msg) + 3 <= n && !memcmp(close + 1, " :", 2)) {
            t = msg + 1, tn = (size_t)(close - msg - 1);
            m = close + 3, mn = n - (size_t)(m - msg);
        }
    }
    while (mn && *m == ' ')
        m++, mn--;
    while (mn && (m[mn - 1] == ' ' || m[mn - 1] == '.'))
        mn--;
    /* Errors that only follow from an earlier one. */
    if (earlier_errors && (gd_starts(m, mn, "function does not return a value") ||
                           gd_starts(m, mn, "HLSL parsing failed") ||
                           gd_starts(m, mn, "Could not perform requested binary operation") ||
                           gd_starts(m, mn, "compilation terminated")))
        return false;
    if (gd_starts(m, mn, "syntax error")) {
        gd_syntax(&b, m + 12, mn - 12, tok, toklen);
        return true;
    }
    if (gd_starts(m, mn, "compilation terminated")) {
        gd_puts(&b, "unexpected end of input");
        return true;
    }
    /* Bison's parser stack (10,000 entries) overflowing is "memory exhausted": the
     * nesting, not the machine's memory. */
    if (gd_is(m, mn, "memory exhausted")) {
        gd_puts(&b, "expression nested too deeply for glslang's parser (its stack overflowed)");
        return true;
    }
    if (gd_starts(m, mn, "HLSL parsing failed")) {
        gd_puts(&b, "syntax error");
        return true;
    }
    if (t && tn && (gd_is(m, mn, "undeclared identifier") || gd_is(m, mn, "unknown variable"))) {
        gd_puts(&b, "use of undeclared identifier '");
        gd_put(&b, t, tn);
        gd_puts(&b, "'");
        if (tok) snprintf(tok, toklen, "%.*s", (int)tn, t);
        return true;
    }
    if (t && tn && gd_is(m, mn, "Expected")) { /* HLSL: "';' : Expected" */
        gd_puts(&b, "expected ");
        bool word = gd_is_word(t[0]);
        if (!word) gd_puts(&b, "'");
        gd_put(&b, t, tn);
        if (!word) gd_puts(&b, "'");
        return true;
    }
    const char *fn = "function does not return a value: ";
    if (gd_starts(m, mn, fn)) {
        const char *name = m + strlen(fn);
        size_t nn = mn - strlen(fn);
        if (nn && *name == '@') name++, nn--; /* glslang's HLSL mangling */
        gd_puts(&b, "function '");
        gd_put(&b, name, nn);
        gd_puts(&b, "' does not return a value");
        return true;
    }
    /* #include: FMAG's resolver said what is missing and where it looked; glslang's
     * " for header name: X" repeats the name. */
    if (t && tn == 8 && !memcmp(t, "#include", 8)) {
        static const char hdr[] = " for header name:";
        for (size_t i = 0; i + sizeof hdr - 1 <= mn; i++)
            if (!memcmp(m + i, hdr, sizeof hdr - 1)) {
                mn = i;
                break;
            }
    }
    /* Anything else: "'TOKEN': message", the token kept when it says something (an
     * operator of a conversion error does not). */
    if (t && tn && !gd_starts(m, mn, "cannot convert")) {
        gd_puts(&b, "'");
        gd_put(&b, t, tn);
        gd_puts(&b, mn ? "': " : "'");
        if (tok) snprintf(tok, toklen, "%.*s", (int)tn, t);
    } else if (t && tn && tok) {
        snprintf(tok, toklen, "%.*s", (int)tn, t);
    }
    gd_types(&b, m, mn, hlsl);
    if (!b.n) /* nothing left to say in other words: glslang's, as it is */
        gd_put(&b, msg, n);
    if (!b.n) gd_puts(&b, "glslang failed without a message");
    return true;
}

/* Whether a and b side by side are one operator ("==", "+=", "<<" ...). */
static bool gd_pair(char a, char b)
{
    static const char *const pairs[] = {"==", "!=", "<=", ">=", "&&", "||", "^^", "++", "--", "+=",
                                        "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", "->"};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        if (pairs[k][0] == a && pairs[k][1] == b) return true;
    return false;
}

/* Where `tok` stands on the line, 1-based, when it stands there exactly once as a whole
 * word or operator; 0 otherwise (no column is better than a wrong one). */
unsigned fmag_glslang_token_column(const char *line, size_t n, const char *tok)
{
    size_t tl = strlen(tok);
    if (!tl || tl > n) return 0;
    bool word = gd_is_word(tok[0]);
    unsigned col = 0;
    for (size_t i = 0; i + tl <= n; i++) {
        if (memcmp(line + i, tok, tl)) continue;
        char before = i ? line[i - 1] : ' ', after = i + tl < n ? line[i + tl] : ' ';
        /* a word not inside a longer word, an operator not inside a longer one ('=' in
         * '==') */
        bool whole = word ? !gd_is_word(before) && !gd_is_word(after)
                          : !gd_pair(before, tok[0]) && !gd_pair(tok[tl - 1], after);
        if (!whole) continue;
        if (col) return 0; /* twice: which one? */
        col = (unsigned)i + 1;
    }
    return col;
}
