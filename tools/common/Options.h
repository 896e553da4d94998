/* The command-line prologue every tool shares: one table of options drives the
 * parser and --help; --help, --version, the "<tool>: error: " prefix and reading a
 * whole input file live here once. docs/Tools.md says which spellings each tool
 * accepts and why. */
#ifndef FMAG_TOOLS_COMMON_OPTIONS_H
#define FMAG_TOOLS_COMMON_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fmag/fmag.h" /* the context and compile types (the functions: fmagToolCompile) */

/* What a tool is: its name prefixes every error and starts --version's line. */
typedef struct fmag_tool {
    const char *name;  /* "fmag-run" */
    const char *usage; /* --help's first lines: "usage: ...\n\nWhat it does.\n" */
    const char *notes; /* printed after the option list, or NULL */
    /* More help after the notes (fmag-opt lists its passes), or NULL. */
    void (*more_help)(FILE *out);
} fmag_tool;

/* How an option takes its value (bits). A value given with '=' or as the next
 * argument is taken as is, even when it starts with '-' (--in -1,2 is a value). */
enum {
    FMAG_OPT_NO_VALUE = 0,
    FMAG_OPT_EQ = 1,        /* -flag=VALUE */
    FMAG_OPT_NEXT = 2,      /* -flag VALUE */
    FMAG_OPT_GLUED = 4,     /* -flagVALUE (as in -oFILE) */
    FMAG_OPT_EMPTY_OK = 8,  /* an empty VALUE is meaningful (otherwise an error) */
    FMAG_OPT_OPTIONAL = 16, /* with FMAG_OPT_EQ: -flag alone is allowed (value NULL) */
    FMAG_OPT_EQ_OR_NEXT = FMAG_OPT_EQ | FMAG_OPT_NEXT,
};

typedef enum fmag_opt_kind {
    FMAG_OPT_FLAG,    /* sets *(bool *)dest; a value is an error ("takes no value") */
    FMAG_OPT_STRING,  /* sets *(const char **)dest to the value */
    FMAG_OPT_CALL,    /* calls fn(tool, dest, spelling, value) */
    FMAG_OPT_UINT,    /* sets *(unsigned long long *)dest: decimal digits only */
    FMAG_OPT_DOUBLE,  /* sets *(double *)dest: all of the value as strtod reads it */
    FMAG_OPT_SECTION, /* no option: a heading in --help (help is its text) */
} fmag_opt_kind;

/* A handler: `spelling` is the argument as given (for messages), `value` is NULL for
 * an option without one. On a bad value it prints one line with fmag_tool_error
 * and returns false. */
typedef bool (*fmag_opt_fn)(const fmag_tool *tool, void *dest, const char *spelling,
                            const char *value);

typedef struct fmag_option {
    /* Spellings with their dashes, '|' between: "-o", "-v|--verbose". A name of more
     * than one letter also matches with the other number of dashes (--passes is
     * -passes); a one-letter name only as written. */
    const char *names;
    unsigned value; /* FMAG_OPT_* bits */
    fmag_opt_kind kind;
    void *dest;
    fmag_opt_fn fn;
    const char *meta; /* the value's name in --help ("FILE"), or NULL */
    const char *help; /* lines separated by '\n'; NULL keeps an alias out of --help */
} fmag_option;

/* One argument that is not an option ("-" alone is one). Returns false after
 * printing an error. */
typedef bool (*fmag_opt_positional_fn)(const fmag_tool *tool, void *user, const char *arg);
/* An option the table does not list (fmag-opt's pass names): returns 1 when it took
 * it, 0 when it is unknown, -1 after printing an error. */
typedef int (*fmag_opt_unknown_fn)(const fmag_tool *tool, void *user, const char *arg);

typedef struct fmag_opt_parser {
    const fmag_tool *tool;
    const fmag_option *opts;
    size_t nopts;
    fmag_opt_positional_fn positional; /* NULL: a positional argument is an error */
    fmag_opt_unknown_fn unknown;       /* NULL: an unlisted option is an error */
    void *user;                        /* passed to positional and unknown */
} fmag_opt_parser;

/* What fmag_opt_parse tells main to do. */
enum { FMAG_OPT_RUN = -1 }; /* otherwise: return this exit status (0 after --help) */

/* Parses argv[1..argc). --help (-help, -h) and --version (-version) are answered
 * here. Returns FMAG_OPT_RUN, or the status main returns: 0 after --help or
 * --version, 1 after an error (already printed as "<tool>: error: ..."). */
int fmag_opt_parse(const fmag_opt_parser *p, int argc, char **argv);

/* A bad option value, in the one form every tool prints for any value it refuses:
 * "invalid value 'V' for FLAG (expected WHAT)", FLAG being the spelling up to any '='
 * (a positional's name, "DEGREE", works too) and WHAT the printf-formatted rest:
 * "0 to 256", "0 or 1", "fast or full". Returns false, for `return
 * fmag_opt_invalid_value(...)` in a handler. */
