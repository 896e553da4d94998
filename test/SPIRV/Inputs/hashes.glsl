// Integer hash functions as shaders write them, compiled unchanged (int-hash.test).
// Each entry takes a 32-bit key as two 16-bit halves (a program's inputs are floats,
// exact below 2^24) and returns the hash as two 16-bit halves, so that every bit of
// the key and of the result is checked.

// Jarzynski and Olano, "Hash Functions for GPU Rendering" (JCGT 2020): PCG's hash.
uint pcg_hash(uint v)
{
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// xxHash32's final avalanche, and its whole hash of one 4-byte word with a seed.
uint xxh32_avalanche(uint h)
{
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    h *= 3266489917u;
    h ^= h >> 16;
    return h;
}

uint xxhash32(uint p, uint seed)
{
    const uint P2 = 2246822519u, P3 = 3266489917u, P4 = 668265263u, P5 = 374761393u;
    uint h = seed + P5 + 4u;
    h += p * P3;
    h = P4 * ((h << 17) | (h >> (32 - 17)));
    return xxh32_avalanche(h);
}

// MurmurHash3's 32-bit finalizer.
uint fmix32(uint h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

// Thomas Wang's integer hash.
uint wang_hash(uint seed)
{
    seed = (seed ^ 61u) ^ (seed >> 16u);
    seed *= 9u;
    seed = seed ^ (seed >> 4u);
    seed *= 0x27d4eb2du;
    seed = seed ^ (seed >> 15u);
    return seed;
}

// Bob Jenkins' lookup3 final mix, as MaterialX's noise hashes an int coordinate.
uint rotl32(uint x, int k)
{
    return (x << k) | (x >> (32 - k));
}

uint jenkins_hash(int x, int y)
{
    uint a, b, c;
    a = b = c = 0xdeadbeefu + (2u << 2) + 13u;
    a += uint(x);
    b += uint(y);
    c ^= b; c -= rotl32(b, 14);
    a ^= c; a -= rotl32(c, 11);
    b ^= a; b -= rotl32(a, 25);
    c ^= b; c -= rotl32(b, 16);
    a ^= c; a -= rotl32(c, 4);
    b ^= a; b -= rotl32(a, 14);
    c ^= b; c -= rotl32(b, 24);
    return c;
}

// Inigo Quilez's integer hashes: of one uint, and of a uvec2.
uint iq_hash(uint n)
{
    n = (n << 13U) ^ n;
    n = n * (n * n * 15731U + 789221U) + 1376312589U;
    return n;
}

uint iq_hash2(uvec2 x)
{
    uvec2 q = 1103515245U * ((x >> 1U) ^ (x.yx));
    uint n = 1103515245U * ((q.x) ^ (q.y >> 3U));
    return n;
}

uint key(float hi, float lo)
{
    return (uint(hi) << 16) | uint(lo);
}

void halves(uint h, out float lo, out float hi)
{
    lo = float(h & 0xFFFFu);
    hi = float(h >> 16);
}

void h_pcg(float a, float b, out float lo, out float hi) { halves(pcg_hash(key(a, b)), lo, hi); }
void h_xxa(float a, float b, out float lo, out float hi) { halves(xxh32_avalanche(key(a, b)), lo, hi); }
void h_xx(float a, float b, out float lo, out float hi) { halves(xxhash32(key(a, b), 0x9E3779B9u), lo, hi); }
void h_fmix(float a, float b, out float lo, out float hi) { halves(fmix32(key(a, b)), lo, hi); }
void h_wang(float a, float b, out float lo, out float hi) { halves(wang_hash(key(a, b)), lo, hi); }
void h_jenkins(float a, float b, out float lo, out float hi)
{
    // Signed coordinates, as MaterialX passes them: -32768 .. 32767 each.
    halves(jenkins_hash(int(a) - 32768, int(b) - 32768), lo, hi);
}
void h_iq(float a, float b, out float lo, out float hi) { halves(iq_hash(key(a, b)), lo, hi); }
void h_iq2(float a, float b, out float lo, out float hi)
{
    halves(iq_hash2(uvec2(key(a, b), key(b, a) ^ 0x5bd1e995u)), lo, hi);
}
