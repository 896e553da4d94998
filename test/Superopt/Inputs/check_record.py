"""Checks superopt --verify-rules output against the recorded full proof.

usage: check_record.py RECORD CURRENT [--same-status]

RECORD is test/Superopt/Inputs/rules-proved.txt, the output of the full proof
(scripts/superopt-reprove.sh --record). Every rule line ends in ", ok #FINGERPRINT",
the FNV-1a of the rule's pattern and program. Passes when CURRENT names exactly the
rules of RECORD with the same fingerprints (so each rule in the binary is the one
the recorded proof was run on), every recorded status is a proof or the documented
sampling, and nothing in CURRENT failed. --same-status (the full re-proof) also
asks CURRENT's statuses to equal the record's.
"""
import re
import sys

LINE = re.compile(r"^(\S+)\s.*: ([^:]*), (ok|COMPILER LONGER THAN THE RULE) #([0-9a-f]{8})$")


def rules(path):
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            m = LINE.match(line)
            if not m:
                sys.exit("%s:%d: not a --verify-rules line: %r" % (path, n, line))
            name, status, verdict, fp = m.groups()
            if name in out:
                sys.exit("%s:%d: rule %s listed twice" % (path, n, name))
            out[name] = (status, verdict, fp)
    return out


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--same-status"):
        sys.exit(__doc__)
    record, current = rules(sys.argv[1]), rules(sys.argv[2])
    errors = []
    for name, (status, verdict, fp) in sorted(record.items()):
        if verdict != "ok" or not status.startswith(("proven (exhaustive", "sampled (")):
            errors.append("record: %s was not proved: %s, %s" % (name, status, verdict))
    for name in sorted(set(record) - set(current)):
        errors.append("%s is recorded but not in the rule table any more" % name)
    for name, (status, verdict, fp) in sorted(current.items()):
        if "FAILED" in status or verdict != "ok":
            errors.append("%s: %s, %s" % (name, status, verdict))
        if name not in record:
            errors.append("%s has no recorded proof" % name)
        elif record[name][2] != fp:
            errors.append("%s changed (fingerprint %s, recorded %s) since its proof was recorded"
                          % (name, fp, record[name][2]))
        elif len(sys.argv) == 4 and record[name][0] != status:
            errors.append("%s: proof now '%s', recorded '%s'" % (name, status, record[name][0]))
    if errors:
        print("\n".join(errors))
        print("(rerun the full proof: scripts/superopt-reprove.sh --record)")
        sys.exit(1)
    print("check_record: %d rules match their recorded proofs" % len(current))


main()
