/* The quick checks behind superopt --verify-rules --spot-check (RuleCheck.h). */
#include "RuleCheck.h"

#include "fmag/Bits.h"
#include "fmag/VM.h"

#include <float.h>
#include <math.h>
#include <string.h>

static uint32_t fnv(uint32_t h, uint32_t word)
{
    for (int i = 0; i < 4; i++) {
        h ^= (word >> (8 * i)) & 0xFFu;
        h *= 16777619u;
    }
    return h;
}

static uint32_t fnv_ref(uint32_t h, const fmag_so_ref *r)
{
    h = fnv(h, (uint32_t)r->kind);
    h = fnv(h, r->index);
    return fnv(h, r->kind == FMAG_SO_REF_CONST ? fmag_bits_of(r->imm) : 0);
}

/* A rule operand or instruction is read by field name only: the rule table's own
 * types (VM.h's decoded instruction, or a Transforms-owned copy with the same
 * fields) may change without this file noticing. */
#define FNV_OPERAND(h, o) fnv(fnv(h, (o).is_reg), (o).is_reg ? (o).reg : fmag_bits_of((o).imm))

uint32_t rule_fingerprint(const fmag_superopt_rule *rule)
{
    uint32_t h = 2166136261u;
    h = fnv(h, rule->nin);
    h = fnv(h, rule->npattern);
    for (unsigned k = 0; k < rule->npattern; k++)
        for (int s = 0; s < 5; s++)
            h = fnv_ref(h, &rule->pattern[k].s[s]);
    h = fnv(h, rule->length);
    for (unsigned k = 0; k < rule->length; k++) {
        h = fnv(h, rule->code[k].d);
        h = fnv(h, rule->code[k].a);
        h = FNV_OPERAND(h, rule->code[k].b);
        h = FNV_OPERAND(h, rule->code[k].c);
        h = FNV_OPERAND(h, rule->code[k].g);
    }
    return h;
}

static fmag_vm_operand vm_operand(bool is_reg, uint16_t reg, float imm)
{
    fmag_vm_operand o = {is_reg, reg, imm};
    return o;
}
#define VM_OPERAND(o) vm_operand((o).is_reg, (o).reg, (o).imm)

/* The edge-case grid: fixed values plus each pattern literal, its float neighbours
 * and its negation (where comparisons and selects change their answer). */
static unsigned edge_values(const fmag_superopt_rule *rule, float *v, unsigned cap)
{
    static const float fixed[] = {0.0f,    1.0f,   0.5f,       2.0f,       0x1p-149f, 0x1p-126f,
                                  FLT_MAX, 1e-20f, 1e20f,      3.0f,       0.25f,     4.0f,
                                  1.5f,    0.999f, 8388608.0f, 12582912.0f};
    unsigned n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && n + 2 <= cap; i++) {
        v[n++] = fixed[i];
        v[n++] = -fixed[i];
    }
    for (unsigned k = 0; k < rule->npattern; k++)
        for (int s = 0; s < 5; s++) {
            const fmag_so_ref *r = &rule->pattern[k].s[s];
            if (r->kind != FMAG_SO_REF_CONST || n + 6 > cap) continue;
            float c = r->imm;
            float near[3] = {c, nextafterf(c, INFINITY), nextafterf(c, -INFINITY)};
            for (int j = 0; j < 3; j++)
                if (isfinite(near[j])) {
                    v[n++] = near[j];
                    v[n++] = -near[j];
                }
        }
    return n;
}

/* A seeded input: a finite float from random bits, or a uniform value in [-16, 16). */
static float random_input(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    uint32_t w = (uint32_t)z;
    if (z >> 63) return (float)(int32_t)w * 0x1p-27f;
    if ((w & 0x7F800000u) == 0x7F800000u) w &= 0xFF7FFFFFu; /* inf/NaN -> finite */
    return fmag_float_of(w);
}

typedef struct runner {
    const fmag_superopt_target *t;
    fmag_vm_program prog;
    float regs[FMAG_SUPEROPT_MAX_REGS + 1];
    spot_result *r;
} runner;

static void compare(runner *u, const float *in)
{
    if (u->r->failed) return;
    float want, got;
    if (!fmag_superopt_target_eval(u->t, in, &want) || !isfinite(want)) {
        u->r->skipped++;
        return;
    }
    fmag_vm_run(&u->prog, in, &got, u->regs);
    u->r->checked++;
    if (!(want == got)) { /* the contract: equal values; the sign of zero is free */
        u->r->failed = true;
        u->r->cex[0] = in[0];
        u->r->cex[1] = in[1];
        u->r->want = want;
        u->r->got = got;
    }
}

bool rule_spot_check(const fmag_superopt_rule *rule, const fmag_superopt_target *t,
                     uint64_t samples, spot_result *r)
{
    memset(r, 0, sizeof *r);
    fmag_vm_instr code[FMAG_SUPEROPT_MAX_LEN];
    char err[128];
    if (rule->length > FMAG_SUPEROPT_MAX_LEN || rule->regs > FMAG_SUPEROPT_MAX_REGS) return false;
    for (unsigned k = 0; k < rule->length; k++) {
        fmag_vm_decoded dec = {rule->code[k].d, rule->code[k].a, VM_OPERAND(rule->code[k].b),
                               VM_OPERAND(rule->code[k].c), VM_OPERAND(rule->code[k].g)};
        if (!fmag_vm_encode(&dec, &code[k], err, sizeof err)) return false;
    }
    runner u = {t,
                {(char *)rule->name, 0, (uint16_t)rule->regs, (uint16_t)rule->nin, 1, rule->length,
                 code, 0},
                {0},
                r};
    if (!u.prog.regs) u.prog.regs = 1;
    if (!fmag_vm_program_validate(&u.prog, err, sizeof err)) return false;

    float edge[160];
    unsigned ne = edge_values(rule, edge, sizeof edge / sizeof edge[0]);
    float in[2] = {0, 0};
    for (unsigned i = 0; i < ne; i++)
        for (unsigned j = 0; j < (rule->nin > 1 ? ne : 1); j++) {
            in[0] = edge[i];
            in[1] = rule->nin > 1 ? edge[j] : 0.0f;
            compare(&u, in);
        }
    uint64_t s = 0x5EED0000ull ^ rule_fingerprint(rule);
    for (uint64_t k = 0; k < samples; k++) {
        in[0] = random_input(&s);
        /* two inputs: every fourth pair a neighbour of x, where x >= y flips */
        in[1] = rule->nin < 2  ? 0.0f
                : (k & 3) == 0 ? nextafterf(in[0], (k & 4) ? INFINITY : -INFINITY)
                               : random_input(&s);
        compare(&u, in);
    }
    return true;
}
