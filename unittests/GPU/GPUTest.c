/* Unit tests of lib/GPU: every available back end (Vulkan, CUDA) against the reference VM,
 * bit for bit, on random streams, per-lane programs, fma cancellation cases and untrusted
 * streams; plus the host-side stream helpers. A back end without a driver is reported as
 * "skipped: ..." (exit 77 when nothing could run at all, which CTest shows as skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmag/Bits.h"
#include "fmag/GPU.h"
#include "../../lib/GPU/GPUBench.h"
#include "../../lib/GPU/fmag_gpu_host.h"

static int failures;
#define EXPECT(c, ...)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            ++failures;                                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static uint32_t rng_state = 2463534242u;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static float bits(uint32_t u)
{
    return fmag_float_of(u);
}
static uint32_t fbits(float f)
{
    return fmag_bits_of(f);
}

/* A literal that is neither NaN nor infinite, from a spread of magnitudes and signs. */
static float rnd_literal(void)
{
    static const float pick[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, -3.25f, 1e-3f, 1e6f};
    if (rnd() % 3 == 0) return pick[rnd() % (sizeof pick / sizeof pick[0])];
    return (float)((int)(rnd() % 2001) - 1000) / 256.0f;
}

static void random_program(fmag_vm_program *p, fmag_vm_instr *code, uint32_t n, uint16_t regs,
                           uint16_t nin, uint16_t nout)
{
    for (uint32_t i = 0; i < n; ++i) {
        uint16_t d = (uint16_t)(rnd() % regs), a = (uint16_t)(rnd() % regs);
        code[i].b = rnd() % 3 ? fbits(rnd_literal()) : fmag_vm_ref_word((uint16_t)(rnd() % regs));
        code[i].c = rnd() % 2 ? fbits(rnd_literal()) : fmag_vm_ref_word((uint16_t)(rnd() % regs));
        code[i].g = rnd() % 4 == 0   ? fmag_vm_ref_word((uint16_t)(rnd() % regs))
                    : rnd() % 8 == 0 ? fbits(-1.0f)
                                     : fbits(1.0f);
        code[i].da = (uint32_t)d | ((uint32_t)a << 16);
    }
    memset(p, 0, sizeof *p);
    p->name = (char *)"random";
    p->regs = regs, p->nin = nin, p->nout = nout, p->ninstr = n, p->code = code;
}

static float rnd_input(bool denormals)
{
    switch (rnd() % 8) {
    case 0:
        return 0.0f;
    case 1:
        return -0.0f;
    case 2:
        return denormals ? bits(rnd() % 0x7FFFFFu + 1) : 1.0f;
    default:
        return (float)((int)(rnd() % 4001) - 2000) / 500.0f;
    }
}

/* Bit for bit, NaNs included: every engine stores a computed NaN as
 * FMAG_VM_CANONICAL_NAN. */
static bool same(float a, float b)
{
    return fbits(a) == fbits(b);
}
/* The CPU emulations of the CUDA pre-decoders model the kernels' data flow, not the
 * NaN bits of C's fmaf (the CUDA runner canonicalizes those on read-back). */
static bool same_modulo_nan(float a, float b)
{
    return same(a, b) || (isnan(a) && isnan(b));
}

/* True when any value of the reference evaluation is a denormal (a driver that flushes them
 * may differ exactly there). */
static bool touches_denormal(const fmag_vm_program *p, const float *in)
{
    float r[512];
    for (uint32_t i = 0; i < p->regs; ++i) {
        r[i] = i < p->nin ? in[i] : 0.0f;
        if (fpclassify(r[i]) == FP_SUBNORMAL) return true;
    }
    for (uint32_t i = 0; i < p->ninstr; ++i) {
        fmag_vm_decoded d;
        fmag_vm_decode(p->code[i], &d);
        float b = d.b.is_reg ? r[d.b.reg] : d.b.imm, c = d.c.is_reg ? r[d.c.reg] : d.c.imm;
        float g = d.g.is_reg ? r[d.g.reg] : d.g.imm;
        float v = fmaf(r[d.a], b, c);
        if (fpclassify(v) == FP_SUBNORMAL || fpclassify(r[d.a] * b) == FP_SUBNORMAL) return true;
        if (g > 0) r[d.d] = v;
    }
    return false;
}

/* Runs progs per lane on the GPU and on the reference VM; counts mismatching elements. */
static int compare(fmag_gpu_runner *r, const fmag_vm_program *const *progs, size_t nprogs,
                   const uint32_t *idx, size_t n, bool flushes, const char *what)
{
    size_t is = 0, os = 0;
    for (size_t k = 0; k < nprogs; ++k) {
        if (progs[k]->nin > is) is = progs[k]->nin;
        if (progs[k]->nout > os) os = progs[k]->nout;
    }
    is = is ? is : 1, os = os ? os : 1;
    float *in = malloc(sizeof(float) * n * is), *out = malloc(sizeof(float) * n * os);
    float *ref = malloc(sizeof(float) * n * os);
    float *regs = malloc(sizeof(float) * 65536);
    for (size_t i = 0; i < n * is; ++i)
        in[i] = rnd_input(!flushes);
    for (size_t i = 0; i < n * os; ++i)
        out[i] = ref[i] = bits(0x7FBADBADu);
    char err[256] = "";
    /* one program for every element: through fmag_gpu_run, the uniform entry point */
    bool ok = !idx && nprogs == 1 ? fmag_gpu_run(r, progs[0], in, is, out, os, n, err, sizeof err)
                                  : fmag_gpu_run_per_lane(r, progs, nprogs, idx, in, is, out, os, n,
                                                          err, sizeof err);
    EXPECT(ok, "%s: %s", what, err);
    int bad = 0;
    for (size_t e = 0; ok && e < n; ++e) {
        const fmag_vm_program *p = progs[idx ? idx[e] : 0];
        fmag_vm_run(p, in + e * is, ref + e * os, regs);
        if (flushes && touches_denormal(p, in + e * is)) continue;
        for (uint32_t i = 0; i < p->nout; ++i)
            if (!same(out[e * os + i], ref[e * os + i])) {
                if (bad < 3)
                    printf("  %s: element %zu output %u: gpu %a (0x%08x) ref %a (0x%08x)\n", what,
                           e, i, out[e * os + i], fbits(out[e * os + i]), ref[e * os + i],
                           fbits(ref[e * os + i]));
                ++bad;
                break;
            }
    }
    EXPECT(bad == 0, "%s: %d of %zu elements differ from the reference VM", what, bad, n);
    free(in), free(out), free(ref), free(regs);
    return bad;
}

/* Plants FMAG's select idiom (X = copy or constant; X = g > 0 ? ... : X) in 3 of 4
 * pairs of instructions, with few register guards elsewhere, as compiled programs have: the
 * CUDA runner runs such programs with its select-fusing kernel. */
/* FMAG's select idiom (X = copy or constant; X = g > 0 ? ... : X) planted on instruction
 * pairs, each pair unless rnd() % odds is 0. */
static void plant_select_pairs(fmag_vm_program *p, fmag_vm_instr *code, uint32_t odds)
{
    for (uint32_t i = 0; i + 1 < p->ninstr; i += 2)
        if (rnd() % odds) {
            code[i].b = fbits(rnd() % 2 ? 1.0f : 0.0f);
            code[i].c = fbits(rnd_literal());
            code[i].g = fbits(1.0f);
            code[i + 1].da = (code[i + 1].da & 0xFFFF0000u) | (code[i].da & 0xFFFFu);
            code[i + 1].g = fmag_vm_ref_word((uint16_t)(rnd() % p->regs));
        }
}

static void plant_selects(fmag_vm_program *p, fmag_vm_instr *code)
{
    for (uint32_t i = 0; i < p->ninstr; ++i)
        if (fmag_gpu_is_ref(code[i].g) && rnd() % 4) code[i].g = fbits(1.0f);
    plant_select_pairs(p, code, 4);
}

