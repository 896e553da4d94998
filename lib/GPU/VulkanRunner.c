/* Vulkan back end: runs the GLSL interpreter (gpu/fmag_run.comp and gpu/fmag_fast.comp,
 * SPIR-V embedded at build time) on any Vulkan 1.1 driver. libvulkan is loaded at run time,
 * so binaries built with Vulkan support run, and say why not, on machines without it. */
#define _GNU_SOURCE /* dl_iterate_phdr, for the ASan build's driver pinning */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "GPUInternal.h"
#include "fmag_gpu_host.h"

#ifndef FMAG_GPU_HAVE_VULKAN

static void *vk_create(char *desc, size_t desclen, char *err, size_t errlen)
{
    (void)desc, (void)desclen;
    fmag_gpu_err(err, errlen,
                 "Vulkan backend not built (glslc or the Vulkan headers missing, or "
                 "FMAG_ENABLE_VULKAN=OFF, at build time)");
    return NULL;
}

/* Never called: no runner of this back end is ever made. */
static void vk_destroy(void *impl)
{
    (void)impl;
}

const fmag_gpu_backend fmag_gpu_vk_backend = {
    .name = "vulkan",
    .max_regs = FMAG_GPU_VK_MAX_REGS,
    .create = vk_create,
    .destroy = vk_destroy,
};

#else

#include <dlfcn.h>
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#if defined(__SANITIZE_ADDRESS__)
#include <link.h>

/* The loader unloads the driver (ICD) when the instance goes; a leak inside it is then
 * reported from an unknown module that no suppression can name. Under ASan every
 * module mapped so far is made resident, so utils/lsan.supp names the driver. */
static int pin_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    if (info->dlpi_name && info->dlpi_name[0]) {
        void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
        if (h) dlclose(h);
    }
    return 0;
}
#define FMAG_PIN_DRIVER_MODULES() dl_iterate_phdr(pin_module, NULL)
#else
#define FMAG_PIN_DRIVER_MODULES() ((void)0)
#endif

/* The shader builds (lib/GPU/CMakeLists.txt), in the order of FMAG_VK_SHADER_*. */
extern const unsigned char fmag_spirv_fmag_run[], fmag_spirv_fmag_run_pd[],
    fmag_spirv_fmag_run_wg_pd[], fmag_spirv_fmag_fast[], fmag_spirv_fmag_fast_v2[],
    fmag_spirv_fmag_fast_v4[], fmag_spirv_fmag_bin[];
extern const size_t fmag_spirv_fmag_run_size, fmag_spirv_fmag_run_pd_size,
    fmag_spirv_fmag_run_wg_pd_size, fmag_spirv_fmag_fast_size, fmag_spirv_fmag_fast_v2_size,
    fmag_spirv_fmag_fast_v4_size, fmag_spirv_fmag_bin_size;
enum {
    FMAG_VK_SHADER_RUN,       /* fmag_run.comp, private register file, raw stream */
    FMAG_VK_SHADER_RUN_PD,    /* the same, pre-decoded records */
    FMAG_VK_SHADER_RUN_WG_PD, /* workgroup register file, pre-decoded records */
    FMAG_VK_SHADER_FAST,      /* fmag_fast.comp */
    FMAG_VK_SHADER_FAST_V2,   /* the VEC layout, k 2 */
    FMAG_VK_SHADER_FAST_V4,   /* the VEC layout, k 4 */
    FMAG_VK_SHADER_BIN,       /* fmag_bin.comp: per-lane binning (Bin.c) */
    FMAG_VK_NSHADERS
};
#define FMAG_VK_VARIANT_WG 1u       /* workgroup register file */
#define FMAG_VK_VARIANT_PD 2u       /* pre-decoded records */
#define FMAG_VK_VARIANT_LITGUARD 4u /* pre-decoded code may hold literal guards <= 0 */
#define FMAG_VK_VARIANT_FAST 8u     /* gpu/fmag_fast.comp */
#define FMAG_VK_VARIANT_UBO 16u     /* fast, uniform: records from the uniform buffer */
#define FMAG_VK_VARIANT_VEC 32u     /* fast, the VEC layout (k 2 or 4) */
#define FMAG_VK_VARIANT_BAKED 64u   /* the program baked to its own pipeline (BakeVulkan.c) */
#define FMAG_VK_UBO_BYTES 65536u    /* FMAG_UBO_RECORDS (fmag_fast.comp) records of 16 bytes */

#define FMAG_VK_FUNCS(X)                                                                           \
    X(vkDestroyInstance)                                                                           \
    X(vkEnumeratePhysicalDevices)                                                                  \
    X(vkGetPhysicalDeviceProperties)                                                               \
    X(vkGetPhysicalDeviceFeatures)                                                                 \
    X(vkGetPhysicalDeviceFeatures2)                                                                \
    X(vkGetPhysicalDeviceProperties2)                                                              \
    X(vkEnumerateDeviceExtensionProperties)                                                        \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                    \
    X(vkGetPhysicalDeviceMemoryProperties)                                                         \
    X(vkCreateDevice)                                                                              \
    X(vkDestroyDevice)                                                                             \
    X(vkGetDeviceQueue)                                                                            \
    X(vkCreateBuffer)                                                                              \
    X(vkDestroyBuffer)                                                                             \
    X(vkGetBufferMemoryRequirements)                                                               \
    X(vkAllocateMemory)                                                                            \
    X(vkFreeMemory)                                                                                \
    X(vkBindBufferMemory)                                                                          \
    X(vkMapMemory)                                                                                 \
    X(vkUnmapMemory)                                                                               \
    X(vkCreateShaderModule)                                                                        \
    X(vkDestroyShaderModule)                                                                       \
    X(vkCreateDescriptorSetLayout)                                                                 \
    X(vkDestroyDescriptorSetLayout)                                                                \
    X(vkCreatePipelineLayout)                                                                      \
    X(vkDestroyPipelineLayout)                                                                     \
    X(vkCreateComputePipelines)                                                                    \
    X(vkDestroyPipeline)                                                                           \
    X(vkCreateDescriptorPool)                                                                      \
    X(vkDestroyDescriptorPool)                                                                     \
    X(vkAllocateDescriptorSets)                                                                    \
    X(vkUpdateDescriptorSets)                                                                      \
    X(vkCreateCommandPool)                                                                         \
    X(vkDestroyCommandPool)                                                                        \
    X(vkAllocateCommandBuffers)                                                                    \
    X(vkResetCommandBuffer)                                                                        \
    X(vkBeginCommandBuffer)                                                                        \
    X(vkEndCommandBuffer)                                                                          \
    X(vkCmdBindPipeline)                                                                           \
    X(vkCmdBindDescriptorSets)                                                                     \
    X(vkCmdPushConstants)                                                                          \
    X(vkCmdDispatch)                                                                               \
    X(vkCmdCopyBuffer)                                                                             \
    X(vkCmdFillBuffer)                                                                             \
    X(vkCmdPipelineBarrier)                                                                        \
    X(vkQueueSubmit)                                                                               \
    X(vkCreateFence)                                                                               \
    X(vkDestroyFence)                                                                              \
    X(vkWaitForFences)                                                                             \
    X(vkResetFences)

#define FMAG_VK_MAX_PIPELINES 32
#define FMAG_VK_LOCAL_SIZE 64u
#define FMAG_VK_MAX_GROUPS 65535u
/* Chunks of a pipelined launch in flight at once (a command buffer and a fence each). */
#define FMAG_VK_MAX_CHUNKS 16u

typedef struct fmag_vk_pipeline {
    uint32_t rf, variant, k;
    bool soft;
    VkPipeline pipe;
} fmag_vk_pipeline;

/* A buffer kept across launches and grown when one needs more; host buffers stay mapped. */
typedef struct fmag_vk_buf {
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize cap;
    unsigned char *map;
} fmag_vk_buf;

/* The device buffers' bindings (gpu/fmag_run.comp, gpu/fmag_fast.comp). */
enum { VK_CODE, VK_PROGS, VK_INDEX, VK_IN, VK_OUT, VK_UBO, VK_NBUF };
/* Binning's own buffers (gpu/fmag_bin.comp): counts and cursors, the binned slots' elements,
 * the program indices, the job's rows (its inputs, later its outputs), the binned images. */
enum { VK_BIN_COUNTS, VK_BIN_PERM, VK_BIN_INDEX, VK_BIN_ROWS, VK_BIN_IN, VK_BIN_OUT, VK_BIN_NBUF };

typedef struct fmag_gpu_vk fmag_gpu_vk;
struct fmag_gpu_vk {
    void *lib;
    PFN_vkGetInstanceProcAddr gipa;
#define X(f) PFN_##f f;
    FMAG_VK_FUNCS(X)
#undef X
    VkInstance inst;
    VkPhysicalDevice phys;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem;
    VkDevice dev;
    VkQueue queue;
    uint32_t qfam;
    bool has_f64;
    bool soft_fma;
    VkShaderModule shader[FMAG_VK_NSHADERS];
    fmag_gpu_vk_design design;
    fmag_gpu_vk_fast_knobs fast; /* forced knobs of the fast design (0 / -1: automatic) */
    /* VK_KHR_pipeline_executable_properties: the driver's statistics of each pipeline */
    bool has_stats;
    PFN_vkGetPipelineExecutableStatisticsKHR vkGetPipelineExecutableStatisticsKHR;
    PFN_vkGetPipelineExecutableInternalRepresentationsKHR
        vkGetPipelineExecutableInternalRepresentationsKHR;
    bool capture_ir;      /* pipelines keep the driver's internal representations */
    VkPipeline last_pipe; /* the pipeline of the last launch */
    uint32_t last_k, last_variant;
    double last_create_ms; /* vkCreateComputePipelines of the last launch (0: cached) */
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkDescriptorPool dpool;
    VkDescriptorSet dset;
    VkCommandPool cpool;
    VkCommandBuffer cmd[FMAG_VK_MAX_CHUNKS];
    VkFence fence[FMAG_VK_MAX_CHUNKS];
    fmag_vk_pipeline pipes[FMAG_VK_MAX_PIPELINES];
    unsigned npipes;
    /* kept across launches: the device buffers, the upload staging (write-combined is fine)
     * and the read-back staging (host-cached where the device offers it: the host reads it) */
    fmag_vk_buf buf[VK_NBUF], up, down;
    fmag_vk_buf bin[VK_BIN_NBUF];
    VkPipeline bin_pipe; /* made on first use */
    fmag_gpu_counters count;
};

