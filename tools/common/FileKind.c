/* The one message every tool prints for a file of the wrong kind (Options.h): what
 * the file is (lib/VM's fmag_vm_file_kind_of) and which tool takes it. */
#include "Options.h"

#include <string.h>

void fmag_tool_wrong_kind_message(char *buf, size_t n, const char *path, fmag_vm_file_kind kind,
                                  fmag_vm_file_evidence evidence)
{
    const char *is = evidence == FMAG_VM_FILE_BY_GUESS ? "looks like" : "is";
    const char *what = fmag_vm_file_kind_name(kind);
    const char *cmd_path = path; /* "slc - -o OUT.fmag" reads standard input too */
    if (!strcmp(path, "-")) path = "<stdin>";
    switch (kind) {
    case FMAG_VM_FILE_FMAG:
        snprintf(buf, n, "%s %s %s: run it with fmag-run, disassemble it with fmag-as -d", path, is,
                 what);
        return;
    case FMAG_VM_FILE_SPIRV:
        snprintf(buf, n, "%s %s %s: compile it with slc -entry NAME", path, is, what);
        return;
    case FMAG_VM_FILE_FMAS:
        snprintf(buf, n, "%s %s %s: assemble it with fmag-as, run it with fmag-run", path, is,
                 what);
        return;
    case FMAG_VM_FILE_FIR:
        snprintf(buf, n, "%s %s %s: optimize it with fmag-opt, run it with fmag-run", path, is,
                 what);
        return;
    case FMAG_VM_FILE_SL:
        snprintf(buf, n, "%s %s %s: compile it with slc (slc %s -o OUT.fmag)", path, is, what,
                 cmd_path);
        return;
    case FMAG_VM_FILE_GLSL:
    case FMAG_VM_FILE_HLSL:
        /* A shader's program is main() unless -entry names another function. */
        snprintf(buf, n, "%s %s %s: compile it with slc (slc %s [-entry NAME] -o OUT.fmag)", path,
                 is, what, cmd_path);
        return;
    case FMAG_VM_FILE_TEXT:
    case FMAG_VM_FILE_UNKNOWN:
        break;
    }
    snprintf(buf, n, "%s %s %s of no kind FMAG reads", path, is, what);
}

int fmag_tool_wrong_kind(const fmag_tool *tool, const char *path, fmag_vm_file_kind kind,
                         fmag_vm_file_evidence evidence)
{
    char msg[1200];
    fmag_tool_wrong_kind_message(msg, sizeof msg, path, kind, evidence);
    return fmag_tool_error(tool, "%s", msg);
}
