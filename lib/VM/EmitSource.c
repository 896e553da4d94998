/* Source emitters: an FMAG program (or several, as a per-lane switch) written out as
 * straight-line C, GLSL or CUDA that computes exactly what the reference VM does.
 * Users bake a finished graph with it; the benchmarks use the C as the native
 * baseline. Each register becomes a local variable; each instruction one line. */
#include "fmag/VM.h"
#include "fmag/Bits.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing NUL-terminated string; `failed` latches an allocation failure. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool failed;
} sbuf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->len <= (size_t)n)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

bool fmag_vm_emit_lang_parse(const char *name, fmag_vm_emit_lang *lang)
{
    if (!strcmp(name, "c"))
        *lang = FMAG_VM_EMIT_C;
    else if (!strcmp(name, "glsl"))
        *lang = FMAG_VM_EMIT_GLSL;
    else if (!strcmp(name, "cuda"))
        *lang = FMAG_VM_EMIT_CUDA;
    else
        return false;
    return true;
}

/* A finite literal as source text that reads back to the same bits. The decimal must
 * survive both a direct float parse (C, CUDA) and a parse to double then a rounding to
 * float (what some GLSL front ends do), so the shortest %.Ng that passes both is used;
 * where none does, and for denormals and -0 in GLSL (a shader compiler may flush or fold
 * them), the bits are written out. */
static void format_literal(char *buf, size_t n, float f, fmag_vm_emit_lang lang)
{
    uint32_t w = fmag_bits_of(f);
    bool glsl = lang == FMAG_VM_EMIT_GLSL;
    bool subnormal = f != 0.0f && fabsf(f) < 0x1p-126f;
    if (glsl && (subnormal || w == 0x80000000u)) {
        snprintf(buf, n, "uintBitsToFloat(0x%08Xu)", (unsigned)w);
        return;
    }
    for (int prec = 1; prec <= 9; prec++) {
        char t[48];
        snprintf(t, sizeof t, "%.*g", prec, (double)f);
        float a = strtof(t, NULL);
        float b = (float)strtod(t, NULL);
        if (fmag_bits_of(a) != w || fmag_bits_of(b) != w) continue;
        /* Make it a floating literal: "1" is an integer in C and GLSL. */
        if (!strpbrk(t, ".eEn")) strcat(t, ".0");
        snprintf(buf, n, "%s%s", t, glsl ? "" : "f");
        return;
    }
    if (glsl)
        snprintf(buf, n, "uintBitsToFloat(0x%08Xu)", (unsigned)w);
    else
        snprintf(buf, n, "%af", (double)f);
}

/* The text of an operand: a register variable or a literal. */
static void format_operand(char *buf, size_t n, uint32_t word, fmag_vm_emit_lang lang,
                           const char *lane)
{
    if (fmag_vm_word_is_ref(word))
        snprintf(buf, n, "r%u%s", (unsigned)(word & 0xFFFFu), lane);
    else
        format_literal(buf, n, fmag_float_of(word), lang);
}

/* Identifiers: the prefix plus the program name with every character outside
 * [A-Za-z0-9_] replaced by '_'; a name that repeats an earlier one (after that
 * replacement) or is empty gets the program index appended. */
static char **make_names(const fmag_vm_program *const *progs, size_t nprogs, const char *prefix)
{
    char **names = calloc(nprogs ? nprogs : 1, sizeof(char *));
    if (!names) return NULL;
    for (size_t i = 0; i < nprogs; i++) {
        const char *pn = progs[i]->name ? progs[i]->name : "";
        size_t len = strlen(prefix) + strlen(pn) + 24;
        char *s = malloc(len);
        if (!s) goto fail;
        size_t k = (size_t)snprintf(s, len, "%s", prefix);
        for (const char *c = pn; *c; c++) {
            bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                      (*c >= '0' && *c <= '9') || *c == '_';
            /* GLSL reserves names with "__"; never make one. */
            if (!ok && k > 0 && s[k - 1] == '_') continue;
            if (*c == '_' && k > 0 && s[k - 1] == '_') continue;
            s[k++] = ok ? *c : '_';
        }
        s[k] = 0;
        size_t plen = strlen(prefix);
        bool clash = k == plen || !strcmp(s + plen, "eval") || !strcmp(s + plen, "run_per_lane") ||
                     (k >= 4 && !strcmp(s + k - 4, "_soa")) ||
                     (k >= 7 && !strcmp(s + k - 7, "_kernel"));
        for (size_t j = 0; j < i && !clash; j++)
            clash = !strcmp(names[j], s);
        if (clash) snprintf(s + k, len - k, "%sp%zu", k && s[k - 1] == '_' ? "" : "_", i);
        names[i] = s;
    }
    return names;
fail:
    for (size_t i = 0; i < nprogs; i++)
        free(names[i]);
    free(names);
    return NULL;
}

