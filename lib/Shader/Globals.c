/* GLSL/HLSL front door: global in/out/uniform declarations, interface blocks and HLSL global
 * uniforms made private. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "GlslangDiag.h"
#include "ShaderFront.h"

#ifdef FMAG_HAVE_SHADERC

/* Overwrites token i of the preprocessed text with blanks (lines are kept). */
void shf_blank_tok(front *f, size_t i)
{
    memset(f->pp + f->t.v[i].off, ' ', f->t.v[i].len);
}

/* Blanks tokens [b, e). */
void shf_blank_range(front *f, size_t b, size_t e)
{
    for (size_t i = b; i < e; i++)
        shf_blank_tok(f, i);
}

/* Inserts `text` (a static string) before token i when the text is put together. */
bool shf_add_edit(front *f, size_t i, const char *text)
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
bool shf_add_decl_edit(front *f, size_t i, const char *text)
{
    if (!shf_add_edit(f, i, text)) return false;
    f->edits[f->nedits - 1].seq = 0;
    return true;
}

int shf_edit_cmp(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    if (x->off != y->off) return (x->off > y->off) - (x->off < y->off);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Whether a type name is a value type the interface has no place for: the integer,
 * bool and double scalars, vectors and matrices, or a struct of the file's (one that
 * shf_collect_structs did not register). A uniform of one is made private, and a read is
 * an error; any other type (samplers, images, what this reader does not know) is left
 * to glslang and the reader. */
bool shf_is_refused_value_type(const front *f, size_t i)
{
    static const char *const prefix[] = {"int",      "uint",   "bool",  "ivec", "uvec",
                                         "bvec",     "double", "dvec",  "dmat", "int64_t",
                                         "uint64_t", "i64vec", "u64vec"};
    const tok *t = &f->t.v[i];
    for (size_t k = 0; k < sizeof prefix / sizeof prefix[0]; k++) {
        size_t n = strlen(prefix[k]);
        if (t->len >= n && !memcmp(f->pp + t->off, prefix[k], n)) {
            size_t j = n; /* the rest: digits and 'x' (ivec3, dmat2x3) */
            while (j < t->len && (shf_is_digit(f->pp[t->off + j]) || f->pp[t->off + j] == 'x'))
                j++;
            if (j == t->len) return true;
        }
    }
    for (size_t k = 0; k + 2 < f->t.n; k++)
        if (shf_tok_is(f, k, "struct") && shf_same_name(f, k + 1, i) &&
            shf_tok_punct(f, k + 2, '{'))
            return true;
    return false;
}

/* The expression the wrapper reads or writes: `x`, `inst.x` or `inst[i].x`. False (with
 * a diagnostic) when it does not fit in buf (FRONT_MAX_EXPR bytes). */
