/* The last document a context read, parsed once into a compact form kept in a context
 * slot (Context.h) through resets: a node editor compiles the same document again
 * after each edit of a value, and expat's parse is most of the reader's time
 * (docs/PERFORMANCE.md, "MaterialX compile latency"). The next compile of the same
 * text, or of a text that differs only inside one attribute value, builds the tree
 * from this form without parsing. Such an edit cannot change what is well-formed
 * XML when the new value's characters are printable ASCII other than '<', '&' and
 * its quote, which is what is checked; anything else is parsed again. The form is
 * the cache's own malloc memory (a failure just drops the cache): the tree built
 * from it is in the context's arena as a parsed one is, so a module never points
 * into the cache. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "MxInternal.h"

#define MX_CACHE_SLOT FMAG_MTLX_CONTEXT_SLOT
/* Larger documents are parsed each time: the cache is for an editor's graphs, and
 * it holds a copy of the text besides the tree. */
#define MX_CACHE_MAX_TEXT (1u << 20)

enum { A_TYPE, A_NODENAME, A_NODEGRAPH, A_INTERFACENAME, A_VALUE, A_OUTPUT, A_CHANNELS, A_COUNT };

typedef struct cattr {
    uint32_t name, value; /* offsets in the pool */
} cattr;

typedef struct celem {
    uint32_t tag, name; /* offsets in the pool */
    uint32_t attr0, nattrs;
    int32_t parent;     /* index of the parent, -1 for the root; elements in document order */
    int32_t a[A_COUNT]; /* the walk's attributes: index among the element's, or -1 */
    size_t pos;
    mx_elem_kind kind;
    int etype;
} celem;

typedef struct mx_cache {
    char *text;
    size_t len;
    celem *elems;
    size_t nelems;
    cattr *attrs;
    size_t nattrs;
    char *pool; /* strings, NUL-terminated; a patched value is appended */
    size_t npool, cappool;
} mx_cache;

static void cache_destroy(void *obj)
{
    mx_cache *c = obj;
    if (!c) return;
    free(c->text);
    free(c->elems);
    free(c->attrs);
    free(c->pool);
    free(c);
}

static void cache_drop(fmag_context *ctx)
{
    fmag_context_slot_set(ctx, MX_CACHE_SLOT, NULL, NULL);
}

