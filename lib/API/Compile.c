/* fmag/fmag.h, compiling: the one compile driver. Source text or a built module goes
 * through the front end, the pass pipeline and lowering, stopping where the caller
 * asks and emitting the form it asks for; slc, fmag-opt and fmag-run are option tables
 * over fmag_compile_ex, as clang's driver is over its Frontend library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "APIInternal.h"
#include "fmag/Asm.h"
#include "fmag/CodeGen.h"
#include "fmag/SL.h"
#include "fmag/IR.h"
#include "fmag/VM.h"
#include "fmag/Transforms.h"
#if defined(FMAG_API_HAVE_SPIRV)
#include "fmag/SPIRV.h"
#include "fmag/Shader.h"
#endif
#if defined(FMAG_API_HAVE_MTLX)
#include "fmag/MaterialX.h"
#endif

const char *fmag_version(void)
{
    return FMAG_VERSION_STRING;
}

unsigned fmag_version_number(void)
{
    return FMAG_VERSION_NUMBER;
}

void fmag_compile_options_init_size(fmag_compile_options *opts, size_t size)
{
    memset(opts, 0, size < sizeof *opts ? size : sizeof *opts);
    opts->size = size;
    opts->language = FMAG_LANG_AUTO;
}

void fmag_compile_result_init_size(fmag_compile_result *r, size_t size)
{
    memset(r, 0, size < sizeof *r ? size : sizeof *r);
    r->size = size;
}

void fmag_compile_result_free(fmag_compile_result *r)
{
    if (!r) return;
    fmag_image_destroy(r->image);
    fmag_free(r->data);
    r->image = NULL;
    r->data = NULL;
    r->len = 0;
}

const char *fmag_status_name(fmag_status st)
{
    static const char *const names[] = {"ok", "input error", "out of memory", "misuse",
                                        "unsupported"};
    return (unsigned)st < sizeof names / sizeof *names ? names[st] : "unknown status";
}

void fmag_free(void *p)
{
    free(p);
}

/* The first version of the options ends with pass_options; a caller's struct shorter
 * than that was not set up by fmag_compile_options_init. */
enum { OPTIONS_V1_SIZE = offsetof(fmag_compile_options, pass_options) + sizeof(void *) };

bool fmag_api_read_sized(fmag_context *ctx, const char *name, const void *in, size_t size,
                         size_t v1_size, void *out, size_t out_size)
{
    if (size < v1_size) {
        if (ctx)
            fmag_context_error(ctx,
                               "error: %s.size is %zu, less than this library's first version "
                               "(%zu): set the options up with %s_init",
                               name, size, v1_size, name);
        return false;
    }
    memcpy(out, in, size < out_size ? size : out_size);
    return true;
}

/* The caller's options, as long as its struct is, over the defaults. */
static fmag_status options_read(fmag_context *ctx, const fmag_compile_options *in,
                                fmag_compile_options *out)
{
    fmag_compile_options_init(out);
    if (!in) return FMAG_OK;
    if (!fmag_api_read_sized(ctx, "fmag_compile_options", in, in->size, OPTIONS_V1_SIZE, out,
                             sizeof *out))
        return FMAG_ERROR_MISUSE;
    out->size = sizeof *out;
    return FMAG_OK;
}

bool fmag_have_language(fmag_language lang)
{
    switch (lang) {
    case FMAG_LANG_AUTO:
    case FMAG_LANG_SL:
    case FMAG_LANG_FIR:
    case FMAG_LANG_FMAS:
        return true;
    case FMAG_LANG_SPIRV:
#if defined(FMAG_API_HAVE_SPIRV)
        return true;
#else
        return false;
#endif
    case FMAG_LANG_MTLX:
#if defined(FMAG_API_HAVE_MTLX)
        return true;
#else
        return false;
#endif
    case FMAG_LANG_GLSL:
    case FMAG_LANG_HLSL:
#if defined(FMAG_API_HAVE_SPIRV)
        return fmag_shader_input_available();
#else
        return false;
#endif
    }
    return false;
}