/* Every shape of run on runner r. `full` is for the runner's automatic choice; each design
 * and knob that the runner can be forced to gets the short form (quick): register sizes
 * on both sides of the specialization boundaries rather than all eight, and the per-lane
 * runs with random indices and with a long program only. Every pipeline is compiled
 * on first use, and on lavapipe that compile was most of the time: 233 of 376 s of the
 * first scripts/test.sh on a fresh machine (issue 31; docs/Testing.md's quarter rule). */
static void test_backend(fmag_gpu_runner *r, bool full)
{
    bool flushes = strstr(fmag_gpu_runner_describe(r), "flushed") != NULL;
    /* uniform random streams at several register-file sizes (specializations) */
    static const uint16_t all_sizes[] = {1, 3, 8, 16, 17, 40, 100, 300};
    static const uint16_t quick_sizes[] = {3, 17, 300};
    const uint16_t *sizes = full ? all_sizes : quick_sizes;
    size_t nsizes = full ? sizeof all_sizes / sizeof all_sizes[0] : 3;
    for (size_t s = 0; s < nsizes; ++s) {
        uint16_t regs = sizes[s];
        fmag_vm_instr code[200];
        fmag_vm_program p;
        random_program(&p, code, 200, regs, regs < 4 ? regs : 4, regs < 2 ? regs : 2);
        const fmag_vm_program *pp = &p;
        char what[64];
        snprintf(what, sizeof what, "uniform regs=%u", regs);
        compare(r, &pp, 1, NULL, 3000, flushes, what);
    }
    /* uniform programs full of select idioms (the fused kernels) */
    static const uint16_t all_sel_sizes[] = {5, 8, 13, 16, 32};
    static const uint16_t quick_sel_sizes[] = {8, 32};
    const uint16_t *sel_sizes = full ? all_sel_sizes : quick_sel_sizes;
    size_t nsel = full ? sizeof all_sel_sizes / sizeof all_sel_sizes[0] : 2;
    for (size_t s = 0; s < nsel; ++s) {
        fmag_vm_instr code[120];
        fmag_vm_program p;
        random_program(&p, code, 120, sel_sizes[s], 4, 3);
        plant_selects(&p, code);
        fmag_gpu_word4 pd[120];
        uint32_t npd = fmag_gpu_predecode_sel((const fmag_gpu_word4 *)code, p.ninstr,
                                              fmag_gpu_pow2_regs(p.regs), pd),
                 fused = 0;
        for (uint32_t i = 0; i < npd; ++i)
            fused += (pd[i].da >> 16) >= 8u;
        EXPECT(fused * 10 >= npd, "regs=%u: only %u of %u records fuse", p.regs, fused, npd);
        const fmag_vm_program *pp = &p;
        char what[64];
        snprintf(what, sizeof what, "uniform selects regs=%u", sel_sizes[s]);
        compare(r, &pp, 1, NULL, 3000, flushes, what);
    }
    /* per-lane: 37 programs of different shapes, every lane a different program */
    {
        enum { NP = 37, N = 5000 };
        static fmag_vm_instr code[NP][64];
        fmag_vm_program p[NP];
        const fmag_vm_program *pp[NP];
        for (int k = 0; k < NP; ++k) {
            uint16_t regs = (uint16_t)(2 + rnd() % 15);
            random_program(&p[k], code[k], 1 + rnd() % 64, regs, (uint16_t)(1 + rnd() % 2),
                           (uint16_t)(1 + rnd() % 2));
            pp[k] = &p[k];
        }
        uint32_t *idx = malloc(sizeof(uint32_t) * N);
        for (int e = 0; e < N; ++e)
            idx[e] = rnd() % NP;
        compare(r, pp, NP, idx, N, flushes, "per-lane random");
        if (full) {
            /* the same with the K-elements-share-a-program pattern the CUDA runner exploits */
            for (int e = 0; e < N; ++e)
                idx[e] = (uint32_t)(e % 32) % NP;
            compare(r, pp, NP, idx, N, flushes, "per-lane lane-pattern");
            /* small register files (the CUDA runner's 8-elements-a-thread kernels) */
            for (int k = 0; k < NP; ++k) {
                uint16_t regs = (uint16_t)(1 + rnd() % 4);
                random_program(&p[k], code[k], 1 + rnd() % 64, regs, 1, 1);
            }
            compare(r, pp, NP, idx, N, flushes, "per-lane small lane-pattern");
            compare(r, pp, 1, NULL, N, flushes, "uniform small");
            /* programs that agree on every instruction's operand kinds (the CUDA runner's
             * uniform-branch kernels): one random shape, registers and literals drawn anew */
            for (int sz = 0; sz < 2; ++sz) {
                uint16_t regs = sz ? 12 : 3;
                random_program(&p[0], code[0], 40, regs, 1, 1);
                for (int k = 1; k < NP; ++k) {
                    p[k] = p[0];
                    p[k].code = code[k];
                    for (uint32_t i = 0; i < p[0].ninstr; ++i) {
                        uint32_t w[4];
                        memcpy(w, &code[0][i], sizeof w);
                        for (int s = 0; s < 3; ++s)
                            w[s] = fmag_gpu_is_ref(w[s]) ? fmag_vm_ref_word(rnd() % regs)
                                                         : fbits(rnd_literal());
                        w[3] = rnd() % regs | (rnd() % regs) << 16;
                        memcpy(&code[k][i], w, sizeof w);
                    }
                }
                static fmag_gpu_word4 il[64 * NP];
                for (uint32_t i = 0; i < p[0].ninstr; ++i)
                    for (int k = 0; k < NP; ++k)
                        memcpy(&il[i * NP + k], &code[k][i], sizeof il[0]);
                EXPECT(fmag_gpu_lane_kinds_agree(il, p[0].ninstr, NP), "kinds must agree");
                /* an instruction that writes (guard 1.0) with another c kind breaks agreement;
                 * a no-op (guard 0.0, as the padding of a shorter program) does not */
                fmag_gpu_word4 saved[2] = {il[0], il[1]};
                for (int k = 0; k < 2; ++k)
                    if (!fmag_gpu_is_ref(il[k].g)) il[k].g = fbits(1.0f);
                EXPECT(fmag_gpu_lane_kinds_agree(il, p[0].ninstr, NP), "kinds agree, guards 1");
                il[1].c = fmag_gpu_is_ref(il[1].c) ? fbits(1.0f) : fmag_vm_ref_word(0);
                EXPECT(!fmag_gpu_lane_kinds_agree(il, p[0].ninstr, NP), "one c kind differs");
                il[1].g = fbits(0.0f);
                EXPECT(fmag_gpu_lane_kinds_agree(il, p[0].ninstr, NP), "a no-op does not count");
                il[0] = saved[0], il[1] = saved[1];
                compare(r, pp, NP, idx, N, flushes, "per-lane same kinds lane-pattern");
                for (int e = 0; e < N; ++e)
                    idx[e] = rnd() % NP;
                compare(r, pp, NP, idx, N, flushes, "per-lane same kinds random");
                for (int e = 0; e < N; ++e)
                    idx[e] = (uint32_t)(e % 32) % NP;
            }
        }
        /* one long program among short ones: interleaving would pad too much, so the Vulkan
         * runner stores the programs one after another */
        static fmag_vm_instr longcode[300];
        random_program(&p[0], longcode, 300, 12, 2, 2);
        for (int k = 1; k < 8; ++k)
            random_program(&p[k], code[k], 2, 3, 1, 1);
        for (int e = 0; e < N; ++e)
            idx[e] = rnd() % 8;
        compare(r, pp, 8, idx, N, flushes, "per-lane one long program");
        free(idx);
    }
    /* fma must be fused: a*b + -(a*b rounded) keeps the product's rounding error */
    {
        fmag_vm_instr code[1] = {{fmag_vm_ref_word(1), fmag_vm_ref_word(2), fbits(1.0f), 0}};
        fmag_vm_program p = {(char *)"fma", 0, 3, 3, 1, 1, code, 0};
        const fmag_vm_program *pp = &p;
        enum { N = 4096 };
        float *in = malloc(sizeof(float) * 3 * N), out[N];
        for (int k = 0; k < N; ++k) {
            float a = 1.0f + (float)(rnd() >> 8) / 16777216.0f, b = (float)(rnd() >> 8) / 65536.0f;
            in[3 * k] = a, in[3 * k + 1] = b, in[3 * k + 2] = -(a * b);
        }
        char err[256] = "";
        bool ok = fmag_gpu_run_per_lane(r, &pp, 1, NULL, in, 3, out, 1, N, err, sizeof err);
        EXPECT(ok, "fma: %s", err);
        int bad = 0;
        for (int k = 0; ok && k < N; ++k)
            bad += fbits(out[k]) != fbits(fmaf(in[3 * k], in[3 * k + 1], in[3 * k + 2]));
        EXPECT(bad == 0, "fma: %d of %d cancellation cases not single-rounded", bad, N);
        free(in);
    }
    /* computed NaNs (inf*0, inf-inf, NaN inputs with payloads and signs) come back as the
     * reference's canonical NaN; a NaN input the guard leaves alone keeps its bits */
    {
        fmag_vm_instr code[2] = {{fmag_vm_ref_word(1), fmag_vm_ref_word(2), fbits(1.0f), 0},
                                 {fbits(1.0f), fbits(0.0f), fbits(-1.0f), 3u}};
        fmag_vm_program p = {(char *)"nan", 0, 4, 4, 4, 2, code, 0};
        const fmag_vm_program *pp = &p;
        float in[][4] = {{INFINITY, 0.0f, 1.0f, bits(0xFFC12345u)},
                         {INFINITY, 1.0f, -INFINITY, 0.0f},
                         {bits(0x7FC0BEEFu), 1.0f, 0.0f, bits(0x7FA00001u)},
                         {bits(0xFFFFFFFFu), 2.0f, 3.0f, 0.0f},
                         {2.0f, bits(0xFF800001u), 3.0f, 0.0f},
                         /* NVIDIA's arithmetic NaN as an input the guard leaves alone, next
                          * to a computed NaN and to the CUDA runner's substitute patterns */
                         {INFINITY, 0.0f, 1.0f, bits(0x7FFFFFFFu)},
                         {bits(0x7FFFFFFFu), 1.0f, 0.0f, bits(0x7FFFFFFEu)},
                         {1.0f, 1.0f, 0.0f, bits(0x7FFFFF80u)}};
        enum { N = sizeof in / sizeof in[0] };
        float out[N][4], ref[N][4], regs[4];
        char err[256] = "";
        EXPECT(
            fmag_gpu_run_per_lane(r, &pp, 1, NULL, &in[0][0], 4, &out[0][0], 4, N, err, sizeof err),
            "nan: %s", err);
        for (int k = 0; k < N; ++k) {
            fmag_vm_run(&p, in[k], ref[k], regs);
            EXPECT(fbits(out[k][0]) == fbits(ref[k][0]) && fbits(out[k][3]) == fbits(ref[k][3]),
                   "nan case %d: got %08x %08x, reference %08x %08x", k, fbits(out[k][0]),
                   fbits(out[k][3]), fbits(ref[k][0]), fbits(ref[k][3]));
        }
        EXPECT(fbits(ref[0][0]) == FMAG_VM_CANONICAL_NAN && fbits(ref[0][3]) == 0xFFC12345u,
               "nan: the reference itself must canonicalize computed NaNs only");
    }
    /* columns past a program's outputs keep what the caller had there (as on the CPU) */
    {
        fmag_vm_instr code[1] = {{fmag_vm_ref_word(1), fbits(1.0f), fbits(1.0f), 0}};
        fmag_vm_program p1 = {(char *)"one", 0, 2, 2, 1, 1, code, 0};
        fmag_vm_program p2 = {(char *)"two", 0, 2, 2, 2, 1, code, 0};
        const fmag_vm_program *pp[2] = {&p1, &p2};
        enum { N = 300 };
        float in[2 * N], out[3 * N];
        uint32_t idx[N];
        for (int e = 0; e < N; ++e)
            in[2 * e] = (float)e, in[2 * e + 1] = 2.0f, idx[e] = (uint32_t)e % 2;
        for (int e = 0; e < 3 * N; ++e)
            out[e] = -7.5f;
        char err[256] = "";
        EXPECT(fmag_gpu_run_per_lane(r, pp, 2, idx, in, 2, out, 3, N, err, sizeof err),
               "columns: %s", err);
        int bad = 0;
        for (int e = 0; e < N; ++e) {
            float want[3] = {(float)e * 2.0f + 1.0f, e % 2 ? 2.0f : -7.5f, -7.5f};
            for (int i = 0; i < 3; ++i)
                bad += fbits(out[3 * e + i]) != fbits(want[i]);
        }
        EXPECT(bad == 0, "columns: %d of %d output words differ", bad, 3 * N);
    }
    /* zero instructions: outputs are the inputs, then zeros */
    {
        fmag_vm_program p = {(char *)"empty", 0, 4, 2, 3, 0, NULL, 0};
        const fmag_vm_program *pp = &p;
        float in[4] = {1.5f, -0.0f, 7.0f, 8.0f}, out[6];
        char err[256] = "";
        EXPECT(fmag_gpu_run_per_lane(r, &pp, 1, NULL, in, 2, out, 3, 2, err, sizeof err),
               "empty: %s", err);
        EXPECT(fbits(out[0]) == fbits(1.5f) && fbits(out[1]) == 0x80000000u && out[2] == 0.0f &&
                   out[3] == 7.0f && out[4] == 8.0f && fbits(out[5]) == 0,
               "empty program: outputs must be inputs then +0");
    }
    /* an untrusted (never validated) stream with wild indices must not escape its file */
    {
        fmag_vm_instr code[64];
        for (int i = 0; i < 64; ++i) {
            code[i].b = 0x7FC00000u | (rnd() & 0xFFFFu);
            code[i].c = 0xFFFFFFFFu - (rnd() & 0xFFFFu); /* a negative-NaN reference */
            code[i].g = 0x7F800001u | (rnd() & 0x3FFFFFu);
            code[i].da = rnd();
        }
        fmag_vm_program p = {(char *)"wild", 0, 4, 2, 2, 64, code, 0};
        const fmag_vm_program *pp = &p;
        float in[2 * 256], out[2 * 256];
        for (int i = 0; i < 512; ++i)
            in[i] = (float)i;
        char err[256] = "";
        EXPECT(fmag_gpu_run_per_lane(r, &pp, 1, NULL, in, 2, out, 2, 256, err, sizeof err),
               "wild stream: %s", err);
    }
    /* argument errors are reported, not crashed on */
    {
        fmag_vm_program p = {(char *)"one", 0, 2, 1, 1, 0, NULL, 0};
        const fmag_vm_program *pp = &p;
        float in[2] = {1, 2}, out[2];
        uint32_t idx[2] = {0, 5};
        char err[256] = "";
        EXPECT(!fmag_gpu_run_per_lane(r, &pp, 1, idx, in, 1, out, 1, 2, err, sizeof err) &&
                   strstr(err, "out of range"),
               "bad program index must fail: '%s'", err);
        err[0] = 0;
        EXPECT(!fmag_gpu_run_per_lane(r, &pp, 1, NULL, in, 0, out, 1, 2, err, sizeof err) && err[0],
               "stride smaller than nin must fail");
    }
    /* the benchmark entry point computes the same as the plain run for evals == 1 */
    {
        fmag_vm_instr code[32];
        fmag_vm_program p;
        random_program(&p, code, 32, 8, 2, 2);
        const fmag_vm_program *pp = &p;
        float in[2 * 512], a[2 * 512], b[2 * 512];
        for (int i = 0; i < 1024; ++i)
            in[i] = rnd_input(false);
        double ms = -1;
        char err[256] = "";
        bool ok =
            fmag_gpu_run_per_lane(r, &pp, 1, NULL, in, 2, a, 2, 512, err, sizeof err) &&
            fmag_gpu_time_per_lane(r, &pp, 1, NULL, in, 2, b, 2, 512, 1, 3, &ms, err, sizeof err);
        EXPECT(ok && ms >= 0.0, "timing: %s", err);
        int bad = 0;
        for (int i = 0; ok && i < 1024; ++i)
            bad += !same(a[i], b[i]);
        EXPECT(bad == 0, "timing run differs from plain run in %d outputs", bad);
    }
}

