/* The batch engine's pre-decoded program form and its inner loops (lib/VM/Batch.c,
 * lib/VM/BatchKernels.c). Not part of the public API. */
#ifndef FMAG_VM_BATCH_INTERNAL_H
#define FMAG_VM_BATCH_INTERNAL_H

#include "fmag/VM.h"

/* Operand kinds, resolved once per program. */
enum {
    FMAG_BK_B_IMM = 1,    /* b is a literal */
    FMAG_BK_C_IMM = 2,    /* c is a literal */
    FMAG_BK_G_ALWAYS = 4, /* the guard is a literal > 0: an unconditional write */
};

/* One pre-decoded instruction: register operands as float offsets into the block's
 * register file (row * lanes), literals as floats. Instructions whose literal guard is
 * <= 0 never write and are dropped when decoding. 32 bytes. */
typedef struct fmag_batch_rec {
    uint32_t d, a, b, c, g;
    float bi, ci;
    uint32_t kind;
} fmag_batch_rec;

/* Runs n records over `lanes` lanes of the register file R (row r of lane k at
 * R[r * stride + k], where the records' offsets already hold r * stride). lanes is a
 * multiple of FMAG_BATCH_VW. Lanes are independent: each lane reads its operands
 * before it writes its destination, so d may equal any operand row. */
typedef void (*fmag_batch_kernel)(const fmag_batch_rec *ins, uint32_t n, float *R, uint32_t lanes);

/* Every kernel works on lanes in multiples of this (the AVX-512 width). */
#define FMAG_BATCH_VW 16u

/* Moves `count` elements between their rows in memory and the block (lane k at
 * R[r * L + k], r < rows): lane k's element starts at mem[e * stride] with e = elems[k], or
 * e = k when elems is NULL; elems[k] * stride < 2^31. */
typedef void (*fmag_batch_io)(float *R, uint32_t L, float *mem, size_t stride, uint32_t rows,
                              uint32_t count, const uint32_t *elems);

typedef struct fmag_batch_isa {
    fmag_batch_kernel run;
    fmag_batch_io load, store; /* load: memory to block; store: block to memory */
    const char *name;          /* "avx512", "avx2+fma" or "generic" */
} fmag_batch_isa;

/* The kernels for an ISA (FMAG_VM_ISA_AUTO: the best this CPU runs); false when the CPU or
 * the compiler lacks it. */
bool fmag_batch_isa_for(fmag_vm_isa isa, fmag_batch_isa *out);

#endif /* FMAG_VM_BATCH_INTERNAL_H */
