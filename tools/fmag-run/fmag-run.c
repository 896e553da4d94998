/* fmag-run: runs a .fmag, .fmas or .fir program on inputs from the command line or
 * a file, on a chosen engine. .fmas and .fir go through the compile driver
 * (fmag_compile_ex: assembled as written, or the verified IR for the interpreter);
 * .fmag through lib/VM's reader; the engines are lib/VM's and lib/GPU's. */
#define _POSIX_C_SOURCE 200809L
#include "fmag/Bits.h"
#include "fmag/IR.h"
#include "fmag/Math.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "Options.h"
#ifdef FMAG_HAVE_GPU
#include "fmag/GPU.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static const fmag_tool run_tool;

static int fail(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fmag_tool_error(&run_tool, "%s", msg);
}

typedef enum backend { BK_REF, BK_BATCH, BK_VULKAN, BK_CUDA } backend;
static const char *const backend_names[] = {"ref", "batch", "vulkan", "cuda"};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* A growable float matrix of elements (rows) with `width` values each, plus the
 * program index of each row in per-lane mode. */
typedef struct rows {
    float *v;
    uint32_t *prog;
    size_t n, cap, width;
} rows;

static bool rows_push(rows *r, const float *vals, size_t nvals, uint32_t prog)
{
    if (r->n == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 64;
        float *nv = realloc(r->v, ncap * (r->width ? r->width : 1) * sizeof(float));
        if (!nv) return false;
        r->v = nv;
        uint32_t *np = realloc(r->prog, ncap * sizeof(uint32_t));
        if (!np) return false;
        r->prog = np;
        r->cap = ncap;
    }
    for (size_t k = 0; k < r->width; k++)
        r->v[r->n * (r->width ? r->width : 1) + k] = k < nvals ? vals[k] : 0.0f;
    r->prog[r->n++] = prog;
    return true;
}

/* The programs a run can choose from. */
typedef struct target {
    const fmag_vm_image *img; /* .fmag / .fmas: the records (&own, or the driver's image) */
    fmag_vm_image own;        /* .fmag: read here */
    fmag_context *ctx;        /* .fmas / .fir */
    fmag_compile_result r;    /* .fmas / .fir: what the driver made */
    fmag_func *fn;            /* .fir: the function to interpret */
    size_t prog;              /* .fmag / .fmas: the selected program */
    bool is_fir;
} target;

static unsigned target_nin(const target *t, size_t prog)
{
    return t->is_fir ? t->fn->nparams : t->img->programs[prog].nin;
}
/* Inputs that carry derivatives (their x then y derivatives end the input list). */
static unsigned target_nderiv(const target *t, size_t prog)
{
    return t->is_fir ? t->fn->nderiv : t->img->programs[prog].nderiv;
}
static unsigned target_nout(const target *t, size_t prog)
{
    return t->is_fir ? t->fn->nresults : t->img->programs[prog].nout;
}

/* One value: anything strtof reads (decimal, hex float, inf, nan), whole field.
 * As for literals in .fir, .fmas and SL, a finite number that overflows f32 or a
 * non-zero one that rounds to zero is an error (say `inf` or `0` if meant). */
typedef enum { VALUE_OK, VALUE_NOT_A_NUMBER, VALUE_TOO_LARGE, VALUE_TOO_SMALL } value_status;

static value_status parse_value(const char *s, size_t len, float *out)
{
    char buf[128];
    if (len == 0 || len >= sizeof buf) return VALUE_NOT_A_NUMBER;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    float f = strtof(buf, &end);
    if (end != buf + len) return VALUE_NOT_A_NUMBER;
    if (errno == ERANGE && isinf(f)) return VALUE_TOO_LARGE;
    if (errno == ERANGE && f == 0.0f) return VALUE_TOO_SMALL;
    *out = f;
    return VALUE_OK;
}