/* A program name inside a comment: printable ASCII only, and never a comment end. */
static void sb_comment_name(sbuf *b, const char *name)
{
    for (const unsigned char *c = (const unsigned char *)(name ? name : ""); *c; c++) {
        if (*c == '*' && c[1] == '/')
            sb_printf(b, "*_");
        else if (*c >= 0x20 && *c < 0x7F && *c != '\\')
            sb_printf(b, "%c", *c);
        else
            sb_printf(b, "\\x%02x", (unsigned)*c);
    }
}

static const char c_helpers[] =
    "#include <math.h>\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "\n"
    "#ifndef FMAG_EMIT_C_HELPERS\n"
    "#define FMAG_EMIT_C_HELPERS\n"
    "/* One FMAG evaluation: fmaf, a NaN result stored as the VM's canonical 0x7FC00000. */\n"
    "static inline float fmag_emit_fma(float a, float b, float c)\n"
    "{\n"
    "    float r = fmaf(a, b, c), q;\n"
    "    uint32_t w = 0x7FC00000u;\n"
    "    memcpy(&q, &w, sizeof q);\n"
    "    return r != r ? q : r;\n"
    "}\n"
    "/* Lanes per chunk of the _soa loops (a multiple of the SIMD width). */\n"
    "#ifndef FMAG_EMIT_CHUNK\n"
    "#define FMAG_EMIT_CHUNK 32\n"
    "#endif\n"
    "#define FMAG_EMIT_EACH(j) for (size_t j = 0; j < FMAG_EMIT_CHUNK; j++)\n"
    "/* A chunk of one input; lanes past m are +0 (computed, never stored). */\n"
    "static inline void fmag_emit_load(float *r, const float *src, size_t m)\n"
    "{\n"
    "    if (m < FMAG_EMIT_CHUNK) memset(r, 0, FMAG_EMIT_CHUNK * sizeof(float));\n"
    "    memcpy(r, src, m * sizeof(float));\n"
    "}\n"
    "#endif\n";

static const char cuda_helpers[] =
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "\n"
    "#ifndef FMAG_EMIT_CUDA_HELPERS\n"
    "#define FMAG_EMIT_CUDA_HELPERS\n"
    "/* One FMAG evaluation: the IEEE fma, a NaN result stored as the VM's canonical\n"
    " * 0x7FC00000. */\n"
    "static __device__ __forceinline__ float fmag_emit_fma(float a, float b, float c)\n"
    "{\n"
    "    float r = __fmaf_rn(a, b, c);\n"
    "    return r != r ? __int_as_float(0x7FC00000) : r;\n"
    "}\n"
    "#endif\n";

/* The software fma is the Vulkan runner's, its text taken from gpu/fmag_interp.glsl at
 * configure time (SoftFma.inc): float64 product (exact), sum rounded to odd, one final
 * rounding to float. */
static const char glsl_helpers[] =
    "#ifndef FMAG_EMIT_GLSL_HELPERS\n"
    "#define FMAG_EMIT_GLSL_HELPERS\n"
    "// FMAG_SOFT_FMA 1 selects an exact software fma (needs shaderFloat64) for drivers whose\n"
    "// fma() is not fused, as the library's Vulkan runner does: always on a CPU driver\n"
    "// (lavapipe), elsewhere when its start-up probe finds fma() unfused.\n"
    "#ifndef FMAG_SOFT_FMA\n"
    "#define FMAG_SOFT_FMA 0\n"
    "#endif\n"
    "#if FMAG_SOFT_FMA\n"