/* A MaterialX document: by its root element, or by a .mtlx name. */
static bool api_is_mtlx(const char *filename, const char *src, size_t len)
{
    size_t n = filename ? strlen(filename) : 0;
    if (n > 5 && !strcmp(filename + n - 5, ".mtlx")) return true;
#if defined(FMAG_API_HAVE_MTLX)
    return fmag_mtlx_is_document(src, len);
#else
    (void)src;
    (void)len;
    return false;
#endif
}

/* FMAG_LANG_AUTO: the content first (a SPIR-V binary, .fmas or .fir text are told by
 * what they hold, whatever their name), then the name's extension, then SL; the same
 * rule as the tools (fmag_vm_file_kind_of). A compiled .fmag is not source: false. */
static bool language_of(const char *filename, const char *src, size_t len, fmag_language *lang)
{
    if (api_is_mtlx(filename, src, len)) {
        *lang = FMAG_LANG_MTLX;
        return true;
    }
    switch (fmag_vm_file_kind_of(filename, src, len, NULL)) {
    case FMAG_VM_FILE_FMAG:
        return false;
    case FMAG_VM_FILE_SPIRV:
        *lang = FMAG_LANG_SPIRV;
        break;
    case FMAG_VM_FILE_FMAS:
        *lang = FMAG_LANG_FMAS;
        break;
    case FMAG_VM_FILE_FIR:
        *lang = FMAG_LANG_FIR;
        break;
    case FMAG_VM_FILE_GLSL:
        *lang = FMAG_LANG_GLSL;
        break;
    case FMAG_VM_FILE_HLSL:
        *lang = FMAG_LANG_HLSL;
        break;
    default: /* SL, and text or data of no kind: the SL front end says what is wrong */
        *lang = FMAG_LANG_SL;
        break;
    }
    return true;
}

fmag_image *fmag_api_image_new(fmag_context *ctx)
{
    fmag_image *img = calloc(1, sizeof(*img));
    if (!img) {
        if (ctx) fmag_context_error(ctx, "error: out of memory");
        return NULL;
    }
    fmag_vm_image_init(&img->vm);
    return img;
}

/* Bytes a printer writes to a FILE, through a temporary file (standard C; no
 * open_memstream, which the single header could not count on). */
typedef void (*print_fn)(const void *arg, unsigned flags, FILE *out);

static fmag_status capture(fmag_context *ctx, print_fn print, const void *arg, unsigned flags,
                           void **data, size_t *len)
{
    FILE *f = tmpfile();
    if (!f) {
        if (ctx) fmag_context_error(ctx, "error: cannot create a temporary file for the output");
        return FMAG_ERROR_NOMEM;
    }
    print(arg, flags, f);
    long n = ftell(f);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = 0;
    if (text) {
        rewind(f);
        got = fread(text, 1, (size_t)n, f);
        text[got] = 0;
    }
    fclose(f);
    if (!text || got != (size_t)n) {
        free(text);
        if (ctx) fmag_context_error(ctx, "error: out of memory");
        return FMAG_ERROR_NOMEM;
    }
    *data = text;
    *len = got;
    return FMAG_OK;
}

static void print_module(const void *m, unsigned flags, FILE *out)
{
    fmag_module_print((fmag_module *)m, out, flags);
}

static void print_image(const void *img, unsigned flags, FILE *out)
{
    (void)flags;
    fmag_asm_print_image(img, out);
}

static void print_program(const void *p, unsigned flags, FILE *out)
{
    (void)flags;
    fmag_asm_print_program(p, out);
}

char *fmag_program_disassemble(const fmag_vm_program *p)
{
    void *text = NULL;
    size_t len;
    return capture(NULL, print_program, p, 0, &text, &len) == FMAG_OK ? text : NULL;
}

static bool any_export(fmag_module *m)
{
    fmag_foreach_func (f, m)
        if (f->is_export) return true;
    return false;
}

