/* glslang's error text in FMAG's words (GlslangDiag.c), for Shaderc.c's report. */
#ifndef FMAG_SPIRV_GLSLANG_DIAG_H
#define FMAG_SPIRV_GLSLANG_DIAG_H

#include <stdbool.h>
#include <stddef.h>

/* msg[0..n) is one glslang message after "file:line: error: " ("'zzz' : undeclared
 * identifier"). Writes the clean message to out ("use of undeclared identifier 'zzz'")
 * and the source token it is about to tok ("zzz"; empty when none), and returns true;
 * returns false for an error that only follows from an earlier one (earlier_errors),
 * which is better left out. hlsl: spell types as HLSL does. */
bool fmag_glslang_message(const char *msg, size_t n, bool hlsl, bool earlier_errors, char *out,
                          size_t outlen, char *tok, size_t toklen);

/* The 1-based column of tok on line[0..n) when it stands there exactly once as a whole
 * word or operator, else 0. */
unsigned fmag_glslang_token_column(const char *line, size_t n, const char *tok);

#endif
