/* slc: the shading language compiler driver (SPEC §5). A thin layer over
 * fmag_sl_compile, the pass pipelines, codegen and the .fmag/.fmas writers. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmag/Asm.h"
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/SL.h"
#ifdef FMAG_HAVE_SPIRV
#include "fmag/SPIRV.h"
#include "fmag/Shader.h"
#endif
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#include "Options.h"

_Static_assert(FMAG_DEFAULT_INLINE_BUDGET == 200000u, "-inline-budget's help text says 200000");
_Static_assert(FMAG_UNROLL_DEFAULT_BUDGET == 100000u, "-unroll-budget's help text says 100000");

static const fmag_tool slc_tool = {
    "slc",
    "usage: slc [options] <input.sl | input.glsl/.frag/.vert/.comp | input.hlsl |\n"
    "                      input.spv | ->\n"
    "\n"
    "Compiles a shading-language file. Each export function becomes one program;\n"
    "by default the .fmag binary is written beside the input (x.sl -> x.fmag).\n"
    "A SPIR-V binary (.spv) becomes one program: its entry point main, or the\n"
    "function -entry names (docs/SPIRV.md). GLSL and HLSL files are compiled\n"
    "unchanged through shaderc: the program is -entry NAME (its in/inout\n"
    "parameters are the inputs; its result and out/inout parameters the\n"
    "outputs) or main() with the global in/uniform and out variables.\n"
    "\n"
    "options:\n",
    NULL, NULL};

/* The input languages and the one place that tells them apart. */
typedef enum input_kind { INPUT_SL, INPUT_SPIRV, INPUT_GLSL, INPUT_HLSL, INPUT_UNKNOWN } input_kind;

static bool has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && !strcmp(path + n - e, ext);
}

/* From -x when given, else from the file name's extension. */
static input_kind input_kind_of(const char *path, const char *lang)
{
    if (lang) {
        if (!strcmp(lang, "glsl")) return INPUT_GLSL;
        if (!strcmp(lang, "hlsl")) return INPUT_HLSL;
        return !strcmp(lang, "sl")      ? INPUT_SL
               : !strcmp(lang, "spirv") ? INPUT_SPIRV
                                        : INPUT_UNKNOWN;
    }
    if (has_ext(path, ".glsl") || has_ext(path, ".frag") || has_ext(path, ".vert") ||
        has_ext(path, ".comp"))
        return INPUT_GLSL;
    if (has_ext(path, ".hlsl")) return INPUT_HLSL;
    return has_ext(path, ".spv") ? INPUT_SPIRV : INPUT_SL;
}

typedef struct str_list {
    const char *v[256];
    size_t n;
} str_list;

/* What the command line asks for. */
typedef struct slc_args {
    unsigned long long inline_budget, unroll_budget, error_limit;
    const char *input, *output, *level, *lang, *emit_prefix, *emit_name;
    bool emit_asm, emit_ir, emit_spirv, fastmath;
    const char *entry;
    fmag_codegen_options cg;
    str_list include_dirs, defines; /* -I, -D */
} slc_args;

/* The IR module of the input, or NULL with diagnostics in ctx (or printed here). */
static fmag_module *compile_input(fmag_context *ctx, input_kind kind, const char *shown,
                                  const char *src, size_t len, const fmag_sl_options *opts,
                                  const struct slc_args *a)
{
    if (kind == INPUT_SL) return fmag_sl_compile(ctx, shown, src, len, opts);
#ifdef FMAG_HAVE_SPIRV
    if (kind == INPUT_GLSL || kind == INPUT_HLSL) {
        fmag_spirv_options so;
        memset(&so, 0, sizeof so);
        so.entry = opts->entry;
        so.filename = shown;
        so.fastmath = opts->fastmath;
        so.include_dirs = a->include_dirs.v;
        so.ninclude_dirs = a->include_dirs.n;
        so.defines = a->defines.v;
        so.ndefines = a->defines.n;
        return fmag_glsl_import(ctx, shown, src, len,
                                kind == INPUT_GLSL ? FMAG_SOURCE_GLSL : FMAG_SOURCE_HLSL, &so);
    }
    if (len % 4) {
        fmag_context_error(ctx,
                           "%s: error: not a SPIR-V binary (%zu bytes is not a whole number "
                           "of 32-bit words)",
                           shown, len);
        return NULL;
    }
    uint32_t *words = malloc(len ? len : 4);
    if (!words) {
        fmag_context_error(ctx, "%s: error: out of memory", shown);
        return NULL;
    }
    memcpy(words, src, len);
    fmag_spirv_options so;
    memset(&so, 0, sizeof so);
    so.entry = opts->entry;
    so.filename = shown;
    so.fastmath = opts->fastmath;
    fmag_module *m = fmag_spirv_import(ctx, words, len / 4, &so);
    free(words);
    return m;
#else
    (void)src;
    (void)len;
    (void)opts;
    (void)a;
    fmag_context_error(ctx, "%s: error: slc was built without SPIR-V input (spirv-headers)", shown);
    return NULL;
#endif
}

