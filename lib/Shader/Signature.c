/* GLSL/HLSL front door: the entry's signature read from the preprocessed text: types, parameters,
 * qualifiers. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "GlslangDiag.h"
#include "ShaderFront.h"

#ifdef FMAG_HAVE_SHADERC

/* Reads a type name: float vecN matN matCxR (GLSL), float floatN floatRxC and the half
 * and minimum-precision spellings (HLSL; glslang makes them 32-bit floats by default),
 * or a struct of them defined earlier in the file. */
bool shf_parse_type_name(const front *f, size_t i, ftype *ty)
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
    const char *base = !strncmp(name, "float", 5)         ? name + 5
                       : !strncmp(name, "half", 4)        ? name + 4
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
bool shf_parse_input_type(const front *f, size_t i, ftype *ty)
{
    if (shf_parse_type_name(f, i, ty)) return true;
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
unsigned shf_array_size(const front *f, size_t i)
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
        if ((shf_tok_is(f, k, "int") || shf_tok_is(f, k, "uint")) && f->t.v[k + 1].len == t->len &&
            !memcmp(f->pp + f->t.v[k + 1].off, f->pp + t->off, t->len) &&
            shf_tok_punct(f, k + 2, '=') && f->t.v[k + 3].kind == TK_NUM &&
            shf_tok_punct(f, k + 4, ';'))
            return shf_array_size(f, k + 3);
    }
    return 0;
}

/* Index past the bracket group starting at i (which is '('/'['/'{'), or n on imbalance. */
size_t shf_skip_group(const front *f, size_t i)
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

bool shf_same_name(const front *f, size_t a, size_t b)
{
    return f->t.v[a].len == f->t.v[b].len &&
           !memcmp(f->pp + f->t.v[a].off, f->pp + f->t.v[b].off, f->t.v[a].len);
}

bool shf_tok_eq_str(const front *f, size_t i, const char *s, size_t n)
{
    return i < f->t.n && f->t.v[i].len == n && !memcmp(f->pp + f->t.v[i].off, s, n);
}

bool shf_is_param_qualifier(const front *f, size_t i)
{
    static const char *const q[] = {"const",         "highp",  "mediump",  "lowp",
                                    "precise",       "linear", "centroid", "nointerpolation",
                                    "noperspective", "sample", "uniform",  "row_major",
                                    "column_major",  "snorm",  "unorm"};
    for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
        if (shf_tok_is(f, i, q[k])) return true;
    return false;
}

/* Reads a type at i, with an optional [N] after it (GLSL's `float[3] x`). Returns the index
 * after it, or 0 (with a diagnostic naming `what`) when it is not a float type or an
 * integer or bool scalar or vector (each one float: SPEC §5b). */