/* gpu/fmag_interp.glsl's fmag_soft_fma, the one source of it (utils/glsl_snippet.py) */
#include "SoftFma.inc"
    "float fmag_emit_fma_raw(float a, float b, float c)\n"
    "{\n"
    "    return fmag_soft_fma(a, b, c);\n"
    "}\n"
    "#else\n"
    "float fmag_emit_fma_raw(float a, float b, float c)\n"
    "{\n"
    "    precise float r = fma(a, b, c);\n"
    "    return r;\n"
    "}\n"
    "#endif\n"
    "// One FMAG evaluation, a NaN result stored as the VM's canonical 0x7FC00000. NaN,\n"
    "// infinity and zero operands are decided on the bits, and only finite non-zero products\n"
    "// reach the arithmetic: once the code is inlined, a register that is a compile-time\n"
    "// constant lets a driver fold 0 * x to 0 or x + 0 to x despite `precise` (Mesa's\n"
    "// llvmpipe does), which is wrong for x = inf or NaN and for the sign of a zero.\n"
    "float fmag_emit_fma(float a, float b, float c)\n"
    "{\n"
    "    const uint INF = 0x7F800000u, SIGN = 0x80000000u;\n"
    "    const float QNAN = uintBitsToFloat(0x7FC00000u);\n"
    "    uint ua = floatBitsToUint(a), ub = floatBitsToUint(b), uc = floatBitsToUint(c);\n"
    "    uint ma = ua & ~SIGN, mb = ub & ~SIGN, mc = uc & ~SIGN, sp = (ua ^ ub) & SIGN;\n"
    "    if (ma > INF || mb > INF || mc > INF) return QNAN;\n"
    "    if (ma == INF || mb == INF) {\n"
    "        if (ma == 0u || mb == 0u) return QNAN;\n"
    "        if (mc == INF && (uc & SIGN) != sp) return QNAN;\n"
    "        return uintBitsToFloat(sp | INF);\n"
    "    }\n"
    "    if (mc == INF) return c;\n"
    "    if (ma == 0u || mb == 0u) // an exact zero product: c, or a signed zero\n"
    "        return mc != 0u ? c : uintBitsToFloat(sp & uc);\n"
    "    precise float r = fmag_emit_fma_raw(a, b, c);\n"
    "    uint ur = floatBitsToUint(r);\n"
    "    if ((ur & ~SIGN) > INF) return QNAN;\n"
    "    // A product that underflows against a zero c keeps the product's sign.\n"
    "    if ((ur & ~SIGN) == 0u && mc == 0u) return uintBitsToFloat(sp);\n"
    "    return r;\n"
    "}\n"
    "// NaN-agnostic source (fmag_vm_emit_options): the hardware fma where it is fused, its\n"
    "// operands not classified; the software fma decides infinities and zeros only inside\n"
    "// fmag_emit_fma. The select on the result's bits stays: without it a driver (NVIDIA's)\n"
    "// reassociates a chain of precise fmas, (x + K) - K to x, which breaks every rounding\n"
    "// and integer trick of the stream.\n"
    "float fmag_emit_fma_any(float a, float b, float c)\n"
    "{\n"
    "#if FMAG_SOFT_FMA\n"
    "    return fmag_emit_fma(a, b, c);\n"
    "#else\n"
    "    precise float r = fma(a, b, c);\n"
    "    const float QNAN = uintBitsToFloat(0x7FC00000u);\n"
    "    return (floatBitsToUint(r) & 0x7FFFFFFFu) > 0x7F800000u ? QNAN : r;\n"
    "#endif\n"
    "}\n"
    "// An fma whose addend is the literal +0 and whose multiplicands are not compile-time\n"
    "// constants: a driver may fold it to a * b, which differs only on an exact zero product of\n"
    "// sign - (the VM's -0 + +0 is +0; a nonzero product that rounds to zero keeps its sign).\n"
    "float fmag_emit_fma_plus0(float a, float b, float c)\n"
    "{\n"
    "#if FMAG_SOFT_FMA\n"
    "    return fmag_emit_fma(a, b, c);\n"
    "#else\n"
    "    precise float r = fmag_emit_fma_any(a, b, c);\n"
    "    uint za = floatBitsToUint(a) << 1, zb = floatBitsToUint(b) << 1;\n"
    "    return floatBitsToUint(r) == 0x80000000u && (za == 0u || zb == 0u) ? 0.0 : r;\n"
    "#endif\n"
    "}\n"
    "// The guard, g > 0 (false for NaN and both zeros), on the bits: a compiler that assumes\n"
    "// no NaNs could otherwise turn the select around.\n"
    "bool fmag_emit_pos(float g)\n"
    "{\n"
    "    int w = floatBitsToInt(g);\n"
    "    return w > 0 && w <= 0x7F800000;\n"
    "}\n"
    "#endif\n";

