/* FMAG: the C API for embedders. One header for compiling user programs (SL; .fir and
 * .fmas; GLSL, HLSL and SPIR-V where the build has them) to FMAG images, inspecting
 * them, and running them on the CPU engines and the GPU runners. docs/API.md has a
 * worked example. It includes Context.h (the context handle and its diagnostics) and
 * VM.h (the program records), never IR.h: handles are opaque here; IR.h is the
 * builder's header, for finer control.
 *
 * Ownership
 *  - fmag_context (Context.h) owns every IR object and the diagnostics. fmag_context_reset
 *    frees the IR and clears the diagnostics but keeps the memory for the next compile.
 *  - An fmag_image is owned by the caller and independent of the context it was compiled
 *    in: it stays valid after fmag_context_reset/destroy; free it with fmag_image_destroy.
 *    Program pointers (fmag_image_program) and their strings live as long as the image.
 *  - An fmag_runner is owned by the caller (fmag_runner_destroy). It keeps no pointer to
 *    the images it ran or to the context its errors went to.
 *  - Diagnostic strings (fmag_diagnostic) live until the context's diagnostics are
 *    cleared (fmag_context_diag_clear, fmag_context_reset, fmag_context_destroy).
 *  - Every pointer argument is borrowed for the duration of the call.
 *  - A buffer the library returns is freed with fmag_free.
 *
 * Thread safety
 *  - The library has no global mutable state. Two threads may compile at once with two
 *    contexts; one context (and the modules in it) is used by one thread at a time.
 *  - An image is never modified after it is created: any number of threads may inspect
 *    and run the same image at once.
 *  - A runner is used by one thread at a time; make one runner per thread (a GPU runner
 *    holds a device queue; the CPU runners hold nothing but are bound by the same rule).
 *
 * Errors
 *  Functions that can fail return false or NULL and record diagnostics in the context
 *  they were given (the `ctx` argument; it may be NULL where only the return value
 *  matters). Each diagnostic is both printed text ("file:line:col: error: msg", the
 *  source line and a caret; fmag_context_diag_print) and a record (fmag_diagnostic:
 *  file, line, column, severity, message; fmag_context_diag_record). The library never
 *  prints, never exits and never aborts on bad input.
 */
#ifndef FMAG_FMAG_H
#define FMAG_FMAG_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fmag/Context.h"
#include "fmag/VM.h"
#include "fmag/Version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------- version */

/* FMAG_VERSION_STRING of the library actually linked ("0.1.0"), which may differ from
 * the header's when a shared library was updated. */
const char *fmag_version(void);
/* FMAG_VERSION_NUMBER of the library linked (MAJOR * 10000 + MINOR * 100 + PATCH). */
unsigned fmag_version_number(void);

/* -------------------------------------------------------- ABI: versioning */

/* The layout of the public types as this library was compiled: row i of a table of
 * the structs in fmag.h, Context.h and VM.h, their fields and the enum constants
 * (false past the last row). kind 'S': a struct, name "fmag_compile_options", value
 * its size; 'F': a field, name "fmag_compile_options.entry", value its offset and
 * extra its size; 'E': an enum constant, name "FMAG_LANG_GLSL", value its value. A
 * binding that mirrors the types (the Python module) checks itself against it at
 * load time; test/ABI records it with the exported symbols. */
bool fmag_abi_entry(size_t i, char *kind, const char **name, long long *value, long long *extra);

/* ---------------------------------------------------- status and memory */

/* What a call that returns a status says, beside the diagnostics it recorded. */
typedef enum fmag_status {
    FMAG_OK = 0,
    FMAG_ERROR_INPUT = 1,       /* the source or data is wrong: the diagnostics say where */
    FMAG_ERROR_NOMEM = 2,       /* out of memory */
    FMAG_ERROR_MISUSE = 3,      /* a bad argument or option combination (a bug in the caller) */
    FMAG_ERROR_UNSUPPORTED = 4, /* not built into this library (a language, an engine) */
} fmag_status;
/* "ok", "input error", "out of memory", "misuse", "unsupported". */
const char *fmag_status_name(fmag_status st);

