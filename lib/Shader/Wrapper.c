/* GLSL/HLSL front door: the generated entry point (wrap_entry for -entry NAME, wrap_main for
 * main()). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../SPIRV/Interface.h" /* the interface rule: lib/Shader links lib/SPIRV */
#include "GlslangDiag.h"
#include "ShaderFront.h"

#ifdef FMAG_HAVE_SHADERC

/* --------------------------------------------------------- code generation */

static const char *in_name = "_fmag_in", *out_name = "_fmag_out";

static void type_name(const front *f, strbuf *b, ftype t)
{
    bool glsl = f->lang == FMAG_SOURCE_GLSL;
    if (t.base != FTYPE_FLOAT) {
        static const char *const scalar[] = {"int", "uint", "bool"}, *const vec[] = {"i", "u", "b"};
        const char *s = scalar[t.base - FTYPE_INT];
        if (t.rows == 1)
            shf_sb_printf(b, "%s", s);
        else if (glsl)
            shf_sb_printf(b, "%svec%u", vec[t.base - FTYPE_INT], t.rows);
        else
            shf_sb_printf(b, "%s%u", s, t.rows);
        return;
    }
    if (t.strct) {
        const tok *n = &f->t.v[f->structs[t.strct - 1].name];
        shf_sb_put(b, f->pp + n->off, n->len);
    } else if (t.rows == 1 && t.cols == 1)
        shf_sb_put(b, "float", 5);
    else if (t.cols == 1)
        shf_sb_printf(b, glsl ? "vec%u" : "float%u", t.rows);
    else if (glsl)
        shf_sb_printf(b, "mat%ux%u", t.cols, t.rows);
    else
        shf_sb_printf(b, "float%ux%u", t.rows, t.cols);
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
        shf_sb_put(b, "(", 1);
        element_from_inputs(f, b, i, base);
        shf_sb_put(b, ")", 1);
        return;
    }
    if (t.rows == 1 && t.cols == 1) {
        if (t.base != FTYPE_FLOAT) { /* int(x): the conversion the language defines */
            type_name(f, b, t);
            shf_sb_printf(b, "(%s%u)", in_name, base);
        } else {
            shf_sb_printf(b, "%s%u", in_name, base);
        }
        return;
    }
    ftype el = t;
    el.array = 0;
    type_name(f, b, el);
    shf_sb_put(b, "(", 1);
    bool glsl = f->lang == FMAG_SOURCE_GLSL;
    unsigned n = t.rows * t.cols;
    for (unsigned k = 0; k < n; k++) {
        /* GLSL constructors take columns; HLSL constructors take rows. */
        unsigned idx = glsl ? k : (k % t.cols) * t.rows + k / t.cols;
        shf_sb_printf(b, "%s%s%u", k ? ", " : "", in_name, base + idx);
    }
    shf_sb_put(b, ")", 1);
}

/* Assigns variable `var` (of type t) from the inputs starting at *next. */
/* Writes outputs *next, ... from `elem`, one value of a float type t (no array, no
 * struct): vectors by component, matrices column by column. An int, uint or bool
 * component becomes the float nearest it (SPEC §5b). */
static void element_to_outputs(const front *f, strbuf *b, const char *elem, ftype t, unsigned *next)
{
    bool glsl = f->lang == FMAG_SOURCE_GLSL;
    for (unsigned c = 0; c < t.cols; c++) {
        for (unsigned r = 0; r < t.rows; r++) {
            shf_sb_printf(b, "    %s%u = %s%s", out_name, (*next)++, t.base ? "float(" : "", elem);
            if (t.cols > 1)
                shf_sb_printf(b, "[%u][%u]", glsl ? c : r, glsl ? r : c);
            else if (t.rows > 1)
                shf_sb_printf(b, "[%u]", r);
            shf_sb_put(b, t.base ? ");\n" : ";\n", t.base ? 3 : 2);
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
            shf_sb_printf(b, "    %s = ", elem);
            element_from_inputs(f, b, el, *next);
            *next += el.rows * el.cols;
            shf_sb_put(b, ";\n", 2);
        } else if (kind == WALK_ZERO) {
            /* Outputs start at zero (as in SL), so an unwritten one reads 0. */
            shf_sb_printf(b, "    %s = ", elem);
            type_name(f, b, el);
            shf_sb_put(b, "(0.0);\n", 7);
        } else {
            element_to_outputs(f, b, elem, el, next);
        }
    }
}

static void declare_var(const front *f, strbuf *b, const char *var, ftype t)
{
    shf_sb_put(b, "    ", 4);
    ftype el = t;
    el.array = 0;
    type_name(f, b, el);
    shf_sb_printf(b, " %s", var);
    if (t.array) shf_sb_printf(b, "[%u]", t.array);
    shf_sb_put(b, ";\n", 2);
}