/* The image's bytes in the form opts->emit asks for. */
static fmag_status emit_image(fmag_context *ctx, const fmag_vm_image *img,
                              const fmag_compile_options *o, void **data, size_t *len)
{
    char err[512];
    switch (o->emit) {
    case FMAG_EMIT_NONE:
        return FMAG_OK;
    case FMAG_EMIT_FMAS:
        return capture(ctx, print_image, img, 0, data, len);
    case FMAG_EMIT_FMAG:
        if (fmag_vm_image_write(img, data, len, err, sizeof err)) return FMAG_OK;
        break;
    case FMAG_EMIT_C:
    case FMAG_EMIT_GLSL:
    case FMAG_EMIT_CUDA: {
        const fmag_vm_program **ps = malloc((img->nprograms + 1) * sizeof *ps);
        if (!ps) {
            fmag_context_error(ctx, "error: out of memory");
            return FMAG_ERROR_NOMEM;
        }
        for (size_t i = 0; i < img->nprograms; i++)
            ps[i] = &img->programs[i];
        fmag_vm_emit_lang lang = o->emit == FMAG_EMIT_C      ? FMAG_VM_EMIT_C
                                 : o->emit == FMAG_EMIT_GLSL ? FMAG_VM_EMIT_GLSL
                                                             : FMAG_VM_EMIT_CUDA;
        char *text = NULL;
        fmag_vm_emit_options eo = {o->emit_prefix, o->emit_nan_agnostic};
        bool ok =
            fmag_vm_emit_source_opts(ps, img->nprograms, lang, &eo, &text, len, err, sizeof err);
        free(ps);
        if (ok) {
            *data = text;
            return FMAG_OK;
        }
        break;
    }
    default:
        fmag_context_error(ctx, "error: programs cannot be emitted as %s",
                           o->emit == FMAG_EMIT_FIR ? ".fir (stop after the IR or the passes)"
                                                    : "SPIR-V (stop after the SPIR-V)");
        return FMAG_ERROR_MISUSE;
    }
    fmag_context_error(ctx, "error: %s", err);
    return FMAG_ERROR_INPUT;
}

/* Lowering: every export to a program, into img. As is (fmag-opt -lower): export by
 * export as the pipeline left them, with statistics to the pass options' log;
 * otherwise after the passes lowering needs. */
static fmag_status lower(fmag_module *m, const fmag_compile_options *o, const fmag_pass_options *po,
                         fmag_vm_image *img)
{
    fmag_context *ctx = m->ctx;
    fmag_codegen_options cg = {o->fast_codegen ? FMAG_CODEGEN_FAST : FMAG_CODEGEN_FULL};
    if (!o->lower_as_is) {
        if (!fmag_prepare_codegen(m, po)) return FMAG_ERROR_INPUT;
        return fmag_codegen_module_with(m, img, &cg) ? FMAG_OK : FMAG_ERROR_INPUT;
    }
    /* An empty module passes the verifier (it has no function to check) but has no
     * program either: refused with the verifier's words for a module of non-export
     * functions. */
    if (!any_export(m)) {
        fmag_context_error(ctx, "error: module has no export function (an export is a "
                                "program's entry point)");
        return FMAG_ERROR_INPUT;
    }
    fmag_foreach_func (f, m) {
        if (!f->is_export) continue;
        fmag_codegen_stats st = {0};
        if (!fmag_codegen_func_with(f, img, &st, &cg)) return FMAG_ERROR_INPUT;
        if (po->stats && po->log)
            fprintf(po->log,
                    "stats: lower @%s: %u instructions, %u registers (max live %u, %u moves)\n",
                    f->name, st.instrs, st.regs, st.max_live, st.moves);
    }
    return FMAG_OK;
}

