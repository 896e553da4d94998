/* FMAG SPIRV: a SPIR-V reader that builds an FMAG IR module from a SPIR-V binary
 * (SPEC §5b). The engine-facing entry point: an application that already has
 * SPIR-V words calls fmag_spirv_import and needs nothing but lib/IR and lib/Math.
 *
 * Every SPIR-V value is scalarized (vectors component by component, matrices
 * column by column, arrays element by element, structs member by member); bools
 * are the IR's 1.0 / 0.0. docs/SPIRV.md says what is accepted and what is a
 * diagnostic.
 */
#ifndef FMAG_SPIRV_H
#define FMAG_SPIRV_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fmag/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The context slot (Context.h) where the GLSL/HLSL front keeps its shaderc compiler
 * through fmag_context_reset (see fmag_shader_compiler below). */
#define FMAG_CONTEXT_SLOT_SHADER_COMPILER "fmag.spirv.shader-compiler"

/* An embedder's #include resolver (GLSL/HLSL: fmag_spirv_options, fmag_compile_options),
 * for shaders that live in its own file system or in memory. Called with the name as
 * written, the including file's name (the source's filename, or what this resolver
 * gave as *resolved), and whether it was written "quoted" (false for <angled>; glslang
 * asks again unquoted for a quoted name not found). On success it sets *text and *len
 * and optionally *resolved (the name nested includes and diagnostics use; NULL: the
 * name as written), both allocated with malloc (the library frees them), and returns
 * true; false: not found here (the include directories are tried next). Called from
 * the compiling thread only. fmag.h declares the same type under the same guard. */
#ifndef FMAG_INCLUDE_FN_DEFINED
#define FMAG_INCLUDE_FN_DEFINED
typedef bool (*fmag_include_fn)(void *user, const char *name, const char *includer, bool quoted,
                                char **text, size_t *len, char **resolved);
#endif

/* How a pointer parameter of the entry function passes data (GLSL in/out/inout). */
typedef enum fmag_spirv_param_qual {
    FMAG_SPIRV_PARAM_AUTO = 0, /* decided from how the body uses it (docs/SPIRV.md) */
    FMAG_SPIRV_PARAM_IN,
    FMAG_SPIRV_PARAM_OUT,
    FMAG_SPIRV_PARAM_INOUT,
} fmag_spirv_param_qual;

typedef struct fmag_spirv_options {
    /* NULL: the module's entry point named "main" (or its only entry point), whose
     * Input and uniform variables are the inputs and whose Output variables are the
     * outputs. Otherwise the name of an entry point (same interface) or of a
     * function (OpName, with or without glslang's "(...;" mangling; the first
     * one in the module): its parameters are the interface. */
    const char *entry;
    const char *filename; /* for diagnostics without OpLine; NULL = "<spirv>" */
    bool fastmath;        /* marks the module fastmath; builtins pick short forms */
    /* Optional qualifiers of the entry function's parameters, in order, as the
     * source declared them (a front end knows them; SPIR-V does not say). */
    const fmag_spirv_param_qual *param_quals;
    size_t nparam_quals;
    /* With a function entry: the Input and uniform variables the function reads
     * become extra inputs after its parameters (otherwise reading one is an
     * error, since the function's inputs are its parameters). */
    bool globals_as_inputs;
    /* GLSL/HLSL #include (the GLSL and HLSL calls below): `#include "x"` is looked for
     * beside the including file (the source's filename for the top level), then in
     * these directories in order; `#include <x>` in these directories only. */
    const char *const *include_dirs;
    size_t ninclude_dirs;
    fmag_include_fn include_fn; /* tried before the directories (above); NULL: none */
    void *include_user;
    /* GLSL/HLSL: macros defined before the text, each "NAME" (defined as 1, as -D NAME
     * does) or "NAME=VALUE": an engine's shader permutations. */
    const char *const *defines;
    size_t ndefines;
} fmag_spirv_options;

/* Builds an IR module with one export function (the program) from the SPIR-V
 * module words[0..nwords-1] (either byte order). Other functions reached by calls
 * stay separate IR functions (the -inline pass inlines them); loops stay loops
 * (-loop-unroll removes them). Returns NULL with diagnostics in ctx on malformed
 * input and on anything FMAG cannot run; never reads outside `words`, never
 * aborts. opts may be NULL. */
fmag_module *fmag_spirv_import(fmag_context *ctx, const uint32_t *words, size_t nwords,
                               const fmag_spirv_options *opts);

