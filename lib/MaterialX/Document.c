/* Reads a MaterialX document's XML with expat into a tree of elements in the
 * context's arena, and indexes every named element by (parent, name). Expat's own
 * memory is the library's scratch memory (fmag_tmp_*), so an allocation failure
 * anywhere inside it unwinds to the entry point's guard with nothing leaked. */
#include <expat.h>
#include <stdint.h>
#include <string.h>
#include "MxInternal.h"

typedef struct reader {
    mx_doc *d;
    XML_Parser p;
    mx_elem *cur;
    unsigned depth;
    bool failed;
} reader;

static char *arena_dup(mx_doc *d, const char *s)
{
    return fmag_context_strdup(d->ctx, s, strlen(s));
}

static mx_elem_kind elem_kind(const char *t)
{
    static const char *const others[] = {
        "look",          "materialassign",    "collection",  "geominfo",     "token",
        "variant",       "variantset",        "propertyset", "backdrop",     "unit",
        "unitdef",       "unittypedef",       "targetdef",   "attributedef", "typedef",
        "member",        "geompropdef",       "visibility",  "lookgroup",    "propertyassign",
        "variantassign", "propertysetassign", "comment"};
    switch (t[0]) { /* the common tags first, by their first letter */
    case 'i':
        if (!strcmp(t, "input")) return MX_EK_INPUT;
        if (!strcmp(t, "implementation")) return MX_EK_IMPLEMENTATION;
        break;
    case 'o':
        if (!strcmp(t, "output")) return MX_EK_OUTPUT;
        break;
    case 'p':
        if (!strcmp(t, "parameter")) return MX_EK_INPUT;
        break;
    case 'n':
        if (!strcmp(t, "nodegraph")) return MX_EK_NODEGRAPH;
        if (!strcmp(t, "nodedef")) return MX_EK_NODEDEF;
        break;
    default:
        break;
    }
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (t[0] == others[i][0] && !strcmp(t, others[i])) return MX_EK_OTHER;
    return MX_EK_NODE;
}

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
    mx_elem *e = fmag_context_alloc(d->ctx, sizeof *e);
    e->tag = arena_dup(d, tag);
    e->name = "";
    unsigned n = 0;
    while (atts[2 * n])
        n++;
    e->attrs = fmag_context_alloc(d->ctx, (n ? n : 1) * sizeof *e->attrs);
    e->nattrs = n;
    for (unsigned k = 0; k < n; k++) {
        const char *an = atts[2 * k];
        const char *av = e->attrs[k].value = arena_dup(d, atts[2 * k + 1]);
        e->attrs[k].name = arena_dup(d, an);
        switch (an[0]) {
        case 'c':
            if (!strcmp(an, "channels")) e->a_channels = av;
            break;
        case 'i':
            if (!strcmp(an, "interfacename")) e->a_interfacename = av;
            break;
        case 'n':
            if (!strcmp(an, "name"))
                e->name = av;
            else if (!strcmp(an, "nodename"))
                e->a_nodename = av;
            else if (!strcmp(an, "nodegraph"))
                e->a_nodegraph = av;
            break;
        case 'o':
            if (!strcmp(an, "output")) e->a_output = av;
            break;
        case 't':
            if (!strcmp(an, "type")) e->a_type = av;
            break;
        case 'v':
            if (!strcmp(an, "value")) e->a_value = av;
            break;
        default:
            break;
        }
    }
    e->etype = (int)mx_type_of(e->a_type);
    e->kind = elem_kind(tag);
    XML_Index at = XML_GetCurrentByteIndex(r->p);
    e->pos = at > 0 ? (size_t)at : 0;
    e->parent = r->cur;
    if (r->cur) {
        e->index = r->cur->nchildren++;
        if (r->cur->last)
            r->cur->last->next = e;
        else
            r->cur->first = e;
        r->cur->last = e;
    } else {
        d->root = e;
    }
    r->cur = e;
}

static void XMLCALL on_end(void *user, const XML_Char *tag)
{
    reader *r = user;
    (void)tag;
    if (r->failed) return;
    r->depth--;
    r->cur = r->cur->parent;
}

static size_t hash_key(const mx_elem *parent, const char *name)
{
    uint64_t h = (uint64_t)(uintptr_t)parent * 0x9E3779B97F4A7C15ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001B3ull;
    return (size_t)(h ^ (h >> 29));
}

mx_elem *mx_doc_child(const mx_doc *d, const mx_elem *parent, const char *name)
{
    if (!d->index_cap || !name) return NULL;
    size_t mask = d->index_cap - 1;
    for (size_t i = hash_key(parent, name) & mask;; i = (i + 1) & mask) {
        mx_elem *e = d->index[i];
        if (!e) return NULL;
        if (e->parent == parent && !strcmp(e->name, name)) return e;
    }
}

/* Every named element under its parent; a repeated name in one scope is an error
 * (MaterialX requires names unique among siblings). */
static bool build_index(mx_doc *d)
{
    size_t count = 0;
    for (mx_elem *e = d->root; e;) {
        count += e->name[0] != 0;
        e = mx_elem_next_preorder(e);
    }
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
    for (mx_elem *e = d->root; e;) {
        if (e->name[0] && e != d->root) {
            size_t i = hash_key(e->parent, e->name) & (cap - 1);
            bool dupl = false;
            for (; d->index[i]; i = (i + 1) & (cap - 1))
                if (d->index[i]->parent == e->parent && !strcmp(d->index[i]->name, e->name)) {
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
        e = mx_elem_next_preorder(e);
    }
    return ok;
}

bool mx_doc_read(mx_doc *d)
{
    if (mx_cache_load(d)) return build_index(d);
    XML_Memory_Handling_Suite mem = {fmag_tmp_malloc, fmag_tmp_realloc, fmag_tmp_free};
    reader r;
    memset(&r, 0, sizeof r);
    r.d = d;
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
    mx_cache_store(d);
    return true;
}

void mx_doc_free(mx_doc *d)
{
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