/* Whether an operand word is a compile-time constant: a literal, or a register in is_const. */
static bool word_is_const(const uint8_t *is_const, uint32_t regs, uint32_t w)
{
    return !fmag_vm_word_is_ref(w) || ((w & 0xFFFFu) < regs && is_const[w & 0xFFFFu]);
}

/* One line per instruction. `chunk`: registers are arrays of FMAG_EMIT_CHUNK lanes and
 * each line a loop over them (the C batch loop). */
static void emit_instrs(sbuf *b, const fmag_vm_program *p, fmag_vm_emit_lang lang,
                        const char *indent, bool chunk, bool nan_agnostic)
{
    const char *zero = lang == FMAG_VM_EMIT_GLSL ? "0.0" : "0.0f";
    const char *lane = chunk ? "[j]" : "", *each = chunk ? "FMAG_EMIT_EACH(j) " : "";
    /* NaN-agnostic: the raw fma, whatever NaN payload the hardware makes; GLSL keeps its
     * guard on the bits (a compiler that assumes no NaNs could turn `g > 0` around) */
    static const char *const raw_fma[] = {"fmaf", "fmag_emit_fma_any", "__fmaf_rn"};
    const char *fma = nan_agnostic ? raw_fma[lang] : "fmag_emit_fma";
    /* NaN-agnostic GLSL: an instruction a driver may fold (0 * x to 0, x + 0 to x) keeps the
     * exact helper, which decides zeros and infinities on the bits, where a multiplicand or
     * the addend is a compile-time constant that may be zero; a literal +0 addend alone
     * needs only the sign of a zero product fixed (fmag_emit_fma_plus0). Registers the
     * stream has not written (0.0), and those written from constants alone, are
     * compile-time constants. */
    uint8_t *is_const = NULL;
    if (nan_agnostic && lang == FMAG_VM_EMIT_GLSL) {
        is_const = calloc(p->regs ? p->regs : 1, 1);
        for (uint32_t r = p->nin; is_const && r < p->regs; r++)
            is_const[r] = 1;
    }
    for (uint32_t i = 0; i < p->ninstr; i++) {
        fmag_vm_instr x = p->code[i];
        unsigned d = fmag_vm_instr_d(x), a = fmag_vm_instr_a(x);
        if (is_const) {
            bool ka = a < p->regs && is_const[a];
            bool kb = word_is_const(is_const, p->regs, x.b);
            bool kc = word_is_const(is_const, p->regs, x.c);
            bool kg = word_is_const(is_const, p->regs, x.g);
            bool zero_product = ka || (fmag_vm_word_is_ref(x.b) ? kb : (x.b & 0x7FFFFFFFu) == 0);
            bool plus0 = !fmag_vm_word_is_ref(x.c) && x.c == 0;
            fma = zero_product || (fmag_vm_word_is_ref(x.c) && kc) ? "fmag_emit_fma"
                  : plus0                                          ? "fmag_emit_fma_plus0"
                                                                   : raw_fma[lang];
            bool writes = fmag_vm_word_is_ref(x.g) || fmag_float_of(x.g) > 0.0f;
            if (writes && d < p->regs) /* a register guard keeps the old value or the result */
                is_const[d] = ka && kb && kc && kg && (is_const[d] || !fmag_vm_word_is_ref(x.g));
        }
        char ob[48], oc[48], og[48];
        format_operand(ob, sizeof ob, x.b, lang, lane);
        format_operand(oc, sizeof oc, x.c, lang, lane);
        format_operand(og, sizeof og, x.g, lang, lane);
        if (!fmag_vm_word_is_ref(x.g)) {
            if (!(fmag_float_of(x.g) > 0.0f)) {
                sb_printf(b, "%s/* %u: guard %s is never > 0 */\n", indent, (unsigned)i, og);
                continue;
            }
            sb_printf(b, "%s%sr%u%s = %s(r%u%s, %s, %s);\n", indent, each, d, lane, fma, a, lane,
                      ob, oc);
        } else {
            if (lang == FMAG_VM_EMIT_GLSL)
                sb_printf(b, "%sr%u = fmag_emit_pos(%s) ? %s(r%u, %s, %s) : r%u;\n", indent, d, og,
                          fma, a, ob, oc, d);
            else
                sb_printf(b, "%s%sr%u%s = %s > %s ? %s(r%u%s, %s, %s) : r%u%s;\n", indent, each, d,
                          lane, og, zero, fma, a, lane, ob, oc, d, lane);
        }
    }
    free(is_const);
}