/* From the IR on: the passes, then (by the stage) the IR's text or the programs. */
static fmag_status compile_module(fmag_module *m, const char *shown, bool verified,
                                  const fmag_compile_options *o, fmag_compile_result *out)
{
    fmag_context *ctx = m->ctx;
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    if (o->pass_options) po = *o->pass_options;
    if (!verified && !fmag_verify_module(m)) return FMAG_ERROR_INPUT;
    if (o->stop_after != FMAG_STAGE_IR) {
        const char *pipeline = o->pipeline ? o->pipeline : "O2";
        if (*pipeline && !fmag_run_passes(m, pipeline, &po)) return FMAG_ERROR_INPUT;
    }
    if (o->stop_after == FMAG_STAGE_IR || o->stop_after == FMAG_STAGE_PASSES) {
        out->module = m;
        if (o->emit == FMAG_EMIT_FIR)
            return capture(ctx, print_module, m, o->print_flags, &out->data, &out->len);
        if (o->emit == FMAG_EMIT_NONE) return FMAG_OK;
        fmag_context_error(ctx, "error: the IR can only be emitted as .fir");
        return FMAG_ERROR_MISUSE;
    }
    if (!o->lower_as_is && !any_export(m)) {
        fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                            "no export function: nothing to compile");
        return FMAG_ERROR_INPUT;
    }
    fmag_image *img = fmag_api_image_new(ctx);
    if (!img) return FMAG_ERROR_NOMEM;
    fmag_status st = lower(m, o, &po, &img->vm);
    if (st == FMAG_OK) st = emit_image(ctx, &img->vm, o, &out->data, &out->len);
    if (st != FMAG_OK) {
        fmag_image_destroy(img);
        return st;
    }
    out->module = m;
    out->image = img;
    return FMAG_OK;
}

fmag_image *fmag_compile_module(fmag_module *m, const fmag_compile_options *opts)
{
    fmag_compile_options o;
    if (options_read(m->ctx, opts, &o) != FMAG_OK) return NULL;
    o.stop_after = FMAG_STAGE_PROGRAMS;
    o.emit = FMAG_EMIT_NONE;
    o.lower_as_is = false;
    if (!any_export(m)) {
        fmag_context_error(m->ctx, "error: no export function: nothing to compile");
        return NULL;
    }
    fmag_compile_result r;
    fmag_compile_result_init(&r);
    return compile_module(m, NULL, false, &o, &r) == FMAG_OK ? r.image : NULL;
}

static const char *const language_names[] = {
    [FMAG_LANG_GLSL] = "GLSL", [FMAG_LANG_HLSL] = "HLSL", [FMAG_LANG_SPIRV] = "SPIR-V"};

#if defined(FMAG_API_HAVE_SPIRV)
static void spirv_options(const char *shown, const fmag_compile_options *o, fmag_spirv_options *so)
{
    memset(so, 0, sizeof *so);
    so->entry = o->entry;
    so->filename = shown;
    so->fastmath = o->fastmath;
    so->include_dirs = o->include_dirs;
    so->ninclude_dirs = o->ninclude_dirs;
    so->include_fn = o->include_fn;
    so->include_user = o->include_user;
    so->defines = o->defines;
    so->ndefines = o->ndefines;
}
#endif

/* GLSL, HLSL and SPIR-V go through lib/SPIRV (SPEC 5b): the shader compilers turn text
 * into SPIR-V with the program's interface, the reader turns SPIR-V into IR. At
 * FMAG_STAGE_SPIRV the SPIR-V words are the result. */
