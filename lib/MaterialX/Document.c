/* Reads a MaterialX document's XML with expat into a tree of elements in the
 * context's arena (through its compact form, Form.c), and indexes every named
 * element by (parent, name). Expat's own
 * memory is the library's scratch memory (fmag_tmp_*), so an allocation failure
 * anywhere inside it unwinds to the entry point's guard with nothing leaked. */
#include <expat.h>
#include <stdint.h>
#include <string.h>
#include "MxInternal.h"

typedef struct reader {
    mx_doc *d;
    XML_Parser p;
    mx_form *form;
    int32_t cur; /* the open element's number, -1 before the root */
    unsigned depth;
    bool failed;
} reader;

static void XMLCALL on_start(void *user, const XML_Char *tag, const XML_Char **atts)
{
    reader *r = user;
    if (r->failed) return;
    mx_doc *d = r->d;
    if (++r->depth > MX_MAX_DEPTH) {
        fmag_context_error_at(d->ctx, d->filename, d->text, d->len,
                              (unsigned)XML_GetCurrentLineNumber(r->p),
                              (unsigned)XML_GetCurrentColumnNumber(r->p) + 1,
                              "elements nested deeper than %u levels", MX_MAX_DEPTH);
        r->failed = true;
        XML_StopParser(r->p, XML_FALSE);
        return;
    }
    XML_Index at = XML_GetCurrentByteIndex(r->p);
    r->cur = mx_form_add(d, r->form, tag, atts, at > 0 ? (size_t)at : 0, r->cur);
}

static void XMLCALL on_end(void *user, const XML_Char *tag)
{
    reader *r = user;
    (void)tag;
    if (r->failed) return;
    r->depth--;
    r->cur = r->form->elems[r->cur].parent;
}

/* By the parent's number, not its address: the index outlives the tree in the
 * cached form (DocCache.c). */
static size_t hash_key(const mx_doc *d, const mx_elem *parent, const char *name)
{
    uint64_t h = (uint64_t)(parent ? parent - d->elems + 1 : 0) * 0x9E3779B97F4A7C15ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001B3ull;
    return (size_t)(h ^ (h >> 29));
}

mx_elem *mx_doc_child(const mx_doc *d, const mx_elem *parent, const char *name)
{
    if (!d->index_cap || !name) return NULL;
    size_t mask = d->index_cap - 1;
    for (size_t i = hash_key(d, parent, name) & mask;; i = (i + 1) & mask) {
        mx_elem *e = d->index[i];
        if (!e) return NULL;
        if (e->parent == parent && mx_str_is(e->name, name)) return e;
    }
}

/* Every named element under its parent; a repeated name in one scope is an error
 * (MaterialX requires names unique among siblings). */
static bool build_index(mx_doc *d)
{
    size_t count = 0;
    for (size_t k = 0; k < d->nelems; k++)
        count += d->elems[k].name[0] != 0;
    size_t cap = 16;
    while (cap < 2 * count + 2)
        cap *= 2;
    d->index = fmag_tmp_calloc(cap, sizeof *d->index);
    if (!d->index) {
        fmag_context_out_of_memory(d->ctx, "the MaterialX reader");
        return false;
    }
    d->index_cap = cap;
    bool ok = true;
    for (size_t k = 1; k < d->nelems; k++) { /* the root is in no scope */
        mx_elem *e = &d->elems[k];
        if (e->name[0]) {
            size_t i = hash_key(d, e->parent, e->name) & (cap - 1);
            bool dupl = false;
            for (; d->index[i]; i = (i + 1) & (cap - 1))
                if (d->index[i]->parent == e->parent && mx_str_is(d->index[i]->name, e->name)) {
                    dupl = true;
                    break;
                }
            if (dupl) {
                if (ok) {
                    unsigned line, col, first, first_col;
                    mx_elem_where(d, e, &line, &col);
                    mx_elem_where(d, d->index[i], &first, &first_col);
                    fmag_context_error_at(d->ctx, d->filename, d->text, d->len, line, col,
                                          "a second element named '%s' in one scope (the "
                                          "first is at line %u)",
                                          e->name, first);
                }
                ok = false;
            } else {
                d->index[i] = e;
            }
        }
    }
    return ok;
}

