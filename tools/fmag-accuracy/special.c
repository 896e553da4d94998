/* fmag-accuracy --special: every builtin of the math table on its special inputs
 * (signed zeros, denormals, the largest finite value, infinities, NaN, the ends
 * and the outside of its domain), run like the accuracy sweeps (-O2, lowered, batch
 * VM engine) and compared with the C library in double precision rounded to float.
 * A row agrees when the bits match (any NaN matches any NaN), or, for a finite
 * non-special result, when it is within the builtin's ulp bound. A difference is
 * accepted only where the table below says why (GLSL leaves the case undefined and
 * docs/Builtins.md records the choice); any other difference fails the run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "fmag/Bits.h"
#include "fmag/Math.h"
#include "accuracy.h"

#define INF ((float)INFINITY)
#define QNAN ((float)NAN)
#define MAXF 3.40282347e38f
#define DEN 0x1p-149f

typedef struct special_fn {
    const char *name;
    unsigned nargs;
    double (*r1)(double);
    double (*r2)(double, double);
    double (*r3)(double, double, double);
    double ulps;             /* bound for finite, non-special results */
    const float *extra;      /* one-input builtins: inputs beyond the common set */
    const float (*cases)[3]; /* several inputs: the rows */
    unsigned ncases;
} special_fn;

/* GLSL semantics where C has no function of the name */
static double g_sign(double x)
{
    return x > 0 ? 1 : x < 0 ? -1 : x;
}
static double g_fract(double x)
{
    return x - floor(x);
}
static double g_saturate(double x)
{
    return fmin(fmax(x, 0), 1);
}
static double g_rsqrt(double x)
{
    return 1 / sqrt(x);
}
static double g_rcp(double x)
{
    return 1 / x;
}
static double g_radians(double x)
{
    return x * (3.14159265358979323846 / 180);
}
static double g_degrees(double x)
{
    return x * (180 / 3.14159265358979323846);
}
static double g_isnan(double x)
{
    return isnan(x) ? 1 : 0;
}
static double g_isinf(double x)
{
    return isinf(x) ? 1 : 0;
}
static double g_mod(double x, double y)
{
    return x - y * floor(x / y);
}
static double g_step(double e, double x)
{
    return x < e ? 0 : 1;
}
static double g_div(double x, double y)
{
    return x / y;
}
static double g_ldexp(double x, double n)
{
    return ldexp(x, (int)n);
}
static double g_clamp(double x, double lo, double hi)
{
    return fmin(fmax(x, lo), hi);
}
static double g_mix(double x, double y, double t)
{
    return x * (1 - t) + y * t;
}
static double g_smoothstep(double e0, double e1, double x)
{
    double t = g_clamp((x - e0) / (e1 - e0), 0, 1);
    return t * t * (3 - 2 * t);
}
static double g_select(double c, double a, double b)
{
    return c != 0 ? a : b;
}

static const float common1[] = {-INF, -MAXF, -2.0f, -1.0f, -0.5f, -DEN, -0.0f, 0.0f,
                                DEN,  0.5f,  1.0f,  2.0f,  MAXF,  INF,  QNAN};
#define END 12345.678f /* ends an extra list */
static const float x_none[] = {END};
static const float x_exp[] = {88.0f, 88.72f, 89.0f, 100.0f, -87.0f, -100.0f, -104.0f, -150.0f, END};
static const float x_exp2[] = {127.0f,  127.99f, 128.0f,  200.0f, -126.0f,
                               -149.0f, -150.0f, -200.0f, END};
static const float x_trig[] = {3.14159274f, 1e4f,   1e5f,  1e6f,  4194304.5f, 8388608.0f,
                               1e10f,       -1e10f, 1e20f, 1e30f, END};
static const float x_asin[] = {0x1.000002p0f, -0x1.000002p0f, 0x1.fffffep-1f, END};
static const float x_hyp[] = {9.0f, 10.0f, 20.0f, 88.0f, 89.0f, 89.4f, 89.5f, 100.0f, END};
static const float x_acosh[] = {0x1.000002p0f, 0x1p24f, 1e30f, END};
static const float x_atanh[] = {0x1.fffffep-1f, -0x1.fffffep-1f, END};

