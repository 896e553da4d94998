/* fmag-accuracy: measures each math-library builtin against double-precision libm.
 * Every builtin is built through the C API (lib/Math), optimized with -O2, lowered,
 * and run on the batch VM engine; the error of each result is measured in ulps of
 * the correctly rounded float32 result. One-input builtins can be checked
 * exhaustively over every float32 of their domain; two-input ones are sampled.
 * `fmag-accuracy --markdown` prints the table of docs/Builtins.md. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/Math.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "accuracy.h"
#include "Options.h"

typedef struct fn_desc {
    const char *name;
    unsigned nargs;
    double (*ref1)(double);
    double (*ref2)(double, double);
    const char *domain;
    double target;      /* ulp bound, default mode */
    double fast_target; /* ulp bound in fast-math (Vulkan minimum where it is in ulp) */
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

static const fn_desc fns[] = {
    {"abs", 1, fabs, NULL, "all finite", 0, 0},
    {"sign", 1, r_sign, NULL, "all finite", 0, 0},
    {"floor", 1, floor, NULL, "all finite", 0, 0},
    {"ceil", 1, ceil, NULL, "all finite", 0, 0},
    {"round", 1, nearbyint, NULL, "all finite", 0, 0},
    {"trunc", 1, trunc, NULL, "all finite", 0, 0},
    {"fract", 1, r_fract, NULL, "all finite", 0.5, 0.5},
    {"saturate", 1, r_saturate, NULL, "all finite", 0, 0},
    {"rcp", 1, r_rcp, NULL, "2^-126 <= |x| <= 2^126", 1, 2.5},
    {"sqrt", 1, sqrt, NULL, "x >= 0 finite (denormals too)", 1, 2.5},
    {"inversesqrt", 1, r_rsqrt, NULL, "x >= 2^-126", 2, 2},
    {"exp", 1, exp, NULL, "-87.33 <= x <= 88.72 (normal result)", 2, 3},
    {"exp2", 1, exp2, NULL, "-126 <= x < 128 (normal result)", 2, 3},
    {"log", 1, log, NULL, "x >= 2^-126", 2, 3},
    {"log2", 1, log2, NULL, "x >= 2^-126", 2, 3},
    {"sin", 1, sin, NULL, "|x| <= 1e5", 2, 0},
    {"cos", 1, cos, NULL, "|x| <= 1e5", 2, 0},
    {"tan", 1, tan, NULL, "|x| <= 1e5", 4, 4096},
    {"atan", 1, atan, NULL, "all finite", 2, 4096},
    {"asin", 1, asin, NULL, "|x| <= 1", 2, 4096},
    {"acos", 1, acos, NULL, "|x| <= 1", 2, 4096},
    {"sinh", 1, sinh, NULL, "|x| <= 89.41 (finite result)", 2, 4096},
    {"cosh", 1, cosh, NULL, "|x| <= 89.41 (finite result)", 2, 4096},
    {"tanh", 1, tanh, NULL, "all finite", 2, 4096},
    {"asinh", 1, asinh, NULL, "all finite", 3, 4096},
    {"acosh", 1, acosh, NULL, "x >= 1 finite", 3, 4096},
    {"atanh", 1, atanh, NULL, "|x| < 1", 3, 4096},
    {"radians", 1, r_radians, NULL, "all finite, normal result", 1, 1},
    {"degrees", 1, r_degrees, NULL, "|x| <= 5.9e36 (finite result)", 1, 1},
    {"div", 2, NULL, r_div, "x, y normal, x/y normal", 1, 2.5},
    {"ldexp", 2, NULL, r_ldexp, "x finite, n integer, x*2^n finite", 1, 1},
    {"atan2", 2, NULL, atan2, "x, y finite, not both 0", 3, 4096},
    {"pow", 2, NULL, pow, "x > 0 normal, x^y normal", 4, 4096},
};

static float bits_f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* --trig-range R: the |x| bound of the sin/cos/tan sweeps (default 1e5). */
static double trig_range = 1e5;

static double pow_c; /* the exponent of the "pow@C" sweep */
static double r_powc(double x)
{
    return pow(x, pow_c);
}

