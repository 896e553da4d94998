/* FMAG SPIR-V input (SPEC §5b). */
#ifndef FMAG_SPIRV_H
#define FMAG_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fmag/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ GLSL and HLSL (lib/SPIRV/Shaderc.c)
 * Source text to SPIR-V through shaderc (glslang + SPIRV-Tools' optimizer), built when
 * CMake finds them (FMAG_HAVE_SHADERC). The SPIR-V has one entry point whose interface
 * is the program's: float Input variables at locations 0..nin-1 and float Output
 * variables at locations 0..nout-1, one per scalar, in the order of SPEC §5b. */

typedef enum fmag_source_language {
    FMAG_SOURCE_GLSL,
    FMAG_SOURCE_HLSL,
} fmag_source_language;

typedef struct fmag_shader_spirv {
    uint32_t *words; /* the legalized module (malloc'd) */
    size_t nwords;
    unsigned nin, nout; /* scalar inputs and outputs of the entry point */
    char *generated;    /* the text glslang compiled: preprocessed source + wrapper */
    size_t generated_len;
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
 * and returns false. Free the result with fmag_shader_spirv_free. */
bool fmag_shader_to_spirv(fmag_context *ctx, const char *filename, const char *src, size_t len,
                          fmag_source_language lang, const char *entry, fmag_shader_spirv *out);
void fmag_shader_spirv_free(fmag_shader_spirv *s);

#ifdef __cplusplus
}
#endif
#endif /* FMAG_SPIRV_H */
