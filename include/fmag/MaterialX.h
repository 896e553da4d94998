/* FMAG MaterialX: a reader of MaterialX documents (versions 1.38 and 1.39, SPEC §5c)
 * that turns their node graphs into IR through the builder, with the standard
 * library's pattern nodes implemented here as IR (docs/MaterialX.md). */
#ifndef FMAG_MATERIALX_H
#define FMAG_MATERIALX_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include "fmag/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fmag_mtlx_options {
    bool fastmath; /* the module is marked fastmath; builtins may pick shorter sequences */
    /* Only this output becomes a program: "graph/output" for an output of a
     * <nodegraph>, "output" for a top-level <output>; NULL: every output. */
    const char *entry;
} fmag_mtlx_options;

/* Compiles a MaterialX document to an unoptimized IR module: one export function per
 * output (named "graph.output", or the output's name for a top-level one). Its
 * parameters are the graph's interface <input>s in document order, then the geometric
 * inputs the graph reads in a fixed order (docs/MaterialX.md, "Interface"), each
 * scalarized and named; its results are the output's components. Integer and boolean
 * values travel as floats (1.0 / 0.0 for booleans). Returns NULL with diagnostics
 * "file:line:col: error: ..." (the source line and a caret) in ctx; an output that needs
 * what FMAG cannot run (images, closures, lights) is a warning naming the node, its
 * category and type, and is left out. opts may be NULL. Never aborts on any input. */
fmag_module *fmag_mtlx_compile(fmag_context *ctx, const char *filename, const char *src, size_t len,
                               const fmag_mtlx_options *opts);

/* The context slot (Context.h) where fmag_mtlx_compile keeps the last document it
 * read, parsed, through fmag_context_reset: compiling that text again, or the text
 * with one attribute value changed (a node editor's edit), skips the XML parse
 * (docs/MaterialX.md, "A node editor's loop"). Setting the slot to NULL drops it. */
#define FMAG_MTLX_CONTEXT_SLOT "fmag.mtlx.document"

/* Whether text is a MaterialX document: after an optional byte-order mark, XML
 * declaration, comments and processing instructions, the root element is <materialx>. */
bool fmag_mtlx_is_document(const char *src, size_t len);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_MATERIALX_H */
