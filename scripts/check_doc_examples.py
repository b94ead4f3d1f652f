#!/usr/bin/env python3
"""Checks that the code examples mirrored in the compile-only tests are still the documents' text.

Usage: scripts/check_doc_examples.py REPO_ROOT TEST_FILE...

In each TEST_FILE, a block between a line "// doc-example: <path>" and a line "// doc-example end"
is an example of the file <path> (relative to REPO_ROOT); in a Markdown file the markers are
"<!-- doc-example: <path> -->" and "<!-- doc-example end -->" (a guide quoting the code it
describes: the quote must stay the code's text). Every non-blank line of the block, with
its leading and trailing white space removed, must be a line of that file, compared the same way
after removing a comment prefix ("//", "///", "// ", "/// ") from the file's lines. Exits 1 and
names each line that is not there (the example changed in its document: change the test too, so
that it compiles the example as the document shows it), 0 otherwise. Standard library only.
"""

import os
import re
import sys


def doc_lines(path):
    lines = set()
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            lines.add(line)
            m = re.match(r"^///?\s?(.*)$", line)
            if m:
                lines.add(m.group(1).strip())
    return lines


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    root = sys.argv[1]
    missing = 0
    blocks = 0
    cache = {}
    for test in sys.argv[2:]:
        with open(test, encoding="utf-8") as f:
            text = f.read().splitlines()
        current = None
        for number, raw in enumerate(text, 1):
            line = raw.strip()
            m = re.match(r"^(?://|<!--) doc-example: (\S+?)(?: -->)?$", line)
            if m:
                current = m.group(1)
                blocks += 1
                if current not in cache:
                    cache[current] = doc_lines(os.path.join(root, current))
                continue
            if line in ("// doc-example end", "<!-- doc-example end -->"):
                current = None
                continue
            if current is None or not line or line.startswith("```"):
                continue
            if line not in cache[current]:
                print(f"{test}:{number}: not in {current}: {line}")
                missing += 1
        if current is not None:
            print(f"{test}: a block of {current} has no '// doc-example end'")
            missing += 1
    if blocks == 0:
        print("no '// doc-example:' blocks found")
        return 1
    print(f"{blocks} example blocks, {missing} lines not in their documents")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
