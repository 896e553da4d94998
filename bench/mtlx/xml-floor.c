/* xml-floor: what parsing a document's XML costs before the reader does anything with
 * it: expat (the parser lib/MaterialX uses) with empty element handlers, and, where the
 * build found it, libxml2's SAX2 push parser with empty handlers, each over the same
 * text many times. The floor under the MaterialX reader's first compile
 * (docs/PERFORMANCE.md, "MaterialX compile latency"); the other parser measured there is
 * the one the issue allowed instead.
 *
 *   xml-floor FILE [--reps N]     (mtlx-bench --print writes the graphs it measures)
 *
 * Prints, per parser, the minimum and median µs of thread CPU time per parse over 5
 * rounds of N parses (default 2000). With --reps under callgrind, the instruction count
 * per parse is (count(N1) - count(N2)) / (N1 - N2) over two runs. */
#define _POSIX_C_SOURCE 200809L
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef FMAG_HAVE_LIBXML2
#include <libxml/parser.h>
#endif

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void XMLCALL ex_start(void *u, const XML_Char *t, const XML_Char **a)
{
    (void)u, (void)t, (void)a;
}
static void XMLCALL ex_end(void *u, const XML_Char *t)
{
    (void)u, (void)t;
}

/* One parse as lib/MaterialX/Document.c drives expat: a parser per document. */
static int parse_expat(const char *text, size_t len)
{
    XML_Parser p = XML_ParserCreate(NULL);
    if (!p) return 0;
    XML_SetElementHandler(p, ex_start, ex_end);
    int ok = XML_Parse(p, text, (int)len, 1) == XML_STATUS_OK;
    XML_ParserFree(p);
    return ok;
}

#ifdef FMAG_HAVE_LIBXML2
static void lx_start(void *u, const xmlChar *ln, const xmlChar *pf, const xmlChar *uri, int nns,
                     const xmlChar **ns, int na, int nd, const xmlChar **a)
{
    (void)u, (void)ln, (void)pf, (void)uri, (void)nns, (void)ns, (void)na, (void)nd, (void)a;
}
static void lx_end(void *u, const xmlChar *ln, const xmlChar *pf, const xmlChar *uri)
{
    (void)u, (void)ln, (void)pf, (void)uri;
}
static int parse_libxml2(const char *text, size_t len)
{
    xmlSAXHandler h;
    memset(&h, 0, sizeof h);
    h.initialized = XML_SAX2_MAGIC;
    h.startElementNs = lx_start;
    h.endElementNs = lx_end;
    xmlParserCtxtPtr c = xmlCreatePushParserCtxt(&h, NULL, NULL, 0, NULL);
    if (!c) return 0;
    xmlCtxtUseOptions(c, XML_PARSE_NONET);
    xmlParseChunk(c, text, (int)len, 1);
    int ok = c->wellFormed;
    xmlFreeParserCtxt(c);
    return ok;
}
#endif

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void measure(const char *name, int (*parse)(const char *, size_t), const char *text,
                    size_t len, unsigned reps)
{
    enum { ROUNDS = 5 };
    double t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double a = now_us();
        for (unsigned i = 0; i < reps; i++)
            if (!parse(text, len)) {
                fprintf(stderr, "xml-floor: %s: the document does not parse\n", name);
                exit(1);
            }
        t[r] = (now_us() - a) / reps;
    }
    qsort(t, ROUNDS, sizeof *t, cmp_double);
    printf("%-8s %zu bytes: min %.1f µs, median %.1f µs per parse (%u parses x %d rounds)\n", name,
           len, t[0], t[ROUNDS / 2], reps, ROUNDS);
}

int main(int argc, char **argv)
{
    unsigned reps = 2000;
    if (argc == 4 && !strcmp(argv[2], "--reps")) reps = (unsigned)strtoul(argv[3], NULL, 10);
    if ((argc != 2 && argc != 4) || reps == 0) {
        fprintf(stderr, "usage: xml-floor FILE [--reps N]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "xml-floor: cannot open %s\n", argv[1]);
        return 1;
    }
    char *text = malloc(1u << 24);
    size_t len = text ? fread(text, 1, 1u << 24, f) : 0;
    fclose(f);
    if (!text || len == 0 || len >= (1u << 24)) {
        fprintf(stderr, "xml-floor: %s: empty, unreadable or over 16 MB\n", argv[1]);
        return 1;
    }
    measure("expat", parse_expat, text, len, reps);
#ifdef FMAG_HAVE_LIBXML2
    xmlInitParser();
    measure("libxml2", parse_libxml2, text, len, reps);
    xmlCleanupParser();
#else
    printf("libxml2  not built (install libxml2-dev to measure it)\n");
#endif
    free(text);
    return 0;
}
