/* The GLSL/HLSL front door (SPEC §5b): source text to legalized SPIR-V through shaderc,
 * with a generated entry point that fixes the program's interface.
 *
 * glslang drops every function main() does not call, and the optimizer inlines the rest,
 * so "-entry NAME" cannot be found in the SPIR-V afterwards. Instead the source is first
 * preprocessed, the entry's signature is read from the preprocessed text, and a wrapper
 * entry point is appended that reads one float Input variable per scalar input (locations
 * 0..nin-1, in the order of SPEC §5b), calls NAME, and writes one float Output variable
 * per scalar output (locations 0..nout-1). Without -entry the user's main() is renamed,
 * its global `in`, `out` and non-opaque `uniform` variables become private globals, and
 * the wrapper copies them in and out the same way. So whatever the user wrote, the SPIR-V
 * reader sees one entry point whose interface is float scalars in location order.
 *
 * Every edit keeps the line structure of the preprocessed text (which keeps the line
 * numbers of the original) and the wrapper is appended after the last line, so glslang's
 * "file:line" diagnostics point into the user's file unchanged.
 *
 * This file drives the stages (preprocess, check, edit, wrap, compile); each job has its
 * file: Tokens.c (text buffer, tokenizer), Signature.c (the entry's signature),
 * Globals.c (global and block declarations made private), CallGraph.c (what the entry
 * reaches), Wrapper.c (the generated entry point), Checks.c (macro bounds, braces),
 * Include.c (#include), Report.c and GlslangDiag.c (glslang's log as FMAG diagnostics);
 * ShaderImport.c hands the SPIR-V to the reader. ShaderFront.h is their shared state.
 *
 * Built only when CMake finds shaderc and SPIRV-Tools (FMAG_HAVE_SHADERC); otherwise every
 * entry point records "built without GLSL/HLSL input". */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmag/Shader.h"
#include "GlslangDiag.h"
#include "ShaderFront.h"

#ifdef FMAG_HAVE_SHADERC
#include <shaderc/shaderc.h>
#endif

bool fmag_shader_input_available(void)
{
    return fmag_shader_input_missing() == NULL;
}

const char *fmag_shader_input_missing(void)
{
#if defined(FMAG_HAVE_SHADERC)
    return NULL;
#elif defined(FMAG_AMALGAMATION)
    /* glslang and shaderc are C++ libraries: no header can hold them */
    return "the single header fmag.h has no GLSL/HLSL front: compile the shader to SPIR-V "
           "(glslangValidator -V, glslc) and pass the .spv, or link the installed FMAG "
           "library (libfmag), which reads GLSL and HLSL";
#else
    return "it needs shaderc and SPIRV-Tools: install libshaderc-dev and spirv-tools, then "
           "reconfigure";
#endif
}

const char *fmag_source_language_name(fmag_source_language lang)
{
    switch (lang) {
    case FMAG_SOURCE_GLSL:
        return "glsl";
    case FMAG_SOURCE_HLSL:
        return "hlsl";
    }
    return "?";
}

#ifndef FMAG_HAVE_SHADERC

fmag_shader_compiler *fmag_shader_compiler_create(void)
{
    return NULL;
}

void fmag_shader_compiler_destroy(fmag_shader_compiler *c)
{
    (void)c;
}

bool fmag_shader_to_spirv_opts(fmag_shader_compiler *compiler, fmag_context *ctx,
                               const char *filename, const char *src, size_t len,
                               fmag_source_language lang, const fmag_spirv_options *opts,
                               fmag_shader_spirv *out)
{
    (void)compiler, (void)src, (void)len, (void)lang, (void)opts;
    memset(out, 0, sizeof *out);
    fmag_context_report(ctx, FMAG_DIAG_ERROR, filename ? filename : "<input>", 0, 0,
                        "built without GLSL/HLSL input (%s)", fmag_shader_input_missing());

    return false;
}

#else /* FMAG_HAVE_SHADERC */

