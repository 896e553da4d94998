/* GLSL/HLSL front door: #include resolution (directories, the embedder's resolver, #pragma once)
 * and #version. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "GlslangDiag.h"
#include "ShaderFront.h"

#ifdef FMAG_HAVE_SHADERC

/* -------------------------------------------------------------- shaderc */

/* The next line from *pos that is the directive `#WORD` (blanks allowed around '#'):
 * where its argument starts (after WORD and blanks) and the line's end; NULL when
 * there is none. *pos moves past the line. */
static const char *next_directive(const char *s, size_t n, size_t *pos, const char *word,
                                  const char **eol)
{
    size_t wl = strlen(word);
    while (*pos < n) {
        size_t i = *pos, e = i;
        while (e < n && s[e] != '\n')
            e++;
        *pos = e + 1;
        while (i < e && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == e || s[i] != '#') continue;
        for (i++; i < e && (s[i] == ' ' || s[i] == '\t'); i++)
            ;
        if (e - i < wl || memcmp(s + i, word, wl) ||
            (e - i > wl && s[i + wl] != ' ' && s[i + wl] != '\t'))
            continue;
        for (i += wl; i < e && (s[i] == ' ' || s[i] == '\t'); i++)
            ;
        *eol = s + e;
        return s + i;
    }
    return NULL;
}

/* The number of the text's `#version N` line, 0 without one. Below 450 (a file written
 * for OpenGL, `#version 330`; Vulkan GLSL needs 140 at least, the wrapper 450) it is
 * raised to 450, as a file without one gets; above, glslang is held to it (460's
 * features; `#version 999` is its error, not silently 450). */
unsigned shf_glsl_version(const char *s, size_t n)
{
    size_t pos = 0;
    const char *eol, *a = next_directive(s, n, &pos, "version", &eol);
    unsigned v = 0; /* the text need not end in a NUL: digits up to the line's end */
    for (; a && a < eol && shf_is_digit(*a) && v < 100000; a++)
        v = v * 10 + (unsigned)(*a - '0');
    return v;
}

/* #include (GL_GOOGLE_include_directive in GLSL, HLSL's own): shaderc asks for each
 * file. A quoted name is looked for beside the including file, then in the include
 * directories; <name> in the directories only (as glslc -I). The result and its text
 * belong to shaderc until it releases them, outside any guard: plain malloc. */
enum { INCLUDE_MAX_DEPTH = 64, INCLUDE_MAX_BYTES = 64 << 20 };

typedef struct include_result {
    shaderc_include_result r;
    char *name, *text;
} include_result;

