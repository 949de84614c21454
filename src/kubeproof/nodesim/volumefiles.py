"""The files a running container sees, and when they change.

A kubelet writes `/etc/resolv.conf` and `/etc/hosts` once per container start, and projects
configMap, secret, downwardAPI and projected volumes into the container. Those volumes are
re-projected (an atomic `..data` symlink swap) on each sync of the pod: the periodic resync
every `syncFrequency` (1 min, pkg/kubelet/apis/config/v1beta1/defaults.go:78-80) stretched
by up to half again (`wait.Jitter(resyncInterval, workerResyncIntervalJitterFactor=0.5)`,
pkg/kubelet/pod_workers.go:327,1531), or at once when the pod's spec, labels or
annotations change (`podsDifferSemantically`, pkg/kubelet/config/config.go:345-354). The
watch-based object cache (pkg/kubelet/util/manager/watch_based_manager.go) hands each sync
the current object. A `subPath` mount is a bind mount of one file made at container start:
it never changes (nor does the environment)."""

import random
import time
from collections.abc import Callable, Iterator, Mapping

from kubeproof.nodesim.config import (
    World,
    mounted_files,
    node_facts,
    referenced_objects,
    volume_error,
)
from kubeproof.nodesim.etcfiles import etc_files

SYNC_FREQUENCY_SECONDS = 60.0  # pkg/kubelet/apis/config/v1beta1/defaults.go:78-80
RESYNC_JITTER_FACTOR = 0.5  # pkg/kubelet/pod_workers.go:327 workerResyncIntervalJitterFactor
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


def _watched_meta(pod: dict) -> tuple:
    meta = pod["metadata"]
    return (pod["spec"], meta.get("labels"), meta.get("annotations"))


class ContainerFiles(Mapping[str, str]):
    """Absolute path -> content, as `cat` in the container would read it at `clock()`."""

    def __init__(
        self,
        pod: Callable[[], dict],
        container: dict,
        world: World,
        pod_ips: list[str],
        now: float,
        clock: Callable[[], float] = time.time,
    ):
        self._pod, self._spec, self._world, self._clock = pod, container, world, clock
        obj = pod()
        self._rng = random.Random(obj["metadata"].get("uid", ""))
        self.tokens: dict[tuple[str, str], str] = {}  # (volume, path) -> token, see tokens.py
        self.token_due: dict[tuple[str, str], float] = {}  # (volume, path) -> renew after
        node_ip = next(iter(node_facts(obj, world)[0]), "")
        self._fixed = etc_files(obj, container, pod_ips, node_ip)
        self._fixed |= mounted_files(obj, container, world, sub_path=True)
        self._live = mounted_files(obj, container, world, sub_path=False)
        # what the process read when it started: a workload model reads its configuration
        # files once, as most programs do (a modelling choice, not kubelet behaviour)
        self.at_start: dict[str, str] = self._live | self._fixed
        self._seen_meta = _watched_meta(obj)
        self._synced_at = now
        self._next_sync = now + self._interval()

    def _interval(self) -> float:
        return SYNC_FREQUENCY_SECONDS * (1 + RESYNC_JITTER_FACTOR * self._rng.random())

    def token_volumes(self) -> list[tuple[str, dict]]:
        """(volume name, serviceAccountToken source) of each token this container mounts."""
        pod = self._pod()
        mounted = {m["name"] for m in self._spec.get("volumeMounts") or []}
        return [
            (v["name"], p["serviceAccountToken"])
            for v in pod["spec"].get("volumes") or []
            if v["name"] in mounted
            for p in (v.get("projected") or {}).get("sources") or []
            if "serviceAccountToken" in p
        ]

    def sync(self, now: float | None = None) -> None:
        """Bring the volumes up to the pod's last sync before now (default: the clock)."""
        now, pod = self._clock() if now is None else now, self._pod()
        last_sync = self._synced_at
        while self._next_sync <= now:
            last_sync, self._next_sync = self._next_sync, self._next_sync + self._interval()
        meta = _watched_meta(pod)
        if meta != self._seen_meta:
            self._seen_meta, last_sync = meta, now
        if last_sync <= self._synced_at:
            return
        namespace = pod["metadata"]["namespace"]
        changes = [self._world.changed_at(k, namespace, n) for k, n in referenced_objects(pod)]
        if max(changes, default=0.0) > last_sync:
            return  # changed after that sync: shown from the next one on
        if volume_error(pod, self._world) is not None:
            return  # a failed remount keeps the files it had (FailedMount, not modelled here)
        self._live = mounted_files(pod, self._spec, self._world, self.tokens, sub_path=False)
        self._synced_at = last_sync

    def projected(self) -> dict[str, str]:
        """The volume files but subPath mounts, as of the pod's last sync before now: what
        the atomic writer has put in the volume directories (projected.py)."""
        self.sync()
        return dict(self._live)

    def read_at(self, path: str, at: float) -> str | None:
        """The file as the container sees it at `at` (None: not there), for a process that
        re-reads it on its own schedule (nodesim/corefilereload.py)."""
        self.sync(at)
        return (self._live | self._fixed).get(path)

    def _all(self) -> dict[str, str]:
        self.sync()
        return self._live | self._fixed

    def __getitem__(self, path: str) -> str:
        return self._all()[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def set_token(self, volume: str, path: str, token: str) -> None:
        """A fresh token the kubelet's token manager wrote (pkg/kubelet/token)."""
        self.tokens[(volume, path)] = token
        for mount in self._spec.get("volumeMounts") or []:
            if mount["name"] == volume and not mount.get("subPath"):
                self._live[f"{mount['mountPath'].rstrip('/')}/{path}"] = token
