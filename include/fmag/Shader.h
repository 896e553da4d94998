/* FMAG Shader: GLSL and HLSL source to an FMAG IR module (SPEC §5b), the front end
 * over the SPIR-V reader (SPIRV.h). Source text goes to SPIR-V through shaderc
 * (glslang and SPIRV-Tools' optimizer, C++ libraries) when CMake finds them
 * (FMAG_HAVE_SHADERC); the reader then builds the module. This is the only FMAG
 * library that links C++ code: an engine that has SPIR-V words links fmagSPIRV alone.
 * docs/SPIRV.md, "GLSL and HLSL: the front door".
 */
#ifndef FMAG_SHADER_H
#define FMAG_SHADER_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fmag/IR.h"
#include "fmag/SPIRV.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Source text to SPIR-V through shaderc (glslang + SPIRV-Tools' optimizer), built when
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
/* Why this build has no GLSL/HLSL input, in words for a diagnostic (what to install, or
 * that the single header fmag.h cannot hold the C++ front); NULL when it has it. */
const char *fmag_shader_input_missing(void);
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
 * through fmag_context_reset (IR.h's slots), made on the context's first GLSL/HLSL
 * compile. Passing one of your own to the _with calls shares it between contexts of
 * one thread. Not shared between threads. NULL when built without shaderc. */
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
#endif /* FMAG_SHADER_H */
