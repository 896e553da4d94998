#!/usr/bin/env python3
"""Puts the rows bench/math/sweep.sh wrote into docs/Builtins.md.

    bench/math/splice.py docs/Builtins.md OUT/strict.md OUT/fast.md

A row of strict.md replaces the row of the same builtin in the default-mode tables
(the section "Accuracy targets and results"), a row of fast.md the one in the
fast-math table; a row that names several builtins ("asin / acos") is replaced by
their rows when all of them were measured. Nothing else of the file changes."""
import sys


def rows(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        if line.startswith("| ") and not line.startswith("| builtin"):
            out[line.split("|")[1].strip()] = line.rstrip("\n")
    return out


def splice(lines, first, last, new):
    """Replace rows between the headings first and last by the rows in new."""
    out, inside, used = [], False, set()
    for line in lines:
        if line.startswith("## "):
            inside = line.startswith(first)
        if inside and line.startswith("| ") and not line.startswith("| builtin"):
            names = [n.strip() for n in line.split("|")[1].split(" / ")]
            if all(n in new for n in names):
                out.extend(new[n] for n in names)
                used.update(names)
                continue
        out.append(line)
    missing = set(new) - used
    if missing:
        sys.exit("splice.py: no row for %s under '%s'" % (", ".join(sorted(missing)), first))
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    doc, strict, fast = sys.argv[1:]
    lines = open(doc, encoding="utf-8").read().split("\n")
    lines = splice(lines, "## Accuracy targets", "## Fast-math", rows(strict))
    lines = splice(lines, "## Fast-math", "## Methods", rows(fast))
    open(doc, "w", encoding="utf-8").write("\n".join(lines))


if __name__ == "__main__":
    main()
