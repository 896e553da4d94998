/* fmag-as: the .fmas assembler, .fmag disassembler and header dump; a thin driver
 * over lib/AsmParser and lib/VM. */
#include "fmag/Asm.h"
#include "fmag/VM.h"
#include "Options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const fmag_tool as_tool = {
    "fmag-as",
    "usage: fmag-as [options] FILE\n"
    "\n"
    "Assembles FILE.fmas into FILE.fmag (one record per .def), or inspects a .fmag.\n"
    "FILE may be '-' for standard input.\n"
    "\n"
    "options:\n",
    NULL, NULL};

static bool read_image(const char *path, fmag_vm_image *img, char *err, size_t errlen)
{
    size_t len;
    char *data = fmag_vm_read_file(path, &len, err, errlen);
    if (!data) return false;
    /* Anything FMAG knows that is not a .fmag is named; data of no known kind goes to
     * the reader, which says what is wrong with it as a .fmag. */
    fmag_vm_file_evidence ev;
    fmag_vm_file_kind kind = fmag_vm_file_kind_of(path, data, len, &ev);
    if (kind != FMAG_VM_FILE_FMAG && kind != FMAG_VM_FILE_UNKNOWN && kind != FMAG_VM_FILE_TEXT) {
        fmag_tool_wrong_kind_message(err, errlen, path, kind, ev);
        free(data);
        return false;
    }
    char why[400];
    bool ok = fmag_vm_image_read(img, data, len, why, sizeof why);
    if (!ok) snprintf(err, errlen, "%s: %s", path, why);
    free(data);
    return ok;
}

/* x.fmas -> x.fmag; anything else gets .fmag appended. */
static char *default_output(const char *in)
{
    size_t n = strlen(in);
    char *out = malloc(n + 6);
    if (!out) return NULL;
    memcpy(out, in, n + 1);
    if (n > 5 && !strcmp(in + n - 5, ".fmas")) out[n - 5] = 0;
    strcat(out, ".fmag");
    return out;
}

static FILE *open_out(const char *path, const char *mode)
{
    if (!path || !strcmp(path, "-")) return stdout;
    return fopen(path, mode);
}

/* --emit: the image as straight-line source (lib/VM/EmitSource.c). */
static int emit_source(fmag_vm_image *img, fmag_vm_emit_lang lang, const fmag_vm_emit_options *eo,
                       const char *output)
{
    char err[600];
    char *src;
    size_t slen;
    const fmag_vm_program **ps = malloc((img->nprograms ? img->nprograms : 1) * sizeof *ps);
    if (!ps) {
        fmag_vm_image_free(img);
        return fmag_tool_error(&as_tool, "out of memory");
    }
    for (size_t i = 0; i < img->nprograms; i++)
        ps[i] = &img->programs[i];
    bool ok = fmag_vm_emit_source_opts(ps, img->nprograms, lang, eo, &src, &slen, err, sizeof err);
    free(ps);
    fmag_vm_image_free(img);
    if (!ok) return fmag_tool_error(&as_tool, "%s", err);
    FILE *out = open_out(output, "w");
    if (!out) {
        int e = errno;
        free(src);
        return fmag_tool_error(&as_tool, "%s: cannot open for writing: %s", output, strerror(e));
    }
    ok = fwrite(src, 1, slen, out) == slen;
    ok = (out != stdout ? fclose(out) == 0 : fflush(out) == 0) && ok;
    free(src);
    return ok ? 0 : fmag_tool_error(&as_tool, "%s: write failed", output ? output : "<stdout>");
}

static bool take_input(const fmag_tool *tool, void *user, const char *arg)
{
    const char **input = user;
    if (*input) {
        fmag_tool_error(tool, "more than one input file ('%s' and '%s')", *input, arg);
        return false;
    }
    *input = arg;
    return true;
}

