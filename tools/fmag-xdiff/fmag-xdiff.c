/* fmag-xdiff: cross-engine differential tester. Random per-lane images (each
 * element runs its own random program) with special values in the literals and the
 * inputs (±0, denormals, ±inf, NaN, huge, tiny) run on the reference VM, the batch
 * engine, the Vulkan runner and the CUDA runner where present; every output must be
 * bit-identical to the reference (SPEC §7), except that on a driver reported as
 * flushing float32 denormals an element whose evaluation touches a denormal is
 * counted apart (the documented caveat). A fourth, independent evaluator here
 * checks the reference VM itself and finds the elements that touch denormals.
 *
 * --untrusted: streams that were never validated (random words, and valid headers
 * with hostile register indices and counts) go through the GPU runners: they must
 * end in a result or a refusal, never a crash, a hang or (under the validation
 * layers / compute-sanitizer) an access outside the buffers. */
#include "fmag/Bits.h"
#include "fmag/VM.h"
#include "../common/Rng.h"
#include "Options.h"
#ifdef FMAG_HAVE_GPU
#include "fmag/GPU.h"
#endif

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_IO = 8, MAX_REGS = 24, MAX_INSTR = 40 };

/* A finite value, biased toward the special ones. */
static float special_finite(rng *r)
{
    switch (rndn(r, 16)) {
    case 0:
        return 0.0f;
    case 1:
        return -0.0f;
    case 2:
        return fmag_float_of(1u + rndn(r, 0x7FFFFFu)) * (rndn(r, 2) ? 1.0f : -1.0f); /* denormal */
    case 3:
        return FLT_MIN * (rndn(r, 2) ? 1.0f : -1.0f);
    case 4:
        return FLT_MAX * (rndn(r, 2) ? 1.0f : -1.0f);
    case 5:
        return ldexpf(1.0f + (float)rndn(r, 1000) / 1000.0f, 100 + (int)rndn(r, 27)); /* huge */
    case 6:
        return ldexpf(1.0f + (float)rndn(r, 1000) / 1000.0f, -100 - (int)rndn(r, 26)); /* tiny */
    case 7:
        return 1.0f;
    case 8:
        return -1.0f;
    case 9:
        return 0.5f;
    default: {
        float f = ldexpf((float)((int)rndn(r, 2001) - 1000) / 256.0f, (int)rndn(r, 9) - 4);
        return f;
    }
    }
}

/* An input: anything, infinities and NaN included. */
static float special_input(rng *r)
{
    switch (rndn(r, 12)) {
    case 0:
        return INFINITY;
    case 1:
        return -INFINITY;
    case 2:
        return NAN;
    default:
        return special_finite(r);
    }
}

static uint32_t operand_word(rng *r, unsigned regs)
{
    if (rndn(r, 2)) return fmag_vm_ref_word((uint16_t)rndn(r, regs));
    return fmag_bits_of(special_finite(r));
}

/* A valid random program. */
static void gen_program(rng *r, fmag_vm_program *p, fmag_vm_instr *code, char *name, unsigned idx)
{
    unsigned regs = 1 + rndn(r, MAX_REGS);
    p->regs = (uint16_t)regs;
    p->nin = (uint16_t)rndn(r, (regs < MAX_IO ? regs : MAX_IO) + 1);
    p->nout = (uint16_t)(1 + rndn(r, regs < MAX_IO ? regs : MAX_IO));
    p->ninstr = rndn(r, MAX_INSTR + 1);
    p->flags = 0;
    for (uint32_t k = 0; k < p->ninstr; k++) {
        code[k].b = operand_word(r, regs);
        code[k].c = operand_word(r, regs);
        /* Guards: mostly a register (data-dependent), else a literal true/false. */
        code[k].g = rndn(r, 4) ? fmag_vm_ref_word((uint16_t)rndn(r, regs)) : operand_word(r, regs);
        code[k].da = rndn(r, regs) | (rndn(r, regs) << 16);
    }
    snprintf(name, 32, "p%u", idx);
    p->name = name;
    p->code = code;
}

/* The independent evaluator (SPEC §1): also says whether a denormal appeared in an
 * operand, a guard or a result, for the flushing-driver caveat. */
