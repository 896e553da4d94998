/* The SL compile entry point and its diagnostics: file:line:col, the source line,
 * and a caret under the offending column. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "SLInternal.h"

const char *sl_type_name(int t)
{
    static const char *const names[3][5] = {
        {"void", "f32", "f32x2", "f32x3", "f32x4"},
        {"void", "i32", "i32x2", "i32x3", "i32x4"},
        {"void", "u32", "u32x2", "u32x3", "u32x4"},
    };
    if (t == SL_VOID) return "void";
    if (t < 0 || SL_WIDTH(t) < 1 || SL_WIDTH(t) > 4) return "<error>";
    if (SL_KIND(t) == SL_KLIT || SL_KIND(t) == SL_KLITI) return "integer literal";
    if (SL_KIND(t) > SL_KU32) return "<error>";
    return names[SL_KIND(t)][SL_WIDTH(t)];
}

/* One diagnostic of the given severity at pos: location, message,
 * source line and caret. */
static void sl_vdiag(sl_session *s, unsigned pos, fmag_diag_severity sev, const char *fmt,
                     va_list ap)
{
    if (pos > s->len) pos = (unsigned)s->len;
    unsigned line = 1;
    size_t bol = 0;
    for (size_t i = 0; i < pos; i++)
        if (s->src[i] == '\n') {
            line++;
            bol = i + 1;
        }
    size_t eol = bol;
    while (eol < s->len && s->src[eol] != '\n' && s->src[eol] != '\r')
        eol++;
    unsigned col = (unsigned)(pos - bol) + 1;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* The caret line copies tabs so it lines up under the source line; other bytes
     * (control characters included) become spaces. */
    size_t n = eol - bol;
    if (n > 400) n = 400;
    char srcline[401], caret[402];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s->src[bol + i];
        srcline[i] = (c == '\t' || c >= 0x20) ? (char)c : ' ';
    }
    srcline[n] = 0;
    for (size_t i = 0; i + 1 < col && k < 400; i++)
        caret[k++] = s->src[bol + i] == '\t' ? '\t' : ' ';
    caret[k++] = '^';
    caret[k] = 0;
    fmag_context_report(s->ctx, sev, s->filename, line, col, "%s\n%s\n%s", msg, srcline, caret);
}

void sl_error(sl_session *s, unsigned pos, const char *fmt, ...)
{
    if (s->too_many) return;
    if (fmag_context_error_limit_reached(s->ctx)) {
        /* The context turns this one into "too many errors emitted, stopping now"
         * (the limit is the context's: -ferror-limit=N). */
        s->too_many = true;
        fmag_context_report(s->ctx, FMAG_DIAG_ERROR, s->filename, 0, 0, "too many errors");
        return;
    }
    s->nerrors++;
    va_list ap;
    va_start(ap, fmt);
    sl_vdiag(s, pos, FMAG_DIAG_ERROR, fmt, ap);
    va_end(ap);
}

/* A note belongs to the error just reported; once errors stop, so do notes. */
void sl_note(sl_session *s, unsigned pos, const char *fmt, ...)
{
    if (s->too_many) return;
    va_list ap;
    va_start(ap, fmt);
    sl_vdiag(s, pos, FMAG_DIAG_NOTE, fmt, ap);
    va_end(ap);
}

/* How many of the first `n` bytes are neither text nor part of well-formed UTF-8:
 * control bytes other than whitespace, stray continuation bytes, bad leads. */
static size_t non_text_bytes(const unsigned char *p, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t need = c < 0x80             ? 0
                      : (c & 0xE0) == 0xC0 ? 1
                      : (c & 0xF0) == 0xE0 ? 2
                      : (c & 0xF8) == 0xF0 ? 3
                                           : 4;
        if (need == 0) {
            bad += (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') ||
                   c == 0x7f;
            i++;
            continue;
        }
        size_t k = 1;
        while (need < 4 && k <= need && i + k < n && (p[i + k] & 0xC0) == 0x80)
            k++;
        if (need == 4 || k <= need) {
            bad++;
            i++;
        } else {
            i += k;
        }
    }
    return bad;
}

static fmag_module *fmag_sl_compile_unguarded(fmag_context *ctx, const char *filename,
                                              const char *src, size_t len,
                                              const fmag_sl_options *opts)
{
    sl_session s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.filename = filename ? filename : "<input>";
    s.src = src ? src : "";
    s.len = src ? len : 0;
    if (s.len > 0x7fffffffu) {
        fmag_context_report(ctx, FMAG_DIAG_ERROR, s.filename, 0, 0, "source too large");
        return NULL;
    }
    /* A UTF-8 byte-order mark is accepted (editors on Windows write one). */
    size_t bom = fmag_text_bom_len(s.src, s.len);
    s.src += bom;
    s.len -= bom;
    /* Text never holds a NUL byte: say once what the file is instead of listing
     * every byte of a binary. */
    const char *nul = memchr(s.src, 0, s.len);
    if (nul) {
        if (s.len >= 4 && !memcmp(s.src, "FMAG", 4))
            fmag_context_report(ctx, FMAG_DIAG_ERROR, s.filename, 0, 0,
                                "this is a binary .fmag file, not SL source "
                                "(run it with fmag-run, disassemble it with fmag-as -d)");
        else
            fmag_context_report(ctx, FMAG_DIAG_ERROR, s.filename, 0, 0,
                                "this is a binary file, not SL source (a NUL byte "
                                "at offset %zu)",
                                (size_t)(nul - s.src));
        return NULL;
    }
    size_t sample = s.len < 4096 ? s.len : 4096,
           bad = non_text_bytes((const unsigned char *)s.src, sample);
    if (sample >= 64 && bad * 8 > sample) {
        fmag_context_report(ctx, FMAG_DIAG_ERROR, s.filename, 0, 0,
                            "this is not SL source text (%zu of the first %zu bytes are "
                            "not text)",
                            bad, sample);
        return NULL;
    }
    if (opts) s.opts = *opts;
    fmag_module *m = NULL;
    if (sl_lex(&s)) {
        sl_parse(&s);
        if (s.nerrors == 0) sl_check(&s);
        if (s.nerrors == 0) m = sl_irgen(&s);
    }
    fmag_tmp_free(s.toks);
    return s.nerrors == 0 ? m : NULL;
}

/* The guarded entry point: an allocation failure inside ends in NULL with a
 * diagnostic (fmag_context_guard). */
struct fmag_sl_compile_args {
    fmag_context *ctx;
    const char *filename;
    const char *src;
    size_t len;
    const fmag_sl_options *opts;
    fmag_module *result;
};

static void fmag_sl_compile_thunk(void *arg)
{
    struct fmag_sl_compile_args *a = arg;
    a->result = fmag_sl_compile_unguarded(a->ctx, a->filename, a->src, a->len, a->opts);
}

fmag_module *fmag_sl_compile(fmag_context *ctx, const char *filename, const char *src, size_t len,
                             const fmag_sl_options *opts)
{
    struct fmag_sl_compile_args a = {ctx, filename, src, len, opts, NULL};
    return fmag_context_guard(ctx, fmag_sl_compile_thunk, &a) ? a.result : NULL;
}
