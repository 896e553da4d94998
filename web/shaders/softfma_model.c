/* The integer-only fma of web/page/fmag_webgl.js (GLSL ES 3.00) and fmag_webgpu.js
 * (WGSL), written in C with the same operations (32-bit unsigned words, 64-bit values as
 * hi/lo pairs, shifts below 32), checked against the C library's fmaf on random and
 * edge-case operands. It is the model the shader code was transcribed from; the browser
 * test checks the shaders themselves against the reference VM (docs/Web.md).
 *   cc -O2 -std=c11 -ffp-contract=off softfma_model.c -lm && ./a.out [N]   */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
typedef struct {
    u32 lo, hi;
} u64p; /* uvec2 in GLSL, vec2<u32> in WGSL */

static u64p mk(u32 hi, u32 lo)
{
    u64p r = {lo, hi};
    return r;
}
static u64p add64(u64p a, u64p b)
{
    u32 lo = a.lo + b.lo;
    return mk(a.hi + b.hi + (lo < a.lo ? 1u : 0u), lo);
}
static u64p sub64(u64p a, u64p b)
{
    return mk(a.hi - b.hi - (a.lo < b.lo ? 1u : 0u), a.lo - b.lo);
}
static int lt64(u64p a, u64p b)
{
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}
static u64p shl64(u64p a, int n)
{
    if (n == 0) return a;
    if (n < 32) return mk((a.hi << n) | (a.lo >> (32 - n)), a.lo << n);
    if (n < 64) return mk(a.lo << (n - 32), 0u);
    return mk(0u, 0u);
}
static u64p shr64(u64p a, int n)
{
    if (n == 0) return a;
    if (n < 32) return mk(a.hi >> n, (a.lo >> n) | (a.hi << (32 - n)));
    if (n < 64) return mk(0u, a.hi >> (n - 32));
    return mk(0u, 0u);
}
/* a >> n with every bit shifted out ORed into bit 0 */
static u64p shr64_sticky(u64p a, int n)
{
    u64p r = shr64(a, n);
    u64p back = n < 64 ? shl64(r, n) : mk(0u, 0u);
    if (back.hi != a.hi || back.lo != a.lo) r.lo |= 1u;
    return r;
}
/* The index of the highest set bit of y, 0 < y < 2^24: the float conversion is exact and
 * its exponent is the index (GLSL ES 3.00 has no findMSB; WGSL uses countLeadingZeros). */
static int msb24(u32 y)
{
    float f = (float)y;
    u32 u;
    memcpy(&u, &f, 4);
    return (int)(u >> 23) - 127;
}
static int msb32(u32 x)
{
    return x >= 0x1000000u ? 8 + msb24(x >> 8) : msb24(x);
}
static int msb64(u64p a)
{
    return a.hi != 0u ? 32 + msb32(a.hi) : msb32(a.lo);
}

#define NAN_BITS 0x7FC00000u

/* value = X * 2^E, X != 0, sign s: the float32 nearest (ties to even) */
static u32 round_pack(u32 s, u64p x, int e)
{
    int m = msb64(x);
    int be = m + e + 127;
    if (be > 254) return (s << 31) | 0x7F800000u;
    int shift = m - 23;
    int ef = be - 1;
    if (be < 1) {
        shift = -149 - e;
        ef = 0;
    }
    u32 q;
    if (shift <= 0) {
        q = shl64(x, -shift).lo;
    } else if (shift >= 64) {
        q = 0u; /* X < 2^63 <= half: rounds to zero */
    } else {
        u64p qq = shr64(x, shift);
        u64p rem = sub64(x, shl64(qq, shift));
        u64p half = shl64(mk(0u, 1u), shift - 1);
        q = qq.lo;
        if (lt64(half, rem) || (rem.hi == half.hi && rem.lo == half.lo && (q & 1u) != 0u)) q += 1u;
    }
    return (s << 31) + (((u32)ef << 23) + q); /* q may carry into the exponent: right */
}

