/* fmag-remez: derives the minimax polynomial coefficients of the math library
 * (lib/Math) by the Remez exchange algorithm in long double, then reports the error
 * of the float-rounded coefficients. Every table in lib/Math names the command that
 * produced it; docs/Builtins.md explains the method.
 *
 *   fmag-remez TARGET DEGREE [A B]     e.g.  fmag-remez exp2 6
 */
#include "Options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long double ld;

/* A target: approximate g(t) by p(t) = sum c_i t^i on [a, b], minimizing the
 * weighted error max |w(t) (g(t) - p(t))|; w turns it into the relative error of
 * the final function. */
typedef struct target {
    const char *name, *desc;
    double a, b;
    ld (*g)(ld t);
    ld (*w)(ld t);
} target;

static ld g_rcp(ld t)
{
    return 1 / t;
}
static ld w_rcp(ld t)
{
    return t;
}
static ld g_rsqrt(ld t)
{
    return 1 / sqrtl(t);
}
static ld w_rsqrt(ld t)
{
    return sqrtl(t);
}
static ld g_exp2(ld t)
{
    return exp2l(t);
}
static ld w_exp2(ld t)
{
    return 1 / exp2l(t);
}
static ld g_exp(ld t)
{
    return expl(t);
}
static ld w_exp(ld t)
{
    return 1 / expl(t);
}
/* log(1+f) = f - f^2/2 + f^3 q(f): fit q, weight f^3 / log(1+f). */
static ld g_logq(ld t)
{
    if (fabsl(t) < 1e-4L) return 1.0L / 3 - t / 4 + t * t / 5 - t * t * t / 6;
    return (log1pl(t) - t + t * t / 2) / (t * t * t);
}
static ld w_logq(ld t)
{
    if (fabsl(t) < 1e-12L) return t * t;
    return t * t * t / log1pl(t);
}
/* log(1+f) = f - f^2/2 + f^3/3 - f^4/4 + f^5 r(f) (pow's logarithm, whose first
 * four terms are evaluated as exact double-floats): fit r, weight f^5 / log(1+f). */
static ld g_logr(ld t)
{
    if (fabsl(t) < 1e-3L) return 1.0L / 5 - t / 6 + t * t / 7 - t * t * t / 8;
    return (log1pl(t) - t + t * t / 2 - t * t * t / 3 + t * t * t * t / 4) / (t * t * t * t * t);
}
static ld w_logr(ld t)
{
    if (fabsl(t) < 1e-12L) return t * t * t * t;
    return t * t * t * t * t / log1pl(t);
}
/* sin r = r + r^3 P(z), z = r^2: weight z r / sin r. */
static ld g_sinp(ld z)
{
    if (z < 1e-6L) return -1.0L / 6 + z / 120 - z * z / 5040;
    ld r = sqrtl(z);
    return (sinl(r) - r) / (z * r);
}
static ld w_sinp(ld z)
{
    if (z < 1e-12L) return z;
    ld r = sqrtl(z);
    return z * r / sinl(r);
}
/* cos r = 1 - z/2 + z^2 Q(z): weight z^2 / cos r. */
static ld g_cosq(ld z)
{
    if (z < 1e-6L) return 1.0L / 24 - z / 720 + z * z / 40320;
    return (cosl(sqrtl(z)) - 1 + z / 2) / (z * z);
}
static ld w_cosq(ld z)
{
    return z * z / cosl(sqrtl(z));
}
/* atan x = x + x^3 P(z), z = x^2: weight z x / atan x. */
static ld g_atanp(ld z)
{
    if (z < 1e-6L) return -1.0L / 3 + z / 5 - z * z / 7;
    ld r = sqrtl(z);
    return (atanl(r) - r) / (z * r);
}
static ld w_atanp(ld z)
{
    if (z < 1e-12L) return z;
    ld r = sqrtl(z);
    return z * r / atanl(r);
}

/* asin s = s + s^3 P(z), z = s^2 (and the same form for sinh and tanh): weight
 * z s / f(s). */
