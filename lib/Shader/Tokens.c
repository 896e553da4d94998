/* GLSL/HLSL front door: the text buffer, the tokenizer and the token helpers every part shares. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "GlslangDiag.h"
#include "ShaderFront.h"

#ifdef FMAG_HAVE_SHADERC

void shf_sb_put(strbuf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = fmag_tmp_realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void
shf_sb_printf(strbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        shf_sb_put(b, tmp, (size_t)n);
        return;
    }
    char *big = fmag_tmp_malloc((size_t)n + 1);
    if (!big) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    shf_sb_put(b, big, (size_t)n);
    fmag_tmp_free(big);
}

bool shf_is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool shf_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* `#line N` or `#line N "file"` at s (the '#'): the next line's number in *line and
 * whether it is a line of `file` (the source's own name, or none given) in *ours. */
static void line_directive(const char *s, size_t n, const char *file, unsigned *line, bool *ours)
{
    size_t i = 1;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (n - i < 5 || memcmp(s + i, "line", 4) || (s[i + 4] != ' ' && s[i + 4] != '\t')) return;
    i += 5;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    unsigned long v = 0;
    size_t d = i;
    while (i < n && shf_is_digit(s[i]) && v < 100000000)
        v = v * 10 + (unsigned long)(s[i++] - '0');
    if (i == d) return;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    size_t flen = strlen(file);
    if (i < n && s[i] == '"')
        *ours = n - i > flen + 1 && !memcmp(s + i + 1, file, flen) && s[i + 1 + flen] == '"';
    else
        *ours = true;
    *line = (unsigned)v - 1; /* the directive's own newline counts it up */
}

/* Tokens with their line in the source (0 for lines #include brought in: glslang's
 * preprocessed text marks them with #line directives). */
bool shf_tokenize(const char *s, size_t n, const char *file, toks *out)
{
    unsigned line = 1;
    bool line_start = true, ours = true;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '\n') {
            line++, i++, line_start = true;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '#' && line_start) { /* a directive left in the text: #version, #line */
            size_t b = i;
            while (i < n && s[i] != '\n')
                i++;
            line_directive(s + b, i - b, file, &line, &ours);
            continue;
        }
        line_start = false;
        if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
                line += s[i++] == '\n';
            i += 2;
            continue;
        }
        tok t = {TK_PUNCT, i, 1, ours ? line : 0};
        if (shf_is_ident_start(c)) {
            t.kind = TK_IDENT;
            while (i + t.len < n &&
                   (shf_is_ident_start(s[i + t.len]) || shf_is_digit(s[i + t.len])))
                t.len++;
        } else if (shf_is_digit(c) || (c == '.' && i + 1 < n && shf_is_digit(s[i + 1]))) {
            t.kind = TK_NUM;
            while (i + t.len < n && (shf_is_ident_start(s[i + t.len]) ||
                                     shf_is_digit(s[i + t.len]) || s[i + t.len] == '.' ||
                                     ((s[i + t.len] == '+' || s[i + t.len] == '-') &&
                                      (s[i + t.len - 1] == 'e' || s[i + t.len - 1] == 'E'))))
                t.len++;
        }
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 256;
            tok *v = fmag_tmp_realloc(out->v, cap * sizeof *v);
            if (!v) return false;
            out->v = v, out->cap = cap;
        }
        out->v[out->n++] = t;
        i += t.len;
    }
    return true;
}

bool shf_tok_is(const front *f, size_t i, const char *s)
{
    if (i >= f->t.n) return false;
    size_t n = strlen(s);
    return f->t.v[i].len == n && !memcmp(f->pp + f->t.v[i].off, s, n);
}

bool shf_tok_punct(const front *f, size_t i, char c)
{
    return i < f->t.n && f->t.v[i].kind == TK_PUNCT && f->pp[f->t.v[i].off] == c;
}

/* Byte offset of the first non-blank character of `line` in the user's text. */
static size_t line_offset(const front *f, unsigned line)
{
    size_t off = 0;
    for (unsigned l = 1; l < line && off < f->len; off++)
        if (f->src[off] == '\n') l++;
    while (off < f->len && (f->src[off] == ' ' || f->src[off] == '\t'))
        off++;
    return off;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void
shf_front_error(front *f, unsigned line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    f->failed = true;
    if (line)
        fmag_context_source_error(f->ctx, f->filename, f->src, f->len, line_offset(f, line), "%s",
                                  msg);
    else
        fmag_context_report(f->ctx, FMAG_DIAG_ERROR, f->filename, 0, 0, "%s", msg);
}

/* At a column of the user's line (1-based; clamped to the line's end). */
void shf_front_error_col(front *f, unsigned line, unsigned col, const char *msg)
{
    size_t off = line_offset(f, line);
    while (col > 1 && off < f->len && f->src[off] != '\n')
        off++, col--;
    f->failed = true;
    fmag_context_source_error(f->ctx, f->filename, f->src, f->len, off, "%s", msg);
}

#endif /* FMAG_HAVE_SHADERC */
