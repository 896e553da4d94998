/* GLSL/HLSL front door: glslang's log re-recorded as FMAG diagnostics at the user's lines. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "GlslangDiag.h"
#include "ShaderFront.h"

#ifdef FMAG_HAVE_SHADERC

/* ------------------------------------------------------------ diagnostics */

unsigned shf_count_lines(const char *s, size_t n)
{
    unsigned l = 1;
    for (size_t i = 0; i < n; i++)
        l += s[i] == '\n';
    return l;
}

/* Shadertoy declares iTime, iResolution ... itself, so pasted code uses them undeclared;
 * the interface has no place for them, and the message says what to do instead. */
static const char *shadertoy_hint(const char *msg, size_t n)
{
    static const struct {
        const char *quoted, *declaration;
    } uniforms[] = {
        {"'iTime'", "`const float iTime = 0.0;`"},
        {"'iResolution'", "`const vec3 iResolution = vec3(640.0, 360.0, 1.0);`"},
        {"'iMouse'", "`const vec4 iMouse = vec4(0.0);`"},
        {"'iFrame'", "`const int iFrame = 0;`"},
        {"'iTimeDelta'", "`const float iTimeDelta = 0.016;`"},
        {"'iDate'", "`const vec4 iDate = vec4(0.0);`"},
        {"'iChannelTime'", "`const float iChannelTime[4] = float[4](0.0, 0.0, 0.0, 0.0);`"},
    };
    for (size_t k = 0; k < sizeof uniforms / sizeof uniforms[0]; k++) {
        size_t l = strlen(uniforms[k].quoted);
        if (n >= l && !memcmp(msg, uniforms[k].quoted, l) && strstr(msg, "undeclared identifier"))
            return uniforms[k].declaration;
    }
    return NULL;
}

/* A glslang message that belongs to a line of the user's file: at the column of the
 * token it is about when the line holds that token once, else at the line alone. */
/* At a line of `src` without a column (glslang gives none): at the column of the
 * token the message is about when the line holds it once, else the line alone. */
void shf_report_in(front *f, const char *file, const char *src, size_t len, unsigned line,
                   const char *msg, const char *about)
{
    size_t start = 0;
    for (unsigned l = 1; l < line && start < len; start++)
        if (src[start] == '\n') l++;
    size_t end = start;
    while (end < len && src[end] != '\n')
        end++;
    unsigned col = *about ? fmag_glslang_token_column(src + start, end - start, about) : 0;
    f->failed = true;
    fmag_context_error_at(f->ctx, file, src, len, line, col, "%s", msg);
}

static void report_at_line(front *f, unsigned line, const char *msg, const char *about)
{
    shf_report_in(f, f->filename, f->src, f->len, line, msg, about);
}

/* glslang's linker reports recursion as "Linking fragment stage: Recursion detected:"
 * and, on the next line, "    f(f1; calling g(f1;" (mangled names, no position). One
 * diagnostic in the reader's words instead, at the first function's definition. */
static bool report_recursion(front *f, const char *msg, size_t n, const char *next)
{
    static const char key[] = "Recursion detected:";
    size_t kl = sizeof key - 1;
    if (n < kl || memcmp(msg + n - kl, key, kl)) return false;
    size_t flen = strlen(f->filename); /* shaderc puts "file:" before the line */
    if (!strncmp(next, f->filename, flen) && next[flen] == ':') next += flen + 1;
    while (*next == ' ' || *next == '\t')
        next++;
    size_t a = strcspn(next, "(\n");
    const char *callee = strstr(next, "calling ");
    const char *eol = strchr(next, '\n');
    if (!a || next[a] != '(' || !callee || (eol && callee > eol)) return false;
    callee += 8;
    size_t b = strcspn(callee, "(\n");
    char text[320];
    snprintf(text, sizeof text,
             "function '%.*s' is recursive ('%.*s' calls '%.*s'): FMAG programs have no call "
             "stack",
             (int)(a < 100 ? a : 100), next, (int)(a < 100 ? a : 100), next,
             (int)(b < 100 ? b : 100), callee);
    unsigned line = 0;
    int depth = 0;
    for (size_t i = 0; i + 1 < f->t.n && !line; i++) {
        if (shf_tok_punct(f, i, '{')) depth++;
        if (shf_tok_punct(f, i, '}')) depth--;
        if (depth == 0 && shf_tok_eq_str(f, i, next, a) && shf_tok_punct(f, i + 1, '(') &&
            shf_tok_punct(f, shf_skip_group(f, i + 1), '{'))
            line = f->t.v[i].line;
    }
    if (line) {
        char about[128];
        snprintf(about, sizeof about, "%.*s", (int)(a < 100 ? a : 100), next);
        report_at_line(f, line, text, about);
    } else {
        shf_front_error(f, 0, "%s", text);
    }
    return true;
}

