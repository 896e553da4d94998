/* GLSL/HLSL source to an FMAG IR module: shaderc (Shaderc.c) then the SPIR-V reader.
 *
 * The generated entry point declares one float Input variable per scalar input at
 * locations 0..nin-1 (and Outputs likewise), in the order of SPEC §5b
 * (fmag_iface_layout). SPIRV-Tools removes the interface variables the program never
 * reads; the reader is told the interface the front declared
 * (fmag_spirv_options::declared_interface), so the export keeps every input and
 * output. The program keeps the name the user gave it (-entry NAME, or main). */
#include <stdlib.h>
#include <string.h>
#include "fmag/Shader.h"

enum {
    OP_SOURCE_CONTINUED = 2,
    OP_SOURCE = 3,
    OP_NAME = 5,
    OP_MEMBER_NAME = 6,
    OP_STRING = 7,
    OP_TYPE_POINTER = 32,
    OP_VARIABLE = 59
};

/* Appends one instruction: opcode, the fixed words, then `text` as a NUL-terminated
 * literal string. */
static size_t put_inst(uint32_t *out, size_t at, uint32_t op, const uint32_t *fixed,
                       unsigned nfixed, const char *text, size_t n)
{
    size_t strw = n / 4 + 1, wc = 1 + nfixed + strw;
    out[at] = (uint32_t)(wc << 16 | op);
    memcpy(out + at + 1, fixed, nfixed * sizeof *fixed);
    memset(out + at + 1 + nfixed, 0, strw * 4);
    memcpy(out + at + 1 + nfixed, text, n);
    return at + wc;
}

/* An OpSource of `text` for file id `file` (lang, version as the module's), split into
 * OpSourceContinued as one instruction holds at most 65535 words. */
enum { SOURCE_CHUNK = 60000 }; /* bytes per instruction */

static size_t put_source(uint32_t *out, size_t at, uint32_t lang, uint32_t ver, uint32_t file,
                         const char *text, size_t len)
{
    uint32_t fixed[3] = {lang, ver, file};
    size_t first = len < SOURCE_CHUNK ? len : SOURCE_CHUNK;
    at = put_inst(out, at, OP_SOURCE, fixed, 3, text, first);
    for (size_t off = first; off < len; off += SOURCE_CHUNK) {
        size_t n = len - off < SOURCE_CHUNK ? len - off : SOURCE_CHUNK;
        at = put_inst(out, at, OP_SOURCE_CONTINUED, NULL, 0, text + off, n);
    }
    return at;
}

static size_t source_words(size_t len)
{
    return (len / SOURCE_CHUNK + 1) * (SOURCE_CHUNK / 4 + 8);
}

/* The OpString of the module naming `name`, or 0. */
static uint32_t string_id(const uint32_t *w, size_t nw, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 5; i < nw;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (!wc || i + wc > nw) break;
        if (op == OP_STRING && wc >= 3 && (size_t)(wc - 2) * 4 > n &&
            !memcmp(w + i + 2, name, n + 1))
            return w[i + 1];
        i += wc;
    }
    return 0;
}

/* The module with the source text of its OpSource replaced by the user's file, and an
 * OpSource for each file #include read that an OpString names. glslang embeds the text
 * it compiled (a preamble of comments, the preprocessed text, the wrapper) and nothing
 * of the included files; the reader quotes the line of a diagnostic from these texts,
 * and the user's own line, spelled as they wrote it, is the one to show. NULL when out
 * of memory or when there is no OpSource with a file (the module is used as it is). */
