/* The batch engine's inner loops: one pre-decoded instruction over a block of lanes,
 * compiled for AVX-512F, for AVX2+FMA and portably, picked at run time. Every variant
 * computes exactly fmaf per lane, stores a NaN result as the canonical NaN and keeps
 * denormals (the caller owns MXCSR), so all three are bit-identical to fmag_vm_run. */
#include "BatchInternal.h"
#include "fmag/Bits.h"

#include <math.h>

/* The operand kinds are switched on once per instruction, outside the lane loop, so
 * literals are broadcasts held in a register and a computed guard is the only reason to
 * read d. */
#define FMAG_BK_SWITCH(LOOP)                                                                       \
    switch (x->kind) {                                                                             \
    case 0:                                                                                        \
        LOOP(LOADB, LOADC, GUARDED);                                                               \
        break;                                                                                     \
    case FMAG_BK_B_IMM:                                                                            \
        LOOP(IMMB, LOADC, GUARDED);                                                                \
        break;                                                                                     \
    case FMAG_BK_C_IMM:                                                                            \
        LOOP(LOADB, IMMC, GUARDED);                                                                \
        break;                                                                                     \
    case FMAG_BK_B_IMM | FMAG_BK_C_IMM:                                                            \
        LOOP(IMMB, IMMC, GUARDED);                                                                 \
        break;                                                                                     \
    case FMAG_BK_G_ALWAYS:                                                                         \
        LOOP(LOADB, LOADC, ALWAYS);                                                                \
        break;                                                                                     \
    case FMAG_BK_G_ALWAYS | FMAG_BK_B_IMM:                                                         \
        LOOP(IMMB, LOADC, ALWAYS);                                                                 \
        break;                                                                                     \
    case FMAG_BK_G_ALWAYS | FMAG_BK_C_IMM:                                                         \
        LOOP(LOADB, IMMC, ALWAYS);                                                                 \
        break;                                                                                     \
    default:                                                                                       \
        LOOP(IMMB, IMMC, ALWAYS);                                                                  \
        break;                                                                                     \
    }

/* Portable: one lane at a time. A lane reads all its operands before its write. */
static void kernel_generic(const fmag_batch_rec *ins, uint32_t n, float *R, uint32_t lanes)
{
    const float qnan = fmag_float_of(FMAG_VM_CANONICAL_NAN);
    for (uint32_t i = 0; i < n; i++) {
        const fmag_batch_rec *x = &ins[i];
        float *rd = R + x->d;
        const float *ra = R + x->a, *rb = R + x->b, *rc = R + x->c, *rg = R + x->g;
        const float bi = x->bi, ci = x->ci;
#define LOADB rb[k]
#define LOADC rc[k]
#define IMMB bi
#define IMMC ci
#define GLOOP(B, C, G)                                                                             \
    for (uint32_t k = 0; k < lanes; k++) {                                                         \
        float f_ = fmaf(ra[k], B, C);                                                              \
        f_ = f_ != f_ ? qnan : f_;                                                                 \
        G;                                                                                         \
    }
#define GUARDED                                                                                    \
    if (rg[k] > 0.0f) rd[k] = f_
#define ALWAYS rd[k] = f_
        FMAG_BK_SWITCH(GLOOP)
#undef GUARDED
#undef ALWAYS
#undef GLOOP
#undef LOADB
#undef LOADC
#undef IMMB
#undef IMMC
    }
}

/* Element by element: each element's values are adjacent in memory. */
static void load_generic(float *R, uint32_t L, float *mem, size_t stride, uint32_t rows,
                         uint32_t count, const uint32_t *elems)
{
    for (uint32_t k = 0; k < count; k++) {
        const float *src = mem + (elems ? elems[k] : k) * stride;
        for (uint32_t r = 0; r < rows; r++)
            R[(size_t)r * L + k] = src[r];
    }
}
static void store_generic(float *R, uint32_t L, float *mem, size_t stride, uint32_t rows,
                          uint32_t count, const uint32_t *elems)
{
    for (uint32_t k = 0; k < count; k++) {
        float *dst = mem + (elems ? elems[k] : k) * stride;
        for (uint32_t r = 0; r < rows; r++)
            dst[r] = R[(size_t)r * L + k];
    }
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define FMAG_BATCH_X86 1
#include <immintrin.h>

/* AVX2 + FMA: 8 lanes a vector; the guard and the NaN fix are compares and blends. */
__attribute__((target("avx2,fma"))) static void kernel_avx2(const fmag_batch_rec *ins, uint32_t n,
                                                            float *R, uint32_t lanes)
{
    const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32((int)FMAG_VM_CANONICAL_NAN));
    const __m256 zero = _mm256_setzero_ps();
    for (uint32_t i = 0; i < n; i++) {
        const fmag_batch_rec *x = &ins[i];
        float *rd = R + x->d;
        const float *ra = R + x->a, *rb = R + x->b, *rc = R + x->c, *rg = R + x->g;
        const __m256 bi = _mm256_set1_ps(x->bi), ci = _mm256_set1_ps(x->ci);
#define LOADB _mm256_load_ps(rb + k)
#define LOADC _mm256_load_ps(rc + k)
#define IMMB bi
#define IMMC ci
#define GUARDED                                                                                    \
    f_ = _mm256_blendv_ps(_mm256_load_ps(rd + k), f_,                                              \
                          _mm256_cmp_ps(_mm256_load_ps(rg + k), zero, _CMP_GT_OQ))
#define ALWAYS (void)0
#define VLOOP(B, C, G)                                                                             \
    for (uint32_t k = 0; k < lanes; k += 8) {                                                      \
        __m256 f_ = _mm256_fmadd_ps(_mm256_load_ps(ra + k), B, C);                                 \
        f_ = _mm256_blendv_ps(f_, qnan, _mm256_cmp_ps(f_, f_, _CMP_UNORD_Q));                      \
        G;                                                                                         \
        _mm256_store_ps(rd + k, f_);                                                               \
    }
        FMAG_BK_SWITCH(VLOOP)
#undef GUARDED
#undef ALWAYS
#undef VLOOP
#undef LOADB
#undef LOADC
#undef IMMB
#undef IMMC
    }
}

