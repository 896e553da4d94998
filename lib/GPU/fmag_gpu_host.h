/* Host-side helpers shared by the GPU runners (C) and bench/gpu (CUDA C++): stream analysis
 * and the pre-decoded uniform form the CUDA `spec` kernel reads from constant memory. */
#ifndef FMAG_GPU_HOST_H
#define FMAG_GPU_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "fmag/Bits.h"
#include "fmag/VM.h"

/* One instruction's four words; pre-decoded records reuse the layout with other meanings. */
typedef fmag_vm_instr fmag_gpu_word4;

static inline bool fmag_gpu_is_ref(uint32_t w)
{
    return fmag_vm_word_is_ref(w);
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
 * unconditionally, i.e. when the initial +0.0 of non-input registers is observable: by an
 * instruction, or as an output (r[0..nout-1] at the end). A write under a register guard
 * may not happen, so it defines nothing; its destination is read (it is the fallback).
 * Indices are masked with rf-1 as the kernels do. */
static inline bool fmag_gpu_needs_zero_init(const fmag_gpu_word4 *code, uint32_t ninstr,
                                            uint32_t nin, uint32_t nout, uint32_t rf,
                                            uint8_t *scratch)
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
        else if (!(fmag_float_of(w->g) > 0.0f))
            continue; /* a no-op: reads nothing, writes nothing */
        for (int s = 0; s < ns; ++s)
            if (!scratch[src[s]]) return true;
        uint32_t d = w->da & (rf - 1);
        if (greg && !scratch[d]) return true;
        scratch[d] = 1;
    }
    for (uint32_t r = 0; r < nout && r < rf; ++r)
        if (!scratch[r]) return true;
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
        else if (!(fmag_float_of(w->g) > 0.0f))
            continue;
        o.da = (w->da & (rf - 1)) | (((w->da >> 16) & (rf - 1)) << 8) | (kind << 16);
        out[n++] = o;
    }
    return n;
}

/* The record of fmag_gpu_predecode for one instruction, no-ops included (a literal guard
 * keeps its bits and still decides the write): per-lane code keeps its layout. */
static inline fmag_gpu_word4 fmag_gpu_predecode_one(fmag_gpu_word4 w, uint32_t rf)
{
    uint32_t kind = 0;
    fmag_gpu_word4 o = w;
    if (fmag_gpu_is_ref(w.b)) kind |= 1u, o.b = w.b & (rf - 1);
    if (fmag_gpu_is_ref(w.c)) kind |= 2u, o.c = w.c & (rf - 1);
    if (fmag_gpu_is_ref(w.g)) kind |= 4u, o.g = w.g & (rf - 1);
    o.da = (w.da & (rf - 1)) | (((w.da >> 16) & (rf - 1)) << 8) | (kind << 16);
    return o;
}

/* Pre-decode that also fuses FMAG's select idiom: an unconditional write of X whose b and c
 * are literals (a copy, a constant), followed by a register-guarded write of X that does not
 * read X, becomes one record of kind 8 | (second's b, c kinds) holding the first
 * instruction, followed by the second's ordinary record. Returns the number of records. */
static inline uint32_t fmag_gpu_predecode_sel(const fmag_gpu_word4 *code, uint32_t ninstr,
                                              uint32_t rf, fmag_gpu_word4 *out)
{
    uint32_t n = fmag_gpu_predecode(code, ninstr, rf, out);
    for (uint32_t i = 0; i + 1 < n; ++i) {
        uint32_t k1 = out[i].da >> 16, k2 = out[i + 1].da >> 16;
        uint32_t x = out[i].da & 0xFFu, d2 = out[i + 1].da & 0xFFu,
                 a2 = (out[i + 1].da >> 8) & 0xFFu;
        if (k1 != 0 || !(k2 & 4u) || d2 != x || a2 == x || out[i + 1].g == x ||
            ((k2 & 1u) && out[i + 1].b == x) || ((k2 & 2u) && out[i + 1].c == x))
            continue;
        out[i].da = (out[i].da & 0xFFFFu) | ((8u | (k2 & 3u)) << 16);
        ++i; /* the second record stays as it is; the kernel reads it with the first */
    }
    return n;
}

