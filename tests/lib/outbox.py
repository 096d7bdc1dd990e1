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
