/* FMAG VM: the machine itself. Encoding of the one instruction, the .fmag binary
 * format (reader, writer, validation), the reference interpreter and the batch
 * engine. This layer depends on nothing else in FMAG.
 *
 * One instruction, 16 bytes (four little-endian u32 words, one uvec4):
 *
 *    word 0  [ 31 ............................ 0 ]  B      (NaN-boxed)
 *    word 1  [ 31 ............................ 0 ]  C      (NaN-boxed)
 *    word 2  [ 31 ............................ 0 ]  guard  (NaN-boxed)
 *    word 3  [ 31 ...... a ..... 16 | 15 .. d .. 0 ]  register indices (u16)
 *
 *    r[d] = (G > 0) ? fmaf(r[a], B, C) : r[d]
 *
 * A NaN result is stored as FMAG_VM_CANONICAL_NAN (0x7FC00000, +qNaN): C does not
 * fix a NaN's sign or payload and CPUs and GPUs differ, so the engines pin it.
 *
 * NaN-boxing: a word whose float value is a NaN names register (word & 0xFFFF);
 * any other word is a literal. Encoders write references as 0x7FC00000 | index.
 */
#ifndef FMAG_VM_H
#define FMAG_VM_H
#pragma GCC visibility push(default) /* libfmag.so exports what these headers declare */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FMAG_VM_REF_TAG 0x7FC00000u
#define FMAG_VM_MAX_REGS 65535u
#define FMAG_VM_FORMAT_VERSION 1
#define FMAG_VM_FLAG_FASTMATH 0x1u
/* The program takes derivative inputs (SPEC 5b): nderiv of its inputs carry them, and
 * its last 2*nderiv inputs are their x derivatives, then their y derivatives. The
 * record holds nderiv as a u16 at offset 20 (a reserved field, 0 in older files). */
#define FMAG_VM_FLAG_DERIVS 0x2u
#define FMAG_VM_FLAGS_KNOWN (FMAG_VM_FLAG_FASTMATH | FMAG_VM_FLAG_DERIVS)
#define FMAG_VM_HEADER_SIZE 32u
/* The bits every engine stores when an instruction's fma produces a NaN. */
#define FMAG_VM_CANONICAL_NAN 0x7FC00000u

/* One encoded instruction, exactly the 16 bytes of the stream (host order words;
 * the reader/writer convert from/to little-endian). */
typedef struct fmag_vm_instr {
    uint32_t b, c, g, da;
} fmag_vm_instr;

/* An operand slot: a register index or a literal. */
typedef struct fmag_vm_operand {
    bool is_reg;
    uint16_t reg;
    float imm;
} fmag_vm_operand;

/* A decoded instruction. */
typedef struct fmag_vm_decoded {
    uint16_t d, a;
    fmag_vm_operand b, c, g;
} fmag_vm_decoded;

/* Bit casts between a float and its IEEE-754 word. */
uint32_t fmag_vm_float_bits(float f);
float fmag_vm_bits_float(uint32_t w);

static inline uint32_t fmag_vm_ref_word(uint16_t reg)
{
    return FMAG_VM_REF_TAG | reg;
}
static inline bool fmag_vm_word_is_ref(uint32_t w)
{
    return (w & 0x7F800000u) == 0x7F800000u && (w & 0x007FFFFFu) != 0;
}
static inline bool fmag_vm_word_is_inf(uint32_t w)
{
    return (w & 0x7FFFFFFFu) == 0x7F800000u;
}
static inline uint16_t fmag_vm_instr_d(fmag_vm_instr i)
{
    return (uint16_t)(i.da & 0xFFFFu);
}
static inline uint16_t fmag_vm_instr_a(fmag_vm_instr i)
{
    return (uint16_t)(i.da >> 16);
}

