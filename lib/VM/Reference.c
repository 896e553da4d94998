/* The reference interpreter: one element at a time, straight from the encoded
 * stream, exactly SPEC §1. Every other engine is tested against this one. */
#include "fmag/VM.h"
#include "fmag/Bits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline float operand(uint32_t w, const float *r)
{
    if (fmag_vm_word_is_ref(w)) return r[w & 0xFFFFu];
    return fmag_float_of(w);
}

/* The interpreter loop, compiled twice below: once portable, once where the C
 * compiler may turn fmaf into the fma instruction instead of a libm call. */
#define REF_BODY                                                                                   \
    for (uint32_t i = 0; i < p->regs; i++)                                                         \
        regs[i] = i < p->nin ? in[i] : 0.0f;                                                       \
    for (uint32_t i = 0; i < p->ninstr; i++) {                                                     \
        fmag_vm_instr ins = p->code[i];                                                            \
        float g = operand(ins.g, regs);                                                            \
        /* `g > 0` is false for NaN, +0 and -0, as IEEE says. */                                   \
        if (g > 0.0f) {                                                                            \
            float b = operand(ins.b, regs), c = operand(ins.c, regs);                              \
            float r = fmaf(regs[fmag_vm_instr_a(ins)], b, c);                                      \
            /* C leaves a NaN's sign and payload open and hardware differs (x86 makes              \
             * -NaN for inf*0, and which input NaN an fma passes on depends on the                 \
             * compiler's operand order), so every NaN result is stored as the one                 \
             * canonical NaN: engines then agree bit for bit. */                                   \
            if (r != r) r = fmag_vm_bits_float(FMAG_VM_CANONICAL_NAN);                             \
            regs[fmag_vm_instr_d(ins)] = r;                                                        \
        }                                                                                          \
    }                                                                                              \
    for (uint32_t i = 0; i < p->nout; i++)                                                         \
        out[i] = regs[i];

static void run_generic(const fmag_vm_program *p, const float *in, float *out, float *regs)
{
    REF_BODY
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
/* The same single-rounding fma, one instruction instead of a call. */
__attribute__((target("fma"))) static void run_fma(const fmag_vm_program *p, const float *in,
                                                   float *out, float *regs)
{
    REF_BODY
}

void fmag_vm_run(const fmag_vm_program *p, const float *in, float *out, float *regs)
{
    /* __builtin_cpu_supports reads a table filled before main. */
    if (__builtin_cpu_supports("fma"))
        run_fma(p, in, out, regs);
    else
        run_generic(p, in, out, regs);
}
#else
void fmag_vm_run(const fmag_vm_program *p, const float *in, float *out, float *regs)
{
    run_generic(p, in, out, regs);
}
#endif

bool fmag_vm_run_ref_per_lane(const fmag_vm_program *const *progs, size_t nprogs,
                              const uint32_t *prog_index, const float *in, size_t in_stride,
                              float *out, size_t out_stride, size_t n, char *err, size_t errlen)
{
    if (n == 0) return true;
    /* Every program validated, used or not (the reference is the strict oracle); the
     * indices and the strides as every per-lane engine checks them. */
    for (size_t i = 0; i < nprogs && progs; i++) {
        char why[200];
        if (progs[i] && !fmag_vm_program_validate(progs[i], why, sizeof why)) {
            snprintf(err, errlen, "program %zu '%s': %s", i, progs[i]->name ? progs[i]->name : "",
                     why);
            return false;
        }
    }
    unsigned char *used = calloc(nprogs ? nprogs : 1, 1);
    if (!used) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    bool ok = fmag_vm_check_lane_args(progs, nprogs, prog_index, in_stride, out_stride, n, false,
                                      used, err, errlen);
    uint32_t max_regs = 1;
    for (size_t i = 0; ok && i < nprogs; i++)
        if (used[i] && progs[i]->regs > max_regs) max_regs = progs[i]->regs;
    free(used);
    if (!ok) return false;
    float *regs = malloc((size_t)max_regs * sizeof(float));
    if (!regs) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (size_t k = 0; k < n; k++) {
        const fmag_vm_program *p = progs[prog_index ? prog_index[k] : 0];
        fmag_vm_run(p, in + k * in_stride, out + k * out_stride, regs);
    }
    free(regs);
    return true;
}