/* The message for a value that parse_value refused. */
static void value_error(char *err, size_t errlen, const char *where, const char *s, size_t len,
                        value_status st)
{
    int n = (int)(len > 60 ? 60 : len);
    if (st == VALUE_TOO_LARGE)
        snprintf(err, errlen,
                 "%s: '%.*s' is out of float range (too large for f32; write inf if meant)", where,
                 n, s);
    else if (st == VALUE_TOO_SMALL)
        snprintf(err, errlen,
                 "%s: '%.*s' is out of float range (too small for f32: it rounds to zero; "
                 "write 0 if meant)",
                 where, n, s);
    else
        snprintf(err, errlen, "%s: '%.*s' is not a number", where, n, s);
}

/* The program index field of a per-lane row: a number or a program name. */
static bool parse_prog_ref(const target *t, const char *s, size_t len, uint32_t *out)
{
    size_t k = 0;
    unsigned long v = 0;
    while (k < len && s[k] >= '0' && s[k] <= '9' && v <= UINT32_MAX)
        v = v * 10 + (unsigned long)(s[k++] - '0');
    if (k == len && len > 0) {
        if (v >= t->img->nprograms) return false;
        *out = (uint32_t)v;
        return true;
    }
    for (size_t i = 0; i < t->img->nprograms; i++)
        if (strlen(t->img->programs[i].name) == len && !memcmp(t->img->programs[i].name, s, len)) {
            *out = (uint32_t)i;
            return true;
        }
    return false;
}

static bool parse_fields(const target *t, bool per_lane, const char *s, size_t len, rows *r,
                         const char *where, float *vals, char *err, size_t errlen);

/* Splits one element's text (commas and/or blanks) into values; the first field is
 * a program reference in per-lane mode. `where` names the element in messages. */
static bool parse_element(const target *t, bool per_lane, const char *s, size_t len, rows *r,
                          const char *where, char *err, size_t errlen)
{
    /* Up to 65535 inputs: too many for the stack. */
    float *vals = malloc(65536 * sizeof(float));
    bool ok = vals && parse_fields(t, per_lane, s, len, r, where, vals, err, errlen);
    free(vals);
    if (!vals) snprintf(err, errlen, "out of memory");
    return ok;
}

static bool parse_fields(const target *t, bool per_lane, const char *s, size_t len, rows *r,
                         const char *where, float *vals, char *err, size_t errlen)
{
    const size_t max_vals = 65536;
    size_t nvals = 0;
    uint32_t prog = (uint32_t)t->prog;
    bool have_prog = !per_lane;
    size_t i = 0;
    for (;;) {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            i++;
        if (i >= len) break;
        size_t st = i;
        while (i < len && s[i] != ',' && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            i++;
        size_t flen = i - st;
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            i++;
        bool comma = i < len && s[i] == ',';
        if (comma) i++;
        if (flen == 0) {
            snprintf(err, errlen, "%s: empty value", where);
            return false;
        }
        if (!have_prog) {
            if (!parse_prog_ref(t, s + st, flen, &prog)) {
                snprintf(err, errlen, "%s: '%.*s' is not a program index (0..%zu) or name", where,
                         (int)(flen > 60 ? 60 : flen), s + st, t->img->nprograms - 1);
                return false;
            }
            have_prog = true;
        } else {
            if (nvals == max_vals) {
                snprintf(err, errlen, "%s: too many values", where);
                return false;
            }
            value_status vs = parse_value(s + st, flen, &vals[nvals]);
            if (vs != VALUE_OK) {
                value_error(err, errlen, where, s + st, flen, vs);
                return false;
            }
            nvals++;
        }
        if (comma && i >= len) {
            snprintf(err, errlen, "%s: empty value after ','", where);
            return false;
        }
    }
    if (!have_prog) {
        snprintf(err, errlen, "%s: missing the program index (--per-lane)", where);
        return false;
    }
    unsigned nin = target_nin(t, prog);
    if (nvals != nin) {
        const char *name = t->is_fir ? t->fn->name : t->img->programs[prog].name;
        unsigned nd = target_nderiv(t, prog);
        if (nd)
            snprintf(err, errlen,
                     "%s: program '%s' uses derivatives: it takes %u inputs, its %u ordinary "
                     "inputs then the x and the y derivatives of %u of them (docs/"
                     "Derivatives.md), got %zu",
                     where, name, nin, nin - 2 * nd, nd, nvals);
        else
            snprintf(err, errlen, "%s: program '%s' takes %u input%s, got %zu", where, name, nin,
                     nin == 1 ? "" : "s", nvals);
        return false;
    }
    if (!rows_push(r, vals, nvals, prog)) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    return true;
}

static bool parse_csv(const target *t, bool per_lane, const char *text, size_t len, rows *r,
                      const char *path, char *err, size_t errlen)
{
    size_t lineno = 0;
    const char *cur = text, *end = text + len;
    while (cur < end) {
        const char *nl = memchr(cur, '\n', (size_t)(end - cur));
        const char *eol = nl ? nl : end;
        lineno++;
        const char *p = cur;
        while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p < eol && *p != '#') {
            char where[300];
            snprintf(where, sizeof where, "%s:%zu", path, lineno);
            if (!parse_element(t, per_lane, cur, (size_t)(eol - cur), r, where, err, errlen))
                return false;
        }
        cur = nl ? nl + 1 : end;
    }
    return true;
}

