/* Diagnostics of the SPIR-V reader: the source position from OpLine when the
 * module carries it, the opcode's name, the result id by its OpName. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "SPIRVInternal.h"

/* {opcode, "OpName"} rows generated from spirv.h at build time (CMakeLists.txt,
 * fuzz/run.sh), so the names follow the headers. */
static const struct {
    uint32_t op;
    const char *name;
} op_names[] = {
#include "SPIRVOpNames.inc"
};

const char *spv_op_name(uint32_t op, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (op_names[i].op == op) return op_names[i].name;
    snprintf(buf, len, "opcode %u", (unsigned)op);
    return buf;
}

const char *spv_id_str(spv_reader *r, uint32_t id, char *buf, size_t len)
{
    if (r->ids && id < r->bound && r->ids[id].name && r->ids[id].name[0])
        snprintf(buf, len, "%%%s", r->ids[id].name);
    else
        snprintf(buf, len, "%%%u", (unsigned)id);
    return buf;
}

static void verror(spv_reader *r, uint32_t inst, const char *prefix, const char *fmt, va_list ap)
{
    char msg[600], pos[300];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const spv_inst *in = r->insts && inst < r->ninsts ? &r->insts[inst] : NULL;
    const char *file = NULL;
    if (in && in->file && in->file < r->bound && r->ids[in->file].kind == ID_STRING)
        file = r->ids[in->file].text;
    if (file && in->col)
        snprintf(pos, sizeof pos, "%s:%u:%u", file, (unsigned)in->line, (unsigned)in->col);
    else if (file)
        snprintf(pos, sizeof pos, "%s:%u", file, (unsigned)in->line);
    else
        snprintf(pos, sizeof pos, "%s", r->filename);
    char where[64] = "";
    if (in && !file) snprintf(where, sizeof where, " (word %u)", (unsigned)in->word);
    fmag_context_error(r->ctx, "%s: error: %s%s%s", pos, prefix, msg, where);
    r->failed = true;
    r->nerrors++;
}

bool spv_error(spv_reader *r, uint32_t inst, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(r, inst, "", fmt, ap);
    va_end(ap);
    return false;
}

bool spv_error_op(spv_reader *r, const char *fmt, ...)
{
    char prefix[96], nb[32];
    const char *name = "";
    if (r->insts && r->cur_inst < r->ninsts) name = spv_op_name(r->insts[r->cur_inst].op, nb, sizeof nb);
    snprintf(prefix, sizeof prefix, "%s: ", name);
    va_list ap;
    va_start(ap, fmt);
    verror(r, r->cur_inst, *name ? prefix : "", fmt, ap);
    va_end(ap);
    return false;
}
