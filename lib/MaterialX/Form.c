/* The compact form of a document (MxInternal.h, mx_form): what the parse writes as
 * expat hands over each element, and the tree a compile walks, built from it in the
 * context's arena. Writing this form during the parse, rather than a tree that is
 * then copied into the form the context keeps (DocCache.c), copies each string once
 * into one pool: the tree takes the pool with one memcpy (docs/MaterialX.md, "A
 * node editor's loop"). The arrays are malloc memory that the context's slot owns
 * from the start (or scratch memory when the slot cannot be had), so an allocation
 * failure can unwind from anywhere with nothing leaked. */
#include <stdlib.h>
#include <string.h>
#include "MxInternal.h"

/* The names every MaterialX document repeats, kept once in the pool: the walk's
 * attributes (MX_A_*), then "name" and the tag "input". */
enum { IN_NAME = MX_A_COUNT, IN_INPUT };

void *mx_form_grow(mx_doc *d, const mx_form *f, void *p, size_t *cap, size_t need, size_t elem)
{
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = NULL;
    if (need <= INT32_MAX && n <= SIZE_MAX / 4 / elem)
        q = f->scratch ? fmag_tmp_realloc(p, n * elem) : realloc(p, n * elem);
    if (!q) {
        fmag_context_out_of_memory(d->ctx, "the MaterialX reader");
        return p; /* not reached: the compile runs under a guard */
    }
    *cap = n;
    return q;
}

/* Appends s to the pool: its offset. The strings are a few bytes each, which a loop
 * copies faster than strlen and memcpy calls would. */
static uint32_t form_put_str(mx_doc *d, mx_form *f, const char *s)
{
    size_t at = f->npool, room = f->cappool - at;
    char *to = f->pool + at;
    for (size_t k = 0;; k++) {
        if (k == room) {
            f->pool = mx_form_grow(d, f, f->pool, &f->cappool, at + k + strlen(s + k) + 1, 1);
            room = f->cappool - at;
            to = f->pool + at;
        }
        if (!(to[k] = s[k])) {
            f->npool = at + k + 1;
            return (uint32_t)at;
        }
    }
}

static uint32_t form_intern(mx_doc *d, mx_form *f, unsigned which, const char *s)
{
    if (!f->interned[which]) f->interned[which] = form_put_str(d, f, s);
    return f->interned[which];
}

/* Which of the common names (MX_A_* or IN_NAME) an attribute name is, or -1. */
static int walk_attr(const char *an)
{
    switch (an[0]) {
    case 'c':
        return mx_str_is(an, "channels") ? MX_A_CHANNELS : -1;
    case 'i':
        return mx_str_is(an, "interfacename") ? MX_A_INTERFACENAME : -1;
    case 'n':
        if (mx_str_is(an, "name")) return IN_NAME;
        if (mx_str_is(an, "nodename")) return MX_A_NODENAME;
        return mx_str_is(an, "nodegraph") ? MX_A_NODEGRAPH : -1;
    case 'o':
        return mx_str_is(an, "output") ? MX_A_OUTPUT : -1;
    case 't':
        return mx_str_is(an, "type") ? MX_A_TYPE : -1;
    case 'v':
        return mx_str_is(an, "value") ? MX_A_VALUE : -1;
    default:
        return -1;
    }
}

static mx_elem_kind elem_kind(const char *t)
{
    /* the elements that are not nodes, by first letter: a node's tag (a category)
     * meets only those of its letter */
    static const char *const others[26] = {
        ['a' - 'a'] = "attributedef\0",
        ['b' - 'a'] = "backdrop\0",
        ['c' - 'a'] = "collection\0comment\0",
        ['g' - 'a'] = "geominfo\0geompropdef\0",
        ['l' - 'a'] = "look\0lookgroup\0",
        ['m' - 'a'] = "materialassign\0member\0",
        ['p' - 'a'] = "propertyset\0propertyassign\0propertysetassign\0",
        ['t' - 'a'] = "token\0targetdef\0typedef\0",
        ['u' - 'a'] = "unit\0unitdef\0unittypedef\0",
        ['v' - 'a'] = "variant\0variantset\0visibility\0variantassign\0",
    };
    switch (t[0]) { /* the common tags first */
    case 'i':
        if (mx_str_is(t, "input")) return MX_EK_INPUT;
        if (mx_str_is(t, "implementation")) return MX_EK_IMPLEMENTATION;
        break;
    case 'o':
        if (mx_str_is(t, "output")) return MX_EK_OUTPUT;
        break;
    case 'p':
        if (mx_str_is(t, "parameter")) return MX_EK_INPUT;
        break;
    case 'n':
        if (mx_str_is(t, "nodegraph")) return MX_EK_NODEGRAPH;
        if (mx_str_is(t, "nodedef")) return MX_EK_NODEDEF;
        break;
    default:
        break;
    }
    unsigned letter = (unsigned char)t[0] - 'a';
    if (letter < 26 && others[letter])
        for (const char *o = others[letter]; *o; o += strlen(o) + 1)
            if (!strcmp(t, o)) return MX_EK_OTHER;
    return MX_EK_NODE;
}

