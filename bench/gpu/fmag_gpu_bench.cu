// bench/gpu: FMAG interpreters against native straight-line CUDA (NVRTC) and a conventional
// opcode-switch interpreter, uniform and per-lane, checked bit-exactly on sampled elements.
// Built and run by bench/gpu/run.sh on the H200; see docs/PERFORMANCE.md.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define FMAG_CUDA_DEFINE_CONSTANT
#include "fmag_cuda_experiments.cuh" // bench/gpu, over gpu/fmag_cuda.cuh (run.sh: -Igpu)
#include "fmag_gpu_host.h" // lib/GPU (run.sh: -Ilib/GPU)

#ifdef FMAG_BENCH_VULKAN
#include "fmag/GPU.h"
#include "GPUBench.h"
#endif

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CKD(x)                                                                                     \
    do {                                                                                           \
        CUresult e_ = (x);                                                                         \
        if (e_ != CUDA_SUCCESS) {                                                                  \
            const char *s_ = "?";                                                                  \
            cuGetErrorString(e_, &s_);                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_);                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CKR(x)                                                                                     \
    do {                                                                                           \
        nvrtcResult e_ = (x);                                                                      \
        if (e_ != NVRTC_SUCCESS) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, nvrtcGetErrorString(e_));   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const int T = 128;
static const int RF = 16;

typedef fmag_gpu_word4 W4;
// float <-> bits: include/fmag/Bits.h (through fmag_gpu_host.h)
static uint32_t fbits(float f)
{
    return fmag_bits_of(f);
}
static float bitsf(uint32_t u)
{
    return fmag_float_of(u);
}

// ---------------------------------------------------------------- programs
struct Opnd {
    bool reg;
    uint32_t v; // register index or float bits
};
static Opnd R(int r)
{
    return {true, (uint32_t)r};
}
static Opnd L(float f)
{
    return {false, fbits(f)};
}
static uint32_t enc(Opnd o)
{
    return o.reg ? (0x7FC00000u | o.v) : o.v;
}

// The conventional interpreter's instruction: x = op | dst<<8 | kflags<<16 | s0<<24,
// y/z/w = s1/s2/s3 (register index, or float bits when the kflags bit is set).
enum SOp {
    S_NOP,
    S_MOV,
    S_ADD,
    S_SUB,
    S_MUL,
    S_FMA,
    S_MIN,
    S_MAX,
    S_ABS,
    S_RELU,
    S_SELECT,
    S_GT,
    S_CFMA,
    S_CLAMP,
    S_SMOOTH
};

struct Prog {
    std::string name;
    int regs = RF, nin = 4, nout = 1;
    bool sl = false;         // compiled from an SL example by slc (bench/gpu/run.sh)
    std::vector<float> demo; // SL: the example's demo input (inputs are drawn around it)
    std::vector<W4> code;    // FMAG
    std::vector<W4> scode;   // switch interpreter
    std::vector<W4> hcode;   // compiled workloads: the hand-lowered FMAG the switch ops equal
};

struct Gen {
    Prog &p;
    uint64_t st;
    Gen(Prog &pp, uint64_t seed) : p(pp), st(seed * 0x9E3779B97F4A7C15ull + 1) {}
    uint32_t rnd()
    {
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        return (uint32_t)(st >> 11);
    }
    float lit() { return (float)((int)(rnd() % 33) - 16) / 8.0f; } // [-2, 2] in 1/8 steps
    void f(int d, int a, Opnd b, Opnd c, Opnd g)
    {
        p.code.push_back({enc(b), enc(c), enc(g), (uint32_t)d | ((uint32_t)a << 16)});
    }
    void s(SOp op, int d, int s0, Opnd s1 = R(0), Opnd s2 = R(0), Opnd s3 = R(0))
    {
        uint32_t k = (s1.reg ? 0 : 1) | (s2.reg ? 0 : 2) | (s3.reg ? 0 : 4);
        p.scode.push_back(
            {(uint32_t)op | (uint32_t)d << 8 | k << 16 | (uint32_t)s0 << 24, s1.v, s2.v, s3.v});
    }
    void copy(int d, int x) { f(d, x, L(1), L(-0.0f), L(1)); }
};

// Translates an FMAG stream 1:1 into the switch interpreter's ops (P1, P3).
static void translate_to_switch(Prog &p)
{
    Gen g(p, 0);
    for (const W4 &w : p.code) {
        int d = w.da & 0xFFFF, a = w.da >> 16;
        Opnd b = fmag_gpu_is_ref(w.b) ? R(w.b & 0xFFFF) : Opnd{false, w.b};
        Opnd c = fmag_gpu_is_ref(w.c) ? R(w.c & 0xFFFF) : Opnd{false, w.c};
        if (fmag_gpu_is_ref(w.g)) {
            g.s(S_CFMA, d, a, b, c, R(w.g & 0xFFFF));
        } else if (bitsf(w.g) > 0) {
            if (!b.reg && bitsf(b.v) == 1.0f)
                g.s(S_ADD, d, a, c);
            else if (!c.reg && c.v == 0x80000000u)
                g.s(S_MUL, d, a, b);
            else
                g.s(S_FMA, d, a, b, c);
        }
    }
}

static Prog make_horner(int seed)
{
    Prog p;
    p.name = "P1-horner24";
    p.nin = 1, p.nout = 1, p.regs = 2;
    Gen g(p, 100 + seed);
    // r1 = c24*x + c23; r1 = r1*x + c_k ...; r0 = r1*x + c0
    g.f(1, 0, L(g.lit() / 16), L(g.lit()), L(1));
    for (int k = 22; k >= 1; --k)
        g.f(1, 1, R(0), L(g.lit() / 4), L(1));
    g.f(0, 1, R(0), L(g.lit()), L(1));
    translate_to_switch(p);
    return p;
}

static Prog make_random(int seed)
{
    Prog p;
    p.name = "P3-random64";
    p.nin = 4, p.nout = 2, p.regs = 16;
    Gen g(p, 300 + seed);
    for (int i = 0; i < 64; ++i) {
        int d = g.rnd() % 16, a = g.rnd() % 16;
        Opnd b = g.rnd() % 10 < 3 ? R(g.rnd() % 16) : L(g.lit() / 2);
        Opnd c = g.rnd() % 2 ? R(g.rnd() % 16) : L(g.lit());
        Opnd gg = g.rnd() % 4 == 0 ? R(g.rnd() % 16) : L(1);
        g.f(d, a, b, c, gg);
    }
    translate_to_switch(p);
    return p;
}

// Node graph: high-level ops over value registers r0..r11 (r0..r3 inputs), scratch r12..r15.
// Each op is emitted twice: as one switch-interpreter op and as its FMAG lowering, computing
// bit-identical results (the switch ops are defined by the same float operations).
// live = false (P2): operands are random earlier values, so most nodes do not reach the
// output (about 30% of the FMAG instructions are live): native code drops the rest, the
// interpreters run everything. live = true (P2live): each node reads the previous node's result
// as its first operand, so every node reaches the output, as in an editor's graph whose
// unused nodes were pruned; native code has all of the work to do.
static Prog make_nodegraph_impl(int seed, bool live)
{
    Prog p;
    p.name = live ? "P2live-nodegraph" : "P2-nodegraph";
    p.nin = 4, p.nout = 1, p.regs = 16;
    Gen g(p, 200 + seed);
    const int T0 = 12, T1 = 13, T2 = 14;
    int ndef = 4;
    auto src = [&]() { return (int)(g.rnd() % ndef); };
    auto dst = [&]() {
        if (ndef < 12 && g.rnd() % 3) return ndef++;
        return (int)(g.rnd() % ndef);
    };
    // select into d: d = gr > 0 ? t : f (t, f, gr registers)
    auto fsel = [&](int d, int t, int fr, int gr) {
        int x = (d == t || d == gr) ? T1 : d;
        if (x != fr) g.copy(x, fr);
        g.f(x, t, L(1), L(-0.0f), R(gr));
        if (x != d) g.copy(d, x);
    };
    auto fclamp = [&](int d, int x, float lo, float hi) {
        g.f(T0, x, L(1), L(-lo), L(1));    // t = x - lo
        g.f(T1, T0, L(0), L(lo), L(1));    // m = t*0 + lo
        g.f(T1, x, L(1), L(-0.0f), R(T0)); // m = t > 0 ? x : m
        g.f(T0, T1, L(1), L(-hi), L(1));   // u = m - hi
        if (d != T1) g.copy(d, T1);        // r = m
        g.f(d, T0, L(0), L(hi), R(T0));    // r = u > 0 ? u*0 + hi : r
    };
    bool last = false;
    int prev = -1;
    while (!last) {
        last = p.code.size() >= 52;
        int op = g.rnd() % 12;
        int a = src(), b = src(), c = src();
        if (live && prev >= 0) a = prev;
        int d = last ? 0 : dst();
        prev = d;
        float k = g.lit();
        switch (op) {
        case 0: // add
            g.s(S_ADD, d, a, R(b));
            g.f(d, a, L(1), R(b), L(1));
            break;
        case 1: // sub
            g.s(S_SUB, d, a, R(b));
            g.f(d, b, L(-1), R(a), L(1));
            break;
        case 2: // mul by constant
            g.s(S_MUL, d, a, L(k));
            g.f(d, a, L(k), L(-0.0f), L(1));
            break;
        case 3: // fma with constant addend
            g.s(S_FMA, d, a, R(b), L(k));
            g.f(d, a, R(b), L(k), L(1));
            break;
        case 4: // max(a, b) = (a - b > 0) ? a : b
            g.s(S_MAX, d, a, R(b));
            g.f(T0, b, L(-1), R(a), L(1));
            fsel(d, a, b, T0);
            break;
        case 5: // min(a, b) = (a - b > 0) ? b : a
            g.s(S_MIN, d, a, R(b));
            g.f(T0, b, L(-1), R(a), L(1));
            fsel(d, b, a, T0);
            break;
        case 6: { // abs(a) = a > 0 ? a : -a
            g.s(S_ABS, d, a);
            int x = d == a ? T1 : d;
            g.f(x, a, L(-1), L(-0.0f), L(1));
            g.f(x, a, L(1), L(-0.0f), R(a));
            if (x != d) g.copy(d, x);
            break;
        }
        case 7: { // relu(a) = a > 0 ? a : a*0 + 0
            g.s(S_RELU, d, a);
            int x = d == a ? T1 : d;
            g.f(x, a, L(0), L(0), L(1));
            g.f(x, a, L(1), L(-0.0f), R(a));
            if (x != d) g.copy(d, x);
            break;
        }
        case 8: // select(a, b, c) = c > 0 ? a : b
            g.s(S_SELECT, d, a, R(b), R(c));
            fsel(d, a, b, c);
            break;
        case 9: // gt(a, b) = (a - b > 0) ? t*0 + 1 : t*0 + 0
            g.s(S_GT, d, a, R(b));
            g.f(T0, b, L(-1), R(a), L(1));
            g.f(d, T0, L(0), L(0), L(1));
            g.f(d, T0, L(0), L(1), R(T0));
            break;
        case 10: { // clamp(a, lo, hi), a software op with internal branches
            float lo = -fabsf(k) - 0.5f, hi = fabsf(k) + 0.25f;
            g.s(S_CLAMP, d, a, L(lo), L(hi));
            fclamp(d, a, lo, hi);
            break;
        }
        default: // smoothstep(a): t = clamp(a, 0, 1); t*t*(3 - 2t), software op
            g.s(S_SMOOTH, d, a);
            fclamp(T2, a, 0.0f, 1.0f);
            g.f(T0, T2, R(T2), L(-0.0f), L(1)); // v = t*t
            g.f(T1, T2, L(-2), L(3), L(1));     // w = 3 - 2t
            g.f(d, T0, R(T1), L(-0.0f), L(1));  // v*w
            break;
        }
    }
    return p;
}

static Prog make_nodegraph(int seed)
{
    return make_nodegraph_impl(seed, false);
}

static Prog make_nodegraph_live(int seed)
{
    return make_nodegraph_impl(seed, true);
}

// A straight-line stream as .fir: every register's current value is an SSA name (registers
// below nin are the parameters, the others start as 0.0, as the VM zeroes them); a guarded
// write is a select through fmag's own fallback operand. Literals are printed in hex, exactly.
static std::string prog_fir(const Prog &p, const std::string &fname)
{
    auto lit = [](uint32_t w) {
        char b[40];
        snprintf(b, sizeof b, "%a", bitsf(w));
        return std::string(b);
    };
    std::vector<std::string> cur(p.regs);
    std::string s = "export func @" + fname + "(";
    for (int i = 0; i < p.regs; ++i)
        cur[i] = i < p.nin ? "%in" + std::to_string(i) : "0.0";
    for (int i = 0; i < p.nin; ++i)
        s += (i ? ", %in" : "%in") + std::to_string(i);
    s += ") -> " + std::to_string(p.nout) + " {\n^entry:\n";
    auto op = [&](uint32_t w) { return fmag_gpu_is_ref(w) ? cur[(w & 0xFFFF) % p.regs] : lit(w); };
    int nv = 0;
    for (const W4 &w : p.code) {
        if (!fmag_gpu_is_ref(w.g) && !(bitsf(w.g) > 0)) continue; // a no-op
        int d = (w.da & 0xFFFF) % p.regs, a = (w.da >> 16) % p.regs;
        std::string v = "%v" + std::to_string(++nv);
        s += "  " + v + " = fmag " + cur[a] + ", " + op(w.b) + ", " + op(w.c) + ", " + cur[d] +
             ", " + (fmag_gpu_is_ref(w.g) ? op(w.g) : std::string("1.0")) + "\n";
        cur[d] = v;
    }
    s += "  ret";
    for (int i = 0; i < p.nout; ++i)
        s += (i ? ", " : " ") + cur[i];
    return s + "\n}\n";
}

// ---------------------------------------------------------------- host references
static bool is_denormal(float f)
{
    return f != 0.0f && fabsf(f) < 0x1p-126f;
}

// Returns true when some value of the evaluations (an operand, a product or a result) is a
// float32 denormal: a driver that flushes denormals (NVIDIA's Vulkan driver) may differ there.
static bool host_fmag(const Prog &p, const float *in, unsigned evals, float *out)
{
    float r[256];
    bool den = false;
    for (unsigned ev = 0; ev < evals; ++ev) {
        for (int i = 0; i < p.regs; ++i)
            r[i] = i < p.nin ? (ev ? in[i] + (float)ev * 0.0625f : in[i]) : 0.0f;
        for (const W4 &w : p.code) {
            float b = fmag_gpu_is_ref(w.b) ? r[w.b & 0xFFFF] : bitsf(w.b);
            float c = fmag_gpu_is_ref(w.c) ? r[w.c & 0xFFFF] : bitsf(w.c);
            float g = fmag_gpu_is_ref(w.g) ? r[w.g & 0xFFFF] : bitsf(w.g);
            if (g > 0) {
                float a = r[w.da >> 16], res = fmaf(a, b, c);
                den |= is_denormal(a) || is_denormal(b) || is_denormal(c) ||
                       is_denormal((float)((double)a * b)) || is_denormal(res);
                r[w.da & 0xFFFF] = res;
            }
        }
        for (int i = 0; i < p.nout; ++i)
            out[i] = ev ? out[i] + r[i] : r[i];
    }
    return den;
}

// ---------------------------------------------------------------- switch interpreter
template <int NR>
__device__ __forceinline__ float s_opnd(const float *r, uint32_t k, int i, uint32_t v)
{
    return (k >> i) & 1 ? __uint_as_float(v) : r[v & (NR - 1)];
}

__device__ __noinline__ float s_clamp(float x, float lo, float hi)
{
    float t = __fsub_rn(x, lo), m;
    if (t > 0.0f)
        m = x;
    else
        m = fmaf(t, 0.0f, lo);
    float u = __fsub_rn(m, hi);
    if (u > 0.0f) return fmaf(u, 0.0f, hi);
    return m;
}

// NR = 16: nvcc keeps the 16-entry register file in registers and turns every indexed
// access into compare/select chains; NR = 64 (a node VM's stack, like production renderers'
// `float stack[N]`) lives in local memory. Both are measured; ratios use the faster one.
// ZR registers are zeroed per evaluation (16 for the synthetic suite, 32 for SL programs).
template <bool PERLANE, int NR, int ZR = 16>
__global__ void __launch_bounds__(128) k_switch(fmag_cuda_args p)
{
    unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= p.n) return;
    unsigned prog = 0, nin = p.nin, nout = p.nout, ninstr = p.ninstr;
    if (PERLANE) {
        prog = p.prog_index[e];
        uint4 h = p.progs[prog];
        nin = h.x, nout = h.y;
    }
    float r[NR];
    for (unsigned ev = 0; ev < p.evals; ++ev) {
        for (int i = 0; i < ZR; ++i)
            r[i] = 0.0f;
        for (unsigned i = 0; i < nin; ++i)
            r[i] = fmag_cuda_input(p, e, i, ev);
        for (unsigned i = 0; i < ninstr; ++i) {
            uint4 w = PERLANE ? __ldg(&p.code[(size_t)i * p.nprogs + prog]) : __ldg(&p.code[i]);
            uint32_t op = w.x & 0xFF, d = (w.x >> 8) & (NR - 1), k = (w.x >> 16) & 0xFF,
                     a = w.x >> 24;
            float x = r[a & (NR - 1)], res;
            switch (op) {
            case S_NOP:
                continue;
            case S_MOV:
                res = x;
                break;
            case S_ADD:
                res = __fadd_rn(x, s_opnd<NR>(r, k, 0, w.y));
                break;
            case S_SUB:
                res = __fsub_rn(x, s_opnd<NR>(r, k, 0, w.y));
                break;
            case S_MUL:
                res = __fmul_rn(x, s_opnd<NR>(r, k, 0, w.y));
                break;
            case S_FMA:
                res = fmaf(x, s_opnd<NR>(r, k, 0, w.y), s_opnd<NR>(r, k, 1, w.z));
                break;
            case S_MAX: {
                float y = s_opnd<NR>(r, k, 0, w.y);
                res = __fsub_rn(x, y) > 0.0f ? x : y;
                break;
            }
            case S_MIN: {
                float y = s_opnd<NR>(r, k, 0, w.y);
                res = __fsub_rn(x, y) > 0.0f ? y : x;
                break;
            }
            case S_ABS:
                res = x > 0.0f ? x : -x;
                break;
            case S_RELU:
                res = x > 0.0f ? x : fmaf(x, 0.0f, 0.0f);
                break;
            case S_SELECT:
                res = s_opnd<NR>(r, k, 1, w.z) > 0.0f ? x : s_opnd<NR>(r, k, 0, w.y);
                break;
            case S_GT: {
                float t = __fsub_rn(x, s_opnd<NR>(r, k, 0, w.y));
                res = t > 0.0f ? fmaf(t, 0.0f, 1.0f) : fmaf(t, 0.0f, 0.0f);
                break;
            }
            case S_CFMA:
                if (!(s_opnd<NR>(r, k, 2, w.w) > 0.0f)) continue;
                res = fmaf(x, s_opnd<NR>(r, k, 0, w.y), s_opnd<NR>(r, k, 1, w.z));
                break;
            case S_CLAMP:
                res = s_clamp(x, s_opnd<NR>(r, k, 0, w.y), s_opnd<NR>(r, k, 1, w.z));
                break;
            case S_SMOOTH: {
                float t = s_clamp(x, 0.0f, 1.0f);
                res = __fmul_rn(__fmul_rn(t, t), fmaf(t, -2.0f, 3.0f));
                break;
            }
            default:
                continue;
            }
            r[d] = res;
        }
        for (unsigned i = 0; i < nout; ++i)
            fmag_cuda_output(p, e, i, ev, r[i]);
    }
}

