/* Unit tests of fmag_spirv_import through the C API, as an engine calls it: the
 * options slc does not set (param_quals, globals_as_inputs), either byte order,
 * and input that is not a module at all. Modules are assembled here word by word
 * (the opcode numbers from the Khronos header); results come from the IR
 * interpreter and are checked against values worked by hand. */
#include <spirv/unified1/spirv.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "../Expect.h"
#include "fmag/IR.h"
#include "fmag/SPIRV.h"

typedef struct mod {
    uint32_t w[256];
    size_t n;
} mod;

static void op(mod *m, SpvOp code, unsigned nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    m->w[m->n++] = (uint32_t)(nargs + 1) << 16 | (uint32_t)code;
    for (unsigned i = 0; i < nargs; i++)
        m->w[m->n++] = va_arg(ap, uint32_t);
    va_end(ap);
}

/* OpName id "s" (s shorter than 12 bytes). */
static void name(mod *m, uint32_t id, const char *s)
{
    uint32_t lit[3] = {0, 0, 0};
    size_t len = strlen(s);
    memcpy(lit, s, len);
    unsigned nw = (unsigned)(len / 4 + 1);
    m->w[m->n++] = (uint32_t)(nw + 2) << 16 | SpvOpName;
    m->w[m->n++] = id;
    for (unsigned i = 0; i < nw; i++)
        m->w[m->n++] = lit[i];
}

enum {
    T_VOID = 1,
    T_FLOAT,
    T_PTR_F,
    T_PTR_IN,
    T_FN_ACC,
    T_FN_G,
    F_ACC,
    P_T,
    P_X,
    L1,
    V1,
    V2,
    U,
    F_G,
    P_Y,
    L2,
    V3,
    V4,
    BOUND
};

/* acc(inout float t, float x) { t = t + x; }  and  g(float y) { return y * u; }
 * with u an Input variable. */
static void build(mod *m)
{
    m->n = 0;
    uint32_t hdr[5] = {SpvMagicNumber, 0x10000, 0, BOUND, 0};
    memcpy(m->w, hdr, sizeof hdr);
    m->n = 5;
    op(m, SpvOpCapability, 1, (uint32_t)SpvCapabilityShader);
    op(m, SpvOpMemoryModel, 2, (uint32_t)SpvAddressingModelLogical,
       (uint32_t)SpvMemoryModelGLSL450);
    name(m, F_ACC, "acc");
    name(m, F_G, "g");
    op(m, SpvOpTypeVoid, 1, (uint32_t)T_VOID);
    op(m, SpvOpTypeFloat, 2, (uint32_t)T_FLOAT, 32u);
    op(m, SpvOpTypePointer, 3, (uint32_t)T_PTR_F, (uint32_t)SpvStorageClassFunction,
       (uint32_t)T_FLOAT);
    op(m, SpvOpTypePointer, 3, (uint32_t)T_PTR_IN, (uint32_t)SpvStorageClassInput,
       (uint32_t)T_FLOAT);
    op(m, SpvOpTypeFunction, 4, (uint32_t)T_FN_ACC, (uint32_t)T_VOID, (uint32_t)T_PTR_F,
       (uint32_t)T_FLOAT);
    op(m, SpvOpTypeFunction, 3, (uint32_t)T_FN_G, (uint32_t)T_FLOAT, (uint32_t)T_FLOAT);
    op(m, SpvOpVariable, 3, (uint32_t)T_PTR_IN, (uint32_t)U, (uint32_t)SpvStorageClassInput);
    op(m, SpvOpFunction, 4, (uint32_t)T_VOID, (uint32_t)F_ACC, 0u, (uint32_t)T_FN_ACC);
    op(m, SpvOpFunctionParameter, 2, (uint32_t)T_PTR_F, (uint32_t)P_T);
    op(m, SpvOpFunctionParameter, 2, (uint32_t)T_FLOAT, (uint32_t)P_X);
    op(m, SpvOpLabel, 1, (uint32_t)L1);
    op(m, SpvOpLoad, 3, (uint32_t)T_FLOAT, (uint32_t)V1, (uint32_t)P_T);
    op(m, SpvOpFAdd, 4, (uint32_t)T_FLOAT, (uint32_t)V2, (uint32_t)V1, (uint32_t)P_X);
    op(m, SpvOpStore, 2, (uint32_t)P_T, (uint32_t)V2);
    op(m, SpvOpReturn, 0);
    op(m, SpvOpFunctionEnd, 0);
    op(m, SpvOpFunction, 4, (uint32_t)T_FLOAT, (uint32_t)F_G, 0u, (uint32_t)T_FN_G);
    op(m, SpvOpFunctionParameter, 2, (uint32_t)T_FLOAT, (uint32_t)P_Y);
    op(m, SpvOpLabel, 1, (uint32_t)L2);
    op(m, SpvOpLoad, 3, (uint32_t)T_FLOAT, (uint32_t)V3, (uint32_t)U);
    op(m, SpvOpFMul, 4, (uint32_t)T_FLOAT, (uint32_t)V4, (uint32_t)P_Y, (uint32_t)V3);
    op(m, SpvOpReturnValue, 1, (uint32_t)V4);
    op(m, SpvOpFunctionEnd, 0);
}

