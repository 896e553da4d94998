/* Unit tests of lib/VM. The oracle is C's fmaf applied by hand to the same
 * operands (never the VM's own output); the batch and per-lane engines are then
 * checked bit for bit against the reference interpreter on random programs. */
#include "../Expect.h"
#include "RandomProgram.h"
#include "fmag/Bits.h"
#include "fmag/VM.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Instruction builders: an operand is a register (R(n)) or a literal (L(x)). */
typedef struct opnd {
    bool reg;
    uint16_t r;
    float x;
} opnd;
static opnd R(uint16_t r)
{
    return (opnd){true, r, 0};
}
static opnd L(float x)
{
    return (opnd){false, 0, x};
}
static uint32_t word(opnd o)
{
    return o.reg ? (0x7FC00000u | o.r) : fmag_bits_of(o.x);
}
static fmag_vm_instr I(uint16_t d, uint16_t a, opnd b, opnd c, opnd g)
{
    return (fmag_vm_instr){word(b), word(c), word(g), (uint32_t)d | ((uint32_t)a << 16)};
}

static fmag_vm_program prog(const char *name, uint16_t regs, uint16_t nin, uint16_t nout,
                            fmag_vm_instr *code, uint32_t n)
{
    return (fmag_vm_program){(char *)name, 0, regs, nin, nout, n, code, 0};
}

static void test_encode_decode(void)
{
    char err[256];
    fmag_vm_decoded d = {
        .d = 7, .a = 65534, .b = {true, 3, 0}, .c = {false, 0, -2.5f}, .g = {false, 0, 1e-45f}};
    fmag_vm_instr in;
    EXPECT(fmag_vm_encode(&d, &in, err, sizeof err));
    EXPECT(in.b == 0x7FC00003u);
    EXPECT(in.c == fmag_bits_of(-2.5f));
    EXPECT(in.g == 1u); /* the smallest denormal */
    EXPECT(in.da == (7u | (65534u << 16)));
    fmag_vm_decoded back;
    fmag_vm_decode(in, &back);
    EXPECT(back.d == 7 && back.a == 65534);
    EXPECT(back.b.is_reg && back.b.reg == 3);
    EXPECT(!back.c.is_reg && fmag_bits_of(back.c.imm) == fmag_bits_of(-2.5f));
    EXPECT(!back.g.is_reg && fmag_bits_of(back.g.imm) == 1u);

    /* Every NaN word is a reference, whatever its sign or payload. */
    fmag_vm_decode((fmag_vm_instr){0xFFC00005u, 0x7F800001u, 0x7FFFFFFFu, 0}, &back);
    EXPECT(back.b.is_reg && back.b.reg == 5);
    EXPECT(back.c.is_reg && back.c.reg == 1);
    EXPECT(back.g.is_reg && back.g.reg == 0xFFFF);
    /* -0 and denormals are literals. */
    EXPECT(!fmag_vm_word_is_ref(0x80000000u) && !fmag_vm_word_is_ref(0x007FFFFFu));
    EXPECT(fmag_vm_word_is_inf(0x7F800000u) && fmag_vm_word_is_inf(0xFF800000u));
    EXPECT(!fmag_vm_word_is_inf(0x7F800001u));

    d.c = (fmag_vm_operand){false, 0, NAN};
    EXPECT(!fmag_vm_encode(&d, &in, err, sizeof err));
    EXPECT(strstr(err, "NaN") != NULL);
    d.c = (fmag_vm_operand){false, 0, -INFINITY};
    EXPECT(!fmag_vm_encode(&d, &in, err, sizeof err));
    EXPECT(strstr(err, "infinity") != NULL);
}

/* The special values: fmag_test_specials (RandomProgram.h, shared with EmitTest.c). */
#define NSPECIAL ((size_t)fmag_test_nspecials)

/* r0 = fmag r0, r1, r2, r3 against the oracle g > 0 ? fmaf(a, b, c) : a, over
 * every combination of special values in all four slots (inputs at run time, so
 * inf * 0 and the like happen inside the VM). */
