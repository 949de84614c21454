"""Recording Events as a kubelet does: source kubelet/<node>, repeats folded into one
Event whose count grows."""

import datetime as dt
import hashlib

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
        now = _now()
        if key in self._seen:
            name, count = self._seen[key]
            self._seen[key] = (name, count + 1)
            patch = {"count": count + 1, "lastTimestamp": now}
            try:
                await self.client.patch(EventResource, name, patch, namespace=meta["namespace"])
                return
            except ApiError:
                pass  # expired or deleted: create a new one
        suffix = hashlib.sha1(key.encode()).hexdigest()[:8]
        name = f"{meta['name']}.{suffix}{len(self._seen):x}"
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
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": meta["namespace"]},
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
