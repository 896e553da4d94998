/* The graph walk: which outputs are programs, the scopes a graph is evaluated in
 * (a program's graph, a nested graph, a custom node's implementation), connections,
 * interface bindings, values, channels, cycles, and the program's parameters
 * (interface inputs, then the geometric streams in a fixed order). */
#include <float.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "MxInternal.h"

/* The most scalars of geometric input one program may read (texcoord, position,
 * normal, tangent, bitangent, color, time, frame and geometric properties). */
#define MX_MAX_STREAM_SCALARS 64u
/* Custom nodes and nested graphs inside one another: deeper is a definition that
 * uses itself. */
#define MX_MAX_SCOPE_DEPTH 64u

typedef struct mx_outs {
    unsigned n;
    const char **names;
    mx_val *vals;
} mx_outs;

enum { ST_NEW, ST_ACTIVE, ST_DONE };

struct mx_scope {
    mx_scope *parent;
    mx_elem *graph;    /* its children are the nodes */
    mx_elem *instance; /* a custom node or nested graph, whose inputs bind the interface */
    mx_elem *nodedef;  /* a custom node's definition (interface defaults) */
    bool program;      /* the interface is the program's parameters */
    unsigned depth;
    /* by child index: (epoch << 2) | state, where a stale epoch reads as ST_NEW, so
     * that a graph's arrays serve all its programs without clearing them (a document
     * of many outputs over one large graph costs its size, not outputs x nodes) */
    uint32_t *state;
    uint32_t epoch;
    mx_outs *memo; /* by child index */
};

/* A program graph's arrays, kept on its element across its programs. */
typedef struct mx_scope_cache {
    uint32_t *state;
    mx_outs *memo;
} mx_scope_cache;

static unsigned st_get(const mx_scope *s, unsigned i)
{
    return (s->state[i] >> 2) == s->epoch ? s->state[i] & 3u : 0u;
}

static void st_set(mx_scope *s, unsigned i, unsigned st)
{
    s->state[i] = (s->epoch << 2) | st;
}

typedef struct mx_stream_rec {
    const char *key;
    mx_type t;
    unsigned first; /* its first parameter in the scratch function */
} mx_stream_rec;

struct mx_gen {
    mx_doc *d;
    fmag_context *ctx;
    fmag_module *m;
    fmag_builder b;
    bool fast;
    uint32_t epoch;                 /* one per program (mx_scope.state) */
    size_t nodes_done, node_budget; /* work: nodes built over all programs */
    bool failed;                    /* an error: the compile fails */
    bool skipped;                   /* an out-of-scope node: this output is left out */
    fmag_func *fn;
    unsigned niface; /* interface scalars: the first parameters */
    mx_stream_rec streams[MX_MAX_STREAM_SCALARS];
    unsigned nstreams, nstream_scalars;
    /* the constants asked for lately, by their bits (gen_const): a node's
     * implementation asks for the same few (0, 1, 0.5) per component */
    struct {
        uint32_t bits;
        fmag_value *v;
    } consts[64];
    /* the DFS stack */
    struct dfs_item {
        mx_elem *e;
        unsigned phase;
    } * stack;
    size_t nstack, capstack;
};

static void elem_diag(mx_gen *g, mx_elem *e, fmag_diag_severity sev, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    unsigned line, col;
    mx_elem_where(g->d, e, &line, &col);
    if (sev == FMAG_DIAG_ERROR)
        fmag_context_error_at(g->ctx, g->d->filename, g->d->text, g->d->len, line, col, "%s", msg);
    else
        fmag_context_report(g->ctx, sev, g->d->filename, line, col, "%s", msg);
}

/* A warning at e with its source line and a caret, as the errors have. */
/* What is outside FMAG leaves its output out (g->skipped) with a warning at e, once
 * per element, with the source line and a caret as the errors have. */
static void gskip(mx_gen *g, mx_elem *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void gskip(mx_gen *g, mx_elem *e, const char *fmt, ...)
{
    g->skipped = true;
    if (e->reported) return;
    e->reported = true;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    unsigned line, ecol;
    mx_elem_where(g->d, e, &line, &ecol);
    const char *t = g->d->text, *end = t + g->d->len, *p = t;
    for (unsigned l = 1; l < line && p < end; p++)
        if (*p == '\n') l++;
    const char *q = p;
    while (q < end && *q != '\n' && *q != '\r')
        q++;
    int len = q - p > 200 ? 200 : (int)(q - p);
    unsigned col = ecol > 0 && ecol <= (unsigned)len + 1 ? ecol : 1;
    fmag_context_report(g->ctx, FMAG_DIAG_WARNING, g->d->filename, line, ecol, "%s\n%.*s\n%*s^",
                        msg, len, p, (int)col - 1, "");
}

static void gerror(mx_gen *g, mx_elem *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void gerror(mx_gen *g, mx_elem *e, const char *fmt, ...)
{
    g->failed = true;
    if (e->reported) return;
    e->reported = true;
    va_list ap;
    va_start(ap, fmt);
    elem_diag(g, e, FMAG_DIAG_ERROR, fmt, ap);
    va_end(ap);
}

void mx_node_error(mx_node *n, const char *fmt, ...)
{
    mx_gen *g = n->g;
    g->failed = true;
    if (n->e->reported) return;
    n->e->reported = true;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    unsigned line, col;
    mx_elem_where(g->d, n->e, &line, &col);
    fmag_context_error_at(g->ctx, g->d->filename, g->d->text, g->d->len, line, col,
                          "node '%s' (%s, %s): %s", n->e->name, n->e->tag, mx_type_name(n->type),
                          msg);
}

/* fmag_module_const through the gen's small cache: the module's constant pool is a
 * general hash table, asked thousands of times per compile. */
static fmag_value *gen_const(mx_gen *g, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    unsigned slot = (bits * 0x9E3779B1u) >> 26;
    if (g->consts[slot].v && g->consts[slot].bits == bits) return g->consts[slot].v;
    g->consts[slot].bits = bits;
    return g->consts[slot].v = fmag_module_const(g->m, f);
}

fmag_value *mx_k(mx_node *n, float f)
{
    return gen_const(n->g, f);
}

/* ------------------------------------------------------------------ types */

static const struct {
    const char *name;
    mx_type t;
} types[] = {
    {"float", MX_FLOAT},       {"integer", MX_INTEGER}, {"boolean", MX_BOOLEAN},
    {"vector2", MX_VECTOR2},   {"vector3", MX_VECTOR3}, {"vector4", MX_VECTOR4},
    {"color3", MX_COLOR3},     {"color4", MX_COLOR4},   {"matrix33", MX_MATRIX33},
    {"matrix44", MX_MATRIX44}, {"string", MX_STRING},   {"filename", MX_FILENAME},
    {"multioutput", MX_MULTI},
};

static const char *const closure_types[] = {
    "surfaceshader", "displacementshader",
    "volumeshader",  "lightshader",
    "material",      "BSDF",
    "EDF",           "VDF",
    "closure",
};

/* Every element's type goes through here as the document is read: the common ones
 * by their letters, the rest down the tables. */
mx_type mx_type_of(const char *s)
{
    if (!s || !*s) return MX_NONE;
    switch (s[0]) {
    case 'f':
        if (mx_str_is(s, "float")) return MX_FLOAT;
        break;
    case 'c':
        if (s[1] == 'o' && s[2] == 'l' && s[3] == 'o' && s[4] == 'r' &&
            (s[5] == '3' || s[5] == '4') && !s[6])
            return s[5] == '3' ? MX_COLOR3 : MX_COLOR4;
        break;
    case 'v':
        if (s[1] == 'e' && s[2] == 'c' && s[3] == 't' && s[4] == 'o' && s[5] == 'r' &&
            s[6] >= '2' && s[6] <= '4' && !s[7])
            return (mx_type)(MX_VECTOR2 + (s[6] - '2'));
        break;
    default:
        break;
    }
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(types[i].name, s)) return types[i].t;
    for (size_t i = 0; i < sizeof closure_types / sizeof closure_types[0]; i++)
        if (!strcmp(closure_types[i], s)) return MX_CLOSURE;
    return MX_UNKNOWN;
}

const char *mx_type_name(mx_type t)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].t == t) return types[i].name;
    return t == MX_CLOSURE ? "closure" : t == MX_NONE ? "untyped" : "unknown type";
}

