#!/usr/bin/env python3
"""List the operator names in the plan corpus, with a count and a first occurrence.

Used to write src/core/catalog.c by hand; tests/check_catalog.c runs the same extraction
in C and fails when a name has no catalogue entry.  Usage:
    scripts/corpus-operators.py [CORPUS_DIR]      (default ../shared/corpus)
Name extraction: tree lines (3-character units "   ", ":  ", "+- ", ":- " ending in a marker),
formatted details headers "(N) Name", the root after a plan header / "-- !query analysis" /
at the top of a file, every line of a *.simplified.txt tree; then codegen markers
("*(N) ", "* ", "^(N) ", "^ ", "*X"), state prefixes (' ! ~) are stripped and the name runs to
the first character that is not a letter, digit or underscore, except for the multi-word names
"Scan In-memory table", "Scan <word>" and "Execute <Command>".
"""
import collections
import os
import re
import sys

UNITS = ('   ', ':  ', '+- ', ':- ')
HEADER = re.compile(r'^\s*(\+- )?== (Parsed Logical Plan|Analyzed Logical Plan|Optimized Logical Plan|'
                    r'Physical Plan|Final Plan|Current Plan|Initial Plan|Subtree .*) ==\s*$')


def operator_name(s):
    s = s.lstrip(' ')
    s = re.sub(r'^\(\d+\) ', '', s)
    s = re.sub(r'^(\*\(\d+\) |\* |\^\(\d+\) |\^ |\*(?=[A-Z]))', '', s)
    s = s.lstrip("'!~")
    m = re.match(r'^(Scan In-memory table|Scan [^ (\[,]+|Execute \w+|[A-Za-z]\w*)(.?)', s)
    if not m or m.group(2) == '.':
        return ''
    return m.group(1)


def scan(path, names, first_seen):
    simplified = path.endswith('.simplified.txt')
    expect_root = 'first'
    for lineno, line in enumerate(open(path, errors='replace'), 1):
        line = line.rstrip('\n')
        if not line.strip():
            continue
        line = re.sub(r'^\| ?', '', line)
        line = re.sub(r'^\d\d ', '', line)
        i, marked = 0, False
        while line[i:i + 3] in UNITS:
            marked = marked or line[i:i + 3] in ('+- ', ':- ')
            i += 3
        header = HEADER.match(line)
        cand = None
        if simplified:
            cand = line
        elif marked:
            cand = line[i:]
        elif re.match(r'^\(\d', line):
            cand = line
        elif (expect_root and not header and not line.startswith('--') and not line.startswith('Found ')
              and not (expect_root == 'Analyzed Logical Plan' and ': ' in line)):
            cand = line
        if cand is not None:
            name = operator_name(cand)
            if name:
                names[name] += 1
                first_seen.setdefault(name, '%s:%d' % (path, lineno))
        if header:
            expect_root = header.group(2)
        elif line.startswith('-- !query analysis'):
            expect_root = 'analysis'
        else:
            expect_root = None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '../../shared/corpus')
    names, first_seen = collections.Counter(), {}
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if f not in ('INDEX.tsv', 'SOURCES.md'):
                scan(os.path.join(dirpath, f), names, first_seen)
    for name in sorted(names):
        print('%d\t%s\t%s' % (names[name], name, os.path.relpath(first_seen[name], root)))


if __name__ == '__main__':
    main()