static bool parse_raw(const target *t, const char *data, size_t len, rows *r, const char *path,
                      char *err, size_t errlen)
{
    unsigned nin = target_nin(t, t->prog);
    if (nin == 0) {
        snprintf(err, errlen, "%s: raw input needs a program with inputs", path);
        return false;
    }
    size_t elem = (size_t)nin * 4;
    if (len % elem) {
        snprintf(err, errlen, "%s: %zu bytes is not a whole number of elements of %u float32", path,
                 len, nin);
        return false;
    }
    float *vals = malloc((size_t)nin * sizeof(float));
    if (!vals) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (size_t off = 0; off < len; off += elem) {
        for (unsigned k = 0; k < nin; k++) {
            const unsigned char *b = (const unsigned char *)data + off + 4 * k;
            uint32_t w = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
                         ((uint32_t)b[3] << 24);
            vals[k] = fmag_float_of(w);
        }
        if (!rows_push(r, vals, nin, (uint32_t)t->prog)) {
            snprintf(err, errlen, "out of memory");
            free(vals);
            return false;
        }
    }
    free(vals);
    return true;
}

/* What fmag-run does with a file (lib/VM's fmag_vm_file_kind_of decides what it
 * holds, content first and name second), so that a file of the wrong kind is named as
 * such ("x.sl is SL source: compile it with slc") instead of failing as a bad binary. */
typedef enum { KIND_FMAG, KIND_FMAS, KIND_FIR, KIND_OTHER } file_kind;

static file_kind classify(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    fmag_vm_file_evidence why;
    fmag_vm_file_kind kind = fmag_vm_file_kind_of(path, data, len, &why);
    switch (kind) {
    case FMAG_VM_FILE_FMAG:
    case FMAG_VM_FILE_UNKNOWN:
        return KIND_FMAG; /* the binary reader names what is wrong */
    case FMAG_VM_FILE_FMAS:
        return KIND_FMAS;
    case FMAG_VM_FILE_FIR:
        return KIND_FIR;
    case FMAG_VM_FILE_TEXT:
        snprintf(err, errlen,
                 "%s is text but not .fmas (no .def) or .fir (no func @): fmag-run runs .fmag, "
                 ".fmas and .fir files",
                 path);
        return KIND_OTHER;
    default:
        fmag_tool_wrong_kind_message(err, errlen, path, kind, why);
        return KIND_OTHER;
    }
}

