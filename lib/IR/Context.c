/* The compilation context: the arena every IR object lives in, and the list of
 * diagnostics the library reports instead of printing. */
#include "IRInternal.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { FMAG_ARENA_CHUNK = 64 * 1024 };
/* fmag_context_reset keeps this many chunks (8 MB): enough for a program of
 * about 20,000 instructions. */
enum { FMAG_ARENA_KEEP = 128 };

struct fmag_arena_chunk {
    struct fmag_arena_chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

/* A recorded diagnostic: the printed text (what ctx->diags points at) and the record
 * parsed from its first line, in one allocation so the text alone identifies it. */
typedef struct diag_entry {
    fmag_diagnostic rec;
    char text[];
} diag_entry;

static diag_entry *diag_entry_of(char *text)
{
    return (diag_entry *)(text - offsetof(diag_entry, text));
}

static void diag_free(char *text);

static const diag_entry *diag_entry_of_const(const char *text)
{
    return (const diag_entry *)(text - offsetof(diag_entry, text));
}

fmag_context *fmag_context_create(void)
{
    fmag_context *ctx = calloc(1, sizeof(*ctx));
    return ctx;
}

static void free_chunks(struct fmag_arena_chunk *c)
{
    while (c) {
        struct fmag_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
}

void fmag_context_destroy(fmag_context *ctx)
{
    if (!ctx) return;
    free_chunks(ctx->chunks);
    free_chunks(ctx->spare);
    for (size_t i = 0; i < ctx->ndiags; i++)
        diag_free(ctx->diags[i]);
    free(ctx->diags);
    free(ctx);
}

/* Standard chunks go to the spare list (their pages stay mapped: a fresh 64 KB
 * chunk costs 16 page faults to touch, which on a small program is as much as
 * the compile), up to FMAG_ARENA_KEEP of them so that one huge compile does not
 * pin its memory in a long-running process; one-off large blocks and the chunks
 * beyond that are returned to the allocator. */
void fmag_context_reset(fmag_context *ctx)
{
    size_t kept = 0;
    for (struct fmag_arena_chunk *c = ctx->spare; c; c = c->next)
        kept++;
    struct fmag_arena_chunk *c = ctx->chunks;
    while (c) {
        struct fmag_arena_chunk *next = c->next;
        if (c->size == FMAG_ARENA_CHUNK && kept < FMAG_ARENA_KEEP) {
            kept++;
            c->used = 0;
            c->next = ctx->spare;
            ctx->spare = c;
        } else {
            free(c);
        }
        c = next;
    }
    ctx->chunks = NULL;
    fmag_context_diag_clear(ctx);
}

void *fmag_context_alloc(fmag_context *ctx, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    struct fmag_arena_chunk *c = ctx->chunks;
    if (!c || c->size - c->used < size) {
        size_t cap = size > FMAG_ARENA_CHUNK / 4 ? size : FMAG_ARENA_CHUNK;
        struct fmag_arena_chunk *n = NULL;
        if (cap == FMAG_ARENA_CHUNK && ctx->spare) {
            n = ctx->spare;
            ctx->spare = n->next;
        } else {
            n = malloc(sizeof(*n) + cap);
            if (!n) fmag_fatal_oom();
            n->size = cap;
        }
        n->used = 0;
        if (c && cap == size && c->size - c->used >= 1024) {
            /* A large one-off block: keep filling the current chunk afterwards. */
            n->next = c->next;
            c->next = n;
        } else {
            n->next = c;
            ctx->chunks = n;
        }
        c = n;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *fmag_context_strdup(fmag_context *ctx, const char *s, size_t len)
{
    char *p = fmag_context_alloc(ctx, len + 1);
    memcpy(p, s, len);
    p[len] = 0;
    return p;
}

_Noreturn void fmag_fatal_oom(void)
{
    /* Out of memory is not a user error; there is nothing sensible to return. */
    abort();
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0 || n > 9) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

/* Splits the first line, "[file[:line[:col]]: ]severity: message", into the record.
 * Every producer writes that form; a line that does not parse is an error whose
 * message is the whole line. The record's strings point into e's own buffer, after
 * the text: file, then message. */
static void diag_parse(diag_entry *e, size_t textlen)
{
    static const char *const sev_names[] = {"error", "warning", "note"};
    const char *t = e->text;
    size_t eol = strcspn(t, "\n");
    char *tail = e->text + textlen + 1; /* room reserved by diag_push */
    size_t pre = 0, msg = 0;
    fmag_diag_severity sev = FMAG_DIAG_ERROR;
    bool found = false;
    for (size_t i = 0; i < eol && !found; i++) {
        bool at_start = i == 0, after_colon = i >= 2 && t[i - 1] == ' ' && t[i - 2] == ':';
        if (!at_start && !after_colon) continue;
        for (size_t k = 0; k < 3 && !found; k++) {
            size_t n = strlen(sev_names[k]);
            if (i + n < eol && !strncmp(t + i, sev_names[k], n) && t[i + n] == ':') {
                sev = (fmag_diag_severity)k;
                pre = at_start ? 0 : i - 2;
                msg = i + n + 1;
                if (msg < eol && t[msg] == ' ') msg++;
                found = true;
            }
        }
    }
    e->rec.severity = sev;
    e->rec.text = e->text;
    if (!found) msg = 0;
    /* The prefix: file, or file:line, or file:line:col (numbers read from the end). */
    size_t flen = pre;
    unsigned nums[2] = {0, 0};
    int nn = 0;
    while (nn < 2 && flen > 0) {
        size_t c = flen;
        while (c > 0 && t[c - 1] != ':')
            c--;
        if (c == 0 || !all_digits(t + c, flen - c)) break;
        nums[nn++] = (unsigned)strtoul(t + c, NULL, 10);
        flen = c - 1;
    }
    e->rec.line = nn == 2 ? nums[1] : nn == 1 ? nums[0] : 0;
    e->rec.column = nn == 2 ? nums[0] : 0;
    if (found && pre > 0) {
        memcpy(tail, t, flen);
        tail[flen] = 0;
        e->rec.file = tail;
        tail += flen + 1;
    } else {
        e->rec.file = NULL;
    }
    memcpy(tail, t + msg, eol - msg);
    tail[eol - msg] = 0;
    e->rec.message = tail;
}

/* Moves a diagnostic's malloc'ed text into a diag_entry and parses its record; returns
 * the entry's text (what ctx->diags holds), or NULL when out of memory (text freed). */
static char *diag_wrap(char *text)
{
    /* text + NUL, then room for the record's file and message (each at most the first
     * line of the text, plus a NUL). */
    size_t len = strlen(text);
    diag_entry *e = malloc(sizeof(*e) + 3 * (len + 1));
    if (e) {
        memcpy(e->text, text, len + 1);
        diag_parse(e, len);
    }
    free(text);
    return e ? e->text : NULL;
}

/* Frees what diag_wrap returned. */
static void diag_free(char *text)
{
    free(diag_entry_of(text));
}

static void diag_push(fmag_context *ctx, char *msg)
{
    msg = diag_wrap(msg);
    if (!msg) fmag_fatal_oom();
    if (ctx->ndiags == ctx->capdiags) {
        size_t cap = ctx->capdiags ? ctx->capdiags * 2 : 8;
        char **n = realloc(ctx->diags, cap * sizeof(*n));
        if (!n) fmag_fatal_oom();
        ctx->diags = n;
        ctx->capdiags = cap;
    }
    ctx->diags[ctx->ndiags++] = msg;
}

bool fmag_context_diag_record(const fmag_context *ctx, size_t i, fmag_diagnostic *out)
{
    if (i >= ctx->ndiags) return false;
    *out = diag_entry_of_const(ctx->diags[i])->rec;
    return true;
}

void fmag_context_verror(fmag_context *ctx, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *msg = malloc((size_t)(n < 0 ? 0 : n) + 1);
    if (!msg) fmag_fatal_oom();
    vsnprintf(msg, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap2);
    va_end(ap2);
    diag_push(ctx, msg);
}

void fmag_context_error(fmag_context *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fmag_context_verror(ctx, fmt, ap);
    va_end(ap);
}

size_t fmag_context_diag_count(const fmag_context *ctx)
{
    return ctx->ndiags;
}

const char *fmag_context_diag(const fmag_context *ctx, size_t i)
{
    return i < ctx->ndiags ? ctx->diags[i] : NULL;
}

void fmag_context_diag_clear(fmag_context *ctx)
{
    for (size_t i = 0; i < ctx->ndiags; i++)
        diag_free(ctx->diags[i]);
    ctx->ndiags = 0;
}

void fmag_context_diag_print(const fmag_context *ctx, FILE *out)
{
    for (size_t i = 0; i < ctx->ndiags; i++) {
        fputs(ctx->diags[i], out);
        fputc('\n', out);
    }
}

/* Source diagnostics: "file:line:col: error: msg", the line, and a caret. */
void fmag_context_source_error(fmag_context *ctx, const char *filename, const char *text,
                               size_t len, size_t offset, const char *fmt, ...)
{
    if (offset > len) offset = len;
    unsigned line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    }
    size_t line_end = line_start;
    while (line_end < len && text[line_end] != '\n' && text[line_end] != '\r')
        line_end++;
    unsigned col = (unsigned)(offset - line_start) + 1;

    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = malloc((size_t)(n < 0 ? 0 : n) + 1);
    if (!msg) fmag_fatal_oom();
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    va_end(ap);

    /* Show the source line with control bytes replaced, so garbage input cannot
     * corrupt the terminal, and a caret under the column. */
    size_t shown = line_end - line_start;
    if (shown > 200) shown = 200;
    char *src = malloc(shown + 1);
    char *caret = malloc(shown + 2);
    if (!src || !caret) fmag_fatal_oom();
    size_t ci = 0;
    for (size_t i = 0; i < shown; i++) {
        unsigned char ch = (unsigned char)text[line_start + i];
        src[i] = ch == '\t' ? '\t' : (ch < 32 || ch == 127) ? '?' : (char)ch;
        if (i < offset - line_start) caret[ci++] = ch == '\t' ? '\t' : ' ';
    }
    src[shown] = 0;
    caret[ci++] = '^';
    caret[ci] = 0;
    fmag_context_error(ctx, "%s:%u:%u: error: %s\n%s\n%s", filename ? filename : "<input>", line,
                       col, msg, src, caret);
    free(msg);
    free(src);
    free(caret);
}
