#!/usr/bin/python3
# Run rdma-core's pyverbs test suite exactly as its run_tests.py does (same
# package loader, same argument parser), but keep every outcome: the verbose
# unittest output goes to stdout as usual, and one line per test is written to
# RESULTS:
#   PASS <id>
#   FAIL <id> | <last line of the traceback>
#   ERROR <id> | <last line of the traceback>
#   SKIP <id> | <reason>
#   XFAIL <id> / XPASS <id>   (expectedFailure decorators, if any)
#
# usage: pyverbs-run.py TESTS_DIR RESULTS --dev rxe0 --gid N [-v] [TEST ...]
# TEST is what unittest accepts, e.g. tests.test_odp or
# tests.test_cq.CQTest.test_resize_cq.  Exit status: 0 if the run finished
# (whatever the outcomes; the caller judges them), 2 on a usage error.
import os
import sys
import unittest
from importlib.machinery import SourceFileLoader


def last_line(text):
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else '(no message)'


class RecordingResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.records = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.records.append(('PASS', test.id(), ''))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.records.append(('FAIL', test.id(), last_line(self.failures[-1][1])))

    def addError(self, test, err):
        super().addError(test, err)
        # setUpClass/module errors come as _ErrorHolder objects: id() still works.
        self.records.append(('ERROR', test.id(), last_line(self.errors[-1][1])))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.records.append(('SKIP', test.id(), ' '.join(str(reason).split())))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.records.append(('XFAIL', test.id(), ''))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.records.append(('XPASS', test.id(), ''))


def main():
    if len(sys.argv) < 3:
        print(__doc__ if __doc__ else 'usage: pyverbs-run.py TESTS_DIR RESULTS ARGS...')
        return 2
    tests_dir = os.path.abspath(sys.argv[1])
    results = sys.argv[2]
    sys.argv = [os.path.join(tests_dir, 'run_tests.py')] + sys.argv[3:]
    sys.path.insert(0, tests_dir)
    os.chdir(tests_dir)
    from args_parser import parser
    tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
    parser.parse_args()
    runner = unittest.TextTestRunner(verbosity=2, resultclass=RecordingResult, stream=sys.stdout)
    prog = unittest.main(module=tests, testRunner=runner, exit=False)
    with open(results, 'w') as f:
        for kind, tid, msg in prog.result.records:
            f.write(f'{kind} {tid}' + (f' | {msg}' if msg else '') + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
