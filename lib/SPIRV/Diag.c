/* Diagnostics of the SPIR-V reader: the source position from OpLine when the
 * module carries it, the opcode's name, the result id by its OpName. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

size_t spv_source_preamble(const char *t, size_t len)
{
    static const char processed[] = "// OpModuleProcessed ", line1[] = "#line 1\n";
    size_t at = 0;
    while (len - at >= sizeof processed - 1 && !memcmp(t + at, processed, sizeof processed - 1)) {
        const char *nl = memchr(t + at, '\n', len - at);
        if (!nl) return 0;
        at = (size_t)(nl - t) + 1;
    }
    if (at && len - at >= sizeof line1 - 1 && !memcmp(t + at, line1, sizeof line1 - 1))
        at += sizeof line1 - 1;
    return at;
}

/* Line `line` of a file's source text after glslang's preamble, honouring `#line N`
 * directives. */
static bool source_line(const spv_id *f, uint32_t line, const char **start, size_t *len)
{
    size_t skip = spv_source_preamble(f->src, f->srclen);
    const char *s = f->src + skip, *end = f->src + f->srclen;
    uint64_t no = 1;
    while (s < end) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e) e = end;
        if (e - s > 6 && !strncmp(s, "#line ", 6)) {
            no = strtoull(s + 6, NULL, 10);
        } else {
            if (no == line) {
                *start = s;
                *len = (size_t)(e - s);
                if (*len && s[*len - 1] == '\r') (*len)--;
                return true;
            }
            no++;
        }
        s = e + 1;
    }
    return false;
}

/* "\n<source line>\n<caret>" into buf, or "" when the text is not there. The
 * caret goes under column col; without a column (glslang) there is no caret. */
static void source_excerpt(const spv_reader *r, const spv_inst *in, char *buf, size_t cap)
{
    buf[0] = 0;
    const spv_id *f = &r->ids[in->file];
    const char *ls;
    size_t n;
    if (!f->src || !source_line(f, in->line, &ls, &n)) return;
    if (n > 400) n = 400;
    char line[401], caret[402];
    size_t k = 0, col = in->col ? in->col - 1 : 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)ls[i];
        line[i] = (c == '\t' || c >= 0x20) ? (char)c : ' ';
    }
    line[n] = 0;
    if (!in->col) {
        /* No column (glslang writes none): the line alone, no caret under a column
         * nobody computed. */
        snprintf(buf, cap, "\n%s", line);
        return;
    }
    if (col > n) col = n;
    for (size_t i = 0; i < col && k < 400; i++)
        caret[k++] = ls[i] == '\t' ? '\t' : ' ';
    caret[k++] = '^';
    caret[k] = 0;
    snprintf(buf, cap, "\n%s\n%s", line, caret);
}

static void verror(spv_reader *r, uint32_t inst, const char *prefix, const char *fmt, va_list ap)
{
    char msg[600];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const spv_inst *in = r->insts && inst < r->ninsts ? &r->insts[inst] : NULL;
    const char *file = NULL;
    if (in && in->file && in->file < r->bound && r->ids[in->file].kind == ID_STRING)
        file = r->ids[in->file].text;
    char where[64] = "", excerpt[820] = "";
    if (in && !file) snprintf(where, sizeof where, " (word %u)", (unsigned)in->word);
    if (file) source_excerpt(r, in, excerpt, sizeof excerpt);
    /* The file is the module's OpString: any text, so the position is given, not
     * written into the message. */
    fmag_context_report(r->ctx, FMAG_DIAG_ERROR, file ? file : r->filename, file ? in->line : 0,
                        file ? in->col : 0, "%s%s%s%s", prefix, msg, where, excerpt);
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

bool spv_error_feature(spv_reader *r, const char *glsl, const char *hlsl, const char *spirv)
{
    if (r->source == SPV_SOURCE_SPIRV) return spv_error_op(r, "%s", spirv);
    char nb[32];
    const char *name = r->insts && r->cur_inst < r->ninsts
                           ? spv_op_name(r->insts[r->cur_inst].op, nb, sizeof nb)
                           : NULL;
    const char *text = r->source == SPV_SOURCE_GLSL ? glsl : hlsl;
    if (name) return spv_error(r, r->cur_inst, "%s (SPIR-V %s)", text, name);
    return spv_error(r, r->cur_inst, "%s", text);
}

bool spv_error_op(spv_reader *r, const char *fmt, ...)
{
    char prefix[96], nb[32];
    const char *name = "";
    if (r->insts && r->cur_inst < r->ninsts)
        name = spv_op_name(r->insts[r->cur_inst].op, nb, sizeof nb);
    snprintf(prefix, sizeof prefix, "%s: ", name);
    va_list ap;
    va_start(ap, fmt);
    verror(r, r->cur_inst, *name ? prefix : "", fmt, ap);
    va_end(ap);
    return false;
}
