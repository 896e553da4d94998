/* The .fmag binary file: a sequence of program records (SPEC §1). The reader
 * validates every byte it will later trust, so nothing downstream re-checks. */
#include "VMInternal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char fmag_magic[4] = {'F', 'M', 'A', 'G'};

void fmag_vm_image_init(fmag_vm_image *img)
{
    img->nprograms = 0;
    img->programs = NULL;
}

static void program_free(fmag_vm_program *p)
{
    free(p->name);
    free(p->code);
}

void fmag_vm_image_free(fmag_vm_image *img)
{
    for (size_t i = 0; i < img->nprograms; i++)
        program_free(&img->programs[i]);
    free(img->programs);
    fmag_vm_image_init(img);
}

static fmag_vm_instr *code_alloc(uint32_t ninstr)
{
    if (ninstr == 0) return NULL;
    if ((uint64_t)ninstr * sizeof(fmag_vm_instr) > SIZE_MAX) return NULL;
    /* 16-byte alignment lets a GPU runner upload the array as a uvec4 buffer. */
    return aligned_alloc(16, (size_t)ninstr * sizeof(fmag_vm_instr));
}

bool fmag_vm_image_add(fmag_vm_image *img, const char *name, uint16_t flags, uint16_t regs,
                       uint16_t nin, uint16_t nout, const fmag_vm_instr *code, uint32_t ninstr)
{
    if (!name) name = "";
    size_t name_len = strlen(name);
    if (name_len > 0xFFFFu) return false;
    fmag_vm_program *progs = realloc(img->programs, (img->nprograms + 1) * sizeof(fmag_vm_program));
    if (!progs) return false;
    img->programs = progs;
    fmag_vm_program p = {0};
    p.name = malloc(name_len + 1);
    p.code = code_alloc(ninstr);
    if (!p.name || (ninstr && !p.code)) {
        program_free(&p);
        return false;
    }
    memcpy(p.name, name, name_len + 1);
    if (ninstr) memcpy(p.code, code, (size_t)ninstr * sizeof(fmag_vm_instr));
    p.flags = flags;
    p.regs = regs;
    p.nin = nin;
    p.nout = nout;
    p.ninstr = ninstr;
    img->programs[img->nprograms++] = p;
    return true;
}

const fmag_vm_program *fmag_vm_image_find(const fmag_vm_image *img, const char *name)
{
    for (size_t i = 0; i < img->nprograms; i++)
        if (strcmp(img->programs[i].name, name) == 0) return &img->programs[i];
    return NULL;
}

/* Little-endian field access, independent of the host's byte order. */
static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static void wr16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}
static void wr32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static size_t pad16(size_t n)
{
    return (n + 15u) & ~(size_t)15u;
}

/* Formats "record R at byte offset O: <msg>". */
#define READ_FAIL(rec, off, ...)                                                                   \
    do {                                                                                           \
        char msg_[256];                                                                            \
        snprintf(msg_, sizeof msg_, __VA_ARGS__);                                                  \
        snprintf(err, errlen, "record %zu at byte offset %zu: %s", (size_t)(rec), (size_t)(off),   \
                 msg_);                                                                            \
        fmag_vm_image_free(&out);                                                                  \
        return false;                                                                              \
    } while (0)

/* Offset of the first byte that is not part of a well-formed UTF-8 sequence (no
 * overlong forms, no surrogates, nothing above U+10FFFF), or len. */
size_t fmag_vm_utf8_invalid_at(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        unsigned lo = 0x80, hi = 0xBF;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return i;
        }
        if (len - i <= n) return i;
        if (s[i + 1] < lo || s[i + 1] > hi) return i;
        for (size_t k = 2; k <= n; k++)
            if ((s[i + k] & 0xC0) != 0x80) return i;
        i += n + 1;
    }
    return len;
}

