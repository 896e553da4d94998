/* libfmag-shaderc.so (lib/GPU/CMakeLists.txt): GLSL compute shaders to SPIR-V through
 * shaderc, for the Vulkan baker (lib/GPU/BakeVulkan.c), which loads this module at run time.
 * The shaderc archives keep their API hidden, so the module exports these three functions
 * and nothing else. A compiler is used by one thread at a time. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shaderc/shaderc.h>

#define FMAG_SHADERC_EXPORT __attribute__((visibility("default")))

FMAG_SHADERC_EXPORT void *fmag_shaderc_open(void);
FMAG_SHADERC_EXPORT void fmag_shaderc_close(void *compiler);
FMAG_SHADERC_EXPORT bool fmag_shaderc_compute_to_spirv(void *compiler, const char *src, size_t len,
                                                       uint32_t **words, size_t *bytes, char *err,
                                                       size_t errlen);

void *fmag_shaderc_open(void)
{
    return shaderc_compiler_initialize();
}

void fmag_shaderc_close(void *compiler)
{
    if (compiler) shaderc_compiler_release(compiler);
}

/* Vulkan 1.1 SPIR-V, optimized for speed; *words malloc'ed (the caller frees them). */
bool fmag_shaderc_compute_to_spirv(void *compiler, const char *src, size_t len, uint32_t **words,
                                   size_t *bytes, char *err, size_t errlen)
{
    *words = NULL, *bytes = 0;
    shaderc_compile_options_t o = shaderc_compile_options_initialize();
    if (!o) {
        snprintf(err, errlen, "shaderc: out of memory");
        return false;
    }
    shaderc_compile_options_set_target_env(o, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_1);
    shaderc_compile_options_set_optimization_level(o, shaderc_optimization_level_performance);
    shaderc_compilation_result_t r = shaderc_compile_into_spv(
        compiler, src, len, shaderc_glsl_compute_shader, "fmag_baked.comp", "main", o);
    shaderc_compile_options_release(o);
    bool ok = r && shaderc_result_get_compilation_status(r) == shaderc_compilation_status_success;
    if (!ok) {
        const char *m = r ? shaderc_result_get_error_message(r) : NULL;
        if (!m) m = "no result";
        snprintf(err, errlen, "shaderc: %.*s", (int)strcspn(m, "\n"), m);
    } else {
        *bytes = shaderc_result_get_length(r);
        *words = malloc(*bytes ? *bytes : 4);
        if (*words)
            memcpy(*words, shaderc_result_get_bytes(r), *bytes);
        else
            snprintf(err, errlen, "out of memory");
        ok = *words != NULL;
    }
    if (r) shaderc_result_release(r);
    return ok;
}