/* A repeatable option (-I, -D): its values in order. */
static bool opt_append(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    str_list *l = dest;
    if (l->n == sizeof l->v / sizeof l->v[0]) {
        fmag_tool_error(tool, "more than %zu %s options", l->n, spelling);
        return false;
    }
    l->v[l->n++] = value;
    return true;
}

/* "-name=N" with N a decimal count below 2^32; false (and a message) otherwise. */
static bool count_value(const fmag_tool *tool, const char *spelling, const char *value,
                        unsigned long long *out)
{
    return fmag_opt_uint_value(tool, spelling, value, 0, 0xFFFFFFFFull, out);
}

/* -inline-budget=N, -unroll-budget=N: 1 or more (the API's 0 means "the default",
 * which the flag's absence says). */
static bool opt_budget(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    return fmag_opt_uint_value(tool, spelling, value, 1, SIZE_MAX, dest);
}

static bool opt_error_limit(const fmag_tool *tool, void *dest, const char *spelling,
                            const char *value)
{
    return count_value(tool, spelling, value, &((slc_args *)dest)->error_limit);
}

static bool opt_lowering(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)spelling;
    if (strcmp(value, "fast") && strcmp(value, "full")) {
        fmag_tool_error(tool, "-lowering wants 'fast' or 'full', not '%s'", value);
        return false;
    }
    ((slc_args *)dest)->cg.effort = value[1] == 'a' ? FMAG_CODEGEN_FAST : FMAG_CODEGEN_FULL;
    return true;
}

/* -O0, -O1, -O2: the pipeline of that name. */
static bool opt_level(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)tool, (void)value;
    ((slc_args *)dest)->level = spelling + strspn(spelling, "-");
    return true;
}

static bool take_input(const fmag_tool *tool, void *user, const char *arg)
{
    slc_args *a = user;
    if (a->input) {
        fmag_tool_error(tool, "more than one input file ('%s' and '%s')", a->input, arg);
        return false;
    }
    a->input = arg;
    return true;
}

/* The output beside the input: x.sl, x.spv and (shaders) x.glsl, x.frag ... lose their
 * extension and get `ext`. NULL when out of memory. */
static char *default_output(const char *input, bool shader, const char *ext)
{
    size_t n = strlen(input);
    char *path = malloc(n + strlen(ext) + 1);
    if (!path) return NULL;
    memcpy(path, input, n + 1);
    if (n > 3 && !strcmp(path + n - 3, ".sl")) path[n - 3] = 0;
    if (n > 4 && !strcmp(path + n - 4, ".spv")) path[n - 4] = 0;
    if (shader) {
        char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
        if (dot && (!slash || dot > slash)) *dot = 0;
    }
    strcat(path, ext);
    return path;
}