/* The interface declarations: one float per scalar, at locations 0.. in order. GLSL
 * globals; for HLSL the entry's parameter list. */
static void interface_glsl(strbuf *b, unsigned nin, unsigned nout)
{
    for (unsigned k = 0; k < nin; k++)
        shf_sb_printf(b, "layout(location = %u) in float %s%u;\n", k, in_name, k);
    for (unsigned k = 0; k < nout; k++)
        shf_sb_printf(b, "layout(location = %u) out float %s%u;\n", k, out_name, k);
}

/* HLSL: the entry takes a struct each way, which glslang flattens into one interface
 * variable per member, so the count is not bounded by SPIR-V's 255 function parameters;
 * the body copies the members to and from locals named as GLSL's globals are. */
static void interface_hlsl(strbuf *b, unsigned nin, unsigned nout)
{
    if (nin) {
        shf_sb_printf(b, "struct _fmag_In {\n");
        for (unsigned k = 0; k < nin; k++)
            shf_sb_printf(b, "    [[vk::location(%u)]] float %s%u : FMAGIN%u;\n", k, in_name, k, k);
        shf_sb_printf(b, "};\n");
    }
    shf_sb_printf(b, "struct _fmag_Out {\n");
    for (unsigned k = 0; k < nout; k++)
        shf_sb_printf(b, "    [[vk::location(%u)]] float %s%u : FMAGOUT%u;\n", k, out_name, k, k);
    shf_sb_printf(b, "};\n");
    shf_sb_printf(b, "void _fmag_entry(%sout _fmag_Out _fmag_o)\n{\n",
                  nin ? "in _fmag_In _fmag_i, " : "");
    for (unsigned k = 0; k < nin; k++)
        shf_sb_printf(b, "    float %s%u = _fmag_i.%s%u;\n", in_name, k, in_name, k);
    for (unsigned k = 0; k < nout; k++)
        shf_sb_printf(b, "    float %s%u;\n", out_name, k);
}

static void interface_hlsl_end(strbuf *b, unsigned nout)
{
    for (unsigned k = 0; k < nout; k++)
        shf_sb_printf(b, "    _fmag_o.%s%u = %s%u;\n", out_name, k, out_name, k);
}

/* The wrapper spells out one line per scalar; the SPIR-V reader's bound per variable
 * bounds the whole interface too. */
static bool interface_fits(front *f, uint64_t nin, uint64_t nout, unsigned line)
{
    /* glslang numbers locations below 4096. */
    if (nin <= FRONT_MAX_LOCATIONS && nout <= FRONT_MAX_LOCATIONS) return true;
    shf_front_error(
        f, line,
        "the program would have %llu inputs and %llu outputs: at most %d each (glslang's "
        "locations)",
        (unsigned long long)nin, (unsigned long long)nout, FRONT_MAX_LOCATIONS);
    return false;
}

/* HLSL: the global uniforms (shf_strip_hlsl_globals) when the entry reads one of them, as
 * its inputs after its parameters; none (*ng 0) when it reads none, so that a pure
 * helper in a file with cbuffers keeps its parameters as its interface. */