/* Frees a buffer the library returned (fmag_image_write's data, fmag_program_disassemble's
 * text, fmag_compile_ex's bytes): use this, not the caller's free, which may belong to
 * another C runtime or allocator. NULL is a no-op. */
void fmag_free(void *p);

/* ----------------------------------------------------------------- compile */

typedef enum fmag_language {
    FMAG_LANG_AUTO,  /* from the content, then the name (fmag_vm_file_kind_of); else SL */
    FMAG_LANG_SL,    /* .sl: the shading language (docs/SL.md) */
    FMAG_LANG_FIR,   /* .fir: the IR text (docs/LangRef.md) */
    FMAG_LANG_FMAS,  /* .fmas: FMAG assembly, assembled as written (no optimization) */
    FMAG_LANG_GLSL,  /* .glsl .frag .vert .comp (needs the SPIR-V front end, see below) */
    FMAG_LANG_HLSL,  /* .hlsl */
    FMAG_LANG_SPIRV, /* .spv: a SPIR-V binary */
    FMAG_LANG_MTLX,  /* .mtlx: a MaterialX document (docs/MaterialX.md; needs expat) */
} fmag_language;

/* Where fmag_compile_ex stops (clang's -E, -S, -emit-llvm): the stages in order are
 * front end (GLSL/HLSL: source to SPIR-V, then SPIR-V to IR), the pass pipeline, and
 * lowering to programs. */
typedef enum fmag_stage {
    FMAG_STAGE_PROGRAMS = 0, /* all the way: the lowered programs (the default) */
    FMAG_STAGE_SPIRV,        /* GLSL/HLSL only: the SPIR-V glslang made (slc -emit-spirv) */
    FMAG_STAGE_IR,           /* the IR the front end made, before any pass (slc -emit-ir) */
    FMAG_STAGE_PASSES,       /* the IR after the pipeline (fmag-opt without -lower) */
} fmag_stage;

/* What fmag_compile_ex writes as bytes (fmag_compile_result.data). */
typedef enum fmag_emit {
    FMAG_EMIT_NONE = 0, /* nothing: the image (or the module) only */
    FMAG_EMIT_FMAG,     /* the .fmag binary */
    FMAG_EMIT_FMAS,     /* .fmas text (slc -S) */
    FMAG_EMIT_FIR,      /* .fir text (FMAG_STAGE_IR or _PASSES) */
    FMAG_EMIT_SPIRV,    /* the SPIR-V words (FMAG_STAGE_SPIRV) */
    FMAG_EMIT_C,        /* the programs as straight-line source (slc --emit=c|glsl|cuda) */
    FMAG_EMIT_GLSL,
    FMAG_EMIT_CUDA,
} fmag_emit;

struct fmag_pass_options; /* Transforms.h: the pass manager's logs and checks */

/* An embedder's #include resolver for GLSL/HLSL (SPIRV.h, which declares the same type
 * under the same guard, says how it is called): the name as written, the including
 * file, whether it was "quoted"; on success *text, *len and optionally *resolved,
 * malloc'ed (the library frees them), and true; false: not found here. */
#ifndef FMAG_INCLUDE_FN_DEFINED
#define FMAG_INCLUDE_FN_DEFINED
typedef bool (*fmag_include_fn)(void *user, const char *name, const char *includer, bool quoted,
                                char **text, size_t *len, char **resolved);
#endif

/* Versioned as Win32's cbSize: `size` is sizeof(fmag_compile_options) as the caller was
 * compiled, which fmag_compile_options_init sets; a newer library reads the fields the
 * caller knows and takes the defaults for the rest, so a field can be added at the end
 * without breaking a program built against an older header. A size smaller than this
 * first version (a struct not set up by the init call) is FMAG_ERROR_MISUSE. */
