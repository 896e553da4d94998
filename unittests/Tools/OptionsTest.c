/* Unit tests of tools/common/Options.c: each way of giving a value, the errors
 * and the generated --help, against values worked out by hand. */
#include "../Expect.h"
#include "Options.h"

#include <stdlib.h>
#include <string.h>

typedef struct seen {
    bool verbose;
    const char *level;
    unsigned long long count;
    double tol;
    const char *out, *in, *name;
    int ncalls, npos;
    const char *last_pos;
} seen;

static bool take_name(const fmag_tool *tool, void *dest, const char *spelling, const char *value)
{
    seen *s = dest;
    if (!strcmp(value, "bad")) {
        fmag_tool_error(tool, "%s does not like '%s'", spelling, value);
        return false;
    }
    s->name = value;
    s->ncalls++;
    return true;
}

static bool take_pos(const fmag_tool *tool, void *user, const char *arg)
{
    (void)tool;
    seen *s = user;
    s->npos++;
    s->last_pos = arg;
    return true;
}

static int take_dynamic(const fmag_tool *tool, void *user, const char *arg)
{
    (void)tool;
    (void)user;
    if (!strcmp(arg, "-dce")) return 1;
    if (!strcmp(arg, "-broken")) return -1;
    return 0;
}

static const fmag_tool tool = {"fmag-test", "usage: fmag-test [options] FILE\n\noptions:\n",
                               "notes here\n", NULL};

/* Parses the NULL-terminated argument list into *s; returns fmag_opt_parse's answer. */
static int parse(seen *s, const char *const *args)
{
    fmag_option opts[] = {
        {"-v|--verbose", FMAG_OPT_NO_VALUE, FMAG_OPT_FLAG, &s->verbose, NULL, NULL, "talk"},
        {"-o", FMAG_OPT_NEXT | FMAG_OPT_GLUED, FMAG_OPT_STRING, &s->out, NULL, "FILE",
         "write FILE"},
        {"--in|-in", FMAG_OPT_EQ_OR_NEXT | FMAG_OPT_EMPTY_OK, FMAG_OPT_STRING, &s->in, NULL, "V,V",
         "inputs\nsecond line"},
        {"-name", FMAG_OPT_EQ, FMAG_OPT_CALL, s, take_name, "N", "a name"},
        {"-level", FMAG_OPT_EQ | FMAG_OPT_OPTIONAL, FMAG_OPT_STRING, &s->level, NULL, "0|1",
         "a level"},
        {"--count", FMAG_OPT_EQ_OR_NEXT, FMAG_OPT_UINT, &s->count, NULL, "N", "a count"},
        {"--tol", FMAG_OPT_EQ_OR_NEXT, FMAG_OPT_DOUBLE, &s->tol, NULL, "T", "a tolerance"},
    };
    fmag_opt_parser p = {&tool, opts, sizeof opts / sizeof *opts, take_pos, take_dynamic, s};
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)"fmag-test";
    for (size_t i = 0; args[i]; i++)
        argv[argc++] = (char *)args[i];
    memset(s, 0, sizeof *s);
    return fmag_opt_parse(&p, argc, argv);
}

