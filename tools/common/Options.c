/* The table-driven option parser and --help every tool shares (Options.h). */
#include "Options.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int fmag_tool_error(const fmag_tool *tool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", tool->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* The name after its dashes, and whether the dashes may vary: a name of more than
 * one letter is the same option with one dash or two (-passes, --passes), as in
 * LLVM's tools; a one-letter name keeps its one dash (-o, -d). */
static const char *bare(const char *s, size_t n, size_t *len)
{
    size_t d = n >= 2 && s[0] == '-' && s[1] == '-' ? 2 : n >= 1 && s[0] == '-' ? 1 : 0;
    *len = n - d;
    return s + d;
}

static bool same_spelling(const char *name, size_t nlen, const char *s, size_t slen)
{
    if (nlen == slen && !strncmp(name, s, slen)) return true;
    size_t bn, bs;
    const char *a = bare(name, nlen, &bn), *b = bare(s, slen, &bs);
    return a != name && b != s && bn > 1 && bn == bs && !strncmp(a, b, bn);
}

/* Whether `names` ('|'-separated) contains the spelling s[0..n). */
static bool names_have(const char *names, const char *s, size_t n)
{
    while (*names) {
        const char *bar = strchr(names, '|');
        size_t len = bar ? (size_t)(bar - names) : strlen(names);
        if (same_spelling(names, len, s, n)) return true;
        if (!bar) break;
        names = bar + 1;
    }
    return false;
}

/* The length of the spelling in `names` that starts s and leaves a non-empty
 * rest (for glued values, -oFILE), or 0. Glued values keep the exact spelling. */
static size_t names_prefix(const char *names, const char *s)
{
    while (*names) {
        const char *bar = strchr(names, '|');
        size_t len = bar ? (size_t)(bar - names) : strlen(names);
        if (len < strlen(s) && !strncmp(names, s, len)) return len;
        if (!bar) break;
        names = bar + 1;
    }
    return 0;
}

static bool is_help(const char *a)
{
    return !strcmp(a, "--help") || !strcmp(a, "-help") || !strcmp(a, "-h");
}

/* -O<digits>, with one dash or two (--O3 as the tools' other spellings). */
static bool is_opt_level(const char *a)
{
    a += a[1] == '-' ? 2 : 1;
    return a[0] == 'O' && a[1] && strspn(a + 1, "0123456789") == strlen(a + 1);
}

static bool takes_levels(const fmag_opt_parser *p)
{
    for (size_t k = 0; k < p->nopts; k++)
        if (p->opts[k].kind != FMAG_OPT_SECTION && names_have(p->opts[k].names, "-O0", 3))
            return true;
    return false;
}

static bool is_version(const char *a)
{
    return !strcmp(a, "--version") || !strcmp(a, "-version");
}

bool fmag_opt_invalid_value(const fmag_tool *tool, const char *spelling, const char *value,
                            const char *expected, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, expected);
    vsnprintf(what, sizeof what, expected, ap);
    va_end(ap);
    fmag_tool_error(tool, "invalid value '%s' for %.*s (expected %s)", value,
                    (int)strcspn(spelling, "="), spelling, what);
    return false;
}

bool fmag_opt_uint_value(const fmag_tool *tool, const char *spelling, const char *value,
                         unsigned long long min, unsigned long long max, unsigned long long *out)
{
    unsigned long long v = 0;
    const char *s = value;
    bool wraps = false;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned long long d = (unsigned long long)(*s - '0');
        if (v > (~0ull - d) / 10) wraps = true; /* v * 10 + d would wrap */
        v = v * 10 + d;
    }
    if (!*s && s != value && !wraps && v >= min && v <= max) {
        *out = v;
        return true;
    }
    if (max != ~0ull)
        return fmag_opt_invalid_value(tool, spelling, value, "%llu to %llu", min, max);
    if (min) return fmag_opt_invalid_value(tool, spelling, value, "%llu or more", min);
    return fmag_opt_invalid_value(tool, spelling, value, "an unsigned integer");
}

