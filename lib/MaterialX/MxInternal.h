/* lib/MaterialX's private interface: the document tree (Document.c), the values a
 * node graph carries while it becomes IR, the node table (Nodes.c), the noises
 * (Noise.c) and the graph walk (Graph.c). */
#ifndef FMAG_MX_INTERNAL_H
#define FMAG_MX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fmag/IR.h"
#include "fmag/Math.h"
#include "fmag/MaterialX.h"

/* ------------------------------------------------------------ the document */

typedef struct mx_attr {
    const char *name, *value;
} mx_attr;

/* What an element is, from its tag (the walk asks often). */
typedef enum mx_elem_kind {
    MX_EK_NODE,  /* any other tag: a node of that category */
    MX_EK_INPUT, /* <input>, and 1.37's <parameter> */
    MX_EK_OUTPUT,
    MX_EK_NODEGRAPH,
    MX_EK_NODEDEF,
    MX_EK_IMPLEMENTATION,
    MX_EK_OTHER, /* looks, materials assignments, geominfo, typedefs, ...: not nodes */
} mx_elem_kind;

typedef struct mx_elem mx_elem;
struct mx_elem {
    const char *tag;
    const char *name; /* the name attribute, or "" */
    mx_attr *attrs;
    unsigned nattrs;
    size_t pos; /* byte offset of the '<' that opens it (mx_elem_where: line and column) */
    mx_elem *parent, *first, *last, *next;
    unsigned index; /* among its parent's children */
    unsigned nchildren;
    bool reported; /* a diagnostic named it already: say it once */
    mx_elem_kind kind;
    void *cache; /* a program graph's walk arrays (Graph.c) */
    int etype;   /* mx_type of the type attribute */
    /* the attributes the walk reads, or NULL */
    const char *a_type, *a_nodename, *a_nodegraph, *a_interfacename, *a_value, *a_output,
        *a_channels;
};

/* The element after e in document order (children first), or NULL after the last. */
static inline mx_elem *mx_elem_next_preorder(const mx_elem *e)
{
    if (e->first) return e->first;
    while (e && !e->next)
        e = e->parent;
    return e ? e->next : NULL;
}

typedef struct mx_doc {
    fmag_context *ctx;
    const char *filename, *text;
    size_t len;
    mx_elem *root;
    mx_elem *elems; /* every element in document order, the root first */
    size_t nelems;
    /* (parent, name) -> element: open addressing, fmag_tmp memory */
    mx_elem **index;
    size_t index_cap;
    struct mx_cache *scratch; /* the form parsed into when no context slot was free */
} mx_doc;

/* s == t for the short strings of a document (names, tags): inline, where strcmp
 * would be a call per attribute or lookup. */
static inline bool mx_str_is(const char *s, const char *t)
{
    for (; *t; s++, t++)
        if (*s != *t) return false;
    return !*s;
}

/* Deeper nesting than any document has (a node graph is three levels): a bound on
 * what a hostile document can make the walk do. */
#define MX_MAX_DEPTH 256u

/* Parses the XML into a tree in the context's arena; false after a diagnostic.
 * The context keeps the last document's tree (DocCache.c): the same text again, or
 * one with a single attribute value changed, is not parsed again. */
bool mx_doc_read(mx_doc *d);
void mx_doc_free(mx_doc *d);
const char *mx_attr_get(const mx_elem *e, const char *name); /* NULL: absent */
/* The 1-based line and column (in characters, as expat counts) of e's '<'. Counted
 * from the text only when a diagnostic asks: expat's own line numbers cost a tenth
 * of the parse when taken at every element. */
void mx_elem_where(const mx_doc *d, const mx_elem *e, unsigned *line, unsigned *col);
/* The child of parent named name, or NULL. */
mx_elem *mx_doc_child(const mx_doc *d, const mx_elem *parent, const char *name);

/* ------------------------------ the compact form (Form.c, DocCache.c) */