static const float c_pow[][3] = {
    {0, 2},      {0, 0.5f},    {0, 0.01f},  {0, 1},    {0, -1},      {0, -0.5f},  {-0.0f, 3},
    {-0.0f, -1}, {0, 0},       {2, 0},      {-2, 0},   {QNAN, 0},    {MAXF, 0},   {1, 5},
    {1, -7},     {1, 1e30f},   {1, 0.3f},   {-2, 2},   {-2, 0.5f},   {-8, 3},     {-1, 1},
    {INF, 2},    {INF, -2},    {INF, 0.5f}, {2, 200},  {2, -200},    {0.5f, 300}, {2, 128},
    {2, -149},   {2, -150},    {QNAN, 1},   {2, QNAN}, {MAXF, 0.5f}, {DEN, 0.5f}, {4, 0.5f},
    {4, -0.5f},  {8, 1.0f / 3}};
static const float c_atan2[][3] = {{0, 1},    {0, -1},    {-0.0f, 1}, {-0.0f, -1}, {1, 0},
                                   {-1, 0},   {1, -0.0f}, {INF, 1},   {-INF, 1},   {1, INF},
                                   {1, -INF}, {QNAN, 1},  {1, QNAN},  {DEN, 1},    {1, DEN}};
static const float c_div[][3] = {{1, 0},       {-1, 0},  {1, -0.0f}, {1, INF},  {INF, 2},
                                 {MAXF, 0.5f}, {1, DEN}, {DEN, 2},   {QNAN, 1}, {6, 3}};
static const float c_mod[][3] = {{5, 3},   {-5, 3},  {5, -3},   {5.5f, 1}, {-0.25f, 1},
                                 {1, INF}, {INF, 1}, {QNAN, 1}, {1e10f, 3}};
static const float c_minmax[][3] = {{1, 2},    {-0.0f, 0.0f}, {0.0f, -0.0f}, {INF, -INF},
                                    {1, QNAN}, {QNAN, 1},     {-MAXF, DEN}};
static const float c_step[][3] = {{0, 0},    {0, -0.0f}, {1, 0.5f},    {0.5f, 1},
                                  {1, QNAN}, {QNAN, 1},  {-INF, -MAXF}};
static const float c_ldexp[][3] = {
    {1, 127},     {1, 128}, {1, -126}, {1, -149}, {1, -150},  {3, -150}, {DEN, 277}, {MAXF, -276},
    {MAXF, -277}, {3, 300}, {3, -300}, {0, 5},    {-0.0f, 5}, {INF, -3}, {QNAN, 1},  {0.75f, -148}};
static const float c_clamp[][3] = {{2, 0, 1},    {-1, 0, 1},   {0.5f, 0, 1}, {QNAN, 0, 1},
                                   {-INF, 0, 1}, {INF, -1, 1}, {-0.0f, 0, 1}};
static const float c_mix[][3] = {{0.7f, 0.2f, 1}, {1e8f, 1, 1}, {0.7f, 0.2f, 0},  {1, 1e8f, 0},
                                 {-3, 5, 0.5f},   {2, 2, 0.3f}, {MAXF, -MAXF, 1}, {MAXF, -MAXF, 0},
                                 {1, 3, 2},       {1, 3, -1}};
static const float c_smooth[][3] = {{0, 1, 0.5f}, {0, 1, -INF}, {0, 1, INF},  {0, 1, QNAN},
                                    {0, 1, 0},    {0, 1, 1},    {1, 0, 0.25f}};
static const float c_select[][3] = {{1, 2, 3},  {0, 2, 3},    {-0.0f, 2, 3},
                                    {-1, 2, 3}, {QNAN, 2, 3}, {DEN, 2, 3}};