static bool load_target(target *t, const char *path, const char *prog_name, bool per_lane,
                        char *err, size_t errlen)
{
    size_t len;
    char *data = fmag_vm_read_file(path, &len, err, errlen);
    if (!data) return false;
    bool ok = true;
    file_kind kind = classify(path, data, len, err, errlen);
    if (kind == KIND_OTHER) {
        free(data);
        return false;
    }
    if (kind == KIND_FIR || kind == KIND_FMAS) {
        t->ctx = fmag_context_create();
        t->is_fir = kind == KIND_FIR;
        fmag_compile_options o;
        fmag_compile_options_init(&o);
        o.language = t->is_fir ? FMAG_LANG_FIR : FMAG_LANG_FMAS;
        o.stop_after = FMAG_STAGE_IR; /* .fir: parsed and verified, for the interpreter */
        fmag_compile_result_init(&t->r);
        ok = fmag_compile_ex(t->ctx, path, data, len, &o, &t->r) == FMAG_OK;
        if (ok && !t->is_fir) t->img = fmag_image_vm(t->r.image);
        /* A module that asks for derivatives is differentiated first, so that the
         * function takes its inputs' derivatives as the compiled program would (its
         * placeholders would otherwise give zeros). */
        if (ok && t->is_fir &&
            (fmag_module_get_func(t->r.module, FMAG_DFDX_NAME) ||
             fmag_module_get_func(t->r.module, FMAG_DFDY_NAME))) {
            fmag_pass_options po;
            memset(&po, 0, sizeof po);
            ok = fmag_run_passes(t->r.module, "derivatives", &po);
        }
        if (ok && t->is_fir) {
            fmag_func *first = NULL, *first_export = NULL;
            fmag_foreach_func (fn, t->r.module) {
                if (!first) first = fn;
                if (fn->is_export && !first_export) first_export = fn;
            }
            t->fn = prog_name ? fmag_module_get_func(t->r.module, prog_name)
                              : (first_export ? first_export : first);
            if (!t->fn) {
                snprintf(err, errlen,
                         prog_name ? "%s: no function named '%s'" : "%s: no functions%s", path,
                         prog_name ? prog_name : "");
                free(data);
                return false;
            }
        }
        if (!ok) {
            /* The diagnostics say what is wrong (multi-line ones, with the source line
             * and a caret, go out as they are), so nothing follows them, as in fmag-as
             * and fmag-opt; the generic line only where the library left none. */
            fmag_tool_print_diags(&run_tool, t->ctx);
            if (fmag_context_diag_count(t->ctx))
                err[0] = 0;
            else
                snprintf(err, errlen, "%s: %s", path,
                         t->is_fir ? "invalid module" : "assembly failed");
            free(data);
            return false;
        }
        free(data);
        if (t->is_fir) {
            if (per_lane) {
                snprintf(err, errlen, "--per-lane needs a .fmag or .fmas file");
                return false;
            }
            return true;
        }
    } else {
        char why[400];
        ok = fmag_vm_image_read(&t->own, data, len, why, sizeof why);
        free(data);
        if (!ok) {
            snprintf(err, errlen, "%s: %s", path, why);
            return false;
        }
    }
    if (prog_name) {
        const fmag_vm_program *p = fmag_vm_image_find(t->img, prog_name);
        if (!p) {
            snprintf(err, errlen, "%s: no program named '%s'", path, prog_name);
            return false;
        }
        t->prog = (size_t)(p - t->img->programs);
    }
    return true;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#ifdef FMAG_HAVE_GPU
/* --tier (given: set_mode) and --nan-agnostic for the GPU backends, and the tier the last run
 * used. Without --tier the runner keeps its own default (AUTO; OFF on a CPU Vulkan driver). */
static struct {
    bool set_mode;
    fmag_gpu_tier_mode mode;
    bool nan_agnostic;
    const char *ran;
} gpu_tier = {false, FMAG_GPU_TIER_AUTO, false, NULL};
#endif

/* Runs every row; out is [n][ow]. */
static bool run_rows(target *t, backend bk, unsigned threads, const rows *in, float *out, size_t ow,
                     bool per_lane, char *err, size_t errlen)
{
    size_t iw = in->width ? in->width : 1;
    if (t->is_fir) {
        if (bk != BK_REF) {
            snprintf(err, errlen,
                     "backend '%s' runs machine programs; a .fir runs on the IR interpreter "
                     "(--backend=ref), or lower it first (fmag-opt -O2 -lower -o x.fmag)",
                     backend_names[bk]);
            return false;
        }
        for (size_t k = 0; k < in->n; k++)
            if (!fmag_interp_func(t->fn, in->v + k * iw, out + k * ow)) {
                size_t nd = fmag_context_diag_count(t->ctx);
                const char *d =
                    nd ? fmag_context_diag(t->ctx, nd - 1) : "the IR interpreter failed";
                if (!strncmp(d, "error: ", 7)) d += 7;
                snprintf(err, errlen, "element %zu: %.*s", k + 1, (int)strcspn(d, "\n"), d);
                return false;
            }
        return true;
    }
    const fmag_vm_program **progs = malloc(t->img->nprograms * sizeof(*progs));
    if (!progs) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (size_t i = 0; i < t->img->nprograms; i++)
        progs[i] = &t->img->programs[i];
    const fmag_vm_program **use = per_lane ? progs : progs + t->prog;
    size_t nuse = per_lane ? t->img->nprograms : 1;
    const uint32_t *idx = per_lane ? in->prog : NULL;
    bool ok = false;
    switch (bk) {
    case BK_REF:
        ok = fmag_vm_run_ref_per_lane(use, nuse, idx, in->v, iw, out, ow, in->n, err, errlen);
        break;
    case BK_BATCH: {
        /* The engine object (persistent pool, SIMD kernel picked for this CPU). */
        fmag_vm_engine_options eo = {threads, FMAG_VM_ISA_AUTO, 0};
        fmag_vm_engine *e = fmag_vm_engine_create(&eo, err, errlen);
        if (e) {
            ok = fmag_vm_engine_run(e, use, nuse, idx, in->v, iw, out, ow, in->n, err, errlen);
            fmag_vm_engine_destroy(e);
        }
        break;
    }
    case BK_VULKAN:
    case BK_CUDA: {
#ifdef FMAG_HAVE_GPU
        fmag_gpu_runner *r =
            fmag_gpu_runner_create(bk == BK_CUDA ? FMAG_GPU_CUDA : FMAG_GPU_VULKAN, err, errlen);
        if (r) {
            if (gpu_tier.set_mode) fmag_gpu_runner_set_tier_mode(r, gpu_tier.mode);
            fmag_gpu_runner_set_nan_agnostic(r, gpu_tier.nan_agnostic);
            ok = fmag_gpu_run_per_lane(r, use, nuse, idx, in->v, iw, out, ow, in->n, err, errlen);
            gpu_tier.ran = fmag_gpu_tier_name(fmag_gpu_runner_last_tier(r));
            const char *log = fmag_gpu_runner_bake_log(r);
            if (ok && gpu_tier.mode == FMAG_GPU_TIER_EAGER && *log)
                fprintf(stderr, "fmag-run: note: %.*s\n", (int)strcspn(log, "\n"), log);
            fmag_gpu_runner_destroy(r);
        }
#else
        snprintf(err, errlen, "backend '%s' not built", backend_names[bk]);
#endif
        break;
    }
    }
    free(progs);
    return ok;
}

/* What the command line asks for. */
typedef struct run_args {
    const char *file, *in_file, *prog_name, *in_format;
    const char **in_lists;
    size_t n_in_lists;
    bool per_lane, have_bench, nan_agnostic;
    const char *tier;
    backend bk;
    unsigned long long bench, threads;
} run_args;

static bool opt_in(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)tool, (void)spelling;
    run_args *r = dest;
    r->in_lists[r->n_in_lists++] = value;
    return true;
}

