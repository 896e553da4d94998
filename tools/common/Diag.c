/* Prints a library context's diagnostics in the tools' style (Options.h). */
#include "Options.h"

#include "fmag/IR.h"

#include <string.h>

/* A diagnostic that starts with its severity has no source location: the tool
 * names itself, as in "fmag-opt: error: in function @f: ...". */
static bool has_no_location(const char *d)
{
    return !strncmp(d, "error: ", 7) || !strncmp(d, "warning: ", 9) || !strncmp(d, "note: ", 6);
}

void fmag_tool_print_diags(const fmag_tool *tool, const fmag_context *ctx)
{
    for (size_t i = 0; i < fmag_context_diag_count(ctx); i++) {
        const char *d = fmag_context_diag(ctx, i);
        if (has_no_location(d)) fprintf(stderr, "%s: ", tool->name);
        fprintf(stderr, "%s\n", d);
    }
}
