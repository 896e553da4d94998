/* fmag-accuracy: measures each math-library builtin against double-precision libm.
 * Every builtin is built through the C API (lib/Math), optimized with -O2, lowered,
 * and run on the batch VM engine; the error of each result is measured in ulps of
 * the correctly rounded float32 result. One-input builtins can be checked
 * exhaustively over every float32 of their domain; two-input ones are sampled.
 * `fmag-accuracy --markdown` prints the rows of docs/Builtins.md's tables (and each
 * sweep's detail line on stderr). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmag/Bits.h"
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/Math.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "accuracy.h"
#include "Options.h"

/* How the fast-math bound is given (the Vulkan / GLSL minimum precision): in ulps, or
 * one of the forms that depend on the point and are converted to ulps there. */
typedef enum fast_bound_kind {
    FAST_ULP,     /* fast_target ulps */
    FAST_EXP,     /* 3 + 2|x| ulps */
    FAST_LOG,     /* 3 ulps; 2^-21 absolute in [0.5, 2] */
    FAST_ABS_TRIG /* 2^-11 absolute */
} fast_bound_kind;

typedef struct fn_desc {
    const char *name;
    unsigned nargs;
    double (*ref1)(double);
    double (*ref2)(double, double);
    bool (*in_domain)(float x); /* one-input builtins: x is in the measured domain */
    const char *domain;
    double target;      /* ulp bound, default mode */
    double fast_target; /* ulp bound in fast-math (Vulkan minimum where it is in ulp) */
    fast_bound_kind fast_kind;
    /* half of a one-input sample is uniform in value over [-span, span], where the
     * result varies (the other half random bit patterns); 0: the trig range */
    double span;
    /* Regression pins (issue 19): the worst error measured over the default domain,
     * default mode and fast-math, plus 0.01 (exhaustive rows of docs/Builtins.md) or
     * 0.05 (sampled rows); a run over that domain that exceeds one fails with
     * REGRESSED, so a change of the sequences has to show its new worst error and
     * update the pin with the docs. -1: no pin (an absolute fast-math bound). */
    double pin, fast_pin;
} fn_desc;

static double r_rcp(double x)
{
    return 1.0 / x;
}
static double r_rsqrt(double x)
{
    return 1.0 / sqrt(x);
}
static double r_fract(double x)
{
    return x - floor(x);
}
static double r_sign(double x)
{
    return x > 0 ? 1.0 : x < 0 ? -1.0 : x;
}
static double r_saturate(double x)
{
    return x < 0 ? 0 : x > 1 ? 1 : x;
}
static double r_div(double x, double y)
{
    return x / y;
}

static double r_step(double edge, double x)
{
    return x < edge ? 0 : 1;
}

static double r_radians(double x)
{
    return x * (3.14159265358979323846 / 180);
}
static double r_degrees(double x)
{
    return x * (180 / 3.14159265358979323846);
}
static double r_ldexp(double x, double n)
{
    return ldexp(x, (int)n);
}

/* --trig-range R: the |x| bound of the sin/cos/tan sweeps (default 1e5). */
static double trig_range = 1e5;

static double pow_c; /* the exponent of the "pow@C" sweep */
static double r_powc(double x)
{
    return pow(x, pow_c);
}

/* The measured domains, one predicate per builtin: the sweeps call them on every
 * point, so they are plain comparisons (no lookup by name). */
static bool d_finite(float x)
{
    return isfinite(x);
}
static bool d_rcp(float x)
{
    float a = fabsf(x);
    return a >= 0x1p-126f && a <= 0x1p126f;
}
static bool d_nonneg(float x)
{
    return x >= 0 && isfinite(x);
}
static bool d_normal_pos(float x)
{
    return x >= 0x1p-126f && isfinite(x);
}
static bool d_exp(float x)
{
    return x >= -87.33f && x <= 88.72f;
}
static bool d_exp2(float x)
{
    return x >= -126.0f && x < 128.0f;
}
static bool d_trig(float x)
{
    return fabsf(x) <= trig_range && isfinite(x);
}
static bool d_unit(float x)
{
    return fabsf(x) <= 1;
}
static bool d_hyp(float x)
{
    return fabsf(x) <= 89.41f;
}
static bool d_acosh(float x)
{
    return x >= 1 && isfinite(x);
}
static bool d_atanh(float x)
{
    return fabsf(x) < 1;
}
static bool d_radians(float x)
{
    return fabsf(x) >= 0x1p-120f && isfinite(x);
}
static bool d_degrees(float x)
{
    return fabsf(x) <= 5.9e36f;
}
static bool d_powc(float x)
{
    double r = fabs(pow(x, pow_c));
    return x > 0 && isfinite(x) && r >= 0x1p-120 && r <= 0x1p120;
}