static shaderc_compile_options_t make_options(front *f, bool compile)
{
    shaderc_compile_options_t o = shaderc_compile_options_initialize();
    if (!o) return NULL;
    shaderc_compile_options_set_source_language(o, f->lang == FMAG_SOURCE_GLSL
                                                       ? shaderc_source_language_glsl
                                                       : shaderc_source_language_hlsl);
    if (f->lang == FMAG_SOURCE_GLSL) {
        unsigned v = shf_glsl_version(f->src, f->len);
        shaderc_compile_options_set_forced_version_profile(o, v > 450 ? (int)v : 450,
                                                           shaderc_profile_none);
    }
    shaderc_compile_options_set_target_env(o, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_0);
    shaderc_compile_options_set_auto_map_locations(o, true);
    shaderc_compile_options_set_auto_bind_uniforms(o, true);
    shaderc_compile_options_set_suppress_warnings(o);
    /* One location per scalar: lift the per-stage interface limits. */
    shaderc_compile_options_set_limit(o, shaderc_limit_max_draw_buffers, 4096);
    shaderc_compile_options_set_limit(o, shaderc_limit_max_fragment_input_vectors, 4096);
    shaderc_compile_options_set_limit(o, shaderc_limit_max_fragment_input_components, 16384);
    shaderc_compile_options_set_include_callbacks(o, shf_include_resolve, shf_include_release, f);
    for (size_t k = 0; k < f->ndefines; k++) {
        const char *d = f->defines[k], *eq = d ? strchr(d, '=') : NULL;
        if (!d || !*d || d[0] == '=') continue; /* checked by the caller: no name */
        if (eq)
            shaderc_compile_options_add_macro_definition(o, d, (size_t)(eq - d), eq + 1,
                                                         strlen(eq + 1));
        else
            shaderc_compile_options_add_macro_definition(o, d, strlen(d), "1", 1);
    }
    if (compile) {
        /* SPIRV-Tools' performance recipe, which shaderc runs in-process: inlining, memory
         * to SSA, scalar replacement, dead code, if-conversion (the legalization passes
         * plus folding); none past FRONT_SPIRV_INLINE_MAX calls to inline. Debug info is
         * kept, so OpLine reaches the reader. */
        shaderc_compile_options_set_optimization_level(
            o, f->inline_calls <= FRONT_SPIRV_INLINE_MAX ? shaderc_optimization_level_performance
                                                         : shaderc_optimization_level_zero);
        shaderc_compile_options_set_generate_debug_info(o);
    }
    return o;
}

/* The compiler handle is what keeps glslang's process-wide state (its built-in symbol
 * tables) alive: releasing the last one tears it down, and setting it up again costs
 * about 100 ms, so a program that compiles many shaders holds one. */
struct fmag_shader_compiler {
    shaderc_compiler_t sc;
};

/* No context to shf_report to: a failed allocation is the documented NULL. */
fmag_shader_compiler *fmag_shader_compiler_create(void)
{
    fmag_shader_compiler *c = calloc(1, sizeof *c);
    if (c && !(c->sc = shaderc_compiler_initialize())) {
        free(c);
        c = NULL;
    }
    return c;
}

void fmag_shader_compiler_destroy(fmag_shader_compiler *c)
{
    if (!c) return;
    shaderc_compiler_release(c->sc);
    free(c);
}

/* The front's own work between the two shaderc calls: the preprocessed text copied
 * (it is edited in place), tokenized, the signature scanned, and the text glslang
 * compiles (the user's text with main renamed, then the wrapper) built in `full`. It
 * runs inside a guard that holds no shaderc object, so an allocation failure unwinds
 * only memory the guard frees (docs/Reliability.md). */
typedef enum { BUILD_OOM, BUILD_DIAGNOSED, BUILD_OK } build_status;

struct front_build {
    front *f;
    const char *pp;
    strbuf text, full;
    unsigned nin, nout;
    build_status status;
};