/* The walk's attributes, which an element keeps apart from its attribute list. */
enum {
    MX_A_TYPE,
    MX_A_NODENAME,
    MX_A_NODEGRAPH,
    MX_A_INTERFACENAME,
    MX_A_VALUE,
    MX_A_OUTPUT,
    MX_A_CHANNELS,
    MX_A_COUNT
};
#define MX_FORM_NONE UINT32_MAX /* an attribute the element does not have */

typedef struct mx_form_attr {
    uint32_t name, value; /* offsets in the pool */
} mx_form_attr;

typedef struct mx_form_elem {
    uint32_t tag, name; /* offsets in the pool */
    uint32_t attr0, nattrs;
    int32_t parent;         /* index of the parent, -1 for the root */
    uint32_t a[MX_A_COUNT]; /* the walk's attributes: their values' offsets, or MX_FORM_NONE */
    size_t pos;
    mx_elem_kind kind;
    int etype;
} mx_form_elem;

/* A document as the parse leaves it, without pointers: the elements in document
 * order, their attributes, the strings in one pool (offset 0 is ""), and the
 * (parent, name) index by element number. The tree a compile walks is built from it
 * in the context's arena; the context keeps the last one (DocCache.c). */
typedef struct mx_form {
    char *text; /* the document's text (only in the kept form) */
    size_t len, captext;
    mx_form_elem *elems;
    size_t nelems, capelems;
    mx_form_attr *attrs;
    size_t nattrs, capattrs;
    char *pool;
    size_t npool, cappool;
    int32_t *index; /* index_cap slots: an element number, or -1 */
    size_t index_cap, capindex;
    uint32_t interned[MX_A_COUNT + 2]; /* pool offsets of the common names, or 0 */
    bool scratch;                      /* fmag_tmp memory (no context slot to keep it in) */
} mx_form;

/* The context's form that a parse of d fills, emptied (the kept one stays as it is
 * until mx_form_keep); an allocation failure unwinds. */
mx_form *mx_form_begin(mx_doc *d);
/* realloc of one of f's arrays to hold need items (the capacity doubles) that
 * unwinds on failure, and beyond 2^31 items. */
void *mx_form_grow(mx_doc *d, const mx_form *f, void *p, size_t *cap, size_t need, size_t elem);
/* Appends the element expat opened at byte pos, child of element number parent
 * (-1: the root); its number. */
int32_t mx_form_add(mx_doc *d, mx_form *f, const char *tag, const char **atts, size_t pos,
                    int32_t parent);
/* The tree of f in the context's arena (d->root, d->elems). */
void mx_form_tree(mx_doc *d, const mx_form *f);
/* f, just parsed from d's text without error (the tree indexed), becomes the
 * context's cached document (a document over the size limit is not kept). */
void mx_form_keep(mx_doc *d, mx_form *f);
/* The tree and index of the context's cached document when d's text is its text or
 * that text with one attribute value changed (true), or nothing (false). */
bool mx_cache_load(mx_doc *d);
/* A one-operand builtin of a literal that an earlier compile of this context
 * evaluated (Nodes.c: key names the builtin and what its sequence depends on, bits
 * the operand): true and its value, or false. mx_folded_put keeps one (the oldest
 * of a few goes); without the context's slot, nothing. */
bool mx_folded_get(const mx_doc *d, uint32_t key, uint32_t bits, float *value);
void mx_folded_put(const mx_doc *d, uint32_t key, uint32_t bits, float value);
/* Frees the scratch form (d->scratch), if any. */
void mx_cache_scratch_free(mx_doc *d);

/* ---------------------------------------------------------------- types */

typedef enum mx_type {
    MX_NONE,
    MX_FLOAT,
    MX_INTEGER,
    MX_BOOLEAN,
    MX_VECTOR2,
    MX_VECTOR3,
    MX_VECTOR4,
    MX_COLOR3,
    MX_COLOR4,
    MX_MATRIX33,
    MX_MATRIX44,
    MX_STRING,
    MX_FILENAME,
    MX_MULTI,   /* multioutput */
    MX_CLOSURE, /* surfaceshader, BSDF, material, ...: outside what FMAG runs */
    MX_UNKNOWN,
} mx_type;