/* fmag_vm_check_lane_args (lib/VM/LaneArgs.c), which the GPU runners share with the CPU
 * engines: each refusal once, worked out by hand. */
/* Reference outputs of a uniform program: ref[e * nout + i] (the reference VM). */
static void reference_rows(const fmag_vm_program *p, const float *in, size_t n, float *ref)
{
    float *regs = malloc(sizeof(float) * 65536);
    for (size_t e = 0; e < n; ++e)
        fmag_vm_run(p, in + e * p->nin, ref + e * p->nout, regs);
    free(regs);
}

/* Elements whose outputs differ from ref ([n][nout]), skipping those that touch a denormal
 * on a flushing driver; got(e, i) is output i of element e. */
#define COUNT_BAD(bad, p, in, n, ref, flushes, got)                                                \
    do {                                                                                           \
        bad = 0;                                                                                   \
        for (size_t e = 0; e < (n); ++e) {                                                         \
            if ((flushes) && touches_denormal((p), (in) + e * (p)->nin)) continue;                 \
            for (uint32_t i = 0; i < (p)->nout; ++i)                                               \
                if (!same((got), (ref)[e * (p)->nout + i])) {                                      \
                    ++bad;                                                                         \
                    break;                                                                         \
                }                                                                                  \
        }                                                                                          \
    } while (0)

