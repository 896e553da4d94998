/* SL lexer: source bytes to a token array. Bad characters and malformed numbers are
 * reported and skipped so that one run can report several problems. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h>
#include "SLInternal.h"
#include "fmag/FloatText.h"

static bool is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool push(sl_session *s, sl_tok_kind k, size_t pos, size_t len)
{
    if (s->ntoks == s->cap_toks) {
        size_t cap = s->cap_toks ? s->cap_toks * 2 : 256;
        sl_token *t = fmag_tmp_realloc(s->toks, cap * sizeof *t);
        if (!t) {
            fmag_context_report(s->ctx, FMAG_DIAG_ERROR, s->filename, 0, 0, "out of memory");
            s->nerrors++;
            return false;
        }
        s->toks = t;
        s->cap_toks = cap;
    }
    sl_token *t = &s->toks[s->ntoks++];
    memset(t, 0, sizeof *t);
    t->kind = k;
    t->pos = (unsigned)pos;
    t->len = (unsigned)len;
    return true;
}

/* A lexical error becomes a token, so that it is reported in source order together
 * with the parser's errors (and the parser knows not to report a second one). */
static void lex_error(sl_session *s, size_t pos, size_t len, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!push(s, TK_ERROR, pos, len)) return;
    s->toks[s->ntoks - 1].msg = fmag_context_strdup(s->ctx, buf, strlen(buf));
}

static const struct {
    const char *word;
    unsigned len;
    sl_tok_kind kind;
    int width;
} keywords[] = {
    {"if", 2, TK_IF, 0},
    {"else", 4, TK_ELSE, 0},
    {"return", 6, TK_RETURN, 0},
    {"export", 6, TK_EXPORT, 0},
    {"out", 3, TK_OUT, 0},
    {"void", 4, TK_TYPE, 0},
    {"f32", 3, TK_TYPE, SL_TYPE(SL_KF32, 1)},
    {"f32x2", 5, TK_TYPE, SL_TYPE(SL_KF32, 2)},
    {"f32x3", 5, TK_TYPE, SL_TYPE(SL_KF32, 3)},
    {"f32x4", 5, TK_TYPE, SL_TYPE(SL_KF32, 4)},
    {"i32", 3, TK_TYPE, SL_TYPE(SL_KI32, 1)},
    {"i32x2", 5, TK_TYPE, SL_TYPE(SL_KI32, 2)},
    {"i32x3", 5, TK_TYPE, SL_TYPE(SL_KI32, 3)},
    {"i32x4", 5, TK_TYPE, SL_TYPE(SL_KI32, 4)},
    {"u32", 3, TK_TYPE, SL_TYPE(SL_KU32, 1)},
    {"u32x2", 5, TK_TYPE, SL_TYPE(SL_KU32, 2)},
    {"u32x3", 5, TK_TYPE, SL_TYPE(SL_KU32, 3)},
    {"u32x4", 5, TK_TYPE, SL_TYPE(SL_KU32, 4)},
    {"for", 3, TK_FOR, 0},
    {"const", 5, TK_CONST, 0},
};

