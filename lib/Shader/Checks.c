/* GLSL/HLSL front door: checks on the text before glslang sees it: macro expansion bounds, braces,
 * vertex outputs. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "GlslangDiag.h"
#include "ShaderFront.h"

#ifdef FMAG_HAVE_SHADERC

/* Whether the text has a preprocessor directive (a line whose first non-blank is '#').
 * Without one, preprocessing changes nothing the signature scan looks at (only the
 * predefined macros, which do not appear in declarations), so that glslang pass is
 * skipped: it costs as much as the compile itself. */
/* glslang's preprocessor expands macros without a bound: `#define A1(x) A0(x)A0(x)`
 * and so on, 22 levels in 1 KB, took 3 GB before it was killed. So the user's
 * #defines are sized from the text first: a macro is its body's tokens, a macro named
 * in it counting as its own size (memoized; one that is being sized counts 1, as the
 * preprocessor does not expand a macro inside itself). A use outside the directives
 * of a macro past FRONT_MAX_EXPANSION tokens is an error at its line. Macros from
 * #include files and -D are not seen here (their expansion is bounded only by memory). */
enum { FRONT_MAX_EXPANSION = 1000000 };

typedef struct macro_def {
    const char *name, *params, *body; /* params: between the parentheses, or NULL */
    size_t nlen, plen, blen;
    uint64_t size; /* the body's tokens but the parameters'; 0: not sized yet */
    uint64_t uses; /* how many times the body names a parameter */
    bool sizing;
} macro_def;

static size_t ident_len(const char *s, size_t n)
{
    size_t k = 0;
    if (n && shf_is_ident_start(s[0]))
        for (k = 1; k < n && (shf_is_ident_start(s[k]) || shf_is_digit(s[k]));)
            k++;
    return k;
}

static macro_def *find_macro(macro_def *m, size_t nm, const char *s, size_t n)
{
    for (size_t k = 0; k < nm; k++)
        if (m[k].nlen == n && !memcmp(m[k].name, s, n)) return &m[k];
    return NULL;
}

static bool is_param(const macro_def *d, const char *s, size_t n)
{
    for (size_t i = 0; d->params && i < d->plen;) {
        size_t k = ident_len(d->params + i, d->plen - i);
        if (k == n && !memcmp(d->params + i, s, n)) return true;
        i += k ? k : 1;
    }
    return false;
}

static void macro_measure(macro_def *m, size_t nm, macro_def *d, unsigned depth);

/* Tokens that text [s, s + n) expands to, at most: a call `M(args)` of a function-like
 * macro is M's own tokens plus, for each time M's body names a parameter, all the
 * arguments' tokens (so nesting, `D1(x) D0(D0(x))`, multiplies as it does in the
 * preprocessor). Parameters of `in` (the macro being measured) count in *uses. */
static uint64_t text_size(macro_def *m, size_t nm, const macro_def *in, const char *s, size_t n,
                          uint64_t *uses, unsigned depth)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n;) {
        size_t k = ident_len(s + i, n - i);
        if (!k) {
            total += s[i] != ' ' && s[i] != '\t' && s[i] != '\\';
            i++;
            continue;
        }
        macro_def *e = find_macro(m, nm, s + i, k);
        if (in && uses && is_param(in, s + i, k)) {
            *uses = shf_add_sat(*uses, 1);
        } else if (!e) {
            total = shf_add_sat(total, 1);
        } else {
            macro_measure(m, nm, e, depth + 1);
            size_t j = i + k;
            while (j < n && (s[j] == ' ' || s[j] == '\t'))
                j++;
            if (e->params && j < n && s[j] == '(') {
                size_t close = j, level = 0;
                for (; close < n; close++) {
                    level += s[close] == '(';
                    level -= s[close] == ')';
                    if (!level) break;
                }
                uint64_t au = 0; /* parameters of `in` named in the arguments */
                uint64_t args =
                    text_size(m, nm, in, s + j + 1, close - j - (close < n), &au, depth + 1);
                total = shf_add_sat(total, shf_add_sat(e->size, shf_mul_sat(e->uses, args)));
                if (uses) *uses = shf_add_sat(*uses, shf_mul_sat(e->uses, au));
                i = close < n ? close + 1 : n;
                continue;
            }
            total = shf_add_sat(total, e->size);
        }
        i += k;
    }
    return total;
}

