/* The GLSL/HLSL front door (SPEC §5b): source text to legalized SPIR-V through shaderc,
 * with a generated entry point that fixes the program's interface.
 *
 * glslang drops every function main() does not call, and the optimizer inlines the rest,
 * so "-entry NAME" cannot be found in the SPIR-V afterwards. Instead the source is first
 * preprocessed, the entry's signature is read from the preprocessed text, and a wrapper
 * entry point is appended that reads one float Input variable per scalar input (locations
 * 0..nin-1, in the order of SPEC §5b), calls NAME, and writes one float Output variable
 * per scalar output (locations 0..nout-1). Without -entry the user's main() is renamed,
 * its global `in`, `out` and non-opaque `uniform` variables become private globals, and
 * the wrapper copies them in and out the same way. So whatever the user wrote, the SPIR-V
 * reader sees one entry point whose interface is float scalars in location order.
 *
 * Every edit keeps the line structure of the preprocessed text (which keeps the line
 * numbers of the original) and the wrapper is appended after the last line, so glslang's
 * "file:line" diagnostics point into the user's file unchanged.
 *
 * Built only when CMake finds shaderc and SPIRV-Tools (FMAG_HAVE_SHADERC); otherwise every
 * entry point records "built without GLSL/HLSL input". */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmag/Shader.h"
#include "GlslangDiag.h"

#ifdef FMAG_HAVE_SHADERC
#include <shaderc/shaderc.h>
#endif

bool fmag_shader_input_available(void)
{
    return fmag_shader_input_missing() == NULL;
}

const char *fmag_shader_input_missing(void)
{
#if defined(FMAG_HAVE_SHADERC)
    return NULL;
#elif defined(FMAG_AMALGAMATION)
    /* glslang and shaderc are C++ libraries: no header can hold them */
    return "the single header fmag.h has no GLSL/HLSL front: compile the shader to SPIR-V "
           "(glslangValidator -V, glslc) and pass the .spv, or link the installed FMAG "
           "library (libfmag), which reads GLSL and HLSL";
#else
    return "it needs shaderc and SPIRV-Tools: install libshaderc-dev and spirv-tools, then "
           "reconfigure";
#endif
}

const char *fmag_source_language_name(fmag_source_language lang)
{
    switch (lang) {
    case FMAG_SOURCE_GLSL:
        return "glsl";
    case FMAG_SOURCE_HLSL:
        return "hlsl";
    }
    return "?";
}

#ifndef FMAG_HAVE_SHADERC

fmag_shader_compiler *fmag_shader_compiler_create(void)
{
    return NULL;
}

void fmag_shader_compiler_destroy(fmag_shader_compiler *c)
{
    (void)c;
}

bool fmag_shader_to_spirv_opts(fmag_shader_compiler *compiler, fmag_context *ctx,
                               const char *filename, const char *src, size_t len,
                               fmag_source_language lang, const fmag_spirv_options *opts,
                               fmag_shader_spirv *out)
{
    (void)compiler, (void)src, (void)len, (void)lang, (void)opts;
    memset(out, 0, sizeof *out);
    fmag_context_report(ctx, FMAG_DIAG_ERROR, filename ? filename : "<input>", 0, 0,
                        "built without GLSL/HLSL input (%s)", fmag_shader_input_missing());

    return false;
}

#else /* FMAG_HAVE_SHADERC */

/* ------------------------------------------------------------ text buffer */

typedef struct strbuf {
    char *p;
    size_t n, cap;
    bool oom;
} strbuf;

static void sb_put(strbuf *b, const char *s, size_t n)
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
static void
sb_printf(strbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        sb_put(b, tmp, (size_t)n);
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
    sb_put(b, big, (size_t)n);
    fmag_tmp_free(big);
}

/* ------------------------------------------------------------- tokenizer */

/* Just enough of a C-family tokenizer to find declarations in preprocessed text:
 * identifiers, numbers and single punctuation characters; directives are skipped. */
typedef enum { TK_IDENT, TK_NUM, TK_PUNCT } tok_kind;

typedef struct tok {
    tok_kind kind;
    size_t off, len;
    unsigned line;
} tok;