static void test_one_instruction_oracle(void)
{
    fmag_vm_instr code[1] = {I(0, 0, R(1), R(2), R(3))};
    fmag_vm_program p = prog("t", 4, 4, 1, code, 1);
    float regs[4];
    size_t checked = 0;
    for (size_t ia = 0; ia < NSPECIAL; ia++)
        for (size_t ib = 0; ib < NSPECIAL; ib++)
            for (size_t ic = 0; ic < NSPECIAL; ic++)
                for (size_t ig = 0; ig < NSPECIAL; ig++) {
                    float in[4] = {fmag_test_specials[ia], fmag_test_specials[ib],
                                   fmag_test_specials[ic], fmag_test_specials[ig]};
                    float out;
                    fmag_vm_run(&p, in, &out, regs);
                    float want = in[3] > 0 ? fmaf(in[0], in[1], in[2]) : in[0];
                    if (isnan(want) && in[3] > 0)
                        EXPECT(fmag_bits_of(out) == FMAG_VM_CANONICAL_NAN); /* a NaN result */
                    else if (isnan(want))
                        EXPECT(fmag_bits_of(out) ==
                               fmag_bits_of(in[0])); /* no write: the input NaN */
                    else
                        EXPECT(fmag_bits_of(out) == fmag_bits_of(want));
                    checked++;
                }
    EXPECT(checked == NSPECIAL * NSPECIAL * NSPECIAL * NSPECIAL);
}

/* Literal operands in each slot, checked against hand-computed constants. */
static void test_literals_by_hand(void)
{
    float regs[8], out[5];
    /* r1 = 3*2 + 0.5 = 6.5 (b, c, g literal); r2 = r1*-1 + 10 = 3.5 (guard literal
     * denormal: > 0, so it fires); r3 = guard -0: never fires, stays +0. */
    fmag_vm_instr code[] = {
        I(1, 0, L(2.0f), L(0.5f), L(1.0f)), I(2, 1, L(-1.0f), L(10.0f), L(1e-45f)),
        I(3, 0, L(5.0f), L(5.0f), L(-0.0f)),
        I(0, 0, R(0), L(0.0f), L(0.0f)), /* guard +0: no write, r0 stays 3 */
    };
    fmag_vm_program p = prog("lit", 4, 1, 4, code, 4);
    float in[1] = {3.0f};
    fmag_vm_run(&p, in, out, regs);
    EXPECT(out[0] == 3.0f);
    EXPECT(out[1] == 6.5f);
    EXPECT(out[2] == 3.5f);
    EXPECT(fmag_bits_of(out[3]) == 0u); /* +0, not -0 */

    /* Single rounding: (1+2^-23)*(1-2^-23) + -1 = -2^-46 exactly under fma; a
     * separately rounded multiply would give 0. */
    fmag_vm_instr fused[] = {I(0, 0, L(0.99999988f), L(-1.0f), L(1.0f))};
    fmag_vm_program pf = prog("fused", 1, 1, 1, fused, 1);
    float x = 1.00000012f;
    fmag_vm_run(&pf, &x, out, regs);
    EXPECT(out[0] == -ldexpf(1.0f, -46));

    /* inf * 0 at run time is NaN; the NaN is then a guard (never fires) and a value. */
    fmag_vm_instr nan_code[] = {
        I(2, 0, R(1), L(0.0f), L(1.0f)),    /* r2 = inf*0 + 0 = NaN */
        I(3, 0, L(1.0f), L(0.0f), R(2)),    /* guard NaN: r3 stays +0 */
        I(1, 2, L(1.0f), L(0.0f), L(1.0f)), /* r1 = NaN */
    };
    fmag_vm_program pn = prog("nan", 4, 2, 4, nan_code, 3);
    float nin[2] = {INFINITY, 0.0f};
    fmag_vm_run(&pn, nin, out, regs);
    EXPECT(out[0] == INFINITY);
    EXPECT(isnan(out[1]) && isnan(out[2]));
    EXPECT(fmag_bits_of(out[3]) == 0u);

    /* Every NaN an instruction makes is the canonical +qNaN, whatever the
     * operands' NaN signs and payloads; a NaN that is never written keeps its bits. */
    fmag_vm_instr canon[] = {
        I(1, 0, L(0.0f), L(0.0f), L(1.0f)), /* inf*0: x86 would make 0xFFC00000 */
        I(2, 3, R(4), L(1.0f), L(1.0f)),    /* NaN inputs: which would pass on? */
        I(3, 4, R(3), R(4), L(1.0f)),
    };
    fmag_vm_program pc = prog("canon", 5, 5, 5, canon, 3);
    float cin[5] = {INFINITY, 0, 0, fmag_float_of(0xFFC00123u), fmag_float_of(0x7FC00456u)};
    fmag_vm_run(&pc, cin, out, regs);
    EXPECT(fmag_bits_of(out[0]) == 0x7F800000u);
    EXPECT(fmag_bits_of(out[1]) == FMAG_VM_CANONICAL_NAN);
    EXPECT(fmag_bits_of(out[2]) == FMAG_VM_CANONICAL_NAN);
    EXPECT(fmag_bits_of(out[3]) == FMAG_VM_CANONICAL_NAN);
    float cout5[5];
    fmag_vm_run(&pc, cin, cout5, regs);
    EXPECT(fmag_bits_of(cout5[4]) == 0x7FC00456u); /* r4 never written */
    const fmag_vm_program *pcp = &pc;
    float bout[5];
    char err[256];
    EXPECT(fmag_vm_run_per_lane_threads(&pcp, 1, NULL, cin, 5, bout, 5, 1, 1, err, sizeof err));
    EXPECT(memcmp(bout, cout5, sizeof bout) == 0);

    /* Denormal results are kept, not flushed: 2^-126 * 0.5 = 2^-127. */
    fmag_vm_instr den[] = {I(0, 0, L(0.5f), L(0.0f), L(1.0f))};
    fmag_vm_program pd = prog("den", 1, 1, 1, den, 1);
    float dn = 1.17549435e-38f;
    fmag_vm_run(&pd, &dn, out, regs);
    EXPECT(fmag_bits_of(out[0]) == 0x00400000u);
}