static ld g_asinp(ld z)
{
    if (z < 1e-6L) return 1.0L / 6 + 3 * z / 40 + 15 * z * z / 336;
    ld r = sqrtl(z);
    return (asinl(r) - r) / (z * r);
}
static ld w_asinp(ld z)
{
    if (z < 1e-12L) return z;
    ld r = sqrtl(z);
    return z * r / asinl(r);
}
static ld g_sinhp(ld z)
{
    if (z < 1e-6L) return 1.0L / 6 + z / 120 + z * z / 5040;
    ld r = sqrtl(z);
    return (sinhl(r) - r) / (z * r);
}
static ld w_sinhp(ld z)
{
    if (z < 1e-12L) return z;
    ld r = sqrtl(z);
    return z * r / sinhl(r);
}
static ld g_tanhp(ld z)
{
    if (z < 1e-6L) return -1.0L / 3 + 2 * z / 15 - 17 * z * z / 315;
    ld r = sqrtl(z);
    return (tanhl(r) - r) / (z * r);
}
static ld w_tanhp(ld z)
{
    if (z < 1e-12L) return z;
    ld r = sqrtl(z);
    return z * r / tanhl(r);
}
static const target targets[] = {
    {"rcp", "1/t on [1,2] (seed)", 1, 2, g_rcp, w_rcp},
    {"rsqrt", "1/sqrt(t) on [1,4] (seed)", 1, 4, g_rsqrt, w_rsqrt},
    {"exp2", "2^t on [-0.5,0.5]", -0.5, 0.5, g_exp2, w_exp2},
    {"exp", "e^t on [-ln2/2,ln2/2]", -0.34657359027997264, 0.34657359027997264, g_exp, w_exp},
    {"logq", "q(f), log(1+f) = f - f^2/2 + f^3 q(f), f in [sqrt(.5)-1, sqrt(2)-1]",
     -0.29289321881345248, 0.41421356237309503, g_logq, w_logq},
    {"logr", "r(f), log(1+f) = f - f^2/2 + f^3/3 - f^4/4 + f^5 r(f), same interval",
     -0.29289321881345248, 0.41421356237309503, g_logr, w_logr},
    {"sin", "P(z), sin r = r + r^3 P(r^2), r in [-pi/4,pi/4] (+2%)", 1e-6, 0.6416, g_sinp, w_sinp},
    {"cos", "Q(z), cos r = 1 - z/2 + z^2 Q(z), r in [-pi/4,pi/4] (+2%)", 1e-6, 0.6416, g_cosq,
     w_cosq},
    {"atan", "P(z), atan x = x + x^3 P(x^2), x in [0,1]", 1e-6, 1, g_atanp, w_atanp},
    {"atan_r", "P(z), atan x = x + x^3 P(x^2), x in [0,tan(pi/12)]", 1e-6, 0.0717967697244908,
     g_atanp, w_atanp},
    {"asin", "P(z), asin s = s + s^3 P(s^2), s in [0,1/2]", 1e-6, 0.25, g_asinp, w_asinp},
    {"sinh", "P(z), sinh x = x + x^3 P(x^2), x in [0,1]", 1e-6, 1, g_sinhp, w_sinhp},
    {"tanh", "P(z), tanh x = x + x^3 P(x^2), x in [0,0.55]", 1e-6, 0.3025, g_tanhp, w_tanhp},
};

static ld peval(const ld *c, int n, ld t)
{
    ld r = c[n];
    for (int i = n - 1; i >= 0; i--)
        r = r * t + c[i];
    return r;
}

/* Gaussian elimination with partial pivoting; m is n x (n+1). */
static int solve(ld *m, int n, ld *x)
{
    for (int col = 0; col < n; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
            if (fabsl(m[r * (n + 1) + col]) > fabsl(m[piv * (n + 1) + col])) piv = r;
        if (m[piv * (n + 1) + col] == 0) return 0;
        for (int k = 0; k <= n; k++) {
            ld t = m[col * (n + 1) + k];
            m[col * (n + 1) + k] = m[piv * (n + 1) + k];
            m[piv * (n + 1) + k] = t;
        }
        for (int r = 0; r < n; r++) {
            if (r == col) continue;
            ld f = m[r * (n + 1) + col] / m[col * (n + 1) + col];
            for (int k = col; k <= n; k++)
                m[r * (n + 1) + k] -= f * m[col * (n + 1) + k];
        }
    }
    for (int i = 0; i < n; i++)
        x[i] = m[i * (n + 1) + n] / m[i * (n + 1) + i];
    return 1;
}

#define GRID 40000

static void list_targets(FILE *out)
{
    fprintf(out, "\ntargets:\n");
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        fprintf(out, "  %-8s %s\n", targets[i].name, targets[i].desc);
}

static const fmag_tool remez_tool = {
    "fmag-remez",
    "usage: fmag-remez TARGET DEGREE [A B]\n"
    "\n"
    "Prints the float coefficients of the minimax polynomial of DEGREE (0 to 16) for\n"
    "TARGET on [A, B] (default: the target's interval), found by the Remez exchange.\n"
    "\n",
    NULL, list_targets};

/* TARGET DEGREE [A B]. */
typedef struct remez_args {
    const char *pos[4];
    int npos;
} remez_args;

static bool take_pos(const fmag_tool *tool, void *user, const char *arg)
{
    remez_args *r = user;
    if (r->npos == 4) {
        fmag_tool_error(tool, "unexpected argument '%s' (see --help)", arg);
        return false;
    }
    r->pos[r->npos++] = arg;
    return true;
}

/* A and B may be negative: "-1" is a number, not an option. */
static int take_number(const fmag_tool *tool, void *user, const char *arg)
{
    char *end;
    (void)strtold(arg, &end);
    if (*end || end == arg) return 0;
    return take_pos(tool, user, arg) ? 1 : -1;
}

