/* A tiny Vulkan compute harness for the GLSL emitter's test: runs one SPIR-V compute
 * shader (local size 64, one storage buffer at binding 0, push constant: the element
 * count) over a float buffer in place. The driver is loaded at run time, as the library's
 * runner does, so the test builds everywhere and skips where there is no driver. */
/* Under ASan the Vulkan loader stays mapped, so that LeakSanitizer names the driver's
 * own leaks (utils/lsan.supp) instead of an unknown, unloaded module. */
#if defined(__SANITIZE_ADDRESS__)
#define FMAG_TEST_DLCLOSE(lib) ((void)(lib))
#else
#define FMAG_TEST_DLCLOSE(lib) dlclose(lib)
#endif
#include "EmitVulkan.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<vulkan/vulkan.h>)
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#define VK_FUNCS(X)                                                                                \
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
    X(vkBeginCommandBuffer)                                                                        \
    X(vkEndCommandBuffer)                                                                          \
    X(vkCmdBindPipeline)                                                                           \
    X(vkCmdBindDescriptorSets)                                                                     \
    X(vkCmdPushConstants)                                                                          \
    X(vkCmdDispatch)                                                                               \
    X(vkQueueSubmit)                                                                               \
    X(vkQueueWaitIdle)

typedef struct vkfns {
#define X(f) PFN_##f f;
    VK_FUNCS(X)
#undef X
} vkfns;

