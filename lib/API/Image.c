/* fmag/fmag.h, images: reading, writing and inspecting compiled programs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "APIInternal.h"
#include "fmag/Asm.h"

fmag_image *fmag_image_read(fmag_context *ctx, const void *data, size_t len)
{
    fmag_image *img = fmag_api_image_new(ctx);
    if (!img) return NULL;
    char err[512];
    if (!fmag_vm_image_read(&img->vm, data, len, err, sizeof err)) {
        if (ctx) fmag_context_error(ctx, "error: %s", err);
        fmag_image_destroy(img);
        return NULL;
    }
    return img;
}

fmag_image *fmag_image_load(fmag_context *ctx, const char *path)
{
    fmag_image *img = fmag_api_image_new(ctx);
    if (!img) return NULL;
    char err[512];
    if (!fmag_vm_image_load(&img->vm, path, err, sizeof err)) {
        if (ctx) fmag_context_report(ctx, FMAG_DIAG_ERROR, path, 0, 0, "%s", err);
        fmag_image_destroy(img);
        return NULL;
    }
    return img;
}

bool fmag_image_write(fmag_context *ctx, const fmag_image *img, void **data, size_t *len)
{
    char err[512];
    if (!fmag_vm_image_write(&img->vm, data, len, err, sizeof err)) {
        if (ctx) fmag_context_error(ctx, "error: %s", err);
        return false;
    }
    return true;
}

bool fmag_image_save(fmag_context *ctx, const fmag_image *img, const char *path)
{
    char err[512];
    if (!fmag_vm_image_save(&img->vm, path, err, sizeof err)) {
        if (ctx) fmag_context_report(ctx, FMAG_DIAG_ERROR, path, 0, 0, "%s", err);
        return false;
    }
    return true;
}

void fmag_image_destroy(fmag_image *img)
{
    if (!img) return;
    fmag_vm_image_free(&img->vm);
    free(img);
}

size_t fmag_image_program_count(const fmag_image *img)
{
    return img->vm.nprograms;
}

const fmag_vm_program *fmag_image_program(const fmag_image *img, size_t i)
{
    return i < img->vm.nprograms ? &img->vm.programs[i] : NULL;
}

const fmag_vm_program *fmag_image_find(const fmag_image *img, const char *name)
{
    return fmag_vm_image_find(&img->vm, name);
}

const fmag_vm_image *fmag_image_vm(const fmag_image *img)
{
    return &img->vm;
}

const char *fmag_program_name(const fmag_vm_program *p)
{
    return p->name;
}

unsigned fmag_program_instr_count(const fmag_vm_program *p)
{
    return p->ninstr;
}

unsigned fmag_program_regs(const fmag_vm_program *p)
{
    return p->regs;
}

unsigned fmag_program_inputs(const fmag_vm_program *p)
{
    return p->nin;
}

unsigned fmag_program_outputs(const fmag_vm_program *p)
{
    return p->nout;
}

unsigned fmag_program_flags(const fmag_vm_program *p)
{
    return p->flags;
}

unsigned fmag_program_deriv_inputs(const fmag_vm_program *p)
{
    return p->nderiv;
}

bool fmag_program_instr(const fmag_vm_program *p, size_t i, fmag_vm_decoded *out)
{
    if (i >= p->ninstr) return false;
    fmag_vm_decode(p->code[i], out);
    return true;
}

/* The disassembler writes to a FILE; a temporary file keeps this to ISO C. */