/* ------------------------------------------------ GLSL and HLSL (lib/SPIRV/Shaderc.c)
 * Source text to SPIR-V through shaderc (glslang + SPIRV-Tools' optimizer), built when
 * CMake finds them (FMAG_HAVE_SHADERC). The SPIR-V has one entry point whose interface
 * is the program's: float Input variables at locations 0..nin-1 and float Output
 * variables at locations 0..nout-1, one per scalar, in the order of SPEC §5b. */

typedef enum fmag_source_language {
    FMAG_SOURCE_GLSL,
    FMAG_SOURCE_HLSL,
} fmag_source_language;

/* A file #include read: the name glslang's #line directives give it, and its text as
 * read (malloc'ed). */
typedef struct fmag_shader_file {
    char *name, *text;
    size_t len;
} fmag_shader_file;

typedef struct fmag_shader_spirv {
    uint32_t *words; /* the legalized module (fmag_shader_spirv_free frees it) */
    size_t nwords;
    unsigned nin, nout; /* scalar inputs and outputs of the entry point */
    char *generated;    /* the text glslang compiled: preprocessed source + wrapper */
    size_t generated_len;
    /* The files #include read, for the quoted lines of diagnostics in them (the import
     * gives each its OpSource). */
    fmag_shader_file *included;
    size_t nincluded;
} fmag_shader_spirv;

/* Whether this build has GLSL/HLSL input (shaderc and SPIRV-Tools were found). */
bool fmag_shader_input_available(void);
const char *fmag_source_language_name(fmag_source_language lang);

/* Compiles `src` (GLSL or HLSL) to SPIR-V. entry: the function that becomes the program
 * (SPEC §5b: inputs its in/inout parameters, outputs its result then its out/inout
 * parameters, all scalarized), or NULL for main() (GLSL: inputs the global `in` and
 * non-opaque `uniform` variables, outputs the global `out` variables, in declaration
 * order; HLSL: the function named main). A GLSL file needs no #version (450 is used) and
 * no main. On failure records diagnostics (glslang's keep the user's file:line) in ctx
 * and returns false. Free the result with fmag_shader_spirv_free. An allocation failure
 * of the library's own memory is an "out of memory" diagnostic and false (glslang's
 * own C++ allocations are outside the allocation hook); call it outside
 * fmag_context_guard, since a guard that unwound past it would leak shaderc's objects. */
bool fmag_shader_to_spirv(fmag_context *ctx, const char *filename, const char *src, size_t len,
                          fmag_source_language lang, const char *entry, fmag_shader_spirv *out);
void fmag_shader_spirv_free(fmag_shader_spirv *s);

/* A shaderc compiler kept between compiles. Releasing glslang's last compiler tears
 * down its process-wide built-in tables (about 100 ms to set up again), so the calls
 * without _with (and the _with calls given NULL) use one that the context keeps
 * through fmag_context_reset (FMAG_CONTEXT_SLOT_SHADER_COMPILER), made on the context's first
 * GLSL/HLSL compile. Passing one of your own to the _with calls shares it between contexts of one
 * thread. Not shared between threads. NULL when built without shaderc. */
typedef struct fmag_shader_compiler fmag_shader_compiler;
fmag_shader_compiler *fmag_shader_compiler_create(void);
void fmag_shader_compiler_destroy(fmag_shader_compiler *c);
bool fmag_shader_to_spirv_with(fmag_shader_compiler *c, fmag_context *ctx, const char *filename,
                               const char *src, size_t len, fmag_source_language lang,
                               const char *entry, fmag_shader_spirv *out);
/* The same with opts->entry and opts->include_dirs (the other options are the
 * reader's); opts may be NULL. */
bool fmag_shader_to_spirv_opts(fmag_shader_compiler *c, fmag_context *ctx, const char *filename,
                               const char *src, size_t len, fmag_source_language lang,
                               const fmag_spirv_options *opts, fmag_shader_spirv *out);

/* Source to an unoptimized IR module: fmag_shader_to_spirv (opts->entry picks the
 * program as above) then fmag_spirv_import of the generated entry point. The export
 * function is named after the entry (or "main"). opts->fastmath as for SL; the other
 * options are the wrapper's business and ignored. NULL with diagnostics in ctx. */
fmag_module *fmag_glsl_import(fmag_context *ctx, const char *filename, const char *src, size_t len,
                              fmag_source_language lang, const fmag_spirv_options *opts);
fmag_module *fmag_glsl_import_with(fmag_shader_compiler *c, fmag_context *ctx, const char *filename,
                                   const char *src, size_t len, fmag_source_language lang,
                                   const fmag_spirv_options *opts);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_SPIRV_H */
