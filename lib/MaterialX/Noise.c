/* MaterialX's reference noises as IR on exact 32-bit integers: Bob Jenkins' lookup3
 * hash (final mix and, for more than three words, the mix step) as MaterialX's GLSL
 * noise library applies it, Perlin gradient noise with the quintic fade and its
 * gradient selection and scales, cell noise, Worley noise and the fractal sum
 * (docs/MaterialX.md, "Noise"). Written from the algorithms' descriptions; test/
 * MaterialX checks them against an independent Python transcription. */
#include "MxInternal.h"

#define B (n->b)
#define F (n->fast)

static fmag_value *ik(mx_node *n, uint32_t v)
{
    return fmag_module_const_i32(B->module, v);
}

static fmag_value *iop(mx_node *n, fmag_int_op op, fmag_value *x, fmag_value *y)
{
    return fmag_build_int(B, op, x, y, NULL);
}

static fmag_value *rotl(mx_node *n, fmag_value *x, unsigned k)
{
    return iop(n, FMAG_IOP_OR, iop(n, FMAG_IOP_SHL, x, ik(n, k)),
               iop(n, FMAG_IOP_LSHR, x, ik(n, 32 - k)));
}

/* a -= c; a ^= rotl(c, k); c += b; ... (lookup3's mix) */
static void bjmix(mx_node *n, fmag_value **a, fmag_value **b, fmag_value **c)
{
    static const unsigned rot[6] = {4, 6, 8, 16, 19, 4};
    fmag_value **v[3] = {a, b, c};
    for (unsigned s = 0; s < 6; s++) {
        fmag_value **x = v[s % 3], **z = v[(s + 2) % 3], **y = v[(s + 1) % 3];
        *x = iop(n, FMAG_IOP_SUB, *x, *z);
        *x = iop(n, FMAG_IOP_XOR, *x, rotl(n, *z, rot[s]));
        *z = iop(n, FMAG_IOP_ADD, *z, *y);
    }
}

/* c ^= b; c -= rotl(b, 14); ... (lookup3's final) */
static fmag_value *bjfinal(mx_node *n, fmag_value *a, fmag_value *b, fmag_value *c)
{
    static const unsigned rot[7] = {14, 11, 25, 16, 4, 14, 24};
    fmag_value *v[3] = {a, b, c};
    /* the pattern: (c, b), (a, c), (b, a), (c, b), (a, c), (b, a), (c, b) */
    static const unsigned dst[7] = {2, 0, 1, 2, 0, 1, 2}, src[7] = {1, 2, 0, 1, 2, 0, 1};
    for (unsigned s = 0; s < 7; s++) {
        fmag_value *x = v[dst[s]], *y = v[src[s]];
        x = iop(n, FMAG_IOP_XOR, x, y);
        x = iop(n, FMAG_IOP_SUB, x, rotl(n, y, rot[s]));
        v[dst[s]] = x;
    }
    return v[2];
}

/* The hash of 1 to 5 integers. */
static fmag_value *hash(mx_node *n, fmag_value *const *x, unsigned len)
{
    fmag_value *seed = ik(n, 0xdeadbeefu + ((uint32_t)len << 2) + 13u);
    if (len == 1) return bjfinal(n, iop(n, FMAG_IOP_ADD, seed, x[0]), seed, seed);
    fmag_value *a = iop(n, FMAG_IOP_ADD, seed, x[0]);
    fmag_value *b = iop(n, FMAG_IOP_ADD, seed, x[1]);
    fmag_value *c = len >= 3 ? iop(n, FMAG_IOP_ADD, seed, x[2]) : seed;
    if (len > 3) {
        bjmix(n, &a, &b, &c);
        a = iop(n, FMAG_IOP_ADD, a, x[3]);
        if (len > 4) b = iop(n, FMAG_IOP_ADD, b, x[4]);
    }
    return bjfinal(n, a, b, c);
}

/* int(floor(x)) and x - floor(x) */
static fmag_value *floorfrac(mx_node *n, fmag_value *x, fmag_value **i)
{
    fmag_value *fl = fmag_build_floor(B, x, F);
    *i = fmag_build_int(B, FMAG_IOP_FPTOSI, fl, NULL, NULL);
    return fmag_build_sub(B, x, fl);
}

static fmag_value *fk(mx_node *n, float f)
{
    return mx_k(n, f);
}

/* t^3 (t (6t - 15) + 10) */
static fmag_value *fade(mx_node *n, fmag_value *t)
{
    fmag_value *p = fmag_build_fma(B, t, fk(n, 6.0f), fk(n, -15.0f));
    p = fmag_build_fma(B, t, p, fk(n, 10.0f));
    return fmag_build_mul(B, fmag_build_mul(B, fmag_build_mul(B, t, t), t), p);
}

