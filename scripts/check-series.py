#!/usr/bin/env python3
"""Checks that the patch series for each Open vSwitch version stay in step.

Usage: check-series.py PATCHES_DIR

PATCHES_DIR holds one directory per Open vSwitch version (3.1, 3.5), each
with a 'series' file, and 'drift', the differences that are allowed.  The
series must list the same patches in the same order, and each patch must
add the same lines in every version, except the lines that 'drift' lists,
one per line:

    PATCH-NAME VERSION +ADDED LINE

(the added line exactly as in the patch, its leading '+' included).  Lines
that a patch removes and its context may differ: they are upstream's.
Also prints the non-blank lines of C that each series adds to upstream
files (the .c and .h files that its patches change): at most C_BUDGET, as
the patches hold hooks and registrations only.

Exits 1, naming each difference, if the series differ beyond 'drift', if
'drift' lists a line that is no longer a difference, or if a series adds
more than C_BUDGET lines of C.
"""

import collections
import os
import sys

# Non-blank lines of C that a series may add to upstream files.
C_BUDGET = 300


def read_series(d):
    with open(os.path.join(d, 'series')) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith('#')]


def added_lines(path):
    """Returns (the lines a patch adds, its non-blank added lines of C)."""
    lines, c_lines, target = [], 0, ''
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('+++ '):
                target = line.split()[1] if len(line.split()) > 1 else ''
            elif line.startswith('+'):
                lines.append(line)
                if target.endswith(('.c', '.h')) and line[1:].strip():
                    c_lines += 1
    return lines, c_lines


def read_drift(path):
    drift = collections.Counter()
    if os.path.exists(path):
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip('\n')
                if not line.strip() or line.startswith('#'):
                    continue
                parts = line.split(' ', 2)
                if len(parts) != 3 or not parts[2].startswith('+'):
                    sys.exit('%s:%d: expected "PATCH VERSION +LINE"'
                             % (path, n))
                drift[tuple(parts)] += 1
    return drift


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    top = sys.argv[1]
    versions = sorted(v for v in os.listdir(top)
                      if os.path.exists(os.path.join(top, v, 'series')))
    if len(versions) < 2:
        sys.exit('%s: fewer than two series' % top)
    series = {v: read_series(os.path.join(top, v)) for v in versions}
    errors = []
    for v in versions[1:]:
        if series[v] != series[versions[0]]:
            errors.append('series %s and %s list different patches'
                          % (versions[0], v))
    drift = read_drift(os.path.join(top, 'drift'))
    found = collections.Counter()
    c_total = collections.Counter()
    for name in series[versions[0]]:
        added = {}
        for v in versions:
            path = os.path.join(top, v, name)
            if not os.path.exists(path):
                errors.append('%s: missing in %s' % (name, v))
                continue
            added[v], c = added_lines(path)
            c_total[v] += c
        if len(added) != len(versions):
            continue
        everywhere = None
        for v in versions:
            cnt = collections.Counter(added[v])
            everywhere = cnt if everywhere is None else everywhere & cnt
        for v in versions:
            for line, k in (collections.Counter(added[v]) - everywhere).items():
                found[(name, v, line)] += k
    for key, k in sorted(found.items()):
        if drift[key] < k:
            errors.append('%s (%s) adds, unlike the other series: %s'
                          % key)
    for key, k in sorted(drift.items()):
        if found[key] < k:
            errors.append('drift lists a line that no longer differs: '
                          '%s %s %s' % key)
    for v in versions:
        print('series %s: %d non-blank added lines of C in upstream files '
              '(at most %d)' % (v, c_total[v], C_BUDGET))
        if c_total[v] > C_BUDGET:
            errors.append('series %s adds %d non-blank lines of C to upstream '
                          'files, over the budget of %d: move the substance '
                          'into the project\'s own files'
                          % (v, c_total[v], C_BUDGET))
    for e in errors:
        print('check-series: ' + e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print('series %s in step (%d allowed differences)'
          % (', '.join(versions), sum(drift.values())))


if __name__ == '__main__':
    main()
