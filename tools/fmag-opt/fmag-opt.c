/* fmag-opt: parse a .fir module, verify it, run passes, print it or lower it. */
#include "fmag/CodeGen.h"
#include "fmag/IR.h"
#include "fmag/Transforms.h"
#include "fmag/VM.h"
#ifdef FMAG_HAVE_CODEGEN
#include "fmag/Asm.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(FMAG_UNROLL_DEFAULT_BUDGET == 100000u, "-unroll-budget's help text says 100000");

static void usage(FILE *out)
{
    fprintf(out, "usage: fmag-opt [options] <input.fir | ->\n"
                 "\n"
                 "Parses and verifies a .fir module, runs the passes in the order given, and\n"
                 "prints the result (or, with -lower, the FMAG stream).\n"
                 "\n"
                 "options:\n"
                 "  -o FILE            write output to FILE ('-': standard output; with -lower,\n"
                 "                     a FILE ending in .fmag is written as binary)\n"
                 "  -passes=a,b,c      run a comma-separated pipeline of passes\n"
                 "  -O0 -O1 -O2        run a named pipeline\n"
                 "  -verify-each[=0|1] run the verifier after every pass (default: on in\n"
                 "                     Debug builds, off otherwise; this one: %s)\n"
                 "  -opt-bisect-limit=N  run only the first N pass applications (a pass on\n"
                 "                     one function, or a module pass) and log each as\n"
                 "                     'BISECT: [NOT ]running pass (K) NAME on ...'\n"
                 "                     (to stderr; -1: run all, log all)\n"
                 "  -print-after-all   print the module after every pass (to stderr)\n"
                 "  -print-raw         print every arithmetic instruction as plain fmag\n"
                 "  -stats             per pass: instructions before/after (to stderr)\n"
                 "  -time-passes       per pass: wall time (to stderr)\n"
                 "  -check-roundtrip   check that parse(print(m)) equals m; exit 1 if not\n"
                 "  -unroll-budget=N   -loop-unroll: a function may grow to at most N\n"
                 "                     instructions (default 100000)\n"
                 "  -lower             lower each export to the FMAG stream (prints .fmas)\n"
                 "  -lowering=fast|full  with -lower: fast = two schedules, no search (JIT\n"
                 "                     latency); full = the default search\n"
                 "  -inline-budget=N   most instructions of a function after inlining\n"
                 "                     (default 200000; beyond it -inline is an error)\n"
                 "  -ferror-limit=N    stop after N errors (default 20; 0: no limit)\n"
                 "  -test-break-after=PASS  testing: after PASS runs, plant a use before\n"
                 "                     its definition in the first function (for\n"
                 "                     -verify-each's tests)\n"
                 "  --help, --version\n"
                 "\n"
                 "passes:\n",
            fmag_pass_verify_each_default() ? "on" : "off");
    for (size_t i = 0; i < fmag_pass_count(); i++) {
        const fmag_pass_info *p = fmag_pass_get(i);
        fprintf(out, "  -%-16s %s\n", p->name, p->desc);
    }
    fprintf(out, "\npipelines:\n");
    for (size_t i = 0; i < fmag_pipeline_count(); i++) {
        const fmag_pipeline_info *p = fmag_pipeline_get(i);
        fprintf(out, "  -%-16s %s\n                     = %s\n", p->name, p->desc, p->passes);
    }
}


/* -test-break-after: a new instruction at the top of the first function's entry
 * block reads the entry's last fmag result, which is defined after it. */
static void break_ir_after(fmag_module *m, const char *pass, void *user)
{
    if (strcmp(pass, (const char *)user) || !m->first || !m->first->first) return;
    fmag_block *entry = m->first->first;
    fmag_value *later = NULL;
    fmag_foreach_instr (i, entry) {
        if (i->op == FMAG_OP_FMAG) later = fmag_instr_result(i);
    }
    if (!later) return;
    fmag_instr *bad = fmag_instr_create(m->first, FMAG_OP_FMAG, 5, 1);
    static const float rest[4] = {1.0f, 0.0f, 0.0f, 1.0f}; /* later * 1 + 0 */
    fmag_instr_set_op(bad, FMAG_A, later);
    for (unsigned k = 1; k < 5; k++)
        fmag_instr_set_op(bad, k, fmag_module_const(m, rest[k - 1]));
    fmag_instr_insert_before(entry->first, bad);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Prints m to memory, parses it back and compares structurally (bits of every
 * literal, every operand, block and callee). */
static bool check_roundtrip(fmag_context *ctx, fmag_module *m, unsigned flags)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) return false;
    fmag_module_print(m, mem, flags);
    fclose(mem);
    fmag_module *back = fmag_parse_module(ctx, "<printed>", buf, len);
    bool ok = back && fmag_module_equal(m, back);
    if (back && !ok)
        fmag_context_error(ctx, "error: round trip failed: the printed module parses to a "
                                "different module");
    free(buf);
    return ok;
}

