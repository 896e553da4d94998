/* FMAG GPU: run FMAG programs on a GPU through Vulkan (GLSL interpreter, any driver,
 * lavapipe included) or CUDA. Drivers are loaded at run time: a binary built with
 * GPU support still runs, and says why, on a machine without one. */
#ifndef FMAG_GPU_H
#define FMAG_GPU_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fmag/VM.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fmag_gpu_api { FMAG_GPU_VULKAN, FMAG_GPU_CUDA } fmag_gpu_api;
typedef struct fmag_gpu_runner fmag_gpu_runner;

/* NULL with a one-line reason in err when the API, its driver or a device is missing. */
fmag_gpu_runner *fmag_gpu_runner_create(fmag_gpu_api api, char *err, size_t errlen);
void fmag_gpu_runner_destroy(fmag_gpu_runner *r);
/* Device name and numerics capabilities (denormals preserved? fma fused or emulated?). */
const char *fmag_gpu_runner_describe(const fmag_gpu_runner *r);

/* Element k runs progs[prog_index ? prog_index[k] : 0]; in is [n][in_stride], out is
 * [n][out_stride]. Programs must have been validated. */
bool fmag_gpu_run_per_lane(fmag_gpu_runner *r, const fmag_vm_program *const *progs, size_t nprogs,
                           const uint32_t *prog_index, const float *in, size_t in_stride,
                           float *out, size_t out_stride, size_t n, char *err, size_t errlen);

/* Benchmark entry point: the same work as fmag_gpu_run_per_lane, but every element is
 * evaluated `evals` times (evaluation k > 0 adds k/16 to each input; out receives the sum of
 * the evaluations' outputs, added in order in float), and the launch is repeated `reps` times
 * on data already on the device; *median_ms is the median time of one launch (transfers
 * excluded). evals == 1 computes exactly what fmag_gpu_run_per_lane does. */
bool fmag_gpu_time_per_lane(fmag_gpu_runner *r, const fmag_vm_program *const *progs, size_t nprogs,
                            const uint32_t *prog_index, const float *in, size_t in_stride,
                            float *out, size_t out_stride, size_t n, unsigned evals, unsigned reps,
                            double *median_ms, char *err, size_t errlen);

/* The Vulkan runner's designs (docs/GPU.md). AUTO (the default) picks per launch from the
 * H200 measurements in docs/PERFORMANCE.md; the others force one, for benchmarks and tests.
 *  PRIVATE: the interpreter's private array `float r[RF]` (local memory on NVIDIA);
 *  WORKGROUP: the register file in workgroup shared memory laid out [reg][invocation]
 *    (used only where RF * 64 * 4 bytes fit the device's shared memory; else PRIVATE);
 *  *_INTERLEAVED: per-lane programs' code stored [instruction][program] instead of one
 *    program after another (uniform launches are the same either way);
 *  *_PREDECODED: the code is pre-decoded on the host (operand kinds as bits, register
 *    indices masked; uniform: no-ops dropped), per-lane code interleaved. */
typedef enum fmag_gpu_vk_design {
    FMAG_GPU_VK_AUTO,
    FMAG_GPU_VK_PRIVATE,
    FMAG_GPU_VK_PRIVATE_INTERLEAVED,
    FMAG_GPU_VK_WORKGROUP,
    FMAG_GPU_VK_WORKGROUP_INTERLEAVED,
    FMAG_GPU_VK_PRIVATE_PREDECODED,
    FMAG_GPU_VK_WORKGROUP_PREDECODED
} fmag_gpu_vk_design;
/* False (and nothing changes) when r is not a Vulkan runner or d is not a design above. */
bool fmag_gpu_runner_set_vk_design(fmag_gpu_runner *r, fmag_gpu_vk_design d);

/* Largest `regs` a program may have on each back end (the register file is specialized to
 * the next power of two). */
#define FMAG_GPU_VK_MAX_REGS 4096u
#define FMAG_GPU_CUDA_MAX_REGS 4096u

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_GPU_H */
