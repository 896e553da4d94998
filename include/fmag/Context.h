/* The compilation context as an embedder sees it: an opaque handle that owns a
 * compile's memory and its diagnostics. fmag.h (the embedding API) and IR.h (the
 * builder, which adds arena allocation and the diagnostic producers) both include
 * this header, so an embedder never needs IR.h and IR.h never names what the layers
 * above keep in a context (the slots below are named by those layers).
 *
 * Ownership: a context owns every module and IR object made in it and the diagnostics
 * recorded in it; nothing is freed before fmag_context_reset or fmag_context_destroy.
 * No global mutable state: two threads may compile with two contexts. */
#ifndef FMAG_CONTEXT_H
#define FMAG_CONTEXT_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fmag_context fmag_context;
typedef struct fmag_module fmag_module; /* IR.h: the builder's view of a module */

fmag_context *fmag_context_create(void);
void fmag_context_destroy(fmag_context *ctx);
/* Frees everything allocated in ctx (every module and IR object becomes invalid)
 * and clears its diagnostics, but keeps the arena's memory (up to 8 MB; the rest
 * is freed) and the slots below for the next compile:
 * what a JIT that compiles program after program should do instead of
 * destroying and creating a context each time (docs/PERFORMANCE.md, bench/slc). */
void fmag_context_reset(fmag_context *ctx);

/* Objects a higher layer keeps for the life of the context, through resets (the
 * GLSL/HLSL front keeps its shaderc compiler in one, whose setup costs about 100 ms,
 * so that compiling shader after shader in one context pays it once). A slot is
 * named by a string its owner's header defines (SPIRV.h:
 * FMAG_CONTEXT_SLOT_SHADER_COMPILER), compared by content, so IR knows none of them
 * (the registry idea of Lua's lua_setfield(L, LUA_REGISTRYINDEX, name)); the name
 * must outlive the context (a string literal). Setting a slot destroys what it held
 * (destroy may be NULL); destroying the context destroys every object. At most
 * FMAG_CONTEXT_MAX_SLOTS names: setting a new one past that fails (false; nothing
 * is stored and obj is not destroyed). Get: NULL when the slot holds nothing. */
#define FMAG_CONTEXT_MAX_SLOTS 8
void *fmag_context_slot_get(const fmag_context *ctx, const char *name);
bool fmag_context_slot_set(fmag_context *ctx, const char *name, void *obj,
                           void (*destroy)(void *obj));

/* ------------------------------------------------------- resource budgets */

/* The most instructions one function, and the module's exports together, may have
 * after inlining (-inline-budget=N). The default stops a function that calls its
 * predecessor twice per level (2^n growth) long before memory or time run out; real
 * shaders are far below it. */
#define FMAG_DEFAULT_INLINE_BUDGET 200000u
void fmag_context_set_inline_budget(fmag_context *ctx, size_t max_instrs); /* 0: default */
size_t fmag_context_inline_budget(const fmag_context *ctx);

/* The most instructions one function may reach by loop unrolling (-unroll-budget=N);
 * a loop that would go past it is an error naming the loop and the budget. Large
 * enough for real shaders (a 64-tap loop of a 100-instruction body is 6400). */
#define FMAG_UNROLL_DEFAULT_BUDGET 100000u
void fmag_context_set_unroll_budget(fmag_context *ctx, size_t max_instrs); /* 0: default */
size_t fmag_context_unroll_budget(const fmag_context *ctx);

/* At most this many error diagnostics are kept (clang's -ferror-limit); the next
 * one becomes "error: too many errors emitted, stopping now" and the rest are
 * dropped. Parsers stop once the limit is reached. 0 means no limit. */
#define FMAG_DEFAULT_ERROR_LIMIT 20u
void fmag_context_set_error_limit(fmag_context *ctx, unsigned limit);
bool fmag_context_error_limit_reached(const fmag_context *ctx);

/* ------------------------------------------------------------ diagnostics */

/* Each diagnostic is one fully formatted message: for text input
 * "file:line:col: error: msg" followed by the source line and a caret line;
 * for IR checks "error: in function @f, block ^b, instruction %x: msg". */
size_t fmag_context_diag_count(const fmag_context *ctx);
const char *fmag_context_diag(const fmag_context *ctx, size_t i);
void fmag_context_diag_clear(fmag_context *ctx);
/* Writes every diagnostic, each followed by a newline. */
void fmag_context_diag_print(const fmag_context *ctx, FILE *out);

/* Every diagnostic also as a record, parsed from its text when it is recorded, for
 * embedders that show errors in their own UI (fmag/fmag.h). */
typedef enum fmag_diag_severity {
    FMAG_DIAG_ERROR,
    FMAG_DIAG_WARNING,
    FMAG_DIAG_NOTE,
} fmag_diag_severity;

typedef struct fmag_diagnostic {
    fmag_diag_severity severity;
    const char *file;      /* the file named by "file:line:col:", or NULL when none */
    unsigned line, column; /* 1-based; 0 when the diagnostic has none */
    const char *message;   /* the message alone: no position, severity or source line */
    const char *text;      /* the whole printed form, as fmag_context_diag returns it */
} fmag_diagnostic;

/* Records "file[:line[:col]]: severity: msg" with its parts as given, never read back
 * from the text: a file name (an OpString in a SPIR-V module, a path a user chose) may
 * hold anything, ": error: " included, and the record still names it right. file
 * NULL: "severity: msg" alone; line 0: no line; col 0: no column. msg may go on over
 * more lines (a source excerpt); the record's message is its first line. Every
 * producer that names a file reports through this. */
void fmag_context_report(fmag_context *ctx, fmag_diag_severity sev, const char *file, unsigned line,
                         unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Fills *out with diagnostic i (false when i >= fmag_context_diag_count). The strings
 * live until the diagnostics are cleared (diag_clear, reset, destroy). */
bool fmag_context_diag_record(const fmag_context *ctx, size_t i, fmag_diagnostic *out);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_CONTEXT_H */
