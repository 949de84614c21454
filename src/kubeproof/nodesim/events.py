"""Recording Events as a kubelet does: source kubelet/<node>, repeats folded into one
Event whose count grows."""

import datetime as dt
import hashlib
import time

from lightkube import ApiError, AsyncClient
from lightkube.codecs import from_dict
from lightkube.resources.core_v1 import Event as EventResource

from kubeproof.nodesim.container import Event


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Recorder:
    def __init__(self, client: AsyncClient, node: str):
        self.client = client
        self.node = node
        self._seen: dict[str, tuple[str, int]] = {}  # key -> (event name, count)

    async def record(self, pod: dict, event: Event) -> None:
        meta = pod["metadata"]
        key = "|".join([meta["uid"], event.reason, event.message, event.field_path or ""])
        suffix = hashlib.sha1(key.encode()).hexdigest()[:8]
        involved = {
            "kind": "Pod",
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta["uid"],
            "apiVersion": "v1",
            "resourceVersion": meta.get("resourceVersion"),
        }
        if event.field_path:
            involved["fieldPath"] = event.field_path
        name = f"{meta['name']}.{suffix}{len(self._seen):x}"
        await self._emit(key, meta["namespace"], name, involved, event)

    async def record_node(self, event: Event) -> None:
        """An Event on the kubelet's own Node. The kubelet's nodeRef has no namespace and no
        uid (pkg/kubelet/kubelet.go:555-560), so the Event lives in `default`
        (k8s.io/client-go/tools/record/event.go:489-492) and is named
        `<node>.<hex UnixNano>` (event.go:495 GenerateEventName)."""
        key = "|".join(["node", event.reason, event.message])
        involved = {"kind": "Node", "name": self.node, "apiVersion": "v1"}
        name = f"{self.node}.{time.time_ns():x}"
        await self._emit(key, "default", name, involved, event)

    async def _emit(
        self, key: str, namespace: str, name: str, involved: dict, event: Event
    ) -> None:
        now = _now()
        if key in self._seen:
            seen, count = self._seen[key]
            self._seen[key] = (seen, count + 1)
            patch = {"count": count + 1, "lastTimestamp": now}
            try:
                await self.client.patch(EventResource, seen, patch, namespace=namespace)
                return
            except ApiError:
                pass  # expired or deleted: create a new one
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": involved,
            "reason": event.reason,
            "message": event.message,
            "type": event.type,
            "source": {"component": "kubelet", "host": self.node},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "reportingComponent": "kubelet",
            "reportingInstance": self.node,
        }
        try:
            await self.client.create(from_dict(body))
            self._seen[key] = (name, 1)
        except ApiError:
            pass  # the namespace is terminating; a lost event is what a kubelet accepts too

    def forget(self, uid: str) -> None:
        for key in [k for k in self._seen if k.startswith(uid + "|")]:
            del self._seen[key]
