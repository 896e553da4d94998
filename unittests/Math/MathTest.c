/* Unit tests of the lib/Math builders that fmag-accuracy cannot reach (several
 * results, vectors, matrices): frexp, modf, isnan/isinf, any/all, reflect, refract,
 * faceforward, determinant, inverse and the data-movement helpers. Each is built
 * through the C API, run on the IR interpreter both as built and after -O2, and
 * compared with C in double precision (exact where the builtin is exact). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../Expect.h"
#include "fmag/IR.h"
#include "fmag/Math.h"
#include "fmag/Transforms.h"

typedef void (*build_fn)(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast);

/* Builds f(params) -> nout results and runs it on `in`, optimized or not. */
static bool run(build_fn fn, unsigned nin, unsigned nout, const float *in, float *out, bool opt,
                bool fast)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_module_create(ctx);
    m->fastmath = fast;
    fmag_func *f = fmag_func_create(m, "t", nin, nout, true);
    fmag_builder b;
    b.module = m;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *res[32];
    fn(&b, f->params, res, fast);
    fmag_build_ret(&b, res, nout);
    bool ok = fmag_verify_module(m);
    if (ok && opt) {
        fmag_pass_options po;
        memset(&po, 0, sizeof po);
        ok = fmag_run_passes(m, "O2", &po);
    }
    ok = ok && fmag_interp_func(f, in, out);
    if (!ok) fmag_context_diag_print(ctx, stderr);
    fmag_context_destroy(ctx);
    return ok;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t rng = 0x1234567ull;
static float frand(float lo, float hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (float)((rng >> 40) * 0x1p-24);
}

/* ---- frexp, modf, isnan, isinf, any, all */

static void b_frexp(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast)
{
    out[0] = fmag_build_frexp(b, &p[0], &out[1], fast);
}
static void b_modf(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast)
{
    out[0] = fmag_build_modf(b, &p[0], &out[1], fast);
}
static void b_isnan_isinf(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast)
{
    out[0] = fmag_build_isnan(b, &p[0], fast);
    out[1] = fmag_build_isinf(b, &p[0], fast);
}
static void b_anyall(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast)
{
    (void)fast;
    fmag_value *v[4] = {&p[0], &p[1], &p[2], &p[3]};
    for (unsigned n = 1; n <= 4; n++) {
        out[2 * (n - 1)] = fmag_build_any(b, v, n);
        out[2 * (n - 1) + 1] = fmag_build_all(b, v, n);
    }
}

static void test_scalar_pairs(void)
{
    static const float xs[] = {
        1.0f,       -1.0f, 0.75f,       -3.5f, 1e-40f, -0x1p-149f, 0x1p-126f, 3.4028235e38f,
        8388609.0f, 0.1f,  123456.789f, -0.0f, 0.0f,   2.5f,       -2.0f,     0x1.fffffep-1f};
    for (unsigned opt = 0; opt < 2; opt++)
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            float x = xs[i], out[2];
            EXPECT(run(b_frexp, 1, 2, &x, out, opt, false));
            int e;
            float m = frexpf(x, &e);
            EXPECT(bits(out[0]) == bits(m) || (x == 0 && out[0] == 0));
            EXPECT(out[1] == (float)e);
            EXPECT(run(b_modf, 1, 2, &x, out, opt, false));
            float w, fr = modff(x, &w);
            EXPECT(out[1] == w);
            EXPECT(out[0] == fr);
        }
    static const float specials[] = {0.0f,      -0.0f,    1.0f,      -1.0f, 3.4028235e38f,
                                     0x1p-149f, INFINITY, -INFINITY, NAN};
    for (unsigned opt = 0; opt < 2; opt++)
        for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
            float x = specials[i], out[2];
            EXPECT(run(b_isnan_isinf, 1, 2, &x, out, opt, false));
            if (out[0] != (isnan(x) ? 1.0f : 0.0f) || out[1] != (isinf(x) ? 1.0f : 0.0f)) {
                fprintf(stderr, "isnan/isinf(%g) -O%u = %g %g\n", (double)x, opt * 2,
                        (double)out[0], (double)out[1]);
                failures++;
            }
        }
    for (unsigned opt = 0; opt < 2; opt++)
        for (unsigned mask = 0; mask < 16; mask++) {
            float in[4], out[8];
            for (unsigned k = 0; k < 4; k++)
                in[k] = (mask >> k) & 1 ? 1.0f : 0.0f;
            EXPECT(run(b_anyall, 4, 8, in, out, opt, false));
            for (unsigned n = 1; n <= 4; n++) {
                unsigned sub = mask & ((1u << n) - 1);
                EXPECT(out[2 * (n - 1)] == (sub ? 1.0f : 0.0f));
                EXPECT(out[2 * (n - 1) + 1] == (sub == (1u << n) - 1 ? 1.0f : 0.0f));
            }
        }
}