/* The ways into a runner give the reference VM's bits: rows, the chunked copies, columns
 * (structure of arrays), rows with an output stride wider than the program's outputs; and a
 * runner keeps its buffers across calls, growing them only for a larger call. Inputs hold
 * the NaN 0x7FFFFFFF and the CUDA runner's substitute patterns. */
static void test_call_paths(fmag_gpu_runner *r)
{
    bool flushes = strstr(fmag_gpu_runner_describe(r), "flushed") != NULL;
    enum { N = 5000, BIG = 12000, NIN = 4, NOUT = 3 };
    fmag_vm_instr code[120];
    fmag_vm_program p;
    random_program(&p, code, 120, 8, NIN, NOUT);
    plant_selects(&p, code);
    float *in = malloc(sizeof(float) * BIG * NIN), *out = malloc(sizeof(float) * BIG * 5);
    float *ref = malloc(sizeof(float) * BIG * NOUT);
    float *cin[NIN], *cout[NOUT];
    for (int i = 0; i < NIN; ++i)
        cin[i] = malloc(sizeof(float) * N);
    for (int i = 0; i < NOUT; ++i)
        cout[i] = malloc(sizeof(float) * N);
    for (size_t i = 0; i < (size_t)BIG * NIN; ++i)
        in[i] = rnd_input(!flushes);
    in[7] = bits(0x7FFFFFFFu), in[13] = bits(0x7FFFFF80u), in[4 * 4000 + 1] = bits(0x7FFFFFFFu);
    reference_rows(&p, in, BIG, ref);
    char err[256] = "";
    int bad;
    fmag_gpu_counters c0, c1;

    /* rows, one chunk; then in chunks of 1024 (5 of them) */
    bool ok = fmag_gpu_run(r, &p, in, NIN, out, NOUT, N, err, sizeof err);
    EXPECT(ok, "rows: %s", err);
    COUNT_BAD(bad, &p, in, N, ref, flushes, out[e * NOUT + i]);
    EXPECT(ok && bad == 0, "rows: %d elements differ from the reference VM", bad);
    fmag_gpu_runner_counters(r, &c0);
    fmag_gpu_runner_set_chunk(r, 1000); /* rounded up to 1024 */
    memset(out, 0, sizeof(float) * N * NOUT);
    ok = fmag_gpu_run(r, &p, in, NIN, out, NOUT, N, err, sizeof err);
    EXPECT(ok, "rows in chunks: %s", err);
    COUNT_BAD(bad, &p, in, N, ref, flushes, out[e * NOUT + i]);
    EXPECT(ok && bad == 0, "rows in chunks: %d elements differ from the reference VM", bad);
    fmag_gpu_runner_counters(r, &c1);
    EXPECT(c1.chunks - c0.chunks == 5, "rows in chunks of 1024: %lu chunks, want 5",
           c1.chunks - c0.chunks);
    EXPECT(c1.buffer_allocs == c0.buffer_allocs && c1.pipeline_creates == c0.pipeline_creates,
           "a second call of the same size allocated %lu buffers and created %lu pipelines",
           c1.buffer_allocs - c0.buffer_allocs, c1.pipeline_creates - c0.pipeline_creates);

    /* columns, chunked too */
    for (size_t e = 0; e < N; ++e)
        for (int i = 0; i < NIN; ++i)
            cin[i][e] = in[e * NIN + i];
    ok = fmag_gpu_run_columns(r, &p, (const float *const *)cin, cout, N, err, sizeof err);
    EXPECT(ok, "columns: %s", err);
    COUNT_BAD(bad, &p, in, N, ref, flushes, cout[i][e]);
    EXPECT(ok && bad == 0, "columns: %d elements differ from the reference VM", bad);
    EXPECT(!fmag_gpu_run_columns(r, &p, (const float *const *)cin, NULL, N, err, sizeof err),
           "columns without outputs must be refused");

    /* an output stride of 5: columns 3 and 4 keep the caller's values */
    fmag_gpu_runner_set_chunk(r, 0);
    for (size_t i = 0; i < (size_t)N * 5; ++i)
        out[i] = bits(0x7FBADBADu);
    ok = fmag_gpu_run(r, &p, in, NIN, out, 5, N, err, sizeof err);
    COUNT_BAD(bad, &p, in, N, ref, flushes, out[e * 5 + i]);
    for (size_t e = 0; ok && e < N; ++e)
        bad += fbits(out[e * 5 + 3]) != 0x7FBADBADu || fbits(out[e * 5 + 4]) != 0x7FBADBADu;
    EXPECT(ok && bad == 0, "output stride 5: %d differences (%s)", bad, err);

    /* a larger call grows the buffers; a smaller one after it allocates nothing */
    fmag_gpu_runner_counters(r, &c0);
    ok = fmag_gpu_run(r, &p, in, NIN, out, NOUT, BIG, err, sizeof err);
    COUNT_BAD(bad, &p, in, BIG, ref, flushes, out[e * NOUT + i]);
    EXPECT(ok && bad == 0, "rows, %d elements: %d differ (%s)", BIG, bad, err);
    fmag_gpu_runner_counters(r, &c1);
    EXPECT(c1.buffer_allocs > c0.buffer_allocs, "a larger call must grow the buffers");
    c0 = c1;
    ok = fmag_gpu_run(r, &p, in, NIN, out, NOUT, 700, err, sizeof err);
    COUNT_BAD(bad, &p, in, 700, ref, flushes, out[e * NOUT + i]);
    EXPECT(ok && bad == 0, "rows, 700 elements: %d differ (%s)", bad, err);
    fmag_gpu_runner_counters(r, &c1);
    EXPECT(c1.buffer_allocs == c0.buffer_allocs, "a smaller call allocated %lu buffers",
           c1.buffer_allocs - c0.buffer_allocs);

    /* per lane, chunked: two programs, element by element */
    fmag_vm_instr code2[60];
    fmag_vm_program q;
    random_program(&q, code2, 60, 5, 3, 2);
    const fmag_vm_program *pq[2] = {&p, &q};
    uint32_t *idx = malloc(sizeof(uint32_t) * 3000);
    for (size_t e = 0; e < 3000; ++e)
        idx[e] = rnd() % 2;
    fmag_gpu_runner_set_chunk(r, 1024);
    compare(r, pq, 2, idx, 3000, flushes, "per lane in chunks");
    fmag_gpu_runner_set_chunk(r, 0);
    free(idx);
    for (int i = 0; i < NIN; ++i)
        free(cin[i]);
    for (int i = 0; i < NOUT; ++i)
        free(cout[i]);
    free(in), free(out), free(ref);
}

