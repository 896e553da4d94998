/* The program interface rule of SPEC §5b (fmag_iface_layout, Interface.h): the one place
 * that says which of an entry's values are inputs and outputs and in what order. The
 * GLSL/HLSL front's generated entry point (lib/Shader/Wrapper.c) and the reader's
 * export wrappers (Import.c) describe their entry as items and take the slots from
 * here, so the text the front writes and the IR the reader builds cannot disagree. */
#include <stdint.h>
#include "Interface.h"

static bool iface_is_input(const fmag_iface_item *it)
{
    return it->role != FMAG_IFACE_RESULT && it->dir != FMAG_SPIRV_PARAM_OUT;
}

static bool iface_is_output(const fmag_iface_item *it)
{
    return it->role == FMAG_IFACE_RESULT || it->dir != FMAG_SPIRV_PARAM_IN;
}

/* Whether global a comes before global b (the order of fmag_iface_item); ties keep the
 * items' order, which the stable sort below provides. */
static bool iface_global_before(const fmag_iface_item *a, const fmag_iface_item *b)
{
    if (a->group != b->group) return a->group < b->group;
    if (a->has_location != b->has_location) return a->has_location;
    if (!a->has_location) return false;
    if (a->location != b->location) return a->location < b->location;
    return a->component < b->component;
}

/* Gives the globals of one direction their slots from *next on, in the global order. An
 * insertion sort of their indices: interfaces are small and mostly in order already. */
static bool iface_place_globals(fmag_iface_item *items, size_t n, bool input, uint64_t *next)
{
    size_t *order = fmag_tmp_malloc((n ? n : 1) * sizeof *order), count = 0;
    if (!order) return false;
    for (size_t i = 0; i < n; i++) {
        const fmag_iface_item *it = &items[i];
        if (it->role != FMAG_IFACE_GLOBAL || (input ? !iface_is_input(it) : !iface_is_output(it)))
            continue;
        size_t j = count++;
        while (j > 0 && iface_global_before(it, &items[order[j - 1]])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (size_t k = 0; k < count; k++) {
        fmag_iface_item *it = &items[order[k]];
        if (input)
            it->in_at = (uint32_t)*next;
        else
            it->out_at = (uint32_t)*next;
        *next += it->nscalars;
    }
    fmag_tmp_free(order);
    return true;
}

bool fmag_iface_layout(fmag_iface_item *items, size_t n, uint64_t *nin, uint64_t *nout)
{
    uint64_t in = 0, out = 0;
    for (size_t i = 0; i < n; i++)
        items[i].in_at = items[i].out_at = FMAG_IFACE_NONE;
    for (size_t i = 0; i < n; i++) {
        if (items[i].role != FMAG_IFACE_RESULT) continue;
        items[i].out_at = (uint32_t)out;
        out += items[i].nscalars;
    }
    for (size_t i = 0; i < n; i++) {
        fmag_iface_item *it = &items[i];
        if (it->role != FMAG_IFACE_PARAM) continue;
        if (iface_is_input(it)) {
            it->in_at = (uint32_t)in;
            in += it->nscalars;
        }
        if (iface_is_output(it)) {
            it->out_at = (uint32_t)out;
            out += it->nscalars;
        }
    }
    if (!iface_place_globals(items, n, true, &in) || !iface_place_globals(items, n, false, &out))
        return false;
    *nin = in, *nout = out;
    return true;
}