static global *hlsl_entry_globals(front *f, size_t *ng)
{
    global *g = shf_strip_hlsl_globals(f, ng);
    if (!g || !*ng) return g;
    size_t nd = 0, which;
    fdef *defs = shf_call_graph(f, f->entry, &nd);
    if (!defs) {
        fmag_tmp_free(g);
        return NULL;
    }
    size_t bad = shf_find_global_use(f, defs, nd, g, *ng, true, false, &which);
    if (bad != SIZE_MAX) {
        shf_report_refused_read(f, bad, &g[which]);
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
    bool uses = shf_find_global_use(f, defs, nd, g, *ng, false, true, &which) != SIZE_MAX;
    /* A file-scope initializer that reads one (`static float3 L =
     * normalize(LightDir);`) runs before the generated entry sets the inputs, so it
     * would see 0: an error, not a wrong value. */
    for (size_t i = 0, d = 0; i < f->t.n; i++) {
        while (d < nd && i >= defs[d].end)
            d++;
        if ((d < nd && i >= defs[d].start) || f->t.v[i].kind != TK_IDENT ||
            shf_tok_punct(f, i - 1, '.'))
            continue;
        for (size_t k = 0; k < *ng; k++) {
            if (i == g[k].name || !shf_same_name(f, g[k].name, i)) continue;
            bool init = false;
            for (size_t j = i; j-- > 0 && !shf_tok_punct(f, j, ';') && !shf_tok_punct(f, j, '{') &&
                               !shf_tok_punct(f, j, '}');)
                init |= shf_tok_punct(f, j, '=');
            if (!init) continue;
            shf_front_error(f, f->t.v[i].line,
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

/* One item of the interface (fmag_iface_layout): the rule of SPEC §5b lives there. */
static void set_item(const front *f, fmag_iface_item *it, fmag_iface_role role,
                     fmag_spirv_param_qual dir, ftype t)
{
    memset(it, 0, sizeof *it);
    it->role = role;
    it->dir = dir;
    it->nscalars = ftype_size(f, t);
}

/* The entry's interface: items[0] its result (none: no scalars), items[1 + p] parameter
 * p, then the HLSL globals it reads; laid out, with the totals in *ni and *no. NULL when
 * out of memory (diagnosed). */
static fmag_iface_item *entry_interface(front *f, const signature *sig, const global *hg,
                                        size_t nhg, uint64_t *ni, uint64_t *no)
{
    size_t n = 1 + sig->nparams + nhg;
    fmag_iface_item *items = fmag_tmp_malloc(n * sizeof *items);
    if (!items) {
        shf_front_error(f, 0, "out of memory");
        return NULL;
    }
    ftype none = {0, 0, 0, 0, 0};
    set_item(f, &items[0], FMAG_IFACE_RESULT, FMAG_SPIRV_PARAM_OUT,
             sig->has_result ? sig->result : none);
    for (unsigned p = 0; p < sig->nparams; p++)
        set_item(f, &items[1 + p], FMAG_IFACE_PARAM, sig->params[p].dir, sig->params[p].ty);
    for (size_t k = 0; k < nhg; k++)
        set_item(f, &items[1 + sig->nparams + k], FMAG_IFACE_GLOBAL, FMAG_SPIRV_PARAM_IN, hg[k].ty);
    if (!fmag_iface_layout(items, n, ni, no)) {
        shf_front_error(f, 0, "out of memory");
        fmag_tmp_free(items);
        return NULL;
    }
    return items;
}

/* The wrapper for -entry NAME: call it with the interface's inputs, write its outputs. */
bool shf_wrap_entry(front *f, strbuf *b, unsigned *nin, unsigned *nout)
{
    signature sig;
    global *hg = NULL;
    size_t nhg = 0;
    if (!shf_entry_defined(f)) return false;
    if (f->lang == FMAG_SOURCE_HLSL && !(hg = hlsl_entry_globals(f, &nhg))) return false;
    if (f->lang == FMAG_SOURCE_GLSL) {
        /* Globals are not inputs under -entry, but a file that declares them must compile;
         * an entry that uses one would read an undefined value, so that is an error. */
        size_t ng = 0, nd = 0;
        global *g = shf_strip_globals(f, &ng);
        if (!g) return false;
        fdef *defs = shf_call_graph(f, f->entry, &nd);
        bool used = !defs || (ng && shf_entry_uses_global(f, defs, nd, g, ng));
        bool kept = used || shf_keep_reached(f, defs, nd);
        fmag_tmp_free(defs);
        fmag_tmp_free(g);
        if (!kept) shf_front_error(f, 0, "out of memory");
        if (used || !kept) return false;
    }
    if (!shf_find_signature(f, &sig)) {
        fmag_tmp_free(hg);
        return false;
    }
    uint64_t ni = 0, no = 0;
    fmag_iface_item *items = entry_interface(f, &sig, hg, nhg, &ni, &no);
    bool fits = items && interface_fits(f, ni, no, sig.line);
    if (fits && no == 0)
        shf_front_error(
            f, sig.line,
            "entry '%s' has no outputs (it returns void and has no out or inout parameter)",
            f->entry);
    if (!fits || no == 0) {
        fmag_tmp_free(items);
        fmag_tmp_free(sig.params);
        fmag_tmp_free(hg);
        return false;
    }
    const fmag_iface_item *params = items + 1, *globals = items + 1 + sig.nparams;
    shf_sb_printf(b, "\n");
    if (f->lang == FMAG_SOURCE_GLSL) {
        interface_glsl(b, ni, no);
        shf_sb_printf(b, "void main()\n{\n");
    } else {
        interface_hlsl(b, ni, no);
    }
    unsigned next;
    char var[32];
    bool ok = true;
    for (unsigned p = 0; p < sig.nparams; p++) {
        snprintf(var, sizeof var, "_fmag_p%u", p);
        declare_var(f, b, var, sig.params[p].ty);
        if ((next = params[p].in_at) != FMAG_IFACE_NONE)
            walk_value(f, b, var, sig.params[p].ty, &next, WALK_IN);
    }
    for (size_t k = 0; k < nhg && ok; k++) {
        char gvar[FRONT_MAX_EXPR];
        ok = shf_global_expr(f, &hg[k], gvar, sizeof gvar);
        next = globals[k].in_at;
        if (ok) walk_value(f, b, gvar, hg[k].ty, &next, WALK_IN);
    }
    if (ok && sig.has_result) {
        declare_var(f, b, "_fmag_r", sig.result);
        shf_sb_printf(b, "    _fmag_r = ");
    } else if (ok) {
        shf_sb_printf(b, "    ");
    }
    if (ok) {
        shf_sb_printf(b, "%s(", f->entry);
        for (unsigned p = 0; p < sig.nparams; p++)
            shf_sb_printf(b, "%s_fmag_p%u", p ? ", " : "", p);
        shf_sb_printf(b, ");\n");
        next = items[0].out_at;
        if (sig.has_result) walk_value(f, b, "_fmag_r", sig.result, &next, WALK_OUT);
        for (unsigned p = 0; p < sig.nparams; p++) {
            snprintf(var, sizeof var, "_fmag_p%u", p);
            if ((next = params[p].out_at) != FMAG_IFACE_NONE)
                walk_value(f, b, var, sig.params[p].ty, &next, WALK_OUT);
        }
        if (f->lang == FMAG_SOURCE_HLSL) interface_hlsl_end(b, (unsigned)no);
        shf_sb_printf(b, "}\n");
        *nin = (unsigned)ni, *nout = (unsigned)no;
    }
    fmag_tmp_free(items);
    fmag_tmp_free(sig.params);
    fmag_tmp_free(hg);
    return ok;
}

/* Without -entry: the program is main(); its inputs and outputs are the stripped globals. */
bool shf_wrap_main(front *f, strbuf *b, unsigned *nin, unsigned *nout, bool has_main)
{
    size_t ng = 0;
    global *g = shf_strip_globals(f, &ng);
    if (!g) return false;
    if (!has_main) {
        shf_front_error(f, 0, "no main() in the file: pass -entry NAME to pick a function");
        fmag_tmp_free(g);
        return false;
    }
    /* A refused uniform: an error where main's code reads it, else nothing. */
    size_t nd = 0, kept = 0;
    fdef *defs = shf_call_graph(f, "main", &nd);
    bool used = !defs || shf_entry_uses_global(f, defs, nd, g, ng);
    fmag_tmp_free(defs);
    if (used) {
        fmag_tmp_free(g);
        return false;
    }
    for (size_t k = 0; k < ng; k++)
        if (!g[k].refused) g[kept++] = g[k];
    ng = kept;
    /* The globals in declaration order: no location, one group. */
    fmag_iface_item *items = fmag_tmp_malloc((ng ? ng : 1) * sizeof *items);
    uint64_t ni = 0, no = 0;
    for (size_t k = 0; items && k < ng; k++)
        set_item(f, &items[k], FMAG_IFACE_GLOBAL,
                 g[k].out ? FMAG_SPIRV_PARAM_OUT : FMAG_SPIRV_PARAM_IN, g[k].ty);
    if (!items || !fmag_iface_layout(items, ng, &ni, &no)) {
        shf_front_error(f, 0, "out of memory");
        fmag_tmp_free(items);
        fmag_tmp_free(g);
        return false;
    }
    if (!interface_fits(f, ni, no, 0)) {
        fmag_tmp_free(items);
        fmag_tmp_free(g);
        return false;
    }
    if (no == 0) {
        bool compute = false;
        for (size_t i = 0; i < f->t.n && !compute; i++)
            compute = shf_tok_is(f, i, "local_size_x");
        shf_front_error(f, 0,
                        compute ? "main() is a compute shader's (layout(local_size_x ...) in): it "
                                  "has no FMAG inputs or outputs; pass -entry NAME to compile one "
                                  "of the file's functions"
                                : "main() has no outputs: declare global 'out' variables, or pass "
                                  "-entry NAME");
        fmag_tmp_free(items);
        fmag_tmp_free(g);
        return false;
    }
    shf_sb_printf(b, "\n");
    interface_glsl(b, ni, no);
    shf_sb_printf(b, "void main()\n{\n");
    unsigned next;
    char var[FRONT_MAX_EXPR];
    bool ok = true;
    for (size_t k = 0; k < ng && ok; k++) {
        ok = shf_global_expr(f, &g[k], var, sizeof var);
        next = items[k].in_at;
        if (ok) walk_value(f, b, var, g[k].ty, &next, g[k].out ? WALK_ZERO : WALK_IN);
    }
    if (ok) {
        shf_sb_printf(b, "    _fmag_umain();\n");
        for (size_t k = 0; k < ng; k++) {
            if ((next = items[k].out_at) == FMAG_IFACE_NONE) continue;
            shf_global_expr(f, &g[k], var, sizeof var);
            walk_value(f, b, var, g[k].ty, &next, WALK_OUT);
        }
        shf_sb_printf(b, "}\n");
        *nin = (unsigned)ni, *nout = (unsigned)no;
    }
    fmag_tmp_free(items);
    fmag_tmp_free(g);
    return ok;
}

#endif /* FMAG_HAVE_SHADERC */