static fmag_status import_shader(fmag_context *ctx, const char *shown, const char *src, size_t len,
                                 fmag_language lang, const fmag_compile_options *o, fmag_module **m,
                                 fmag_compile_result *out)
{
#if defined(FMAG_API_HAVE_SPIRV)
    fmag_spirv_options so;
    spirv_options(shown, o, &so);
    if (lang == FMAG_LANG_SPIRV) {
        if (len % 4 != 0) {
            fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                                "not a SPIR-V binary (%zu bytes is not a whole number of "
                                "32-bit words)",
                                len);
            return FMAG_ERROR_INPUT;
        }
        uint32_t *words = malloc(len ? len : 4);
        if (!words) {
            fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0, "out of memory");
            return FMAG_ERROR_NOMEM;
        }
        memcpy(words, src, len);
        *m = fmag_spirv_import(ctx, words, len / 4, &so);
        free(words);
        return *m ? FMAG_OK : FMAG_ERROR_INPUT;
    }
    if (fmag_shader_input_available()) {
        fmag_source_language sl = lang == FMAG_LANG_HLSL ? FMAG_SOURCE_HLSL : FMAG_SOURCE_GLSL;
        if (o->stop_after == FMAG_STAGE_SPIRV) {
            fmag_shader_spirv spv;
            if (!fmag_shader_to_spirv_opts(NULL, ctx, shown, src, len, sl, &so, &spv))
                return FMAG_ERROR_INPUT;
            size_t bytes = spv.nwords * 4;
            out->data = malloc(bytes ? bytes : 1);
            if (out->data) memcpy(out->data, spv.words, bytes);
            out->len = bytes;
            fmag_shader_spirv_free(&spv);
            if (out->data) return FMAG_OK;
            fmag_context_error(ctx, "error: out of memory");
            return FMAG_ERROR_NOMEM;
        }
        *m = fmag_glsl_import(ctx, shown, src, len, sl, &so);
        return *m ? FMAG_OK : FMAG_ERROR_INPUT;
    }
    fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                        "%s input is not built into this FMAG library (%s)", language_names[lang],
                        fmag_shader_input_missing());
    return FMAG_ERROR_UNSUPPORTED;
#else
    (void)src, (void)len, (void)o, (void)m, (void)out;
    fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                        "%s input is not built into this FMAG library (it needs "
                        "the SPIR-V front end, lib/SPIRV)",
                        language_names[lang]);
    return FMAG_ERROR_UNSUPPORTED;
#endif
}

/* .fmas: assembled as written; the image is the result at every stage. */
static fmag_status assemble(fmag_context *ctx, const char *shown, const char *src, size_t len,
                            const fmag_compile_options *o, fmag_compile_result *out)
{
    fmag_image *img = fmag_api_image_new(ctx);
    if (!img) return FMAG_ERROR_NOMEM;
    fmag_status st = fmag_asm_parse(ctx, shown, src, len, &img->vm) ? FMAG_OK : FMAG_ERROR_INPUT;
    if (st == FMAG_OK) st = emit_image(ctx, &img->vm, o, &out->data, &out->len);
    if (st != FMAG_OK) {
        fmag_image_destroy(img);
        return st;
    }
    out->image = img;
    return FMAG_OK;
}

/* FMAG_STAGE_SPIRV is for GLSL and HLSL, and SPIR-V is what it emits. */
static bool stage_fits(fmag_context *ctx, const char *shown, fmag_language lang,
                       const fmag_compile_options *o)
{
    bool shader = lang == FMAG_LANG_GLSL || lang == FMAG_LANG_HLSL;
    bool spirv_stage = o->stop_after == FMAG_STAGE_SPIRV;
    if (spirv_stage ? shader && o->emit == FMAG_EMIT_SPIRV : o->emit != FMAG_EMIT_SPIRV)
        return true;
    fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                        spirv_stage && !shader
                            ? "stopping after SPIR-V needs GLSL or HLSL input"
                            : "SPIR-V is emitted when stopping after SPIR-V, and only then");
    return false;
}