/* The device-resident entry: the same bits as rows from the host, on buffers the test makes
 * on the runner's device (the output at an offset, its stride wider than the outputs). */
enum { DEV_N = 3000, DEV_NIN = 4, DEV_NOUT = 3, DEV_OS = 4, DEV_OUT_AT = 256 };

static void dev_program(fmag_vm_program *p, fmag_vm_instr *code, float *in, float *ref,
                        bool flushes)
{
    random_program(p, code, 80, 8, DEV_NIN, DEV_NOUT);
    for (size_t i = 0; i < (size_t)DEV_N * DEV_NIN; ++i)
        in[i] = rnd_input(!flushes);
    in[5] = bits(0x7FFFFFFFu);
    reference_rows(p, in, DEV_N, ref);
}

/* out: DEV_N rows of DEV_OS floats as the device buffer holds them after the run */
static void dev_check(const fmag_vm_program *p, const float *in, const float *ref, const float *out,
                      bool flushes, const char *what)
{
    int bad;
    COUNT_BAD(bad, p, in, DEV_N, ref, flushes, out[e * DEV_OS + i]);
    for (size_t e = 0; e < DEV_N; ++e)
        bad += fbits(out[e * DEV_OS + 3]) != 0x7FBADBADu;
    EXPECT(bad == 0, "%s: %d elements differ from the reference VM", what, bad);
}

#ifdef FMAG_TEST_VULKAN
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

/* A host-visible storage buffer of the runner's device, mapped. */
typedef struct test_vkbuf {
    VkBuffer buf;
    VkDeviceMemory mem;
    void *map;
} test_vkbuf;

static void test_device_vulkan(fmag_gpu_runner *r)
{
    fmag_gpu_native nat;
    EXPECT(fmag_gpu_runner_native(r, &nat) && nat.api == FMAG_GPU_VULKAN && nat.device,
           "the Vulkan runner must name its device");
    PFN_vkGetInstanceProcAddr gipa;
    *(void **)&gipa = nat.get_instance_proc_addr;
    VkInstance inst = (VkInstance)nat.instance;
    VkDevice dev = (VkDevice)nat.device;
#define TEST_VK(f) PFN_##f f = (PFN_##f)gipa(inst, #f)
    TEST_VK(vkGetPhysicalDeviceMemoryProperties);
    TEST_VK(vkCreateBuffer);
    TEST_VK(vkDestroyBuffer);
    TEST_VK(vkGetBufferMemoryRequirements);
    TEST_VK(vkAllocateMemory);
    TEST_VK(vkFreeMemory);
    TEST_VK(vkBindBufferMemory);
    TEST_VK(vkMapMemory);
#undef TEST_VK
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties((VkPhysicalDevice)nat.physical_device, &mp);
    size_t bytes[2] = {sizeof(float) * DEV_N * DEV_NIN,
                       DEV_OUT_AT + sizeof(float) * DEV_N * DEV_OS};
    test_vkbuf b[2];
    memset(b, 0, sizeof b);
    bool ok = true;
    for (int k = 0; ok && k < 2; ++k) {
        VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = bytes[k];
        bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
        ok = vkCreateBuffer(dev, &bi, NULL, &b[k].buf) == VK_SUCCESS;
        VkMemoryRequirements req;
        if (ok) vkGetBufferMemoryRequirements(dev, b[k].buf, &req);
        VkMemoryPropertyFlags want =
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        uint32_t type = 0;
        while (ok && type < mp.memoryTypeCount &&
               (!(req.memoryTypeBits & (1u << type)) ||
                (mp.memoryTypes[type].propertyFlags & want) != want))
            ++type;
        VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = ok ? req.size : 0;
        ai.memoryTypeIndex = type;
        ok = ok && type < mp.memoryTypeCount &&
             vkAllocateMemory(dev, &ai, NULL, &b[k].mem) == VK_SUCCESS &&
             vkBindBufferMemory(dev, b[k].buf, b[k].mem, 0) == VK_SUCCESS &&
             vkMapMemory(dev, b[k].mem, 0, VK_WHOLE_SIZE, 0, &b[k].map) == VK_SUCCESS;
    }
    EXPECT(ok, "could not make host-visible storage buffers on the runner's device");
    if (ok) {
        bool flushes = strstr(fmag_gpu_runner_describe(r), "flushed") != NULL;
        fmag_vm_instr code[80];
        fmag_vm_program p;
        float *in = b[0].map, *ref = malloc(sizeof(float) * DEV_N * DEV_NOUT);
        float *out = (float *)((char *)b[1].map + DEV_OUT_AT);
        dev_program(&p, code, in, ref, flushes);
        for (size_t i = 0; i < (size_t)DEV_N * DEV_OS; ++i)
            out[i] = bits(0x7FBADBADu);
        char err[256] = "";
        fmag_gpu_counters c0, c1;
        fmag_gpu_runner_counters(r, &c0);
        fmag_gpu_buffer bin = {(uint64_t)(uintptr_t)b[0].buf, 0};
        fmag_gpu_buffer bout = {(uint64_t)(uintptr_t)b[1].buf, DEV_OUT_AT};
        ok = fmag_gpu_run_device(r, &p, bin, DEV_NIN, bout, DEV_OS, DEV_N, err, sizeof err);
        EXPECT(ok, "vulkan device buffers: %s", err);
        fmag_gpu_runner_counters(r, &c1);
        if (ok) dev_check(&p, in, ref, out, flushes, "vulkan device buffers");
        EXPECT(c1.chunks - c0.chunks == 1, "device buffers: one launch");
        free(ref);
    }
    for (int k = 0; k < 2; ++k) {
        if (b[k].buf) vkDestroyBuffer(dev, b[k].buf, NULL);
        if (b[k].mem) vkFreeMemory(dev, b[k].mem, NULL);
    }
}
#endif

#if defined(__linux__)
#include <dlfcn.h>
/* CUDA device pointers of the runner's device (the driver API, loaded as the runner does). */
static void test_device_cuda(fmag_gpu_runner *r)
{
    fmag_gpu_native nat;
    EXPECT(fmag_gpu_runner_native(r, &nat) && nat.api == FMAG_GPU_CUDA, "CUDA runner's device");
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    typedef int (*retain_fn)(void **, int);
    typedef int (*ctx_fn)(void *);
    typedef int (*alloc_fn)(unsigned long long *, size_t);
    typedef int (*free_fn)(unsigned long long);
    typedef int (*htod_fn)(unsigned long long, const void *, size_t);
    typedef int (*dtoh_fn)(void *, unsigned long long, size_t);
    typedef int (*release_fn)(int);
    retain_fn retain;
    ctx_fn set_ctx;
    alloc_fn alloc;
    free_fn dfree;
    htod_fn htod;
    dtoh_fn dtoh;
    release_fn release;
    *(void **)&retain = dlsym(lib, "cuDevicePrimaryCtxRetain");
    *(void **)&set_ctx = dlsym(lib, "cuCtxSetCurrent");
    *(void **)&alloc = dlsym(lib, "cuMemAlloc_v2");
    *(void **)&dfree = dlsym(lib, "cuMemFree_v2");
    *(void **)&htod = dlsym(lib, "cuMemcpyHtoD_v2");
    *(void **)&dtoh = dlsym(lib, "cuMemcpyDtoH_v2");
    *(void **)&release = dlsym(lib, "cuDevicePrimaryCtxRelease_v2");
    void *ctx = NULL;
    unsigned long long din = 0, dout = 0;
    size_t inb = sizeof(float) * DEV_N * DEV_NIN, outb = sizeof(float) * DEV_N * DEV_OS;
    bool flushes = false;
    fmag_vm_instr code[80];
    fmag_vm_program p;
    float *in = malloc(inb), *out = malloc(outb), *ref = malloc(sizeof(float) * DEV_N * DEV_NOUT);
    dev_program(&p, code, in, ref, flushes);
    for (size_t i = 0; i < (size_t)DEV_N * DEV_OS; ++i)
        out[i] = bits(0x7FBADBADu);
    bool ok = retain && set_ctx && alloc && dfree && htod && dtoh && release &&
              retain(&ctx, nat.cuda_device) == 0 && set_ctx(ctx) == 0 && alloc(&din, inb) == 0 &&
              alloc(&dout, DEV_OUT_AT + outb) == 0 && htod(din, in, inb) == 0 &&
              htod(dout + DEV_OUT_AT, out, outb) == 0;
    EXPECT(ok, "could not make CUDA device buffers");
    char err[256] = "";
    if (ok) {
        fmag_gpu_buffer bin = {din, 0}, bout = {dout, DEV_OUT_AT};
        ok = fmag_gpu_run_device(r, &p, bin, DEV_NIN, bout, DEV_OS, DEV_N, err, sizeof err);
        EXPECT(ok, "cuda device buffers: %s", err);
        ok = ok && dtoh(out, dout + DEV_OUT_AT, outb) == 0;
        if (ok) dev_check(&p, in, ref, out, flushes, "cuda device buffers");
    }
    if (din) dfree(din);
    if (dout) dfree(dout);
    if (ctx) release(nat.cuda_device);
    free(in), free(out), free(ref);
    dlclose(lib);
}
#endif