/* The SPEC's lerp example: r1 = b - a; r0 = r1*t + a. */
static void test_lerp(void)
{
    fmag_vm_instr code[] = {
        I(1, 0, L(-1.0f), R(1), L(1.0f)),
        I(0, 1, R(2), R(0), L(1.0f)),
        I(2, 2, L(1.0f), L(0.0f), R(0)),
    };
    fmag_vm_program p = prog("lerp", 3, 3, 1, code, 3);
    float regs[3], out;
    float cases[][3] = {{0, 10, 0.25f}, {-3, 5, 0.5f}, {1e30f, -1e30f, 0.3f}, {2, 2, 7}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        fmag_vm_run(&p, cases[k], &out, regs);
        float a = cases[k][0], b = cases[k][1], t = cases[k][2];
        EXPECT(fmag_bits_of(out) == fmag_bits_of(fmaf(fmaf(a, -1.0f, b), t, a)));
    }
    fmag_vm_run(&p, cases[0], &out, regs);
    EXPECT(out == 2.5f);
}

/* Inputs land in r[0..nin-1]; every other register starts at +0; a program with
 * no instructions returns its inputs and zeros. */
static void test_initial_state(void)
{
    fmag_vm_program p = prog("empty", 5, 2, 4, NULL, 0);
    float regs[5] = {9, 9, 9, 9, 9}, out[4];
    float in[2] = {-0.0f, 4.0f};
    fmag_vm_run(&p, in, out, regs);
    EXPECT(fmag_bits_of(out[0]) == 0x80000000u);
    EXPECT(out[1] == 4.0f);
    EXPECT(fmag_bits_of(out[2]) == 0u && fmag_bits_of(out[3]) == 0u);
}

static void test_validate(void)
{
    char err[256];
    fmag_vm_instr code[] = {I(0, 0, R(1), R(2), R(3))};
    fmag_vm_program p = prog("v", 4, 4, 1, code, 1);
    EXPECT(fmag_vm_program_validate(&p, err, sizeof err));
    p.regs = 3;
    p.nin = 3;
    EXPECT(!fmag_vm_program_validate(&p, err, sizeof err));
    EXPECT(strstr(err, "instruction 0") && strstr(err, "guard"));
    p.nin = 4;
    EXPECT(!fmag_vm_program_validate(&p, err, sizeof err));
    EXPECT(strstr(err, "inputs"));
    code[0] = I(0, 9, L(1), L(1), L(1));
    p = prog("v", 4, 1, 1, code, 1);
    EXPECT(!fmag_vm_program_validate(&p, err, sizeof err));
    EXPECT(strstr(err, "operand a"));
    code[0] = I(4, 0, L(1), L(1), L(1));
    EXPECT(!fmag_vm_program_validate(&p, err, sizeof err));
    EXPECT(strstr(err, "destination"));
    code[0] = (fmag_vm_instr){0xFF800000u, 0, 0, 0};
    EXPECT(!fmag_vm_program_validate(&p, err, sizeof err));
    EXPECT(strstr(err, "infinity"));
}

