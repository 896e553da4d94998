/* What a file holds (VM.h, fmag_vm_file_kind_of): content first, name second, a guess
 * from the text last. Here, in the layer that depends on nothing, so that every tool
 * and an embedder that reads only .fmag files tell the kinds apart the same way. */
#include "fmag/VM.h"

#include <string.h>

static bool has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && !strcmp(path + n - e, ext);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Matches `word` at p (within end), followed by a blank or the end of the text. */
static const char *match_word(const char *p, const char *end, const char *word)
{
    size_t wl = strlen(word);
    if ((size_t)(end - p) < wl || memcmp(p, word, wl)) return NULL;
    p += wl;
    return p == end || is_blank(*p) || *p == '\r' || *p == '\n' ? p : NULL;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    return p;
}

/* `func @` or `export func @`, blanks between the words. */
static bool is_fir_func_line(const char *p, const char *end)
{
    const char *q = match_word(p, end, "export");
    if (q) p = skip_blanks(q, end);
    q = match_word(p, end, "func");
    if (!q) return false;
    q = skip_blanks(q, end);
    return q < end && *q == '@';
}

typedef enum { LINE_FMAS, LINE_FIR, LINE_SL, LINE_GLSL, LINE_COUNT } line_mark;

/* Which marks some line of the text starts with (after blanks). */
static void scan_lines(const char *text, size_t len, bool seen[LINE_COUNT])
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *s = skip_blanks(p, eol);
        if (match_word(s, eol, ".def"))
            seen[LINE_FMAS] = true;
        else if (is_fir_func_line(s, eol))
            seen[LINE_FIR] = true;
        else if (match_word(s, eol, "export"))
            seen[LINE_SL] = true;
        else if (match_word(s, eol, "#version"))
            seen[LINE_GLSL] = true;
        p = eol + (nl != NULL);
    }
}

/* The kind a name claims. A text kind's extension counts for text only, so that the
 * name never calls binary data "IR text" (the tool's own reader names that); a binary
 * kind's counts for anything, since a damaged .fmag may well be all text bytes (the
 * .fmag reader then says what is wrong with it). */
static fmag_vm_file_kind kind_from_name(const char *path, bool text)
{
    static const struct {
        const char *ext;
        fmag_vm_file_kind kind;
        bool binary;
    } exts[] = {
        {".fmag", FMAG_VM_FILE_FMAG, true},  {".spv", FMAG_VM_FILE_SPIRV, true},
        {".fmas", FMAG_VM_FILE_FMAS, false}, {".fir", FMAG_VM_FILE_FIR, false},
        {".sl", FMAG_VM_FILE_SL, false},     {".glsl", FMAG_VM_FILE_GLSL, false},
        {".frag", FMAG_VM_FILE_GLSL, false}, {".vert", FMAG_VM_FILE_GLSL, false},
        {".comp", FMAG_VM_FILE_GLSL, false}, {".hlsl", FMAG_VM_FILE_HLSL, false},
    };
    if (!path) return FMAG_VM_FILE_UNKNOWN;
    for (size_t k = 0; k < sizeof exts / sizeof exts[0]; k++)
        if (has_ext(path, exts[k].ext))
            return exts[k].binary || text ? exts[k].kind : FMAG_VM_FILE_UNKNOWN;
    return FMAG_VM_FILE_UNKNOWN;
}

fmag_vm_file_kind fmag_vm_file_kind_of(const char *path, const void *data, size_t len,
                                       fmag_vm_file_evidence *evidence)
{
    fmag_vm_file_evidence dummy;
    if (!evidence) evidence = &dummy;
    const unsigned char *b = data;
    *evidence = FMAG_VM_FILE_BY_CONTENT;
    if (len >= 4 && !memcmp(b, "FMAG", 4)) return FMAG_VM_FILE_FMAG;
    /* SPIR-V's magic 0x07230203 in either byte order (the module's words are in the
     * producer's order). */
    if (len >= 4 && (!memcmp(b, "\x03\x02\x23\x07", 4) || !memcmp(b, "\x07\x23\x02\x03", 4)))
        return FMAG_VM_FILE_SPIRV;
    bool text = !memchr(b, 0, len);
    bool seen[LINE_COUNT] = {false};
    /* A UTF-8 byte-order mark before the first line, as the readers accept it. */
    size_t bom = len >= 3 && !memcmp(b, "\xEF\xBB\xBF", 3) ? 3 : 0;
    if (text) scan_lines((const char *)b + bom, len - bom, seen);
    /* A .fmas line and a .fir line cannot both start a valid file's lines; .def is
     * the more specific mark. */
    if (seen[LINE_FMAS]) return FMAG_VM_FILE_FMAS;
    if (seen[LINE_FIR]) return FMAG_VM_FILE_FIR;
    *evidence = FMAG_VM_FILE_BY_NAME;
    fmag_vm_file_kind by_name = kind_from_name(path, text);
    /* Source text under a binary's name (SL saved as x.fmag) is the source, not a
     * .fmag with a bad magic; anything else there (truncated, garbage) keeps the name,
     * so the reader says what is wrong with it. */
    bool binary_name = by_name == FMAG_VM_FILE_FMAG || by_name == FMAG_VM_FILE_SPIRV;
    if (binary_name && text && (seen[LINE_SL] || seen[LINE_GLSL])) {
        *evidence = FMAG_VM_FILE_BY_CONTENT;
        return seen[LINE_SL] ? FMAG_VM_FILE_SL : FMAG_VM_FILE_GLSL;
    }
    if (by_name != FMAG_VM_FILE_UNKNOWN) return by_name;
    *evidence = FMAG_VM_FILE_BY_GUESS;
    if (!text || len == 0) return FMAG_VM_FILE_UNKNOWN;
    if (seen[LINE_SL]) return FMAG_VM_FILE_SL;
    if (seen[LINE_GLSL]) return FMAG_VM_FILE_GLSL;
    return FMAG_VM_FILE_TEXT;
}

const char *fmag_vm_file_kind_name(fmag_vm_file_kind kind)
{
    switch (kind) {
    case FMAG_VM_FILE_FMAG:
        return "a .fmag binary";
    case FMAG_VM_FILE_SPIRV:
        return "a SPIR-V binary";
    case FMAG_VM_FILE_FMAS:
        return "FMAG assembly text";
    case FMAG_VM_FILE_FIR:
        return "FMAG IR text";
    case FMAG_VM_FILE_SL:
        return "SL source";
    case FMAG_VM_FILE_GLSL:
        return "GLSL source";
    case FMAG_VM_FILE_HLSL:
        return "HLSL source";
    case FMAG_VM_FILE_TEXT:
        return "text";
    case FMAG_VM_FILE_UNKNOWN:
        break;
    }
    return "binary data";
}