static void test_lane_args(void)
{
    fmag_vm_instr code[1] = {{fbits(1.0f), fbits(2.0f), fbits(1.0f), 0}};
    fmag_vm_program a = {(char *)"a", 0, 2, 2, 1, 1, code, 0}, b = a;
    b.nin = 3;
    const fmag_vm_program *progs[3] = {&a, &b, NULL};
    uint32_t idx[4] = {0, 0, 0, 0};
    unsigned char used[3] = {0, 0, 0};
    char err[256] = "";
    EXPECT(fmag_vm_check_lane_args(progs, 1, idx, 2, 1, 4, true, NULL, err, sizeof err),
           "good arguments: %s", err);
    EXPECT(!fmag_vm_check_lane_args(progs, 0, idx, 2, 1, 4, false, NULL, err, sizeof err) &&
               strstr(err, "1 to 2^32-1 programs"),
           "no programs: %s", err);
    idx[2] = 3;
    EXPECT(!fmag_vm_check_lane_args(progs, 3, idx, 3, 1, 4, false, used, err, sizeof err) &&
               !strcmp(err, "element 2: program index 3 out of range (3 programs)"),
           "index out of range: %s", err);
    idx[2] = 1;
    EXPECT(!fmag_vm_check_lane_args(progs, 2, idx, 2, 1, 4, false, NULL, err, sizeof err) &&
               strstr(err, "program 1 'a' has 3 inputs and 1 outputs; strides are 2 and 1"),
           "stride: %s", err);
    EXPECT(!fmag_vm_check_lane_args(progs, 3, idx, 3, 1, 4, false, NULL, err, sizeof err) &&
               !strcmp(err, "program 2 is NULL"),
           "a NULL program is refused when every program is checked: %s", err);
    memset(used, 0, sizeof used);
    EXPECT(fmag_vm_check_lane_args(progs, 3, idx, 3, 1, 4, false, used, err, sizeof err) &&
               used[0] && used[1] && !used[2],
           "an unused NULL program passes when only the used ones are checked: %s", err);
    fmag_vm_instr bad[1] = {{fmag_vm_ref_word(7), fbits(2.0f), fbits(1.0f), 0}};
    fmag_vm_program c = {(char *)"c", 0, 2, 2, 1, 1, bad, 0};
    const fmag_vm_program *pc = &c;
    EXPECT(!fmag_vm_check_lane_args(&pc, 1, NULL, 2, 1, 1, true, NULL, err, sizeof err),
           "validation refuses register 7 of 2");
    EXPECT(fmag_vm_check_lane_args(&pc, 1, NULL, 2, 1, 1, false, NULL, err, sizeof err),
           "without validation it passes: %s", err);
}

static void test_host_helpers(void)
{
    uint8_t scratch[16];
    /* r1 = r0*2 + 0 then r0 = r1*1 + r1: nothing read before written */
    fmag_gpu_word4 ok_code[2] = {{fbits(2.0f), 0, fbits(1.0f), 1u},
                                 {fbits(1.0f), 0x7FC00001u, fbits(1.0f), 0u | (1u << 16)}};
    EXPECT(!fmag_gpu_needs_zero_init(ok_code, 2, 1, 1, 16, scratch), "no read-before-write");
    /* reading r2 (never written, not an input) needs the zeros */
    fmag_gpu_word4 rd[1] = {{0x7FC00002u, 0, fbits(1.0f), 0u}};
    EXPECT(fmag_gpu_needs_zero_init(rd, 1, 1, 1, 16, scratch), "r2 read before write");
    /* a guarded write reads its destination (the fallback) */
    fmag_gpu_word4 gw[1] = {{fbits(1.0f), 0, 0x7FC00000u, 3u}};
    EXPECT(fmag_gpu_needs_zero_init(gw, 1, 1, 1, 16, scratch), "guarded write reads r3");
    /* an output never written (r1 with one input) is the initial +0 */
    EXPECT(fmag_gpu_needs_zero_init(ok_code, 0, 1, 2, 16, scratch), "output r1 reads its zero");
    EXPECT(!fmag_gpu_needs_zero_init(ok_code, 2, 1, 2, 16, scratch), "r1 written before output");
    /* predecode drops no-ops and records operand kinds */
    fmag_gpu_word4 pd[3] = {{fbits(1.0f), 0x7FC00002u, fbits(-1.0f), 1u},
                            {0x7FC00003u, fbits(0.5f), 0x7FC00001u, 2u | (5u << 16)},
                            {fbits(1.0f), fbits(0.0f), fbits(0.0f), 0u}};
    fmag_gpu_word4 out[3];
    uint32_t n = fmag_gpu_predecode(pd, 3, 8, out);
    EXPECT(n == 1, "predecode keeps 1 of 3 (two no-ops), got %u", n);
    EXPECT(n == 1 && out[0].b == 3 && out[0].c == fbits(0.5f) && out[0].g == 1 &&
               out[0].da == (2u | (5u << 8) | ((1u | 4u) << 16)),
           "predecode fields");
    EXPECT(fmag_gpu_pow2_regs(1) == 1 && fmag_gpu_pow2_regs(17) == 32, "pow2");
}

/* Executes a forwarding pre-decoded stream the way fmag_k_fwd does (one element), with
 * registers the program never initializes holding garbage unless zero-init is needed. */
static void emulate_fwd(const fmag_gpu_word4 *pd, uint32_t n, uint32_t rf, uint32_t row,
                        const fmag_vm_program *p, bool zero, const float *in, float *out)
{
    float r[32], prev = 0.0f;
    for (uint32_t i = 0; i < rf; ++i)
        r[i] = i < p->nin ? in[i] : zero ? 0.0f : 12345.0f;
    uint32_t mask = (rf * row - 1) & ~(row - 1);
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t f = pd[i].da & 31u;
        float va = (f & FMAG_GPU_PD_APREV) ? prev : r[((pd[i].da >> 16) & mask) / row];
        float vb = (f & 1u) ? r[(pd[i].b & mask) / row] : bits(pd[i].b);
        float vc = (f & 2u) ? r[(pd[i].c & mask) / row] : bits(pd[i].c);
        bool wr = (f & 4u) ? r[(pd[i].g & mask) / row] > 0.0f : true;
        float res = fmaf(va, vb, vc);
        prev = res;
        if (!(f & FMAG_GPU_PD_NOSTORE) && wr) r[(pd[i].da & mask) / row] = res;
    }
    for (uint32_t i = 0; i < p->nout; ++i)
        out[i] = r[i];
}

