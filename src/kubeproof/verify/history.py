"""The history of the agent's turn: every write the apiserver carried out after the
baseline, read from its audit log (writes are logged with the object as stored).

Contracts judge every state an object went through, not only the last one, so a
protected field changed and restored, an object deleted and recreated, or a namespace's
admission level relaxed for a moment are all seen. Whoever made the write counts: after
the baseline the harness writes nothing, and the control plane's own traffic is not in
the log (cluster/audit.py), so every write here is the agent's doing, under whatever
identity it used.
"""

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from kubeproof.cluster.audit import HARNESS_USERS
from kubeproof.verify.baseline import API_VERSIONS, CLUSTER_KINDS, key

WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
# Controllers and kubelets churn these; what an agent does to them is judged elsewhere.
CHURN = frozenset({"events", "leases", "endpointslices", "endpoints"})

_IRREGULAR = {"Endpoints": "endpoints"}


def plural(kind: str) -> str:
    if kind in _IRREGULAR:
        return _IRREGULAR[kind]
    lower = kind.lower()
    if lower.endswith(("s", "x")):
        return lower + "es"
    if lower.endswith("y"):
        return lower[:-1] + "ies"
    return lower + "s"


KINDS_BY_PLURAL = {plural(k): k for k in API_VERSIONS}
CLUSTER_SCOPED = frozenset(kind for _, kind in CLUSTER_KINDS)


@dataclass(frozen=True)
class Write:
    """One write the apiserver carried out: the object as stored after it (None when it
    was deleted, or a Secret whose content the log does not hold)."""

    at: str  # the audit event's stageTimestamp
    user: str
    verb: str
    kind: str
    namespace: str | None
    name: str
    subresource: str | None
    object: dict | None
    replicas: int | None = None  # a write through the scale subresource
    request: dict | list | None = None  # what the client sent: an object, or a patch

    def touches(self, path: tuple[str, ...], before: dict | None) -> bool:
        """Did this write itself set something at or below the path (tokens of
        verify/paths.py), as opposed to carrying what a controller had set there? A
        scale write sets spec.replicas; a patch names what it sets; an update or create
        sends a whole object, judged against the object before it."""
        from kubeproof.verify import paths

        if self.replicas is not None:
            return path[:2] == ("spec", "replicas")[: len(path[:2])]
        if isinstance(self.request, list):  # a JSON patch: /spec/replicas …
            for op in self.request:
                tokens = tuple(t for t in str(op.get("path", "")).split("/") if t)
                n = min(len(tokens), len(path))
                if tokens[:n] == path[:n]:
                    return True
            return False
        if not isinstance(self.request, dict):
            return False
        if self.verb == "patch":
            return paths.value_at(paths.authored(self.request), path) is not None
        old = paths.value_at(paths.authored(before or {}), path)
        return paths.value_at(paths.authored(self.request), path) != old

    @property
    def key(self) -> str:
        return key(self.kind, self.namespace, self.name)

    @property
    def clock(self) -> str:
        """hh:mm:ss.mmm of the write, for reasons a person reads."""
        return self.at[11:23] if len(self.at) >= 23 else self.at

    def describe(self) -> str:
        target = f"{self.kind} {self.namespace + '/' if self.namespace else ''}{self.name}"
        via = f"/{self.subresource}" if self.subresource else ""
        return f"{self.verb}{via} {target} at {self.clock} by {self.user}"