// ---------------------------------------------------------------- FMAG kernels (instances)
template <bool PL> __global__ void __launch_bounds__(128) k_local(fmag_cuda_args p)
{
    fmag_k_local<RF, PL>(p);
}
template <int K, bool PL, int RFS = RF, bool BYTES = false, bool BRANCH = false>
__global__ void __launch_bounds__(128) k_shared(fmag_cuda_args p)
{
    fmag_k_shared<RFS, K, T, PL, BYTES, BRANCH>(p);
}
template <int K, int RFS = RF> __global__ void __launch_bounds__(128) k_spec(fmag_cuda_args p)
{
    fmag_k_spec<RFS, K, T>(p);
}
template <int K, int RFS = RF> __global__ void __launch_bounds__(128) k_pair(fmag_cuda_args p)
{
    fmag_k_pair<RFS, K, T>(p);
}
template <int K, int RFS = RF> __global__ void __launch_bounds__(128) k_sel(fmag_cuda_args p)
{
    fmag_k_sel<RFS, K, T>(p);
}
template <int K, int RFS = RF, int DISPATCH = FMAG_CUDA_SELB_TWO_LEVEL, bool VEC = false>
__global__ void __launch_bounds__(128) k_selb(fmag_cuda_args p)
{
    fmag_k_selb<RFS, K, T, DISPATCH, VEC>(p);
}
template <int K, int RFS = RF> __global__ void __launch_bounds__(128) k_hot(fmag_cuda_args p)
{
    fmag_k_spec_hot<RFS, K, T>(p);
}
template <int K, int RFS = RF, bool VEC = false>
__global__ void __launch_bounds__(128) k_fwd(fmag_cuda_args p)
{
    fmag_k_fwd<RFS, K, T, VEC>(p);
}