/* ---- geometry: n = 3 (reflect/refract/faceforward share one code path for every n) */

static unsigned g_n;
static void b_reflect(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast)
{
    fmag_value *I[4], *N[4];
    for (unsigned i = 0; i < g_n; i++) {
        I[i] = &p[i];
        N[i] = &p[g_n + i];
    }
    fmag_build_reflect(b, I, N, g_n, out, fast);
}
static void b_refract(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast)
{
    fmag_value *I[4], *N[4];
    for (unsigned i = 0; i < g_n; i++) {
        I[i] = &p[i];
        N[i] = &p[g_n + i];
    }
    fmag_build_refract(b, I, N, &p[2 * g_n], g_n, out, fast);
}
static void b_faceforward(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast)
{
    fmag_value *N[4], *I[4], *R[4];
    for (unsigned i = 0; i < g_n; i++) {
        N[i] = &p[i];
        I[i] = &p[g_n + i];
        R[i] = &p[2 * g_n + i];
    }
    fmag_build_faceforward(b, N, I, R, g_n, out, fast);
}

static void test_geometry(void)
{
    for (g_n = 1; g_n <= 4; g_n++)
        for (int it = 0; it < 200; it++) {
            float in[13], out[4];
            double dni = 0, len = 0;
            for (unsigned i = 0; i < 3 * g_n + 1; i++)
                in[i] = frand(-1, 1);
            for (unsigned i = 0; i < g_n; i++)
                len += (double)in[g_n + i] * in[g_n + i];
            for (unsigned i = 0; i < g_n; i++) /* unit N, as GLSL expects */
                in[g_n + i] = (float)(in[g_n + i] / sqrt(len));
            for (unsigned i = 0; i < g_n; i++)
                dni += (double)in[g_n + i] * in[i];
            bool opt = it & 1;
            EXPECT(run(b_reflect, 2 * g_n, g_n, in, out, opt, false));
            for (unsigned i = 0; i < g_n; i++) {
                double want = in[i] - 2 * dni * in[g_n + i];
                EXPECT(fabs(out[i] - want) <= 4e-7 * (1 + fabs(dni)));
            }
            float eta = in[2 * g_n] * 1.5f; /* some |eta| > 1 to reach total reflection */
            in[2 * g_n] = eta;
            EXPECT(run(b_refract, 2 * g_n + 1, g_n, in, out, opt, false));
            double k = 1 - (double)eta * eta * (1 - dni * dni);
            for (unsigned i = 0; i < g_n; i++) {
                double want = k < 0 ? 0 : eta * in[i] - (eta * dni + sqrt(k)) * in[g_n + i];
                EXPECT(fabs(out[i] - want) <= 2e-6);
            }
            double dri = 0;
            for (unsigned i = 0; i < g_n; i++)
                dri += (double)in[2 * g_n + i] * in[g_n + i];
            EXPECT(run(b_faceforward, 3 * g_n, g_n, in, out, opt, false));
            for (unsigned i = 0; i < g_n; i++)
                if (fabs(dri) > 1e-6) EXPECT(out[i] == (dri < 0 ? in[i] : -in[i]));
        }
}