/* The body shared by every language: declare the registers, run the stream, write the
 * outputs. `inx(k)`/`outx(k)` are how input/output k is spelled, given as printf
 * formats taking k. */
static void emit_body(sbuf *b, const fmag_vm_program *p, fmag_vm_emit_lang lang, const char *infmt,
                      const char *outfmt, const char *indent, bool nan_agnostic)
{
    const char *zero = lang == FMAG_VM_EMIT_GLSL ? "0.0" : "0.0f";
    for (uint32_t r = 0; r < p->regs; r++) {
        /* GLSL: `precise` makes every operation feeding a register exact, so a shader
         * compiler may not fold x + 0 (the sign of zero) or assume there are no NaNs. */
        sb_printf(b, "%s%sfloat r%u = ", indent, lang == FMAG_VM_EMIT_GLSL ? "precise " : "",
                  (unsigned)r);
        if (r < p->nin)
            sb_printf(b, infmt, (unsigned)r);
        else
            sb_printf(b, "%s", zero);
        sb_printf(b, ";\n");
    }
    emit_instrs(b, p, lang, indent, false, nan_agnostic);
    for (uint32_t k = 0; k < p->nout; k++) {
        sb_printf(b, "%s", indent);
        sb_printf(b, outfmt, (unsigned)k);
        sb_printf(b, " = r%u;\n", (unsigned)k);
    }
    /* Keep compilers quiet about registers written and never read. */
    if (lang != FMAG_VM_EMIT_GLSL)
        for (uint32_t r = p->nout; r < p->regs; r++)
            sb_printf(b, "%s(void)r%u;\n", indent, (unsigned)r);
}

static void emit_c_program(sbuf *b, const fmag_vm_program *p, const char *name, bool cuda,
                           bool nan_agnostic)
{
    const char *dev = cuda ? "__device__ " : "";
    sb_printf(b, "%svoid %s(const float *in, float *out)\n{\n", dev, name);
    emit_body(b, p, cuda ? FMAG_VM_EMIT_CUDA : FMAG_VM_EMIT_C, "in[%u]", "out[%u]", "    ",
              nan_agnostic);
    sb_printf(b, "}\n\n");
    if (cuda) {
        /* One element per thread, grid-stride; rows of in_stride / out_stride floats. */
        sb_printf(b,
                  "__global__ void %s_kernel(size_t n, const float *in, size_t in_stride, "
                  "float *out, size_t out_stride)\n{\n"
                  "    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;\n"
                  "         k += (size_t)gridDim.x * blockDim.x)\n"
                  "        %s(in + k * in_stride, out + k * out_stride);\n}\n\n",
                  name, name);
        return;
    }
    /* Structure of arrays: in[j][k] is input j of element k. Elements go in chunks of
     * FMAG_EMIT_CHUNK lanes, each register an array and each instruction a loop over the
     * chunk: the compiler vectorizes every line, and the chunk's vectors are independent,
     * so the core overlaps them instead of waiting on one element's chain of fmas. */
    sb_printf(b, "void %s_soa(size_t n, const float *const *in, float *const *out)\n{\n", name);
    if (!p->nin) sb_printf(b, "    (void)in;\n");
    if (!p->nout) sb_printf(b, "    (void)out;\n");
    sb_printf(b, "    for (size_t k = 0; k < n; k += FMAG_EMIT_CHUNK) {\n"
                 "        size_t m = n - k < FMAG_EMIT_CHUNK ? n - k : FMAG_EMIT_CHUNK;\n");
    for (uint32_t r = 0; r < p->regs; r++) {
        sb_printf(b, "        float r%u[FMAG_EMIT_CHUNK];\n", (unsigned)r);
        if (r < p->nin)
            sb_printf(b, "        fmag_emit_load(r%u, in[%u] + k, m);\n", (unsigned)r, (unsigned)r);
    }
    for (uint32_t r = p->nin; r < p->regs; r++)
        sb_printf(b, "        FMAG_EMIT_EACH(j) r%u[j] = 0.0f;\n", (unsigned)r);
    emit_instrs(b, p, FMAG_VM_EMIT_C, "        ", true, nan_agnostic);
    for (uint32_t r = 0; r < p->nout; r++)
        sb_printf(b, "        memcpy(out[%u] + k, r%u, m * sizeof(float));\n", (unsigned)r,
                  (unsigned)r);
    sb_printf(b, "    }\n}\n\n");
}

