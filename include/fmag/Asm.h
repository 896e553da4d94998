/* FMAG Asm: the .fmas assembly text of the machine (assembler and disassembler). */
#ifndef FMAG_ASM_H
#define FMAG_ASM_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdio.h>
#include "fmag/IR.h"
#include "fmag/VM.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Assembles .fmas text; each .def becomes one program appended to img. On error
 * returns false with "file:line:col: error: ..." diagnostics (source line and caret)
 * in ctx, one per bad line, and appends nothing. Syntax: docs/Encoding.md. */
bool fmag_asm_parse(fmag_context *ctx, const char *filename, const char *text, size_t len,
                    fmag_vm_image *img);
/* Disassembles; the text re-assembles to the same bits. */
void fmag_asm_print_program(const fmag_vm_program *p, FILE *out);
void fmag_asm_print_image(const fmag_vm_image *img, FILE *out);
/* Writes a literal (buf of at least 32 bytes) in the shortest decimal that reads
 * back to the same bits; returns buf. */
char *fmag_asm_format_float(char *buf, float f);
/* Prints a program name as .def spells it: bare when it is an identifier, else
 * double-quoted with \\, \" and \xHH escapes. */
void fmag_asm_print_name(const char *name, FILE *out);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_ASM_H */
