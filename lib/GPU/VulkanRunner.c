/* Vulkan back end: runs the GLSL interpreter (gpu/fmag_run.comp, SPIR-V embedded at build
 * time) on any Vulkan 1.1 driver. libvulkan is loaded at run time, so binaries built with
 * Vulkan support run, and say why not, on machines without it. */
#define _GNU_SOURCE /* dl_iterate_phdr, for the ASan build's driver pinning */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "GPUInternal.h"
#include "fmag_gpu_host.h"

#ifndef FMAG_GPU_HAVE_VULKAN

struct fmag_gpu_vk {
    int unused;
};
fmag_gpu_vk *fmag_gpu_vk_create(char *desc, size_t desclen, char *err, size_t errlen)
{
    (void)desc, (void)desclen;
    fmag_gpu_err(err, errlen,
                 "Vulkan backend not built (glslc or the Vulkan headers missing, or "
                 "FMAG_ENABLE_VULKAN=OFF, at build time)");
    return NULL;
}
void fmag_gpu_vk_destroy(fmag_gpu_vk *vk)
{
    (void)vk;
}
bool fmag_gpu_vk_run(fmag_gpu_vk *vk, const fmag_gpu_job *job, char *err, size_t errlen)
{
    (void)vk, (void)job;
    fmag_gpu_err(err, errlen, "Vulkan backend not built");
    return false;
}
void fmag_gpu_vk_set_design(fmag_gpu_vk *vk, fmag_gpu_vk_design d)
{
    (void)vk, (void)d;
}
void fmag_gpu_vk_set_fast(fmag_gpu_vk *vk, fmag_gpu_vk_fast_knobs k)
{
    (void)vk, (void)k;
}
void fmag_gpu_vk_last_launch(fmag_gpu_vk *vk, char *buf, size_t len)
{
    (void)vk;
    if (len) buf[0] = 0;
}
void fmag_gpu_vk_set_capture_ir(fmag_gpu_vk *vk, bool on)
{
    (void)vk, (void)on;
}
size_t fmag_gpu_vk_last_ir(fmag_gpu_vk *vk, char *buf, size_t len)
{
    (void)vk;
    if (len) buf[0] = 0;
    return 0;
}
bool fmag_gpu_vk_is_cpu(const fmag_gpu_vk *vk)
{
    (void)vk;
    return false;
}

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

/* The four builds of gpu/fmag_run.comp, indexed by FMAG_VK_VARIANT_* bits. */
extern const unsigned char fmag_spirv_fmag_run[], fmag_spirv_fmag_run_wg[],
    fmag_spirv_fmag_run_pd[], fmag_spirv_fmag_run_wg_pd[];
extern const size_t fmag_spirv_fmag_run_size, fmag_spirv_fmag_run_wg_size,
    fmag_spirv_fmag_run_pd_size, fmag_spirv_fmag_run_wg_pd_size;
/* gpu/fmag_fast.comp: K elements per invocation, records from a uniform buffer */
extern const unsigned char fmag_spirv_fmag_fast[];
extern const size_t fmag_spirv_fmag_fast_size;
extern const unsigned char fmag_spirv_fmag_fast_o0[];
extern const size_t fmag_spirv_fmag_fast_o0_size;
/* gpu/fmag_run.hlsl through glslang's HLSL front end (size 0 when not built) */
extern const unsigned char fmag_spirv_fmag_hlsl[];
extern const size_t fmag_spirv_fmag_hlsl_size;
/* fmag_fast.comp -DFMAG_VEC=2 / 4 (the VEC layout) and -DFMAG_SPEC_RECORDS (-O0) */
extern const unsigned char fmag_spirv_fmag_fast_v2[], fmag_spirv_fmag_fast_v4[],
    fmag_spirv_fmag_fast_spec[];
extern const size_t fmag_spirv_fmag_fast_v2_size, fmag_spirv_fmag_fast_v4_size,
    fmag_spirv_fmag_fast_spec_size;