typedef struct toks {
    tok *v;
    size_t n, cap;
} toks;

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(char c)
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
    while (i < n && is_digit(s[i]) && v < 100000000)
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
static bool tokenize(const char *s, size_t n, const char *file, toks *out)
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
        if (is_ident_start(c)) {
            t.kind = TK_IDENT;
            while (i + t.len < n && (is_ident_start(s[i + t.len]) || is_digit(s[i + t.len])))
                t.len++;
        } else if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]))) {
            t.kind = TK_NUM;
            while (i + t.len < n &&
                   (is_ident_start(s[i + t.len]) || is_digit(s[i + t.len]) || s[i + t.len] == '.' ||
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

/* ------------------------------------------------------------- the front */

/* A file #include brought in, kept for diagnostics about its lines (shaderc has
 * released its own copy by the time glslang reports them). */
typedef fmag_shader_file included;

typedef struct front {
    fmag_context *ctx;
    const char *filename;
    const char *src; /* the user's text, for diagnostics */
    size_t len;
    fmag_source_language lang;
    const char *entry;
    bool entry_implied;              /* HLSL without -entry: "main" was not the user's word */
    const char *const *include_dirs; /* #include's search path (fmag_spirv_options) */
    size_t ninclude_dirs;
    char unfound[256]; /* the last quoted #include not found (glslang then asks for <it>) */
    fmag_include_fn include_fn; /* the embedder's resolver, tried first */
    void *include_user;
    const char *const *defines; /* "NAME" or "NAME=VALUE" */
    size_t ndefines;
    included *incl; /* the files #include read (malloc: shaderc's side of the guards) */
    size_t nincl;
    char *pp; /* preprocessed text, edited in place (same length) */
    size_t pplen;
    toks t;
    size_t main_tok;    /* the user's main (renamed), or SIZE_MAX */
    struct edit *edits; /* insertions made when the text is put together, by offset */
    size_t nedits, capedits;
    struct fstruct *structs; /* file-scope structs of float types, in definition order */
    size_t nstructs, capstructs;
    struct smember *members; /* their members, each struct's contiguous */
    size_t nmembers, capmembers;
    /* Calls that inlining the entry makes, from the text (inline_estimate): past
     * FRONT_SPIRV_INLINE_MAX the SPIR-V is compiled without spirv-opt. */
    uint64_t inline_calls;
    /* The work group size from `layout(local_size_x = X, ...) in;` declarations, for
     * gl_WorkGroupSize: given (some dimension named), unknown (one not an integer
     * constant: an expression, a specialization constant's local_size_x_id). */
    unsigned workgroup[3];
    bool workgroup_given, workgroup_unknown;
    char workgroup_size[64]; /* `uvec3(X, Y, Z)` when given and known */
    bool failed;
} front;

/* Text put before pp[off] when the text glslang compiles is put together: `struct` before
 * a block that becomes a private struct variable. Edits never add a line, so glslang's
 * line numbers stay the user's. */
typedef struct edit {
    size_t off;
    const char *text;
    size_t seq; /* at one offset: declarations (0) first, then in the order made */
} edit;

static bool tok_is(const front *f, size_t i, const char *s)
{
    if (i >= f->t.n) return false;
    size_t n = strlen(s);
    return f->t.v[i].len == n && !memcmp(f->pp + f->t.v[i].off, s, n);
}

static bool tok_punct(const front *f, size_t i, char c)
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
static void
front_error(front *f, unsigned line, const char *fmt, ...)
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
static void front_error_col(front *f, unsigned line, unsigned col, const char *msg)
{
    size_t off = line_offset(f, line);
    while (col > 1 && off < f->len && f->src[off] != '\n')
        off++, col--;
    f->failed = true;
    fmag_context_source_error(f->ctx, f->filename, f->src, f->len, off, "%s", msg);
}

/* A float type the interface can scalarize: rows x cols floats, or a struct of such
 * types (strct: 1 + its index in f->structs), times an array length. cols counts GLSL
 * columns (matCxR) and HLSL columns (floatRxC) alike; scalarization is column by column
 * in both languages (element [row][col] of the mathematical matrix), a struct member
 * by member. */
typedef struct ftype {
    unsigned rows, cols, array; /* array 0: not an array */
    unsigned strct;
    /* An input of an integer or bool scalar or vector type (FTYPE_INT, _UINT, _BOOL;
     * 0: float): passed as a float, converted as int(x), uint(x), bool(x) do. */
    unsigned base;
} ftype;

enum { FTYPE_FLOAT, FTYPE_INT, FTYPE_UINT, FTYPE_BOOL };

/* A struct the interface can scalarize (all members float types), and its members. */
typedef struct smember {
    size_t name; /* token */
    ftype ty;
} smember;

typedef struct fstruct {
    size_t name;         /* token */
    size_t first, count; /* members: f->members[first .. first + count - 1] */
    unsigned size;       /* scalars */
    unsigned depth;      /* 1 + the deepest struct member's depth */
} fstruct;

/* Limits that keep the wrapper's expressions (`a[3].b.c[1].d`) and size bounded; the
 * SPIR-V reader takes at most 65536 scalars per variable too. */
enum { FRONT_MAX_NAME = 256, FRONT_MAX_DEPTH = 4, FRONT_MAX_SCALARS = 65536 };
enum { FRONT_MAX_LOCATIONS = 4095 }; /* one scalar per location: glslang takes 0..4094 */

static unsigned ftype_size(const front *f, ftype t)
{
    unsigned one = t.strct ? f->structs[t.strct - 1].size : t.rows * t.cols;
    return one * (t.array ? t.array : 1);
}

/* Reads a type name: float vecN matN matCxR (GLSL), float floatN floatRxC and the half
 * and minimum-precision spellings (HLSL; glslang makes them 32-bit floats by default),
 * or a struct of them defined earlier in the file. */
static bool parse_type_name(const front *f, size_t i, ftype *ty)
{
    if (i >= f->t.n || f->t.v[i].kind != TK_IDENT) return false;
    const char *s = f->pp + f->t.v[i].off;
    size_t n = f->t.v[i].len;
    memset(ty, 0, sizeof *ty);
    for (size_t k = 0; k < f->nstructs; k++) {
        const tok *t = &f->t.v[f->structs[k].name];
        if (t->len == n && !memcmp(f->pp + t->off, s, n)) {
            ty->strct = (unsigned)k + 1;
            return true;
        }
    }
    char name[32];
    if (n >= sizeof name) return false;
    memcpy(name, s, n), name[n] = 0;
    unsigned a, b;
    char extra;
    if (!strcmp(name, "float") || (f->lang == FMAG_SOURCE_HLSL && !strcmp(name, "half"))) {
        ty->rows = ty->cols = 1;
        return true;
    }
    if (f->lang == FMAG_SOURCE_GLSL) {
        if (sscanf(name, "vec%u%c", &a, &extra) == 1 && a >= 2 && a <= 4 && n == 4) {
            ty->rows = a, ty->cols = 1;
            return true;
        }
        if (sscanf(name, "mat%ux%u%c", &a, &b, &extra) == 2 && a >= 2 && a <= 4 && b >= 2 &&
            b <= 4 && n == 6) {
            ty->cols = a, ty->rows = b;
            return true;
        }
        if (sscanf(name, "mat%u%c", &a, &extra) == 1 && a >= 2 && a <= 4 && n == 4) {
            ty->cols = ty->rows = a;
            return true;
        }
        return false;
    }
    /* min16float and min10float are minimum precisions: glslang gives them 32 bits. */
    const char *base = !strncmp(name, "float", 5) ? name + 5
                       : !strncmp(name, "half", 4) ? name + 4
                       : !strncmp(name, "min16float", 10) ? name + 10
                       : !strncmp(name, "min10float", 10) ? name + 10
                                                          : NULL;
    if (!base) return false;
    if (!*base) {
        ty->rows = ty->cols = 1;
        return true;
    }
    if (sscanf(base, "%ux%u%c", &a, &b, &extra) == 2 && a >= 1 && a <= 4 && b >= 1 && b <= 4 &&
        strlen(base) == 3) {
        ty->rows = a, ty->cols = b;
        return true;
    }
    if (sscanf(base, "%u%c", &a, &extra) == 1 && a >= 1 && a <= 4 && strlen(base) == 1) {
        ty->rows = a, ty->cols = 1;
        return true;
    }
    return false;
}

/* An input's type (a uniform, a global `in`): a float type, or an integer or bool
 * scalar or vector (GLSL `int uint bool ivecN uvecN bvecN`, HLSL `int uint bool intN
 * uintN boolN`), which the caller passes as a float holding the value
 * (docs/SPIRV.md). */
static bool parse_input_type(const front *f, size_t i, ftype *ty)
{
    if (parse_type_name(f, i, ty)) return true;
    static const char *const glsl[] = {"int", "uint", "bool"}, *const glslv[] = {"ivec", "uvec",
                                                                                 "bvec"};
    const tok *t = &f->t.v[i];
    if (t->kind != TK_IDENT) return false;
    const char *s = f->pp + t->off;
    size_t len = t->len;
    /* HLSL's minimum-precision integers are 32-bit to glslang, as min16float is. */
    if (f->lang == FMAG_SOURCE_HLSL && len > 5 &&
        (!memcmp(s, "min16", 5) || !memcmp(s, "min12", 5)) && s[5] != 'f')
        s += 5, len -= 5;
    for (unsigned b = 0; b < 3; b++) {
        size_t n = strlen(glsl[b]);
        if (len == n && !memcmp(s, glsl[b], n)) {
            ty->rows = ty->cols = 1, ty->base = FTYPE_INT + b;
            return true;
        }
        const char *vec = f->lang == FMAG_SOURCE_GLSL ? glslv[b] : glsl[b];
        size_t m = strlen(vec);
        if (len == m + 1 && !memcmp(s, vec, m) && s[m] >= '2' && s[m] <= '4') {
            ty->rows = (unsigned)(s[m] - '0'), ty->cols = 1, ty->base = FTYPE_INT + b;
            return true;
        }
    }
    return false;
}

/* The value of an array size: an integer literal, or a file-scope `const int NAME = N;`
 * (macros are already expanded). 0 when it cannot be read. */
static unsigned array_size(const front *f, size_t i)
{
    if (i >= f->t.n) return 0;
    const tok *t = &f->t.v[i];
    if (t->kind == TK_NUM) {
        char *end;
        unsigned long v = strtoul(f->pp + t->off, &end, 0);
        if (*end == 'u' || *end == 'U') end++;
        return (size_t)(end - (f->pp + t->off)) == t->len && v > 0 && v <= 4096 ? (unsigned)v : 0;
    }
    if (t->kind != TK_IDENT) return 0;
    for (size_t k = 0; k + 4 < f->t.n; k++) {
        if ((tok_is(f, k, "int") || tok_is(f, k, "uint")) && f->t.v[k + 1].len == t->len &&
            !memcmp(f->pp + f->t.v[k + 1].off, f->pp + t->off, t->len) &&
            tok_punct(f, k + 2, '=') && f->t.v[k + 3].kind == TK_NUM && tok_punct(f, k + 4, ';'))
            return array_size(f, k + 3);
    }
    return 0;
}

/* Index past the bracket group starting at i (which is '('/'['/'{'), or n on imbalance. */
static size_t skip_group(const front *f, size_t i)
{
    int depth = 0;
    for (; i < f->t.n; i++) {
        if (f->t.v[i].kind != TK_PUNCT) continue;
        char c = f->pp[f->t.v[i].off];
        if (c == '(' || c == '[' || c == '{') depth++;
        if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) return i + 1;
        }
    }
    return f->t.n;
}

static bool same_name(const front *f, size_t a, size_t b)
{
    return f->t.v[a].len == f->t.v[b].len &&
           !memcmp(f->pp + f->t.v[a].off, f->pp + f->t.v[b].off, f->t.v[a].len);
}

static bool tok_eq_str(const front *f, size_t i, const char *s, size_t n)
{
    return i < f->t.n && f->t.v[i].len == n && !memcmp(f->pp + f->t.v[i].off, s, n);
}

typedef enum { DIR_IN, DIR_OUT, DIR_INOUT } pdir;

typedef struct param {
    pdir dir;
    ftype ty;
} param;

typedef struct signature {
    bool has_result;
    ftype result;
    param *params;
    unsigned nparams;
    unsigned line;
} signature;

static bool is_param_qualifier(const front *f, size_t i)
{
    static const char *const q[] = {"const",         "highp",  "mediump",  "lowp",
                                    "precise",       "linear", "centroid", "nointerpolation",
                                    "noperspective", "sample", "uniform",  "row_major",
                                    "column_major",  "snorm",  "unorm"};
    for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
        if (tok_is(f, i, q[k])) return true;
    return false;
}

/* Reads a type at i, with an optional [N] after it (GLSL's `float[3] x`). Returns the index
 * after it, or 0 (with a diagnostic naming `what`) when it is not a float type. */
static size_t parse_type(front *f, size_t i, ftype *ty, const char *what)
{
    if (!parse_type_name(f, i, ty)) {
        if (i < f->t.n)
            front_error(f, f->t.v[i].line,
                        "%s has type '%.*s'; %s takes float scalars, vectors, matrices, "
                        "structs of them and arrays of these",
                        what, (int)f->t.v[i].len, f->pp + f->t.v[i].off,
                        f->entry_implied ? "the entry point" : "-entry");
        else
            front_error(f, 0, "%s: cannot read its type", what);
        return 0;
    }
    i++;
    if (tok_punct(f, i, '[')) {
        ty->array = array_size(f, i + 1);
        if (!ty->array || !tok_punct(f, i + 2, ']')) {
            front_error(f, f->t.v[i].line, "%s: array size is not an integer constant", what);
            return 0;
        }
        i += 3;
    }
    return i;
}

/* Parses the parameter tokens [b, e). */
static bool parse_param(front *f, size_t b, size_t e, param *p, unsigned index)
{
    char what[64];
    snprintf(what, sizeof what, "parameter %u of '%s'", index + 1, f->entry);
    p->dir = DIR_IN;
    size_t i = b;
    for (;; i++) {
        if (tok_punct(f, i, '[') && tok_punct(f, i + 1, '[')) /* [[vk::location(3)]] */
            i = skip_group(f, i) - 1;
        else if (tok_is(f, i, "in"))
            p->dir = DIR_IN;
        else if (tok_is(f, i, "out"))
            p->dir = DIR_OUT;
        else if (tok_is(f, i, "inout"))
            p->dir = DIR_INOUT;
        else if (!is_param_qualifier(f, i))
            break;
    }
    if (i >= e) {
        front_error(f, f->t.v[b].line, "%s: no type", what);
        return false;
    }
    i = parse_type(f, i, &p->ty, what);
    if (!i) return false;
    if (i < e && f->t.v[i].kind == TK_IDENT) i++; /* the name */
    if (tok_punct(f, i, '[')) {
        if (p->ty.array) {
            front_error(f, f->t.v[i].line, "%s: arrays of arrays are not supported", what);
            return false;
        }
        p->ty.array = array_size(f, i + 1);
        if (!p->ty.array || !tok_punct(f, i + 2, ']')) {
            front_error(f, f->t.v[i].line, "%s: array size is not an integer constant", what);
            return false;
        }
        i += 3;
    }
    /* HLSL semantics and default values are irrelevant here. */
    if (i < e && !tok_punct(f, i, ':') && !tok_punct(f, i, '=')) {
        front_error(f, f->t.v[i].line, "%s: unexpected '%.*s'", what, (int)f->t.v[i].len,
                    f->pp + f->t.v[i].off);
        return false;
    }
    return true;
}

/* Finds the first definition of f->entry at file scope and reads its signature. */
static bool find_signature(front *f, signature *sig)
{
    size_t nlen = strlen(f->entry);
    int depth = 0;
    for (size_t i = 0; i < f->t.n; i++) {
        if (tok_punct(f, i, '{')) depth++;
        if (tok_punct(f, i, '}')) depth--;
        if (depth != 0 || !tok_eq_str(f, i, f->entry, nlen) || !tok_punct(f, i + 1, '(') || i == 0)
            continue;
        size_t close = skip_group(f, i + 1); /* index after ')' */
        size_t k = close;
        if (tok_punct(f, k, ':') && k + 1 < f->t.n) k += 2; /* HLSL return semantic */
        if (!tok_punct(f, k, '{')) continue;                /* a prototype or a call */
        memset(sig, 0, sizeof *sig);
        sig->line = f->t.v[i].line;
        /* The result type: `T NAME(` or `T[N] NAME(`. */
        size_t r = i - 1;
        unsigned rarray = 0;
        if (tok_punct(f, r, ']') && r >= 3 && tok_punct(f, r - 2, '[')) {
            rarray = array_size(f, r - 1);
            r -= 3;
        }
        char what[80];
        snprintf(what, sizeof what, "the result of '%s'", f->entry);
        if (tok_is(f, r, "void") && !rarray) {
            sig->has_result = false;
        } else {
            if (!parse_type(f, r, &sig->result, what)) return false;
            sig->result.array = rarray;
            sig->has_result = true;
        }
        /* The parameters, split at top-level commas. */
        size_t b = i + 2, e = close - 1;
        if (b == e || (e == b + 1 && tok_is(f, b, "void"))) return true;
        unsigned count = 1;
        for (size_t j = b; j < e; j++) {
            if (tok_punct(f, j, '(') || tok_punct(f, j, '['))
                j = skip_group(f, j) - 1;
            else if (tok_punct(f, j, ','))
                count++;
        }
        sig->params = fmag_tmp_calloc(count, sizeof *sig->params);
        if (!sig->params) return false;
        size_t start = b;
        for (size_t j = b; j <= e; j++) {
            if (j < e && (tok_punct(f, j, '(') || tok_punct(f, j, '['))) {
                j = skip_group(f, j) - 1;
                continue;
            }
            if (j == e || tok_punct(f, j, ',')) {
                if (!parse_param(f, start, j, &sig->params[sig->nparams], sig->nparams)) {
                    fmag_tmp_free(sig->params);
                    sig->params = NULL;
                    return false;
                }
                sig->nparams++;
                start = j + 1;
            }
        }
        return true;
    }
    if (f->entry_implied)
        front_error(f, 0, "no main() in the file: pass -entry NAME to pick a function");
    else
        front_error(f, 0, "no function '%s' defined in the file (-entry)", f->entry);
    return false;
}

/* --------------------------------------------------------- code generation */

static const char *in_name = "_fmag_in", *out_name = "_fmag_out";

static void type_name(const front *f, strbuf *b, ftype t)
{
    bool glsl = f->lang == FMAG_SOURCE_GLSL;
    if (t.base != FTYPE_FLOAT) {
        static const char *const scalar[] = {"int", "uint", "bool"}, *const vec[] = {"i", "u", "b"};
        const char *s = scalar[t.base - FTYPE_INT];
        if (t.rows == 1)
            sb_printf(b, "%s", s);
        else if (glsl)
            sb_printf(b, "%svec%u", vec[t.base - FTYPE_INT], t.rows);
        else
            sb_printf(b, "%s%u", s, t.rows);
        return;
    }
    if (t.strct) {
        const tok *n = &f->t.v[f->structs[t.strct - 1].name];
        sb_put(b, f->pp + n->off, n->len);
    } else if (t.rows == 1 && t.cols == 1)
        sb_put(b, "float", 5);
    else if (t.cols == 1)
        sb_printf(b, glsl ? "vec%u" : "float%u", t.rows);
    else if (glsl)
        sb_printf(b, "mat%ux%u", t.cols, t.rows);
    else
        sb_printf(b, "float%ux%u", t.rows, t.cols);
}

/* Writes the value of one (non-array) element built from inputs base, base+1, ... in the
 * interface's order: vectors by component, matrices column by column. */
static void element_from_inputs(const front *f, strbuf *b, ftype t, unsigned base)
{
    if (t.base == FTYPE_BOOL) {
        /* bool(int(x)): true when the integer part is non-zero, as the .spv path reads
         * it (a bool uniform is a uint there, and the reader truncates integer inputs). */
        ftype i = t;
        i.base = FTYPE_INT;
        type_name(f, b, t);
        sb_put(b, "(", 1);
        element_from_inputs(f, b, i, base);
        sb_put(b, ")", 1);
        return;
    }
    if (t.rows == 1 && t.cols == 1) {
        if (t.base != FTYPE_FLOAT) { /* int(x): the conversion the language defines */
            type_name(f, b, t);
            sb_printf(b, "(%s%u)", in_name, base);
        } else {
            sb_printf(b, "%s%u", in_name, base);
        }
        return;
    }
    ftype el = t;
    el.array = 0;
    type_name(f, b, el);
    sb_put(b, "(", 1);
    bool glsl = f->lang == FMAG_SOURCE_GLSL;
    unsigned n = t.rows * t.cols;
    for (unsigned k = 0; k < n; k++) {
        /* GLSL constructors take columns; HLSL constructors take rows. */
        unsigned idx = glsl ? k : (k % t.cols) * t.rows + k / t.cols;
        sb_printf(b, "%s%s%u", k ? ", " : "", in_name, base + idx);
    }
    sb_put(b, ")", 1);
}

/* Assigns variable `var` (of type t) from the inputs starting at *next. */
/* Writes outputs *next, ... from `elem`, one value of a float type t (no array, no
 * struct): vectors by component, matrices column by column. */
static void element_to_outputs(const front *f, strbuf *b, const char *elem, ftype t, unsigned *next)
{
    bool glsl = f->lang == FMAG_SOURCE_GLSL;
    for (unsigned c = 0; c < t.cols; c++) {
        for (unsigned r = 0; r < t.rows; r++) {
            sb_printf(b, "    %s%u = %s", out_name, (*next)++, elem);
            if (t.cols > 1)
                sb_printf(b, "[%u][%u]", glsl ? c : r, glsl ? r : c);
            else if (t.rows > 1)
                sb_printf(b, "[%u]", r);
            sb_put(b, ";\n", 2);
        }
    }
}

/* The longest expression the wrapper spells for one value: a variable (or a block
 * instance, its element and member) and a path of FRONT_MAX_DEPTH struct members, each
 * a name and an index. */
enum { FRONT_MAX_EXPR = (FRONT_MAX_DEPTH + 3) * (FRONT_MAX_NAME + 16) };

/* `var[a]` (when t is an array) or `var`, then `.member` when m is a member token. */
static void sub_expr(const front *f, char *out, const char *var, ftype t, unsigned a, size_t m)
{
    int n = t.array ? snprintf(out, FRONT_MAX_EXPR, "%s[%u]", var, a)
                    : snprintf(out, FRONT_MAX_EXPR, "%s", var);
    if (m != SIZE_MAX && n >= 0 && n < FRONT_MAX_EXPR)
        snprintf(out + n, FRONT_MAX_EXPR - (size_t)n, ".%.*s", (int)f->t.v[m].len,
                 f->pp + f->t.v[m].off);
}

/* The wrapper's three walks over a value of type t named `var`, in the interface's order
 * (array elements, struct members, then columns and rows): read it from the inputs
 * starting at *next, write it to the outputs starting at *next, or set it to zero. */
typedef enum { WALK_IN, WALK_OUT, WALK_ZERO } walk_kind;

static void walk_value(const front *f, strbuf *b, const char *var, ftype t, unsigned *next,
                       walk_kind kind)
{
    char elem[FRONT_MAX_EXPR];
    ftype el = t;
    el.array = 0;
    for (unsigned a = 0; a < (t.array ? t.array : 1); a++) {
        if (t.strct) {
            const fstruct *st = &f->structs[t.strct - 1];
            for (size_t k = 0; k < st->count; k++) {
                const smember *m = &f->members[st->first + k];
                sub_expr(f, elem, var, t, a, m->name);
                walk_value(f, b, elem, m->ty, next, kind);
            }
            continue;
        }
        sub_expr(f, elem, var, t, a, SIZE_MAX);
        if (kind == WALK_IN) {
            sb_printf(b, "    %s = ", elem);
            element_from_inputs(f, b, el, *next);
            *next += el.rows * el.cols;
            sb_put(b, ";\n", 2);
        } else if (kind == WALK_ZERO) {
            /* Outputs start at zero (as in SL), so an unwritten one reads 0. */
            sb_printf(b, "    %s = ", elem);
            type_name(f, b, el);
            sb_put(b, "(0.0);\n", 7);
        } else {
            element_to_outputs(f, b, elem, el, next);
        }
    }
}

static void declare_var(const front *f, strbuf *b, const char *var, ftype t)
{
    sb_put(b, "    ", 4);
    ftype el = t;
    el.array = 0;
    type_name(f, b, el);
    sb_printf(b, " %s", var);
    if (t.array) sb_printf(b, "[%u]", t.array);
    sb_put(b, ";\n", 2);
}

/* The interface declarations: one float per scalar, at locations 0.. in order. GLSL
 * globals; for HLSL the entry's parameter list. */
static void interface_glsl(strbuf *b, unsigned nin, unsigned nout)
{
    for (unsigned k = 0; k < nin; k++)
        sb_printf(b, "layout(location = %u) in float %s%u;\n", k, in_name, k);
    for (unsigned k = 0; k < nout; k++)
        sb_printf(b, "layout(location = %u) out float %s%u;\n", k, out_name, k);
}

/* HLSL: the entry takes a struct each way, which glslang flattens into one interface
 * variable per member, so the count is not bounded by SPIR-V's 255 function parameters;
 * the body copies the members to and from locals named as GLSL's globals are. */
static void interface_hlsl(strbuf *b, unsigned nin, unsigned nout)
{
    if (nin) {
        sb_printf(b, "struct _fmag_In {\n");
        for (unsigned k = 0; k < nin; k++)
            sb_printf(b, "    [[vk::location(%u)]] float %s%u : FMAGIN%u;\n", k, in_name, k, k);
        sb_printf(b, "};\n");
    }
    sb_printf(b, "struct _fmag_Out {\n");
    for (unsigned k = 0; k < nout; k++)
        sb_printf(b, "    [[vk::location(%u)]] float %s%u : FMAGOUT%u;\n", k, out_name, k, k);
    sb_printf(b, "};\n");
    sb_printf(b, "void _fmag_entry(%sout _fmag_Out _fmag_o)\n{\n",
              nin ? "in _fmag_In _fmag_i, " : "");
    for (unsigned k = 0; k < nin; k++)
        sb_printf(b, "    float %s%u = _fmag_i.%s%u;\n", in_name, k, in_name, k);
    for (unsigned k = 0; k < nout; k++)
        sb_printf(b, "    float %s%u;\n", out_name, k);
}

static void interface_hlsl_end(strbuf *b, unsigned nout)
{
    for (unsigned k = 0; k < nout; k++)
        sb_printf(b, "    _fmag_o.%s%u = %s%u;\n", out_name, k, out_name, k);
}

/* The wrapper spells out one line per scalar; the SPIR-V reader's bound per variable
 * bounds the whole interface too. */
static bool interface_fits(front *f, uint64_t nin, uint64_t nout, unsigned line)
{
    /* glslang numbers locations below 4096. */
    if (nin <= FRONT_MAX_LOCATIONS && nout <= FRONT_MAX_LOCATIONS) return true;
    front_error(f, line,
                "the program would have %llu inputs and %llu outputs: at most %d each (glslang's "
                "locations)",
                (unsigned long long)nin, (unsigned long long)nout, FRONT_MAX_LOCATIONS);
    return false;
}

typedef struct global global;

/* One interface variable. `name` is the token a use names: the variable, a member of an
 * anonymous block, or the instance of a named block, whose member is then `member`
 * (element `index` when the instance is an array). */
struct global {
    size_t name, member; /* token indices; member SIZE_MAX when not in a named block */
    unsigned index;
    bool indexed;
    ftype ty;
    bool out;
    /* A uniform of a type the interface has no place for (int, bool, a struct holding
     * one): made private so that the file compiles, an error where code reads it
     * (type: its type's token). Not part of the interface. */
    bool refused;
    size_t type;
};

static global *strip_globals(front *f, size_t *count);
static global *strip_hlsl_globals(front *f, size_t *count);
static bool global_expr(front *f, const global *g, char *buf, size_t cap);
typedef struct fdef fdef;

/* A function definition at file scope: its first token (qualifiers and result type),
 * name, body '{' and the index after its '}'. */
struct fdef {
    size_t start, name, body, end;
    bool reached;
};

static fdef *call_graph(front *f, const char *entry, size_t *count);
static size_t find_global_use(const front *f, const fdef *defs, size_t nd, const global *g,
                              size_t ng, bool refused_only, bool mentions, size_t *which);
static void report_refused_read(front *f, size_t i, const global *g);
static bool is_refused_value_type(const front *f, size_t i);
static bool entry_uses_global(front *f, const fdef *defs, size_t nd, const global *g, size_t ng);
static bool keep_reached(front *f, const fdef *defs, size_t nd);

/* HLSL: the global uniforms (strip_hlsl_globals) when the entry reads one of them, as
 * its inputs after its parameters; none (*ng 0) when it reads none, so that a pure
 * helper in a file with cbuffers keeps its parameters as its interface. */
static global *hlsl_entry_globals(front *f, size_t *ng)
{
    global *g = strip_hlsl_globals(f, ng);
    if (!g || !*ng) return g;
    size_t nd = 0, which;
    fdef *defs = call_graph(f, f->entry, &nd);
    if (!defs) {
        fmag_tmp_free(g);
        return NULL;
    }
    size_t bad = find_global_use(f, defs, nd, g, *ng, true, false, &which);
    if (bad != SIZE_MAX) {
        report_refused_read(f, bad, &g[which]);
        fmag_tmp_free(defs);
        fmag_tmp_free(g);
        return NULL;
    }
    /* The refused ones are not inputs. */
    size_t kept = 0;
    for (size_t k = 0; k < *ng; k++)
        if (!g[k].refused) g[kept++] = g[k];
    *ng = kept;
    /* Whether the entry may read one: a mention in what it reaches (a local of the
     * same name elsewhere in the function does not hide it). Too many inputs is the
     * safe side; a missed read would read 0. */
    bool uses = find_global_use(f, defs, nd, g, *ng, false, true, &which) != SIZE_MAX;
    /* A file-scope initializer that reads one (`static float3 L =
     * normalize(LightDir);`) runs before the generated entry sets the inputs, so it
     * would see 0: an error, not a wrong value. */
    for (size_t i = 0, d = 0; i < f->t.n; i++) {
        while (d < nd && i >= defs[d].end)
            d++;
        if ((d < nd && i >= defs[d].start) || f->t.v[i].kind != TK_IDENT ||
            tok_punct(f, i - 1, '.'))
            continue;
        for (size_t k = 0; k < *ng; k++) {
            if (i == g[k].name || !same_name(f, g[k].name, i)) continue;
            bool init = false;
            for (size_t j = i; j-- > 0 && !tok_punct(f, j, ';') && !tok_punct(f, j, '{') &&
                               !tok_punct(f, j, '}');)
                init |= tok_punct(f, j, '=');
            if (!init) continue;
            front_error(f, f->t.v[i].line,
                        "a file-scope initializer reads '%.*s', which the program takes as an "
                        "input after such initializers have run: compute the value in the "
                        "function instead",
                        (int)f->t.v[i].len, f->pp + f->t.v[i].off);
            fmag_tmp_free(defs);
            fmag_tmp_free(g);
            return NULL;
        }
    }
    if (!uses) *ng = 0;
    fmag_tmp_free(defs);
    return g;
}

/* The wrapper for -entry NAME: call it with the interface's inputs, write its outputs. */
static bool wrap_entry(front *f, strbuf *b, unsigned *nin, unsigned *nout)
{
    signature sig;
    global *hg = NULL;
    size_t nhg = 0;
    if (f->lang == FMAG_SOURCE_HLSL && !(hg = hlsl_entry_globals(f, &nhg))) return false;
    if (f->lang == FMAG_SOURCE_GLSL) {
        /* Globals are not inputs under -entry, but a file that declares them must compile;
         * an entry that uses one would read an undefined value, so that is an error. */
        size_t ng = 0, nd = 0;
        global *g = strip_globals(f, &ng);
        if (!g) return false;
        fdef *defs = call_graph(f, f->entry, &nd);
        bool used = !defs || (ng && entry_uses_global(f, defs, nd, g, ng));
        bool kept = used || keep_reached(f, defs, nd);
        fmag_tmp_free(defs);
        fmag_tmp_free(g);
        if (!kept) front_error(f, 0, "out of memory");
        if (used || !kept) return false;
    }
    if (!find_signature(f, &sig)) {
        fmag_tmp_free(hg);
        return false;
    }
    uint64_t ni = 0, no = sig.has_result ? ftype_size(f, sig.result) : 0;
    for (unsigned p = 0; p < sig.nparams; p++) {
        if (sig.params[p].dir != DIR_OUT) ni += ftype_size(f, sig.params[p].ty);
        if (sig.params[p].dir != DIR_IN) no += ftype_size(f, sig.params[p].ty);
    }
    for (size_t k = 0; k < nhg; k++)
        ni += ftype_size(f, hg[k].ty);
    bool fits = interface_fits(f, ni, no, sig.line);
    if (fits && no == 0)
        front_error(f, sig.line,
                    "entry '%s' has no outputs (it returns void and has no out or inout parameter)",
                    f->entry);
    if (!fits || no == 0) {
        fmag_tmp_free(sig.params);
        fmag_tmp_free(hg);
        return false;
    }
    sb_printf(b, "\n");
    if (f->lang == FMAG_SOURCE_GLSL) {
        interface_glsl(b, ni, no);
        sb_printf(b, "void main()\n{\n");
    } else {
        interface_hlsl(b, ni, no);
    }
    unsigned next = 0;
    char var[32];
    for (unsigned p = 0; p < sig.nparams; p++) {
        snprintf(var, sizeof var, "_fmag_p%u", p);
        declare_var(f, b, var, sig.params[p].ty);
        if (sig.params[p].dir != DIR_OUT) walk_value(f, b, var, sig.params[p].ty, &next, WALK_IN);
    }
    for (size_t k = 0; k < nhg; k++) {
        char gvar[FRONT_MAX_EXPR];
        if (!global_expr(f, &hg[k], gvar, sizeof gvar)) {
            fmag_tmp_free(sig.params);
            fmag_tmp_free(hg);
            return false;
        }
        walk_value(f, b, gvar, hg[k].ty, &next, WALK_IN);
    }
    if (sig.has_result) {
        declare_var(f, b, "_fmag_r", sig.result);
        sb_printf(b, "    _fmag_r = ");
    } else {
        sb_printf(b, "    ");
    }
    sb_printf(b, "%s(", f->entry);
    for (unsigned p = 0; p < sig.nparams; p++)
        sb_printf(b, "%s_fmag_p%u", p ? ", " : "", p);
    sb_printf(b, ");\n");
    next = 0;
    if (sig.has_result) walk_value(f, b, "_fmag_r", sig.result, &next, WALK_OUT);
    for (unsigned p = 0; p < sig.nparams; p++) {
        snprintf(var, sizeof var, "_fmag_p%u", p);
        if (sig.params[p].dir != DIR_IN) walk_value(f, b, var, sig.params[p].ty, &next, WALK_OUT);
    }
    if (f->lang == FMAG_SOURCE_HLSL) interface_hlsl_end(b, (unsigned)no);
    sb_printf(b, "}\n");
    *nin = (unsigned)ni, *nout = (unsigned)no;
    fmag_tmp_free(sig.params);
    fmag_tmp_free(hg);
    return true;
}

/* Overwrites token i of the preprocessed text with blanks (lines are kept). */
static void blank_tok(front *f, size_t i)
{
    memset(f->pp + f->t.v[i].off, ' ', f->t.v[i].len);
}

/* Blanks tokens [b, e). */
static void blank_range(front *f, size_t b, size_t e)
{
    for (size_t i = b; i < e; i++)
        blank_tok(f, i);
}

/* Inserts `text` (a static string) before token i when the text is put together. */
static bool add_edit(front *f, size_t i, const char *text)
{
    if (f->nedits == f->capedits) {
        size_t cap = f->capedits ? f->capedits * 2 : 8;
        edit *v = fmag_tmp_realloc(f->edits, cap * sizeof *v);
        if (!v) return false;
        f->edits = v, f->capedits = cap;
    }
    f->edits[f->nedits] = (edit){f->t.v[i].off, text, f->nedits + 1};
    f->nedits++;
    return true;
}

/* A declaration inserted before token i: ahead of any other insertion there (a block's
 * `struct`), whatever the order they were made in. */
static bool add_decl_edit(front *f, size_t i, const char *text)
{
    if (!add_edit(f, i, text)) return false;
    f->edits[f->nedits - 1].seq = 0;
    return true;
}

static int edit_cmp(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    if (x->off != y->off) return (x->off > y->off) - (x->off < y->off);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Whether a type name is a value type the interface has no place for: the integer,
 * bool and double scalars, vectors and matrices, or a struct of the file's (one that
 * collect_structs did not register). A uniform of one is made private, and a read is
 * an error; any other type (samplers, images, what this reader does not know) is left
 * to glslang and the reader. */
static bool is_refused_value_type(const front *f, size_t i)
{
    static const char *const prefix[] = {"int",      "uint",   "bool",  "ivec", "uvec",
                                         "bvec",     "double", "dvec",  "dmat", "int64_t",
                                         "uint64_t", "i64vec", "u64vec"};
    const tok *t = &f->t.v[i];
    for (size_t k = 0; k < sizeof prefix / sizeof prefix[0]; k++) {
        size_t n = strlen(prefix[k]);
        if (t->len >= n && !memcmp(f->pp + t->off, prefix[k], n)) {
            size_t j = n; /* the rest: digits and 'x' (ivec3, dmat2x3) */
            while (j < t->len && (is_digit(f->pp[t->off + j]) || f->pp[t->off + j] == 'x'))
                j++;
            if (j == t->len) return true;
        }
    }
    for (size_t k = 0; k + 2 < f->t.n; k++)
        if (tok_is(f, k, "struct") && same_name(f, k + 1, i) && tok_punct(f, k + 2, '{'))
            return true;
    return false;
}

/* The expression the wrapper reads or writes: `x`, `inst.x` or `inst[i].x`. False (with
 * a diagnostic) when it does not fit in buf (FRONT_MAX_EXPR bytes). */
static bool global_expr(front *f, const global *g, char *buf, size_t cap)
{
    const tok *t = &f->t.v[g->name];
    const tok *m = g->member == SIZE_MAX ? NULL : &f->t.v[g->member];
    if (t->len > FRONT_MAX_NAME || (m && m->len > FRONT_MAX_NAME)) {
        const tok *l = t->len > FRONT_MAX_NAME ? t : m;
        front_error(f, l->line, "the name '%.32s...' is longer than %d characters", f->pp + l->off,
                    FRONT_MAX_NAME);
        return false;
    }
    int n = snprintf(buf, cap, "%.*s", (int)t->len, f->pp + t->off);
    if (!m) return true;
    if (g->indexed)
        snprintf(buf + n, cap - (size_t)n, "[%u].%.*s", g->index, (int)m->len, f->pp + m->off);
    else
        snprintf(buf + n, cap - (size_t)n, ".%.*s", (int)m->len, f->pp + m->off);
    return true;
}

static bool push_global(global **g, size_t *ng, size_t *cap, global gl)
{
    if (*ng == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        global *v = fmag_tmp_realloc(*g, c * sizeof *v);
        if (!v) return false;
        *g = v, *cap = c;
    }
    (*g)[(*ng)++] = gl;
    return true;
}

static bool is_interp_qualifier(const front *f, size_t i)
{
    static const char *const q[] = {"flat",  "smooth",  "noperspective", "centroid",  "sample",
                                    "highp", "mediump", "lowp",          "invariant", "precise"};
    for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
        if (tok_is(f, i, q[k])) return true;
    return false;
}

/* Finds the definition of main() at file scope; it is renamed to _fmag_umain when the
 * text is put together (the line does not change, so neither do line numbers). */
static bool find_main(front *f)
{
    int depth = 0;
    for (size_t i = 0; i < f->t.n; i++) {
        if (tok_punct(f, i, '{')) depth++;
        if (tok_punct(f, i, '}')) depth--;
        if (depth == 0 && tok_is(f, i, "main") && tok_punct(f, i + 1, '(') &&
            tok_punct(f, skip_group(f, i + 1), '{')) {
            f->main_tok = i;
            return true;
        }
    }
    return false;
}

/* Registers each file-scope `struct NAME { members };` whose members are all float
 * types or structs registered before it (GLSL and HLSL define a struct before its
 * use), so that it can be an interface type. One that cannot (an int member, too
 * deep, too large) is not registered, and using it is the error any other type gets.
 * HLSL semantics (`float2 uv : TEXCOORD0;`) and interpolation modifiers are skipped.
 * False when out of memory. */
static bool collect_structs(front *f)
{
    int depth = 0;
    for (size_t i = 0; i + 2 < f->t.n; i++) {
        if (tok_punct(f, i, '{')) depth++;
        if (tok_punct(f, i, '}')) depth--;
        if (depth != 0 || !tok_is(f, i, "struct") || f->t.v[i + 1].kind != TK_IDENT ||
            !tok_punct(f, i + 2, '{'))
            continue;
        size_t close = skip_group(f, i + 2) - 1; /* the '}' */
        if (close + 1 >= f->t.n) break;
        fstruct st = {i + 1, f->nmembers, 0, 0, 1};
        uint64_t size = 0;
        bool ok = f->t.v[i + 1].len <= FRONT_MAX_NAME;
        for (size_t q = i + 3; q < close && ok; q++) {
            for (;;) { /* qualifiers; HLSL modifiers and [[vk::...]] attributes */
                if (tok_punct(f, q, '[') && tok_punct(f, q + 1, '['))
                    q = skip_group(f, q);
                else if (is_interp_qualifier(f, q) ||
                         (f->lang == FMAG_SOURCE_HLSL && is_param_qualifier(f, q)))
                    q++;
                else
                    break;
            }
            ftype ty;
            ok = parse_type_name(f, q, &ty);
            for (q++; ok; q++) {
                ok = q < close && f->t.v[q].kind == TK_IDENT && f->t.v[q].len <= FRONT_MAX_NAME;
                if (!ok) break;
                smember m = {q++, ty};
                if (tok_punct(f, q, '[')) {
                    m.ty.array = array_size(f, q + 1);
                    ok = m.ty.array && tok_punct(f, q + 2, ']');
                    q += 3;
                }
                if (tok_punct(f, q, ':')) q += 2; /* an HLSL semantic */
                if (!ok) break;
                if (f->nmembers == f->capmembers) {
                    size_t cap = f->capmembers ? f->capmembers * 2 : 32;
                    smember *v = fmag_tmp_realloc(f->members, cap * sizeof *v);
                    if (!v) return false;
                    f->members = v, f->capmembers = cap;
                }
                f->members[f->nmembers++] = m;
                st.count++;
                size += ftype_size(f, m.ty);
                if (m.ty.strct && f->structs[m.ty.strct - 1].depth + 1 > st.depth)
                    st.depth = f->structs[m.ty.strct - 1].depth + 1;
                if (tok_punct(f, q, ';')) break;
                ok = tok_punct(f, q, ',');
            }
        }
        if (ok && st.count && size <= FRONT_MAX_SCALARS && st.depth <= FRONT_MAX_DEPTH) {
            st.size = (unsigned)size;
            if (f->nstructs == f->capstructs) {
                size_t cap = f->capstructs ? f->capstructs * 2 : 8;
                fstruct *v = fmag_tmp_realloc(f->structs, cap * sizeof *v);
                if (!v) return false;
                f->structs = v, f->capstructs = cap;
            }
            f->structs[f->nstructs++] = st;
        } else {
            f->nmembers = st.first;
        }
        i = close;
    }
    return true;
}

/* The members of a block, `{` at token b: float types only. Each becomes a global whose
 * name is the member (`member` SIZE_MAX), in declaration order, appended to *m. Returns
 * false with *bad at the first member that is not a float type (or not a declaration
 * this reader knows), or with *bad untouched when out of memory. */
static bool block_members(front *f, size_t b, bool out, global **m, size_t *nm, size_t *cap,
                          size_t *bad)
{
    size_t close = skip_group(f, b) - 1; /* the '}' */
    for (size_t q = b + 1; q < close;) {
        size_t start = q;
        while (q < close) {
            if (tok_is(f, q, "layout") && tok_punct(f, q + 1, '('))
                q = skip_group(f, q + 1);
            else if (is_interp_qualifier(f, q))
                q++;
            else
                break;
        }
        ftype ty;
        if (!(out ? parse_type_name(f, q, &ty) : parse_input_type(f, q, &ty))) {
            *bad = q < close ? q : start;
            return false;
        }
        q++;
        for (;;) {
            if (q >= close || f->t.v[q].kind != TK_IDENT) {
                *bad = start;
                return false;
            }
            global gl = {q, SIZE_MAX, 0, false, ty, out, false, 0};
            q++;
            if (tok_punct(f, q, '[')) {
                gl.ty.array = array_size(f, q + 1);
                if (!gl.ty.array || !tok_punct(f, q + 2, ']')) {
                    *bad = start;
                    return false;
                }
                q += 3;
            }
            if (!push_global(m, nm, cap, gl)) return false;
            if (tok_punct(f, q, ';')) break;
            if (!tok_punct(f, q, ',')) {
                *bad = start;
                return false;
            }
            q++;
        }
        q++;
    }
    return true;
}

/* A block at file scope, `[layout(...)] [qualifiers] in|out|uniform NAME { members }
 * [inst [N]] ;`, statement from token i, NAME at token k. Its members become interface
 * variables in declaration order (of an instance array, element by element): a named
 * block turns into a private struct variable (`struct NAME { members } inst;`), the
 * members of an anonymous one into private globals. A built-in block (gl_PerVertex) and
 * a uniform block with a member that is not a float type are left as they are (reading
 * the latter is the reader's error, as for a plain uniform int). Returns the index of
 * the token after the block, the next statement's first when *ended. */
static size_t strip_block(front *f, size_t i, size_t k, int storage, global **g, size_t *ng,
                          size_t *capg, bool *ended)
{
    *ended = false;
    size_t close = skip_group(f, k + 1), end = close, inst = SIZE_MAX;
    unsigned count = 0;
    if (close < f->t.n && f->t.v[close].kind == TK_IDENT) {
        inst = end++;
        if (tok_punct(f, end, '[')) {
            count = array_size(f, end + 1);
            if (!count || !tok_punct(f, end + 2, ']')) return close;
            end += 3;
        }
    }
    if (!tok_punct(f, end, ';')) return close;
    *ended = true;
    if (f->t.v[k].len >= 3 && !memcmp(f->pp + f->t.v[k].off, "gl_", 3)) {
        /* A built-in block's redeclaration (`out gl_PerVertex { vec4 gl_Position; };`):
         * another stage's, an error in the fragment shader slc compiles; gone. */
        blank_range(f, i, end + 1);
        return end + 1;
    }
    global *m = NULL;
    size_t nm = 0, capm = 0, bad = SIZE_MAX;
    if (!block_members(f, k + 1, storage == 1, &m, &nm, &capm, &bad)) {
        fmag_tmp_free(m);
        if (bad == SIZE_MAX) { /* out of memory */
            f->failed = true;
            return end + 1;
        }
        if (storage != 2)
            front_error(f, f->t.v[bad].line,
                        "block '%.*s' has a member of type '%.*s': FMAG inputs and outputs are "
                        "floats",
                        (int)f->t.v[k].len, f->pp + f->t.v[k].off, (int)f->t.v[bad].len,
                        f->pp + f->t.v[bad].off);
        return end + 1;
    }
    /* A struct member or a global takes no layout or interpolation qualifier. */
    for (size_t q = k + 2; q < close; q++) {
        if (tok_is(f, q, "layout") && tok_punct(f, q + 1, '(')) {
            size_t e = skip_group(f, q + 1);
            blank_range(f, q, e);
            q = e - 1;
        } else if (is_interp_qualifier(f, q)) {
            blank_tok(f, q);
        }
    }
    for (unsigned a = 0; a < (count ? count : 1); a++) {
        for (size_t j = 0; j < nm; j++) {
            global gl = m[j];
            if (inst != SIZE_MAX)
                gl = (global){inst, m[j].name, a, count > 0, m[j].ty, m[j].out, false, 0};
            if (!push_global(g, ng, capg, gl)) {
                fmag_tmp_free(m);
                f->failed = true;
                return end + 1;
            }
        }
    }
    fmag_tmp_free(m);
    blank_range(f, i, k);
    if (inst != SIZE_MAX) {
        if (!add_edit(f, k, "struct ")) f->failed = true;
    } else {
        blank_range(f, k, k + 2);
        blank_tok(f, close - 1);
        blank_tok(f, end);
    }
    return end + 1;
}

/* Global in/out/non-opaque uniform variables lose their storage qualifier (they become
 * private globals, so any file of functions compiles for Vulkan) and are returned in
 * declaration order. NULL with a diagnostic on a global that cannot be an interface. */
static global *strip_globals(front *f, size_t *count)
{
    global *g = NULL;
    size_t ng = 0, capg = 0;
    int depth = 0;
    bool stmt_start = true;
    for (size_t i = 0; i < f->t.n && !f->failed; i++) {
        if (tok_punct(f, i, '{')) depth++;
        if (tok_punct(f, i, '}')) {
            depth--;
            stmt_start = depth == 0;
            continue;
        }
        if (depth != 0) continue;
        if (tok_punct(f, i, ';')) {
            stmt_start = true;
            continue;
        }
        if (!stmt_start) continue;
        stmt_start = false;
        /* A declaration: [layout(...)] qualifiers storage [qualifiers] type names ; */
        size_t k = i;
        int storage = -1; /* 0 in, 1 out, 2 uniform */
        for (;; k++) {
            if (tok_is(f, k, "layout") && tok_punct(f, k + 1, '(')) {
                k = skip_group(f, k + 1) - 1;
            } else if (tok_is(f, k, "in")) {
                storage = 0;
            } else if (tok_is(f, k, "out")) {
                storage = 1;
            } else if (tok_is(f, k, "uniform")) {
                storage = 2;
            } else if (!is_interp_qualifier(f, k)) {
                break;
            }
        }
        if (storage < 0 || k >= f->t.n) continue;
        if (tok_punct(f, k, ';')) continue; /* `layout(...) in;` */
        if (f->t.v[k].kind == TK_IDENT && tok_punct(f, k + 1, '{')) {
            i = strip_block(f, i, k, storage, &g, &ng, &capg, &stmt_start) - 1;
            continue;
        }
        ftype ty;
        bool refused = false;
        if (!(storage == 1 ? parse_type_name(f, k, &ty) : parse_input_type(f, k, &ty))) {
            if (f->t.v[k].kind != TK_IDENT) continue;
            if (storage == 2 && !is_refused_value_type(f, k)) continue; /* an opaque uniform */
            if (storage != 2) {
                front_error(f, f->t.v[k].line,
                            "global '%s' variable of type '%.*s': FMAG inputs and outputs are "
                            "floats",
                            storage ? "out" : "in", (int)f->t.v[k].len, f->pp + f->t.v[k].off);
                break;
            }
            refused = true;
            memset(&ty, 0, sizeof ty);
        }
        size_t type_tok = k++;
        unsigned type_array = 0; /* `float[2] a, b;` */
        if (tok_punct(f, k, '[')) {
            type_array = array_size(f, k + 1);
            if (!type_array || !tok_punct(f, k + 2, ']')) {
                front_error(f, f->t.v[k].line,
                            "array size is not an integer constant from 1 to 4096");
                break;
            }
            k += 3;
        }
        /* A built-in's redeclaration (`out float gl_FragDepth;`) stays glslang's. */
        if (f->t.v[k].kind == TK_IDENT && f->t.v[k].len > 3 &&
            !memcmp(f->pp + f->t.v[k].off, "gl_", 3))
            continue;
        /* Declarators: name [ '[' N ']' ] [ '=' init ] { ',' ... } ';' */
        while (k < f->t.n && f->t.v[k].kind == TK_IDENT) {
            global gl = {k, SIZE_MAX, 0, false, ty, storage == 1, refused, type_tok};
            gl.ty.array = type_array;
            k++;
            if (tok_punct(f, k, '[')) {
                if (type_array) {
                    front_error(f, f->t.v[k].line,
                                "'%.*s': arrays of arrays are not program inputs or outputs",
                                (int)f->t.v[gl.name].len, f->pp + f->t.v[gl.name].off);
                    break;
                }
                gl.ty.array = array_size(f, k + 1);
                if (!gl.ty.array || !tok_punct(f, k + 2, ']')) {
                    front_error(f, f->t.v[k].line,
                                "array size is not an integer constant from 1 to 4096");
                    break;
                }
                k += 3;
                if (tok_punct(f, k, '[') && !refused) {
                    front_error(f, f->t.v[k].line,
                                "'%.*s': arrays of arrays are not program inputs or outputs",
                                (int)f->t.v[gl.name].len, f->pp + f->t.v[gl.name].off);
                    break;
                }
                while (tok_punct(f, k, '[')) /* a refused uniform's further dimensions */
                    k = skip_group(f, k);
            }
            if (tok_punct(f, k, '=')) { /* an initializer: skip to ',' or ';' */
                while (k < f->t.n && !tok_punct(f, k, ',') && !tok_punct(f, k, ';')) {
                    if (tok_punct(f, k, '(')) k = skip_group(f, k) - 1;
                    k++;
                }
            }
            if (!push_global(&g, &ng, &capg, gl)) {
                fmag_tmp_free(g);
                return NULL;
            }
            if (!tok_punct(f, k, ',')) break;
            k++;
        }
        blank_range(f, i, type_tok);
        i = k - 1;
    }
    if (f->failed) {
        fmag_tmp_free(g);
        return NULL;
    }
    *count = ng;
    return g ? g : fmag_tmp_calloc(1, sizeof *g);
}

/* One HLSL declaration statement [s, e) at file scope or in a cbuffer: when its type is
 * a float type (or a struct of them) it becomes `static` (`uniform`/`extern` blanked,
 * with each declarator's `: register(...)`/`: packoffset(...)` annotation) and its
 * declarators are interface variables; anything else is left alone. False on a
 * diagnostic or out of memory. */
static bool hlsl_uniform_decl(front *f, size_t s, size_t e, global **g, size_t *ng, size_t *cap)
{
    size_t k = s;
    while (k < e && (tok_is(f, k, "uniform") || tok_is(f, k, "extern") ||
                     tok_is(f, k, "row_major") || tok_is(f, k, "column_major")))
        k++;
    /* `ConstantBuffer<T> name;` is a cbuffer of one struct: `static T name;` */
    bool cb = k + 3 < e && tok_is(f, k, "ConstantBuffer") && tok_punct(f, k + 1, '<') &&
              tok_punct(f, k + 3, '>');
    size_t type_tok = cb ? k + 2 : k;
    ftype ty;
    if (type_tok >= e) return true;
    if (!parse_input_type(f, type_tok, &ty)) {
        /* An integer or bool uniform stays one; its names are kept so that a read is
         * the front's error naming it (is_refused_value_type). */
        if (cb || !is_refused_value_type(f, type_tok)) return true;
        for (k = type_tok + 1; k < e; k++) {
            if (f->t.v[k].kind != TK_IDENT || tok_punct(f, k + 1, '(')) continue;
            if (!tok_punct(f, k - 1, ',') && k != type_tok + 1) continue;
            global gl = {k, SIZE_MAX, 0, false, {0}, false, true, type_tok};
            if (!push_global(g, ng, cap, gl)) return false;
        }
        return true;
    }
    k = type_tok + (cb ? 2 : 1);
    if (k >= e || f->t.v[k].kind != TK_IDENT || tok_punct(f, k + 1, '(')) return true;
    for (size_t q = s; q < type_tok; q++)
        if (tok_is(f, q, "uniform") || tok_is(f, q, "extern") || cb) blank_tok(f, q);
    if (cb) blank_tok(f, type_tok + 1);
    if (!add_edit(f, s, "static ")) return false;
    while (k < e && f->t.v[k].kind == TK_IDENT) {
        global gl = {k, SIZE_MAX, 0, false, ty, false, false, type_tok};
        k++;
        if (tok_punct(f, k, '[')) {
            gl.ty.array = array_size(f, k + 1);
            if (!gl.ty.array || !tok_punct(f, k + 2, ']')) {
                front_error(f, f->t.v[k].line,
                            "array size is not an integer constant from 1 to 4096");
                return false;
            }
            k += 3;
            if (tok_punct(f, k, '[')) {
                front_error(f, f->t.v[k].line,
                            "'%.*s': arrays of arrays are not program inputs or outputs",
                            (int)f->t.v[gl.name].len, f->pp + f->t.v[gl.name].off);
                return false;
            }
        }
        while (tok_punct(f, k, ':')) { /* `: register(b0)`, `: packoffset(c1.x)` */
            size_t a = k++;
            if (k < e && f->t.v[k].kind == TK_IDENT) k++;
            if (tok_punct(f, k, '(')) k = skip_group(f, k);
            blank_range(f, a, k);
        }
        if (tok_punct(f, k, '=')) /* a uniform's default: ignored, the input sets it */
            while (k < e && !tok_punct(f, k, ',') && !tok_punct(f, k, ';')) {
                if (tok_punct(f, k, '(') || tok_punct(f, k, '{')) k = skip_group(f, k) - 1;
                k++;
            }
        if (!push_global(g, ng, cap, gl)) return false;
        if (!tok_punct(f, k, ',')) break;
        k++;
    }
    return true;
}

/* HLSL: the global uniforms, which glslang gathers into `$Global` and one block per
 * cbuffer: the members of `cbuffer`/`tbuffer` blocks and the loose globals of float
 * types, in declaration order. They become `static` globals (the block's braces
 * blanked) that the wrapper sets from the interface's inputs. `static`, `const` and
 * `groupshared` globals, textures, samplers and integer uniforms are left alone (a
 * read of the last is the reader's error). NULL on a diagnostic or out of memory. */
static global *strip_hlsl_globals(front *f, size_t *count)
{
    global *g = NULL;
    size_t ng = 0, capg = 0;
    bool ok = true;
    for (size_t i = 0; i < f->t.n && ok; i++) {
        if (f->pp[f->t.v[i].off] == ' ') continue; /* blanked: a cbuffer's braces */
        if (tok_punct(f, i, '{')) {                /* a function body, a struct, an initializer */
            i = skip_group(f, i) - 1;
            continue;
        }
        if (tok_punct(f, i, ';') || tok_punct(f, i, '}')) continue;
        if ((tok_is(f, i, "cbuffer") || tok_is(f, i, "tbuffer")) &&
            f->t.v[i + 1].kind == TK_IDENT) {
            size_t k = i + 2;
            while (k < f->t.n && !tok_punct(f, k, '{') && !tok_punct(f, k, ';'))
                k++;
            if (!tok_punct(f, k, '{')) continue;
            size_t close = skip_group(f, k) - 1;
            if (close >= f->t.n) break;
            blank_range(f, i, k + 1);
            blank_tok(f, close);
            if (tok_punct(f, close + 1, ';')) blank_tok(f, close + 1);
            for (size_t s = k + 1; s < close && ok;) {
                size_t e = s;
                while (e < close && !tok_punct(f, e, ';'))
                    e = tok_punct(f, e, '{') || tok_punct(f, e, '(') ? skip_group(f, e) : e + 1;
                ok = hlsl_uniform_decl(f, s, e, &g, &ng, &capg);
                s = e + 1;
            }
            i = close;
            continue;
        }
        size_t e = i; /* one statement: to its ';' (a function: to its body, skipped above) */
        while (e < f->t.n && !tok_punct(f, e, ';') && !tok_punct(f, e, '{'))
            e = tok_punct(f, e, '(') || tok_punct(f, e, '[') ? skip_group(f, e) : e + 1;
        if (tok_punct(f, e, ';')) ok = hlsl_uniform_decl(f, i, e, &g, &ng, &capg);
        i = e - 1;
    }
    if (!ok || f->failed) {
        fmag_tmp_free(g);
        return NULL;
    }
    *count = ng;
    return g ? g : fmag_tmp_calloc(1, sizeof *g);
}

/* Marks every definition named like token i reached; true when one was not yet. */
static bool reach_name(const front *f, fdef *defs, size_t nd, size_t i)
{
    bool changed = false;
    for (size_t d = 0; d < nd; d++)
        if (!defs[d].reached && same_name(f, defs[d].name, i)) defs[d].reached = changed = true;
    return changed;
}

/* The file-scope definitions and those the entry reaches: a textual call graph, by
 * name (every overload of a called name), from the entry's definitions and from the
 * calls in file-scope initializers. NULL when out of memory. */
static fdef *call_graph(front *f, const char *entry, size_t *count)
{
    fdef *defs = NULL;
    size_t nd = 0, cap = 0, start = 0;
    for (size_t i = 0; i < f->t.n; i++) {
        if (tok_punct(f, i, ';')) {
            start = i + 1;
            continue;
        }
        if (tok_punct(f, i, '{')) {
            /* An HLSL struct's methods are definitions too (called as `b.f(x)`). */
            if (i >= 2 && tok_is(f, i - 2, "struct") && f->t.v[i - 1].kind == TK_IDENT) {
                start = i + 1;
                continue;
            }
            i = skip_group(f, i) - 1;
            start = tok_punct(f, i + 1, ';') ? start : i + 1; /* a struct's ';' follows */
            continue;
        }
        if (i + 1 >= f->t.n || f->t.v[i].kind != TK_IDENT || !tok_punct(f, i + 1, '(')) continue;
        size_t k = skip_group(f, i + 1);
        if (tok_punct(f, k, ':') && k + 1 < f->t.n && f->t.v[k + 1].kind == TK_IDENT)
            k += 2; /* HLSL: the result's semantic, `) : SV_Target {` */
        if (!tok_punct(f, k, '{')) continue;
        if (nd == cap) {
            cap = cap ? cap * 2 : 32;
            fdef *nv = fmag_tmp_realloc(defs, cap * sizeof *defs);
            if (!nv) {
                fmag_tmp_free(defs);
                return NULL;
            }
            defs = nv;
        }
        defs[nd++] = (fdef){start, i, k, skip_group(f, k), false};
        i = defs[nd - 1].end - 1;
        start = i + 1;
    }
    size_t elen = strlen(entry);
    for (size_t d = 0; d < nd; d++)
        if (tok_eq_str(f, defs[d].name, entry, elen)) defs[d].reached = true;
    /* Calls outside every body (global initializers; a prototype counts too). */
    for (size_t i = 0, d = 0; i + 1 < f->t.n; i++) {
        while (d < nd && i >= defs[d].end)
            d++;
        if (d < nd && i >= defs[d].name) continue;
        if (f->t.v[i].kind == TK_IDENT && tok_punct(f, i + 1, '(')) reach_name(f, defs, nd, i);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t d = 0; d < nd; d++) {
            if (!defs[d].reached) continue;
            for (size_t i = defs[d].body; i < defs[d].end; i++)
                if (f->t.v[i].kind == TK_IDENT && tok_punct(f, i + 1, '('))
                    changed |= reach_name(f, defs, nd, i);
        }
    }
    *count = nd;
    return defs ? defs : fmag_tmp_calloc(1, sizeof *defs);
}

