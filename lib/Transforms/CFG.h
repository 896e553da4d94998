/* CFG edits and queries shared by the passes of lib/Transforms (private header),
 * prefixed fmag_cfg_. The cleanup steps are the parts of -simplifycfg
 * (SimplifyCFG.c) that other passes run on their own; the rest is in CFG.c. */
#ifndef FMAG_CFG_H
#define FMAG_CFG_H

#include "fmag/IR.h"

/* Redirects the phis of `succ` that name `from` as incoming block to `to`. */
void fmag_cfg_phi_rename_block(fmag_block *succ, fmag_block *from, fmag_block *to);
/* Removes every incoming value of succ's phis that comes from `from`. */
void fmag_cfg_phi_drop_block(fmag_block *succ, fmag_block *from);
/* Replaces terminator t (a br) by `jmp target`. */
void fmag_cfg_make_jmp(fmag_instr *t, fmag_block *target);

/* Steps of -simplifycfg; each returns whether it changed anything. */
bool fmag_cfg_remove_unreachable(fmag_func *f);
/* `br K, ...` with a literal guard, and `br g, ^x, ^x`, become `jmp` (the phis of the
 * dropped target lose this block's incoming value). */
bool fmag_cfg_fold_branches(fmag_func *f);
/* A phi whose incoming values are all one value (itself aside) becomes that value. */
bool fmag_cfg_simplify_phis(fmag_func *f);
/* a ends in `jmp m` and is m's only predecessor (m is not the entry): joins the two
 * blocks into one (m's phis become their only incoming value), moving the shorter
 * instruction list. Returns the block that survives (a or m; the other is erased). */
fmag_block *fmag_cfg_join_blocks(fmag_block *a, fmag_block *m);
/* Numbers f's blocks and returns the number of distinct predecessors of every block,
 * by block id (fmag_tmp_* memory; the caller frees it), or NULL when out of memory. */
unsigned *fmag_cfg_pred_counts(fmag_func *f);

/* Finds a back edge (a loop) in the reachable CFG; returns false when acyclic, else
 * sets *from / *to to one back edge. */
bool fmag_cfg_find_back_edge(fmag_func *f, fmag_block **from, fmag_block **to);

/* A printable name for a block in diagnostics ("^name" or "^bbN"). */
const char *fmag_cfg_block_name(const fmag_block *b, char *buf, size_t len);

#endif /* FMAG_CFG_H */