bool fmag_vm_image_read(fmag_vm_image *img, const void *data, size_t len, char *err, size_t errlen)
{
    const unsigned char *bytes = data;
    fmag_vm_image out;
    fmag_vm_image_init(&out);
    if (len == 0) {
        snprintf(err, errlen, "record 0 at byte offset 0: empty file (no program records)");
        return false;
    }
    size_t off = 0;
    for (size_t rec = 0; off < len; rec++) {
        const unsigned char *h = bytes + off;
        size_t left = len - off;
        bool magic_ok = left >= 4 && memcmp(h, fmag_magic, 4) == 0;
        if (rec > 0 && !magic_ok)
            READ_FAIL(rec, off, "%zu trailing bytes after the last record", left);
        if (left < 4)
            READ_FAIL(rec, off, "truncated header (%zu of %u bytes)", left, FMAG_VM_HEADER_SIZE);
        if (!magic_ok) READ_FAIL(rec, off, "bad magic (expected \"FMAG\")");
        if (left < FMAG_VM_HEADER_SIZE)
            READ_FAIL(rec, off, "truncated header (%zu of %u bytes)", left, FMAG_VM_HEADER_SIZE);
        uint16_t version = rd16(h + 4), flags = rd16(h + 6);
        uint32_t ninstr = rd32(h + 8);
        uint16_t regs = rd16(h + 12), nin = rd16(h + 14), nout = rd16(h + 16);
        uint16_t name_len = rd16(h + 18);
        if (version != FMAG_VM_FORMAT_VERSION)
            READ_FAIL(rec, off + 4, "unsupported version %u (expected %u)", (unsigned)version,
                      FMAG_VM_FORMAT_VERSION);
        if (flags & ~FMAG_VM_FLAGS_KNOWN)
            READ_FAIL(rec, off + 6, "unknown flag bits 0x%04x", (unsigned)flags);
        uint16_t nderiv = rd16(h + 20);
        for (unsigned k = 22; k < 32; k++)
            if (h[k] != 0) READ_FAIL(rec, off + k, "reserved header byte is not zero");
        const char *deriv_bad = fmag_vm_program_deriv_error(flags, nin, nderiv);
        if (deriv_bad) READ_FAIL(rec, off + 20, "%s", deriv_bad);
        if (nin > regs)
            READ_FAIL(rec, off + 14, "%u inputs exceed the %u registers", (unsigned)nin,
                      (unsigned)regs);
        if (nout > regs)
            READ_FAIL(rec, off + 16, "%u outputs exceed the %u registers", (unsigned)nout,
                      (unsigned)regs);
        size_t name_off = off + FMAG_VM_HEADER_SIZE;
        size_t name_space = pad16(name_len);
        if (name_space > len - name_off)
            READ_FAIL(rec, off + 18, "name (%u bytes, %zu padded) runs past the end of the file",
                      (unsigned)name_len, name_space);
        for (size_t k = 0; k < name_len; k++)
            if (bytes[name_off + k] == 0)
                READ_FAIL(rec, name_off + k, "NUL byte in the program name");
        size_t bad_utf8 = fmag_vm_utf8_invalid_at(bytes + name_off, name_len);
        if (bad_utf8 < name_len)
            READ_FAIL(rec, name_off + bad_utf8, "program name is not valid UTF-8");
        for (size_t k = name_len; k < name_space; k++)
            if (bytes[name_off + k] != 0)
                READ_FAIL(rec, name_off + k, "name padding byte is not zero");
        size_t code_off = name_off + name_space;
        uint64_t code_size = (uint64_t)ninstr * 16u;
        if (code_size > (uint64_t)(len - code_off))
            READ_FAIL(rec, off + 8,
                      "%u instructions (%llu bytes) run past the end of the file "
                      "(%zu bytes left)",
                      (unsigned)ninstr, (unsigned long long)code_size, len - code_off);
        /* Validate in place first so a bad file costs no allocation. */
        const unsigned char *code = bytes + code_off;
        for (uint32_t i = 0; i < ninstr; i++) {
            const unsigned char *w = code + (size_t)i * 16;
            fmag_vm_instr in = {rd32(w), rd32(w + 4), rd32(w + 8), rd32(w + 12)};
            unsigned word_off = 0;
            char why[160];
            if (!fmag_vm_instr_check(in, regs, &word_off, why, sizeof why))
                READ_FAIL(rec, code_off + (size_t)i * 16 + word_off, "instruction %u: %s",
                          (unsigned)i, why);
        }
        char *name = malloc((size_t)name_len + 1);
        if (!name) READ_FAIL(rec, off, "out of memory");
        memcpy(name, bytes + name_off, name_len);
        name[name_len] = 0;
        bool ok = fmag_vm_image_add(&out, name, flags, regs, nin, nout, NULL, 0);
        free(name);
        if (!ok) READ_FAIL(rec, off, "out of memory");
        fmag_vm_program *p = &out.programs[out.nprograms - 1];
        p->nderiv = nderiv;
        p->ninstr = ninstr;
        p->code = code_alloc(ninstr);
        if (ninstr && !p->code) {
            p->ninstr = 0;
            READ_FAIL(rec, off, "out of memory for %u instructions", (unsigned)ninstr);
        }
        for (uint32_t i = 0; i < ninstr; i++) {
            const unsigned char *w = code + (size_t)i * 16;
            fmag_vm_instr in = {rd32(w), rd32(w + 4), rd32(w + 8), rd32(w + 12)};
            p->code[i] = in;
        }
        off = code_off + (size_t)code_size;
    }
    fmag_vm_image_free(img);
    *img = out;
    return true;
}

