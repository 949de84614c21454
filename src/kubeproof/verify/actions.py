"""What a verifier may do to the cluster after the agent's turn, to see that a fix holds:
evict a pod and expect the workload to recover, delete an object and expect its controller
to bring it back.

    def verify(v):
        v.healthy("shop", "api")
        v.evict("shop", {"app": "api"})           # done once, then...
        v.pods_ready("shop", {"app": "api"}, 2)   # ...judged until it recovers

`verify(v)` is evaluated again and again until it settles; each action is carried out the
first time it is reached and only reported afterwards, and the settling waits at least the
action's `recover_sec` before calling anything final. The actions run as the harness's admin
identity: the history of writes (verify/history.py) leaves them out, and the safety monitor
counts no outage that began once the verifier started acting — what the verifier breaks on
purpose is not the agent's doing.
"""

import time
from dataclasses import dataclass, field

from lightkube import ApiError, Client
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import Pod

from kubeproof.verify import kinds
from kubeproof.verify.result import Result


@dataclass
class Actions:
    """The actions of one verification (a `settle`), shared by its evaluations."""

    done: dict[str, Result] = field(default_factory=dict)
    first_at: float | None = None  # epoch seconds of the first action: outages from then on
    hold_until: float = 0.0  # monotonic: the settling waits for recovery until then
    last_at: float | None = None  # monotonic: results count once the cluster could react

    def run(self, key: str, recover_sec: float, act) -> Result:
        if key in self.done:
            return self.done[key]
        if self.first_at is None:
            self.first_at = time.time()
        result = act()
        self.done[key] = result
        self.last_at = time.monotonic()
        self.hold_until = max(self.hold_until, self.last_at + recover_sec)
        return result


def evict(client: Client, namespace: str, labels: dict[str, str], count: int) -> Result:
    """Evict up to `count` running pods the labels select (by name order) through the
    Eviction API, as `kubectl drain` does: a PodDisruptionBudget may refuse."""
    selector = ",".join(f"{k}={v}" for k, v in labels.items())
    name = f"evict {namespace} {selector}"
    pods = sorted(
        (
            p
            for p in client.list(Pod, namespace=namespace, labels=labels)
            if p.metadata.deletionTimestamp is None and p.status.phase == "Running"
        ),
        key=lambda p: p.metadata.name,
    )[:count]
    if not pods:
        return Result(name, False, "no running pod to evict")
    evicted, refused = [], []
    for p in pods:
        body = Pod.Eviction(metadata=ObjectMeta(name=p.metadata.name, namespace=namespace))
        try:
            client.create(body, p.metadata.name, namespace=namespace)
            evicted.append(p.metadata.name)
        except ApiError as exc:
            if exc.status.code is not None and exc.status.code >= 500:
                raise
            refused.append(f"{p.metadata.name}: {exc.status.message}")
    reason = f"evicted {', '.join(evicted)}" if evicted else ""
    if refused:
        reason += ("; " if reason else "") + "refused " + "; ".join(refused)
    return Result(name, not refused, reason)


def delete(client: Client, kind: str, namespace: str | None, name: str) -> Result:
    """Delete one object (a pod its controller should replace, a Secret a controller should
    restore)."""
    label = f"delete {kind} {namespace + '/' if namespace else ''}{name}"
    resource = kinds.resolve(client, kind)
    if resource is None:
        return Result(label, False, f"unknown kind {kind}")
    try:
        client.delete(resource, name, namespace=namespace)
    except ApiError as exc:
        if exc.status.code is not None and exc.status.code >= 500:
            raise
        return Result(label, False, exc.status.message or "refused")
    return Result(label, True, "deleted")
