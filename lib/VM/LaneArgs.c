/* The argument checks every per-lane engine makes before running anything (the CPU batch
 * engine, the GPU runners): one function, so that they accept and refuse the same calls
 * with the same messages. */
#include <stdio.h>
#include "fmag/VM.h"

bool fmag_vm_check_lane_args(const fmag_vm_program *const *progs, size_t nprogs,
                             const uint32_t *prog_index, size_t in_stride, size_t out_stride,
                             size_t n, bool validate, unsigned char *used, char *err, size_t errlen)
{
    if (nprogs == 0 || nprogs > UINT32_MAX || !progs) {
        snprintf(err, errlen, "per-lane run needs 1 to 2^32-1 programs, got %zu",
                 progs ? nprogs : 0);
        return false;
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t pi = prog_index ? prog_index[k] : 0;
        if (pi >= nprogs) {
            snprintf(err, errlen, "element %zu: program index %u out of range (%zu programs)", k,
                     (unsigned)pi, nprogs);
            return false;
        }
        if (used) used[pi] = 1;
    }
    /* every program the call names is checked, used or not, unless the caller asked for
     * the used ones only (used != NULL) */
    for (size_t i = 0; i < nprogs; i++) {
        if (used && !used[i]) continue;
        const fmag_vm_program *p = progs[i];
        char why[200];
        if (!p || (p->ninstr && !p->code)) {
            snprintf(err, errlen, "program %zu is NULL", i);
            return false;
        }
        if (validate && !fmag_vm_program_validate(p, why, sizeof why)) {
            snprintf(err, errlen, "program %zu '%s': %s", i, p->name ? p->name : "", why);
            return false;
        }
        if (p->nin > in_stride || p->nout > out_stride) {
            snprintf(err, errlen,
                     "program %zu '%s' has %u inputs and %u outputs; strides are %zu and %zu", i,
                     p->name ? p->name : "", (unsigned)p->nin, (unsigned)p->nout, in_stride,
                     out_stride);
            return false;
        }
    }
    return true;
}
