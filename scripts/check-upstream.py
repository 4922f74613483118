#!/usr/bin/env python3
"""Runs upstream Open vSwitch's tests/testsuite on the assembled tree.

Usage: check-upstream.py OVS_TREE KNOWN_FAILURES [TESTSUITE-FLAGS...]

Runs "make -C OVS_TREE check" with TESTSUITEFLAGS set to the flags given
(test selection, -j), then reruns the tests that failed once with --recheck,
so that a test fails only if it fails twice.  Exits 1 if a test that failed
twice is not listed in KNOWN_FAILURES, a file with one line per test: the
test's title exactly as the testsuite prints it, " # ", and the reason.
A listed test that passes now is reported but is no error.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import time

LIST_RE = re.compile(r'^ *([1-9][0-9]*): \S+ +(.*?)\s*$')


def parse_list(lines):
    """Returns {number: title} from 'testsuite --list' output lines."""
    tests = {}
    for line in lines:
        m = LIST_RE.match(line)
        if m:
            tests[int(m.group(1))] = m.group(2)
    return tests


def parse_log(path):
    """Returns ({failed or xpassed number: title}, {skipped number: title})
    from a testsuite.log, or None if the run did not finish."""
    sections = {'Failed tests:': [], 'Skipped tests:': [],
                'Unexpected passes:': []}
    current = None
    finished = False
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('## Detailed failed tests'):
                break
            if line in sections:
                current = sections[line]
            elif line.startswith('## Test results. ##'):
                finished = True
            elif current is not None:
                current.append(line)
    if not finished:
        return None
    failed = parse_list(sections['Failed tests:'])
    failed.update(parse_list(sections['Unexpected passes:']))
    return failed, parse_list(sections['Skipped tests:'])


def read_known(path):
    """Returns {title: reason} from the known-failures file."""
    known = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            title, sep, reason = line.partition(' # ')
            if not sep:
                sys.exit('%s:%d: expected "TITLE # REASON"' % (path, n))
            known[title.strip()] = reason.strip()
    return known


def run_testsuite(tree, flags):
    """Runs 'make check' with 'flags'; returns the parsed testsuite.log."""
    log = os.path.join(tree, 'tests', 'testsuite.log')
    if '--recheck' not in flags:
        for f in (log, log + '.first'):
            if os.path.exists(f):
                os.remove(f)
    cmd = [os.environ.get('MAKE', 'make'), '-C', tree, 'check',
           'TESTSUITEFLAGS=' + ' '.join(map(shlex.quote, flags))]
    print('check-upstream: ' + ' '.join(cmd), flush=True)
    start, cpu = time.time(), os.times()
    rc = subprocess.call(cmd)
    end = os.times()
    print('check-upstream: the testsuite took %d s (%d s of CPU time)' %
          (time.time() - start,
           end.children_user + end.children_system
           - cpu.children_user - cpu.children_system), flush=True)
    result = parse_log(log) if os.path.exists(log) else None
    if result is None:
        sys.exit('check-upstream: the testsuite did not run to its end '
                 '(make exited with %d); see %s' % (rc, log))
    return result


def show(title, tests, reasons=None):
    if not tests:
        return
    print('%s (%d):' % (title, len(tests)))
    for num in sorted(tests):
        line = '  %4d: %s' % (num, tests[num])
        if reasons and tests[num] in reasons:
            line += '  # ' + reasons[tests[num]]
        print(line)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tree, known_file = sys.argv[1], sys.argv[2]
    flags = sys.argv[3:]
    known = read_known(known_file)
    tests_dir = os.path.join(tree, 'tests')

    failed, skipped = run_testsuite(tree, flags)
    first = dict(failed)
    if failed:
        shutil.copyfile(os.path.join(tests_dir, 'testsuite.log'),
                        os.path.join(tests_dir, 'testsuite.log.first'))
        print('check-upstream: %d test(s) failed; running them once more '
              '(--recheck)' % len(failed), flush=True)
        failed, _ = run_testsuite(tree, ['--recheck'])
    flaky = {n: t for n, t in first.items() if n not in failed}

    # The tests that this run selected, to tell which known failures ran.
    sel = [f for f in flags if not re.match(r'^(-j|--jobs)', f)]
    out = subprocess.run(['./testsuite', '--list'] + sel, cwd=tests_dir,
                         stdout=subprocess.PIPE, universal_newlines=True,
                         check=True).stdout
    selected_tests = parse_list(out.splitlines())
    selected = set(selected_tests.values())     # Titles repeat: a set.

    unexpected = {n: t for n, t in failed.items() if t not in known}
    known_failed = {n: t for n, t in failed.items() if t in known}
    fixed = sorted(t for t in known
                   if t in selected and t not in failed.values()
                   and t not in skipped.values())

    print()
    print('check-upstream: %d tests selected, %d skipped, %d failed twice '
          '(%d of them known failures), %d failed once only' %
          (len(selected_tests), len(skipped), len(failed),
           len(known_failed), len(flaky)))
    show('Failed once, passed on --recheck (flaky)', flaky)
    show('Known failures (%s)' % known_file, known_failed, known)
    if fixed:
        print('Known failures that pass now (remove them from %s?):'
              % known_file)
        for t in fixed:
            print('  ' + t)
    if unexpected:
        show('UNEXPECTED FAILURES', unexpected)
        for num in sorted(unexpected)[:5]:
            path = os.path.join(tests_dir, 'testsuite.dir', '%04d' % num,
                                'testsuite.log')
            print('\n---- last lines of %s ----' % path)
            try:
                with open(path, errors='replace') as f:
                    sys.stdout.writelines(f.readlines()[-40:])
            except OSError as e:
                print(e)
        return 1
    print('check-upstream: PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())