typedef struct fmag_compile_options {
    size_t size;
    fmag_language language; /* FMAG_LANG_AUTO by default */
    const char *entry;      /* only this export becomes a program; NULL: every export */
    const char *pipeline;   /* passes or pipeline ("O0", "O1", "O2", "inline,cse"); NULL: O2 */
    bool fastmath;          /* SL: allow contraction and reassociation (SPEC §2) */
    bool fast_codegen;      /* FMAG_CODEGEN_FAST: a few instructions more, much faster */
    /* GLSL/HLSL #include: `#include "x"` is looked for beside the including file (the
     * filename argument for the top level), then in these directories in order;
     * `#include <x>` in these only. NULL/0 by default. */
    const char *const *include_dirs;
    size_t ninclude_dirs;
    fmag_include_fn include_fn; /* tried before the directories (above); NULL: none */
    void *include_user;
    /* GLSL/HLSL: macros, each "NAME" (as 1) or "NAME=VALUE" (slc -D). */
    const char *const *defines;
    size_t ndefines;
    /* The driver (fmag_compile_ex; fmag_compile takes the defaults). */
    fmag_stage stop_after;   /* FMAG_STAGE_PROGRAMS */
    fmag_emit emit;          /* FMAG_EMIT_NONE */
    const char *emit_prefix; /* FMAG_EMIT_C/GLSL/CUDA: identifier prefix; NULL: fmag_baked_ */
    unsigned print_flags;    /* FMAG_EMIT_FIR: IR.h's FMAG_PRINT_* bits (raw fmag) */
    /* Lower the module as the pipeline left it, export by export, without the passes
     * lowering needs (inline, unroll, if-convert), so that what cannot be lowered is
     * codegen's diagnostic (fmag-opt -lower); lowering statistics go to the pass
     * options' log when they ask for statistics. false: lowering prepares the module. */
    bool lower_as_is;
    /* The pass manager's options (Transforms.h: -verify-each, -print-after-all, -stats,
     * -time-passes, bisection, budgets), for tools; NULL: the defaults. */
    const struct fmag_pass_options *pass_options;
    /* A program that uses derivatives takes them for these inputs only: comma-separated
     * SL parameter names or input numbers (slc -derivs=; docs/Derivatives.md); NULL:
     * every floating-point input. */
    const char *derivs;
    /* FMAG_EMIT_C/GLSL/CUDA: NaN-agnostic source (VM.h, fmag_vm_emit_options): a computed
     * NaN keeps the hardware's payload; false by default. */
    bool emit_nan_agnostic;
} fmag_compile_options;

/* Sets every field to its default and `size` to `size` (what the inline call below
 * passes: the caller's sizeof). Defaults: AUTO, every export, O2, strict math, full
 * codegen, all the way to programs (what `slc` does). */
void fmag_compile_options_init_size(fmag_compile_options *opts, size_t size);
static inline void fmag_compile_options_init(fmag_compile_options *opts)
{
    fmag_compile_options_init_size(opts, sizeof *opts);
}

/* Whether this build can read GLSL/HLSL/SPIR-V (the lib/SPIRV front end). */
bool fmag_have_language(fmag_language lang);

typedef struct fmag_image fmag_image;

/* Compiles source text (not NUL-terminated: len bytes) to an image with one program
 * per export, in source order. `filename` names the source in diagnostics; under
 * FMAG_LANG_AUTO the content picks the language, then the name's extension (a SPIR-V
 * binary or .fir text is read as such whatever its name; a .fmag image is refused:
 * fmag_image_read loads it). opts may be NULL (defaults); its stop_after and emit are
 * ignored (fmag_compile_ex takes them). Returns NULL with diagnostics in ctx. The IR
 * made on the way stays in ctx until fmag_context_reset. */
fmag_image *fmag_compile(fmag_context *ctx, const char *filename, const char *src, size_t len,
                         const fmag_compile_options *opts);

/* What fmag_compile_ex made. Versioned as the options: `size` is the caller's sizeof
 * (fmag_compile_result_init sets it); the library writes only what fits. */