// ---------------------------------------------------------------- native code (NVRTC)
static std::string lit_src(uint32_t w)
{
    char b[64];
    snprintf(b, sizeof b, "__uint_as_float(0x%08xu)", w);
    return b;
}
static std::string opnd_src(uint32_t w)
{
    if (fmag_gpu_is_ref(w)) return "r" + std::to_string(w & 0xFFFF);
    return lit_src(w);
}
static std::string native_body(const Prog &p)
{
    std::string s;
    s += "      for (unsigned ev = 0; ev < evals; ++ev) {\n";
    for (int i = 0; i < p.regs; ++i) {
        if (i < p.nin)
            s += "        float r" + std::to_string(i) + " = in[(size_t)e*is+" + std::to_string(i) +
                 "]; if (ev) r" + std::to_string(i) + " = __fadd_rn(r" + std::to_string(i) +
                 ", (float)ev * 0.0625f);\n";
        else
            s += "        float r" + std::to_string(i) + " = 0.0f;\n";
    }
    for (const W4 &w : p.code) {
        std::string d = "r" + std::to_string(w.da & 0xFFFF), a = "r" + std::to_string(w.da >> 16);
        std::string f = "fmaf(" + a + ", " + opnd_src(w.b) + ", " + opnd_src(w.c) + ")";
        if (fmag_gpu_is_ref(w.g))
            s += "        " + d + " = (" + opnd_src(w.g) + " > 0.0f) ? " + f + " : " + d + ";\n";
        else if (bitsf(w.g) > 0)
            s += "        " + d + " = " + f + ";\n";
    }
    for (int i = 0; i < p.nout; ++i) {
        std::string o = "out[(size_t)e*os+" + std::to_string(i) + "]";
        s += "        " + o + " = ev ? __fadd_rn(" + o + ", r" + std::to_string(i) + ") : r" +
             std::to_string(i) + ";\n";
    }
    s += "      }\n";
    return s;
}
static const char *native_head =
    "extern \"C\" __global__ void __launch_bounds__(128) k(const float *in, float *out, "
    "const unsigned *pi, unsigned n, unsigned is, unsigned os, unsigned evals) {\n"
    "  unsigned e = blockIdx.x * blockDim.x + threadIdx.x; if (e >= n) return;\n";

struct Native {
    CUmodule mod;
    CUfunction fn;
    double compile_ms;
};
static Native native_compile(const std::string &src)
{
    Native nv;
    auto t0 = std::chrono::steady_clock::now();
    nvrtcProgram prog;
    // the emitter's source includes these two; NVRTC has no C library headers
    const char *hdr[] = {"typedef decltype(sizeof(0)) size_t;\n",
                         "typedef unsigned int uint32_t;\n"};
    const char *hdrname[] = {"stddef.h", "stdint.h"};
    CKR(nvrtcCreateProgram(&prog, src.c_str(), "fmag_native.cu", 2, hdr, hdrname));
    const char *opts[] = {"--gpu-architecture=sm_90", "-fmad=false"};
    nvrtcResult rc = nvrtcCompileProgram(prog, 2, opts);
    if (rc != NVRTC_SUCCESS) {
        size_t ls;
        nvrtcGetProgramLogSize(prog, &ls);
        std::string log(ls, 0);
        nvrtcGetProgramLog(prog, &log[0]);
        fprintf(stderr, "nvrtc: %s\n", log.c_str());
        exit(1);
    }
    size_t cs;
    CKR(nvrtcGetCUBINSize(prog, &cs));
    std::vector<char> cubin(cs);
    CKR(nvrtcGetCUBIN(prog, cubin.data()));
    nvrtcDestroyProgram(&prog);
    auto t1 = std::chrono::steady_clock::now();
    nv.compile_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    CKD(cuModuleLoadData(&nv.mod, cubin.data()));
    CKD(cuModuleGetFunction(&nv.fn, nv.mod, "k"));
    return nv;
}

#ifdef FMAG_BENCH_VULKAN
static fmag_vm_program vm_prog(const Prog &p);
// The native rows' source: the library's emitter (fmag_vm_emit_source, what `fmag-as
// --emit=cuda` writes: one __device__ function per program, registers as locals, a switch
// over the programs) inside the benchmark's kernel, which adds the evaluation offsets and
// sums the outputs in order as every other row does.
static std::string native_source(const std::vector<Prog> &progs, bool perlane)
{
    std::vector<fmag_vm_program> vp;
    std::vector<const fmag_vm_program *> pp;
    for (auto &p : progs)
        vp.push_back(vm_prog(p));
    for (auto &v : vp)
        pp.push_back(&v);
    char *text = nullptr, err[256];
    size_t len = 0;
    if (!fmag_vm_emit_source(pp.data(), pp.size(), FMAG_VM_EMIT_CUDA, "fn_", &text, &len, err,
                             sizeof err)) {
        fprintf(stderr, "fmag_vm_emit_source: %s\n", err);
        exit(1);
    }
    std::string src(text, len);
    free(text);
    unsigned nin = 1, nout = 1;
    std::string nouts;
    for (auto &p : progs) {
        nin = std::max(nin, (unsigned)p.nin), nout = std::max(nout, (unsigned)p.nout);
        nouts += std::to_string(p.nout) + "u, ";
    }
    src += "__constant__ unsigned fn_nout[] = {" + nouts + "};\n" + native_head;
    src += "  unsigned p = " + std::string(perlane ? "pi[e]" : "0u") + ", no = fn_nout[p];\n";
    src += "  float x[" + std::to_string(nin) + "], y[" + std::to_string(nout) + "];\n";
    src += "  for (unsigned ev = 0; ev < evals; ++ev) {\n"
           "    for (unsigned i = 0; i < " + std::to_string(nin) + "u; ++i) {\n"
           "      float v = in[(size_t)e * is + i];\n"
           "      x[i] = ev ? __fadd_rn(v, (float)ev * 0.0625f) : v;\n"
           "    }\n"
           "    fn_eval(p, x, y);\n"
           "    for (unsigned i = 0; i < no; ++i) {\n"
           "      float *o = &out[(size_t)e * os + i];\n"
           "      *o = ev ? __fadd_rn(*o, y[i]) : y[i];\n"
           "    }\n"
           "  }\n}\n";
    return src;
}
#endif