/* bit k of h set (as the machine's boolean) */
static fmag_value *bit(mx_node *n, fmag_value *h, uint32_t mask)
{
    return iop(n, FMAG_IOP_NE, iop(n, FMAG_IOP_AND, h, ik(n, mask)), ik(n, 0));
}

static fmag_value *negate_if(mx_node *n, fmag_value *v, fmag_value *cond)
{
    return fmag_build_select(B, fmag_build_neg(B, v), v, cond);
}

/* The gradient: 2D (h & 7) picks u, v = (x, 2y) or (y, 2x) and their signs; 3D
 * (h & 15) picks u among x, y and v among y, x, z. */
static fmag_value *gradient(mx_node *n, fmag_value *hash32, fmag_value *const *f, unsigned dim)
{
    if (dim == 2) {
        fmag_value *h = iop(n, FMAG_IOP_AND, hash32, ik(n, 7));
        fmag_value *lt4 = iop(n, FMAG_IOP_ULT, h, ik(n, 4));
        fmag_value *u = fmag_build_select(B, f[0], f[1], lt4);
        fmag_value *v = fmag_build_mul(B, fk(n, 2.0f), fmag_build_select(B, f[1], f[0], lt4));
        return fmag_build_add(B, negate_if(n, u, bit(n, h, 1)), negate_if(n, v, bit(n, h, 2)));
    }
    fmag_value *h = iop(n, FMAG_IOP_AND, hash32, ik(n, 15));
    fmag_value *u = fmag_build_select(B, f[0], f[1], iop(n, FMAG_IOP_ULT, h, ik(n, 8)));
    fmag_value *x_or_z = fmag_build_select(
        B, f[0], f[2],
        fmag_build_max(B, iop(n, FMAG_IOP_EQ, h, ik(n, 12)), iop(n, FMAG_IOP_EQ, h, ik(n, 14))));
    fmag_value *v = fmag_build_select(B, f[1], x_or_z, iop(n, FMAG_IOP_ULT, h, ik(n, 4)));
    return fmag_build_add(B, negate_if(n, u, bit(n, h, 1)), negate_if(n, v, bit(n, h, 2)));
}

/* (1 - t) a + t b, as MaterialX's bilerp/trilerp write it: a * (1 - t) + b * t */
static fmag_value *lerp(mx_node *n, fmag_value *a, fmag_value *b, fmag_value *t)
{
    fmag_value *s1 = fmag_build_sub(B, fk(n, 1.0f), t);
    return fmag_build_add(B, fmag_build_mul(B, a, s1), fmag_build_mul(B, b, t));
}

void mx_perlin(mx_node *n, fmag_value *const *p, unsigned dim, unsigned nout, fmag_value **out)
{
    fmag_value *I[3], *f[3], *w[3];
    for (unsigned k = 0; k < dim; k++) {
        f[k] = floorfrac(n, p[k], &I[k]);
        w[k] = fade(n, f[k]);
    }
    unsigned corners = 1u << dim;
    fmag_value *val[3][8];
    for (unsigned c = 0; c < corners; c++) {
        fmag_value *ci[3], *fc[3];
        for (unsigned k = 0; k < dim; k++) {
            bool hi = (c >> k) & 1u;
            ci[k] = hi ? iop(n, FMAG_IOP_ADD, I[k], ik(n, 1)) : I[k];
            fc[k] = hi ? fmag_build_sub(B, f[k], fk(n, 1.0f)) : f[k];
        }
        fmag_value *h = hash(n, ci, dim);
        if (nout == 1) {
            val[0][c] = gradient(n, h, fc, dim);
        } else {
            /* one hash, split into three bytes: one per channel */
            for (unsigned ch = 0; ch < 3; ch++) {
                fmag_value *byte =
                    iop(n, FMAG_IOP_AND, iop(n, FMAG_IOP_LSHR, h, ik(n, 8 * ch)), ik(n, 0xFF));
                val[ch][c] = gradient(n, byte, fc, dim);
            }
        }
    }
    float scale = dim == 2 ? 0.6616f : 0.9820f;
    for (unsigned ch = 0; ch < nout; ch++) {
        fmag_value *v[8];
        for (unsigned c = 0; c < corners; c++)
            v[c] = val[ch][c];
        /* x first, then y, then z (corner bit k is axis k) */
        unsigned m = corners;
        for (unsigned k = 0; k < dim; k++) {
            m /= 2;
            for (unsigned c = 0; c < m; c++)
                v[c] = lerp(n, v[2 * c], v[2 * c + 1], w[k]);
        }
        out[ch] = fmag_build_mul(B, fk(n, scale), v[0]);
    }
}

/* bits / 2^32 as MaterialX's float(bits) / float(0xffffffff) computes it in float32 */
static fmag_value *bits_to_01(mx_node *n, fmag_value *h)
{
    fmag_value *f = fmag_build_int(B, FMAG_IOP_UITOFP, h, NULL, NULL);
    return fmag_build_mul(B, f, fk(n, 1.0f / 4294967296.0f));
}

