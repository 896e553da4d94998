/* The last document a context read, in its compact form (Form.c) kept in a context
 * slot (Context.h) through resets: a node editor compiles the same document again
 * after each edit of a value, and expat's parse is most of the reader's time
 * (docs/PERFORMANCE.md, "MaterialX compile latency"). The next compile of the same
 * text, or of a text that differs only inside one attribute value, builds the tree
 * from this form without parsing. Such an edit cannot change what is well-formed
 * XML when the new value's characters are printable ASCII other than '<', '&' and
 * its quote, which is what is checked; anything else is parsed again. The slot holds
 * two forms: the kept one, and the one the next parse fills (its arrays reused), which
 * replaces the kept one only when that document parses. The forms are the cache's
 * own malloc memory: the tree built from one is in the context's arena, so a module
 * never points into the cache. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "MxInternal.h"

#define MX_CACHE_SLOT FMAG_MTLX_CONTEXT_SLOT
/* Larger documents are parsed each time: the cache is for an editor's graphs, and
 * it holds a copy of the text besides the tree. */
#define MX_CACHE_MAX_TEXT (1u << 20)

/* A builtin of a literal as Nodes.c evaluated it: key (the builtin and what else its
 * sequence depends on), the operand's bits, the value's bits. */
typedef struct mx_folded {
    uint32_t key, bits;
    float value;
} mx_folded;
#define MX_FOLDED_MAX 16 /* an editor's graph has a few literal angles */

typedef struct mx_cache {
    mx_form kept, next;
    bool have;      /* kept holds a document */
    size_t poolmax; /* kept's pool may grow by edits up to this; then it is parsed again */
    mx_folded folded[MX_FOLDED_MAX];
    unsigned nfolded, next_folded; /* entries in use; the one the next put replaces */
} mx_cache;

static void form_free(mx_form *f)
{
    void (*release)(void *) = f->scratch ? fmag_tmp_free : free;
    release(f->text);
    release(f->elems);
    release(f->attrs);
    release(f->pool);
    release(f->index);
    memset(f, 0, sizeof *f);
}

static void cache_destroy(void *obj)
{
    mx_cache *c = obj;
    if (!c) return;
    form_free(&c->kept);
    form_free(&c->next);
    free(c);
}

mx_form *mx_form_begin(mx_doc *d)
{
    mx_cache *c = fmag_context_slot_get(d->ctx, MX_CACHE_SLOT);
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c) fmag_context_out_of_memory(d->ctx, "the MaterialX reader");
        if (!fmag_context_slot_set(d->ctx, MX_CACHE_SLOT, c, cache_destroy)) {
            /* every slot taken by the embedder: a form in scratch memory, not kept */
            free(c);
            c = d->scratch = fmag_tmp_calloc(1, sizeof *c);
            c->next.scratch = true;
        }
    }
    mx_form *f = &c->next;
    f->nelems = f->nattrs = f->index_cap = 0;
    memset(f->interned, 0, sizeof f->interned);
    /* room for a graph's usual shape, so that the parse seldom grows an array */
    if (f->capelems < d->len / 48 + 16)
        f->elems = mx_form_grow(d, f, f->elems, &f->capelems, d->len / 48 + 16, sizeof *f->elems);
    if (f->capattrs < d->len / 24 + 16)
        f->attrs = mx_form_grow(d, f, f->attrs, &f->capattrs, d->len / 24 + 16, sizeof *f->attrs);
    if (f->cappool < d->len / 2 + 64)
        f->pool = mx_form_grow(d, f, f->pool, &f->cappool, d->len / 2 + 64, 1);
    f->pool[0] = 0; /* offset 0: "" */
    f->npool = 1;
    return f;
}

void mx_cache_scratch_free(mx_doc *d)
{
    if (!d->scratch) return;
    form_free(&d->scratch->kept);
    form_free(&d->scratch->next);
    fmag_tmp_free(d->scratch);
    d->scratch = NULL;
}