static uint32_t *with_user_source(const uint32_t *w, size_t nw, const char *src, size_t len,
                                  const fmag_shader_file *inc, size_t ninc, size_t *nout)
{
    size_t cap = nw + 8 + source_words(len);
    for (size_t k = 0; k < ninc; k++)
        cap += 8 + source_words(inc[k].len);
    if (nw < 5) return NULL;
    uint32_t *out = fmag_tmp_malloc(cap * sizeof *out);
    if (!out) return NULL;
    memcpy(out, w, 5 * sizeof *w);
    size_t at = 5;
    bool replaced = false;
    for (size_t i = 5; i < nw;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (!wc || i + wc > nw) break;
        if (op == OP_SOURCE_CONTINUED && replaced) {
            i += wc;
            continue;
        }
        if (op == OP_SOURCE && wc >= 4 && !replaced) {
            at = put_source(out, at, w[i + 1], w[i + 2], w[i + 3], src, len);
            for (size_t k = 0; k < ninc; k++) {
                uint32_t id = string_id(w, nw, inc[k].name);
                if (id && id != w[i + 3])
                    at = put_source(out, at, w[i + 1], w[i + 2], id, inc[k].text, inc[k].len);
            }
            replaced = true;
            i += wc;
            continue;
        }
        memcpy(out + at, w + i, wc * sizeof *w);
        at += wc;
        i += wc;
    }
    if (!replaced) {
        fmag_tmp_free(out);
        return NULL;
    }
    *nout = at;
    return out;
}

/* The names of the uniform data the module reads (HLSL globals live in a "$Global"
 * block, cbuffers are blocks: their member names; other variables: their own name),
 * comma-separated into buf. False when there is none. */
static bool uniform_names(const uint32_t *w, size_t nw, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 5; i < nw;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (!wc || i + wc > nw) break;
        uint32_t sc = wc >= 4 ? w[i + 3] : ~0u;
        if (op == OP_VARIABLE && (sc == 0 || sc == 2 || sc == 9 || sc == 12)) {
            uint32_t ptr = w[i + 1], var = w[i + 2], pointee = 0;
            for (size_t j = 5; j < nw;) { /* the pointer type's pointee */
                uint32_t l2 = w[j] >> 16;
                if (!l2 || j + l2 > nw) break;
                if ((w[j] & 0xffff) == OP_TYPE_POINTER && l2 >= 4 && w[j + 1] == ptr)
                    pointee = w[j + 3];
                j += l2;
            }
            bool members = false;
            for (size_t j = 5; j < nw;) { /* member names first, else the variable's name */
                uint32_t l2 = w[j] >> 16, o2 = w[j] & 0xffff;
                if (!l2 || j + l2 > nw) break;
                bool take = (o2 == OP_MEMBER_NAME && l2 >= 4 && w[j + 1] == pointee) ||
                            (o2 == OP_NAME && l2 >= 3 && w[j + 1] == var && !members);
                if (take) {
                    size_t k = o2 == OP_MEMBER_NAME ? 3 : 2;
                    const char *nm = (const char *)(w + j + k);
                    size_t n = strnlen(nm, (l2 - k) * 4);
                    if (o2 == OP_MEMBER_NAME) members = true;
                    if (n && used + n + 3 < cap) {
                        used += (size_t)snprintf(buf + used, cap - used, "%s'%.*s'",
                                                 used ? ", " : "", (int)n, nm);
                    }
                }
                j += l2;
            }
        }
        i += wc;
    }
    return used > 0;
}

fmag_module *fmag_glsl_import(fmag_context *ctx, const char *filename, const char *src, size_t len,
                              fmag_source_language lang, const fmag_spirv_options *opts)
{
    return fmag_glsl_import_with(NULL, ctx, filename, src, len, lang, opts);
}

/* Everything after shaderc: the reader, the interface check and the wrapper, inside
 * one guard (fmag_shader_to_spirv_with holds shaderc's objects and must run outside
 * any guard). */
struct glsl_import_args {
    fmag_context *ctx;
    const char *filename, *src;
    size_t len;
    fmag_source_language lang;
    const fmag_spirv_options *opts;
    const fmag_shader_spirv *s;
    fmag_module *result;
};