unsigned mx_type_size(mx_type t)
{
    /* scalars per value, by the enum (asked at every value); 0: not a value */
    static const unsigned char sizes[MX_UNKNOWN + 1] = {
        [MX_FLOAT] = 1,    [MX_INTEGER] = 1,  [MX_BOOLEAN] = 1, [MX_VECTOR2] = 2,
        [MX_VECTOR3] = 3,  [MX_VECTOR4] = 4,  [MX_COLOR3] = 3,  [MX_COLOR4] = 4,
        [MX_MATRIX33] = 9, [MX_MATRIX44] = 16};
    return (unsigned)t <= MX_UNKNOWN ? sizes[t] : 0;
}

static bool is_color(mx_type t)
{
    return t == MX_COLOR3 || t == MX_COLOR4;
}

/* ------------------------------------------------------------------ values */

/* A plain decimal ([sign] digits [. digits], 7 significant digits at most, 10
 * after the point at most, then the end, a comma or white space), as most values
 * are: its length, or 0 for anything else. Its digits M and the power 10^k it is
 * divided by are then exact floats, so one correctly rounded division gives what
 * strtof gives (Clinger's fast path), without strtof's cost per value. */
static size_t parse_plain_decimal(const char *p, float *out)
{
#if FLT_EVAL_METHOD == 0 /* the division is rounded once, to float */
    static const float pow10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                  1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    size_t i = p[0] == '-' || p[0] == '+';
    uint32_t m = 0;
    unsigned digits = 0, frac = 0;
    for (; p[i] >= '0' && p[i] <= '9'; i++, digits++)
        if ((m = m * 10 + (uint32_t)(p[i] - '0')) >= (1u << 24)) return 0;
    if (p[i] == '.')
        for (i++; p[i] >= '0' && p[i] <= '9'; i++, digits++, frac++)
            if ((m = m * 10 + (uint32_t)(p[i] - '0')) >= (1u << 24) || frac == 10) return 0;
    char c = p[i];
    if (!digits || !(c == 0 || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'))
        return 0;
    float f = (float)m / pow10[frac];
    *out = p[0] == '-' ? -f : f;
    return i;
#else
    (void)p;
    (void)out;
    return 0;
#endif
}

/* "1.0, 2, 3e-1": n numbers separated by commas and/or spaces. */
static bool parse_numbers(const char *s, float *out, unsigned n)
{
    const char *p = s;
    for (unsigned k = 0; k < n; k++) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || (k && *p == ','))
            p++;
        if (!*p) return false;
        size_t used = parse_plain_decimal(p, &out[k]);
        if (!used) used = fmag_parse_float(p, strlen(p), &out[k]);
        if (!used) return false;
        float f = out[k];
        if (f != f || f - f != 0.0f) return false; /* NaN or infinity */
        p += used;
    }
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return *p == 0;
}

static bool parse_value(mx_gen *g, mx_elem *at, const char *text, mx_type t, mx_val *v)
{
    memset(v, 0, sizeof *v);
    v->t = t;
    if (t == MX_STRING || t == MX_FILENAME) {
        v->s = text;
        return true;
    }
    if (t == MX_BOOLEAN) {
        v->n = 1;
        if (!strcmp(text, "true") || !strcmp(text, "1"))
            v->c[0] = gen_const(g, 1.0f);
        else if (!strcmp(text, "false") || !strcmp(text, "0"))
            v->c[0] = gen_const(g, 0.0f);
        else {
            gerror(g, at, "'%s' is not a boolean (true or false)", text);
            return false;
        }
        return true;
    }
    unsigned n = mx_type_size(t);
    float f[16];
    if (!n || !parse_numbers(text, f, n) || (t == MX_INTEGER && (f[0] != (float)(long)f[0]))) {
        gerror(g, at, "value '%.60s' is not a%s %s", text, t == MX_INTEGER ? "n" : "",
               mx_type_name(t));
        return false;
    }
    v->n = n;
    for (unsigned k = 0; k < n; k++)
        v->c[k] = gen_const(g, f[k]);
    return true;
}