bool fmag_opt_switch_value(const fmag_tool *tool, const char *spelling, const char *value, bool *on)
{
    if (!value || !strcmp(value, "1") || !strcmp(value, "true")) {
        *on = true;
        return true;
    }
    if (!strcmp(value, "0") || !strcmp(value, "false")) {
        *on = false;
        return true;
    }
    return fmag_opt_invalid_value(tool, spelling, value, "0 or 1");
}

/* Gives the option its value; false after printing an error. */
static bool apply(const fmag_opt_parser *p, const fmag_option *o, const char *spelling,
                  const char *value)
{
    if (value && !*value && !(o->value & FMAG_OPT_EMPTY_OK)) {
        fmag_tool_error(p->tool, "%.*s needs a non-empty value", (int)strcspn(spelling, "="),
                        spelling);
        return false;
    }
    switch (o->kind) {
    case FMAG_OPT_FLAG:
        *(bool *)o->dest = true;
        return true;
    case FMAG_OPT_STRING:
        *(const char **)o->dest = value;
        return true;
    case FMAG_OPT_CALL:
        return o->fn(p->tool, o->dest, spelling, value);
    case FMAG_OPT_UINT:
        return fmag_opt_uint_value(p->tool, spelling, value, 0, ~0ull,
                                   (unsigned long long *)o->dest);
    case FMAG_OPT_DOUBLE: {
        char *end;
        double v = strtod(value, &end);
        if (*end || end == value)
            return fmag_opt_invalid_value(p->tool, spelling, value, "a number");
        *(double *)o->dest = v;
        return true;
    }
    case FMAG_OPT_SECTION:
        break;
    }
    return false;
}

int fmag_opt_parse(const fmag_opt_parser *p, int argc, char **argv)
{
    /* --help and --version answer before anything else on the line is checked (up to
     * a `--`, after which every argument is an operand, as getopt has it). */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        if (is_help(argv[i])) {
            fmag_opt_print_help(p, stdout);
            return 0;
        }
        if (is_version(argv[i])) {
            printf("%s (FMAG) %s\n", p->tool->name, FMAG_VERSION_STRING);
            return 0;
        }
    }
    bool operands_only = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!operands_only && !strcmp(a, "--")) {
            operands_only = true;
            continue;
        }
        if (operands_only || a[0] != '-' || !a[1]) {
            if (!p->positional) {
                fmag_tool_error(p->tool, "unexpected argument '%s' (see --help)", a);
                return 1;
            }
            if (!p->positional(p->tool, p->user, a)) return 1;
            continue;
        }
        const char *eq = strchr(a, '=');
        const fmag_option *hit = NULL;
        const char *value = NULL;
        bool need_next = false;
        /* Exact spellings first, then -flag=VALUE, then glued -flagVALUE. */
        for (size_t k = 0; k < p->nopts && !hit; k++) {
            const fmag_option *o = &p->opts[k];
            if (o->kind == FMAG_OPT_SECTION) continue;
            if (names_have(o->names, a, strlen(a))) {
                hit = o;
                need_next = o->value & FMAG_OPT_NEXT;
                if (!need_next && !(o->value & FMAG_OPT_OPTIONAL) &&
                    (o->value & (FMAG_OPT_EQ | FMAG_OPT_GLUED))) {
                    fmag_tool_error(p->tool, "%s needs a value (%s=%s)", a, a,
                                    o->meta ? o->meta : "VALUE");
                    return 1;
                }
            }
        }
        for (size_t k = 0; k < p->nopts && !hit && eq; k++) {
            const fmag_option *o = &p->opts[k];
            if (o->kind == FMAG_OPT_SECTION) continue;
            if (names_have(o->names, a, (size_t)(eq - a))) {
                if (!(o->value & FMAG_OPT_EQ)) {
                    if (o->value & FMAG_OPT_NEXT)
                        fmag_tool_error(
                            p->tool, "%.*s takes its value as the next argument (%.*s %s)",
                            (int)(eq - a), a, (int)(eq - a), a, o->meta ? o->meta : "VALUE");
                    else
                        fmag_tool_error(p->tool, "%.*s takes no value", (int)(eq - a), a);
                    return 1;
                }
                hit = o;
                value = eq + 1;
            }
        }
        for (size_t k = 0; k < p->nopts && !hit; k++) {
            const fmag_option *o = &p->opts[k];
            if (o->kind == FMAG_OPT_SECTION || !(o->value & FMAG_OPT_GLUED)) continue;
            size_t n = names_prefix(o->names, a);
            if (n) {
                hit = o;
                value = a + n;
            }
        }
        if (!hit) {
            int took = p->unknown ? p->unknown(p->tool, p->user, a) : 0;
            if (took < 0) return 1;
            if (took) continue;
            /* An -O<n> the tool does not list, in a tool that takes levels (-O0 in
             * its table): name the ones there are, the pipelines of lib/Transforms. */
            if (is_opt_level(a) && takes_levels(p))
                fmag_tool_error(p->tool, "unknown option '%s' (optimization levels: -O0, -O1, -O2)",
                                a);
            else
                fmag_tool_error(p->tool, "unknown option '%s' (see --help)", a);
            return 1;
        }
        if (need_next) {
            if (i + 1 >= argc) {
                fmag_tool_error(p->tool, "%s needs a value", a);
                return 1;
            }
            value = argv[++i];
        }
        if (!apply(p, hit, a, value)) return 1;
    }
    return FMAG_OPT_RUN;
}