/* An option that may be given once: --in-file, --program. */
static bool opt_once(const fmag_tool *tool, const char **dest, const char *spelling,
                     const char *value)
{
    if (*dest) {
        size_t n = strcspn(spelling, "=");
        fmag_tool_error(tool, "%.*s given twice", (int)n, spelling);
        return false;
    }
    *dest = value;
    return true;
}

static bool opt_in_file(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    return opt_once(tool, &((run_args *)dest)->in_file, spelling, value);
}

static bool opt_program(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    return opt_once(tool, &((run_args *)dest)->prog_name, spelling, value);
}

static bool opt_in_format(const fmag_tool *tool, void *dest, const char *spelling,
                          const char *value)
{
    (void)spelling;
    if (strcmp(value, "csv") && strcmp(value, "raw")) {
        fmag_tool_error(tool, "--in-format must be csv or raw, not '%s'", value);
        return false;
    }
    ((run_args *)dest)->in_format = value;
    return true;
}

static bool opt_backend(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)spelling;
    size_t k = 0;
    while (k < 4 && strcmp(value, backend_names[k]))
        k++;
    if (k == 4) {
        fmag_tool_error(tool, "unknown backend '%s' (ref, batch, vulkan, cuda)", value);
        return false;
    }
    ((run_args *)dest)->bk = (backend)k;
    return true;
}