static const float c_fma[][3] = {{1, 2, 3},   {MAXF, 2, -MAXF}, {0x1.000002p0f, 0x1.000002p0f, -1},
                                 {INF, 0, 1}, {QNAN, 1, 1},     {-0.0f, 1, 0}};

#define ROWS(a) a, (unsigned)(sizeof a / sizeof a[0])
#define S1(n, f, u, x)                                                                             \
    {                                                                                              \
        n, 1, f, NULL, NULL, u, x, NULL, 0                                                         \
    }
#define S2(n, f, u, c)                                                                             \
    {                                                                                              \
        n, 2, NULL, f, NULL, u, NULL, ROWS(c)                                                      \
    }
#define S3(n, f, u, c)                                                                             \
    {                                                                                              \
        n, 3, NULL, NULL, f, u, NULL, ROWS(c)                                                      \
    }

static const special_fn specials[] = {
    S1("abs", fabs, 0, x_none),          S1("sign", g_sign, 0, x_none),
    S1("floor", floor, 0, x_none),       S1("ceil", ceil, 0, x_none),
    S1("round", nearbyint, 0, x_none),   S1("trunc", trunc, 0, x_none),
    S1("fract", g_fract, 0.5, x_none),   S1("saturate", g_saturate, 0, x_none),
    S1("sqrt", sqrt, 1, x_none),         S1("inversesqrt", g_rsqrt, 2, x_none),
    S1("rcp", g_rcp, 1, x_none),         S1("exp", exp, 2, x_exp),
    S1("exp2", exp2, 2, x_exp2),         S1("log", log, 2, x_none),
    S1("log2", log2, 2, x_none),         S1("sin", sin, 2, x_trig),
    S1("cos", cos, 2, x_trig),           S1("tan", tan, 4, x_trig),
    S1("atan", atan, 2, x_none),         S1("asin", asin, 2, x_asin),
    S1("acos", acos, 2, x_asin),         S1("sinh", sinh, 2, x_hyp),
    S1("cosh", cosh, 2, x_hyp),          S1("tanh", tanh, 2, x_hyp),
    S1("asinh", asinh, 3, x_acosh),      S1("acosh", acosh, 3, x_acosh),
    S1("atanh", atanh, 3, x_atanh),      S1("radians", g_radians, 1, x_none),
    S1("degrees", g_degrees, 1, x_none), S1("isnan", g_isnan, 0, x_none),
    S1("isinf", g_isinf, 0, x_none),     S2("pow", pow, 4, c_pow),
    S2("atan2", atan2, 3, c_atan2),      S2("div", g_div, 1, c_div),
    S2("mod", g_mod, 1, c_mod),          S2("min", fmin, 0, c_minmax),
    S2("max", fmax, 0, c_minmax),        S2("step", g_step, 0, c_step),
    S2("ldexp", g_ldexp, 1, c_ldexp),    S3("clamp", g_clamp, 0, c_clamp),
    S3("mix", g_mix, 2, c_mix),          S3("smoothstep", g_smoothstep, 2, c_smooth),
    S3("select", g_select, 0, c_select), S3("fma", fma, 0, c_fma),
};

/* The documented differences from C. GLSL leaves each of these undefined (or, for
 * mod, defines the float evaluation FMAG performs), and docs/Builtins.md records
 * the value FMAG returns. A row matches when its builtin and arguments do (NaN
 * matches NaN); `beyond` > 0 instead matches every row of the builtin whose first
 * argument exceeds it in magnitude. */
typedef struct known_diff {
    const char *name;
    float a[3];
    float beyond;
    const char *why;
} known_diff;