int main(int argc, char **argv)
{
    remez_args args = {{NULL}, 0};
    const fmag_opt_parser parser = {&remez_tool, NULL, 0, take_pos, take_number, &args};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    if (args.npos != 2 && args.npos != 4)
        return fmag_tool_error(&remez_tool, "wants TARGET DEGREE [A B] (see --help)");
    const target *tg = NULL;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (!strcmp(targets[i].name, args.pos[0])) tg = &targets[i];
    char *end;
    long degree = strtol(args.pos[1], &end, 10);
    if (!tg) return fmag_tool_error(&remez_tool, "unknown target '%s' (see --help)", args.pos[0]);
    if (*end || end == args.pos[1] || degree < 0 || degree > 16)
        return !fmag_opt_invalid_value(&remez_tool, "DEGREE", args.pos[1], "0 to 16");
    int n = (int)degree;
    ld a = tg->a, b = tg->b;
    if (args.npos == 4) {
        char *ea, *eb;
        a = strtold(args.pos[2], &ea);
        b = strtold(args.pos[3], &eb);
        if (*ea || ea == args.pos[2] || *eb || eb == args.pos[3] || !isfinite(a) || !isfinite(b) ||
            !(a < b))
            return fmag_tool_error(&remez_tool, "A B want finite numbers with A < B, not '%s' '%s'",
                                   args.pos[2], args.pos[3]);
    }
    int np = n + 2;
    ld ref[20], c[20], m[20 * 21], sol[21];
    for (int j = 0; j < np; j++)
        ref[j] = (a + b) / 2 - (b - a) / 2 * cosl(3.14159265358979323846L * j / (np - 1));
    ld E = 0;
    static ld grid[GRID + 1], err[GRID + 1];
    for (int it = 0; it < 60; it++) {
        for (int j = 0; j < np; j++) {
            ld t = ref[j], p = 1;
            for (int i = 0; i <= n; i++, p *= t)
                m[j * (np + 1) + i] = p;
            m[j * (np + 1) + n + 1] = ((j & 1) ? -1 : 1) / tg->w(t);
            m[j * (np + 1) + np] = tg->g(t);
        }
        if (!solve(m, np, sol)) {
            return fmag_tool_error(&remez_tool, "singular system");
        }
        memcpy(c, sol, (size_t)(n + 1) * sizeof *c);
        E = sol[n + 1];
        for (int k = 0; k <= GRID; k++) {
            grid[k] = a + (b - a) * k / GRID;
            err[k] = tg->w(grid[k]) * (tg->g(grid[k]) - peval(c, n, grid[k]));
        }
        /* One extremum per run of equal sign, then trim the weakest ends. */
        ld ext[GRID / 2];
        ld exv[GRID / 2];
        int ne = 0;
        int k = 0;
        while (k <= GRID) {
            int best = k;
            int sgn = err[k] >= 0;
            while (k <= GRID && (err[k] >= 0) == sgn) {
                if (fabsl(err[k]) > fabsl(err[best])) best = k;
                k++;
            }
            ext[ne] = grid[best];
            exv[ne++] = err[best];
        }
        while (ne > np) {
            if (fabsl(exv[0]) < fabsl(exv[ne - 1])) {
                memmove(ext, ext + 1, (size_t)(ne - 1) * sizeof *ext);
                memmove(exv, exv + 1, (size_t)(ne - 1) * sizeof *exv);
            }
            ne--;
        }
        if (ne < np) break;
        memcpy(ref, ext, (size_t)np * sizeof *ref);
    }
    ld maxe = 0, maxf = 0;
    float cf[20];
    for (int i = 0; i <= n; i++)
        cf[i] = (float)c[i];
    for (int k = 0; k <= GRID; k++) {
        ld t = a + (b - a) * k / GRID;
        ld e1 = fabsl(tg->w(t) * (tg->g(t) - peval(c, n, t)));
        ld pf = cf[n];
        for (int i = n - 1; i >= 0; i--)
            pf = pf * t + cf[i];
        ld e2 = fabsl(tg->w(t) * (tg->g(t) - pf));
        if (e1 > maxe) maxe = e1;
        if (e2 > maxf) maxf = e2;
    }
    char span[96] = "";
    if (args.npos == 4) snprintf(span, sizeof span, " (here on [%.9Lg, %.9Lg])", a, b);
    printf("/* fmag-remez %s %d: %s%s; levelled error %.3Le (%.1f bits), with float "
           "coefficients %.3Le */\n",
           tg->name, n, tg->desc, span, fabsl(E), (double)-log2l(maxe), maxf);
    for (int i = 0; i <= n; i++) {
        printf("    %.9gf, /* %a */\n", (double)cf[i], (double)cf[i]);
    }
    return 0;
}