int main(void)
{
    seen s;
    /* Every spelling of a value reaches the same field. */
    EXPECT(parse(&s, (const char *const[]){"-v", "-o", "x.fmag", "--in", "-1,2", "f", NULL}) ==
           FMAG_OPT_RUN);
    EXPECT(s.verbose && !strcmp(s.out, "x.fmag") && !strcmp(s.in, "-1,2"));
    EXPECT(s.npos == 1 && !strcmp(s.last_pos, "f"));
    EXPECT(parse(&s, (const char *const[]){"--verbose", "-oy", "-in=3", "-", NULL}) ==
           FMAG_OPT_RUN);
    EXPECT(s.verbose && !strcmp(s.out, "y") && !strcmp(s.in, "3") && !strcmp(s.last_pos, "-"));
    EXPECT(parse(&s, (const char *const[]){"--in=", NULL}) == FMAG_OPT_RUN && s.in && !*s.in);
    EXPECT(parse(&s, (const char *const[]){"-name=ab", "-name=cd", NULL}) == FMAG_OPT_RUN);
    EXPECT(s.ncalls == 2 && !strcmp(s.name, "cd"));
    /* A name of more than one letter takes one dash or two; a one-letter name one. */
    EXPECT(parse(&s, (const char *const[]){"-verbose", "--name=ab", NULL}) == FMAG_OPT_RUN);
    EXPECT(s.verbose && !strcmp(s.name, "ab"));
    EXPECT(parse(&s, (const char *const[]){"--v", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"--o", "x", NULL}) == 1);
    /* An optional value: -level alone leaves NULL (the default); -level=1 gives "1". */
    EXPECT(parse(&s, (const char *const[]){"-level", NULL}) == FMAG_OPT_RUN && !s.level);
    EXPECT(parse(&s, (const char *const[]){"-level=1", NULL}) == FMAG_OPT_RUN &&
           !strcmp(s.level, "1"));
    /* Numbers: all of the value, or an error. */
    EXPECT(parse(&s, (const char *const[]){"--count", "18446744073709551615", "--tol=2.5e-3",
                                           NULL}) == FMAG_OPT_RUN);
    EXPECT(s.count == 18446744073709551615ull && s.tol == 2.5e-3);
    EXPECT(parse(&s, (const char *const[]){"--count", "18446744073709551616", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"--count", "-1", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"--count", "12x", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"--tol", "1e-3x", NULL}) == 1);
    /* An unlisted option the tool takes itself, and one it rejects. */
    EXPECT(parse(&s, (const char *const[]){"-dce", NULL}) == FMAG_OPT_RUN);
    EXPECT(parse(&s, (const char *const[]){"-broken", NULL}) == 1);
    /* Errors: each is exit status 1. */
    EXPECT(parse(&s, (const char *const[]){"-frob", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"-o", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"-o", "", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"-name=", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"-name", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"-name=bad", NULL}) == 1);
    EXPECT(parse(&s, (const char *const[]){"-v=1", NULL}) == 1);
    /* --help and --version stop the parse with status 0, before later errors. */
    EXPECT(parse(&s, (const char *const[]){"--version", "-frob", NULL}) == 0);

    /* The generated help, column by column. */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    fmag_option opts[] = {
        {"-v|--verbose", 0, FMAG_OPT_FLAG, &s.verbose, NULL, NULL, "talk"},
        {"--in", FMAG_OPT_EQ_OR_NEXT, FMAG_OPT_STRING, &s.in, NULL, "V,V", "inputs\nmore"},
        {"-name", FMAG_OPT_EQ, FMAG_OPT_CALL, &s, take_name, "N", "a name"},
        {"-level", FMAG_OPT_EQ | FMAG_OPT_OPTIONAL, FMAG_OPT_STRING, &s.level, NULL, "0|1",
         "a level"},
        {"-alias", 0, FMAG_OPT_FLAG, &s.verbose, NULL, NULL, NULL},
        {NULL, 0, FMAG_OPT_SECTION, NULL, NULL, NULL, "more:"},
        {"--a-very-long-option-name", 0, FMAG_OPT_FLAG, &s.verbose, NULL, NULL, "long"},
    };
    fmag_opt_parser p = {&tool, opts, sizeof opts / sizeof *opts, NULL, NULL, NULL};
    fmag_opt_print_help(&p, mem);
    fclose(mem);
    const char *want = "usage: fmag-test [options] FILE\n\noptions:\n"
                       "  -v, --verbose      talk\n"
                       "  --in V,V           inputs\n"
                       "                     more\n"
                       "  -name=N            a name\n"
                       "  -level[=0|1]       a level\n"
                       "\nmore:\n"
                       "  --a-very-long-option-name\n"
                       "                     long\n"
                       "  --help, --version\n"
                       "\nnotes here\n";
    EXPECT(!strcmp(buf, want));
    if (strcmp(buf, want)) fprintf(stderr, "got:\n%s", buf);
    free(buf);
    return failures != 0;
}