static void eval(const fmag_vm_program *p, const float *in, float *out, bool *denormal)
{
    float r[MAX_REGS];
    *denormal = false;
    for (unsigned k = 0; k < p->regs; k++) {
        r[k] = k < p->nin ? in[k] : 0.0f;
        *denormal |= fpclassify(r[k]) == FP_SUBNORMAL;
    }
    for (uint32_t i = 0; i < p->ninstr; i++) {
        fmag_vm_instr w = p->code[i];
        float b = fmag_vm_word_is_ref(w.b) ? r[w.b & 0xFFFF] : fmag_float_of(w.b);
        float c = fmag_vm_word_is_ref(w.c) ? r[w.c & 0xFFFF] : fmag_float_of(w.c);
        float g = fmag_vm_word_is_ref(w.g) ? r[w.g & 0xFFFF] : fmag_float_of(w.g);
        unsigned d = w.da & 0xFFFF, a = w.da >> 16;
        *denormal |= fpclassify(g) == FP_SUBNORMAL;
        if (g > 0) {
            float v = fmaf(r[a], b, c);
            *denormal |= fpclassify(r[a]) == FP_SUBNORMAL || fpclassify(b) == FP_SUBNORMAL ||
                         fpclassify(c) == FP_SUBNORMAL || fpclassify(v) == FP_SUBNORMAL;
            r[d] = isnan(v) ? fmag_float_of(FMAG_VM_CANONICAL_NAN) : v;
        }
    }
    for (unsigned k = 0; k < p->nout; k++)
        out[k] = r[k];
}

typedef struct engine {
    const char *name;
    bool flushes_denormals;
#ifdef FMAG_HAVE_GPU
    fmag_gpu_runner *gpu;
#endif
    unsigned long mismatches, excused, elements;
} engine;

static bool run_engine(engine *e, const fmag_vm_program *const *progs, size_t np,
                       const uint32_t *idx, const float *in, float *out, size_t n, char *err,
                       size_t errlen)
{
#ifdef FMAG_HAVE_GPU
    if (e->gpu)
        return fmag_gpu_run_per_lane(e->gpu, progs, np, idx, in, MAX_IO, out, MAX_IO, n, err,
                                     errlen);
#endif
    return fmag_vm_run_per_lane_threads(progs, np, idx, in, MAX_IO, out, MAX_IO, n,
                                        !strcmp(e->name, "batch1") ? 1 : 0, err, errlen);
}

static const fmag_tool xdiff_tool = {
    "fmag-xdiff",
    "usage: fmag-xdiff [--count N] [--seed S] [--lanes L] [--programs K]\n"
    "                  [--engines batch,vulkan,cuda] [--untrusted] [-v]\n"
    "\n"
    "Runs N random per-lane images (K random programs, L elements, special values\n"
    "in literals and inputs; seeds S..S+N-1) on the reference VM and on each engine\n"
    "named (default: batch and every GPU runner that starts) and reports every\n"
    "output that is not bit-identical to the reference, with its seed. On a driver\n"
    "that flushes denormals, elements that touch one are counted apart.\n"
    "Exit 0 when nothing mismatched.\n"
    "\n"
    "options:\n",
    NULL, NULL};

static bool want_engine(const char *list, const char *name)
{
    if (!list) return true;
    size_t n = strlen(name);
    for (const char *s = list; *s;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == n && !strncmp(s, name, n)) return true;
        s += len + (e ? 1 : 0);
    }
    return false;
}

/* Untrusted streams through one GPU runner. Returns the number of launches that
 * ended in a refusal (the rest ran). */