typedef struct fmag_compile_result {
    size_t size;
    fmag_image *image;   /* FMAG_STAGE_PROGRAMS: the programs (the caller destroys them) */
    fmag_module *module; /* the IR, in ctx until fmag_context_reset (IR.h reads it); NULL
                          * for .fmas (assembled as written) and at FMAG_STAGE_SPIRV */
    void *data;          /* opts->emit's bytes (fmag_free), NULL for FMAG_EMIT_NONE */
    size_t len;
} fmag_compile_result;
void fmag_compile_result_init_size(fmag_compile_result *r, size_t size);
static inline void fmag_compile_result_init(fmag_compile_result *r)
{
    fmag_compile_result_init_size(r, sizeof *r);
}
/* Destroys the image and frees the bytes (the module stays with its context). */
void fmag_compile_result_free(fmag_compile_result *r);

/* The compile driver every tool sits on (slc, fmag-opt and fmag-run are option tables
 * over it): fmag_compile with a stage to stop after and bytes to emit. .fmas text is
 * assembled as written (emit FMAS or FMAG re-encodes it). The result's fields are set
 * on success; on failure they are NULL and the diagnostics in ctx say why. Status:
 * FMAG_OK; FMAG_ERROR_INPUT for bad source; FMAG_ERROR_MISUSE for an emit the stage
 * cannot give (FMAG_EMIT_FIR of programs, SPIR-V of SL) or options without their size;
 * FMAG_ERROR_UNSUPPORTED for a language this build cannot read; FMAG_ERROR_NOMEM. */
fmag_status fmag_compile_ex(fmag_context *ctx, const char *filename, const char *src, size_t len,
                            const fmag_compile_options *opts, fmag_compile_result *out);

/* Optimizes and lowers a module built with the builder API (IR.h) or parsed; the
 * module is changed in place (passes run on it). opts->language and ->entry are
 * ignored (every export becomes a program). Returns NULL with diagnostics in the
 * module's context (a verifier failure included). */
fmag_image *fmag_compile_module(fmag_module *m, const fmag_compile_options *opts);

/* Reads a .fmag file (validated) from memory or from a path. NULL with a diagnostic
 * naming the record and byte offset. */
fmag_image *fmag_image_read(fmag_context *ctx, const void *data, size_t len);
fmag_image *fmag_image_load(fmag_context *ctx, const char *path);
/* Writes the image as a .fmag file: to a buffer (the caller frees it with fmag_free)
 * or a path. */
bool fmag_image_write(fmag_context *ctx, const fmag_image *img, void **data, size_t *len);
bool fmag_image_save(fmag_context *ctx, const fmag_image *img, const char *path);
void fmag_image_destroy(fmag_image *img);

/* ----------------------------------------------------------------- inspect */

size_t fmag_image_program_count(const fmag_image *img);
/* Program i (NULL when out of range), or the program of that name (NULL when none). */
const fmag_vm_program *fmag_image_program(const fmag_image *img, size_t i);
const fmag_vm_program *fmag_image_find(const fmag_image *img, const char *name);
/* The underlying record list (what a GPU upload or fmag_vm_* wants). */
const fmag_vm_image *fmag_image_vm(const fmag_image *img);

/* A program's header fields (fmag_vm_program has them too; these are for bindings). */
const char *fmag_program_name(const fmag_vm_program *p);
unsigned fmag_program_instr_count(const fmag_vm_program *p);
unsigned fmag_program_regs(const fmag_vm_program *p);
unsigned fmag_program_inputs(const fmag_vm_program *p);
unsigned fmag_program_outputs(const fmag_vm_program *p);
unsigned fmag_program_flags(const fmag_vm_program *p); /* FMAG_VM_FLAG_* */
/* Inputs that carry derivatives (docs/Derivatives.md): 0, or k when the program takes,
 * after its first inputs - 2k ordinary inputs, their x then y derivatives for k of them. */