/* Encodes; returns false (with a message in err) for a NaN or infinite literal. */
bool fmag_vm_encode(const fmag_vm_decoded *in, fmag_vm_instr *out, char *err, size_t errlen);
void fmag_vm_decode(fmag_vm_instr in, fmag_vm_decoded *out);

/* One program: a record of a .fmag file. `code` is 16-byte aligned. */
typedef struct fmag_vm_program {
    char *name;     /* NUL-terminated copy */
    uint16_t flags; /* FMAG_VM_FLAG_* */
    uint16_t regs, nin, nout;
    uint32_t ninstr;
    fmag_vm_instr *code;
    /* Inputs that carry derivatives (FMAG_VM_FLAG_DERIVS set exactly when > 0); the
     * ordinary inputs are the first nin - 2*nderiv. */
    uint16_t nderiv;
} fmag_vm_program;

/* What is wrong with a program's derivative fields (the flag and nderiv disagree, or
 * 3*nderiv > nin), or NULL when they are consistent. */
const char *fmag_vm_program_deriv_error(uint16_t flags, uint16_t nin, uint16_t nderiv);

/* The programs of one .fmag file, in order. Owns all memory. */
typedef struct fmag_vm_image {
    size_t nprograms;
    fmag_vm_program *programs;
} fmag_vm_image;

void fmag_vm_image_init(fmag_vm_image *img);
void fmag_vm_image_free(fmag_vm_image *img);
/* Appends a copy of the program (name and code copied). */
bool fmag_vm_image_add(fmag_vm_image *img, const char *name, uint16_t flags, uint16_t regs,
                       uint16_t nin, uint16_t nout, const fmag_vm_instr *code, uint32_t ninstr);
/* The program of that name, or NULL. */
const fmag_vm_program *fmag_vm_image_find(const fmag_vm_image *img, const char *name);

/* Validates one program: indices < regs in every slot, no infinity word,
 * nin/nout <= regs. On failure writes "instruction N: ..." to err. */
bool fmag_vm_program_validate(const fmag_vm_program *p, char *err, size_t errlen);

/* Parses and validates a whole .fmag file from memory, replacing img's contents.
 * On failure returns false with a one-line message naming the record index and
 * byte offset in err ("record 1 at byte offset 72: ...") and leaves img as it was. */
bool fmag_vm_image_read(fmag_vm_image *img, const void *data, size_t len, char *err, size_t errlen);
/* Serializes to a malloc'ed buffer (caller frees). */
bool fmag_vm_image_write(const fmag_vm_image *img, void **data, size_t *len, char *err,
                         size_t errlen);
/* Offset of the first byte of s[0..len) that is not part of well-formed UTF-8 (no
 * overlong forms, surrogates or code points above U+10FFFF), or len when it all is.
 * Program names must be UTF-8 (SPEC §1): the loader, the writer and the assembler
 * all check with this. */
size_t fmag_vm_utf8_invalid_at(const unsigned char *s, size_t len);
/* Reads a whole file ("-": standard input) into a malloc'ed buffer with a NUL after
 * the last byte (the caller frees it); NULL with "cannot open 'path': reason" or
 * "cannot read ..." in err. Shared by the loader and every tool. A file of
 * FMAG_VM_MAX_FILE_BYTES or more is refused once that much is read (so /dev/zero
 * ends in a message, not in all of memory). */
#define FMAG_VM_MAX_FILE_BYTES (512u << 20)
char *fmag_vm_read_file(const char *path, size_t *len, char *err, size_t errlen);
/* What a file holds, so that every tool (and an embedder) can name a file of the
 * wrong kind ("x.fir is FMAG IR text") instead of failing as a bad .fmag or with a
 * parse error on its first line (lib/VM/FileKind.c). The content decides first: the
 * "FMAG" and SPIR-V magics, a line that starts with `.def` (.fmas) or `func @` /
 * `export func @` (.fir). Then the name's extension: .fmag .spv, and for text only
 * .fmas .fir .sl, .glsl .frag .vert .comp (GLSL), .hlsl. Last, a guess from the text
 * (a line that starts with `export `: SL; `#version`: GLSL). Text is data without a
 * NUL byte; an empty buffer is text for the name, and unknown without one. */