/* Executes a select-fusing pre-decoded stream the way fmag_k_sel does (one element). */
static void emulate_sel(const fmag_gpu_word4 *pd, uint32_t n, uint32_t rf, const fmag_vm_program *p,
                        const float *in, float *out)
{
    float r[32];
    for (uint32_t i = 0; i < rf; ++i)
        r[i] = i < p->nin ? in[i] : 0.0f;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t k = pd[i].da >> 16, d = pd[i].da & 0xFFu, a = (pd[i].da >> 8) & 0xFFu;
        if (k >= 8 && i + 1 < n) {
            const fmag_gpu_word4 *w2 = &pd[++i];
            float v1 = fmaf(r[a], bits(pd[i - 1].b), bits(pd[i - 1].c));
            float b2 = (k & 1u) ? r[w2->b] : bits(w2->b), c2 = (k & 2u) ? r[w2->c] : bits(w2->c);
            float v2 = fmaf(r[(w2->da >> 8) & 0xFFu], b2, c2);
            r[d] = r[w2->g] > 0.0f ? v2 : v1;
            continue;
        }
        float b = (k & 1u) ? r[pd[i].b] : bits(pd[i].b), c = (k & 2u) ? r[pd[i].c] : bits(pd[i].c);
        bool wr = (k & 4u) ? r[pd[i].g] > 0.0f : true;
        if (wr) r[d] = fmaf(r[a], b, c);
    }
    for (uint32_t i = 0; i < p->nout; ++i)
        out[i] = r[i];
}

/* Decodes byte-offset records (fmag_gpu_predecode_bytes) with the masks fmag_k_selb uses,
 * back to the index form emulate_sel runs. */
static void unbytes(fmag_gpu_word4 *rec, uint32_t n, uint32_t rf, uint32_t row)
{
    uint32_t mask = (rf * row - 1) & ~(row - 1);
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t kind = rec[i].da & 15u;
        if (kind < 8u) {
            if (kind & 1u) rec[i].b = (rec[i].b & mask) / row;
            if (kind & 2u) rec[i].c = (rec[i].c & mask) / row;
            if (kind & 4u) rec[i].g = (rec[i].g & mask) / row;
        }
        rec[i].da = (rec[i].da & mask) / row | (((rec[i].da >> 16) & mask) / row) << 8 | kind << 16;
    }
}

/* Runs a stream rewritten by fmag_gpu_predecode_lane the way fmag_k_shared<BYTES> decodes
 * it (one element). */
static void emulate_lane(const fmag_gpu_word4 *pd, uint32_t n, uint32_t rf, uint32_t row,
                         const fmag_vm_program *p, const float *in, float *out)
{
    float r[32];
    uint32_t mask = (rf * row - 1) & ~(row - 1);
    for (uint32_t i = 0; i < rf; ++i)
        r[i] = i < p->nin ? in[i] : 0.0f;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t k = pd[i].da;
        float b = (k & 1u) ? r[(pd[i].b & mask) / row] : bits(pd[i].b);
        float c = (k & 2u) ? r[(pd[i].c & mask) / row] : bits(pd[i].c);
        float g = (k & 4u) ? r[(pd[i].g & mask) / row] : bits(pd[i].g);
        float res = fmaf(r[((pd[i].da >> 16) & mask) / row], b, c);
        if (g > 0.0f) r[(pd[i].da & mask) / row] = res;
    }
    for (uint32_t i = 0; i < p->nout; ++i)
        out[i] = r[i];
}

static void test_predecode_lane(void)
{
    int bad = 0;
    for (int t = 0; t < 300; ++t) {
        uint16_t regs = (uint16_t)(1 + rnd() % 32);
        fmag_vm_instr code[48];
        fmag_vm_program p;
        random_program(&p, code, 1 + rnd() % 48, regs, (uint16_t)(rnd() % (regs + 1)),
                       (uint16_t)(1 + rnd() % regs));
        /* rows of 16 bytes: the register-resident kernel (fmag_k_lanereg) */
        uint32_t rf = fmag_gpu_pow2_regs(regs);
        uint32_t row = rf <= 4 && t % 2 ? 16u : (rf <= 4 ? 8u : 4u) * 128u * 4u;
        fmag_gpu_word4 pd[48];
        fmag_gpu_predecode_lane((const fmag_gpu_word4 *)code, p.ninstr, rf, row, pd);
        for (int e = 0; e < 20; ++e) {
            float in[32], a[32], b[32], regsbuf[32];
            for (int i = 0; i < 32; ++i)
                in[i] = rnd_input(true);
            fmag_vm_run(&p, in, a, regsbuf);
            emulate_lane(pd, p.ninstr, rf, row, &p, in, b);
            for (uint32_t i = 0; i < p.nout; ++i)
                if (!same_modulo_nan(a[i], b[i])) {
                    if (bad++ < 3)
                        printf("  predecode_lane: program %d output %u: %a vs ref %a\n", t, i, b[i],
                               a[i]);
                    break;
                }
        }
    }
    EXPECT(bad == 0, "per-lane byte-offset pre-decode differs from the reference VM in %d cases",
           bad);
}

static void test_predecode_sel(void)
{
    int bad = 0, fused = 0;
    for (int t = 0; t < 400; ++t) {
        uint16_t regs = (uint16_t)(2 + rnd() % 15);
        fmag_vm_instr code[48];
        fmag_vm_program p;
        random_program(&p, code, 2 + rnd() % 46, regs, (uint16_t)(1 + rnd() % regs),
                       (uint16_t)(1 + rnd() % regs));
        plant_select_pairs(&p, code, 2);
        uint32_t rf = fmag_gpu_pow2_regs(regs);
        fmag_gpu_word4 pd[48];
        uint32_t n = fmag_gpu_predecode_sel((const fmag_gpu_word4 *)code, p.ninstr, rf, pd);
        for (uint32_t i = 0; i < n; ++i)
            fused += (pd[i].da >> 16) >= 8;
        for (int e = 0; e < 20; ++e) {
            float in[16], a[16], b[16], regsbuf[16];
            for (int i = 0; i < 16; ++i)
                in[i] = rnd_input(true);
            fmag_vm_run(&p, in, a, regsbuf);
            emulate_sel(pd, n, rf, &p, in, b);
            for (uint32_t i = 0; i < p.nout; ++i)
                if (!same_modulo_nan(a[i], b[i])) {
                    if (bad++ < 3)
                        printf("  predecode_sel: program %d output %u: %a vs ref %a\n", t, i, b[i],
                               a[i]);
                    break;
                }
            /* the byte-offset form of the same records, decoded as the kernel does */
            fmag_gpu_word4 pdb[48];
            memcpy(pdb, pd, n * sizeof pd[0]);
            fmag_gpu_predecode_bytes(pdb, n, 4 * 128 * 4);
            /* clamping to the program's own rows changes nothing in a valid program */
            fmag_gpu_word4 pdc[48];
            memcpy(pdc, pdb, n * sizeof pd[0]);
            fmag_gpu_clamp_rows(pdc, n, 4 * 128 * 4, p.regs);
            bad += memcmp(pdc, pdb, n * sizeof pd[0]) != 0;
            unbytes(pdb, n, rf, 4 * 128 * 4);
            emulate_sel(pdb, n, rf, &p, in, b);
            for (uint32_t i = 0; i < p.nout; ++i)
                if (!same_modulo_nan(a[i], b[i])) {
                    if (bad++ < 3)
                        printf("  predecode_bytes: program %d output %u: %a vs ref %a\n", t, i,
                               b[i], a[i]);
                    break;
                }
        }
    }
    EXPECT(bad == 0, "select-fusing pre-decode differs from the reference VM in %d cases", bad);
    EXPECT(fused > 100, "too few fused selects (%d)", fused);
    /* an operand past the rows (an unvalidated stream) is pulled onto the last row; a fused
     * record's literal b and c stay as they are */
    const uint32_t row = 2048;
    fmag_gpu_word4 w[2] = {{9 * row, 31 * row, 30 * row, 20 * row | (25 * row) << 16 | 7u},
                           {fbits(2.0f), fbits(3.0f), 0, 31 * row | (2 * row) << 16 | 9u}};
    fmag_gpu_clamp_rows(w, 2, row, 18);
    EXPECT(w[0].b == 9 * row && w[0].c == 17 * row && w[0].g == 17 * row &&
               w[0].da == (17 * row | (17 * row) << 16 | 7u),
           "clamp_rows: %x %x %x %x", w[0].b, w[0].c, w[0].g, w[0].da);
    EXPECT(w[1].b == fbits(2.0f) && w[1].c == fbits(3.0f) &&
               w[1].da == (17 * row | (2 * row) << 16 | 9u),
           "clamp_rows (fused): %x %x %x", w[1].b, w[1].c, w[1].da);
}