/* channels="rgb", "xxy", "r01": a swizzle of v (1.38). */
static bool swizzle(mx_gen *g, mx_elem *at, const char *ch, mx_val *v)
{
    mx_val r = *v;
    unsigned n = (unsigned)strlen(ch);
    if (n < 1 || n > 4 || v->n == 0 || v->n > 4) {
        gerror(g, at, "channels '%s' cannot apply to a %s", ch, mx_type_name(v->t));
        return false;
    }
    for (unsigned k = 0; k < n; k++) {
        int idx;
        switch (ch[k]) {
        case 'r':
        case 'x':
            idx = 0;
            break;
        case 'g':
        case 'y':
            idx = 1;
            break;
        case 'b':
        case 'z':
            idx = 2;
            break;
        case 'a':
        case 'w':
            idx = 3;
            break;
        case '0':
            idx = -1;
            break;
        case '1':
            idx = -2;
            break;
        default:
            idx = 99;
        }
        if (idx >= 0 && v->n > 1 && (unsigned)idx >= v->n) idx = 99;
        if (idx == 99) {
            gerror(g, at, "channel '%c' of '%s' is not a channel of a %s", ch[k], ch,
                   mx_type_name(v->t));
            return false;
        }
        r.c[k] = idx == -1   ? gen_const(g, 0.0f)
                 : idx == -2 ? gen_const(g, 1.0f)
                             : mx_c(v, (unsigned)idx);
    }
    r.n = n;
    r.t = n == 1 ? MX_FLOAT : n == 2 ? MX_VECTOR2 : n == 3 ? MX_VECTOR3 : MX_VECTOR4;
    if (is_color(v->t) && n >= 3) r.t = n == 3 ? MX_COLOR3 : MX_COLOR4;
    *v = r;
    return true;
}

/* ------------------------------------------------------------------ scopes */

static mx_scope *scope_new(mx_gen *g, mx_scope *parent, mx_elem *graph)
{
    mx_scope *s = fmag_context_alloc(g->ctx, sizeof *s);
    s->parent = parent;
    s->graph = graph;
    s->depth = parent ? parent->depth + 1 : 0;
    unsigned n = graph->nchildren ? graph->nchildren : 1;
    if (!parent) { /* a program's graph: its arrays are reused with a new epoch */
        mx_scope_cache *c = graph->cache;
        if (!c) {
            c = graph->cache = fmag_context_alloc(g->ctx, sizeof *c);
            c->state = fmag_context_alloc(g->ctx, n * sizeof *c->state);
            c->memo = fmag_context_alloc(g->ctx, n * sizeof *c->memo);
        }
        s->state = c->state;
        s->memo = c->memo;
        s->epoch = ++g->epoch;
        return s;
    }
    s->state = fmag_context_alloc(g->ctx, n * sizeof *s->state);
    s->memo = fmag_context_alloc(g->ctx, n * sizeof *s->memo);
    s->epoch = 1;
    return s;
}

static bool is_node(const mx_elem *e)
{
    return e->kind == MX_EK_NODE || e->kind == MX_EK_NODEGRAPH;
}

static bool is_input(const mx_elem *e)
{
    return e && e->kind == MX_EK_INPUT;
}

static mx_outs *node_outputs(mx_gen *g, mx_scope *s, mx_elem *node);
static bool eval_input(mx_gen *g, mx_scope *s, mx_elem *ie, mx_type expect, mx_val *out);

static bool pick_output(mx_gen *g, mx_elem *at, mx_elem *src, mx_outs *o, const char *name,
                        mx_val *out)
{
    if (!o || o->n == 0) return false;
    if (!name || !*name) {
        *out = o->vals[0];
        return true;
    }
    for (unsigned k = 0; k < o->n; k++)
        if (o->names[k] && !strcmp(o->names[k], name)) {
            *out = o->vals[k];
            return true;
        }
    gerror(g, at, "'%s' has no output named '%s'", src->name, name);
    return false;
}

/* The value an interface name stands for in scope s. */
static bool iface_value(mx_gen *g, mx_scope *s, mx_elem *at, const char *name, mx_type expect,
                        mx_val *out)
{
    mx_doc *d = g->d;
    mx_elem *decl = mx_doc_child(d, s->graph, name);
    if (decl && !is_input(decl)) decl = NULL;
    if (s->program) {
        if (!decl) {
            gerror(g, at, "graph '%s' has no interface input '%s'", s->graph->name, name);
            return false;
        }
        *out = s->memo[decl->index].vals[0];
        return true;
    }
    if (s->instance) {
        mx_elem *ie = mx_doc_child(d, s->instance, name);
        if (ie && is_input(ie)) {
            mx_val v;
            if (!eval_input(g, s->parent, ie, expect, &v)) return false;
            if (v.t != MX_NONE) {
                *out = v;
                return true;
            }
        }
    }
    mx_elem *def = s->nodedef ? mx_doc_child(d, s->nodedef, name) : NULL;
    if (def && !is_input(def)) def = NULL;
    if (!def) def = decl;
    if (!def) {
        gerror(g, at, "no interface input '%s' in '%s'", name, s->graph->name);
        return false;
    }
    /* the declaration's own value (a default), in the enclosing scope */
    mx_type t = (mx_type)def->etype;
    const char *value = def->a_value;
    if (value) return parse_value(g, def, value, t != MX_NONE ? t : expect, out);
    /* a default geometric property (defaultgeomprop="UV0") */
    const char *gp = mx_attr_get(def, "defaultgeomprop");
    if (gp) {
        mx_node n;
        memset(&n, 0, sizeof n);
        n.g = g;
        n.d = g->d;
        n.scope = s;
        n.e = def;
        n.type = t;
        n.b = &g->b;
        const char *key = !strcmp(gp, "UV0")       ? "texcoord"
                          : !strcmp(gp, "Pobject") ? "position"
                          : !strcmp(gp, "Nobject") ? "normal"
                          : !strcmp(gp, "Tobject") ? "tangent"
                          : !strcmp(gp, "Bobject") ? "bitangent"
                          : !strcmp(gp, "Pworld")  ? "position_world"
                          : !strcmp(gp, "Nworld")  ? "normal_world"
                          : !strcmp(gp, "Tworld")  ? "tangent_world"
                          : !strcmp(gp, "Bworld")  ? "bitangent_world"
                                                   : "geomprop";
        *out = mx_stream(&n, key, t);
        return !g->failed;
    }
    out->t = MX_NONE; /* absent: the node's own default */
    out->n = 0;
    return true;
}