static fmag_module *import_spirv(fmag_context *ctx, const char *filename, const char *src,
                                 size_t len, fmag_source_language lang,
                                 const fmag_spirv_options *opts, const fmag_shader_spirv *sp)
{
    const char *entry = opts ? opts->entry : NULL;
    fmag_shader_spirv s = *sp;
    fmag_spirv_options o;
    memset(&o, 0, sizeof o);
    if (opts) o.fastmath = opts->fastmath;
    o.entry = NULL; /* the generated entry point is the module's only one */
    o.filename = filename;
    size_t nw2 = 0;
    uint32_t *w2 = with_user_source(s.words, s.nwords, src, len, s.included, s.nincluded, &nw2);
    const uint32_t *words = w2 ? w2 : s.words;
    size_t nwords = w2 ? nw2 : s.nwords;
    o.origin = lang == FMAG_SOURCE_GLSL ? FMAG_SPIRV_ORIGIN_GLSL : FMAG_SPIRV_ORIGIN_HLSL;
    o.declared_interface = true;
    o.declared_inputs = s.nin;
    o.declared_outputs = s.nout;
    fmag_module *m = fmag_spirv_import(ctx, words, nwords, &o);
    const char *name = entry ? entry : "main";
    fmag_func *prog = NULL;
    if (m) {
        fmag_foreach_func (f, m) {
            if (f->is_export) prog = f;
        }
    }
    /* More inputs than declared: uniform data the front left (the reader puts it after
     * the declared inputs). */
    bool ok = m && prog && prog->nparams == s.nin && prog->nresults == s.nout;
    char names[256];
    if (m && !ok && prog && lang == FMAG_SOURCE_GLSL &&
        uniform_names(words, nwords, names, sizeof names)) {
        /* The GLSL front makes global in/out/uniform variables and blocks of float types
         * private (docs/SPIRV.md); what is left is uniform data of other types, or a
         * storage buffer. */
        fmag_context_report(ctx, FMAG_DIAG_ERROR, filename, 0, 0,
                            "'%s' reads the uniform or buffer data %s: program "
                            "inputs are float types (float, vectors, matrices and arrays of "
                            "them, alone or as the members of a uniform or push-constant block)",
                            name, names);
        m = NULL;
    } else if (m && !ok && prog && uniform_names(words, nwords, names, sizeof names)) {
        /* The front made the HLSL global uniforms of float types static inputs; what is
         * left is uniform data of other types, or a storage buffer. */
        fmag_context_report(ctx, FMAG_DIAG_ERROR, filename, 0, 0,
                            "'%s' reads the uniform or buffer data %s: program "
                            "inputs are float types (float, vectors, matrices, structs of them "
                            "and arrays of these, as parameters, cbuffer members or globals)",
                            name, names);
        m = NULL;
    } else if (m && !ok) {
        /* A bug in one of the two halves, which must not become a program with
         * shuffled inputs. */
        fmag_context_report(ctx, FMAG_DIAG_ERROR, filename, 0, 0,
                            "internal: the imported entry point has %u inputs and %u "
                            "outputs; the front declared %u and %u",
                            prog ? prog->nparams : 0, prog ? prog->nresults : 0, s.nin, s.nout);
        m = NULL;
    }
    fmag_tmp_free(w2);
    if (!m) return NULL;
    prog->name = fmag_context_strdup(ctx, name, strlen(name));
    return m;
}

static void import_spirv_thunk(void *arg)
{
    struct glsl_import_args *a = arg;
    a->result = import_spirv(a->ctx, a->filename, a->src, a->len, a->lang, a->opts, a->s);
}

fmag_module *fmag_glsl_import_with(fmag_shader_compiler *c, fmag_context *ctx, const char *filename,
                                   const char *src, size_t len, fmag_source_language lang,
                                   const fmag_spirv_options *opts)
{
    fmag_shader_spirv s;
    size_t bom = fmag_text_bom_len(src, len); /* as the front, for the quoted lines too */
    src += bom, len -= bom;
    if (!fmag_shader_to_spirv_opts(c, ctx, filename, src, len, lang, opts, &s)) return NULL;
    struct glsl_import_args a = {ctx, filename, src, len, lang, opts, &s, NULL};
    if (!fmag_context_guard(ctx, import_spirv_thunk, &a)) a.result = NULL;
    fmag_shader_spirv_free(&s);
    return a.result;
}