int fmag_emit_vk_run(const char *spv_path, float *data, size_t nfloats, uint32_t n, bool *is_cpu,
                     char *err, size_t errlen)
{
    int rc = 77;
    void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, errlen, "no Vulkan loader");
        return 77;
    }
    PFN_vkGetInstanceProcAddr gipa;
    *(void **)&gipa = dlsym(lib, "vkGetInstanceProcAddr");
    PFN_vkCreateInstance create = gipa ? (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance") : 0;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app};
    VkInstance inst = VK_NULL_HANDLE;
    if (!create || create(&ici, NULL, &inst) != VK_SUCCESS) {
        snprintf(err, errlen, "vkCreateInstance failed");
        FMAG_TEST_DLCLOSE(lib);
        return 77;
    }
    vkfns vk;
#define X(f) *(void **)&vk.f = (void *)gipa(inst, #f);
    VK_FUNCS(X)
#undef X
    uint32_t nd = 8;
    VkPhysicalDevice devs[8];
    if (vk.vkEnumeratePhysicalDevices(inst, &nd, devs) < 0 || nd == 0) {
        snprintf(err, errlen, "no Vulkan device");
        goto out_inst;
    }
    VkPhysicalDevice phys = devs[0];
    VkPhysicalDeviceProperties props;
    vk.vkGetPhysicalDeviceProperties(phys, &props);
    *is_cpu = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    VkPhysicalDeviceFeatures feat;
    vk.vkGetPhysicalDeviceFeatures(phys, &feat);
    uint32_t nq = 16, qfam = UINT32_MAX;
    VkQueueFamilyProperties qf[16];
    vk.vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf);
    for (uint32_t q = 0; q < nq && qfam == UINT32_MAX; q++)
        if (qf[q].queueFlags & VK_QUEUE_COMPUTE_BIT) qfam = q;
    if (qfam == UINT32_MAX || !feat.shaderFloat64) {
        snprintf(err, errlen, "device '%s' has no compute queue or no shaderFloat64",
                 props.deviceName);
        goto out_inst;
    }
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = qfam,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkPhysicalDeviceFeatures want = {.shaderFloat64 = VK_TRUE};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci,
                              .pEnabledFeatures = &want};
    VkDevice dev;
    if (vk.vkCreateDevice(phys, &dci, NULL, &dev) != VK_SUCCESS) {
        snprintf(err, errlen, "vkCreateDevice failed");
        goto out_inst;
    }
    rc = 1; /* from here on a failure is a test failure */
    VkQueue queue;
    vk.vkGetDeviceQueue(dev, qfam, 0, &queue);
    /* The buffer: host-visible, coherent. */
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = nfloats * sizeof(float),
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
    VkBuffer buf;
    vk.vkCreateBuffer(dev, &bci, NULL, &buf);
    VkMemoryRequirements mr;
    vk.vkGetBufferMemoryRequirements(dev, buf, &mr);
    VkPhysicalDeviceMemoryProperties mp;
    vk.vkGetPhysicalDeviceMemoryProperties(phys, &mp);
    uint32_t mt = UINT32_MAX;
    VkMemoryPropertyFlags need =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mp.memoryTypeCount && mt == UINT32_MAX; i++)
        if ((mr.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & need) == need)
            mt = i;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .allocationSize = mr.size,
                                .memoryTypeIndex = mt};
    VkDeviceMemory mem;
    void *map = NULL;
    if (mt == UINT32_MAX || vk.vkAllocateMemory(dev, &mai, NULL, &mem) != VK_SUCCESS) {
        snprintf(err, errlen, "no host-visible memory");
        goto out_dev;
    }
    vk.vkBindBufferMemory(dev, buf, mem, 0);
    vk.vkMapMemory(dev, mem, 0, VK_WHOLE_SIZE, 0, &map);
    memcpy(map, data, nfloats * sizeof(float));
    /* The shader. */
    FILE *f = fopen(spv_path, "rb");
    uint32_t *code = malloc(4u << 20);
    size_t clen = f && code ? fread(code, 1, 4u << 20, f) : 0;
    if (f) fclose(f);
    VkShaderModuleCreateInfo smi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = clen, .pCode = code};
    VkShaderModule sm;
    VkResult r = vk.vkCreateShaderModule(dev, &smi, NULL, &sm);
    free(code);
    if (!clen || r != VK_SUCCESS) {
        snprintf(err, errlen, "cannot load %s", spv_path);
        goto out_mem;
    }
    VkDescriptorSetLayoutBinding bind = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                         VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo dli = {.sType =
                                               VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = 1,
                                           .pBindings = &bind};
    VkDescriptorSetLayout dsl;
    vk.vkCreateDescriptorSetLayout(dev, &dli, NULL, &dsl);
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1,
                                      .pSetLayouts = &dsl,
                                      .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &pcr};
    VkPipelineLayout pl;
    vk.vkCreatePipelineLayout(dev, &pli, NULL, &pl);
    VkComputePipelineCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = sm,
                  .pName = "main"},
        .layout = pl};
    VkPipeline pipe;
    if (vk.vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, NULL, &pipe) != VK_SUCCESS) {
        snprintf(err, errlen, "vkCreateComputePipelines failed");
        goto out_layout;
    }
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = 1,
                                      .poolSizeCount = 1,
                                      .pPoolSizes = &ps};
    VkDescriptorPool dp;
    vk.vkCreateDescriptorPool(dev, &dpi, NULL, &dp);
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = dp,
                                       .descriptorSetCount = 1,
                                       .pSetLayouts = &dsl};
    VkDescriptorSet ds;
    vk.vkAllocateDescriptorSets(dev, &dai, &ds);
    VkDescriptorBufferInfo dbi = {buf, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                              .dstSet = ds,
                              .descriptorCount = 1,
                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                              .pBufferInfo = &dbi};
    vk.vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
    VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .queueFamilyIndex = qfam};
    VkCommandPool cp;
    vk.vkCreateCommandPool(dev, &cpci, NULL, &cp);
    VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = cp,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1};
    VkCommandBuffer cb;
    vk.vkAllocateCommandBuffers(dev, &cbai, &cb);
    VkCommandBufferBeginInfo cbbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vk.vkBeginCommandBuffer(cb, &cbbi);
    vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &ds, 0, NULL);
    vk.vkCmdPushConstants(cb, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &n);
    vk.vkCmdDispatch(cb, (n + 63) / 64, 1, 1);
    vk.vkEndCommandBuffer(cb);
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
    if (vk.vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS &&
        vk.vkQueueWaitIdle(queue) == VK_SUCCESS) {
        memcpy(data, map, nfloats * sizeof(float));
        rc = 0;
    } else {
        snprintf(err, errlen, "vkQueueSubmit failed");
    }
    vk.vkDestroyCommandPool(dev, cp, NULL);
    vk.vkDestroyDescriptorPool(dev, dp, NULL);
    vk.vkDestroyPipeline(dev, pipe, NULL);
out_layout:
    vk.vkDestroyPipelineLayout(dev, pl, NULL);
    vk.vkDestroyDescriptorSetLayout(dev, dsl, NULL);
    vk.vkDestroyShaderModule(dev, sm, NULL);
out_mem:
    vk.vkFreeMemory(dev, mem, NULL);
out_dev:
    vk.vkDestroyBuffer(dev, buf, NULL);
    vk.vkDestroyDevice(dev, NULL);
out_inst:
    vk.vkDestroyInstance(inst, NULL);
    FMAG_TEST_DLCLOSE(lib);
    return rc;
}
#else
int fmag_emit_vk_run(const char *spv_path, float *data, size_t nfloats, uint32_t n, bool *is_cpu,
                     char *err, size_t errlen)
{
    (void)spv_path, (void)data, (void)nfloats, (void)n, (void)is_cpu;
    snprintf(err, errlen, "built without the Vulkan headers");
    return 77;
}
#endif