static bool eval_input(mx_gen *g, mx_scope *s, mx_elem *ie, mx_type expect, mx_val *out)
{
    mx_doc *d = g->d;
    memset(out, 0, sizeof *out);
    mx_type declared = (mx_type)ie->etype;
    if (declared == MX_UNKNOWN) {
        gerror(g, ie, "unknown type '%s'", mx_attr_get(ie, "type"));
        return false;
    }
    const char *nodename = ie->a_nodename;
    const char *graphname = ie->a_nodegraph;
    const char *iface = ie->a_interfacename;
    const char *value = ie->a_value;
    const char *output = ie->a_output;
    const char *channels = ie->a_channels;
    mx_val v;
    memset(&v, 0, sizeof v);
    bool connected = false;
    if ((nodename && *nodename) || (graphname && *graphname)) {
        const char *ref = nodename && *nodename ? nodename : graphname;
        mx_elem *src = mx_doc_child(d, s->graph, ref);
        if (!src && s->graph != d->root && graphname) src = mx_doc_child(d, d->root, ref);
        if (!src || !is_node(src)) {
            gerror(g, ie, "input '%s' connects to '%s', which is not a node of '%s'", ie->name, ref,
                   s->graph == d->root ? "the document" : s->graph->name);
            return false;
        }
        mx_outs *o = node_outputs(g, s, src);
        if (g->failed || g->skipped) return false;
        if (!pick_output(g, ie, src, o, output, &v)) return false;
        connected = true;
    } else if (iface && *iface) {
        if (!iface_value(g, s, ie, iface, declared != MX_NONE ? declared : expect, &v))
            return false;
        if (v.t == MX_NONE && value)
            if (!parse_value(g, ie, value, declared != MX_NONE ? declared : expect, &v))
                return false;
        connected = v.t != MX_NONE;
    } else if (value) {
        mx_type t = declared != MX_NONE ? declared : expect;
        if (t == MX_NONE || t == MX_MULTI || t == MX_CLOSURE) {
            gerror(g, ie, "input '%s' has a value but no type", ie->name);
            return false;
        }
        if (!parse_value(g, ie, value, t, &v)) return false;
    } else {
        return true; /* absent */
    }
    if (channels && *channels && !swizzle(g, ie, channels, &v)) return false;
    if (connected && declared != MX_NONE && v.t != declared && v.t != MX_NONE &&
        !(channels && *channels && mx_type_size(declared) == v.n)) {
        gerror(g, ie, "type mismatch: input '%s' is %s but what it connects to is %s", ie->name,
               mx_type_name(declared), mx_type_name(v.t));
        return false;
    }
    if (declared != MX_NONE && v.t != declared && mx_type_size(declared) == v.n) v.t = declared;
    *out = v;
    return true;
}

/* ---------------------------------------------------------- the node inputs */

static mx_elem *input_elem(mx_node *n, const char *name)
{
    mx_elem *ie = NULL;
    if (n->e->nchildren <= 8) { /* a node's few inputs: a look at each beats hashing */
        for (mx_elem *c = n->e->first; c && !ie; c = c->next)
            if (mx_str_is(c->name, name)) ie = c;
    } else {
        ie = mx_doc_child(n->d, n->e, name);
    }
    return ie && is_input(ie) ? ie : NULL;
}

static mx_val splat(mx_node *n, mx_type t, float f)
{
    mx_val v;
    memset(&v, 0, sizeof v);
    v.t = t;
    v.n = mx_type_size(t) ? mx_type_size(t) : 1;
    v.c[0] = mx_k(n, f);
    for (unsigned k = 1; k < v.n; k++)
        v.c[k] = v.c[0];
    return v;
}

static bool check_size(mx_node *n, const char *name, mx_type t, const mx_val *v)
{
    unsigned want = mx_type_size(t);
    if (v->t == MX_STRING || v->t == MX_FILENAME) {
        mx_node_error(n, "input '%s' is a string where a %s is expected", name, mx_type_name(t));
        return false;
    }
    if (want && v->n != 1 && v->n != want) {
        mx_node_error(n, "input '%s' is %s; expected %s", name, mx_type_name(v->t),
                      mx_type_name(t));
        return false;
    }
    return true;
}

/* The input's value when the node has it connected, bound or given; false when it is
 * absent (or after an error). */
static bool given(mx_node *n, const char *name, mx_type t, mx_val *v)
{
    mx_elem *ie = input_elem(n, name);
    return ie && !n->g->failed && eval_input(n->g, n->scope, ie, t, v) && v->t != MX_NONE &&
           check_size(n, name, t, v);
}

mx_val mx_in(mx_node *n, const char *name, mx_type t, float dflt)
{
    mx_val v;
    return given(n, name, t, &v) ? v : splat(n, t, dflt);
}

mx_val mx_in_v(mx_node *n, const char *name, mx_type t, const float *dv)
{
    mx_val v;
    if (given(n, name, t, &v)) return v;
    memset(&v, 0, sizeof v);
    v.t = t;
    v.n = mx_type_size(t) ? mx_type_size(t) : 1;
    for (unsigned k = 0; k < v.n; k++)
        v.c[k] = mx_k(n, dv[k]);
    return v;
}

mx_val mx_in_geom(mx_node *n, const char *name, mx_type t, const char *stream)
{
    mx_val v;
    if (given(n, name, t, &v)) return v;
    if (n->g->failed) return splat(n, t, 0.0f);
    return mx_stream(n, stream, t);
}