#ifdef FMAG_HAVE_GPU
static void untrusted(engine *e, unsigned long long count, uint64_t seed, unsigned lanes,
                      bool verbose, unsigned long *ran, unsigned long *refused)
{
    static fmag_vm_instr code[4][MAX_INSTR];
    float *in = calloc((size_t)lanes * MAX_IO, sizeof(float));
    float *out = calloc((size_t)lanes * MAX_IO, sizeof(float));
    uint32_t *idx = calloc(lanes, sizeof(uint32_t));
    if (!in || !out || !idx) goto done;
    for (unsigned long long k = 0; k < count; k++) {
        rng r = {(seed + k) * 0x2545F4914F6CDD1Dull + 7};
        fmag_vm_program progs[4];
        const fmag_vm_program *pp[4];
        char names[4][32];
        unsigned np = 1 + rndn(&r, 4);
        for (unsigned q = 0; q < np; q++) {
            fmag_vm_program *p = &progs[q];
            memset(p, 0, sizeof *p);
            unsigned kind = rndn(&r, 3);
            p->regs = (uint16_t)(kind == 0 ? rnd64(&r) : 1 + rndn(&r, MAX_REGS));
            p->nin = (uint16_t)(kind == 2 ? rndn(&r, 70000) : rndn(&r, MAX_IO + 1));
            p->nout = (uint16_t)(kind == 2 ? rndn(&r, 70000) : rndn(&r, MAX_IO + 1));
            p->ninstr = rndn(&r, MAX_INSTR + 1);
            for (uint32_t i = 0; i < p->ninstr; i++) {
                if (kind == 0) { /* random words */
                    code[q][i].b = (uint32_t)rnd64(&r);
                    code[q][i].c = (uint32_t)rnd64(&r);
                    code[q][i].g = (uint32_t)rnd64(&r);
                    code[q][i].da = (uint32_t)rnd64(&r);
                } else { /* plausible words, hostile indices: anything up to 0xFFFF */
                    code[q][i].b = rndn(&r, 2) ? FMAG_VM_REF_TAG | (uint32_t)rndn(&r, 65536)
                                               : fmag_bits_of(special_finite(&r));
                    code[q][i].c = rndn(&r, 2) ? FMAG_VM_REF_TAG | (uint32_t)rndn(&r, 65536)
                                               : fmag_bits_of(special_finite(&r));
                    code[q][i].g = rndn(&r, 8) ? FMAG_VM_REF_TAG | (uint32_t)rndn(&r, 65536)
                                               : 0x7F800000u; /* inf word */
                    code[q][i].da = (uint32_t)rnd64(&r);
                }
            }
            snprintf(names[q], sizeof names[q], "u%u", q);
            p->name = names[q];
            p->code = code[q];
            pp[q] = p;
        }
        unsigned n = 1 + rndn(&r, lanes);
        for (unsigned j = 0; j < n; j++) {
            idx[j] = rndn(&r, np);
            for (unsigned q = 0; q < MAX_IO; q++)
                in[(size_t)j * MAX_IO + q] = special_input(&r);
        }
        char err[256] = "";
        if (fmag_gpu_run_per_lane(e->gpu, pp, np, idx, in, MAX_IO, out, MAX_IO, n, err, sizeof err))
            ++*ran;
        else {
            ++*refused;
            if (verbose)
                fprintf(stderr, "fmag-xdiff: %s refused seed %llu: %s\n", e->name,
                        (unsigned long long)(seed + k), err);
        }
    }
done:
    free(in);
    free(out);
    free(idx);
}
#endif