static bool in_domain(const char *name, float x)
{
    double a = fabs((double)x);
    if (!isfinite(x)) return false;
    if (!strncmp(name, "pow@", 4)) {
        double r = fabs(pow(x, pow_c));
        return x > 0 && r >= 0x1p-120 && r <= 0x1p120;
    }
    if (!strcmp(name, "rcp")) return a >= 0x1p-126 && a <= 0x1p126;
    if (!strcmp(name, "sqrt")) return x >= 0;
    if (!strcmp(name, "inversesqrt") || !strcmp(name, "log") || !strcmp(name, "log2"))
        return x >= 0x1p-126;
    if (!strcmp(name, "exp")) return x >= -87.33f && x <= 88.72f;
    if (!strcmp(name, "exp2")) return x >= -126.0f && x < 128.0f;
    if (!strcmp(name, "sin") || !strcmp(name, "cos") || !strcmp(name, "tan"))
        return a <= trig_range;
    if (!strcmp(name, "asin") || !strcmp(name, "acos")) return a <= 1;
    if (!strcmp(name, "sinh") || !strcmp(name, "cosh")) return a <= 89.41f;
    if (!strcmp(name, "acosh")) return x >= 1;
    if (!strcmp(name, "atanh")) return a < 1;
    if (!strcmp(name, "radians")) return a >= 0x1p-120;
    if (!strcmp(name, "degrees")) return a <= 5.9e36;
    return true;
}

/* Error in ulps of the float32 result nearest the exact value. */
static double ulp_error(float r, double ref)
{
    if (isnan(r) || isinf(r)) return INFINITY;
    double a = fabs(ref);
    int e = a > 0 ? ilogb(a) : -126;
    if (e < -126) e = -126;
    double ulp = ldexp(1.0, e - 23);
    return fabs((double)r - ref) / ulp;
}

/* The fast-math bound at one point, in ulps of the result: the Vulkan/GLSL minimum
 * precision (absolute bounds converted to ulps there). */
static double fast_bound(const fn_desc *fd, float x, double ref)
{
    double a = fabs(ref);
    int e = a > 0 ? ilogb(a) : -126;
    double ulp = ldexp(1.0, (e < -126 ? -126 : e) - 23);
    if (!strcmp(fd->name, "exp") || !strcmp(fd->name, "exp2")) return 3 + 2 * fabs((double)x);
    if ((!strcmp(fd->name, "log") || !strcmp(fd->name, "log2")) && x >= 0.5f && x <= 2.0f)
        return 0x1p-21 / ulp > 3 ? 0x1p-21 / ulp : 3;
    if (!strcmp(fd->name, "sin") || !strcmp(fd->name, "cos")) return 0x1p-11 / ulp;
    return fd->fast_target;
}

