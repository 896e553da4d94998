/* The read-whole-input prologue every tool shares (Options.h); lib/VM owns the
 * reading itself. */
#include "Options.h"

#include "fmag/VM.h"

char *fmag_tool_read_file(const fmag_tool *tool, const char *path, size_t *len)
{
    char err[1024];
    char *text = fmag_vm_read_file(path, len, err, sizeof err);
    if (!text) fmag_tool_error(tool, "%s", err);
    return text;
}