/* Sizes d once (memoized; a macro met again while it is being sized counts 1, as the
 * preprocessor does not expand a macro inside itself). */
static void macro_measure(macro_def *m, size_t nm, macro_def *d, unsigned depth)
{
    if (d->size || d->sizing) return;
    if (depth > 200) {
        d->size = 1;
        return;
    }
    d->sizing = true;
    uint64_t size = text_size(m, nm, d, d->body, d->blen, &d->uses, depth);
    d->size = size ? size : 1;
    d->sizing = false;
}

/* The end of the logical line from i (a '\\' before the newline continues it). */
static size_t logical_line_end(const char *s, size_t n, size_t i)
{
    size_t e = i;
    while (e < n && (s[e] != '\n' || (e > i && s[e - 1] == '\\')))
        e++;
    return e;
}

static size_t skip_line_blanks(const char *s, size_t k, size_t e)
{
    while (k < e && (s[k] == ' ' || s[k] == '\t'))
        k++;
    return k;
}

/* False (with the diagnostic) when a macro used in the text expands past the bound.
 * At most 4096 macros are sized (a linear search each: the bound keeps it cheap);
 * out of memory skips the check. */
bool shf_macros_bounded(front *f, const char *s, size_t n)
{
    enum { MAX_MACROS = 4096 };
    macro_def *m = fmag_tmp_malloc(MAX_MACROS * sizeof *m);
    if (!m) return true;
    size_t nm = 0;
    for (size_t i = 0; i < n && nm < MAX_MACROS;) { /* collect: # define NAME[(...)] body */
        size_t e = logical_line_end(s, n, i), k = skip_line_blanks(s, i, e);
        if (k < e && s[k] == '#') {
            k = skip_line_blanks(s, k + 1, e);
            if (e - k > 6 && !memcmp(s + k, "define", 6) && (s[k + 6] == ' ' || s[k + 6] == '\t')) {
                k = skip_line_blanks(s, k + 7, e);
                size_t nl = ident_len(s + k, e - k);
                if (nl) {
                    macro_def d = {s + k, NULL, NULL, nl, 0, 0, 0, 0, false};
                    k += nl;
                    if (k < e && s[k] == '(') { /* no blank between: function-like */
                        d.params = s + k + 1;
                        while (k < e && s[k] != ')')
                            k++;
                        d.plen = (size_t)(s + k - d.params);
                        k += k < e;
                    }
                    d.body = s + k, d.blen = e - k;
                    m[nm++] = d;
                }
            }
        }
        i = e + 1;
    }
    bool ok = true;
    unsigned line = 1;
    for (size_t i = 0; i < n && nm && ok;) { /* uses, outside the directive lines */
        size_t e = logical_line_end(s, n, i), k = skip_line_blanks(s, i, e);
        for (k = k < e && s[k] == '#' ? e : k; k < e && ok;) {
            size_t il = ident_len(s + k, e - k);
            if (!il) {
                k++;
                continue;
            }
            macro_def *d = find_macro(m, nm, s + k, il);
            if (!d) {
                k += il;
                continue;
            }
            /* The use with its arguments, up to the end of the line. */
            size_t j = k + il;
            while (j < e && (s[j] == ' ' || s[j] == '\t'))
                j++;
            size_t close = j, level = 0;
            if (d->params && j < e && s[j] == '(')
                for (; close < e; close++) {
                    level += s[close] == '(';
                    level -= s[close] == ')';
                    if (!level) break;
                }
            size_t end = d->params && j < e && s[j] == '(' ? (close < e ? close + 1 : e) : k + il;
            if (text_size(m, nm, NULL, s + k, end - k, NULL, 0) > FRONT_MAX_EXPANSION) {
                shf_front_error(f, line, "macro '%.*s' expands to more than %d tokens", (int)il,
                                s + k, FRONT_MAX_EXPANSION);
                ok = false;
            }
            k = end;
        }
        for (size_t c = i; c < e; c++)
            line += s[c] == '\n';
        line++;
        i = e + 1;
    }
    fmag_tmp_free(m);
    return ok;
}

