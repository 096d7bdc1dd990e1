"""The hooks' outbox as the tests read it (docs/capture.md#the-outbox)."""

import os
import re


def outbox_items(outbox):
    """The names of the queued items in the directory `outbox` (<digits>.json), oldest first; []
    when there is none yet (the first capture queued makes it)."""
    try:
        return sorted(n for n in os.listdir(outbox) if re.fullmatch(r"\d+\.json", n))
    except FileNotFoundError:
        return []


def parked_items(outbox):
    """The names of the parked items (outbox/parked/, i-<identity>.json or c-<hash>.json): captures
    whose hook could not wait for the queue's lock; [] when there is none."""
    try:
        return sorted(n for n in os.listdir(os.path.join(outbox, "parked"))
                      if re.fullmatch(r"[ic]-[\w-]+\.json", n))
    except FileNotFoundError:
        return []
