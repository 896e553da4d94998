/* Private helpers shared by the files of lib/VM (not part of the public API). */
#ifndef FMAG_VM_INTERNAL_H
#define FMAG_VM_INTERNAL_H

#include "fmag/VM.h"

/* Checks one instruction against a register file of `regs` registers. On failure
 * sets *word_off to the byte offset of the bad field inside the 16-byte
 * instruction and writes the reason (without the instruction number) to err. */
bool fmag_vm_instr_check(fmag_vm_instr in, uint32_t regs, unsigned *word_off, char *err,
                         size_t errlen);

/* fmag_vm_program_validate, also reporting which instruction (UINT32_MAX for a
 * header problem) and which field failed, so the loader can name a byte offset. */
bool fmag_vm_program_check(const fmag_vm_program *p, uint32_t *bad_instr, unsigned *word_off,
                           char *err, size_t errlen);

#endif /* FMAG_VM_INTERNAL_H */
