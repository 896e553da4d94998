/* The SL compile entry point and its diagnostics: file:line:col, the source line,
 * and a caret under the offending column. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "SLInternal.h"

const char *sl_type_name(int t)
{
    switch (t) {
    case 0:
        return "void";
    case 1:
        return "f32";
    case 2:
        return "f32x2";
    case 3:
        return "f32x3";
    case 4:
        return "f32x4";
    default:
        return "<error>";
    }
}

/* One diagnostic of the given kind ("error", "note") at pos: location, message,
 * source line and caret. */
static void sl_vdiag(sl_session *s, unsigned pos, const char *kind, const char *fmt, va_list ap)
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
    fmag_context_error(s->ctx, "%s:%u:%u: %s: %s\n%s\n%s", s->filename, line, col, kind, msg,
                       srcline, caret);
}

void sl_error(sl_session *s, unsigned pos, const char *fmt, ...)
{
    if (s->too_many) return;
    if (s->nerrors >= SL_MAX_ERRORS) {
        s->too_many = true;
        fmag_context_error(s->ctx, "%s: error: too many errors, stopping", s->filename);
        return;
    }
    s->nerrors++;
    va_list ap;
    va_start(ap, fmt);
    sl_vdiag(s, pos, "error", fmt, ap);
    va_end(ap);
}

/* A note belongs to the error just reported; once errors stop, so do notes. */
void sl_note(sl_session *s, unsigned pos, const char *fmt, ...)
{
    if (s->too_many) return;
    va_list ap;
    va_start(ap, fmt);
    sl_vdiag(s, pos, "note", fmt, ap);
    va_end(ap);
}

fmag_module *fmag_sl_compile(fmag_context *ctx, const char *filename, const char *src, size_t len,
                             const fmag_sl_options *opts)
{
    sl_session s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.filename = filename ? filename : "<input>";
    s.src = src ? src : "";
    s.len = src ? len : 0;
    if (s.len > 0x7fffffffu) {
        fmag_context_error(ctx, "%s: error: source too large", s.filename);
        return NULL;
    }
    if (opts) s.opts = *opts;
    fmag_module *m = NULL;
    if (sl_lex(&s)) {
        sl_parse(&s);
        if (s.nerrors == 0) sl_check(&s);
        if (s.nerrors == 0) m = sl_irgen(&s);
    }
    free(s.toks);
    return s.nerrors == 0 ? m : NULL;
}
