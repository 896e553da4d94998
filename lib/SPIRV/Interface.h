/* The program interface rule of SPEC §5b: which values of an entry become the program's
 * inputs and outputs, and in what order, in one place (Interface.c) for both halves of
 * GLSL, HLSL and SPIR-V input: the GLSL/HLSL front's generated entry point (lib/Shader,
 * text) and the reader's export wrappers (Import.c, IR). Each describes the entry's
 * values in its own terms (a parameter it parsed, a SPIR-V variable) as items, each
 * already scalarized to a count; the layout gives each item its first input and output
 * slot. Internal to the libraries: not in include/fmag and not exported from
 * libfmag.so; lib/Shader, which links lib/SPIRV, includes it as "../SPIRV/Interface.h". */
#ifndef FMAG_SPIRV_INTERFACE_H
#define FMAG_SPIRV_INTERFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fmag/SPIRV.h"

typedef enum fmag_iface_role {
    FMAG_IFACE_RESULT, /* the entry's result (an output: dir OUT) */
    FMAG_IFACE_PARAM,  /* a parameter: dir IN, OUT or INOUT */
    FMAG_IFACE_GLOBAL, /* a module-scope variable: IN (an input, a uniform) or OUT */
} fmag_iface_role;

/* No slot: an item that is not an input (or not an output). */
#define FMAG_IFACE_NONE UINT32_MAX

typedef struct fmag_iface_item {
    fmag_iface_role role;
    fmag_spirv_param_qual dir; /* FMAG_SPIRV_PARAM_IN, _OUT or _INOUT */
    uint32_t nscalars;
    /* Globals only: their order. By group; within one, those with a location by
     * (location, component), before those without; ties in the items' order. */
    uint32_t group;
    bool has_location;
    uint32_t location, component;
    /* Set by fmag_iface_layout: the item's first input and first output slot, or
     * FMAG_IFACE_NONE. */
    uint32_t in_at, out_at;
} fmag_iface_item;

/* Lays out items[0..n-1]: inputs are the IN and INOUT parameters in order, then the
 * IN globals in the order above; outputs are the result, then the OUT and INOUT
 * parameters in order, then the OUT globals in the order above; each item's scalars
 * are consecutive. *nin and *nout get the totals; the slots are exact while these
 * fit in 32 bits (callers bound them first). False only when out of memory (scratch
 * from fmag_tmp_malloc). */
bool fmag_iface_layout(fmag_iface_item *items, size_t n, uint64_t *nin, uint64_t *nout);

#endif /* FMAG_SPIRV_INTERFACE_H */