static const fn_desc fns[] = {
    {"abs", 1, fabs, NULL, d_finite, "all finite", 0, 0, FAST_ULP, 100, 0, 0},
    {"sign", 1, r_sign, NULL, d_finite, "all finite", 0, 0, FAST_ULP, 100, 0, 0},
    {"floor", 1, floor, NULL, d_finite, "all finite", 0, 0, FAST_ULP, 100, 0, 0},
    {"ceil", 1, ceil, NULL, d_finite, "all finite", 0, 0, FAST_ULP, 100, 0, 0},
    {"round", 1, nearbyint, NULL, d_finite, "all finite", 0, 0, FAST_ULP, 100, 0, 0},
    {"trunc", 1, trunc, NULL, d_finite, "all finite", 0, 0, FAST_ULP, 100, 0, 0},
    {"fract", 1, r_fract, NULL, d_finite, "all finite", 0.5, 0.5, FAST_ULP, 100, 0.5, 0.5},
    {"saturate", 1, r_saturate, NULL, d_finite, "all finite", 0, 0, FAST_ULP, 2, 0, 0},
    {"rcp", 1, r_rcp, NULL, d_rcp, "2^-126 <= |x| <= 2^126", 1, 2.5, FAST_ULP, 1e3, 0.51, 0.51},
    {"sqrt", 1, sqrt, NULL, d_nonneg, "x >= 0 finite (denormals too)", 1, 2.5, FAST_ULP, 1e4, 0.51,
     1.97},
    {"inversesqrt", 1, r_rsqrt, NULL, d_normal_pos, "x >= 2^-126", 2, 2, FAST_ULP, 1e4, 0.92, 0.92},
    {"exp", 1, exp, NULL, d_exp, "-87.33 <= x <= 88.72 (normal result)", 2, 3, FAST_EXP, 88.72,
     1.07, 3.02},
    {"exp2", 1, exp2, NULL, d_exp2, "-126 <= x < 128 (normal result)", 2, 3, FAST_EXP, 128, 0.96,
     2.79},
    {"log", 1, log, NULL, d_normal_pos, "x >= 2^-126", 2, 3, FAST_LOG, 1e4, 0.86, 4.9},
    {"log2", 1, log2, NULL, d_normal_pos, "x >= 2^-126", 2, 3, FAST_LOG, 1e4, 1.07, 5.26},
    {"sin", 1, sin, NULL, d_trig, "|x| <= 1e5", 2, 0, FAST_ABS_TRIG, 0, 1.51, -1},
    {"cos", 1, cos, NULL, d_trig, "|x| <= 1e5", 2, 0, FAST_ABS_TRIG, 0, 1.5, -1},
    {"tan", 1, tan, NULL, d_trig, "|x| <= 1e5", 4, 4096, FAST_ULP, 0, 3.42, 3.54},
    {"atan", 1, atan, NULL, d_finite, "all finite", 2, 4096, FAST_ULP, 1e3, 1.45, 10.7},
    {"asin", 1, asin, NULL, d_unit, "|x| <= 1", 2, 4096, FAST_ULP, 1, 1.1, 3.98},
    {"acos", 1, acos, NULL, d_unit, "|x| <= 1", 2, 4096, FAST_ULP, 1, 1.1, 3.77},
    {"sinh", 1, sinh, NULL, d_hyp, "|x| <= 89.41 (finite result)", 2, 4096, FAST_ULP, 89.41, 1.63,
     3.74},
    {"cosh", 1, cosh, NULL, d_hyp, "|x| <= 89.41 (finite result)", 2, 4096, FAST_ULP, 89.41, 1.52,
     3.41},
    {"tanh", 1, tanh, NULL, d_finite, "all finite", 2, 4096, FAST_ULP, 10, 1.59, 2.43},
    {"asinh", 1, asinh, NULL, d_finite, "all finite", 3, 4096, FAST_ULP, 1e3, 1.75, 5.77},
    {"acosh", 1, acosh, NULL, d_acosh, "x >= 1 finite", 3, 4096, FAST_ULP, 1e3, 2.01, 6.77},
    {"atanh", 1, atanh, NULL, d_atanh, "|x| < 1", 3, 4096, FAST_ULP, 1, 2.1, 6.09},
    {"radians", 1, r_radians, NULL, d_radians, "all finite, normal result", 1, 1, FAST_ULP, 1e4,
     0.64, 0.64},
    {"degrees", 1, r_degrees, NULL, d_degrees, "|x| <= 5.9e36 (finite result)", 1, 1, FAST_ULP, 1e4,
     0.71, 0.71},
    {"div", 2, NULL, r_div, NULL, "x, y normal, x/y normal", 1, 2.5, FAST_ULP, 0, 0.56, 1.89},
    {"ldexp", 2, NULL, r_ldexp, NULL, "x finite, n integer, x*2^n finite", 1, 1, FAST_ULP, 0, 0.8,
     0.8},
    {"min", 2, NULL, fmin, NULL, "all finite", 0, 0, FAST_ULP, 0, 0, 0},
    {"max", 2, NULL, fmax, NULL, "all finite", 0, 0, FAST_ULP, 0, 0, 0},
    {"step", 2, NULL, r_step, NULL, "all finite", 0, 0, FAST_ULP, 0, 0, 0},
    {"atan2", 2, NULL, atan2, NULL, "x, y finite, not both 0", 3, 4096, FAST_ULP, 0, 1.45, 10.9},
    {"pow", 2, NULL, pow, NULL, "x > 0 normal, x^y normal", 4, 4096, FAST_ULP, 0, 1.73, 460},
};

