"""Building many objects at once (a run of 10,000 trials read, its rows and its report
built) without paying for Python's cyclic garbage collector over and over.

The collector runs whenever allocations outnumber frees by a threshold, and its full
collections walk every tracked object: while a large run is read, each walk crosses the
hundreds of thousands of objects already read (a third of the reading's CPU). What is built
in such a block holds no reference cycles (pydantic models, dicts, lists, strings, all freed
by reference counting), so the collector is paused for the block and resumes after it.
No kubeproof imports: anything may use it.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (left as it was if paused
    already, so blocks nest)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
