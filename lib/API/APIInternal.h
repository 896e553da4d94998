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

/* A caller's options struct of `size` bytes (a struct NAME whose first version is v1_size
 * bytes long) copied over the defaults already in out (out_size bytes): false, with a
 * diagnostic in ctx when it is not NULL, for a struct shorter than the first version (not
 * set up by NAME_init). */
bool fmag_api_read_sized(fmag_context *ctx, const char *name, const void *in, size_t size,
                         size_t v1_size, void *out, size_t out_size);

#endif