static void emit_glsl_program(sbuf *b, const fmag_vm_program *p, const char *name, unsigned maxin,
                              unsigned maxout, bool nan_agnostic)
{
    sb_printf(b, "void %s(in float fmag_in[%u], out float fmag_out[%u])\n{\n", name, maxin, maxout);
    emit_body(b, p, FMAG_VM_EMIT_GLSL, "fmag_in[%u]", "fmag_out[%u]", "    ", nan_agnostic);
    sb_printf(b, "}\n\n");
}

bool fmag_vm_emit_source(const fmag_vm_program *const *progs, size_t nprogs, fmag_vm_emit_lang lang,
                         const char *prefix, char **text, size_t *len, char *err, size_t errlen)
{
    fmag_vm_emit_options o = {prefix, false};
    return fmag_vm_emit_source_opts(progs, nprogs, lang, &o, text, len, err, errlen);
}

bool fmag_vm_emit_source_opts(const fmag_vm_program *const *progs, size_t nprogs,
                              fmag_vm_emit_lang lang, const fmag_vm_emit_options *opts, char **text,
                              size_t *len, char *err, size_t errlen)
{
    const char *prefix = opts ? opts->prefix : NULL;
    bool agnostic = opts && opts->nan_agnostic;
    *text = NULL;
    if (len) *len = 0;
    if (nprogs == 0) {
        snprintf(err, errlen, "no programs to emit");
        return false;
    }
    if (lang != FMAG_VM_EMIT_C && lang != FMAG_VM_EMIT_GLSL && lang != FMAG_VM_EMIT_CUDA) {
        snprintf(err, errlen, "unknown source language %d", (int)lang);
        return false;
    }
    if (!prefix) prefix = "fmag_baked_"; /* not fmag_: libfmag's own API names start so */
    for (const char *c = prefix; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
              (c != prefix && *c >= '0' && *c <= '9'))) {
            snprintf(err, errlen, "prefix '%s' is not an identifier", prefix);
            return false;
        }
    unsigned maxin = 1, maxout = 1;
    for (size_t i = 0; i < nprogs; i++) {
        char why[200];
        if (!progs[i]) {
            snprintf(err, errlen, "program %zu is NULL", i);
            return false;
        }
        if (!fmag_vm_program_validate(progs[i], why, sizeof why)) {
            snprintf(err, errlen, "program %zu '%s': %s", i, progs[i]->name ? progs[i]->name : "",
                     why);
            return false;
        }
        if (progs[i]->nin > maxin) maxin = progs[i]->nin;
        if (progs[i]->nout > maxout) maxout = progs[i]->nout;
    }
    char **names = make_names(progs, nprogs, prefix);
    if (!names) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    static const char *const lang_name[] = {"C", "GLSL", "CUDA"};
    static const char *const how[] = {
        "Compile without contraction and with denormals kept (cc -O2 -ffp-contract=off; never\n"
        " * -ffast-math, -Ofast or flush-to-zero) and the results are bit-identical to the VM.",
        "Results are bit-identical to the VM on a driver whose fma() is fused and that keeps\n"
        " * float32 denormals; define FMAG_SOFT_FMA 1 where fma() is not fused.",
        "Compile without flush-to-zero (nvcc's default, -ftz=false; not --use_fast_math) and\n"
        " * the results are bit-identical to the VM."};
    sbuf b = {0};
    bool glsl = lang == FMAG_VM_EMIT_GLSL;
    sb_printf(&b, "%s Generated by fmag (lib/VM/EmitSource.c): %zu FMAG program%s as %s.\n",
              glsl ? "/*" : "/*", nprogs, nprogs == 1 ? "" : "s", lang_name[lang]);
    if (agnostic)
        sb_printf(&b, " * NaN-agnostic: a computed NaN keeps whatever payload the hardware's fma "
                      "gives it\n * (not the VM's canonical 0x7FC00000); every other result "
                      "as above. */\n");
    else
        sb_printf(&b, " * %s */\n", how[lang]);
    sb_printf(&b, "%s\n",
              lang == FMAG_VM_EMIT_C      ? c_helpers
              : lang == FMAG_VM_EMIT_CUDA ? cuda_helpers
                                          : glsl_helpers);
    for (size_t i = 0; i < nprogs; i++) {
        const fmag_vm_program *p = progs[i];
        sb_printf(&b, "/* program %zu '", i);
        sb_comment_name(&b, p->name);
        sb_printf(&b, "': %u inputs, %u outputs, %u registers, %u instructions */\n",
                  (unsigned)p->nin, (unsigned)p->nout, (unsigned)p->regs, (unsigned)p->ninstr);
        if (glsl)
            emit_glsl_program(&b, p, names[i], maxin, maxout, agnostic);
        else
            emit_c_program(&b, p, names[i], lang == FMAG_VM_EMIT_CUDA, agnostic);
    }
    /* The per-lane image: a switch over the programs. */
    if (glsl) {
        sb_printf(&b,
                  "/* Runs program `prog` (0 .. %zu); false, outputs untouched, when out of "
                  "range. */\nbool %seval(uint prog, in float fmag_in[%u], "
                  "inout float fmag_out[%u])\n{\n    switch (prog) {\n",
                  nprogs - 1, prefix, maxin, maxout);
        for (size_t i = 0; i < nprogs; i++)
            sb_printf(&b, "    case %zuu: %s(fmag_in, fmag_out); return true;\n", i, names[i]);
        sb_printf(&b, "    }\n    return false;\n}\n");
    } else {
        const char *dev = lang == FMAG_VM_EMIT_CUDA ? "__device__ " : "";
        sb_printf(&b,
                  "/* Runs program `prog` (0 .. %zu) on one element; returns 0 (nothing written) "
                  "when\n * prog is out of range. */\n%sint %seval(uint32_t prog, const float *in, "
                  "float *out)\n{\n    switch (prog) {\n",
                  nprogs - 1, dev, prefix);
        for (size_t i = 0; i < nprogs; i++)
            sb_printf(&b, "    case %zu: %s(in, out); return 1;\n", i, names[i]);
        sb_printf(&b, "    }\n    return 0;\n}\n\n");
        /* Element k runs program prog_index[k] (NULL: program 0), as
         * fmag_vm_run_per_lane; rows of in_stride / out_stride floats. */
        if (lang == FMAG_VM_EMIT_C)
            sb_printf(&b,
                      "/* Element k runs program prog_index[k] (NULL: every element runs program "
                      "0);\n * in is [n][in_stride], out is [n][out_stride]. Elements with an "
                      "index out of\n * range are skipped; returns how many ran. */\n"
                      "size_t %srun_per_lane(size_t n, const uint32_t *prog_index, const float "
                      "*in,\n    size_t in_stride, float *out, size_t out_stride)\n{\n"
                      "    size_t ran = 0;\n"
                      "    for (size_t k = 0; k < n; k++)\n"
                      "        ran += (size_t)%seval(prog_index ? prog_index[k] : 0, in + k * "
                      "in_stride,\n                                out + k * out_stride);\n"
                      "    return ran;\n}\n",
                      prefix, prefix);
        else
            sb_printf(&b,
                      "/* One element per thread, grid-stride: element k runs program "
                      "prog_index[k]\n * (NULL: program 0); in is [n][in_stride], out is "
                      "[n][out_stride]. */\n"
                      "__global__ void %srun_per_lane(size_t n, const uint32_t *prog_index, "
                      "const float *in,\n    size_t in_stride, float *out, size_t out_stride)\n{\n"
                      "    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;\n"
                      "         k += (size_t)gridDim.x * blockDim.x)\n"
                      "        (void)%seval(prog_index ? prog_index[k] : 0, in + k * in_stride,\n"
                      "                     out + k * out_stride);\n}\n",
                      prefix, prefix);
    }
    for (size_t i = 0; i < nprogs; i++)
        free(names[i]);
    free(names);
    if (b.failed) {
        free(b.s);
        snprintf(err, errlen, "out of memory");
        return false;
    }
    *text = b.s;
    if (len) *len = b.len;
    return true;
}
