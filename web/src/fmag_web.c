/* The C side of the WebAssembly build: what the page needs beside fmag/fmag.h that a
 * JavaScript caller cannot do through the public API alone (options and diagnostic
 * structs are read and written here, not at hard-coded offsets in JavaScript; the
 * optimized IR and slc -S's exact text need the layer headers). Both compiles go
 * through the one compile driver, fmag_compile_ex. Exported by name from
 * web/CMakeLists.txt; wrapped by web/page/fmag.js. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmag/Asm.h"
#include "fmag/IR.h"
#include "fmag/fmag.h"

/* The page's compile options (the rest stay at their defaults). */
static void page_options(fmag_compile_options *o, int lang, const char *pipeline, int fastmath)
{
    fmag_compile_options_init(o);
    o->language = (fmag_language)lang;
    o->pipeline = pipeline && *pipeline ? pipeline : NULL;
    o->fastmath = fastmath != 0;
}

/* The programs, through the compile driver (fmag_compile_ex, as slc); NULL with
 * diagnostics in ctx. */
fmag_image *fmag_web_compile(fmag_context *ctx, const char *filename, const char *src, size_t len,
                             int lang, const char *pipeline, int fastmath, int fast_codegen)
{
    fmag_compile_options o;
    page_options(&o, lang, pipeline, fastmath);
    o.fast_codegen = fast_codegen != 0;
    fmag_compile_result r;
    fmag_compile_result_init(&r);
    return fmag_compile_ex(ctx, filename, src, len, &o, &r) == FMAG_OK ? r.image : NULL;
}

/* Text written to a FILE through open_memstream, or NULL when out of memory. */
typedef void (*print_fn)(const void *obj, FILE *out);

static char *print_to_string(print_fn fn, const void *obj)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    fn(obj, f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void print_image(const void *img, FILE *out)
{
    fmag_asm_print_image(fmag_image_vm((const fmag_image *)img), out);
}

static void print_module(const void *m, FILE *out)
{
    fmag_module_print((fmag_module *)m, out, FMAG_PRINT_DEFAULT);
}

/* Every program of the image as .fmas, exactly what `slc -S` prints (malloc'ed). */
char *fmag_web_disassemble_image(const fmag_image *img)
{
    return img ? print_to_string(print_image, img) : NULL;
}

/* The module after the front end and the pipeline (what `fmag-opt -O2` prints for
 * .fir; `slc -emit-ir` piped through it for SL), malloc'ed; NULL with diagnostics in
 * ctx. .fmas has no IR: an empty string. The image comes from fmag_web_compile; this is
 * a second run of the driver on the same text, stopping after the passes, for the IR
 * pane only. The text is printed here rather than emitted by the driver (FMAG_EMIT_FIR),
 * which writes through a temporary file, and the page has no file system. */
char *fmag_web_optimized_ir(fmag_context *ctx, const char *filename, const char *src, size_t len,
                            int lang, const char *pipeline, int fastmath)
{
    fmag_compile_options o;
    page_options(&o, lang, pipeline, fastmath);
    o.stop_after = FMAG_STAGE_PASSES;
    fmag_compile_result r;
    fmag_compile_result_init(&r);
    if (fmag_compile_ex(ctx, filename, src, len, &o, &r) != FMAG_OK) return NULL;
    if (!r.module) { /* .fmas: assembled as written */
        fmag_compile_result_free(&r);
        char *empty = malloc(1);
        if (empty) *empty = 0;
        return empty;
    }
    return print_to_string(print_module, r.module);
}

/* Diagnostic i's fields (fmag_diagnostic is a struct: read here, not in JavaScript). */
static fmag_diagnostic diag_of(const fmag_context *ctx, size_t i)
{
    fmag_diagnostic d;
    if (!fmag_context_diag_record(ctx, i, &d)) memset(&d, 0, sizeof d);
    return d;
}

unsigned fmag_web_diag_line(const fmag_context *ctx, size_t i)
{
    return diag_of(ctx, i).line;
}

unsigned fmag_web_diag_column(const fmag_context *ctx, size_t i)
{
    return diag_of(ctx, i).column;
}

int fmag_web_diag_severity(const fmag_context *ctx, size_t i)
{
    return (int)diag_of(ctx, i).severity;
}

const char *fmag_web_diag_message(const fmag_context *ctx, size_t i)
{
    const char *s = diag_of(ctx, i).message;
    return s ? s : "";
}

const char *fmag_web_diag_text(const fmag_context *ctx, size_t i)
{
    const char *s = diag_of(ctx, i).text;
    return s ? s : "";
}

/* The program's code words (ninstr * 4 little-endian u32: the .fmag bytes, which the
 * GPU interpreters upload as they are). wasm is little-endian, as the file is. */
const uint32_t *fmag_web_program_code(const fmag_vm_program *p)
{
    return p ? (const uint32_t *)p->code : NULL;
}

void fmag_web_free(void *p)
{
    free(p);
}