/* An ulp of the float32 binade of the exact value ref: 2^(e - 23) with e = ilogb(|ref|)
 * clamped to -126 (denormal results: 2^-149). Computed from the bits of (float)|ref|,
 * one step down where that rounding reached the next power of two; no libm call, as
 * it runs on every point of a sweep. */
static double ulp_of(double ref)
{
    double a = fabs(ref);
    float af = (float)a;
    uint32_t u = fmag_bits_of(af);
    int e = (int)(u >> 23) - 127;
    if ((u & 0x7FFFFF) == 0 && (double)af > a) e--;
    if (e < -126) e = -126;
    int k = e - 23; /* in [-149, 105] */
    return k >= -126 ? (double)fmag_float_of((uint32_t)(k + 127) << 23)
                     : (double)fmag_float_of(1u << (k + 149));
}

/* Error in ulps of the float32 result nearest the exact value. */
static double ulp_error(float r, double ref, double ulp)
{
    if (isnan(r) || isinf(r)) return INFINITY;
    return fabs((double)r - ref) / ulp;
}

/* The fast-math bound at one point, in ulps of the result: the Vulkan/GLSL minimum
 * precision (absolute bounds converted to ulps there). */
static double fast_bound(const fn_desc *fd, float x, double ulp)
{
    switch (fd->fast_kind) {
    case FAST_EXP:
        return 3 + 2 * fabs((double)x);
    case FAST_LOG:
        if (x >= 0.5f && x <= 2.0f) return 0x1p-21 / ulp > 3 ? 0x1p-21 / ulp : 3;
        return fd->fast_target;
    case FAST_ABS_TRIG:
        return 0x1p-11 / ulp;
    case FAST_ULP:
        break;
    }
    return fd->fast_target;
}

typedef struct job {
    const fn_desc *fd;
    const fmag_vm_program *prog;
    fmag_vm_engine *engine; /* this worker's: one thread, made once per builtin */
    bool exhaustive;
    uint64_t samples;
    unsigned tid, nthreads;
    /* results */
    double worst;
    float wx, wy;
    float wr;
    double wref;
    uint64_t points;
    uint64_t misrounded; /* results other than the correctly rounded float */
    bool fast;
    double pow_limit;
    double worst_ratio; /* error / bound, the pass criterion */
    float rx, ry;
} job;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define CHUNK 65536

static void run_chunk(job *j, float *in, float *out, size_t n)
{
    char err[128];
    if (n == 0) return;
    if (!fmag_vm_engine_run(j->engine, &j->prog, 1, NULL, in, j->fd->nargs, out, 1, n, err,
                            sizeof err)) {
        /* cannot happen for a program that built and lowered; count it as a miss */
        j->worst = j->worst_ratio = INFINITY;
        return;
    }
    unsigned na = j->fd->nargs;
    for (size_t i = 0; i < n; i++) {
        double ref = na == 1 ? j->fd->ref1((double)in[i])
                             : j->fd->ref2((double)in[2 * i], (double)in[2 * i + 1]);
        double ulp = ulp_of(ref);
        double e = ulp_error(out[i], ref, ulp);
        j->points++;
        if (out[i] != (float)ref && !(isnan(out[i]) && isnan(ref))) j->misrounded++;
        double bound = j->fast ? fast_bound(j->fd, in[i * na], ulp) : j->fd->target;
        double ratio = bound > 0 ? e / bound : (e > 0 ? INFINITY : 0);
        if (ratio > j->worst_ratio || (isnan(ratio) && !isnan(j->worst_ratio))) {
            j->worst_ratio = ratio;
            j->rx = in[i * na];
            j->ry = na == 2 ? in[2 * i + 1] : 0;
        }
        if (e > j->worst || (isnan(e) && !isnan(j->worst))) {
            j->worst = e;
            j->wx = in[i * na];
            j->wy = na == 2 ? in[2 * i + 1] : 0;
            j->wr = out[i];
            j->wref = ref;
        }
    }
}

/* Two-input samples: a random pair in the function's domain. pow_limit bounds
 * |y log2 x| (the exponent of the result), 127 covers every normal result. */