unsigned fmag_program_deriv_inputs(const fmag_vm_program *p);
/* Instruction i decoded (register indices and literals); false when i is out of range. */
bool fmag_program_instr(const fmag_vm_program *p, size_t i, fmag_vm_decoded *out);
/* The program as .fmas text (what `fmag-as -d` prints); the caller frees it with
 * fmag_free. */
char *fmag_program_disassemble(const fmag_vm_program *p);

/* ----------------------------------------------------------------- run */

typedef enum fmag_engine {
    FMAG_ENGINE_REF,    /* the reference interpreter, one element at a time (the oracle) */
    FMAG_ENGINE_BATCH,  /* the batch engine: SIMD lanes and threads, bit-identical */
    FMAG_ENGINE_VULKAN, /* the GLSL interpreter through Vulkan (lavapipe included) */
    FMAG_ENGINE_CUDA,   /* the CUDA interpreter */
} fmag_engine;

/* The engine's name ("ref", "batch", "vulkan", "cuda"; the --backend names of fmag-run),
 * and the engine of that name (false when none). */
const char *fmag_engine_name(fmag_engine e);
bool fmag_engine_lookup(const char *name, fmag_engine *out);

typedef struct fmag_runner fmag_runner;

/* A runner for one engine. GPU runners load their driver here (hundreds of ms): create
 * one and keep it. NULL with a diagnostic when the engine is not built into this
 * library or the machine has no such device ("vulkan runner unavailable: ..."). */
fmag_runner *fmag_runner_create(fmag_context *ctx, fmag_engine e);
void fmag_runner_destroy(fmag_runner *r);
fmag_engine fmag_runner_engine(const fmag_runner *r);
/* One line: the device and its numerics for GPU runners, the ISA for the batch engine. */
const char *fmag_runner_describe(const fmag_runner *r);
/* Threads for the batch engine (0, the default: one per CPU). Ignored by the others. */
void fmag_runner_set_threads(fmag_runner *r, unsigned nthreads);

/* Tiers (GPU runners; docs/GPU.md, "Tiers"): a GPU runner interprets a program's first run
 * at once and bakes it to native code in the background (GLSL through shaderc to a Vulkan
 * pipeline, CUDA through NVRTC); later runs of the same program use the native code, with
 * the same bits. A program that fails to bake stays interpreted (fmag_runner_bake_log says
 * why); a run never fails for it. The CPU engines have no tiers: they always interpret. */
typedef enum fmag_tier_mode {
    FMAG_TIER_MODE_DEFAULT, /* the runner's choice: AUTO, or OFF on a CPU Vulkan driver
                             * (lavapipe), where one bake takes seconds of LLVM */
    FMAG_TIER_MODE_AUTO,    /* interpret at once, bake in the background; no run waits */
    FMAG_TIER_MODE_OFF,     /* always interpret */
    FMAG_TIER_MODE_EAGER,   /* a program's first run waits for its bake, then runs natively */
} fmag_tier_mode;

/* The runner's settings. Versioned as fmag_compile_options: `size` is the caller's
 * sizeof, which fmag_runner_options_init sets; a newer library takes the defaults for the
 * fields past it. A size below the first version's is a misuse. */
typedef struct fmag_runner_options {
    size_t size;
    fmag_tier_mode tier_mode; /* FMAG_TIER_MODE_DEFAULT */
    /* Bake code that leaves a computed NaN's payload to the hardware (VM.h,
     * fmag_vm_emit_options) instead of the VM's canonical NaN: faster where the caller
     * allows unspecified NaN payloads; every non-NaN result is unchanged. false. */
    bool nan_agnostic;
} fmag_runner_options;
void fmag_runner_options_init_size(fmag_runner_options *opts, size_t size);
static inline void fmag_runner_options_init(fmag_runner_options *opts)
{
    fmag_runner_options_init_size(opts, sizeof *opts);
}
/* Applies opts to r (every field: those past opts->size take their defaults) for the runs
 * after the call. False with a diagnostic for a NULL runner or options, a size below the
 * first version's, or a tier mode not above. The CPU engines accept and ignore them. */
