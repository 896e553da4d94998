/* slc: the shading language compiler driver (SPEC §5, §5b). An option table over the
 * compile driver, fmag_compile_ex (lib/API): the flags become compile options (the
 * stage to stop after, what to emit), and the bytes it returns go to the output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "Options.h"

_Static_assert(FMAG_DEFAULT_INLINE_BUDGET == 200000u, "-inline-budget's help text says 200000");
_Static_assert(FMAG_UNROLL_DEFAULT_BUDGET == 100000u, "-unroll-budget's help text says 100000");

static const fmag_tool slc_tool = {
    "slc",
    "usage: slc [options] <input.sl | input.glsl/.frag/.vert/.comp | input.hlsl |\n"
    "                      input.spv | input.mtlx | ->\n"
    "\n"
    "Compiles a shading-language file. Each export function becomes one program;\n"
    "by default the .fmag binary is written beside the input (x.sl -> x.fmag).\n"
    "A SPIR-V binary (.spv) becomes one program: its entry point main, or the\n"
    "function -entry names (docs/SPIRV.md). GLSL and HLSL files are compiled\n"
    "unchanged through shaderc: the program is -entry NAME (its in/inout\n"
    "parameters are the inputs; its result and out/inout parameters the\n"
    "outputs) or main() with the global in/uniform and out variables.\n"
    "A MaterialX document (.mtlx) gives one program per graph output\n"
    "(-entry GRAPH/OUTPUT picks one; docs/MaterialX.md).\n"
    "\n"
    "options:\n",
    NULL, NULL};

typedef struct str_list {
    const char *v[256];
    size_t n;
} str_list;

/* What the command line asks for. */
typedef struct slc_args {
    unsigned long long inline_budget, unroll_budget, error_limit;
    const char *input, *output, *level, *lang, *emit_prefix, *emit_name, *entry;
    const char *derivs; /* -derivs=NAMES */
    bool emit_asm, emit_ir, emit_spirv, fastmath, fast_lowering, nan_agnostic;
    str_list include_dirs, defines; /* -I, -D */
} slc_args;

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

/* -O0, -O1, -O2: the pipeline of that name. */
static bool opt_level(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)tool, (void)value;
    *(const char **)dest = spelling + strspn(spelling, "-");
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

/* The language -x names (AUTO without -x); false for a name slc does not take. */
static bool language_of(const char *x, fmag_language *lang)
{
    static const char *const names[] = {[FMAG_LANG_SL] = "sl",
                                        [FMAG_LANG_GLSL] = "glsl",
                                        [FMAG_LANG_HLSL] = "hlsl",
                                        [FMAG_LANG_SPIRV] = "spirv",
                                        [FMAG_LANG_MTLX] = "mtlx"};
    *lang = FMAG_LANG_AUTO;
    for (unsigned k = 0; x && k < sizeof names / sizeof *names; k++)
        if (names[k] && !strcmp(x, names[k])) *lang = (fmag_language)k;
    return !x || *lang != FMAG_LANG_AUTO;
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

static bool has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && !strcmp(path + n - e, ext);
}

/* Without -x, the language of the input: what the library tells from the content,
 * the name and a guess (FMAG_LANG_AUTO's rule, so `#version` text under any name is
 * GLSL); where it tells nothing (data under a shader's name), the extension. A .fir,
 * .fmas or .fmag file is named with the tool that takes it (with -x, only when its
 * content says so). -1 after an error. */
static int input_language(const slc_args *a, const char *src, size_t len, fmag_language *lang)
{
    fmag_vm_file_evidence ev;
    fmag_vm_file_kind fk = fmag_vm_file_kind_of(a->input, src, len, &ev);
    if ((fk == FMAG_VM_FILE_FIR || fk == FMAG_VM_FILE_FMAS || fk == FMAG_VM_FILE_FMAG) &&
        (!a->lang || ev == FMAG_VM_FILE_BY_CONTENT))
        return fmag_tool_wrong_kind(&slc_tool, a->input, fk, ev), -1;
    if (*lang == FMAG_LANG_AUTO) {
        static const fmag_language of_kind[] = {[FMAG_VM_FILE_SPIRV] = FMAG_LANG_SPIRV,
                                                [FMAG_VM_FILE_GLSL] = FMAG_LANG_GLSL,
                                                [FMAG_VM_FILE_HLSL] = FMAG_LANG_HLSL};
        const char *in = a->input;
        *lang = (size_t)fk < sizeof of_kind / sizeof *of_kind && of_kind[fk] ? of_kind[fk]
                : has_ext(in, ".glsl") || has_ext(in, ".frag") || has_ext(in, ".vert") ||
                        has_ext(in, ".comp")
                    ? FMAG_LANG_GLSL
                : has_ext(in, ".hlsl") ? FMAG_LANG_HLSL
                : has_ext(in, ".spv")  ? FMAG_LANG_SPIRV
                : has_ext(in, ".mtlx") ? FMAG_LANG_MTLX
                                       : FMAG_LANG_SL;
    }
    bool shader = *lang == FMAG_LANG_GLSL || *lang == FMAG_LANG_HLSL;
    if (shader && !fmag_have_language(*lang))
        return fmag_tool_error(&slc_tool, "built without GLSL/HLSL input (install "
                                          "libshaderc-dev and spirv-tools)"),
               -1;
    if (*lang == FMAG_LANG_MTLX && !fmag_have_language(*lang))
        return fmag_tool_error(&slc_tool, "built without MaterialX input (install libexpat1-dev)"),
               -1;
    if (a->emit_spirv && !shader)
        return fmag_tool_error(&slc_tool, "-emit-spirv needs GLSL or HLSL input"), -1;
    return 0;
}