bool mx_doc_read(mx_doc *d)
{
    if (mx_cache_load(d)) return true;
    XML_Memory_Handling_Suite mem = {fmag_tmp_malloc, fmag_tmp_realloc, fmag_tmp_free};
    reader r;
    memset(&r, 0, sizeof r);
    r.d = d;
    r.cur = -1;
    r.form = mx_form_begin(d);
    r.p = XML_ParserCreate_MM(NULL, &mem, NULL);
    if (!r.p) {
        fmag_context_out_of_memory(d->ctx, "the XML parser");
        return false;
    }
    XML_SetUserData(r.p, &r);
    XML_SetElementHandler(r.p, on_start, on_end);
    const char *text = d->text;
    size_t left = d->len;
    bool ok = true;
    /* expat takes an int length: feed large documents in pieces. */
    do {
        int piece = left > (1u << 30) ? (1 << 30) : (int)left;
        left -= (size_t)piece;
        if (XML_Parse(r.p, text, piece, left == 0) == XML_STATUS_ERROR) {
            if (!r.failed)
                fmag_context_error_at(d->ctx, d->filename, d->text, d->len,
                                      (unsigned)XML_GetCurrentLineNumber(r.p),
                                      (unsigned)XML_GetCurrentColumnNumber(r.p) + 1,
                                      "malformed XML: %s", XML_ErrorString(XML_GetErrorCode(r.p)));
            ok = false;
            break;
        }
        text += piece;
    } while (left);
    XML_ParserFree(r.p);
    if (!ok || r.failed) return false;
    mx_form_tree(d, r.form);
    if (!d->root || strcmp(d->root->tag, "materialx")) {
        unsigned line = 1, col = 1;
        if (d->root) mx_elem_where(d, d->root, &line, &col);
        fmag_context_error_at(d->ctx, d->filename, d->text, d->len, line, col,
                              "not a MaterialX document: the root element is <%s>, not "
                              "<materialx>",
                              d->root ? d->root->tag : "");
        return false;
    }
    if (!build_index(d)) return false;
    mx_form_keep(d, r.form);
    return true;
}

void mx_doc_free(mx_doc *d)
{
    mx_cache_scratch_free(d);
    fmag_tmp_free(d->index);
    d->index = NULL;
    d->index_cap = 0;
}

void mx_elem_where(const mx_doc *d, const mx_elem *e, unsigned *line, unsigned *col)
{
    const unsigned char *t = (const unsigned char *)d->text;
    size_t end = e->pos < d->len ? e->pos : d->len;
    unsigned l = 1, c = 1;
    for (size_t i = 0; i < end; i++) {
        unsigned char ch = t[i];
        if (ch == '\n' || (ch == '\r' && (i + 1 >= d->len || t[i + 1] != '\n'))) {
            l++; /* \r\n, \n and a lone \r each end a line, as in expat */
            c = 1;
        } else if (ch != '\r' && (ch & 0xC0u) != 0x80u) {
            c++; /* a UTF-8 continuation byte is not a character of its own */
        }
    }
    *line = l;
    *col = c;
}

const char *mx_attr_get(const mx_elem *e, const char *name)
{
    for (unsigned k = 0; k < e->nattrs; k++)
        if (!strcmp(e->attrs[k].name, name)) return e->attrs[k].value;
    return NULL;
}

/* Skips what may come before the root element: a byte-order mark, white space, the
 * XML declaration, comments, processing instructions and a doctype. */
bool fmag_mtlx_is_document(const char *src, size_t len)
{
    if (!src) return false;
    size_t i = fmag_text_bom_len(src, len);
    while (i < len) {
        char c = src[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            i++;
            continue;
        }
        if (c != '<' || i + 1 >= len) return false;
        const char *close = NULL;
        if (src[i + 1] == '?')
            close = "?>";
        else if (i + 3 < len && !memcmp(src + i, "<!--", 4))
            close = "-->";
        else if (src[i + 1] == '!')
            close = ">";
        if (!close) {
            static const char tag[] = "<materialx";
            size_t n = sizeof tag - 1;
            if (len - i < n + 1 || memcmp(src + i, tag, n)) return false;
            char after = src[i + n];
            return after == ' ' || after == '>' || after == '\t' || after == '\r' ||
                   after == '\n' || after == '/';
        }
        size_t cl = strlen(close), j = i + 2;
        while (j + cl <= len && memcmp(src + j, close, cl))
            j++;
        if (j + cl > len) return false;
        i = j + cl;
    }
    return false;
}