static bool opt_threads(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    return fmag_opt_uint_value(tool, spelling, value, 0, 256, &((run_args *)dest)->threads);
}

static bool opt_bench(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    run_args *r = dest;
    if (!fmag_opt_uint_value(tool, spelling, value, 1, 1ull << 32, &r->bench)) return false;
    r->have_bench = true;
    return true;
}

static bool opt_tier(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)spelling;
    if (strcmp(value, "auto") && strcmp(value, "off") && strcmp(value, "eager")) {
        fmag_tool_error(tool, "--tier must be auto, off or eager, not '%s'", value);
        return false;
    }
    ((run_args *)dest)->tier = value;
    return true;
}

static bool take_file(const fmag_tool *tool, void *user, const char *arg)
{
    run_args *r = user;
    if (r->file) {
        fmag_tool_error(tool, "more than one program file ('%s' and '%s')", r->file, arg);
        return false;
    }
    r->file = arg;
    return true;
}

static const fmag_tool run_tool = {
    "fmag-run",
    "usage: fmag-run [options] FILE.{fmag,fmas,fir}\n"
    "\n"
    "Runs the first program of FILE (or --program NAME) and prints one line per\n"
    "element: its outputs, space-separated, as %.9g (reads back to the same float32).\n"
    "\n"
    "options:\n",
    NULL, NULL};

/* The command line, as the option table below fills it in. */
static run_args r;
enum { EQN = FMAG_OPT_EQ_OR_NEXT };

static const fmag_option opts[] = {
    {"--in", EQN | FMAG_OPT_EMPTY_OK, FMAG_OPT_CALL, &r, opt_in, "V,V,...",
     "one element's inputs (repeat for more elements); a leading\n"
     "minus is a value: --in -1,2"},
    {"--in-file", EQN, FMAG_OPT_CALL, &r, opt_in_file, "FILE",
     "many elements: CSV text, one element per line (values\n"
     "separated by commas or blanks; empty lines and lines\n"
     "starting with # are skipped), or raw little-endian float32\n"
     "(element after element) with --in-format=raw or a .bin/.f32\n"
     "file name. '-' reads standard input."},
    {"--in-format", EQN, FMAG_OPT_CALL, &r, opt_in_format, "csv|raw", "force the --in-file format"},
    {"--program", EQN, FMAG_OPT_CALL, &r, opt_program, "NAME",
     "run the program (or .fir function) of that name"},
    {"--per-lane", FMAG_OPT_NO_VALUE, FMAG_OPT_FLAG, &r.per_lane, NULL, NULL,
     "each element names its program: the first value of every\n"
     "--in / CSV line is a program index (0-based, file order) or\n"
     "name; the rest are that program's inputs (.fmag/.fmas only)"},
    {"--backend", EQN, FMAG_OPT_CALL, &r, opt_backend, "B",
     "ref (default; the reference interpreter), batch (the SIMD\n"
     "multi-threaded CPU engine), vulkan, cuda"},
    {"--threads", EQN, FMAG_OPT_CALL, &r, opt_threads, "N",
     "batch engine threads (default: one per CPU)"},
    {"--tier", EQN, FMAG_OPT_CALL, &r, opt_tier, "auto|off|eager",
     "GPU backends: auto interprets a program's first run and\n"
     "bakes it to native code in the background; off always\n"
     "interprets; eager waits for the bake. Default: auto, but\n"
     "off on a CPU Vulkan driver such as lavapipe (docs/GPU.md)"},
    {"--nan-agnostic", FMAG_OPT_NO_VALUE, FMAG_OPT_FLAG, &r.nan_agnostic, NULL, NULL,
     "GPU backends: baked code may give a computed NaN any\n"
     "payload (faster); other results unchanged"},
    {"--bench", EQN, FMAG_OPT_CALL, &r, opt_bench, "N",
     "run N generated elements and print the throughput\n"
     "(elements/s and FMAG instructions/s) instead of outputs;\n"
     "a .fir prints elements/s only (lower it for instr/s)"},
};

/* --bench N: deterministic inputs in [-4, 4) (a mix of signs and magnitudes), one
 * timed run, the throughput. */