/* Where the bytes go: -o, else beside the input for the binaries (.fmag, .spv), else
 * standard output. NULL after an error; *owned is what to free. */
static const char *output_path(const slc_args *a, bool shader, bool binary, char **owned)
{
    *owned = NULL;
    if (a->output || !binary) return a->output ? a->output : "-";
    if (!strcmp(a->input, "-")) {
        if (a->emit_spirv) return "-";
        fmag_tool_error(&slc_tool, "reading standard input needs -o FILE (or -S)");
        return NULL;
    }
    *owned = default_output(a->input, shader || a->emit_spirv, a->emit_spirv ? ".spv" : ".fmag");
    if (!*owned) fmag_tool_error(&slc_tool, "out of memory");
    if (*owned && fmag_tool_default_output_is_input(&slc_tool, a->input, *owned)) return NULL;
    return *owned;
}

/* The command line, as the option table below fills it in. */
static slc_args a = {.error_limit = FMAG_DEFAULT_ERROR_LIMIT, .level = "O2"};

static const fmag_option table[] = {
    {"-o", FMAG_OPT_NEXT, FMAG_OPT_STRING, &a.output, NULL, "FILE",
     "write the output to FILE ('-' = standard output)"},
    {"-S", 0, FMAG_OPT_FLAG, &a.emit_asm, NULL, NULL,
     "print the FMAG assembly (.fmas) instead of the binary"},
    {"--emit", FMAG_OPT_EQ, FMAG_OPT_STRING, &a.emit_name, NULL, "c|glsl|cuda",
     "print the stream as straight-line source instead"},
    {"--prefix", FMAG_OPT_EQ | FMAG_OPT_EMPTY_OK, FMAG_OPT_STRING, &a.emit_prefix, NULL, "P",
     "identifier prefix of that source (default fmag_baked_)"},
    {"--nan-agnostic", 0, FMAG_OPT_FLAG, &a.nan_agnostic, NULL, NULL,
     "--emit: a computed NaN keeps the hardware's payload (no\n"
     "canonical 0x7FC00000; faster); other results unchanged"},
    {"-emit-ir", 0, FMAG_OPT_FLAG, &a.emit_ir, NULL, NULL,
     "print the IR (.fir) before optimization"},
    {"-O0|-O1|-O2", 0, FMAG_OPT_CALL, &a.level, opt_level, NULL,
     "optimization level (default -O2; lowering always inlines\n"
     "and if-converts)"},
    {"-ffast-math", 0, FMAG_OPT_FLAG, &a.fastmath, NULL, NULL,
     "allow contraction and reassociation; shorter builtins"},
    {"-entry", FMAG_OPT_NEXT, FMAG_OPT_STRING, &a.entry, NULL, "NAME",
     "compile only the export NAME (SPIR-V, GLSL, HLSL: the\n"
     "function NAME; MaterialX: GRAPH/OUTPUT)"},
    {"-derivs", FMAG_OPT_EQ, FMAG_OPT_STRING, &a.derivs, NULL, "NAMES",
     "a program with derivatives takes them for these inputs\n"
     "only (comma-separated parameter names; default: every\n"
     "input; docs/Derivatives.md)"},
    {"-I", FMAG_OPT_NEXT | FMAG_OPT_GLUED, FMAG_OPT_CALL, &a.include_dirs, opt_append, "DIR",
     "GLSL/HLSL: look for #include files in DIR (after the\n"
     "including file's directory for \"name\"; repeatable, in order)"},
    {"-D", FMAG_OPT_NEXT | FMAG_OPT_GLUED, FMAG_OPT_CALL, &a.defines, opt_append, "NAME[=VALUE]",
     "GLSL/HLSL: define a macro (as 1 without a value), as glslc -D"},
    {"-x", FMAG_OPT_NEXT, FMAG_OPT_STRING, &a.lang, NULL, "LANG",
     "the input language: sl, glsl, hlsl, spirv or mtlx (default:\n"
     "the content (a SPIR-V binary, #version text), then the\n"
     "extension (.glsl .frag .vert .comp GLSL, .hlsl HLSL, .spv\n"
     "SPIR-V, .mtlx MaterialX), anything else SL; docs/Tools.md)"},
    {"-emit-spirv", 0, FMAG_OPT_FLAG, &a.emit_spirv, NULL, NULL,
     "GLSL/HLSL: write the SPIR-V glslang produced (with the\n"
     "generated entry point) instead of compiling it (x.spv\n"
     "beside the input unless -o)"},
    {"-lowering", FMAG_OPT_EQ | FMAG_OPT_EMPTY_OK, FMAG_OPT_CALL, &a.fast_lowering,
     fmag_opt_lowering, "fast|full",
     "register allocation effort (default full: the fewest\n"
     "instructions, then registers; fast: two schedules, no\n"
     "search, for compile latency, as a JIT would use it)"},
    {"-inline-budget", FMAG_OPT_EQ, FMAG_OPT_CALL, &a.inline_budget, fmag_opt_budget, "N",
     "most instructions of a function, and of the exports\n"
     "together, after inlining (default 200000; beyond it\nthe compile is an error)"},
    {"-unroll-budget", FMAG_OPT_EQ, FMAG_OPT_CALL, &a.unroll_budget, fmag_opt_budget, "N",
     "most instructions a function may reach by loop\n"
     "unrolling (default 100000; beyond it the compile is\nan error)"},
    {"-ferror-limit", FMAG_OPT_EQ | FMAG_OPT_EMPTY_OK, FMAG_OPT_CALL, &a.error_limit,
     fmag_opt_error_limit, "N", "stop after N errors (default 20; 0: no limit)"},
};