static bool sample2(const char *name, uint64_t *s, float *x, float *y, double pow_limit)
{
    uint64_t r = splitmix(s);
    if (!strcmp(name, "pow")) {
        *x = fmag_float_of((uint32_t)(r % 0x7F000000u) + 0x00800000u);
        double l = log2((double)*x);
        double u = (double)(int64_t)(splitmix(s) >> 11) / 9007199254740992.0 * 2 - 1;
        double lim = fabs(l) > 1e-3 ? pow_limit / fabs(l) : 1e5;
        *y = (float)(u * (lim > 1e5 ? 1e5 : lim));
        double ref = pow(*x, *y);
        return isfinite(ref) && ref >= 0x1p-126 && ref <= 3.4028234663852886e38 &&
               fabs((double)*y * l) <= pow_limit;
    }
    *x = fmag_float_of((uint32_t)r);
    *y = fmag_float_of((uint32_t)(r >> 32));
    if (!isfinite(*x) || !isfinite(*y)) return false;
    if (!strcmp(name, "ldexp")) {
        *y = (float)((int)(splitmix(s) % 601) - 300);
        double q = ldexp((double)*x, (int)*y);
        return q <= 3.4028234663852886e38 && q >= -3.4028234663852886e38;
    }
    if (!strcmp(name, "div")) {
        double q = fabs((double)*x / (double)*y);
        return fabs(*x) >= 0x1p-126 && fabs(*y) >= 0x1p-126 && q >= 0x1p-126 &&
               q <= 3.4028234663852886e38;
    }
    return *x != 0 || *y != 0;
}

static void *worker(void *arg)
{
    job *j = arg;
    float *in = malloc(2 * CHUNK * sizeof *in), *out = malloc(CHUNK * sizeof *out);
    if (!in || !out) {
        free(in);
        free(out);
        return NULL;
    }
    if (j->exhaustive && j->fd->nargs == 1) {
        /* every bit pattern; chunks of 2^16 patterns dealt round-robin */
        for (uint64_t c = j->tid; c < (1ull << 16); c += j->nthreads) {
            size_t n = 0;
            for (uint32_t k = 0; k < CHUNK; k++) {
                float x = fmag_float_of((uint32_t)(c << 16 | k));
                if (j->fd->in_domain(x)) in[n++] = x;
            }
            run_chunk(j, in, out, n);
        }
    } else {
        uint64_t seed = 0x5EED0000ull + j->tid;
        uint64_t per = j->samples / j->nthreads;
        uint64_t done = 0;
        while (done < per) {
            size_t n = 0;
            while (n < CHUNK && done + n < per) {
                if (j->fd->nargs == 1) {
                    uint64_t r = splitmix(&seed);
                    float x = fmag_float_of((uint32_t)r);
                    /* half the samples uniform in value over the builtin's span */
                    double span = j->fd->span > 0 ? j->fd->span : trig_range;
                    if ((r >> 40) & 1)
                        x = (float)(((double)(r >> 11 & 0xFFFFFFF) / 268435456.0 * 2 - 1) *
                                    (span < 3e38 ? span : 3e38));
                    if (j->fd->in_domain(x)) in[n++] = x;
                } else {
                    float x, y;
                    if (sample2(j->fd->name, &seed, &x, &y, j->pow_limit)) {
                        in[2 * n] = x;
                        in[2 * n + 1] = y;
                        n++;
                    }
                }
            }
            run_chunk(j, in, out, n);
            done += n;
        }
    }
    free(in);
    free(out);
    return NULL;
}

/* Edge cases every run includes: zeros, denormals, powers of two, extremes, values
 * near multiples of pi/2 and the reduction boundaries. */
static void edge_cases(job *j)
{
    float xs[4096];
    size_t n = 0;
    float base[] = {0.0f,
                    -0.0f,
                    0x1p-149f,
                    0x1p-127f,
                    0x1.fffffcp-127f,
                    0x1p-126f,
                    3.40282347e38f,
                    1.0f,
                    -1.0f,
                    0.5f,
                    2.0f,
                    0x1.fffffep-1f,
                    0x1.000002p0f,
                    1.41421354f,
                    0.70710677f,
                    88.72f,
                    -87.33f,
                    127.99f,
                    -126.0f,
                    1e4f,
                    -1e4f,
                    0.785398163f,
                    1.57079633f,
                    3.14159265f,
                    4194304.5f,
                    8388607.5f,
                    8388608.0f,
                    -8388609.0f,
                    0.49999997f,
                    -0.5f,
                    1.5f,
                    2.5f};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        xs[n++] = base[i];
    for (int e = -149; e <= 127 && n < 4000; e += 1) {
        xs[n++] = ldexpf(1.0f, e);
        xs[n++] = -ldexpf(1.0f, e);
    }
    for (int k = 1; k < 6366 && n < 4090; k += 7)
        xs[n++] = (float)(k * 1.5707963267948966);
    float in[4096], out[4096];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (j->fd->nargs == 1) {
            if (j->fd->in_domain(xs[i])) in[m++] = xs[i];
        }
    }
    run_chunk(j, in, out, m);
    if (j->fd->nargs == 2) {
        static const float pairs[][2] = {{1, 3},   {-1, 3},     {0, 1},      {1, 1},
                                         {-1, -1}, {1, -1},     {3, 7},      {2, 0.5f},
                                         {10, 38}, {0.5f, 126}, {1e-3f, 10}, {2, 127.99f}};
        m = 0;
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
            float x = pairs[i][0], y = pairs[i][1];
            if (!strcmp(j->fd->name, "pow") && !(x > 0)) continue;
            if (!strcmp(j->fd->name, "ldexp") && y != floorf(y)) continue;
            in[2 * m] = x;
            in[2 * m + 1] = y;
            m++;
        }
        run_chunk(j, in, out, m);
    }
}

