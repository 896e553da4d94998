/* slc: the shading language compiler driver (SPEC §5). A thin layer over
 * fmag_sl_compile, the pass pipelines, codegen and the .fmag/.fmas writers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmag/Asm.h"
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/SL.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: slc [options] <input.sl | ->\n"
                 "\n"
                 "Compiles a shading-language file. Each export function becomes one program;\n"
                 "by default the .fmag binary is written beside the input (x.sl -> x.fmag).\n"
                 "\n"
                 "options:\n"
                 "  -o FILE       write the output to FILE ('-' = standard output)\n"
                 "  -S            print the FMAG assembly (.fmas) instead of the binary\n"
                 "  -emit-ir      print the IR (.fir) before optimization\n"
                 "  -O0 -O1 -O2   optimization level (default -O2; lowering always inlines\n"
                 "                and if-converts)\n"
                 "  -ffast-math   allow contraction and reassociation; shorter builtins\n"
                 "  -entry NAME   compile only the export NAME\n"
                 "  -lowering=fast|full\n"
                 "                register allocation effort (default full: the fewest\n"
                 "                instructions, then registers; fast: two schedules, no\n"
                 "                search, for compile latency, as a JIT would use it)\n"
                 "  -inline-budget=N  most instructions of a function after inlining\n"
                 "                (default 200000; beyond it the compile is an error)\n"
                 "  -ferror-limit=N  stop after N errors (default 20; 0: no limit)\n"
                 "  --help, --version\n");
}


/* True when every export is one block without calls (what codegen accepts). */
static bool lowerable(fmag_module *m)
{
    fmag_foreach_func(f, m)
    {
        if (!f->is_export) return false;
        if (f->first != f->last) return false;
        fmag_foreach_instr(i, f->first)
        {
            if (i->op == FMAG_OP_CALL || i->op == FMAG_OP_PHI) return false;
        }
    }
    return true;
}

