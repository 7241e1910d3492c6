"""Process-wide settings of a serving process (``canasta serve`` and the load probes).

The cyclic garbage collector stops the event loop while it runs. With hundreds of live tables
a full collection walks a few hundred thousand objects and stalls every table for a few hundred
milliseconds, several times a minute: that was the tail of the action latency. A serving
process therefore

- freezes what exists once the app is built (modules, classes, the app itself: objects that
  live as long as the process), so no collection walks them again, and
- collects the youngest generation after 50,000 net allocations instead of 700, so objects
  that live for one action (views, messages) die by reference counting before a collection
  sees them and are never promoted; the older generations follow the default ratios.

Memory is still reclaimed: reference counting frees almost everything, and the collector
still runs, less often. ``gc.get_stats()`` and the ``python_gc_*`` metrics show its work.
"""

from __future__ import annotations

import gc
import sys

YOUNG_THRESHOLD = 50_000
SWITCH_SECONDS = 0.0005
OLDER_THRESHOLDS = (20, 10)


def tune_gc() -> None:
    """Freeze the objects that exist now and raise the youngest generation's threshold."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    sys.setswitchinterval(SWITCH_SECONDS)
