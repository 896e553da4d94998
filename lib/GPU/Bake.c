/* The tier-up cache (Bake.h): entries keyed by a hash of the program's content and compared
 * in full, one background thread that bakes queued entries in order, LRU eviction by the
 * threads that run launches. */
#define _POSIX_C_SOURCE 200809L
#include "Bake.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef enum bake_state { BAKE_QUEUED, BAKE_BAKING, BAKE_READY, BAKE_FAILED } bake_state;

struct fmag_gpu_bake_entry {
    uint64_t hash;
    bool nan_agnostic;
    fmag_vm_program prog; /* a private copy: the caller's may be gone when the bake runs */
    bake_state state;
    void *native;
    size_t bytes;              /* the native object's and the copy's */
    unsigned holds;            /* launches holding the native object */
    bool evicted;              /* out of the table; freed by the last fmag_gpu_bake_put */
    uint64_t used;             /* LRU clock */
    fmag_gpu_bake_entry *next; /* the table's list */
};

struct fmag_gpu_bake_cache {
    fmag_gpu_baker baker;
    fmag_gpu_bake_limits lim;
    pthread_mutex_t mu;
    pthread_cond_t work, done; /* a bake queued; a bake finished */
    pthread_t thread;
    bool started, stop;
    fmag_gpu_bake_entry *head; /* newest first */
    unsigned entries;
    size_t bytes;
    uint64_t clock;
    fmag_gpu_bake_stat st;
    char *log; /* failed bakes, one line each */
    size_t loglen;
    char *log_copy; /* what fmag_gpu_bake_log returned last */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* FNV-1a over what the program computes: its shape and its instructions. */
static uint64_t program_hash(const fmag_vm_program *p, bool nan_agnostic)
{
    uint32_t head[5] = {p->regs, p->nin, p->nout, p->ninstr, nan_agnostic};
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)head;
    for (size_t i = 0; i < sizeof head; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
    b = (const unsigned char *)p->code;
    for (size_t i = 0; i < (size_t)p->ninstr * sizeof *p->code; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static bool same_program(const fmag_gpu_bake_entry *e, const fmag_vm_program *p, uint64_t hash,
                         bool nan_agnostic)
{
    const fmag_vm_program *q = &e->prog;
    return e->hash == hash && e->nan_agnostic == nan_agnostic && q->regs == p->regs &&
           q->nin == p->nin && q->nout == p->nout && q->ninstr == p->ninstr &&
           (p->ninstr == 0 || !memcmp(q->code, p->code, (size_t)p->ninstr * sizeof *p->code));
}

static void entry_free(fmag_gpu_bake_cache *c, fmag_gpu_bake_entry *e)
{
    if (e->native) c->baker.release(c->baker.user, e->native);
    free(e->prog.name);
    free(e->prog.code);
    free(e);
}

/* Appends one line to the log (under the lock); the log keeps its last 16 KiB. */
static void log_line(fmag_gpu_bake_cache *c, const char *line)
{
    size_t n = strlen(line);
    if (n > 1000) n = 1000;
    if (c->loglen + n + 1 > 16384) {
        free(c->log);
        c->log = NULL, c->loglen = 0;
    }
    char *s = realloc(c->log, c->loglen + n + 2);
    if (!s) return;
    memcpy(s + c->loglen, line, n);
    s[c->loglen + n] = '\n';
    s[c->loglen + n + 1] = 0;
    c->log = s, c->loglen += n + 1;
}

/* The oldest queued entry (the list is newest first), or NULL. */
static fmag_gpu_bake_entry *next_queued(fmag_gpu_bake_cache *c)
{
    fmag_gpu_bake_entry *q = NULL;
    for (fmag_gpu_bake_entry *e = c->head; e; e = e->next)
        if (e->state == BAKE_QUEUED) q = e;
    return q;
}

/* Bakes e outside the lock; called with the lock held, returns with it held. The entry
 * cannot go meanwhile: eviction skips an entry being baked. */
static void bake_one(fmag_gpu_bake_cache *c, fmag_gpu_bake_entry *e)
{
    e->state = BAKE_BAKING;
    fmag_gpu_bake_limits lim = c->lim;
    pthread_mutex_unlock(&c->mu);
    char err[1024] = "";
    size_t bytes = 0;
    void *native = NULL;
    double t0 = now_ms(), ms = 0, compile_ms = 0;
    if (e->prog.ninstr > lim.max_instrs)
        snprintf(err, sizeof err, "%u instructions, over the bake limit of %u", e->prog.ninstr,
                 lim.max_instrs);
    else {
        void *blob =
            c->baker.compile(c->baker.user, &e->prog, e->nan_agnostic, &bytes, err, sizeof err);
        compile_ms = now_ms() - t0;
        pthread_mutex_lock(&c->mu);
        bool stop = c->stop; /* the runner is going: its device is no place for a load */
        pthread_mutex_unlock(&c->mu);
        if (blob && stop)
            snprintf(err, sizeof err, "the runner was destroyed during the bake");
        else if (blob)
            native = c->baker.load(c->baker.user, blob, bytes, err, sizeof err);
        free(blob);
    }
    ms = now_ms() - t0;
    if (native && ms > lim.budget_ms) {
        /* late: the time budget is what a caller may wait in the worst case */
        c->baker.release(c->baker.user, native);
        native = NULL;
        snprintf(err, sizeof err, "the bake took %.0f ms, over the budget of %.0f ms", ms,
                 lim.budget_ms);
    }
    pthread_mutex_lock(&c->mu);
    c->st.last_bake_ms = ms;
    c->st.last_compile_ms = compile_ms;
    if (native) {
        e->native = native;
        e->bytes += bytes;
        c->bytes += bytes;
        e->state = BAKE_READY;
        ++c->st.baked;
    } else {
        e->state = BAKE_FAILED;
        ++c->st.failed;
        char line[1200];
        snprintf(line, sizeof line, "program '%s' (%u instructions) stays interpreted: %s",
                 e->prog.name ? e->prog.name : "", e->prog.ninstr, err);
        log_line(c, line);
    }
    pthread_cond_broadcast(&c->done);
}

static void *bake_thread(void *arg)
{
    fmag_gpu_bake_cache *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        fmag_gpu_bake_entry *e = next_queued(c);
        if (c->stop) break;
        if (!e) {
            pthread_cond_wait(&c->work, &c->mu);
            continue;
        }
        bake_one(c, e);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

fmag_gpu_bake_cache *fmag_gpu_bake_create(const fmag_gpu_baker *baker)
{
    fmag_gpu_bake_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->baker = *baker;
    c->lim = (fmag_gpu_bake_limits){FMAG_GPU_BAKE_ENTRIES, FMAG_GPU_BAKE_BYTES,
                                    FMAG_GPU_BAKE_BUDGET_MS, FMAG_GPU_BAKE_MAX_INSTRS};
    if (pthread_mutex_init(&c->mu, NULL)) {
        free(c);
        return NULL;
    }
    if (pthread_cond_init(&c->work, NULL)) {
        pthread_mutex_destroy(&c->mu);
        free(c);
        return NULL;
    }
    if (pthread_cond_init(&c->done, NULL)) {
        pthread_cond_destroy(&c->work);
        pthread_mutex_destroy(&c->mu);
        free(c);
        return NULL;
    }
    return c;
}

void fmag_gpu_bake_destroy(fmag_gpu_bake_cache *c)
{
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    c->stop = true;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->mu);
    if (c->started) pthread_join(c->thread, NULL);
    while (c->head) {
        fmag_gpu_bake_entry *e = c->head;
        c->head = e->next;
        entry_free(c, e);
    }
    if (c->baker.destroy) c->baker.destroy(c->baker.user);
    pthread_cond_destroy(&c->done);
    pthread_cond_destroy(&c->work);
    pthread_mutex_destroy(&c->mu);
    free(c->log);
    free(c->log_copy);
    free(c);
}

void fmag_gpu_bake_set_limits(fmag_gpu_bake_cache *c, const fmag_gpu_bake_limits *lim)
{
    pthread_mutex_lock(&c->mu);
    c->lim = *lim;
    pthread_mutex_unlock(&c->mu);
}

/* Evicts least-recently-used entries (not one being baked, nor `keep`) until the table
 * holds at most max_entries and max_bytes, under the lock. A held entry leaves the table
 * at once and is freed by its last put. */
static void evict(fmag_gpu_bake_cache *c, const fmag_gpu_bake_entry *keep)
{
    while (c->entries > c->lim.max_entries || c->bytes > c->lim.max_bytes) {
        fmag_gpu_bake_entry **victim = NULL;
        for (fmag_gpu_bake_entry **pe = &c->head; *pe; pe = &(*pe)->next)
            if (*pe != keep && (*pe)->state != BAKE_BAKING &&
                (!victim || (*pe)->used < (*victim)->used))
                victim = pe;
        if (!victim) return;
        fmag_gpu_bake_entry *e = *victim;
        *victim = e->next;
        --c->entries;
        c->bytes -= e->bytes;
        ++c->st.evicted;
        if (e->holds)
            e->evicted = true;
        else
            entry_free(c, e);
    }
}

/* A queued entry for p (under the lock), or NULL on no memory. */
static fmag_gpu_bake_entry *enqueue(fmag_gpu_bake_cache *c, const fmag_vm_program *p, uint64_t hash,
                                    bool nan_agnostic)
{
    if (!c->started) {
        if (pthread_create(&c->thread, NULL, bake_thread, c)) return NULL;
        c->started = true;
    }
    fmag_gpu_bake_entry *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->prog = *p;
    e->prog.name = p->name ? strdup(p->name) : NULL;
    e->prog.code = malloc(p->ninstr ? (size_t)p->ninstr * sizeof *p->code : 1);
    if (!e->prog.code || (p->name && !e->prog.name)) {
        free(e->prog.name);
        free(e->prog.code);
        free(e);
        return NULL;
    }
    if (p->ninstr) memcpy(e->prog.code, p->code, (size_t)p->ninstr * sizeof *p->code);
    e->hash = hash, e->nan_agnostic = nan_agnostic, e->state = BAKE_QUEUED;
    e->bytes = sizeof *e + (size_t)p->ninstr * sizeof *p->code;
    e->next = c->head;
    c->head = e;
    ++c->entries;
    c->bytes += e->bytes;
    pthread_cond_signal(&c->work);
    return e;
}

fmag_gpu_bake_entry *fmag_gpu_bake_get(fmag_gpu_bake_cache *c, const fmag_vm_program *p,
                                       fmag_gpu_tier_mode mode, bool nan_agnostic, void **native)
{
    *native = NULL;
    if (!c || mode == FMAG_GPU_TIER_OFF) return NULL;
    uint64_t hash = program_hash(p, nan_agnostic);
    pthread_mutex_lock(&c->mu);
    fmag_gpu_bake_entry *e = c->head;
    while (e && !same_program(e, p, hash, nan_agnostic))
        e = e->next;
    if (!e) e = enqueue(c, p, hash, nan_agnostic);
    if (e) {
        e->used = ++c->clock;
        ++e->holds; /* another thread's eviction may take it from the table meanwhile */
        while (mode == FMAG_GPU_TIER_EAGER && !c->stop && !e->evicted &&
               (e->state == BAKE_QUEUED || e->state == BAKE_BAKING))
            pthread_cond_wait(&c->done, &c->mu);
        if (!e->evicted) evict(c, e);
        if (e->state == BAKE_READY) {
            *native = e->native;
        } else {
            bool gone = --e->holds == 0 && e->evicted;
            pthread_mutex_unlock(&c->mu);
            if (gone) entry_free(c, e);
            return NULL;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return e;
}

void fmag_gpu_bake_put(fmag_gpu_bake_cache *c, fmag_gpu_bake_entry *e)
{
    if (!c || !e) return;
    pthread_mutex_lock(&c->mu);
    bool gone = --e->holds == 0 && e->evicted;
    pthread_mutex_unlock(&c->mu);
    if (gone) entry_free(c, e);
}

void fmag_gpu_bake_wait(fmag_gpu_bake_cache *c)
{
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        bool busy = false;
        for (fmag_gpu_bake_entry *e = c->head; e && !busy; e = e->next)
            busy = e->state == BAKE_QUEUED || e->state == BAKE_BAKING;
        if (!busy || c->stop) break;
        pthread_cond_wait(&c->done, &c->mu);
    }
    pthread_mutex_unlock(&c->mu);
}

void fmag_gpu_bake_stats(fmag_gpu_bake_cache *c, fmag_gpu_bake_stat *st)
{
    memset(st, 0, sizeof *st);
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    *st = c->st;
    st->entries = c->entries;
    st->bytes = c->bytes;
    for (fmag_gpu_bake_entry *e = c->head; e; e = e->next) {
        st->ready += e->state == BAKE_READY;
        st->pending += e->state == BAKE_QUEUED || e->state == BAKE_BAKING;
    }
    pthread_mutex_unlock(&c->mu);
}

const char *fmag_gpu_bake_log(fmag_gpu_bake_cache *c)
{
    if (!c) return "";
    pthread_mutex_lock(&c->mu);
    free(c->log_copy);
    c->log_copy = c->log ? strdup(c->log) : NULL;
    pthread_mutex_unlock(&c->mu);
    return c->log_copy ? c->log_copy : "";
}