int32_t mx_form_add(mx_doc *d, mx_form *f, const char *tag, const char **atts, size_t pos,
                    int32_t parent)
{
    if (f->nelems == f->capelems)
        f->elems = mx_form_grow(d, f, f->elems, &f->capelems, f->nelems + 1, sizeof *f->elems);
    unsigned n = 0;
    while (atts[2 * n])
        n++;
    if (f->capattrs - f->nattrs < n)
        f->attrs = mx_form_grow(d, f, f->attrs, &f->capattrs, f->nattrs + n, sizeof *f->attrs);
    mx_form_elem *fe = &f->elems[f->nelems];
    fe->kind = elem_kind(tag);
    fe->tag = fe->kind == MX_EK_INPUT && tag[0] == 'i' ? form_intern(d, f, IN_INPUT, "input")
                                                       : form_put_str(d, f, tag);
    fe->name = 0;
    fe->attr0 = (uint32_t)f->nattrs;
    fe->nattrs = n;
    fe->parent = parent;
    fe->pos = pos;
    for (unsigned s = 0; s < MX_A_COUNT; s++)
        fe->a[s] = MX_FORM_NONE;
    for (unsigned k = 0; k < n; k++) {
        const char *an = atts[2 * k], *av = atts[2 * k + 1];
        mx_form_attr *fa = &f->attrs[f->nattrs + k];
        int which = walk_attr(an);
        fa->value = form_put_str(d, f, av);
        if (which < 0) {
            fa->name = form_put_str(d, f, an);
            continue;
        }
        fa->name = form_intern(d, f, (unsigned)which, an);
        if (which == IN_NAME)
            fe->name = fa->value;
        else
            fe->a[which] = fa->value;
    }
    fe->etype =
        (int)mx_type_of(fe->a[MX_A_TYPE] == MX_FORM_NONE ? NULL : f->pool + fe->a[MX_A_TYPE]);
    f->nattrs += n;
    return (int32_t)f->nelems++;
}

void mx_form_tree(mx_doc *d, const mx_form *f)
{
    mx_elem *es = fmag_context_alloc(d->ctx, (f->nelems ? f->nelems : 1) * sizeof *es);
    mx_attr *as = fmag_context_alloc(d->ctx, (f->nattrs ? f->nattrs : 1) * sizeof *as);
    char *pool = fmag_context_alloc(d->ctx, f->npool);
    memcpy(pool, f->pool, f->npool);
    for (size_t j = 0; j < f->nattrs; j++) {
        as[j].name = pool + f->attrs[j].name;
        as[j].value = pool + f->attrs[j].value;
    }
    d->elems = es;
    d->nelems = f->nelems;
    d->root = f->nelems ? es : NULL;
    for (size_t i = 0; i < f->nelems; i++) {
        const mx_form_elem *fe = &f->elems[i];
        mx_elem *e = &es[i];
        e->tag = pool + fe->tag;
        e->name = pool + fe->name;
        e->attrs = as + fe->attr0;
        e->nattrs = fe->nattrs;
        e->pos = fe->pos;
        e->kind = fe->kind;
        e->etype = fe->etype;
        const uint32_t *a = fe->a;
        e->a_type = a[MX_A_TYPE] != MX_FORM_NONE ? pool + a[MX_A_TYPE] : NULL;
        e->a_nodename = a[MX_A_NODENAME] != MX_FORM_NONE ? pool + a[MX_A_NODENAME] : NULL;
        e->a_nodegraph = a[MX_A_NODEGRAPH] != MX_FORM_NONE ? pool + a[MX_A_NODEGRAPH] : NULL;
        e->a_interfacename =
            a[MX_A_INTERFACENAME] != MX_FORM_NONE ? pool + a[MX_A_INTERFACENAME] : NULL;
        e->a_value = a[MX_A_VALUE] != MX_FORM_NONE ? pool + a[MX_A_VALUE] : NULL;
        e->a_output = a[MX_A_OUTPUT] != MX_FORM_NONE ? pool + a[MX_A_OUTPUT] : NULL;
        e->a_channels = a[MX_A_CHANNELS] != MX_FORM_NONE ? pool + a[MX_A_CHANNELS] : NULL;
        if (fe->parent < 0) continue;
        mx_elem *p = &es[fe->parent];
        e->parent = p;
        e->index = p->nchildren++;
        if (p->last)
            p->last->next = e;
        else
            p->first = e;
        p->last = e;
    }
}