/* "other.glsl:3: error: msg": a message about a file #include brought in, with NAME
 * possibly holding ':' (an embedder's "vfs:/x"): the first ": error: " preceded by
 * ":digits". The file (NULL when #include did not bring it in: a `#line 1
 * "/etc/passwd"` in an untrusted shader names that file, and nothing of it is quoted),
 * its name in name[], the line, and where "error: " starts; false when the line is not
 * of that form. */
static bool included_message(const front *f, const char *p, size_t n, const included **inc,
                             char *name, size_t cap, unsigned *line, const char **err)
{
    const char *end = NULL;
    for (const char *e = p; e + 9 <= p + n && !end; e++)
        if (!memcmp(e, ": error: ", 9)) end = e;
    if (!end) return false;
    const char *colon = end;
    while (colon > p && shf_is_digit(colon[-1]))
        colon--;
    if (colon == end || colon - 1 <= p || colon[-1] != ':') return false;
    *line = (unsigned)strtoul(colon, NULL, 10);
    size_t nlen = (size_t)(colon - 1 - p);
    *inc = NULL;
    for (size_t k = 0; k < f->nincl && !*inc; k++)
        if (strlen(f->incl[k].name) == nlen && !memcmp(f->incl[k].name, p, nlen))
            *inc = &f->incl[k];
    /* The name as the message gives it (an included file's in full, from its record). */
    snprintf(name, cap, "%.*s", (int)nlen, p);
    *err = end + 2;
    return true;
}

/* glslang's messages are "file:line: error: msg" (or "file: error: msg"), one a line, and
 * a count at the end; its HLSL parser adds "file(line): error at column C, msg". Each
 * becomes one FMAG diagnostic in SL's words (GlslangDiag.c): on the user's lines (or an
 * included file's) with the source line, and a caret where the column is known; errors
 * in the generated wrapper say so; an error that only follows from an earlier one is
 * left out. */
