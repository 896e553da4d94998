/* GLSL/HLSL front door: the textual call graph: what the entry reaches, the inlining estimate,
 * global reads. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "GlslangDiag.h"
#include "ShaderFront.h"

#ifdef FMAG_HAVE_SHADERC

/* Marks every definition named like token i reached; true when one was not yet. */
static bool reach_name(const front *f, fdef *defs, size_t nd, size_t i)
{
    bool changed = false;
    for (size_t d = 0; d < nd; d++)
        if (!defs[d].reached && shf_same_name(f, defs[d].name, i)) defs[d].reached = changed = true;
    return changed;
}

/* The file-scope definitions and those the entry reaches: a textual call graph, by
 * name (every overload of a called name), from the entry's definitions and from the
 * calls in file-scope initializers. NULL when out of memory. */
fdef *shf_call_graph(front *f, const char *entry, size_t *count)
{
    fdef *defs = NULL;
    size_t nd = 0, cap = 0, start = 0;
    for (size_t i = 0; i < f->t.n; i++) {
        if (shf_tok_punct(f, i, ';')) {
            start = i + 1;
            continue;
        }
        if (shf_tok_punct(f, i, '{')) {
            /* An HLSL struct's methods are definitions too (called as `b.f(x)`). */
            if (i >= 2 && shf_tok_is(f, i - 2, "struct") && f->t.v[i - 1].kind == TK_IDENT) {
                start = i + 1;
                continue;
            }
            i = shf_skip_group(f, i) - 1;
            start = shf_tok_punct(f, i + 1, ';') ? start : i + 1; /* a struct's ';' follows */
            continue;
        }
        if (i + 1 >= f->t.n || f->t.v[i].kind != TK_IDENT || !shf_tok_punct(f, i + 1, '('))
            continue;
        size_t k = shf_skip_group(f, i + 1);
        if (shf_tok_punct(f, k, ':') && k + 1 < f->t.n && f->t.v[k + 1].kind == TK_IDENT)
            k += 2; /* HLSL: the result's semantic, `) : SV_Target {` */
        if (!shf_tok_punct(f, k, '{')) continue;
        if (nd == cap) {
            cap = cap ? cap * 2 : 32;
            fdef *nv = fmag_tmp_realloc(defs, cap * sizeof *defs);
            if (!nv) {
                fmag_tmp_free(defs);
                return NULL;
            }
            defs = nv;
        }
        defs[nd++] = (fdef){start, i, k, shf_skip_group(f, k), false};
        i = defs[nd - 1].end - 1;
        start = i + 1;
    }
    size_t elen = strlen(entry);
    for (size_t d = 0; d < nd; d++)
        if (shf_tok_eq_str(f, defs[d].name, entry, elen)) defs[d].reached = true;
    /* Calls outside every body (global initializers; a prototype counts too). */
    for (size_t i = 0, d = 0; i + 1 < f->t.n; i++) {
        while (d < nd && i >= defs[d].end)
            d++;
        if (d < nd && i >= defs[d].name) continue;
        if (f->t.v[i].kind == TK_IDENT && shf_tok_punct(f, i + 1, '(')) reach_name(f, defs, nd, i);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t d = 0; d < nd; d++) {
            if (!defs[d].reached) continue;
            for (size_t i = defs[d].body; i < defs[d].end; i++)
                if (f->t.v[i].kind == TK_IDENT && shf_tok_punct(f, i + 1, '('))
                    changed |= reach_name(f, defs, nd, i);
        }
    }
    *count = nd;
    return defs ? defs : fmag_tmp_calloc(1, sizeof *defs);
}