def _write(event: dict) -> Write | None:
    if event.get("stage") != "ResponseComplete" or event.get("verb") not in WRITE_VERBS:
        return None
    if "dryRun=" in event.get("requestURI", ""):
        return None
    if int((event.get("responseStatus") or {}).get("code", 200)) >= 400:
        return None
    ref = event.get("objectRef") or {}
    resource, sub = ref.get("resource", ""), ref.get("subresource")
    if resource in CHURN or sub == "status" or resource.endswith("reviews"):
        return None
    if resource == "pods" and sub in ("eviction", "binding", "log", "exec", "attach"):
        return None
    obj = event.get("responseObject")
    kind = KINDS_BY_PLURAL.get(resource)
    if kind is None and isinstance(obj, dict) and obj.get("kind") not in (None, "Status"):
        kind = f"{obj.get('apiVersion', 'v1')}/{obj['kind']}"
    if kind is None:
        kind = f"{ref.get('apiGroup') or ''}/{ref.get('apiVersion') or 'v1'}/{resource}"
    name = ref.get("name") or ((obj or {}).get("metadata") or {}).get("name") or ""
    replicas = None
    state = None
    if event["verb"] in ("create", "update", "patch"):
        if sub == "scale" and isinstance(obj, dict):
            replicas = (obj.get("spec") or {}).get("replicas", 0)
        elif isinstance(obj, dict) and obj.get("kind") != "Status" and obj.get("metadata"):
            state = obj
    elif isinstance(obj, dict) and (obj.get("metadata") or {}).get("finalizers"):
        state = obj  # deletion waits for finalizers: the object lives on, being deleted
    return Write(
        at=event.get("stageTimestamp", ""),
        user=(event.get("user") or {}).get("username", ""),
        verb=event["verb"],
        kind=kind,
        # the audit log names a Namespace's own namespace too: cluster-scoped is None here
        namespace=None if kind in CLUSTER_SCOPED else ref.get("namespace"),
        name=name,
        subresource=sub,
        object=state,
        replicas=replicas,
        request=event.get("requestObject"),
    )


class History:
    """Writes since the baseline, read incrementally from the audit log."""

    def __init__(
        self, audit_log: Path | None, offset: int = 0, ignore: frozenset[str] = frozenset()
    ):
        self.audit_log = audit_log
        self.offset = offset
        self.ignore = ignore  # users whose writes are the system's (a task's controllers)
        # epoch seconds from which the harness's writes are a verifier's own actions
        # (verify/actions.py), not the agent's: no agent holds the harness's identity
        self.verifier_from: float | None = None
        self._writes: list[Write] = []
        self.memo: dict = {}  # what contracts derived from a prefix of the writes

    def refresh(self) -> "History":
        if self.audit_log is None or not self.audit_log.exists():
            return self
        with self.audit_log.open("rb") as fh:
            fh.seek(self.offset)
            data = fh.read()
        end = data.rfind(b"\n") + 1  # a torn last line waits for the next read
        self.offset += end
        for line in data[:end].splitlines():
            try:
                w = _write(json.loads(line))
            except ValueError:
                continue
            if w is not None and not self._verifiers(w) and w.user not in self.ignore:
                self._writes.append(w)
        return self

    def _verifiers(self, w: Write) -> bool:
        if self.verifier_from is None or w.user not in HARNESS_USERS:
            return False
        try:
            return datetime.fromisoformat(w.at).timestamp() >= self.verifier_from
        except ValueError:
            return False

    @property
    def writes(self) -> list[Write]:
        return list(self._writes)

    def of(self, kind: str, namespace: str | None, name: str) -> list[Write]:
        k = key(kind, namespace, name)
        return [w for w in self._writes if w.key == k]

    def in_namespace(self, namespace: str) -> list[Write]:
        return [w for w in self._writes if w.namespace == namespace]

    def states(self, kind: str, namespace: str | None, name: str, start: dict | None):
        """(write, the object after it) for each write of one object, in order; a write
        through the scale subresource is applied to the state before it; None after a
        delete."""
        current = start
        out = []
        for w in self.of(kind, namespace, name):
            if w.verb in ("delete", "deletecollection"):
                current = w.object
            elif w.replicas is not None and current is not None:
                spec = dict(current.get("spec") or {})
                spec["replicas"] = w.replicas
                current = {**current, "spec": spec}
            elif w.object is not None:
                current = w.object
            out.append((w, current))
        return out