const char *mx_in_str(mx_node *n, const char *name, const char *dflt)
{
    mx_elem *ie = input_elem(n, name);
    if (!ie) return dflt;
    const char *iface = ie->a_interfacename;
    if (iface && *iface) {
        mx_val v;
        if (iface_value(n->g, n->scope, ie, iface, MX_STRING, &v) && v.s) return v.s;
    }
    const char *value = ie->a_value;
    return value ? value : dflt;
}

bool mx_in_const(mx_node *n, const char *name, float dflt, float *out)
{
    mx_val v = mx_in(n, name, MX_FLOAT, dflt);
    if (n->g->failed) return false;
    /* Bound to a graph's interface input (a program input, as fractal3d's octaves in
     * a look's graph): the declaration's value, since no input can change the
     * program's shape (docs/MaterialX.md). */
    mx_elem *ie = input_elem(n, name);
    for (mx_scope *s = n->scope; !fmag_value_is_const(v.c[0]) && ie && ie->a_interfacename && s;
         s = s->parent) {
        mx_elem *decl = mx_doc_child(n->d, s->graph, ie->a_interfacename);
        if (s->instance) { /* a custom node or nested graph: what its instance binds */
            mx_elem *bound = mx_doc_child(n->d, s->instance, ie->a_interfacename);
            if (is_input(bound) && bound->a_interfacename) {
                ie = bound; /* bound in turn to the enclosing graph's interface */
                continue;
            }
            if (is_input(bound) && bound->a_value) decl = bound;
        }
        if (is_input(decl) && decl->a_value) {
            float f;
            if (parse_numbers(decl->a_value, &f, 1)) v.c[0] = mx_k(n, f);
        }
        break;
    }
    if (!fmag_value_is_const(v.c[0])) {
        mx_node_error(n, "input '%s' must be a constant here (it sets the program's shape)", name);
        return false;
    }
    *out = v.c[0]->imm;
    return true;
}

/* --------------------------------------------------------- geometric streams */

mx_val mx_stream(mx_node *n, const char *key, mx_type t)
{
    mx_gen *g = n->g;
    unsigned size = mx_type_size(t) ? mx_type_size(t) : 1;
    mx_val v;
    memset(&v, 0, sizeof v);
    v.t = t;
    v.n = size;
    for (unsigned k = 0; k < g->nstreams; k++) {
        mx_stream_rec *r = &g->streams[k];
        if (!strcmp(r->key, key)) {
            unsigned have = mx_type_size(r->t) ? mx_type_size(r->t) : 1;
            if (have < size) {
                mx_node_error(n, "geometric input '%s' read as %s here and as %s before", key,
                              mx_type_name(t), mx_type_name(r->t));
                return splat(n, t, 0.0f);
            }
            for (unsigned c = 0; c < size; c++)
                v.c[c] = &g->fn->params[g->niface + r->first + c];
            return v;
        }
    }
    if (g->nstreams == MX_MAX_STREAM_SCALARS || g->nstream_scalars + size > MX_MAX_STREAM_SCALARS) {
        mx_node_error(n, "more than %u scalars of geometric input", MX_MAX_STREAM_SCALARS);
        return splat(n, t, 0.0f);
    }
    mx_stream_rec *r = &g->streams[g->nstreams++];
    r->key = fmag_context_strdup(g->ctx, key, strlen(key));
    r->t = t;
    r->first = g->nstream_scalars;
    g->nstream_scalars += size;
    for (unsigned c = 0; c < size; c++)
        v.c[c] = &g->fn->params[g->niface + r->first + c];
    return v;
}

/* The documented order of the geometric inputs (docs/MaterialX.md). */
static unsigned stream_rank(const char *key)
{
    static const char *const kinds[] = {"texcoord", "position", "normal", "tangent", "bitangent",
                                        "color",    "time",     "frame",  "geomprop"};
    for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (!strncmp(key, kinds[k], strlen(kinds[k]))) return k;
    return 99;
}

/* ------------------------------------------------------------ node evaluation */

static bool eval_graph_outputs(mx_gen *g, mx_scope *inner, mx_elem *graph, mx_outs *o)
{
    unsigned n = 0;
    for (mx_elem *c = graph->first; c; c = c->next)
        n += c->kind == MX_EK_OUTPUT;
    o->n = n;
    o->names = fmag_context_alloc(g->ctx, (n ? n : 1) * sizeof *o->names);
    o->vals = fmag_context_alloc(g->ctx, (n ? n : 1) * sizeof *o->vals);
    unsigned k = 0;
    for (mx_elem *c = graph->first; c; c = c->next) {
        if (c->kind != MX_EK_OUTPUT) continue;
        mx_type t = (mx_type)c->etype;
        o->names[k] = c->name;
        if (!eval_input(g, inner, c, t, &o->vals[k])) return false;
        if (o->vals[k].t == MX_NONE) {
            gerror(g, c, "output '%s' of '%s' connects to nothing", c->name, graph->name);
            return false;
        }
        k++;
    }
    return true;
}

bool mx_custom_node(mx_node *n, bool *ok)
{
    mx_gen *g = n->g;
    mx_doc *d = g->d;
    mx_elem *nd = NULL, *first = NULL;
    for (mx_elem *c = d->root->first; c; c = c->next) {
        if (strcmp(c->tag, "nodedef")) continue;
        const char *node = mx_attr_get(c, "node");
        if (!node || strcmp(node, n->e->tag)) continue;
        if (!first) first = c;
        mx_type t = (mx_type)c->etype;
        if (t == MX_NONE)
            for (mx_elem *o = c->first; o; o = o->next)
                if (!strcmp(o->tag, "output")) {
                    t = mx_type_of(mx_attr_get(o, "type"));
                    break;
                }
        if (t == n->type || n->type == MX_MULTI || n->type == MX_NONE) {
            nd = c;
            break;
        }
    }
    if (!nd) nd = first;
    if (!nd) return false;
    mx_elem *impl = NULL;
    for (mx_elem *c = d->root->first; c && !impl; c = c->next) {
        const char *ndname = mx_attr_get(c, "nodedef");
        if (!ndname || strcmp(ndname, nd->name)) continue;
        if (!strcmp(c->tag, "nodegraph"))
            impl = c;
        else if (!strcmp(c->tag, "implementation")) {
            const char *ng = mx_attr_get(c, "nodegraph");
            mx_elem *x = ng ? mx_doc_child(d, d->root, ng) : NULL;
            if (x && !strcmp(x->tag, "nodegraph")) impl = x;
        }
    }
    if (!impl) {
        const char *why = mx_out_of_scope(n->e->tag, n->type);
        mx_node_error(n, "its definition '%s' has no <nodegraph> implementation (%s)", nd->name,
                      why ? why : "a node implemented in shader source cannot be compiled");
        *ok = false;
        return true;
    }
    if (n->scope->depth + 1 >= MX_MAX_SCOPE_DEPTH) {
        mx_node_error(n, "custom nodes nested more than %u deep (a definition that uses itself?)",
                      MX_MAX_SCOPE_DEPTH);
        *ok = false;
        return true;
    }
    mx_scope *inner = scope_new(g, n->scope, impl);
    inner->instance = n->e;
    inner->nodedef = nd;
    mx_outs o;
    *ok = eval_graph_outputs(g, inner, impl, &o);
    if (*ok) {
        n->nouts = o.n;
        n->out_names = o.names;
        n->outs = o.vals;
    }
    return true;
}