/* spirv-opt's inliner (shaderc's performance recipe) slows down much faster than
 * linearly with the number of calls it inlines (a function calling its predecessor
 * twice, 2^k leaves: 0.2 s at 1022 calls, 0.9 s at 2046, 6 s at 4094; issue 18's
 * bomb never ends), and no budget of ours reaches inside it. Past this many the
 * SPIR-V is compiled unoptimized, and FMAG's inliner, which checks the inline budget
 * as it goes, does the inlining (a few percent more instructions, docs/SPIRV.md). */
enum { FRONT_SPIRV_INLINE_MAX = 1000 };

/* HLSL cannot skip it: shaderc legalizes glslang's HLSL output (inlining everything)
 * at every optimization level, so past this many calls (about 6 s of spirv-opt) the
 * front refuses the entry instead of waiting. */
enum { FRONT_HLSL_INLINE_MAX = 4096 };

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint32_t name_hash(const front *f, size_t i)
{
    uint32_t h = 2166136261u;
    for (size_t k = 0; k < f->t.v[i].len; k++)
        h = (h ^ (unsigned char)f->pp[f->t.v[i].off + k]) * 16777619u;
    return h;
}

/* How many calls fully inlining the definitions the entry reaches makes: n(d) = the
 * sum over the call sites in d of 1 + n(callee) (the largest overload), bottom-up
 * over the call graph; saturating. Definitions on a cycle (recursion, glslang's
 * error) count 0. UINT64_MAX when out of memory. Linear in the text plus the call
 * sites, through a hash of the definitions' names. */