static void cell_ints(mx_node *n, fmag_value *const *p, unsigned dim, fmag_value **I)
{
    for (unsigned k = 0; k < dim; k++)
        I[k] = fmag_build_int(B, FMAG_IOP_FPTOSI, fmag_build_floor(B, p[k], F), NULL, NULL);
}

static void cell_of_ints(mx_node *n, fmag_value **I, unsigned dim, unsigned nout, fmag_value **out)
{
    if (nout == 1) {
        out[0] = bits_to_01(n, hash(n, I, dim));
        return;
    }
    for (unsigned ch = 0; ch < nout; ch++) {
        I[dim] = ik(n, ch);
        out[ch] = bits_to_01(n, hash(n, I, dim + 1));
    }
}

void mx_cellnoise(mx_node *n, fmag_value *const *p, unsigned dim, unsigned nout, fmag_value **out)
{
    fmag_value *I[4];
    cell_ints(n, p, dim, I);
    cell_of_ints(n, I, dim, nout, out);
}

/* Worley: the distances to the nearest nout (1 to 3) of the jittered points of the
 * 3^dim cells around p, nearest first (F1, F2, F3). Each cell's distance d goes into
 * the sorted f1 <= f2 <= f3 as MaterialX's if/else chain puts it, written as
 * f3 = min(f3, max(f2, d)), f2 = min(f2, max(f1, d)), f1 = min(f1, d) (old f1, f2). */
void mx_worley(mx_node *n, fmag_value *const *p, unsigned dim, fmag_value *jitter, int metric,
               unsigned nout, fmag_value **out)
{
    fmag_value *I[3], *loc[3];
    for (unsigned k = 0; k < dim; k++)
        loc[k] = floorfrac(n, p[k], &I[k]);
    fmag_value *f[3];
    for (unsigned k = 0; k < nout; k++)
        f[k] = fk(n, 1e6f);
    int zlo = dim == 3 ? -1 : 0, zhi = dim == 3 ? 1 : 0;
    for (int x = -1; x <= 1; x++)
        for (int y = -1; y <= 1; y++)
            for (int z = zlo; z <= zhi; z++) {
                int off[3] = {x, y, z};
                fmag_value *ci[4], *jit[3], *diff[3];
                for (unsigned k = 0; k < dim; k++)
                    ci[k] = iop(n, FMAG_IOP_ADD, I[k], ik(n, (uint32_t)off[k]));
                cell_of_ints(n, ci, dim, 3, jit);
                fmag_value *d = NULL;
                for (unsigned k = 0; k < dim; k++) {
                    /* cell position: off + (jit - 0.5) * jitter + 0.5 */
                    fmag_value *o = fmag_build_fma(B, fmag_build_sub(B, jit[k], fk(n, 0.5f)),
                                                   jitter, fk(n, 0.5f));
                    fmag_value *cp = fmag_build_add(B, fk(n, (float)off[k]), o);
                    diff[k] = fmag_build_sub(B, cp, loc[k]);
                }
                if (metric == 2) {
                    d = fmag_build_abs(B, diff[0]);
                    for (unsigned k = 1; k < dim; k++)
                        d = fmag_build_add(B, d, fmag_build_abs(B, diff[k]));
                } else if (metric == 3) {
                    d = fmag_build_abs(B, diff[0]);
                    for (unsigned k = 1; k < dim; k++)
                        d = fmag_build_max(B, d, fmag_build_abs(B, diff[k]));
                } else {
                    d = fmag_build_dot(B, diff, diff, dim, F);
                }
                for (unsigned k = nout; k-- > 1;)
                    f[k] = fmag_build_min(B, f[k], fmag_build_max(B, f[k - 1], d));
                f[0] = fmag_build_min(B, f[0], d);
            }
    for (unsigned k = 0; k < nout; k++)
        out[k] = metric == 0 ? fmag_build_sqrt(B, f[k], F) : f[k];
}

/* sum over octaves of amplitude * noise(p); amplitude *= diminish, p *= lacunarity */
void mx_fractal(mx_node *n, fmag_value *const *p, unsigned dim, unsigned nout, int octaves,
                fmag_value *lacunarity, fmag_value *diminish, fmag_value **out)
{
    fmag_value *q[3] = {p[0], p[1], p[2]}, *amp = fk(n, 1.0f);
    for (unsigned ch = 0; ch < nout; ch++)
        out[ch] = fk(n, 0.0f);
    for (int o = 0; o < octaves; o++) {
        fmag_value *v[3];
        mx_perlin(n, q, dim, nout, v);
        for (unsigned ch = 0; ch < nout; ch++)
            out[ch] = fmag_build_fma(B, amp, v[ch], out[ch]);
        amp = fmag_build_mul(B, amp, diminish);
        for (unsigned k = 0; k < dim; k++)
            q[k] = fmag_build_mul(B, q[k], lacunarity);
    }
}
