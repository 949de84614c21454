"""The static pods' container logs: what the control plane's real processes write.

On a kubeadm node `kubectl logs -n kube-system kube-apiserver-control-plane` shows the
apiserver's stderr as the CRI log file holds it. Here the same processes run outside any
container and their output goes to `<cluster>/logs/<component>.log` (cluster/process.py
spawn); the static pod's container log is that file:

- what the kubelet serves of a container log is its current file, at most
  containerLogMaxSize (10Mi, pkg/kubelet/apis/config/v1beta1/defaults.go:258-260) before
  the runtime rotates it: the last 10 MiB, from a line's start;
- each line's CRI timestamp is its own: the klog header (`I1127 15:30:01.123456 …`,
  k8s.io/klog/v2 header format) or etcd's JSON `ts`; a line without one (a Go panic's
  stack, a flag deprecation notice) takes the one before it, else the process's start;
- paths read as the static pods show them (cluster/staticpods.py: /etc/kubernetes/pki, …),
  so the logs never name the harness's state directory;
- anything shaped like a credential (a PEM private key block, a JWT) is replaced by
  `[redacted]`: the components log neither at their verbosity, and the admin credentials
  must never reach an agent that may read pods/log in kube-system.

The processes are never restarted, so there is no previous container (`--previous` answers
as for any container that has not restarted).
"""

import datetime as dt
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from kubeproof.cluster.layout import Layout
from kubeproof.cluster.staticpods import kubeadm_paths

MAX_BYTES = 10 * 1024 * 1024  # containerLogMaxSize
COMPONENTS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler")
_KLOG = re.compile(r"^[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) ")
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+")
_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")
_KEY_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----")
REDACTED = "[redacted]"


def line_time(line: str, now: dt.datetime) -> float | None:
    """The time a component stamped on its line: klog's header (month and day, no year:
    the latest such moment not after a day from now) or a JSON log's `ts`."""
    if m := _KLOG.match(line):
        month, day, hour, minute, second, micros = (int(g) for g in m.groups())
        for year in (now.year, now.year - 1):
            try:
                t = dt.datetime(year, month, day, hour, minute, second, micros, tzinfo=dt.UTC)
            except ValueError:  # 29 February of another year
                continue
            if t <= now + dt.timedelta(days=1):
                return t.timestamp()
        return None
    if line.startswith("{"):
        try:
            stamp = json.loads(line).get("ts")
            return dt.datetime.fromisoformat(stamp).timestamp() if isinstance(stamp, str) else None
        except (ValueError, AttributeError):
            return None
    return None


@dataclass
class ComponentLog:
    """One component's log file, read as a container log; `offset` is where the last read
    ended, for `kubectl logs -f`."""

    path: Path
    layout: Layout
    started: float  # the process's start: the time of lines before any stamped one
    offset: int = 0
    last: float = 0.0
    _partial: bytes = field(default=b"", repr=False)
    _in_key: bool = False  # inside a private key block, which spans lines

    def read(self) -> list[tuple[float, str]]:
        """The current log: its last MAX_BYTES, from a line's start."""
        try:
            size = self.path.stat().st_size
        except OSError:
            return []
        start = max(0, size - MAX_BYTES)
        # from the byte before: the first line read is then the cut one (or, if the limit
        # fell on a line's start, an empty one), dropped either way
        self.offset = max(0, start - 1)
        self.last, self._partial, self._in_key = self.started, b"", False
        entries = self.read_new()
        return entries[1:] if start else entries

    def read_new(self) -> list[tuple[float, str]]:
        """Whole lines written since the last read."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return []
        with os.fdopen(fd, "rb") as fh:
            fh.seek(self.offset)
            data = self._partial + fh.read(MAX_BYTES + 1)  # (+1: the byte before the limit)
            self.offset = fh.tell()
        complete, newline, self._partial = data.rpartition(b"\n")
        if not newline:
            return []
        now = dt.datetime.now(dt.UTC)
        entries = []
        keys = self._in_key or b"PRIVATE KEY-----" in complete
        for line in self.scrub(complete.decode(errors="replace")).split("\n"):
            self.last = line_time(line, now) or self.last
            entries.append((self.last, self._unkeyed(line) if keys else line))
        return entries

    def scrub(self, text: str) -> str:
        """Harness paths as kubeadm's, tokens redacted."""
        for ours, theirs in kubeadm_paths(self.layout):
            text = text.replace(ours, theirs)
        return _JWT.sub(REDACTED, text)

    def _unkeyed(self, line: str) -> str:
        """A private key block's lines redacted, from its BEGIN line to its END line."""
        if self._in_key:
            self._in_key = not _KEY_END.search(line)
            return REDACTED
        if begin := _KEY_BEGIN.search(line):
            self._in_key = not _KEY_END.search(line, begin.end())
            return line[: begin.start()] + REDACTED
        return line


def source(kubelet, pod, container) -> ComponentLog | None:
    """The log file behind a static pod's container: only for the control-plane node's
    own static pods (the kubelet's manifests, not a pod an agent named alike)."""
    node = pod.obj["spec"].get("nodeName", "")
    mirrors = kubelet.mirrors.get(node)
    if mirrors is None or not mirrors.owns(pod.obj) or container.name not in COMPONENTS:
        return None
    layout = Layout(kubelet.state_dir)
    try:
        record = json.loads(layout.record.read_text())
        started = float(record["components"][container.name]["started"])
    except (OSError, ValueError, KeyError, TypeError):
        started = container.started_at or 0.0
    return ComponentLog(layout.log(container.name), layout, started)