static uint64_t inline_estimate(front *f, const fdef *defs, size_t nd)
{
    size_t nb = 1;
    while (nb < 2 * nd + 2)
        nb *= 2;
    size_t *head = fmag_tmp_malloc(nb * sizeof *head),
           *next = fmag_tmp_malloc((nd + 1) * sizeof *next);
    size_t *estart = fmag_tmp_calloc(nd + 2, sizeof *estart), *callee = NULL;
    uint64_t *n = fmag_tmp_calloc(nd + 1, sizeof *n), result = UINT64_MAX;
    size_t *left = fmag_tmp_calloc(nd + 1, sizeof *left), *queue = NULL, *rin = NULL,
           *rstart = NULL;
    size_t ne = 0, cap = 0;
    if (!head || !next || !estart || !n || !left) goto out;
    for (size_t b = 0; b < nb; b++)
        head[b] = SIZE_MAX;
    for (size_t d = nd; d-- > 0;) {
        size_t b = name_hash(f, defs[d].name) & (nb - 1);
        next[d] = head[b], head[b] = d;
    }
    /* The call sites: for each reached d, the callee with the most calls is only known
     * later, so every overload is an edge and the largest is taken at the end. */
    for (size_t d = 0; d < nd; d++) {
        estart[d] = ne;
        if (!defs[d].reached) continue;
        for (size_t i = defs[d].body; i + 1 < defs[d].end; i++) {
            if (f->t.v[i].kind != TK_IDENT || !tok_punct(f, i + 1, '(')) continue;
            for (size_t e = head[name_hash(f, i) & (nb - 1)]; e != SIZE_MAX; e = next[e]) {
                if (!same_name(f, defs[e].name, i)) continue;
                if (ne == cap) {
                    cap = cap ? cap * 2 : 64;
                    size_t *v = fmag_tmp_realloc(callee, cap * 2 * sizeof *v);
                    if (!v) goto out;
                    callee = v;
                }
                callee[2 * ne] = e, callee[2 * ne + 1] = i; /* callee, call-site token */
                ne++, left[d]++;
            }
        }
    }
    estart[nd] = ne;
    /* Bottom-up (Kahn's order on the reversed edges): a definition is done when all
     * its callees are. */
    rstart = fmag_tmp_calloc(nd + 2, sizeof *rstart);
    rin = fmag_tmp_malloc((ne + 1) * sizeof *rin);
    queue = fmag_tmp_malloc((nd + 1) * sizeof *queue);
    if (!rstart || !rin || !queue) goto out;
    for (size_t k = 0; k < ne; k++)
        rstart[callee[2 * k] + 1]++;
    for (size_t d = 0; d < nd; d++)
        rstart[d + 1] += rstart[d];
    for (size_t d = 0, k = 0; d < nd; d++)
        for (; k < estart[d + 1]; k++)
            rin[rstart[callee[2 * k]]++] = d; /* callers of callee[k], grouped */
    for (size_t d = nd; d-- > 0;)
        rstart[d + 1] = rstart[d];
    rstart[0] = 0;
    size_t qh = 0, qt = 0;
    for (size_t d = 0; d < nd; d++)
        if (defs[d].reached && !left[d]) queue[qt++] = d;
    while (qh < qt) {
        size_t e = queue[qh++];
        uint64_t sum = 0;
        for (size_t k = estart[e]; k < estart[e + 1];) {
            size_t site = callee[2 * k + 1];
            uint64_t best = 0;
            for (; k < estart[e + 1] && callee[2 * k + 1] == site; k++)
                if (n[callee[2 * k]] > best) best = n[callee[2 * k]];
            sum = add_sat(sum, add_sat(best, 1));
        }
        n[e] = sum;
        for (size_t r = rstart[e]; r < rstart[e + 1]; r++)
            if (defs[rin[r]].reached && --left[rin[r]] == 0) queue[qt++] = rin[r];
    }
    result = 0;
    for (size_t d = 0; d < nd; d++)
        if (defs[d].reached) result = n[d] > result ? n[d] : result;
out:
    fmag_tmp_free(head);
    fmag_tmp_free(next);
    fmag_tmp_free(estart);
    fmag_tmp_free(callee);
    fmag_tmp_free(n);
    fmag_tmp_free(left);
    fmag_tmp_free(queue);
    fmag_tmp_free(rin);
    fmag_tmp_free(rstart);
    return result;
}