static size_t parse_type(front *f, size_t i, ftype *ty, const char *what)
{
    if (!shf_parse_input_type(f, i, ty)) {
        if (i < f->t.n)
            shf_front_error(f, f->t.v[i].line,
                            "%s has type '%.*s'; %s takes float scalars, vectors, matrices, "
                            "structs of them and arrays of these",
                            what, (int)f->t.v[i].len, f->pp + f->t.v[i].off,
                            f->entry_implied ? "the entry point" : "-entry");
        else
            shf_front_error(f, 0, "%s: cannot read its type", what);
        return 0;
    }
    i++;
    if (shf_tok_punct(f, i, '[')) {
        ty->array = shf_array_size(f, i + 1);
        if (!ty->array || !shf_tok_punct(f, i + 2, ']')) {
            shf_front_error(f, f->t.v[i].line, "%s: array size is not an integer constant", what);
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
    p->dir = FMAG_SPIRV_PARAM_IN;
    size_t i = b;
    for (;; i++) {
        if (shf_tok_punct(f, i, '[') && shf_tok_punct(f, i + 1, '[')) /* [[vk::location(3)]] */
            i = shf_skip_group(f, i) - 1;
        else if (shf_tok_is(f, i, "in"))
            p->dir = FMAG_SPIRV_PARAM_IN;
        else if (shf_tok_is(f, i, "out"))
            p->dir = FMAG_SPIRV_PARAM_OUT;
        else if (shf_tok_is(f, i, "inout"))
            p->dir = FMAG_SPIRV_PARAM_INOUT;
        else if (!shf_is_param_qualifier(f, i))
            break;
    }
    if (i >= e) {
        shf_front_error(f, f->t.v[b].line, "%s: no type", what);
        return false;
    }
    i = parse_type(f, i, &p->ty, what);
    if (!i) return false;
    if (i < e && f->t.v[i].kind == TK_IDENT) i++; /* the name */
    if (shf_tok_punct(f, i, '[')) {
        if (p->ty.array) {
            shf_front_error(f, f->t.v[i].line, "%s: arrays of arrays are not supported", what);
            return false;
        }
        p->ty.array = shf_array_size(f, i + 1);
        if (!p->ty.array || !shf_tok_punct(f, i + 2, ']')) {
            shf_front_error(f, f->t.v[i].line, "%s: array size is not an integer constant", what);
            return false;
        }
        i += 3;
    }
    /* HLSL semantics and default values are irrelevant here. */
    if (i < e && !shf_tok_punct(f, i, ':') && !shf_tok_punct(f, i, '=')) {
        shf_front_error(f, f->t.v[i].line, "%s: unexpected '%.*s'", what, (int)f->t.v[i].len,
                        f->pp + f->t.v[i].off);
        return false;
    }
    return true;
}

/* Finds the first definition of f->entry at file scope and reads its signature. */
/* Levenshtein distance between a[0..na) and b[0..nb) (names of at most 64 bytes). */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
    size_t row[65];
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

/* The token of the file-scope function definition whose name is closest to `want` by
 * edit distance (the first of equals), if close enough to be a typo: at most a third of
 * the name's length, rounded up (clang's rule for its "did you mean"). SIZE_MAX if none. */
static size_t closest_function(const front *f, const char *want)
{
    size_t wn = strlen(want), best = SIZE_MAX, best_d = (wn + 2) / 3 + 1;
    if (wn > 64) return SIZE_MAX;
    int depth = 0;
    for (size_t i = 0; i + 1 < f->t.n; i++) {
        if (shf_tok_punct(f, i, '{')) depth++;
        if (shf_tok_punct(f, i, '}')) depth--;
        const tok *t = &f->t.v[i];
        if (depth != 0 || t->kind != TK_IDENT || t->len > 64 || !shf_tok_punct(f, i + 1, '('))
            continue;
        size_t k = shf_skip_group(f, i + 1);
        if (shf_tok_punct(f, k, ':') && k + 1 < f->t.n) k += 2; /* HLSL return semantic */
        if (!shf_tok_punct(f, k, '{')) continue;                /* not a definition */
        size_t d = edit_distance(want, wn, f->pp + t->off, t->len);
        if (d < best_d) best_d = d, best = i;
    }
    return best;
}

bool shf_entry_defined(front *f)
{
    if (f->entry_implied) return true; /* HLSL's main: shf_find_signature says it is missing */
    size_t near = closest_function(f, f->entry);
    if (near != SIZE_MAX && shf_tok_eq_str(f, near, f->entry, strlen(f->entry))) return true;
    if (near != SIZE_MAX)
        shf_front_error(f, 0, "no function '%s' defined in the file (-entry); did you mean '%.*s'?",
                        f->entry, (int)f->t.v[near].len, f->pp + f->t.v[near].off);
    else
        shf_front_error(f, 0, "no function '%s' defined in the file (-entry)", f->entry);
    return false;
}

bool shf_find_signature(front *f, signature *sig)
{
    size_t nlen = strlen(f->entry);
    int depth = 0;
    for (size_t i = 0; i < f->t.n; i++) {
        if (shf_tok_punct(f, i, '{')) depth++;
        if (shf_tok_punct(f, i, '}')) depth--;
        if (depth != 0 || !shf_tok_eq_str(f, i, f->entry, nlen) || !shf_tok_punct(f, i + 1, '(') ||
            i == 0)
            continue;
        size_t close = shf_skip_group(f, i + 1); /* index after ')' */
        size_t k = close;
        if (shf_tok_punct(f, k, ':') && k + 1 < f->t.n) k += 2; /* HLSL return semantic */
        if (!shf_tok_punct(f, k, '{')) continue;                /* a prototype or a call */
        memset(sig, 0, sizeof *sig);
        sig->line = f->t.v[i].line;
        /* The result type: `T NAME(` or `T[N] NAME(`. */
        size_t r = i - 1;
        unsigned rarray = 0;
        if (shf_tok_punct(f, r, ']') && r >= 3 && shf_tok_punct(f, r - 2, '[')) {
            rarray = shf_array_size(f, r - 1);
            r -= 3;
        }
        char what[80];
        snprintf(what, sizeof what, "the result of '%s'", f->entry);
        if (shf_tok_is(f, r, "void") && !rarray) {
            sig->has_result = false;
        } else {
            if (!parse_type(f, r, &sig->result, what)) return false;
            sig->result.array = rarray;
            sig->has_result = true;
        }
        /* The parameters, split at top-level commas. */
        size_t b = i + 2, e = close - 1;
        if (b == e || (e == b + 1 && shf_tok_is(f, b, "void"))) return true;
        unsigned count = 1;
        for (size_t j = b; j < e; j++) {
            if (shf_tok_punct(f, j, '(') || shf_tok_punct(f, j, '['))
                j = shf_skip_group(f, j) - 1;
            else if (shf_tok_punct(f, j, ','))
                count++;
        }
        sig->params = fmag_tmp_calloc(count, sizeof *sig->params);
        if (!sig->params) return false;
        size_t start = b;
        for (size_t j = b; j <= e; j++) {
            if (j < e && (shf_tok_punct(f, j, '(') || shf_tok_punct(f, j, '['))) {
                j = shf_skip_group(f, j) - 1;
                continue;
            }
            if (j == e || shf_tok_punct(f, j, ',')) {
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
        shf_front_error(f, 0, "no main() in the file: pass -entry NAME to pick a function");
    else
        shf_front_error(f, 0, "no function '%s' defined in the file (-entry)", f->entry);
    return false;
}

#endif /* FMAG_HAVE_SHADERC */