#define FMAG_VK_VARIANT_WG 1u       /* workgroup register file */
#define FMAG_VK_VARIANT_PD 2u       /* pre-decoded records */
#define FMAG_VK_VARIANT_LITGUARD 4u /* pre-decoded code may hold literal guards <= 0 */
#define FMAG_VK_VARIANT_FAST 8u     /* gpu/fmag_fast.comp */
#define FMAG_VK_VARIANT_UBO 16u     /* fast, uniform: records from the uniform buffer */
#define FMAG_VK_VARIANT_HLSL 32u    /* fast, from gpu/fmag_run.hlsl */
#define FMAG_VK_VARIANT_O0 64u      /* fast, glslc -O0 */
#define FMAG_VK_VARIANT_BCAST 128u  /* fast, uniform: records through subgroupBroadcastFirst */
#define FMAG_VK_VARIANT_VEC 256u    /* fast, the VEC layout (k 2 or 4) */
#define FMAG_VK_VARIANT_SPEC 512u   /* fast, uniform: records as specialization constants */
#define FMAG_VK_VARIANT_BAKED 1024u /* the program baked to its own pipeline (BakeVulkan.c) */
/* the four builds of fmag_run.comp, fmag_fast, fmag_run.hlsl, fmag_fast -O0, fmag_fast VEC 2
 * and 4, fmag_fast with specialization-constant records */
#define FMAG_VK_NSHADERS 10
#define FMAG_VK_SPEC_MAX_RECORDS 64u /* gpu/fmag_spec_records.glsl */
#define FMAG_VK_UBO_BYTES 65536u     /* FMAG_UBO_RECORDS (fmag_fast.comp) records of 16 bytes */

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
    X(vkCmdPipelineBarrier)                                                                        \
    X(vkQueueSubmit)                                                                               \
    X(vkCreateFence)                                                                               \
    X(vkDestroyFence)                                                                              \
    X(vkWaitForFences)                                                                             \
    X(vkResetFences)

#define FMAG_VK_MAX_PIPELINES 32
#define FMAG_VK_LOCAL_SIZE 64u
#define FMAG_VK_MAX_GROUPS 65535u

typedef struct fmag_vk_pipeline {
    uint32_t rf, variant, k, wg;
    bool soft;
    uint64_t records; /* SPEC: hash of the records (with their count), else 0 */
    VkPipeline pipe;
} fmag_vk_pipeline;

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
    VkShaderModule shader[FMAG_VK_NSHADERS]; /* by FMAG_VK_VARIANT_* bits; [4]: fast */
    fmag_gpu_vk_design design;
    fmag_gpu_vk_fast_knobs fast; /* forced knobs of the fast design (0 / -1: automatic) */
    /* VK_KHR_pipeline_executable_properties: the driver's statistics of each pipeline */
    bool has_stats;
    /* VK_KHR_shader_float_controls with SignedZeroInfNanPreserve for float32: the records-as-
     * specialization-constants build needs it, or the driver folds inf*0 as 0 */
    bool has_ieee_consts;
    PFN_vkGetPipelineExecutableStatisticsKHR vkGetPipelineExecutableStatisticsKHR;
    PFN_vkGetPipelineExecutableInternalRepresentationsKHR
        vkGetPipelineExecutableInternalRepresentationsKHR;
    bool capture_ir;      /* pipelines keep the driver's internal representations */
    VkPipeline last_pipe; /* the pipeline of the last launch */
    uint32_t last_k, last_variant, last_wg;
    double last_create_ms; /* vkCreateComputePipelines of the last launch (0: cached) */
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkDescriptorPool dpool;
    VkDescriptorSet dset;
    VkCommandPool cpool;
    VkCommandBuffer cmd;
    VkFence fence;
    fmag_vk_pipeline pipes[FMAG_VK_MAX_PIPELINES];
    unsigned npipes;
};

typedef struct fmag_vk_buf {
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize size;
} fmag_vk_buf;

typedef struct fmag_vk_pc {
    uint32_t n, in_stride, out_stride, nprogs;
    uint32_t per_lane, evals, base, code_stride;
    uint32_t zero_init, ninstr, nin, nout; /* fmag_fast.comp reads the last three */
    uint32_t lane_kinds, pad0, pad1, pad2; /* fmag_fast.comp, per lane: kinds agree */
} fmag_vk_pc;

static bool vk_ok(VkResult r, const char *what, char *err, size_t errlen)
{
    if (r == VK_SUCCESS) return true;
    fmag_gpu_err(err, errlen, "Vulkan: %s failed (VkResult %d)", what, (int)r);
    return false;
}