// ---------------------------------------------------------------- harness
struct Workload {
    std::string name;
    bool perlane;
    std::vector<Prog> progs;  // 1 (uniform) or several (per lane)
    std::vector<unsigned> pi; // per lane: element e runs progs[pi[e]]
    bool sl = false;
};

static unsigned N = 8u << 20;
static unsigned EVALS = 16;
static const unsigned NPL = 32; // programs in a per-lane workload
static float *d_in, *d_out;
static unsigned *d_pi;
static std::vector<float> h_in;
static unsigned IS = 4, OS = 2; // strides of the workload being run
static unsigned MAXIS = 4, MAXOS = 2;
static bool vk_flushes; // the Vulkan runner's driver flushes float32 denormals
// --quick: only the designs the runners ship and the candidates being measured (the
// design variants that lost in earlier runs, docs/PERFORMANCE.md, and the forced Vulkan
// designs are skipped)
static bool QUICK;
// --tiers: the native rows, the runners' automatic rows and the tier and binning rows only
static bool TIERS;
static bool skipped_in_quick(const char *name)
{
    if (TIERS) return true;
    static const char *old[] = {"G4-shared", "G8-shared",    "G4-carve60",    "G4-rf2",
                                "G8-rf2",    "U4-spec",      "U8-spec",       "P4-pair",
                                "S4-sel",    "S8-sel",       "SB4-1switch",   "U4-rf2",
                                "U8-rf2",    "U4-spec+zero", "G4-shared+zero"};
    if (!QUICK) return false;
    for (const char *o : old)
        if (!strcmp(o, name)) return true;
    return false;
}
static FILE *csv;

template <typename F> static double time_ms(F launch, int reps = 7)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    launch();
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return t[t.size() / 2];
}

#ifdef FMAG_BENCH_VULKAN
static fmag_vm_program vm_prog(const Prog &p)
{
    fmag_vm_program v;
    memset(&v, 0, sizeof v);
    v.name = (char *)p.name.c_str();
    v.regs = (uint16_t)p.regs, v.nin = (uint16_t)p.nin, v.nout = (uint16_t)p.nout;
    v.ninstr = (uint32_t)p.code.size();
    v.code = (fmag_vm_instr *)p.code.data();
    return v;
}
#endif

// The reference for one element: the library's reference VM (fmag_vm_run) per evaluation
// where the benchmark is linked with it (bench/gpu/run.sh), with the same input offsets and
// the same in-order float sum as the kernels; host_fmag (the same semantics, written out)
// otherwise. Returns true when an evaluation touches a float32 denormal.
static bool reference(const Prog &p0, const float *in, unsigned evals, float *ref,
                      bool hand = false)
{
    Prog hp;
    if (hand && !p0.hcode.empty()) hp = p0, hp.code = p0.hcode;
    const Prog &p = hand && !p0.hcode.empty() ? hp : p0;
    bool den = host_fmag(p, in, evals, ref);
#ifdef FMAG_BENCH_VULKAN
    fmag_vm_program v = vm_prog(p);
    float x[256], o[256], regs[4096];
    for (unsigned ev = 0; ev < evals; ++ev) {
        for (int i = 0; i < p.nin; ++i)
            x[i] = ev ? in[i] + (float)ev * 0.0625f : in[i];
        fmag_vm_run(&v, x, o, regs);
        for (int i = 0; i < p.nout; ++i)
            ref[i] = ev ? ref[i] + o[i] : o[i];
    }
#endif
    return den;
}

static unsigned den_skipped; // elements of the last check skipped as denormal-touching