typedef enum fmag_vm_file_kind {
    FMAG_VM_FILE_UNKNOWN, /* binary data of no kind FMAG reads */
    FMAG_VM_FILE_TEXT,    /* text of no kind FMAG recognizes */
    FMAG_VM_FILE_FMAG,    /* .fmag binary */
    FMAG_VM_FILE_SPIRV,   /* SPIR-V binary */
    FMAG_VM_FILE_FMAS,    /* FMAG assembly text */
    FMAG_VM_FILE_FIR,     /* FMAG IR text */
    FMAG_VM_FILE_SL,      /* shading-language source */
    FMAG_VM_FILE_GLSL,    /* GLSL source */
    FMAG_VM_FILE_HLSL     /* HLSL source */
} fmag_vm_file_kind;
/* What decided: the content, the name, or a guess from the text. */
typedef enum fmag_vm_file_evidence {
    FMAG_VM_FILE_BY_CONTENT,
    FMAG_VM_FILE_BY_NAME,
    FMAG_VM_FILE_BY_GUESS
} fmag_vm_file_evidence;
/* path may be NULL (no name to go by); evidence may be NULL. */
fmag_vm_file_kind fmag_vm_file_kind_of(const char *path, const void *data, size_t len,
                                       fmag_vm_file_evidence *evidence);
/* "a .fmag binary", "a SPIR-V binary", "FMAG assembly text", "FMAG IR text", "SL
 * source", "GLSL source", "HLSL source", "text", "binary data". */
const char *fmag_vm_file_kind_name(fmag_vm_file_kind kind);
/* File helpers. */
bool fmag_vm_image_load(fmag_vm_image *img, const char *path, char *err, size_t errlen);
bool fmag_vm_image_save(const fmag_vm_image *img, const char *path, char *err, size_t errlen);

/* The reference interpreter: one element. `regs` is scratch of at least p->regs
 * floats; inputs go to r[0..nin-1], the rest +0.0; outputs are copied to out. The
 * program must have been validated. */
void fmag_vm_run(const fmag_vm_program *p, const float *in, float *out, float *regs);

/* Many elements, one program: in is [n][nin], out is [n][nout] (array of structs). */
bool fmag_vm_run_batch(const fmag_vm_program *p, const float *in, float *out, size_t n, char *err,
                       size_t errlen);

/* Many elements, each with its own program: element k runs
 * progs[prog_index[k]]; in is [n][in_stride], out is [n][out_stride]; strides must
 * cover the largest nin / nout used (slots past a program's nout are not written).
 * Indices, strides and the programs used are checked before anything runs. */
bool fmag_vm_run_per_lane(const fmag_vm_program *const *progs, size_t nprogs,
                          const uint32_t *prog_index, const float *in, size_t in_stride, float *out,
                          size_t out_stride, size_t n, char *err, size_t errlen);

/* The reference interpreter over many elements with a program per element, for
 * checking the other engines: same contract as fmag_vm_run_per_lane (prog_index
 * may be NULL: every element runs progs[0]). Validates every program first. */
bool fmag_vm_run_ref_per_lane(const fmag_vm_program *const *progs, size_t nprogs,
                              const uint32_t *prog_index, const float *in, size_t in_stride,
                              float *out, size_t out_stride, size_t n, char *err, size_t errlen);

/* The argument checks of every per-lane engine (lib/VM/LaneArgs.c; the CPU engines and the
 * GPU runners): 1 to 2^32-1 programs; every element's program index (prog_index NULL: 0) in
 * range; each program present, validated (when validate) and with nin / nout within the
 * strides. With used (nprogs bytes, zeroed by the caller) only the programs some element
 * uses are checked and used[i] is set for them; without it every program is. False with a
 * one-line reason in err. */
