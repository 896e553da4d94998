/* Tier-up (docs/GPU.md, "Tiers"): programs baked to native code on a background thread,
 * kept in a cache keyed by the program's content and bounded in entries and bytes, evicted
 * least-recently-used. The back ends supply the compiler (BakeVulkan.c, BakeCuda.c). */
#ifndef FMAG_GPU_BAKE_H
#define FMAG_GPU_BAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "GPUBench.h"

/* A back end's compiler, in two steps that run on the bake thread (or the caller's) with a
 * private copy of the program. compile makes the code without the device (GLSL to SPIR-V,
 * CUDA to a cubin): a malloc'ed blob of *len bytes, or NULL with a one-line reason in err;
 * load makes the native object on the device (a pipeline, a module) from it, or NULL with a
 * reason. A runner that goes away meanwhile waits for a compile, never for a load that has
 * not started. release frees a native object, on a thread that runs the runner's launches
 * (never while a launch holds it). */
typedef struct fmag_gpu_baker {
    void *user;
    void *(*compile)(void *user, const fmag_vm_program *p, bool nan_agnostic, size_t *len,
                     char *err, size_t errlen);
    void *(*load)(void *user, const void *blob, size_t len, char *err, size_t errlen);
    void (*release)(void *user, void *native);
    void (*destroy)(void *user); /* the compiler's own state; may be NULL */
    bool cpu_device;             /* a CPU implementation: tiers default to OFF */
} fmag_gpu_baker;

typedef struct fmag_gpu_bake_cache fmag_gpu_bake_cache;

/* Limits of fmag_gpu_runner_set_bake_limits (GPUBench.h); the defaults are documented in
 * docs/GPU.md. */
#define FMAG_GPU_BAKE_ENTRIES 64u
#define FMAG_GPU_BAKE_BYTES (64u << 20)
#define FMAG_GPU_BAKE_BUDGET_MS 30000.0
#define FMAG_GPU_BAKE_MAX_INSTRS 100000u
/* Per-lane runs over at most this many distinct programs are binned (Bin.c). */
#define FMAG_GPU_BIN_PROGRAMS 8u

/* NULL on no memory. The bake thread starts with the first bake. */
fmag_gpu_bake_cache *fmag_gpu_bake_create(const fmag_gpu_baker *baker);
/* Waits for a bake in progress, then frees every entry and the baker's state. */
void fmag_gpu_bake_destroy(fmag_gpu_bake_cache *c);
void fmag_gpu_bake_set_limits(fmag_gpu_bake_cache *c, const fmag_gpu_bake_limits *lim);

/* One cached program, held by a launch between fmag_gpu_bake_get and fmag_gpu_bake_put. */
typedef struct fmag_gpu_bake_entry fmag_gpu_bake_entry;

/* The entry of p with its native code ready, held (give it back with fmag_gpu_bake_put);
 * *native receives the object. NULL when there is none yet: under AUTO the program is
 * queued for the bake thread (once: a failure stays recorded until evicted); under EAGER
 * the caller waits for the bake; under OFF nothing happens. Thread-safe. */
fmag_gpu_bake_entry *fmag_gpu_bake_get(fmag_gpu_bake_cache *c, const fmag_vm_program *p,
                                       fmag_gpu_tier_mode mode, bool nan_agnostic, void **native);
void fmag_gpu_bake_put(fmag_gpu_bake_cache *c, fmag_gpu_bake_entry *e);

/* Waits until no bake is queued or in progress. */
void fmag_gpu_bake_wait(fmag_gpu_bake_cache *c);
void fmag_gpu_bake_stats(fmag_gpu_bake_cache *c, fmag_gpu_bake_stat *st);
/* The diagnostics of failed bakes, one line each, oldest first ("" when none); the text is
 * the cache's, valid until the next call on it. */
const char *fmag_gpu_bake_log(fmag_gpu_bake_cache *c);

#endif /* FMAG_GPU_BAKE_H */