// Compares sampled elements against the reference VM; NaNs compare equal to NaNs. On a
// denormal-flushing driver (flush = true) elements whose evaluation touches a denormal are
// counted in den_skipped instead of compared.
static int check(const Workload &w, unsigned evals, const char *what, bool flush = false)
{
    std::vector<float> out((size_t)N * OS);
    CK(cudaMemcpy(out.data(), d_out, out.size() * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    den_skipped = 0;
    uint64_t s = 12345;
    for (int k = 0; k < 4096; ++k) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        unsigned e = k < 4 ? N - 1 - k : (unsigned)(s % N);
        const Prog &p = w.progs[w.perlane ? w.pi[e] : 0];
        float ref[256];
        // compiled workloads: the switch VM runs the hand-written node ops, whose exact
        // equivalent is the hand-lowered stream; every other engine runs the compiled one
        bool den = reference(p, &h_in[(size_t)e * IS], evals, ref, !strncmp(what, "switch", 6));
        if (den && flush) {
            ++den_skipped;
            continue;
        }
        for (int i = 0; i < p.nout; ++i) {
            float g = out[(size_t)e * OS + i];
            bool ok = fbits(g) == fbits(ref[i]) || (std::isnan(g) && std::isnan(ref[i]));
            if (!ok && bad++ < 3)
                fprintf(stderr, "  MISMATCH %s %s elem %u out %d: got %a want %a\n", w.name.c_str(),
                        what, e, i, g, ref[i]);
        }
    }
    return bad;
}

static void poison()
{
    CK(cudaMemset(d_out, 0xFF, (size_t)N * OS * 4));
}

struct Row {
    std::string wl, impl;
    double ms;
    int bad;
    unsigned den;
};
static std::vector<Row> rows;

static double lane_instr(const Workload &w)
{
    // FMAG instructions executed, summed over elements and evaluations
    double s = 0;
    if (!w.perlane) return (double)w.progs[0].code.size() * N * EVALS;
    std::vector<double> cnt(w.progs.size(), 0);
    for (unsigned e = 0; e < N; ++e)
        cnt[w.pi[e]] += 1;
    for (unsigned k = 0; k < w.progs.size(); ++k)
        s += cnt[k] * w.progs[k].code.size();
    return s * EVALS;
}

static void record(const Workload &w, const char *impl, double ms, int bad)
{
    rows.push_back({w.name, impl, ms, bad, den_skipped});
    double li = lane_instr(w);
    char note[64] = "";
    if (den_skipped) snprintf(note, sizeof note, " (%u denormal elements skipped)", den_skipped);
    printf("  %-8s %-14s %9.3f ms  %8.3f Gelem/s  %7.3f T lane-instr/s  %s%s\n", w.name.c_str(),
           impl, ms, (double)N * EVALS / ms / 1e6, li / ms / 1e9, bad ? "MISMATCH" : "exact", note);
    den_skipped = 0;
    fprintf(csv, "%s,%s,%.4f,%.6f,%.6f,%d\n", w.name.c_str(), impl, ms,
            (double)N * EVALS / ms / 1e6, li / ms / 1e9, bad);
    fflush(stdout);
}

static uint4 *upload_code(const std::vector<const std::vector<W4> *> &codes, unsigned *ninstr)
{
    // one program: as is; several: interleaved [instr][program], padded with no-ops
    size_t maxlen = 0;
    for (auto *c : codes)
        maxlen = std::max(maxlen, c->size());
    std::vector<W4> il(maxlen * codes.size(), W4{0, 0, 0, 0});
    for (size_t i = 0; i < maxlen; ++i)
        for (size_t k = 0; k < codes.size(); ++k)
            if (i < codes[k]->size()) il[i * codes.size() + k] = (*codes[k])[i];
    uint4 *d;
    CK(cudaMalloc(&d, std::max<size_t>(il.size(), 1) * 16));
    CK(cudaMemcpy(d, il.data(), il.size() * 16, cudaMemcpyHostToDevice));
    *ninstr = (unsigned)maxlen;
    return d;
}

template <typename K> static void set_smem(K k, size_t bytes)
{
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}

// Inputs of a workload: the synthetic suite draws every input from [-2, 2); an SL example's
// inputs are drawn within +-25% (at least +-0.25) of its demo input, so shading vectors and
// exponents stay in the ranges the example was written for.
static void make_inputs(const Workload &w)
{
    h_in.assign((size_t)N * IS, 0.0f);
    uint64_t s = 987654321;
    auto u01 = [&]() {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        return (double)(s >> 11) / (double)(1ull << 53);
    };
    if (!w.sl) {
        for (auto &x : h_in)
            x = (float)(u01() * 4.0 - 2.0);
    } else {
        for (unsigned e = 0; e < N; ++e) {
            const Prog &p = w.progs[w.perlane ? w.pi[e] : 0];
            for (int i = 0; i < p.nin; ++i) {
                double d = i < (int)p.demo.size() ? p.demo[i] : 0.5;
                double spread = std::max(fabs(d) * 0.25, 0.25);
                h_in[(size_t)e * IS + i] = (float)(d + (u01() * 2.0 - 1.0) * spread);
            }
        }
    }
    CK(cudaMemcpy(d_in, h_in.data(), h_in.size() * 4, cudaMemcpyHostToDevice));
}

static void run_workload(Workload &w, std::vector<std::pair<std::string, double>> &compile_log)
{
    IS = 4, OS = 2;
    for (auto &p : w.progs)
        IS = std::max(IS, (unsigned)p.nin), OS = std::max(OS, (unsigned)p.nout);
    make_inputs(w);
    if (w.perlane) CK(cudaMemcpy(d_pi, w.pi.data(), (size_t)N * 4, cudaMemcpyHostToDevice));
    printf("%s (%s, %zu program%s, %zu FMAG instr%s, %zu switch ops, N=%u x %u evals)\n",
           w.name.c_str(), w.perlane ? "per-lane" : "uniform", w.progs.size(),
           w.progs.size() > 1 ? "s" : "", w.progs[0].code.size(), w.perlane ? " (first)" : "",
           w.progs[0].scode.size(), N, EVALS);
    fmag_cuda_args a;
    memset(&a, 0, sizeof a);
    a.in = d_in, a.out = d_out, a.n = N, a.in_stride = IS, a.out_stride = OS, a.evals = EVALS;
    a.in_col = 1, a.out_col = 1; /* rows; a.nan NULL: the bench maps NaNs itself */
    a.nprogs = (unsigned)w.progs.size();
    a.prog_index = d_pi;
    std::vector<uint4> hprogs;
    unsigned maxregs = 0, maxnin = 0, maxnout = 0;
    bool zero = false;
    uint8_t scratch[256];
    for (auto &p : w.progs) {
        hprogs.push_back(make_uint4(p.nin, p.nout, p.regs, (unsigned)p.code.size()));
        maxregs = std::max(maxregs, (unsigned)p.regs);
        maxnin = std::max(maxnin, (unsigned)p.nin);
        maxnout = std::max(maxnout, (unsigned)p.nout);
        if (p.regs <= RF) // the bench's own FMAG kernels (RF = 16) run only these
            zero |= fmag_gpu_needs_zero_init(p.code.data(), (uint32_t)p.code.size(), p.nin, p.nout,
                                             RF, scratch);
    }
    uint4 *d_progs;
    CK(cudaMalloc(&d_progs, hprogs.size() * 16));
    CK(cudaMemcpy(d_progs, hprogs.data(), hprogs.size() * 16, cudaMemcpyHostToDevice));
    a.progs = d_progs;
    a.nin = maxnin, a.nout = maxnout, a.regs = maxregs, a.zero_init = zero;
    std::vector<const std::vector<W4> *> fc, sc;
    for (auto &p : w.progs)
        fc.push_back(&p.code), sc.push_back(&p.scode);
    unsigned nf, ns;
    uint4 *d_f = upload_code(fc, &nf), *d_s = upload_code(sc, &ns);
    printf("  zero-init needed: %s\n", zero ? "yes" : "no");

#ifdef FMAG_BENCH_VULKAN
    // native: the library's emitter
    {
        Native nv = native_compile(native_source(w.progs, w.perlane));
        compile_log.push_back({w.name, nv.compile_ms});
        unsigned n = N, is = IS, os = OS, ev = EVALS;
        void *args[] = {&d_in, &d_out, &d_pi, &n, &is, &os, &ev};
        poison();
        double ms = time_ms(
            [&] { CKD(cuLaunchKernel(nv.fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, 0)); });
        record(w, w.perlane ? "native-switch" : "native", ms, check(w, EVALS, "native"));
        cuModuleUnload(nv.mod);
    }
#else
    printf("  native: needs the library (fmag_vm_emit_source): skipped\n");
#endif
    // the bench's former hand-written generator, for the before/after of issue 17
    if (!QUICK || getenv("FMAG_BENCH_OLD_NATIVE")) {
        std::string src = native_head;
        if (!w.perlane) {
            src += native_body(w.progs[0]);
        } else {
            src += "  switch (pi[e]) {\n";
            for (unsigned k = 0; k < w.progs.size(); ++k)
                src += "  case " + std::to_string(k) + ": {\n" + native_body(w.progs[k]) +
                       "  } break;\n";
            src += "  }\n";
        }
        src += "}\n";
        Native nv = native_compile(src);
        unsigned n = N, is = IS, os = OS, ev = EVALS;
        void *args[] = {&d_in, &d_out, &d_pi, &n, &is, &os, &ev};
        poison();
        double ms = time_ms(
            [&] { CKD(cuLaunchKernel(nv.fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, 0)); });
        record(w, "native-old", ms, check(w, EVALS, "native-old"));
        cuModuleUnload(nv.mod);
    }
    // switch interpreter
    if (!TIERS) {
        fmag_cuda_args s = a;
        s.code = d_s, s.ninstr = ns;
        double ms;
        if (maxregs <= 16) {
            poison();
            ms = time_ms([&] {
                if (w.perlane)
                    k_switch<true, 16><<<(N + 127) / 128, 128>>>(s);
                else
                    k_switch<false, 16><<<(N + 127) / 128, 128>>>(s);
            });
            record(w, "switch-reg", ms, check(w, EVALS, "switch-reg"));
        } else
            printf("  switch-reg: not run (the program needs %u registers; its register file "
                   "holds 16)\n",
                   maxregs);
        poison();
        ms = time_ms([&] {
            if (w.perlane && w.sl)
                k_switch<true, 64, 32><<<(N + 127) / 128, 128>>>(s);
            else if (w.perlane)
                k_switch<true, 64><<<(N + 127) / 128, 128>>>(s);
            else if (w.sl)
                k_switch<false, 64, 32><<<(N + 127) / 128, 128>>>(s);
            else
                k_switch<false, 64><<<(N + 127) / 128, 128>>>(s);
        });
        record(w, "switch-lmem", ms, check(w, EVALS, "switch-lmem"));
    }
    auto runG = [&](auto kern, int K, const char *name, fmag_cuda_args args, int rf = RF,
                    int carveout = -1) {
        if (skipped_in_quick(name)) return;
        size_t smem = (size_t)rf * K * T * 4;
        set_smem(kern, smem);
        CK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
        unsigned grid = (N + K * T - 1) / (K * T);
        poison();
        double ms = time_ms([&] { kern<<<grid, T, smem>>>(args); });
        record(w, name, ms, check(w, EVALS, name));
    };
    if (w.sl && !w.perlane) {
        // SL, uniform: the runner's uniform kernels at the program's register-file size, 4
        // elements a thread (2 measured slower at rf 8-32 on 2026-11-29, docs/PERFORMANCE.md)
        const Prog &p = w.progs[0];
        int rf = (int)std::max(8u, fmag_gpu_pow2_regs((uint32_t)p.regs));
        if (rf <= 32 && p.code.size() <= FMAG_CUDA_MAX_UNIFORM) {
            uint8_t sc[32];
            fmag_cuda_args u = a;
            u.zero_init = fmag_gpu_needs_zero_init(p.code.data(), (uint32_t)p.code.size(), p.nin,
                                                   p.nout, (uint32_t)rf, sc);
            std::vector<W4> pd(p.code.size()), sl(p.code.size());
            u.ninstr = fmag_gpu_predecode(p.code.data(), (uint32_t)p.code.size(), rf, pd.data());
            fmag_cuda_args u2 = u;
            u2.ninstr =
                fmag_gpu_predecode_sel(p.code.data(), (uint32_t)p.code.size(), rf, sl.data());
            unsigned nfused = 0;
            for (unsigned i = 0; i < u2.ninstr; ++i)
                nfused += (sl[i].da >> 16) >= 8;
            printf("  rf %d, zero-init %s, fused selects: %u of %u records\n", rf,
                   u.zero_init ? "needed" : "skipped", nfused, u2.ninstr);
            // one of three instances, by the program's register-file size
            auto runRF = [&](auto k8, auto k16, auto k32, const char *name, fmag_cuda_args args) {
                if (rf == 8) runG(k8, 4, name, args, rf);
                if (rf == 16) runG(k16, 4, name, args, rf);
                if (rf == 32) runG(k32, 4, name, args, rf);
            };
            const int NOF = FMAG_CUDA_SELB_NO_FUSION, ONE = FMAG_CUDA_SELB_ONE_SWITCH;
            const int TWO = FMAG_CUDA_SELB_TWO_LEVEL;
            CK(cudaMemcpyToSymbol(fmag_cuda_ucode, pd.data(), u.ninstr * 16));
            runRF(k_spec<4, 8>, k_spec<4, 16>, k_spec<4, 32>, "U4-spec", u);
            CK(cudaMemcpyToSymbol(fmag_cuda_ucode, sl.data(), u2.ninstr * 16));
            runRF(k_sel<4, 8>, k_sel<4, 16>, k_sel<4, 32>, "S4-sel", u2);
            fmag_gpu_predecode_bytes(pd.data(), u.ninstr, 4 * T * 4);
            CK(cudaMemcpyToSymbol(fmag_cuda_ucode, pd.data(), u.ninstr * 16));
            runRF(k_selb<4, 8, NOF>, k_selb<4, 16, NOF>, k_selb<4, 32, NOF>, "UB4-spec-bytes", u);
            runRF(k_selb<4, 8, NOF, true>, k_selb<4, 16, NOF, true>, k_selb<4, 32, NOF, true>,
                  "UV4-spec-vec", u);
            fmag_gpu_predecode_bytes(sl.data(), u2.ninstr, 4 * T * 4);
            CK(cudaMemcpyToSymbol(fmag_cuda_ucode, sl.data(), u2.ninstr * 16));
            runRF(k_selb<4, 8>, k_selb<4, 16>, k_selb<4, 32>, "SB4-sel-bytes", u2);
            runRF(k_selb<4, 8, ONE>, k_selb<4, 16, ONE>, k_selb<4, 32, ONE>, "SB4-1switch", u2);
            runRF(k_selb<4, 8, TWO, true>, k_selb<4, 16, TWO, true>, k_selb<4, 32, TWO, true>,
                  "SV4-sel-vec", u2);
            // forwarding pre-decode with the VEC layout
            {
                uint8_t needed[32];
                std::vector<W4> fw(p.code.size());
                fmag_cuda_args f = u;
                f.ninstr = fmag_gpu_predecode_fwd(p.code.data(), (uint32_t)p.code.size(), rf,
                                                  4 * T * 4, p.nout, fw.data(), needed);
                CK(cudaMemcpyToSymbol(fmag_cuda_ucode, fw.data(), f.ninstr * 16));
                runRF(k_fwd<4, 8, true>, k_fwd<4, 16, true>, k_fwd<4, 32, true>, "F4-fwd-vec", f);
                // rf <= 4 (hash21): what the runner runs, 8 elements a thread, both layouts
                if (p.regs <= 4) {
                    f.ninstr = fmag_gpu_predecode_fwd(p.code.data(), (uint32_t)p.code.size(), 4,
                                                      8 * T * 4, p.nout, fw.data(), needed);
                    CK(cudaMemcpyToSymbol(fmag_cuda_ucode, fw.data(), f.ninstr * 16));
                    runG(k_fwd<8, 4>, 8, "F8-fwd-rf4", f, 4);
                    runG(k_fwd<8, 4, true>, 8, "F8-fwd-rf4-vec", f, 4);
                }
            }
        }
    }
    // The design variants below are RF = 16 builds: the synthetic suite only
    if (!w.sl) {
        a.code = d_f, a.ninstr = nf;
        // F1: local array
        if (!QUICK) {
            poison();
            double ms = time_ms([&] {
                if (w.perlane)
                    k_local<true><<<(N + 127) / 128, 128>>>(a);
                else
                    k_local<false><<<(N + 127) / 128, 128>>>(a);
            });
            record(w, "F1-local", ms, check(w, EVALS, "F1"));
        }
        // G<K>: shared register file, raw stream
        if (w.perlane) {
            runG(k_shared<4, true>, 4, "G4-shared", a);
            runG(k_shared<8, true>, 8, "G8-shared", a);
            // leave L1 room for the 32 programs' streams (shared memory carve-out, percent)
            runG(k_shared<4, true>, 4, "G4-carve60", a, RF, 60);
            // the same streams with byte offsets and kind bits (fmag_gpu_predecode_lane)
            bool same_kinds;
            {
                std::vector<W4> il((size_t)nf * w.progs.size());
                CK(cudaMemcpy(il.data(), d_f, il.size() * 16, cudaMemcpyDeviceToHost));
                same_kinds = fmag_gpu_lane_kinds_agree(il.data(), nf, w.progs.size());
                printf("  operand kinds the same in every program: %s\n",
                       same_kinds ? "yes" : "no");
            }
            auto run_bytes = [&](auto kern, int K, int rf, const char *name) {
                std::vector<W4> il((size_t)nf * w.progs.size());
                CK(cudaMemcpy(il.data(), d_f, il.size() * 16, cudaMemcpyDeviceToHost));
                fmag_gpu_predecode_lane(il.data(), (uint32_t)il.size(), (uint32_t)rf,
                                        (uint32_t)(K * T * 4), il.data());
                uint4 *d_b;
                CK(cudaMalloc(&d_b, std::max<size_t>(il.size(), 1) * 16));
                CK(cudaMemcpy(d_b, il.data(), il.size() * 16, cudaMemcpyHostToDevice));
                fmag_cuda_args b = a;
                b.code = d_b;
                runG(kern, K, name, b, rf, 60);
                cudaFree(d_b);
            };
            run_bytes(k_shared<4, true, RF, true>, 4, RF, "GB4-bytes-carve60");
            // uniform branches on operand kinds: what the runner runs when every program has the
            // same kinds at every instruction; on programs that disagree, for comparison
            run_bytes(k_shared<4, true, RF, true, true>, 4, RF, "GB4-branch");
            if (maxregs <= 2) {
                runG(k_shared<4, true, 2>, 4, "G4-rf2", a, 2);
                runG(k_shared<8, true, 2>, 8, "G8-rf2", a, 2);
                run_bytes(k_shared<8, true, 2, true>, 8, 2, "GB8-bytes-rf2");
                if (same_kinds) run_bytes(k_shared<8, true, 2, true, true>, 8, 2, "GB8-branch-rf2");
            }
        } else {
            runG(k_shared<4, false>, 4, "G4-shared", a);
            // U<K>: pre-decoded stream in constant memory, warp-uniform switch on operand kinds
            const Prog &p = w.progs[0];
            std::vector<W4> pd(p.code.size());
            unsigned npd =
                fmag_gpu_predecode(p.code.data(), (uint32_t)p.code.size(), RF, pd.data());
            CK(cudaMemcpyToSymbol(fmag_cuda_ucode, pd.data(), npd * 16));
            fmag_cuda_args u = a;
            u.ninstr = npd;
            runG(k_spec<4>, 4, "U4-spec", u);
            runG(k_spec<8>, 8, "U8-spec", u);
            runG(k_pair<4>, 4, "P4-pair", u);
            {
                std::vector<W4> sl(p.code.size());
                unsigned ns2 =
                    fmag_gpu_predecode_sel(p.code.data(), (uint32_t)p.code.size(), RF, sl.data());
                unsigned nfused = 0;
                for (unsigned i = 0; i < ns2; ++i)
                    nfused += (sl[i].da >> 16) >= 8;
                printf("  fused selects: %u of %u records\n", nfused, ns2);
                CK(cudaMemcpyToSymbol(fmag_cuda_ucode, sl.data(), ns2 * 16));
                fmag_cuda_args s2 = u;
                s2.ninstr = ns2;
                runG(k_sel<4>, 4, "S4-sel", s2);
                runG(k_sel<8>, 8, "S8-sel", s2);
                // the same records with byte offsets (one mask per operand, no scaling)
                fmag_gpu_predecode_bytes(sl.data(), ns2, 4 * T * 4);
                CK(cudaMemcpyToSymbol(fmag_cuda_ucode, sl.data(), ns2 * 16));
                runG(k_selb<4>, 4, "SB4-sel-bytes", s2);
                runG(k_selb<4, RF, FMAG_CUDA_SELB_TWO_LEVEL, true>, 4, "SV4-sel-vec", s2);
                runG(k_selb<4, RF, FMAG_CUDA_SELB_ONE_SWITCH>, 4, "SB4-1switch", s2);
                // the unfused records with byte offsets (the spec kernel's dispatch)
                std::vector<W4> pb(pd.begin(), pd.begin() + npd);
                fmag_gpu_predecode_bytes(pb.data(), npd, 4 * T * 4);
                CK(cudaMemcpyToSymbol(fmag_cuda_ucode, pb.data(), npd * 16));
                runG(k_selb<4, RF, FMAG_CUDA_SELB_NO_FUSION>, 4, "UB4-spec-bytes", u);
                runG(k_selb<4, RF, FMAG_CUDA_SELB_NO_FUSION, true>, 4, "UV4-spec-vec", u);
                CK(cudaMemcpyToSymbol(fmag_cuda_ucode, pd.data(), npd * 16));
            }
            if (maxregs <= 2) {
                unsigned n2 =
                    fmag_gpu_predecode(p.code.data(), (uint32_t)p.code.size(), 2, pd.data());
                CK(cudaMemcpyToSymbol(fmag_cuda_ucode, pd.data(), n2 * 16));
                runG(k_spec<4, 2>, 4, "U4-rf2", u, 2);
                runG(k_spec<8, 2>, 8, "U8-rf2", u, 2);
                runG(k_shared<4, false, 2>, 4, "G4-rf2", a, 2);
                fmag_gpu_predecode(p.code.data(), (uint32_t)p.code.size(), RF, pd.data());
                CK(cudaMemcpyToSymbol(fmag_cuda_ucode, pd.data(), npd * 16));
            }
            // F<K>: forwarding pre-decode (a from the previous result, dead stores skipped)
            {
                uint8_t needed[RF];
                std::vector<W4> fw(p.code.size());
                auto runF = [&](auto kern, int K, int rf, const char *name) {
                    unsigned nf2 =
                        fmag_gpu_predecode_fwd(p.code.data(), (uint32_t)p.code.size(), rf,
                                               (uint32_t)(K * T * 4), p.nout, fw.data(), needed);
                    CK(cudaMemcpyToSymbol(fmag_cuda_ucode, fw.data(), nf2 * 16));
                    fmag_cuda_args f = u;
                    f.ninstr = nf2;
                    runG(kern, K, name, f, rf);
                };
                runF(k_fwd<4>, 4, RF, "F4-fwd");
                runF(k_fwd<4, RF, true>, 4, RF, "F4-fwd-vec");
                if (maxregs <= 2) {
                    runF(k_fwd<8, 2>, 8, 2, "F8-fwd-rf2");
                    runF(k_fwd<8, 2, true>, 8, 2, "F8-fwd-rf2-vec");
                }
                CK(cudaMemcpyToSymbol(fmag_cuda_ucode, pd.data(), npd * 16));
            }
            if (!zero) {
                u.zero_init = 1;
                runG(k_spec<4>, 4, "U4-spec+zero", u);
                a.zero_init = 1;
                runG(k_shared<4, false>, 4, "G4-shared+zero", a);
                a.zero_init = 0;
            }
        }
    }
#ifdef FMAG_BENCH_VULKAN
    extern void bench_runners(const Workload &w);
    bench_runners(w);
#endif
    cudaFree(d_f);
    cudaFree(d_s);
    cudaFree(d_progs);
}

#ifdef FMAG_BENCH_VULKAN
static fmag_gpu_runner *vk, *cu;
static void bench_runner(const Workload &w, fmag_gpu_runner *r, const char *label);
static void bench_tiers(const Workload &w, fmag_gpu_runner *r, const char *api);
void bench_runners(const Workload &w)
{
    // the interpreters' rows: no baking, no binning (the tier rows follow)
    for (fmag_gpu_runner *r : {cu, vk})
        if (r) fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_OFF),
                fmag_gpu_runner_set_bin_threshold(r, 0);
    if (cu) bench_runner(w, cu, "runner-cuda");
    if (cu) bench_tiers(w, cu, "cuda");
    if (vk) bench_tiers(w, vk, "vk");
    if (!vk || TIERS) {
        if (vk) bench_runner(w, vk, "runner-vulkan");
        return;
    }
    // The Vulkan designs one by one (docs/GPU.md), then what the runner picks by itself.
    static const struct {
        fmag_gpu_vk_design d;
        const char *name;
        int only; // 1: per-lane workloads only, 2: uniform ones only
        bool old; // fmag_run.comp's designs that lost in earlier runs: skipped by --quick
        fmag_gpu_vk_fast_knobs knobs;
    } designs[] = {{FMAG_GPU_VK_PRIVATE, "vk-private", 0, true, {0, -1, -1, -1}},
                   {FMAG_GPU_VK_PRIVATE_INTERLEAVED, "vk-private-il", 1, true, {0, -1, -1, -1}},
                   {FMAG_GPU_VK_PRIVATE_PREDECODED, "vk-private-pd", 2, true, {0, -1, -1, -1}},
                   {FMAG_GPU_VK_WORKGROUP_PREDECODED, "vk-wg-pd", 0, true, {0, -1, -1, -1}},
                   // (k, ubo, fuse, vec)
                   {FMAG_GPU_VK_FAST, "vk-fast-k1", 0, true, {1, 1, 1, 0}},
                   {FMAG_GPU_VK_FAST, "vk-fast-k2", 0, true, {2, 1, 1, 0}},
                   {FMAG_GPU_VK_FAST, "vk-fast-k4", 0, true, {4, 1, 1, 0}},
                   {FMAG_GPU_VK_FAST, "vk-fast-k8", 0, true, {8, 1, 1, 0}},
                   {FMAG_GPU_VK_FAST, "vk-vec-k2", 0, false, {2, 1, 1, 1}},
                   {FMAG_GPU_VK_FAST, "vk-vec-k4", 0, false, {4, 1, 1, 1}},
                   {FMAG_GPU_VK_FAST, "vk-fast-k4-ssbo", 2, true, {4, 0, 1, 0}},
                   // uniform: no select fusion; per lane: no branch on agreeing kinds
                   {FMAG_GPU_VK_FAST, "vk-fast-k4-nofuse", 0, true, {4, 1, 0, 0}}};
    // The runner ships only what its automatic choice picks; the experiments that lost
    // (HLSL and -O0 builds, broadcast records, records as specialization constants,
    // workgroups of 32 / 128) left it with their rows in docs/PERFORMANCE.md.
    for (auto &d : designs) {
        if ((QUICK && d.old) || (d.only == 1 && !w.perlane) || (d.only == 2 && w.perlane))
            continue;
        // --quick: past 16 registers the fast design loses (PERFORMANCE.md)
        unsigned maxregs = 0;
        for (auto &p : w.progs)
            maxregs = std::max(maxregs, (unsigned)p.regs);
        if (QUICK && maxregs > 16) continue;
        fmag_gpu_runner_set_vk_design(vk, d.d);
        fmag_gpu_runner_set_vk_fast(vk, d.knobs);
        bench_runner(w, vk, d.name);
    }
    fmag_gpu_runner_set_vk_design(vk, FMAG_GPU_VK_AUTO);
    fmag_gpu_runner_set_vk_fast(vk, fmag_gpu_vk_fast_knobs{0, -1, -1, -1});
    bench_runner(w, vk, "runner-vulkan");
}
// The tiers (docs/GPU.md): uniform workloads baked at once (bit-identical, then NaN-agnostic)
// with the bake's time, which is the time from a program's first run to its native use;
// per-lane workloads binned by program, interpreted and (at most 8 programs) baked.
static void bench_tiers(const Workload &w, fmag_gpu_runner *r, const char *api)
{
    std::string l = std::string(api);
    if (!w.perlane) {
        for (int na = 0; na < 2; ++na) {
            fmag_gpu_runner_set_nan_agnostic(r, na != 0);
            fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_EAGER);
            std::string label = l + (na ? "-baked-na" : "-baked");
            bench_runner(w, r, label.c_str());
            fmag_gpu_bake_stat st;
            fmag_gpu_runner_bake_stats(r, &st);
            printf("  tier %s %s: %s; bake (first run to native) %.1f ms: compile %.1f ms, %s "
                   "%.1f ms%s%s\n",
                   w.name.c_str(), label.c_str(),
                   fmag_gpu_tier_name(fmag_gpu_runner_last_tier(r)), st.last_bake_ms,
                   st.last_compile_ms, !strcmp(api, "vk") ? "pipeline" : "module",
                   st.last_bake_ms - st.last_compile_ms, *fmag_gpu_runner_bake_log(r) ? "; " : "",
                   fmag_gpu_runner_bake_log(r));
        }
        fmag_gpu_runner_set_nan_agnostic(r, false);
    } else {
        fmag_gpu_runner_set_bin_threshold(r, 64);
        fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_OFF);
        bench_runner(w, r, (l + "-binned").c_str());
        if (w.progs.size() <= 8) {
            fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_EAGER);
            bench_runner(w, r, (l + "-binned-baked").c_str());
            printf("  tier %s %s-binned-baked: %s\n", w.name.c_str(), api,
                   fmag_gpu_tier_name(fmag_gpu_runner_last_tier(r)));
        }
        fmag_gpu_runner_set_bin_threshold(r, 0);
    }
    fmag_gpu_runner_set_tier_mode(r, FMAG_GPU_TIER_OFF);
}

