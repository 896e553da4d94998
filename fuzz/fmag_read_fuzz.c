/* libFuzzer harness for the .fmag reader: any accepted file must validate, run on
 * the reference VM and the batch engine with identical bits, and write back to
 * exactly the bytes it was read from. Anything else (crash, sanitizer report,
 * mismatch) is a bug. */
#include "fmag/VM.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    if (!fmag_vm_image_read(&img, data, size, err, sizeof err)) {
        if (!err[0] || strchr(err, '\n'))
            __builtin_trap(); /* an error is always one non-empty line */
        return 0;
    }
    void *out;
    size_t len;
    if (!fmag_vm_image_write(&img, &out, &len, err, sizeof err) || len != size ||
        memcmp(out, data, size) != 0)
        __builtin_trap();
    free(out);
    enum { N = 70 }; /* more than one block of lanes, not a multiple of it */
    for (size_t i = 0; i < img.nprograms; i++) {
        const fmag_vm_program *p = &img.programs[i];
        if (!fmag_vm_program_validate(p, err, sizeof err)) __builtin_trap();
        if (p->regs > 4096) continue; /* keep each run fast; the reader was the target */
        float *in = calloc((size_t)N * (p->nin + 1u), sizeof(float));
        float *a = calloc((size_t)N * (p->nout + 1u), sizeof(float));
        float *b = calloc((size_t)N * (p->nout + 1u), sizeof(float));
        float *regs = malloc(((size_t)p->regs + 1) * sizeof(float));
        if (!in || !a || !b || !regs) abort();
        for (size_t k = 0; k < (size_t)N * p->nin; k++) {
            uint32_t w = (uint32_t)(k * 2654435761u) ^ (uint32_t)size;
            float f;
            memcpy(&f, &w, 4);
            in[k] = (k % 3) ? (float)(int)(k % 7) - 3.0f : f; /* NaN and inf inputs included */
        }
        for (size_t k = 0; k < N; k++)
            fmag_vm_run(p, in + k * p->nin, a + k * p->nout, regs);
        if (!fmag_vm_run_per_lane_threads(&p, 1, NULL, in, p->nin, b, p->nout, N, 1, err,
                                          sizeof err) ||
            memcmp(a, b, (size_t)N * p->nout * sizeof(float)) != 0)
            __builtin_trap();
        free(in);
        free(a);
        free(b);
        free(regs);
    }
    fmag_vm_image_free(&img);
    return 0;
}