/* Whether `name` (a token) is declared in the definition d: a parameter or a local,
 * `TYPE name` with TYPE a type name (so that a uniform's name reused for a local or a
 * parameter is not a read of the uniform). */
static bool declared_in(const front *f, const fdef *d, size_t name)
{
    for (size_t i = d->name + 2; i < d->end; i++) {
        if (!same_name(f, i, name)) continue;
        ftype ty;
        size_t p = i - 1;
        if (tok_punct(f, p, ']') && p >= 3 && tok_punct(f, p - 2, '[')) p -= 3; /* float[2] x */
        if (parse_type_name(f, p, &ty)) return true;
        static const char *const other[] = {"int",   "uint",  "bool",  "ivec2", "ivec3",
                                            "ivec4", "uvec2", "uvec3", "uvec4", "bvec2",
                                            "bvec3", "bvec4", "double"};
        for (size_t k = 0; k < sizeof other / sizeof other[0]; k++)
            if (tok_is(f, p, other[k])) return true;
    }
    return false;
}

/* Whether a function reachable from the entry reads one of the stripped globals: its
 * name, not after a '.' (a member or swizzle of something else), not declared in that
 * function. A read of a refused uniform is an error in either mode; of any other
 * global under -entry (the entry's inputs are its parameters). */
/* The first read of one of the globals in a function the entry reaches (the token,
 * and the global in *which), counting only the refused ones when `refused_only`; or
 * SIZE_MAX. `mentions`: every use of the name counts, even where a local of that name
 * is declared somewhere in the function (a conservative "reads"). */