/* "-name=N" with N a decimal count below 2^32; false (and a message) otherwise. */
static bool count_flag(const char *a, const char *value, unsigned long long *out)
{
    char *end;
    errno = 0;
    *out = strtoull(value, &end, 10);
    if (!*value || *end || errno || *value == '-' || *out > 0xFFFFFFFFull) {
        fprintf(stderr, "fmag-opt: error: '%s' wants a count (0 to 4294967295)\n", a);
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    const char *input = NULL, *output = NULL;
    fmag_pass_options opts = {0};
    unsigned long long error_limit = FMAG_DEFAULT_ERROR_LIMIT;
    bool lower = false, roundtrip = false, lowering_given = false;
    fmag_codegen_options cg = {FMAG_CODEGEN_FULL}; /* the header only: no link needed */
    /* The pipeline is the flags in order, joined with commas. */
    size_t cap = 256, plen = 0;
    char *pipeline = calloc(cap, 1);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(pipeline);
            return 0;
        }
        if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
            printf("fmag-opt (FMAG) %s\n", FMAG_VERSION_STRING);
            free(pipeline);
            return 0;
        }
        const char *add = NULL;
        if (!strcmp(a, "-o")) {
            if (++i >= argc) {
                fprintf(stderr, "fmag-opt: error: -o needs a file name\n");
                return 1;
            }
            output = argv[i];
            continue;
        } else if (!strcmp(a, "-") || a[0] != '-') {
            if (input) {
                fprintf(stderr, "fmag-opt: error: more than one input file ('%s' and '%s')\n",
                        input, a);
                return 1;
            }
            input = a;
            continue;
        } else if (!strncmp(a, "-passes=", 8) || !strncmp(a, "--passes=", 9)) {
            add = strchr(a, '=') + 1;
            if (!*add) {
                fprintf(stderr, "fmag-opt: error: empty pipeline in '%s'\n", a);
                return 1;
            }
        } else {
            const char *name = a + (a[1] == '-' ? 2 : 1);
            if (!strcmp(name, "verify-each") || !strcmp(name, "verify-each=1"))
                opts.verify_each = 1;
            else if (!strcmp(name, "verify-each=0"))
                opts.verify_each = -1;
            else if (!strncmp(name, "opt-bisect-limit=", 17)) {
                const char *v = name + 17;
                unsigned long long n;
                if (!strcmp(v, "-1")) {
                    n = ULLONG_MAX;
                } else if (!count_flag(a, v, &n)) {
                    free(pipeline);
                    return 1;
                }
                opts.opt_bisect = true;
                opts.opt_bisect_limit = n;
            } else if (!strncmp(name, "test-break-after=", 17) && name[17]) {
                opts.after_pass = break_ir_after;
                opts.after_pass_user = (void *)(name + 17);
            }
            else if (!strcmp(name, "print-after-all"))
                opts.print_after_all = true;
            else if (!strcmp(name, "print-raw"))
                opts.print_flags |= FMAG_PRINT_RAW;
            else if (!strcmp(name, "stats"))
                opts.stats = true;
            else if (!strcmp(name, "time-passes"))
                opts.time_passes = true;
            else if (!strcmp(name, "check-roundtrip"))
                roundtrip = true;
            else if (!strncmp(name, "unroll-budget", 13)) {
                const char *v = name[13] == '=' ? name + 14 : "";
                char *end = NULL;
                errno = 0;
                unsigned long long n = strtoull(v, &end, 10);
                if (!*v || *end || errno || n == 0 || *v == '-' || n > SIZE_MAX) {
                    fprintf(stderr,
                            "fmag-opt: error: -unroll-budget wants a positive instruction "
                            "count, as in -unroll-budget=5000, not '%s'\n",
                            a);
                    free(pipeline);
                    return 1;
                }
                opts.max_unroll_instrs = (size_t)n;
            } else if (!strcmp(name, "lower"))
                lower = true;
            else if (!strncmp(name, "inline-budget=", 14) || !strncmp(name, "ferror-limit=", 13)) {
                unsigned long long n;
                if (!count_flag(a, strchr(name, '=') + 1, &n)) {
                    free(pipeline);
                    return 1;
                }
                if (name[0] == 'i')
                    opts.inline_budget = n ? (size_t)n : 1;
                else
                    error_limit = n;
            }
            else if (!strcmp(name, "lowering=fast") || !strcmp(name, "lowering=full")) {
                cg.effort = name[9] == 'a' ? FMAG_CODEGEN_FAST : FMAG_CODEGEN_FULL;
                lowering_given = true;
            } else if (!strncmp(name, "lowering", 8)) {
                fprintf(stderr, "fmag-opt: error: -lowering wants 'fast' or 'full', not '%s'\n",
                    strchr(a, '=') ? strchr(a, '=') + 1 : a);
                free(pipeline);
                return 1;
            }
            else if (fmag_pass_lookup(name) || fmag_pipeline_lookup(name))
                add = name;
            else {
                fprintf(stderr, "fmag-opt: error: unknown option '%s' (see --help)\n", a);
                free(pipeline);
                return 1;
            }
        }
        if (add) {
            size_t n = strlen(add);
            if (plen + n + 2 > cap) {
                cap = (plen + n + 2) * 2;
                pipeline = realloc(pipeline, cap);
            }
            if (plen) pipeline[plen++] = ',';
            memcpy(pipeline + plen, add, n + 1);
            plen += n;
        }
    }
    if (lowering_given && !lower) {
        fprintf(stderr, "fmag-opt: error: -lowering=... applies to -lower, which is not given\n");
        free(pipeline);
        return 1;
    }
    if (!input) {
        fprintf(stderr, "fmag-opt: error: no input file (use '-' for standard input)\n");
        free(pipeline);
        return 1;
    }
    size_t len;
    char err[512];
    char *text = fmag_vm_read_file(input, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "fmag-opt: error: %s\n", err);
        free(pipeline);
        return 1;
    }
    fmag_context *ctx = fmag_context_create();
    fmag_context_set_error_limit(ctx, (unsigned)error_limit);
    int rc = 0;
    const char *shown = strcmp(input, "-") ? input : "<stdin>";
    if (len >= 4 && !memcmp(text, "FMAG", 4)) {
        fprintf(stderr,
                "fmag-opt: error: '%s' is a binary .fmag file; fmag-opt reads .fir text "
                "(fmag-as -d disassembles a .fmag)\n",
                shown);
        rc = 1;
        goto out;
    }
    fmag_module *m = fmag_parse_module(ctx, shown, text, len);
    if (!m || !fmag_verify_module(m)) {
        fmag_context_diag_print(ctx, stderr);
        rc = 1;
        goto out;
    }
    opts.log = stderr;
    if (plen && !fmag_run_passes(m, pipeline, &opts)) {
        fmag_context_diag_print(ctx, stderr);
        rc = 1;
        goto out;
    }
    if (roundtrip && !check_roundtrip(ctx, m, opts.print_flags)) {
        fmag_context_diag_print(ctx, stderr);
        rc = 1;
        goto out;
    }
    FILE *out = stdout;
    bool to_stdout = output && !strcmp(output, "-");
    bool binary = lower && output && !to_stdout && ends_with(output, ".fmag");
    if (output && !binary && !to_stdout) {
        out = fopen(output, "w");
        if (!out) {
            fprintf(stderr, "fmag-opt: error: cannot write '%s': %s\n", output, strerror(errno));
            rc = 1;
            goto out;
        }
    }
    if (lower) {
#ifdef FMAG_HAVE_CODEGEN
        fmag_vm_image img;
        fmag_vm_image_init(&img);
        bool ok = true;
        fmag_foreach_func (f, m) {
            if (!f->is_export) continue;
            fmag_codegen_stats st = {0};
            if (!fmag_codegen_func_with(f, &img, &st, &cg)) {
                ok = false;
                break;
            }
            if (opts.stats)
                fprintf(stderr,
                        "stats: lower @%s: %u instructions, %u registers (max live %u, %u moves)\n",
                        f->name, st.instrs, st.regs, st.max_live, st.moves);
        }
        if (!ok) {
            fmag_context_diag_print(ctx, stderr);
            rc = 1;
        } else if (binary) {
            if (!fmag_vm_image_save(&img, output, err, sizeof err)) {
                fprintf(stderr, "fmag-opt: error: %s\n", err);
                rc = 1;
            }
        } else {
            fmag_asm_print_image(&img, out);
        }
        fmag_vm_image_free(&img);
#else
        fprintf(stderr, "fmag-opt: error: -lower is not available (built without lib/CodeGen)\n");
        rc = 1;
#endif
    } else {
        fmag_module_print(m, out, opts.print_flags);
    }
    if (out != stdout && fclose(out)) {
        fprintf(stderr, "fmag-opt: error: cannot write '%s'\n", output);
        rc = 1;
    }
out:
    fmag_context_destroy(ctx);
    free(text);
    free(pipeline);
    return rc;
}
