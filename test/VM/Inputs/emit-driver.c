/* Test driver for emitted C (fmag-as --emit=c): reads per-lane CSV lines
 * "program,input,input,..." from standard input, runs fmag_baked_run_per_lane on them and
 * prints each element's outputs as fmag-run does (%.9g, space-separated). Build with
 * -DFMAG_NOUTS='{n0,n1,...}' (the programs' output counts) and link the emitted file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t fmag_baked_run_per_lane(size_t n, const uint32_t *prog_index, const float *in,
                               size_t in_stride, float *out, size_t out_stride);

enum { STRIDE = 256 };
static const unsigned nouts[] = FMAG_NOUTS;

int main(void)
{
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        float in[STRIDE] = {0}, out[STRIDE];
        char *p = line, *end;
        unsigned long prog = strtoul(p, &end, 10);
        size_t n = 0;
        for (p = end; *p && *p != '\n' && n < STRIDE;) {
            while (*p == ',' || *p == ' ')
                p++;
            if (!*p || *p == '\n') break;
            in[n++] = strtof(p, &end);
            if (end == p) return 2;
            p = end;
        }
        uint32_t idx = (uint32_t)prog;
        if (prog >= sizeof nouts / sizeof nouts[0] ||
            fmag_baked_run_per_lane(1, &idx, in, STRIDE, out, STRIDE) != 1)
            return 3;
        for (unsigned j = 0; j < nouts[prog]; j++)
            printf(j ? " %.9g" : "%.9g", (double)out[j]);
        putchar('\n');
    }
    return 0;
}
