/* superopt --verify-rules' quick checks of the recorded rule table: a fingerprint
 * that names exactly what a recorded proof proved, and a spot check that runs each
 * rule's program on the reference VM against its pattern. */
#ifndef FMAG_TOOLS_SUPEROPT_RULECHECK_H
#define FMAG_TOOLS_SUPEROPT_RULECHECK_H

#include "fmag/SuperoptRules.h"

#include <stdint.h>

/* FNV-1a over the pattern and the program (every field and literal bit): a rule
 * whose fingerprint matches a recorded proof is the rule that proof was run on. */
uint32_t rule_fingerprint(const fmag_superopt_rule *rule);

typedef struct spot_result {
    uint64_t checked, skipped; /* inputs compared; inputs outside the contract */
    bool failed;
    float cex[2], want, got;
} spot_result;

/* The rule's program, encoded and validated as a .fmag program and run by the
 * reference interpreter (fmag_vm_run), against the pattern evaluated by
 * fmag_superopt_target_eval on: every pair (or value) of an edge-case grid (signed
 * zeros, denormals, 1, 2, 0.5, the largest floats and each pattern literal with its
 * neighbours and negation), then `samples` seeded random inputs. Neither side is
 * the proof's vectorized evaluator. False when the program cannot be encoded. */
bool rule_spot_check(const fmag_superopt_rule *rule, const fmag_superopt_target *t,
                     uint64_t samples, spot_result *r);

#endif