bool fmag_vm_check_lane_args(const fmag_vm_program *const *progs, size_t nprogs,
                             const uint32_t *prog_index, size_t in_stride, size_t out_stride,
                             size_t n, bool validate, unsigned char *used, char *err,
                             size_t errlen);

/* The most lanes per block in the batch engine: one pre-decoded instruction runs over a
 * block of lanes before the next; blocks are sized per program (docs/VM.md), from 16 up to
 * this (an explicit fmag_vm_engine_options.lanes). */
#define FMAG_VM_LANES 512

/* fmag_vm_run_per_lane with an explicit thread count (0: one per online CPU; the
 * engine uses fewer when there is little work). prog_index may be NULL (every
 * element runs progs[0]). Bit-identical to fmag_vm_run for any thread count. These
 * one-shot calls make an engine for the call (threads started and joined each time): a
 * caller that runs often keeps a fmag_vm_engine instead. */
bool fmag_vm_run_per_lane_threads(const fmag_vm_program *const *progs, size_t nprogs,
                                  const uint32_t *prog_index, const float *in, size_t in_stride,
                                  float *out, size_t out_stride, size_t n, unsigned nthreads,
                                  char *err, size_t errlen);
/* The batch engine object (lib/VM/Batch.c, docs/VM.md "Batch engine"): a persistent pool
 * of worker threads, started once by fmag_vm_engine_create and reused by every run (no
 * thread is started per call), plus per-thread register files. No global state: a caller
 * makes as many engines as it likes. Calls on one engine are serialized (a mutex); use one
 * engine per calling thread for concurrency. */
typedef enum fmag_vm_isa {
    FMAG_VM_ISA_AUTO,    /* the best the CPU runs: AVX-512, else AVX2+FMA, else generic */
    FMAG_VM_ISA_GENERIC, /* portable C (fmaf) */
    FMAG_VM_ISA_AVX2,    /* x86-64 AVX2 + FMA, 8 lanes a vector */
    FMAG_VM_ISA_AVX512   /* x86-64 AVX-512F, 16 lanes a vector, masked stores */
} fmag_vm_isa;
typedef struct fmag_vm_engine_options {
    unsigned nthreads; /* 0: one per online CPU; 1: the calling thread only */
    fmag_vm_isa isa;   /* an ISA the CPU lacks is an error at create */
    unsigned lanes;    /* lanes per block; 0: sized per program (its register file) */
} fmag_vm_engine_options;
typedef struct fmag_vm_engine fmag_vm_engine;
/* opt NULL: defaults (all zero). NULL with a reason in err on failure. */
fmag_vm_engine *fmag_vm_engine_create(const fmag_vm_engine_options *opt, char *err, size_t errlen);
void fmag_vm_engine_destroy(fmag_vm_engine *e);
/* "avx512", "avx2+fma" or "generic". */
const char *fmag_vm_engine_isa(const fmag_vm_engine *e);
/* Threads that work on a run (the caller included). */
unsigned fmag_vm_engine_threads(const fmag_vm_engine *e);
/* Same contract as fmag_vm_run_per_lane (prog_index NULL: every element runs progs[0]);
 * bit-identical to fmag_vm_run. The x86 MXCSR of every thread that works is set to
 * round-to-nearest without flush-to-zero or denormals-are-zero for the run and restored
 * after it. */
bool fmag_vm_engine_run(fmag_vm_engine *e, const fmag_vm_program *const *progs, size_t nprogs,
                        const uint32_t *prog_index, const float *in, size_t in_stride, float *out,
                        size_t out_stride, size_t n, char *err, size_t errlen);

/* One program over columns (structure of arrays: planar images, the emitted C's _soa
 * layout): input r of element k is in[r][k], output r is out[r][k]. The block's rows are
 * copied whole instead of transposed. Otherwise as fmag_vm_engine_run. */
