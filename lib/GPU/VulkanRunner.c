/* Vulkan back end: runs the GLSL interpreter (gpu/fmag_run.comp, SPIR-V embedded at build
 * time) on any Vulkan 1.1 driver. libvulkan is loaded at run time, so binaries built with
 * Vulkan support run, and say why not, on machines without it. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "GPUInternal.h"
#include "../../gpu/fmag_gpu_host.h"

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

#else

#include <dlfcn.h>
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

/* The four builds of gpu/fmag_run.comp, indexed by FMAG_VK_VARIANT_* bits. */
extern const unsigned char fmag_spirv_fmag_run[], fmag_spirv_fmag_run_wg[],
    fmag_spirv_fmag_run_pd[], fmag_spirv_fmag_run_wg_pd[];
extern const size_t fmag_spirv_fmag_run_size, fmag_spirv_fmag_run_wg_size,
    fmag_spirv_fmag_run_pd_size, fmag_spirv_fmag_run_wg_pd_size;
#define FMAG_VK_VARIANT_WG 1u       /* workgroup register file */
#define FMAG_VK_VARIANT_PD 2u       /* pre-decoded records */
#define FMAG_VK_VARIANT_LITGUARD 4u /* pre-decoded code may hold literal guards <= 0 */

#define FMAG_VK_FUNCS(X)                                                                           \
    X(vkDestroyInstance)                                                                           \
    X(vkEnumeratePhysicalDevices)                                                                  \
    X(vkGetPhysicalDeviceProperties)                                                               \
    X(vkGetPhysicalDeviceFeatures)                                                                 \
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
    uint32_t rf, variant;
    bool soft;
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
    VkShaderModule shader[4]; /* by variant: FMAG_VK_VARIANT_* bits */
    fmag_gpu_vk_design design;
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
    uint32_t zero_init, pad0, pad1, pad2;
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
        for (int i = 0; i < 4; ++i)
            if (vk->shader[i]) vk->vkDestroyShaderModule(vk->dev, vk->shader[i], NULL);
        vk->vkDestroyDevice(vk->dev, NULL);
    }
    if (vk->inst) vk->vkDestroyInstance(vk->inst, NULL);
    if (vk->lib) dlclose(vk->lib);
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