static size_t find_global_use(const front *f, const fdef *defs, size_t nd, const global *g,
                              size_t ng, bool refused_only, bool mentions, size_t *which)
{
    for (size_t d = 0; d < nd; d++) {
        if (!defs[d].reached) continue;
        for (size_t i = defs[d].body; i < defs[d].end; i++) {
            const tok *t = &f->t.v[i];
            if (t->kind != TK_IDENT || tok_punct(f, i - 1, '.')) continue;
            for (size_t k = 0; k < ng; k++) {
                if ((refused_only && !g[k].refused) || !same_name(f, g[k].name, i) ||
                    (!mentions && declared_in(f, &defs[d], i)))
                    continue;
                *which = k;
                return i;
            }
        }
    }
    return SIZE_MAX;
}
static void report_refused_read(front *f, size_t i, const global *g)
{
    const tok *t = &f->t.v[i], *ty = &f->t.v[g->type];
    front_error(f, t->line,
                "'%.*s' is a uniform of type '%.*s': FMAG program inputs are floats (float, "
                "vectors, matrices, structs of them and arrays of these)",
                (int)t->len, f->pp + t->off, (int)ty->len, f->pp + ty->off);
}

static bool entry_uses_global(front *f, const fdef *defs, size_t nd, const global *g, size_t ng)
{
    size_t k, i = find_global_use(f, defs, nd, g, ng, !f->entry, false, &k);
    if (i == SIZE_MAX) return false;
    const tok *t = &f->t.v[i];
    if (g[k].refused)
        report_refused_read(f, i, &g[k]);
    else
        front_error(f, t->line,
                    "'%.*s' is a global %s variable: with -entry the program's %s of '%s' only "
                    "(drop -entry to compile main())",
                    (int)t->len, f->pp + t->off, g[k].out ? "out" : "in/uniform",
                    g[k].out ? "outputs are the result and out parameters"
                             : "inputs are the parameters",
                    f->entry);
    return true;
}

/* The sizes a `layout(local_size_x = X, ...) in;` (tokens [b, e), e its ')') declares,
 * into f->workgroup: each dimension named, as an integer literal or a file-scope `const
 * int` (array_size), maybe in parentheses; anything else makes the size unknown. Several
 * such declarations each give the dimensions they name. */
static void read_workgroup_size(front *f, size_t b, size_t e)
{
    static const char *const dims[] = {"local_size_x", "local_size_y", "local_size_z"};
    for (size_t i = b; i < e; i++) {
        for (unsigned d = 0; d < 3; d++) {
            if (!tok_is(f, i, dims[d])) continue;
            f->workgroup_given = true;
            size_t v = i + 2, next = i + 3;
            if (tok_punct(f, v, '(') && tok_punct(f, v + 2, ')')) v++, next = v + 2;
            unsigned n = tok_punct(f, i + 1, '=') ? array_size(f, v) : 0;
            if (!n || (next != e && !tok_punct(f, next, ','))) {
                f->workgroup_unknown = true;
                continue;
            }
            f->workgroup[d] = n;
        }
        if (tok_is(f, i, "local_size_x_id") || tok_is(f, i, "local_size_y_id") ||
            tok_is(f, i, "local_size_z_id"))
            f->workgroup_given = f->workgroup_unknown = true;
    }
}

/* Under -entry, the functions the entry does not reach are blanked (glslang would
 * drop them anyway), so a file written for another stage compiles as long as the
 * entry's own code does: a compute shader's main() with its barrier() and
 * gl_GlobalInvocationID. So are the stage's own declarations at file scope:
 * `layout(local_size_x = 64) in;` and the `shared` qualifier (its variable becomes a
 * private global); gl_WorkGroupSize, a constant the layout gives (`shared float
 * tile[gl_WorkGroupSize.x]`), becomes its value. False when out of memory. */
static bool keep_reached(front *f, const fdef *defs, size_t nd)
{
    /* First the declarations: blanking makes a token's text spaces, so the statement
     * boundaries are read before the functions are blanked (strip_globals' blanks are
     * skipped). */
    int depth = 0;
    bool stmt_start = true;
    for (size_t i = 0; i < f->t.n; i++) {
        if (f->pp[f->t.v[i].off] == ' ') continue; /* blanked by strip_globals */
        if (tok_punct(f, i, '{')) depth++;
        if (tok_punct(f, i, '}')) depth--;
        if (depth != 0) continue;
        if (tok_punct(f, i, ';') || tok_punct(f, i, '}')) {
            stmt_start = true;
            continue;
        }
        if (!stmt_start) continue;
        stmt_start = false;
        if (tok_is(f, i, "shared")) blank_tok(f, i);
        if (tok_is(f, i, "layout") && tok_punct(f, i + 1, '(')) {
            size_t k = skip_group(f, i + 1);
            if (tok_is(f, k, "in") && tok_punct(f, k + 1, ';')) {
                read_workgroup_size(f, i + 2, k - 1);
                blank_range(f, i, k + 2);
                i = k + 1;
                stmt_start = true;
            }
        }
    }
    for (size_t d = 0; d < nd; d++) {
        if (defs[d].reached) continue;
        if (f->main_tok >= defs[d].start && f->main_tok < defs[d].end) f->main_tok = SIZE_MAX;
        blank_range(f, defs[d].start, defs[d].end);
    }
    if (f->workgroup_given && !f->workgroup_unknown)
        snprintf(f->workgroup_size, sizeof f->workgroup_size, "uvec3(%uu, %uu, %uu)",
                 f->workgroup[0] ? f->workgroup[0] : 1, f->workgroup[1] ? f->workgroup[1] : 1,
                 f->workgroup[2] ? f->workgroup[2] : 1);
    for (size_t i = 0; f->workgroup_size[0] && i < f->t.n; i++) {
        if (!tok_is(f, i, "gl_WorkGroupSize") || tok_punct(f, i - 1, '.')) continue;
        if (!add_edit(f, i, f->workgroup_size)) return false;
        blank_tok(f, i);
    }
    return true;
}

/* Without -entry: the program is main(); its inputs and outputs are the stripped globals. */
static bool wrap_main(front *f, strbuf *b, unsigned *nin, unsigned *nout, bool has_main)
{
    size_t ng = 0;
    global *g = strip_globals(f, &ng);
    if (!g) return false;
    if (!has_main) {
        front_error(f, 0, "no main() in the file: pass -entry NAME to pick a function");
        fmag_tmp_free(g);
        return false;
    }
    /* A refused uniform: an error where main's code reads it, else nothing. */
    size_t nd = 0, kept = 0;
    fdef *defs = call_graph(f, "main", &nd);
    bool used = !defs || entry_uses_global(f, defs, nd, g, ng);
    fmag_tmp_free(defs);
    if (used) {
        fmag_tmp_free(g);
        return false;
    }
    for (size_t k = 0; k < ng; k++)
        if (!g[k].refused) g[kept++] = g[k];
    ng = kept;
    uint64_t ni = 0, no = 0;
    for (size_t k = 0; k < ng; k++) {
        if (g[k].out)
            no += ftype_size(f, g[k].ty);
        else
            ni += ftype_size(f, g[k].ty);
    }
    if (!interface_fits(f, ni, no, 0)) {
        fmag_tmp_free(g);
        return false;
    }
    if (no == 0) {
        bool compute = false;
        for (size_t i = 0; i < f->t.n && !compute; i++)
            compute = tok_is(f, i, "local_size_x");
        front_error(f, 0,
                    compute ? "main() is a compute shader's (layout(local_size_x ...) in): it "
                              "has no FMAG inputs or outputs; pass -entry NAME to compile one "
                              "of the file's functions"
                            : "main() has no outputs: declare global 'out' variables, or pass "
                              "-entry NAME");
        fmag_tmp_free(g);
        return false;
    }
    sb_printf(b, "\n");
    interface_glsl(b, ni, no);
    sb_printf(b, "void main()\n{\n");
    unsigned next = 0;
    char var[FRONT_MAX_EXPR];
    for (size_t k = 0; k < ng; k++) {
        if (!global_expr(f, &g[k], var, sizeof var)) {
            fmag_tmp_free(g);
            return false;
        }
        walk_value(f, b, var, g[k].ty, &next, g[k].out ? WALK_ZERO : WALK_IN);
    }
    sb_printf(b, "    _fmag_umain();\n");
    next = 0;
    for (size_t k = 0; k < ng; k++) {
        if (!g[k].out) continue;
        global_expr(f, &g[k], var, sizeof var);
        walk_value(f, b, var, g[k].ty, &next, WALK_OUT);
    }
    sb_printf(b, "}\n");
    *nin = (unsigned)ni, *nout = (unsigned)no;
    fmag_tmp_free(g);
    return true;
}