bool fmag_runner_set_options(fmag_context *ctx, fmag_runner *r, const fmag_runner_options *opts);

/* Which code the runner's last run used: INTERPRETED (the CPU engines; a GPU runner before
 * its first run), BAKED, or MIXED (a per-lane run binned by program, some groups baked). */
typedef enum fmag_tier {
    FMAG_TIER_INTERPRETED,
    FMAG_TIER_BAKED,
    FMAG_TIER_MIXED,
} fmag_tier;
fmag_tier fmag_runner_last_tier(const fmag_runner *r);
/* "interpreted", "baked", "mixed" ("unknown" for another value). */
const char *fmag_tier_name(fmag_tier t);
/* Why programs stay interpreted: one line per failed bake (no compiler on this machine, a
 * compile error, the time budget), oldest first; "" when none and for the CPU engines.
 * Valid until the next call on r. */
const char *fmag_runner_bake_log(fmag_runner *r);

/* Runs n elements of program p: in is [n][nin] floats, out is [n][nout]. A NULL runner,
 * program (fmag_image_find's answer for a name the image lacks) or, for n > 0, array is
 * false with a diagnostic, in both functions. */
bool fmag_run(fmag_context *ctx, fmag_runner *r, const fmag_vm_program *p, const float *in,
              float *out, size_t n);
/* Runs n elements, element k running program prog_index[k] of img (prog_index NULL:
 * program 0): in is [n][in_stride], out is [n][out_stride]; the strides must cover the
 * largest nin / nout of the programs used (slots past a program's nout are left as
 * they were). */
bool fmag_run_per_lane(fmag_context *ctx, fmag_runner *r, const fmag_image *img,
                       const uint32_t *prog_index, const float *in, size_t in_stride, float *out,
                       size_t out_stride, size_t n);

/* Runs n elements of program p over columns (structure of arrays: planar images): input i
 * of element k is in[i][k] (p's nin arrays of n floats), output i is out[i][k] (nout
 * arrays). The same bits as fmag_run on every engine. */
bool fmag_run_columns(fmag_context *ctx, fmag_runner *r, const fmag_vm_program *p,
                      const float *const *in, float *const *out, size_t n);

/* Device-resident data, GPU runners only: a buffer of the runner's device, used in place
 * (no copy to or from the host). CUDA: handle is a CUdeviceptr of the primary context of
 * the runner's device; Vulkan: a VkBuffer of the runner's VkDevice made with
 * VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, offset a multiple of minStorageBufferOffsetAlignment. */
typedef struct fmag_device_buffer {
    uint64_t handle;
    uint64_t offset; /* bytes */
} fmag_device_buffer;

/* The runner's device, for making buffers there. Set size to sizeof(fmag_device_info)
 * before the call. Vulkan fills instance, physical_device, device (VkInstance,
 * VkPhysicalDevice, VkDevice), queue_family and get_instance_proc_addr (the loader's
 * vkGetInstanceProcAddr); CUDA fills cuda_device (the CUdevice ordinal). False with a
 * diagnostic for an engine that is no GPU runner. */
typedef struct fmag_device_info {
    size_t size;
    fmag_engine engine;
    void *instance, *physical_device, *device;
    uint32_t queue_family;
    void *get_instance_proc_addr;
    int cuda_device;
} fmag_device_info;
bool fmag_runner_device(fmag_context *ctx, const fmag_runner *r, fmag_device_info *out);

/* Runs n elements of p on device buffers: in is [n][in_stride] floats, out is
 * [n][out_stride] (slots past p's nout keep their values). Synchronous: the caller's writes
 * to in must be complete before the call (CUDA: on any stream of the context; Vulkan:
 * submitted and waited for); out holds the results when it returns. */
bool fmag_run_device(fmag_context *ctx, fmag_runner *r, const fmag_vm_program *p,
                     fmag_device_buffer in, size_t in_stride, fmag_device_buffer out,
                     size_t out_stride, size_t n);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_FMAG_H */