typedef struct job {
    const fn_desc *fd;
    const fmag_vm_program *prog;
    bool exhaustive;
    uint64_t samples;
    unsigned tid, nthreads;
    /* results */
    double worst;
    float wx, wy;
    float wr;
    double wref;
    uint64_t points;
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
    fmag_vm_run_per_lane_threads(&j->prog, 1, NULL, in, j->fd->nargs, out, 1, n, 1, err,
                                 sizeof err);
    for (size_t i = 0; i < n; i++) {
        double ref = j->fd->nargs == 1 ? j->fd->ref1((double)in[i])
                                       : j->fd->ref2((double)in[2 * i], (double)in[2 * i + 1]);
        double e = ulp_error(out[i], ref);
        j->points++;
        double bound = j->fast ? fast_bound(j->fd, in[i * j->fd->nargs], ref) : j->fd->target;
        double ratio = bound > 0 ? e / bound : (e > 0 ? INFINITY : 0);
        if (ratio > j->worst_ratio || (isnan(ratio) && !isnan(j->worst_ratio))) {
            j->worst_ratio = ratio;
            j->rx = in[i * j->fd->nargs];
            j->ry = j->fd->nargs == 2 ? in[2 * i + 1] : 0;
        }
        if (e > j->worst || (isnan(e) && !isnan(j->worst))) {
            j->worst = e;
            j->wx = in[i * j->fd->nargs];
            j->wy = j->fd->nargs == 2 ? in[2 * i + 1] : 0;
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
        *x = bits_f((uint32_t)(r % 0x7F000000u) + 0x00800000u);
        double l = log2((double)*x);
        double u = (double)(int64_t)(splitmix(s) >> 11) / 9007199254740992.0 * 2 - 1;
        double lim = fabs(l) > 1e-3 ? pow_limit / fabs(l) : 1e5;
        *y = (float)(u * (lim > 1e5 ? 1e5 : lim));
        double ref = pow(*x, *y);
        return isfinite(ref) && ref >= 0x1p-126 && ref <= 3.4028234663852886e38 &&
               fabs((double)*y * l) <= pow_limit;
    }
    *x = bits_f((uint32_t)r);
    *y = bits_f((uint32_t)(r >> 32));
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
                float x = bits_f((uint32_t)(c << 16 | k));
                if (in_domain(j->fd->name, x)) in[n++] = x;
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
                    float x = bits_f((uint32_t)r);
                    /* half the samples uniform in value over the trig range */
                    if ((r >> 40) & 1)
                        x = (float)(((double)(r >> 11 & 0xFFFFFFF) / 268435456.0 * 2 - 1) *
                                    (trig_range < 3e38 ? trig_range : 3e38));
                    if (in_domain(j->fd->name, x)) in[n++] = x;
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
            if (in_domain(j->fd->name, xs[i])) in[m++] = xs[i];
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
    if (!fast)
        snprintf(p, 64, "%g ulp", fd->target);
    else if (!strcmp(fd->name, "exp") || !strcmp(fd->name, "exp2"))
        snprintf(p, 64, "3+2|x| ulp");
    else if (!strcmp(fd->name, "log") || !strcmp(fd->name, "log2"))
        snprintf(p, 64, "3 ulp; 2^-21 abs in [0.5,2]");
    else if (!strcmp(fd->name, "sin") || !strcmp(fd->name, "cos"))
        snprintf(p, 64, "2^-11 abs");
    else
        snprintf(p, 64, "%g ulp", fd->fast_target);
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
            float x = bits_f((uint32_t)r), y = bits_f((uint32_t)(r >> 32));
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
    if (nthreads == 0) nthreads = fmag_vm_hardware_threads();
    if (nthreads > 64) nthreads = 64;
    if (markdown)
        printf("| builtin | instrs | domain | method | points | worst ulp | at x | target | ok |\n"
               "|---|---|---|---|---|---|---|---|---|\n");
    int rc = 0;
    size_t nfns = sizeof fns / sizeof fns[0];
    for (size_t k = 0; k < nfns + nonly; k++) {
        /* after the table: the "pow@C" names given (pow with a literal exponent,
         * x > 0 with a normal result; held to 1.5 ulp, the general pow's worst) */
        fn_desc powd = {NULL, 1, r_powc, NULL, "x > 0, 2^-120 <= x^C <= 2^120", 1.5, 4096};
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
        for (unsigned t = 0; t < nthreads; t++) {
            memset(&jobs[t], 0, sizeof jobs[t]);
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
        job tot = jobs[0];
        for (unsigned t = 1; t < nthreads; t++) {
            tot.points += jobs[t].points;
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
        if (!ok) rc = 1;
        char at[96];
        if (fd->nargs == 1)
            snprintf(at, sizeof at, "%a", (double)tot.wx);
        else
            snprintf(at, sizeof at, "%a, %a", (double)tot.wx, (double)tot.wy);
        const char *method = exh ? "exhaustive" : "sampled+edges";
        if (markdown)
            printf("| %s | %u | %s | %s | %llu | %.2f | %s | %s | %s |\n", fd->name,
                   img.programs[0].ninstr, fd->domain, method, (unsigned long long)tot.points,
                   tot.worst, at, fast_target_text(fd, fast, tbuf), ok ? "yes" : "**no**");
        else
            printf("%-12s %s instrs=%-3u %-14s points=%-11llu worst=%.3f ulp at x=%s "
                   "(got %.9g, want %.17g) target %s %s (worst error/bound %.3g at %a)\n",
                   fd->name, fast ? "fast" : "strict", img.programs[0].ninstr, method,
                   (unsigned long long)tot.points, tot.worst, at, (double)tot.wr, tot.wref,
                   fast_target_text(fd, fast, tbuf), ok ? "ok" : "MISSED", tot.worst_ratio,
                   (double)tot.rx);
        fflush(stdout);
        fmag_vm_image_free(&img);
    }
    return rc;
}