static int bench(target *t, rows *in, float **outv, size_t max_in, size_t max_out)
{
    char err[1024];
    uint64_t s = 0x9E3779B97F4A7C15ull;
    size_t iw = max_in ? max_in : 1, n = (size_t)r.bench;
    in->v = malloc(n * iw * sizeof(float));
    in->prog = calloc(n, sizeof(uint32_t));
    *outv = malloc(n * (max_out ? max_out : 1) * sizeof(float));
    if (!in->v || !in->prog || !*outv) return fail("out of memory for %llu elements", r.bench);
    for (size_t k = 0; k < n * iw; k++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        in->v[k] = (float)(int32_t)(uint32_t)(s >> 32) * (4.0f / 2147483648.0f);
    }
    for (size_t k = 0; k < n; k++)
        in->prog[k] = (uint32_t)t->prog;
    in->n = in->cap = n;
    double t0 = now_seconds();
    if (!run_rows(t, r.bk, (unsigned)r.threads, in, *outv, max_out ? max_out : 1, false, err,
                  sizeof err))
        return fail("%s", err);
    double dt = now_seconds() - t0;
    if (dt <= 0) dt = 1e-9;
    uint64_t sum = 0;
    for (size_t k = 0; k < n * max_out; k++)
        sum = sum * 1000003u + fmag_bits_of((*outv)[k]);
    if (t->is_fir) {
        /* The IR interpreter runs IR, not machine instructions, and does not count
         * what it executes: an FMAG instr/s figure here would be made up. */
        printf("program %s: %llu elements, IR interpreter (backend ref)\n"
               "time %.6f s, %.4g elements/s, checksum %016llx\n",
               t->fn->name, r.bench, dt, (double)r.bench / dt, (unsigned long long)sum);
        return 0;
    }
    const fmag_vm_program *p = &t->img->programs[t->prog];
    double ninstr = (double)p->ninstr;
    printf("program %s: %llu elements, %.0f instructions, backend %s", p->name, r.bench, ninstr,
           backend_names[r.bk]);
    if (r.bk == BK_BATCH)
        printf(" (%s, up to %u threads)", fmag_vm_batch_isa(),
               r.threads ? (unsigned)r.threads : fmag_vm_hardware_threads());
#ifdef FMAG_HAVE_GPU
    if (gpu_tier.ran) printf(", tier %s", gpu_tier.ran);
#endif
    printf("\ntime %.6f s, %.4g elements/s, %.4g FMAG instr/s, checksum %016llx\n", dt,
           (double)r.bench / dt, (double)r.bench * ninstr / dt, (unsigned long long)sum);
    return 0;
}

/* The elements: from --in-file, the --in lists, or one empty element for a program
 * without inputs. false after printing the error. */
static bool read_inputs(target *t, rows *in, size_t max_in)
{
    char err[1024];
    if (r.in_file) {
        size_t len;
        char *data = fmag_vm_read_file(r.in_file, &len, err, sizeof err);
        if (!data) return fail("%s", err), false;
        bool raw = r.in_format ? !strcmp(r.in_format, "raw")
                               : (ends_with(r.in_file, ".bin") || ends_with(r.in_file, ".f32"));
        bool ok;
        if (raw && r.per_lane) {
            snprintf(err, sizeof err, "--per-lane needs CSV input");
            ok = false;
        } else if (raw) {
            ok = parse_raw(t, data, len, in, r.in_file, err, sizeof err);
        } else if (memchr(data, 0, len)) {
            snprintf(err, sizeof err,
                     "%s: NUL byte in CSV input (raw float32? use --in-format=raw)", r.in_file);
            ok = false;
        } else {
            ok = parse_csv(t, r.per_lane, data, len, in, r.in_file, err, sizeof err);
        }
        free(data);
        return ok || (fail("%s", err), false);
    }
    for (size_t k = 0; k < r.n_in_lists; k++) {
        char where[64];
        snprintf(where, sizeof where, "--in #%zu", k + 1);
        if (!parse_element(t, r.per_lane, r.in_lists[k], strlen(r.in_lists[k]), in, where, err,
                           sizeof err))
            return fail("%s", err), false;
    }
    if (r.n_in_lists) return true;
    if (r.per_lane || max_in)
        return fail("program '%s' takes %zu input%s: give --in V,V,... or --in-file FILE",
                    t->is_fir ? t->fn->name : t->img->programs[t->prog].name, max_in,
                    max_in == 1 ? "" : "s"),
               false;
    return rows_push(in, NULL, 0, (uint32_t)t->prog) || (fail("out of memory"), false);
}