static void front_build_thunk(void *arg)
{
    struct front_build *a = arg;
    front *f = a->f;
    a->status = BUILD_OOM;
    f->pp = fmag_tmp_malloc(f->pplen + 1);
    if (!f->pp) return;
    memcpy(f->pp, a->pp, f->pplen);
    f->pp[f->pplen] = 0;
    if (!shf_tokenize(f->pp, f->pplen, f->filename, &f->t)) return;
    if (!shf_braces_closed(f)) {
        a->status = BUILD_DIAGNOSED;
        return;
    }
    if (!shf_collect_structs(f)) return;
    /* GLSL: the user's main() (if any) gives way to the generated one. `-entry main` of a
     * parameterless main means the same as no -entry. HLSL has no implicit entry: without
     * -entry a function called main is the entry. */
    bool ok;
    if (f->lang == FMAG_SOURCE_GLSL) {
        bool has_main = shf_find_main(f);
        if (!f->entry || !strcmp(f->entry, "main")) {
            f->entry = NULL;
            ok = shf_wrap_main(f, &a->text, &a->nin, &a->nout, has_main);
        } else {
            ok = shf_wrap_entry(f, &a->text, &a->nin, &a->nout);
        }
    } else {
        f->entry_implied = !f->entry;
        f->entry = f->entry ? f->entry : "main";
        ok = shf_wrap_entry(f, &a->text, &a->nin, &a->nout);
    }
    if (!ok) {
        a->status = BUILD_DIAGNOSED;
        return;
    }
    size_t nd = 0;
    fdef *defs = shf_call_graph(f, f->entry ? f->entry : "main", &nd);
    if (!defs) return;
    f->inline_calls = shf_inline_estimate(f, defs, nd);
    fmag_tmp_free(defs);
    if (f->lang == FMAG_SOURCE_HLSL && f->inline_calls > FRONT_HLSL_INLINE_MAX) {
        shf_front_error(f, 0,
                        "'%s' makes more than %d calls once its callees are inlined (each callee's "
                        "calls counted per call): glslang's HLSL legalization inlines them all "
                        "before FMAG's inline budget applies, and takes minutes past this",
                        f->entry, FRONT_HLSL_INLINE_MAX);
        a->status = BUILD_DIAGNOSED;
        return;
    }
    if (f->main_tok != SIZE_MAX) {
        shf_blank_tok(f, f->main_tok);
        if (!shf_add_edit(f, f->main_tok, "_fmag_umain")) return;
    }
    if (f->lang == FMAG_SOURCE_GLSL && !shf_vertex_outputs_private(f)) return;
    if (f->nedits) qsort(f->edits, f->nedits, sizeof *f->edits, shf_edit_cmp); /* NULL when none */
    size_t at = 0;
    for (size_t e = 0; e < f->nedits; e++) {
        shf_sb_put(&a->full, f->pp + at, f->edits[e].off - at);
        shf_sb_put(&a->full, f->edits[e].text, strlen(f->edits[e].text));
        at = f->edits[e].off;
    }
    shf_sb_put(&a->full, f->pp + at, f->pplen - at);
    shf_sb_put(&a->full, a->text.p, a->text.n);
    if (!a->full.oom) a->status = BUILD_OK;
}

/* The result's words, under the allocation policy like every other block. */
struct copy_words {
    const void *src;
    size_t bytes;
    uint32_t *words;
};

static void copy_words_thunk(void *arg)
{
    struct copy_words *a = arg;
    a->words = fmag_tmp_malloc(a->bytes ? a->bytes : 4);
    if (a->words) memcpy(a->words, a->src, a->bytes);
}

static void destroy_compiler(void *c)
{
    fmag_shader_compiler_destroy(c);
}

/* The compiler the context keeps through resets, made on first use (NULL when it
 * cannot be made: the compile then uses a temporary one). */
static fmag_shader_compiler *kept_compiler(fmag_context *ctx)
{
    fmag_shader_compiler *c = fmag_context_slot_get(ctx, FMAG_CONTEXT_SLOT_SHADER_COMPILER);
    if (!c && (c = fmag_shader_compiler_create()))
        fmag_context_slot_set(ctx, FMAG_CONTEXT_SLOT_SHADER_COMPILER, c, destroy_compiler);
    return c;
}