static u32 soft_fma(u32 ua, u32 ub, u32 uc)
{
    u32 ea = (ua >> 23) & 0xFFu, eb = (ub >> 23) & 0xFFu, ec = (uc >> 23) & 0xFFu;
    u32 ma = ua & 0x7FFFFFu, mb = ub & 0x7FFFFFu, mc = uc & 0x7FFFFFu;
    u32 sp = (ua ^ ub) >> 31, sc = uc >> 31;
    if ((ea == 255u && ma != 0u) || (eb == 255u && mb != 0u) || (ec == 255u && mc != 0u))
        return NAN_BITS;
    int za = (ua & 0x7FFFFFFFu) == 0u, zb = (ub & 0x7FFFFFFFu) == 0u;
    /* the lowering's moves and negations: +-a + +-0, exactly */
    if ((ub & 0x7FFFFFFFu) == 0x3F800000u && (uc & 0x7FFFFFFFu) == 0u && ea != 255u)
        return za ? ((sp & sc) << 31) : (ua ^ (ub & 0x80000000u));
    if (ea == 255u || eb == 255u) {
        if (za || zb) return NAN_BITS;
        if (ec == 255u && sc != sp) return NAN_BITS;
        return (sp << 31) | 0x7F800000u;
    }
    if (ec == 255u) return uc;
    if (za || zb) return (uc & 0x7FFFFFFFu) == 0u ? ((sp & sc) << 31) : uc;
    /* normalize: m in [2^23, 2^24), value = m * 2^(e - 150) */
    int xa = (int)ea, xb = (int)eb, xc = (int)ec;
    if (ea == 0u) {
        int k = 23 - msb32(ma);
        ma <<= k;
        xa = 1 - k;
    } else
        ma |= 0x800000u;
    if (eb == 0u) {
        int k = 23 - msb32(mb);
        mb <<= k;
        xb = 1 - k;
    } else
        mb |= 0x800000u;
    /* the exact 48-bit product from 12-bit halves (no 32x32 multiply in GLSL ES 3.00) */
    u32 a1 = ma >> 12, a0 = ma & 0xFFFu, b1 = mb >> 12, b0 = mb & 0xFFFu;
    u32 mid = a1 * b0 + a0 * b1, hi = a1 * b1;
    u64p p = mk(0u, a0 * b0);
    p = add64(p, mk(mid >> 20, mid << 12));
    p = add64(p, mk(hi >> 8, hi << 24));
    /* frame: MSB at bit 61 */
    int sh = 61 - msb64(p);
    p = shl64(p, sh);
    int ep = xa + xb - 300 - sh;
    if ((uc & 0x7FFFFFFFu) == 0u) return round_pack(sp, p, ep);
    if (ec == 0u) {
        int k = 23 - msb32(mc);
        mc <<= k;
        xc = 1 - k;
    } else
        mc |= 0x800000u;
    u64p c = shl64(mk(0u, mc), 38);
    int ecx = xc - 150 - 38;
    u64p big = p, small = c;
    u32 sbig = sp, ssmall = sc;
    int e = ep, d = ep - ecx;
    if (d < 0 || (d == 0 && lt64(p, c))) {
        big = c;
        small = p;
        sbig = sc;
        ssmall = sp;
        e = ecx;
        d = -d;
    }
    small = shr64_sticky(small, d);
    u64p x;
    if (sbig == ssmall) {
        x = add64(big, small);
    } else {
        x = sub64(big, small);
        if (x.hi == 0u && x.lo == 0u) return 0u; /* exact cancellation: +0 */
    }
    return round_pack(sbig, x, e);
}

static u32 ref_fma(u32 a, u32 b, u32 c)
{
    float fa, fb, fc, r;
    memcpy(&fa, &a, 4);
    memcpy(&fb, &b, 4);
    memcpy(&fc, &c, 4);
    r = fmaf(fa, fb, fc);
    u32 u;
    memcpy(&u, &r, 4);
    return isnan(r) ? NAN_BITS : u;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static u32 rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (u32)(rng >> 16);
}

static u32 pick(void)
{
    static const u32 special[] = {0,           0x80000000u, 1,           0x80000001u,
                                  0x7FFFFFu,   0x800000u,   0x7F7FFFFFu, 0x7F800000u,
                                  0xFF800000u, 0x7FC00000u, 0x3F800000u, 0xBF800000u,
                                  0x00400000u, 0x7FFFFFFFu, 0x34000000u, 0x4B000000u};
    switch (rnd() % 8) {
    case 0:
        return special[rnd() % 16];
    case 1:
        return (rnd() & 0x807FFFFFu); /* subnormals */
    case 2:
        return (rnd() & 0x80FFFFFFu) | ((100u + rnd() % 56u) << 23); /* near 1 */
    case 3:
        return (rnd() & 0x80FFFFFFu) | ((1u + rnd() % 30u) << 23); /* tiny normals */
    case 4:
        return (rnd() & 0x80FFFFFFu) | ((220u + rnd() % 34u) << 23); /* huge */
    default:
        return rnd() ^ (rnd() << 16);
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000000L, bad = 0;
    for (long i = 0; i < n; i++) {
        u32 a = pick(), b = pick(), c = pick();
        if (i % 4 == 1) { /* cancellation: c = -round(a*b) (+ a few ulps) */
            float fa, fb;
            memcpy(&fa, &a, 4);
            memcpy(&fb, &b, 4);
            float pr = -(fa * fb);
            memcpy(&c, &pr, 4);
            c += rnd() % 5u - 2u;
        }
        u32 got = soft_fma(a, b, c), want = ref_fma(a, b, c);
        if (got != want && bad++ < 10)
            printf("fma(%08x, %08x, %08x): got %08x, want %08x\n", a, b, c, got, want);
    }
    printf("%ld cases, %ld mismatches\n", n, bad);
    return bad != 0;
}
