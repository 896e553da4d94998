/* libFuzzer harness: compile and run. The fuzzer's bytes choose a random module
 * from fmag-e2e's generator (calls, branches, every sugar form, special values in
 * the inputs: ±0, denormals, huge and tiny) and how it is compiled (control flow
 * or not, size, full or fast lowering); the module is run by the IR interpreter
 * unoptimized, then lowered without -O2 (straight-line exports) and after -O2, on
 * the reference VM and the per-lane engine: every output must agree bit for bit
 * under SPEC §2's contract (fmag-e2e's checks). Any disagreement, failed compile or
 * sanitizer report is a crash. The generator is fmag-e2e's own, included rather
 * than copied so the two cannot drift apart. */
#define main fmag_e2e_main
#include "../tools/fmag-e2e/fmag-e2e.c"
#undef main

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t seed = 0;
    memcpy(&seed, data, size < 8 ? size : 8);
    bool control_flow = size <= 8 || (data[8] & 1);
    unsigned gen_size = size > 9 ? 1 + data[9] % 24u : 12;
    counts c;
    memset(&c, 0, sizeof c);
    c.effort = size > 10 && (data[10] & 1) ? FMAG_CODEGEN_FAST : FMAG_CODEGEN_FULL;
    lane_set *ls = calloc(1, sizeof *ls);
    if (!ls) return 0;
    fmag_vm_image_init(&ls->img);
    rng lane_rng = {seed ^ 0xA5A5A5A5ull};
    bool ok = run_module(seed, control_flow, gen_size, &c, ls, false);
    ok = ok && run_lanes(ls, &lane_rng, &c, false);
    fmag_vm_image_free(&ls->img);
    free(ls);
    if (!ok || c.mismatches || c.lane_mismatches) __builtin_trap();
    return 0;
}
