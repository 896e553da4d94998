/* fmag-accuracy's parts shared between its files. */
#ifndef FMAG_TOOLS_ACCURACY_H
#define FMAG_TOOLS_ACCURACY_H

#include <stdbool.h>
#include <stddef.h>
#include "fmag/IR.h"
#include "fmag/VM.h"

/* Builds builtin `name` of the math table as a one-line export and runs -O2: the
 * context to destroy (NULL with a message on failure) and the function. */
fmag_context *acc_build_ir(const char *name, bool fast, fmag_func **fn, char *msg, size_t msglen);
/* The same, lowered to a VM image. */
bool acc_build(const char *name, bool fast, fmag_vm_image *img, char *msg, size_t msglen);

/* --special: the special-value table (every builtin on zeros, infinities, NaN,
 * the ends of its domain), compared with the C library in double. Returns the
 * exit status: 1 when a row differs from C without a documented reason. */
int acc_special(bool fast, bool markdown, const char *const *only, unsigned nonly);

#endif