#define NEG_DOMAIN "GLSL: undefined for x < 0"
static const known_diff known[] = {
    {"sqrt", {-INF}, 0, NEG_DOMAIN},
    {"sqrt", {-MAXF}, 0, NEG_DOMAIN},
    {"sqrt", {-2}, 0, NEG_DOMAIN},
    {"sqrt", {-1}, 0, NEG_DOMAIN},
    {"sqrt", {-0.5f}, 0, NEG_DOMAIN},
    {"sqrt", {-DEN}, 0, NEG_DOMAIN},
    {"inversesqrt", {-INF}, 0, "GLSL: undefined for x <= 0"},
    {"inversesqrt", {-MAXF}, 0, "GLSL: undefined for x <= 0"},
    {"inversesqrt", {-2}, 0, "GLSL: undefined for x <= 0"},
    {"inversesqrt", {-1}, 0, "GLSL: undefined for x <= 0"},
    {"inversesqrt", {-0.5f}, 0, "GLSL: undefined for x <= 0"},
    {"inversesqrt", {-DEN}, 0, "GLSL: undefined for x <= 0"},
    {"inversesqrt", {-0.0f}, 0, "GLSL: undefined for x <= 0"},
    {"inversesqrt", {0.0f}, 0, "GLSL: undefined for x <= 0"},
    {"sin", {0}, 1e6f, "bounded beyond |x| = 1e6, not accurate"},
    {"cos", {0}, 1e6f, "bounded beyond |x| = 1e6, not accurate"},
    {"tan", {0}, 1e6f, "finite beyond |x| = 1e6, not accurate"},
    {"log", {-MAXF}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"log", {-2}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"log", {-1}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"log", {-0.5f}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"log", {-DEN}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"log2", {-MAXF}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"log2", {-2}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"log2", {-1}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"log2", {-0.5f}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"log2", {-DEN}, 0, NEG_DOMAIN ", -inf by choice (cheaper)"},
    {"acosh", {-2}, 0, "GLSL: undefined for x < 1"},
    {"acosh", {-1}, 0, "GLSL: undefined for x < 1"},
    {"acosh", {-0.5f}, 0, "GLSL: undefined for x < 1"},
    {"acosh", {-DEN}, 0, "GLSL: undefined for x < 1"},
    {"acosh", {-0.0f}, 0, "GLSL: undefined for x < 1"},
    {"acosh", {0.0f}, 0, "GLSL: undefined for x < 1"},
    {"atanh", {-2}, 0, "GLSL: undefined for |x| >= 1"},
    {"atanh", {-1}, 0, "GLSL: undefined for |x| >= 1"},
    {"atanh", {1}, 0, "GLSL: undefined for |x| >= 1"},
    {"atanh", {2}, 0, "GLSL: undefined for |x| >= 1"},
    {"pow", {-2, 2}, 0, "GLSL: undefined for x < 0; NaN by choice"},
    {"pow", {-8, 3}, 0, "GLSL: undefined for x < 0; NaN by choice"},
    {"pow", {-1, 1}, 0, "GLSL: undefined for x < 0; NaN by choice"},
    {"pow", {-0.0f, -1}, 0, "GLSL: undefined for x = 0, y <= 0; -0 counts as +0"},
    {"atan2", {-0.0f, -1}, 0, "the sign of a zero y is not seen: +pi"},
    {"mod", {1e10f, 3}, 0, "GLSL's x - y*floor(x/y) in float (x/y rounds)"},
    {"min", {QNAN, 1}, 0, "GLSL: undefined for NaN"},
    {"max", {QNAN, 1}, 0, "GLSL: undefined for NaN"},
    {"clamp", {QNAN, 0, 1}, 0, "GLSL: undefined for NaN"},
    {"select", {QNAN, 2, 3}, 0, "a NaN condition is false (no guard holds)"},
    {"rcp", {-0.0f}, 0, "GLSL: undefined for 0; the sign of the zero is not seen"},
    {"div", {1, -0.0f}, 0, "GLSL: undefined for 0; the sign of the zero is not seen"},
};
/* A row with an infinite or NaN argument lies outside the strict contract (SPEC
 * section 2); where it differs from C the table shows FMAG's value with this note. */
#define NOT_FINITE "input not finite: outside the strict contract"

static bool same_input(const float *a, const float *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (!(isnan(a[i]) && isnan(b[i])) && fmag_bits_of(a[i]) != fmag_bits_of(b[i])) return false;
    return true;
}