mx_type mx_type_of(const char *s);
const char *mx_type_name(mx_type t);
unsigned mx_type_size(mx_type t); /* scalars: float 1 ... matrix44 16; 0 for the others */

/* A value while the graph becomes IR: its type and its scalar components (a matrix
 * row by row, as MaterialX writes it), or a string. */
typedef struct mx_val {
    mx_type t;
    unsigned n;
    fmag_value *c[16];
    const char *s;
} mx_val;

/* ------------------------------------------------------------ the walk */

typedef struct mx_gen mx_gen;
typedef struct mx_scope mx_scope;

/* What a node's implementation sees. */
typedef struct mx_node {
    mx_gen *g;
    mx_doc *d;
    mx_scope *scope;
    mx_elem *e;
    mx_type type; /* the node's type attribute */
    fmag_builder *b;
    bool fast;
    /* the literals 0, 1 and -1, which the IR helpers ask for at every instruction */
    fmag_value *k0, *k1, *km1;
    /* outputs: one (out) unless the node has several */
    unsigned nouts;
    const char **out_names;
    mx_val *outs;
} mx_node;

/* The value of input `name` of the node: connected, bound or given; the default
 * (dflt broadcast, or dv when given) when it is absent. A float given for a
 * vector input stays one component (broadcast it with mx_c). */
mx_val mx_in(mx_node *n, const char *name, mx_type t, float dflt);
mx_val mx_in_v(mx_node *n, const char *name, mx_type t, const float *dv);
/* A geometric input's default when absent (texcoord: "texcoord" 0; position: ...). */
mx_val mx_in_geom(mx_node *n, const char *name, mx_type t, const char *stream);
/* A string input (a value), or dflt. */
const char *mx_in_str(mx_node *n, const char *name, const char *dflt);
/* An input that must be a constant (an integer count, a metric). */
bool mx_in_const(mx_node *n, const char *name, float dflt, float *out);
/* A program input of the geometric stream `key` with k components. */
mx_val mx_stream(mx_node *n, const char *key, mx_type t);
/* Diagnostic at the node. */
void mx_node_error(mx_node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Evaluates a custom node (a <nodedef> implemented by a <nodegraph>); false: not one. */
bool mx_custom_node(mx_node *n, bool *ok);

static inline fmag_value *mx_c(const mx_val *v, unsigned i)
{
    return v->n <= 1 ? v->c[0] : v->c[(i < v->n ? i : 0) & 15u];
}
fmag_value *mx_k(mx_node *n, float f);

/* The node table (Nodes.c): runs the node's implementation into n->outs. Returns
 * false when the category is not a standard node (the caller tries <nodedef>s);
 * *ok false after a diagnostic. */
bool mx_std_node(mx_node *n, const char *category, bool *ok);
/* Why a category is outside what FMAG compiles, or NULL. */
const char *mx_out_of_scope(const char *category, mx_type t);

/* ------------------------------------------------------------ noise (Noise.c) */

/* MaterialX's reference noises on p (dim 2 or 3 components), out gets nout
 * components (1 or 3). */
void mx_perlin(mx_node *n, fmag_value *const *p, unsigned dim, unsigned nout, fmag_value **out);
void mx_cellnoise(mx_node *n, fmag_value *const *p, unsigned dim, unsigned nout, fmag_value **out);
/* Worley noise: out gets the distances to the nearest nout (1 to 3) points, F1 first;
 * nearest (dim components, or NULL) the nearest point relative to p's cell. */
void mx_worley(mx_node *n, fmag_value *const *p, unsigned dim, fmag_value *jitter, int metric,
               unsigned nout, fmag_value **out, fmag_value **nearest);
void mx_fractal(mx_node *n, fmag_value *const *p, unsigned dim, unsigned nout, int octaves,
                fmag_value *lacunarity, fmag_value *diminish, fmag_value **out);

#endif /* FMAG_MX_INTERNAL_H */
