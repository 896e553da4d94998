/* The bit-level helpers every layer shares: the one float <-> bits conversion and the
 * one string hash of the name tables. Header-only so that the VM, which depends on
 * nothing else, and each layer above it can include it without a link edge. */
#ifndef FMAG_BITS_H
#define FMAG_BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* memcpy is the defined way in C11; compilers turn it into a move. */
static inline uint32_t fmag_bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float fmag_float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* 64-bit FNV-1a of len bytes: the hash of the name tables (the IR printer, the .fir and
 * .fmas readers, SL's function table). Computed in uint64_t and then narrowed, so that a
 * 32-bit size_t (wasm32) gets the low half of the same hash rather than a truncated
 * 64-bit constant. */
static inline size_t fmag_hash_bytes(const void *data, size_t len)
{
    const unsigned char *p =
        (const unsigned char *)data;           /* C++ (the GPU bench) includes this too */
    uint64_t h = UINT64_C(0xcbf29ce484222325); /* the offset basis */
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3); /* the FNV prime */
    return (size_t)h;
}

#endif