static const char *known_why(const char *name, const float *in, unsigned n)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(known[i].name, name)) continue;
        if (known[i].beyond > 0 ? fabsf(in[0]) > known[i].beyond : same_input(known[i].a, in, n))
            return known[i].why;
    }
    return NULL;
}

static bool special_value(float f)
{
    return f == 0 || isinf(f) || isnan(f) || fabsf(f) == MAXF || fabsf(f) < 0x1p-126f;
}

/* Agreement of one result with the C value: "exact", "ulp" (finite, within the
 * bound) or NULL. */
static const char *agree(float got, double want, double ulps)
{
    float w = (float)want;
    if (isnan(got) && isnan(w)) return "exact";
    if (fmag_bits_of(got) == fmag_bits_of(w)) return "exact";
    if (got == 0 && w == 0) return "+-0"; /* SPEC section 2 counts +0 and -0 equal */
    if (!isfinite(got) || !isfinite(w) || special_value(w)) return NULL;
    double a = fabs(want);
    int e = a > 0 ? ilogb(a) : -126;
    double ulp = ldexp(1.0, (e < -126 ? -126 : e) - 23);
    return fabs((double)got - want) <= ulps * ulp ? "ulp" : NULL;
}

static void fmt(char *buf, size_t len, float f)
{
    if (isnan(f))
        snprintf(buf, len, "NaN");
    else if (isinf(f))
        snprintf(buf, len, "%sinf", f < 0 ? "-" : "+");
    else if (f == 0)
        snprintf(buf, len, "%s0", signbit(f) ? "-" : "+");
    else if (fabsf(f) == MAXF)
        snprintf(buf, len, "%sMAX", f < 0 ? "-" : "");
    else if (fabsf(f) == DEN)
        snprintf(buf, len, "%s2^-149", f < 0 ? "-" : "");
    else
        snprintf(buf, len, "%.9g", (double)f);
}

/* One builtin's rows on the IR interpreter (the -O2 IR: FMAG's semantics) and on
 * the lowered program (batch VM engine). */