int main(int argc, char **argv)
{
    slc_args a = {0};
    a.error_limit = FMAG_DEFAULT_ERROR_LIMIT;
    a.level = "O2";
    a.cg.effort = FMAG_CODEGEN_FULL;
    const fmag_option table[] = {
        {"-o", FMAG_OPT_NEXT, FMAG_OPT_STRING, &a.output, NULL, "FILE",
         "write the output to FILE ('-' = standard output)"},
        {"-S", 0, FMAG_OPT_FLAG, &a.emit_asm, NULL, NULL,
         "print the FMAG assembly (.fmas) instead of the binary"},
        {"--emit", FMAG_OPT_EQ, FMAG_OPT_STRING, &a.emit_name, NULL, "c|glsl|cuda",
         "print the stream as straight-line source instead"},
        {"--prefix", FMAG_OPT_EQ | FMAG_OPT_EMPTY_OK, FMAG_OPT_STRING, &a.emit_prefix, NULL, "P",
         "identifier prefix of that source (default fmag_baked_)"},
        {"-emit-ir", 0, FMAG_OPT_FLAG, &a.emit_ir, NULL, NULL,
         "print the IR (.fir) before optimization"},
        {"-O0|-O1|-O2", 0, FMAG_OPT_CALL, &a, opt_level, NULL,
         "optimization level (default -O2; lowering always inlines\n"
         "and if-converts)"},
        {"-ffast-math", 0, FMAG_OPT_FLAG, &a.fastmath, NULL, NULL,
         "allow contraction and reassociation; shorter builtins"},
        {"-entry", FMAG_OPT_NEXT, FMAG_OPT_STRING, &a.entry, NULL, "NAME",
         "compile only the export NAME (SPIR-V, GLSL, HLSL: the\n"
         "function NAME)"},
        {"-I", FMAG_OPT_NEXT | FMAG_OPT_GLUED, FMAG_OPT_CALL, &a.include_dirs, opt_append, "DIR",
         "GLSL/HLSL: look for #include files in DIR (after the\n"
         "including file's directory for \"name\"; repeatable, in order)"},
        {"-D", FMAG_OPT_NEXT | FMAG_OPT_GLUED, FMAG_OPT_CALL, &a.defines, opt_append,
         "NAME[=VALUE]", "GLSL/HLSL: define a macro (as 1 without a value), as glslc -D"},
        {"-x", FMAG_OPT_NEXT, FMAG_OPT_STRING, &a.lang, NULL, "LANG",
         "the input language: sl, glsl, hlsl or spirv (default: the\n"
         "content (a SPIR-V binary, #version text), then the extension\n"
         "(.glsl .frag .vert .comp GLSL, .hlsl HLSL, .spv SPIR-V),\n"
         "anything else SL; docs/Tools.md)"},
        {"-emit-spirv", 0, FMAG_OPT_FLAG, &a.emit_spirv, NULL, NULL,
         "GLSL/HLSL: write the SPIR-V glslang produced (with the\n"
         "generated entry point) instead of compiling it (x.spv\n"
         "beside the input unless -o)"},
        {"-lowering", FMAG_OPT_EQ | FMAG_OPT_EMPTY_OK, FMAG_OPT_CALL, &a, opt_lowering, "fast|full",
         "register allocation effort (default full: the fewest\n"
         "instructions, then registers; fast: two schedules, no\n"
         "search, for compile latency, as a JIT would use it)"},
        {"-inline-budget", FMAG_OPT_EQ, FMAG_OPT_CALL, &a.inline_budget, opt_budget, "N",
         "most instructions of a function, and of the exports\n"
         "together, after inlining (default 200000; beyond it\nthe compile is an error)"},
        {"-unroll-budget", FMAG_OPT_EQ, FMAG_OPT_CALL, &a.unroll_budget, opt_budget, "N",
         "most instructions a function may reach by loop\n"
         "unrolling (default 100000; beyond it the compile is\nan error)"},
        {"-ferror-limit", FMAG_OPT_EQ | FMAG_OPT_EMPTY_OK, FMAG_OPT_CALL, &a, opt_error_limit, "N",
         "stop after N errors (default 20; 0: no limit)"},
    };
    const fmag_opt_parser parser = {&slc_tool,  table, sizeof table / sizeof *table,
                                    take_input, NULL,  &a};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    const char *input = a.input, *output = a.output, *level = a.level, *lang = a.lang;
    bool emit_asm = a.emit_asm, emit_ir = a.emit_ir, emit_spirv = a.emit_spirv;
    bool emit_src = a.emit_name != NULL;
    const char *emit_prefix = a.emit_prefix;
    unsigned long long inline_budget = a.inline_budget, error_limit = a.error_limit;
    fmag_vm_emit_lang emit_lang = FMAG_VM_EMIT_C;
    if (emit_src && !fmag_vm_emit_lang_parse(a.emit_name, &emit_lang))
        return fmag_tool_error(&slc_tool, "--emit wants c, glsl or cuda, not '%s'", a.emit_name);
    fmag_sl_options opts = {a.fastmath, a.entry};
    fmag_codegen_options cg = a.cg;
    if (!input) {
        fmag_tool_error(&slc_tool, "no input file (see --help)");
        return 1;
    }
    if (fmag_tool_output_is_input(&slc_tool, input, output)) return 1;
    input_kind kind = input_kind_of(input, lang);
    if (kind == INPUT_UNKNOWN) {
        fmag_tool_error(&slc_tool, "unknown language '%s' for -x (sl, glsl, hlsl, spirv)", lang);
        return 1;
    }
    size_t len;
    char *src = fmag_tool_read_file(&slc_tool, input, &len);
    if (!src) return 1;
    const char *shown = strcmp(input, "-") ? input : "<stdin>";
    /* A .fir, .fmas or .fmag file is named with the tool that takes it (with -x, only
     * when its content says so); a SPIR-V binary is SPIR-V by its magic whatever its
     * name, unless -x says otherwise. */
    fmag_vm_file_evidence ev;
    fmag_vm_file_kind fk = fmag_vm_file_kind_of(input, src, len, &ev);
    if ((fk == FMAG_VM_FILE_FIR || fk == FMAG_VM_FILE_FMAS || fk == FMAG_VM_FILE_FMAG) &&
        (!lang || ev == FMAG_VM_FILE_BY_CONTENT)) {
        free(src);
        return fmag_tool_wrong_kind(&slc_tool, input, fk, ev);
    }
    /* Without -x the language is the library's answer (as fmag_compile's FMAG_LANG_AUTO):
     * the content, the extension, then a guess, so that `#version` text under any name
     * or on standard input is GLSL; text of no known kind is SL. */
    if (!lang && fk == FMAG_VM_FILE_SPIRV && ev == FMAG_VM_FILE_BY_CONTENT) kind = INPUT_SPIRV;
    if (!lang && fk == FMAG_VM_FILE_GLSL) kind = INPUT_GLSL;
    if (!lang && fk == FMAG_VM_FILE_HLSL) kind = INPUT_HLSL;
    bool shader = kind == INPUT_GLSL || kind == INPUT_HLSL;
#ifdef FMAG_HAVE_SPIRV
    bool have_shader = fmag_shader_input_available();
#else
    bool have_shader = false;
#endif
    if (shader && !have_shader) {
        free(src);
        return fmag_tool_error(&slc_tool, "built without GLSL/HLSL input (install "
                                          "libshaderc-dev and spirv-tools)");
    }
    if (emit_spirv && !shader) {
        free(src);
        fmag_tool_error(&slc_tool, "-emit-spirv needs GLSL or HLSL input");
        return 1;
    }
    fmag_context *ctx = fmag_context_create();
    fmag_context_set_error_limit(ctx, (unsigned)error_limit);
    fmag_context_set_inline_budget(ctx, (size_t)inline_budget);
    fmag_context_set_unroll_budget(ctx, (size_t)a.unroll_budget);
    int rc = 1;
    FILE *out = NULL;
    fmag_vm_image img;
    fmag_vm_image_init(&img);
#ifdef FMAG_HAVE_SPIRV
    if (emit_spirv) {
        fmag_shader_spirv spv;
        fmag_spirv_options so;
        memset(&so, 0, sizeof so);
        so.entry = opts.entry;
        so.include_dirs = a.include_dirs.v;
        so.ninclude_dirs = a.include_dirs.n;
        so.defines = a.defines.v;
        so.ndefines = a.defines.n;
        if (!fmag_shader_to_spirv_opts(NULL, ctx, shown, src, len,
                                       kind == INPUT_GLSL ? FMAG_SOURCE_GLSL : FMAG_SOURCE_HLSL,
                                       &so, &spv)) {
            fmag_tool_print_diags(&slc_tool, ctx);
            goto done;
        }
        /* Binary: beside the input by default, as the .fmag (standard output with -o -). */
        char *def = output || !strcmp(input, "-") ? NULL : default_output(input, true, ".spv");
        const char *to = output ? output : def ? def : "-";
        if (def && fmag_tool_default_output_is_input(&slc_tool, input, def)) {
            fmag_shader_spirv_free(&spv);
            free(def);
            goto done;
        }
        out = strcmp(to, "-") ? fopen(to, "wb") : stdout;
        if (!out)
            fmag_tool_error(&slc_tool, "cannot write '%s'", to);
        else if (fwrite(spv.words, 4, spv.nwords, out) != spv.nwords)
            fmag_tool_error(&slc_tool, "cannot write the SPIR-V");
        else
            rc = 0;
        fmag_shader_spirv_free(&spv);
        free(def);
        goto done;
    }
#endif
    fmag_module *m = compile_input(ctx, kind, shown, src, len, &opts, &a);
    if (!m) {
        fmag_tool_print_diags(&slc_tool, ctx);
        goto done;
    }
    bool any_export = false;
    fmag_foreach_func (f, m)
        any_export |= f->is_export;
    if (!any_export) {
        fprintf(stderr, "%s: error: no export function: nothing to compile\n", shown);
        goto done;
    }
    if (emit_ir) {
        out = output && strcmp(output, "-") ? fopen(output, "w") : stdout;
        if (!out) {
            fmag_tool_error(&slc_tool, "cannot write '%s'", output);
            goto done;
        }
        fmag_module_print(m, out, FMAG_PRINT_DEFAULT);
        rc = 0;
        goto done;
    }
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    if (!fmag_run_passes(m, level, &po) || !fmag_prepare_codegen(m, &po)) {
        fmag_tool_print_diags(&slc_tool, ctx);
        goto done;
    }
    if (!fmag_codegen_module_with(m, &img, &cg)) {
        fmag_tool_print_diags(&slc_tool, ctx);
        goto done;
    }
    char err[256];
    if (emit_src) { /* --emit=c|glsl|cuda: the stream as straight-line source */
        const fmag_vm_program **ps = malloc((img.nprograms + 1) * sizeof *ps);
        char *txt = NULL;
        size_t tlen = 0;
        for (size_t i = 0; ps && i < img.nprograms; i++)
            ps[i] = &img.programs[i];
        out = output && strcmp(output, "-") ? fopen(output, "w") : stdout;
        if (!ps || !out ||
            !fmag_vm_emit_source(ps, img.nprograms, emit_lang, emit_prefix, &txt, &tlen, err,
                                 sizeof err))
            fmag_tool_error(&slc_tool, "%s",
                            !ps   ? "out of memory"
                            : out ? err
                                  : "cannot write the output file");
        else
            rc = fwrite(txt, 1, tlen, out) == tlen ? 0 : 1;
        free(ps);
        free(txt);
        goto done;
    }
    if (emit_asm) {
        out = output && strcmp(output, "-") ? fopen(output, "w") : stdout;
        if (!out) {
            fmag_tool_error(&slc_tool, "cannot write '%s'", output);
            goto done;
        }
        fmag_asm_print_image(&img, out);
        rc = 0;
        goto done;
    }
    char *path = NULL;
    if (output) {
        size_t n = strlen(output);
        path = malloc(n + 1);
        if (path) memcpy(path, output, n + 1);
    } else {
        if (!strcmp(input, "-")) {
            fmag_tool_error(&slc_tool, "reading standard input needs -o FILE (or -S)");
            goto done;
        }
        path = default_output(input, shader, ".fmag");
        if (path && fmag_tool_default_output_is_input(&slc_tool, input, path)) {
            free(path);
            goto done;
        }
    }
    if (path && !strcmp(path, "-")) {
        void *data;
        size_t dlen;
        if (fmag_vm_image_write(&img, &data, &dlen, err, sizeof err)) {
            rc = fwrite(data, 1, dlen, stdout) == dlen ? 0 : 1;
            free(data);
        } else {
            fmag_tool_error(&slc_tool, "%s", err);
        }
    } else if (!path || !fmag_vm_image_save(&img, path, err, sizeof err)) {
        fmag_tool_error(&slc_tool, "%s", path ? err : "out of memory");
    } else {
        rc = 0;
    }
    free(path);
done:
    if (out && out != stdout && fclose(out) != 0) rc = 1;
    fmag_vm_image_free(&img);
    fmag_context_destroy(ctx);
    free(src);
    return rc;
}
