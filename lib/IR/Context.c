/* The compilation context: the arena every IR object lives in, and the list of
 * diagnostics the library reports instead of printing. */
#include "IRInternal.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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
static void free_tmps(fmag_context *ctx);

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
    for (int s = 0; s < FMAG_CONTEXT_MAX_SLOTS; s++)
        if (ctx->slots[s].obj && ctx->slots[s].destroy) ctx->slots[s].destroy(ctx->slots[s].obj);
    free_chunks(ctx->chunks);
    free_chunks(ctx->spare);
    free_tmps(ctx);
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

/* The slot of that name, or NULL; a free one when `make` and the name is new. */
static int slot_index(const fmag_context *ctx, const char *name, bool make)
{
    int free_slot = -1;
    for (int s = 0; s < FMAG_CONTEXT_MAX_SLOTS; s++) {
        if (!ctx->slots[s].name) {
            if (free_slot < 0) free_slot = s;
        } else if (!strcmp(ctx->slots[s].name, name)) {
            return s;
        }
    }
    return make ? free_slot : -1;
}

void *fmag_context_slot_get(const fmag_context *ctx, const char *name)
{
    int s = name ? slot_index(ctx, name, false) : -1;
    return s < 0 ? NULL : ctx->slots[s].obj;
}

bool fmag_context_slot_set(fmag_context *ctx, const char *name, void *obj,
                           void (*destroy)(void *obj))
{
    int s = name ? slot_index(ctx, name, obj != NULL) : -1;
    if (s < 0) return !obj; /* clearing a slot that holds nothing succeeds */
    if (ctx->slots[s].obj && ctx->slots[s].destroy) ctx->slots[s].destroy(ctx->slots[s].obj);
    ctx->slots[s].name = obj ? name : NULL;
    ctx->slots[s].obj = obj;
    ctx->slots[s].destroy = obj ? destroy : NULL;
    return true;
}

void fmag_context_out_of_memory(fmag_context *ctx, const char *what)
{
    if (what)
        fmag_context_error(ctx, "error: out of memory in %s", what);
    else
        fmag_context_error(ctx, "error: out of memory");
    if (ctx->guard) longjmp(*ctx->guard, 1);
}

/* Every request counts and goes past the hook, not only those that need a new
 * chunk, so that a fault-injection sweep reaches every call site. */
void *fmag_arena_alloc_dirty(fmag_context *ctx, size_t size)
{
    ctx->nallocs++;
    if (size > SIZE_MAX / 2 || (ctx->alloc_hook && !ctx->alloc_hook(ctx->alloc_hook_user, size))) {
        fmag_context_out_of_memory(ctx, NULL);
        return NULL;
    }
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
            if (!n) {
                fmag_context_out_of_memory(ctx, NULL);
                return NULL;
            }
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
    return p;
}

void *fmag_context_alloc(fmag_context *ctx, size_t size)
{
    void *p = fmag_arena_alloc_dirty(ctx, size);
    if (p) memset(p, 0, size);
    return p;
}

