/* The GLSL emitter test's Vulkan harness (EmitVulkan.c). */
#ifndef FMAG_UNITTESTS_EMIT_VULKAN_H
#define FMAG_UNITTESTS_EMIT_VULKAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs the compute shader in spv_path (local size 64, a storage buffer of floats at
 * binding 0, the element count n as a 4-byte push constant) with data as the buffer,
 * in place. 0: ran; 77: no Vulkan driver or device (skip); 1: failed. *is_cpu: the device
 * is a CPU driver (lavapipe), whose fma() is not fused. */
int fmag_emit_vk_run(const char *spv_path, float *data, size_t nfloats, uint32_t n, bool *is_cpu,
                     char *err, size_t errlen);

#endif