static void test_image_round_trip(void)
{
    char err[256];
    fmag_vm_instr c1[] = {I(1, 0, L(-1.0f), R(1), L(1.0f)), I(0, 1, R(2), R(0), L(1.0f))};
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    EXPECT(fmag_vm_image_add(&img, "lerp", FMAG_VM_FLAG_FASTMATH, 3, 3, 1, c1, 2));
    EXPECT(fmag_vm_image_add(&img, "seventeen_chars__", 0, 2, 1, 2, NULL, 0));
    void *data;
    size_t len;
    EXPECT(fmag_vm_image_write(&img, &data, &len, err, sizeof err));
    /* 32 + 16 (name) + 32 code, then 32 + 32 (17-byte name padded) + 0 code. */
    EXPECT(len == 32 + 16 + 32 + 32 + 32);
    const unsigned char *b = data;
    EXPECT(memcmp(b, "FMAG", 4) == 0 && b[4] == 1 && b[5] == 0 && b[6] == 1);
    EXPECT(b[8] == 2 && b[12] == 3 && b[14] == 3 && b[16] == 1 && b[18] == 4);
    EXPECT(memcmp(b + 32, "lerp", 4) == 0 && b[36] == 0);
    /* word 0 of instruction 0 is -1.0f = 0xBF800000, little-endian */
    EXPECT(b[48] == 0x00 && b[49] == 0x00 && b[50] == 0x80 && b[51] == 0xBF);
    EXPECT(b[60] == 1 && b[61] == 0 && b[62] == 0 && b[63] == 0); /* d=1, a=0 */

    fmag_vm_image back;
    fmag_vm_image_init(&back);
    EXPECT(fmag_vm_image_read(&back, data, len, err, sizeof err));
    EXPECT(back.nprograms == 2);
    if (back.nprograms == 2) {
        EXPECT(strcmp(back.programs[0].name, "lerp") == 0);
        EXPECT(back.programs[0].flags == 1 && back.programs[0].ninstr == 2);
        EXPECT(memcmp(back.programs[0].code, c1, sizeof c1) == 0);
        EXPECT(((uintptr_t)back.programs[0].code & 15) == 0);
        EXPECT(strcmp(back.programs[1].name, "seventeen_chars__") == 0);
        EXPECT(back.programs[1].ninstr == 0 && back.programs[1].nout == 2);
        EXPECT(fmag_vm_image_find(&back, "lerp") == &back.programs[0]);
        EXPECT(fmag_vm_image_find(&back, "nope") == NULL);
    }

    /* Corruptions, each with its message and the byte offset it names. */
    unsigned char *bad = malloc(len + 8);
    struct {
        size_t at;
        unsigned char val;
        size_t len;
        const char *want;
    } cases[] = {
        {0, 'X', len, "record 0 at byte offset 0: bad magic"},
        {4, 2, len, "record 0 at byte offset 4: unsupported version 2"},
        {8, 200, len, "record 0 at byte offset 8: 200 instructions"},
        {12, 2, len, "record 0 at byte offset 14: 3 inputs exceed the 2 registers"},
        {18, 200, len, "record 0 at byte offset 18: name"},
        {22, 1, len, "record 0 at byte offset 22: reserved"},
        {20, 1, len,
         "record 0 at byte offset 20: a derivative input count without the derivatives"},
        {6, 2, len,
         "record 0 at byte offset 20: the derivatives flag (0x2) with a derivative input"},
        {62, 3, len, "record 0 at byte offset 62: instruction 0: register index 3 in operand a"},
        {52, 9, len, "record 0 at byte offset 52: instruction 0: register index 9 in operand c"},
        {len, 0, len + 1, "record 2 at byte offset 144: 1 trailing bytes"},
        {0, 'F', 20, "record 0 at byte offset 0: truncated header (20 of 32 bytes)"},
        {0, 'F', 0, "empty file"},
        {0, 'F', len - 16, "record 1 at byte offset 98: name"},
        {0, 'F', 70, "record 0 at byte offset 8: 2 instructions"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(bad, data, len);
        memset(bad + len, 0, 8);
        bad[cases[k].at] = cases[k].val;
        fmag_vm_image tmp;
        fmag_vm_image_init(&tmp);
        err[0] = 0;
        bool ok = fmag_vm_image_read(&tmp, bad, cases[k].len, err, sizeof err);
        if (ok || !strstr(err, cases[k].want))
            fprintf(stderr, "corrupt case %zu: got '%s', want '%s'\n", k, err, cases[k].want);
        EXPECT(!ok && strstr(err, cases[k].want));
        EXPECT(tmp.nprograms == 0);
        fmag_vm_image_free(&tmp);
    }
    /* An infinity word in the guard slot of instruction 1 (offset 48+16+8). */
    memcpy(bad, data, len);
    bad[72] = 0, bad[73] = 0, bad[74] = 0x80, bad[75] = 0x7F;
    EXPECT(!fmag_vm_image_read(&back, bad, len, err, sizeof err));
    EXPECT(strstr(err, "byte offset 72: instruction 1: literal +infinity in operand guard"));
    free(bad);
    free(data);
    fmag_vm_image_free(&back);
    fmag_vm_image_free(&img);
}

/* Deterministic random programs and inputs: RandomProgram.h, shared with EmitTest.c. */
static fmag_test_rng rng = {88172645463325252ull};
static uint32_t rnd(void)
{
    return fmag_test_rnd(&rng);
}
static float rnd_value(void)
{
    return fmag_test_rnd_value(&rng);
}
static fmag_vm_program rnd_prog(void)
{
    return fmag_test_rnd_program(&rng, 120, "rnd");
}

static bool same_bits(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof(float)) == 0;
}

