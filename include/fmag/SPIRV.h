/* FMAG SPIRV: a SPIR-V reader that builds an FMAG IR module from a SPIR-V binary
 * (SPEC §5b). The engine-facing entry point: an application that already has
 * SPIR-V words calls fmag_spirv_import and needs nothing but lib/IR and lib/Math:
 * plain C, no shaderc, glslang or C++ runtime (GLSL and HLSL source is lib/Shader's
 * job, include/fmag/Shader.h).
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

/* Where a module came from (fmag_spirv_options::origin). */
typedef enum fmag_spirv_origin {
    FMAG_SPIRV_ORIGIN_SPIRV = 0, /* a SPIR-V binary as given */
    FMAG_SPIRV_ORIGIN_GLSL,      /* made from GLSL by lib/Shader */
    FMAG_SPIRV_ORIGIN_HLSL,      /* made from HLSL by lib/Shader */
} fmag_spirv_origin;

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
    /* GLSL/HLSL #include (the GLSL and HLSL calls of Shader.h): `#include "x"` is looked for
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
    /* The language the module was compiled from, for the wording of diagnostics
     * (docs/SPIRV.md, "Diagnostics"): FMAG_SPIRV_ORIGIN_SPIRV (0) names the SPIR-V
     * instruction first; a GLSL or HLSL front end (lib/Shader) sets its language. */
    fmag_spirv_origin origin;
    /* The entry point's interface as its producer declared it (lib/Shader's generated
     * entry point): one float Input variable at each location 0..declared_inputs-1 and
     * one float Output at each 0..declared_outputs-1. SPIRV-Tools removes the variables
     * a program never reads or writes; a location left without one is still an input
     * (nothing reads it) or an output (it reads 0), so the program keeps the interface
     * SPEC §5b gives it. Any other Input or Output variable is an error; at most 60000
     * each, as for any interface. */
    bool declared_interface;
    unsigned declared_inputs, declared_outputs;
} fmag_spirv_options;

/* Builds an IR module with one export function (the program) from the SPIR-V
 * module words[0..nwords-1] (either byte order). Other functions reached by calls
 * stay separate IR functions (the -inline pass inlines them); loops stay loops
 * (-loop-unroll removes them). Returns NULL with diagnostics in ctx on malformed
 * input and on anything FMAG cannot run; never reads outside `words`, never
 * aborts. opts may be NULL. */
fmag_module *fmag_spirv_import(fmag_context *ctx, const uint32_t *words, size_t nwords,
                               const fmag_spirv_options *opts);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_SPIRV_H */