/* Rewrites records of fmag_gpu_predecode or fmag_gpu_predecode_sel in place for byte
 * offsets into a register file whose rows are `row` bytes apart (row a power of two >= 16,
 * rf * row <= 65536): register operands become index * row; word 3 becomes
 * d*row | (a*row) << 16 | kind. A fused select's first record keeps its literal b and c
 * (its kind's low bits describe the second record). */
static inline void fmag_gpu_predecode_bytes(fmag_gpu_word4 *rec, uint32_t n, uint32_t row)
{
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t kind = rec[i].da >> 16, d = rec[i].da & 0xFFu, a = (rec[i].da >> 8) & 0xFFu;
        if (kind < 8u) {
            if (kind & 1u) rec[i].b *= row;
            if (kind & 2u) rec[i].c *= row;
            if (kind & 4u) rec[i].g *= row;
        }
        rec[i].da = d * row | ((a * row) << 16) | kind;
    }
}

/* Marks the partner of each fused select in byte-offset records (fmag_gpu_predecode_sel, then
 * fmag_gpu_predecode_bytes with row >= 32): 16 in its kind bits. The Vulkan and HLSL
 * interpreters run every record in turn and skip a marked one, which its fused select already
 * ran, so their loops step one record at a time and fetch the next while one runs. */
static inline void fmag_gpu_mark_fused(fmag_gpu_word4 *rec, uint32_t n)
{
    for (uint32_t i = 0; i + 1 < n; ++i)
        if ((rec[i].da & 15u) >= 8u) rec[++i].da |= 16u;
}

/* Limits the register operands of byte-offset records (fmag_gpu_predecode_bytes, fused or
 * not) to the first `rows` registers of a file whose rows are `row` bytes apart, for a launch
 * that allocates only the rows its program uses: an operand past them (only an unvalidated
 * stream has one) reads or writes the last row instead, never memory outside the file. */
static inline void fmag_gpu_clamp_rows(fmag_gpu_word4 *rec, uint32_t n, uint32_t row, uint32_t rows)
{
    uint32_t lim = (rows - 1) * row;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t kind = rec[i].da & 15u, d = rec[i].da & 0xFFFFu & ~15u, a = rec[i].da >> 16;
        if (d > lim) d = lim;
        if (a > lim) a = lim;
        rec[i].da = d | a << 16 | kind;
        if (kind >= 8u) continue; /* a fused select's first record: b and c are literals */
        if ((kind & 1u) && rec[i].b > lim) rec[i].b = lim;
        if ((kind & 2u) && rec[i].c > lim) rec[i].c = lim;
        if ((kind & 4u) && rec[i].g > lim) rec[i].g = lim;
    }
}

/* Rewrites a raw stream for the per-lane byte-offset kernels (fmag_k_shared with BYTES), for a
 * register file whose rows are `row` bytes apart (row a power of two >= 16, rf * row <= 65536):
 * a register operand becomes (index & (rf-1)) * row, a literal keeps its bits; word 3 becomes
 * d*row | (a*row) << 16 | kind (bit 0/1/2: b/c/g is a register). Instructions keep their
 * places (no-ops included: a literal guard <= 0 still never writes), so interleaved per-lane
 * code keeps its layout. in and out may be the same array. */
static inline void fmag_gpu_predecode_lane(const fmag_gpu_word4 *code, uint32_t ninstr, uint32_t rf,
                                           uint32_t row, fmag_gpu_word4 *out)
{
    for (uint32_t i = 0; i < ninstr; ++i) {
        fmag_gpu_word4 w = code[i], o = w;
        uint32_t kind = 0;
        if (fmag_gpu_is_ref(w.b)) kind |= 1u, o.b = (w.b & (rf - 1)) * row;
        if (fmag_gpu_is_ref(w.c)) kind |= 2u, o.c = (w.c & (rf - 1)) * row;
        if (fmag_gpu_is_ref(w.g)) kind |= 4u, o.g = (w.g & (rf - 1)) * row;
        o.da = (w.da & (rf - 1)) * row | (((w.da >> 16) & (rf - 1)) * row) << 16 | kind;
        out[i] = o;
    }
}

