/* The read-whole-input prologue every tool shares (Options.h); lib/VM owns the
 * reading itself. */
#define _POSIX_C_SOURCE 200809L
#include "Options.h"

#include <string.h>
#include <sys/stat.h>
#include "fmag/VM.h"

char *fmag_tool_read_file(const fmag_tool *tool, const char *path, size_t *len)
{
    char err[1024];
    char *text = fmag_vm_read_file(path, len, err, sizeof err);
    if (!text) fmag_tool_error(tool, "%s", err);
    return text;
}

static bool same_file(const char *input, const char *output)
{
    struct stat si, so;
    if (!input || !output || !strcmp(input, "-") || !strcmp(output, "-")) return false;
    if (stat(input, &si) != 0 || stat(output, &so) != 0) return false;
    return si.st_dev == so.st_dev && si.st_ino == so.st_ino;
}

bool fmag_tool_output_is_input(const fmag_tool *tool, const char *input, const char *output)
{
    if (!same_file(input, output)) return false;
    fmag_tool_error(tool, "-o '%s' is the input file: writing the output there would replace it",
                    output);
    return true;
}

bool fmag_tool_default_output_is_input(const fmag_tool *tool, const char *input, const char *output)
{
    if (!same_file(input, output)) return false;
    fmag_tool_error(tool, "the output would be '%s', the input file itself: name another with -o",
                    output);
    return true;
}
