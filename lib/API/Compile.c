/* fmag/fmag.h, compiling: source text or a built module to an image, the way slc does
 * it (front end, the pass pipeline, the lowering fallback, codegen). */
#include <stdlib.h>
#include <string.h>
#include "APIInternal.h"
#include "fmag/Asm.h"
#include "fmag/CodeGen.h"
#include "fmag/SL.h"
#include "fmag/VM.h"
#include "fmag/Transforms.h"
#if defined(FMAG_API_HAVE_SPIRV)
#include "fmag/SPIRV.h"
#include "fmag/Shader.h"
#endif

const char *fmag_version(void)
{
    return FMAG_VERSION_STRING;
}

unsigned fmag_version_number(void)
{
    return FMAG_VERSION_NUMBER;
}

void fmag_compile_options_init(fmag_compile_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->language = FMAG_LANG_AUTO;
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

/* FMAG_LANG_AUTO: the content first (a SPIR-V binary, .fmas or .fir text are told by
 * what they hold, whatever their name), then the name's extension, then SL; the same
 * rule as the tools (fmag_vm_file_kind_of). A compiled .fmag is not source: false. */
static bool language_of(const char *filename, const char *src, size_t len, fmag_language *lang)
{
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

fmag_image *fmag_compile_module(fmag_module *m, const fmag_compile_options *opts)
{
    fmag_compile_options defaults;
    if (!opts) {
        fmag_compile_options_init(&defaults);
        opts = &defaults;
    }
    fmag_context *ctx = m->ctx;
    bool any_export = false;
    fmag_foreach_func (f, m)
        any_export |= f->is_export;
    if (!any_export) {
        fmag_context_error(ctx, "error: no export function: nothing to compile");
        return NULL;
    }
    if (!fmag_verify_module(m)) return NULL;
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    const char *pipeline = opts->pipeline ? opts->pipeline : "O2";
    /* Whatever the pipeline, lowering needs every export inlined, unrolled and
     * if-converted (as slc does for -O0). */
    if (!fmag_run_passes(m, pipeline, &po) || !fmag_prepare_codegen(m, &po)) return NULL;
    fmag_image *img = fmag_api_image_new(ctx);
    if (!img) return NULL;
    fmag_codegen_options cg = {opts->fast_codegen ? FMAG_CODEGEN_FAST : FMAG_CODEGEN_FULL};
    if (!fmag_codegen_module_with(m, &img->vm, &cg)) {
        fmag_image_destroy(img);
        return NULL;
    }
    return img;
}

/* GLSL, HLSL and SPIR-V go through lib/SPIRV (SPEC 5b): the shader compilers turn text
 * into SPIR-V with the program's interface, the reader turns SPIR-V into IR. */
static fmag_module *import_shader(fmag_context *ctx, const char *filename, const char *src,
                                  size_t len, fmag_language lang, const fmag_compile_options *opts)
{
    static const char *const names[] = {
        [FMAG_LANG_GLSL] = "GLSL", [FMAG_LANG_HLSL] = "HLSL", [FMAG_LANG_SPIRV] = "SPIR-V"};
#if defined(FMAG_API_HAVE_SPIRV)
    fmag_spirv_options so;
    memset(&so, 0, sizeof so);
    so.entry = opts->entry;
    so.filename = filename;
    so.fastmath = opts->fastmath;
    so.include_dirs = opts->include_dirs;
    so.ninclude_dirs = opts->ninclude_dirs;
    so.include_fn = opts->include_fn;
    so.include_user = opts->include_user;
    so.defines = opts->defines;
    so.ndefines = opts->ndefines;
    if (lang == FMAG_LANG_SPIRV) {
        if (len % 4 != 0) {
            fmag_context_report(ctx, FMAG_DIAG_ERROR, filename, 0, 0,
                                "a SPIR-V binary is a whole number of 32-bit "
                                "words; this one has %zu bytes",
                                len);
            return NULL;
        }
        uint32_t *words = malloc(len ? len : 4);
        if (!words) {
            fmag_context_report(ctx, FMAG_DIAG_ERROR, filename, 0, 0, "out of memory");
            return NULL;
        }
        memcpy(words, src, len);
        fmag_module *m = fmag_spirv_import(ctx, words, len / 4, &so);
        free(words);
        return m;
    }
    if (fmag_shader_input_available())
        return fmag_glsl_import(ctx, filename, src, len,
                                lang == FMAG_LANG_HLSL ? FMAG_SOURCE_HLSL : FMAG_SOURCE_GLSL, &so);
    fmag_context_report(ctx, FMAG_DIAG_ERROR, filename, 0, 0,
                        "%s input is not built into this FMAG library (%s)", names[lang],
                        fmag_shader_input_missing());
    return NULL;
#else
    (void)src;
    (void)len;
    (void)opts;
    fmag_context_report(ctx, FMAG_DIAG_ERROR, filename, 0, 0,
                        "%s input is not built into this FMAG library (it needs "
                        "the SPIR-V front end, lib/SPIRV)",
                        names[lang]);
    return NULL;
#endif
}

fmag_image *fmag_compile(fmag_context *ctx, const char *filename, const char *src, size_t len,
                         const fmag_compile_options *opts)
{
    fmag_compile_options defaults;
    if (!opts) {
        fmag_compile_options_init(&defaults);
        opts = &defaults;
    }
    const char *shown = filename ? filename : "<input>";
    fmag_language lang = opts->language;
    if (lang == FMAG_LANG_AUTO && !language_of(filename, src, len, &lang)) {
        fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                            "this is a compiled .fmag image, not source: load it with "
                            "fmag_image_read");
        return NULL;
    }
    fmag_module *m = NULL;
    switch (lang) {
    case FMAG_LANG_FMAS: {
        fmag_image *img = fmag_api_image_new(ctx);
        if (!img) return NULL;
        if (!fmag_asm_parse(ctx, shown, src, len, &img->vm)) {
            fmag_image_destroy(img);
            return NULL;
        }
        return img;
    }
    case FMAG_LANG_FIR:
        m = fmag_parse_module(ctx, shown, src, len);
        break;
    case FMAG_LANG_GLSL:
    case FMAG_LANG_HLSL:
    case FMAG_LANG_SPIRV:
        m = import_shader(ctx, shown, src, len, lang, opts);
        break;
    case FMAG_LANG_AUTO:
    case FMAG_LANG_SL: {
        fmag_sl_options so = {opts->fastmath, opts->entry};
        m = fmag_sl_compile(ctx, shown, src, len, &so);
        break;
    }
    default:
        fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0, "unknown language %d", (int)lang);
        return NULL;
    }
    if (!m) return NULL;
    if (opts->fastmath) m->fastmath = true;
    if (lang == FMAG_LANG_FIR && opts->entry) {
        /* Keep only the named export (SL does this in the front end). */
        if (!fmag_module_get_func(m, opts->entry) ||
            !fmag_module_get_func(m, opts->entry)->is_export) {
            fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0, "no export function '%s'",
                                opts->entry);
            return NULL;
        }
        fmag_foreach_func (f, m)
            if (f->is_export && strcmp(f->name, opts->entry)) f->is_export = false;
    }
    bool any_export = false;
    fmag_foreach_func (f, m)
        any_export |= f->is_export;
    if (!any_export) {
        fmag_context_report(ctx, FMAG_DIAG_ERROR, shown, 0, 0,
                            "no export function: nothing to compile");
        return NULL;
    }
    return fmag_compile_module(m, opts);
}