static void bench_runner(const Workload &w, fmag_gpu_runner *r, const char *label)
{
    std::vector<fmag_vm_program> vp;
    std::vector<const fmag_vm_program *> pp;
    for (size_t k = 0; k < w.progs.size(); ++k)
        vp.push_back(vm_prog(w.progs[k]));
    for (auto &v : vp)
        pp.push_back(&v);
    std::vector<float> out((size_t)N * OS);
    double ms = 0;
    char err[256];
    if (!fmag_gpu_time_per_lane(r, pp.data(), pp.size(), w.perlane ? w.pi.data() : nullptr,
                                h_in.data(), IS, out.data(), OS, N, EVALS, 5, &ms, err,
                                sizeof err)) {
        printf("  %s: %s\n", label, err);
        return;
    }
    CK(cudaMemcpy(d_out, out.data(), out.size() * 4, cudaMemcpyHostToDevice));
    record(w, label, ms, check(w, EVALS, label, r == vk && vk_flushes));
    // what ran, with the driver's statistics of the Vulkan pipeline (registers, shared memory)
    printf("  launch %s %s: %s\n", w.name.c_str(), label, fmag_gpu_runner_last_launch(r));
    // FMAG_BENCH_IR_DIR: the driver's internal representations of the pipeline, where it
    // offers any (VK_KHR_pipeline_executable_properties)
    const char *irdir = getenv("FMAG_BENCH_IR_DIR");
    if (r == vk && irdir) {
        std::vector<char> ir(1 << 20);
        size_t len = fmag_gpu_runner_last_ir(r, ir.data(), ir.size());
        printf("  internal representations %s %s: %zu bytes\n", w.name.c_str(), label, len);
        // the files of three designs only (what comes back from the device is limited)
        bool keep = !strcmp(label, "runner-vulkan") || !strcmp(label, "vk-specrec-k2") ||
                    !strcmp(label, "vk-vec-k4");
        if (len && keep) {
            std::string f = std::string(irdir) + "/" + w.name + "-" + label + ".txt";
            if (FILE *o = fopen(f.c_str(), "w")) {
                fputs(ir.data(), o);
                fclose(o);
            }
        }
    }
}