int main(int argc, char **argv)
{
    const char *input = NULL, *output = NULL;
    bool disasm = false, info = false, emit = false, nan_agnostic = false;
    const char *prefix = NULL;
    fmag_vm_emit_lang lang = FMAG_VM_EMIT_C;
    const char *emit_name = NULL;
    const fmag_option opts[] = {
        {"-o", FMAG_OPT_NEXT | FMAG_OPT_GLUED, FMAG_OPT_STRING, &output, NULL, "FILE",
         "write the output to FILE ('-' for standard output)"},
        {"-d", 0, FMAG_OPT_FLAG, &disasm, NULL, NULL,
         "disassemble a .fmag to .fmas text (re-assembles to the same bits)"},
        {"-i", 0, FMAG_OPT_FLAG, &info, NULL, NULL,
         "print each record's header of a .fmag: name, instructions, regs,\n"
         "inputs, outputs, flags"},
        {"--emit", FMAG_OPT_EQ, FMAG_OPT_STRING, &emit_name, NULL, "c|glsl|cuda",
         "write the programs of a .fmas or .fmag as straight-line source\n"
         "(standard output unless -o); docs/VM.md, \"Baking a program to source\""},
        {"--prefix", FMAG_OPT_EQ | FMAG_OPT_EMPTY_OK, FMAG_OPT_STRING, &prefix, NULL, "P",
         "identifier prefix of the emitted source (default fmag_baked_)"},
        {"--nan-agnostic", 0, FMAG_OPT_FLAG, &nan_agnostic, NULL, NULL,
         "--emit: a computed NaN keeps the hardware's payload (no\n"
         "canonical 0x7FC00000; faster); other results unchanged"},
    };
    const fmag_opt_parser parser = {&as_tool,   opts, sizeof opts / sizeof *opts,
                                    take_input, NULL, &input};
    int prc = fmag_opt_parse(&parser, argc, argv);
    if (prc != FMAG_OPT_RUN) return prc;
    if (emit_name) {
        if (!fmag_vm_emit_lang_parse(emit_name, &lang))
            return fmag_tool_error(&as_tool, "--emit wants c, glsl or cuda, not '%s'", emit_name);
        emit = true;
    }
    if (!input) return fmag_tool_error(&as_tool, "no input file (see --help)");
    if (fmag_tool_output_is_input(&as_tool, input, output)) return 1;
    if (disasm && info) return fmag_tool_error(&as_tool, "-d and -i cannot be combined");
    if (nan_agnostic && !emit) return fmag_tool_error(&as_tool, "--nan-agnostic needs --emit");
    if (emit && (disasm || info))
        return fmag_tool_error(&as_tool, "--emit cannot be combined with -d or -i");

    char err[600];
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    if (disasm || info) {
        if (!read_image(input, &img, err, sizeof err)) return fmag_tool_error(&as_tool, "%s", err);
        FILE *out = open_out(output, "w");
        if (!out) {
            fmag_vm_image_free(&img);
            return fmag_tool_error(&as_tool, "%s: cannot open for writing: %s", output,
                                   strerror(errno));
        }
        if (disasm) {
            fmag_asm_print_image(&img, out);
        } else {
            size_t off = 0;
            for (size_t r = 0; r < img.nprograms; r++) {
                const fmag_vm_program *p = &img.programs[r];
                fprintf(out, "record %zu at offset %zu: name=", r, off);
                fmag_asm_print_name(p->name, out);
                fprintf(out, " instructions=%u regs=%u inputs=%u outputs=%u flags=0x%x%s",
                        (unsigned)p->ninstr, (unsigned)p->regs, (unsigned)p->nin, (unsigned)p->nout,
                        (unsigned)p->flags,
                        (p->flags & FMAG_VM_FLAG_FASTMATH) ? " (fastmath)" : "");
                if (p->nderiv)
                    fprintf(out,
                            " (derivatives: %u inputs carry x and y derivatives, inputs %u..%u)",
                            (unsigned)p->nderiv, (unsigned)p->nin - 2u * p->nderiv,
                            (unsigned)p->nin - 1u);
                fputc('\n', out);
                off += FMAG_VM_HEADER_SIZE + ((strlen(p->name) + 15) & ~(size_t)15) +
                       (size_t)p->ninstr * 16;
            }
        }
        bool ok = !ferror(out);
        if (out != stdout) ok = fclose(out) == 0 && ok;
        fmag_vm_image_free(&img);
        return ok ? 0 : fmag_tool_error(&as_tool, "%s: write failed", output ? output : "<stdout>");
    }

    size_t len;
    char *text = fmag_tool_read_file(&as_tool, input, &len);
    if (!text) return 1;
    /* .fmas text, or text and data of no known kind (the assembler names what is wrong);
     * --emit also takes a .fmag. Any other kind is named with the tool that takes it. */
    fmag_vm_file_evidence ev;
    fmag_vm_file_kind kind = fmag_vm_file_kind_of(input, text, len, &ev);
    bool binary = kind == FMAG_VM_FILE_FMAG;
    if (binary && !emit) {
        free(text);
        return fmag_tool_error(&as_tool,
                               "%s is a .fmag binary: disassemble it with fmag-as -d, inspect it "
                               "with fmag-as -i, run it with fmag-run",
                               strcmp(input, "-") ? input : "<stdin>");
    }
    if (kind != FMAG_VM_FILE_FMAS && kind != FMAG_VM_FILE_TEXT && kind != FMAG_VM_FILE_UNKNOWN &&
        !binary) {
        free(text);
        return fmag_tool_wrong_kind(&as_tool, input, kind, ev);
    }
    bool ok;
    if (binary) {
        char why[400];
        ok = fmag_vm_image_read(&img, text, len, why, sizeof why);
        free(text);
        if (!ok) return fmag_tool_error(&as_tool, "%s: %s", input, why);
    } else {
        fmag_context *ctx = fmag_context_create();
        ok = fmag_asm_parse(ctx, strcmp(input, "-") ? input : "<stdin>", text, len, &img);
        free(text);
        if (!ok) {
            fmag_tool_print_diags(&as_tool, ctx);
            fmag_context_destroy(ctx);
            return 1;
        }
        fmag_context_destroy(ctx);
    }
    fmag_vm_emit_options eo = {prefix, nan_agnostic};
    if (emit) return emit_source(&img, lang, &eo, output);
    char *def_out = NULL;
    if (!output) {
        if (!strcmp(input, "-"))
            output = "-";
        else if (!(output = def_out = default_output(input))) {
            fmag_vm_image_free(&img);
            return fmag_tool_error(&as_tool, "out of memory");
        } else if (fmag_tool_default_output_is_input(&as_tool, input, output)) {
            fmag_vm_image_free(&img);
            free(def_out);
            return 1;
        }
    }
    void *data;
    size_t dlen;
    ok = fmag_vm_image_write(&img, &data, &dlen, err, sizeof err);
    fmag_vm_image_free(&img);
    if (!ok) {
        free(def_out);
        return fmag_tool_error(&as_tool, "%s", err);
    }
    FILE *out = open_out(output, "wb");
    if (!out) {
        int e = errno;
        free(data);
        fmag_tool_error(&as_tool, "%s: cannot open for writing: %s", output, strerror(e));
        free(def_out);
        return 1;
    }
    ok = fwrite(data, 1, dlen, out) == dlen;
    if (out != stdout)
        ok = fclose(out) == 0 && ok;
    else
        ok = fflush(out) == 0 && ok;
    free(data);
    if (!ok) fmag_tool_error(&as_tool, "%s: write failed", output);
    free(def_out);
    return ok ? 0 : 1;
}