static char *read_whole(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    char *buf = NULL;
    long n = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
    if (n >= 0 && n <= INCLUDE_MAX_BYTES && fseek(fp, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf) buf[n] = 0, *len = (size_t)n;
    return buf;
}

/* dir + "/" + name (name alone when dir is empty or name is absolute). */
static char *join_path(const char *dir, size_t dlen, const char *name)
{
    if (name[0] == '/') dlen = 0;
    size_t n = strlen(name);
    char *p = malloc(dlen + n + 2);
    if (!p) return NULL;
    memcpy(p, dir, dlen);
    if (dlen && dir[dlen - 1] != '/') p[dlen++] = '/';
    memcpy(p + dlen, name, n + 1);
    return p;
}

static bool record_include(front *f, const char *name, const char *text, size_t len)
{
    included *v = realloc(f->incl, (f->nincl + 1) * sizeof *v);
    if (!v) return false;
    f->incl = v;
    size_t nl = strlen(name);
    char *n = malloc(nl + 1), *t = malloc(len + 1);
    if (!n || !t) {
        free(n);
        free(t);
        return false;
    }
    memcpy(n, name, nl + 1);
    memcpy(t, text, len);
    t[len] = 0;
    f->incl[f->nincl++] = (included){n, t, len};
    return true;
}

/* The file system's answer: beside the including file first (quoted names), then each
 * directory. The path and text in *name and *text (malloc), or false. */
static bool include_from_dirs(const front *f, const char *requested, bool quoted,
                              const char *requesting, char **name, char **text, size_t *len)
{
    for (size_t k = quoted ? 0 : 1; k <= f->ninclude_dirs; k++) {
        const char *dir = k ? f->include_dirs[k - 1] : requesting;
        if (!dir) continue;
        const char *slash = k ? NULL : strrchr(requesting, '/');
        size_t dlen = k ? strlen(dir) : slash ? (size_t)(slash - requesting) : 0;
        char *path = join_path(dir, dlen, requested);
        char *t = path ? read_whole(path, len) : NULL;
        if (t) {
            *name = path, *text = t;
            return true;
        }
        free(path);
    }
    return false;
}

/* Whether a line of the text is `#pragma once`. */
static bool has_pragma_once(const char *s, size_t n)
{
    size_t pos = 0;
    const char *eol, *a;
    while ((a = next_directive(s, n, &pos, "pragma", &eol)))
        if (eol - a >= 4 && !memcmp(a, "once", 4)) return true;
    return false;
}

shaderc_include_result *shf_include_resolve(void *user, const char *requested, int type,
                                            const char *requesting, size_t depth)
{
    front *f = user;
    include_result *res = calloc(1, sizeof *res);
    if (!res) return NULL;
    bool quoted = type == shaderc_include_type_relative;
    size_t len = 0;
    if (depth > INCLUDE_MAX_DEPTH) {
        res->text = malloc(64);
        if (res->text)
            snprintf(res->text, 64, "#include nested more than %d deep", INCLUDE_MAX_DEPTH);
    } else if (f->include_fn && f->include_fn(f->include_user, requested, requesting, quoted,
                                              &res->text, &len, &res->name)) {
        if (!res->name) { /* the name as written, then */
            res->name = malloc(strlen(requested) + 1);
            if (res->name) strcpy(res->name, requested);
        }
        if (!res->text || !res->name) {
            free(res->text), free(res->name);
            res->text = res->name = NULL;
        }
    } else {
        include_from_dirs(f, requested, quoted, requesting, &res->name, &res->text, &len);
    }
    /* #pragma once (glslang does not implement it): a second inclusion is empty. */
    bool again = false;
    for (size_t k = 0; res->name && k < f->nincl && !again; k++)
        again = !strcmp(f->incl[k].name, res->name);
    if (again && has_pragma_once(res->text, len)) {
        len = 0;
    } else if (res->name && !record_include(f, res->name, res->text, len)) {
        free(res->name), free(res->text);
        res->name = NULL;
        res->text = NULL;
    }
    if (!res->name && !res->text) {
        /* glslang asks for a quoted name again as <name> when it is not found: the
         * message is for the name as written. */
        bool as_quoted = quoted || !strcmp(requested, f->unfound);
        if (quoted) snprintf(f->unfound, sizeof f->unfound, "%s", requested);
        res->text = malloc(400);
        if (res->text)
            snprintf(res->text, 400, "cannot find %s%s%s %s", as_quoted ? "'" : "<", requested,
                     as_quoted ? "'" : ">",
                     as_quoted ? (f->ninclude_dirs ? "beside the including file or in the "
                                                     "include directories"
                                                   : "beside the including file (no include "
                                                     "directories given: -I DIR)")
                               : (f->ninclude_dirs ? "in the include directories"
                                                   : "(no include directories given: -I DIR)"));
    }
    res->r.source_name = res->name ? res->name : "";
    res->r.source_name_length = res->name ? strlen(res->name) : 0;
    res->r.content = res->text ? res->text : "out of memory";
    res->r.content_length = res->text ? (res->name ? len : strlen(res->text)) : 13;
    res->r.user_data = res;
    return &res->r;
}

void shf_include_release(void *user, shaderc_include_result *r)
{
    (void)user;
    include_result *res = r->user_data;
    free(res->name);
    free(res->text);
    free(res);
}

#endif /* FMAG_HAVE_SHADERC */