fmag_status fmag_compile_ex(fmag_context *ctx, const char *filename, const char *src, size_t len,
                            const fmag_compile_options *opts, fmag_compile_result *out)
{
    fmag_compile_result local;
    if (!out) {
        fmag_compile_result_init(&local);
        out = &local;
    }
    size_t keep = out->size;
    fmag_compile_result_init_size(out, keep);
    if (keep < sizeof *out) {
        fmag_context_error(ctx,
                           "error: fmag_compile_result.size is %zu: set the result up "
                           "with fmag_compile_result_init",
                           keep);
        return FMAG_ERROR_MISUSE;
    }
    fmag_compile_options o;
    fmag_status st = options_read(ctx, opts, &o);
    if (st != FMAG_OK) return st;
    const char *shown = filename ? filename : "<input>";
    fmag_language lang = o.language;
    if (lang == FMAG_LANG_AUTO && !language_of(filename, src, len, &lang)) {
        fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                            "this is a compiled .fmag image, not source: load it with "
                            "fmag_image_read");
        return FMAG_ERROR_INPUT;
    }
    if (!stage_fits(ctx, shown, lang, &o)) return FMAG_ERROR_MISUSE;
    fmag_module *m = NULL;
    switch (lang) {
    case FMAG_LANG_FMAS:
        st = assemble(ctx, shown, src, len, &o, out);
        if (out == &local) fmag_compile_result_free(out);
        return st;
    case FMAG_LANG_FIR:
        m = fmag_parse_module(ctx, shown, src, len);
        st = m ? FMAG_OK : FMAG_ERROR_INPUT;
        break;
    case FMAG_LANG_GLSL:
    case FMAG_LANG_HLSL:
    case FMAG_LANG_SPIRV:
        st = import_shader(ctx, shown, src, len, lang, &o, &m, out);
        break;
    case FMAG_LANG_MTLX: {
#if defined(FMAG_API_HAVE_MTLX)
        fmag_mtlx_options mo = {o.fastmath, o.entry};
        m = fmag_mtlx_compile(ctx, shown, src, len, &mo);
#else
#if defined(FMAG_AMALGAMATION) /* a package to install cannot help a single header */
        fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                            "MaterialX input is not built into this FMAG library (the single "
                            "header fmag.h reads MaterialX only with "
                            "FMAG_SINGLE_HEADER_MATERIALX defined beside FMAG_IMPLEMENTATION, "
                            "linked with -lexpat)");
#else
        fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                            "MaterialX input is not built into this FMAG library (it needs "
                            "expat: libexpat1-dev)");
#endif
#endif
        st = m ? FMAG_OK : FMAG_ERROR_INPUT;
        break;
    }
    case FMAG_LANG_AUTO:
    case FMAG_LANG_SL: {
        fmag_sl_options so = {o.fastmath, o.entry};
        m = fmag_sl_compile(ctx, shown, src, len, &so);
        st = m ? FMAG_OK : FMAG_ERROR_INPUT;
        break;
    }
    default:
        fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0, "unknown language %d", (int)lang);
        return FMAG_ERROR_MISUSE;
    }
    if (st != FMAG_OK || !m) return st; /* at FMAG_STAGE_SPIRV: the words are out */
    if (o.fastmath) m->fastmath = true;
    if (o.derivs) m->deriv_inputs = fmag_context_strdup(ctx, o.derivs, strlen(o.derivs));
    bool verified = false;
    if (lang == FMAG_LANG_FIR) {
        /* The IR text is checked before anything reads it (fmag-opt, fmag-run). */
        if (!fmag_verify_module(m)) return FMAG_ERROR_INPUT;
        verified = true;
        if (o.entry) {
            /* Keep only the named export (SL does this in the front end). */
            fmag_func *e = fmag_module_get_func(m, o.entry);
            if (!e || !e->is_export) {
                fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0, "no export function '%s'",
                                    o.entry);
                return FMAG_ERROR_INPUT;
            }
            fmag_foreach_func (f, m)
                if (f->is_export && f != e) f->is_export = false;
        }
    } else if (!any_export(m)) {
        fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                            "no export function: nothing to compile");
        return FMAG_ERROR_INPUT;
    }
    st = compile_module(m, shown, verified, &o, out);
    if (out == &local) fmag_compile_result_free(out);
    return st;
}

fmag_image *fmag_compile(fmag_context *ctx, const char *filename, const char *src, size_t len,
                         const fmag_compile_options *opts)
{
    fmag_compile_options o;
    if (options_read(ctx, opts, &o) != FMAG_OK) return NULL;
    o.stop_after = FMAG_STAGE_PROGRAMS;
    o.emit = FMAG_EMIT_NONE;
    fmag_compile_result r;
    fmag_compile_result_init(&r);
    return fmag_compile_ex(ctx, filename, src, len, &o, &r) == FMAG_OK ? r.image : NULL;
}