// An SL example compiled by slc: the first program of the .fmag image.
static bool load_sl(const char *arg, Prog &p)
{
    std::string a = arg, path = a, demo;
    size_t at = a.find('@');
    if (at != std::string::npos) path = a.substr(0, at), demo = a.substr(at + 1);
    fmag_vm_image img;
    fmag_vm_image_init(&img);
    char err[256];
    if (!fmag_vm_image_load(&img, path.c_str(), err, sizeof err) || img.nprograms == 0) {
        printf("SL example %s: %s\n", path.c_str(), img.nprograms ? err : "no program");
        fmag_vm_image_free(&img);
        return false;
    }
    const fmag_vm_program &v = img.programs[0];
    p.name = v.name, p.regs = v.regs, p.nin = v.nin, p.nout = v.nout, p.sl = true;
    p.code.assign((const W4 *)v.code, (const W4 *)v.code + v.ninstr);
    for (size_t i = 0; i < demo.size();) {
        size_t c = demo.find(',', i);
        if (c == std::string::npos) c = demo.size();
        p.demo.push_back(strtof(demo.substr(i, c - i).c_str(), nullptr));
        i = c + 1;
    }
    fmag_vm_image_free(&img);
    translate_to_switch(p);
    return true;
}
#endif

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (!strncmp(argv[i], "--n=", 4))
            N = (unsigned)atoi(argv[i] + 4);
        else if (!strncmp(argv[i], "--evals=", 8))
            EVALS = (unsigned)atoi(argv[i] + 8);
        else if (!strcmp(argv[i], "--quick"))
            QUICK = true;
        else if (!strcmp(argv[i], "--tiers"))
            QUICK = TIERS = true;
    }
    // --write-fir=DIR: the P2live node graphs as .fir (u.fir uniform, l1..l32.fir per lane; and
    // P2's as p2-0..p2-32.fir),
    // for bench/gpu/run.sh to compile with fmag-opt -O2 -lower into DIR/*.fmag (--p2c=DIR)
    for (int i = 1; i < argc; ++i)
        if (!strncmp(argv[i], "--write-fir=", 12)) {
            std::string dir = argv[i] + 12;
            for (unsigned k = 0; k <= NPL; ++k) {
                std::string f = dir + (k ? "/l" + std::to_string(k) : std::string("/u")) + ".fir";
                FILE *o = fopen(f.c_str(), "w");
                if (!o) return fprintf(stderr, "cannot write %s\n", f.c_str()), 1;
                fputs(prog_fir(make_nodegraph_live((int)k), "p2live" + std::to_string(k)).c_str(),
                      o);
                fclose(o);
                // P2 itself, for measuring its dead code (docs/PERFORMANCE.md)
                f = dir + "/p2-" + std::to_string(k) + ".fir";
                if (!(o = fopen(f.c_str(), "w")))
                    return fprintf(stderr, "cannot write %s\n", f.c_str()), 1;
                fputs(prog_fir(make_nodegraph((int)k), "p2n" + std::to_string(k)).c_str(), o);
                fclose(o);
            }
            return 0;
        }
    csv = fopen(getenv("FMAG_BENCH_CSV") ? getenv("FMAG_BENCH_CSV") : "/dev/null", "w");
    fprintf(csv, "workload,impl,ms,gelem_s,t_lane_instr_s,mismatches\n");
    std::vector<const char *> sl_args;
    for (int i = 1; i < argc; ++i)
        if (!strncmp(argv[i], "--sl=", 5)) sl_args.push_back(argv[i] + 5);
    CK(cudaFree(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int drv = 0;
    cudaDriverGetVersion(&drv);
    printf("device: %s, %d SMs, driver API %d; N=%u elements, %u evaluations each\n", prop.name,
           prop.multiProcessorCount, drv, N, EVALS);
#ifdef FMAG_BENCH_VULKAN
    {
        char err[256];
        vk = fmag_gpu_runner_create(FMAG_GPU_VULKAN, err, sizeof err);
        printf("runner: %s\n", vk ? fmag_gpu_runner_describe(vk) : err);
        vk_flushes = vk && strstr(fmag_gpu_runner_describe(vk), "flushed");
        if (vk && getenv("FMAG_BENCH_IR_DIR")) fmag_gpu_runner_set_capture_ir(vk, true);
        cu = fmag_gpu_runner_create(FMAG_GPU_CUDA, err, sizeof err);
        printf("runner: %s\n", cu ? fmag_gpu_runner_describe(cu) : err);
    }
#endif

    std::vector<Workload> wls;
    Prog (*makers[4])(int) = {make_horner, make_nodegraph, make_random, make_nodegraph_live};
    const char *names[4] = {"P1", "P2", "P3", "P2live"};
    // per lane: every lane of a warp a different program (a fixed permutation of 0..31)
    std::vector<unsigned> pi32(N);
    for (unsigned e = 0; e < N; ++e)
        pi32[e] = (e * 7 + 3) % NPL;
    for (int m = 0; m < 4; ++m) {
        Workload u{std::string(names[m]) + "-U", false, {makers[m](0)}, {}};
        Workload l{std::string(names[m]) + "-L", true, {}, pi32};
        for (unsigned k = 0; k < NPL; ++k)
            l.progs.push_back(makers[m]((int)k + 1));
        wls.push_back(u);
        wls.push_back(l);
    }
#ifdef FMAG_BENCH_VULKAN
    // SL examples: each one uniform, then all of them per lane (element e runs example
    // e mod count: neighbouring lanes run different examples, like a material per pixel)
    Workload mix{"SL-mix-L", true, {}, std::vector<unsigned>(N)};
    mix.sl = true;
    for (const char *a : sl_args) {
        Prog p;
        if (!load_sl(a, p)) return 1;
        Workload u{"SL-" + p.name, false, {p}, {}};
        u.sl = true;
        wls.push_back(u);
        mix.progs.push_back(p);
    }
    for (unsigned e = 0; e < N && !mix.progs.empty(); ++e)
        mix.pi[e] = e % (unsigned)mix.progs.size();
    if (mix.progs.size() > 1) wls.push_back(mix);
    // P2c: the P2live node graphs compiled by the toolchain (fmag-opt -O2 -lower); the switch
    // VM still runs the hand-written node ops
    for (int i = 1; i < argc; ++i)
        if (!strncmp(argv[i], "--p2c=", 6)) {
            std::string dir = argv[i] + 6;
            Workload u{"P2c-U", false, {}, {}}, l{"P2c-L", true, {}, pi32};
            size_t hand = 0, comp = 0, differ = 0, beyond_zero = 0;
            for (unsigned k = 0; k <= NPL; ++k) {
                Prog c;
                std::string f = dir + (k ? "/l" + std::to_string(k) : std::string("/u")) + ".fmag";
                if (!load_sl(f.c_str(), c)) return 1;
                Prog p = make_nodegraph_live((int)k);
                p.hcode = p.code, p.code = c.code, p.regs = c.regs, p.nin = c.nin, p.nout = c.nout;
                p.name = "P2c";
                hand += p.hcode.size(), comp += p.code.size();
                // the compiled program against the hand-lowered one on 4096 inputs
                uint64_t st = 99 + k;
                for (int t = 0; t < 4096; ++t) {
                    float in[4], a[256], b[256];
                    for (float &x : in) {
                        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
                        x = (float)((double)(st >> 11) / (double)(1ull << 53) * 4.0 - 2.0);
                    }
                    reference(p, in, 1, a, false);
                    reference(p, in, 1, b, true);
                    for (int o = 0; o < p.nout; ++o) {
                        differ += fbits(a[o]) != fbits(b[o]);
                        beyond_zero += fbits(a[o]) != fbits(b[o]) && !(a[o] == 0 && b[o] == 0) &&
                                       !(std::isnan(a[o]) && std::isnan(b[o]));
                    }
                }
                (k ? l.progs : u.progs).push_back(p);
            }
            printf("P2c: %zu compiled instructions for %zu hand-lowered (33 programs); on 4096 "
                   "inputs each, %zu outputs differ in bits, %zu beyond the sign of zero\n",
                   comp, hand, differ, beyond_zero);
            if (beyond_zero) return 1;
            wls.push_back(u);
            wls.push_back(l);
        }
#else
    if (!sl_args.empty()) printf("SL examples need the library (FMAG_BENCH_VULKAN): skipped\n");
#endif
    for (auto &w : wls)
        for (auto &p : w.progs)
            MAXIS = std::max(MAXIS, (unsigned)p.nin), MAXOS = std::max(MAXOS, (unsigned)p.nout);
    CK(cudaMalloc(&d_in, (size_t)N * MAXIS * 4));
    CK(cudaMalloc(&d_out, (size_t)N * MAXOS * 4));
    CK(cudaMalloc(&d_pi, (size_t)N * 4));
    std::vector<std::pair<std::string, double>> compile_log;
    for (auto &w : wls)
        run_workload(w, compile_log);

    // summary
    printf("\nNVRTC compile latency (ms, one program or one 32-program switch kernel):");
    for (auto &c : compile_log)
        printf(" %s %.1f", c.first.c_str(), c.second);
    printf("\n\nSUMMARY (median ms; xNative = time / native time; vsSwitch = time of the faster "
           "switch interpreter / time)\n");
    printf("%-6s %-14s %9s %10s %10s %9s %9s %s\n", "wl", "impl", "ms", "Gelem/s", "T-li/s",
           "xNative", "vsSwitch", "check");
    for (auto &w : wls) {
        double tn = 0, ts = 0;
        for (auto &r : rows)
            if (r.wl == w.name && (r.impl == "native" || r.impl == "native-switch"))
                tn = r.ms;
            else if (r.wl == w.name && r.impl.rfind("switch", 0) == 0 && (ts == 0 || r.ms < ts))
                ts = r.ms;
        double li = lane_instr(w);
        for (auto &r : rows)
            if (r.wl == w.name)
                printf("%-6s %-14s %9.3f %10.2f %10.3f %8.1fx %8.2fx %s\n", r.wl.c_str(),
                       r.impl.c_str(), r.ms, (double)N * EVALS / r.ms / 1e6, li / r.ms / 1e9,
                       r.ms / tn, ts / r.ms, r.bad ? "MISMATCH" : "exact");
    }
    int bad = 0;
    for (auto &r : rows)
        bad += r.bad != 0;
    printf("\n%d run(s) with mismatches\n", bad);
#ifdef FMAG_BENCH_VULKAN
    fmag_gpu_runner_destroy(vk);
    fmag_gpu_runner_destroy(cu);
#endif
    fclose(csv);
    return bad ? 1 : 0;
}