int main(int argc, char **argv)
{
    unsigned long long count = 100, seed = 1, lanes = 256, nprogs = 16;
    const char *engines = NULL;
    bool verbose = false, untrusted_mode = false;
    enum { EQN = FMAG_OPT_EQ_OR_NEXT };
    const fmag_option table[] = {
        {"--count", EQN, FMAG_OPT_UINT, &count, NULL, "N", "images (default 100)"},
        {"--seed", EQN, FMAG_OPT_UINT, &seed, NULL, "S", "first seed (default 1)"},
        {"--lanes", EQN, FMAG_OPT_UINT, &lanes, NULL, "L",
         "elements per image (default 256; 1 to 1048576)"},
        {"--programs", EQN, FMAG_OPT_UINT, &nprogs, NULL, "K",
         "programs per image (default 16; 1 to 4096)"},
        {"--engines", EQN, FMAG_OPT_STRING, &engines, NULL, "LIST",
         "comma-separated: batch, batch1, vulkan, cuda (one named\n"
         "but not started is a failure)"},
        {"--untrusted", 0, FMAG_OPT_FLAG, &untrusted_mode, NULL, NULL,
         "unvalidated streams (random words; hostile register indices\n"
         "and counts behind valid headers) through the GPU runners: no\n"
         "crash, no hang"},
        {"-v", 0, FMAG_OPT_FLAG, &verbose, NULL, NULL, "print each refusal"},
    };
    const fmag_opt_parser parser = {&xdiff_tool, table, sizeof table / sizeof *table,
                                    NULL,        NULL,  NULL};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    char v[24];
    if (lanes == 0 || lanes > 1u << 20) {
        snprintf(v, sizeof v, "%llu", (unsigned long long)lanes);
        return !fmag_opt_invalid_value(&xdiff_tool, "--lanes", v, "1 to 1048576");
    }
    if (nprogs == 0 || nprogs > 4096) {
        snprintf(v, sizeof v, "%llu", (unsigned long long)nprogs);
        return !fmag_opt_invalid_value(&xdiff_tool, "--programs", v, "1 to 4096");
    }
    engine eng[4];
    unsigned neng = 0;
    memset(eng, 0, sizeof eng);
    if (want_engine(engines, "batch")) eng[neng++].name = "batch";
    if (want_engine(engines, "batch1")) eng[neng++].name = "batch1";
#ifdef FMAG_HAVE_GPU
    static const struct {
        const char *name;
        fmag_gpu_api api;
    } gpus[] = {{"vulkan", FMAG_GPU_VULKAN}, {"cuda", FMAG_GPU_CUDA}};
    for (unsigned g = 0; g < 2; g++) {
        if (!want_engine(engines, gpus[g].name)) continue;
        char err[256];
        fmag_gpu_runner *r = fmag_gpu_runner_create(gpus[g].api, err, sizeof err);
        if (!r) {
            printf("fmag-xdiff: %s: not run: %s\n", gpus[g].name, err);
            if (engines) return 1; /* asked for by name: its absence is a failure */
            continue;
        }
        const char *desc = fmag_gpu_runner_describe(r);
        printf("fmag-xdiff: %s\n", desc);
        eng[neng].name = gpus[g].name;
        eng[neng].gpu = r;
        eng[neng].flushes_denormals = strstr(desc, "denormals: flushed") != NULL;
        neng++;
    }
#endif
    if (untrusted_mode) {
#ifdef FMAG_HAVE_GPU
        bool any = false;
        for (unsigned k = 0; k < neng; k++) {
            if (!eng[k].gpu) continue;
            unsigned long ran = 0, refused = 0;
            untrusted(&eng[k], count, seed, (unsigned)lanes, verbose, &ran, &refused);
            printf("fmag-xdiff: untrusted: %s: %llu launches (seeds %llu..%llu): %lu ran, %lu "
                   "refused, no crash\n",
                   eng[k].name, count, seed, seed + count - 1, ran, refused);
            any = true;
            fmag_gpu_runner_destroy(eng[k].gpu);
        }
        return any ? 0 : 1;
#else
        return fmag_tool_error(&xdiff_tool, "--untrusted needs the GPU runners (not built)");
#endif
    }

    fmag_vm_program *progs = calloc(nprogs, sizeof *progs);
    const fmag_vm_program **pp = calloc(nprogs, sizeof *pp);
    fmag_vm_instr *code = calloc(nprogs * MAX_INSTR, sizeof *code);
    char(*names)[32] = calloc(nprogs, sizeof *names);
    uint32_t *idx = calloc(lanes, sizeof *idx);
    float *in = calloc(lanes * MAX_IO, sizeof(float));
    float *want = calloc(lanes * MAX_IO, sizeof(float));
    float *got = calloc(lanes * MAX_IO, sizeof(float));
    if (!progs || !pp || !code || !names || !idx || !in || !want || !got) {
        return fmag_tool_error(&xdiff_tool, "out of memory");
    }
    unsigned long long elements = 0, oracle_bad = 0, failed_runs = 0;
    for (unsigned long long k = 0; k < count; k++) {
        uint64_t s = seed + k;
        rng r = {s * 0x2545F4914F6CDD1Dull + 1};
        for (size_t q = 0; q < nprogs; q++) {
            gen_program(&r, &progs[q], code + q * MAX_INSTR, names[q], (unsigned)q);
            pp[q] = &progs[q];
        }
        for (size_t j = 0; j < lanes; j++) {
            idx[j] = rndn(&r, (unsigned)nprogs);
            for (unsigned q = 0; q < MAX_IO; q++)
                in[j * MAX_IO + q] = special_input(&r);
        }
        char err[256];
        if (!fmag_vm_run_ref_per_lane(pp, nprogs, idx, in, MAX_IO, want, MAX_IO, lanes, err,
                                      sizeof err)) {
            fprintf(stderr, "fmag-xdiff: seed %llu: the reference VM refused: %s\n",
                    (unsigned long long)s, err);
            failed_runs++;
            continue;
        }
        bool *touched = calloc(lanes, sizeof *touched);
        for (size_t j = 0; j < lanes && touched; j++) {
            float o[MAX_IO];
            const fmag_vm_program *p = pp[idx[j]];
            eval(p, in + j * MAX_IO, o, &touched[j]);
            for (unsigned q = 0; q < p->nout; q++)
                if (fmag_bits_of(o[q]) != fmag_bits_of(want[j * MAX_IO + q])) {
                    oracle_bad++;
                    fprintf(stderr,
                            "fmag-xdiff: seed %llu element %zu output %u: reference VM %08x, "
                            "independent evaluator %08x\n",
                            (unsigned long long)s, j, q, fmag_bits_of(want[j * MAX_IO + q]),
                            fmag_bits_of(o[q]));
                }
        }
        elements += lanes;
        for (unsigned e = 0; e < neng; e++) {
            memset(got, 0, lanes * MAX_IO * sizeof(float));
            if (!run_engine(&eng[e], pp, nprogs, idx, in, got, lanes, err, sizeof err)) {
                fprintf(stderr, "fmag-xdiff: seed %llu: %s failed: %s\n", (unsigned long long)s,
                        eng[e].name, err);
                failed_runs++;
                continue;
            }
            eng[e].elements += lanes;
            for (size_t j = 0; j < lanes; j++) {
                const fmag_vm_program *p = pp[idx[j]];
                bool same = true;
                for (unsigned q = 0; q < p->nout; q++)
                    same &= fmag_bits_of(got[j * MAX_IO + q]) == fmag_bits_of(want[j * MAX_IO + q]);
                if (same) continue;
                if (eng[e].flushes_denormals && touched && touched[j]) {
                    eng[e].excused++;
                    continue;
                }
                if (eng[e].mismatches++ < 10 || verbose)
                    fprintf(stderr,
                            "fmag-xdiff: MISMATCH %s seed %llu element %zu (program %u): "
                            "output 0 %08x, reference %08x\n",
                            eng[e].name, (unsigned long long)s, j, idx[j],
                            fmag_bits_of(got[j * MAX_IO]), fmag_bits_of(want[j * MAX_IO]));
            }
        }
        free(touched);
    }
    unsigned long long mism = oracle_bad + failed_runs;
    printf("fmag-xdiff: %llu images (seeds %llu..%llu), %llu programs, %llu elements; reference "
           "VM vs independent evaluator: %llu mismatches\n",
           count, seed, seed + count - 1, count * nprogs, elements, oracle_bad);
    for (unsigned e = 0; e < neng; e++) {
        printf("fmag-xdiff: %s: %lu elements, %lu mismatches", eng[e].name, eng[e].elements,
               eng[e].mismatches);
        if (eng[e].flushes_denormals)
            printf(", %lu differing where a denormal appears (driver flushes denormals)",
                   eng[e].excused);
        printf("\n");
        mism += eng[e].mismatches;
#ifdef FMAG_HAVE_GPU
        if (eng[e].gpu) fmag_gpu_runner_destroy(eng[e].gpu);
#endif
    }
    printf("fmag-xdiff: %s\n", mism ? "FAIL" : "PASS");
    free(progs);
    free(pp);
    free(code);
    free(names);
    free(idx);
    free(in);
    free(want);
    free(got);
    return mism ? 1 : 0;
}