static void test_batch_vs_reference(void)
{
    char err[256];
    for (int trial = 0; trial < 60; trial++) {
        fmag_vm_program p = rnd_prog();
        size_t n = 1 + rnd() % 700;
        size_t nin = p.nin ? p.nin : 1, nout = p.nout ? p.nout : 1;
        float *in = malloc(n * nin * sizeof(float));
        float *want = calloc(n * nout, sizeof(float));
        float *got = calloc(n * nout, sizeof(float));
        float regs[64];
        for (size_t k = 0; k < n * nin; k++)
            in[k] = rnd_value();
        for (size_t k = 0; k < n; k++)
            fmag_vm_run(&p, in + k * p.nin, want + k * p.nout, regs);
        EXPECT(fmag_vm_run_batch(&p, in, got, n, err, sizeof err));
        EXPECT(same_bits(want, got, n * p.nout));
        const fmag_vm_program *pp = &p;
        for (unsigned th = 1; th <= 3; th++) {
            memset(got, 0, n * nout * sizeof(float));
            EXPECT(fmag_vm_run_per_lane_threads(&pp, 1, NULL, in, p.nin, got, p.nout, n, th, err,
                                                sizeof err));
            EXPECT(same_bits(want, got, n * p.nout));
        }
        free(in);
        free(want);
        free(got);
        fmag_test_program_free(&p);
    }
}

static void test_per_lane(void)
{
    char err[256];
    enum { NP = 5, N = 3000, STRIDE = 48 };
    fmag_vm_program ps[NP];
    const fmag_vm_program *pp[NP];
    for (int i = 0; i < NP; i++) {
        ps[i] = rnd_prog();
        pp[i] = &ps[i];
    }
    uint32_t *idx = malloc(N * sizeof(uint32_t));
    float *in = malloc(N * STRIDE * sizeof(float));
    float *want = calloc(N * STRIDE, sizeof(float));
    float *got = calloc(N * STRIDE, sizeof(float));
    float *ref = calloc(N * STRIDE, sizeof(float));
    float regs[64];
    for (size_t k = 0; k < N; k++)
        idx[k] = rnd() % 7 < 3 ? 2 : rnd() % NP; /* uneven mix, runs and scatter */
    for (size_t k = 0; k < N * STRIDE; k++)
        in[k] = rnd_value();
    for (size_t k = 0; k < N; k++)
        fmag_vm_run(pp[idx[k]], in + k * STRIDE, want + k * STRIDE, regs);
    for (unsigned th = 0; th <= 4; th++) {
        memset(got, 0, N * STRIDE * sizeof(float));
        EXPECT(fmag_vm_run_per_lane_threads(pp, NP, idx, in, STRIDE, got, STRIDE, N, th, err,
                                            sizeof err));
        EXPECT(same_bits(want, got, N * STRIDE));
    }
    EXPECT(fmag_vm_run_per_lane(pp, NP, idx, in, STRIDE, got, STRIDE, N, err, sizeof err));
    EXPECT(same_bits(want, got, N * STRIDE));
    EXPECT(fmag_vm_run_ref_per_lane(pp, NP, idx, in, STRIDE, ref, STRIDE, N, err, sizeof err));
    EXPECT(same_bits(want, ref, N * STRIDE));

    idx[17] = NP;
    EXPECT(!fmag_vm_run_per_lane(pp, NP, idx, in, STRIDE, got, STRIDE, N, err, sizeof err));
    EXPECT(strstr(err, "element 17: program index 5 out of range"));
    EXPECT(!fmag_vm_run_ref_per_lane(pp, NP, idx, in, STRIDE, got, STRIDE, N, err, sizeof err));
    EXPECT(strstr(err, "element 17"));
    fmag_vm_program three = prog("three", 3, 3, 1, NULL, 0);
    const fmag_vm_program *tp = &three;
    EXPECT(!fmag_vm_run_per_lane(&tp, 1, NULL, in, 2, got, 1, 4, err, sizeof err));
    EXPECT(strstr(err, "strides are 2 and 1"));
    free(idx);
    free(in);
    free(want);
    free(got);
    free(ref);
    for (int i = 0; i < NP; i++)
        fmag_test_program_free(&ps[i]);
}