/* AVX-512F: 16 lanes a vector; the guard is a mask on the store, so d is never read. */
__attribute__((target("avx512f"))) static void kernel_avx512(const fmag_batch_rec *ins, uint32_t n,
                                                             float *R, uint32_t lanes)
{
    const __m512 qnan = _mm512_castsi512_ps(_mm512_set1_epi32((int)FMAG_VM_CANONICAL_NAN));
    const __m512 zero = _mm512_setzero_ps();
    for (uint32_t i = 0; i < n; i++) {
        const fmag_batch_rec *x = &ins[i];
        float *rd = R + x->d;
        const float *ra = R + x->a, *rb = R + x->b, *rc = R + x->c, *rg = R + x->g;
        const __m512 bi = _mm512_set1_ps(x->bi), ci = _mm512_set1_ps(x->ci);
#define LOADB _mm512_load_ps(rb + k)
#define LOADC _mm512_load_ps(rc + k)
#define IMMB bi
#define IMMC ci
#define GUARDED                                                                                    \
    _mm512_mask_store_ps(rd + k, _mm512_cmp_ps_mask(_mm512_load_ps(rg + k), zero, _CMP_GT_OQ), f_)
#define ALWAYS _mm512_store_ps(rd + k, f_)
#define VLOOP(B, C, G)                                                                             \
    for (uint32_t k = 0; k < lanes; k += 16) {                                                     \
        __m512 f_ = _mm512_fmadd_ps(_mm512_load_ps(ra + k), B, C);                                 \
        f_ = _mm512_mask_mov_ps(f_, _mm512_cmp_ps_mask(f_, f_, _CMP_UNORD_Q), qnan);               \
        G;                                                                                         \
    }
        FMAG_BK_SWITCH(VLOOP)
#undef GUARDED
#undef ALWAYS
#undef VLOOP
#undef LOADB
#undef LOADC
#undef IMMB
#undef IMMC
    }
}
/* A row of 16 lanes at a time with one gather (scatter) per register instead of 16
 * scalar copies: on small programs the transposition costs as much as the instructions. */
__attribute__((target("avx512f"))) static inline __m512i lane_offsets(uint32_t k, size_t stride,
                                                                      const uint32_t *elems)
{
    const __m512i s = _mm512_set1_epi32((int)stride);
    if (elems) return _mm512_mullo_epi32(_mm512_loadu_si512(elems + k), s);
    return _mm512_mullo_epi32(
        _mm512_add_epi32(_mm512_set1_epi32((int)k),
                         _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)),
        s);
}
__attribute__((target("avx512f"))) static void load_avx512(float *R, uint32_t L, float *mem,
                                                           size_t stride, uint32_t rows,
                                                           uint32_t count, const uint32_t *elems)
{
    uint32_t k = 0;
    for (; k + 16 <= count; k += 16) {
        const __m512i off = lane_offsets(k, stride, elems);
        for (uint32_t r = 0; r < rows; r++)
            _mm512_store_ps(R + (size_t)r * L + k, _mm512_i32gather_ps(off, mem + r, 4));
    }
    if (k < count)
        load_generic(R + k, L, elems ? mem : mem + k * stride, stride, rows, count - k,
                     elems ? elems + k : NULL);
}
__attribute__((target("avx512f"))) static void store_avx512(float *R, uint32_t L, float *mem,
                                                            size_t stride, uint32_t rows,
                                                            uint32_t count, const uint32_t *elems)
{
    uint32_t k = 0;
    for (; k + 16 <= count; k += 16) {
        const __m512i off = lane_offsets(k, stride, elems);
        for (uint32_t r = 0; r < rows; r++)
            _mm512_i32scatter_ps(mem + r, off, _mm512_load_ps(R + (size_t)r * L + k), 4);
    }
    if (k < count)
        store_generic(R + k, L, elems ? mem : mem + k * stride, stride, rows, count - k,
                      elems ? elems + k : NULL);
}
#endif

bool fmag_batch_isa_for(fmag_vm_isa isa, fmag_batch_isa *out)
{
#ifdef FMAG_BATCH_X86
    __builtin_cpu_init();
    bool has512 = __builtin_cpu_supports("avx512f");
    bool has2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if ((isa == FMAG_VM_ISA_AUTO || isa == FMAG_VM_ISA_AVX512) && has512) {
        *out = (fmag_batch_isa){kernel_avx512, load_avx512, store_avx512, "avx512"};
        return true;
    }
    if ((isa == FMAG_VM_ISA_AUTO || isa == FMAG_VM_ISA_AVX2) && has2) {
        *out = (fmag_batch_isa){kernel_avx2, load_generic, store_generic, "avx2+fma"};
        return true;
    }
#endif
    if (isa == FMAG_VM_ISA_AUTO || isa == FMAG_VM_ISA_GENERIC) {
        *out = (fmag_batch_isa){kernel_generic, load_generic, store_generic, "generic"};
        return true;
    }
    return false;
}
