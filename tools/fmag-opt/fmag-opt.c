/* fmag-opt: parse a .fir module, verify it, run passes, print it or lower it (SPEC §3).
 * An option table over the compile driver, fmag_compile_ex (lib/API), stopping after
 * the passes or lowering as the pipeline left the module; the pass manager's options
 * (Transforms.h) go through it. */
#include "fmag/IR.h"
#include "fmag/Transforms.h"
#include "Options.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(FMAG_UNROLL_DEFAULT_BUDGET == 100000u, "-unroll-budget's help text says 100000");

/* --help after the option table: every registered pass and pipeline. */
static void list_passes(FILE *out)
{
    fprintf(out, "\npasses:\n");
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

static const fmag_tool tool = {
    "fmag-opt",
    "usage: fmag-opt [options] <input.fir | ->\n"
    "\n"
    "Parses and verifies a .fir module, runs the passes in the order given, and\n"
    "prints the result (or, with -lower, the FMAG stream).\n"
    "\n"
    "options:\n",
    NULL,
    list_passes,
};

/* Everything the command line sets. */
typedef struct cli {
    const char *input, *output;
    fmag_pass_options opts;
    unsigned long long error_limit;
    bool lower, roundtrip, lowering_given, fast_lowering;
    char *pipeline; /* the pass flags in order, joined with commas */
    size_t plen, cap;
} cli;

static bool add_to_pipeline(cli *c, const char *name)
{
    size_t n = strlen(name);
    if (c->plen + n + 2 > c->cap) {
        size_t cap = (c->plen + n + 2) * 2;
        char *p = realloc(c->pipeline, cap);
        if (!p) {
            fmag_tool_error(&tool, "out of memory");
            return false;
        }
        c->pipeline = p;
        c->cap = cap;
    }
    if (c->plen) c->pipeline[c->plen++] = ',';
    memcpy(c->pipeline + c->plen, name, n + 1);
    c->plen += n;
    return true;
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

/* The option handlers: `dest` is the cli. */
static bool opt_passes(const fmag_tool *t, void *dest, const char *spelling, const char *value)
{
    if (!*value) return fmag_tool_error(t, "empty pipeline in '%s'", spelling), false;
    return add_to_pipeline(dest, value);
}

static bool opt_pipeline(const fmag_tool *t, void *dest, const char *spelling, const char *value)
{
    (void)t, (void)value;
    while (*spelling == '-')
        spelling++; /* -O2 and --O2 -> O2 */
    return add_to_pipeline(dest, spelling);
}

static bool opt_verify_each(const fmag_tool *t, void *dest, const char *spelling, const char *value)
{
    bool on;
    if (!fmag_opt_switch_value(t, spelling, value, &on)) return false;
    ((cli *)dest)->opts.verify_each = on ? 1 : -1; /* 0 is the build's default */
    return true;
}

static bool opt_print_raw(const fmag_tool *t, void *dest, const char *spelling, const char *value)
{
    (void)t, (void)spelling, (void)value;
    ((cli *)dest)->opts.print_flags |= FMAG_PRINT_RAW;
    return true;
}

static bool opt_unroll_budget(const fmag_tool *t, void *dest, const char *spelling,
                              const char *value)
{
    unsigned long long n;
    if (!fmag_opt_budget(t, &n, spelling, value)) return false;
    ((cli *)dest)->opts.max_unroll_instrs = (size_t)n;
    return true;
}

static bool opt_inline_budget(const fmag_tool *t, void *dest, const char *spelling,
                              const char *value)
{
    unsigned long long n;
    if (!fmag_opt_budget(t, &n, spelling, value)) return false;
    ((cli *)dest)->opts.inline_budget = (size_t)n;
    return true;
}

static bool opt_lowering(const fmag_tool *t, void *dest, const char *spelling, const char *value)
{
    cli *c = dest;
    c->lowering_given = true;
    return fmag_opt_lowering(t, &c->fast_lowering, spelling, value);
}

static bool opt_bisect_limit(const fmag_tool *t, void *dest, const char *spelling,
                             const char *value)
{
    (void)t;
    cli *c = dest;
    unsigned long long n = ULLONG_MAX;
    char *end;
    errno = 0;
    if (strcmp(value, "-1")) {
        n = strtoull(value, &end, 10);
        if (!*value || *end || errno || *value < '0' || *value > '9' || n > 0xFFFFFFFFull)
            return fmag_opt_invalid_value(&tool, spelling, value,
                                          "-1 (no limit) or 0 to 4294967295");
    }
    c->opts.opt_bisect = true;
    c->opts.opt_bisect_limit = n;
    return true;
}

static bool opt_break_after(const fmag_tool *t, void *dest, const char *spelling, const char *value)
{
    (void)spelling;
    cli *c = dest;
    if (!fmag_pass_lookup(value))
        return fmag_tool_error(t, "-test-break-after: unknown pass '%s'", value), false;
    c->opts.after_pass = break_ir_after;
    c->opts.after_pass_user = (void *)value;
    return true;
}

static bool take_input(const fmag_tool *t, void *user, const char *arg)
{
    cli *c = user;
    if (c->input)
        return fmag_tool_error(t, "more than one input file ('%s' and '%s')", c->input, arg), false;
    c->input = arg;
    return true;
}

/* -NAME or --NAME of a registered pass or pipeline. */
static int take_pass(const fmag_tool *t, void *user, const char *arg)
{
    (void)t;
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    if (!fmag_pass_lookup(name) && !fmag_pipeline_lookup(name)) return 0;
    return add_to_pipeline(user, name) ? 1 : -1;
}

/* The command line, as the option table below fills it in. */
static cli c = {.error_limit = FMAG_DEFAULT_ERROR_LIMIT};
static char verify_help[200];

static const fmag_option table[] = {
    {"-o", FMAG_OPT_NEXT, FMAG_OPT_STRING, &c.output, NULL, "FILE",
     "write output to FILE ('-': standard output; with -lower,\na FILE ending in .fmag is "
     "written as binary)"},
    {"-passes", FMAG_OPT_EQ | FMAG_OPT_EMPTY_OK, FMAG_OPT_CALL, &c, opt_passes, "a,b,c",
     "run a comma-separated pipeline of passes"},
    {"-O0|-O1|-O2", 0, FMAG_OPT_CALL, &c, opt_pipeline, NULL, "run a named pipeline"},
    {"-verify-each", FMAG_OPT_EQ | FMAG_OPT_OPTIONAL, FMAG_OPT_CALL, &c, opt_verify_each, "0|1",
     verify_help},
    {"-opt-bisect-limit", FMAG_OPT_EQ, FMAG_OPT_CALL, &c, opt_bisect_limit, "N",
     "run only the first N pass applications (a pass on\none function, or a module pass) "
     "and log each as\n'BISECT: [NOT ]running pass (K) NAME on ...'\n(to stderr; -1: run "
     "all, log all)"},
    {"-print-after-all", 0, FMAG_OPT_FLAG, &c.opts.print_after_all, NULL, NULL,
     "print the module after every pass (to stderr)"},
    {"-print-raw", 0, FMAG_OPT_CALL, &c, opt_print_raw, NULL,
     "print every arithmetic instruction as plain fmag"},
    {"-stats", 0, FMAG_OPT_FLAG, &c.opts.stats, NULL, NULL,
     "per pass: instructions before/after (to stderr)"},
    {"-time-passes", 0, FMAG_OPT_FLAG, &c.opts.time_passes, NULL, NULL,
     "per pass: wall time (to stderr)"},
    {"-check-roundtrip", 0, FMAG_OPT_FLAG, &c.roundtrip, NULL, NULL,
     "check that parse(print(m)) equals m; exit 1 if not"},
    {"-unroll-budget", FMAG_OPT_EQ, FMAG_OPT_CALL, &c, opt_unroll_budget, "N",
     "-loop-unroll: a function may grow to at most N\ninstructions (default 100000)"},
    {"-lower", 0, FMAG_OPT_FLAG, &c.lower, NULL, NULL,
     "lower each export to the FMAG stream (prints .fmas)"},
    {"-lowering", FMAG_OPT_EQ, FMAG_OPT_CALL, &c, opt_lowering, "fast|full",
     "with -lower: fast = two schedules, no search (JIT\nlatency); full = the default "
     "search"},
    {"-inline-budget", FMAG_OPT_EQ, FMAG_OPT_CALL, &c, opt_inline_budget, "N",
     "most instructions of a function, and of the exports\ntogether, after inlining "
     "(default 200000; beyond it\n-inline is an error)"},
    {"-ferror-limit", FMAG_OPT_EQ, FMAG_OPT_CALL, &c.error_limit, fmag_opt_error_limit, "N",
     "stop after N errors (default 20; 0: no limit)"},
    {"-test-break-after", FMAG_OPT_EQ, FMAG_OPT_CALL, &c, opt_break_after, "PASS",
     "testing: after PASS runs, plant a use before its\ndefinition in the first function "
     "(for -verify-each's\ntests)"},
};

/* The driver's options for what the command line asks. */
static void compile_options(fmag_compile_options *o)
{
    bool to_stdout = c.output && !strcmp(c.output, "-");
    bool binary = c.lower && c.output && !to_stdout && ends_with(c.output, ".fmag");
    fmag_compile_options_init(o);
    o->language = FMAG_LANG_FIR;
    o->pipeline = c.pipeline ? c.pipeline : ""; /* no pass flag: no pass */
    o->stop_after = c.lower ? FMAG_STAGE_PROGRAMS : FMAG_STAGE_PASSES;
    o->emit = !c.lower ? FMAG_EMIT_FIR : binary ? FMAG_EMIT_FMAG : FMAG_EMIT_FMAS;
    o->lower_as_is = true;
    o->fast_codegen = c.fast_lowering;
    o->print_flags = c.opts.print_flags;
    c.opts.log = stderr;
    o->pass_options = &c.opts;
}

int main(int argc, char **argv)
{
    snprintf(verify_help, sizeof verify_help,
             "run the verifier after every pass; =0 turns it off\n(default: on in Debug "
             "builds, off otherwise; this one: %s)",
             fmag_pass_verify_each_default() ? "on" : "off");
    fmag_opt_parser parser = {&tool,      table,     sizeof table / sizeof table[0],
                              take_input, take_pass, &c};
    int rc = fmag_opt_parse(&parser, argc, argv);
    char *text = NULL;
    size_t len;
    if (rc != FMAG_OPT_RUN) goto out;
    rc = 1;
    if (c.lowering_given && !c.lower) {
        fmag_tool_error(&tool, "-lowering=... applies to -lower, which is not given");
        goto out;
    }
    if (!c.input) {
        fmag_tool_error(&tool, "no input file (use '-' for standard input)");
        goto out;
    }
    if (fmag_tool_output_is_input(&tool, c.input, c.output) ||
        !(text = fmag_tool_read_file(&tool, c.input, &len)))
        goto out;
    /* .fir text, or text and data of no known kind (the parser names what is wrong);
     * any other kind is named with the tool that takes it. */
    fmag_vm_file_evidence ev;
    fmag_vm_file_kind kind = fmag_vm_file_kind_of(c.input, text, len, &ev);
    if (kind != FMAG_VM_FILE_FIR && kind != FMAG_VM_FILE_TEXT && kind != FMAG_VM_FILE_UNKNOWN) {
        rc = fmag_tool_wrong_kind(&tool, c.input, kind, ev);
        goto out;
    }
    fmag_context *ctx = fmag_context_create();
    fmag_context_set_error_limit(ctx, (unsigned)c.error_limit);
    fmag_compile_options o;
    compile_options(&o);
    fmag_compile_result r;
    const char *shown = strcmp(c.input, "-") ? c.input : "<stdin>";
    if (fmag_tool_compile(&tool, ctx, shown, text, len, &o, &r)) {
        if (c.roundtrip && !check_roundtrip(ctx, r.module, c.opts.print_flags))
            fmag_tool_print_diags(&tool, ctx);
        else
            rc = fmag_tool_write(&tool, c.output, r.data, r.len) ? 0 : 1;
    }
    fmag_compile_result_free(&r);
    fmag_context_destroy(ctx);
out:
    free(text);
    free(c.pipeline);
    return rc;
}