fmag_context *acc_build_ir(const char *name, bool fast, fmag_func **fn, char *msg, size_t msglen)
{
    /* "pow@C": pow(x, C) with the literal exponent C (the strength reduction) */
    bool powc = !strncmp(name, "pow@", 4);
    const fmag_math_builtin *mb = fmag_math_builtin_lookup(powc ? "pow" : name);
    if (!mb) {
        snprintf(msg, msglen, "no builtin '%s'", name);
        return NULL;
    }
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_module_create(ctx);
    m->fastmath = fast;
    fmag_func *f = fmag_func_create(m, powc ? "powc" : name, powc ? 1 : mb->nargs, 1, true);
    fmag_builder b;
    b.module = m;
    fmag_builder_at_end(&b, fmag_block_create(f, "entry"));
    fmag_value *p = f->params;
    fmag_value *r =
        powc ? fmag_build_pow(&b, &p[0], fmag_module_const(m, strtof(name + 4, NULL)), fast)
        : mb->nargs == 1 ? mb->fn1(&b, &p[0], fast)
        : mb->nargs == 2 ? mb->fn2(&b, &p[0], &p[1], fast)
                         : mb->fn3(&b, &p[0], &p[1], &p[2], fast);
    fmag_build_ret(&b, &r, 1);
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    if (!fmag_run_passes(m, "O2", &po)) {
        snprintf(msg, msglen, "%s", fmag_context_diag_count(ctx) ? fmag_context_diag(ctx, 0) : "?");
        fmag_context_destroy(ctx);
        return NULL;
    }
    *fn = f;
    return ctx;
}

bool acc_build(const char *name, bool fast, fmag_vm_image *img, char *msg, size_t msglen)
{
    fmag_func *f;
    fmag_context *ctx = acc_build_ir(name, fast, &f, msg, msglen);
    if (!ctx) return false;
    bool ok = fmag_codegen_module(f->module, img);
    if (!ok)
        snprintf(msg, msglen, "%s", fmag_context_diag_count(ctx) ? fmag_context_diag(ctx, 0) : "?");
    fmag_context_destroy(ctx);
    return ok;
}

static const char *fast_target_text(const fn_desc *fd, bool fast, char *p)
{
    if (!fast) {
        snprintf(p, 64, "%g ulp", fd->target);
        return p;
    }
    switch (fd->fast_kind) {
    case FAST_EXP:
        snprintf(p, 64, "3 + 2\\|x\\| ulp");
        break;
    case FAST_LOG:
        snprintf(p, 64, "3 ulp; 2^-21 absolute in [0.5, 2]");
        break;
    case FAST_ABS_TRIG:
        snprintf(p, 64, "2^-11 absolute");
        break;
    case FAST_ULP:
        snprintf(p, 64, "%g ulp", fd->fast_target);
        break;
    }
    return p;
}

/* The domain as docs/Builtins.md writes it: '|' escaped, <= and >= as the signs. */
static const char *domain_text(const fn_desc *fd, char *p, size_t len)
{
    char tmp[96];
    const char *d = fd->domain;
    if (fd->in_domain == d_trig) {
        double l = log10(trig_range);
        if (l == floor(l))
            snprintf(tmp, sizeof tmp, "|x| <= 10^%d", (int)l);
        else
            snprintf(tmp, sizeof tmp, "|x| <= %g", trig_range);
        d = tmp;
    }
    size_t n = 0;
    for (; *d && n + 4 < len; d++) {
        if (*d == '|') {
            p[n++] = '\\';
            p[n++] = '|';
        } else if ((d[0] == '<' || d[0] == '>') && d[1] == '=') {
            memcpy(p + n, d[0] == '<' ? "\u2264" : "\u2265", 3);
            n += 3;
            d++;
        } else {
            p[n++] = *d;
        }
    }
    p[n] = 0;
    return p;
}

/* --mix-ends N: mix(x, y, 0) == x and mix(x, y, 1) == y exactly (+-0 equal, as
 * SPEC section 2 counts them) for N pairs of finite x, y: random bit patterns,
 * half of them then moved near each other (the cancelling case). */