void mx_form_keep(mx_doc *d, mx_form *f)
{
    mx_cache *c = fmag_context_slot_get(d->ctx, MX_CACHE_SLOT);
    if (!c || f != &c->next) return; /* parsed in scratch memory */
    if (d->len > MX_CACHE_MAX_TEXT) {
        c->have = false; /* nor is so large a form held after the compile */
        form_free(&c->kept);
        form_free(&c->next);
        return;
    }
    if (f->capindex < d->index_cap)
        f->index = mx_form_grow(d, f, f->index, &f->capindex, d->index_cap, sizeof *f->index);
    f->index_cap = d->index_cap;
    for (size_t i = 0; i < d->index_cap; i++)
        f->index[i] = d->index[i] ? (int32_t)(d->index[i] - d->elems) : -1;
    if (f->captext < d->len) f->text = mx_form_grow(d, f, f->text, &f->captext, d->len, 1);
    memcpy(f->text, d->text, d->len);
    f->len = d->len;
    mx_form swap = c->kept;
    c->kept = *f;
    c->next = swap;
    c->have = true;
    c->poolmax = c->kept.npool + d->len / 4 + 256; /* room for edits before a new parse */
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The attribute of the kept element whose value's bytes in the kept text hold
 * [from, to): its index, with the value's first byte and the closing quote in
 * *vstart, *vend; -1 when none does. Every attribute up to it must scan as the one
 * expat gave, its raw text the value itself (not a character reference or white
 * space that expat normalized): then the bytes are that value. */
static int span_at(const mx_form *f, const mx_form_elem *fe, size_t from, size_t to, size_t *vstart,
                   size_t *vend)
{
    const char *t = f->text;
    size_t len = f->len, i = fe->pos;
    if (i >= len || t[i] != '<') return -1;
    for (i++; i < len && !is_space(t[i]) && t[i] != '/' && t[i] != '>'; i++)
        ;
    for (unsigned k = 0; k < fe->nattrs && i < from; k++) {
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
        const mx_form_attr *fa = &f->attrs[fe->attr0 + k];
        const char *name = f->pool + fa->name, *value = f->pool + fa->value;
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

/* How many bytes a and b have in common from the start, n at most: a word at a
 * time, since an edit leaves most of a document as it was. */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
    size_t k = 0;
    for (uint64_t x, y; k + 8 <= n; k += 8) {
        memcpy(&x, a + k, 8);
        memcpy(&y, b + k, 8);
        if (x != y) break;
    }
    while (k < n && a[k] == b[k])
        k++;
    return k;
}

/* The same back from the ends: a and b point past their last bytes. */
static size_t common_suffix(const char *a, const char *b, size_t n)
{
    size_t k = 0;
    for (uint64_t x, y; k + 8 <= n; k += 8) {
        memcpy(&x, a - k - 8, 8);
        memcpy(&y, b - k - 8, 8);
        if (x != y) break;
    }
    while (k < n && a[-(ptrdiff_t)k - 1] == b[-(ptrdiff_t)k - 1])
        k++;
    return k;
}

/* Takes in the new text when it differs from the kept one only inside one
 * attribute value (not a name: the index is by name) by printable ASCII that cannot
 * end the value or start markup. */
static bool patch(mx_cache *c, const char *t, size_t len)
{
    mx_form *f = &c->kept;
    if (!f->nelems || len > MX_CACHE_MAX_TEXT) return false;
    size_t common = f->len < len ? f->len : len;
    size_t pre = common_prefix(f->text, t, common);
    size_t suf = common_suffix(f->text + f->len, t + len, common - pre);
    size_t old_end = f->len - suf, new_end = len - suf;
    size_t lo = 0, hi = f->nelems; /* the last element that opens at or before pre */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->elems[mid].pos <= pre)
            lo = mid;
        else
            hi = mid;
    }
    mx_form_elem *fe = &f->elems[lo];
    size_t vstart, vend;
    int k = span_at(f, fe, pre, old_end, &vstart, &vend);
    if (k < 0) return false;
    mx_form_attr *fa = &f->attrs[fe->attr0 + (unsigned)k];
    if (!strcmp(f->pool + fa->name, "name")) return false;
    char quote = f->text[vend];
    for (size_t i = pre; i < new_end; i++) {
        unsigned char ch = (unsigned char)t[i];
        if (ch < 0x20 || ch > 0x7e || ch == '<' || ch == '&' || ch == (unsigned char)quote)
            return false;
    }
    size_t vlen = vend - vstart + len - f->len;
    if (f->npool + vlen + 1 > c->poolmax) return false; /* a new parse frees the old values */
    if (f->cappool - f->npool <= vlen) {
        size_t cap = f->cappool + vlen + 1 > c->poolmax ? f->cappool + vlen + 1 : c->poolmax;
        char *pool = realloc(f->pool, cap);
        if (!pool) return false;
        f->pool = pool;
        f->cappool = cap;
    }
    if (len > f->captext) {
        char *text = realloc(f->text, len);
        if (!text) return false;
        f->text = text;
        f->captext = len;
    }
    if (len == f->len) /* a value of the same length: only its bytes changed */
        memcpy(f->text + pre, t + pre, new_end - pre);
    else
        memcpy(f->text, t, len);
    ptrdiff_t delta = (ptrdiff_t)len - (ptrdiff_t)f->len;
    f->len = len;
    uint32_t old = fa->value;
    fa->value = (uint32_t)f->npool;
    memcpy(f->pool + f->npool, t + vstart, vlen);
    f->pool[f->npool + vlen] = 0;
    f->npool += vlen + 1;
    for (unsigned s = 0; s < MX_A_COUNT; s++)
        if (fe->a[s] == old) fe->a[s] = fa->value;
    if (fe->a[MX_A_TYPE] == fa->value) fe->etype = (int)mx_type_of(f->pool + fa->value);
    for (size_t i = lo + 1; i < f->nelems; i++) /* what follows moved by delta */
        f->elems[i].pos = (size_t)((ptrdiff_t)f->elems[i].pos + delta);
    return true;
}