static bool eval_node(mx_gen *g, mx_scope *s, mx_elem *e, mx_outs *o)
{
    /* Every node builds at least its constants: a document whose outputs share a
     * long chain many times over (each program builds it again) stops here, before
     * time and memory run out, not after. */
    if (++g->nodes_done > g->node_budget) {
        gerror(g, e,
               "the document's outputs build more than %zu nodes in all (the budget: "
               "-inline-budget)",
               g->node_budget);
        return false;
    }
    if (e->kind == MX_EK_NODEGRAPH) {
        if (s->depth + 1 >= MX_MAX_SCOPE_DEPTH) {
            gerror(g, e, "graphs nested more than %u deep", MX_MAX_SCOPE_DEPTH);
            return false;
        }
        mx_scope *inner = scope_new(g, s, e);
        inner->instance = e;
        return eval_graph_outputs(g, inner, e, o);
    }
    mx_node n;
    memset(&n, 0, sizeof n);
    n.g = g;
    n.d = g->d;
    n.scope = s;
    n.e = e;
    n.b = &g->b;
    n.fast = g->fast;
    n.k0 = gen_const(g, 0.0f);
    n.k1 = gen_const(g, 1.0f);
    n.km1 = gen_const(g, -1.0f);
    const char *tname = e->a_type;
    n.type = (mx_type)e->etype;
    if (n.type == MX_UNKNOWN) {
        gerror(g, e, "node '%s' (%s) has an unknown type '%s'", e->name, e->tag, tname);
        return false;
    }
    static const char *const out1[] = {"out"};
    n.nouts = 1;
    n.out_names = (const char **)out1;
    n.outs = fmag_context_alloc(g->ctx, 4 * sizeof *n.outs);
    bool ok = true;
    /* a closure first (whatever its category), then the standard nodes, then what is
     * outside FMAG, then the document's own definitions */
    const char *why = n.type == MX_CLOSURE ? mx_out_of_scope(e->tag, n.type) : NULL;
    if (!why && !mx_std_node(&n, e->tag, &ok)) {
        why = mx_out_of_scope(e->tag, n.type);
        if (!why && !mx_custom_node(&n, &ok)) {
            gerror(g, e,
                   "node '%s' (%s, %s): unknown node: no standard node and no <nodedef> of that "
                   "name",
                   e->name, e->tag, tname ? tname : "untyped");
            return false;
        }
    }
    if (why) {
        gskip(g, e,
              "node '%s' (%s, %s) is outside what FMAG compiles: %s; the outputs that use it "
              "are left out",
              e->name, e->tag, tname ? tname : "untyped", why);
        return false;
    }
    if (!ok || g->failed) return false;
    o->n = n.nouts;
    o->names = n.out_names;
    o->vals = n.outs;
    return true;
}

static void push(mx_gen *g, mx_elem *e, unsigned phase)
{
    if (g->nstack == g->capstack) {
        size_t cap = g->capstack ? 2 * g->capstack : 64;
        struct dfs_item *p = fmag_tmp_realloc(g->stack, cap * sizeof *p);
        if (!p) {
            fmag_context_out_of_memory(g->ctx, "the MaterialX reader");
            g->failed = true;
            return;
        }
        g->stack = p;
        g->capstack = cap;
    }
    g->stack[g->nstack].e = e;
    g->stack[g->nstack++].phase = phase;
}

/* The outputs of a node of scope s, evaluating first, without recursion, every node
 * it depends on in s (a chain of a million nodes needs no deep stack). */
static mx_outs *node_outputs(mx_gen *g, mx_scope *s, mx_elem *node)
{
    mx_doc *d = g->d;
    if (st_get(s, node->index) == ST_DONE) return &s->memo[node->index];
    size_t base = g->nstack;
    push(g, node, 0);
    while (g->nstack > base && !g->failed && !g->skipped) {
        struct dfs_item it = g->stack[--g->nstack];
        mx_elem *e = it.e;
        if (it.phase == 0) {
            if (st_get(s, e->index) != ST_NEW) continue;
            st_set(s, e->index, ST_ACTIVE);
            push(g, e, 1);
            for (mx_elem *ie = e->first; ie; ie = ie->next) {
                if (!is_input(ie)) continue;
                const char *ref = ie->a_nodename;
                if (!ref || !*ref) ref = ie->a_nodegraph;
                if (!ref || !*ref) continue;
                mx_elem *dep = mx_doc_child(d, s->graph, ref);
                if (!dep || !is_node(dep)) continue; /* eval_input reports it */
                if (st_get(s, dep->index) == ST_ACTIVE) {
                    gerror(g, ie,
                           "cycle: input '%s' of node '%s' (%s) depends on the node itself "
                           "through '%s'",
                           ie->name, e->name, e->tag, dep->name);
                    break;
                }
                if (st_get(s, dep->index) == ST_NEW) push(g, dep, 0);
            }
        } else {
            bool ok = eval_node(g, s, e, &s->memo[e->index]);
            st_set(s, e->index, ST_DONE);
            if (!ok && !g->skipped) g->failed = true;
        }
    }
    g->nstack = base;
    if (g->failed || g->skipped) return NULL;
    return &s->memo[node->index];
}

