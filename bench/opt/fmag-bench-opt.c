/* fmag-bench-opt: how long -O2 takes on a large generated module, and how much it
 * removes on realistic modules compared with each pass run alone. */
#include "fmag/IR.h"
#include "fmag/Transforms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../BenchTime.h"

static double now_ms(void)
{
    return bench_seconds(CLOCK_MONOTONIC) * 1e3;
}

/* CPU time of this process: steadier than wall time on a shared, loaded machine. */
static double cpu_ms(void)
{
    return bench_seconds(CLOCK_PROCESS_CPUTIME_ID) * 1e3;
}

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A shader-like module of about `target` instructions: helpers (arithmetic chains,
 * clamps, an if/else diamond, an early return) called from one export, which also
 * branches on computed comparisons. Deterministic for a seed. */
static fmag_module *generate(fmag_context *ctx, unsigned target, uint64_t seed)
{
    fmag_module *m = fmag_module_create(ctx);
    fmag_builder b;
#define K(x) fmag_module_const(m, (x))
    fmag_func *helpers[8];
    for (unsigned h = 0; h < 8; h++) {
        char name[16];
        snprintf(name, sizeof name, "h%u", h);
        fmag_func *f = fmag_func_create(m, name, 3, 2, false);
        fmag_block *e = fmag_block_create(f, "entry");
        fmag_builder_at_end(&b, e);
        fmag_value *x = &f->params[0], *y = &f->params[1], *z = &f->params[2];
        fmag_value *a = fmag_build_fma(&b, x, y, K(0.5f));
        fmag_value *c = fmag_build_max(&b, fmag_build_min(&b, a, K(1.0f)), K(0.0f));
        fmag_value *d = fmag_build_sub(&b, c, z);
        fmag_block *t = fmag_block_create(f, NULL), *el = fmag_block_create(f, NULL),
                   *mg = fmag_block_create(f, NULL), *early = fmag_block_create(f, NULL),
                   *rest = fmag_block_create(f, NULL);
        fmag_build_br(&b, d, t, el);
        fmag_builder_at_end(&b, t);
        fmag_value *vt = fmag_build_mul(&b, d, K(2.0f));
        fmag_build_jmp(&b, mg);
        fmag_builder_at_end(&b, el);
        fmag_value *ve = fmag_build_abs(&b, d);
        fmag_build_jmp(&b, mg);
        fmag_builder_at_end(&b, mg);
        fmag_instr *phi = fmag_build_phi(&b);
        fmag_phi_add_incoming(phi, vt, t);
        fmag_phi_add_incoming(phi, ve, el);
        fmag_value *p = &phi->results[0];
        fmag_build_br(&b, fmag_build_gt(&b, p, K(3.0f)), early, rest);
        fmag_builder_at_end(&b, early);
        fmag_value *r1[2] = {K(3.0f), p};
        fmag_build_ret(&b, r1, 2);
        fmag_builder_at_end(&b, rest);
        fmag_value *q = fmag_build_fma(&b, p, K(0.25f), fmag_build_mul(&b, x, K(1.0f)));
        fmag_value *r2[2] = {fmag_build_add(&b, q, K(0.0f)), fmag_build_neg(&b, q)};
        fmag_build_ret(&b, r2, 2);
        helpers[h] = f;
    }
    fmag_func *f = fmag_func_create(m, "main", 4, 2, true);
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *vals[64];
    unsigned nv = 4;
    for (unsigned k = 0; k < 4; k++)
        vals[k] = &f->params[k];
    uint64_t s = seed;
    while (fmag_module_num_instrs(m) < target) {
        unsigned what = next(&s) % 10;
        fmag_value *x = vals[nv - 1 - next(&s) % (nv < 8 ? nv : 8)];
        fmag_value *y = vals[next(&s) % nv];
        fmag_value *v;
        if (what < 5) {
            v = fmag_build_fma(&b, x, y, K((float)(next(&s) % 7) - 3.0f));
        } else if (what < 7) {
            fmag_value *args[3] = {x, y, vals[next(&s) % nv]};
            fmag_instr *c = fmag_build_call(&b, helpers[next(&s) % 8], args, 3);
            v = fmag_build_add(&b, &c->results[0], &c->results[1]);
        } else {
            fmag_block *t = fmag_block_create(f, NULL), *el = fmag_block_create(f, NULL),
                       *mg = fmag_block_create(f, NULL);
            fmag_build_br(&b, fmag_build_lt(&b, x, y), t, el);
            fmag_builder_at_end(&b, t);
            fmag_value *vt = fmag_build_sub(&b, x, y);
            fmag_build_jmp(&b, mg);
            fmag_builder_at_end(&b, el);
            fmag_value *ve = fmag_build_max(&b, x, y);
            fmag_build_jmp(&b, mg);
            fmag_builder_at_end(&b, mg);
            fmag_instr *phi = fmag_build_phi(&b);
            fmag_phi_add_incoming(phi, vt, t);
            fmag_phi_add_incoming(phi, ve, el);
            v = &phi->results[0];
        }
        if (nv < 64)
            vals[nv++] = v;
        else {
            memmove(vals + 4, vals + 5, 59 * sizeof(*vals));
            vals[63] = v;
        }
    }
    fmag_value *r[2] = {vals[nv - 1], vals[nv - 2]};
    fmag_build_ret(&b, r, 2);
#undef K
    return m;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (!buf || fread(buf, 1, n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

static size_t after(fmag_module *m, const char *pipeline, bool *ok)
{
    fmag_module *c = fmag_module_clone(m);
    *ok = fmag_run_passes(c, pipeline, NULL);
    fmag_context_diag_clear(m->ctx);
    return fmag_module_num_instrs(c);
}

int main(int argc, char **argv)
{
    unsigned size = 5000, reps = 20;
    int first_file = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            printf("usage: fmag-bench-opt [--size N] [--reps R] [realistic.fir ...]\n"
                   "Times -O2 on a generated module of N instructions (default 5000; best\n"
                   "and median of R runs), then for each .fir prints the instructions left\n"
                   "by each pass alone and by -O2 (which must be the fewest).\n");
            return 0;
        }
        if (!strcmp(argv[i], "--version")) {
            printf("fmag-bench-opt %s\n", FMAG_VERSION_STRING);
            return 0;
        }
        if (!strcmp(argv[i], "--emit")) { /* print the generated module (for profiling) */
            fmag_context *c = fmag_context_create();
            fmag_module_print(generate(c, size, 42), stdout, 0);
            fmag_context_destroy(c);
            return 0;
        }
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = (unsigned)strtoul(argv[++i], NULL, 10);
        else {
            first_file = i;
            break;
        }
    }
    if (!reps || reps > 1000) reps = 20;

    fmag_context *ctx = fmag_context_create();
    fmag_module *m = generate(ctx, size, 42);
    if (!fmag_verify_module(m)) {
        fmag_context_diag_print(ctx, stderr);
        return 1;
    }
    size_t blocks = 0;
    fmag_foreach_func (f, m)
        fmag_foreach_block (b, f)
            blocks++;
    double best = 1e30, times[1000], cpu_best = 1e30;
    size_t out_instrs = 0;
    for (unsigned r = 0; r < reps; r++) {
        fmag_context *c2 = fmag_context_create();
        fmag_module *mm = generate(c2, size, 42);
        double c0 = cpu_ms(), t0 = now_ms();
        bool ok = fmag_run_passes(mm, "O2", NULL);
        double t1 = now_ms(), c1 = cpu_ms();
        if (c1 - c0 < cpu_best) cpu_best = c1 - c0;
        if (!ok) {
            fmag_context_diag_print(c2, stderr);
            return 1;
        }
        out_instrs = fmag_module_num_instrs(mm);
        times[r] = t1 - t0;
        if (times[r] < best) best = times[r];
        fmag_context_destroy(c2);
    }
    for (unsigned i = 1; i < reps; i++)
        for (unsigned j = i; j > 0 && times[j - 1] > times[j]; j--) {
            double t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
        }
    printf("-O2 on a generated module: %zu instructions in %zu blocks -> %zu instructions; "
           "wall best %.2f ms, median %.2f ms; cpu best %.2f ms (%u runs)\n",
           fmag_module_num_instrs(m), blocks, out_instrs, best, times[reps / 2], cpu_best, reps);
    fmag_context_destroy(ctx);

    int status = 0;
    for (int i = first_file; i < argc; i++) {
        size_t len;
        char *text = slurp(argv[i], &len);
        fmag_context *c = fmag_context_create();
        fmag_module *fm = text ? fmag_parse_module(c, argv[i], text, len) : NULL;
        if (!fm || !fmag_verify_module(fm)) {
            fprintf(stderr, "fmag-bench-opt: cannot read %s\n", argv[i]);
            fmag_context_diag_print(c, stderr);
            fmag_context_destroy(c);
            free(text);
            status = 1;
            continue;
        }
        bool ok;
        size_t o2 = after(fm, "O2", &ok);
        printf("%s: %zu instructions, -O2 leaves %zu\n  each pass alone (raw):", argv[i],
               fmag_module_num_instrs(fm), o2);
        for (size_t p = 0; p < fmag_pass_count(); p++) {
            const fmag_pass_info *pi = fmag_pass_get(p);
            printf(" %s %zu", pi->name, after(fm, pi->name, &ok));
        }
        /* Lowering needs one flat function per export, so a pass alone is measured
         * with the mandatory flattening (inline, ifconvert) before or after it,
         * whichever leaves less; raw counts above are not comparable for modules
         * whose helpers are called more than once (inlining copies them). */
        size_t base = after(fm, "inline,ifconvert", &ok), best_alone = base;
        printf("\n  flattened (inline,ifconvert = %zu):", base);
        for (size_t p = 0; p < fmag_pass_count(); p++) {
            const fmag_pass_info *pi = fmag_pass_get(p);
            char before_p[128], after_p[128];
            snprintf(before_p, sizeof before_p, "%s,inline,ifconvert", pi->name);
            snprintf(after_p, sizeof after_p, "inline,ifconvert,%s", pi->name);
            bool ok1, ok2;
            size_t n1 = after(fm, before_p, &ok1), n2 = after(fm, after_p, &ok2);
            size_t n = ok1 && (!ok2 || n1 < n2) ? n1 : n2;
            printf(" %s %zu", pi->name, n);
            if ((ok1 || ok2) && n < best_alone) best_alone = n;
        }
        bool good = o2 <= best_alone;
        printf("\n  -> -O2 %zu vs best single pass %zu: %s\n", o2, best_alone,
               good ? "O2 removes at least as much as any pass alone" : "WORSE than a pass alone");
        if (!good) status = 1;
        fmag_context_destroy(c);
        free(text);
    }
    return status;
}
