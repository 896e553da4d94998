// Per-lane binning on the device (lib/GPU/Bin.c, docs/GPU.md "Binning"): a counting sort of a
// per-lane launch's elements by program, in four passes over the runner's descriptor set
// layout (the bindings below stand in for fmag_run.comp's; push constants within its range):
//   0 count:   counts[k] = elements of program k (atomics);
//   1 prefix:  cursor[k] = start of group k, each group's start a multiple of `align`
//              elements (so that a group's rows begin at an aligned buffer offset);
//   2 scatter: each element takes the next slot q of its group: perm[q] = e, and its input row
//              moves from src row e to dst row q;
//   3 back:    each binned slot's output row moves from src row q to dst row perm[q] (padding
//              slots hold perm 0xFFFFFFFF and move nothing).
// The order of elements inside a group depends on the atomics; each element computes what it
// computes unbinned, so the results are the same bits.
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer Bins { uint bins[]; };   // counts[nprogs], cursor[nprogs]
layout(std430, binding = 1) buffer Perm { uint perm[]; };   // binned slot -> element
layout(std430, binding = 2) readonly buffer Index { uint prog_index[]; };
layout(std430, binding = 3) readonly buffer Src { float src[]; };
layout(std430, binding = 4) writeonly buffer Dst { float dst[]; };

layout(push_constant) uniform PC {
    uint n;      // elements (pass 3: binned slots)
    uint stride; // floats a row of src and dst
    uint nprogs;
    uint pass;
    uint base;   // first element of this dispatch
    uint align;
} pc;

void move_row(uint from, uint to)
{
    for (uint i = 0u; i < pc.stride; ++i)
        dst[to * pc.stride + i] = src[from * pc.stride + i];
}

void main()
{
    uint e = pc.base + gl_GlobalInvocationID.x;
    if (pc.pass == 1u) {
        if (e != 0u) return;
        uint start = 0u;
        for (uint k = 0u; k < pc.nprogs; ++k) {
            bins[pc.nprogs + k] = start;
            start += (bins[k] + pc.align - 1u) / pc.align * pc.align;
        }
        return;
    }
    if (e >= pc.n) return;
    if (pc.pass == 3u) {
        uint to = perm[e];
        if (to != 0xFFFFFFFFu) move_row(e, to);
        return;
    }
    // the host checked every index; the clamp keeps a bad one inside the tables anyway
    uint k = min(prog_index[e], pc.nprogs - 1u);
    if (pc.pass == 0u) {
        atomicAdd(bins[k], 1u);
    } else {
        uint q = atomicAdd(bins[pc.nprogs + k], 1u);
        perm[q] = e;
        move_row(e, q);
    }
}
