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

/* Every element runs prog; in is [n][in_stride], out is [n][out_stride] (columns past the
 * program's nout keep the caller's values). The program must have been validated. */
bool fmag_gpu_run(fmag_gpu_runner *r, const fmag_vm_program *prog, const float *in,
                  size_t in_stride, float *out, size_t out_stride, size_t n, char *err,
                  size_t errlen);

/* Element k runs progs[prog_index ? prog_index[k] : 0]; in is [n][in_stride], out is
 * [n][out_stride]. Programs must have been validated. */
bool fmag_gpu_run_per_lane(fmag_gpu_runner *r, const fmag_vm_program *const *progs, size_t nprogs,
                           const uint32_t *prog_index, const float *in, size_t in_stride,
                           float *out, size_t out_stride, size_t n, char *err, size_t errlen);

/* Tiers (docs/GPU.md, "Tiers"): a runner interprets a program's first run at once and bakes
 * it to native code in the background (emitted GLSL through shaderc to a Vulkan pipeline;
 * emitted CUDA through NVRTC to a module, each compiler loaded at run time where
 * installed); later runs of the same program (the same bytes) use the native code. The
 * results are the same bits either way. A program that fails to bake stays interpreted
 * (fmag_gpu_runner_bake_log says why); a run never fails for it.
 *  AUTO (the default; OFF on a CPU Vulkan driver such as lavapipe, where a bake takes
 *    seconds of LLVM): as above; no run waits for a compile;
 *  OFF: always interpret;
 *  EAGER: a run of a program not baked yet waits for its bake (then runs it natively);
 *  DEFAULT: back to the runner's own choice (AUTO, or OFF on a CPU driver). */
typedef enum fmag_gpu_tier_mode {
    FMAG_GPU_TIER_AUTO,
    FMAG_GPU_TIER_OFF,
    FMAG_GPU_TIER_EAGER,
    FMAG_GPU_TIER_DEFAULT
} fmag_gpu_tier_mode;
/* False (nothing changes) for a mode not above. */
bool fmag_gpu_runner_set_tier_mode(fmag_gpu_runner *r, fmag_gpu_tier_mode mode);
/* NaN-agnostic baking (VM.h, fmag_vm_emit_options): a computed NaN keeps whatever payload
 * the hardware gives it, where the caller allows unspecified NaN payloads; every other
 * result is unchanged. Off by default (bit-identical to the VM). The interpreters are
 * unaffected. */
void fmag_gpu_runner_set_nan_agnostic(fmag_gpu_runner *r, bool on);

/* Which code the last run used: all interpreted, all baked, or (a binned per-lane run)
 * some groups of each. INTERPRETED before any run. */
typedef enum fmag_gpu_tier {
    FMAG_GPU_TIER_INTERPRETED,
    FMAG_GPU_TIER_BAKED,
    FMAG_GPU_TIER_MIXED
} fmag_gpu_tier;
fmag_gpu_tier fmag_gpu_runner_last_tier(const fmag_gpu_runner *r);
/* "interpreted", "baked", "mixed". */
const char *fmag_gpu_tier_name(fmag_gpu_tier t);
/* Why programs stay interpreted: one line per failed bake (compiler missing, compile
 * error, time budget), oldest first; "" when none. Valid until the next call on r. */
const char *fmag_gpu_runner_bake_log(fmag_gpu_runner *r);

/* Columns (structure of arrays): input r of element k is in[r][k] (the program's nin arrays of
 * n floats), output r is out[r][k] (nout arrays). Same results as fmag_gpu_run. */
bool fmag_gpu_run_columns(fmag_gpu_runner *r, const fmag_vm_program *prog, const float *const *in,
                          float *const *out, size_t n, char *err, size_t errlen);

/* Device-resident data: the caller's own buffers on the runner's device, used where they are
 * (no copy to or from the host). CUDA: handle is a CUdeviceptr in the runner's context (the
 * primary context of the device fmag_gpu_runner_native names); Vulkan: handle is a VkBuffer of
 * the runner's VkDevice, made with VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, offset a multiple of
 * minStorageBufferOffsetAlignment. */
typedef struct fmag_gpu_buffer {
    uint64_t handle;
    uint64_t offset; /* bytes */
} fmag_gpu_buffer;

/* Every element runs prog: in is [n][in_stride] floats in the buffer `in`, out is
 * [n][out_stride] in `out` (columns past the program's nout keep their values). The call is
 * synchronous: the caller's writes to `in` must be complete (CUDA: on any stream of the
 * context; Vulkan: submitted and waited for), and `out` holds the results when it returns. */
bool fmag_gpu_run_device(fmag_gpu_runner *r, const fmag_vm_program *prog, fmag_gpu_buffer in,
                         size_t in_stride, fmag_gpu_buffer out, size_t out_stride, size_t n,
                         char *err, size_t errlen);

/* The runner's device, for a caller that makes its buffers there: Vulkan fills instance,
 * physical_device, device (VkInstance, VkPhysicalDevice, VkDevice) and queue_family, and
 * get_instance_proc_addr (the loader's vkGetInstanceProcAddr); CUDA fills cuda_device (the
 * CUdevice ordinal, whose primary context the runner uses). */
typedef struct fmag_gpu_native {
    fmag_gpu_api api;
    void *instance, *physical_device, *device;
    uint32_t queue_family;
    void *get_instance_proc_addr;
    int cuda_device;
} fmag_gpu_native;
bool fmag_gpu_runner_native(const fmag_gpu_runner *r, fmag_gpu_native *out);

/* Largest `regs` a program may have on each back end (the register file is specialized to
 * the next power of two). */
#define FMAG_GPU_VK_MAX_REGS 4096u
#define FMAG_GPU_CUDA_MAX_REGS 4096u

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_GPU_H */