/* Push constants of both shaders (the fields one of them does not read are padding there). */
typedef struct fmag_vk_pc {
    uint32_t n, in_stride, out_stride, nprogs;
    uint32_t per_lane, evals, base, code_stride;
    uint32_t zero_init, ninstr, nin, nout; /* fmag_fast.comp reads the last three */
    uint32_t lane_kinds;                   /* fmag_fast.comp, per lane: kinds agree */
    uint32_t in_col, out_col, pad;         /* input i of element e: e*in_stride + i*in_col */
} fmag_vk_pc;

static bool vk_ok(VkResult r, const char *what, char *err, size_t errlen)
{
    if (r == VK_SUCCESS) return true;
    fmag_gpu_err(err, errlen, "Vulkan: %s failed (VkResult %d)", what, (int)r);
    return false;
}

static void buf_free(fmag_gpu_vk *vk, fmag_vk_buf *b)
{
    if (b->map) vk->vkUnmapMemory(vk->dev, b->mem);
    if (b->buf) vk->vkDestroyBuffer(vk->dev, b->buf, NULL);
    if (b->mem) vk->vkFreeMemory(vk->dev, b->mem, NULL);
    memset(b, 0, sizeof *b);
}

static void vk_destroy(void *impl)
{
    fmag_gpu_vk *vk = impl;
    if (!vk) return;
    if (vk->dev) {
        for (int i = 0; i < VK_NBUF; ++i)
            buf_free(vk, &vk->buf[i]);
        buf_free(vk, &vk->up);
        buf_free(vk, &vk->down);
        for (int i = 0; i < VK_BIN_NBUF; ++i)
            buf_free(vk, &vk->bin[i]);
        if (vk->bin_pipe) vk->vkDestroyPipeline(vk->dev, vk->bin_pipe, NULL);
        for (unsigned i = 0; i < vk->npipes; ++i)
            vk->vkDestroyPipeline(vk->dev, vk->pipes[i].pipe, NULL);
        for (unsigned i = 0; i < FMAG_VK_MAX_CHUNKS; ++i)
            if (vk->fence[i]) vk->vkDestroyFence(vk->dev, vk->fence[i], NULL);
        if (vk->cpool) vk->vkDestroyCommandPool(vk->dev, vk->cpool, NULL);
        if (vk->dpool) vk->vkDestroyDescriptorPool(vk->dev, vk->dpool, NULL);
        if (vk->layout) vk->vkDestroyPipelineLayout(vk->dev, vk->layout, NULL);
        if (vk->dsl) vk->vkDestroyDescriptorSetLayout(vk->dev, vk->dsl, NULL);
        for (int i = 0; i < FMAG_VK_NSHADERS; ++i)
            if (vk->shader[i]) vk->vkDestroyShaderModule(vk->dev, vk->shader[i], NULL);
        vk->vkDestroyDevice(vk->dev, NULL);
    }
    if (vk->inst) vk->vkDestroyInstance(vk->inst, NULL);
#if !defined(__SANITIZE_ADDRESS__)
    /* Under ASan the loader stays mapped, so that LeakSanitizer can name the driver's
     * own leaks (utils/lsan.supp) instead of an unknown, unloaded module. */
    if (vk->lib) dlclose(vk->lib);
#endif
    free(vk);
}

static int device_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 1;
    default:
        return 0;
    }
}

static VkPipeline get_pipeline(fmag_gpu_vk *vk, uint32_t rf, bool soft, uint32_t variant,
                               uint32_t k, char *err, size_t errlen)
{
    vk->last_create_ms = 0;
    for (unsigned i = 0; i < vk->npipes; ++i)
        if (vk->pipes[i].rf == rf && vk->pipes[i].soft == soft && vk->pipes[i].variant == variant &&
            vk->pipes[i].k == k)
            return vk->pipes[i].pipe;
    /* constant ids: 0 rf, 1 soft fma, 2 literal guards, 3 k, 4 ubo, 6 workgroup size; ids a
     * shader lacks (2 in fmag_fast.comp, 3-6 in fmag_run.comp) do not affect it (Vulkan
     * spec, VkSpecializationInfo) */
    enum { NSPEC = 6 };
    static const uint32_t ids[NSPEC] = {0, 1, 2, 3, 4, 6};
    VkSpecializationMapEntry ent[NSPEC];
    uint32_t data[NSPEC] = {rf,
                            soft ? 1u : 0u,
                            (variant & FMAG_VK_VARIANT_LITGUARD) ? 1u : 0u,
                            k,
                            (variant & FMAG_VK_VARIANT_UBO) ? 1u : 0u,
                            FMAG_VK_LOCAL_SIZE};
    for (uint32_t i = 0; i < NSPEC; ++i)
        ent[i] = (VkSpecializationMapEntry){ids[i], 4 * i, 4};
    bool fast = (variant & FMAG_VK_VARIANT_FAST) != 0;
    VkSpecializationInfo spec = {fast ? NSPEC : 3, ent, sizeof data, data};
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    if (vk->has_stats) ci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    if (vk->has_stats && vk->capture_ir)
        ci.flags |= VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = vk->shader[!fast ? (variant & FMAG_VK_VARIANT_WG   ? FMAG_VK_SHADER_RUN_WG_PD
                                          : variant & FMAG_VK_VARIANT_PD ? FMAG_VK_SHADER_RUN_PD
                                                                         : FMAG_VK_SHADER_RUN)
                                 : !(variant & FMAG_VK_VARIANT_VEC) ? FMAG_VK_SHADER_FAST
                                 : k == 2                           ? FMAG_VK_SHADER_FAST_V2
                                                                    : FMAG_VK_SHADER_FAST_V4];
    ci.stage.pName = "main";
    ci.stage.pSpecializationInfo = &spec;
    ci.layout = vk->layout;
    VkPipeline pipe = VK_NULL_HANDLE;
    double t0 = fmag_gpu_now_ms();
    if (!vk_ok(vk->vkCreateComputePipelines(vk->dev, VK_NULL_HANDLE, 1, &ci, NULL, &pipe),
               "vkCreateComputePipelines", err, errlen))
        return VK_NULL_HANDLE;
    vk->last_create_ms = fmag_gpu_now_ms() - t0;
    ++vk->count.pipeline_creates;
    if (vk->npipes == FMAG_VK_MAX_PIPELINES) {
        vk->vkDestroyPipeline(vk->dev, vk->pipes[0].pipe, NULL);
        memmove(&vk->pipes[0], &vk->pipes[1], (FMAG_VK_MAX_PIPELINES - 1) * sizeof vk->pipes[0]);
        --vk->npipes;
    }
    vk->pipes[vk->npipes++] = (fmag_vk_pipeline){rf, variant, k, soft, pipe};
    return pipe;
}

