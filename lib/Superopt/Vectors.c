/* Test vectors for the searches and the default literal pool. */
#include "SearchInternal.h"
#include "fmag/Bits.h"

#include <math.h>
#include <string.h>
#include <time.h>

double so_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

uint64_t so_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static bool same_bits(float a, float b)
{
    return fmag_bits_of(a) == fmag_bits_of(b);
}

bool so_vectors_add(so_vectors *v, const fmag_superopt_target *t, const float *in)
{
    if (v->n >= SO_NV) return false;
    float x[2] = {in[0], t->nin > 1 ? in[1] : 0.0f};
    for (unsigned i = 0; i < v->n; i++)
        if (same_bits(v->in[0][i], x[0]) && same_bits(v->in[1][i], x[1])) return false;
    float w;
    if (!fmag_superopt_target_eval(t, x, &w)) return false;
    v->in[0][v->n] = x[0];
    v->in[1][v->n] = x[1];
    v->want[v->n] = w;
    v->n++;
    return true;
}

/* A spread of magnitudes: small integers and halves are where select and rounding
 * tricks differ; huge and tiny values catch overflow and underflow. */
static const float base_values[] = {
    1.0f, -1.0f, 0.5f,  -0.5f, 2.0f,   -2.0f,   3.0f,  -3.0f,           0.25f,  -0.75f,
    1.5f, -1.5f, 7.0f,  -6.5f, 1e-3f,  -1e-3f,  1e30f, -1e30f,          1e-40f, -1e-40f,
    0.3f, -0.3f, 100.f, -37.f, 4.5e6f, -4.5e6f, 0.0f,  1.17549435e-38f,
};

void so_vectors_init(so_vectors *v, const fmag_superopt_target *t, unsigned n, uint64_t seed)
{
    memset(v, 0, sizeof *v);
    if (n > SO_NV - 16) n = SO_NV - 16;
    uint64_t rng = seed ^ 0xC0FFEEull;
    float in[2];
    const unsigned nb = sizeof base_values / sizeof base_values[0];
    /* the target's constants and their neighbours first: that is where a wrong
     * comparison or a wrong constant shows */
    for (unsigned i = 0; i < t->nconsts && v->n < n; i++) {
        float c = t->consts[i];
        float cand[3] = {c, nextafterf(c, INFINITY), nextafterf(c, -INFINITY)};
        for (int k = 0; k < 3 && v->n < n; k++) {
            in[0] = cand[k];
            in[1] = base_values[(i + (unsigned)k) % nb];
            so_vectors_add(v, t, in);
            if (t->nin > 1) {
                in[1] = cand[k];
                in[0] = base_values[(i + (unsigned)k + 3) % nb];
                so_vectors_add(v, t, in);
            }
        }
    }
    for (unsigned i = 0; i < nb && v->n < n; i++) {
        in[0] = base_values[i];
        in[1] = base_values[(i * 7 + 3) % nb];
        so_vectors_add(v, t, in);
        if (t->nin > 1 && (i & 3) == 0) { /* equal inputs: comparisons' boundary */
            in[1] = in[0];
            so_vectors_add(v, t, in);
        }
    }
    for (unsigned tries = 0; v->n < n && tries < 100000; tries++) {
        uint64_t r = so_splitmix(&rng);
        for (int k = 0; k < 2; k++) {
            uint32_t u = (uint32_t)(r >> (32 * k));
            /* magnitudes mostly within 2^-16..2^16, sometimes anywhere */
            if ((u & 3) != 0) u = (u & 0x807FFFFFu) | ((uint32_t)(111 + (u >> 23) % 32) << 23);
            if ((u & 0x7F800000u) == 0x7F800000u) u ^= 0x40000000u;
            in[k] = fmag_float_of(u);
        }
        so_vectors_add(v, t, in);
    }
}

unsigned fmag_superopt_default_pool(const fmag_superopt_target *t, float *pool)
{
    static const float base[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f};
    unsigned n = 0;
    float cand[5 + 2 * FMAG_SUPEROPT_MAX_POOL];
    unsigned nc = 0;
    for (unsigned i = 0; i < 5; i++)
        cand[nc++] = base[i];
    for (unsigned i = 0; t && i < t->nconsts; i++) {
        cand[nc++] = t->consts[i];
        cand[nc++] = -t->consts[i];
    }
    for (unsigned i = 0; i < nc && n < FMAG_SUPEROPT_MAX_POOL; i++) {
        float c = cand[i] == 0.0f ? 0.0f : cand[i]; /* -0 adds nothing over +0 */
        bool seen = false;
        for (unsigned j = 0; j < n; j++)
            seen |= same_bits(pool[j], c);
        if (!seen) pool[n++] = c;
    }
    return n;
}
