/* Input checks the .fir parser and the .fmas assembler share. */
#include <string.h>
#include "AsmParserInternal.h"

bool fmag_asm_refuse_binary(fmag_context *ctx, const char *file, const char **textp, size_t *lenp,
                            const char *what, const char *fmag_hint)
{
    /* A UTF-8 byte-order mark is accepted, as SL accepts it (editors on Windows). */
    size_t bom = fmag_text_bom_len(*textp, *lenp);
    *textp += bom, *lenp -= bom;
    const char *text = *textp;
    size_t len = *lenp;
    const char *nul = memchr(text, 0, len);
    if (!nul) return false;
    if (len >= 4 && !memcmp(text, "FMAG", 4))
        fmag_context_report(ctx, FMAG_DIAG_ERROR, file, 0, 0,
                            "this is a binary .fmag file, not %s text (%s)", what, fmag_hint);
    else
        fmag_context_report(ctx, FMAG_DIAG_ERROR, file, 0, 0,
                            "this is a binary file, not %s text (a NUL byte at "
                            "offset %zu)",
                            what, (size_t)(nul - text));
    return true;
}