/* The engine object: every ISA this CPU runs, fixed and per-program block sizes, 1 to 4
 * threads of one persistent pool reused across runs, uniform and per-lane (a mix of
 * programs interleaved element by element, tiny groups, big register files), each bit for
 * bit against the reference; and the caller's MXCSR (flush-to-zero and
 * denormals-are-zero set, an exception unmasked) left as it was while the run ignores it. */
/* A denormal literal guard is > 0 (SPEC 1) whatever the caller's MXCSR: with
 * denormals-are-zero set, the engine's pre-decoding once compared it as 0 and dropped
 * the instruction (r0 = 3 * 2 + 1 = 7 by hand). */
static void test_engine_denormal_guard(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    char err[256];
    fmag_vm_instr code[1] = {I(0, 0, L(2.0f), L(1.0f), L(1e-45f))};
    fmag_vm_program p = {0};
    p.code = code, p.ninstr = 1, p.regs = 1, p.nin = 1, p.nout = 1;
    const fmag_vm_program *pp = &p;
    float in[1] = {3.0f}, out[1] = {0.0f};
    fmag_vm_engine *e = fmag_vm_engine_create(NULL, err, sizeof err);
    EXPECT(e != NULL);
    if (!e) return;
    unsigned before = __builtin_ia32_stmxcsr();
    __builtin_ia32_ldmxcsr(0x1F80u | 0x8000u | 0x0040u); /* FTZ | DAZ */
    bool ran = fmag_vm_engine_run(e, &pp, 1, NULL, in, 1, out, 1, 1, err, sizeof err);
    __builtin_ia32_ldmxcsr(before);
    EXPECT(ran);
    EXPECT(out[0] == 7.0f);
    fmag_vm_engine_destroy(e);
#endif
}

