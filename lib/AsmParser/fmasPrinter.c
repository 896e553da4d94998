/* The .fmas disassembler: prints programs so that assembling the text gives back
 * the same bits (literals in shortest round-trip form, explicit .regs). */
#include "fmag/Asm.h"
#include "fmag/Bits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

char *fmag_asm_format_float(char *buf, float f)
{
    if (isnan(f) || isinf(f)) {
        /* Never a valid literal; printed so a reader sees what it is. */
        snprintf(buf, 32, "%s%s", signbit(f) ? "-" : "", isnan(f) ? "nan" : "inf");
        return buf;
    }
    /* The shortest %.Ng that reads back to the same bits; %.9g always does. */
    int prec = 1;
    for (; prec <= 9; prec++) {
        snprintf(buf, 32, "%.*g", prec, (double)f);
        if (fmag_bits_of(strtof(buf, NULL)) == fmag_bits_of(f)) break;
    }
    /* %g picks an exponent for 100 ("1e+02"); moderate magnitudes read better as
     * plain decimals with the same significant digits. */
    const char *e = strchr(buf, 'e');
    if (e) {
        int exp10 = atoi(e + 1);
        if (exp10 >= -4 && exp10 <= 6) {
            char fixed[48];
            int decimals = prec - 1 - exp10 > 0 ? prec - 1 - exp10 : 0;
            snprintf(fixed, sizeof fixed, "%.*f", decimals, (double)f);
            if (strlen(fixed) < 32 && fmag_bits_of(strtof(fixed, NULL)) == fmag_bits_of(f))
                strcpy(buf, fixed);
        }
    }
    if (!strpbrk(buf, ".e")) strcat(buf, ".0"); /* 1 -> 1.0, -0 -> -0.0: visibly a float */
    return buf;
}

static bool name_is_ident(const char *n)
{
    if (!*n) return false;
    for (const char *c = n; *c; c++) {
        bool alpha = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
                     *c == '.' || *c == '$';
        bool digit = *c >= '0' && *c <= '9';
        if (!alpha && !(digit && c != n)) return false;
    }
    return true;
}

void fmag_asm_print_name(const char *n, FILE *out)
{
    if (name_is_ident(n)) {
        fputs(n, out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)n; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7F)
            fprintf(out, "\\x%02x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static void print_operand(uint32_t w, FILE *out)
{
    if (fmag_vm_word_is_ref(w)) {
        fprintf(out, "%%r%u", (unsigned)(w & 0xFFFFu));
        return;
    }
    char buf[40];
    fputs(fmag_asm_format_float(buf, fmag_float_of(w)), out);
}

void fmag_asm_print_program(const fmag_vm_program *p, FILE *out)
{
    fputs(".def ", out);
    fmag_asm_print_name(p->name ? p->name : "", out);
    fprintf(out, ", %u, %u\n", (unsigned)p->nin, (unsigned)p->nout);
    fprintf(out, ".regs %u\n", (unsigned)p->regs);
    if (p->flags & FMAG_VM_FLAG_FASTMATH) fputs(".fastmath\n", out);
    if (p->nderiv) {
        unsigned n0 = (unsigned)p->nin - 2u * p->nderiv;
        fprintf(out,
                ".derivs %u    ; inputs r0..r%u, then the x derivatives of %u of them, then "
                "their y derivatives\n",
                (unsigned)p->nderiv, n0 ? n0 - 1 : 0, (unsigned)p->nderiv);
    }
    for (uint32_t i = 0; i < p->ninstr; i++) {
        fmag_vm_instr in = p->code[i];
        fprintf(out, "    %%r%u = fmag %%r%u, ", (unsigned)fmag_vm_instr_d(in),
                (unsigned)fmag_vm_instr_a(in));
        print_operand(in.b, out);
        fputs(", ", out);
        print_operand(in.c, out);
        fputs(", ", out);
        print_operand(in.g, out);
        fputc('\n', out);
    }
}

void fmag_asm_print_image(const fmag_vm_image *img, FILE *out)
{
    for (size_t i = 0; i < img->nprograms; i++) {
        if (i) fputc('\n', out);
        fmag_asm_print_program(&img->programs[i], out);
    }
}