static VkPipeline get_pipeline(fmag_gpu_vk *vk, uint32_t rf, bool soft, uint32_t variant, char *err,
                               size_t errlen)
{
    for (unsigned i = 0; i < vk->npipes; ++i)
        if (vk->pipes[i].rf == rf && vk->pipes[i].soft == soft && vk->pipes[i].variant == variant)
            return vk->pipes[i].pipe;
    VkSpecializationMapEntry ent[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
    uint32_t data[3] = {rf, soft ? 1u : 0u, (variant & FMAG_VK_VARIANT_LITGUARD) ? 1u : 0u};
    VkSpecializationInfo spec = {3, ent, sizeof data, data};
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = vk->shader[variant & 3u];
    ci.stage.pName = "main";
    ci.stage.pSpecializationInfo = &spec;
    ci.layout = vk->layout;
    VkPipeline pipe = VK_NULL_HANDLE;
    if (!vk_ok(vk->vkCreateComputePipelines(vk->dev, VK_NULL_HANDLE, 1, &ci, NULL, &pipe),
               "vkCreateComputePipelines", err, errlen))
        return VK_NULL_HANDLE;
    if (vk->npipes == FMAG_VK_MAX_PIPELINES) {
        vk->vkDestroyPipeline(vk->dev, vk->pipes[0].pipe, NULL);
        memmove(&vk->pipes[0], &vk->pipes[1], (FMAG_VK_MAX_PIPELINES - 1) * sizeof vk->pipes[0]);
        --vk->npipes;
    }
    vk->pipes[vk->npipes++] = (fmag_vk_pipeline){rf, variant, soft, pipe};
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
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
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

static void record_dispatch(fmag_gpu_vk *vk, VkPipeline pipe, fmag_vk_pc pc)
{
    vk->vkCmdBindPipeline(vk->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    vk->vkCmdBindDescriptorSets(vk->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->layout, 0, 1,
                                &vk->dset, 0, NULL);
    uint32_t per = FMAG_VK_LOCAL_SIZE * FMAG_VK_MAX_GROUPS;
    for (uint32_t base = 0; base < pc.n; base += per) {
        pc.base = base;
        uint32_t left = pc.n - base, groups = (left + FMAG_VK_LOCAL_SIZE - 1) / FMAG_VK_LOCAL_SIZE;
        if (groups > FMAG_VK_MAX_GROUPS) groups = FMAG_VK_MAX_GROUPS;
        vk->vkCmdPushConstants(vk->cmd, vk->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
        vk->vkCmdDispatch(vk->cmd, groups, 1, 1);
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

/* Largest register files the workgroup design is used for by default (FMAG_GPU_VK_AUTO),
 * uniform and per lane: on the H200 it was faster than the private array up to these sizes
 * (uniform 1.5-32%; per lane, with interleaved code, 2.3-5.2x) and 29-43% slower on uniform
 * programs at rf 32 (docs/PERFORMANCE.md). */
#define FMAG_VK_WG_MAX_REGS_UNIFORM 16u
#define FMAG_VK_WG_MAX_REGS_LANE 32u
/* 1: uniform / per-lane launches run pre-decoded records by default. */
#define FMAG_VK_AUTO_PREDECODE 1
#define FMAG_VK_AUTO_PREDECODE_LANES 1

/* Runs one job with the given fma mode. */
static bool vk_run_mode(fmag_gpu_vk *vk, const fmag_gpu_job *job, bool soft, char *err,
                        size_t errlen)
{
    uint32_t rf = fmag_gpu_pow2_regs(job->max_regs < 4 ? 4 : job->max_regs);
    size_t ncode = 0, maxlen = 0;
    for (size_t k = 0; k < job->nprogs; ++k) {
        ncode += job->progs[k]->ninstr;
        if (job->progs[k]->ninstr > maxlen) maxlen = job->progs[k]->ninstr;
    }
    /* Design (docs/GPU.md, measured in docs/PERFORMANCE.md): the workgroup register file
     * for the sizes where it measured faster; per-lane code interleaved [instr][program]
     * unless padding every program to the longest would make the code over 4 times larger. */
    fmag_gpu_vk_design d = vk->design;
    bool lanes = job->prog_index && job->nprogs > 1;
    bool forced_pd = d == FMAG_GPU_VK_PRIVATE_PREDECODED || d == FMAG_GPU_VK_WORKGROUP_PREDECODED;
    bool pd = rf <= 256 &&
              (forced_pd || (d == FMAG_GPU_VK_AUTO &&
                             (lanes ? FMAG_VK_AUTO_PREDECODE_LANES : FMAG_VK_AUTO_PREDECODE)));
    bool wg_fits =
        (uint64_t)rf * FMAG_VK_LOCAL_SIZE * 4u <= vk->props.limits.maxComputeSharedMemorySize;
    bool wg = wg_fits && (d == FMAG_GPU_VK_WORKGROUP || d == FMAG_GPU_VK_WORKGROUP_INTERLEAVED ||
                          d == FMAG_GPU_VK_WORKGROUP_PREDECODED ||
                          (d == FMAG_GPU_VK_AUTO &&
                           rf <= (lanes ? FMAG_VK_WG_MAX_REGS_LANE : FMAG_VK_WG_MAX_REGS_UNIFORM)));
    bool il =
        lanes && (d == FMAG_GPU_VK_PRIVATE_INTERLEAVED || d == FMAG_GPU_VK_WORKGROUP_INTERLEAVED ||
                  forced_pd || (d == FMAG_GPU_VK_AUTO && maxlen * job->nprogs <= 4 * ncode));
    if (il) ncode = maxlen * job->nprogs;
    uint32_t variant = (wg ? FMAG_VK_VARIANT_WG : 0u) | (pd ? FMAG_VK_VARIANT_PD : 0u) |
                       (pd && lanes ? FMAG_VK_VARIANT_LITGUARD : 0u);
    VkPipeline pipe = get_pipeline(vk, rf, soft, variant, err, errlen);
    if (!pipe) return false;
    /* Pre-decoded uniform code: at most ninstr records (no-ops dropped). */
    fmag_gpu_word4 *pdcode = NULL;
    uint32_t npd = 0;
    if (pd && !lanes) {
        pdcode = malloc((job->progs[0]->ninstr ? job->progs[0]->ninstr : 1) * sizeof *pdcode);
        if (!pdcode) {
            fmag_gpu_err(err, errlen, "out of memory");
            return false;
        }
        npd = fmag_gpu_predecode((const fmag_gpu_word4 *)job->progs[0]->code, job->progs[0]->ninstr,
                                 rf, pdcode);
        ncode = npd;
    }
    /* Zero-initialisation only where a register may be read before it is written. */
    uint8_t *scratch = malloc(rf);
    if (!scratch) {
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
    /* Code: programs one after another, or interleaved; table {first, ninstr, nin, nout}. */
    size_t sz[5];
    sz[0] = ncode * 16;
    sz[1] = job->nprogs * 16;
    sz[2] = job->prog_index ? job->n * 4 : 4;
    sz[3] = job->n * job->in_stride * 4;
    sz[4] = job->n * job->out_stride * 4;
    size_t off[5], total = 0;
    for (int i = 0; i < 5; ++i) {
        off[i] = total;
        total += (sz[i] + 255) & ~(size_t)255;
    }
    fmag_vk_buf dbuf[5], stage;
    memset(dbuf, 0, sizeof dbuf);
    memset(&stage, 0, sizeof stage);
    bool ok = buf_alloc(vk, &stage, total, true, err, errlen);
    for (int i = 0; ok && i < 5; ++i)
        ok = buf_alloc(vk, &dbuf[i], sz[i], false, err, errlen);
    unsigned char *map = NULL;
    if (ok)
        ok = vk_ok(vk->vkMapMemory(vk->dev, stage.mem, 0, VK_WHOLE_SIZE, 0, (void **)&map),
                   "vkMapMemory", err, errlen);
    if (ok) {
        uint32_t first = 0;
        if (il) memset(map + off[0], 0, sz[0]); /* padding: never executed */
        for (size_t k = 0; k < job->nprogs; ++k) {
            const fmag_vm_program *p = job->progs[k];
            if (pd && !lanes) {
                /* uniform: only progs[0] runs */
                memcpy(map + off[0], pdcode, (size_t)npd * 16);
                uint32_t h[4] = {0, npd, p->nin, p->nout};
                memcpy(map + off[1], h, 16);
                break;
            }
            for (uint32_t i = 0; i < p->ninstr; ++i) {
                fmag_gpu_word4 w;
                memcpy(&w, &p->code[i], 16);
                if (pd) w = fmag_gpu_predecode_one(w, rf); /* per lane: no-ops stay */
                memcpy(map + off[0] + (il ? (size_t)i * job->nprogs + k : first + i) * 16, &w, 16);
            }
            uint32_t h[4] = {il ? (uint32_t)k : first, p->ninstr, p->nin, p->nout};
            memcpy(map + off[1] + k * 16, h, 16);
            first += p->ninstr;
        }
        if (job->prog_index)
            memcpy(map + off[2], job->prog_index, sz[2]);
        else
            memset(map + off[2], 0, 4);
        if (job->in) memcpy(map + off[3], job->in, sz[3]);
        VkDescriptorBufferInfo bi[5];
        VkWriteDescriptorSet wr[5];
        for (int i = 0; i < 5; ++i) {
            bi[i] = (VkDescriptorBufferInfo){dbuf[i].buf, 0, VK_WHOLE_SIZE};
            wr[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            wr[i].dstSet = vk->dset;
            wr[i].dstBinding = (uint32_t)i;
            wr[i].descriptorCount = 1;
            wr[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            wr[i].pBufferInfo = &bi[i];
        }
        vk->vkUpdateDescriptorSets(vk->dev, 5, wr, 0, NULL);
        ok = begin(vk, err, errlen);
    }
    fmag_vk_pc pc = {(uint32_t)job->n,
                     (uint32_t)job->in_stride,
                     (uint32_t)job->out_stride,
                     (uint32_t)job->nprogs,
                     job->prog_index != NULL,
                     job->evals,
                     0,
                     il ? (uint32_t)job->nprogs : 1u,
                     zero,
                     0,
                     0,
                     0};
    if (ok) {
        for (int i = 0; i < 4; ++i) {
            VkBufferCopy c = {off[i], 0, sz[i] ? sz[i] : 4};
            vk->vkCmdCopyBuffer(vk->cmd, stage.buf, dbuf[i].buf, 1, &c);
        }
        barrier(vk, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        record_dispatch(vk, pipe, pc);
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
            record_dispatch(vk, pipe, pc);
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
    for (int i = 0; i < 5; ++i)
        buf_free(vk, &dbuf[i]);
    buf_free(vk, &stage);
    free(pdcode);
    return ok;
}

bool fmag_gpu_vk_run(fmag_gpu_vk *vk, const fmag_gpu_job *job, char *err, size_t errlen)
{
    return vk_run_mode(vk, job, vk->soft_fma, err, errlen);
}

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Start-up probe: runs r0 = fma(r0, r1, r2) on products whose rounding error a fused fma
 * keeps and a multiply-then-add loses, and on denormal results. */
#define PROBE_N 1024
static bool vk_probe(fmag_gpu_vk *vk, bool soft, int *fma_bad, int *denorm_bad, char *err,
                     size_t errlen)
{
    static const fmag_vm_instr code[1] = {{0x7FC00001u, 0x7FC00002u, 0x3F800000u, 0u}};
    fmag_vm_program p = {(char *)"probe", 0, 4, 3, 1, 1, (fmag_vm_instr *)code};
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
        if (f2u(want) != f2u(out[k])) ++*(k < PROBE_N ? fma_bad : denorm_bad);
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
    if (!vk_ok(vk->vkCreateDevice(vk->phys, &dci, NULL, &vk->dev), "vkCreateDevice", err, errlen))
        goto fail;
    vk->vkGetDeviceQueue(vk->dev, vk->qfam, 0, &vk->queue);

    VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    const unsigned char *spv[4] = {fmag_spirv_fmag_run, fmag_spirv_fmag_run_wg,
                                   fmag_spirv_fmag_run_pd, fmag_spirv_fmag_run_wg_pd};
    const size_t spv_size[4] = {fmag_spirv_fmag_run_size, fmag_spirv_fmag_run_wg_size,
                                fmag_spirv_fmag_run_pd_size, fmag_spirv_fmag_run_wg_pd_size};
    for (int i = 0; i < 4; ++i) {
        smi.codeSize = spv_size[i];
        smi.pCode = (const uint32_t *)(const void *)spv[i];
        if (!vk_ok(vk->vkCreateShaderModule(vk->dev, &smi, NULL, &vk->shader[i]),
                   "vkCreateShaderModule", err, errlen))
            goto fail;
    }
    VkDescriptorSetLayoutBinding bind[5];
    for (uint32_t i = 0; i < 5; ++i)
        bind[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                 VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo dli = {.sType =
                                               VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dli.bindingCount = 5;
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
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 5};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 1;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &ps;
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