static int find_memory(const fmag_gpu_vk *vk, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < vk->mem.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (vk->mem.memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

/* Kinds of buffer memory: device-local, host memory the host writes, host memory it reads. */
typedef enum vk_mem_kind { VK_MEM_DEVICE, VK_MEM_UPLOAD, VK_MEM_READBACK } vk_mem_kind;

/* Grows b to at least size bytes (contents not kept); host buffers are mapped. */
static bool buf_reserve(fmag_gpu_vk *vk, fmag_vk_buf *b, VkDeviceSize size, vk_mem_kind kind,
                        char *err, size_t errlen)
{
    size_t cap = (size_t)b->cap;
    if (!fmag_gpu_grow(&cap, size < 16 ? 16 : (size_t)size)) return true;
    buf_free(vk, b);
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = cap;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (!vk_ok(vk->vkCreateBuffer(vk->dev, &bi, NULL, &b->buf), "vkCreateBuffer", err, errlen))
        return false;
    VkMemoryRequirements req;
    vk->vkGetBufferMemoryRequirements(vk->dev, b->buf, &req);
    const VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    int type = -1;
    if (kind == VK_MEM_DEVICE) {
        type = find_memory(vk, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (type < 0) type = find_memory(vk, req.memoryTypeBits, 0);
    } else {
        /* reading write-combined memory is slow: the read-back prefers cached memory */
        if (kind == VK_MEM_READBACK)
            type = find_memory(vk, req.memoryTypeBits, host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        if (type < 0) type = find_memory(vk, req.memoryTypeBits, host);
    }
    if (type < 0) {
        fmag_gpu_err(err, errlen, "Vulkan: no suitable memory type");
        buf_free(vk, b);
        return false;
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = (uint32_t)type;
    if (!vk_ok(vk->vkAllocateMemory(vk->dev, &ai, NULL, &b->mem), "vkAllocateMemory", err,
               errlen) ||
        !vk_ok(vk->vkBindBufferMemory(vk->dev, b->buf, b->mem, 0), "vkBindBufferMemory", err,
               errlen) ||
        (kind != VK_MEM_DEVICE &&
         !vk_ok(vk->vkMapMemory(vk->dev, b->mem, 0, VK_WHOLE_SIZE, 0, (void **)&b->map),
                "vkMapMemory", err, errlen))) {
        buf_free(vk, b);
        return false;
    }
    b->cap = cap;
    ++vk->count.buffer_allocs;
    return true;
}

static void barrier(fmag_gpu_vk *vk, VkCommandBuffer cmd, VkAccessFlags src, VkAccessFlags dst,
                    VkPipelineStageFlags sstage, VkPipelineStageFlags dstage)
{
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = src;
    mb.dstAccessMask = dst;
    vk->vkCmdPipelineBarrier(cmd, sstage, dstage, 0, 1, &mb, 0, NULL, 0, NULL);
}

static bool submit(fmag_gpu_vk *vk, unsigned slot, char *err, size_t errlen)
{
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &vk->cmd[slot];
    return vk_ok(vk->vkEndCommandBuffer(vk->cmd[slot]), "vkEndCommandBuffer", err, errlen) &&
           vk_ok(vk->vkResetFences(vk->dev, 1, &vk->fence[slot]), "vkResetFences", err, errlen) &&
           vk_ok(vk->vkQueueSubmit(vk->queue, 1, &si, vk->fence[slot]), "vkQueueSubmit", err,
                 errlen);
}

static bool wait_slot(fmag_gpu_vk *vk, unsigned slot, char *err, size_t errlen)
{
    return vk_ok(vk->vkWaitForFences(vk->dev, 1, &vk->fence[slot], VK_TRUE, UINT64_MAX),
                 "vkWaitForFences", err, errlen);
}

static bool begin(fmag_gpu_vk *vk, unsigned slot, char *err, size_t errlen)
{
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    return vk_ok(vk->vkResetCommandBuffer(vk->cmd[slot], 0), "vkResetCommandBuffer", err, errlen) &&
           vk_ok(vk->vkBeginCommandBuffer(vk->cmd[slot], &bi), "vkBeginCommandBuffer", err, errlen);
}

/* Dispatches elements [e0, e1) (e0 a multiple of k * the workgroup size); k: elements per
 * invocation (the fast design; else 1). */
static void record_dispatch(fmag_gpu_vk *vk, VkCommandBuffer cmd, VkPipeline pipe, fmag_vk_pc pc,
                            uint32_t k, size_t e0, size_t e1)
{
    vk->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    vk->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->layout, 0, 1, &vk->dset, 0,
                                NULL);
    uint32_t group = FMAG_VK_LOCAL_SIZE * k;
    uint64_t per = (uint64_t)group * FMAG_VK_MAX_GROUPS;
    pc.n = (uint32_t)e1;
    for (uint64_t base = e0; base < e1; base += per) {
        pc.base = (uint32_t)base;
        uint64_t left = e1 - base, groups = (left + group - 1) / group;
        if (groups > FMAG_VK_MAX_GROUPS) groups = FMAG_VK_MAX_GROUPS;
        vk->vkCmdPushConstants(cmd, vk->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
        vk->vkCmdDispatch(cmd, (uint32_t)groups, 1, 1);
        ++vk->count.launches;
    }
}

static bool vk_set_design(void *impl, fmag_gpu_vk_design d)
{
    if ((unsigned)d > (unsigned)FMAG_GPU_VK_FAST) return false;
    ((fmag_gpu_vk *)impl)->design = d;
    return true;
}

static bool vk_set_fast(void *impl, fmag_gpu_vk_fast_knobs k)
{
    if ((k.k != 0 && k.k != 1 && k.k != 2 && k.k != 4 && k.k != 8) || k.ubo < -1 || k.ubo > 1 ||
        k.fuse < -1 || k.fuse > 1 || k.vec < -1 || k.vec > 1)
        return false;
    ((fmag_gpu_vk *)impl)->fast = k;
    return true;
}

/* Largest register files the workgroup design of fmag_run.comp is used for by default (where
 * the fast design does not apply): on the H200 it beat the private array up to these sizes
 * (docs/PERFORMANCE.md). */
#define FMAG_VK_WG_MAX_REGS_UNIFORM 16u
#define FMAG_VK_WG_MAX_REGS_LANE 32u

/* The fast design's elements per invocation by register-file size, uniform and per lane
 * (automatic choice, the winners of the H200 runs in docs/PERFORMANCE.md); 0: fmag_run.comp
 * instead (uniform rf >= 32: the private array with pre-decoded records is faster there,
 * its file costing no shared memory). A per-lane launch uses k only where the k elements of every
 * invocation share a program, else the largest smaller k that does. vec_uniform / vec_lane:
 * the VEC layout at that k (rf 4: faster uniform and per lane; rf 8-16: 0-7% faster uniform,
 * 8-12% slower per lane, run V7). */
static const struct {
    uint32_t max_rf, k_uniform, k_lane;
    bool vec_uniform, vec_lane;
} fmag_vk_fast_table[] = {{4, 4, 4, true, true},
                          {16, 2, 2, true, false},
                          {32, 0, 2, false, false},
                          {64, 0, 1, false, false},
                          {256, 0, 1, false, false}};

/* True when the fast design's register file of rf rows, k elements per invocation and wg
 * invocations fits the device's shared memory and the records' 16-bit offsets. */
static bool fast_fits(const fmag_gpu_vk *vk, uint32_t rf, uint32_t k, uint32_t wg)
{
    uint64_t row = (uint64_t)k * wg;
    return rf <= 256 && rf * row <= 65536 &&
           rf * row * 4 <= vk->props.limits.maxComputeSharedMemorySize;
}

/* True when element e runs the same program as the first element of its invocation for k
 * elements per invocation (element (g*k + j)*wg + t is slot j of invocation t of group g). */
static bool lanes_share(const fmag_gpu_job *job, uint32_t k, uint32_t wg)
{
    uint64_t row = (uint64_t)k * wg;
    for (size_t e = 0; e < job->n; ++e) {
        size_t e0 = (size_t)(e / row * row + e % wg);
        if (job->prog_index[e] != job->prog_index[e0]) return false;
    }
    return true;
}

/* One launch's plan: which shader build, register file, code layout. */
typedef struct vk_plan {
    uint32_t rf, variant, k, wg;
    bool lanes, pd, il, fast, ubo, fuse, kinds;
} vk_plan;

/* True when every program has, at each instruction index, the same operand kinds (register
 * or literal for b, c, g) and no literal guard <= 0: per-lane records can then take the
 * uniform path's branch per kind, a uniform branch, and skip literal operands' loads (32
 * Horner polynomials, one node graph with per-lane constants). */
static bool lane_kinds_agree(const fmag_gpu_job *job, size_t maxlen)
{
    for (size_t i = 0; i < maxlen; ++i) {
        int kind = -1;
        for (size_t k = 0; k < job->nprogs; ++k) {
            const fmag_vm_program *p = job->progs[k];
            if (i >= p->ninstr) continue;
            fmag_vm_instr w = p->code[i];
            bool gr = fmag_gpu_is_ref(w.g);
            if (!gr && !(fmag_float_of(w.g) > 0.0f)) return false;
            int kk = (int)fmag_gpu_is_ref(w.b) | (int)fmag_gpu_is_ref(w.c) << 1 | (int)gr << 2;
            if (kind >= 0 && kk != kind) return false;
            kind = kk;
        }
    }
    return true;
}

static vk_plan plan_launch(const fmag_gpu_vk *vk, const fmag_gpu_job *job, size_t ncode,
                           size_t maxlen)
{
    vk_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.rf = fmag_gpu_pow2_regs(job->max_regs < 4 ? 4 : job->max_regs);
    pl.k = 1, pl.wg = FMAG_VK_LOCAL_SIZE;
    fmag_gpu_vk_design d = vk->design;
    pl.lanes = job->prog_index && job->nprogs > 1;
    /* the fast design wherever it fits, unless another design is forced */
    if (pl.rf <= 256 && (d == FMAG_GPU_VK_AUTO || d == FMAG_GPU_VK_FAST)) {
        uint32_t k = vk->fast.k;
        size_t row = 0;
        while (fmag_vk_fast_table[row].max_rf < pl.rf)
            ++row;
        uint32_t k_table =
            pl.lanes ? fmag_vk_fast_table[row].k_lane : fmag_vk_fast_table[row].k_uniform;
        if (!k) {
            k = k_table;
            /* 0: fmag_run.comp, unless the fast design is forced */
            if (!k) k = d == FMAG_GPU_VK_AUTO ? 0 : 1;
        }
        uint32_t wg = FMAG_VK_LOCAL_SIZE;
        while (k > 1 && (!fast_fits(vk, pl.rf, k, wg) || (pl.lanes && !lanes_share(job, k, wg))))
            k /= 2;
        if (k && fast_fits(vk, pl.rf, k, wg)) {
            pl.fast = true, pl.k = k, pl.wg = wg;
            bool vec_auto =
                vk->fast.vec == -1 && k == k_table &&
                (pl.lanes ? fmag_vk_fast_table[row].vec_lane : fmag_vk_fast_table[row].vec_uniform);
            bool vec = (vk->fast.vec == 1 || vec_auto) && (k == 2 || k == 4);
            pl.fuse = vk->fast.fuse != 0; /* fused unless forced off (PERFORMANCE.md) */
            pl.ubo = !pl.lanes && vk->fast.ubo != 0 &&
                     vk->props.limits.maxUniformBufferRange >= FMAG_VK_UBO_BYTES &&
                     job->progs[0]->ninstr <= FMAG_VK_UBO_BYTES / 16;
            pl.il = pl.lanes && maxlen * job->nprogs <= 4 * ncode;
            pl.kinds = pl.lanes && vk->fast.fuse != 0 && lane_kinds_agree(job, maxlen);
            pl.variant = FMAG_VK_VARIANT_FAST | (pl.ubo ? FMAG_VK_VARIANT_UBO : 0u) |
                         (vec ? FMAG_VK_VARIANT_VEC : 0u);
            return pl;
        }
    }
    /* fmag_run.comp (docs/GPU.md, measured in docs/PERFORMANCE.md): pre-decoded records up to
     * 256 registers, the workgroup register file for the sizes where it measured faster;
     * per-lane code interleaved [instr][program] unless padding every program to the
     * longest would make the code over 4 times larger. */
    bool auto_pd = d == FMAG_GPU_VK_AUTO || d == FMAG_GPU_VK_FAST;
    bool forced_pd = d == FMAG_GPU_VK_PRIVATE_PREDECODED || d == FMAG_GPU_VK_WORKGROUP_PREDECODED;
    pl.pd = pl.rf <= 256 && (forced_pd || auto_pd);
    bool wg_fits =
        (uint64_t)pl.rf * FMAG_VK_LOCAL_SIZE * 4u <= vk->props.limits.maxComputeSharedMemorySize;
    bool wg =
        pl.pd && wg_fits &&
        (d == FMAG_GPU_VK_WORKGROUP_PREDECODED ||
         (auto_pd && pl.rf <= (pl.lanes ? FMAG_VK_WG_MAX_REGS_LANE : FMAG_VK_WG_MAX_REGS_UNIFORM)));
    pl.il = pl.lanes && (d == FMAG_GPU_VK_PRIVATE_INTERLEAVED || forced_pd ||
                         (auto_pd && maxlen * job->nprogs <= 4 * ncode));
    pl.variant = (wg ? FMAG_VK_VARIANT_WG : 0u) | (pl.pd ? FMAG_VK_VARIANT_PD : 0u) |
                 (pl.pd && pl.lanes ? FMAG_VK_VARIANT_LITGUARD : 0u);
    return pl;
}

/* The code buffer's records for plan pl: *nrec records in a new array (NULL on no memory). */
static fmag_gpu_word4 *build_code(const fmag_gpu_job *job, const vk_plan *pl, size_t ncode,
                                  size_t maxlen, uint32_t *nrec)
{
    size_t n = pl->il ? maxlen * job->nprogs : ncode;
    /* padding: never executed; one row past the end, which fmag_fast.comp's fetch of the
     * record after the last reads */
    fmag_gpu_word4 *code = calloc(n + job->nprogs + 1, sizeof *code);
    if (!code) return NULL;
    /* the VEC layout addresses vectors of k elements: a row of wg */
    uint32_t row = pl->variant & FMAG_VK_VARIANT_VEC ? pl->wg : pl->k * pl->wg;
    if ((pl->pd || pl->fast) && !pl->lanes) {
        /* uniform: only progs[0] runs; no-ops dropped */
        const fmag_vm_program *p = job->progs[0];
        const fmag_gpu_word4 *raw = (const fmag_gpu_word4 *)p->code;
        if (pl->fast && pl->fuse)
            *nrec = fmag_gpu_predecode_sel(raw, p->ninstr, pl->rf, code);
        else
            *nrec = fmag_gpu_predecode(raw, p->ninstr, pl->rf, code);
        if (pl->fast) {
            fmag_gpu_predecode_bytes(code, *nrec, row);
            fmag_gpu_mark_fused(code, *nrec);
        }
        return code;
    }
    size_t first = 0;
    for (size_t k = 0; k < job->nprogs; ++k) {
        const fmag_vm_program *p = job->progs[k];
        for (uint32_t i = 0; i < p->ninstr; ++i) {
            fmag_gpu_word4 w;
            memcpy(&w, &p->code[i], 16);
            if (pl->fast)
                fmag_gpu_predecode_lane(&w, 1, pl->rf, row, &w);
            else if (pl->pd)
                w = fmag_gpu_predecode_one(w, pl->rf); /* per lane: no-ops stay */
            code[pl->il ? (size_t)i * job->nprogs + k : first + i] = w;
        }
        first += p->ninstr;
    }
    *nrec = (uint32_t)n;
    return code;
}

/* Where each part of a launch lies in the upload staging (bytes). */
typedef struct vk_layout {
    size_t size[VK_NBUF], at[VK_NBUF], up_total;
} vk_layout;

/* The upload staging holds code, program table, per-lane index, uniform records and the
 * input image (each 256-byte aligned); the read-back staging the output image. */
static vk_layout plan_buffers(const fmag_gpu_job *job, uint32_t nrec)
{
    vk_layout L;
    bool dev = job->layout == FMAG_GPU_DEVICE;
    L.size[VK_CODE] = ((size_t)nrec + job->nprogs + 1) * 16; /* with build_code's padding */
    L.size[VK_PROGS] = job->nprogs * 16;
    L.size[VK_INDEX] = job->prog_index ? job->n * 4 : 4;
    L.size[VK_IN] = dev ? 0 : fmag_gpu_in_words(job) * 4;
    L.size[VK_OUT] = dev ? 0 : fmag_gpu_out_words(job) * 4;
    L.size[VK_UBO] = FMAG_VK_UBO_BYTES;
    L.up_total = 0;
    for (int i = 0; i < VK_NBUF; ++i) {
        L.at[i] = L.up_total;
        if (i != VK_OUT) L.up_total += (L.size[i] + 255) & ~(size_t)255;
    }
    return L;
}

/* Points the descriptor set's bindings at bi (the uniform buffer's range limited as the
 * device requires). */
static void write_set(fmag_gpu_vk *vk, VkDescriptorBufferInfo *bi)
{
    VkWriteDescriptorSet wr[VK_NBUF];
    uint32_t ubo_range = vk->props.limits.maxUniformBufferRange;
    bi[VK_UBO].range = ubo_range < FMAG_VK_UBO_BYTES ? ubo_range : FMAG_VK_UBO_BYTES;
    for (int i = 0; i < VK_NBUF; ++i) {
        wr[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        wr[i].dstSet = vk->dset;
        wr[i].dstBinding = (uint32_t)i;
        wr[i].descriptorCount = 1;
        wr[i].descriptorType =
            i == VK_UBO ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        wr[i].pBufferInfo = &bi[i];
    }
    vk->vkUpdateDescriptorSets(vk->dev, VK_NBUF, wr, 0, NULL);
}

/* Points the descriptor set at the launch's buffers: the runner's, or for a device-resident
 * launch the caller's input and output. */
static void bind_buffers(fmag_gpu_vk *vk, const fmag_gpu_job *job)
{
    VkDescriptorBufferInfo bi[VK_NBUF];
    for (int i = 0; i < VK_NBUF; ++i)
        bi[i] = (VkDescriptorBufferInfo){vk->buf[i].buf, 0, VK_WHOLE_SIZE};
    if (job->layout == FMAG_GPU_DEVICE) {
        bi[VK_IN] = (VkDescriptorBufferInfo){(VkBuffer)(uintptr_t)job->dev_in.handle,
                                             job->dev_in.offset, VK_WHOLE_SIZE};
        bi[VK_OUT] = (VkDescriptorBufferInfo){(VkBuffer)(uintptr_t)job->dev_out.handle,
                                              job->dev_out.offset, VK_WHOLE_SIZE};
    }
    write_set(vk, bi);
}

static void copy_region(fmag_gpu_vk *vk, VkCommandBuffer cmd, VkBuffer from, VkBuffer to,
                        size_t from_at, size_t to_at, size_t bytes)
{
    if (!bytes) return;
    VkBufferCopy c = {from_at, to_at, bytes};
    vk->vkCmdCopyBuffer(cmd, from, to, 1, &c);
}

/* Runs one job with the given fma mode. Host arrays go through the pipelined copies: chunk
 * by chunk the host packs the inputs into the upload staging and submits the chunk's copies,
 * dispatch and read-back, so that its packing of one chunk overlaps the device's work on the
 * ones before; then it unpacks each chunk as its fence signals. */
static bool vk_run_mode(fmag_gpu_vk *vk, const fmag_gpu_job *job, bool soft, char *err,
                        size_t errlen)
{
    size_t ncode = 0, maxlen = 0;
    for (size_t k = 0; k < job->nprogs; ++k) {
        ncode += job->progs[k]->ninstr;
        if (job->progs[k]->ninstr > maxlen) maxlen = job->progs[k]->ninstr;
    }
    vk_plan pl = plan_launch(vk, job, ncode, maxlen);
    uint32_t rf = pl.rf;
    uint32_t nrec = 0;
    fmag_gpu_word4 *code = build_code(job, &pl, ncode, maxlen, &nrec);
    uint8_t *scratch = malloc(rf);
    if (!code || !scratch) {
        free(code);
        free(scratch);
        fmag_gpu_err(err, errlen, "out of memory");
        return false;
    }
    /* Zero-initialisation only where a register may be read before it is written. */
    bool zero = false;
    for (size_t k = 0; k < job->nprogs && !zero; ++k) {
        const fmag_vm_program *p = job->progs[k];
        zero = fmag_gpu_needs_zero_init((const fmag_gpu_word4 *)p->code, p->ninstr, p->nin, p->nout,
                                        rf, scratch);
    }
    free(scratch);
    VkPipeline pipe = VK_NULL_HANDLE;
    if (job->native) { /* baked: one element an invocation */
        pipe = (VkPipeline)job->native;
        pl.k = 1, pl.variant = FMAG_VK_VARIANT_BAKED, vk->last_create_ms = 0;
    } else {
        pipe = get_pipeline(vk, rf, soft, pl.variant, pl.k, err, errlen);
    }
    vk_layout L = plan_buffers(job, nrec);
    bool ok = pipe != VK_NULL_HANDLE;
    for (int i = 0; ok && i < VK_NBUF; ++i)
        ok = buf_reserve(vk, &vk->buf[i], L.size[i], VK_MEM_DEVICE, err, errlen);
    ok = ok && buf_reserve(vk, &vk->up, L.up_total, VK_MEM_UPLOAD, err, errlen) &&
         buf_reserve(vk, &vk->down, L.size[VK_OUT], VK_MEM_READBACK, err, errlen);
    if (!ok) {
        free(code);
        return false;
    }
    vk->last_pipe = pipe, vk->last_variant = pl.variant, vk->last_k = pl.k;
    unsigned char *up = vk->up.map;
    memcpy(up + L.at[VK_CODE], code, L.size[VK_CODE]);
    memset(up + L.at[VK_UBO], 0, L.size[VK_UBO]);
    if (pl.ubo) memcpy(up + L.at[VK_UBO], code, (size_t)nrec * 16);
    free(code);
    uint32_t first = 0;
    for (size_t k = 0; k < job->nprogs; ++k) {
        const fmag_vm_program *p = job->progs[k];
        uint32_t h[4] = {pl.il ? (uint32_t)k : first, p->ninstr, p->nin, p->nout};
        if ((pl.pd || pl.fast) && !pl.lanes) h[0] = 0, h[1] = nrec;
        memcpy(up + L.at[VK_PROGS] + k * 16, h, 16);
        first += p->ninstr;
    }
    if (!job->prog_index) memset(up + L.at[VK_INDEX], 0, 4);
    bind_buffers(vk, job);

    const fmag_vm_program *p0 = job->progs[0];
    fmag_vk_pc pc;
    memset(&pc, 0, sizeof pc);
    pc.in_stride = (uint32_t)job->in_stride, pc.out_stride = (uint32_t)job->out_stride;
    pc.in_col = 1, pc.out_col = 1;
    if (job->layout != FMAG_GPU_DEVICE)
        fmag_gpu_strides(job, &pc.in_stride, &pc.in_col, &pc.out_stride, &pc.out_col);
    pc.nprogs = (uint32_t)job->nprogs;
    pc.per_lane = pl.lanes || job->prog_index != NULL;
    if (!pl.lanes && pl.fast) pc.per_lane = 0; /* one program for every element */
    pc.evals = job->evals, pc.code_stride = pl.il ? (uint32_t)job->nprogs : 1u;
    pc.zero_init = zero, pc.ninstr = nrec, pc.nin = p0->nin, pc.nout = p0->nout;
    pc.lane_kinds = pl.kinds;

    size_t n = job->n;
    bool cols = job->layout == FMAG_GPU_COLUMNS, dev = job->layout == FMAG_GPU_DEVICE;
    size_t chunk = job->reps || dev ? n : fmag_gpu_chunk_elems(job, 1024);
    if ((n + chunk - 1) / chunk > FMAG_VK_MAX_CHUNKS)
        chunk = ((n + FMAG_VK_MAX_CHUNKS - 1) / FMAG_VK_MAX_CHUNKS + 1023) / 1024 * 1024;
    float *in_img = (float *)(up + L.at[VK_IN]);
    uint32_t ie = pc.in_stride, oe = pc.out_stride;
    unsigned nchunks = 0;
    for (size_t e0 = 0; ok && e0 < n; e0 += chunk, ++nchunks) {
        size_t e1 = e0 + chunk < n ? e0 + chunk : n, m = e1 - e0;
        VkCommandBuffer cmd = vk->cmd[nchunks];
        if (!dev) fmag_gpu_pack_inputs(job, in_img, e0, e1);
        if (job->prog_index) memcpy(up + L.at[VK_INDEX] + e0 * 4, job->prog_index + e0, m * 4);
        ok = begin(vk, nchunks, err, errlen);
        if (!ok) break;
        if (nchunks == 0) /* the program, for every chunk */
            for (int i = VK_CODE; i <= VK_UBO; ++i)
                if (i == VK_CODE || i == VK_PROGS || i == VK_UBO ||
                    (i == VK_INDEX && !job->prog_index))
                    copy_region(vk, cmd, vk->up.buf, vk->buf[i].buf, L.at[i], 0, L.size[i]);
        if (job->prog_index)
            copy_region(vk, cmd, vk->up.buf, vk->buf[VK_INDEX].buf, L.at[VK_INDEX] + e0 * 4, e0 * 4,
                        m * 4);
        /* the chunk's part of the images: one run of rows, or a piece of every column */
        size_t in_at = cols ? e0 : e0 * ie, in_len = cols ? m : m * ie;
        size_t out_at = cols ? e0 : e0 * oe, out_len = cols ? m : m * oe;
        for (size_t i = 0; !dev && i < (cols ? job->max_nin : 1); ++i)
            copy_region(vk, cmd, vk->up.buf, vk->buf[VK_IN].buf, L.at[VK_IN] + (in_at + i * n) * 4,
                        (in_at + i * n) * 4, in_len * 4);
        barrier(vk, cmd, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_UNIFORM_READ_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        record_dispatch(vk, cmd, pipe, pc, pl.k, e0, e1);
        if (!dev) {
            barrier(vk, cmd, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
            for (size_t i = 0; i < (cols ? job->max_nout : 1); ++i)
                copy_region(vk, cmd, vk->buf[VK_OUT].buf, vk->down.buf, (out_at + i * n) * 4,
                            (out_at + i * n) * 4, out_len * 4);
        }
        ok = submit(vk, nchunks, err, errlen);
    }
    vk->count.chunks += nchunks;
    /* every submitted chunk is waited for, also after an error: the staging stays in use */
    for (unsigned i = 0; i < nchunks; ++i) {
        bool done = wait_slot(vk, i, err, errlen);
        ok = ok && done;
        if (ok && !dev) {
            size_t e0 = (size_t)i * chunk, e1 = e0 + chunk < n ? e0 + chunk : n;
            fmag_gpu_unpack_outputs(job, (const float *)vk->down.map, e0, e1);
        }
    }
    /* Timing: the dispatches alone, on the resident buffers. */
    if (ok && job->reps) {
        double *t = calloc(job->reps, sizeof *t);
        ok = t != NULL;
        for (unsigned r = 0; ok && r < job->reps + 1; ++r) {
            ok = begin(vk, 0, err, errlen);
            if (!ok) break;
            record_dispatch(vk, vk->cmd[0], pipe, pc, pl.k, 0, n);
            double t0 = fmag_gpu_now_ms();
            ok = submit(vk, 0, err, errlen) && wait_slot(vk, 0, err, errlen);
            if (r > 0) /* the first launch warms up */
                t[r - 1] = fmag_gpu_now_ms() - t0;
        }
        if (ok) *job->median_ms = fmag_gpu_median(t, job->reps);
        free(t);
    }
    return ok;
}

/* The design and the driver's statistics of the last launch's pipeline. */
static void vk_last_launch(void *impl, char *buf, size_t len)
{
    fmag_gpu_vk *vk = impl;
    if (!len) return;
    buf[0] = 0;
    if (!vk->last_pipe) return;
    /* the design's name: the first row whose bits the variant has */
    static const struct {
        uint32_t bits;
        const char *name;
    } names[] = {{FMAG_VK_VARIANT_BAKED, "baked"},
                 {FMAG_VK_VARIANT_VEC, "fast-vec"},
                 {FMAG_VK_VARIANT_FAST, "fast"},
                 {FMAG_VK_VARIANT_WG | FMAG_VK_VARIANT_PD, "wg-pd"},
                 {FMAG_VK_VARIANT_WG, "wg"},
                 {FMAG_VK_VARIANT_PD, "private-pd"},
                 {0, "private"}};
    uint32_t v = vk->last_variant;
    size_t nm = 0;
    while ((v & names[nm].bits) != names[nm].bits)
        ++nm;
    bool fast = (v & FMAG_VK_VARIANT_FAST) != 0;
    size_t at =
        (size_t)snprintf(buf, len, "%s%s k%u wg%u pipeline_create_ms=%.1f%s", names[nm].name,
                         !fast                     ? ""
                         : v & FMAG_VK_VARIANT_UBO ? "-ubo"
                                                   : "-ssbo",
                         (unsigned)vk->last_k, FMAG_VK_LOCAL_SIZE, vk->last_create_ms,
                         vk->has_stats ? ":" : " (no pipeline statistics)");
    if (!vk->has_stats || at >= len) return;
    VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    ei.pipeline = vk->last_pipe;
    ei.executableIndex = 0;
    VkPipelineExecutableStatisticKHR st[32];
    uint32_t n = 32;
    for (uint32_t i = 0; i < n; ++i)
        st[i] = (VkPipelineExecutableStatisticKHR){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
    VkResult r = vk->vkGetPipelineExecutableStatisticsKHR(vk->dev, &ei, &n, st);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return;
    for (uint32_t i = 0; i < n && at < len; ++i) {
        const VkPipelineExecutableStatisticKHR *x = &st[i];
        char val[64];
        switch (x->format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
            snprintf(val, sizeof val, "%s", x->value.b32 ? "true" : "false");
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
            snprintf(val, sizeof val, "%lld", (long long)x->value.i64);
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
            snprintf(val, sizeof val, "%llu", (unsigned long long)x->value.u64);
            break;
        default:
            snprintf(val, sizeof val, "%g", x->value.f64);
            break;
        }
        at += (size_t)snprintf(buf + at, len - at, "%s %s=%s", i ? ";" : "", x->name, val);
    }
}

static void vk_set_capture_ir(void *impl, bool on)
{
    ((fmag_gpu_vk *)impl)->capture_ir = on;
}

/* The driver's internal representations of the last launch's pipeline (captured when
 * capture_ir was on at its creation): "== name (description)" then the text, each in turn;
 * returns the length of the whole text (buf holds at most len - 1 bytes of it). */
static size_t vk_last_ir(void *impl, char *buf, size_t len)
{
    fmag_gpu_vk *vk = impl;
    if (len) buf[0] = 0;
    if (!vk->last_pipe || !vk->has_stats || !vk->vkGetPipelineExecutableInternalRepresentationsKHR)
        return 0;
    VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    ei.pipeline = vk->last_pipe;
    uint32_t n = 0;
    if (vk->vkGetPipelineExecutableInternalRepresentationsKHR(vk->dev, &ei, &n, NULL) !=
            VK_SUCCESS ||
        n == 0)
        return 0;
    VkPipelineExecutableInternalRepresentationKHR *ir = calloc(n, sizeof *ir);
    if (!ir) return 0;
    for (uint32_t i = 0; i < n; ++i)
        ir[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR;
    /* first the sizes, then the data */
    size_t total = 0;
    if (vk->vkGetPipelineExecutableInternalRepresentationsKHR(vk->dev, &ei, &n, ir) >= 0) {
        for (uint32_t i = 0; i < n; ++i)
            ir[i].pData = ir[i].dataSize ? malloc(ir[i].dataSize) : NULL;
        vk->vkGetPipelineExecutableInternalRepresentationsKHR(vk->dev, &ei, &n, ir);
        for (uint32_t i = 0; i < n; ++i) {
            char head[600];
            int h = snprintf(head, sizeof head, "== %s (%s)%s\n", ir[i].name, ir[i].description,
                             ir[i].isText ? "" : " [binary, not shown]");
            const char *parts[2] = {head, ir[i].isText && ir[i].pData ? ir[i].pData : ""};
            size_t plen[2] = {(size_t)h, strnlen(parts[1], ir[i].dataSize)};
            for (int q = 0; q < 2; ++q) {
                if (total + 1 < len) {
                    size_t c = plen[q] < len - 1 - total ? plen[q] : len - 1 - total;
                    memcpy(buf + total, parts[q], c);
                    buf[total + c] = 0;
                }
                total += plen[q];
            }
            free(ir[i].pData);
        }
    }
    free(ir);
    return total;
}

/* --- Per-lane binning on the device (gpu/fmag_bin.comp; Bin.c launches the groups). */

/* Push constants of fmag_bin.comp (within the layout's range). */
typedef struct vk_bin_pc {
    uint32_t n, stride, nprogs, pass, base, align;
} vk_bin_pc;

/* The binning passes' bindings: counts, perm and indices, and rows moved from src to dst. */
static void bin_bind(fmag_gpu_vk *vk, int src, int dst)
{
    VkDescriptorBufferInfo bi[VK_NBUF];
    const int from[VK_NBUF] = {VK_BIN_COUNTS, VK_BIN_PERM, VK_BIN_INDEX, src, dst, 0};
    for (int i = 0; i < VK_NBUF; ++i)
        bi[i] = (VkDescriptorBufferInfo){vk->bin[from[i]].buf, 0, VK_WHOLE_SIZE};
    bi[VK_UBO].buffer = vk->buf[VK_UBO].buf; /* bound, never read */
    write_set(vk, bi);
}

/* Records pass `pass` over n invocations (groups of FMAG_VK_LOCAL_SIZE, in dispatches of at
 * most FMAG_VK_MAX_GROUPS), then a barrier for what reads its results. */
static void bin_pass(fmag_gpu_vk *vk, VkCommandBuffer cmd, vk_bin_pc pc, uint32_t pass, size_t n)
{
    vk->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->bin_pipe);
    vk->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->layout, 0, 1, &vk->dset, 0,
                                NULL);
    pc.pass = pass;
    uint64_t per = (uint64_t)FMAG_VK_LOCAL_SIZE * FMAG_VK_MAX_GROUPS;
    for (uint64_t base = 0; base < n; base += per) {
        uint64_t left = n - base, groups = (left + FMAG_VK_LOCAL_SIZE - 1) / FMAG_VK_LOCAL_SIZE;
        pc.base = (uint32_t)base;
        vk->vkCmdPushConstants(cmd, vk->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
        vk->vkCmdDispatch(
            cmd, (uint32_t)(groups < FMAG_VK_MAX_GROUPS ? groups : FMAG_VK_MAX_GROUPS), 1, 1);
        ++vk->count.launches;
    }
    barrier(vk, cmd, VK_ACCESS_SHADER_WRITE_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT);
}

static vk_bin_pc bin_pc(const fmag_gpu_job *job, size_t stride)
{
    vk_bin_pc pc = {(uint32_t)job->n,  (uint32_t)stride, (uint32_t)job->nprogs, 0, 0,
                    FMAG_GPU_BIN_ALIGN};
    return pc;
}

static bool vk_bin_count(void *impl, const fmag_gpu_job *job, uint32_t *counts, char *err,
                         size_t errlen)
{
    fmag_gpu_vk *vk = impl;
    size_t n = job->n, idx_bytes = (n * 4 + 255) & ~(size_t)255;
    size_t in_bytes = n * job->in_stride * 4, out_bytes = n * job->out_stride * 4;
    size_t count_bytes = job->nprogs * 4;
    if (!vk->bin_pipe) {
        VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci.stage.module = vk->shader[FMAG_VK_SHADER_BIN];
        ci.stage.pName = "main";
        ci.layout = vk->layout;
        if (!vk_ok(
                vk->vkCreateComputePipelines(vk->dev, VK_NULL_HANDLE, 1, &ci, NULL, &vk->bin_pipe),
                "vkCreateComputePipelines (binning)", err, errlen))
            return false;
        ++vk->count.pipeline_creates;
    }
    bool ok =
        buf_reserve(vk, &vk->bin[VK_BIN_COUNTS], 2 * count_bytes, VK_MEM_DEVICE, err, errlen) &&
        buf_reserve(vk, &vk->bin[VK_BIN_INDEX], n * 4, VK_MEM_DEVICE, err, errlen) &&
        buf_reserve(vk, &vk->bin[VK_BIN_ROWS], in_bytes > out_bytes ? in_bytes : out_bytes,
                    VK_MEM_DEVICE, err, errlen) &&
        buf_reserve(vk, &vk->bin[VK_BIN_PERM], 16, VK_MEM_DEVICE, err, errlen) &&
        buf_reserve(vk, &vk->buf[VK_UBO], FMAG_VK_UBO_BYTES, VK_MEM_DEVICE, err, errlen) &&
        buf_reserve(vk, &vk->up, idx_bytes + in_bytes, VK_MEM_UPLOAD, err, errlen) &&
        buf_reserve(vk, &vk->down, count_bytes, VK_MEM_READBACK, err, errlen) &&
        begin(vk, 0, err, errlen);
    if (!ok) return false;
    memcpy(vk->up.map, job->prog_index, n * 4);
    fmag_gpu_pack_inputs(job, (float *)(vk->up.map + idx_bytes), 0, n);
    VkCommandBuffer cmd = vk->cmd[0];
    copy_region(vk, cmd, vk->up.buf, vk->bin[VK_BIN_INDEX].buf, 0, 0, n * 4);
    copy_region(vk, cmd, vk->up.buf, vk->bin[VK_BIN_ROWS].buf, idx_bytes, 0, in_bytes);
    vk->vkCmdFillBuffer(cmd, vk->bin[VK_BIN_COUNTS].buf, 0, count_bytes, 0);
    barrier(vk, cmd, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    bin_bind(vk, VK_BIN_ROWS, VK_BIN_PERM); /* pass 0 moves nothing */
    bin_pass(vk, cmd, bin_pc(job, job->in_stride), 0, n);
    copy_region(vk, cmd, vk->bin[VK_BIN_COUNTS].buf, vk->down.buf, 0, 0, count_bytes);
    ok = submit(vk, 0, err, errlen) && wait_slot(vk, 0, err, errlen);
    if (ok) memcpy(counts, vk->down.map, count_bytes);
    return ok;
}

static bool vk_bin_scatter(void *impl, const fmag_gpu_job *job, size_t slots, fmag_gpu_buffer *in,
                           fmag_gpu_buffer *out, char *err, size_t errlen)
{
    fmag_gpu_vk *vk = impl;
    bool ok = buf_reserve(vk, &vk->bin[VK_BIN_PERM], slots * 4, VK_MEM_DEVICE, err, errlen) &&
              buf_reserve(vk, &vk->bin[VK_BIN_IN], slots * job->in_stride * 4, VK_MEM_DEVICE, err,
                          errlen) &&
              buf_reserve(vk, &vk->bin[VK_BIN_OUT], slots * job->out_stride * 4, VK_MEM_DEVICE, err,
                          errlen) &&
              begin(vk, 0, err, errlen);
    if (!ok) return false;
    VkCommandBuffer cmd = vk->cmd[0];
    /* padding slots keep "no element" */
    vk->vkCmdFillBuffer(cmd, vk->bin[VK_BIN_PERM].buf, 0, slots * 4, 0xFFFFFFFFu);
    barrier(vk, cmd, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    bin_bind(vk, VK_BIN_ROWS, VK_BIN_IN);
    vk_bin_pc pc = bin_pc(job, job->in_stride);
    bin_pass(vk, cmd, pc, 1, 1);
    bin_pass(vk, cmd, pc, 2, job->n);
    ok = submit(vk, 0, err, errlen) && wait_slot(vk, 0, err, errlen);
    vk->count.device_bins += ok;
    in->handle = (uint64_t)(uintptr_t)vk->bin[VK_BIN_IN].buf, in->offset = 0;
    out->handle = (uint64_t)(uintptr_t)vk->bin[VK_BIN_OUT].buf, out->offset = 0;
    return ok;
}

static bool vk_bin_gather(void *impl, const fmag_gpu_job *job, size_t slots, char *err,
                          size_t errlen)
{
    fmag_gpu_vk *vk = impl;
    size_t out_bytes = job->n * job->out_stride * 4;
    bool ok = buf_reserve(vk, &vk->down, out_bytes, VK_MEM_READBACK, err, errlen) &&
              begin(vk, 0, err, errlen);
    if (!ok) return false;
    VkCommandBuffer cmd = vk->cmd[0];
    bin_bind(vk, VK_BIN_OUT, VK_BIN_ROWS);
    vk_bin_pc pc = bin_pc(job, job->out_stride);
    pc.n = (uint32_t)slots;
    bin_pass(vk, cmd, pc, 3, slots);
    copy_region(vk, cmd, vk->bin[VK_BIN_ROWS].buf, vk->down.buf, 0, 0, out_bytes);
    ok = submit(vk, 0, err, errlen) && wait_slot(vk, 0, err, errlen);
    if (ok) fmag_gpu_unpack_outputs(job, (const float *)vk->down.map, 0, job->n);
    return ok;
}

static bool vk_run(void *impl, const fmag_gpu_job *job, char *err, size_t errlen)
{
    fmag_gpu_vk *vk = impl;
    return vk_run_mode(vk, job, vk->soft_fma, err, errlen);
}

/* Start-up probe: runs r0 = fma(r0, r1, r2) on products whose rounding error a fused fma
 * keeps and a multiply-then-add loses, and on denormal results. */
#define PROBE_N 1024
static bool vk_probe(fmag_gpu_vk *vk, bool soft, int *fma_bad, int *denorm_bad, char *err,
                     size_t errlen)
{
    static const fmag_vm_instr code[1] = {{0x7FC00001u, 0x7FC00002u, 0x3F800000u, 0u}};
    fmag_vm_program p = {(char *)"probe", 0, 4, 3, 1, 1, (fmag_vm_instr *)code, 0};
    const fmag_vm_program *pp = &p;
    float *in = malloc(sizeof(float) * 3 * (PROBE_N + 2)),
          *out = malloc(sizeof(float) * (PROBE_N + 2));
    if (!in || !out) {
        free(in);
        free(out);
        fmag_gpu_err(err, errlen, "out of memory");
        return false;
    }
    uint32_t s = 12345;
    for (int k = 0; k < PROBE_N; ++k) {
        s = s * 1664525u + 1013904223u;
        float a = 1.0f + (float)(s >> 8) / 16777216.0f;
        s = s * 1664525u + 1013904223u;
        /* magnitudes spread over [0, 256) in half the cases: some drivers fuse only for
         * some operand ranges or code paths */
        float b = k % 2 ? 1.0f + (float)(s >> 8) / 16777216.0f : (float)(s >> 8) / 65536.0f;
        in[3 * k] = a, in[3 * k + 1] = b, in[3 * k + 2] = -(a * b);
    }
    /* denormal result from normal operands; denormal operand */
    in[3 * PROBE_N] = 0x1p-70f, in[3 * PROBE_N + 1] = 0x1p-70f, in[3 * PROBE_N + 2] = 0.0f;
    in[3 * PROBE_N + 3] = 0x1p-140f, in[3 * PROBE_N + 4] = 1.0f, in[3 * PROBE_N + 5] = 0.0f;
    fmag_gpu_job job;
    memset(&job, 0, sizeof job);
    job.progs = &pp, job.nprogs = 1, job.in = in, job.in_stride = 3, job.out = out;
    job.out_stride = 1, job.n = PROBE_N + 2, job.max_regs = 4, job.max_nin = 3, job.max_nout = 1;
    job.evals = 1;
    bool ok = vk_run_mode(vk, &job, soft, err, errlen);
    *fma_bad = 0, *denorm_bad = 0;
    for (int k = 0; ok && k < PROBE_N + 2; ++k) {
        float want = fmaf(in[3 * k], in[3 * k + 1], in[3 * k + 2]);
        if (fmag_bits_of(want) != fmag_bits_of(out[k])) ++*(k < PROBE_N ? fma_bad : denorm_bad);
    }
    free(in);
    free(out);
    return ok;
}

static void *vk_create(char *desc, size_t desclen, char *err, size_t errlen)
{
    fmag_gpu_vk *vk = calloc(1, sizeof *vk);
    if (!vk) {
        fmag_gpu_err(err, errlen, "out of memory");
        return NULL;
    }
    vk->fast = (fmag_gpu_vk_fast_knobs){0, -1, -1, -1};
    vk->lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!vk->lib) vk->lib = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
    if (!vk->lib) {
        fmag_gpu_err(err, errlen, "no Vulkan driver: cannot load libvulkan.so.1");
        goto fail;
    }
    *(void **)&vk->gipa = dlsym(vk->lib, "vkGetInstanceProcAddr");
    if (!vk->gipa) {
        fmag_gpu_err(err, errlen, "no Vulkan driver: libvulkan has no vkGetInstanceProcAddr");
        goto fail;
    }
    PFN_vkCreateInstance create_instance =
        (PFN_vkCreateInstance)vk->gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "fmag";
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    if (!create_instance || create_instance(&ici, NULL, &vk->inst) != VK_SUCCESS) {
        fmag_gpu_err(err, errlen, "no Vulkan driver: vkCreateInstance failed");
        vk->inst = VK_NULL_HANDLE;
        goto fail;
    }
#define X(f)                                                                                       \
    *(void **)&vk->f = (void *)vk->gipa(vk->inst, #f);                                             \
    if (!vk->f) {                                                                                  \
        fmag_gpu_err(err, errlen, "Vulkan: missing entry point %s", #f);                           \
        goto fail;                                                                                 \
    }
    FMAG_VK_FUNCS(X)
#undef X
    uint32_t ndev = 0;
    vk->vkEnumeratePhysicalDevices(vk->inst, &ndev, NULL);
    if (ndev == 0) {
        fmag_gpu_err(err, errlen, "no Vulkan driver: no physical device");
        goto fail;
    }
    VkPhysicalDevice devs[16];
    if (ndev > 16) ndev = 16;
    vk->vkEnumeratePhysicalDevices(vk->inst, &ndev, devs);
    int best = -1;
    for (uint32_t i = 0; i < ndev; ++i) {
        VkPhysicalDeviceProperties pr;
        vk->vkGetPhysicalDeviceProperties(devs[i], &pr);
        uint32_t nq = 0;
        vk->vkGetPhysicalDeviceQueueFamilyProperties(devs[i], &nq, NULL);
        VkQueueFamilyProperties qf[16];
        if (nq > 16) nq = 16;
        vk->vkGetPhysicalDeviceQueueFamilyProperties(devs[i], &nq, qf);
        for (uint32_t q = 0; q < nq; ++q)
            if ((qf[q].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
                (best < 0 || device_rank(pr.deviceType) > device_rank(vk->props.deviceType))) {
                best = (int)i;
                vk->phys = devs[i];
                vk->props = pr;
                vk->qfam = q;
                break;
            }
    }
    if (best < 0) {
        fmag_gpu_err(err, errlen, "no Vulkan driver: no device with a compute queue");
        goto fail;
    }
    VkPhysicalDeviceFeatures feat;
    vk->vkGetPhysicalDeviceFeatures(vk->phys, &feat);
    vk->has_f64 = feat.shaderFloat64 == VK_TRUE;
    vk->vkGetPhysicalDeviceMemoryProperties(vk->phys, &vk->mem);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = vk->qfam;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkPhysicalDeviceFeatures enable;
    memset(&enable, 0, sizeof enable);
    enable.shaderFloat64 = vk->has_f64 ? VK_TRUE : VK_FALSE;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.pEnabledFeatures = &enable;
    /* The driver's per-pipeline statistics (registers, shared memory) where it offers them:
     * fmag_gpu_runner_last_launch reports them for the benchmark. */
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pexf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    const char *ext_stats = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    const char *exts[1];
    uint32_t nexts = 0;
    {
        uint32_t next = 0;
        vk->vkEnumerateDeviceExtensionProperties(vk->phys, NULL, &next, NULL);
        VkExtensionProperties *ext = calloc(next ? next : 1, sizeof *ext);
        bool have = false;
        if (ext &&
            vk->vkEnumerateDeviceExtensionProperties(vk->phys, NULL, &next, ext) == VK_SUCCESS)
            for (uint32_t i = 0; i < next; ++i)
                have = have || !strcmp(ext[i].extensionName, ext_stats);
        free(ext);
        if (have) {
            VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
            f2.pNext = &pexf;
            vk->vkGetPhysicalDeviceFeatures2(vk->phys, &f2);
            *(void **)&vk->vkGetPipelineExecutableStatisticsKHR =
                (void *)vk->gipa(vk->inst, "vkGetPipelineExecutableStatisticsKHR");
            *(void **)&vk->vkGetPipelineExecutableInternalRepresentationsKHR =
                (void *)vk->gipa(vk->inst, "vkGetPipelineExecutableInternalRepresentationsKHR");
            vk->has_stats = pexf.pipelineExecutableInfo && vk->vkGetPipelineExecutableStatisticsKHR;
        }
        if (vk->has_stats) {
            pexf.pNext = NULL;
            pexf.pipelineExecutableInfo = VK_TRUE;
            dci.pNext = &pexf;
            exts[nexts++] = ext_stats;
        }
        dci.enabledExtensionCount = nexts;
        dci.ppEnabledExtensionNames = nexts ? exts : NULL;
    }
    if (!vk_ok(vk->vkCreateDevice(vk->phys, &dci, NULL, &vk->dev), "vkCreateDevice", err, errlen))
        goto fail;
    FMAG_PIN_DRIVER_MODULES();
    vk->vkGetDeviceQueue(vk->dev, vk->qfam, 0, &vk->queue);

    VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    const unsigned char *spv[FMAG_VK_NSHADERS] = {
        fmag_spirv_fmag_run,  fmag_spirv_fmag_run_pd,  fmag_spirv_fmag_run_wg_pd,
        fmag_spirv_fmag_fast, fmag_spirv_fmag_fast_v2, fmag_spirv_fmag_fast_v4,
        fmag_spirv_fmag_bin};
    const size_t spv_size[FMAG_VK_NSHADERS] = {
        fmag_spirv_fmag_run_size,  fmag_spirv_fmag_run_pd_size,  fmag_spirv_fmag_run_wg_pd_size,
        fmag_spirv_fmag_fast_size, fmag_spirv_fmag_fast_v2_size, fmag_spirv_fmag_fast_v4_size,
        fmag_spirv_fmag_bin_size};
    for (int i = 0; i < FMAG_VK_NSHADERS; ++i) {
        smi.codeSize = spv_size[i];
        smi.pCode = (const uint32_t *)(const void *)spv[i];
        if (!vk_ok(vk->vkCreateShaderModule(vk->dev, &smi, NULL, &vk->shader[i]),
                   "vkCreateShaderModule", err, errlen))
            goto fail;
    }
    VkDescriptorSetLayoutBinding bind[6];
    for (uint32_t i = 0; i < 6; ++i)
        bind[i] = (VkDescriptorSetLayoutBinding){
            i, i == 5 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
            VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo dli = {.sType =
                                               VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dli.bindingCount = 6;
    dli.pBindings = bind;
    if (!vk_ok(vk->vkCreateDescriptorSetLayout(vk->dev, &dli, NULL, &vk->dsl),
               "vkCreateDescriptorSetLayout", err, errlen))
        goto fail;
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(fmag_vk_pc)};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &vk->dsl;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &pcr;
    if (!vk_ok(vk->vkCreatePipelineLayout(vk->dev, &pli, NULL, &vk->layout),
               "vkCreatePipelineLayout", err, errlen))
        goto fail;
    VkDescriptorPoolSize ps[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 5},
                                  {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1}};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 1;
    dpi.poolSizeCount = 2;
    dpi.pPoolSizes = ps;
    if (!vk_ok(vk->vkCreateDescriptorPool(vk->dev, &dpi, NULL, &vk->dpool),
               "vkCreateDescriptorPool", err, errlen))
        goto fail;
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dai.descriptorPool = vk->dpool;
    dai.descriptorSetCount = 1;
    dai.pSetLayouts = &vk->dsl;
    if (!vk_ok(vk->vkAllocateDescriptorSets(vk->dev, &dai, &vk->dset), "vkAllocateDescriptorSets",
               err, errlen))
        goto fail;
    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cpi.queueFamilyIndex = vk->qfam;
    if (!vk_ok(vk->vkCreateCommandPool(vk->dev, &cpi, NULL, &vk->cpool), "vkCreateCommandPool", err,
               errlen))
        goto fail;
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = vk->cpool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = FMAG_VK_MAX_CHUNKS;
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (!vk_ok(vk->vkAllocateCommandBuffers(vk->dev, &cai, vk->cmd), "vkAllocateCommandBuffers",
               err, errlen))
        goto fail;
    for (unsigned i = 0; i < FMAG_VK_MAX_CHUNKS; ++i)
        if (!vk_ok(vk->vkCreateFence(vk->dev, &fci, NULL, &vk->fence[i]), "vkCreateFence", err,
                   errlen))
            goto fail;

    /* A CPU driver (lavapipe) fuses fma() only on some of its code paths: never trust it.
     * Elsewhere the probe decides. */
    int fma_bad = 0, den_bad = 0;
    bool cpu = vk->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    if (!cpu && !vk_probe(vk, false, &fma_bad, &den_bad, err, errlen)) goto fail;
    vk->soft_fma = cpu || fma_bad > 0;
    if (vk->soft_fma) {
        if (!vk->has_f64) {
            fmag_gpu_err(err, errlen,
                         "Vulkan device '%s': fma() is not fused and there is no shaderFloat64 "
                         "for the exact software fma",
                         vk->props.deviceName);
            goto fail;
        }
        if (!vk_probe(vk, true, &fma_bad, &den_bad, err, errlen)) goto fail;
        if (fma_bad > 0) {
            fmag_gpu_err(err, errlen,
                         "Vulkan device '%s': the software fma is not exact (%d of %d probes)",
                         vk->props.deviceName, fma_bad, PROBE_N);
            goto fail;
        }
    }
    snprintf(desc, desclen,
             "vulkan: %s (driver %u.%u.%u, api %u.%u); fma: %s; float32 denormals: %s",
             vk->props.deviceName, VK_VERSION_MAJOR(vk->props.driverVersion),
             VK_VERSION_MINOR(vk->props.driverVersion), VK_VERSION_PATCH(vk->props.driverVersion),
             VK_VERSION_MAJOR(vk->props.apiVersion), VK_VERSION_MINOR(vk->props.apiVersion),
             vk->soft_fma ? (cpu ? "software (float64, round-to-odd; CPU driver)"
                                 : "software (float64, round-to-odd; fma() not fused)")
                          : "fused fma()",
             den_bad ? "flushed to zero (results differ from the reference where an evaluation "
                       "produces a denormal)"
                     : "preserved");
    return vk;
fail:
    vk_destroy(vk);
    return NULL;
}

void *fmag_gpu_vk_pipeline_from_spirv(fmag_gpu_vk *vk, const uint32_t *words, size_t nwords,
                                      char *err, size_t errlen)
{
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = nwords * 4;
    mi.pCode = words;
    VkShaderModule mod = VK_NULL_HANDLE;
    if (!vk_ok(vk->vkCreateShaderModule(vk->dev, &mi, NULL, &mod), "vkCreateShaderModule", err,
               errlen))
        return NULL;
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    if (vk->has_stats) ci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = mod;
    ci.stage.pName = "main";
    ci.layout = vk->layout;
    VkPipeline pipe = VK_NULL_HANDLE;
    bool ok = vk_ok(vk->vkCreateComputePipelines(vk->dev, VK_NULL_HANDLE, 1, &ci, NULL, &pipe),
                    "vkCreateComputePipelines", err, errlen);
    vk->vkDestroyShaderModule(vk->dev, mod, NULL);
    return ok ? (void *)pipe : NULL;
}

void fmag_gpu_vk_pipeline_release(fmag_gpu_vk *vk, void *pipe)
{
    vk->vkDestroyPipeline(vk->dev, (VkPipeline)pipe, NULL);
}

bool fmag_gpu_vk_soft_fma(const fmag_gpu_vk *vk)
{
    return vk->soft_fma;
}

bool fmag_gpu_vk_is_cpu(const fmag_gpu_vk *vk)
{
    return vk->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
}

static bool vk_baker(void *impl, struct fmag_gpu_baker *out)
{
    return fmag_gpu_vk_baker(impl, out);
}

static bool vk_native(void *impl, fmag_gpu_native *out)
{
    fmag_gpu_vk *vk = impl;
    out->api = FMAG_GPU_VULKAN;
    out->instance = (void *)vk->inst, out->physical_device = (void *)vk->phys;
    out->device = (void *)vk->dev, out->queue_family = vk->qfam;
    out->get_instance_proc_addr = *(void **)&vk->gipa;
    return true;
}

static void vk_counters(void *impl, fmag_gpu_counters *out)
{
    *out = ((fmag_gpu_vk *)impl)->count;
}

const fmag_gpu_backend fmag_gpu_vk_backend = {
    .name = "vulkan",
    .max_regs = FMAG_GPU_VK_MAX_REGS,
    .create = vk_create,
    .destroy = vk_destroy,
    .run = vk_run,
    .last_launch = vk_last_launch,
    .native = vk_native,
    .counters = vk_counters,
    .set_design = vk_set_design,
    .set_fast = vk_set_fast,
    .set_capture_ir = vk_set_capture_ir,
    .last_ir = vk_last_ir,
    .baker = vk_baker,
    .bin_count = vk_bin_count,
    .bin_scatter = vk_bin_scatter,
    .bin_gather = vk_bin_gather,
};

#endif /* FMAG_GPU_HAVE_VULKAN */