const char *fmag_vm_program_deriv_error(uint16_t flags, uint16_t nin, uint16_t nderiv)
{
    if (!(flags & FMAG_VM_FLAG_DERIVS) != !nderiv)
        return nderiv ? "a derivative input count without the derivatives flag (0x2)"
                      : "the derivatives flag (0x2) with a derivative input count of 0";
    if (3u * nderiv > nin) return "more inputs with derivatives than ordinary inputs";
    return NULL;
}

bool fmag_vm_image_write(const fmag_vm_image *img, void **data, size_t *len, char *err,
                         size_t errlen)
{
    *data = NULL;
    *len = 0;
    size_t total = 0;
    for (size_t r = 0; r < img->nprograms; r++) {
        const fmag_vm_program *p = &img->programs[r];
        char why[200];
        if (!fmag_vm_program_validate(p, why, sizeof why)) {
            snprintf(err, errlen, "program %zu '%s': %s", r, p->name ? p->name : "", why);
            return false;
        }
        size_t name_len = p->name ? strlen(p->name) : 0;
        if (p->name &&
            fmag_vm_utf8_invalid_at((const unsigned char *)p->name, name_len) < name_len) {
            snprintf(err, errlen, "program %zu: name is not valid UTF-8", r);
            return false;
        }
        if (name_len > 0xFFFFu) {
            snprintf(err, errlen, "program %zu: name longer than 65535 bytes", r);
            return false;
        }
        if (p->flags & ~FMAG_VM_FLAGS_KNOWN) {
            snprintf(err, errlen, "program %zu '%s': unknown flag bits 0x%04x", r, p->name,
                     (unsigned)p->flags);
            return false;
        }
        const char *deriv_bad = fmag_vm_program_deriv_error(p->flags, p->nin, p->nderiv);
        if (deriv_bad) {
            snprintf(err, errlen, "program %zu '%s': %s", r, p->name, deriv_bad);
            return false;
        }
        total += FMAG_VM_HEADER_SIZE + pad16(name_len) + (size_t)p->ninstr * 16;
    }
    if (img->nprograms == 0) {
        snprintf(err, errlen, "no programs to write (an empty .fmag file is invalid)");
        return false;
    }
    unsigned char *buf = calloc(1, total);
    if (!buf) {
        snprintf(err, errlen, "out of memory (%zu bytes)", total);
        return false;
    }
    size_t off = 0;
    for (size_t r = 0; r < img->nprograms; r++) {
        const fmag_vm_program *p = &img->programs[r];
        size_t name_len = p->name ? strlen(p->name) : 0;
        unsigned char *h = buf + off;
        memcpy(h, fmag_magic, 4);
        wr16(h + 4, FMAG_VM_FORMAT_VERSION);
        wr16(h + 6, p->flags);
        wr32(h + 8, p->ninstr);
        wr16(h + 12, p->regs);
        wr16(h + 14, p->nin);
        wr16(h + 16, p->nout);
        wr16(h + 18, (uint16_t)name_len);
        wr16(h + 20, p->nderiv);
        if (name_len) memcpy(h + FMAG_VM_HEADER_SIZE, p->name, name_len);
        off += FMAG_VM_HEADER_SIZE + pad16(name_len);
        for (uint32_t i = 0; i < p->ninstr; i++, off += 16) {
            wr32(buf + off, p->code[i].b);
            wr32(buf + off + 4, p->code[i].c);
            wr32(buf + off + 8, p->code[i].g);
            wr32(buf + off + 12, p->code[i].da);
        }
    }
    *data = buf;
    *len = total;
    return true;
}

bool fmag_vm_image_load(fmag_vm_image *img, const char *path, char *err, size_t errlen)
{
    size_t len;
    char *buf = fmag_vm_read_file(path, &len, err, errlen);
    if (!buf) return false;
    char why[300];
    bool ok = fmag_vm_image_read(img, buf, len, why, sizeof why);
    if (!ok) snprintf(err, errlen, "%s: %s", path, why);
    free(buf);
    return ok;
}

bool fmag_vm_image_save(const fmag_vm_image *img, const char *path, char *err, size_t errlen)
{
    void *data;
    size_t len;
    if (!fmag_vm_image_write(img, &data, &len, err, errlen)) return false;
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
        free(data);
        return false;
    }
    bool ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    free(data);
    if (!ok) snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
    return ok;
}