bool fmag_vm_engine_run_columns(fmag_vm_engine *e, const fmag_vm_program *p, const float *const *in,
                                float *const *out, size_t n, char *err, size_t errlen);
/* Lanes per block this engine gives p (for benchmarks that model its cost). */
unsigned fmag_vm_engine_block_lanes(const fmag_vm_engine *e, const fmag_vm_program *p);

/* Online CPUs (at least 1). */
unsigned fmag_vm_hardware_threads(void);
/* Which inner loop the batch engine picks on this CPU: "avx512", "avx2+fma" or "generic". */
const char *fmag_vm_batch_isa(void);

/* Source emitters (lib/VM/EmitSource.c, docs/VM.md "Baking a program to source"): the
 * programs written as straight-line source, one local variable per register and one line
 * per instruction, computing exactly what fmag_vm_run computes.
 *  C: per program `void PREFIXname(const float *in, float *out)` (one element) and
 *     `void PREFIXname_soa(size_t n, const float *const *in, float *const *out)` (structure
 *     of arrays, vectorizable); for the image `int PREFIXeval(uint32_t prog, in, out)` and
 *     `size_t PREFIXrun_per_lane(n, prog_index, in, in_stride, out, out_stride)`. Compile
 *     with -ffp-contract=off and denormals kept (no -ffast-math).
 *  GLSL: per program `void PREFIXname(in float fmag_in[I], out float fmag_out[O])` (I, O:
 *     the largest nin, nout over the programs, at least 1) and `bool PREFIXeval(uint prog,
 *     ...)`; `#define FMAG_SOFT_FMA 1` before it selects the exact software fma for drivers
 *     whose fma() is not fused (the Vulkan runner's rule).
 *  CUDA: the per-element functions as __device__, a `PREFIXname_kernel` per program and a
 *     `PREFIXrun_per_lane` kernel (grid-stride, one element per thread); __fmaf_rn.
 * Names: the program name with characters outside [A-Za-z0-9_] replaced by '_'; a name
 * that is empty or clashes gets "_p<index>" appended. prefix NULL means "fmag_baked_". The text is
 * malloc'ed (caller frees), NUL-terminated; every program is validated first. */
typedef enum fmag_vm_emit_lang {
    FMAG_VM_EMIT_C,
    FMAG_VM_EMIT_GLSL,
    FMAG_VM_EMIT_CUDA
} fmag_vm_emit_lang;
/* "c", "glsl" or "cuda"; false for anything else. */
bool fmag_vm_emit_lang_parse(const char *name, fmag_vm_emit_lang *lang);
bool fmag_vm_emit_source(const fmag_vm_program *const *progs, size_t nprogs, fmag_vm_emit_lang lang,
                         const char *prefix, char **text, size_t *len, char *err, size_t errlen);
/* The emitter's options: the identifier prefix (NULL: "fmag_baked_") and the NaN-agnostic
 * mode, where the caller allows unspecified NaN payloads: each instruction is the plain
 * hardware fma (fmaf, GLSL fma() where FMAG_SOFT_FMA is 0, __fmaf_rn) without the VM's
 * canonicalization of a computed NaN to 0x7FC00000 (and, in GLSL, without the bit-level
 * decisions on zero, infinity and NaN operands that keep a folding driver exact). Every
 * result that is not a NaN is the VM's (GLSL: on a driver that honors `precise`).
 * fmag_vm_emit_source is this with {prefix, false}. */
typedef struct fmag_vm_emit_options {
    const char *prefix;
    bool nan_agnostic;
} fmag_vm_emit_options;
bool fmag_vm_emit_source_opts(const fmag_vm_program *const *progs, size_t nprogs,
                              fmag_vm_emit_lang lang, const fmag_vm_emit_options *opts, char **text,
                              size_t *len, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* FMAG_VM_H */