/* ------------------------------------------------------------ diagnostics */

static unsigned count_lines(const char *s, size_t n)
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
static void report_in(front *f, const char *file, const char *src, size_t len, unsigned line,
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
    report_in(f, f->filename, f->src, f->len, line, msg, about);
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
        if (tok_punct(f, i, '{')) depth++;
        if (tok_punct(f, i, '}')) depth--;
        if (depth == 0 && tok_eq_str(f, i, next, a) && tok_punct(f, i + 1, '(') &&
            tok_punct(f, skip_group(f, i + 1), '{'))
            line = f->t.v[i].line;
    }
    if (line) {
        char about[128];
        snprintf(about, sizeof about, "%.*s", (int)(a < 100 ? a : 100), next);
        report_at_line(f, line, text, about);
    } else {
        front_error(f, 0, "%s", text);
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
    while (colon > p && is_digit(colon[-1]))
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
static void report(front *f, const char *log, unsigned user_lines)
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
                front_error_col(f, hl_line, hl_col, clean);
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
                !builtin ? NULL
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
                report_in(f, file, text, tlen, line, with, about);
            } else if (line && !user) { /* a file #include did not bring in */
                f->failed = true;
                fmag_context_report(f->ctx, FMAG_DIAG_ERROR, file, line, 0, "%s", with);
            } else if (line) {
                front_error(f, 0, "in the entry point slc generated%s%s: %s",
                            f->entry ? " for " : "", f->entry ? f->entry : "", with);
            } else {
                front_error(f, 0, "%s", with);
            }
        }
        p = eol ? eol + 1 : p + n;
    }
    if (!any)
        front_error(f, 0, "%s",
                    *log ? log
                         : "shaderc failed without a message (out of memory, most likely: glslang "
                           "reports its other failures)");
}

/* -------------------------------------------------------------- shaderc */

/* The next line from *pos that is the directive `#WORD` (blanks allowed around '#'):
 * where its argument starts (after WORD and blanks) and the line's end; NULL when
 * there is none. *pos moves past the line. */
static const char *next_directive(const char *s, size_t n, size_t *pos, const char *word,
                                  const char **eol)
{
    size_t wl = strlen(word);
    while (*pos < n) {
        size_t i = *pos, e = i;
        while (e < n && s[e] != '\n')
            e++;
        *pos = e + 1;
        while (i < e && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == e || s[i] != '#') continue;
        for (i++; i < e && (s[i] == ' ' || s[i] == '\t'); i++)
            ;
        if (e - i < wl || memcmp(s + i, word, wl) ||
            (e - i > wl && s[i + wl] != ' ' && s[i + wl] != '\t'))
            continue;
        for (i += wl; i < e && (s[i] == ' ' || s[i] == '\t'); i++)
            ;
        *eol = s + e;
        return s + i;
    }
    return NULL;
}

/* The number of the text's `#version N` line, 0 without one. Below 450 (a file written
 * for OpenGL, `#version 330`; Vulkan GLSL needs 140 at least, the wrapper 450) it is
 * raised to 450, as a file without one gets; above, glslang is held to it (460's
 * features; `#version 999` is its error, not silently 450). */
static unsigned glsl_version(const char *s, size_t n)
{
    size_t pos = 0;
    const char *eol, *a = next_directive(s, n, &pos, "version", &eol);
    unsigned v = 0; /* the text need not end in a NUL: digits up to the line's end */
    for (; a && a < eol && is_digit(*a) && v < 100000; a++)
        v = v * 10 + (unsigned)(*a - '0');
    return v;
}

/* #include (GL_GOOGLE_include_directive in GLSL, HLSL's own): shaderc asks for each
 * file. A quoted name is looked for beside the including file, then in the include
 * directories; <name> in the directories only (as glslc -I). The result and its text
 * belong to shaderc until it releases them, outside any guard: plain malloc. */
enum { INCLUDE_MAX_DEPTH = 64, INCLUDE_MAX_BYTES = 64 << 20 };

typedef struct include_result {
    shaderc_include_result r;
    char *name, *text;
} include_result;

static char *read_whole(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    char *buf = NULL;
    long n = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
    if (n >= 0 && n <= INCLUDE_MAX_BYTES && fseek(fp, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf) buf[n] = 0, *len = (size_t)n;
    return buf;
}

/* dir + "/" + name (name alone when dir is empty or name is absolute). */
static char *join_path(const char *dir, size_t dlen, const char *name)
{
    if (name[0] == '/') dlen = 0;
    size_t n = strlen(name);
    char *p = malloc(dlen + n + 2);
    if (!p) return NULL;
    memcpy(p, dir, dlen);
    if (dlen && dir[dlen - 1] != '/') p[dlen++] = '/';
    memcpy(p + dlen, name, n + 1);
    return p;
}

static bool record_include(front *f, const char *name, const char *text, size_t len)
{
    included *v = realloc(f->incl, (f->nincl + 1) * sizeof *v);
    if (!v) return false;
    f->incl = v;
    size_t nl = strlen(name);
    char *n = malloc(nl + 1), *t = malloc(len + 1);
    if (!n || !t) {
        free(n);
        free(t);
        return false;
    }
    memcpy(n, name, nl + 1);
    memcpy(t, text, len);
    t[len] = 0;
    f->incl[f->nincl++] = (included){n, t, len};
    return true;
}

/* The file system's answer: beside the including file first (quoted names), then each
 * directory. The path and text in *name and *text (malloc), or false. */
static bool include_from_dirs(const front *f, const char *requested, bool quoted,
                              const char *requesting, char **name, char **text, size_t *len)
{
    for (size_t k = quoted ? 0 : 1; k <= f->ninclude_dirs; k++) {
        const char *dir = k ? f->include_dirs[k - 1] : requesting;
        if (!dir) continue;
        const char *slash = k ? NULL : strrchr(requesting, '/');
        size_t dlen = k ? strlen(dir) : slash ? (size_t)(slash - requesting) : 0;
        char *path = join_path(dir, dlen, requested);
        char *t = path ? read_whole(path, len) : NULL;
        if (t) {
            *name = path, *text = t;
            return true;
        }
        free(path);
    }
    return false;
}

/* Whether a line of the text is `#pragma once`. */
static bool has_pragma_once(const char *s, size_t n)
{
    size_t pos = 0;
    const char *eol, *a;
    while ((a = next_directive(s, n, &pos, "pragma", &eol)))
        if (eol - a >= 4 && !memcmp(a, "once", 4)) return true;
    return false;
}

static shaderc_include_result *include_resolve(void *user, const char *requested, int type,
                                               const char *requesting, size_t depth)
{
    front *f = user;
    include_result *res = calloc(1, sizeof *res);
    if (!res) return NULL;
    bool quoted = type == shaderc_include_type_relative;
    size_t len = 0;
    if (depth > INCLUDE_MAX_DEPTH) {
        res->text = malloc(64);
        if (res->text)
            snprintf(res->text, 64, "#include nested more than %d deep", INCLUDE_MAX_DEPTH);
    } else if (f->include_fn && f->include_fn(f->include_user, requested, requesting, quoted,
                                              &res->text, &len, &res->name)) {
        if (!res->name) { /* the name as written, then */
            res->name = malloc(strlen(requested) + 1);
            if (res->name) strcpy(res->name, requested);
        }
        if (!res->text || !res->name) {
            free(res->text), free(res->name);
            res->text = res->name = NULL;
        }
    } else {
        include_from_dirs(f, requested, quoted, requesting, &res->name, &res->text, &len);
    }
    /* #pragma once (glslang does not implement it): a second inclusion is empty. */
    bool again = false;
    for (size_t k = 0; res->name && k < f->nincl && !again; k++)
        again = !strcmp(f->incl[k].name, res->name);
    if (again && has_pragma_once(res->text, len)) {
        len = 0;
    } else if (res->name && !record_include(f, res->name, res->text, len)) {
        free(res->name), free(res->text);
        res->name = NULL;
        res->text = NULL;
    }
    if (!res->name && !res->text) {
        /* glslang asks for a quoted name again as <name> when it is not found: the
         * message is for the name as written. */
        bool as_quoted = quoted || !strcmp(requested, f->unfound);
        if (quoted) snprintf(f->unfound, sizeof f->unfound, "%s", requested);
        res->text = malloc(400);
        if (res->text)
            snprintf(res->text, 400, "cannot find %s%s%s %s", as_quoted ? "'" : "<", requested,
                     as_quoted ? "'" : ">",
                     as_quoted ? (f->ninclude_dirs ? "beside the including file or in the "
                                                     "include directories"
                                                   : "beside the including file (no include "
                                                     "directories given: -I DIR)")
                               : (f->ninclude_dirs ? "in the include directories"
                                                   : "(no include directories given: -I DIR)"));
    }
    res->r.source_name = res->name ? res->name : "";
    res->r.source_name_length = res->name ? strlen(res->name) : 0;
    res->r.content = res->text ? res->text : "out of memory";
    res->r.content_length = res->text ? (res->name ? len : strlen(res->text)) : 13;
    res->r.user_data = res;
    return &res->r;
}

static void include_release(void *user, shaderc_include_result *r)
{
    (void)user;
    include_result *res = r->user_data;
    free(res->name);
    free(res->text);
    free(res);
}

static shaderc_compile_options_t make_options(front *f, bool compile)
{
    shaderc_compile_options_t o = shaderc_compile_options_initialize();
    if (!o) return NULL;
    shaderc_compile_options_set_source_language(o, f->lang == FMAG_SOURCE_GLSL
                                                       ? shaderc_source_language_glsl
                                                       : shaderc_source_language_hlsl);
    if (f->lang == FMAG_SOURCE_GLSL) {
        unsigned v = glsl_version(f->src, f->len);
        shaderc_compile_options_set_forced_version_profile(o, v > 450 ? (int)v : 450,
                                                           shaderc_profile_none);
    }
    shaderc_compile_options_set_target_env(o, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_0);
    shaderc_compile_options_set_auto_map_locations(o, true);
    shaderc_compile_options_set_auto_bind_uniforms(o, true);
    shaderc_compile_options_set_suppress_warnings(o);
    /* One location per scalar: lift the per-stage interface limits. */
    shaderc_compile_options_set_limit(o, shaderc_limit_max_draw_buffers, 4096);
    shaderc_compile_options_set_limit(o, shaderc_limit_max_fragment_input_vectors, 4096);
    shaderc_compile_options_set_limit(o, shaderc_limit_max_fragment_input_components, 16384);
    shaderc_compile_options_set_include_callbacks(o, include_resolve, include_release, f);
    for (size_t k = 0; k < f->ndefines; k++) {
        const char *d = f->defines[k], *eq = d ? strchr(d, '=') : NULL;
        if (!d || !*d || d[0] == '=') continue; /* checked by the caller: no name */
        if (eq)
            shaderc_compile_options_add_macro_definition(o, d, (size_t)(eq - d), eq + 1,
                                                         strlen(eq + 1));
        else
            shaderc_compile_options_add_macro_definition(o, d, strlen(d), "1", 1);
    }
    if (compile) {
        /* SPIRV-Tools' performance recipe, which shaderc runs in-process: inlining, memory
         * to SSA, scalar replacement, dead code, if-conversion (the legalization passes
         * plus folding); none past FRONT_SPIRV_INLINE_MAX calls to inline. Debug info is
         * kept, so OpLine reaches the reader. */
        shaderc_compile_options_set_optimization_level(
            o, f->inline_calls <= FRONT_SPIRV_INLINE_MAX ? shaderc_optimization_level_performance
                                                         : shaderc_optimization_level_zero);
        shaderc_compile_options_set_generate_debug_info(o);
    }
    return o;
}

/* The compiler handle is what keeps glslang's process-wide state (its built-in symbol
 * tables) alive: releasing the last one tears it down, and setting it up again costs
 * about 100 ms, so a program that compiles many shaders holds one. */
struct fmag_shader_compiler {
    shaderc_compiler_t sc;
};

/* No context to report to: a failed allocation is the documented NULL. */
fmag_shader_compiler *fmag_shader_compiler_create(void)
{
    fmag_shader_compiler *c = calloc(1, sizeof *c);
    if (c && !(c->sc = shaderc_compiler_initialize())) {
        free(c);
        c = NULL;
    }
    return c;
}

void fmag_shader_compiler_destroy(fmag_shader_compiler *c)
{
    if (!c) return;
    shaderc_compiler_release(c->sc);
    free(c);
}

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
    if (n && is_ident_start(s[0]))
        for (k = 1; k < n && (is_ident_start(s[k]) || is_digit(s[k]));)
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
            *uses = add_sat(*uses, 1);
        } else if (!e) {
            total = add_sat(total, 1);
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
                total = add_sat(total, add_sat(e->size, mul_sat(e->uses, args)));
                if (uses) *uses = add_sat(*uses, mul_sat(e->uses, au));
                i = close < n ? close + 1 : n;
                continue;
            }
            total = add_sat(total, e->size);
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
static bool macros_bounded(front *f, const char *s, size_t n)
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
                front_error(f, line, "macro '%.*s' expands to more than %d tokens", (int)il, s + k,
                            FRONT_MAX_EXPANSION);
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