/* shaderc's objects (compiler, options, results) live outside the guards: glslang's
 * own allocations are C++ and outside the allocation hook, and a guard that unwound
 * past them would leak them. */
bool fmag_shader_to_spirv_opts(fmag_shader_compiler *compiler, fmag_context *ctx,
                               const char *filename, const char *src, size_t len,
                               fmag_source_language lang, const fmag_spirv_options *o,
                               fmag_shader_spirv *out)
{
    memset(out, 0, sizeof *out);
    /* A UTF-8 byte-order mark (Visual Studio saves HLSL with one): glslang takes it
     * for stray tokens. */
    size_t bom = fmag_text_bom_len(src, len);
    src += bom, len -= bom;
    if (!compiler) compiler = kept_compiler(ctx);
    front f;
    memset(&f, 0, sizeof f);
    f.ctx = ctx;
    f.filename = filename ? filename : "<input>";
    f.src = src;
    f.len = len;
    f.lang = lang;
    f.entry = o ? o->entry : NULL;
    f.include_dirs = o ? o->include_dirs : NULL;
    f.ninclude_dirs = o && o->include_dirs ? o->ninclude_dirs : 0;
    f.include_fn = o ? o->include_fn : NULL;
    f.include_user = o ? o->include_user : NULL;
    f.defines = o ? o->defines : NULL;
    f.ndefines = o && o->defines ? o->ndefines : 0;
    f.main_tok = SIZE_MAX;
    if (memchr(src, 0, len)) {
        shf_front_error(&f, 0, "the source contains a NUL byte");
        return false;
    }
    for (size_t k = 0; k < f.ndefines; k++) {
        const char *d = f.defines[k];
        size_t n = d ? strcspn(d, "=") : 0;
        bool ok = n && shf_is_ident_start(d[0]);
        for (size_t i = 1; ok && i < n; i++)
            ok = shf_is_ident_start(d[i]) || shf_is_digit(d[i]);
        if (!ok) {
            shf_front_error(&f, 0, "bad macro definition '%s' (expected NAME or NAME=VALUE)",
                            d ? d : "(null)");
            return false;
        }
    }
    shaderc_compiler_t comp = compiler ? compiler->sc : shaderc_compiler_initialize();
    shaderc_compile_options_t opts = comp ? make_options(&f, false) : NULL;
    if (!opts) {
        if (comp && !compiler) shaderc_compiler_release(comp);
        shf_front_error(&f, 0, "cannot start shaderc");
        return false;
    }
    unsigned user_lines = shf_count_lines(src, len);
    bool ok = false;
    struct front_build b;
    memset(&b, 0, sizeof b);
    b.f = &f;
    b.pp = src;
    shaderc_compilation_result_t res = NULL;
    char *nl_src = NULL; /* src with a final newline, for the preprocessor */
    f.pplen = len;
    if (shf_has_directive(src, len) && !shf_macros_bounded(&f, src, len)) goto done;
    if (f.ndefines || shf_has_directive(src, len)) {
        /* glslang refuses a directive on the last line without a newline ("'#pragma':
         * directive must end with a newline") where glslangValidator, and every other
         * compiler, takes it: the preprocessor gets the text with one (same lines). */
        if (len && src[len - 1] != '\n' && (nl_src = malloc(len + 1))) {
            memcpy(nl_src, src, len);
            nl_src[len] = '\n';
        }
        res = shaderc_compile_into_preprocessed_text(
            comp, nl_src ? nl_src : src, nl_src ? len + 1 : len, shaderc_fragment_shader,
            f.filename, "main", opts);
        if (!res) goto oom;
        if (shaderc_result_get_compilation_status(res) != shaderc_compilation_status_success) {
            shf_report(&f, shaderc_result_get_error_message(res), user_lines);
            goto done;
        }
        b.pp = shaderc_result_get_bytes(res);
        f.pplen = shaderc_result_get_length(res);
    }
    if (!fmag_context_guard(ctx, front_build_thunk, &b)) {
        /* Out of memory, diagnosed; the guard freed every block the front held. */
        f.pp = NULL;
        f.t.v = NULL;
        f.edits = NULL;
        f.structs = NULL;
        f.members = NULL;
        b.text.p = b.full.p = NULL;
        goto done;
    }
    if (res) shaderc_result_release(res);
    res = NULL;
    if (b.status == BUILD_DIAGNOSED) goto done;
    if (b.status == BUILD_OOM) goto oom;
    shaderc_compile_options_release(opts);
    opts = make_options(&f, true);
    if (!opts) goto oom;
    res = shaderc_compile_into_spv(comp, b.full.p, b.full.n, shaderc_fragment_shader, f.filename,
                                   lang == FMAG_SOURCE_GLSL ? "main" : "_fmag_entry", opts);
    out->generated = b.full.p;
    out->generated_len = b.full.n;
    b.full.p = NULL;
    if (!res) goto oom;
    if (shaderc_result_get_compilation_status(res) != shaderc_compilation_status_success) {
        shf_report(&f, shaderc_result_get_error_message(res), user_lines);
        goto done;
    }
    struct copy_words cw = {shaderc_result_get_bytes(res), shaderc_result_get_length(res), NULL};
    if (!fmag_context_guard(ctx, copy_words_thunk, &cw)) goto done;
    if (!cw.words) goto oom;
    out->words = cw.words;
    out->nwords = cw.bytes / 4;
    out->nin = b.nin;
    out->nout = b.nout;
    out->included = f.incl;
    out->nincluded = f.nincl;
    f.incl = NULL;
    f.nincl = 0;
    ok = true;
    goto done;
oom:
    shf_front_error(&f, 0, "out of memory");
done:
    if (res) shaderc_result_release(res);
    if (opts) shaderc_compile_options_release(opts);
    if (!compiler) shaderc_compiler_release(comp);
    free(nl_src);
    fmag_tmp_free(b.text.p);
    fmag_tmp_free(b.full.p);
    fmag_tmp_free(f.pp);
    fmag_tmp_free(f.t.v);
    fmag_tmp_free(f.edits);
    for (size_t k = 0; k < f.nincl; k++)
        free(f.incl[k].name), free(f.incl[k].text);
    free(f.incl);
    fmag_tmp_free(f.structs);
    fmag_tmp_free(f.members);
    if (!ok) fmag_shader_spirv_free(out);
    return ok;
}

