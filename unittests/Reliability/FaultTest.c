/* Fault injection: compile each example (SL -> -O2 -> stream -> reference VM) with
 * the context's Nth allocation failing, for N over every allocation the compile
 * makes (FMAG_FAULT_FULL=1) or a sample of them (the CTest default). Each run must
 * either succeed with exactly the bits of the unhindered compile, or fail with an
 * "out of memory" diagnostic; a crash or (under ASan) a leak fails the test. */
#include "../Expect.h"
#include "FaultHook.h"
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/SL.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { NELEMS = 4, MAXIO = 256 };

/* Outputs of every program on NELEMS fixed inputs, concatenated as bits. */
typedef struct result {
    uint32_t *bits;
    size_t n;
} result;

static bool run_image(const fmag_vm_image *img, result *r)
{
    size_t total = 0;
    for (size_t p = 0; p < img->nprograms; p++)
        total += (size_t)img->programs[p].nout * NELEMS;
    r->bits = calloc(total ? total : 1, sizeof *r->bits);
    if (!r->bits) return false;
    r->n = 0;
    for (size_t p = 0; p < img->nprograms; p++) {
        const fmag_vm_program *prog = &img->programs[p];
        float *regs = calloc(prog->regs ? prog->regs : 1, sizeof(float));
        float in[MAXIO], out[MAXIO];
        if (!regs || prog->nin > MAXIO || prog->nout > MAXIO) {
            free(regs);
            return false;
        }
        for (unsigned e = 0; e < NELEMS; e++) {
            for (unsigned k = 0; k < prog->nin; k++)
                in[k] = 0.37f * (float)(k + 1) - 0.61f * (float)e;
            fmag_vm_run(prog, in, out, regs);
            memcpy(r->bits + r->n, out, prog->nout * sizeof(float));
            r->n += prog->nout;
        }
        free(regs);
    }
    return true;
}

/* One compile as slc does it; fails_at = 0 for none. Returns 1 success (r filled),
 * 0 failure with a diagnostic, -1 failure without one (a bug). */
static int compile(const char *name, const char *src, size_t len, uint64_t fails_at,
                   uint64_t *allocs, result *r)
{
    fmag_context *ctx = fmag_context_create();
    if (!ctx) return -1;
    fail_nth f = {fails_at, 0};
    if (fails_at) fmag_context_set_alloc_hook(ctx, hook, &f);
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    int rc = 0;
    fmag_module *m = fmag_sl_compile(ctx, name, src, len, NULL);
    if (m && fmag_run_passes(m, "O2", &po) && fmag_prepare_codegen(m, &po) &&
        fmag_codegen_module(m, &img))
        rc = run_image(&img, r) ? 1 : -1;
    if (rc == 0) {
        bool oom = false;
        for (size_t i = 0; i < fmag_context_diag_count(ctx); i++)
            oom |= strstr(fmag_context_diag(ctx, i), "out of memory") != NULL;
        if (!oom) {
            fprintf(stderr, "%s: allocation %llu failed without an out-of-memory diagnostic:\n",
                    name, (unsigned long long)fails_at);
            fmag_context_diag_print(ctx, stderr);
            rc = -1;
        }
    }
    if (allocs) *allocs = fmag_context_alloc_count(ctx);
    fmag_vm_image_free(&img);
    fmag_context_destroy(ctx);
    return rc;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf) *len = (size_t)n;
    return buf;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sample: allocations 1..8, a stride, then the last 8 and total + 1 (which must
 * succeed); a stride must not jump over the tail. */
static uint64_t next_n(uint64_t n, uint64_t step, uint64_t total)
{
    uint64_t tail = total > 8 ? total - 7 : 1;
    if (n < 8 || n >= tail) return n + 1;
    return n + step < tail ? n + step : tail;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : FMAG_EXAMPLES_DIR;
    const char *full_env = getenv("FMAG_FAULT_FULL");
    bool full = full_env && *full_env == '1';
    /* The sample: the first allocations, the last ones, and a stride between. */
    unsigned long per_file = full ? 0 : 24;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", dir);
        return 1;
    }
    char *names[256];
    size_t nnames = 0;
    for (struct dirent *e; (e = readdir(d)) && nnames < 256;) {
        size_t n = strlen(e->d_name);
        if (n > 3 && !strcmp(e->d_name + n - 3, ".sl")) names[nnames++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, nnames, sizeof *names, cmp_names);
    unsigned long runs = 0, ok_runs = 0, failed_runs = 0;
    for (size_t k = 0; k < nnames; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        size_t len = 0;
        char *src = read_all(path, &len);
        EXPECT(src != NULL);
        if (!src) continue;
        result ref = {0};
        uint64_t total = 0;
        int rc = compile(names[k], src, len, 0, &total, &ref);
        EXPECT(rc == 1);
        if (rc != 1) {
            fprintf(stderr, "%s: the unhindered compile failed\n", names[k]);
            free(src);
            free(ref.bits);
            continue;
        }
        uint64_t step = full || total <= per_file ? 1 : (total + per_file - 1) / per_file;
        for (uint64_t n = 1; n <= total + 1; n = next_n(n, step, total)) {
            result r = {0};
            rc = compile(names[k], src, len, n, NULL, &r);
            runs++;
            if (rc == 1) {
                ok_runs++;
                bool same = r.n == ref.n && !memcmp(r.bits, ref.bits, r.n * sizeof *r.bits);
                if (!same)
                    fprintf(stderr, "%s: allocation %llu failed, compile succeeded, bits differ\n",
                            names[k], (unsigned long long)n);
                EXPECT(same);
            } else {
                failed_runs++;
                EXPECT(rc == 0);
            }
            free(r.bits);
        }
        if (full)
            printf("%s: %llu allocations, every one failed in turn: ok so far\n", names[k],
                   (unsigned long long)total);
        fflush(stdout);
        free(ref.bits);
        free(src);
    }
    printf("fault injection: %zu examples, %lu runs (%lu succeeded with the right bits, %lu "
           "failed with a diagnostic)%s\n",
           nnames, runs, ok_runs, failed_runs, full ? ", every allocation" : ", sampled");
    for (size_t k = 0; k < nnames; k++)
        free(names[k]);
    EXPECT(nnames > 0);
    return failures != 0;
}