static bool is_hex_digit(int c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hex_value(int c)
{
    return is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* value * base + digit, saturating at UINT64_MAX (a literal too large for any type). */
static uint64_t accumulate(uint64_t value, unsigned base, unsigned digit)
{
    if (value > (UINT64_MAX - digit) / base) return UINT64_MAX;
    return value * base + digit;
}

/* A number: decimal f32 (`1.5`, `.5`, `1e-3`), a decimal or hex integer literal
 * (`7`, `0x1F`), or either with a `u` suffix (`7u`, `0xFFu`): a u32. */
static void lex_number(sl_session *s, size_t *ip)
{
    const char *src = s->src;
    size_t i = *ip, start = i;
    int lit = LIT_DEC;
    uint64_t ival = 0;
    bool bad = false;
    const char *why = NULL;
    if (src[i] == '0' && i + 1 < s->len && (src[i + 1] == 'x' || src[i + 1] == 'X')) {
        lit = LIT_HEX;
        i += 2;
        while (i < s->len && is_hex_digit(src[i]))
            ival = accumulate(ival, 16, hex_value(src[i++]));
        if (i == start + 2) {
            bad = true;
            why = "malformed number: '0x' has no hex digits";
        }
    } else {
        while (i < s->len && is_digit(src[i]))
            ival = accumulate(ival, 10, (unsigned)(src[i++] - '0'));
        if (i < s->len && src[i] == '.') {
            lit = LIT_FLOAT;
            i++;
            while (i < s->len && is_digit(src[i]))
                i++;
        }
        if (i < s->len && (src[i] == 'e' || src[i] == 'E')) {
            lit = LIT_FLOAT;
            size_t j = i + 1;
            if (j < s->len && (src[j] == '+' || src[j] == '-')) j++;
            if (j < s->len && is_digit(src[j])) {
                while (j < s->len && is_digit(src[j]))
                    j++;
                i = j;
            } else {
                bad = true;
                why = "malformed number: exponent has no digits";
                i = j;
            }
        }
    }
    size_t end = i;
    bool suffix = !bad && i < s->len && (src[i] == 'u' || src[i] == 'U') &&
                  !(i + 1 < s->len && (is_alpha(src[i + 1]) || is_digit(src[i + 1])));
    if (suffix) i++;
    size_t after = i;
    while (i < s->len && (is_alpha(src[i]) || is_digit(src[i]) || src[i] == '.'))
        i++;
    *ip = i;
    if (bad) {
        lex_error(s, start, i - start, "%s", why);
        return;
    }
    if (i != after) {
        lex_error(s, after, i - start, "invalid character '%c' after number", src[after]);
        return;
    }
    size_t n = end - start;
    if (suffix && lit == LIT_FLOAT) {
        lex_error(s, start, i - start,
                  "a 'u' suffix needs an integer literal ('%.*s' has a '.' or an exponent)",
                  (int)(n > 40 ? 40 : n), src + start);
        return;
    }
    if ((suffix || lit == LIT_HEX) && ival > 0xFFFFFFFFu) {
        lex_error(s, start, i - start, "integer literal '%.*s' does not fit in 32 bits",
                  (int)(i - start > 40 ? 40 : i - start), src + start);
        return;
    }
    if (suffix) lit = LIT_U32;
    float f;
    if (lit == LIT_HEX || lit == LIT_U32) {
        f = (float)ival; /* rounds to nearest (exact up to 2^24) */
    } else {
        char buf[128];
        if (n >= sizeof buf) {
            lex_error(s, start, n, "number literal too long");
            return;
        }
        memcpy(buf, src + start, n);
        buf[n] = 0;
        errno = 0;
        /* strtof rounds the decimal once, straight to the nearest float. */
        f = strtof(buf, NULL);
        if (isinf(f)) {
            lex_error(s, start, n, "number literal '%s' is too large for f32", buf);
            return;
        }
        if (fmag_float_literal_underflows(buf, n, f)) {
            lex_error(s, start, n,
                      "number literal '%s' is too small for f32: it rounds to zero (the smallest "
                      "non-zero f32 is 1.4e-45; write 0.0 for zero)",
                      buf);
            return;
        }
    }
    if (!push(s, TK_NUM, start, i - start)) return;
    sl_token *t = &s->toks[s->ntoks - 1];
    t->num = f;
    t->lit = lit;
    t->ival = ival;
}

bool sl_lex(sl_session *s)
{
    const char *src = s->src;
    size_t i = 0, n = s->len;
    while (i < n) {
        unsigned char c = (unsigned char)src[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < n && src[i + 1] == '/') {
            while (i < n && src[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < n && src[i + 1] == '*') {
            size_t start = i;
            i += 2;
            while (i + 1 < n && !(src[i] == '*' && src[i + 1] == '/'))
                i++;
            if (i + 1 >= n) {
                lex_error(s, start, 2, "unterminated /* comment");
                i = n;
            } else {
                i += 2;
            }
            continue;
        }
        if (is_alpha(c)) {
            size_t start = i;
            while (i < n && (is_alpha(src[i]) || is_digit(src[i])))
                i++;
            size_t len = i - start;
            sl_tok_kind k = TK_IDENT;
            int width = 0;
            for (size_t w = 0; w < sizeof keywords / sizeof keywords[0]; w++)
                if (strlen(keywords[w].word) == len &&
                    !memcmp(keywords[w].word, src + start, len)) {
                    k = keywords[w].kind;
                    width = keywords[w].width;
                }
            if (!push(s, k, start, len)) return false;
            s->toks[s->ntoks - 1].width = width;
            continue;
        }
        if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(src[i + 1]))) {
            lex_number(s, &i);
            continue;
        }
        sl_tok_kind k = TK_EOF;
        size_t len = 1;
        char d = i + 1 < n ? src[i + 1] : 0;
        switch (c) {
        case '(':
            k = TK_LPAREN;
            break;
        case ')':
            k = TK_RPAREN;
            break;
        case '{':
            k = TK_LBRACE;
            break;
        case '}':
            k = TK_RBRACE;
            break;
        case ',':
            k = TK_COMMA;
            break;
        case ';':
            k = TK_SEMI;
            break;
        case '.':
            k = TK_DOT;
            break;
        case '?':
            k = TK_QUESTION;
            break;
        case ':':
            k = TK_COLON;
            break;
        case '+':
            k = d == '=' ? TK_PLUS_ASSIGN : TK_PLUS;
            break;
        case '-':
            k = d == '=' ? TK_MINUS_ASSIGN : TK_MINUS;
            break;
        case '*':
            k = d == '=' ? TK_STAR_ASSIGN : TK_STAR;
            break;
        case '/':
            k = d == '=' ? TK_SLASH_ASSIGN : TK_SLASH;
            break;
        case '%':
            k = d == '=' ? TK_PERCENT_ASSIGN : TK_PERCENT;
            break;
        case '^':
            k = d == '=' ? TK_CARET_ASSIGN : TK_CARET;
            break;
        case '~':
            k = TK_TILDE;
            break;
        case '=':
            k = d == '=' ? TK_EQ : TK_ASSIGN;
            break;
        case '<':
            if (d == '<')
                k = i + 2 < n && src[i + 2] == '=' ? TK_SHL_ASSIGN : TK_SHL;
            else
                k = d == '=' ? TK_LE : TK_LT;
            break;
        case '>':
            if (d == '>')
                k = i + 2 < n && src[i + 2] == '=' ? TK_SHR_ASSIGN : TK_SHR;
            else
                k = d == '=' ? TK_GE : TK_GT;
            break;
        case '!':
            k = d == '=' ? TK_NE : TK_NOT;
            break;
        case '&':
            k = d == '&' ? TK_ANDAND : d == '=' ? TK_AMP_ASSIGN : TK_AMP;
            break;
        case '|':
            k = d == '|' ? TK_OROR : d == '=' ? TK_PIPE_ASSIGN : TK_PIPE;
            break;
        default:
            break;
        }
        if (k == TK_EOF) {
            if (c == '#' && s->len - i > 8 && !memcmp(s->src + i, "#version", 8)) {
                /* GLSL given as SL (a .sl name, or -x sl): say which language it is. */
                lex_error(s, i, 8,
                          "unexpected '#version' (GLSL source? compile it with -x glsl, or "
                          "FMAG_LANG_GLSL)");
                i += 8;
                continue;
            }
            if (c >= 0x20 && c < 0x7f)
                lex_error(s, i, 1, "unexpected character '%c'", c);
            else {
                /* A run of bytes that are not text is one error, not one per byte. */
                size_t j = i + 1;
                while (j < s->len &&
                       ((unsigned char)s->src[j] < 0x20 || (unsigned char)s->src[j] >= 0x7f) &&
                       s->src[j] != '\n' && s->src[j] != '\t' && s->src[j] != '\r')
                    j++;
                if (j - i > 1)
                    lex_error(s, i, j - i, "unexpected bytes (%zu not text, the first 0x%02x)",
                              j - i, c);
                else
                    lex_error(s, i, 1, "unexpected byte 0x%02x", c);
                i = j;
                continue;
            }
            i++;
            continue;
        }
        if (k == TK_PLUS_ASSIGN || k == TK_MINUS_ASSIGN || k == TK_STAR_ASSIGN ||
            k == TK_SLASH_ASSIGN || k == TK_EQ || k == TK_LE || k == TK_GE || k == TK_NE ||
            k == TK_ANDAND || k == TK_OROR || k == TK_PERCENT_ASSIGN || k == TK_CARET_ASSIGN ||
            k == TK_AMP_ASSIGN || k == TK_PIPE_ASSIGN || k == TK_SHL || k == TK_SHR)
            len = 2;
        if (k == TK_SHL_ASSIGN || k == TK_SHR_ASSIGN) len = 3;
        if (!push(s, k, i, len)) return false;
        i += len;
    }
    return push(s, TK_EOF, n, 0);
}
