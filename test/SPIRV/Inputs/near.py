"""Compares the numbers on stdin (one fmag-run line) with reference expressions
evaluated in double precision by Python's math module: near.py TOL EXPR...
Each value must satisfy |got - ref| <= TOL * max(1, |ref|). Exit 1 otherwise."""
import math
import sys

tol = float(sys.argv[1])
refs = [float(eval(e, {"math": math, **vars(math)})) for e in sys.argv[2:]]
got = [float(x) for x in sys.stdin.read().split()]
if len(got) != len(refs):
    sys.exit("near.py: %d values, %d references" % (len(got), len(refs)))
bad = [(i, g, r) for i, (g, r) in enumerate(zip(got, refs)) if abs(g - r) > tol * max(1.0, abs(r))]
for i, g, r in bad:
    print("near.py: value %d is %r, reference %r" % (i, g, r))
sys.exit(1 if bad else 0)