void shf_report(front *f, const char *log, unsigned user_lines)
{
    bool any = false, hlsl = f->lang == FMAG_SOURCE_HLSL;
    /* HLSL's parser follows a missing ';' with "'declaration' : Expected" on the same
     * line: a follow-on of the first, left out. */
    unsigned semi_line = 0;
    /* glslang gives an undeclared name type float, so what else it says about that line
     * (a swizzle "out of range", no texture() overload for a float, "cannot convert
     * from 'float' to 'uint'") follows from it: only more undeclared names are kept. */
    unsigned undeclared_line = 0;
    /* glslang reports an undeclared name at its first use only; a swizzle of it on a
     * later line ("'y': vector swizzle selection out of range") follows from it too. */
    bool any_undeclared = false;
    const void *semi_file = NULL, *undeclared_file = NULL;
    size_t flen = strlen(f->filename);
    char clean[512], about[64], name[512];
    for (const char *p = log; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        const char *q = p;
        unsigned line = 0;
        /* The file the message is about: the user's, or one #include brought in. */
        const char *file = f->filename, *text = f->src;
        size_t tlen = f->len;
        bool user = true;
        const included *inc = NULL;
        if (n > flen && !memcmp(q, f->filename, flen) && q[flen] == ':') {
            q += flen + 1;
            char *end;
            unsigned long l = strtoul(q, &end, 10);
            if (end != q && *end == ':') {
                line = (unsigned)l;
                q = end + 1;
            }
            while (*q == ' ')
                q++;
        } else if (included_message(f, p, n, &inc, name, sizeof name, &line, &q)) {
            file = inc ? inc->name : name, text = inc ? inc->text : NULL, tlen = inc ? inc->len : 0;
            user = false;
        }
        /* glslang's HLSL front end: "file(line): error at column C, message". */
        unsigned hl_line = 0, hl_col = 0;
        int used = 0;
        const char *h = p; /* shaderc may put "file: " before it */
        if (n > flen + 2 && !memcmp(h, f->filename, flen) && h[flen] == ':' && h[flen + 1] == ' ')
            h += flen + 2;
        size_t hn = n - (size_t)(h - p);
        if (hn > flen && !memcmp(h, f->filename, flen) &&
            sscanf(h + flen, "(%u): error at column %u, %n", &hl_line, &hl_col, &used) == 2 &&
            used > 0 && hl_line && hl_line <= user_lines) {
            if (fmag_glslang_message(h + flen + used, hn - flen - (size_t)used, hlsl, any, clean,
                                     sizeof clean, about, sizeof about)) {
                shf_front_error_col(f, hl_line, hl_col, clean);
                any = true;
            }
            p = eol ? eol + 1 : p + n;
            continue;
        }
        size_t rest = n - (size_t)(q - p);
        if (rest > 7 && !memcmp(q, "error: ", 7) && eol &&
            report_recursion(f, q + 7, rest - 7, eol + 1)) {
            any = true;
            const char *next = strchr(eol + 1, '\n');
            p = next ? next + 1 : eol + 1 + strlen(eol + 1);
            continue;
        }
        if (rest > 7 && !memcmp(q, "error: ", 7)) {
            q += 7, rest -= 7;
            if (!fmag_glslang_message(q, rest, hlsl, any, clean, sizeof clean, about,
                                      sizeof about)) {
                p = eol ? eol + 1 : p + n;
                continue;
            }
            const void *where = user ? (const void *)f : (const void *)inc;
            if (line && line == semi_line && where == semi_file &&
                !strcmp(clean, "expected declaration")) {
                p = eol ? eol + 1 : p + n;
                continue;
            }
            if (line && line == undeclared_line && where == undeclared_file &&
                strncmp(clean, "use of undeclared identifier", 28)) {
                p = eol ? eol + 1 : p + n;
                continue;
            }
            if (any_undeclared && strstr(clean, "vector swizzle selection out of range")) {
                p = eol ? eol + 1 : p + n;
                continue;
            }
            semi_line = !strcmp(clean, "expected ';'") ? line : 0, semi_file = where;
            if (!strncmp(clean, "use of undeclared identifier", 28))
                undeclared_line = line, undeclared_file = where, any_undeclared = true;
            any = true;
            const char *hint = shadertoy_hint(q, rest);
            bool builtin = !strncmp(q, "'gl_", 4) && strstr(clean, "undeclared identifier");
            const char *stage =
                !builtin                                            ? NULL
                : strstr(q, "Invocation") || strstr(q, "WorkGroup") ? "a compute shader"
                : strstr(q, "Vertex") || strstr(q, "Instance") || strstr(q, "DrawID")
                    ? "a vertex shader"
                    : NULL;
            char with[800];
            if (hint)
                snprintf(with, sizeof with,
                         "%s (a Shadertoy uniform: declare it, e.g. %s, or pass it as a "
                         "parameter of the entry)",
                         clean, hint);
            else if (stage && !strncmp(q, "'gl_WorkGroupSize'", 18))
                snprintf(with, sizeof with,
                         "%s (slc reads it from layout(local_size_x = N, ...) in; where each "
                         "size is an integer literal or constant, not an expression or a "
                         "specialization constant)",
                         clean);
            else if (stage)
                snprintf(with, sizeof with,
                         "%s (%s built-in: an FMAG program computes one element from its "
                         "inputs; pass the value as a parameter)",
                         clean, stage);
            else
                snprintf(with, sizeof with, "%s", clean);
            if (line && text && (!user || line <= user_lines)) {
                shf_report_in(f, file, text, tlen, line, with, about);
            } else if (line && !user) { /* a file #include did not bring in */
                f->failed = true;
                fmag_context_report(f->ctx, FMAG_DIAG_ERROR, file, line, 0, "%s", with);
            } else if (line) {
                shf_front_error(f, 0, "in the entry point slc generated%s%s: %s",
                                f->entry ? " for " : "", f->entry ? f->entry : "", with);
            } else {
                shf_front_error(f, 0, "%s", with);
            }
        }
        p = eol ? eol + 1 : p + n;
    }
    if (!any)
        shf_front_error(
            f, 0, "%s",
            *log ? log
                 : "shaderc failed without a message (out of memory, most likely: glslang "
                   "reports its other failures)");
}

#endif /* FMAG_HAVE_SHADERC */