/* Imports with o, runs the export on in[], returns false on an import error. */
static bool run(const uint32_t *w, size_t n, const fmag_spirv_options *o, const float *in,
                float *out, unsigned *nin, unsigned *nout, char *diag, size_t dlen)
{
    fmag_context *ctx = fmag_context_create();
    fmag_module *m = fmag_spirv_import(ctx, w, n, o);
    bool ok = m != NULL;
    diag[0] = 0;
    if (fmag_context_diag_count(ctx)) snprintf(diag, dlen, "%s", fmag_context_diag(ctx, 0));
    if (m) {
        fmag_func *f = NULL;
        fmag_foreach_func (x, m)
            if (x->is_export) f = x;
        ok = f && fmag_interp_func(f, in, out);
        if (f) {
            *nin = f->nparams;
            *nout = f->nresults;
        }
    }
    fmag_context_destroy(ctx);
    return ok;
}

int main(void)
{
    mod m;
    build(&m);
    float in[4] = {1, 2, 0, 0}, out[4] = {0};
    unsigned nin = 0, nout = 0;
    char diag[512];
    fmag_spirv_options o;

    /* Without qualifiers t is read first, so it is `in`: acc has no output. */
    memset(&o, 0, sizeof o);
    o.entry = "acc";
    EXPECT(!run(m.w, m.n, &o, in, out, &nin, &nout, diag, sizeof diag));
    EXPECT(strstr(diag, "has no result and no out parameter") != NULL);

    /* The front end says inout: inputs t, x; output t + x. */
    fmag_spirv_param_qual q[2] = {FMAG_SPIRV_PARAM_INOUT, FMAG_SPIRV_PARAM_AUTO};
    o.param_quals = q;
    o.nparam_quals = 2;
    EXPECT(run(m.w, m.n, &o, in, out, &nin, &nout, diag, sizeof diag));
    EXPECT(nin == 2 && nout == 1 && out[0] == 3.0f);

    /* out: t's incoming value is 0, the output is 0 + x. */
    q[0] = FMAG_SPIRV_PARAM_OUT;
    in[0] = 5;
    EXPECT(run(m.w, m.n, &o, in, out, &nin, &nout, diag, sizeof diag));
    EXPECT(nin == 1 && nout == 1 && out[0] == 5.0f);

    /* g reads the Input variable u: an error unless it becomes an input. */
    memset(&o, 0, sizeof o);
    o.entry = "g";
    EXPECT(!run(m.w, m.n, &o, in, out, &nin, &nout, diag, sizeof diag));
    EXPECT(strstr(diag, "reads the Input variable") != NULL);
    o.globals_as_inputs = true;
    in[0] = 3;
    in[1] = 4;
    EXPECT(run(m.w, m.n, &o, in, out, &nin, &nout, diag, sizeof diag));
    EXPECT(nin == 2 && nout == 1 && out[0] == 12.0f);

    /* The other byte order gives the same program. */
    uint32_t sw[256];
    for (size_t i = 0; i < m.n; i++)
        sw[i] = __builtin_bswap32(m.w[i]);
    out[0] = 0;
    EXPECT(run(sw, m.n, &o, in, out, &nin, &nout, diag, sizeof diag));
    EXPECT(out[0] == 12.0f);

    /* Not a module: NULL, zero words, garbage; each a diagnostic, never a crash. */
    EXPECT(!run(NULL, 0, NULL, in, out, &nin, &nout, diag, sizeof diag));
    EXPECT(strstr(diag, "shorter than its header") != NULL);
    uint32_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT(!run(junk, 8, NULL, in, out, &nin, &nout, diag, sizeof diag));
    EXPECT(strstr(diag, "bad magic number") != NULL);
    /* No entry point and no -entry. */
    EXPECT(!run(m.w, m.n, NULL, in, out, &nin, &nout, diag, sizeof diag));
    EXPECT(strstr(diag, "no entry point") != NULL);

    if (failures) fprintf(stderr, "%d expectation(s) failed\n", failures);
    return failures != 0;
}