uint64_t shf_add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t shf_mul_sat(uint64_t a, uint64_t b)
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
uint64_t shf_inline_estimate(front *f, const fdef *defs, size_t nd)
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
            if (f->t.v[i].kind != TK_IDENT || !shf_tok_punct(f, i + 1, '(')) continue;
            for (size_t e = head[name_hash(f, i) & (nb - 1)]; e != SIZE_MAX; e = next[e]) {
                if (!shf_same_name(f, defs[e].name, i)) continue;
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
            sum = shf_add_sat(sum, shf_add_sat(best, 1));
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
        if (!shf_same_name(f, i, name)) continue;
        ftype ty;
        size_t p = i - 1;
        if (shf_tok_punct(f, p, ']') && p >= 3 && shf_tok_punct(f, p - 2, '['))
            p -= 3; /* float[2] x */
        if (shf_parse_type_name(f, p, &ty)) return true;
        static const char *const other[] = {"int",   "uint",  "bool",  "ivec2", "ivec3",
                                            "ivec4", "uvec2", "uvec3", "uvec4", "bvec2",
                                            "bvec3", "bvec4", "double"};
        for (size_t k = 0; k < sizeof other / sizeof other[0]; k++)
            if (shf_tok_is(f, p, other[k])) return true;
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
size_t shf_find_global_use(const front *f, const fdef *defs, size_t nd, const global *g, size_t ng,
                           bool refused_only, bool mentions, size_t *which)
{
    for (size_t d = 0; d < nd; d++) {
        if (!defs[d].reached) continue;
        for (size_t i = defs[d].body; i < defs[d].end; i++) {
            const tok *t = &f->t.v[i];
            if (t->kind != TK_IDENT || shf_tok_punct(f, i - 1, '.')) continue;
            for (size_t k = 0; k < ng; k++) {
                if ((refused_only && !g[k].refused) || !shf_same_name(f, g[k].name, i) ||
                    (!mentions && declared_in(f, &defs[d], i)))
                    continue;
                *which = k;
                return i;
            }
        }
    }
    return SIZE_MAX;
}
void shf_report_refused_read(front *f, size_t i, const global *g)
{
    const tok *t = &f->t.v[i], *ty = &f->t.v[g->type];
    shf_front_error(f, t->line,
                    "'%.*s' is a uniform of type '%.*s': FMAG program inputs are floats (float, "
                    "vectors, matrices, structs of them and arrays of these)",
                    (int)t->len, f->pp + t->off, (int)ty->len, f->pp + ty->off);
}

bool shf_entry_uses_global(front *f, const fdef *defs, size_t nd, const global *g, size_t ng)
{
    size_t k, i = shf_find_global_use(f, defs, nd, g, ng, !f->entry, false, &k);
    if (i == SIZE_MAX) return false;
    const tok *t = &f->t.v[i];
    if (g[k].refused)
        shf_report_refused_read(f, i, &g[k]);
    else
        shf_front_error(f, t->line,
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
 * int` (shf_array_size), maybe in parentheses; anything else makes the size unknown. Several
 * such declarations each give the dimensions they name. */
static void read_workgroup_size(front *f, size_t b, size_t e)
{
    static const char *const dims[] = {"local_size_x", "local_size_y", "local_size_z"};
    for (size_t i = b; i < e; i++) {
        for (unsigned d = 0; d < 3; d++) {
            if (!shf_tok_is(f, i, dims[d])) continue;
            f->workgroup_given = true;
            size_t v = i + 2, next = i + 3;
            if (shf_tok_punct(f, v, '(') && shf_tok_punct(f, v + 2, ')')) v++, next = v + 2;
            unsigned n = shf_tok_punct(f, i + 1, '=') ? shf_array_size(f, v) : 0;
            if (!n || (next != e && !shf_tok_punct(f, next, ','))) {
                f->workgroup_unknown = true;
                continue;
            }
            f->workgroup[d] = n;
        }
        if (shf_tok_is(f, i, "local_size_x_id") || shf_tok_is(f, i, "local_size_y_id") ||
            shf_tok_is(f, i, "local_size_z_id"))
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
bool shf_keep_reached(front *f, const fdef *defs, size_t nd)
{
    /* First the declarations: blanking makes a token's text spaces, so the statement
     * boundaries are read before the functions are blanked (shf_strip_globals' blanks are
     * skipped). */
    int depth = 0;
    bool stmt_start = true;
    for (size_t i = 0; i < f->t.n; i++) {
        if (f->pp[f->t.v[i].off] == ' ') continue; /* blanked by shf_strip_globals */
        if (shf_tok_punct(f, i, '{')) depth++;
        if (shf_tok_punct(f, i, '}')) depth--;
        if (depth != 0) continue;
        if (shf_tok_punct(f, i, ';') || shf_tok_punct(f, i, '}')) {
            stmt_start = true;
            continue;
        }
        if (!stmt_start) continue;
        stmt_start = false;
        if (shf_tok_is(f, i, "shared")) shf_blank_tok(f, i);
        if (shf_tok_is(f, i, "layout") && shf_tok_punct(f, i + 1, '(')) {
            size_t k = shf_skip_group(f, i + 1);
            if (shf_tok_is(f, k, "in") && shf_tok_punct(f, k + 1, ';')) {
                read_workgroup_size(f, i + 2, k - 1);
                shf_blank_range(f, i, k + 2);
                i = k + 1;
                stmt_start = true;
            }
        }
    }
    for (size_t d = 0; d < nd; d++) {
        if (defs[d].reached) continue;
        if (f->main_tok >= defs[d].start && f->main_tok < defs[d].end) f->main_tok = SIZE_MAX;
        shf_blank_range(f, defs[d].start, defs[d].end);
    }
    if (f->workgroup_given && !f->workgroup_unknown)
        snprintf(f->workgroup_size, sizeof f->workgroup_size, "uvec3(%uu, %uu, %uu)",
                 f->workgroup[0] ? f->workgroup[0] : 1, f->workgroup[1] ? f->workgroup[1] : 1,
                 f->workgroup[2] ? f->workgroup[2] : 1);
    for (size_t i = 0; f->workgroup_size[0] && i < f->t.n; i++) {
        if (!shf_tok_is(f, i, "gl_WorkGroupSize") || shf_tok_punct(f, i - 1, '.')) continue;
        if (!shf_add_edit(f, i, f->workgroup_size)) return false;
        shf_blank_tok(f, i);
    }
    return true;
}

#endif /* FMAG_HAVE_SHADERC */
