/* Host-side helpers shared by the GPU runners (C) and bench/gpu (CUDA C++): stream analysis
 * and the pre-decoded uniform form the CUDA `spec` kernel reads from constant memory. */
#ifndef FMAG_GPU_HOST_H
#define FMAG_GPU_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* One raw instruction as four words (same layout as fmag_vm_instr). */
typedef struct fmag_gpu_word4 {
    uint32_t b, c, g, da;
} fmag_gpu_word4;

static inline bool fmag_gpu_is_ref(uint32_t w)
{
    return (w & 0x7F800000u) == 0x7F800000u && (w & 0x007FFFFFu) != 0;
}

static inline float fmag_gpu_bits_float(uint32_t w)
{
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
}

/* The smallest power of two >= regs (at least 1). */
static inline uint32_t fmag_gpu_pow2_regs(uint32_t regs)
{
    uint32_t rf = 1;
    while (rf < regs)
        rf <<= 1;
    return rf;
}

/* True when some register at or above nin may be read before the program writes it
 * unconditionally, i.e. when the initial +0.0 of non-input registers is observable. A
 * write under a register guard may not happen, so it defines nothing; its destination is
 * read (it is the fallback). Indices are masked with rf-1 as the kernels do. */
static inline bool fmag_gpu_needs_zero_init(const fmag_gpu_word4 *code, uint32_t ninstr,
                                            uint32_t nin, uint32_t rf, uint8_t *scratch)
{
    /* scratch: rf bytes; 1 = holds a defined value */
    for (uint32_t r = 0; r < rf; ++r)
        scratch[r] = r < nin;
    for (uint32_t i = 0; i < ninstr; ++i) {
        const fmag_gpu_word4 *w = &code[i];
        uint32_t src[4] = {(w->da >> 16) & (rf - 1), 0, 0, 0};
        int ns = 1;
        if (fmag_gpu_is_ref(w->b)) src[ns++] = w->b & (rf - 1);
        if (fmag_gpu_is_ref(w->c)) src[ns++] = w->c & (rf - 1);
        bool greg = fmag_gpu_is_ref(w->g);
        if (greg)
            src[ns++] = w->g & (rf - 1);
        else if (!(fmag_gpu_bits_float(w->g) > 0.0f))
            continue; /* a no-op: reads nothing, writes nothing */
        for (int s = 0; s < ns; ++s)
            if (!scratch[src[s]]) return true;
        uint32_t d = w->da & (rf - 1);
        if (greg && !scratch[d]) return true;
        scratch[d] = 1;
    }
    return false;
}

/* Pre-decodes a uniform stream for a register file of rf <= 256 registers into out (at
 * most ninstr entries); returns the number written. No-ops are dropped. */
static inline uint32_t fmag_gpu_predecode(const fmag_gpu_word4 *code, uint32_t ninstr, uint32_t rf,
                                          fmag_gpu_word4 *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ninstr; ++i) {
        const fmag_gpu_word4 *w = &code[i];
        uint32_t kind = 0;
        fmag_gpu_word4 o;
        o.b = w->b, o.c = w->c, o.g = w->g;
        if (fmag_gpu_is_ref(w->b)) kind |= 1u, o.b = w->b & (rf - 1);
        if (fmag_gpu_is_ref(w->c)) kind |= 2u, o.c = w->c & (rf - 1);
        if (fmag_gpu_is_ref(w->g))
            kind |= 4u, o.g = w->g & (rf - 1);
        else if (!(fmag_gpu_bits_float(w->g) > 0.0f))
            continue;
        o.da = (w->da & (rf - 1)) | (((w->da >> 16) & (rf - 1)) << 8) | (kind << 16);
        out[n++] = o;
    }
    return n;
}

#endif /* FMAG_GPU_HOST_H */
