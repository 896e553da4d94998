/* What the compiling tools (slc, fmag-opt, fmag-run) share over the compile driver
 * (fmag_compile_ex): the option handlers they have in common, the output writer and
 * the call itself with its diagnostics printed (Options.h). */
#include "Options.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

bool fmag_opt_lowering(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    (void)spelling;
    if (strcmp(value, "fast") && strcmp(value, "full")) {
        fmag_tool_error(tool, "-lowering wants 'fast' or 'full', not '%s'", value);
        return false;
    }
    *(bool *)dest = value[1] == 'a';
    return true;
}

bool fmag_opt_budget(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    return fmag_opt_uint_value(tool, spelling, value, 1, SIZE_MAX, dest);
}

bool fmag_opt_error_limit(const fmag_tool *tool, void *dest, const char *spelling,
                          const char *value)
{
    return fmag_opt_uint_value(tool, spelling, value, 0, 0xFFFFFFFFull, dest);
}

bool fmag_tool_write(const fmag_tool *tool, const char *path, const void *data, size_t len)
{
    bool to_stdout = !path || !strcmp(path, "-");
    FILE *out = to_stdout ? stdout : fopen(path, "wb");
    if (!out) {
        fmag_tool_error(tool, "cannot write '%s': %s", path, strerror(errno));
        return false;
    }
    bool ok = fwrite(data, 1, len, out) == len;
    ok &= to_stdout ? fflush(out) == 0 : fclose(out) == 0;
    if (!ok) fmag_tool_error(tool, "cannot write '%s'", to_stdout ? "<stdout>" : path);
    return ok;
}

bool fmag_tool_compile(const fmag_tool *tool, fmag_context *ctx, const char *shown, const char *src,
                       size_t len, const fmag_compile_options *opts, fmag_compile_result *out)
{
    fmag_compile_result_init(out);
    bool ok = fmag_compile_ex(ctx, shown, src, len, opts, out) == FMAG_OK;
    /* On success only warnings remain (MaterialX: the outputs it left out). */
    fmag_tool_print_diags(tool, ctx);
    return ok;
}