bool mx_cache_load(mx_doc *d)
{
    mx_cache *c = fmag_context_slot_get(d->ctx, MX_CACHE_SLOT);
    if (!c || !c->have) return false;
    mx_form *f = &c->kept;
    if (f->len != d->len || memcmp(f->text, d->text, d->len)) {
        if (!patch(c, d->text, d->len)) return false;
    }
    mx_form_tree(d, f);
    /* the index by element number, as the parse left it (an edit changes no name) */
    d->index = fmag_tmp_malloc(f->index_cap * sizeof *d->index);
    d->index_cap = f->index_cap;
    for (size_t i = 0; i < f->index_cap; i++)
        d->index[i] = f->index[i] >= 0 ? &d->elems[f->index[i]] : NULL;
    return true;
}

/* The builtins of literals depend on nothing but their key and operand, not on the
 * document: the table serves every document the context compiles. */
bool mx_folded_get(const mx_doc *d, uint32_t key, uint32_t bits, float *value)
{
    const mx_cache *c = fmag_context_slot_get(d->ctx, MX_CACHE_SLOT);
    for (unsigned k = 0; c && k < c->nfolded; k++)
        if (c->folded[k].key == key && c->folded[k].bits == bits) {
            *value = c->folded[k].value;
            return true;
        }
    return false;
}

void mx_folded_put(const mx_doc *d, uint32_t key, uint32_t bits, float value)
{
    mx_cache *c = fmag_context_slot_get(d->ctx, MX_CACHE_SLOT);
    if (!c) return; /* the form in scratch memory: nothing is kept */
    mx_folded *f = &c->folded[c->next_folded];
    c->next_folded = (c->next_folded + 1) % MX_FOLDED_MAX;
    if (c->nfolded < MX_FOLDED_MAX) c->nfolded++;
    f->key = key;
    f->bits = bits;
    f->value = value;
}