/* Flags of the forwarding pre-decode (low bits of word 3, below the row-aligned offsets). */
#define FMAG_GPU_PD_KIND_MASK 7u /* which of b, c, g are registers (as fmag_gpu_predecode) */
#define FMAG_GPU_PD_APREV 8u     /* a is the previous instruction's result (in a register) */
#define FMAG_GPU_PD_NOSTORE 16u  /* the result is never read back from the register file */

/* Pre-decode with forwarding, for a register file whose rows are `row` bytes apart (row a
 * power of two >= 32, rf * row <= 65536). Register operands become byte offsets (index *
 * row); word 3 is d*row | (a*row) << 16 | flags. Two peephole facts are computed:
 *  - APREV: `a` names the register the previous instruction wrote unconditionally, so the
 *    kernel takes it from the register holding that result instead of reloading it;
 *  - NOSTORE: the value written is never read back from the register file (it is only
 *    forwarded, or overwritten unconditionally before any read, and is not an output), so
 *    the store is skipped. A guarded write reads its destination (the fallback), so the
 *    value before it stays needed.
 * No-ops are dropped. Returns the number of instructions written to out. */
static inline uint32_t fmag_gpu_predecode_fwd(const fmag_gpu_word4 *code, uint32_t ninstr,
                                              uint32_t rf, uint32_t row, uint32_t nout,
                                              fmag_gpu_word4 *out, uint8_t *needed)
{
    uint32_t n = fmag_gpu_predecode(code, ninstr, rf, out); /* indices, da = d|a<<8|kind<<16 */
    bool prev_uncond = false;
    uint32_t prev_d = 0;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t d = out[i].da & 0xFFu, a = (out[i].da >> 8) & 0xFFu, kind = out[i].da >> 16;
        uint32_t flags = kind;
        if (prev_uncond && a == prev_d) flags |= FMAG_GPU_PD_APREV;
        prev_uncond = !(kind & 4u);
        prev_d = d;
        out[i].da = d | (a << 8) | (flags << 16);
    }
    for (uint32_t r = 0; r < rf; ++r)
        needed[r] = r < nout;
    for (uint32_t i = n; i-- > 0;) {
        uint32_t d = out[i].da & 0xFFu, a = (out[i].da >> 8) & 0xFFu, flags = out[i].da >> 16;
        if (!needed[d]) flags |= FMAG_GPU_PD_NOSTORE;
        if (!(flags & 4u)) needed[d] = 0;
        if (!(flags & FMAG_GPU_PD_APREV)) needed[a] = 1;
        if (flags & 1u) needed[out[i].b] = 1;
        if (flags & 2u) needed[out[i].c] = 1;
        if (flags & 4u) needed[out[i].g] = 1;
        fmag_gpu_word4 o = out[i];
        o.b = (flags & 1u) ? out[i].b * row : out[i].b;
        o.c = (flags & 2u) ? out[i].c * row : out[i].c;
        o.g = (flags & 4u) ? out[i].g * row : out[i].g;
        o.da = d * row | ((a * row) << 16) | flags;
        out[i] = o;
    }
    return n;
}

/* True when interleaved per-lane code ([instr][program], raw words) has, at every instruction,
 * the same operand kinds (which of b, c, g are registers) in all programs: a warp then never
 * disagrees on them, and the kernels can branch on a kind instead of selecting per lane.
 * No-ops (a literal guard <= 0, the padding of shorter programs included) write nothing and
 * do not count: programs of different lengths can agree. */
static inline bool fmag_gpu_lane_kinds_agree(const fmag_gpu_word4 *code, size_t ninstr,
                                             size_t nprogs)
{
    for (size_t i = 0; i < ninstr; ++i) {
        const fmag_gpu_word4 *row = &code[i * nprogs];
        int kinds = -1;
        for (size_t k = 0; k < nprogs; ++k) {
            const fmag_gpu_word4 *w = &row[k];
            if (!fmag_gpu_is_ref(w->g) && !(fmag_float_of(w->g) > 0.0f)) continue;
            int kk =
                fmag_gpu_is_ref(w->b) | fmag_gpu_is_ref(w->c) << 1 | fmag_gpu_is_ref(w->g) << 2;
            if (kinds >= 0 && kk != kinds) return false;
            kinds = kk;
        }
    }
    return true;
}

#endif /* FMAG_GPU_HOST_H */