/* "-name=N" with N a decimal count below 2^32; false (and a message) otherwise. */
static bool count_flag(const char *a, unsigned long long *out)
{
    const char *value = strchr(a, '=') + 1;
    char *end;
    errno = 0;
    *out = strtoull(value, &end, 10);
    if (!*value || *end || errno || *value == '-' || *out > 0xFFFFFFFFull) {
        fprintf(stderr, "slc: error: '%s' wants a count (0 to 4294967295)\n", a);
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    unsigned long long inline_budget = 0, error_limit = FMAG_DEFAULT_ERROR_LIMIT;
    const char *input = NULL, *output = NULL, *level = "O2";
    bool emit_asm = false, emit_ir = false;
    fmag_sl_options opts = {false, NULL};
    fmag_codegen_options cg = {FMAG_CODEGEN_FULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("slc (FMAG) %s\n", FMAG_VERSION_STRING);
            return 0;
        } else if (!strcmp(a, "-S")) {
            emit_asm = true;
        } else if (!strcmp(a, "-emit-ir")) {
            emit_ir = true;
        } else if (!strcmp(a, "-O0") || !strcmp(a, "-O1") || !strcmp(a, "-O2")) {
            level = a + 1;
        } else if (!strcmp(a, "-ffast-math")) {
            opts.fastmath = true;
        } else if (!strcmp(a, "-lowering=fast") || !strcmp(a, "-lowering=full")) {
            cg.effort = a[10] == 'a' ? FMAG_CODEGEN_FAST : FMAG_CODEGEN_FULL;
        } else if (!strncmp(a, "-lowering", 9) || !strncmp(a, "--lowering", 10)) {
            fprintf(stderr, "slc: error: -lowering wants 'fast' or 'full', not '%s'\n", a);
            return 1;
        } else if (!strncmp(a, "-inline-budget=", 15)) {
            if (!count_flag(a, &inline_budget)) return 1;
            if (!inline_budget) inline_budget = 1;
        } else if (!strncmp(a, "-ferror-limit=", 14)) {
            if (!count_flag(a, &error_limit)) return 1;
        } else if (!strcmp(a, "-entry") || !strcmp(a, "-o")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "slc: error: %s needs an argument\n", a);
                return 1;
            }
            if (a[1] == 'e')
                opts.entry = argv[++i];
            else
                output = argv[++i];
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "slc: error: unknown option '%s' (see --help)\n", a);
            return 1;
        } else if (input) {
            fprintf(stderr, "slc: error: more than one input file ('%s' and '%s')\n", input, a);
            return 1;
        } else {
            input = a;
        }
    }
    if (!input) {
        fprintf(stderr, "slc: error: no input file (see --help)\n");
        return 1;
    }
    size_t len;
    char readerr[512];
    char *src = fmag_vm_read_file(input, &len, readerr, sizeof readerr);
    if (!src) {
        fprintf(stderr, "slc: error: %s\n", readerr);
        return 1;
    }
    const char *shown = strcmp(input, "-") ? input : "<stdin>";
    fmag_context *ctx = fmag_context_create();
    fmag_context_set_error_limit(ctx, (unsigned)error_limit);
    fmag_context_set_inline_budget(ctx, (size_t)inline_budget);
    int rc = 1;
    FILE *out = NULL;
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    fmag_module *m = fmag_sl_compile(ctx, shown, src, len, &opts);
    if (!m) {
        fmag_context_diag_print(ctx, stderr);
        goto done;
    }
    bool any_export = false;
    fmag_foreach_func(f, m) any_export |= f->is_export;
    if (!any_export) {
        fprintf(stderr, "%s: error: no export function: nothing to compile\n", shown);
        goto done;
    }
    if (emit_ir) {
        out = output && strcmp(output, "-") ? fopen(output, "w") : stdout;
        if (!out) {
            fprintf(stderr, "slc: error: cannot write '%s'\n", output);
            goto done;
        }
        fmag_module_print(m, out, FMAG_PRINT_DEFAULT);
        rc = 0;
        goto done;
    }
    fmag_pass_options po;
    memset(&po, 0, sizeof po);
    if (!fmag_run_passes(m, level, &po) ||
        (!lowerable(m) && !fmag_run_passes(m, "inline,ternary,ifconvert,dce", &po))) {
        fmag_context_diag_print(ctx, stderr);
        goto done;
    }
    if (!fmag_codegen_module_with(m, &img, &cg)) {
        fmag_context_diag_print(ctx, stderr);
        goto done;
    }
    char err[256];
    if (emit_asm) {
        out = output && strcmp(output, "-") ? fopen(output, "w") : stdout;
        if (!out) {
            fprintf(stderr, "slc: error: cannot write '%s'\n", output);
            goto done;
        }
        fmag_asm_print_image(&img, out);
        rc = 0;
        goto done;
    }
    char *path = NULL;
    if (output) {
        size_t n = strlen(output);
        path = malloc(n + 1);
        if (path) memcpy(path, output, n + 1);
    } else {
        if (!strcmp(input, "-")) {
            fprintf(stderr, "slc: error: reading standard input needs -o FILE (or -S)\n");
            goto done;
        }
        size_t n = strlen(input);
        path = malloc(n + 6);
        if (path) {
            memcpy(path, input, n + 1);
            if (n > 3 && !strcmp(path + n - 3, ".sl")) path[n - 3] = 0;
            strcat(path, ".fmag");
        }
    }
    if (path && !strcmp(path, "-")) {
        void *data;
        size_t dlen;
        if (fmag_vm_image_write(&img, &data, &dlen, err, sizeof err)) {
            rc = fwrite(data, 1, dlen, stdout) == dlen ? 0 : 1;
            free(data);
        } else {
            fprintf(stderr, "slc: error: %s\n", err);
        }
    } else if (!path || !fmag_vm_image_save(&img, path, err, sizeof err)) {
        fprintf(stderr, "slc: error: %s\n", path ? err : "out of memory");
    } else {
        rc = 0;
    }
    free(path);
done:
    if (out && out != stdout && fclose(out) != 0) rc = 1;
    fmag_vm_image_free(&img);
    fmag_context_destroy(ctx);
    free(src);
    return rc;
}
