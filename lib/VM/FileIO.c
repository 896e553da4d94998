/* Reading a whole file (or standard input) into memory, for every tool and for the
 * .fmag loader: one place for the growth, error and NUL-termination rules. */
#include "fmag/VM.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *fmag_vm_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    bool is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap && cap >= FMAG_VM_MAX_FILE_BYTES) {
            if (!is_stdin) fclose(f);
            free(buf);
            snprintf(err, errlen, "'%s' is %u MiB or more: not an FMAG input", path,
                     FMAG_VM_MAX_FILE_BYTES >> 20);
            return NULL;
        }
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int read_errno = ferror(f) ? errno : 0;
    if (!is_stdin) fclose(f);
    if (!buf || read_errno) {
        snprintf(err, errlen, "cannot read '%s': %s", path,
                 buf ? strerror(read_errno) : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