void fmag_gpu_vk_destroy(fmag_gpu_vk *vk)
{
    if (!vk) return;
    if (vk->dev) {
        for (unsigned i = 0; i < vk->npipes; ++i)
            vk->vkDestroyPipeline(vk->dev, vk->pipes[i].pipe, NULL);
        if (vk->fence) vk->vkDestroyFence(vk->dev, vk->fence, NULL);
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

static double now_ms(void);

/* FNV-1a over a SPEC launch's records: the pipeline cache's key for them. */
static uint64_t records_hash(const fmag_gpu_word4 *rec, uint32_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    const unsigned char *b = (const unsigned char *)rec;
    for (size_t i = 0; i < (size_t)n * 16; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* rec/nrec: the records of a SPEC pipeline (specialization constants 16..), else unused. */
static VkPipeline get_pipeline(fmag_gpu_vk *vk, uint32_t rf, bool soft, uint32_t variant,
                               uint32_t k, uint32_t wg, const fmag_gpu_word4 *rec, uint32_t nrec,
                               char *err, size_t errlen)
{
    bool specrec = (variant & FMAG_VK_VARIANT_SPEC) != 0;
    uint64_t hash = specrec ? records_hash(rec, nrec) : 0;
    vk->last_create_ms = 0;
    for (unsigned i = 0; i < vk->npipes; ++i)
        if (vk->pipes[i].rf == rf && vk->pipes[i].soft == soft && vk->pipes[i].variant == variant &&
            vk->pipes[i].k == k && vk->pipes[i].wg == wg && vk->pipes[i].records == hash)
            return vk->pipes[i].pipe;
    /* constant ids 0-6, then (SPEC) 16 = the record count and 17 + 4 i + c = word c of
     * record i */
    enum { NBASE = 7, NSPEC = 1 + 4 * FMAG_VK_SPEC_MAX_RECORDS };
    VkSpecializationMapEntry ent[NBASE + NSPEC];
    uint32_t data[NBASE + NSPEC];
    for (uint32_t i = 0; i < NBASE + NSPEC; ++i)
        ent[i] = (VkSpecializationMapEntry){i < NBASE ? i : 16 + (i - NBASE), 4 * i, 4};
    data[0] = rf, data[1] = soft ? 1u : 0u;
    data[2] = (variant & FMAG_VK_VARIANT_LITGUARD) ? 1u : 0u;
    data[3] = k, data[4] = (variant & FMAG_VK_VARIANT_UBO) ? 1u : 0u;
    data[5] = (variant & FMAG_VK_VARIANT_BCAST) ? 1u : 0u, data[6] = wg;
    uint32_t nent = NBASE;
    if (specrec) {
        memset(data + NBASE, 0, sizeof data - NBASE * 4);
        data[NBASE] = nrec;
        memcpy(data + NBASE + 1, rec, (size_t)nrec * 16);
        nent = NBASE + NSPEC;
    }
    bool fast = (variant & FMAG_VK_VARIANT_FAST) != 0;
    /* ids absent from a shader (2 in fmag_fast.comp, 3-6 in fmag_run.comp, 5-6 in the HLSL
     * build) do not affect it (Vulkan spec, VkSpecializationInfo) */
    VkSpecializationInfo spec = {fast ? nent : 3, ent, nent * 4, data};
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    if (vk->has_stats) ci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    if (vk->has_stats && vk->capture_ir)
        ci.flags |= VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = vk->shader[variant & FMAG_VK_VARIANT_HLSL  ? 5
                                 : variant & FMAG_VK_VARIANT_O0  ? 6
                                 : variant & FMAG_VK_VARIANT_VEC ? (k == 2 ? 7 : 8)
                                 : specrec                       ? 9
                                 : fast                          ? 4
                                                                 : variant & 3u];
    if (!ci.stage.module) {
        fmag_gpu_err(err, errlen, "Vulkan: the HLSL shader was not built (glslangValidator)");
        return VK_NULL_HANDLE;
    }
    ci.stage.pName = "main";
    ci.stage.pSpecializationInfo = &spec;
    ci.layout = vk->layout;
    VkPipeline pipe = VK_NULL_HANDLE;
    double t0 = now_ms();
    if (!vk_ok(vk->vkCreateComputePipelines(vk->dev, VK_NULL_HANDLE, 1, &ci, NULL, &pipe),
               "vkCreateComputePipelines", err, errlen))
        return VK_NULL_HANDLE;
    vk->last_create_ms = now_ms() - t0;
    if (vk->npipes == FMAG_VK_MAX_PIPELINES) {
        vk->vkDestroyPipeline(vk->dev, vk->pipes[0].pipe, NULL);
        memmove(&vk->pipes[0], &vk->pipes[1], (FMAG_VK_MAX_PIPELINES - 1) * sizeof vk->pipes[0]);
        --vk->npipes;
    }
    vk->pipes[vk->npipes++] = (fmag_vk_pipeline){rf, variant, k, wg, soft, hash, pipe};
    return pipe;
}

static int find_memory(const fmag_gpu_vk *vk, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < vk->mem.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (vk->mem.memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

static void buf_free(fmag_gpu_vk *vk, fmag_vk_buf *b)
{
    if (b->buf) vk->vkDestroyBuffer(vk->dev, b->buf, NULL);
    if (b->mem) vk->vkFreeMemory(vk->dev, b->mem, NULL);
    memset(b, 0, sizeof *b);
}

static bool buf_alloc(fmag_gpu_vk *vk, fmag_vk_buf *b, VkDeviceSize size, bool host, char *err,
                      size_t errlen)
{
    memset(b, 0, sizeof *b);
    b->size = size < 16 ? 16 : size;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = b->size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (!vk_ok(vk->vkCreateBuffer(vk->dev, &bi, NULL, &b->buf), "vkCreateBuffer", err, errlen))
        return false;
    VkMemoryRequirements req;
    vk->vkGetBufferMemoryRequirements(vk->dev, b->buf, &req);
    int type = host ? find_memory(vk, req.memoryTypeBits,
                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
                    : find_memory(vk, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type < 0 && !host) type = find_memory(vk, req.memoryTypeBits, 0);
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
               errlen)) {
        buf_free(vk, b);
        return false;
    }
    return true;
}

static void barrier(fmag_gpu_vk *vk, VkAccessFlags src, VkAccessFlags dst,
                    VkPipelineStageFlags sstage, VkPipelineStageFlags dstage)
{
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = src;
    mb.dstAccessMask = dst;
    vk->vkCmdPipelineBarrier(vk->cmd, sstage, dstage, 0, 1, &mb, 0, NULL, 0, NULL);
}

static bool submit_wait(fmag_gpu_vk *vk, char *err, size_t errlen)
{
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &vk->cmd;
    if (!vk_ok(vk->vkResetFences(vk->dev, 1, &vk->fence), "vkResetFences", err, errlen) ||
        !vk_ok(vk->vkQueueSubmit(vk->queue, 1, &si, vk->fence), "vkQueueSubmit", err, errlen) ||
        !vk_ok(vk->vkWaitForFences(vk->dev, 1, &vk->fence, VK_TRUE, UINT64_MAX), "vkWaitForFences",
               err, errlen))
        return false;
    return true;
}

static bool begin(fmag_gpu_vk *vk, char *err, size_t errlen)
{
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    return vk_ok(vk->vkResetCommandBuffer(vk->cmd, 0), "vkResetCommandBuffer", err, errlen) &&
           vk_ok(vk->vkBeginCommandBuffer(vk->cmd, &bi), "vkBeginCommandBuffer", err, errlen);
}

/* k: elements per invocation and wg invocations a workgroup (the fast design; else 1, 64) */
static void record_dispatch(fmag_gpu_vk *vk, VkPipeline pipe, fmag_vk_pc pc, uint32_t k,
                            uint32_t wg)
{
    vk->vkCmdBindPipeline(vk->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    vk->vkCmdBindDescriptorSets(vk->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->layout, 0, 1,
                                &vk->dset, 0, NULL);
    uint32_t group = wg * k;
    uint64_t per = (uint64_t)group * FMAG_VK_MAX_GROUPS;
    for (uint64_t base = 0; base < pc.n; base += per) {
        pc.base = (uint32_t)base;
        uint64_t left = pc.n - base, groups = (left + group - 1) / group;
        if (groups > FMAG_VK_MAX_GROUPS) groups = FMAG_VK_MAX_GROUPS;
        vk->vkCmdPushConstants(vk->cmd, vk->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
        vk->vkCmdDispatch(vk->cmd, (uint32_t)groups, 1, 1);
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void fmag_gpu_vk_set_design(fmag_gpu_vk *vk, fmag_gpu_vk_design d)
{
    vk->design = d;
}

void fmag_gpu_vk_set_fast(fmag_gpu_vk *vk, fmag_gpu_vk_fast_knobs k)
{
    vk->fast = k;
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
    bool hlsl = d == FMAG_GPU_VK_HLSL, o0 = d == FMAG_GPU_VK_FAST_O0;
    if (pl.rf <= 256 && (d == FMAG_GPU_VK_AUTO || d == FMAG_GPU_VK_FAST || hlsl || o0)) {
        uint32_t k = vk->fast.k;
        size_t row = 0;
        while (fmag_vk_fast_table[row].max_rf < pl.rf)
            ++row;
        uint32_t k_table =
            pl.lanes ? fmag_vk_fast_table[row].k_lane : fmag_vk_fast_table[row].k_uniform;
        if (!k) {
            k = k_table;
            /* 0: fmag_run.comp, unless a fast design is forced */
            if (!k) k = d == FMAG_GPU_VK_AUTO ? 0 : 1;
        }
        /* the HLSL build has 64 invocations a workgroup */
        uint32_t wg = vk->fast.wg && !hlsl ? vk->fast.wg : FMAG_VK_LOCAL_SIZE;
        while (k > 1 && (!fast_fits(vk, pl.rf, k, wg) || (pl.lanes && !lanes_share(job, k, wg))))
            k /= 2;
        if (k && fast_fits(vk, pl.rf, k, wg)) {
            pl.fast = true, pl.k = k, pl.wg = wg;
            bool glsl = !hlsl && !o0;
            bool vec_auto =
                vk->fast.vec == -1 && k == k_table &&
                (pl.lanes ? fmag_vk_fast_table[row].vec_lane : fmag_vk_fast_table[row].vec_uniform);
            bool vec = glsl && (vk->fast.vec == 1 || vec_auto) && (k == 2 || k == 4);
            bool specrec = glsl && !vec && !pl.lanes && vk->fast.spec == 1 && vk->has_ieee_consts &&
                           job->progs[0]->ninstr <= FMAG_VK_SPEC_MAX_RECORDS;
            pl.fuse = vk->fast.fuse != 0; /* fused unless forced off (PERFORMANCE.md) */
            pl.ubo = !pl.lanes && vk->fast.ubo != 0 &&
                     vk->props.limits.maxUniformBufferRange >= FMAG_VK_UBO_BYTES &&
                     job->progs[0]->ninstr <= FMAG_VK_UBO_BYTES / 16;
            pl.il = pl.lanes && maxlen * job->nprogs <= 4 * ncode;
            pl.kinds = pl.lanes && vk->fast.fuse != 0 && lane_kinds_agree(job, maxlen);
            pl.variant = FMAG_VK_VARIANT_FAST | (pl.ubo ? FMAG_VK_VARIANT_UBO : 0u) |
                         (hlsl ? FMAG_VK_VARIANT_HLSL : 0u) | (o0 ? FMAG_VK_VARIANT_O0 : 0u) |
                         (!pl.lanes && !hlsl && vk->fast.bcast == 1 ? FMAG_VK_VARIANT_BCAST : 0u) |
                         (vec ? FMAG_VK_VARIANT_VEC : 0u) | (specrec ? FMAG_VK_VARIANT_SPEC : 0u);
            return pl;
        }
    }
    /* fmag_run.comp (docs/GPU.md, measured in docs/PERFORMANCE.md): the workgroup register
     * file for the sizes where it measured faster; per-lane code interleaved [instr][program]
     * unless padding every program to the longest would make the code over 4 times larger. */
    bool forced_pd = d == FMAG_GPU_VK_PRIVATE_PREDECODED || d == FMAG_GPU_VK_WORKGROUP_PREDECODED;
    bool auto_wg = d == FMAG_GPU_VK_AUTO || d == FMAG_GPU_VK_FAST || hlsl || o0;
    pl.pd = pl.rf <= 256 && (forced_pd || auto_wg);
    bool wg_fits =
        (uint64_t)pl.rf * FMAG_VK_LOCAL_SIZE * 4u <= vk->props.limits.maxComputeSharedMemorySize;
    bool wg =
        wg_fits &&
        (d == FMAG_GPU_VK_WORKGROUP || d == FMAG_GPU_VK_WORKGROUP_INTERLEAVED ||
         d == FMAG_GPU_VK_WORKGROUP_PREDECODED ||
         (auto_wg && pl.rf <= (pl.lanes ? FMAG_VK_WG_MAX_REGS_LANE : FMAG_VK_WG_MAX_REGS_UNIFORM)));
    pl.il = pl.lanes &&
            (d == FMAG_GPU_VK_PRIVATE_INTERLEAVED || d == FMAG_GPU_VK_WORKGROUP_INTERLEAVED ||
             forced_pd || (auto_wg && maxlen * job->nprogs <= 4 * ncode));
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

/* Runs one job with the given fma mode. */
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
    if (!code) {
        fmag_gpu_err(err, errlen, "out of memory");
        return false;
    }
    VkPipeline pipe = VK_NULL_HANDLE;
    if (job->native) { /* baked: one element an invocation, FMAG_VK_LOCAL_SIZE a workgroup */
        pipe = (VkPipeline)job->native;
        pl.k = 1, pl.wg = FMAG_VK_LOCAL_SIZE, pl.variant = FMAG_VK_VARIANT_BAKED;
        vk->last_create_ms = 0;
    } else {
        pipe = get_pipeline(vk, rf, soft, pl.variant, pl.k, pl.wg, code, nrec, err, errlen);
    }
    if (!pipe) {
        free(code);
        return false;
    }
    vk->last_pipe = pipe, vk->last_variant = pl.variant, vk->last_k = pl.k, vk->last_wg = pl.wg;
    /* Zero-initialisation only where a register may be read before it is written. */
    uint8_t *scratch = malloc(rf);
    if (!code || !scratch) {
        free(code);
        free(scratch);
        fmag_gpu_err(err, errlen, "out of memory");
        return false;
    }
    bool zero = false;
    for (size_t k = 0; k < job->nprogs && !zero; ++k) {
        const fmag_vm_program *p = job->progs[k];
        zero = fmag_gpu_needs_zero_init((const fmag_gpu_word4 *)p->code, p->ninstr, p->nin, p->nout,
                                        rf, scratch);
    }
    free(scratch);
    /* Buffers: code, table {first, ninstr, nin, nout}, index, in, out, uniform records. */
    size_t sz[6];
    sz[0] = ((size_t)nrec + job->nprogs + 1) * 16; /* with build_code's padding */
    sz[1] = job->nprogs * 16;
    sz[2] = job->prog_index ? job->n * 4 : 4;
    sz[3] = job->n * job->in_stride * 4;
    sz[4] = job->n * job->out_stride * 4;
    sz[5] = FMAG_VK_UBO_BYTES;
    size_t off[6], total = 0;
    for (int i = 0; i < 6; ++i) {
        off[i] = total;
        total += (sz[i] + 255) & ~(size_t)255;
    }
    fmag_vk_buf dbuf[6], stage;
    memset(dbuf, 0, sizeof dbuf);
    memset(&stage, 0, sizeof stage);
    bool ok = buf_alloc(vk, &stage, total, true, err, errlen);
    for (int i = 0; ok && i < 6; ++i)
        ok = buf_alloc(vk, &dbuf[i], sz[i], false, err, errlen);
    unsigned char *map = NULL;
    if (ok)
        ok = vk_ok(vk->vkMapMemory(vk->dev, stage.mem, 0, VK_WHOLE_SIZE, 0, (void **)&map),
                   "vkMapMemory", err, errlen);
    if (ok) {
        memcpy(map + off[0], code, sz[0]);
        memset(map + off[5], 0, sz[5]);
        if (pl.ubo) memcpy(map + off[5], code, (size_t)nrec * 16);
        uint32_t first = 0;
        for (size_t k = 0; k < job->nprogs; ++k) {
            const fmag_vm_program *p = job->progs[k];
            uint32_t h[4] = {pl.il ? (uint32_t)k : first, p->ninstr, p->nin, p->nout};
            if ((pl.pd || pl.fast) && !pl.lanes) h[0] = 0, h[1] = nrec;
            memcpy(map + off[1] + k * 16, h, 16);
            first += p->ninstr;
        }
        if (job->prog_index)
            memcpy(map + off[2], job->prog_index, sz[2]);
        else
            memset(map + off[2], 0, 4);
        if (job->in) memcpy(map + off[3], job->in, sz[3]);
        VkDescriptorBufferInfo bi[6];
        VkWriteDescriptorSet wr[6];
        for (int i = 0; i < 6; ++i) {
            bi[i] = (VkDescriptorBufferInfo){dbuf[i].buf, 0, VK_WHOLE_SIZE};
            wr[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            wr[i].dstSet = vk->dset;
            wr[i].dstBinding = (uint32_t)i;
            wr[i].descriptorCount = 1;
            wr[i].descriptorType =
                i == 5 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            wr[i].pBufferInfo = &bi[i];
        }
        uint32_t ubo_range = vk->props.limits.maxUniformBufferRange;
        bi[5].range = ubo_range < FMAG_VK_UBO_BYTES ? ubo_range : FMAG_VK_UBO_BYTES;
        vk->vkUpdateDescriptorSets(vk->dev, 6, wr, 0, NULL);
        ok = begin(vk, err, errlen);
    }
    const fmag_vm_program *p0 = job->progs[0];
    fmag_vk_pc pc = {(uint32_t)job->n,
                     (uint32_t)job->in_stride,
                     (uint32_t)job->out_stride,
                     (uint32_t)job->nprogs,
                     pl.lanes || job->prog_index != NULL,
                     job->evals,
                     0,
                     pl.il ? (uint32_t)job->nprogs : 1u,
                     zero,
                     nrec,
                     p0->nin,
                     p0->nout,
                     pl.kinds,
                     0,
                     0,
                     0};
    if (!pl.lanes && pl.fast) pc.per_lane = 0; /* one program for every element */
    if (ok) {
        for (int i = 0; i < 6; ++i) {
            if (i == 4) continue; /* out: written by the shader */
            VkBufferCopy c = {off[i], 0, sz[i] ? sz[i] : 4};
            vk->vkCmdCopyBuffer(vk->cmd, stage.buf, dbuf[i].buf, 1, &c);
        }
        barrier(vk, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_UNIFORM_READ_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        record_dispatch(vk, pipe, pc, pl.k, pl.wg);
        barrier(vk, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
        VkBufferCopy c = {0, off[4], sz[4]};
        vk->vkCmdCopyBuffer(vk->cmd, dbuf[4].buf, stage.buf, 1, &c);
        ok = vk_ok(vk->vkEndCommandBuffer(vk->cmd), "vkEndCommandBuffer", err, errlen) &&
             submit_wait(vk, err, errlen);
    }
    if (ok) fmag_gpu_copy_outputs(job, (const float *)(map + off[4]));
    /* Timing: the dispatches alone, on the resident buffers. */
    if (ok && job->reps) {
        double *t = calloc(job->reps, sizeof *t);
        ok = t != NULL;
        for (unsigned r = 0; ok && r < job->reps + 1; ++r) {
            ok = begin(vk, err, errlen);
            if (!ok) break;
            record_dispatch(vk, pipe, pc, pl.k, pl.wg);
            ok = vk_ok(vk->vkEndCommandBuffer(vk->cmd), "vkEndCommandBuffer", err, errlen);
            double t0 = now_ms();
            ok = ok && submit_wait(vk, err, errlen);
            if (r > 0) /* the first launch warms up */
                t[r - 1] = now_ms() - t0;
        }
        if (ok) *job->median_ms = fmag_gpu_median(t, job->reps);
        free(t);
    }
    if (map) vk->vkUnmapMemory(vk->dev, stage.mem);
    for (int i = 0; i < 6; ++i)
        buf_free(vk, &dbuf[i]);
    buf_free(vk, &stage);
    free(code);
    return ok;
}

/* The design and the driver's statistics of the last launch's pipeline. */
void fmag_gpu_vk_last_launch(fmag_gpu_vk *vk, char *buf, size_t len)
{
    if (!len) return;
    buf[0] = 0;
    if (!vk->last_pipe) return;
    /* the design's name: the first row whose bits the variant has */
    static const struct {
        uint32_t bits;
        const char *name;
    } names[] = {{FMAG_VK_VARIANT_BAKED, "baked"},
                 {FMAG_VK_VARIANT_HLSL, "hlsl"},
                 {FMAG_VK_VARIANT_O0, "fast-O0"},
                 {FMAG_VK_VARIANT_BCAST, "fast-bcast"},
                 {FMAG_VK_VARIANT_VEC, "fast-vec"},
                 {FMAG_VK_VARIANT_SPEC, "fast-specrec"},
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
                         (unsigned)vk->last_k, (unsigned)vk->last_wg, vk->last_create_ms,
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

void fmag_gpu_vk_set_capture_ir(fmag_gpu_vk *vk, bool on)
{
    vk->capture_ir = on;
}

/* The driver's internal representations of the last launch's pipeline (captured when
 * capture_ir was on at its creation): "== name (description)" then the text, each in turn;
 * returns the length of the whole text (buf holds at most len - 1 bytes of it). */
size_t fmag_gpu_vk_last_ir(fmag_gpu_vk *vk, char *buf, size_t len)
{
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

bool fmag_gpu_vk_run(fmag_gpu_vk *vk, const fmag_gpu_job *job, char *err, size_t errlen)
{
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

fmag_gpu_vk *fmag_gpu_vk_create(char *desc, size_t desclen, char *err, size_t errlen)
{
    fmag_gpu_vk *vk = calloc(1, sizeof *vk);
    if (!vk) {
        fmag_gpu_err(err, errlen, "out of memory");
        return NULL;
    }
    vk->fast = (fmag_gpu_vk_fast_knobs){0, -1, -1, -1, 0, -1, -1};
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
    const char *ext_fc = VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME;
    const char *exts[2];
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
        bool have_fc = false;
        if (ext && next)
            for (uint32_t i = 0; i < next; ++i)
                have_fc = have_fc || !strcmp(ext[i].extensionName, ext_fc);
        free(ext);
        if (have_fc) {
            VkPhysicalDeviceFloatControlsPropertiesKHR fc = {
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES_KHR};
            VkPhysicalDeviceProperties2 p2 = {
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &fc};
            vk->vkGetPhysicalDeviceProperties2(vk->phys, &p2);
            vk->has_ieee_consts = fc.shaderSignedZeroInfNanPreserveFloat32 == VK_TRUE;
        }
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
        if (vk->has_ieee_consts) exts[nexts++] = ext_fc;
        dci.enabledExtensionCount = nexts;
        dci.ppEnabledExtensionNames = nexts ? exts : NULL;
    }
    if (!vk_ok(vk->vkCreateDevice(vk->phys, &dci, NULL, &vk->dev), "vkCreateDevice", err, errlen))
        goto fail;
    FMAG_PIN_DRIVER_MODULES();
    vk->vkGetDeviceQueue(vk->dev, vk->qfam, 0, &vk->queue);

    VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    const unsigned char *spv[FMAG_VK_NSHADERS] = {
        fmag_spirv_fmag_run,       fmag_spirv_fmag_run_wg,  fmag_spirv_fmag_run_pd,
        fmag_spirv_fmag_run_wg_pd, fmag_spirv_fmag_fast,    fmag_spirv_fmag_hlsl,
        fmag_spirv_fmag_fast_o0,   fmag_spirv_fmag_fast_v2, fmag_spirv_fmag_fast_v4,
        fmag_spirv_fmag_fast_spec};
    const size_t spv_size[FMAG_VK_NSHADERS] = {
        fmag_spirv_fmag_run_size,       fmag_spirv_fmag_run_wg_size,  fmag_spirv_fmag_run_pd_size,
        fmag_spirv_fmag_run_wg_pd_size, fmag_spirv_fmag_fast_size,    fmag_spirv_fmag_hlsl_size,
        fmag_spirv_fmag_fast_o0_size,   fmag_spirv_fmag_fast_v2_size, fmag_spirv_fmag_fast_v4_size,
        fmag_spirv_fmag_fast_spec_size};
    for (int i = 0; i < FMAG_VK_NSHADERS; ++i) {
        if (!spv_size[i]) continue; /* the HLSL build, where glslangValidator was missing */
        if (spv[i] == fmag_spirv_fmag_fast_spec && !vk->has_ieee_consts) continue;
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
    cai.commandBufferCount = 1;
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (!vk_ok(vk->vkAllocateCommandBuffers(vk->dev, &cai, &vk->cmd), "vkAllocateCommandBuffers",
               err, errlen) ||
        !vk_ok(vk->vkCreateFence(vk->dev, &fci, NULL, &vk->fence), "vkCreateFence", err, errlen))
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
    fmag_gpu_vk_destroy(vk);
    return NULL;
}

#endif /* FMAG_GPU_HAVE_VULKAN */