static int mix_ends(uint64_t n, bool fast)
{
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    char msg[256];
    if (!acc_build("mix", fast, &img, msg, sizeof msg)) {
        fprintf(stderr, "fmag-accuracy: mix: cannot build: %s\n", msg);
        return 1;
    }
    const fmag_vm_program *prog = &img.programs[0];
    float *in = malloc(3 * CHUNK * sizeof *in), *out = malloc(CHUNK * sizeof *out);
    uint64_t seed = 0x313A, bad = 0, done = 0;
    int rc = in && out ? 0 : 1;
    while (!rc && done < n) {
        size_t m = 0;
        while (m < CHUNK && done + m / 2 < n) {
            uint64_t r = splitmix(&seed);
            float x = fmag_float_of((uint32_t)r), y = fmag_float_of((uint32_t)(r >> 32));
            if (!isfinite(x) || !isfinite(y)) continue;
            if (r & 1) y = x * (1 + (float)((r >> 8) & 0xFFFF) * 0x1p-20f);
            if (!isfinite(y)) continue;
            for (int t = 0; t < 2; t++, m++) {
                in[3 * m] = x;
                in[3 * m + 1] = y;
                in[3 * m + 2] = (float)t;
            }
        }
        if (!fmag_vm_run_per_lane_threads(&prog, 1, NULL, in, 3, out, 1, m, 2, msg, sizeof msg)) {
            fprintf(stderr, "fmag-accuracy: mix: %s\n", msg);
            rc = 1;
            break;
        }
        for (size_t i = 0; i < m; i++) {
            float want = in[3 * i + 2] == 0 ? in[3 * i] : in[3 * i + 1];
            if (out[i] != want && bad++ < 10)
                printf("mix(%a, %a, %g) = %a, want %a\n", (double)in[3 * i], (double)in[3 * i + 1],
                       (double)in[3 * i + 2], (double)out[i], (double)want);
        }
        done += m / 2;
    }
    printf("mix ends %s: %llu pairs, t = 0 and t = 1: %llu inexact %s\n", fast ? "fast" : "strict",
           (unsigned long long)done, (unsigned long long)bad, bad ? "MISSED" : "ok");
    free(in);
    free(out);
    fmag_vm_image_free(&img);
    return rc || bad ? 1 : 0;
}

/* The builtins of lib/Math's table that have no row above, and why: their results
 * are exact by construction or defined by GLSL as a formula of other operations
 * (docs/Builtins.md, "Coverage"). Every builtin has a special-value row as well
 * (special.c). A builtin in neither list fails the run: a new builtin needs a row. */
static const struct {
    const char *name, *why;
} no_row[] = {
    {"isnan", "comparisons only: exact (special-value rows, unittests/Math)"},
    {"isinf", "comparisons only: exact (special-value rows, unittests/Math)"},
    {"fma", "the instruction itself: exact (special-value rows)"},
    {"clamp", "max then min, selects: exact (special-value rows)"},
    {"select", "selects: exact (special-value rows)"},
    {"mod", "GLSL's float formula x - y*floor(x/y) (special-value rows)"},
    {"mix", "exact at t = 0 and 1 (--mix-ends); GLSL's inherited precision elsewhere"},
    {"smoothstep", "GLSL's formula t*t*(3 - 2t), inherited precision (special-value rows)"},
};

/* 0 when every builtin of lib/Math's table has a row here or in no_row. */
static int check_coverage(void)
{
    int rc = 0;
    for (size_t i = 0; i < fmag_math_builtin_count(); i++) {
        const char *name = fmag_math_builtin_get(i)->name;
        bool found = false;
        for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)
            found |= !strcmp(fns[k].name, name);
        for (size_t k = 0; k < sizeof no_row / sizeof no_row[0]; k++)
            found |= !strcmp(no_row[k].name, name);
        if (!found) {
            fprintf(stderr, "fmag-accuracy: error: builtin '%s' has no accuracy row\n", name);
            rc = 1;
        }
    }
    return rc;
}

/* The instruction count of the fast-math sequence (the default-mode table shows both). */
static unsigned fast_instrs(const char *name)
{
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    char msg[256];
    unsigned n = acc_build(name, true, &img, msg, sizeof msg) ? img.programs[0].ninstr : 0;
    fmag_vm_image_free(&img);
    return n;
}

static const fmag_tool acc_tool = {
    "fmag-accuracy",
    "usage: fmag-accuracy [options] [builtin...]\n"
    "\n"
    "Measures the math library's builtins against libm in double precision:\n"
    "each builtin is built through lib/Math, run with -O2 and lowering on the\n"
    "batch VM engine, and its worst error reported in ulps. A builtin\n"
    "named pow@C is pow with the literal exponent C (the strength\n"
    "reduction), swept over x > 0 with 2^-120 <= x^C <= 2^120.\n"
    "\n"
    "options:\n",
    NULL, NULL};

/* The builtins named on the command line (all when none). */
typedef struct only_list {
    const char *name[64];
    unsigned n;
} only_list;

static bool take_builtin(const fmag_tool *tool, void *user, const char *arg)
{
    (void)tool;
    only_list *o = user;
    if (o->n < 64) o->name[o->n++] = arg;
    return true;
}