/* The element's fields for the walk's attributes, in the order of A_*. */
static void walk_attr_slots(mx_elem *e, const char **slots[A_COUNT])
{
    slots[A_TYPE] = &e->a_type;
    slots[A_NODENAME] = &e->a_nodename;
    slots[A_NODEGRAPH] = &e->a_nodegraph;
    slots[A_INTERFACENAME] = &e->a_interfacename;
    slots[A_VALUE] = &e->a_value;
    slots[A_OUTPUT] = &e->a_output;
    slots[A_CHANNELS] = &e->a_channels;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The attribute of the cached element whose value's bytes in the cached text hold
 * [from, to): its index, with the value's first byte and the closing quote in
 * *vstart, *vend; -1 when none does. Every attribute up to it must scan as the one
 * expat gave, its raw text the value itself (not a character reference or white
 * space that expat normalized): then the bytes are that value. */
static int span_at(const mx_cache *c, const celem *ce, size_t from, size_t to, size_t *vstart,
                   size_t *vend)
{
    const char *t = c->text;
    size_t len = c->len, i = ce->pos;
    if (i >= len || t[i] != '<') return -1;
    for (i++; i < len && !is_space(t[i]) && t[i] != '/' && t[i] != '>'; i++)
        ;
    for (unsigned k = 0; k < ce->nattrs && i < from; k++) {
        while (i < len && is_space(t[i]))
            i++;
        size_t n0 = i;
        while (i < len && t[i] != '=' && !is_space(t[i]) && t[i] != '>')
            i++;
        size_t nlen = i - n0;
        while (i < len && is_space(t[i]))
            i++;
        if (i >= len || t[i] != '=') return -1;
        for (i++; i < len && is_space(t[i]); i++)
            ;
        if (i >= len || (t[i] != '"' && t[i] != '\'')) return -1;
        char q = t[i];
        size_t v0 = ++i;
        while (i < len && t[i] != q)
            i++;
        if (i >= len) return -1;
        const cattr *ca = &c->attrs[ce->attr0 + k];
        const char *name = c->pool + ca->name, *value = c->pool + ca->value;
        if (strlen(name) != nlen || memcmp(t + n0, name, nlen) || strlen(value) != i - v0 ||
            memcmp(t + v0, value, i - v0))
            return -1;
        if (v0 <= from && to <= i) {
            *vstart = v0;
            *vend = i;
            return (int)k;
        }
        i++;
    }
    return -1;
}

static mx_elem *next_in_order(mx_elem *e)
{
    if (e->first) return e->first;
    while (e && !e->next)
        e = e->parent;
    return e ? e->next : NULL;
}

static uint32_t pool_put(mx_cache *c, const char *s)
{
    size_t n = strlen(s) + 1, at = c->npool;
    memcpy(c->pool + at, s, n);
    c->npool += n;
    return (uint32_t)at;
}

/* A snapshot of the tree just parsed; without memory, no cache. */
void mx_cache_store(mx_doc *d)
{
    if (d->len > MX_CACHE_MAX_TEXT) {
        cache_drop(d->ctx);
        return;
    }
    size_t ne = 0, na = 0, np = 1;
    for (mx_elem *e = d->root; e; e = next_in_order(e)) {
        ne++;
        na += e->nattrs;
        np += strlen(e->tag) + 1;
        for (unsigned k = 0; k < e->nattrs; k++)
            np += strlen(e->attrs[k].name) + strlen(e->attrs[k].value) + 2;
    }
    mx_cache *c = calloc(1, sizeof *c);
    if (!c) {
        cache_drop(d->ctx);
        return;
    }
    c->len = d->len;
    c->nelems = ne;
    c->nattrs = na;
    c->cappool = np + d->len / 4 + 256; /* room for edits before a new snapshot */
    c->text = malloc(d->len ? d->len : 1);
    c->elems = malloc(ne * sizeof *c->elems);
    c->attrs = calloc(na ? na : 1, sizeof *c->attrs);
    c->pool = malloc(c->cappool);
    if (!c->text || !c->elems || !c->attrs || !c->pool ||
        !fmag_context_slot_set(d->ctx, MX_CACHE_SLOT, c, cache_destroy)) {
        cache_destroy(c);
        cache_drop(d->ctx);
        return;
    }
    memcpy(c->text, d->text, d->len);
    c->pool[0] = 0; /* offset 0: "" */
    c->npool = 1;
    /* The open ancestors in document order (the reader bounds the depth). */
    const mx_elem *open[MX_MAX_DEPTH + 2];
    int32_t open_index[MX_MAX_DEPTH + 2];
    unsigned depth = 0;
    size_t i = 0, a = 0;
    for (mx_elem *e = d->root; e; e = next_in_order(e), i++) {
        while (depth && open[depth - 1] != e->parent)
            depth--;
        celem *ce = &c->elems[i];
        memset(ce, 0, sizeof *ce);
        ce->parent = depth ? open_index[depth - 1] : -1;
        if (depth < MX_MAX_DEPTH + 2) {
            open[depth] = e;
            open_index[depth++] = (int32_t)i;
        }
        ce->tag = pool_put(c, e->tag);
        ce->attr0 = (uint32_t)a;
        ce->nattrs = e->nattrs;
        ce->pos = e->pos;
        ce->kind = e->kind;
        ce->etype = e->etype;
        for (unsigned k = 0; k < e->nattrs; k++) {
            const char *v = e->attrs[k].value;
            c->attrs[a + k].name = pool_put(c, e->attrs[k].name);
            c->attrs[a + k].value = pool_put(c, v);
            if (v == e->name) ce->name = c->attrs[a + k].value;
        }
        const char **slots[A_COUNT];
        walk_attr_slots(e, slots);
        for (unsigned s = 0; s < A_COUNT; s++) {
            ce->a[s] = -1;
            for (unsigned k = 0; *slots[s] && k < e->nattrs; k++)
                if (e->attrs[k].value == *slots[s]) ce->a[s] = (int32_t)k;
        }
        a += e->nattrs;
    }
}

/* The tree of the cached form in the context's arena, as mx_doc_read makes it. */
static void build_tree(mx_doc *d, const mx_cache *c)
{
    mx_elem *es = fmag_context_alloc(d->ctx, c->nelems * sizeof *es);
    mx_attr *as = fmag_context_alloc(d->ctx, (c->nattrs ? c->nattrs : 1) * sizeof *as);
    char *pool = fmag_context_alloc(d->ctx, c->npool);
    memcpy(pool, c->pool, c->npool);
    for (size_t j = 0; j < c->nattrs; j++) {
        as[j].name = pool + c->attrs[j].name;
        as[j].value = pool + c->attrs[j].value;
    }
    for (size_t i = 0; i < c->nelems; i++) {
        const celem *ce = &c->elems[i];
        mx_elem *e = &es[i];
        e->tag = pool + ce->tag;
        e->name = pool + ce->name;
        e->attrs = as + ce->attr0;
        e->nattrs = ce->nattrs;
        e->pos = ce->pos;
        e->kind = ce->kind;
        e->etype = ce->etype;
        const char **slots[A_COUNT];
        walk_attr_slots(e, slots);
        for (unsigned k = 0; k < A_COUNT; k++)
            *slots[k] = ce->a[k] >= 0 ? e->attrs[ce->a[k]].value : NULL;
        if (ce->parent < 0) {
            d->root = e;
            continue;
        }
        mx_elem *p = &es[ce->parent];
        e->parent = p;
        e->index = p->nchildren++;
        if (p->last)
            p->last->next = e;
        else
            p->first = e;
        p->last = e;
    }
}

/* Takes in the new text when it differs from the cached one only inside one
 * attribute value (not a name: the index is by name) by printable ASCII that cannot
 * end the value or start markup. */
static bool patch(mx_cache *c, const char *t, size_t len)
{
    size_t pre = 0, common = c->len < len ? c->len : len, suf = 0;
    while (pre < common && c->text[pre] == t[pre])
        pre++;
    while (suf < common - pre && c->text[c->len - 1 - suf] == t[len - 1 - suf])
        suf++;
    size_t old_end = c->len - suf, new_end = len - suf;
    size_t lo = 0, hi = c->nelems; /* the last element that opens at or before pre */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->elems[mid].pos <= pre)
            lo = mid;
        else
            hi = mid;
    }
    if (!c->nelems) return false;
    celem *ce = &c->elems[lo];
    size_t vstart, vend;
    int k = span_at(c, ce, pre, old_end, &vstart, &vend);
    if (k < 0) return false;
    cattr *ca = &c->attrs[ce->attr0 + (unsigned)k];
    if (!strcmp(c->pool + ca->name, "name")) return false;
    char quote = c->text[vend];
    for (size_t i = pre; i < new_end; i++) {
        unsigned char ch = (unsigned char)t[i];
        if (ch < 0x20 || ch > 0x7e || ch == '<' || ch == '&' || ch == (unsigned char)quote)
            return false;
    }
    size_t vlen = vend - vstart + len - c->len;
    if (len > MX_CACHE_MAX_TEXT) return false;
    if (c->npool + vlen + 1 > c->cappool) return false; /* a new snapshot frees the old values */
    char *text = len > c->len ? realloc(c->text, len) : c->text;
    if (!text) return false;
    c->text = text;
    memcpy(c->text, t, len);
    ptrdiff_t delta = (ptrdiff_t)len - (ptrdiff_t)c->len;
    c->len = len;
    ca->value = (uint32_t)c->npool;
    memcpy(c->pool + c->npool, t + vstart, vlen);
    c->pool[c->npool + vlen] = 0;
    c->npool += vlen + 1;
    if (ce->a[A_TYPE] == k) ce->etype = (int)mx_type_of(c->pool + ca->value);
    for (size_t i = lo + 1; i < c->nelems; i++) /* what follows moved by delta */
        c->elems[i].pos = (size_t)((ptrdiff_t)c->elems[i].pos + delta);
    return true;
}

bool mx_cache_load(mx_doc *d)
{
    mx_cache *c = fmag_context_slot_get(d->ctx, MX_CACHE_SLOT);
    if (!c) return false;
    if (c->len != d->len || memcmp(c->text, d->text, d->len)) {
        if (!patch(c, d->text, d->len)) return false;
    }
    build_tree(d, c);
    return true;
}
