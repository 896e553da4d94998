/* fmag-vk-compute: runs one GLSL compute shader natively on the Vulkan driver, so tests
 * can compare FMAG's result for a GLSL function with the driver's own
 * (test/MaterialX/genglsl). The shader follows EmitVulkan.h's contract; the buffer comes
 * from and goes back to raw little-endian float32 files.
 *
 *   fmag-vk-compute SHADER.spv IN.f32 OUT.f32 N
 *
 * Exit 0: ran (stdout: "cpu" or "gpu", the device kind: a CPU driver's fma() is not
 * fused); 77: no Vulkan driver or device; 1: failed, with a one-line message. */
#include "EmitVulkan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static float *read_floats(const char *path, size_t *count, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s'", path);
        return NULL;
    }
    size_t cap = 1024, n = 0;
    float *data = malloc(cap * sizeof *data);
    while (data) {
        n += fread(data + n, sizeof *data, cap - n, f);
        if (n < cap) break;
        float *grown = realloc(data, 2 * cap * sizeof *data);
        if (!grown) {
            free(data);
            data = NULL;
            break;
        }
        data = grown;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!data || bad || n == 0) {
        snprintf(err, errlen, "cannot read floats from '%s'", path);
        free(data);
        return NULL;
    }
    *count = n;
    return data;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: fmag-vk-compute SHADER.spv IN.f32 OUT.f32 N\n");
        return 1;
    }
    char *end;
    errno = 0;
    unsigned long n = strtoul(argv[4], &end, 10);
    if (errno || *end || n == 0 || n > 0xFFFFFFFFul) {
        fprintf(stderr, "fmag-vk-compute: N wants a positive element count, not '%s'\n", argv[4]);
        return 1;
    }
    char err[256];
    size_t nfloats = 0;
    float *data = read_floats(argv[2], &nfloats, err, sizeof err);
    if (!data) {
        fprintf(stderr, "fmag-vk-compute: %s\n", err);
        return 1;
    }
    bool is_cpu = false;
    int rc = fmag_emit_vk_run(argv[1], data, nfloats, (uint32_t)n, &is_cpu, err, sizeof err);
    if (rc == 0) {
        FILE *out = fopen(argv[3], "wb");
        if (!out || fwrite(data, sizeof *data, nfloats, out) != nfloats) {
            snprintf(err, sizeof err, "cannot write '%s'", argv[3]);
            rc = 1;
        }
        if (out && fclose(out) != 0 && rc == 0) {
            snprintf(err, sizeof err, "cannot write '%s'", argv[3]);
            rc = 1;
        }
        if (rc == 0) printf("%s\n", is_cpu ? "cpu" : "gpu");
    }
    if (rc != 0) fprintf(stderr, "fmag-vk-compute: %s\n", err);
    free(data);
    return rc;
}