int main(int argc, char **argv)
{
    bool exhaustive = false, fast = false, markdown = false, special = false;
    uint64_t samples = 10000000, mix_n = 0;
    double pow_limit = 127;
    unsigned nthreads = 0;
    unsigned long long samples_n = samples, mix_ends_n = 0, threads_n = 0;
    only_list only_args = {{NULL}, 0};
    const fmag_option table[] = {
        {"--exhaustive", 0, FMAG_OPT_FLAG, &exhaustive, NULL, NULL,
         "every float32 of the domain (one-input builtins)"},
        {"--samples", FMAG_OPT_NEXT, FMAG_OPT_UINT, &samples_n, NULL, "N",
         "random samples otherwise (default 10000000), plus edge cases"},
        {"--fast", 0, FMAG_OPT_FLAG, &fast, NULL, NULL, "the fast-math sequences"},
        {"--threads", FMAG_OPT_NEXT, FMAG_OPT_UINT, &threads_n, NULL, "N",
         "worker threads (default: all CPUs)"},
        {"--pow-limit", FMAG_OPT_NEXT, FMAG_OPT_DOUBLE, &pow_limit, NULL, "L",
         "pow samples only where |y log2 x| <= L (default 127)"},
        {"--trig-range", FMAG_OPT_NEXT, FMAG_OPT_DOUBLE, &trig_range, NULL, "R",
         "sin/cos/tan over |x| <= R (default 1e5)"},
        {"--mix-ends", FMAG_OPT_NEXT, FMAG_OPT_UINT, &mix_ends_n, NULL, "N",
         "check mix(x,y,0) == x and mix(x,y,1) == y on N pairs"},
        {"--markdown", 0, FMAG_OPT_FLAG, &markdown, NULL, NULL, "print a table row per builtin"},
        {"--special", 0, FMAG_OPT_FLAG, &special, NULL, NULL,
         "the special-value table: every builtin on zeros,\n"
         "infinities, NaN and its domain's ends, against C"},
    };
    const fmag_opt_parser parser = {&acc_tool,    table, sizeof table / sizeof *table,
                                    take_builtin, NULL,  &only_args};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    samples = samples_n;
    mix_n = mix_ends_n;
    nthreads = threads_n > 64 ? 64 : (unsigned)threads_n;
    const char *const *only = only_args.name;
    unsigned nonly = only_args.n;
    if (special) return acc_special(fast, markdown, only, nonly);
    for (unsigned i = 0; i < nonly; i++) {
        bool known = false;
        for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)
            known |= !strcmp(only[i], fns[k].name);
        char *end = NULL;
        if (!strncmp(only[i], "pow@", 4)) {
            double c = strtod(only[i] + 4, &end);
            known = end != only[i] + 4 && !*end && isfinite(c);
        }
        if (!known) {
            fprintf(stderr, "fmag-accuracy: error: no builtin '%s' to measure\n", only[i]);
            return 1;
        }
    }
    if (mix_n) return mix_ends(mix_n, fast);
    if (nonly == 0 && check_coverage()) return 1;
    if (nthreads == 0) nthreads = fmag_vm_hardware_threads();
    if (nthreads > 64) nthreads = 64;
    /* --markdown: the rows of docs/Builtins.md's tables (default mode: both instruction
     * counts; fast-math: the point-wise bound) */
    if (markdown && !fast)
        printf("| builtin | instrs | fast | domain | method | worst ulp | at x | target | met |\n"
               "|---|---:|---:|---|---|---:|---|---:|---|\n");
    else if (markdown)
        printf("| builtin | instrs | domain | method | worst ulp | bound | met |\n"
               "|---|---:|---|---|---:|---|---|\n");
    int rc = 0;
    size_t nfns = sizeof fns / sizeof fns[0];
    for (size_t k = 0; k < nfns + nonly; k++) {
        /* after the table: the "pow@C" names given (pow with a literal exponent,
         * x > 0 with a normal result; held to 1.5 ulp, the general pow's worst) */
        fn_desc powd = {NULL, 1,    r_powc,   NULL, d_powc, "x > 0, 2^-120 <= x^C <= 2^120",
                        1.5,  4096, FAST_ULP, 0,    -1,     -1};
        const fn_desc *fd = &fns[k < nfns ? k : 0];
        if (k >= nfns) {
            if (strncmp(only[k - nfns], "pow@", 4)) continue;
            powd.name = only[k - nfns];
            pow_c = strtod(powd.name + 4, NULL);
            fd = &powd;
        }
        bool want = nonly == 0 || k >= nfns;
        for (unsigned i = 0; i < nonly && k < nfns; i++)
            want |= !strcmp(only[i], fd->name);
        if (!want) continue;
        fmag_vm_image img;
        fmag_vm_image_init(&img);
        char msg[512];
        if (!acc_build(fd->name, fast, &img, msg, sizeof msg)) {
            fprintf(stderr, "fmag-accuracy: %s: cannot build: %s\n", fd->name, msg);
            rc = 1;
            continue;
        }
        job jobs[64];
        pthread_t tids[64];
        bool exh = exhaustive && fd->nargs == 1;
        fmag_vm_engine_options eo = {1, FMAG_VM_ISA_AUTO, 0};
        unsigned nengines = 0;
        for (; nengines < nthreads; nengines++) {
            jobs[nengines].engine = fmag_vm_engine_create(&eo, msg, sizeof msg);
            if (!jobs[nengines].engine) break;
        }
        if (nengines < nthreads) {
            fprintf(stderr, "fmag-accuracy: %s: cannot start the VM engine: %s\n", fd->name, msg);
            for (unsigned t = 0; t < nengines; t++)
                fmag_vm_engine_destroy(jobs[t].engine);
            fmag_vm_image_free(&img);
            return 1;
        }
        for (unsigned t = 0; t < nthreads; t++) {
            fmag_vm_engine *engine = jobs[t].engine;
            memset(&jobs[t], 0, sizeof jobs[t]);
            jobs[t].engine = engine;
            jobs[t].fd = fd;
            jobs[t].prog = &img.programs[0];
            jobs[t].exhaustive = exh;
            jobs[t].samples = samples;
            jobs[t].tid = t;
            jobs[t].nthreads = nthreads;
            jobs[t].fast = fast;
            jobs[t].pow_limit = pow_limit;
            pthread_create(&tids[t], NULL, worker, &jobs[t]);
        }
        for (unsigned t = 0; t < nthreads; t++)
            pthread_join(tids[t], NULL);
        edge_cases(&jobs[0]);
        for (unsigned t = 0; t < nthreads; t++)
            fmag_vm_engine_destroy(jobs[t].engine);
        job tot = jobs[0];
        for (unsigned t = 1; t < nthreads; t++) {
            tot.points += jobs[t].points;
            tot.misrounded += jobs[t].misrounded;
            if (jobs[t].worst_ratio > tot.worst_ratio) {
                tot.worst_ratio = jobs[t].worst_ratio;
                tot.rx = jobs[t].rx;
                tot.ry = jobs[t].ry;
            }
            if (jobs[t].worst > tot.worst) {
                tot.worst = jobs[t].worst;
                tot.wx = jobs[t].wx;
                tot.wy = jobs[t].wy;
                tot.wr = jobs[t].wr;
                tot.wref = jobs[t].wref;
            }
        }
        char tbuf[64];
        bool ok = tot.worst_ratio <= 1.0;
        /* the pins hold for the default domains only (--trig-range 1e5, --pow-limit 127) */
        double pin = fast ? fd->fast_pin : fd->pin;
        bool pinned = pin >= 0 && (fd->in_domain != d_trig || trig_range == 1e5) &&
                      (strcmp(fd->name, "pow") || pow_limit == 127);
        bool regressed = pinned && !(tot.worst <= pin);
        if (!ok || regressed) rc = 1;
        char pin_note[64] = "";
        if (regressed) snprintf(pin_note, sizeof pin_note, " REGRESSED (pinned %g)", pin);
        char at[96];
        if (fd->nargs == 1)
            snprintf(at, sizeof at, "%a", (double)tot.wx);
        else
            snprintf(at, sizeof at, "%a, %a", (double)tot.wx, (double)tot.wy);
        const char *method = exh ? "exhaustive" : "sampled+edges";
        if (markdown) {
            char dom[160], meth[64];
            /* a count as docs/Builtins.md writes it: 2.13e9 */
            int e10 = tot.points ? (int)floor(log10((double)tot.points)) : 0;
            double m10 = (double)tot.points / pow(10, e10);
            if (exh)
                snprintf(meth, sizeof meth, "exhaustive (%.3ge%d points)", m10, e10);
            else
                snprintf(meth, sizeof meth, "%.3ge%d samples", m10, e10);
            if (fast)
                printf("| %s | %u | %s | %s | %.2f | %s | %s |\n", fd->name, img.programs[0].ninstr,
                       domain_text(fd, dom, sizeof dom), meth, tot.worst,
                       fast_target_text(fd, fast, tbuf), ok ? "yes" : "**no**");
            else
                printf("| %s | %u | %u | %s | %s | %.2f | %s | %g | %s |\n", fd->name,
                       img.programs[0].ninstr, fast_instrs(fd->name),
                       domain_text(fd, dom, sizeof dom), meth, tot.worst, at, fd->target,
                       ok ? "yes" : "**no**");
        }
        {
            /* with --markdown the detail goes to stderr: the sweeps keep it as a log */
            fprintf(markdown ? stderr : stdout,
                    "%-12s %s instrs=%-3u %-14s points=%-11llu worst=%.3f ulp at x=%s "
                    "(got %.9g, want %.17g) target %s %s (worst error/bound %.3g at %a) "
                    "misrounded=%llu%s\n",
                    fd->name, fast ? "fast" : "strict", img.programs[0].ninstr, method,
                    (unsigned long long)tot.points, tot.worst, at, (double)tot.wr, tot.wref,
                    fast_target_text(fd, fast, tbuf), ok ? "ok" : "MISSED", tot.worst_ratio,
                    (double)tot.rx, (unsigned long long)tot.misrounded, pin_note);
        }
        fflush(stdout);
        fmag_vm_image_free(&img);
    }
    return rc;
}
