/* fmag/fmag.h, the ABI table: the layout of the public types as this library was
 * compiled, for bindings that mirror them (the Python module checks its ctypes
 * structures against it when it loads) and for test/ABI, which records it beside the
 * exported symbols so that a change to either is seen. One row per struct, field and
 * enum constant; a new public type or field goes here. */
#include <stddef.h>
#include <string.h>
#include "APIInternal.h"

typedef struct abi_row {
    char kind; /* 'S' struct, 'F' field, 'E' enum constant */
    const char *name;
    long long value, extra;
} abi_row;

#define S(T) {'S', #T, (long long)sizeof(T), 0},
#define F(T, f) {'F', #T "." #f, (long long)offsetof(T, f), (long long)sizeof(((T *)0)->f)},
#define E(c) {'E', #c, (long long)(c), 0},

/* Rows laid out by hand: a struct, its fields, then the enum constants of its header. */
/* clang-format off */
static const abi_row rows[] = {
    /* fmag.h */
    S(fmag_compile_options) F(fmag_compile_options, size) F(fmag_compile_options, language)
    F(fmag_compile_options, entry) F(fmag_compile_options, pipeline)
    F(fmag_compile_options, fastmath) F(fmag_compile_options, fast_codegen)
    F(fmag_compile_options, include_dirs) F(fmag_compile_options, ninclude_dirs)
    F(fmag_compile_options, include_fn) F(fmag_compile_options, include_user)
    F(fmag_compile_options, defines) F(fmag_compile_options, ndefines)
    F(fmag_compile_options, stop_after) F(fmag_compile_options, emit)
    F(fmag_compile_options, emit_prefix) F(fmag_compile_options, print_flags)
    F(fmag_compile_options, lower_as_is) F(fmag_compile_options, pass_options)
    F(fmag_compile_options, derivs) F(fmag_compile_options, emit_nan_agnostic)
    S(fmag_compile_result) F(fmag_compile_result, size) F(fmag_compile_result, image)
    F(fmag_compile_result, module) F(fmag_compile_result, data) F(fmag_compile_result, len)
    S(fmag_device_buffer) F(fmag_device_buffer, handle) F(fmag_device_buffer, offset)
    S(fmag_device_info) F(fmag_device_info, size) F(fmag_device_info, engine)
    F(fmag_device_info, instance) F(fmag_device_info, physical_device)
    F(fmag_device_info, device) F(fmag_device_info, queue_family)
    F(fmag_device_info, get_instance_proc_addr) F(fmag_device_info, cuda_device)
    S(fmag_runner_options) F(fmag_runner_options, size) F(fmag_runner_options, tier_mode)
    F(fmag_runner_options, nan_agnostic) E(FMAG_OK)
    E(FMAG_ERROR_INPUT) E(FMAG_ERROR_NOMEM) E(FMAG_ERROR_MISUSE) E(FMAG_ERROR_UNSUPPORTED)
    E(FMAG_LANG_AUTO) E(FMAG_LANG_SL) E(FMAG_LANG_FIR) E(FMAG_LANG_FMAS) E(FMAG_LANG_GLSL)
    E(FMAG_LANG_HLSL) E(FMAG_LANG_SPIRV) E(FMAG_LANG_MTLX) E(FMAG_STAGE_PROGRAMS)
    E(FMAG_STAGE_SPIRV) E(FMAG_STAGE_IR) E(FMAG_STAGE_PASSES) E(FMAG_EMIT_NONE)
    E(FMAG_EMIT_FMAG) E(FMAG_EMIT_FMAS) E(FMAG_EMIT_FIR) E(FMAG_EMIT_SPIRV) E(FMAG_EMIT_C)
    E(FMAG_EMIT_GLSL) E(FMAG_EMIT_CUDA) E(FMAG_ENGINE_REF) E(FMAG_ENGINE_BATCH)
    E(FMAG_ENGINE_VULKAN) E(FMAG_ENGINE_CUDA) E(FMAG_TIER_MODE_DEFAULT) E(FMAG_TIER_MODE_AUTO)
    E(FMAG_TIER_MODE_OFF) E(FMAG_TIER_MODE_EAGER) E(FMAG_TIER_INTERPRETED) E(FMAG_TIER_BAKED)
    E(FMAG_TIER_MIXED)
    /* Context.h */
    S(fmag_diagnostic) F(fmag_diagnostic, severity) F(fmag_diagnostic, file)
    F(fmag_diagnostic, line) F(fmag_diagnostic, column) F(fmag_diagnostic, message)
    F(fmag_diagnostic, text) E(FMAG_DIAG_ERROR) E(FMAG_DIAG_WARNING) E(FMAG_DIAG_NOTE)
    E(FMAG_CONTEXT_MAX_SLOTS) E(FMAG_DEFAULT_INLINE_BUDGET) E(FMAG_UNROLL_DEFAULT_BUDGET)
    E(FMAG_DEFAULT_ERROR_LIMIT)
    /* VM.h: what fmag.h hands out */
    S(fmag_vm_operand) F(fmag_vm_operand, is_reg) F(fmag_vm_operand, reg)
    F(fmag_vm_operand, imm)
    S(fmag_vm_decoded) F(fmag_vm_decoded, d) F(fmag_vm_decoded, a) F(fmag_vm_decoded, b)
    F(fmag_vm_decoded, c) F(fmag_vm_decoded, g)
    S(fmag_vm_instr) F(fmag_vm_instr, b) F(fmag_vm_instr, c) F(fmag_vm_instr, g)
    F(fmag_vm_instr, da)
    S(fmag_vm_program) F(fmag_vm_program, name) F(fmag_vm_program, flags)
    F(fmag_vm_program, regs) F(fmag_vm_program, nin) F(fmag_vm_program, nout)
    F(fmag_vm_program, ninstr) F(fmag_vm_program, code)
    S(fmag_vm_image) F(fmag_vm_image, nprograms) F(fmag_vm_image, programs)
    E(FMAG_VM_FLAG_FASTMATH)
};
/* clang-format on */

#undef S
#undef F
#undef E

bool fmag_abi_entry(size_t i, char *kind, const char **name, long long *value, long long *extra)
{
    if (i >= sizeof rows / sizeof *rows) return false;
    if (kind) *kind = rows[i].kind;
    if (name) *name = rows[i].name;
    if (value) *value = rows[i].value;
    if (extra) *extra = rows[i].extra;
    return true;
}