bool shf_global_expr(front *f, const global *g, char *buf, size_t cap)
{
    const tok *t = &f->t.v[g->name];
    const tok *m = g->member == SIZE_MAX ? NULL : &f->t.v[g->member];
    if (t->len > FRONT_MAX_NAME || (m && m->len > FRONT_MAX_NAME)) {
        const tok *l = t->len > FRONT_MAX_NAME ? t : m;
        shf_front_error(f, l->line, "the name '%.32s...' is longer than %d characters",
                        f->pp + l->off, FRONT_MAX_NAME);
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
        if (shf_tok_is(f, i, q[k])) return true;
    return false;
}

/* Finds the definition of main() at file scope; it is renamed to _fmag_umain when the
 * text is put together (the line does not change, so neither do line numbers). */
bool shf_find_main(front *f)
{
    int depth = 0;
    for (size_t i = 0; i < f->t.n; i++) {
        if (shf_tok_punct(f, i, '{')) depth++;
        if (shf_tok_punct(f, i, '}')) depth--;
        if (depth == 0 && shf_tok_is(f, i, "main") && shf_tok_punct(f, i + 1, '(') &&
            shf_tok_punct(f, shf_skip_group(f, i + 1), '{')) {
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
bool shf_collect_structs(front *f)
{
    int depth = 0;
    for (size_t i = 0; i + 2 < f->t.n; i++) {
        if (shf_tok_punct(f, i, '{')) depth++;
        if (shf_tok_punct(f, i, '}')) depth--;
        if (depth != 0 || !shf_tok_is(f, i, "struct") || f->t.v[i + 1].kind != TK_IDENT ||
            !shf_tok_punct(f, i + 2, '{'))
            continue;
        size_t close = shf_skip_group(f, i + 2) - 1; /* the '}' */
        if (close + 1 >= f->t.n) break;
        fstruct st = {i + 1, f->nmembers, 0, 0, 1};
        uint64_t size = 0;
        bool ok = f->t.v[i + 1].len <= FRONT_MAX_NAME;
        for (size_t q = i + 3; q < close && ok; q++) {
            for (;;) { /* qualifiers; HLSL modifiers and [[vk::...]] attributes */
                if (shf_tok_punct(f, q, '[') && shf_tok_punct(f, q + 1, '['))
                    q = shf_skip_group(f, q);
                else if (is_interp_qualifier(f, q) ||
                         (f->lang == FMAG_SOURCE_HLSL && shf_is_param_qualifier(f, q)))
                    q++;
                else
                    break;
            }
            ftype ty;
            ok = shf_parse_type_name(f, q, &ty);
            for (q++; ok; q++) {
                ok = q < close && f->t.v[q].kind == TK_IDENT && f->t.v[q].len <= FRONT_MAX_NAME;
                if (!ok) break;
                smember m = {q++, ty};
                if (shf_tok_punct(f, q, '[')) {
                    m.ty.array = shf_array_size(f, q + 1);
                    ok = m.ty.array && shf_tok_punct(f, q + 2, ']');
                    q += 3;
                }
                if (shf_tok_punct(f, q, ':')) q += 2; /* an HLSL semantic */
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
                if (shf_tok_punct(f, q, ';')) break;
                ok = shf_tok_punct(f, q, ',');
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
    size_t close = shf_skip_group(f, b) - 1; /* the '}' */
    for (size_t q = b + 1; q < close;) {
        size_t start = q;
        while (q < close) {
            if (shf_tok_is(f, q, "layout") && shf_tok_punct(f, q + 1, '('))
                q = shf_skip_group(f, q + 1);
            else if (is_interp_qualifier(f, q))
                q++;
            else
                break;
        }
        ftype ty;
        if (!(out ? shf_parse_type_name(f, q, &ty) : shf_parse_input_type(f, q, &ty))) {
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
            if (shf_tok_punct(f, q, '[')) {
                gl.ty.array = shf_array_size(f, q + 1);
                if (!gl.ty.array || !shf_tok_punct(f, q + 2, ']')) {
                    *bad = start;
                    return false;
                }
                q += 3;
            }
            if (!push_global(m, nm, cap, gl)) return false;
            if (shf_tok_punct(f, q, ';')) break;
            if (!shf_tok_punct(f, q, ',')) {
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
    size_t close = shf_skip_group(f, k + 1), end = close, inst = SIZE_MAX;
    unsigned count = 0;
    if (close < f->t.n && f->t.v[close].kind == TK_IDENT) {
        inst = end++;
        if (shf_tok_punct(f, end, '[')) {
            count = shf_array_size(f, end + 1);
            if (!count || !shf_tok_punct(f, end + 2, ']')) return close;
            end += 3;
        }
    }
    if (!shf_tok_punct(f, end, ';')) return close;
    *ended = true;
    if (f->t.v[k].len >= 3 && !memcmp(f->pp + f->t.v[k].off, "gl_", 3)) {
        /* A built-in block's redeclaration (`out gl_PerVertex { vec4 gl_Position; };`):
         * another stage's, an error in the fragment shader slc compiles; gone. */
        shf_blank_range(f, i, end + 1);
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
            shf_front_error(f, f->t.v[bad].line,
                            "block '%.*s' has a member of type '%.*s': FMAG inputs and outputs are "
                            "floats",
                            (int)f->t.v[k].len, f->pp + f->t.v[k].off, (int)f->t.v[bad].len,
                            f->pp + f->t.v[bad].off);
        return end + 1;
    }
    /* A struct member or a global takes no layout or interpolation qualifier. */
    for (size_t q = k + 2; q < close; q++) {
        if (shf_tok_is(f, q, "layout") && shf_tok_punct(f, q + 1, '(')) {
            size_t e = shf_skip_group(f, q + 1);
            shf_blank_range(f, q, e);
            q = e - 1;
        } else if (is_interp_qualifier(f, q)) {
            shf_blank_tok(f, q);
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
    shf_blank_range(f, i, k);
    if (inst != SIZE_MAX) {
        if (!shf_add_edit(f, k, "struct ")) f->failed = true;
    } else {
        shf_blank_range(f, k, k + 2);
        shf_blank_tok(f, close - 1);
        shf_blank_tok(f, end);
    }
    return end + 1;
}

/* Global in/out/non-opaque uniform variables lose their storage qualifier (they become
 * private globals, so any file of functions compiles for Vulkan) and are returned in
 * declaration order. NULL with a diagnostic on a global that cannot be an interface. */
global *shf_strip_globals(front *f, size_t *count)
{
    global *g = NULL;
    size_t ng = 0, capg = 0;
    int depth = 0;
    bool stmt_start = true;
    for (size_t i = 0; i < f->t.n && !f->failed; i++) {
        if (shf_tok_punct(f, i, '{')) depth++;
        if (shf_tok_punct(f, i, '}')) {
            depth--;
            stmt_start = depth == 0;
            continue;
        }
        if (depth != 0) continue;
        if (shf_tok_punct(f, i, ';')) {
            stmt_start = true;
            continue;
        }
        if (!stmt_start) continue;
        stmt_start = false;
        /* A declaration: [layout(...)] qualifiers storage [qualifiers] type names ; */
        size_t k = i;
        int storage = -1; /* 0 in, 1 out, 2 uniform */
        for (;; k++) {
            if (shf_tok_is(f, k, "layout") && shf_tok_punct(f, k + 1, '(')) {
                k = shf_skip_group(f, k + 1) - 1;
            } else if (shf_tok_is(f, k, "in")) {
                storage = 0;
            } else if (shf_tok_is(f, k, "out")) {
                storage = 1;
            } else if (shf_tok_is(f, k, "uniform")) {
                storage = 2;
            } else if (!is_interp_qualifier(f, k)) {
                break;
            }
        }
        if (storage < 0 || k >= f->t.n) continue;
        if (shf_tok_punct(f, k, ';')) continue; /* `layout(...) in;` */
        if (f->t.v[k].kind == TK_IDENT && shf_tok_punct(f, k + 1, '{')) {
            i = strip_block(f, i, k, storage, &g, &ng, &capg, &stmt_start) - 1;
            continue;
        }
        ftype ty;
        bool refused = false;
        if (!(storage == 1 ? shf_parse_type_name(f, k, &ty) : shf_parse_input_type(f, k, &ty))) {
            if (f->t.v[k].kind != TK_IDENT) continue;
            if (storage == 2 && !shf_is_refused_value_type(f, k)) continue; /* an opaque uniform */
            if (storage != 2) {
                shf_front_error(f, f->t.v[k].line,
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
        if (shf_tok_punct(f, k, '[')) {
            type_array = shf_array_size(f, k + 1);
            if (!type_array || !shf_tok_punct(f, k + 2, ']')) {
                shf_front_error(f, f->t.v[k].line,
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
            if (shf_tok_punct(f, k, '[')) {
                if (type_array) {
                    shf_front_error(f, f->t.v[k].line,
                                    "'%.*s': arrays of arrays are not program inputs or outputs",
                                    (int)f->t.v[gl.name].len, f->pp + f->t.v[gl.name].off);
                    break;
                }
                gl.ty.array = shf_array_size(f, k + 1);
                if (!gl.ty.array || !shf_tok_punct(f, k + 2, ']')) {
                    shf_front_error(f, f->t.v[k].line,
                                    "array size is not an integer constant from 1 to 4096");
                    break;
                }
                k += 3;
                if (shf_tok_punct(f, k, '[') && !refused) {
                    shf_front_error(f, f->t.v[k].line,
                                    "'%.*s': arrays of arrays are not program inputs or outputs",
                                    (int)f->t.v[gl.name].len, f->pp + f->t.v[gl.name].off);
                    break;
                }
                while (shf_tok_punct(f, k, '[')) /* a refused uniform's further dimensions */
                    k = shf_skip_group(f, k);
            }
            if (shf_tok_punct(f, k, '=')) { /* an initializer: skip to ',' or ';' */
                while (k < f->t.n && !shf_tok_punct(f, k, ',') && !shf_tok_punct(f, k, ';')) {
                    if (shf_tok_punct(f, k, '(')) k = shf_skip_group(f, k) - 1;
                    k++;
                }
            }
            if (!push_global(&g, &ng, &capg, gl)) {
                fmag_tmp_free(g);
                return NULL;
            }
            if (!shf_tok_punct(f, k, ',')) break;
            k++;
        }
        shf_blank_range(f, i, type_tok);
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
    while (k < e && (shf_tok_is(f, k, "uniform") || shf_tok_is(f, k, "extern") ||
                     shf_tok_is(f, k, "row_major") || shf_tok_is(f, k, "column_major")))
        k++;
    /* `ConstantBuffer<T> name;` is a cbuffer of one struct: `static T name;` */
    bool cb = k + 3 < e && shf_tok_is(f, k, "ConstantBuffer") && shf_tok_punct(f, k + 1, '<') &&
              shf_tok_punct(f, k + 3, '>');
    size_t type_tok = cb ? k + 2 : k;
    ftype ty;
    if (type_tok >= e) return true;
    if (!shf_parse_input_type(f, type_tok, &ty)) {
        /* An integer or bool uniform stays one; its names are kept so that a read is
         * the front's error naming it (shf_is_refused_value_type). */
        if (cb || !shf_is_refused_value_type(f, type_tok)) return true;
        for (k = type_tok + 1; k < e; k++) {
            if (f->t.v[k].kind != TK_IDENT || shf_tok_punct(f, k + 1, '(')) continue;
            if (!shf_tok_punct(f, k - 1, ',') && k != type_tok + 1) continue;
            global gl = {k, SIZE_MAX, 0, false, {0}, false, true, type_tok};
            if (!push_global(g, ng, cap, gl)) return false;
        }
        return true;
    }
    k = type_tok + (cb ? 2 : 1);
    if (k >= e || f->t.v[k].kind != TK_IDENT || shf_tok_punct(f, k + 1, '(')) return true;
    for (size_t q = s; q < type_tok; q++)
        if (shf_tok_is(f, q, "uniform") || shf_tok_is(f, q, "extern") || cb) shf_blank_tok(f, q);
    if (cb) shf_blank_tok(f, type_tok + 1);
    if (!shf_add_edit(f, s, "static ")) return false;
    while (k < e && f->t.v[k].kind == TK_IDENT) {
        global gl = {k, SIZE_MAX, 0, false, ty, false, false, type_tok};
        k++;
        if (shf_tok_punct(f, k, '[')) {
            gl.ty.array = shf_array_size(f, k + 1);
            if (!gl.ty.array || !shf_tok_punct(f, k + 2, ']')) {
                shf_front_error(f, f->t.v[k].line,
                                "array size is not an integer constant from 1 to 4096");
                return false;
            }
            k += 3;
            if (shf_tok_punct(f, k, '[')) {
                shf_front_error(f, f->t.v[k].line,
                                "'%.*s': arrays of arrays are not program inputs or outputs",
                                (int)f->t.v[gl.name].len, f->pp + f->t.v[gl.name].off);
                return false;
            }
        }
        while (shf_tok_punct(f, k, ':')) { /* `: register(b0)`, `: packoffset(c1.x)` */
            size_t a = k++;
            if (k < e && f->t.v[k].kind == TK_IDENT) k++;
            if (shf_tok_punct(f, k, '(')) k = shf_skip_group(f, k);
            shf_blank_range(f, a, k);
        }
        if (shf_tok_punct(f, k, '=')) /* a uniform's default: ignored, the input sets it */
            while (k < e && !shf_tok_punct(f, k, ',') && !shf_tok_punct(f, k, ';')) {
                if (shf_tok_punct(f, k, '(') || shf_tok_punct(f, k, '{'))
                    k = shf_skip_group(f, k) - 1;
                k++;
            }
        if (!push_global(g, ng, cap, gl)) return false;
        if (!shf_tok_punct(f, k, ',')) break;
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
global *shf_strip_hlsl_globals(front *f, size_t *count)
{
    global *g = NULL;
    size_t ng = 0, capg = 0;
    bool ok = true;
    for (size_t i = 0; i < f->t.n && ok; i++) {
        if (f->pp[f->t.v[i].off] == ' ') continue; /* blanked: a cbuffer's braces */
        if (shf_tok_punct(f, i, '{')) {            /* a function body, a struct, an initializer */
            i = shf_skip_group(f, i) - 1;
            continue;
        }
        if (shf_tok_punct(f, i, ';') || shf_tok_punct(f, i, '}')) continue;
        if ((shf_tok_is(f, i, "cbuffer") || shf_tok_is(f, i, "tbuffer")) &&
            f->t.v[i + 1].kind == TK_IDENT) {
            size_t k = i + 2;
            while (k < f->t.n && !shf_tok_punct(f, k, '{') && !shf_tok_punct(f, k, ';'))
                k++;
            if (!shf_tok_punct(f, k, '{')) continue;
            size_t close = shf_skip_group(f, k) - 1;
            if (close >= f->t.n) break;
            shf_blank_range(f, i, k + 1);
            shf_blank_tok(f, close);
            if (shf_tok_punct(f, close + 1, ';')) shf_blank_tok(f, close + 1);
            for (size_t s = k + 1; s < close && ok;) {
                size_t e = s;
                while (e < close && !shf_tok_punct(f, e, ';'))
                    e = shf_tok_punct(f, e, '{') || shf_tok_punct(f, e, '(') ? shf_skip_group(f, e)
                                                                             : e + 1;
                ok = hlsl_uniform_decl(f, s, e, &g, &ng, &capg);
                s = e + 1;
            }
            i = close;
            continue;
        }
        size_t e = i; /* one statement: to its ';' (a function: to its body, skipped above) */
        while (e < f->t.n && !shf_tok_punct(f, e, ';') && !shf_tok_punct(f, e, '{'))
            e = shf_tok_punct(f, e, '(') || shf_tok_punct(f, e, '[') ? shf_skip_group(f, e) : e + 1;
        if (shf_tok_punct(f, e, ';')) ok = hlsl_uniform_decl(f, i, e, &g, &ng, &capg);
        i = e - 1;
    }
    if (!ok || f->failed) {
        fmag_tmp_free(g);
        return NULL;
    }
    *count = ng;
    return g ? g : fmag_tmp_calloc(1, sizeof *g);
}

#endif /* FMAG_HAVE_SHADERC */
