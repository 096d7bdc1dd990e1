"""Waiting for what another process does (a detached sender, a client's hook): the one poll
loop of the Python tests."""

import time


def wait_until(check, timeout, interval=0.05):
    """Call `check` until it returns a true value and return that value; once `timeout` seconds
    have passed, return its last (false) value."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)