/* The column where help text starts, as LLVM tools and the old hand-written texts. */
enum { HELP_COLUMN = 21 };

static void print_lines(FILE *out, const char *text, int column, bool first_indented)
{
    bool first = true;
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        if (!first || first_indented) fprintf(out, "%*s", column, "");
        fprintf(out, "%.*s\n", (int)len, text);
        first = false;
        text += len + (nl ? 1 : 0);
    }
}

void fmag_opt_print_help(const fmag_opt_parser *p, FILE *out)
{
    fputs(p->tool->usage, out);
    for (size_t k = 0; k < p->nopts; k++) {
        const fmag_option *o = &p->opts[k];
        if (o->kind == FMAG_OPT_SECTION) {
            fprintf(out, "\n%s\n", o->help);
            continue;
        }
        if (!o->help) continue;
        /* "-a, --b VALUE": every spelling, then the value as the option takes it. */
        char left[160];
        size_t n = 0;
        for (const char *s = o->names; *s && n + 3 < sizeof left; s++)
            if (*s == '|') {
                left[n++] = ',';
                left[n++] = ' ';
            } else {
                left[n++] = *s;
            }
        left[n] = 0;
        if (o->meta)
            snprintf(left + n, sizeof left - n, "%s%s%s",
                     (o->value & FMAG_OPT_NEXT)       ? " "
                     : (o->value & FMAG_OPT_OPTIONAL) ? "[="
                     : (o->value & FMAG_OPT_EQ)       ? "="
                                                      : "",
                     o->meta, (o->value & FMAG_OPT_OPTIONAL) ? "]" : "");
        int w = fprintf(out, "  %s", left);
        if (w + 1 >= HELP_COLUMN) {
            fputc('\n', out);
            print_lines(out, o->help, HELP_COLUMN, true);
        } else {
            fprintf(out, "%*s", HELP_COLUMN - w, "");
            print_lines(out, o->help, HELP_COLUMN, false);
        }
    }
    fprintf(out, "  --help, --version\n");
    if (p->tool->notes) fprintf(out, "\n%s", p->tool->notes);
    if (p->tool->more_help) p->tool->more_help(out);
}