bool fmag_opt_invalid_value(const fmag_tool *tool, const char *spelling, const char *value,
                            const char *expected, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* A whole decimal count from min to max (digits only: no sign, space or suffix), the
 * reader of every count option (FMAG_OPT_UINT rows use it with 0 to ULLONG_MAX).
 * Anything else prints "invalid value 'V' for FLAG (expected MIN to MAX)" ("an
 * unsigned integer" or "MIN or more" when max is ULLONG_MAX) and returns false. */
bool fmag_opt_uint_value(const fmag_tool *tool, const char *spelling, const char *value,
                         unsigned long long min, unsigned long long max, unsigned long long *out);

/* A switch that may be spelled out (a FMAG_OPT_CALL row with FMAG_OPT_EQ |
 * FMAG_OPT_OPTIONAL and meta "0|1", as fmag-opt's -verify-each): its handler reads the
 * value here. NULL (the flag alone), "1" and "true" are true, "0" and "false" false;
 * anything else prints "invalid value 'V' for -flag (expected 0 or 1)"
 * (fmag_opt_invalid_value) and returns false. Every tool's =0/=1 options read their value here, so
 * they all take the same spellings and say the same thing about a bad one. */
bool fmag_opt_switch_value(const fmag_tool *tool, const char *spelling, const char *value,
                           bool *on);

/* --help: the usage, the table, the notes. */
void fmag_opt_print_help(const fmag_opt_parser *p, FILE *out);

/* "<tool>: error: <message>\n" on stderr; returns 1 (the exit status). */
int fmag_tool_error(const fmag_tool *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Reads a whole input file ("-": standard input) with a NUL after the last byte;
 * NULL after printing "<tool>: error: cannot open ..." (ReadFile.c, links lib/VM). */
char *fmag_tool_read_file(const fmag_tool *tool, const char *path, size_t *len);

/* Whether -o names the input file itself (the same file, by device and inode, under
 * any spelling): then "<tool>: error: -o 'x.sl' is the input file ..." and true, so
 * that a slip such as `slc x.sl -o x.sl` does not replace the source. "-" for either
 * is never the same. The _default form words it for an output the tool named itself
 * beside the input (`slc x.spv -x glsl -emit-spirv`). */
bool fmag_tool_output_is_input(const fmag_tool *tool, const char *input, const char *output);
bool fmag_tool_default_output_is_input(const fmag_tool *tool, const char *input,
                                       const char *output);

/* A file of the wrong kind, in one line that says what it is and which tool takes it:
 * "x.fir is FMAG IR text: optimize it with fmag-opt, run it with fmag-run" ("looks
 * like" when only a guess from the text decided; path "-" is "<stdin>"). The message
 * alone, or printed as an error (returns 1). FileKind.c; the detection is lib/VM's
 * fmag_vm_file_kind_of. */
void fmag_tool_wrong_kind_message(char *buf, size_t n, const char *path, fmag_vm_file_kind kind,
                                  fmag_vm_file_evidence evidence);
int fmag_tool_wrong_kind(const fmag_tool *tool, const char *path, fmag_vm_file_kind kind,
                         fmag_vm_file_evidence evidence);

/* Prints a context's diagnostics to stderr; one without a source location
 * ("error: ...") gets the tool's prefix, as clang prints its own errors, while
 * "file:line:col: error: ..." stays as it is (Diag.c, links lib/IR). */
void fmag_tool_print_diags(const fmag_tool *tool, const fmag_context *ctx);

/* ------------------------------------------- the compiling tools (Compile.c) */

/* Option handlers slc and fmag-opt share: -lowering=fast|full (dest: bool, true for
 * fast; anything else is "-lowering wants 'fast' or 'full', not 'V'"),
 * -inline-budget=N and -unroll-budget=N (dest: unsigned long long, 1 or more) and
 * -ferror-limit=N (dest: unsigned long long, 0 to 2^32-1). */
bool fmag_opt_lowering(const fmag_tool *tool, void *dest, const char *spelling, const char *value);
bool fmag_opt_budget(const fmag_tool *tool, void *dest, const char *spelling, const char *value);
bool fmag_opt_error_limit(const fmag_tool *tool, void *dest, const char *spelling,
                          const char *value);

/* Writes len bytes to path (NULL or "-": standard output); false after printing
 * "cannot write 'PATH': reason". */
bool fmag_tool_write(const fmag_tool *tool, const char *path, const void *data, size_t len);

/* fmag_compile_ex, with *out set up first and the diagnostics printed on failure. */
bool fmag_tool_compile(const fmag_tool *tool, fmag_context *ctx, const char *shown, const char *src,
                       size_t len, const fmag_compile_options *opts, fmag_compile_result *out);

#endif