int main(int argc, char **argv)
{
    const fmag_opt_parser parser = {&slc_tool,  table, sizeof table / sizeof *table,
                                    take_input, NULL,  &a};
    int rc = fmag_opt_parse(&parser, argc, argv);
    if (rc != FMAG_OPT_RUN) return rc;
    fmag_compile_options o;
    fmag_compile_options_init(&o);
    fmag_vm_emit_lang emit_lang = FMAG_VM_EMIT_C;
    if (a.emit_name && !fmag_vm_emit_lang_parse(a.emit_name, &emit_lang))
        return fmag_tool_error(&slc_tool, "--emit wants c, glsl or cuda, not '%s'", a.emit_name);
    if (a.nan_agnostic && !a.emit_name)
        return fmag_tool_error(&slc_tool, "--nan-agnostic needs --emit");
    if (!a.input) return fmag_tool_error(&slc_tool, "no input file (see --help)");
    if (fmag_tool_output_is_input(&slc_tool, a.input, a.output)) return 1;
    if (!language_of(a.lang, &o.language))
        return fmag_tool_error(
            &slc_tool, "unknown language '%s' for -x (sl, glsl, hlsl, spirv, mtlx)", a.lang);
    size_t len;
    char *src = fmag_tool_read_file(&slc_tool, a.input, &len), *owned = NULL;
    if (!src || input_language(&a, src, len, &o.language) < 0) return free(src), 1;
    o.entry = a.entry, o.pipeline = a.level, o.fastmath = a.fastmath, o.derivs = a.derivs;
    o.fast_codegen = a.fast_lowering, o.emit_prefix = a.emit_prefix;
    o.emit_nan_agnostic = a.nan_agnostic;
    o.include_dirs = a.include_dirs.v, o.ninclude_dirs = a.include_dirs.n;
    o.defines = a.defines.v, o.ndefines = a.defines.n;
    static const fmag_emit of_lang[] = {FMAG_EMIT_C, FMAG_EMIT_GLSL, FMAG_EMIT_CUDA};
    o.stop_after = a.emit_spirv ? FMAG_STAGE_SPIRV
                   : a.emit_ir  ? FMAG_STAGE_IR
                                : FMAG_STAGE_PROGRAMS;
    o.emit = a.emit_spirv  ? FMAG_EMIT_SPIRV
             : a.emit_ir   ? FMAG_EMIT_FIR
             : a.emit_name ? of_lang[emit_lang]
             : a.emit_asm  ? FMAG_EMIT_FMAS
                           : FMAG_EMIT_FMAG;
    bool shader = o.language == FMAG_LANG_GLSL || o.language == FMAG_LANG_HLSL;
    fmag_context *ctx = fmag_context_create();
    fmag_context_set_error_limit(ctx, (unsigned)a.error_limit);
    fmag_context_set_inline_budget(ctx, (size_t)a.inline_budget);
    fmag_context_set_unroll_budget(ctx, (size_t)a.unroll_budget);
    fmag_compile_result r;
    const char *shown = strcmp(a.input, "-") ? a.input : "<stdin>", *path = NULL;
    rc = fmag_tool_compile(&slc_tool, ctx, shown, src, len, &o, &r) &&
                 (path =
                      output_path(&a, shader, o.emit == FMAG_EMIT_FMAG || a.emit_spirv, &owned)) &&
                 fmag_tool_write(&slc_tool, path, r.data, r.len)
             ? 0
             : 1;
    fmag_compile_result_free(&r);
    fmag_context_destroy(ctx);
    free(owned);
    free(src);
    return rc;
}