int main(int argc, char **argv)
{
    int rc = 1;
    char err[1024];
    r.in_lists = calloc((size_t)argc, sizeof(char *));
    if (!r.in_lists) return fail("out of memory");
    const fmag_opt_parser parser = {&run_tool, opts, sizeof opts / sizeof *opts,
                                    take_file, NULL, &r};
    rc = fmag_opt_parse(&parser, argc, argv);
    if (rc != FMAG_OPT_RUN) goto out;
    rc = 1;
    if (!r.file) {
        fail("no program file (see --help)");
        goto out;
    }
    if (r.have_bench && (r.in_file || r.n_in_lists || r.per_lane)) {
        fail("--bench generates its own inputs; drop --in, --in-file and --per-lane");
        goto out;
    }
    if ((r.tier || r.nan_agnostic) && r.bk != BK_VULKAN && r.bk != BK_CUDA) {
        fail("--tier and --nan-agnostic are for the GPU backends (vulkan, cuda)");
        goto out;
    }
#ifdef FMAG_HAVE_GPU
    gpu_tier.mode = !r.tier || !strcmp(r.tier, "auto") ? FMAG_GPU_TIER_AUTO
                    : !strcmp(r.tier, "off")           ? FMAG_GPU_TIER_OFF
                                                       : FMAG_GPU_TIER_EAGER;
    gpu_tier.set_mode = r.tier != NULL;
    gpu_tier.nan_agnostic = r.nan_agnostic;
#endif
    if (r.in_file && r.n_in_lists) {
        fail("give --in or --in-file, not both");
        goto out;
    }
    if (r.per_lane && r.prog_name) {
        fail("--per-lane picks programs per element; drop --program");
        goto out;
    }
    target t = {0};
    fmag_vm_image_init(&t.own);
    t.img = &t.own;
    rows in = {0};
    float *outv = NULL;
    if (!load_target(&t, r.file, r.prog_name, r.per_lane, err, sizeof err)) {
        if (err[0]) fail("%s", err); /* empty: the diagnostics are printed already */
        goto done;
    }
    size_t max_in = 0, max_out = 0;
    for (size_t i = 0; r.per_lane && i < t.img->nprograms; i++) {
        if (t.img->programs[i].nin > max_in) max_in = t.img->programs[i].nin;
        if (t.img->programs[i].nout > max_out) max_out = t.img->programs[i].nout;
    }
    if (!r.per_lane) max_in = target_nin(&t, t.prog), max_out = target_nout(&t, t.prog);
    in.width = max_in;
    if (r.have_bench) {
        rc = bench(&t, &in, &outv, max_in, max_out);
        goto done;
    }
    if (!read_inputs(&t, &in, max_in)) goto done;
    size_t ow = max_out ? max_out : 1;
    outv = calloc(in.n ? in.n * ow : 1, sizeof(float));
    if (!outv) {
        fail("out of memory");
        goto done;
    }
    if (!run_rows(&t, r.bk, (unsigned)r.threads, &in, outv, ow, r.per_lane, err, sizeof err)) {
        fail("%s", err);
        goto done;
    }
    for (size_t k = 0; k < in.n; k++) {
        unsigned nout = target_nout(&t, in.prog[k]);
        for (unsigned j = 0; j < nout; j++)
            printf(j ? " %.9g" : "%.9g", (double)outv[k * ow + j]);
        putchar('\n');
    }
    rc = fflush(stdout) == 0 ? 0 : fail("cannot write the output");
done:
    free(in.v);
    free(in.prog);
    free(outv);
    fmag_vm_image_free(&t.own);
    fmag_compile_result_free(&t.r);
    if (t.ctx) fmag_context_destroy(t.ctx);
out:
    free(r.in_lists);
    return rc;
}
