/* Shared by the files of lib/API: the image handle behind fmag/fmag.h. */
#ifndef FMAG_API_INTERNAL_H
#define FMAG_API_INTERNAL_H

#include "fmag/IR.h" /* the library side: the context's diagnostic producers */
#include "fmag/fmag.h"

struct fmag_image {
    fmag_vm_image vm; /* owns the programs */
};

/* A new empty image (NULL with a diagnostic in ctx when out of memory). */
fmag_image *fmag_api_image_new(fmag_context *ctx);

#endif