char *fmag_context_strdup(fmag_context *ctx, const char *s, size_t len)
{
    char *p = fmag_context_alloc(ctx, len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = 0;
    return p;
}

/* Temporaries carry a header; inside a guard they are linked into the guarded
 * context, so that an unwinding guard frees what the interrupted call had not
 * freed yet. Which context that is, is the one thing kept per thread rather than
 * passed along (like errno): the passes, codegen and parsers allocate their
 * scratch arrays in hundreds of places that have no context at hand, and the
 * pointer is set only while a guard runs on this thread. */
struct fmag_tmp_block {
    struct fmag_tmp_block *prev, *next;
    fmag_context *owner; /* NULL: allocated outside a guard, in no list */
    size_t size;
    _Alignas(16) unsigned char data[];
};

static _Thread_local fmag_context *guarded_ctx;

static struct fmag_tmp_block *tmp_header(void *p)
{
    return (struct fmag_tmp_block *)((unsigned char *)p - offsetof(struct fmag_tmp_block, data));
}

/* By fmag_diag_severity. */
static const char *const sev_names[] = {"error", "warning", "note"};

static bool all_digits(const char *s, size_t n)
{
    if (n == 0 || n > 9) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

/* Where fmag_context_report put the parts of a diagnostic it wrote, so that its record
 * is not read back from the text (a file name may hold ": error: "). */
typedef struct diag_layout {
    fmag_diag_severity severity;
    size_t file_len; /* bytes of file name at the start of the text; 0: none */
    unsigned line, column;
    size_t message; /* offset of the message */
} diag_layout;

/* The record of a text fmag_context_report wrote: its parts are where it put them. */
static void diag_lay_out(diag_entry *e, const diag_layout *lay)
{
    const char *t = e->text;
    char *tail = e->text + strlen(t) + 1; /* room reserved by diag_wrap */
    e->rec.severity = lay->severity;
    e->rec.text = e->text;
    e->rec.line = lay->line;
    e->rec.column = lay->line ? lay->column : 0;
    e->rec.file = NULL;
    if (lay->file_len) {
        memcpy(tail, t, lay->file_len);
        tail[lay->file_len] = 0;
        e->rec.file = tail;
        tail += lay->file_len + 1;
    }
    /* The message's first line (a file name may hold a newline too). */
    size_t mlen = strcspn(t + lay->message, "\n");
    memcpy(tail, t + lay->message, mlen);
    tail[mlen] = 0;
    e->rec.message = tail;
}

/* The severity of a text written with fmag_context_error, "[file[:line[:col]]: ]
 * severity: message": the first "severity:" at the start or after ": " on the first
 * line; *pre is where the position ends and *msg where the message starts. */
static bool find_severity(const char *t, size_t eol, fmag_diag_severity *sev, size_t *pre,
                          size_t *msg)
{
    for (size_t i = 0; i < eol; i++) {
        bool at_start = i == 0, after_colon = i >= 2 && t[i - 1] == ' ' && t[i - 2] == ':';
        if (!at_start && !after_colon) continue;
        for (size_t k = 0; k < 3; k++) {
            size_t n = strlen(sev_names[k]);
            if (i + n < eol && !strncmp(t + i, sev_names[k], n) && t[i + n] == ':') {
                *sev = (fmag_diag_severity)k;
                *pre = at_start ? 0 : i - 2;
                *msg = i + n + 1;
                if (*msg < eol && t[*msg] == ' ') (*msg)++;
                return true;
            }
        }
    }
    return false;
}

/* Splits the first line into the record (find_severity); a line that does not parse is
 * an error whose message is the whole line. The record's strings point into e's own
 * buffer, after the text: file, then message. */
static void diag_parse(diag_entry *e, size_t textlen)
{
    const char *t = e->text;
    size_t eol = strcspn(t, "\n");
    char *tail = e->text + textlen + 1; /* room reserved by diag_push */
    size_t pre = 0, msg = 0;
    fmag_diag_severity sev = FMAG_DIAG_ERROR;
    bool found = find_severity(t, eol, &sev, &pre, &msg);
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
static char *diag_wrap(char *text, const diag_layout *lay)
{
    /* text + NUL, then room for the record's file and message (each at most the first
     * line of the text, plus a NUL). */
    size_t len = strlen(text);
    diag_entry *e = malloc(sizeof(*e) + 3 * (len + 1));
    if (e) {
        memcpy(e->text, text, len + 1);
        if (lay)
            diag_lay_out(e, lay);
        else
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

static void tmp_link(fmag_context *ctx, struct fmag_tmp_block *t)
{
    t->owner = ctx;
    t->prev = NULL;
    t->next = NULL;
    if (!ctx) return;
    t->next = ctx->tmps;
    if (ctx->tmps) ctx->tmps->prev = t;
    ctx->tmps = t;
}

static void tmp_unlink(struct fmag_tmp_block *t)
{
    fmag_context *ctx = t->owner;
    if (!ctx) return;
    if (t->prev)
        t->prev->next = t->next;
    else
        ctx->tmps = t->next;
    if (t->next) t->next->prev = t->prev;
    t->owner = NULL;
}

static void free_tmps(fmag_context *ctx)
{
    while (ctx->tmps) {
        struct fmag_tmp_block *t = ctx->tmps;
        ctx->tmps = t->next;
        free(t);
    }
}

/* On failure the old block stays valid, as with realloc; inside a guard the
 * failure unwinds instead of returning. */
void *fmag_tmp_realloc(void *p, size_t size)
{
    fmag_context *ctx = guarded_ctx;
    struct fmag_tmp_block *old = p ? tmp_header(p) : NULL, *t = NULL;
    bool refused = size > SIZE_MAX / 2;
    if (ctx && !refused) {
        ctx->nallocs++;
        refused = ctx->alloc_hook && !ctx->alloc_hook(ctx->alloc_hook_user, size);
    }
    if (!refused) {
        fmag_context *owner = old ? old->owner : NULL;
        if (old) tmp_unlink(old);
        t = realloc(old, sizeof(*t) + size);
        if (t) {
            t->size = size;
            tmp_link(ctx, t);
        } else if (old) {
            tmp_link(owner, old);
        }
    }
    if (t) return t->data;
    if (ctx) fmag_context_out_of_memory(ctx, NULL);
    return NULL;
}

void *fmag_tmp_malloc(size_t size)
{
    return fmag_tmp_realloc(NULL, size);
}

void *fmag_tmp_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / 2 / size) return fmag_tmp_realloc(NULL, SIZE_MAX);
    void *p = fmag_tmp_realloc(NULL, n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

void fmag_tmp_free(void *p)
{
    if (!p) return;
    struct fmag_tmp_block *t = tmp_header(p);
    tmp_unlink(t);
    free(t);
}

bool fmag_context_guard(fmag_context *ctx, void (*fn)(void *arg), void *arg)
{
    if (ctx->guard) {
        fn(arg);
        return true;
    }
    jmp_buf landing;
    fmag_context *outer = guarded_ctx;
    ctx->guard = &landing;
    guarded_ctx = ctx;
    if (setjmp(landing)) {
        ctx->guard = NULL;
        guarded_ctx = outer;
        free_tmps(ctx);
        return false;
    }
    fn(arg);
    ctx->guard = NULL;
    guarded_ctx = outer;
    /* A block that outlives the call (none should) becomes an ordinary one: a
     * later unwinding guard must not free what a caller still holds. */
    while (ctx->tmps) {
        struct fmag_tmp_block *t = ctx->tmps;
        ctx->tmps = t->next;
        t->owner = NULL;
        t->prev = t->next = NULL;
    }
    return true;
}

void fmag_context_set_alloc_hook(fmag_context *ctx, fmag_alloc_hook hook, void *user)
{
    ctx->alloc_hook = hook;
    ctx->alloc_hook_user = user;
}

uint64_t fmag_context_alloc_count(const fmag_context *ctx)
{
    return ctx->nallocs;
}

void fmag_context_set_inline_budget(fmag_context *ctx, size_t max_instrs)
{
    ctx->inline_budget = max_instrs;
}

size_t fmag_context_inline_budget(const fmag_context *ctx)
{
    return ctx->inline_budget ? ctx->inline_budget : FMAG_DEFAULT_INLINE_BUDGET;
}

void fmag_context_set_unroll_budget(fmag_context *ctx, size_t max_instrs)
{
    ctx->unroll_budget = max_instrs;
}

size_t fmag_context_unroll_budget(const fmag_context *ctx)
{
    return ctx->unroll_budget ? ctx->unroll_budget : FMAG_UNROLL_DEFAULT_BUDGET;
}

static unsigned error_limit(const fmag_context *ctx)
{
    return ctx->error_limit_set ? ctx->error_limit : FMAG_DEFAULT_ERROR_LIMIT;
}

void fmag_context_set_error_limit(fmag_context *ctx, unsigned limit)
{
    ctx->error_limit = limit;
    ctx->error_limit_set = true;
}

bool fmag_context_error_limit_reached(const fmag_context *ctx)
{
    unsigned lim = error_limit(ctx);
    return lim && ctx->nerrors >= lim;
}

/* Notes ("file:l:c: note: ...") go with the error before them and do not count. */
static bool is_note(const char *msg)
{
    fmag_diag_severity sev;
    size_t pre, at;
    return find_severity(msg, strcspn(msg, "\n"), &sev, &pre, &at) && sev == FMAG_DIAG_NOTE;
}

static const char too_many_errors[] = "error: too many errors emitted, stopping now";

/* Takes ownership of msg (NULL: the message could not be formatted for lack of
 * memory, which is then reported as the constant oom_message); lay: where its parts
 * are, or NULL to read them from the text. Past the error limit, one "too many
 * errors" and then nothing. */
static void diag_push(fmag_context *ctx, char *msg, const diag_layout *lay)
{
    unsigned lim = error_limit(ctx);
    bool note = msg && (lay ? lay->severity == FMAG_DIAG_NOTE : is_note(msg));
    if (lim && (ctx->nerrors > lim || (note && ctx->nerrors == lim))) {
        free(msg);
        return;
    }
    if (lim && ctx->nerrors == lim) {
        free(msg);
        size_t n = sizeof too_many_errors;
        msg = malloc(n);
        if (msg) memcpy(msg, too_many_errors, n);
        lay = NULL;
    }
    if (!note) ctx->nerrors++;
    if (msg) msg = diag_wrap(msg, lay); /* the text and its record, one block */
    if (ctx->ndiags == ctx->capdiags) {
        size_t cap = ctx->capdiags ? ctx->capdiags * 2 : 8;
        char **n = realloc(ctx->diags, cap * sizeof(*n));
        if (!n) {
            if (msg) diag_free(msg);
            msg = NULL;
        } else {
            ctx->diags = n;
            ctx->capdiags = cap;
        }
    }
    if (!msg) {
        ctx->oom_unrecorded = true;
        return;
    }
    ctx->diags[ctx->ndiags++] = msg;
}

bool fmag_context_diag_record(const fmag_context *ctx, size_t i, fmag_diagnostic *out)
{
    if (i == ctx->ndiags && ctx->oom_unrecorded) { /* the one that could not be stored */
        static const fmag_diagnostic oom = {FMAG_DIAG_ERROR,       NULL, 0, 0, "out of memory",
                                            "error: out of memory"};
        *out = oom;
        return true;
    }
    if (i >= ctx->ndiags) return false;
    *out = diag_entry_of_const(ctx->diags[i])->rec;
    return true;
}

/* fmt and its arguments in a malloc'ed string (NULL when out of memory). */
static char *format_message(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *msg = malloc((size_t)(n < 0 ? 0 : n) + 1);
    if (msg) vsnprintf(msg, (size_t)(n < 0 ? 0 : n) + 1, fmt, again);
    va_end(again);
    return msg;
}

void fmag_context_verror(fmag_context *ctx, const char *fmt, va_list ap)
{
    diag_push(ctx, format_message(fmt, ap), NULL);
}

void fmag_context_error(fmag_context *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fmag_context_verror(ctx, fmt, ap);
    va_end(ap);
}

static void context_vreport(fmag_context *ctx, fmag_diag_severity sev, const char *file,
                            unsigned line, unsigned col, const char *fmt, va_list ap)
{
    if ((unsigned)sev > FMAG_DIAG_NOTE) sev = FMAG_DIAG_ERROR;
    char pos[32] = "";
    if (file && line && col)
        snprintf(pos, sizeof pos, ":%u:%u", line, col);
    else if (file && line)
        snprintf(pos, sizeof pos, ":%u", line);
    char *body = format_message(fmt, ap), *msg = NULL;
    size_t head = file ? strlen(file) + strlen(pos) + 2 : 0; /* "file:l:c: " */
    size_t shead = strlen(sev_names[sev]) + 2;               /* "error: " */
    if (body) {
        size_t n = head + shead + strlen(body) + 1;
        if ((msg = malloc(n)))
            snprintf(msg, n, "%s%s%s%s: %s", file ? file : "", pos, file ? ": " : "",
                     sev_names[sev], body);
        free(body);
    }
    diag_layout lay = {sev, file ? strlen(file) : 0, file ? line : 0, file && line ? col : 0,
                       head + shead};
    diag_push(ctx, msg, &lay);
}

void fmag_context_report(fmag_context *ctx, fmag_diag_severity sev, const char *file, unsigned line,
                         unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    context_vreport(ctx, sev, file, line, col, fmt, ap);
    va_end(ap);
}

static const char oom_message[] = "error: out of memory";

/* A diagnostic that could not be stored for lack of memory counts as one more,
 * reported as oom_message. */
size_t fmag_context_diag_count(const fmag_context *ctx)
{
    return ctx->ndiags + ctx->oom_unrecorded;
}

const char *fmag_context_diag(const fmag_context *ctx, size_t i)
{
    if (i < ctx->ndiags) return ctx->diags[i];
    return i == ctx->ndiags && ctx->oom_unrecorded ? oom_message : NULL;
}

void fmag_context_diag_clear(fmag_context *ctx)
{
    for (size_t i = 0; i < ctx->ndiags; i++)
        diag_free(ctx->diags[i]);
    ctx->ndiags = 0;
    ctx->nerrors = 0;
    ctx->oom_unrecorded = false;
}

void fmag_context_diag_print(const fmag_context *ctx, FILE *out)
{
    for (size_t i = 0; i < fmag_context_diag_count(ctx); i++) {
        fputs(fmag_context_diag(ctx, i), out);
        fputc('\n', out);
    }
}

size_t fmag_text_bom_len(const char *text, size_t len)
{
    return len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
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
    char *msg = format_message(fmt, ap);
    va_end(ap);
    if (!msg) {
        diag_push(ctx, NULL, NULL);
        return;
    }

    /* Show the source line with control bytes replaced, so garbage input cannot
     * corrupt the terminal, and a caret under the column. */
    size_t shown = line_end - line_start;
    if (shown > 200) shown = 200;
    char *src = malloc(shown + 1);
    char *caret = malloc(shown + 2);
    if (!src || !caret) {
        free(msg);
        free(src);
        free(caret);
        diag_push(ctx, NULL, NULL);
        return;
    }
    size_t ci = 0;
    for (size_t i = 0; i < shown; i++) {
        unsigned char ch = (unsigned char)text[line_start + i];
        src[i] = ch == '\t' ? '\t' : (ch < 32 || ch == 127) ? '?' : (char)ch;
        if (i < offset - line_start) caret[ci++] = ch == '\t' ? '\t' : ' ';
    }
    src[shown] = 0;
    caret[ci++] = '^';
    caret[ci] = 0;
    fmag_context_report(ctx, FMAG_DIAG_ERROR, filename ? filename : "<input>", line, col,
                        "%s\n%s\n%s", msg, src, caret);
    free(msg);
    free(src);
    free(caret);
}

void fmag_context_error_at(fmag_context *ctx, const char *filename, const char *text, size_t len,
                           unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = format_message(fmt, ap);
    va_end(ap);
    if (!msg) {
        diag_push(ctx, NULL, NULL);
        return;
    }
    /* The offset of line:col, when the text has that line and the line that column. */
    size_t off = 0;
    unsigned l = 1;
    while (text && l < line && off < len)
        if (text[off++] == '\n') l++;
    size_t end = off;
    while (text && end < len && text[end] != '\n' && text[end] != '\r')
        end++;
    const char *file = filename ? filename : "<input>";
    if (text && line && l == line && col && col - 1 <= end - off) {
        fmag_context_source_error(ctx, filename, text, len, off + col - 1, "%s", msg);
    } else if (text && line && l == line && !col) { /* the line, no caret */
        char shown[201];
        size_t k = 0;
        for (size_t i = off; i < end && k < 200; i++) {
            unsigned char ch = (unsigned char)text[i];
            shown[k++] = ch == '\t' ? '\t' : (ch < 32 || ch == 127) ? '?' : (char)ch;
        }
        shown[k] = 0;
        fmag_context_report(ctx, FMAG_DIAG_ERROR, file, line, 0, "%s\n%s", msg, shown);
    } else {
        fmag_context_report(ctx, FMAG_DIAG_ERROR, file, line, col, "%s", msg);
    }
    free(msg);
}