static bool has_directive(const char *s, size_t n)
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
 * would then report the wrapper's lines ("'in' : not allowed in nested scope"); the
 * open brace is the error, at the brace (its column when the text was not
 * preprocessed, so that offsets in f->pp are offsets in the user's text). */
static bool braces_closed(front *f)
{
    size_t open[64], depth = 0;
    for (size_t i = 0; i < f->t.n; i++) {
        if (tok_punct(f, i, '{')) {
            if (depth < sizeof open / sizeof open[0]) open[depth] = i;
            depth++;
        } else if (tok_punct(f, i, '}') && depth) {
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
        report_in(f, f->filename, f->src, f->len, t->line, msg, "{");
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
            report_in(f, inc->name, inc->text, inc->len, line, msg, "{");
        else
            front_error(f, 0, "%s", msg);
    }
    return false;
}

/* A vertex shader's main() writes gl_Position (and gl_PointSize), which a fragment
 * shader does not have: they become private variables, _fmag_gl_Position, declared
 * before the first declaration, and the writes are dropped with them. The program's
 * outputs are its `out` variables, as for any stage. False when out of memory. */
static bool vertex_outputs_private(front *f)
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
            if (!tok_is(f, i, outs[o].name) || tok_punct(f, i - 1, '.')) continue;
            if (!add_edit(f, i, "_fmag_")) return false; /* blanked ones are not tok_is */
            used = true;
        }
        if (used && first != SIZE_MAX && !add_decl_edit(f, first, outs[o].decl)) return false;
    }
    return true;
}

/* The front's own work between the two shaderc calls: the preprocessed text copied
 * (it is edited in place), tokenized, the signature scanned, and the text glslang
 * compiles (the user's text with main renamed, then the wrapper) built in `full`. It
 * runs inside a guard that holds no shaderc object, so an allocation failure unwinds
 * only memory the guard frees (docs/Reliability.md). */
typedef enum { BUILD_OOM, BUILD_DIAGNOSED, BUILD_OK } build_status;

struct front_build {
    front *f;
    const char *pp;
    strbuf text, full;
    unsigned nin, nout;
    build_status status;
};

static void front_build_thunk(void *arg)
{
    struct front_build *a = arg;
    front *f = a->f;
    a->status = BUILD_OOM;
    f->pp = fmag_tmp_malloc(f->pplen + 1);
    if (!f->pp) return;
    memcpy(f->pp, a->pp, f->pplen);
    f->pp[f->pplen] = 0;
    if (!tokenize(f->pp, f->pplen, f->filename, &f->t)) return;
    if (!braces_closed(f)) {
        a->status = BUILD_DIAGNOSED;
        return;
    }
    if (!collect_structs(f)) return;
    /* GLSL: the user's main() (if any) gives way to the generated one. `-entry main` of a
     * parameterless main means the same as no -entry. HLSL has no implicit entry: without
     * -entry a function called main is the entry. */
    bool ok;
    if (f->lang == FMAG_SOURCE_GLSL) {
        bool has_main = find_main(f);
        if (!f->entry || !strcmp(f->entry, "main")) {
            f->entry = NULL;
            ok = wrap_main(f, &a->text, &a->nin, &a->nout, has_main);
        } else {
            ok = wrap_entry(f, &a->text, &a->nin, &a->nout);
        }
    } else {
        f->entry_implied = !f->entry;
        f->entry = f->entry ? f->entry : "main";
        ok = wrap_entry(f, &a->text, &a->nin, &a->nout);
    }
    if (!ok) {
        a->status = BUILD_DIAGNOSED;
        return;
    }
    size_t nd = 0;
    fdef *defs = call_graph(f, f->entry ? f->entry : "main", &nd);
    if (!defs) return;
    f->inline_calls = inline_estimate(f, defs, nd);
    fmag_tmp_free(defs);
    if (f->lang == FMAG_SOURCE_HLSL && f->inline_calls > FRONT_HLSL_INLINE_MAX) {
        front_error(f, 0,
                    "'%s' makes more than %d calls once its callees are inlined (each callee's "
                    "calls counted per call): glslang's HLSL legalization inlines them all "
                    "before FMAG's inline budget applies, and takes minutes past this",
                    f->entry, FRONT_HLSL_INLINE_MAX);
        a->status = BUILD_DIAGNOSED;
        return;
    }
    if (f->main_tok != SIZE_MAX) {
        blank_tok(f, f->main_tok);
        if (!add_edit(f, f->main_tok, "_fmag_umain")) return;
    }
    if (f->lang == FMAG_SOURCE_GLSL && !vertex_outputs_private(f)) return;
    if (f->nedits) qsort(f->edits, f->nedits, sizeof *f->edits, edit_cmp); /* NULL when none */
    size_t at = 0;
    for (size_t e = 0; e < f->nedits; e++) {
        sb_put(&a->full, f->pp + at, f->edits[e].off - at);
        sb_put(&a->full, f->edits[e].text, strlen(f->edits[e].text));
        at = f->edits[e].off;
    }
    sb_put(&a->full, f->pp + at, f->pplen - at);
    sb_put(&a->full, a->text.p, a->text.n);
    if (!a->full.oom) a->status = BUILD_OK;
}

/* The result's words, under the allocation policy like every other block. */
struct copy_words {
    const void *src;
    size_t bytes;
    uint32_t *words;
};

static void copy_words_thunk(void *arg)
{
    struct copy_words *a = arg;
    a->words = fmag_tmp_malloc(a->bytes ? a->bytes : 4);
    if (a->words) memcpy(a->words, a->src, a->bytes);
}

static void destroy_compiler(void *c)
{
    fmag_shader_compiler_destroy(c);
}

/* The compiler the context keeps through resets, made on first use (NULL when it
 * cannot be made: the compile then uses a temporary one). */
static fmag_shader_compiler *kept_compiler(fmag_context *ctx)
{
    fmag_shader_compiler *c = fmag_context_slot_get(ctx, FMAG_CONTEXT_SLOT_SHADER_COMPILER);
    if (!c && (c = fmag_shader_compiler_create()))
        fmag_context_slot_set(ctx, FMAG_CONTEXT_SLOT_SHADER_COMPILER, c, destroy_compiler);
    return c;
}

/* shaderc's objects (compiler, options, results) live outside the guards: glslang's
 * own allocations are C++ and outside the allocation hook, and a guard that unwound
 * past them would leak them. */
bool fmag_shader_to_spirv_opts(fmag_shader_compiler *compiler, fmag_context *ctx,
                               const char *filename, const char *src, size_t len,
                               fmag_source_language lang, const fmag_spirv_options *o,
                               fmag_shader_spirv *out)
{
    memset(out, 0, sizeof *out);
    /* A UTF-8 byte-order mark (Visual Studio saves HLSL with one): glslang takes it
     * for stray tokens. */
    size_t bom = fmag_text_bom_len(src, len);
    src += bom, len -= bom;
    if (!compiler) compiler = kept_compiler(ctx);
    front f;
    memset(&f, 0, sizeof f);
    f.ctx = ctx;
    f.filename = filename ? filename : "<input>";
    f.src = src;
    f.len = len;
    f.lang = lang;
    f.entry = o ? o->entry : NULL;
    f.include_dirs = o ? o->include_dirs : NULL;
    f.ninclude_dirs = o && o->include_dirs ? o->ninclude_dirs : 0;
    f.include_fn = o ? o->include_fn : NULL;
    f.include_user = o ? o->include_user : NULL;
    f.defines = o ? o->defines : NULL;
    f.ndefines = o && o->defines ? o->ndefines : 0;
    f.main_tok = SIZE_MAX;
    if (memchr(src, 0, len)) {
        front_error(&f, 0, "the source contains a NUL byte");
        return false;
    }
    for (size_t k = 0; k < f.ndefines; k++) {
        const char *d = f.defines[k];
        size_t n = d ? strcspn(d, "=") : 0;
        bool ok = n && is_ident_start(d[0]);
        for (size_t i = 1; ok && i < n; i++)
            ok = is_ident_start(d[i]) || is_digit(d[i]);
        if (!ok) {
            front_error(&f, 0, "bad macro definition '%s' (expected NAME or NAME=VALUE)",
                        d ? d : "(null)");
            return false;
        }
    }
    shaderc_compiler_t comp = compiler ? compiler->sc : shaderc_compiler_initialize();
    shaderc_compile_options_t opts = comp ? make_options(&f, false) : NULL;
    if (!opts) {
        if (comp && !compiler) shaderc_compiler_release(comp);
        front_error(&f, 0, "cannot start shaderc");
        return false;
    }
    unsigned user_lines = count_lines(src, len);
    bool ok = false;
    struct front_build b;
    memset(&b, 0, sizeof b);
    b.f = &f;
    b.pp = src;
    shaderc_compilation_result_t res = NULL;
    f.pplen = len;
    if (has_directive(src, len) && !macros_bounded(&f, src, len)) goto done;
    if (f.ndefines || has_directive(src, len)) {
        res = shaderc_compile_into_preprocessed_text(comp, src, len, shaderc_fragment_shader,
                                                     f.filename, "main", opts);
        if (!res) goto oom;
        if (shaderc_result_get_compilation_status(res) != shaderc_compilation_status_success) {
            report(&f, shaderc_result_get_error_message(res), user_lines);
            goto done;
        }
        b.pp = shaderc_result_get_bytes(res);
        f.pplen = shaderc_result_get_length(res);
    }
    if (!fmag_context_guard(ctx, front_build_thunk, &b)) {
        /* Out of memory, diagnosed; the guard freed every block the front held. */
        f.pp = NULL;
        f.t.v = NULL;
        f.edits = NULL;
        f.structs = NULL;
        f.members = NULL;
        b.text.p = b.full.p = NULL;
        goto done;
    }
    if (res) shaderc_result_release(res);
    res = NULL;
    if (b.status == BUILD_DIAGNOSED) goto done;
    if (b.status == BUILD_OOM) goto oom;
    shaderc_compile_options_release(opts);
    opts = make_options(&f, true);
    if (!opts) goto oom;
    res = shaderc_compile_into_spv(comp, b.full.p, b.full.n, shaderc_fragment_shader, f.filename,
                                   lang == FMAG_SOURCE_GLSL ? "main" : "_fmag_entry", opts);
    out->generated = b.full.p;
    out->generated_len = b.full.n;
    b.full.p = NULL;
    if (!res) goto oom;
    if (shaderc_result_get_compilation_status(res) != shaderc_compilation_status_success) {
        report(&f, shaderc_result_get_error_message(res), user_lines);
        goto done;
    }
    struct copy_words cw = {shaderc_result_get_bytes(res), shaderc_result_get_length(res), NULL};
    if (!fmag_context_guard(ctx, copy_words_thunk, &cw)) goto done;
    if (!cw.words) goto oom;
    out->words = cw.words;
    out->nwords = cw.bytes / 4;
    out->nin = b.nin;
    out->nout = b.nout;
    out->included = f.incl;
    out->nincluded = f.nincl;
    f.incl = NULL;
    f.nincl = 0;
    ok = true;
    goto done;
oom:
    front_error(&f, 0, "out of memory");
done:
    if (res) shaderc_result_release(res);
    if (opts) shaderc_compile_options_release(opts);
    if (!compiler) shaderc_compiler_release(comp);
    fmag_tmp_free(b.text.p);
    fmag_tmp_free(b.full.p);
    fmag_tmp_free(f.pp);
    fmag_tmp_free(f.t.v);
    fmag_tmp_free(f.edits);
    for (size_t k = 0; k < f.nincl; k++)
        free(f.incl[k].name), free(f.incl[k].text);
    free(f.incl);
    fmag_tmp_free(f.structs);
    fmag_tmp_free(f.members);
    if (!ok) fmag_shader_spirv_free(out);
    return ok;
}

#endif /* FMAG_HAVE_SHADERC */

/* The entry-only forms, for either build. */
bool fmag_shader_to_spirv(fmag_context *ctx, const char *filename, const char *src, size_t len,
                          fmag_source_language lang, const char *entry, fmag_shader_spirv *out)
{
    return fmag_shader_to_spirv_with(NULL, ctx, filename, src, len, lang, entry, out);
}

bool fmag_shader_to_spirv_with(fmag_shader_compiler *compiler, fmag_context *ctx,
                               const char *filename, const char *src, size_t len,
                               fmag_source_language lang, const char *entry, fmag_shader_spirv *out)
{
    fmag_spirv_options o = {.entry = entry};
    return fmag_shader_to_spirv_opts(compiler, ctx, filename, src, len, lang, &o, out);
}

/* The words and the generated text come from the library's scratch allocator
 * (Shaderc.c), so that the allocation policy and its fault-injection hook reach them;
 * the included files from malloc (shaderc calls the include callback, outside the
 * guards). */
void fmag_shader_spirv_free(fmag_shader_spirv *s)
{
    fmag_tmp_free(s->words);
    fmag_tmp_free(s->generated);
    for (size_t k = 0; k < s->nincluded; k++)
        free(s->included[k].name), free(s->included[k].text);
    free(s->included);
    memset(s, 0, sizeof *s);
}