bool shf_has_directive(const char *s, size_t n)
{
    bool line_start = true;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n') {
            line_start = true;
        } else if (s[i] == '#' && line_start) {
            return true;
        } else if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') {
            line_start = false;
        }
    }
    return false;
}

/* A '{' the user's text leaves open would swallow the wrapper slc appends, and glslang
 * would then shf_report the wrapper's lines ("'in' : not allowed in nested scope"); the
 * open brace is the error, at the brace (its column when the text was not
 * preprocessed, so that offsets in f->pp are offsets in the user's text). */
bool shf_braces_closed(front *f)
{
    size_t open[64], depth = 0;
    for (size_t i = 0; i < f->t.n; i++) {
        if (shf_tok_punct(f, i, '{')) {
            if (depth < sizeof open / sizeof open[0]) open[depth] = i;
            depth++;
        } else if (shf_tok_punct(f, i, '}') && depth) {
            depth--;
        }
    }
    if (!depth) return true;
    /* The innermost brace still open (past 64 levels, the 64th). */
    const tok *t = &f->t.v[open[depth <= 64 ? depth - 1 : 63]];
    const char *msg = "this '{' is not closed: expected '}' before the end of the input";
    if (f->pplen == f->len && !memcmp(f->pp, f->src, f->len)) {
        f->failed = true;
        fmag_context_source_error(f->ctx, f->filename, f->src, f->len, t->off, "%s", msg);
    } else if (t->line) { /* the user's line; a caret when it has one '{' */
        shf_report_in(f, f->filename, f->src, f->len, t->line, msg, "{");
    } else { /* in a file #include brought in: its name and line from the #line before it */
        const char *file = NULL;
        size_t flen = 0;
        unsigned line = 0;
        for (size_t i = 0; i < t->off; i++) {
            if (f->pp[i] == '\n') line++;
            if ((i == 0 || f->pp[i - 1] == '\n') && !strncmp(f->pp + i, "#line ", 6)) {
                line = (unsigned)strtoul(f->pp + i + 6, NULL, 10) - 1;
                const char *q = memchr(f->pp + i, '"', t->off - i);
                const char *e = q ? memchr(q + 1, '"', t->off - (size_t)(q + 1 - f->pp)) : NULL;
                file = e ? q + 1 : NULL, flen = e ? (size_t)(e - q - 1) : 0;
            }
        }
        const included *inc = NULL;
        for (size_t k = 0; file && k < f->nincl && !inc; k++)
            if (strlen(f->incl[k].name) == flen && !memcmp(f->incl[k].name, file, flen))
                inc = &f->incl[k];
        if (inc)
            shf_report_in(f, inc->name, inc->text, inc->len, line, msg, "{");
        else
            shf_front_error(f, 0, "%s", msg);
    }
    return false;
}

/* A vertex shader's main() writes gl_Position (and gl_PointSize), which a fragment
 * shader does not have: they become private variables, _fmag_gl_Position, declared
 * before the first declaration, and the writes are dropped with them. The program's
 * outputs are its `out` variables, as for any stage. False when out of memory. */
bool shf_vertex_outputs_private(front *f)
{
    static const struct {
        const char *name, *decl;
    } outs[] = {{"gl_Position", "vec4 _fmag_gl_Position; "},
                {"gl_PointSize", "float _fmag_gl_PointSize; "}};
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < f->t.n && first == SIZE_MAX; i++)
        if (f->pp[f->t.v[i].off] != ' ') first = i;
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++) {
        bool used = false;
        for (size_t i = 0; i < f->t.n; i++) {
            if (!shf_tok_is(f, i, outs[o].name) || shf_tok_punct(f, i - 1, '.')) continue;
            if (!shf_add_edit(f, i, "_fmag_")) return false; /* blanked ones are not shf_tok_is */
            used = true;
        }
        if (used && first != SIZE_MAX && !shf_add_decl_edit(f, first, outs[o].decl)) return false;
    }
    return true;
}

#endif /* FMAG_HAVE_SHADERC */
