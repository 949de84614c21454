"""A pool of embedded clusters started ahead of time.

A warm start still costs a few seconds (the apiserver's post-start hooks and the
controller manager's start-up); a runner that keeps one or two clusters starting in the
background hands each trial a ready cluster at once, as long as trials take longer than a
start. Each cluster is used by one trial and then stopped: clusters are never reused.
"""

import queue
import threading
from typing import Self

from kubeproof.cluster.decoders import prepare_for_threads
from kubeproof.cluster.embedded import EmbeddedCluster


class ClusterPool:
    def __init__(self, size: int = 1, **cluster_options):
        if size < 1:
            raise ValueError("a pool holds at least one cluster")
        self.size = size
        self._options = cluster_options
        self._ready: queue.Queue = queue.Queue()
        self._wanted = threading.Semaphore(0)
        self._closed = threading.Event()
        self._workers = [
            threading.Thread(target=self._fill, name=f"cluster-pool-{i}", daemon=True)
            for i in range(size)
        ]

    def start(self) -> Self:
        prepare_for_threads()
        for worker in self._workers:
            self._wanted.release()
            worker.start()
        return self

    def _fill(self) -> None:
        while True:
            self._wanted.acquire()
            if self._closed.is_set():
                return
            try:
                self._ready.put(EmbeddedCluster(**self._options).start())
            except Exception as exc:  # handed to whoever acquires next
                self._ready.put(exc)

    def acquire(self, timeout: float | None = None) -> EmbeddedCluster:
        """A ready cluster, now yours to use and stop; a replacement starts at once."""
        item = self._ready.get(timeout=timeout)
        self._wanted.release()
        if isinstance(item, Exception):
            raise item
        return item

    def close(self) -> None:
        self._closed.set()
        for _ in self._workers:
            self._wanted.release()
        for worker in self._workers:
            worker.join()
        while not self._ready.empty():
            item = self._ready.get_nowait()
            if isinstance(item, EmbeddedCluster):
                item.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