static int special_rows(const special_fn *sf, bool fast, bool markdown)
{
    float in[64 * 3], out[64], vm[64];
    size_t n = 0;
    if (sf->nargs == 1) {
        for (size_t i = 0; i < sizeof common1 / sizeof common1[0]; i++)
            in[n++] = common1[i];
        for (size_t i = 0; sf->extra[i] != END; i++)
            in[n++] = sf->extra[i];
    } else {
        for (unsigned i = 0; i < sf->ncases; i++, n++)
            for (unsigned a = 0; a < sf->nargs; a++)
                in[n * sf->nargs + a] = sf->cases[i][a];
    }
    char msg[256];
    fmag_func *f;
    fmag_context *ctx = acc_build_ir(sf->name, fast, &f, msg, sizeof msg);
    if (!ctx) {
        fprintf(stderr, "fmag-accuracy: %s: cannot build: %s\n", sf->name, msg);
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        if (!fmag_interp_func(f, &in[i * sf->nargs], &out[i])) rc = 1;
    fmag_context_destroy(ctx);
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    if (!acc_build(sf->name, fast, &img, msg, sizeof msg)) {
        fprintf(stderr, "fmag-accuracy: %s: cannot lower: %s\n", sf->name, msg);
        return 1;
    }
    const fmag_vm_program *prog = &img.programs[0];
    if (!fmag_vm_run_per_lane_threads(&prog, 1, NULL, in, sf->nargs, vm, 1, n, 1, msg,
                                      sizeof msg)) {
        fprintf(stderr, "fmag-accuracy: %s: %s\n", sf->name, msg);
        rc = 1;
    }
    fmag_vm_image_free(&img);
    unsigned bad = 0, diff = 0, lowered = 0;
    for (size_t i = 0; i < n; i++) {
        const float *a = &in[i * sf->nargs];
        double want = sf->nargs == 1   ? sf->r1(a[0])
                      : sf->nargs == 2 ? sf->r2(a[0], a[1])
                                       : sf->r3(a[0], a[1], a[2]);
        bool finite_in = true;
        for (unsigned j = 0; j < sf->nargs; j++)
            finite_in &= isfinite(a[j]) != 0;
        /* fast-math: the sweeps check the real bounds; here only the special values */
        const char *ok = agree(out[i], want, fast ? 4096 : sf->ulps);
        const char *why = ok ? NULL : known_why(sf->name, a, sf->nargs);
        if (!ok && !why && !finite_in) why = NOT_FINITE;
        /* The lowered program must agree with the IR wherever the strict contract
         * holds (finite inputs); with an infinite or NaN input CodeGen may read the
         * input as a finite zero source (docs/CodeGen.md), and the row says so. */
        bool same = fmag_bits_of(vm[i]) == fmag_bits_of(out[i]) ||
                    (isnan(vm[i]) && isnan(out[i])) || (vm[i] == 0 && out[i] == 0);
        if (!ok && !why) bad++;
        if (!ok && why) diff++;
        if (!same && finite_in) bad++;
        if (!same && !finite_in) lowered++;
        char args[96] = "", b0[32], b1[32], b2[32];
        for (unsigned j = 0; j < sf->nargs; j++) {
            fmt(b0, sizeof b0, a[j]);
            size_t l = strlen(args);
            snprintf(args + l, sizeof args - l, "%s%s", j ? ", " : "", b0);
        }
        fmt(b0, sizeof b0, out[i]);
        fmt(b1, sizeof b1, (float)want);
        fmt(b2, sizeof b2, vm[i]);
        char note[160] = "";
        if (!ok) snprintf(note, sizeof note, "%s", why ? why : "**differs from C**");
        if (!same) {
            size_t l = strlen(note);
            snprintf(note + l, sizeof note - l, "%slowered: %s%s", l ? "; " : "", b2,
                     finite_in ? " **differs from the IR**" : " (input not finite)");
        }
        if (markdown)
            printf("| %s | %s | %s | %s | %s |\n", sf->name, args, b0, b1, note);
        else if (!ok || !same)
            printf("%-12s (%s) = %s, C: %s  %s\n", sf->name, args, b0, b1, note);
    }
    if (!markdown)
        printf("%-12s %s %zu rows: %zu as C, %u documented differences, %u lowered "
               "differently (input not finite), %u %s\n",
               sf->name, fast ? "fast" : "strict", n, n - bad - diff, diff, lowered, bad,
               bad ? "UNEXPLAINED" : "unexplained");
    return rc || bad ? 1 : 0;
}

int acc_special(bool fast, bool markdown, const char *const *only, unsigned nonly)
{
    for (unsigned i = 0; i < nonly; i++) {
        bool listed = false;
        for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++)
            listed |= !strcmp(only[i], specials[k].name);
        if (!listed) {
            fprintf(stderr, "fmag-accuracy: error: no special-value rows for '%s'\n", only[i]);
            return 1;
        }
    }
    int rc = 0;
    /* every builtin of lib/Math's table has rows here */
    for (size_t i = 0; i < fmag_math_builtin_count() && nonly == 0; i++) {
        const char *name = fmag_math_builtin_get(i)->name;
        bool listed = false;
        for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++)
            listed |= !strcmp(name, specials[k].name);
        if (!listed) {
            fprintf(stderr, "fmag-accuracy: error: builtin '%s' has no special-value rows\n", name);
            rc = 1;
        }
    }
    if (markdown)
        printf("| builtin | arguments | FMAG | C (double, to float) | note |\n"
               "|---|---|---|---|---|\n");
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        bool selected = nonly == 0;
        for (unsigned i = 0; i < nonly; i++)
            selected |= !strcmp(only[i], specials[k].name);
        if (selected && special_rows(&specials[k], fast, markdown)) rc = 1;
    }
    return rc;
}
