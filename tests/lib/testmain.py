"""The main of every Python test program: runs its test cases and exits 0 (all passed), 1 (one
failed) or 77 (none failed, one or more skipped), which CTest reports as skipped
(SKIP_RETURN_CODE 77): a suite that did not run whole never reads as passed."""

import sys
import unittest

SKIPPED = 77


def exit_status(result):
    """The exit status for a unittest result."""
    if not result.wasSuccessful():
        return 1
    return SKIPPED if result.skipped else 0


def main(verbosity=2, argv=None):
    """Run the calling module's test cases and exit with exit_status."""
    program = unittest.main(argv=argv, verbosity=verbosity, exit=False)
    if program.result.skipped:
        print(f"SKIPPED: {len(program.result.skipped)} test(s) did not run", file=sys.stderr)
    sys.exit(exit_status(program.result))
