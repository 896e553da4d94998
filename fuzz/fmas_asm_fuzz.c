/* libFuzzer harness for the .fmas assembler: any accepted text must disassemble
 * to text that re-assembles to the same bits, and its binary must read back to
 * the same programs. Rejected text must leave a diagnostic and no programs. */
#define _POSIX_C_SOURCE 200809L
#include "fmag/Asm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_image(const fmag_vm_image *a, const fmag_vm_image *b)
{
    if (a->nprograms != b->nprograms) return false;
    for (size_t i = 0; i < a->nprograms; i++) {
        const fmag_vm_program *p = &a->programs[i], *q = &b->programs[i];
        if (strcmp(p->name, q->name) || p->flags != q->flags || p->regs != q->regs ||
            p->nin != q->nin || p->nout != q->nout || p->ninstr != q->ninstr ||
            (p->ninstr && memcmp(p->code, q->code, p->ninstr * sizeof(fmag_vm_instr))))
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fmag_context *ctx = fmag_context_create();
    fmag_vm_image img, again, back;
    fmag_vm_image_init(&img);
    fmag_vm_image_init(&again);
    fmag_vm_image_init(&back);
    bool ok = fmag_asm_parse(ctx, "fuzz.fmas", (const char *)data, size, &img);
    if (!ok) {
        if (fmag_context_diag_count(ctx) == 0 || img.nprograms != 0) __builtin_trap();
        fmag_context_destroy(ctx);
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) abort();
    fmag_asm_print_image(&img, f);
    fclose(f);
    if (!fmag_asm_parse(ctx, "disasm.fmas", text, len, &again) || !same_image(&img, &again))
        __builtin_trap();
    void *bin;
    size_t blen;
    char err[512];
    if (!fmag_vm_image_write(&img, &bin, &blen, err, sizeof err) ||
        !fmag_vm_image_read(&back, bin, blen, err, sizeof err) || !same_image(&img, &back))
        __builtin_trap();
    free(bin);
    free(text);
    fmag_vm_image_free(&img);
    fmag_vm_image_free(&again);
    fmag_vm_image_free(&back);
    fmag_context_destroy(ctx);
    return 0;
}