/* ---- matrices */

static double det_ref(const double *a, unsigned n) /* column-major, Laplace */
{
    if (n == 1) return a[0];
    double r = 0, sub[9];
    for (unsigned j = 0; j < n; j++) {
        unsigned k = 0;
        for (unsigned c = 0; c < n; c++) {
            if (c == j) continue;
            for (unsigned rr = 1; rr < n; rr++)
                sub[k++] = a[c * n + rr];
        }
        double m = det_ref(sub, n - 1) * a[j * n];
        r += (j & 1) ? -m : m;
    }
    return r;
}

static void b_det(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast)
{
    fmag_value *m[16];
    for (unsigned i = 0; i < g_n * g_n; i++)
        m[i] = &p[i];
    out[0] = fmag_build_determinant(b, m, g_n, fast);
    fmag_build_inverse(b, m, g_n, out + 1, fast);
}

static void b_movement(fmag_builder *b, fmag_value *p, fmag_value **out, bool fast)
{
    (void)fast;
    /* a 2-column, 3-row matrix p[0..5]; transpose it; outer(p[6..8], p[9..10]);
     * matrixCompMult(p[0..5], p[11..16]) */
    fmag_value *m[6], *c[3], *r[2], *y[6];
    for (unsigned i = 0; i < 6; i++) {
        m[i] = &p[i];
        y[i] = &p[11 + i];
    }
    for (unsigned i = 0; i < 3; i++)
        c[i] = &p[6 + i];
    r[0] = &p[9];
    r[1] = &p[10];
    fmag_build_transpose(m, 2, 3, out);
    fmag_build_outer_product(b, c, 3, r, 2, out + 6);
    fmag_build_matrix_comp_mult(b, m, y, 6, out + 12);
}

static void test_matrices(void)
{
    for (g_n = 2; g_n <= 4; g_n++)
        for (int it = 0; it < 100; it++) {
            float in[16], out[17];
            double a[16];
            for (unsigned i = 0; i < g_n * g_n; i++)
                a[i] = in[i] = frand(-2, 2);
            EXPECT(run(b_det, g_n * g_n, 1 + g_n * g_n, in, out, it & 1, false));
            double d = det_ref(a, g_n);
            EXPECT(fabs(out[0] - d) <= 1e-5 * (1 << g_n));
            if (fabs(d) < 0.1) continue;
            /* inverse * m = identity */
            for (unsigned r = 0; r < g_n; r++)
                for (unsigned c = 0; c < g_n; c++) {
                    double s = 0;
                    for (unsigned k = 0; k < g_n; k++)
                        s += (double)out[1 + k * g_n + r] * a[c * g_n + k];
                    EXPECT(fabs(s - (r == c)) <= 1e-4 * (1 + 1 / fabs(d)));
                }
        }
    /* worked by hand: rows (2 0 1; 1 3 2; 1 1 2), det = 2(6-2) - 0 + 1(1-3) = 6 */
    g_n = 3;
    float m3[9] = {2, 1, 1, 0, 3, 1, 1, 2, 2}, out[10];
    EXPECT(run(b_det, 9, 10, m3, out, true, false));
    EXPECT(out[0] == 6.0f);
    float in[17], mv[18];
    for (unsigned i = 0; i < 17; i++)
        in[i] = (float)(i + 1);
    EXPECT(run(b_movement, 17, 18, in, mv, false, false));
    for (unsigned c = 0; c < 2; c++)
        for (unsigned r = 0; r < 3; r++) {
            EXPECT(mv[r * 2 + c] == in[c * 3 + r]);             /* transpose */
            EXPECT(mv[6 + c * 3 + r] == in[6 + r] * in[9 + c]); /* outer product */
        }
    for (unsigned i = 0; i < 6; i++)
        EXPECT(mv[12 + i] == in[i] * in[11 + i]);
}

int main(void)
{
    test_scalar_pairs();
    test_geometry();
    test_matrices();
    printf("math-unittests: %d failures\n", failures);
    return failures != 0;
}