static void test_engine(void)
{
    char err[256];
    enum { NP = 7, N = 20000, STRIDE = 48 }; /* several grouping windows */
    fmag_vm_program ps[NP];
    const fmag_vm_program *pp[NP];
    for (int i = 0; i < NP; i++) {
        ps[i] = rnd_prog();
        pp[i] = &ps[i];
    }
    /* One with a register file too big for the largest block. */
    free(ps[6].code);
    ps[6].regs = 700;
    ps[6].ninstr = 300;
    ps[6].code = aligned_alloc(16, 300 * sizeof(fmag_vm_instr));
    fmag_test_rnd_code(&rng, ps[6].code, 300, 700);
    ps[6].nin = 40, ps[6].nout = 30;
    uint32_t *idx = malloc(N * sizeof(uint32_t));
    float *in = malloc(N * STRIDE * sizeof(float));
    float *want = calloc(N * STRIDE, sizeof(float));
    float *got = calloc(N * STRIDE, sizeof(float));
    for (size_t k = 0; k < N; k++)
        idx[k] = k < 3000 ? (uint32_t)(k % NP) : (k < 3005 ? 4u : (uint32_t)(rnd() % NP));
    for (size_t k = 0; k < N * STRIDE; k++)
        in[k] = rnd_value();
    EXPECT(fmag_vm_run_ref_per_lane(pp, NP, idx, in, STRIDE, want, STRIDE, N, err, sizeof err));
    static const fmag_vm_isa isas[] = {FMAG_VM_ISA_GENERIC, FMAG_VM_ISA_AVX2, FMAG_VM_ISA_AVX512};
    for (int ii = 0; ii < 3; ii++)
        for (unsigned th = 1; th <= 4; th += 3)
            for (unsigned lanes = 0; lanes <= 48; lanes += 48) {
                fmag_vm_engine_options o = {th, isas[ii], lanes};
                fmag_vm_engine *e = fmag_vm_engine_create(&o, err, sizeof err);
                if (!e) {
                    EXPECT(isas[ii] != FMAG_VM_ISA_GENERIC);
                    EXPECT(strstr(err, "cannot run") != NULL);
                    continue;
                }
                EXPECT(fmag_vm_engine_threads(e) == th);
                for (int rep = 0; rep < 2; rep++) { /* the pool is reused */
                    memset(got, 0, N * STRIDE * sizeof(float));
                    EXPECT(fmag_vm_engine_run(e, pp, NP, idx, in, STRIDE, got, STRIDE, N, err,
                                              sizeof err));
                    EXPECT(same_bits(want, got, N * STRIDE));
                }
                /* Uniform, and a handful of elements. */
                for (size_t n = 1; n <= N; n += N - 1) {
                    float *w1 = calloc(n * STRIDE, sizeof(float));
                    float *g1 = calloc(n * STRIDE, sizeof(float));
                    EXPECT(fmag_vm_run_ref_per_lane(&pp[6], 1, NULL, in, STRIDE, w1, STRIDE, n, err,
                                                    sizeof err));
                    EXPECT(fmag_vm_engine_run(e, &pp[6], 1, NULL, in, STRIDE, g1, STRIDE, n, err,
                                              sizeof err));
                    EXPECT(same_bits(w1, g1, n * STRIDE));
                    /* The same elements as columns (structure of arrays). */
                    const fmag_vm_program *q = pp[6];
                    float *cin = malloc(n * q->nin * sizeof(float));
                    float *cout = calloc(n * q->nout, sizeof(float));
                    const float *ic[64];
                    float *oc[64];
                    for (uint32_t r = 0; r < q->nin; r++) {
                        ic[r] = cin + r * n;
                        for (size_t k = 0; k < n; k++)
                            cin[r * n + k] = in[k * STRIDE + r];
                    }
                    for (uint32_t r = 0; r < q->nout; r++)
                        oc[r] = cout + r * n;
                    EXPECT(fmag_vm_engine_run_columns(e, q, ic, oc, n, err, sizeof err));
                    bool cols_same = true;
                    for (size_t k = 0; k < n; k++)
                        for (uint32_t r = 0; r < q->nout; r++)
                            cols_same &= !memcmp(&cout[r * n + k], &w1[k * STRIDE + r], 4);
                    EXPECT(cols_same);
                    EXPECT(!fmag_vm_engine_run_columns(e, q, NULL, oc, n, err, sizeof err));
                    EXPECT(strstr(err, "without input columns") != NULL);
                    free(cin);
                    free(cout);
                    free(w1);
                    free(g1);
                }
#if defined(__x86_64__) && defined(__GNUC__)
                /* FTZ | DAZ | overflow exception unmasked: the run must ignore it and keep it. */
                unsigned mine = (0x1F80u | 0x8000u | 0x0040u) & ~0x0400u;
                unsigned before = __builtin_ia32_stmxcsr();
                __builtin_ia32_ldmxcsr(mine);
                memset(got, 0, N * STRIDE * sizeof(float));
                bool ran =
                    fmag_vm_engine_run(e, pp, NP, idx, in, STRIDE, got, STRIDE, N, err, sizeof err);
                unsigned after = __builtin_ia32_stmxcsr();
                __builtin_ia32_ldmxcsr(before);
                EXPECT(ran);
                EXPECT((after & 0xFFC0u) == (mine & 0xFFC0u));
                EXPECT(same_bits(want, got, N * STRIDE));
#endif
                fmag_vm_engine_destroy(e);
            }
    idx[17] = NP;
    fmag_vm_engine *e = fmag_vm_engine_create(NULL, err, sizeof err);
    EXPECT(e != NULL);
    EXPECT(!fmag_vm_engine_run(e, pp, NP, idx, in, STRIDE, got, STRIDE, N, err, sizeof err));
    EXPECT(strstr(err, "element 17: program index 7 out of range"));
    fmag_vm_engine_destroy(e);
    free(idx);
    free(in);
    free(want);
    free(got);
    for (int i = 0; i < NP; i++)
        fmag_test_program_free(&ps[i]);
}

/* fmag_vm_file_kind_of: content first, name second, a guess from the text last; each
 * case worked by hand from the rules in VM.h. */