static void test_predecode_fwd(void)
{
    int bad = 0, fwd = 0, nostore = 0, total = 0;
    for (int t = 0; t < 400; ++t) {
        uint16_t regs = (uint16_t)(1 + rnd() % 16);
        fmag_vm_instr code[48];
        fmag_vm_program p;
        random_program(&p, code, 1 + rnd() % 48, regs, (uint16_t)(rnd() % (regs + 1)),
                       (uint16_t)(1 + rnd() % regs));
        /* chains, as codegen emits them: often a = the previous destination */
        for (uint32_t i = 1; i < p.ninstr; ++i)
            if (rnd() % 2) code[i].da = (code[i].da & 0xFFFFu) | ((code[i - 1].da & 0xFFFFu) << 16);
        uint32_t rf = fmag_gpu_pow2_regs(regs), row = 4 * 128 * 4;
        fmag_gpu_word4 pd[48];
        uint8_t needed[32];
        uint32_t n = fmag_gpu_predecode_fwd((const fmag_gpu_word4 *)code, p.ninstr, rf, row, p.nout,
                                            pd, needed);
        bool zero = fmag_gpu_needs_zero_init((const fmag_gpu_word4 *)code, p.ninstr, p.nin, p.nout,
                                             rf, needed);
        for (uint32_t i = 0; i < n; ++i) {
            fwd += (pd[i].da & FMAG_GPU_PD_APREV) != 0;
            nostore += (pd[i].da & FMAG_GPU_PD_NOSTORE) != 0;
        }
        total += (int)n;
        for (int e = 0; e < 20; ++e) {
            float in[16], a[16], b[16], regsbuf[16];
            for (int i = 0; i < 16; ++i)
                in[i] = rnd_input(true);
            fmag_vm_run(&p, in, a, regsbuf);
            emulate_fwd(pd, n, rf, row, &p, zero, in, b);
            for (uint32_t i = 0; i < p.nout; ++i)
                if (!same_modulo_nan(a[i], b[i])) {
                    if (bad++ < 3)
                        printf("  predecode_fwd: program %d output %u: %a vs ref %a\n", t, i, b[i],
                               a[i]);
                    break;
                }
        }
    }
    EXPECT(bad == 0, "forwarding pre-decode differs from the reference VM in %d cases", bad);
    EXPECT(fwd > total / 8 && nostore > total / 16,
           "forwarding/dead-store facts found too rarely (%d, %d of %d)", fwd, nostore, total);
}

int main(void)
{
    test_host_helpers();
    test_lane_args();
    test_predecode_fwd();
    test_predecode_sel();
    test_predecode_lane();
    int ran = 0;
    static const struct {
        fmag_gpu_api api;
        const char *name;
    } apis[] = {{FMAG_GPU_VULKAN, "vulkan"}, {FMAG_GPU_CUDA, "cuda"}};
    for (size_t i = 0; i < 2; ++i) {
        char err[256] = "";
        fmag_gpu_runner *r = fmag_gpu_runner_create(apis[i].api, err, sizeof err);
        if (!r) {
            printf("%s: skipped: %s\n", apis[i].name, err);
            continue;
        }
        printf("%s\n", fmag_gpu_runner_describe(r)); /* starts with the API's name */
        /* the interpreters' designs are under test here (TierTest.c: tiers and binning) */
        fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_OFF);
        fmag_gpu_runner_set_bin_threshold(r, 0);
        int before = failures;
        test_backend(r, true);
        test_call_paths(r);
        if (apis[i].api == FMAG_GPU_VULKAN) {
#ifdef FMAG_TEST_VULKAN
            test_device_vulkan(r);
#endif
            /* every design the runner can be forced to, then back to automatic */
            static const struct {
                fmag_gpu_vk_design d;
                const char *name;
            } designs[] = {{FMAG_GPU_VK_PRIVATE, "private"},
                           {FMAG_GPU_VK_PRIVATE_INTERLEAVED, "private, interleaved"},
                           {FMAG_GPU_VK_PRIVATE_PREDECODED, "private, pre-decoded"},
                           {FMAG_GPU_VK_WORKGROUP_PREDECODED, "workgroup, pre-decoded"}};
            for (size_t k = 0; k < sizeof designs / sizeof designs[0]; ++k) {
                EXPECT(fmag_gpu_runner_set_vk_design(r, designs[k].d), "set design %s",
                       designs[k].name);
                printf("%s: design %s\n", apis[i].name, designs[k].name);
                test_backend(r, false);
            }
            /* the fast design at every K, with records from either buffer, fused or not, in
             * the VEC layout where it has one (k, ubo, fuse, vec) */
            static const fmag_gpu_vk_fast_knobs knobs[] = {{1, 1, 1, 0}, {2, 0, 0, 1},
                                                           {4, 1, 0, 0}, {4, 0, 1, 1},
                                                           {8, 1, 1, 0}, {0, -1, -1, -1}};
            EXPECT(fmag_gpu_runner_set_vk_design(r, FMAG_GPU_VK_FAST), "set design fast");
            fmag_gpu_runner_set_capture_ir(r, true);
            for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; ++k) {
                EXPECT(fmag_gpu_runner_set_vk_fast(r, knobs[k]), "set fast knobs");
                printf("%s: design fast, k %u, ubo %d, fuse %d, vec %d\n", apis[i].name, knobs[k].k,
                       knobs[k].ubo, knobs[k].fuse, knobs[k].vec);
                test_backend(r, false);
            }
            /* whatever the driver offers: the text's length, and a buffer of 1 stays a string */
            char one[1] = {'x'};
            size_t irlen = fmag_gpu_runner_last_ir(r, one, sizeof one);
            EXPECT(one[0] == 0, "last_ir must terminate its buffer");
            printf("%s: internal representations of the last pipeline: %zu bytes\n", apis[i].name,
                   irlen);
            fmag_gpu_runner_set_capture_ir(r, false);
            EXPECT(!fmag_gpu_runner_set_vk_fast(r, (fmag_gpu_vk_fast_knobs){2, 0, 0, 2}),
                   "vec 2 must be refused");
            EXPECT(!fmag_gpu_runner_set_vk_fast(r, (fmag_gpu_vk_fast_knobs){3, 0, 0, 0}),
                   "k 3 must be refused");
            EXPECT(!fmag_gpu_runner_set_vk_design(r, (fmag_gpu_vk_design)99),
                   "an unknown design must be refused");
            EXPECT(fmag_gpu_runner_set_vk_design(r, FMAG_GPU_VK_AUTO), "back to automatic");
        } else {
#if defined(__linux__)
            test_device_cuda(r);
#endif
            EXPECT(!fmag_gpu_runner_set_vk_design(r, FMAG_GPU_VK_FAST),
                   "a Vulkan design on another back end must be refused");
        }
        printf("%s: %s\n", apis[i].name, failures == before ? "all passed" : "FAILED");
        fmag_gpu_runner_destroy(r);
        ++ran;
    }
    if (failures) return 1;
    return ran ? 0 : 77;
}