#endif /* FMAG_HAVE_SHADERC */

/* The entry-only forms, for either build. */
bool fmag_shader_to_spirv(fmag_context *ctx, const char *filename, const char *src, size_t len,
                          fmag_source_language lang, const char *entry, fmag_shader_spirv *out)
{
    return fmag_shader_to_spirv_with(NULL, ctx, filename, src, len, lang, entry, out);
}

bool fmag_shader_to_spirv_with(fmag_shader_compiler *compiler, fmag_context *ctx,
                               const char *filename, const char *src, size_t len,
                               fmag_source_language lang, const char *entry, fmag_shader_spirv *out)
{
    fmag_spirv_options o = {.entry = entry};
    return fmag_shader_to_spirv_opts(compiler, ctx, filename, src, len, lang, &o, out);
}

/* The words and the generated text come from the library's scratch allocator
 * (Shaderc.c), so that the allocation policy and its fault-injection hook reach them;
 * the included files from malloc (shaderc calls the include callback, outside the
 * guards). */
void fmag_shader_spirv_free(fmag_shader_spirv *s)
{
    fmag_tmp_free(s->words);
    fmag_tmp_free(s->generated);
    for (size_t k = 0; k < s->nincluded; k++)
        free(s->included[k].name), free(s->included[k].text);
    free(s->included);
    memset(s, 0, sizeof *s);
}