static void test_file_kind(void)
{
    static const char fir[] = "; a module\nexport func @f(%x) -> 1 {\n^e:\n  ret %x\n}\n";
    static const char fmas[] = "  .def f, 1, 1\n  %r0 = fmag %r0, 1, 1, 1\n";
    static const char sl[] = "// shade\nexport f32 f(f32 x) { return x; }\n";
    static const unsigned char spv_le[] = {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0};
    static const unsigned char spv_be[] = {0x07, 0x23, 0x02, 0x03, 0, 1, 0, 0};
    static const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
    fmag_vm_file_evidence ev;
#define KIND(path, data, len, want, want_ev)                                                       \
    do {                                                                                           \
        EXPECT(fmag_vm_file_kind_of(path, data, len, &ev) == (want));                              \
        EXPECT(ev == (want_ev));                                                                   \
    } while (0)
    /* Content beats any name. */
    KIND("x.sl", "FMAG\1\0", 6, FMAG_VM_FILE_FMAG, FMAG_VM_FILE_BY_CONTENT);
    KIND("x.fmag", spv_le, sizeof spv_le, FMAG_VM_FILE_SPIRV, FMAG_VM_FILE_BY_CONTENT);
    KIND(NULL, spv_be, sizeof spv_be, FMAG_VM_FILE_SPIRV, FMAG_VM_FILE_BY_CONTENT);
    KIND("x.sl", fir, strlen(fir), FMAG_VM_FILE_FIR, FMAG_VM_FILE_BY_CONTENT);
    KIND("x.txt", fir, strlen(fir), FMAG_VM_FILE_FIR, FMAG_VM_FILE_BY_CONTENT);
    KIND("x.fir", fmas, strlen(fmas), FMAG_VM_FILE_FMAS, FMAG_VM_FILE_BY_CONTENT);
    /* `.define` is not `.def`; `funcs @` is not `func @`. */
    KIND("x.txt", ".define\nfuncs @f\n", 16, FMAG_VM_FILE_TEXT, FMAG_VM_FILE_BY_GUESS);
    /* Then the name: text kinds for text only, binary kinds for anything. */
    KIND("x.sl", "float f;", 8, FMAG_VM_FILE_SL, FMAG_VM_FILE_BY_NAME);
    KIND("a/b.frag", "void main(){}", 13, FMAG_VM_FILE_GLSL, FMAG_VM_FILE_BY_NAME);
    KIND("b.hlsl", sl, strlen(sl), FMAG_VM_FILE_HLSL, FMAG_VM_FILE_BY_NAME);
    KIND("b.fir", "garbage", 7, FMAG_VM_FILE_FIR, FMAG_VM_FILE_BY_NAME);
    KIND("b.fmag", elf, sizeof elf, FMAG_VM_FILE_FMAG, FMAG_VM_FILE_BY_NAME);
    KIND("b.fmag", "", 0, FMAG_VM_FILE_FMAG, FMAG_VM_FILE_BY_NAME);
    KIND("b.fir", "", 0, FMAG_VM_FILE_FIR, FMAG_VM_FILE_BY_NAME);
    KIND("b.fir", elf, sizeof elf, FMAG_VM_FILE_UNKNOWN, FMAG_VM_FILE_BY_GUESS);
    KIND("b.spv", "text", 4, FMAG_VM_FILE_SPIRV, FMAG_VM_FILE_BY_NAME); /* a damaged binary */
    KIND("b.fmag", "FMA", 3, FMAG_VM_FILE_FMAG, FMAG_VM_FILE_BY_NAME);
    KIND(".sl", "x", 1, FMAG_VM_FILE_TEXT, FMAG_VM_FILE_BY_GUESS); /* no name before it */
    /* Last, a guess from the text. */
    KIND("-", sl, strlen(sl), FMAG_VM_FILE_SL, FMAG_VM_FILE_BY_GUESS);
    KIND(NULL, "#version 450\nvoid main(){}\n", 26, FMAG_VM_FILE_GLSL, FMAG_VM_FILE_BY_GUESS);
    KIND(NULL, "hello\n", 6, FMAG_VM_FILE_TEXT, FMAG_VM_FILE_BY_GUESS);
    KIND(NULL, elf, sizeof elf, FMAG_VM_FILE_UNKNOWN, FMAG_VM_FILE_BY_GUESS);
    KIND(NULL, "", 0, FMAG_VM_FILE_UNKNOWN, FMAG_VM_FILE_BY_GUESS);
#undef KIND
    EXPECT(fmag_vm_file_kind_of("x.fir", "", 0, NULL) == FMAG_VM_FILE_FIR);
    EXPECT(!strcmp(fmag_vm_file_kind_name(FMAG_VM_FILE_FIR), "FMAG IR text"));
    EXPECT(!strcmp(fmag_vm_file_kind_name(FMAG_VM_FILE_UNKNOWN), "binary data"));
}

int main(void)
{
    test_encode_decode();
    test_one_instruction_oracle();
    test_literals_by_hand();
    test_lerp();
    test_initial_state();
    test_validate();
    test_image_round_trip();
    test_batch_vs_reference();
    test_per_lane();
    test_engine();
    test_engine_denormal_guard();
    test_file_kind();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("vm unit tests passed (batch isa: %s)\n", fmag_vm_batch_isa());
    return 0;
}