/* ---------------------------------------------------------------- programs */

typedef struct program {
    mx_elem *graph;  /* NULL: a top-level output */
    mx_elem *output; /* the <output> element */
} program;

static bool entry_matches(const char *entry, const program *p)
{
    if (!entry) return true;
    if (!p->graph) return !strcmp(entry, p->output->name);
    size_t gl = strlen(p->graph->name);
    return !strncmp(entry, p->graph->name, gl) && (entry[gl] == '/' || entry[gl] == '.') &&
           !strcmp(entry + gl + 1, p->output->name);
}

static const char *comp_suffix(mx_type t, unsigned k, char *buf)
{
    static const char xyzw[] = "xyzw", rgba[] = "rgba";
    unsigned n = mx_type_size(t);
    if (n <= 1) return "";
    if (n <= 4)
        snprintf(buf, 8, ".%c", is_color(t) ? rgba[k] : xyzw[k]);
    else
        snprintf(buf, 8, ".%u", k);
    return buf;
}

static void name_param(mx_gen *g, fmag_value *p, const char *base, mx_type t, unsigned k)
{
    char sfx[8], buf[160];
    int len = snprintf(buf, sizeof buf, "%.120s%s", base, comp_suffix(t, k, sfx));
    for (int i = 0; i < len; i++) {
        char c = buf[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.'))
            buf[i] = '_';
    }
    p->name = fmag_context_strdup(g->ctx, buf, (size_t)len);
}

/* Builds one program; false when it failed (error) or was left out (g->skipped). */
static bool build_program(mx_gen *g, const program *p)
{
    mx_doc *d = g->d;
    mx_elem *out = p->output;
    mx_type ot = (mx_type)out->etype;
    char fname[300];
    if (p->graph)
        snprintf(fname, sizeof fname, "%.140s.%.140s", p->graph->name, out->name);
    else
        snprintf(fname, sizeof fname, "%.280s", out->name);
    if (ot == MX_CLOSURE) {
        gskip(g, out,
              "output '%s' (%s) is a shader or material, outside what FMAG compiles: left out",
              out->name, mx_attr_get(out, "type"));
        return false;
    }
    unsigned nres = mx_type_size(ot);
    if (!nres) {
        gerror(g, out, "output '%s' has type '%s', which is not a value FMAG computes", out->name,
               mx_attr_get(out, "type") ? mx_attr_get(out, "type") : "");
        return false;
    }
    mx_elem *graph = p->graph ? p->graph : d->root;
    mx_scope *s = scope_new(g, NULL, graph);
    s->program = p->graph != NULL;
    /* interface scalars */
    unsigned niface = 0;
    if (p->graph)
        for (mx_elem *c = graph->first; c; c = c->next)
            if (is_input(c)) niface += mx_type_size((mx_type)c->etype);
    g->niface = niface;
    g->nstreams = g->nstream_scalars = 0;
    g->skipped = false;
    fmag_func *fn =
        fmag_func_create(g->m, "mtlx.scratch", niface + MX_MAX_STREAM_SCALARS, nres, false);
    g->fn = fn;
    fmag_block *entry = fmag_block_create(fn, "entry");
    fmag_builder_at_end(&g->b, entry);
    unsigned pi = 0;
    if (p->graph)
        for (mx_elem *c = graph->first; c; c = c->next) {
            if (!is_input(c)) continue;
            mx_type t = (mx_type)c->etype;
            mx_outs *o = &s->memo[c->index];
            o->n = 1;
            o->vals = fmag_context_alloc(g->ctx, sizeof *o->vals);
            o->vals[0].t = t;
            if (t == MX_STRING || t == MX_FILENAME) o->vals[0].s = mx_attr_get(c, "value");
            unsigned n = mx_type_size(t);
            o->vals[0].n = n;
            for (unsigned k = 0; k < n; k++)
                o->vals[0].c[k] = &fn->params[pi++];
            st_set(s, c->index, ST_DONE);
        }
    mx_val v;
    bool ok = eval_input(g, s, out, ot, &v) && !g->failed && !g->skipped;
    if (ok && v.t == MX_NONE) {
        gerror(g, out, "output '%s' connects to nothing", out->name);
        ok = false;
    }
    if (ok && v.n != nres && v.n != 1) {
        gerror(g, out, "type mismatch: output '%s' is %s but what it connects to is %s", out->name,
               mx_type_name(ot), mx_type_name(v.t));
        ok = false;
    }
    if (!ok) {
        fmag_func_erase(fn);
        return false;
    }
    fmag_value *res[16];
    for (unsigned k = 0; k < nres; k++)
        res[k] = mx_c(&v, k);
    fmag_build_ret(&g->b, res, nres);

    /* The program: interface, then the streams in their documented order. */
    unsigned order[MX_MAX_STREAM_SCALARS];
    for (unsigned k = 0; k < g->nstreams; k++)
        order[k] = k;
    for (unsigned a = 1; a < g->nstreams; a++) /* insertion sort: a handful */
        for (unsigned b = a; b > 0; b--) {
            mx_stream_rec *x = &g->streams[order[b - 1]], *y = &g->streams[order[b]];
            unsigned rx = stream_rank(x->key), ry = stream_rank(y->key);
            if (rx < ry || (rx == ry && strcmp(x->key, y->key) <= 0)) break;
            unsigned t = order[b - 1];
            order[b - 1] = order[b];
            order[b] = t;
        }
    unsigned nparams = niface + g->nstream_scalars;
    fmag_func *prog = fmag_func_create(g->m, fmag_context_strdup(g->ctx, fname, strlen(fname)),
                                       nparams, nres, true);
    fmag_value **map = fmag_context_alloc(g->ctx, (fn->nparams) * sizeof *map);
    pi = 0;
    if (p->graph)
        for (mx_elem *c = graph->first; c; c = c->next) {
            if (!is_input(c)) continue;
            mx_type t = (mx_type)c->etype;
            for (unsigned k = 0; k < mx_type_size(t); k++, pi++) {
                map[pi] = &prog->params[pi];
                name_param(g, &prog->params[pi], c->name, t, k);
            }
        }
    for (unsigned k = 0; k < g->nstreams; k++) {
        mx_stream_rec *r = &g->streams[order[k]];
        unsigned size = mx_type_size(r->t) ? mx_type_size(r->t) : 1;
        for (unsigned c = 0; c < size; c++, pi++) {
            map[niface + r->first + c] = &prog->params[pi];
            name_param(g, &prog->params[pi], r->key, r->t, c);
        }
    }
    /* The body moves over (no copy: a compile per slider drag pays for each step);
     * the scratch function's parameters hand their uses to the program's. */
    for (unsigned k = 0; k < fn->nparams; k++)
        if (map[k]) fmag_value_replace_all_uses(&fn->params[k], map[k]);
    for (fmag_block *b = fn->first; b; b = b->next)
        b->func = prog;
    prog->first = fn->first;
    prog->last = fn->last;
    fn->first = fn->last = NULL;
    fmag_func_invalidate(prog, FMAG_VALID_ALL);
    fmag_func_erase(fn);
    return true;
}

static bool is_implementation(mx_doc *d, mx_elem *graph)
{
    if (mx_attr_get(graph, "nodedef")) return true;
    for (mx_elem *c = d->root->first; c; c = c->next)
        if (!strcmp(c->tag, "implementation")) {
            const char *ng = mx_attr_get(c, "nodegraph");
            if (ng && !strcmp(ng, graph->name)) return true;
        }
    return false;
}

typedef struct compile_args {
    fmag_context *ctx;
    const char *filename;
    const char *src;
    size_t len;
    const fmag_mtlx_options *opts;
    fmag_module *result;
    mx_gen *g;
} compile_args;

static void compile_doc(compile_args *a);

/* The scratch memory is freed here on success; when an allocation failure unwinds,
 * the guard frees it. */
static void compile_thunk(void *arg)
{
    compile_args *a = arg;
    compile_doc(a);
    if (a->g) {
        fmag_tmp_free(a->g->stack);
        if (a->g->d) mx_doc_free(a->g->d);
    }
}

/* Whether a node of the document antialiases with screen derivatives (splitlr,
 * splittb: MaterialX's aastep). */
static bool doc_uses_derivatives(const mx_doc *d)
{
    for (const mx_elem *e = d->root; e;) {
        if (e->kind == MX_EK_NODE && (mx_str_is(e->tag, "splitlr") || mx_str_is(e->tag, "splittb")))
            return true;
        e = mx_elem_next_preorder(e);
    }
    return false;
}

static void compile_doc(compile_args *a)
{
    mx_doc *d = fmag_context_alloc(a->ctx, sizeof *d);
    d->ctx = a->ctx;
    d->filename = a->filename;
    size_t bom = fmag_text_bom_len(a->src, a->len);
    d->text = a->src + bom;
    d->len = a->len - bom;
    mx_gen *g = fmag_context_alloc(a->ctx, sizeof *g);
    a->g = g;
    g->d = d;
    g->ctx = a->ctx;
    if (!mx_doc_read(d)) return;
    g->m = fmag_module_create(a->ctx);
    /* Before anything is built (IR.h): the antialiased nodes' derivatives must see
     * the builtins as calls to apply their chain rules. */
    g->m->math_calls = doc_uses_derivatives(d);
    g->fast = a->opts && a->opts->fastmath;
    g->m->fastmath = g->fast;
    g->m->src_file = fmag_context_strdup(a->ctx, a->filename, strlen(a->filename));
    g->b.module = g->m;
    g->node_budget = fmag_context_inline_budget(a->ctx);
    const char *entry = a->opts ? a->opts->entry : NULL;
    unsigned built = 0, candidates = 0, left_out = 0;
    bool any_error = false;
    for (mx_elem *c = d->root->first; c; c = c->next) {
        program progs[1];
        bool top = c->kind == MX_EK_OUTPUT;
        if (!top && (strcmp(c->tag, "nodegraph") || is_implementation(d, c))) continue;
        for (mx_elem *o = top ? c : c->first; o; o = top ? NULL : o->next) {
            if (strcmp(o->tag, "output")) continue;
            progs[0].graph = top ? NULL : c;
            progs[0].output = o;
            if (!entry_matches(entry, &progs[0])) continue;
            candidates++;
            g->failed = false;
            if (build_program(g, &progs[0]))
                built++;
            else if (g->failed) {
                /* The first error ends the walk: an output after it may need the same
                 * broken chain again, which would cost its whole length again. */
                any_error = true;
                break;
            } else
                left_out++;
            if (fmag_context_error_limit_reached(a->ctx)) break;
        }
        if (any_error) break;
    }
    if (any_error) return;
    if (!built) {
        if (entry && !candidates)
            fmag_context_report(a->ctx, FMAG_DIAG_ERROR, a->filename, 0, 0,
                                "no output '%s' in this document (name one as graph/output, or a "
                                "top-level output by its name)",
                                entry);
        else if (left_out)
            fmag_context_report(a->ctx, FMAG_DIAG_ERROR, a->filename, 0, 0,
                                "no output of this document can be compiled (%u left out)",
                                left_out);
        else
            fmag_context_report(a->ctx, FMAG_DIAG_ERROR, a->filename, 0, 0,
                                "this document has no <output>: nothing to compile");
        return;
    }
    size_t budget = fmag_context_inline_budget(a->ctx);
    if (fmag_module_num_instrs(g->m) > budget) {
        fmag_context_report(a->ctx, FMAG_DIAG_ERROR, a->filename, 0, 0,
                            "the document's programs have %zu instructions, more than the "
                            "budget of %zu (-inline-budget)",
                            fmag_module_num_instrs(g->m), budget);
        return;
    }
    a->result = g->m;
}

fmag_module *fmag_mtlx_compile(fmag_context *ctx, const char *filename, const char *src, size_t len,
                               const fmag_mtlx_options *opts)
{
    compile_args a = {
        ctx, filename ? filename : "<input>", src ? src : "", src ? len : 0, opts, NULL, NULL};
    return fmag_context_guard(ctx, compile_thunk, &a) ? a.result : NULL;
}
