/* A program that includes only fmag.h, the amalgamation (utils/amalgamate.py): it
 * compiles an SL file the way slc does, writes the .fmag, and runs the first program
 * on the reference VM with the inputs given, printing each element's outputs as
 * fmag-run does (%.9g, space-separated), so check.sh can compare both with slc and
 * fmag-run of the normal build.
 * usage: single_header_test FILE.sl OUT.fmag [V,V,... ...]    (one element per list) */
#define FMAG_IMPLEMENTATION
#include "fmag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: single_header_test FILE.sl OUT.fmag [V,V,...]...\n");
        return 1;
    }
    fmag_context *ctx = fmag_context_create();
    char err[512];
    size_t len;
    char *src = fmag_vm_read_file(argv[1], &len, err, sizeof err);
    if (!src) {
        fprintf(stderr, "single_header_test: %s\n", err);
        fmag_context_destroy(ctx);
        return 1;
    }
    fmag_image *img = fmag_compile(ctx, argv[1], src, len, NULL);
    free(src);
    if (!img || !fmag_image_save(ctx, img, argv[2])) {
        fmag_context_diag_print(ctx, stderr);
        fmag_image_destroy(img);
        fmag_context_destroy(ctx);
        return 1;
    }
    const fmag_vm_program *p = fmag_image_program(img, 0);
    fmag_runner *ref = fmag_runner_create(ctx, FMAG_ENGINE_REF);
    int rc = 0;
    for (int a = 3; a < argc && rc == 0; a++) {
        float in[256] = {0}, out[256];
        unsigned n = 0;
        for (char *s = argv[a], *end; *s && n < 256; s = *end ? end + 1 : end)
            in[n++] = strtof(s, &end);
        if (n != fmag_program_inputs(p) || !fmag_run(ctx, ref, p, in, out, 1)) {
            fmag_context_diag_print(ctx, stderr);
            fprintf(stderr, "single_header_test: %u inputs given, %u wanted\n", n,
                    fmag_program_inputs(p));
            rc = 1;
            break;
        }
        for (unsigned j = 0; j < fmag_program_outputs(p); j++)
            printf(j ? " %.9g" : "%.9g", (double)out[j]);
        putchar('\n');
    }
    fmag_runner_destroy(ref);
    fmag_image_destroy(img);
    fmag_context_destroy(ctx);
    return rc;
}
